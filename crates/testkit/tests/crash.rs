//! Durability of the real binary: kill -9 under concurrent load, then restart on the same
//! data directory; and a full disk (a small tmpfs) that refuses commits with 1021 until
//! space is freed.
//!
//! Invariants checked after every restart:
//! (1) Every acknowledged ledger insert is present.
//! (2) No partial transfer is visible: the account total never changes.
//! (3) The server answers.

use manycore_testkit::client::opts;
use manycore_testkit::ManycoreServer;
use mysql::prelude::Queryable;
use mysql::{Conn, Opts};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

const ACCOUNTS: i64 = 20;
const BALANCE: i64 = 1000;
const KILLS: u64 = 10;

fn connect(port: u16) -> Option<Conn> {
    Conn::new(Opts::from(opts(port, Some("crash")))).ok()
}

fn setup(port: u16) {
    let mut c = Conn::new(Opts::from(opts(port, None))).expect("connect");
    c.query_drop("CREATE DATABASE crash")
        .expect("create database");
    c.query_drop("USE crash").expect("use");
    c.query_drop("CREATE TABLE ledger (id BIGINT PRIMARY KEY, writer INT, note VARCHAR(40))")
        .expect("create ledger");
    c.query_drop("CREATE TABLE accounts (id INT PRIMARY KEY, balance BIGINT)")
        .expect("create accounts");
    let values: Vec<String> = (0..ACCOUNTS).map(|i| format!("({i}, {BALANCE})")).collect();
    c.query_drop(format!("INSERT INTO accounts VALUES {}", values.join(",")))
        .expect("insert accounts");
}

fn is_retryable(e: &mysql::Error) -> bool {
    matches!(e, mysql::Error::MySqlError(m) if m.code == 1213 || m.code == 1205)
}

/// Inserts ledger rows until the connection fails; records the acknowledged ids.
fn ledger_writer(
    port: u16,
    writer: i64,
    round: u64,
    acked: Arc<Mutex<Vec<i64>>>,
    stop: Arc<AtomicBool>,
) {
    let Some(mut c) = connect(port) else { return };
    let mut seq = 0i64;
    while !stop.load(Ordering::Relaxed) {
        let id = writer * 1_000_000_000 + round as i64 * 1_000_000 + seq;
        seq += 1;
        match c.query_drop(format!(
            "INSERT INTO ledger VALUES ({id}, {writer}, 'r{round}')"
        )) {
            Ok(()) => acked.lock().expect("ledger lock").push(id),
            Err(e) if is_retryable(&e) => continue,
            Err(_) => return, // The server died: this insert is unacknowledged.
        }
    }
}

/// Moves money between accounts in multi-statement transactions until the connection fails.
fn transfer_writer(port: u16, seed: u64, stop: Arc<AtomicBool>) {
    let Some(mut c) = connect(port) else { return };
    let mut x = seed | 1;
    while !stop.load(Ordering::Relaxed) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let (a, b) = (
            (x % ACCOUNTS as u64) as i64,
            ((x >> 20) % ACCOUNTS as u64) as i64,
        );
        let amount = (x >> 40) % 50;
        let result = (|| -> Result<(), mysql::Error> {
            c.query_drop("BEGIN")?;
            c.query_drop(format!(
                "UPDATE accounts SET balance = balance - {amount} WHERE id = {a}"
            ))?;
            c.query_drop(format!(
                "UPDATE accounts SET balance = balance + {amount} WHERE id = {b}"
            ))?;
            c.query_drop("COMMIT")
        })();
        match result {
            Ok(()) => {}
            Err(e) if is_retryable(&e) => {
                let _ = c.query_drop("ROLLBACK");
            }
            Err(_) => return,
        }
    }
}

