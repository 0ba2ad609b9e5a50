//! Invariant workloads with real threads (FoundationDB's "Cycle" idea): writers change
//! data in ways that keep a property, readers check it in every snapshot, and a collector
//! runs throughout. Operation counts are bounded so the suite stays fast; the seed is
//! printed (MANYCORE_SEED replays a thread schedule only roughly, but the op mix exactly).

mod common;

use common::*;
use manycore_storage::{IndexNo, KeyRange, RowSlot, Storage, StorageError, Table};
use manycore_types::Value;
use std::collections::{BTreeMap, HashSet};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;

/// Release builds do more work in the same wall time.
fn scaled(release: u64) -> u64 {
    if cfg!(debug_assertions) {
        release / 5
    } else {
        release
    }
}

/// Runs the collector until `stop`, as the server's background thread would.
fn collector(storage: Arc<Storage>, stop: Arc<AtomicBool>) -> thread::JoinHandle<u64> {
    thread::spawn(move || {
        let mut rounds = 0;
        while !stop.load(Ordering::Relaxed) {
            storage.collect_garbage();
            rounds += 1;
            thread::yield_now();
        }
        rounds
    })
}

/// The row of account `number` (unique index `b`) visible in `view`.
fn account(
    table: &Table,
    view: &manycore_storage::ReadView,
    number: i64,
) -> (Arc<RowSlot>, Vec<Value>) {
    let mut found = Vec::new();
    table.scan(
        view,
        B,
        &KeyRange::prefix(vec![Value::Int(number)]),
        |slot, row| {
            found.push((slot.clone(), row.to_vec()));
            ControlFlow::Continue(())
        },
    );
    assert_eq!(
        found.len(),
        1,
        "account {number} must be visible exactly once"
    );
    found.pop().expect("one")
}

/// Accounts: id (moves around), a = balance, b = account number (unique).
/// Transfers read two accounts and write both, sometimes in place, sometimes as delete +
/// insert of the same key, sometimes moving the row to a new primary key. Readers check in
/// every snapshot, through all three indexes, that there are `ACCOUNTS` accounts and the
/// money adds up. At the end each balance must equal its start plus every committed
/// transfer's delta: a lost update that happened to keep the total would show there.
#[test]
fn transfers_keep_the_total() {
    const ACCOUNTS: i64 = 12;
    const START: i64 = 1000;
    let transfers_per_writer = scaled(6000);
    let writers = 3;
    let seed = seed(0x5eed_0001);
    let (storage, t) = setup();
    insert_committed(
        &storage,
        &t,
        (0..ACCOUNTS)
            .map(|n| row(n, Some(START), Some(n)))
            .collect(),
    );
    let stop = Arc::new(AtomicBool::new(false));
    let next_id = Arc::new(AtomicU64::new(ACCOUNTS as u64));
    let gc = collector(storage.clone(), stop.clone());
    let mut readers = Vec::new();
    for _ in 0..2 {
        let (storage, t, stop) = (storage.clone(), t.clone(), stop.clone());
        readers.push(thread::spawn(move || {
            let reader = storage.register_reader();
            let mut checks = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let txn = storage.begin(&reader);
                let v = txn.view();
                for index in [IndexNo::Primary, A, B] {
                    let rows = scan(&t, &v, index, &KeyRange::all());
                    assert_eq!(rows.len() as i64, ACCOUNTS, "{index:?} at {}", v.snapshot);
                    let total: i64 = rows.iter().map(|r| int_of(&r[1])).sum();
                    assert_eq!(total, ACCOUNTS * START, "{index:?} at {}", v.snapshot);
                    let numbers: HashSet<i64> = rows.iter().map(|r| int_of(&r[2])).collect();
                    assert_eq!(numbers.len() as i64, ACCOUNTS);
                }
                for number in 0..ACCOUNTS {
                    let (slot, row) = account(&t, &v, number);
                    assert_eq!(get(&t, &v, int_of(&row[0])), Some(row.clone()));
                    assert_eq!(slot.key(), &key(&t, int_of(&row[0]))[..]);
                }
                txn.commit().expect("commit");
                checks += 1;
            }
            checks
        }));
    }
    let mut handles = Vec::new();
    for w in 0..writers {
        let (storage, t, next_id) = (storage.clone(), t.clone(), next_id.clone());
        handles.push(thread::spawn(move || {
            let mut rng = Rng::new(seed.wrapping_add(w));
            let reader = storage.register_reader();
            let mut deltas = BTreeMap::<i64, i64>::new();
            let mut conflicts = 0u64;
            for _ in 0..transfers_per_writer {
                let from = rng.below(ACCOUNTS as u64) as i64;
                let to = (from + 1 + rng.below(ACCOUNTS as u64 - 1) as i64) % ACCOUNTS;
                let amount = rng.below(50) as i64;
                loop {
                    let mut txn = storage.begin(&reader);
                    let result = (|| -> Result<(), StorageError> {
                        for (number, delta) in [(from, -amount), (to, amount)] {
                            let (slot, old) = account(&t, &txn.view(), number);
                            let balance = int_of(&old[1]) + delta;
                            let id = int_of(&old[0]);
                            match rng.below(10) {
                                0 => {
                                    let new_id = next_id.fetch_add(1, Ordering::Relaxed) as i64;
                                    txn.update(&t, &slot, row(new_id, Some(balance), Some(number)))?
                                }
                                1 => {
                                    txn.delete(&t, &slot)?;
                                    txn.insert(&t, row(id, Some(balance), Some(number)))?;
                                }
                                _ => txn.update(&t, &slot, row(id, Some(balance), Some(number)))?,
                            }
                        }
                        Ok(())
                    })();
                    match result {
                        Ok(()) => {
                            txn.commit().expect("commit");
                            *deltas.entry(from).or_default() -= amount;
                            *deltas.entry(to).or_default() += amount;
                            break;
                        }
                        Err(StorageError::WriteConflict | StorageError::LockWait { .. }) => {
                            txn.rollback();
                            conflicts += 1;
                            thread::yield_now();
                        }
                        Err(e) => panic!("transfer failed: {e}"),
                    }
                }
            }
            (deltas, conflicts)
        }));
    }
    let mut expected: BTreeMap<i64, i64> = (0..ACCOUNTS).map(|n| (n, START)).collect();
    let mut conflicts = 0;
    for handle in handles {
        let (deltas, c) = handle.join().expect("writer");
        conflicts += c;
        for (number, delta) in deltas {
            *expected.get_mut(&number).expect("account") += delta;
        }
    }
    stop.store(true, Ordering::Relaxed);
    let checks: u64 = readers.into_iter().map(|r| r.join().expect("reader")).sum();
    let rounds = gc.join().expect("collector");
    eprintln!("{conflicts} conflicts, {checks} snapshot checks, {rounds} collections");
    let reader = storage.register_reader();
    let txn = storage.begin(&reader);
    for (number, balance) in &expected {
        let (_, row) = account(&t, &txn.view(), *number);
        assert_eq!(
            int_of(&row[1]),
            *balance,
            "account {number}: lost or doubled update"
        );
    }
    txn.commit().expect("commit");
    storage.collect_garbage();
    storage.collect_garbage();
    assert_eq!(
        t.approximate_row_count() as i64,
        ACCOUNTS,
        "moved and deleted rows collected"
    );
    assert_eq!(t.index_entry_count(A) as i64, ACCOUNTS);
    assert_eq!(t.index_entry_count(B) as i64, ACCOUNTS);
    assert_eq!(storage.garbage_len(), 0);
}

