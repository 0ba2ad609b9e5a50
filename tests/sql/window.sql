-- Window functions: ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE,
-- LAG/LEAD, FIRST_VALUE/LAST_VALUE/NTH_VALUE and the aggregates over windows with
-- PARTITION BY, ORDER BY (ASC/DESC, NULLs, ties), the default frame (peers included),
-- ROWS frames and named windows (WINDOW clause); over joins, GROUP BY output, derived
-- tables, CTEs and views; in ORDER BY, with LIMIT and DISTINCT; errors 4009, 4010,
-- 4011, 4012, 4013, 4014, 4015, 4016, 4018, 4024, 4074 and 1235. Where ROW_NUMBER could
-- break ties either way, the window orders by unique columns.

CREATE TABLE sale (id INT PRIMARY KEY, region VARCHAR(10), amount INT, price DECIMAL(6,2), note VARCHAR(10));
INSERT INTO sale VALUES (1, 'east', 10, 1.50, 'a'), (2, 'east', 20, 2.25, 'b'),
  (3, 'west', NULL, NULL, 'c'), (4, NULL, 5, 3.25, 'd'), (5, 'east', 20, 1.00, NULL),
  (6, 'west', 7, 0.75, 'f'), (7, NULL, NULL, 4.00, 'g'), (8, 'west', 7, 2.00, 'h');
CREATE TABLE region (name VARCHAR(10) PRIMARY KEY, manager VARCHAR(10));
INSERT INTO region VALUES ('east', 'Ann'), ('west', 'Bo'), ('north', 'Cy');
CREATE TABLE empty_t (id INT PRIMARY KEY, v INT);

-- Ranking: partitions with NULLs, ties, ASC and DESC.
SELECT id, region, amount, ROW_NUMBER() OVER (PARTITION BY region ORDER BY amount, id) AS rn FROM sale ORDER BY id;
SELECT id, amount, RANK() OVER (ORDER BY amount) AS r, DENSE_RANK() OVER (ORDER BY amount) AS dr FROM sale ORDER BY id;
SELECT id, amount, RANK() OVER (ORDER BY amount DESC) AS r, DENSE_RANK() OVER (ORDER BY amount DESC) AS dr FROM sale ORDER BY id;
SELECT id, region, RANK() OVER (PARTITION BY region ORDER BY amount DESC) FROM sale ORDER BY id;
SELECT id, ROW_NUMBER() OVER (ORDER BY id DESC) FROM sale ORDER BY id;
SELECT id, ROW_NUMBER() OVER () FROM sale WHERE id = 3;
SELECT id, region, amount, PERCENT_RANK() OVER (PARTITION BY region ORDER BY amount) AS pr, CUME_DIST() OVER (PARTITION BY region ORDER BY amount) AS cd FROM sale ORDER BY id;
SELECT id, NTILE(3) OVER (ORDER BY id) AS t3, NTILE(2) OVER (PARTITION BY region ORDER BY id) AS t2, NTILE(20) OVER (ORDER BY id) AS t20 FROM sale ORDER BY id;
SELECT id, NTILE(2) OVER () FROM sale WHERE id < 4 ORDER BY id;
-- NTILE's count may read the row if it stays the same within each partition; a
-- fraction is rounded.
SELECT id, NTILE(CASE WHEN region = 'east' THEN 2 ELSE 3 END) OVER (PARTITION BY region ORDER BY id) AS t FROM sale WHERE region IS NOT NULL ORDER BY id;
SELECT id, NTILE(id) OVER (ORDER BY id) FROM sale WHERE id = 3;
SELECT id, NTILE(2.5) OVER (ORDER BY id) AS a, NTILE(2.4) OVER (ORDER BY id) AS b, NTILE(1.5e0) OVER (ORDER BY id) AS c FROM sale ORDER BY id;

