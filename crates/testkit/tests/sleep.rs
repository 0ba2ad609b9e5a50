//! SLEEP(), lock waits and user locks (GET_LOCK) through a real driver. A sleeping
//! statement must not hold up the worker thread its connection runs on (ARCHITECTURE
//! invariant (4)); KILL QUERY ends a sleep, a row-lock wait or DDL's wait for a table with
//! 1317 while the connection and its transaction stay, and a GET_LOCK wait with NULL. The
//! tests that do not need one worker run against the server under test
//! (`MANYCORE_TEST_TARGET`, so MariaDB checks them); the worker test is manycore's own.

use manycore_testkit::client::{self, connection_id, process_info};
use manycore_testkit::manycore::ManycoreServer;
use manycore_testkit::{Server, Target};
use mysql::prelude::Queryable;
use mysql::Conn;
use std::thread;
use std::time::Duration;

/// How long the test waits for the server to show a state change before failing.
const STATE_TIMEOUT: Duration = Duration::from_secs(20);

/// The statement connection `id` runs, as SHOW PROCESSLIST shows it.
fn running(conn: &mut Conn, id: u64) -> Option<String> {
    process_info(conn, id).flatten()
}

fn wait_until_running(conn: &mut Conn, id: u64, statement: &str) {
    client::wait_for(statement, STATE_TIMEOUT, || {
        running(conn, id).as_deref() == Some(statement)
    });
}

/// SHOW PROCESSLIST's State of connection `id`.
fn state_of(conn: &mut Conn, id: u64) -> Option<String> {
    client::process_column(conn, id, "State").flatten()
}

/// Waits until SHOW PROCESSLIST shows connection `id` in `state`.
fn wait_until_state(conn: &mut Conn, id: u64, state: &str) {
    client::wait_for(state, STATE_TIMEOUT, || {
        state_of(conn, id).as_deref() == Some(state)
    });
}

/// Runs `statement` on `conn` in a thread; its result comes back with the connection.
fn start(
    mut conn: Conn,
    statement: &'static str,
) -> thread::JoinHandle<(mysql::Result<Vec<mysql::Row>>, Conn)> {
    thread::spawn(move || (conn.query(statement), conn))
}

fn error_code(result: &mysql::Result<Vec<mysql::Row>>) -> Option<u16> {
    match result {
        Err(mysql::Error::MySqlError(e)) => Some(e.code),
        _ => None,
    }
}

#[test]
fn a_sleeping_connection_does_not_hold_up_its_worker() {
    // One worker: every connection shares the thread the sleeper runs on.
    let server = ManycoreServer::start_with(&["--workers", "1"]);
    let port = server.port();
    let mut sleeper = client::connect(port);
    let sleeper_id = connection_id(&mut sleeper);
    let statement = "SELECT SLEEP(60)";
    let sleeping = start(sleeper, statement);
    let mut other = client::connect(port);
    wait_until_running(&mut other, sleeper_id, statement);

    other
        .query_drop("CREATE DATABASE sleep_test")
        .expect("create database");
    for i in 0..20 {
        let one: Option<i64> = other.query_first(format!("SELECT {i}")).expect("select");
        assert_eq!(one, Some(i));
    }
    assert_eq!(
        running(&mut other, sleeper_id).as_deref(),
        Some(statement),
        "the other connection was answered while the sleeper still slept"
    );

    other
        .query_drop(format!("KILL QUERY {sleeper_id}"))
        .expect("KILL QUERY");
    let (result, _) = sleeping.join().expect("sleeper thread");
    assert_eq!(error_code(&result), Some(1317), "{result:?}");
}

