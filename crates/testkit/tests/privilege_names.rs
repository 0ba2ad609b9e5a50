//! Every privilege MariaDB names, with the Rust `mysql` driver against the server under
//! test (`MANYCORE_TEST_TARGET`, default manycore): the grants provisioning scripts write
//! (CREATE TEMPORARY TABLES, LOCK TABLES, CREATE VIEW, SHOW VIEW, EVENT, REPLICATION
//! CLIENT and SLAVE, SHOW DATABASES, CREATE TABLESPACE, DELETE HISTORY) are granted,
//! revoked and shown in MariaDB's order and words (REPLICATION CLIENT is BINLOG MONITOR,
//! a table's SET words in mysql.tables_priv), a privilege above its level is 1144 or
//! 1221, and CREATE VIEW needs CREATE VIEW, not CREATE (1142). What SHOW VIEW, SHOW
//! DATABASES and LOCK TABLES guard: view definitions, the database list, LOCK TABLES.

use manycore_testkit::client::{assert_error, connect_as, run_all, show_grants};
use manycore_testkit::Server;
use mysql::prelude::Queryable;

#[test]
fn every_privilege_name_is_granted_revoked_and_shown() {
    let server = Server::from_env();
    let port = server.port();
    let mut root = server.connect();
    run_all(
        &mut root,
        &[
            "DROP DATABASE IF EXISTS pn",
            "CREATE DATABASE pn",
            "CREATE TABLE pn.t (a INT)",
            "DROP USER IF EXISTS pn_app@localhost",
            "CREATE USER pn_app@localhost",
            "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, INDEX, ALTER, CREATE \
             TEMPORARY TABLES, LOCK TABLES ON pn.* TO pn_app@localhost",
            "GRANT SHOW VIEW, EVENT, TRIGGER ON pn.* TO pn_app@localhost",
            "GRANT PROCESS, RELOAD, REPLICATION CLIENT, REPLICATION SLAVE, SHOW DATABASES, \
             CREATE TABLESPACE ON *.* TO pn_app@localhost",
            "GRANT CREATE VIEW, SHOW VIEW, DELETE HISTORY ON pn.t TO pn_app@localhost",
        ],
    );
    let account = "pn_app@localhost";
    let table_line = "GRANT CREATE VIEW, SHOW VIEW, DELETE HISTORY ON `pn`.`t` TO \
                      `pn_app`@`localhost`";
    assert_eq!(
        show_grants(&mut root, account),
        [
            "GRANT RELOAD, PROCESS, SHOW DATABASES, REPLICATION SLAVE, BINLOG MONITOR, CREATE \
             TABLESPACE ON *.* TO `pn_app`@`localhost`",
            "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, INDEX, ALTER, CREATE \
             TEMPORARY TABLES, LOCK TABLES, SHOW VIEW, EVENT, TRIGGER ON `pn`.* TO \
             `pn_app`@`localhost`",
            table_line,
        ]
    );
    let table_priv: Vec<String> = root
        .query("SELECT Table_priv FROM mysql.tables_priv WHERE User = 'pn_app'")
        .expect("tables_priv");
    assert_eq!(table_priv, ["Create View,Show view,Delete versioning rows"]);

    // CREATE VIEW needs CREATE VIEW on the view: CREATE does not stand in.
    let mut app = connect_as(port, "pn_app", "").expect("pn_app logs in");
    assert_error(
        &mut app,
        "CREATE VIEW pn.v AS SELECT a FROM pn.t",
        1142,
        "42000",
        "CREATE VIEW command denied to user 'pn_app'@'localhost' for table `pn`.`v`",
    );
    run_all(
        &mut root,
        &["GRANT CREATE VIEW ON pn.* TO pn_app@localhost"],
    );
    run_all(&mut app, &["CREATE VIEW pn.v AS SELECT a FROM pn.t"]);

    run_all(
        &mut root,
        &[
            "REVOKE LOCK TABLES, EVENT ON pn.* FROM pn_app@localhost",
            "REVOKE REPLICATION CLIENT ON *.* FROM pn_app@localhost",
        ],
    );
    assert_eq!(
        show_grants(&mut root, account),
        [
            "GRANT RELOAD, PROCESS, SHOW DATABASES, REPLICATION SLAVE, CREATE TABLESPACE ON \
             *.* TO `pn_app`@`localhost`",
            "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, INDEX, ALTER, CREATE \
             TEMPORARY TABLES, CREATE VIEW, SHOW VIEW, TRIGGER ON `pn`.* TO \
             `pn_app`@`localhost`",
            table_line,
        ]
    );

    let illegal = "Illegal GRANT/REVOKE command; please consult the manual to see which \
                   privileges can be used";
    for grant in [
        "GRANT LOCK TABLES ON pn.t TO pn_app@localhost",
        "GRANT REPLICATION CLIENT ON pn.t TO pn_app@localhost",
        "GRANT EVENT ON pn.t TO pn_app@localhost",
    ] {
        assert_error(&mut root, grant, 1144, "42000", illegal);
    }
    assert_error(
        &mut root,
        "GRANT SHOW DATABASES ON pn.* TO pn_app@localhost",
        1221,
        "HY000",
        "Incorrect usage of DB GRANT and GLOBAL PRIVILEGES",
    );
    // ALL at each level holds every one of its privileges.
    run_all(
        &mut root,
        &[
            "GRANT ALL ON *.* TO pn_app@localhost",
            "GRANT ALL ON pn.* TO pn_app@localhost",
            "GRANT ALL ON pn.t TO pn_app@localhost",
        ],
    );
    assert_eq!(
        show_grants(&mut root, account),
        [
            "GRANT ALL PRIVILEGES ON *.* TO `pn_app`@`localhost`",
            "GRANT ALL PRIVILEGES ON `pn`.* TO `pn_app`@`localhost`",
            "GRANT ALL PRIVILEGES ON `pn`.`t` TO `pn_app`@`localhost`",
        ]
    );
}

