-- Stored procedures: CREATE/DROP PROCEDURE, CALL with IN, OUT and INOUT parameters,
-- result sets from the body's SELECTs, the CALL's affected rows (the sum over its
-- statements), statement atomicity inside a body (a failing statement is undone, the
-- ones before it stay), handlers, SHOW CREATE PROCEDURE, information_schema.ROUTINES and
-- PARAMETERS, and the errors: 1049, 1064, 1304, 1305, 1318, 1330, 1414.

CREATE TABLE acct (id INT PRIMARY KEY, owner VARCHAR(10), bal INT);
INSERT INTO acct VALUES (1, 'ann', 100), (2, 'bob', 50), (3, 'cy', 0);

DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE transfer(IN src INT, IN dst INT, IN amount INT, OUT moved INT, INOUT calls INT)
BEGIN
  UPDATE acct SET bal = bal - amount WHERE id = src;
  UPDATE acct SET bal = bal + amount WHERE id = dst;
  SET moved = amount;
  SET calls = calls + 1;
END//
DELIMITER ;
SET @calls = 0;
CALL transfer(1, 2, 30, @moved, @calls);
SELECT ROW_COUNT();
SELECT @moved, @calls;
CALL transfer(2, 3, 5 * 2, @moved, @calls);
SELECT @moved, @calls;
SELECT * FROM acct ORDER BY id;

-- Result sets, then the OK.
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE report(lim INT)
BEGIN
  SELECT id, owner FROM acct WHERE bal >= lim ORDER BY id;
  SELECT COUNT(*) AS n, SUM(bal) AS total FROM acct;
  SELECT lim + 1 AS next_lim;
END//
DELIMITER ;
CALL report(10);
CALL report(1000);
CALL diff_procedures.report(0);

-- Result sets with the same columns each carry their definitions (prepared too).
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE same_columns()
BEGIN
  SELECT id, owner FROM acct WHERE id = 1;
  SELECT id, owner FROM acct WHERE id = 2;
END//
DELIMITER ;
CALL same_columns();
CALL same_columns();

-- Affected rows: the sum over the body's statements; a SELECT adds none.
CREATE TABLE t (a INT PRIMARY KEY, b INT);
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE fill()
BEGIN
  INSERT INTO t VALUES (1, 1);
  INSERT INTO t VALUES (2, 2), (3, 3);
  UPDATE t SET b = b + 1 WHERE a = 1;
  SELECT 'filled' AS status;
END//
DELIMITER ;
CALL fill();
SELECT * FROM t ORDER BY a;

-- A failing statement ends the CALL: it is undone, what went before stays.
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE half()
BEGIN
  INSERT INTO t VALUES (10, 10);
  INSERT INTO t VALUES (11, 11), (1, 1);
  INSERT INTO t VALUES (12, 12);
END//
DELIMITER ;
CALL half();
SELECT * FROM t ORDER BY a;
BEGIN;
CALL half();
SELECT * FROM t ORDER BY a;
ROLLBACK;
SELECT * FROM t ORDER BY a;

-- A handler catches the error; the failing statement is undone whole.
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE careful(OUT outcome VARCHAR(20))
BEGIN
  DECLARE EXIT HANDLER FOR 1062 SET outcome = 'duplicate';
  SET outcome = 'ok';
  INSERT INTO t VALUES (20, 20), (21, 21), (2, 2);
END//
DELIMITER ;
CALL careful(@outcome);
SELECT @outcome;
SELECT * FROM t WHERE a >= 20 ORDER BY a;

-- LAST_INSERT_ID() follows an AUTO_INCREMENT insert inside the body, and after the CALL.
CREATE TABLE seq (id INT AUTO_INCREMENT PRIMARY KEY, val INT);
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE add_seq(val_in INT, OUT new_id INT)
BEGIN
  INSERT INTO seq (val) VALUES (val_in), (val_in + 1);
  SET new_id = LAST_INSERT_ID();
END//
DELIMITER ;
CALL add_seq(5, @new_id);
CALL add_seq(7, @new_id);
SELECT @new_id, LAST_INSERT_ID();

