-- Common functions with deterministic results.

-- Strings.
SELECT LENGTH('abc'), LENGTH('ü'), CHAR_LENGTH('ü'), CHARACTER_LENGTH('abc'), OCTET_LENGTH('ab');
SELECT UPPER('abC'), LOWER('AbC'), UCASE('x'), LCASE('Y');
SELECT CONCAT('a', 'b', 'c'), CONCAT_WS('-', 'a', NULL, 'c'), CONCAT(), CONCAT('x');
SELECT SUBSTRING('hello', 2), SUBSTRING('hello', 2, 3), SUBSTRING('hello', -3), SUBSTRING('hello' FROM 2 FOR 2), SUBSTR('hello', 0);
SELECT LEFT('hello', 2), RIGHT('hello', 3), LEFT('hi', 10), MID('hello', 2, 2);
SELECT TRIM('  a  '), LTRIM('  a'), RTRIM('a  '), TRIM(BOTH 'x' FROM 'xxaxx'), TRIM(LEADING '0' FROM '007');
SELECT REPLACE('banana', 'an', 'AN'), REVERSE('abc'), REPEAT('ab', 3), REPEAT('x', 0), SPACE(3);
SELECT LOCATE('b', 'abcb'), LOCATE('b', 'abcb', 3), INSTR('abc', 'c'), POSITION('c' IN 'abc'), LOCATE('z', 'abc');
SELECT LPAD('5', 3, '0'), RPAD('ab', 5, '.'), LPAD('hello', 2, 'x');
SELECT ASCII('A'), ORD('a'), CHAR(65, 66), HEX('ab'), UNHEX('6162'), HEX(255);
SELECT STRCMP('a', 'b'), STRCMP('b', 'a'), STRCMP('a', 'A');
SELECT FIELD('b', 'a', 'b', 'c'), ELT(2, 'x', 'y', 'z'), FIND_IN_SET('b', 'a,b,c');
SELECT LENGTH(NULL), UPPER(NULL), SUBSTRING(NULL, 1), REPLACE('a', NULL, 'b');
SELECT MD5('abc'), SHA1('abc'), CRC32('abc');
SELECT QUOTE('it''s'), INSERT('abcdef', 2, 3, 'XY'), FORMAT(1234567.891, 2), FORMAT(0.5, 0);

