//! The local Unix socket (`--socket`) with real clients: the `mariadb` CLI and the Rust
//! `mysql` driver, the login rules over it (localhost accounts; a secure transport for
//! `require_secure_transport`, but not TLS for REQUIRE SSL), connections handed to every
//! worker, a socket client matching accounts by the name `localhost` only (not
//! `127.0.0.1`), and the socket file's life (removed at shutdown, a stale one replaced, anything
//! else left alone).
//!
//! manycore only: the MariaDB testkit starts listens on TCP. The MariaDB behaviour copied
//! here is its documented one: a socket client's host is `localhost` (PROCESSLIST shows
//! no port), `require_secure_transport` admits socket logins, REQUIRE SSL needs TLS.

use manycore_testkit::client::{mariadb_cli, run_bounded, CommandOutput, COMMAND_TIMEOUT};
use manycore_testkit::manycore::ManycoreServer;
use manycore_testkit::process::ScratchDir;
use mysql::prelude::Queryable;
use mysql::{Conn, OptsBuilder};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// A server listening on TCP and on `<scratch>/manycore.sock`, with `extra` arguments.
fn start(scratch: &ScratchDir, extra: &[&str]) -> (ManycoreServer, PathBuf) {
    let socket = scratch.path().join("manycore.sock");
    let mut args = vec!["--socket", socket.to_str().expect("utf-8 temp dir")];
    args.extend_from_slice(extra);
    (ManycoreServer::start_with(&args), socket)
}

/// The `mariadb` CLI as `user` through the socket, in batch mode.
fn cli(socket: &Path, user: &str, extra: &[&str], sql: &str) -> CommandOutput {
    let mut command = Command::new("mariadb");
    command
        .args(["--no-defaults", "--protocol=SOCKET", "--connect-timeout=10"])
        .arg(format!("--socket={}", socket.display()))
        .arg(format!("-u{user}"))
        .args(extra)
        .args(["--batch", "--skip-column-names", "-e", sql]);
    run_bounded(command, b"", COMMAND_TIMEOUT)
}

fn driver(socket: &Path) -> Conn {
    let opts = OptsBuilder::new()
        .socket(Some(socket.to_str().expect("utf-8 path")))
        .user(Some("root"))
        .read_timeout(Some(Duration::from_secs(60)))
        .write_timeout(Some(Duration::from_secs(60)));
    Conn::new(opts).unwrap_or_else(|e| panic!("connect through {}: {e}", socket.display()))
}

#[test]
fn cli_and_driver_log_in_through_the_socket_as_localhost() {
    let scratch = ScratchDir::new("local-socket");
    let (_server, socket) = start(&scratch, &[]);
    let mode = std::fs::metadata(&socket)
        .expect("socket file")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o777, "reachable by every user, as MariaDB's");

    let sql = "SELECT CURRENT_USER(), USER() LIKE 'root@localhost', @@socket; \
               SELECT HOST FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()";
    let out = cli(&socket, "root", &[], sql).expect_success("queries through the socket");
    let expected = format!("root@localhost\t1\t{}\nlocalhost\n", socket.display());
    assert_eq!(out.stdout, expected, "{out}");
    let out = cli(&socket, "root", &[], "\\s").expect_success("status");
    assert!(out.stdout.contains("Localhost via UNIX socket"), "{out}");

    // Prepared statements and a transaction through the driver, on the same server.
    let mut conn = driver(&socket);
    conn.query_drop("CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY, v TEXT)")
        .expect("create");
    conn.query_drop("START TRANSACTION").expect("begin");
    conn.exec_drop(
        "INSERT INTO d.t VALUES (?, ?), (?, ?)",
        (1, "one", 2, "two"),
    )
    .expect("insert");
    conn.query_drop("COMMIT").expect("commit");
    let v: Option<String> = conn
        .exec_first("SELECT v FROM d.t WHERE id = ?", (2,))
        .expect("select");
    assert_eq!(v.as_deref(), Some("two"));
}

#[test]
fn connections_are_handed_to_every_worker() {
    let scratch = ScratchDir::new("local-socket");
    let (_server, socket) = start(&scratch, &["--workers", "3"]);
    // Worker 0 accepts and hands them out in turn: seven connections (eight with the one
    // asking below) reach all three workers, and each must work where it landed. The
    // socket's clients are the PROCESSLIST rows whose host has no port.
    let mut conns: Vec<Conn> = (0..7).map(|_| driver(&socket)).collect();
    for (i, conn) in conns.iter_mut().enumerate() {
        let got: Option<i64> = conn
            .exec_first("SELECT ? + 1", (i as i64,))
            .expect("select");
        assert_eq!(got, Some(i as i64 + 1));
    }
    // TID is the serving worker's thread, as MariaDB's is the serving thread's.
    let mut conn = driver(&socket);
    let mut per_worker: Vec<u64> = conn
        .query(
            "SELECT COUNT(*) FROM information_schema.PROCESSLIST \
             WHERE HOST = 'localhost' GROUP BY TID",
        )
        .expect("processlist by thread");
    per_worker.sort_unstable();
    assert_eq!(per_worker, vec![2, 3, 3]);
}

