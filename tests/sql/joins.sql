-- Joins: comma, [INNER] JOIN ... ON, CROSS JOIN, USING, NATURAL, LEFT and RIGHT
-- [OUTER] JOIN, nested join trees, aliases, qualified names, `*` and `t.*`.
-- Every query that returns more than one row has an ORDER BY: join order is the
-- server's choice.

CREATE TABLE dept (
  code VARCHAR(10) PRIMARY KEY,
  title VARCHAR(20) NOT NULL,
  floor INT
);
CREATE TABLE emp (
  id INT PRIMARY KEY,
  name VARCHAR(20) NOT NULL,
  dept VARCHAR(10),
  boss INT,
  KEY k_dept (dept)
);
CREATE TABLE project (
  pid INT PRIMARY KEY,
  lead INT,
  budget DECIMAL(10,2),
  dept VARCHAR(10)
);
CREATE TABLE nothing (id INT PRIMARY KEY, dept VARCHAR(10));
CREATE TABLE pair (a INT, b INT);
CREATE TABLE pair2 (b INT, a INT, c INT);

INSERT INTO dept VALUES ('eng', 'Engineering', 3), ('sales', 'Sales', 1),
  ('hr', 'People', NULL), ('ops', 'Operations', 2);
INSERT INTO emp VALUES
  (1, 'Alice', 'eng', NULL),
  (2, 'Bob', 'eng', 1),
  (3, 'Carol', 'sales', 1),
  (4, 'Dan', 'sales', 3),
  (5, 'Eve', NULL, 1),
  (6, 'Frank', 'ops', 3),
  (7, 'Grace', 'eng', 2),
  (8, 'Heidi', 'lab', NULL);
INSERT INTO project VALUES (10, 1, 1000.00, 'eng'), (11, 3, 250.50, 'sales'),
  (12, 3, NULL, 'sales'), (13, 9, 75.25, NULL), (14, 7, 10.00, 'eng');
INSERT INTO pair VALUES (1, 1), (1, 2), (2, NULL), (NULL, 3), (NULL, NULL), (1, 1);
INSERT INTO pair2 VALUES (1, 1, 10), (2, 1, 20), (NULL, 2, 30), (3, NULL, 40), (1, 1, 50);

-- Comma and inner joins.
SELECT e.name, d.title FROM emp e, dept d WHERE e.dept = d.code ORDER BY e.id;
SELECT e.name, d.title FROM emp e JOIN dept d ON e.dept = d.code ORDER BY e.id;
SELECT e.name, d.title FROM emp AS e INNER JOIN dept AS d ON d.code = e.dept WHERE d.floor > 1 ORDER BY e.name;
SELECT emp.name, dept.title FROM emp JOIN dept ON emp.dept = dept.code AND dept.floor = 3 ORDER BY emp.id;
SELECT COUNT(*) FROM emp, dept;
SELECT COUNT(*) FROM emp CROSS JOIN dept;
SELECT COUNT(*) FROM emp JOIN dept;
SELECT e.id, d.code FROM emp e CROSS JOIN dept d WHERE e.id < 3 ORDER BY e.id, d.code;
SELECT * FROM emp e JOIN dept d ON e.dept = d.code ORDER BY e.id;
SELECT d.*, e.name FROM emp e JOIN dept d ON e.dept = d.code ORDER BY e.id;
SELECT e.*, d.title FROM emp e JOIN dept d ON e.dept = d.code WHERE e.id = 2;
SELECT diff_joins.emp.name, diff_joins.dept.title FROM diff_joins.emp JOIN diff_joins.dept ON diff_joins.emp.dept = diff_joins.dept.code ORDER BY 1;
SELECT e.name FROM emp e JOIN dept d ON e.dept = d.code WHERE d.title = 'Sales' ORDER BY e.name DESC;

