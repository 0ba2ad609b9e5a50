//! Entry points for durability: rebuilding tables from a checkpoint and the log at
//! startup, and taking a consistent snapshot for a checkpoint while serving.
//!
//! Invariants:
//! (1) Recovery runs single-threaded before a log is attached (`attach_log` asserts it is
//!     set once), so replayed changes are not logged again and nothing conflicts.
//! (2) A replayed change leaves the key exactly as the log says (the full row or absent),
//!     maintaining secondary indexes, AUTO_INCREMENT (past every value present) and the
//!     hidden row id counter (past every hidden key present).
//! (3) `checkpoint_snapshot` reads the clock and the log's last LSN under `ddl` and
//!     `commit_order`, where commits and DDL append: every commit at or below that LSN is
//!     visible to the snapshot, no later one is, and the catalog is the one at that LSN.

use crate::catalog::{Catalog, Table};
use crate::gc::ReaderSlot;
use crate::log_hook::RowChange;
use crate::transaction::Transaction;
use crate::{Storage, StorageError};
use manycore_types::Value;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// A consistent view for a checkpoint: read the rows of `catalog` with `transaction`.
pub struct CheckpointSnapshot {
    pub transaction: Transaction,
    pub catalog: Arc<Catalog>,
    /// The log position the snapshot corresponds to.
    pub lsn: u64,
}

impl Storage {
    /// Replays one committed transaction (invariant (2)). Changes to tables that do not
    /// exist are skipped and counted in the result (the log never has them unless a table
    /// was dropped by a later record that is also being replayed).
    pub fn apply_recovered_commit(
        self: &Arc<Self>,
        reader: &ReaderSlot,
        changes: &[RowChange],
    ) -> Result<usize, StorageError> {
        assert!(
            self.log.get().is_none(),
            "recovery after the log was attached"
        );
        let catalog = self.catalog();
        let mut txn = self.begin(reader);
        let mut skipped = 0;
        for change in changes {
            let Some(table) = catalog.table(&change.db, &change.table) else {
                skipped += 1;
                continue;
            };
            txn.put_recovered(table, &change.key, change.row.as_deref())?;
        }
        txn.commit()?;
        Ok(skipped)
    }

    /// Loads rows of one table from a checkpoint (invariant (2)).
    pub fn apply_recovered_rows(
        self: &Arc<Self>,
        reader: &ReaderSlot,
        db: &str,
        table: &str,
        rows: &[(Vec<u8>, Vec<Value>)],
    ) -> Result<(), StorageError> {
        assert!(
            self.log.get().is_none(),
            "recovery after the log was attached"
        );
        let catalog = self.catalog();
        let t = catalog
            .table(db, table)
            .ok_or_else(|| StorageError::NoSuchTable(format!("{db}.{table}")))?;
        let mut txn = self.begin(reader);
        for (key, row) in rows {
            txn.put_recovered(t, key, Some(row))?;
        }
        txn.commit()?;
        Ok(())
    }

    /// A snapshot for a checkpoint with the log position it corresponds to; `last_lsn`
    /// is called under the locks (invariant (3)). The transaction pins garbage collection
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

impl Transaction {
    /// Sets `key` of `table` to `row` (None: absent), whatever it was.
    pub(crate) fn put_recovered(
        &mut self,
        table: &Arc<Table>,
        key: &[u8],
        row: Option<&[Value]>,
    ) -> Result<(), StorageError> {
        self.refresh_write_view();
        let view = self.write_view();
        let slot = table
            .data
            .primary
            .get_cloned(key)
            .filter(|slot| slot.read(&view, |_| ()).is_some());
        match (slot, row) {
            (None, Some(row)) => {
                let row: manycore_types::Row = row.to_vec().into_boxed_slice();
                if table.schema.primary_key.is_some() {
                    let slot = self.insert(table, row)?;
                    assert_eq!(slot.key(), key, "recovered row does not match its key");
                } else {
                    // Hidden primary key: make the insert take this row id, then keep the
                    // counter past every id present (invariant (2)).
                    let id: [u8; 8] = key.try_into().map_err(|_| {
                        StorageError::LogFailed(format!("hidden row id of {} bytes", key.len()))
                    })?;
                    let id = u64::from_be_bytes(id);
                    let next = &table.data.next_row_id;
                    let before = next.load(Ordering::Relaxed);
                    next.store(id, Ordering::Relaxed);
                    self.insert(table, row)?;
                    next.store(before.max(id + 1), Ordering::Relaxed);
                }
            }
            (Some(slot), Some(row)) => {
                self.update(table, &slot, row.to_vec().into_boxed_slice())?
            }
            (Some(slot), None) => self.delete(table, &slot)?,
            (None, None) => {}
        }
        if let Some(row) = row {
            if let Some(c) = table.schema.auto_increment_column() {
                match &row[c] {
                    Value::Int(v) if *v > 0 => table.observe_auto_increment(*v as u64),
                    Value::UInt(v) => table.observe_auto_increment(*v),
                    _ => {}
                }
            }
        }
        Ok(())
    }
}
