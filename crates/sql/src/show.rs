//! SHOW statements and DESCRIBE: result sets built from the catalog, variables, status
//! counters and the process list, with MariaDB 10.11's column names and layouts.
//!
//! As in MariaDB, SHOW DATABASES, TABLES, TABLE STATUS, INDEX, PROCESSLIST, ENGINES,
//! CHARACTER SET and COLLATION show columns of information_schema's rows
//! (`information_schema`), so what they list and whom they list it to is decided in one
//! place. So do SHOW TRIGGERS, EVENTS and FUNCTION/PROCEDURE/PACKAGE [BODY] STATUS, whose
//! tables are always empty (manycore has none of those objects).

use crate::engine::{Counter, Engine, SessionCounters, TlsInfo};
use crate::expr::TimeZone;
use crate::information_schema::{
    self, default_text, extra, key_kind, quote_string, sorted_indexes, timestamp_function,
    type_text, RowSource, SystemTable, COLUMN_PRIVILEGES,
};
use crate::parse::StoredObjects;
use crate::privilege::SessionGrants;
use crate::sink::ColumnInfo;
use crate::variables::like_matches;
use manycore_storage::{Catalog, Database, Table};
use manycore_types::{Collation, ColumnDefault, DataType, IntWidth, Value};

/// A result set computed in full (SHOW output is small).
pub struct Rows {
    pub columns: Vec<ColumnInfo>,
    pub rows: Vec<Vec<Value>>,
}

impl Rows {
    /// Keeps the rows whose first column, a name, passes `keep` (the privilege filters of
    /// SHOW DATABASES, TABLES and COLUMNS).
    pub fn retain_named(&mut self, mut keep: impl FnMut(&str) -> bool) {
        self.rows.retain(|row| {
            let name = row[0]
                .as_bytes()
                .map(String::from_utf8_lossy)
                .unwrap_or_default();
            keep(&name)
        });
    }
}

pub fn text(s: &str) -> Value {
    Value::text(s)
}

/// The columns `positions` of each information_schema row, in that order.
fn project(rows: Vec<Vec<Value>>, positions: &[usize]) -> Vec<Vec<Value>> {
    rows.into_iter()
        .map(|row| positions.iter().map(|&i| row[i].clone()).collect())
        .collect()
}

/// Keeps the rows whose first column passes the LIKE pattern, if there is one.
fn filter_like(rows: &mut Vec<Vec<Value>>, like: Option<&str>) {
    if let Some(pattern) = like {
        rows.retain(|row| {
            let name = row[0].as_bytes().map(String::from_utf8_lossy);
            name.is_some_and(|n| like_matches(pattern, &n))
        });
    }
}

fn bigint_column(name: &str, not_null: bool) -> ColumnInfo {
    ColumnInfo::expression(
        name,
        DataType::Int {
            width: IntWidth::Big,
            unsigned: true,
        },
        not_null,
    )
}

/// SHOW DATABASES: SCHEMATA's names, sorted.
pub fn databases(catalog: &Catalog, grants: &SessionGrants, like: Option<&str>) -> Rows {
    let name = match like {
        Some(p) => format!("Database ({p})"),
        None => "Database".to_string(),
    };
    let mut rows = project(information_schema::schemata(catalog, grants), &[1]);
    filter_like(&mut rows, like);
    rows.sort_by(|a, b| a[0].as_bytes().cmp(&b[0].as_bytes()));
    Rows {
        columns: vec![ColumnInfo::text(&name, 256)],
        rows,
    }
}

/// SHOW [FULL] TABLES: the names (and types) of TABLES' rows of `db`; None if there is
/// no such database.
pub fn tables(
    catalog: &Catalog,
    grants: &SessionGrants,
    db: &str,
    full: bool,
    like: Option<&str>,
) -> Option<Rows> {
    if !information_schema::database_exists(catalog, db) {
        return None;
    }
    let mut name = format!("Tables_in_{db}");
    if let Some(p) = like {
        name.push_str(&format!(" ({p})"));
    }
    let mut columns = vec![ColumnInfo::text(&name, 256)];
    if full {
        columns.push(ColumnInfo::text("Table_type", 64));
    }
    let positions: &[usize] = if full { &[2, 3] } else { &[2] };
    let mut rows = project(
        information_schema::tables(catalog, grants, Some(db)),
        positions,
    );
    filter_like(&mut rows, like);
    Some(Rows { columns, rows })
}

