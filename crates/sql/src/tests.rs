//! In-process tests of the statement pipeline: an Engine over a fresh Storage and a sink
//! that records what the server would send.

use crate::engine::{ConnectionInfo, Engine, EngineConfig};
use crate::error::{ErrorCode, Result};
use crate::privilege::Privileges;
use crate::session::Session;
use crate::sink::{ColumnInfo, Columns, OkInfo, ResultSink};
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
    fn result_set_start(&mut self, columns: &Columns) -> Result<()> {
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
    fn discard_unfinished(&mut self) {
        self.columns.clear();
        self.rows.clear();
    }
}

pub fn engine() -> Arc<Engine> {
    let engine = Engine::new(
        Storage::new(),
        EngineConfig {
            workers: 2,
            server_version: "10.11.99-MariaDB-manycore".into(),
            data_dir: "/tmp/manycore-test".into(),
            max_connections: 100,
            max_allowed_packet: 16 << 20,
            secure_file_priv: None,
        },
    );
    Session::bootstrap_privileges(&engine).expect("grant tables");
    engine
}

pub fn session(engine: &Arc<Engine>, id: u32) -> Session {
    let info = ConnectionInfo {
        id,
        user: "root".into(),
        host: "localhost".into(),
        account_host: "localhost".into(),
        using_password: false,
        worker: (id as usize) % 2,
        thread_id: 0,
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

fn load(s: &mut Session, n: usize) {
    let values: Vec<String> = (1..=n)
        .map(|i| format!("({i}, {}, 'c{:03}', 'p')", i % 5, (n - i)))
        .collect();
    run(
        s,
        &format!(
            "INSERT INTO sbtest1 (id, k, c, pad) VALUES {}",
            values.join(",")
        ),
    );
}

/// An index range leaves a conjunct out of the per-row filter only where the range is
/// exactly its rows (plan invariant (2)): these results are the WHERE clause's.
#[test]
fn index_ranges_keep_the_where_clause_exact() {
    let (_engine, mut s) = setup();
    run(
        &mut s,
        "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, k INT NULL, c VARCHAR(10), d DOUBLE, \
         KEY (k), KEY (c), KEY (d))",
    );
    run(
        &mut s,
        "INSERT INTO t VALUES (1, NULL, 'a', -0.0), (2, 2, 'b ', 0.5), (3, 3, 'C', 1), \
         (4, NULL, '4', NULL), (5, 5, '4.0', 1e300)",
    );
    let ids = |s: &mut Session, filter: &str| -> Vec<String> {
        rows(s, &format!("SELECT id FROM t WHERE {filter} ORDER BY id"))
            .into_iter()
            .map(|mut row| row.remove(0))
            .collect()
    };
    for (filter, expected) in [
        ("id BETWEEN 2 AND 4", &["2", "3", "4"][..]),
        ("id BETWEEN 2 AND 4 AND c <> 'c'", &["2", "4"]),
        ("c <> 'c' AND id BETWEEN 2 AND 4", &["2", "4"]),
        ("id BETWEEN 4 AND 2", &[]),
        ("id > 1 AND id > 3", &["4", "5"]),
        ("id >= 2 AND id < 4 AND id <> 3", &["2"]),
        ("id = '3'", &["3"]),
        ("id = ' 3 '", &["3"]),
        ("id = 3.5", &[]),
        ("id < 3.5", &["1", "2", "3"]),
        ("id < '2.5'", &["1", "2"]),
        ("id > -1 AND id < 2", &["1"]),
        ("id < 99999999999", &["1", "2", "3", "4", "5"]),
        ("id IN (1, '2', 5)", &["1", "2", "5"]),
        ("id IN (1, 2.5, 5)", &["1", "5"]),
        ("id = NULL", &[]),
        ("k < 4", &["2", "3"]),
        ("k <= 3 AND id >= 3", &["3"]),
        ("k IS NULL AND id < 4", &["1"]),
        ("id >= 4 OR k = 2", &["2", "4", "5"]),
        ("c = 'b'", &["2"]),
        ("c >= 'b' AND c < 'd'", &["2", "3"]),
        ("c = 0", &["1", "2", "3"]),
        ("c = 4", &["4", "5"]),
        ("d = 0", &["1"]),
        ("d < 1", &["1", "2"]),
        ("d > 1", &["5"]),
    ] {
        assert_eq!(ids(&mut s, filter), expected, "WHERE {filter}");
    }
    let changed = ok(
        &mut s,
        "UPDATE t SET c = 'z' WHERE id BETWEEN 2 AND 3 AND k = 3",
    );
    assert_eq!(changed.affected_rows, 1);
    assert_eq!(ids(&mut s, "c = 'z'"), ["3"]);
    assert_eq!(ok(&mut s, "DELETE FROM t WHERE id > 4").affected_rows, 1);
    assert_eq!(ids(&mut s, "id > 0"), ["1", "2", "3", "4"]);
}

#[test]
fn select_shapes() {
    let (_engine, mut s) = setup();
    load(&mut s, 10);
    assert_eq!(
        rows(&mut s, "SELECT COUNT(*) FROM sbtest1"),
        table(&[&["10"]])
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT k, COUNT(*) AS n FROM sbtest1 GROUP BY k HAVING n > 1 ORDER BY k DESC LIMIT 2"
        ),
        table(&[&["4", "2"], &["3", "2"]])
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT DISTINCT k FROM sbtest1 WHERE id BETWEEN 1 AND 7 ORDER BY k"
        ),
        table(&[&["0"], &["1"], &["2"], &["3"], &["4"]])
    );
    assert_eq!(
        rows(&mut s, "SELECT id FROM sbtest1 ORDER BY c LIMIT 2"),
        table(&[&["10"], &["9"]])
    );
    assert_eq!(
        rows(&mut s, "SELECT id FROM sbtest1 ORDER BY 1 DESC LIMIT 1, 2"),
        table(&[&["9"], &["8"]])
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT id FROM sbtest1 WHERE id IN (3, 1, 3) ORDER BY id"
        ),
        table(&[&["1"], &["3"]])
    );
    assert_eq!(
        rows(&mut s, "SELECT id FROM sbtest1 WHERE id > 8"),
        table(&[&["9"], &["10"]])
    );
    assert_eq!(
        rows(&mut s, "SELECT id FROM sbtest1 WHERE id < 3 AND k = 1"),
        table(&[&["1"]])
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT MIN(id), MAX(id), AVG(k) FROM sbtest1 WHERE id > 100"
        ),
        table(&[&["NULL", "NULL", "NULL"]])
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT t.id FROM test.sbtest1 AS t WHERE t.id = '4'"
        ),
        table(&[&["4"]])
    );
    assert_eq!(
        rows(&mut s, "SELECT * FROM sbtest1 WHERE id = 2"),
        table(&[&["2", "2", "c008", "p"]])
    );
    assert_eq!(rows(&mut s, "SELECT 1 + 1 FROM DUAL"), table(&[&["2"]]));
    run(&mut s, "CREATE INDEX k_1 ON sbtest1(k)");
    assert_eq!(
        rows(&mut s, "SELECT id FROM sbtest1 WHERE k = 3 ORDER BY id"),
        table(&[&["3"], &["8"]])
    );
    assert_eq!(
        rows(&mut s, "SELECT COUNT(*) FROM sbtest1 WHERE k >= 3"),
        table(&[&["4"]])
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT COUNT(*) FROM sbtest1 WHERE k BETWEEN 1 AND 2"
        ),
        table(&[&["4"]])
    );
}

#[test]
fn column_metadata() {
    let (_engine, mut s) = setup();
    let events = run(
        &mut s,
        "SELECT id, c AS name, k+1, COUNT(*), sum( k ) + 1, CONCAT('a(', k), (k) FROM sbtest1 t",
    );
    let Some(Event::Rows { columns, .. }) = events.last() else {
        panic!("{events:?}")
    };
    let names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "id",
            "name",
            "k+1",
            "COUNT(*)",
            "sum( k ) + 1",
            "CONCAT('a(', k)",
            "(k)"
        ]
    );
    assert_eq!(
        (columns[0].table.as_str(), columns[0].org_table.as_str()),
        ("t", "sbtest1")
    );
    assert!(columns[0].primary_key && columns[0].auto_increment && columns[0].not_null);
    assert_eq!(columns[1].org_name, "c");
    assert_eq!(columns[2].org_table, "");
}

#[test]
fn errors_have_mysql_codes() {
    let (_engine, mut s) = setup();
    let code = |s: &mut Session, sql: &str| error(s, sql).code;
    assert_eq!(code(&mut s, "SELECT * FROM nosuch"), ErrorCode::NoSuchTable);
    assert_eq!(
        error(&mut s, "SELECT * FROM nosuch").message,
        "Table 'test.nosuch' doesn't exist"
    );
    assert_eq!(
        code(&mut s, "SELECT nosuch FROM sbtest1"),
        ErrorCode::BadField
    );
    assert_eq!(
        error(&mut s, "SELECT id FROM sbtest1 WHERE x = 1").message,
        "Unknown column 'x' in 'WHERE'"
    );
    assert_eq!(code(&mut s, "USE nosuch"), ErrorCode::BadDb);
    // SELECT ... INTO: the targets must match the columns; a local name is undeclared.
    assert_eq!(
        code(&mut s, "SELECT 1, 2 INTO @a"),
        ErrorCode::WrongNumberOfColumnsInSelect
    );
    assert_eq!(code(&mut s, "SELECT 1 INTO a"), ErrorCode::SpUndeclaredVar);
    // Locking clauses manycore does not build are refused, not ignored.
    assert_eq!(
        code(&mut s, "SELECT id FROM sbtest1 FOR UPDATE OF sbtest1"),
        ErrorCode::NotSupportedYet
    );
    assert_eq!(code(&mut s, "selec 1"), ErrorCode::Parse);
    assert_eq!(code(&mut s, ""), ErrorCode::EmptyQuery);
    assert_eq!(
        code(&mut s, "CREATE TABLE sbtest1 (a int)"),
        ErrorCode::TableExists
    );
    assert_eq!(
        code(&mut s, "CREATE TABLE t2 (a int, A int)"),
        ErrorCode::DupFieldName
    );
    assert_eq!(
        code(
            &mut s,
            "CREATE TABLE t2 (a int primary key, b int, primary key (b))"
        ),
        ErrorCode::MultiplePriKey
    );
    assert_eq!(
        code(&mut s, "CREATE TABLE t2 (a int, key (b))"),
        ErrorCode::KeyColumnDoesNotExist
    );
    assert_eq!(
        code(&mut s, "CREATE TABLE t2 (a int auto_increment, b int)"),
        ErrorCode::WrongAutoKey
    );

    assert_eq!(
        code(&mut s, "CREATE TABLE t2 (a decimal(66,2))"),
        ErrorCode::TooBigPrecision
    );
    assert_eq!(
        code(&mut s, "CREATE TABLE t2 (a int, key i (a), key i (a))"),
        ErrorCode::DupKeyName
    );
    assert_eq!(code(&mut s, "DROP TABLE nosuch"), ErrorCode::BadTable);
    assert_eq!(
        error(&mut s, "DROP TABLE nosuch").message,
        "Unknown table 'test.nosuch'"
    );
    assert_eq!(
        code(&mut s, "INSERT INTO sbtest1 (id, k) VALUES (1)"),
        ErrorCode::WrongValueCountOnRow
    );
    run(&mut s, "INSERT INTO sbtest1 (id) VALUES (1)");
    let e = error(&mut s, "INSERT INTO sbtest1 (id) VALUES (1)");
    assert_eq!(
        (e.code, e.message.as_str()),
        (ErrorCode::DupEntry, "Duplicate entry '1' for key 'PRIMARY'")
    );
    assert_eq!(
        code(&mut s, "INSERT INTO sbtest1 (id, k) VALUES (2, NULL)"),
        ErrorCode::BadNull
    );
    run(&mut s, "CREATE TABLE t3 (a int NOT NULL, b int)");
    assert_eq!(
        error(&mut s, "INSERT INTO t3 (b) VALUES (1)").message,
        "Field 'a' doesn't have a default value"
    );
    assert_eq!(
        code(&mut s, "SELECT @@nosuch"),
        ErrorCode::UnknownSystemVariable
    );
    assert_eq!(
        code(&mut s, "SET nosuch = 1"),
        ErrorCode::UnknownSystemVariable
    );
    assert_eq!(
        code(&mut s, "SET version = 'x'"),
        ErrorCode::IncorrectGlobalLocalVar
    );
    assert_eq!(
        code(&mut s, "SET max_connections = 5"),
        ErrorCode::GlobalVariable
    );
    assert_eq!(
        code(&mut s, "SET autocommit = 2"),
        ErrorCode::WrongValueForVar
    );
    assert_eq!(code(&mut s, "KILL 999"), ErrorCode::NoSuchThread);
    let mut fresh = session(&engine_of(&s), 9);
    assert_eq!(code(&mut fresh, "SELECT * FROM t"), ErrorCode::NoDbSelected);
}

fn engine_of(_s: &Session) -> Arc<Engine> {
    engine()
}

