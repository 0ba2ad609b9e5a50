-- LOAD DATA LOCAL INFILE: the client sends tests/sql/data/<name> (differential.rs). Field
-- and line rules, missing and extra fields, NULLs, conversions and their warnings, column
-- lists with user variables and SET, duplicates (LOCAL is IGNORE unless REPLACE), and the
-- INSERT rules every row goes through (AUTO_INCREMENT, triggers, CHECK, generated columns,
-- foreign keys).

CREATE TABLE mixed (id INT, s VARCHAR(5), n INT DEFAULT 9);
LOAD DATA LOCAL INFILE 'load_mixed.tsv' INTO TABLE mixed;
SHOW WARNINGS;
SELECT id, s, HEX(s), n FROM mixed;
SELECT ROW_COUNT();

-- Short lines: a missing field is NULL only where the default is NULL, else the zero.
CREATE TABLE short (id INT, s VARCHAR(5), n INT DEFAULT 9, m VARCHAR(3) NOT NULL DEFAULT 'z', k INT NOT NULL DEFAULT 7, ts TIMESTAMP NULL DEFAULT NULL);
LOAD DATA LOCAL INFILE 'load_short.tsv' INTO TABLE short;
SHOW WARNINGS;
SELECT * FROM short;
CREATE TABLE short2 (id INT NOT NULL, s VARCHAR(5) NOT NULL);
LOAD DATA LOCAL INFILE 'load_short.tsv' INTO TABLE short2;
SHOW WARNINGS;
SELECT id, s, LENGTH(s) FROM short2;

-- CSV: enclosed fields, the NULL word, an unclosed quote, skipped header lines.
CREATE TABLE quoted (a VARCHAR(10), b INT NOT NULL, c VARCHAR(10));
LOAD DATA LOCAL INFILE 'load_quoted.csv' INTO TABLE quoted FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"' IGNORE 1 LINES;
SHOW WARNINGS;
SELECT a, HEX(a), b, c, c IS NULL FROM quoted;
DELETE FROM quoted;
LOAD DATA LOCAL INFILE 'load_quoted.csv' INTO TABLE quoted COLUMNS ENCLOSED BY '"' TERMINATED BY ',' LINES TERMINATED BY '\n' IGNORE 2 ROWS;
SELECT a, HEX(a), b, c FROM quoted;
CREATE TABLE doubled (a VARCHAR(10), b VARCHAR(10));
LOAD DATA LOCAL INFILE 'load_doubled.csv' INTO TABLE doubled FIELDS TERMINATED BY ',' ENCLOSED BY '"';
SELECT a, HEX(a), b FROM doubled;
DELETE FROM doubled;
LOAD DATA LOCAL INFILE 'load_doubled.csv' INTO TABLE doubled FIELDS TERMINATED BY ',' ENCLOSED BY '"' ESCAPED BY '"';
SELECT a, HEX(a), b FROM doubled;
DELETE FROM doubled;
LOAD DATA LOCAL INFILE 'load_doubled.csv' INTO TABLE doubled FIELDS TERMINATED BY ',' ESCAPED BY '';
SELECT a, HEX(a), b FROM doubled;

-- LINES STARTING BY and TERMINATED BY, a column list with a user variable, and SET reading
-- both the variable and a loaded column.
CREATE TABLE prefixed (x INT, y INT, z INT, id INT AUTO_INCREMENT PRIMARY KEY);
LOAD DATA LOCAL INFILE 'load_prefixed.txt' INTO TABLE prefixed LINES STARTING BY 'xx' TERMINATED BY '\r\n' (x, @v) SET y = @v * 10, z = x + 100;
SHOW WARNINGS;
SELECT * FROM prefixed;
SELECT LAST_INSERT_ID(), @v;
LOAD DATA LOCAL INFILE 'load_prefixed.txt' INTO TABLE prefixed LINES TERMINATED BY '\r\n' (@a, @b) SET x = LENGTH(@a), y = DEFAULT, z = @b IS NULL;
SHOW WARNINGS;
SELECT * FROM prefixed ORDER BY id;
SELECT LAST_INSERT_ID();

-- Fields and lines ended by other strings; no newline at the end.
CREATE TABLE semi (id INT, c CHAR(1));
LOAD DATA LOCAL INFILE 'load_semicolons.txt' INTO TABLE semi FIELDS TERMINATED BY ',' LINES TERMINATED BY ';';
SELECT * FROM semi;
LOAD DATA LOCAL INFILE 'load_semicolons.txt' INTO TABLE semi FIELDS TERMINATED BY ',' LINES TERMINATED BY ',';
SHOW WARNINGS;
SELECT * FROM semi;

-- Conversions: UTF-8 text, bad bytes, dates, decimals, out of range values.
CREATE TABLE typed (id INT, s VARCHAR(8), d DATE, n DECIMAL(6,2), t DATETIME);
LOAD DATA LOCAL INFILE 'load_types.tsv' INTO TABLE typed CHARACTER SET utf8mb4;
SHOW WARNINGS;
SELECT id, s, HEX(s), d, n, t FROM typed;

