-- CHECK constraints: column-level and table-level, named and unnamed (CONSTRAINT_n),
-- enforced on INSERT, UPDATE, multi-table UPDATE, INSERT ... ON DUPLICATE KEY UPDATE,
-- REPLACE and INSERT ... SELECT (4025; a warning with IGNORE), NULL passes,
-- check_constraint_checks, SHOW CREATE TABLE text as MariaDB prints it, ALTER TABLE ADD
-- and DROP CONSTRAINT, CREATE TABLE ... LIKE and ... SELECT, and the errors.

CREATE TABLE k1 (a INT CHECK (a > 0), b INT, c VARCHAR(10) CHECK (c <> ''),
  CONSTRAINT pos CHECK (b > a), CHECK (a + b < 100),
  CHECK (a BETWEEN 1 AND 50 AND b IS NOT NULL OR c IN ('x', 'y')),
  CHECK (CHAR_LENGTH(c) < 8 OR NOT (a = 3)));
SHOW CREATE TABLE k1;
INSERT INTO k1 VALUES (1, 2, 'x');
INSERT INTO k1 VALUES (0, 2, 'x');
INSERT INTO k1 VALUES (5, 2, 'x');
INSERT INTO k1 VALUES (NULL, NULL, NULL);
INSERT INTO k1 VALUES (NULL, 1, '');
INSERT INTO k1 VALUES (40, 70, 'x');
INSERT INTO k1 VALUES (3, 4, 'abcdefghi');
INSERT INTO k1 VALUES (2, 3, 'y');
INSERT INTO k1 VALUES (4, 5, 'q'), (0, 1, 'q');
SELECT * FROM k1 ORDER BY a;
UPDATE k1 SET a = 0 WHERE b = 2;
UPDATE k1 SET b = b + 10 WHERE a = 1;
SELECT * FROM k1 ORDER BY a;
INSERT INTO k1 SELECT 0, 1, 'z';
SELECT COUNT(*) FROM k1;

-- check_constraint_checks.
SET check_constraint_checks = 0;
INSERT INTO k1 VALUES (-1, -5, '');
SET check_constraint_checks = 1;
SELECT @@check_constraint_checks, @@session.check_constraint_checks;
SELECT * FROM k1 ORDER BY a;
DELETE FROM k1 WHERE a = -1;

-- ON DUPLICATE KEY UPDATE, REPLACE, multi-table UPDATE.
CREATE TABLE k2 (id INT PRIMARY KEY, v INT, CONSTRAINT small CHECK (v < 10));
INSERT INTO k2 VALUES (1, 1), (2, 2);
INSERT INTO k2 VALUES (1, 5) ON DUPLICATE KEY UPDATE v = v + 20;
INSERT INTO k2 VALUES (1, 5) ON DUPLICATE KEY UPDATE v = v + 2;
REPLACE INTO k2 VALUES (2, 50);
REPLACE INTO k2 VALUES (2, 5);
SELECT * FROM k2 ORDER BY id;
UPDATE k2 JOIN k1 ON k1.a = k2.id SET k2.v = 99;
UPDATE k2 JOIN k1 ON k1.a = k2.id SET k2.v = 9;
SELECT * FROM k2 ORDER BY id;

-- ALTER TABLE (on an empty table, and one whose rows fail the new constraint).
CREATE TABLE k6 (id INT PRIMARY KEY, v INT, CONSTRAINT small CHECK (v < 10));
ALTER TABLE k6 ADD CONSTRAINT big CHECK (v > 0);
ALTER TABLE k6 ADD CONSTRAINT big CHECK (v > 1);
ALTER TABLE k6 ADD CHECK (v <> 7);
ALTER TABLE k2 ADD CONSTRAINT neg CHECK (v < 0);
SHOW CREATE TABLE k6;
INSERT INTO k6 VALUES (3, 0);
INSERT INTO k6 VALUES (3, 7);
ALTER TABLE k6 DROP CONSTRAINT big;
ALTER TABLE k6 DROP CONSTRAINT nosuch;
ALTER TABLE k6 DROP CONSTRAINT id;
INSERT INTO k6 VALUES (3, 0);
SHOW CREATE TABLE k6;

-- LIKE and SELECT keep constraints.
CREATE TABLE k3 LIKE k6;
SHOW CREATE TABLE k3;
INSERT INTO k3 VALUES (1, 11);
CREATE TABLE k4 (v INT CHECK (v > 2)) SELECT v FROM k6;
CREATE TABLE k4 (v INT CHECK (v >= 0)) SELECT v FROM k6;
SHOW CREATE TABLE k4;
SELECT * FROM k4 ORDER BY v;

-- Printing.
CREATE TABLE k5 (a INT, b INT, c VARCHAR(5), CHECK (NOT a), CHECK (NOT (a > 1 AND b > 1)),
  CHECK (a - (b - 1) > -a), CHECK (a % 2 = 0 OR a DIV 2 > 1 OR a MOD 3 = 1),
  CHECK (c LIKE 'x%' OR c NOT LIKE 'y%' OR c NOT IN ('a','b') OR a NOT BETWEEN 1 AND 2),
  CHECK (a IS NULL OR b IS NOT NULL OR a <=> b OR a != b),
  CHECK (COALESCE(a, 0) >= 0 AND IFNULL(b,1) <> 0),
  CHECK (a IN (1, 2,3) XOR b = 1), CHECK ((a + b) * 2 > 1 AND -a < 5 AND a = TRUE),
  CHECK (c = "dq" AND c <> 'it''s'), CHECK (a > 1.50 AND b < 1e3));
SHOW CREATE TABLE k5;

-- Errors.
CREATE TABLE e1 (a INT, CHECK (zz > 0));
CREATE TABLE e2 (a INT, CONSTRAINT x CHECK (a > 0), CONSTRAINT x CHECK (a < 5));
CREATE TABLE e3 (a INT CHECK (b > 0), b INT);
SHOW CREATE TABLE e3;
INSERT INTO e3 VALUES (1, 0);
SHOW TABLES;
