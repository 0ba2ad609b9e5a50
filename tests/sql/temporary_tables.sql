-- CREATE TEMPORARY TABLE: a table private to the connection, gone when it closes. It
-- shadows a permanent table of the same name (SELECT, INSERT, UPDATE, DELETE, SHOW CREATE
-- TABLE, DESCRIBE and DROP TABLE reach the temporary one first), is absent from SHOW TABLES
-- and information_schema, says CREATE TEMPORARY TABLE in SHOW CREATE TABLE, and can be
-- read twice in one statement (self-join). CREATE/DROP TEMPORARY TABLE do not commit the
-- open transaction and are not undone by ROLLBACK, while the rows written are; DROP TABLE
-- (without TEMPORARY) and TRUNCATE commit. It may live in a database that does not exist.
-- Errors: 1050, 1051, 1146, 1049, 1005 (FOREIGN KEY), 1361 (trigger), 1352 (view).
-- The database is diff_temporary_tables.

-- Keys and AUTO_INCREMENT; SHOW CREATE TABLE says TEMPORARY.
CREATE TEMPORARY TABLE items (id INT AUTO_INCREMENT PRIMARY KEY, code INT NOT NULL, name VARCHAR(10), UNIQUE KEY uk_code (code), KEY k_name (name));
SHOW CREATE TABLE items;
DESCRIBE items;
SHOW INDEX FROM items;
INSERT INTO items (code, name) VALUES (10, 'ten'), (20, 'twenty');
SELECT LAST_INSERT_ID();
SHOW CREATE TABLE items;
INSERT INTO items (code, name) VALUES (10, 'dup');
SELECT * FROM items ORDER BY id;
-- IF NOT EXISTS: a note 1050; without it, 1050.
CREATE TEMPORARY TABLE IF NOT EXISTS items (x INT);
SHOW WARNINGS;
CREATE TEMPORARY TABLE items (x INT);
-- Listed nowhere.
SHOW TABLES;
SHOW FULL TABLES;
SELECT (SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()) AS tables, (SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()) AS columns, (SELECT COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE()) AS stats;

