//! Entry points for durability: rebuilding tables from a checkpoint and the log at
//! startup, and taking a consistent snapshot for a checkpoint while serving.
//!
//! Recovery loads rows in bulk: the caller gathers the final image of each key per table
//! into a `RecoveryBatch` (between two catalog changes) and `apply_recovery_batch` installs
//! them as committed versions straight into the indexes, tables in parallel. Nothing else
//! runs during recovery, so there are no transactions, row locks, undo entries or
//! uniqueness checks: the log holds only commits that passed them.
//!
//! Invariants:
//! (1) Recovery runs before a log is attached (`attach_log` asserts it is set once), so
//!     replayed changes are not logged again and no reader or writer runs meanwhile.
//! (2) A replayed change leaves the key exactly as the log says (the full row or absent),
//!     maintaining secondary indexes, AUTO_INCREMENT (past every value present) and the
//!     hidden row id counter (past every hidden key present).
//! (3) A batch holds the changes made between two catalog changes, and is applied against
//!     the catalog it was gathered with (asserted): the caller applies it before the next
//!     DDL record. Within a table, a later change of a key wins; tables are independent.
//! (4) Recovered versions carry the clock's timestamp and no older versions, so every
//!     snapshot sees them; a deleted key leaves no slot and no index entry behind.
//! (5) `checkpoint_snapshot` reads the clock and the log's last LSN under `ddl` and
//!     `commit_order`, where commits and DDL append: every commit at or below that LSN is
//!     visible to the snapshot, no later one is, and the catalog is the one at that LSN.

use crate::catalog::{insert_sorted, Catalog, IndexEntry, Table};
use crate::gc::ReaderSlot;
use crate::slot::RowSlot;
use crate::transaction::Transaction;
use crate::{IndexNo, KeyRange};
use crate::{Storage, StorageError};
use manycore_types::{Row, Value};
use std::collections::HashSet;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// A consistent view for a checkpoint: read the rows of `catalog` with `transaction`.
pub struct CheckpointSnapshot {
    pub transaction: Transaction,
    pub catalog: Arc<Catalog>,
    /// The log position the snapshot corresponds to.
    pub lsn: u64,
}

/// Recovered row images gathered per table, to apply in bulk (invariant (3)).
pub struct RecoveryBatch {
    catalog: Arc<Catalog>,
    tables: Vec<TableChanges>,
    /// Position in `tables` of the table of the previous `push` (changes come in runs).
    last: Option<usize>,
}

struct TableChanges {
    table: Arc<Table>,
    /// (encoded primary key, final row or None for absent), in log order.
    changes: Vec<(Box<[u8]>, Option<Row>)>,
}

impl RecoveryBatch {
    /// Adds the image of `key` in `db`.`table` (None: absent). Returns false, adding
    /// nothing, if the table does not exist in the batch's catalog.
    pub fn push(&mut self, db: &str, table: &str, key: Vec<u8>, row: Option<Vec<Value>>) -> bool {
        let named = |t: &TableChanges| &*t.table.db == db && t.table.schema.name == table;
        let position = match self.last.filter(|&i| named(&self.tables[i])) {
            Some(i) => i,
            None => match self.tables.iter().position(named) {
                Some(i) => i,
                None => {
                    let Some(found) = self.catalog.table(db, table) else {
                        return false;
                    };
                    self.tables.push(TableChanges {
                        table: found.clone(),
                        changes: Vec::new(),
                    });
                    self.tables.len() - 1
                }
            },
        };
        self.last = Some(position);
        let row = row.map(Vec::into_boxed_slice);
        self.tables[position]
            .changes
            .push((key.into_boxed_slice(), row));
        true
    }

    /// Number of row images held.
    pub fn len(&self) -> usize {
        self.tables.iter().map(|t| t.changes.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.tables.iter().all(|t| t.changes.is_empty())
    }
}

impl Storage {
    /// An empty batch for the current catalog.
    pub fn recovery_batch(&self) -> RecoveryBatch {
        RecoveryBatch {
            catalog: self.catalog.load_full(),
            tables: Vec::new(),
            last: None,
        }
    }

