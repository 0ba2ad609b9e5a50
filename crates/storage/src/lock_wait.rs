//! Waiting for a row lock: which transaction holds a row, waking waiters when it ends,
//! and deadlock detection.
//!
//! A writer that finds a row locked by another transaction does not block its thread
//! (workers run many connections): storage returns `StorageError::LockWait(LockWait)`,
//! the statement is undone to its savepoint, the server awaits `LockWait::wait` on its
//! runtime, and the statement runs again. Before waiting, the waiter records whom it
//! waits for; following those edges from the holder back to the waiter is a deadlock,
//! reported as `StorageError::Deadlock` (1213) instead of waiting.
//!
//! Invariants:
//! (1) `TxnState::waiting_for` is written only by its own transaction's thread and is 0
//!     whenever that transaction is not between detecting a lock wait and finishing it.
//! (2) `finished` is set before `done` is notified, and a waiter checks `finished` after
//!     registering its listener, so no wake-up is lost.
//! (3) Every edge of a cycle is published (SeqCst) before its owner walks the chain, so of
//!     two transactions closing a cycle at the same time at least one sees it.

use event_listener::{Event, EventListener, Listener};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Longest wait-for chain followed before assuming a deadlock (as InnoDB does past its
/// search depth).
const WAIT_CHAIN_LENGTH_MAX: usize = 200;

pub(crate) struct TxnState {
    pub(crate) id: u64,
    finished: AtomicBool,
    done: Event,
    waiting_for: AtomicU64,
}

impl TxnState {
    pub(crate) fn new(id: u64) -> Arc<TxnState> {
        Arc::new(TxnState {
            id,
            finished: AtomicBool::new(false),
            done: Event::new(),
            waiting_for: AtomicU64::new(0),
        })
    }

    /// Wakes every transaction waiting for this one (invariant (2)).
    pub(crate) fn finish(&self) {
        self.waiting_for.store(0, Ordering::SeqCst);
        self.finished.store(true, Ordering::SeqCst);
        self.done.notify(usize::MAX);
    }

    pub(crate) fn stop_waiting(&self) {
        self.waiting_for.store(0, Ordering::SeqCst);
    }
}

/// The transactions that hold row locks, by id.
#[derive(Default)]
pub(crate) struct TxnRegistry {
    active: scc::HashMap<u64, Arc<TxnState>>,
}

impl TxnRegistry {
    pub(crate) fn register(&self, state: Arc<TxnState>) {
        let _ = self.active.insert_sync(state.id, state);
    }

    pub(crate) fn unregister(&self, id: u64) {
        self.active.remove_sync(&id);
    }

    fn get(&self, id: u64) -> Option<Arc<TxnState>> {
        self.active.read_sync(&id, |_, state| state.clone())
    }

    /// A wait for `holder` by a statement that holds no row (DDL, which takes its rows
    /// only once nobody else holds any): it cannot close a cycle, so no chain is walked
    /// and no waiter is recorded. Completes at once if `holder` already finished.
    pub(crate) fn wait_holding_nothing(&self, holder: u64) -> LockWait {
        let holder = self.get(holder);
        let listener = holder.as_ref().map(|state| state.done.listen());
        LockWait {
            holder,
            listener,
            waiter: None,
        }
    }

    /// Prepares `waiter` to wait for `holder`, or reports that waiting would deadlock.
    /// A holder that already finished yields a wait that completes at once.
    pub(crate) fn wait_for(&self, waiter: &Arc<TxnState>, holder: u64) -> Result<LockWait, ()> {
        let Some(holder_state) = self.get(holder) else {
            // Finished between our lock attempt and now: retry at once.
            return Ok(LockWait {
                holder: None,
                listener: None,
                waiter: Some(waiter.clone()),
            });
        };
        waiter.waiting_for.store(holder, Ordering::SeqCst);
        let mut current = holder;
        for _ in 0..WAIT_CHAIN_LENGTH_MAX {
            // A transaction that finished (and left the registry) while we walk waits for
            // nothing: the chain ends there, it is no cycle. Treating it as one gave
            // single-row autocommit UPDATEs a spurious 1213 under sysbench.
            let next = self
                .get(current)
                .map_or(0, |state| state.waiting_for.load(Ordering::SeqCst));
            if next == 0 {
                let listener = holder_state.done.listen();
                return Ok(LockWait {
                    holder: Some(holder_state),
                    listener: Some(listener),
                    waiter: Some(waiter.clone()),
                });
            }
            if next == waiter.id {
                break;
            }
            current = next;
        }
        waiter.stop_waiting();
        Err(())
    }
}

/// A pending wait for another transaction to commit or roll back.
pub struct LockWait {
    holder: Option<Arc<TxnState>>,
    listener: Option<EventListener>,
    /// None for a waiter that holds no row (`TxnRegistry::wait_holding_nothing`).
    waiter: Option<Arc<TxnState>>,
}

impl LockWait {
    /// Completes when the holder has finished. The caller bounds it with a timeout
    /// (innodb_lock_wait_timeout) and then runs the statement again either way.
    pub async fn wait(mut self) {
        if let (Some(holder), Some(listener)) = (&self.holder, self.listener.take()) {
            if !holder.finished.load(Ordering::SeqCst) {
                listener.await;
            }
        }
    }

    /// Blocking form, for tests and non-async callers.
    pub fn wait_blocking(mut self, timeout: std::time::Duration) -> bool {
        match (&self.holder, self.listener.take()) {
            (Some(holder), Some(listener)) if !holder.finished.load(Ordering::SeqCst) => {
                listener.wait_timeout(timeout).is_some()
            }
            _ => true,
        }
    }

    /// Id of the transaction waited for (0 if it had already finished).
    pub fn holder(&self) -> u64 {
        self.holder.as_ref().map_or(0, |h| h.id)
    }
}

impl Drop for LockWait {
    fn drop(&mut self) {
        if let Some(waiter) = &self.waiter {
            waiter.stop_waiting();
        }
    }
}

impl std::fmt::Debug for LockWait {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "LockWait {{ waiter: {}, holder: {} }}",
            self.waiter.as_ref().map_or(0, |w| w.id),
            self.holder()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registered(registry: &TxnRegistry, id: u64) -> Arc<TxnState> {
        let state = TxnState::new(id);
        registry.register(state.clone());
        state
    }

    #[test]
    fn a_chain_through_a_finished_transaction_is_no_deadlock() {
        let registry = TxnRegistry::default();
        let waiter = registered(&registry, 1);
        let holder = registered(&registry, 2);
        // The holder waits for 3, which has just finished and left the registry.
        holder.waiting_for.store(3, Ordering::SeqCst);
        let wait = registry.wait_for(&waiter, 2).expect("no cycle: 3 finished");
        assert_eq!(wait.holder(), 2);
    }

    #[test]
    fn a_holder_that_finished_before_the_walk_is_waited_for_at_once() {
        let registry = TxnRegistry::default();
        let waiter = registered(&registry, 1);
        let wait = registry
            .wait_for(&waiter, 2)
            .expect("2 is gone: retry at once");
        assert_eq!(wait.holder(), 0);
        assert!(wait.wait_blocking(std::time::Duration::from_secs(1)));
    }

    #[test]
    fn a_real_cycle_is_a_deadlock_and_leaves_no_edge() {
        let registry = TxnRegistry::default();
        let waiter = registered(&registry, 1);
        let holder = registered(&registry, 2);
        let middle = registered(&registry, 3);
        holder.waiting_for.store(3, Ordering::SeqCst);
        middle.waiting_for.store(1, Ordering::SeqCst);
        assert!(registry.wait_for(&waiter, 2).is_err(), "1 -> 2 -> 3 -> 1");
        assert_eq!(waiter.waiting_for.load(Ordering::SeqCst), 0);
    }
}