#[test]
fn kill_query_ends_a_sleep_and_the_connection_stays() {
    let server = Server::from_env();
    let port = server.port();
    let mut sleeper = client::connect(port);
    let sleeper_id = connection_id(&mut sleeper);
    sleeper.query_drop("SET @before = 1").expect("set");
    let statement = "SELECT 1, SLEEP(60)";
    let sleeping = start(sleeper, statement);
    let mut killer = client::connect(port);
    wait_until_running(&mut killer, sleeper_id, statement);
    wait_until_state(&mut killer, sleeper_id, "User sleep");
    killer
        .query_drop(format!("KILL QUERY {sleeper_id}"))
        .expect("KILL QUERY");

    let (result, mut sleeper) = sleeping.join().expect("sleeper thread");
    assert_eq!(error_code(&result), Some(1317), "{result:?}");
    let before: Option<i64> = sleeper
        .query_first("SELECT @before")
        .expect("the connection answers after its query was killed");
    assert_eq!(before, Some(1));
    // MariaDB clears the process list's Info just after it sends the error.
    client::wait_for(
        "the killed statement to leave the list",
        STATE_TIMEOUT,
        || running(&mut killer, sleeper_id).is_none(),
    );
    assert!(server.is_alive());
}

#[test]
fn kill_query_ends_a_row_lock_wait_and_the_transaction_stays() {
    let server = Server::from_env();
    let port = server.port();
    let mut holder = client::connect(port);
    holder
        .query_drop("CREATE DATABASE kill_query_test")
        .expect("create database");
    holder
        .query_drop("CREATE TABLE kill_query_test.t (id INT PRIMARY KEY, v INT NOT NULL)")
        .expect("create table");
    holder
        .query_drop("INSERT INTO kill_query_test.t VALUES (1, 10), (2, 20)")
        .expect("insert");
    holder.query_drop("BEGIN").expect("begin");
    holder
        .query_drop("UPDATE kill_query_test.t SET v = 11 WHERE id = 1")
        .expect("holder locks row 1");

    let mut waiter = client::connect(port);
    let waiter_id = connection_id(&mut waiter);
    waiter.query_drop("BEGIN").expect("begin");
    waiter
        .query_drop("UPDATE kill_query_test.t SET v = 21 WHERE id = 2")
        .expect("waiter locks row 2");
    let statement = "UPDATE kill_query_test.t SET v = 0 WHERE id = 1";
    let waiting = start(waiter, statement);
    let mut killer = client::connect(port);
    wait_until_running(&mut killer, waiter_id, statement);
    killer
        .query_drop(format!("KILL QUERY {waiter_id}"))
        .expect("KILL QUERY");

    let (result, mut waiter) = waiting.join().expect("waiter thread");
    assert_eq!(error_code(&result), Some(1317), "{result:?}");
    // The transaction is open with its first change, which it commits.
    waiter.query_drop("COMMIT").expect("commit");
    holder.query_drop("COMMIT").expect("commit");
    let rows: Vec<(i64, i64)> = killer
        .query("SELECT id, v FROM kill_query_test.t ORDER BY id")
        .expect("select");
    assert_eq!(rows, vec![(1, 11), (2, 21)]);
}

