-- Stored functions: CREATE/DROP FUNCTION, calls in every clause (select list, WHERE,
-- ORDER BY, GROUP BY, HAVING, SET, DO, INSERT ... VALUES, UPDATE ... SET, subqueries,
-- views, procedures, triggers), bodies that read tables, RETURN's type conversion,
-- recursion (1424), handlers and SIGNAL inside a function, SHOW CREATE FUNCTION,
-- information_schema.ROUTINES and PARAMETERS, and the errors: 1064, 1304, 1305, 1313,
-- 1318, 1320, 1321, 1406, 1415, 1424, 1644, 4187.

CREATE TABLE item (id INT PRIMARY KEY, name VARCHAR(20), price DECIMAL(8,2), qty INT);
INSERT INTO item VALUES (1, 'apple', 1.50, 10), (2, 'pear', 2.25, 0), (3, 'fig', NULL, 5), (4, 'kiwi', 0.80, 7);

-- A one-statement body.
CREATE DEFINER=`root`@`localhost` FUNCTION add_tax(p DECIMAL(8,2)) RETURNS DECIMAL(10,2) DETERMINISTIC RETURN p * 1.2;
SELECT id, add_tax(price) AS gross FROM item ORDER BY id;
SELECT add_tax(10), add_tax(NULL), add_tax('5'), add_tax(2.555);
SELECT add_tax(add_tax(1));

-- A body that reads a table, with a local variable and SELECT ... INTO.
DELIMITER //
CREATE DEFINER=`root`@`localhost` FUNCTION price_of(i INT) RETURNS DECIMAL(8,2) READS SQL DATA
BEGIN
  DECLARE p DECIMAL(8,2);
  SELECT price INTO p FROM item WHERE id = i;
  RETURN p;
END//
DELIMITER ;
SELECT price_of(1), price_of(3), price_of(99);
SELECT id, name FROM item WHERE price_of(id) > 1 ORDER BY id;
SELECT id FROM item ORDER BY price_of(id) DESC, id;
SELECT qty > 0 AS in_stock, SUM(price_of(id)) AS total FROM item GROUP BY qty > 0 ORDER BY in_stock;
SELECT qty > 0 AS in_stock FROM item GROUP BY qty > 0 HAVING MAX(price_of(id)) > 2;
SELECT (SELECT price_of(2)) AS sub, id FROM item WHERE id = (SELECT MIN(id) FROM item WHERE price_of(id) > 2);

-- It sees the transaction's own changes.
BEGIN;
UPDATE item SET price = 9.99 WHERE id = 1;
SELECT price_of(1);
ROLLBACK;
SELECT price_of(1);

-- Calls in SET, DO, INSERT and UPDATE.
SET @p = price_of(2);
SELECT @p;
DO price_of(1);
CREATE TABLE priced (id INT PRIMARY KEY, gross DECIMAL(10,2));
INSERT INTO priced VALUES (1, add_tax(price_of(1))), (2, add_tax(price_of(2)));
INSERT INTO priced SELECT id, add_tax(price) FROM item WHERE id > 2;
UPDATE priced SET gross = add_tax(gross) WHERE id = 1;
SELECT * FROM priced ORDER BY id;

-- Control flow and conditions inside a body.
DELIMITER //
CREATE DEFINER=`root`@`localhost` FUNCTION grade(n INT) RETURNS VARCHAR(10) DETERMINISTIC
BEGIN
  IF n IS NULL THEN RETURN 'none';
  ELSEIF n >= 10 THEN RETURN 'many';
  ELSEIF n > 0 THEN RETURN 'some';
  END IF;
  RETURN 'out';
END//
CREATE DEFINER=`root`@`localhost` FUNCTION fact(n INT) RETURNS BIGINT DETERMINISTIC
BEGIN
  DECLARE r BIGINT DEFAULT 1;
  WHILE n > 1 DO
    SET r = r * n;
    SET n = n - 1;
  END WHILE;
  RETURN r;
END//
CREATE DEFINER=`root`@`localhost` FUNCTION checked(n INT) RETURNS INT DETERMINISTIC
BEGIN
  IF n < 0 THEN
    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'negative';
  END IF;
  RETURN n;
END//
CREATE DEFINER=`root`@`localhost` FUNCTION safe_div(a INT, b INT) RETURNS VARCHAR(20) DETERMINISTIC
BEGIN
  DECLARE EXIT HANDLER FOR SQLSTATE '45000' RETURN 'refused';
  IF b = 0 THEN
    SIGNAL SQLSTATE '45000';
  END IF;
  RETURN a DIV b;
END//
CREATE DEFINER=`root`@`localhost` FUNCTION count_in(lo INT) RETURNS INT READS SQL DATA
BEGIN
  DECLARE n INT DEFAULT 0;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET n = -1;
  SELECT COUNT(*) INTO n FROM item WHERE qty >= lo;
  RETURN n;
END//
DELIMITER ;
SELECT id, qty, grade(qty) FROM item ORDER BY id;
SELECT grade(NULL), grade(-1);
SELECT fact(0), fact(5), fact(20);
SELECT checked(3);
SELECT checked(-3);
SELECT safe_div(7, 2), safe_div(7, 0);
SELECT count_in(5), count_in(100);

