-- CHECK, ANALYZE, OPTIMIZE and REPAIR TABLE (what mariadb-check sends): one result set
-- with a row or two per named table, in the order named. A missing table or a view
-- where a base table is needed is reported in its rows, and the other tables are still
-- done; a missing database name, a table named twice or a missing privilege is an error
-- of the whole statement. OPTIMIZE of a base table is checked in the sql crate's tests:
-- manycore does not rebuild the table, so it does not say it does as MariaDB does.

CREATE TABLE kept (id INT PRIMARY KEY, v VARCHAR(20), n INT, UNIQUE KEY (n), KEY (v));
INSERT INTO kept VALUES (1, 'a', 10), (2, 'b', 20), (3, NULL, NULL), (4, 'é', 40);
UPDATE kept SET v = 'c', n = 30 WHERE id = 2;
DELETE FROM kept WHERE id = 1;
CREATE TABLE no_key (v INT);
INSERT INTO no_key VALUES (1), (1), (NULL);
CREATE VIEW seen AS SELECT id, v FROM kept;

-- CHECK reads every row through every index.
CHECK TABLE kept;
CHECK TABLE kept, no_key;
CHECK TABLES kept;
CHECK TABLE kept QUICK;
CHECK TABLE kept FAST MEDIUM EXTENDED CHANGED;
CHECK TABLE kept FOR UPGRADE;
-- Missing tables, other databases, case, views.
CHECK TABLE missing;
CHECK TABLE kept, missing, no_key;
CHECK TABLE Kept;
CHECK TABLE no_such_db.kept;
CHECK TABLE seen;
CHECK TABLE information_schema.tables;
-- Errors of the whole statement.
CHECK TABLE kept, kept;
CHECK TABLE kept, missing, missing;
CHECK TABLE;
CHECK TABLE kept WITH ROLLUP;
-- ANALYZE: the planner keeps no statistics; the answer is InnoDB's.
ANALYZE TABLE kept;
ANALYZE LOCAL TABLE kept, no_key;
ANALYZE NO_WRITE_TO_BINLOG TABLE kept, missing;
ANALYZE TABLE seen;
ANALYZE TABLE information_schema.tables;
ANALYZE TABLE kept, kept;
-- OPTIMIZE and REPAIR of what is not a base table.
OPTIMIZE TABLE missing;
OPTIMIZE LOCAL TABLE seen;
OPTIMIZE TABLE information_schema.tables;
-- REPAIR: the engine repairs nothing.
REPAIR TABLE kept;
REPAIR NO_WRITE_TO_BINLOG TABLE kept, missing, seen;
REPAIR TABLE kept QUICK EXTENDED USE_FRM;
-- The rows are as they were.
SELECT * FROM kept ORDER BY id;
SELECT COUNT(*) FROM no_key;
-- CHECK of a view binds it: once its table is gone, the error that made it invalid, the
-- 1356 and Corrupt (for a view reading that view too); back to OK once it binds again.
CREATE TABLE base (id INT, v INT);
CREATE VIEW over_base AS SELECT id, v FROM base;
CREATE VIEW over_view AS SELECT * FROM over_base;
CHECK TABLE over_base, over_view;
DROP TABLE base;
CHECK TABLE over_base;
CHECK TABLE over_view, kept;
ANALYZE TABLE over_base;
CREATE TABLE base (id INT, v INT, w INT);
CHECK TABLE over_view, over_base EXTENDED;
DROP VIEW over_view, over_base;
DROP TABLE base;
DROP VIEW seen;
DROP TABLE kept, no_key;
