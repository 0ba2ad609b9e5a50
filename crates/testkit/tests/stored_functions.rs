//! Stored functions through a real driver: a prepared statement calling one follows the
//! function when it is replaced and the table its body reads when that is recreated; the
//! body reads the calling transaction's snapshot; functions survive kill -9; deep nesting
//! is 1436, not a crash.

use manycore_testkit::{ManycoreServer, Server};
use mysql::prelude::Queryable;

const SETUP: [&str; 5] = [
    "DROP DATABASE IF EXISTS funcs",
    "CREATE DATABASE funcs",
    "CREATE TABLE funcs.item (id INT PRIMARY KEY, price INT NOT NULL)",
    "INSERT INTO funcs.item VALUES (1, 100), (2, 200)",
    "CREATE FUNCTION funcs.price_of(i INT) RETURNS INT READS SQL DATA \
     BEGIN \
       DECLARE p INT; \
       SELECT price INTO p FROM funcs.item WHERE id = i; \
       RETURN p; \
     END",
];

fn setup(conn: &mut mysql::Conn) {
    for sql in SETUP {
        conn.query_drop(sql).expect(sql);
    }
}

fn first_int(conn: &mut mysql::Conn, sql: &str) -> Option<i64> {
    conn.query_first::<Option<i64>, _>(sql)
        .expect(sql)
        .flatten()
}

#[test]
fn prepared_calls_follow_a_replaced_function_and_a_recreated_table() {
    let server = Server::from_env();
    let mut conn = server.connect();
    setup(&mut conn);
    conn.query_drop("CREATE FUNCTION funcs.tax(x INT) RETURNS INT RETURN x + 1")
        .expect("create tax");
    let statement = conn
        .prep("SELECT funcs.tax(?), funcs.price_of(?)")
        .expect("prepare");
    let row: (i64, i64) = conn
        .exec_first(&statement, (10, 1))
        .expect("execute")
        .expect("a row");
    assert_eq!(row, (11, 100));

    // A replaced function: the same prepared statement runs the new body.
    conn.query_drop("CREATE OR REPLACE FUNCTION funcs.tax(x INT) RETURNS INT RETURN x * 2")
        .expect("replace tax");
    let row: (i64, i64) = conn
        .exec_first(&statement, (10, 1))
        .expect("execute after replace")
        .expect("a row");
    assert_eq!(row, (20, 100));

    // The table the body reads is dropped and created again with other rows.
    for sql in [
        "DROP TABLE funcs.item",
        "CREATE TABLE funcs.item (id INT PRIMARY KEY, price INT NOT NULL)",
        "INSERT INTO funcs.item VALUES (1, 7)",
    ] {
        conn.query_drop(sql).expect(sql);
    }
    let row: (i64, i64) = conn
        .exec_first(&statement, (10, 1))
        .expect("execute after recreate")
        .expect("a row");
    assert_eq!(row, (20, 7));
    // The text protocol's repeated statement too.
    for _ in 0..2 {
        assert_eq!(first_int(&mut conn, "SELECT funcs.price_of(1)"), Some(7));
    }

    // A dropped function: the prepared statement fails with 1305.
    conn.query_drop("DROP FUNCTION funcs.tax").expect("drop");
    let error = conn
        .exec_first::<(i64, i64), _, _>(&statement, (10, 1))
        .expect_err("a dropped function");
    assert!(
        matches!(&error, mysql::Error::MySqlError(e) if e.code == 1305),
        "{error}"
    );
}

