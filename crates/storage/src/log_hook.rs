//! The durability hook: how committed changes and DDL reach the write-ahead log.
//!
//! Storage does no I/O (crate doc); the `wal` crate implements `CommitLog` and the server
//! attaches it with `Storage::attach_log` once recovery has rebuilt the tables.
//!
//! Invariants:
//! (1) A commit's record is appended under `Storage::commit_order` after its timestamp is
//!     chosen and before any version is stamped, so log order is commit order and nothing
//!     becomes visible that the log has not accepted. If the append fails the transaction
//!     rolls back as if it never committed.
//! (2) DDL appends under `Storage::ddl` and `commit_order`, between the same commits it is
//!     ordered between in memory; if the append fails the catalog change is undone.
//! (3) Only changes to rows of tables that are current at commit time are logged: a write
//!     through a table that DDL replaced meanwhile went to rows no reader can see, and
//!     replaying it would put it into the new table. DDL that takes rows out of the catalog
//!     waits for the transactions holding them (catalog invariant (8)), so this drops
//!     nothing while that holds; it keeps the log right should it not.
//! (4) The highest LSN appended on a thread is kept in a thread-local until
//!     `take_commit_lsn`, so the connection that ran the statement waits for exactly what
//!     it wrote before acknowledging it.

use crate::catalog::{
    ForeignKeySchema, IndexSchema, RoutineKind, RoutineSchema, Table, TableSchema, TriggerSchema,
    ViewSchema,
};
use crate::StorageError;
use manycore_types::{Collation, Value};
use std::cell::Cell;
use std::sync::Arc;

/// One row written, deleted or replaced by a committed transaction (the last write of a
/// key in the transaction wins).
#[derive(Clone, Debug, PartialEq)]
pub struct RowChange {
    /// Database and table names, shared by every change to the same table (a commit
    /// encodes them once per run of changes, and decoding shares them likewise).
    pub db: Arc<str>,
    pub table: Arc<str>,
    /// The encoded primary key (`Table::primary_key`, or the hidden row id's 8 bytes).
    pub key: Vec<u8>,
    /// The full new row; None deletes the key.
    pub row: Option<Vec<Value>>,
}

impl RowChange {
    /// The change as `CommitLog::encode_commit` takes it.
    pub fn borrowed(&self) -> RowChangeRef<'_> {
        RowChangeRef {
            db: &self.db,
            table: &self.table,
            key: &self.key,
            row: self.row.as_deref(),
        }
    }
}

/// A `RowChange` borrowed from the committing transaction's own versions: a commit copies
/// each row once, into its log record, and allocates nothing else per change.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RowChangeRef<'a> {
    pub db: &'a str,
    pub table: &'a str,
    pub key: &'a [u8],
    pub row: Option<&'a [Value]>,
}

impl RowChangeRef<'_> {
    /// An owned copy (for logs that keep the changes rather than encode them).
    pub fn to_owned(&self) -> RowChange {
        RowChange {
            db: Arc::from(self.db),
            table: Arc::from(self.table),
            key: self.key.to_vec(),
            row: self.row.map(<[Value]>::to_vec),
        }
    }
}

/// A catalog change to log.
#[derive(Clone, Debug, PartialEq)]
pub enum DdlChange {
    CreateDatabase {
        name: String,
        collation: Collation,
    },
    AlterDatabase {
        name: String,
        collation: Collation,
    },
    DropDatabase {
        name: String,
    },
    CreateTable {
        db: String,
        schema: TableSchema,
        auto_increment: u64,
    },
    DropTable {
        db: String,
        name: String,
    },
    TruncateTable {
        db: String,
        name: String,
    },
    CreateIndex {
        db: String,
        table: String,
        index: IndexSchema,
    },
    DropIndex {
        db: String,
        table: String,
        name: String,
    },
    AutoIncrement {
        db: String,
        table: String,
        next: u64,
    },
    SetForeignKeys {
        db: String,
        table: String,
        foreign_keys: Vec<ForeignKeySchema>,
    },
    /// A table's CHECK constraints, all of them (replacing the previous set).
    CheckConstraints {
        db: String,
        table: String,
        checks: Vec<crate::CheckConstraint>,
    },
    /// CREATE [OR REPLACE] VIEW and ALTER VIEW: the view as it now is.
    CreateView {
        db: String,
        view: ViewSchema,
    },
    DropView {
        db: String,
        name: String,
    },
    /// CREATE [OR REPLACE] TRIGGER: the trigger as it now is (replay replaces one of its
    /// name). `position`: where FOLLOWS or PRECEDES put it in the database's trigger list
    /// (None: last, or in the place of the one it replaced).
    CreateTrigger {
        db: String,
        trigger: TriggerSchema,
        position: Option<u32>,
    },
    DropTrigger {
        db: String,
        name: String,
    },
    /// CREATE [OR REPLACE] PROCEDURE or FUNCTION: the routine as it now is (replay replaces
    /// one of its kind and name).
    CreateRoutine {
        db: String,
        routine: RoutineSchema,
    },
    /// DROP PROCEDURE or FUNCTION; `name` as the statement wrote it (compared without
    /// case: `routine_key`).
    DropRoutine {
        db: String,
        kind: RoutineKind,
        name: String,
    },
    /// ALTER TABLE: the table named by `schema` gets `schema` (with its foreign keys and
    /// CHECK constraints). `rows`: Some when it was rebuilt, with exactly these rows (the
    /// log may split them over several records); None when it keeps its rows. `followers`:
    /// other tables whose foreign keys follow a renamed column, with all their keys as
    /// they now are. One change, so replay has the whole ALTER or none of it.
    AlterTable {
        db: String,
        schema: TableSchema,
        auto_increment: u64,
        rows: Option<RebuiltRows>,
        followers: Vec<TableForeignKeys>,
    },
    /// RENAME TABLE (and ALTER TABLE ... RENAME): every pair of the statement, applied in
    /// order as one change (`Storage::rename_tables`). Foreign keys that follow a renamed
    /// parent are not listed: replaying the pairs on the same catalog makes the same
    /// change to them.
    RenameTables {
        renames: Vec<TableRename>,
    },
}

