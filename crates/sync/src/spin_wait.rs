//! Bounded spinning: spin for a calibrated *time*, then give up so the caller parks.
//!
//! A waiter spins only while spinning is likely to pay: the lock holder must be
//! running on another core, and the wait must be shorter than a park/unpark round
//! trip (a few microseconds). We cannot see whether the holder is on a CPU (Linux
//! offers no cheap way to ask about another thread), so we bound what spinning
//! can cost instead:
//!
//! - *Time*, not iterations: the budget ([`spin_budget`], default
//!   [`SPIN_BUDGET_DEFAULT`]) is converted to a hint count with the startup
//!   calibration, so it means the same on a 10-cycle and a 140-cycle PAUSE.
//! - *Admission*: at most `cores - 1` threads of the process spin at once. Once
//!   that many are spinning, the machine is oversubscribed from the lock's point
//!   of view: a further spinner would take the core the holder (or a spinner about
//!   to become the holder) needs, so it parks at once. With one core nobody spins.
//!   We chose this over sampling `/proc/loadavg` or `/proc/stat`: the load average
//!   is a one-minute mean that reacts far too late to a burst of 512 clients, and
//!   reading procfs is a syscall costing more than the whole spin budget. The
//!   spinner count is exact, current, and only touched by threads that are
//!   already contended.
//!
//! Invariants:
//! (1) A `SpinWait` executes at most `budget / hint cost` hints (at least one probe
//!     if admitted), then [`SpinWait::spin`] returns false until [`SpinWait::reset`].
//! (2) Probes are separated by bursts of 1, 2, 4 ... up to [`BURST_HINTS_MAX`] hints,
//!     so many waiters read the lock's cache line rarely.
//! (3) At most [`spinners_max`] threads hold spin admission at once; admission is
//!     released as soon as a `SpinWait` stops spinning or is dropped.
//! (4) While admitted, the thread holds a [`LowPriorityGuard`] (POWER: low SMT
//!     priority); it is dropped, restoring priority, when admission is released.
//! (5) Nothing here writes shared memory on an uncontended path: a `SpinWait` that
//!     never calls `spin` touches no global.
//! (6) Under `cfg(loom)` the budget is one probe and admission always succeeds,
//!     keeping the model's state space small.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use crossbeam_utils::CachePadded;

use crate::calibrate::calibrate_spin_hint;
use crate::spin::LowPriorityGuard;

/// Default spin budget: about the cost of a futex park plus unpark on Linux.
pub const SPIN_BUDGET_DEFAULT: Duration = Duration::from_micros(10);
/// Largest burst of hints between two probes (invariant 2).
pub const BURST_HINTS_MAX: u32 = 64;

static SPIN_BUDGET_NS: AtomicU64 = AtomicU64::new(SPIN_BUDGET_DEFAULT.as_nanos() as u64);
/// Threads currently admitted to spin (invariant 3). Padded: it is written by
/// contended threads only, and must not share a line with anything hot.
static SPINNERS: CachePadded<AtomicUsize> = CachePadded::new(AtomicUsize::new(0));
static SPINNERS_MAX: OnceLock<usize> = OnceLock::new();

/// Sets the process-wide spin budget (the server's `innodb_spin_wait_delay`-like knob).
/// `Duration::ZERO` disables spinning.
pub fn set_spin_budget(budget: Duration) {
    let nanos = u64::try_from(budget.as_nanos()).unwrap_or(u64::MAX);
    SPIN_BUDGET_NS.store(nanos, Ordering::Relaxed);
}

/// The current process-wide spin budget.
pub fn spin_budget() -> Duration {
    Duration::from_nanos(SPIN_BUDGET_NS.load(Ordering::Relaxed))
}

/// How many threads may spin at once: online cores minus one (invariant 3).
pub fn spinners_max() -> usize {
    *SPINNERS_MAX.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, |cores| cores.get())
            .saturating_sub(1)
    })
}

/// Threads spinning right now (for tests and status output).
pub fn spinners_now() -> usize {
    SPINNERS.load(Ordering::Relaxed)
}

/// The budget in hints, or `None` when spinning is disabled. Recomputed at each
/// admission (one division, on a contended path only) so a budget change takes
/// effect at once without a second cached global.
fn budget_hints() -> Option<u64> {
    let budget = spin_budget();
    (!budget.is_zero()).then(|| calibrate_spin_hint().hints_for(budget))
}

enum Admission {
    NotAsked,
    Admitted(LowPriorityGuard),
    Refused,
}

/// One waiter's bounded spin. Create it when contention is first seen; call
/// [`spin`](Self::spin) between probes of the lock word; park when it returns false.
pub struct SpinWait {
    hints_left: u64,
    burst: u32,
    probes: u32,
    admission: Admission,
}