/// DDL that would rebuild or rename a table another transaction holds rows of waits for
/// that transaction (MariaDB: for the table's metadata lock), shown as such in the process
/// list; it runs once the holder ends, fails with 1205 after lock_wait_timeout, and KILL
/// QUERY ends its wait with 1317.
#[test]
fn ddl_waits_for_the_transaction_holding_rows_of_its_table() {
    const WAITING: &str = "Waiting for table metadata lock";
    let server = Server::from_env();
    let port = server.port();
    let mut holder = client::connect(port);
    holder
        .query_drop("CREATE DATABASE ddl_wait_test")
        .expect("create database");
    holder
        .query_drop("CREATE TABLE ddl_wait_test.t (id INT PRIMARY KEY, v INT NOT NULL)")
        .expect("create table");
    holder
        .query_drop("INSERT INTO ddl_wait_test.t VALUES (1, 10), (2, 20)")
        .expect("insert");
    holder.query_drop("BEGIN").expect("begin");
    holder
        .query_drop("UPDATE ddl_wait_test.t SET v = 11 WHERE id = 1")
        .expect("holder writes row 1");

    // Waits, then runs once the holder commits: the committed change is converted.
    let mut altering = client::connect(port);
    let altering_id = connection_id(&mut altering);
    let alter = "ALTER TABLE ddl_wait_test.t MODIFY v BIGINT NOT NULL, ADD w INT DEFAULT 5";
    let waiting = start(altering, alter);
    let mut observer = client::connect(port);
    wait_until_state(&mut observer, altering_id, WAITING);
    holder.query_drop("COMMIT").expect("commit");
    let (result, mut altering) = waiting.join().expect("ALTER thread");
    result.expect("the ALTER runs once the holder committed");
    let rows: Vec<(i64, i64, i64)> = observer
        .query("SELECT id, v, w FROM ddl_wait_test.t ORDER BY id")
        .expect("select");
    assert_eq!(rows, vec![(1, 11, 5), (2, 20, 5)]);

    // Past lock_wait_timeout: 1205, and nothing renamed.
    holder.query_drop("BEGIN").expect("begin");
    holder
        .query_drop("DELETE FROM ddl_wait_test.t WHERE id = 2")
        .expect("holder deletes row 2");
    altering
        .query_drop("SET SESSION lock_wait_timeout = 1")
        .expect("set");
    let renamed = altering.query_drop("RENAME TABLE ddl_wait_test.t TO ddl_wait_test.t2");
    match renamed {
        Err(mysql::Error::MySqlError(e)) => assert_eq!(e.code, 1205, "{e:?}"),
        other => panic!("RENAME while rows are held: expected 1205, got {other:?}"),
    }

    // KILL QUERY ends the wait; the holder's transaction is untouched.
    altering
        .query_drop("SET SESSION lock_wait_timeout = 60")
        .expect("set");
    let waiting = start(altering, "RENAME TABLE ddl_wait_test.t TO ddl_wait_test.t2");
    wait_until_state(&mut observer, altering_id, WAITING);
    observer
        .query_drop(format!("KILL QUERY {altering_id}"))
        .expect("KILL QUERY");
    let (result, _) = waiting.join().expect("RENAME thread");
    assert_eq!(error_code(&result), Some(1317), "{result:?}");
    holder.query_drop("COMMIT").expect("commit");
    let ids: Vec<i64> = observer
        .query("SELECT id FROM ddl_wait_test.t ORDER BY id")
        .expect("the table kept its name");
    assert_eq!(ids, vec![1]);
    observer
        .query_drop("DROP DATABASE ddl_wait_test")
        .expect("drop database");
}

/// The one value of a one-row, one-column result.
fn only_value(result: mysql::Result<Vec<mysql::Row>>) -> Option<i64> {
    let rows = result.expect("the statement succeeds");
    assert_eq!(rows.len(), 1, "one row");
    rows[0].get::<Option<i64>, _>(0).expect("one column")
}

