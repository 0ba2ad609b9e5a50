-- EXPLAIN SELECT: MariaDB's traditional table, one row per table read, describing
-- manycore's own plan (crates/sql/src/explain.rs). Only plans both servers choose alike
-- are compared here; where they differ by design (MariaDB's `index` scans and
-- semi-joins, "Using where" on ranges the key enforces exactly, join orders chosen by
-- cost, statistics' row estimates) the module notes and the README say so.

CREATE TABLE item (id INT PRIMARY KEY, a INT, b VARCHAR(20), c INT NOT NULL,
  d DATE, amount DECIMAL(10,2), KEY (a), KEY ab (a, b), UNIQUE KEY (c))
  DEFAULT CHARSET=utf8mb4;
INSERT INTO item VALUES (1, 1, 'x', 10, '2024-01-01', 1.50), (2, 2, 'y', 20, NULL, 2.00),
  (3, 3, 'z', 30, '2024-03-01', 3.25), (4, 4, 'w', 40, NULL, NULL),
  (5, NULL, 'v', 50, '2024-05-01', 5.00);
CREATE TABLE part (id INT PRIMARY KEY, item_id INT, KEY (item_id));
INSERT INTO part VALUES (1, 1), (2, 1), (3, 2);
CREATE TABLE pair (x INT NOT NULL, y BIGINT NOT NULL, note CHAR(3), PRIMARY KEY (x, y));
INSERT INTO pair VALUES (1, 1, 'a'), (1, 2, 'b'), (2, 1, 'c');
ANALYZE TABLE item, part, pair;

-- One table: a key fully equal to constants is const (its row read now), else every row.
EXPLAIN SELECT * FROM item WHERE id = 1;
EXPLAIN SELECT * FROM item WHERE c = 30;
EXPLAIN SELECT b FROM item WHERE id = 2 + 1;
EXPLAIN SELECT * FROM pair WHERE x = 1 AND y = 2;
-- Leading key columns equal to constants: ref, its rows counted.
EXPLAIN SELECT * FROM pair WHERE x = 1;
EXPLAIN SELECT * FROM item;
EXPLAIN SELECT * FROM item WHERE b = 'x';
EXPLAIN SELECT * FROM item WHERE d IS NULL;
EXPLAIN SELECT * FROM item ORDER BY b;
EXPLAIN SELECT * FROM item WHERE b <> 'x' ORDER BY b DESC;
-- Nothing to read.
EXPLAIN SELECT 1;
EXPLAIN SELECT 1 + 1 AS two, NOW() IS NOT NULL;
EXPLAIN SELECT * FROM item WHERE 1 = 0;
EXPLAIN SELECT * FROM item WHERE b = 'x' AND 1 = 2;
EXPLAIN SELECT * FROM item WHERE id = 99;
EXPLAIN SELECT * FROM item WHERE c = 99;
-- Set operations: each operand a block, then the result row (none for UNION ALL).
EXPLAIN SELECT d FROM item UNION SELECT note FROM pair;
EXPLAIN SELECT d FROM item UNION ALL SELECT note FROM pair;
EXPLAIN SELECT amount FROM item INTERSECT SELECT x FROM pair WHERE note = 'a';
EXPLAIN SELECT amount FROM item EXCEPT SELECT note FROM pair WHERE x = 2;
EXPLAIN SELECT * FROM item WHERE id = 1 UNION SELECT * FROM item WHERE id = 2;
EXPLAIN SELECT b FROM item WHERE id = 1 UNION SELECT b FROM item WHERE id = 2
  UNION SELECT b FROM item WHERE id = 3;
-- A correlated subquery looks its table up by the outer row's value.
EXPLAIN SELECT * FROM item WHERE a = (SELECT MAX(item_id) FROM part WHERE part.id = item.id);
-- Errors, as for the SELECT itself.
EXPLAIN SELECT * FROM missing;
EXPLAIN SELECT nope FROM item;
EXPLAIN SELECT * FROM item WHERE id = (SELECT id FROM part);

-- EXPLAIN of a single-table UPDATE or DELETE: MariaDB's single-table plan, which has no
-- const or ref (an equal key is a range, its entries counted, at least one) and checks
-- every WHERE clause (Using where). EXPLAIN writes nothing: the SELECTs after it show it.
-- Left out, as they differ (explain.rs's header): an UPDATE of a table with a primary key
-- not read through a key (MariaDB: index PRIMARY), ORDER BY / LIMIT, Using buffer, DELETE
-- of an empty table, multi-table writes (their joins differ as a join SELECT's do) and
-- EXPLAIN EXTENDED.
CREATE TABLE w (id INT PRIMARY KEY, a INT, b INT, KEY ka (a)) DEFAULT CHARSET=utf8mb4;
INSERT INTO w VALUES (1, 1, 1), (2, 2, 2), (3, 3, 3), (4, 4, 4);
CREATE TABLE wn (x INT, y INT) DEFAULT CHARSET=utf8mb4;
INSERT INTO wn VALUES (1, 1), (2, 2), (3, 3);
ANALYZE TABLE w, wn;
EXPLAIN DELETE FROM w WHERE id = 2;
EXPLAIN DELETE FROM w WHERE a = 2;
EXPLAIN DELETE FROM w WHERE id BETWEEN 1 AND 3;
EXPLAIN DELETE FROM w WHERE id IN (1, 3);
EXPLAIN DELETE FROM w WHERE id BETWEEN 7 AND 9;
EXPLAIN DELETE FROM w WHERE id = 9;
EXPLAIN DELETE FROM w WHERE b = 2;
EXPLAIN UPDATE w SET b = 5 WHERE id = 2;
EXPLAIN UPDATE w SET b = 5 WHERE a = 2;
EXPLAIN UPDATE w SET b = 5 WHERE id BETWEEN 1 AND 3;
EXPLAIN UPDATE w SET b = 5 WHERE a IN (1, 2);
EXPLAIN UPDATE w SET b = 5 WHERE id > 8;
-- No primary key: every row, with or without WHERE.
EXPLAIN DELETE FROM wn WHERE x = 1;
EXPLAIN UPDATE wn SET y = 0 WHERE x = 1;
EXPLAIN UPDATE wn SET y = 0;
-- A DELETE without WHERE does not read its rows; a false WHERE reads nothing.
EXPLAIN DELETE FROM w;
EXPLAIN DELETE FROM wn;
EXPLAIN DELETE FROM w WHERE 1 = 0;
-- With DELETE triggers every row is read: no "Deleting all rows".
CREATE TRIGGER wn_bd BEFORE DELETE ON wn FOR EACH ROW SET @deleted = OLD.x;
EXPLAIN DELETE FROM wn;
DROP TRIGGER wn_bd;
EXPLAIN UPDATE w SET b = 5 WHERE 1 = 0;
EXPLAIN UPDATE wn SET y = 0 WHERE 1 = 0;
SELECT * FROM w ORDER BY id;
SELECT * FROM wn ORDER BY x;
-- INSERT and REPLACE ... VALUES: one INSERT row, nothing read.
EXPLAIN INSERT INTO w VALUES (9, 9, 9);
EXPLAIN INSERT INTO w VALUES (9, 9, 9), (10, 10, 10);
EXPLAIN INSERT INTO w (id) VALUES (1);
EXPLAIN REPLACE INTO w VALUES (1, 9, 9);
EXPLAIN REPLACE INTO w VALUES (1, 9, 9), (11, 1, 1);
EXPLAIN INSERT INTO wn SET x = 5;
-- INSERT and REPLACE ... SELECT (ON DUPLICATE KEY UPDATE too): MariaDB shows only the
-- SELECT's rows, with Using temporary when the SELECT reads the table written.
EXPLAIN INSERT INTO wn SELECT id, amount FROM item;
EXPLAIN INSERT INTO wn SELECT id, a FROM item WHERE id = 2;
EXPLAIN INSERT INTO wn SELECT id, a FROM item WHERE c = 30;
EXPLAIN INSERT INTO wn SELECT id, a FROM item WHERE amount > 2;
EXPLAIN INSERT INTO wn (x) SELECT item_id FROM part WHERE id = 1;
EXPLAIN REPLACE INTO w SELECT id, a, c FROM item WHERE id = 3;
EXPLAIN INSERT INTO w SELECT id, a, c FROM item ON DUPLICATE KEY UPDATE b = VALUES(b);
EXPLAIN INSERT INTO w SELECT id + 100, a, b FROM w;
EXPLAIN INSERT INTO wn SELECT x + 1, y FROM wn;
EXPLAIN INSERT INTO wn SELECT 1, 2;
EXPLAIN INSERT INTO wn SELECT id, amount FROM item UNION SELECT c, amount FROM item;
EXPLAIN INSERT INTO wn SELECT nope FROM item;
EXPLAIN INSERT INTO wn SELECT id FROM item;
SELECT * FROM w ORDER BY id;
SELECT COUNT(*) FROM wn;
-- Errors, as for the write itself.
EXPLAIN DELETE FROM missing;
EXPLAIN DELETE FROM w WHERE nope = 1;
EXPLAIN UPDATE missing SET a = 1;
EXPLAIN UPDATE w SET nope = 1;
EXPLAIN UPDATE w SET b = 1 WHERE nope = 1;
EXPLAIN INSERT INTO missing VALUES (1);
EXPLAIN INSERT INTO w (nope) VALUES (1);
