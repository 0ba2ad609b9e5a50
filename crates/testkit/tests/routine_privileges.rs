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
//! Grants on one procedure or function (`ON PROCEDURE db.name`, `ON FUNCTION db.name`,
//! rows in mysql.procs_priv): their SHOW GRANTS lines, the errors for a missing routine
//! or one of the other kind (1305), a privilege that is not a routine's (1144) and a
//! REVOKE of what was never granted (1403), and what they let their holder do; RENAME
//! USER, DROP USER and REVOKE ALL carry or remove them. automatic_sp_privileges (ON by
//! default) gives a routine's creator EXECUTE and ALTER ROUTINE on it unless the creator
//! already has both, and a DROP of the routine takes every grant on it away. Which
//! routines information_schema and SHOW list to whom, and whose definition they show.
//!
//! MariaDB lists an account's procedure lines before its function lines, but several
//! lines of one kind in hash order: no SHOW GRANTS compared here holds two of one kind.

use manycore_testkit::client::{assert_error, connect_as, error_of, run_all, show_grants};
use manycore_testkit::{Server, Target};
use mysql::prelude::Queryable;
use mysql::Conn;

/// The first result set of `sql` (a SELECT or a CALL) as integers.
fn ints(conn: &mut Conn, sql: &str) -> Vec<i64> {
    conn.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

const USAGE_EXEC: &str = "GRANT USAGE ON *.* TO `rp_exec`@`localhost`";

/// Database `rpriv` with table `t` (one row, v = 10), four routines created by root and
/// the password-less users rp_exec, rp_none and rp_maker with no privileges yet.
fn setup(root: &mut Conn) {
    run_all(
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
    run_all(
        &mut root,
        &["GRANT ALTER ROUTINE ON *.* TO rp_exec@localhost"],
    );
    assert_eq!(show_grants(&mut root, account), global("ALTER ROUTINE"));
    run_all(&mut root, &["GRANT EXECUTE ON *.* TO rp_exec@localhost"]);
    assert_eq!(
        show_grants(&mut root, account),
        global("EXECUTE, ALTER ROUTINE")
    );
    run_all(
        &mut root,
        &["GRANT CREATE ROUTINE, SELECT ON *.* TO rp_exec@localhost"],
    );
    assert_eq!(
        show_grants(&mut root, account),
        global("SELECT, EXECUTE, CREATE ROUTINE, ALTER ROUTINE")
    );
    run_all(&mut root, &["REVOKE EXECUTE ON *.* FROM rp_exec@localhost"]);
    assert_eq!(
        show_grants(&mut root, account),
        global("SELECT, CREATE ROUTINE, ALTER ROUTINE")
    );
    run_all(
        &mut root,
        &["REVOKE SELECT, CREATE ROUTINE, ALTER ROUTINE ON *.* FROM rp_exec@localhost"],
    );
    assert_eq!(show_grants(&mut root, account), global("USAGE"));
    // Revoking a global privilege not held is not an error.
    run_all(&mut root, &["REVOKE EXECUTE ON *.* FROM rp_exec@localhost"]);
    assert_eq!(show_grants(&mut root, account), global("USAGE"));

    // Database level: a second line, after the *.* one.
    let db = |privileges: &str| {
        vec![
            USAGE_EXEC.to_string(),
            format!("GRANT {privileges} ON `rpriv`.* TO `rp_exec`@`localhost`"),
        ]
    };
    run_all(
        &mut root,
        &["GRANT EXECUTE ON rpriv.* TO rp_exec@localhost"],
    );
    assert_eq!(show_grants(&mut root, account), db("EXECUTE"));
    run_all(
        &mut root,
        &["GRANT ALTER ROUTINE, CREATE ROUTINE ON rpriv.* TO rp_exec@localhost"],
    );
    assert_eq!(
        show_grants(&mut root, account),
        db("EXECUTE, CREATE ROUTINE, ALTER ROUTINE")
    );
    run_all(
        &mut root,
        &["REVOKE CREATE ROUTINE ON rpriv.* FROM rp_exec@localhost"],
    );
    assert_eq!(
        show_grants(&mut root, account),
        db("EXECUTE, ALTER ROUTINE")
    );
    run_all(
        &mut root,
        &["REVOKE EXECUTE, ALTER ROUTINE ON rpriv.* FROM rp_exec@localhost"],
    );
    assert_eq!(show_grants(&mut root, account), global("USAGE"));
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
    assert_eq!(show_grants(&mut root, account), global("USAGE"));

    // ALL on a database includes the routine privileges: without EXECUTE the rest are
    // listed one by one, and EXECUTE back makes it ALL PRIVILEGES again. (MariaDB's list
    // holds privileges manycore does not model, such as CREATE VIEW and TRIGGER: only the
    // routine privileges' place in it is compared.)
    run_all(&mut root, &["GRANT ALL ON rpriv.* TO rp_exec@localhost"]);
    assert_eq!(show_grants(&mut root, account), db("ALL PRIVILEGES"));
    run_all(
        &mut root,
        &["REVOKE EXECUTE ON rpriv.* FROM rp_exec@localhost"],
    );
    let listed = show_grants(&mut root, account);
    let line = &listed[1];
    assert!(
        line.starts_with("GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, ")
            && line.contains(", ALTER, ")
            && line.contains(", CREATE ROUTINE, ALTER ROUTINE")
            && !line.contains("EXECUTE")
            && line.ends_with(" ON `rpriv`.* TO `rp_exec`@`localhost`"),
        "{listed:?}"
    );
    run_all(
        &mut root,
        &["GRANT EXECUTE ON rpriv.* TO rp_exec@localhost"],
    );
    assert_eq!(show_grants(&mut root, account), db("ALL PRIVILEGES"));
    run_all(&mut root, &["REVOKE ALL ON rpriv.* FROM rp_exec@localhost"]);
    assert_eq!(show_grants(&mut root, account), global("USAGE"));
}

#[test]
fn execute_and_sql_security_decide_who_may_call() {
    let server = Server::from_env();
    let port = server.port();
    let mut root = server.connect();
    setup(&mut root);
    run_all(
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
        ("SELECT rpriv.nosuchf()", "nosuchf"),
    ] {
        assert_error(&mut none, sql, 1370, "42000", &denied(routine));
    }
    assert_eq!(ints(&mut root, "SELECT v FROM rpriv.t WHERE id = 1"), [11]);

    // EXECUTE granted globally works as well as on the database.
    run_all(&mut root, &["GRANT EXECUTE ON *.* TO rp_none@localhost"]);
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
    run_all(
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
    run_all(
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
    run_all(
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
    run_all(
        &mut root,
        &["GRANT EXECUTE ON rpriv.* TO rp_gone@localhost"],
    );
    assert_eq!(ints(&mut root, "CALL rpriv.orphan()"), [1]);
    assert_eq!(ints(&mut root, "SELECT rpriv.orphanf()"), [1]);

    // The definer dropped: 1449, even for root.
    run_all(&mut root, &["DROP USER rp_gone@localhost"]);
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
    run_all(
        &mut root,
        &["GRANT EXECUTE ON rpriv.* TO rp_exec@localhost"],
    );
    let mut exec = connect_as(port, "rp_exec", "").expect("rp_exec logs in");
    assert_eq!(ints(&mut exec, "CALL rpriv.getv(1)"), [10]);
    assert_eq!(ints(&mut exec, "SELECT rpriv.fv(1)"), [10]);

    run_all(
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
    run_all(
        &mut root,
        &["GRANT EXECUTE ON rpriv.* TO rp_exec@localhost"],
    );
    assert_eq!(ints(&mut exec, "CALL rpriv.getv(1)"), [10]);
    run_all(
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
    run_all(&mut root, &["GRANT EXECUTE ON *.* TO rp_exec@localhost"]);
    if Target::from_env() == Target::Manycore {
        assert_eq!(ints(&mut exec, "CALL rpriv.getv(1)"), [10]);
        run_all(&mut root, &["REVOKE EXECUTE ON *.* FROM rp_exec@localhost"]);
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
    run_all(&mut root, &["REVOKE EXECUTE ON *.* FROM rp_exec@localhost"]);
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

fn procs_priv_count(root: &mut Conn) -> i64 {
    ints(root, "SELECT COUNT(*) FROM mysql.procs_priv")[0]
}

#[test]
fn routine_level_grants() {
    let server = Server::from_env();
    let port = server.port();
    let mut root = server.connect();
    setup(&mut root);
    let usage_none = "GRANT USAGE ON *.* TO `rp_none`@`localhost`";
    let usage_exec = USAGE_EXEC;
    let exec_getv = "GRANT EXECUTE ON PROCEDURE `rpriv`.`getv` TO `rp_none`@`localhost`";
    let execute_denied = |user: &str, routine: &str| {
        format!("execute command denied to user '{user}'@'localhost' for routine 'rpriv.{routine}'")
    };

    // EXECUTE on one procedure: rp_none (no database-level EXECUTE) may CALL it and no
    // other routine.
    run_all(
        &mut root,
        &["GRANT EXECUTE ON PROCEDURE rpriv.getv TO rp_none@localhost"],
    );
    assert_eq!(
        show_grants(&mut root, "rp_none@localhost"),
        [usage_none, exec_getv]
    );
    let mut none = connect_as(port, "rp_none", "").expect("rp_none logs in");
    assert_eq!(ints(&mut none, "CALL rpriv.getv(1)"), [10]);
    for (sql, routine) in [
        ("CALL rpriv.getv_invoker(1)", "getv_invoker"),
        ("SELECT rpriv.fv(1)", "fv"),
        ("CALL rpriv.bump(1)", "bump"),
    ] {
        assert_error(
            &mut none,
            sql,
            1370,
            "42000",
            &execute_denied("rp_none", routine),
        );
    }

    // A function line comes after the procedure line; WITH GRANT OPTION ends it, and
    // the row holds 'Grant' beside the privilege.
    run_all(
        &mut root,
        &["GRANT ALTER ROUTINE ON FUNCTION rpriv.fv TO rp_none@localhost WITH GRANT OPTION"],
    );
    let alter_fv = "GRANT ALTER ROUTINE ON FUNCTION `rpriv`.`fv` TO `rp_none`@`localhost` \
                    WITH GRANT OPTION";
    assert_eq!(
        show_grants(&mut root, "rp_none@localhost"),
        [usage_none, exec_getv, alter_fv]
    );
    let row: Vec<(String, String, String, String, String, String, String)> = root
        .query(
            "SELECT Host, Db, User, Routine_name, Routine_type, Grantor, Proc_priv \
             FROM mysql.procs_priv WHERE Routine_name = 'fv'",
        )
        .expect("procs_priv");
    assert_eq!(
        row,
        [(
            "localhost".to_string(),
            "rpriv".to_string(),
            "rp_none".to_string(),
            "fv".to_string(),
            "FUNCTION".to_string(),
            "root@localhost".to_string(),
            "Alter Routine,Grant".to_string(),
        )]
    );
    // ALTER ROUTINE on fv lets rp_none alter it, not call it.
    none.query_drop("ALTER FUNCTION rpriv.fv COMMENT 'x'")
        .expect("alter with ALTER ROUTINE on the function");
    assert_error(
        &mut none,
        "SELECT rpriv.fv(1)",
        1370,
        "42000",
        &execute_denied("rp_none", "fv"),
    );

    // Granting on a routine takes the grant option and the privileges granted: without
    // them 1370 names the first lacking of EXECUTE, ALTER ROUTINE and GRANT. With them
    // the grant is made, with the granting user as the row's Grantor, and may be
    // revoked by that user.
    for (sql, command, routine) in [
        (
            "GRANT EXECUTE ON PROCEDURE rpriv.getv TO rp_exec@localhost",
            "grant",
            "getv",
        ),
        (
            "GRANT ALTER ROUTINE ON PROCEDURE rpriv.getv TO rp_exec@localhost",
            "alter routine",
            "getv",
        ),
        (
            "GRANT EXECUTE ON FUNCTION rpriv.fv TO rp_exec@localhost",
            "execute",
            "fv",
        ),
        (
            "GRANT EXECUTE ON PROCEDURE rpriv.bump TO rp_exec@localhost",
            "execute",
            "bump",
        ),
        (
            "GRANT ALTER ROUTINE ON PROCEDURE rpriv.bump TO rp_exec@localhost",
            "alter routine",
            "bump",
        ),
    ] {
        assert_error(
            &mut none,
            sql,
            1370,
            "42000",
            &format!(
                "{command} command denied to user 'rp_none'@'localhost' for routine \
                 'rpriv.{routine}'"
            ),
        );
    }
    assert_eq!(show_grants(&mut root, "rp_exec@localhost"), [usage_exec]);
    run_all(
        &mut none,
        &["GRANT ALTER ROUTINE ON FUNCTION rpriv.fv TO rp_exec@localhost"],
    );
    assert_eq!(
        show_grants(&mut root, "rp_exec@localhost"),
        [
            usage_exec,
            "GRANT ALTER ROUTINE ON FUNCTION `rpriv`.`fv` TO `rp_exec`@`localhost`"
        ]
    );
    let grantor: Vec<(String, String)> = root
        .query(
            "SELECT Grantor, Proc_priv FROM mysql.procs_priv \
             WHERE User = 'rp_exec' AND Routine_name = 'fv'",
        )
        .expect("procs_priv grantor");
    assert_eq!(
        grantor,
        [("rp_none@localhost".to_string(), "Alter Routine".to_string())]
    );
    run_all(
        &mut none,
        &["REVOKE ALTER ROUTINE ON FUNCTION rpriv.fv FROM rp_exec@localhost"],
    );
    assert_eq!(show_grants(&mut root, "rp_exec@localhost"), [usage_exec]);

    // ALL on a procedure is EXECUTE and ALTER ROUTINE.
    run_all(
        &mut root,
        &["GRANT ALL ON PROCEDURE rpriv.getv_invoker TO rp_exec@localhost"],
    );
    let all_invoker = |privileges: &str| {
        format!("GRANT {privileges} ON PROCEDURE `rpriv`.`getv_invoker` TO `rp_exec`@`localhost`")
    };
    assert_eq!(
        show_grants(&mut root, "rp_exec@localhost"),
        [
            usage_exec.to_string(),
            all_invoker("EXECUTE, ALTER ROUTINE")
        ]
    );
    // REVOKE of one privilege leaves the other; of the last, removes the line; once
    // more, 1403.
    run_all(
        &mut root,
        &["REVOKE EXECUTE ON PROCEDURE rpriv.getv_invoker FROM rp_exec@localhost"],
    );
    assert_eq!(
        show_grants(&mut root, "rp_exec@localhost"),
        [usage_exec.to_string(), all_invoker("ALTER ROUTINE")]
    );
    run_all(
        &mut root,
        &["REVOKE ALTER ROUTINE ON PROCEDURE rpriv.getv_invoker FROM rp_exec@localhost"],
    );
    assert_eq!(show_grants(&mut root, "rp_exec@localhost"), [usage_exec]);
    let no_grant = |user: &str, routine: &str| {
        format!(
            "There is no such grant defined for user '{user}' on host 'localhost' on \
             routine '{routine}'"
        )
    };
    assert_error(
        &mut root,
        "REVOKE ALTER ROUTINE ON PROCEDURE rpriv.getv_invoker FROM rp_exec@localhost",
        1403,
        "42000",
        &no_grant("rp_exec", "getv_invoker"),
    );

    // Revoking ALTER ROUTINE alone from the fv grant leaves its grant option, shown as
    // USAGE; revoking that too removes the line.
    run_all(
        &mut root,
        &["REVOKE ALTER ROUTINE ON FUNCTION rpriv.fv FROM rp_none@localhost"],
    );
    assert_eq!(
        show_grants(&mut root, "rp_none@localhost"),
        [
            usage_none,
            exec_getv,
            "GRANT USAGE ON FUNCTION `rpriv`.`fv` TO `rp_none`@`localhost` WITH GRANT OPTION"
        ]
    );
    run_all(
        &mut root,
        &["REVOKE GRANT OPTION ON FUNCTION rpriv.fv FROM rp_none@localhost"],
    );
    assert_eq!(
        show_grants(&mut root, "rp_none@localhost"),
        [usage_none, exec_getv]
    );

    // Errors, none of which changes anything: a missing routine (or database), or one
    // of the other kind, 1305; a privilege that is not a routine's, 1144; a missing
    // account, 1133; a REVOKE with nothing granted on that routine (of that kind), 1403.
    for (sql, routine) in [
        (
            "GRANT EXECUTE ON PROCEDURE rpriv.nosuch TO rp_none@localhost",
            "nosuch",
        ),
        (
            "GRANT EXECUTE ON FUNCTION rpriv.nosuch TO rp_none@localhost",
            "nosuch",
        ),
        (
            "GRANT EXECUTE ON FUNCTION rpriv.getv TO rp_none@localhost",
            "getv",
        ),
        (
            "GRANT EXECUTE ON PROCEDURE rpriv.fv TO rp_none@localhost",
            "fv",
        ),
        (
            "GRANT EXECUTE ON PROCEDURE nodb.getv TO rp_none@localhost",
            "getv",
        ),
    ] {
        assert_error(
            &mut root,
            sql,
            1305,
            "42000",
            &format!("FUNCTION or PROCEDURE {routine} does not exist"),
        );
    }
    let illegal = "Illegal GRANT/REVOKE command; please consult the manual to see which \
                   privileges can be used";
    for sql in [
        "GRANT SELECT ON PROCEDURE rpriv.getv TO rp_none@localhost",
        "GRANT EXECUTE, SELECT ON PROCEDURE rpriv.getv TO rp_none@localhost",
        "GRANT CREATE ROUTINE ON PROCEDURE rpriv.getv TO rp_none@localhost",
        "GRANT INSERT ON FUNCTION rpriv.fv TO rp_none@localhost",
    ] {
        assert_error(&mut root, sql, 1144, "42000", illegal);
    }
    assert_error(
        &mut root,
        "GRANT EXECUTE ON PROCEDURE rpriv.getv TO rp_nobody@localhost",
        1133,
        "28000",
        "Can't find any matching row in the user table",
    );
    for (sql, routine) in [
        (
            "REVOKE EXECUTE ON PROCEDURE rpriv.nosuch FROM rp_none@localhost",
            "nosuch",
        ),
        (
            "REVOKE EXECUTE ON PROCEDURE rpriv.bump FROM rp_none@localhost",
            "bump",
        ),
        (
            "REVOKE EXECUTE ON FUNCTION rpriv.getv FROM rp_none@localhost",
            "getv",
        ),
    ] {
        assert_error(&mut root, sql, 1403, "42000", &no_grant("rp_none", routine));
    }
    assert_eq!(
        show_grants(&mut root, "rp_none@localhost"),
        [usage_none, exec_getv]
    );

    // Routine names are case-insensitive: a grant on GETV works for getv and is revoked
    // by any spelling. mysql.procs_priv keeps the name as the GRANT spelled it; SHOW
    // GRANTS prints it in lower case.
    run_all(
        &mut root,
        &["GRANT EXECUTE ON PROCEDURE rpriv.GETV TO rp_exec@localhost"],
    );
    assert_eq!(
        show_grants(&mut root, "rp_exec@localhost"),
        [
            usage_exec,
            "GRANT EXECUTE ON PROCEDURE `rpriv`.`getv` TO `rp_exec`@`localhost`"
        ]
    );
    let stored: Vec<String> = root
        .query("SELECT Routine_name FROM mysql.procs_priv WHERE User = 'rp_exec'")
        .expect("procs_priv routine name");
    assert_eq!(stored, ["GETV"]);
    let mut exec = connect_as(port, "rp_exec", "").expect("rp_exec logs in");
    assert_eq!(ints(&mut exec, "CALL rpriv.getv(1)"), [10]);
    assert_eq!(ints(&mut exec, "CALL rpriv.GetV(1)"), [10]);
    run_all(
        &mut root,
        &["REVOKE EXECUTE ON PROCEDURE rpriv.Getv FROM rp_exec@localhost"],
    );
    assert_eq!(show_grants(&mut root, "rp_exec@localhost"), [usage_exec]);
    assert_error(
        &mut exec,
        "CALL rpriv.getv(1)",
        1370,
        "42000",
        &execute_denied("rp_exec", "getv"),
    );

    // A REVOKE or GRANT on the routine reaches rp_none's open session at its next
    // statement.
    run_all(
        &mut root,
        &["REVOKE EXECUTE ON PROCEDURE rpriv.getv FROM rp_none@localhost"],
    );
    assert_eq!(show_grants(&mut root, "rp_none@localhost"), [usage_none]);
    assert_error(
        &mut none,
        "CALL rpriv.getv(1)",
        1370,
        "42000",
        &execute_denied("rp_none", "getv"),
    );
    run_all(
        &mut root,
        &["GRANT EXECUTE ON PROCEDURE rpriv.getv TO rp_none@localhost"],
    );
    assert_eq!(ints(&mut none, "CALL rpriv.getv(1)"), [10]);

    // ALTER ROUTINE on one procedure lets rp_exec drop that one and no other; the drop
    // takes the grant with it (automatic_sp_privileges).
    run_all(
        &mut root,
        &["GRANT ALTER ROUTINE ON PROCEDURE rpriv.bump TO rp_exec@localhost"],
    );
    let alter_denied = |routine: &str| {
        format!(
            "alter routine command denied to user 'rp_exec'@'localhost' for routine \
             'rpriv.{routine}'"
        )
    };
    for (sql, routine) in [
        ("DROP PROCEDURE rpriv.getv", "getv"),
        ("DROP PROCEDURE rpriv.getv_invoker", "getv_invoker"),
        ("DROP FUNCTION rpriv.fv", "fv"),
    ] {
        assert_error(&mut exec, sql, 1370, "42000", &alter_denied(routine));
    }
    assert_error(
        &mut exec,
        "CALL rpriv.bump(1)",
        1370,
        "42000",
        &execute_denied("rp_exec", "bump"),
    );
    exec.query_drop("DROP PROCEDURE rpriv.bump")
        .expect("drop with ALTER ROUTINE on the procedure");
    assert_error(
        &mut root,
        "CALL rpriv.bump(1)",
        1305,
        "42000",
        "PROCEDURE rpriv.bump does not exist",
    );
    assert_eq!(show_grants(&mut root, "rp_exec@localhost"), [usage_exec]);
    assert_eq!(
        show_grants(&mut root, "rp_none@localhost"),
        [usage_none, exec_getv]
    );
}

#[test]
fn routine_grants_follow_rename_drop_and_revoke_all() {
    let server = Server::from_env();
    let port = server.port();
    let mut root = server.connect();
    setup(&mut root);
    run_all(
        &mut root,
        &[
            "GRANT SELECT ON rpriv.t TO rp_none@localhost",
            "GRANT EXECUTE ON PROCEDURE rpriv.getv TO rp_none@localhost",
            "GRANT ALTER ROUTINE ON FUNCTION rpriv.fv TO rp_none@localhost WITH GRANT OPTION",
        ],
    );

    // RENAME USER carries each line to the new name.
    run_all(
        &mut root,
        &["RENAME USER rp_none@localhost TO rp_renamed@localhost"],
    );
    assert_eq!(
        show_grants(&mut root, "rp_renamed@localhost"),
        [
            "GRANT USAGE ON *.* TO `rp_renamed`@`localhost`",
            "GRANT SELECT ON `rpriv`.`t` TO `rp_renamed`@`localhost`",
            "GRANT EXECUTE ON PROCEDURE `rpriv`.`getv` TO `rp_renamed`@`localhost`",
            "GRANT ALTER ROUTINE ON FUNCTION `rpriv`.`fv` TO `rp_renamed`@`localhost` \
             WITH GRANT OPTION",
        ]
    );
    let users: Vec<String> = root
        .query("SELECT DISTINCT User FROM mysql.procs_priv")
        .expect("procs_priv users");
    assert_eq!(users, ["rp_renamed"]);
    let mut renamed = connect_as(port, "rp_renamed", "").expect("rp_renamed logs in");
    assert_eq!(ints(&mut renamed, "CALL rpriv.getv(1)"), [10]);
    drop(renamed);

    // DROP USER removes them: the same name created again has none.
    run_all(
        &mut root,
        &[
            "DROP USER rp_renamed@localhost",
            "CREATE USER rp_renamed@localhost",
        ],
    );
    assert_eq!(procs_priv_count(&mut root), 0);
    assert_eq!(
        show_grants(&mut root, "rp_renamed@localhost"),
        ["GRANT USAGE ON *.* TO `rp_renamed`@`localhost`"]
    );
    let mut renamed = connect_as(port, "rp_renamed", "").expect("rp_renamed logs in again");
    assert_error(
        &mut renamed,
        "CALL rpriv.getv(1)",
        1370,
        "42000",
        "execute command denied to user 'rp_renamed'@'localhost' for routine 'rpriv.getv'",
    );

    // REVOKE ALL PRIVILEGES, GRANT OPTION removes them with the other levels' grants.
    run_all(
        &mut root,
        &[
            "GRANT EXECUTE ON rpriv.* TO rp_exec@localhost",
            "GRANT EXECUTE ON PROCEDURE rpriv.getv TO rp_exec@localhost",
            "GRANT ALTER ROUTINE ON FUNCTION rpriv.fv TO rp_exec@localhost WITH GRANT OPTION",
        ],
    );
    assert_eq!(
        show_grants(&mut root, "rp_exec@localhost"),
        [
            USAGE_EXEC,
            "GRANT EXECUTE ON `rpriv`.* TO `rp_exec`@`localhost`",
            "GRANT EXECUTE ON PROCEDURE `rpriv`.`getv` TO `rp_exec`@`localhost`",
            "GRANT ALTER ROUTINE ON FUNCTION `rpriv`.`fv` TO `rp_exec`@`localhost` \
             WITH GRANT OPTION",
        ]
    );
    run_all(
        &mut root,
        &["REVOKE ALL PRIVILEGES, GRANT OPTION FROM rp_exec@localhost"],
    );
    assert_eq!(show_grants(&mut root, "rp_exec@localhost"), [USAGE_EXEC]);
    assert_eq!(procs_priv_count(&mut root), 0);
}

#[test]
fn automatic_sp_privileges_follow_create_and_drop() {
    let server = Server::from_env();
    let port = server.port();
    let mut root = server.connect();
    setup(&mut root);
    assert_eq!(
        ints(&mut root, "SELECT @@GLOBAL.automatic_sp_privileges"),
        [1]
    );
    // Root, who holds every privilege, got no row for the routines setup created.
    assert_eq!(procs_priv_count(&mut root), 0);
    run_all(
        &mut root,
        &[
            "GRANT CREATE ROUTINE ON rpriv.* TO rp_maker@localhost",
            "GRANT CREATE ROUTINE, EXECUTE, ALTER ROUTINE ON rpriv.* TO rp_exec@localhost",
        ],
    );

    // A creator with CREATE ROUTINE only gets EXECUTE and ALTER ROUTINE on each routine
    // it creates (not the grant option), granted by itself.
    let mut maker = connect_as(port, "rp_maker", "").expect("rp_maker logs in");
    run_all(
        &mut maker,
        &[
            "CREATE PROCEDURE rpriv.mp() SELECT 1",
            "CREATE FUNCTION rpriv.mf() RETURNS INT RETURN 7",
        ],
    );
    let usage_maker = "GRANT USAGE ON *.* TO `rp_maker`@`localhost`";
    let create_maker = "GRANT CREATE ROUTINE ON `rpriv`.* TO `rp_maker`@`localhost`";
    let mf_line = "GRANT EXECUTE, ALTER ROUTINE ON FUNCTION `rpriv`.`mf` TO `rp_maker`@`localhost`";
    assert_eq!(
        show_grants(&mut root, "rp_maker@localhost"),
        [
            usage_maker,
            create_maker,
            "GRANT EXECUTE, ALTER ROUTINE ON PROCEDURE `rpriv`.`mp` TO `rp_maker`@`localhost`",
            mf_line,
        ]
    );
    let row: Vec<(String, String, String, String, String, String, String)> = root
        .query(
            "SELECT Host, Db, User, Routine_name, Routine_type, Grantor, Proc_priv \
             FROM mysql.procs_priv WHERE Routine_name = 'mp'",
        )
        .expect("procs_priv");
    assert_eq!(
        row,
        [(
            "localhost".to_string(),
            "rpriv".to_string(),
            "rp_maker".to_string(),
            "mp".to_string(),
            "PROCEDURE".to_string(),
            "rp_maker@localhost".to_string(),
            "Execute,Alter Routine".to_string(),
        )]
    );
    assert_eq!(ints(&mut maker, "CALL rpriv.mp()"), [1]);
    assert_eq!(ints(&mut maker, "SELECT rpriv.mf()"), [7]);
    maker
        .query_drop("ALTER PROCEDURE rpriv.mp COMMENT 'x'")
        .expect("alter own procedure");
    assert_error(
        &mut maker,
        "GRANT EXECUTE ON PROCEDURE rpriv.mp TO rp_none@localhost",
        1370,
        "42000",
        "grant command denied to user 'rp_maker'@'localhost' for routine 'rpriv.mp'",
    );
    // Nothing on routines someone else created.
    assert_error(
        &mut maker,
        "CALL rpriv.getv(1)",
        1370,
        "42000",
        "execute command denied to user 'rp_maker'@'localhost' for routine 'rpriv.getv'",
    );

    // Dropping the procedure takes its line away; the function's stays.
    maker
        .query_drop("DROP PROCEDURE rpriv.mp")
        .expect("drop own procedure");
    assert_eq!(
        show_grants(&mut root, "rp_maker@localhost"),
        [usage_maker, create_maker, mf_line]
    );

    // A DROP by anyone takes every account's grants on the routine away, and the same
    // name created again (by root) gives nobody anything.
    run_all(
        &mut root,
        &["GRANT EXECUTE ON FUNCTION rpriv.mf TO rp_none@localhost"],
    );
    assert_eq!(
        show_grants(&mut root, "rp_none@localhost"),
        [
            "GRANT USAGE ON *.* TO `rp_none`@`localhost`",
            "GRANT EXECUTE ON FUNCTION `rpriv`.`mf` TO `rp_none`@`localhost`",
        ]
    );
    run_all(
        &mut root,
        &[
            "DROP FUNCTION rpriv.mf",
            "CREATE FUNCTION rpriv.mf() RETURNS INT RETURN 8",
        ],
    );
    assert_eq!(
        show_grants(&mut root, "rp_none@localhost"),
        ["GRANT USAGE ON *.* TO `rp_none`@`localhost`"]
    );
    assert_eq!(
        show_grants(&mut root, "rp_maker@localhost"),
        [usage_maker, create_maker]
    );
    assert_eq!(procs_priv_count(&mut root), 0);

    // A creator already holding EXECUTE and ALTER ROUTINE on the database gets no line.
    let mut exec = connect_as(port, "rp_exec", "").expect("rp_exec logs in");
    run_all(
        &mut exec,
        &[
            "CREATE PROCEDURE rpriv.ep() SELECT 1",
            "CREATE FUNCTION rpriv.ef() RETURNS INT RETURN 1",
        ],
    );
    assert_eq!(
        show_grants(&mut root, "rp_exec@localhost"),
        [
            USAGE_EXEC,
            "GRANT EXECUTE, CREATE ROUTINE, ALTER ROUTINE ON `rpriv`.* TO `rp_exec`@`localhost`",
        ]
    );
    assert_eq!(procs_priv_count(&mut root), 0);

    // The variable is global only. OFF: a creation gives nothing (so the creator may
    // not call what it made), and a DROP leaves the grants on the routine, which then
    // hold for a routine created again under that name.
    assert_error(
        &mut root,
        "SET automatic_sp_privileges = OFF",
        1229,
        "HY000",
        "Variable 'automatic_sp_privileges' is a GLOBAL variable and should be set with \
         SET GLOBAL",
    );
    run_all(&mut root, &["SET GLOBAL automatic_sp_privileges = OFF"]);
    assert_eq!(
        ints(&mut root, "SELECT @@GLOBAL.automatic_sp_privileges"),
        [0]
    );
    run_all(&mut maker, &["CREATE PROCEDURE rpriv.mp2() SELECT 2"]);
    assert_eq!(
        show_grants(&mut root, "rp_maker@localhost"),
        [usage_maker, create_maker]
    );
    assert_error(
        &mut maker,
        "CALL rpriv.mp2()",
        1370,
        "42000",
        "execute command denied to user 'rp_maker'@'localhost' for routine 'rpriv.mp2'",
    );
    let none_mp2 = [
        "GRANT USAGE ON *.* TO `rp_none`@`localhost`",
        "GRANT EXECUTE ON PROCEDURE `rpriv`.`mp2` TO `rp_none`@`localhost`",
    ];
    run_all(
        &mut root,
        &[
            "GRANT EXECUTE ON PROCEDURE rpriv.mp2 TO rp_none@localhost",
            "DROP PROCEDURE rpriv.mp2",
        ],
    );
    assert_eq!(show_grants(&mut root, "rp_none@localhost"), none_mp2);
    run_all(&mut root, &["CREATE PROCEDURE rpriv.mp2() SELECT 3"]);
    let mut none = connect_as(port, "rp_none", "").expect("rp_none logs in");
    assert_eq!(ints(&mut none, "CALL rpriv.mp2()"), [3]);
    run_all(&mut root, &["SET GLOBAL automatic_sp_privileges = ON"]);
    assert_eq!(
        ints(&mut root, "SELECT @@GLOBAL.automatic_sp_privileges"),
        [1]
    );
}

/// A routine is listed (information_schema.ROUTINES and PARAMETERS, SHOW PROCEDURE
/// STATUS) and shown (SHOW CREATE) only to a session holding a routine privilege on it,
/// and its definition only to its definer: a user with SELECT on every table of the
/// database sees nothing of it (SHOW CREATE is 1305, as for a missing routine), one with
/// EXECUTE or CREATE ROUTINE sees it without its body, and its definer sees the body.
#[test]
fn routines_are_seen_only_with_a_privilege_on_them() {
    let server = Server::from_env();
    let port = server.port();
    let mut root = server.connect();
    setup(&mut root);
    run_all(
        &mut root,
        &[
            "GRANT SELECT ON rpriv.* TO rp_none@localhost",
            "GRANT EXECUTE ON rpriv.* TO rp_exec@localhost",
            "GRANT CREATE ROUTINE ON rpriv.* TO rp_maker@localhost",
        ],
    );
    let mut maker = connect_as(port, "rp_maker", "").expect("rp_maker logs in");
    run_all(&mut maker, &["CREATE PROCEDURE rpriv.made(n INT) SELECT n"]);
    let definitions = |conn: &mut Conn| -> Vec<(String, Option<String>)> {
        conn.query(
            "SELECT ROUTINE_NAME, ROUTINE_DEFINITION FROM information_schema.ROUTINES \
             WHERE ROUTINE_SCHEMA = 'rpriv' AND ROUTINE_NAME IN ('getv', 'made') ORDER BY 1",
        )
        .expect("ROUTINES")
    };
    let parameters = |conn: &mut Conn| -> Vec<String> {
        conn.query(
            "SELECT PARAMETER_NAME FROM information_schema.PARAMETERS WHERE SPECIFIC_SCHEMA = \
             'rpriv' AND SPECIFIC_NAME IN ('getv', 'made') ORDER BY SPECIFIC_NAME",
        )
        .expect("PARAMETERS")
    };
    let status = |conn: &mut Conn| -> Vec<String> {
        let rows: Vec<mysql::Row> = conn
            .query("SHOW PROCEDURE STATUS WHERE Db = 'rpriv' AND Name IN ('getv', 'made')")
            .expect("SHOW PROCEDURE STATUS");
        rows.into_iter()
            .map(|row| row.get::<String, _>(1).expect("Name"))
            .collect()
    };
    let show_create = |conn: &mut Conn, name: &str| -> Result<Option<String>, mysql::Error> {
        let row: Option<mysql::Row> =
            conn.query_first(format!("SHOW CREATE PROCEDURE rpriv.{name}"))?;
        Ok(row.and_then(|row| row.get::<Option<String>, _>(2).expect("Create Procedure")))
    };

    let mut none = connect_as(port, "rp_none", "").expect("rp_none logs in");
    assert_eq!(definitions(&mut none), []);
    assert_eq!(parameters(&mut none), Vec::<String>::new());
    assert_eq!(status(&mut none), Vec::<String>::new());
    assert_eq!(
        error_of(show_create(&mut none, "getv")),
        (
            1305,
            "42000".to_string(),
            "PROCEDURE getv does not exist".to_string()
        )
    );

    let mut exec = connect_as(port, "rp_exec", "").expect("rp_exec logs in");
    assert_eq!(
        definitions(&mut exec),
        [("getv".to_string(), None), ("made".to_string(), None)]
    );
    assert_eq!(parameters(&mut exec), ["i", "n"]);
    assert_eq!(status(&mut exec), ["getv", "made"]);
    assert_eq!(show_create(&mut exec, "getv").expect("SHOW CREATE"), None);

    // The definer sees its own routine's body; root's it sees through CREATE ROUTINE on
    // the database, without the body.
    assert_eq!(
        definitions(&mut maker),
        [
            ("getv".to_string(), None),
            ("made".to_string(), Some("SELECT n".to_string()))
        ]
    );
    let text = show_create(&mut maker, "made")
        .expect("SHOW CREATE")
        .expect("the definer sees the text");
    assert!(text.ends_with("SELECT n"), "{text}");
}
