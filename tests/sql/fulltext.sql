-- FULLTEXT indexes as definitions: CREATE TABLE, ALTER TABLE ADD/DROP/RENAME, CREATE
-- FULLTEXT INDEX and DROP INDEX, what SHOW CREATE TABLE, SHOW INDEX and information_schema
-- show of them, and the refusals (1283 for a column that is not text, 1060, 1061, 1796 on a
-- temporary table, 1846). MATCH ... AGAINST has its own file, match_against.sql.

CREATE TABLE articles (id INT PRIMARY KEY, title VARCHAR(100), body TEXT, tag CHAR(8) COLLATE utf8mb4_bin,
  FULLTEXT KEY ft_body (body), FULLTEXT (title, body), KEY k_title (title), UNIQUE KEY u_tag (tag));
SHOW CREATE TABLE articles;
SHOW INDEX FROM articles;
SHOW COLUMNS FROM articles;
SELECT column_name, column_key FROM information_schema.columns
  WHERE table_schema = DATABASE() AND table_name = 'articles' ORDER BY ordinal_position;
SELECT index_name, seq_in_index, column_name, sub_part, index_type, non_unique, nullable, collation, cardinality
  FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'articles'
  ORDER BY index_name, seq_in_index;
SELECT constraint_name, constraint_type FROM information_schema.table_constraints
  WHERE table_schema = DATABASE() AND table_name = 'articles' ORDER BY constraint_name;
INSERT INTO articles VALUES (1, 'MySQL Tutorial', 'DBMS stands for DataBase', 'a'), (2, 'How To', 'After you went through', 'b');
SELECT * FROM articles ORDER BY id;

-- Columns that are not character strings, a column twice, and a name taken.
CREATE TABLE bad (id INT, FULLTEXT (id));
CREATE TABLE bad (b BLOB, FULLTEXT (b));
CREATE TABLE bad (b VARBINARY(10), FULLTEXT (b));
CREATE TABLE bad (b ENUM('x'), FULLTEXT (b));
CREATE TABLE bad (b TEXT, FULLTEXT (b, b));
CREATE TABLE bad (b TEXT, FULLTEXT f (b), KEY f (b(3)));
CREATE TABLE bad (b TEXT, FULLTEXT (nosuch));
-- A prefix length is accepted and ignored.
CREATE TABLE prefixed (b TEXT, FULLTEXT (b(10)));
SHOW CREATE TABLE prefixed;
-- Generated names: after the column, suffixed when taken.
CREATE TABLE named (a TEXT, b INT, c INT, d TEXT, FULLTEXT (a), KEY (a(3)), KEY (b), UNIQUE (c), FULLTEXT (d, a), FULLTEXT (a, d));
SHOW CREATE TABLE named;
CREATE TABLE keyed (a VARCHAR(10), PRIMARY KEY (a), FULLTEXT fa (a));
SHOW CREATE TABLE keyed;

-- CREATE FULLTEXT INDEX and ALTER TABLE ADD FULLTEXT.
CREATE FULLTEXT INDEX g ON articles (title);
ALTER TABLE articles ADD FULLTEXT h (body);
ALTER TABLE articles ADD FULLTEXT INDEX IF NOT EXISTS h (body);
SHOW WARNINGS;
CREATE FULLTEXT INDEX IF NOT EXISTS g ON articles (title);
SHOW WARNINGS;
CREATE FULLTEXT INDEX g ON articles (title);
CREATE FULLTEXT INDEX x ON articles (id);
ALTER TABLE articles ADD FULLTEXT (tag), ADD KEY (body(5));
SHOW CREATE TABLE articles;
ALTER TABLE articles ADD FULLTEXT i (title), ALGORITHM=INSTANT;
ALTER TABLE articles ADD FULLTEXT i (title), ALGORITHM=COPY;
SHOW CREATE TABLE articles;
SELECT COUNT(*) FROM articles;

-- RENAME INDEX, DROP INDEX, and columns changing under an index.
ALTER TABLE articles RENAME INDEX ft_body TO ft_content;
ALTER TABLE articles RENAME INDEX k_title TO ft_content;
ALTER TABLE articles RENAME INDEX ft_content TO g;
DROP INDEX tag ON articles;
ALTER TABLE articles DROP INDEX i, DROP INDEX g;
DROP INDEX nosuch ON articles;
ALTER TABLE articles DROP INDEX IF EXISTS nosuch;
SHOW WARNINGS;
SHOW CREATE TABLE articles;
ALTER TABLE articles MODIFY title INT;
ALTER TABLE articles MODIFY title VARCHAR(200);
ALTER TABLE articles RENAME COLUMN body TO content;
SHOW CREATE TABLE articles;
ALTER TABLE articles DROP COLUMN content;
SHOW CREATE TABLE articles;
SHOW INDEX FROM articles;

-- LIKE and CREATE ... SELECT keep FULLTEXT indexes; a temporary table may have none.
CREATE TABLE copied LIKE articles;
SHOW CREATE TABLE copied;
CREATE TABLE selected (FULLTEXT (title)) SELECT id, title FROM articles;
SHOW CREATE TABLE selected;
SELECT * FROM selected ORDER BY id;
CREATE TEMPORARY TABLE tmp (a TEXT, FULLTEXT (a));
CREATE TEMPORARY TABLE tmp LIKE articles;
CREATE TEMPORARY TABLE tmp (a TEXT);
ALTER TABLE tmp ADD FULLTEXT (a);
CREATE FULLTEXT INDEX f ON tmp (a);
SHOW CREATE TABLE tmp;
DROP TEMPORARY TABLE tmp;
DROP TABLE articles, prefixed, named, keyed, copied, selected;