#[test]
fn get_lock_waits_for_the_holder_and_answers_1_0_null_or_1213() {
    const WAITING: &str = "User lock";
    let server = Server::from_env();
    let port = server.port();
    let mut holder = client::connect(port);
    let holder_id = connection_id(&mut holder);
    let mut observer = client::connect(port);
    let mut waiter = client::connect(port);
    let waiter_id = connection_id(&mut waiter);
    let held: Option<i64> = holder
        .query_first("SELECT GET_LOCK('ul', 0)")
        .expect("take");
    assert_eq!(held, Some(1));

    // Waits, then takes the lock once the holder releases it. The statement's other
    // lock, taken before the wait, is taken once (RELEASE_ALL_LOCKS counts 2).
    let waiting = start(waiter, "SELECT GET_LOCK('other', 0) + GET_LOCK('ul', 30)");
    wait_until_state(&mut observer, waiter_id, WAITING);
    let used: Option<i64> = observer
        .query_first("SELECT IS_USED_LOCK('ul')")
        .expect("used");
    assert_eq!(used, Some(holder_id as i64));
    let released: Option<i64> = holder
        .query_first("SELECT RELEASE_LOCK('ul')")
        .expect("release");
    assert_eq!(released, Some(1));
    let (result, mut waiter) = waiting.join().expect("GET_LOCK thread");
    assert_eq!(only_value(result), Some(2));
    let used: Option<i64> = observer
        .query_first("SELECT IS_USED_LOCK('ul')")
        .expect("used");
    assert_eq!(used, Some(waiter_id as i64));
    let count: Option<i64> = waiter
        .query_first("SELECT RELEASE_ALL_LOCKS()")
        .expect("all");
    assert_eq!(count, Some(2));

    // Past its timeout the call answers 0.
    let held: Option<i64> = holder
        .query_first("SELECT GET_LOCK('ul', 0)")
        .expect("take");
    assert_eq!(held, Some(1));
    let timed_out: Option<i64> = waiter
        .query_first("SELECT GET_LOCK('ul', 0.2)")
        .expect("wait");
    assert_eq!(timed_out, Some(0));

    // KILL QUERY ends the wait: the call answers NULL and the statement succeeds.
    let waiting = start(waiter, "SELECT GET_LOCK('ul', 60)");
    wait_until_state(&mut observer, waiter_id, WAITING);
    observer
        .query_drop(format!("KILL QUERY {waiter_id}"))
        .expect("KILL QUERY");
    let (result, mut waiter) = waiting.join().expect("GET_LOCK thread");
    assert_eq!(only_value(result), None);

    // A connection's end releases its locks.
    let held: Option<i64> = waiter
        .query_first("SELECT GET_LOCK('second', 0)")
        .expect("take");
    assert_eq!(held, Some(1));
    let waiting = start(holder, "SELECT GET_LOCK('second', 60)");
    wait_until_state(&mut observer, holder_id, WAITING);
    // A wait that closes a cycle is 1213 for the connection that would close it; its
    // transaction and locks stay. Only manycore's half: MariaDB's deadlock detector picks
    // its victim by weight, and runs of this test against it saw either side get 1213 or
    // both waits answer 0.
    waiter
        .query_drop("CREATE DATABASE user_lock_test")
        .expect("create database");
    waiter
        .query_drop("CREATE TABLE user_lock_test.t (id INT PRIMARY KEY)")
        .expect("create table");
    if matches!(server.target(), Target::Manycore) {
        waiter.query_drop("BEGIN").expect("begin");
        waiter
            .query_drop("INSERT INTO user_lock_test.t VALUES (1)")
            .expect("insert");
        let deadlock = waiter.query_drop("SELECT GET_LOCK('ul', 60)");
        match deadlock {
            Err(mysql::Error::MySqlError(e)) => assert_eq!(e.code, 1213, "{e:?}"),
            other => panic!("a wait in a cycle: expected 1213, got {other:?}"),
        }
        let (in_transaction, rows): (i64, i64) = waiter
            .query_first("SELECT @@in_transaction, (SELECT COUNT(*) FROM user_lock_test.t)")
            .expect("select")
            .expect("a row");
        assert_eq!((in_transaction, rows), (1, 1));
        let own: Option<i64> = waiter
            .query_first("SELECT IS_USED_LOCK('second')")
            .expect("used");
        assert_eq!(own, Some(waiter_id as i64));
        waiter.query_drop("ROLLBACK").expect("rollback");
    }
    drop(waiter);
    let (result, mut holder) = waiting.join().expect("GET_LOCK thread");
    assert_eq!(only_value(result), Some(1));
    let count: Option<i64> = holder
        .query_first("SELECT RELEASE_ALL_LOCKS()")
        .expect("all");
    assert_eq!(count, Some(2), "'ul' and 'second'");
    observer
        .query_drop("DROP DATABASE user_lock_test")
        .expect("drop database");
}