-- Aggregates: the default frame is the whole partition without ORDER BY, and the rows up
-- to the current row's last peer with it.
SELECT id, region, COUNT(*) OVER (PARTITION BY region) AS c, COUNT(amount) OVER (PARTITION BY region) AS ca, SUM(amount) OVER (PARTITION BY region) AS s FROM sale ORDER BY id;
SELECT id, amount, SUM(amount) OVER (ORDER BY amount) AS running, COUNT(*) OVER (ORDER BY amount) AS c FROM sale ORDER BY id;
SELECT id, SUM(price) OVER (ORDER BY id) AS s, AVG(price) OVER (ORDER BY id) AS a, AVG(amount) OVER () AS aa FROM sale ORDER BY id;
SELECT id, MIN(note) OVER (PARTITION BY region ORDER BY id) AS mn, MAX(price) OVER (PARTITION BY region) AS mx FROM sale ORDER BY id;
SELECT id, SUM(amount) OVER (PARTITION BY region ORDER BY id DESC) FROM sale ORDER BY id;
SELECT id, SUM(amount * 1.5e0) OVER (ORDER BY id) FROM sale ORDER BY id;
SELECT id, BIT_OR(amount) OVER (ORDER BY id) AS b, STD(amount) OVER () AS sd FROM sale ORDER BY id;
SELECT id, SUM(amount) OVER (), amount / SUM(amount) OVER () AS share FROM sale ORDER BY id;

-- Explicit frames.
SELECT id, SUM(amount) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS s FROM sale ORDER BY id;
SELECT id, SUM(amount) OVER (PARTITION BY region ORDER BY id ROWS 2 PRECEDING) AS s FROM sale ORDER BY id;
SELECT id, COUNT(*) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS c FROM sale ORDER BY id;
SELECT id, SUM(amount) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS s FROM sale ORDER BY id;
SELECT id, SUM(amount) OVER (ORDER BY id ROWS BETWEEN 2 FOLLOWING AND 3 FOLLOWING) AS s FROM sale ORDER BY id;
SELECT id, amount, SUM(amount) OVER (ORDER BY amount RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS s FROM sale ORDER BY id;
SELECT id, amount, SUM(amount) OVER (ORDER BY amount RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS s FROM sale ORDER BY id;
-- A start after the end that offsets make leaves every frame empty.
SELECT id, SUM(id) OVER (ORDER BY id ROWS BETWEEN 1 FOLLOWING AND 1 PRECEDING) AS s, COUNT(*) OVER (ORDER BY id ROWS BETWEEN 2 FOLLOWING AND 1 FOLLOWING) AS c, MIN(note) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 2 PRECEDING) AS m, AVG(price) OVER (PARTITION BY region ORDER BY id ROWS BETWEEN 1 FOLLOWING AND 1 PRECEDING) AS a FROM sale ORDER BY id;
SELECT id, FIRST_VALUE(id) OVER (ORDER BY id ROWS BETWEEN 1 FOLLOWING AND 1 PRECEDING) AS f, LAST_VALUE(note) OVER (ORDER BY id ROWS BETWEEN 2 FOLLOWING AND 1 FOLLOWING) AS l, NTH_VALUE(id, 1) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 2 PRECEDING) AS n FROM sale ORDER BY id;
SELECT id, SUM(id) OVER (ORDER BY id ROWS BETWEEN 5 FOLLOWING AND 5 PRECEDING) AS s, COUNT(*) OVER (ORDER BY id ROWS BETWEEN 5 FOLLOWING AND 5 PRECEDING) AS c FROM sale ORDER BY id;

