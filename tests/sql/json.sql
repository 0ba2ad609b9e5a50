-- JSON: the column type (MariaDB's alias of LONGTEXT with utf8mb4_bin and an automatic
-- CHECK (json_valid(col))) and the JSON functions, their output text (MariaDB prints
-- `{"a": 1, "b": [1, 2]}` whatever the input's spacing, numbers and strings as written),
-- their result types, and their warnings for bad JSON text (4037, 4038), nesting deeper
-- than 32 (4040) and bad paths (4041, 4042, 4044).
-- Also: JSON read through derived tables, views, CTEs and scalar subqueries stays JSON;
-- ALTER TABLE ADD/MODIFY/CHANGE of a JSON column; JSON_ARRAYAGG and JSON_OBJECTAGG.
-- Not here, as manycore differs: a JSON column declared with its own CHECK shows with the
-- collation; JSON_ARRAYAGG's LIMIT (1235 in manycore).

-- The type.
CREATE TABLE j1 (id INT PRIMARY KEY, doc JSON);
SHOW CREATE TABLE j1;
SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, CHARACTER_SET_NAME, COLLATION_NAME, CHARACTER_MAXIMUM_LENGTH FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'j1' ORDER BY ORDINAL_POSITION;
SELECT CONSTRAINT_NAME, LEVEL, CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE() AND TABLE_NAME = 'j1';
SHOW COLUMNS FROM j1;
SHOW FULL COLUMNS FROM j1;
INSERT INTO j1 VALUES (1, '{"a": 1, "b": [1, 2]}');
INSERT INTO j1 VALUES (2, 'not json');
INSERT INTO j1 VALUES (2, '');
INSERT INTO j1 VALUES (2, '{"a":');
INSERT INTO j1 VALUES (2, NULL), (3, '[1,  2]'), (4, '"text"'), (5, ' 12 ');
UPDATE j1 SET doc = '[' WHERE id = 3;
UPDATE j1 SET doc = '{"é": "ü"}' WHERE id = 3;
SELECT id, doc FROM j1 ORDER BY id;
SELECT doc, JSON_EXTRACT(doc, '$.a'), JSON_TYPE(doc), JSON_LENGTH(doc) FROM j1 WHERE id = 1;
-- NOT NULL, DEFAULT, several JSON columns, a table-level CHECK besides, LIKE.
CREATE TABLE j2 (doc JSON NOT NULL DEFAULT '{}', d3 JSON DEFAULT NULL, id INT, CHECK (id > 0));
SHOW CREATE TABLE j2;
INSERT INTO j2 (id) VALUES (1);
INSERT INTO j2 (id, d3) VALUES (2, '[');
INSERT INTO j2 (id, doc) VALUES (0, '[]');
SELECT * FROM j2;
CREATE TABLE j3 LIKE j1;
SHOW CREATE TABLE j3;
INSERT INTO j3 VALUES (1, 'x');

-- JSON_VALID: no warning for bad text.
SELECT JSON_VALID('{}'), JSON_VALID('[1,'), JSON_VALID(NULL), JSON_VALID(''), JSON_VALID('1'), JSON_VALID(' "x" '), JSON_VALID('{"a":1,"a":2}'), JSON_VALID('nul');
SHOW WARNINGS;
SELECT JSON_VALID('[1, 2.5e-3, -0, true, false, null, "\\u00e9", {"k": []}]'), JSON_VALID('[01]'), JSON_VALID('[1.]'), JSON_VALID('{"a" 1}');
SHOW WARNINGS;
SELECT JSON_VALID(CONCAT(REPEAT('[', 31), REPEAT(']', 31))), JSON_VALID(CONCAT(REPEAT('[', 32), REPEAT(']', 32)));
SELECT JSON_VALID(CONCAT(REPEAT('[', 5000), REPEAT(']', 5000)));
SHOW WARNINGS;

-- JSON_EXTRACT: one path gives the value, several (or a wildcard) an array.
SELECT JSON_EXTRACT('{"a":  {"b" :[1,  2]}, "c":"x"}', '$.a') AS r1, JSON_EXTRACT('{"a":  {"b" :[1,  2]}}', '$.a.b[1]') AS r2, JSON_EXTRACT('{"a":1,"c":"x"}', '$.c') AS r3;
SELECT JSON_EXTRACT('{"a":1,"b":[1, 2]}', '$.a', '$.b') AS r4, JSON_EXTRACT('[1,[2,3],{"x":4}]', '$[*]') AS r5, JSON_EXTRACT('{"a":1,"b":{"a":2}}', '$**.a') AS r6, JSON_EXTRACT('{"a":1,"b":2}', '$.*') AS r7;
SELECT JSON_EXTRACT('{"a":1}', '$.z') AS r8, JSON_EXTRACT('{"a":1}', '$.z', '$.a') AS r9, JSON_EXTRACT('[1,2]', '$[5]') AS r10, JSON_EXTRACT('{"a b":3}', '$."a b"') AS r11;
SELECT JSON_EXTRACT('[1,2]', '$[last]'), JSON_EXTRACT('[[1]]', '$[0][0]'), JSON_EXTRACT('{"a":1}', '$**.a'), JSON_EXTRACT(' [1 , 2] ', '$');
SELECT JSON_EXTRACT('{"a" : "x\\u0041" , "b":[ ]}', '$'), JSON_EXTRACT('{"a":"x\\ny"}', '$.a'), JSON_EXTRACT('{"a":null}', '$.a'), JSON_EXTRACT('{"a":1.50e0}', '$.a');
SELECT JSON_EXTRACT('{"a":1}', '$.a', NULL), JSON_EXTRACT(NULL, '$'), JSON_EXTRACT('[1]', NULL);
SELECT JSON_EXTRACT('{"é":{"ü":"ñ"}}', '$.é.ü'), JSON_EXTRACT('[{"a":1},{"a":2},{"b":3}]', '$[*].a');
SELECT JSON_EXTRACT('{"a":1', '$.a');
SHOW WARNINGS;
SELECT JSON_EXTRACT('{"a":1}', 'a');
SHOW WARNINGS;
SELECT JSON_EXTRACT('{"a":1}', '$.a[');
SHOW WARNINGS;
SELECT JSON_EXTRACT('[1]', '$[a]');
SHOW WARNINGS;
SELECT JSON_EXTRACT('[1]', '$x');
SHOW WARNINGS;
SELECT JSON_EXTRACT('{"a":1}', '$."a');
SHOW WARNINGS;
SELECT JSON_EXTRACT(CONCAT(REPEAT('[', 40), REPEAT(']', 40)), '$');
SHOW WARNINGS;
SELECT JSON_EXTRACT('{"a":1,}', '$');
SHOW WARNINGS;
SELECT JSON_EXTRACT('[1 2]', '$');
SHOW WARNINGS;
SELECT JSON_EXTRACT('["é", x]', '$');
SHOW WARNINGS;
SELECT JSON_EXTRACT('tru', '$');
SHOW WARNINGS;
SELECT JSON_EXTRACT('[1]');

-- JSON_UNQUOTE, JSON_QUOTE, JSON_VALUE.
SELECT JSON_UNQUOTE('"a\\tb\\u00e9"'), JSON_UNQUOTE('abc'), JSON_UNQUOTE('"\\"x\\""'), JSON_UNQUOTE(NULL), JSON_UNQUOTE(JSON_EXTRACT('{"a":"é"}', '$.a'));
SELECT JSON_QUOTE('a"b\\c\n'), JSON_QUOTE(''), JSON_QUOTE(NULL), JSON_QUOTE('é/x'), JSON_QUOTE(1);
SELECT JSON_VALUE('{"a":"x\\ny"}', '$.a'), JSON_VALUE('{"a":{"b":1}}', '$.a'), JSON_VALUE('{"a":1.50}', '$.a'), JSON_VALUE('{"a":null}', '$.a'), JSON_VALUE('{"a":[1,2]}', '$.a[1]');
SELECT JSON_VALUE('[1]', '$[*]');
SHOW WARNINGS;

-- JSON_OBJECT, JSON_ARRAY: SQL values become JSON; JSON from a JSON function is kept.
SELECT JSON_OBJECT('a',1,'b','x','c',NULL,'e',1.5, 'f', JSON_ARRAY(1,2)) AS r17, JSON_ARRAY(1,'a',NULL,2.50,JSON_OBJECT()) AS r18, JSON_ARRAY() AS r19, JSON_OBJECT() AS r20;
SELECT JSON_ARRAY('a"b', 'é', 1e0, 0.1e0, -5, CAST(1 AS UNSIGNED)), JSON_OBJECT('k"', 'v\n'), JSON_OBJECT(NULL, 1);
SELECT JSON_OBJECT('a', JSON_EXTRACT('{"x":[1, 2]}', '$.x'), 'b', '[1, 2]');
SELECT JSON_OBJECT('a');

-- JSON_LENGTH, JSON_DEPTH, JSON_TYPE, JSON_KEYS.
SELECT JSON_LENGTH('[1,2,[3]]'), JSON_LENGTH('{"a":1,"b":{"c":1}}'), JSON_LENGTH('1'), JSON_LENGTH('{"a":[1,2]}', '$.a'), JSON_LENGTH('{"a":1}', '$.z'), JSON_LENGTH(NULL);
SELECT JSON_LENGTH('[');
SHOW WARNINGS;
SELECT JSON_LENGTH('[1,2]', '$[*]');
SHOW WARNINGS;
SELECT JSON_LENGTH('{"a":1}', 'x');
SHOW WARNINGS;
SELECT JSON_DEPTH('[[[1]]]'), JSON_DEPTH('1'), JSON_DEPTH('{}'), JSON_DEPTH('{"a":[1, {"b": 2}]}');
SELECT JSON_TYPE('{}'), JSON_TYPE('[]'), JSON_TYPE('1'), JSON_TYPE('1.5'), JSON_TYPE('"s"'), JSON_TYPE('true'), JSON_TYPE('null'), JSON_TYPE('1e2'), JSON_TYPE('-1'), JSON_TYPE(NULL);
SELECT JSON_TYPE('bad');
SHOW WARNINGS;
SELECT JSON_KEYS('{"b":1,"a":{"c":2}}'), JSON_KEYS('{"b":1,"a":{"c":2}}', '$.a'), JSON_KEYS('[1]'), JSON_KEYS('{}'), JSON_KEYS(NULL), JSON_KEYS('{"a":1}', '$.z');
SELECT JSON_KEYS('{"a":1}', '$[*]');
SHOW WARNINGS;

-- On a table's column, and with parameters (the prepared pass binds them).
CREATE TABLE j4 (id INT PRIMARY KEY, doc JSON, note VARCHAR(20));
INSERT INTO j4 VALUES (1, '{"name": "ann", "tags": ["x", "y"], "age": 30}', 'a'), (2, '{"name": "bob", "tags": [], "age": null}', NULL), (3, '[1, 2, 3]', 'c');
SELECT id, JSON_EXTRACT(doc, '$.name'), JSON_UNQUOTE(JSON_EXTRACT(doc, '$.name')), JSON_LENGTH(doc, '$.tags'), JSON_TYPE(JSON_EXTRACT(doc, '$.age')) FROM j4 ORDER BY id;
SELECT id FROM j4 WHERE JSON_VALUE(doc, '$.name') = 'bob';
SELECT id, JSON_ARRAY(id, note), JSON_OBJECT('n', note) FROM j4 ORDER BY id;
SELECT JSON_EXTRACT(doc, CONCAT('$.tags[', id - 1, ']')) FROM j4 ORDER BY id;
UPDATE j4 SET doc = JSON_OBJECT('replaced', id) WHERE id = 3;
SELECT doc FROM j4 WHERE id = 3;
SET @d = '{"k": [1, {"m": "n"}]}', @p = '$.k[1].m', @bad = '{', @good = '{"ok": true}';
SELECT JSON_EXTRACT(@d, @p), JSON_VALID(@d), JSON_OBJECT(@p, @d), JSON_VALID(@bad), JSON_TYPE(@good);
INSERT INTO j4 VALUES (10, @bad, NULL);
INSERT INTO j4 VALUES (10, @good, NULL);
SELECT id, doc FROM j4 WHERE id = 10;
-- JSON_OBJECT and JSON_ARRAY embed booleans as true/false and a JSON column as JSON.
SELECT JSON_ARRAY(TRUE, FALSE, (TRUE), TRUE + 0, 1, 1 = 1, NOT 0, 'a' LIKE 'a', 2 IN (1, 2), NULL IS NULL, 1 BETWEEN 0 AND 2, 'a' REGEXP 'a', JSON_VALID('1'), 1 < NULL);
SELECT id, JSON_OBJECT('doc', doc, 'note', note, 'big', id > 1) FROM j4 ORDER BY id;
SELECT JSON_ARRAY(doc, CONCAT(doc)) FROM j4 WHERE id = 10;
SELECT JSON_VALID('nx'), JSON_VALID('fals'), JSON_VALID('falsy'), JSON_VALID('x'), JSON_VALID('nul');
SHOW WARNINGS;
INSERT IGNORE INTO j4 VALUES (11, '{"fine": 1}', NULL), (12, 'not json', NULL);
INSERT IGNORE INTO j4 VALUES (13, 'not json', NULL);
SHOW WARNINGS;
SELECT id, doc FROM j4 WHERE id > 10 ORDER BY id;
DROP TABLE j1, j2, j3, j4;

-- JSON read through a derived table, a view, a CTE, a UNION or a scalar subquery is still
-- JSON to JSON_OBJECT and JSON_ARRAY; CONCAT of it, or a table made by CREATE ... SELECT,
-- is a string.
CREATE TABLE jt (id INT, j JSON);
INSERT INTO jt VALUES (1, '{"a": [1, 2]}');
SELECT JSON_OBJECT('x', d.j) FROM (SELECT j FROM jt) d;
SELECT JSON_OBJECT('x', (SELECT j FROM jt LIMIT 1));
SELECT JSON_ARRAY(d.k) FROM (SELECT j AS k FROM jt) d;
SELECT JSON_ARRAY(d.k) FROM (SELECT CONCAT(j) AS k FROM jt) d;
SELECT JSON_ARRAY(d.k) FROM (SELECT JSON_EXTRACT(j, '$.a') AS k FROM jt) d;
SELECT JSON_ARRAY(k) FROM (SELECT j AS k FROM jt UNION SELECT j FROM jt) d;
SELECT JSON_ARRAY(d.j) FROM (SELECT * FROM jt) d;
SELECT JSON_ARRAY(k) FROM (SELECT CONCAT(j) AS k FROM jt UNION SELECT j FROM jt) d;
SELECT JSON_ARRAY(k) FROM (SELECT j AS k FROM jt UNION ALL SELECT CONCAT(j) FROM jt) d;
SELECT JSON_ARRAY(e.j) FROM (SELECT j FROM (SELECT j FROM jt) d) e;
CREATE VIEW jv AS SELECT j FROM jt;
SELECT JSON_ARRAY(j) FROM jv;
WITH c AS (SELECT j FROM jt) SELECT JSON_ARRAY(j) FROM c;
CREATE TABLE jt2 AS SELECT j FROM jt;
SHOW CREATE TABLE jt2;
SELECT JSON_ARRAY(j) FROM jt2;
DROP VIEW jv;
DROP TABLE jt, jt2;

-- ALTER TABLE: an added JSON column gets the CHECK CREATE TABLE gives it (not checked
-- against the rows: MariaDB adds it in place); MODIFY or CHANGE to JSON checks the rows;
-- MODIFY drops the column's own CHECK with its old definition.
CREATE TABLE al (id INT PRIMARY KEY, t TEXT, c INT CHECK (c > 0)) DEFAULT CHARSET=utf8mb4;
INSERT INTO al VALUES (1, '{"a":1}', 1), (2, '[1]', 2);
ALTER TABLE al ADD COLUMN j JSON;
ALTER TABLE al ADD COLUMN j2 JSON NOT NULL DEFAULT '{}' AFTER id;
SHOW CREATE TABLE al;
INSERT INTO al (id, t, j) VALUES (3, 'x', 'bad');
ALTER TABLE al MODIFY t JSON;
SHOW CREATE TABLE al;
INSERT INTO al (id, t) VALUES (4, 'bad');
ALTER TABLE al MODIFY t TEXT;
INSERT INTO al (id, t) VALUES (4, 'bad');
ALTER TABLE al MODIFY t JSON;
SHOW WARNINGS;
DELETE FROM al WHERE id = 4;
ALTER TABLE al CHANGE t t2 JSON;
ALTER TABLE al MODIFY c BIGINT;
SHOW CREATE TABLE al;
SELECT id, JSON_ARRAY(t2, j2), JSON_OBJECT('j', j) FROM al ORDER BY id;
ALTER TABLE al MODIFY j JSON;
ALTER TABLE al ADD COLUMN j3 JSON DEFAULT 'x';
SELECT id, j3 FROM al ORDER BY id;
ALTER TABLE al DROP COLUMN j2;
SHOW CREATE TABLE al;
DROP TABLE al;

-- JSON_ARRAYAGG and JSON_OBJECTAGG: NULL values are `null`, NULL keys skipped; DISTINCT
-- lists values sorted, ORDER BY as asked; booleans and JSON embed as such; no rows give
-- NULL.
CREATE TABLE ag (g INT, k VARCHAR(10), v INT, j JSON, d DOUBLE) DEFAULT CHARSET=utf8mb4;
INSERT INTO ag VALUES (1,'b',1,'{"x": 1}',1.5),(1,'a',NULL,'[1,2]',NULL),(2,'c',3,NULL,2e0),(2,'c',3,'"s"',0.1),(3,NULL,4,'1',3);
SELECT g, JSON_ARRAYAGG(v), JSON_ARRAYAGG(k), JSON_ARRAYAGG(j), JSON_ARRAYAGG(d) FROM ag GROUP BY g ORDER BY g;
SELECT JSON_ARRAYAGG(v), JSON_ARRAYAGG(DISTINCT v), JSON_ARRAYAGG(DISTINCT k) FROM ag;
SELECT JSON_ARRAYAGG(v), JSON_OBJECTAGG(k, v) FROM ag WHERE g > 9;
SELECT JSON_ARRAYAGG(v > 1), JSON_ARRAYAGG(TRUE) FROM ag;
SELECT JSON_ARRAYAGG(v ORDER BY v DESC), JSON_ARRAYAGG(k ORDER BY k), JSON_ARRAYAGG(DISTINCT v ORDER BY v DESC) FROM ag;
SELECT g, JSON_ARRAYAGG(k ORDER BY v DESC, k) FROM ag GROUP BY g ORDER BY g;
SELECT JSON_ARRAYAGG(d ORDER BY g DESC, d) FROM ag WHERE d IS NOT NULL;
SELECT g, JSON_OBJECTAGG(k, v) FROM ag GROUP BY g ORDER BY g;
SELECT JSON_OBJECTAGG(k, j), JSON_OBJECTAGG(k, v) FROM ag;
SELECT JSON_OBJECT('x', JSON_ARRAYAGG(v)), JSON_ARRAYAGG(JSON_OBJECT('k', k)) FROM ag;
SELECT JSON_ARRAYAGG(v, k) FROM ag;
SELECT JSON_ARRAYAGG(v) OVER () FROM ag;
SELECT g, JSON_LENGTH(JSON_ARRAYAGG(v)) FROM ag GROUP BY g HAVING JSON_LENGTH(JSON_ARRAYAGG(v)) > 1 ORDER BY g;
DROP TABLE ag;
