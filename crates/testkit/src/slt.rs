//! sqllogictest: SQLite's test-script format, run over the wire as SQLite's
//! reference runner would (rules in `../shared/slt/README.md`).
//!
//! Format: records separated by blank lines. `statement ok|error` + SQL;
//! `query <type letters> [nosort|rowsort|valuesort] [label]` + SQL + `----` +
//! expected values (one per line, or `N values hashing to <md5>`); `hash-threshold N`;
//! `halt`; `skipif <engine>` / `onlyif <engine>` before a record; `#` comments.
//!
//! Invariants:
//! (1) Values are converted by their column's type letter before comparing:
//!     `I` integer truncated toward zero, `R` `%.3f`, `T` text with `(empty)` for
//!     the empty string and `@` for bytes outside 0x20..=0x7E; NULL is `NULL`.
//! (2) A result of more than `hash-threshold` values is compared by the MD5 of the
//!     values, each followed by `\n`, after sorting.
//! (3) Our engine label is `mysql`: `skipif mysql` skips, `onlyif <other>` skips.
//! (4) A failed record never stops the file; every record is counted as passed,
//!     failed or skipped.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use md5::{Digest, Md5};
use mysql::prelude::Queryable;
use mysql::{Conn, Value};

/// The engine name `skipif`/`onlyif` conditions are matched against.
pub const ENGINE: &str = "mysql";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortMode {
    NoSort,
    RowSort,
    ValueSort,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    Values(Vec<String>),
    Hash { count: usize, md5: String },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordKind {
    Statement {
        expect_error: bool,
    },
    Query {
        types: String,
        sort: SortMode,
        expected: Expected,
    },
    HashThreshold(usize),
    Halt,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub kind: RecordKind,
    pub sql: String,
    /// 1-based line of the record's first line (its conditions included).
    pub line: usize,
    /// False if a `skipif`/`onlyif` condition excludes our engine (invariant 3).
    pub for_us: bool,
}

/// Parses a test script; malformed records are returned as errors with their line.
pub fn parse(text: &str) -> Result<Vec<Record>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut records = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_end();
        if line.trim().is_empty() || line.starts_with('#') {
            i += 1;
            continue;
        }
        let start = i + 1;
        let mut for_us = true;
        while let Some(condition) = condition_of(lines.get(i).copied().unwrap_or("")) {
            let (only, engine) = condition;
            if (only && engine != ENGINE) || (!only && engine == ENGINE) {
                for_us = false;
            }
            i += 1;
        }
        let header = lines.get(i).copied().unwrap_or("").trim_end();
        let words: Vec<&str> = header.split_whitespace().collect();
        i += 1;
        let kind = match words.first().copied() {
            Some("hash-threshold") => {
                let n = words.get(1).and_then(|n| n.parse().ok());
                let n = n.ok_or_else(|| format!("line {}: bad hash-threshold", i))?;
                records.push(Record {
                    kind: RecordKind::HashThreshold(n),
                    sql: String::new(),
                    line: start,
                    for_us,
                });
                continue;
            }
            Some("halt") => {
                records.push(Record {
                    kind: RecordKind::Halt,
                    sql: String::new(),
                    line: start,
                    for_us,
                });
                continue;
            }
            Some("statement") => match words.get(1).copied() {
                Some("ok") => RecordKind::Statement {
                    expect_error: false,
                },
                Some("error") => RecordKind::Statement { expect_error: true },
                _ => return Err(format!("line {i}: bad statement header {header:?}")),
            },
            Some("query") => {
                let types = words.get(1).copied().unwrap_or("").to_string();
                let sort = match words.get(2).copied() {
                    Some("rowsort") => SortMode::RowSort,
                    Some("valuesort") => SortMode::ValueSort,
                    _ => SortMode::NoSort,
                };
                RecordKind::Query {
                    types,
                    sort,
                    expected: Expected::Values(Vec::new()),
                }
            }
            _ => return Err(format!("line {i}: unknown record {header:?}")),
        };
        let mut sql_lines = Vec::new();
        while i < lines.len() && !lines[i].trim().is_empty() && lines[i].trim_end() != "----" {
            sql_lines.push(lines[i].trim_end());
            i += 1;
        }
        let mut expected_lines = Vec::new();
        if i < lines.len() && lines[i].trim_end() == "----" {
            i += 1;
            while i < lines.len() && !lines[i].trim().is_empty() {
                expected_lines.push(lines[i].trim_end().to_string());
                i += 1;
            }
        }
        let kind = match kind {
            RecordKind::Query { types, sort, .. } => RecordKind::Query {
                types,
                sort,
                expected: expected_of(expected_lines),
            },
            other => other,
        };
        records.push(Record {
            kind,
            sql: sql_lines.join("\n"),
            line: start,
            for_us,
        });
    }
    Ok(records)
}

