-- ENUM and SET columns: DDL checks, assignment (members, numbers, invalid values in strict
-- and non-strict mode), string and numeric reads, ORDER BY by position, metadata, indexes.

CREATE TABLE t (
  id INT NOT NULL PRIMARY KEY,
  e ENUM('medium','small','Large ') NOT NULL,
  s SET('x','y','z'),
  e2 ENUM('p','q') DEFAULT 'q',
  KEY k_e (e)
) DEFAULT CHARSET=utf8mb4;
SHOW CREATE TABLE t;
DESCRIBE t;
SHOW COLUMNS FROM t;
SELECT column_name, data_type, column_type, character_maximum_length, character_octet_length, column_default, is_nullable FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 't' ORDER BY ordinal_position;

-- Members match case-insensitively and without trailing spaces; numbers name positions;
-- SET lists members in any order, repeats dropped, stored in declaration order.
INSERT INTO t VALUES (1, 'small', 'z,x', NULL), (2, 'LARGE', 'y,y,x', 'p'), (3, 1, 5, 1), (4, 'medium  ', NULL, 2), (5, '2', '', 'Q');
SELECT id, e, e + 0, s, s + 0, e2 FROM t ORDER BY id;

-- Strings compare as strings, numbers with the position or bitmask.
SELECT id FROM t WHERE e = 'SMALL' ORDER BY id;
SELECT id FROM t WHERE e = 2 ORDER BY id;
SELECT id FROM t WHERE e > 'm' ORDER BY id;
SELECT id FROM t WHERE e > 1 ORDER BY id;
SELECT id FROM t WHERE e IN (1, 3) ORDER BY id;
SELECT id FROM t WHERE e BETWEEN 2 AND 3 ORDER BY id;
SELECT id FROM t WHERE s = 5 ORDER BY id;
SELECT id FROM t WHERE s = 'x,z' ORDER BY id;

-- ORDER BY sorts an ENUM by position and a SET by bitmask.
SELECT id, e FROM t ORDER BY e, id;
SELECT id, e FROM t ORDER BY e DESC, id;
SELECT id, s FROM t ORDER BY s, id;
SELECT id, e FROM t ORDER BY 2, 1;

-- Numeric contexts read numbers; MIN/MAX and string functions read the text.
SELECT SUM(e), AVG(s), MIN(e), MAX(e) FROM t;
SELECT id, e * 2, e DIV 1, CAST(e AS SIGNED), s | 0 FROM t ORDER BY id;
SELECT id, CONCAT(e, '!'), LENGTH(s), UPPER(e), e LIKE 's%' FROM t ORDER BY id;
SELECT id, FIND_IN_SET('x', s), FIND_IN_SET('z', s) FROM t ORDER BY id;
SELECT e, COUNT(*) FROM t GROUP BY e ORDER BY e;

-- Invalid values: 1265 in strict mode; '' with a warning under INSERT IGNORE.
INSERT INTO t VALUES (10, 'huge', 'x', NULL);
INSERT INTO t VALUES (10, 0, 'x', NULL);
INSERT INTO t VALUES (10, 4, 'x', NULL);
INSERT INTO t VALUES (10, '', 'x', NULL);
INSERT INTO t VALUES (10, 'small', 'w', NULL);
INSERT INTO t VALUES (10, 'small', 8, NULL);
INSERT INTO t VALUES (10, 'small', 'x,w', NULL);
INSERT IGNORE INTO t VALUES (11, 'huge', 'x,w', 'r');
SHOW WARNINGS;
INSERT IGNORE INTO t VALUES (12, 9, 12, 0);
SHOW WARNINGS;
SELECT id, e, e + 0, s, s + 0, e2 FROM t WHERE id >= 10 ORDER BY id;

-- UPDATE assigns as INSERT does.
UPDATE t SET e = 3, s = 'Y' WHERE id = 1;
UPDATE t SET e = 'nope' WHERE id = 1;
SELECT id, e, s FROM t WHERE id = 1;

-- A NOT NULL ENUM without DEFAULT gets its first member; a NOT NULL SET has no default.
CREATE TABLE n (id INT, e ENUM('x','y') NOT NULL, s SET('a','b') NOT NULL) DEFAULT CHARSET=utf8mb4;
INSERT INTO n (id) VALUES (1);
INSERT INTO n (id, s) VALUES (2, 'b');
INSERT INTO n VALUES (3, NULL, 'a');
INSERT IGNORE INTO n VALUES (4, NULL, NULL);
SHOW WARNINGS;
SELECT * FROM n ORDER BY id;

