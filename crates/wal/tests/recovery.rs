//! One scenario per test: each failure mode the log must survive, on the simulated disk.

mod common;

use common::*;
use manycore_wal::sim::{Crash, SimDisk};
use manycore_wal::{Disk, LogRecord, Lsn, SyncMode, Wal, WalError, WalOptions};
use std::sync::Arc;

fn append_all(wal: &Wal, records: &[LogRecord]) -> Vec<Lsn> {
    let lsns: Vec<Lsn> = records
        .iter()
        .map(|r| wal.append(&r.encode()).expect("append"))
        .collect();
    for &lsn in &lsns {
        wal.wait_durable(lsn).expect("durable");
    }
    lsns
}

fn segments(disk: &SimDisk) -> Vec<String> {
    let mut names: Vec<String> = disk
        .list()
        .expect("list")
        .into_iter()
        .filter(|n| n.starts_with("log-"))
        .collect();
    names.sort();
    names
}

#[test]
fn records_come_back_in_order_after_restart() {
    let disk = SimDisk::new();
    let (wal, report, replayed) = open(disk.clone(), small_segments()).expect("open");
    assert!(replayed.is_empty());
    assert_eq!(report.next_lsn, Lsn(1));
    let records: Vec<LogRecord> = (0..50).map(|i| commit("t", i % 7, i as i64)).collect();
    let lsns: Vec<Lsn> = records
        .iter()
        .flat_map(|r| append_all(&wal, std::slice::from_ref(r)))
        .collect();
    assert_eq!(lsns, (1..=50).map(Lsn).collect::<Vec<_>>());
    drop(wal);
    disk.crash(Crash::DropAll);
    disk.power_on();
    let (wal, report, replayed) = open(disk.clone(), small_segments()).expect("reopen");
    assert_eq!(
        replayed.iter().map(|(_, r)| r.clone()).collect::<Vec<_>>(),
        records
    );
    assert_eq!(report.next_lsn, Lsn(51));
    assert!(segments(&disk).len() > 1, "512-byte segments rotate");
    assert_eq!(wal.append(&commit("t", 1, 1).encode()), Ok(Lsn(51)));
}

#[test]
fn torn_tail_is_truncated_and_reported() {
    let disk = SimDisk::new();
    let (wal, _, _) = open(disk.clone(), WalOptions::default()).expect("open");
    append_all(&wal, &[commit("t", 1, 1), commit("t", 2, 2)]);
    wal.close().expect("close");
    // A third record half-written: the crash cut it short.
    let name = segments(&disk).pop().expect("a segment");
    let len = disk.len(&name).expect("len");
    disk.write_at(&name, len, &[7, 0, 0, 0, 1, 2, 3])
        .expect("write");
    disk.crash(Crash::KeepAll);
    disk.power_on();
    let (wal, report, replayed) = open(disk.clone(), WalOptions::default()).expect("reopen");
    assert_eq!(report.torn_tail, Some((name.clone(), len)));
    assert_eq!(replayed.len(), 2);
    assert_eq!(disk.len(&name).expect("len"), len, "tail truncated");
    assert_eq!(wal.append(&commit("t", 3, 3).encode()), Ok(Lsn(3)));
    wal.close().expect("close");
    disk.crash(Crash::DropAll);
    disk.power_on();
    let (_, report, replayed) = open(disk.clone(), WalOptions::default()).expect("reopen");
    assert_eq!(report.torn_tail, None);
    assert_eq!(replayed.len(), 3);
}

