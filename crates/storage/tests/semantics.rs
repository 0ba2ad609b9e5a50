//! Single-threaded behaviour of transactions, indexes, garbage collection and DDL.

mod common;

use common::*;
use manycore_storage::{IndexNo, IndexSchema, KeyRange, StorageError, Table, TableId, TableSchema};
use manycore_types::Value;
use std::ops::Bound;
use std::sync::Arc;

fn is_duplicate(result: Result<impl Sized, StorageError>, index: IndexNo) -> bool {
    matches!(result, Err(StorageError::DuplicateKey { index: i, .. }) if i == index)
}

fn is_conflict(result: Result<impl Sized, StorageError>) -> bool {
    matches!(
        result,
        Err(StorageError::WriteConflict | StorageError::LockWait { .. })
    )
}

#[test]
fn own_writes_are_visible_only_to_the_writer() {
    let (storage, t) = setup();
    let (r1, r2) = (storage.register_reader(), storage.register_reader());
    let mut writer = storage.begin(&r1);
    writer
        .insert(&t, row(1, Some(10), Some(100)))
        .expect("insert");
    let reader = storage.begin(&r2);
    assert_eq!(
        get(&t, &writer.view(), 1),
        Some(row(1, Some(10), Some(100)).to_vec())
    );
    assert_eq!(get(&t, &reader.view(), 1), None);
    assert!(scan(&t, &reader.view(), A, &KeyRange::all()).is_empty());
    assert_eq!(ids(&scan(&t, &writer.view(), A, &KeyRange::all())), vec![1]);
    writer.commit().expect("commit");
    // The reader's snapshot predates the commit.
    assert_eq!(get(&t, &reader.view(), 1), None);
    reader.commit().expect("commit");
    let later = storage.begin(&r2);
    assert!(get(&t, &later.view(), 1).is_some());
}

#[test]
fn snapshot_does_not_see_later_commits() {
    let (storage, t) = setup();
    insert_committed(&storage, &t, vec![row(1, Some(1), Some(1))]);
    let (r1, r2) = (storage.register_reader(), storage.register_reader());
    let old = storage.begin(&r1);
    let mut writer = storage.begin(&r2);
    update(&mut writer, &t, 1, row(1, Some(2), Some(2))).expect("update");
    writer.insert(&t, row(2, Some(2), Some(3))).expect("insert");
    delete(&mut writer, &t, 1).expect("delete own update");
    let ts = writer.commit().expect("commit");
    assert!(ts > old.view().snapshot);
    assert_eq!(
        get(&t, &old.view(), 1),
        Some(row(1, Some(1), Some(1)).to_vec())
    );
    assert_eq!(get(&t, &old.view(), 2), None);
    assert_eq!(
        ids(&scan(&t, &old.view(), IndexNo::Primary, &KeyRange::all())),
        vec![1]
    );
    assert_eq!(
        ids(&scan(
            &t,
            &old.view(),
            A,
            &KeyRange::prefix(vec![Value::Int(1)])
        )),
        vec![1]
    );
    assert!(scan(&t, &old.view(), A, &KeyRange::prefix(vec![Value::Int(2)])).is_empty());
}

#[test]
fn rollback_and_drop_hide_everything() {
    let (storage, t) = setup();
    insert_committed(&storage, &t, vec![row(1, Some(1), Some(1))]);
    let reader = storage.register_reader();
    let mut txn = storage.begin(&reader);
    txn.insert(&t, row(2, Some(2), Some(2))).expect("insert");
    update(&mut txn, &t, 1, row(1, Some(5), Some(5))).expect("update");
    txn.rollback();
    {
        let mut txn = storage.begin(&reader);
        delete(&mut txn, &t, 1).expect("delete");
        txn.insert(&t, row(3, None, None)).expect("insert");
        // Dropped without commit: rolls back (transaction invariant (3)).
    }
    let check = storage.begin(&reader);
    let v = check.view();
    assert_eq!(
        ids(&scan(&t, &v, IndexNo::Primary, &KeyRange::all())),
        vec![1]
    );
    assert_eq!(ids(&scan(&t, &v, A, &KeyRange::all())), vec![1]);
    assert_eq!(ids(&scan(&t, &v, B, &KeyRange::all())), vec![1]);
    assert_eq!(t.index_entry_count(A), 1, "rolled-back entries are removed");
    assert_eq!(t.index_entry_count(B), 1);
    check.commit().expect("commit");
    // The rows are free for others: the rolled-back transactions left no locks.
    let mut other = storage.begin(&reader);
    update(&mut other, &t, 1, row(1, Some(2), Some(2))).expect("row 1 unlocked");
    other
        .insert(&t, row(2, Some(2), Some(5)))
        .expect("key 2 unlocked");
    other.commit().expect("commit");
    storage.collect_garbage();
    assert_eq!(
        t.approximate_row_count(),
        2,
        "the empty slot of key 3 was collected"
    );
}

