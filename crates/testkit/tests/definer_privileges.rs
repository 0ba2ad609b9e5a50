//! Whose privileges triggers, routines and views run with, and the TRIGGER privilege,
//! with the Rust `mysql` driver against the server under test (`MANYCORE_TEST_TARGET`,
//! default manycore): GRANT and REVOKE of TRIGGER at the global, database and table
//! levels and the SHOW GRANTS text after each (1146 for a missing table, 1147 for
//! revoking what was never granted on a table); CREATE TRIGGER and DROP TRIGGER need
//! TRIGGER on the table (1142; no other table privilege stands in), and a DEFINER other
//! than oneself needs SUPER or SET USER (1227), for a view or a procedure too; one that
//! does not exist is note 1449.
//!
//! A trigger's body runs with its definer's privileges: USER() in it is the invoker and
//! CURRENT_USER() the definer. The definer must hold TRIGGER on the table (1142 naming
//! the definer) and must exist (1449); the statement that fired it then fails and leaves
//! no row. Triggers are listed (SHOW TRIGGERS, information_schema.TRIGGERS) and shown
//! (SHOW CREATE TRIGGER, 1227 otherwise) only to a session holding TRIGGER on their
//! table: MariaDB leaves the others out rather than listing them with NULL columns.
//! CURRENT_USER() in a SQL SECURITY DEFINER routine is the definer, in an INVOKER one the
//! caller. A SQL SECURITY DEFINER view reads with its definer's privileges (1356 if they
//! do not suffice, 1449 if the definer is gone), an INVOKER view with the reader's.

use manycore_testkit::client::{assert_error, connect_as, run_all, show_grants};
use manycore_testkit::Server;
use mysql::prelude::Queryable;
use mysql::Conn;

