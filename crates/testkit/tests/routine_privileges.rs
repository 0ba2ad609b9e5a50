//! Privileges on stored routines with the Rust `mysql` driver against the server under
//! test (`MANYCORE_TEST_TARGET`, default manycore): GRANT and REVOKE of EXECUTE, CREATE
//! ROUTINE and ALTER ROUTINE at the global and database levels and the SHOW GRANTS text
//! after each (1144 for routine privileges on a table, 1141 for revoking what was never
//! granted), who may CALL a procedure or use a function (EXECUTE; SQL SECURITY DEFINER
//! runs the body with the definer's privileges, INVOKER with the caller's; 1370 for a
//! caller without EXECUTE), who may CREATE (1044), ALTER and DROP (1370) a routine, a
//! DEFINER routine whose definer lacks EXECUTE (1370) or was dropped (1449), and a REVOKE
//! or GRANT of EXECUTE reaching an open session's next statement (on `*.*` MariaDB waits
//! for the next login; manycore does not).
//!
//! MariaDB's automatic_sp_privileges gives a routine's creator EXECUTE and ALTER ROUTINE
//! on it (rows in mysql.procs_priv): nothing here depends on them. Routines are created
//! by root, or by a user whose SHOW GRANTS is not read afterwards.

use manycore_testkit::client::opts;
use manycore_testkit::{Server, Target};
use mysql::prelude::Queryable;
use mysql::{Conn, Opts};

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

/// Runs `sql` and reads every row of every result set: an error raised while rows are
/// sent (after the column definitions) is returned too, where `query_drop` would drop it.
fn outcome(conn: &mut Conn, sql: &str) -> Result<(), mysql::Error> {
    let mut result = conn.query_iter(sql)?;
    while let Some(set) = result.iter() {
        for row in set {
            row?;
        }
    }
    Ok(())
}

