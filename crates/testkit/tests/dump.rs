//! `mariadb-dump` against the server under test (`MANYCORE_TEST_TARGET`): a database
//! dumped alone, with `--databases`, with `--all-databases` (the `mysql` database
//! included, and left out) and with routines, events and triggers, exits 0 with nothing
//! on stderr, and each dump restored into a fresh server gives the same tables (SHOW
//! CREATE TABLE), views (SHOW CREATE VIEW, one reading the other), triggers (SHOW
//! TRIGGERS, SHOW CREATE TRIGGER), routines (SHOW CREATE PROCEDURE and FUNCTION, a CALL
//! giving the same result set and OUT value, a function call the same value; only with
//! --routines) and rows, a foreign key that is enforced again and a trigger that fires
//! again.

use manycore_testkit::{mariadb_cli, mariadb_dump, Server};

/// Two tables with NULLs, strings that need escaping, a unique and a secondary index,
/// AUTO_INCREMENT counters that are not 1, and a foreign key from `orders` to `users`:
/// the dump creates the child first (tables come in name order), which restores only
/// because the dump turns foreign_key_checks off. The database's default collation is not
/// the server's, so the dump must carry it (CREATE DATABASE) and the tables theirs.
const SEED: &str = r#"
CREATE DATABASE shop COLLATE utf8mb4_bin;
CREATE TABLE shop.users (
  id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  email VARCHAR(100) NOT NULL,
  name VARCHAR(50),
  score DECIMAL(10,2),
  born DATE,
  note TEXT,
  UNIQUE KEY email_u (email),
  KEY name_k (name)
);
INSERT INTO shop.users (email, name, score, born, note) VALUES
  ('a@x.org', 'O''Brien', 1.50, '2000-01-02', 'line1\nline2\t"q" \\ back `tick` ;'),
  ('b@x.org', NULL, NULL, NULL, NULL),
  ('c@x.org', '', -0.25, '1999-12-31', 'üñí ©');
CREATE TABLE shop.orders (
  id BIGINT NOT NULL AUTO_INCREMENT,
  user_id INT NOT NULL,
  total DOUBLE,
  created DATETIME,
  wait TIME(3),
  PRIMARY KEY (id),
  KEY user_k (user_id),
  CONSTRAINT orders_user FOREIGN KEY (user_id) REFERENCES shop.users (id) ON DELETE CASCADE
);
INSERT INTO shop.orders (user_id, total, created, wait) VALUES
  (1, 9.75, '2024-05-06 07:08:09', '-838:59:59.999'), (2, NULL, NULL, NULL),
  (1, -1e10, '2000-01-01 00:00:00', '12:34:56.5');
CREATE VIEW shop.spenders (who, spent) AS
  SELECT u.name, SUM(o.total) FROM shop.users u JOIN shop.orders o ON o.user_id = u.id
  GROUP BY u.name;
CREATE VIEW shop.big_spenders AS SELECT who FROM shop.spenders WHERE spent < 0;
CREATE TRIGGER shop.users_bi BEFORE INSERT ON shop.users FOR EACH ROW
  SET NEW.note = IFNULL(NEW.note, CONCAT('auto ', NEW.email));
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE shop.spent(IN who INT, OUT total DOUBLE)
  COMMENT 'a user''s orders' READS SQL DATA
BEGIN
  SELECT SUM(o.total) INTO total FROM shop.orders o WHERE o.user_id = who;
  SELECT name FROM shop.users WHERE id = who;
END//
CREATE DEFINER=`root`@`localhost` FUNCTION shop.label(who INT) RETURNS VARCHAR(80)
  DETERMINISTIC READS SQL DATA
BEGIN
  DECLARE found VARCHAR(80);
  SELECT CONCAT(name, ' <', email, '>') INTO found FROM shop.users WHERE id = who;
  RETURN IFNULL(found, 'nobody');
END//
DELIMITER ;
"#;

/// What must come back the same after a restore.
const CHECK: &str =
    "SHOW CREATE DATABASE shop; SHOW CREATE TABLE shop.users; SHOW CREATE TABLE shop.orders; \
                     SELECT * FROM shop.users ORDER BY id; SELECT * FROM shop.orders ORDER BY id; \
                     SHOW FULL TABLES FROM shop; SHOW CREATE VIEW shop.spenders; \
                     SHOW CREATE VIEW shop.big_spenders; SELECT * FROM shop.spenders ORDER BY who; \
                     SELECT * FROM shop.big_spenders; SHOW TRIGGERS FROM shop; \
                     SHOW CREATE TRIGGER shop.users_bi;";

