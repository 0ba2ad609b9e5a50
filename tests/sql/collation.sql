-- utf8mb4_general_ci in comparisons, index ranges, ORDER BY, DISTINCT and GROUP BY;
-- and integer index ranges bounded by strings and decimals (the access path leaves a
-- conjunct unchecked only where its range is exact).

CREATE TABLE words (
  id INT NOT NULL PRIMARY KEY,
  w VARCHAR(20) NOT NULL,
  n INT NULL,
  KEY k_w (w),
  KEY k_n (n)
) DEFAULT CHARSET=utf8mb4;
INSERT INTO words VALUES
  (1, 'apple', 1), (2, 'Apple', NULL), (3, 'APPLE ', 3), (4, 'banana', 4),
  (5, 'Banana', NULL), (6, 'cherry', 6), (7, 'ab', 7), (8, 'a', 8), (9, 'b', 9),
  (10, 'straße', 10), (11, 'STRASSE', 11), (12, 'é', 12), (13, 'E', 13), (14, 'e', 14),
  (15, 'Ÿ', 15), (16, 'y', 16), (17, 'a\tb', 17), (18, 'a b', 18);

-- Case and trailing spaces.
SELECT id FROM words WHERE w = 'APPLE' ORDER BY id;
SELECT id FROM words WHERE w = 'apple   ' ORDER BY id;
SELECT id FROM words WHERE w > 'apple' AND w < 'b' ORDER BY id;
SELECT id FROM words WHERE w BETWEEN 'a' AND 'ab' ORDER BY id;
SELECT w FROM words WHERE id <= 9 ORDER BY w, id;
SELECT w FROM words WHERE id <= 9 ORDER BY w DESC, id;
SELECT DISTINCT w FROM words WHERE id <= 9 ORDER BY w;
SELECT LOWER(w), COUNT(*) FROM words WHERE id <= 9 GROUP BY w ORDER BY 1;
SELECT COUNT(DISTINCT w) FROM words WHERE id <= 9;
SELECT id FROM words WHERE id IN (17, 18) ORDER BY w, id;

-- Accents and ß (general_ci ignores accents; see crates/types/src/collation.rs).
SELECT id FROM words WHERE w = 'e' ORDER BY id;
SELECT DISTINCT w FROM words WHERE id >= 12 AND id <= 16 ORDER BY w;
SELECT id FROM words WHERE w = 'strasse' ORDER BY id;
SELECT 'é' = 'E', 'Ÿ' = 'y', 'ß' = 's', 'a' < 'B', 'A ' = 'a';

-- Integer index ranges bounded by other types.
SELECT id FROM words WHERE id = '3' ORDER BY id;
SELECT id FROM words WHERE id = ' 3 ' ORDER BY id;
SELECT id FROM words WHERE id = 3.5 ORDER BY id;
SELECT id FROM words WHERE id < 3.5 ORDER BY id;
SELECT id FROM words WHERE id < '2.5' ORDER BY id;
SELECT id FROM words WHERE id BETWEEN '2' AND 4.0 ORDER BY id;
SELECT id FROM words WHERE id > -1 AND id < 3 ORDER BY id;
SELECT id FROM words WHERE id < 99999999999 AND id > 16 ORDER BY id;
SELECT id FROM words WHERE id IN (1, '2', 2.5, 5) ORDER BY id;
SELECT id FROM words WHERE id >= 2 AND id > 4 AND id < 7 AND id <> 5 ORDER BY id;
SELECT id FROM words WHERE n < 4 ORDER BY id;
SELECT id FROM words WHERE n IS NULL AND id < 5 ORDER BY id;
SELECT id FROM words WHERE id = '3abc' ORDER BY id;
UPDATE words SET n = 0 WHERE id BETWEEN 1 AND 3 AND n IS NOT NULL;
SELECT id, n FROM words WHERE id <= 3 ORDER BY id;
DELETE FROM words WHERE id > '16';
SELECT COUNT(*) FROM words;
DROP TABLE words;

-- Accents in keys: a primary key, a unique index, LIKE, ranges and ORDER BY.
CREATE TABLE people (
  name VARCHAR(20) NOT NULL PRIMARY KEY,
  email VARCHAR(40) NULL,
  UNIQUE KEY u_email (email)
) DEFAULT CHARSET=utf8mb4;
INSERT INTO people VALUES ('José', 'jose@example.com'), ('Zoë', NULL), ('Ångström', 'a@x');
INSERT INTO people VALUES ('Jose', 'other@example.com');
INSERT INTO people VALUES ('Zoe2', 'JOSÉ@example.com');
SELECT name FROM people WHERE name = 'jose';
SELECT name FROM people WHERE name LIKE 'ang%';
SELECT name FROM people WHERE name > 'Z' ORDER BY name;
SELECT email FROM people WHERE email = 'A@X';
UPDATE people SET name = 'ZOE' WHERE name = 'zoë';
SELECT name, email FROM people ORDER BY name;
DELETE FROM people WHERE name = 'angstrom';
SELECT COUNT(*) FROM people;
DROP TABLE people;

-- utf8mb4_bin columns: COLLATE, CHARACTER SET ... COLLATE, BINARY and a table default.
CREATE TABLE tokens (
  id INT NOT NULL PRIMARY KEY,
  t VARCHAR(20) COLLATE utf8mb4_bin NOT NULL,
  ci VARCHAR(20) NULL,
  u VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
  b CHAR(5) BINARY NULL,
  x TEXT COLLATE utf8mb4_general_ci,
  UNIQUE KEY u_t (t),
  KEY k_u (u)
);
INSERT INTO tokens VALUES
  (1, 'a', 'a', 'a', 'a', 'a'), (2, 'A', 'A', 'A', 'A', 'A'), (3, 'b', 'b', 'b', 'b', 'b'),
  (4, 'B', 'B', 'B', 'B', 'B'), (5, 'é', 'é', 'é', 'é', 'é'), (6, 'e', 'e', 'e', 'e', 'e'),
  (7, 'ab', 'ab', 'ab', 'ab', 'ab'), (8, 'Ab', 'Ab', 'Ab', 'Ab', 'Ab');
