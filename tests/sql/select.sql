-- SELECT: predicates, ordering, limits, DISTINCT, grouping, aggregates.

CREATE TABLE emp (
  id INT PRIMARY KEY,
  name VARCHAR(20) NOT NULL,
  dept VARCHAR(10),
  salary DECIMAL(10,2),
  age INT,
  KEY k_dept (dept)
);
INSERT INTO emp VALUES
  (1, 'Alice', 'eng', 120000.00, 34),
  (2, 'Bob', 'eng', 95000.50, 45),
  (3, 'Carol', 'sales', 70000.00, 29),
  (4, 'Dan', 'sales', 70000.00, NULL),
  (5, 'Eve', NULL, 50000.25, 23),
  (6, 'Frank', 'ops', NULL, 51),
  (7, 'Grace', 'eng', 130000.00, 38),
  (8, 'heidi', 'ops', 61000.00, 27);

SELECT * FROM emp;
SELECT id, name FROM emp WHERE id = 3;
SELECT id FROM emp WHERE age < 30;
SELECT id FROM emp WHERE age > 40;
SELECT id FROM emp WHERE age <= 29 OR age >= 51;
SELECT id FROM emp WHERE age <> 34;
SELECT id FROM emp WHERE age != 34;
SELECT id FROM emp WHERE age BETWEEN 29 AND 38;
SELECT id FROM emp WHERE age NOT BETWEEN 29 AND 38;
SELECT id FROM emp WHERE id IN (1, 3, 5, 99);
SELECT id FROM emp WHERE id NOT IN (1, 3, 5);
SELECT id FROM emp WHERE dept IN ('eng', NULL);
SELECT id FROM emp WHERE dept NOT IN ('eng', NULL);
SELECT id FROM emp WHERE name LIKE 'A%';
SELECT id FROM emp WHERE name LIKE '%a%';
SELECT id FROM emp WHERE name LIKE '_a%';
SELECT id FROM emp WHERE name NOT LIKE '%e%';
SELECT id FROM emp WHERE name LIKE 'h%';
SELECT id FROM emp WHERE dept IS NULL;
SELECT id FROM emp WHERE dept IS NOT NULL;
SELECT id FROM emp WHERE salary IS NULL OR age IS NULL;
SELECT id FROM emp WHERE dept = 'eng' AND salary > 100000;
SELECT id FROM emp WHERE dept = 'eng' OR dept = 'ops';
SELECT id FROM emp WHERE NOT (dept = 'eng');
SELECT id FROM emp WHERE NOT dept = 'eng' AND age > 25;
SELECT id FROM emp WHERE (dept = 'eng' OR dept = 'sales') AND NOT age > 40;
SELECT id FROM emp WHERE dept = NULL;
SELECT id FROM emp WHERE dept <=> NULL;
SELECT id FROM emp WHERE age > 30 XOR dept = 'eng';

-- ORDER BY, LIMIT, OFFSET.
SELECT id, name FROM emp ORDER BY name;
SELECT id, age FROM emp ORDER BY age, id;
SELECT id, age FROM emp ORDER BY age DESC, id;
SELECT id, salary FROM emp ORDER BY salary DESC, id DESC;
SELECT id FROM emp ORDER BY id LIMIT 3;
SELECT id FROM emp ORDER BY id LIMIT 3 OFFSET 2;
SELECT id FROM emp ORDER BY id LIMIT 2, 3;
SELECT id FROM emp ORDER BY id LIMIT 0;
SELECT id FROM emp ORDER BY id LIMIT 100 OFFSET 7;
SELECT id, name FROM emp ORDER BY 2 DESC;
SELECT id, age * 2 AS a2 FROM emp ORDER BY a2, id;
SELECT id FROM emp ORDER BY dept, id;

-- DISTINCT.
SELECT DISTINCT dept FROM emp;
SELECT DISTINCT dept, salary FROM emp;
SELECT COUNT(DISTINCT dept), COUNT(DISTINCT salary) FROM emp;

-- Aggregates.
SELECT COUNT(*), COUNT(dept), COUNT(salary), COUNT(age) FROM emp;
SELECT SUM(salary), MIN(salary), MAX(salary), AVG(salary) FROM emp;
SELECT SUM(age), AVG(age), MIN(name), MAX(name) FROM emp;
SELECT COUNT(*), SUM(age), AVG(age), MIN(age) FROM emp WHERE id > 100;

