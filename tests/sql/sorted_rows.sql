-- What ORDER BY, DISTINCT and UNION pass on after the executor buffers rows: the sort
-- keeps only the cells its select list reads (plan invariant (4)) and compares a key
-- that is one of them in place; the select list is computed into a reused row
-- (invariant (5)). Keys here are select items, hidden columns, expressions, TIMESTAMPs
-- (converted per session time zone, so evaluated, not compared in place), aliases,
-- positions and subqueries, over CHAR/VARCHAR in general_ci and bin, with NULLs, DESC
-- and several keys. Every ORDER BY is total or ties show equal rows, so the orders
-- MariaDB's filesort and manycore's stable sort pick cannot differ.

SET time_zone = '+00:00';
CREATE TABLE item (id INT PRIMARY KEY, k INT, c CHAR(12), pad VARCHAR(20),
  tag VARCHAR(8) COLLATE utf8mb4_bin, ts TIMESTAMP NULL);
INSERT INTO item VALUES
  (1, 30, 'pear', 'long padding one', 'b', '2026-03-01 10:00:00'),
  (2, 10, 'Apple', 'pad two', 'B', NULL),
  (3, 20, 'apple ', 'pad three', 'a', '2025-12-31 23:00:00'),
  (4, 10, 'Fig', 'pad four', 'A', '2026-03-01 09:00:00'),
  (5, NULL, NULL, 'pad five', NULL, NULL),
  (6, 40, 'fig', 'pad six', 'b', '2024-01-01 00:00:00'),
  (7, 20, 'kiwi', 'pad seven', 'c', '2026-01-01 00:00:00');

-- A key the select list shows, and one it does not (the sort still orders by it).
SELECT id, c FROM item WHERE id BETWEEN 1 AND 7 ORDER BY c, id;
SELECT c FROM item WHERE id BETWEEN 2 AND 6 ORDER BY id DESC;
SELECT id FROM item ORDER BY pad;
SELECT pad FROM item ORDER BY k DESC, id;
-- Expressions, aliases and positions as keys.
SELECT id, k * 2 AS twice FROM item ORDER BY twice DESC, id;
SELECT id, UPPER(c) AS u FROM item ORDER BY 2, 1;
SELECT id, c FROM item ORDER BY LENGTH(pad), id;
SELECT id FROM item ORDER BY (SELECT COUNT(*) FROM item AS i2 WHERE i2.k < item.k), id;
-- A sort inside a sort key: the inner sort runs while the outer one holds its rows.
SELECT id, c FROM item
  ORDER BY (SELECT i2.pad FROM item AS i2 WHERE i2.id <= item.id ORDER BY i2.pad DESC LIMIT 1), id;
SELECT DISTINCT k FROM item
  WHERE k IN (SELECT DISTINCT k FROM item AS i2 WHERE i2.id > 1 ORDER BY k) ORDER BY k DESC;
-- A binary collation tells case apart; general_ci does not.
SELECT id, tag FROM item ORDER BY tag, id;
SELECT id, tag FROM item ORDER BY tag DESC, id DESC;
-- TIMESTAMP keys read through the session's time zone.
SELECT id, ts FROM item ORDER BY ts, id;
SET time_zone = '+05:00';
SELECT id, ts FROM item ORDER BY ts DESC, id;
SELECT ts FROM item WHERE ts IS NOT NULL ORDER BY id;
SET time_zone = '+00:00';
-- The same column twice, and a select list wider than the table.
SELECT c, c AS again, id, id + 1, pad FROM item ORDER BY again, id;
SELECT *, k + id AS s FROM item ORDER BY s, id;
-- With LIMIT and OFFSET over the sorted rows.
SELECT id, c FROM item ORDER BY c DESC, id LIMIT 3;
SELECT id FROM item ORDER BY k, id LIMIT 2 OFFSET 2;

-- DISTINCT: general_ci folds case and trailing spaces, bin does not; NULL is one value.
SELECT DISTINCT c FROM item WHERE c IS NULL OR c <> 'pear' ORDER BY c;
SELECT COUNT(*) FROM (SELECT DISTINCT c FROM item) AS d;
SELECT DISTINCT tag FROM item ORDER BY tag;
SELECT DISTINCT k FROM item ORDER BY k DESC;
SELECT DISTINCT k, tag FROM item ORDER BY k, tag;
SELECT DISTINCT LOWER(TRIM(c)) AS l FROM item ORDER BY l;
-- DISTINCT run twice in one statement (each set of its own) and again.
SELECT (SELECT COUNT(DISTINCT k) FROM item), (SELECT COUNT(*) FROM (SELECT DISTINCT tag FROM item) AS t);
SELECT DISTINCT k FROM item WHERE k IN (SELECT DISTINCT k FROM item WHERE k > 10) ORDER BY k;

