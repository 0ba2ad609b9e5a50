//! Seeded crash test: rounds of concurrent committers, group commits, background
//! checkpoints, injected ENOSPC and fsync failures, and a power loss at a random moment that
//! drops, reorders and tears unsynced writes. After each restart the recovered state must
//! equal the model (the appended history) up to some LSN n with
//!   every acknowledged LSN <= n <= every appended LSN,
//! the replayed log must be exactly history[checkpoint..n] (no partial commit, nothing
//! reordered, nothing invented).
//!
//! A failure prints its seed; `WAL_SEED=<seed> cargo test -p manycore-wal --test crash`
//! replays the same operations (thread timing still varies, so run it a few times).

mod common;

use common::*;
use manycore_types::Value;
use manycore_wal::sim::{Crash, Rng, SimDisk};
use manycore_wal::{LogRecord, Lsn, RowChange, WalOptions};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

const ROUNDS: usize = 30;
const COMMITTERS_MAX: u64 = 4;
const COMMITS_PER_COMMITTER_MAX: u64 = 60;

fn random_commit(rng: &mut Rng) -> LogRecord {
    let changes = (0..1 + rng.below(3))
        .map(|_| {
            let table = if rng.chance(50) { "a" } else { "b" };
            let key = rng.below(16).to_be_bytes().to_vec();
            let row = (!rng.chance(20)).then(|| {
                let pad = "x".repeat(rng.below(40) as usize);
                vec![Value::Int(rng.next() as i64), Value::text(&pad)]
            });
            RowChange {
                db: "db".into(),
                table: table.into(),
                key,
                row,
            }
        })
        .collect();
    LogRecord::Commit {
        commit_ts: rng.next() >> 1,
        changes,
    }
}

fn model(history: &[LogRecord]) -> State {
    let mut state = State::new();
    history.iter().for_each(|r| apply(&mut state, r));
    state
}

