-- Collations of expressions: `expr COLLATE name`, derivation (COERCIBILITY()) and how
-- comparisons and string functions choose their collation (expr/collate.rs).

CREATE TABLE c (
  id INT PRIMARY KEY,
  ci VARCHAR(10),
  b VARCHAR(10) COLLATE utf8mb4_bin,
  vb VARBINARY(10),
  n INT,
  KEY k_ci (ci),
  KEY k_b (b)
) DEFAULT CHARSET=utf8mb4;
INSERT INTO c VALUES (1, 'a', 'a', 'a', 1), (2, 'A', 'A', 'A', 2), (3, 'B', 'B', 'B', 3),
  (4, 'Z', 'Z', 'Z', 4), (5, 'b', 'b', 'b', 5);

-- COLLATE in WHERE, ORDER BY, GROUP BY, DISTINCT and aggregates.
SELECT id FROM c WHERE ci COLLATE utf8mb4_bin = 'A' ORDER BY id;
SELECT id FROM c WHERE b COLLATE utf8mb4_general_ci = 'A' ORDER BY id;
SELECT id FROM c WHERE b = 'A' COLLATE utf8mb4_general_ci ORDER BY id;
SELECT id FROM c WHERE ci = 'A' COLLATE utf8mb4_bin ORDER BY id;
SELECT id FROM c WHERE ci < 'b' COLLATE utf8mb4_bin ORDER BY id;
SELECT id FROM c WHERE b < 'b' COLLATE utf8mb4_general_ci ORDER BY id;
SELECT id FROM c WHERE ci > 'a' COLLATE utf8mb4_bin ORDER BY id;
SELECT 'a' COLLATE utf8mb4_bin = 'A', 'a' = 'A' COLLATE utf8mb4_bin, 'a' COLLATE utf8mb4_general_ci = 'A';
SELECT 'a' COLLATE UTF8MB4_BIN = 'A', 'a' COLLATE `utf8mb4_bin` = 'A';
SELECT 1 COLLATE utf8mb4_bin, COLLATION(1 COLLATE utf8mb4_bin);
SELECT id FROM c ORDER BY ci COLLATE utf8mb4_bin, id;
SELECT id FROM c ORDER BY b COLLATE utf8mb4_general_ci, id;
SELECT ci COLLATE utf8mb4_bin AS k, COUNT(*) FROM c GROUP BY k ORDER BY k;
SELECT DISTINCT ci COLLATE utf8mb4_bin AS k FROM c ORDER BY k;
SELECT COUNT(DISTINCT ci COLLATE utf8mb4_bin), COUNT(DISTINCT b COLLATE utf8mb4_general_ci) FROM c;
SELECT MAX(ci COLLATE utf8mb4_bin), MIN(ci COLLATE utf8mb4_bin) FROM c;
SELECT id FROM c WHERE ci LIKE 'a%' COLLATE utf8mb4_bin ORDER BY id;
SELECT id FROM c WHERE b LIKE 'a%' COLLATE utf8mb4_general_ci ORDER BY id;
SELECT id FROM c WHERE ci REGEXP 'a' COLLATE utf8mb4_bin ORDER BY id;
SELECT id FROM c WHERE ci IN ('a' COLLATE utf8mb4_bin, 'b') ORDER BY id;
SELECT id FROM c WHERE ci COLLATE utf8mb4_bin IN ('a', 'B') ORDER BY id;
SELECT id FROM c WHERE ci BETWEEN 'a' COLLATE utf8mb4_bin AND 'z' ORDER BY id;
SELECT id, CASE ci WHEN 'a' COLLATE utf8mb4_bin THEN 1 ELSE 0 END FROM c ORDER BY id;
SELECT STRCMP('a', 'A' COLLATE utf8mb4_bin), STRCMP('a' COLLATE utf8mb4_bin, 'A');
SELECT 'a' LIKE 'A' COLLATE utf8mb4_bin, 'a' COLLATE utf8mb4_bin LIKE 'A', 'a' REGEXP 'A' COLLATE utf8mb4_bin;
SELECT 'a' IN ('A' COLLATE utf8mb4_bin, 'b'), 'a' BETWEEN 'A' COLLATE utf8mb4_bin AND 'z';
SELECT CASE 'a' WHEN 'A' COLLATE utf8mb4_bin THEN 1 ELSE 0 END;

