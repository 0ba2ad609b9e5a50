-- Subqueries in expressions: scalar, IN, EXISTS, ANY/ALL; uncorrelated and correlated;
-- in WHERE, the select list, HAVING and ORDER BY; NULL semantics; errors 1241/1242.

CREATE TABLE emp (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL, dept VARCHAR(10), salary INT, boss INT);
CREATE TABLE dept (code VARCHAR(10) PRIMARY KEY, title VARCHAR(20), budget INT);
CREATE TABLE nothing (id INT PRIMARY KEY, v INT);
CREATE TABLE nums (n INT);
INSERT INTO emp VALUES
  (1, 'Alice', 'eng', 120, NULL),
  (2, 'Bob', 'eng', 95, 1),
  (3, 'Carol', 'sales', 70, 1),
  (4, 'Dan', 'sales', 70, 3),
  (5, 'Eve', NULL, 50, 3),
  (6, 'Frank', 'ops', NULL, 1),
  (7, 'Grace', 'eng', 130, 1);
INSERT INTO dept VALUES ('eng', 'Engineering', 300), ('sales', 'Sales', 100), ('hr', 'People', NULL);
INSERT INTO nums VALUES (1), (2), (NULL);

-- Scalar subqueries.
SELECT (SELECT 1);
SELECT (SELECT MAX(salary) FROM emp) AS top;
SELECT id FROM emp WHERE salary = (SELECT MAX(salary) FROM emp);
SELECT id FROM emp WHERE salary > (SELECT AVG(salary) FROM emp) ORDER BY id;
SELECT id FROM emp WHERE id = (SELECT MIN(id) FROM emp WHERE dept = 'sales');
SELECT id, (SELECT title FROM dept WHERE code = 'eng') FROM emp WHERE id < 3;
SELECT (SELECT v FROM nothing) IS NULL;
SELECT (SELECT id FROM emp WHERE id = 99);
SELECT id FROM emp WHERE salary = (SELECT salary FROM emp WHERE id = 6);
SELECT (SELECT name FROM emp ORDER BY id DESC LIMIT 1);
SELECT (SELECT 1 UNION SELECT 1);
SELECT 1 + (SELECT COUNT(*) FROM emp);

-- Errors: more than one row (1242), more than one column (1241).
SELECT (SELECT id FROM emp);
SELECT id FROM emp WHERE salary = (SELECT salary FROM emp WHERE dept = 'eng');
SELECT (SELECT id, name FROM emp WHERE id = 1);
SELECT id FROM emp WHERE id IN (SELECT id, name FROM emp);
SELECT (SELECT 1 UNION SELECT 2);
SELECT (SELECT nosuch FROM emp WHERE id = 1);

-- IN / NOT IN with NULLs.
SELECT id FROM emp WHERE dept IN (SELECT code FROM dept) ORDER BY id;
SELECT id FROM emp WHERE dept NOT IN (SELECT code FROM dept) ORDER BY id;
SELECT id FROM emp WHERE dept IN (SELECT dept FROM emp WHERE salary > 100) ORDER BY id;
SELECT 1 IN (SELECT n FROM nums), 3 IN (SELECT n FROM nums), 3 NOT IN (SELECT n FROM nums);
SELECT NULL IN (SELECT n FROM nums), NULL IN (SELECT v FROM nothing), NULL NOT IN (SELECT v FROM nothing);
SELECT 1 IN (SELECT v FROM nothing), 1 NOT IN (SELECT v FROM nothing);
SELECT n, n IN (SELECT n FROM nums WHERE n IS NOT NULL) FROM nums;
SELECT id FROM emp WHERE salary IN (SELECT budget FROM dept WHERE budget < 200) ORDER BY id;
SELECT 'eng' IN (SELECT code FROM dept), 'ENG' IN (SELECT code FROM dept);

-- EXISTS.
SELECT EXISTS (SELECT 1 FROM emp), EXISTS (SELECT 1 FROM nothing), NOT EXISTS (SELECT * FROM nothing);
SELECT code FROM dept d WHERE EXISTS (SELECT 1 FROM emp e WHERE e.dept = d.code) ORDER BY code;
SELECT code FROM dept d WHERE NOT EXISTS (SELECT 1 FROM emp e WHERE e.dept = d.code);