#[test]
fn savepoint_undoes_one_statement_and_keeps_earlier_writes() {
    let (storage, t) = setup();
    insert_committed(
        &storage,
        &t,
        vec![row(1, Some(1), Some(1)), row(2, Some(2), Some(2))],
    );
    let (r1, r2) = (storage.register_reader(), storage.register_reader());
    let mut txn = storage.begin(&r1);
    update(&mut txn, &t, 1, row(1, Some(10), Some(10))).expect("statement 1");
    let statement = txn.savepoint();
    update(&mut txn, &t, 1, row(1, Some(11), Some(11))).expect("statement 2, row 1 again");
    update(&mut txn, &t, 2, row(2, Some(20), Some(20))).expect("statement 2, row 2");
    txn.insert(&t, row(3, Some(30), Some(30)))
        .expect("statement 2, row 3");
    txn.rollback_to(statement);
    let v = txn.view();
    assert_eq!(get(&t, &v, 1), Some(row(1, Some(10), Some(10)).to_vec()));
    assert_eq!(get(&t, &v, 2), Some(row(2, Some(2), Some(2)).to_vec()));
    assert_eq!(get(&t, &v, 3), None);
    assert_eq!(ids(&scan(&t, &v, A, &KeyRange::all())), vec![2, 1]);
    assert_eq!(
        ids(&scan(&t, &v, B, &KeyRange::prefix(vec![Value::Int(11)]))),
        Vec::<i64>::new()
    );
    // Rows first locked by the failed statement are free again; row 1 is still ours.
    let mut other = storage.begin(&r2);
    assert!(is_conflict(update(&mut other, &t, 1, row(1, None, None))));
    update(&mut other, &t, 2, row(2, Some(21), Some(21))).expect("row 2 released");
    other.commit().expect("commit");
    txn.commit().expect("commit");
    let check = storage.begin(&r2);
    let v = check.view();
    assert_eq!(get(&t, &v, 1), Some(row(1, Some(10), Some(10)).to_vec()));
    assert_eq!(get(&t, &v, 2), Some(row(2, Some(21), Some(21)).to_vec()));
}

#[test]
fn a_row_lock_holds_off_writers_and_adds_no_version() {
    let (storage, t) = setup();
    insert_committed(&storage, &t, vec![row(1, Some(1), Some(1))]);
    let (r1, r2) = (storage.register_reader(), storage.register_reader());
    let mut locker = storage.begin(&r1);
    let locked = lock(&mut locker, &t, 1).expect("lock");
    lock(&mut locker, &t, 1).expect("a second lock of one's own row");
    assert_eq!(locked.version_count(), 1, "a lock is not a version");
    let mut writer = storage.begin(&r2);
    let held = update(&mut writer, &t, 1, row(1, Some(2), Some(2)));
    let holder = locker.view().txn;
    assert!(matches!(held, Err(StorageError::LockWait { holder: h }) if h == holder));
    writer.rollback();
    let snapshot = locker.view().snapshot;
    let committed = locker.commit().expect("commit");
    assert_eq!(committed, snapshot, "row locks alone commit no change");
    assert_eq!(locked.version_count(), 1);
    let mut writer = storage.begin(&r2);
    update(&mut writer, &t, 1, row(1, Some(2), Some(2))).expect("released at commit");
    writer.commit().expect("commit");
}

#[test]
fn a_row_lock_ends_with_its_savepoint_and_a_later_write_of_the_row_commits() {
    let (storage, t) = setup();
    insert_committed(
        &storage,
        &t,
        vec![row(1, Some(1), Some(1)), row(2, Some(2), Some(2))],
    );
    let (r1, r2) = (storage.register_reader(), storage.register_reader());
    let mut txn = storage.begin(&r1);
    let one = lock(&mut txn, &t, 1).expect("lock row 1");
    let statement = txn.savepoint();
    update(&mut txn, &t, 1, row(1, Some(10), Some(10))).expect("update of the locked row");
    lock(&mut txn, &t, 2).expect("lock row 2");
    txn.rollback_to(statement);
    assert_eq!(
        one.version_count(),
        1,
        "the update is undone, the lock is not a version"
    );
    assert_eq!(
        get(&t, &txn.view(), 1),
        Some(row(1, Some(1), Some(1)).to_vec())
    );
    let mut other = storage.begin(&r2);
    assert!(is_conflict(update(&mut other, &t, 1, row(1, None, None))));
    update(&mut other, &t, 2, row(2, Some(20), Some(20))).expect("row 2's lock was undone");
    other.commit().expect("commit");
    update(&mut txn, &t, 1, row(1, Some(11), Some(11))).expect("update under the lock");
    let snapshot = txn.view().snapshot;
    assert!(
        txn.commit().expect("commit") > snapshot,
        "the update commits"
    );
    let check = storage.begin(&r2);
    let v = check.view();
    assert_eq!(get(&t, &v, 1), Some(row(1, Some(11), Some(11)).to_vec()));
    assert_eq!(get(&t, &v, 2), Some(row(2, Some(20), Some(20)).to_vec()));
}

#[test]
fn rollback_to_restores_index_entries_of_a_row_written_twice() {
    let (storage, t) = setup();
    insert_committed(&storage, &t, vec![row(1, Some(1), Some(1))]);
    let reader = storage.register_reader();
    let mut txn = storage.begin(&reader);
    let s0 = txn.savepoint();
    update(&mut txn, &t, 1, row(1, Some(2), Some(2))).expect("1 -> 2");
    let s1 = txn.savepoint();
    update(&mut txn, &t, 1, row(1, Some(3), Some(3))).expect("2 -> 3");
    update(&mut txn, &t, 1, row(1, Some(2), Some(2))).expect("3 -> 2");
    txn.rollback_to(s1);
    let v = txn.view();
    for index in [A, B] {
        assert_eq!(
            ids(&scan(&t, &v, index, &KeyRange::prefix(vec![Value::Int(2)]))),
            vec![1]
        );
        assert!(scan(&t, &v, index, &KeyRange::prefix(vec![Value::Int(3)])).is_empty());
    }
    txn.rollback_to(s0);
    let v = txn.view();
    for index in [A, B] {
        assert_eq!(ids(&scan(&t, &v, index, &KeyRange::all())), vec![1]);
        assert_eq!(t.index_entry_count(index), 1);
    }
    assert_eq!(get(&t, &v, 1), Some(row(1, Some(1), Some(1)).to_vec()));
    txn.commit().expect("commit");
}

