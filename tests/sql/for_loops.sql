-- FOR loops in stored programs: over an integer range ([REVERSE] lower .. upper, bounds
-- evaluated once into BIGINT locals that may not be NULL), over a declared cursor (with
-- its parameters) and over a SELECT, each row fetched into a record read as rec.column;
-- labels with LEAVE and ITERATE, nested loops, the loop variable shadowing an outer
-- local, in a procedure, a function and a trigger, and the errors: 1048, 1060, 1241,
-- 1310, 1323, 1325, 1326, 1327, 1366, 1690, 4080, 4082.

CREATE TABLE item (id INT PRIMARY KEY, name VARCHAR(20), qty INT);
INSERT INTO item VALUES (1, 'apple', 10), (2, 'pear', 0), (3, 'fig', 5);

-- Ranges: upward, REVERSE, empty either way, bounds read once, the counter assigned in
-- the body (the next step starts from what it holds).
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE ranges(n INT)
BEGIN
  DECLARE s VARCHAR(100) DEFAULT '';
  FOR i IN 1..n DO SET s = CONCAT(s, i, ','); SET n = 10; END FOR;
  SELECT s, n;
  SET s = '';
  FOR i IN REVERSE 1..3 DO SET s = CONCAT(s, i, ','); END FOR;
  SELECT s AS reversed;
  SET s = '';
  FOR i IN 3..1 DO SET s = CONCAT(s, i, ','); END FOR;
  FOR i IN REVERSE 3..1 DO SET s = CONCAT(s, i, ','); END FOR;
  SELECT s AS empty_ranges;
  FOR i IN 1..5 DO SET s = CONCAT(s, i, ','); SET i = i + 1; END FOR;
  FOR i IN REVERSE 1..5 DO SET s = CONCAT(s, i, ';'); SET i = i - 1; END FOR;
  FOR i IN 1..5 DO SET s = CONCAT(s, i, '.'); SET i = 10; END FOR;
  SELECT s AS counter_set;
  FOR i IN -2 .. -1 DO SELECT i; END FOR;
  FOR i IN 1 + 1..(SELECT MAX(id) FROM item) DO SELECT i, i * 2 AS twice; END FOR;
END//
DELIMITER ;
CALL ranges(3);
CALL ranges(0);

-- Non-integer bounds are stored as BIGINT (rounded).
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE rounding()
BEGIN
  FOR i IN 1.5..3.7 DO SELECT i; END FOR;
  FOR i IN '2'..2.4 DO SELECT i; END FOR;
END//
DELIMITER ;
CALL rounding();

-- LEAVE and ITERATE, nested loops, the inner counter reading the outer one.
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE labels()
BEGIN
  DECLARE s VARCHAR(100) DEFAULT '';
  l: FOR i IN 1..10 DO
    IF i = 2 THEN ITERATE l; END IF;
    IF i = 5 THEN LEAVE l; END IF;
    SET s = CONCAT(s, i, ',');
  END FOR l;
  SELECT s;
  SET s = '';
  outer_loop: FOR i IN 1..3 DO
    FOR j IN i..3 DO
      IF j = 3 AND i = 2 THEN ITERATE outer_loop; END IF;
      IF i = 3 THEN LEAVE outer_loop; END IF;
      SET s = CONCAT(s, i, j, ' ');
    END FOR;
  END FOR outer_loop;
  SELECT s AS pairs;
  w: WHILE TRUE DO
    FOR i IN 1..3 DO IF i = 2 THEN LEAVE w; END IF; SELECT i AS before_leave; END FOR;
  END WHILE w;
END//
DELIMITER ;
CALL labels();

-- The counter is a new local: it shadows an outer one of the same name, which the
-- bounds still read; an inner DECLARE shadows it; it is gone after the loop.
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE shadows()
BEGIN
  DECLARE i INT DEFAULT 2;
  FOR i IN i..3 DO SELECT i AS counter; END FOR;
  SELECT i AS outer_i;
  FOR i IN 1..2 DO FOR i IN 5..6 DO SELECT i AS inner_i; END FOR; SELECT i AS outer_counter; END FOR;
  FOR k IN 1..1 DO BEGIN DECLARE k INT DEFAULT 7; SELECT k; END; SELECT k; END FOR;
END//
CREATE DEFINER=`root`@`localhost` PROCEDURE gone_after() BEGIN FOR i IN 1..2 DO SELECT i; END FOR; SELECT i; END//
DELIMITER ;
CALL shadows();
CALL gone_after();

