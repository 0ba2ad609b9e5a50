//! manycore-sync: spin-waits, the locks we had to write, lock instrumentation and
//! per-worker counters. The only crate in the workspace with `unsafe`.
//!
//! Code map:
//! - [`spin`]: the per-architecture spin hint and the POWER priority guard.
//! - [`calibrate`]: what one hint costs on this CPU, measured once at startup.
//! - [`spin_wait`]: bounded, time-calibrated spinning with an admission cap.
//! - `park`: futex parking (parking_lot_core), or a loom model of it.
//! - [`raw_lock`]: the spin-then-park lock word, model-checked with loom.
//! - [`mutex`]: `SpinParkMutex<T>` and the instrumented `NamedMutex<T>`.
//! - [`instrument`]: per-name lock statistics and [`mutex_status`].
//! - [`counters`]: `WorkerCounters<N>` and `PerWorker<T>` on padded cache lines.
//! - [`alloc_count`]: a counting global allocator for allocation-free-path tests.
//! - [`arc_cell`]: `ArcCell<T>`, an epoch-reclaimed `Option<Arc<T>>` for version chains,
//!   model-checked with loom (crossbeam-epoch running on loom too).
//!
//! Crate invariants:
//! (1) Every `unsafe` block says why it is sound in a `// SAFETY:` comment.
//! (2) Lock acquire uses Acquire, release uses Release; monitor counters use
//!     Relaxed. Nothing in this crate issues a SeqCst fence (an `ArcCell` load pins
//!     the epoch, which crossbeam-epoch does with one).
//! (3) No spin delay executes an atomic read-modify-write or writes shared memory.
//! (4) Prefer `parking_lot`: a lock is written here only when no library lock does
//!     the job, and then it is model-checked (`RUSTFLAGS="--cfg loom --cfg
//!     crossbeam_loom" cargo test -p manycore-sync --release loom`) and benchmarked
//!     (`manycore lockbench`). So is any other hand-written primitive (`ArcCell`).

pub mod alloc_count;
pub mod arc_cell;
pub mod calibrate;
pub mod counters;
pub mod instrument;
pub mod mutex;
mod park;
pub mod raw_lock;
pub mod spin;
pub mod spin_wait;

pub use arc_cell::ArcCell;
pub use calibrate::{calibrate_spin_hint, SpinCalibration};
pub use counters::{PerWorker, WorkerCounters};
pub use instrument::{mutex_status, LockStats, MutexStatusRow};
pub use mutex::{MutexGuard, NamedMutex, SpinParkMutex};
pub use raw_lock::{Contention, RawSpinParkLock};
pub use spin::{compiler_barrier, spin_hint, spin_hint_name, spin_hint_yield, LowPriorityGuard};
pub use spin_wait::{set_spin_budget, spin_budget, SpinWait, SPIN_BUDGET_DEFAULT};