#[test]
fn duplicate_primary_keys() {
    let (storage, t) = setup();
    insert_committed(&storage, &t, vec![row(1, None, None)]);
    let (r1, r2) = (storage.register_reader(), storage.register_reader());
    let mut txn = storage.begin(&r1);
    assert!(is_duplicate(
        txn.insert(&t, row(1, None, None)),
        IndexNo::Primary
    ));
    txn.insert(&t, row(2, None, None)).expect("new key");
    assert!(is_duplicate(
        txn.insert(&t, row(2, None, None)),
        IndexNo::Primary
    ));
    // Another transaction's uncommitted key: it may still roll back.
    let mut other = storage.begin(&r2);
    assert!(is_conflict(other.insert(&t, row(2, None, None))));
    // The failed insert of key 1 took no lock that outlives it.
    update(&mut other, &t, 1, row(1, Some(1), None)).expect("row 1 not locked by txn");
    other.commit().expect("commit");
    txn.commit().expect("commit");
    // Committed after the snapshot: still a duplicate.
    let mut late = storage.begin(&r1);
    assert!(is_duplicate(
        late.insert(&t, row(2, None, None)),
        IndexNo::Primary
    ));
}

#[test]
fn deleted_then_reinserted_key() {
    let (storage, t) = setup();
    insert_committed(&storage, &t, vec![row(1, Some(1), Some(1))]);
    let (r1, r2) = (storage.register_reader(), storage.register_reader());
    // In one transaction.
    let mut txn = storage.begin(&r1);
    delete(&mut txn, &t, 1).expect("delete");
    assert_eq!(get(&t, &txn.view(), 1), None);
    txn.insert(&t, row(1, Some(1), Some(1)))
        .expect("same key and unique value again");
    txn.commit().expect("commit");
    let v = storage.begin(&r2);
    assert_eq!(ids(&scan(&t, &v.view(), B, &KeyRange::all())), vec![1]);
    v.commit().expect("commit");
    // In two transactions, with the slot collected in between.
    let mut txn = storage.begin(&r1);
    delete(&mut txn, &t, 1).expect("delete");
    txn.commit().expect("commit");
    storage.collect_garbage();
    assert_eq!(t.approximate_row_count(), 0);
    assert_eq!(t.index_entry_count(A), 0);
    assert_eq!(t.index_entry_count(B), 0);
    let mut txn = storage.begin(&r1);
    txn.insert(&t, row(1, Some(2), Some(1)))
        .expect("insert after collection");
    txn.commit().expect("commit");
    let v = storage.begin(&r2);
    assert_eq!(
        get(&t, &v.view(), 1),
        Some(row(1, Some(2), Some(1)).to_vec())
    );
    assert_eq!(
        ids(&scan(
            &t,
            &v.view(),
            A,
            &KeyRange::prefix(vec![Value::Int(2)])
        )),
        vec![1]
    );
}

#[test]
fn unique_secondary_duplicates_and_nulls() {
    let (storage, t) = setup();
    insert_committed(
        &storage,
        &t,
        vec![row(1, None, Some(7)), row(2, None, None)],
    );
    let (r1, r2) = (storage.register_reader(), storage.register_reader());
    let mut txn = storage.begin(&r1);
    assert!(is_duplicate(txn.insert(&t, row(3, None, Some(7))), B));
    // NULLs never collide.
    txn.insert(&t, row(3, None, None)).expect("NULL again");
    txn.insert(&t, row(4, None, None)).expect("and again");
    // Own uncommitted values do collide.
    txn.insert(&t, row(5, None, Some(8))).expect("8");
    assert!(is_duplicate(txn.insert(&t, row(6, None, Some(8))), B));
    assert!(is_duplicate(
        update(&mut txn, &t, 3, row(3, None, Some(8))),
        B
    ));
    // Another transaction's uncommitted value: conflict, not duplicate (it may roll back).
    let mut other = storage.begin(&r2);
    assert!(is_conflict(other.insert(&t, row(9, None, Some(8)))));
    assert!(
        get(&t, &other.view(), 9).is_none(),
        "the failed insert left nothing"
    );
    other.rollback();
    txn.commit().expect("commit");
    let v = storage.begin(&r2);
    assert_eq!(
        ids(&scan(&t, &v.view(), B, &KeyRange::all())),
        vec![2, 3, 4, 1, 5]
    );
}

#[test]
fn unique_value_freed_by_update_in_the_same_transaction() {
    let (storage, t) = setup();
    insert_committed(&storage, &t, vec![row(1, None, Some(7))]);
    let (r1, r2) = (storage.register_reader(), storage.register_reader());
    let mut txn = storage.begin(&r1);
    update(&mut txn, &t, 1, row(1, None, Some(8))).expect("free 7");
    txn.insert(&t, row(2, None, Some(7)))
        .expect("7 is free in this transaction");
    // Others see 7 taken by row 1 (committed) and wanted by row 2: they must wait it out.
    let mut other = storage.begin(&r2);
    assert!(is_conflict(other.insert(&t, row(3, None, Some(7)))));
    assert!(is_conflict(other.insert(&t, row(3, None, Some(8)))));
    other.rollback();
    txn.commit().expect("commit");
    let mut other = storage.begin(&r2);
    assert!(is_duplicate(other.insert(&t, row(3, None, Some(7))), B));
    let dup = other.insert(&t, row(3, None, Some(8)));
    match dup {
        Err(StorageError::DuplicateKey { existing, .. }) => {
            assert_eq!(existing.key(), &key(&t, 1)[..], "the row that owns the key");
        }
        other => panic!("expected a duplicate, got {other:?}"),
    }
}

