//! `Wal` as storage's `CommitLog`: storage appends commits and DDL through this, under its
//! own commit-order mutex (invariant (2) of the crate).
//!
//! Invariants:
//! (1) Nothing here does I/O: `append` copies into the log writer's batch.
//! (2) `WalError::DiskFull` maps to `StorageError::LogDiskFull` (MySQL 1021); every other
//!     error to `StorageError::LogFailed` (MySQL 3).

use crate::record::{encode_commit, EncodedRecord, LogRecord};
use crate::{Wal, WalError};
use manycore_storage::{CommitLog, DdlChange, EncodedCommit, RowChangeRef, StorageError};

pub fn storage_error(e: WalError) -> StorageError {
    match e {
        WalError::DiskFull(m) => StorageError::LogDiskFull(m),
        other => StorageError::LogFailed(other.to_string()),
    }
}

/// The log record of a catalog change.
pub fn ddl_record(change: &DdlChange) -> LogRecord {
    match change.clone() {
        DdlChange::CreateDatabase { name } => LogRecord::CreateDatabase { name },
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
        DdlChange::RebuildTable {
            db,
            schema,
            rows,
            auto_increment,
        } => LogRecord::RebuildTable {
            db,
            schema,
            auto_increment,
            rows: rows
                .into_iter()
                .map(|(key, row)| (key.into_vec(), row.into_vec()))
                .collect(),
        },
    }
}

impl CommitLog for Wal {
    fn encode_commit(&self, changes: &[RowChangeRef<'_>]) -> EncodedCommit {
        EncodedCommit(encode_commit(0, changes).into_payload())
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
        let encoded = ddl_record(change).encode();
        self.append(&encoded)
            .map(|lsn| lsn.0)
            .map_err(storage_error)
    }

    fn check_writable(&self) -> Result<(), StorageError> {
        Wal::check_writable(self).map_err(storage_error)
    }
}
