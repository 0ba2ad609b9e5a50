//! Running the statements that make, drop and name temporary tables (`crate::temporary`
//! holds the set and its rules). CREATE TEMPORARY TABLE and DROP TEMPORARY TABLE do not
//! commit the open transaction (an exception to session invariant (2), as in MariaDB);
//! DROP TABLE and TRUNCATE of one do, as any DDL.

use super::{storage_error, Session, StatementOutcome};
use crate::error::{Error, ErrorCode, Result};
use crate::privilege::Privileges;
use crate::scope::Parameters;
use manycore_storage::{StorageError, Table, TableRename, TableSchema};
use manycore_types::Value;
use sqlparser::ast;
use std::collections::BTreeSet;
use std::sync::Arc;

impl Session {
    /// CREATE TEMPORARY TABLE [IF NOT EXISTS] name (definitions) | LIKE source |
    /// [(definitions)] SELECT ...: needs CREATE TEMPORARY TABLES on the database, which,
    /// as in MariaDB, need not exist. The name is checked against the session's temporary
    /// tables only: it may hide a table or view of the catalog. As in MariaDB, a READ ONLY
    /// transaction refuses it (1792), and DROP TEMPORARY TABLE, though not writes of its
    /// rows.
    pub(super) fn create_temporary_table(
        &mut self,
        create: &ast::CreateTable,
        text: &str,
        params: &[Value],
        parameters: &Parameters,
    ) -> Result<StatementOutcome> {
        self.check_temporary_ddl_allowed()?;
        crate::storage_engine::check_create(create)?;
        let (db, name) = crate::ddl::split_name(&create.name)?;
        let db = self.require_db(db)?;
        self.state
            .access()
            .database(&db, Privileges::CREATE_TMP_TABLE)?;
        if self.state.temporary.get(&db, &name).is_some() {
            if create.if_not_exists {
                let note = storage_error(StorageError::TableExists(name));
                self.state.note(note.code, note.message);
                return Ok(StatementOutcome::ok());
            }
            return Err(storage_error(StorageError::TableExists(name)));
        }
        if create.query.is_some() {
            return self.create_table_select(create, text, params, parameters, true);
        }
        let catalog = self.engine.storage().catalog();
        let definition = match &create.like {
            Some(
                ast::CreateTableLikeKind::Plain(like)
                | ast::CreateTableLikeKind::Parenthesized(like),
            ) => {
                let (_, source) = self.lookup_table(&like.name, Some(Privileges::SELECT))?;
                crate::ddl::like_definition(&name, &source)?
            }
            None => {
                let collation = crate::ddl::database_collation(&catalog, &db);
                crate::ddl::table_definition(create, &db, collation, &self.state)?
            }
        };
        check_temporary_schema(&db, &definition.schema)?;
        self.add_temporary_table(&db, definition);
        Ok(StatementOutcome::ok())
    }

    /// Makes the temporary table `definition` describes and adds it to the session's.
    pub(super) fn add_temporary_table(
        &mut self,
        db: &str,
        definition: crate::ddl::TableDefinition,
    ) -> Arc<Table> {
        let table = self.engine.storage().temporary_table(db, definition.schema);
        if let Some(start) = definition.auto_increment_start {
            table.set_auto_increment(start.max(1));
        }
        let added = self.state.temporary.insert(db, Arc::clone(&table));
        assert!(added, "the name was checked free");
        table
    }

    /// DROP TEMPORARY TABLE [IF EXISTS]: only the session's temporary tables; the ones named
    /// are dropped even when another name is unknown (1051, a note with IF EXISTS).
    pub(super) fn drop_temporary_tables(
        &mut self,
        names: &[ast::ObjectName],
        if_exists: bool,
    ) -> Result<StatementOutcome> {
        self.check_temporary_ddl_allowed()?;
        let mut unknown = Vec::new();
        for name in names {
            let (db, table) = crate::ddl::split_name(name)?;
            let db = self.require_db(db)?;
            if self.state.temporary.remove(&db, &table).is_none() {
                unknown.push(format!("{db}.{table}"));
            }
        }
        self.unknown_tables_dropped(&unknown, if_exists)?;
        Ok(StatementOutcome::ok())
    }

    /// DROP TABLE's part for temporary tables: drops the session's temporary table
    /// `db`.`table`, if there is one, before a table of the catalog (which it hides).
    pub(super) fn drop_temporary_table(&mut self, db: &str, table: &str) -> bool {
        self.state.temporary.remove(db, table).is_some()
    }

    /// The session's temporary table `db`.`table` is `table`.
    pub(super) fn is_temporary(&self, db: &str, table: &Arc<Table>) -> bool {
        self.state
            .temporary
            .get(db, &table.schema.name)
            .is_some_and(|t| Arc::ptr_eq(t, table))
    }

