-- Cursors in stored programs: DECLARE ... CURSOR (with MariaDB's cursor parameters),
-- OPEN, FETCH [[NEXT] FROM] ... INTO, CLOSE, the NOT FOUND handler loop, rows read at
-- OPEN (later changes unseen), cursors closed when their block ends, cursors in
-- functions and triggers, and the errors: 1064, 1323, 1324, 1325, 1326, 1327, 1328,
-- 1329 (FETCH past the end is an error, not a warning), 1333, 1337, 1338, 1406, 4080.

CREATE TABLE item (id INT PRIMARY KEY, name VARCHAR(20), qty INT);
INSERT INTO item VALUES (1, 'apple', 10), (2, 'pear', 0), (3, 'fig', 5), (4, 'kiwi', NULL);

-- The loop every manual shows.
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE stock_report()
BEGIN
  DECLARE done INT DEFAULT 0;
  DECLARE n VARCHAR(20);
  DECLARE q, total INT DEFAULT 0;
  DECLARE c CURSOR FOR SELECT name, qty FROM item ORDER BY id;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1;
  OPEN c;
  read_loop: LOOP
    FETCH c INTO n, q;
    IF done THEN
      LEAVE read_loop;
    END IF;
    SET total = total + IFNULL(q, 0);
    SELECT n AS item, q AS left_over;
  END LOOP;
  CLOSE c;
  SELECT total;
END//
DELIMITER ;
CALL stock_report();
SELECT ROW_COUNT();

-- Cursor parameters, FETCH NEXT FROM, reopening after CLOSE; local variables in the
-- cursor's query are read at OPEN.
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE after_id(p INT)
BEGIN
  DECLARE x INT;
  DECLARE floor_qty INT DEFAULT -1;
  DECLARE c CURSOR (a INT) FOR SELECT id FROM item WHERE id > a AND IFNULL(qty, 0) > floor_qty ORDER BY id;
  OPEN c(p);
  FETCH c INTO x;
  SELECT x;
  CLOSE c;
  SET floor_qty = 4;
  OPEN c(p + 1);
  FETCH NEXT FROM c INTO x;
  SELECT x;
  FETCH FROM c INTO x;
  SELECT x;
END//
DELIMITER ;
CALL after_id(0);
CALL after_id(2);

-- The rows are read at OPEN: the body's own later changes are not fetched.
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE snapshot_at_open()
BEGIN
  DECLARE x INT;
  DECLARE seen INT DEFAULT 0;
  DECLARE done INT DEFAULT 0;
  DECLARE c CURSOR FOR SELECT id FROM item ORDER BY id;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1;
  OPEN c;
  INSERT INTO item VALUES (9, 'late', 1);
  DELETE FROM item WHERE id = 1;
  l: LOOP
    FETCH c INTO x;
    IF done THEN LEAVE l; END IF;
    SET seen = seen + 1;
  END LOOP;
  SELECT seen;
END//
DELIMITER ;
CALL snapshot_at_open();
SELECT id FROM item ORDER BY id;
INSERT INTO item VALUES (1, 'apple', 10);
DELETE FROM item WHERE id = 9;

-- A cursor of an outer block read from an inner one; a cursor declared in a loop's block
-- is closed each time the block ends, so OPEN works again.
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE scopes()
BEGIN
  DECLARE x INT;
  DECLARE i INT DEFAULT 0;
  DECLARE c CURSOR FOR SELECT id FROM item ORDER BY id;
  OPEN c;
  BEGIN
    DECLARE y INT;
    DECLARE c CURSOR FOR SELECT id * 100 FROM item ORDER BY id DESC;
    OPEN c;
    FETCH c INTO y;
    SELECT y;
  END;
  FETCH c INTO x;
  SELECT x;
  WHILE i < 3 DO
    BEGIN
      DECLARE d CURSOR FOR SELECT name FROM item ORDER BY id;
      OPEN d;
      FETCH d INTO x;
      SET i = i + 1;
    END;
  END WHILE;
  SELECT x, i;
END//
DELIMITER ;
CALL scopes();

-- A stored function and a trigger that read through a cursor.
DELIMITER //
CREATE DEFINER=`root`@`localhost` FUNCTION stock_total() RETURNS INT READS SQL DATA
BEGIN
  DECLARE q, s INT DEFAULT 0;
  DECLARE done INT DEFAULT 0;
  DECLARE c CURSOR FOR SELECT IFNULL(qty, 0) FROM item;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1;
  OPEN c;
  l: LOOP
    FETCH c INTO q;
    IF done THEN LEAVE l; END IF;
    SET s = s + q;
  END LOOP;
  CLOSE c;
  RETURN s;
END//
DELIMITER ;
SELECT stock_total();
CREATE TABLE audit (id INT, names VARCHAR(200));
DELIMITER //
CREATE DEFINER=`root`@`localhost` TRIGGER audit_names AFTER INSERT ON audit FOR EACH ROW
BEGIN
  DECLARE n VARCHAR(20);
  DECLARE done INT DEFAULT 0;
  DECLARE c CURSOR FOR SELECT name FROM item WHERE id <= NEW.id ORDER BY id;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1;
  SET @names = '';
  OPEN c;
  l: LOOP
    FETCH c INTO n;
    IF done THEN LEAVE l; END IF;
    SET @names = CONCAT(@names, n, ';');
  END LOOP;
END//
DELIMITER ;
INSERT INTO audit VALUES (3, NULL);
SELECT @names;

-- Errors when the body runs.
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE open_twice() BEGIN DECLARE c CURSOR FOR SELECT id FROM item; OPEN c; OPEN c; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE fetch_closed() BEGIN DECLARE x INT; DECLARE c CURSOR FOR SELECT id FROM item; FETCH c INTO x; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE close_closed() BEGIN DECLARE c CURSOR FOR SELECT id FROM item; OPEN c; CLOSE c; CLOSE c; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE fetch_width() BEGIN DECLARE x INT; DECLARE c CURSOR FOR SELECT id, name FROM item; OPEN c; FETCH c INTO x; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE fetch_past_end() BEGIN DECLARE x INT; DECLARE c CURSOR FOR SELECT id FROM item WHERE id > 100; OPEN c; FETCH c INTO x; SELECT 'not reached'; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE fetch_too_long() BEGIN DECLARE x VARCHAR(2); DECLARE c CURSOR FOR SELECT name FROM item ORDER BY id; OPEN c; FETCH c INTO x; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE no_table() BEGIN DECLARE x INT; DECLARE c CURSOR FOR SELECT id FROM no_such_table; OPEN c; FETCH c INTO x; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE past_end_caught() BEGIN DECLARE x INT; DECLARE c CURSOR FOR SELECT id FROM item WHERE id > 100; DECLARE EXIT HANDLER FOR SQLEXCEPTION SELECT 'not caught by SQLEXCEPTION'; OPEN c; FETCH c INTO x; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE width_caught() BEGIN DECLARE x INT; DECLARE c CURSOR FOR SELECT id, name FROM item; DECLARE EXIT HANDLER FOR SQLEXCEPTION SELECT 'caught 1328'; OPEN c; FETCH c INTO x; END//
DELIMITER ;
CALL open_twice();
CALL fetch_closed();
CALL close_closed();
CALL fetch_width();
CALL fetch_past_end();
CALL fetch_too_long();
CALL no_table();
CALL past_end_caught();
CALL width_caught();

-- Errors at CREATE.
CREATE PROCEDURE undefined_cursor() BEGIN DECLARE x INT; OPEN nosuch; END;
CREATE PROCEDURE fetch_undefined() BEGIN DECLARE x INT; FETCH nosuch INTO x; END;
CREATE PROCEDURE variable_after_cursor() BEGIN DECLARE c CURSOR FOR SELECT 1; DECLARE x INT; END;
CREATE PROCEDURE cursor_after_handler() BEGIN DECLARE CONTINUE HANDLER FOR NOT FOUND SET @a = 1; DECLARE c CURSOR FOR SELECT 1; END;
CREATE PROCEDURE duplicate_cursor() BEGIN DECLARE c CURSOR FOR SELECT 1; DECLARE c CURSOR FOR SELECT 2; END;
CREATE PROCEDURE cursor_into() BEGIN DECLARE c CURSOR FOR SELECT id INTO @x FROM item; END;
CREATE PROCEDURE fetch_user_variable() BEGIN DECLARE c CURSOR FOR SELECT id FROM item; OPEN c; FETCH c INTO @x; END;
CREATE PROCEDURE fetch_undeclared() BEGIN DECLARE c CURSOR FOR SELECT id FROM item; OPEN c; FETCH c INTO y; END;
CREATE PROCEDURE missing_argument() BEGIN DECLARE c CURSOR (a INT) FOR SELECT a; OPEN c; END;
CREATE PROCEDURE extra_argument() BEGIN DECLARE c CURSOR FOR SELECT 1; OPEN c(1); END;
SELECT ROUTINE_NAME, ROUTINE_TYPE FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'diff_cursors' ORDER BY 1;
