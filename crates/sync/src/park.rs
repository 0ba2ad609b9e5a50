//! Parking: putting a waiter to sleep on an address until an unlocker wakes it.
//!
//! Normal builds use `parking_lot_core` (a futex-backed, address-keyed wait queue).
//! Under `cfg(loom)` the same contract is modelled with loom's `Mutex` and
//! `Condvar`, so the model checker explores every interleaving of the lock word
//! with the queue, including the lost-wakeup windows.
//!
//! Invariants (the contract both implementations keep):
//! (1) `park`'s `validate` runs while the queue is locked; if it returns false the
//!     thread does not sleep.
//! (2) `unpark_one`'s `callback` runs while the queue is locked, after one waiter
//!     (if any) was removed, and is told whether waiters remain.
//! (3) Because (1) and (2) hold the same queue lock, a waiter that validated a
//!     lock-word state cannot miss the unlock that changes it.

#[cfg(not(loom))]
pub(crate) struct Parker;

#[cfg(not(loom))]
impl Parker {
    pub(crate) const fn new() -> Self {
        Parker
    }

    /// Sleeps on `key` if `validate()` holds (invariant 1). Returns true if this
    /// thread slept and was woken by `unpark_one`.
    pub(crate) fn park(&self, key: usize, validate: impl FnOnce() -> bool) -> bool {
        // SAFETY: `key` is the address of a lock owned by this crate, used as a key
        // by nothing else. `validate` only loads an atomic: it cannot panic or call
        // into parking_lot. `before_sleep` and `timed_out` do nothing.
        let result = unsafe {
            parking_lot_core::park(
                key,
                validate,
                || {},
                |_, _| {},
                parking_lot_core::DEFAULT_PARK_TOKEN,
                None,
            )
        };
        result.is_unparked()
    }

    /// Wakes one sleeper on `key`; `callback(waiters_remain)` runs under the
    /// queue lock (invariant 2).
    pub(crate) fn unpark_one(&self, key: usize, callback: impl FnOnce(bool)) {
        // SAFETY: same key ownership as in `park`; the callback only stores to an
        // atomic, so it cannot panic or call into parking_lot.
        unsafe {
            parking_lot_core::unpark_one(key, |result| {
                callback(result.have_more_threads);
                parking_lot_core::DEFAULT_UNPARK_TOKEN
            });
        }
    }
}

#[cfg(loom)]
pub(crate) struct Parker {
    queue: loom::sync::Mutex<ParkQueue>,
    wakeup: loom::sync::Condvar,
}

#[cfg(loom)]
#[derive(Default)]
struct ParkQueue {
    /// Threads that validated and are (about to be) asleep.
    sleeping: usize,
    /// Wake-ups granted but not yet consumed.
    granted: usize,
}

#[cfg(loom)]
impl Parker {
    pub(crate) fn new() -> Self {
        Parker {
            queue: loom::sync::Mutex::new(ParkQueue::default()),
            wakeup: loom::sync::Condvar::new(),
        }
    }

    pub(crate) fn park(&self, _key: usize, validate: impl FnOnce() -> bool) -> bool {
        let mut queue = self.queue.lock().expect("loom queue poisoned");
        if !validate() {
            return false;
        }
        queue.sleeping += 1;
        while queue.granted == 0 {
            queue = self.wakeup.wait(queue).expect("loom queue poisoned");
        }
        queue.granted -= 1;
        true
    }

    pub(crate) fn unpark_one(&self, _key: usize, callback: impl FnOnce(bool)) {
        let mut queue = self.queue.lock().expect("loom queue poisoned");
        let woke = queue.sleeping > 0;
        if woke {
            queue.sleeping -= 1;
            queue.granted += 1;
        }
        callback(queue.sleeping > 0);
        drop(queue);
        if woke {
            self.wakeup.notify_all();
        }
    }
}