fn check(server: &ManycoreServer, acked: &[i64], round: u64) {
    let mut c = connect(server.port()).expect("connect after restart");
    let present: HashSet<i64> = c
        .query::<i64, _>("SELECT id FROM ledger")
        .expect("read ledger")
        .into_iter()
        .collect();
    let lost: Vec<&i64> = acked.iter().filter(|id| !present.contains(id)).collect();
    assert!(
        lost.is_empty(),
        "round {round}: {} acknowledged inserts lost (first {:?}); log:\n{}",
        lost.len(),
        &lost[..lost.len().min(5)],
        server.log_tail()
    );
    let total: i64 = c
        .query_first::<i64, _>("SELECT SUM(balance) FROM accounts")
        .expect("sum")
        .expect("a row");
    assert_eq!(
        total,
        ACCOUNTS * BALANCE,
        "round {round}: a partial transfer is visible"
    );
    let one: Option<i64> = c.query_first("SELECT 1").expect("select 1");
    assert_eq!(one, Some(1));
}

#[test]
fn kill9_under_load_loses_no_acknowledged_commit() {
    let started = Instant::now();
    // A small checkpoint interval, so some rounds recover from a checkpoint plus the log.
    let mut server = ManycoreServer::start_with(&["--checkpoint-interval-mb", "1"]);
    setup(server.port());
    let acked: Arc<Mutex<Vec<i64>>> = Arc::default();
    let seed = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64);
    println!("seed {seed}");
    for round in 0..KILLS {
        let stop = Arc::new(AtomicBool::new(false));
        let port = server.port();
        let mut threads = Vec::new();
        for writer in 1..=3 {
            let (acked, stop) = (acked.clone(), stop.clone());
            threads.push(std::thread::spawn(move || {
                ledger_writer(port, writer, round, acked, stop)
            }));
        }
        for t in 0..3 {
            let stop = stop.clone();
            let s = seed.wrapping_add(round * 7 + t);
            threads.push(std::thread::spawn(move || transfer_writer(port, s, stop)));
        }
        let run_ms = 200 + (seed.wrapping_mul(round + 1) >> 7) % 600;
        std::thread::sleep(Duration::from_millis(run_ms));
        server.kill9();
        stop.store(true, Ordering::Relaxed);
        for t in threads {
            t.join().expect("writer thread");
        }
        server.restart();
        let acked = acked.lock().expect("ledger lock").clone();
        check(&server, &acked, round);
        println!(
            "round {round}: {} acknowledged inserts survived {run_ms} ms of load",
            acked.len()
        );
    }
    // A clean shutdown checkpoints: the next start replays nothing.
    server.restart();
    let acked = acked.lock().expect("ledger lock").clone();
    check(&server, &acked, KILLS);
    let log = strip_ansi(&server.log_tail());
    let last_recovery = log
        .lines()
        .rfind(|l| l.contains("recovery complete"))
        .unwrap_or_default();
    assert!(
        last_recovery.contains("log_records=0") && !last_recovery.contains("checkpoint=\"none\""),
        "restart after a clean shutdown replayed log records:\n{log}"
    );
    println!("{KILLS} kills in {:?}", started.elapsed());
}

/// The server's log with terminal colour codes removed.
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn run(program: &str, args: &[&str]) -> bool {
    std::process::Command::new(program)
        .args(args)
        .status()
        .is_ok_and(|s| s.success())
}

fn error_code(e: &mysql::Error) -> Option<u16> {
    match e {
        mysql::Error::MySqlError(m) => Some(m.code),
        _ => None,
    }
}

#[test]
fn a_full_disk_refuses_commits_with_1021_until_space_is_freed() {
    let mut server = ManycoreServer::start();
    let data = server.data_dir();
    server.kill9();
    // Mounting needs root; without it the test says so and passes.
    let data_text = data.to_string_lossy().to_string();
    if !run(
        "mount",
        &["-t", "tmpfs", "-o", "size=4m", "tmpfs", &data_text],
    ) {
        println!("SKIPPED: cannot mount a tmpfs on {data_text} (needs root)");
        return;
    }
    let filler = data.join("filler.bin");
    std::fs::write(&filler, vec![0u8; 1 << 20]).expect("write filler");
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        full_disk_scenario(&mut server, &filler)
    }));
    server.kill9();
    let unmounted = run("umount", &[&data_text]);
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
    assert!(unmounted, "umount {data_text}");
}

