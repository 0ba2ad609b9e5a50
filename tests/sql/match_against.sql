-- MATCH ... AGAINST: InnoDB's words, stopwords and relevance, value by value, in natural
-- language and boolean mode; the order WHERE MATCH returns rows in; MATCH in UPDATE and
-- DELETE; and the refusals (1191 without a FULLTEXT key of exactly the columns).

CREATE TABLE articles (id INT UNSIGNED AUTO_INCREMENT NOT NULL PRIMARY KEY,
  title VARCHAR(200), body TEXT, FULLTEXT (title, body));
INSERT INTO articles (title, body) VALUES
  ('MySQL Tutorial', 'DBMS stands for DataBase ...'),
  ('How To Use MySQL Well', 'After you went through a ...'),
  ('Optimizing MySQL', 'In this tutorial, we show ...'),
  ('1001 MySQL Tricks', '1. Never run mysqld as root. 2. ...'),
  ('MySQL vs. YourSQL', 'In the following database comparison ...'),
  ('MySQL Security', 'When configured properly, MySQL ...');
-- Without ORDER BY, WHERE MATCH returns the rows by relevance, best first.
SELECT * FROM articles WHERE MATCH (title, body) AGAINST ('database' IN NATURAL LANGUAGE MODE);
SELECT id, MATCH (title, body) AGAINST ('Tutorial') FROM articles ORDER BY id;
SELECT id, MATCH (body, title) AGAINST ('tutorial database') AS score FROM articles ORDER BY id;
-- A word in every row still matches, with a tiny relevance.
SELECT id, MATCH (title, body) AGAINST ('mysql') FROM articles ORDER BY id;
SELECT COUNT(*) FROM articles WHERE MATCH (title, body) AGAINST ('database');
SELECT id, MATCH (title, body) AGAINST ('security database') AS score FROM articles
  WHERE MATCH (title, body) AGAINST ('security database') > 0.5;
SELECT id FROM articles WHERE MATCH (title, body) AGAINST ('tutorial database') LIMIT 1;
SELECT id FROM articles WHERE MATCH (title, body) AGAINST ('tutorial database') ORDER BY id DESC;
SELECT id FROM articles WHERE NOT MATCH (title, body) AGAINST ('database') ORDER BY id;
SELECT id, MATCH (title, body) AGAINST ('database') + 1, MATCH (title, body) AGAINST ('database') > 0
  FROM articles ORDER BY id;
-- The search string may be a parameter.
PREPARE search FROM 'SELECT id, MATCH (title, body) AGAINST (?) AS score FROM articles ORDER BY id';
SET @words = 'security tricks';
EXECUTE search USING @words;
SET @words = 'root';
EXECUTE search USING @words;
DEALLOCATE PREPARE search;
-- Stopwords, short words, NULL and an empty search match nothing.
SELECT id, MATCH (title, body) AGAINST ('the'), MATCH (title, body) AGAINST ('to'),
  MATCH (title, body) AGAINST (NULL), MATCH (title, body) AGAINST ('') FROM articles ORDER BY id;

-- Words: letters, digits and _; case and accents fold by the collation; 3 to 84 characters.
CREATE TABLE w (id INT PRIMARY KEY, t TEXT, b VARCHAR(50) COLLATE utf8mb4_bin,
  FULLTEXT (t), FULLTEXT (b));
INSERT INTO w VALUES (1, 'abc xyz', 'Cafe'), (2, 'abcd stop_me', 'cafe'), (3, 'x-ray can''t', 'café'),
  (4, 'café CAFE cafe', NULL), (5, NULL, ''), (6, '', 'CAFE cafe'), (7, 'and 12 ab 1001', 'x');
SELECT id, MATCH (t) AGAINST ('abc') AS a, MATCH (t) AGAINST ('cafe') AS c, MATCH (t) AGAINST ('stop_me') AS s,
  MATCH (t) AGAINST ('ray') AS r, MATCH (t) AGAINST ('can') AS n, MATCH (t) AGAINST ('and 1001') AS d,
  MATCH (t) AGAINST ('abc abc') AS twice FROM w ORDER BY id;