/// Damage to a record that later records show was durable: startup stops, naming the file
/// and offset; `recover_truncate_log` accepts the loss explicitly.
#[test]
fn corruption_before_the_tail_stops_startup() {
    let disk = SimDisk::new();
    let (wal, _, _) = open(disk.clone(), WalOptions::default()).expect("open");
    for i in 0..5 {
        append_all(&wal, &[commit("t", i, i as i64)]); // One batch each: later frames vouch.
    }
    wal.close().expect("close");
    let name = segments(&disk).pop().expect("a segment");
    let second_frame = {
        let mut bytes = vec![0u8; 4];
        disk.read_at(&name, 32, &mut bytes).expect("read");
        32 + 24 + u32::from_le_bytes(bytes.try_into().expect("4")) as u64
    };
    disk.corrupt(&name, second_frame + 30);
    let error = open(disk.clone(), WalOptions::default())
        .err()
        .expect("must refuse");
    match &error {
        WalError::Corrupt { file, offset, .. } => {
            assert_eq!((file.as_str(), *offset), (name.as_str(), second_frame));
        }
        other => panic!("{other:?}"),
    }
    assert!(error.to_string().contains(&name), "{error}");
    let files_before = disk.list().expect("list");
    assert_eq!(
        disk.list().expect("list"),
        files_before,
        "a refused startup changes nothing"
    );
    let options = WalOptions {
        recover_truncate_log: true,
        ..WalOptions::default()
    };
    let (wal, report, replayed) = open(disk.clone(), options).expect("accept the loss");
    assert_eq!(replayed.len(), 1);
    assert!(report.truncated_corruption.is_some());
    assert_eq!(wal.append(&commit("t", 9, 9).encode()), Ok(Lsn(2)));
}

#[test]
fn corruption_in_an_older_segment_stops_startup() {
    let disk = SimDisk::new();
    let (wal, _, _) = open(disk.clone(), small_segments()).expect("open");
    for i in 0..40 {
        append_all(&wal, &[commit("t", i, i as i64)]);
    }
    wal.close().expect("close");
    let first = segments(&disk).remove(0);
    disk.corrupt(&first, 40);
    match open(disk.clone(), small_segments()) {
        Err(WalError::Corrupt { file, .. }) => assert_eq!(file, first),
        other => panic!("{:?}", other.map(|(_, r, _)| r)),
    }
    let options = WalOptions {
        recover_truncate_log: true,
        ..small_segments()
    };
    let (_, _, replayed) = open(disk.clone(), options).expect("accept the loss");
    assert_eq!(replayed.len(), 0);
    assert_eq!(segments(&disk).len(), 1);
}

#[test]
fn failed_fsync_poisons_the_log() {
    let disk = SimDisk::new();
    let (wal, _, _) = open(disk.clone(), WalOptions::default()).expect("open");
    append_all(&wal, &[commit("t", 1, 1)]);
    disk.fail_sync_after(1);
    let lsn = wal.append(&commit("t", 2, 2).encode()).expect("append");
    let error = wal.wait_durable(lsn).expect_err("fsync failed");
    assert!(matches!(error, WalError::Io(_)), "{error:?}");
    assert_eq!(error.mysql_code(), 3);
    // Poisoned: no retry, no more commits, until restart.
    assert!(wal.append(&commit("t", 3, 3).encode()).is_err());
    assert!(wal.check_writable().is_err());
    assert!(wal.flush().is_err());
    drop(wal);
    disk.crash(Crash::Random(1));
    disk.power_on();
    let (wal, _, replayed) = open(disk.clone(), WalOptions::default()).expect("restart");
    assert_eq!(replayed.len(), 1, "only the acknowledged commit");
    append_all(&wal, &[commit("t", 4, 4)]);
}

#[test]
fn disk_full_fails_commits_then_they_resume() {
    let disk = SimDisk::new();
    let (wal, _, _) = open(disk.clone(), WalOptions::default()).expect("open");
    append_all(&wal, &[commit("t", 1, 1)]);
    disk.set_space_limit(Some(disk.used_bytes() + 10));
    let lsn = wal.append(&commit("t", 2, 2).encode()).expect("append");
    let error = wal.wait_durable(lsn).expect_err("no space");
    assert!(matches!(error, WalError::DiskFull(_)), "{error:?}");
    assert_eq!(error.mysql_code(), 1021);
    assert!(wal.check_writable().is_ok(), "ENOSPC does not poison");
    disk.set_space_limit(None);
    // The failed record is retried ahead of new ones; nothing is dropped from the middle.
    let next = wal.append(&commit("t", 3, 3).encode()).expect("append");
    assert_eq!(next, Lsn(3));
    wal.wait_durable(next).expect("space is back");
    wal.close().expect("close");
    disk.crash(Crash::DropAll);
    disk.power_on();
    let (_, _, replayed) = open(disk.clone(), WalOptions::default()).expect("restart");
    assert_eq!(
        replayed.iter().map(|(l, _)| l.0).collect::<Vec<_>>(),
        vec![1, 2, 3]
    );
}

