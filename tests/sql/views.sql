-- Views: CREATE [OR REPLACE] VIEW with options and column lists, ALTER VIEW, DROP VIEW
-- [IF EXISTS]; reading views alone, joined, nested, in subqueries and derived tables,
-- with WHERE/GROUP BY/ORDER BY over them; SHOW FULL TABLES, information_schema.TABLES
-- and VIEWS, DESCRIBE and SHOW COLUMNS of a view; errors 1050, 1060, 1146, 1347, 1353,
-- 1356, 1368, 1965, 4092. SHOW CREATE VIEW prints the query as written (MariaDB
-- rewrites it), so only its outcome is compared. Writes through a view are 1235 in
-- manycore (sql unit tests), so none are here.

CREATE TABLE emp (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL, dept VARCHAR(10), salary INT);
CREATE TABLE dept (code VARCHAR(10) PRIMARY KEY, title VARCHAR(20));
INSERT INTO emp VALUES (1, 'Alice', 'eng', 120), (2, 'Bob', 'eng', 95),
  (3, 'Carol', 'sales', 70), (4, 'Dan', 'sales', 70), (5, 'Eve', NULL, 50);
INSERT INTO dept VALUES ('eng', 'Engineering'), ('sales', 'Sales');

CREATE VIEW rich AS SELECT id, name, salary FROM emp WHERE salary > 60;
SELECT * FROM rich ORDER BY id;
SELECT name FROM rich WHERE salary < 100 ORDER BY name;
SELECT COUNT(*), SUM(salary) FROM rich;
SELECT r.name, d.title FROM rich r JOIN emp e ON e.id = r.id JOIN dept d ON d.code = e.dept ORDER BY r.id;
SELECT * FROM emp WHERE id IN (SELECT id FROM rich WHERE salary > 90) ORDER BY id;
SELECT * FROM (SELECT name FROM rich) AS d ORDER BY name;
SELECT (SELECT MAX(salary) FROM rich) AS m;
CREATE VIEW by_dept (dept, n, total) AS SELECT dept, COUNT(*), SUM(salary) FROM emp GROUP BY dept;
SELECT * FROM by_dept ORDER BY dept;
CREATE VIEW top AS SELECT name, total FROM rich JOIN by_dept ON by_dept.n > 1 WHERE rich.salary = 120;
SELECT * FROM top ORDER BY name, total;
CREATE VIEW nested AS SELECT name FROM rich WHERE id < 3;
SELECT * FROM nested ORDER BY name;
SELECT * FROM nested n1, nested n2 ORDER BY n1.name, n2.name;
CREATE VIEW consts AS SELECT 1 AS one, 'x' AS letter;
SELECT * FROM consts;
WITH c AS (SELECT * FROM rich) SELECT COUNT(*) FROM c;
CREATE ALGORITHM=MERGE DEFINER=CURRENT_USER SQL SECURITY INVOKER VIEW opts AS SELECT id FROM emp WITH CHECK OPTION;
SELECT * FROM opts ORDER BY id;
CREATE VIEW local_check AS SELECT id, dept FROM emp WHERE dept = 'eng' WITH LOCAL CHECK OPTION;
SELECT * FROM local_check ORDER BY id;
CREATE VIEW diff_views.qualified AS SELECT code FROM diff_views.dept;
SELECT * FROM diff_views.qualified ORDER BY code;

-- Metadata.
SHOW FULL TABLES;
SHOW TABLES LIKE 'r%';
SELECT TABLE_NAME, TABLE_TYPE, ENGINE, TABLE_ROWS, TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'diff_views' ORDER BY TABLE_NAME;
SELECT TABLE_NAME, CHECK_OPTION, IS_UPDATABLE, DEFINER, SECURITY_TYPE, ALGORITHM FROM information_schema.VIEWS WHERE TABLE_SCHEMA = 'diff_views' ORDER BY TABLE_NAME;
DESCRIBE rich;
SHOW COLUMNS FROM rich;
-- diff: skip-result
SHOW CREATE VIEW rich;
-- diff: skip-result
SHOW CREATE TABLE rich;
-- diff: skip-result
SELECT VIEW_DEFINITION FROM information_schema.VIEWS WHERE TABLE_NAME = 'rich';

-- Replacing and altering.
CREATE OR REPLACE VIEW rich (who, pay) AS SELECT name, salary FROM emp WHERE salary >= 95;
SELECT * FROM rich ORDER BY who;
ALTER VIEW rich AS SELECT name FROM emp WHERE id = 5;
SELECT * FROM rich;
SELECT * FROM nested;
ALTER ALGORITHM=TEMPTABLE VIEW consts AS SELECT 2 AS two;
SELECT * FROM consts;

-- Errors.
CREATE VIEW rich AS SELECT 1;
CREATE VIEW emp AS SELECT 1;
CREATE TABLE rich (x INT);
CREATE OR REPLACE VIEW emp AS SELECT 1;
ALTER VIEW emp AS SELECT 1;
ALTER VIEW nothere AS SELECT 1;
CREATE VIEW bad AS SELECT * FROM nothere;
CREATE VIEW bad AS SELECT nope FROM emp;
CREATE VIEW bad (a) AS SELECT 1, 2;
CREATE VIEW bad AS SELECT 1 AS a, 2 AS a;
CREATE VIEW bad (a, a) AS SELECT 1, 2;
CREATE VIEW bad AS SELECT 1 AS k WITH CHECK OPTION;
CREATE VIEW bad AS SELECT dept, COUNT(*) FROM emp GROUP BY dept WITH CASCADED CHECK OPTION;
SELECT * FROM bad;
SHOW CREATE VIEW emp;
SHOW CREATE VIEW nothere;
DESCRIBE nothere;
DROP VIEW emp;
DROP VIEW nothere;
DROP VIEW IF EXISTS nothere, alsonot;
SHOW WARNINGS;
DROP TABLE nested;
DROP TABLE IF EXISTS nested;
SHOW WARNINGS;
SELECT * FROM nested;
SELECT nope FROM rich;

-- A view over a table that is gone: 1356, also through an outer view.
CREATE TABLE tmp (a INT);
INSERT INTO tmp VALUES (1), (2);
CREATE VIEW over_tmp AS SELECT a FROM tmp;
CREATE VIEW over_over AS SELECT a * 10 AS b FROM over_tmp;
SELECT * FROM over_over ORDER BY b;
DROP TABLE tmp;
SELECT * FROM over_tmp;
SELECT * FROM over_over;
CREATE TABLE tmp (a INT, c INT);
INSERT INTO tmp VALUES (3, 4);
SELECT * FROM over_over;

-- Dropping.
DROP VIEW rich, nested;
SELECT * FROM rich;
DROP VIEW IF EXISTS top, rich;
SHOW WARNINGS;
SHOW FULL TABLES;

-- Statements that change a base table refuse a view (1347), with IF EXISTS too.
CREATE TABLE vb (id INT);
CREATE VIEW vv AS SELECT id FROM vb;
ALTER TABLE vv ADD COLUMN y INT;
ALTER TABLE IF EXISTS vv ADD COLUMN y INT;
SHOW WARNINGS;
ALTER TABLE vv ENGINE = InnoDB;
ALTER TABLE vv COMMENT 'x';
ALTER TABLE vv RENAME TO vv9;
ALTER TABLE vv DISABLE KEYS;
CREATE INDEX i ON vv (id);
DROP INDEX i ON vv;
TRUNCATE TABLE vv;
DROP VIEW vv;
DROP TABLE vb;
