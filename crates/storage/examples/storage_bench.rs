//! Performance sanity check (not a test): point gets per second from 1 and 2 threads, and update
//! throughput (1 and 2 threads, disjoint rows) with the collector running. Run with
//! `cargo run --release -p manycore-storage --example storage_bench`.
//!
//! `storage_bench recovery` only bulk-loads 8 tables of 100k rows (with a secondary index) the
//! way restart does (`apply_recovery_batch`, 2 threads) and prints the CPU it took.
//!
//! `storage_bench gets N` only loads the table and does N random point gets on one thread, in
//! `point_gets`, for instruction counts per get:
//! `valgrind --tool=callgrind --toggle-collect='*point_gets*' storage_bench gets 100000`.

use manycore_storage::{ColumnSchema, IndexSchema, ReadView, Storage, Table, TableSchema};
use manycore_types::{ColumnDefault, DataType, IntWidth, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const ROWS: i64 = 100_000;
const RUN: Duration = Duration::from_secs(2);

fn column(name: &str) -> ColumnSchema {
    ColumnSchema {
        name: name.into(),
        data_type: DataType::Int {
            width: IntWidth::Big,
            unsigned: false,
        },
        nullable: false,
        default: ColumnDefault::None,
        auto_increment: false,
        on_update_current_timestamp: false,
        comment: String::new(),
        display_width: None,
        generated: None,
    }
}

/// N random point gets through one snapshot; the callgrind target.
#[inline(never)]
fn point_gets(table: &Table, view: &ReadView, keys: &[Vec<u8>], n: usize) -> usize {
    let mut found = 0;
    let mut i = 0;
    for _ in 0..n {
        i = (i + 104_729) % keys.len();
        found += table.get(view, &keys[i], |_, row| row.len()).unwrap_or(0);
    }
    found
}

/// CPU seconds (user + system) this process has used.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .expect("stat has a command")
        .split_whitespace()
        .collect();
    let ticks: f64 =
        fields[11].parse::<f64>().expect("utime") + fields[12].parse::<f64>().expect("stime");
    ticks / 100.0
}

/// Restart's bulk load: 8 sysbench-like tables, rows in key order as a checkpoint has them.
fn recovery(schema: &TableSchema) {
    let storage = Storage::new();
    storage
        .create_database("d", manycore_types::Collation::Utf8mb4GeneralCi, false)
        .expect("db");
    let names: Vec<String> = (1..=8).map(|i| format!("t{i}")).collect();
    for name in &names {
        let schema = TableSchema {
            name: name.clone(),
            ..schema.clone()
        };
        storage.create_table("d", schema, false).expect("table");
    }
    let mut batch = storage.recovery_batch();
    for name in &names {
        let table = storage.catalog().table("d", name).expect("table").clone();
        for id in 0..ROWS {
            let row = vec![Value::Int(id), Value::Int(id * 7919 % ROWS), Value::Int(0)];
            let key = table.primary_key(&row[..1]);
            assert!(batch.push("d", name, key, Some(row)));
        }
    }
    let start = cpu_seconds();
    storage.apply_recovery_batch(batch, 2).expect("apply");
    let cpu = cpu_seconds() - start;
    println!(
        "recovery apply of 8 x {ROWS} rows: {cpu:.2} s of CPU ({:.0} ns per row)",
        cpu * 1e9 / (8 * ROWS) as f64
    );
}