    /// Which pairs of a RENAME TABLE rename the session's temporary tables: each pair's old
    /// name is looked up among them as the pairs before it left them, so one statement may
    /// rename temporary and permanent tables together (the two sets of names are apart), as
    /// in MariaDB.
    pub(super) fn renames_temporary(&self, renames: &[TableRename]) -> Vec<bool> {
        let mut names: BTreeSet<(String, String)> = self.state.temporary.names().cloned().collect();
        let mut temporary = Vec::with_capacity(renames.len());
        for r in renames {
            let renamed = names.remove(&(r.from_db.clone(), r.from.clone()));
            if renamed {
                names.insert((r.to_db.clone(), r.to.clone()));
            }
            temporary.push(renamed);
        }
        temporary
    }

    /// RENAME TABLE (or ALTER TABLE ... RENAME) of temporary tables: the pairs in order, all
    /// or none; a target may hide a table of the catalog, not another temporary table
    /// (1050). Each old name is a temporary table when its turn comes (`renames_temporary`).
    pub(super) fn rename_temporary_tables(&mut self, renames: &[TableRename]) -> Result<()> {
        self.check_temporary_renames(renames)?;
        self.apply_temporary_renames(renames);
        Ok(())
    }

    /// 1050 for a pair of `renames` (temporary tables') whose new name a temporary table
    /// has when its turn comes.
    pub(super) fn check_temporary_renames(&self, renames: &[TableRename]) -> Result<()> {
        let mut names: BTreeSet<(String, String)> = self.state.temporary.names().cloned().collect();
        for r in renames {
            let renamed = names.remove(&(r.from_db.clone(), r.from.clone()));
            assert!(
                renamed,
                "a temporary table's rename of a name it does not have"
            );
            if !names.insert((r.to_db.clone(), r.to.clone())) {
                return Err(storage_error(StorageError::TableExists(r.to.clone())));
            }
        }
        Ok(())
    }

    /// Renames what `check_temporary_renames` passed.
    pub(super) fn apply_temporary_renames(&mut self, renames: &[TableRename]) {
        let storage = self.engine.storage().clone();
        for r in renames {
            let old = self.state.temporary.remove(&r.from_db, &r.from);
            let old = old.expect("checked by check_temporary_renames");
            let new = storage.rename_temporary_table(&old, &r.to_db, &r.to);
            let added = self.state.temporary.insert(&r.to_db, new);
            assert!(added, "checked by check_temporary_renames");
        }
    }

    /// CREATE and DROP TEMPORARY TABLE: 1792 in a READ ONLY transaction, which may still
    /// write a temporary table's rows (`writes_catalog_table`); allowed under LOCK TABLES
    /// ... READ (which runs as a READ ONLY transaction: `lock_tables`). As in MariaDB.
    fn check_temporary_ddl_allowed(&self) -> Result<()> {
        match self.tables_locked {
            true => Ok(()),
            false => self.check_not_read_only(),
        }
    }

    /// Whether a write to `table` is one a READ ONLY transaction (or LOCK TABLES ... READ)
    /// refuses: not to the session's temporary table, as in MariaDB.
    pub(super) fn writes_catalog_table(&self, table: &Arc<Table>) -> bool {
        !self.is_temporary(table.db(), table)
    }

    /// TRUNCATE of a temporary table: new, empty rows (AUTO_INCREMENT starts over).
    pub(super) fn truncate_temporary(&mut self, db: &str, table: &Table) {
        let schema = (*table.schema).clone();
        let empty = self.engine.storage().temporary_table(db, schema);
        self.state.temporary.replace(db, empty);
    }
}

/// What InnoDB refuses in a temporary table's definition: a FULLTEXT index (1796) or a
/// foreign key (`foreign_key_refused`).
pub(super) fn check_temporary_schema(db: &str, schema: &TableSchema) -> Result<()> {
    if !schema.fulltext_indexes.is_empty() {
        return Err(Error::new(
            ErrorCode::InnodbNoFtTempTable,
            "Cannot create FULLTEXT index on temporary InnoDB table",
        ));
    }
    if !schema.foreign_keys.is_empty() {
        return Err(foreign_key_refused(db, &schema.name));
    }
    Ok(())
}

/// A FOREIGN KEY in or to a temporary table: 1005 with errno 150, as InnoDB refuses it.
pub(super) fn foreign_key_refused(db: &str, table: &str) -> Error {
    Error::new(
        ErrorCode::CantCreateTable,
        format!(
            "Can't create table `{db}`.`{table}` (errno: 150 \"Foreign key constraint is incorrectly formed\")"
        ),
    )
}
