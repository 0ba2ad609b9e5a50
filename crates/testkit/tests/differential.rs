//! Differential SQL test: every file in `tests/sql/*.sql` runs on a throwaway
//! MariaDB (the reference) and on manycore (the subject); every statement's
//! outcome must agree (see `manycore_testkit::differential`).
//!
//! Env:
//!   DIFF_AGAINST=mariadb  the subject is a second MariaDB: a self-check that the
//!                         files are deterministic, so any later mismatch is a
//!                         manycore bug, not a flaky statement.
//!   DIFF_FILTER=text      only files whose name contains `text`.
//!   DIFF_PREPARED=0       skip the second pass through prepared statements.
//!   DIFF_DUMP=1           print every statement with MariaDB's outcome (to review files).
//!   DIFF_WRITE_KNOWN=1    rewrite tests/sql/known-mismatches.txt from this run.
//!
//! Files on the server: each server starts with a --secure-file-priv directory of its own
//! (emptied before each file's pass), and `$FILES` in a statement is replaced by that
//! directory's path (no trailing '/') before the statement is sent, so a file can write
//! `'$FILES/x.txt'` with SELECT ... INTO OUTFILE and read it back with LOAD DATA INFILE or
//! LOAD_FILE() on both servers.
//!
//! Every file runs twice: through the text protocol, then through prepared statements
//! (binary protocol; the driver caches statements by text, so a repeated statement is
//! executed again, not prepared again, as applications do).
//!
//! Known mismatches: `tests/sql/known-mismatches.txt` lists (as `file:line fields`, or
//! `file:line/prepared fields` for the prepared pass) the statements whose outcome is
//! known to differ from MariaDB, each a bug to fix. The test fails on any mismatch not in
//! the list (a regression) and on any listed statement that now agrees (so the list only
//! shrinks). It is a ratchet, not a waiver: the goal is an empty file.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::thread;

use manycore_testkit::client::opts;
use manycore_testkit::differential::{
    compare, execute, parse_sql_file, render, Mode, Outcome, Statement,
};
use manycore_testkit::mariadb::MariaDbInstall;
use manycore_testkit::process::ScratchDir;
use manycore_testkit::{ManycoreServer, MariaDb, Server};
use mysql::prelude::Queryable;
use mysql::{Conn, LocalInfileHandler, Opts};

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

/// A connection with a fresh, selected database `name`. LOAD DATA LOCAL INFILE 'f' sends
/// `tests/sql/data/f` (the same bytes to both servers).
fn fresh_database(port: u16, name: &str) -> Result<Conn, String> {
    let mut conn = Conn::new(Opts::from(opts(port, None))).map_err(|e| e.to_string())?;
    conn.set_local_infile_handler(Some(LocalInfileHandler::new(|name, stream| {
        let name = String::from_utf8_lossy(name);
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/sql/data");
        // A bare file name: the statement cannot send any file of this machine.
        let path = dir.join(Path::new(name.as_ref()).file_name().unwrap_or_default());
        let bytes = fs::read(&path)
            .unwrap_or_else(|e| panic!("LOAD DATA LOCAL of {}: {e}", path.display()));
        std::io::Write::write_all(stream, &bytes)
    })));
    for sql in [
        format!("DROP DATABASE IF EXISTS {name}"),
        format!("CREATE DATABASE {name}"),
        format!("USE {name}"),
    ] {
        conn.query_drop(&sql).map_err(|e| format!("{sql}: {e}"))?;
    }
    Ok(conn)
}

/// A server's own secure_file_priv directory under `scratch`, as the `$FILES` text.
fn files_directory(scratch: &ScratchDir, server: &str) -> String {
    let dir = scratch.path().join(server);
    fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("create {}: {e}", dir.display()));
    dir.to_str().expect("a UTF-8 temp directory").to_string()
}

fn secure_file_priv_flag(dir: &str) -> String {
    format!("--secure-file-priv={dir}")
}

/// Removes the files an earlier pass wrote, so SELECT ... INTO OUTFILE can write them again.
fn empty_directory(dir: &str) {
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("read {dir}: {e}"));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        fs::remove_file(&path).unwrap_or_else(|e| panic!("remove {}: {e}", path.display()));
    }
}

fn known_mismatches_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/sql/known-mismatches.txt")
}

/// `file:line` -> the differing fields recorded when the entry was written.
fn read_known_mismatches(path: &Path) -> BTreeMap<String, String> {
    let text = fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| match line.split_once(' ') {
            Some((key, fields)) => (key.to_string(), fields.trim().to_string()),
            None => (line.to_string(), String::new()),
        })
        .collect()
}