/// Threads insert the same keys in different orders, several keys per transaction, and
/// delete some of them again; a key is inserted by exactly one committed transaction per
/// round, and the row says which.
#[test]
fn concurrent_inserts_of_overlapping_keys() {
    const KEYS: i64 = 200;
    let rounds = scaled(20);
    let threads = 4u64;
    let seed = seed(0x5eed_0002);
    let (storage, t) = setup();
    let stop = Arc::new(AtomicBool::new(false));
    let gc = collector(storage.clone(), stop.clone());
    for round in 0..rounds {
        let mut handles = Vec::new();
        for w in 0..threads {
            let (storage, t) = (storage.clone(), t.clone());
            handles.push(thread::spawn(move || {
                let mut rng = Rng::new(seed ^ (round << 8) ^ w);
                let reader = storage.register_reader();
                let mut keys: Vec<i64> = (0..KEYS).collect();
                for i in (1..keys.len()).rev() {
                    keys.swap(i, rng.below(i as u64 + 1) as usize);
                }
                let mut won = Vec::new();
                let mut pending = keys;
                while !pending.is_empty() {
                    let batch: Vec<i64> = pending.drain(..pending.len().min(3)).collect();
                    let mut txn = storage.begin(&reader);
                    let mut mine = Vec::new();
                    let mut retry = Vec::new();
                    for k in batch {
                        let tag = (w as i64) << 32 | round as i64;
                        match txn.insert(&t, row(k, Some(tag), None)) {
                            Ok(_) => mine.push(k),
                            Err(StorageError::DuplicateKey { .. }) => {}
                            Err(StorageError::WriteConflict | StorageError::LockWait { .. }) => {
                                retry.push(k)
                            }
                            Err(e) => panic!("{e}"),
                        }
                    }
                    if rng.chance(10) {
                        txn.rollback(); // all of this batch goes back to the queue
                        retry.append(&mut mine);
                    } else {
                        txn.commit().expect("commit");
                    }
                    won.extend(mine);
                    if !retry.is_empty() {
                        thread::yield_now();
                        pending.extend(retry);
                    }
                }
                won
            }));
        }
        let mut winner = BTreeMap::new();
        for (w, handle) in handles.into_iter().enumerate() {
            for k in handle.join().expect("inserter") {
                assert!(
                    winner.insert(k, w as i64).is_none(),
                    "key {k} inserted twice"
                );
            }
        }
        assert_eq!(winner.len() as i64, KEYS, "every key inserted once");
        let reader = storage.register_reader();
        let mut txn = storage.begin(&reader);
        let rows = scan(&t, &txn.view(), IndexNo::Primary, &KeyRange::all());
        assert_eq!(ids(&rows), (0..KEYS).collect::<Vec<_>>());
        for r in &rows {
            let tag = int_of(&r[1]);
            assert_eq!(
                tag >> 32,
                winner[&int_of(&r[0])],
                "row written by its winner"
            );
            assert_eq!(tag & 0xFFFF_FFFF, round as i64);
        }
        // Delete everything for the next round (the collector removes the slots meanwhile).
        for id in 0..KEYS {
            delete(&mut txn, &t, id).expect("delete");
        }
        txn.commit().expect("commit");
    }
    stop.store(true, Ordering::Relaxed);
    gc.join().expect("collector");
    storage.collect_garbage();
    assert_eq!(t.approximate_row_count(), 0);
    assert_eq!(t.index_entry_count(A), 0);
    assert_eq!(storage.garbage_len(), 0);
}