fn main() {
    let gets_only: Option<usize> = match std::env::args().nth(1).as_deref() {
        Some("gets") => Some(
            std::env::args()
                .nth(2)
                .and_then(|n| n.parse().ok())
                .expect("gets N"),
        ),
        _ => None,
    };
    let schema = TableSchema {
        name: "t".into(),
        columns: vec![column("id"), column("k"), column("c")],
        primary_key: Some(vec![0]),
        indexes: vec![IndexSchema::new("k", vec![1], false)],
        fulltext_indexes: Vec::new(),
        comment: String::new(),
        options: Default::default(),
        foreign_keys: Vec::new(),
        checks: Vec::new(),
    };
    if std::env::args().nth(1).as_deref() == Some("recovery") {
        recovery(&schema);
        return;
    }
    let storage = Storage::new();
    storage
        .create_database("d", manycore_types::Collation::Utf8mb4GeneralCi, false)
        .expect("db");
    storage.create_table("d", schema, false).expect("table");
    let table = storage.catalog().table("d", "t").expect("t").clone();
    let reader = storage.register_reader();
    let mut txn = storage.begin(&reader);
    for id in 0..ROWS {
        let row = vec![Value::Int(id), Value::Int(id % 1000), Value::Int(0)];
        txn.insert(&table, row.into_boxed_slice()).expect("load");
    }
    txn.commit().expect("commit");
    let keys: Arc<Vec<Vec<u8>>> = Arc::new(
        (0..ROWS)
            .map(|id| table.primary_key(&[Value::Int(id)]))
            .collect(),
    );
    if let Some(n) = gets_only {
        let reader = storage.register_reader();
        let txn = storage.begin(&reader);
        let start = cpu_seconds();
        let found = point_gets(&table, &txn.view(), &keys, n);
        let cpu = cpu_seconds() - start;
        assert_eq!(found, 3 * n);
        println!(
            "{n} point gets: {:.0} ns of CPU each",
            cpu * 1e9 / n.max(1) as f64
        );
        return;
    }

    // Point gets: one snapshot per 100 gets (as a session's statement would).
    for threads in [1, 2] {
        let start = Instant::now();
        let cpu_start = cpu_seconds();
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (storage, table, keys) = (storage.clone(), table.clone(), keys.clone());
                std::thread::spawn(move || {
                    let reader = storage.register_reader();
                    let mut gets = 0u64;
                    let mut i = t as usize * 7919;
                    while start.elapsed() < RUN {
                        let txn = storage.begin(&reader);
                        let view = txn.view();
                        for _ in 0..100 {
                            i = (i + 104_729) % keys.len();
                            let found = table.get(&view, &keys[i], |_, row| row.len());
                            assert_eq!(found, Some(3));
                            gets += 1;
                        }
                        txn.commit().expect("commit");
                    }
                    gets
                })
            })
            .collect();
        let gets: u64 = handles.into_iter().map(|h| h.join().expect("getter")).sum();
        let secs = start.elapsed().as_secs_f64();
        let cpu = cpu_seconds() - cpu_start;
        println!(
            "point gets, {threads} threads: {:.2} M/s, {:.0} ns of CPU each",
            gets as f64 / secs / 1e6,
            cpu * 1e9 / gets as f64
        );
    }

    // Updates: each thread its own rows; one transaction per update (begin, get, update,
    // commit), with the collector running.
    for threads in [1, 2] {
        let stop = Arc::new(AtomicBool::new(false));
        let collector = {
            let (storage, stop) = (storage.clone(), stop.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    storage.collect_garbage();
                    std::thread::sleep(Duration::from_millis(1));
                }
            })
        };
        let start = Instant::now();
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (storage, table, keys) = (storage.clone(), table.clone(), keys.clone());
                std::thread::spawn(move || {
                    let reader = storage.register_reader();
                    let (mut updates, mut conflicts) = (0u64, 0u64);
                    let mut i = t as usize;
                    while start.elapsed() < RUN {
                        i = (i + 2 * 7) % keys.len(); // stays on this thread's parity
                        let mut txn = storage.begin(&reader);
                        let (slot, mut row) = table
                            .get(&txn.view(), &keys[i], |slot, row| {
                                (slot.clone(), row.to_vec())
                            })
                            .expect("row");
                        let Value::Int(c) = row[2] else {
                            unreachable!("int column")
                        };
                        row[2] = Value::Int(c + 1);
                        match txn.update(&table, &slot, row.into_boxed_slice()) {
                            Ok(()) => {
                                txn.commit().expect("commit");
                                updates += 1;
                            }
                            Err(_) => conflicts += 1,
                        }
                    }
                    (updates, conflicts)
                })
            })
            .collect();
        let (mut updates, mut conflicts) = (0, 0);
        for h in handles {
            let (u, c) = h.join().expect("updater");
            updates += u;
            conflicts += c;
        }
        let secs = start.elapsed().as_secs_f64();
        stop.store(true, Ordering::Relaxed);
        collector.join().expect("collector");
        println!(
            "update transactions, {threads} threads: {:.0} k/s ({conflicts} conflicts)",
            updates as f64 / secs / 1e3
        );
    }
}
