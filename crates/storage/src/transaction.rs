//! Transactions: snapshot reads, row writes with first-updater-wins conflicts, savepoints
//! for statement atomicity, commit and rollback.
//!
//! Invariants:
//! (1) Every slot in `locked` has `writer == txn` until `release`, which unlocks them all.
//! (2) `writes` is in execution order; undo walks it backwards, so each pop removes the
//!     version the matching write pushed.
//! (3) A dropped, unfinished transaction rolls back.
//! (4) Every slot in `locked` holds at least one version this transaction pushed, or a
//!     `lock_only` write: a write call that locks a slot either pushes a version (or, for
//!     `lock_row`, records the lock) or fails, and a failed call rolls back to the
//!     savepoint taken on entry, which releases the locks it took. So each public write
//!     (`insert`, `update`, `delete`, `lock_row`) changes everything it should or
//!     nothing, and a failed statement holds no locks it did not need. A row locked by a
//!     locking read (`lock_row`) keeps its committed version on top until this
//!     transaction writes it: nothing is logged, stamped or collected for the lock.
//! (5) A unique secondary index never has two committed rows with the same non-NULL key:
//!     inserts and updates check and add entries and push their version under the table's
//!     `unique_latch`, and a row another transaction may still change counts as a
//!     duplicate only if every way it can end has the key (else a `LockWait` for it).
//! (6) Every version's row has an entry, mapping to its own slot, in each secondary index
//!     while a snapshot may read that version. Secondary keys end with the primary key, so
//!     a row re-inserted after the collector removed its old slot can find the old slot's
//!     entry under the same key; the writer replaces it rather than sharing it.
//! (7) Writes check rows against the write view (latest commits at the statement's start),
//!     never against an older snapshot, so a write statement in a long transaction acts on
//!     current rows; a row that changed after the statement read it is a retry, not a
//!     silent lost update.
//! (8) A commit is logged before it is stamped (`log_hook` invariant (1)); a log that
//!     refuses commits for good is seen at the first write, so a doomed transaction does
//!     no work.
//! (9) Exactly one write per slot in `locked` has `took_lock`: the one whose call locked
//!     it. A rollback that undoes that write releases the lock with it (invariant (4)), so
//!     a later write to the slot takes the lock, and the flag, again. A slot whose
//!     locking write is `lock_only` has a version of ours on top only if a later write
//!     pushed one; otherwise it is logged as nothing.

use crate::catalog::{Table, TableData, GC_TXN};
use crate::gc::ReaderSlot;
use crate::index::IndexNo;
use crate::lock_wait::{LockWait, TxnState};
use crate::log_hook::{note_commit_lsn, CommitLog, EncodedCommit, RowChangeRef};
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
pub struct Savepoint {
    writes: usize,
    locks: usize,
}

struct Write {
    table: Arc<Table>,
    slot: Arc<RowSlot>,
    /// Secondary entries this write added: (index position, key).
    added: Vec<(usize, Box<[u8]>)>,
    /// Secondary entries the new version no longer has: stale once committed.
    superseded: Vec<(usize, Box<[u8]>)>,
    deleted: bool,
    /// This write's call locked the slot (invariant (9)).
    took_lock: bool,
    /// A lock taken by `lock_row`: no version was pushed, so undo pops nothing.
    lock_only: bool,
}

pub struct Transaction {
    storage: Arc<Storage>,
    reader: ReaderSlot,
    view: ReadView,
    /// Snapshot that writes check rows against: refreshed per write statement, so writes
    /// act on the latest committed rows as InnoDB's locking reads do (invariant (7)).
    write_snapshot: u64,
    /// Present once the transaction has written: what waiters wait on.
    state: Option<Arc<TxnState>>,
    writes: Vec<Write>,
    locked: Vec<Arc<RowSlot>>,
    finished: bool,
}

/// Yields before a writer waiting for the collector to let go of a slot starts sleeping.
/// The collector holds a slot only across one chain walk and one index removal and never
/// waits for anything meanwhile, so waiting for it cannot deadlock; but it may be
/// descheduled while holding it on a loaded machine, so the wait has no bound.
const GC_HOLD_YIELDS_MAX: u32 = 64;