/// Writers insert, update and delete rows whose unique `b` comes from a small range;
/// readers check that no snapshot ever has two rows with the same non-NULL `b`.
#[test]
fn concurrent_unique_values_stay_unique() {
    const VALUES: u64 = 16;
    let ops_per_writer = scaled(6000);
    let seed = seed(0x5eed_0003);
    let (storage, t) = setup();
    let stop = Arc::new(AtomicBool::new(false));
    let gc = collector(storage.clone(), stop.clone());
    let check = |t: &Table, v: &manycore_storage::ReadView| {
        let rows = scan(t, v, IndexNo::Primary, &KeyRange::all());
        let mut seen = HashSet::new();
        for r in &rows {
            if !r[2].is_null() {
                assert!(
                    seen.insert(int_of(&r[2])),
                    "b = {:?} twice at {}",
                    r[2],
                    v.snapshot
                );
            }
        }
        let by_b = scan(t, v, B, &KeyRange::all());
        assert_eq!(by_b.len(), rows.len(), "unique index and primary disagree");
    };
    let reader_thread = {
        let (storage, t, stop) = (storage.clone(), t.clone(), stop.clone());
        thread::spawn(move || {
            let reader = storage.register_reader();
            while !stop.load(Ordering::Relaxed) {
                let txn = storage.begin(&reader);
                check(&t, &txn.view());
                txn.commit().expect("commit");
            }
        })
    };
    let mut handles = Vec::new();
    for w in 0..3u64 {
        let (storage, t) = (storage.clone(), t.clone());
        handles.push(thread::spawn(move || {
            let mut rng = Rng::new(seed.wrapping_add(w));
            let reader = storage.register_reader();
            let (mut duplicates, mut conflicts) = (0u64, 0u64);
            for _ in 0..ops_per_writer {
                let mut txn = storage.begin(&reader);
                let statements = 1 + rng.below(3);
                for _ in 0..statements {
                    let id = rng.below(24) as i64;
                    let b = if rng.chance(10) {
                        None
                    } else {
                        Some(rng.below(VALUES) as i64)
                    };
                    let statement = txn.savepoint();
                    let result = match slot(&t, &txn.view(), id) {
                        None => txn.insert(&t, row(id, None, b)).map(|_| ()),
                        Some(s) if rng.chance(30) => txn.delete(&t, &s),
                        Some(s) => txn.update(&t, &s, row(id, Some(w as i64), b)),
                    };
                    match result {
                        Ok(()) if rng.chance(5) => txn.rollback_to(statement),
                        Ok(()) => {}
                        Err(StorageError::DuplicateKey { .. }) => duplicates += 1,
                        Err(StorageError::WriteConflict | StorageError::LockWait { .. }) => {
                            conflicts += 1
                        }
                        Err(e) => panic!("{e}"),
                    }
                }
                if rng.chance(10) {
                    txn.rollback();
                } else {
                    txn.commit().expect("commit");
                }
            }
            (duplicates, conflicts)
        }));
    }
    for handle in handles {
        let (d, c) = handle.join().expect("writer");
        eprintln!("{d} duplicates, {c} conflicts");
    }
    stop.store(true, Ordering::Relaxed);
    reader_thread.join().expect("reader");
    gc.join().expect("collector");
    let reader = storage.register_reader();
    let txn = storage.begin(&reader);
    check(&t, &txn.view());
    let live = scan(&t, &txn.view(), IndexNo::Primary, &KeyRange::all()).len();
    txn.commit().expect("commit");
    storage.collect_garbage();
    assert_eq!(t.approximate_row_count(), live);
    assert_eq!(
        t.index_entry_count(B),
        live,
        "no stale unique entries after collection"
    );
    assert_eq!(storage.garbage_len(), 0);
}