-- ANY / SOME / ALL.
SELECT id FROM emp WHERE salary > ANY (SELECT budget FROM dept) ORDER BY id;
SELECT id FROM emp WHERE salary < ALL (SELECT budget FROM dept WHERE budget IS NOT NULL) ORDER BY id;
SELECT id FROM emp WHERE salary = SOME (SELECT salary FROM emp WHERE dept = 'sales') ORDER BY id;
SELECT 5 > ALL (SELECT n FROM nums), 5 > ANY (SELECT n FROM nums), 0 > ALL (SELECT n FROM nums);
SELECT 5 > ALL (SELECT v FROM nothing), 5 > ANY (SELECT v FROM nothing);
SELECT 1 <> ALL (SELECT n FROM nums WHERE n > 1), 1 = ANY (SELECT n FROM nums);

-- Correlated subqueries.
SELECT id, (SELECT title FROM dept WHERE code = emp.dept) AS title FROM emp ORDER BY id;
SELECT id, (SELECT name FROM emp b WHERE b.id = e.boss) AS boss FROM emp e ORDER BY id;
SELECT id FROM emp e WHERE salary = (SELECT MAX(salary) FROM emp x WHERE x.dept = e.dept) ORDER BY id;
SELECT id FROM emp e WHERE salary > (SELECT AVG(salary) FROM emp x WHERE x.dept = e.dept) ORDER BY id;
SELECT code, (SELECT COUNT(*) FROM emp WHERE emp.dept = dept.code) AS n FROM dept ORDER BY code;
SELECT id FROM emp e WHERE e.id IN (SELECT boss FROM emp x WHERE x.dept = e.dept) ORDER BY id;
SELECT id FROM emp e WHERE EXISTS (SELECT 1 FROM emp x WHERE x.boss = e.id) ORDER BY id;
SELECT id FROM emp e WHERE NOT EXISTS (SELECT 1 FROM emp x WHERE x.boss = e.id) ORDER BY id;
SELECT id FROM emp e WHERE salary >= ALL (SELECT salary FROM emp x WHERE x.dept = e.dept AND x.salary IS NOT NULL) ORDER BY id;
SELECT name FROM emp e WHERE (SELECT COUNT(*) FROM emp x WHERE x.boss = e.id) >= 2;
SELECT id FROM emp ORDER BY (SELECT budget FROM dept WHERE code = emp.dept), id;
-- Two levels: the innermost reads the outermost row.
SELECT code FROM dept d WHERE EXISTS (SELECT 1 FROM emp e WHERE e.dept = d.code AND EXISTS (SELECT 1 FROM emp x WHERE x.boss = e.id AND x.dept = d.code)) ORDER BY code;

-- HAVING and GROUP BY with subqueries.
SELECT dept, COUNT(*) FROM emp GROUP BY dept HAVING COUNT(*) > (SELECT COUNT(*) FROM dept WHERE budget IS NULL) ORDER BY dept;
SELECT dept, MAX(salary) FROM emp GROUP BY dept HAVING MAX(salary) > ALL (SELECT budget FROM dept WHERE budget < 100) ORDER BY dept;
SELECT dept, (SELECT title FROM dept WHERE code = emp.dept) FROM emp GROUP BY dept ORDER BY dept;

-- Set operations inside a subquery, subqueries inside set operations.
SELECT id FROM emp WHERE id IN (SELECT 1 UNION SELECT 3) ORDER BY id;
SELECT id FROM emp WHERE id IN (SELECT id FROM emp EXCEPT SELECT boss FROM emp) ORDER BY id;
SELECT id FROM emp WHERE salary = (SELECT MAX(salary) FROM emp) UNION SELECT id FROM emp WHERE salary = (SELECT MIN(salary) FROM emp);

-- Parameters inside subqueries (the prepared pass binds them as `?`).
SELECT id FROM emp WHERE dept = (SELECT dept FROM emp WHERE id = 3) AND salary > 60 ORDER BY id;
SELECT id FROM emp WHERE id IN (SELECT boss FROM emp WHERE salary > 90) ORDER BY id;
SELECT (SELECT name FROM emp WHERE id = 2), (SELECT name FROM emp WHERE id = 4);

