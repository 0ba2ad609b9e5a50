//! Locking reads through a real driver, two sessions: SELECT ... FOR UPDATE and LOCK IN
//! SHARE MODE wait for a row another transaction holds and then read its committed value
//! (not the waiting transaction's snapshot), so read-modify-write loses no update; a plain
//! read never waits; a row nobody holds is not blocked by a lock on another. NOWAIT fails
//! with 1205 instead of waiting, WAIT n waits up to n seconds (past a shorter
//! innodb_lock_wait_timeout) and then fails with 1205, SKIP LOCKED leaves held rows out.
//! ORDER BY ... LIMIT in the scan's order locks only the rows it returns (a job queue hands
//! each worker another job); in autocommit a locking read locks for its statement. A plain
//! read after a locking read still reads the transaction's snapshot.

use std::sync::mpsc;
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

/// How long a statement that must not wait for the holder may take at most: generous, so
/// a slow machine passes, yet far below the waits the tests set up otherwise.
const NO_WAIT_BOUND: Duration = Duration::from_secs(60);

/// `holder` in a transaction holding row 1 (a locking read) and row 3 (an uncommitted
/// UPDATE); `other` in a transaction whose row lock waits would last 1000 s.
fn holder_and_other(server: &Server) -> (mysql::Conn, mysql::Conn) {
    let mut holder = server.connect();
    setup(&mut holder);
    holder.query_drop("BEGIN").expect("begin");
    let locked = "SELECT bal FROM locking.acct WHERE id = 1 FOR UPDATE";
    assert_eq!(balance(&mut holder, locked), 100);
    holder
        .query_drop("UPDATE locking.acct SET bal = 0 WHERE id = 3")
        .expect("update row 3");
    let mut other = server.connect();
    other
        .query_drop("SET SESSION innodb_lock_wait_timeout = 1000")
        .expect("timeout");
    other.query_drop("BEGIN").expect("begin");
    (holder, other)
}

/// The error code of `sql` on `conn`, run on another thread that must finish within
/// `NO_WAIT_BOUND`; the connection comes back for further statements.
fn error_within_bound(mut conn: mysql::Conn, sql: &'static str) -> (u16, mysql::Conn) {
    let (done, finished) = mpsc::channel();
    thread::spawn(move || {
        // Read every row: MariaDB may send rows before the error (query_drop would lose
        // an error that comes after them).
        let code = match conn.query::<mysql::Row, _>(sql) {
            Err(mysql::Error::MySqlError(e)) => Some(e.code),
            _ => None,
        };
        let _ = done.send((code, conn));
    });
    match finished.recv_timeout(NO_WAIT_BOUND) {
        Ok((Some(code), conn)) => (code, conn),
        Ok((None, _)) => panic!("{sql} succeeded on a held row"),
        Err(_) => panic!("{sql} waited for the holder"),
    }
}

fn ids(conn: &mut mysql::Conn, sql: &str) -> Vec<i32> {
    conn.query(sql).expect(sql)
}

#[test]
fn nowait_fails_with_1205_instead_of_waiting() {
    let server = Server::from_env();
    let (mut holder, other) = holder_and_other(&server);
    let (code, other) = error_within_bound(
        other,
        "SELECT bal FROM locking.acct WHERE id = 1 FOR UPDATE NOWAIT",
    );
    assert_eq!(code, 1205);
    let (code, other) = error_within_bound(
        other,
        "SELECT bal FROM locking.acct WHERE id = 1 LOCK IN SHARE MODE NOWAIT",
    );
    assert_eq!(code, 1205);
    // A row held by an uncommitted write, met by a range scan (of the rows, not of a
    // covering index, whose entry of row 3 InnoDB does not see locked).
    let (code, mut other) = error_within_bound(
        other,
        "SELECT bal FROM locking.acct WHERE id > 1 FOR UPDATE NOWAIT",
    );
    assert_eq!(code, 1205);
    // Only the statement failed: the transaction goes on, and a free row locks at once.
    assert_eq!(
        ids(
            &mut other,
            "SELECT bal FROM locking.acct WHERE id = 2 FOR UPDATE NOWAIT"
        ),
        [200]
    );
    other
        .query_drop("UPDATE locking.acct SET bal = 201 WHERE id = 2")
        .expect("row 2 is this transaction's");
    other.query_drop("COMMIT").expect("commit");
    holder.query_drop("ROLLBACK").expect("rollback");
    assert_eq!(
        balance(&mut holder, "SELECT bal FROM locking.acct WHERE id = 2"),
        201
    );
}

