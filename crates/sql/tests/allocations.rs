//! The steady-state point-select path allocates nothing (issue #4): after a warm-up, a
//! text `SELECT c FROM sbtest1 WHERE id=N` (a plan-cache hit) and an execution of the
//! prepared `SELECT c FROM sbtest1 WHERE id=?` make no heap allocation on the session's
//! thread. The sink copies values into a reused buffer, as the server's wire sink does.

use manycore_sql::engine::{ConnectionInfo, Engine, EngineConfig};
use manycore_sql::error::Result;
use manycore_sql::session::Session;
use manycore_sql::sink::{ColumnInfo, Columns, OkInfo, ResultSink};
use manycore_storage::Storage;
use manycore_sync::alloc_count::{allocations_during, CountingAllocator};
use manycore_types::Value;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Keeps the last row's bytes in a buffer that is cleared, not freed.
#[derive(Default)]
struct Buffer {
    bytes: Vec<u8>,
    rows: u64,
}

impl ResultSink for Buffer {
    fn result_set_start(&mut self, columns: &Columns) -> Result<()> {
        self.bytes.clear();
        for c in columns.iter() {
            self.bytes.extend_from_slice(c.name.as_bytes());
        }
        Ok(())
    }
    fn row(&mut self, values: &[Value]) -> Result<()> {
        self.rows += 1;
        for v in values {
            if let Some(b) = v.as_bytes() {
                self.bytes.extend_from_slice(b);
            }
        }
        Ok(())
    }
    fn result_set_end(&mut self, _: u16, _: u16, _: bool) -> Result<()> {
        Ok(())
    }
    fn ok(&mut self, _: &OkInfo, _: bool) -> Result<()> {
        Ok(())
    }
    fn field_list(&mut self, _: &[ColumnInfo]) -> Result<()> {
        Ok(())
    }
    fn discard_unfinished(&mut self) {
        self.bytes.clear();
    }
}

fn sysbench_session() -> Session {
    let engine = Engine::new(
        Storage::new(),
        EngineConfig {
            workers: 1,
            server_version: "10.11.99-MariaDB-manycore".into(),
            data_dir: "/tmp/manycore-alloc-test".into(),
            max_connections: 10,
            max_allowed_packet: 16 << 20,
            secure_file_priv: None,
        },
    );
    Session::bootstrap_privileges(&engine).expect("grant tables");
    let info = ConnectionInfo {
        id: 1,
        user: "root".into(),
        host: "localhost".into(),
        account_host: "localhost".into(),
        using_password: false,
        worker: 0,
        thread_id: 0,
        database: None,
    };
    let mut s = Session::new(engine, info, Box::new(|_| {})).expect("session");
    let mut sink = Buffer::default();
    for sql in [
        "CREATE DATABASE sbtest",
        "USE sbtest",
        "CREATE TABLE sbtest1(id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, \
         c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id))",
    ] {
        s.run_query(sql, &mut sink).expect(sql);
    }
    for i in 0..100 {
        let sql = format!("INSERT INTO sbtest1 (k, c, pad) VALUES ({i}, 'c-{i:0>100}', 'pad')");
        s.run_query(&sql, &mut sink).expect("insert");
    }
    s
}

#[test]
fn text_point_select_hit_allocates_nothing() {
    let mut s = sysbench_session();
    let mut sink = Buffer::default();
    let texts: Vec<String> = (1..=100)
        .map(|id| format!("SELECT c FROM sbtest1 WHERE id={id}"))
        .collect();
    for text in &texts[..10] {
        s.run_query(text, &mut sink).expect("warm-up");
    }
    let n = allocations_during(|| {
        for text in &texts {
            s.run_query(text, &mut sink).expect("select");
        }
    });
    assert_eq!(sink.rows, 110);
    assert_eq!(n, 0, "{n} allocations in 100 text point selects");
}

#[test]
fn prepared_point_select_allocates_nothing() {
    let mut s = sysbench_session();
    let mut sink = Buffer::default();
    let prepared = s
        .prepare("SELECT c FROM sbtest1 WHERE id=?")
        .expect("prepare");
    let params: Vec<[Value; 1]> = (1..=100).map(|id| [Value::Int(id)]).collect();
    for p in &params[..10] {
        s.execute_prepared(prepared.id, p, &mut sink)
            .expect("warm-up");
    }
    let n = allocations_during(|| {
        for p in &params {
            s.execute_prepared(prepared.id, p, &mut sink)
                .expect("execute");
        }
    });
    assert_eq!(sink.rows, 110);
    assert_eq!(n, 0, "{n} allocations in 100 prepared point selects");
}
