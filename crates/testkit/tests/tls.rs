//! TLS with real clients: the `mariadb` CLI (libmariadb + OpenSSL), PyMySQL (Python's
//! ssl module) and the Rust `mysql` driver (rustls); `--require-secure-transport`;
//! the certificate files; caching_sha2_password full authentication over TLS and with
//! RSA key exchange.
//!
//! manycore only: the MariaDB that testkit starts has no certificate (10.11 does not make
//! one). The MariaDB behaviour copied here was checked by hand against 10.11: a plain
//! login under require_secure_transport gets 1045 (28000), Ssl_cipher uses OpenSSL's
//! names, and the CLI's `status` prints "SSL: Cipher in use is ...".

use manycore_testkit::client::{mariadb_cli, opts, CommandOutput};
use manycore_testkit::manycore::ManycoreServer;
use mysql::prelude::Queryable;
use mysql::{ChangeUserOpts, Conn, Opts, SslOpts};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

const TLS: &[&str] = &["--ssl", "--skip-ssl-verify-server-cert"];

fn cli(port: u16, tls: bool, extra: &[&str], sql: &str) -> CommandOutput {
    let mut args: Vec<&str> = if tls {
        TLS.to_vec()
    } else {
        vec!["--skip-ssl"]
    };
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--batch", "-e", sql]);
    mariadb_cli(port, &args, "")
}

/// The value column of `SHOW STATUS LIKE 'name'` in batch output.
fn status_line(out: &CommandOutput, name: &str) -> String {
    out.stdout
        .lines()
        .find_map(|line| line.strip_prefix(&format!("{name}\t")))
        .unwrap_or_else(|| panic!("no {name} in {out}"))
        .to_string()
}

#[test]
fn cli_over_tls_shows_the_cipher_and_plain_tcp_shows_none() {
    let server = ManycoreServer::start();
    let port = server.port();
    let out = cli(port, true, &[], "\\s").expect_success("status over TLS");
    assert!(
        out.stdout
            .contains("Cipher in use is TLS_AES_256_GCM_SHA384"),
        "{out}"
    );
    let out = cli(port, true, &[], "SHOW STATUS LIKE 'Ssl%'").expect_success("Ssl%");
    assert_eq!(status_line(&out, "Ssl_version"), "TLSv1.3");
    assert_eq!(status_line(&out, "Ssl_cipher"), "TLS_AES_256_GCM_SHA384");

    let out = cli(port, false, &[], "\\s").expect_success("status over TCP");
    assert!(out.stdout.contains("Not in use"), "{out}");
    let out = cli(port, false, &[], "SHOW STATUS LIKE 'Ssl_version'").expect_success("plain");
    assert_eq!(status_line(&out, "Ssl_version"), "");

    let out = cli(
        port,
        true,
        &["--tls-version=TLSv1.2"],
        "SHOW STATUS LIKE 'Ssl%'",
    )
    .expect_success("TLS 1.2");
    assert_eq!(status_line(&out, "Ssl_version"), "TLSv1.2");
    assert!(
        status_line(&out, "Ssl_cipher").starts_with("ECDHE-ECDSA-"),
        "{out}"
    );
    let out = cli(port, true, &["--tls-version=TLSv1.1"], "SELECT 1");
    assert!(!out.success(), "TLS 1.1 must be refused: {out}");

    let out = cli(
        port,
        true,
        &[],
        "SELECT @@have_ssl, @@have_openssl, @@require_secure_transport, @@tls_version",
    )
    .expect_success("variables");
    assert!(out.stdout.contains("YES\tYES\t0\tTLSv1.2,TLSv1.3"), "{out}");
}

#[test]
fn generated_certificate_verifies_and_survives_restarts() {
    let mut server = ManycoreServer::start();
    let data = server.data_dir();
    let cert = data.join("tls-cert.pem");
    let ca = format!("--ssl-ca={}", cert.display());
    let verify = ["--ssl-verify-server-cert", ca.as_str()];
    cli(server.port(), true, &verify, "SELECT 1").expect_success("verified against the file");
    let out = cli(server.port(), true, &[], "SELECT @@ssl_cert, @@ssl_key").expect_success("");
    assert!(out.stdout.contains("tls-cert.pem\t"), "{out}");
    for private in ["tls-key.pem", "rsa-private.pem"] {
        assert_eq!(mode(&data.join(private)), 0o600, "{private}");
    }
    let before = std::fs::read(&cert).expect("certificate");
    server.restart();
    assert_eq!(std::fs::read(&cert).expect("certificate"), before);
    cli(server.port(), true, &verify, "SELECT 1").expect_success("same certificate");
}