-- Names: aliases as in column definitions; other character sets 1253, unknown 1273.
SELECT 'a' COLLATE utf8mb4_unicode_ci = 'A';
SELECT 'a' COLLATE latin1_bin;
SELECT 'a' COLLATE latin1_swedish_ci;
SELECT 'a' COLLATE utf8_general_ci;
SELECT 'a' COLLATE utf8mb3_general_ci;
SELECT 'a' COLLATE nonsense;
SELECT 'a' COLLATE utf8mb4_0900_ai_ci;
SELECT vb COLLATE utf8mb4_bin FROM c;
SELECT x'41' COLLATE utf8mb4_general_ci;

-- Two EXPLICIT collations do not mix (1267; 1270 for three operands).
SELECT 'a' COLLATE utf8mb4_bin = 'A' COLLATE utf8mb4_general_ci;
SELECT id FROM c WHERE ci COLLATE utf8mb4_bin = b COLLATE utf8mb4_general_ci;
SELECT 'a' COLLATE utf8mb4_bin IN ('A' COLLATE utf8mb4_general_ci);
SELECT CONCAT('a' COLLATE utf8mb4_bin, 'A' COLLATE utf8mb4_general_ci);
SELECT 'a' COLLATE utf8mb4_bin LIKE 'A' COLLATE utf8mb4_general_ci;
SELECT 'a' COLLATE utf8mb4_bin BETWEEN 'A' COLLATE utf8mb4_general_ci AND 'z';
SELECT COALESCE('a' COLLATE utf8mb4_bin, 'A' COLLATE utf8mb4_general_ci);
SELECT CASE 'a' COLLATE utf8mb4_bin WHEN 'A' COLLATE utf8mb4_general_ci THEN 1 END;
SELECT STRCMP('a' COLLATE utf8mb4_bin, 'A' COLLATE utf8mb4_general_ci);
SELECT id FROM c WHERE ci COLLATE utf8mb4_bin = b COLLATE utf8mb4_bin ORDER BY id;

-- Columns of equal derivation: utf8mb4_bin wins over general_ci, binary over both; a
-- lower derivation wins (EXPLICIT over IMPLICIT over COERCIBLE).
SELECT c1.id, c2.id FROM c c1, c c2 WHERE c1.ci = c2.b ORDER BY 1, 2;
SELECT c1.id, c2.id FROM c c1, c c2 WHERE c1.b = c2.ci ORDER BY 1, 2;
SELECT c1.id, c2.id FROM c c1, c c2 WHERE c1.b = c2.ci COLLATE utf8mb4_general_ci ORDER BY 1, 2;
SELECT c1.id, c2.id FROM c c1, c c2 WHERE c1.vb = c2.ci ORDER BY 1, 2;
SELECT c1.id, c2.id FROM c c1, c c2 WHERE c1.vb = c2.ci COLLATE utf8mb4_general_ci ORDER BY 1, 2;
SELECT id FROM c WHERE ci = x'41' ORDER BY id;
SELECT id FROM c WHERE ci = _binary'A' ORDER BY id;
SELECT 'a' = _binary'A' AS x1, 'a' = x'41' AS x2, _binary'a' = 'A' COLLATE utf8mb4_general_ci AS x3;
SELECT id FROM c WHERE vb = 'A' ORDER BY id;
SELECT id FROM c WHERE b = CONCAT('A', '') ORDER BY id;
SELECT id FROM c WHERE ci = CONCAT(b, '') ORDER BY id;

-- String results carry their arguments' collation.
SELECT id FROM c WHERE CONCAT(b, '') = 'A' ORDER BY id;
SELECT id FROM c WHERE CONCAT(ci, '') = 'A' ORDER BY id;
SELECT id FROM c WHERE LOWER(b) = 'A' ORDER BY id;
SELECT id FROM c WHERE UPPER(b) = 'a' ORDER BY id;
SELECT id FROM c WHERE SUBSTRING(b, 1, 1) = 'b' ORDER BY id;
SELECT id FROM c WHERE TRIM(b) = 'b' ORDER BY id;
SELECT id FROM c WHERE REPLACE(b, 'x', 'y') = 'b' ORDER BY id;
SELECT id FROM c WHERE IF(id > 0, b, ci) = 'b' ORDER BY id;
SELECT id FROM c WHERE COALESCE(NULL, b) = 'b' ORDER BY id;
SELECT id FROM c WHERE CASE WHEN id > 0 THEN b END = 'b' ORDER BY id;
SELECT id FROM c WHERE CONCAT(ci, b) = 'aA' ORDER BY id;
SELECT id, CONCAT(b, '') AS x FROM c ORDER BY x, id;
SELECT CONCAT(b, '') AS x, COUNT(*) FROM c GROUP BY x ORDER BY x;
SELECT id FROM c WHERE HEX(b) = '61' ORDER BY id;
SELECT id FROM c WHERE CAST(b AS CHAR) = 'a' ORDER BY id;

