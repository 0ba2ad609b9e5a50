-- SHOW TABLES / COLUMNS / CREATE TABLE / WARNINGS / INDEX / DATABASES, DESCRIBE.

SHOW TABLES;
CREATE TABLE items (
  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  sku CHAR(8) NOT NULL,
  title VARCHAR(100) NOT NULL DEFAULT '',
  price DECIMAL(10,2) NOT NULL DEFAULT 0.00,
  weight DOUBLE DEFAULT NULL,
  qty SMALLINT NOT NULL DEFAULT 1,
  note TEXT,
  photo BLOB,
  added DATE,
  updated DATETIME,
  seen TIMESTAMP NULL DEFAULT NULL,
  flag TINYINT(1) NOT NULL DEFAULT 0,
  PRIMARY KEY (id),
  UNIQUE KEY uk_sku (sku),
  KEY k_title_price (title, price)
);
CREATE TABLE logs (n INT);
SHOW TABLES;
SHOW TABLES LIKE 'it%';
SHOW FULL TABLES;
SHOW COLUMNS FROM items;
SHOW FULL COLUMNS FROM items;
SHOW COLUMNS FROM items LIKE 'p%';
SHOW FIELDS FROM logs;
DESCRIBE items;
DESC logs;
SHOW CREATE TABLE items;
SHOW CREATE TABLE logs;
-- Index cardinality is InnoDB's estimate once rows exist: compare it on an empty table.
SHOW INDEX FROM items;
SHOW KEYS FROM items;
INSERT INTO items (sku, title) VALUES ('A1', 'one'), ('A2', 'two');
SHOW CREATE TABLE items;
-- diff: skip-result
SHOW INDEX FROM items;
SHOW CREATE TABLE nope;

-- SHOW WARNINGS after warnings, notes and errors.
SELECT 1 / 0;
SHOW WARNINGS;
SHOW COUNT(*) WARNINGS;
SELECT @@warning_count;
SELECT CAST('12abc' AS SIGNED);
SHOW WARNINGS;
SELECT nope FROM logs;
SHOW WARNINGS;
SHOW ERRORS;
SELECT @@error_count;
SHOW WARNINGS LIMIT 1;
SELECT 1;
SHOW WARNINGS;
DROP TABLE IF EXISTS never_was;
SHOW WARNINGS;

-- SHOW DATABASES includes the system schemas and ours.
CREATE DATABASE show_extra;
SHOW DATABASES LIKE 'show_extra';
SHOW DATABASES LIKE 'diff_show';
DROP DATABASE show_extra;

-- Session status: the session's own counters, which FLUSH STATUS restarts (a statement
-- counts before it runs, so the SHOW counts itself); Questions counts what the client
-- sent, COM_STMT_EXECUTE included.
FLUSH STATUS;
SELECT 1;
DO 0;
DO 0;
SHOW SESSION STATUS WHERE Variable_name IN ('Questions', 'Com_select', 'Com_do', 'Com_flush', 'Com_show_status', 'Com_insert');
SHOW STATUS LIKE 'Com_do';
SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME IN ('COM_DO', 'COM_SELECT', 'QUESTIONS') ORDER BY 1;
SELECT VARIABLE_NAME, VARIABLE_VALUE >= 2 FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN ('COM_DO', 'QUESTIONS') ORDER BY 1;
SHOW GLOBAL STATUS WHERE Variable_name = 'Com_flush' AND Value > 0;
FLUSH STATUS;
SHOW SESSION STATUS LIKE 'Com_do';

-- How each SELECT read its tables: the first table whole (Select_scan) or by an index
-- range (Select_range: bounds or an IN list, not equalities alone), a later table of a
-- join whole (Select_full_join), and the rows sorts delivered (Sort_rows).
CREATE TABLE sa (id INT PRIMARY KEY, k INT, v INT, KEY (k));
INSERT INTO sa VALUES (1, 1, 1), (2, 2, 2), (3, 3, 3), (4, 4, 4);
CREATE TABLE sb (id INT PRIMARY KEY, aid INT, w INT);
INSERT INTO sb VALUES (1, 1, 1), (2, 2, 2), (3, 9, 9);
FLUSH STATUS;
SELECT v FROM sa WHERE id = 2;
SELECT v FROM sa WHERE k = 2;
SHOW SESSION STATUS WHERE Variable_name IN ('Select_scan', 'Select_range', 'Select_full_join', 'Sort_rows');
SELECT v FROM sa WHERE id IN (1, 3);
SELECT v FROM sa WHERE id BETWEEN 1 AND 3;
SELECT v FROM sa WHERE k > 2;
SHOW SESSION STATUS WHERE Variable_name IN ('Select_scan', 'Select_range', 'Select_full_join', 'Sort_rows');
FLUSH STATUS;
SELECT * FROM sa JOIN sb ON sb.aid = sa.k ORDER BY sa.id;
SHOW SESSION STATUS WHERE Variable_name IN ('Select_scan', 'Select_range', 'Select_full_join', 'Sort_rows');
FLUSH STATUS;
SELECT * FROM sa ORDER BY v DESC;
SELECT * FROM sa WHERE id > 1 ORDER BY v DESC LIMIT 2;
SELECT * FROM sa WHERE v > 1;
SHOW SESSION STATUS WHERE Variable_name IN ('Select_scan', 'Select_range', 'Select_full_join', 'Sort_rows');
-- SELECT ... INTO, and the SELECTs of a procedure's body (INTO and a cursor's too), count
-- as SELECTs of their own.
FLUSH STATUS;
SELECT v INTO @sv FROM sa WHERE id > 3 LIMIT 1;
SELECT @sv;
SHOW SESSION STATUS WHERE Variable_name IN ('Select_scan', 'Select_range', 'Select_full_join');
DELIMITER //
CREATE PROCEDURE scans()
BEGIN
  DECLARE x INT;
  DECLARE c CURSOR FOR SELECT v FROM sa WHERE k < 3;
  SELECT * FROM sa ORDER BY id;
  SELECT v FROM sa WHERE id BETWEEN 2 AND 3;
  SELECT COUNT(*) FROM sa JOIN sb ON sb.w = sa.v + 0 * sa.id;
  SELECT v INTO x FROM sa WHERE id > 3 LIMIT 1;
  OPEN c;
  CLOSE c;