#[test]
fn unique_check_ignores_stale_entries_of_rows_others_hold() {
    let (storage, t) = setup();
    insert_committed(&storage, &t, vec![row(1, None, Some(7))]);
    let (r1, r2, pin) = (
        storage.register_reader(),
        storage.register_reader(),
        storage.register_reader(),
    );
    let old = storage.begin(&pin); // keeps the entry for 7 alive
    let mut txn = storage.begin(&r1);
    update(&mut txn, &t, 1, row(1, None, Some(8))).expect("7 -> 8");
    txn.commit().expect("commit");
    storage.collect_garbage();
    assert_eq!(
        t.index_entry_count(B),
        2,
        "the old snapshot still needs the entry for 7"
    );
    // Another transaction holds row 1 for a change that keeps 8.
    let mut holder = storage.begin(&r1);
    update(&mut holder, &t, 1, row(1, Some(1), Some(8))).expect("lock row 1");
    let mut txn = storage.begin(&r2);
    txn.insert(&t, row(2, None, Some(7)))
        .expect("7 is free however the holder ends");
    assert!(is_duplicate(txn.insert(&t, row(3, None, Some(8))), B));
    txn.commit().expect("commit");
    holder.commit().expect("commit");
    assert_eq!(
        get(&t, &old.view(), 1),
        Some(row(1, None, Some(7)).to_vec())
    );
    assert_eq!(ids(&scan(&t, &old.view(), B, &KeyRange::all())), vec![1]);
}

#[test]
fn savepoint_rollback_cannot_resurrect_a_unique_value_others_took() {
    // Row 1 goes 7 -> 8 in one statement and 8 -> 9 in a later one that a savepoint may
    // undo; 8 must not be granted to anyone else meanwhile.
    let (storage, t) = setup();
    insert_committed(&storage, &t, vec![row(1, None, Some(7))]);
    let (r1, r2) = (storage.register_reader(), storage.register_reader());
    let mut txn = storage.begin(&r1);
    update(&mut txn, &t, 1, row(1, None, Some(8))).expect("7 -> 8");
    let statement = txn.savepoint();
    update(&mut txn, &t, 1, row(1, None, Some(9))).expect("8 -> 9");
    let mut other = storage.begin(&r2);
    assert!(is_conflict(other.insert(&t, row(2, None, Some(8)))));
    txn.rollback_to(statement);
    txn.commit().expect("commit");
    other.rollback();
    let v = storage.begin(&r2);
    assert_eq!(get(&t, &v.view(), 1), Some(row(1, None, Some(8)).to_vec()));
}

#[test]
fn secondary_scans_ranges_and_prefixes() {
    let storage = storage_with(TableSchema {
        indexes: vec![IndexSchema::new("ab", vec![1, 2], false)],
        fulltext_indexes: Vec::new(),
        ..schema("t")
    });
    let t = table(&storage, "t");
    let mut rows = Vec::new();
    for id in 0..40 {
        let a = if id % 10 == 0 { None } else { Some(id % 4) };
        rows.push(row(id, a, Some(id % 3)));
    }
    insert_committed(&storage, &t, rows.clone());
    let reader = storage.register_reader();
    let txn = storage.begin(&reader);
    let v = txn.view();
    let ab = IndexNo::Secondary(0);
    let expect = |filter: &dyn Fn(Option<i64>, i64) -> bool| -> Vec<i64> {
        let mut matching: Vec<(Option<i64>, i64, i64)> = (0..40)
            .map(|id| (if id % 10 == 0 { None } else { Some(id % 4) }, id % 3, id))
            .filter(|(a, b, _)| filter(*a, *b))
            .collect();
        matching.sort(); // NULL (None) first, as in the index
        matching.into_iter().map(|(_, _, id)| id).collect()
    };
    let all = ids(&scan(&t, &v, ab, &KeyRange::all()));
    assert_eq!(all, expect(&|_, _| true));
    let a2 = ids(&scan(&t, &v, ab, &KeyRange::prefix(vec![Value::Int(2)])));
    assert_eq!(a2, expect(&|a, _| a == Some(2)));
    let a2b1 = ids(&scan(
        &t,
        &v,
        ab,
        &KeyRange::prefix(vec![Value::Int(2), Value::Int(1)]),
    ));
    assert_eq!(a2b1, expect(&|a, b| a == Some(2) && b == 1));
    let nulls = ids(&scan(&t, &v, ab, &KeyRange::prefix(vec![Value::Null])));
    assert_eq!(nulls, expect(&|a, _| a.is_none()));
    let range = KeyRange {
        lower: Bound::Excluded(vec![Value::Int(1)]),
        upper: Bound::Included(vec![Value::Int(3)]),
    };
    assert_eq!(
        ids(&scan(&t, &v, ab, &range)),
        expect(&|a, _| matches!(a, Some(2..=3)))
    );
    let range = KeyRange {
        lower: Bound::Included(vec![Value::Int(1)]),
        upper: Bound::Excluded(vec![Value::Int(3)]),
    };
    assert_eq!(
        ids(&scan(&t, &v, ab, &range)),
        expect(&|a, _| matches!(a, Some(1..=2)))
    );
    let range = KeyRange {
        lower: Bound::Included(vec![Value::Int(1), Value::Int(1)]),
        upper: Bound::Included(vec![Value::Int(1), Value::Int(2)]),
    };
    assert_eq!(
        ids(&scan(&t, &v, ab, &range)),
        expect(&|a, b| a == Some(1) && b >= 1)
    );
    let primary = KeyRange {
        lower: Bound::Included(vec![Value::Int(5)]),
        upper: Bound::Excluded(vec![Value::Int(9)]),
    };
    assert_eq!(
        ids(&scan(&t, &v, IndexNo::Primary, &primary)),
        vec![5, 6, 7, 8]
    );
    // Early stop.
    let mut seen = 0;
    t.scan(&v, ab, &KeyRange::all(), |_, _| {
        seen += 1;
        if seen == 3 {
            std::ops::ControlFlow::Break(())
        } else {
            std::ops::ControlFlow::Continue(())
        }
    });
    assert_eq!(seen, 3);
}

