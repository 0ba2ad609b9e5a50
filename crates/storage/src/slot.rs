//! A row slot: the version chain of one primary key.
//!
//! Invariants:
//! (1) Only the transaction whose id is in `writer` pushes or pops versions, and only
//!     versions it created are uncommitted.
//! (2) `head` is newest first; each version's `prev` is older.
//! (3) Once `writer` is `DEAD` the slot is out of the primary index (or about to be) and
//!     never changes again; a writer that finds it dead looks the key up again.
//! (4) A transaction's uncommitted versions are contiguous at the top of the chain (it holds
//!     the lock from its first push until it commits or undoes them all), so `stamp` and
//!     `pop` only ever look at the top.
//! (5) Chains are cut only below a committed version at or below the horizon, never
//!     between uncommitted versions, so undo always finds the version it pushed.
//! (6) `head` and `prev` are `sync::ArcCell`s: a reader looks at a version only while
//!     pinned (or holding its `Arc`), and a version a store replaced or a cut removed is
//!     released only after every reader pinned at the time has unpinned. Unlike
//!     `arc_swap`, a store or a dropped version does not visit every thread's debt slots
//!     (that was ~5% of a durable write transaction's instructions).

use crate::transaction::ReadView;
use manycore_sync::ArcCell;
use manycore_types::{Row, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// `Version::commit_ts` of a version whose transaction has not committed.
pub(crate) const UNCOMMITTED: u64 = u64::MAX;
/// `RowSlot::writer` of a free slot.
pub(crate) const FREE: u64 = 0;
/// `RowSlot::writer` of a slot removed by garbage collection.
pub(crate) const DEAD: u64 = u64::MAX;

pub(crate) struct Version {
    pub(crate) commit_ts: AtomicU64,
    pub(crate) txn: u64,
    /// None marks a delete.
    pub(crate) row: Option<Row>,
    pub(crate) prev: ArcCell<Version>,
}

pub struct RowSlot {
    pub(crate) key: Box<[u8]>,
    pub(crate) head: ArcCell<Version>,
    pub(crate) writer: AtomicU64,
}

impl Version {
    fn committed(row: Row, commit_ts: u64) -> Version {
        Version {
            commit_ts: AtomicU64::new(commit_ts),
            txn: 0,
            row: Some(row),
            prev: ArcCell::empty(),
        }
    }

    fn is_visible(&self, view: &ReadView) -> bool {
        let ts = self.commit_ts.load(Ordering::Acquire);
        if ts == UNCOMMITTED {
            view.txn != 0 && self.txn == view.txn
        } else {
            ts <= view.snapshot
        }
    }
}

impl std::fmt::Debug for RowSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowSlot")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

impl RowSlot {
    pub(crate) fn new(key: Box<[u8]>, writer: u64) -> RowSlot {
        RowSlot {
            key,
            head: ArcCell::empty(),
            writer: AtomicU64::new(writer),
        }
    }

    /// The encoded primary key of this row.
    pub fn key(&self) -> &[u8] {
        &self.key
    }

    /// Calls `f` with the row visible to `view`, if any. Lock-free, and takes no
    /// reference count: the versions stay alive while the thread is pinned (`ArcCell`).
    pub fn read<R>(&self, view: &ReadView, f: impl FnOnce(&[Value]) -> R) -> Option<R> {
        self.head.with(|head| {
            let newest = head?;
            if newest.is_visible(view) {
                return newest.row.as_deref().map(f);
            }
            let mut current = newest.prev.load_full();
            while let Some(version) = current {
                if version.is_visible(view) {
                    return version.row.as_deref().map(f);
                }
                current = version.prev.load_full();
            }
            None
        })
    }

    /// Tries to make `txn` the writer. Ok(true) if newly locked, Ok(false) if `txn` already
    /// held it; Err(writer) with the current holder (or DEAD) otherwise.
    pub(crate) fn lock(&self, txn: u64) -> Result<bool, u64> {
        match self
            .writer
            .compare_exchange(FREE, txn, Ordering::Acquire, Ordering::Acquire)
        {
            Ok(_) => Ok(true),
            Err(holder) if holder == txn => Ok(false),
            Err(holder) => Err(holder),
        }
    }

    pub(crate) fn unlock(&self, txn: u64) {
        let previous = self.writer.swap(FREE, Ordering::Release);
        assert_eq!(
            previous, txn,
            "slot unlocked by a transaction that did not hold it"
        );
    }

    /// The newest state, for the slot's writer (who must hold the lock).
    pub(crate) fn latest(&self, view: &ReadView, head: &Option<Arc<Version>>) -> LatestOwned {
        let Some(version) = head.clone() else {
            return LatestOwned::Absent {
                committed_after_snapshot: false,
            };
        };
        let ts = version.commit_ts.load(Ordering::Acquire);
        let mine = ts == UNCOMMITTED && version.txn == view.txn;
        // Another transaction's uncommitted version cannot be on top while we hold the
        // lock (invariant (1)); rolled-back versions are unlinked before unlock.
        assert!(
            ts != UNCOMMITTED || mine,
            "uncommitted version of another transaction"
        );
        let after = !mine && ts > view.snapshot;
        match &version.row {
            Some(_) => LatestOwned::Row {
                version,
                committed_after_snapshot: after,
            },
            None => LatestOwned::Absent {
                committed_after_snapshot: after,
            },
        }
    }

    /// Pushes a version by `txn` (which must hold the lock), cutting the chain below the
    /// newest version visible to every active snapshot (`horizon`): invariant (4).
    pub(crate) fn push(&self, txn: u64, row: Option<Row>, horizon: u64) {
        assert_eq!(
            self.writer.load(Ordering::Relaxed),
            txn,
            "push by a transaction that does not hold the row lock"
        );
        let previous = self.head.load_full();
        if let Some(previous) = &previous {
            cut_below_horizon(previous, horizon);
        }
        let version = Version {
            commit_ts: AtomicU64::new(UNCOMMITTED),
            txn,
            row,
            prev: ArcCell::new(previous),
        };
        self.head.store(Some(Arc::new(version)));
    }

    /// A free slot whose only version is `row`, committed at `commit_ts` (recovery).
    pub(crate) fn committed(key: Box<[u8]>, row: Row, commit_ts: u64) -> RowSlot {
        RowSlot {
            key,
            head: ArcCell::from_pointee(Version::committed(row, commit_ts)),
            writer: AtomicU64::new(FREE),
        }
    }

    /// Replaces every version with `row`, committed at `commit_ts`. Only recovery calls
    /// this, when no transaction, reader or collector can be looking at the slot.
    pub(crate) fn install_committed(&self, row: Row, commit_ts: u64) {
        assert_eq!(
            self.writer.load(Ordering::Relaxed),
            FREE,
            "recovered row in a locked slot"
        );
        let version = Version::committed(row, commit_ts);
        self.head.store(Some(Arc::new(version)));
    }

    /// Removes the newest version, which must be an uncommitted one of `txn`.
    pub(crate) fn pop(&self, txn: u64) -> Option<Row> {
        let head = self
            .head
            .load_full()
            .expect("pop of a slot without versions");
        assert!(
            head.txn == txn && head.commit_ts.load(Ordering::Relaxed) == UNCOMMITTED,
            "pop of a version that is not the popping transaction's"
        );
        self.head.store(head.prev.load_full());
        Arc::try_unwrap(head).ok().and_then(|v| v.row)
    }

    /// Stamps every uncommitted version of `txn` at the top of the chain.
    pub(crate) fn stamp(&self, txn: u64, commit_ts: u64) {
        let mut current = self.head.load_full();
        while let Some(version) = current {
            if version.txn != txn || version.commit_ts.load(Ordering::Relaxed) != UNCOMMITTED {
                break;
            }
            version.commit_ts.store(commit_ts, Ordering::Release);
            current = version.prev.load_full();
        }
    }

    /// Number of versions reachable from the head (a diagnostic: tests use it to check
    /// that chains are cut, invariant (4) of the crate).
    pub fn version_count(&self) -> usize {
        let mut count = 0;
        let mut current = self.head.load_full();
        while let Some(version) = current {
            count += 1;
            current = version.prev.load_full();
        }
        count
    }

    /// Every row this slot may hold once its current writer (if any) finishes: the row of
    /// each uncommitted version (a savepoint rollback may return to any of them) and the
    /// newest committed row. Entries are None for a deleted or absent row. Used by
    /// uniqueness checks against slots other transactions may be writing.
    pub(crate) fn possible_rows<R>(&self, mut f: impl FnMut(Option<&[Value]>) -> R) -> Vec<R> {
        let mut out = Vec::new();
        let mut current = self.head.load_full();
        while let Some(version) = current {
            out.push(f(version.row.as_deref()));
            if version.commit_ts.load(Ordering::Acquire) != UNCOMMITTED {
                return out;
            }
            current = version.prev.load_full();
        }
        out.push(f(None));
        out
    }
}

pub(crate) enum LatestOwned {
    Absent {
        committed_after_snapshot: bool,
    },
    Row {
        version: Arc<Version>,
        committed_after_snapshot: bool,
    },
}

impl LatestOwned {
    pub(crate) fn committed_after_snapshot(&self) -> bool {
        match self {
            LatestOwned::Absent {
                committed_after_snapshot,
            }
            | LatestOwned::Row {
                committed_after_snapshot,
                ..
            } => *committed_after_snapshot,
        }
    }

    pub(crate) fn row(&self) -> Option<&[Value]> {
        match self {
            LatestOwned::Row { version, .. } => version.row.as_deref(),
            LatestOwned::Absent { .. } => None,
        }
    }
}

/// Keeps the newest committed version at or below `horizon` and drops everything older.
fn cut_below_horizon(newest: &Arc<Version>, horizon: u64) {
    let mut current = Some(newest.clone());
    while let Some(version) = current {
        let ts = version.commit_ts.load(Ordering::Acquire);
        if ts != UNCOMMITTED && ts <= horizon {
            version.prev.store(None);
            return;
        }
        current = version.prev.load_full();
    }
}
