-- SELECT ... INTO user variables at the top level: the first row sets them, none leaves
-- them with warning 1329, a second row is 1172 after the first was assigned, and the
-- column count must match (1222). INTO after FROM is the deprecated position (1287).

CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(10), c DECIMAL(5,2));
INSERT INTO t VALUES (1, 'x', 1.50), (2, 'y', NULL), (3, 'z', 7.25);

SELECT a, b INTO @a, @b FROM t WHERE a = 1;
SELECT @a, @b;
SELECT * INTO @a, @b, @c FROM t WHERE a = 3;
SELECT @a, @b, @c;
SELECT 7, 'seven', NULL INTO @a, @b, @null;
SELECT @a, @b, @null;
SELECT 1 INTO @dual FROM dual;
SELECT @dual;
SELECT SUM(a), MAX(b) INTO @sum, @max FROM t;
SELECT @sum, @max;
SELECT c * 2 INTO @twice FROM t WHERE a = 1;
SELECT @twice;

-- No row: the variables keep their values, warning 1329, ROW_COUNT() 0.
SET @none = 'before';
SELECT a INTO @none FROM t WHERE a = 99;
SELECT ROW_COUNT();
SELECT @none;
SELECT a INTO @none FROM t WHERE a = 1 GROUP BY a HAVING a > 5;
SHOW WARNINGS;
SELECT 1 INTO @none FROM t LIMIT 0;
SELECT @none;
SELECT a INTO @one FROM t WHERE a = 1;
SELECT ROW_COUNT(), FOUND_ROWS(), @one;

-- Two rows: 1172, and the first row was assigned.
SET @two = 99;
SELECT a INTO @two FROM t ORDER BY a DESC;
SELECT @two;
SELECT a INTO @two FROM t ORDER BY a ASC LIMIT 1;
SELECT @two;

-- The column count must match the targets, checked before anything runs.
SET @q = 'kept';
SELECT a, b INTO @q FROM t WHERE a = 1;
SELECT a INTO @q, @r FROM t WHERE a = 1;
SELECT 1 INTO @q, @q;
SELECT @q;

-- The deprecated position: after FROM, after a UNION, around a parenthesised SELECT.
SELECT a, b FROM t WHERE a = 2 INTO @a, @b;
SHOW WARNINGS;
SELECT @a, @b;
SELECT a FROM t WHERE a = 1 UNION SELECT 3 INTO @u;
SELECT a FROM t WHERE a = 1 UNION SELECT 1 INTO @u;
SELECT @u;
(SELECT 5) INTO @p;
SELECT @p;
SELECT a FROM t WHERE a = 3 INTO @l FOR UPDATE;
SELECT @l;
SELECT a INTO @l FROM t WHERE a = 2 FOR UPDATE;
SELECT @l;

-- Refused as MariaDB refuses them.
SELECT a INTO x FROM t WHERE a = 1;
SELECT a INTO @f FROM t WHERE a = 1 UNION SELECT 2;
SELECT a INTO @u FROM t WHERE a = 1 INTO @w;
SELECT a INTO @u FROM nosuch;
SELECT nosuch INTO @u FROM t;
SELECT a FROM t WHERE a = 1 INTO @u LIMIT 1;

-- Values keep their types; a conversion warning stays with the statement.
SELECT a + 'x' INTO @w FROM t WHERE a = 1;
SHOW WARNINGS;
SELECT @w;
SELECT c INTO @dec FROM t WHERE a = 3;
SELECT @dec;

-- Inside a transaction the statement reads the transaction's own writes.
BEGIN;
INSERT INTO t VALUES (4, 'w', 0);
SELECT COUNT(*) INTO @n FROM t;
ROLLBACK;
SELECT @n, (SELECT COUNT(*) FROM t);
