-- ALTER TABLE is all-or-nothing, as in MariaDB: a multi-operation ALTER that fails leaves
-- the table exactly as it was (each failure is followed by SHOW CREATE TABLE and a
-- SELECT), and when several operations would fail, MariaDB's error is the one reported.

CREATE TABLE p (x INT PRIMARY KEY);
INSERT INTO p VALUES (1);
CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT, c INT, KEY kc (c));
INSERT INTO t VALUES (1, 1, 1, 5), (2, 2, 2, 5);

-- A CHECK, index, column or foreign key operation before the failing one stays undone.
ALTER TABLE t ADD CONSTRAINT ch CHECK (a > 0), ADD CONSTRAINT ch CHECK (a > 1);
SHOW CREATE TABLE t;
ALTER TABLE t ADD INDEX k1 (a), ADD COLUMN a INT;
SHOW CREATE TABLE t;
ALTER TABLE t ADD INDEX k (a), ADD FOREIGN KEY (b) REFERENCES missing (x);
SHOW CREATE TABLE t;
ALTER TABLE t ADD COLUMN d INT, ADD INDEX k (a), ADD INDEX k (b);
SHOW CREATE TABLE t;
ALTER TABLE t ADD INDEX k (a), ADD CONSTRAINT ck CHECK (a > 1);
SHOW CREATE TABLE t;
SELECT * FROM t ORDER BY id;
ALTER TABLE t ADD COLUMN e INT DEFAULT 3, ADD CONSTRAINT ck CHECK (e > 3);
SHOW CREATE TABLE t;
ALTER TABLE t DROP INDEX kc, ADD UNIQUE u (c);
SHOW CREATE TABLE t;
ALTER TABLE t MODIFY b BIGINT, ADD UNIQUE u (c);
SHOW CREATE TABLE t;
SELECT * FROM t ORDER BY id;
ALTER TABLE t ADD INDEX k (a), ADD FOREIGN KEY (b) REFERENCES p (x);
SHOW CREATE TABLE t;
ALTER TABLE t DROP COLUMN a, ADD FOREIGN KEY (b) REFERENCES p (x);
SHOW CREATE TABLE t;
SELECT * FROM t ORDER BY id;
ALTER TABLE t AUTO_INCREMENT = 10, ADD COLUMN a INT;
SHOW CREATE TABLE t;

-- Several failing operations: MariaDB's error comes first. A DROP of what the table
-- lacks, in the statement's order, before everything else.
ALTER TABLE t DROP INDEX nope, ADD COLUMN a INT;
ALTER TABLE t ADD INDEX k (zz), DROP INDEX nope;
ALTER TABLE t DROP FOREIGN KEY nope, DROP CONSTRAINT nope2;
ALTER TABLE t DROP CONSTRAINT nope2, DROP FOREIGN KEY nope;
ALTER TABLE t DROP CONSTRAINT nope2, DROP INDEX nope;
ALTER TABLE t DROP COLUMN nope3, DROP INDEX nope;
ALTER TABLE t DROP INDEX nope, DROP COLUMN nope3;
-- Then the columns, the indexes, the CHECKs and the foreign keys.
ALTER TABLE t ADD INDEX k (zz), ADD COLUMN a INT;
ALTER TABLE t ADD FOREIGN KEY (b) REFERENCES missing (x), ADD CONSTRAINT ck CHECK (zz > 1);
ALTER TABLE t ADD CONSTRAINT ck CHECK (zz > 1), ADD FOREIGN KEY (b) REFERENCES missing (x);
ALTER TABLE t ADD CONSTRAINT ck CHECK (zz > 1), ADD INDEX k (zz);
-- Rows: a CHECK before a duplicate key before a foreign key.
ALTER TABLE t ADD UNIQUE u (c), ADD CONSTRAINT ck CHECK (a > 1);
ALTER TABLE t ADD CONSTRAINT ck CHECK (a > 1), ADD UNIQUE u (c);
ALTER TABLE t ADD FOREIGN KEY (b) REFERENCES p (x), ADD UNIQUE u (c);
ALTER TABLE t ADD UNIQUE u (c), ADD FOREIGN KEY (b) REFERENCES p (x);
ALTER TABLE t ADD FOREIGN KEY (b) REFERENCES p (x), ADD CONSTRAINT ck CHECK (a > 1);
SHOW CREATE TABLE t;
SELECT * FROM t ORDER BY id;

