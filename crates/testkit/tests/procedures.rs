//! Stored procedures through a real driver: a CALL prepared with `?` arguments
//! (COM_STMT_PREPARE / COM_STMT_EXECUTE) and one sent as text both return the body's
//! result sets, then the OK, and set OUT parameters' user variables; a CALL that must
//! wait for a row lock sends each result set once; procedures survive kill -9.

use std::thread;
use std::time::Duration;

use manycore_testkit::client::{connection_id, process_info, wait_for};
use manycore_testkit::{ManycoreServer, Server};
use mysql::prelude::Queryable;

const SETUP: [&str; 5] = [
    "DROP DATABASE IF EXISTS procs",
    "CREATE DATABASE procs",
    "CREATE TABLE procs.acct (id INT PRIMARY KEY, bal INT NOT NULL)",
    "INSERT INTO procs.acct VALUES (1, 100), (2, 200)",
    "CREATE PROCEDURE procs.pay(IN who INT, IN amount INT, OUT left_over INT) \
     BEGIN \
       UPDATE procs.acct SET bal = bal - amount WHERE id = who; \
       SELECT id, bal FROM procs.acct WHERE id = who; \
       SELECT bal INTO left_over FROM procs.acct WHERE id = who; \
       SELECT COUNT(*) AS accounts FROM procs.acct; \
     END",
];

fn setup(conn: &mut mysql::Conn) {
    for sql in SETUP {
        conn.query_drop(sql).expect(sql);
    }
}

/// Every result set of one CALL, as rows of integers, and the final OK's affected rows.
fn call_sets<P: mysql::prelude::Protocol>(
    mut result: mysql::QueryResult<'_, '_, '_, P>,
) -> (Vec<Vec<Vec<i64>>>, u64) {
    let mut sets = Vec::new();
    let mut affected = 0;
    while let Some(set) = result.iter() {
        affected = set.affected_rows();
        let has_columns = !set.columns().as_ref().is_empty();
        let rows: Vec<Vec<i64>> = set
            .map(|row| {
                let row = row.expect("row");
                (0..row.len())
                    .map(|i| row.get::<i64, _>(i).expect("integer"))
                    .collect()
            })
            .collect();
        if has_columns {
            sets.push(rows);
        }
    }
    (sets, affected)
}

#[test]
fn prepared_and_text_calls_return_result_sets_and_out_parameters() {
    let server = Server::from_env();
    let mut conn = server.connect();
    setup(&mut conn);

    let statement = conn
        .prep("CALL procs.pay(?, ?, @left)")
        .expect("prepare CALL");
    let result = conn.exec_iter(&statement, (1, 30)).expect("execute CALL");
    let (sets, affected) = call_sets(result);
    assert_eq!(sets, vec![vec![vec![1, 70]], vec![vec![2]]]);
    assert_eq!(
        affected, 2,
        "the CALL's affected rows: the UPDATE's, and the row SELECT ... INTO delivered"
    );
    let left: Option<i64> = conn.query_first("SELECT @left").expect("read @left");
    assert_eq!(left, Some(70));

    // Executed again with other values: the same statement, other rows.
    let (sets, _) = call_sets(conn.exec_iter(&statement, (2, 5)).expect("execute again"));
    assert_eq!(sets, vec![vec![vec![2, 195]], vec![vec![2]]]);

    let (sets, affected) = call_sets(
        conn.query_iter("CALL procs.pay(1, 10, @left)")
            .expect("text CALL"),
    );
    assert_eq!(
        (sets, affected),
        (vec![vec![vec![1, 60]], vec![vec![2]]], 2)
    );
    let left: Option<i64> = conn.query_first("SELECT @left").expect("read @left");
    assert_eq!(left, Some(60));

    // An OUT argument that is not a user variable is refused before anything runs.
    let error = conn
        .query_drop("CALL procs.pay(1, 10, 5)")
        .expect_err("a constant OUT argument");
    assert!(
        matches!(&error, mysql::Error::MySqlError(e) if e.code == 1414),
        "{error}"
    );
    let bal: Option<i64> = conn
        .query_first("SELECT bal FROM procs.acct WHERE id = 1")
        .expect("read");
    assert_eq!(bal, Some(60), "a refused CALL ran nothing");
}

/// A CALL whose UPDATE waits for another transaction's row lock runs again from its
/// start once the lock is free: the client gets each result set once, with the values
/// after the holder's commit.
#[test]
fn call_waiting_for_a_row_lock_sends_each_result_set_once() {
    let server = Server::from_env();
    let mut holder = server.connect();
    setup(&mut holder);
    holder.query_drop("BEGIN").expect("begin");
    holder
        .query_drop("UPDATE procs.acct SET bal = bal + 1000 WHERE id = 1")
        .expect("hold row 1");
    let mut caller = server.connect();
    let caller_id = connection_id(&mut caller);
    let sql = "CALL procs.pay(1, 1, @left)";
    let waiting = thread::spawn(move || {
        let sets = call_sets(caller.query_iter(sql).expect("CALL"));
        let left: Option<i64> = caller.query_first("SELECT @left").expect("read @left");
        (sets, left)
    });
    let mut observer = server.connect();
    // MariaDB's process list shows the body's statement, manycore's the CALL.
    wait_for("the CALL to wait", Duration::from_secs(10), || {
        matches!(process_info(&mut observer, caller_id), Some(Some(_)))
    });
    thread::sleep(Duration::from_millis(100));
    holder.query_drop("COMMIT").expect("commit");
    let ((sets, affected), left) = waiting.join().expect("caller thread");
    assert_eq!(sets, vec![vec![vec![1, 1099]], vec![vec![2]]]);
    assert_eq!((affected, left), (2, Some(1099)));
}

/// Procedures are in the log and in checkpoints: after kill -9 and a restart they are
/// all there, a dropped one is gone, and a replaced one has its new body.
#[test]
fn procedures_survive_kill_9() {
    let mut server = ManycoreServer::start();
    let mut conn = mysql::Conn::new(mysql::Opts::from(manycore_testkit::client::opts(
        server.port(),
        None,
    )))
    .expect("connect");
    setup(&mut conn);
    for sql in [
        "CREATE PROCEDURE procs.gone() SELECT 1",
        "CREATE PROCEDURE procs.twice() SELECT 1",
        "CREATE OR REPLACE PROCEDURE procs.twice() SELECT 2",
        "DROP PROCEDURE procs.gone",
    ] {
        conn.query_drop(sql).expect(sql);
    }
    drop(conn);
    server.kill9();
    server.restart();
    let mut conn = mysql::Conn::new(mysql::Opts::from(manycore_testkit::client::opts(
        server.port(),
        None,
    )))
    .expect("reconnect");
    let (sets, _) = call_sets(
        conn.query_iter("CALL procs.pay(2, 50, @left)")
            .expect("CALL pay"),
    );
    assert_eq!(sets, vec![vec![vec![2, 150]], vec![vec![2]]]);
    let (sets, _) = call_sets(conn.query_iter("CALL procs.twice()").expect("CALL twice"));
    assert_eq!(sets, vec![vec![vec![2]]]);
    let error = conn.query_drop("CALL procs.gone()").expect_err("dropped");
    assert!(
        matches!(&error, mysql::Error::MySqlError(e) if e.code == 1305),
        "{error}"
    );
    let names: Vec<String> = conn
        .query("SELECT ROUTINE_NAME FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'procs' ORDER BY 1")
        .expect("routines");
    assert_eq!(names, ["pay", "twice"]);
}