SELECT id, MATCH (b) AGAINST ('cafe') AS lower_case, MATCH (b) AGAINST ('CAFE') AS upper_case FROM w ORDER BY id;

-- Boolean mode: + required, - excluded, > and < raise and lower by 1 (within [-1, 1]),
-- groups, phrases, and prefixes.
CREATE TABLE q (id INT PRIMARY KEY, t TEXT, FULLTEXT (t));
INSERT INTO q VALUES (1, 'abc zeta'), (2, 'abc'), (3, 'zeta'), (4, 'other words'), (5, 'more other'),
  (6, 'abc abc zeta zeta'), (7, 'abcd abcdef'), (8, 'nothing here');
SELECT id, MATCH (t) AGAINST ('abc' IN BOOLEAN MODE) AS a, MATCH (t) AGAINST ('+abc +zeta' IN BOOLEAN MODE) AS b,
  MATCH (t) AGAINST ('+abc -zeta' IN BOOLEAN MODE) AS c, MATCH (t) AGAINST ('-abc' IN BOOLEAN MODE) AS d,
  MATCH (t) AGAINST ('abc -other' IN BOOLEAN MODE) AS e FROM q ORDER BY id;
SELECT id, MATCH (t) AGAINST ('>abc >zeta' IN BOOLEAN MODE) AS a, MATCH (t) AGAINST ('<abc <zeta' IN BOOLEAN MODE) AS b,
  MATCH (t) AGAINST ('>abc <zeta' IN BOOLEAN MODE) AS c, MATCH (t) AGAINST ('zeta >abc' IN BOOLEAN MODE) AS d
  FROM q ORDER BY id;
SELECT id, MATCH (t) AGAINST ('+(abc zeta) +other' IN BOOLEAN MODE) AS a,
  MATCH (t) AGAINST ('zeta (+abc -other)' IN BOOLEAN MODE) AS b,
  MATCH (t) AGAINST ('+(abc words) -zeta' IN BOOLEAN MODE) AS c FROM q ORDER BY id;
SELECT id, MATCH (t) AGAINST ('abc*' IN BOOLEAN MODE) AS a, MATCH (t) AGAINST ('ab*' IN BOOLEAN MODE) AS b,
  MATCH (t) AGAINST ('abc abc*' IN BOOLEAN MODE) AS c, MATCH (t) AGAINST ('+zeta -abc*' IN BOOLEAN MODE) AS d
  FROM q ORDER BY id;
SELECT id, MATCH (t) AGAINST ('"abc zeta"' IN BOOLEAN MODE) AS a, MATCH (t) AGAINST ('"zeta abc"' IN BOOLEAN MODE) AS b,
  MATCH (t) AGAINST ('+"abc zeta" -other' IN BOOLEAN MODE) AS c, MATCH (t) AGAINST ('"the abc"' IN BOOLEAN MODE) AS d,
  MATCH (t) AGAINST ('"abc' IN BOOLEAN MODE) AS e FROM q ORDER BY id;
SELECT id, MATCH (t) AGAINST ('abc,zeta;other' IN BOOLEAN MODE) AS a, MATCH (t) AGAINST ('+the' IN BOOLEAN MODE) AS b
  FROM q ORDER BY id;
SELECT id FROM q WHERE MATCH (t) AGAINST ('+zeta abc' IN BOOLEAN MODE);
-- 32 nested groups are evaluated (33 are refused: MariaDB 128, manycore 1235).
SELECT id, MATCH (t) AGAINST ('(((((((((((((((((((((((((((((((( zeta ))))))))))))))))))))))))))))))))' IN BOOLEAN MODE) AS deep
  FROM q ORDER BY id;

-- Phrases: from the first indexed word on, short words and stopwords must be there too.
CREATE TABLE r (id INT PRIMARY KEY, t TEXT, FULLTEXT (t));
INSERT INTO r VALUES (1, 'abc zz def'), (2, 'abc the def'), (3, 'x ray'), (4, 'other'), (5, 'abc def'),
  (6, 'x-ray abc'), (7, 'padding row');
