-- GET DIAGNOSTICS outside a stored program: the previous statement's conditions (what
-- SHOW WARNINGS lists), read into user variables; the area is left as it is.

CREATE TABLE t (a INT);
SELECT 1/0, CAST('x' AS INT);
GET DIAGNOSTICS @n = NUMBER, @r = ROW_COUNT;
SELECT @n, @r;
GET DIAGNOSTICS CONDITION 2 @e = MYSQL_ERRNO, @m = MESSAGE_TEXT, @s = RETURNED_SQLSTATE, @c = CLASS_ORIGIN;
SELECT @e, @m, @s, @c;
GET CURRENT DIAGNOSTICS CONDITION 1 @e = MYSQL_ERRNO, @t = TABLE_NAME;
SELECT @e, @t;
SHOW WARNINGS;
-- Past the last condition: nothing is set, and 1758 joins the area at level Error.
GET DIAGNOSTICS CONDITION 5 @e = MYSQL_ERRNO;
SHOW WARNINGS;
SELECT @e;
GET DIAGNOSTICS CONDITION 0 @e = MYSQL_ERRNO;
GET DIAGNOSTICS @n = NUMBER;
SELECT @n;

-- An error is condition 1, with its SQLSTATE.
INSERT INTO nosuch VALUES (1);
GET DIAGNOSTICS CONDITION 1 @e = MYSQL_ERRNO, @m = MESSAGE_TEXT, @s = RETURNED_SQLSTATE;
SELECT @e, @m, @s;
GET DIAGNOSTICS @n = NUMBER, @n2 = NUMBER;
SELECT @n, @n2;
SET @k = 1;
GET DIAGNOSTICS CONDITION @k @m = MESSAGE_TEXT;
SELECT @m;

-- A statement that reads a table clears the area; ROW_COUNT is the last statement's.
INSERT INTO t VALUES (1), (2), (3);
GET DIAGNOSTICS @n = NUMBER, @r = ROW_COUNT;
SELECT @n, @r;
SELECT * FROM t;
GET DIAGNOSTICS @n = NUMBER;
SELECT @n;

-- Errors: a target that is not a user variable, an item of the wrong kind, STACKED
-- outside a handler.
GET DIAGNOSTICS x = NUMBER;
GET DIAGNOSTICS @x = bogus;
GET DIAGNOSTICS CONDITION 1 @x = NUMBER;
GET DIAGNOSTICS @x = MESSAGE_TEXT;
GET STACKED DIAGNOSTICS @n = NUMBER;