#[test]
fn stale_entries_never_produce_duplicates_or_wrong_rows() {
    let (storage, t) = setup();
    insert_committed(
        &storage,
        &t,
        (0..10).map(|id| row(id, Some(0), Some(id))).collect(),
    );
    let readers: Vec<_> = (0..4).map(|_| storage.register_reader()).collect();
    let mut snapshots = vec![storage.begin(&readers[0])];
    // Move every row's `a` 0 -> 1 -> 0 -> 2 in three commits, pinning a snapshot after each.
    for (step, a) in [1, 0, 2].into_iter().enumerate() {
        let writer = storage.register_reader();
        let mut txn = storage.begin(&writer);
        for id in 0..10 {
            update(&mut txn, &t, id, row(id, Some(a), Some(id))).expect("update");
        }
        txn.commit().expect("commit");
        snapshots.push(storage.begin(&readers[step + 1]));
    }
    for (snapshot, a) in snapshots.iter().zip([0, 1, 0, 2]) {
        let v = snapshot.view();
        let rows = scan(&t, &v, A, &KeyRange::all());
        assert_eq!(
            ids(&rows),
            (0..10).collect::<Vec<_>>(),
            "each row once at a={a}"
        );
        assert!(rows.iter().all(|r| r[1] == Value::Int(a)));
        for other in [0, 1, 2] {
            let found = scan(&t, &v, A, &KeyRange::prefix(vec![Value::Int(other)]));
            assert_eq!(found.len(), if other == a { 10 } else { 0 });
        }
    }
    drop(snapshots);
    storage.collect_garbage();
    assert_eq!(t.index_entry_count(A), 10, "stale entries are collected");
}

#[test]
fn update_that_changes_the_primary_key() {
    let (storage, t) = setup();
    insert_committed(
        &storage,
        &t,
        vec![row(1, Some(1), Some(1)), row(2, Some(2), Some(2))],
    );
    let (r1, r2) = (storage.register_reader(), storage.register_reader());
    let old = storage.begin(&r2);
    let mut txn = storage.begin(&r1);
    update(&mut txn, &t, 1, row(5, Some(1), Some(1))).expect("move 1 -> 5 keeping b");
    let v = txn.view();
    assert_eq!(get(&t, &v, 1), None);
    assert_eq!(get(&t, &v, 5), Some(row(5, Some(1), Some(1)).to_vec()));
    assert_eq!(ids(&scan(&t, &v, B, &KeyRange::all())), vec![5, 2]);
    assert_eq!(
        ids(&scan(&t, &v, A, &KeyRange::prefix(vec![Value::Int(1)]))),
        vec![5]
    );
    // Onto an existing key: fails and changes nothing.
    assert!(is_duplicate(
        update(&mut txn, &t, 5, row(2, Some(9), Some(9))),
        IndexNo::Primary
    ));
    assert_eq!(
        get(&t, &txn.view(), 5),
        Some(row(5, Some(1), Some(1)).to_vec())
    );
    // Back onto the key this transaction vacated.
    update(&mut txn, &t, 5, row(1, Some(3), Some(3))).expect("move 5 -> 1");
    txn.commit().expect("commit");
    let v = storage.begin(&r1);
    assert_eq!(
        ids(&scan(&t, &v.view(), IndexNo::Primary, &KeyRange::all())),
        vec![1, 2]
    );
    assert_eq!(
        get(&t, &v.view(), 1),
        Some(row(1, Some(3), Some(3)).to_vec())
    );
    assert_eq!(ids(&scan(&t, &v.view(), B, &KeyRange::all())), vec![2, 1]);
    assert_eq!(ids(&scan(&t, &old.view(), B, &KeyRange::all())), vec![1, 2]);
    v.commit().expect("commit");
    drop(old);
    storage.collect_garbage();
    assert_eq!(t.approximate_row_count(), 2, "key 5 was collected");
    assert_eq!(t.index_entry_count(A), 2);
    assert_eq!(t.index_entry_count(B), 2);
}

#[test]
fn write_conflicts() {
    let (storage, t) = setup();
    insert_committed(&storage, &t, vec![row(1, None, None), row(2, None, None)]);
    let (r1, r2) = (storage.register_reader(), storage.register_reader());
    // Two transactions, same row: the second fails at once.
    let mut first = storage.begin(&r1);
    let mut second = storage.begin(&r2);
    update(&mut first, &t, 1, row(1, Some(1), None)).expect("first");
    assert!(is_conflict(update(
        &mut second,
        &t,
        1,
        row(1, Some(2), None)
    )));
    assert!(is_conflict(delete(&mut second, &t, 1)));
    first.commit().expect("commit");
    // Committed after the second's snapshot: first updater wins.
    assert!(is_conflict(update(
        &mut second,
        &t,
        1,
        row(1, Some(2), None)
    )));
    assert!(is_conflict(delete(&mut second, &t, 1)));
    update(&mut second, &t, 2, row(2, Some(2), None)).expect("other rows are fine");
    second.commit().expect("commit");
    let v = storage.begin(&r1);
    assert_eq!(get(&t, &v.view(), 1), Some(row(1, Some(1), None).to_vec()));
    assert_eq!(get(&t, &v.view(), 2), Some(row(2, Some(2), None).to_vec()));
}

