//! Data-owning mutexes over [`RawSpinParkLock`]: [`SpinParkMutex`] (plain) and
//! [`NamedMutex`] (instrumented, listed by [`crate::mutex_status`]).
//!
//! Most code should use `parking_lot::Mutex`. Use these where a lock is hot
//! enough that its spin phase matters (POWER priority, calibrated budget) or
//! where operators need to see its contention in `SHOW ENGINE MANYCORE MUTEX`.
//!
//! Invariants:
//! (1) The data is reachable only through a guard, and a guard exists only while
//!     its mutex's raw lock is held; dropping the guard unlocks.
//! (2) The uncontended path of `NamedMutex::lock` is one compare-exchange on the
//!     lock word: no statistics write, no clock read. Statistics are written only
//!     after the first attempt failed.
//! (3) Guards are `!Send`: they are released on the thread that acquired them.

use std::cell::UnsafeCell;
use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::time::Instant;

use crate::instrument::LockStats;
use crate::raw_lock::RawSpinParkLock;

/// A mutex that spins for a calibrated time, then parks.
pub struct SpinParkMutex<T: ?Sized> {
    raw: RawSpinParkLock,
    data: UnsafeCell<T>,
}

// SAFETY: the mutex hands out access to `T` to one thread at a time (invariant 1),
// so it can be shared between threads whenever `T` can be sent between them.
unsafe impl<T: ?Sized + Send> Sync for SpinParkMutex<T> {}
// SAFETY: moving the mutex moves the `T` it owns.
unsafe impl<T: ?Sized + Send> Send for SpinParkMutex<T> {}

impl<T> SpinParkMutex<T> {
    /// An unlocked mutex holding `value`.
    #[cfg(not(loom))]
    pub const fn new(value: T) -> Self {
        SpinParkMutex {
            raw: RawSpinParkLock::new(),
            data: UnsafeCell::new(value),
        }
    }

    /// An unlocked mutex holding `value`.
    #[cfg(loom)]
    pub fn new(value: T) -> Self {
        SpinParkMutex {
            raw: RawSpinParkLock::new(),
            data: UnsafeCell::new(value),
        }
    }

    /// Consumes the mutex and returns the data.
    pub fn into_inner(self) -> T {
        self.data.into_inner()
    }
}

impl<T: ?Sized> SpinParkMutex<T> {
    /// Waits for the lock and returns a guard.
    #[inline]
    pub fn lock(&self) -> MutexGuard<'_, T> {
        self.raw.lock();
        // SAFETY: the lock was just taken.
        unsafe { MutexGuard::new(&self.raw, &self.data) }
    }

    /// Takes the lock if it is free right now.
    #[inline]
    pub fn try_lock(&self) -> Option<MutexGuard<'_, T>> {
        // SAFETY: the lock was just taken.
        self.raw
            .try_lock()
            .then(|| unsafe { MutexGuard::new(&self.raw, &self.data) })
    }

    /// Mutable access without locking: `&mut self` proves no guard exists.
    pub fn get_mut(&mut self) -> &mut T {
        self.data.get_mut()
    }
}

impl<T: Default> Default for SpinParkMutex<T> {
    fn default() -> Self {
        Self::new(T::default())
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for SpinParkMutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.try_lock() {
            Some(guard) => f
                .debug_struct("SpinParkMutex")
                .field("data", &&*guard)
                .finish(),
            None => f.write_str("SpinParkMutex { <locked> }"),
        }
    }
}

/// An instrumented mutex: counts contended acquisitions, spins, parks and wait
/// time under a name, without a shared write when uncontended (invariant 2).
pub struct NamedMutex<T: ?Sized> {
    stats: &'static LockStats,
    raw: RawSpinParkLock,
    data: UnsafeCell<T>,
}

// SAFETY: as for SpinParkMutex; `stats` is `&'static` to atomics, itself Sync.
unsafe impl<T: ?Sized + Send> Sync for NamedMutex<T> {}
// SAFETY: moving the mutex moves the `T` it owns.
unsafe impl<T: ?Sized + Send> Send for NamedMutex<T> {}

impl<T> NamedMutex<T> {
    /// A mutex whose contention is reported under `name`. Mutexes sharing a name
    /// share one row (like InnoDB's per-creation-site mutex stats). Registering
    /// takes the registry lock once, here, never in `lock`.
    pub fn new(name: &'static str, value: T) -> Self {
        NamedMutex {
            stats: LockStats::register(name),
            raw: RawSpinParkLock::new(),
            data: UnsafeCell::new(value),
        }
    }

    /// Consumes the mutex and returns the data.
    pub fn into_inner(self) -> T {
        self.data.into_inner()
    }
}

