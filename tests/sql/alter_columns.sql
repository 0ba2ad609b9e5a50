-- ALTER TABLE column operations: MODIFY, ADD, DROP, CHANGE, RENAME COLUMN and ALTER
-- COLUMN SET/DROP DEFAULT, alone and several in one statement; existing rows converted
-- (strict and non-strict sql_mode), keys renumbered, foreign keys and CHECK constraints
-- followed, and the errors.

CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(10), b INT, KEY ab (a, b), KEY bb (b));
INSERT INTO t VALUES (1, 'hello', 1), (2, NULL, 2), (3, 'x', NULL);
ALTER TABLE t MODIFY a VARCHAR(20);
SHOW CREATE TABLE t;
ALTER TABLE t MODIFY a VARCHAR(3);
SELECT * FROM t ORDER BY id;
ALTER TABLE t MODIFY COLUMN b INT NOT NULL;
ALTER TABLE t MODIFY b BIGINT;
SHOW CREATE TABLE t;
SET sql_mode = '';
ALTER TABLE t MODIFY a VARCHAR(3);
SHOW WARNINGS;
ALTER TABLE t MODIFY b INT NOT NULL;
SHOW WARNINGS;
SELECT * FROM t ORDER BY id;
SET sql_mode = DEFAULT;
SHOW CREATE TABLE t;

-- ADD COLUMN: default, FIRST, AFTER, NOT NULL without a default.
ALTER TABLE t ADD COLUMN c INT DEFAULT 7 AFTER id;
ALTER TABLE t ADD z CHAR(2) FIRST;
ALTER TABLE t ADD d VARCHAR(5) NOT NULL;
SELECT * FROM t ORDER BY id;
SHOW CREATE TABLE t;
ALTER TABLE t ADD e INT AFTER nope;
ALTER TABLE t ADD a INT;
ALTER TABLE t ADD IF NOT EXISTS a INT;

-- DROP COLUMN: out of its indexes; a multi-column index keeps the other columns.
ALTER TABLE t DROP COLUMN b;
SHOW CREATE TABLE t;
SELECT id FROM t WHERE a = 'x';
ALTER TABLE t DROP COLUMN zz;
ALTER TABLE t DROP COLUMN IF EXISTS zz;
ALTER TABLE t DROP z, DROP d;
SELECT * FROM t ORDER BY id;
CREATE TABLE one (x INT);
ALTER TABLE one DROP COLUMN x;
ALTER TABLE t DROP a, DROP c, DROP id;

-- CHANGE and RENAME COLUMN, SET / DROP DEFAULT.
ALTER TABLE t CHANGE c cc BIGINT NOT NULL, RENAME COLUMN a TO aa;
ALTER TABLE t CHANGE nope q INT;
ALTER TABLE t RENAME COLUMN nope TO q;
ALTER TABLE t RENAME COLUMN aa TO id;
ALTER TABLE t ALTER COLUMN cc SET DEFAULT 9;
INSERT INTO t (id) VALUES (4);
SELECT * FROM t ORDER BY id;
ALTER TABLE t ALTER cc DROP DEFAULT;
SHOW CREATE TABLE t;
INSERT INTO t (id) VALUES (5);
ALTER TABLE t ALTER COLUMN nope SET DEFAULT 1;
ALTER TABLE t MODIFY cc INT FIRST, MODIFY aa VARCHAR(8) AFTER cc;
SHOW CREATE TABLE t;
SELECT * FROM t ORDER BY id;

-- Conversions that fail.
CREATE TABLE v (id INT PRIMARY KEY, s VARCHAR(10));
INSERT INTO v VALUES (1, '12'), (2, '300');
ALTER TABLE v MODIFY s TINYINT;
ALTER TABLE v MODIFY s INT;
INSERT INTO v VALUES (3, 7);
SHOW CREATE TABLE v;
ALTER TABLE v MODIFY s VARCHAR(10);
INSERT INTO v VALUES (4, 'abc');
ALTER TABLE v MODIFY s INT;
SET sql_mode = '';
ALTER TABLE v MODIFY s TINYINT;
SHOW WARNINGS;
SET sql_mode = DEFAULT;
SELECT * FROM v ORDER BY id;
CREATE TABLE u (a VARCHAR(10), UNIQUE KEY (a));
INSERT INTO u VALUES ('abc1'), ('abc2');
SET sql_mode = '';
ALTER TABLE u MODIFY a VARCHAR(3);
SET sql_mode = DEFAULT;
SELECT * FROM u ORDER BY a;

