//! Durable waits keyed by LSN, so an fsync batch wakes only the commits it decided.
//!
//! One `tokio::sync::Notify` for every waiter made each batch wake every waiting connection,
//! also those whose commit went into the next batch and had to sleep again. Here a waiter
//! registers its waker under its LSN in an ordered map; the writer, after publishing a new
//! durable LSN, drains the map up to it and wakes exactly those. No crate we know of keeps
//! wakers ordered by a sequence number, so this one is written here and model-checked below
//! (`RUSTFLAGS="--cfg wal_loom" cargo test -p manycore-wal --release --lib loom`).
//!
//! The *condition* of a wait is `decide` (in log.rs: durable >= lsn, or failed, or
//! poisoned); a *decider* is whoever changes what `decide` returns (the writer publishing
//! a durable LSN; the error paths publishing a failure).
//!
//! Invariants:
//! (1) No lost wake-up: a waiter registers, then re-checks its condition; a decider
//!     publishes, then drains. Both take `queue`'s mutex, so either the drain finds the
//!     entry, or the waiter's re-check comes after the drain's unlock and so sees what was
//!     published before it.
//! (2) `wake_upto(lsn)` wakes only entries at or below `lsn`; later ones stay asleep.
//! (3) Every decision is followed by a drain that covers it: publishing durable LSN D by
//!     `wake_upto(D)`, failing LSNs up to F by `wake_upto(F)`, poison and shutdown by
//!     `wake_all`. A waiter whose re-check right after registering finds its condition
//!     decided removes its entry itself: that decision's drain may have run before the
//!     registration. Once a re-check found it undecided, the drain of any later decision
//!     comes after the registration (by (1)), so the entry is the drain's to remove; the
//!     waiter removes it only when dropped undecided (`cancel`). (loom found the first case.)
//! (4) Blocking waiters are the same futures, polled by `block_on` with a waker that
//!     unparks the thread, so both kinds keep (1)-(3).

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

#[cfg(not(wal_loom))]
use parking_lot::Mutex;
#[cfg(not(wal_loom))]
use std::thread;

#[cfg(wal_loom)]
use loom::thread;

/// loom's mutex, with parking_lot's guard-returning `lock`.
#[cfg(wal_loom)]
struct Mutex<T>(loom::sync::Mutex<T>);

#[cfg(wal_loom)]
impl<T> Mutex<T> {
    fn new(value: T) -> Mutex<T> {
        Mutex(loom::sync::Mutex::new(value))
    }

    fn lock(&self) -> loom::sync::MutexGuard<'_, T> {
        self.0.lock().expect("no panics under the lock")
    }
}

/// Where a registered waiter is: its LSN and a number that tells apart waiters for one
/// LSN (a commit and a flush may wait for the same record).
type WaiterKey = (u64, u64);

#[derive(Default)]
struct Queue {
    wakers: BTreeMap<WaiterKey, Waker>,
    next_id: u64,
}

pub(crate) struct DurableWaiters {
    queue: Mutex<Queue>,
}

impl DurableWaiters {
    pub(crate) fn new() -> DurableWaiters {
        DurableWaiters {
            queue: Mutex::new(Queue::default()),
        }
    }

    /// Polls a wait for `lsn`: Ready with `decide`'s outcome once it gives one, else
    /// registers `cx`'s waker under `lsn` (in `registration`) and re-checks (invariant (1)).
    /// `registration` is None again once Ready (invariant (3)).
    pub(crate) fn poll_wait<T>(
        &self,
        lsn: u64,
        registration: &mut Option<WaiterKey>,
        cx: &mut Context<'_>,
        decide: impl Fn() -> Option<T>,
    ) -> Poll<T> {
        if let Some(outcome) = decide() {
            // If registered, an earlier re-check found it undecided: the drain removed or
            // will remove the entry (invariant (3)).
            *registration = None;
            return Poll::Ready(outcome);
        }
        {
            let mut queue = self.queue.lock();
            let key = *registration.get_or_insert_with(|| {
                queue.next_id += 1;
                (lsn, queue.next_id)
            });
            // Also after a spurious poll: the task may have a new waker.
            queue.wakers.insert(key, cx.waker().clone());
        }
        match decide() {
            Some(outcome) => {
                // The deciding drain may have run before we registered (invariant (3)).
                let key = registration.take().expect("registered above");
                self.cancel(key);
                Poll::Ready(outcome)
            }
            None => Poll::Pending,
        }
    }

    /// Removes a waiter's entry: one dropped undecided, or one decided by a drain that ran
    /// before it registered (invariant (3)).
    pub(crate) fn cancel(&self, key: WaiterKey) {
        self.queue.lock().wakers.remove(&key);
    }

    /// Wakes the waiters at or below `lsn` (invariant (2)); call after publishing what
    /// decided them.
    pub(crate) fn wake_upto(&self, lsn: u64) {
        let ready = {
            let mut queue = self.queue.lock();
            match lsn.checked_add(1) {
                Some(first_later) => {
                    let later = queue.wakers.split_off(&(first_later, 0));
                    std::mem::replace(&mut queue.wakers, later)
                }
                None => std::mem::take(&mut queue.wakers),
            }
        };
        // Outside the lock: a woken waiter on another thread may register at once.
        for waker in ready.into_values() {
            waker.wake();
        }
    }

    /// Wakes every waiter (poison, shutdown).
    pub(crate) fn wake_all(&self) {
        self.wake_upto(u64::MAX);
    }

    /// Number of registered waiters (tests).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.queue.lock().wakers.len()
    }
}

