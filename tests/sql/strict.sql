-- Strict sql_mode (the default, STRICT_TRANS_TABLES): errors instead of silent
-- changes; and the same statements in non-strict mode give warnings.

CREATE TABLE s (
  id INT PRIMARY KEY,
  ti TINYINT, tu TINYINT UNSIGNED, i INT, bu BIGINT UNSIGNED,
  v VARCHAR(3), c CHAR(2), d DECIMAL(4,2), dt DATE
);
-- 1264 out of range.
INSERT INTO s (id, ti) VALUES (1, 128);
INSERT INTO s (id, ti) VALUES (1, -129);
INSERT INTO s (id, tu) VALUES (1, -1);
INSERT INTO s (id, tu) VALUES (1, 256);
INSERT INTO s (id, i) VALUES (1, 2147483648);
INSERT INTO s (id, bu) VALUES (1, -1);
INSERT INTO s (id, d) VALUES (1, 100);
INSERT INTO s (id, d) VALUES (1, -100.5);
-- 1406 data too long.
INSERT INTO s (id, v) VALUES (1, 'abcd');
INSERT INTO s (id, c) VALUES (1, 'abc');
-- Trailing spaces past the length are trimmed with a note, not an error.
INSERT INTO s (id, v) VALUES (1, 'ab   ');
SHOW WARNINGS;
-- 1366 / 1292 incorrect values.
INSERT INTO s (id, i) VALUES (2, 'abc');
INSERT INTO s (id, i) VALUES (2, '12abc');
INSERT INTO s (id, dt) VALUES (2, '2024-13-01');
-- Fractional part rounds (a note for DECIMAL, silent for INT).
INSERT INTO s (id, i, d) VALUES (2, 2.5, 1.005);
SHOW WARNINGS;
INSERT INTO s (id, i) VALUES (3, -2.5);
SELECT id, ti, tu, i, bu, v, c, d, dt FROM s ORDER BY id;
-- UPDATE is checked the same way.
UPDATE s SET ti = 1000 WHERE id = 2;
UPDATE s SET v = 'toolong' WHERE id = 2;
UPDATE s SET i = i + 2147483647 WHERE id = 2;
-- Arithmetic overflow in expressions is 1690 regardless of mode.
SELECT 9223372036854775807 + 1;
SELECT 18446744073709551615 + 1;
SELECT CAST(0 AS UNSIGNED) - 1;
SELECT -9223372036854775807 - 2;
SELECT 9223372036854775807 * 2;
-- Division by zero: NULL with a warning in SELECT, an error in INSERT under strict mode.
SELECT 1 / 0, 5 % 0;
SHOW WARNINGS;
INSERT INTO s (id, i) VALUES (4, 1 / 0);
SELECT COUNT(*) FROM s WHERE id = 4;

-- Non-strict mode: the same values are clipped or truncated with warnings.
SET SESSION sql_mode = '';
INSERT INTO s (id, ti, tu, v, c, d) VALUES (10, 128, -1, 'abcd', 'abc', 100);
SHOW WARNINGS;
INSERT INTO s (id, i, dt) VALUES (11, 'abc', '2024-13-01');
SHOW WARNINGS;
INSERT INTO s (id, i) VALUES (12, '12abc');
UPDATE s SET ti = 1000 WHERE id = 12;
SELECT id, ti, tu, i, v, c, d, dt FROM s WHERE id >= 10 ORDER BY id;
INSERT INTO s (id) VALUES (13);
CREATE TABLE nn (id INT PRIMARY KEY, a INT NOT NULL, b VARCHAR(5) NOT NULL);
INSERT INTO nn (id) VALUES (1);
SHOW WARNINGS;
INSERT INTO nn VALUES (2, NULL, NULL);
INSERT INTO nn VALUES (3, 1, 'x'), (4, NULL, NULL);
SHOW WARNINGS;
SELECT id, a, b FROM nn ORDER BY id;
SET SESSION sql_mode = DEFAULT;
SELECT @@sql_mode;
INSERT INTO nn (id) VALUES (5);
INSERT INTO nn VALUES (6, 1, 'x'), (7, NULL, 'y');
SELECT id, a, b FROM nn ORDER BY id;

-- INSERT IGNORE downgrades strict errors to warnings.
INSERT IGNORE INTO s (id, ti, v) VALUES (20, 200, 'abcdef');
SHOW WARNINGS;
SELECT id, ti, v FROM s WHERE id = 20;
UPDATE IGNORE s SET tu = 300 WHERE id = 20;
SELECT tu FROM s WHERE id = 20;

DROP TABLE s, nn;

-- NULL into a NOT NULL column by UPDATE: an error in strict mode, else (or with IGNORE)
-- 1048 as a warning and the type's implicit default (an ENUM's first member).
CREATE TABLE nn (id INT PRIMARY KEY, k ENUM('p','q') NOT NULL, s SET('p','q') NOT NULL DEFAULT 'q', i INT NOT NULL);
INSERT INTO nn VALUES (1, 'q', 'p', 5), (2, 'q', 'q', 6), (3, 'p', 'p', 7);
UPDATE nn SET k = NULL WHERE id = 1;
UPDATE IGNORE nn SET k = NULL, i = NULL WHERE id = 1;
SHOW WARNINGS;
UPDATE IGNORE nn a JOIN nn b ON a.id = b.id SET a.s = NULL WHERE a.id = 2;
SHOW WARNINGS;
INSERT IGNORE INTO nn VALUES (3, 'q', 'q', 0) ON DUPLICATE KEY UPDATE i = NULL;
SHOW WARNINGS;
INSERT INTO nn VALUES (3, 'q', 'q', 0) ON DUPLICATE KEY UPDATE i = NULL;
SET sql_mode = '';
UPDATE nn SET k = NULL, i = NULL WHERE id = 2;
SHOW WARNINGS;
-- A column left out without a default: one 1364 per statement, not per row.
CREATE TABLE lo (n INT, s INT NOT NULL);
INSERT INTO lo (n) VALUES (1), (2), (3);
SHOW WARNINGS;
INSERT INTO lo (n) SELECT 7 UNION SELECT 8;
SHOW WARNINGS;
INSERT INTO lo (n) SELECT 1 FROM DUAL WHERE 0;
SHOW WARNINGS;
INSERT INTO lo (n, s) VALUES (4, DEFAULT), (5, DEFAULT);
SHOW WARNINGS;
SET sql_mode = DEFAULT;
INSERT INTO lo (n) SELECT 1 FROM DUAL WHERE 0;
INSERT IGNORE INTO lo (n) VALUES (6), (7);
SHOW WARNINGS;
SELECT * FROM lo ORDER BY n;
SELECT id, k, k + 0, s, i FROM nn ORDER BY id;