    /// Installs a batch (invariants (2)-(4)), up to `threads` tables at a time. The first
    /// failure is returned; the storage is then unusable for serving (startup stops).
    pub fn apply_recovery_batch(
        &self,
        batch: RecoveryBatch,
        threads: usize,
    ) -> Result<(), StorageError> {
        assert!(
            self.log.get().is_none(),
            "recovery after the log was attached"
        );
        assert!(
            Arc::ptr_eq(&batch.catalog, &self.catalog.load()),
            "recovery batch applied after a catalog change"
        );
        let ts = self.clock();
        let mut tables = batch.tables;
        // Largest first, so one big table does not start last.
        tables.sort_by_key(|t| std::cmp::Reverse(t.changes.len()));
        let threads = threads.clamp(1, tables.len().max(1));
        if threads == 1 {
            return tables
                .into_iter()
                .try_for_each(|t| load_table(&t.table, t.changes, ts));
        }
        let work: Vec<parking_lot::Mutex<Option<TableChanges>>> = tables
            .into_iter()
            .map(|t| parking_lot::Mutex::new(Some(t)))
            .collect();
        let next = AtomicUsize::new(0);
        let worker = || -> Result<(), StorageError> {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(slot) = work.get(i) else {
                    return Ok(());
                };
                let t = slot.lock().take().expect("each table is taken once");
                load_table(&t.table, t.changes, ts)?;
            }
        };
        std::thread::scope(|scope| {
            let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(worker)).collect();
            let mut result = worker();
            for helper in helpers {
                let joined = helper.join().expect("recovery thread panicked");
                result = result.and(joined);
            }
            result
        })
    }

    /// A snapshot for a checkpoint with the log position it corresponds to; `last_lsn`
    /// is called under the locks (invariant (5)). The transaction pins garbage collection
    /// until dropped, as any long reader does.
    pub fn checkpoint_snapshot(
        self: &Arc<Self>,
        reader: &ReaderSlot,
        last_lsn: impl FnOnce() -> u64,
    ) -> CheckpointSnapshot {
        let _ddl = self.ddl.lock();
        let _order = self.commit_order.lock();
        let transaction = self.begin(reader);
        assert_eq!(
            transaction.view().snapshot,
            self.clock.load(Ordering::Acquire),
            "snapshot is not the clock"
        );
        CheckpointSnapshot {
            transaction,
            catalog: self.catalog.load_full(),
            lsn: last_lsn(),
        }
    }
}

