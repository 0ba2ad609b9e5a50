//! LOAD DATA LOCAL INFILE through real clients, against the server under test
//! (`MANYCORE_TEST_TARGET`, so MariaDB checks the test): the `mariadb` CLI and
//! `mariadb-import`, a client that refuses to send files, a file of many packets, and a
//! load that waits for a row lock and then loads the same file. Field rules and warnings
//! are compared statement by statement in tests/sql/load_data.sql.

use manycore_testkit::client::{self, mariadb_cli, process_info, run_bounded};
use manycore_testkit::{Server, Target};
use mysql::prelude::Queryable;
use mysql::{Conn, LocalInfileHandler};
use std::path::Path;
use std::process::Command;
use std::thread;
use std::time::Duration;

const STATE_TIMEOUT: Duration = Duration::from_secs(20);

fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("manycore-load-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

fn count(conn: &mut Conn, table: &str) -> i64 {
    conn.query_first(format!("SELECT COUNT(*) FROM {table}"))
        .expect("count")
        .expect("a row")
}

#[test]
fn the_cli_and_mariadb_import_send_local_files() {
    let server = Server::from_env();
    let port = server.port();
    let dir = scratch_dir("cli");
    let csv = dir.join("items.csv");
    std::fs::write(&csv, "1,\"pen, blue\",2.50\n2,\"ink\",\\N\n3,paper,0.10\n").expect("csv");
    let mut conn = server.connect();
    conn.query_drop("CREATE DATABASE shop").expect("database");
    conn.query_drop(
        "CREATE TABLE shop.items (id INT PRIMARY KEY, name VARCHAR(20), price DECIMAL(5,2))",
    )
    .expect("table");

    let statement = format!(
        "LOAD DATA LOCAL INFILE '{}' INTO TABLE items FIELDS TERMINATED BY ',' ENCLOSED BY '\"';",
        csv.display()
    );
    let out = mariadb_cli(port, &["--local-infile=1", "-vv", "shop"], &statement);
    assert!(out.success(), "LOAD DATA through the CLI: {out}");
    assert!(
        out.stdout
            .contains("Records: 3  Deleted: 0  Skipped: 0  Warnings: 0"),
        "the OK packet's info: {out}"
    );
    let rows: Vec<(i64, String, Option<String>)> = conn
        .query("SELECT id, name, CAST(price AS CHAR) FROM shop.items ORDER BY id")
        .expect("rows");
    assert_eq!(
        rows,
        vec![
            (1, "pen, blue".to_string(), Some("2.50".to_string())),
            (2, "ink".to_string(), None),
            (3, "paper".to_string(), Some("0.10".to_string())),
        ]
    );

    // A client that does not offer to send files is refused before any transfer.
    let out = mariadb_cli(port, &["--local-infile=0", "shop"], &statement);
    assert!(
        out.stderr.contains("ERROR 4166 (HY000)"),
        "LOAD DATA LOCAL without the capability: {out}"
    );

    // mariadb-import --local: one LOAD DATA LOCAL per file, into the table the file names.
    conn.query_drop("DELETE FROM shop.items").expect("delete");
    let mut import = Command::new("mariadb-import");
    import
        .args(["--no-defaults", "--protocol=TCP", "-h127.0.0.1", "-uroot"])
        .arg(format!("-P{port}"))
        .args([
            "--local",
            "--fields-terminated-by=,",
            "--fields-enclosed-by=\"",
        ])
        .arg("shop")
        .arg(&csv);
    let out = run_bounded(import, b"", Duration::from_secs(60));
    assert!(out.success(), "mariadb-import: {out}");
    assert!(
        out.stdout.contains("Records: 3"),
        "mariadb-import's report: {out}"
    );
    assert_eq!(count(&mut conn, "shop.items"), 3);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A connection whose LOAD DATA LOCAL sends `file`'s bytes, whatever name it asks for.
fn sending(server: &Server, file: Vec<u8>) -> Conn {
    let mut conn = server.connect();
    conn.set_local_infile_handler(Some(LocalInfileHandler::new(move |_, stream| {
        std::io::Write::write_all(stream, &file)
    })));
    conn
}

#[test]
fn a_file_of_many_packets_loads_whole() {
    let server = Server::from_env();
    let rows = 100_000u64;
    let mut file = Vec::new();
    for i in 1..=rows {
        file.extend_from_slice(format!("{i}\tname {i}\t{}\n", i % 7).as_bytes());
    }
    assert!(file.len() > 1 << 20, "many packets");
    let mut conn = sending(&server, file);
    conn.query_drop("CREATE DATABASE bulk").expect("database");
    conn.query_drop("CREATE TABLE bulk.t (id INT PRIMARY KEY, name VARCHAR(20), k INT, KEY (k))")
        .expect("table");
    conn.query_drop("LOAD DATA LOCAL INFILE 'rows.tsv' INTO TABLE bulk.t")
        .expect("load");
    assert_eq!(conn.affected_rows(), rows);
    assert_eq!(
        conn.info_str(),
        format!("Records: {rows}  Deleted: 0  Skipped: 0  Warnings: 0")
    );
    let (n, sum, k3): (u64, u64, u64) = conn
        .query_first("SELECT COUNT(*), SUM(id), SUM(k = 3) FROM bulk.t")
        .expect("sums")
        .expect("a row");
    assert_eq!((n, sum), (rows, rows * (rows + 1) / 2));
    assert_eq!(k3, (1..=rows).filter(|i| i % 7 == 3).count() as u64);
    let name: String = conn
        .query_first("SELECT name FROM bulk.t WHERE id = 77777")
        .expect("row")
        .expect("a row");
    assert_eq!(name, "name 77777");
}

#[test]
fn a_load_waiting_for_a_row_lock_loads_the_same_file_after_it() {
    let server = Server::from_env();
    let mut holder = server.connect();
    holder
        .query_drop("CREATE DATABASE locks")
        .expect("database");
    holder
        .query_drop("CREATE TABLE locks.t (id INT PRIMARY KEY, name VARCHAR(10))")
        .expect("table");
    holder
        .query_drop("INSERT INTO locks.t VALUES (2, 'old')")
        .expect("row");
    holder.query_drop("BEGIN").expect("begin");
    holder
        .query_drop("UPDATE locks.t SET name = 'held' WHERE id = 2")
        .expect("the holder's lock on row 2");

    let mut loader = sending(&server, b"1\tone\n2\ttwo\n3\tthree\n".to_vec());
    let loader_id = client::connection_id(&mut loader);
    let load = thread::spawn(move || {
        loader
            .query_drop("LOAD DATA LOCAL INFILE 'x.tsv' REPLACE INTO TABLE locks.t")
            .map(|()| (loader.affected_rows(), loader.info_str().into_owned()))
    });
    client::wait_for("the LOAD DATA to run", STATE_TIMEOUT, || {
        let info = process_info(&mut holder, loader_id).flatten();
        info.is_some_and(|i| i.starts_with("LOAD DATA"))
    });
    // Time to receive three lines and meet row 2: the process list does not tell a row
    // lock wait apart (its state is empty), so this is when the lock is most likely met.
    thread::sleep(Duration::from_millis(300));
    holder.query_drop("COMMIT").expect("commit");
    let (affected, info) = load.join().expect("loader thread").expect("the load");
    assert_eq!(affected, 4, "three rows, one of them replacing row 2");
    assert_eq!(info, "Records: 3  Deleted: 1  Skipped: 0  Warnings: 0");
    let rows: Vec<(i64, String)> = holder
        .query("SELECT id, name FROM locks.t ORDER BY id")
        .expect("rows");
    let names: Vec<&str> = rows.iter().map(|(_, n)| n.as_str()).collect();
    assert_eq!(names, ["one", "two", "three"]);
}

#[test]
fn each_load_counts_once_and_server_files_are_refused() {
    let server = Server::from_env();
    let mut conn = sending(&server, b"1\n2\n".to_vec());
    conn.query_drop("CREATE DATABASE counted")
        .expect("database");
    conn.query_drop("CREATE TABLE counted.t (id INT)")
        .expect("table");
    let com_load = |conn: &mut Conn| -> u64 {
        let row: (String, u64) = conn
            .query_first("SHOW GLOBAL STATUS LIKE 'Com_load'")
            .expect("status")
            .expect("a row");
        row.1
    };
    let before = com_load(&mut conn);
    conn.query_drop("LOAD DATA LOCAL INFILE 'n.tsv' INTO TABLE counted.t")
        .expect("load");
    assert_eq!(
        com_load(&mut conn),
        before + 1,
        "asked for the file, counted once"
    );
    assert_eq!(count(&mut conn, "counted.t"), 2);

    if server.target() == Target::Manycore {
        // Started without --secure-file-priv: files on the server are refused, whatever
        // the file (the safe default).
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
        let error = conn
            .query_drop(format!(
                "LOAD DATA INFILE '{}' INTO TABLE counted.t",
                path.display()
            ))
            .expect_err("a server-side file");
        match error {
            mysql::Error::MySqlError(e) => assert_eq!(e.code, 1290, "{e}"),
            other => panic!("{other}"),
        }
        // And the variable says so: NULL, where '' would mean any file.
        let priv_dir: Option<Option<String>> = conn
            .query_first("SELECT @@secure_file_priv")
            .expect("secure_file_priv");
        assert_eq!(priv_dir, Some(None));
    }
}

/// Files on the server need the FILE privilege, refused as MariaDB refuses each statement:
/// 1227 for SELECT ... INTO OUTFILE/DUMPFILE, 1045 for LOAD DATA INFILE (before the name
/// is looked at, naming the account and whether the login sent a password, as a global
/// GRANT without the privileges does), NULL from LOAD_FILE(); with FILE granted the same
/// statements work.
#[test]
fn server_files_need_the_file_privilege() {
    let dir = scratch_dir("file-privilege");
    let dir = std::fs::canonicalize(&dir).expect("canonical scratch directory");
    let flag = format!("--secure-file-priv={}", dir.display());
    let server = match Target::from_env() {
        Target::Manycore => Server::Manycore(manycore_testkit::ManycoreServer::start_with(&[
            "--secure-file-priv",
            &dir.display().to_string(),
        ])),
        Target::MariaDb => Server::MariaDb(manycore_testkit::MariaDb::start_with(&[&flag])),
    };
    let mut root = server.connect();
    for sql in [
        "CREATE DATABASE filing",
        "CREATE TABLE filing.t (id INT)",
        "INSERT INTO filing.t VALUES (1), (2)",
        "CREATE USER clerk@'%' IDENTIFIED BY 'pw'",
        "GRANT SELECT, INSERT ON filing.* TO clerk@'%'",
        "CREATE USER walkin@'%'",
        "GRANT SELECT, INSERT ON filing.* TO walkin@'%'",
    ] {
        root.query_drop(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let file = |name: &str| dir.join(name).display().to_string();
    root.query_drop(format!(
        "SELECT id FROM filing.t INTO OUTFILE '{}'",
        file("ids.txt")
    ))
    .expect("root holds FILE");
    let clerk_opts = client::opts(server.port(), Some("filing"))
        .user(Some("clerk"))
        .pass(Some("pw"));
    let mut clerk = Conn::new(mysql::Opts::from(clerk_opts.clone())).expect("clerk logs in");
    let code = |conn: &mut Conn, sql: String| match conn.query_drop(&sql) {
        Err(mysql::Error::MySqlError(e)) => e.code,
        other => panic!("{sql}: expected an error, got {other:?}"),
    };
    let outfile = format!("SELECT id FROM t INTO OUTFILE '{}'", file("clerk.txt"));
    let dumpfile = format!("SELECT 1 INTO DUMPFILE '{}'", file("clerk.bin"));
    let load = format!("LOAD DATA INFILE '{}' INTO TABLE t", file("ids.txt"));
    let load_file = format!("SELECT LOAD_FILE('{}')", file("ids.txt"));
    assert_eq!(code(&mut clerk, outfile.clone()), 1227);
    assert_eq!(code(&mut clerk, dumpfile.clone()), 1227);
    assert_eq!(code(&mut clerk, load.clone()), 1045);
    let outside = "LOAD DATA INFILE '/etc/passwd' INTO TABLE t".to_string();
    assert_eq!(code(&mut clerk, outside), 1045, "the privilege comes first");
    let message = |conn: &mut Conn, sql: &str| match conn.query_drop(sql) {
        Err(mysql::Error::MySqlError(e)) => e.message,
        other => panic!("{sql}: expected an error, got {other:?}"),
    };
    let global_grant = "GRANT SELECT ON *.* TO walkin@'%'";
    let with_password = "Access denied for user 'clerk'@'%' (using password: YES)";
    assert_eq!(message(&mut clerk, &load), with_password);
    assert_eq!(message(&mut clerk, global_grant), with_password);
    let walkin_opts = client::opts(server.port(), Some("filing")).user(Some("walkin"));
    let mut walkin = Conn::new(mysql::Opts::from(walkin_opts)).expect("walkin logs in");
    let without_password = "Access denied for user 'walkin'@'%' (using password: NO)";
    assert_eq!(message(&mut walkin, &load), without_password);
    assert_eq!(message(&mut walkin, global_grant), without_password);
    let read: Option<Option<Vec<u8>>> = clerk.query_first(&load_file).expect("LOAD_FILE");
    assert_eq!(read, Some(None), "NULL without FILE");
    assert!(!dir.join("clerk.txt").exists() && !dir.join("clerk.bin").exists());

    root.query_drop("GRANT FILE ON *.* TO clerk@'%'")
        .expect("grant FILE");
    // MariaDB reads global privileges at login: a new connection has FILE.
    let mut clerk = Conn::new(mysql::Opts::from(clerk_opts)).expect("clerk logs in again");
    clerk.query_drop(&outfile).expect("OUTFILE with FILE");
    clerk.query_drop(&dumpfile).expect("DUMPFILE with FILE");
    clerk.query_drop(&load).expect("LOAD DATA INFILE with FILE");
    assert_eq!(count(&mut clerk, "t"), 4);
    let read: Option<Option<Vec<u8>>> = clerk.query_first(&load_file).expect("LOAD_FILE");
    assert_eq!(read, Some(Some(b"1\n2\n".to_vec())));
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(dir.join("clerk.txt"))
        .expect("written")
        .permissions()
        .mode();
    assert_eq!(mode & 0o022, 0, "not writable by group or others: {mode:o}");
    let _ = std::fs::remove_dir_all(&dir);
}