-- Offsets and values.
SELECT id, LAG(amount) OVER (ORDER BY id) AS l1, LAG(amount, 2) OVER (ORDER BY id) AS l2, LEAD(amount) OVER (ORDER BY id) AS n1, LEAD(note, 3) OVER (ORDER BY id) AS n3 FROM sale ORDER BY id;
SELECT id, region, LAG(id) OVER (PARTITION BY region ORDER BY id) AS prev, LEAD(id) OVER (PARTITION BY region ORDER BY id) AS next FROM sale ORDER BY id;
SELECT id, FIRST_VALUE(note) OVER (PARTITION BY region ORDER BY id) AS f, LAST_VALUE(note) OVER (PARTITION BY region ORDER BY id) AS l FROM sale ORDER BY id;
SELECT id, amount, LAST_VALUE(id) OVER (ORDER BY amount, id) AS l, MAX(id) OVER (ORDER BY amount) AS m FROM sale ORDER BY id;
SELECT id, FIRST_VALUE(id) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS f, LAST_VALUE(id) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS l FROM sale ORDER BY id;
SELECT id, NTH_VALUE(note, 2) OVER (ORDER BY id) AS n2, NTH_VALUE(id, 3) OVER (PARTITION BY region ORDER BY id) AS n3 FROM sale ORDER BY id;

-- Several windows, expressions around them, ORDER BY, LIMIT, DISTINCT.
SELECT id, ROW_NUMBER() OVER (ORDER BY id) AS a, ROW_NUMBER() OVER (ORDER BY id DESC) AS b, SUM(amount) OVER (PARTITION BY region) AS c, RANK() OVER (PARTITION BY region ORDER BY id) AS d FROM sale ORDER BY id;
SELECT id, ROW_NUMBER() OVER (ORDER BY id) * 10 + 1 AS x, 100 - COUNT(*) OVER () AS y FROM sale ORDER BY id;
SELECT id FROM sale ORDER BY ROW_NUMBER() OVER (ORDER BY id DESC);
SELECT id, ROW_NUMBER() OVER (ORDER BY id) AS rn FROM sale ORDER BY rn DESC LIMIT 3;
SELECT id, ROW_NUMBER() OVER (ORDER BY id) AS rn FROM sale ORDER BY id LIMIT 2, 3;
SELECT id, amount FROM sale ORDER BY SUM(amount) OVER (ORDER BY id DESC), id;
SELECT DISTINCT region, COUNT(*) OVER (PARTITION BY region) AS c FROM sale ORDER BY region;
SELECT DISTINCT COUNT(*) OVER (PARTITION BY region) AS c FROM sale ORDER BY c;
SELECT id, ROW_NUMBER() OVER (ORDER BY id) FROM sale WHERE amount > 5 ORDER BY id;

-- Over a join, over GROUP BY output, with aggregates as arguments.
SELECT s.id, r.manager, ROW_NUMBER() OVER (PARTITION BY r.manager ORDER BY s.id) AS rn FROM sale s JOIN region r ON r.name = s.region ORDER BY s.id;
SELECT r.name, s.id, COUNT(s.id) OVER (PARTITION BY r.name) AS c FROM region r LEFT JOIN sale s ON s.region = r.name ORDER BY r.name, s.id;
SELECT region, SUM(amount) AS total, RANK() OVER (ORDER BY SUM(amount) DESC) AS r FROM sale GROUP BY region ORDER BY region;
SELECT region, SUM(SUM(amount)) OVER () AS grand, SUM(amount) * 100 / SUM(SUM(amount)) OVER () AS pct FROM sale GROUP BY region ORDER BY region;
SELECT region, COUNT(*) AS c, SUM(COUNT(*)) OVER (ORDER BY region) AS running FROM sale GROUP BY region ORDER BY region;
SELECT region, MAX(amount) AS m, ROW_NUMBER() OVER (ORDER BY MAX(amount), region) AS rn FROM sale GROUP BY region HAVING COUNT(*) > 1 ORDER BY region;
SELECT COUNT(*), ROW_NUMBER() OVER () FROM sale;
SELECT region, ROW_NUMBER() OVER (ORDER BY region) AS rn FROM sale GROUP BY region ORDER BY rn;

-- Empty input, no FROM.
SELECT id, ROW_NUMBER() OVER (ORDER BY id), SUM(v) OVER () FROM empty_t;
SELECT COUNT(*) OVER (), SUM(v) OVER () FROM empty_t;
SELECT COUNT(*), ROW_NUMBER() OVER () FROM empty_t;
SELECT ROW_NUMBER() OVER (), 1 + 1;