#[test]
fn chains_are_cut_so_repeated_updates_do_not_grow_memory() {
    let (storage, t) = setup();
    insert_committed(&storage, &t, vec![row(1, Some(0), Some(0))]);
    let reader = storage.register_reader();
    for i in 1..500 {
        let mut txn = storage.begin(&reader);
        update(&mut txn, &t, 1, row(1, Some(i % 3), Some(i))).expect("update");
        txn.commit().expect("commit");
        if i % 10 == 0 {
            storage.collect_garbage();
        }
        let slot = slot(&t, &storage.begin(&reader).view(), 1).expect("row 1");
        assert!(
            slot.version_count() <= 12,
            "chain of {} at {i}",
            slot.version_count()
        );
    }
    storage.collect_garbage();
    assert!(t.index_entry_count(A) <= 3);
    assert!(t.index_entry_count(B) <= 2, "{}", t.index_entry_count(B));
    assert_eq!(storage.garbage_len(), 0);
}

#[test]
fn deleted_rows_leave_the_primary_index_once_no_snapshot_needs_them() {
    let (storage, t) = setup();
    insert_committed(
        &storage,
        &t,
        (0..20).map(|id| row(id, Some(id), Some(id))).collect(),
    );
    let (r1, r2) = (storage.register_reader(), storage.register_reader());
    let old = storage.begin(&r2);
    let mut txn = storage.begin(&r1);
    for id in 0..10 {
        delete(&mut txn, &t, id).expect("delete");
    }
    txn.commit().expect("commit");
    storage.collect_garbage();
    assert_eq!(
        t.approximate_row_count(),
        20,
        "the old snapshot still sees them"
    );
    assert_eq!(scan(&t, &old.view(), A, &KeyRange::all()).len(), 20);
    old.commit().expect("commit");
    storage.collect_garbage();
    assert_eq!(t.approximate_row_count(), 10);
    assert_eq!(t.index_entry_count(A), 10);
    assert_eq!(t.index_entry_count(B), 10);
    assert_eq!(storage.garbage_len(), 0);
}

#[test]
fn long_running_snapshot_reads_old_versions_while_others_update_and_collect() {
    let (storage, t) = setup();
    insert_committed(
        &storage,
        &t,
        (0..5).map(|id| row(id, Some(0), Some(id))).collect(),
    );
    let (r1, r2) = (storage.register_reader(), storage.register_reader());
    let old = storage.begin(&r2);
    for i in 1..200 {
        let mut txn = storage.begin(&r1);
        for id in 0..5 {
            update(&mut txn, &t, id, row(id, Some(i), Some(id + 10 * i))).expect("update");
        }
        txn.commit().expect("commit");
        storage.collect_garbage();
        for id in 0..5 {
            assert_eq!(
                get(&t, &old.view(), id),
                Some(row(id, Some(0), Some(id)).to_vec())
            );
        }
    }
    assert_eq!(
        ids(&scan(
            &t,
            &old.view(),
            A,
            &KeyRange::prefix(vec![Value::Int(0)])
        )),
        vec![0, 1, 2, 3, 4]
    );
    assert!(storage.horizon() <= old.view().snapshot);
    old.commit().expect("commit");
    // Once it ends, its versions go at the next write.
    storage.collect_garbage();
    let mut txn = storage.begin(&r1);
    update(&mut txn, &t, 0, row(0, None, None)).expect("update");
    txn.commit().expect("commit");
    let s = slot(&t, &storage.begin(&r1).view(), 0).expect("row");
    assert!(s.version_count() <= 3, "{}", s.version_count());
}

#[test]
fn create_index_on_a_populated_table() {
    let storage = storage_with(TableSchema {
        indexes: vec![],
        fulltext_indexes: Vec::new(),
        ..schema("t")
    });
    let t = table(&storage, "t");
    insert_committed(
        &storage,
        &t,
        (0..10).map(|id| row(id, Some(id / 2), Some(id))).collect(),
    );
    let reader = storage.register_reader();
    let unique_a = IndexSchema::new("ua", vec![1], true);
    assert!(matches!(
        storage.create_index("d", "t", unique_a.clone()),
        Err(StorageError::DuplicateKey { .. })
    ));
    assert!(
        table(&storage, "t").schema.indexes.is_empty(),
        "failed DDL changes nothing"
    );
    let index_b = IndexSchema::new("ub", vec![2], true);
    storage
        .create_index("d", "t", index_b.clone())
        .expect("b is unique");
    assert!(matches!(
        storage.create_index("d", "t", index_b),
        Err(StorageError::DuplicateIndexName(_))
    ));
    // Writes through the replaced table object conflict; through the new one they work.
    let mut txn = storage.begin(&reader);
    assert!(is_conflict(txn.insert(&t, row(50, None, None))));
    let t2 = table(&storage, "t");
    txn.insert(&t2, row(50, None, Some(50)))
        .expect("insert via new table");
    assert!(is_duplicate(
        txn.insert(&t2, row(51, None, Some(3))),
        IndexNo::Secondary(0)
    ));
    txn.commit().expect("commit");
    let v = storage.begin(&reader);
    let b = IndexNo::Secondary(0);
    assert_eq!(
        ids(&scan(
            &t2,
            &v.view(),
            b,
            &KeyRange::prefix(vec![Value::Int(3)])
        )),
        vec![3]
    );
    assert_eq!(scan(&t2, &v.view(), b, &KeyRange::all()).len(), 11);
    v.commit().expect("commit");
    // Make `a` unique-able by deleting duplicates, with a deleted row still in the chain.
    let mut txn = storage.begin(&reader);
    for id in (1..10).step_by(2) {
        delete(&mut txn, &t2, id).expect("delete");
    }
    txn.commit().expect("commit");
    storage
        .create_index("d", "t", unique_a)
        .expect("a is unique now");
    let t3 = table(&storage, "t");
    let v = storage.begin(&reader);
    let ua = IndexNo::Secondary(1);
    assert_eq!(
        ids(&scan(&t3, &v.view(), ua, &KeyRange::all())),
        vec![50, 0, 2, 4, 6, 8]
    );
    v.commit().expect("commit");
    storage.drop_index("d", "t", "ub").expect("drop index");
    let t4 = table(&storage, "t");
    assert_eq!(t4.schema.indexes.len(), 1);
    let mut txn = storage.begin(&reader);
    txn.insert(&t4, row(60, Some(60), Some(50)))
        .expect("b is no longer unique");
    txn.commit().expect("commit");
    storage.collect_garbage();
    assert_eq!(storage.garbage_len(), 0);
}

