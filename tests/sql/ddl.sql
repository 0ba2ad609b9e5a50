-- CREATE/DROP DATABASE and TABLE, CREATE/DROP INDEX, TRUNCATE.
-- Every file runs in a fresh database that is already selected.

CREATE DATABASE ddl_other;
CREATE DATABASE IF NOT EXISTS ddl_other;
SHOW WARNINGS;
CREATE DATABASE ddl_other;
DROP DATABASE ddl_other;
DROP DATABASE IF EXISTS ddl_other;
SHOW WARNINGS;
DROP DATABASE ddl_other;

CREATE TABLE t1 (id INT PRIMARY KEY, name VARCHAR(20));
CREATE TABLE IF NOT EXISTS t1 (id INT PRIMARY KEY);
SHOW WARNINGS;
CREATE TABLE t1 (id INT);
SHOW TABLES;
DROP TABLE t1;
DROP TABLE IF EXISTS t1;
SHOW WARNINGS;
DROP TABLE t1;
SHOW TABLES;

-- Tables in another database, reached by qualified names.
CREATE DATABASE ddl_qualified;
CREATE TABLE ddl_qualified.q (a INT NOT NULL PRIMARY KEY, b INT);
INSERT INTO ddl_qualified.q VALUES (1, 10), (2, 20);
SELECT a, b FROM ddl_qualified.q ORDER BY a;
DROP TABLE ddl_qualified.q;
DROP DATABASE ddl_qualified;

-- Several tables in one DROP.
CREATE TABLE a1 (x INT);
CREATE TABLE a2 (x INT);
DROP TABLE a1, a2;
DROP TABLE IF EXISTS a1, a2;

-- Indexes: CREATE INDEX, CREATE UNIQUE INDEX, DROP INDEX, and inline keys.
CREATE TABLE people (
  id INT NOT NULL AUTO_INCREMENT,
  email VARCHAR(64) NOT NULL,
  age INT,
  city VARCHAR(32),
  PRIMARY KEY (id),
  UNIQUE KEY uk_email (email),
  KEY k_age (age),
  INDEX k_city_age (city, age)
);
CREATE INDEX k_city ON people (city);
CREATE UNIQUE INDEX uk_city_age ON people (city, age);
CREATE INDEX k_city ON people (age);
SHOW INDEX FROM people;
DROP INDEX k_city ON people;
DROP INDEX uk_city_age ON people;
DROP INDEX k_city ON people;
DROP INDEX nope ON people;
SHOW INDEX FROM people;
INSERT INTO people (email, age, city) VALUES ('a@x', 30, 'Oslo'), ('b@x', 31, 'Oslo'), ('c@x', NULL, NULL);
SELECT id, email, age, city FROM people WHERE age = 31;
SELECT id, email FROM people WHERE city = 'Oslo' AND age >= 30 ORDER BY id;
-- A unique index rejects a duplicate created later.
CREATE UNIQUE INDEX uk_city ON people (city);
SELECT COUNT(*) FROM people;

-- TRUNCATE empties the table and resets AUTO_INCREMENT.
TRUNCATE TABLE people;
SELECT COUNT(*) FROM people;
INSERT INTO people (email) VALUES ('d@x');
SELECT id, email FROM people;
TRUNCATE people;
TRUNCATE TABLE nope;

-- Column-level options and table-level keys.
CREATE TABLE options (
  a INT NOT NULL DEFAULT 5,
  b VARCHAR(10) DEFAULT 'x',
  c DECIMAL(6,2) NULL DEFAULT NULL,
  d BIGINT UNSIGNED NOT NULL,
  PRIMARY KEY (d, a)
);
INSERT INTO options (d) VALUES (1);
INSERT INTO options (d, a, b, c) VALUES (2, 6, 'y', 3.5);
SELECT a, b, c, d FROM options ORDER BY d;
DROP TABLE options;

-- Composite primary key uniqueness.
CREATE TABLE pk2 (a INT, b INT, v INT, PRIMARY KEY (a, b));
INSERT INTO pk2 VALUES (1, 1, 0), (1, 2, 0), (2, 1, 0);
INSERT INTO pk2 VALUES (1, 2, 9);
SELECT a, b, v FROM pk2 ORDER BY a, b;
DROP TABLE pk2;

-- A table without a primary key accepts duplicates.
CREATE TABLE nokey (a INT, b VARCHAR(5));
INSERT INTO nokey VALUES (1, 'x'), (1, 'x'), (NULL, NULL);
SELECT a, b FROM nokey;
DROP TABLE nokey;

-- Names are case-insensitive for columns, case-sensitive for tables on Linux.
CREATE TABLE CaseT (Col INT);
INSERT INTO CaseT (col) VALUES (1);
SELECT COL FROM CaseT;
SELECT col FROM caset;
DROP TABLE CaseT;

-- Backquoted identifiers.
CREATE TABLE `select` (`from` INT, `a b` VARCHAR(5));
INSERT INTO `select` (`from`, `a b`) VALUES (1, 'sp');
SELECT `from`, `a b` FROM `select`;
DROP TABLE `select`;

-- ENGINE: the engines MariaDB knows are accepted (manycore stores them all as InnoDB);
-- another name is 1286 (NO_ENGINE_SUBSTITUTION is in the default sql_mode), checked
-- before whether the table exists. The last ENGINE named is the one that counts.
CREATE TABLE engine_known (a INT NOT NULL) ENGINE=MyISAM;
DROP TABLE engine_known;
CREATE TABLE engine_known (a INT NOT NULL) ENGINE=heap;
DROP TABLE engine_known;
CREATE TABLE engine_known (a INT NOT NULL) ENGINE Aria;
DROP TABLE engine_known;
CREATE TABLE engine_known (a INT NOT NULL) ENGINE=INNOBASE;
CREATE TABLE engine_unknown (a INT) ENGINE=NoSuchEngine;
CREATE TABLE engine_unknown (a INT) ENGINE=`archive`;
CREATE TABLE engine_unknown (a INT) ENGINE=InnoDB ENGINE=nope;
CREATE TABLE engine_unknown (a INT) ENGINE=nope ENGINE=InnoDB;
DROP TABLE engine_unknown;
CREATE TABLE IF NOT EXISTS engine_known (a INT) ENGINE=nope;
CREATE TABLE engine_unknown ENGINE=nope AS SELECT 1 AS a;
SHOW TABLES;
DROP TABLE engine_known;

DROP TABLE people;
SHOW TABLES;
