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