#[test]
fn wait_n_gives_up_with_1205_after_n_seconds() {
    let server = Server::from_env();
    let (mut holder, other) = holder_and_other(&server);
    // innodb_lock_wait_timeout is 1000 s: WAIT 1 replaces it.
    let (code, other) = error_within_bound(
        other,
        "SELECT bal FROM locking.acct WHERE id = 1 FOR UPDATE WAIT 1",
    );
    assert_eq!(code, 1205);
    let (code, other) = error_within_bound(
        other,
        "SELECT bal FROM locking.acct WHERE id = 1 LOCK IN SHARE MODE WAIT 0",
    );
    assert_eq!(code, 1205);
    // Only for its statement: a later plain FOR UPDATE waits for the holder's commit.
    let mut other = other;
    let other_id = connection_id(&mut other);
    let waiting = thread::spawn(move || {
        balance(
            &mut other,
            "SELECT bal FROM locking.acct WHERE id = 3 FOR UPDATE",
        )
    });
    let mut observer = server.connect();
    wait_for("the locking read to start", Duration::from_secs(10), || {
        process_info(&mut observer, other_id).is_some_and(|info| info.is_some())
    });
    thread::sleep(Duration::from_secs(2));
    holder.query_drop("COMMIT").expect("commit");
    assert_eq!(waiting.join().expect("reader thread"), 0);
}

#[test]
fn wait_n_waits_for_the_holder_past_a_shorter_lock_wait_timeout() {
    let server = Server::from_env();
    let mut holder = server.connect();
    setup(&mut holder);
    holder.query_drop("BEGIN").expect("begin");
    let locked = "SELECT bal FROM locking.acct WHERE id = 1 FOR UPDATE";
    assert_eq!(balance(&mut holder, locked), 100);
    let mut reader = server.connect();
    reader
        .query_drop("SET SESSION innodb_lock_wait_timeout = 1")
        .expect("timeout");
    reader.query_drop("BEGIN").expect("begin");
    let locking_sql = "SELECT bal FROM locking.acct WHERE id = 1 FOR UPDATE WAIT 1000";
    let reader_id = connection_id(&mut reader);
    let waiting = thread::spawn(move || balance(&mut reader, locking_sql));
    let mut observer = server.connect();
    wait_for("the locking read to start", Duration::from_secs(10), || {
        process_info(&mut observer, reader_id) == Some(Some(locking_sql.to_string()))
    });
    // Longer than innodb_lock_wait_timeout, which WAIT 1000 replaced.
    thread::sleep(Duration::from_secs(3));
    holder
        .query_drop("UPDATE locking.acct SET bal = bal + 10 WHERE id = 1")
        .expect("update");
    holder.query_drop("COMMIT").expect("commit");
    assert_eq!(waiting.join().expect("reader thread"), 110);
}

#[test]
fn skip_locked_leaves_out_the_rows_others_hold() {
    let server = Server::from_env();
    let (mut holder, mut other) = holder_and_other(&server);
    let all = "SELECT id FROM locking.acct ORDER BY id FOR UPDATE SKIP LOCKED";
    assert_eq!(ids(&mut other, all), [2], "row 1 is locked, row 3 written");
    let shared = "SELECT id FROM locking.acct ORDER BY id LOCK IN SHARE MODE SKIP LOCKED";
    assert_eq!(ids(&mut other, shared), [2]);
    let by_key = "SELECT id FROM locking.acct WHERE id = 1 FOR UPDATE SKIP LOCKED";
    assert_eq!(ids(&mut other, by_key), Vec::<i32>::new());
    // A work queue: the first row nobody holds.
    let next = "SELECT id FROM locking.acct WHERE k = 1 ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED";
    assert_eq!(
        ids(&mut other, next),
        Vec::<i32>::new(),
        "rows 1 and 3 are held"
    );
    let next = "SELECT id FROM locking.acct ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED";
    assert_eq!(ids(&mut other, next), [2]);
    // The rows it returned are locked: a third transaction skips them.
    let mut third = server.connect();
    third.query_drop("BEGIN").expect("begin");
    assert_eq!(ids(&mut third, all), Vec::<i32>::new());
    let (code, mut third) = error_within_bound(
        third,
        "SELECT id FROM locking.acct WHERE id = 2 FOR UPDATE NOWAIT",
    );
    assert_eq!(code, 1205);
    third.query_drop("ROLLBACK").expect("rollback");
    // Once the holder ends, its rows are there again.
    holder.query_drop("COMMIT").expect("commit");
    assert_eq!(ids(&mut other, all), [1, 2, 3]);
    other.query_drop("COMMIT").expect("commit");
}