-- What succeeds is applied whole: an index on a column the same statement adds, an
-- index dropped and added again under its name, a foreign key with its CHECK.
ALTER TABLE t ADD INDEX kd (d), ADD COLUMN d INT, ADD CONSTRAINT cd CHECK (d > 5);
SHOW CREATE TABLE t;
ALTER TABLE t DROP INDEX kc, ADD INDEX kc (c, a);
SHOW CREATE TABLE t;
INSERT INTO p VALUES (2);
ALTER TABLE t ADD FOREIGN KEY (b) REFERENCES p (x), ADD CONSTRAINT ca CHECK (a > 0), ADD UNIQUE ua (a);
SHOW CREATE TABLE t;
SELECT * FROM t ORDER BY id;
-- The foreign key's index stays needed: dropping both is one change.
ALTER TABLE t DROP INDEX b;
ALTER TABLE t DROP FOREIGN KEY t_ibfk_1, DROP INDEX b, DROP CONSTRAINT cd;
SHOW CREATE TABLE t;
SELECT * FROM t ORDER BY id;
-- A copy checks its converted rows; a CHECK dropped and added again under its name.
ALTER TABLE t MODIFY a BIGINT, ADD CONSTRAINT ck CHECK (a < 2);
ALTER TABLE t DROP CONSTRAINT ca, ADD CONSTRAINT ca CHECK (a > 1);
SHOW CREATE TABLE t;
SELECT * FROM t ORDER BY id;
ALTER TABLE t DROP CONSTRAINT ca, ADD CONSTRAINT ca CHECK (a >= 1);
SHOW CREATE TABLE t;

-- A foreign key dropped and added again in one statement: InnoDB still holds the dropped
-- name (errno 121) and counts it when it generates one.
CREATE TABLE c2 (id INT PRIMARY KEY, b INT, FOREIGN KEY (b) REFERENCES p (x));
ALTER TABLE c2 DROP FOREIGN KEY c2_ibfk_1, ADD CONSTRAINT c2_ibfk_1 FOREIGN KEY (b) REFERENCES p (x) ON DELETE CASCADE;
SHOW CREATE TABLE c2;
ALTER TABLE c2 DROP FOREIGN KEY c2_ibfk_1, ADD FOREIGN KEY (b) REFERENCES p (x);
SHOW CREATE TABLE c2;
-- One on an added column, with a failing one.
ALTER TABLE c2 ADD COLUMN e INT, ADD FOREIGN KEY (e) REFERENCES p (x), ADD FOREIGN KEY (e) REFERENCES nope (x);
SHOW CREATE TABLE c2;
ALTER TABLE c2 ADD COLUMN e INT, ADD FOREIGN KEY (e) REFERENCES p (x);
SHOW CREATE TABLE c2;
-- An index dropped by name and with its only column.
CREATE TABLE t9 (id INT PRIMARY KEY, a INT, c INT, KEY kc (c), KEY kac (a, c));
ALTER TABLE t9 DROP COLUMN c, DROP INDEX kc;
SHOW CREATE TABLE t9;
ALTER TABLE t9 DROP INDEX kac, DROP COLUMN a;
SHOW CREATE TABLE t9;
-- A foreign key dropped with its column.
ALTER TABLE c2 DROP COLUMN e, DROP FOREIGN KEY c2_ibfk_3;
SHOW CREATE TABLE c2;
DROP TABLE t9, c2, t, p;
