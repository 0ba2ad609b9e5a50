//! In-process tests of the statement pipeline: an Engine over a fresh Storage and a sink
//! that records what the server would send.

use crate::engine::{ConnectionInfo, Engine, EngineConfig};
use crate::error::{ErrorCode, Result};
use crate::session::Session;
use crate::sink::{ColumnInfo, OkInfo, ResultSink};
use manycore_storage::Storage;
use manycore_types::{format, Value};
use std::sync::Arc;
#[allow(unused_imports)]
use ErrorCode as _;

#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Rows {
        columns: Vec<ColumnInfo>,
        rows: Vec<Vec<String>>,
        more: bool,
    },
    Ok {
        ok: OkInfo,
        more: bool,
    },
    Fields(Vec<ColumnInfo>),
}

#[derive(Default)]
pub struct Collect {
    pub events: Vec<Event>,
    columns: Vec<ColumnInfo>,
    rows: Vec<Vec<String>>,
}

impl ResultSink for Collect {
    fn result_set_start(&mut self, columns: &[ColumnInfo]) -> Result<()> {
        self.columns = columns.to_vec();
        self.rows.clear();
        Ok(())
    }
    fn row(&mut self, values: &[Value]) -> Result<()> {
        let row = values
            .iter()
            .zip(&self.columns)
            .map(|(v, c)| {
                if v.is_null() {
                    "NULL".to_string()
                } else {
                    format::to_text(v, &c.data_type)
                }
            })
            .collect();
        self.rows.push(row);
        Ok(())
    }
    fn result_set_end(&mut self, _status: u16, _warnings: u16, more: bool) -> Result<()> {
        let columns = std::mem::take(&mut self.columns);
        let rows = std::mem::take(&mut self.rows);
        self.events.push(Event::Rows {
            columns,
            rows,
            more,
        });
        Ok(())
    }
    fn ok(&mut self, ok: &OkInfo, more: bool) -> Result<()> {
        self.events.push(Event::Ok {
            ok: ok.clone(),
            more,
        });
        Ok(())
    }
    fn field_list(&mut self, columns: &[ColumnInfo]) -> Result<()> {
        self.events.push(Event::Fields(columns.to_vec()));
        Ok(())
    }
}

pub fn engine() -> Arc<Engine> {
    Engine::new(
        Storage::new(),
        EngineConfig {
            workers: 2,
            server_version: "10.11.99-MariaDB-manycore".into(),
            data_dir: "/tmp/manycore-test".into(),
            max_connections: 100,
            max_allowed_packet: 16 << 20,
        },
    )
}

pub fn session(engine: &Arc<Engine>, id: u32) -> Session {
    let info = ConnectionInfo {
        id,
        user: "root".into(),
        host: "localhost".into(),
        worker: (id as usize) % 2,
        database: None,
    };
    Session::new(engine.clone(), info, Box::new(|_| {})).expect("session")
}

/// Runs `sql`, returning its events; panics on error.
pub fn run(s: &mut Session, sql: &str) -> Vec<Event> {
    let mut sink = Collect::default();
    if let Err(e) = s.run_query(sql, &mut sink) {
        panic!("{sql}: {e}");
    }
    sink.events
}

/// Rows of the last result set of `sql`.
pub fn rows(s: &mut Session, sql: &str) -> Vec<Vec<String>> {
    match run(s, sql).pop() {
        Some(Event::Rows { rows, .. }) => rows,
        other => panic!("{sql}: expected rows, got {other:?}"),
    }
}

pub fn ok(s: &mut Session, sql: &str) -> OkInfo {
    match run(s, sql).pop() {
        Some(Event::Ok { ok, .. }) => ok,
        other => panic!("{sql}: expected OK, got {other:?}"),
    }
}

pub fn error(s: &mut Session, sql: &str) -> crate::Error {
    let mut sink = Collect::default();
    match s.run_query(sql, &mut sink) {
        Ok(()) => panic!("{sql}: expected an error, got {:?}", sink.events),
        Err(e) => e,
    }
}

fn table(rows: &[&[&str]]) -> Vec<Vec<String>> {
    rows.iter()
        .map(|r| r.iter().map(|c| c.to_string()).collect())
        .collect()
}

fn setup() -> (Arc<Engine>, Session) {
    let engine = engine();
    let mut s = session(&engine, 1);
    run(&mut s, "CREATE DATABASE test");
    run(&mut s, "USE test");
    run(
        &mut s,
        "CREATE TABLE sbtest1(id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, \
         c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id)) \
         /*! ENGINE = innodb */",
    );
    (engine, s)
}

#[test]
fn vertical_slice() {
    let (_engine, mut s) = setup();
    let r = ok(
        &mut s,
        "INSERT INTO sbtest1 (k, c, pad) VALUES (10, 'a', 'x'), (20, 'b', 'y'), (30, 'c', 'z')",
    );
    assert_eq!((r.affected_rows, r.last_insert_id), (3, 1));
    assert_eq!(
        rows(&mut s, "SELECT c FROM sbtest1 WHERE id=2"),
        table(&[&["b"]])
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT id, k FROM sbtest1 WHERE id BETWEEN 2 AND 3 ORDER BY k DESC"
        ),
        table(&[&["3", "30"], &["2", "20"]])
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN 1 AND 2"
        ),
        table(&[&["30"]])
    );
    let r = ok(&mut s, "UPDATE sbtest1 SET k=k+1 WHERE id=1");
    assert_eq!(r.affected_rows, 1);
    assert_eq!(r.info, "Rows matched: 1  Changed: 1  Warnings: 0");
    assert_eq!(
        ok(&mut s, "DELETE FROM sbtest1 WHERE id=3").affected_rows,
        1
    );
    assert_eq!(
        rows(&mut s, "SELECT id, k FROM sbtest1 ORDER BY id"),
        table(&[&["1", "11"], &["2", "20"]])
    );
    assert_eq!(
        rows(&mut s, "SELECT @@version_comment LIMIT 1"),
        table(&[&["manycore"]])
    );
    assert_eq!(rows(&mut s, "SELECT DATABASE()"), table(&[&["test"]]));
    assert_eq!(rows(&mut s, "SELECT 1"), table(&[&["1"]]));
}
