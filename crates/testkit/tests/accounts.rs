//! Accounts and privileges with real clients (the `mariadb` CLI and the Rust `mysql`
//! driver) against the server under test (`MANYCORE_TEST_TARGET`, default manycore):
//! logins with passwords, 1045 that does not reveal whether a user exists, 1142/1044 for
//! missing privileges, grant tables not readable without a grant, GRANT and REVOKE
//! reaching an open session's next statement, and (manycore) accounts surviving a
//! restart and the refusal to listen beyond loopback with a password-less account.

use manycore_testkit::client::{opts, run_bounded};
use manycore_testkit::manycore::manycore_binary;
use manycore_testkit::process::{free_port, ScratchDir};
use manycore_testkit::{mariadb_cli, Server};
use mysql::prelude::Queryable;
use mysql::{Conn, Opts};
use std::process::Command;
use std::time::Duration;

fn connect_as(port: u16, user: &str, password: &str) -> Result<Conn, mysql::Error> {
    Conn::new(Opts::from(
        opts(port, None)
            .user(Some(user))
            .pass(Some(password.to_string())),
    ))
}

fn error_of<T: std::fmt::Debug>(result: Result<T, mysql::Error>) -> (u16, String, String) {
    match result {
        Err(mysql::Error::MySqlError(e)) => (e.code, e.state, e.message),
        other => panic!("expected a server error, got {other:?}"),
    }
}

