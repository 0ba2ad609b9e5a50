//! Differential SQL: the same statements on two servers, outcomes compared.
//!
//! A SQL file is a list of statements, each ending with `;` at the end of a line, or with
//! the delimiter a `DELIMITER <text>` line sets (as the mariadb client reads it: CREATE
//! TRIGGER bodies hold `;`).
//! Lines starting with `--` are comments; a comment of the form `-- diff: <flag>`
//! applies to the next statement:
//!   `skip-result`  compare only success or error code (output legitimately differs);
//!   `ordered`      compare rows in order even without ORDER BY;
//!   `unordered`    compare rows as multisets even with ORDER BY (e.g. ties).
//!
//! Invariants:
//! (1) An outcome is everything a client can observe of one statement: the error
//!     (code and SQLSTATE), or per result set the column names and types, the rows
//!     as text, affected rows, last insert id, warning count and info string.
//! (2) Rows are compared in order when the statement has ORDER BY, or is a SHOW or
//!     DESCRIBE whose order is defined (columns, keys); otherwise sorted first.
//! (3) Error messages are reported but not compared: codes and SQLSTATEs are the
//!     contract, messages may differ in wording.

use std::fmt::Write as _;

use mysql::consts::ColumnType;
use mysql::prelude::{Protocol, Queryable};
use mysql::{Conn, QueryResult, Value};

/// One statement of a SQL file, with the directives that apply to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    pub sql: String,
    /// 1-based line of the statement's first line.
    pub line: usize,
    pub skip_result: bool,
    /// None: decided by invariant (2).
    pub ordered: Option<bool>,
}

impl Statement {
    /// Whether rows are compared in order (invariant 2).
    pub fn is_ordered(&self) -> bool {
        if let Some(ordered) = self.ordered {
            return ordered;
        }
        let upper = self.sql.to_ascii_uppercase();
        let words: Vec<&str> = upper.split_whitespace().collect();
        let joined = words.join(" ");
        if joined.contains("ORDER BY") {
            return true;
        }
        match words.first().copied() {
            Some("DESCRIBE") | Some("DESC") | Some("EXPLAIN") => true,
            Some("SHOW") => !matches!(
                words.get(1).copied(),
                Some("TABLES")
                    | Some("DATABASES")
                    | Some("FULL")
                    | Some("VARIABLES")
                    | Some("STATUS")
                    | Some("SESSION")
                    | Some("GLOBAL")
            ),
            _ => false,
        }
    }
}

/// Splits a SQL file into statements (see the module comment for the format).
pub fn parse_sql_file(text: &str) -> Result<Vec<Statement>, String> {
    let mut statements = Vec::new();
    let mut current = String::new();
    let mut start_line = 0;
    let mut skip_result = false;
    let mut ordered = None;
    let mut delimiter = ";".to_string();
    for (index, raw) in text.lines().enumerate() {
        let line = raw.trim_end();
        let trimmed = line.trim_start();
        if current.is_empty() {
            if trimmed.is_empty() {
                continue;
            }
            if let Some(new) = trimmed.strip_prefix("DELIMITER ") {
                delimiter = new.trim().to_string();
                continue;
            }
            if let Some(comment) = trimmed.strip_prefix("--") {
                if let Some(flags) = comment.trim().strip_prefix("diff:") {
                    for flag in flags.split([',', ' ']).filter(|f| !f.is_empty()) {
                        match flag {
                            "skip-result" => skip_result = true,
                            "ordered" => ordered = Some(true),
                            "unordered" => ordered = Some(false),
                            other => {
                                return Err(format!(
                                    "line {}: unknown directive {other}",
                                    index + 1
                                ))
                            }
                        }
                    }
                }
                continue;
            }
            start_line = index + 1;
        } else if trimmed.starts_with("--") {
            continue;
        }
        if !current.is_empty() {
            current.push('\n');
        }
        current.push_str(line);
        if let Some(sql) = current.trim_end().strip_suffix(delimiter.as_str()) {
            statements.push(Statement {
                sql: sql.trim().to_string(),
                line: start_line,
                skip_result,
                ordered,
            });
            current.clear();
            skip_result = false;
            ordered = None;
        }
    }
    if !current.trim().is_empty() {
        return Err(format!(
            "line {start_line}: statement without a terminating ';'"
        ));
    }
    Ok(statements)
}

/// What a client observes of one result set (invariant 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetOutcome {
    pub columns: Vec<(String, String)>,
    pub rows: Vec<Vec<String>>,
    pub affected_rows: u64,
    pub last_insert_id: Option<u64>,
    pub warnings: u16,
    pub info: String,
}

/// What a client observes of one statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Ok(Vec<SetOutcome>),
    Error {
        code: u16,
        state: String,
        message: String,
    },
    /// Not a server error: the connection broke or the driver failed.
    Broken(String),
}

/// Text protocol (COM_QUERY) or binary protocol (COM_STMT_PREPARE + EXECUTE).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Text,
    Prepared,
}

