//! The delay after repeated failed logins from one client host (MySQL's
//! connection_control plugin, built in): slows password guessing from one address.
//!
//! Invariants:
//! (1) Every refused login counts, whatever the reason (unknown user, wrong password,
//!     REQUIRE SSL, locked account), and the delay depends only on the host's count, so
//!     its timing says nothing about whether the user exists.
//! (2) The first `threshold` consecutive failures of a host are answered at once; the
//!     n-th after them waits `n * delay_min`, at most `delay_max`. The wait is a timer on
//!     the connection's task, outside the connect timeout: it holds no worker and no lock.
//! (3) A successful login from the host forgets its failures; a failure older than
//!     `FAILURE_MEMORY` is forgotten too.
//! (4) Memory is bounded: at most `HOSTS_MAX` hosts are tracked; a new host past that
//!     evicts the one whose last failure is oldest.
//! (5) A successful login costs one atomic load while no host has failures; only then
//!     does it take the lock, to forget its host.

use parking_lot::Mutex;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Most hosts whose failures are remembered (invariant (4)).
const HOSTS_MAX: usize = 10_000;
/// Failures this old no longer count (invariant (3)).
const FAILURE_MEMORY: Duration = Duration::from_secs(3600);

#[derive(Clone, Copy, Debug)]
pub struct DelayPolicy {
    /// Consecutive failures answered without delay; 0 turns the delay off.
    pub threshold: u32,
    pub delay_min: Duration,
    pub delay_max: Duration,
}

struct Failures {
    count: u32,
    last: Instant,
}

pub struct FailedLogins {
    policy: DelayPolicy,
    hosts: Mutex<HashMap<IpAddr, Failures>>,
    /// `hosts.len()`, readable without the lock (invariant (5)).
    tracked: AtomicUsize,
}

impl FailedLogins {
    pub fn new(policy: DelayPolicy) -> FailedLogins {
        FailedLogins {
            policy,
            hosts: Mutex::new(HashMap::new()),
            tracked: AtomicUsize::new(0),
        }
    }

    /// Counts a refused login from `host`; the time to wait before answering it.
    pub fn failed(&self, host: IpAddr) -> Duration {
        if self.policy.threshold == 0 {
            return Duration::ZERO;
        }
        let now = Instant::now();
        let mut hosts = self.hosts.lock();
        if hosts.len() >= HOSTS_MAX && !hosts.contains_key(&host) {
            let oldest = hosts
                .iter()
                .min_by_key(|(_, f)| f.last)
                .map(|(h, _)| *h)
                .expect("the map is full, so not empty");
            hosts.remove(&oldest);
        }
        let failures = hosts.entry(host).or_insert(Failures {
            count: 0,
            last: now,
        });
        if now.duration_since(failures.last) > FAILURE_MEMORY {
            failures.count = 0;
        }
        failures.count = failures.count.saturating_add(1);
        failures.last = now;
        let beyond = failures.count.saturating_sub(self.policy.threshold);
        self.tracked.store(hosts.len(), Ordering::Release);
        self.policy
            .delay_min
            .saturating_mul(beyond)
            .min(self.policy.delay_max)
    }

    /// A login from `host` succeeded: forget its failures.
    pub fn succeeded(&self, host: IpAddr) {
        if self.tracked.load(Ordering::Acquire) == 0 {
            return;
        }
        let mut hosts = self.hosts.lock();
        if hosts.remove(&host).is_some() {
            self.tracked.store(hosts.len(), Ordering::Release);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(threshold: u32) -> DelayPolicy {
        DelayPolicy {
            threshold,
            delay_min: Duration::from_secs(1),
            delay_max: Duration::from_secs(3),
        }
    }

    #[test]
    fn delay_grows_past_the_threshold_per_host_and_resets_on_success() {
        let logins = FailedLogins::new(policy(2));
        let a: IpAddr = "10.0.0.1".parse().expect("address");
        let b: IpAddr = "10.0.0.2".parse().expect("address");
        let delays: Vec<u64> = (0..6).map(|_| logins.failed(a).as_secs()).collect();
        assert_eq!(delays, [0, 0, 1, 2, 3, 3]);
        assert_eq!(logins.failed(b), Duration::ZERO, "hosts count apart");
        logins.succeeded(a);
        assert_eq!(logins.failed(a), Duration::ZERO);
        assert_eq!(FailedLogins::new(policy(0)).failed(a), Duration::ZERO);
    }

    #[test]
    fn tracked_hosts_are_bounded() {
        let logins = FailedLogins::new(policy(1));
        for i in 0..HOSTS_MAX as u32 + 10 {
            logins.failed(IpAddr::from(i.to_be_bytes()));
        }
        assert_eq!(logins.hosts.lock().len(), HOSTS_MAX);
        assert_eq!(logins.tracked.load(Ordering::Relaxed), HOSTS_MAX);
    }
}
