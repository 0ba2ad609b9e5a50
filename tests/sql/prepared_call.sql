-- A prepared CALL whose OUT and INOUT arguments are `?`: EXECUTE ... USING @v returns
-- each to the user variable given for its `?`; any other expression there is 1414, before
-- the body runs. IN arguments take any expression, and `?`s inside them count in order.
-- User variables may be named with quotes (@`a b`, @'a', @"a"): the same variable as @a,
-- and a result column named as written. (A `?` of COM_STMT_EXECUTE returns its value to
-- the client: tests/drivers/java, CallableStatement.)

CREATE TABLE calls (n INT);
DELIMITER //
CREATE PROCEDURE scale(IN factor INT, OUT doubled BIGINT, INOUT label VARCHAR(20))
BEGIN
  INSERT INTO calls VALUES (factor);
  SET doubled = factor * 2;
  SET label = CONCAT(label, '!');
END//
DELIMITER ;
PREPARE s FROM 'CALL scale(?, ?, ?)';
SET @f = 5, @d = 1, @l = 'x';
EXECUTE s USING @f, @d, @l;
SELECT @f, @d, @l;
EXECUTE s USING 7, @d, @l;
SELECT @d, @l;
EXECUTE s USING @f + 1, @other, @l;
SELECT @d, @other, @l;
-- OUT or INOUT given a value, not a variable: nothing runs.
EXECUTE s USING 8, 3, @l;
EXECUTE s USING 8, @d, 'lit';
EXECUTE s USING 8, @d, CONCAT(@l, '');
SELECT n FROM calls ORDER BY n;
SELECT @d, @l;
PREPARE s2 FROM 'CALL scale(? + ?, @d, ?)';
SET @l = 'y';
EXECUTE s2 USING 10, 20, @l;
SELECT @d, @l;
PREPARE s3 FROM 'CALL scale(1, ? , @l)';
EXECUTE s3 USING @d2;
SELECT @d2, @l;
EXECUTE s3 USING 2;
-- Quoted user variable names.
SET @`a b` = 1, @'q' = 2, @"dq" = 3;
SELECT @`a b`, @'q', @"dq", @q, @Q, @`DQ` + 1;
SELECT @'a b' = @`a b` AS same;
CALL scale(3, @`out var`, @'q');
SELECT @`out var`, @q;
SELECT @`never set` IS NULL AS unset;
-- An account's `@` stays an account's.
CREATE USER 'quoted_at'@'localhost';
CREATE USER quoted_at2@'%';
SELECT CONCAT(user, '@', host) AS account FROM mysql.user WHERE user LIKE 'quoted_at%' ORDER BY 1;
DROP USER 'quoted_at'@'localhost', quoted_at2@'%';
DEALLOCATE PREPARE s;
DEALLOCATE PREPARE s2;
DEALLOCATE PREPARE s3;