-- RETURN converts to the declared type as a column does.
CREATE DEFINER=`root`@`localhost` FUNCTION short_text() RETURNS VARCHAR(3) RETURN 'abcdef';
CREATE DEFINER=`root`@`localhost` FUNCTION tiny(x INT) RETURNS TINYINT RETURN x;
SELECT tiny(100);
SELECT tiny(1000);
SELECT short_text();

-- A function that ends without RETURN (1321); one without any RETURN is refused (1320).
CREATE DEFINER=`root`@`localhost` FUNCTION maybe(x INT) RETURNS INT BEGIN IF x > 0 THEN RETURN x; END IF; END;
SELECT maybe(1);
SELECT maybe(0);
CREATE FUNCTION nothing() RETURNS INT BEGIN DECLARE x INT DEFAULT 1; END;
CREATE FUNCTION nothing() RETURNS INT BEGIN END;
SELECT nothing();

-- Recursion is refused when it runs (1424), not before.
CREATE DEFINER=`root`@`localhost` FUNCTION down(n INT) RETURNS INT RETURN IF(n <= 0, 0, down(n - 1) + 1);
SELECT down(0);
SELECT down(3);
CREATE DEFINER=`root`@`localhost` FUNCTION ping(n INT) RETURNS INT RETURN IF(n <= 0, 0, pong(n - 1));
CREATE DEFINER=`root`@`localhost` FUNCTION pong(n INT) RETURNS INT RETURN ping(n);
SELECT ping(0);
SELECT ping(2);

-- Names: a qualified call, a missing function, argument counts. A missing function is
-- 1305 before an unknown column among its arguments (1054), which comes before 1318.
SELECT diff_stored_functions.add_tax(1);
SELECT nosuch(1);
SELECT diff_stored_functions.nosuch(1);
SELECT nosuch(no_column);
SELECT add_tax(no_column);
SELECT add_tax(no_column, 2);
SELECT add_tax();
SELECT add_tax(1, 2);
CREATE FUNCTION add_tax(p INT) RETURNS INT RETURN p;
CREATE FUNCTION IF NOT EXISTS add_tax(p INT) RETURNS INT RETURN p;
SHOW WARNINGS;
CREATE FUNCTION dup(a INT, A INT) RETURNS INT RETURN a;
CREATE FUNCTION no_returns() RETURN 1;
CREATE FUNCTION rows_out() RETURNS INT BEGIN SELECT 1; RETURN 1; END;
CREATE PROCEDURE returns_in_procedure() BEGIN RETURN 1; END;
CREATE DEFINER=`root`@`localhost` FUNCTION out_param(OUT x INT) RETURNS INT RETURN 1;
SELECT out_param(@a);

-- OR REPLACE, and a name shared with a procedure (separate namespaces).
CREATE OR REPLACE DEFINER=`root`@`localhost` FUNCTION tiny(x INT) RETURNS INT RETURN x + 1;
SELECT tiny(1000);
CREATE DEFINER=`root`@`localhost` PROCEDURE tiny() SELECT tiny(1) AS from_procedure;
CALL tiny();

-- Inside a view, a procedure and a trigger.
CREATE DEFINER=`root`@`localhost` VIEW gross_prices AS SELECT id, add_tax(price) AS gross FROM item;
SELECT * FROM gross_prices ORDER BY id;
DELIMITER //
CREATE DEFINER=`root`@`localhost` PROCEDURE restock(i INT)
BEGIN
  DECLARE before_qty INT;
  SELECT qty INTO before_qty FROM item WHERE id = i;
  UPDATE item SET qty = qty + 1 WHERE id = i;
  SELECT before_qty, grade(before_qty) AS was, grade(before_qty + 1) AS now;
END//
DELIMITER ;
CALL restock(2);
CREATE TABLE audit (id INT, label VARCHAR(10));
CREATE DEFINER=`root`@`localhost` TRIGGER item_audit AFTER UPDATE ON item FOR EACH ROW INSERT INTO audit VALUES (NEW.id, grade(NEW.qty));
UPDATE item SET qty = 20 WHERE id = 4;
SELECT * FROM audit ORDER BY id;
DROP TRIGGER item_audit;

-- SHOW CREATE FUNCTION, ROUTINES and PARAMETERS.
SHOW CREATE FUNCTION fact;
SHOW CREATE FUNCTION nosuch;
SELECT ROUTINE_NAME, ROUTINE_TYPE, DATA_TYPE, CHARACTER_MAXIMUM_LENGTH, NUMERIC_PRECISION, NUMERIC_SCALE, DTD_IDENTIFIER, ROUTINE_BODY, IS_DETERMINISTIC, SQL_DATA_ACCESS FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'diff_stored_functions' ORDER BY ROUTINE_NAME, ROUTINE_TYPE;
SELECT SPECIFIC_NAME, ORDINAL_POSITION, PARAMETER_MODE, PARAMETER_NAME, DATA_TYPE, DTD_IDENTIFIER, ROUTINE_TYPE FROM information_schema.PARAMETERS WHERE SPECIFIC_SCHEMA = 'diff_stored_functions' AND SPECIFIC_NAME IN ('fact', 'safe_div', 'grade', 'tiny') ORDER BY SPECIFIC_NAME, ROUTINE_TYPE, ORDINAL_POSITION;

-- DROP FUNCTION; the view that calls a dropped function is invalid (1356).
DROP FUNCTION add_tax;
SELECT * FROM gross_prices;
DROP FUNCTION add_tax;
DROP FUNCTION IF EXISTS add_tax;
SHOW WARNINGS;
DROP VIEW gross_prices;
