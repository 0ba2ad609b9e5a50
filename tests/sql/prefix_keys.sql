-- Prefix key parts `c(n)`: a unique prefix index is unique on the prefix, lookups and
-- ranges through a prefix index find every matching row, and SHOW/information_schema
-- show the prefix.

CREATE TABLE pk1 (id INT PRIMARY KEY, c VARCHAR(20), b VARBINARY(20), t TEXT, UNIQUE KEY u (c(3)), KEY kb (b(2), id), KEY kt (t(4)));
SHOW CREATE TABLE pk1;
SHOW INDEX FROM pk1;
SELECT INDEX_NAME, COLUMN_NAME, SEQ_IN_INDEX, SUB_PART FROM information_schema.STATISTICS WHERE TABLE_NAME = 'pk1' ORDER BY INDEX_NAME, SEQ_IN_INDEX;
INSERT INTO pk1 VALUES (1, 'abcdef', 'xyz1', 'hello world');
INSERT INTO pk1 VALUES (2, 'abcxyz', 'xyz2', 'help');
INSERT INTO pk1 VALUES (2, 'ABCxyz', 'xyz2', 'help');
INSERT INTO pk1 VALUES (3, 'abd', 'xy', 'hello');
INSERT INTO pk1 VALUES (4, 'éab', 'q', NULL), (5, 'eab', 'r', 'x');
INSERT INTO pk1 VALUES (6, NULL, NULL, NULL), (7, NULL, 'xz', 'hell');
SELECT * FROM pk1 ORDER BY id;
SELECT id FROM pk1 WHERE c = 'abcdef';
SELECT id FROM pk1 WHERE c = 'abc';
SELECT id FROM pk1 WHERE c > 'abc' ORDER BY id;
SELECT id FROM pk1 WHERE c >= 'abcdef' AND c < 'abe' ORDER BY id;
SELECT id FROM pk1 WHERE c BETWEEN 'abcd' AND 'abd' ORDER BY id;
SELECT id FROM pk1 WHERE b = 'xyz1';
SELECT id FROM pk1 WHERE b > 'xy' ORDER BY id;
SELECT id FROM pk1 WHERE b < 'xz' ORDER BY id;
SELECT id FROM pk1 WHERE t = 'hello' ORDER BY id;
SELECT id FROM pk1 WHERE t LIKE 'hel%' ORDER BY id;
SELECT id FROM pk1 WHERE t IN ('help', 'hell', 'nope') ORDER BY id;
UPDATE pk1 SET c = 'abcq' WHERE id = 3;
UPDATE pk1 SET c = 'abdq' WHERE id = 3;
SELECT id, c FROM pk1 WHERE c = 'abdq';
DELETE FROM pk1 WHERE c = 'abcdef';
INSERT INTO pk1 VALUES (8, 'abcnew', 'n', 'n');
SELECT id, c FROM pk1 WHERE c LIKE 'abc%' ORDER BY id;
REPLACE INTO pk1 VALUES (9, 'abc!!', 'm', 'm');
SELECT id, c FROM pk1 ORDER BY id;

-- Added later: an index over existing rows, and one that the rows already violate.
CREATE INDEX kc2 ON pk1 (c(2));
ALTER TABLE pk1 ADD UNIQUE KEY u2 (t(3));
ALTER TABLE pk1 ADD UNIQUE KEY u3 (b(1), c(1));
SHOW CREATE TABLE pk1;

-- A prefix as long as the column is the whole column.
CREATE TABLE pk2 (c VARCHAR(10), d CHAR(4), KEY (c(10)), KEY (d(4), c(5)));
SHOW CREATE TABLE pk2;

-- Bad prefixes.
CREATE TABLE pk3 (c VARCHAR(10), KEY (c(11)));
CREATE TABLE pk3 (c INT, KEY (c(2)));
CREATE TABLE pk3 (c DATETIME, KEY (c(2)));
CREATE TABLE pk3 (c VARCHAR(10), KEY (c(0)));
CREATE INDEX bad ON pk1 (id(1));
DROP TABLE pk1, pk2;