INSERT INTO tokens VALUES (9, 'a ', 'x', 'x', 'x', 'x');
INSERT INTO tokens VALUES (9, 'É', 'x', 'x', 'x', 'x');
SELECT id FROM tokens WHERE t = 'A' ORDER BY id;
SELECT id FROM tokens WHERE t = 'a  ' ORDER BY id;
SELECT id FROM tokens WHERE ci = 'A' ORDER BY id;
SELECT id FROM tokens WHERE u = 'B' ORDER BY id;
SELECT id FROM tokens WHERE b = 'b' ORDER BY id;
SELECT id FROM tokens WHERE x = 'E' ORDER BY id;
SELECT id FROM tokens WHERE t LIKE 'a%' ORDER BY id;
SELECT id FROM tokens WHERE ci LIKE 'a%' ORDER BY id;
SELECT id FROM tokens WHERE t LIKE '_' ORDER BY id;
SELECT id FROM tokens WHERE t REGEXP '^a' ORDER BY id;
SELECT id FROM tokens WHERE u > 'B' AND u < 'b' ORDER BY id;
SELECT t FROM tokens ORDER BY t;
SELECT t FROM tokens ORDER BY t DESC;
SELECT ci FROM tokens ORDER BY ci, id;
SELECT DISTINCT u FROM tokens ORDER BY u;
SELECT COUNT(DISTINCT u), COUNT(DISTINCT ci) FROM tokens;
SELECT u, COUNT(*) FROM tokens GROUP BY u ORDER BY u;
SELECT MIN(t), MAX(t), MIN(ci), MAX(ci) FROM tokens;
SELECT id FROM tokens WHERE t IN ('A', 'b') ORDER BY id;
SELECT id FROM tokens WHERE 'A' = t ORDER BY id;
SELECT STRCMP(t, 'A') FROM tokens WHERE id < 3 ORDER BY id;
UPDATE tokens SET t = 'AB' WHERE t = 'ab';
SELECT id, t FROM tokens WHERE t IN ('ab', 'AB', 'Ab') ORDER BY id;
DELETE FROM tokens WHERE t = 'B';
SELECT COUNT(*) FROM tokens;
SHOW CREATE TABLE tokens;
SHOW FULL COLUMNS FROM tokens;
SELECT COLUMN_NAME, CHARACTER_SET_NAME, COLLATION_NAME, COLUMN_TYPE
  FROM information_schema.COLUMNS WHERE TABLE_NAME = 'tokens' ORDER BY ORDINAL_POSITION;

-- ALTER: MODIFY to bin makes the unique key case-sensitive; back to ci finds duplicates.
CREATE TABLE names (id INT PRIMARY KEY, n VARCHAR(10), UNIQUE KEY u_n (n));
INSERT INTO names VALUES (1, 'x');
INSERT INTO names VALUES (2, 'X');
ALTER TABLE names MODIFY n VARCHAR(10) COLLATE utf8mb4_bin;
INSERT INTO names VALUES (2, 'X');
SELECT id FROM names WHERE n = 'x';
SHOW CREATE TABLE names;
ALTER TABLE names MODIFY n VARCHAR(10) COLLATE utf8mb4_general_ci;
ALTER TABLE names CHANGE n m VARCHAR(12) COLLATE utf8mb4_bin;
ALTER TABLE names ADD COLUMN k CHAR(3) COLLATE utf8mb4_bin;
SELECT COLUMN_NAME, COLLATION_NAME FROM information_schema.COLUMNS
  WHERE TABLE_NAME = 'names' ORDER BY ORDINAL_POSITION;
DROP TABLE names;
DROP TABLE tokens;

-- A table default collation applies to character columns without their own.
CREATE TABLE hashes (
  h VARCHAR(40) NOT NULL PRIMARY KEY,
  c VARCHAR(10) COLLATE utf8mb4_general_ci,
  n INT
) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
INSERT INTO hashes VALUES ('abc', 'abc', 1), ('ABC', 'x', 2);
SELECT n FROM hashes WHERE h = 'ABC';
SELECT n FROM hashes WHERE c = 'ABC';
SELECT COLUMN_NAME, COLLATION_NAME FROM information_schema.COLUMNS
  WHERE TABLE_NAME = 'hashes' ORDER BY ORDINAL_POSITION;
DROP TABLE hashes;

-- Other collations: case-insensitive ones are general_ci, unknown names 1273.
CREATE TABLE other (a VARCHAR(5) COLLATE utf8mb4_unicode_ci, b VARCHAR(5) COLLATE latin1_swedish_ci);
INSERT INTO other VALUES ('a', 'a');
SELECT COUNT(*) FROM other WHERE a = 'A' AND b = 'A';
DROP TABLE other;
CREATE TABLE bad (a VARCHAR(5) COLLATE nonsense_ci);
CREATE TABLE bad (a VARCHAR(5) COLLATE utf8mb4_0900_ai_ci);
CREATE TABLE bad (a VARCHAR(5)) COLLATE=nonsense;

-- A JSON column is utf8mb4_bin.
CREATE TABLE docs (id INT PRIMARY KEY, doc JSON);
INSERT INTO docs VALUES (1, '"a"'), (2, '"A"');
SELECT id FROM docs WHERE doc = '"A"';
SELECT COUNT(DISTINCT doc) FROM docs;
SHOW FULL COLUMNS FROM docs;
DROP TABLE docs;
