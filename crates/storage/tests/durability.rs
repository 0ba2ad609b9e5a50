//! The durability hook: what storage hands the log, what happens when the log refuses,
//! and that replaying what it handed over rebuilds the same tables.

mod common;

use common::*;
use manycore_storage::{
    take_commit_lsn, CommitLog, DdlChange, EncodedCommit, IndexNo, IndexSchema, KeyRange,
    RoutineKind, RoutineSchema, RowChange, RowChangeRef, Storage, StorageError, TableSchema,
};
use manycore_types::{DataType, Value};
use parking_lot::Mutex;
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq)]
enum Logged {
    Commit(Vec<RowChange>),
    Ddl(DdlChange),
    /// An ALTER TABLE, with its rebuilt rows as they were when logged.
    Alter(DdlChange, Option<Vec<(Box<[u8]>, manycore_types::Row)>>),
}

/// A log that keeps records in memory and fails on demand.
#[derive(Default)]
struct MemoryLog {
    records: Mutex<Vec<Logged>>,
    /// Pending commits being encoded (by encoding order).
    encoded: Mutex<Vec<Vec<RowChange>>>,
    fail_appends: Mutex<Option<StorageError>>,
    /// Refuse to encode commits, as the WAL refuses one beyond a record's size.
    too_large: Mutex<bool>,
    poisoned: Mutex<Option<StorageError>>,
}