END//
DELIMITER ;
FLUSH STATUS;
CALL scans();
SHOW SESSION STATUS WHERE Variable_name IN ('Select_scan', 'Select_range', 'Select_full_join');
DROP PROCEDURE scans;
DROP TABLE sa, sb;

-- The storage reads and writes each statement made, as MariaDB counts InnoDB's handler
-- calls: a seek (Handler_read_key) returns its first row, each further row of a range and
-- the read that ends it are Handler_read_next (none for a unique point, none after LIMIT
-- stopped the scan), a whole-table scan's rows and its ending read Handler_read_rnd_next.
CREATE TABLE ha (id INT PRIMARY KEY, k INT, v INT, u INT, KEY (k), UNIQUE KEY (u));
INSERT INTO ha VALUES (1, 1, 1, 10), (2, 2, 2, 20), (3, 2, 3, 30), (4, 4, 4, 40), (5, 5, 5, 50);
CREATE TABLE hb (id INT PRIMARY KEY, aid INT);
INSERT INTO hb VALUES (1, 1), (2, 2), (3, 9);
FLUSH STATUS;
SELECT v FROM ha WHERE id = 2;
SELECT v FROM ha WHERE id = 7;
SELECT v FROM ha WHERE u = 30;
SHOW SESSION STATUS WHERE Variable_name IN ('Handler_read_key', 'Handler_read_next', 'Handler_read_rnd_next', 'Handler_write', 'Handler_update', 'Handler_delete');
FLUSH STATUS;
SELECT v FROM ha WHERE k = 2;
SELECT v FROM ha WHERE k = 2 LIMIT 1;
SELECT v FROM ha WHERE id BETWEEN 2 AND 4;
SELECT COUNT(*) FROM ha WHERE id > 0 AND v > 0;
SHOW SESSION STATUS WHERE Variable_name IN ('Handler_read_key', 'Handler_read_next', 'Handler_read_rnd_next');
FLUSH STATUS;
SELECT v FROM ha WHERE v > 2;
SELECT v FROM ha WHERE v > 2 LIMIT 1;
SHOW SESSION STATUS WHERE Variable_name IN ('Handler_read_key', 'Handler_read_next', 'Handler_read_rnd_next');
FLUSH STATUS;
SELECT v FROM ha WHERE u IN (10, 40);
SELECT hb.id, ha.v FROM hb JOIN ha ON ha.id = hb.aid;
SHOW SESSION STATUS WHERE Variable_name IN ('Handler_read_key', 'Handler_read_next', 'Handler_read_rnd_next');
FLUSH STATUS;
UPDATE ha SET v = v + 1 WHERE id = 2;
UPDATE ha SET v = v + 1 WHERE k = 2;
INSERT INTO ha VALUES (6, 6, 6, 60), (7, 7, 7, 70);
DELETE FROM ha WHERE id = 7;
DELETE FROM ha WHERE v = 6;
SHOW SESSION STATUS WHERE Variable_name IN ('Handler_read_key', 'Handler_read_next', 'Handler_read_rnd_next', 'Handler_write', 'Handler_update', 'Handler_delete');
DROP TABLE ha, hb;

-- Output that legitimately differs: only success or error is compared.
-- diff: skip-result
SHOW VARIABLES LIKE 'version%';
-- diff: skip-result
SHOW SESSION STATUS LIKE 'Questions';
-- diff: skip-result
SHOW GLOBAL STATUS LIKE 'Uptime';
-- diff: skip-result
SHOW PROCESSLIST;
-- diff: skip-result
SHOW ENGINES;
SHOW VARIABLES LIKE 'autocommit';
SHOW SESSION VARIABLES LIKE 'sql_mode';
SHOW VARIABLES LIKE 'max_allowed_packet';
SHOW VARIABLES LIKE 'no_such_var%';

DROP TABLE items, logs;
