//! Accounts and privileges with real clients (the `mariadb` CLI and the Rust `mysql`
//! driver) against the server under test (`MANYCORE_TEST_TARGET`, default manycore):
//! logins with passwords, 1045 that does not reveal whether a user exists, 1142/1044 for
//! missing privileges, grant tables not readable without a grant, GRANT and REVOKE
//! reaching an open session's next statement, and (manycore) accounts surviving a
//! restart and the refusal to listen beyond loopback with a password-less account.

use manycore_testkit::client::{connect_as, error_of, run_bounded};
use manycore_testkit::manycore::manycore_binary;
use manycore_testkit::process::{free_port, ScratchDir};
use manycore_testkit::{mariadb_cli, Server};
use mysql::prelude::Queryable;
use mysql::Conn;
use std::process::Command;
use std::time::{Duration, Instant};

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
    // A data directory from before column privileges has no mysql.columns_priv: startup
    // creates it.
    let mut root = manycore_testkit::client::connect(port);
    root.query_drop("DROP TABLE mysql.columns_priv")
        .expect("drop columns_priv");
    drop(root);
    server.restart();
    let mut root = manycore_testkit::client::connect(port);
    root.query_drop(
        "CREATE USER dave@localhost IDENTIFIED WITH caching_sha2_password BY 'pw' REQUIRE SSL",
    )
    .expect("create dave");
    root.query_drop("GRANT SELECT (id) ON acct.hidden TO alice@localhost")
        .expect("column grant in the re-created columns_priv");
    drop(root);
    server.restart();
    let mut alice = connect_as(port, "alice", "secret").expect("alice after restart");
    let v: Option<String> = alice
        .query_first("SELECT v FROM acct.t WHERE id = 1")
        .expect("select after restart");
    assert_eq!(v.as_deref(), Some("one"));
    let (code, _, _) = error_of(alice.query_drop("INSERT INTO acct.t VALUES (3, 'x')"));
    assert_eq!(code, 1142);
    alice
        .query_drop("SELECT id FROM acct.hidden")
        .expect("column grant after restart");
    let mut root = manycore_testkit::client::connect(port);
    let grants: Vec<String> = root
        .query("SHOW GRANTS FOR alice@localhost")
        .expect("show grants");
    assert!(
        grants.contains(&"GRANT SELECT (`id`) ON `acct`.`hidden` TO `alice`@`localhost`".into()),
        "{grants:?}"
    );
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

/// `sql` as `conn` fails with `code` and `message`, SQLSTATE 42000.
fn assert_denied(conn: &mut Conn, sql: &str, code: u16, message: &str) {
    let (got, state, text) = error_of(conn.query_drop(sql));
    assert_eq!(
        (got, state.as_str(), text.as_str()),
        (code, "42000", message),
        "{sql}"
    );
}