#[test]
fn create_unique_index_over_an_uncommitted_duplicate_conflicts() {
    let storage = storage_with(TableSchema {
        indexes: vec![],
        fulltext_indexes: Vec::new(),
        ..schema("t")
    });
    let t = table(&storage, "t");
    insert_committed(&storage, &t, vec![row(1, Some(1), None)]);
    let reader = storage.register_reader();
    let mut txn = storage.begin(&reader);
    txn.insert(&t, row(2, Some(1), None))
        .expect("uncommitted duplicate");
    let unique_a = IndexSchema::new("ua", vec![1], true);
    assert!(is_conflict(storage.create_index(
        "d",
        "t",
        unique_a.clone()
    )));
    txn.rollback();
    storage
        .create_index("d", "t", unique_a)
        .expect("no duplicate after the rollback");
}

#[test]
fn truncate_drop_table_and_drop_database() {
    let (storage, t) = setup();
    insert_committed(
        &storage,
        &t,
        (0..5).map(|id| row(id, Some(id), Some(id))).collect(),
    );
    let reader = storage.register_reader();
    let old = storage.begin(&reader);
    storage.truncate_table("d", "t").expect("truncate");
    let t2 = table(&storage, "t");
    assert_eq!(t2.approximate_row_count(), 0);
    assert_eq!(t2.id, t.id);
    let r2 = storage.register_reader();
    let mut txn = storage.begin(&r2);
    assert!(
        is_conflict(txn.insert(&t, row(9, None, None))),
        "old table object is retired"
    );
    txn.insert(&t2, row(1, Some(1), Some(1)))
        .expect("key 1 free after truncate");
    txn.commit().expect("commit");
    assert_eq!(
        scan(&t, &old.view(), A, &KeyRange::all()).len(),
        5,
        "old object still reads"
    );
    old.commit().expect("commit");

    assert!(storage.drop_table("d", "t", false).expect("drop"));
    assert!(!storage.drop_table("d", "t", true).expect("if exists"));
    assert!(matches!(
        storage.drop_table("d", "t", false),
        Err(StorageError::NoSuchTable(_))
    ));
    let mut txn = storage.begin(&reader);
    assert!(
        is_conflict(txn.insert(&t2, row(2, None, None))),
        "dropped table is retired"
    );
    txn.rollback();

    storage
        .create_table("d", schema("u"), false)
        .expect("create");
    assert!(!storage
        .create_table("d", schema("u"), true)
        .expect("if not exists"));
    let u = table(&storage, "u");
    let weak = std::sync::Arc::downgrade(&u);
    insert_committed(&storage, &u, vec![row(5, Some(5), Some(5))]);
    let mut txn = storage.begin(&reader);
    update(&mut txn, &u, 5, row(5, Some(6), Some(6))).expect("update");
    delete(&mut txn, &u, 5).expect("delete: garbage queued at commit");
    txn.commit().expect("commit");
    let mut txn = storage.begin(&reader);
    txn.insert(&u, row(1, None, None)).expect("insert");
    assert!(
        matches!(
            storage.drop_database("d", false),
            Err(StorageError::TableBusy { holder }) if holder == txn.view().txn
        ),
        "a held row keeps the database"
    );
    txn.commit().expect("commit");
    let mut txn = storage.begin(&reader);
    assert_eq!(storage.drop_database("d", false).expect("drop db"), Some(1));
    assert!(
        is_conflict(txn.insert(&u, row(2, None, None))),
        "tables of a dropped database"
    );
    txn.rollback();
    drop(u);
    assert!(
        weak.upgrade().is_none(),
        "a dropped table's memory is freed"
    );
    assert!(storage.catalog().table("d", "u").is_none());
}

#[test]
fn hidden_primary_key_tables() {
    let storage = storage_with(TableSchema {
        primary_key: None,
        ..schema("t")
    });
    let t = table(&storage, "t");
    let reader = storage.register_reader();
    let mut txn = storage.begin(&reader);
    let s1 = txn.insert(&t, row(1, Some(1), Some(1))).expect("insert");
    txn.insert(&t, row(1, Some(1), Some(2)))
        .expect("same visible columns, other row");
    assert!(is_duplicate(txn.insert(&t, row(3, None, Some(1))), B));
    txn.update(&t, &s1, row(7, Some(2), Some(1)))
        .expect("update in place");
    txn.commit().expect("commit");
    let v = storage.begin(&reader);
    let rows = scan(&t, &v.view(), IndexNo::Primary, &KeyRange::all());
    assert_eq!(ids(&rows), vec![7, 1]);
}

