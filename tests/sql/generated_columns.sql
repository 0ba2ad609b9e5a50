-- Generated columns: VIRTUAL (the default), STORED and PERSISTENT, with and without
-- GENERATED ALWAYS; their values on INSERT, UPDATE, multi-table UPDATE, ON DUPLICATE KEY
-- UPDATE, REPLACE and INSERT ... SELECT; writes to them (1906: an error in strict mode, a
-- warning without it or with IGNORE; DEFAULT allowed); the definition errors (1901,
-- 1054, 4029, 1903); keys on them (1062, lookups, EXPLAIN); SHOW CREATE TABLE, SHOW
-- COLUMNS and information_schema.COLUMNS; ALTER TABLE ADD / MODIFY.

CREATE TABLE g1 (a INT, b VARCHAR(10), c INT AS (a + 1),
  d INT GENERATED ALWAYS AS (a * 2) STORED, e VARCHAR(20) AS (CONCAT(b, 'x')) PERSISTENT,
  KEY (c));
SHOW CREATE TABLE g1;
DESCRIBE g1;
SHOW COLUMNS FROM g1;
SELECT column_name, column_default, is_nullable, extra, is_generated, generation_expression
  FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'g1'
  ORDER BY ordinal_position;
INSERT INTO g1 (a, b) VALUES (1, 'q');
INSERT INTO g1 VALUES (2, 'r', DEFAULT, DEFAULT, DEFAULT);
INSERT INTO g1 SET a = 3, b = 's', c = DEFAULT;
INSERT INTO g1 VALUES (3, 's', 4, 6, 'sx');
INSERT INTO g1 (a, c) VALUES (3, 5);
INSERT INTO g1 SET a = 3, c = 9;
INSERT IGNORE INTO g1 (a, c) VALUES (4, 5);
SHOW WARNINGS;
SELECT * FROM g1 ORDER BY a;
UPDATE g1 SET c = 1;
UPDATE g1 SET c = DEFAULT, a = 10 WHERE a = 1;
UPDATE g1 SET a = a + 100, b = 'z' WHERE a > 2;
SELECT * FROM g1 ORDER BY a;
SELECT a, c FROM g1 WHERE c = 103;
SELECT a FROM g1 WHERE d > 200 ORDER BY a;

-- Without strict mode a value written is ignored after a warning per column.
SET sql_mode = '';
INSERT INTO g1 VALUES (5, 't', 40, 60, 'no');
SHOW WARNINGS;
UPDATE g1 SET d = 7 WHERE a = 5;
SHOW WARNINGS;
SELECT * FROM g1 WHERE a = 5;
SET sql_mode = DEFAULT;

-- A value the column's type cannot hold: 1264 in strict mode, clipped otherwise. (Not
-- shown with a VIRTUAL column: MariaDB warns only when it reads one, manycore when it
-- writes it.)
CREATE TABLE g2 (a INT, c TINYINT AS (a * 1000) STORED);
INSERT INTO g2 (a) VALUES (1);
SET sql_mode = '';
INSERT INTO g2 (a) VALUES (1);
SHOW WARNINGS;
SET sql_mode = DEFAULT;
SELECT * FROM g2;

-- A unique key on a generated column: 1062 when two rows compute the same value.
CREATE TABLE g3 (a INT, c INT AS (a + 1) STORED, v INT AS (a MOD 10), UNIQUE KEY (c),
  UNIQUE KEY (v));
INSERT INTO g3 (a) VALUES (1), (11);
INSERT INTO g3 (a) VALUES (1), (2);
INSERT INTO g3 (a) VALUES (3);
INSERT INTO g3 (a) VALUES (2);
INSERT INTO g3 (a) VALUES (13);
INSERT IGNORE INTO g3 (a) VALUES (13), (4);
INSERT INTO g3 (a) VALUES (4) ON DUPLICATE KEY UPDATE a = 7;
SELECT * FROM g3 ORDER BY a;
REPLACE INTO g3 (a) VALUES (17);
SELECT * FROM g3 ORDER BY a;
REPLACE INTO g3 VALUES (7, 8, 7);
UPDATE g3 SET a = 8 WHERE a = 3;
SELECT * FROM g3 ORDER BY a;
INSERT INTO g3 (a) SELECT a + 100 FROM g3;
SELECT * FROM g3 ORDER BY a;
SELECT a FROM g3 WHERE v = 7;

-- Generated columns reading earlier generated ones, and a CHECK reading one.
CREATE TABLE g4 (a INT, c INT AS (a + 1), d INT AS (c * 2) STORED,
  CHECK (d < 100));
