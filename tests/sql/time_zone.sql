-- The session time zone: what SET time_zone accepts (offsets; named zones need time zone
-- tables, which neither server under test has), TIMESTAMP columns stored in UTC and read
-- in the session's zone, the clock functions, UNIX_TIMESTAMP/FROM_UNIXTIME and CONVERT_TZ.

SELECT @@time_zone, @@global.time_zone, @@system_time_zone;
SET time_zone = '+02:00';
SELECT @@time_zone;
SET time_zone = '+2:00';
SELECT @@time_zone;
SET time_zone = '-05:30';
SELECT @@time_zone;
SET time_zone = '-0:00';
SELECT @@time_zone;
SET time_zone = '+13:00';
SELECT @@time_zone;
SET time_zone = '-12:59';
SELECT @@time_zone;
SET time_zone = 'system';
SELECT @@time_zone;
SET time_zone = DEFAULT;
SELECT @@time_zone;
-- Rejected: names without time zone tables, offsets out of range or malformed.
SET time_zone = 'UTC';
SET time_zone = 'Europe/Paris';
SET time_zone = '+13:01';
SET time_zone = '-13:00';
SET time_zone = '+1:60';
SET time_zone = '+01';
SET time_zone = '01:00';
SET time_zone = '';
SET time_zone = 5;
SET time_zone = NULL;
SELECT @@time_zone;
SET @@session.time_zone = '+03:00', @@session.sql_mode = 'nonsense';
SELECT @@time_zone;

-- TIMESTAMP keeps UTC; DATETIME keeps what it was given.
CREATE TABLE tz (id INT PRIMARY KEY, ts TIMESTAMP NULL, dt DATETIME NULL, ts3 TIMESTAMP(3) NULL, KEY (ts));
SET time_zone = '+00:00';
INSERT INTO tz VALUES (1, '2020-01-01 00:00:00', '2020-01-01 00:00:00', '2020-01-01 00:00:00.125');
SET time_zone = '+02:00';
INSERT INTO tz VALUES (2, '2020-01-01 00:00:00', '2020-01-01 00:00:00', '2020-06-30 23:59:59.999');
INSERT INTO tz VALUES (3, 20200101120000, 20200101120000, '2020-01-01');
INSERT INTO tz VALUES (4, NULL, NULL, '0000-00-00 00:00:00');
SELECT id, ts, dt, ts3 FROM tz ORDER BY id;
SET time_zone = '+00:00';
SELECT id, ts, dt, ts3 FROM tz ORDER BY id;
SELECT * FROM tz WHERE ts = '2019-12-31 22:00:00';
SELECT id FROM tz WHERE ts > '2019-12-31 23:00:00' ORDER BY id;
SET time_zone = '-05:30';
SELECT id, ts, dt, ts3 FROM tz ORDER BY ts, id;
-- Lookups by the indexed TIMESTAMP compare in the session's zone.
SELECT id FROM tz WHERE ts = '2019-12-31 16:30:00';
SELECT id FROM tz WHERE ts BETWEEN '2019-12-31 16:00:00' AND '2019-12-31 18:30:00' ORDER BY id;
SELECT id FROM tz WHERE ts IN ('2019-12-31 18:30:00', '2020-01-01 04:30:00') ORDER BY id;
SELECT id, ts FROM tz WHERE ts >= '2019-12-31 18:30:00' ORDER BY ts DESC;
SELECT MIN(ts), MAX(ts), COUNT(DISTINCT ts) FROM tz;
SELECT DATE(ts), HOUR(ts), ts + 0, CAST(ts AS CHAR), DATE_FORMAT(ts, '%Y-%m-%d %H:%i') FROM tz WHERE id = 1;
SELECT UNIX_TIMESTAMP(ts), UNIX_TIMESTAMP(dt) FROM tz WHERE id = 1;
-- A TIMESTAMP copied through an expression round-trips; an UPDATE with the same local
-- value changes nothing.
UPDATE tz SET ts = ts WHERE id = 1;
UPDATE tz SET ts = ts + INTERVAL 1 HOUR WHERE id = 1;
UPDATE tz SET dt = ts WHERE id = 2;
CREATE TABLE tz_copy (id INT PRIMARY KEY, ts TIMESTAMP NULL);
INSERT INTO tz_copy SELECT id, ts FROM tz;
SET time_zone = '+00:00';
SELECT id, ts, dt FROM tz ORDER BY id;
SELECT * FROM tz_copy ORDER BY id;
SELECT a.id, b.id FROM tz a JOIN tz_copy b ON a.ts = b.ts ORDER BY a.id;
SELECT id FROM tz WHERE ts = (SELECT MAX(ts) FROM tz_copy);
SELECT id, (SELECT COUNT(*) FROM tz_copy c WHERE c.ts < tz.ts) FROM tz ORDER BY id;