#[test]
#[should_panic(expected = "pinned twice")]
fn one_live_transaction_per_reader_slot() {
    let (storage, _t) = setup();
    let reader = storage.register_reader();
    let _first = storage.begin(&reader);
    let _second = storage.begin(&reader);
}

#[test]
fn handles_cross_threads() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<manycore_storage::Storage>();
    send_sync::<manycore_storage::Table>();
    send_sync::<manycore_storage::RowSlot>();
    send::<manycore_storage::Transaction>();
    send_sync::<manycore_storage::ReaderSlot>();
}

#[test]
fn a_writer_waits_for_the_row_holder_and_then_sees_its_commit() {
    let (storage, t) = setup();
    insert_committed(&storage, &t, vec![row(1, Some(1), Some(1))]);
    let (r1, r2) = (storage.register_reader(), storage.register_reader());
    let mut first = storage.begin(&r1);
    let mut second = storage.begin(&r2);
    update(&mut first, &t, 1, row(1, Some(2), Some(2))).expect("first writer");
    let holder = match update(&mut second, &t, 1, row(1, Some(3), Some(3))) {
        Err(StorageError::LockWait { holder }) => holder,
        other => panic!("expected a lock wait, got {other:?}"),
    };
    assert_eq!(holder, first.view().txn);
    let wait = second.prepare_lock_wait(holder).expect("no cycle");
    let committer = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(20));
        first.commit().expect("commit");
    });
    assert!(
        wait.wait_blocking(std::time::Duration::from_secs(10)),
        "woken by the commit"
    );
    committer.join().expect("committer");
    // The statement runs again on the latest commit (invariant (7) of transaction).
    second.refresh_write_view();
    let view = second.write_view();
    assert_eq!(get(&t, &view, 1), Some(row(1, Some(2), Some(2)).to_vec()));
    let slot = slot(&t, &view, 1).expect("visible");
    second
        .update(&t, &slot, row(1, Some(3), Some(3)))
        .expect("second writer");
    second.commit().expect("commit");
}

#[test]
fn waiting_in_a_cycle_is_a_deadlock() {
    let (storage, t) = setup();
    insert_committed(
        &storage,
        &t,
        vec![row(1, Some(1), Some(1)), row(2, Some(2), Some(2))],
    );
    let (r1, r2) = (storage.register_reader(), storage.register_reader());
    let mut a = storage.begin(&r1);
    let mut b = storage.begin(&r2);
    update(&mut a, &t, 1, row(1, Some(5), Some(5))).expect("a locks 1");
    update(&mut b, &t, 2, row(2, Some(6), Some(6))).expect("b locks 2");
    let Err(StorageError::LockWait { holder }) = update(&mut a, &t, 2, row(2, Some(7), Some(7)))
    else {
        panic!("a must wait for b");
    };
    let a_waits = a.prepare_lock_wait(holder).expect("a may wait for b");
    let Err(StorageError::LockWait { holder }) = update(&mut b, &t, 1, row(1, Some(8), Some(8)))
    else {
        panic!("b must wait for a");
    };
    assert!(matches!(
        b.prepare_lock_wait(holder),
        Err(StorageError::Deadlock)
    ));
    b.rollback();
    assert!(a_waits.wait_blocking(std::time::Duration::from_secs(10)));
    a.refresh_write_view();
    let slot = slot(&t, &a.write_view(), 2).expect("visible");
    a.update(&t, &slot, row(2, Some(7), Some(7)))
        .expect("a proceeds");
    a.commit().expect("commit");
}

#[test]
fn detached_table_has_no_rows_and_refuses_writes() {
    let storage = storage_with(schema("other"));
    let t = Arc::new(Table::detached("virtual", schema("v")));
    assert_eq!(t.id, TableId::DETACHED);
    let reader = storage.register_reader();
    let mut txn = storage.begin(&reader);
    assert!(scan(&t, &txn.view(), IndexNo::Primary, &KeyRange::all()).is_empty());
    assert!(is_conflict(txn.insert(&t, row(1, None, None))));
    txn.rollback();
}

#[test]
fn check_finds_every_row_a_snapshot_sees_through_every_index() {
    let (storage, t) = setup();
    let (r1, r2) = (storage.register_reader(), storage.register_reader());
    let mut writer = storage.begin(&r1);
    for id in 1..=3 {
        writer
            .insert(&t, row(id, Some(id * 10), Some(id)))
            .expect("insert");
    }
    writer.commit().expect("commit");
    let old = storage.begin(&r2);
    let mut writer = storage.begin(&r1);
    let (one, two) = (slot(&t, &old.view(), 1), slot(&t, &old.view(), 2));
    let (one, two) = (one.expect("row 1"), two.expect("row 2"));
    writer
        .update(&t, &one, row(1, Some(11), Some(4)))
        .expect("update");
    writer.delete(&t, &two).expect("delete");
    writer.insert(&t, row(5, None, None)).expect("insert");
    writer.commit().expect("commit");
    storage.collect_garbage();
    // The old snapshot still sees rows 1-3 as they were, under their old index keys.
    assert_eq!(t.check(&old.view()), Ok(3));
    drop(old);
    storage.collect_garbage();
    let now = storage.begin(&r2);
    assert_eq!(t.check(&now.view()), Ok(3));
}