fn setup(root: &mut Conn) {
    for statement in [
        "DROP USER IF EXISTS alice@localhost",
        "DROP DATABASE IF EXISTS acct",
        "CREATE DATABASE acct",
        "CREATE TABLE acct.t (id INT PRIMARY KEY, v VARCHAR(10))",
        "CREATE TABLE acct.hidden (id INT PRIMARY KEY)",
        "INSERT INTO acct.t VALUES (1, 'one')",
        "CREATE USER alice@localhost IDENTIFIED BY 'secret'",
        "GRANT SELECT ON acct.t TO alice@localhost",
    ] {
        root.query_drop(statement)
            .unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
}

#[test]
fn password_logins_and_denials_with_the_cli_and_the_driver() {
    let server = Server::from_env();
    let port = server.port();
    setup(&mut server.connect());

    // The CLI logs in with the password and reads what the grant allows.
    let out = mariadb_cli(
        port,
        &["-ualice", "-psecret", "-N", "-e", "SELECT v FROM acct.t"],
        "",
    );
    assert!(out.success(), "{out}");
    assert_eq!(out.stdout.trim(), "one");

    // Wrong password and unknown user: the same 1045, naming no difference.
    let wrong = mariadb_cli(port, &["-ualice", "-pwrong", "-e", "SELECT 1"], "");
    let unknown = mariadb_cli(port, &["-umallory", "-pwrong", "-e", "SELECT 1"], "");
    assert!(
        wrong.stderr.contains(
            "ERROR 1045 (28000): Access denied for user 'alice'@'localhost' (using password: YES)"
        ),
        "{wrong}"
    );
    assert!(
        unknown
            .stderr
            .contains("ERROR 1045 (28000): Access denied for user 'mallory'@'localhost' (using password: YES)"),
        "{unknown}"
    );
    let (code, state, _) = error_of(connect_as(port, "alice", "wrong"));
    assert_eq!((code, state.as_str()), (1045, "28000"));
    let (code, state, _) = error_of(connect_as(port, "mallory", ""));
    assert_eq!((code, state.as_str()), (1045, "28000"));

    // Missing privileges: 1142 for tables (existing or not), 1044 for databases.
    let mut alice = connect_as(port, "alice", "secret").expect("alice logs in");
    let (code, state, message) = error_of(alice.query_drop("INSERT INTO acct.t VALUES (2, 'x')"));
    assert_eq!((code, state.as_str()), (1142, "42000"));
    assert_eq!(
        message,
        "INSERT command denied to user 'alice'@'localhost' for table `acct`.`t`"
    );
    let (code, _, message) = error_of(alice.query_drop("SELECT * FROM mysql.user"));
    assert_eq!(code, 1142);
    assert_eq!(
        message,
        "SELECT command denied to user 'alice'@'localhost' for table `mysql`.`user`"
    );
    let (code, _, _) = error_of(alice.query_drop("SELECT * FROM acct.hidden"));
    assert_eq!(code, 1142);
    let (code, state, message) = error_of(alice.query_drop("USE mysql"));
    assert_eq!((code, state.as_str()), (1044, "42000"));
    assert_eq!(
        message,
        "Access denied for user 'alice'@'localhost' to database 'mysql'"
    );
    let (code, _, _) = error_of(alice.query_drop("CREATE USER bob@localhost"));
    assert_eq!(code, 1227);
    let tables: Vec<String> = alice.query("SHOW TABLES FROM acct").expect("show tables");
    assert_eq!(tables, ["t"]);
    let who: Vec<(String, String)> = alice
        .query("SELECT CURRENT_USER(), USER()")
        .expect("current_user");
    assert_eq!(who[0].0, "alice@localhost");

    // A grant reaches the open session's next statement; a revoke takes it away.
    let mut root = server.connect();
    root.query_drop("GRANT INSERT ON acct.* TO alice@localhost")
        .expect("grant");
    alice
        .query_drop("INSERT INTO acct.t VALUES (2, 'two')")
        .expect("insert after grant");
    let mut prepared = alice
        .prep("SELECT v FROM acct.t WHERE id = ?")
        .expect("prepare");
    let v: Option<String> = alice.exec_first(&prepared, (2,)).expect("execute");
    assert_eq!(v.as_deref(), Some("two"));
    root.query_drop("REVOKE SELECT ON acct.t FROM alice@localhost")
        .expect("revoke");
    let (code, _, _) = error_of(alice.exec_first::<String, _, _>(&prepared, (2,)));
    assert_eq!(code, 1142);
    prepared = alice.prep("SELECT 1").expect("prepare");
    let _: Option<i64> = alice.exec_first(&prepared, ()).expect("still connected");
    root.query_drop("DROP USER alice@localhost").expect("drop");
}

#[test]
fn locked_accounts_and_password_changes() {
    let server = Server::from_env();
    let port = server.port();
    let mut root = server.connect();
    for statement in [
        "DROP USER IF EXISTS carol@localhost",
        "CREATE USER carol@localhost IDENTIFIED BY 'one' ACCOUNT LOCK",
    ] {
        root.query_drop(statement)
            .unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
    let (code, _, message) = error_of(connect_as(port, "carol", "one"));
    assert_eq!(
        (code, message.as_str()),
        (4151, "Access denied, this account is locked")
    );
    // A wrong password on a locked account says nothing about the lock.
    let (code, _, _) = error_of(connect_as(port, "carol", "two"));
    assert_eq!(code, 1045);
    root.query_drop("ALTER USER carol@localhost ACCOUNT UNLOCK")
        .expect("unlock");
    let mut carol = connect_as(port, "carol", "one").expect("unlocked");
    carol
        .query_drop("SET PASSWORD = PASSWORD('two')")
        .expect("own password");
    let (code, _, _) = error_of(connect_as(port, "carol", "one"));
    assert_eq!(code, 1045);
    connect_as(port, "carol", "two").expect("new password");
    root.query_drop("DROP USER carol@localhost").expect("drop");
}

#[test]
fn accounts_and_grants_survive_a_restart() {
    let Server::Manycore(mut server) = Server::from_env() else {
        return; // Restarting is the testkit's manycore server only.
    };
    let port = server.port();
    setup(&mut manycore_testkit::client::connect(port));
    let mut root = manycore_testkit::client::connect(port);
    root.query_drop(
        "CREATE USER dave@localhost IDENTIFIED WITH caching_sha2_password BY 'pw' REQUIRE SSL",
    )
    .expect("create dave");
    drop(root);
    server.restart();
    let mut alice = connect_as(port, "alice", "secret").expect("alice after restart");
    let v: Option<String> = alice
        .query_first("SELECT v FROM acct.t WHERE id = 1")
        .expect("select after restart");
    assert_eq!(v.as_deref(), Some("one"));
    let (code, _, _) = error_of(alice.query_drop("INSERT INTO acct.t VALUES (3, 'x')"));
    assert_eq!(code, 1142);
    let mut root = manycore_testkit::client::connect(port);
    let grants: Vec<String> = root
        .query("SHOW GRANTS FOR dave@localhost")
        .expect("show grants");
    assert!(
        grants[0].contains("IDENTIFIED VIA caching_sha2_password USING '$A$005$")
            && grants[0].ends_with("REQUIRE SSL"),
        "{grants:?}"
    );
    // REQUIRE SSL: a plain connection is refused like a wrong password.
    let (code, _, _) = error_of(connect_as(port, "dave", "pw"));
    assert_eq!(code, 1045);
}

#[test]
fn refuses_to_listen_beyond_loopback_while_root_has_no_password() {
    if manycore_testkit::Target::from_env() != manycore_testkit::Target::Manycore {
        return;
    }
    let dir = ScratchDir::new("testkit-listen");
    let mut command = Command::new(manycore_binary());
    command
        .arg("serve")
        .arg("--listen")
        .arg(format!("0.0.0.0:{}", free_port()))
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .arg("--workers")
        .arg("1");
    let out = run_bounded(command, b"", Duration::from_secs(60));
    assert!(!out.timed_out && !out.success(), "{out}");
    assert!(
        out.stderr.contains("refusing to listen on 0.0.0.0")
            && out.stderr.contains("'root'@'localhost' has no password")
            && out
                .stderr
                .contains("ALTER USER 'root'@'localhost' IDENTIFIED BY"),
        "{out}"
    );
}