#[test]
fn statement_atomicity_and_transactions() {
    let (engine, mut s) = setup();
    run(&mut s, "INSERT INTO sbtest1 (id) VALUES (5)");
    // A failing multi-row insert leaves nothing behind.
    error(&mut s, "INSERT INTO sbtest1 (id) VALUES (6), (7), (5)");
    assert_eq!(
        rows(&mut s, "SELECT COUNT(*) FROM sbtest1"),
        table(&[&["1"]])
    );
    run(&mut s, "BEGIN");
    assert_eq!(
        s.status_flags() & crate::SERVER_STATUS_IN_TRANS,
        crate::SERVER_STATUS_IN_TRANS
    );
    run(&mut s, "INSERT INTO sbtest1 (id) VALUES (6)");
    error(&mut s, "INSERT INTO sbtest1 (id) VALUES (7), (5)");
    run(&mut s, "INSERT INTO sbtest1 (id) VALUES (8)");
    let mut other = session(&engine, 2);
    run(&mut other, "USE test");
    assert_eq!(
        rows(&mut other, "SELECT COUNT(*) FROM sbtest1"),
        table(&[&["1"]])
    );
    run(&mut s, "ROLLBACK");
    assert_eq!(rows(&mut s, "SELECT id FROM sbtest1"), table(&[&["5"]]));
    run(&mut s, "START TRANSACTION");
    run(&mut s, "INSERT INTO sbtest1 (id) VALUES (6), (8)");
    run(&mut s, "COMMIT");
    assert_eq!(s.status_flags() & crate::SERVER_STATUS_IN_TRANS, 0);
    assert_eq!(
        rows(&mut other, "SELECT COUNT(*) FROM sbtest1"),
        table(&[&["3"]])
    );
    // Repeatable read inside a transaction; a write conflict rolls everything back.
    run(&mut other, "BEGIN");
    assert_eq!(
        rows(&mut other, "SELECT k FROM sbtest1 WHERE id = 5"),
        table(&[&["0"]])
    );
    run(&mut other, "INSERT INTO sbtest1 (id) VALUES (100)");
    run(&mut s, "UPDATE sbtest1 SET k = 7 WHERE id = 5");
    assert_eq!(
        rows(&mut other, "SELECT k FROM sbtest1 WHERE id = 5"),
        table(&[&["0"]])
    );
    // A write reads the latest commit (InnoDB's locking read) ...
    run(&mut other, "UPDATE sbtest1 SET k = k + 1 WHERE id = 5");
    assert_eq!(
        rows(&mut other, "SELECT k FROM sbtest1 WHERE id = 5"),
        table(&[&["8"]])
    );
    // ... and a row another open transaction holds makes the statement wait for it; once
    // the holder commits, the statement runs again on the latest commit (session
    // invariant (4)) and the waiting transaction stays open.
    run(&mut s, "BEGIN");
    run(&mut s, "UPDATE sbtest1 SET k = 1 WHERE id = 6");
    let e = error(&mut other, "UPDATE sbtest1 SET k = k + 9 WHERE id = 6");
    assert!(
        matches!(e.wait, Some(crate::error::WaitFor::RowLock { .. })),
        "{e:?}"
    );
    let Some(crate::Wait::RowLock(wait)) = other.take_wait() else {
        panic!("a lock wait is armed")
    };
    run(&mut s, "COMMIT");
    assert!(wait.wait_blocking(std::time::Duration::from_secs(10)));
    other
        .resume(&mut Collect::default())
        .expect("the statement runs again");
    assert_eq!(
        other.status_flags() & crate::SERVER_STATUS_IN_TRANS,
        crate::SERVER_STATUS_IN_TRANS
    );
    run(&mut other, "COMMIT");
    assert_eq!(
        rows(&mut other, "SELECT k FROM sbtest1 WHERE id = 6"),
        table(&[&["10"]])
    );
    assert_eq!(
        rows(&mut other, "SELECT COUNT(*) FROM sbtest1 WHERE id = 100"),
        table(&[&["1"]])
    );
    // autocommit=0 keeps a transaction open until COMMIT; DDL commits implicitly.
    run(&mut s, "SET autocommit = 0");
    run(&mut s, "DELETE FROM sbtest1 WHERE id = 6");
    assert_eq!(
        rows(&mut other, "SELECT COUNT(*) FROM sbtest1"),
        table(&[&["4"]])
    );
    run(&mut s, "CREATE TABLE t9 (a int)");
    assert_eq!(
        rows(&mut other, "SELECT COUNT(*) FROM sbtest1"),
        table(&[&["3"]])
    );
    run(&mut s, "SET autocommit = 1");
}

#[test]
fn duplicates_replace_ignore() {
    let (_engine, mut s) = setup();
    run(
        &mut s,
        "CREATE TABLE u (id int primary key, v int, w varchar(10), unique key uv (v))",
    );
    assert_eq!(
        ok(&mut s, "INSERT INTO u VALUES (1, 10, 'a'), (2, 20, 'b')").affected_rows,
        2
    );
    let r = ok(
        &mut s,
        "INSERT IGNORE INTO u VALUES (1, 30, 'c'), (3, 30, 'd')",
    );
    assert_eq!((r.affected_rows, r.warnings), (1, 1));
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS"),
        table(&[&["Warning", "1062", "Duplicate entry '1' for key 'PRIMARY'"]])
    );
    let e = error(&mut s, "INSERT INTO u VALUES (4, 10, 'x')");
    assert_eq!(e.message, "Duplicate entry '10' for key 'uv'");
    let r = ok(
        &mut s,
        "INSERT INTO u VALUES (1, 10, 'z') ON DUPLICATE KEY UPDATE w = VALUES(w)",
    );
    assert_eq!(r.affected_rows, 2);
    let r = ok(
        &mut s,
        "INSERT INTO u VALUES (1, 10, 'z') ON DUPLICATE KEY UPDATE w = VALUES(w)",
    );
    assert_eq!(r.affected_rows, 0);
    assert_eq!(
        ok(&mut s, "REPLACE INTO u VALUES (2, 30, 'r')").affected_rows,
        3
    );
    assert_eq!(
        rows(&mut s, "SELECT * FROM u ORDER BY id"),
        table(&[&["1", "10", "z"], &["2", "30", "r"]])
    );
    assert_eq!(
        ok(&mut s, "REPLACE INTO u VALUES (5, 50, 'n')").affected_rows,
        1
    );
    let r = ok(&mut s, "UPDATE u SET v = v + 1 WHERE id > 0");
    assert_eq!(r.info, "Rows matched: 3  Changed: 3  Warnings: 0");
    let r = ok(&mut s, "UPDATE u SET w = 'z' WHERE id = 1");
    assert_eq!(
        (r.affected_rows, r.info.as_str()),
        (0, "Rows matched: 1  Changed: 0  Warnings: 0")
    );
    assert_eq!(
        ok(&mut s, "DELETE FROM u ORDER BY id DESC LIMIT 2").affected_rows,
        2
    );
    assert_eq!(rows(&mut s, "SELECT id FROM u"), table(&[&["1"]]));
}

#[test]
fn auto_increment_and_last_insert_id() {
    let (_engine, mut s) = setup();
    assert_eq!(
        ok(&mut s, "INSERT INTO sbtest1 (k) VALUES (1)").last_insert_id,
        1
    );
    assert_eq!(
        ok(&mut s, "INSERT INTO sbtest1 (id, k) VALUES (10, 1)").last_insert_id,
        10
    );
    let r = ok(
        &mut s,
        "INSERT INTO sbtest1 (id, k) VALUES (NULL, 1), (0, 2)",
    );
    assert_eq!(r.last_insert_id, 11);
    assert_eq!(rows(&mut s, "SELECT LAST_INSERT_ID()"), table(&[&["11"]]));
    assert_eq!(
        rows(&mut s, "SELECT id FROM sbtest1 ORDER BY id"),
        table(&[&["1"], &["10"], &["11"], &["12"]])
    );
    run(&mut s, "TRUNCATE TABLE sbtest1");
    assert_eq!(
        ok(&mut s, "INSERT INTO sbtest1 SET k = 5").last_insert_id,
        1
    );
}

#[test]
fn multi_statements_and_comments() {
    let (_engine, mut s) = setup();
    let e = error(&mut s, "SELECT 1; SELECT 2");
    assert_eq!(e.code, ErrorCode::Parse);
    assert!(
        e.message.contains("near 'SELECT 2' at line 1"),
        "{}",
        e.message
    );
    s.set_multi_statements(true);
    let events = run(&mut s, "SELECT 1; /* ; */ SELECT ';' ; -- x\n SELECT 3");
    assert_eq!(events.len(), 3);
    assert!(matches!(&events[0], Event::Rows { more: true, .. }));
    assert!(matches!(&events[2], Event::Rows { more: false, .. }));
    let events = run(
        &mut s,
        "/*!40101 SET NAMES utf8mb4 */; SHOW /*!50002 GLOBAL */ STATUS LIKE 'Questions'",
    );
    assert_eq!(events.len(), 2);
    assert_eq!(
        rows(&mut s, "SELECT @@character_set_client"),
        table(&[&["utf8mb4"]])
    );
}

#[test]
fn prepared_statements() {
    let (_engine, mut s) = setup();
    load(&mut s, 5);
    let info = s
        .prepare("SELECT c FROM sbtest1 WHERE id = ?")
        .expect("prepare");
    assert_eq!((info.params.len(), info.columns.len()), (1, 1));
    let mut sink = Collect::default();
    s.execute_prepared(info.id, &[Value::Int(3)], &mut sink)
        .expect("execute");
    s.execute_prepared(info.id, &[Value::text("4")], &mut sink)
        .expect("execute");
    let got: Vec<_> = sink
        .events
        .iter()
        .map(|e| match e {
            Event::Rows { rows, .. } => rows.clone(),
            _ => vec![],
        })
        .collect();
    assert_eq!(got, vec![table(&[&["c002"]]), table(&[&["c001"]])]);
    let ins = s
        .prepare("INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)")
        .expect("prepare");
    assert_eq!(s.prepared_param_count(ins.id), Some(4));
    let mut sink = Collect::default();
    let params = [
        Value::Int(9),
        Value::Int(1),
        Value::text("x"),
        Value::text("y"),
    ];
    s.execute_prepared(ins.id, &params, &mut sink)
        .expect("insert");
    // DDL that replaces the table re-binds the plan.
    run(&mut s, "CREATE INDEX k_1 ON sbtest1(k)");
    let mut sink = Collect::default();
    s.execute_prepared(info.id, &[Value::Int(9)], &mut sink)
        .expect("after DDL");
    assert!(matches!(&sink.events[0], Event::Rows { rows, .. } if rows == &table(&[&["x"]])));
    let upd = s
        .prepare("UPDATE sbtest1 SET k=k+1 WHERE id=?")
        .expect("prepare");
    let mut sink = Collect::default();
    s.execute_prepared(upd.id, &[Value::Int(9)], &mut sink)
        .expect("update");
    assert!(matches!(&sink.events[0], Event::Ok { ok, .. } if ok.affected_rows == 1));
    s.close_prepared(upd.id);
    assert!(s
        .execute_prepared(upd.id, &[Value::Int(9)], &mut sink)
        .is_err());
    let set = s.prepare("SET @a = ?").expect("prepare SET");
    s.execute_prepared(set.id, &[Value::Int(42)], &mut sink)
        .expect("SET");
    assert_eq!(rows(&mut s, "SELECT @a"), table(&[&["42"]]));
}

#[test]
fn variables_and_show() {
    let (engine, mut s) = setup();
    run(
        &mut s,
        "SET autocommit=0, @@session.sql_mode='', @x = 5, GLOBAL max_connections=10",
    );
    assert_eq!(
        rows(&mut s, "SELECT @@autocommit, @x, @@global.max_connections"),
        table(&[&["0", "5", "10"]])
    );
    assert_eq!(s.status_flags() & crate::SERVER_STATUS_AUTOCOMMIT, 0);
    run(&mut s, "SET autocommit=ON, sql_mode=DEFAULT");
    assert_eq!(
        rows(&mut s, "SHOW VARIABLES LIKE 'autocommit'"),
        table(&[&["autocommit", "ON"]])
    );
    assert_eq!(
        rows(&mut s, "SHOW VARIABLES WHERE Variable_name = 'sql_mode'"),
        table(&[&["sql_mode", crate::variables::DEFAULT_SQL_MODE]])
    );
    run(&mut s, "CREATE DATABASE other");
    assert_eq!(
        rows(&mut s, "SHOW DATABASES"),
        table(&[&["information_schema"], &["mysql"], &["other"], &["test"]])
    );
    assert_eq!(
        rows(&mut s, "SHOW DATABASES LIKE 't%'"),
        table(&[&["test"]])
    );
    assert_eq!(
        rows(&mut s, "SHOW FULL TABLES"),
        table(&[&["sbtest1", "BASE TABLE"]])
    );
    assert_eq!(
        rows(&mut s, "SHOW TABLES FROM other"),
        Vec::<Vec<String>>::new()
    );
    run(&mut s, "CREATE INDEX k_1 ON sbtest1(k)");
    assert_eq!(
        rows(&mut s, "SHOW COLUMNS FROM sbtest1"),
        table(&[
            &["id", "int(11)", "NO", "PRI", "NULL", "auto_increment"],
            &["k", "int(11)", "NO", "MUL", "0", ""],
            &["c", "char(120)", "NO", "", "", ""],
            &["pad", "char(60)", "NO", "", "", ""],
        ])
    );
    assert_eq!(rows(&mut s, "DESCRIBE sbtest1").len(), 4);
    let create = rows(&mut s, "SHOW CREATE TABLE sbtest1");
    assert_eq!(
        create[0][1],
        "CREATE TABLE `sbtest1` (\n  `id` int(11) NOT NULL AUTO_INCREMENT,\n  `k` int(11) NOT NULL DEFAULT 0,\n  \
         `c` char(120) NOT NULL DEFAULT '',\n  `pad` char(60) NOT NULL DEFAULT '',\n  PRIMARY KEY (`id`),\n  \
         KEY `k_1` (`k`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci"
    );
    assert_eq!(rows(&mut s, "SHOW INDEX FROM sbtest1").len(), 2);
    assert_eq!(rows(&mut s, "SHOW TABLE STATUS").len(), 1);
    assert_eq!(rows(&mut s, "SHOW CREATE DATABASE test")[0][0], "test");
    let status = rows(&mut s, "SHOW GLOBAL STATUS LIKE 'Com_select'");
    assert_eq!(status[0][0], "Com_select");
    assert!(engine.status().get(crate::Counter::Queries) > 10);
    assert_eq!(rows(&mut s, "SHOW PROCESSLIST").len(), 1);
    assert_eq!(
        rows(&mut s, "SHOW ENGINE manycore MUTEX")
            .first()
            .map(|r| r.len())
            .unwrap_or(3),
        3
    );
    run(&mut s, "FLUSH TABLES");
    run(&mut s, "DO 1 + 1");
    run(&mut s, "SET NAMES utf8 COLLATE utf8mb3_general_ci");
    assert_eq!(
        rows(
            &mut s,
            "SELECT @@character_set_client, @@collation_connection"
        ),
        table(&[&["utf8mb3", "utf8mb3_general_ci"]])
    );
    run(&mut s, "DROP TABLE IF EXISTS nosuch");
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS"),
        table(&[&["Note", "1051", "Unknown table 'test.nosuch'"]])
    );
    assert_eq!(rows(&mut s, "SHOW COUNT(*) WARNINGS"), table(&[&["1"]]));
    // Only statements that open tables clear the list (or ones raising conditions).
    run(&mut s, "SELECT 1");
    assert_eq!(rows(&mut s, "SHOW WARNINGS").len(), 1);
    run(&mut s, "SHOW TABLES");
    run(&mut s, "SELECT 1 / 0");
    assert_eq!(rows(&mut s, "SHOW WARNINGS")[0][1], "1365");
}

#[test]
fn kill_and_processlist() {
    let engine = engine();
    let killed = Arc::new(std::sync::atomic::AtomicU32::new(0));
    let k = killed.clone();
    let info = ConnectionInfo {
        id: 7,
        user: "u".into(),
        host: "127.0.0.1:5000".into(),
        account_host: "%".into(),
        using_password: false,
        worker: 0,
        thread_id: 0,
        database: None,
    };
    let victim = Session::new(
        engine.clone(),
        info,
        Box::new(move |_| {
            k.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }),
    )
    .expect("session");
    let mut s = session(&engine, 1);
    assert_eq!(rows(&mut s, "SHOW PROCESSLIST").len(), 2);
    run(&mut s, "KILL QUERY 7");
    assert_eq!(killed.load(std::sync::atomic::Ordering::Relaxed), 1);
    drop(victim);
    assert_eq!(rows(&mut s, "SHOW PROCESSLIST").len(), 1);
}

