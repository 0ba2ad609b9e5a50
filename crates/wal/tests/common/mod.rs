//! Helpers shared by the integration tests: a tiny model of storage state built from
//! log records, and shorthand for commits.
#![allow(dead_code)]

use manycore_types::Value;
use manycore_wal::{LogRecord, Lsn, RowChange, Wal, WalOptions};
use std::collections::BTreeMap;
use std::sync::Arc;

/// (table, key) -> row: what storage would hold after applying records.
pub type State = BTreeMap<(String, Vec<u8>), Vec<Value>>;

pub fn apply(state: &mut State, record: &LogRecord) {
    match record {
        LogRecord::Commit { changes, .. } => {
            for c in changes {
                let k = (c.table.to_string(), c.key.clone());
                match &c.row {
                    Some(row) => state.insert(k, row.clone()),
                    None => state.remove(&k),
                };
            }
        }
        LogRecord::TableRows { table, rows, .. } => {
            for (key, row) in rows {
                state.insert((table.clone(), key.clone()), row.clone());
            }
        }
        LogRecord::TruncateTable { name, .. } => state.retain(|(t, _), _| t != name),
        _ => {}
    }
}

/// A one-row commit: `table`/`key` set to [n] (or deleted when n < 0).
pub fn commit(table: &str, key: u64, n: i64) -> LogRecord {
    LogRecord::Commit {
        commit_ts: n.unsigned_abs(),
        changes: vec![RowChange {
            db: "db".into(),
            table: table.into(),
            key: key.to_be_bytes().to_vec(),
            row: (n >= 0).then(|| vec![Value::Int(n), Value::text("padding")]),
        }],
    }
}

pub type Opened = (Wal, manycore_wal::RecoveryReport, Vec<(Lsn, LogRecord)>);

/// Opens `disk`, collecting every replayed record.
pub fn open(
    disk: Arc<dyn manycore_wal::Disk>,
    options: WalOptions,
) -> Result<Opened, manycore_wal::WalError> {
    let mut records = Vec::new();
    let (wal, report) = Wal::open(disk, options, |lsn, r| records.push((lsn, r)))?;
    Ok((wal, report, records))
}

pub fn small_segments() -> WalOptions {
    WalOptions {
        segment_size_max: 512,
        ..WalOptions::default()
    }
}

/// Writes a checkpoint of `state` at `lsn`.
pub fn checkpoint(wal: &Wal, lsn: Lsn, state: &State) -> manycore_wal::CheckpointReport {
    let mut w = wal.begin_checkpoint(lsn).expect("begin checkpoint");
    w.write(&LogRecord::CreateDatabase {
        name: "db".into(),
        collation: manycore_types::Collation::Utf8mb4GeneralCi,
    })
    .expect("write");
    for ((table, key), row) in state {
        w.write_row("db", table, key, row).expect("write row");
    }
    w.finish().expect("finish checkpoint")
}
