//! Snapshot registration, the garbage-collection horizon, and queued garbage.
//!
//! Every session owns a `ReaderSlot`: the snapshot it is reading at, or IDLE. The horizon
//! is a timestamp no active snapshot is older than; versions older than the newest one at
//! or below it are unreachable (slot invariant (4) of the crate).
//!
//! Invariants:
//! (1) `ReaderSlot::pin` stores 0 ("pins everything") before loading the clock, and all
//!     three operations are SeqCst, as is the collector's clock load and slot scan. So if
//!     the collector's scan misses a reader's pin, that reader's clock load came after the
//!     collector's, and its snapshot is at or above the horizon being computed.
//! (2) The horizon never decreases.
//! (3) Only the pinning session writes its slot; the collector only reads it.
//! (4) A slot pins at most one snapshot at a time: one live `Transaction` per `ReaderSlot`
//!     (a second `begin` on a pinned slot panics, since the first transaction's unpin
//!     would let the collector cut versions the second still reads).

use crossbeam_utils::CachePadded;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

const IDLE: u64 = u64::MAX;

/// One session's snapshot registration (see the module docs). Cheap to clone; every clone
/// is the same slot.
#[derive(Clone)]
pub struct ReaderSlot(Arc<CachePadded<AtomicU64>>);

impl ReaderSlot {
    /// Takes a snapshot: the current clock, registered so the collector keeps it readable.
    pub(crate) fn pin(&self, clock: &AtomicU64, horizon: &Horizon) -> u64 {
        let previous = self.0.swap(0, Ordering::SeqCst);
        assert_eq!(
            previous, IDLE,
            "a reader slot pinned twice: one live transaction per session (invariant (4))"
        );
        let snapshot = clock.load(Ordering::SeqCst);
        self.0.store(snapshot, Ordering::SeqCst);
        debug_assert!(snapshot >= horizon.get());
        snapshot
    }

    /// Whether a transaction on this slot is live (for sessions' own sanity checks).
    pub fn is_pinned(&self) -> bool {
        self.0.load(Ordering::Acquire) != IDLE
    }

    pub(crate) fn unpin(&self) {
        self.0.store(IDLE, Ordering::Release);
    }
}

#[derive(Default)]
pub(crate) struct Horizon {
    value: CachePadded<AtomicU64>,
    readers: Mutex<Vec<Weak<CachePadded<AtomicU64>>>>,
}

impl Horizon {
    pub(crate) fn register(&self) -> ReaderSlot {
        let slot = Arc::new(CachePadded::new(AtomicU64::new(IDLE)));
        let mut readers = self.readers.lock();
        readers.retain(|r| r.strong_count() > 0);
        readers.push(Arc::downgrade(&slot));
        ReaderSlot(slot)
    }

    pub(crate) fn get(&self) -> u64 {
        self.value.load(Ordering::Acquire)
    }

    /// Recomputes the horizon from the clock and every pinned snapshot.
    pub(crate) fn advance(&self, clock: &AtomicU64) {
        let mut oldest = clock.load(Ordering::SeqCst);
        let readers = self.readers.lock();
        for reader in readers.iter().filter_map(Weak::upgrade) {
            oldest = oldest.min(reader.load(Ordering::SeqCst));
        }
        self.value.fetch_max(oldest, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn horizon_follows_the_oldest_pinned_snapshot() {
        let horizon = Horizon::default();
        let clock = AtomicU64::new(10);
        let a = horizon.register();
        let b = horizon.register();
        assert_eq!(a.pin(&clock, &horizon), 10);
        clock.store(20, Ordering::SeqCst);
        assert_eq!(b.pin(&clock, &horizon), 20);
        horizon.advance(&clock);
        assert_eq!(horizon.get(), 10);
        a.unpin();
        horizon.advance(&clock);
        assert_eq!(horizon.get(), 20);
        b.unpin();
        drop(b);
        clock.store(30, Ordering::SeqCst);
        horizon.advance(&clock);
        assert_eq!(horizon.get(), 30);
    }
}