/// Runs `sql` on `conn` and records everything observable.
pub fn execute(conn: &mut Conn, sql: &str, mode: Mode) -> Outcome {
    let result = match mode {
        Mode::Text => conn
            .query_iter(sql)
            .map_err(outcome_of_error)
            .and_then(collect),
        Mode::Prepared => conn
            .exec_iter(sql, ())
            .map_err(outcome_of_error)
            .and_then(collect),
    };
    match result {
        Ok(mut sets) => {
            // The driver keeps the packet that ended the last result set's rows on the
            // connection, not on the result; its warning count belongs to that set.
            if let Some(last) = sets.last_mut().filter(|set| !set.columns.is_empty()) {
                last.warnings = conn.warnings();
                last.info = conn.info_str().into_owned();
            }
            Outcome::Ok(sets)
        }
        Err(outcome) => outcome,
    }
}

fn outcome_of_error(error: mysql::Error) -> Outcome {
    match error {
        mysql::Error::MySqlError(e) => Outcome::Error {
            code: e.code,
            state: e.state,
            message: e.message,
        },
        other => Outcome::Broken(other.to_string()),
    }
}

fn collect<T: Protocol>(
    mut result: QueryResult<'_, '_, '_, T>,
) -> Result<Vec<SetOutcome>, Outcome> {
    let mut sets = Vec::new();
    while let Some(mut set) = result.iter() {
        // An OK-only set's counters must be read before iterating moves past it.
        let mut outcome = SetOutcome {
            columns: set
                .columns()
                .as_ref()
                .iter()
                .map(|c| (c.name_str().into_owned(), type_name(c.column_type())))
                .collect(),
            rows: Vec::new(),
            affected_rows: set.affected_rows(),
            last_insert_id: set.last_insert_id(),
            warnings: set.warnings(),
            info: set.info_str().into_owned(),
        };
        for row in set.by_ref() {
            let row = row.map_err(outcome_of_error)?;
            outcome
                .rows
                .push(row.unwrap().into_iter().map(value_text).collect());
        }
        sets.push(outcome);
    }
    Ok(sets)
}

fn type_name(column_type: ColumnType) -> String {
    format!("{column_type:?}")
        .trim_start_matches("MYSQL_TYPE_")
        .to_string()
}

/// A value as text: the text protocol's bytes, or the binary protocol's typed value
/// printed canonically. Bytes that are not UTF-8 print as hex.
pub fn value_text(value: Value) -> String {
    match value {
        Value::NULL => "NULL".to_string(),
        Value::Bytes(bytes) => match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => {
                let mut hex = String::from("0x");
                for byte in e.as_bytes() {
                    let _ = write!(hex, "{byte:02X}");
                }
                hex
            }
        },
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Float(f) => format!("{f:?}f32"),
        Value::Double(d) => format!("{d:?}"),
        Value::Date(y, mo, d, h, mi, s, us) => {
            format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}.{us:06}")
        }
        Value::Time(neg, d, h, m, s, us) => {
            format!(
                "{}{d}d {h:02}:{m:02}:{s:02}.{us:06}",
                if neg { "-" } else { "" }
            )
        }
    }
}

/// Compares two outcomes of `statement`; None if they agree, else a readable diff.
pub fn compare(statement: &Statement, reference: &Outcome, subject: &Outcome) -> Option<String> {
    let same = match (reference, subject) {
        (Outcome::Ok(a), Outcome::Ok(b)) if statement.skip_result => a.len() == b.len(),
        (Outcome::Ok(a), Outcome::Ok(b)) => {
            let ordered = statement.is_ordered();
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|(x, y)| normalized(x, ordered) == normalized(y, ordered))
        }
        (
            Outcome::Error {
                code: c1,
                state: s1,
                ..
            },
            Outcome::Error {
                code: c2,
                state: s2,
                ..
            },
        ) => c1 == c2 && s1 == s2,
        _ => false,
    };
    if same {
        return None;
    }
    Some(format!(
        "{}--- reference (MariaDB)\n{}--- subject\n{}",
        differing_fields(statement, reference, subject),
        render(reference),
        render(subject)
    ))
}

/// A one-line summary of what differs, so a long report reads quickly.
fn differing_fields(statement: &Statement, reference: &Outcome, subject: &Outcome) -> String {
    let (Outcome::Ok(a), Outcome::Ok(b)) = (reference, subject) else {
        return String::new();
    };
    if a.len() != b.len() {
        return format!(
            "differs in: result set count ({} vs {})\n",
            a.len(),
            b.len()
        );
    }
    let ordered = statement.is_ordered();
    let mut fields = Vec::new();
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (normalized(x, ordered), normalized(y, ordered));
        let names = |s: &SetOutcome| s.columns.iter().map(|c| c.0.clone()).collect::<Vec<_>>();
        let types = |s: &SetOutcome| s.columns.iter().map(|c| c.1.clone()).collect::<Vec<_>>();
        for (field, differs) in [
            ("column names", names(&x) != names(&y)),
            ("column types", types(&x) != types(&y)),
            ("rows", x.rows != y.rows),
            ("affected rows", x.affected_rows != y.affected_rows),
            ("last insert id", x.last_insert_id != y.last_insert_id),
            ("warning count", x.warnings != y.warnings),
            ("info", x.info != y.info),
        ] {
            if differs && !fields.contains(&field) {
                fields.push(field);
            }
        }
    }
    format!("differs in: {}\n", fields.join(", "))
}

