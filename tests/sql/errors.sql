-- Error cases: code and SQLSTATE must match MariaDB's.

-- 1064 syntax errors.
SELEC 1;
SELECT * FROM;
SELECT 1 +;
CREATE TABLE (a INT);
INSERT INTO VALUES (1);
SELECT 'unterminated;
SELECT 1 FROM DUAL WHERE;
-- A reserved word that starts an expression is no column name; an unreserved one is.
SELECT case;
SELECT convert;
SELECT match;
SELECT exists;
SELECT interval;
SELECT binary 'a' = 'A', BINARY('a') = 'A';
SELECT trim;
SELECT struct;
SELECT cast;

-- 1049 unknown database.
USE no_such_db;
SELECT * FROM no_such_db.t;
DROP DATABASE no_such_db;

-- 1146 unknown table, 1051 unknown table on DROP.
SELECT * FROM nope;
INSERT INTO nope VALUES (1);
UPDATE nope SET a = 1;
DELETE FROM nope;
DROP TABLE nope;
SHOW COLUMNS FROM nope;

CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(5) NOT NULL, n INT);
INSERT INTO t VALUES (1, 'a', 1);

-- 1054 unknown column.
SELECT nope FROM t;
SELECT id FROM t WHERE nope = 1;
SELECT id FROM t ORDER BY nope;
INSERT INTO t (id, nope) VALUES (2, 1);
UPDATE t SET nope = 1;
SELECT t.nope FROM t;

-- 1062 duplicate key, 1048 NULL into NOT NULL, 1136 column count, 1364 no default.
INSERT INTO t VALUES (1, 'b', 2);
UPDATE t SET id = 1 WHERE id = 1;
INSERT INTO t VALUES (2, 'b', 2);
UPDATE t SET id = 1 WHERE id = 2;
INSERT INTO t VALUES (3, NULL, 3);
UPDATE t SET name = NULL WHERE id = 1;
INSERT INTO t VALUES (4, 'x');
INSERT INTO t (id, name) VALUES (5);
INSERT INTO t (id) VALUES (6);
INSERT INTO t VALUES (7, 'a', 1), (8, 'b');
SELECT id, name, n FROM t ORDER BY id;

-- 1050 table exists, 1007 database exists, 1060 duplicate column, 1068 multiple PKs.
CREATE TABLE t (x INT);
CREATE DATABASE errs_db;
CREATE DATABASE errs_db;
DROP DATABASE errs_db;
CREATE TABLE dup_col (a INT, a INT);
CREATE TABLE two_pk (a INT PRIMARY KEY, b INT PRIMARY KEY);
CREATE TABLE no_cols ();
-- 1075 AUTO_INCREMENT must be a key.
CREATE TABLE bad_ai (a INT AUTO_INCREMENT, b INT);
-- 1166/1059 bad names.
CREATE TABLE `bad name ` (a INT);
CREATE TABLE aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa (a INT);

-- 1052 ambiguous column, 1066 not unique table alias.
CREATE TABLE u (id INT, name VARCHAR(5));
SELECT id FROM t, u;
SELECT 1 FROM t JOIN t;

-- 1111 invalid use of group function, 1140/1055 grouping.
SELECT id FROM t WHERE COUNT(*) > 1;
SELECT SUM(COUNT(*)) FROM t;

-- 1046 no database selected happens only without USE: see session.sql.
-- 1305 unknown function, 1582/1583 wrong arguments.
SELECT no_such_function(1);
SELECT CONCAT_WS();
SELECT SUBSTRING('a');

-- 1064 inside a transaction does not end it.
BEGIN;
INSERT INTO u VALUES (1, 'x');
SELEC 2;
COMMIT;
SELECT id, name FROM u;

-- Errors in a multi-row insert: nothing inserted under strict mode for a transactional table.
INSERT INTO t VALUES (20, 'ok', 1), (21, NULL, 2);
SELECT COUNT(*) FROM t WHERE id IN (20, 21);

-- 1292 / 1366 bad values.
INSERT INTO t VALUES ('abc', 'x', 1);
INSERT INTO t VALUES (22, 'x', 'abc');
CREATE TABLE dates (d DATE);
INSERT INTO dates VALUES ('2024-02-30');
INSERT INTO dates VALUES ('not a date');
SELECT COUNT(*) FROM dates;

DROP TABLE t, u, dates;