fn user_session(engine: &Arc<Engine>, id: u32, user: &str, account_host: &str) -> Session {
    let info = ConnectionInfo {
        id,
        user: user.into(),
        host: "localhost".into(),
        account_host: account_host.into(),
        using_password: false,
        worker: 0,
        thread_id: 0,
        database: None,
    };
    Session::new(engine.clone(), info, Box::new(|_| {})).expect("session")
}

#[test]
fn grants_take_effect_on_the_next_statement_of_other_sessions() {
    let engine = engine();
    let mut root = session(&engine, 1);
    run(&mut root, "CREATE DATABASE d");
    run(&mut root, "CREATE TABLE d.t (a INT PRIMARY KEY)");
    run(&mut root, "INSERT INTO d.t VALUES (1)");
    run(&mut root, "CREATE USER u@'%' IDENTIFIED BY 'pw'");
    let mut u = user_session(&engine, 2, "u", "%");
    let e = error(&mut u, "SELECT a FROM d.t");
    assert_eq!(e.code, ErrorCode::TableAccessDenied);
    assert_eq!(
        e.message,
        "SELECT command denied to user 'u'@'localhost' for table `d`.`t`"
    );
    // A missing table is denied the same way (privilege invariant (4)).
    assert_eq!(
        error(&mut u, "SELECT * FROM d.nosuch").code,
        ErrorCode::TableAccessDenied
    );
    assert_eq!(error(&mut u, "USE d").code, ErrorCode::DbAccessDenied);

    run(&mut root, "GRANT SELECT ON d.t TO u@'%'");
    assert_eq!(rows(&mut u, "SELECT a FROM d.t"), table(&[&["1"]]));
    run(&mut u, "USE d");
    assert_eq!(rows(&mut u, "SHOW TABLES"), table(&[&["t"]]));
    assert_eq!(
        error(&mut u, "INSERT INTO d.t VALUES (2)").message,
        "INSERT command denied to user 'u'@'localhost' for table `d`.`t`"
    );
    let prepared = u.prepare("SELECT a FROM d.t WHERE a = ?").expect("prepare");

    run(&mut root, "REVOKE SELECT ON d.t FROM u@'%'");
    assert_eq!(
        error(&mut u, "SELECT a FROM d.t").code,
        ErrorCode::TableAccessDenied
    );
    let mut sink = Collect::default();
    let e = u
        .execute_prepared(prepared.id, &[manycore_types::Value::Int(1)], &mut sink)
        .expect_err("revoked");
    assert_eq!(e.code, ErrorCode::TableAccessDenied);

    run(&mut root, "GRANT INSERT, SELECT ON d.* TO u@'%'");
    run(&mut u, "INSERT INTO d.t VALUES (2)");
    assert_eq!(rows(&mut u, "SELECT COUNT(*) FROM d.t"), table(&[&["2"]]));
    assert_eq!(
        rows(&mut root, "SHOW GRANTS FOR u@'%'"),
        table(&[
            &["GRANT USAGE ON *.* TO `u`@`%` IDENTIFIED BY PASSWORD '*D821809F681A40A6E379B50D0463EFAE20BDD122'"],
            &["GRANT SELECT, INSERT ON `d`.* TO `u`@`%`"],
        ])
    );
}

#[test]
fn system_tables_and_admin_statements_need_privileges() {
    let engine = engine();
    let mut root = session(&engine, 1);
    run(&mut root, "CREATE USER u@'%'");
    let mut u = user_session(&engine, 2, "u", "%");
    assert_eq!(
        error(&mut u, "SELECT * FROM mysql.user").code,
        ErrorCode::TableAccessDenied
    );
    assert_eq!(error(&mut u, "USE mysql").code, ErrorCode::DbAccessDenied);
    assert_eq!(
        rows(&mut u, "SHOW DATABASES"),
        table(&[&["information_schema"]])
    );
    let e = error(&mut u, "CREATE USER x@y");
    assert_eq!(e.code, ErrorCode::SpecificAccessDenied);
    assert_eq!(
        e.message,
        "Access denied; you need (at least one of) the CREATE USER privilege(s) for this operation"
    );
    assert_eq!(
        error(&mut u, "CREATE DATABASE x").code,
        ErrorCode::DbAccessDenied
    );
    assert_eq!(
        error(&mut u, "FLUSH PRIVILEGES").code,
        ErrorCode::SpecificAccessDenied
    );
    assert_eq!(
        error(&mut u, "SHOW GRANTS FOR root@localhost").code,
        ErrorCode::DbAccessDenied
    );
    assert_eq!(rows(&mut u, "SHOW PROCESSLIST").len(), 1);
    assert_eq!(error(&mut u, "KILL 1").code, ErrorCode::KillDenied);
    assert_eq!(
        rows(&mut u, "SELECT CURRENT_USER(), USER()"),
        table(&[&["u@%", "u@localhost"]])
    );
    run(&mut u, "SET PASSWORD = PASSWORD('new')");
    assert_eq!(rows(&mut root, "SHOW PROCESSLIST").len(), 2);
    // Errors of account statements, with MariaDB's texts.
    assert_eq!(
        error(&mut root, "CREATE USER u@'%'").message,
        "Operation CREATE USER failed for 'u'@'%'"
    );
    assert_eq!(
        error(&mut root, "DROP USER nobody@localhost").code,
        ErrorCode::CannotUser
    );
    assert_eq!(
        error(&mut root, "GRANT SELECT ON *.* TO nobody@localhost").code,
        ErrorCode::PasswordNoMatch
    );
    assert_eq!(
        error(&mut root, "REVOKE SELECT ON d2.* FROM u@'%'").code,
        ErrorCode::NonExistingGrant
    );
    assert_eq!(
        error(&mut root, "GRANT PROCESS ON d2.* TO u@'%'").code,
        ErrorCode::WrongUsage
    );
    assert_eq!(
        error(&mut root, "SET PASSWORD FOR u@'%' = 'abc'").code,
        ErrorCode::PasswordFormat
    );
    run(&mut root, "RENAME USER u@'%' TO v@localhost");
    assert_eq!(
        rows(
            &mut root,
            "SELECT User, Host FROM mysql.user WHERE User = 'v'"
        ),
        table(&[&["v", "localhost"]])
    );
    run(&mut root, "DROP USER v@localhost");
    // The session of a dropped account keeps nothing.
    assert_eq!(
        rows(&mut u, "SHOW DATABASES"),
        table(&[&["information_schema"]])
    );
    // The non-loopback listen rule reads this: root is the last account without password.
    let passwordless = || {
        engine
            .privileges()
            .snapshot()
            .passwordless_account()
            .cloned()
    };
    assert_eq!(
        passwordless().map(|a| a.quoted()).as_deref(),
        Some("'root'@'localhost'")
    );
    run(&mut root, "ALTER USER root@localhost IDENTIFIED BY 'x'");
    assert_eq!(passwordless(), None);
}

fn plan_cache_counts(s: &mut Session) -> (u64, u64) {
    let rows = rows(s, "SHOW GLOBAL STATUS LIKE 'Plan_cache_%'");
    let get = |name: &str| -> u64 {
        rows.iter()
            .find(|r| r[0] == name)
            .map(|r| r[1].parse().expect("number"))
            .unwrap_or_else(|| panic!("{name} missing"))
    };
    (get("Plan_cache_hits"), get("Plan_cache_misses"))
}

#[test]
fn text_statements_of_one_shape_share_a_plan() {
    let (_engine, mut s) = setup();
    run(
        &mut s,
        "INSERT INTO sbtest1 (k, c, pad) VALUES (10, 'a', 'x'), (20, 'it''s', 'y'), (30, 'c', 'z')",
    );
    let (hits, misses) = plan_cache_counts(&mut s);
    assert_eq!(
        rows(&mut s, "SELECT c FROM sbtest1 WHERE id=1"),
        table(&[&["a"]])
    );
    assert_eq!(
        rows(&mut s, "SELECT c FROM sbtest1 WHERE id=2"),
        table(&[&["it's"]])
    );
    assert_eq!(
        rows(&mut s, "SELECT c FROM sbtest1 WHERE id=3"),
        table(&[&["c"]])
    );
    // One miss, then hits (the SHOW counted its own miss; it is not plannable, so its
    // second run counts nothing).
    assert_eq!(plan_cache_counts(&mut s), (hits + 2, misses + 1));
    // Strings are parameters too.
    assert_eq!(
        rows(&mut s, "SELECT id FROM sbtest1 WHERE c = 'it''s'"),
        table(&[&["2"]])
    );
    assert_eq!(
        rows(&mut s, "SELECT id FROM sbtest1 WHERE c = 'c'"),
        table(&[&["3"]])
    );
    // DML: affected rows and the values written come from each statement's own literals.
    assert_eq!(
        ok(&mut s, "UPDATE sbtest1 SET k=k+1 WHERE id=1").affected_rows,
        1
    );
    assert_eq!(
        ok(&mut s, "UPDATE sbtest1 SET k=k+5 WHERE id=9").affected_rows,
        0
    );
    assert_eq!(
        ok(&mut s, "UPDATE sbtest1 SET k=k+5 WHERE id=3").affected_rows,
        1
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT k FROM sbtest1 WHERE id BETWEEN 1 AND 3 ORDER BY id"
        ),
        table(&[&["11"], &["20"], &["35"]])
    );
}

#[test]
fn literals_that_shape_a_statement_are_not_parameters() {
    let (_engine, mut s) = setup();
    run(
        &mut s,
        "INSERT INTO sbtest1 (k, c) VALUES (30, 'a'), (10, 'b'), (20, 'c')",
    );
    // A number in ORDER BY / GROUP BY is a column position.
    assert_eq!(
        rows(&mut s, "SELECT k, c FROM sbtest1 ORDER BY 1"),
        table(&[&["10", "b"], &["20", "c"], &["30", "a"]])
    );
    assert_eq!(
        rows(&mut s, "SELECT k, c FROM sbtest1 ORDER BY 2"),
        table(&[&["30", "a"], &["10", "b"], &["20", "c"]])
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT c, COUNT(*) FROM sbtest1 GROUP BY 1 ORDER BY 1 LIMIT 1"
        ),
        table(&[&["a", "1"]])
    );
    // A literal in the select list names its column.
    for (text, name) in [
        ("SELECT 1", "1"),
        ("SELECT 2", "2"),
        ("SELECT k+7 FROM sbtest1 LIMIT 1", "k+7"),
    ] {
        match run(&mut s, text).pop() {
            Some(Event::Rows { columns, .. }) => assert_eq!(columns[0].name, name, "{text}"),
            other => panic!("{text}: {other:?}"),
        }
    }
    assert_eq!(
        rows(&mut s, "SELECT k+8 FROM sbtest1 WHERE id=1"),
        table(&[&["38"]])
    );
    // WITH ROLLUP: a select value rolls up (NULL in the last row) where it equals the
    // GROUP BY expression, literals included. Each text runs twice: the second run is
    // the one a shared plan would serve.
    let rolled = |s: &mut Session, divisor: u32| {
        let text = format!(
            "SELECT k DIV {divisor} AS q, COUNT(*) FROM sbtest1 GROUP BY k DIV 10 WITH ROLLUP"
        );
        rows(s, &text)
    };
    for _ in 0..2 {
        assert_eq!(
            rolled(&mut s, 10),
            table(&[&["1", "1"], &["2", "1"], &["3", "1"], &["NULL", "3"]])
        );
        assert_eq!(
            rolled(&mut s, 5),
            table(&[&["2", "1"], &["4", "1"], &["6", "1"], &["6", "3"]])
        );
    }
}

#[test]
fn cached_plans_follow_ddl_and_the_current_database() {
    let (_engine, mut s) = setup();
    run(&mut s, "INSERT INTO sbtest1 (k, c) VALUES (1, 'test')");
    run(&mut s, "CREATE DATABASE other");
    run(
        &mut s,
        "CREATE TABLE other.sbtest1 (id INT PRIMARY KEY, c CHAR(10))",
    );
    run(&mut s, "INSERT INTO other.sbtest1 VALUES (1, 'other')");
    assert_eq!(
        rows(&mut s, "SELECT c FROM sbtest1 WHERE id=1"),
        table(&[&["test"]])
    );
    run(&mut s, "USE other");
    assert_eq!(
        rows(&mut s, "SELECT c FROM sbtest1 WHERE id=1"),
        table(&[&["other"]])
    );
    run(&mut s, "DROP TABLE sbtest1");
    run(&mut s, "CREATE TABLE sbtest1 (id INT PRIMARY KEY, c INT)");
    run(&mut s, "INSERT INTO sbtest1 VALUES (1, 42)");
    match run(&mut s, "SELECT c FROM sbtest1 WHERE id=1").pop() {
        Some(Event::Rows { columns, rows, .. }) => {
            assert_eq!(rows, table(&[&["42"]]));
            assert!(matches!(
                columns[0].data_type,
                manycore_types::DataType::Int { .. }
            ));
        }
        other => panic!("{other:?}"),
    }
    run(&mut s, "DROP TABLE sbtest1");
    assert_eq!(
        error(&mut s, "SELECT c FROM sbtest1 WHERE id=1").code,
        ErrorCode::NoSuchTable
    );
}

#[test]
fn repeated_unplannable_statements_run_against_current_state() {
    let (_engine, mut s) = setup();
    // The second SHOW TABLES reuses its parse, not its result.
    assert_eq!(rows(&mut s, "SHOW TABLES"), table(&[&["sbtest1"]]));
    run(&mut s, "CREATE TABLE t2 (a INT)");
    assert_eq!(rows(&mut s, "SHOW TABLES"), table(&[&["sbtest1"], &["t2"]]));
    run(&mut s, "DO 0");
    run(&mut s, "DO 0");
    assert_eq!(error(&mut s, "DO 1/0 + nosuch").code, ErrorCode::BadField);
    assert_eq!(error(&mut s, "DO 1/0 + nosuch").code, ErrorCode::BadField);
}

