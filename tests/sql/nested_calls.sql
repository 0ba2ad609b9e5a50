-- CALL inside stored programs: IN, OUT and INOUT arguments bound to local variables,
-- user variables and NEW.col; the inner procedure's result sets and affected rows
-- belong to the outer CALL; procedures called from functions and triggers; and the
-- errors, raised when the inner CALL runs (as MariaDB does): 1305, 1318, 1414, 1415,
-- 1456 (a procedure calling itself: max_sp_recursion_depth is 0).

CREATE TABLE acct (id INT PRIMARY KEY, bal INT);
INSERT INTO acct VALUES (1, 100), (2, 50);

DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE inner_p(IN a INT, OUT b INT, INOUT c INT)
BEGIN
  SET b = a * 2;
  SET c = c + 1;
  SELECT a AS inner_a;
  UPDATE acct SET bal = bal + 1 WHERE id = 1;
END//
CREATE DEFINER=`root`@`localhost` PROCEDURE outer_p()
BEGIN
  DECLARE x, y INT DEFAULT 0;
  CALL inner_p(5, x, y);
  SELECT x, y;
  CALL inner_p(1, @o, y);
  SELECT y;
  CALL diff_nested_calls.inner_p(x + 1, @o2, @io);
END//
DELIMITER ;
SET @io = 10;
CALL outer_p();
SELECT @o, @o2, @io;
SELECT * FROM acct ORDER BY id;

-- Three levels, with a handler in the middle catching the innermost error.
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE failing(v INT)
BEGIN
  INSERT INTO acct VALUES (v, 0);
  INSERT INTO acct VALUES (v, 0);
END//
CREATE DEFINER=`root`@`localhost` PROCEDURE middle(v INT)
BEGIN
  DECLARE CONTINUE HANDLER FOR 1062 SET @dup = CONCAT('caught at ', v);
  CALL failing(v);
  SELECT 'middle goes on' AS state;
END//
CREATE DEFINER=`root`@`localhost` PROCEDURE top() CALL middle(7)//
DELIMITER ;
SET @dup = NULL;
CALL top();
SELECT @dup;
SELECT * FROM acct ORDER BY id;

-- From a function and from a trigger: no result sets there.
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE seven(OUT b INT) SET b = 7//
CREATE DEFINER=`root`@`localhost` FUNCTION f_seven() RETURNS INT BEGIN DECLARE x INT; CALL seven(x); RETURN x; END//
CREATE DEFINER=`root`@`localhost` FUNCTION f_result_set() RETURNS INT BEGIN DECLARE x, y INT DEFAULT 0; CALL inner_p(5, x, y); RETURN x; END//
DELIMITER ;
SELECT f_seven();
SELECT f_result_set();
CREATE TABLE tt (a INT, b INT);
DELIMITER //
CREATE DEFINER=`root`@`localhost` TRIGGER tt_bi BEFORE INSERT ON tt FOR EACH ROW
BEGIN
  CALL seven(NEW.b);
END//
DELIMITER ;
INSERT INTO tt (a) VALUES (1), (2);
SELECT * FROM tt ORDER BY a;

-- Errors come when the inner CALL runs; CREATE accepts them.
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE rec(n INT) BEGIN IF n > 0 THEN CALL rec(n - 1); END IF; SELECT n; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE rec_guarded(n INT) BEGIN IF n > 100 THEN CALL rec_guarded(n - 1); END IF; SELECT n; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE ping(n INT) BEGIN IF n > 0 THEN CALL pong(n - 1); END IF; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE pong(n INT) CALL ping(n)//
CREATE DEFINER=`root`@`localhost` PROCEDURE bad_out() CALL inner_p(1, 2, 3)//
CREATE DEFINER=`root`@`localhost` PROCEDURE bad_count() CALL inner_p(1)//
CREATE DEFINER=`root`@`localhost` PROCEDURE missing() BEGIN SELECT 'before'; CALL nosuch(); END//
CREATE DEFINER=`root`@`localhost` PROCEDURE missing_caught() BEGIN DECLARE CONTINUE HANDLER FOR 1305 SELECT 'caught 1305' AS h; CALL nosuch(); END//
DELIMITER ;
CALL rec(2);
CALL rec_guarded(1);
CALL ping(3);
CALL bad_out();
CALL bad_count();
CALL missing();
CALL missing_caught();