#[test]
fn checkpoint_drops_old_segments_and_recovery_starts_there() {
    let disk = SimDisk::new();
    let (wal, _, _) = open(disk.clone(), small_segments()).expect("open");
    let mut state = State::new();
    for i in 0..60 {
        let record = commit("t", i % 10, i as i64);
        apply(&mut state, &record);
        append_all(&wal, &[record]);
    }
    let before = segments(&disk).len();
    assert!(before > 3);
    let report = checkpoint(&wal, wal.last_lsn(), &state);
    assert_eq!(report.lsn, Lsn(60));
    assert_eq!(report.segments_removed, before - 1);
    assert_eq!(segments(&disk).len(), 1);
    let after: Vec<LogRecord> = (60..65).map(|i| commit("u", i, i as i64)).collect();
    append_all(&wal, &after);
    after.iter().for_each(|r| apply(&mut state, r));
    drop(wal);
    disk.crash(Crash::Random(3));
    disk.power_on();
    let (_, report, replayed) = open(disk.clone(), small_segments()).expect("restart");
    assert_eq!(report.checkpoint_lsn, Lsn(60));
    assert_eq!(report.log_records, 5);
    let mut recovered = State::new();
    replayed.iter().for_each(|(_, r)| apply(&mut recovered, r));
    assert_eq!(recovered, state);
}

#[test]
fn damaged_checkpoint_stops_startup() {
    let disk = SimDisk::new();
    let (wal, _, _) = open(disk.clone(), WalOptions::default()).expect("open");
    append_all(&wal, &[commit("t", 1, 1)]);
    let mut state = State::new();
    apply(&mut state, &commit("t", 1, 1));
    let report = checkpoint(&wal, Lsn(1), &state);
    wal.close().expect("close");
    disk.corrupt(&report.file, 45);
    let options = WalOptions {
        recover_truncate_log: true,
        ..WalOptions::default()
    };
    match open(disk.clone(), options) {
        Err(WalError::Corrupt { file, .. }) => assert_eq!(file, report.file),
        other => panic!("{:?}", other.map(|(_, r, _)| r)),
    }
}

#[test]
fn restart_after_clean_shutdown_replays_nothing() {
    let disk = SimDisk::new();
    let (wal, _, _) = open(disk.clone(), WalOptions::default()).expect("open");
    let mut state = State::new();
    for i in 0..20 {
        let record = commit("t", i, i as i64);
        apply(&mut state, &record);
        append_all(&wal, &[record]);
    }
    checkpoint(&wal, wal.last_lsn(), &state);
    wal.close().expect("close");
    disk.crash(Crash::DropAll);
    disk.power_on();
    let (wal, report, replayed) = open(disk.clone(), WalOptions::default()).expect("restart");
    assert_eq!(report.log_records, 0);
    assert_eq!(report.checkpoint_lsn, Lsn(20));
    assert_eq!(report.next_lsn, Lsn(21));
    assert!(
        replayed.iter().all(|(lsn, _)| *lsn == Lsn(20)),
        "only checkpoint records"
    );
    assert_eq!(wal.append(&commit("t", 1, 1).encode()), Ok(Lsn(21)));
}

#[test]
fn unfinished_checkpoint_is_ignored() {
    let disk = SimDisk::new();
    let (wal, _, _) = open(disk.clone(), WalOptions::default()).expect("open");
    append_all(&wal, &[commit("t", 1, 1), commit("t", 2, 2)]);
    let mut w = wal.begin_checkpoint(Lsn(2)).expect("begin");
    w.write_row("db", "t", b"k", &[]).expect("row");
    assert!(wal.begin_checkpoint(Lsn(2)).is_err(), "one at a time");
    std::mem::forget(w); // The process dies mid-checkpoint.
    drop(wal);
    disk.crash(Crash::KeepAll);
    disk.power_on();
    let (_, report, replayed) = open(disk.clone(), WalOptions::default()).expect("restart");
    assert_eq!(report.checkpoint_file, None);
    assert_eq!(replayed.len(), 2);
    assert!(disk
        .list()
        .expect("list")
        .iter()
        .all(|n| !n.ends_with(".tmp")));
}

