//! `ArcCell<T>`: an `Option<Arc<T>>` that threads load without locks while others replace
//! it, reclaimed by epochs (crossbeam-epoch) instead of by `arc_swap`'s debt lists.
//!
//! Why: `arc_swap::ArcSwapOption` makes every store, and every drop of the cell, walk all
//! threads' debt slots (`pay_all`, two atomic read-modify-writes per thread node). Storage's
//! version chains store and drop such a cell several times per written row, which cost
//! about 5% of a durable write transaction's instructions. Here a store is one swap plus a
//! deferred release, a drop releases at once, and a load is an epoch pin and a count
//! increment (`load_full`) or no count at all (`with`).
//!
//! Invariants:
//! (1) A non-null `ptr` came from `Arc::into_raw` and owns one strong count.
//! (2) The count a replaced pointer owned is released only through `Guard::defer`, after
//!     every thread that was pinned when it was replaced has unpinned. A loader reads
//!     `ptr` and takes its own count (or uses the value) while pinned, so the value it
//!     read is alive throughout.
//! (3) `Drop` releases the count at once: it has `&mut self`, so no loader of this cell
//!     is running (a loader holds `&self`).
//! (4) Stores publish with Release (the swap) and loads read with Acquire, so a loader
//!     sees the value fully written.
//!
//! Model-checked with loom, crossbeam-epoch included (`loom_tests` below; the command is in
//! docs/locking.md). Under `cfg(loom)` the pointer and the `Arc` are loom's, so loom also
//! tracks every count: a leak, a double release or a use after release fails the run.

use std::marker::PhantomData;

#[cfg(loom)]
use loom::sync::atomic::{AtomicPtr, Ordering};
#[cfg(loom)]
use loom::sync::Arc;
#[cfg(not(loom))]
use std::sync::atomic::{AtomicPtr, Ordering};
#[cfg(not(loom))]
use std::sync::Arc;

// Without it crossbeam-epoch would run on real atomics and threads: loom would see none of
// the pinning and the check would pass without checking anything.
#[cfg(all(loom, not(crossbeam_loom)))]
compile_error!("the loom run needs RUSTFLAGS=\"--cfg loom --cfg crossbeam_loom\"");

pub struct ArcCell<T> {
    ptr: AtomicPtr<T>,
    /// The cell owns an `Arc<T>`: it is `Send`/`Sync` only when that is (an `AtomicPtr`
    /// alone would make it both for any `T`).
    _owns: PhantomData<Arc<T>>,
}

/// A pointer whose strong count a deferred closure releases on another thread.
struct Owned<T>(*const T);

// SAFETY: `Owned` carries one strong count of an `Arc<T>` (invariant (1)); sending it is
// sending that `Arc<T>`, which is `Send` when `T: Send + Sync`.
unsafe impl<T: Send + Sync> Send for Owned<T> {}

fn into_raw<T>(value: Option<Arc<T>>) -> *mut T {
    value.map_or(std::ptr::null_mut(), |arc| Arc::into_raw(arc).cast_mut())
}