#[test]
fn column_privileges_with_a_restricted_user() {
    let server = Server::from_env();
    let port = server.port();
    let mut root = server.connect();
    for statement in [
        "DROP USER IF EXISTS colin@localhost",
        "DROP DATABASE IF EXISTS acct_cols",
        "CREATE DATABASE acct_cols",
        "CREATE TABLE acct_cols.t (a INT PRIMARY KEY, b INT, c INT, d INT)",
        "INSERT INTO acct_cols.t VALUES (1, 10, 100, 1000)",
        "CREATE TABLE acct_cols.other (id INT PRIMARY KEY)",
        "CREATE TABLE acct_cols.hidden (id INT PRIMARY KEY)",
        "CREATE USER colin@localhost IDENTIFIED BY 'pw'",
        "GRANT SELECT (a, b), INSERT (a, b), UPDATE (b), REFERENCES (c) ON acct_cols.t \
         TO colin@localhost",
    ] {
        root.query_drop(statement)
            .unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
    let mut colin = connect_as(port, "colin", "pw").expect("colin logs in");
    colin
        .query_drop("USE acct_cols")
        .expect("column grants open the database");

    // What the grants allow.
    let rows: Vec<(i32, i32)> = colin
        .query("SELECT a, b FROM t WHERE a = 1 ORDER BY b")
        .expect("granted columns");
    assert_eq!(rows, [(1, 10)]);
    let count: Option<i64> = colin.query_first("SELECT COUNT(*) FROM t").expect("count");
    assert_eq!(count, Some(1));
    colin
        .query_drop("INSERT INTO t (a, b) VALUES (2, 20)")
        .expect("insert granted columns");
    colin
        .query_drop("UPDATE t SET b = b + a WHERE a = 2")
        .expect("update b reading a and b");
    let b: Option<i32> = colin
        .query_first("SELECT b FROM t WHERE a = 2")
        .expect("read");
    assert_eq!(b, Some(22));
    // Only the columns with some privilege are described; the table is listed.
    let fields: Vec<String> = colin
        .query_map("SHOW COLUMNS FROM t", |row: mysql::Row| {
            row.get::<String, _>(0).expect("Field")
        })
        .expect("show columns");
    assert_eq!(fields, ["a", "b", "c"]);
    let tables: Vec<String> = colin.query("SHOW TABLES").expect("show tables");
    assert_eq!(tables, ["t"]);

    // A column read anywhere, written or inserted without the privilege: 1143.
    let column = |command: &str, column: &str| {
        format!(
            "{command} command denied to user 'colin'@'localhost' for column '{column}' in \
             table 't'"
        )
    };
    for (sql, command, name) in [
        ("SELECT c FROM t", "SELECT", "c"),
        ("SELECT a FROM t WHERE c = 1", "SELECT", "c"),
        ("SELECT a FROM t ORDER BY d", "SELECT", "d"),
        ("SELECT COUNT(*) FROM t GROUP BY c", "SELECT", "c"),
        ("SELECT COUNT(*) FROM t HAVING MAX(d) > 0", "SELECT", "d"),
        ("SELECT COUNT(c) FROM t", "SELECT", "c"),
        ("INSERT INTO t (a, c) VALUES (3, 3)", "INSERT", "c"),
        ("UPDATE t SET a = 5", "UPDATE", "a"),
        ("UPDATE t SET b = c", "SELECT", "c"),
        ("UPDATE t SET b = 1 WHERE d = 1", "SELECT", "d"),
        // ON DUPLICATE KEY UPDATE: the inserted columns need UPDATE too (MariaDB).
        (
            "INSERT INTO t (a) VALUES (1) ON DUPLICATE KEY UPDATE b = 5",
            "UPDATE",
            "a",
        ),
    ] {
        assert_denied(&mut colin, sql, 1143, &column(command, name));
    }
    // Every column implicitly, or a privilege with no column level: 1142 on the table.
    let table = |command: &str, table: &str| {
        format!(
            "{command} command denied to user 'colin'@'localhost' for table `acct_cols`.`{table}`"
        )
    };
    for (sql, command, name) in [
        ("SELECT * FROM t", "SELECT", "t"),
        ("INSERT INTO t VALUES (3, 3, 3, 3)", "INSERT", "t"),
        ("DELETE FROM t WHERE a = 1", "DELETE", "t"),
        ("SHOW CREATE TABLE t", "SHOW", "t"),
        ("SELECT * FROM hidden", "SELECT", "hidden"),
    ] {
        assert_denied(&mut colin, sql, 1142, &table(command, name));
    }

    // A prepared statement is checked again after a REVOKE, and again after a GRANT.
    let prepared = colin.prep("SELECT b FROM t WHERE a = ?").expect("prepare");
    let b: Option<i32> = colin.exec_first(&prepared, (1,)).expect("execute");
    assert_eq!(b, Some(10));
    root.query_drop("REVOKE SELECT (b) ON acct_cols.t FROM colin@localhost")
        .expect("revoke");
    let (code, _, message) = error_of(colin.exec_first::<i32, _, _>(&prepared, (1,)));
    assert_eq!((code, message), (1143, column("SELECT", "b")));
    root.query_drop("GRANT SELECT (b) ON acct_cols.t TO colin@localhost")
        .expect("grant");
    let b: Option<i32> = colin.exec_first(&prepared, (1,)).expect("execute again");
    assert_eq!(b, Some(10));

    // ON DUPLICATE KEY UPDATE needs UPDATE, REPLACE needs DELETE, besides INSERT.
    root.query_drop("GRANT INSERT ON acct_cols.other TO colin@localhost")
        .expect("grant insert");
    colin
        .query_drop("INSERT INTO other VALUES (1)")
        .expect("plain insert");
    assert_denied(
        &mut colin,
        "INSERT INTO other VALUES (1) ON DUPLICATE KEY UPDATE id = 2",
        1142,
        &table("UPDATE", "other"),
    );
    assert_denied(
        &mut colin,
        "REPLACE INTO other VALUES (1)",
        1142,
        &table("DELETE", "other"),
    );
    // (SELECT too: MariaDB wants it for an upsert's implicit column list.)
    root.query_drop("GRANT SELECT, UPDATE, DELETE ON acct_cols.other TO colin@localhost")
        .expect("grant update, delete");
    colin
        .query_drop("INSERT INTO other VALUES (1) ON DUPLICATE KEY UPDATE id = 2")
        .expect("upsert with UPDATE");
    colin
        .query_drop("REPLACE INTO other VALUES (3)")
        .expect("replace with DELETE");
    root.query_drop("DROP USER colin@localhost").expect("drop");
    root.query_drop("DROP DATABASE acct_cols")
        .expect("drop database");
}

#[test]
fn temporary_tables_need_create_temporary_tables_and_nothing_more() {
    let server = Server::from_env();
    let port = server.port();
    let mut root = server.connect();
    for statement in [
        "DROP USER IF EXISTS tess@localhost",
        "DROP DATABASE IF EXISTS acct_tmp",
        "CREATE DATABASE acct_tmp",
        "CREATE TABLE acct_tmp.src (id INT PRIMARY KEY)",
        "INSERT INTO acct_tmp.src VALUES (1), (2)",
        "CREATE USER tess@localhost IDENTIFIED BY 'pw'",
        "GRANT SELECT ON acct_tmp.src TO tess@localhost",
    ] {
        root.query_drop(statement)
            .unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
    let mut tess = connect_as(port, "tess", "pw").expect("tess logs in");
    tess.query_drop("USE acct_tmp")
        .expect("a grant opens the database");
    let denied = "Access denied for user 'tess'@'localhost' to database 'acct_tmp'";
    assert_denied(
        &mut tess,
        "CREATE TEMPORARY TABLE scratch (id INT)",
        1044,
        denied,
    );
    let (code, _, _) = error_of(tess.query_drop("CREATE TABLE plain (id INT)"));
    assert_eq!(code, 1142, "CREATE TABLE needs CREATE");

    root.query_drop("GRANT CREATE TEMPORARY TABLES ON acct_tmp.* TO tess@localhost")
        .expect("grant");
    // (MariaDB applies a database-level grant to a session at its next USE.)
    tess.query_drop("USE acct_tmp").expect("use again");
    // The session's own table is then written, altered, renamed and dropped with no
    // other privilege (SELECT on its source is still needed to fill it).
    for statement in [
        "CREATE TEMPORARY TABLE scratch (id INT PRIMARY KEY)",
        "INSERT INTO scratch SELECT id * 10 FROM src",
        "UPDATE scratch SET id = id + 1",
        "DELETE FROM scratch WHERE id = 11",
        "ALTER TABLE scratch ADD COLUMN note VARCHAR(5)",
        "RENAME TABLE scratch TO scratch2",
        "CREATE TEMPORARY TABLE copied SELECT id FROM src",
    ] {
        tess.query_drop(statement)
            .unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
    let rows: Vec<(i32, Option<String>)> = tess
        .query("SELECT id, note FROM scratch2")
        .expect("read it");
    assert_eq!(rows, [(21, None)]);
    let copied: Option<i64> = tess
        .query_first("SELECT COUNT(*) FROM copied")
        .expect("count");
    assert_eq!(copied, Some(2));
    // Another session of the same account does not see them.
    let mut other = connect_as(port, "tess", "pw").expect("second session");
    let (code, _, _) = error_of(other.query_drop("SELECT * FROM acct_tmp.scratch2"));
    assert_eq!(code, 1142, "a table the account may not read");
    tess.query_drop("DROP TABLE scratch2, copied")
        .expect("drop");
    drop((tess, other));
    root.query_drop("DROP USER tess@localhost")
        .expect("drop user");
    root.query_drop("DROP DATABASE acct_tmp")
        .expect("drop database");
}

#[test]
fn failed_logins_from_one_host_are_delayed() {
    if manycore_testkit::Target::from_env() != manycore_testkit::Target::Manycore {
        return; // MariaDB needs the connection_control plugin for this.
    }
    let delay = Duration::from_millis(700);
    let server = manycore_testkit::manycore::ManycoreServer::start_with(&[
        "--failed-login-delay-threshold",
        "2",
        "--failed-login-delay-ms",
        "700",
    ]);
    let port = server.port();
    manycore_testkit::client::connect(port)
        .query_drop("CREATE USER erin@localhost IDENTIFIED BY 'right'")
        .expect("create erin");
    let attempt = |user: &str, password: &str| {
        let start = Instant::now();
        let result = connect_as(port, user, password);
        (result, start.elapsed())
    };
    // Two failures are answered at once (the threshold); the timing is not asserted.
    for user in ["erin", "nobody"] {
        assert_eq!(error_of(attempt(user, "wrong").0).0, 1045);
    }
    // Past it, an unknown user (the CLI) and a wrong password (the driver) wait alike,
    // longer each time.
    let start = Instant::now();
    let out = mariadb_cli(port, &["-unobody", "-pwrong", "-e", "SELECT 1"], "");
    let elapsed = start.elapsed();
    assert!(out.stderr.contains("ERROR 1045 (28000)"), "{out}");
    assert!(elapsed >= delay, "third failure answered after {elapsed:?}");
    let (result, elapsed) = attempt("erin", "wrong");
    assert_eq!(error_of(result).0, 1045);
    assert!(
        elapsed >= 2 * delay,
        "fourth failure answered after {elapsed:?}"
    );
    // A success resets the host's count: the next failure is below the threshold again
    // (without the reset it would wait 3 x 700 ms).
    attempt("erin", "right")
        .0
        .expect("the right password still logs in");
    let (result, elapsed) = attempt("erin", "wrong");
    assert_eq!(error_of(result).0, 1045);
    assert!(
        elapsed < 3 * delay,
        "failure after a success waited {elapsed:?}"
    );
}
