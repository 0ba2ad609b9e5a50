-- INSERT, REPLACE and DELETE ... RETURNING (MariaDB 10.5+; Django's MySQL backend uses
-- INSERT ... RETURNING on MariaDB): generated ids, defaults, expressions, aliases, `*`,
-- IGNORE, ON DUPLICATE KEY UPDATE, INSERT ... SELECT, ORDER BY/LIMIT on DELETE, the
-- column types of the result set, and the syntax errors for UPDATE and multi-table DELETE.

CREATE TABLE r (id INT AUTO_INCREMENT PRIMARY KEY, a INT NOT NULL, b VARCHAR(10) DEFAULT 'dflt', c DECIMAL(6,2) NULL);
INSERT INTO r (a) VALUES (5) RETURNING id;
INSERT INTO r (a, c) VALUES (6, 1.5), (7, NULL) RETURNING id, a * 2 AS doubled, b, c;
INSERT INTO r (a) VALUES (8) RETURNING *;
INSERT INTO r SET a = 9, b = 'set' RETURNING r.id, CONCAT(b, '!'), a + id;
INSERT INTO r (a) SELECT a + 100 FROM r WHERE a < 7 RETURNING id, a;
-- IGNORE returns only the rows written.
INSERT IGNORE INTO r (id, a) VALUES (1, 0), (50, 50) RETURNING id, a;
-- ON DUPLICATE KEY UPDATE returns the row as written.
INSERT INTO r (id, a) VALUES (2, 0), (60, 60) ON DUPLICATE KEY UPDATE a = a + 1000 RETURNING id, a;
-- ... also when it leaves the row unchanged.
INSERT INTO r (id, a) VALUES (4, 0) ON DUPLICATE KEY UPDATE a = a RETURNING id, a;
REPLACE INTO r (id, a, b) VALUES (3, 33, 'replaced') RETURNING id, a, b;
SELECT * FROM r ORDER BY id;
DELETE FROM r WHERE id > 50 RETURNING id, a;
DELETE FROM r ORDER BY id DESC LIMIT 2 RETURNING *;
DELETE FROM r WHERE id = 999 RETURNING id;
SELECT * FROM r ORDER BY id;
-- A failing insert returns nothing and changes nothing.
INSERT INTO r (id, a) VALUES (70, 1), (1, 2) RETURNING id;
SELECT COUNT(*) FROM r;
-- Errors.
INSERT INTO r (a) VALUES (1) RETURNING nope;
INSERT INTO r (a) VALUES (1) RETURNING COUNT(*);
UPDATE r SET a = 1 RETURNING id;
DELETE r FROM r JOIN r AS s ON r.id = s.id RETURNING r.id;
SELECT COUNT(*) FROM r;