impl<T: Send + Sync + 'static> ArcCell<T> {
    pub fn new(value: Option<Arc<T>>) -> ArcCell<T> {
        ArcCell {
            ptr: AtomicPtr::new(into_raw(value)),
            _owns: PhantomData,
        }
    }

    pub fn empty() -> ArcCell<T> {
        ArcCell::new(None)
    }

    pub fn from_pointee(value: T) -> ArcCell<T> {
        ArcCell::new(Some(Arc::new(value)))
    }

    /// Whether the cell holds nothing (no pin, no count: the answer may be stale at once).
    pub fn is_none(&self) -> bool {
        self.ptr.load(Ordering::Acquire).is_null()
    }

    /// The current value, with its own strong count.
    pub fn load_full(&self) -> Option<Arc<T>> {
        let _guard = crossbeam_epoch::pin();
        let ptr = self.ptr.load(Ordering::Acquire);
        if ptr.is_null() {
            return None;
        }
        // SAFETY: `ptr` came from `Arc::into_raw` (invariant (1)) and its count is released
        // no earlier than after we unpin (invariant (2)), so the `Arc` is alive and taking
        // another count is sound; the count we take is ours to wrap.
        unsafe {
            Arc::increment_strong_count(ptr);
            Some(Arc::from_raw(ptr))
        }
    }

    /// Calls `f` with the current value, without taking a count: the value stays alive
    /// while `f` runs (the thread is pinned).
    pub fn with<R>(&self, f: impl FnOnce(Option<&T>) -> R) -> R {
        let _guard = crossbeam_epoch::pin();
        let ptr = self.ptr.load(Ordering::Acquire);
        // SAFETY: as in `load_full`: the value is alive while we are pinned, and the
        // reference cannot escape `f`.
        f(unsafe { ptr.as_ref() })
    }

    /// Replaces the value. The old value's count is released once no thread that could
    /// have loaded it is still pinned (invariant (2)).
    pub fn store(&self, value: Option<Arc<T>>) {
        let old = self.ptr.swap(into_raw(value), Ordering::AcqRel);
        if old.is_null() {
            return;
        }
        let owned = Owned(old.cast_const());
        let guard = crossbeam_epoch::pin();
        // SAFETY: `old` owned one count (invariant (1)) that nothing else will release: the
        // swap took it out of the cell. The closure is `Send` (`Owned`), runs once, and
        // references nothing that may be gone by then.
        unsafe {
            guard.defer_unchecked(move || {
                let owned = owned;
                drop(Arc::from_raw(owned.0));
            });
        }
    }
}

impl<T> Drop for ArcCell<T> {
    fn drop(&mut self) {
        #[cfg(not(loom))]
        let ptr = *self.ptr.get_mut();
        #[cfg(loom)]
        let ptr = self.ptr.with_mut(|ptr| *ptr);
        if !ptr.is_null() {
            // SAFETY: the cell owns this count (invariant (1)) and no loader is running
            // (invariant (3)).
            unsafe { drop(Arc::from_raw(ptr)) };
        }
    }
}