fn full_disk_scenario(server: &mut ManycoreServer, filler: &std::path::Path) {
    server.restart();
    let port = server.port();
    let mut c = Conn::new(Opts::from(opts(port, None))).expect("connect");
    c.query_drop("CREATE DATABASE crash")
        .expect("create database");
    c.query_drop("CREATE TABLE crash.t (id BIGINT PRIMARY KEY, pad VARCHAR(2000))")
        .expect("create table");
    let pad = "x".repeat(1500);
    let mut acked = Vec::new();
    let mut full = None;
    for id in 0..20_000i64 {
        match c.query_drop(format!("INSERT INTO crash.t VALUES ({id}, '{pad}')")) {
            Ok(()) => acked.push(id),
            Err(e) => {
                assert_eq!(
                    error_code(&e),
                    Some(1021),
                    "expected 1021 Disk full, got {e}"
                );
                full = Some(id);
                break;
            }
        }
    }
    let full = full.expect("the 4 MiB disk never filled up");
    println!("disk full after {} acknowledged inserts", acked.len());
    // Reads keep working and the server is up.
    let count: Option<i64> = c.query_first("SELECT COUNT(*) FROM crash.t").expect("read");
    assert!(count.is_some_and(|n| n >= acked.len() as i64));
    std::fs::remove_file(filler).expect("free space");
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut resumed = false;
    let mut id = full + 1;
    while Instant::now() < deadline {
        match c.query_drop(format!("INSERT INTO crash.t VALUES ({id}, 'after')")) {
            Ok(()) => {
                acked.push(id);
                resumed = true;
                break;
            }
            Err(e) => {
                assert_eq!(error_code(&e), Some(1021), "{e}");
                id += 1;
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
    assert!(resumed, "commits did not resume after space was freed");
    server.kill9();
    server.restart();
    let mut c = Conn::new(Opts::from(opts(server.port(), None))).expect("connect");
    let present: HashSet<i64> = c
        .query::<i64, _>("SELECT id FROM crash.t")
        .expect("read after restart")
        .into_iter()
        .collect();
    let lost = acked.iter().filter(|id| !present.contains(id)).count();
    assert_eq!(lost, 0, "acknowledged inserts lost after a full disk");
}

/// ALTER TABLE ... COMMENT is a logged schema change: the comment comes back from the
/// log after kill -9, and from whatever a graceful stop leaves after a restart.
#[test]
fn a_table_comment_changed_by_alter_survives_restarts() {
    let mut server = ManycoreServer::start();
    let port = server.port();
    let mut c = Conn::new(Opts::from(opts(port, None))).expect("connect");
    for sql in [
        "CREATE DATABASE commented",
        "CREATE TABLE commented.t (id INT PRIMARY KEY) COMMENT 'at create'",
        "INSERT INTO commented.t VALUES (1)",
        "ALTER TABLE commented.t COMMENT 'by alter'",
    ] {
        c.query_drop(sql).expect(sql);
    }
    drop(c);
    let comment = |port: u16| -> String {
        let mut c = Conn::new(Opts::from(opts(port, None))).expect("connect after restart");
        c.query_first(
            "SELECT TABLE_COMMENT FROM information_schema.TABLES \
             WHERE TABLE_SCHEMA = 'commented' AND TABLE_NAME = 't'",
        )
        .expect("select comment")
        .expect("the table is there")
    };
    server.kill9();
    server.restart();
    assert_eq!(comment(port), "by alter", "after kill -9");
    let mut c = Conn::new(Opts::from(opts(port, None))).expect("connect");
    c.query_drop("ALTER TABLE commented.t COMMENT ''")
        .expect("clear comment");
    drop(c);
    server.restart();
    assert_eq!(comment(port), "", "after a graceful restart");
    let mut c = Conn::new(Opts::from(opts(port, None))).expect("connect");
    let create: (String, String) = c
        .query_first("SHOW CREATE TABLE commented.t")
        .expect("show create")
        .expect("a row");
    assert!(!create.1.contains("COMMENT"), "{}", create.1);
}

/// Runs `statements`, then restarts the server twice and calls `check` after each restart
/// with a new connection and the round's name: "replay" comes back from the log alone
/// (after kill -9), "checkpoint" from what a clean shutdown leaves.
fn check_after_each_restart(
    server: &mut ManycoreServer,
    statements: &[&str],
    mut check: impl FnMut(&mut Conn, &str),
) {
    let mut c = Conn::new(Opts::from(opts(server.port(), None))).expect("connect");
    for statement in statements {
        c.query_drop(statement).expect(statement);
    }
    drop(c);
    for round in ["replay", "checkpoint"] {
        if round == "replay" {
            server.kill9();
        }
        server.restart();
        let mut c = Conn::new(Opts::from(opts(server.port(), None))).expect("reconnect");
        check(&mut c, round);
    }
}

/// A database's default collation, from CREATE DATABASE or a later ALTER DATABASE, comes
/// back from log replay (after kill -9) and from a checkpoint (after a clean shutdown), and
/// a table created after the restart still takes it.
#[test]
fn a_database_keeps_its_collation_after_restart() {
    let mut server = ManycoreServer::start();
    let statements = [
        "CREATE DATABASE created_bin COLLATE utf8mb4_bin",
        "CREATE DATABASE altered_bin",
        "ALTER DATABASE altered_bin COLLATE utf8mb4_bin",
        "CREATE DATABASE altered_back CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
        "ALTER DATABASE altered_back CHARACTER SET utf8mb4",
    ];
    check_after_each_restart(&mut server, &statements, |c, round| {
        let collations: Vec<(String, String)> = c
            .query(
                "SELECT SCHEMA_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA \
                 WHERE SCHEMA_NAME IN ('created_bin', 'altered_bin', 'altered_back') \
                 ORDER BY SCHEMA_NAME",
            )
            .expect("schemata");
        let expected = [
            ("altered_back", "utf8mb4_general_ci"),
            ("altered_bin", "utf8mb4_bin"),
            ("created_bin", "utf8mb4_bin"),
        ]
        .map(|(db, collation)| (db.to_string(), collation.to_string()));
        assert_eq!(collations, expected, "after {round}");
        let table = format!("created_bin.t_{round}");
        c.query_drop(format!("CREATE TABLE {table} (a VARCHAR(5))"))
            .expect("create table");
        let collation: Option<String> = c
            .query_first(format!(
                "SELECT TABLE_COLLATION FROM information_schema.TABLES \
                 WHERE TABLE_SCHEMA = 'created_bin' AND TABLE_NAME = 't_{round}'"
            ))
            .expect("table collation");
        assert_eq!(collation.as_deref(), Some("utf8mb4_bin"), "after {round}");
    });
}

/// A utf8mb4_bin column keeps its collation through log replay (after kill -9) and
/// through a checkpoint (after a clean shutdown): its unique key still tells 'a' from 'A'.
#[test]
fn a_bin_column_keeps_its_collation_after_restart() {
    let mut server = ManycoreServer::start();
    let statements = [
        "CREATE DATABASE coll",
        "CREATE TABLE coll.t (id INT PRIMARY KEY, \
         token VARCHAR(10) COLLATE utf8mb4_bin UNIQUE, name VARCHAR(10))",
        "INSERT INTO coll.t VALUES (1, 'a', 'a'), (2, 'A', 'A')",
    ];
    check_after_each_restart(&mut server, &statements, |c, round| {
        let found: Vec<i64> = c
            .query("SELECT id FROM coll.t WHERE token = 'A'")
            .expect("select by token");
        assert_eq!(found, [2], "after {round}");
        let found: Vec<i64> = c
            .query("SELECT id FROM coll.t WHERE name = 'A' ORDER BY id")
            .expect("select by name");
        assert_eq!(found, [1, 2], "after {round}");
        let duplicate = c.query_drop("INSERT INTO coll.t VALUES (3, 'a ', 'x')");
        assert_eq!(
            duplicate.as_ref().err().and_then(error_code),
            Some(1062),
            "{round}"
        );
        let create: Vec<(String, String)> = c
            .query("SHOW CREATE TABLE coll.t")
            .expect("show create table");
        assert!(
            create[0]
                .1
                .contains("`token` varchar(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"),
            "after {round}: {}",
            create[0].1
        );
    });
}

/// A table's default collation and ROW_FORMAT, set by CREATE TABLE and changed by ALTER
/// TABLE, come back from log replay (after kill -9) and from a checkpoint (after a clean
/// shutdown); a column added later still takes the default.
#[test]
fn table_options_survive_restarts() {
    let mut server = ManycoreServer::start();
    let statements = [
        "CREATE DATABASE opts",
        "CREATE TABLE opts.t (id INT PRIMARY KEY, a VARCHAR(10)) \
         DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin ROW_FORMAT=COMPACT",
        "CREATE TABLE opts.u (id INT PRIMARY KEY, a VARCHAR(10))",
        "ALTER TABLE opts.u COLLATE utf8mb4_bin, ROW_FORMAT=REDUNDANT",
        "INSERT INTO opts.t VALUES (1, 'a')",
    ];
    check_after_each_restart(&mut server, &statements, |c, round| {
        let tables: Vec<(String, String, String, String)> = c
            .query(
                "SELECT TABLE_NAME, ROW_FORMAT, CREATE_OPTIONS, TABLE_COLLATION \
                 FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'opts' \
                 ORDER BY TABLE_NAME",
            )
            .expect("select tables");
        let expected = [("t", "Compact", "COMPACT"), ("u", "Redundant", "REDUNDANT")];
        assert_eq!(tables.len(), expected.len(), "after {round}");
        for (row, (name, format, declared)) in tables.iter().zip(expected) {
            assert_eq!(row.0, name, "after {round}");
            assert_eq!(row.1, format, "after {round}");
            assert_eq!(row.2, format!("row_format={declared}"), "after {round}");
            assert_eq!(row.3, "utf8mb4_bin", "after {round}");
        }
        let found: Vec<i64> = c
            .query("SELECT id FROM opts.t WHERE a = 'A'")
            .expect("select by a");
        assert!(found.is_empty(), "a is utf8mb4_bin after {round}");
        let column = format!("c_{round}");
        c.query_drop(format!("ALTER TABLE opts.t ADD {column} VARCHAR(5)"))
            .expect("add column");
        let collation: Option<String> = c
            .query_first(format!(
                "SELECT COLLATION_NAME FROM information_schema.COLUMNS \
                 WHERE TABLE_SCHEMA = 'opts' AND TABLE_NAME = 't' AND COLUMN_NAME = '{column}'"
            ))
            .expect("select collation");
        assert_eq!(collation.as_deref(), Some("utf8mb4_bin"), "after {round}");
    });
}

/// ENUM and SET columns keep their member lists through log replay (after kill -9) and a
/// checkpoint (after a clean shutdown): the rows read back as text and as numbers, a new
/// row is assigned by position, and SHOW CREATE TABLE prints the lists as declared.
#[test]
fn enum_and_set_member_lists_survive_restarts() {
    let mut server = ManycoreServer::start();
    let statements = [
        "CREATE DATABASE members",
        "CREATE TABLE members.t (id INT PRIMARY KEY, \
         size ENUM('small','medium','it''s') NOT NULL, tags SET('x','y','z'), KEY k_size (size))",
        "INSERT INTO members.t VALUES (1, 'MEDIUM', 'z,x'), (2, 3, 2), (3, 'small', NULL)",
    ];
    check_after_each_restart(&mut server, &statements, |c, round| {
        let id = if round == "replay" { 4 } else { 5 };
        let rows: Vec<(i64, String, i64, Option<String>)> = c
            .query("SELECT id, size, size + 0, tags FROM members.t WHERE id <= 3 ORDER BY size")
            .expect("select");
        let expected = [
            (3, "small".to_string(), 1, None),
            (1, "medium".to_string(), 2, Some("x,z".to_string())),
            (2, "it's".to_string(), 3, Some("y".to_string())),
        ];
        assert_eq!(rows, expected, "after {round}");
        c.query_drop(format!("INSERT INTO members.t VALUES ({id}, 2, 7)"))
            .expect("insert by number");
        let added: Option<(String, String)> = c
            .query_first(format!("SELECT size, tags FROM members.t WHERE id = {id}"))
            .expect("select the new row");
        assert_eq!(added, Some(("medium".into(), "x,y,z".into())), "{round}");
        let by_key: Vec<i64> = c
            .query("SELECT id FROM members.t WHERE size = 'Medium' ORDER BY id")
            .expect("select by key");
        assert_eq!(by_key.first(), Some(&1), "after {round}");
        let create: Vec<(String, String)> = c
            .query("SHOW CREATE TABLE members.t")
            .expect("show create table");
        assert!(
            create[0]
                .1
                .contains("`size` enum('small','medium','it''s') NOT NULL")
                && create[0].1.contains("`tags` set('x','y','z') DEFAULT NULL"),
            "after {round}: {}",
            create[0].1
        );
    });
}

/// Triggers survive log replay (after kill -9) and a checkpoint (after a clean shutdown):
/// created, replaced, dropped, renamed with their table and dropped with it, they come
/// back as they were and fire in creation order.
#[test]
fn triggers_come_back_after_restart() {
    let mut server = ManycoreServer::start();
    let statements = [
        "CREATE DATABASE trg",
        "CREATE TABLE trg.t (id INT PRIMARY KEY, v VARCHAR(40))",
        "CREATE TABLE trg.gone (id INT PRIMARY KEY)",
        "CREATE TABLE trg.log (n INT AUTO_INCREMENT PRIMARY KEY, what VARCHAR(40))",
        "CREATE TRIGGER trg.first BEFORE INSERT ON trg.t FOR EACH ROW SET NEW.v = 'x'",
        "CREATE OR REPLACE TRIGGER trg.first BEFORE INSERT ON trg.t FOR EACH ROW \
         SET NEW.v = CONCAT(NEW.v, '1')",
        "CREATE TRIGGER trg.second BEFORE INSERT ON trg.t FOR EACH ROW \
         BEGIN SET NEW.v = CONCAT(NEW.v, '2'); INSERT INTO trg.log (what) VALUES (NEW.v); END",
        "CREATE TRIGGER trg.dropped BEFORE INSERT ON trg.t FOR EACH ROW SET NEW.v = 'no'",
        "DROP TRIGGER trg.dropped",
        "CREATE TRIGGER trg.with_table BEFORE INSERT ON trg.gone FOR EACH ROW SET @x = 1",
        "DROP TABLE trg.gone",
        "RENAME TABLE trg.t TO trg.t2",
    ];
    let mut next_id = 1;
    check_after_each_restart(&mut server, &statements, |c, round| {
        let names: Vec<(String, String)> = c
            .query(
                "SELECT TRIGGER_NAME, EVENT_OBJECT_TABLE FROM information_schema.TRIGGERS \
                 WHERE TRIGGER_SCHEMA = 'trg' ORDER BY ACTION_ORDER",
            )
            .expect("list triggers");
        let expected = [("first", "t2"), ("second", "t2")].map(|(a, b)| (a.into(), b.into()));
        assert_eq!(names, expected, "after {round}");
        c.query_drop(format!("INSERT INTO trg.t2 VALUES ({next_id}, 'v')"))
            .expect("insert");
        let v: Option<String> = c
            .query_first(format!("SELECT v FROM trg.t2 WHERE id = {next_id}"))
            .expect("select");
        assert_eq!(v.as_deref(), Some("v12"), "after {round}");
        let logged: Option<String> = c
            .query_first("SELECT what FROM trg.log ORDER BY n DESC LIMIT 1")
            .expect("log");
        assert_eq!(logged.as_deref(), Some("v12"), "after {round}");
        next_id += 1;
    });
}

/// FOLLOWS and PRECEDES place a trigger in the firing order (log kind 23), and that order
/// comes back from log replay and from a checkpoint (which writes triggers in it); a
/// compound body (DECLARE, IF, a loop) fires the same after both.
#[test]
fn trigger_order_comes_back_after_restart() {
    let mut server = ManycoreServer::start();
    let statements = [
        "CREATE DATABASE trgo",
        "CREATE TABLE trgo.t (id INT PRIMARY KEY, v VARCHAR(40))",
        "CREATE TRIGGER trgo.a BEFORE INSERT ON trgo.t FOR EACH ROW \
         SET NEW.v = CONCAT(NEW.v, 'a')",
        "CREATE TRIGGER trgo.b BEFORE INSERT ON trgo.t FOR EACH ROW PRECEDES a \
         SET NEW.v = CONCAT(NEW.v, 'b')",
        "CREATE TRIGGER trgo.c BEFORE INSERT ON trgo.t FOR EACH ROW FOLLOWS b \
         BEGIN DECLARE i INT DEFAULT 0; WHILE i < 2 DO SET i = i + 1; END WHILE; \
         IF i = 2 THEN SET NEW.v = CONCAT(NEW.v, 'c'); END IF; END",
        "CREATE OR REPLACE TRIGGER trgo.a BEFORE INSERT ON trgo.t FOR EACH ROW PRECEDES b \
         SET NEW.v = CONCAT(NEW.v, 'A')",
    ];
    let mut next_id = 1;
    check_after_each_restart(&mut server, &statements, |c, round| {
        let names: Vec<(String, u64)> = c
            .query(
                "SELECT TRIGGER_NAME, ACTION_ORDER FROM information_schema.TRIGGERS \
                 WHERE TRIGGER_SCHEMA = 'trgo' ORDER BY ACTION_ORDER",
            )
            .expect("list triggers");
        let expected = [("a", 1), ("b", 2), ("c", 3)].map(|(a, n)| (a.to_string(), n));
        assert_eq!(names, expected, "after {round}");
        c.query_drop(format!("INSERT INTO trgo.t VALUES ({next_id}, 'v')"))
            .expect("insert");
        let v: Option<String> = c
            .query_first(format!("SELECT v FROM trgo.t WHERE id = {next_id}"))
            .expect("select");
        assert_eq!(v.as_deref(), Some("vAbc"), "after {round}");
        next_id += 1;
    });
}

/// Generated columns keep their definitions (CREATE TABLE and ALTER TABLE ADD) and values
/// through log replay (after kill -9) and a checkpoint (after a clean shutdown): SHOW
/// CREATE TABLE prints them, their unique key still refuses a computed duplicate, and an
/// UPDATE after the restart computes them again.
#[test]
fn generated_columns_survive_restarts() {
    let mut server = ManycoreServer::start();
    let statements = [
        "CREATE DATABASE gen",
        "CREATE TABLE gen.t (id INT PRIMARY KEY, a INT, v INT AS (a + 1), \
         s VARCHAR(20) AS (CONCAT('n', a)) PERSISTENT, UNIQUE KEY (v))",
        "INSERT INTO gen.t (id, a) VALUES (1, 10), (2, 20)",
        "ALTER TABLE gen.t ADD COLUMN w INT AS (a * 2) STORED",
    ];
    check_after_each_restart(&mut server, &statements, |c, round| {
        let (_, create): (String, String) = c
            .query_first("SHOW CREATE TABLE gen.t")
            .expect("show create")
            .expect("a row");
        for definition in [
            "`v` int(11) GENERATED ALWAYS AS (`a` + 1) VIRTUAL",
            "`s` varchar(20) GENERATED ALWAYS AS (concat('n',`a`)) STORED",
            "`w` int(11) GENERATED ALWAYS AS (`a` * 2) STORED",
        ] {
            assert!(create.contains(definition), "after {round}: {create}");
        }
        let rows = |c: &mut Conn| -> Vec<(i64, i64, i64, String, i64)> {
            c.query("SELECT id, a, v, s, w FROM gen.t ORDER BY id")
                .expect("select")
        };
        for (id, a, v, s, w) in rows(c) {
            assert_eq!(
                (v, s, w),
                (a + 1, format!("n{a}"), a * 2),
                "row {id} after {round}"
            );
        }
        c.query_drop("UPDATE gen.t SET a = a + 1 WHERE id = 1")
            .expect("update");
        let updated = rows(c);
        let (_, a, v, s, w) = updated[0].clone();
        assert_eq!(
            (v, s, w),
            (a + 1, format!("n{a}"), a * 2),
            "updated after {round}"
        );
        let duplicate = c.query_drop(format!("INSERT INTO gen.t (id, a) VALUES (9, {a})"));
        assert!(
            duplicate.is_err_and(|e| e.to_string().contains("1062")),
            "unique key on v after {round}"
        );
    });
}

/// A temporary table is never logged: after kill -9 and after a graceful restart (a
/// checkpoint) there is none, while the permanent rows committed in the same transaction
/// as its rows are back; its name again means the permanent table it hid.
#[test]
fn temporary_tables_do_not_survive_a_restart_and_their_transactions_rows_do() {
    let mut server = ManycoreServer::start();
    let port = server.port();
    let mut c = Conn::new(Opts::from(opts(port, None))).expect("connect");
    for sql in [
        "CREATE DATABASE scratch",
        "USE scratch",
        "CREATE TABLE kept (id INT PRIMARY KEY, v VARCHAR(10))",
        "INSERT INTO kept VALUES (1, 'permanent')",
        "CREATE TABLE audit (n INT)",
        "CREATE TEMPORARY TABLE kept (id INT PRIMARY KEY, v VARCHAR(10))",
        "CREATE TEMPORARY TABLE staged (id INT PRIMARY KEY)",
        "START TRANSACTION",
        "INSERT INTO kept VALUES (2, 'temporary')",
        "INSERT INTO staged VALUES (1), (2)",
        "INSERT INTO scratch.kept SELECT id + 10, 'copied' FROM staged",
        "INSERT INTO audit SELECT COUNT(*) FROM staged",
        "COMMIT",
    ] {
        c.query_drop(sql).expect(sql);
    }
    let rows = |c: &mut Conn| -> Vec<(i64, String)> {
        c.query("SELECT id, v FROM scratch.kept ORDER BY id")
            .expect("select kept")
    };
    // The INSERT ... SELECT wrote the temporary kept: what hides the permanent one.
    assert_eq!(
        rows(&mut c),
        vec![
            (2, "temporary".into()),
            (11, "copied".into()),
            (12, "copied".into())
        ]
    );
    c.query_drop("INSERT INTO staged VALUES (3)")
        .expect("insert staged");
    drop(c);
    for graceful in [false, true] {
        match graceful {
            true => server.restart(),
            false => {
                server.kill9();
                server.restart();
            }
        }
        let mut c = Conn::new(Opts::from(opts(port, None))).expect("connect after restart");
        assert_eq!(rows(&mut c), vec![(1, "permanent".into())], "{graceful}");
        let audit: Vec<i64> = c.query("SELECT n FROM scratch.audit").expect("audit");
        assert_eq!(
            audit,
            vec![2],
            "{graceful}: the transaction's permanent row"
        );
        let missing = c
            .query_drop("SELECT * FROM scratch.staged")
            .expect_err("the temporary table is gone");
        assert_eq!(error_code(&missing), Some(1146), "{graceful}: {missing}");
    }
}