/// A job queue: jobs 2, 3, 5, 6, 7 are new, found through the index (state, id).
fn setup_jobs(conn: &mut mysql::Conn) {
    for sql in [
        "DROP DATABASE IF EXISTS queue",
        "CREATE DATABASE queue",
        "CREATE TABLE queue.jobs (id INT PRIMARY KEY, state VARCHAR(10) NOT NULL, \
         prio INT NOT NULL, KEY (state, id))",
        "INSERT INTO queue.jobs VALUES (1, 'done', 5), (2, 'new', 4), (3, 'new', 3), \
         (4, 'done', 2), (5, 'new', 1), (6, 'new', 0), (7, 'new', 9)",
        // The same rows with no index but the primary key: the filter is checked per row.
        "CREATE TABLE queue.plain (id INT PRIMARY KEY, state VARCHAR(10) NOT NULL, \
         prio INT NOT NULL)",
        "INSERT INTO queue.plain SELECT * FROM queue.jobs",
    ] {
        conn.query_drop(sql).expect(sql);
    }
}

/// Whether `conn`'s transaction can lock row `id` of `table` at once.
fn locks_at_once(conn: mysql::Conn, table: &str, id: i32) -> (bool, mysql::Conn) {
    let (done, finished) = mpsc::channel();
    let sql = format!("SELECT id FROM queue.{table} WHERE id = {id} FOR UPDATE NOWAIT");
    thread::spawn(move || {
        let mut conn = conn;
        let outcome = match conn.query::<i32, _>(&sql) {
            Ok(rows) => {
                assert_eq!(rows, [id], "{sql}");
                true
            }
            Err(mysql::Error::MySqlError(e)) if e.code == 1205 => false,
            Err(e) => panic!("{sql}: {e}"),
        };
        let _ = done.send((outcome, conn));
    });
    finished
        .recv_timeout(NO_WAIT_BOUND)
        .expect("NOWAIT does not wait")
}

const NEXT_JOB: &str = "SELECT id FROM queue.jobs WHERE state = 'new' ORDER BY id LIMIT 1 \
                        FOR UPDATE SKIP LOCKED";

#[test]
fn queue_workers_each_take_a_different_job() {
    let server = Server::from_env();
    let mut first = server.connect();
    setup_jobs(&mut first);
    let mut second = server.connect();
    first.query_drop("BEGIN").expect("begin");
    second.query_drop("BEGIN").expect("begin");
    assert_eq!(ids(&mut first, NEXT_JOB), [2]);
    assert_eq!(
        ids(&mut second, NEXT_JOB),
        [3],
        "job 2 is the first worker's"
    );
    let two = "SELECT id FROM queue.jobs WHERE state = 'new' ORDER BY id LIMIT 2 \
               FOR UPDATE SKIP LOCKED";
    let mut third = server.connect();
    third.query_drop("BEGIN").expect("begin");
    assert_eq!(
        ids(&mut third, two),
        [5, 6],
        "held jobs do not count toward the limit"
    );
    // A worker marks its job taken and commits: the others never see it new again.
    second
        .query_drop("UPDATE queue.jobs SET state = 'running' WHERE id = 3")
        .expect("take job 3");
    second.query_drop("COMMIT").expect("commit");
    third.query_drop("ROLLBACK").expect("rollback");
    second.query_drop("BEGIN").expect("begin");
    assert_eq!(ids(&mut second, NEXT_JOB), [5]);
    second.query_drop("ROLLBACK").expect("rollback");
    first.query_drop("ROLLBACK").expect("rollback");
}