-- Loops, local variables and SELECT ... INTO inside a body.
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE sum_to(n INT, OUT total INT)
BEGIN
  DECLARE i INT DEFAULT 0;
  SET total = 0;
  WHILE i < n DO
    SET i = i + 1;
    SET total = total + i;
  END WHILE;
  SELECT COUNT(*) INTO @rows_seen FROM t;
END//
DELIMITER ;
CALL sum_to(10, @total);
SELECT @total, @rows_seen;

-- Parameters take their declared type, as SET of a column would.
CREATE DEFINER=`root`@`localhost` PROCEDURE short_text(x VARCHAR(3)) SELECT x, LENGTH(x);
CALL short_text('abc');
SET sql_mode = '';
CALL short_text('abcdef');
SET sql_mode = DEFAULT;

-- Arguments are expressions; OUT and INOUT ones must be user variables.
CREATE DEFINER=`root`@`localhost` PROCEDURE keep(v INT) SET @kept = v;
CALL keep(1 + 1);
SELECT @kept;
CALL keep((SELECT MAX(a) FROM t));
SELECT @kept;
CALL transfer(1, 2, 0, 5, @calls);
CALL transfer(1, 2, 0, @moved);
CALL transfer(1, 2, 0, @moved, @calls, 1);
CALL keep;
CALL nosuch();
CALL nosuchdb.keep(1);

-- A procedure without parentheses, and names without case.
CREATE DEFINER=`root`@`localhost` PROCEDURE Bump() UPDATE t SET b = b + 1;
CALL bump;
CALL BUMP();
SELECT * FROM t ORDER BY a;

-- CREATE errors and IF [NOT] EXISTS.
CREATE PROCEDURE keep(v INT) SELECT v;
CREATE PROCEDURE IF NOT EXISTS keep(v INT) SELECT v;
SHOW WARNINGS;
CREATE PROCEDURE dup(x INT, X INT) SELECT 1;
CREATE PROCEDURE bad(x) SELECT 1;
CREATE PROCEDURE nosuchdb.p() SELECT 1;
DROP PROCEDURE nosuch;
DROP PROCEDURE IF EXISTS nosuch;
SHOW WARNINGS;
CREATE OR REPLACE DEFINER=`root`@`localhost` PROCEDURE keep(v INT) SET @kept = v * 10;
CALL keep(4);
SELECT @kept;

-- What the catalog shows.
CREATE DEFINER=`root`@`localhost` PROCEDURE described(a INT, OUT b VARCHAR(10), INOUT c DECIMAL(5,2))
  COMMENT 'it''s described' READS SQL DATA DETERMINISTIC SQL SECURITY INVOKER
  SELECT a;
SHOW CREATE PROCEDURE described;
SHOW CREATE PROCEDURE transfer;
SHOW CREATE PROCEDURE nosuch;
SELECT ROUTINE_SCHEMA, ROUTINE_NAME, ROUTINE_TYPE, DATA_TYPE, ROUTINE_BODY, ROUTINE_DEFINITION, IS_DETERMINISTIC, SQL_DATA_ACCESS, SECURITY_TYPE, ROUTINE_COMMENT, DEFINER
  FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE() ORDER BY ROUTINE_NAME;
SELECT SPECIFIC_NAME, ORDINAL_POSITION, PARAMETER_MODE, PARAMETER_NAME, DATA_TYPE, CHARACTER_MAXIMUM_LENGTH, NUMERIC_PRECISION, NUMERIC_SCALE, DTD_IDENTIFIER, ROUTINE_TYPE
  FROM information_schema.PARAMETERS WHERE SPECIFIC_SCHEMA = DATABASE() ORDER BY SPECIFIC_NAME, ORDINAL_POSITION;

DROP PROCEDURE described;
DROP PROCEDURE transfer;
CALL transfer(1, 2, 0, @moved, @calls);
DROP PROCEDURE report;
DROP PROCEDURE fill;
DROP PROCEDURE half;
DROP PROCEDURE careful;
DROP PROCEDURE sum_to;
DROP PROCEDURE short_text;
DROP PROCEDURE keep;
DROP PROCEDURE bump;
DROP PROCEDURE add_seq;
SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE();