#[test]
fn prepared_writes_with_subqueries_re_bind_after_ddl_replaces_what_they_read() {
    let (_engine, mut s) = setup();
    run(&mut s, "CREATE TABLE source (n INT)");
    run(&mut s, "INSERT INTO source VALUES (1), (2)");
    let insert = s
        .prepare("INSERT INTO sbtest1 (id, k) VALUES (?, (SELECT MAX(n) FROM source))")
        .expect("prepare")
        .id;
    let update = s
        .prepare("UPDATE sbtest1 SET k = (SELECT COUNT(*) FROM source WHERE n < sbtest1.id)")
        .expect("prepare")
        .id;
    let mut sink = Collect::default();
    s.execute_prepared(insert, &[Value::Int(1)], &mut sink)
        .expect("insert");
    run(&mut s, "DROP TABLE source");
    run(&mut s, "CREATE TABLE source (n INT)");
    run(&mut s, "INSERT INTO source VALUES (5)");
    s.execute_prepared(insert, &[Value::Int(9)], &mut sink)
        .expect("insert after DDL");
    assert_eq!(
        rows(&mut s, "SELECT id, k FROM sbtest1 ORDER BY id"),
        table(&[&["1", "2"], &["9", "5"]])
    );
    s.execute_prepared(update, &[], &mut sink).expect("update");
    assert_eq!(
        rows(&mut s, "SELECT id, k FROM sbtest1 ORDER BY id"),
        table(&[&["1", "0"], &["9", "1"]])
    );
}

/// Runs prepared statement `id` (no parameters); its last result set's rows, or None.
fn execute(s: &mut Session, id: u32) -> Option<Vec<Vec<String>>> {
    let mut sink = Collect::default();
    s.execute_prepared(id, &[], &mut sink).expect("execute");
    match sink.events.pop() {
        Some(Event::Rows { rows, .. }) => Some(rows),
        _ => None,
    }
}

#[test]
fn prepared_statements_run_in_the_database_they_were_prepared_in() {
    let (_engine, mut s) = setup();
    run(&mut s, "CREATE DATABASE other");
    run(&mut s, "CREATE DATABASE third");
    let database = s.prepare("SELECT DATABASE()").expect("prepare").id;
    let use_other = s.prepare("USE other").expect("prepare").id;
    run(&mut s, "USE other");
    assert_eq!(execute(&mut s, database), Some(table(&[&["test"]])));
    assert_eq!(rows(&mut s, "SELECT DATABASE()"), table(&[&["other"]]));
    // A USE prepared in `test` switches back to `test` when it ends: it changes nothing.
    run(&mut s, "USE third");
    execute(&mut s, use_other);
    assert_eq!(rows(&mut s, "SELECT DATABASE()"), table(&[&["third"]]));
    // Its database dropped, a statement runs with none selected, and says so in a note.
    run(&mut s, "DROP DATABASE test");
    assert_eq!(execute(&mut s, database), Some(table(&[&["NULL"]])));
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS"),
        table(&[&["Note", "1049", "Unknown database 'test'"]])
    );
    assert_eq!(rows(&mut s, "SELECT DATABASE()"), table(&[&["third"]]));
}

#[test]
fn set_global_reaches_new_and_reset_sessions_only() {
    let engine = engine();
    let mut a = session(&engine, 1);
    let value = |s: &mut Session, sql: &str| rows(s, sql)[0][0].clone();
    run(&mut a, "SET SESSION sort_buffer_size = 300000");
    run(&mut a, "SET GLOBAL sort_buffer_size = 400000");
    // The setting session keeps its own value; the global changed.
    assert_eq!(value(&mut a, "SELECT @@session.sort_buffer_size"), "300000");
    assert_eq!(value(&mut a, "SELECT @@global.sort_buffer_size"), "400000");
    // A session started afterwards starts from the new global ...
    let mut b = session(&engine, 2);
    assert_eq!(value(&mut b, "SELECT @@sort_buffer_size"), "400000");
    // ... and its own SET changes neither the global nor another session.
    run(&mut b, "SET sort_buffer_size = 500000");
    assert_eq!(value(&mut b, "SELECT @@global.sort_buffer_size"), "400000");
    assert_eq!(value(&mut a, "SELECT @@sort_buffer_size"), "300000");
    // SET ... = DEFAULT takes the global; a reset connection starts over from it.
    run(&mut b, "SET sort_buffer_size = DEFAULT");
    assert_eq!(value(&mut b, "SELECT @@sort_buffer_size"), "400000");
    a.reset();
    assert_eq!(value(&mut a, "SELECT @@sort_buffer_size"), "400000");
    let shown = rows(&mut a, "SHOW SESSION VARIABLES LIKE 'sort_buffer_size'");
    assert_eq!(shown, table(&[&["sort_buffer_size", "400000"]]));
}

#[test]
fn binary_string_literals_keep_bytes_that_are_not_utf8() {
    let (_engine, mut s) = setup();
    run(&mut s, "CREATE TABLE blobs (id INT PRIMARY KEY, b BLOB)");
    // What go-sql-driver's interpolateParams sends for a []byte: the bytes as they are.
    let raw: &[u8] = b"\x80\xff\xc3\x00\xf4\x8f\xbd\x81";
    for id in [1, 2] {
        let query = [
            format!("INSERT INTO blobs VALUES ({id}, _binary'").as_bytes(),
            raw,
            b"')",
        ]
        .concat();
        run(&mut s, &crate::query_text::decode(&query));
    }
    assert_eq!(
        rows(&mut s, "SELECT HEX(b) FROM blobs ORDER BY id"),
        table(&[&["80FFC300F48FBD81"], &["80FFC300F48FBD81"]])
    );
    // A character string holds UTF-8: an invalid byte becomes U+FFFD, as before.
    for _ in 0..2 {
        let query = crate::query_text::decode(b"SELECT HEX('a\xffb')").into_owned();
        assert_eq!(rows(&mut s, &query), table(&[&["61EFBFBD62"]]));
    }
}

#[test]
fn connector_j_connection_setup() {
    let (_engine, mut s) = setup();
    // MariaDB Connector/J: NAMES among other SET items.
    run(
        &mut s,
        "SET autocommit=1, NAMES latin1 COLLATE latin1_swedish_ci, session_track_schema=1",
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT @@character_set_client, @@collation_connection, @@session_track_schema"
        ),
        table(&[&["latin1", "latin1_swedish_ci", "1"]])
    );
    // MySQL Connector/J: results unconverted; only character_set_results takes NULL.
    run(&mut s, "SET character_set_results = NULL");
    assert_eq!(
        rows(&mut s, "SELECT @@character_set_results IS NULL"),
        table(&[&["1"]])
    );
    assert_eq!(
        rows(&mut s, "SHOW VARIABLES LIKE 'character_set_results'"),
        table(&[&["character_set_results", ""]])
    );
    assert_eq!(
        error(&mut s, "SET character_set_client = NULL").code,
        ErrorCode::WrongValueForVar
    );
}

#[test]
fn client_found_rows_counts_matched_rows() {
    let (_engine, mut s) = setup();
    run(&mut s, "INSERT INTO sbtest1 (id, k) VALUES (1, 5), (2, 5)");
    let same = "UPDATE sbtest1 SET k = 5 WHERE k = 5";
    let unchanged_duplicate =
        "INSERT INTO sbtest1 (id, k) VALUES (1, 5) ON DUPLICATE KEY UPDATE k = 5";
    assert_eq!(ok(&mut s, same).affected_rows, 0);
    assert_eq!(ok(&mut s, unchanged_duplicate).affected_rows, 0);
    s.set_client_found_rows(true);
    let update = ok(&mut s, same);
    assert_eq!(update.affected_rows, 2);
    assert_eq!(update.info, "Rows matched: 2  Changed: 0  Warnings: 0");
    assert_eq!(ok(&mut s, unchanged_duplicate).affected_rows, 1);
    assert_eq!(
        ok(
            &mut s,
            "INSERT INTO sbtest1 (id, k) VALUES (1, 5) ON DUPLICATE KEY UPDATE k = 6"
        )
        .affected_rows,
        2
    );
}

/// Runs `sql` and every wait it asks for: each must be a SLEEP, whose time is added up
/// instead of slept. Returns the events and the total asked for.
fn run_sleeping(s: &mut Session, sql: &str) -> (Vec<Event>, std::time::Duration) {
    let mut sink = Collect::default();
    let mut slept = std::time::Duration::ZERO;
    let mut result = s.run_query(sql, &mut sink);
    while let Err(e) = &result {
        match (e.wait, s.take_wait()) {
            (Some(_), Some(crate::Wait::Sleep(d))) => slept += d,
            _ => panic!("{sql}: {e}"),
        }
        result = s.resume(&mut sink);
    }
    (sink.events, slept)
}

/// SLEEP undoes its statement, which waits and runs again with its sleep served (session
/// invariant (4)): what it changed is changed once, its result is sent once, and a
/// statement after it in the batch sleeps its own time.
#[test]
fn sleep_waits_then_runs_the_statement_once() {
    use std::time::Duration;
    let (_engine, mut s) = setup();
    s.set_multi_statements(true);
    run(&mut s, "INSERT INTO sbtest1 (k) VALUES (1), (2), (3)");

    let (events, slept) = run_sleeping(&mut s, "SELECT id, SLEEP(0.5) FROM sbtest1");
    assert_eq!(slept, Duration::from_millis(1500));
    assert_eq!(events.len(), 1, "{events:?}");
    let Event::Rows { rows: sent, .. } = &events[0] else {
        panic!("{events:?}")
    };
    assert_eq!(sent, &table(&[&["1", "0"], &["2", "0"], &["3", "0"]]));

    let (_, slept) = run_sleeping(&mut s, "UPDATE sbtest1 SET k = k + 10 + SLEEP(0.25)");
    assert_eq!(slept, Duration::from_millis(750));
    let (_, slept) = run_sleeping(&mut s, "SET @n = 1; SET @n = @n + 1 + SLEEP(1)");
    assert_eq!(slept, Duration::from_secs(1));
    let (_, slept) = run_sleeping(&mut s, "DO SLEEP(0.5); DO @n := @n * 2, SLEEP(1)");
    assert_eq!(slept, Duration::from_millis(1500));
    assert_eq!(
        rows(&mut s, "SELECT SUM(k), @n FROM sbtest1"),
        table(&[&["36", "4"]])
    );
    run(&mut s, "BEGIN");
    run_sleeping(&mut s, "INSERT INTO sbtest1 (k) VALUES (SLEEP(0.1))");
    assert_eq!(
        rows(&mut s, "SELECT COUNT(*) FROM sbtest1"),
        table(&[&["4"]])
    );
    run(&mut s, "ROLLBACK");

    // KILL QUERY during the wait: the statement fails with 1317, undone, and the rest of
    // its batch does not run.
    let mut sink = Collect::default();
    let e = s
        .run_query(
            "UPDATE sbtest1 SET k = 0 WHERE SLEEP(1) = 0; SET @n = 9",
            &mut sink,
        )
        .expect_err("the statement waits");
    assert!(matches!(e.wait, Some(crate::error::WaitFor::Sleep(_))));
    assert!(s.take_wait().is_some());
    assert_eq!(s.interrupt_wait().code, ErrorCode::QueryInterrupted);
    assert!(sink.events.is_empty(), "{:?}", sink.events);
    assert_eq!(
        rows(&mut s, "SELECT SUM(k), @n FROM sbtest1"),
        table(&[&["36", "4"]])
    );
}

#[test]
fn information_schema_rows_are_made_at_each_execution() {
    let (engine, mut s) = setup();
    let row_count = "SELECT TABLE_ROWS FROM information_schema.TABLES \
                     WHERE TABLE_SCHEMA = 'test' AND TABLE_NAME = 'sbtest1'";
    let prepared = s.prepare(row_count).expect("prepare").id;
    assert_eq!(execute(&mut s, prepared), Some(table(&[&["0"]])));
    assert_eq!(rows(&mut s, row_count), table(&[&["0"]]));
    // An INSERT leaves the catalog as it was: nothing is re-bound, the same plans run.
    let (hits, _) = plan_cache_counts(&mut s);
    run(&mut s, "INSERT INTO sbtest1 (k) VALUES (1)");
    assert_eq!(execute(&mut s, prepared), Some(table(&[&["1"]])));
    assert_eq!(rows(&mut s, row_count), table(&[&["1"]]));
    assert_eq!(
        plan_cache_counts(&mut s).0,
        hits + 1,
        "the text plan was a hit"
    );

    let names = "SELECT TABLE_NAME FROM information_schema.TABLES \
                 WHERE TABLE_SCHEMA = 'test' ORDER BY TABLE_NAME";
    let prepared = s.prepare(names).expect("prepare").id;
    assert_eq!(rows(&mut s, names), table(&[&["sbtest1"]]));
    run(&mut s, "CREATE TABLE t2 (a INT)");
    assert_eq!(
        execute(&mut s, prepared),
        Some(table(&[&["sbtest1"], &["t2"]]))
    );
    assert_eq!(rows(&mut s, names), table(&[&["sbtest1"], &["t2"]]));

    let processes = "SELECT COUNT(*) FROM information_schema.PROCESSLIST";
    let prepared = s.prepare(processes).expect("prepare").id;
    assert_eq!(execute(&mut s, prepared), Some(table(&[&["1"]])));
    let _other = session(&engine, 2);
    assert_eq!(execute(&mut s, prepared), Some(table(&[&["2"]])));
}

#[test]
fn information_schema_lists_what_grants_show() {
    let engine = engine();
    let mut root = session(&engine, 1);
    run(&mut root, "CREATE DATABASE d");
    run(&mut root, "CREATE DATABASE hidden");
    run(
        &mut root,
        "CREATE TABLE d.t (a INT PRIMARY KEY, b INT, secret INT)",
    );
    run(&mut root, "CREATE TABLE d.other (a INT)");
    run(&mut root, "CREATE TABLE hidden.h (a INT)");
    run(&mut root, "CREATE USER u@'%'");
    run(&mut root, "GRANT SELECT (a, b) ON d.t TO u@'%'");
    let mut u = user_session(&engine, 2, "u", "%");
    assert_eq!(
        rows(
            &mut u,
            "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA ORDER BY 1"
        ),
        table(&[&["d"], &["information_schema"]])
    );
    assert_eq!(
        rows(
            &mut u,
            "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES \
             WHERE TABLE_SCHEMA <> 'information_schema'"
        ),
        table(&[&["d", "t"]])
    );
    assert_eq!(
        rows(
            &mut u,
            "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'd'"
        ),
        table(&[&["a"], &["b"]])
    );
    assert_eq!(
        rows(
            &mut u,
            "SELECT INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS \
             WHERE TABLE_SCHEMA = 'd'"
        ),
        table(&[&["PRIMARY", "a"]])
    );
    assert_eq!(
        rows(&mut u, "SELECT USER FROM information_schema.PROCESSLIST"),
        table(&[&["u"]])
    );
    assert_eq!(
        rows(
            &mut root,
            "SELECT COUNT(*) FROM information_schema.PROCESSLIST"
        ),
        table(&[&["2"]])
    );
    // Readable by everyone, writable by no one (1044, as MariaDB, naming the account),
    // whatever the grants.
    for (s, user) in [(&mut u, "'u'@'%'"), (&mut root, "'root'@'localhost'")] {
        let e = error(s, "DELETE FROM information_schema.TABLES");
        assert_eq!(e.code, ErrorCode::DbAccessDenied);
        assert_eq!(
            e.message,
            format!("Access denied for user {user} to database 'information_schema'")
        );
    }
    assert_eq!(
        error(&mut root, "DROP TABLE INFORMATION_SCHEMA.tables").code,
        ErrorCode::DbAccessDenied
    );
}

