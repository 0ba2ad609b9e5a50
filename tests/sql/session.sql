-- USE, SET (session variables, NAMES, user variables), SELECT @@var, DO.

SELECT DATABASE();
CREATE DATABASE sess_other;
USE sess_other;
SELECT DATABASE();
CREATE TABLE here (a INT);
SHOW TABLES;
USE diff_session;
SELECT DATABASE();
SHOW TABLES;
SELECT COUNT(*) FROM sess_other.here;
DROP DATABASE sess_other;
-- 1046: a connection whose current database was dropped has none.
USE sess_gone_soon_x;
CREATE DATABASE sess_gone;
USE sess_gone;
DROP DATABASE sess_gone;
SELECT DATABASE();
CREATE TABLE nowhere (a INT);
SELECT * FROM nowhere;
USE diff_session;

-- Server variables.
SELECT @@autocommit, @@session.autocommit, @@global.autocommit;
SELECT @@sql_mode;
SELECT @@session.sql_mode = @@global.sql_mode;
SELECT @@max_allowed_packet;
SELECT @@character_set_client, @@character_set_connection, @@character_set_results;
SELECT @@collation_connection;
SELECT @@tx_isolation;
SELECT @@time_zone, @@lower_case_table_names, @@auto_increment_increment, @@auto_increment_offset;
SELECT @@sql_auto_is_null, @@sql_select_limit, @@net_write_timeout, @@wait_timeout;
SELECT @@no_such_variable;
-- diff: skip-result
SELECT @@version, @@version_comment, @@hostname, @@port;

-- SET of session variables.
SET autocommit = 0;
SELECT @@autocommit;
SET autocommit = 1;
SET SESSION sql_mode = '';
SELECT @@sql_mode;
SET @@session.sql_mode = 'STRICT_TRANS_TABLES';
SELECT @@sql_mode;
SET sql_mode = 'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION';
SELECT @@sql_mode;
SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED;
SELECT @@tx_isolation;
SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ;
SET @@session.auto_increment_increment = 1;
SET wait_timeout = 600;
SELECT @@wait_timeout;
SET no_such_variable = 1;
SET autocommit = 'maybe';
SET sql_mode = 'NOT_A_MODE';
SET sql_select_limit = DEFAULT;
SELECT @@sql_select_limit;
SET autocommit = 1, wait_timeout = 100;
SELECT @@autocommit, @@wait_timeout;

-- SET NAMES and character sets.
SET NAMES utf8mb4;
SELECT @@character_set_client, @@character_set_connection, @@character_set_results;
SET NAMES latin1;
SELECT @@character_set_client, @@character_set_connection, @@character_set_results;
SET NAMES utf8mb4 COLLATE utf8mb4_general_ci;
SELECT @@collation_connection;
SET NAMES utf8;
SELECT @@character_set_client;
SET NAMES utf8mb4;
SET CHARACTER SET utf8mb4;
SET NAMES no_such_charset;

-- User variables.
SET @a = 1, @b = 'two', @c = NULL, @d = 2.5;
SELECT @a, @b, @c, @d, @never_set;
SET @a = @a + 1;
SELECT @a;
SELECT @x := 5, @x;
CREATE TABLE uv (id INT PRIMARY KEY, v INT);
INSERT INTO uv VALUES (1, 10), (2, 20);
SELECT @m := MAX(v) FROM uv;
SELECT id FROM uv WHERE v = @m;
DROP TABLE uv;

-- DO evaluates and discards.
DO 0;
DO 1 + 1, 'x';
DO @z := 9;
SELECT @z;
DO nope_column;
DO SLEEP(0);

-- SET checks every assignment before it makes any: values read the variables as they
-- were, and an error anywhere assigns nothing.
SET @a = 1;
SET @a = @a + 1, @b = @a;
SELECT @a, @b;
SET @c = 5, sql_mode = 'bogus_mode';
SELECT @c;
SET @d = 5, nosuchvar = 1;
SELECT @d;
SET autocommit = 0, sql_mode = 'bogus';
SELECT @@autocommit;
SET @e = 7, sql_mode = 'ANSI', @f = @@sql_mode;
SELECT @e, @f = @@sql_mode;
SET sql_mode = DEFAULT;