/// The first result set of `sql` as integers.
fn ints(conn: &mut Conn, sql: &str) -> Vec<i64> {
    conn.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// The first result set of `sql` (a SELECT or a CALL) as pairs of strings.
fn pairs(conn: &mut Conn, sql: &str) -> Vec<(String, String)> {
    conn.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// A trigger as a listing shows it: name, statement, definer.
type Listed = (String, Option<String>, Option<String>);

fn listed(name: &str, statement: &str, definer: &str) -> Listed {
    (
        name.to_string(),
        Some(statement.to_string()),
        Some(definer.to_string()),
    )
}

/// The triggers of tpriv in information_schema.TRIGGERS, as `conn` sees them.
fn schema_triggers(conn: &mut Conn) -> Vec<Listed> {
    conn.query(
        "SELECT TRIGGER_NAME, ACTION_STATEMENT, DEFINER FROM information_schema.TRIGGERS \
         WHERE TRIGGER_SCHEMA = 'tpriv' ORDER BY TRIGGER_NAME",
    )
    .expect("information_schema.TRIGGERS")
}

/// SHOW TRIGGERS FROM tpriv as `conn` sees it, sorted by trigger name.
fn show_triggers(conn: &mut Conn) -> Result<Vec<Listed>, mysql::Error> {
    let rows: Vec<mysql::Row> = conn.query("SHOW TRIGGERS FROM tpriv")?;
    let mut triggers: Vec<Listed> = rows
        .into_iter()
        .map(|row| {
            (
                row.get::<String, _>("Trigger").expect("Trigger"),
                row.get::<Option<String>, _>("Statement")
                    .expect("Statement"),
                row.get::<Option<String>, _>("Definer").expect("Definer"),
            )
        })
        .collect();
    triggers.sort();
    Ok(triggers)
}

/// The rows of tpriv.audit (as root): the inserted value, USER() and CURRENT_USER().
fn audit(root: &mut Conn) -> Vec<(i64, String, String)> {
    root.query("SELECT a, u, c FROM tpriv.audit ORDER BY a")
        .expect("audit rows")
}

/// The body of the auditing trigger: it writes the row's value, USER() and
/// CURRENT_USER() to tpriv.audit.
const AUDIT_BODY: &str = "INSERT INTO tpriv.audit VALUES (NEW.a, USER(), CURRENT_USER())";

fn denied(command: &str, user: &str, host: &str, table: &str) -> String {
    format!("{command} command denied to user '{user}'@'{host}' for table `tpriv`.`{table}`")
}

/// Database `tpriv` with the empty tables `t` (a) and `audit` (a, u, c) and the
/// password-less users tp_x, tp_app, tp_look and tp_none (all @localhost) with no
/// privileges yet.
fn setup(root: &mut Conn) {
    run_all(
        root,
        &[
            "DROP USER IF EXISTS tp_x@localhost, tp_app@localhost, tp_look@localhost, \
             tp_none@localhost",
            "DROP DATABASE IF EXISTS tpriv",
            "CREATE DATABASE tpriv",
            "CREATE TABLE tpriv.t (a INT)",
            "CREATE TABLE tpriv.audit (a INT, u VARCHAR(100), c VARCHAR(100))",
            "CREATE USER tp_x@localhost",
            "CREATE USER tp_app@localhost",
            "CREATE USER tp_look@localhost",
            "CREATE USER tp_none@localhost",
        ],
    );
}

/// TRIGGER at each level joins that level's line in MariaDB's fixed privilege order
/// (after EXECUTE, ALTER ROUTINE, CREATE USER), and REVOKE takes it away again.
#[test]
fn trigger_privilege_in_grant_revoke_and_show_grants() {
    let server = Server::from_env();
    let mut root = server.connect();
    setup(&mut root);
    let account = "tp_x@localhost";
    let usage = "GRANT USAGE ON *.* TO `tp_x`@`localhost`";

    // Global level.
    run_all(
        &mut root,
        &["GRANT SELECT, TRIGGER ON *.* TO tp_x@localhost"],
    );
    assert_eq!(
        show_grants(&mut root, account),
        ["GRANT SELECT, TRIGGER ON *.* TO `tp_x`@`localhost`"]
    );
    run_all(&mut root, &["GRANT EXECUTE ON *.* TO tp_x@localhost"]);
    assert_eq!(
        show_grants(&mut root, account),
        ["GRANT SELECT, EXECUTE, TRIGGER ON *.* TO `tp_x`@`localhost`"]
    );
    run_all(&mut root, &["REVOKE TRIGGER ON *.* FROM tp_x@localhost"]);
    assert_eq!(
        show_grants(&mut root, account),
        ["GRANT SELECT, EXECUTE ON *.* TO `tp_x`@`localhost`"]
    );
    run_all(
        &mut root,
        &["REVOKE SELECT, EXECUTE ON *.* FROM tp_x@localhost"],
    );
    assert_eq!(show_grants(&mut root, account), [usage]);

    // Database level.
    run_all(&mut root, &["GRANT TRIGGER ON tpriv.* TO tp_x@localhost"]);
    assert_eq!(
        show_grants(&mut root, account),
        [usage, "GRANT TRIGGER ON `tpriv`.* TO `tp_x`@`localhost`"]
    );
    run_all(
        &mut root,
        &["GRANT ALTER ROUTINE, INSERT, EXECUTE ON tpriv.* TO tp_x@localhost"],
    );
    assert_eq!(
        show_grants(&mut root, account),
        [
            usage,
            "GRANT INSERT, EXECUTE, ALTER ROUTINE, TRIGGER ON `tpriv`.* TO `tp_x`@`localhost`"
        ]
    );
    run_all(
        &mut root,
        &["REVOKE TRIGGER ON tpriv.* FROM tp_x@localhost"],
    );
    assert_eq!(
        show_grants(&mut root, account),
        [
            usage,
            "GRANT INSERT, EXECUTE, ALTER ROUTINE ON `tpriv`.* TO `tp_x`@`localhost`"
        ]
    );
    run_all(
        &mut root,
        &["REVOKE INSERT, EXECUTE, ALTER ROUTINE ON tpriv.* FROM tp_x@localhost"],
    );
    assert_eq!(show_grants(&mut root, account), [usage]);

    // Table level, with the row in mysql.tables_priv.
    run_all(&mut root, &["GRANT TRIGGER ON tpriv.t TO tp_x@localhost"]);
    assert_eq!(
        show_grants(&mut root, account),
        [usage, "GRANT TRIGGER ON `tpriv`.`t` TO `tp_x`@`localhost`"]
    );
    run_all(
        &mut root,
        &["GRANT ALTER, SELECT ON tpriv.t TO tp_x@localhost WITH GRANT OPTION"],
    );
    assert_eq!(
        show_grants(&mut root, account),
        [
            usage,
            "GRANT SELECT, ALTER, TRIGGER ON `tpriv`.`t` TO `tp_x`@`localhost` WITH GRANT OPTION"
        ]
    );
    let table_priv: Vec<String> = root
        .query("SELECT Table_priv FROM mysql.tables_priv WHERE User = 'tp_x'")
        .expect("tables_priv");
    assert_eq!(table_priv, ["Select,Grant,Alter,Trigger"]);
    run_all(
        &mut root,
        &["REVOKE SELECT, ALTER, GRANT OPTION ON tpriv.t FROM tp_x@localhost"],
    );
    assert_eq!(
        show_grants(&mut root, account),
        [usage, "GRANT TRIGGER ON `tpriv`.`t` TO `tp_x`@`localhost`"]
    );
    run_all(
        &mut root,
        &["REVOKE TRIGGER ON tpriv.t FROM tp_x@localhost"],
    );
    assert_eq!(show_grants(&mut root, account), [usage]);
    let rows = ints(
        &mut root,
        "SELECT COUNT(*) FROM mysql.tables_priv WHERE User = 'tp_x'",
    );
    assert_eq!(rows, [0]);

    // A missing table: 1146 to grant; with no grant on the table, 1147 to revoke.
    assert_error(
        &mut root,
        "GRANT TRIGGER ON tpriv.nosuch TO tp_x@localhost",
        1146,
        "42S02",
        "Table 'tpriv.nosuch' doesn't exist",
    );
    assert_error(
        &mut root,
        "REVOKE TRIGGER ON tpriv.t FROM tp_x@localhost",
        1147,
        "42000",
        "There is no such grant defined for user 'tp_x' on host 'localhost' on table 't'",
    );
    assert_eq!(show_grants(&mut root, account), [usage]);

    // ALL on the table includes TRIGGER: without it the rest are listed one by one, and
    // TRIGGER back makes it ALL PRIVILEGES again. (MariaDB's list holds privileges
    // manycore does not model, such as REFERENCES and CREATE VIEW: only TRIGGER's
    // absence from it is compared.)
    run_all(&mut root, &["GRANT ALL ON tpriv.t TO tp_x@localhost"]);
    let all = "GRANT ALL PRIVILEGES ON `tpriv`.`t` TO `tp_x`@`localhost`";
    assert_eq!(show_grants(&mut root, account), [usage, all]);
    run_all(
        &mut root,
        &["REVOKE TRIGGER ON tpriv.t FROM tp_x@localhost"],
    );
    let listed_grants = show_grants(&mut root, account);
    let line = &listed_grants[1];
    assert!(
        line.starts_with("GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, ")
            && line.contains(", ALTER")
            && !line.contains("TRIGGER")
            && !line.contains("ALL PRIVILEGES")
            && line.ends_with(" ON `tpriv`.`t` TO `tp_x`@`localhost`"),
        "{listed_grants:?}"
    );
    run_all(&mut root, &["GRANT TRIGGER ON tpriv.t TO tp_x@localhost"]);
    assert_eq!(show_grants(&mut root, account), [usage, all]);
    run_all(&mut root, &["REVOKE ALL ON tpriv.t FROM tp_x@localhost"]);
    assert_eq!(show_grants(&mut root, account), [usage]);
}

/// Every table privilege but TRIGGER (ALTER among them) does not let a user create or
/// drop a trigger on the table: 1142 for TRIGGER on it. TRIGGER on the table alone does,
/// on anyone's trigger, and so does TRIGGER on the database or globally. A REVOKE reaches
/// an open session at its next statement.
#[test]
fn create_and_drop_trigger_need_trigger_on_the_table() {
    let server = Server::from_env();
    let port = server.port();
    let mut root = server.connect();
    setup(&mut root);
    run_all(
        &mut root,
        &[
            "DROP USER IF EXISTS tp_maker@localhost",
            "CREATE USER tp_maker@localhost",
            "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, INDEX, ALTER ON tpriv.t \
             TO tp_x@localhost",
            "GRANT TRIGGER ON tpriv.audit TO tp_x@localhost",
            "GRANT TRIGGER ON tpriv.t TO tp_maker@localhost",
            "CREATE TRIGGER tpriv.t_root BEFORE INSERT ON tpriv.t FOR EACH ROW SET @tp = 1",
        ],
    );

    let mut x = connect_as(port, "tp_x", "").expect("tp_x logs in");
    let x_denied = |table: &str| denied("TRIGGER", "tp_x", "localhost", table);
    assert_error(
        &mut x,
        "CREATE TRIGGER tpriv.t_bi BEFORE INSERT ON tpriv.t FOR EACH ROW SET @tp = 2",
        1142,
        "42000",
        &x_denied("t"),
    );
    assert_error(
        &mut x,
        "DROP TRIGGER tpriv.t_root",
        1142,
        "42000",
        &x_denied("t"),
    );
    // The check comes before the table's existence is; a trigger that does not exist
    // has no table to check, so its DROP is 1360 whoever asks.
    assert_error(
        &mut x,
        "CREATE TRIGGER tpriv.n_bi BEFORE INSERT ON tpriv.nosuch FOR EACH ROW SET @tp = 2",
        1142,
        "42000",
        &x_denied("nosuch"),
    );
    assert_error(
        &mut x,
        "DROP TRIGGER tpriv.nosuch",
        1360,
        "HY000",
        "Trigger does not exist",
    );
    // TRIGGER on tpriv.audit is for audit's triggers only.
    x.query_drop(
        "CREATE TRIGGER tpriv.audit_bi BEFORE INSERT ON tpriv.audit FOR EACH ROW \
         SET @tp = 3",
    )
    .expect("create with TRIGGER on the table");
    assert_eq!(
        schema_triggers(&mut root),
        [
            listed("audit_bi", "SET @tp = 3", "tp_x@localhost"),
            listed("t_root", "SET @tp = 1", "root@localhost"),
        ]
    );

    // TRIGGER alone on t: create (as its definer) and drop, root's trigger too.
    let mut maker = connect_as(port, "tp_maker", "").expect("tp_maker logs in");
    maker
        .query_drop("CREATE TRIGGER tpriv.t_bi BEFORE INSERT ON tpriv.t FOR EACH ROW SET @tp = 2")
        .expect("create with TRIGGER only");
    assert_eq!(
        schema_triggers(&mut root),
        [
            listed("audit_bi", "SET @tp = 3", "tp_x@localhost"),
            listed("t_bi", "SET @tp = 2", "tp_maker@localhost"),
            listed("t_root", "SET @tp = 1", "root@localhost"),
        ]
    );
    run_all(&mut maker, &["DROP TRIGGER tpriv.t_root"]);
    // tp_maker may not use the table it manages triggers on.
    assert_error(
        &mut maker,
        "INSERT INTO tpriv.t VALUES (1)",
        1142,
        "42000",
        &denied("INSERT", "tp_maker", "localhost", "t"),
    );

    // The REVOKE reaches the open session.
    run_all(
        &mut root,
        &["REVOKE TRIGGER ON tpriv.t FROM tp_maker@localhost"],
    );
    assert_error(
        &mut maker,
        "DROP TRIGGER tpriv.t_bi",
        1142,
        "42000",
        &denied("TRIGGER", "tp_maker", "localhost", "t"),
    );

    // TRIGGER on the database reaches an open session too.
    run_all(&mut root, &["GRANT TRIGGER ON tpriv.* TO tp_x@localhost"]);
    run_all(
        &mut x,
        &[
            "DROP TRIGGER tpriv.t_bi",
            "CREATE TRIGGER tpriv.t_bu BEFORE UPDATE ON tpriv.t FOR EACH ROW SET @tp = 4",
        ],
    );
    // A global TRIGGER is read at login.
    run_all(&mut root, &["GRANT TRIGGER ON *.* TO tp_none@localhost"]);
    let mut none = connect_as(port, "tp_none", "").expect("tp_none logs in");
    run_all(
        &mut none,
        &[
            "DROP TRIGGER tpriv.t_bu",
            "DROP TRIGGER tpriv.audit_bi",
            "CREATE TRIGGER tpriv.t_bd BEFORE DELETE ON tpriv.t FOR EACH ROW SET @tp = 5",
        ],
    );
    assert_eq!(
        schema_triggers(&mut root),
        [listed("t_bd", "SET @tp = 5", "tp_none@localhost")]
    );
}

/// A user with TRIGGER may name itself (or CURRENT_USER) as the definer, but naming
/// another account needs SUPER or SET USER: 1227, whether or not that account exists.
/// Root may name an account that does not exist, with note 1449.
#[test]
fn create_trigger_for_another_definer_needs_super() {
    let server = Server::from_env();
    let port = server.port();
    let mut root = server.connect();
    setup(&mut root);
    run_all(&mut root, &["GRANT TRIGGER ON tpriv.t TO tp_x@localhost"]);
    let mut x = connect_as(port, "tp_x", "").expect("tp_x logs in");
    let need_super = "Access denied; you need (at least one of) the SUPER, SET USER \
                      privilege(s) for this operation";
    for definer in ["root@localhost", "tp_app@localhost", "tp_nobody@localhost"] {
        assert_error(
            &mut x,
            &format!(
                "CREATE DEFINER = {definer} TRIGGER tpriv.t_bi BEFORE INSERT ON tpriv.t \
                 FOR EACH ROW SET @tp = 1"
            ),
            1227,
            "42000",
            need_super,
        );
    }
    assert_eq!(schema_triggers(&mut root), []);
    run_all(
        &mut x,
        &[
            "CREATE DEFINER = tp_x@localhost TRIGGER tpriv.t_bi BEFORE INSERT ON tpriv.t \
             FOR EACH ROW SET @tp = 1",
            "CREATE DEFINER = CURRENT_USER TRIGGER tpriv.t_bu BEFORE UPDATE ON tpriv.t \
             FOR EACH ROW SET @tp = 2",
        ],
    );
    assert_eq!(
        schema_triggers(&mut root),
        [
            listed("t_bi", "SET @tp = 1", "tp_x@localhost"),
            listed("t_bu", "SET @tp = 2", "tp_x@localhost"),
        ]
    );

    run_all(
        &mut root,
        &[
            "CREATE DEFINER = tp_nobody@'%' TRIGGER tpriv.t_bd BEFORE DELETE ON tpriv.t \
             FOR EACH ROW SET @tp = 3",
        ],
    );
    let warnings: Vec<(String, u16, String)> = root.query("SHOW WARNINGS").expect("SHOW WARNINGS");
    assert_eq!(
        warnings,
        [(
            "Note".to_string(),
            1449,
            "The user specified as a definer ('tp_nobody'@'%') does not exist".to_string()
        )]
    );

    // The same rule for views and routines, which run as their definer too.
    run_all(
        &mut root,
        &[
            "CREATE USER tp_v@localhost",
            "GRANT ALL ON tpriv.* TO tp_v@localhost",
        ],
    );
    let mut v = connect_as(port, "tp_v", "").expect("tp_v logs in");
    for create in [
        "CREATE DEFINER = root@localhost VIEW tpriv.v AS SELECT 1 AS one",
        "CREATE DEFINER = root@localhost PROCEDURE tpriv.p() SELECT 1",
    ] {
        assert_error(&mut v, create, 1227, "42000", need_super);
    }
    run_all(
        &mut v,
        &["CREATE DEFINER = tp_v@localhost VIEW tpriv.v AS SELECT 1 AS one"],
    );
    for create in [
        "CREATE DEFINER = tp_nobody@'%' VIEW tpriv.w AS SELECT 1 AS one",
        "CREATE DEFINER = tp_nobody@'%' PROCEDURE tpriv.p() SELECT 1",
    ] {
        run_all(&mut root, &[create]);
        let warnings: Vec<(String, u16, String)> =
            root.query("SHOW WARNINGS").expect("SHOW WARNINGS");
        assert_eq!(
            warnings,
            [(
                "Note".to_string(),
                1449,
                "The user specified as a definer ('tp_nobody'@'%') does not exist".to_string()
            )],
            "{create}"
        );
    }
}

/// The body of a trigger root defined writes to a table its invoker may not touch, and
/// sees USER() as the invoker and CURRENT_USER() as root. With another definer the body
/// needs that definer's privileges.
#[test]
fn a_trigger_body_runs_with_its_definers_privileges() {
    let server = Server::from_env();
    let port = server.port();
    let mut root = server.connect();
    setup(&mut root);
    run_all(
        &mut root,
        &[
            "DROP USER IF EXISTS tp_def@'%'",
            "CREATE USER tp_def@'%'",
            "GRANT INSERT ON tpriv.t TO tp_app@localhost",
            &format!("CREATE TRIGGER tpriv.t_ai AFTER INSERT ON tpriv.t FOR EACH ROW {AUDIT_BODY}"),
        ],
    );
    let mut app = connect_as(port, "tp_app", "").expect("tp_app logs in");
    run_all(&mut app, &["INSERT INTO tpriv.t VALUES (5)"]);
    assert_eq!(
        audit(&mut root),
        [(
            5,
            "tp_app@localhost".to_string(),
            "root@localhost".to_string()
        )]
    );
    assert_eq!(
        pairs(&mut app, "SELECT USER(), CURRENT_USER()"),
        [(
            "tp_app@localhost".to_string(),
            "tp_app@localhost".to_string()
        )]
    );
    // Outside the trigger tp_app may neither read nor write audit.
    assert_error(
        &mut app,
        "SELECT * FROM tpriv.audit",
        1142,
        "42000",
        &denied("SELECT", "tp_app", "localhost", "audit"),
    );
    assert_error(
        &mut app,
        "INSERT INTO tpriv.audit VALUES (6, '', '')",
        1142,
        "42000",
        &denied("INSERT", "tp_app", "localhost", "audit"),
    );

    // The same trigger defined by tp_def, who holds TRIGGER on t but nothing on audit:
    // the body's INSERT is refused to tp_def, and the statement leaves no row.
    run_all(
        &mut root,
        &[
            "DROP TRIGGER tpriv.t_ai",
            "GRANT TRIGGER ON tpriv.t TO tp_def@'%'",
            &format!(
                "CREATE DEFINER = tp_def@'%' TRIGGER tpriv.t_ai AFTER INSERT ON tpriv.t \
                 FOR EACH ROW {AUDIT_BODY}"
            ),
        ],
    );
    assert_error(
        &mut app,
        "INSERT INTO tpriv.t VALUES (7)",
        1142,
        "42000",
        &denied("INSERT", "tp_def", "%", "audit"),
    );
    assert_eq!(ints(&mut root, "SELECT a FROM tpriv.t ORDER BY a"), [5]);
    // Granted what the body uses (reading NEW.a takes SELECT on t), it runs as tp_def.
    run_all(
        &mut root,
        &[
            "GRANT INSERT ON tpriv.audit TO tp_def@'%'",
            "GRANT SELECT ON tpriv.t TO tp_def@'%'",
        ],
    );
    run_all(&mut app, &["INSERT INTO tpriv.t VALUES (8)"]);
    assert_eq!(
        audit(&mut root),
        [
            (
                5,
                "tp_app@localhost".to_string(),
                "root@localhost".to_string()
            ),
            (8, "tp_app@localhost".to_string(), "tp_def@%".to_string()),
        ]
    );
    assert_eq!(ints(&mut root, "SELECT a FROM tpriv.t ORDER BY a"), [5, 8]);
}

/// A trigger's definer must hold TRIGGER on its table when it fires (root's privileges
/// do not stand in) and must still exist: 1142 naming the definer, 1449. The statement
/// that fired it fails and leaves no row.
#[test]
fn a_trigger_needs_its_definer_to_exist_and_hold_trigger() {
    let server = Server::from_env();
    let port = server.port();
    let mut root = server.connect();
    setup(&mut root);
    run_all(
        &mut root,
        &[
            "DROP USER IF EXISTS tp_def@'%', tp_gone@'%', tp_def@localhost",
            "CREATE USER tp_def@'%'",
            "CREATE USER tp_gone@'%'",
            "CREATE USER tp_def@localhost",
            "GRANT INSERT ON tpriv.t TO tp_app@localhost",
            &format!(
                "CREATE DEFINER = tp_def@'%' TRIGGER tpriv.t_ai AFTER INSERT ON tpriv.t \
                 FOR EACH ROW {AUDIT_BODY}"
            ),
        ],
    );
    let no_trigger = denied("TRIGGER", "tp_def", "%", "t");
    assert_error(
        &mut root,
        "INSERT INTO tpriv.t VALUES (1)",
        1142,
        "42000",
        &no_trigger,
    );
    let mut app = connect_as(port, "tp_app", "").expect("tp_app logs in");
    assert_error(
        &mut app,
        "INSERT INTO tpriv.t VALUES (2)",
        1142,
        "42000",
        &no_trigger,
    );
    // The definer is the account named, not another one with the same user name.
    run_all(&mut root, &["GRANT TRIGGER ON tpriv.t TO tp_def@localhost"]);
    assert_error(
        &mut app,
        "INSERT INTO tpriv.t VALUES (3)",
        1142,
        "42000",
        &no_trigger,
    );
    assert_eq!(ints(&mut root, "SELECT COUNT(*) FROM tpriv.t"), [0]);
    assert_eq!(audit(&mut root), []);

    // TRIGGER on the database is enough; the trigger then fires.
    run_all(
        &mut root,
        &[
            "GRANT TRIGGER ON tpriv.* TO tp_def@'%'",
            "GRANT SELECT ON tpriv.t TO tp_def@'%'",
            "GRANT INSERT ON tpriv.audit TO tp_def@'%'",
        ],
    );
    run_all(&mut app, &["INSERT INTO tpriv.t VALUES (4)"]);
    assert_eq!(ints(&mut root, "SELECT a FROM tpriv.t"), [4]);
    assert_eq!(
        audit(&mut root),
        [(4, "tp_app@localhost".to_string(), "tp_def@%".to_string())]
    );
    // Revoked again, the open session's next INSERT fails.
    run_all(&mut root, &["REVOKE TRIGGER ON tpriv.* FROM tp_def@'%'"]);
    assert_error(
        &mut app,
        "INSERT INTO tpriv.t VALUES (5)",
        1142,
        "42000",
        &no_trigger,
    );
    assert_eq!(ints(&mut root, "SELECT a FROM tpriv.t"), [4]);

    // A definer dropped after the trigger's creation: 1449, even for root.
    run_all(
        &mut root,
        &[
            "DROP TRIGGER tpriv.t_ai",
            "GRANT TRIGGER, SELECT ON tpriv.t TO tp_gone@'%'",
            &format!(
                "CREATE DEFINER = tp_gone@'%' TRIGGER tpriv.t_ai AFTER INSERT ON tpriv.t \
                 FOR EACH ROW {AUDIT_BODY}"
            ),
            "DROP USER tp_gone@'%'",
        ],
    );
    let gone = "The user specified as a definer ('tp_gone'@'%') does not exist";
    assert_error(
        &mut app,
        "INSERT INTO tpriv.t VALUES (6)",
        1449,
        "HY000",
        gone,
    );
    assert_error(
        &mut root,
        "INSERT INTO tpriv.t VALUES (7)",
        1449,
        "HY000",
        gone,
    );
    assert_eq!(ints(&mut root, "SELECT a FROM tpriv.t"), [4]);
    assert_eq!(audit(&mut root).len(), 1);
    // The orphan trigger is still listed with its definer and may be dropped.
    assert_eq!(
        schema_triggers(&mut root),
        [listed("t_ai", AUDIT_BODY, "tp_gone@%")]
    );
    run_all(&mut root, &["DROP TRIGGER tpriv.t_ai"]);
    run_all(&mut app, &["INSERT INTO tpriv.t VALUES (9)"]);
    assert_eq!(ints(&mut root, "SELECT a FROM tpriv.t ORDER BY a"), [4, 9]);
}

/// information_schema.TRIGGERS and SHOW TRIGGERS list a trigger, with its statement and
/// definer, only to a session holding TRIGGER on its table (at any level); MariaDB
/// leaves the others out, even for a user with SELECT on every table. SHOW CREATE
/// TRIGGER without it: 1227; a trigger that does not exist: 1360.
#[test]
fn triggers_are_seen_only_with_trigger_on_their_table() {
    let server = Server::from_env();
    let port = server.port();
    let mut root = server.connect();
    setup(&mut root);
    run_all(
        &mut root,
        &[
            "DROP USER IF EXISTS tp_bare@localhost, tp_tr@localhost, tp_dbtr@localhost",
            "CREATE USER tp_bare@localhost",
            "CREATE USER tp_tr@localhost",
            "CREATE USER tp_dbtr@localhost",
            "GRANT SELECT ON tpriv.* TO tp_look@localhost",
            "GRANT SELECT ON tpriv.audit TO tp_bare@localhost",
            "GRANT TRIGGER ON tpriv.t TO tp_tr@localhost",
            "GRANT TRIGGER ON tpriv.* TO tp_dbtr@localhost",
            "CREATE TRIGGER tpriv.t_ai AFTER INSERT ON tpriv.t FOR EACH ROW SET @tp = 1",
            "CREATE TRIGGER tpriv.t_bu BEFORE UPDATE ON tpriv.t FOR EACH ROW SET @tp = 2",
            "CREATE TRIGGER tpriv.audit_bi BEFORE INSERT ON tpriv.audit FOR EACH ROW \
             SET @tp = 3",
        ],
    );
    let t_ai = listed("t_ai", "SET @tp = 1", "root@localhost");
    let t_bu = listed("t_bu", "SET @tp = 2", "root@localhost");
    let audit_bi = listed("audit_bi", "SET @tp = 3", "root@localhost");
    let all = vec![audit_bi.clone(), t_ai.clone(), t_bu.clone()];
    assert_eq!(schema_triggers(&mut root), all);
    assert_eq!(show_triggers(&mut root).expect("SHOW TRIGGERS"), all);
    let show_create = |conn: &mut Conn, name: &str| -> Result<Option<String>, mysql::Error> {
        let row: Option<mysql::Row> =
            conn.query_first(format!("SHOW CREATE TRIGGER tpriv.{name}"))?;
        Ok(row.map(|row| row.get::<String, _>(2).expect("SQL Original Statement")))
    };
    let need_trigger =
        "Access denied; you need (at least one of) the TRIGGER privilege(s) for this operation";

    // SELECT on every table of the database, on one table, or nothing: no trigger is
    // listed. SHOW TRIGGERS takes some privilege in the database (1044 otherwise).
    let mut look = connect_as(port, "tp_look", "").expect("tp_look logs in");
    let mut bare = connect_as(port, "tp_bare", "").expect("tp_bare logs in");
    let mut none = connect_as(port, "tp_none", "").expect("tp_none logs in");
    for conn in [&mut look, &mut bare] {
        assert_eq!(schema_triggers(conn), []);
        assert_eq!(show_triggers(conn).expect("SHOW TRIGGERS"), []);
    }
    assert_eq!(schema_triggers(&mut none), []);
    assert_error(
        &mut none,
        "SHOW TRIGGERS FROM tpriv",
        1044,
        "42000",
        "Access denied for user 'tp_none'@'localhost' to database 'tpriv'",
    );
    for conn in [&mut look, &mut bare, &mut none] {
        assert_error(
            conn,
            "SHOW CREATE TRIGGER tpriv.t_ai",
            1227,
            "42000",
            need_trigger,
        );
        assert_error(
            conn,
            "SHOW CREATE TRIGGER tpriv.nosuch",
            1360,
            "HY000",
            "Trigger does not exist",
        );
    }

    // TRIGGER on t: t's triggers with their statements and definers, not audit's.
    let mut tr = connect_as(port, "tp_tr", "").expect("tp_tr logs in");
    let of_t = vec![t_ai.clone(), t_bu.clone()];
    assert_eq!(schema_triggers(&mut tr), of_t);
    assert_eq!(show_triggers(&mut tr).expect("SHOW TRIGGERS"), of_t);
    // MariaDB shows the names as the CREATE wrote them (tpriv.t_ai), manycore quotes
    // them (`t_ai`): only the definer and the body are compared.
    let shown = show_create(&mut tr, "t_ai")
        .expect("SHOW CREATE TRIGGER")
        .expect("a row");
    assert!(
        shown.starts_with("CREATE DEFINER=`root`@`localhost` TRIGGER ")
            && (shown.ends_with(" AFTER INSERT ON tpriv.t FOR EACH ROW SET @tp = 1")
                || shown.ends_with(" AFTER INSERT ON `t` FOR EACH ROW SET @tp = 1")),
        "{shown}"
    );
    assert_error(
        &mut tr,
        "SHOW CREATE TRIGGER tpriv.audit_bi",
        1227,
        "42000",
        need_trigger,
    );

    // TRIGGER on the database: every trigger of it.
    let mut dbtr = connect_as(port, "tp_dbtr", "").expect("tp_dbtr logs in");
    assert_eq!(schema_triggers(&mut dbtr), all);
    assert_eq!(show_triggers(&mut dbtr).expect("SHOW TRIGGERS"), all);
    assert!(show_create(&mut dbtr, "audit_bi")
        .expect("SHOW CREATE TRIGGER")
        .is_some());

    // TRIGGER on t granted to tp_look reaches its open session.
    run_all(
        &mut root,
        &["GRANT TRIGGER ON tpriv.t TO tp_look@localhost"],
    );
    assert_eq!(schema_triggers(&mut look), of_t);
    assert_eq!(show_triggers(&mut look).expect("SHOW TRIGGERS"), of_t);
}

/// CURRENT_USER() (and CURRENT_USER) in a SQL SECURITY DEFINER routine is its definer,
/// in a SQL SECURITY INVOKER one the caller; USER() is the caller in both.
#[test]
fn current_user_in_a_routine_follows_its_sql_security() {
    let server = Server::from_env();
    let port = server.port();
    let mut root = server.connect();
    setup(&mut root);
    run_all(
        &mut root,
        &[
            "DROP USER IF EXISTS tp_def@'%'",
            "CREATE USER tp_def@'%'",
            "GRANT EXECUTE ON tpriv.* TO tp_def@'%'",
            "GRANT EXECUTE ON tpriv.* TO tp_app@localhost",
            "CREATE PROCEDURE tpriv.who_definer() SELECT USER(), CURRENT_USER()",
            "CREATE PROCEDURE tpriv.who_invoker() SQL SECURITY INVOKER \
             SELECT USER(), CURRENT_USER",
            "CREATE DEFINER = tp_def@'%' PROCEDURE tpriv.who_def() \
             SELECT USER(), CURRENT_USER()",
            "CREATE FUNCTION tpriv.fwho() RETURNS VARCHAR(200) \
             RETURN CURRENT_USER()",
            "CREATE FUNCTION tpriv.fwho_invoker() RETURNS VARCHAR(200) SQL SECURITY INVOKER \
             RETURN CURRENT_USER()",
        ],
    );
    let mut app = connect_as(port, "tp_app", "").expect("tp_app logs in");
    let pair = |user: &str, current: &str| vec![(user.to_string(), current.to_string())];
    // USER() is the caller throughout; back outside, CURRENT_USER() is the session's
    // own account again.
    for (sql, current) in [
        ("CALL tpriv.who_definer()", "root@localhost"),
        ("CALL tpriv.who_invoker()", "tp_app@localhost"),
        ("CALL tpriv.who_def()", "tp_def@%"),
        ("SELECT USER(), CURRENT_USER()", "tp_app@localhost"),
    ] {
        assert_eq!(
            pairs(&mut app, sql),
            pair("tp_app@localhost", current),
            "{sql}"
        );
    }
    assert_eq!(
        pairs(&mut app, "SELECT tpriv.fwho(), tpriv.fwho_invoker()"),
        pair("root@localhost", "tp_app@localhost")
    );
    // Root calling tp_def's procedure becomes tp_def inside it.
    assert_eq!(
        pairs(&mut root, "CALL tpriv.who_def()"),
        pair("root@localhost", "tp_def@%")
    );
}

/// A SQL SECURITY DEFINER view (the default) reads with its definer's privileges: a user
/// with SELECT on the view alone reads its columns of a table it may not read, and no
/// others. An INVOKER view needs the reader's own privileges on what it reads (1356), a
/// DEFINER view whose definer lacks them is 1356 too, and one whose definer was dropped
/// is 1449.
#[test]
fn a_definer_view_reads_with_its_definers_privileges() {
    let server = Server::from_env();
    let port = server.port();
    let mut root = server.connect();
    setup(&mut root);
    run_all(
        &mut root,
        &[
            "DROP USER IF EXISTS tp_def@'%', tp_gone@'%'",
            "CREATE USER tp_def@'%'",
            "CREATE USER tp_gone@'%'",
            "CREATE TABLE tpriv.secret (id INT, shown VARCHAR(10), hidden VARCHAR(10))",
            "INSERT INTO tpriv.secret VALUES (1, 'a', 'x'), (2, 'b', 'y')",
            "CREATE VIEW tpriv.open_part AS SELECT id, shown FROM tpriv.secret",
            "CREATE SQL SECURITY INVOKER VIEW tpriv.as_reader AS SELECT id FROM tpriv.secret",
            "CREATE DEFINER = tp_def@'%' VIEW tpriv.as_def AS SELECT id FROM tpriv.secret",
            "CREATE DEFINER = tp_gone@'%' VIEW tpriv.orphan AS SELECT id FROM tpriv.secret",
            "DROP USER tp_gone@'%'",
            "GRANT SELECT ON tpriv.open_part TO tp_app@localhost",
            "GRANT SELECT ON tpriv.as_reader TO tp_app@localhost",
            "GRANT SELECT ON tpriv.as_def TO tp_app@localhost",
            "GRANT SELECT ON tpriv.orphan TO tp_app@localhost",
        ],
    );
    let mut app = connect_as(port, "tp_app", "").expect("tp_app logs in");
    let rows: Vec<(i64, String)> = app
        .query("SELECT id, shown FROM tpriv.open_part ORDER BY id")
        .expect("the view reads as root");
    assert_eq!(rows, [(1, "a".to_string()), (2, "b".to_string())]);
    assert_eq!(
        ints(
            &mut app,
            "SELECT COUNT(*) FROM tpriv.open_part o JOIN tpriv.open_part p USING (id)"
        ),
        [2]
    );
    assert_error(
        &mut app,
        "SELECT hidden FROM tpriv.secret",
        1142,
        "42000",
        "SELECT command denied to user 'tp_app'@'localhost' for table `tpriv`.`secret`",
    );
    assert_error(
        &mut app,
        "SELECT hidden FROM tpriv.open_part",
        1054,
        "42S22",
        "Unknown column 'hidden' in 'SELECT'",
    );
    let invalid = |view: &str| {
        format!(
            "View 'tpriv.{view}' references invalid table(s) or column(s) or function(s) or \
             definer/invoker of view lack rights to use them"
        )
    };
    for view in ["as_reader", "as_def"] {
        assert_error(
            &mut app,
            &format!("SELECT * FROM tpriv.{view}"),
            1356,
            "HY000",
            &invalid(view),
        );
    }
    // Once the definer may read the table, so may the view's readers.
    run_all(&mut root, &["GRANT SELECT ON tpriv.secret TO tp_def@'%'"]);
    assert_eq!(
        ints(&mut app, "SELECT id FROM tpriv.as_def ORDER BY id"),
        [1, 2]
    );
    // MariaDB answers 1045 (Access denied for user 'tp_app'@'localhost') to a reader
    // other than root here; manycore answers 1449 to everyone.
    assert_error(
        &mut root,
        "SELECT * FROM tpriv.orphan",
        1449,
        "HY000",
        "The user specified as a definer ('tp_gone'@'%') does not exist",
    );
}