INSERT INTO g4 (a) VALUES (1), (2);
INSERT INTO g4 (a) VALUES (60);
UPDATE g4 SET a = a + 10;
SELECT * FROM g4 ORDER BY a;

-- Multi-table UPDATE recomputes the target's generated columns.
CREATE TABLE g5 (id INT PRIMARY KEY, n INT);
INSERT INTO g5 VALUES (1, 50), (2, 60);
UPDATE g4, g5 SET g4.a = g5.n - 40 WHERE g5.id = 1 AND g4.a = 11;
SELECT * FROM g4 ORDER BY a;
UPDATE g4, g5 SET g4.c = 5 WHERE g5.id = 1;

-- The expression text MariaDB prints.
CREATE TABLE g6 (a VARCHAR(10), n INT, c INT AS (LENGTH(a)), d VARCHAR(30) AS (UPPER(a)),
  e VARCHAR(30) AS (IF(a IS NULL, 'n', SUBSTR(a, 1, 2))),
  f INT AS (CASE WHEN a = 'x' THEN 1 ELSE 2 END), g JSON AS (JSON_OBJECT('a', a)),
  h VARCHAR(20) AS (JSON_VALUE(g, '$.a')), i TEXT AS (JSON_EXTRACT(g, '$.a')),
  j INT AS (-n), k INT AS (n DIV 2 MOD 3), l DOUBLE AS (n / 3), m INT AS ((n + 1) * 2)
  STORED COMMENT 'twice');
SHOW CREATE TABLE g6;
CREATE TABLE g8 (a VARCHAR(10), b VARCHAR(10) AS (LOWER(a)), c INT AS (CHARACTER_LENGTH(a)),
  d INT AS (CASE a WHEN 'x' THEN 1 END), e VARCHAR(10) AS (SUBSTRING(a FROM 2 FOR 3)),
  f VARCHAR(10) AS (SUBSTRING(a, 2)), CHECK (LENGTH(a) > 0));
SHOW CREATE TABLE g8;
INSERT INTO g8 (a) VALUES ('xyzzy'), ('x');
SELECT * FROM g8 ORDER BY a;
INSERT INTO g6 (a, n) VALUES ('xyz', 7), (NULL, NULL), ('x', -4);
SELECT * FROM g6 ORDER BY n;

-- Definition errors.
CREATE TABLE ge (a INT, c INT AS ((SELECT 1)));
CREATE TABLE ge (a INT, c INT AS (SUM(a)));
CREATE TABLE ge (a INT, c INT AS (RAND()) STORED);
CREATE TABLE ge (a INT, c INT AS (NOW()) STORED);
CREATE TABLE ge (a INT, c INT AS (UUID()) STORED);
CREATE TABLE ge (a INT, c INT AS (CONNECTION_ID()) STORED);
CREATE TABLE ge (a INT, c INT AS (CURDATE()) PERSISTENT);
CREATE TABLE ge (a INT, c INT AS (@x) STORED);
CREATE TABLE ge (a INT, c INT AS (RAND()), KEY (c));
CREATE TABLE ge (a INT AUTO_INCREMENT PRIMARY KEY, c INT AS (a + 1) STORED);
CREATE TABLE ge (a INT, c INT AS (d + 1), d INT AS (a));
CREATE TABLE ge (a INT, c INT AS (c + 1));
CREATE TABLE ge (a INT, c INT AS (zz + 1));
CREATE TABLE ge (a INT, c INT AS (a + 1), PRIMARY KEY (c));
CREATE TABLE ge (a INT, c INT AS (a + 1) STORED, PRIMARY KEY (c));
SHOW TABLES LIKE 'ge';

-- ALTER TABLE: added and modified generated columns get their values.
CREATE TABLE g7 (a INT, c INT AS (a + 1));
INSERT INTO g7 (a) VALUES (1), (2);
ALTER TABLE g7 ADD COLUMN e INT AS (a - 1) PERSISTENT;
SELECT * FROM g7 ORDER BY a;
ALTER TABLE g7 MODIFY c INT AS (a + 10) VIRTUAL;
SELECT * FROM g7 ORDER BY a;
ALTER TABLE g7 ADD COLUMN f INT AS (zz);
ALTER TABLE g7 ADD COLUMN g INT AS ((SELECT 1));
ALTER TABLE g7 ADD COLUMN s VARCHAR(10) AS (CONCAT(a, '!')) STORED, ADD KEY (s);
SHOW CREATE TABLE g7;
SELECT a, s FROM g7 WHERE s = '2!';
UPDATE g7 SET a = 5 WHERE a = 2;
SELECT * FROM g7 ORDER BY a;
