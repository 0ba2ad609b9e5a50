//! Locking reads through a real driver, two sessions: SELECT ... FOR UPDATE and LOCK IN
//! SHARE MODE wait for a row another transaction holds and then read its committed value
//! (not the waiting transaction's snapshot), so read-modify-write loses no update; a plain
//! read never waits; a row nobody holds is not blocked by a lock on another.

use std::thread;
use std::time::Duration;

use manycore_testkit::client::{connection_id, process_info, wait_for};
use manycore_testkit::Server;
use mysql::prelude::Queryable;

fn setup(conn: &mut mysql::Conn) {
    for sql in [
        "DROP DATABASE IF EXISTS locking",
        "CREATE DATABASE locking",
        "CREATE TABLE locking.acct (id INT PRIMARY KEY, bal INT NOT NULL, k INT, KEY (k))",
        "INSERT INTO locking.acct VALUES (1, 100, 1), (2, 200, 2), (3, 300, 1)",
    ] {
        conn.query_drop(sql).expect(sql);
    }
}

fn balance(conn: &mut mysql::Conn, sql: &str) -> i32 {
    conn.query_first(sql).expect(sql).expect("one row")
}

/// `holder` holds row 1; `reader` runs `locking_sql` in a transaction whose snapshot
/// predates the holder's change: it must wait for the holder's commit and read 110.
fn waits_for_holder_then_reads_latest(server: &Server, locking_sql: &'static str) {
    let mut holder = server.connect();
    setup(&mut holder);
    let mut reader = server.connect();
    reader.query_drop("BEGIN").expect("begin");
    let before = "SELECT bal FROM locking.acct WHERE id = 1";
    assert_eq!(balance(&mut reader, before), 100, "the reader's snapshot");

    holder.query_drop("BEGIN").expect("begin");
    let locked = "SELECT bal FROM locking.acct WHERE id = 1 FOR UPDATE";
    assert_eq!(balance(&mut holder, locked), 100);
    let reader_id = connection_id(&mut reader);
    let waiting = thread::spawn(move || {
        let read = balance(&mut reader, locking_sql);
        reader.query_drop("COMMIT").expect("commit");
        read
    });
    let mut observer = server.connect();
    wait_for("the locking read to start", Duration::from_secs(10), || {
        process_info(&mut observer, reader_id) == Some(Some(locking_sql.to_string()))
    });
    // A plain read does not wait, and sees the last committed value.
    assert_eq!(balance(&mut observer, before), 100);
    holder
        .query_drop("UPDATE locking.acct SET bal = bal + 10 WHERE id = 1")
        .expect("update");
    holder.query_drop("COMMIT").expect("commit");
    assert_eq!(
        waiting.join().expect("reader thread"),
        110,
        "{locking_sql} read the holder's committed value"
    );
}

#[test]
fn for_update_waits_for_the_holder_and_reads_its_commit() {
    let server = Server::from_env();
    waits_for_holder_then_reads_latest(
        &server,
        "SELECT bal FROM locking.acct WHERE id = 1 FOR UPDATE",
    );
}

#[test]
fn lock_in_share_mode_waits_for_a_writer() {
    let server = Server::from_env();
    waits_for_holder_then_reads_latest(
        &server,
        "SELECT bal FROM locking.acct WHERE id = 1 LOCK IN SHARE MODE",
    );
}

#[test]
fn read_modify_write_under_for_update_loses_no_update() {
    let server = Server::from_env();
    setup(&mut server.connect());
    const ROUNDS: i32 = 25;
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let mut conn = server.connect();
            thread::spawn(move || {
                for _ in 0..ROUNDS {
                    conn.query_drop("BEGIN").expect("begin");
                    let bal = balance(
                        &mut conn,
                        "SELECT bal FROM locking.acct WHERE id = 2 FOR UPDATE",
                    );
                    conn.exec_drop("UPDATE locking.acct SET bal = ? WHERE id = 2", (bal + 1,))
                        .expect("update");
                    conn.query_drop("COMMIT").expect("commit");
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().expect("worker");
    }
    let mut conn = server.connect();
    assert_eq!(
        balance(&mut conn, "SELECT bal FROM locking.acct WHERE id = 2"),
        200 + 2 * ROUNDS
    );
}

#[test]
fn a_lock_on_one_row_leaves_the_others_free() {
    let server = Server::from_env();
    let mut holder = server.connect();
    setup(&mut holder);
    holder.query_drop("BEGIN").expect("begin");
    let rows: Vec<i32> = holder
        .query("SELECT bal FROM locking.acct WHERE k = 1 ORDER BY id FOR UPDATE")
        .expect("lock k = 1");
    assert_eq!(rows, [100, 300]);
    let mut other = server.connect();
    other
        .query_drop("SET SESSION innodb_lock_wait_timeout = 1")
        .expect("timeout");
    other.query_drop("BEGIN").expect("begin");
    assert_eq!(
        balance(
            &mut other,
            "SELECT bal FROM locking.acct WHERE id = 2 FOR UPDATE"
        ),
        200
    );
    other
        .query_drop("UPDATE locking.acct SET bal = 0 WHERE id = 2")
        .expect("row 2 is free");
    match other.query_drop("UPDATE locking.acct SET bal = 0 WHERE id = 3") {
        Err(mysql::Error::MySqlError(e)) => assert_eq!(e.code, 1205, "{e}"),
        other => panic!("row 3 is locked: {other:?}"),
    }
    other.query_drop("ROLLBACK").expect("rollback");
    holder.query_drop("COMMIT").expect("commit");
}
