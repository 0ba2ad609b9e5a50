-- RENAME TABLE a TO b [, c TO d ...] and ALTER TABLE a RENAME [TO|AS] b, as MariaDB 10.11
-- does them: rows, indexes and AUTO_INCREMENT follow the table; pairs apply in order (so
-- three pairs swap two tables) and all or none of them happen; across databases; errors
-- 1050, 1146 and 1049; foreign keys of other tables (and the table itself) follow a
-- renamed parent, and a renamed child's generated constraint names follow its new name.

CREATE TABLE t1 (id INT PRIMARY KEY AUTO_INCREMENT, v VARCHAR(10), KEY (v));
INSERT INTO t1 (v) VALUES ('a'), ('b'), ('c');
RENAME TABLE t1 TO t2;
SHOW TABLES;
SELECT * FROM t2 ORDER BY id;
SELECT * FROM t1;
SELECT id FROM t2 WHERE v = 'b';
INSERT INTO t2 (v) VALUES ('d');
SELECT * FROM t2 ORDER BY id;
SHOW CREATE TABLE t2;

-- Errors: source missing, target exists (a table or a view), unknown database.
CREATE TABLE t3 (x INT);
RENAME TABLE t2 TO t3;
RENAME TABLE nosuch TO t4;
RENAME TABLE t2 TO no_such_db.t2;
RENAME TABLE no_such_db.t2 TO t4;
CREATE VIEW v3 AS SELECT x FROM t3;
RENAME TABLE t2 TO v3;
RENAME TABLE t2 TO t2;
-- A failing pair undoes the ones before it.
RENAME TABLE t2 TO t5, nosuch TO t6;
RENAME TABLE t2 TO t5, t3 TO t5;
SHOW TABLES;

-- Swap through a temporary name: pairs apply in order.
INSERT INTO t3 VALUES (30), (31);
RENAME TABLE t2 TO tmp, t3 TO t2, tmp TO t3;
SHOW TABLES;
SELECT * FROM t2 ORDER BY x;
SELECT * FROM t3 ORDER BY id;
-- Chained: a renamed table renamed again in the same statement.
RENAME TABLE t2 TO a1, a1 TO a2;
SELECT * FROM a2 ORDER BY x;
RENAME TABLE a2 TO t2;

-- ALTER TABLE ... RENAME TO / AS.
ALTER TABLE t3 RENAME TO t4;
SELECT * FROM t4 ORDER BY id;
ALTER TABLE t4 RENAME AS t3;
SELECT COUNT(*) FROM t3;
ALTER TABLE t3 RENAME TO t2;
ALTER TABLE nosuch RENAME TO t9;
ALTER TABLE t3 RENAME TO no_such_db.t3;
ALTER TABLE t3 RENAME TO t3;
SELECT COUNT(*) FROM t3;
-- RENAME with other operations: they apply, then the rename.
ALTER TABLE t3 ADD COLUMN w INT, RENAME TO t6;
SHOW CREATE TABLE t6;
ALTER TABLE t6 RENAME TO t7, DROP COLUMN w;
SELECT * FROM t7 ORDER BY id;
ALTER TABLE t7 ADD COLUMN w INT, RENAME TO t2;
SHOW TABLES;
ALTER TABLE t7 RENAME TO t3;
-- Renamed there and back in one statement.
RENAME TABLE t3 TO t5, t5 TO t3;
SELECT COUNT(*) FROM t3;

-- Across databases.
CREATE DATABASE rename_other;
RENAME TABLE t3 TO rename_other.t3;
SHOW TABLES;
SHOW TABLES FROM rename_other;
SELECT * FROM rename_other.t3 ORDER BY id;
INSERT INTO rename_other.t3 (v) VALUES ('e');
ALTER TABLE rename_other.t3 RENAME TO t3;
SELECT * FROM t3 ORDER BY id;
DROP DATABASE rename_other;

-- A view is renamed in its database; the view naming a renamed table is not changed.
RENAME TABLE v3 TO v4;
SELECT * FROM v4 ORDER BY x;
SHOW FULL TABLES;
CREATE DATABASE rename_other;
RENAME TABLE v4 TO rename_other.v4;
DROP DATABASE rename_other;
RENAME TABLE t2 TO t2x;
SELECT * FROM v4;
RENAME TABLE t2x TO t2;
SELECT COUNT(*) FROM v4;
RENAME TABLE v4 TO v3;

-- Foreign keys follow a renamed parent; a renamed child keeps its keys.
CREATE TABLE p (id INT PRIMARY KEY);
CREATE TABLE c (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id));
CREATE TABLE s (id INT PRIMARY KEY, up INT, FOREIGN KEY (up) REFERENCES s (id));
INSERT INTO p VALUES (1), (2);
INSERT INTO c VALUES (10, 1);
INSERT INTO s VALUES (1, NULL), (2, 1);
RENAME TABLE p TO p2;
SHOW CREATE TABLE c;
INSERT INTO c VALUES (11, 2);
INSERT INTO c VALUES (12, 3);
DELETE FROM p2 WHERE id = 1;
DROP TABLE p2;
RENAME TABLE c TO c2;
SHOW CREATE TABLE c2;
INSERT INTO c2 VALUES (13, 5);
RENAME TABLE s TO s2;
SHOW CREATE TABLE s2;
INSERT INTO s2 VALUES (3, 9);
ALTER TABLE p2 RENAME TO p3;
SHOW CREATE TABLE c2;
SELECT TABLE_NAME, REFERENCED_TABLE_NAME FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE() ORDER BY TABLE_NAME;
DROP TABLE c2;
DROP TABLE s2;
DROP TABLE p3;
DROP VIEW v3;
SHOW TABLES;
