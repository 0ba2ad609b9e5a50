-- CHECKSUM TABLE: MariaDB's number for the same rows, type by type (each table's record
-- format: null bitmap, fixed-size columns as the record holds them, strings as their
-- bytes), for missing tables, views, QUICK and the errors of the whole statement.

CREATE TABLE ints (a INT NOT NULL, b TINYINT, c SMALLINT UNSIGNED, d MEDIUMINT, e BIGINT, f BIGINT UNSIGNED);
INSERT INTO ints VALUES (1, -1, 65535, -8388608, -9223372036854775808, 18446744073709551615), (2, NULL, NULL, NULL, NULL, NULL), (3, 127, 0, 8388607, 9223372036854775807, 0);
CHECKSUM TABLE ints;
CREATE TABLE reals (a FLOAT, b DOUBLE NOT NULL, c DOUBLE(8,3), d FLOAT(7,2)) CHARSET utf8mb4;
INSERT INTO reals VALUES (1.5, -2.25, 12345.678, 3.14), (NULL, 1e300, NULL, NULL), (-0.1, 0, -1.5, 0.5);
CHECKSUM TABLE reals;
CREATE TABLE decimals (a DECIMAL(10,2), b DECIMAL(20,6) NOT NULL, c DECIMAL(5,0), d DECIMAL(30,25), e DECIMAL(9,9));
INSERT INTO decimals VALUES (12.34, -123456789.5, 99999, 12345.1234567890123456789012345, 0.123456789), (-0.01, 0, -1, -0.0000000000000000000000001, -0.999999999), (NULL, 1, NULL, NULL, NULL);
CHECKSUM TABLE decimals;
CREATE TABLE strings (a CHAR(3), b CHAR(5) NOT NULL, c BINARY(4), d VARCHAR(10)) CHARSET utf8mb4;
INSERT INTO strings VALUES ('ab', 'é€', 'xy', 'hello'), (NULL, '', NULL, NULL), ('', 'abcde', 'wxyz', '');
CHECKSUM TABLE strings;
CREATE TABLE fixed_chars (a CHAR(3) NOT NULL, b BINARY(2)) CHARSET utf8mb4;
INSERT INTO fixed_chars VALUES ('ab', 'q'), ('😀', NULL);
CHECKSUM TABLE fixed_chars;
CREATE TABLE lobs (a TEXT, b BLOB, c VARBINARY(20), d JSON, e MEDIUMTEXT NOT NULL) CHARSET utf8mb4;
INSERT INTO lobs VALUES ('text', x'00ff10', x'0102', '{"a": 1}', 'm'), (NULL, NULL, NULL, NULL, ''), ('', '', '', '[1, 2]', 'long');
CHECKSUM TABLE lobs;
CREATE TABLE temporals (a DATE, b DATETIME, c DATETIME(3), d DATETIME(6) NOT NULL, e TIME, f TIME(2), g TIME(4), h TIME(6)) CHARSET utf8mb4;
INSERT INTO temporals VALUES ('2024-03-05', '2024-03-05 10:11:12', '2024-03-05 10:11:12.345', '1999-12-31 23:59:59.999999', '10:11:12', '-01:02:03.45', '-01:02:03.4567', '-01:02:03.456789');
INSERT INTO temporals VALUES ('0000-00-00', '0000-00-00 00:00:00', NULL, '1000-01-01 00:00:00', '-838:59:59', '838:59:59.99', '00:00:00', '-00:00:00.000001');
INSERT INTO temporals VALUES (NULL, NULL, '2000-01-01 00:00:00.5', '2000-02-29 12:00:00.1', NULL, NULL, '-00:00:01', NULL);
CHECKSUM TABLE temporals;
SET time_zone = '+05:00';
CREATE TABLE stamps (a TIMESTAMP NULL, b TIMESTAMP(3) NULL, c TIMESTAMP(6) NOT NULL DEFAULT '2001-01-01 00:00:00') CHARSET utf8mb4;
INSERT INTO stamps VALUES ('2024-03-05 10:11:12', '2024-03-05 10:11:12.345', '2038-01-19 08:14:07.999999'), (NULL, '1970-01-01 05:00:01', '0000-00-00 00:00:00');
CHECKSUM TABLE stamps;
SET time_zone = '+00:00';
CHECKSUM TABLE stamps;
CREATE TABLE members (a ENUM('x', 'y', 'z'), b SET('p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x') NOT NULL, c SET('one') NOT NULL) CHARSET utf8mb4;
INSERT INTO members VALUES ('y', 'p,w,x', 'one'), (NULL, '', ''), ('z', 'q', 'one');
CHECKSUM TABLE members;

-- Packed records (a VARCHAR, TEXT or BLOB column, or ROW_FORMAT=DYNAMIC) have no bit for
-- a deleted row; generated columns read as NULL.
CREATE TABLE only_ints (a INT NOT NULL);
CREATE TABLE dynamic_ints (a INT NOT NULL) ROW_FORMAT=DYNAMIC;
CREATE TABLE compact_ints (a INT NOT NULL) ROW_FORMAT=COMPACT;
CREATE TABLE with_varchar (a INT NOT NULL, b VARCHAR(3) NOT NULL) CHARSET utf8mb4;
CREATE TABLE nine_nullable (a INT, b INT, c INT, d INT, e INT, f INT, g INT, h INT, i INT);
CREATE TABLE generated (a INT NOT NULL, b INT AS (a + 1) VIRTUAL, c INT AS (a * 2) STORED);
INSERT INTO only_ints VALUES (1), (2);
INSERT INTO dynamic_ints VALUES (1), (2);
INSERT INTO compact_ints VALUES (1), (2);
INSERT INTO with_varchar VALUES (1, 'a'), (2, 'bc');
INSERT INTO nine_nullable VALUES (1, NULL, 3, NULL, 5, NULL, 7, NULL, 9), (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO generated (a) VALUES (1), (5);
CHECKSUM TABLE only_ints, dynamic_ints, compact_ints, with_varchar, nine_nullable, generated;

-- The same rows in another order, or in a copy, give the same number; a change does not.
CREATE TABLE copy SELECT * FROM ints ORDER BY a DESC;
CHECKSUM TABLE copy;
UPDATE copy SET b = 2 WHERE a = 1;
CHECKSUM TABLE copy;

-- An empty table is 0; QUICK is NULL (InnoDB keeps no live checksum); EXTENDED computes.
CREATE TABLE empty (a INT);
CHECKSUM TABLES empty, ints EXTENDED;
CHECKSUM TABLE ints QUICK;

-- A missing table or a view is NULL with an Error-level warning; the others are done.
CREATE VIEW v AS SELECT * FROM ints;
CHECKSUM TABLE nosuch, ints, v;
SHOW WARNINGS;
CHECKSUM TABLE nosuch.t;
SHOW WARNINGS;
CHECKSUM TABLE information_schema.tables;

-- Errors of the statement.
CHECKSUM TABLE ints, ints;
CHECKSUM TABLE;
CHECKSUM TABLE ints BOGUS;
CHECKSUM ints;
