//! User-level locks: GET_LOCK(), RELEASE_LOCK(), IS_FREE_LOCK(), IS_USED_LOCK() and
//! RELEASE_ALL_LOCKS(), as MariaDB has them.
//!
//! A lock is named by its bytes (names compare byte for byte, as MariaDB's do: 'a' and 'A'
//! are two locks), held by one connection at a time, and counted: a connection that takes
//! a lock it holds takes it again and must release it as often. Locks outlive
//! transactions and are released when their connection ends. None of this is on a query's
//! hot path, so one mutex guards the registry.
//!
//! GET_LOCK on a lock another connection holds never blocks a worker thread: the call
//! records the wait in the statement (`StatementLocks`), the statement stops to wait
//! (session invariant (4)), the server awaits `UserLockWait`, and the statement's next run
//! answers the call: 1 if it then takes the lock, 0 once its timeout passed, NULL if KILL
//! QUERY ended the wait.
//!
//! Invariants:
//! (1) `Registry::held` has an entry for every held lock, whose count is at least 1;
//!     `Registry::waiting` has one for each connection between the statement run that
//!     stopped to wait for a lock and the end of that wait (`UserLockWait`'s drop).
//! (2) A release removes the entry and notifies its event under the mutex; a waiter takes
//!     its listener under the mutex, so no release is missed.
//! (3) Following `waiting` and `held` from a lock's holder back to the connection that
//!     would wait for it is a deadlock: that connection gets 1213 instead of waiting (its
//!     transaction and its other locks stay, as in MariaDB).
//! (4) Each run of a statement calls the functions that change locks in the same order; a
//!     call an earlier run answered answers the same again without touching the registry,
//!     so a statement run twice takes and releases each lock once.