-- Self joins and three or more tables.
SELECT e.name, b.name AS boss FROM emp e JOIN emp b ON e.boss = b.id ORDER BY e.id;
SELECT e.name, b.name, bb.name FROM emp e, emp b, emp bb WHERE e.boss = b.id AND b.boss = bb.id ORDER BY e.id;
SELECT p.pid, e.name, d.title FROM project p JOIN emp e ON p.lead = e.id JOIN dept d ON e.dept = d.code ORDER BY p.pid;
SELECT p.pid, e.name, d.title FROM project p, emp e, dept d WHERE p.lead = e.id AND d.code = p.dept AND d.floor IS NOT NULL ORDER BY p.pid;
SELECT p.pid, e.name, d.title FROM dept d, emp e, project p WHERE p.lead = e.id AND e.dept = d.code AND p.pid > 10 ORDER BY p.pid;
SELECT e.name FROM emp e JOIN (dept d JOIN project p ON p.dept = d.code) ON e.id = p.lead ORDER BY e.name, p.pid;

-- NULLs in join keys and duplicates.
SELECT x.a, x.b, y.b, y.c FROM pair x JOIN pair2 y ON x.a = y.a ORDER BY x.a, x.b, y.b, y.c;
SELECT COUNT(*) FROM pair x JOIN pair2 y ON x.b = y.b;
SELECT x.a, y.c FROM pair x JOIN pair2 y ON x.a <=> y.a ORDER BY x.a, y.c;
SELECT x.a, x.b, y.c FROM pair x LEFT JOIN pair2 y ON x.b = y.b ORDER BY x.a, x.b, y.c;

-- LEFT and RIGHT joins: unmatched rows get NULLs; WHERE applies after.
SELECT e.name, d.title FROM emp e LEFT JOIN dept d ON e.dept = d.code ORDER BY e.id;
SELECT e.name, d.title FROM emp e LEFT OUTER JOIN dept d ON e.dept = d.code WHERE d.code IS NULL ORDER BY e.id;
SELECT e.name, d.title FROM emp e LEFT JOIN dept d ON e.dept = d.code AND d.floor > 1 ORDER BY e.id;
SELECT e.name, d.title FROM emp e LEFT JOIN dept d ON e.dept = d.code WHERE d.floor > 1 ORDER BY e.id;
SELECT e.name, d.title FROM emp e LEFT JOIN dept d ON e.dept = d.code AND e.id > 4 ORDER BY e.id;
SELECT d.code, e.name FROM emp e RIGHT JOIN dept d ON e.dept = d.code ORDER BY d.code, e.name;
SELECT d.code, e.name FROM emp e RIGHT OUTER JOIN dept d ON e.dept = d.code WHERE e.id IS NULL ORDER BY d.code;
SELECT * FROM emp e RIGHT JOIN dept d ON e.dept = d.code ORDER BY d.code, e.id;
SELECT d.code, COUNT(e.id) FROM dept d LEFT JOIN emp e ON e.dept = d.code GROUP BY d.code ORDER BY d.code;
SELECT e.name, d.title, p.pid FROM emp e LEFT JOIN dept d ON e.dept = d.code LEFT JOIN project p ON p.lead = e.id ORDER BY e.id, p.pid;
SELECT e.name, p.pid, d.title FROM emp e LEFT JOIN project p ON p.lead = e.id LEFT JOIN dept d ON p.dept = d.code ORDER BY e.id, p.pid;
SELECT e.name, p.pid, d.title FROM emp e LEFT JOIN (project p JOIN dept d ON p.dept = d.code) ON p.lead = e.id ORDER BY e.id, p.pid;
SELECT e.name, x.name FROM emp e LEFT JOIN emp x ON x.boss = e.id AND x.dept = e.dept ORDER BY e.id, x.id;
SELECT d.title, e.name FROM emp e LEFT JOIN project p ON p.lead = e.id RIGHT JOIN dept d ON d.code = p.dept ORDER BY d.code, e.name;
SELECT e.name, n.id FROM emp e LEFT JOIN nothing n ON n.dept = e.dept ORDER BY e.id;
SELECT COUNT(*), COUNT(n.id) FROM emp e LEFT JOIN nothing n ON n.id = e.id;

-- Empty tables.
SELECT e.name FROM emp e JOIN nothing n ON n.id = e.id;
SELECT COUNT(*) FROM emp, nothing;
SELECT n.id, e.name FROM nothing n LEFT JOIN emp e ON e.id = n.id;
SELECT COUNT(*) FROM nothing n RIGHT JOIN emp e ON e.id = n.id;