#[test]
fn the_socket_is_a_secure_transport_but_not_tls() {
    let scratch = ScratchDir::new("local-socket");
    let (server, socket) = start(&scratch, &["--require-secure-transport"]);
    let out = cli(&socket, "root", &[], "SELECT 1").expect_success("socket login");
    assert_eq!(out.stdout, "1\n");
    let tcp = mariadb_cli(server.port(), &["--skip-ssl", "-e", "SELECT 1"], "");
    assert!(
        tcp.stderr.contains("ERROR 1045"),
        "plain TCP refused: {tcp}"
    );

    cli(
        &socket,
        "root",
        &[],
        "CREATE USER tls_only@localhost REQUIRE SSL; SET GLOBAL require_secure_transport = OFF",
    )
    .expect_success("create a REQUIRE SSL account");
    let plain = cli(&socket, "tls_only", &["--skip-ssl"], "SELECT 1");
    assert!(
        plain.stderr.contains("ERROR 1045"),
        "REQUIRE SSL needs TLS: {plain}"
    );
    let tls = cli(
        &socket,
        "tls_only",
        &["--ssl", "--skip-ssl-verify-server-cert"],
        "SELECT CURRENT_USER(); SHOW STATUS LIKE 'Ssl_cipher'",
    )
    .expect_success("TLS over the socket");
    assert_eq!(
        tls.stdout,
        "tls_only@localhost\nSsl_cipher\tTLS_AES_256_GCM_SHA384\n"
    );
}

#[test]
fn a_socket_client_is_localhost_by_name_only() {
    let scratch = ScratchDir::new("local-socket");
    let (server, socket) = start(&scratch, &[]);
    cli(
        &socket,
        "root",
        &[],
        "CREATE USER by_ip@'127.0.0.1' IDENTIFIED BY 'pw'; \
         CREATE USER any_host@'%' IDENTIFIED BY 'pw'",
    )
    .expect_success("create the accounts");
    let by_ip = cli(&socket, "by_ip", &["-ppw"], "SELECT 1");
    assert!(
        by_ip.stderr.contains("ERROR 1045"),
        "a 127.0.0.1 account is not the socket's: {by_ip}"
    );
    let tcp = mariadb_cli(
        server.port(),
        &[
            "--skip-ssl",
            "-uby_ip",
            "-ppw",
            "-e",
            "SELECT CURRENT_USER()",
        ],
        "",
    );
    assert!(
        tcp.stdout.contains("by_ip@127.0.0.1"),
        "over TCP it is: {tcp}"
    );
    let any = cli(&socket, "any_host", &["-ppw"], "SELECT CURRENT_USER()")
        .expect_success("'%' matches localhost");
    assert_eq!(any.stdout, "any_host@%\n");
}

#[test]
fn the_socket_file_is_removed_at_shutdown_and_a_stale_one_replaced() {
    let scratch = ScratchDir::new("local-socket");
    let (mut server, socket) = start(&scratch, &[]);
    let is_socket =
        |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_socket());
    assert!(is_socket(&socket));

    // A second server on the same socket path is refused while the first listens.
    let second = serve_refused(&scratch, "second-data", &socket);
    assert!(
        second.contains("another server is listening there"),
        "{second}"
    );
    assert!(is_socket(&socket), "the first server's socket stays");

    // SIGKILL leaves the file behind; the restart replaces it.
    server.kill9();
    assert!(is_socket(&socket), "a killed server leaves its socket file");
    server.restart();
    cli(&socket, "root", &[], "SELECT 1").expect_success("through the replaced socket");

    // A clean stop removes it.
    drop(server);
    assert!(!socket.exists(), "removed at shutdown");

    // Anything that is not a socket stops startup and is left alone.
    std::fs::write(&socket, "not a socket").expect("write a plain file");
    let refused = serve_refused(&scratch, "third-data", &socket);
    assert!(
        refused.contains("a file that is not a socket is there"),
        "{refused}"
    );
    assert_eq!(
        std::fs::read_to_string(&socket).expect("still there"),
        "not a socket"
    );
}

/// Runs a server on `socket` that must refuse to start; its error output.
fn serve_refused(scratch: &ScratchDir, data_dir: &str, socket: &Path) -> String {
    let mut command = Command::new(manycore_testkit::manycore::manycore_binary());
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(scratch.path().join(data_dir))
        .arg("--socket")
        .arg(socket);
    // Bounded: a server that wrongly starts is killed when the time is up.
    let out = run_bounded(command, b"", Duration::from_secs(20));
    assert!(
        !out.timed_out && out.code == Some(1),
        "the server must refuse: {out}"
    );
    out.stderr
}
