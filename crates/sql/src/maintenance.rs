//! CHECK, ANALYZE, OPTIMIZE and REPAIR TABLE: MariaDB's table maintenance statements,
//! which `mariadb-check` sends. Each answers one result set with MariaDB's columns (Table,
//! Op, Msg_type, Msg_text) and rows for each named table, in the order named.
//!
//! What each does here:
//! - CHECK looks up every row a fresh snapshot sees through every index of its table
//!   (`Table::check`): `status OK`, or `error` rows naming the first row an index lost,
//!   then `Corrupt`, as MariaDB reports a damaged table.
//! - ANALYZE answers `status OK`: the planner keeps no statistics to refresh (InnoDB
//!   recomputes its estimates; MariaDB's answer for it is the same).
//! - OPTIMIZE runs the garbage collector, which frees what old row versions and stale
//!   index entries hold, and answers `status OK`. The collector sweeps every table, so a
//!   statement naming several runs it once, after its rows are made. MariaDB rebuilds an
//!   InnoDB table and says `Table does not support optimize, doing recreate + analyze
//!   instead` first; manycore rebuilds nothing, so it does not say so.
//! - REPAIR changes nothing and says so as MariaDB does for InnoDB: the engine does not
//!   support repair.
//!
//! CHECK of a view binds it, as reading it would: `status OK`, or, when a table or column
//! it reads is gone, MariaDB's rows: the error that made it invalid, the 1356, `Corrupt`.
//!
//! As in MariaDB, a missing table, or a view where a base table is needed, is not an
//! error of the statement: its rows say `Error` and `Operation failed`, and the other
//! tables are still done. Privileges, a missing database name and a table named twice
//! are errors of the whole statement, found before any table is done.

use crate::error::{Error, ErrorCode, Result};
use crate::information_schema;
use crate::privilege::{AccessCheck, Privileges};
use crate::show::{text, Rows};
use crate::sink::ColumnInfo;
use crate::temporary::TemporaryTables;
use manycore_storage::{ReaderSlot, Storage};
use manycore_types::{DataType, LobSize};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation {
    Check,
    Analyze,
    Optimize,
    Repair,
}

impl Operation {
    /// The Op column: the operation in lower case.
    fn shown(self) -> &'static str {
        match self {
            Operation::Check => "check",
            Operation::Analyze => "analyze",
            Operation::Optimize => "optimize",
            Operation::Repair => "repair",
        }
    }

    /// What MariaDB requires on each table: CHECK reads it, the others change it.
    fn needs(self) -> Privileges {
        match self {
            Operation::Check => Privileges::SELECT,
            _ => Privileges::SELECT | Privileges::INSERT,
        }
    }
}

/// The tables of one statement, each as (database, table name) as written, with the
/// session's database for unqualified names.
pub type Named = Vec<(String, String)>;

/// 1046 without a database for an unqualified name, 1066 for a table named twice, 1142
/// (or 1044 for information_schema) without the operation's privileges on every table.
/// (CHECKSUM TABLE's too: it needs what CHECK needs.) The session's temporary tables
/// need none.
pub fn check_names(
    operation: Operation,
    tables: &Named,
    access: &AccessCheck<'_>,
    temporary: &TemporaryTables,
) -> Result<()> {
    for (i, (db, table)) in tables.iter().enumerate() {
        if tables[..i].iter().any(|(d, t)| d == db && t == table) {
            return Err(Error::new(
                ErrorCode::NonUniqTable,
                format!("Not unique table/alias: '{table}'"),
            ));
        }
        if temporary.get(db, table).is_some() {
            continue;
        }
        access.table(db, table, operation.needs())?;
    }
    Ok(())
}

/// Does `operation` on each table (the session's temporary table of a name first) and
/// returns the rows MariaDB's statement answers.
pub fn run(
    operation: Operation,
    tables: &Named,
    storage: &Arc<Storage>,
    reader: &ReaderSlot,
    access: AccessCheck<'_>,
    temporary: &TemporaryTables,
) -> Rows {
    let mut rows = Vec::new();
    let mut collect_garbage = false;
    for (db, table) in tables {
        let name = format!("{db}.{table}");
        let mut row = |kind: &str, message: &str| {
            rows.push(vec![
                text(&name),
                text(operation.shown()),
                text(kind),
                text(message),
            ]);
        };
        let catalog = storage.catalog();
        if information_schema::is_name(db) {
            // Its tables are made when read; only CHECK gets this far (privileges).
            row(
                "note",
                "The storage engine for the table doesn't support check",
            );
            continue;
        }
        let database = catalog.databases.get(db.as_str());
        let found = temporary
            .get(db, table)
            .or_else(|| database.and_then(|d| d.tables.get(table.as_str())));
        let view = database.and_then(|d| d.views.get(table.as_str()));
        let Some(found) = found else {
            match view {
                Some(view) if operation == Operation::Check => {
                    match crate::view::check(&catalog, access, db, view) {
                        Ok(()) => row("status", "OK"),
                        // As MariaDB: what made it invalid, then the 1356, then Corrupt.
                        Err(e) => {
                            if let Some(cause) = &e.cause {
                                row("Error", &cause.message);
                            }
                            row("Error", &e.message);
                            row("error", "Corrupt");
                        }
                    }
                }
                Some(_) => {
                    row("Error", &format!("'{name}' is not of type 'BASE TABLE'"));
                    row("status", "Operation failed");
                }
                None => {
                    row("Error", &Error::no_such_table(db, table).message);
                    row("status", "Operation failed");
                }
            }
            continue;
        };
        match operation {
            Operation::Check => {
                let snapshot = storage.begin(reader);
                match found.check(&snapshot.view()) {
                    Ok(_) => row("status", "OK"),
                    Err(problem) => {
                        row("error", &problem);
                        row("error", "Corrupt");
                    }
                }
            }
            Operation::Analyze => row("status", "OK"),
            Operation::Optimize => {
                collect_garbage = true;
                row("status", "OK");
            }
            Operation::Repair => row(
                "note",
                "The storage engine for the table doesn't support repair",
            ),
        }
    }
    if collect_garbage {
        storage.collect_garbage();
    }
    Rows {
        columns: vec![
            ColumnInfo::text("Table", 128),
            ColumnInfo::text("Op", 10),
            ColumnInfo::text("Msg_type", 10),
            ColumnInfo::expression("Msg_text", DataType::text(LobSize::Medium), true),
        ],
        rows,
    }
}