-- UNION DISTINCT compares by the result column's collation; UNION ALL keeps all.
SELECT c FROM item WHERE id < 4 UNION SELECT c FROM item WHERE id >= 4 ORDER BY 1;
SELECT tag FROM item UNION SELECT UPPER(tag) FROM item ORDER BY 1;
SELECT k FROM item UNION ALL SELECT k FROM item ORDER BY 1 LIMIT 5;
SELECT 1 AS n UNION SELECT 1 UNION SELECT 2 ORDER BY n;
-- A recursive CTE with UNION DISTINCT stops when no row is new.
WITH RECURSIVE walk (n) AS (SELECT 1 UNION SELECT (n % 4) + 1 FROM walk)
  SELECT n FROM walk ORDER BY n;

-- Grouped and windowed queries sort their computed rows too.
SELECT k, COUNT(*) AS n, MAX(c) FROM item GROUP BY k ORDER BY n DESC, k;
SELECT c, SUM(k) FROM item GROUP BY c ORDER BY SUM(k), c;
SELECT id, c, ROW_NUMBER() OVER (PARTITION BY c ORDER BY id) AS r FROM item ORDER BY c, r;
SELECT id, RANK() OVER (ORDER BY k DESC) AS r FROM item ORDER BY r, id;

-- DISTINCT done by the sort (plan invariant (6)) when the keys are exactly the select
-- list's table columns: duplicates are neighbours after sorting and the first of each
-- run in scan order is kept. Case and trailing-space variants lie apart in scan order
-- here, and the keys come in another order than the select list, as positions and as
-- aliases; DESC, NULLs, a join, LIMIT and a prepared range follow.
CREATE TABLE word (id INT PRIMARY KEY, w VARCHAR(10), n INT UNSIGNED, b VARCHAR(10) COLLATE utf8mb4_bin);
INSERT INTO word VALUES (1, 'b', 2, 'x'), (2, 'A', 1, 'y'), (3, 'a ', 1, 'y'),
  (4, 'B', 2, 'X'), (5, NULL, NULL, NULL), (6, 'a', 1, 'y'), (7, NULL, 3, 'x'),
  (8, 'c', 3, 'x'), (9, 'C ', 3, 'x'), (10, 'b', 2, 'X');
SELECT DISTINCT w FROM word ORDER BY w;
SELECT DISTINCT w FROM word ORDER BY w DESC;
SELECT DISTINCT w, n FROM word ORDER BY n DESC, w;
SELECT DISTINCT n, w AS x FROM word ORDER BY 2, 1;
SELECT DISTINCT w AS x, b FROM word ORDER BY b, x;
SELECT DISTINCT n FROM word ORDER BY n LIMIT 2 OFFSET 1;
SELECT DISTINCT b, w FROM word WHERE id > 2 ORDER BY w, b;
SELECT DISTINCT w1.n FROM word AS w1 JOIN word AS w2 ON w1.n = w2.n ORDER BY w1.n;
SELECT DISTINCT w, w FROM word ORDER BY w;
-- Not done by the sort: an expression, a derived table's column whose values are not
-- all strings, and a grouped query.
SELECT DISTINCT UPPER(w) AS u FROM word ORDER BY u;
SELECT DISTINCT x FROM (SELECT IFNULL(w, 1) AS x FROM word) AS d ORDER BY x;
SELECT DISTINCT COUNT(*) AS c FROM word GROUP BY n ORDER BY c;
EXPLAIN SELECT DISTINCT w FROM word ORDER BY w;
PREPARE s FROM 'SELECT DISTINCT w, n FROM word WHERE id BETWEEN ? AND ? ORDER BY w, n';
SET @lo = 1, @hi = 6;
EXECUTE s USING @lo, @hi;
SET @lo = 4, @hi = 10;
EXECUTE s USING @lo, @hi;
DEALLOCATE PREPARE s;
DROP TABLE word;

-- A prepared statement runs its sort again with new bounds.
PREPARE s FROM 'SELECT id, c FROM item WHERE id BETWEEN ? AND ? ORDER BY c, id';
SET @lo = 1, @hi = 4;
EXECUTE s USING @lo, @hi;
SET @lo = 3, @hi = 7;
EXECUTE s USING @lo, @hi;
DEALLOCATE PREPARE s;

DROP TABLE item;