/// SHOW [FULL] COLUMNS, with TIMESTAMP defaults in the session's `zone`.
pub fn columns(table: &Table, full: bool, like: Option<&str>, zone: TimeZone) -> Rows {
    let schema = &table.schema;
    // Type and Default come from information_schema TEXT columns, so they are BLOBs.
    let lob = |name: &str, not_null| {
        let size = manycore_types::LobSize::Regular;
        ColumnInfo::expression(name, DataType::text(size), not_null)
    };
    let mut columns = vec![ColumnInfo::text("Field", 64), lob("Type", true)];
    if full {
        columns.push(ColumnInfo::text_nullable("Collation", 64));
    }
    columns.extend([
        ColumnInfo::text("Null", 3),
        ColumnInfo::text("Key", 3),
        lob("Default", false),
        ColumnInfo::text("Extra", 80),
    ]);
    if full {
        columns.push(ColumnInfo::text("Privileges", 80));
        columns.push(ColumnInfo::text("Comment", 1024));
    }
    let mut rows = Vec::new();
    for (i, c) in schema.columns.iter().enumerate() {
        if like.is_some_and(|p| !like_matches(p, &c.name)) {
            continue;
        }
        let mut row = vec![text(&c.name), text(&type_text(c))];
        if full {
            row.push(match c.data_type.collation() {
                Collation::Binary => Value::Null,
                collation => text(collation.name()),
            });
        }
        row.push(text(if c.nullable { "YES" } else { "NO" }));
        row.push(text(key_kind(schema, i)));
        row.push(default_text(c, zone).map_or(Value::Null, |d| text(&d)));
        row.push(text(&extra(c)));
        if full {
            row.push(text(COLUMN_PRIVILEGES));
            row.push(text(&c.comment));
        }
        rows.push(row);
    }
    Rows { columns, rows }
}

