//! `RawSpinParkLock`: a one-byte mutex that spins for a calibrated time, then parks.
//!
//! Why we wrote it instead of using `parking_lot::RawMutex`: parking_lot's spin
//! phase counts iterations of `std::hint::spin_loop()`, which emits nothing on
//! POWER and never lowers SMT priority, and it cannot report how many spins and
//! parks an acquisition took. This lock reuses parking_lot's futex queue
//! (`parking_lot_core`) and parking_lot's proven two-bit protocol, and replaces
//! only the spin phase with [`SpinWait`] (time-bounded, POWER-aware, admission
//! capped) plus counters for instrumentation. It is model-checked with loom
//! (`tests` below) and benchmarked against parking_lot in `manycore lockbench`.
//!
//! State byte: bit 0 `LOCKED`, bit 1 `PARKED` (someone is or may be asleep).
//!
//! Invariants:
//! (1) Mutual exclusion: `LOCKED` is set only by a compare-exchange from a state
//!     without `LOCKED`, with Acquire ordering; it is cleared only by the holder,
//!     with Release ordering. No full (SeqCst) fence anywhere.
//! (2) No lost wake-up: a waiter sleeps only if, under the park queue lock, the
//!     state is `LOCKED | PARKED`; an unlock that sees `PARKED` clears the state
//!     under the same queue lock (park.rs invariant 3).
//! (3) `PARKED` is cleared only by an unlocker that found no remaining sleeper.
//! (4) Spinning is test-and-test-and-set: a spinner only loads the state and tries
//!     the compare-exchange when it saw the lock free, so waiters share the line
//!     instead of bouncing it.
//! (5) A thread that sees `PARKED` does not spin: a queue has formed, and a spinner
//!     would only steal the lock from the woken sleeper and burn a core.
//! (6) Not fair: a running thread may take the lock before a woken sleeper.
//!     lockbench reports the resulting max/min per-thread spread.

#[cfg(loom)]
use loom::sync::atomic::{AtomicU8, Ordering};
#[cfg(not(loom))]
use std::sync::atomic::{AtomicU8, Ordering};

use crate::park::Parker;
use crate::spin_wait::SpinWait;

const LOCKED: u8 = 1;
const PARKED: u8 = 2;

/// What one contended acquisition cost, for lock instrumentation.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Contention {
    /// Probes of the lock word made while spinning.
    pub spins: u64,
    /// Times the thread went to sleep and was woken.
    pub parks: u64,
}

/// The lock word. Use it through [`crate::SpinParkMutex`] or
/// [`crate::NamedMutex`]; the raw form is public for benchmarks and loom tests.
pub struct RawSpinParkLock {
    state: AtomicU8,
    parker: Parker,
}

impl RawSpinParkLock {
    /// An unlocked lock.
    #[cfg(not(loom))]
    pub const fn new() -> Self {
        RawSpinParkLock {
            state: AtomicU8::new(0),
            parker: Parker::new(),
        }
    }

    /// An unlocked lock (loom atomics cannot be built in a const fn).
    #[cfg(loom)]
    pub fn new() -> Self {
        RawSpinParkLock {
            state: AtomicU8::new(0),
            parker: Parker::new(),
        }
    }

