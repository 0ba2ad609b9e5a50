-- ROW_COUNT() inside stored programs reads what the body's last SQL statement set, as in
-- MariaDB: affected rows after INSERT / UPDATE / DELETE (changed rows for UPDATE), -1
-- after a SELECT or a statement that failed, the rows a SELECT ... INTO delivered, 0
-- after SET of a user variable, a CALL's sum of affected rows; SET of a local variable
-- and control flow leave it as it was, and the first statement of a body reads what the
-- statement before the CALL set. GET DIAGNOSTICS ... ROW_COUNT reads the same count.

CREATE TABLE t (id INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1), (2, 2), (3, 3);

DELIMITER //
CREATE PROCEDURE after_update()
BEGIN
  UPDATE t SET v = v + 1 WHERE id < 3;
  SELECT ROW_COUNT() AS after_update;
END//
CREATE PROCEDURE after_nothing_matched()
BEGIN
  DECLARE n INT;
  UPDATE t SET v = 0 WHERE id = 9;
  SET n = ROW_COUNT();
  SELECT n AS after_nothing_matched;
END//
CREATE PROCEDURE after_set_local()
BEGIN
  DECLARE n INT;
  UPDATE t SET v = v + 1 WHERE id < 3;
  SET n = 5;
  SELECT ROW_COUNT() AS after_set_local;
END//
CREATE PROCEDURE after_set_user()
BEGIN
  UPDATE t SET v = v + 1 WHERE id < 3;
  SET @x = 5;
  SELECT ROW_COUNT() AS after_set_user;
END//
CREATE PROCEDURE after_select()
BEGIN
  UPDATE t SET v = v + 1 WHERE id < 3;
  SELECT 1 AS one;
  SELECT ROW_COUNT() AS after_select;
END//
CREATE PROCEDURE in_if()
BEGIN
  DELETE FROM t WHERE id > 100;
  INSERT INTO t VALUES (101, 1), (102, 1), (103, 1);
  IF ROW_COUNT() = 3 THEN
    SELECT 'three' AS inserted, ROW_COUNT() AS still;
  END IF;
  DELETE FROM t WHERE id > 100;
END//
CREATE PROCEDURE after_select_into()
BEGIN
  DECLARE n INT;
  DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
  INSERT INTO t VALUES (10, 1), (11, 1);
  SELECT v INTO n FROM t WHERE id = 1;
  SELECT ROW_COUNT() AS after_select_into;
  SELECT v INTO n FROM t WHERE id = 999;
  SELECT ROW_COUNT() AS after_select_into_nothing;
END//
CREATE PROCEDURE deletes_two() DELETE FROM t WHERE id >= 10//
CREATE PROCEDURE after_call()
BEGIN
  CALL deletes_two();
  SELECT ROW_COUNT() AS after_call;
END//
CREATE PROCEDURE unchanged()
BEGIN
  UPDATE t SET v = v WHERE id < 3;
  SELECT ROW_COUNT() AS unchanged;
END//
CREATE PROCEDURE after_error()
BEGIN
  DECLARE CONTINUE HANDLER FOR 1062 SELECT ROW_COUNT() AS in_handler;
  UPDATE t SET v = 1 WHERE id = 1;
  INSERT INTO t VALUES (1, 1);
  SELECT ROW_COUNT() AS after_handler;
END//
CREATE PROCEDURE in_loop()
BEGIN
  DECLARE i INT DEFAULT 0;
  DECLARE total INT DEFAULT 0;
  WHILE i < 3 DO
    SET i = i + 1;
    UPDATE t SET v = v + 1 WHERE id <= i;
    SET total = total + ROW_COUNT();
  END WHILE;
  SELECT total;
END//
CREATE PROCEDURE with_cursor()
BEGIN
  DECLARE n INT;
  DECLARE c CURSOR FOR SELECT v FROM t;
  UPDATE t SET v = v + 1 WHERE id = 1;
  OPEN c;
  SELECT ROW_COUNT() AS after_open;
  FETCH c INTO n;
  SELECT ROW_COUNT() AS after_fetch;
  CLOSE c;
END//
CREATE PROCEDURE diagnostics()
BEGIN
  DECLARE n, m INT;
  DECLARE CONTINUE HANDLER FOR 1062
  BEGIN
    GET DIAGNOSTICS n = ROW_COUNT;
    GET DIAGNOSTICS CONDITION 1 @errno = MYSQL_ERRNO;
    SELECT n AS in_handler;
  END;
  UPDATE t SET v = v + 1 WHERE id < 3;
  GET DIAGNOSTICS n = ROW_COUNT;
  GET CURRENT DIAGNOSTICS m = ROW_COUNT, @r = ROW_COUNT;
  SELECT n, m, ROW_COUNT() AS after_get_diagnostics;
  INSERT INTO t VALUES (1, 1);
END//
CREATE PROCEDURE first_in_body() SELECT ROW_COUNT() AS first_in_body//
DELIMITER ;

CALL after_update();
CALL after_nothing_matched();
CALL after_set_local();
CALL after_set_user();
CALL after_select();
CALL in_if();
CALL after_select_into();
CALL after_call();
CALL unchanged();
CALL after_error();
CALL in_loop();
CALL with_cursor();
CALL diagnostics();
SELECT @r, @errno;
INSERT INTO t VALUES (21, 1), (22, 1);
CALL first_in_body();
UPDATE t SET v = v + 1;
CALL after_select();
SELECT ROW_COUNT() AS after_the_call;
SELECT * FROM t ORDER BY id;