/// Why `Transaction::lock` failed.
enum LockFailure {
    /// Another transaction holds the row.
    Held(u64),
    /// The slot was removed by the collector; only an insert can continue (with a new slot).
    Dead,
}

impl From<LockFailure> for StorageError {
    fn from(failure: LockFailure) -> StorageError {
        match failure {
            LockFailure::Held(holder) => StorageError::LockWait { holder },
            // Removed by the collector after its delete committed: the row is gone.
            LockFailure::Dead => StorageError::LockWait { holder: 0 },
        }
    }
}

impl Transaction {
    pub(crate) fn new(storage: Arc<Storage>, reader: ReaderSlot, snapshot: u64) -> Transaction {
        let view = ReadView { snapshot, txn: 0 };
        Transaction {
            storage,
            reader,
            view,
            write_snapshot: snapshot,
            state: None,
            writes: Vec::new(),
            locked: Vec::new(),
            finished: false,
        }
    }

    /// The storage the transaction belongs to (its catalog, for foreign keys).
    pub fn storage(&self) -> &Arc<Storage> {
        &self.storage
    }

    /// What plain reads see: the transaction's snapshot (REPEATABLE READ).
    pub fn view(&self) -> ReadView {
        self.view
    }

    /// What a write statement reads its target rows with: the latest commits as of
    /// `refresh_write_view`, plus this transaction's own writes.
    pub fn write_view(&self) -> ReadView {
        ReadView {
            snapshot: self.write_snapshot,
            txn: self.view.txn,
        }
    }

    /// Call at the start of each write statement (and before re-running one after a lock
    /// wait): later commits become visible to its reads of target rows.
    pub fn refresh_write_view(&mut self) {
        self.write_snapshot = self
            .storage
            .clock
            .load(Ordering::Acquire)
            .max(self.view.snapshot);
    }

    /// After `StorageError::LockWait { holder }` (and undoing the statement): a wait for
    /// `holder` to finish, or `StorageError::Deadlock` if that wait would close a cycle.
    pub fn prepare_lock_wait(&mut self, holder: u64) -> Result<LockWait, StorageError> {
        self.txn_id();
        let state = self.state.as_ref().expect("txn_id creates the state");
        self.storage
            .transactions
            .wait_for(state, holder)
            .map_err(|()| StorageError::Deadlock)
    }

    /// `Table::scan_latest` for this transaction, after its own write of the row whose
    /// foreign key is checked: a row of the range another transaction holds is a
    /// `LockWait` for it.
    pub fn scan_latest(
        &self,
        table: &Table,
        index: IndexNo,
        range: &crate::index::KeyRange,
        f: impl FnMut(&Arc<RowSlot>, &[Value]) -> std::ops::ControlFlow<()>,
    ) -> Result<(), StorageError> {
        table
            .scan_latest(self.view.txn, index, range, f)
            .map_err(|holder| StorageError::LockWait { holder })
    }

    pub fn has_writes(&self) -> bool {
        !self.writes.is_empty()
    }

    pub fn savepoint(&self) -> Savepoint {
        Savepoint {
            writes: self.writes.len(),
            locks: self.locked.len(),
        }
    }

    fn txn_id(&mut self) -> u64 {
        if self.view.txn == 0 {
            // Ids start at 1 and stay below DEAD; 0 means "no writer".
            let id = self.storage.next_txn.fetch_add(1, Ordering::Relaxed);
            assert!(id != 0 && id < DEAD - 1, "transaction ids exhausted");
            self.view.txn = id;
            let state = TxnState::new(id);
            self.storage.transactions.register(state.clone());
            self.state = Some(state);
        }
        self.view.txn
    }