/// DROP TABLE, TRUNCATE and DROP DATABASE on a table another transaction holds rows of
/// wait for that transaction (MariaDB: for the table's metadata lock), shown as such in
/// the process list, and run once it ends; a DROP of several tables drops none before it
/// waits; TRUNCATE fails with 1205 after lock_wait_timeout and leaves the rows.
#[test]
fn drop_and_truncate_wait_for_the_transaction_holding_rows_of_their_table() {
    const WAITING: &str = "Waiting for table metadata lock";
    let server = Server::from_env();
    let port = server.port();
    let mut holder = client::connect(port);
    for sql in [
        "CREATE DATABASE drop_wait_test",
        "CREATE TABLE drop_wait_test.a (id INT PRIMARY KEY)",
        "CREATE TABLE drop_wait_test.b (id INT PRIMARY KEY)",
        "CREATE TABLE drop_wait_test.c (id INT PRIMARY KEY)",
        "INSERT INTO drop_wait_test.b VALUES (1)",
        "INSERT INTO drop_wait_test.c VALUES (1)",
    ] {
        holder.query_drop(sql).expect(sql);
    }
    let tables = |conn: &mut Conn| -> Vec<String> {
        conn.query("SHOW TABLES FROM drop_wait_test")
            .expect("show tables")
    };
    holder.query_drop("BEGIN").expect("begin");
    holder
        .query_drop("UPDATE drop_wait_test.b SET id = 2")
        .expect("holder writes b");

    // Waits with `a` still there, then drops both once the holder commits.
    let mut dropping = client::connect(port);
    let dropping_id = connection_id(&mut dropping);
    let waiting = start(dropping, "DROP TABLE drop_wait_test.a, drop_wait_test.b");
    let mut observer = client::connect(port);
    wait_until_state(&mut observer, dropping_id, WAITING);
    assert_eq!(tables(&mut observer), ["a", "b", "c"]);
    holder.query_drop("COMMIT").expect("the holder commits");
    let (result, mut dropping) = waiting.join().expect("DROP thread");
    result.expect("the DROP runs once the holder committed");
    assert_eq!(tables(&mut observer), ["c"]);

    // Past lock_wait_timeout: 1205, and the rows stay.
    holder.query_drop("BEGIN").expect("begin");
    holder
        .query_drop("INSERT INTO drop_wait_test.c VALUES (2)")
        .expect("holder writes c");
    dropping
        .query_drop("SET SESSION lock_wait_timeout = 1")
        .expect("set");
    match dropping.query_drop("TRUNCATE TABLE drop_wait_test.c") {
        Err(mysql::Error::MySqlError(e)) => assert_eq!(e.code, 1205, "{e:?}"),
        other => panic!("TRUNCATE while rows are held: expected 1205, got {other:?}"),
    }
    holder.query_drop("COMMIT").expect("the holder commits");
    let ids: Vec<i64> = observer
        .query("SELECT id FROM drop_wait_test.c ORDER BY id")
        .expect("select");
    assert_eq!(ids, vec![1, 2]);

    // DROP DATABASE waits too, and runs once the holder rolls back.
    dropping
        .query_drop("SET SESSION lock_wait_timeout = 60")
        .expect("set");
    holder.query_drop("BEGIN").expect("begin");
    holder
        .query_drop("DELETE FROM drop_wait_test.c")
        .expect("holder deletes from c");
    let waiting = start(dropping, "DROP DATABASE drop_wait_test");
    wait_until_state(&mut observer, dropping_id, WAITING);
    holder
        .query_drop("ROLLBACK")
        .expect("the holder rolls back");
    let (result, _) = waiting.join().expect("DROP DATABASE thread");
    result.expect("DROP DATABASE runs once the holder rolled back");
    let databases: Vec<String> = observer
        .query("SHOW DATABASES LIKE 'drop_wait_test'")
        .expect("show databases");
    assert!(databases.is_empty(), "{databases:?}");
}
