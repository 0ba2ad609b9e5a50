-- Procedures that CALL themselves, directly or through other routines, as deep as
-- max_sp_recursion_depth allows (1456 past it): the variable's scopes and range, the
-- depth counted per procedure, OUT/INOUT values, result sets, writes and handlers across
-- levels, and recursion through a function (where the function may not run inside
-- itself: 1424) and a trigger.

SELECT @@max_sp_recursion_depth, @@global.max_sp_recursion_depth, @@session.max_sp_recursion_depth;
SHOW VARIABLES LIKE 'max_sp_recursion%';
SET max_sp_recursion_depth = 256;
SHOW WARNINGS;
SELECT @@max_sp_recursion_depth;
SET max_sp_recursion_depth = -1;
SHOW WARNINGS;
SELECT @@max_sp_recursion_depth;
SET max_sp_recursion_depth = 'deep';
SET max_sp_recursion_depth = 2.5;
SET max_sp_recursion_depth = 7;
SET max_sp_recursion_depth = DEFAULT;
SELECT @@max_sp_recursion_depth;
SET GLOBAL max_sp_recursion_depth = 3;
SELECT @@global.max_sp_recursion_depth, @@session.max_sp_recursion_depth;
SET GLOBAL max_sp_recursion_depth = DEFAULT;

DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE fact(n INT, INOUT acc BIGINT)
BEGIN
  IF n > 1 THEN
    SET acc = acc * n;
    CALL fact(n - 1, acc);
  END IF;
END//
CREATE DEFINER=`root`@`localhost` PROCEDURE countdown(n INT)
BEGIN
  IF n > 0 THEN CALL countdown(n - 1); END IF;
END//
CREATE DEFINER=`root`@`localhost` PROCEDURE ping(n INT) BEGIN IF n > 0 THEN CALL pong(n - 1); END IF; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE pong(n INT) BEGIN IF n > 0 THEN CALL ping(n - 1); END IF; END//
DELIMITER ;

-- The default, 0, allows none.
SET @acc = 1;
CALL fact(1, @acc);
CALL fact(2, @acc);
SELECT @acc;
CALL ping(1);
CALL ping(2);

-- The depth is read when the CALL runs: the limit counts instances inside the first.
SET max_sp_recursion_depth = 3;
CALL countdown(3);
CALL countdown(4);
SET max_sp_recursion_depth = 4;
CALL countdown(4);
SET max_sp_recursion_depth = 20;
SET @acc = 1;
CALL fact(20, @acc);
SELECT @acc;

-- Counted per procedure: ping and pong each run 6 times in ping(11).
SET max_sp_recursion_depth = 5;
CALL ping(11);
CALL ping(12);

-- Result sets and writes at every level, and a handler catching the limit.
CREATE TABLE visited (level INT PRIMARY KEY, note VARCHAR(20));
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE descend(n INT)
BEGIN
  DECLARE CONTINUE HANDLER FOR 1456 SET @stopped_at = n;
  INSERT INTO visited VALUES (n, CONCAT('level ', n));
  SELECT n AS level, ROW_COUNT() AS inserted;
  IF n < 10 THEN CALL descend(n + 1); END IF;
  UPDATE visited SET note = CONCAT(note, ' done') WHERE level = n;
END//
DELIMITER ;
SET max_sp_recursion_depth = 2;
SET @stopped_at = NULL;
CALL descend(1);
SELECT @stopped_at;
SELECT * FROM visited ORDER BY level;

-- Without a handler the error ends the CALL; the statements before it keep their work.
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE descend_unhandled(n INT)
BEGIN
  INSERT INTO visited VALUES (100 + n, 'unhandled');
  CALL descend_unhandled(n + 1);
END//
DELIMITER ;
CALL descend_unhandled(1);
SELECT * FROM visited WHERE level > 100 ORDER BY level;

-- Inside a transaction, rolled back whole.
START TRANSACTION;
CALL descend_unhandled(10);
SELECT COUNT(*) FROM visited WHERE level > 100;
ROLLBACK;
SELECT COUNT(*) FROM visited WHERE level > 100;