-- UNIX_TIMESTAMP and FROM_UNIXTIME read and show local time.
SET time_zone = '+02:00';
SELECT UNIX_TIMESTAMP('2020-01-01 00:00:00'), UNIX_TIMESTAMP('1970-01-01 02:00:01'), FROM_UNIXTIME(0), FROM_UNIXTIME(1577829600), FROM_UNIXTIME(1577829600, '%Y %H:%i');
SET time_zone = '-05:30';
SELECT UNIX_TIMESTAMP('2020-01-01 00:00:00'), FROM_UNIXTIME(1577829600.5);
SET time_zone = '+00:00';
SELECT UNIX_TIMESTAMP('2020-01-01 00:00:00'), FROM_UNIXTIME(1577836800);

-- CONVERT_TZ with offsets and SYSTEM; named zones give NULL without time zone tables.
SELECT CONVERT_TZ('2020-01-01 00:00:00', '+00:00', '+05:30');
SELECT CONVERT_TZ('2020-01-01 00:00:00', '+05:30', '+00:00');
SELECT CONVERT_TZ('2020-01-01 00:00:00', 'SYSTEM', '-08:00');
SELECT CONVERT_TZ('2020-01-01 00:00:00.123456', '+00:00', '+01:00');
SELECT CONVERT_TZ('2020-01-01 00:00:00.5', '+00:00', '+01:00');
SELECT CONVERT_TZ('2020-01-01', '+00:00', '+01:00');
SELECT CONVERT_TZ(20200101000000, '+00:00', '+01:00');
SELECT CONVERT_TZ('2001-01-01 01:00:00', 'UTC', 'UTC'), CONVERT_TZ('2001-01-01 01:00:00', 'UTC', '+00:00') IS NULL;
SELECT CONVERT_TZ(NULL, '+00:00', '+01:00'), CONVERT_TZ('2020-01-01 00:00:00', NULL, '+01:00');
SELECT CONVERT_TZ('2020-01-01 00:00:00', '+00:00', 'junk'), CONVERT_TZ('junk', '+00:00', '+01:00');
-- Outside TIMESTAMP's range the value is returned as given.
SELECT CONVERT_TZ('1960-01-01 00:00:00', '+00:00', '+01:00'), CONVERT_TZ('2040-01-01 00:00:00', '+00:00', '+01:00');
SELECT CONVERT_TZ('1970-01-01 00:30:00', '+01:00', '+00:00'), CONVERT_TZ('2038-01-19 03:14:07', '+00:00', '+01:00'), CONVERT_TZ('2038-01-19 03:14:08', '+00:00', '+01:00');
SELECT CONVERT_TZ(ts, '+00:00', '+01:00'), CONVERT_TZ(dt, '+00:00', '+01:00') FROM tz WHERE id = 2;

-- The clocks: UTC_* ignore the session's zone, NOW/CURDATE/CURTIME follow it.
SET time_zone = '+00:00';
SELECT TIMESTAMPDIFF(MINUTE, UTC_TIMESTAMP(), NOW()), DATEDIFF(UTC_DATE(), CURDATE()), UTC_TIME() = CURTIME();
SET time_zone = '+05:30';
SELECT TIMESTAMPDIFF(MINUTE, UTC_TIMESTAMP(), NOW()), TIMESTAMPDIFF(MINUTE, UTC_TIMESTAMP, SYSDATE()), TIMESTAMPDIFF(SECOND, UTC_TIMESTAMP(6), CURRENT_TIMESTAMP(6)) DIV 60;
SELECT TIME_TO_SEC(TIMEDIFF(CURTIME(), UTC_TIME())) IN (19800, 19800 - 86400), TIMESTAMPDIFF(MINUTE, UTC_TIMESTAMP(), CONCAT(CURDATE(), ' ', CURTIME()));
SELECT UNIX_TIMESTAMP() - UNIX_TIMESTAMP(NOW()) BETWEEN -1 AND 1, UNIX_TIMESTAMP(UTC_TIMESTAMP()) - UNIX_TIMESTAMP() BETWEEN -19801 AND -19799;
-- diff: skip-result
SELECT UTC_TIMESTAMP, UTC_DATE, UTC_TIME, UTC_TIMESTAMP(3), UTC_TIME(6);

-- DEFAULT / ON UPDATE CURRENT_TIMESTAMP store the statement's time, in UTC for TIMESTAMP.
CREATE TABLE tz_default (id INT PRIMARY KEY, v INT, ts TIMESTAMP DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, dt DATETIME DEFAULT CURRENT_TIMESTAMP);
SET time_zone = '+05:30';
INSERT INTO tz_default (id, v) VALUES (1, 1);
SELECT TIMESTAMPDIFF(MINUTE, ts, NOW()), TIMESTAMPDIFF(MINUTE, dt, NOW()) FROM tz_default;
SET time_zone = '+00:00';
SELECT TIMESTAMPDIFF(MINUTE, ts, NOW()), TIMESTAMPDIFF(MINUTE, dt, NOW()) DIV 10 FROM tz_default;
UPDATE tz_default SET v = 2;
SELECT TIMESTAMPDIFF(MINUTE, ts, NOW()) FROM tz_default;

-- Prepared statements and cached text plans see the zone of each execution.
SET time_zone = '+01:00';
SELECT id, ts FROM tz WHERE id = 2;
SET time_zone = '+03:00';
SELECT id, ts FROM tz WHERE id = 2;
SET time_zone = SYSTEM;
DROP TABLE tz, tz_copy, tz_default;