/// SHOW CREATE VIEW needs SELECT and SHOW VIEW on the view, SHOW CREATE TABLE of a view
/// some privilege and SHOW VIEW, and VIEWS.VIEW_DEFINITION is '' without both (unless the
/// session defined the view).
#[test]
fn show_view_guards_view_definitions() {
    let server = Server::from_env();
    let port = server.port();
    let mut root = server.connect();
    let users = ["pv_select", "pv_show", "pv_both", "pv_definer"];
    run_all(
        &mut root,
        &[
            "DROP DATABASE IF EXISTS pv",
            "CREATE DATABASE pv",
            "CREATE TABLE pv.t (a INT)",
            "CREATE VIEW pv.v AS SELECT a FROM pv.t",
        ],
    );
    for user in users {
        run_all(
            &mut root,
            &[
                &format!("DROP USER IF EXISTS {user}@localhost"),
                &format!("CREATE USER {user}@localhost"),
            ],
        );
    }
    run_all(
        &mut root,
        &[
            "GRANT SELECT ON pv.v TO pv_select@localhost",
            "GRANT SHOW VIEW ON pv.v TO pv_show@localhost",
            "GRANT SELECT, SHOW VIEW ON pv.v TO pv_both@localhost",
            "GRANT SELECT, CREATE VIEW ON pv.* TO pv_definer@localhost",
        ],
    );
    let denied = |command: &str, user: &str, view: &str| {
        format!("{command} command denied to user '{user}'@'localhost' for table `pv`.`{view}`")
    };
    let definition = |conn: &mut mysql::Conn, view: &str| -> String {
        conn.query_first(format!(
            "SELECT VIEW_DEFINITION FROM information_schema.VIEWS \
             WHERE TABLE_SCHEMA = 'pv' AND TABLE_NAME = '{view}'"
        ))
        .expect("VIEWS")
        .expect("the view is listed")
    };

    let mut select = connect_as(port, "pv_select", "").expect("login");
    let show_view = denied("SHOW VIEW", "pv_select", "v");
    assert_error(
        &mut select,
        "SHOW CREATE VIEW pv.v",
        1142,
        "42000",
        &show_view,
    );
    assert_error(
        &mut select,
        "SHOW CREATE TABLE pv.v",
        1142,
        "42000",
        &show_view,
    );
    assert_eq!(definition(&mut select, "v"), "");

    let mut show = connect_as(port, "pv_show", "").expect("login");
    let select_denied = denied("SELECT", "pv_show", "v");
    assert_error(
        &mut show,
        "SHOW CREATE VIEW pv.v",
        1142,
        "42000",
        &select_denied,
    );
    let create: Option<(String, String, String, String)> = show
        .query_first("SHOW CREATE TABLE pv.v")
        .expect("SHOW CREATE TABLE of a view");
    assert!(
        create.expect("a row").1.contains("VIEW `"),
        "SHOW CREATE TABLE of a view"
    );
    assert_eq!(definition(&mut show, "v"), "");

    let mut both = connect_as(port, "pv_both", "").expect("login");
    let create: Option<(String, String, String, String)> = both
        .query_first("SHOW CREATE VIEW pv.v")
        .expect("SHOW CREATE VIEW");
    assert_eq!(create.expect("a row").0, "v");
    assert!(definition(&mut both, "v").to_lowercase().contains("from"));

    // With no privilege on the view at all, SHOW CREATE TABLE names SHOW.
    run_all(&mut root, &["CREATE VIEW pv.hidden AS SELECT 1 AS one"]);
    let show_denied = denied("SHOW", "pv_select", "hidden");
    assert_error(
        &mut select,
        "SHOW CREATE TABLE pv.hidden",
        1142,
        "42000",
        &show_denied,
    );

    // Its definer sees a view's definition in VIEWS, but SHOW CREATE VIEW still needs
    // SHOW VIEW.
    let mut definer = connect_as(port, "pv_definer", "").expect("login");
    run_all(&mut definer, &["CREATE VIEW pv.mine AS SELECT 1 AS one"]);
    assert!(definition(&mut definer, "mine").contains('1'));
    assert_eq!(definition(&mut definer, "v"), "");
    let show_view = denied("SHOW VIEW", "pv_definer", "mine");
    assert_error(
        &mut definer,
        "SHOW CREATE VIEW pv.mine",
        1142,
        "42000",
        &show_view,
    );
}