-- GROUP BY and HAVING.
SELECT dept, COUNT(*) FROM emp GROUP BY dept;
SELECT dept, COUNT(*), SUM(salary), AVG(age) FROM emp GROUP BY dept ORDER BY dept;
SELECT dept, MAX(salary) FROM emp GROUP BY dept HAVING MAX(salary) > 65000 ORDER BY dept;
SELECT dept, COUNT(*) AS n FROM emp GROUP BY dept HAVING n >= 2 ORDER BY n DESC, dept;
SELECT dept, salary, COUNT(*) FROM emp GROUP BY dept, salary ORDER BY dept, salary;
SELECT age > 30 AS older, COUNT(*) FROM emp GROUP BY older ORDER BY older;
SELECT COUNT(*) FROM emp HAVING COUNT(*) > 100;

-- Expressions in the select list, aliases, constants.
SELECT id, name, salary / 12 AS monthly FROM emp WHERE salary IS NOT NULL ORDER BY id;
SELECT id, CONCAT(name, '@', IFNULL(dept, 'none')) AS who FROM emp ORDER BY id;
SELECT 1, 'a', NULL, 2.5, -3;
SELECT e.id, e.name FROM emp AS e WHERE e.age > 40 ORDER BY e.id;
SELECT id FROM emp WHERE salary = 70000;
SELECT id FROM emp WHERE salary = '70000.00';
SELECT id FROM emp WHERE name = 'alice';

-- Subqueries and joins that simple OLTP apps use.
SELECT id FROM emp WHERE salary = (SELECT MAX(salary) FROM emp);
SELECT id FROM emp WHERE dept IN (SELECT dept FROM emp WHERE age > 45);
SELECT COUNT(*) FROM (SELECT dept FROM emp GROUP BY dept) AS d;
CREATE TABLE dept (code VARCHAR(10) PRIMARY KEY, title VARCHAR(20));
INSERT INTO dept VALUES ('eng', 'Engineering'), ('sales', 'Sales'), ('hr', 'People');
SELECT e.name, d.title FROM emp e JOIN dept d ON e.dept = d.code ORDER BY e.id;
SELECT e.name, d.title FROM emp e LEFT JOIN dept d ON e.dept = d.code ORDER BY e.id;
SELECT d.code, COUNT(e.id) FROM dept d LEFT JOIN emp e ON e.dept = d.code GROUP BY d.code ORDER BY d.code;

-- Point and range access by primary key.
SELECT name FROM emp WHERE id = 7;
SELECT name FROM emp WHERE id BETWEEN 2 AND 4 ORDER BY id;
SELECT name FROM emp WHERE id > 6;
SELECT name FROM emp WHERE id = 42;

-- GROUP_CONCAT: ORDER BY (columns, expressions, DESC, argument positions), several
-- arguments (a NULL among them skips the row), SEPARATOR, DISTINCT with ORDER BY.
SELECT dept, GROUP_CONCAT(name ORDER BY name) FROM emp GROUP BY dept ORDER BY dept;
SELECT dept, GROUP_CONCAT(name ORDER BY salary DESC, id SEPARATOR ' > ') FROM emp GROUP BY dept ORDER BY dept;
SELECT GROUP_CONCAT(id, ':', name ORDER BY id DESC) FROM emp;
SELECT GROUP_CONCAT(name, '/', age ORDER BY 3, 1) FROM emp;
SELECT GROUP_CONCAT(name, age) FROM emp WHERE id < 5;
SELECT GROUP_CONCAT(DISTINCT dept ORDER BY dept DESC) FROM emp;
SELECT GROUP_CONCAT(age ORDER BY LOWER(name)) FROM emp WHERE age > 100;
SELECT GROUP_CONCAT(name ORDER BY age IS NULL, age) FROM emp;
SELECT dept, GROUP_CONCAT(salary ORDER BY salary) AS s FROM emp GROUP BY dept HAVING s LIKE '7%' ORDER BY dept;
SELECT GROUP_CONCAT(name ORDER BY 2) FROM emp;
SELECT GROUP_CONCAT(name ORDER BY 0) FROM emp;
SELECT GROUP_CONCAT(name ORDER BY -1) FROM emp;
SELECT GROUP_CONCAT(name, dept ORDER BY 2 DESC, 1) FROM emp;

DROP TABLE emp, dept;
