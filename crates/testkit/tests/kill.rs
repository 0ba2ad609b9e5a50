//! KILL CONNECTION from another session, against the server under test
//! (`MANYCORE_TEST_TARGET`, so MariaDB checks the test): the victim's connection ends
//! whether it is idle or waiting for a row lock, its open transaction is rolled back and
//! its locks are released, and it leaves the process list.

use manycore_testkit::client::{self, connection_id, process_info};
use manycore_testkit::Server;
use mysql::prelude::Queryable;
use mysql::Conn;
use std::thread;
use std::time::Duration;

/// How long the test waits for the server to show a state change before failing.
const STATE_TIMEOUT: Duration = Duration::from_secs(20);

fn wait_for(what: &str, done: impl FnMut() -> bool) {
    client::wait_for(what, STATE_TIMEOUT, done)
}

fn setup(conn: &mut Conn) {
    conn.query_drop("CREATE DATABASE kill_test")
        .expect("create database");
    conn.query_drop("CREATE TABLE kill_test.accounts (id INT PRIMARY KEY, balance INT NOT NULL)")
        .expect("create table");
    conn.query_drop("INSERT INTO kill_test.accounts VALUES (1, 100), (2, 100)")
        .expect("insert");
}

/// A second connection in a transaction that changed row 2 (and so holds its lock);
/// also its connection id.
fn victim_holding_row_2(port: u16) -> (Conn, u64) {
    let mut victim = client::connect(port);
    let victim_id = connection_id(&mut victim);
    victim.query_drop("BEGIN").expect("begin");
    victim
        .query_drop("UPDATE kill_test.accounts SET balance = 0 WHERE id = 2")
        .expect("victim's update of row 2");
    (victim, victim_id)
}

fn balances(conn: &mut Conn) -> Vec<(i64, i64)> {
    conn.query("SELECT id, balance FROM kill_test.accounts ORDER BY id")
        .expect("balances")
}

#[test]
fn kill_ends_an_idle_connection_and_rolls_back_its_transaction() {
    let server = Server::from_env();
    let port = server.port();
    let mut admin = client::connect(port);
    setup(&mut admin);

    let (mut victim, victim_id) = victim_holding_row_2(port);
    victim
        .query_drop("INSERT INTO kill_test.accounts VALUES (3, 300)")
        .expect("victim's insert");

    admin.query_drop(format!("KILL {victim_id}")).expect("KILL");
    wait_for("the killed connection to leave the process list", || {
        process_info(&mut admin, victim_id).is_none()
    });
    assert!(
        victim.query_drop("SELECT 1").is_err(),
        "a killed connection answers no more statements"
    );

    // Rolled back, and the row lock on id 2 released: this would wait for it otherwise.
    admin
        .query_drop("UPDATE kill_test.accounts SET balance = 150 WHERE id = 2")
        .expect("update the row the victim had locked");
    assert_eq!(balances(&mut admin), vec![(1, 100), (2, 150)]);
    assert!(server.is_alive());
}

#[test]
fn kill_interrupts_a_connection_waiting_for_a_row_lock() {
    let server = Server::from_env();
    let port = server.port();
    let mut holder = client::connect(port);
    setup(&mut holder);

    let (mut victim, victim_id) = victim_holding_row_2(port);
    holder.query_drop("BEGIN").expect("begin");
    holder
        .query_drop("UPDATE kill_test.accounts SET balance = 50 WHERE id = 1")
        .expect("holder locks row 1");

    let blocked = "UPDATE kill_test.accounts SET balance = 0 WHERE id = 1";
    let waiter = thread::spawn(move || {
        let result = victim.query_drop(blocked);
        (result, victim)
    });
    let mut killer = client::connect(port);
    wait_for("the victim to wait for row 1", || {
        process_info(&mut killer, victim_id).flatten().as_deref() == Some(blocked)
    });
    killer
        .query_drop(format!("KILL {victim_id}"))
        .expect("KILL");

    let (result, mut victim) = waiter.join().expect("waiter thread");
    assert!(
        result.is_err(),
        "the waiting statement ends in an error, not after the lock"
    );
    assert!(
        victim.query_drop("SELECT 1").is_err(),
        "the connection is gone"
    );
    wait_for("the killed connection to leave the process list", || {
        process_info(&mut killer, victim_id).is_none()
    });

    // The victim's lock on row 2 is released and its update undone; the holder's
    // transaction is untouched.
    holder
        .query_drop("UPDATE kill_test.accounts SET balance = 60 WHERE id = 2")
        .expect("update the row the victim had locked");
    holder.query_drop("COMMIT").expect("commit");
    assert_eq!(balances(&mut killer), vec![(1, 50), (2, 60)]);
    assert!(server.is_alive());
}