impl<T: ?Sized> NamedMutex<T> {
    /// Waits for the lock and returns a guard; records the wait if there was one.
    #[inline]
    pub fn lock(&self) -> MutexGuard<'_, T> {
        if !self.raw.try_lock() {
            self.lock_contended();
        }
        // SAFETY: the lock was taken by try_lock or lock_contended.
        unsafe { MutexGuard::new(&self.raw, &self.data) }
    }

    #[cold]
    fn lock_contended(&self) {
        let started = Instant::now();
        let contention = self.raw.lock_contended();
        self.stats.record(contention, started.elapsed());
    }

    /// Takes the lock if it is free right now (never counted as a wait).
    #[inline]
    pub fn try_lock(&self) -> Option<MutexGuard<'_, T>> {
        // SAFETY: the lock was just taken.
        self.raw
            .try_lock()
            .then(|| unsafe { MutexGuard::new(&self.raw, &self.data) })
    }

    /// The name this mutex reports under.
    pub fn name(&self) -> &'static str {
        self.stats.name()
    }

    /// Mutable access without locking: `&mut self` proves no guard exists.
    pub fn get_mut(&mut self) -> &mut T {
        self.data.get_mut()
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for NamedMutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = f.debug_struct("NamedMutex");
        out.field("name", &self.name());
        match self.try_lock() {
            Some(guard) => out.field("data", &&*guard).finish(),
            None => out.field("data", &"<locked>").finish(),
        }
    }
}

/// Access to the data of a locked [`SpinParkMutex`] or [`NamedMutex`]; unlocks on drop.
#[must_use = "the lock is released as soon as the guard is dropped"]
pub struct MutexGuard<'a, T: ?Sized> {
    raw: &'a RawSpinParkLock,
    data: &'a UnsafeCell<T>,
    /// Invariant (3): `!Send` and `!Sync`.
    not_send: PhantomData<*const ()>,
}

impl<'a, T: ?Sized> MutexGuard<'a, T> {
    /// # Safety
    /// `raw` must be held by the caller and guard `data`.
    unsafe fn new(raw: &'a RawSpinParkLock, data: &'a UnsafeCell<T>) -> Self {
        MutexGuard {
            raw,
            data,
            not_send: PhantomData,
        }
    }
}

impl<T: ?Sized> Deref for MutexGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the lock (invariant 1), so no `&mut T` exists.
        unsafe { &*self.data.get() }
    }
}

impl<T: ?Sized> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds the lock and is borrowed mutably, so this is the
        // only reference to the data.
        unsafe { &mut *self.data.get() }
    }
}

impl<T: ?Sized> Drop for MutexGuard<'_, T> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: a guard exists only while its lock is held (invariant 1).
        unsafe { self.raw.unlock() };
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::instrument::mutex_status;
    use std::sync::Arc;

    #[test]
    fn spin_park_mutex_guards_data() {
        let mutex = SpinParkMutex::new(vec![1]);
        mutex.lock().push(2);
        {
            let guard = mutex.lock();
            assert!(mutex.try_lock().is_none());
            assert_eq!(*guard, vec![1, 2]);
        }
        assert!(mutex.try_lock().is_some());
        assert!(format!("{mutex:?}").contains("[1, 2]"));
        assert_eq!(mutex.into_inner(), vec![1, 2]);
    }

    #[test]
    fn spin_park_mutex_counts_under_contention() {
        let mutex = Arc::new(SpinParkMutex::new(0u64));
        let handles: Vec<_> = (0..6)
            .map(|_| {
                let mutex = Arc::clone(&mutex);
                std::thread::spawn(move || {
                    for _ in 0..10_000 {
                        *mutex.lock() += 1;
                    }
                })
            })
            .collect();
        for handle in handles {
            handle.join().expect("worker panicked");
        }
        assert_eq!(*mutex.lock(), 60_000);
    }

    #[test]
    fn named_mutex_uncontended_records_nothing() {
        let mutex = NamedMutex::new("test.uncontended", 0u32);
        for _ in 0..1000 {
            *mutex.lock() += 1;
        }
        assert_eq!(*mutex.lock(), 1000);
        let row = mutex_status()
            .into_iter()
            .find(|row| row.name == "test.uncontended")
            .expect("registered at creation");
        assert_eq!(
            (row.waits, row.spins, row.parks, row.wait_time_ns),
            (0, 0, 0, 0)
        );
    }

    #[test]
    fn named_mutex_records_contention() {
        let mutex = Arc::new(NamedMutex::new("test.contended", 0u64));
        assert_eq!(mutex.name(), "test.contended");
        // Hold the lock while another thread waits: it must record one wait.
        let guard = mutex.lock();
        let waiter = {
            let mutex = Arc::clone(&mutex);
            std::thread::spawn(move || *mutex.lock() += 1)
        };
        std::thread::sleep(std::time::Duration::from_millis(50));
        drop(guard);
        waiter.join().expect("waiter panicked");
        let row = mutex_status()
            .into_iter()
            .find(|row| row.name == "test.contended")
            .expect("registered at creation");
        assert_eq!(row.waits, 1);
        // Usually the waiter parks (a 50 ms hold outlasts the spin budget), but under
        // qemu the waiter thread may start only just before the release, so allow
        // a wait that ended while spinning.
        assert!(row.parks <= 1, "{row:?}");
        assert!(row.wait_time_ns > 0, "{row:?}");
        assert!(row.status().contains("waits=1"));
    }
}
