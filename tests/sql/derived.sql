-- Derived tables: `FROM (SELECT ...) AS d` alone, in joins (inner, LEFT, RIGHT, USING,
-- NATURAL), nested, over UNION, in subqueries and INSERT ... SELECT; GROUP BY, ORDER BY
-- and LIMIT inside and outside; NULLs; errors. Joins of derived tables with tables with
-- and without a usable index, and of information_schema tables (read once per run of
-- the join, replayed per outer row).

CREATE TABLE emp (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL, dept VARCHAR(10), salary INT);
CREATE TABLE dept (code VARCHAR(10) PRIMARY KEY, title VARCHAR(20), floor INT);
CREATE TABLE grade (low INT, high INT, label VARCHAR(10));
CREATE TABLE tag (dept VARCHAR(10), tag VARCHAR(10), KEY k_dept (dept));
CREATE TABLE copy (id INT, total INT);
INSERT INTO emp VALUES (1, 'Alice', 'eng', 120), (2, 'Bob', 'eng', 95),
  (3, 'Carol', 'sales', 70), (4, 'Dan', 'sales', 70), (5, 'Eve', NULL, 50),
  (6, 'Frank', 'ops', NULL);
INSERT INTO dept VALUES ('eng', 'Engineering', 3), ('sales', 'Sales', 1), ('hr', 'People', NULL);
INSERT INTO grade VALUES (0, 60, 'low'), (61, 100, 'mid'), (101, 1000, 'high');
INSERT INTO tag VALUES ('eng', 'build'), ('eng', 'run'), ('sales', 'sell'), (NULL, 'none');

-- Alone in FROM.
SELECT * FROM (SELECT id, name FROM emp WHERE salary > 60) AS d ORDER BY id;
SELECT * FROM (SELECT 1 AS a, 'x' AS b, NULL AS c) d;
SELECT d.*, 1 FROM (SELECT id, salary + 1 AS s FROM emp) d ORDER BY id;
SELECT * FROM (SELECT id, salary * 2 FROM emp) d ORDER BY id;
SELECT name FROM (SELECT name, dept FROM emp) d WHERE dept IS NULL;
SELECT d.id FROM (SELECT id, salary FROM emp) AS d WHERE d.salary IS NULL OR d.salary < 60 ORDER BY d.id;
SELECT COUNT(*) FROM (SELECT dept FROM emp GROUP BY dept) AS d;
SELECT dept, n FROM (SELECT dept, COUNT(*) AS n FROM emp GROUP BY dept) d WHERE n > 1 ORDER BY dept;
SELECT * FROM (SELECT id FROM emp ORDER BY id DESC LIMIT 3) d ORDER BY id;
SELECT * FROM (SELECT id, salary FROM emp) d ORDER BY salary DESC, id LIMIT 2 OFFSET 1;
SELECT MAX(s), MIN(s), SUM(s) FROM (SELECT salary AS s FROM emp) d;
SELECT DISTINCT s FROM (SELECT salary AS s FROM emp) d ORDER BY s;
SELECT s, COUNT(*) FROM (SELECT salary AS s FROM emp) d GROUP BY s HAVING COUNT(*) > 1;
SELECT * FROM (SELECT * FROM (SELECT id, dept FROM emp WHERE id < 5) e WHERE dept = 'eng') d ORDER BY id;
SELECT * FROM (SELECT id FROM emp UNION SELECT floor FROM dept) d ORDER BY id;
SELECT * FROM (SELECT dept FROM emp UNION ALL SELECT code FROM dept) d ORDER BY dept;
SELECT * FROM (SELECT id FROM emp WHERE id < 3 UNION SELECT 7 ORDER BY id DESC LIMIT 2) d ORDER BY id;
SELECT * FROM ((SELECT 1 AS a) UNION (SELECT 2)) d ORDER BY a;

-- In joins.
SELECT e.name, d.title FROM emp e JOIN (SELECT code, title FROM dept) d ON e.dept = d.code ORDER BY e.name;
SELECT e.name, d.title FROM (SELECT code, title FROM dept) d JOIN emp e ON e.dept = d.code ORDER BY e.name;
SELECT e.name, d.title FROM emp e LEFT JOIN (SELECT code, title FROM dept WHERE floor > 1) d ON e.dept = d.code ORDER BY e.name;
SELECT d.code, e.name FROM emp e RIGHT JOIN (SELECT code FROM dept) d ON e.dept = d.code ORDER BY d.code, e.name;
SELECT * FROM emp JOIN (SELECT code AS dept, title FROM dept) d USING (dept) ORDER BY id;
SELECT * FROM emp NATURAL JOIN (SELECT code AS dept, floor FROM dept) d ORDER BY id;
SELECT * FROM (SELECT 1 AS a) d1 JOIN (SELECT 1 AS a, 2 AS b) d2 USING (a);
SELECT * FROM (SELECT 1 AS a) d1, (SELECT 2 AS b) d2, (SELECT 3 AS c) d3;
SELECT d.n, e.id FROM (SELECT dept, COUNT(*) AS n FROM emp GROUP BY dept) d JOIN emp e ON e.dept = d.dept ORDER BY e.id;
SELECT t.dept, t.tag, d.n FROM tag t JOIN (SELECT dept, COUNT(*) AS n FROM emp GROUP BY dept) d ON t.dept = d.dept ORDER BY t.tag;
SELECT x.id, y.id FROM (SELECT id, dept FROM emp) x JOIN (SELECT id, dept FROM emp) y ON x.dept = y.dept AND x.id < y.id ORDER BY x.id, y.id;
SELECT * FROM (SELECT 5 AS z) d, dept ORDER BY code;
SELECT * FROM dept, (SELECT 5 AS z) d ORDER BY code;
SELECT COUNT(*) FROM emp a, (SELECT id FROM emp) b, (SELECT code FROM dept) c;
SELECT e.name, d.title FROM emp e LEFT JOIN (SELECT code, title FROM dept) d ON e.dept = d.code WHERE d.title IS NULL ORDER BY e.name;