/// Applies one table's changes (invariants (2), (4)): keys in order (a stable sort keeps
/// the last change of a key last), so keys past the table's largest need no lookup; new
/// secondary entries are sorted before insertion, since ordered inserts into a skip list
/// touch far fewer cache lines than random ones.
fn load_table(
    table: &Table,
    mut changes: Vec<(Box<[u8]>, Option<Row>)>,
    ts: u64,
) -> Result<(), StorageError> {
    changes.sort_by(|a, b| a.0.cmp(&b.0));
    let _pin = crate::index::pin(); // Makes the index calls' own pins cheap.
    let auto_increment = table.schema.auto_increment_column();
    let hidden = table.schema.primary_key.is_none();
    let mut highest_auto_increment = 0;
    let mut highest_row_id = None;
    let mut added: Vec<Vec<IndexEntry>> = vec![Vec::new(); table.secondary.len()];
    // A new row's secondary keys, computed before the row moves into its slot.
    let mut secondary_keys: Vec<Box<[u8]>> = Vec::with_capacity(added.len());
    // Keys above the largest one present before this batch are new (keys come in order).
    let last_before = table.data.primary.last_key();
    // Sizes the hash index once, rather than doubling it step by step as rows go in.
    let _room = table.data.primary.reserve(changes.len());
    let mut changes = changes.into_iter().peekable();
    while let Some((key, row)) = changes.next() {
        if changes.peek().is_some_and(|(next, _)| *next == key) {
            continue; // A later change of this key wins.
        }
        if let Some(row) = &row {
            if hidden {
                let id: [u8; 8] = key[..].try_into().map_err(|_| {
                    StorageError::LogFailed(format!("hidden row id of {} bytes", key.len()))
                })?;
                highest_row_id = highest_row_id.max(Some(u64::from_be_bytes(id)));
            } else if table.primary_key_of_row(row).as_deref() != Some(&key[..]) {
                return Err(StorageError::LogFailed(format!(
                    "recovered row of {} does not match its key (a log written before \
                     format version 2 weighed accented utf8mb4_general_ci keys by case only: \
                     docs/durability.md, \"Log format versions\")",
                    table.schema.name
                )));
            }
            if let Some(c) = auto_increment {
                highest_auto_increment = highest_auto_increment.max(match &row[c] {
                    Value::Int(v) if *v > 0 => *v as u64,
                    Value::UInt(v) => *v,
                    _ => 0,
                });
            }
        }
        let beyond = last_before.as_ref().is_none_or(|last| key > *last);
        let existing = if beyond {
            None
        } else {
            table.data.primary.get_cloned(&key)
        };
        let Some(existing) = existing else {
            // A new key: appended keys need no lookup (the common case).
            let Some(row) = row else {
                continue;
            };
            secondary_keys.extend((0..added.len()).map(|i| table.secondary_key(i, &row, &key)));
            let slot = Arc::new(RowSlot::committed(key.clone(), row, ts));
            for (entries, secondary_key) in added.iter_mut().zip(secondary_keys.drain(..)) {
                entries.push((secondary_key, slot.clone()));
            }
            let inserted = table.data.primary.insert_new(key, &slot);
            assert!(inserted.is_ok(), "recovery is the only writer");
            continue;
        };
        let slot = existing;
        let old = slot.head.load_full();
        let old_row = old.as_ref().and_then(|version| version.row.as_deref());
        for (i, entries) in added.iter_mut().enumerate() {
            let old_key = old_row.map(|r| table.secondary_key(i, r, &slot.key));
            let new_key = row.as_deref().map(|r| table.secondary_key(i, r, &slot.key));
            if old_key == new_key {
                continue;
            }
            if let Some(old_key) = old_key {
                table.secondary[i].remove_if(&old_key, |s| Arc::ptr_eq(s, &slot));
            }
            if let Some(new_key) = new_key {
                entries.push((new_key, slot.clone()));
            }
        }
        match row {
            Some(row) => slot.install_committed(row, ts),
            None => {
                slot.writer.store(crate::slot::DEAD, Ordering::Release);
                table.data.primary.remove(&slot);
            }
        }
    }
    for (i, entries) in added.into_iter().enumerate() {
        insert_sorted(&table.secondary[i], entries);
    }
    if highest_auto_increment > 0 {
        table.observe_auto_increment(highest_auto_increment);
    }
    if let Some(id) = highest_row_id {
        let next = &table.data.next_row_id;
        next.fetch_max(id.saturating_add(1), Ordering::Relaxed);
    }
    Ok(())
}

impl Storage {
    /// The first unique secondary index holding two visible rows with the same key, as
    /// "`db`.`table`, unique index `name`". Replay does not check uniqueness: the log
    /// holds only commits that passed the check. A key's weight can change since (log
    /// format 1's collation, wal's record.rs), so startup runs this after replaying such a
    /// log. One pass over every table with a unique secondary index.
    pub fn find_unique_violation(self: &Arc<Self>) -> Option<String> {
        let reader = self.register_reader();
        let view = self.begin(&reader).view();
        let catalog = self.catalog();
        for (db_name, database) in &catalog.databases {
            for table in database.tables.values() {
                for (i, index) in table.schema.indexes.iter().enumerate() {
                    if !index.unique {
                        continue;
                    }
                    let mut keys = HashSet::new();
                    let mut duplicate = false;
                    table.scan(&view, IndexNo::Primary, &KeyRange::all(), |_, row| {
                        // NULLs never collide in a unique index.
                        if index.columns.iter().any(|&c| row[c].is_null()) {
                            return ControlFlow::Continue(());
                        }
                        duplicate = !keys.insert(table.secondary_prefix(i, row));
                        if duplicate {
                            ControlFlow::Break(())
                        } else {
                            ControlFlow::Continue(())
                        }
                    });
                    if duplicate {
                        return Some(format!(
                            "`{db_name}`.`{}`, unique index `{}`",
                            table.schema.name, index.name
                        ));
                    }
                }
            }
        }
        None
    }
}