/// Wakes a thread blocked in `block_on`.
struct ThreadWaker(thread::Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs a durable wait to completion on this thread (invariant (4)). Parking tolerates
/// spurious unparks: the future re-checks its condition on every poll.
pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    let waker = Waker::from(Arc::new(ThreadWaker(thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        if let Poll::Ready(outcome) = future.as_mut().poll(&mut cx) {
            return outcome;
        }
        thread::park();
    }
}

#[cfg(all(test, not(wal_loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

    /// Counts wake-ups.
    struct CountingWaker(AtomicUsize);

    impl Wake for CountingWaker {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn poll_at(
        waiters: &DurableWaiters,
        durable: &AtomicU64,
        lsn: u64,
        registration: &mut Option<WaiterKey>,
        waker: &Arc<CountingWaker>,
    ) -> Poll<()> {
        let waker = Waker::from(waker.clone());
        let decide = || (durable.load(Ordering::Acquire) >= lsn).then_some(());
        waiters.poll_wait(lsn, registration, &mut Context::from_waker(&waker), decide)
    }

    #[test]
    fn a_batch_wakes_only_the_waiters_it_made_durable() {
        let waiters = DurableWaiters::new();
        let durable = AtomicU64::new(0);
        let wakers: Vec<_> = (0..4)
            .map(|_| Arc::new(CountingWaker(AtomicUsize::new(0))))
            .collect();
        let mut registrations = [None; 4];
        for (i, waker) in wakers.iter().enumerate() {
            let lsn = i as u64 + 1;
            let polled = poll_at(&waiters, &durable, lsn, &mut registrations[i], waker);
            assert!(polled.is_pending());
        }
        durable.store(2, Ordering::Release);
        waiters.wake_upto(2);
        let woken: Vec<_> = wakers.iter().map(|w| w.0.load(Ordering::Relaxed)).collect();
        assert_eq!(woken, [1, 1, 0, 0], "only LSNs 1 and 2 are durable");
        assert_eq!(waiters.len(), 2);
        for i in 0..2 {
            let polled = poll_at(
                &waiters,
                &durable,
                i as u64 + 1,
                &mut registrations[i],
                &wakers[i],
            );
            assert!(polled.is_ready());
            assert_eq!(registrations[i], None);
        }
        waiters.wake_all();
        let woken: Vec<_> = wakers.iter().map(|w| w.0.load(Ordering::Relaxed)).collect();
        assert_eq!(woken, [1, 1, 1, 1], "an error or shutdown wakes everyone");
        assert_eq!(waiters.len(), 0);
    }

    #[test]
    fn a_repoll_keeps_one_entry_and_a_cancel_removes_it() {
        let waiters = DurableWaiters::new();
        let durable = AtomicU64::new(0);
        let waker = Arc::new(CountingWaker(AtomicUsize::new(0)));
        let mut registration = None;
        for _ in 0..3 {
            assert!(poll_at(&waiters, &durable, 5, &mut registration, &waker).is_pending());
        }
        assert_eq!(waiters.len(), 1);
        waiters.cancel(registration.expect("registered"));
        assert_eq!(waiters.len(), 0);
    }
}

/// The register/re-check/drain protocol under every interleaving loom finds.
#[cfg(all(test, wal_loom))]
mod loom_tests {
    use super::*;
    use loom::sync::atomic::{AtomicBool, AtomicU64, Ordering};

    /// The writer's side of log.rs: the durable LSN, and "closed" for poison or shutdown.
    struct Log {
        waiters: DurableWaiters,
        durable: AtomicU64,
        closed: AtomicBool,
    }

    impl Log {
        fn new() -> Arc<Log> {
            Arc::new(Log {
                waiters: DurableWaiters::new(),
                durable: AtomicU64::new(0),
                closed: AtomicBool::new(false),
            })
        }

        /// Blocks until `lsn` is durable (Some(durable)) or the log closed (None).
        fn wait(&self, lsn: u64) -> Option<u64> {
            let mut registration = None;
            let decide = || {
                if self.closed.load(Ordering::Acquire) {
                    return Some(None);
                }
                let durable = self.durable.load(Ordering::Acquire);
                (durable >= lsn).then_some(Some(durable))
            };
            block_on(std::future::poll_fn(|cx| {
                self.waiters.poll_wait(lsn, &mut registration, cx, decide)
            }))
        }

        fn publish(&self, durable: u64) {
            self.durable.store(durable, Ordering::Release);
            self.waiters.wake_upto(durable);
        }

        fn close(&self) {
            self.closed.store(true, Ordering::Release);
            self.waiters.wake_all();
        }
    }

    /// Two waiters, for LSN 1 and 2, against a writer publishing 1 then 2: both return
    /// (loom reports a deadlock if a wake-up is lost) and see their LSN durable.
    #[test]
    fn loom_no_lost_wakeup_across_two_batches() {
        loom::model(|| {
            let log = Log::new();
            let waiters: Vec<_> = [1, 2]
                .into_iter()
                .map(|lsn| {
                    let log = log.clone();
                    thread::spawn(move || assert!(log.wait(lsn) >= Some(lsn)))
                })
                .collect();
            log.publish(1);
            log.publish(2);
            for waiter in waiters {
                waiter.join().expect("waiter");
            }
            assert_eq!(
                log.waiters.queue.lock().wakers.len(),
                0,
                "every entry drained"
            );
        });
    }

    /// A waiter for LSN 2 while only LSN 1 becomes durable is not released by that batch;
    /// closing the log (poison, shutdown) releases it with the error.
    #[test]
    fn loom_an_undecided_waiter_is_released_by_close() {
        loom::model(|| {
            let log = Log::new();
            let waiter = {
                let log = log.clone();
                thread::spawn(move || log.wait(2))
            };
            log.publish(1);
            log.close();
            assert_eq!(
                waiter.join().expect("waiter"),
                None,
                "LSN 2 never became durable"
            );
        });
    }
}