#[test]
fn operator_certificate_is_used_instead_of_generating_one() {
    let first = ManycoreServer::start();
    let keep = first.data_dir().join("../operator");
    std::fs::create_dir_all(&keep).expect("dir");
    let cert = keep.join("server-cert.pem");
    let key = keep.join("server-key.pem");
    std::fs::copy(first.data_dir().join("tls-cert.pem"), &cert).expect("copy cert");
    std::fs::copy(first.data_dir().join("tls-key.pem"), &key).expect("copy key");
    let cert_arg = cert.display().to_string();
    let key_arg = key.display().to_string();
    let second =
        ManycoreServer::start_with(&["--tls-cert", cert_arg.as_str(), "--tls-key", &key_arg]);
    let out = cli(second.port(), true, &[], "SELECT @@ssl_cert").expect_success("ssl_cert");
    assert!(out.stdout.contains("server-cert.pem"), "{out}");
    assert!(!second.data_dir().join("tls-cert.pem").exists());
}

#[test]
fn require_secure_transport_refuses_plain_logins_like_mariadb() {
    let server = ManycoreServer::start_with(&["--require-secure-transport"]);
    let port = server.port();
    let out = cli(port, false, &[], "SELECT 1");
    assert!(
        out.stderr
            .contains("ERROR 1045 (28000): Access denied for user 'root'@'localhost'"),
        "{out}"
    );
    let out = cli(port, true, &[], "SELECT @@require_secure_transport").expect_success("TLS");
    assert!(out.stdout.contains('1'), "{out}");
    cli(port, true, &[], "SET GLOBAL require_secure_transport = OFF").expect_success("SET");
    cli(port, false, &[], "SELECT 1").expect_success("plain login after SET GLOBAL ... OFF");
}

#[test]
fn rust_driver_over_tls() {
    let server = ManycoreServer::start();
    let ssl = SslOpts::default().with_danger_accept_invalid_certs(true);
    let builder = opts(server.port(), None).ssl_opts(Some(ssl));
    let mut conn = Conn::new(Opts::from(builder)).expect("TLS connection");
    let row: Option<(String, String)> = conn
        .query_first("SHOW STATUS LIKE 'Ssl_version'")
        .expect("query");
    assert_eq!(row.map(|r| r.1).as_deref(), Some("TLSv1.3"));
    let big = "x".repeat(1 << 20);
    let echoed: Option<String> = conn.exec_first("SELECT ?", (big.as_str(),)).expect("1 MiB");
    assert_eq!(echoed.as_deref(), Some(big.as_str()));
}

#[test]
fn change_user_keeps_tls() {
    let server = ManycoreServer::start();
    let ssl = SslOpts::default().with_danger_accept_invalid_certs(true);
    let builder = opts(server.port(), None).ssl_opts(Some(ssl));
    let mut conn = Conn::new(Opts::from(builder)).expect("TLS connection");
    conn.query_drop("CREATE DATABASE tlsdb")
        .expect("create database");
    conn.change_user(ChangeUserOpts::default().with_db_name(Some("tlsdb".into())))
        .expect("COM_CHANGE_USER");
    let row: Option<(String, String)> = conn
        .query_first("SHOW STATUS LIKE 'Ssl_version'")
        .expect("query");
    assert_eq!(row.map(|r| r.1).as_deref(), Some("TLSv1.3"));
    let database: Option<String> = conn.query_first("SELECT DATABASE()").expect("query");
    assert_eq!(database.as_deref(), Some("tlsdb"));
}

/// Debian's python3 with PyMySQL (`python3-pymysql`, installed by scripts/test.sh), or
/// None after a loud message.
fn pymysql() -> Option<&'static str> {
    let python = "/usr/bin/python3";
    let found = Command::new(python)
        .args(["-c", "import pymysql, cryptography"])
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        eprintln!(
            "\n!!! SKIPPED: {python} cannot import pymysql and cryptography; install \
             python3-pymysql python3-cryptography (scripts/test.sh does) !!!\n"
        );
    }
    found.then_some(python)
}

/// Runs a PyMySQL script with PORT, CERT, USER and PASSWORD defined; its stdout.
fn run_pymysql(python: &str, port: u16, cert: &Path, user: &str, password: &str, body: &str) {
    let script = format!(
        "import pymysql, ssl\nPORT = {port}\nCERT = {cert:?}\nUSER = {user:?}\n\
         PASSWORD = {password:?}\n{body}",
        cert = cert.display().to_string(),
    );
    let mut command = Command::new(python);
    command.args(["-c", &script]);
    let out = manycore_testkit::client::run_bounded(command, b"", Duration::from_secs(60));
    assert!(out.success(), "PyMySQL script failed: {out}\n{script}");
}

#[test]
fn pymysql_over_tls_verifies_the_certificate() {
    let Some(python) = pymysql() else { return };
    let server = ManycoreServer::start();
    let cert = server.data_dir().join("tls-cert.pem");
    run_pymysql(
        python,
        server.port(),
        &cert,
        "root",
        "",
        r#"
c = pymysql.connect(host="127.0.0.1", port=PORT, user=USER, password=PASSWORD,
                    ssl={"ca": CERT})
cur = c.cursor()
cur.execute("SHOW STATUS LIKE 'Ssl_version'")
assert cur.fetchall() == (("Ssl_version", "TLSv1.3"),)
cur.execute("SELECT 1 + 1")
assert cur.fetchone() == (2,)
"#,
    );
}

