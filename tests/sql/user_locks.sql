-- User-level locks in one session: GET_LOCK, RELEASE_LOCK, RELEASE_ALL_LOCKS,
-- IS_FREE_LOCK, IS_USED_LOCK. Waits between sessions are tested in
-- crates/testkit/tests/sleep.rs.

-- A lock is counted: taken twice, released twice; then nobody holds it.
SELECT GET_LOCK('a', 1), GET_LOCK('a', 0), IS_USED_LOCK('a') = CONNECTION_ID(), IS_FREE_LOCK('a');
SELECT RELEASE_LOCK('a'), IS_FREE_LOCK('a'), RELEASE_LOCK('a'), IS_FREE_LOCK('a');
SELECT RELEASE_LOCK('a'), IS_USED_LOCK('a'), RELEASE_LOCK('never_taken');
-- Names are compared byte for byte.
SELECT GET_LOCK('Case', 0), IS_FREE_LOCK('case'), IS_FREE_LOCK('CASE'), IS_FREE_LOCK('Case');
SELECT GET_LOCK('é', 0), IS_FREE_LOCK('É'), GET_LOCK(_binary'bin', 0), IS_FREE_LOCK('BIN');
SELECT RELEASE_ALL_LOCKS(), IS_FREE_LOCK('Case'), IS_FREE_LOCK('é');
SELECT RELEASE_ALL_LOCKS();
-- RELEASE_ALL_LOCKS counts every time a lock was taken.
SELECT GET_LOCK('u1', 0), GET_LOCK('u2', 0), GET_LOCK('u1', 0), RELEASE_ALL_LOCKS();
-- Locks outlive transactions.
CREATE TABLE ul (id INT PRIMARY KEY, got INT);
BEGIN;
INSERT INTO ul VALUES (1, GET_LOCK('in_txn', 0));
ROLLBACK;
SELECT IS_USED_LOCK('in_txn') = CONNECTION_ID(), COUNT(*) FROM ul;
SELECT RELEASE_LOCK('in_txn');
-- In statements that read and write rows.
INSERT INTO ul VALUES (1, GET_LOCK('row1', 0)), (2, GET_LOCK('row2', 0));
UPDATE ul SET got = got + RELEASE_LOCK(CONCAT('row', id));
SELECT id, got, IS_FREE_LOCK(CONCAT('row', id)) FROM ul ORDER BY id;
DO GET_LOCK('by_do', 0);
SET @held = IS_USED_LOCK('by_do') = CONNECTION_ID();
SELECT @held, RELEASE_LOCK('by_do');
DROP TABLE ul;
-- NULL and empty names are NULL.
SELECT GET_LOCK(NULL, 1), GET_LOCK('', 1), IS_FREE_LOCK(NULL), IS_FREE_LOCK(''), IS_USED_LOCK(NULL), RELEASE_LOCK(NULL), RELEASE_LOCK('');
-- Timeouts: seconds as a DOUBLE; NULL or negative is NULL with warning 1411.
SELECT GET_LOCK('t1', 0.5), GET_LOCK('t2', '2'), GET_LOCK('t3', 1e0), GET_LOCK('t4', -0.5);
SELECT GET_LOCK('t5', NULL);
SHOW WARNINGS;
SELECT GET_LOCK('t6', -1);
SHOW WARNINGS;
SELECT GET_LOCK('t7', 1e300), GET_LOCK('t8', -1.5);
SHOW WARNINGS;
SELECT GET_LOCK('t9', 'x');
SHOW WARNINGS;
SELECT RELEASE_ALL_LOCKS();
-- Names of 192 bytes are the longest.
SELECT GET_LOCK(REPEAT('a', 192), 0), RELEASE_LOCK(REPEAT('a', 192));
SELECT GET_LOCK(REPEAT('é', 96), 0), RELEASE_LOCK(REPEAT('é', 96));
SELECT GET_LOCK(REPEAT('a', 193), 0);
SELECT IS_FREE_LOCK(REPEAT('é', 97));
SELECT RELEASE_LOCK(REPEAT('b', 300));
-- A number or a time is no lock name.
SELECT GET_LOCK(5, 0);
SELECT IS_FREE_LOCK(1.5);
SELECT IS_USED_LOCK(1e0);
SELECT RELEASE_LOCK(DATE '2020-01-01');
CREATE TABLE ul2 (n INT, d DATETIME, s VARCHAR(10));
INSERT INTO ul2 VALUES (1, '2020-01-01 00:00:00', 'row');
SELECT GET_LOCK(n, 0) FROM ul2;
SELECT GET_LOCK(d, 0) FROM ul2;
SELECT GET_LOCK(s, 0), RELEASE_LOCK(s) FROM ul2;
DROP TABLE ul2;
-- Wrong argument counts.
SELECT GET_LOCK('a');
SELECT RELEASE_ALL_LOCKS(1);
SELECT IS_FREE_LOCK();
