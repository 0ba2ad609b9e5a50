//! Storage from the log and the log from storage: replaying records into a fresh
//! `Storage` at startup, and writing a checkpoint of a consistent snapshot while serving.
//!
//! Invariants:
//! (1) Replay applies records in LSN order through storage's recovery entry points and
//!     stops at the first failure: startup then fails naming the LSNs involved, rather
//!     than serving a state the log does not describe.
//! (2) Row changes are gathered into a `RecoveryBatch` and applied in bulk, tables in
//!     parallel; the batch is applied before any catalog record (storage recovery
//!     invariant (3)), when it reaches `REPLAY_BATCH_ROWS_MAX`, and at the end (`finish`).
//! (3) A checkpoint at C holds the catalog and rows visible to a snapshot taken with C
//!     under storage's `ddl` and `commit_order` (storage recovery invariant (5)), so it
//!     equals the replay of every record <= C.
//! (4) A rebuilt table's ALTER (AlterTable with rows following, AlterRows, AlterEnd:
//!     appended together under `commit_order`, record.rs) is applied at its AlterEnd and
//!     only then. Any other record before the end means the log refused the ALTER midway
//!     (it changed nothing), as does the log ending first (it was never acknowledged):
//!     its records are dropped. A checkpoint never falls inside one (invariant (3)).

use crate::checkpoint::CheckpointReport;
use crate::hook::ddl_record;
use crate::record::LogRecord;
use crate::{Lsn, Wal, WalError};
use manycore_storage::{
    DdlChange, IndexNo, KeyRange, ReaderSlot, RecoveryBatch, RoutineSchema, Storage, StorageError,
    TableForeignKeys, TableSchema, TriggerPlace, TriggerSchema, ViewSchema,
};
use manycore_types::Row;
use std::ops::ControlFlow;
use std::sync::Arc;

/// Row images gathered before a batch is applied. Only bounds how long replay waits
/// before applying (the decoded records are in memory anyway); large enough that tables
/// load in parallel in big sorted runs.
pub const REPLAY_BATCH_ROWS_MAX: usize = 1 << 20;

/// Applies recovered records to a fresh storage (before a log is attached).
pub struct Replayer {
    storage: Arc<Storage>,
    batch: Option<RecoveryBatch>,
    /// LSNs of the first and last record with rows in `batch`.
    batch_lsns: (Lsn, Lsn),
    /// Tables applied at once.
    threads: usize,
    /// The first failure (invariant (1)); later records are ignored.
    pub error: Option<String>,
    /// Row changes to tables that no longer existed (a write that raced a DROP).
    pub skipped_changes: usize,
    /// A rebuilt table's ALTER whose AlterEnd has not been read yet (invariant (4)).
    alter: Option<PendingAlter>,
    /// ALTERs whose AlterEnd never came: the log refused them midway, so they never
    /// happened (or the log ends inside one: it was never acknowledged).
    pub abandoned_alters: usize,
}

/// An AlterTable record whose rows follow, and the rows read so far.
struct PendingAlter {
    lsn: Lsn,
    db: String,
    schema: TableSchema,
    auto_increment: u64,
    followers: Vec<TableForeignKeys>,
    rows: Vec<(Box<[u8]>, Row)>,
}

impl Replayer {
    pub fn new(storage: Arc<Storage>) -> Replayer {
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        Replayer {
            storage,
            batch: None,
            batch_lsns: (Lsn(0), Lsn(0)),
            threads,
            error: None,
            skipped_changes: 0,
            alter: None,
            abandoned_alters: 0,
        }
    }

