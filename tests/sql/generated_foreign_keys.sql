-- Generated columns of foreign-key children: a cascade that changes a child row recomputes
-- its generated columns and their keys (UNIQUE included: a duplicate is 1761), and the
-- definitions MariaDB refuses (1905 for a foreign key on a generated column that its
-- action would write, 1901 for a STORED column reading a column such an action writes,
-- 1907 for switching a column between VIRTUAL and STORED).

-- ON UPDATE CASCADE recomputes the child's VIRTUAL columns and their keys.
CREATE TABLE fp (id INT PRIMARY KEY);
CREATE TABLE fc2 (id INT PRIMARY KEY, p INT, c INT AS (p*10), FOREIGN KEY (p) REFERENCES fp (id) ON UPDATE CASCADE);
INSERT INTO fp VALUES (1), (5);
INSERT INTO fc2 (id, p) VALUES (1, 1), (2, 5);
UPDATE fp SET id = 2 WHERE id = 1;
SELECT * FROM fc2 ORDER BY id;
SELECT id, c FROM fc2 WHERE c = 20;
CREATE TABLE fc6 (id INT PRIMARY KEY, p INT, v INT AS (p*10) VIRTUAL, w VARCHAR(20) AS (CONCAT('p=', IFNULL(p, 'none'))), UNIQUE KEY v (v), KEY w (w), FOREIGN KEY (p) REFERENCES fp (id) ON UPDATE CASCADE ON DELETE SET NULL);
INSERT INTO fp VALUES (3), (30);
INSERT INTO fc6 (id, p) VALUES (1, 3), (2, 30);
UPDATE fp SET id = 300 WHERE id = 30;
SELECT * FROM fc6 ORDER BY id;
SELECT id FROM fc6 WHERE v = 3000;
SELECT id FROM fc6 WHERE w = 'p=300';
DELETE FROM fp WHERE id = 300;
SELECT * FROM fc6 ORDER BY id;
SELECT id FROM fc6 WHERE w = 'p=none';
SELECT id FROM fc6 WHERE v IS NULL;
-- ON UPDATE SET NULL too.
CREATE TABLE fc8 (id INT PRIMARY KEY, p INT, v INT AS (IFNULL(p, -1) + 1), FOREIGN KEY (p) REFERENCES fp (id) ON UPDATE SET NULL);
INSERT INTO fc8 (id, p) VALUES (1, 5);
UPDATE fp SET id = 6 WHERE id = 5;
SELECT * FROM fc8 ORDER BY id;
SELECT * FROM fc2 ORDER BY id;

-- A cascade that duplicates a child's unique key is 1761, naming the child's new key.
CREATE TABLE fp3 (a INT, b INT, PRIMARY KEY (a, b));
CREATE TABLE fc5 (id INT PRIMARY KEY, a INT, b INT, d INT AS (a+b) VIRTUAL, UNIQUE KEY d (d), FOREIGN KEY (a, b) REFERENCES fp3 (a, b) ON UPDATE CASCADE);
INSERT INTO fp3 VALUES (11, 21), (2, 20);
INSERT INTO fc5 (id, a, b) VALUES (1, 11, 21), (2, 2, 20);
UPDATE fp3 SET a = 1, b = 21 WHERE a = 11;
SELECT * FROM fc5 ORDER BY id;
SELECT * FROM fp3 ORDER BY a, b;
UPDATE fp3 SET b = 19 WHERE a = 11;
SELECT * FROM fc5 ORDER BY id;
CREATE TABLE fpk (id INT PRIMARY KEY, k INT, KEY (k));
CREATE TABLE fc4 (id INT PRIMARY KEY, a INT, b INT, UNIQUE KEY ab (a, b), FOREIGN KEY (a) REFERENCES fpk (k) ON UPDATE CASCADE);
INSERT INTO fpk VALUES (1, 7), (2, 8), (3, 9);
INSERT INTO fc4 VALUES (1, 8, 3), (2, 9, 3), (3, 7, 4);
UPDATE fpk SET k = 9 WHERE id = 2;
UPDATE fpk SET k = 9 WHERE id = 1;
SELECT * FROM fc4 ORDER BY id;
SELECT * FROM fpk ORDER BY id;
CREATE TABLE fp7 (id INT PRIMARY KEY, a VARCHAR(5), b INT, KEY (a, b));
CREATE TABLE fc7 (id INT PRIMARY KEY, a VARCHAR(5), b INT, u INT, UNIQUE KEY abu (a, b, u), FOREIGN KEY (a, b) REFERENCES fp7 (a, b) ON UPDATE CASCADE);
INSERT INTO fp7 VALUES (1, 'x', 1), (2, 'y', 2);
INSERT INTO fc7 VALUES (1, 'x', 1, 0), (2, 'y', 2, 0);
UPDATE fp7 SET a = 'x', b = 1 WHERE id = 2;
UPDATE fp7 SET a = 'z', b = 1 WHERE id = 2;
SELECT * FROM fp7 ORDER BY id;
SELECT * FROM fc7 ORDER BY id;
