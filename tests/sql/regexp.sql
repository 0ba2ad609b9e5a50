-- REGEXP, RLIKE, NOT REGEXP, REGEXP_REPLACE, REGEXP_SUBSTR, REGEXP_INSTR.
-- manycore matches with the `regex` crate, MariaDB with PCRE2: patterns with
-- backreferences or look-around are error 1139 on manycore only, so none is here
-- (crates/sql/src/expr/regexp.rs tests them). Expressions whose text would name
-- the column oddly (backslashes) get an alias. A pattern given as a `?` parameter
-- is tested in crates/sql/src/tests.rs (regexp_pattern_as_parameter); this file
-- also runs through prepared statements with literal patterns.

-- Basic matches: a match anywhere, anchors, classes, repetition, alternation.
SELECT 'abc' REGEXP 'b', 'abc' REGEXP 'd', 'abc' REGEXP '', '' REGEXP '';
SELECT 'abc' REGEXP '^a', 'abc' REGEXP '^b', 'abc' REGEXP 'c$', 'abc' REGEXP '^abc$';
SELECT 'a1b' REGEXP '[0-9]', 'ab' REGEXP '[0-9]', 'x y' REGEXP '[[:space:]]', 'abc' REGEXP '^[a-c]+$';
SELECT 'aaa' REGEXP '^a{3}$', 'aa' REGEXP '^a{3}$', 'color' REGEXP 'colou?r', 'cat' REGEXP 'dog|cat';
SELECT 'a.c' REGEXP 'a\\.c' AS r1, 'abc' REGEXP 'a\\.c' AS r2, 'abc' REGEXP 'a.c' AS r3;
-- A line break is not matched by `.`, and `^` is the start of the text only.
SELECT 'a\nb' REGEXP 'a.b' AS r1, 'a\nb' REGEXP '^b' AS r2;
-- Numbers match as their text.
SELECT 123 REGEXP '2', 1.5 REGEXP '^1.5$', 10 REGEXP '^1$';
-- RLIKE is REGEXP; NOT REGEXP and NOT RLIKE negate.
SELECT 'abc' RLIKE 'b', 'abc' NOT REGEXP 'b', 'abc' NOT REGEXP 'x', 'abc' NOT RLIKE 'x';

-- Case follows the collation: utf8mb4_general_ci ignores case (not accents),
-- binary strings do not.
SELECT 'abc' REGEXP 'B', 'ABC' REGEXP '^abc$', 'é' REGEXP 'É', 'é' REGEXP 'e';
SELECT CAST('abc' AS BINARY) REGEXP 'B', CAST('abc' AS BINARY) REGEXP 'b', 'abc' REGEXP CAST('B' AS BINARY);
SELECT REGEXP_REPLACE(CAST('aXbXc' AS BINARY), 'x', '-') AS r1, REGEXP_REPLACE('aXbXc', 'x', '-') AS r2;

-- NULL on either side is NULL. sqlparser 0.63 takes the NULL keyword right after
-- REGEXP/RLIKE for part of the operator (as in `x NOT NULL`), so `x REGEXP NULL` is a
-- syntax error on manycore: a NULL pattern is written `(NULL)`.
SELECT NULL REGEXP 'a', 'a' REGEXP (NULL), NULL RLIKE (NULL), 'a' NOT REGEXP (NULL), NULL NOT REGEXP 'a';
SELECT REGEXP_REPLACE(NULL, 'a', 'b'), REGEXP_REPLACE('a', NULL, 'b'), REGEXP_REPLACE('a', 'a', NULL);
SELECT REGEXP_SUBSTR(NULL, 'a'), REGEXP_SUBSTR('a', NULL), REGEXP_INSTR(NULL, 'a'), REGEXP_INSTR('a', NULL);

-- Multibyte text: characters, not bytes, unless the string is binary.
SELECT '日本' REGEXP '^..$', '日本' REGEXP '本', 'café' REGEXP 'é$', '日本' REGEXP '^.{6}$';
SELECT CAST('日本' AS BINARY) REGEXP '^.{6}$' AS r1, CAST('日本' AS BINARY) REGEXP '^..$' AS r2;
SELECT REGEXP_INSTR('日本語abc', 'b'), REGEXP_INSTR(CAST('日本語abc' AS BINARY), 'b') AS r;
SELECT REGEXP_SUBSTR('日本語abc', '本.'), REGEXP_REPLACE('héllo', 'L', 'Ł');

