//! Delay loops: what a spinning waiter costs the thread doing real work beside it.
//!
//! A "spinner" waits for a lock that is never released during the run: it runs a
//! delay of [`DELAY_ITERATIONS`] iterations, then probes the lock word, forever.
//! A "worker" thread meanwhile does private arithmetic and reads a read-mostly
//! global (think: a config struct) that happens to share a cache line with the
//! global the old InnoDB delay wrote. We report the worker's work rate and the
//! spinner's probe rate for each delay:
//!
//! - `innodb_old`: each iteration CASes a local variable, each delay writes a
//!   global (MySQL 5.7's `ut_delay` on non-x86, bug 72805): coherence traffic.
//! - `compiler_barrier`: an empty loop kept alive by a compiler barrier only.
//! - `spin_hint`: the architecture's hint (PAUSE here).
//! - `yield_hint`: AArch64 YIELD, measured only on AArch64.
//! - `none`: no spinner, the worker alone (the baseline).
//!
//! Invariants:
//! (1) Every variant does the same number of iterations per delay, so a slower hint
//!     shows up as a lower probe rate, which is the point of a hint.
//! (2) The worker and spinner run unpinned (this crate has no `unsafe` for
//!     `sched_setaffinity`); on a machine without SMT the hint's benefit to a
//!     sibling cannot show, and the report says which machine it ran on.

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use manycore_sync::{compiler_barrier, spin_hint, spin_hint_yield};
use serde::Serialize;

/// Iterations of the delay body between two probes (invariant 1).
pub const DELAY_ITERATIONS: u32 = 32;
/// Arithmetic steps per unit of worker progress.
const WORK_STEPS: u32 = 64;

/// A delay loop variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DelayLoop {
    None,
    InnodbOld,
    CompilerBarrier,
    SpinHint,
    YieldHint,
}

impl DelayLoop {
    /// Variants measured on this architecture, baseline first.
    pub fn variants() -> Vec<DelayLoop> {
        let mut variants = vec![
            DelayLoop::None,
            DelayLoop::InnodbOld,
            DelayLoop::CompilerBarrier,
            DelayLoop::SpinHint,
        ];
        if cfg!(target_arch = "aarch64") {
            variants.push(DelayLoop::YieldHint);
        }
        variants
    }

    /// Label for tables.
    pub fn label(self) -> &'static str {
        match self {
            DelayLoop::None => "none (worker alone)",
            DelayLoop::InnodbOld => "innodb_old (CAS local + write global)",
            DelayLoop::CompilerBarrier => "compiler_barrier (empty loop)",
            DelayLoop::SpinHint => "spin_hint",
            DelayLoop::YieldHint => "yield_hint (aarch64 YIELD)",
        }
    }
}

/// One delay-loop measurement.
#[derive(Debug, Clone, Serialize)]
pub struct DelayResult {
    pub delay: DelayLoop,
    /// Worker progress units per second (higher is better).
    pub worker_units_per_sec: f64,
    /// Worker rate relative to the `none` baseline (filled in by `measure_all`).
    pub worker_vs_alone: f64,
    /// Spinner probes of the lock word per second (lower means less line traffic).
    pub spinner_probes_per_sec: f64,
}

/// Globals laid out as a C compiler would put them in .bss: adjacent.
#[repr(C, align(128))]
struct Globals {
    /// Read by the worker on every unit of work.
    config: AtomicU64,
    /// Written by the old InnoDB delay (`ut_always_false`).
    always_false: AtomicU64,
}

/// The lock word the spinner probes; on its own line.
#[repr(align(128))]
struct LockWord(AtomicBool);

fn delay_innodb_old(globals: &Globals, round: u64) {
    let local = AtomicU64::new(0);
    let mut sum = 0u64;
    for i in 0..DELAY_ITERATIONS {
        // The old UT_RELAX_CPU() on non-x86: an atomic RMW on a local.
        let _ = black_box(&local).compare_exchange(0, 1, Ordering::SeqCst, Ordering::SeqCst);
        sum = sum.wrapping_add(u64::from(i));
    }
    // Stands in for the write to the global `ut_always_false`.
    globals.always_false.store(sum ^ round, Ordering::Relaxed);
}

fn delay_with(hint: fn()) {
    for _ in 0..DELAY_ITERATIONS {
        hint();
    }
}