-- In derived tables, CTEs and views.
SELECT * FROM (SELECT id, region, ROW_NUMBER() OVER (PARTITION BY region ORDER BY id) AS rn FROM sale) AS d WHERE rn = 1 ORDER BY id;
WITH ranked AS (SELECT id, amount, RANK() OVER (ORDER BY amount DESC) AS r FROM sale) SELECT id, r FROM ranked WHERE r <= 3 ORDER BY id;
WITH c AS (SELECT region, amount FROM sale WHERE amount IS NOT NULL) SELECT region, amount, SUM(amount) OVER (PARTITION BY region ORDER BY amount) AS s FROM c ORDER BY region, amount;
SELECT id, (SELECT MAX(rn) FROM (SELECT ROW_NUMBER() OVER (ORDER BY id) AS rn FROM sale) AS d) AS m FROM sale WHERE id < 3 ORDER BY id;
CREATE VIEW ranked_sale AS SELECT id, region, DENSE_RANK() OVER (PARTITION BY region ORDER BY amount) AS dr FROM sale;
SELECT * FROM ranked_sale ORDER BY id;
SELECT region, MAX(dr) FROM ranked_sale GROUP BY region ORDER BY region;
DROP VIEW ranked_sale;

-- Named windows.
SELECT id, ROW_NUMBER() OVER w AS rn, SUM(amount) OVER w AS s FROM sale WINDOW w AS (PARTITION BY region ORDER BY id) ORDER BY id;
SELECT id, SUM(amount) OVER (w ROWS UNBOUNDED PRECEDING) AS s FROM sale WINDOW w AS (ORDER BY id) ORDER BY id;
SELECT id, SUM(amount) OVER (w ORDER BY id) AS s FROM sale WINDOW w AS (PARTITION BY region) ORDER BY id;
SELECT id, SUM(amount) OVER v AS s FROM sale WINDOW w AS (PARTITION BY region), v AS (w ORDER BY id) ORDER BY id;
SELECT id FROM sale WINDOW w AS (ORDER BY id) ORDER BY id;
SELECT id, SUM(amount) OVER x FROM sale WINDOW w AS (ORDER BY id);
SELECT id, SUM(amount) OVER w FROM sale WINDOW w AS (x ORDER BY id), x AS (PARTITION BY region);
SELECT id FROM sale WINDOW w AS (PARTITION BY region), w AS (ORDER BY id);
SELECT id, SUM(amount) OVER (w PARTITION BY region) FROM sale WINDOW w AS (ORDER BY id);
SELECT id, SUM(amount) OVER (w ORDER BY id) FROM sale WINDOW w AS (ORDER BY amount);
SELECT id, SUM(amount) OVER (w ORDER BY id) FROM sale WINDOW w AS (PARTITION BY region ROWS UNBOUNDED PRECEDING);

-- Select-list aliases in a window: names are columns first, then aliases, but an ORDER
-- BY item that is just a name is the alias first; aliases of later items, of expressions
-- and aggregates, in expressions, in the WINDOW clause and in ORDER BY's windows.
SELECT id, amount AS a, ROW_NUMBER() OVER (ORDER BY a, id) AS rn FROM sale ORDER BY id;
SELECT id, region AS r, ROW_NUMBER() OVER (PARTITION BY r ORDER BY id) AS rn FROM sale ORDER BY id;
SELECT id, ROW_NUMBER() OVER (ORDER BY a DESC, id) AS rn, amount AS a FROM sale ORDER BY id;
SELECT id, amount AS a, ROW_NUMBER() OVER (ORDER BY a + 1, id) AS rn, ROW_NUMBER() OVER (PARTITION BY a + 1 ORDER BY id) AS pn FROM sale ORDER BY id;
SELECT id, price * 2 AS p, SUM(id) OVER (ORDER BY p DESC, id) AS s FROM sale ORDER BY id;
SELECT region, SUM(amount) AS s, RANK() OVER (ORDER BY s) AS r FROM sale GROUP BY region ORDER BY region;
SELECT region AS rr, SUM(amount) AS s, RANK() OVER (PARTITION BY rr ORDER BY s) AS r FROM sale GROUP BY region ORDER BY region;
SELECT id, -id AS amount, ROW_NUMBER() OVER (ORDER BY amount, id) AS rn, ROW_NUMBER() OVER (ORDER BY amount + 0, id) AS rc FROM sale ORDER BY id;
SELECT id, amount AS a, SUM(id) OVER w AS s, ROW_NUMBER() OVER v AS rn FROM sale WINDOW w AS (ORDER BY a, id), v AS (PARTITION BY a ORDER BY id) ORDER BY id;
SELECT id, amount AS x FROM sale ORDER BY ROW_NUMBER() OVER (ORDER BY x DESC, id);
SELECT id, (SELECT 1) AS one, ROW_NUMBER() OVER (PARTITION BY one ORDER BY id) AS rn FROM sale ORDER BY id;