/// caching_sha2_password full authentication with a password: over TLS (cleartext, and
/// libmariadb's cleartext-first variant) and over plain TCP with the server's RSA key.
#[test]
fn caching_sha2_full_authentication_with_real_clients() {
    let server = ManycoreServer::start();
    let port = server.port();
    let mut root = manycore_testkit::client::connect(port);
    let users = ["cli_tls", "cli_rsa", "py_tls", "py_rsa"];
    for user in users {
        let create = format!(
            "CREATE USER '{user}'@'localhost' IDENTIFIED WITH caching_sha2_password BY 'Secret-9'"
        );
        root.query_drop(&create).expect("CREATE USER");
    }
    // First logins find no cache entry: full authentication.
    let login = |user: &str, tls: bool| {
        let password = "-pSecret-9";
        let args: Vec<&str> = if tls {
            TLS.to_vec()
        } else {
            vec!["--skip-ssl"]
        };
        let mut command = Command::new("mariadb");
        command
            .args(["--no-defaults", "--protocol=TCP", "-h127.0.0.1"])
            .arg(format!("-P{port}"))
            .arg(format!("-u{user}"))
            .arg(password)
            .args(args)
            .args(["--batch", "-e", "SELECT CURRENT_USER()"]);
        manycore_testkit::client::run_bounded(command, b"", Duration::from_secs(60))
    };
    login("cli_tls", true).expect_success("mariadb CLI, full auth over TLS");
    login("cli_rsa", false).expect_success("mariadb CLI, full auth with RSA");
    login("cli_rsa", false).expect_success("mariadb CLI, fast auth after a full one");
    let wrong = {
        let mut command = Command::new("mariadb");
        command
            .args([
                "--no-defaults",
                "--protocol=TCP",
                "-h127.0.0.1",
                "-ucli_rsa",
            ])
            .arg(format!("-P{port}"))
            .args(["-pwrong", "--skip-ssl", "-e", "SELECT 1"]);
        manycore_testkit::client::run_bounded(command, b"", Duration::from_secs(60))
    };
    assert!(wrong.stderr.contains("ERROR 1045 (28000)"), "{wrong}");

    // The Rust driver: full auth with RSA (first login), then TLS.
    for tls in [false, true] {
        let mut builder = opts(port, None)
            .user(Some("rust_sha2"))
            .pass(Some("Secret-9"));
        if tls {
            let ssl = SslOpts::default().with_danger_accept_invalid_certs(true);
            builder = builder.ssl_opts(Some(ssl));
        }
        if !tls {
            root.query_drop(
                "CREATE USER 'rust_sha2'@'localhost' IDENTIFIED WITH caching_sha2_password \
                 BY 'Secret-9'",
            )
            .expect("create rust_sha2");
        }
        let mut conn = Conn::new(Opts::from(builder.clone())).expect("mysql driver login");
        let one: Option<i64> = conn.query_first("SELECT 1").expect("query");
        assert_eq!(one, Some(1));
        let wrong = Conn::new(Opts::from(builder.pass(Some("wrong"))));
        let message = wrong.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(message.contains("1045"), "{message}");
    }
    // COM_CHANGE_USER to an account never logged in to: full authentication with RSA
    // inside the command phase.
    root.query_drop(
        "CREATE USER 'change_sha2'@'localhost' IDENTIFIED WITH caching_sha2_password \
         BY 'Secret-9'",
    )
    .expect("create change_sha2");
    let change = ChangeUserOpts::default()
        .with_user(Some("change_sha2".into()))
        .with_pass(Some("Secret-9".into()));
    root.change_user(change)
        .expect("COM_CHANGE_USER with full auth");
    let who: Option<String> = root.query_first("SELECT CURRENT_USER()").expect("query");
    assert_eq!(who.as_deref(), Some("change_sha2@localhost"));

    let Some(python) = pymysql() else { return };
    let cert = server.data_dir().join("tls-cert.pem");
    let body = r#"
kwargs = dict(host="127.0.0.1", port=PORT, user=USER, password=PASSWORD)
if USER == "py_tls":
    kwargs["ssl"] = {"ca": CERT}
c = pymysql.connect(**kwargs)
cur = c.cursor()
cur.execute("SELECT 1")
assert cur.fetchone() == (1,)
"#;
    run_pymysql(python, port, &cert, "py_tls", "Secret-9", body);
    run_pymysql(python, port, &cert, "py_rsa", "Secret-9", body);
}

fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .expect("file exists")
        .permissions()
        .mode()
        & 0o777
}