/// Both loops check `stop` after their step, not before, so each reports at least one step
/// even when the scheduler runs it only after the window closed (a loaded machine).
fn run_spinner(delay: DelayLoop, globals: &Globals, lock: &LockWord, stop: &AtomicBool) -> u64 {
    let mut probes = 0u64;
    loop {
        match delay {
            DelayLoop::None => return 0,
            DelayLoop::InnodbOld => delay_innodb_old(globals, probes),
            DelayLoop::CompilerBarrier => delay_with(compiler_barrier),
            DelayLoop::SpinHint => delay_with(spin_hint),
            DelayLoop::YieldHint => delay_with(spin_hint_yield),
        }
        // The probe: is the lock free yet? (It never is during the run.)
        if !lock.0.load(Ordering::Relaxed) {
            break;
        }
        probes += 1;
        if stop.load(Ordering::Relaxed) {
            break;
        }
    }
    probes
}

fn run_worker(globals: &Globals, stop: &AtomicBool) -> u64 {
    let mut units = 0u64;
    let mut x = 1u64;
    loop {
        let config = globals.config.load(Ordering::Relaxed);
        for _ in 0..WORK_STEPS {
            x = black_box(
                x.wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(config),
            );
        }
        units += 1;
        if stop.load(Ordering::Relaxed) {
            break;
        }
    }
    black_box(x);
    units
}

/// Measures one variant for `duration`.
pub fn measure(delay: DelayLoop, duration: Duration) -> Result<DelayResult, String> {
    let globals = Arc::new(Globals {
        config: AtomicU64::new(1),
        always_false: AtomicU64::new(0),
    });
    let lock = Arc::new(LockWord(AtomicBool::new(true)));
    let stop = Arc::new(AtomicBool::new(false));
    let start = Arc::new(Barrier::new(3));
    let spinner = {
        let (globals, lock, stop, start) = (
            Arc::clone(&globals),
            Arc::clone(&lock),
            Arc::clone(&stop),
            Arc::clone(&start),
        );
        std::thread::spawn(move || {
            start.wait();
            run_spinner(delay, &globals, &lock, &stop)
        })
    };
    let worker = {
        let (globals, stop, start) = (Arc::clone(&globals), Arc::clone(&stop), Arc::clone(&start));
        std::thread::spawn(move || {
            start.wait();
            run_worker(&globals, &stop)
        })
    };
    start.wait();
    let started = Instant::now();
    std::thread::sleep(duration);
    stop.store(true, Ordering::Relaxed);
    let elapsed = started.elapsed().as_secs_f64();
    let probes = spinner.join().map_err(|_| "spinner panicked".to_string())?;
    let units = worker.join().map_err(|_| "worker panicked".to_string())?;
    Ok(DelayResult {
        delay,
        worker_units_per_sec: units as f64 / elapsed,
        worker_vs_alone: 1.0,
        spinner_probes_per_sec: probes as f64 / elapsed,
    })
}

/// Rounds per variant; variants are interleaved and each keeps its best round,
/// so a burst of unrelated load on a shared machine hits all of them alike.
pub const ROUNDS: u32 = 3;

/// Measures every variant (best of [`ROUNDS`], `duration` in total per variant)
/// and fills `worker_vs_alone` against the baseline.
pub fn measure_all(duration: Duration) -> Result<Vec<DelayResult>, String> {
    let variants = DelayLoop::variants();
    let mut best: Vec<Option<DelayResult>> = vec![None; variants.len()];
    for _ in 0..ROUNDS {
        for (slot, delay) in best.iter_mut().zip(&variants) {
            let result = measure(*delay, duration / ROUNDS)?;
            if slot
                .as_ref()
                .is_none_or(|kept| result.worker_units_per_sec > kept.worker_units_per_sec)
            {
                *slot = Some(result);
            }
        }
    }
    let mut results: Vec<DelayResult> = best.into_iter().flatten().collect();
    let alone = results
        .iter()
        .find(|result| result.delay == DelayLoop::None)
        .map_or(0.0, |result| result.worker_units_per_sec);
    if alone > 0.0 {
        for result in &mut results {
            result.worker_vs_alone = result.worker_units_per_sec / alone;
        }
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_variants_report_progress() {
        let results = measure_all(Duration::from_millis(20)).expect("measured");
        assert_eq!(results[0].delay, DelayLoop::None);
        assert_eq!(results[0].spinner_probes_per_sec, 0.0);
        assert!((results[0].worker_vs_alone - 1.0).abs() < 1e-9);
        for result in &results[1..] {
            assert!(result.spinner_probes_per_sec > 0.0, "{result:?}");
            assert!(result.worker_units_per_sec > 0.0, "{result:?}");
        }
    }
}
