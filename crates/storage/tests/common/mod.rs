//! Shared helpers: a table `t(id BIGINT PRIMARY KEY, a BIGINT NULL, b BIGINT NULL)` with a
//! non-unique index on `a` (secondary 0) and a unique index on `b` (secondary 1).
#![allow(dead_code)]

use manycore_storage::{
    ColumnSchema, IndexNo, IndexSchema, KeyRange, ReadView, RowSlot, Storage, Table, TableSchema,
    Transaction,
};
use manycore_types::{ColumnDefault, DataType, IntWidth, Row, Value};
use std::ops::ControlFlow;
use std::sync::Arc;

pub const A: IndexNo = IndexNo::Secondary(0);
pub const B: IndexNo = IndexNo::Secondary(1);

pub fn bigint() -> DataType {
    DataType::Int {
        width: IntWidth::Big,
        unsigned: false,
    }
}

pub fn column(name: &str, nullable: bool) -> ColumnSchema {
    ColumnSchema {
        name: name.to_string(),
        data_type: bigint(),
        nullable,
        default: ColumnDefault::None,
        auto_increment: false,
        on_update_current_timestamp: false,
        comment: String::new(),
        display_width: None,
        generated: None,
    }
}

pub fn schema(name: &str) -> TableSchema {
    TableSchema {
        name: name.to_string(),
        columns: vec![column("id", false), column("a", true), column("b", true)],
        primary_key: Some(vec![0]),
        indexes: vec![
            IndexSchema::new("a", vec![1], false),
            IndexSchema::new("b", vec![2], true),
        ],
        fulltext_indexes: Vec::new(),
        comment: String::new(),
        options: Default::default(),
        foreign_keys: Vec::new(),
        checks: Vec::new(),
    }
}

/// A storage with database `d` holding `schema`.
pub fn storage_with(schema: TableSchema) -> Arc<Storage> {
    let storage = Storage::new();
    storage
        .create_database("d", manycore_types::Collation::Utf8mb4GeneralCi, false)
        .expect("new storage");
    storage
        .create_table("d", schema, false)
        .expect("new database");
    storage
}

pub fn setup() -> (Arc<Storage>, Arc<Table>) {
    let storage = storage_with(schema("t"));
    let table = table(&storage, "t");
    (storage, table)
}

pub fn table(storage: &Storage, name: &str) -> Arc<Table> {
    storage
        .catalog()
        .table("d", name)
        .expect("table exists")
        .clone()
}

pub fn value(v: Option<i64>) -> Value {
    v.map_or(Value::Null, Value::Int)
}

pub fn row(id: i64, a: Option<i64>, b: Option<i64>) -> Row {
    vec![Value::Int(id), value(a), value(b)].into_boxed_slice()
}

pub fn key(table: &Table, id: i64) -> Vec<u8> {
    table.primary_key(&[Value::Int(id)])
}

/// The visible row with primary key `id`.
pub fn get(table: &Table, view: &ReadView, id: i64) -> Option<Vec<Value>> {
    table.get(view, &key(table, id), |_, row| row.to_vec())
}

pub fn slot(table: &Table, view: &ReadView, id: i64) -> Option<Arc<RowSlot>> {
    table.get(view, &key(table, id), |slot, _| slot.clone())
}

pub fn scan(table: &Table, view: &ReadView, index: IndexNo, range: &KeyRange) -> Vec<Vec<Value>> {
    let mut out = Vec::new();
    table.scan(view, index, range, |_, row| {
        out.push(row.to_vec());
        ControlFlow::Continue(())
    });
    out
}

pub fn ids(rows: &[Vec<Value>]) -> Vec<i64> {
    rows.iter()
        .map(|r| match r[0] {
            Value::Int(id) => id,
            ref other => panic!("id {other:?}"),
        })
        .collect()
}

pub fn int_of(value: &Value) -> i64 {
    match value {
        Value::Int(v) => *v,
        other => panic!("not an int: {other:?}"),
    }
}

/// Commits the rows in one transaction.
pub fn insert_committed(storage: &Arc<Storage>, table: &Arc<Table>, rows: Vec<Row>) {
    let reader = storage.register_reader();
    let mut txn = storage.begin(&reader);
    for r in rows {
        txn.insert(table, r).expect("insert of setup rows");
    }
    txn.commit().expect("commit");
}

/// Updates the row `id` to `new` in `txn` (reading it at the transaction's view).
pub fn update(
    txn: &mut Transaction,
    table: &Arc<Table>,
    id: i64,
    new: Row,
) -> Result<(), manycore_storage::StorageError> {
    let slot = slot(table, &txn.view(), id).expect("row to update is visible");
    txn.update(table, &slot, new)
}

/// Locks the row `id` in `txn`, as a locking read does: read with a fresh write view.
pub fn lock(
    txn: &mut Transaction,
    table: &Arc<Table>,
    id: i64,
) -> Result<Arc<RowSlot>, manycore_storage::StorageError> {
    txn.refresh_write_view();
    let slot = slot(table, &txn.write_view(), id).expect("row to lock is visible");
    txn.lock_row(table, &slot).map(|()| slot)
}

pub fn delete(
    txn: &mut Transaction,
    table: &Arc<Table>,
    id: i64,
) -> Result<(), manycore_storage::StorageError> {
    let slot = slot(table, &txn.view(), id).expect("row to delete is visible");
    txn.delete(table, &slot)
}

/// A small deterministic generator (SplitMix64), so a failing seed replays.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// Seed from MANYCORE_SEED, else `default`; printed so a failure can be replayed.
pub fn seed(default: u64) -> u64 {
    let seed = std::env::var("MANYCORE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default);
    eprintln!("seed {seed} (set MANYCORE_SEED to replay)");
    seed
}