-- Numbers.
SELECT ABS(-5), ABS(5.5), SIGN(-3), SIGN(0), SIGN(2.5);
SELECT ROUND(2.5), ROUND(-2.5), ROUND(2.45, 1), ROUND(1234.5678, -2), ROUND(1.5e0), ROUND(2.5e0);
SELECT TRUNCATE(2.789, 2), TRUNCATE(-2.789, 1), TRUNCATE(123, -1);
SELECT FLOOR(2.7), FLOOR(-2.7), CEIL(2.1), CEILING(-2.1), FLOOR(5), CEIL(1.0);
SELECT MOD(10, 3), MOD(-10, 3), MOD(10.5, 3), POW(2, 10), POWER(2, -1), SQRT(16), SQRT(-1);
SELECT EXP(0), LN(1), LOG(1), LOG10(1000), LOG2(8), PI();
-- PI() is an exact DOUBLE printed with 6 decimals, which what is computed from it keeps.
SELECT PI() * 2, PI() / 2, -PI(), PI() + 0e0, POW(PI(), 2), CONCAT(PI()), GREATEST(PI(), 1.1234567);
SELECT PI() = 3.141593, PI() = 3.1415927, PI() = 3.1415926, PI() + 0e0 = 3.141593;
SELECT AVG(PI()), SUM(PI()), MAX(PI());
-- ROUND/TRUNCATE of a DOUBLE: a DOUBLE rounded as rint() does, printed with the constant
-- places as decimals (none for negative places, not fixed from 31 on or for NULL places).
SELECT ROUND(PI(), 2), ROUND(PI()), ROUND(PI(), 10), ROUND(PI(), -1), ROUND(PI(), 40), TRUNCATE(PI()*100, 1), TRUNCATE(-PI(), 4);
SELECT ROUND(1e0, 2), ROUND(1.005e0, 2), ROUND(1250e0, -2), ROUND(1350e0, -2), ROUND(-0.001e0, 2), TRUNCATE(-1.999e0, 2), TRUNCATE(1999e0, -2);
SELECT ROUND(1e300, -301), TRUNCATE(1e-300, 400), ROUND(123.456e0, 18446744073709551615), ROUND(123.456e0, 1.4), TRUNCATE(1.55e0, 1.6), ROUND('3.14159', 3), ROUND(PI(), NULL);
SELECT ROUND(PI(), 2) * 2, CONCAT(ROUND(PI(), 2)), ROUND(PI(), 2) = 3.14, CONCAT(FLOOR(1.5e0)), ROUND(PI(), '3'), ROUND(1.5e308, -308);
-- CEIL/FLOOR of a DOUBLE stay DOUBLE (1e20 has no integer type), printed without decimals.
SELECT FLOOR(1.5e0), CEIL(1.5e0), CEILING(-1.5e0), FLOOR(PI()), CEIL(PI()), FLOOR(1e20), CEIL(-0.5e0), FLOOR(NULL);
-- DECIMAL: the scale follows constant places, even beyond the argument's; integers that
-- need a 20th digit become DECIMAL.
SELECT ROUND(5.55, 4), TRUNCATE(5.55, 4), ROUND(5.55, 1), ROUND(1.5, 1.4), ROUND(1.5, NULL), ROUND(5.55, 40), ROUND(5.55, -70);
SELECT ROUND(9, -1), ROUND(-9, -1), TRUNCATE(99, -1), ROUND(123, 2), ROUND(15, NULL), ROUND(9223372036854775807, -1), ROUND(18446744073709551615, -1), TRUNCATE(9223372036854775807, -1);
CREATE TABLE r (id INT PRIMARY KEY, d DOUBLE, f FLOAT, n DECIMAL(10,3), i INT, u INT UNSIGNED, b BIGINT, p INT, s VARCHAR(20));
INSERT INTO r VALUES (1, 3.14159, 1.5, 123.456, 17, 25, 1234567, 2, '2.567'), (2, -1234.5678, -2.5, -0.5, -15, 4000000000, -9223372036854775807, -1, 'x'), (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
SELECT ROUND(d, 2), ROUND(d, -2), ROUND(d, p), ROUND(f, 1), TRUNCATE(d, 2), TRUNCATE(d, p), TRUNCATE(f, 1), ROUND(d, NULL) FROM r ORDER BY id;
SELECT FLOOR(d), CEIL(d), FLOOR(f), CEIL(f), FLOOR(n), CEIL(n), FLOOR(i), CEIL(u), FLOOR(b) FROM r ORDER BY id;
SELECT ROUND(n, 2), ROUND(n, -1), ROUND(n, p), ROUND(n, 5), TRUNCATE(n, 1), TRUNCATE(n, p), ROUND(n, NULL) FROM r ORDER BY id;
SELECT ROUND(i, -1), ROUND(i, p), TRUNCATE(i, p), TRUNCATE(u, -1), ROUND(u, -1), ROUND(u, p), ROUND(b, -2), ROUND(b, 2), ROUND(b, p), TRUNCATE(b, p) FROM r ORDER BY id;
SELECT ROUND(s, 1), TRUNCATE(s, 2), FLOOR(s), CEIL(s) FROM r ORDER BY id;
DROP TABLE r;
-- A DOUBLE(M,D) column stores its values rounded to D decimals and prints them, and what
-- keeps its decimals, with D digits.
CREATE TABLE rd (id INT PRIMARY KEY, d4 DOUBLE(10,4));
INSERT INTO rd VALUES (1, 2.71828), (2, -0.00005);
SELECT d4, ROUND(d4, 2), ROUND(d4, id), FLOOR(d4) FROM rd ORDER BY id;
DROP TABLE rd;
SELECT CONV('ff', 16, 10), CONV(10, 10, 2), BIN(5), OCT(8);
SELECT CONV('-1', 10, 16), CONV('-1', 10, -10), CONV('zz', 36, 10), CONV('12', 1, 10), BIN(NULL), ORD('é'), QUOTE(NULL), QUOTE('a\\b');
SELECT GREATEST(3, 7, 5), LEAST('b', 'a', 'c');

-- Dates (fixed inputs only; NOW() and friends differ per run).
SELECT DATE('2024-03-15 10:20:30'), YEAR('2024-03-15'), MONTH('2024-03-15'), DAY('2024-03-15'), DAYOFMONTH('2024-03-15');
SELECT HOUR('10:20:30'), MINUTE('2024-03-15 10:20:30'), SECOND('10:20:30');
SELECT DATE_ADD('2024-01-31', INTERVAL 1 MONTH), DATE_SUB('2024-03-01', INTERVAL 1 DAY), '2024-01-01' + INTERVAL 10 DAY;
SELECT DATEDIFF('2024-03-01', '2024-02-01'), DAYOFWEEK('2024-03-15'), DAYOFYEAR('2024-03-15'), WEEKDAY('2024-03-15');
SELECT DATE_FORMAT('2024-03-05 07:08:09', '%Y/%m/%d %H:%i:%s'), DATE_FORMAT('2024-03-05', '%W %M %e %y');
SELECT STR_TO_DATE('15/03/2024', '%d/%m/%Y'), LAST_DAY('2024-02-10'), MAKEDATE(2024, 60);
SELECT UNIX_TIMESTAMP('2024-01-01 00:00:00') - UNIX_TIMESTAMP('2023-12-31 00:00:00');
SELECT TIMESTAMPDIFF(DAY, '2024-01-01', '2024-03-01'), TIMESTAMPDIFF(MONTH, '2024-01-31', '2024-03-01');
SELECT TIMESTAMPDIFF(MONTH, '2024-03-01', '2024-01-31'), TIMESTAMPDIFF(HOUR, '2024-01-01 10:00:00', '2024-01-01 07:30:00'), TIMESTAMPDIFF(YEAR, '2000-02-29', '2024-02-28');
SELECT STR_TO_DATE('2024-03-15 07:08:09', '%Y-%m-%d %H:%i:%s'), STR_TO_DATE('March 5 2024', '%M %e %Y'), STR_TO_DATE('31/02/2024', '%d/%m/%Y'), MAKEDATE(2024, 0), MAKEDATE(99, 1);
SELECT HOUR('100:20:30'), MINUTE('10:20'), SECOND('10:20:30.5'), INSERT('abc', 5, 1, 'x'), INSERT('abc', 2, -1, 'x');
SELECT DATE('not a date'), YEAR(NULL);

-- Session functions with stable results in a fresh session.
SELECT DATABASE();
SELECT CURRENT_USER(), USER();
SELECT CONNECTION_ID() > 0, VERSION() LIKE '%';
-- diff: skip-result
SELECT NOW(), CURDATE(), CURTIME(), UNIX_TIMESTAMP(), UUID(), RAND(), SYSDATE();
-- diff: skip-result
SELECT VERSION(), CONNECTION_ID();
SELECT LENGTH(UUID()), RAND(1) = RAND(1), NOW() = NOW();
-- UUID_SHORT(): server_id (1) in the top byte, a new value per call; its column type.
SELECT UUID_SHORT() >> 56, UUID_SHORT() <> UUID_SHORT(), UUID_SHORT() > 0;
-- diff: skip-result
SELECT UUID_SHORT();

-- DOUBLE(M,D): rounding (half to even on the fraction), the range 10^(M-D), the limits.
CREATE TABLE rd2 (id INT PRIMARY KEY, d DOUBLE(6,2) NOT NULL DEFAULT 1.005);
INSERT INTO rd2 VALUES (1, 1234.565), (2, -0.005), (3, 9999.994), (4, -9999.99);
INSERT INTO rd2 (id) VALUES (5);
INSERT INTO rd2 VALUES (6, 10000);
INSERT INTO rd2 VALUES (7, -9999.996);
INSERT INTO rd2 VALUES (8, '12.345');
SELECT id, d, d * 3, d + 0.001, ROUND(d, 1) FROM rd2 ORDER BY id;
SHOW COLUMNS FROM rd2;
SET sql_mode = '';
INSERT INTO rd2 VALUES (9, 123456.7);
SELECT d FROM rd2 WHERE id = 9;
SET sql_mode = DEFAULT;
UPDATE rd2 SET d = d / 3 WHERE id = 1;
SELECT d FROM rd2 WHERE id = 1;
DROP TABLE rd2;
CREATE TABLE bad (d DOUBLE(4,5));
CREATE TABLE bad (d DOUBLE(256,5));
CREATE TABLE bad (d DOUBLE(40,31));

-- FLOAT(M,D): rounded to D decimals and bounded by 10^(M-D), then held in single
-- precision; FLOAT(p) is a FLOAT up to p = 24.
CREATE TABLE rf (id INT PRIMARY KEY, f FLOAT(10,2), g FLOAT(7,4) NOT NULL DEFAULT 1.23456, h FLOAT(5));
INSERT INTO rf VALUES (1, 1.234, 1.5, 1.1), (2, -12345678.995, -999.99995, 2.5), (3, 0.005, 0.00005, NULL);
INSERT INTO rf (id) VALUES (4);
INSERT INTO rf VALUES (5, 100000000, 0, 0);
INSERT INTO rf VALUES (6, '12.345', '1.23456789', 1);
SELECT id, f, g, h, f * 2, f + 0.001, ROUND(f, 1) FROM rf ORDER BY id;
SELECT SUM(f), MAX(g), MIN(f) FROM rf;
SHOW COLUMNS FROM rf;
SHOW CREATE TABLE rf;
SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, NUMERIC_PRECISION, NUMERIC_SCALE FROM information_schema.COLUMNS WHERE TABLE_NAME = 'rf' ORDER BY ORDINAL_POSITION;
SET sql_mode = '';
INSERT INTO rf VALUES (7, 123456789012, 1000, 1);
SELECT f, g FROM rf WHERE id = 7;
SET sql_mode = DEFAULT;
UPDATE rf SET f = f / 3 WHERE id = 1;
SELECT f FROM rf WHERE id = 1;
CREATE TABLE rf2 AS SELECT f, g FROM rf WHERE id = 6;
SHOW CREATE TABLE rf2;
SELECT * FROM rf2;
DROP TABLE rf, rf2;
CREATE TABLE bad (f FLOAT(4,5));
CREATE TABLE bad (f FLOAT(256,5));
CREATE TABLE bad (f FLOAT(40,31));

-- FLOAT, DOUBLE and DECIMAL UNSIGNED: a negative value is out of range (1264; 0 and a
-- warning without strict mode), even one that rounds to zero; -0 is 0.
CREATE TABLE fu (id INT PRIMARY KEY, f FLOAT UNSIGNED, d DOUBLE UNSIGNED, fm FLOAT(6,2) UNSIGNED, dm DOUBLE(6,2) UNSIGNED, n DECIMAL(6,2) UNSIGNED);
INSERT INTO fu VALUES (1, -1, 0, 0, 0, 0);
INSERT INTO fu VALUES (2, 0, -1.5, 0, 0, 0);
INSERT INTO fu VALUES (3, 0, 0, -0.001, 0, 0);
INSERT INTO fu VALUES (4, 0, 0, 0, -0.004, 0);
INSERT INTO fu VALUES (5, 0, 0, 0, 0, -0.004);
INSERT INTO fu VALUES (6, -0.0, -0e0, '-0', '-0.0', '-0');
INSERT INTO fu VALUES (7, 1.5, 2.5, 3.5, 4.5, 5.5);
INSERT INTO fu VALUES (8, '-1', 0, 0, 0, 0);
INSERT INTO fu VALUES (9, 1e40, 0, 0, 0, 0);
INSERT INTO fu VALUES (10, 0, 0, 1e5, 1e5, 1e5);
SET sql_mode = '';
INSERT INTO fu VALUES (11, -1, -2, -3, -4, -5), (12, -1e40, -1e300, -1e5, '-1e5', -1e5);
SET sql_mode = DEFAULT;
SELECT * FROM fu ORDER BY id;
UPDATE fu SET f = f - 10 WHERE id = 7;
UPDATE fu SET d = -d WHERE id = 7;
SET sql_mode = '';
UPDATE fu SET f = f - 10, d = -d WHERE id = 7;
SET sql_mode = DEFAULT;
INSERT INTO fu SELECT 20, -1, 0, 0, 0, 0;
INSERT INTO fu (id, f) SELECT 21, f - 100 FROM fu WHERE id = 7;
INSERT INTO fu (id, f, d) SELECT 22, f + 1, d + 2 FROM fu WHERE id = 7;
SELECT * FROM fu ORDER BY id;
SELECT f, -f, f - 10, d * -1, -dm, -n, CAST(f AS DOUBLE), ROUND(f, 1), ABS(d) FROM fu WHERE id = 22;
SHOW CREATE TABLE fu;
SHOW COLUMNS FROM fu;
SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, NUMERIC_PRECISION, NUMERIC_SCALE FROM information_schema.COLUMNS WHERE TABLE_NAME = 'fu' ORDER BY ORDINAL_POSITION;
CREATE TABLE fu2 AS SELECT f, d, fm, dm, n, f + 1 AS f1, -d AS nd, -n AS nn FROM fu;
SHOW CREATE TABLE fu2;
DROP TABLE fu, fu2;
CREATE TABLE bad (f FLOAT UNSIGNED DEFAULT -1);
CREATE TABLE bad (d DOUBLE(5,2) UNSIGNED DEFAULT -0.001);

-- REAL and DOUBLE PRECISION are DOUBLE, with (M,D) and UNSIGNED too; FLOAT(p) is a FLOAT
-- up to 24, a DOUBLE up to 53, and an error above.
CREATE TABLE rs (h REAL UNSIGNED, i DOUBLE PRECISION UNSIGNED, j REAL(5,2) UNSIGNED, k DOUBLE PRECISION(7,3) UNSIGNED, l real(5,2), m double   precision ( 7 , 3 ), n FLOAT(0), o FLOAT(24) UNSIGNED, p FLOAT(25), q FLOAT(53) UNSIGNED, r REAL, s DOUBLE PRECISION);
SHOW CREATE TABLE rs;
ALTER TABLE rs ADD COLUMN t REAL(6,3) UNSIGNED, MODIFY l DOUBLE PRECISION(8,1);
SHOW COLUMNS FROM rs;
INSERT INTO rs (j, l, m) VALUES (1.005, 123.456, -1234.5678);
INSERT INTO rs (k) VALUES (-1);
INSERT INTO rs (t) VALUES (-0.0001);
SELECT j, l, m FROM rs;
DROP TABLE rs;
CREATE TABLE bad (f FLOAT(54));
CREATE TABLE bad (f FLOAT(255));
CREATE TABLE bad (f REAL(5));
CREATE TABLE bad (f DOUBLE PRECISION(5));
CREATE TABLE bad (f DOUBLE(5));

-- SLEEP: returns 0 (NULL and negative sleep no time); a statement that sleeps runs once,
-- whether it reads, writes, assigns or sits in a transaction with other statements.
SELECT SLEEP(0.05), SLEEP(NULL), SLEEP(-1), SLEEP('0.01');
CREATE TABLE sl (id INT PRIMARY KEY, n INT NOT NULL);
INSERT INTO sl VALUES (1, SLEEP(0.02)), (2, 10), (3, 20);
SELECT id, n, SLEEP(0.02) FROM sl ORDER BY id;
UPDATE sl SET n = n + 1 + SLEEP(0.02);
SET @k = 5;
SET @k = @k + 1 + SLEEP(0.02);
DO SLEEP(0.02), @k := @k + 1;
BEGIN;
DELETE FROM sl WHERE id = SLEEP(0.02) + 3;
INSERT INTO sl SELECT id + 10, n + SLEEP(0.01) FROM sl WHERE id < 3;
COMMIT;
SELECT id, n, @k FROM sl ORDER BY id;
DROP TABLE sl;
SET @j = 1;
DO @j := @j + 1, SLEEP(0.02), @j := @j * 10;
SET @j = @j + 1, @i = SLEEP(0.02);
SELECT @j, @i;
-- Result types of string functions follow the bytes the result may need (4 a character
-- for utf8mb4): a text function of a TEXT column is MEDIUMTEXT, of a MEDIUMTEXT LONGTEXT;
-- a literal count of LEFT/RIGHT bounds it.
CREATE TABLE string_types (v VARCHAR(100), v3 VARCHAR(5000), t TEXT, tt TINYTEXT, mt MEDIUMTEXT, b BLOB, vb VARBINARY(300));
INSERT INTO string_types VALUES ('abc', 'def', 'ghi', 'jkl', 'mno', 'pqr', 'stu');
SELECT SUBSTRING(t, 1), SUBSTRING(tt, 2), SUBSTRING(mt, 1), SUBSTRING(b, 1), SUBSTRING(vb, 1) FROM string_types;
SELECT CONCAT(v3, v3, v3), CONCAT(v3, v3, v3, v3), CONCAT(t, 'x'), CONCAT(b, 'x') FROM string_types;
SELECT REPLACE(t, 'g', 'G'), UPPER(tt), LOWER(mt), TRIM(t), REVERSE(tt) FROM string_types;
SELECT LEFT(t, 3), RIGHT(t, 2), LEFT(v, 1000), REPEAT(v, 200), LPAD(v, 5000, 'x') FROM string_types;
SELECT REGEXP_SUBSTR(t, 'h.'), REGEXP_SUBSTR(v3, 'e'), REGEXP_SUBSTR(tt, 'k') FROM string_types;
DROP TABLE string_types;