fn normalized(set: &SetOutcome, ordered: bool) -> SetOutcome {
    let mut set = set.clone();
    if !ordered {
        set.rows.sort();
    }
    set
}

/// A multi-line rendering of an outcome for mismatch reports.
pub fn render(outcome: &Outcome) -> String {
    const ROWS_SHOWN_MAX: usize = 50;
    let mut out = String::new();
    match outcome {
        Outcome::Error {
            code,
            state,
            message,
        } => {
            let _ = writeln!(out, "  ERROR {code} ({state}): {message}");
        }
        Outcome::Broken(why) => {
            let _ = writeln!(out, "  CONNECTION/DRIVER FAILURE: {why}");
        }
        Outcome::Ok(sets) => {
            for set in sets {
                if !set.columns.is_empty() {
                    let columns: Vec<String> = set
                        .columns
                        .iter()
                        .map(|(name, ty)| format!("{name}:{ty}"))
                        .collect();
                    let _ = writeln!(out, "  columns: {}", columns.join(" | "));
                    for row in set.rows.iter().take(ROWS_SHOWN_MAX) {
                        let _ = writeln!(out, "  row: {}", row.join(" | "));
                    }
                    if set.rows.len() > ROWS_SHOWN_MAX {
                        let _ = writeln!(out, "  ... {} rows in all", set.rows.len());
                    }
                }
                let _ = writeln!(
                    out,
                    "  affected_rows={} last_insert_id={:?} warnings={} info={:?}",
                    set.affected_rows, set.last_insert_id, set.warnings, set.info
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_split_at_semicolons_at_line_end() {
        let text = "-- a comment\nSELECT 1;\n\n-- diff: skip-result\nSELECT\n  NOW()\n  -- inside\n;\n-- diff: ordered\nSELECT 'a;b' ;\n";
        let statements = parse_sql_file(text).expect("valid file");
        assert_eq!(statements.len(), 3);
        assert_eq!(statements[0].sql, "SELECT 1");
        assert_eq!(statements[0].line, 2);
        assert!(!statements[0].skip_result);
        assert_eq!(statements[1].sql, "SELECT\n  NOW()");
        assert!(statements[1].skip_result);
        assert_eq!(statements[1].line, 5);
        assert_eq!(statements[2].sql, "SELECT 'a;b'");
        assert_eq!(statements[2].ordered, Some(true));
        assert_eq!(statements[1].ordered, None);
    }

    #[test]
    fn unterminated_statement_and_unknown_directive_are_errors() {
        assert!(parse_sql_file("SELECT 1").is_err());
        assert!(parse_sql_file("-- diff: sometimes\nSELECT 1;").is_err());
        let with_delimiter =
            parse_sql_file("DELIMITER //\nCREATE x BEGIN a; b; END//\nDELIMITER ;\nSELECT 1;")
                .expect("parses");
        let sql: Vec<&str> = with_delimiter.iter().map(|s| s.sql.as_str()).collect();
        assert_eq!(sql, ["CREATE x BEGIN a; b; END", "SELECT 1"]);
    }

    #[test]
    fn order_is_compared_only_where_defined() {
        let statement = |sql: &str| Statement {
            sql: sql.into(),
            line: 1,
            skip_result: false,
            ordered: None,
        };
        assert!(statement("select a from t order\n by a").is_ordered());
        assert!(!statement("SELECT a FROM t").is_ordered());
        assert!(statement("SHOW COLUMNS FROM t").is_ordered());
        assert!(!statement("SHOW TABLES").is_ordered());
    }

    #[test]
    fn unordered_rows_compare_as_multisets() {
        let set = |rows: &[&str]| SetOutcome {
            columns: vec![("a".into(), "LONG".into())],
            rows: rows.iter().map(|r| vec![r.to_string()]).collect(),
            affected_rows: 0,
            last_insert_id: None,
            warnings: 0,
            info: String::new(),
        };
        let select = Statement {
            sql: "SELECT a FROM t".into(),
            line: 1,
            skip_result: false,
            ordered: None,
        };
        let a = Outcome::Ok(vec![set(&["1", "2"])]);
        let b = Outcome::Ok(vec![set(&["2", "1"])]);
        assert!(compare(&select, &a, &b).is_none());
        let ordered = Statement {
            sql: "SELECT a FROM t ORDER BY a".into(),
            ..select
        };
        assert!(compare(&ordered, &a, &b).is_some());
    }
}
