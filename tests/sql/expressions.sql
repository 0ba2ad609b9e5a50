-- Expressions with MySQL's type rules: result types (column metadata), NULL
-- propagation, string/number coercion, CAST.

-- Arithmetic and its result types: / gives DECIMAL, DIV integer, % modulo.
SELECT 1 + 2, 1 - 2, 2 * 3, 7 / 2, 1 / 3, 10 / 5, 7 DIV 2, -7 DIV 2, 7 % 3, -7 % 3, 7 MOD -3;
SELECT 1 / 0, 1 DIV 0, 1 % 0;
SELECT 2.5 * 2, 1.10 + 2.205, 0.1 + 0.2, 1.0 / 3, 1 / 3.0, 10.0 / 4;
SELECT 1e0 / 3, 2e0 * 1.5, 0.1e0 + 0.2e0;
SELECT 9223372036854775807 + 0, -9223372036854775807 - 1, 18446744073709551615;
SELECT 5 / 2 * 2, (5 / 2) * 2, 5 DIV 2 * 2;
SELECT -(-3), - 2.5, +4, 2 - -2;
SELECT 7.5 DIV 2, 7.5 % 2, 7.25 MOD 0.5;

-- Comparison results are integers 1/0, NULL propagates.
SELECT 1 = 1, 1 = 2, 1 < 2, 2 <= 1, 'a' = 'A', 'a' < 'b', 1 <> 1, NULL = NULL, NULL <=> NULL, 1 <=> NULL;
SELECT 1 + NULL, NULL * 0, NULL / 1, CONCAT('a', NULL), NULL AND 0, NULL AND 1, NULL OR 1, NULL OR 0, NOT NULL;
SELECT 1 AND 1, 1 AND 0, 0 OR 0, 2 OR 0, NOT 0, NOT 5, 1 XOR 1, 1 XOR 0;
SELECT 2 IN (1, 2, 3), 5 IN (1, 2), NULL IN (1, 2), 1 IN (1, NULL), 5 IN (1, NULL), 5 NOT IN (1, NULL);
SELECT 3 BETWEEN 1 AND 5, 'b' BETWEEN 'a' AND 'c', NULL BETWEEN 1 AND 2, 6 NOT BETWEEN 1 AND 5;
SELECT NULL IS NULL, 1 IS NULL, NULL IS NOT NULL, 0 IS NOT NULL, 1 IS TRUE, 0 IS FALSE, NULL IS UNKNOWN;
SELECT 'abc' LIKE 'a%', 'abc' LIKE 'A_C', 'a%c' LIKE 'a\%c', 'abc' LIKE 'b%', NULL LIKE 'a', 'abc' NOT LIKE '%z%';

-- String/number coercion.
SELECT '1' + 1, '1.5' + 1, '10' * '2', 'abc' + 0, '3abc' + 1, ' 42 ' + 0, '1e2' + 0, '' + 0;
SHOW WARNINGS;
SELECT 1 = '1', 1 = '1.0', 'a' = 0, '10' > 9, '10' > '9', 2 > '10';
SELECT CONCAT(1, 2), CONCAT(1.5, 'x'), CONCAT('n', NULL, 'x'), 1 + '1' + 1.5;
SELECT '9223372036854775808' + 0, 18446744073709551615 + 0, '18446744073709551616' + 0;

-- CAST and CONVERT.
SELECT CAST('12' AS SIGNED), CAST('-3' AS SIGNED), CAST(3.7 AS SIGNED), CAST(-3.7 AS SIGNED), CAST('3.7' AS SIGNED);
SELECT CAST(-1 AS UNSIGNED), CAST(18446744073709551615 AS SIGNED), CAST('abc' AS SIGNED);
SELECT CAST(1.5 AS DECIMAL(10,2)), CAST('3.14159' AS DECIMAL(5,3)), CAST(1 AS DECIMAL), CAST(123.456 AS DECIMAL(4,1));
SELECT CAST(12 AS CHAR), CAST(1.50 AS CHAR), CAST('2024-01-15' AS DATE), CAST('2024-01-15 10:20:30' AS DATETIME);
SELECT CAST('2024-01-15' AS DATETIME), CAST(20240115 AS DATE), CAST('1.5' AS DOUBLE), CAST(5 AS DOUBLE);
SELECT CONVERT('42', SIGNED), CONVERT(42, CHAR), CAST(NULL AS SIGNED), CAST('x' AS CHAR(0));

-- CASE, IF, IFNULL, COALESCE, NULLIF and their result types.
SELECT CASE 1 WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'many' END;
SELECT CASE WHEN 1 > 2 THEN 'a' WHEN 2 > 1 THEN 'b' END, CASE WHEN 0 THEN 1 END;
SELECT CASE 3 WHEN 1 THEN 1 ELSE 2.5 END, CASE 1 WHEN 1 THEN 1 ELSE 'x' END;
SELECT IF(1, 'yes', 'no'), IF(0, 1, 2), IF(NULL, 1, 2), IF(1, 2, 3.5);
SELECT IFNULL(NULL, 5), IFNULL(3, 5), IFNULL(NULL, NULL), COALESCE(NULL, NULL, 'x', 'y'), COALESCE(NULL, 1, 2.5);
SELECT NULLIF(1, 1), NULLIF(1, 2), NULLIF('a', 'A');
SELECT GREATEST(1, 5, 3), LEAST(1, 5, 3), GREATEST('a', 'b'), GREATEST(1, NULL), LEAST(2, 1.5);

-- Expressions over columns keep the column types' rules.
CREATE TABLE e (i INT, u INT UNSIGNED, d DECIMAL(6,2), f DOUBLE, s VARCHAR(10), b BIGINT);
INSERT INTO e VALUES (7, 3, 2.50, 0.5, '12', 9223372036854775807), (-7, 0, -1.25, 1e3, 'x', NULL), (NULL, NULL, NULL, NULL, NULL, NULL);
SELECT i / 2, i DIV 2, i % 3, d * 2, d / 3, f * 2, s + 1, i + d, i + f, d + f FROM e ORDER BY i;
SELECT i + u, u - 1, i * d FROM e WHERE i = 7;
SELECT u - 1 FROM e WHERE u = 0;
SELECT b + 1 FROM e WHERE b IS NOT NULL;
SELECT SUM(i), SUM(d), SUM(f), AVG(i), AVG(d), AVG(f) FROM e;
SELECT i, i > 0, -i, ABS(i) FROM e ORDER BY i;
DROP TABLE e;

-- Operator precedence.
SELECT 1 + 2 * 3, (1 + 2) * 3, 2 * 3 % 4, 1 < 2 = 1, NOT 1 + 1, 1 OR 0 AND 0, -2 * -3;
SELECT 1 | 2, 6 & 3, 1 << 4, 256 >> 2, 5 ^ 1, ~0;