impl SpinWait {
    /// A spin wait with the process-wide budget. Touches no shared state until
    /// the first `spin` (invariant 5).
    pub fn new() -> Self {
        SpinWait {
            hints_left: 0,
            burst: 1,
            probes: 0,
            admission: Admission::NotAsked,
        }
    }

    /// Delays before the next probe. Returns false when the caller should stop
    /// spinning and park: the budget is spent or spin admission was refused.
    #[inline]
    pub fn spin(&mut self) -> bool {
        if !self.admitted() {
            return false;
        }
        if self.hints_left == 0 {
            self.stop();
            return false;
        }
        if cfg!(loom) {
            self.hints_left -= 1;
            self.probes += 1;
            crate::spin::spin_hint();
            return true;
        }
        let burst = u64::from(self.burst).min(self.hints_left);
        if let Admission::Admitted(guard) = &self.admission {
            for _ in 0..burst {
                guard.hint();
            }
        }
        self.hints_left -= burst;
        self.burst = (self.burst * 2).min(BURST_HINTS_MAX);
        self.probes += 1;
        true
    }

    /// Probes made so far (the "spins" of lock instrumentation).
    pub fn probes(&self) -> u32 {
        self.probes
    }

    /// Allows a new round of spinning, e.g. after a parked waiter was woken and
    /// lost the race for the lock.
    pub fn reset(&mut self) {
        self.stop();
        self.admission = Admission::NotAsked;
        self.burst = 1;
    }

    fn admitted(&mut self) -> bool {
        match self.admission {
            Admission::Admitted(_) => true,
            Admission::Refused => false,
            Admission::NotAsked => {
                let budget = if cfg!(loom) { Some(1) } else { budget_hints() };
                let Some(budget) = budget.filter(|_| try_admit()) else {
                    self.admission = Admission::Refused;
                    return false;
                };
                self.hints_left = budget;
                self.admission = Admission::Admitted(LowPriorityGuard::new());
                true
            }
        }
    }

    /// Releases admission and restores priority (invariants 3 and 4).
    fn stop(&mut self) {
        if let Admission::Admitted(guard) =
            std::mem::replace(&mut self.admission, Admission::Refused)
        {
            drop(guard);
            SPINNERS.fetch_sub(1, Ordering::Relaxed);
        }
        self.hints_left = 0;
    }
}

impl Default for SpinWait {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for SpinWait {
    fn drop(&mut self) {
        self.stop();
    }
}

fn try_admit() -> bool {
    if cfg!(loom) {
        return true;
    }
    let max = spinners_max();
    // Read first: when the quota is full (the oversubscribed case) we refuse
    // without writing the shared counter at all.
    if SPINNERS.load(Ordering::Relaxed) >= max {
        return false;
    }
    if SPINNERS.fetch_add(1, Ordering::Relaxed) < max {
        true
    } else {
        SPINNERS.fetch_sub(1, Ordering::Relaxed);
        false
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::calibrate::SpinCalibration;

    /// A wait that got admission. Other tests' lock waiters may hold the quota
    /// for a moment (it is 1 on a 2-core machine), so retry briefly.
    fn admitted_wait() -> Option<SpinWait> {
        if spinners_max() == 0 {
            return None;
        }
        for _ in 0..5_000 {
            let mut wait = SpinWait::new();
            if wait.spin() {
                return Some(wait);
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        panic!("spin admission never granted");
    }

    #[test]
    fn spin_wait_is_bounded_and_resettable() {
        let Some(mut wait) = admitted_wait() else {
            assert!(!SpinWait::new().spin(), "single core: never spin");
            return;
        };
        let mut probes = 1u32;
        while wait.spin() {
            probes += 1;
            assert!(probes < 10_000_000, "spin budget not enforced");
        }
        assert_eq!(wait.probes(), probes);
        assert!(!wait.spin(), "stays stopped until reset");
        wait.reset();
        assert!(spinners_now() <= spinners_max());
    }

    #[test]
    fn zero_budget_disables_spinning() {
        let calibration = SpinCalibration {
            hint_cost_ps: 1000,
            batch_of_16_ns: 16.0,
            calibration_time: Duration::ZERO,
        };
        assert_eq!(calibration.hints_for(Duration::ZERO), 1);
        set_spin_budget(Duration::ZERO);
        assert_eq!(spin_budget(), Duration::ZERO);
        assert!(!SpinWait::new().spin());
        set_spin_budget(SPIN_BUDGET_DEFAULT);
        assert_eq!(spin_budget(), SPIN_BUDGET_DEFAULT);
    }

    #[test]
    fn admission_is_capped() {
        let max = spinners_max();
        let mut admitted: Vec<SpinWait> = Vec::new();
        for _ in 0..max + 4 {
            let mut wait = SpinWait::new();
            if wait.spin() {
                admitted.push(wait);
            }
        }
        // Other tests may hold admission concurrently, so only an upper bound holds.
        assert!(admitted.len() <= max);
        assert!(spinners_now() <= max);
    }
}