    /// Takes the lock if it is free right now. One compare-exchange; never waits.
    #[inline]
    pub fn try_lock(&self) -> bool {
        // Strong, not weak: a spurious failure would be counted as contention.
        self.state
            .compare_exchange(0, LOCKED, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    /// Takes the lock, spinning then parking while it is held elsewhere.
    #[inline]
    pub fn lock(&self) {
        if !self.try_lock() {
            self.lock_contended();
        }
    }

    /// Releases the lock.
    ///
    /// # Safety
    /// The calling context must hold the lock (it took it with `lock`,
    /// `lock_contended` or a successful `try_lock`, and has not released it).
    #[inline]
    pub unsafe fn unlock(&self) {
        if self
            .state
            .compare_exchange(LOCKED, 0, Ordering::Release, Ordering::Relaxed)
            .is_err()
        {
            self.unlock_slow();
        }
    }

    /// Whether some thread holds the lock now (a snapshot, for assertions).
    pub fn is_locked(&self) -> bool {
        self.state.load(Ordering::Relaxed) & LOCKED != 0
    }

    /// The slow path of [`lock`](Self::lock), public so an instrumented wrapper
    /// can time it and record what it cost.
    #[cold]
    pub fn lock_contended(&self) -> Contention {
        let mut contention = Contention::default();
        let mut spin = SpinWait::new();
        let mut state = self.state.load(Ordering::Relaxed);
        loop {
            if state & LOCKED == 0 {
                match self.state.compare_exchange_weak(
                    state,
                    state | LOCKED,
                    Ordering::Acquire,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => {
                        contention.spins += u64::from(spin.probes());
                        return contention;
                    }
                    Err(now) => {
                        state = now;
                        continue;
                    }
                }
            }
            // Invariants (4) and (5): spin with loads only, and only while no
            // queue has formed.
            if state & PARKED == 0 && spin.spin() {
                state = self.state.load(Ordering::Relaxed);
                continue;
            }
            if state & PARKED == 0 {
                if let Err(now) = self.state.compare_exchange_weak(
                    state,
                    state | PARKED,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                ) {
                    state = now;
                    continue;
                }
            }
            // Invariant (2): sleep only if nothing changed since we set PARKED.
            let slept = self.parker.park(self.key(), || {
                self.state.load(Ordering::Relaxed) == LOCKED | PARKED
            });
            if slept {
                contention.parks += 1;
            }
            contention.spins += u64::from(spin.probes());
            spin.reset();
            state = self.state.load(Ordering::Relaxed);
        }
    }

    #[cold]
    fn unlock_slow(&self) {
        self.parker.unpark_one(self.key(), |sleepers_remain| {
            // Invariant (3); Release publishes the critical section to the next
            // owner, whose Acquire compare-exchange reads this store.
            let state = if sleepers_remain { PARKED } else { 0 };
            self.state.store(state, Ordering::Release);
        });
    }

    fn key(&self) -> usize {
        self as *const Self as usize
    }
}

#[cfg(not(loom))]
impl Default for RawSpinParkLock {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn try_lock_and_unlock() {
        let lock = RawSpinParkLock::new();
        assert!(!lock.is_locked());
        assert!(lock.try_lock());
        assert!(lock.is_locked());
        assert!(!lock.try_lock());
        // SAFETY: taken by the successful try_lock above.
        unsafe { lock.unlock() };
        assert!(!lock.is_locked());
        lock.lock();
        // SAFETY: taken by lock() above.
        unsafe { lock.unlock() };
    }

    #[test]
    fn contended_threads_park_and_all_finish() {
        struct Shared {
            lock: RawSpinParkLock,
            counter: std::cell::UnsafeCell<u64>,
        }
        // SAFETY: `counter` is only touched while `lock` is held.
        unsafe impl Sync for Shared {}
        let shared = Arc::new(Shared {
            lock: RawSpinParkLock::new(),
            counter: std::cell::UnsafeCell::new(0),
        });
        let threads = 8;
        let rounds = 20_000;
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let shared = Arc::clone(&shared);
                std::thread::spawn(move || {
                    let mut contention = Contention::default();
                    for _ in 0..rounds {
                        if !shared.lock.try_lock() {
                            let c = shared.lock.lock_contended();
                            contention.spins += c.spins;
                            contention.parks += c.parks;
                        }
                        // SAFETY: the lock is held, so no other access is live.
                        unsafe { *shared.counter.get() += 1 };
                        // SAFETY: taken just above.
                        unsafe { shared.lock.unlock() };
                    }
                    contention
                })
            })
            .collect();
        // Whether anyone parks depends on scheduling (under qemu often nobody
        // does); parking itself is checked deterministically in mutex.rs tests.
        for handle in handles {
            handle.join().expect("worker panicked");
        }
        assert!(!shared.lock.is_locked());
        // SAFETY: all workers joined.
        assert_eq!(unsafe { *shared.counter.get() }, threads * rounds);
    }
}

/// Model checks: `RUSTFLAGS="--cfg loom --cfg crossbeam_loom" cargo test -p manycore-sync
/// --release loom`.
#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::cell::UnsafeCell;
    use loom::sync::Arc;

    struct Shared {
        lock: RawSpinParkLock,
        value: UnsafeCell<u32>,
    }
    // SAFETY: `value` is only accessed while `lock` is held; loom's UnsafeCell
    // reports any access that is not ordered by the lock.
    unsafe impl Sync for Shared {}
    unsafe impl Send for Shared {}

    fn increment(shared: &Shared) {
        shared.lock.lock();
        // SAFETY: lock held; loom checks the claim.
        shared.value.with_mut(|value| unsafe { *value += 1 });
        // SAFETY: taken just above.
        unsafe { shared.lock.unlock() };
    }

    fn run(threads: usize, preemption_bound: usize) {
        let mut builder = loom::model::Builder::new();
        builder.preemption_bound = Some(preemption_bound);
        builder.check(move || {
            let shared = Arc::new(Shared {
                lock: RawSpinParkLock::new(),
                value: UnsafeCell::new(0),
            });
            let handles: Vec<_> = (0..threads - 1)
                .map(|_| {
                    let shared = Arc::clone(&shared);
                    loom::thread::spawn(move || increment(&shared))
                })
                .collect();
            increment(&shared);
            for handle in handles {
                handle.join().expect("loom thread panicked");
            }
            // Every increment happened once, and the lock is free with no stale
            // PARKED bit (invariant 3).
            assert_eq!(shared.value.with(|value| unsafe { *value }), threads as u32);
            assert_eq!(shared.lock.state.load(Ordering::Relaxed), 0);
        });
    }

    #[test]
    fn loom_two_threads_mutual_exclusion_no_lost_wakeup() {
        run(2, 4);
    }

    #[test]
    fn loom_three_threads_mutual_exclusion_no_lost_wakeup() {
        run(3, 2);
    }
}
