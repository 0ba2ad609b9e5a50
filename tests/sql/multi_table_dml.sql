-- Multi-table UPDATE and DELETE: JOIN, comma and LEFT JOIN forms, each target row
-- written once however many joined rows match it, Rows matched / Changed, ORDER BY and
-- LIMIT (UPDATE only), subqueries, self-joins, USING, IGNORE, duplicate keys, and the
-- errors MariaDB gives (1052, 1054, 1062, 1064, 1066, 1093, 1109, 1288).

CREATE TABLE t1 (id INT PRIMARY KEY, a INT, b VARCHAR(10));
CREATE TABLE t2 (id INT PRIMARY KEY, t1_id INT, c INT, KEY k_t1 (t1_id));
CREATE TABLE t3 (x INT, y INT);
INSERT INTO t1 VALUES (1, 10, 'x'), (2, 20, 'y'), (3, 30, 'z');
INSERT INTO t2 VALUES (1, 1, 100), (2, 1, 200), (3, 2, 300), (4, 9, 400);
INSERT INTO t3 VALUES (1, 5), (2, 6), (2, 7);

-- Both tables, a row of t1 matched twice is updated once.
UPDATE t1 JOIN t2 ON t1.id = t2.t1_id SET t1.a = t1.a + 1, t2.c = t2.c + 1;
SELECT * FROM t1 ORDER BY id;
SELECT * FROM t2 ORDER BY id;
-- Comma join with WHERE.
UPDATE t1, t2 SET t1.b = 'j' WHERE t1.id = t2.t1_id AND t2.c > 200;
SELECT * FROM t1 ORDER BY id;
-- Nothing changes: matched but not changed.
UPDATE t1 JOIN t2 ON t1.id = t2.t1_id SET t1.b = t1.b;
UPDATE t1, t2 SET t1.a = 1 WHERE t1.id = 999;
-- Unqualified columns that only one table has.
UPDATE t1 JOIN t2 ON t1.id = t2.t1_id SET a = a * 2, c = 0 WHERE t2.id = 3;
SELECT * FROM t1 ORDER BY id;
SELECT * FROM t2 ORDER BY id;
-- A table without an index, read through a join.
UPDATE t1 JOIN t3 ON t1.id = t3.x SET t1.b = 'three', t3.y = t3.y + 100;
SELECT * FROM t1 ORDER BY id;
SELECT * FROM t3 ORDER BY x, y;
-- Database-qualified names, DEFAULT, NULL.
UPDATE t1, t3 SET t1.b = DEFAULT WHERE t1.id = t3.x AND t3.y > 106;
UPDATE t1 JOIN t2 ON t1.id = t2.t1_id SET t2.c = NULL WHERE t1.id = 2;
SELECT * FROM t1 ORDER BY id;
SELECT * FROM t2 ORDER BY id;
-- LEFT JOIN: a NULL-extended target row is not written.
UPDATE t2 LEFT JOIN t1 ON t1.id = t2.t1_id SET t1.a = 7, t2.c = 8;
SELECT * FROM t1 ORDER BY id;
SELECT * FROM t2 ORDER BY id;
-- Self-join under two aliases.
UPDATE t1 AS p JOIN t1 AS q ON p.id = q.id + 1 SET p.a = q.a + 1000;
SELECT * FROM t1 ORDER BY id;
-- USING: the unqualified common column is the left table's.
UPDATE t1 JOIN t2 USING (id) SET id = id + 10 WHERE t2.c = 999;
UPDATE t1 JOIN t2 USING (id) SET b = 'u';
SELECT * FROM t1 ORDER BY id;
-- A derived table and a subquery as sources of values.
UPDATE t1 JOIN (SELECT t1_id, COUNT(*) AS n FROM t2 GROUP BY t1_id) d ON d.t1_id = t1.id SET t1.a = d.n;
SELECT * FROM t1 ORDER BY id;
UPDATE t1 JOIN t2 ON t1.id = t2.t1_id SET t1.a = (SELECT MAX(c) FROM t2) WHERE t1.id = 1;
UPDATE t1 JOIN t2 ON t1.id = t2.t1_id SET t2.c = 5 WHERE t1.a IN (SELECT a FROM t1);
SELECT * FROM t1 ORDER BY id;
SELECT * FROM t2 ORDER BY id;
-- ORDER BY and LIMIT over the joined rows.
UPDATE t1 JOIN t2 ON t1.id = t2.t1_id SET t2.c = t2.id ORDER BY t2.id DESC LIMIT 2;
SELECT * FROM t2 ORDER BY id;
UPDATE t1 JOIN t2 ON t1.id = t2.t1_id SET t2.c = 0 LIMIT 0;
-- Duplicate keys, and IGNORE.
UPDATE t1 JOIN t2 ON t1.id = t2.t1_id SET t2.id = 1;
UPDATE IGNORE t1 JOIN t2 ON t1.id = t2.t1_id SET t2.id = 1;
SELECT * FROM t2 ORDER BY id;
-- Errors.
UPDATE t1 JOIN t2 ON t1.id = t2.t1_id SET id = 5;
UPDATE t1 JOIN t2 ON t1.id = t2.t1_id SET t1.zz = 5;
UPDATE t1 JOIN t2 ON t1.id = t2.t1_id SET zz = 5;
UPDATE t1 JOIN t2 ON t1.id = t2.t1_id SET t1.a = 5 WHERE zz = 1;
UPDATE t1 JOIN t2 ON t1.id = t2.t1_id SET t1.a = 5 ORDER BY zz;
UPDATE t1 JOIN t1 ON 1 SET t1.a = 1;
UPDATE t1 JOIN (SELECT 1 AS x) d ON 1 SET d.x = 1;
UPDATE t1 JOIN t2 ON t1.id = t2.t1_id SET nope.a = 1;
UPDATE t1, nosuch SET t1.a = 1;
UPDATE t1 JOIN t2 ON t1.id = t2.t1_id SET t1.a = 'abc';
UPDATE t1 JOIN t2 ON t1.id = t2.t1_id SET t1.a = 1/0;
SELECT * FROM t1 ORDER BY id;

