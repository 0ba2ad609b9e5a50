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