/// `sql` as `conn` fails with exactly `code`, `state` and `message`.
fn assert_error(conn: &mut Conn, sql: &str, code: u16, state: &str, message: &str) {
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

/// The first result set of `sql` (a SELECT or a CALL) as integers.
fn ints(conn: &mut Conn, sql: &str) -> Vec<i64> {
    conn.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

fn grants(root: &mut Conn, account: &str) -> Vec<String> {
    root.query(format!("SHOW GRANTS FOR {account}"))
        .expect("show grants")
}

fn run(root: &mut Conn, statements: &[&str]) {
    for statement in statements {
        root.query_drop(statement)
            .unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
}

const USAGE_EXEC: &str = "GRANT USAGE ON *.* TO `rp_exec`@`localhost`";

/// Database `rpriv` with table `t` (one row, v = 10), four routines created by root and
/// the password-less users rp_exec, rp_none and rp_maker with no privileges yet.
fn setup(root: &mut Conn) {
    run(
        root,
        &[
            "DROP USER IF EXISTS rp_exec@localhost, rp_none@localhost, rp_maker@localhost, \
             rp_gone@localhost",
            "DROP DATABASE IF EXISTS rpriv",
            "DROP DATABASE IF EXISTS rpriv_other",
            "CREATE DATABASE rpriv",
            "CREATE DATABASE rpriv_other",
            "CREATE TABLE rpriv.t (id INT PRIMARY KEY, v INT)",
            "INSERT INTO rpriv.t VALUES (1, 10)",
            // SQL SECURITY DEFINER by default, the definer root.
            "CREATE PROCEDURE rpriv.getv(i INT) SELECT v FROM rpriv.t WHERE id = i",
            "CREATE PROCEDURE rpriv.getv_invoker(i INT) SQL SECURITY INVOKER \
             SELECT v FROM rpriv.t WHERE id = i",
            "CREATE FUNCTION rpriv.fv(i INT) RETURNS INT READS SQL DATA \
             RETURN (SELECT v FROM rpriv.t WHERE id = i)",
            "CREATE PROCEDURE rpriv.bump(i INT) \
             BEGIN UPDATE rpriv.t SET v = v + 1 WHERE id = i; END",
            "CREATE USER rp_exec@localhost",
            "CREATE USER rp_none@localhost",
            "CREATE USER rp_maker@localhost",
        ],
    );
}

#[test]
fn routine_privileges_in_grant_revoke_and_show_grants() {
    let server = Server::from_env();
    let mut root = server.connect();
    setup(&mut root);
    let account = "rp_exec@localhost";

    // Global level: each privilege joins the *.* line in MariaDB's fixed order, whatever
    // the order of the GRANTs.
    let global = |privileges: &str| {
        vec![format!(
            "GRANT {privileges} ON *.* TO `rp_exec`@`localhost`"
        )]
    };
    run(
        &mut root,
        &["GRANT ALTER ROUTINE ON *.* TO rp_exec@localhost"],
    );
    assert_eq!(grants(&mut root, account), global("ALTER ROUTINE"));
    run(&mut root, &["GRANT EXECUTE ON *.* TO rp_exec@localhost"]);
    assert_eq!(grants(&mut root, account), global("EXECUTE, ALTER ROUTINE"));
    run(
        &mut root,
        &["GRANT CREATE ROUTINE, SELECT ON *.* TO rp_exec@localhost"],
    );
    assert_eq!(
        grants(&mut root, account),
        global("SELECT, EXECUTE, CREATE ROUTINE, ALTER ROUTINE")
    );
    run(&mut root, &["REVOKE EXECUTE ON *.* FROM rp_exec@localhost"]);
    assert_eq!(
        grants(&mut root, account),
        global("SELECT, CREATE ROUTINE, ALTER ROUTINE")
    );
    run(
        &mut root,
        &["REVOKE SELECT, CREATE ROUTINE, ALTER ROUTINE ON *.* FROM rp_exec@localhost"],
    );
    assert_eq!(grants(&mut root, account), global("USAGE"));
    // Revoking a global privilege not held is not an error.
    run(&mut root, &["REVOKE EXECUTE ON *.* FROM rp_exec@localhost"]);
    assert_eq!(grants(&mut root, account), global("USAGE"));

    // Database level: a second line, after the *.* one.
    let db = |privileges: &str| {
        vec![
            USAGE_EXEC.to_string(),
            format!("GRANT {privileges} ON `rpriv`.* TO `rp_exec`@`localhost`"),
        ]
    };
    run(
        &mut root,
        &["GRANT EXECUTE ON rpriv.* TO rp_exec@localhost"],
    );
    assert_eq!(grants(&mut root, account), db("EXECUTE"));
    run(
        &mut root,
        &["GRANT ALTER ROUTINE, CREATE ROUTINE ON rpriv.* TO rp_exec@localhost"],
    );
    assert_eq!(
        grants(&mut root, account),
        db("EXECUTE, CREATE ROUTINE, ALTER ROUTINE")
    );
    run(
        &mut root,
        &["REVOKE CREATE ROUTINE ON rpriv.* FROM rp_exec@localhost"],
    );
    assert_eq!(grants(&mut root, account), db("EXECUTE, ALTER ROUTINE"));
    run(
        &mut root,
        &["REVOKE EXECUTE, ALTER ROUTINE ON rpriv.* FROM rp_exec@localhost"],
    );
    assert_eq!(grants(&mut root, account), global("USAGE"));
    // Revoking at a database level with no grant there: 1141.
    assert_error(
        &mut root,
        "REVOKE EXECUTE ON rpriv.* FROM rp_exec@localhost",
        1141,
        "42000",
        "There is no such grant defined for user 'rp_exec' on host 'localhost'",
    );

    // Routine privileges on a table (existing or not), alone or with a table privilege,
    // granted or revoked: 1144, and nothing changes.
    let illegal = "Illegal GRANT/REVOKE command; please consult the manual to see which \
                   privileges can be used";
    for sql in [
        "GRANT EXECUTE ON rpriv.t TO rp_exec@localhost",
        "GRANT CREATE ROUTINE ON rpriv.t TO rp_exec@localhost",
        "GRANT ALTER ROUTINE ON rpriv.t TO rp_exec@localhost",
        "GRANT EXECUTE ON rpriv.nosuch TO rp_exec@localhost",
        "GRANT SELECT, EXECUTE ON rpriv.t TO rp_exec@localhost",
        "REVOKE EXECUTE ON rpriv.t FROM rp_exec@localhost",
    ] {
        assert_error(&mut root, sql, 1144, "42000", illegal);
    }
    assert_eq!(grants(&mut root, account), global("USAGE"));

    // ALL on a database includes the routine privileges: without EXECUTE the rest are
    // listed one by one, and EXECUTE back makes it ALL PRIVILEGES again. (MariaDB's list
    // holds privileges manycore does not model, such as CREATE VIEW and TRIGGER: only the
    // routine privileges' place in it is compared.)
    run(&mut root, &["GRANT ALL ON rpriv.* TO rp_exec@localhost"]);
    assert_eq!(grants(&mut root, account), db("ALL PRIVILEGES"));
    run(
        &mut root,
        &["REVOKE EXECUTE ON rpriv.* FROM rp_exec@localhost"],
    );
    let listed = grants(&mut root, account);
    let line = &listed[1];
    assert!(
        line.starts_with("GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, ")
            && line.contains(", ALTER, ")
            && line.contains(", CREATE ROUTINE, ALTER ROUTINE")
            && !line.contains("EXECUTE")
            && line.ends_with(" ON `rpriv`.* TO `rp_exec`@`localhost`"),
        "{listed:?}"
    );
    run(
        &mut root,
        &["GRANT EXECUTE ON rpriv.* TO rp_exec@localhost"],
    );
    assert_eq!(grants(&mut root, account), db("ALL PRIVILEGES"));
    run(&mut root, &["REVOKE ALL ON rpriv.* FROM rp_exec@localhost"]);
    assert_eq!(grants(&mut root, account), global("USAGE"));
}

#[test]
fn execute_and_sql_security_decide_who_may_call() {
    let server = Server::from_env();
    let port = server.port();
    let mut root = server.connect();
    setup(&mut root);
    run(
        &mut root,
        &[
            "GRANT EXECUTE ON rpriv.* TO rp_exec@localhost",
            "GRANT SELECT ON rpriv.t TO rp_none@localhost",
        ],
    );

    // EXECUTE without SELECT on the table: DEFINER routines read it with root's
    // privileges, an INVOKER one with the caller's, so 1142 for the table.
    let mut exec = connect_as(port, "rp_exec", "").expect("rp_exec logs in");
    assert_eq!(ints(&mut exec, "CALL rpriv.getv(1)"), [10]);
    assert_eq!(ints(&mut exec, "SELECT rpriv.fv(1)"), [10]);
    assert_error(
        &mut exec,
        "CALL rpriv.getv_invoker(1)",
        1142,
        "42000",
        "SELECT command denied to user 'rp_exec'@'localhost' for table `rpriv`.`t`",
    );
    assert_error(
        &mut exec,
        "SELECT v FROM rpriv.t",
        1142,
        "42000",
        "SELECT command denied to user 'rp_exec'@'localhost' for table `rpriv`.`t`",
    );
    // A DEFINER procedure writes with root's privileges too.
    exec.query_drop("CALL rpriv.bump(1)").expect("bump");
    assert_eq!(ints(&mut root, "SELECT v FROM rpriv.t WHERE id = 1"), [11]);
    assert_eq!(ints(&mut exec, "CALL rpriv.getv(1)"), [11]);
    // With EXECUTE, a missing procedure is reported as missing.
    assert_error(
        &mut exec,
        "CALL rpriv.nosuch()",
        1305,
        "42000",
        "PROCEDURE rpriv.nosuch does not exist",
    );

    // SELECT on the table but no EXECUTE: 1370 for every routine, whatever its SQL
    // SECURITY, and for one that does not exist (nothing is revealed).
    let mut none = connect_as(port, "rp_none", "").expect("rp_none logs in");
    assert_eq!(ints(&mut none, "SELECT v FROM rpriv.t"), [11]);
    let denied = |routine: &str| {
        format!(
            "execute command denied to user 'rp_none'@'localhost' for routine 'rpriv.{routine}'"
        )
    };
    for (sql, routine) in [
        ("CALL rpriv.getv(1)", "getv"),
        ("CALL rpriv.getv_invoker(1)", "getv_invoker"),
        ("SELECT rpriv.fv(1)", "fv"),
        ("CALL rpriv.bump(1)", "bump"),
        ("CALL rpriv.nosuch()", "nosuch"),
    ] {
        assert_error(&mut none, sql, 1370, "42000", &denied(routine));
    }
    assert_eq!(ints(&mut root, "SELECT v FROM rpriv.t WHERE id = 1"), [11]);

    // EXECUTE granted globally works as well as on the database.
    run(&mut root, &["GRANT EXECUTE ON *.* TO rp_none@localhost"]);
    let mut none = connect_as(port, "rp_none", "").expect("rp_none logs in again");
    assert_eq!(ints(&mut none, "CALL rpriv.getv_invoker(1)"), [11]);
    assert_eq!(ints(&mut none, "SELECT rpriv.fv(1)"), [11]);
}

#[test]
fn create_alter_and_drop_need_routine_privileges() {
    let server = Server::from_env();
    let port = server.port();
    let mut root = server.connect();
    setup(&mut root);
    run(
        &mut root,
        &[
            "GRANT EXECUTE ON rpriv.* TO rp_exec@localhost",
            "GRANT SELECT ON rpriv.t TO rp_none@localhost",
            "GRANT CREATE ROUTINE ON rpriv.* TO rp_maker@localhost",
        ],
    );

    // Without CREATE ROUTINE: 1044 on the database.
    let mut exec = connect_as(port, "rp_exec", "").expect("rp_exec logs in");
    let mut none = connect_as(port, "rp_none", "").expect("rp_none logs in");
    for (conn, user) in [(&mut exec, "rp_exec"), (&mut none, "rp_none")] {
        assert_error(
            conn,
            "CREATE PROCEDURE rpriv.x() SELECT 1",
            1044,
            "42000",
            &format!("Access denied for user '{user}'@'localhost' to database 'rpriv'"),
        );
    }

    // Without ALTER ROUTINE (EXECUTE is not enough): 1370 to drop or alter root's
    // routines.
    let alter_denied = |user: &str, routine: &str| {
        format!(
            "alter routine command denied to user '{user}'@'localhost' for routine \
             'rpriv.{routine}'"
        )
    };
    for (conn, user) in [(&mut exec, "rp_exec"), (&mut none, "rp_none")] {
        for (sql, routine) in [
            ("DROP PROCEDURE rpriv.getv", "getv"),
            ("ALTER PROCEDURE rpriv.getv COMMENT 'x'", "getv"),
            ("DROP FUNCTION rpriv.fv", "fv"),
            ("ALTER FUNCTION rpriv.fv COMMENT 'x'", "fv"),
        ] {
            assert_error(conn, sql, 1370, "42000", &alter_denied(user, routine));
        }
    }
    assert_eq!(ints(&mut root, "CALL rpriv.getv(1)"), [10]);
    assert_eq!(ints(&mut root, "SELECT rpriv.fv(1)"), [10]);

    // With ALTER ROUTINE on the database the same statements work.
    run(
        &mut root,
        &["GRANT ALTER ROUTINE ON rpriv.* TO rp_exec@localhost"],
    );
    exec.query_drop("ALTER PROCEDURE rpriv.getv COMMENT 'x'")
        .expect("alter with ALTER ROUTINE");
    exec.query_drop("DROP PROCEDURE rpriv.getv")
        .expect("drop with ALTER ROUTINE");
    exec.query_drop("DROP FUNCTION rpriv.fv")
        .expect("drop function with ALTER ROUTINE");
    assert_error(
        &mut root,
        "CALL rpriv.getv(1)",
        1305,
        "42000",
        "PROCEDURE rpriv.getv does not exist",
    );
    assert_error(
        &mut root,
        "SELECT rpriv.fv(1)",
        1305,
        "42000",
        "FUNCTION rpriv.fv does not exist",
    );

    // CREATE ROUTINE on the database: creating there works, with the creator as the
    // definer; in another database, or naming another definer, it does not.
    let mut maker = connect_as(port, "rp_maker", "").expect("rp_maker logs in");
    maker
        .query_drop("CREATE PROCEDURE rpriv.made() SELECT 1")
        .expect("create with CREATE ROUTINE");
    let definer: Option<String> = root
        .query_first(
            "SELECT DEFINER FROM information_schema.ROUTINES \
             WHERE ROUTINE_SCHEMA = 'rpriv' AND ROUTINE_NAME = 'made'",
        )
        .expect("definer");
    assert_eq!(definer.as_deref(), Some("rp_maker@localhost"));
    assert_error(
        &mut maker,
        "CREATE PROCEDURE rpriv_other.made() SELECT 1",
        1044,
        "42000",
        "Access denied for user 'rp_maker'@'localhost' to database 'rpriv_other'",
    );
    assert_error(
        &mut maker,
        "CREATE DEFINER = root@localhost PROCEDURE rpriv.made_as_root() SELECT 1",
        1227,
        "42000",
        "Access denied; you need (at least one of) the SUPER, SET USER privilege(s) for \
         this operation",
    );
    // CREATE ROUTINE gives no right over routines someone else created.
    assert_error(
        &mut maker,
        "DROP PROCEDURE rpriv.bump",
        1370,
        "42000",
        &alter_denied("rp_maker", "bump"),
    );
}

#[test]
fn a_definer_routine_needs_its_definer_to_exist_and_have_execute() {
    let server = Server::from_env();
    let mut root = server.connect();
    setup(&mut root);
    run(
        &mut root,
        &[
            "CREATE USER rp_gone@localhost",
            "CREATE DEFINER = rp_gone@localhost PROCEDURE rpriv.orphan() SELECT 1",
            "CREATE DEFINER = rp_gone@localhost FUNCTION rpriv.orphanf() RETURNS INT \
             RETURN 1",
        ],
    );
    // The body runs as its definer, who must hold EXECUTE on the routine: root's own
    // privileges do not stand in.
    for (sql, routine) in [
        ("CALL rpriv.orphan()", "orphan"),
        ("SELECT rpriv.orphanf()", "orphanf"),
    ] {
        assert_error(
            &mut root,
            sql,
            1370,
            "42000",
            &format!(
                "execute command denied to user 'rp_gone'@'localhost' for routine \
                 'rpriv.{routine}'"
            ),
        );
    }
    run(
        &mut root,
        &["GRANT EXECUTE ON rpriv.* TO rp_gone@localhost"],
    );
    assert_eq!(ints(&mut root, "CALL rpriv.orphan()"), [1]);
    assert_eq!(ints(&mut root, "SELECT rpriv.orphanf()"), [1]);

    // The definer dropped: 1449, even for root.
    run(&mut root, &["DROP USER rp_gone@localhost"]);
    let gone = "The user specified as a definer ('rp_gone'@'localhost') does not exist";
    assert_error(&mut root, "CALL rpriv.orphan()", 1449, "HY000", gone);
    assert_error(&mut root, "SELECT rpriv.orphanf()", 1449, "HY000", gone);
}

#[test]
fn grant_and_revoke_of_execute_reach_an_open_session() {
    let server = Server::from_env();
    let port = server.port();
    let mut root = server.connect();
    setup(&mut root);
    run(
        &mut root,
        &["GRANT EXECUTE ON rpriv.* TO rp_exec@localhost"],
    );
    let mut exec = connect_as(port, "rp_exec", "").expect("rp_exec logs in");
    assert_eq!(ints(&mut exec, "CALL rpriv.getv(1)"), [10]);
    assert_eq!(ints(&mut exec, "SELECT rpriv.fv(1)"), [10]);

    run(
        &mut root,
        &["REVOKE EXECUTE ON rpriv.* FROM rp_exec@localhost"],
    );
    let denied = |routine: &str| {
        format!(
            "execute command denied to user 'rp_exec'@'localhost' for routine 'rpriv.{routine}'"
        )
    };
    assert_error(
        &mut exec,
        "CALL rpriv.getv(1)",
        1370,
        "42000",
        &denied("getv"),
    );
    assert_error(
        &mut exec,
        "SELECT rpriv.fv(1)",
        1370,
        "42000",
        &denied("fv"),
    );

    // A database-level grant reaches it again.
    run(
        &mut root,
        &["GRANT EXECUTE ON rpriv.* TO rp_exec@localhost"],
    );
    assert_eq!(ints(&mut exec, "CALL rpriv.getv(1)"), [10]);
    run(
        &mut root,
        &["REVOKE EXECUTE ON rpriv.* FROM rp_exec@localhost"],
    );
    assert_error(
        &mut exec,
        "CALL rpriv.getv(1)",
        1370,
        "42000",
        &denied("getv"),
    );

    // MariaDB reads global privileges at login: a global GRANT does not reach the open
    // session, only a new one, and a global REVOKE does not take EXECUTE from a session
    // that logged in with it. manycore applies every GRANT and REVOKE at each session's
    // next statement (privilege invariant (2)), so a revoked privilege is gone at once.
    run(&mut root, &["GRANT EXECUTE ON *.* TO rp_exec@localhost"]);
    if Target::from_env() == Target::Manycore {
        assert_eq!(ints(&mut exec, "CALL rpriv.getv(1)"), [10]);
        run(&mut root, &["REVOKE EXECUTE ON *.* FROM rp_exec@localhost"]);
        assert_error(
            &mut exec,
            "CALL rpriv.getv(1)",
            1370,
            "42000",
            &denied("getv"),
        );
        return;
    }
    assert_error(
        &mut exec,
        "CALL rpriv.getv(1)",
        1370,
        "42000",
        &denied("getv"),
    );
    let mut later = connect_as(port, "rp_exec", "").expect("rp_exec logs in again");
    assert_eq!(ints(&mut later, "CALL rpriv.getv(1)"), [10]);
    run(&mut root, &["REVOKE EXECUTE ON *.* FROM rp_exec@localhost"]);
    assert_eq!(ints(&mut later, "CALL rpriv.getv(1)"), [10]);
    let mut last = connect_as(port, "rp_exec", "").expect("rp_exec logs in a third time");
    assert_error(
        &mut last,
        "CALL rpriv.getv(1)",
        1370,
        "42000",
        &denied("getv"),
    );
}