#[test]
fn information_schema_names_are_case_insensitive() {
    let (_engine, mut s) = setup();
    run(&mut s, "USE INFORMATION_SCHEMA");
    assert_eq!(
        rows(&mut s, "SELECT DATABASE()"),
        table(&[&["information_schema"]])
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT table_name FROM tables WHERE table_schema = 'test'"
        ),
        table(&[&["sbtest1"]])
    );
    assert_eq!(
        rows(&mut s, "SHOW TABLES"),
        table(&[
            &["CHARACTER_SETS"],
            &["CHECK_CONSTRAINTS"],
            &["COLLATIONS"],
            &["COLUMNS"],
            &["ENGINES"],
            &["EVENTS"],
            &["GLOBAL_STATUS"],
            &["GLOBAL_VARIABLES"],
            &["KEY_COLUMN_USAGE"],
            &["PARAMETERS"],
            &["PROCESSLIST"],
            &["REFERENTIAL_CONSTRAINTS"],
            &["ROUTINES"],
            &["SCHEMATA"],
            &["SESSION_STATUS"],
            &["SESSION_VARIABLES"],
            &["STATISTICS"],
            &["TABLES"],
            &["TABLE_CONSTRAINTS"],
            &["TRIGGERS"],
            &["VIEWS"],
        ])
    );
    // COM_FIELD_LIST, as the mariadb client's completion sends it after USE.
    let mut sink = Collect::default();
    s.field_list("schemata", "SCHEMA%", &mut sink)
        .expect("field list");
    match sink.events.as_slice() {
        [Event::Fields(fields)] => assert_eq!(fields.len(), 2, "SCHEMA_NAME, SCHEMA_COMMENT"),
        other => panic!("{other:?}"),
    }
    let e = error(&mut s, "SELECT * FROM information_schema.nosuch");
    assert_eq!(e.code, ErrorCode::UnknownTable);
    assert_eq!(e.message, "Unknown table 'nosuch' in information_schema");
}

#[test]
fn joins_read_tables_as_nested_loops() {
    let (_engine, mut s) = setup();
    run(
        &mut s,
        "CREATE TABLE d (code INT PRIMARY KEY, title VARCHAR(9))",
    );
    run(
        &mut s,
        "CREATE TABLE e (id INT PRIMARY KEY, dept INT, KEY (dept))",
    );
    run(
        &mut s,
        "INSERT INTO d VALUES (1, 'one'), (2, 'two'), (3, 'three')",
    );
    run(
        &mut s,
        "INSERT INTO e VALUES (10, 1), (11, 1), (12, 2), (13, NULL)",
    );
    let q = "SELECT e.id, d.title FROM e JOIN d ON d.code = e.dept ORDER BY e.id";
    assert_eq!(
        rows(&mut s, q),
        table(&[&["10", "one"], &["11", "one"], &["12", "two"]])
    );
    // LEFT JOIN keeps unmatched outer rows; WHERE sees their NULLs.
    let q = "SELECT d.code, e.id FROM d LEFT JOIN e ON e.dept = d.code WHERE e.id IS NULL";
    assert_eq!(rows(&mut s, q), table(&[&["3", "NULL"]]));
    let q = "SELECT e.id, d.code FROM d RIGHT JOIN e ON e.dept = d.code ORDER BY e.id DESC";
    assert_eq!(rows(&mut s, q)[0], ["13", "NULL"]);
    // USING: the common column once, first; an unqualified name means the left one.
    let events = run(
        &mut s,
        "SELECT * FROM d JOIN e ON FALSE JOIN d AS x USING (code)",
    );
    let Some(Event::Rows { columns, .. }) = events.last() else {
        panic!("{events:?}")
    };
    let names: Vec<(&str, &str)> = columns
        .iter()
        .map(|c| (c.table.as_str(), c.name.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("d", "code"),
            ("d", "title"),
            ("e", "id"),
            ("e", "dept"),
            ("x", "title")
        ]
    );
    // The inner side of an outer join may be NULL whatever its columns' definitions.
    let events = run(&mut s, "SELECT d.code, e.id FROM d LEFT JOIN e ON FALSE");
    let Some(Event::Rows { columns, rows, .. }) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!((columns[0].not_null, columns[1].not_null), (true, false));
    assert_eq!(rows[0], ["1", "NULL"]);
    // A `?` in ON, bound per execution.
    let info = s
        .prepare("SELECT COUNT(*) FROM e JOIN d ON d.code = e.dept AND d.code = ?")
        .expect("prepare");
    let mut sink = Collect::default();
    s.execute_prepared(info.id, &[Value::Int(1)], &mut sink)
        .expect("execute");
    match sink.events.as_slice() {
        [Event::Rows { rows, .. }] => assert_eq!(rows, &table(&[&["2"]])),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        error(&mut s, "SELECT id FROM e, e AS d").code,
        ErrorCode::NonUniq
    );
    assert_eq!(
        error(&mut s, "SELECT 1 FROM e, d AS e").code,
        ErrorCode::NonUniqTable
    );
    let e = error(&mut s, "SELECT 1 FROM e JOIN d ON nosuch = 1");
    assert_eq!(e.message, "Unknown column 'nosuch' in 'ON'");
    // A multi-table UPDATE reads the same join (multi_table_dml.sql has the rest).
    let updated = ok(&mut s, "UPDATE e JOIN d ON d.code = e.dept SET e.dept = 2");
    assert_eq!(updated.info, "Rows matched: 3  Changed: 2  Warnings: 0");
}

/// Rows of each result set `prepared` gave when executed with `params`.
fn execute_rows(s: &mut Session, id: u32, params: &[Value]) -> Vec<Vec<String>> {
    let mut sink = Collect::default();
    s.execute_prepared(id, params, &mut sink).expect("execute");
    match sink.events.pop() {
        Some(Event::Rows { rows, .. }) => rows,
        other => panic!("expected rows, got {other:?}"),
    }
}

#[test]
fn parameters_of_from_are_numbered_after_the_select_list_as_written() {
    let (_engine, mut s) = setup();
    load(&mut s, 5);
    let derived = s
        .prepare(
            "SELECT ? + d.x AS s FROM (SELECT id * ? AS x FROM sbtest1 WHERE id <= ?) d \
             WHERE d.x > ? ORDER BY s",
        )
        .expect("prepare")
        .id;
    let params = [
        Value::Int(1000),
        Value::Int(10),
        Value::Int(3),
        Value::Int(10),
    ];
    assert_eq!(
        execute_rows(&mut s, derived, &params),
        table(&[&["1020"], &["1030"]])
    );
    let on = s
        .prepare(
            "SELECT ? AS tag, a.id FROM sbtest1 a JOIN sbtest1 b ON b.id = a.id + ? WHERE a.id = ?",
        )
        .expect("prepare")
        .id;
    let params = [Value::text("x"), Value::Int(1), Value::Int(2)];
    assert_eq!(execute_rows(&mut s, on, &params), table(&[&["x", "2"]]));
}

#[test]
fn text_statements_with_derived_tables_share_a_plan() {
    let (_engine, mut s) = setup();
    load(&mut s, 5);
    // The derived query's literal is the template's first `?`, the outer WHERE's the
    // second.
    let sql = |low: u32, high: u32| {
        format!("SELECT id FROM (SELECT id FROM sbtest1 WHERE id > {low}) d WHERE id < {high}")
    };
    assert_eq!(rows(&mut s, &sql(1, 4)), table(&[&["2"], &["3"]]));
    let (hits, _) = plan_cache_counts(&mut s);
    assert_eq!(rows(&mut s, &sql(3, 9)), table(&[&["4"], &["5"]]));
    assert_eq!(plan_cache_counts(&mut s).0, hits + 1);
}

#[test]
fn a_join_inside_a_correlated_subquery_buffers_per_run() {
    let (_engine, mut s) = setup();
    load(&mut s, 5);
    // The inner join's second step (a derived table, no index) is buffered once per
    // run: each outer row runs the join again, with its own `o.k` in the WHERE.
    assert_eq!(
        rows(
            &mut s,
            "SELECT o.id, (SELECT COUNT(*) FROM sbtest1 a JOIN (SELECT k FROM sbtest1) d \
             ON d.k = a.k WHERE a.k < o.k) AS n FROM sbtest1 o ORDER BY o.id"
        ),
        table(&[
            &["1", "1"],
            &["2", "2"],
            &["3", "3"],
            &["4", "4"],
            &["5", "0"]
        ])
    );
}

/// What a statement that stops to wait waits for.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Held {
    /// A row (`Wait::RowLock`).
    Row,
    /// A table DDL changes (`Wait::TableLock`, session invariant (4)).
    Table,
}

/// Runs `sql` on `s`, which must stop to wait for what `holder` holds (`held`), lets
/// `holder` end its transaction with `end`, then runs the statement again: its result.
fn wait_then_resume(
    s: &mut Session,
    sql: &str,
    held: Held,
    holder: &mut Session,
    end: &str,
) -> Result<()> {
    let e = error(s, sql);
    assert_eq!(
        e.code,
        ErrorCode::LockWaitTimeout,
        "{sql}: what a timeout would give"
    );
    let armed = match (held, s.take_wait()) {
        (Held::Row, Some(crate::Wait::RowLock(wait)))
        | (Held::Table, Some(crate::Wait::TableLock(wait))) => wait,
        (_, other) => panic!(
            "{sql}: expected a {held:?} wait, got {e:?} (armed: {})",
            other.is_some()
        ),
    };
    assert_ne!(
        armed.holder(),
        0,
        "{sql}: waits for a transaction still open"
    );
    run(holder, end);
    assert!(armed.wait_blocking(std::time::Duration::from_secs(10)));
    s.resume(&mut Collect::default())
}

/// Foreign-key checks read the newest version of the other side under its row lock, not
/// the statement's snapshot (foreign_key invariants (1), (2)): a child insert and a parent
/// delete in two transactions cannot both succeed, whichever comes first and however the
/// first ends, so no orphan is possible.
#[test]
fn foreign_key_checks_are_not_fooled_by_concurrent_transactions() {
    let engine = engine();
    let mut s = session(&engine, 1);
    let mut other = session(&engine, 2);
    for sql in [
        "CREATE DATABASE fk",
        "USE fk",
        "CREATE TABLE p (id INT PRIMARY KEY)",
        "CREATE TABLE c (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id))",
        "INSERT INTO p VALUES (1), (2), (3), (4), (5)",
    ] {
        run(&mut s, sql);
    }
    run(&mut other, "USE fk");
    // An uncommitted parent delete: the child insert waits, then finds no parent.
    run(&mut s, "BEGIN");
    run(&mut s, "DELETE FROM p WHERE id = 1");
    let e = wait_then_resume(
        &mut other,
        "INSERT INTO c VALUES (1, 1)",
        Held::Row,
        &mut s,
        "COMMIT",
    );
    assert_eq!(e.expect_err("no parent").code, ErrorCode::NoReferencedRow2);
    // An uncommitted child insert: the parent delete waits, then finds the child.
    run(&mut s, "BEGIN");
    run(&mut s, "INSERT INTO c VALUES (2, 2)");
    let e = wait_then_resume(
        &mut other,
        "DELETE FROM p WHERE id = 2",
        Held::Row,
        &mut s,
        "COMMIT",
    );
    assert_eq!(e.expect_err("a child").code, ErrorCode::RowIsReferenced2);
    // ... and if that child rolls back, the delete goes through.
    run(&mut s, "BEGIN");
    run(&mut s, "INSERT INTO c VALUES (3, 3)");
    wait_then_resume(
        &mut other,
        "DELETE FROM p WHERE id = 3",
        Held::Row,
        &mut s,
        "ROLLBACK",
    )
    .expect("no child left");
    // A parent deleted after the child's transaction took its snapshot: the check reads
    // past the snapshot.
    run(&mut other, "BEGIN");
    assert_eq!(
        rows(&mut other, "SELECT COUNT(*) FROM p WHERE id = 4"),
        table(&[&["1"]])
    );
    run(&mut s, "DELETE FROM p WHERE id = 4");
    assert_eq!(
        error(&mut other, "INSERT INTO c VALUES (4, 4)").code,
        ErrorCode::NoReferencedRow2
    );
    run(&mut other, "INSERT INTO c VALUES (5, 5)");
    let e = wait_then_resume(
        &mut s,
        "DELETE FROM p WHERE id = 5",
        Held::Row,
        &mut other,
        "COMMIT",
    );
    assert_eq!(e.expect_err("a child").code, ErrorCode::RowIsReferenced2);
    assert_eq!(
        rows(
            &mut s,
            "SELECT p.id, c.id FROM p JOIN c ON c.pid = p.id ORDER BY 1"
        ),
        table(&[&["2", "2"], &["5", "5"]])
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT COUNT(*) FROM c WHERE pid NOT IN (SELECT id FROM p)"
        ),
        table(&[&["0"]])
    );
}

#[test]
fn views_read_refuse_writes_and_stop_recursion() {
    let (_engine, mut s) = setup();
    run(&mut s, "CREATE TABLE t (a INT PRIMARY KEY, b INT)");
    run(&mut s, "INSERT INTO t VALUES (1, 10), (2, 20)");
    run(&mut s, "CREATE VIEW v AS SELECT a, b FROM t WHERE a > 1");
    assert_eq!(rows(&mut s, "SELECT * FROM v"), table(&[&["2", "20"]]));
    // Writes through a view are not built: 1235, never a write to the table.
    for sql in [
        "INSERT INTO v VALUES (3, 30)",
        "UPDATE v SET b = 0",
        "DELETE FROM v",
    ] {
        assert_eq!(error(&mut s, sql).code, ErrorCode::NotSupportedYet, "{sql}");
    }
    assert_eq!(
        rows(&mut s, "SELECT COUNT(*), SUM(b) FROM t"),
        table(&[&["2", "30"]])
    );
    // A cycle made through CREATE OR REPLACE is 1462 when read, not a stack overflow.
    run(&mut s, "CREATE VIEW w AS SELECT a FROM v");
    run(&mut s, "CREATE OR REPLACE VIEW v AS SELECT a FROM w");
    assert_eq!(
        error(&mut s, "SELECT * FROM w").code,
        ErrorCode::ViewRecursive
    );
    // A recursive CTE's work table is per run: a second run and a nested reference agree.
    let sql = "WITH RECURSIVE c AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM c WHERE n < 4) \
               SELECT COUNT(*), (SELECT SUM(n) FROM c) FROM c";
    assert_eq!(rows(&mut s, sql), table(&[&["4", "10"]]));
    assert_eq!(rows(&mut s, sql), table(&[&["4", "10"]]));
}