-- Tables without a usable index inside joins (read once, replayed per outer row).
SELECT e.name, g.label FROM emp e JOIN grade g ON e.salary BETWEEN g.low AND g.high ORDER BY e.name;
SELECT e.name, g.label FROM emp e LEFT JOIN grade g ON e.salary BETWEEN g.low AND g.high AND g.label <> 'high' ORDER BY e.name;
SELECT g.label, COUNT(e.id) FROM grade g LEFT JOIN emp e ON e.salary BETWEEN g.low AND g.high GROUP BY g.label ORDER BY g.label;
SELECT e.name, g.label FROM emp e, grade g WHERE g.high > 100 AND e.salary > 100 ORDER BY e.name;
SELECT e.name, t.tag FROM emp e JOIN tag t ON t.dept = e.dept ORDER BY e.name, t.tag;
SELECT a.low, b.low FROM grade a JOIN grade b ON a.high < b.high ORDER BY a.low, b.low;
SELECT e.name, (SELECT COUNT(*) FROM grade g JOIN grade h ON g.low < h.low WHERE h.low < e.salary) AS n FROM emp e ORDER BY e.name;
SELECT e.name, g.label FROM emp e JOIN grade g ON e.salary BETWEEN g.low AND g.high ORDER BY e.name LIMIT 2;

-- In subqueries and INSERT ... SELECT.
SELECT name FROM emp WHERE dept IN (SELECT code FROM (SELECT code FROM dept WHERE floor IS NOT NULL) d) ORDER BY name;
SELECT name, (SELECT MAX(s) FROM (SELECT salary AS s FROM emp) d) AS top FROM emp WHERE id < 3 ORDER BY name;
SELECT code FROM dept WHERE EXISTS (SELECT 1 FROM (SELECT dept FROM emp) d WHERE d.dept = dept.code) ORDER BY code;
SELECT * FROM (SELECT 1 AS a) d WHERE EXISTS (SELECT 1 FROM emp WHERE emp.id = d.a);
INSERT INTO copy SELECT id, s FROM (SELECT id, salary * 10 AS s FROM emp WHERE id <= 3) d;
INSERT INTO copy (id, total) SELECT d.dept_n, d.total FROM (SELECT COUNT(*) AS dept_n, SUM(salary) AS total FROM emp) d;
SELECT * FROM copy ORDER BY id;

-- information_schema tables in joins.
SELECT c.column_name FROM information_schema.tables t JOIN information_schema.columns c USING (table_schema, table_name) WHERE t.table_schema = DATABASE() AND t.table_name = 'emp' ORDER BY c.ordinal_position;
SELECT t.table_name, COUNT(*) FROM information_schema.tables t JOIN information_schema.columns c ON c.table_schema = t.table_schema AND c.table_name = t.table_name WHERE t.table_schema = DATABASE() GROUP BY t.table_name ORDER BY t.table_name;
SELECT e.name FROM emp e JOIN information_schema.columns c ON c.column_name = e.name WHERE c.table_schema = DATABASE();
SELECT t.table_name, d.n FROM information_schema.tables t JOIN (SELECT COUNT(*) AS n FROM emp) d WHERE t.table_schema = DATABASE() ORDER BY t.table_name;
-- diff: skip-result
SELECT COUNT(*) FROM information_schema.tables t JOIN information_schema.columns c USING (table_schema, table_name);

-- Errors.
SELECT * FROM (SELECT 1);
SELECT * FROM (SELECT 1) JOIN emp;
SELECT * FROM (SELECT 1 AS a, 2 AS a) d;
SELECT * FROM (SELECT id, id FROM emp) d;
SELECT * FROM (SELECT 1, 2) AS d (x, y);
SELECT * FROM (SELECT id FROM emp) d JOIN (SELECT id FROM emp) d;
SELECT nope FROM (SELECT id FROM emp) d;
SELECT (SELECT x FROM (SELECT id AS x) d) FROM emp e;
SELECT emp.id FROM (SELECT id FROM emp) d;
SELECT * FROM (SELECT id FROM missing) d;
SELECT (SELECT x FROM (SELECT e.id AS x) d) FROM emp e;
SELECT * FROM (SELECT 1 UNION SELECT 1, 2) d;
UPDATE (SELECT 1 AS a) d SET a = 2;
DELETE FROM (SELECT 1 AS a) d;