-- Cursor loops: the record's fields as the cursor's columns name them, cursor
-- parameters, REVERSE ignored (as MariaDB does), FETCH of the same cursor in the body,
-- the cursor closed after the loop and after its own LEAVE (not a LEAVE of an outer
-- label), a field assigned.
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE cursor_loops()
BEGIN
  DECLARE x, z INT;
  DECLARE y VARCHAR(20);
  DECLARE c CURSOR FOR SELECT id, name, qty + 1 FROM item ORDER BY id;
  DECLARE d CURSOR (low INT) FOR SELECT id, name FROM item WHERE id >= low ORDER BY id;
  FOR r IN c DO SELECT r.id, r.name, r.`qty + 1`, R.ID + 1 AS next_id; END FOR;
  FOR r IN d(2) DO SELECT r.id, r.name; END FOR;
  FOR r IN REVERSE d(3) DO SELECT r.name AS reverse_ignored; END FOR;
  l: FOR r IN c DO IF r.id = 2 THEN LEAVE l; END IF; SELECT r.name AS before_leave; END FOR;
  o: LOOP FOR r IN c DO LEAVE o; END FOR; END LOOP;
  FETCH c INTO x, y, z;
  SELECT x AS still_open_at;
  CLOSE c;
  OPEN c;
  CLOSE c;
  FOR r IN c DO SET r.name = UPPER(r.name); SELECT r.name; END FOR;
END//
CREATE DEFINER=`root`@`localhost` PROCEDURE fetch_in_loop()
BEGIN
  DECLARE x INT;
  DECLARE y VARCHAR(20);
  DECLARE c CURSOR FOR SELECT id, name FROM item ORDER BY id;
  FOR r IN c DO FETCH c INTO x, y; SELECT r.id, x; END FOR;
END//
DELIMITER ;
CALL cursor_loops();
CALL fetch_in_loop();

-- SELECT loops: an implicit cursor; rows read when the loop starts (its own INSERTs
-- unseen), an empty result runs nothing, a record shadowing a local and a table alias.
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE select_loops()
BEGIN
  DECLARE r INT DEFAULT 5;
  FOR r IN (SELECT id, name FROM item ORDER BY id DESC) DO SELECT r.id, r.name; END FOR;
  FOR r IN (SELECT id FROM item WHERE id > 100) DO SELECT 'never'; END FOR;
  FOR r IN (SELECT id FROM item ORDER BY id) DO INSERT INTO item VALUES (r.id + 10, 'copy', NULL); END FOR;
  SELECT COUNT(*) FROM item;
  FOR r IN (SELECT 1 AS x UNION SELECT 2) DO SELECT r.x; END FOR;
  FOR r IN (WITH w AS (SELECT 5 AS y) SELECT y FROM w) DO SELECT r.y; END FOR;
  FOR rec IN (SELECT id FROM item WHERE id = 1) DO SELECT rec.id, r.id FROM item AS r WHERE r.id = 2; END FOR;
  SELECT r AS outer_r;
  DELETE FROM item WHERE id > 10;
END//
DELIMITER ;
CALL select_loops();

-- Handlers: a CONTINUE handler goes on inside the loop; an EXIT handler leaves it, with
-- its cursor still open (as a LEAVE of an outer label does), as in MariaDB.
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE handled()
BEGIN
  DECLARE c CURSOR FOR SELECT id FROM item ORDER BY id;
  DECLARE CONTINUE HANDLER FOR SQLEXCEPTION SELECT 'caught';
  FOR r IN c DO
    SELECT r.id;
    IF r.id = 2 THEN SIGNAL SQLSTATE '45000'; END IF;
  END FOR;
  BEGIN
    DECLARE EXIT HANDLER FOR SQLEXCEPTION SELECT 'exit';
    FOR r IN c DO SELECT r.id AS exit_at; SIGNAL SQLSTATE '45000'; END FOR;
  END;
  OPEN c;
  CLOSE c;
  SELECT 'reopened';
END//
DELIMITER ;
CALL handled();

-- In a function and in a trigger.
DELIMITER //
CREATE DEFINER=`root`@`localhost` FUNCTION digits(n INT) RETURNS INT READS SQL DATA
BEGIN
  DECLARE s INT DEFAULT 0;
  FOR i IN REVERSE 1..n DO SET s = s * 10 + i; END FOR;
  FOR r IN (SELECT id FROM item) DO SET s = s + r.id; END FOR;
  RETURN s;
END//
DELIMITER ;
SELECT digits(3), digits(0);
CREATE TABLE audit (id INT, names VARCHAR(200));
DELIMITER //
CREATE DEFINER=`root`@`localhost` TRIGGER audit_names BEFORE INSERT ON audit FOR EACH ROW
BEGIN
  DECLARE c CURSOR FOR SELECT name FROM item WHERE id <= NEW.id ORDER BY id;
  SET NEW.names = '';
  FOR r IN c DO SET NEW.names = CONCAT(NEW.names, r.name, ';'); END FOR;
  FOR i IN 1..NEW.id DO SET NEW.names = CONCAT(NEW.names, i); END FOR;