/// The CREATE TABLE text SHOW CREATE TABLE gives.
fn show_create(s: &mut Session, table: &str) -> String {
    rows(s, &format!("SHOW CREATE TABLE {table}"))[0][1].clone()
}

#[test]
fn alter_table_column_operations_rebuild_rows_and_keys() {
    let (_engine, mut s) = setup();
    run(
        &mut s,
        "CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(10), b INT, KEY ab (a, b), KEY bb (b))",
    );
    run(
        &mut s,
        "INSERT INTO t VALUES (1, 'hello', 1), (2, NULL, 2), (3, 'x', NULL)",
    );
    // Strict: a value that no longer fits is 1265 and nothing changes.
    let e = error(&mut s, "ALTER TABLE t MODIFY a VARCHAR(3)");
    assert_eq!(e.code, ErrorCode::WarnDataTruncated);
    assert_eq!(e.message, "Data truncated for column 'a' at row 1");
    let e = error(&mut s, "ALTER TABLE t MODIFY b INT NOT NULL");
    assert_eq!(e.message, "Data truncated for column 'b' at row 3");
    // Not strict: truncated, with a warning.
    run(&mut s, "SET sql_mode = ''");
    run(
        &mut s,
        "ALTER TABLE t MODIFY a VARCHAR(3), MODIFY b INT NOT NULL",
    );
    assert_eq!(
        rows(&mut s, "SELECT * FROM t ORDER BY id"),
        table(&[&["1", "hel", "1"], &["2", "NULL", "2"], &["3", "x", "0"]])
    );
    run(&mut s, "SET sql_mode = DEFAULT");
    // ADD with a default, FIRST / AFTER; DROP leaves the index its other column.
    run(
        &mut s,
        "ALTER TABLE t ADD COLUMN c INT DEFAULT 7 AFTER id, ADD z CHAR(2) FIRST",
    );
    run(&mut s, "ALTER TABLE t DROP COLUMN b");
    assert_eq!(
        rows(&mut s, "SELECT * FROM t ORDER BY id"),
        table(&[
            &["NULL", "1", "7", "hel"],
            &["NULL", "2", "7", "NULL"],
            &["NULL", "3", "7", "x"]
        ])
    );
    assert_eq!(
        show_create(&mut s, "t"),
        "CREATE TABLE `t` (\n  `z` char(2) DEFAULT NULL,\n  `id` int(11) NOT NULL,\n  `c` int(11) DEFAULT 7,\n  `a` varchar(3) DEFAULT NULL,\n  PRIMARY KEY (`id`),\n  KEY `ab` (`a`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci"
    );
    // The index still finds rows.
    assert_eq!(
        rows(&mut s, "SELECT id FROM t WHERE a = 'x'"),
        table(&[&["3"]])
    );
    // CHANGE / RENAME COLUMN / SET DEFAULT.
    run(
        &mut s,
        "ALTER TABLE t CHANGE c cc BIGINT NOT NULL, RENAME COLUMN a TO aa",
    );
    run(
        &mut s,
        "ALTER TABLE t ALTER COLUMN cc SET DEFAULT 9, ALTER z DROP DEFAULT",
    );
    run(&mut s, "INSERT INTO t (id) VALUES (4)");
    assert_eq!(
        rows(&mut s, "SELECT id, cc, aa FROM t ORDER BY id"),
        table(&[
            &["1", "7", "hel"],
            &["2", "7", "NULL"],
            &["3", "7", "x"],
            &["4", "9", "NULL"]
        ])
    );
    // Errors, as MariaDB words them.
    assert_eq!(
        error(&mut s, "ALTER TABLE t MODIFY nope INT").message,
        "Unknown column 'nope' in 't'"
    );
    assert_eq!(
        error(&mut s, "ALTER TABLE t ADD aa INT").code,
        ErrorCode::DupFieldName
    );
    assert_eq!(
        error(&mut s, "ALTER TABLE t DROP COLUMN zz").code,
        ErrorCode::CantDropFieldOrKey
    );
    run(&mut s, "CREATE TABLE one (x INT)");
    assert_eq!(
        error(&mut s, "ALTER TABLE one DROP x").code,
        ErrorCode::CantRemoveAllFields
    );
    // A unique key that conversion makes collide.
    run(&mut s, "CREATE TABLE u (a VARCHAR(10), UNIQUE KEY (a))");
    run(&mut s, "INSERT INTO u VALUES ('abc1'), ('abc2')");
    run(&mut s, "SET sql_mode = ''");
    let e = error(&mut s, "ALTER TABLE u MODIFY a VARCHAR(3)");
    assert_eq!(e.code, ErrorCode::DupEntry);
    assert_eq!(e.message, "Duplicate entry 'abc' for key 'a'");
}

#[test]
fn alter_table_columns_and_foreign_keys_and_checks() {
    let (engine, mut s) = setup();
    run(&mut s, "CREATE TABLE p (id INT PRIMARY KEY, v INT)");
    run(
        &mut s,
        "CREATE TABLE c (id INT, pid INT, CONSTRAINT fk FOREIGN KEY (pid) REFERENCES p (id))",
    );
    run(&mut s, "INSERT INTO p VALUES (1, 1)");
    run(&mut s, "INSERT INTO c VALUES (1, 1)");
    assert_eq!(
        error(&mut s, "ALTER TABLE c DROP COLUMN pid").code,
        ErrorCode::DropIndexFk
    );
    assert_eq!(
        error(&mut s, "ALTER TABLE p DROP COLUMN id").message,
        "Cannot drop column 'id': needed in a foreign key constraint 'fk' of table `test`.`c`"
    );
    assert_eq!(
        error(&mut s, "ALTER TABLE p MODIFY id BIGINT").message,
        "Cannot change column 'id': used in a foreign key constraint 'fk' of table 'test.c'"
    );
    // Renames follow into the foreign key, on both sides; the key still checks.
    run(&mut s, "ALTER TABLE p CHANGE id id2 INT");
    run(&mut s, "ALTER TABLE c ADD x INT FIRST, CHANGE pid pid2 INT");
    assert!(show_create(&mut s, "c")
        .contains("CONSTRAINT `fk` FOREIGN KEY (`pid2`) REFERENCES `p` (`id2`)"));
    assert_eq!(
        error(&mut s, "INSERT INTO c VALUES (0, 2, 2)").code,
        ErrorCode::NoReferencedRow2
    );
    run(&mut s, "INSERT INTO c VALUES (0, 2, 1)");
    // CHECK constraints: a rename rewrites them, a drop of a named column is refused.
    run(&mut s, "CREATE TABLE k (a INT, b INT, CHECK (a > b))");
    assert_eq!(
        error(&mut s, "ALTER TABLE k DROP b").message,
        "Unknown column 'b' in 'CHECK'"
    );
    run(&mut s, "ALTER TABLE k RENAME COLUMN b TO bb");
    assert!(show_create(&mut s, "k").contains("CHECK (`a` > `bb`)"));
    // Another transaction's uncommitted row: the rebuild would lose its commit, so the
    // ALTER waits for that transaction to end and then runs.
    let mut other = session(&engine, 2);
    run(&mut other, "USE test");
    run(&mut other, "BEGIN");
    run(&mut other, "INSERT INTO k VALUES (2, 1)");
    let alter = "ALTER TABLE k MODIFY a BIGINT, ADD n INT DEFAULT 5";
    wait_then_resume(&mut s, alter, Held::Table, &mut other, "COMMIT")
        .expect("altered after the commit");
    assert_eq!(rows(&mut s, "SELECT * FROM k"), table(&[&["2", "1", "5"]]));
}

#[test]
fn alter_table_adds_primary_keys_and_column_keys() {
    let (_engine, mut s) = setup();
    run(&mut s, "CREATE TABLE t (v VARCHAR(5), b INT)");
    run(
        &mut s,
        "INSERT INTO t VALUES ('c', 1), ('a', NULL), ('b', 1)",
    );
    // A primary key's columns become NOT NULL: a NULL or a duplicate fails the ALTER.
    let e = error(&mut s, "ALTER TABLE t ADD PRIMARY KEY (b)");
    assert_eq!(e.message, "Data truncated for column 'b' at row 2");
    let e = error(&mut s, "ALTER TABLE t ADD PRIMARY KEY (v, b)");
    assert_eq!(e.code, ErrorCode::WarnDataTruncated);
    run(&mut s, "UPDATE t SET b = 2 WHERE v = 'a'");
    let e = error(&mut s, "ALTER TABLE t ADD PRIMARY KEY (b)");
    assert_eq!(e.message, "Duplicate entry '1' for key 'PRIMARY'");
    assert!(show_create(&mut s, "t").contains("`b` int(11) DEFAULT NULL"));
    // An added AUTO_INCREMENT key numbers the rows in their order; inserts continue.
    run(
        &mut s,
        "ALTER TABLE t ADD COLUMN id INT AUTO_INCREMENT PRIMARY KEY FIRST",
    );
    run(&mut s, "INSERT INTO t (v, b) VALUES ('d', 4)");
    assert_eq!(
        rows(&mut s, "SELECT id, v FROM t ORDER BY id"),
        table(&[&["1", "c"], &["2", "a"], &["3", "b"], &["4", "d"]])
    );
    assert_eq!(
        error(&mut s, "ALTER TABLE t ADD CONSTRAINT p PRIMARY KEY (b)").code,
        ErrorCode::MultiplePriKey
    );
    assert_eq!(
        error(&mut s, "ALTER TABLE t MODIFY b INT PRIMARY KEY").code,
        ErrorCode::MultiplePriKey
    );
    assert_eq!(
        error(&mut s, "ALTER TABLE t ADD n INT AUTO_INCREMENT").code,
        ErrorCode::WrongAutoKey
    );
    // A column's UNIQUE is a key named after it, _2 where that name is taken.
    run(
        &mut s,
        "ALTER TABLE t ADD INDEX u (b), ADD COLUMN u INT UNIQUE",
    );
    run(&mut s, "ALTER TABLE t MODIFY v VARCHAR(5) UNIQUE KEY");
    run(&mut s, "UPDATE t SET b = 3 WHERE v = 'b'");
    run(
        &mut s,
        "ALTER TABLE t DROP PRIMARY KEY, CHANGE b bb INT PRIMARY KEY, ADD UNIQUE KEY (id)",
    );
    assert_eq!(
        show_create(&mut s, "t"),
        "CREATE TABLE `t` (\n  `id` int(11) NOT NULL AUTO_INCREMENT,\n  `v` varchar(5) DEFAULT NULL,\n  `bb` int(11) NOT NULL,\n  `u` int(11) DEFAULT NULL,\n  PRIMARY KEY (`bb`),\n  UNIQUE KEY `id` (`id`),\n  UNIQUE KEY `u_2` (`u`),\n  UNIQUE KEY `v` (`v`),\n  KEY `u` (`bb`)\n) ENGINE=InnoDB AUTO_INCREMENT=5 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci"
    );
    assert_eq!(
        error(&mut s, "INSERT INTO t (v, bb) VALUES ('c', 9)").message,
        "Duplicate entry 'c' for key 'v'"
    );
}

/// TRUNCATE, DROP TABLE and DROP DATABASE wait for a transaction holding rows of their
/// tables (session invariant (4)), as MariaDB waits for the tables' metadata locks, and
/// run once it ends: the holder's COMMIT or ROLLBACK works on the table it wrote, and a
/// DROP of several tables drops none of them before it waits.
#[test]
fn drop_and_truncate_wait_for_the_transaction_holding_rows() {
    let engine = engine();
    let mut s = session(&engine, 1);
    let mut holder = session(&engine, 2);
    for sql in [
        "CREATE DATABASE d",
        "CREATE TABLE d.a (id INT PRIMARY KEY)",
        "CREATE TABLE d.b (id INT PRIMARY KEY AUTO_INCREMENT)",
        "INSERT INTO d.a VALUES (1)",
        "INSERT INTO d.b VALUES (1)",
    ] {
        run(&mut s, sql);
    }
    run(&mut holder, "BEGIN");
    run(&mut holder, "INSERT INTO d.b VALUES (2)");
    wait_then_resume(&mut s, "TRUNCATE d.b", Held::Table, &mut holder, "COMMIT")
        .expect("truncated after the commit");
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM d.b"), table(&[&["0"]]));
    run(&mut s, "INSERT INTO d.b VALUES ()");
    assert_eq!(
        rows(&mut s, "SELECT id FROM d.b"),
        table(&[&["1"]]),
        "AUTO_INCREMENT restarts"
    );

    // The held table is listed second: the first is not dropped before the wait, and
    // the holder's rollback undoes its write on the table it wrote through.
    run(&mut holder, "BEGIN");
    run(&mut holder, "DELETE FROM d.b");
    let e = error(&mut s, "DROP TABLE d.a, d.b");
    assert!(
        matches!(e.wait, Some(crate::error::WaitFor::TableLock { .. })),
        "{e:?}"
    );
    drop(s.take_wait());
    assert_eq!(rows(&mut s, "SELECT id FROM d.a"), table(&[&["1"]]));
    run(&mut holder, "ROLLBACK");
    assert_eq!(rows(&mut holder, "SELECT id FROM d.b"), table(&[&["1"]]));
    run(&mut holder, "BEGIN");
    run(&mut holder, "UPDATE d.b SET id = 3");
    wait_then_resume(
        &mut s,
        "DROP TABLE d.a, d.b",
        Held::Table,
        &mut holder,
        "ROLLBACK",
    )
    .expect("dropped after the rollback");
    assert_eq!(
        rows(&mut s, "SHOW TABLES FROM d"),
        Vec::<Vec<String>>::new()
    );

    run(&mut s, "CREATE TABLE d.c (id INT PRIMARY KEY)");
    run(&mut holder, "BEGIN");
    run(&mut holder, "INSERT INTO d.c VALUES (1)");
    wait_then_resume(
        &mut s,
        "DROP DATABASE d",
        Held::Table,
        &mut holder,
        "COMMIT",
    )
    .expect("dropped after the commit");
    assert_eq!(
        error(&mut s, "SELECT * FROM d.c").code,
        ErrorCode::NoSuchTable
    );
}

