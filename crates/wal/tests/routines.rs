//! Stored routines survive restart: logged by `Storage::create_routine`/`drop_routine`,
//! replayed by `Replayer`, and written by `write_checkpoint` (then recovered from the
//! checkpoint).

use manycore_storage::{RoutineKind, RoutineSchema, Storage};
use manycore_wal::sim::SimDisk;
use manycore_wal::{write_checkpoint, Lsn, Replayer, Wal, WalOptions};
use std::sync::Arc;

fn routine(name: &str, kind: RoutineKind, body: &str) -> RoutineSchema {
    let function = kind == RoutineKind::Function;
    RoutineSchema {
        name: name.into(),
        kind,
        params: "IN x INT".into(),
        returns: if function {
            "INT".into()
        } else {
            String::new()
        },
        body: body.into(),
        definer: "root@localhost".into(),
        security: "INVOKER".into(),
        data_access: "READS SQL DATA".into(),
        deterministic: function,
        comment: "kept".into(),
        sql_mode: "STRICT_TRANS_TABLES".into(),
        character_set_client: "utf8mb4".into(),
        collation_connection: "utf8mb4_general_ci".into(),
        created: "2026-11-29 10:00:00".into(),
        modified: "2026-11-29 10:01:00".into(),
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

/// Every routine of database `db`, in the catalog's order (kind, then name).
fn routines(storage: &Storage) -> Vec<RoutineSchema> {
    let catalog = storage.catalog();
    catalog.databases["db"]
        .routines
        .values()
        .map(|r| RoutineSchema::clone(r))
        .collect()
}

#[test]
fn routines_survive_restart_through_log_and_checkpoint() {
    use RoutineKind::{Function, Procedure};
    let disk = SimDisk::new();
    let (storage, wal) = recover(&disk);
    storage
        .create_database("db", manycore_types::Collation::Utf8mb4GeneralCi, false)
        .expect("database");
    let create =
        |r: RoutineSchema, replace: bool| storage.create_routine("db", r, replace).expect("create");
    // A procedure and a function of one name, and a second procedure.
    assert!(create(routine("Twin", Procedure, "SELECT x"), false));
    assert!(create(routine("twin", Function, "RETURN x + 1"), false));
    assert!(create(routine("gone", Procedure, "SELECT 0"), false));
    assert!(!create(routine("TWIN", Procedure, "SELECT 9"), false));
    assert!(create(routine("TWIN", Function, "RETURN x * 2"), true));
    assert!(storage.drop_routine("db", Procedure, "GONE").expect("drop"));
    let expected = routines(&storage);
    assert_eq!(
        expected,
        [
            routine("Twin", Procedure, "SELECT x"),
            routine("TWIN", Function, "RETURN x * 2"),
        ]
    );
    drop((storage, wal));

    // From the log alone.
    let (storage, wal) = recover(&disk);
    assert_eq!(routines(&storage), expected);

    // From a checkpoint, then changes logged after it.
    let reader = storage.register_reader();
    write_checkpoint(&wal, &storage, &reader, Lsn(0))
        .expect("checkpoint")
        .expect("something to write");
    drop((reader, storage, wal));
    let (storage, wal) = recover(&disk);
    assert_eq!(routines(&storage), expected);
    storage
        .create_routine("db", routine("later", Procedure, "SELECT 1"), false)
        .expect("create after the checkpoint");
    assert!(storage
        .drop_routine("db", Function, "twin")
        .expect("drop after the checkpoint"));
    let expected = routines(&storage);
    assert_eq!(
        expected.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
        ["later", "Twin"]
    );
    drop((storage, wal));
    let (storage, wal) = recover(&disk);
    assert_eq!(routines(&storage), expected);

    // DROP DATABASE takes its routines, through replay and a checkpoint alike.
    storage.drop_database("db", false).expect("drop database");
    storage
        .create_database("db", manycore_types::Collation::Utf8mb4GeneralCi, false)
        .expect("database again");
    drop((storage, wal));
    let (storage, wal) = recover(&disk);
    assert_eq!(routines(&storage), []);
    let reader = storage.register_reader();
    write_checkpoint(&wal, &storage, &reader, Lsn(0))
        .expect("checkpoint")
        .expect("something to write");
    drop((reader, storage, wal));
    let (storage, _wal) = recover(&disk);
    assert_eq!(routines(&storage), []);
}
