//! The clients tests drive servers with: the `mysql` driver, the `mariadb` and
//! `mariadb-admin` command-line tools, and sysbench.
//!
//! Invariants:
//! (1) Every client connects over TCP to 127.0.0.1 as root with no password.
//! (2) Every command runs bounded in time: past its limit it is killed by PID and
//!     the output so far is returned with `timed_out` set, never a hung test.
//! (3) Driver connections carry read/write timeouts for the same reason.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use mysql::{Conn, Opts, OptsBuilder};

/// How long one driver read or write may block before the connection errors.
pub const DRIVER_IO_TIMEOUT: Duration = Duration::from_secs(60);
/// The default limit for one command-line client run.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(120);

/// Driver options for root@127.0.0.1:`port`, optionally with a default database.
pub fn opts(port: u16, database: Option<&str>) -> OptsBuilder {
    OptsBuilder::new()
        .ip_or_hostname(Some("127.0.0.1"))
        .tcp_port(port)
        .user(Some("root"))
        .pass(None::<String>)
        .db_name(database)
        .prefer_socket(false)
        .tcp_connect_timeout(Some(Duration::from_secs(10)))
        .read_timeout(Some(DRIVER_IO_TIMEOUT))
        .write_timeout(Some(DRIVER_IO_TIMEOUT))
}

/// A driver connection to root@127.0.0.1:`port`; panics with the error if it fails.
pub fn connect(port: u16) -> Conn {
    Conn::new(Opts::from(opts(port, None)))
        .unwrap_or_else(|e| panic!("connect to 127.0.0.1:{port}: {e}"))
}

/// A connection to `port` as `user` with `password` (the login's error if refused).
pub fn connect_as(port: u16, user: &str, password: &str) -> Result<Conn, mysql::Error> {
    Conn::new(Opts::from(
        opts(port, None)
            .user(Some(user))
            .pass(Some(password.to_string())),
    ))
}

/// The server error `result` holds: its code, SQLSTATE and message (panics on success or
/// another error).
pub fn error_of<T: std::fmt::Debug>(result: Result<T, mysql::Error>) -> (u16, String, String) {
    match result {
        Err(mysql::Error::MySqlError(e)) => (e.code, e.state, e.message),
        other => panic!("expected a server error, got {other:?}"),
    }
}

/// Runs `sql` and reads every row of every result set: an error raised while rows are
/// sent (after the column definitions) is returned too, where `query_drop` would drop it.
pub fn outcome(conn: &mut Conn, sql: &str) -> Result<(), mysql::Error> {
    let mut result = conn.query_iter(sql)?;
    while let Some(set) = result.iter() {
        for row in set {
            row?;
        }
    }
    Ok(())
}

/// `sql` as `conn` fails with exactly `code`, `state` and `message`.
pub fn assert_error(conn: &mut Conn, sql: &str, code: u16, state: &str, message: &str) {
    let result = outcome(conn, sql);
    assert!(
        result.is_err(),
        "{sql}: expected error {code}, got {result:?}"
    );
    let (got, got_state, text) = error_of(result);
    assert_eq!(
        (got, got_state.as_str(), text.as_str()),
        (code, state, message),
        "{sql}"
    );
}

/// Runs each of `statements` on `conn`, panicking at the first that fails.
pub fn run_all(conn: &mut Conn, statements: &[&str]) {
    for statement in statements {
        conn.query_drop(statement)
            .unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
}

/// SHOW GRANTS FOR `account`, one line each.
pub fn show_grants(conn: &mut Conn, account: &str) -> Vec<String> {
    conn.query(format!("SHOW GRANTS FOR {account}"))
        .expect("show grants")
}

/// True if a fresh connection can run `SELECT 1` and read back 1.
pub fn select_one_works(port: u16) -> bool {
    let builder = opts(port, None)
        .tcp_connect_timeout(Some(Duration::from_secs(2)))
        .read_timeout(Some(Duration::from_secs(5)))
        .write_timeout(Some(Duration::from_secs(5)));
    let Ok(mut conn) = Conn::new(Opts::from(builder)) else {
        return false;
    };
    matches!(conn.query_first::<i64, _>("SELECT 1"), Ok(Some(1)))
}

/// What a finished (or timed-out) command printed and how it ended.
#[derive(Debug, Clone)]
pub struct CommandOutput {
    pub stdout: String,
    pub stderr: String,
    /// None if killed by a signal (including our timeout).
    pub code: Option<i32>,
    pub timed_out: bool,
}

impl CommandOutput {
    pub fn success(&self) -> bool {
        self.code == Some(0) && !self.timed_out
    }

    /// Panics with everything the command printed unless it exited 0.
    pub fn expect_success(self, what: &str) -> CommandOutput {
        assert!(self.success(), "{what} failed: {self}");
        self
    }
}

impl std::fmt::Display for CommandOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit code {:?}{}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.code,
            if self.timed_out {
                " (killed: timed out)"
            } else {
                ""
            },
            self.stdout,
            self.stderr
        )
    }
}