/// A function's body reads what the statement calling it reads: in a REPEATABLE READ
/// transaction, its snapshot, not a row another session committed since.
#[test]
fn a_function_reads_the_calling_transactions_snapshot() {
    let server = Server::from_env();
    let mut reader = server.connect();
    setup(&mut reader);
    let mut writer = server.connect();
    reader
        .query_drop("START TRANSACTION WITH CONSISTENT SNAPSHOT")
        .expect("begin");
    assert_eq!(
        first_int(&mut reader, "SELECT funcs.price_of(1)"),
        Some(100)
    );
    writer
        .query_drop("UPDATE funcs.item SET price = 150 WHERE id = 1")
        .expect("update");
    assert_eq!(
        first_int(&mut reader, "SELECT funcs.price_of(1)"),
        Some(100),
        "the snapshot's row"
    );
    // Its own change is seen.
    reader
        .query_drop("UPDATE funcs.item SET price = price + 1 WHERE id = 2")
        .expect("own update");
    assert_eq!(
        first_int(&mut reader, "SELECT funcs.price_of(2)"),
        Some(201)
    );
    reader.query_drop("COMMIT").expect("commit");
    assert_eq!(
        first_int(&mut reader, "SELECT funcs.price_of(1)"),
        Some(150)
    );
}

/// Functions are in the log and in checkpoints: after kill -9 and a restart they are
/// all there, a dropped one is gone, and a replaced one has its new body.
#[test]
fn functions_survive_kill_9() {
    let mut server = ManycoreServer::start();
    let opts = |port| mysql::Opts::from(manycore_testkit::client::opts(port, None));
    let mut conn = mysql::Conn::new(opts(server.port())).expect("connect");
    setup(&mut conn);
    for sql in [
        "CREATE FUNCTION funcs.gone() RETURNS INT RETURN 1",
        "CREATE FUNCTION funcs.twice() RETURNS INT RETURN 1",
        "CREATE OR REPLACE FUNCTION funcs.twice() RETURNS VARCHAR(5) RETURN 'two'",
        "DROP FUNCTION funcs.gone",
    ] {
        conn.query_drop(sql).expect(sql);
    }
    drop(conn);
    server.kill9();
    server.restart();
    let mut conn = mysql::Conn::new(opts(server.port())).expect("reconnect");
    assert_eq!(first_int(&mut conn, "SELECT funcs.price_of(2)"), Some(200));
    let twice: Option<String> = conn
        .query_first("SELECT funcs.twice()")
        .expect("call twice");
    assert_eq!(twice.as_deref(), Some("two"));
    let error = conn.query_drop("SELECT funcs.gone()").expect_err("dropped");
    assert!(
        matches!(&error, mysql::Error::MySqlError(e) if e.code == 1305),
        "{error}"
    );
    let names: Vec<(String, String)> = conn
        .query(
            "SELECT ROUTINE_NAME, DTD_IDENTIFIER FROM information_schema.ROUTINES \
             WHERE ROUTINE_SCHEMA = 'funcs' ORDER BY 1",
        )
        .expect("routines");
    assert_eq!(
        names,
        [
            ("price_of".to_string(), "int(11)".to_string()),
            ("twice".to_string(), "varchar(5)".to_string())
        ]
    );
}

/// Calls of distinct functions nest 32 deep; deeper is 1436 (where MariaDB's limit is its
/// thread stack), never a worker's stack overflow: the server keeps answering.
#[test]
fn deeply_nested_functions_are_refused_not_a_crash() {
    let server = ManycoreServer::start();
    let opts = mysql::Opts::from(manycore_testkit::client::opts(server.port(), None));
    let mut conn = mysql::Conn::new(opts).expect("connect");
    setup(&mut conn);
    conn.query_drop("CREATE FUNCTION funcs.f0(x INT) RETURNS INT RETURN x")
        .expect("f0");
    for i in 1..200 {
        let sql = format!(
            "CREATE FUNCTION funcs.f{i}(x INT) RETURNS INT RETURN funcs.f{}(x) + 1",
            i - 1
        );
        conn.query_drop(&sql).expect(&sql);
    }
    assert_eq!(first_int(&mut conn, "SELECT funcs.f31(0)"), Some(31));
    for sql in ["SELECT funcs.f32(0)", "SELECT funcs.f199(0)"] {
        let error = conn.query_first::<Option<i64>, _>(sql).expect_err(sql);
        assert!(
            matches!(&error, mysql::Error::MySqlError(e) if e.code == 1436),
            "{sql}: {error}"
        );
    }
    assert_eq!(first_int(&mut conn, "SELECT funcs.price_of(1)"), Some(100));
}