use event_listener::{Event, EventListener};
use manycore_types::Value;
use parking_lot::Mutex;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Longest lock name, in bytes (MariaDB's NAME_LEN: 64 characters of 3 bytes); longer
/// names are error 1059.
pub const NAME_MAX_BYTES: usize = 192;

/// The longest one GET_LOCK call waits (MariaDB has no limit; a year is none in practice).
const TIMEOUT_MAX: Duration = Duration::from_secs(365 * 24 * 3600);

/// The server's user-level locks (invariant (1)).
#[derive(Default)]
pub struct UserLocks {
    registry: Mutex<Registry>,
}

#[derive(Default)]
struct Registry {
    held: HashMap<Box<[u8]>, Holder>,
    /// The lock each waiting connection waits for.
    waiting: HashMap<u32, Box<[u8]>>,
}

struct Holder {
    connection: u32,
    count: u64,
    /// Notified when the lock is released for good (invariant (2)).
    released: Arc<Event>,
}

/// What waiting for a lock would be.
pub enum WaitOutcome {
    /// Await this, then run the statement again.
    Wait(UserLockWait),
    /// The lock's holder waits, directly or not, for the connection (invariant (3)).
    Deadlock,
}

impl UserLocks {
    /// Takes `name` for `connection` if it is free or already its own.
    pub fn try_take(&self, name: &[u8], connection: u32) -> bool {
        let mut registry = self.registry.lock();
        match registry.held.get_mut(name) {
            Some(holder) if holder.connection == connection => {
                holder.count += 1;
                true
            }
            Some(_) => false,
            None => {
                let holder = Holder {
                    connection,
                    count: 1,
                    released: Arc::new(Event::new()),
                };
                registry.held.insert(name.into(), holder);
                true
            }
        }
    }

    /// RELEASE_LOCK: Some(true) if `connection` held `name` (once less now), Some(false)
    /// if another connection holds it, None if nobody does.
    pub fn release(&self, name: &[u8], connection: u32) -> Option<bool> {
        let mut registry = self.registry.lock();
        let holder = registry.held.get_mut(name)?;
        if holder.connection != connection {
            return Some(false);
        }
        holder.count -= 1;
        if holder.count == 0 {
            let holder = registry.held.remove(name).expect("found above");
            holder.released.notify(usize::MAX);
        }
        Some(true)
    }

    /// RELEASE_ALL_LOCKS, and a connection's end: releases every lock `connection`
    /// holds, returning how many times they were taken.
    pub fn release_all(&self, connection: u32) -> u64 {
        let mut registry = self.registry.lock();
        let mut released = 0;
        registry.held.retain(|_, holder| {
            if holder.connection != connection {
                return true;
            }
            released += holder.count;
            holder.released.notify(usize::MAX);
            false
        });
        released
    }

    /// IS_USED_LOCK: the connection holding `name`.
    pub fn holder(&self, name: &[u8]) -> Option<u32> {
        self.registry.lock().held.get(name).map(|h| h.connection)
    }

    /// Prepares `connection` to wait for `name` until `deadline`. A lock released since
    /// the statement found it held yields a wait that completes at once.
    pub fn wait_for(
        self: &Arc<Self>,
        name: &[u8],
        connection: u32,
        deadline: Instant,
    ) -> WaitOutcome {
        let mut registry = self.registry.lock();
        let Some(holder) = registry.held.get(name) else {
            return WaitOutcome::Wait(UserLockWait {
                locks: None,
                listener: None,
                deadline,
            });
        };
        let listener = holder.released.listen();
        let mut next = holder.connection;
        for _ in 0..=registry.waiting.len() {
            if next == connection {
                return WaitOutcome::Deadlock;
            }
            let Some(holder) = registry
                .waiting
                .get(&next)
                .and_then(|lock| registry.held.get(lock))
            else {
                break;
            };
            next = holder.connection;
        }
        registry.waiting.insert(connection, name.into());
        WaitOutcome::Wait(UserLockWait {
            locks: Some((Arc::clone(self), connection)),
            listener: Some(listener),
            deadline,
        })
    }
}

/// A connection's wait for a user lock: ends when the lock is released (then the
/// statement runs again and tries to take it) or at `deadline` (then the call answers 0).
pub struct UserLockWait {
    /// The registry the connection is recorded in as waiting, and the connection.
    locks: Option<(Arc<UserLocks>, u32)>,
    listener: Option<EventListener>,
    deadline: Instant,
}

impl UserLockWait {
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Completes when the lock was released (the caller bounds it by `deadline`).
    pub async fn released(&mut self) {
        if let Some(listener) = self.listener.take() {
            listener.await;
        }
    }
}

impl Drop for UserLockWait {
    fn drop(&mut self) {
        if let Some((locks, connection)) = &self.locks {
            locks.registry.lock().waiting.remove(connection);
        }
    }
}

impl std::fmt::Debug for UserLockWait {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "UserLockWait {{ deadline: {:?} }}", self.deadline)
    }
}

/// A GET_LOCK call that stopped its statement to wait (module docs).
struct Pending {
    /// The call's position among the statement's lock-changing calls (invariant (4)).
    call: usize,
    name: Box<[u8]>,
    deadline: Instant,
    /// KILL QUERY ended the wait: the call answers NULL.
    interrupted: bool,
}

/// The lock-changing calls of the running statement (invariant (4)).
#[derive(Default)]
pub struct StatementLocks {
    /// The answers of the calls made so far, with the lock each named, in call order.
    answered: RefCell<Vec<(Box<[u8]>, Value)>>,
    /// Lock-changing calls this run made so far.
    calls: Cell<usize>,
    pending: RefCell<Option<Pending>>,
    /// This run reached its pending call and found the lock still held: it waits, and its
    /// later calls are not made.
    stopped: Cell<bool>,
    /// A call was made since the statement began: only then is there anything for
    /// `end_statement` to clear, which every statement runs.
    called: Cell<bool>,
}

impl StatementLocks {
    /// A run of the statement begins.
    pub fn begin_run(&self) {
        self.calls.set(0);
        self.stopped.set(false);
    }

