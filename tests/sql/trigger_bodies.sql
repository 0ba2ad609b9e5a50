-- Compound statements in trigger bodies: IF/ELSEIF/ELSE, DECLARE and SET of local
-- variables (converted to their declared type), the CASE statement (1339), nested blocks,
-- labels, WHILE/REPEAT/LOOP with LEAVE and ITERATE, SELECT ... INTO (1172, 1222), SIGNAL
-- with any SQLSTATE, MESSAGE_TEXT and MYSQL_ERRNO; errors at CREATE (1064, 1193, 1308,
-- 1309, 1310, 1313, 1327, 1331, 1407, 1415, 1641).

CREATE TABLE stock (id INT PRIMARY KEY, qty INT, note VARCHAR(20));
CREATE TABLE log (n INT AUTO_INCREMENT PRIMARY KEY, what VARCHAR(40), v INT);

-- A validation trigger.
DELIMITER //
CREATE TRIGGER stock_check BEFORE INSERT ON stock FOR EACH ROW
BEGIN
  IF NEW.qty < 0 THEN
    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'qty must not be negative';
  ELSEIF NEW.qty IS NULL THEN
    SET NEW.qty = 0, NEW.note = 'defaulted';
  ELSEIF NEW.qty > 100 THEN
    SET NEW.note = 'big';
  ELSE
    SET NEW.note = IFNULL(NEW.note, 'ok');
  END IF;
END//
DELIMITER ;
INSERT INTO stock VALUES (1, -5, NULL);
INSERT INTO stock VALUES (1, 5, NULL), (2, NULL, 'x'), (3, 500, NULL), (4, 7, 'kept');
INSERT INTO stock VALUES (5, 1, NULL), (6, -1, NULL);
SELECT * FROM stock ORDER BY id;
DROP TRIGGER stock_check;

-- Local variables: DECLARE with DEFAULT, nested blocks shadowing, conversion on SET.
DELIMITER //
CREATE TRIGGER locals BEFORE INSERT ON stock FOR EACH ROW
BEGIN
  DECLARE a, b INT DEFAULT 2;
  DECLARE d DECIMAL(5,2) DEFAULT 1.25;
  DECLARE s VARCHAR(5) DEFAULT 'ab';
  DECLARE t TINYINT;
  BEGIN
    DECLARE a CHAR(3) DEFAULT 'in';
    SET @inner = a;
  END;
  SET a = a + b, s = CONCAT(s, 'c'), @user = a;
  SET t = NEW.qty;
  SET NEW.note = CONCAT(s, ':', a, ':', d, ':', t);
  INSERT INTO log (what, v) VALUES (s, a + t);
END//
DELIMITER ;
INSERT INTO stock VALUES (10, 3, NULL);
SELECT @inner, @user;
SELECT * FROM stock WHERE id = 10;
SELECT what, v FROM log ORDER BY n;
INSERT INTO stock VALUES (11, 300, NULL);
SELECT * FROM stock WHERE id = 11;
DROP TRIGGER locals;

-- A local variable shadows a column of the same name.
DELIMITER //
CREATE TRIGGER shadow AFTER INSERT ON stock FOR EACH ROW
BEGIN
  DECLARE v INT DEFAULT 42;
  INSERT INTO log (what, v) VALUES ('shadow', v);
  UPDATE log SET v = v + 1 WHERE what = 'shadow';
END//
DELIMITER ;
INSERT INTO stock VALUES (12, 1, 'x');
SELECT what, v FROM log WHERE what = 'shadow';
DROP TRIGGER shadow;

-- CASE statements: simple and searched; 1339 with no match and no ELSE.
DELIMITER //
CREATE TRIGGER cases BEFORE UPDATE ON stock FOR EACH ROW
BEGIN
  CASE NEW.qty
    WHEN 1 THEN SET NEW.note = 'one';
    WHEN 2 THEN SET NEW.note = 'two';
  END CASE;
  CASE
    WHEN OLD.qty IS NULL THEN SET @was = 'null';
    WHEN OLD.qty < 10 THEN SET @was = 'small';
    ELSE SET @was = 'large';
  END CASE;
END//
DELIMITER ;
UPDATE stock SET qty = 2 WHERE id = 1;
SELECT * FROM stock WHERE id = 1;
SELECT @was;
UPDATE stock SET qty = 3 WHERE id = 1;
UPDATE stock SET qty = 1 WHERE id IN (3, 5);
SELECT * FROM stock WHERE id IN (3, 5) ORDER BY id;
DROP TRIGGER cases;

-- Loops and labels.
DELIMITER //
CREATE TRIGGER loops BEFORE INSERT ON stock FOR EACH ROW
BEGIN
  DECLARE i INT DEFAULT 0;
  DECLARE acc VARCHAR(40) DEFAULT '';
  WHILE i < NEW.qty DO
    SET i = i + 1;
    SET acc = CONCAT(acc, i);
  END WHILE;
  SET @w = acc;
  REPEAT
    SET i = i - 1;
  UNTIL i <= 0 END REPEAT;
  SET @r = i;
  outer_loop: LOOP
    SET i = i + 1;
    IF i % 2 = 1 THEN
      ITERATE outer_loop;
    END IF;
    IF i >= 6 THEN
      LEAVE outer_loop;
    END IF;
    SET acc = CONCAT(acc, '-', i);
  END LOOP outer_loop;
  SET @l = acc;
  blk: BEGIN
    SET @before_leave = 1;
    LEAVE blk;
    SET @after_leave = 1;
  END blk;
  SET NEW.note = acc;
