-- INSERT (multi-row, IGNORE, ON DUPLICATE KEY UPDATE), REPLACE, UPDATE, DELETE:
-- the affected-row counts, last insert ids and info strings clients see.

CREATE TABLE t (
  id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  k VARCHAR(10) NOT NULL,
  v INT NOT NULL DEFAULT 0,
  UNIQUE KEY uk (k)
);
INSERT INTO t (k, v) VALUES ('a', 1);
SELECT LAST_INSERT_ID();
INSERT INTO t (k, v) VALUES ('b', 2), ('c', 3), ('d', 4);
SELECT LAST_INSERT_ID();
INSERT INTO t SET k = 'e', v = 5;
INSERT INTO t VALUES (100, 'f', 6);
INSERT INTO t (k) VALUES ('g');
INSERT INTO t VALUES (NULL, 'h', 7);
INSERT INTO t VALUES (0, 'i', 8);
SELECT id, k, v FROM t ORDER BY id;

-- Duplicates: error, IGNORE (warning), ON DUPLICATE KEY UPDATE (2 per updated row).
INSERT INTO t (k, v) VALUES ('a', 10);
INSERT IGNORE INTO t (k, v) VALUES ('a', 10), ('j', 11);
SHOW WARNINGS;
INSERT INTO t (k, v) VALUES ('a', 20) ON DUPLICATE KEY UPDATE v = v + 100;
INSERT INTO t (k, v) VALUES ('a', 20) ON DUPLICATE KEY UPDATE v = v;
INSERT INTO t (k, v) VALUES ('b', 30), ('z', 31) ON DUPLICATE KEY UPDATE v = VALUES(v);
INSERT INTO t (id, k, v) VALUES (1, 'q', 0) ON DUPLICATE KEY UPDATE k = 'aa';
SELECT id, k, v FROM t ORDER BY id;

-- REPLACE: 1 for a new row, 2 for delete + insert.
REPLACE INTO t (id, k, v) VALUES (500, 'r', 1);
REPLACE INTO t (id, k, v) VALUES (500, 'r2', 2);
REPLACE INTO t (id, k, v) VALUES (2, 'c', 9);
REPLACE t SET id = 501, k = 's', v = 3;
SELECT id, k, v FROM t ORDER BY id;

-- UPDATE: matched vs changed rows.
UPDATE t SET v = v + 1 WHERE id < 5;
UPDATE t SET v = v WHERE id < 5;
UPDATE t SET v = 0 WHERE id = 99999;
UPDATE t SET v = v * 2, k = CONCAT(k, '!') WHERE k IN ('d', 'e');
UPDATE t SET v = 1 ORDER BY id DESC LIMIT 2;
UPDATE t SET k = 'a!' WHERE k = 'e!';
SELECT id, k, v FROM t ORDER BY id;

-- DELETE.
DELETE FROM t WHERE id = 99999;
DELETE FROM t WHERE v = 1;
DELETE FROM t ORDER BY id LIMIT 1;
SELECT id, k, v FROM t ORDER BY id;
DELETE FROM t;
SELECT COUNT(*) FROM t;
-- AUTO_INCREMENT continues after DELETE (unlike TRUNCATE).
INSERT INTO t (k) VALUES ('after');
SELECT id, k FROM t;

-- INSERT ... SELECT.
CREATE TABLE src (a INT, b VARCHAR(5));
INSERT INTO src VALUES (1, 'x'), (2, 'y'), (3, 'z');
CREATE TABLE dst (a INT PRIMARY KEY, b VARCHAR(5));
INSERT INTO dst SELECT a, b FROM src WHERE a > 1;
INSERT INTO dst (a, b) SELECT a + 10, UPPER(b) FROM src;
SELECT a, b FROM dst ORDER BY a;
-- Explicit column list with defaults and expressions.
CREATE TABLE defs (id INT AUTO_INCREMENT PRIMARY KEY, a INT DEFAULT 7, b VARCHAR(5) DEFAULT 'dv', c INT);
INSERT INTO defs () VALUES ();
INSERT INTO defs (c) VALUES (1 + 2);
INSERT INTO defs (a, b, c) VALUES (DEFAULT, DEFAULT, DEFAULT);
INSERT INTO defs VALUES (DEFAULT, 1, 'x', 2);
SELECT id, a, b, c FROM defs ORDER BY id;
UPDATE defs SET a = DEFAULT WHERE id = 4;
SELECT id, a FROM defs WHERE id = 4;
-- SET c = DEFAULT takes the default when the statement runs, as an omitted INSERT column
-- does: CURRENT_TIMESTAMP's time; 0 for AUTO_INCREMENT; for any other NOT NULL column
-- without one 1364, unlike INSERT's warning, even with IGNORE or without strict mode.
CREATE TABLE defs2 (id INT AUTO_INCREMENT PRIMARY KEY, n INT NOT NULL, d DATETIME DEFAULT CURRENT_TIMESTAMP);
INSERT INTO defs2 VALUES (1, 5, '2001-01-01 00:00:00');
UPDATE defs2 SET d = DEFAULT WHERE id = 1;
SELECT id, TIMESTAMPDIFF(MINUTE, d, NOW()) < 10 FROM defs2;
UPDATE defs2 SET n = DEFAULT WHERE id = 1;
UPDATE IGNORE defs2 SET n = DEFAULT WHERE id = 1;
SET sql_mode = '';
UPDATE defs2 SET n = DEFAULT WHERE id = 1;
INSERT INTO defs2 (id, n) VALUES (2, DEFAULT);
SHOW WARNINGS;
SET sql_mode = DEFAULT;
UPDATE defs2 SET id = DEFAULT WHERE id = 1;
SELECT id, n FROM defs2 ORDER BY id;

-- Updating the primary key.
UPDATE dst SET a = a + 100 WHERE a < 10;
SELECT a, b FROM dst ORDER BY a;
UPDATE dst SET a = 11 WHERE a = 102;
SELECT a, b FROM dst ORDER BY a;

DROP TABLE t, src, dst, defs, defs2;
