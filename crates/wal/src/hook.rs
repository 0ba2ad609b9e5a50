//! `Wal` as storage's `CommitLog`: storage appends commits and DDL through this, under its
//! own commit-order mutex (invariant (2) of the crate).
//!
//! Invariants:
//! (1) Nothing here does I/O: `append` copies into the log writer's batch. A rebuilt
//!     table's rows are the exception: they wait for the writer to drain the batch
//!     (`append_rebuilt`).
//! (2) `WalError::DiskFull` maps to `StorageError::LogDiskFull` (MySQL 1021); every other
//!     error to `StorageError::LogFailed` (MySQL 3).

use crate::record::{
    encode_commit, AlterRowsEncoder, EncodedRecord, LogRecord, RECORD_PAYLOAD_MAX,
};
use crate::{Wal, WalError, APPEND_BACKLOG_BYTES_MAX};
use manycore_storage::{
    CommitLog, DdlChange, EncodedCommit, RebuiltRows, RowChangeRef, StorageError,
};

pub fn storage_error(e: WalError) -> StorageError {
    match e {
        WalError::DiskFull(m) => StorageError::LogDiskFull(m),
        other => StorageError::LogFailed(other.to_string()),
    }
}

/// The log record of a catalog change.
pub fn ddl_record(change: &DdlChange) -> LogRecord {
    match change.clone() {
        DdlChange::CreateDatabase { name, collation } => {
            LogRecord::CreateDatabase { name, collation }
        }
        DdlChange::AlterDatabase { name, collation } => {
            LogRecord::AlterDatabase { name, collation }
        }
        DdlChange::DropDatabase { name } => LogRecord::DropDatabase { name },
        DdlChange::CreateTable {
            db,
            schema,
            auto_increment,
        } => LogRecord::CreateTable {
            db,
            schema,
            auto_increment,
        },
        DdlChange::DropTable { db, name } => LogRecord::DropTable { db, name },
        DdlChange::TruncateTable { db, name } => LogRecord::TruncateTable { db, name },
        DdlChange::CreateIndex { db, table, index } => LogRecord::CreateIndex { db, table, index },
        DdlChange::DropIndex { db, table, name } => LogRecord::DropIndex { db, table, name },
        DdlChange::AutoIncrement { db, table, next } => {
            LogRecord::AutoIncrement { db, table, next }
        }
        DdlChange::SetForeignKeys {
            db,
            table,
            foreign_keys,
        } => LogRecord::SetForeignKeys {
            db,
            table,
            foreign_keys,
        },
        DdlChange::CheckConstraints { db, table, checks } => {
            LogRecord::CheckConstraints { db, table, checks }
        }
        DdlChange::CreateView { db, view } => LogRecord::CreateView { db, view },
        DdlChange::DropView { db, name } => LogRecord::DropView { db, name },
        DdlChange::CreateTrigger {
            db,
            trigger,
            position,
        } => LogRecord::CreateTrigger {
            db,
            trigger,
            position,
        },
        DdlChange::DropTrigger { db, name } => LogRecord::DropTrigger { db, name },
        DdlChange::CreateRoutine { db, routine } => LogRecord::CreateRoutine { db, routine },
        DdlChange::DropRoutine { db, kind, name } => LogRecord::DropRoutine { db, kind, name },
        DdlChange::AlterTable {
            db,
            schema,
            auto_increment,
            rows,
            followers,
        } => LogRecord::AlterTable {
            db,
            schema,
            auto_increment,
            followers,
            rows_follow: rows.is_some(),
        },
        DdlChange::RenameTables { renames } => LogRecord::RenameTables { renames },
    }
}

impl Wal {
    /// Appends a rebuilt table's ALTER: `head` (its AlterTable record), its rows in
    /// AlterRows records, then AlterEnd, whose LSN it returns (record.rs). A table can be
    /// far larger than the append backlog, so this waits for the writer whenever the
    /// backlog passes half of it (log invariant (3)); storage holds `commit_order`
    /// meanwhile, so commits wait behind the ALTER, as behind MariaDB's table copy.
    fn append_rebuilt(
        &self,
        head: &LogRecord,
        db: &str,
        table: &str,
        rows: &RebuiltRows,
    ) -> Result<u64, WalError> {
        let append_row_record = |record: &EncodedRecord| {
            if self.shared.backlog_bytes() > APPEND_BACKLOG_BYTES_MAX / 2 {
                self.flush()?;
            }
            self.append(record).map(drop)
        };
        self.append(&head.encode())?;
        let mut encoder = AlterRowsEncoder::new(db, table);
        rows.try_for_each(|key, row| match encoder.push(key, row) {
            Some(record) => append_row_record(&record),
            None => Ok(()),
        })?;
        if let Some(record) = encoder.take() {
            append_row_record(&record)?;
        }
        let end = LogRecord::AlterEnd {
            db: db.to_string(),
            table: table.to_string(),
        };
        self.append(&end.encode()).map(|lsn| lsn.0)
    }
}

impl CommitLog for Wal {
    fn encode_commit(&self, changes: &[RowChangeRef<'_>]) -> Result<EncodedCommit, StorageError> {
        match encode_commit(0, changes) {
            Ok(encoded) => Ok(EncodedCommit(encoded.into_payload())),
            Err(bytes) => Err(StorageError::TransactionTooLarge {
                bytes,
                limit: RECORD_PAYLOAD_MAX,
            }),
        }
    }

    fn append_commit(
        &self,
        record: &mut EncodedCommit,
        commit_ts: u64,
    ) -> Result<u64, StorageError> {
        let mut encoded = EncodedRecord::from_payload(std::mem::take(&mut record.0));
        encoded.set_commit_ts(commit_ts);
        let appended = self.append(&encoded);
        record.0 = encoded.into_payload();
        appended.map(|lsn| lsn.0).map_err(storage_error)
    }

    fn append_ddl(&self, change: &DdlChange) -> Result<u64, StorageError> {
        let record = ddl_record(change);
        match change {
            DdlChange::AlterTable {
                db,
                schema,
                rows: Some(rows),
                ..
            } => self.append_rebuilt(&record, db, &schema.name, rows),
            _ => self.append(&record.encode()).map(|lsn| lsn.0),
        }
        .map_err(storage_error)
    }

    fn check_writable(&self) -> Result<(), StorageError> {
        Wal::check_writable(self).map_err(storage_error)
    }
}
