//! Startup calibration: what one spin hint costs on this CPU.
//!
//! PAUSE takes ~10 cycles on older Intel cores and ~140 on Skylake and later; ISB
//! varies as much across Arm cores. A spin loop bounded by an iteration count
//! therefore waits 10x longer on one machine than another. Like MariaDB's
//! `my_cpu_init()` (which times 16 PAUSEs with RDTSC and picks a multiplier), we
//! time batches of 16 hints once and convert every spin budget from time into a
//! hint count, so the hot loop never reads a clock.
//!
//! Invariants:
//! (1) Calibration runs at most once per process (a `OnceLock`), on first use or
//!     when the server calls [`calibrate_spin_hint`] at startup.
//! (2) The reported cost is the minimum over several rounds: preemption and SMT
//!     siblings only ever make a round slower, so the minimum is the hint's cost.
//! (3) The cost is clamped to at least 0.1 ns per hint, so converting a budget into
//!     a hint count never divides by zero or overflows.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::spin::spin_hint;

/// Hints per timed batch, as in MariaDB's measurement.
const HINTS_PER_BATCH: u32 = 16;
/// Rounds whose minimum is kept (invariant 2).
const ROUNDS: u32 = 7;
/// A round runs at least this long, so timer resolution is negligible.
const ROUND_DURATION_MIN: Duration = Duration::from_micros(200);
/// Lower clamp for the per-hint cost, in picoseconds (invariant 3).
const HINT_COST_PS_MIN: u64 = 100;

/// The measured cost of [`spin_hint`] on this CPU.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpinCalibration {
    /// Cost of one hint in picoseconds (integer maths in the spin path).
    pub hint_cost_ps: u64,
    /// Cost of 16 hints in nanoseconds, the figure MariaDB reports.
    pub batch_of_16_ns: f64,
    /// Wall time the calibration itself took.
    pub calibration_time: Duration,
}

impl SpinCalibration {
    /// Hints that fit in `budget` (at least 1).
    pub fn hints_for(&self, budget: Duration) -> u64 {
        let budget_ps = budget.as_nanos().saturating_mul(1000);
        let hints = budget_ps / u128::from(self.hint_cost_ps);
        u64::try_from(hints).unwrap_or(u64::MAX).max(1)
    }

    /// Cost of one hint in nanoseconds.
    pub fn hint_cost_ns(&self) -> f64 {
        self.hint_cost_ps as f64 / 1000.0
    }
}

static CALIBRATION: OnceLock<SpinCalibration> = OnceLock::new();

/// The process-wide calibration, measured on first call (invariant 1). Call it
/// once at server startup so the first contended lock does not pay ~2 ms.
pub fn calibrate_spin_hint() -> &'static SpinCalibration {
    CALIBRATION.get_or_init(|| measure(spin_hint))
}

/// Times `hint` the way [`calibrate_spin_hint`] does; lockbench uses it to
/// compare hints (e.g. ISB against YIELD).
pub fn measure(hint: fn()) -> SpinCalibration {
    let started = Instant::now();
    let mut batches: u32 = 64;
    // Grow the round until it is long enough to time.
    loop {
        if time_batches(hint, batches) >= ROUND_DURATION_MIN || batches >= 1 << 24 {
            break;
        }
        batches *= 2;
    }
    let best = (0..ROUNDS)
        .map(|_| time_batches(hint, batches))
        .min()
        .expect("ROUNDS is non-zero");
    let hints = u128::from(batches) * u128::from(HINTS_PER_BATCH);
    let cost_ps = (best.as_nanos() * 1000 / hints).max(u128::from(HINT_COST_PS_MIN));
    let hint_cost_ps = u64::try_from(cost_ps).unwrap_or(u64::MAX);
    SpinCalibration {
        hint_cost_ps,
        batch_of_16_ns: hint_cost_ps as f64 * f64::from(HINTS_PER_BATCH) / 1000.0,
        calibration_time: started.elapsed(),
    }
}

fn time_batches(hint: fn(), batches: u32) -> Duration {
    let start = Instant::now();
    for _ in 0..batches {
        for _ in 0..HINTS_PER_BATCH {
            hint();
        }
    }
    start.elapsed()
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn calibration_is_measured_once_and_sane() {
        let first = calibrate_spin_hint();
        let second = calibrate_spin_hint();
        assert!(std::ptr::eq(first, second));
        assert!(first.hint_cost_ps >= HINT_COST_PS_MIN);
        // No hint on any real CPU costs a microsecond.
        assert!(first.hint_cost_ps < 1_000_000, "{first:?}");
        assert!(first.calibration_time < Duration::from_secs(5));
    }

    #[test]
    fn budget_converts_to_hint_count() {
        let calibration = SpinCalibration {
            hint_cost_ps: 40_000,
            batch_of_16_ns: 640.0,
            calibration_time: Duration::ZERO,
        };
        assert_eq!(calibration.hints_for(Duration::from_micros(10)), 250);
        assert_eq!(calibration.hints_for(Duration::ZERO), 1);
        assert_eq!(calibration.hint_cost_ns(), 40.0);
    }
}
