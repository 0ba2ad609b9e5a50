-- A stored function in a table's definitions: MariaDB refuses any call that is not a
-- built-in function in a DEFAULT, CHECK or GENERATED ALWAYS AS clause with 1901, naming
-- it as written (without its arguments), whether or not it exists, and the column or
-- constraint whose clause holds it. Nothing refused is created.

CREATE FUNCTION ff() RETURNS INT DETERMINISTIC RETURN 1;
CREATE FUNCTION fx(a INT, b VARCHAR(5)) RETURNS INT DETERMINISTIC RETURN a;

CREATE TABLE a1 (x INT DEFAULT ff());
CREATE TABLE a2 (x INT DEFAULT (ff() + 1));
CREATE TABLE a3 (x INT, y INT DEFAULT fx(x + 1, 'a'));
CREATE TABLE a4 (x INT DEFAULT (1 + ff()), y INT DEFAULT nosuch());
CREATE TABLE a5 (x INT DEFAULT nosuch());
CREATE TABLE a6 (x INT DEFAULT diff_functions_in_definitions.ff());
CREATE TABLE a7 (x INT DEFAULT `Other`.`Ff`());
CREATE TABLE c1 (x INT, CHECK (x > ff()));
CREATE TABLE c2 (x INT CHECK (x > ff()));
CREATE TABLE c3 (x INT, CONSTRAINT cc CHECK (x > fx(x, NULL)));
CREATE TABLE c4 (x INT, CHECK (x > 0), CHECK (ff() > 0));
CREATE TABLE c5 (x INT, CONSTRAINT c1 CHECK (x > 0), CHECK (ABS(ff()) > 0));
CREATE TABLE g1 (x INT, y INT AS (ff()) VIRTUAL);
CREATE TABLE g2 (x INT, y INT AS (x + FF( x )) STORED);
CREATE TABLE g3 (x INT, y INT AS (diff_functions_in_definitions.fx(-x, CONCAT('a', x))) VIRTUAL);
SHOW TABLES;

CREATE TABLE t (x INT, z INT);
ALTER TABLE t ADD CHECK (x > ff());
ALTER TABLE t ADD CONSTRAINT named CHECK (ff() > x);
ALTER TABLE t ALTER x SET DEFAULT ff();
ALTER TABLE t ADD y INT DEFAULT (ff());
ALTER TABLE t ADD w INT AS (ff() + x) VIRTUAL;
ALTER TABLE t MODIFY z INT DEFAULT ff();
SHOW CREATE TABLE t;

-- Built-in functions stay allowed there.
CREATE TABLE ok (x INT DEFAULT (ABS(-2)), y INT AS (x * 2) VIRTUAL, CHECK (x < 100));
INSERT INTO ok (x) VALUES (DEFAULT), (5);
SELECT x, y FROM ok ORDER BY x;
SELECT ff(), fx(3, 'b');