#[test]
fn rows_past_the_limit_stay_free_when_read_in_the_index_order() {
    let server = Server::from_env();
    let mut holder = server.connect();
    setup_jobs(&mut holder);
    let mut other = server.connect();
    other.query_drop("BEGIN").expect("begin");
    holder.query_drop("BEGIN").expect("begin");
    for (sql, table, locked, free) in [
        // Through the index (state, id), whose order within one state is id's.
        (
            "SELECT id FROM queue.jobs WHERE state = 'new' ORDER BY id LIMIT 1 FOR UPDATE",
            "jobs",
            vec![2],
            vec![3, 5, 7],
        ),
        // No ORDER BY: the first rows the scan reads.
        (
            "SELECT id FROM queue.jobs WHERE state = 'new' LIMIT 1 FOR UPDATE",
            "jobs",
            vec![2],
            vec![3, 6],
        ),
        // The rows OFFSET passes over are read, so locked.
        (
            "SELECT id FROM queue.jobs WHERE state = 'new' ORDER BY id LIMIT 1 OFFSET 1 \
             FOR UPDATE",
            "jobs",
            vec![2, 3],
            vec![5, 7],
        ),
        // The primary key's order, the filter checked per row.
        (
            "SELECT id FROM queue.plain WHERE state = 'new' ORDER BY id LIMIT 1 FOR UPDATE",
            "plain",
            vec![2],
            vec![3, 6],
        ),
        // Sorted on a column no index orders by: every row read is locked.
        (
            "SELECT id FROM queue.jobs WHERE state = 'new' ORDER BY prio LIMIT 1 FOR UPDATE",
            "jobs",
            vec![2, 3, 5, 6, 7],
            vec![],
        ),
    ] {
        let returned = ids(&mut holder, sql);
        assert_eq!(returned.len(), 1, "{sql}");
        for id in locked {
            let (at_once, conn) = locks_at_once(other, table, id);
            other = conn;
            assert!(!at_once, "{sql} locked row {id}");
        }
        for id in free {
            let (at_once, conn) = locks_at_once(other, table, id);
            other = conn;
            assert!(at_once, "{sql} left row {id} free");
        }
        holder.query_drop("ROLLBACK").expect("rollback");
        other.query_drop("ROLLBACK").expect("rollback");
        holder.query_drop("BEGIN").expect("begin");
        other.query_drop("BEGIN").expect("begin");
    }
}

/// In autocommit a locking read locks for its statement: a held row is 1205 with NOWAIT,
/// left out with SKIP LOCKED, and waited for otherwise; its own locks end with it.
#[test]
fn locking_reads_in_autocommit_meet_held_rows() {
    let server = Server::from_env();
    let mut holder = server.connect();
    setup_jobs(&mut holder);
    holder.query_drop("BEGIN").expect("begin");
    assert_eq!(ids(&mut holder, NEXT_JOB), [2]);
    let other = server.connect();
    let (code, mut other) = error_within_bound(
        other,
        "SELECT id FROM queue.jobs WHERE id = 2 FOR UPDATE NOWAIT",
    );
    assert_eq!(code, 1205);
    assert_eq!(ids(&mut other, NEXT_JOB), [3], "job 2 is held");
    // Its lock on job 3 ended with the statement: the holder takes it at once.
    let (at_once, mut holder) = locks_at_once(holder, "jobs", 3);
    assert!(at_once, "an autocommit locking read keeps no lock");
    holder.query_drop("ROLLBACK").expect("rollback");
    holder.query_drop("BEGIN").expect("begin");
    assert_eq!(ids(&mut holder, NEXT_JOB), [2]);

    // A plain FOR UPDATE waits for the holder and reads its commit.
    let waiting_sql = "SELECT state FROM queue.jobs WHERE id = 2 FOR UPDATE";
    let other_id = connection_id(&mut other);
    let waiting = thread::spawn(move || {
        let state: String = other
            .query_first(waiting_sql)
            .expect(waiting_sql)
            .expect("row");
        state
    });
    let mut observer = server.connect();
    wait_for("the locking read to start", Duration::from_secs(10), || {
        process_info(&mut observer, other_id) == Some(Some(waiting_sql.to_string()))
    });
    holder
        .query_drop("UPDATE queue.jobs SET state = 'running' WHERE id = 2")
        .expect("take job 2");
    holder.query_drop("COMMIT").expect("commit");
    assert_eq!(waiting.join().expect("waiting thread"), "running");
}