END//
DELIMITER ;
INSERT INTO audit (id) VALUES (2), (3);
SELECT * FROM audit;

-- Errors when the body runs.
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE null_lower() BEGIN FOR i IN NULL..2 DO SELECT i; END FOR; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE null_upper() BEGIN FOR i IN 1..NULL DO SELECT i; END FOR; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE null_reverse() BEGIN FOR i IN REVERSE NULL..2 DO SELECT i; END FOR; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE null_counter() BEGIN FOR i IN 1..2 DO SET i = NULL; END FOR; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE text_bound() BEGIN FOR i IN 'a'..2 DO SELECT i; END FOR; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE text_counter() BEGIN FOR i IN 1..2 DO SET i = 'a'; END FOR; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE past_max() BEGIN FOR i IN 9223372036854775806..9223372036854775807 DO SELECT i; END FOR; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE past_min() BEGIN DECLARE x INT; FOR i IN REVERSE -9223372036854775808..-9223372036854775808 DO SELECT i; END FOR; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE no_field() BEGIN DECLARE c CURSOR FOR SELECT id FROM item ORDER BY id; FOR r IN c DO SELECT r.id; SELECT r.nosuch; END FOR; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE no_field_caught() BEGIN DECLARE c CURSOR FOR SELECT id FROM item ORDER BY id; DECLARE CONTINUE HANDLER FOR 4082 SELECT 'caught 4082'; FOR r IN c DO SELECT r.id; SELECT r.nosuch; END FOR; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE set_no_field() BEGIN FOR r IN (SELECT id FROM item) DO SET r.nosuch = 1; END FOR; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE whole_record() BEGIN FOR r IN (SELECT id FROM item) DO SELECT r; END FOR; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE already_open() BEGIN DECLARE c CURSOR FOR SELECT id FROM item; OPEN c; FOR r IN c DO SELECT r.id; END FOR; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE nested_same() BEGIN DECLARE c CURSOR FOR SELECT id FROM item; FOR r IN c DO FOR s IN c DO SELECT 1; END FOR; END FOR; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE closed_after() BEGIN DECLARE x INT; DECLARE c CURSOR FOR SELECT id FROM item; FOR r IN c DO SET x = r.id; END FOR; FETCH c INTO x; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE closed_in_body() BEGIN DECLARE c CURSOR FOR SELECT id FROM item ORDER BY id; FOR r IN c DO SELECT r.id; CLOSE c; END FOR; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE duplicate_column() BEGIN FOR r IN (SELECT id, id FROM item) DO SELECT r.id; END FOR; END//
CREATE DEFINER=`root`@`localhost` PROCEDURE no_table() BEGIN FOR r IN (SELECT id FROM no_such_table) DO SELECT r.id; END FOR; SELECT 'after'; END//
DELIMITER ;
CALL null_lower();
CALL null_upper();
CALL null_reverse();
CALL null_counter();
CALL text_bound();
CALL text_counter();
CALL past_max();
CALL past_min();
CALL no_field();
CALL no_field_caught();
CALL set_no_field();
CALL whole_record();
CALL already_open();
CALL nested_same();
CALL closed_after();
CALL closed_in_body();
CALL duplicate_column();
CALL no_table();

-- Errors at CREATE.
DELIMITER //
CREATE PROCEDURE undeclared_cursor() BEGIN FOR r IN nosuch DO SELECT 1; END FOR; END//
CREATE PROCEDURE missing_argument() BEGIN DECLARE c CURSOR (a INT) FOR SELECT a; FOR r IN c DO SELECT r.a; END FOR; END//
CREATE PROCEDURE extra_argument() BEGIN DECLARE c CURSOR FOR SELECT 1 AS a; FOR r IN c(1) DO SELECT r.a; END FOR; END//
CREATE PROCEDURE select_into() BEGIN FOR r IN (SELECT id FROM item INTO @q) DO SELECT 1; END FOR; END//
CREATE PROCEDURE not_a_select() BEGIN FOR r IN (DELETE FROM item) DO SELECT 1; END FOR; END//
CREATE PROCEDURE end_label() BEGIN a: FOR i IN 1..3 DO SELECT i; END FOR b; END//
CREATE PROCEDURE leave_unknown() BEGIN FOR i IN 1..3 DO LEAVE nowhere; END FOR; END//
DELIMITER ;
SELECT ROUTINE_NAME, ROUTINE_TYPE FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'diff_for_loops' ORDER BY 1;