impl<T> std::fmt::Debug for ArcCell<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArcCell").finish_non_exhaustive()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::ArcCell;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    static LIVE: AtomicUsize = AtomicUsize::new(0);

    struct Counted(u64);

    impl Counted {
        fn new(v: u64) -> Counted {
            LIVE.fetch_add(1, Ordering::SeqCst);
            Counted(v)
        }
    }

    impl Drop for Counted {
        fn drop(&mut self) {
            LIVE.fetch_sub(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn loads_what_was_stored_and_frees_everything() {
        {
            let cell = ArcCell::from_pointee(Counted::new(1));
            assert_eq!(cell.load_full().map(|c| c.0), Some(1));
            cell.store(Some(Arc::new(Counted::new(2))));
            assert_eq!(cell.with(|c| c.map(|c| c.0)), Some(2));
            cell.store(None);
            assert!(cell.is_none());
            assert!(cell.load_full().is_none());
            cell.store(Some(Arc::new(Counted::new(3))));
        }
        // Replaced values go once the epoch advances. That needs every pinned thread to
        // repin, and other tests' threads pin the same global collector: on a loaded
        // machine one of them can sit descheduled while pinned for a whole time slice, so
        // wait by the clock (bounded), not by a count of attempts.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while std::time::Instant::now() < deadline {
            crossbeam_epoch::pin().flush();
            if LIVE.load(Ordering::SeqCst) == 0 {
                return;
            }
            std::thread::sleep(std::time::Duration::from_micros(100));
        }
        panic!("{} values never freed", LIVE.load(Ordering::SeqCst));
    }

    #[test]
    fn concurrent_loads_see_whole_values_while_stores_replace_them() {
        let cell = Arc::new(ArcCell::from_pointee(vec![0u64; 8]));
        std::thread::scope(|scope| {
            for _ in 0..3 {
                let cell = cell.clone();
                scope.spawn(move || {
                    for _ in 0..20_000 {
                        let loaded = cell.load_full().expect("never stored None");
                        assert!(loaded.iter().all(|&v| v == loaded[0]));
                        cell.with(|v| {
                            let v = v.expect("never stored None");
                            assert!(v.iter().all(|&x| x == v[0]));
                        });
                    }
                });
            }
            for i in 1..20_000u64 {
                cell.store(Some(Arc::new(vec![i; 8])));
            }
        });
    }
}

/// Model checks: `RUSTFLAGS="--cfg loom --cfg crossbeam_loom" cargo test -p manycore-sync
/// --release loom`. A reader must see the old or the new value whole and alive, and every
/// value must be released exactly once (loom's leak check ends each execution). Writers
/// flush the epoch so that releases can race readers; the models do not require a value to
/// be freed before the execution ends (under loom the epoch sometimes does not advance).
#[cfg(all(test, loom))]
mod loom_tests {
    use super::ArcCell;
    use loom::cell::UnsafeCell;
    use loom::sync::Arc;

    const FREED: usize = usize::MAX;

    struct Value {
        id: usize,
        /// Written when created and when dropped, read by readers: loom reports a read that
        /// the creation does not happen-before (a publish too weak) or that races the drop
        /// (a release too early).
        data: UnsafeCell<usize>,
    }

    // SAFETY: `data` is written only by `new` and `drop`; loom checks that every read is
    // ordered after the first and before the second.
    unsafe impl Sync for Value {}

    impl Value {
        fn new(id: usize) -> Value {
            Value {
                id,
                data: UnsafeCell::new(id),
            }
        }

        /// Reads the value whole and returns its id.
        fn check(&self) -> usize {
            // SAFETY: loom checks the access (see `data`).
            let data = self.data.with(|data| unsafe { *data });
            assert_eq!(
                data, self.id,
                "read a value that is not whole or already freed"
            );
            self.id
        }
    }

    impl Drop for Value {
        fn drop(&mut self) {
            self.data.with_mut(|data| {
                // SAFETY: loom checks the access (see `data`).
                let data = unsafe { &mut *data };
                assert_ne!(*data, FREED, "value released twice");
                *data = FREED;
            });
        }
    }

    /// Pushes this thread's deferred releases and tries to advance the epoch, so values
    /// can be freed while the other thread runs (production threads get this by pinning
    /// often; without it a model frees only at teardown, where nothing races).
    fn collect() {
        crossbeam_epoch::pin().flush();
    }

    fn builder(preemption_bound: usize) -> loom::model::Builder {
        let mut builder = loom::model::Builder::new();
        builder.preemption_bound = Some(preemption_bound);
        builder
    }

    /// A reader takes a count (`load_full`) and then uses the value without one (`with`)
    /// while the writer replaces it and collects; both drop their handle of the cell, so the
    /// cell's own drop races the reader's last use of what it loaded.
    #[test]
    fn loom_load_full_and_with_against_store() {
        builder(2).check(|| {
            let cell = Arc::new(ArcCell::from_pointee(Value::new(1)));
            let reader = {
                let cell = Arc::clone(&cell);
                loom::thread::spawn(move || {
                    let loaded = cell.load_full().expect("never None");
                    let now = cell.with(|value| value.expect("never None").check());
                    drop(cell);
                    assert!(loaded.check() <= now, "went back to an older value");
                })
            };
            cell.store(Some(Arc::new(Value::new(2))));
            collect();
            drop(cell);
            reader.join().expect("reader panicked");
        });
    }

    /// A reader uses the value without a count while the writer empties the cell and
    /// collects.
    #[test]
    fn loom_with_against_store_none() {
        builder(3).check(|| {
            let cell = Arc::new(ArcCell::from_pointee(Value::new(1)));
            let reader = {
                let cell = Arc::clone(&cell);
                loom::thread::spawn(move || cell.with(|value| value.map(Value::check)))
            };
            cell.store(None);
            collect();
            assert!(matches!(
                reader.join().expect("reader panicked"),
                None | Some(1)
            ));
            assert!(cell.is_none());
        });
    }

    /// Two writers race to replace the value: each of the three values is released once
    /// (loom reports a leaked `Arc` at the end of an execution).
    #[test]
    fn loom_two_writers_release_every_value_once() {
        builder(2).check(|| {
            let cell = Arc::new(ArcCell::from_pointee(Value::new(1)));
            let writer = {
                let cell = Arc::clone(&cell);
                loom::thread::spawn(move || cell.store(Some(Arc::new(Value::new(2)))))
            };
            cell.store(Some(Arc::new(Value::new(3))));
            writer.join().expect("writer panicked");
            let last = cell.load_full().expect("never None").check();
            assert!(last == 2 || last == 3);
        });
    }
}