END//
DELIMITER ;
SET @after_leave = NULL;
INSERT INTO stock VALUES (20, 4, NULL);
SELECT @w, @r, @l, @before_leave, @after_leave;
SELECT * FROM stock WHERE id = 20;
DROP TRIGGER loops;

-- SELECT ... INTO local and user variables.
DELIMITER //
CREATE TRIGGER lookups BEFORE INSERT ON log FOR EACH ROW
BEGIN
  DECLARE q INT DEFAULT -1;
  DECLARE nt VARCHAR(20);
  SELECT qty, note INTO q, nt FROM stock WHERE id = NEW.v;
  SELECT COUNT(*) INTO @cnt FROM stock;
  SET NEW.what = CONCAT(IFNULL(nt, 'none'), '/', q);
END//
DELIMITER ;
INSERT INTO log (what, v) VALUES ('', 1);
INSERT INTO log (what, v) VALUES ('', 999);
SHOW WARNINGS;
SELECT what, v FROM log WHERE v IN (1, 999) ORDER BY n;
SELECT @cnt;
DROP TRIGGER lookups;
CREATE TRIGGER many BEFORE INSERT ON log FOR EACH ROW SELECT qty INTO @q FROM stock;
INSERT INTO log (what, v) VALUES ('many', 1);
DROP TRIGGER many;
DELIMITER //
CREATE TRIGGER cols BEFORE INSERT ON log FOR EACH ROW BEGIN DECLARE x INT; SELECT 1, 2 INTO x; END//
DELIMITER ;
INSERT INTO log (what, v) VALUES ('cols', 1);
DROP TRIGGER cols;
SELECT COUNT(*) FROM log WHERE what IN ('many', 'cols');

-- SIGNAL: SQLSTATE classes, MYSQL_ERRNO, MESSAGE_TEXT from a variable.
CREATE TRIGGER sig BEFORE INSERT ON log FOR EACH ROW SIGNAL SQLSTATE '22012' SET MYSQL_ERRNO = 1234, MESSAGE_TEXT = 'custom';
INSERT INTO log (what, v) VALUES ('s', 1);
DROP TRIGGER sig;
CREATE TRIGGER sig BEFORE INSERT ON log FOR EACH ROW SIGNAL SQLSTATE '02000';
INSERT INTO log (what, v) VALUES ('s', 1);
DROP TRIGGER sig;
CREATE TRIGGER sig BEFORE INSERT ON log FOR EACH ROW SIGNAL SQLSTATE 'HY000' SET MYSQL_ERRNO = 30001;
INSERT INTO log (what, v) VALUES ('s', 1);
DROP TRIGGER sig;
CREATE TRIGGER sig BEFORE INSERT ON log FOR EACH ROW SIGNAL SQLSTATE VALUE '45001';
INSERT INTO log (what, v) VALUES ('s', 1);
DROP TRIGGER sig;
DELIMITER //
CREATE TRIGGER sig BEFORE INSERT ON log FOR EACH ROW
BEGIN
  SIGNAL SQLSTATE '01234' SET MESSAGE_TEXT = 'only a warning';
  SET NEW.what = 'after warning';
END//
DELIMITER ;
INSERT INTO log (what, v) VALUES ('s', 77);
SHOW WARNINGS;
SELECT what FROM log WHERE v = 77;
DROP TRIGGER sig;
CREATE TRIGGER sig BEFORE INSERT ON log FOR EACH ROW SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = NEW.what;
INSERT INTO log (what, v) VALUES ('from the row', 1);
DROP TRIGGER sig;
CREATE TRIGGER sig BEFORE INSERT ON log FOR EACH ROW SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = @e;
SET @e = 0;
INSERT INTO log (what, v) VALUES ('s', 1);
SET @e = 1500;
INSERT INTO log (what, v) VALUES ('s', 1);
DROP TRIGGER sig;
CREATE TRIGGER sig BEFORE INSERT ON log FOR EACH ROW SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = @m;
SET @m = NULL;
INSERT INTO log (what, v) VALUES ('s', 1);
DROP TRIGGER sig;