-- USING and NATURAL: common columns first in `*`.
SELECT * FROM pair JOIN pair2 USING (a) ORDER BY a, pair.b, c;
SELECT * FROM pair JOIN pair2 USING (a, b) ORDER BY a, b, c;
SELECT * FROM pair NATURAL JOIN pair2 ORDER BY a, b, c;
SELECT * FROM pair LEFT JOIN pair2 USING (a) ORDER BY a, pair.b, c;
SELECT * FROM pair RIGHT JOIN pair2 USING (a, b) ORDER BY a, b, c;
SELECT * FROM pair NATURAL LEFT JOIN pair2 ORDER BY a, b, c;
SELECT * FROM pair NATURAL RIGHT JOIN pair2 ORDER BY a, b, c;
SELECT a, pair.a, pair2.a FROM pair RIGHT JOIN pair2 USING (a) ORDER BY c, pair.b;
SELECT pair2.* FROM pair JOIN pair2 USING (a) ORDER BY c, pair.b;
SELECT e.name, d.title FROM emp e JOIN dept d ON e.dept = d.code JOIN project p USING (dept) ORDER BY p.pid, e.id;
SELECT dept, COUNT(*) FROM emp JOIN project USING (dept) GROUP BY dept ORDER BY dept;

-- Aggregates, grouping, HAVING, DISTINCT, LIMIT over joins.
SELECT d.title, COUNT(*), MIN(e.name), MAX(e.id) FROM emp e JOIN dept d ON e.dept = d.code GROUP BY d.title ORDER BY d.title;
SELECT d.title, SUM(p.budget) FROM dept d JOIN project p ON p.dept = d.code GROUP BY d.title HAVING SUM(p.budget) > 100 ORDER BY 1;
SELECT DISTINCT d.floor FROM emp e JOIN dept d ON e.dept = d.code ORDER BY d.floor;
SELECT e.name, d.floor FROM emp e JOIN dept d ON e.dept = d.code ORDER BY d.floor DESC, e.name LIMIT 3;
SELECT e.name, d.floor FROM emp e JOIN dept d ON e.dept = d.code ORDER BY d.floor, e.name LIMIT 2, 2;
SELECT COUNT(DISTINCT e.dept) FROM emp e, project p WHERE p.lead = e.id;
SELECT e.dept, COUNT(p.pid) AS n FROM emp e LEFT JOIN project p ON p.lead = e.id GROUP BY e.dept ORDER BY n DESC, e.dept;
SELECT CONCAT(e.name, '@', d.code) AS who FROM emp e JOIN dept d ON d.code = e.dept ORDER BY who;

-- Parameters (the prepared pass binds literals as parameters too).
SELECT e.name FROM emp e JOIN dept d ON e.dept = d.code AND d.floor = 3 WHERE e.id > 1 ORDER BY e.id;
SELECT e.name, d.title FROM emp e LEFT JOIN dept d ON e.dept = d.code WHERE e.id IN (1, 5, 8) ORDER BY e.id;

-- Locking reads over a join read like plain ones.
SELECT e.name FROM emp e JOIN dept d ON e.dept = d.code WHERE d.code = 'ops' FOR UPDATE;

-- Errors: 1052 ambiguous, 1066 duplicate alias, 1054 unknown column per clause.
SELECT dept FROM emp, project;
SELECT name FROM emp JOIN emp b ON emp.boss = b.id;
SELECT 1 FROM emp JOIN emp;
SELECT 1 FROM emp e, dept e;
SELECT 1 FROM emp JOIN dept ON nosuch = 1;
SELECT 1 FROM emp JOIN dept ON project.pid = 1;
SELECT 1 FROM emp, dept JOIN project ON emp.id = project.lead;
SELECT 1 FROM emp JOIN dept ON emp.dept = dept.code WHERE nosuch = 1;
SELECT nosuch FROM emp JOIN dept ON emp.dept = dept.code;
SELECT e.nosuch FROM emp e JOIN dept d ON e.dept = d.code;
SELECT 1 FROM emp JOIN dept ON emp.dept = dept.code ORDER BY nosuch;
SELECT 1 FROM emp JOIN dept ON emp.dept = dept.code GROUP BY nosuch;
SELECT 1 FROM emp JOIN project USING (nosuch);
SELECT 1 FROM emp JOIN dept ON emp.dept = dept.code JOIN project USING (dept);
SELECT x.* FROM emp JOIN dept ON emp.dept = dept.code;
SELECT 1 FROM emp LEFT JOIN dept;