/// The global SHOW DATABASES privilege lists every database (SHOW DATABASES and SCHEMATA)
/// but enters none (USE is 1044).
#[test]
fn show_databases_lists_every_database() {
    let server = Server::from_env();
    let port = server.port();
    let mut root = server.connect();
    run_all(
        &mut root,
        &[
            "DROP DATABASE IF EXISTS psd_mine",
            "DROP DATABASE IF EXISTS psd_other",
            "CREATE DATABASE psd_mine",
            "CREATE DATABASE psd_other",
            "DROP USER IF EXISTS psd_lister@localhost",
            "CREATE USER psd_lister@localhost",
            "GRANT SELECT ON psd_mine.* TO psd_lister@localhost",
        ],
    );
    let listed = |conn: &mut mysql::Conn| -> (Vec<String>, Vec<String>) {
        let show: Vec<String> = conn.query("SHOW DATABASES LIKE 'psd%'").expect("show");
        let schemata: Vec<String> = conn
            .query(
                "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA \
                 WHERE SCHEMA_NAME LIKE 'psd%' ORDER BY SCHEMA_NAME",
            )
            .expect("schemata");
        (show, schemata)
    };
    let mut lister = connect_as(port, "psd_lister", "").expect("login");
    let mine = vec!["psd_mine".to_string()];
    assert_eq!(listed(&mut lister), (mine.clone(), mine));

    run_all(
        &mut root,
        &["GRANT SHOW DATABASES ON *.* TO psd_lister@localhost"],
    );
    let mut lister = connect_as(port, "psd_lister", "").expect("login");
    let both = vec!["psd_mine".to_string(), "psd_other".to_string()];
    assert_eq!(listed(&mut lister), (both.clone(), both));
    assert_error(
        &mut lister,
        "USE psd_other",
        1044,
        "42000",
        "Access denied for user 'psd_lister'@'localhost' to database 'psd_other'",
    );
}

/// LOCK TABLES takes qualified names and checks LOCK TABLES on the database (1044), then
/// SELECT on the table (1142), then that the table or view exists (1146).
#[test]
fn lock_tables_checks_privileges_and_names() {
    let server = Server::from_env();
    let port = server.port();
    let mut root = server.connect();
    run_all(
        &mut root,
        &[
            "DROP DATABASE IF EXISTS plt",
            "CREATE DATABASE plt",
            "CREATE TABLE plt.t (a INT)",
            "CREATE VIEW plt.v AS SELECT a FROM plt.t",
            "DROP USER IF EXISTS plt_select@localhost",
            "DROP USER IF EXISTS plt_lock@localhost",
            "DROP USER IF EXISTS plt_both@localhost",
            "CREATE USER plt_select@localhost",
            "CREATE USER plt_lock@localhost",
            "CREATE USER plt_both@localhost",
            "GRANT SELECT ON plt.* TO plt_select@localhost",
            "GRANT LOCK TABLES ON plt.* TO plt_lock@localhost",
            "GRANT LOCK TABLES ON plt.* TO plt_both@localhost",
            "GRANT SELECT ON plt.t TO plt_both@localhost",
        ],
    );
    run_all(
        &mut root,
        &[
            "LOCK TABLE plt.t AS x READ LOCAL, plt.v LOW_PRIORITY WRITE",
            "UNLOCK TABLE",
            "USE plt",
            "LOCK TABLES t WRITE, v READ",
            "UNLOCK TABLES",
        ],
    );
    assert_error(
        &mut root,
        "LOCK TABLES plt.nosuch READ",
        1146,
        "42S02",
        "Table 'plt.nosuch' doesn't exist",
    );
    assert_error(
        &mut root,
        "LOCK TABLES information_schema.tables READ",
        1044,
        "42000",
        "Access denied for user 'root'@'localhost' to database 'information_schema'",
    );
    assert_error(
        &mut root,
        "LOCK TABLES plt.t READ junk",
        1064,
        "42000",
        "You have an error in your SQL syntax; check the manual that corresponds to your \
         MariaDB server version for the right syntax to use near 'junk' at line 1",
    );

    let mut select = connect_as(port, "plt_select", "").expect("login");
    assert_error(
        &mut select,
        "LOCK TABLES plt.t READ",
        1044,
        "42000",
        "Access denied for user 'plt_select'@'localhost' to database 'plt'",
    );
    let mut lock = connect_as(port, "plt_lock", "").expect("login");
    assert_error(
        &mut lock,
        "LOCK TABLES plt.t READ",
        1142,
        "42000",
        "SELECT command denied to user 'plt_lock'@'localhost' for table `plt`.`t`",
    );
    let mut both = connect_as(port, "plt_both", "").expect("login");
    run_all(&mut both, &["LOCK TABLES plt.t WRITE", "UNLOCK TABLES"]);
    assert_error(
        &mut both,
        "LOCK TABLES plt.v READ",
        1142,
        "42000",
        "SELECT command denied to user 'plt_both'@'localhost' for table `plt`.`v`",
    );
}
