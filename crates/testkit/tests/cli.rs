//! The `mariadb` command-line client against the server under test
//! (`MANYCORE_TEST_TARGET`, default manycore): a scripted session, batch output,
//! table output and `-e`.

use manycore_testkit::{mariadb_cli, Server};

#[test]
fn scripted_session_shows_results_errors_and_warnings() {
    let server = Server::from_env();
    let script = "\
status
CREATE DATABASE clitest;
USE clitest;
SHOW TABLES;
CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20));
INSERT INTO t VALUES (1, 'one'), (2, 'two');
SELECT * FROM t ORDER BY id;
SELECT * FROM nope;
SELECT 'still here' AS msg;
SELECT 1 / 0 AS q;
SHOW WARNINGS;
SHOW TABLES;
";
    // --force keeps the session going after an error, as an interactive session does.
    let out = mariadb_cli(server.port(), &["--force"], script);
    assert!(!out.timed_out, "mariadb hung: {out}");
    // `status` reports the connection it is on.
    assert!(
        out.stdout.contains("Connection id:"),
        "status output missing: {out}"
    );
    assert!(
        out.stdout.contains("Server version:"),
        "status output missing: {out}"
    );
    assert!(
        out.stdout.contains("TCP/IP"),
        "status shows the transport: {out}"
    );
    // Batch output: tab-separated, a header line, no table borders.
    assert!(
        out.stdout.contains("id\tname\n1\tone\n2\ttwo\n"),
        "rows: {out}"
    );
    assert!(
        out.stderr.contains("ERROR 1146 (42S02)") && out.stderr.contains("nope"),
        "error for the missing table: {out}"
    );
    assert!(
        out.stdout.contains("msg\nstill here\n"),
        "session went on after the error: {out}"
    );
    assert!(out.stdout.contains("q\nNULL\n"), "1/0 is NULL: {out}");
    assert!(
        out.stdout.contains("Warning\t1365\tDivision by 0"),
        "warnings: {out}"
    );
    assert!(
        out.stdout.contains("Tables_in_clitest\nt\n"),
        "SHOW TABLES: {out}"
    );
    assert!(!out.timed_out);
}

#[test]
fn batch_table_and_execute_modes() {
    let server = Server::from_env();
    let port = server.port();
    mariadb_cli(
        port,
        &[],
        "CREATE DATABASE b; CREATE TABLE b.t (a INT, s VARCHAR(10)); \
         INSERT INTO b.t VALUES (1, 'x'), (2, NULL), (3, 'tab\there');",
    )
    .expect_success("setup");

    let out = mariadb_cli(
        port,
        &["--batch", "-e", "SELECT a, s FROM b.t ORDER BY a"],
        "",
    )
    .expect_success("--batch -e");
    assert_eq!(out.stdout, "a\ts\n1\tx\n2\tNULL\n3\ttab\\there\n");

    let out = mariadb_cli(port, &["-N", "-B", "-e", "SELECT COUNT(*) FROM b.t"], "")
        .expect_success("-N -B -e");
    assert_eq!(out.stdout, "3\n");

    let out = mariadb_cli(
        port,
        &["--table", "-e", "SELECT a, s FROM b.t WHERE a = 1"],
        "",
    )
    .expect_success("--table -e");
    assert_eq!(
        out.stdout,
        "+------+------+\n| a    | s    |\n+------+------+\n|    1 | x    |\n+------+------+\n"
    );

    let out = mariadb_cli(port, &["-e", "SELECT a FROM b.t WHERE a = 2\\G"], "")
        .expect_success("vertical output");
    assert!(
        out.stdout
            .contains("*************************** 1. row ***************************\na: 2\n"),
        "{out}"
    );

    // Several statements in one -e, and a database given on the command line.
    let out = mariadb_cli(
        port,
        &["-N", "b", "-e", "SELECT DATABASE(); SELECT MAX(a) FROM t"],
        "",
    )
    .expect_success("database argument");
    assert_eq!(out.stdout, "b\n3\n");

    // An error in -e: message on stderr, exit code 1, no stdout.
    let out = mariadb_cli(port, &["-e", "SELEC 1"], "");
    assert_eq!(out.code, Some(1), "{out}");
    assert!(out.stderr.contains("ERROR 1064 (42000)"), "{out}");

    // Without --force, batch input stops at the first error.
    let out = mariadb_cli(
        port,
        &["-N"],
        "SELECT 1;\nSELECT * FROM b.nope;\nSELECT 2;\n",
    );
    assert_eq!(out.code, Some(1), "{out}");
    assert_eq!(out.stdout, "1\n");
    assert!(out.stderr.contains("ERROR 1146 (42S02) at line 2"), "{out}");
}