-- DELETE with a target list.
DELETE t1 FROM t1 JOIN t2 ON t1.id = t2.t1_id WHERE t2.id = 99;
DELETE t2 FROM t2 JOIN t1 ON t1.id = t2.t1_id WHERE t1.id = 2;
SELECT * FROM t2 ORDER BY id;
DELETE t1.* FROM t1 JOIN t3 ON t1.id = t3.x WHERE t3.y > 200;
DELETE t1, t3 FROM t1 JOIN t3 ON t1.id = t3.x WHERE t3.y = 106;
SELECT * FROM t1 ORDER BY id;
SELECT * FROM t3 ORDER BY x, y;
INSERT INTO t1 VALUES (2, 20, 'y'), (4, 40, 'w');
INSERT INTO t2 VALUES (5, 2, 500), (6, 2, 600), (7, 4, 700);
-- A row matched twice is deleted once; LEFT JOIN deletes the unmatched outer rows.
DELETE t1, t2 FROM t1 LEFT JOIN t2 ON t1.id = t2.t1_id WHERE t1.id >= 2;
SELECT * FROM t1 ORDER BY id;
SELECT * FROM t2 ORDER BY id;
INSERT INTO t1 VALUES (2, 20, 'y'), (4, 40, 'w');
INSERT INTO t2 VALUES (5, 2, 500), (6, 2, 600), (7, 4, 700);
-- DELETE FROM ... USING, aliases, one table through the multi-table form.
DELETE FROM t1, t2 USING t1 JOIN t2 ON t1.id = t2.t1_id WHERE t1.id = 2;
DELETE FROM t2 USING t2, t1 WHERE t2.t1_id = t1.id AND t1.a = 40;
SELECT * FROM t1 ORDER BY id;
SELECT * FROM t2 ORDER BY id;
DELETE x FROM t1 AS x WHERE x.id = 4;
DELETE t1 FROM t1 WHERE id = 99;
SELECT * FROM t1 ORDER BY id;
-- A subquery reading another table is allowed, one reading the target is not.
DELETE t2 FROM t2 JOIN t1 ON t1.id = t2.t1_id WHERE t1.id IN (SELECT t1_id FROM t2);
DELETE t2 FROM t1 JOIN t2 ON t1.id = t2.t1_id WHERE t1.id IN (SELECT x FROM t3);
DELETE t1 FROM t1 JOIN t2 ON t1.id = t2.t1_id WHERE t1.id IN (SELECT t1_id FROM t2);
SELECT * FROM t1 ORDER BY id;
SELECT * FROM t2 ORDER BY id;
-- Errors.
DELETE t9 FROM t1 JOIN t2 ON t1.id = t2.t1_id;
DELETE t1 FROM t1 AS x WHERE x.id = 1;
DELETE t1 FROM t1 JOIN t2 ON t1.id = t2.t1_id ORDER BY t1.id;
DELETE t1 FROM t1 JOIN t2 ON t1.id = t2.t1_id LIMIT 1;
DELETE d FROM t1 JOIN (SELECT 1 AS x) d ON 1;
DELETE t1 FROM t1 JOIN t1 ON 1;
DELETE t1 FROM t1, nosuch;

-- Inside a transaction, rolled back.
BEGIN;
UPDATE t1 JOIN t3 ON t1.id = t3.x SET t1.a = 0, t3.y = 0;
DELETE t3 FROM t3 JOIN t1 ON t1.id = t3.x;
SELECT * FROM t3 ORDER BY x, y;
ROLLBACK;
SELECT * FROM t1 ORDER BY id;
SELECT * FROM t3 ORDER BY x, y;