impl CommitLog for MemoryLog {
    fn encode_commit(&self, changes: &[RowChangeRef<'_>]) -> Result<EncodedCommit, StorageError> {
        if *self.too_large.lock() {
            return Err(StorageError::TransactionTooLarge { bytes: 2, limit: 1 });
        }
        let mut encoded = self.encoded.lock();
        encoded.push(changes.iter().map(RowChangeRef::to_owned).collect());
        Ok(EncodedCommit((encoded.len() - 1).to_le_bytes().to_vec()))
    }

    fn append_commit(&self, record: &mut EncodedCommit, _ts: u64) -> Result<u64, StorageError> {
        if let Some(e) = self.fail_appends.lock().clone() {
            return Err(e);
        }
        let index = usize::from_le_bytes(record.0.clone().try_into().expect("index"));
        let changes = self.encoded.lock()[index].clone();
        let mut records = self.records.lock();
        records.push(Logged::Commit(changes));
        Ok(records.len() as u64)
    }

    fn append_ddl(&self, change: &DdlChange) -> Result<u64, StorageError> {
        if let Some(e) = self.fail_appends.lock().clone() {
            return Err(e);
        }
        let logged = match change {
            DdlChange::AlterTable { rows, .. } => {
                Logged::Alter(change.clone(), rows.as_ref().map(|r| r.to_vec()))
            }
            _ => Logged::Ddl(change.clone()),
        };
        let mut records = self.records.lock();
        records.push(logged);
        Ok(records.len() as u64)
    }

    fn check_writable(&self) -> Result<(), StorageError> {
        match self.poisoned.lock().clone() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

fn logged_storage() -> (Arc<Storage>, Arc<MemoryLog>) {
    let storage = Storage::new();
    let log = Arc::new(MemoryLog::default());
    storage.attach_log(log.clone());
    storage
        .create_database("d", manycore_types::Collation::Utf8mb4GeneralCi, false)
        .expect("create database");
    storage
        .create_table("d", schema("t"), false)
        .expect("create table");
    let _ = take_commit_lsn();
    (storage, log)
}

#[test]
fn a_commit_is_logged_once_per_key_with_its_final_row() {
    let (storage, log) = logged_storage();
    let t = table(&storage, "t");
    let reader = storage.register_reader();
    let mut txn = storage.begin(&reader);
    txn.insert(&t, row(1, Some(1), Some(1))).expect("insert");
    txn.insert(&t, row(2, Some(2), Some(2))).expect("insert");
    update(&mut txn, &t, 1, row(1, Some(10), Some(10))).expect("update");
    txn.commit().expect("commit");
    let records = log.records.lock().clone();
    let Some(Logged::Commit(changes)) = records.last() else {
        panic!("no commit logged: {records:?}");
    };
    assert_eq!(changes.len(), 2);
    assert_eq!(changes[0].row, Some(row(1, Some(10), Some(10)).to_vec()));
    assert_eq!(changes[0].key, key(&t, 1));
    assert_eq!(take_commit_lsn(), Some(records.len() as u64));
    assert_eq!(take_commit_lsn(), None, "taking clears it");
    // A read-only transaction logs nothing.
    storage.begin(&reader).commit().expect("read-only commit");
    assert_eq!(take_commit_lsn(), None);
}

#[test]
fn row_locks_are_not_logged_and_a_locked_row_written_later_is() {
    let (storage, log) = logged_storage();
    let t = table(&storage, "t");
    insert_committed(
        &storage,
        &t,
        vec![row(1, Some(1), Some(1)), row(2, Some(2), Some(2))],
    );
    let logged = log.records.lock().len();
    let _ = take_commit_lsn();
    let reader = storage.register_reader();
    let mut txn = storage.begin(&reader);
    lock(&mut txn, &t, 1).expect("lock");
    lock(&mut txn, &t, 2).expect("lock");
    txn.commit().expect("commit of locks alone");
    assert_eq!(log.records.lock().len(), logged, "locks alone log nothing");
    assert_eq!(take_commit_lsn(), None, "and wait for no flush");
    let mut txn = storage.begin(&reader);
    lock(&mut txn, &t, 1).expect("lock");
    lock(&mut txn, &t, 2).expect("lock");
    update(&mut txn, &t, 2, row(2, Some(20), Some(20))).expect("update");
    txn.commit().expect("commit");
    let records = log.records.lock().clone();
    assert_eq!(records.len(), logged + 1);
    let Some(Logged::Commit(changes)) = records.last() else {
        panic!("no commit logged: {records:?}");
    };
    assert_eq!(changes.len(), 1, "only the written row: {changes:?}");
    assert_eq!(changes[0].key, key(&t, 2));
    assert_eq!(changes[0].row, Some(row(2, Some(20), Some(20)).to_vec()));
}

#[test]
fn a_temporary_table_is_in_no_catalog_and_its_commits_are_not_logged() {
    let (storage, log) = logged_storage();
    let t = table(&storage, "t");
    let temp = storage.temporary_table("d", schema("t"));
    assert!(
        Arc::ptr_eq(storage.catalog().table("d", "t").expect("t"), &t),
        "the catalog still names the permanent table"
    );
    let logged = log.records.lock().len();
    let reader = storage.register_reader();
    let mut txn = storage.begin(&reader);
    txn.insert(&temp, row(1, Some(1), Some(1))).expect("insert");
    txn.insert(&temp, row(2, Some(2), Some(2))).expect("insert");
    txn.commit().expect("commit");
    assert_eq!(log.records.lock().len(), logged, "nothing logged");
    assert_eq!(take_commit_lsn(), None, "and nothing to wait for");
    let view = storage.begin(&reader).view();
    assert_eq!(
        get(&temp, &view, 2),
        Some(row(2, Some(2), Some(2)).to_vec())
    );
    assert_eq!(
        get(&t, &view, 2),
        None,
        "the permanent table has no such row"
    );
    // With a permanent table in the same transaction, only its rows are logged.
    let mut txn = storage.begin(&reader);
    txn.insert(&temp, row(3, Some(3), Some(3))).expect("insert");
    txn.insert(&t, row(7, Some(7), Some(7))).expect("insert");
    txn.commit().expect("commit");
    let records = log.records.lock().clone();
    assert_eq!(records.len(), logged + 1);
    let Some(Logged::Commit(changes)) = records.last() else {
        panic!("no commit logged: {records:?}");
    };
    assert_eq!(changes.len(), 1, "only the permanent row: {changes:?}");
    assert_eq!(changes[0].key, key(&t, 7));
    // Its superseded versions are collected as a catalog table's are.
    let mut txn = storage.begin(&reader);
    txn.delete(&temp, &slot(&temp, &txn.view(), 1).expect("row 1"))
        .expect("delete");
    let before = storage.garbage_len();
    txn.commit().expect("commit");
    assert!(storage.garbage_len() > before, "the delete left garbage");
    storage.collect_garbage();
    assert_eq!(storage.garbage_len(), before, "collected");
}

/// Whether the log refuses the append (disk full) or the encoding (too large).
#[test]
fn a_commit_the_log_refuses_rolls_back_and_frees_its_rows() {
    for refuse_encoding in [false, true] {
        let (storage, log) = logged_storage();
        let t = table(&storage, "t");
        let reader = storage.register_reader();
        *log.fail_appends.lock() = Some(StorageError::LogDiskFull("test".into()));
        *log.too_large.lock() = refuse_encoding;
        let mut txn = storage.begin(&reader);
        txn.insert(&t, row(1, Some(1), Some(1))).expect("insert");
        let clock = storage.clock();
        match (txn.commit(), refuse_encoding) {
            (Err(StorageError::LogDiskFull(_)), false) => {}
            (Err(StorageError::TransactionTooLarge { .. }), true) => {}
            other => panic!("expected the log's refusal, got {other:?}"),
        }
        assert_eq!(
            storage.clock(),
            clock,
            "a refused commit does not advance the clock"
        );
        assert_eq!(take_commit_lsn(), None);
        let view = storage.begin(&reader).view();
        assert_eq!(get(&t, &view, 1), None);
        // The log takes commits again: the same key commits (the row lock was released).
        *log.fail_appends.lock() = None;
        *log.too_large.lock() = false;
        let mut txn = storage.begin(&reader);
        txn.insert(&t, row(1, Some(1), Some(1)))
            .expect("insert again");
        txn.commit().expect("commit after space freed");
        let view = storage.begin(&reader).view();
        assert_eq!(get(&t, &view, 1), Some(row(1, Some(1), Some(1)).to_vec()));
    }
}

#[test]
fn a_poisoned_log_refuses_writes_while_reads_work() {
    let (storage, log) = logged_storage();
    let t = table(&storage, "t");
    insert_committed(&storage, &t, vec![row(1, Some(1), Some(1))]);
    *log.poisoned.lock() = Some(StorageError::LogFailed("fsync failed".into()));
    let reader = storage.register_reader();
    let mut txn = storage.begin(&reader);
    match txn.insert_or_return(&t, row(2, None, None)) {
        Err((StorageError::LogFailed(_), rejected)) => assert_eq!(rejected, row(2, None, None)),
        other => panic!("expected LogFailed with the row back, got {other:?}"),
    }
    // A refused write leaves nothing behind, so an insert that fails later (a duplicate)
    // also hands its row back.
    *log.poisoned.lock() = None;
    match txn.insert_or_return(&t, row(1, Some(5), None)) {
        Err((StorageError::DuplicateKey { .. }, rejected)) => {
            assert_eq!(rejected, row(1, Some(5), None))
        }
        other => panic!("expected DuplicateKey with the row back, got {other:?}"),
    }
    assert_eq!(
        get(&t, &txn.view(), 1),
        Some(row(1, Some(1), Some(1)).to_vec())
    );
    assert_eq!(
        scan(&t, &txn.view(), IndexNo::Primary, &KeyRange::all()).len(),
        1
    );
    txn.commit().expect("a read-only transaction commits");
}

#[test]
fn ddl_the_log_refuses_does_not_happen() {
    let (storage, log) = logged_storage();
    *log.fail_appends.lock() = Some(StorageError::LogFailed("eio".into()));
    assert!(storage.create_table("d", schema("u"), false).is_err());
    assert!(storage.catalog().table("d", "u").is_none());
    assert!(storage.drop_table("d", "t", false).is_err());
    let t = table(&storage, "t");
    *log.fail_appends.lock() = None;
    // Still writable: the failed drop did not retire it.
    insert_committed(&storage, &t, vec![row(1, None, None)]);
}

/// DDL that would take a table's rows out of the catalog refuses while a transaction holds
/// a row of it (catalog invariant (8)) and logs nothing, so that transaction's commit is
/// logged and the DDL runs after it; DDL that keeps the rows (CREATE INDEX) goes ahead,
/// and the commit is logged after it.
#[test]
fn a_write_held_across_ddl_is_logged() {
    type Ddl = fn(&Storage) -> Result<(), StorageError>;
    let cases: [(&str, Ddl, bool); 4] = [
        ("truncate", |s| s.truncate_table("d", "t"), true),
        (
            "drop table",
            |s| s.drop_table("d", "t", false).map(drop),
            true,
        ),
        (
            "drop database",
            |s| s.drop_database("d", false).map(drop),
            true,
        ),
        (
            "create index",
            |s| s.create_index("d", "t", IndexSchema::new("ib", vec![1], false)),
            false,
        ),
    ];
    for (ddl, run, waits) in cases {
        let (storage, log) = logged_storage();
        let t = table(&storage, "t");
        let reader = storage.register_reader();
        let mut txn = storage.begin(&reader);
        txn.insert(&t, row(1, None, None)).expect("insert");
        let logged_before = log.records.lock().len();
        if waits {
            let refused = run(&storage);
            assert!(
                matches!(refused, Err(StorageError::TableBusy { holder }) if holder == txn.view().txn),
                "{ddl}: {refused:?}"
            );
            assert_eq!(log.records.lock().len(), logged_before, "{ddl}");
            txn.commit().expect("commit");
            run(&storage).expect(ddl);
        } else {
            run(&storage).expect(ddl);
            txn.commit().expect("commit");
        }
        let records = log.records.lock().clone();
        let kinds: Vec<bool> = records[logged_before..]
            .iter()
            .map(|r| matches!(r, Logged::Commit(_)))
            .collect();
        assert_eq!(kinds, [waits, !waits], "{ddl}: {records:?}");
    }
}

fn hidden_schema() -> TableSchema {
    let mut s = schema("h");
    s.primary_key = None;
    s.indexes.clear();
    s.columns[0].auto_increment = true;
    s
}

/// (table, AUTO_INCREMENT, rows by primary key, rows by the first secondary index).
type TableDump = (String, u64, Vec<Vec<Value>>, Vec<Vec<Value>>);

/// Every visible row of every table, with AUTO_INCREMENT counters.
fn dump(storage: &Arc<Storage>) -> Vec<TableDump> {
    let reader = storage.register_reader();
    let view = storage.begin(&reader).view();
    let catalog = storage.catalog();
    let mut out = Vec::new();
    for db in catalog.databases.values() {
        for t in db.tables.values() {
            let rows = scan(t, &view, IndexNo::Primary, &KeyRange::all());
            let by_index = if t.schema.indexes.is_empty() {
                Vec::new()
            } else {
                scan(t, &view, IndexNo::Secondary(0), &KeyRange::all())
            };
            out.push((t.schema.name.clone(), t.auto_increment(), rows, by_index));
        }
    }
    out
}

#[test]
fn replaying_what_was_logged_rebuilds_tables_indexes_and_counters() {
    let (storage, log) = logged_storage();
    storage
        .create_table("d", hidden_schema(), false)
        .expect("hidden pk table");
    storage
        .create_table("d", schema("gone"), false)
        .expect("create");
    let t = table(&storage, "t");
    let h = table(&storage, "h");
    let reader = storage.register_reader();
    for i in 0..50 {
        let mut txn = storage.begin(&reader);
        txn.insert(&t, row(i, Some(i % 7), Some(i)))
            .expect("insert");
        let id = h.reserve_auto_increment(1) as i64;
        txn.insert(&h, row(id, Some(i), None))
            .expect("insert hidden");
        if i % 5 == 0 && i > 0 {
            update(
                &mut txn,
                &t,
                i - 1,
                row(i - 1, Some(100 + i), Some(1000 + i)),
            )
            .expect("update");
        }
        txn.commit().expect("commit");
    }
    storage.drop_table("d", "gone", false).expect("drop");
    storage
        .create_index("d", "h", IndexSchema::new("ha", vec![1], false))
        .expect("create index");
    storage.drop_index("d", "t", "b").expect("drop index");
    storage.set_auto_increment("d", "t", 500).expect("auto inc");
    storage
        .create_database("x", manycore_types::Collation::Utf8mb4GeneralCi, false)
        .expect("create db");
    storage.drop_database("x", false).expect("drop db");
    let t = table(&storage, "t"); // DROP INDEX replaced the table object.
    let h = table(&storage, "h");
    let mut txn = storage.begin(&reader);
    let victim = slot(&t, &txn.view(), 3).expect("row 3");
    txn.delete(&t, &victim).expect("delete");
    txn.commit().expect("commit");

    let fresh = replay(&log.records.lock(), None);
    let fresh_reader = fresh.register_reader();
    assert_eq!(dump(&fresh), dump(&storage));
    // The hidden row id counter is past every id present: a new row gets a new key.
    let fh = table(&fresh, "h");
    let mut txn = fresh.begin(&fresh_reader);
    let new = txn
        .insert(&fh, row(999, None, None))
        .expect("insert after recovery");
    let id = u64::from_be_bytes(new.key().try_into().expect("8-byte key"));
    assert_eq!(
        id, 51,
        "hidden row ids continue after the largest recovered one"
    );
    assert_eq!(fh.auto_increment(), h.auto_increment());
}

/// Replays `records` into a fresh storage, applying gathered rows before each DDL record
/// and, with `flush_every` Some(n), after every n commits too.
fn replay(records: &[Logged], flush_every: Option<usize>) -> Arc<Storage> {
    let fresh = Storage::new();
    let apply = |batch| fresh.apply_recovery_batch(batch, 2).expect("replay rows");
    let mut batch = fresh.recovery_batch();
    let mut commits = 0;
    for record in records {
        match record {
            Logged::Commit(changes) => {
                for c in changes {
                    let pushed = batch.push(&c.db, &c.table, c.key.clone(), c.row.clone());
                    assert!(pushed, "table of {c:?} exists");
                }
                commits += 1;
                if flush_every.is_some_and(|n| commits % n == 0) {
                    apply(std::mem::replace(&mut batch, fresh.recovery_batch()));
                }
            }
            Logged::Ddl(change) => {
                apply(batch);
                apply_ddl(&fresh, change.clone());
                batch = fresh.recovery_batch();
            }
            Logged::Alter(
                DdlChange::AlterTable {
                    db,
                    schema,
                    auto_increment,
                    followers,
                    ..
                },
                rows,
            ) => {
                apply(batch);
                fresh
                    .replay_alter_table(
                        db,
                        schema.clone(),
                        *auto_increment,
                        rows.clone(),
                        followers.clone(),
                    )
                    .expect("replay alter");
                batch = fresh.recovery_batch();
            }
            Logged::Alter(other, _) => unreachable!("an ALTER logged as {other:?}"),
        }
    }
    apply(batch);
    fresh
}

/// Random inserts, updates that move secondary keys (the unique one too), deletes and
/// re-inserts over two tables, many to a key, some in one transaction; then bulk replay
/// with batches of several sizes. Every index holds exactly one entry per row (no stale
/// or missing entry), the unique index still refuses duplicates, and AUTO_INCREMENT and
/// every row match.
#[test]
fn bulk_replay_equals_the_state_before_the_crash() {
    let mut rng = Rng::new(seed(7));
    let (storage, log) = logged_storage();
    let mut auto = schema("u");
    auto.columns[0].auto_increment = true;
    storage.create_table("d", auto, false).expect("create u");
    let tables = [table(&storage, "t"), table(&storage, "u")];
    let reader = storage.register_reader();
    let mut version = 0;
    for _ in 0..300 {
        let mut txn = storage.begin(&reader);
        for _ in 0..=rng.below(4) {
            let t = &tables[rng.below(2) as usize];
            let id = rng.below(40) as i64 + 1;
            version += 1;
            // b is unique by construction; a repeats.
            let new = row(id, Some(version % 5), (version % 3 != 0).then_some(version));
            match (get(t, &txn.view(), id).is_some(), rng.below(3)) {
                (false, _) => {
                    // What SQL does for an explicit value in an AUTO_INCREMENT column.
                    if t.schema.auto_increment_column().is_some() {
                        t.observe_auto_increment(id as u64);
                    }
                    txn.insert(t, new).map(drop)
                }
                (true, 0) => delete(&mut txn, t, id),
                (true, _) => update(&mut txn, t, id, new),
            }
            .expect("write");
        }
        txn.commit().expect("commit");
    }
    let records = log.records.lock().clone();
    for flush_every in [None, Some(1), Some(7)] {
        let fresh = replay(&records, flush_every);
        assert_eq!(dump(&fresh), dump(&storage), "flush every {flush_every:?}");
        let fresh_reader = fresh.register_reader();
        let view = fresh.begin(&fresh_reader).view();
        let before_view = storage.begin(&reader).view();
        for name in ["t", "u"] {
            let (before, after) = (table(&storage, name), table(&fresh, name));
            assert_eq!(after.auto_increment(), before.auto_increment());
            let rows = scan(&before, &before_view, IndexNo::Primary, &KeyRange::all());
            for index in [
                IndexNo::Primary,
                IndexNo::Secondary(0),
                IndexNo::Secondary(1),
            ] {
                let indexed = scan(&after, &view, index, &KeyRange::all());
                let mut sorted = indexed.clone();
                sorted.sort_by_key(|r| int_of(&r[0]));
                assert_eq!(sorted, rows, "{name} {index:?}");
                assert_eq!(
                    after.index_entry_count(index),
                    rows.len(),
                    "{name} {index:?}"
                );
            }
            // The hash index beside the primary index: one entry per row, each found.
            assert_eq!(after.primary_hash_entry_count(), rows.len(), "{name}");
            for r in &rows {
                assert_eq!(
                    get(&after, &view, int_of(&r[0])).as_ref(),
                    Some(r),
                    "{name}"
                );
            }
            for id in 41..45 {
                assert_eq!(get(&after, &view, id), None, "{name}: never written");
            }
            let taken = rows.iter().find(|r| !r[2].is_null()).expect("a row with b");
            let mut txn = fresh.begin(&fresh_reader);
            match txn.insert(&after, row(1000, None, Some(int_of(&taken[2])))) {
                Err(StorageError::DuplicateKey { .. }) => {}
                other => panic!("unique index after replay: {other:?}"),
            }
        }
    }
}

fn apply_ddl(s: &Arc<Storage>, change: DdlChange) {
    let result = match change {
        DdlChange::CreateDatabase { name, collation } => {
            s.create_database(&name, collation, false).map(drop)
        }
        DdlChange::AlterDatabase { name, collation } => s.alter_database(&name, collation),
        DdlChange::DropDatabase { name } => s.drop_database(&name, false).map(drop),
        DdlChange::CreateTable {
            db,
            schema,
            auto_increment,
        } => {
            let name = schema.name.clone();
            s.create_table(&db, schema, false)
                .and_then(|_| s.set_auto_increment(&db, &name, auto_increment))
        }
        DdlChange::DropTable { db, name } => s.drop_table(&db, &name, false).map(drop),
        DdlChange::TruncateTable { db, name } => s.truncate_table(&db, &name),
        DdlChange::CreateIndex { db, table, index } => s.create_index(&db, &table, index),
        DdlChange::DropIndex { db, table, name } => s.drop_index(&db, &table, &name),
        DdlChange::AutoIncrement { db, table, next } => s.set_auto_increment(&db, &table, next),
        DdlChange::SetForeignKeys {
            db,
            table,
            foreign_keys,
        } => s.set_foreign_keys(&db, &table, foreign_keys),
        DdlChange::CheckConstraints { db, table, checks } => {
            s.set_check_constraints(&db, &table, checks)
        }
        DdlChange::CreateView { db, view } => s.create_view(&db, view, true),
        DdlChange::DropView { db, name } => s.drop_view(&db, &name),
        DdlChange::CreateTrigger {
            db,
            trigger,
            position,
        } => {
            let place = position.map_or(manycore_storage::TriggerPlace::Last, |p| {
                manycore_storage::TriggerPlace::At(p as usize)
            });
            s.create_trigger(&db, trigger, true, place).map(drop)
        }
        DdlChange::DropTrigger { db, name } => s.drop_trigger(&db, &name).map(drop),
        DdlChange::CreateRoutine { db, routine } => s.create_routine(&db, routine, true).map(drop),
        DdlChange::DropRoutine { db, kind, name } => s.drop_routine(&db, kind, &name).map(drop),
        DdlChange::AlterTable { .. } => unreachable!("logged as Logged::Alter"),
        DdlChange::RenameTables { renames } => s.rename_tables(&renames),
    };
    result.expect("replay ddl");
}

/// Keys are utf8mb4_general_ci weights, which the log stores. A row filed under a key its
/// values no longer weigh to (a format-1 log weighed 'é' by case only, as 'É') is refused,
/// not filed where lookups of 'é' or 'e' would never find it; a key that weighs the same
/// under both formats (ASCII) recovers.
#[test]
fn replay_refuses_a_row_whose_key_its_values_do_not_weigh_to() {
    let mut s = schema("s");
    s.columns[0].data_type = DataType::varchar(10);
    s.indexes.clear();
    let text = |t: &str| Value::Bytes(t.as_bytes().into());
    let key_of = |weights: &[u32]| {
        // A present value (tag 1), 3-byte weights with 0x00 escaped as 0x00 0xFF, then
        // the terminator (types/src/key.rs).
        let mut key = vec![1];
        for w in weights {
            for &byte in &w.to_be_bytes()[1..] {
                key.push(byte);
                if byte == 0 {
                    key.push(0xFF);
                }
            }
        }
        key.extend_from_slice(&[0, 0]);
        key
    };
    let fresh = storage_with(s.clone());
    let mut batch = fresh.recovery_batch();
    let ascii = key_of(&['A' as u32, 'B' as u32]);
    assert_eq!(ascii, table(&fresh, "s").primary_key(&[text("ab")]));
    assert!(batch.push(
        "d",
        "s",
        ascii,
        Some(vec![text("ab"), Value::Null, Value::Null])
    ));
    fresh
        .apply_recovery_batch(batch, 2)
        .expect("an ASCII key weighs alike in both formats");

    let fresh = storage_with(s);
    let mut batch = fresh.recovery_batch();
    let case_only = key_of(&['É' as u32]);
    assert!(batch.push(
        "d",
        "s",
        case_only,
        Some(vec![text("é"), Value::Null, Value::Null])
    ));
    match fresh.apply_recovery_batch(batch, 2) {
        Err(StorageError::LogFailed(message)) => {
            assert!(message.contains("format version 2"), "{message}")
        }
        other => panic!("a key weighed by case only: {other:?}"),
    }
}

/// Replay does not check uniqueness (the commits did). `find_unique_violation` finds two
/// visible rows with one key in a unique index, as a log whose key weights changed since
/// it was written can leave; NULLs never collide.
#[test]
fn a_unique_violation_left_by_replay_is_found() {
    let fresh = storage_with(schema("t"));
    let t = table(&fresh, "t");
    let mut batch = fresh.recovery_batch();
    for (id, b) in [(1, Some(7)), (2, None), (3, None), (4, Some(8))] {
        let image = row(id, None, b).into_vec();
        assert!(batch.push("d", "t", key(&t, id), Some(image)));
    }
    fresh.apply_recovery_batch(batch, 2).expect("replay");
    assert_eq!(fresh.find_unique_violation(), None);
    let mut batch = fresh.recovery_batch();
    let image = row(5, None, Some(7)).into_vec();
    assert!(batch.push("d", "t", key(&t, 5), Some(image)));
    fresh
        .apply_recovery_batch(batch, 2)
        .expect("replay does not check uniqueness");
    assert_eq!(
        fresh.find_unique_violation().as_deref(),
        Some("`d`.`t`, unique index `b`")
    );
}

fn routine(name: &str, kind: RoutineKind, body: &str) -> RoutineSchema {
    RoutineSchema {
        name: name.into(),
        kind,
        params: "x INT".into(),
        returns: match kind {
            RoutineKind::Function => "INT".into(),
            RoutineKind::Procedure => String::new(),
        },
        body: body.into(),
        definer: "root@localhost".into(),
        security: "DEFINER".into(),
        data_access: "CONTAINS SQL".into(),
        deterministic: false,
        comment: String::new(),
        sql_mode: "STRICT_TRANS_TABLES".into(),
        character_set_client: "utf8mb4".into(),
        collation_connection: "utf8mb4_general_ci".into(),
        created: "2026-11-29 10:00:00".into(),
        modified: "2026-11-29 10:00:00".into(),
    }
}

/// Every routine of `db`, by kind and name as written.
fn routines(storage: &Storage, db: &str) -> Vec<RoutineSchema> {
    storage.catalog().databases[db]
        .routines
        .values()
        .map(|r| RoutineSchema::clone(r))
        .collect()
}

/// Procedures and functions are separate namespaces whose names compare as MariaDB
/// compares them (case and accents ignored, the name kept as written); a CREATE of an
/// existing one without `replace` changes and logs nothing, nor does an ALTER of a missing
/// one; replaying what was logged rebuilds them; DROP DATABASE drops them.
#[test]
fn routines_are_kept_by_kind_and_name_and_replayed() {
    use RoutineKind::{Function, Procedure};
    let (storage, log) = logged_storage();
    let create = |r: RoutineSchema, replace: bool| {
        storage
            .create_routine("d", r, replace)
            .expect("create routine")
    };
    let drop = |db: &str, kind: RoutineKind, name: &str| {
        storage.drop_routine(db, kind, name).expect("drop routine")
    };
    assert!(create(routine("Pé", Procedure, "SELECT 1"), false));
    assert!(create(routine("pé", Function, "RETURN 1"), false));
    assert!(create(routine("other", Procedure, "SELECT 3"), false));
    let logged = log.records.lock().len();
    // 'PE' names 'Pé' (MariaDB: 1304 PROCEDURE PE already exists).
    assert!(!create(routine("PE", Procedure, "SELECT 2"), false));
    assert_eq!(
        log.records.lock().len(),
        logged,
        "a refused CREATE logs nothing"
    );
    let missing = storage.create_routine("nodb", routine("p", Procedure, "SELECT 1"), false);
    assert!(
        matches!(&missing, Err(StorageError::NoSuchDatabase(db)) if db == "nodb"),
        "{missing:?}"
    );
    assert!(create(routine("PÉ", Procedure, "SELECT 2"), true));
    assert!(!drop("d", Function, "other"));
    assert!(!drop("nodb", Procedure, "other"));
    assert!(drop("d", Procedure, "OTHER"));
    assert_eq!(log.records.lock().len(), logged + 2);

    let catalog = storage.catalog();
    let d = &catalog.databases["d"];
    let procedure = d.routine(Procedure, "pe").expect("the replaced procedure");
    assert_eq!(
        (procedure.name.as_str(), procedure.body.as_str()),
        ("PÉ", "SELECT 2")
    );
    let function = d
        .routine(Function, "PÉ")
        .expect("the function of the same name");
    assert_eq!(
        (function.name.as_str(), function.returns.as_str()),
        ("pé", "INT")
    );
    assert!(d.routine(Procedure, "other").is_none());
    // ALTER replaces only a routine that exists, and is logged like a CREATE.
    let mut altered = RoutineSchema::clone(function);
    altered.comment = "altered".into();
    assert!(storage.alter_routine("d", altered.clone()).expect("alter"));
    assert!(!storage
        .alter_routine("d", routine("other", Procedure, "SELECT 3"))
        .expect("alter of a dropped procedure"));
    assert!(matches!(
        storage.alter_routine("nodb", altered.clone()),
        Err(StorageError::NoSuchDatabase(_))
    ));
    assert_eq!(log.records.lock().len(), logged + 3);
    let d = &storage.catalog().databases["d"];
    assert_eq!(
        d.routine(Function, "pe").expect("function").comment,
        "altered"
    );
    assert!(
        d.routine(Procedure, "other").is_none(),
        "ALTER creates nothing"
    );
    let expected = routines(&storage, "d");
    assert_eq!(expected.len(), 2);
    assert_eq!(
        expected.iter().map(|r| r.kind).collect::<Vec<_>>(),
        [Procedure, Function]
    );

    let fresh = replay(&log.records.lock(), None);
    assert_eq!(routines(&fresh, "d"), expected);

    storage.drop_database("d", false).expect("drop database");
    storage
        .create_database("d", manycore_types::Collation::Utf8mb4GeneralCi, false)
        .expect("create it again");
    assert_eq!(routines(&storage, "d"), []);
    let fresh = replay(&log.records.lock(), None);
    assert_eq!(routines(&fresh, "d"), []);
}
