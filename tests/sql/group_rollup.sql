-- GROUP BY ... WITH ROLLUP: the groups in GROUP BY order, a super-aggregate row after the
-- last group of each prefix (its rolled-up values NULL), the grand total last. Rows are
-- compared in order: the order is the feature.

CREATE TABLE sales (region VARCHAR(10), city VARCHAR(10), amount INT, price DECIMAL(6,2));
INSERT INTO sales VALUES ('west', 'Reno', 1, 1.50), ('east', 'Boston', 2, 2.50), ('east', 'NYC', 3, NULL), ('west', 'Reno', 4, 4.00), (NULL, 'Nowhere', 5, 5.00), ('east', NULL, 6, 6.00), ('West', 'Salem', 7, 7.25);
-- diff: ordered
SELECT region, SUM(amount) FROM sales GROUP BY region WITH ROLLUP;
-- diff: ordered
SELECT region, city, SUM(amount), COUNT(*), COUNT(price) FROM sales GROUP BY region, city WITH ROLLUP;
-- diff: ordered
SELECT city, region, SUM(amount) FROM sales GROUP BY city, region WITH ROLLUP;
-- diff: ordered
SELECT region, AVG(amount), MAX(city), MIN(price), SUM(price) FROM sales GROUP BY region WITH ROLLUP;
-- diff: ordered
SELECT region, COUNT(DISTINCT city), GROUP_CONCAT(amount ORDER BY amount) FROM sales GROUP BY region WITH ROLLUP;
-- diff: ordered
SELECT SUM(amount) FROM sales GROUP BY region WITH ROLLUP;
-- diff: ordered
SELECT region FROM sales GROUP BY region WITH ROLLUP;
-- diff: ordered
SELECT region, city FROM sales GROUP BY region, city WITH ROLLUP;
-- diff: ordered
SELECT region, SUM(amount) FROM sales GROUP BY 1 WITH ROLLUP;
-- A case-insensitive collation groups 'west' and 'West' together.
-- diff: ordered
SELECT LOWER(region), COUNT(*) FROM sales GROUP BY region WITH ROLLUP;

-- Expressions of the grouped values are NULL in a super-aggregate row; IFNULL labels it.
-- diff: ordered
SELECT IFNULL(region, 'all'), SUM(amount) FROM sales GROUP BY region WITH ROLLUP;
-- diff: ordered
SELECT region, CONCAT(region, '!'), SUM(amount) FROM sales GROUP BY region WITH ROLLUP;
-- diff: ordered
SELECT amount + 1, SUM(price) FROM sales GROUP BY amount WITH ROLLUP;
-- diff: ordered
SELECT LENGTH(city) AS len, COUNT(*) FROM sales GROUP BY len WITH ROLLUP;
-- diff: ordered
SELECT amount DIV 3 AS q, SUM(amount) FROM sales GROUP BY amount DIV 3 WITH ROLLUP;
-- The same text with other numbers: the text plan cache must not share one plan between
-- them, since a literal decides what rolls up (a repeat is where a cached plan is used).
-- diff: ordered
SELECT amount DIV 2 AS q, SUM(amount) FROM sales GROUP BY amount DIV 3 WITH ROLLUP;
-- diff: ordered
SELECT amount DIV 3 AS q, SUM(amount) FROM sales GROUP BY amount DIV 3 WITH ROLLUP;
-- diff: ordered
SELECT amount DIV 2 AS q, SUM(amount) FROM sales GROUP BY amount DIV 3 WITH ROLLUP;

-- A constant GROUP BY item rolls up too. (Without FROM, MariaDB's answers differ with
-- the form of the query: `SELECT 1 GROUP BY 1 WITH ROLLUP` shows 1 twice, and
-- `SELECT 'x' AS k GROUP BY k WITH ROLLUP` one row; manycore shows 1, then NULL.)
-- diff: ordered
SELECT 'x', region, SUM(amount) FROM sales GROUP BY 'x', region WITH ROLLUP;
-- diff: ordered
SELECT 'x' AS k, SUM(amount) FROM sales GROUP BY k WITH ROLLUP;
-- diff: ordered
SELECT 1 FROM sales GROUP BY 1 WITH ROLLUP;

-- A column that is not grouped shows the first row of the group that just ended.
CREATE TABLE w (g INT, h INT, k INT);
INSERT INTO w VALUES (1, 1, 100), (2, 5, 200), (1, 2, 300), (2, 3, 400), (1, 1, 500);
-- diff: ordered
SELECT g, k, SUM(k) FROM w GROUP BY g WITH ROLLUP;
-- diff: ordered
SELECT g, h, k, SUM(k) FROM w GROUP BY g, h WITH ROLLUP;
-- diff: ordered
SELECT g, h + 1, SUM(k) FROM w GROUP BY g, h WITH ROLLUP;
-- diff: ordered
SELECT h + g, g, SUM(k) FROM w GROUP BY h + g WITH ROLLUP;
-- A subquery's outer reference reads the row's column, not the rolled-up NULL.
-- diff: ordered
SELECT g, (SELECT MAX(k) FROM w AS inner_w WHERE inner_w.g = w.g) AS top, SUM(k) FROM w GROUP BY g WITH ROLLUP;