/// `skipif x` -> (false, x); `onlyif x` -> (true, x). Trailing comments are allowed.
fn condition_of(line: &str) -> Option<(bool, &str)> {
    let mut words = line.split_whitespace();
    let only = match words.next()? {
        "skipif" => false,
        "onlyif" => true,
        _ => return None,
    };
    Some((only, words.next().unwrap_or("")))
}

fn expected_of(lines: Vec<String>) -> Expected {
    if let [only] = lines.as_slice() {
        let words: Vec<&str> = only.split_whitespace().collect();
        if let [count, "values", "hashing", "to", md5] = words.as_slice() {
            if let Ok(count) = count.parse() {
                return Expected::Hash {
                    count,
                    md5: md5.to_string(),
                };
            }
        }
    }
    Expected::Values(lines)
}

/// Converts one value by its column's type letter (invariant 1).
pub fn format_value(value: &Value, type_letter: char) -> String {
    let text = match value {
        Value::NULL => return "NULL".to_string(),
        Value::Bytes(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        other => crate::differential::value_text(other.clone()),
    };
    match type_letter {
        'I' => integer_text(&text),
        'R' => format!("{:.3}", leading_number(&text)),
        _ => {
            if text.is_empty() {
                "(empty)".to_string()
            } else {
                text.chars()
                    .map(|c| if (' '..='~').contains(&c) { c } else { '@' })
                    .collect()
            }
        }
    }
}

/// An integer from a number's text, truncated toward zero, as `atoi`/`strtod` would
/// read the leading number (non-numbers read as 0).
fn integer_text(text: &str) -> String {
    let trimmed = text.trim();
    if let Ok(i) = trimmed.parse::<i128>() {
        return i.to_string();
    }
    let number = leading_number(trimmed).trunc();
    if number == 0.0 {
        "0".to_string()
    } else {
        format!("{number:.0}")
    }
}

/// The longest leading prefix of `text` that parses as a float, else 0.
fn leading_number(text: &str) -> f64 {
    let text = text.trim_start();
    let mut best = 0.0;
    let mut end = 0;
    for (index, c) in text.char_indices() {
        if !(c.is_ascii_digit() || matches!(c, '+' | '-' | '.' | 'e' | 'E')) {
            break;
        }
        end = index + c.len_utf8();
        if let Ok(value) = text[..end].parse::<f64>() {
            best = value;
        }
    }
    let _ = end;
    best
}

/// MD5 of values each followed by `\n`, lower-case hex (invariant 2).
pub fn hash_values(values: &[String]) -> String {
    let mut hasher = Md5::new();
    for value in values {
        hasher.update(value.as_bytes());
        hasher.update(b"\n");
    }
    let mut hex = String::new();
    for byte in hasher.finalize().iter() {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

/// Pass/fail/skip counts of one file, with a description of each failure.
#[derive(Debug, Default, Clone)]
pub struct FileReport {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    pub failures: Vec<String>,
    pub timed_out: bool,
}

/// Records that MySQL cannot run as SQLite wrote them (README rule 4): trigger
/// syntax, `DROP INDEX name` without `ON table`, and writes through a view (MySQL
/// views are updatable, SQLite's are not).
pub fn is_sqlite_only(file_name: &str, sql: &str) -> bool {
    let upper = sql.to_ascii_uppercase();
    match file_name {
        "slt_lang_droptrigger.test" | "slt_lang_createtrigger.test" => upper.contains("TRIGGER"),
        "slt_lang_dropindex.test" => upper.starts_with("DROP INDEX") && !upper.contains(" ON "),
        "slt_lang_createview.test" => {
            let words: Vec<&str> = upper.split_whitespace().collect();
            matches!(
                words.as_slice(),
                ["DELETE", "FROM", "VIEW1", ..]
                    | ["INSERT", "INTO", "VIEW1", ..]
                    | ["UPDATE", "VIEW1", ..]
            )
        }
        _ => false,
    }
}

/// How a file's records reach the server: a connection and a way to make a fresh one.
pub trait Connector {
    /// A new connection with `database` freshly created and selected.
    fn fresh(&self, database: &str) -> Result<Conn, String>;
    /// A new connection to the existing `database` (after a broken connection).
    fn reconnect(&self, database: &str) -> Result<Conn, String>;
}

/// Runs one file's records on a fresh database (invariant 4). `time_limit` bounds
/// the file; records left when it passes are counted as skipped.
pub fn run_file(
    connector: &dyn Connector,
    file_name: &str,
    records: &[Record],
    database: &str,
    time_limit: Duration,
) -> FileReport {
    let mut report = FileReport::default();
    let mut conn = match connector.fresh(database) {
        Ok(conn) => conn,
        Err(e) => {
            report.failed = records.len();
            report
                .failures
                .push(format!("cannot set up database {database}: {e}"));
            return report;
        }
    };
    let started = Instant::now();
    let mut hash_threshold = 0;
    for (index, record) in records.iter().enumerate() {
        if started.elapsed() > time_limit {
            report.timed_out = true;
            report.skipped += records[index..].iter().filter(|r| is_test(r)).count();
            break;
        }
        if !record.for_us {
            if is_test(record) {
                report.skipped += 1;
            }
            continue;
        }
        match &record.kind {
            RecordKind::HashThreshold(n) => {
                hash_threshold = *n;
                continue;
            }
            RecordKind::Halt => break,
            _ => {}
        }
        if is_sqlite_only(file_name, &record.sql) {
            report.skipped += 1;
            continue;
        }
        match check(&mut conn, record, hash_threshold) {
            Ok(()) => report.passed += 1,
            Err(failure) => {
                report.failed += 1;
                report
                    .failures
                    .push(format!("{file_name}:{}: {failure}", record.line));
                if failure.broken {
                    match connector.reconnect(database) {
                        Ok(fresh) => conn = fresh,
                        Err(e) => {
                            report.failures.push(format!("cannot reconnect: {e}"));
                            report.failed +=
                                records[index + 1..].iter().filter(|r| is_test(r)).count();
                            break;
                        }
                    }
                }
            }
        }
    }
    report
}

fn is_test(record: &Record) -> bool {
    matches!(
        record.kind,
        RecordKind::Statement { .. } | RecordKind::Query { .. }
    )
}

#[derive(Debug)]
struct Failure {
    message: String,
    /// The connection is unusable (not a server error).
    broken: bool,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

fn check(conn: &mut Conn, record: &Record, hash_threshold: usize) -> Result<(), Failure> {
    let sql = record.sql.as_str();
    let fail = |message: String, broken: bool| Failure { message, broken };
    match &record.kind {
        RecordKind::Statement { expect_error } => match conn.query_drop(sql) {
            Ok(()) if *expect_error => Err(fail(format!("expected an error: {sql}"), false)),
            Ok(()) => Ok(()),
            Err(mysql::Error::MySqlError(_)) if *expect_error => Ok(()),
            Err(e @ mysql::Error::MySqlError(_)) => Err(fail(format!("{e}: {sql}"), false)),
            Err(e) => Err(fail(format!("connection failed: {e}: {sql}"), true)),
        },
        RecordKind::Query {
            types,
            sort,
            expected,
        } => {
            let rows: Vec<mysql::Row> = match conn.query(sql) {
                Ok(rows) => rows,
                Err(e @ mysql::Error::MySqlError(_)) => {
                    return Err(fail(format!("{e}: {sql}"), false))
                }
                Err(e) => return Err(fail(format!("connection failed: {e}: {sql}"), true)),
            };
            let letters: Vec<char> = types.chars().collect();
            let mut table: Vec<Vec<String>> = Vec::with_capacity(rows.len());
            for row in rows {
                let values = row.unwrap();
                if values.len() != letters.len() {
                    return Err(fail(
                        format!(
                            "{} columns, expected {}: {sql}",
                            values.len(),
                            letters.len()
                        ),
                        false,
                    ));
                }
                table.push(
                    values
                        .iter()
                        .zip(&letters)
                        .map(|(v, &t)| format_value(v, t))
                        .collect(),
                );
            }
            if *sort == SortMode::RowSort {
                table.sort();
            }
            let mut values: Vec<String> = table.iter().flatten().cloned().collect();
            if *sort == SortMode::ValueSort {
                values.sort();
            }
            compare_values(&values, &table, expected, hash_threshold)
                .map_err(|why| fail(format!("{why}: {sql}"), false))
        }
        RecordKind::HashThreshold(_) | RecordKind::Halt => Ok(()),
    }
}

fn compare_values(
    values: &[String],
    table: &[Vec<String>],
    expected: &Expected,
    hash_threshold: usize,
) -> Result<(), String> {
    match expected {
        Expected::Hash { count, md5 } => {
            let actual = hash_values(values);
            if values.len() == *count && actual == *md5 {
                Ok(())
            } else {
                Err(format!(
                    "got {} values hashing to {actual}, expected {count} hashing to {md5}",
                    values.len()
                ))
            }
        }
        Expected::Values(lines) => {
            // SQLite's files list one value per line; some list a row per line.
            let rows_as_lines: Vec<String> = table.iter().map(|r| r.join(" ")).collect();
            if values == lines.as_slice() || (rows_as_lines == *lines && !table.is_empty()) {
                return Ok(());
            }
            if hash_threshold > 0 && values.len() > hash_threshold && lines.is_empty() {
                return Err(format!("got {} values, expected none", values.len()));
            }
            const SHOWN_MAX: usize = 20;
            Err(format!(
                "got [{}], expected [{}]",
                values
                    .iter()
                    .take(SHOWN_MAX)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", "),
                lines
                    .iter()
                    .take(SHOWN_MAX)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_convert_by_type_letter() {
        let bytes = |s: &str| Value::Bytes(s.as_bytes().to_vec());
        assert_eq!(format_value(&bytes("3.2000"), 'I'), "3");
        assert_eq!(format_value(&bytes("-3.7"), 'I'), "-3");
        assert_eq!(format_value(&bytes("-0.5"), 'I'), "0");
        assert_eq!(format_value(&bytes("42"), 'I'), "42");
        assert_eq!(format_value(&bytes("abc"), 'I'), "0");
        assert_eq!(format_value(&bytes("2"), 'R'), "2.000");
        assert_eq!(format_value(&bytes("-1.23456"), 'R'), "-1.235");
        assert_eq!(format_value(&bytes(""), 'T'), "(empty)");
        assert_eq!(format_value(&bytes("a\tb"), 'T'), "a@b");
        assert_eq!(format_value(&Value::NULL, 'I'), "NULL");
    }

    #[test]
    fn hash_is_md5_of_newline_terminated_values() {
        // md5("1\n2\n")
        assert_eq!(
            hash_values(&["1".into(), "2".into()]),
            "6ddb4095eb719e2a9f0a3f95677d24e0"
        );
    }

    #[test]
    fn records_parse_with_conditions() {
        let text = "hash-threshold 8\n\nskipif mysql\nstatement ok\nCREATE TABLE t(a INT)\n\n\
                    onlyif sqlite\nquery I nosort\nSELECT 1\n----\n1\n\n\
                    query IT rowsort label-1\nSELECT a, b\nFROM t\n----\n9 values hashing to abc\n";
        let records = parse(text).expect("valid script");
        assert_eq!(records.len(), 4);
        assert_eq!(records[0].kind, RecordKind::HashThreshold(8));
        assert!(!records[1].for_us);
        assert!(!records[2].for_us);
        assert_eq!(records[3].sql, "SELECT a, b\nFROM t");
        assert_eq!(
            records[3].kind,
            RecordKind::Query {
                types: "IT".into(),
                sort: SortMode::RowSort,
                expected: Expected::Hash {
                    count: 9,
                    md5: "abc".into()
                }
            }
        );
    }

    #[test]
    fn sqlite_only_cases_are_recognized() {
        assert!(is_sqlite_only(
            "slt_lang_dropindex.test",
            "DROP INDEX t1i1;"
        ));
        assert!(!is_sqlite_only(
            "slt_lang_dropindex.test",
            "DROP INDEX t1i1 ON t1"
        ));
        assert!(is_sqlite_only(
            "slt_lang_createview.test",
            "UPDATE view1 SET x=2"
        ));
        assert!(!is_sqlite_only(
            "slt_lang_createview.test",
            "DROP VIEW view1"
        ));
        assert!(!is_sqlite_only("select1.test", "CREATE TRIGGER x"));
    }
}
