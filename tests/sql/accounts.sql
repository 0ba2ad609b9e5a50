-- Account statements and grants as root (a superuser on both servers): results,
-- SHOW GRANTS text, notes and error codes. The database is diff_accounts.

CREATE TABLE t (a INT PRIMARY KEY);
CREATE TABLE c (a INT PRIMARY KEY, b INT, c INT);
DROP USER IF EXISTS diff_u@localhost, diff_v@'%', diff_w@localhost, diff_c@localhost;
CREATE USER diff_u@localhost IDENTIFIED BY 'secret';
CREATE USER IF NOT EXISTS diff_u@localhost;
SHOW WARNINGS;
CREATE USER diff_v@'%' IDENTIFIED BY PASSWORD '*14E65567ABDB5135D0CFD9A70B3032C179A49EE7';
SHOW GRANTS FOR diff_u@localhost;
SHOW GRANTS FOR diff_v@'%';
SHOW GRANTS FOR diff_v;

-- Grants at every level, ALL, WITH GRANT OPTION, REQUIRE SSL.
GRANT SELECT, INSERT ON diff_accounts.t TO diff_u@localhost;
GRANT ALL PRIVILEGES ON diff_accounts.* TO diff_u@localhost WITH GRANT OPTION;
GRANT PROCESS, RELOAD ON *.* TO diff_u@localhost;
SHOW GRANTS FOR diff_u@localhost;
GRANT SELECT ON diff_accounts.* TO diff_v@'%' REQUIRE SSL;
SHOW GRANTS FOR diff_v@'%';
REVOKE INSERT ON diff_accounts.t FROM diff_u@localhost;
REVOKE ALL PRIVILEGES ON diff_accounts.* FROM diff_u@localhost;
REVOKE PROCESS ON *.* FROM diff_u@localhost;
SHOW GRANTS FOR diff_u@localhost;
REVOKE ALL PRIVILEGES, GRANT OPTION FROM diff_u@localhost;
SHOW GRANTS FOR diff_u@localhost;

-- Password changes and their errors.
SET PASSWORD FOR diff_u@localhost = PASSWORD('other');
SHOW GRANTS FOR diff_u@localhost;
SET PASSWORD FOR diff_u@localhost = '*14E65567ABDB5135D0CFD9A70B3032C179A49EE7';
SHOW GRANTS FOR diff_u@localhost;
SET PASSWORD FOR diff_u@localhost = 'not a hash';
ALTER USER diff_u@localhost IDENTIFIED BY 'secret';
SHOW GRANTS FOR diff_u@localhost;
ALTER USER diff_u@localhost ACCOUNT LOCK;
ALTER USER diff_u@localhost ACCOUNT UNLOCK;

-- Errors: 1396 on existing or missing accounts, 1133 unknown grantee, 1141 and 1147 no
-- such grant, 1146 grant on a missing table, 1221 and 1144 global privileges below the
-- global level.
CREATE USER diff_u@localhost;
DROP USER diff_nobody@localhost;
ALTER USER diff_nobody@localhost IDENTIFIED BY 'x';
RENAME USER diff_nobody@localhost TO diff_x@localhost;
SET PASSWORD FOR diff_nobody@localhost = PASSWORD('x');
GRANT SELECT ON diff_accounts.t TO diff_nobody@localhost;
REVOKE SELECT ON diff_other.* FROM diff_u@localhost;
REVOKE SELECT ON diff_accounts.nope FROM diff_u@localhost;
SHOW GRANTS FOR diff_nobody@localhost;
GRANT SELECT ON diff_accounts.nope TO diff_u@localhost;
GRANT PROCESS ON diff_accounts.* TO diff_u@localhost;
GRANT SUPER ON diff_accounts.t TO diff_u@localhost;
GRANT SELEC ON *.* TO diff_u@localhost;

-- Renames keep the grants; drops remove them.
GRANT SELECT ON diff_accounts.t TO diff_u@localhost;
RENAME USER diff_u@localhost TO diff_w@localhost;
SHOW GRANTS FOR diff_w@localhost;
SHOW GRANTS FOR diff_u@localhost;
DROP USER IF EXISTS diff_w@localhost, diff_v@'%', diff_u@localhost;
SHOW WARNINGS;
DROP USER diff_w@localhost;

-- Column privileges: stored in mysql.columns_priv, summed up in tables_priv.Column_priv,
-- shown per privilege; a table-level REVOKE takes the privilege from the columns too.
-- (Grant table rows are read through CONCAT_WS: MariaDB's columns are CHAR, ours VARCHAR.)
CREATE USER diff_c@localhost;
GRANT SELECT (a, b), INSERT (a), UPDATE (b), REFERENCES (c) ON diff_accounts.c TO diff_c@localhost;
SHOW GRANTS FOR diff_c@localhost;
SELECT CONCAT_WS('|', Host, Db, User, Table_name, Table_priv, Column_priv) FROM mysql.tables_priv WHERE User = 'diff_c';
SELECT CONCAT_WS('|', Host, Db, User, Table_name, Column_name, Column_priv) AS r FROM mysql.columns_priv WHERE User = 'diff_c' ORDER BY r;
GRANT SELECT, INSERT (b) ON diff_accounts.c TO diff_c@localhost;
SHOW GRANTS FOR diff_c@localhost;
REVOKE SELECT ON diff_accounts.c FROM diff_c@localhost;
SHOW GRANTS FOR diff_c@localhost;
REVOKE INSERT (a), UPDATE (b) ON diff_accounts.c FROM diff_c@localhost;
SHOW GRANTS FOR diff_c@localhost;
SELECT CONCAT_WS('|', Column_name, Column_priv) AS r FROM mysql.columns_priv WHERE User = 'diff_c' ORDER BY r;
REVOKE ALL PRIVILEGES ON diff_accounts.c FROM diff_c@localhost;
SHOW GRANTS FOR diff_c@localhost;
SELECT COUNT(*) FROM mysql.columns_priv WHERE User = 'diff_c';
SELECT COUNT(*) FROM mysql.tables_priv WHERE User = 'diff_c';
-- Errors: 1054 unknown column, 1144 columns below the table level, 1064 a privilege
-- without a column level, 1147 nothing granted on the table, 1146 missing table.
GRANT SELECT (nope) ON diff_accounts.c TO diff_c@localhost;
GRANT SELECT (a) ON diff_accounts.* TO diff_c@localhost;
GRANT SELECT (a) ON *.* TO diff_c@localhost;
GRANT DELETE (a) ON diff_accounts.c TO diff_c@localhost;
REVOKE SELECT (a) ON diff_accounts.c FROM diff_c@localhost;
GRANT SELECT (a) ON diff_accounts.nope TO diff_c@localhost;
GRANT SELECT (a) ON diff_accounts.c TO diff_nobody@localhost;
-- Renames and drops take the column grants along.
GRANT SELECT (a) ON diff_accounts.c TO diff_c@localhost;
RENAME USER diff_c@localhost TO diff_w@localhost;
SHOW GRANTS FOR diff_w@localhost;
SELECT CONCAT_WS('|', User, Column_name, Column_priv) FROM mysql.columns_priv WHERE User IN ('diff_c', 'diff_w');
DROP USER diff_w@localhost;
SELECT COUNT(*) FROM mysql.columns_priv WHERE User IN ('diff_c', 'diff_w');