#[test]
fn concurrent_commits_share_fsyncs() {
    let disk = SimDisk::new();
    let (wal, _, _) = open(disk.clone(), WalOptions::default()).expect("open");
    let wal = Arc::new(wal);
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let wal = wal.clone();
            std::thread::spawn(move || {
                for i in 0..200 {
                    let lsn = wal
                        .append(&commit("t", t * 1000 + i, 1).encode())
                        .expect("append");
                    wal.wait_durable(lsn).expect("durable");
                }
            })
        })
        .collect();
    threads
        .into_iter()
        .for_each(|t| t.join().expect("committer"));
    let stats = wal.stats();
    assert_eq!(stats.records, 1600);
    assert_eq!(stats.durable_lsn, Lsn(1600));
    assert!(stats.fsyncs <= stats.batches + 1, "{stats:?}");
}

#[test]
fn async_waiter_does_not_block_the_runtime() {
    let disk = SimDisk::new();
    let (wal, _, _) = open(disk.clone(), WalOptions::default()).expect("open");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let local = tokio::task::LocalSet::new();
        local
            .run_until(async {
                let mut waits = Vec::new();
                for i in 0..100 {
                    let lsn = wal.append(&commit("t", i, 1).encode()).expect("append");
                    waits.push(tokio::task::spawn_local(wal.durable_waiter(lsn)));
                }
                for w in waits {
                    w.await.expect("task").expect("durable");
                }
            })
            .await;
    });
    assert!(wal.durable_lsn() >= Lsn(100));
}

#[test]
fn failed_fsync_fails_every_async_and_blocking_waiter() {
    let disk = SimDisk::new();
    let (wal, _, _) = open(disk.clone(), WalOptions::default()).expect("open");
    append_all(&wal, &[commit("t", 1, 1)]);
    disk.fail_sync_after(1);
    // The flusher may sync, and fail, between two appends; from then on the log refuses
    // appends with that error. The first append always lands: nothing was pending before.
    let mut lsns = Vec::new();
    for i in 2..12 {
        match wal.append(&commit("t", i, 1).encode()) {
            Ok(lsn) => lsns.push(lsn),
            Err(error) => {
                assert!(matches!(error, WalError::Io(_)), "{error:?}");
                break;
            }
        }
    }
    assert!(
        !lsns.is_empty(),
        "the first append after a durable state was refused"
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    std::thread::scope(|scope| {
        let blocking = scope.spawn(|| wal.wait_durable(lsns[0]));
        runtime.block_on(async {
            let local = tokio::task::LocalSet::new();
            local
                .run_until(async {
                    let waits: Vec<_> = lsns
                        .iter()
                        .map(|&lsn| tokio::task::spawn_local(wal.durable_waiter(lsn)))
                        .collect();
                    for w in waits {
                        let error = w.await.expect("task").expect_err("fsync failed");
                        assert!(matches!(error, WalError::Io(_)), "{error:?}");
                    }
                })
                .await;
        });
        let error = blocking.join().expect("thread").expect_err("fsync failed");
        assert!(matches!(error, WalError::Io(_)), "{error:?}");
    });
}

#[test]
fn sync_mode_none_acknowledges_at_once_and_flush_syncs() {
    let disk = SimDisk::new();
    let options = WalOptions {
        sync_mode: SyncMode::None,
        ..WalOptions::default()
    };
    let (wal, _, _) = open(disk.clone(), options.clone()).expect("open");
    for i in 0..10 {
        let lsn = wal.append(&commit("t", i, 1).encode()).expect("append");
        wal.wait_durable(lsn).expect("acknowledged");
    }
    assert_eq!(wal.flush(), Ok(Lsn(10)));
    drop(wal);
    disk.crash(Crash::DropAll);
    disk.power_on();
    let (_, _, replayed) = open(disk.clone(), options).expect("restart");
    assert_eq!(replayed.len(), 10);
}

#[test]
fn group_delay_batches_commits() {
    let disk = SimDisk::new();
    let options = WalOptions {
        group_delay_us: 1000,
        ..WalOptions::default()
    };
    let (wal, _, _) = open(disk.clone(), options).expect("open");
    let lsns: Vec<Lsn> = (0..20)
        .map(|i| wal.append(&commit("t", i, 1).encode()).expect("a"))
        .collect();
    wal.wait_durable(*lsns.last().expect("some"))
        .expect("durable");
    assert!(wal.stats().fsyncs <= 3, "{:?}", wal.stats());
}