/// One pair of RENAME TABLE: the table (or view) `from_db`.`from` becomes `to_db`.`to`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableRename {
    pub from_db: String,
    pub from: String,
    pub to_db: String,
    pub to: String,
}

/// A table's foreign keys, all of them (replacing the ones it had).
#[derive(Clone, Debug, PartialEq)]
pub struct TableForeignKeys {
    pub db: String,
    pub table: String,
    pub foreign_keys: Vec<ForeignKeySchema>,
}

/// The rows of a table ALTER TABLE rebuilt, read from the new table itself while the
/// change is appended (no second copy of the table is made for the log). The table is
/// not in the catalog yet, so nothing else writes it meanwhile.
#[derive(Clone)]
pub struct RebuiltRows(pub(crate) Arc<Table>);

impl RebuiltRows {
    /// Calls `f` with each row's primary key and values, in key order, until it fails.
    pub fn try_for_each<E>(
        &self,
        f: impl FnMut(&[u8], &[Value]) -> Result<(), E>,
    ) -> Result<(), E> {
        self.0.try_for_each_committed_row(f)
    }

    /// An owned copy (for logs that keep changes rather than encode them).
    pub fn to_vec(&self) -> Vec<(Box<[u8]>, manycore_types::Row)> {
        let mut rows = Vec::new();
        let _ = self.try_for_each(|key, row| {
            rows.push((Box::from(key), Box::from(row)));
            Ok::<(), ()>(())
        });
        rows
    }
}

impl std::fmt::Debug for RebuiltRows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RebuiltRows({})", self.0.schema.name)
    }
}

/// The same table's rows (a change compared with itself).
impl PartialEq for RebuiltRows {
    fn eq(&self, other: &RebuiltRows) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// A commit record encoded outside any lock; the log patches the commit timestamp in.
pub struct EncodedCommit(pub Vec<u8>);

/// The write-ahead log as storage sees it. Errors are `StorageError::LogDiskFull` or
/// `StorageError::LogFailed` (and `TransactionTooLarge` from `encode_commit`).
pub trait CommitLog: Send + Sync {
    /// Encodes a commit of `changes` (no lock held; may be slow); `TransactionTooLarge`
    /// if they exceed one record.
    fn encode_commit(&self, changes: &[RowChangeRef<'_>]) -> Result<EncodedCommit, StorageError>;
    /// Appends it with `commit_ts` and returns its LSN. Called under `commit_order`: must
    /// not do I/O.
    fn append_commit(
        &self,
        record: &mut EncodedCommit,
        commit_ts: u64,
    ) -> Result<u64, StorageError>;
    /// Appends a catalog change and returns its LSN.
    fn append_ddl(&self, change: &DdlChange) -> Result<u64, StorageError>;
    /// Err once the log refuses commits for good (after an fsync failure).
    fn check_writable(&self) -> Result<(), StorageError>;
}

thread_local! {
    static COMMIT_LSN: Cell<u64> = const { Cell::new(0) };
}

/// Notes that this thread appended `lsn` (invariant (4)).
pub(crate) fn note_commit_lsn(lsn: u64) {
    COMMIT_LSN.with(|c| c.set(c.get().max(lsn)));
}

/// The highest LSN appended by commits and DDL on this thread since the last call, if any.
/// The server waits for it to be durable before acknowledging the statement.
pub fn take_commit_lsn() -> Option<u64> {
    let lsn = COMMIT_LSN.with(|c| c.replace(0));
    (lsn != 0).then_some(lsn)
}