#[test]
fn rename_table_checks_privileges_and_held_rows() {
    let engine = engine();
    let mut root = session(&engine, 1);
    run(&mut root, "CREATE DATABASE d");
    run(&mut root, "CREATE TABLE d.t (a INT PRIMARY KEY)");
    run(&mut root, "INSERT INTO d.t VALUES (1)");
    run(&mut root, "CREATE USER u@'%' IDENTIFIED BY 'pw'");
    let mut u = user_session(&engine, 2, "u", "%");
    // ALTER and DROP on the old name, CREATE and INSERT on the new (MariaDB's rule).
    run(&mut root, "CREATE DATABASE d2");
    run(&mut root, "GRANT ALTER, SELECT ON d.t TO u@'%'");
    run(&mut root, "GRANT CREATE, INSERT ON d2.* TO u@'%'");
    assert_eq!(
        error(&mut u, "RENAME TABLE d.t TO d2.t2").code,
        ErrorCode::TableAccessDenied
    );
    run(&mut root, "GRANT DROP ON d.t TO u@'%'");
    run(&mut root, "REVOKE INSERT ON d2.* FROM u@'%'");
    assert_eq!(
        error(&mut u, "ALTER TABLE d.t RENAME TO d2.t2").code,
        ErrorCode::TableAccessDenied
    );
    run(&mut root, "GRANT INSERT ON d2.* TO u@'%'");
    run(&mut u, "RENAME TABLE d.t TO d2.t2");
    run(&mut root, "RENAME TABLE d2.t2 TO d.t2");
    assert_eq!(rows(&mut root, "SELECT a FROM d.t2"), table(&[&["1"]]));
    assert_eq!(
        rows(&mut root, "SHOW GLOBAL STATUS LIKE 'Com_rename_table'"),
        table(&[&["Com_rename_table", "3"]]) // Attempts count, as in MariaDB.
    );

    // A reader's open transaction keeps reading through the rename; a prepared statement
    // naming the old name fails as on a dropped table, and the new name works.
    run(&mut root, "USE d");
    let select = root.prepare("SELECT COUNT(*) FROM t2").expect("prepare");
    let mut reader = session(&engine, 3);
    run(&mut reader, "USE d");
    run(&mut reader, "BEGIN");
    assert_eq!(rows(&mut reader, "SELECT a FROM t2"), table(&[&["1"]]));
    run(&mut root, "RENAME TABLE t2 TO t3");
    assert_eq!(
        error(&mut reader, "SELECT a FROM t2").code,
        ErrorCode::NoSuchTable
    );
    assert_eq!(rows(&mut reader, "SELECT a FROM t3"), table(&[&["1"]]));
    run(&mut reader, "COMMIT");
    let mut sink = Collect::default();
    let e = root
        .execute_prepared(select.id, &[], &mut sink)
        .expect_err("renamed away");
    assert_eq!(e.code, ErrorCode::NoSuchTable);

    // Another transaction's uncommitted row: its commit would be logged under the old
    // name, so the rename waits for that transaction to end (as MariaDB waits for the
    // table's metadata lock).
    let mut writer = session(&engine, 4);
    run(&mut writer, "USE d");
    run(&mut writer, "BEGIN");
    run(&mut writer, "INSERT INTO t3 VALUES (2)");
    wait_then_resume(
        &mut root,
        "RENAME TABLE t3 TO t4",
        Held::Table,
        &mut writer,
        "COMMIT",
    )
    .expect("renamed after the commit");
    // A write through a plan bound before the rename binds again, to the new name.
    run(&mut writer, "INSERT INTO t4 VALUES (3)");
    assert_eq!(
        rows(&mut root, "SELECT a FROM t4 ORDER BY a"),
        table(&[&["1"], &["2"], &["3"]])
    );
    // The session's own open transaction is committed first, as by any DDL.
    run(&mut root, "BEGIN");
    run(&mut root, "INSERT INTO t4 VALUES (4)");
    run(&mut root, "RENAME TABLE t4 TO t5");
    run(&mut writer, "ROLLBACK");
    assert_eq!(
        rows(&mut writer, "SELECT COUNT(*) FROM t5"),
        table(&[&["4"]])
    );
}

#[test]
fn window_functions_gaps_and_literals() {
    let (_engine, mut s) = setup();
    run(&mut s, "CREATE TABLE w (a INT PRIMARY KEY, b INT)");
    run(&mut s, "INSERT INTO w VALUES (1, 10), (2, 20), (3, 30)");
    // RANGE frames with an offset are not built.
    let sql = "SELECT SUM(b) OVER (ORDER BY a RANGE 1 PRECEDING) FROM w";
    assert_eq!(error(&mut s, sql).code, ErrorCode::NotSupportedYet);
    // A `?` in a WINDOW clause would be numbered out of text order: 1235 when prepared,
    // and a literal there stays a literal in the text plan cache (right values each time).
    let prepared = s.prepare("SELECT a, SUM(b) OVER x FROM w WINDOW x AS (PARTITION BY b > ?)");
    assert_eq!(
        prepared.err().map(|e| e.code),
        Some(ErrorCode::NotSupportedYet)
    );
    for (n, expected) in [
        (1, [["1", "1", "10"], ["2", "1", "50"], ["3", "1", "50"]]),
        (2, [["1", "2", "30"], ["2", "2", "30"], ["3", "2", "30"]]),
        (1, [["1", "1", "10"], ["2", "1", "50"], ["3", "1", "50"]]),
    ] {
        let sql = format!(
            "SELECT a, {n} AS k, SUM(b) OVER x FROM w WINDOW x AS (PARTITION BY a > {n}) \
             ORDER BY a"
        );
        let expected: Vec<&[&str]> = expected.iter().map(|r| &r[..]).collect();
        assert_eq!(rows(&mut s, &sql), table(&expected), "{sql}");
    }
    // Literals of NTILE and an inline window are parameters of the cached template.
    for (n, limit, expected) in [
        (2, 15, [["1", "1"], ["2", "1"], ["3", "2"]]),
        (3, 5, [["1", "1"], ["2", "2"], ["3", "3"]]),
        (2, 15, [["1", "1"], ["2", "1"], ["3", "2"]]),
    ] {
        let sql = format!(
            "SELECT a, NTILE({n}) OVER (PARTITION BY b > {limit} ORDER BY a) FROM w ORDER BY a"
        );
        let expected: Vec<&[&str]> = expected.iter().map(|r| &r[..]).collect();
        assert_eq!(rows(&mut s, &sql), table(&expected), "{sql}");
    }
}

#[test]
fn optimize_collects_old_versions_and_maintenance_needs_privileges() {
    let (engine, mut s) = setup();
    run(&mut s, "INSERT INTO sbtest1 (k) VALUES (1), (2), (3)");
    run(&mut s, "UPDATE sbtest1 SET k = k + 1");
    run(&mut s, "DELETE FROM sbtest1 WHERE id = 1");
    let storage = engine.storage();
    assert!(
        storage.garbage_len() > 0,
        "the update and delete left old versions"
    );
    assert_eq!(
        rows(&mut s, "OPTIMIZE TABLE sbtest1"),
        table(&[&["test.sbtest1", "optimize", "status", "OK"]])
    );
    assert_eq!(storage.garbage_len(), 0);
    // Several tables: one row each, in the order named; one collection frees them all.
    run(&mut s, "CREATE TABLE other (id INT PRIMARY KEY, v INT)");
    run(&mut s, "INSERT INTO other VALUES (1, 1), (2, 2)");
    run(&mut s, "DELETE FROM other WHERE id = 1");
    run(&mut s, "DELETE FROM sbtest1 WHERE id = 2");
    assert!(storage.garbage_len() > 0);
    assert_eq!(
        rows(&mut s, "OPTIMIZE TABLE sbtest1, missing, other"),
        table(&[
            &["test.sbtest1", "optimize", "status", "OK"],
            &[
                "test.missing",
                "optimize",
                "Error",
                "Table 'test.missing' doesn't exist"
            ],
            &["test.missing", "optimize", "status", "Operation failed"],
            &["test.other", "optimize", "status", "OK"],
        ])
    );
    assert_eq!(storage.garbage_len(), 0);
    assert_eq!(
        rows(&mut s, "CHECK TABLE sbtest1"),
        table(&[&["test.sbtest1", "check", "status", "OK"]])
    );
    // CHECK needs SELECT; the others SELECT and INSERT, on every table named.
    run(&mut s, "CREATE USER reader@'%'");
    run(&mut s, "GRANT SELECT ON test.sbtest1 TO reader@'%'");
    let mut reader = user_session(&engine, 2, "reader", "%");
    run(&mut reader, "USE test");
    assert_eq!(
        rows(&mut reader, "CHECK TABLE sbtest1"),
        table(&[&["test.sbtest1", "check", "status", "OK"]])
    );
    for statement in [
        "ANALYZE TABLE sbtest1",
        "OPTIMIZE TABLE sbtest1",
        "CHECK TABLE sbtest1, t2",
    ] {
        let e = error(&mut reader, statement);
        assert_eq!(e.code, ErrorCode::TableAccessDenied, "{statement}");
    }
}

#[test]
fn alter_table_options_refuse_what_they_cannot_change() {
    let (_engine, mut s) = setup();
    for statement in [
        "ALTER TABLE sbtest1 ENGINE=MyISAM",
        "ALTER TABLE sbtest1 CHARSET latin1",
        "ALTER TABLE sbtest1 FORCE, CONVERT TO CHARACTER SET latin1",
    ] {
        let e = error(&mut s, statement);
        assert_eq!(e.code, ErrorCode::NotSupportedYet, "{statement}");
    }
    // An engine MariaDB does not know is 1286 in CREATE and ALTER alike.
    for statement in [
        "ALTER TABLE sbtest1 ENGINE=nope",
        "CREATE TABLE t9 (a INT) ENGINE=nope",
    ] {
        let e = error(&mut s, statement);
        assert_eq!(e.code, ErrorCode::UnknownStorageEngine, "{statement}");
    }
    ok(
        &mut s,
        "ALTER TABLE sbtest1 ENGINE=InnoDB, DEFAULT CHARSET=utf8mb4",
    );
    // A utf8mb4 collation is the table's new default (tests/sql/table_options.sql).
    ok(&mut s, "ALTER TABLE sbtest1 FORCE, COLLATE utf8mb4_bin");
}

/// A pattern that is a `?` is compiled when the statement runs (`expr::regexp`
/// invariant (2)): each execution may bring another, and an invalid one is 1139.
#[test]
fn regexp_pattern_as_parameter() {
    let (_engine, mut s) = setup();
    let info = s
        .prepare("SELECT 'Abc' REGEXP ?, REGEXP_REPLACE('abc', ?, '-')")
        .expect("prepare");
    let mut sink = Collect::default();
    for pattern in ["b", "^x", "C$"] {
        s.execute_prepared(
            info.id,
            &[Value::text(pattern), Value::text(pattern)],
            &mut sink,
        )
        .expect("execute");
    }
    let got: Vec<_> = sink
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Rows { rows, .. } => Some(rows.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        got,
        vec![
            table(&[&["1", "a-c"]]),
            table(&[&["0", "abc"]]),
            table(&[&["1", "ab-"]]),
        ]
    );
    let invalid = s
        .execute_prepared(info.id, &[Value::text("("), Value::text("b")], &mut sink)
        .expect_err("invalid pattern");
    assert_eq!(invalid.code, crate::error::ErrorCode::RegexpError);
    // A literal pattern is compiled when the statement is prepared.
    let error = s
        .prepare("SELECT 'abc' REGEXP '('")
        .expect_err("invalid literal pattern");
    assert_eq!(error.code, crate::error::ErrorCode::RegexpError);
}

#[test]
fn multi_table_writes_fire_their_targets_triggers() {
    let (_engine, mut s) = setup();
    run(&mut s, "CREATE TABLE t (a INT PRIMARY KEY, b INT)");
    run(&mut s, "CREATE TABLE u (a INT PRIMARY KEY)");
    run(&mut s, "CREATE TABLE audit (what VARCHAR(10), a INT)");
    run(&mut s, "INSERT INTO t VALUES (1, 10), (2, 20)");
    run(&mut s, "INSERT INTO u VALUES (1), (2), (3)");
    run(
        &mut s,
        "CREATE TRIGGER tu AFTER UPDATE ON t FOR EACH ROW INSERT INTO audit VALUES ('upd', NEW.a)",
    );
    run(
        &mut s,
        "CREATE TRIGGER td BEFORE DELETE ON t FOR EACH ROW INSERT INTO audit VALUES ('del', OLD.a)",
    );
    // Each target row once, however many joined rows reach it; unchanged rows too.
    run(&mut s, "UPDATE t JOIN u ON u.a >= t.a SET t.b = 10");
    run(&mut s, "DELETE t FROM t JOIN u ON t.a = u.a WHERE u.a = 2");
    assert_eq!(
        rows(&mut s, "SELECT what, a FROM audit ORDER BY what, a"),
        table(&[&["del", "2"], &["upd", "1"], &["upd", "2"]])
    );
    // A body may not write a table the statement reads (1442), so nothing is written.
    let e = error(&mut s, "UPDATE t JOIN audit ON t.a = audit.a SET t.b = 0");
    assert_eq!(e.code, ErrorCode::CantUpdateUsedTableInSfOrTrg);
    assert_eq!(rows(&mut s, "SELECT b FROM t"), table(&[&["10"]]));
}

/// EXPLAIN of a multi-table UPDATE or DELETE describes the join the write reads, row for
/// row as EXPLAIN of a SELECT over that join (MariaDB's choices differ: explain.rs), and
/// writes nothing.
#[test]
fn explain_multi_table_writes_describes_their_join() {
    let (_engine, mut s) = setup();
    run(&mut s, "CREATE TABLE t (a INT PRIMARY KEY, b INT)");
    run(&mut s, "CREATE TABLE u (a INT NOT NULL, c INT)");
    run(&mut s, "INSERT INTO t VALUES (1, 10), (2, 20)");
    run(&mut s, "INSERT INTO u VALUES (1, 5), (2, 6), (3, 7)");
    let join = rows(
        &mut s,
        "EXPLAIN SELECT * FROM u JOIN t ON t.a = u.a WHERE u.c > 5",
    );
    assert_eq!(join.len(), 2);
    assert_eq!(join[1][2..4], ["t".to_string(), "eq_ref".to_string()]);
    for write in [
        "EXPLAIN UPDATE u JOIN t ON t.a = u.a SET t.b = u.c WHERE u.c > 5",
        "EXPLAIN UPDATE u, t SET t.b = u.c WHERE t.a = u.a AND u.c > 5",
        "EXPLAIN DELETE t FROM u JOIN t ON t.a = u.a WHERE u.c > 5",
        "EXPLAIN DELETE FROM t USING u, t WHERE t.a = u.a AND u.c > 5",
    ] {
        assert_eq!(rows(&mut s, write), join, "{write}");
    }
    assert_eq!(
        rows(&mut s, "SELECT * FROM t ORDER BY a"),
        table(&[&["1", "10"], &["2", "20"]])
    );
    // Errors as for the write itself.
    let e = error(
        &mut s,
        "EXPLAIN UPDATE u JOIN t ON t.a = u.a SET t.nope = 1",
    );
    assert_eq!(e.code, ErrorCode::BadField);
}

