//! Storage from the log and the log from storage: replaying records into a fresh
//! `Storage` at startup, and writing a checkpoint of a consistent snapshot while serving.
//!
//! Invariants:
//! (1) Replay applies records in LSN order through storage's recovery entry points and
//!     stops at the first record storage rejects: startup then fails naming its LSN, rather
//!     than serving a state the log does not describe.
//! (2) A checkpoint at C holds the catalog and rows visible to a snapshot taken with C
//!     under storage's `ddl` and `commit_order` (storage recovery invariant (3)), so it
//!     equals the replay of every record <= C.

use crate::checkpoint::CheckpointReport;
use crate::hook::ddl_record;
use crate::record::LogRecord;
use crate::{Lsn, Wal, WalError};
use manycore_storage::{
    DdlChange, IndexNo, KeyRange, ReaderSlot, Storage, StorageError, TableSchema,
};
use std::ops::ControlFlow;
use std::sync::Arc;

/// Applies recovered records to a fresh storage (before a log is attached).
pub struct Replayer {
    storage: Arc<Storage>,
    reader: ReaderSlot,
    /// The first failure (invariant (1)); later records are ignored.
    pub error: Option<String>,
    /// Row changes to tables that no longer existed (a write that raced a DROP).
    pub skipped_changes: usize,
}

impl Replayer {
    pub fn new(storage: Arc<Storage>) -> Replayer {
        let reader = storage.register_reader();
        Replayer {
            storage,
            reader,
            error: None,
            skipped_changes: 0,
        }
    }

    /// The closure argument of `Wal::open`.
    pub fn apply(&mut self, lsn: Lsn, record: LogRecord) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self.apply_record(record) {
            self.error = Some(format!("replaying log record {}: {e}", lsn.0));
        }
    }

    fn apply_record(&mut self, record: LogRecord) -> Result<(), StorageError> {
        let s = &self.storage;
        match record {
            LogRecord::CreateDatabase { name } => s.create_database(&name, false).map(drop),
            LogRecord::DropDatabase { name } => s.drop_database(&name, false).map(drop),
            LogRecord::CreateTable {
                db,
                schema,
                auto_increment,
            } => {
                let name = schema.name.clone();
                s.create_table(&db, schema, false)?;
                s.set_auto_increment(&db, &name, auto_increment)
            }
            LogRecord::DropTable { db, name } => s.drop_table(&db, &name, false).map(drop),
            LogRecord::TruncateTable { db, name } => s.truncate_table(&db, &name),
            LogRecord::CreateIndex { db, table, index } => s.create_index(&db, &table, index),
            LogRecord::DropIndex { db, table, name } => s.drop_index(&db, &table, &name),
            LogRecord::AutoIncrement { db, table, next } => s.set_auto_increment(&db, &table, next),
            LogRecord::Commit { changes, .. } => {
                self.skipped_changes += s.apply_recovered_commit(&self.reader, &changes)?;
                Ok(())
            }
            LogRecord::TableRows { db, table, rows } => {
                s.apply_recovered_rows(&self.reader, &db, &table, &rows)
            }
        }
    }
}

/// Writes a checkpoint of `storage` as of now (invariant (2)) and drops the log before it.
/// Returns None if nothing was logged since `previous` (the last checkpoint's LSN).
pub fn write_checkpoint(
    wal: &Wal,
    storage: &Arc<Storage>,
    reader: &ReaderSlot,
    previous: Lsn,
) -> Result<Option<CheckpointReport>, WalError> {
    let snapshot = storage.checkpoint_snapshot(reader, || wal.last_lsn().0);
    let lsn = Lsn(snapshot.lsn);
    if lsn == previous {
        return Ok(None);
    }
    let mut writer = wal.begin_checkpoint(lsn)?;
    let catalog = &snapshot.catalog;
    for (name, database) in &catalog.databases {
        let name = name.clone();
        writer.write(&LogRecord::CreateDatabase { name })?;
        for table in database.tables.values() {
            let change = DdlChange::CreateTable {
                db: database.name.clone(),
                schema: TableSchema::clone(&table.schema),
                auto_increment: table.auto_increment(),
            };
            writer.write(&ddl_record(&change))?;
        }
    }
    let view = snapshot.transaction.view();
    for database in catalog.databases.values() {
        for table in database.tables.values() {
            let mut failed = None;
            table.scan(
                &view,
                IndexNo::Primary,
                &KeyRange::all(),
                |slot, row| match writer.write_row(
                    &database.name,
                    &table.schema.name,
                    slot.key(),
                    row,
                ) {
                    Ok(()) => ControlFlow::Continue(()),
                    Err(e) => {
                        failed = Some(e);
                        ControlFlow::Break(())
                    }
                },
            );
            if let Some(e) = failed {
                return Err(e);
            }
        }
    }
    drop(snapshot.transaction); // Unpins garbage collection.
    writer.finish().map(Some)
}