pub(crate) fn quote_identifier(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// SHOW CREATE TABLE text, formatted as MariaDB 10.11 prints it (TIMESTAMP defaults in the
/// session's `zone`); a temporary table's says CREATE TEMPORARY TABLE.
fn create_table_text(table: &Table, zone: TimeZone, temporary: bool) -> String {
    let schema = &table.schema;
    let mut lines = Vec::new();
    for c in &schema.columns {
        let mut line = format!("  {} {}", quote_identifier(&c.name), type_text(c));
        let collation = c.data_type.collation();
        if ![schema.options.default_collation, Collation::Binary].contains(&collation) {
            // A collation other than the table's default is spelled out.
            line.push_str(&format!(
                " CHARACTER SET utf8mb4 COLLATE {}",
                collation.name()
            ));
        }
        if !c.nullable {
            line.push_str(" NOT NULL");
        } else if matches!(c.data_type, DataType::Timestamp { .. }) {
            // A TIMESTAMP is NOT NULL unless declared NULL, so MariaDB spells it out.
            line.push_str(" NULL");
        }
        if let Some(g) = &c.generated {
            let kind = if g.stored { "STORED" } else { "VIRTUAL" };
            line.push_str(&format!(" GENERATED ALWAYS AS ({}) {kind}", g.expression));
        } else if c.auto_increment {
            line.push_str(" AUTO_INCREMENT");
        } else {
            match &c.default {
                ColumnDefault::CurrentTimestamp => {
                    line.push_str(&format!(" DEFAULT {}", timestamp_function(&c.data_type)))
                }
                ColumnDefault::Value(v) if !v.is_null() => {
                    let text = default_text(c, zone).expect("a constant default has a text");
                    if c.data_type.is_numeric() {
                        line.push_str(&format!(" DEFAULT {text}"));
                    } else {
                        line.push_str(&format!(" DEFAULT {}", quote_string(&text)));
                    }
                }
                _ if c.nullable => line.push_str(" DEFAULT NULL"),
                _ => {}
            }
        }
        if c.on_update_current_timestamp {
            line.push_str(&format!(" ON UPDATE {}", timestamp_function(&c.data_type)));
        }
        if !c.comment.is_empty() {
            line.push_str(&format!(" COMMENT {}", quote_string(&c.comment)));
        }
        for check in schema
            .checks
            .iter()
            .filter(|k| k.column_level && k.name == c.name)
        {
            line.push_str(&format!(" CHECK ({})", check.expression));
        }
        lines.push(line);
    }
    // Key parts: `c`, or `c`(10) for a prefix.
    let names = |cols: &[usize], prefix_lengths: &[Option<u32>]| -> String {
        cols.iter()
            .enumerate()
            .map(|(k, &i)| {
                let name = quote_identifier(&schema.columns[i].name);
                match prefix_lengths.get(k).copied().flatten() {
                    Some(length) => format!("{name}({length})"),
                    None => name,
                }
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    if let Some(pk) = &schema.primary_key {
        lines.push(format!("  PRIMARY KEY ({})", names(pk, &[])));
    }
    for index in sorted_indexes(schema) {
        let kind = if index.unique { "UNIQUE KEY" } else { "KEY" };
        lines.push(format!(
            "  {kind} {} ({})",
            quote_identifier(&index.name),
            names(&index.columns, &index.prefix_lengths)
        ));
    }
    for index in &schema.fulltext_indexes {
        lines.push(format!(
            "  FULLTEXT KEY {} ({})",
            quote_identifier(&index.name),
            names(&index.columns, &[])
        ));
    }
    for fk in &schema.foreign_keys {
        lines.push(format!(
            "  {}",
            crate::foreign_key::clause(fk, schema, table.db())
        ));
    }
    for check in schema.checks.iter().filter(|k| !k.column_level) {
        lines.push(format!(
            "  CONSTRAINT {} CHECK ({})",
            quote_identifier(&check.name),
            check.expression
        ));
    }
    let mut text = format!(
        "CREATE {}TABLE {} (\n{}\n) ENGINE=InnoDB",
        if temporary { "TEMPORARY " } else { "" },
        quote_identifier(&schema.name),
        lines.join(",\n")
    );
    let next = table.auto_increment();
    if schema.auto_increment_column().is_some() && next > 1 {
        text.push_str(&format!(" AUTO_INCREMENT={next}"));
    }
    text.push_str(&format!(
        " DEFAULT CHARSET=utf8mb4 COLLATE={}",
        schema.options.default_collation.name()
    ));
    if let Some(format) = schema.options.row_format {
        text.push_str(&format!(" ROW_FORMAT={}", format.keyword()));
    }
    if !schema.comment.is_empty() {
        text.push_str(&format!(" COMMENT={}", quote_string(&schema.comment)));
    }
    text
}

pub fn create_table(table: &Table, zone: TimeZone, temporary: bool) -> Rows {
    Rows {
        columns: vec![
            ColumnInfo::text("Table", 256),
            ColumnInfo::text("Create Table", 1024),
        ],
        rows: vec![vec![
            text(&table.schema.name),
            text(&create_table_text(table, zone, temporary)),
        ]],
    }
}

/// MariaDB always prints the database's character set and collation (utf8mb4, the only
/// one manycore stores).
pub fn create_database(database: &Database, if_not_exists: bool) -> Rows {
    let name = database.name.as_str();
    let condition = if if_not_exists {
        "/*!32312 IF NOT EXISTS*/ "
    } else {
        ""
    };
    let body = format!(
        "CREATE DATABASE {condition}{} /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE {} */",
        quote_identifier(name),
        database.collation.name()
    );
    Rows {
        columns: vec![
            ColumnInfo::text("Database", 256),
            ColumnInfo::text("Create Database", 1024),
        ],
        rows: vec![vec![text(name), text(&body)]],
    }
}

/// SHOW INDEX: STATISTICS' rows of the table, without catalog and schemas.
pub fn index(db: &str, table: &Table) -> Rows {
    let columns = vec![
        ColumnInfo::text("Table", 64),
        ColumnInfo::expression(
            "Non_unique",
            DataType::Int {
                width: IntWidth::Big,
                unsigned: false,
            },
            true,
        ),
        ColumnInfo::text_nullable("Key_name", 64),
        ColumnInfo::expression(
            "Seq_in_index",
            DataType::Int {
                width: IntWidth::Int,
                unsigned: true,
            },
            true,
        ),
        ColumnInfo::text_nullable("Column_name", 64),
        ColumnInfo::text_nullable("Collation", 1),
        bigint_column("Cardinality", false),
        bigint_column("Sub_part", false),
        ColumnInfo::text_nullable("Packed", 10),
        ColumnInfo::text("Null", 3),
        ColumnInfo::text("Index_type", 16),
        ColumnInfo::text_nullable("Comment", 16),
        ColumnInfo::text("Index_comment", 1024),
        ColumnInfo::text("Ignored", 3),
    ];
    let statistics =
        information_schema::statistics(db, &table.schema, table.approximate_row_count());
    let rows = project(
        statistics,
        &[2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16],
    );
    Rows { columns, rows }
}

/// SHOW TABLE STATUS: TABLES' rows of `db` without catalog, schema and type; None if
/// there is no such database.
pub fn table_status(
    catalog: &Catalog,
    grants: &SessionGrants,
    db: &str,
    like: Option<&str>,
) -> Option<Rows> {
    if !information_schema::database_exists(catalog, db) {
        return None;
    }
    let names = [
        "Name",
        "Engine",
        "Version",
        "Row_format",
        "Rows",
        "Avg_row_length",
        "Data_length",
        "Max_data_length",
        "Index_length",
        "Data_free",
        "Auto_increment",
        "Create_time",
        "Update_time",
        "Check_time",
        "Collation",
        "Checksum",
        "Create_options",
        "Comment",
        "Max_index_length",
        "Temporary",
    ];
    let numeric = [2usize, 4, 5, 6, 7, 8, 9, 10, 15, 18];
    let columns = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            if numeric.contains(&i) {
                bigint_column(n, false)
            } else if (11..=13).contains(&i) {
                ColumnInfo::expression(*n, DataType::DateTime { fsp: 0 }, false)
            } else {
                ColumnInfo::text_nullable(n, 64)
            }
        })
        .collect();
    let positions: Vec<usize> = std::iter::once(2).chain(4..=22).collect();
    let mut rows = project(
        information_schema::tables(catalog, grants, Some(db)),
        &positions,
    );
    filter_like(&mut rows, like);
    Some(Rows { columns, rows })
}

/// Status: the server's, or with `session` that session's counters (and the server's
/// global-only ones), as SHOW GLOBAL / SESSION STATUS. `Ssl_version`/`Ssl_cipher` are the
/// asking connection's in both, as in MariaDB.
pub(crate) fn status(
    engine: &Engine,
    like: Option<&str>,
    tls: Option<TlsInfo>,
    session: Option<&SessionCounters>,
) -> Rows {
    let status = engine.status();
    let mut pairs: Vec<(String, String)> = Counter::ALL
        .iter()
        .map(|&c| {
            let value = match session {
                Some(counters) => counters.get(c, status),
                None => status.get(c),
            };
            (c.name().to_string(), value.to_string())
        })
        .collect();
    let connected = engine.processlist().len();
    pairs.extend([
        ("Threads_connected".to_string(), connected.to_string()),
        (
            "Threads_running".to_string(),
            engine.processlist().running().to_string(),
        ),
        (
            "Threads_created".to_string(),
            engine.status().get(Counter::Connections).to_string(),
        ),
        ("Threads_cached".to_string(), "0".to_string()),
        ("Uptime".to_string(), engine.uptime_seconds().to_string()),
        (
            "Uptime_since_flush_status".to_string(),
            status
                .seconds_since_flush(engine.uptime_seconds())
                .to_string(),
        ),
        (
            "Max_used_connections".to_string(),
            engine.status().max_used_connections().to_string(),
        ),
        ("Open_tables".to_string(), table_count(engine).to_string()),
        ("Open_files".to_string(), "0".to_string()),
        (
            "Ssl_cipher".to_string(),
            tls.map_or("", |t| t.cipher).to_string(),
        ),
        (
            "Ssl_version".to_string(),
            tls.map_or("", |t| t.version).to_string(),
        ),
    ]);
    pairs.sort_by_key(|(name, _)| name.to_ascii_lowercase());
    let rows = pairs
        .into_iter()
        .filter(|(n, _)| like.is_none_or(|p| like_matches(p, n)))
        .map(|(n, v)| vec![text(&n), text(&v)])
        .collect();
    Rows {
        columns: vec![
            ColumnInfo::text("Variable_name", 64),
            ColumnInfo::text("Value", 2048),
        ],
        rows,
    }
}

fn table_count(engine: &Engine) -> usize {
    engine
        .storage()
        .catalog()
        .databases
        .values()
        .map(|d| d.tables.len())
        .sum()
}

/// Characters of a statement SHOW PROCESSLIST shows without FULL.
const PROCESS_INFO_CHARS: usize = 100;

/// SHOW [FULL] PROCESSLIST: PROCESSLIST's rows, Info cut to 100 characters unless FULL.
pub fn processlist(source: &RowSource, full: bool) -> Rows {
    let columns = vec![
        ColumnInfo::expression(
            "Id",
            DataType::Int {
                width: IntWidth::Big,
                unsigned: true,
            },
            true,
        ),
        ColumnInfo::text("User", 128),
        ColumnInfo::text("Host", 64),
        ColumnInfo::text_nullable("db", 64),
        ColumnInfo::text("Command", 16),
        ColumnInfo::expression(
            "Time",
            DataType::Int {
                width: IntWidth::Int,
                unsigned: false,
            },
            true,
        ),
        ColumnInfo::text_nullable("State", 30),
        ColumnInfo::text_nullable(
            "Info",
            if full {
                65535
            } else {
                PROCESS_INFO_CHARS as u32
            },
        ),
        ColumnInfo::expression(
            "Progress",
            DataType::Decimal {
                precision: 7,
                scale: 3,
                unsigned: false,
            },
            true,
        ),
    ];
    let mut rows = project(
        information_schema::processlist(source),
        &[0, 1, 2, 3, 4, 5, 6, 7, 11],
    );
    if !full {
        for row in &mut rows {
            if let Some(info) = row[7].as_bytes() {
                let info = String::from_utf8_lossy(info);
                if info.chars().count() > PROCESS_INFO_CHARS {
                    row[7] = text(&info.chars().take(PROCESS_INFO_CHARS).collect::<String>());
                }
            }
        }
    }
    Rows { columns, rows }
}

/// SHOW ENGINES: ENGINES' rows.
pub fn engines() -> Rows {
    let names = [
        "Engine",
        "Support",
        "Comment",
        "Transactions",
        "XA",
        "Savepoints",
    ];
    Rows {
        columns: names
            .iter()
            .map(|n| ColumnInfo::text_nullable(n, 80))
            .collect(),
        rows: information_schema::engines(),
    }
}

pub fn engine_mutex() -> Rows {
    let rows = manycore_sync::mutex_status()
        .into_iter()
        .map(|r| {
            vec![
                text(manycore_sync::MutexStatusRow::ENGINE),
                text(r.name),
                text(&r.status()),
            ]
        })
        .collect();
    Rows {
        columns: vec![
            ColumnInfo::text("Type", 10),
            ColumnInfo::text("Name", 256),
            ColumnInfo::text("Status", 256),
        ],
        rows,
    }
}

pub fn engine_status(engine: &Engine) -> Rows {
    let body = format!(
        "manycore storage: {} tables, commit clock {}",
        table_count(engine),
        engine.storage().clock()
    );
    Rows {
        columns: vec![
            ColumnInfo::text("Type", 10),
            ColumnInfo::text("Name", 256),
            ColumnInfo::text("Status", 256),
        ],
        rows: vec![vec![text("InnoDB"), text(""), text(&body)]],
    }
}

/// SHOW CHARACTER SET: CHARACTER_SETS' rows, description before default collation.
pub fn charsets(like: Option<&str>) -> Rows {
    let mut rows = project(information_schema::character_sets(), &[0, 2, 1, 3]);
    filter_like(&mut rows, like);
    Rows {
        columns: vec![
            ColumnInfo::text("Charset", 32),
            ColumnInfo::text("Description", 60),
            ColumnInfo::text("Default collation", 64),
            bigint_column("Maxlen", true),
        ],
        rows,
    }
}

/// SHOW COLLATION: COLLATIONS' rows.
pub fn collations(like: Option<&str>) -> Rows {
    let mut rows = information_schema::collations();
    filter_like(&mut rows, like);
    Rows {
        columns: vec![
            ColumnInfo::text("Collation", 64),
            ColumnInfo::text("Charset", 32),
            bigint_column("Id", true),
            ColumnInfo::text("Default", 3),
            ColumnInfo::text("Compiled", 3),
            bigint_column("Sortlen", true),
        ],
        rows,
    }
}

/// How a SHOW of stored objects reads its information_schema table, as MariaDB does:
/// which column names the database, which LIKE matches, and the columns shown.
struct StoredObjectsLayout {
    table: SystemTable,
    schema_column: usize,
    like_column: usize,
    /// (position in the information_schema row, name SHOW gives it).
    shown: &'static [(usize, &'static str)],
}