SELECT id, MATCH (t) AGAINST ('"abc zz"' IN BOOLEAN MODE) AS a, MATCH (t) AGAINST ('"abc def"' IN BOOLEAN MODE) AS b,
  MATCH (t) AGAINST ('"zz def"' IN BOOLEAN MODE) AS c, MATCH (t) AGAINST ('"abc the def"' IN BOOLEAN MODE) AS d,
  MATCH (t) AGAINST ('"x ray"' IN BOOLEAN MODE) AS e, MATCH (t) AGAINST ('"zz"' IN BOOLEAN MODE) AS f,
  MATCH (t) AGAINST ('"ray abc"' IN BOOLEAN MODE) AS g FROM r ORDER BY id;

-- A MATCH of two columns names a key of both, in any order; each column alone has its own.
CREATE TABLE p (id INT PRIMARY KEY, a VARCHAR(50), b TEXT, FULLTEXT (a, b), FULLTEXT (b));
INSERT INTO p VALUES (1, 'abcd abcd abc', 'zz'), (2, 'dogs cats', 'abc'), (3, 'abc', 'abc abc'), (4, NULL, NULL),
  (5, 'qqq', 'abcd');
SELECT id, MATCH (a, b) AGAINST ('abc*' IN BOOLEAN MODE) AS x, MATCH (b, a) AGAINST ('abc') AS y,
  MATCH (p.b) AGAINST ('abc') AS z FROM p ORDER BY id;
SELECT id FROM p WHERE MATCH (a, b) AGAINST ('abc*' IN BOOLEAN MODE);
-- A join: the MATCH's table leads, by relevance.
SELECT p.id, q.id FROM p JOIN q ON q.id = p.id WHERE MATCH (p.b) AGAINST ('abc');
-- Writes choose their rows by MATCH too, and the next MATCH counts what they left.
UPDATE p SET a = 'updated' WHERE MATCH (b) AGAINST ('abc');
SELECT * FROM p ORDER BY id;
DELETE FROM p WHERE MATCH (a, b) AGAINST ('+updated' IN BOOLEAN MODE);
SELECT * FROM p ORDER BY id;
SELECT id, MATCH (a, b) AGAINST ('abcd') FROM p ORDER BY id;
-- A subquery's MATCH.
SELECT id FROM q WHERE id IN (SELECT id FROM p WHERE MATCH (b) AGAINST ('abcd')) ORDER BY id;

-- No FULLTEXT key of exactly these columns: 1191.
SELECT MATCH (a) AGAINST ('abc') FROM p;
SELECT MATCH (a, b, id) AGAINST ('abc') FROM p;
SELECT MATCH (nosuch) AGAINST ('abc') FROM p;
CREATE TABLE plain (id INT PRIMARY KEY, t TEXT, KEY (t(10)));
SELECT MATCH (t) AGAINST ('abc') FROM plain;

-- MATCH elsewhere in a query: ORDER BY, GROUP BY, a view, a procedure's body.
SELECT id, MATCH (t) AGAINST ('zeta') AS m FROM q ORDER BY m DESC, id;
SELECT MATCH (t) AGAINST ('zeta') > 0 AS k, COUNT(*) FROM q GROUP BY k ORDER BY k;
CREATE VIEW zeta_rows AS SELECT id, MATCH (t) AGAINST ('zeta') AS m FROM q;
SELECT * FROM zeta_rows ORDER BY id;
CREATE PROCEDURE other_rows() SELECT id, MATCH (t) AGAINST ('other') FROM q ORDER BY id;
CALL other_rows();
SELECT id, MATCH (t) AGAINST (123) AS n, MATCH (t) AGAINST (x'6f74686572') AS h FROM q ORDER BY id;
-- Not in a definition: 1901.
CREATE TABLE gen (a TEXT, b DOUBLE AS (MATCH (a) AGAINST ('x')) VIRTUAL, FULLTEXT (a));
CREATE TABLE chk (a TEXT, CHECK (MATCH (a) AGAINST ('x') >= 0), FULLTEXT (a));
CREATE TABLE dflt (a TEXT, b DOUBLE DEFAULT (MATCH (a) AGAINST ('x')), FULLTEXT (a));