/// Orders and their customers; order 12's customer 9 does not exist.
fn setup_orders(conn: &mut mysql::Conn) {
    for sql in [
        "DROP DATABASE IF EXISTS joins",
        "CREATE DATABASE joins",
        "CREATE TABLE joins.customers (id INT PRIMARY KEY, name VARCHAR(10) NOT NULL)",
        "INSERT INTO joins.customers VALUES (1, 'c1'), (2, 'c2'), (3, 'c3')",
        "CREATE TABLE joins.orders (id INT PRIMARY KEY, cid INT NOT NULL, KEY (cid))",
        "INSERT INTO joins.orders VALUES (10, 1), (11, 2), (12, 9), (13, 3)",
    ] {
        conn.query_drop(sql).expect(sql);
    }
}

/// `holder` in a transaction holding customer 1 (an uncommitted UPDATE), and another
/// session in autocommit.
fn holder_of_customer_1(server: &Server) -> (mysql::Conn, mysql::Conn) {
    let mut holder = server.connect();
    setup_orders(&mut holder);
    holder.query_drop("BEGIN").expect("begin");
    holder
        .query_drop("UPDATE joins.customers SET name = 'held' WHERE id = 1")
        .expect("hold customer 1");
    let mut other = server.connect();
    other
        .query_drop("SET SESSION innodb_lock_wait_timeout = 1000")
        .expect("timeout");
    (holder, other)
}

fn names(conn: &mut mysql::Conn, sql: &str) -> Vec<(i32, Option<String>)> {
    conn.query(sql).expect(sql)
}

#[test]
fn a_join_for_update_meets_a_held_row_of_its_second_table() {
    let server = Server::from_env();
    let (mut holder, other) = holder_of_customer_1(&server);
    // In autocommit, then in a transaction; order 10 itself is free.
    let (code, mut other) = error_within_bound(
        other,
        "SELECT o.id, c.name FROM joins.orders o JOIN joins.customers c ON c.id = o.cid \
         WHERE o.id = 10 FOR UPDATE NOWAIT",
    );
    assert_eq!(code, 1205);
    other.query_drop("BEGIN").expect("begin");
    let (code, mut other) = error_within_bound(
        other,
        "SELECT o.id, c.name FROM joins.orders o, joins.customers c \
         WHERE c.id = o.cid AND o.id = 10 LOCK IN SHARE MODE NOWAIT",
    );
    assert_eq!(code, 1205);
    let free = "SELECT o.id, c.name FROM joins.orders o JOIN joins.customers c \
                ON c.id = o.cid WHERE o.id = 11 FOR UPDATE NOWAIT";
    assert_eq!(names(&mut other, free), [(11, Some("c2".to_string()))]);
    // Without NOWAIT it waits for the holder, then reads the holder's commit.
    // Short enough for SHOW PROCESSLIST's Info, which keeps 100 characters.
    other.query_drop("USE joins").expect("use");
    let waiting_sql =
        "SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.cid WHERE o.id = 10 FOR UPDATE";
    let other_id = connection_id(&mut other);
    let waiting = thread::spawn(move || {
        let read = names(&mut other, waiting_sql);
        other.query_drop("COMMIT").expect("commit");
        read
    });
    let mut observer = server.connect();
    wait_for("the locking read to start", Duration::from_secs(10), || {
        process_info(&mut observer, other_id) == Some(Some(waiting_sql.to_string()))
    });
    holder.query_drop("COMMIT").expect("commit");
    assert_eq!(
        waiting.join().expect("reader thread"),
        [(10, Some("held".to_string()))]
    );
}

/// Whether `sql` (a write) fails on `conn` with 1205 after its short lock wait timeout;
/// else it succeeded.
fn write_waits(conn: mysql::Conn, sql: &'static str) -> (bool, mysql::Conn) {
    let (done, finished) = mpsc::channel();
    thread::spawn(move || {
        let mut conn = conn;
        let waited = match conn.query_drop(sql) {
            Ok(()) => false,
            Err(mysql::Error::MySqlError(e)) if e.code == 1205 => true,
            Err(e) => panic!("{sql}: {e}"),
        };
        let _ = done.send((waited, conn));
    });
    finished
        .recv_timeout(NO_WAIT_BOUND)
        .expect("the lock wait timeout ends the wait")
}

