-- A database's default character set and collation: CREATE and ALTER DATABASE keep it,
-- SHOW CREATE DATABASE and information_schema.SCHEMATA show it, @@character_set_database
-- and @@collation_database follow the current database, and CREATE TABLE there takes it
-- as the table's default unless the table says otherwise.
DROP DATABASE IF EXISTS dbopt_a;
DROP DATABASE IF EXISTS dbopt_b;
DROP DATABASE IF EXISTS dbopt_c;
DROP DATABASE IF EXISTS dbopt_d;
-- The server's default (utf8mb4_general_ci here), a character set alone (its default
-- collation), a collation alone (its character set), both.
CREATE DATABASE dbopt_a;
SHOW CREATE DATABASE dbopt_a;
CREATE DATABASE dbopt_b CHARACTER SET utf8mb4;
SHOW CREATE DATABASE dbopt_b;
CREATE DATABASE dbopt_c COLLATE utf8mb4_bin;
SHOW CREATE DATABASE dbopt_c;
SHOW CREATE DATABASE IF NOT EXISTS dbopt_c;
CREATE DATABASE dbopt_d DEFAULT CHARSET = utf8mb4 DEFAULT COLLATE = utf8mb4_bin;
SHOW CREATE DATABASE dbopt_d;
SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE 'dbopt%' ORDER BY SCHEMA_NAME;
-- IF NOT EXISTS of an existing database keeps its collation (note 1007).
CREATE DATABASE IF NOT EXISTS dbopt_c COLLATE utf8mb4_general_ci;
SHOW WARNINGS;
SHOW CREATE DATABASE dbopt_c;
-- Errors: an unknown collation or character set, a collation of another character set.
CREATE DATABASE dbopt_e COLLATE no_such_collation;
CREATE DATABASE dbopt_e CHARACTER SET no_such_charset;
CREATE DATABASE dbopt_e CHARACTER SET utf8mb4 COLLATE latin1_bin;
SHOW DATABASES LIKE 'dbopt_e';
-- ALTER DATABASE: a collation, or a character set meaning its default collation.
ALTER DATABASE dbopt_a COLLATE utf8mb4_bin;
SHOW CREATE DATABASE dbopt_a;
ALTER DATABASE dbopt_a DEFAULT CHARACTER SET = utf8mb4;
SHOW CREATE DATABASE dbopt_a;
ALTER SCHEMA dbopt_a CHARSET utf8mb4 COLLATE utf8mb4_bin;
SHOW CREATE DATABASE dbopt_a;
ALTER DATABASE dbopt_a COLLATE no_such_collation;
ALTER DATABASE dbopt_a CHARACTER SET utf8mb4 COLLATE latin1_bin;
ALTER DATABASE dbopt_a;
ALTER DATABASE dbopt_no_such COLLATE utf8mb4_bin;
SHOW CREATE DATABASE dbopt_a;
-- The current database's: its variables follow USE, and ALTER DATABASE without a name
-- alters it.
USE dbopt_c;
SELECT @@character_set_database, @@collation_database, DATABASE();
ALTER DATABASE COLLATE utf8mb4_general_ci;
SELECT @@collation_database;
SHOW CREATE DATABASE dbopt_c;
ALTER DATABASE DEFAULT COLLATE utf8mb4_bin;
USE dbopt_a;
SELECT @@character_set_database, @@collation_database;
USE dbopt_b;
SELECT @@character_set_database, @@collation_database;
-- A table created in a database without its own collation takes the database's; one
-- with its own COLLATE or CHARSET (that character set's default) does not.
CREATE TABLE dbopt_c.t1 (a VARCHAR(10), b TEXT COLLATE utf8mb4_general_ci, c CHAR(2));
SHOW CREATE TABLE dbopt_c.t1;
CREATE TABLE dbopt_c.t2 (a VARCHAR(10)) DEFAULT CHARSET = utf8mb4;
SHOW CREATE TABLE dbopt_c.t2;
CREATE TABLE dbopt_c.t3 (a VARCHAR(10)) COLLATE utf8mb4_general_ci;
SHOW CREATE TABLE dbopt_c.t3;
CREATE TABLE dbopt_c.t4 (a VARCHAR(10)) CHARSET utf8mb4 COLLATE latin1_bin;
CREATE TABLE dbopt_c.t5 AS SELECT 'x' AS a;
SHOW CREATE TABLE dbopt_c.t5;
SELECT TABLE_NAME, TABLE_COLLATION FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'dbopt_c' ORDER BY TABLE_NAME;
INSERT INTO dbopt_c.t1 VALUES ('a', 'a', 'a');
SELECT COUNT(*) FROM dbopt_c.t1 WHERE a = 'A';
SELECT COUNT(*) FROM dbopt_c.t1 WHERE b = 'A';
-- Altering the database later leaves its tables as they are.
ALTER DATABASE dbopt_c COLLATE utf8mb4_general_ci;
SHOW CREATE TABLE dbopt_c.t1;
CREATE TABLE dbopt_c.t6 (a VARCHAR(10));
SHOW CREATE TABLE dbopt_c.t6;
DROP DATABASE dbopt_a;
DROP DATABASE dbopt_b;
DROP DATABASE dbopt_c;
DROP DATABASE dbopt_d;
