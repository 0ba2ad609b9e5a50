-- NOWAIT, WAIT n and SKIP LOCKED after FOR UPDATE and LOCK IN SHARE MODE, in one session
-- (nothing else holds a row: crates/testkit/tests/locking_reads.rs has the two-session
-- cases). WAIT takes any number literal; elsewhere NOWAIT is a name and WAIT, SKIP LOCKED
-- are syntax errors, as are two of them together.

CREATE TABLE t (id INT PRIMARY KEY, v INT, KEY (v));
INSERT INTO t VALUES (1, 10), (2, 20), (3, 30);

SELECT * FROM t WHERE id = 1 FOR UPDATE NOWAIT;
SELECT * FROM t ORDER BY id FOR UPDATE WAIT 1;
SELECT * FROM t ORDER BY id FOR UPDATE SKIP LOCKED;
SELECT * FROM t WHERE v > 10 ORDER BY id LOCK IN SHARE MODE NOWAIT;
SELECT * FROM t ORDER BY id LOCK IN SHARE MODE WAIT 0;
SELECT * FROM t ORDER BY id LOCK IN SHARE MODE SKIP LOCKED;
SELECT * FROM t ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED;
SELECT * FROM t ORDER BY id FOR UPDATE WAIT 1.5;
SELECT * FROM t ORDER BY id FOR UPDATE WAIT 1e0;
SELECT * FROM t ORDER BY id FOR UPDATE WAIT 0x10;
SELECT id FROM t WHERE id = 2 FOR UPDATE NOWAIT INTO @a;
SELECT @a;
SELECT id INTO @b FROM t WHERE id = 3 FOR UPDATE WAIT 2;
SELECT @b;
SELECT nowait.id FROM t nowait ORDER BY id;

-- In a transaction the rows are locked; nothing else holds them.
BEGIN;
SELECT * FROM t WHERE id = 1 FOR UPDATE NOWAIT;
SELECT * FROM t ORDER BY id FOR UPDATE SKIP LOCKED;
SELECT * FROM t WHERE id >= 2 ORDER BY id LOCK IN SHARE MODE WAIT 5;
UPDATE t SET v = v + 1 WHERE id = 1;
SELECT * FROM t ORDER BY id FOR UPDATE NOWAIT;
COMMIT;

-- A READ ONLY transaction refuses a locking read as it refuses a write.
START TRANSACTION READ ONLY;
SELECT * FROM t WHERE id = 1 FOR UPDATE;
SELECT * FROM t ORDER BY id LIMIT 1 LOCK IN SHARE MODE SKIP LOCKED;
SELECT * FROM t WHERE id = 1;
COMMIT;

-- LIMIT after an ORDER BY the index gives, or none: the rows are the first ones read.
BEGIN;
SELECT * FROM t WHERE v >= 20 ORDER BY v LIMIT 1 FOR UPDATE;
SELECT * FROM t ORDER BY id LIMIT 1 OFFSET 1 FOR UPDATE SKIP LOCKED;
SELECT id FROM t LIMIT 2 FOR UPDATE NOWAIT;
SELECT * FROM t ORDER BY id DESC LIMIT 1 FOR UPDATE;
COMMIT;

-- Over joins the rows of every table are locked; the results are the join's.
CREATE TABLE u (id INT PRIMARY KEY, t_id INT, w INT, KEY (t_id));
INSERT INTO u VALUES (1, 1, 100), (2, 1, 200), (3, 3, 300), (4, 9, 400);
BEGIN;
SELECT t.id, u.id, u.w FROM t JOIN u ON u.t_id = t.id ORDER BY u.id FOR UPDATE;
SELECT t.id, u.id FROM t, u WHERE u.t_id = t.id AND t.v > 10 ORDER BY u.id LOCK IN SHARE MODE;
SELECT t.id, u.id FROM t LEFT JOIN u ON u.t_id = t.id ORDER BY t.id, u.id FOR UPDATE NOWAIT;
SELECT t.id, u.id FROM t RIGHT JOIN u ON u.t_id = t.id ORDER BY u.id FOR UPDATE SKIP LOCKED;
SELECT u.id FROM u LEFT JOIN t ON t.id = u.t_id WHERE t.id IS NULL FOR UPDATE SKIP LOCKED;
SELECT t.id, COUNT(*), SUM(u.w) FROM t JOIN u ON u.t_id = t.id GROUP BY t.id ORDER BY t.id FOR UPDATE;
SELECT a.id, b.id FROM t a JOIN t b ON b.id = a.id + 1 ORDER BY a.id FOR UPDATE;
SELECT t.id, d.n FROM t JOIN (SELECT t_id, COUNT(*) AS n FROM u GROUP BY t_id) d ON d.t_id = t.id ORDER BY t.id FOR UPDATE;
SELECT t.id, u.id FROM t JOIN u ON u.t_id = t.id ORDER BY u.id LIMIT 1 OFFSET 1 FOR UPDATE;
SELECT a.x, b.y FROM (SELECT 1 AS x) a JOIN (SELECT 2 AS y) b FOR UPDATE;
UPDATE u SET w = w + 1 WHERE id = 1;
SELECT t.v, u.w FROM t JOIN u ON u.t_id = t.id WHERE u.id = 1 FOR UPDATE;
COMMIT;
START TRANSACTION READ ONLY;
SELECT t.id, u.id FROM t JOIN u ON u.t_id = t.id FOR UPDATE;
SELECT t.id, u.id FROM t JOIN u ON u.t_id = t.id ORDER BY u.id LOCK IN SHARE MODE;
COMMIT;

SELECT * FROM t FOR UPDATE NOWAIT SKIP LOCKED;
SELECT * FROM t FOR UPDATE SKIP LOCKED NOWAIT;
SELECT * FROM t WAIT 1;
SELECT * FROM t SKIP LOCKED;
