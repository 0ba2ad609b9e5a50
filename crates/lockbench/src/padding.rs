//! Per-worker counters: two threads each bump their own counter, with the two
//! counters on one cache line (false sharing) or on separate padded lines, and
//! through `manycore_sync::WorkerCounters` (what the server uses).
//!
//! Invariant: each counter has one writer and is bumped with a Relaxed load +
//! store, as `WorkerCounters::add` does, so only the layout differs.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;
use manycore_sync::WorkerCounters;
use serde::Serialize;

/// One layout's result.
#[derive(Debug, Clone, Serialize)]
pub struct PaddingResult {
    pub layout: &'static str,
    /// Distance between the two threads' counters in bytes.
    pub stride_bytes: usize,
    /// Increments per second by both threads together.
    pub increments_per_sec: f64,
}

trait TwoCounters: Send + Sync + 'static {
    fn bump(&self, worker: usize);
    fn total(&self) -> u64;
    fn stride(&self) -> usize;
}

struct Adjacent([AtomicU64; 2]);
struct Padded([CachePadded<AtomicU64>; 2]);
struct Sharded(WorkerCounters<1>);

fn bump(cell: &AtomicU64) {
    cell.store(cell.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
}

impl TwoCounters for Adjacent {
    fn bump(&self, worker: usize) {
        bump(&self.0[worker]);
    }
    fn total(&self) -> u64 {
        self.0.iter().map(|cell| cell.load(Ordering::Relaxed)).sum()
    }
    fn stride(&self) -> usize {
        std::mem::size_of::<AtomicU64>()
    }
}

impl TwoCounters for Padded {
    fn bump(&self, worker: usize) {
        bump(&self.0[worker]);
    }
    fn total(&self) -> u64 {
        self.0.iter().map(|cell| cell.load(Ordering::Relaxed)).sum()
    }
    fn stride(&self) -> usize {
        std::mem::size_of::<CachePadded<AtomicU64>>()
    }
}

impl TwoCounters for Sharded {
    fn bump(&self, worker: usize) {
        self.0.add(worker, 0, 1);
    }
    fn total(&self) -> u64 {
        self.0.sum(0)
    }
    fn stride(&self) -> usize {
        self.0.shard_address(1) - self.0.shard_address(0)
    }
}

fn measure_layout<C: TwoCounters>(
    layout: &'static str,
    counters: C,
    duration: Duration,
) -> Result<PaddingResult, String> {
    let counters = Arc::new(counters);
    let stop = Arc::new(AtomicBool::new(false));
    let start = Arc::new(Barrier::new(3));
    let handles: Vec<_> = (0..2)
        .map(|worker| {
            let (counters, stop, start) =
                (Arc::clone(&counters), Arc::clone(&stop), Arc::clone(&start));
            std::thread::spawn(move || {
                start.wait();
                while !stop.load(Ordering::Relaxed) {
                    // Batches keep the stop check off the measured path.
                    for _ in 0..256 {
                        // black_box: stop LLVM fusing the 256 load+store pairs into one.
                        std::hint::black_box(&*counters).bump(worker);
                    }
                }
            })
        })
        .collect();
    start.wait();
    let started = Instant::now();
    std::thread::sleep(duration);
    stop.store(true, Ordering::Relaxed);
    for handle in handles {
        handle
            .join()
            .map_err(|_| "counter thread panicked".to_string())?;
    }
    let elapsed = started.elapsed().as_secs_f64();
    Ok(PaddingResult {
        layout,
        stride_bytes: counters.stride(),
        increments_per_sec: counters.total() as f64 / elapsed,
    })
}

/// Adjacent, padded, and `WorkerCounters` layouts, interleaved, best of 3 rounds.
pub fn measure_all(duration: Duration) -> Result<Vec<PaddingResult>, String> {
    let round = duration / 3;
    let mut best: Vec<PaddingResult> = Vec::new();
    for _ in 0..3 {
        let adjacent = Adjacent([AtomicU64::new(0), AtomicU64::new(0)]);
        let padded = Padded([
            CachePadded::new(AtomicU64::new(0)),
            CachePadded::new(AtomicU64::new(0)),
        ]);
        let results = [
            measure_layout("unpadded (same line)", adjacent, round)?,
            measure_layout("CachePadded", padded, round)?,
            measure_layout("WorkerCounters", Sharded(WorkerCounters::new(2)), round)?,
        ];
        if best.is_empty() {
            best = results.to_vec();
        } else {
            for (kept, result) in best.iter_mut().zip(results) {
                if result.increments_per_sec > kept.increments_per_sec {
                    *kept = result;
                }
            }
        }
    }
    Ok(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_have_expected_strides() {
        let results = measure_all(Duration::from_millis(20)).expect("measured");
        assert_eq!(results[0].stride_bytes, 8);
        assert!(results[1].stride_bytes >= 128);
        assert!(results[2].stride_bytes >= 128);
        assert!(results.iter().all(|result| result.increments_per_sec > 0.0));
    }
}
