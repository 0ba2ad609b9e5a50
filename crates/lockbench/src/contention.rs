//! Acquire strategies under contention: N threads take one lock in a loop.
//!
//! Each thread: lock, critical section, unlock, a little private "think" work,
//! repeat until the stop flag. Throughput is total acquisitions per second;
//! fairness is max/min acquisitions per thread (1.0 is perfectly fair).
//!
//! Invariants:
//! (1) The critical section updates shared data with Relaxed load + store only, so
//!     lost updates reveal a broken lock: a run whose final total differs from the
//!     number of acquisitions is an error, not a number.
//! (2) Threads start together (a barrier, then a `go` flag set right after main
//!     takes its start timestamp) and only acquisitions that completed before the
//!     stop flag count toward throughput.
//! (3) Threads use small stacks ([`THREAD_STACK_BYTES`]) so 512 of them fit easily.

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;
use serde::Serialize;

use crate::locks::{
    BenchLock, ParkingLotLock, SpinParkLock, StdLock, Strategy, TasLock, TicketLock, TtasCasLock,
};

/// Stack size of benchmark threads (invariant 3).
pub const THREAD_STACK_BYTES: usize = 64 * 1024;
/// Cache lines the long critical section updates.
const LONG_SECTION_LINES: usize = 8;
/// Dependent multiply-add steps in the long critical section (~1-2 us).
const LONG_SECTION_STEPS: u32 = 1_000;
/// Dependent multiply-add steps of private work between acquisitions.
const THINK_STEPS: u32 = 50;

/// How much work is done while the lock is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CriticalSection {
    /// One cache line updated: the lock hand-off dominates.
    Short,
    /// Eight lines and ~1-2 us of dependent arithmetic.
    Long,
}

impl CriticalSection {
    /// Label for tables.
    pub fn label(self) -> &'static str {
        match self {
            CriticalSection::Short => "short",
            CriticalSection::Long => "long",
        }
    }
}

/// One (strategy, threads, critical section) measurement.
#[derive(Debug, Clone, Serialize)]
pub struct ContentionResult {
    pub strategy: Strategy,
    pub critical_section: CriticalSection,
    pub threads: usize,
    pub duration_ms: f64,
    pub ops_per_sec: f64,
    pub ops_min: u64,
    pub ops_max: u64,
    /// max/min per-thread acquisitions; `None` when some thread got none.
    pub fairness_max_over_min: Option<f64>,
    /// Threads that completed no acquisition at all.
    pub starved_threads: usize,
}

/// Shared data guarded by the lock, one line per slot.
struct Guarded {
    lines: [CachePadded<AtomicU64>; LONG_SECTION_LINES],
}

#[inline]
fn mix(seed: u64, steps: u32) -> u64 {
    let mut x = seed;
    for _ in 0..steps {
        x = black_box(
            x.wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407),
        );
    }
    x
}