    /// The closure argument of `Wal::open`.
    pub fn apply(&mut self, lsn: Lsn, record: LogRecord) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self.apply_record(lsn, record) {
            self.error = Some(e);
        }
    }

    /// Applies what is still gathered; call after `Wal::open` returned.
    pub fn finish(&mut self) {
        self.abandon_alter();
        if self.error.is_none() {
            if let Err(e) = self.flush() {
                self.error = Some(e);
            }
        }
    }

    fn apply_record(&mut self, lsn: Lsn, record: LogRecord) -> Result<(), String> {
        let record = match self.continue_alter(lsn, record)? {
            Some(record) => record,
            None => return Ok(()),
        };
        let rows = match record {
            LogRecord::Commit { changes, .. } => {
                let batch = self.batch_for(lsn);
                let mut skipped = 0;
                for change in changes {
                    if !batch.push(&change.db, &change.table, change.key, change.row) {
                        skipped += 1;
                    }
                }
                let rows = batch.len();
                self.skipped_changes += skipped;
                rows
            }
            LogRecord::TableRows { db, table, rows } => {
                let batch = self.batch_for(lsn);
                for (key, row) in rows {
                    if !batch.push(&db, &table, key, Some(row)) {
                        let e = StorageError::NoSuchTable(format!("{db}.{table}"));
                        return Err(format!("replaying log record {}: {e}", lsn.0));
                    }
                }
                batch.len()
            }
            ddl => {
                self.flush()?;
                return apply_ddl(&self.storage, ddl)
                    .map_err(|e| format!("replaying log record {}: {e}", lsn.0));
            }
        };
        if rows >= REPLAY_BATCH_ROWS_MAX {
            self.flush()?;
        }
        Ok(())
    }

    /// Invariant (4): takes the records of a rebuilt table's ALTER, and returns any
    /// other record (None if taken).
    fn continue_alter(&mut self, lsn: Lsn, record: LogRecord) -> Result<Option<LogRecord>, String> {
        let fail = |what: &str| Err(format!("replaying log record {}: {what}", lsn.0));
        let pending = |alter: &Option<PendingAlter>, db: &str, table: &str| {
            alter
                .as_ref()
                .is_some_and(|a| a.db == db && a.schema.name == table)
        };
        match record {
            LogRecord::AlterTable {
                db,
                schema,
                auto_increment,
                followers,
                rows_follow: true,
            } => {
                self.abandon_alter();
                self.flush()?;
                self.alter = Some(PendingAlter {
                    lsn,
                    db,
                    schema,
                    auto_increment,
                    followers,
                    rows: Vec::new(),
                });
                Ok(None)
            }
            LogRecord::AlterRows { db, table, rows } => {
                if !pending(&self.alter, &db, &table) {
                    return fail("rows of an ALTER TABLE without its AlterTable record");
                }
                let alter = self.alter.as_mut().expect("checked above");
                alter.rows.extend(
                    rows.into_iter()
                        .map(|(key, row)| (key.into_boxed_slice(), row.into_boxed_slice())),
                );
                Ok(None)
            }
            LogRecord::AlterEnd { db, table } => {
                if !pending(&self.alter, &db, &table) {
                    return fail("the end of an ALTER TABLE without its AlterTable record");
                }
                let a = self.alter.take().expect("checked above");
                self.storage
                    .replay_alter_table(
                        &a.db,
                        a.schema,
                        a.auto_increment,
                        Some(a.rows),
                        a.followers,
                    )
                    .map_err(|e| format!("replaying log records {}..={}: {e}", a.lsn.0, lsn.0))?;
                Ok(None)
            }
            other => {
                self.abandon_alter();
                Ok(Some(other))
            }
        }
    }

    fn abandon_alter(&mut self) {
        if let Some(alter) = self.alter.take() {
            tracing::warn!(
                "log record {}: ALTER TABLE {}.{} has no end record; it never happened",
                alter.lsn.0,
                alter.db,
                alter.schema.name
            );
            self.abandoned_alters += 1;
        }
    }

    fn batch_for(&mut self, lsn: Lsn) -> &mut RecoveryBatch {
        if self.batch.is_none() {
            self.batch_lsns.0 = lsn;
        }
        self.batch_lsns.1 = lsn;
        self.batch
            .get_or_insert_with(|| self.storage.recovery_batch())
    }

    fn flush(&mut self) -> Result<(), String> {
        let Some(batch) = self.batch.take() else {
            return Ok(());
        };
        let (first, last) = self.batch_lsns;
        self.storage
            .apply_recovery_batch(batch, self.threads)
            .map_err(|e| format!("replaying log records {}..={}: {e}", first.0, last.0))
    }
}

fn apply_ddl(s: &Storage, record: LogRecord) -> Result<(), StorageError> {
    match record {
        LogRecord::CreateDatabase { name, collation } => {
            s.create_database(&name, collation, false).map(drop)
        }
        LogRecord::AlterDatabase { name, collation } => s.alter_database(&name, collation),
        LogRecord::DropDatabase { name } => s.drop_database(&name, false).map(drop),
        LogRecord::CreateTable {
            db,
            schema,
            auto_increment,
        } => {
            let name = schema.name.clone();
            s.create_table(&db, schema, false)?;
            s.set_auto_increment(&db, &name, auto_increment)
        }
        LogRecord::DropTable { db, name } => s.drop_table(&db, &name, false).map(drop),
        LogRecord::TruncateTable { db, name } => s.truncate_table(&db, &name),
        LogRecord::CreateIndex { db, table, index } => s.create_index(&db, &table, index),
        LogRecord::DropIndex { db, table, name } => s.drop_index(&db, &table, &name),
        LogRecord::AutoIncrement { db, table, next } => s.set_auto_increment(&db, &table, next),
        LogRecord::SetForeignKeys {
            db,
            table,
            foreign_keys,
        } => s.set_foreign_keys(&db, &table, foreign_keys),
        LogRecord::CheckConstraints { db, table, checks } => {
            s.set_check_constraints(&db, &table, checks)
        }
        // A replaced view is logged as its new definition.
        LogRecord::CreateView { db, view } => s.create_view(&db, view, true),
        LogRecord::DropView { db, name } => s.drop_view(&db, &name),
        LogRecord::CreateTrigger {
            db,
            trigger,
            position,
        } => {
            let place = position.map_or(TriggerPlace::Last, |p| TriggerPlace::At(p as usize));
            s.create_trigger(&db, trigger, true, place).map(drop)
        }
        LogRecord::DropTrigger { db, name } => s.drop_trigger(&db, &name).map(drop),
        // A replaced routine is logged as its new definition.
        LogRecord::CreateRoutine { db, routine } => s.create_routine(&db, routine, true).map(drop),
        LogRecord::DropRoutine { db, kind, name } => s.drop_routine(&db, kind, &name).map(drop),
        LogRecord::RebuildTable {
            db,
            schema,
            auto_increment,
            rows,
        } => {
            let rows = rows
                .into_iter()
                .map(|(key, row)| (key.into_boxed_slice(), row.into_boxed_slice()))
                .collect();
            s.replay_alter_table(&db, schema, auto_increment, Some(rows), Vec::new())
        }
        LogRecord::AlterTable {
            db,
            schema,
            auto_increment,
            followers,
            rows_follow: false,
        } => s.replay_alter_table(&db, schema, auto_increment, None, followers),
        LogRecord::RenameTables { renames } => s.rename_tables(&renames),
        LogRecord::Commit { .. } | LogRecord::TableRows { .. } => {
            unreachable!("row records are batched")
        }
        LogRecord::AlterTable { .. } | LogRecord::AlterRows { .. } | LogRecord::AlterEnd { .. } => {
            unreachable!("a rebuilt table's records are gathered")
        }
    }
}

