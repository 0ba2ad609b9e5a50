-- Every column type in the issue: ranges, text form, metadata.

CREATE TABLE ints (
  id INT PRIMARY KEY,
  ti TINYINT, tiu TINYINT UNSIGNED,
  si SMALLINT, siu SMALLINT UNSIGNED,
  mi MEDIUMINT, miu MEDIUMINT UNSIGNED,
  i INT, iu INT UNSIGNED,
  bi BIGINT, biu BIGINT UNSIGNED
);
INSERT INTO ints VALUES
  (1, -128, 0, -32768, 0, -8388608, 0, -2147483648, 0, -9223372036854775808, 0),
  (2, 127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295, 9223372036854775807, 18446744073709551615),
  (3, 0, 1, -1, 1, -1, 1, -1, 1, -1, 1),
  (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
SELECT * FROM ints ORDER BY id;
SELECT ti + 1, tiu + 1, bi - 1 FROM ints WHERE id = 3;
SELECT biu FROM ints WHERE biu > 9223372036854775807;
SELECT MAX(bi), MIN(bi), MAX(biu), SUM(i), SUM(iu) FROM ints;

CREATE TABLE decs (
  id INT PRIMARY KEY,
  d DECIMAL(10,2), d0 DECIMAL(5), du DECIMAL(8,3) UNSIGNED, dbig DECIMAL(30,10)
);
INSERT INTO decs VALUES
  (1, 12345678.91, 99999, 0.001, 12345678901234567890.0123456789),
  (2, -0.5, -99999, 99999.999, -0.0000000001),
  (3, 0, 0, 0, 0),
  (4, NULL, NULL, NULL, NULL);
SELECT * FROM decs ORDER BY id;
SELECT d * 2, d + 0.001, d0 / 7, dbig * 10 FROM decs WHERE id IN (1, 2) ORDER BY id;
SELECT SUM(d), AVG(d), MIN(dbig), MAX(du) FROM decs;
-- Rounding on insert into fewer decimals is a note, not an error.
INSERT INTO decs (id, d) VALUES (5, 1.005), (6, 1.004), (7, -2.345);
SELECT id, d FROM decs WHERE id >= 5 ORDER BY id;

CREATE TABLE floats (id INT PRIMARY KEY, f FLOAT, d DOUBLE, r REAL);
INSERT INTO floats VALUES (1, 1.5, 2.25, 3.125), (2, -0.1, 0.1, 1e100), (3, 1e10, 1.7976931348623157e308, -2.5e-10),
  (4, 3.14159, 2.718281828459045, 100), (5, NULL, NULL, NULL), (6, 123456789, 123456789012345678, 0.3);
SELECT * FROM floats ORDER BY id;
SELECT d * 2, d + 1, f * 1 FROM floats WHERE id IN (1, 4) ORDER BY id;
SELECT SUM(d), MIN(f), MAX(d) FROM floats WHERE id IN (1, 2, 4);

CREATE TABLE strs (
  id INT PRIMARY KEY,
  c CHAR(5), v VARCHAR(10), t TEXT, b BLOB, vb VARBINARY(8)
);
INSERT INTO strs VALUES
  (1, 'ab', 'hello', 'long text', 'bytes', 'vb'),
  (2, 'ab   ', 'trail   ', 'x', '', ''),
  (3, '', '', '', NULL, NULL),
  (4, 'Ünï', 'ütf8 ✓', 'ß', X'00FF10', X'DEADBEEF'),
  (5, NULL, NULL, NULL, NULL, NULL);
SELECT * FROM strs ORDER BY id;
SELECT id, LENGTH(c), CHAR_LENGTH(c), LENGTH(v), LENGTH(b), HEX(b), HEX(vb) FROM strs ORDER BY id;
SELECT id FROM strs WHERE c = 'ab' ORDER BY id;
SELECT id FROM strs WHERE v = 'trail' ORDER BY id;
SELECT id FROM strs WHERE c = 'AB' ORDER BY id;

CREATE TABLE times (id INT PRIMARY KEY, d DATE, dt DATETIME, ts TIMESTAMP NULL, dt6 DATETIME(6));
INSERT INTO times VALUES
  (1, '2024-02-29', '2024-02-29 23:59:59', '2024-02-29 23:59:59', '2024-02-29 23:59:59.123456'),
  (2, '1000-01-01', '1000-01-01 00:00:00', '1970-01-02 00:00:00', '1000-01-01 00:00:00.000001'),
  (3, '9999-12-31', '9999-12-31 23:59:59', '2038-01-19 03:14:07', '9999-12-31 23:59:59.999999'),
  (4, 20240115, 20240115103000, '2024-01-15 10:30:00', '2024-01-15'),
  (5, NULL, NULL, NULL, NULL);
SELECT * FROM times ORDER BY id;
SELECT id FROM times WHERE d > '2024-01-01' ORDER BY id;
SELECT id FROM times WHERE dt BETWEEN '2000-01-01' AND '2030-01-01' ORDER BY id;
SELECT d + 0, dt + 0 FROM times WHERE id = 1;
SELECT MIN(d), MAX(dt), COUNT(ts) FROM times;

-- Metadata: the declared types as the server reports them.
SHOW COLUMNS FROM ints;
SHOW COLUMNS FROM decs;
SHOW COLUMNS FROM floats;
SHOW COLUMNS FROM strs;
SHOW COLUMNS FROM times;

-- Type synonyms.
CREATE TABLE synonyms (a INTEGER, b BOOL, c BOOLEAN, d NUMERIC(5,1), e DEC(4,2), f DOUBLE PRECISION, g CHARACTER(3));
INSERT INTO synonyms VALUES (1, TRUE, FALSE, 1.25, 1.5, 2.5, 'abc');
SELECT * FROM synonyms;
SHOW COLUMNS FROM synonyms;

DROP TABLE ints, decs, floats, strs, times, synonyms;