-- HAVING sees the super-aggregate rows, their grouped values NULL.
-- diff: ordered
SELECT region, SUM(amount) AS total FROM sales GROUP BY region WITH ROLLUP HAVING total > 10;
-- diff: ordered
SELECT region, SUM(amount) FROM sales GROUP BY region WITH ROLLUP HAVING region IS NULL;
-- diff: ordered
SELECT region, SUM(amount) FROM sales GROUP BY region WITH ROLLUP HAVING region IS NOT NULL;
-- diff: ordered
SELECT g, h, SUM(k) FROM w GROUP BY g, h WITH ROLLUP HAVING h IS NULL;

-- WHERE, LIMIT, DISTINCT, SQL_CALC_FOUND_ROWS, derived tables, views, set operations.
-- diff: ordered
SELECT region, SUM(amount) FROM sales WHERE amount > 2 GROUP BY region WITH ROLLUP;
SELECT region, SUM(amount) FROM sales WHERE amount > 100 GROUP BY region WITH ROLLUP;
-- diff: ordered
SELECT region, city, SUM(amount) FROM sales GROUP BY region, city WITH ROLLUP LIMIT 3 OFFSET 2;
-- diff: ordered
SELECT SQL_CALC_FOUND_ROWS region, SUM(amount) FROM sales GROUP BY region WITH ROLLUP LIMIT 1;
SELECT FOUND_ROWS();
-- diff: ordered
SELECT DISTINCT g, h FROM w GROUP BY g, h WITH ROLLUP;
SELECT * FROM (SELECT region, SUM(amount) AS total FROM sales GROUP BY region WITH ROLLUP) AS totals ORDER BY total;
CREATE VIEW region_totals AS SELECT region, SUM(amount) AS total FROM sales GROUP BY region WITH ROLLUP;
-- diff: ordered
SELECT * FROM region_totals;
-- diff: skip-result
SHOW CREATE VIEW region_totals;
-- diff: ordered
(SELECT region, SUM(amount) FROM sales GROUP BY region WITH ROLLUP) LIMIT 2;
(SELECT region, SUM(amount) FROM sales GROUP BY region WITH ROLLUP) UNION ALL (SELECT 'x', 9) ORDER BY 1, 2;
-- diff: ordered
(SELECT region, SUM(amount) FROM sales GROUP BY region WITH ROLLUP LIMIT 2) ORDER BY 1;
-- diff: ordered
SELECT g, MAX(k), SUM(k) OVER (ORDER BY g) FROM w GROUP BY g WITH ROLLUP;
PREPARE rolled FROM 'SELECT g, SUM(k) FROM w WHERE k > ? GROUP BY g WITH ROLLUP';
-- diff: ordered
EXECUTE rolled USING 150;
-- diff: ordered
EXECUTE rolled USING 1000;
-- diff: ordered
SELECT s.g, COUNT(*), SUM(t.k) FROM w AS s JOIN w AS t ON s.h = t.h GROUP BY s.g WITH ROLLUP;

-- Types: a NOT NULL column's super-aggregate row is still NULL; dates and decimals group.
CREATE TABLE typed (n INT NOT NULL, d DATE, x DECIMAL(5,1), e ENUM('b', 'a'));
INSERT INTO typed VALUES (2, '2024-01-02', 1.5, 'a'), (1, '2024-01-01', -1.5, 'b'), (2, '2024-01-01', 1.5, 'a'), (3, NULL, NULL, NULL);
-- diff: ordered
SELECT n, COUNT(*) FROM typed GROUP BY n WITH ROLLUP;
-- diff: ordered
SELECT d, x, SUM(n) FROM typed GROUP BY d, x WITH ROLLUP;
-- diff: ordered
SELECT e, SUM(n) FROM typed GROUP BY e WITH ROLLUP;
-- diff: ordered
SELECT YEAR(d), MONTH(d), COUNT(*) FROM typed GROUP BY YEAR(d), MONTH(d) WITH ROLLUP;

-- Sorted, then aggregated as the rows come: a filesort and no temporary table.
EXPLAIN SELECT n, COUNT(*) FROM typed GROUP BY n WITH ROLLUP;
EXPLAIN SELECT d, x, SUM(n) FROM typed WHERE n > 1 GROUP BY d, x WITH ROLLUP;

-- Refusals, as MariaDB's: ORDER BY (even of the parenthesised block), CUBE, others.
SELECT region, SUM(amount) FROM sales GROUP BY region WITH ROLLUP ORDER BY region;
SELECT region, SUM(amount) FROM sales GROUP BY region WITH ROLLUP ORDER BY NULL;
SELECT region, SUM(amount) FROM sales GROUP BY region WITH ROLLUP ORDER BY no_such_column;
(SELECT region, SUM(amount) FROM sales GROUP BY region WITH ROLLUP) ORDER BY region;
((SELECT region, SUM(amount) FROM sales GROUP BY region WITH ROLLUP)) ORDER BY 1;
SELECT region, SUM(amount) FROM sales GROUP BY region WITH CUBE;
SELECT region, SUM(amount) FROM sales GROUP BY region WITH CUBE ORDER BY region;
SELECT region FROM sales GROUP BY region WITH ROLLUP WITH ROLLUP;
SELECT region FROM sales GROUP BY region WITH TOTALS;
SELECT region FROM sales GROUP BY region ROLLUP;
SELECT SUM(amount) FROM sales WITH ROLLUP;
SELECT region, SUM(amount) FROM sales GROUP BY no_such_column WITH ROLLUP;