#[test]
fn a_join_for_update_locks_its_rows_in_every_table() {
    let server = Server::from_env();
    let mut holder = server.connect();
    setup_orders(&mut holder);
    let mut other = server.connect();
    other
        .query_drop("SET SESSION innodb_lock_wait_timeout = 1")
        .expect("timeout");
    for (sql, locked, free) in [
        (
            "SELECT o.id, c.name FROM joins.orders o JOIN joins.customers c ON c.id = o.cid \
             WHERE o.id = 10 FOR UPDATE",
            [
                "UPDATE joins.orders SET cid = cid + 100 WHERE id = 10",
                "UPDATE joins.customers SET name = 'x' WHERE id = 1",
            ],
            [
                "UPDATE joins.orders SET cid = cid + 100 WHERE id = 11",
                "UPDATE joins.customers SET name = 'x' WHERE id = 2",
            ],
        ),
        (
            "SELECT o.id, c.name FROM joins.customers c, joins.orders o \
             WHERE c.id = o.cid AND o.id = 11 LOCK IN SHARE MODE",
            [
                "UPDATE joins.orders SET cid = cid + 100 WHERE id = 11",
                "UPDATE joins.customers SET name = 'x' WHERE id = 2",
            ],
            [
                "UPDATE joins.orders SET cid = cid + 100 WHERE id = 10",
                "UPDATE joins.customers SET name = 'x' WHERE id = 1",
            ],
        ),
        // The preserved row of a LEFT JOIN that found no customer.
        (
            "SELECT o.id, c.name FROM joins.orders o LEFT JOIN joins.customers c \
             ON c.id = o.cid WHERE o.id = 12 FOR UPDATE",
            [
                "UPDATE joins.orders SET cid = cid + 100 WHERE id = 12",
                "DELETE FROM joins.orders WHERE id = 12",
            ],
            [
                "UPDATE joins.orders SET cid = cid + 100 WHERE id = 11",
                "UPDATE joins.customers SET name = 'x' WHERE id = 3",
            ],
        ),
        // RIGHT JOIN: the customer is the preserved side.
        (
            "SELECT o.id, c.name FROM joins.orders o RIGHT JOIN joins.customers c \
             ON c.id = o.cid WHERE c.id = 3 FOR UPDATE",
            [
                "UPDATE joins.orders SET cid = cid + 100 WHERE id = 13",
                "UPDATE joins.customers SET name = 'x' WHERE id = 3",
            ],
            [
                "UPDATE joins.orders SET cid = cid + 100 WHERE id = 11",
                "UPDATE joins.customers SET name = 'x' WHERE id = 2",
            ],
        ),
    ] {
        holder.query_drop("BEGIN").expect("begin");
        assert_eq!(names(&mut holder, sql).len(), 1, "{sql}");
        other.query_drop("BEGIN").expect("begin");
        for write in locked {
            let (waited, conn) = write_waits(other, write);
            other = conn;
            assert!(waited, "{sql} locked the row of {write}");
        }
        for write in free {
            let (waited, conn) = write_waits(other, write);
            other = conn;
            assert!(!waited, "{sql} left the row of {write} free");
        }
        other.query_drop("ROLLBACK").expect("rollback");
        holder.query_drop("ROLLBACK").expect("rollback");
    }
    // A READ ONLY transaction refuses FOR UPDATE over a join, as over one table.
    holder
        .query_drop("START TRANSACTION READ ONLY")
        .expect("read only");
    let sql = "SELECT o.id FROM joins.orders o JOIN joins.customers c ON c.id = o.cid \
               FOR UPDATE";
    match holder.query_drop(sql) {
        Err(mysql::Error::MySqlError(e)) => assert_eq!(e.code, 1792, "{e}"),
        other => panic!("{sql}: {other:?}"),
    }
    holder.query_drop("ROLLBACK").expect("rollback");
}

