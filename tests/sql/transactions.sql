-- BEGIN / START TRANSACTION / COMMIT / ROLLBACK, autocommit, savepoint-free basics.
-- One connection: what a session sees of its own transactions.

CREATE TABLE acct (id INT PRIMARY KEY, balance INT NOT NULL);
INSERT INTO acct VALUES (1, 100), (2, 100);

BEGIN;
UPDATE acct SET balance = balance - 30 WHERE id = 1;
UPDATE acct SET balance = balance + 30 WHERE id = 2;
SELECT id, balance FROM acct ORDER BY id;
COMMIT;
SELECT id, balance FROM acct ORDER BY id;

START TRANSACTION;
DELETE FROM acct WHERE id = 1;
INSERT INTO acct VALUES (3, 5);
SELECT id, balance FROM acct ORDER BY id;
ROLLBACK;
SELECT id, balance FROM acct ORDER BY id;

-- Autocommit off: changes wait for COMMIT or vanish on ROLLBACK.
SELECT @@autocommit;
SET autocommit = 0;
SELECT @@autocommit, @@session.autocommit;
INSERT INTO acct VALUES (4, 40);
ROLLBACK;
SELECT COUNT(*) FROM acct WHERE id = 4;
INSERT INTO acct VALUES (5, 50);
COMMIT;
SELECT COUNT(*) FROM acct WHERE id = 5;
UPDATE acct SET balance = 0 WHERE id = 5;
-- Turning autocommit back on commits the open transaction.
SET autocommit = 1;
ROLLBACK;
SELECT balance FROM acct WHERE id = 5;

-- A failed statement inside a transaction rolls back only itself.
BEGIN;
INSERT INTO acct VALUES (6, 60);
INSERT INTO acct VALUES (6, 61);
INSERT INTO acct VALUES (7, 70), (1, 0);
SELECT id, balance FROM acct ORDER BY id;
COMMIT;
SELECT id, balance FROM acct ORDER BY id;

-- START TRANSACTION variants; BEGIN inside a transaction commits the first.
START TRANSACTION READ WRITE;
UPDATE acct SET balance = balance + 1 WHERE id = 6;
BEGIN;
ROLLBACK;
SELECT balance FROM acct WHERE id = 6;
START TRANSACTION READ ONLY;
SELECT COUNT(*) FROM acct;
INSERT INTO acct VALUES (8, 80);
COMMIT;
START TRANSACTION WITH CONSISTENT SNAPSHOT;
SELECT SUM(balance) FROM acct;
COMMIT;
BEGIN WORK;
COMMIT WORK;
ROLLBACK WORK;

-- DDL commits implicitly.
BEGIN;
INSERT INTO acct VALUES (9, 90);
CREATE TABLE other (x INT);
ROLLBACK;
SELECT COUNT(*) FROM acct WHERE id = 9;
DROP TABLE other;

-- Savepoints.
BEGIN;
INSERT INTO acct VALUES (10, 1);
SAVEPOINT s1;
INSERT INTO acct VALUES (11, 1);
ROLLBACK TO SAVEPOINT s1;
INSERT INTO acct VALUES (12, 1);
RELEASE SAVEPOINT s1;
COMMIT;
SELECT id FROM acct WHERE id >= 10 ORDER BY id;
ROLLBACK TO SAVEPOINT nope;

-- @@in_transaction follows the session state.
SELECT @@in_transaction;
BEGIN;
SELECT @@in_transaction;
COMMIT;
SELECT @@in_transaction;

SELECT id, balance FROM acct ORDER BY id;
DROP TABLE acct;
