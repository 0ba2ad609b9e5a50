-- Files on the server: SELECT ... INTO OUTFILE / DUMPFILE, LOAD DATA INFILE (not LOCAL)
-- and LOAD_FILE(). Each server has its own --secure-file-priv directory, `$FILES` here
-- (differential.rs); files are compared byte for byte with HEX(LOAD_FILE(...)).

SELECT @@secure_file_priv = '$FILES/' AS f0;

CREATE TABLE t (a INT, b VARCHAR(30), c BLOB, d DATE, e DECIMAL(6,2));
INSERT INTO t VALUES (1, 'x\ty', NULL, '2020-01-02', 1.5), (2, 'a\nb', 'q"r,s', NULL, -2), (NULL, 'back\\slash', 0x00FF0A, '1999-12-31', 0), (4, '', 'NULL', '2001-01-01', NULL), (5, 'it''s \\N', '\r\n', NULL, 12.25);

-- The defaults: tab-separated fields, `\` escapes, newline-ended lines, NULL as \N.
SELECT * FROM t ORDER BY a INTO OUTFILE '$FILES/plain.txt';
SHOW WARNINGS;
SELECT HEX(LOAD_FILE('$FILES/plain.txt')) AS f0;
CREATE TABLE t_plain LIKE t;
LOAD DATA INFILE '$FILES/plain.txt' INTO TABLE t_plain;
SELECT a, HEX(b), HEX(c), d, e FROM t_plain;
SELECT COUNT(*) FROM t JOIN t_plain USING (a) WHERE t.b = t_plain.b AND t.c <=> t_plain.c AND t.d <=> t_plain.d AND t.e <=> t_plain.e;

-- INTO before FROM (no deprecation warning), CSV with optional quotes and CRLF lines.
SELECT * INTO OUTFILE '$FILES/opt.csv' FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"' LINES TERMINATED BY '\r\n' FROM t ORDER BY a;
SHOW WARNINGS;
SELECT HEX(LOAD_FILE('$FILES/opt.csv')) AS f0;
CREATE TABLE t_opt LIKE t;
LOAD DATA INFILE '$FILES/opt.csv' INTO TABLE t_opt FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"' LINES TERMINATED BY '\r\n';
SELECT a, HEX(b), HEX(c), d, e FROM t_opt;

-- Every field enclosed, no escape character (NULL is the word), a line prefix.
SELECT * FROM t ORDER BY a INTO OUTFILE '$FILES/enclosed.txt' FIELDS TERMINATED BY ',' ENCLOSED BY '"' ESCAPED BY '' LINES STARTING BY '>' TERMINATED BY '|\n';
SELECT HEX(LOAD_FILE('$FILES/enclosed.txt')) AS f0;

-- Other separators and escape characters.
SELECT a, b, c INTO OUTFILE '$FILES/sep.txt' FIELDS TERMINATED BY '::' ESCAPED BY '#' LINES TERMINATED BY ';' FROM t ORDER BY a;
SELECT HEX(LOAD_FILE('$FILES/sep.txt')) AS f0;
CREATE TABLE t_sep (a INT, b VARCHAR(30), c BLOB);
LOAD DATA INFILE '$FILES/sep.txt' INTO TABLE t_sep FIELDS TERMINATED BY '::' ESCAPED BY '#' LINES TERMINATED BY ';';
SELECT a, HEX(b), HEX(c) FROM t_sep;
SELECT 'a,b', 'c"d', 'e\\f' INTO OUTFILE '$FILES/quoted.csv' FIELDS TERMINATED BY ',' ENCLOSED BY '\'';
SELECT HEX(LOAD_FILE('$FILES/quoted.csv')) AS f0;

-- Expressions, numbers, temporal values, a UNION, an empty result, no FROM.
SELECT 1.5e0, 2.50, DATE '2020-01-02', TIME '10:11:12', 'x', 7 INTO OUTFILE '$FILES/expr.csv' FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"';
SELECT HEX(LOAD_FILE('$FILES/expr.csv')) AS f0;
SELECT 1 UNION SELECT 2 INTO OUTFILE '$FILES/union.txt';
SELECT HEX(LOAD_FILE('$FILES/union.txt')) AS f0;
SELECT a FROM t WHERE a > 100 INTO OUTFILE '$FILES/empty.txt';
SELECT LOAD_FILE('$FILES/empty.txt') AS f0, LENGTH(LOAD_FILE('$FILES/empty.txt')) AS f1;
SELECT a FROM t WHERE a = 1 INTO OUTFILE '$FILES/locked.txt' FOR UPDATE;

-- An existing file is never overwritten.
SELECT 1 INTO OUTFILE '$FILES/plain.txt';
SELECT 1 INTO DUMPFILE '$FILES/plain.txt';

-- DUMPFILE: the bytes as they are; NULL is one NUL byte.
SELECT c FROM t WHERE a = 3 INTO DUMPFILE '$FILES/raw.bin';
SELECT HEX(LOAD_FILE('$FILES/raw.bin')) AS f0;
SELECT a, b, c INTO DUMPFILE '$FILES/cols.bin' FROM t WHERE a = 2;
SELECT HEX(LOAD_FILE('$FILES/cols.bin')) AS f0;
SELECT NULL INTO DUMPFILE '$FILES/null.bin';
SELECT HEX(LOAD_FILE('$FILES/null.bin')) AS f0;
SELECT c FROM t ORDER BY a INTO DUMPFILE '$FILES/many.bin';
SELECT HEX(LOAD_FILE('$FILES/many.bin')) AS f0;

-- Outside the directory (after resolving ..), relative names, no such directory.
SELECT 1 INTO OUTFILE '/tmp/outside.txt';
SELECT 1 INTO OUTFILE '$FILES/../outside.txt';
SELECT 1 INTO OUTFILE 'relative.txt';
SELECT 1 INTO OUTFILE '$FILES/no/such/dir.txt';
SELECT 1 INTO OUTFILE '$FILES';
LOAD DATA INFILE '/etc/passwd' INTO TABLE t_plain;
LOAD DATA INFILE '$FILES/../plain.txt' INTO TABLE t_plain;
LOAD DATA INFILE 'plain.txt' INTO TABLE t_plain;
LOAD DATA INFILE '$FILES/missing.txt' INTO TABLE t_plain;
LOAD DATA INFILE '$FILES' INTO TABLE t_plain;
SELECT LOAD_FILE('/etc/passwd') AS f0, LOAD_FILE('$FILES/../plain.txt') AS f1, LOAD_FILE('plain.txt') AS f2, LOAD_FILE('$FILES/missing.txt') AS f3, LOAD_FILE('$FILES') AS f4, LOAD_FILE(NULL) AS f5;

-- Without LOCAL, LOAD DATA is not IGNORE: a duplicate fails and undoes the statement.
CREATE TABLE k (id INT PRIMARY KEY, v VARCHAR(5));
INSERT INTO k VALUES (2, 'old');
SELECT 1, 'one' UNION ALL SELECT 2, 'two' UNION ALL SELECT 3, 'three' INTO OUTFILE '$FILES/k.txt';
LOAD DATA INFILE '$FILES/k.txt' INTO TABLE k;
SELECT * FROM k;
LOAD DATA INFILE '$FILES/k.txt' IGNORE INTO TABLE k;
SHOW WARNINGS;
SELECT * FROM k;
LOAD DATA INFILE '$FILES/k.txt' REPLACE INTO TABLE k;
SELECT * FROM k;
-- ... and in strict mode a bad value fails it too.
CREATE TABLE narrow (id INT, v VARCHAR(3));
LOAD DATA INFILE '$FILES/k.txt' INTO TABLE narrow;
SELECT COUNT(*) FROM narrow;
LOAD DATA INFILE '$FILES/k.txt' IGNORE INTO TABLE narrow;
SHOW WARNINGS;
SELECT * FROM narrow;

-- Options LOAD DATA refuses are refused here too.
SELECT 1 INTO OUTFILE '$FILES/bad.txt' FIELDS ENCLOSED BY 'ab';
SELECT 1 INTO OUTFILE '$FILES/bad.txt' CHARACTER SET nosuch;
SELECT * FROM t INTO OUTFILE '$FILES/bad.txt' LIMIT 1;

-- The FILE privilege: granted on *.* only, and shown.
CREATE USER filer@localhost;
GRANT FILE ON *.* TO filer@localhost;
SHOW GRANTS FOR filer@localhost;
GRANT FILE ON diff_files.* TO filer@localhost;
REVOKE FILE ON *.* FROM filer@localhost;
SHOW GRANTS FOR filer@localhost;
DROP USER filer@localhost;
