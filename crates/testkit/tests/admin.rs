//! `mariadb-admin` and `mariadb-check` against the server under test
//! (`MANYCORE_TEST_TARGET`).

use manycore_testkit::{mariadb_admin, mariadb_check, mariadb_cli, Server};

#[test]
fn ping_status_and_version() {
    let server = Server::from_env();
    let port = server.port();

    let out = mariadb_admin(port, &["ping"]).expect_success("ping");
    assert!(out.stdout.contains("mysqld is alive"), "{out}");

    let out = mariadb_admin(port, &["status"]).expect_success("status");
    for field in ["Uptime:", "Threads:", "Questions:"] {
        assert!(out.stdout.contains(field), "status lacks {field}: {out}");
    }

    let out = mariadb_admin(port, &["version"]).expect_success("version");
    for field in [
        "Server version",
        "Protocol version",
        "Connection",
        "TCP port",
        "Uptime:",
    ] {
        assert!(out.stdout.contains(field), "version lacks {field}: {out}");
    }
}

#[test]
fn extended_status_processlist_and_variables() {
    let server = Server::from_env();
    let port = server.port();

    let out = mariadb_admin(port, &["extended-status"]).expect_success("extended-status");
    for name in ["| Questions ", "| Uptime ", "| Threads_connected "] {
        assert!(
            out.stdout.contains(name),
            "extended-status lacks {name}: {out}"
        );
    }
    let questions = manycore_testkit::client::status_value(&out.stdout, "Questions");
    assert!(questions.is_some(), "Questions is a number: {out}");

    let out = mariadb_admin(port, &["processlist"]).expect_success("processlist");
    assert!(out.stdout.contains("| Id "), "processlist header: {out}");
    assert!(
        out.stdout.contains("root"),
        "processlist shows our session: {out}"
    );
    assert!(
        out.stdout.contains("show processlist") || out.stdout.contains("SHOW PROCESSLIST"),
        "{out}"
    );

    let out = mariadb_admin(port, &["variables"]).expect_success("variables");
    for name in [
        "| max_allowed_packet ",
        "| version ",
        "| autocommit ",
        "| port ",
    ] {
        assert!(out.stdout.contains(name), "variables lacks {name}: {out}");
    }
    let reported_port = manycore_testkit::client::status_value(&out.stdout, "port");
    assert_eq!(
        reported_port,
        Some(u64::from(port)),
        "@@port is the port we listen on"
    );

    // Several commands in one run, and an unknown command failing cleanly.
    let out = mariadb_admin(port, &["ping", "ping"]).expect_success("ping ping");
    assert_eq!(out.stdout.matches("mysqld is alive").count(), 2, "{out}");
    let out = mariadb_admin(port, &["no-such-command"]);
    assert!(!out.success(), "{out}");
    assert!(server.is_alive());
}

#[test]
fn mariadb_check_checks_analyzes_and_repairs_every_table() {
    let server = Server::from_env();
    let port = server.port();
    let setup = "DROP DATABASE IF EXISTS check_test; CREATE DATABASE check_test; \
                 USE check_test; \
                 CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10), UNIQUE KEY (v)); \
                 INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, NULL); \
                 UPDATE t SET v = 'c' WHERE id = 2; \
                 CREATE TABLE u (n INT, KEY (n)); INSERT INTO u VALUES (1), (1);";
    mariadb_cli(port, &[], setup).expect_success("set-up");
    // One line per table, its name then its status.
    let lines = |out: &manycore_testkit::CommandOutput| -> Vec<Vec<String>> {
        let words = |line: &str| line.split_whitespace().map(str::to_string).collect();
        out.stdout.lines().map(words).collect()
    };
    let ok = |table: &str| vec![format!("check_test.{table}"), "OK".to_string()];
    for args in [
        &["check_test"][..],
        &["--analyze", "check_test"],
        &["--check", "--extended", "check_test", "t"],
    ] {
        let out = mariadb_check(port, args).expect_success("mariadb-check");
        let expected: Vec<_> = ["t", "u"]
            .into_iter()
            .filter(|table| args.len() < 3 || *table == "t")
            .map(ok)
            .collect();
        assert_eq!(lines(&out), expected, "{args:?}: {out}");
    }
    let out = mariadb_check(port, &["--repair", "check_test", "t"]).expect_success("repair");
    assert!(
        out.stdout.contains("doesn't support repair"),
        "REPAIR says it repairs nothing: {out}"
    );
    mariadb_cli(port, &[], "DROP DATABASE check_test").expect_success("clean-up");
}