fn critical_section(data: &Guarded, kind: CriticalSection) {
    match kind {
        CriticalSection::Short => {
            let line = &data.lines[0];
            line.store(line.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        }
        CriticalSection::Long => {
            let seed = data.lines[1].load(Ordering::Relaxed);
            let mixed = mix(seed, LONG_SECTION_STEPS);
            for line in &data.lines[1..] {
                line.store(mixed ^ line.load(Ordering::Relaxed), Ordering::Relaxed);
            }
            let first = &data.lines[0];
            first.store(first.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        }
    }
}

/// Runs one measurement of `strategy`.
pub fn measure(
    strategy: Strategy,
    kind: CriticalSection,
    threads: usize,
    duration: Duration,
) -> Result<ContentionResult, String> {
    match strategy {
        Strategy::Tas => measure_lock::<TasLock>(strategy, kind, threads, duration),
        Strategy::TtasCas => measure_lock::<TtasCasLock>(strategy, kind, threads, duration),
        Strategy::Ticket => measure_lock::<TicketLock>(strategy, kind, threads, duration),
        Strategy::SpinPark => measure_lock::<SpinParkLock>(strategy, kind, threads, duration),
        Strategy::ParkingLot => measure_lock::<ParkingLotLock>(strategy, kind, threads, duration),
        Strategy::Std => measure_lock::<StdLock>(strategy, kind, threads, duration),
    }
}

fn measure_lock<L: BenchLock>(
    strategy: Strategy,
    kind: CriticalSection,
    threads: usize,
    duration: Duration,
) -> Result<ContentionResult, String> {
    assert!(threads > 0, "at least one thread");
    let lock = Arc::new(L::default());
    let data = Arc::new(Guarded {
        lines: std::array::from_fn(|_| CachePadded::new(AtomicU64::new(0))),
    });
    let stop = Arc::new(AtomicBool::new(false));
    let go = Arc::new(AtomicBool::new(false));
    let start = Arc::new(Barrier::new(threads + 1));
    let mut handles = Vec::with_capacity(threads);
    for index in 0..threads {
        let (lock, data, stop, start, go) = (
            Arc::clone(&lock),
            Arc::clone(&data),
            Arc::clone(&stop),
            Arc::clone(&start),
            Arc::clone(&go),
        );
        let handle = std::thread::Builder::new()
            .name(format!("lockbench-{index}"))
            .stack_size(THREAD_STACK_BYTES)
            .spawn(move || {
                start.wait();
                // The window opens when main has taken its timestamp: with 512
                // runnable threads main may be scheduled long after the barrier.
                while !go.load(Ordering::Relaxed) {
                    std::thread::yield_now();
                }
                let mut counted = 0u64;
                let mut total = 0u64;
                let mut seed = index as u64;
                loop {
                    lock.with(|| critical_section(&data, kind));
                    total += 1;
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    counted += 1;
                    seed = mix(seed, THINK_STEPS);
                }
                black_box(seed);
                (counted, total)
            })
            .map_err(|error| format!("spawning benchmark thread {index}: {error}"))?;
        handles.push(handle);
    }
    start.wait();
    let started = Instant::now();
    go.store(true, Ordering::Relaxed);
    std::thread::sleep(duration);
    stop.store(true, Ordering::Relaxed);
    let elapsed = started.elapsed();
    let mut per_thread = Vec::with_capacity(threads);
    let mut acquisitions = 0u64;
    for handle in handles {
        let (counted, total) = handle
            .join()
            .map_err(|_| "benchmark thread panicked".to_string())?;
        per_thread.push(counted);
        acquisitions += total;
    }
    // Invariant (1): the shared total equals the acquisitions.
    let shared_total = data.lines[0].load(Ordering::Relaxed);
    if shared_total != acquisitions {
        return Err(format!(
            "{} lost updates: {shared_total} recorded, {acquisitions} acquisitions",
            strategy.label()
        ));
    }
    Ok(summarise(strategy, kind, &per_thread, elapsed))
}

fn summarise(
    strategy: Strategy,
    kind: CriticalSection,
    per_thread: &[u64],
    elapsed: Duration,
) -> ContentionResult {
    let ops_min = per_thread.iter().copied().min().unwrap_or(0);
    let ops_max = per_thread.iter().copied().max().unwrap_or(0);
    let total: u64 = per_thread.iter().sum();
    ContentionResult {
        strategy,
        critical_section: kind,
        threads: per_thread.len(),
        duration_ms: elapsed.as_secs_f64() * 1e3,
        ops_per_sec: total as f64 / elapsed.as_secs_f64(),
        ops_min,
        ops_max,
        fairness_max_over_min: (ops_min > 0).then(|| ops_max as f64 / ops_min as f64),
        starved_threads: per_thread.iter().filter(|&&ops| ops == 0).count(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_strategy_measures_with_two_threads() {
        for strategy in Strategy::ALL {
            for kind in [CriticalSection::Short, CriticalSection::Long] {
                let result = measure(strategy, kind, 2, Duration::from_millis(20))
                    .expect("measurement succeeds");
                assert_eq!(result.threads, 2);
                assert!(result.ops_per_sec > 0.0, "{result:?}");
                assert!(result.ops_max >= result.ops_min);
            }
        }
    }

    #[test]
    fn fairness_is_none_when_a_thread_starves() {
        let result = summarise(
            Strategy::Tas,
            CriticalSection::Short,
            &[10, 0, 5],
            Duration::from_secs(1),
        );
        assert_eq!(result.fairness_max_over_min, None);
        assert_eq!(result.starved_threads, 1);
        assert_eq!(result.ops_per_sec, 15.0);
        let fair = summarise(
            Strategy::Tas,
            CriticalSection::Short,
            &[10, 5],
            Duration::from_secs(1),
        );
        assert_eq!(fair.fairness_max_over_min, Some(2.0));
    }
}