/// Runs the grant tables' startup again (as a restart would), checks that root still
/// holds ALL PRIVILEGES, and returns SHOW GRANTS for `account`.
fn grants_after_startup(engine: &Arc<Engine>, s: &mut Session, account: &str) -> Vec<Vec<String>> {
    Session::bootstrap_privileges(engine).expect("startup again");
    let root = rows(s, "SHOW GRANTS FOR root@localhost");
    assert!(
        root[0][0].starts_with("GRANT ALL PRIVILEGES ON *.*"),
        "{root:?}"
    );
    rows(s, &format!("SHOW GRANTS FOR {account}"))
}

/// A data directory from before the routine privileges, TRIGGER (and FILE) lacks their
/// columns in `mysql.user` and `mysql.db`: startup adds them, after the privileges each
/// table had, and an account, database or table grant that held ALL at its level holds
/// them too.
#[test]
fn grant_tables_without_routine_and_trigger_privileges_gain_them_at_startup() {
    let engine = engine();
    let mut s = session(&engine, 1);
    for sql in [
        "CREATE DATABASE d",
        "CREATE USER plain@localhost",
        "GRANT SELECT ON *.* TO plain@localhost",
        "GRANT ALL ON d.* TO plain@localhost",
        "GRANT SELECT ON mysql.* TO plain@localhost",
        "CREATE TABLE d.t (a INT)",
        "CREATE TABLE d.u (a INT)",
        "GRANT ALL ON d.t TO plain@localhost WITH GRANT OPTION",
        "GRANT SELECT, INSERT ON d.u TO plain@localhost",
        // Table_priv as ALL was before TRIGGER and the view privileges.
        "UPDATE mysql.tables_priv SET Table_priv = 'Select,Insert,Update,Delete,Create,Drop,\
         Grant,Index,Alter' WHERE Table_name = 't'",
    ] {
        ok(&mut s, sql);
    }
    for table in ["user", "db"] {
        ok(
            &mut s,
            &format!(
                "ALTER TABLE mysql.{table} DROP COLUMN Execute_priv, DROP COLUMN \
                 Create_routine_priv, DROP COLUMN Alter_routine_priv, DROP COLUMN \
                 Trigger_priv, DROP COLUMN Create_view_priv, DROP COLUMN Show_view_priv, \
                 DROP COLUMN Create_tmp_table_priv, DROP COLUMN Lock_tables_priv, DROP COLUMN \
                 Event_priv, DROP COLUMN Delete_history_priv"
            ),
        );
    }
    ok(
        &mut s,
        "ALTER TABLE mysql.user DROP COLUMN File_priv, DROP COLUMN Show_db_priv, DROP COLUMN \
         Repl_slave_priv, DROP COLUMN Repl_client_priv, DROP COLUMN Create_tablespace_priv",
    );
    assert_eq!(
        grants_after_startup(&engine, &mut s, "plain@localhost"),
        table(&[
            &["GRANT SELECT ON *.* TO `plain`@`localhost`"],
            &["GRANT ALL PRIVILEGES ON `d`.* TO `plain`@`localhost`"],
            &["GRANT SELECT ON `mysql`.* TO `plain`@`localhost`"],
            &["GRANT ALL PRIVILEGES ON `d`.`t` TO `plain`@`localhost` WITH GRANT OPTION"],
            &["GRANT SELECT, INSERT ON `d`.`u` TO `plain`@`localhost`"],
        ])
    );
    let columns = |s: &mut Session, table: &str| -> Vec<Vec<String>> {
        rows(
            s,
            &format!(
                "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = \
                 'mysql' AND TABLE_NAME = '{table}' AND COLUMN_NAME LIKE '%\\_priv' ORDER BY \
                 ORDINAL_POSITION"
            ),
        )
    };
    let names = |level: Privileges| -> Vec<Vec<String>> {
        Privileges::NAMES
            .iter()
            .filter(|(p, _, _)| level.contains(*p))
            .map(|(_, _, column)| vec![column.to_string()])
            .collect()
    };
    assert_eq!(columns(&mut s, "user"), names(Privileges::GLOBAL_LEVEL));
    assert_eq!(columns(&mut s, "db"), names(Privileges::DATABASE_LEVEL));
}

/// A data directory from before the FILE privilege has no `mysql.user.File_priv`: startup
/// adds it, and an account that held every global privilege (root's ALL) holds FILE too,
/// while others do not.
#[test]
fn grant_tables_without_file_priv_gain_it_at_startup() {
    let engine = engine();
    let mut s = session(&engine, 1);
    ok(&mut s, "CREATE USER plain@localhost");
    ok(&mut s, "GRANT SELECT ON *.* TO plain@localhost");
    ok(&mut s, "ALTER TABLE mysql.user DROP COLUMN File_priv");
    assert_eq!(
        grants_after_startup(&engine, &mut s, "plain@localhost")[0][0],
        "GRANT SELECT ON *.* TO `plain`@`localhost`"
    );
    let column: Vec<Vec<String>> = rows(
        &mut s,
        "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'mysql' \
         AND TABLE_NAME = 'user' AND COLUMN_NAME IN ('Process_priv', 'File_priv', 'Grant_priv') \
         ORDER BY ORDINAL_POSITION",
    );
    assert_eq!(
        column,
        table(&[&["Process_priv"], &["File_priv"], &["Grant_priv"]])
    );
}

/// A temporary table belongs to the session that made it: it hides the permanent table of
/// its name there (also from plans bound before it existed: a prepared statement and the
/// text plan cache bind again), no other session sees it, and it goes with a reset of the
/// session (COM_RESET_CONNECTION, COM_CHANGE_USER) or the session itself.
#[test]
fn temporary_tables_belong_to_their_session() {
    let (engine, mut s) = setup();
    ok(&mut s, "CREATE TABLE kept (a INT)");
    ok(&mut s, "INSERT INTO kept VALUES (1)");
    ok(&mut s, "PREPARE read_kept FROM 'SELECT a FROM kept'");
    let cached = "SELECT a, 7 AS seven FROM kept WHERE a > 0";
    for _ in 0..2 {
        assert_eq!(rows(&mut s, "EXECUTE read_kept"), table(&[&["1"]]));
        assert_eq!(rows(&mut s, cached), table(&[&["1", "7"]]));
    }
    ok(&mut s, "CREATE TEMPORARY TABLE kept (a INT, b INT)");
    ok(&mut s, "INSERT INTO kept VALUES (2, 0), (3, 0)");
    ok(&mut s, "CREATE TEMPORARY TABLE scratch (a INT)");
    for _ in 0..2 {
        assert_eq!(rows(&mut s, "EXECUTE read_kept"), table(&[&["2"], &["3"]]));
        assert_eq!(rows(&mut s, cached), table(&[&["2", "7"], &["3", "7"]]));
    }
    let mut other = session(&engine, 2);
    run(&mut other, "USE test");
    assert_eq!(rows(&mut other, "SELECT a FROM kept"), table(&[&["1"]]));
    assert_eq!(
        error(&mut other, "SELECT * FROM scratch").code,
        ErrorCode::NoSuchTable
    );
    // Another session's DROP TEMPORARY TABLE does not reach it (1051).
    let e = error(&mut other, "DROP TEMPORARY TABLE kept, gone");
    assert_eq!(e.code, ErrorCode::BadTable);
    assert_eq!(e.message, "Unknown table 'test.kept,test.gone'");
    ok(&mut other, "DROP TEMPORARY TABLE IF EXISTS kept");
    assert_eq!(
        rows(&mut other, "SHOW WARNINGS"),
        table(&[&["Note", "1051", "Unknown table 'test.kept'"]])
    );
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM kept"), table(&[&["2"]]));
    // DROP TABLE takes the temporary table first; the permanent one is seen again.
    ok(&mut s, "DROP TABLE kept");
    assert_eq!(rows(&mut s, "EXECUTE read_kept"), table(&[&["1"]]));
    assert_eq!(rows(&mut s, cached), table(&[&["1", "7"]]));
    ok(&mut s, "CREATE TEMPORARY TABLE kept (a INT)");
    s.reset();
    run(&mut s, "USE test");
    assert_eq!(rows(&mut s, "SELECT a FROM kept"), table(&[&["1"]]));
    assert_eq!(
        error(&mut s, "SELECT * FROM scratch").code,
        ErrorCode::NoSuchTable
    );
    // A session's end drops its temporary tables; the other sessions' stay.
    ok(&mut other, "CREATE TEMPORARY TABLE kept (z INT)");
    ok(&mut s, "CREATE TEMPORARY TABLE scratch (a INT)");
    drop(s);
    assert_eq!(
        rows(&mut other, "SELECT COUNT(*) FROM kept"),
        table(&[&["0"]])
    );
    let mut third = session(&engine, 3);
    run(&mut third, "USE test");
    assert_eq!(
        error(&mut third, "SELECT * FROM scratch").code,
        ErrorCode::NoSuchTable
    );
}

/// LOCK TABLES with every table READ reads one snapshot until UNLOCK TABLES (what makes
/// `mariadb-dump --lock-tables` consistent across tables) and may not write (1792); with a
/// WRITE lock nothing changes. Other sessions are not blocked: manycore takes no table
/// locks (docs/security.md).
#[test]
fn lock_tables_read_sees_one_snapshot_until_unlock() {
    let (engine, mut dumper) = setup();
    let mut writer = session(&engine, 2);
    run(&mut writer, "USE test");
    ok(&mut dumper, "CREATE TABLE orders (id INT PRIMARY KEY)");
    ok(&mut dumper, "CREATE TABLE order_lines (order_id INT)");
    ok(&mut dumper, "INSERT INTO orders VALUES (1)");
    ok(&mut dumper, "INSERT INTO order_lines VALUES (1)");
    let count = |s: &mut Session, table: &str| rows(s, &format!("SELECT COUNT(*) FROM {table}"));

    ok(
        &mut dumper,
        "LOCK TABLES orders READ LOCAL, test.order_lines AS l READ",
    );
    assert_eq!(count(&mut dumper, "orders"), table(&[&["1"]]));
    ok(&mut writer, "INSERT INTO orders VALUES (2)");
    ok(&mut writer, "INSERT INTO order_lines VALUES (2)");
    // The order and its line committed after the first read: neither is seen.
    assert_eq!(count(&mut dumper, "order_lines"), table(&[&["1"]]));
    assert_eq!(count(&mut dumper, "orders"), table(&[&["1"]]));
    let e = error(&mut dumper, "INSERT INTO order_lines VALUES (3)");
    assert_eq!(e.code, ErrorCode::ReadOnlyTransaction);
    ok(&mut dumper, "UNLOCK TABLES");
    assert_eq!(count(&mut dumper, "order_lines"), table(&[&["2"]]));

    // A WRITE lock takes no snapshot: each statement reads the newest rows and writes.
    ok(&mut dumper, "LOCK TABLES orders READ, order_lines WRITE");
    ok(&mut writer, "INSERT INTO orders VALUES (3)");
    assert_eq!(count(&mut dumper, "orders"), table(&[&["3"]]));
    ok(&mut dumper, "INSERT INTO order_lines VALUES (3)");
    ok(&mut dumper, "UNLOCK TABLES");
    assert_eq!(count(&mut writer, "order_lines"), table(&[&["3"]]));

    // UNLOCK TABLES commits only after LOCK TABLES (MariaDB): a transaction begun
    // without one stays open, and START TRANSACTION releases the locks.
    ok(&mut dumper, "BEGIN");
    ok(&mut dumper, "INSERT INTO order_lines VALUES (4)");
    ok(&mut dumper, "UNLOCK TABLES");
    ok(&mut dumper, "ROLLBACK");
    assert_eq!(count(&mut dumper, "order_lines"), table(&[&["3"]]));
    ok(&mut dumper, "LOCK TABLES order_lines READ");
    ok(&mut dumper, "START TRANSACTION");
    ok(&mut dumper, "INSERT INTO order_lines VALUES (5)");
    ok(&mut dumper, "UNLOCK TABLES");
    ok(&mut dumper, "ROLLBACK");
    assert_eq!(count(&mut dumper, "order_lines"), table(&[&["3"]]));
}

/// ALTER clauses MariaDB admits but manycore's run does not keep get a Note saying so:
/// LOCK=NONE where writes waited for a rebuild or an index build, ALGORITHM=INSTANT where
/// the rows were rebuilt. A change of the definition alone keeps both: no Note.
#[test]
fn alter_clauses_not_kept_are_noted() {
    let (_engine, mut s) = setup();
    ok(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, a INT)");
    ok(&mut s, "INSERT INTO t VALUES (1, 1), (2, 2)");
    let notes = |s: &mut Session| rows(s, "SHOW WARNINGS");

    ok(&mut s, "ALTER TABLE t ADD COLUMN b INT, ALGORITHM=INSTANT");
    assert_eq!(
        notes(&mut s),
        table(&[&[
            "Note",
            "1846",
            "ALGORITHM=INSTANT was not kept: manycore rebuilt the rows of `test`.`t`"
        ]])
    );
    ok(&mut s, "ALTER TABLE t ADD INDEX ia (a), LOCK=NONE");
    assert_eq!(
        notes(&mut s),
        table(&[&[
            "Note",
            "1846",
            "LOCK=NONE was not kept: manycore built an index over the rows of `test`.`t`, \
             and writes to the table waited"
        ]])
    );
    ok(&mut s, "ALTER ONLINE TABLE t DROP COLUMN b");
    assert_eq!(notes(&mut s).len(), 1, "a rebuild under ALTER ONLINE");
    ok(&mut s, "CREATE INDEX ib ON t (a) LOCK=NONE");
    assert_eq!(notes(&mut s).len(), 1, "an index build under LOCK=NONE");

    ok(
        &mut s,
        "ALTER TABLE t RENAME COLUMN a TO c, ALGORITHM=INSTANT, LOCK=NONE",
    );
    assert_eq!(notes(&mut s), table(&[]));
    ok(&mut s, "ALTER TABLE t ADD COLUMN d INT, LOCK=SHARED");
    assert_eq!(notes(&mut s), table(&[]));
    assert_eq!(
        rows(&mut s, "SELECT id, c, d FROM t ORDER BY id"),
        table(&[&["1", "1", "NULL"], &["2", "2", "NULL"]])
    );
}

/// COUNT and BIT_AND/OR/XOR are never NULL, so their result columns say NOT NULL, as
/// MariaDB's do (drivers report them as not nullable); SUM, MIN and the rest may be NULL.
#[test]
fn aggregates_that_are_never_null_say_so() {
    let (_engine, mut s) = setup();
    ok(&mut s, "CREATE TABLE t (a INT)");
    let events = run(
        &mut s,
        "SELECT COUNT(*), COUNT(DISTINCT a), BIT_OR(a), SUM(a), MIN(a) FROM t",
    );
    let Some(Event::Rows { columns, rows, .. }) = events.last() else {
        panic!("{events:?}")
    };
    let not_null: Vec<bool> = columns.iter().map(|c| c.not_null).collect();
    assert_eq!(not_null, [true, true, true, false, false]);
    assert_eq!(rows[0], ["0", "0", "0", "NULL", "NULL"]);
}