-- Foreign keys and CHECK constraints.
CREATE TABLE p (id INT PRIMARY KEY, v INT);
CREATE TABLE c (id INT, pid INT, CONSTRAINT fk FOREIGN KEY (pid) REFERENCES p (id));
INSERT INTO p VALUES (1, 1);
INSERT INTO c VALUES (1, 1);
ALTER TABLE c DROP COLUMN pid;
ALTER TABLE p DROP COLUMN id;
ALTER TABLE p MODIFY id BIGINT;
ALTER TABLE p CHANGE id id2 INT;
ALTER TABLE c ADD x INT FIRST, CHANGE pid pid2 INT;
SHOW CREATE TABLE c;
INSERT INTO c VALUES (0, 2, 2);
INSERT INTO c VALUES (0, 2, 1);
CREATE TABLE k (a INT, b INT, CHECK (a > b));
ALTER TABLE k DROP b;
ALTER TABLE k RENAME COLUMN b TO bb;
SHOW CREATE TABLE k;
INSERT INTO k VALUES (1, 2);
-- A rename reaches a CHECK's column, not its literals naming the column (backslash-escaped
-- quotes included), whatever the case the CHECK spells the column in.
CREATE TABLE q (c VARCHAR(10), n INT, CONSTRAINT lit CHECK (C <> 'x\'c' AND n > 0 AND c <> 'n'), CHECK (c <> '`c`'));
ALTER TABLE q RENAME COLUMN c TO cc;
SHOW CREATE TABLE q;
INSERT INTO q VALUES ('x''c', 1);
INSERT INTO q VALUES ('`c`', 1);
INSERT INTO q VALUES ('y', 0);
INSERT INTO q VALUES ('c', 1);
ALTER TABLE q CHANGE N n2 INT, RENAME COLUMN cc TO `c c`;
SHOW CREATE TABLE q;
INSERT INTO q VALUES ('x\'c', 2);
INSERT INTO q VALUES ('x', -1);
ALTER TABLE q DROP COLUMN `C C`;
SELECT * FROM q;
DROP TABLE c, p, k, q, u, v, one, t;
-- Table options alone: the engine and default character set there are change nothing,
-- FORCE rebuilds nothing; another engine or default is refused (1235), not ignored.
CREATE TABLE options_only (id INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO options_only VALUES (1, 'a'), (2, 'b');
ALTER TABLE options_only ENGINE=InnoDB;
ALTER TABLE options_only ENGINE InnoDB, FORCE;
ALTER TABLE options_only FORCE;
ALTER TABLE options_only DEFAULT CHARSET=utf8mb4;
ALTER TABLE options_only CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci;
ALTER TABLE options_only DEFAULT CHARACTER SET = utf8mb4, DEFAULT COLLATE = utf8mb4_general_ci;
ALTER TABLE options_only engine='innodb';
ALTER TABLE missing_table ENGINE=InnoDB;
ALTER TABLE options_only DEFAULT ENGINE=InnoDB;
ALTER TABLE options_only ENGINE=;
-- An engine MariaDB does not know is 1286, before the table or the other options are
-- looked at; INNOBASE is InnoDB's other name.
ALTER TABLE options_only ENGINE=nope;
ALTER TABLE missing_table ENGINE=nope;
ALTER TABLE options_only ENGINE=nope, CHARSET latin1;
ALTER TABLE options_only CHARSET latin1, ENGINE=nope;
ALTER TABLE options_only ENGINE=InnoDB, ENGINE=nope;
ALTER TABLE options_only ENGINE=INNOBASE;
-- COMMENT changes the table's comment (the last one written counts); ROW_FORMAT is
-- accepted (manycore keeps no row format, so SHOW CREATE TABLE is compared after DEFAULT),
-- FIXED and PAGE are InnoDB's 1478; AUTO_INCREMENT raises the next value; CONVERT TO the
-- character set and collation the table already has changes nothing.
CREATE TABLE commented (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(10)) COMMENT 'first';
INSERT INTO commented (v) VALUES ('a'), ('b'), ('c');
ALTER TABLE commented COMMENT 'second';
SHOW CREATE TABLE commented;
ALTER TABLE commented COMMENT = 'third', ENGINE=InnoDB;
SELECT TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'commented';
ALTER TABLE commented COMMENT 'x' COMMENT 'it''s last';
SHOW CREATE TABLE commented;
ALTER TABLE commented COMMENT '';
SHOW CREATE TABLE commented;
ALTER TABLE commented COMMENT 5;
ALTER TABLE missing_table COMMENT 'x';
ALTER TABLE commented ROW_FORMAT=DYNAMIC;
ALTER TABLE commented ROW_FORMAT COMPACT, ROW_FORMAT=redundant;
ALTER TABLE commented ROW_FORMAT=DEFAULT;
SHOW CREATE TABLE commented;
ALTER TABLE commented ROW_FORMAT=FIXED;
ALTER TABLE commented ROW_FORMAT=PAGE;
ALTER TABLE commented ROW_FORMAT=bogus;
ALTER TABLE commented AUTO_INCREMENT=100;
SHOW CREATE TABLE commented;
INSERT INTO commented (v) VALUES ('d');
SELECT * FROM commented ORDER BY id;
ALTER TABLE commented CONVERT TO CHARACTER SET utf8mb4;
ALTER TABLE commented CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci;
ALTER TABLE commented CONVERT TO CHARSET utf8mb4, COMMENT 'converted';
SHOW CREATE TABLE commented;
DROP TABLE commented;
SHOW CREATE TABLE options_only;
SELECT * FROM options_only ORDER BY id;
DROP TABLE options_only;
