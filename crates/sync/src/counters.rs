//! Per-worker counters: one cache line (or more) per worker, summed by readers.
//!
//! Status counters (Questions, Com_select, Bytes_sent ...) are bumped on every
//! query. One shared atomic would bounce its cache line between every core on
//! every query; instead each worker thread owns a shard and readers add shards up.
//!
//! Invariants:
//! (1) Shards never share a cache line: each is `CachePadded` (128 bytes on
//!     x86_64, AArch64 and POWER, covering adjacent-line prefetch).
//! (2) Each shard has a single writer, the worker with that index, so `add` is a
//!     Relaxed load plus a Relaxed store, not a read-modify-write. If two threads
//!     ever shared an index, increments could be lost but memory stays sound.
//! (3) Readers use Relaxed loads: a sum is a moment-in-time estimate, each shard
//!     value is monotonic, and no other data is published through a counter.

use std::sync::atomic::{AtomicU64, Ordering};

use crossbeam_utils::CachePadded;

/// `N` counters per worker, each worker on its own cache line(s).
pub struct WorkerCounters<const N: usize> {
    shards: Box<[CachePadded<[AtomicU64; N]>]>,
}

impl<const N: usize> WorkerCounters<N> {
    /// Counters for `workers` writers (at least one).
    pub fn new(workers: usize) -> Self {
        assert!(workers > 0, "WorkerCounters needs at least one shard");
        let shards = (0..workers)
            .map(|_| CachePadded::new(std::array::from_fn(|_| AtomicU64::new(0))))
            .collect();
        WorkerCounters { shards }
    }

    /// Number of shards (workers).
    pub fn workers(&self) -> usize {
        self.shards.len()
    }

    /// Adds `n` to `counter` in `worker`'s shard. Must only be called by the
    /// thread that owns `worker` (invariant 2). Panics on an out-of-range index.
    #[inline]
    pub fn add(&self, worker: usize, counter: usize, n: u64) {
        let cell = &self.shards[worker][counter];
        cell.store(
            cell.load(Ordering::Relaxed).wrapping_add(n),
            Ordering::Relaxed,
        );
    }

    /// Sum of `counter` over all shards (invariant 3).
    pub fn sum(&self, counter: usize) -> u64 {
        self.shards
            .iter()
            .map(|shard| shard[counter].load(Ordering::Relaxed))
            .fold(0u64, u64::wrapping_add)
    }

    /// Sums of all `N` counters.
    pub fn snapshot(&self) -> [u64; N] {
        std::array::from_fn(|counter| self.sum(counter))
    }

    /// Address of a shard, for layout tests and lockbench.
    pub fn shard_address(&self, worker: usize) -> usize {
        &self.shards[worker] as *const CachePadded<[AtomicU64; N]> as usize
    }
}

/// One `T` per worker, each on its own cache line(s) (invariant 1).
pub struct PerWorker<T> {
    slots: Box<[CachePadded<T>]>,
}

impl<T> PerWorker<T> {
    /// `workers` slots made by `make(worker_index)`.
    pub fn new(workers: usize, make: impl FnMut(usize) -> T) -> Self {
        PerWorker {
            slots: (0..workers).map(make).map(CachePadded::new).collect(),
        }
    }

    /// The slot of `worker`. Panics on an out-of-range index.
    pub fn get(&self, worker: usize) -> &T {
        &self.slots[worker]
    }

    /// All slots, in worker order.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.slots.iter().map(|slot| &**slot)
    }

    /// Number of slots.
    pub fn workers(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::Arc;

    const QUESTIONS: usize = 0;
    const BYTES_SENT: usize = 1;

    #[test]
    fn shards_do_not_share_cache_lines() {
        let counters = WorkerCounters::<4>::new(8);
        for worker in 1..counters.workers() {
            let gap = counters.shard_address(worker) - counters.shard_address(worker - 1);
            assert!(gap >= 128, "shards {gap} bytes apart");
            assert_eq!(counters.shard_address(worker) % 128, 0);
        }
        let per_worker = PerWorker::new(3, |_| AtomicU64::new(0));
        let a = per_worker.get(0) as *const AtomicU64 as usize;
        let b = per_worker.get(1) as *const AtomicU64 as usize;
        assert!(b - a >= 128);
    }

    #[test]
    fn concurrent_workers_sum_exactly() {
        let workers = 4;
        let counters = Arc::new(WorkerCounters::<2>::new(workers));
        let handles: Vec<_> = (0..workers)
            .map(|worker| {
                let counters = Arc::clone(&counters);
                std::thread::spawn(move || {
                    for _ in 0..100_000 {
                        counters.add(worker, QUESTIONS, 1);
                        counters.add(worker, BYTES_SENT, 10);
                    }
                })
            })
            .collect();
        for handle in handles {
            handle.join().expect("worker panicked");
        }
        assert_eq!(counters.sum(QUESTIONS), 400_000);
        assert_eq!(counters.snapshot(), [400_000, 4_000_000]);
    }

    #[test]
    fn per_worker_iterates_in_order() {
        let slots = PerWorker::new(3, |worker| worker * 10);
        assert_eq!(slots.workers(), 3);
        assert_eq!(slots.iter().copied().collect::<Vec<_>>(), vec![0, 10, 20]);
    }

    #[test]
    #[should_panic(expected = "at least one shard")]
    fn zero_workers_is_a_programmer_error() {
        let _ = WorkerCounters::<1>::new(0);
    }
}