-- DDL checks.
CREATE TABLE bad (e ENUM('a','b','A'));
CREATE TABLE bad (s SET('a','b','a'));
CREATE TABLE bad (s SET('a,b','c'));
CREATE TABLE bad (e ENUM('a','b') DEFAULT 'c');
CREATE TABLE bad (e ENUM('a','b') DEFAULT 2);
CREATE TABLE bad (s SET('a','b') DEFAULT 3);
CREATE TABLE bad (s SET('m0','m1','m2','m3','m4','m5','m6','m7','m8','m9','m10','m11','m12','m13','m14','m15','m16','m17','m18','m19','m20','m21','m22','m23','m24','m25','m26','m27','m28','m29','m30','m31','m32','m33','m34','m35','m36','m37','m38','m39','m40','m41','m42','m43','m44','m45','m46','m47','m48','m49','m50','m51','m52','m53','m54','m55','m56','m57','m58','m59','m60','m61','m62','m63','m64'));
CREATE TABLE q (e ENUM('it''s', 'b\\c', 'd"e', 'x ') DEFAULT 'IT''S', s SET('a','b') DEFAULT 'b,a') DEFAULT CHARSET=utf8mb4;
SHOW CREATE TABLE q;
INSERT INTO q () VALUES ();
INSERT INTO q VALUES ('B\\C', 'a');
SELECT e, e + 0, s FROM q ORDER BY e;

-- Keys on ENUM and SET columns.
CREATE TABLE k (e ENUM('b','a','c') NOT NULL PRIMARY KEY, s SET('x','y'), UNIQUE KEY u_s (s)) DEFAULT CHARSET=utf8mb4;
INSERT INTO k VALUES ('a', 'x'), ('b', 'y'), ('c', 'x,y');
INSERT INTO k VALUES ('A', NULL);
INSERT INTO k VALUES (3, 'y,x');
SELECT e FROM k WHERE e = 'A';
SELECT e FROM k WHERE e = 2;
SELECT e FROM k WHERE e >= 'b' ORDER BY e;
SELECT e, s FROM k WHERE s = 'y,x';
SELECT e FROM k ORDER BY e;
DELETE FROM k WHERE e = 1;
SELECT e FROM k ORDER BY e;

-- ALTER TABLE: add, modify and change ENUM and SET columns.
ALTER TABLE n ADD COLUMN f ENUM('one','two') NOT NULL;
SELECT id, f FROM n ORDER BY id;
ALTER TABLE n MODIFY e ENUM('z','x','y') NOT NULL DEFAULT 'z';
INSERT INTO n (id, s) VALUES (5, 'a');
SELECT id, e, e + 0 FROM n ORDER BY id;
ALTER TABLE n CHANGE s s2 SET('c','a','b');
SHOW CREATE TABLE n;
ALTER TABLE n MODIFY e ENUM('y') NOT NULL;
SELECT id, e FROM n ORDER BY id;

-- Numeric functions, negation and truth read an ENUM's position and a SET's bitmask;
-- their types follow MariaDB's (the length of the member text decides INT or BIGINT).
CREATE TABLE num (id INT PRIMARY KEY, e ENUM('medium','small','Large'), s SET('x','y','z'),
  a ENUM('p','q'), c ENUM('abcdefghijk')) DEFAULT CHARSET=utf8mb4;
INSERT INTO num VALUES (1, 'small', 'z,x', 'q', 'abcdefghijk'), (2, 'Large', 'y', 'p', NULL),
  (3, 'medium', '', NULL, 'abcdefghijk'), (4, NULL, NULL, 'q', NULL);
SELECT id, ABS(e), ROUND(e), FLOOR(e), CEILING(e), SIGN(e), -e, e * 1, ABS(s), -s, ROUND(s, 1) FROM num ORDER BY id;
SELECT id, ABS(a), ABS(c), -a, -c, ROUND(c), TRUNCATE(c, 0), MOD(a, 2), MOD(c, 2), a + 0, c + 0 FROM num ORDER BY id;
SELECT id, POW(e, 2), SQRT(e), EXP(e), TRUNCATE(e, 0), MOD(e, 2), GREATEST(e, 1), LEAST(e, 'a') FROM num ORDER BY id;
SELECT id, e AND 1, NOT e, e XOR 0, IF(e, 'yes', 'no'), CASE WHEN s THEN 'some' ELSE 'none' END FROM num ORDER BY id;
SELECT id FROM num WHERE e ORDER BY id;
SELECT id FROM num WHERE NOT s ORDER BY id;
SELECT id, CAST(s AS UNSIGNED), CAST(a AS SIGNED), CAST(c AS UNSIGNED), CAST(e AS DECIMAL(5,1)) FROM num ORDER BY id;
SELECT id, e IN (1, 'Large'), e IN (2, 3), e = '2', s = 3 FROM num ORDER BY id;