fn stored_objects_layout(kind: StoredObjects) -> StoredObjectsLayout {
    match kind {
        StoredObjects::Triggers => StoredObjectsLayout {
            table: SystemTable::Triggers,
            schema_column: 5,
            like_column: 6,
            shown: &[
                (2, "Trigger"),
                (3, "Event"),
                (6, "Table"),
                (9, "Statement"),
                (11, "Timing"),
                (16, "Created"),
                (17, "sql_mode"),
                (18, "Definer"),
                (19, "character_set_client"),
                (20, "collation_connection"),
                (21, "Database Collation"),
            ],
        },
        StoredObjects::Events => StoredObjectsLayout {
            table: SystemTable::Events,
            schema_column: 1,
            like_column: 2,
            shown: &[
                (1, "Db"),
                (2, "Name"),
                (3, "Definer"),
                (4, "Time zone"),
                (7, "Type"),
                (8, "Execute at"),
                (9, "Interval value"),
                (10, "Interval field"),
                (12, "Starts"),
                (13, "Ends"),
                (14, "Status"),
                (20, "Originator"),
                (21, "character_set_client"),
                (22, "collation_connection"),
                (23, "Database Collation"),
            ],
        },
        StoredObjects::Routines(_) => StoredObjectsLayout {
            table: SystemTable::Routines,
            schema_column: 2,
            like_column: 3,
            shown: &[
                (2, "Db"),
                (3, "Name"),
                (4, "Type"),
                (27, "Definer"),
                (24, "Modified"),
                (23, "Created"),
                (22, "Security_type"),
                (26, "Comment"),
                (28, "character_set_client"),
                (29, "collation_connection"),
                (30, "Database Collation"),
            ],
        },
    }
}

