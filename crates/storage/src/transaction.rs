//! Transactions: snapshot reads, row writes with first-updater-wins conflicts, savepoints
//! for statement atomicity, commit and rollback.
//!
//! Invariants:
//! (1) Every slot in `locked` has `writer == txn` until `finish`, which unlocks them all.
//! (2) `writes` is in execution order; undo walks it backwards, so each pop removes the
//!     version the matching write pushed.
//! (3) A dropped, unfinished transaction rolls back.

use crate::catalog::{Table, TableData};
use crate::gc::ReaderSlot;
use crate::index::IndexNo;
use crate::slot::{LatestOwned, RowSlot, DEAD};
use crate::{Storage, StorageError};
use manycore_types::{Row, Value};
use std::ops::Bound;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// What a reader sees: versions committed at or before `snapshot`, plus its own (`txn`,
/// 0 for a transaction that has not written).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadView {
    pub snapshot: u64,
    pub txn: u64,
}

/// A position in a transaction's writes, to undo one failed statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Savepoint(usize);

struct Write {
    table: Arc<Table>,
    slot: Arc<RowSlot>,
    /// Secondary entries this write added: (index position, key).
    added: Vec<(usize, Box<[u8]>)>,
    /// Secondary entries the new version no longer has: stale once committed.
    superseded: Vec<(usize, Box<[u8]>)>,
    deleted: bool,
}

pub struct Transaction {
    storage: Arc<Storage>,
    reader: ReaderSlot,
    view: ReadView,
    writes: Vec<Write>,
    locked: Vec<Arc<RowSlot>>,
    finished: bool,
}

/// How often a writer retries a slot briefly held by the garbage collector.
const GC_HOLD_RETRIES_MAX: usize = 64;

impl Transaction {
    pub(crate) fn new(storage: Arc<Storage>, reader: ReaderSlot, snapshot: u64) -> Transaction {
        let view = ReadView { snapshot, txn: 0 };
        Transaction {
            storage,
            reader,
            view,
            writes: Vec::new(),
            locked: Vec::new(),
            finished: false,
        }
    }

    pub fn view(&self) -> ReadView {
        self.view
    }

    pub fn has_writes(&self) -> bool {
        !self.writes.is_empty()
    }

    pub fn savepoint(&self) -> Savepoint {
        Savepoint(self.writes.len())
    }

    fn txn_id(&mut self) -> u64 {
        if self.view.txn == 0 {
            // Ids start at 1 and stay below DEAD; 0 means "no writer".
            let id = self.storage.next_txn.fetch_add(1, Ordering::Relaxed);
            assert!(id != 0 && id < DEAD - 1, "transaction ids exhausted");
            self.view.txn = id;
        }
        self.view.txn
    }

    fn lock(&mut self, slot: &Arc<RowSlot>) -> Result<(), StorageError> {
        let txn = self.txn_id();
        for _ in 0..GC_HOLD_RETRIES_MAX {
            match slot.lock(txn) {
                Ok(true) => {
                    self.locked.push(slot.clone());
                    return Ok(());
                }
                Ok(false) => return Ok(()),
                Err(holder) if holder == crate::catalog::GC_TXN => std::thread::yield_now(),
                Err(_) => return Err(StorageError::WriteConflict),
            }
        }
        Err(StorageError::WriteConflict)
    }

