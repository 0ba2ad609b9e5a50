//! The acquire strategies lockbench compares, behind one small trait.
//!
//! The three spinlocks exist only to be measured; production code uses
//! `parking_lot` or `manycore_sync`. None of them needs `unsafe`: the benchmark's
//! shared data is atomics updated with Relaxed load + store, which is the same
//! machine code as plain memory on x86 and AArch64, and the lock provides the
//! exclusion (lockbench checks the final total, so a broken lock is caught).
//!
//! Invariants:
//! (1) Every strategy acquires with Acquire and releases with Release.
//! (2) Spinlocks probe with `spin_hint()` between attempts and call
//!     `thread::yield_now()` every [`PROBES_BEFORE_YIELD`] probes. Without that a
//!     ticket lock at 512 threads on 2 cores waits for the scheduler to pick the
//!     one thread whose turn it is and a run never ends; real user-space spinlocks
//!     (InnoDB's included) yield or sleep after a spin round too.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use manycore_sync::{spin_hint, SpinParkMutex};
use serde::Serialize;

/// Probes a benchmark spinlock makes before yielding its time slice (invariant 2).
pub const PROBES_BEFORE_YIELD: u32 = 128;

/// A lock that runs a closure while held.
pub trait BenchLock: Send + Sync + Default + 'static {
    /// Runs `critical_section` with the lock held.
    fn with<R>(&self, critical_section: impl FnOnce() -> R) -> R;
}

/// Which lock a measurement used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// Blind test-and-set: every probe is an atomic swap (MySQL's old TAS).
    Tas,
    /// Test-and-test-and-set, acquired with compare-and-swap (MariaDB's CAS).
    TtasCas,
    /// FIFO ticket lock.
    Ticket,
    /// manycore_sync::SpinParkMutex: calibrated spin, then futex park.
    SpinPark,
    /// parking_lot::Mutex.
    ParkingLot,
    /// std::sync::Mutex (futex on Linux).
    Std,
}

impl Strategy {
    /// All strategies, in report order.
    pub const ALL: [Strategy; 6] = [
        Strategy::Tas,
        Strategy::TtasCas,
        Strategy::Ticket,
        Strategy::SpinPark,
        Strategy::ParkingLot,
        Strategy::Std,
    ];

    /// Short label for tables and charts.
    pub fn label(self) -> &'static str {
        match self {
            Strategy::Tas => "tas",
            Strategy::TtasCas => "ttas-cas",
            Strategy::Ticket => "ticket",
            Strategy::SpinPark => "spinpark",
            Strategy::ParkingLot => "parking_lot",
            Strategy::Std => "std",
        }
    }
}

/// Counts probes and yields the time slice every `PROBES_BEFORE_YIELD` (invariant 2).
struct Backoff {
    probes: u32,
}

impl Backoff {
    fn new() -> Self {
        Backoff { probes: 0 }
    }

    #[inline]
    fn wait(&mut self) {
        self.probes += 1;
        if self.probes.is_multiple_of(PROBES_BEFORE_YIELD) {
            std::thread::yield_now();
        } else {
            spin_hint();
        }
    }
}

/// Test-and-set: `swap(true)` until it returns false.
#[derive(Default)]
pub struct TasLock {
    locked: AtomicBool,
}

impl BenchLock for TasLock {
    fn with<R>(&self, critical_section: impl FnOnce() -> R) -> R {
        let mut backoff = Backoff::new();
        while self.locked.swap(true, Ordering::Acquire) {
            backoff.wait();
        }
        let result = critical_section();
        self.locked.store(false, Ordering::Release);
        result
    }
}

/// Test-and-test-and-set: load until free, then one compare-and-swap.
#[derive(Default)]
pub struct TtasCasLock {
    locked: AtomicBool,
}

impl BenchLock for TtasCasLock {
    fn with<R>(&self, critical_section: impl FnOnce() -> R) -> R {
        let mut backoff = Backoff::new();
        loop {
            if !self.locked.load(Ordering::Relaxed)
                && self
                    .locked
                    .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
            {
                break;
            }
            backoff.wait();
        }
        let result = critical_section();
        self.locked.store(false, Ordering::Release);
        result
    }
}

/// Ticket lock: take a number, wait until it is served. Fair (FIFO) by construction.
#[derive(Default)]
pub struct TicketLock {
    next_ticket: AtomicU32,
    now_serving: AtomicU32,
}

impl BenchLock for TicketLock {
    fn with<R>(&self, critical_section: impl FnOnce() -> R) -> R {
        let ticket = self.next_ticket.fetch_add(1, Ordering::Relaxed);
        let mut backoff = Backoff::new();
        while self.now_serving.load(Ordering::Acquire) != ticket {
            backoff.wait();
        }
        let result = critical_section();
        // Only the holder writes now_serving, so load + store is enough.
        self.now_serving
            .store(ticket.wrapping_add(1), Ordering::Release);
        result
    }
}

/// manycore_sync's spin-then-park mutex.
#[derive(Default)]
pub struct SpinParkLock(SpinParkMutex<()>);

impl BenchLock for SpinParkLock {
    fn with<R>(&self, critical_section: impl FnOnce() -> R) -> R {
        let _guard = self.0.lock();
        critical_section()
    }
}

/// parking_lot::Mutex.
#[derive(Default)]
pub struct ParkingLotLock(parking_lot::Mutex<()>);

impl BenchLock for ParkingLotLock {
    fn with<R>(&self, critical_section: impl FnOnce() -> R) -> R {
        let _guard = self.0.lock();
        critical_section()
    }
}

/// std::sync::Mutex.
#[derive(Default)]
pub struct StdLock(std::sync::Mutex<()>);

impl BenchLock for StdLock {
    fn with<R>(&self, critical_section: impl FnOnce() -> R) -> R {
        // A panic inside a benchmark critical section is a bug; poisoning only
        // records it, so carrying on with the inner guard is fine here.
        let _guard = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        critical_section()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;
    use std::sync::Arc;

    fn excludes<L: BenchLock>() {
        let lock = Arc::new(L::default());
        let value = Arc::new(AtomicU64::new(0));
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let (lock, value) = (Arc::clone(&lock), Arc::clone(&value));
                std::thread::spawn(move || {
                    for _ in 0..5_000 {
                        lock.with(|| {
                            let seen = value.load(Ordering::Relaxed);
                            value.store(seen + 1, Ordering::Relaxed);
                        });
                    }
                })
            })
            .collect();
        for handle in handles {
            handle.join().expect("worker panicked");
        }
        assert_eq!(value.load(Ordering::Relaxed), 20_000);
    }

    #[test]
    fn every_strategy_is_mutually_exclusive() {
        excludes::<TasLock>();
        excludes::<TtasCasLock>();
        excludes::<TicketLock>();
        excludes::<SpinParkLock>();
        excludes::<ParkingLotLock>();
        excludes::<StdLock>();
        assert_eq!(Strategy::ALL.len(), 6);
        assert_eq!(Strategy::TtasCas.label(), "ttas-cas");
    }
}
