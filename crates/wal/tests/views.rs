//! Views survive restart: logged by `Storage::create_view`/`drop_view`, replayed by
//! `Replayer`, and written by `write_checkpoint` (then recovered from the checkpoint).

use manycore_storage::{Storage, ViewSchema};
use manycore_wal::sim::SimDisk;
use manycore_wal::{write_checkpoint, Lsn, Replayer, Wal, WalOptions};
use std::collections::BTreeMap;
use std::sync::Arc;

fn view(name: &str, query: &str) -> ViewSchema {
    ViewSchema {
        name: name.into(),
        columns: vec!["x".into()],
        query: query.into(),
        algorithm: "UNDEFINED".into(),
        definer: "root@localhost".into(),
        security: "DEFINER".into(),
        check_option: "NONE".into(),
    }
}

/// Opens `disk` into a fresh storage with the log attached.
fn recover(disk: &Arc<SimDisk>) -> (Arc<Storage>, Arc<Wal>) {
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

fn views(storage: &Storage) -> BTreeMap<String, ViewSchema> {
    let catalog = storage.catalog();
    catalog.databases["db"]
        .views
        .iter()
        .map(|(name, v)| (name.clone(), ViewSchema::clone(v)))
        .collect()
}

#[test]
fn views_survive_restart_through_log_and_checkpoint() {
    let disk = SimDisk::new();
    let (storage, wal) = recover(&disk);
    storage
        .create_database("db", manycore_types::Collation::Utf8mb4GeneralCi, false)
        .expect("database");
    storage
        .create_view("db", view("v1", "SELECT 1"), false)
        .expect("v1");
    storage
        .create_view("db", view("v2", "SELECT 2"), false)
        .expect("v2");
    storage
        .create_view("db", view("v3", "SELECT 3"), false)
        .expect("v3");
    // A second CREATE without OR REPLACE fails and logs nothing.
    assert!(storage
        .create_view("db", view("v1", "SELECT 9"), false)
        .is_err());
    storage
        .create_view("db", view("v1", "SELECT 11"), true)
        .expect("replace");
    storage.drop_view("db", "v2").expect("drop");
    let expected = views(&storage);
    assert_eq!(expected.len(), 2);
    assert_eq!(expected["v1"].query, "SELECT 11");
    drop((storage, wal));

    // From the log.
    let (storage, wal) = recover(&disk);
    assert_eq!(views(&storage), expected);

    // From a checkpoint, then a change logged after it.
    let reader = storage.register_reader();
    let report = write_checkpoint(&wal, &storage, &reader, Lsn(0))
        .expect("checkpoint")
        .expect("something to write");
    assert!(report.lsn.0 > 0);
    storage
        .drop_view("db", "v3")
        .expect("drop after checkpoint");
    let expected = views(&storage);
    drop((reader, storage, wal));
    let (storage, _wal) = recover(&disk);
    assert_eq!(views(&storage), expected);
    assert_eq!(expected.keys().collect::<Vec<_>>(), ["v1"]);
}