    /// Locks `slot` for this transaction; true if this call took the lock (it was not
    /// already ours).
    fn lock(&mut self, slot: &Arc<RowSlot>) -> Result<bool, LockFailure> {
        let txn = self.txn_id();
        let mut gc_waits = 0;
        loop {
            match slot.lock(txn) {
                Ok(true) => {
                    self.locked.push(slot.clone());
                    return Ok(true);
                }
                Ok(false) => return Ok(false),
                Err(DEAD) => return Err(LockFailure::Dead),
                Err(GC_TXN) if gc_waits < GC_HOLD_YIELDS_MAX => {
                    gc_waits += 1;
                    std::thread::yield_now();
                }
                Err(GC_TXN) => std::thread::sleep(std::time::Duration::from_micros(50)),
                Err(holder) => return Err(LockFailure::Held(holder)),
            }
        }
    }

    fn writable(table: &Table) -> Result<parking_lot::RwLockReadGuard<'_, ()>, StorageError> {
        let guard = table.data.structure.read();
        if table.retired.load(Ordering::Acquire) {
            // DDL replaced the table since the statement looked it up.
            return Err(StorageError::WriteConflict);
        }
        Ok(guard)
    }

    /// Runs one write call (the first one only if the log takes commits); on error undoes
    /// whatever it did (invariant (4)).
    fn atomically<R>(
        &mut self,
        call: impl FnOnce(&mut Self) -> Result<R, StorageError>,
    ) -> Result<R, StorageError> {
        self.check_log_before_first_write()?;
        self.undone_on_error(call)
    }

    /// Invariant (8): a log that refuses commits for good refuses the first write.
    fn check_log_before_first_write(&self) -> Result<(), StorageError> {
        match self.writes.is_empty() {
            true => self.storage.check_log_writable(),
            false => Ok(()),
        }
    }

    /// Runs `call`; on error undoes whatever it did (invariant (4)).
    fn undone_on_error<R, E>(
        &mut self,
        call: impl FnOnce(&mut Self) -> Result<R, E>,
    ) -> Result<R, E> {
        let savepoint = self.savepoint();
        let result = call(self);
        if result.is_err() {
            self.rollback_to(savepoint);
        }
        result
    }

    /// Inserts `row` (already coerced to the column types). Returns its slot.
    pub fn insert(&mut self, table: &Arc<Table>, row: Row) -> Result<Arc<RowSlot>, StorageError> {
        self.insert_or_return(table, row).map_err(|(e, _)| e)
    }

    /// As `insert`, but a failed insert hands `row` back with the error, so a caller that
    /// still needs it (a duplicate-key message, REPLACE's next try) need not copy it first.
    pub fn insert_or_return(
        &mut self,
        table: &Arc<Table>,
        row: Row,
    ) -> Result<Arc<RowSlot>, (StorageError, Row)> {
        if let Err(e) = self.check_log_before_first_write() {
            return Err((e, row));
        }
        self.undone_on_error(|txn| txn.insert_row(table, row))
    }

    /// Inserts `row`; every failure comes before the row is stored, so it comes back.
    fn insert_row(
        &mut self,
        table: &Arc<Table>,
        row: Row,
    ) -> Result<Arc<RowSlot>, (StorageError, Row)> {
        let _structure = match Self::writable(table) {
            Ok(structure) => structure,
            Err(e) => return Err((e, row)),
        };
        let key = match table.primary_key_of_row(&row) {
            Some(key) => key,
            None => {
                let id = table.data.next_row_id.fetch_add(1, Ordering::Relaxed);
                id.to_be_bytes().to_vec().into_boxed_slice()
            }
        };
        let (slot, took_lock) = match self.lock_slot_for_insert(&table.data, key) {
            Ok(locked) => locked,
            Err(e) => return Err((e, row)),
        };
        let result = self.insert_into(table, &slot, row, took_lock);
        if result.is_err() && slot.head.is_none() {
            // A slot this call created (or an empty one it found): the collector removes
            // it once the lock is released.
            table.data.queue_garbage_slot(slot.clone(), 0);
        }
        result.map(|()| slot)
    }

    fn insert_into(
        &mut self,
        table: &Arc<Table>,
        slot: &Arc<RowSlot>,
        row: Row,
        took_lock: bool,
    ) -> Result<(), (StorageError, Row)> {
        let head = slot.head.load_full();
        if let LatestOwned::Row { .. } = slot.latest(&self.write_view(), &head) {
            let duplicate = StorageError::DuplicateKey {
                index: IndexNo::Primary,
                existing: slot.clone(),
            };
            return Err((duplicate, row));
        }
        let unique_latch = table
            .has_unique_secondary()
            .then(|| table.data.unique_latch.lock());
        let every_index = 0..table.secondary.len();
        if let Err(e) = self.check_unique(table, &row, slot, every_index.clone()) {
            return Err((e, row));
        }
        let added = self.add_entries(table, slot, &row, every_index);
        slot.push(self.view.txn, Some(row), self.storage.horizon.get());
        drop(unique_latch); // Invariant (5): the version is in place before others check.
        self.writes.push(Write {
            table: table.clone(),
            slot: slot.clone(),
            added,
            superseded: Vec::new(),
            deleted: false,
            took_lock,
            lock_only: false,
        });
        Ok(())
    }

    /// The slot for `key`, locked, and whether this call took the lock.
    fn lock_slot_for_insert(
        &mut self,
        data: &TableData,
        key: Box<[u8]>,
    ) -> Result<(Arc<RowSlot>, bool), StorageError> {
        let txn = self.txn_id();
        loop {
            let existing = data.primary.get_cloned(&key);
            let slot = match existing {
                Some(slot) => slot,
                None => {
                    let slot = Arc::new(RowSlot::new(key.clone(), txn));
                    match data.primary.insert_new(key.clone(), &slot) {
                        Ok(()) => {
                            self.locked.push(slot.clone());
                            return Ok((slot, true));
                        }
                        // Another writer created it first (lock theirs), or the collector
                        // is removing a dead slot (wait it out below).
                        Err(holder) => holder,
                    }
                }
            };
            match self.lock(&slot) {
                Ok(took_lock) => return Ok((slot, took_lock)),
                // Being removed from the index (slot invariant (3)): look the key up again.
                Err(LockFailure::Dead) => std::thread::yield_now(),
                Err(LockFailure::Held(holder)) => return Err(StorageError::LockWait { holder }),
            }
        }
    }

    /// Replaces the row in `slot` (which this transaction read) with `row`. If the primary
    /// key changes, this is a delete of `slot` and an insert of `row` under its new key;
    /// either both happen or neither.
    pub fn update(
        &mut self,
        table: &Arc<Table>,
        slot: &Arc<RowSlot>,
        row: Row,
    ) -> Result<(), StorageError> {
        self.atomically(|txn| txn.update_row(table, slot, row))
    }

    fn update_row(
        &mut self,
        table: &Arc<Table>,
        slot: &Arc<RowSlot>,
        row: Row,
    ) -> Result<(), StorageError> {
        if !table.has_primary_key(&row, &slot.key) {
            self.delete_row(table, slot)?;
            self.insert_row(table, row).map_err(|(e, _)| e)?;
            return Ok(());
        }
        let _structure = Self::writable(table)?;
        let took_lock = self.lock(slot)?;
        let head = slot.head.load_full();
        let latest = slot.latest(&self.write_view(), &head);
        if latest.committed_after_snapshot() {
            // Changed since the statement read it: run the statement again.
            return Err(StorageError::LockWait { holder: 0 });
        }
        let old = latest.row().ok_or(StorageError::LockWait { holder: 0 })?;
        let changed: Vec<usize> = (0..table.secondary.len())
            .filter(|&i| !table.same_secondary_prefix(i, old, &row))
            .collect();
        let superseded = changed
            .iter()
            .map(|&i| (i, table.secondary_key(i, old, &slot.key)))
            .collect();
        let unique_latch = table
            .has_unique_secondary()
            .then(|| table.data.unique_latch.lock());
        self.check_unique(table, &row, slot, changed.iter().copied())?;
        let added = self.add_entries(table, slot, &row, changed.iter().copied());
        slot.push(self.view.txn, Some(row), self.storage.horizon.get());
        drop(unique_latch); // Invariant (5).
        self.writes.push(Write {
            table: table.clone(),
            slot: slot.clone(),
            added,
            superseded,
            deleted: false,
            took_lock,
            lock_only: false,
        });
        Ok(())
    }

    /// Locks the row in `slot` (which this transaction read with its write view) until the
    /// transaction ends, as SELECT ... FOR UPDATE does. The lock is the slot's writer
    /// alone, recorded as a `lock_only` write so that a savepoint rollback releases it
    /// (invariant (4)); no version is pushed, so a transaction that only locks rows logs
    /// nothing at commit. A row already locked by this transaction is left as it is.
    pub fn lock_row(
        &mut self,
        table: &Arc<Table>,
        slot: &Arc<RowSlot>,
    ) -> Result<(), StorageError> {
        self.atomically(|txn| {
            let _structure = Self::writable(table)?;
            let took_lock = txn.lock(slot)?;
            if !took_lock {
                return Ok(());
            }
            let head = slot.head.load_full();
            let latest = slot.latest(&txn.write_view(), &head);
            if latest.committed_after_snapshot() {
                // Changed since the statement read it: run the statement again.
                return Err(StorageError::LockWait { holder: 0 });
            }
            if latest.row().is_none() {
                // Deleted since the statement read it: run the statement again.
                return Err(StorageError::LockWait { holder: 0 });
            }
            txn.writes.push(Write {
                table: table.clone(),
                slot: slot.clone(),
                added: Vec::new(),
                superseded: Vec::new(),
                deleted: false,
                took_lock,
                lock_only: true,
            });
            Ok(())
        })
    }

    /// Deletes the row in `slot` (which this transaction read).
    pub fn delete(&mut self, table: &Arc<Table>, slot: &Arc<RowSlot>) -> Result<(), StorageError> {
        self.atomically(|txn| txn.delete_row(table, slot))
    }

    fn delete_row(&mut self, table: &Arc<Table>, slot: &Arc<RowSlot>) -> Result<(), StorageError> {
        let _structure = Self::writable(table)?;
        let took_lock = self.lock(slot)?;
        let head = slot.head.load_full();
        let latest = slot.latest(&self.write_view(), &head);
        if latest.committed_after_snapshot() {
            // Changed since the statement read it: run the statement again.
            return Err(StorageError::LockWait { holder: 0 });
        }
        let old = latest.row().ok_or(StorageError::LockWait { holder: 0 })?;
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
            took_lock,
            lock_only: false,
        });
        Ok(())
    }

    /// Duplicate check for unique secondary indexes whose key `row` changes. The caller
    /// holds the table's unique latch, so no other writer adds an entry meanwhile.
    /// Entries may be stale: each candidate row is re-checked (invariant (5)).
    fn check_unique(
        &self,
        table: &Table,
        row: &[Value],
        slot: &Arc<RowSlot>,
        changed: impl Iterator<Item = usize>,
    ) -> Result<(), StorageError> {
        for i in changed {
            let index = &table.schema.indexes[i];
            if !index.unique || index.columns.iter().any(|&c| row[c].is_null()) {
                continue;
            }
            let prefix = table.secondary_prefix(i, row);
            let mut upper = prefix.clone();
            upper.push(0xFF);
            let has_key =
                |r: Option<&[Value]>| r.is_some_and(|r| table.secondary_prefix(i, r) == prefix);
            let guard = crate::index::pin();
            let range = table.secondary[i].range(
                Bound::Included(prefix.clone()),
                Bound::Excluded(upper),
                &guard,
            );
            for (_, other) in range {
                if Arc::ptr_eq(other, slot) {
                    continue;
                }
                let outcomes = if other.writer.load(Ordering::Acquire) == self.view.txn {
                    // Ours: any savepoint rollback that reverts it also reverts this write.
                    let head = other.head.load_full();
                    vec![has_key(other.latest(&self.view, &head).row())]
                } else {
                    other.possible_rows(has_key)
                };
                if outcomes.iter().all(|&has| has) {
                    return Err(StorageError::DuplicateKey {
                        index: IndexNo::Secondary(i),
                        existing: other.clone(),
                    });
                }
                if outcomes.iter().any(|&has| has) {
                    // Depends on how another transaction ends: wait for it (0: it just did).
                    let holder = other.writer.load(Ordering::Acquire);
                    let holder = if holder == DEAD || holder == GC_TXN {
                        0
                    } else {
                        holder
                    };
                    return Err(StorageError::LockWait { holder });
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
        indexes: impl Iterator<Item = usize>,
    ) -> Vec<(usize, Box<[u8]>)> {
        let mut added = Vec::new();
        for i in indexes {
            let key = table.secondary_key(i, row, &slot.key);
            let tree = &table.secondary[i];
            loop {
                if tree.insert_new(key.clone(), slot) {
                    added.push((i, key));
                    break;
                }
                let guard = crate::index::pin();
                let Some(holder) = tree.get(&key, &guard) else {
                    continue; // Removed meanwhile: insert again.
                };
                if Arc::ptr_eq(holder, slot) {
                    // A stale entry of an older version of this row serves the new version
                    // too; the collector keeps it while any readable version has its key.
                    break;
                }
                // The same primary key in a slot the collector removed (invariant (6)): its
                // entries go with it, so this row needs its own.
                assert_eq!(
                    holder.writer.load(Ordering::Acquire),
                    DEAD,
                    "two live slots with one primary key"
                );
                let dead = holder.clone();
                tree.remove_if(&key, |s| Arc::ptr_eq(s, &dead));
            }
        }
        added
    }

    /// Undoes every write after `savepoint` (a failed statement) and releases the row locks
    /// taken after it (invariant (4): those rows hold no versions of ours any more).
    pub fn rollback_to(&mut self, savepoint: Savepoint) {
        while self.writes.len() > savepoint.writes {
            let write = self.writes.pop().expect("length checked");
            self.undo(write);
        }
        while self.locked.len() > savepoint.locks {
            let slot = self.locked.pop().expect("length checked");
            slot.unlock(self.view.txn);
        }
    }

    fn undo(&mut self, write: Write) {
        if write.lock_only {
            return; // Its lock is released with the locks after the savepoint.
        }
        write.slot.pop(self.view.txn);
        for (i, key) in write.added {
            if !write
                .table
                .chain_has_secondary_key(&write.slot, i, &key, None)
            {
                write.table.secondary[i].remove_locked(&key, &write.slot); // index.rs (5).
            }
        }
        if write.slot.head.is_none() {
            write.table.data.queue_garbage_slot(write.slot.clone(), 0);
        }
    }

    /// Makes every write visible at once and returns the commit timestamp (the snapshot,
    /// for a transaction that changed no row: row locks alone need no commit). With a log
    /// attached the commit is appended first (invariant (8)); if the log refuses it, the
    /// transaction rolls back and the error (`LogDiskFull`, `LogFailed`, or
    /// `TransactionTooLarge` if its changes exceed one log record) is returned. The caller
    /// acknowledges the commit only once `take_commit_lsn`'s LSN is durable.
    pub fn commit(mut self) -> Result<u64, StorageError> {
        self.finished = true;
        if self.writes.iter().all(|w| w.lock_only) {
            self.release();
            return Ok(self.view.snapshot);
        }
        let storage = self.storage.clone();
        let log = storage.log.get();
        // Rows of tables no catalog holds (dropped, or temporary) are not logged: a
        // transaction that wrote only a temporary table appends nothing.
        let encoded = log.and_then(|log| self.encode_commit(&**log, Some(&logged)));
        let mut encoded = match encoded.transpose() {
            Ok(encoded) => encoded,
            Err(e) => {
                self.abort(); // Too large for one log record.
                return Err(e);
            }
        };
        let appended = {
            let _order = storage.commit_order.lock();
            let commit_ts = storage.clock.load(Ordering::Relaxed) + 1;
            let lsn = match (log, encoded.as_mut()) {
                (Some(log), Some(encoded)) => self.append(&**log, encoded, commit_ts),
                _ => Ok(0),
            };
            if lsn.is_ok() {
                for slot in &self.locked {
                    slot.stamp(self.view.txn, commit_ts);
                }
                // Invariant (2) of the crate: stamps before the clock.
                storage.clock.store(commit_ts, Ordering::Release);
            }
            lsn.map(|lsn| (commit_ts, lsn))
        };
        let (commit_ts, lsn) = match appended {
            Ok(appended) => appended,
            Err(e) => {
                self.abort();
                return Err(e);
            }
        };
        if lsn != 0 {
            note_commit_lsn(lsn);
        }
        for write in std::mem::take(&mut self.writes) {
            if write.deleted {
                write
                    .table
                    .data
                    .queue_garbage_slot(write.slot.clone(), commit_ts);
            }
            for (i, key) in write.superseded {
                write
                    .table
                    .queue_garbage_entry(i, key, write.slot.clone(), commit_ts);
            }
        }
        self.release();
        Ok(commit_ts)
    }

    /// Appends the commit record under `commit_order`. If DDL replaced a written table
    /// since the record was encoded, re-encodes without its rows (log_hook invariant (3)).
    /// (A transaction that also wrote a temporary table is encoded twice: rare, and
    /// cheaper than remembering which tables the first encoding left out.)
    fn append(
        &self,
        log: &dyn CommitLog,
        encoded: &mut EncodedCommit,
        commit_ts: u64,
    ) -> Result<u64, StorageError> {
        // Set and read under `commit_order`, like the catalog store it goes with.
        if !self.writes.iter().all(|w| logged(&w.table)) {
            match self.encode_commit(log, Some(&logged)) {
                Some(reencoded) => *encoded = reencoded?,
                None => return Ok(0),
            }
        }
        log.append_commit(encoded, commit_ts)
    }

    /// Encodes the final image of each row this transaction wrote, in first-write order
    /// (each locked slot's newest version is ours, unless the slot was only locked:
    /// invariant (4)), borrowed from those versions. The write that took a slot's lock
    /// stands for all writes to it (invariant (9)), so no set of seen slots is needed.
    /// None if `keep` (or row locks alone) left no change.
    fn encode_commit(
        &self,
        log: &dyn CommitLog,
        keep: Option<&dyn Fn(&Table) -> bool>,
    ) -> Option<Result<EncodedCommit, StorageError>> {
        let mut versions = Vec::with_capacity(self.locked.len());
        let mut slots = 0;
        for write in &self.writes {
            if !write.took_lock {
                continue;
            }
            slots += 1;
            if keep.is_some_and(|k| !k(&write.table)) {
                continue;
            }
            let version = write.slot.head.load_full();
            let ours = version.filter(|v| v.txn == self.view.txn);
            match ours {
                Some(version) => versions.push((write, version)),
                None => assert!(
                    write.lock_only,
                    "newest version of a written slot is not ours"
                ),
            }
        }
        assert_eq!(
            slots,
            self.locked.len(),
            "invariant (9): one locking write per slot"
        );
        if versions.is_empty() {
            return None;
        }
        let changes: Vec<RowChangeRef<'_>> = versions
            .iter()
            .map(|(write, version)| RowChangeRef {
                db: &write.table.db,
                table: &write.table.schema.name,
                key: &write.slot.key,
                row: version.row.as_deref(),
            })
            .collect();
        Some(log.encode_commit(&changes))
    }

    pub fn rollback(mut self) {
        self.abort();
    }

    fn abort(&mut self) {
        self.finished = true;
        self.rollback_to(Savepoint {
            writes: 0,
            locks: 0,
        });
        self.release();
    }

    fn release(&mut self) {
        for slot in self.locked.drain(..) {
            slot.unlock(self.view.txn);
        }
        if let Some(state) = self.state.take() {
            self.storage.transactions.unregister(state.id);
            state.finish(); // Wakes waiters after the locks are free.
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

/// Whether commits through `table` are logged: not once its rows left the catalog
/// (catalog invariant (3)), nor ever for a temporary table's (catalog invariant (11)).
fn logged(table: &Table) -> bool {
    !table.data.detached.load(Ordering::Acquire)
}