/// Writes a checkpoint of `storage` as of now (invariant (2)) and drops the log before it.
/// Returns None if nothing was logged since `previous` (the last checkpoint's LSN).
pub fn write_checkpoint(
    wal: &Wal,
    storage: &Arc<Storage>,
    reader: &ReaderSlot,
    previous: Lsn,
) -> Result<Option<CheckpointReport>, WalError> {
    let snapshot = storage.checkpoint_snapshot(reader, || wal.last_lsn().0);
    let lsn = Lsn(snapshot.lsn);
    if lsn == previous {
        return Ok(None);
    }
    let mut writer = wal.begin_checkpoint(lsn)?;
    let catalog = &snapshot.catalog;
    for (name, database) in &catalog.databases {
        writer.write(&LogRecord::CreateDatabase {
            name: name.clone(),
            collation: database.collation,
        })?;
        for table in database.tables.values() {
            // CHECK constraints follow as a record of their own (record.rs notes).
            let mut schema = TableSchema::clone(&table.schema);
            let checks = std::mem::take(&mut schema.checks);
            let change = DdlChange::CreateTable {
                db: database.name.clone(),
                schema,
                auto_increment: table.auto_increment(),
            };
            writer.write(&ddl_record(&change))?;
            if !checks.is_empty() {
                let change = DdlChange::CheckConstraints {
                    db: database.name.clone(),
                    table: table.schema.name.clone(),
                    checks,
                };
                writer.write(&ddl_record(&change))?;
            }
        }
        for view in database.views.values() {
            let change = DdlChange::CreateView {
                db: database.name.clone(),
                view: ViewSchema::clone(view),
            };
            writer.write(&ddl_record(&change))?;
        }
        // In creation order, so they fire in it after a restart.
        for trigger in &database.triggers {
            let change = DdlChange::CreateTrigger {
                db: database.name.clone(),
                trigger: TriggerSchema::clone(trigger),
                position: None,
            };
            writer.write(&ddl_record(&change))?;
        }
        for routine in database.routines.values() {
            let change = DdlChange::CreateRoutine {
                db: database.name.clone(),
                routine: RoutineSchema::clone(routine),
            };
            writer.write(&ddl_record(&change))?;
        }
    }
    let view = snapshot.transaction.view();
    for database in catalog.databases.values() {
        for table in database.tables.values() {
            let mut failed = None;
            table.scan(
                &view,
                IndexNo::Primary,
                &KeyRange::all(),
                |slot, row| match writer.write_row(
                    &database.name,
                    &table.schema.name,
                    slot.key(),
                    row,
                ) {
                    Ok(()) => ControlFlow::Continue(()),
                    Err(e) => {
                        failed = Some(e);
                        ControlFlow::Break(())
                    }
                },
            );
            if let Some(e) = failed {
                return Err(e);
            }
        }
    }
    drop(snapshot.transaction); // Unpins garbage collection.
    writer.finish().map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{Crash, SimDisk};
    use crate::WalOptions;
    use manycore_storage::{
        CheckConstraint, ColumnSchema, CommitLog, EncodedCommit, ForeignKeySchema, IndexSchema,
        ReferentialAction, RowChangeRef,
    };
    use manycore_types::{ColumnDefault, DataType, IntWidth, Value};
    use parking_lot::Mutex;

    /// A log that keeps each catalog change as the payload the WAL would write.
    #[derive(Default)]
    struct Captured(Mutex<Vec<Vec<u8>>>);

    impl CommitLog for Captured {
        fn encode_commit(&self, _: &[RowChangeRef<'_>]) -> Result<EncodedCommit, StorageError> {
            Ok(EncodedCommit(Vec::new()))
        }
        fn append_commit(&self, _: &mut EncodedCommit, _: u64) -> Result<u64, StorageError> {
            Ok(1)
        }
        fn append_ddl(&self, change: &DdlChange) -> Result<u64, StorageError> {
            let payload = ddl_record(change).encode().payload().to_vec();
            self.0.lock().push(payload);
            Ok(1)
        }
        fn check_writable(&self) -> Result<(), StorageError> {
            Ok(())
        }
    }

    fn schema(name: &str, columns: &[&str]) -> TableSchema {
        TableSchema {
            name: name.into(),
            columns: columns
                .iter()
                .map(|c| ColumnSchema {
                    name: (*c).into(),
                    data_type: DataType::BIGINT,
                    nullable: true,
                    default: ColumnDefault::None,
                    auto_increment: false,
                    on_update_current_timestamp: false,
                    comment: String::new(),
                    display_width: None,
                    generated: None,
                })
                .collect(),
            primary_key: Some(vec![0]),
            indexes: Vec::new(),
            fulltext_indexes: Vec::new(),
            comment: String::new(),
            options: Default::default(),
            foreign_keys: Vec::new(),
            checks: Vec::new(),
        }
    }

    fn foreign_key(name: &str, column: usize, on_delete: ReferentialAction) -> ForeignKeySchema {
        ForeignKeySchema {
            name: name.into(),
            columns: vec![column],
            parent_db: "db".into(),
            parent_table: "parent".into(),
            parent_columns: vec!["id".into()],
            on_delete,
            on_update: ReferentialAction::NoAction,
        }
    }

    fn foreign_keys(storage: &Storage, table: &str) -> Vec<ForeignKeySchema> {
        let catalog = storage.catalog();
        let table = catalog.table("db", table).expect("table");
        table.schema.foreign_keys.clone()
    }

    /// Foreign keys reach the log with CREATE TABLE and ALTER TABLE ADD/DROP FOREIGN KEY,
    /// and replaying the log (as recovery does) or a checkpoint's CREATE TABLE rebuilds
    /// them.
    #[test]
    fn foreign_keys_survive_replay_and_checkpoints() {
        let storage = Storage::new();
        let log = Arc::new(Captured::default());
        storage.attach_log(log.clone());
        storage
            .create_database("db", manycore_types::Collation::Utf8mb4GeneralCi, false)
            .expect("db");
        storage
            .create_table("db", schema("parent", &["id"]), false)
            .expect("parent");
        let mut child = schema("child", &["id", "a", "b"]);
        child.foreign_keys = vec![foreign_key("child_ibfk_1", 1, ReferentialAction::Cascade)];
        storage.create_table("db", child, false).expect("child");
        let mut keys = foreign_keys(&storage, "child");
        keys.push(foreign_key("second", 2, ReferentialAction::SetNull));
        storage
            .set_foreign_keys("db", "child", keys.clone())
            .expect("add");
        keys.remove(0);
        storage
            .set_foreign_keys("db", "child", keys.clone())
            .expect("drop");
        assert_eq!(foreign_keys(&storage, "child"), keys);

        let fresh = Storage::new();
        let mut replayer = Replayer::new(fresh.clone());
        for (i, payload) in log.0.lock().iter().enumerate() {
            let record = LogRecord::decode(payload).expect("decodes");
            replayer.apply(Lsn(i as u64 + 1), record);
        }
        replayer.finish();
        assert_eq!(replayer.error, None);
        assert_eq!(foreign_keys(&fresh, "child"), keys);

        // A checkpoint writes each table as a CREATE TABLE of its current schema.
        let catalog = storage.catalog();
        let table = catalog.table("db", "child").expect("child");
        let record = ddl_record(&DdlChange::CreateTable {
            db: "db".into(),
            schema: TableSchema::clone(&table.schema),
            auto_increment: 1,
        });
        let decoded = LogRecord::decode(record.encode().payload()).expect("decodes");
        let restored = Storage::new();
        let mut replayer = Replayer::new(restored.clone());
        replayer.apply(
            Lsn(1),
            LogRecord::CreateDatabase {
                name: "db".into(),
                collation: manycore_types::Collation::Utf8mb4GeneralCi,
            },
        );
        replayer.apply(Lsn(2), decoded);
        replayer.finish();
        assert_eq!(replayer.error, None);
        assert_eq!(foreign_keys(&restored, "child"), keys);
    }

    fn checked_table() -> TableSchema {
        let column = |name: &str| ColumnSchema {
            name: name.into(),
            data_type: DataType::Int {
                width: IntWidth::Int,
                unsigned: false,
            },
            nullable: true,
            default: ColumnDefault::None,
            auto_increment: false,
            on_update_current_timestamp: false,
            comment: String::new(),
            display_width: None,
            generated: None,
        };
        TableSchema {
            name: "t".into(),
            columns: vec![column("a"), column("b")],
            primary_key: None,
            indexes: Vec::new(),
            fulltext_indexes: Vec::new(),
            comment: String::new(),
            options: Default::default(),
            foreign_keys: Vec::new(),
            checks: Vec::new(),
        }
    }

    fn checks() -> Vec<CheckConstraint> {
        vec![
            CheckConstraint {
                name: "a".into(),
                column_level: true,
                expression: "`a` > 0".into(),
            },
            CheckConstraint {
                name: "CONSTRAINT_1".into(),
                column_level: false,
                expression: "`a` < `b`".into(),
            },
        ]
    }

    /// Opens `disk` into a fresh storage with the log attached.
    pub(super) fn open(disk: &Arc<SimDisk>) -> (Arc<Storage>, Arc<Wal>) {
        let storage = Storage::new();
        let mut replayer = Replayer::new(storage.clone());
        let (wal, _) = Wal::open(disk.clone(), WalOptions::default(), |lsn, record| {
            replayer.apply(lsn, record)
        })
        .expect("open");
        replayer.finish();
        assert_eq!(replayer.error, None);
        let wal = Arc::new(wal);
        storage.attach_log(wal.clone());
        (storage, wal)
    }

    pub(super) fn restart(disk: &Arc<SimDisk>, wal: Arc<Wal>) -> (Arc<Storage>, Arc<Wal>) {
        wal.close().expect("close");
        drop(wal);
        disk.crash(Crash::DropAll);
        disk.power_on();
        open(disk)
    }

    fn checks_of(storage: &Storage) -> Vec<CheckConstraint> {
        let catalog = storage.catalog();
        let table = catalog.table("d", "t").expect("table");
        table.schema.checks.clone()
    }

    /// CHECK constraints survive a restart from the log and from a checkpoint, and a
    /// later change to them replaces the earlier set.
    #[test]
    fn check_constraints_survive_log_replay_and_checkpoints() {
        let disk = SimDisk::new();
        let (storage, wal) = open(&disk);
        table_with_rows(&storage, std::ops::RangeInclusive::new(1, 0)); // no rows
        storage
            .set_check_constraints("d", "t", checks())
            .expect("checks");
        let (storage, wal) = restart(&disk, wal);
        assert_eq!(checks_of(&storage), checks());

        let reader = storage.register_reader();
        let report = write_checkpoint(&wal, &storage, &reader, Lsn(0)).expect("checkpoint");
        assert!(report.is_some());
        drop(reader);
        let (storage, wal) = restart(&disk, wal);
        assert_eq!(checks_of(&storage), checks());
        let catalog = storage.catalog();
        assert_eq!(
            catalog.table("d", "t").expect("table").schema.columns.len(),
            2
        );
        drop(catalog);

        storage
            .set_check_constraints("d", "t", checks()[1..].to_vec())
            .expect("drop one");
        let (storage, _wal) = restart(&disk, wal);
        assert_eq!(checks_of(&storage), checks()[1..].to_vec());
    }

    fn rows_of(storage: &Arc<Storage>) -> Vec<Vec<Value>> {
        let reader = storage.register_reader();
        let txn = storage.begin(&reader);
        let catalog = storage.catalog();
        let table = catalog.table("d", "t").expect("table");
        let mut rows = Vec::new();
        table.scan(&txn.view(), IndexNo::Primary, &KeyRange::all(), |_, row| {
            rows.push(row.to_vec());
            ControlFlow::Continue(())
        });
        rows.sort_by_key(|r| format!("{r:?}"));
        rows
    }

    /// Inserts rows (a, a * 10) for a in `values` into d.t.
    fn insert_rows(storage: &Arc<Storage>, values: std::ops::RangeInclusive<i64>) {
        let reader = storage.register_reader();
        let mut txn = storage.begin(&reader);
        let table = storage.catalog().table("d", "t").expect("table").clone();
        for a in values {
            let row = vec![Value::Int(a), Value::Int(a * 10)];
            txn.insert(&table, row.into_boxed_slice()).expect("insert");
        }
        txn.commit().expect("commit");
    }

    /// Database d with table t (`checked_table`) holding the rows `insert_rows` makes of
    /// `values` (none for an empty range).
    fn table_with_rows(storage: &Arc<Storage>, values: std::ops::RangeInclusive<i64>) {
        storage
            .create_database("d", manycore_types::Collation::Utf8mb4GeneralCi, false)
            .expect("database");
        storage
            .create_table("d", checked_table(), false)
            .expect("table");
        insert_rows(storage, values);
    }

    /// ALTER TABLE t ADD c BIGINT FIRST, with CHECK constraints: c is the row's number.
    fn add_column_c(storage: &Storage) -> TableSchema {
        let mut schema = checked_table();
        let mut c = schema.columns[0].clone();
        c.name = "c".into();
        c.data_type = DataType::BIGINT;
        schema.columns.insert(0, c);
        schema.checks = checks();
        let mut convert = |number: u64, row: &[Value]| {
            let mut new = vec![Value::Int(number as i64)];
            new.extend_from_slice(row);
            Ok::<_, StorageError>(new.into_boxed_slice())
        };
        storage
            .alter_table(
                "d",
                "t",
                schema.clone(),
                Vec::new(),
                Some(&mut convert),
                |_| Ok(()),
            )
            .expect("rebuild");
        schema
    }

    /// A table rebuilt by ALTER TABLE (new schema, converted rows, CHECK constraints),
    /// its rows spread over several AlterRows records: a restart from the log and one
    /// from a checkpoint both give it back, and a commit after the rebuild lands in the
    /// rebuilt table.
    #[test]
    fn a_rebuilt_table_survives_replay_and_checkpoints() {
        let disk = SimDisk::new();
        let (storage, wal) = open(&disk);
        let count = 3 * crate::record::ROWS_RECORD_MAX as i64 + 1;
        table_with_rows(&storage, 1..=count);
        let before = wal.last_lsn();
        let schema = add_column_c(&storage);
        // AlterTable, four AlterRows, AlterEnd.
        assert_eq!(wal.last_lsn().0 - before.0, 6);
        let reader = storage.register_reader();
        let rebuilt = rows_of(&storage);
        assert_eq!(rebuilt.len() as i64, count);
        assert!(rebuilt.iter().all(|r| r.len() == 3));
        let table = storage.catalog().table("d", "t").expect("table").clone();
        let mut txn = storage.begin(&reader);
        let row = vec![Value::Int(9), Value::Int(4), Value::Int(40)];
        txn.insert(&table, row.into_boxed_slice()).expect("insert");
        txn.commit().expect("commit");
        let after = rows_of(&storage);
        drop(reader);

        let (storage, wal) = restart(&disk, wal);
        assert_eq!(rows_of(&storage), after);
        assert_eq!(checks_of(&storage), checks());
        let reader = storage.register_reader();
        let report = write_checkpoint(&wal, &storage, &reader, Lsn(0)).expect("checkpoint");
        assert!(report.is_some());
        drop(reader);
        let (storage, _wal) = restart(&disk, wal);
        assert_eq!(rows_of(&storage), after);
        let catalog = storage.catalog();
        let table = catalog.table("d", "t").expect("table");
        assert_eq!(*table.schema, schema);
    }

    /// Rows of d.t in primary key order, as a scan of the primary index gives them.
    fn rows_in_key_order(storage: &Arc<Storage>) -> Vec<Vec<Value>> {
        let reader = storage.register_reader();
        let txn = storage.begin(&reader);
        let catalog = storage.catalog();
        let table = catalog.table("d", "t").expect("table");
        let mut rows = Vec::new();
        table.scan(&txn.view(), IndexNo::Primary, &KeyRange::all(), |_, row| {
            rows.push(row.to_vec());
            ControlFlow::Continue(())
        });
        rows
    }

    /// ALTER TABLE t ADD id BIGINT AUTO_INCREMENT PRIMARY KEY FIRST on a table without a
    /// primary key (ids counting down here, so the new key's order is not the hidden
    /// one's): a duplicate id refuses the rebuild and logs nothing; otherwise the rows
    /// move from their hidden keys to their ids, and a restart from the log gives back
    /// the rows so keyed and the AUTO_INCREMENT counter after the largest id.
    #[test]
    fn an_added_primary_key_survives_replay() {
        let disk = SimDisk::new();
        let (storage, wal) = open(&disk);
        table_with_rows(&storage, 1..=5);
        let mut schema = checked_table();
        let mut id = schema.columns[0].clone();
        id.name = "id".into();
        id.data_type = DataType::BIGINT;
        id.nullable = false;
        id.auto_increment = true;
        schema.columns.insert(0, id);
        schema.primary_key = Some(vec![0]);
        let rebuild = |id: &dyn Fn(u64) -> i64| {
            let mut convert = |number: u64, row: &[Value]| {
                let mut new = vec![Value::Int(id(number))];
                new.extend_from_slice(row);
                Ok::<_, StorageError>(new.into_boxed_slice())
            };
            storage.alter_table(
                "d",
                "t",
                schema.clone(),
                Vec::new(),
                Some(&mut convert),
                |_| Ok(()),
            )
        };
        let before = wal.last_lsn();
        let refused = rebuild(&|_| 7);
        assert!(matches!(
            refused,
            Err(StorageError::DuplicateKey {
                index: IndexNo::Primary,
                ..
            })
        ));
        assert_eq!(wal.last_lsn(), before);
        rebuild(&|number| 10 - number as i64).expect("rebuild");
        let expected: Vec<Vec<Value>> = (1..=5)
            .rev()
            .map(|a| vec![Value::Int(10 - a), Value::Int(a), Value::Int(a * 10)])
            .collect();
        assert_eq!(rows_in_key_order(&storage), expected);

        let (storage, _wal) = restart(&disk, wal);
        assert_eq!(rows_in_key_order(&storage), expected);
        let catalog = storage.catalog();
        let table = catalog.table("d", "t").expect("table");
        assert_eq!(*table.schema, schema);
        assert_eq!(table.auto_increment(), 10);
    }

    /// An ALTER that keeps the rows but adds an index and CHECKs (as ALTER TABLE ADD
    /// INDEX, ADD CHECK) is one AlterTable record, replayed whole with the index built
    /// over the replayed rows; one whose verification fails logs and changes nothing.
    #[test]
    fn an_alter_keeping_rows_is_one_record_replayed_whole() {
        let disk = SimDisk::new();
        let (storage, wal) = open(&disk);
        table_with_rows(&storage, 1..=5);
        let mut schema = checked_table();
        schema.indexes.push(IndexSchema::new("kb", vec![1], false));
        schema.checks = checks();
        let before = wal.last_lsn();
        let refused =
            storage.alter_table::<StorageError>("d", "t", schema.clone(), Vec::new(), None, |_| {
                Err(StorageError::TableBusy { holder: 7 })
            });
        assert!(matches!(
            refused,
            Err(StorageError::TableBusy { holder: 7 })
        ));
        assert_eq!(wal.last_lsn(), before);
        let table = storage.catalog().table("d", "t").expect("table").clone();
        assert_eq!(*table.schema, checked_table());
        storage
            .alter_table::<StorageError>("d", "t", schema.clone(), Vec::new(), None, |new| {
                assert_eq!(new.index_entry_count(IndexNo::Secondary(0)), 5);
                Ok(())
            })
            .expect("alter");
        assert_eq!(wal.last_lsn().0 - before.0, 1);
        let rows = rows_of(&storage);

        let (storage, _wal) = restart(&disk, wal);
        let table = storage.catalog().table("d", "t").expect("table").clone();
        assert_eq!(*table.schema, schema);
        assert_eq!(table.index_entry_count(IndexNo::Secondary(0)), 5);
        assert_eq!(rows_of(&storage), rows);
    }

    /// An ALTER the log refused midway (its AlterTable and some AlterRows, then another
    /// record, no AlterEnd) changed nothing: replay drops it and applies what follows.
    /// So does one cut off by the end of the log.
    #[test]
    fn an_alter_without_its_end_record_is_dropped() {
        let disk = SimDisk::new();
        let (storage, wal) = open(&disk);
        table_with_rows(&storage, 1..=2);
        let mut schema = checked_table();
        schema.columns.pop();
        let head = LogRecord::AlterTable {
            db: "d".into(),
            schema: schema.clone(),
            auto_increment: 1,
            followers: Vec::new(),
            rows_follow: true,
        };
        let rows = LogRecord::AlterRows {
            db: "d".into(),
            table: "t".into(),
            rows: vec![(1u64.to_be_bytes().to_vec(), vec![Value::Int(1)])],
        };
        wal.append(&head.encode()).expect("append");
        wal.append(&rows.encode()).expect("append");
        insert_rows(&storage, 3..=3); // A commit after the refused ALTER.
        wal.append(&head.encode()).expect("append");
        wal.append(&rows.encode()).expect("append"); // The log ends inside this one.
        wal.flush().expect("flush");
        let expected = rows_of(&storage);
        assert_eq!(expected.len(), 3);

        wal.close().expect("close");
        drop(wal);
        disk.crash(Crash::DropAll);
        disk.power_on();
        let restored = Storage::new();
        let mut replayer = Replayer::new(restored.clone());
        let (_wal, _) = Wal::open(disk.clone(), WalOptions::default(), |lsn, record| {
            replayer.apply(lsn, record)
        })
        .expect("open");
        replayer.finish();
        assert_eq!(replayer.error, None);
        assert_eq!(replayer.abandoned_alters, 2);
        assert_eq!(rows_of(&restored), expected);
        let catalog = restored.catalog();
        assert_eq!(
            *catalog.table("d", "t").expect("table").schema,
            checked_table()
        );
    }

    /// Rows of an ALTER without its AlterTable record mean a damaged log: replay stops.
    #[test]
    fn alter_rows_without_their_head_fail_replay() {
        let storage = Storage::new();
        let mut replayer = Replayer::new(storage);
        replayer.apply(
            Lsn(1),
            LogRecord::CreateDatabase {
                name: "d".into(),
                collation: manycore_types::Collation::Utf8mb4GeneralCi,
            },
        );
        replayer.apply(
            Lsn(2),
            LogRecord::AlterEnd {
                db: "d".into(),
                table: "t".into(),
            },
        );
        replayer.finish();
        let error = replayer.error.expect("refused");
        assert!(error.contains("log record 2"), "{error}");
    }

    /// A rename keeps the rows: one AlterTable record, with the other table whose
    /// foreign key follows the renamed column, replayed as one change; a transaction
    /// holding a row of the table meanwhile commits into it.
    #[test]
    fn a_schema_only_alter_and_its_followers_survive_replay() {
        let disk = SimDisk::new();
        let (storage, wal) = open(&disk);
        storage
            .create_database("d", manycore_types::Collation::Utf8mb4GeneralCi, false)
            .expect("database");
        let mut parent = checked_table();
        parent.primary_key = Some(vec![0]);
        parent.columns[0].nullable = false;
        storage
            .create_table("d", parent.clone(), false)
            .expect("table");
        let mut child = schema("child", &["id", "a"]);
        child.foreign_keys = vec![ForeignKeySchema {
            parent_db: "d".into(),
            parent_table: "t".into(),
            parent_columns: vec!["a".into()],
            ..foreign_key("fk", 1, ReferentialAction::Cascade)
        }];
        child.indexes = vec![IndexSchema::new("fk", vec![1], false)];
        storage.create_table("d", child, false).expect("child");
        insert_rows(&storage, 1..=5);
        // A transaction holding a row does not stop a schema-only ALTER (it shares the
        // rows), and its commit after the ALTER is logged and replayed.
        let reader = storage.register_reader();
        let mut holder = storage.begin(&reader);
        let t = storage.catalog().table("d", "t").expect("table").clone();
        let row = vec![Value::Int(6), Value::Int(60)];
        holder.insert(&t, row.into_boxed_slice()).expect("insert");
        let before = wal.last_lsn();
        let child_keys = |storage: &Storage| {
            let catalog = storage.catalog();
            catalog
                .table("d", "child")
                .expect("child")
                .schema
                .foreign_keys
                .clone()
        };
        let mut renamed = parent.clone();
        renamed.columns[0].name = "z".into();
        renamed.columns[1].default = ColumnDefault::Value(Value::Int(7));
        let mut keys = child_keys(&storage);
        keys[0].parent_columns = vec!["z".into()];
        let followers = vec![TableForeignKeys {
            db: "d".into(),
            table: "child".into(),
            foreign_keys: keys.clone(),
        }];
        storage
            .alter_table::<StorageError>("d", "t", renamed.clone(), followers, None, |_| Ok(()))
            .expect("rename");
        assert_eq!(wal.last_lsn().0 - before.0, 1);
        holder.commit().expect("commit after the ALTER");
        drop(reader);
        let rows = rows_of(&storage);
        assert_eq!(rows.len(), 6);

        let (storage, _wal) = restart(&disk, wal);
        assert_eq!(rows_of(&storage), rows);
        assert_eq!(child_keys(&storage), keys);
        let catalog = storage.catalog();
        assert_eq!(*catalog.table("d", "t").expect("table").schema, renamed);
    }
}

#[cfg(test)]
mod rename_tests {
    use super::tests::{open, restart};
    use super::*;
    use crate::sim::SimDisk;
    use manycore_storage::{ColumnSchema, ForeignKeySchema, ReferentialAction, TableRename};
    use manycore_types::{ColumnDefault, DataType, Value};

    fn schema(name: &str) -> TableSchema {
        let column = |name: &str| ColumnSchema {
            name: name.into(),
            data_type: DataType::BIGINT,
            nullable: true,
            default: ColumnDefault::None,
            auto_increment: false,
            on_update_current_timestamp: false,
            comment: String::new(),
            display_width: None,
            generated: None,
        };
        TableSchema {
            name: name.into(),
            columns: vec![column("id"), column("v")],
            primary_key: Some(vec![0]),
            indexes: vec![manycore_storage::IndexSchema::new("v", vec![1], false)],
            fulltext_indexes: Vec::new(),
            comment: String::new(),
            options: Default::default(),
            foreign_keys: Vec::new(),
            checks: Vec::new(),
        }
    }

    fn rename(from_db: &str, from: &str, to_db: &str, to: &str) -> TableRename {
        TableRename {
            from_db: from_db.into(),
            from: from.into(),
            to_db: to_db.into(),
            to: to.into(),
        }
    }

    /// Rows of `db`.`table` by the primary index, and the count the secondary index has.
    fn rows(storage: &Arc<Storage>, db: &str, table: &str) -> Vec<Vec<Value>> {
        let reader = storage.register_reader();
        let txn = storage.begin(&reader);
        let catalog = storage.catalog();
        let table = catalog.table(db, table).expect("table");
        let mut rows = Vec::new();
        table.scan(&txn.view(), IndexNo::Primary, &KeyRange::all(), |_, row| {
            rows.push(row.to_vec());
            ControlFlow::Continue(())
        });
        let mut by_v = 0;
        table.scan(
            &txn.view(),
            IndexNo::Secondary(0),
            &KeyRange::all(),
            |_, _| {
                by_v += 1;
                ControlFlow::Continue(())
            },
        );
        assert_eq!(
            by_v,
            rows.len(),
            "secondary index of {db}.{}",
            table.schema.name
        );
        rows
    }

    fn insert(storage: &Arc<Storage>, db: &str, table: &str, ids: &[i64]) {
        let reader = storage.register_reader();
        let mut txn = storage.begin(&reader);
        let table = storage.catalog().table(db, table).expect("table").clone();
        for &id in ids {
            let row = vec![Value::Int(id), Value::Int(id * 10)];
            txn.insert(&table, row.into_boxed_slice()).expect("insert");
        }
        txn.commit().expect("commit");
    }

    fn ids(rows: &[Vec<Value>]) -> Vec<i64> {
        rows.iter()
            .map(|r| match r[0] {
                Value::Int(i) => i,
                ref other => panic!("id {other:?}"),
            })
            .collect()
    }

    fn parent_of(storage: &Storage, db: &str, table: &str) -> (String, String) {
        let catalog = storage.catalog();
        let fk = &catalog.table(db, table).expect("child").schema.foreign_keys[0];
        (fk.parent_db.clone(), fk.parent_table.clone())
    }

    /// RENAME TABLE is one record: a swap through a temporary name and a move to another
    /// database come back from the log and from a checkpoint with their rows, indexes and
    /// ids, commits after the rename land under the new names, and a foreign key follows
    /// its renamed parent.
    #[test]
    fn renamed_tables_survive_replay_and_checkpoints() {
        let disk = SimDisk::new();
        let (storage, wal) = open(&disk);
        storage
            .create_database("d", manycore_types::Collation::Utf8mb4GeneralCi, false)
            .expect("d");
        storage
            .create_database("d2", manycore_types::Collation::Utf8mb4GeneralCi, false)
            .expect("d2");
        storage.create_table("d", schema("a"), false).expect("a");
        storage.create_table("d", schema("b"), false).expect("b");
        let mut child = schema("child");
        child.foreign_keys = vec![ForeignKeySchema {
            name: "child_ibfk_1".into(),
            columns: vec![1],
            parent_db: "d".into(),
            parent_table: "a".into(),
            parent_columns: vec!["id".into()],
            on_delete: ReferentialAction::Restrict,
            on_update: ReferentialAction::Restrict,
        }];
        storage.create_table("d", child, false).expect("child");
        insert(&storage, "d", "a", &[1, 2, 3]);
        insert(&storage, "d", "b", &[7]);
        let (id_a, id_b) = {
            let catalog = storage.catalog();
            let id = |t: &str| catalog.table("d", t).expect("table").id;
            (id("a"), id("b"))
        };

        // A failing pair leaves everything as it was, and logs nothing.
        let failing = [rename("d", "a", "d", "x"), rename("d", "nosuch", "d", "y")];
        assert!(matches!(
            storage.rename_tables(&failing),
            Err(StorageError::NoSuchTable(t)) if t == "d.nosuch"
        ));
        let swap = [
            rename("d", "a", "d", "tmp"),
            rename("d", "b", "d", "a"),
            rename("d", "tmp", "d", "b"),
        ];
        storage.rename_tables(&swap).expect("swap");
        assert_eq!(storage.catalog().table("d", "b").expect("b").id, id_a);
        assert_eq!(storage.catalog().table("d", "a").expect("a").id, id_b);
        assert_eq!(parent_of(&storage, "d", "child"), ("d".into(), "b".into()));
        insert(&storage, "d", "b", &[4]);
        insert(&storage, "d", "a", &[8]);
        let (storage, wal) = restart(&disk, wal);
        assert_eq!(ids(&rows(&storage, "d", "b")), [1, 2, 3, 4]);
        assert_eq!(ids(&rows(&storage, "d", "a")), [7, 8]);
        assert_eq!(parent_of(&storage, "d", "child"), ("d".into(), "b".into()));

        // To another database; then a checkpoint, and a rename after it.
        storage
            .rename_tables(&[rename("d", "b", "d2", "moved")])
            .expect("move");
        insert(&storage, "d2", "moved", &[5]);
        assert_eq!(
            parent_of(&storage, "d", "child"),
            ("d2".into(), "moved".into())
        );
        let (storage, wal) = restart(&disk, wal);
        assert_eq!(ids(&rows(&storage, "d2", "moved")), [1, 2, 3, 4, 5]);
        assert!(storage.catalog().table("d", "b").is_none());
        let reader = storage.register_reader();
        let report = write_checkpoint(&wal, &storage, &reader, Lsn(0)).expect("checkpoint");
        assert!(report.is_some());
        drop(reader);
        storage
            .rename_tables(&[rename("d", "a", "d", "renamed")])
            .expect("after checkpoint");
        let (storage, _wal) = restart(&disk, wal);
        assert_eq!(ids(&rows(&storage, "d2", "moved")), [1, 2, 3, 4, 5]);
        assert_eq!(ids(&rows(&storage, "d", "renamed")), [7, 8]);
        assert_eq!(
            parent_of(&storage, "d", "child"),
            ("d2".into(), "moved".into())
        );
        let names: Vec<String> = storage.catalog().databases["d"]
            .tables
            .keys()
            .cloned()
            .collect();
        assert_eq!(names, ["child", "renamed"]);
    }

    /// A table another transaction holds a row of is not renamed (its commit would be
    /// logged under the old name); one that only read it is unaffected; a write through
    /// the old name after the rename retries.
    #[test]
    fn rename_refuses_held_rows_and_retires_the_old_name() {
        let storage = Storage::new();
        storage
            .create_database("d", manycore_types::Collation::Utf8mb4GeneralCi, false)
            .expect("d");
        storage.create_table("d", schema("a"), false).expect("a");
        insert(&storage, "d", "a", &[1]);
        let old = storage.catalog().table("d", "a").expect("a").clone();
        let reader = storage.register_reader();
        let mut writer = storage.begin(&reader);
        let row = vec![Value::Int(2), Value::Int(20)].into_boxed_slice();
        writer.insert(&old, row).expect("insert");
        assert!(matches!(
            storage.rename_tables(&[rename("d", "a", "d", "b")]),
            Err(StorageError::TableBusy { .. })
        ));
        writer.commit().expect("commit");
        let other = storage.register_reader();
        let reading = storage.begin(&other);
        storage
            .rename_tables(&[rename("d", "a", "d", "b")])
            .expect("rename");
        let mut seen = 0;
        old.scan(
            &reading.view(),
            IndexNo::Primary,
            &KeyRange::all(),
            |_, _| {
                seen += 1;
                ControlFlow::Continue(())
            },
        );
        assert_eq!(seen, 2, "a reader of the old object sees the same rows");
        drop(reading);
        let mut late = storage.begin(&reader);
        let row = vec![Value::Int(3), Value::Int(30)].into_boxed_slice();
        assert!(matches!(
            late.insert(&old, row),
            Err(StorageError::WriteConflict)
        ));
        drop(late);
        assert_eq!(ids(&rows(&storage, "d", "b")), [1, 2]);
    }
}
