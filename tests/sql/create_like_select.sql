-- CREATE TABLE ... LIKE (columns, keys, defaults, comments, AUTO_INCREMENT; no rows, the
-- counter starts over) and CREATE TABLE ... SELECT (column types from the query's result,
-- defined columns first, a failing query leaves no table), with their errors.

CREATE TABLE src (id INT AUTO_INCREMENT PRIMARY KEY, a VARCHAR(10) NOT NULL DEFAULT 'q' COMMENT 'cc',
  b DECIMAL(5,2), d DATETIME, UNIQUE KEY ua (a), KEY kb (b)) AUTO_INCREMENT = 50 COMMENT = 'tc';
INSERT INTO src (a, b, d) VALUES ('x', 1.5, '2024-01-02 03:04:05'), ('y', NULL, NULL), ('z', 2.25, NULL);

-- LIKE.
CREATE TABLE cp LIKE src;
SHOW CREATE TABLE cp;
SELECT COUNT(*) FROM cp;
INSERT INTO cp (a) VALUES ('k');
SELECT * FROM cp;
INSERT INTO cp (a) VALUES ('k');
CREATE TABLE cp LIKE src;
CREATE TABLE IF NOT EXISTS cp LIKE src;
CREATE TABLE cp2 LIKE nosuch;
CREATE TABLE nosuchdb.cp4 LIKE src;
CREATE TABLE cp5 LIKE cp;
SHOW CREATE TABLE cp5;
DROP TABLE cp, cp5;

-- SELECT: columns of tables keep their definitions.
CREATE TABLE s2 AS SELECT * FROM src;
SHOW CREATE TABLE s2;
SELECT * FROM s2 ORDER BY id;
CREATE TABLE s3 SELECT a, b AS bee FROM src WHERE id > 50;
SHOW CREATE TABLE s3;
SELECT * FROM s3 ORDER BY a;
-- Defined columns first, then the query's others.
CREATE TABLE s4 (x INT PRIMARY KEY, note VARCHAR(5) DEFAULT 'n') SELECT id AS x, a FROM src;
SHOW CREATE TABLE s4;
SELECT * FROM s4 ORDER BY x;
-- Expressions.
CREATE TABLE s5 SELECT id * 2 AS i2, COUNT(*) AS n FROM src GROUP BY id;
SELECT * FROM s5 ORDER BY i2;
CREATE TABLE s6 SELECT 1 AS a, NULL AS e;
SELECT * FROM s6;
-- A join, and nothing selected.
CREATE TABLE s7 SELECT src.a, s4.x FROM src JOIN s4 ON s4.a = src.a WHERE src.id > 1000;
SHOW CREATE TABLE s7;
SELECT COUNT(*) FROM s7;

-- An integer expression's column is as wide as its values can print (int(3) for 1 + 1,
-- int(1) for a comparison, bigint(21) for LAST_INSERT_ID()), as MariaDB sizes it.
CREATE TABLE s8 SELECT 1 AS a, 1 + 1 AS b, 100 * 100 AS c, -5 AS d, 2 > 1 AS e, 'a' LIKE 'b' AS f, LAST_INSERT_ID() AS g, CAST(7 AS SIGNED) AS h;
SHOW CREATE TABLE s8;
DROP TABLE s8;

-- Errors leave no table.
CREATE TABLE e1 SELECT * FROM nosuch;
CREATE TABLE e2 SELECT 1 / 0 AS x;
CREATE TABLE e3 (a INT) SELECT 'x' AS a;
CREATE TABLE e4 (id INT PRIMARY KEY) SELECT 1 AS id UNION ALL SELECT 1;
CREATE TABLE e5 SELECT 1 AS a, 2 AS a;
CREATE TABLE s2 SELECT 1 AS a;
CREATE TABLE IF NOT EXISTS s2 SELECT 1 AS a;
SELECT COUNT(*) FROM s2;
SHOW TABLES;
SELECT * FROM e1;
SELECT * FROM e4;

-- Keys may name the query's columns, with or without columns of their own.
CREATE TABLE k1 (PRIMARY KEY (id)) SELECT id, a FROM src;
SHOW CREATE TABLE k1;
CREATE TABLE k2 (extra INT DEFAULT 7, PRIMARY KEY (id), KEY (b)) SELECT id, b FROM src WHERE id < 60;
SHOW CREATE TABLE k2;
SELECT * FROM k2 ORDER BY id;
CREATE TABLE k3 (b VARCHAR(40), UNIQUE KEY u (b, id)) SELECT id, a, b FROM src WHERE id < 60;
SHOW CREATE TABLE k3;
CREATE TABLE k4 (UNIQUE (b(2))) SELECT b FROM src WHERE id < 52;
SHOW CREATE TABLE k4;
CREATE TABLE k5 (CHECK (id > 0)) COMMENT 'checked' SELECT id FROM src WHERE id < 52;
SHOW CREATE TABLE k5;
CREATE TABLE k6 COMMENT 'kept' SELECT 1 AS one;
SHOW CREATE TABLE k6;
-- Bad keys: an unknown column, a key naming a duplicated one, a duplicate in the rows.
CREATE TABLE k7 (PRIMARY KEY (nope)) SELECT id FROM src;
CREATE TABLE k8 (KEY (id)) SELECT id, id FROM src;
CREATE TABLE k9 (PRIMARY KEY (a)) SELECT a FROM src UNION ALL SELECT a FROM src;
SELECT * FROM k9;