-- ... AS SELECT and ... LIKE.
CREATE TABLE perm (id INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO perm VALUES (1, 'p1'), (2, 'p2'), (3, 'p3');
CREATE TEMPORARY TABLE copied AS SELECT id, v, id * 10 AS tens FROM perm WHERE id < 3;
SHOW CREATE TABLE copied;
SELECT * FROM copied ORDER BY id;
CREATE TEMPORARY TABLE keyed (PRIMARY KEY (id)) SELECT id, v FROM perm;
SHOW CREATE TABLE keyed;
CREATE TEMPORARY TABLE IF NOT EXISTS copied AS SELECT 1 AS one;
SHOW WARNINGS;
SELECT COUNT(*) FROM copied;
-- A duplicate key in the SELECT: nothing is created.
CREATE TEMPORARY TABLE dup (PRIMARY KEY (id)) SELECT 1 AS id UNION ALL SELECT 1;
SELECT * FROM dup;
CREATE TEMPORARY TABLE shape LIKE perm;
SHOW CREATE TABLE shape;
-- A table made LIKE a temporary table is permanent.
CREATE TABLE perm_copy LIKE copied;
SHOW CREATE TABLE perm_copy;
-- Engines.
CREATE TEMPORARY TABLE mem (id INT, KEY (id)) ENGINE=MEMORY;
SHOW CREATE TABLE mem;
CREATE TEMPORARY TABLE inno (id INT) ENGINE=InnoDB;
SHOW CREATE TABLE inno;

-- Shadowing: the temporary perm hides the permanent one until it is dropped.
CREATE TEMPORARY TABLE perm (id INT PRIMARY KEY, v VARCHAR(10), extra INT);
SELECT * FROM perm ORDER BY id;
INSERT INTO perm VALUES (10, 't10', 1), (1, 't1', 2);
UPDATE perm SET v = 'upd' WHERE id = 1;
DELETE FROM perm WHERE id = 10;
SELECT * FROM perm ORDER BY id;
SHOW CREATE TABLE perm;
DESCRIBE perm;
-- information_schema still describes the permanent table.
SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'perm' ORDER BY ORDINAL_POSITION;
-- CREATE TABLE looks at permanent tables only: 1050 for perm, while a permanent items can
-- be created behind the temporary one.
CREATE TABLE perm (z INT);
CREATE TABLE items (z INT);
SHOW TABLES;
SELECT id, code FROM items ORDER BY id;
DROP TABLE perm;
SELECT * FROM perm ORDER BY id;
DROP TABLE items;
SELECT * FROM items;
DROP TABLE items;
SELECT * FROM items;

-- Transactions: CREATE TEMPORARY TABLE does not commit; ROLLBACK undoes its rows, not it.
CREATE TABLE log (n INT);
START TRANSACTION;
INSERT INTO log VALUES (1);
CREATE TEMPORARY TABLE tx (id INT PRIMARY KEY);
SELECT @@in_transaction;
INSERT INTO tx VALUES (1), (2);
ROLLBACK;
SELECT * FROM log;
SELECT * FROM tx;
START TRANSACTION;
INSERT INTO tx VALUES (5), (6);
COMMIT;
START TRANSACTION;
UPDATE tx SET id = 50 WHERE id = 5;
DELETE FROM tx WHERE id = 6;
ROLLBACK;
SELECT * FROM tx ORDER BY id;
-- CREATE TEMPORARY TABLE ... LIKE does not commit either.
START TRANSACTION;
INSERT INTO log VALUES (2);
CREATE TEMPORARY TABLE tx_like LIKE log;
ROLLBACK;
SELECT * FROM log;
-- DROP TEMPORARY TABLE does not commit, and ROLLBACK does not bring the table back.
START TRANSACTION;
INSERT INTO log VALUES (3);
DROP TEMPORARY TABLE tx;
SELECT @@in_transaction;
ROLLBACK;
SELECT * FROM log;
SELECT * FROM tx;
-- DROP TABLE of a temporary table commits, as does TRUNCATE TABLE.
CREATE TEMPORARY TABLE tx (id INT);
START TRANSACTION;
INSERT INTO log VALUES (4);
DROP TABLE tx;
SELECT @@in_transaction;
ROLLBACK;
SELECT * FROM log ORDER BY n;
START TRANSACTION;
INSERT INTO log VALUES (5);
TRUNCATE TABLE copied;
SELECT @@in_transaction;
ROLLBACK;
SELECT * FROM log ORDER BY n;
SELECT COUNT(*) FROM copied;

-- DROP: TEMPORARY reaches temporary tables only (1051 for a permanent one); the tables that
-- exist are dropped even when another name fails.
DROP TEMPORARY TABLE log;
DROP TEMPORARY TABLE IF EXISTS log, tx_like;
SHOW WARNINGS;
SELECT * FROM tx_like;
CREATE TEMPORARY TABLE d1 (id INT);
DROP TEMPORARY TABLE d1, log;
SELECT * FROM d1;
CREATE TEMPORARY TABLE d1 (id INT);
CREATE TABLE d2 (id INT);
DROP TABLE d1, d2;
SHOW TABLES;
CREATE TEMPORARY TABLE d1 (id INT);
DROP TABLE IF EXISTS d1, no_such_table;
SHOW WARNINGS;
DROP TEMPORARY TABLE d1;

-- One temporary table read twice in a statement: no 1137 in MariaDB.
CREATE TEMPORARY TABLE g (id INT PRIMARY KEY, grp INT);
INSERT INTO g VALUES (1, 1), (2, 1), (3, 2);
SELECT a.id, b.id FROM g AS a JOIN g AS b ON a.grp = b.grp AND a.id < b.id ORDER BY a.id, b.id;
SELECT id FROM g WHERE grp IN (SELECT grp FROM g WHERE id = 3) ORDER BY id;
SELECT id, (SELECT COUNT(*) FROM g AS x WHERE x.grp = g.grp) AS n FROM g ORDER BY id;
SELECT id FROM g UNION ALL SELECT id FROM g ORDER BY id;
INSERT INTO g SELECT id + 10, grp FROM g;
DELETE a FROM g AS a JOIN g AS b ON a.id = b.id + 10 WHERE b.grp = 2;
SELECT * FROM g ORDER BY id;

-- No foreign keys either way, no triggers, no views.
CREATE TEMPORARY TABLE child (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES perm (id));
CREATE TABLE perm_child (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES g (id));
CREATE TRIGGER g_bi BEFORE INSERT ON g FOR EACH ROW SET NEW.grp = 0;
CREATE VIEW vg AS SELECT id FROM g;
CREATE VIEW vg AS SELECT id FROM perm WHERE id IN (SELECT id FROM g);

-- Procedures: one that creates, fills, reads and drops its own; one that reads the caller's.
DELIMITER //
CREATE PROCEDURE scratch()
BEGIN
  CREATE TEMPORARY TABLE scratch_t (id INT PRIMARY KEY, v VARCHAR(5));
  INSERT INTO scratch_t VALUES (1, 'a'), (2, 'b');
  SELECT COUNT(*) AS n FROM scratch_t;
  SELECT id, v FROM scratch_t ORDER BY id;
  DROP TEMPORARY TABLE scratch_t;
END//
CREATE PROCEDURE read_outer()
BEGIN
  SELECT id FROM outer_t ORDER BY id;
  INSERT INTO outer_t VALUES (99);
END//
DELIMITER ;
CALL scratch();
CALL scratch();
SELECT * FROM scratch_t;
CALL read_outer();
CREATE TEMPORARY TABLE outer_t (id INT);
INSERT INTO outer_t VALUES (3), (1);
CALL read_outer();
SELECT id FROM outer_t ORDER BY id;

-- Qualified names, another current database, a database that does not exist (only a
-- permanent table needs it: 1049).
DROP DATABASE IF EXISTS tmptbl_other;
CREATE DATABASE tmptbl_other;
CREATE TEMPORARY TABLE diff_temporary_tables.q (id INT);
INSERT INTO diff_temporary_tables.q VALUES (1);
USE tmptbl_other;
SELECT id FROM q;
SELECT * FROM diff_temporary_tables.q;
CREATE TEMPORARY TABLE q (z INT);
INSERT INTO q VALUES (2);
SELECT z FROM q;
DROP TEMPORARY TABLE q;
USE diff_temporary_tables;
SELECT id AS back_home FROM q;
DROP DATABASE tmptbl_other;
CREATE TEMPORARY TABLE tmptbl_nodb.t (id INT);
INSERT INTO tmptbl_nodb.t VALUES (7);
SELECT * FROM tmptbl_nodb.t;
DROP TEMPORARY TABLE tmptbl_nodb.t;
CREATE TABLE tmptbl_nodb.t (id INT);

-- TRUNCATE starts AUTO_INCREMENT over; ALTER TABLE, CREATE and DROP INDEX copy the rows (as
-- MariaDB always does for a temporary table); RENAME TABLE and ALTER TABLE ... RENAME; all
-- commit an open transaction. A RENAME onto a permanent table's name hides that table.
CREATE TEMPORARY TABLE alt (id INT AUTO_INCREMENT PRIMARY KEY, a INT);
INSERT INTO alt (a) VALUES (10), (20), (30);
TRUNCATE TABLE alt;
INSERT INTO alt (a) VALUES (40);
SELECT * FROM alt ORDER BY id;
ALTER TABLE alt ADD COLUMN b VARCHAR(5) DEFAULT 'x', ADD INDEX ia (a);
CREATE INDEX ib ON alt (b);
CREATE UNIQUE INDEX ua ON alt (a);
DROP INDEX ib ON alt;
SHOW CREATE TABLE alt;
START TRANSACTION;
INSERT INTO log VALUES (6);
ALTER TABLE alt ADD COLUMN c INT;
ROLLBACK;
SELECT * FROM log ORDER BY n;
ALTER TABLE alt ADD FOREIGN KEY (id) REFERENCES perm (id);
RENAME TABLE alt TO alt2;
SELECT * FROM alt;
ALTER TABLE alt2 RENAME TO alt3;
SHOW CREATE TABLE alt3;
RENAME TABLE alt3 TO log;
SELECT * FROM log ORDER BY id;
SHOW TABLES;
DROP TABLE log;
SELECT * FROM log ORDER BY n;

-- Generated columns, CHECK constraints, ON DUPLICATE KEY UPDATE; a multi-table UPDATE
-- reading one; CHECK, ANALYZE and CHECKSUM TABLE find it.
CREATE TEMPORARY TABLE gen (id INT PRIMARY KEY, v INT, w INT AS (v * 2) STORED, CHECK (v > 0));
INSERT INTO gen (id, v) VALUES (1, 5), (2, 6);
INSERT INTO gen (id, v) VALUES (3, -1);
INSERT INTO gen (id, v) VALUES (1, 7) ON DUPLICATE KEY UPDATE v = v + 100;
SELECT * FROM gen ORDER BY id;
UPDATE perm JOIN gen ON perm.id = gen.id SET perm.v = gen.w;
SELECT * FROM perm ORDER BY id;
CHECK TABLE gen;
ANALYZE TABLE gen;
CHECKSUM TABLE gen;
-- A READ ONLY transaction, and LOCK TABLES ... READ, may still write it (not other tables).
START TRANSACTION READ ONLY;
INSERT INTO gen (id, v) VALUES (9, 9);
UPDATE gen SET v = 10 WHERE id = 9;
INSERT INTO perm VALUES (9, 'no');
COMMIT;
SELECT id, v FROM gen WHERE id = 9;
LOCK TABLES perm READ;
DELETE FROM gen WHERE id = 9;
UNLOCK TABLES;
SELECT COUNT(*) FROM gen;
SELECT id FROM gen WHERE id = 1 FOR UPDATE;
-- But a READ ONLY transaction may not create or drop one (1792); LOCK TABLES ... READ may.
CREATE TEMPORARY TABLE ro_a (a INT);
START TRANSACTION READ ONLY;
CREATE TEMPORARY TABLE ro_b (a INT);
CREATE TEMPORARY TABLE IF NOT EXISTS ro_a (a INT);
CREATE TEMPORARY TABLE ro_c LIKE ro_a;
CREATE TEMPORARY TABLE ro_d SELECT 1 AS a;
DROP TEMPORARY TABLE ro_a;
SELECT @@in_transaction;
COMMIT;
SELECT COUNT(*) FROM ro_a;
SELECT COUNT(*) FROM ro_b;
LOCK TABLES perm READ;
CREATE TEMPORARY TABLE ro_e (a INT);
INSERT INTO ro_e VALUES (1);
CREATE TEMPORARY TABLE ro_f SELECT a + 1 AS b FROM ro_e;
DROP TEMPORARY TABLE ro_a;
UNLOCK TABLES;
SELECT * FROM ro_f;
DROP TEMPORARY TABLE ro_e, ro_f;

-- One RENAME TABLE may rename temporary and permanent tables, all or none; each old name
-- is a temporary table if one has it when its turn comes.
CREATE TABLE rp1 (id INT);
INSERT INTO rp1 VALUES (1);
CREATE TABLE rp2 (id INT);
INSERT INTO rp2 VALUES (2);
CREATE TEMPORARY TABLE rt (id INT);
INSERT INTO rt VALUES (10);
RENAME TABLE rt TO rtb, rp1 TO rp1b;
SHOW TABLES LIKE 'r%';
SELECT * FROM rtb;
SELECT * FROM rp1b;
-- A swap through a temporary middle name: rt ends permanent, rp2 temporary.
RENAME TABLE rtb TO rt, rt TO tmpx, rp2 TO rt, tmpx TO rp2;
SHOW TABLES LIKE 'r%';
SELECT * FROM rt;
SELECT * FROM rp2;
-- A temporary table of the same name is renamed, not the permanent one it hides.
CREATE TABLE rdup (id INT);
INSERT INTO rdup VALUES (100);
CREATE TEMPORARY TABLE rdup (id INT);
INSERT INTO rdup VALUES (200);
RENAME TABLE rdup TO rdup2;
SELECT * FROM rdup;
SELECT * FROM rdup2;
-- A failing pair undoes the pairs before it, of either kind.
CREATE TEMPORARY TABLE ru (id INT);
CREATE TABLE rw (id INT);
RENAME TABLE ru TO ru2, rw TO rdup;
RENAME TABLE rp1b TO rp1c, ru TO rp2;
SHOW TABLES LIKE 'r%';
SELECT COUNT(*) FROM ru;
SELECT * FROM ru2;
RENAME TABLE IF EXISTS ru TO ru3, nosuch TO rz, rw TO rw2;
SHOW WARNINGS;
SHOW TABLES LIKE 'r%';
SELECT COUNT(*) FROM ru3;
DROP TABLE rp1b, rt, rdup, rw2;
DROP TEMPORARY TABLE rp2, rdup2, ru3;

-- A temporary table hides a view of its name from what reads or changes tables, not
-- from what names views: DROP VIEW drops the view, SHOW FULL TABLES lists it.
CREATE TABLE vbase (id INT);
INSERT INTO vbase VALUES (1);
CREATE VIEW hv AS SELECT id FROM vbase;
CREATE TEMPORARY TABLE hv (x INT);
INSERT INTO hv VALUES (42);
SELECT * FROM hv;
SHOW CREATE TABLE hv;
DESCRIBE hv;
SHOW FULL TABLES LIKE 'hv';
SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'hv';
CHECK TABLE hv;
CHECKSUM TABLE hv;
DROP VIEW hv;
SELECT * FROM hv;
SELECT COUNT(*) FROM information_schema.VIEWS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'hv';
CREATE VIEW hv AS SELECT id FROM vbase;
DROP TABLE hv;
SELECT * FROM hv;
DROP TABLE hv;
ALTER TABLE hv ADD COLUMN y INT;
CREATE TEMPORARY TABLE hv2 (x INT);
CREATE OR REPLACE VIEW hv2 AS SELECT 5 AS five;
SELECT * FROM hv2;
DROP TEMPORARY TABLE hv2;
SELECT * FROM hv2;
DROP VIEW hv, hv2;
DROP TABLE vbase;
