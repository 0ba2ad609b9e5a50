//! Temporary tables (CREATE TEMPORARY TABLE): a session's own tables, which no other
//! session sees, which are never logged, and which go when the session ends.
//!
//! Invariants:
//! (1) A temporary table is a `storage::Storage::temporary_table`: rows, indexes,
//!     transactions and row locks as any table's, in no catalog, its commits not logged
//!     (storage catalog invariant (11)). Its creation and drop are not transactional, as
//!     in MariaDB: neither commits the session's transaction nor is undone by ROLLBACK;
//!     the rows written to it are. A READ ONLY transaction may write its rows, but not
//!     create or drop it (1792).
//! (2) A name resolves to the session's temporary table of that database and name before
//!     a table or view of the catalog (which it hides): in `BindContext::table` and
//!     `view::find`, the places statements turn names into tables, and in the session's
//!     DDL and SHOW statements (`Session::lookup_table`). Once the
//!     session made it, no privilege is checked on it, as in MariaDB. A view's query never
//!     sees it (`BindContext::temporary` is `NONE` there); a stored program's body does.
//! (3) Every change of the set bumps `generation`, which is part of every plan's
//!     staleness check (`plan_cache::BindGeneration`): prepared statements, the text
//!     plan cache and bound procedures are bound again after it.

use manycore_storage::Table;
use std::collections::BTreeMap;
use std::sync::Arc;

/// One session's temporary tables, by (database, name).
#[derive(Default)]
pub struct TemporaryTables {
    tables: BTreeMap<(String, String), Arc<Table>>,
    generation: u64,
}

impl TemporaryTables {
    /// The empty set, for contexts no temporary table may reach (invariant (2)).
    pub const NONE: &'static TemporaryTables = &TemporaryTables {
        tables: BTreeMap::new(),
        generation: 0,
    };

    pub fn get(&self, db: &str, name: &str) -> Option<&Arc<Table>> {
        if self.tables.is_empty() {
            return None; // The common case: no key to build.
        }
        self.tables.get(&(db.to_string(), name.to_string()))
    }

    /// Adds `table` as `db`.`name`; false (and nothing changes) if the name is taken.
    pub fn insert(&mut self, db: &str, table: Arc<Table>) -> bool {
        let key = (db.to_string(), table.schema.name.clone());
        if self.tables.contains_key(&key) {
            return false;
        }
        self.tables.insert(key, table);
        self.generation += 1;
        true
    }

    /// Replaces the table of that name (TRUNCATE gives it new, empty rows).
    pub fn replace(&mut self, db: &str, table: Arc<Table>) {
        let key = (db.to_string(), table.schema.name.clone());
        let old = self.tables.insert(key, table);
        assert!(
            old.is_some(),
            "replaced a temporary table that was not there"
        );
        self.generation += 1;
    }

    pub fn remove(&mut self, db: &str, name: &str) -> Option<Arc<Table>> {
        let removed = self.tables.remove(&(db.to_string(), name.to_string()));
        if removed.is_some() {
            self.generation += 1;
        }
        removed
    }

    /// The (database, name) of every table.
    pub fn names(&self) -> impl Iterator<Item = &(String, String)> {
        self.tables.keys()
    }

    pub fn generation(&self) -> u64 {
        self.generation
    }
}
