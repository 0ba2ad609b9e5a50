-- SET and DO with subqueries (they read the session's transaction, as a SELECT does), DO's
-- rule that an evaluation error stays a warning of level Error, and MariaDB's 1109 for a
-- qualified name where no table is in reach.

CREATE TABLE emp (id INT PRIMARY KEY, dept VARCHAR(10), salary INT);
INSERT INTO emp VALUES (1, 'eng', 120), (2, 'eng', 95), (3, 'sales', 70), (4, NULL, 50);

-- SET with subqueries.
SET @top = (SELECT MAX(salary) FROM emp);
SELECT @top;
SET @n = (SELECT COUNT(*) FROM emp WHERE salary < @top), @any = EXISTS (SELECT * FROM emp WHERE dept = 'sales');
SELECT @n, @any;
SET @in = 3 IN (SELECT id FROM emp), @notin = 9 NOT IN (SELECT id FROM emp);
SELECT @in, @notin;
SET @derived = (SELECT x FROM (SELECT 1 + 1 AS x) d);
SELECT @derived;
SET @named = (SELECT `salary * 2` FROM (SELECT salary * 2 FROM emp WHERE id = 3) d);
SELECT @named;
SET @many = (SELECT id FROM emp);
SET @wide = (SELECT id, dept FROM emp WHERE id = 1);
SET @missing = (SELECT id FROM nosuch);
SET @none = (SELECT id FROM emp WHERE id = 99);
SELECT @none IS NULL;
SET SESSION sql_mode = (SELECT 'ANSI_QUOTES');
SELECT @@session.sql_mode;
SET SESSION sql_mode = DEFAULT;
SET @one = 1;
SET @two = (SELECT @one + 1);
SELECT @one, @two;

-- A subquery in SET reads the transaction's own writes.
BEGIN;
INSERT INTO emp VALUES (5, 'ops', 200);
SET @top = (SELECT MAX(salary) FROM emp);
ROLLBACK;
SELECT @top, (SELECT MAX(salary) FROM emp);

-- Through PREPARE / EXECUTE.
PREPARE s FROM 'SET @next = (SELECT MIN(id) FROM emp WHERE id > ?)';
SET @from = 2;
EXECUTE s USING @from;
SELECT @next;
DEALLOCATE PREPARE s;

-- DO evaluates everything and succeeds; an evaluation error is kept as a warning.
DO (SELECT MAX(id) FROM emp);
DO (SELECT id FROM emp);
SHOW WARNINGS;
DO (SELECT id FROM emp), 1 / 0;
SHOW WARNINGS;
DO 18446744073709551615 + 1;
SHOW WARNINGS;
DO 1 IN (SELECT id FROM emp), (SELECT id FROM emp WHERE id = 1) + 1;
DO (SELECT @picked := id FROM emp WHERE id = 2);
SELECT @picked;
-- Errors found before evaluating still fail the statement.
DO 1 / 0, nosuch;
SHOW WARNINGS;
DO (SELECT id FROM nosuch);
DO (SELECT nosuch FROM emp);

-- A qualified name with no table in reach: 1109; with one, or in a subquery: 1054.
SELECT e.id;
SELECT db.e.id;
SELECT 1 WHERE zz.id = 1;
SELECT 1 FROM DUAL WHERE zz.id = 1;
SELECT 1 ORDER BY zz.id;
SELECT 1 GROUP BY zz.id + 1;
SELECT COUNT(*) HAVING zz.id > 0;
SELECT * FROM (SELECT zz.id) d;
SELECT zz.id UNION SELECT 1;
SELECT 1 UNION SELECT zz.id;
SELECT SUM(zz.id);
SELECT (SELECT zz.id) FROM emp;
SELECT (SELECT x FROM (SELECT e.id AS x) d) FROM emp e;
SELECT (SELECT x FROM (SELECT e.id AS x FROM emp) d) FROM emp e;
SELECT 1 WHERE EXISTS (SELECT zz.id);
SELECT zz.id FROM emp;
SELECT id FROM emp WHERE zz.id = 1;
SELECT nope;
DO zz.id;
DO nope;
SET @a = zz.id;
SET @a = nope;
INSERT INTO emp VALUES (zz.id, 'x', 1);
UPDATE emp SET salary = zz.id;

-- A user variable's type is its value's when the statement runs: one statement text
-- read while the variable is unset, then holding an integer, a decimal and a string
-- (drivers reuse one prepared statement per text; PREPARE reuses one explicitly, where
-- MariaDB gives a decimal that was an integer at PREPARE 38 digits of scale: not tested).
SELECT @retyped;
SET @retyped = 0;
SELECT @retyped;
SET @retyped = 1.5;
SELECT @retyped;
SET @retyped = 'x';
SELECT @retyped;
PREPARE read_retyped FROM 'SELECT @retyped_too + 0 AS sum';
EXECUTE read_retyped;
SET @retyped_too = 2;
EXECUTE read_retyped;
SET @retyped_too = '7.5';
EXECUTE read_retyped;
DEALLOCATE PREPARE read_retyped;
