-- SQL-level prepared statements: PREPARE name FROM <string expression>, EXECUTE name
-- [USING expr, ...], DEALLOCATE PREPARE and DROP PREPARE. Names are case-insensitive; a
-- PREPARE replaces the statement of its name, which is gone even if the new one fails;
-- errors 1243 (unknown name), 1210 (wrong number of values), 1295 (PREPARE, EXECUTE or
-- DEALLOCATE themselves prepared: also what the prepared-protocol pass gets for every
-- statement of this file), and the prepared text's own parse and bind errors.

CREATE TABLE ps (a INT PRIMARY KEY, b VARCHAR(10));
INSERT INTO ps VALUES (1, 'x'), (2, 'y');
PREPARE s FROM 'SELECT a, b FROM ps WHERE a = ?';
SET @x = 2;
EXECUTE s USING @x;
EXECUTE s USING 1;
EXECUTE s USING 1 + 0, 2;
EXECUTE s;
EXECUTE nope;
PREPARE s2 FROM CONCAT('SELECT ', 'a + ', '?', ' FROM ps ORDER BY a');
EXECUTE s2 USING 10;
EXECUTE s2 USING @x * 100;
PREPARE s3 FROM @undefined;
SET @q = 'INSERT INTO ps VALUES (?, ?)';
PREPARE s3 FROM @q;
EXECUTE s3 USING 3, 'z';
EXECUTE s3 USING 3, 'z';
EXECUTE s3 USING 4, NULL;
SELECT * FROM ps ORDER BY a;
PREPARE upd FROM 'UPDATE ps SET b = ? WHERE a > ?';
EXECUTE upd USING 'big', 2;
SELECT * FROM ps ORDER BY a;
-- What may not be prepared, and failures that drop the name.
PREPARE s4 FROM 'SELECT 1; SELECT 2';
PREPARE s4 FROM 'PREPARE s5 FROM ''SELECT 1''';
PREPARE s4 FROM 'EXECUTE s';
PREPARE s4 FROM 'DEALLOCATE PREPARE s';
PREPARE s4 FROM 'SELEC 1';
PREPARE s4 FROM '';
PREPARE s FROM 'SELECT nope FROM ps';
EXECUTE s USING 1;
PREPARE s FROM 1;
PREPARE s FROM NULL;
-- Deallocation and names.
DEALLOCATE PREPARE s;
DROP PREPARE s2;
DROP PREPARE S3;
EXECUTE s2 USING 1;
PREPARE S FROM 'SELECT ?';
EXECUTE s USING NULL;
EXECUTE `s` USING 'a';
DEALLOCATE PREPARE `s`;
-- A statement prepared in SQL sees later changes of its table.
PREPARE cnt FROM 'SELECT COUNT(*) FROM ps';
EXECUTE cnt;
DELETE FROM ps WHERE a > 2;
EXECUTE cnt;
ALTER TABLE ps ADD COLUMN c INT DEFAULT 7;
PREPARE star FROM 'SELECT * FROM ps ORDER BY a';
EXECUTE star;
EXECUTE cnt;
DEALLOCATE PREPARE cnt;
DEALLOCATE PREPARE star;
DEALLOCATE PREPARE upd;
-- EXECUTE keeps the warnings of a statement that reads no table, as MariaDB does.
PREPARE one FROM 'SELECT 1';
DEALLOCATE PREPARE gone;
EXECUTE one;
SHOW WARNINGS;
DEALLOCATE PREPARE one;
DROP TABLE ps;