    fn writable(table: &Table) -> Result<parking_lot::RwLockReadGuard<'_, ()>, StorageError> {
        let guard = table.data.structure.read();
        if table.retired.load(Ordering::Acquire) {
            // DDL replaced the table since the statement looked it up.
            return Err(StorageError::WriteConflict);
        }
        Ok(guard)
    }

    /// Inserts `row` (already coerced to the column types). Returns its slot.
    pub fn insert(&mut self, table: &Arc<Table>, row: Row) -> Result<Arc<RowSlot>, StorageError> {
        let _structure = Self::writable(table)?;
        let key = match table.primary_key_of_row(&row) {
            Some(key) => key,
            None => {
                let id = table.data.next_row_id.fetch_add(1, Ordering::Relaxed);
                id.to_be_bytes().to_vec().into_boxed_slice()
            }
        };
        let slot = self.lock_slot_for_insert(&table.data, key)?;
        let head = slot.head.load_full();
        if let LatestOwned::Row { .. } = slot.latest(&self.view, &head) {
            return Err(StorageError::DuplicateKey {
                index: IndexNo::Primary,
                existing: slot,
            });
        }
        let unique_latch = table
            .has_unique_secondary()
            .then(|| table.data.unique_latch.lock());
        let changed: Vec<usize> = (0..table.secondary.len()).collect();
        if let Err(e) = self.check_unique(table, &row, &slot, &changed) {
            if head.is_none() {
                table.queue_garbage_slot(slot, 0);
            }
            return Err(e);
        }
        let added = self.add_entries(table, &slot, &row, &changed);
        drop(unique_latch);
        slot.push(self.view.txn, Some(row), self.storage.horizon.get());
        self.writes.push(Write {
            table: table.clone(),
            slot,
            added,
            superseded: Vec::new(),
            deleted: false,
        });
        Ok(self.writes.last().expect("just pushed").slot.clone())
    }

    fn lock_slot_for_insert(
        &mut self,
        data: &TableData,
        key: Box<[u8]>,
    ) -> Result<Arc<RowSlot>, StorageError> {
        let txn = self.txn_id();
        loop {
            let existing = data.primary.peek_with(&key[..], |_, slot| slot.clone());
            let slot = match existing {
                Some(slot) => slot,
                None => {
                    let slot = Arc::new(RowSlot::new(key.clone(), txn));
                    if data.primary.insert_sync(key.clone(), slot.clone()).is_err() {
                        continue; // Another writer created it first: lock theirs.
                    }
                    self.locked.push(slot.clone());
                    return Ok(slot);
                }
            };
            match slot.writer.load(Ordering::Acquire) {
                DEAD => std::thread::yield_now(), // Being removed; look it up again.
                _ => {
                    self.lock(&slot)?;
                    return Ok(slot);
                }
            }
        }
    }

    /// Replaces the row in `slot` (which this transaction read) with `row`.
    pub fn update(
        &mut self,
        table: &Arc<Table>,
        slot: &Arc<RowSlot>,
        row: Row,
    ) -> Result<(), StorageError> {
        let _structure = Self::writable(table)?;
        if let Some(new_key) = table.primary_key_of_row(&row) {
            if new_key != slot.key {
                drop(_structure);
                self.delete(table, slot)?;
                self.insert(table, row)?;
                return Ok(());
            }
        }
        self.lock(slot)?;
        let head = slot.head.load_full();
        let latest = slot.latest(&self.view, &head);
        if latest.committed_after_snapshot() {
            return Err(StorageError::WriteConflict);
        }
        let old = latest.row().ok_or(StorageError::WriteConflict)?;
        let changed: Vec<usize> = (0..table.secondary.len())
            .filter(|&i| table.secondary_prefix(i, old) != table.secondary_prefix(i, &row))
            .collect();
        let superseded = changed
            .iter()
            .map(|&i| (i, table.secondary_key(i, old, &slot.key)))
            .collect();
        let unique_latch = table
            .has_unique_secondary()
            .then(|| table.data.unique_latch.lock());
        self.check_unique(table, &row, slot, &changed)?;
        let added = self.add_entries(table, slot, &row, &changed);
        drop(unique_latch);
        slot.push(self.view.txn, Some(row), self.storage.horizon.get());
        self.writes.push(Write {
            table: table.clone(),
            slot: slot.clone(),
            added,
            superseded,
            deleted: false,
        });
        Ok(())
    }

    /// Deletes the row in `slot` (which this transaction read).
    pub fn delete(&mut self, table: &Arc<Table>, slot: &Arc<RowSlot>) -> Result<(), StorageError> {
        let _structure = Self::writable(table)?;
        self.lock(slot)?;
        let head = slot.head.load_full();
        let latest = slot.latest(&self.view, &head);
        if latest.committed_after_snapshot() {
            return Err(StorageError::WriteConflict);
        }
        let old = latest.row().ok_or(StorageError::WriteConflict)?;
        let superseded = (0..table.secondary.len())
            .map(|i| (i, table.secondary_key(i, old, &slot.key)))
            .collect();
        slot.push(self.view.txn, None, self.storage.horizon.get());
        self.writes.push(Write {
            table: table.clone(),
            slot: slot.clone(),
            added: Vec::new(),
            superseded,
            deleted: true,
        });
        Ok(())
    }

    /// Duplicate check for unique secondary indexes whose key `row` changes. The caller
    /// holds the table's unique latch, so no other writer adds an entry meanwhile.
    fn check_unique(
        &self,
        table: &Table,
        row: &[Value],
        slot: &Arc<RowSlot>,
        changed: &[usize],
    ) -> Result<(), StorageError> {
        for &i in changed {
            let index = &table.schema.indexes[i];
            if !index.unique || index.columns.iter().any(|&c| row[c].is_null()) {
                continue;
            }
            let prefix = table.secondary_prefix(i, row);
            let mut upper = prefix.clone();
            upper.push(0xFF);
            let guard = scc::Guard::new();
            let range = table.secondary[i].range::<[u8], _>(
                (Bound::Included(&prefix[..]), Bound::Excluded(&upper[..])),
                &guard,
            );
            for (_, other) in range {
                if Arc::ptr_eq(other, slot) {
                    continue;
                }
                let holder = other.writer.load(Ordering::Acquire);
                if holder != 0 && holder != self.view.txn && holder != DEAD {
                    return Err(StorageError::WriteConflict);
                }
                let duplicate = if holder == self.view.txn {
                    let head = other.head.load_full();
                    let latest = other.latest(&self.view, &head);
                    latest
                        .row()
                        .is_some_and(|r| table.secondary_prefix(i, r) == prefix)
                } else {
                    other.newest_committed_row(|r| {
                        r.is_some_and(|r| table.secondary_prefix(i, r) == prefix)
                    })
                };
                if duplicate {
                    return Err(StorageError::DuplicateKey {
                        index: IndexNo::Secondary(i),
                        existing: other.clone(),
                    });
                }
            }
        }
        Ok(())
    }

    fn add_entries(
        &self,
        table: &Table,
        slot: &Arc<RowSlot>,
        row: &[Value],
        indexes: &[usize],
    ) -> Vec<(usize, Box<[u8]>)> {
        let mut added = Vec::new();
        for &i in indexes {
            let key = table.secondary_key(i, row, &slot.key);
            if table.secondary[i]
                .insert_sync(key.clone(), slot.clone())
                .is_ok()
            {
                added.push((i, key));
            }
        }
        added
    }

    /// Undoes every write after `savepoint` (a failed statement). Row locks stay held.
    pub fn rollback_to(&mut self, savepoint: Savepoint) {
        while self.writes.len() > savepoint.0 {
            let write = self.writes.pop().expect("length checked");
            self.undo(write);
        }
    }

    fn undo(&mut self, write: Write) {
        write.slot.pop(self.view.txn);
        for (i, key) in write.added {
            if !write
                .table
                .chain_has_secondary_key(&write.slot, i, &key, None)
            {
                write.table.secondary[i].remove_sync(&key[..]);
            }
        }
        if write.slot.head.load().is_none() {
            write.table.queue_garbage_slot(write.slot.clone(), 0);
        }
    }

    /// Makes every write visible at once and returns the commit timestamp
    /// (the snapshot, for a transaction without writes).
    pub fn commit(mut self) -> u64 {
        self.finished = true;
        if self.writes.is_empty() {
            self.release();
            return self.view.snapshot;
        }
        let commit_ts = {
            let _order = self.storage.commit_order.lock();
            let commit_ts = self.storage.clock.load(Ordering::Relaxed) + 1;
            for slot in &self.locked {
                slot.stamp(self.view.txn, commit_ts);
            }
            // Invariant (2) of the crate: stamps before the clock.
            self.storage.clock.store(commit_ts, Ordering::Release);
            commit_ts
        };
        for write in std::mem::take(&mut self.writes) {
            if write.deleted {
                write
                    .table
                    .queue_garbage_slot(write.slot.clone(), commit_ts);
            }
            for (i, key) in write.superseded {
                write
                    .table
                    .queue_garbage_entry(i, key, write.slot.clone(), commit_ts);
            }
        }
        self.release();
        commit_ts
    }

    pub fn rollback(mut self) {
        self.abort();
    }

    fn abort(&mut self) {
        self.finished = true;
        self.rollback_to(Savepoint(0));
        self.release();
    }

    fn release(&mut self) {
        for slot in self.locked.drain(..) {
            slot.unlock(self.view.txn);
        }
        self.reader.unpin();
    }
}

impl Drop for Transaction {
    fn drop(&mut self) {
        if !self.finished {
            self.abort(); // Invariant (3).
        }
    }
}