-- Duplicates: LOCAL skips them (IGNORE); REPLACE replaces them; IGNORE says so.
CREATE TABLE ids (id INT PRIMARY KEY, name VARCHAR(10));
INSERT INTO ids VALUES (6, 'old');
LOAD DATA LOCAL INFILE 'load_ids.tsv' INTO TABLE ids;
SHOW WARNINGS;
SELECT * FROM ids;
LOAD DATA LOCAL INFILE 'load_ids.tsv' REPLACE INTO TABLE ids;
SELECT * FROM ids;
LOAD DATA LOCAL INFILE 'load_ids.tsv' IGNORE INTO TABLE ids (id, @skip);
SELECT * FROM ids;

-- REPLACE in strict mode: a warning fails the load, which is undone whole.
CREATE TABLE keyed (id INT PRIMARY KEY, n INT NOT NULL);
INSERT INTO keyed VALUES (2, 0);
LOAD DATA LOCAL INFILE 'load_keys.tsv' REPLACE INTO TABLE keyed;
SHOW WARNINGS;
SELECT * FROM keyed;
SET sql_mode = '';
LOAD DATA LOCAL INFILE 'load_keys.tsv' REPLACE INTO TABLE keyed;
SHOW WARNINGS;
SELECT * FROM keyed;
SET sql_mode = DEFAULT;
LOAD DATA LOCAL INFILE 'load_keys.tsv' INTO TABLE keyed (id, @x) SET n = COALESCE(@x, -1);
SELECT * FROM keyed;
SELECT @x;

-- Skipped header lines, an empty file, a transaction rolled back.
CREATE TABLE header (id INT, c CHAR(1));
LOAD DATA LOCAL INFILE 'load_header.tsv' INTO TABLE header IGNORE 2 LINES;
SELECT * FROM header;
LOAD DATA LOCAL INFILE 'load_empty.tsv' INTO TABLE header;
SELECT COUNT(*) FROM header;
BEGIN;
LOAD DATA LOCAL INFILE 'load_header.tsv' INTO TABLE header IGNORE 2 LINES;
SELECT COUNT(*) FROM header;
ROLLBACK;
SELECT COUNT(*) FROM header;

-- Rows go through INSERT's rules: triggers, CHECK constraints, generated columns, foreign keys.
CREATE TABLE audited (id INT PRIMARY KEY, name VARCHAR(10), total INT AS (id * 100) STORED, CHECK (id < 7));
CREATE TABLE audit (msg VARCHAR(40));
CREATE TRIGGER audited_upper BEFORE INSERT ON audited FOR EACH ROW SET NEW.name = UPPER(NEW.name);
CREATE TRIGGER audited_log AFTER INSERT ON audited FOR EACH ROW INSERT INTO audit VALUES (CONCAT('added ', NEW.name, ' ', NEW.total));
LOAD DATA LOCAL INFILE 'load_ids.tsv' INTO TABLE audited (id, name);
SHOW WARNINGS;
SELECT * FROM audited;
SELECT * FROM audit;
CREATE TABLE parent (id INT PRIMARY KEY);
INSERT INTO parent VALUES (5), (7);
CREATE TABLE child (id INT, pid INT, FOREIGN KEY (pid) REFERENCES parent (id));
LOAD DATA LOCAL INFILE 'load_ids.tsv' INTO TABLE child (pid, @name) SET id = LENGTH(@name);
SHOW WARNINGS;
SELECT * FROM child;

-- Errors, before any file is asked for.
LOAD DATA LOCAL INFILE 'load_ids.tsv' INTO TABLE nosuch;
LOAD DATA LOCAL INFILE 'load_ids.tsv' INTO TABLE ids (id, nosuch);
LOAD DATA LOCAL INFILE 'load_ids.tsv' INTO TABLE ids (id) SET name = nosuch;
LOAD DATA LOCAL INFILE 'load_ids.tsv' INTO TABLE ids FIELDS ENCLOSED BY 'ab';
LOAD DATA LOCAL INFILE 'load_ids.tsv' INTO TABLE ids FIELDS ESCAPED BY '\\\\';
LOAD DATA LOCAL INFILE 'load_ids.tsv' INTO TABLE ids CHARACTER SET nosuch;
LOAD DATA LOCAL INFILE 'load_ids.tsv' INTO ids;
LOAD DATA LOCAL 'load_ids.tsv' INTO TABLE ids;

-- A NULL or missing field of a NOT NULL ENUM is '' (its number 0), not the first member;
-- a column left out without a default warns once (1364) before any row.
CREATE TABLE en (id INT AUTO_INCREMENT PRIMARY KEY, n INT, k ENUM('p','q') NOT NULL,
  m ENUM('p','q'), s SET('p','q') NOT NULL) DEFAULT CHARSET=utf8mb4;
LOAD DATA LOCAL INFILE 'load_enum_nulls.txt' INTO TABLE en FIELDS TERMINATED BY ',' (k);
SHOW WARNINGS;
LOAD DATA LOCAL INFILE 'load_set_store.csv' INTO TABLE en FIELDS TERMINATED BY ',' (n, k, s);
SHOW WARNINGS;
SELECT id, n, k, k + 0, m, s FROM en ORDER BY id;
-- SET stores each value before the next reads it: b sees a's 12, not '12abc'.
CREATE TABLE stored (a INT, b INT, c VARCHAR(5)) DEFAULT CHARSET=utf8mb4;
LOAD DATA LOCAL INFILE 'load_set_store.csv' INTO TABLE stored FIELDS TERMINATED BY ',' (c, @v) SET a = @v, b = a + 1;
SHOW WARNINGS;
SELECT * FROM stored;