-- REGEXP_REPLACE: every match; \N in the replacement is group N (empty when the
-- pattern has none), \x any other character is x.
SELECT REGEXP_REPLACE('a b  c', ' +', '_'), REGEXP_REPLACE('abc', 'x', 'y');
SELECT REGEXP_REPLACE('John Smith', '(\\w+) (\\w+)', '\\2, \\1') AS r;
SELECT REGEXP_REPLACE('abc', '(b)', '[\\1\\2\\z\\]') AS r1, REGEXP_REPLACE('abc', 'b', '<\\0>') AS r2;
SELECT REGEXP_REPLACE('2024-01-15', '^(\\d+)-(\\d+)-(\\d+)$', '\\3/\\2/\\1') AS r;
-- An empty match ends the replacing, as in MariaDB.
SELECT REGEXP_REPLACE('abc', 'x*', '-'), REGEXP_REPLACE('abbc', 'b*', '-'), REGEXP_REPLACE('abc', '', 'x');
SELECT REGEXP_REPLACE('aaa', 'a', ''), REGEXP_REPLACE('', 'a', 'b'), REGEXP_REPLACE('abcabc', '^a', 'X');

-- REGEXP_SUBSTR: the first match, or an empty string; REGEXP_INSTR: its position, or 0.
SELECT REGEXP_SUBSTR('Hello World', 'w\\w+') AS r1, REGEXP_SUBSTR('abc', 'x') AS r2;
SELECT REGEXP_SUBSTR('abc123def456', '[0-9]+'), REGEXP_INSTR('abc123def456', '[0-9]+'), REGEXP_INSTR('abc', 'x');
SELECT REGEXP_INSTR('abc', ''), REGEXP_INSTR('abc', 'C'), REGEXP_INSTR('abc', '^b');

-- Over a table, in WHERE and the select list; the result columns' types.
CREATE TABLE rx (id INT PRIMARY KEY, s VARCHAR(20), b VARBINARY(20), t TEXT);
INSERT INTO rx VALUES (1, 'apple', 'apple', 'red apple'), (2, 'Banana', 'Banana', 'yellow'), (3, 'cherry', 'cherry', NULL), (4, NULL, NULL, 'plum'), (5, '日本', '日本', 'é');
SELECT id FROM rx WHERE s REGEXP '^[ab]' ORDER BY id;
SELECT id FROM rx WHERE b REGEXP '^[ab]' ORDER BY id;
SELECT id FROM rx WHERE s NOT REGEXP 'an' ORDER BY id;
SELECT id FROM rx WHERE s RLIKE 'RR' OR t REGEXP 'yel' ORDER BY id;
SELECT id, s REGEXP 'e', REGEXP_INSTR(s, 'e'), REGEXP_SUBSTR(s, '[aeiou]+'), REGEXP_REPLACE(s, '[aeiou]', '*') FROM rx ORDER BY id;
SELECT id, REGEXP_SUBSTR(b, 'an'), REGEXP_REPLACE(b, 'a', 'A'), REGEXP_REPLACE(t, 'e', 'E') FROM rx ORDER BY id;
-- A TEXT subject gives MEDIUMTEXT, as for SUBSTRING: 65,535 characters may need more
-- bytes than a TEXT holds (`function::string_type`).
SELECT id, REGEXP_SUBSTR(t, 'e.') FROM rx ORDER BY id;
-- The pattern can come from the row.
SELECT id, 'apple pie' REGEXP s, REGEXP_INSTR('a cherry', s) FROM rx ORDER BY id;
SELECT COUNT(*) FROM rx WHERE s REGEXP '^.{5,6}$';
UPDATE rx SET t = REGEXP_REPLACE(t, '^(\\w+)', '<\\1>') WHERE id < 3;
SELECT id, t FROM rx ORDER BY id;
DROP TABLE rx;

-- Invalid patterns are error 1139 (ER_REGEXP_ERROR), also when no row is read.
SELECT 'abc' REGEXP '(';
SELECT 'abc' REGEXP '[';
SELECT 'abc' REGEXP 'a{2,1}';
SELECT REGEXP_REPLACE('abc', '[', 'x');
SELECT REGEXP_SUBSTR('abc', '(');
SELECT REGEXP_INSTR('abc', '*');
CREATE TABLE rx_empty (s VARCHAR(10));
SELECT s FROM rx_empty WHERE s REGEXP '(';
DROP TABLE rx_empty;
-- Wrong argument counts are 1582.
SELECT REGEXP_REPLACE('a', 'b');
SELECT REGEXP_SUBSTR('a');
SELECT REGEXP_INSTR('a', 'b', 'c');

-- A NULL pattern, BINARY's precedence, and column names as written.
SELECT 'x' REGEXP NULL, 'x' NOT RLIKE NULL, NULL REGEXP 'a';
SELECT 'x' REGEXP NULL IS NULL;
SELECT BINARY 'X' REGEXP 'x', BINARY 'X' = 'x', BINARY('X') = 'x';
SELECT BINARY 1 + 1, - BINARY '1', BINARY 'a' < 'B', BINARY 'abc' LIKE 'A%';
SELECT NOT 'x' REGEXP 'y', 'abc' NOT REGEXP 'b' OR 1;