/// ROUTINES.ROUTINE_TYPE.
const ROUTINE_TYPE_COLUMN: usize = 4;

/// SHOW TRIGGERS, EVENTS, FUNCTION/PROCEDURE/PACKAGE [BODY] STATUS: the rows of `kind`'s
/// information_schema table in database `db` (any, if None) whose name matches `like`,
/// under SHOW's column names, with the table's column types.
pub fn stored_objects(
    kind: StoredObjects,
    source: &RowSource,
    db: Option<&str>,
    like: Option<&str>,
) -> Rows {
    let layout = stored_objects_layout(kind);
    let text_of = |v: &Value| {
        v.as_bytes()
            .map(|b| String::from_utf8_lossy(b).into_owned())
    };
    let mut rows = information_schema::rows(
        layout.table,
        source,
        &information_schema::NameLookup::everything(layout.table),
    );
    rows.retain(|row| {
        let in_db = db.is_none_or(|db| text_of(&row[layout.schema_column]).as_deref() == Some(db));
        let of_type = match kind {
            StoredObjects::Routines(routine_type) => {
                text_of(&row[ROUTINE_TYPE_COLUMN]).as_deref() == Some(routine_type)
            }
            _ => true,
        };
        let named = like.is_none_or(|pattern| {
            text_of(&row[layout.like_column]).is_some_and(|name| like_matches(pattern, &name))
        });
        in_db && of_type && named
    });
    let positions: Vec<usize> = layout.shown.iter().map(|&(i, _)| i).collect();
    let schema = &layout.table.table().schema;
    let columns = layout
        .shown
        .iter()
        .map(|&(i, name)| {
            let column = &schema.columns[i];
            // MariaDB's SHOW describes a LONGTEXT column as a TEXT (as in SHOW COLUMNS).
            let data_type = match column.data_type {
                DataType::Text { .. } => DataType::text(manycore_types::LobSize::Regular),
                ref other => other.clone(),
            };
            ColumnInfo::expression(name, data_type, !column.nullable)
        })
        .collect();
    Rows {
        columns,
        rows: project(rows, &positions),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_object_layouts_name_columns_of_their_tables() {
        for kind in [
            StoredObjects::Triggers,
            StoredObjects::Events,
            StoredObjects::Routines("FUNCTION"),
        ] {
            let layout = stored_objects_layout(kind);
            let columns = &layout.table.table().schema.columns;
            let name = |i: usize| columns[i].name.as_str();
            assert!(name(layout.schema_column).ends_with("SCHEMA"), "{kind:?}");
            assert!(
                name(layout.like_column).ends_with("_NAME")
                    || name(layout.like_column) == "EVENT_OBJECT_TABLE",
                "{kind:?}"
            );
            for &(i, _) in layout.shown {
                assert!(i < columns.len(), "{kind:?}: {i}");
            }
        }
        let routines = SystemTable::Routines.table();
        assert_eq!(
            routines.schema.columns[ROUTINE_TYPE_COLUMN].name,
            "ROUTINE_TYPE"
        );
    }
}