/// Runs `command` with `stdin` fed from a thread, output captured, bounded by
/// `timeout` (invariant 2).
pub fn run_bounded(mut command: Command, stdin: &[u8], timeout: Duration) -> CommandOutput {
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    crate::process::die_with_parent(&mut command);
    let mut child = command
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {command:?}: {e}"));
    let mut child_stdin = child.stdin.take().expect("stdin is piped");
    let input = stdin.to_vec();
    let writer = thread::spawn(move || {
        // A client that exits early closes its stdin; that is its business, not ours.
        let _ = child_stdin.write_all(&input);
    });
    let stdout = drain(child.stdout.take().expect("stdout is piped"));
    let stderr = drain(child.stderr.take().expect("stderr is piped"));
    let deadline = Instant::now() + timeout;
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for child") {
            break status;
        }
        if Instant::now() > deadline {
            timed_out = true;
            let _ = child.kill();
            break child.wait().expect("wait for killed child");
        }
        thread::sleep(Duration::from_millis(20));
    };
    let _ = writer.join();
    CommandOutput {
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
        code: status.code(),
        timed_out,
    }
}

fn drain(mut source: impl Read + Send + 'static) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = source.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// The `mariadb` CLI as root over TCP to `port`, with `args` after the connection
/// options and `stdin` as its input.
pub fn mariadb_cli(port: u16, args: &[&str], stdin: &str) -> CommandOutput {
    let mut command = client_command("mariadb", port);
    command.arg("--connect-timeout=10").args(args);
    run_bounded(command, stdin.as_bytes(), COMMAND_TIMEOUT)
}

/// `mariadb-admin` as root over TCP to `port` with `args`.
pub fn mariadb_admin(port: u16, args: &[&str]) -> CommandOutput {
    let mut command = client_command("mariadb-admin", port);
    command.arg("--connect-timeout=10").args(args);
    run_bounded(command, b"", COMMAND_TIMEOUT)
}

/// `mariadb-dump` as root over TCP to `port` with `args`; the dump is its stdout.
pub fn mariadb_dump(port: u16, args: &[&str]) -> CommandOutput {
    let mut command = client_command("mariadb-dump", port);
    command.args(args);
    run_bounded(command, b"", COMMAND_TIMEOUT)
}

/// `mariadb-check` as root over TCP to `port` with `args` (CHECK/ANALYZE/OPTIMIZE TABLE).
pub fn mariadb_check(port: u16, args: &[&str]) -> CommandOutput {
    let mut command = client_command("mariadb-check", port);
    command.args(args);
    run_bounded(command, b"", COMMAND_TIMEOUT)
}

/// A MariaDB client `program` connecting as root over TCP to `port`, reading no option
/// files (mariadb-dump has no --connect-timeout; `run_bounded` bounds it anyway).
fn client_command(program: &str, port: u16) -> Command {
    let mut command = Command::new(program);
    command
        .args(["--no-defaults", "--protocol=TCP", "-h127.0.0.1", "-uroot"])
        .arg(format!("-P{port}"));
    command
}

/// sysbench `test` (e.g. `oltp_read_write`) against root@127.0.0.1:`port`,
/// with `args` (e.g. `--tables=4 ... run`) after the connection options.
pub fn sysbench(port: u16, test: &str, args: &[&str], timeout: Duration) -> CommandOutput {
    let mut command = Command::new("sysbench");
    command
        .arg(test)
        .args([
            "--db-driver=mysql",
            "--mysql-host=127.0.0.1",
            "--mysql-user=root",
        ])
        .arg(format!("--mysql-port={port}"))
        .args(args);
    run_bounded(command, b"", timeout)
}

/// The value of `name` in `mariadb-admin extended-status` output
/// (`| Questions | 1234 |`), if present and numeric.
pub fn status_value(extended_status: &str, name: &str) -> Option<u64> {
    extended_status.lines().find_map(|line| {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        match cells.as_slice() {
            ["", key, value, ""] if *key == name => value.parse().ok(),
            _ => None,
        }
    })
}

/// CONNECTION_ID() of `conn`: what KILL and SHOW PROCESSLIST name it by.
pub fn connection_id(conn: &mut Conn) -> u64 {
    conn.query_first("SELECT CONNECTION_ID()")
        .expect("CONNECTION_ID()")
        .expect("one row")
}

/// `Info` of connection `id` in SHOW PROCESSLIST: None if it is not listed, Some(None)
/// if it runs no statement.
pub fn process_info(conn: &mut Conn, id: u64) -> Option<Option<String>> {
    process_column(conn, id, "Info")
}

/// Column `column` of connection `id`'s row in SHOW PROCESSLIST: None if it is not
/// listed, Some(None) if the column is NULL.
pub fn process_column(conn: &mut Conn, id: u64, column: &str) -> Option<Option<String>> {
    let rows: Vec<mysql::Row> = conn.query("SHOW PROCESSLIST").expect("SHOW PROCESSLIST");
    rows.into_iter()
        .find(|row| row.get::<u64, _>("Id") == Some(id))
        .map(|row| row.get::<Option<String>, _>(column).flatten())
}

/// Polls `done` until it holds; panics naming `what` after `timeout`.
pub fn wait_for(what: &str, timeout: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        thread::sleep(Duration::from_millis(20));
    }
}