    /// The statement ended (done, failed or abandoned).
    pub fn end_statement(&self) {
        if !self.called.replace(false) {
            return;
        }
        self.answered.borrow_mut().clear();
        *self.pending.borrow_mut() = None;
        self.stopped.set(false);
    }

    /// Whether this run stopped to wait for a lock.
    pub fn stopped(&self) -> bool {
        self.stopped.get()
    }

    /// The lock the stopped run waits for, and until when.
    pub fn awaited(&self) -> Option<(Box<[u8]>, Instant)> {
        let pending = self.pending.borrow();
        pending.as_ref().map(|p| (p.name.clone(), p.deadline))
    }

    /// KILL QUERY ended the wait: the next run's call answers NULL.
    pub fn interrupt(&self) {
        if let Some(pending) = self.pending.borrow_mut().as_mut() {
            pending.interrupted = true;
        }
    }

    /// Makes one lock-changing call on `name`: the answer an earlier run got (invariant
    /// (4)), NULL once the run stopped, or `change`'s.
    fn call(&self, name: &[u8], change: impl FnOnce(usize) -> Option<Value>) -> Value {
        if self.stopped.get() {
            return Value::Null;
        }
        self.called.set(true);
        let call = self.calls.get();
        self.calls.set(call + 1);
        let mut answered = self.answered.borrow_mut();
        match answered.get(call) {
            Some((named, answer)) if **named == *name => return answer.clone(),
            // The statement now calls in another order (its rows changed): what the
            // earlier run took stays taken, as if the statement had gone on.
            _ => answered.truncate(call),
        }
        drop(answered);
        match change(call) {
            Some(answer) => {
                self.answered
                    .borrow_mut()
                    .push((name.into(), answer.clone()));
                answer
            }
            None => {
                self.stopped.set(true);
                Value::Null
            }
        }
    }

    /// GET_LOCK(name, timeout) for `connection`: 1 taken, 0 timed out, NULL interrupted,
    /// or NULL with the run stopped to wait.
    fn get_lock(
        &self,
        locks: &UserLocks,
        connection: u32,
        name: &[u8],
        timeout: Duration,
    ) -> Value {
        self.call(name, |call| {
            let mut pending = self.pending.borrow_mut();
            let earlier = pending
                .as_ref()
                .filter(|p| p.call == call && *p.name == *name);
            if earlier.is_some_and(|p| p.interrupted) {
                *pending = None;
                return Some(Value::Null);
            }
            if locks.try_take(name, connection) {
                *pending = None;
                return Some(Value::Int(1));
            }
            let now = Instant::now();
            let deadline = match earlier {
                Some(p) => p.deadline,
                None => now + timeout,
            };
            if now >= deadline {
                *pending = None;
                return Some(Value::Int(0));
            }
            *pending = Some(Pending {
                call,
                name: name.into(),
                deadline,
                interrupted: false,
            });
            None
        })
    }

    /// RELEASE_LOCK(name) for `connection`.
    fn release_lock(&self, locks: &UserLocks, connection: u32, name: &[u8]) -> Value {
        self.call(name, |_| {
            Some(match locks.release(name, connection) {
                Some(released) => Value::Int(released.into()),
                None => Value::Null,
            })
        })
    }

    /// RELEASE_ALL_LOCKS() for `connection`.
    fn release_all_locks(&self, locks: &UserLocks, connection: u32) -> Value {
        self.call(b"", |_| {
            Some(Value::Int(locks.release_all(connection) as i64))
        })
    }
}

