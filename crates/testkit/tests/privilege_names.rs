//! Every privilege MariaDB names, with the Rust `mysql` driver against the server under
//! test (`MANYCORE_TEST_TARGET`, default manycore): the grants provisioning scripts write
//! (CREATE TEMPORARY TABLES, LOCK TABLES, CREATE VIEW, SHOW VIEW, EVENT, REPLICATION
//! CLIENT and SLAVE, SHOW DATABASES, CREATE TABLESPACE, DELETE HISTORY) are granted,
//! revoked and shown in MariaDB's order and words (REPLICATION CLIENT is BINLOG MONITOR,
//! a table's SET words in mysql.tables_priv), a privilege above its level is 1144 or
//! 1221, and CREATE VIEW needs CREATE VIEW, not CREATE (1142).

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