/// The first line of a mismatch report names the fields that differ.
fn differing_fields_line(diff: &str) -> &str {
    match diff.lines().next().map(str::trim) {
        Some(line) if line.starts_with("differs in") => line,
        _ => "differs in: success or error code",
    }
}

struct Mismatch {
    file: String,
    statement: Statement,
    mode: Mode,
    diff: String,
}

impl Mismatch {
    /// Its entry in known-mismatches.txt (module doc).
    fn key(&self) -> String {
        let suffix = match self.mode {
            Mode::Text => "",
            Mode::Prepared => PREPARED_SUFFIX,
        };
        format!("{}:{}{suffix}", self.file, self.statement.line)
    }
}

const PREPARED_SUFFIX: &str = "/prepared";

#[test]
fn sql_files_agree_with_mariadb() {
    let self_check = std::env::var("DIFF_AGAINST").as_deref() == Ok("mariadb");
    let dump = std::env::var_os("DIFF_DUMP").is_some();
    let files = sql_files();
    assert!(
        !files.is_empty(),
        "no tests/sql/*.sql files matched DIFF_FILTER"
    );
    let modes: &[Mode] = if std::env::var("DIFF_PREPARED").as_deref() == Ok("0") {
        &[Mode::Text]
    } else {
        &[Mode::Text, Mode::Prepared]
    };

    // Install MariaDB data directories in parallel (seconds each); the servers
    // themselves start on this thread, since they die with the thread that spawns them.
    let install_thread = thread::spawn(move || self_check.then(MariaDbInstall::new));
    let server_files = ScratchDir::new("differential-files");
    let reference_files = files_directory(&server_files, "reference");
    let subject_files = files_directory(&server_files, "subject");
    let reference = MariaDb::start_with(&[&secure_file_priv_flag(&reference_files)]);
    let subject = match install_thread
        .join()
        .expect("install MariaDB data directory")
    {
        Some(install) => {
            Server::MariaDb(install.start_with(&[&secure_file_priv_flag(&subject_files)]))
        }
        None => Server::Manycore(ManycoreServer::start_with(&[
            "--secure-file-priv",
            &subject_files,
        ])),
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
            empty_directory(&reference_files);
            empty_directory(&subject_files);
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
                let reference_sql = statement.sql.replace("$FILES", &reference_files);
                let expected = execute(&mut reference_conn, &reference_sql, mode);
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
                let subject_sql = statement.sql.replace("$FILES", &subject_files);
                let actual = execute(&mut subject_conn, &subject_sql, mode);
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
    // The ratchet (module doc) applies to runs against manycore.
    let ratchet = !self_check;
    let known = read_known_mismatches(&known_mismatches_path());
    if ratchet && std::env::var_os("DIFF_WRITE_KNOWN").is_some() {
        let mut text = String::from(
            "# Statements of tests/sql whose outcome on manycore still differs from MariaDB\n\
             # 10.11 (`file:line` in the text protocol, `file:line/prepared` through\n\
             # prepared statements): bugs to fix, not accepted behaviour. The differential\n\
             # test fails on any mismatch missing here and on any entry that now agrees.\n\
             # Regenerate with DIFF_WRITE_KNOWN=1 after fixing some.\n",
        );
        for m in &mismatches {
            let fields = differing_fields_line(&m.diff);
            text.push_str(&format!("{} {fields}\n", m.key()));
        }
        fs::write(known_mismatches_path(), text).expect("write known-mismatches.txt");
    }
    let ran_files: Vec<String> = files
        .iter()
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    let mut still_known = 0;
    if ratchet {
        let found: std::collections::BTreeSet<String> =
            mismatches.iter().map(Mismatch::key).collect();
        let ran_prepared = modes.contains(&Mode::Prepared);
        let fixed: Vec<&String> = known
            .keys()
            .filter(|key| ran_files.iter().any(|f| key.starts_with(&format!("{f}:"))))
            .filter(|key| ran_prepared || !key.ends_with(PREPARED_SUFFIX))
            .filter(|key| !found.contains(*key))
            .collect();
        assert!(
            fixed.is_empty() || std::env::var_os("DIFF_WRITE_KNOWN").is_some(),
            "these known mismatches now agree with MariaDB; remove them from \
             tests/sql/known-mismatches.txt (or rerun with DIFF_WRITE_KNOWN=1): {fixed:?}"
        );
        let before = mismatches.len();
        mismatches.retain(|m| !known.contains_key(&m.key()));
        still_known = before - mismatches.len();
    }
    eprintln!(
        "differential: {still_known} known mismatches remain (tests/sql/known-mismatches.txt)"
    );
    if !mismatches.is_empty() && std::env::var_os("DIFF_WRITE_KNOWN").is_none() {
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
