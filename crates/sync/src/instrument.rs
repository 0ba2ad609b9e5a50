//! Lock instrumentation: per-name contention statistics and the registry behind
//! `SHOW ENGINE MANYCORE MUTEX`.
//!
//! Invariants:
//! (1) A name is registered once, when the first mutex with that name is created;
//!     `lock` never touches the registry.
//! (2) Statistics are written only by threads that found the lock held (the
//!     contended path), with Relaxed atomic adds: they are monitor counters, not
//!     synchronisation, and each one is individually exact.
//! (3) Registered statistics live for the rest of the process (leaked), so the
//!     registry holds `&'static` references and its size is bounded by the number
//!     of distinct names, which are `&'static str` literals in the code.
//! (4) Each name's counters sit on their own cache line(s), so contention on one
//!     lock does not slow the bookkeeping of another.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crossbeam_utils::CachePadded;

use crate::raw_lock::Contention;

/// Contention counters of every mutex created with one name.
pub struct LockStats {
    name: &'static str,
    counters: CachePadded<Counters>,
}

#[derive(Default)]
struct Counters {
    waits: AtomicU64,
    spins: AtomicU64,
    parks: AtomicU64,
    wait_time_ns: AtomicU64,
}

static REGISTRY: parking_lot::Mutex<Vec<&'static LockStats>> = parking_lot::Mutex::new(Vec::new());

impl LockStats {
    /// The statistics for `name`, created on first use (invariants 1 and 3).
    pub fn register(name: &'static str) -> &'static LockStats {
        let mut registry = REGISTRY.lock();
        if let Some(existing) = registry.iter().find(|stats| stats.name == name) {
            return existing;
        }
        let stats: &'static LockStats = Box::leak(Box::new(LockStats {
            name,
            counters: CachePadded::new(Counters::default()),
        }));
        registry.push(stats);
        stats
    }

    /// The registered name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Adds one contended acquisition (invariant 2).
    pub fn record(&self, contention: Contention, waited: Duration) {
        let counters = &*self.counters;
        counters.waits.fetch_add(1, Ordering::Relaxed);
        counters
            .spins
            .fetch_add(contention.spins, Ordering::Relaxed);
        counters
            .parks
            .fetch_add(contention.parks, Ordering::Relaxed);
        let nanos = u64::try_from(waited.as_nanos()).unwrap_or(u64::MAX);
        counters.wait_time_ns.fetch_add(nanos, Ordering::Relaxed);
    }

    /// A snapshot of the counters.
    pub fn row(&self) -> MutexStatusRow {
        let counters = &*self.counters;
        MutexStatusRow {
            name: self.name,
            waits: counters.waits.load(Ordering::Relaxed),
            spins: counters.spins.load(Ordering::Relaxed),
            parks: counters.parks.load(Ordering::Relaxed),
            wait_time_ns: counters.wait_time_ns.load(Ordering::Relaxed),
        }
    }
}

/// One row of `SHOW ENGINE MANYCORE MUTEX`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MutexStatusRow {
    /// The name given at creation.
    pub name: &'static str,
    /// Contended acquisitions: the first try found the lock held.
    pub waits: u64,
    /// Probes of the lock word while spinning.
    pub spins: u64,
    /// Times a waiter slept and was woken.
    pub parks: u64,
    /// Total time spent in contended acquisitions.
    pub wait_time_ns: u64,
}

impl MutexStatusRow {
    /// The `Type` column, as InnoDB's `SHOW ENGINE INNODB MUTEX` has "InnoDB".
    pub const ENGINE: &'static str = "manycore";

    /// The `Status` column: `waits=N,spins=N,parks=N,wait_ns=N`.
    pub fn status(&self) -> String {
        format!(
            "waits={},spins={},parks={},wait_ns={}",
            self.waits, self.spins, self.parks, self.wait_time_ns
        )
    }
}

/// Every registered mutex name and its counters, sorted by name. Rows with zero
/// waits are included; the server may filter them as InnoDB does.
pub fn mutex_status() -> Vec<MutexStatusRow> {
    let mut rows: Vec<MutexStatusRow> = REGISTRY.lock().iter().map(|stats| stats.row()).collect();
    rows.sort_by(|a, b| a.name.cmp(b.name));
    rows
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn same_name_shares_one_row() {
        let first = LockStats::register("test.shared_name");
        let second = LockStats::register("test.shared_name");
        assert!(std::ptr::eq(first, second));
        first.record(Contention { spins: 3, parks: 1 }, Duration::from_nanos(500));
        second.record(Contention { spins: 2, parks: 0 }, Duration::from_nanos(100));
        let rows: Vec<_> = mutex_status()
            .into_iter()
            .filter(|row| row.name == "test.shared_name")
            .collect();
        assert_eq!(
            rows,
            vec![MutexStatusRow {
                name: "test.shared_name",
                waits: 2,
                spins: 5,
                parks: 1,
                wait_time_ns: 600
            }]
        );
        assert_eq!(rows[0].status(), "waits=2,spins=5,parks=1,wait_ns=600");
        assert_eq!(MutexStatusRow::ENGINE, "manycore");
    }

    #[test]
    fn rows_are_sorted_by_name() {
        LockStats::register("test.zz");
        LockStats::register("test.aa");
        let names: Vec<_> = mutex_status().into_iter().map(|row| row.name).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
    }
}