/// What must come back the same after a restore of a dump made with --routines.
const ROUTINES_CHECK: &str =
    "SHOW CREATE PROCEDURE shop.spent; CALL shop.spent(1, @total); SELECT @total; \
     SHOW CREATE FUNCTION shop.label; SELECT shop.label(1), shop.label(99);";

/// What the seeded server shows for CHECK and ROUTINES_CHECK.
struct Expected {
    tables: String,
    routines: String,
}

fn seeded_server() -> (Server, Expected) {
    let server = Server::from_env();
    mariadb_cli(server.port(), &[], SEED).expect_success("seed");
    let tables = mariadb_cli(server.port(), &[], CHECK).expect_success("read back");
    let routines = mariadb_cli(server.port(), &[], ROUTINES_CHECK).expect_success("call");
    let expected = Expected {
        tables: tables.stdout,
        routines: routines.stdout,
    };
    (server, expected)
}

/// The dump `args` make, which must succeed without a word on stderr.
fn dump(server: &Server, args: &[&str]) -> String {
    let out = mariadb_dump(server.port(), args);
    assert!(out.success(), "mariadb-dump {args:?}: {out}");
    assert!(
        out.stderr.is_empty(),
        "mariadb-dump {args:?} complained: {out}"
    );
    assert!(
        out.stdout.contains("INSERT INTO `users`"),
        "no rows dumped: {out}"
    );
    out.stdout
}

/// Restores `dump` into a fresh server (into `shop`, created first as SEED creates it, if
/// the dump does not create its database) and checks it holds what `expected` says, the
/// procedure included when the dump was made `with_routines`.
fn assert_restores(dump: &str, into_database: bool, expected: &Expected, with_routines: bool) {
    let fresh = Server::from_env();
    let args: &[&str] = if into_database {
        mariadb_cli(
            fresh.port(),
            &[],
            "CREATE DATABASE shop COLLATE utf8mb4_bin",
        )
        .expect_success("create");
        &["shop"]
    } else {
        &[]
    };
    mariadb_cli(fresh.port(), args, dump).expect_success("restore");
    let restored = mariadb_cli(fresh.port(), &[], CHECK).expect_success("read restored");
    assert_eq!(restored.stdout, expected.tables, "restored tables differ");
    let routines = mariadb_cli(fresh.port(), &[], ROUTINES_CHECK);
    if with_routines {
        let routines = routines.expect_success("call restored");
        assert_eq!(
            routines.stdout, expected.routines,
            "restored procedure differs"
        );
    } else {
        assert!(
            routines.stderr.contains("1305"),
            "a dump without --routines restored the procedure: {routines}"
        );
    }
    let orphan = mariadb_cli(
        fresh.port(),
        &[],
        "INSERT INTO shop.orders (user_id) VALUES (999)",
    );
    assert!(
        !orphan.success() && orphan.stderr.contains("1452"),
        "the restored foreign key is not enforced: {orphan}"
    );
    let fired = mariadb_cli(
        fresh.port(),
        &[],
        "INSERT INTO shop.users (email) VALUES ('t@x.org'); \
         SELECT note FROM shop.users WHERE email = 't@x.org'",
    )
    .expect_success("insert after restore");
    assert!(
        fired.stdout.contains("auto t@x.org"),
        "the restored trigger did not fire: {fired}"
    );
}

#[test]
fn one_database_dumps_and_restores() {
    let (server, expected) = seeded_server();
    assert_restores(&dump(&server, &["shop"]), true, &expected, false);
    let with_objects = dump(&server, &["--routines", "--events", "--triggers", "shop"]);
    assert_restores(&with_objects, true, &expected, true);
}

#[test]
fn listed_and_all_databases_dump_and_restore() {
    let (server, expected) = seeded_server();
    let listed = dump(&server, &["--databases", "shop"]);
    assert!(listed.contains("CREATE DATABASE"), "{listed}");
    assert_restores(&listed, false, &expected, false);
    // Plain --all-databases dumps `mysql` too: the grant tables' rows and the structure
    // of the (empty) general_log and slow_log.
    let all = dump(&server, &["--all-databases", "--routines", "--events"]);
    assert!(all.contains("`slow_log`"), "{all}");
    assert_restores(&all, false, &expected, true);
    let all_but_mysql = dump(
        &server,
        &[
            "--all-databases",
            "--ignore-database=mysql",
            "--routines",
            "--events",
        ],
    );
    assert_restores(&all_but_mysql, false, &expected, true);
}