#[test]
fn skip_locked_over_a_join_leaves_out_the_joined_rows_of_held_rows() {
    let server = Server::from_env();
    let (mut holder, mut other) = holder_of_customer_1(&server);
    let held = "SELECT id FROM joins.orders WHERE id = 13 FOR UPDATE";
    assert_eq!(ids(&mut holder, held), [13]);
    other.query_drop("BEGIN").expect("begin");
    let c2 = Some("c2".to_string());
    let inner = "SELECT o.id, c.name FROM joins.orders o JOIN joins.customers c \
                 ON c.id = o.cid ORDER BY o.id FOR UPDATE SKIP LOCKED";
    assert_eq!(names(&mut other, inner), [(11, c2.clone())]);
    let comma = "SELECT o.id, c.name FROM joins.customers c, joins.orders o \
                 WHERE c.id = o.cid ORDER BY o.id FOR UPDATE SKIP LOCKED";
    assert_eq!(names(&mut other, comma), [(11, c2.clone())]);
    // A held customer leaves its order NULL-extended; a held order leaves it out.
    let left = "SELECT o.id, c.name FROM joins.orders o LEFT JOIN joins.customers c \
                ON c.id = o.cid ORDER BY o.id FOR UPDATE SKIP LOCKED";
    assert_eq!(
        names(&mut other, left),
        [(10, None), (11, c2.clone()), (12, None)]
    );
    // What it returned is locked: a third transaction's writes wait.
    let mut third = server.connect();
    third
        .query_drop("SET SESSION innodb_lock_wait_timeout = 1")
        .expect("timeout");
    third.query_drop("BEGIN").expect("begin");
    for write in [
        "UPDATE joins.orders SET cid = cid + 100 WHERE id = 10",
        "UPDATE joins.orders SET cid = cid + 100 WHERE id = 12",
        "UPDATE joins.customers SET name = 'x' WHERE id = 2",
    ] {
        let (waited, conn) = write_waits(third, write);
        third = conn;
        assert!(waited, "the row of {write} is locked");
    }
    third.query_drop("ROLLBACK").expect("rollback");
    // Once the holder ends, its rows are there again.
    holder.query_drop("COMMIT").expect("commit");
    assert_eq!(
        names(&mut other, inner),
        [
            (10, Some("held".to_string())),
            (11, c2),
            (13, Some("c3".to_string()))
        ]
    );
    other.query_drop("COMMIT").expect("commit");
}

/// An UPDATE locks every row it matches, also one it leaves as it was (InnoDB's rule):
/// another transaction's write of that row waits, and a row it did not match stays free.
#[test]
fn an_update_that_changes_nothing_still_locks_its_row() {
    let server = Server::from_env();
    let mut holder = server.connect();
    setup(&mut holder);
    setup_orders(&mut holder);
    let mut other = server.connect();
    other
        .query_drop("SET SESSION innodb_lock_wait_timeout = 1")
        .expect("timeout");
    for (unchanged, locked, free) in [
        (
            "UPDATE locking.acct SET bal = 100 WHERE id = 1",
            "UPDATE locking.acct SET bal = 5 WHERE id = 1",
            "UPDATE locking.acct SET bal = 5 WHERE id = 2",
        ),
        (
            "UPDATE joins.orders o JOIN joins.customers c ON c.id = o.cid \
             SET o.cid = o.cid WHERE o.id = 10",
            "UPDATE joins.orders SET cid = cid + 100 WHERE id = 10",
            "UPDATE joins.orders SET cid = cid + 100 WHERE id = 11",
        ),
    ] {
        holder.query_drop("BEGIN").expect("begin");
        holder.query_drop(unchanged).expect(unchanged);
        assert_eq!(holder.affected_rows(), 0, "{unchanged} changes nothing");
        other.query_drop("BEGIN").expect("begin");
        let (waited, back) = write_waits(other, locked);
        assert!(waited, "{locked} waits for the row {unchanged} matched");
        other = back;
        let (waited, back) = write_waits(other, free);
        assert!(!waited, "{free} is not held");
        other = back;
        other.query_drop("ROLLBACK").expect("rollback");
        holder.query_drop("COMMIT").expect("commit");
    }
}

/// A locking read reads the latest row, but it does not move the transaction's snapshot:
/// a plain read after it still sees the row as of the snapshot, as InnoDB's does.
#[test]
fn a_plain_read_after_a_locking_read_keeps_the_snapshot() {
    let server = Server::from_env();
    let mut reader = server.connect();
    setup(&mut reader);
    let mut writer = server.connect();
    let plain = "SELECT bal FROM locking.acct WHERE id = 1";
    reader.query_drop("BEGIN").expect("begin");
    assert_eq!(balance(&mut reader, plain), 100, "the snapshot is taken");
    writer
        .query_drop("UPDATE locking.acct SET bal = 110 WHERE id = 1")
        .expect("update in autocommit");
    let locking = "SELECT bal FROM locking.acct WHERE id = 1 FOR UPDATE";
    assert_eq!(
        balance(&mut reader, locking),
        110,
        "a locking read reads the latest row"
    );
    assert_eq!(
        balance(&mut reader, plain),
        100,
        "a plain read keeps the snapshot"
    );
    reader.query_drop("COMMIT").expect("commit");
    assert_eq!(balance(&mut reader, plain), 110);
}
