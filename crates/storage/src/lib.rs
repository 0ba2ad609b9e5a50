//! In-memory tables with multi-version concurrency control.
//!
//! Owns: the catalog (databases, table schemas), rows and their versions, primary and
//! secondary indexes, transactions, the commit clock and garbage collection of old
//! versions. Knows no SQL text, no sockets and no files (durability is the `wal` crate's,
//! which observes commits and DDL through the `CommitLog` hook, see `log_hook`).
//!
//! Definitions:
//! - The *clock* is the timestamp of the newest committed transaction.
//! - A *snapshot* is a clock value; a version is visible to it if the version committed at
//!   or before it, or belongs to the reading transaction itself.
//! - A *slot* holds the versions of one primary key, newest first.
//!
//! Invariants:
//! (1) Taking a snapshot is one atomic load of the clock (plus a store to the reader's own
//!     registration slot, which no other thread writes).
//! (2) A transaction's versions become visible atomically: they are stamped with the commit
//!     timestamp before the clock is advanced to it, and commits advance the clock in order.
//! (3) At most one transaction has uncommitted versions in a slot (the slot's write lock);
//!     a second writer gets `StorageError::WriteConflict` at once, never waits (no deadlocks).
//!     A writer only waits out the collector's brief hold on a slot, and the collector waits
//!     for nothing while it holds one.
//! (4) A version that no active snapshot can see is unreachable after the next write to its
//!     slot (chains are cut below the newest version visible to the oldest snapshot).
//! (5) Index reads take no lock: skip-list traversal or a hash lookup under an epoch pin,
//!     and version-chain loads (`sync::ArcCell`, also under an epoch pin) only (see
//!     `index`, `slot`).

mod catalog;
mod gc;
mod index;
mod lock_wait;
mod log_hook;
mod recovery;
mod slot;
mod transaction;

pub use catalog::{
    routine_key, Catalog, CheckConstraint, ColumnSchema, Database, ForeignKeySchema, FulltextIndex,
    GeneratedColumn, IndexSchema, ReferentialAction, RoutineKind, RoutineSchema, RowConversion,
    RowFormat, Table, TableId, TableOptions, TableSchema, TriggerPlace, TriggerSchema, ViewSchema,
};
pub use gc::ReaderSlot;
pub use index::{IndexNo, KeyRange};
pub use lock_wait::LockWait;
pub use log_hook::{
    take_commit_lsn, CommitLog, DdlChange, EncodedCommit, RebuiltRows, RowChange, RowChangeRef,
    TableForeignKeys, TableRename,
};
pub use recovery::{CheckpointSnapshot, RecoveryBatch};
pub use slot::RowSlot;
pub use transaction::{ReadView, Savepoint, Transaction};

use std::fmt;

/// What can go wrong inside storage; the SQL layer maps these to MySQL errors.
#[derive(Debug, Clone)]
pub enum StorageError {
    /// A unique index already holds this key. `index` is the index that rejected it
    /// (`IndexNo::PRIMARY` for the primary key) and `existing` the row that owns the key,
    /// so INSERT ... ON DUPLICATE KEY UPDATE and REPLACE can act on it.
    DuplicateKey {
        index: IndexNo,
        existing: std::sync::Arc<RowSlot>,
    },
    /// The table changed under the statement (DDL replaced it): retry the transaction.
    WriteConflict,
    /// Another transaction (`holder`) holds the row, or (`holder` 0) the row changed after
    /// the statement's write view was taken. The caller undoes the statement to its
    /// savepoint, waits (`Transaction::prepare_lock_wait`), refreshes the write view and
    /// runs the statement again.
    LockWait {
        holder: u64,
    },
    /// Waiting for `LockWait::holder` would close a cycle of waiting transactions.
    Deadlock,
    DatabaseExists(String),
    NoSuchDatabase(String),
    TableExists(String),
    NoSuchTable(String),
    DuplicateIndexName(String),
    NoSuchIndex(String),
    /// Transaction `holder` holds a row of a table that ALTER TABLE would rebuild, RENAME
    /// TABLE rename, TRUNCATE empty or DROP TABLE or DROP DATABASE drop (catalog invariant
    /// (8)): the caller waits for it to end (`Storage::wait_for_transaction`) and tries
    /// again, as MariaDB waits for the table's metadata lock.
    TableBusy {
        holder: u64,
    },
    /// RENAME TABLE would move view `view` from database `from` to `to` (MariaDB's 1450:
    /// a view's query is bound in its own database).
    ViewAcrossDatabases {
        view: String,
        from: String,
        to: String,
    },
    /// The log could not take the commit because the disk is full (MySQL 1021). The
    /// transaction rolled back; later commits succeed once space is freed.
    LogDiskFull(String),
    /// The log failed (write or fsync error) and refuses commits until restart (MySQL 3).
    LogFailed(String),
    /// A transaction's changes encode to `bytes`, more than one log record takes
    /// (`limit`). It rolled back (MySQL 1197, as MariaDB's binary log cache limit).
    TransactionTooLarge {
        bytes: usize,
        limit: usize,
    },
}

impl fmt::Display for StorageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StorageError::DuplicateKey { index, .. } => write!(f, "duplicate key in {index:?}"),
            StorageError::WriteConflict => write!(f, "write conflict"),
            StorageError::LockWait { holder } => write!(f, "row locked by transaction {holder}"),
            StorageError::Deadlock => write!(f, "deadlock"),
            StorageError::DatabaseExists(d) => write!(f, "database {d} exists"),
            StorageError::NoSuchDatabase(d) => write!(f, "no database {d}"),
            StorageError::TableExists(t) => write!(f, "table {t} exists"),
            StorageError::NoSuchTable(t) => write!(f, "no table {t}"),
            StorageError::DuplicateIndexName(i) => write!(f, "index {i} exists"),
            StorageError::NoSuchIndex(i) => write!(f, "no index {i}"),
            StorageError::TableBusy { holder } => {
                write!(f, "a row of the table is held by transaction {holder}")
            }
            StorageError::ViewAcrossDatabases { view, from, to } => {
                write!(f, "view {view} cannot move from database {from} to {to}")
            }
            StorageError::LogDiskFull(m) => write!(f, "log disk full: {m}"),
            StorageError::LogFailed(m) => write!(f, "log failed: {m}"),
            StorageError::TransactionTooLarge { bytes, limit } => {
                write!(f, "a transaction of {bytes} log bytes exceeds {limit}")
            }
        }
    }
}

impl std::error::Error for StorageError {}

pub use catalog::Storage;
