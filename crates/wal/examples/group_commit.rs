//! Group-commit micro-benchmark: N threads commit small records in SyncMode::Commit on the
//! real disk and wait for each to be durable. Reports commits/s and fdatasyncs per commit.
//!
//!   cargo run --release -p manycore-wal --example group_commit -- [dir] [seconds] [threads..]
//!
//! Defaults: a fresh directory under /tmp, 2 seconds per run, 1 8 64 threads.

use manycore_types::Value;
use manycore_wal::{FsDisk, LogRecord, RowChange, Wal, WalOptions};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let base = args
        .first()
        .cloned()
        .unwrap_or_else(|| format!("/tmp/manycore-wal-bench-{}", std::process::id()));
    let seconds: f64 = args.get(1).map_or(Ok(2.0), |s| s.parse())?;
    let thread_counts: Vec<usize> = if args.len() > 2 {
        args[2..]
            .iter()
            .map(|s| s.parse())
            .collect::<Result<_, _>>()?
    } else {
        vec![1, 8, 64]
    };
    println!("dir {base}, {seconds} s per run, SyncMode::Commit");
    println!(
        "{:>8} {:>12} {:>14} {:>12} {:>10}",
        "threads", "commits/s", "fsyncs/commit", "commits", "avg batch"
    );
    for threads in thread_counts {
        let dir = format!("{base}/t{threads}");
        let _ = std::fs::remove_dir_all(&dir);
        let (wal, _) = Wal::open(FsDisk::open(&dir)?, WalOptions::default(), |_, _| {})?;
        let wal = Arc::new(wal);
        let stop = Arc::new(AtomicBool::new(false));
        let commits = Arc::new(AtomicU64::new(0));
        let start = Instant::now();
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let (wal, stop, commits) = (wal.clone(), stop.clone(), commits.clone());
                std::thread::spawn(move || {
                    let mut i = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        let record = LogRecord::Commit {
                            commit_ts: i,
                            changes: vec![RowChange {
                                db: "sbtest".into(),
                                table: "sbtest1".into(),
                                key: (t as u64 * 1_000_000_000 + i).to_be_bytes().to_vec(),
                                row: Some(vec![Value::Int(i as i64), Value::text("k")]),
                            }],
                        };
                        let lsn = wal.append(&record.encode()).expect("append");
                        wal.wait_durable(lsn).expect("durable");
                        commits.fetch_add(1, Ordering::Relaxed);
                        i += 1;
                    }
                })
            })
            .collect();
        std::thread::sleep(Duration::from_secs_f64(seconds));
        stop.store(true, Ordering::Relaxed);
        workers.into_iter().for_each(|w| w.join().expect("worker"));
        let elapsed = start.elapsed().as_secs_f64();
        let stats = wal.stats();
        let n = commits.load(Ordering::Relaxed);
        println!(
            "{:>8} {:>12.0} {:>14.3} {:>12} {:>10.1}",
            threads,
            n as f64 / elapsed,
            stats.fsyncs as f64 / n.max(1) as f64,
            n,
            stats.records as f64 / stats.batches.max(1) as f64,
        );
        wal.close()?;
        let _ = std::fs::remove_dir_all(&dir);
    }
    let _ = std::fs::remove_dir(&base);
    Ok(())
}