-- Compound bodies without BEGIN, sent whole (their `;` do not end the statement), with
-- the IF() and REPEAT() functions and a CASE expression inside.
CREATE TRIGGER one_if BEFORE INSERT ON log FOR EACH ROW IF NEW.v = 5 THEN SET NEW.what = 'five'; ELSE SET NEW.what = CASE WHEN NEW.v > 5 THEN IF(NEW.v > 10, 'big', REPEAT('m', 2)) ELSE 'small' END; END IF;
INSERT INTO log (what, v) VALUES ('', 5), ('', 7), ('', 20), ('', 2);
SELECT what, v FROM log WHERE v IN (5, 7, 20, 2) ORDER BY n;
DROP TRIGGER one_if;
CREATE TRIGGER one_loop BEFORE INSERT ON log FOR EACH ROW lp: LOOP SET NEW.v = NEW.v * 2; IF NEW.v > 100 THEN LEAVE lp; END IF; END LOOP lp;
INSERT INTO log (what, v) VALUES ('doubled', 3);
SELECT what, v FROM log WHERE what = 'doubled';
DROP TRIGGER one_loop;

-- Errors at CREATE.
CREATE TRIGGER bad BEFORE INSERT ON log FOR EACH ROW SIGNAL SQLSTATE '00000';
CREATE TRIGGER bad BEFORE INSERT ON log FOR EACH ROW SIGNAL SQLSTATE '4500';
CREATE TRIGGER bad BEFORE INSERT ON log FOR EACH ROW SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'a', MESSAGE_TEXT = 'b';
CREATE TRIGGER bad BEFORE INSERT ON log FOR EACH ROW SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = CONCAT('a', 'b');
CREATE TRIGGER bad BEFORE INSERT ON log FOR EACH ROW SELECT 1;
CREATE TRIGGER bad BEFORE INSERT ON log FOR EACH ROW RETURN 1;
CREATE TRIGGER bad BEFORE INSERT ON log FOR EACH ROW SELECT 1 INTO nope;
DELIMITER //
CREATE TRIGGER bad BEFORE INSERT ON log FOR EACH ROW BEGIN SET @a = 1; DECLARE x INT; END//
CREATE TRIGGER bad BEFORE INSERT ON log FOR EACH ROW BEGIN DECLARE x INT; DECLARE x INT; END//
CREATE TRIGGER bad BEFORE INSERT ON log FOR EACH ROW BEGIN DECLARE x INT DEFAULT 1; SET y = 2; END//
CREATE TRIGGER bad BEFORE INSERT ON log FOR EACH ROW BEGIN LEAVE nope; END//
CREATE TRIGGER bad BEFORE INSERT ON log FOR EACH ROW a: BEGIN ITERATE a; END//
CREATE TRIGGER bad BEFORE INSERT ON log FOR EACH ROW a: LOOP LEAVE a; END LOOP b//
CREATE TRIGGER bad BEFORE INSERT ON log FOR EACH ROW BEGIN a: LOOP a: LOOP LEAVE a; END LOOP; END LOOP; END//
CREATE TRIGGER bad BEFORE INSERT ON log FOR EACH ROW BEGIN IF 1 THEN END IF; END//
CREATE TRIGGER bad BEFORE INSERT ON log FOR EACH ROW BEGIN IF 1 THEN SET @a = 1; END//
CREATE TRIGGER bad BEFORE INSERT ON log FOR EACH ROW BEGIN SET @a = 1 END//
CREATE TRIGGER bad BEFORE INSERT ON log FOR EACH ROW BEGIN DECLARE z INT; SET NEW.nope = z; END//
CREATE TRIGGER bad AFTER INSERT ON log FOR EACH ROW BEGIN DECLARE z INT; SET NEW.v = z; END//
CREATE TRIGGER ok1 BEFORE INSERT ON log FOR EACH ROW BEGIN END//
CREATE TRIGGER ok2 BEFORE INSERT ON log FOR EACH ROW BEGIN a: LOOP LEAVE a; END LOOP; a: LOOP LEAVE a; END LOOP; END//
DELIMITER ;
INSERT INTO log (what, v) VALUES ('ok', 1);
SELECT TRIGGER_NAME FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE() ORDER BY TRIGGER_NAME;
DROP TRIGGER ok1;
DROP TRIGGER ok2;
DROP TABLE stock, log;

-- What a trigger records: the session's character_set_client and collation_connection
-- when it was created, and its database's collation.
CREATE DATABASE trigger_bodies_bin COLLATE utf8mb4_bin;
CREATE TABLE trigger_bodies_bin.t (a INT);
SET NAMES utf8mb4 COLLATE utf8mb4_bin;
CREATE TRIGGER trigger_bodies_bin.t1 BEFORE INSERT ON trigger_bodies_bin.t FOR EACH ROW SET @a = 1;
SET NAMES latin1;
CREATE TRIGGER trigger_bodies_bin.t2 BEFORE INSERT ON trigger_bodies_bin.t FOR EACH ROW SET @a = 2;
SET character_set_client = latin1, collation_connection = utf8mb4_general_ci;
CREATE TRIGGER trigger_bodies_bin.t3 BEFORE INSERT ON trigger_bodies_bin.t FOR EACH ROW SET @a = 3;
SET NAMES utf8mb4;
SELECT TRIGGER_NAME, CHARACTER_SET_CLIENT, COLLATION_CONNECTION, DATABASE_COLLATION FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = 'trigger_bodies_bin' ORDER BY TRIGGER_NAME;
DROP DATABASE trigger_bodies_bin;