/// One call of a user-lock function, its arguments checked (`expr::function`).
#[derive(Clone, Copy, Debug)]
pub enum UserLockCall<'a> {
    Get { name: &'a [u8], timeout: Duration },
    Release(&'a [u8]),
    ReleaseAll,
    IsFree(&'a [u8]),
    IsUsed(&'a [u8]),
}

impl StatementLocks {
    /// The answer of `call` made by `connection` in the running statement.
    pub fn answer(&self, locks: &UserLocks, connection: u32, call: UserLockCall<'_>) -> Value {
        match call {
            UserLockCall::Get { name, timeout } => self.get_lock(locks, connection, name, timeout),
            UserLockCall::Release(name) => self.release_lock(locks, connection, name),
            UserLockCall::ReleaseAll => self.release_all_locks(locks, connection),
            UserLockCall::IsFree(name) => Value::Int(locks.holder(name).is_none().into()),
            UserLockCall::IsUsed(name) => match locks.holder(name) {
                Some(connection) => Value::UInt(connection.into()),
                None => Value::Null,
            },
        }
    }
}

/// GET_LOCK's timeout as MariaDB reads it: seconds as a DOUBLE, refused (NULL, warning
/// 1411) when NULL or negative once truncated to a 64-bit integer, where a value outside
/// that range (or NaN) becomes i64::MIN, as the C conversion on x86 gives. Err holds the
/// value the warning shows. Waits are capped at TIMEOUT_MAX.
pub fn timeout(seconds: Option<f64>) -> Result<Duration, String> {
    let Some(seconds) = seconds else {
        return Err("NULL".to_string());
    };
    let bound = 2f64.powi(63);
    let in_range = (-bound..bound).contains(&seconds);
    let whole = if in_range { seconds as i64 } else { i64::MIN };
    if whole < 0 {
        return Err(whole.to_string());
    }
    let asked = Duration::try_from_secs_f64(seconds.max(0.0)).unwrap_or(TIMEOUT_MAX);
    Ok(asked.min(TIMEOUT_MAX))
}

/// A lock name as MariaDB's 1059 message shows it: at most 100 bytes, cut at a character
/// and ended with "..." when longer.
pub fn shown_name(name: &[u8]) -> String {
    let text = String::from_utf8_lossy(name);
    if text.len() <= 100 {
        return text.into_owned();
    }
    let mut end = 97;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wait(outcome: WaitOutcome) -> UserLockWait {
        match outcome {
            WaitOutcome::Wait(wait) => wait,
            WaitOutcome::Deadlock => panic!("no deadlock expected"),
        }
    }

    #[test]
    fn a_lock_is_counted_and_released_as_often_as_taken() {
        let locks = UserLocks::default();
        assert!(locks.try_take(b"a", 1));
        assert!(locks.try_take(b"a", 1));
        assert!(!locks.try_take(b"a", 2));
        assert!(locks.try_take(b"A", 2), "names are case-sensitive");
        assert_eq!(locks.holder(b"a"), Some(1));
        assert_eq!(locks.release(b"a", 2), Some(false));
        assert_eq!(locks.release(b"a", 1), Some(true));
        assert_eq!(locks.holder(b"a"), Some(1));
        assert_eq!(locks.release(b"a", 1), Some(true));
        assert_eq!(locks.release(b"a", 1), None);
        assert!(locks.try_take(b"b", 2));
        assert_eq!(locks.release_all(2), 2);
        assert_eq!(locks.holder(b"A"), None);
    }

    #[test]
    fn a_release_ends_the_wait_and_a_cycle_is_refused() {
        let locks = Arc::new(UserLocks::default());
        let later = Instant::now() + Duration::from_secs(60);
        assert!(locks.try_take(b"x", 1));
        assert!(locks.try_take(b"y", 2));
        let mut two_waits = wait(locks.wait_for(b"x", 2, later));
        assert!(matches!(
            locks.wait_for(b"y", 1, later),
            WaitOutcome::Deadlock
        ));
        assert!(locks.try_take(b"z", 3));
        // 3 waits for 2, which waits for 1: no cycle through 3.
        let _three_waits = wait(locks.wait_for(b"y", 3, later));
        assert_eq!(locks.release(b"x", 1), Some(true));
        poll_until_ready(two_waits.released());
        drop(two_waits);
        assert!(!locks.registry.lock().waiting.contains_key(&2));
        assert!(locks.try_take(b"x", 2));
    }

    /// Polls `future` on this thread until it completes (it must not need a runtime).
    fn poll_until_ready(future: impl std::future::Future<Output = ()>) {
        use std::task::{Context, Poll, Waker};
        let mut future = std::pin::pin!(future);
        let mut cx = Context::from_waker(Waker::noop());
        for _ in 0..1000 {
            if let Poll::Ready(()) = future.as_mut().poll(&mut cx) {
                return;
            }
            std::thread::yield_now();
        }
        panic!("the wait did not end");
    }

    #[test]
    fn a_statement_run_again_takes_and_releases_each_lock_once() {
        let locks = UserLocks::default();
        let statement = StatementLocks::default();
        assert!(locks.try_take(b"busy", 9));
        let run = |statement: &StatementLocks| {
            statement.begin_run();
            [
                statement.get_lock(&locks, 1, b"a", Duration::ZERO),
                statement.release_lock(&locks, 1, b"a"),
                statement.get_lock(&locks, 1, b"a", Duration::ZERO),
                statement.get_lock(&locks, 1, b"busy", Duration::from_secs(60)),
                statement.get_lock(&locks, 1, b"c", Duration::ZERO),
            ]
        };
        let first = run(&statement);
        assert!(statement.stopped());
        assert_eq!(first[..3], [Value::Int(1), Value::Int(1), Value::Int(1)]);
        assert_eq!(
            first[4],
            Value::Null,
            "calls after the waiting one are not made"
        );
        assert_eq!(locks.holder(b"c"), None);
        assert_eq!(locks.release(b"busy", 9), Some(true));
        let second = run(&statement);
        assert!(!statement.stopped());
        assert_eq!(second, [1, 1, 1, 1, 1].map(Value::Int));
        statement.end_statement();
        assert_eq!(locks.release_all(1), 3, "a, busy and c, each taken once");
    }

    #[test]
    fn a_wait_ends_at_its_deadline_or_when_killed() {
        let locks = UserLocks::default();
        let statement = StatementLocks::default();
        assert!(locks.try_take(b"k", 9));
        statement.begin_run();
        assert_eq!(
            statement.get_lock(&locks, 1, b"k", Duration::ZERO),
            Value::Int(0),
            "a zero timeout does not wait"
        );
        statement.end_statement();
        statement.begin_run();
        statement.get_lock(&locks, 1, b"k", Duration::from_millis(1));
        assert!(statement.stopped());
        std::thread::sleep(Duration::from_millis(5));
        statement.begin_run();
        assert_eq!(
            statement.get_lock(&locks, 1, b"k", Duration::from_millis(1)),
            Value::Int(0)
        );
        statement.end_statement();
        statement.begin_run();
        statement.get_lock(&locks, 1, b"k", Duration::from_secs(60));
        statement.interrupt();
        statement.begin_run();
        assert_eq!(
            statement.get_lock(&locks, 1, b"k", Duration::from_secs(60)),
            Value::Null
        );
        assert!(!statement.stopped());
    }

    #[test]
    fn timeouts_and_names_read_as_mariadb_reads_them() {
        assert_eq!(timeout(Some(1.5)), Ok(Duration::from_millis(1500)));
        assert_eq!(timeout(Some(-0.5)), Ok(Duration::ZERO));
        assert_eq!(timeout(Some(-1.5)), Err("-1".to_string()));
        assert_eq!(timeout(None), Err("NULL".to_string()));
        assert_eq!(timeout(Some(1e300)), Err(i64::MIN.to_string()));
        assert_eq!(timeout(Some(f64::NAN)), Err(i64::MIN.to_string()));
        assert_eq!(timeout(Some(9.2e18)), Ok(TIMEOUT_MAX));
        assert_eq!(shown_name(&[b'a'; 100]), "a".repeat(100));
        assert_eq!(shown_name(&[b'a'; 101]), format!("{}...", "a".repeat(97)));
        assert_eq!(
            shown_name("é".repeat(60).as_bytes()),
            format!("{}...", "é".repeat(48))
        );
    }
}