-- UPDATE and DELETE with subqueries in WHERE, also reading the target table.
UPDATE emp SET salary = salary + 1 WHERE dept IN (SELECT code FROM dept WHERE budget > 200);
SELECT id, salary FROM emp ORDER BY id;
UPDATE emp SET salary = 0 WHERE salary = (SELECT MIN(salary) FROM emp);
SELECT id, salary FROM emp ORDER BY id;
UPDATE emp e SET boss = NULL WHERE NOT EXISTS (SELECT 1 FROM emp x WHERE x.id = e.boss AND x.dept = e.dept);
SELECT id, boss FROM emp ORDER BY id;
DELETE FROM emp WHERE id IN (SELECT boss FROM emp WHERE boss IS NOT NULL);
SELECT id FROM emp ORDER BY id;
DELETE FROM dept WHERE NOT EXISTS (SELECT 1 FROM emp WHERE emp.dept = dept.code);
SELECT code FROM dept ORDER BY code;

-- The same shapes again with other literals: the text pass reuses the cached template
-- (positions in a subquery's ORDER BY keep it from being templated).
SELECT id FROM emp WHERE id IN (SELECT boss FROM emp WHERE salary > 60) ORDER BY id;
SELECT id FROM emp WHERE id IN (SELECT boss FROM emp WHERE salary > 200) ORDER BY id;
SELECT (SELECT name FROM emp ORDER BY 1 LIMIT 1), (SELECT name FROM emp ORDER BY 1 DESC LIMIT 1);
SELECT (SELECT name FROM emp ORDER BY 2 LIMIT 1);

-- Subqueries in INSERT's VALUES and SET, ON DUPLICATE KEY UPDATE and UPDATE's SET. They
-- may read the target table, which they see as the statement found it (MariaDB allows
-- it in all four); more than one row is 1242, more than one column 1241.
CREATE TABLE ledger (id INT PRIMARY KEY, amount INT);
INSERT INTO ledger VALUES (1, (SELECT MAX(salary) FROM emp));
INSERT INTO ledger (id, amount) VALUES (2, (SELECT COUNT(*) FROM emp WHERE dept = 'eng')), (3, EXISTS (SELECT 1 FROM emp WHERE id = 99)), (4, 2 IN (SELECT n FROM nums));
INSERT INTO ledger VALUES (5, (SELECT MAX(amount) FROM ledger)), (6, (SELECT COUNT(*) FROM ledger));
INSERT INTO ledger SET id = 7, amount = (SELECT MIN(id) FROM emp);
INSERT INTO ledger VALUES (1, 0) ON DUPLICATE KEY UPDATE amount = (SELECT SUM(n) FROM nums);
SELECT id, amount FROM ledger ORDER BY id;
INSERT INTO ledger VALUES (8, (SELECT n FROM nums));
INSERT INTO ledger VALUES (8, (SELECT id, salary FROM emp LIMIT 1));
INSERT INTO ledger VALUES (8, (SELECT n FROM nums WHERE n = 2));
SELECT id, amount FROM ledger ORDER BY id;
UPDATE ledger SET amount = (SELECT MAX(salary) FROM emp) WHERE id = 2;
UPDATE ledger SET amount = (SELECT COUNT(*) FROM emp WHERE emp.boss = ledger.id);
SELECT id, amount FROM ledger ORDER BY id;
UPDATE ledger SET amount = id * 10;
UPDATE ledger SET amount = (SELECT SUM(l.amount) FROM ledger l WHERE l.id <= ledger.id);
SELECT id, amount FROM ledger ORDER BY id;
UPDATE ledger SET amount = (SELECT MAX(amount) FROM ledger) WHERE id > 5;
SELECT id, amount FROM ledger ORDER BY id;
UPDATE ledger SET id = id + 100, amount = (SELECT COUNT(*) FROM nums WHERE n < ledger.id) WHERE id IN (SELECT n FROM nums);
SELECT id, amount FROM ledger ORDER BY id;
UPDATE ledger SET amount = (SELECT n FROM nums);
UPDATE ledger SET amount = (SELECT id, salary FROM emp LIMIT 1);
SELECT id, amount FROM ledger ORDER BY id;