fn run(seed: u64) {
    let mut rng = Rng::new(seed);
    let disk = SimDisk::new();
    let history: Arc<Mutex<Vec<LogRecord>>> = Arc::default();
    let acked = Arc::new(AtomicU64::new(0));
    let (mut torn, mut checkpoints, mut lost_unacked) = (0, 0, 0);
    for round in 0..ROUNDS {
        let options = WalOptions {
            segment_size_max: 256 + rng.below(4096),
            group_delay_us: if rng.chance(20) { rng.below(300) } else { 0 },
            ..WalOptions::default()
        };
        let (wal, report, replayed) = open(disk.clone(), options)
            .unwrap_or_else(|e| panic!("round {round}: recovery failed: {e}"));
        let n = report.next_lsn.0 - 1;
        let c = report.checkpoint_lsn.0;
        {
            let mut history = history.lock();
            let acked = acked.load(Ordering::Relaxed);
            assert!(
                n >= acked,
                "round {round}: acknowledged lsn {acked} lost (recovered {n})"
            );
            assert!(
                n as usize <= history.len(),
                "round {round}: recovered beyond the appended"
            );
            let log: Vec<LogRecord> = replayed
                .iter()
                .filter(|(l, _)| l.0 > c)
                .map(|(_, r)| r.clone())
                .collect();
            let lsns: Vec<u64> = replayed
                .iter()
                .filter(|(l, _)| l.0 > c)
                .map(|(l, _)| l.0)
                .collect();
            assert_eq!(
                lsns,
                (c + 1..=n).collect::<Vec<_>>(),
                "round {round}: log lsns"
            );
            assert!(
                log[..] == history[c as usize..n as usize],
                "round {round}: log differs"
            );
            let mut recovered = State::new();
            replayed.iter().for_each(|(_, r)| apply(&mut recovered, r));
            assert!(
                recovered == model(&history[..n as usize]),
                "round {round}: state differs"
            );
            torn += report.torn_tail.is_some() as u32;
            checkpoints += (c > 0) as u32;
            lost_unacked += history.len() - n as usize;
            history.truncate(n as usize); // The rest was never acknowledged.
        }
        if rng.chance(15) {
            disk.fail_sync_after(1 + rng.below(8));
        }
        if rng.chance(15) {
            disk.set_space_limit(Some(disk.used_bytes() + rng.below(4096)));
        }
        let wal = Arc::new(wal);
        let mut threads = Vec::new();
        for t in 0..1 + rng.below(COMMITTERS_MAX) {
            let (wal, history, acked) = (wal.clone(), history.clone(), acked.clone());
            let mut rng = Rng::new(rng.next() ^ t);
            threads.push(std::thread::spawn(move || {
                for _ in 0..rng.below(COMMITTERS_MAX * COMMITS_PER_COMMITTER_MAX / 4) {
                    let record = random_commit(&mut rng);
                    let lsn = {
                        // Storage's commit_order: append order is history order.
                        let mut history = history.lock();
                        let Ok(lsn) = wal.append(&record.encode()) else {
                            return;
                        };
                        assert_eq!(lsn.0 as usize, history.len() + 1, "dense lsns");
                        history.push(record);
                        lsn
                    };
                    match wal.wait_durable(lsn) {
                        Ok(()) => _ = acked.fetch_max(lsn.0, Ordering::Relaxed),
                        Err(_) if rng.chance(50) => return,
                        Err(_) => {} // Disk full: keep committing, space may come back.
                    }
                }
            }));
        }
        if rng.chance(40) {
            let (wal, history) = (wal.clone(), history.clone());
            let delay = Duration::from_micros(rng.below(1500));
            threads.push(std::thread::spawn(move || {
                std::thread::sleep(delay);
                let (lsn, state) = {
                    let history = history.lock();
                    let lsn = wal.last_lsn();
                    (lsn, model(&history[..lsn.0 as usize]))
                };
                let Ok(mut w) = wal.begin_checkpoint(lsn) else {
                    return;
                };
                let _ = w.write(&LogRecord::CreateDatabase {
                    name: "db".into(),
                    collation: manycore_types::Collation::Utf8mb4GeneralCi,
                });
                for ((table, key), row) in &state {
                    if w.write_row("db", table, key, row).is_err() {
                        return;
                    }
                }
                let _ = w.finish();
            }));
        }
        std::thread::sleep(Duration::from_micros(rng.below(3000)));
        if rng.chance(10) {
            let _ = wal.close(); // A clean shutdown now and then.
        }
        disk.crash(Crash::Random(rng.next()));
        threads
            .into_iter()
            .for_each(|t| t.join().expect("committer panicked"));
        drop(wal);
        disk.power_on();
        disk.clear_faults();
    }
    let (appended, acked) = (history.lock().len(), acked.load(Ordering::Relaxed));
    eprintln!(
        "seed {seed}: {appended} commits survive, last acked {acked}, {torn} torn tails, \
         {checkpoints} restarts from a checkpoint, {lost_unacked} unacknowledged lost"
    );
}

#[test]
fn recovered_state_matches_the_model_after_random_crashes() {
    let seeds: Vec<u64> = match std::env::var("WAL_SEED") {
        Ok(s) => vec![s.parse().expect("WAL_SEED is a number")],
        Err(_) => (0..12).map(|i| 0x5EED_0000 + i).collect(),
    };
    for seed in seeds {
        if let Err(panic) = std::panic::catch_unwind(|| run(seed)) {
            eprintln!("crash test failed with seed {seed}; replay: WAL_SEED={seed}");
            std::panic::resume_unwind(panic);
        }
    }
}

#[test]
fn every_crash_point_of_one_commit_sequence_recovers() {
    // Exhaustive over crash modes for a fixed sequence of single-batch commits.
    for seed in 0..200 {
        let disk = SimDisk::new();
        let (wal, _, _) = open(disk.clone(), small_segments()).expect("open");
        let mut acked = 0;
        for i in 0..(seed % 13) {
            let lsn = wal
                .append(&commit("t", i, i as i64).encode())
                .expect("append");
            wal.wait_durable(lsn).expect("durable");
            acked = lsn.0;
        }
        // One more appended, maybe written, never waited for.
        let _ = wal.append(&commit("t", 99, 99).encode());
        disk.crash(Crash::Random(seed));
        drop(wal);
        disk.power_on();
        let (_, report, replayed) =
            open(disk.clone(), small_segments()).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let n = report.next_lsn.0 - 1;
        assert!(
            n == acked || n == acked + 1,
            "seed {seed}: acked {acked}, recovered {n}"
        );
        assert_eq!(replayed.len() as u64, n, "seed {seed}");
        let _ = Lsn(n);
    }
}