-- OUT parameters through the levels, and a tree walk with a cursor per level.
CREATE TABLE tree (id INT PRIMARY KEY, parent INT, name VARCHAR(10));
INSERT INTO tree VALUES (1, NULL, 'root'), (2, 1, 'a'), (3, 1, 'b'), (4, 2, 'a1'),
  (5, 2, 'a2'), (6, 5, 'a2x'), (7, 3, 'b1');
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE subtree_size(node INT, OUT total INT)
BEGIN
  DECLARE done INT DEFAULT 0;
  DECLARE child INT;
  DECLARE child_total INT;
  DECLARE children CURSOR FOR SELECT id FROM tree WHERE parent = node ORDER BY id;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1;
  SET total = 1;
  OPEN children;
  walk: LOOP
    FETCH children INTO child;
    IF done THEN LEAVE walk; END IF;
    CALL subtree_size(child, child_total);
    SET total = total + child_total;
  END LOOP;
  CLOSE children;
END//
CREATE DEFINER=`root`@`localhost` PROCEDURE path_of(node INT, INOUT path VARCHAR(100))
BEGIN
  DECLARE up INT;
  DECLARE label VARCHAR(10);
  SELECT parent, name INTO up, label FROM tree WHERE id = node;
  SET path = CONCAT('/', label, path);
  IF up IS NOT NULL THEN CALL path_of(up, path); END IF;
END//
DELIMITER ;
SET max_sp_recursion_depth = 10;
CALL subtree_size(1, @total);
SELECT @total;
CALL subtree_size(2, @total);
SELECT @total;
SET @path = '';
CALL path_of(6, @path);
SELECT @path;
SET max_sp_recursion_depth = 2;
SET @path = '';
CALL path_of(6, @path);
SELECT @path;

-- A prepared CALL.
SET max_sp_recursion_depth = 10;
PREPARE call_fact FROM 'CALL fact(?, @acc)';
SET @acc = 1, @n = 6;
EXECUTE call_fact USING @n;
SELECT @acc;
SET max_sp_recursion_depth = 1;
EXECUTE call_fact USING @n;
DEALLOCATE PREPARE call_fact;

-- Through a stored function: the procedure runs inside itself.
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE via_function(n INT, OUT r INT)
BEGIN
  IF n > 0 THEN SET r = f_step(n - 1) + 1; ELSE SET r = 0; END IF;
END//
CREATE DEFINER=`root`@`localhost` FUNCTION f_step(n INT) RETURNS INT
BEGIN
  DECLARE r INT;
  CALL via_function(n, r);
  RETURN r;
END//
DELIMITER ;
SET max_sp_recursion_depth = 5;
CALL via_function(1, @via_one);
SELECT @via_one;
CALL via_function(3, @via_three);
SELECT @via_three;
SELECT f_step(4);
SET max_sp_recursion_depth = 0;
CALL via_function(0, @via_zero);
SELECT @via_zero;
CALL via_function(1, @via_one_at_zero);
SELECT f_step(1);

-- Through a trigger, at the default depth (deeper is not built yet: 1235, tested in
-- crates/testkit/tests/procedures.rs).
CREATE TABLE chain (n INT);
CREATE TABLE chain_log (n INT);
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE chain_step(n INT)
BEGIN
  IF n > 1 THEN INSERT INTO chain VALUES (n); ELSE INSERT INTO chain_log VALUES (n); END IF;
END//
CREATE DEFINER=`root`@`localhost` TRIGGER chain_ai AFTER INSERT ON chain FOR EACH ROW
  CALL chain_step(NEW.n - 1)//
DELIMITER ;
SET max_sp_recursion_depth = 0;
CALL chain_step(1);
CALL chain_step(2);
SELECT * FROM chain ORDER BY n;
SELECT * FROM chain_log ORDER BY n;
SET max_sp_recursion_depth = DEFAULT;