-- Errors.
SELECT id FROM sale WHERE ROW_NUMBER() OVER () > 1;
SELECT region FROM sale GROUP BY ROW_NUMBER() OVER ();
SELECT region FROM sale GROUP BY region HAVING ROW_NUMBER() OVER () > 1;
SELECT id, ROW_NUMBER() OVER (ORDER BY id) AS rn FROM sale HAVING rn > 1;
SELECT id, ROW_NUMBER() OVER (ORDER BY ROW_NUMBER() OVER ()) FROM sale;
SELECT SUM(ROW_NUMBER() OVER ()) FROM sale;
SELECT SUM(ROW_NUMBER() OVER ()) OVER () FROM sale;
SELECT id, RANK() OVER () FROM sale;
SELECT id, DENSE_RANK() OVER (PARTITION BY region) FROM sale;
SELECT id, LAG(amount) OVER () FROM sale;
SELECT id, NTILE(0) OVER (ORDER BY id) FROM sale;
SELECT id, NTILE(amount) OVER (ORDER BY id) FROM sale;
SELECT id, NTILE(id) OVER (ORDER BY id) FROM sale;
SELECT id, NTILE(CASE WHEN id > 6 THEN 3 ELSE 2 END) OVER (ORDER BY id) AS t FROM sale;
SELECT id, ROW_NUMBER() OVER (ORDER BY id) AS rn, SUM(id) OVER (ORDER BY rn) AS s FROM sale;
SELECT id, ROW_NUMBER() OVER (ORDER BY id) + 1 AS rn, SUM(id) OVER (PARTITION BY rn) AS s FROM sale;
SELECT id, amount AS a, ROW_NUMBER() OVER (ORDER BY sale.a, id) AS rn FROM sale;
SELECT id FROM sale ORDER BY ROW_NUMBER() OVER (ORDER BY x DESC), id;
SELECT id, SUM(id) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND 1 PRECEDING) FROM sale;
SELECT id, SUM(id) OVER (ORDER BY id ROWS BETWEEN 1 FOLLOWING AND CURRENT ROW) FROM sale;
SELECT id, SUM(id) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED FOLLOWING AND 1 FOLLOWING) FROM sale;
SELECT id, SUM(id) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED PRECEDING) FROM sale;
SELECT id, SUM(id) OVER (ORDER BY id ROWS UNBOUNDED FOLLOWING) FROM sale;
SELECT id, SUM(id) OVER (ORDER BY id ROWS 1 FOLLOWING) FROM sale;
SELECT COUNT(DISTINCT amount) OVER () FROM sale;
SELECT GROUP_CONCAT(note) OVER () FROM sale;
SELECT ROW_NUMBER(1) OVER () FROM sale;
SELECT ROW_NUMBER() FROM sale;
SELECT id, no_such_column, ROW_NUMBER() OVER () FROM sale;
SELECT id, ROW_NUMBER() OVER (ORDER BY no_such_column) FROM sale;
UPDATE sale SET amount = ROW_NUMBER() OVER () WHERE id = 1;
SELECT id FROM sale ORDER BY id LIMIT 1;
