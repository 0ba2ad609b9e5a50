//! Differential SQL test: every file in `tests/sql/*.sql` runs on a throwaway
//! MariaDB (the reference) and on manycore (the subject); every statement's
//! outcome must agree (see `manycore_testkit::differential`).
//!
//! Env:
//!   DIFF_AGAINST=mariadb  the subject is a second MariaDB: a self-check that the
//!                         files are deterministic, so any later mismatch is a
//!                         manycore bug, not a flaky statement.
//!   DIFF_FILTER=text      only files whose name contains `text`.
//!   DIFF_PREPARED=1       also run every file through prepared statements.
//!   DIFF_DUMP=1           print every statement with MariaDB's outcome (to review files).

use std::fs;
use std::path::PathBuf;
use std::thread;

use manycore_testkit::client::opts;
use manycore_testkit::differential::{
    compare, execute, parse_sql_file, render, Mode, Outcome, Statement,
};
use manycore_testkit::mariadb::MariaDbInstall;
use manycore_testkit::{ManycoreServer, MariaDb, Server};
use mysql::prelude::Queryable;
use mysql::{Conn, Opts};

fn sql_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/sql");
    let filter = std::env::var("DIFF_FILTER").unwrap_or_default();
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "sql"))
        .filter(|path| {
            path.file_name()
                .is_some_and(|n| n.to_string_lossy().contains(&filter))
        })
        .collect();
    files.sort();
    files
}

/// A connection with a fresh, selected database `name`.
fn fresh_database(port: u16, name: &str) -> Result<Conn, String> {
    let mut conn = Conn::new(Opts::from(opts(port, None))).map_err(|e| e.to_string())?;
    for sql in [
        format!("DROP DATABASE IF EXISTS {name}"),
        format!("CREATE DATABASE {name}"),
        format!("USE {name}"),
    ] {
        conn.query_drop(&sql).map_err(|e| format!("{sql}: {e}"))?;
    }
    Ok(conn)
}

struct Mismatch {
    file: String,
    statement: Statement,
    mode: Mode,
    diff: String,
}

#[test]
fn sql_files_agree_with_mariadb() {
    let self_check = std::env::var("DIFF_AGAINST").as_deref() == Ok("mariadb");
    let dump = std::env::var_os("DIFF_DUMP").is_some();
    let files = sql_files();
    assert!(
        !files.is_empty(),
        "no tests/sql/*.sql files matched DIFF_FILTER"
    );
    let modes: &[Mode] = if std::env::var("DIFF_PREPARED").as_deref() == Ok("1") {
        &[Mode::Text, Mode::Prepared]
    } else {
        &[Mode::Text]
    };

    // Install MariaDB data directories in parallel (seconds each); the servers
    // themselves start on this thread, since they die with the thread that spawns them.
    let install_thread = thread::spawn(move || self_check.then(MariaDbInstall::new));
    let reference = MariaDb::start();
    let subject = match install_thread
        .join()
        .expect("install MariaDB data directory")
    {
        Some(install) => Server::MariaDb(install.start_with(&[])),
        None => Server::Manycore(ManycoreServer::start()),
    };

    let mut mismatches = Vec::new();
    let mut statement_count = 0;
    for path in &files {
        let file = path
            .file_name()
            .expect("file name")
            .to_string_lossy()
            .into_owned();
        let text = fs::read_to_string(path).expect("read sql file");
        let statements = parse_sql_file(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        for &mode in modes {
            let mismatches_before = mismatches.len();
            let database = format!("diff_{}", file.trim_end_matches(".sql").replace('-', "_"));
            let mut reference_conn = fresh_database(reference.port(), &database)
                .unwrap_or_else(|e| panic!("reference MariaDB: {e}"));
            let mut subject_conn = match fresh_database(subject.port(), &database) {
                Ok(conn) => conn,
                Err(e) => {
                    mismatches.push(Mismatch {
                        file: file.clone(),
                        statement: Statement {
                            sql: "(setup)".into(),
                            line: 0,
                            skip_result: false,
                            ordered: None,
                        },
                        mode,
                        diff: format!("cannot set up database {database} on the subject: {e}"),
                    });
                    continue;
                }
            };
            for statement in &statements {
                statement_count += 1;
                let expected = execute(&mut reference_conn, &statement.sql, mode);
                if let Outcome::Broken(why) = &expected {
                    panic!("{file}:{}: reference MariaDB failed: {why}", statement.line);
                }
                if dump {
                    eprintln!(
                        "--- {file}:{}\n{}\n{}",
                        statement.line,
                        statement.sql,
                        render(&expected)
                    );
                }
                let actual = execute(&mut subject_conn, &statement.sql, mode);
                if let Some(diff) = compare(statement, &expected, &actual) {
                    mismatches.push(Mismatch {
                        file: file.clone(),
                        statement: statement.clone(),
                        mode,
                        diff,
                    });
                }
                if let Outcome::Broken(_) = actual {
                    // The connection is gone; later statements of this file would only
                    // repeat the failure. Move on to the next file.
                    break;
                }
            }
            let _ = reference_conn.query_drop(format!("DROP DATABASE IF EXISTS {database}"));
            let _ = subject_conn.query_drop(format!("DROP DATABASE IF EXISTS {database}"));
            eprintln!(
                "differential: {file} ({mode:?}): {} statements, {} mismatches",
                statements.len(),
                mismatches.len() - mismatches_before
            );
        }
    }

    eprintln!(
        "differential: {} files, {statement_count} statements, {} mismatches ({})",
        files.len(),
        mismatches.len(),
        if self_check {
            "MariaDB vs MariaDB"
        } else {
            "MariaDB vs manycore"
        }
    );
    if !mismatches.is_empty() {
        let mut report = String::new();
        for m in &mismatches {
            report.push_str(&format!(
                "\n=== {}:{} ({:?} protocol)\n{}\n{}",
                m.file, m.statement.line, m.mode, m.statement.sql, m.diff
            ));
        }
        if !subject.is_alive() {
            report.push_str(&format!(
                "\nthe subject server died; its output:\n{}",
                subject.log_tail()
            ));
        }
        panic!(
            "{} statements differ from MariaDB:{report}",
            mismatches.len()
        );
    }
}