-- COLLATION() and COERCIBILITY().
SELECT COLLATION(ci), COLLATION(b), COLLATION(vb), COLLATION(n), COLLATION('a'), COLLATION(1), COLLATION(NULL) FROM c WHERE id = 1;
SELECT COERCIBILITY(ci), COERCIBILITY(b), COERCIBILITY(vb), COERCIBILITY(n), COERCIBILITY('a'), COERCIBILITY(1), COERCIBILITY(NULL), COERCIBILITY(ci COLLATE utf8mb4_bin), COERCIBILITY(USER()), COERCIBILITY(VERSION()) FROM c WHERE id = 1;
SELECT COLLATION(CONCAT(b, '')), COERCIBILITY(CONCAT(b, '')), COLLATION(CONCAT(ci, b)), COERCIBILITY(CONCAT(ci, b)), COLLATION(CONCAT(1, 2)), COERCIBILITY(CONCAT(1, 2)), COLLATION(CONCAT(vb, ci)), COERCIBILITY(CONCAT(vb, ci)) FROM c WHERE id = 1;
SELECT COLLATION(LOWER(b)), COLLATION(UPPER(b)), COLLATION(SUBSTRING(b, 1)), COLLATION(TRIM(b)), COLLATION(REPLACE(b, 'a', 'b')), COLLATION(IF(1, b, ci)), COLLATION(COALESCE(b, 'x')), COLLATION(CASE WHEN 1 THEN b ELSE 'x' END), COLLATION(IFNULL(b, ci)) FROM c WHERE id = 1;
SELECT COLLATION(HEX(b)), COLLATION(REPEAT(b, 2)), COLLATION(LPAD(b, 3, 'x')), COLLATION(LEFT(b, 1)), COLLATION(REVERSE(b)), COLLATION(CONCAT_WS(',', b, 'x')), COLLATION(INSERT(b, 1, 1, 'x')), COLLATION(ELT(1, b, 'x')), COLLATION(NULLIF(b, 'x')), COLLATION(GREATEST(b, 'x')) FROM c WHERE id = 1;
SELECT COERCIBILITY(CONCAT(ci, 'x')), COERCIBILITY(CONCAT('x', 'y')), COERCIBILITY(LOWER('x')), COERCIBILITY(IF(1, 'a', ci)), COERCIBILITY(CONCAT(ci, 1)), COLLATION(CONCAT(ci, 1)) FROM c WHERE id = 1;
SELECT COLLATION(CONCAT(vb, 'x')), COLLATION(CONCAT(b, 'x' COLLATE utf8mb4_general_ci)), COLLATION(IF(1, 1, ci)), COLLATION(IF(1, 1, 2)), COLLATION(CASE WHEN 1 THEN 1 ELSE 'x' END) FROM c WHERE id = 1;
SELECT COLLATION(CAST(1 AS CHAR)), COERCIBILITY(CAST(1 AS CHAR)), COLLATION(CAST(b AS CHAR)), COERCIBILITY(CAST(b AS CHAR)) FROM c WHERE id = 1;
SELECT COLLATION(_utf8mb4'a'), COLLATION(_binary'a'), COERCIBILITY(_utf8mb4'a'), COLLATION(NOW()), COERCIBILITY(NOW());
SELECT COLLATION(MAX(b)), COLLATION(MIN(ci)) FROM c;
SET @s = 'abc';
SELECT COLLATION(@s), COERCIBILITY(@s);
SELECT COLLATION(b COLLATE utf8mb4_general_ci), COERCIBILITY(b COLLATE utf8mb4_general_ci) FROM c WHERE id = 1;

-- UPDATE and DELETE with COLLATE.
UPDATE c SET n = 10 WHERE ci COLLATE utf8mb4_bin = 'b';
SELECT id, n FROM c ORDER BY id;
DELETE FROM c WHERE b COLLATE utf8mb4_general_ci = 'z';
SELECT id FROM c ORDER BY id;
DROP TABLE c;
