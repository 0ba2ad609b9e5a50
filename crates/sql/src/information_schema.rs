//! information_schema: the read-only database of virtual tables describing the others
//! (SCHEMATA, TABLES, COLUMNS, STATISTICS, TABLE_CONSTRAINTS, KEY_COLUMN_USAGE,
//! REFERENTIAL_CONSTRAINTS, CHECK_CONSTRAINTS, PROCESSLIST, ENGINES, CHARACTER_SETS,
//! COLLATIONS, VIEWS, TRIGGERS, ROUTINES, PARAMETERS, EVENTS, and GLOBAL_/SESSION_STATUS
//! and _VARIABLES), with MariaDB 10.11's column names, order and types. Their rows are
//! also the source of SHOW DATABASES, TABLES, TABLE STATUS, INDEX, PROCESSLIST, ENGINES,
//! CHARACTER SET and COLLATION, which show some of their columns (`show`); the other way
//! round, the STATUS and VARIABLES tables are SHOW STATUS's and SHOW VARIABLES's rows.
//!
//! TABLES lists views too (TABLE_TYPE 'VIEW'); VIEWS shows their query as written, not
//! MariaDB's rewritten text, and COLUMNS lists their bound result columns, as DESCRIBE does.
//!
//! TRIGGERS lists the triggers of the tables a session holds TRIGGER on (CREATED is NULL:
//! not kept yet). ROUTINES and PARAMETERS list the stored routines a session holds a
//! routine privilege on, with ROUTINE_DEFINITION only for their definer (`routine`
//! invariant (9); SHOW PROCEDURE STATUS is built on ROUTINES); EVENTS describes what
//! manycore does not have, so it is always empty: clients such as mariadb-dump read it
//! (and SHOW EVENTS) to learn that there is nothing to do.
//!
//! Each table is a `storage::Table::detached`: a real schema, so binding, column names,
//! WHERE, ORDER BY, aggregates and LIMIT work as on any table, but no rows. A SELECT from
//! one binds to `Plan::SystemScan`, whose rows `rows` makes when the statement executes.
//!
//! Invariants:
//! (1) Rows are made per execution, from the catalog, process list and grants current
//!     then; a plan holds only which table it reads. So a prepared statement or a cached
//!     text plan run after CREATE TABLE sees the new table.
//! (2) A session sees only what its grants let it see, by the rules of SHOW: a database
//!     it `sees_database`, a table it holds some privilege on (`table_any`), a column it
//!     `sees_column`, the processes of its own user unless it holds PROCESS. Everyone
//!     sees information_schema itself (privilege module).
//! (3) Read-only: any privilege but SELECT on information_schema is denied with 1044,
//!     as MariaDB (`privilege::AccessCheck`), so INSERT, UPDATE, DELETE and DDL fail
//!     before they reach storage, where a detached table refuses writes anyway.
//! (4) Names are recognised at bind time only (`find_table`, from
//!     `select::BindContext::table`); executing an ordinary plan never asks whether its
//!     table is virtual.
//! (5) A `name = constant` conjunct of the WHERE clause or an inner join's ON on a
//!     database or table name column is a lookup, as in MariaDB (`SystemTable::lookups`):
//!     only rows holding exactly that name are made, whatever the column's collation; the
//!     conjuncts then run on them as on any rows. An outer join's ON looks nothing up.
//!
//! What manycore cannot know is a constant (docs/information_schema.md): CREATE_TIME,
//! UPDATE_TIME and CHECK_TIME are NULL, lengths in bytes are 0, TABLE_ROWS and
//! CARDINALITY count primary index entries, PROCESSLIST's memory and stage columns are 0.

use crate::engine::{Engine, ProcessRow};
use crate::error::{Error, Result};
use crate::expr::{shown_cell, BinaryOp, Expr, SessionContext, TimeZone};
use crate::plan::Lookup;
use crate::privilege::{Privileges, SessionGrants};
use crate::routine::Sight;
use crate::session::SessionState;
use crate::show;
use manycore_storage::{
    Catalog, ColumnSchema, IndexSchema, RoutineKind, RoutineSchema, RowFormat, Table, TableId,
    TableSchema, TriggerSchema, ViewSchema,
};
use manycore_types::{format, ColumnDefault, DataType, Decimal, IntWidth, LobSize, Value};
use std::sync::{Arc, OnceLock};

/// The database's name, as DATABASE() and TABLE_SCHEMA show it (any letter case finds it).
pub const NAME: &str = "information_schema";

/// Whether `db` names information_schema (case-insensitive, as in MariaDB).
pub fn is_name(db: &str) -> bool {
    db.eq_ignore_ascii_case(NAME)
}

/// The name a database is shown by: information_schema in its own spelling.
pub fn canonical_database(db: &str) -> &str {
    if is_name(db) {
        NAME
    } else {
        db
    }
}

/// Whether database `db` exists (information_schema always does).
pub fn database_exists(catalog: &Catalog, db: &str) -> bool {
    is_name(db) || catalog.databases.contains_key(db)
}

/// The table `db`.`table` names, with the database's canonical name: an
/// information_schema table (1109 if there is none by that name), else a catalog table
/// (1146). The caller has checked privileges (privilege invariant (4)).
pub fn find_table(catalog: &Catalog, db: &str, table: &str) -> Result<(String, Arc<Table>)> {
    if is_name(db) {
        return match SystemTable::find(table) {
            Some(t) => Ok((NAME.to_string(), Arc::clone(t.table()))),
            None => Err(Error::unknown_table(table, NAME)),
        };
    }
    match catalog.table(db, table) {
        Some(t) => Ok((db.to_string(), Arc::clone(t))),
        None => Err(Error::no_such_table(db, table)),
    }
}

/// One information_schema table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SystemTable {
    Schemata,
    Tables,
    Columns,
    Statistics,
    TableConstraints,
    KeyColumnUsage,
    Processlist,
    Engines,
    CharacterSets,
    Collations,
    Triggers,
    Views,
    Routines,
    Parameters,
    Events,
    ReferentialConstraints,
    CheckConstraints,
    GlobalStatus,
    SessionStatus,
    GlobalVariables,
    SessionVariables,
}

impl SystemTable {
    /// In name order (SHOW TABLES FROM information_schema).
    pub const ALL: [SystemTable; 21] = [
        SystemTable::CharacterSets,
        SystemTable::CheckConstraints,
        SystemTable::Collations,
        SystemTable::Columns,
        SystemTable::Engines,
        SystemTable::Events,
        SystemTable::GlobalStatus,
        SystemTable::GlobalVariables,
        SystemTable::KeyColumnUsage,
        SystemTable::Parameters,
        SystemTable::Processlist,
        SystemTable::ReferentialConstraints,
        SystemTable::Routines,
        SystemTable::Schemata,
        SystemTable::SessionStatus,
        SystemTable::SessionVariables,
        SystemTable::Statistics,
        SystemTable::Tables,
        SystemTable::TableConstraints,
        SystemTable::Triggers,
        SystemTable::Views,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SystemTable::Schemata => "SCHEMATA",
            SystemTable::Tables => "TABLES",
            SystemTable::Columns => "COLUMNS",
            SystemTable::Statistics => "STATISTICS",
            SystemTable::TableConstraints => "TABLE_CONSTRAINTS",
            SystemTable::KeyColumnUsage => "KEY_COLUMN_USAGE",
            SystemTable::Processlist => "PROCESSLIST",
            SystemTable::Engines => "ENGINES",
            SystemTable::CharacterSets => "CHARACTER_SETS",
            SystemTable::Collations => "COLLATIONS",
            SystemTable::Triggers => "TRIGGERS",
            SystemTable::Views => "VIEWS",
            SystemTable::Routines => "ROUTINES",
            SystemTable::Parameters => "PARAMETERS",
            SystemTable::Events => "EVENTS",
            SystemTable::ReferentialConstraints => "REFERENTIAL_CONSTRAINTS",
            SystemTable::CheckConstraints => "CHECK_CONSTRAINTS",
            SystemTable::GlobalStatus => "GLOBAL_STATUS",
            SystemTable::SessionStatus => "SESSION_STATUS",
            SystemTable::GlobalVariables => "GLOBAL_VARIABLES",
            SystemTable::SessionVariables => "SESSION_VARIABLES",
        }
    }

    /// The table called `name` in any letter case.
    pub fn find(name: &str) -> Option<SystemTable> {
        Self::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(name))
    }

    /// The table `table` is, if it is one of ours (bind time only: invariant (4)).
    pub fn of(table: &Arc<Table>) -> Option<SystemTable> {
        if table.id != TableId::DETACHED {
            return None;
        }
        Self::ALL
            .into_iter()
            .find(|t| Arc::ptr_eq(t.table(), table))
    }

    /// The columns naming a database and a table in this table's rows that MariaDB
    /// looks up by exact name when a condition `column = constant` names one (its
    /// idx_field1 and idx_field2): it reads only the database or table so named, letter
    /// case and trailing spaces included, whatever the column's collation says.
    fn lookup_columns(self) -> [Option<&'static str>; 2] {
        match self {
            SystemTable::Schemata => [Some("SCHEMA_NAME"), None],
            SystemTable::Tables
            | SystemTable::Columns
            | SystemTable::Statistics
            | SystemTable::TableConstraints
            | SystemTable::KeyColumnUsage
            | SystemTable::Views => [Some("TABLE_SCHEMA"), Some("TABLE_NAME")],
            SystemTable::ReferentialConstraints | SystemTable::CheckConstraints => {
                [Some("CONSTRAINT_SCHEMA"), Some("TABLE_NAME")]
            }
            SystemTable::Triggers => [Some("EVENT_OBJECT_SCHEMA"), Some("EVENT_OBJECT_TABLE")],
            SystemTable::Routines => [Some("ROUTINE_SCHEMA"), None],
            SystemTable::Parameters => [Some("SPECIFIC_SCHEMA"), None],
            _ => [None, None],
        }
    }

    /// The cells of `lookup_columns`.
    fn lookup_cells(self) -> [Option<usize>; 2] {
        let columns = &self.table().schema.columns;
        self.lookup_columns()
            .map(|name| name.map(|n| columns.iter().position(|c| c.name == n).expect("declared")))
    }

    /// The conjuncts among `parts` that name what the rows describe: `cell = v` or
    /// `v = cell`, `cell` a lookup cell (this table's cells start at `offset` in the
    /// rows the conjuncts read) and `v` constant (a one-value IN list is such an equality
    /// too, as MariaDB rewrites it). The conjuncts still run on every row.
    pub fn lookups(self, parts: &[&Expr], offset: usize) -> Vec<Lookup> {
        let cells = self.lookup_cells();
        let cell = |e: &Expr| match e {
            Expr::Column(c) if c.index >= offset && cells.contains(&Some(c.index - offset)) => {
                Some(c.index - offset)
            }
            _ => None,
        };
        parts
            .iter()
            .copied()
            .filter_map(|part| {
                let (cell, value) = match part {
                    Expr::Binary {
                        op: BinaryOp::Eq,
                        left,
                        right,
                        ..
                    } => match (cell(left), cell(right)) {
                        (Some(c), None) => (c, &**right),
                        (None, Some(c)) => (c, &**left),
                        _ => return None,
                    },
                    Expr::InList {
                        operand,
                        list,
                        negated: false,
                    } if list.len() == 1 => (cell(operand)?, &list[0]),
                    _ => return None,
                };
                value.is_constant().then(|| Lookup {
                    cell,
                    value: value.clone(),
                })
            })
            .collect()
    }

    /// The table's schema, built once per process.
    pub fn table(self) -> &'static Arc<Table> {
        static TABLES: OnceLock<Vec<Arc<Table>>> = OnceLock::new();
        let tables = TABLES.get_or_init(|| {
            Self::ALL
                .iter()
                .map(|t| Arc::new(Table::detached(NAME, t.schema())))
                .collect()
        });
        let position = Self::ALL
            .iter()
            .position(|t| *t == self)
            .expect("ALL lists every table");
        &tables[position]
    }

    fn schema(self) -> TableSchema {
        use Column::*;
        let columns: &[(&str, Column)] = match self {
            SystemTable::Schemata => &[
                ("CATALOG_NAME", Text(512)),
                ("SCHEMA_NAME", Text(64)),
                ("DEFAULT_CHARACTER_SET_NAME", Text(32)),
                ("DEFAULT_COLLATION_NAME", Text(64)),
                ("SQL_PATH", NullText(512)),
                ("SCHEMA_COMMENT", Text(1024)),
            ],
            SystemTable::Tables => &[
                ("TABLE_CATALOG", Text(512)),
                ("TABLE_SCHEMA", Text(64)),
                ("TABLE_NAME", Text(64)),
                ("TABLE_TYPE", Text(64)),
                ("ENGINE", NullText(64)),
                ("VERSION", NullCount),
                ("ROW_FORMAT", NullText(10)),
                ("TABLE_ROWS", NullCount),
                ("AVG_ROW_LENGTH", NullCount),
                ("DATA_LENGTH", NullCount),
                ("MAX_DATA_LENGTH", NullCount),
                ("INDEX_LENGTH", NullCount),
                ("DATA_FREE", NullCount),
                ("AUTO_INCREMENT", NullCount),
                ("CREATE_TIME", NullDateTime(0)),
                ("UPDATE_TIME", NullDateTime(0)),
                ("CHECK_TIME", NullDateTime(0)),
                ("TABLE_COLLATION", NullText(64)),
                ("CHECKSUM", NullCount),
                ("CREATE_OPTIONS", NullText(2048)),
                ("TABLE_COMMENT", Text(2048)),
                ("MAX_INDEX_LENGTH", NullCount),
                ("TEMPORARY", NullText(1)),
            ],
            SystemTable::Columns => &[
                ("TABLE_CATALOG", Text(512)),
                ("TABLE_SCHEMA", Text(64)),
                ("TABLE_NAME", Text(64)),
                ("COLUMN_NAME", Text(64)),
                ("ORDINAL_POSITION", Count),
                ("COLUMN_DEFAULT", NullLongText),
                ("IS_NULLABLE", Text(3)),
                ("DATA_TYPE", Text(64)),
                ("CHARACTER_MAXIMUM_LENGTH", NullCount),
                ("CHARACTER_OCTET_LENGTH", NullCount),
                ("NUMERIC_PRECISION", NullCount),
                ("NUMERIC_SCALE", NullCount),
                ("DATETIME_PRECISION", NullCount),
                ("CHARACTER_SET_NAME", NullText(32)),
                ("COLLATION_NAME", NullText(64)),
                ("COLUMN_TYPE", LongText),
                ("COLUMN_KEY", Text(3)),
                ("EXTRA", Text(80)),
                ("PRIVILEGES", Text(80)),
                ("COLUMN_COMMENT", Text(1024)),
                ("IS_GENERATED", Text(6)),
                ("GENERATION_EXPRESSION", NullLongText),
            ],
            SystemTable::Statistics => &[
                ("TABLE_CATALOG", Text(512)),
                ("TABLE_SCHEMA", Text(64)),
                ("TABLE_NAME", Text(64)),
                ("NON_UNIQUE", Integer(IntWidth::Big, 1)),
                ("INDEX_SCHEMA", Text(64)),
                ("INDEX_NAME", Text(64)),
                ("SEQ_IN_INDEX", Unsigned(IntWidth::Int, 2)),
                ("COLUMN_NAME", Text(64)),
                ("COLLATION", NullText(1)),
                ("CARDINALITY", NullInteger(IntWidth::Big, 21)),
                ("SUB_PART", NullInteger(IntWidth::Big, 3)),
                ("PACKED", NullText(10)),
                ("NULLABLE", Text(3)),
                ("INDEX_TYPE", Text(16)),
                ("COMMENT", NullText(16)),
                ("INDEX_COMMENT", Text(1024)),
                ("IGNORED", Text(3)),
            ],
            SystemTable::TableConstraints => &[
                ("CONSTRAINT_CATALOG", Text(512)),
                ("CONSTRAINT_SCHEMA", Text(64)),
                ("CONSTRAINT_NAME", Text(64)),
                ("TABLE_SCHEMA", Text(64)),
                ("TABLE_NAME", Text(64)),
                ("CONSTRAINT_TYPE", Text(64)),
            ],
            SystemTable::KeyColumnUsage => &[
                ("CONSTRAINT_CATALOG", Text(512)),
                ("CONSTRAINT_SCHEMA", Text(64)),
                ("CONSTRAINT_NAME", Text(64)),
                ("TABLE_CATALOG", Text(512)),
                ("TABLE_SCHEMA", Text(64)),
                ("TABLE_NAME", Text(64)),
                ("COLUMN_NAME", Text(64)),
                ("ORDINAL_POSITION", Integer(IntWidth::Big, 10)),
                (
                    "POSITION_IN_UNIQUE_CONSTRAINT",
                    NullInteger(IntWidth::Big, 10),
                ),
                ("REFERENCED_TABLE_SCHEMA", NullText(64)),
                ("REFERENCED_TABLE_NAME", NullText(64)),
                ("REFERENCED_COLUMN_NAME", NullText(64)),
            ],
            SystemTable::Engines => &[
                ("ENGINE", Text(64)),
                ("SUPPORT", Text(8)),
                ("COMMENT", Text(160)),
                ("TRANSACTIONS", NullText(3)),
                ("XA", NullText(3)),
                ("SAVEPOINTS", NullText(3)),
            ],
            SystemTable::CharacterSets => &[
                ("CHARACTER_SET_NAME", Text(32)),
                ("DEFAULT_COLLATE_NAME", Text(64)),
                ("DESCRIPTION", Text(60)),
                ("MAXLEN", Integer(IntWidth::Big, 3)),
            ],
            SystemTable::Collations => &[
                ("COLLATION_NAME", Text(64)),
                ("CHARACTER_SET_NAME", NullText(32)),
                ("ID", NullInteger(IntWidth::Big, 11)),
                ("IS_DEFAULT", NullText(3)),
                ("IS_COMPILED", Text(3)),
                ("SORTLEN", Integer(IntWidth::Big, 3)),
            ],
            SystemTable::Processlist => &[
                ("ID", Integer(IntWidth::Big, 4)),
                ("USER", Text(128)),
                ("HOST", Text(64)),
                ("DB", NullText(64)),
                ("COMMAND", Text(16)),
                ("TIME", Integer(IntWidth::Int, 7)),
                ("STATE", NullText(64)),
                ("INFO", NullLongText),
                ("TIME_MS", Fixed(22, 3)),
                ("STAGE", Integer(IntWidth::Tiny, 2)),
                ("MAX_STAGE", Integer(IntWidth::Tiny, 2)),
                ("PROGRESS", Fixed(7, 3)),
                ("MEMORY_USED", Integer(IntWidth::Big, 7)),
                ("MAX_MEMORY_USED", Integer(IntWidth::Big, 7)),
                ("EXAMINED_ROWS", Integer(IntWidth::Int, 7)),
                ("QUERY_ID", Integer(IntWidth::Big, 4)),
                ("INFO_BINARY", NullBlob),
                ("TID", Integer(IntWidth::Big, 4)),
            ],
            SystemTable::Triggers => &[
                ("TRIGGER_CATALOG", Text(512)),
                ("TRIGGER_SCHEMA", Text(64)),
                ("TRIGGER_NAME", Text(64)),
                ("EVENT_MANIPULATION", Text(6)),
                ("EVENT_OBJECT_CATALOG", Text(512)),
                ("EVENT_OBJECT_SCHEMA", Text(64)),
                ("EVENT_OBJECT_TABLE", Text(64)),
                ("ACTION_ORDER", Integer(IntWidth::Big, 4)),
                ("ACTION_CONDITION", NullLongText),
                ("ACTION_STATEMENT", NullLongText),
                ("ACTION_ORIENTATION", Text(9)),
                ("ACTION_TIMING", Text(6)),
                ("ACTION_REFERENCE_OLD_TABLE", NullText(64)),
                ("ACTION_REFERENCE_NEW_TABLE", NullText(64)),
                ("ACTION_REFERENCE_OLD_ROW", Text(3)),
                ("ACTION_REFERENCE_NEW_ROW", Text(3)),
                ("CREATED", NullDateTime(2)),
                ("SQL_MODE", Text(8192)),
                ("DEFINER", NullText(384)),
                ("CHARACTER_SET_CLIENT", Text(32)),
                ("COLLATION_CONNECTION", Text(64)),
                ("DATABASE_COLLATION", Text(64)),
            ],
            SystemTable::Views => &[
                ("TABLE_CATALOG", Text(512)),
                ("TABLE_SCHEMA", Text(64)),
                ("TABLE_NAME", Text(64)),
                ("VIEW_DEFINITION", LongText),
                ("CHECK_OPTION", Text(8)),
                ("IS_UPDATABLE", Text(3)),
                ("DEFINER", Text(384)),
                ("SECURITY_TYPE", Text(7)),
                ("CHARACTER_SET_CLIENT", Text(32)),
                ("COLLATION_CONNECTION", Text(64)),
                ("ALGORITHM", Text(10)),
            ],
            SystemTable::Routines => &[
                ("SPECIFIC_NAME", Text(64)),
                ("ROUTINE_CATALOG", Text(512)),
                ("ROUTINE_SCHEMA", Text(64)),
                ("ROUTINE_NAME", Text(64)),
                ("ROUTINE_TYPE", Text(13)),
                ("DATA_TYPE", Text(64)),
                ("CHARACTER_MAXIMUM_LENGTH", NullInteger(IntWidth::Int, 21)),
                ("CHARACTER_OCTET_LENGTH", NullInteger(IntWidth::Int, 21)),
                ("NUMERIC_PRECISION", NullInteger(IntWidth::Int, 21)),
                ("NUMERIC_SCALE", NullInteger(IntWidth::Int, 21)),
                ("DATETIME_PRECISION", NullCount),
                ("CHARACTER_SET_NAME", NullText(64)),
                ("COLLATION_NAME", NullText(64)),
                ("DTD_IDENTIFIER", NullLongText),
                ("ROUTINE_BODY", Text(8)),
                ("ROUTINE_DEFINITION", NullLongText),
                ("EXTERNAL_NAME", NullText(64)),
                ("EXTERNAL_LANGUAGE", NullText(64)),
                ("PARAMETER_STYLE", Text(8)),
                ("IS_DETERMINISTIC", Text(3)),
                ("SQL_DATA_ACCESS", Text(64)),
                ("SQL_PATH", NullText(64)),
                ("SECURITY_TYPE", Text(7)),
                ("CREATED", DateTime),
                ("LAST_ALTERED", DateTime),
                ("SQL_MODE", Text(8192)),
                ("ROUTINE_COMMENT", LongText),
                ("DEFINER", Text(384)),
                ("CHARACTER_SET_CLIENT", Text(32)),
                ("COLLATION_CONNECTION", Text(64)),
                ("DATABASE_COLLATION", Text(64)),
            ],
            SystemTable::Parameters => &[
                ("SPECIFIC_CATALOG", Text(512)),
                ("SPECIFIC_SCHEMA", Text(64)),
                ("SPECIFIC_NAME", Text(64)),
                ("ORDINAL_POSITION", Integer(IntWidth::Int, 21)),
                ("PARAMETER_MODE", NullText(5)),
                ("PARAMETER_NAME", NullText(64)),
                ("DATA_TYPE", Text(64)),
                ("CHARACTER_MAXIMUM_LENGTH", NullInteger(IntWidth::Int, 21)),
                ("CHARACTER_OCTET_LENGTH", NullInteger(IntWidth::Int, 21)),
                ("NUMERIC_PRECISION", NullInteger(IntWidth::Int, 21)),
                ("NUMERIC_SCALE", NullInteger(IntWidth::Int, 21)),
                ("DATETIME_PRECISION", NullCount),
                ("CHARACTER_SET_NAME", NullText(64)),
                ("COLLATION_NAME", NullText(64)),
                ("DTD_IDENTIFIER", LongText),
                ("ROUTINE_TYPE", Text(9)),
            ],
            SystemTable::GlobalStatus
            | SystemTable::SessionStatus
            | SystemTable::GlobalVariables
            | SystemTable::SessionVariables => {
                &[("VARIABLE_NAME", Text(64)), ("VARIABLE_VALUE", Text(4096))]
            }
            SystemTable::Events => &[
                ("EVENT_CATALOG", Text(64)),
                ("EVENT_SCHEMA", Text(64)),
                ("EVENT_NAME", Text(64)),
                ("DEFINER", Text(384)),
                ("TIME_ZONE", Text(64)),
                ("EVENT_BODY", Text(8)),
                ("EVENT_DEFINITION", LongText),
                ("EVENT_TYPE", Text(9)),
                ("EXECUTE_AT", NullDateTime(0)),
                ("INTERVAL_VALUE", NullText(256)),
                ("INTERVAL_FIELD", NullText(18)),
                ("SQL_MODE", Text(8192)),
                ("STARTS", NullDateTime(0)),
                ("ENDS", NullDateTime(0)),
                ("STATUS", Text(18)),
                ("ON_COMPLETION", Text(12)),
                ("CREATED", DateTime),
                ("LAST_ALTERED", DateTime),
                ("LAST_EXECUTED", NullDateTime(0)),
                ("EVENT_COMMENT", Text(64)),
                ("ORIGINATOR", Integer(IntWidth::Big, 10)),
                ("CHARACTER_SET_CLIENT", Text(32)),
                ("COLLATION_CONNECTION", Text(64)),
                ("DATABASE_COLLATION", Text(64)),
            ],
            SystemTable::ReferentialConstraints => &[
                ("CONSTRAINT_CATALOG", Text(512)),
                ("CONSTRAINT_SCHEMA", Text(64)),
                ("CONSTRAINT_NAME", Text(64)),
                ("UNIQUE_CONSTRAINT_CATALOG", Text(512)),
                ("UNIQUE_CONSTRAINT_SCHEMA", Text(64)),
                ("UNIQUE_CONSTRAINT_NAME", NullText(64)),
                ("MATCH_OPTION", Text(64)),
                ("UPDATE_RULE", Text(64)),
                ("DELETE_RULE", Text(64)),
                ("TABLE_NAME", Text(64)),
                ("REFERENCED_TABLE_NAME", NullText(64)),
            ],
            SystemTable::CheckConstraints => &[
                ("CONSTRAINT_CATALOG", Text(512)),
                ("CONSTRAINT_SCHEMA", Text(64)),
                ("TABLE_NAME", Text(64)),
                ("CONSTRAINT_NAME", Text(64)),
                ("LEVEL", Text(6)),
                ("CHECK_CLAUSE", LongText),
            ],
        };
        TableSchema {
            name: self.name().to_string(),
            columns: columns.iter().map(|(name, c)| c.schema(name)).collect(),
            primary_key: None,
            indexes: Vec::new(),
            fulltext_indexes: Vec::new(),
            comment: String::new(),
            options: Default::default(),
            foreign_keys: Vec::new(),
            checks: Vec::new(),
        }
    }
}

/// The column types information_schema uses (MariaDB's `ST_FIELD_INFO` kinds).
#[derive(Clone, Copy)]
enum Column {
    /// VARCHAR(n) NOT NULL, and its nullable form.
    Text(u32),
    NullText(u32),
    LongText,
    NullLongText,
    NullBlob,
    /// BIGINT(21) UNSIGNED NOT NULL, and its nullable form: counts and sizes.
    Count,
    NullCount,
    /// A signed integer of a display width, NOT NULL, and its nullable form.
    Integer(IntWidth, u32),
    NullInteger(IntWidth, u32),
    Unsigned(IntWidth, u32),
    /// DECIMAL(precision, scale) NOT NULL.
    Fixed(u8, u8),
    /// DATETIME NOT NULL, and a nullable DATETIME(fsp).
    DateTime,
    NullDateTime(u8),
}

impl Column {
    fn schema(self, name: &str) -> ColumnSchema {
        let int = |width, unsigned| DataType::Int { width, unsigned };
        let (data_type, nullable, display_width) = match self {
            Column::Text(length) => (DataType::varchar(length), false, None),
            Column::NullText(length) => (DataType::varchar(length), true, None),
            Column::LongText => (text(LobSize::Long), false, None),
            Column::NullLongText => (text(LobSize::Long), true, None),
            Column::NullBlob => (
                DataType::Blob {
                    size: LobSize::Regular,
                },
                true,
                None,
            ),
            Column::Count => (int(IntWidth::Big, true), false, Some(21)),
            Column::NullCount => (int(IntWidth::Big, true), true, Some(21)),
            Column::Integer(width, display) => (int(width, false), false, Some(display)),
            Column::NullInteger(width, display) => (int(width, false), true, Some(display)),
            Column::Unsigned(width, display) => (int(width, true), false, Some(display)),
            Column::Fixed(precision, scale) => (
                DataType::Decimal {
                    precision,
                    scale,
                    unsigned: false,
                },
                false,
                None,
            ),
            Column::DateTime => (DataType::DateTime { fsp: 0 }, false, None),
            Column::NullDateTime(fsp) => (DataType::DateTime { fsp }, true, None),
        };
        ColumnSchema {
            name: name.to_string(),
            data_type,
            nullable,
            default: ColumnDefault::None,
            auto_increment: false,
            on_update_current_timestamp: false,
            comment: String::new(),
            display_width,
            generated: None,
        }
    }
}

fn text(size: LobSize) -> DataType {
    DataType::text(size)
}

/// What rows are made from: the state current when the statement runs (invariant (1)).
pub struct RowSource<'a> {
    pub engine: &'a Engine,
    pub grants: &'a SessionGrants,
    /// The session's user name (without PROCESS it sees only that user's processes).
    pub user: &'a str,
    /// The session's zone, which TIMESTAMP defaults are shown in.
    pub time_zone: TimeZone,
    /// The session itself: its variables and TLS parameters (SESSION_VARIABLES,
    /// SESSION_STATUS).
    pub(crate) session: &'a SessionState,
}

type Row = Vec<Value>;

/// A statement's lookups (`SystemTable::lookups`) with their values: the exact names
/// its rows must have in the lookup cells (None, for a NULL value: no name at all).
pub struct NameLookup {
    table: SystemTable,
    names: Vec<(usize, Option<String>)>,
    /// The table's database-name lookup cell, which `wants_table` compares with the
    /// database; any other lookup cell is the table name's.
    db_cell: Option<usize>,
}

impl NameLookup {
    /// Every row of `table`.
    pub fn everything(table: SystemTable) -> NameLookup {
        NameLookup::new(table, Vec::new())
    }

    /// The rows whose cell `.0` holds name `.1`, for each of `names`.
    pub fn new(table: SystemTable, names: Vec<(usize, Option<String>)>) -> NameLookup {
        let [db_cell, _] = table.lookup_cells();
        NameLookup {
            table,
            names,
            db_cell,
        }
    }

    /// Whether the rows describing table `table` of database `db` may be wanted.
    fn wants_table(&self, db: &str, table: &str) -> bool {
        self.names.iter().all(|(cell, name)| {
            let actual = if Some(*cell) == self.db_cell {
                db
            } else {
                table
            };
            name.as_deref() == Some(actual)
        })
    }

    fn wants_row(&self, row: &[Value]) -> bool {
        self.names
            .iter()
            .all(|(cell, name)| name.as_deref().map(str::as_bytes) == row[*cell].as_bytes())
    }
}

fn string(s: &str) -> Value {
    Value::text(s)
}

fn optional(s: Option<&str>) -> Value {
    s.map_or(Value::Null, string)
}

fn count(n: u64) -> Value {
    Value::UInt(n)
}

/// The catalog, the only catalog name MariaDB has.
const CATALOG: &str = "def";
/// The engine every table of ours answers to (as SHOW ENGINES and SHOW CREATE TABLE say).
const ENGINE: &str = "InnoDB";
const COLLATION: &str = "utf8mb4_general_ci";
/// information_schema's own character set and collation in MariaDB.
const SYSTEM_CHARSET: &str = "utf8mb3";
const SYSTEM_COLLATION: &str = "utf8mb3_general_ci";

/// The rows of `table` the session sees now (invariants (1), (2)) that `lookup` names.
pub fn rows(table: SystemTable, source: &RowSource, lookup: &NameLookup) -> Vec<Row> {
    debug_assert_eq!(lookup.table, table);
    let mut rows = all_rows(table, source, lookup);
    rows.retain(|row| lookup.wants_row(row));
    rows
}

/// The rows of `table`, of the tables `lookup` names where that saves work (binding a
/// view, reading a table's indexes); the caller applies `lookup` to the rest.
fn all_rows(table: SystemTable, source: &RowSource, lookup: &NameLookup) -> Vec<Row> {
    let catalog = source.engine.storage().catalog();
    match table {
        SystemTable::Schemata => schemata(&catalog, source.grants),
        SystemTable::Tables => tables(&catalog, source.grants, None),
        SystemTable::Columns => columns(&catalog, source, lookup),
        SystemTable::Statistics => {
            let mut rows = Vec::new();
            for (db, table) in visible_tables(&catalog, source.grants, None) {
                if lookup.wants_table(db, &table.schema.name) {
                    rows.extend(statistics(db, &table.schema, table.approximate_row_count()));
                }
            }
            rows
        }
        SystemTable::TableConstraints | SystemTable::KeyColumnUsage => {
            let kind = match table {
                SystemTable::TableConstraints => ConstraintRows::Constraints,
                _ => ConstraintRows::Columns,
            };
            let mut rows = Vec::new();
            for (db, visible) in visible_tables(&catalog, source.grants, None) {
                rows.extend(constraints(kind, db, &visible.schema));
            }
            rows
        }
        SystemTable::Processlist => processlist(source),
        SystemTable::Engines => engines(),
        SystemTable::CharacterSets => character_sets(),
        SystemTable::Collations => collations(),
        SystemTable::ReferentialConstraints => {
            let mut rows = Vec::new();
            for (db, visible) in visible_tables(&catalog, source.grants, None) {
                rows.extend(referential_constraints(&catalog, db, &visible.schema));
            }
            rows
        }
        SystemTable::CheckConstraints => {
            let mut rows = Vec::new();
            for (db, visible) in visible_tables(&catalog, source.grants, None) {
                rows.extend(check_constraints(db, &visible.schema));
            }
            rows
        }
        SystemTable::Views => views(&catalog, source.grants, source.session.current_user()),
        SystemTable::Triggers => triggers(&catalog, source.grants),
        SystemTable::Routines => routines(&catalog, source),
        SystemTable::Parameters => parameters(&catalog, source),
        // manycore has no events.
        SystemTable::Events => Vec::new(),
        SystemTable::GlobalStatus => {
            name_value_rows(show::status(source.engine, None, source.session.tls(), None).rows)
        }
        SystemTable::SessionStatus => {
            let session = Some(source.session.counters());
            name_value_rows(show::status(source.engine, None, source.session.tls(), session).rows)
        }
        SystemTable::GlobalVariables => name_value_rows(source.session.variable_rows(true)),
        SystemTable::SessionVariables => name_value_rows(source.session.variable_rows(false)),
    }
}

/// SCHEMATA rows (also SHOW DATABASES): information_schema, then what the session sees.
pub fn schemata(catalog: &Catalog, grants: &SessionGrants) -> Vec<Row> {
    let schema = |name: &str, charset: &str, collation: &str| {
        vec![
            string(CATALOG),
            string(name),
            string(charset),
            string(collation),
            Value::Null,
            string(""),
        ]
    };
    let mut rows = vec![schema(NAME, SYSTEM_CHARSET, SYSTEM_COLLATION)];
    // The SHOW DATABASES privilege lists every database, though entering one still needs
    // a privilege in it (USE is 1044), as in MariaDB.
    let sees_all = grants.global(Privileges::SHOW_DATABASES);
    for (name, database) in &catalog.databases {
        if sees_all || grants.sees_database(name) {
            rows.push(schema(name, "utf8mb4", database.collation.name()));
        }
    }
    rows
}

/// (database, table) of the catalog tables the session sees (invariant (2)), in name
/// order, of database `only` if given; information_schema's own come first.
fn visible_tables<'a>(
    catalog: &'a Catalog,
    grants: &SessionGrants,
    only: Option<&str>,
) -> Vec<(&'a str, Arc<Table>)> {
    let mut visible = Vec::new();
    if only.is_none_or(is_name) {
        visible.extend(
            SystemTable::ALL
                .iter()
                .map(|t| (NAME, Arc::clone(t.table()))),
        );
    }
    for (db, database) in &catalog.databases {
        if only.is_some_and(|only| only != db.as_str()) {
            continue;
        }
        for (name, table) in &database.tables {
            if grants.table_any(db, name) {
                visible.push((db.as_str(), Arc::clone(table)));
            }
        }
    }
    visible
}

/// TABLES rows, of database `only` if given: also SHOW TABLES and SHOW TABLE STATUS.
pub fn tables(catalog: &Catalog, grants: &SessionGrants, only: Option<&str>) -> Vec<Row> {
    let mut rows: Vec<Row> = visible_tables(catalog, grants, only)
        .into_iter()
        .map(|(db, table)| table_row(db, &table))
        .collect();
    let mut views = visible_views(catalog, grants, only).peekable();
    if views.peek().is_none() {
        return rows;
    }
    for (db, view) in views {
        let mut row = vec![
            string(CATALOG),
            string(db),
            string(&view.name),
            string("VIEW"),
        ];
        row.extend(std::iter::repeat_n(Value::Null, 16));
        row.extend([string("VIEW"), Value::Null, Value::Null]);
        rows.push(row);
    }
    // Each database's tables and views in name order, as SHOW TABLES lists them.
    rows.sort_by(|a, b| {
        (a[1].as_bytes(), a[2].as_bytes()).cmp(&(b[1].as_bytes(), b[2].as_bytes()))
    });
    rows
}

/// The character set and collation a view reports as its client's (MariaDB records the
/// creating session's; manycore's sessions default to these).
pub const VIEW_CHARSET: (&str, &str) = ("utf8mb4", COLLATION);

/// (database, view) of the views the session sees, of database `only` if given.
fn visible_views<'a>(
    catalog: &'a Catalog,
    grants: &'a SessionGrants,
    only: Option<&'a str>,
) -> impl Iterator<Item = (&'a str, &'a ViewSchema)> + 'a {
    catalog
        .databases
        .iter()
        .filter(move |(db, _)| only.is_none_or(|only| only == db.as_str()))
        .flat_map(|(db, database)| database.views.values().map(move |v| (db.as_str(), &**v)))
        .filter(move |(db, view)| grants.table_any(db, &view.name))
}

/// VIEWS rows (module notes: the query as written, not MariaDB's rewritten text). As in
/// MariaDB, VIEW_DEFINITION is '' unless the session's account (`current_user`, `user@host`)
/// is the view's definer or holds SELECT and SHOW VIEW on it.
fn views(catalog: &Catalog, grants: &SessionGrants, current_user: &str) -> Vec<Row> {
    let shows_definition = Privileges::SELECT | Privileges::SHOW_VIEW;
    visible_views(catalog, grants, None)
        .map(|(db, view)| {
            let updatable = crate::view::parse_query(&view.query)
                .is_ok_and(|query| crate::view::updatable(&query));
            let definition = match view.definer == current_user
                || grants.table(db, &view.name).contains(shows_definition)
            {
                true => view.query.as_str(),
                false => "",
            };
            vec![
                string(CATALOG),
                string(db),
                string(&view.name),
                string(definition),
                string(&view.check_option),
                string(if updatable { "YES" } else { "NO" }),
                string(&view.definer),
                string(&view.security),
                string(VIEW_CHARSET.0),
                string(VIEW_CHARSET.1),
                string(&view.algorithm),
            ]
        })
        .collect()
}

/// TRIGGERS rows (also SHOW TRIGGERS): the triggers of the tables the session holds
/// TRIGGER on (MariaDB leaves the others out), by table, event, timing and firing order.
/// CREATED is NULL: the creation time is not kept yet. DATABASE_COLLATION is the
/// database's now (MariaDB records it at CREATE TRIGGER: the two differ only after
/// an ALTER DATABASE ... COLLATE).
fn triggers(catalog: &Catalog, grants: &SessionGrants) -> Vec<Row> {
    let mut rows = Vec::new();
    for (db, database) in &catalog.databases {
        // By table, event (INSERT, UPDATE, DELETE), timing (BEFORE, AFTER), then in
        // firing order, as MariaDB lists them.
        let rank = |n: usize, t: &TriggerSchema| {
            let event = ["INSERT", "UPDATE", "DELETE"]
                .iter()
                .position(|e| *e == t.event);
            (t.table.clone(), event, t.timing != "BEFORE", n)
        };
        let mut listed: Vec<(usize, &Arc<TriggerSchema>)> =
            database.triggers.iter().enumerate().collect();
        listed.sort_by_cached_key(|(n, t)| rank(*n, t));
        for (n, trigger) in listed {
            if !grants
                .table(db, &trigger.table)
                .contains(Privileges::TRIGGER)
            {
                continue;
            }
            // ACTION_ORDER: its place among the triggers of its table, event and timing.
            let order = database.triggers[..=n]
                .iter()
                .filter(|t| {
                    t.table == trigger.table
                        && t.event == trigger.event
                        && t.timing == trigger.timing
                })
                .count();
            rows.push(vec![
                string(CATALOG),
                string(db),
                string(&trigger.name),
                string(&trigger.event),
                string(CATALOG),
                string(db),
                string(&trigger.table),
                count(order as u64),
                Value::Null,
                string(&trigger.body),
                string("ROW"),
                string(&trigger.timing),
                Value::Null,
                Value::Null,
                string("OLD"),
                string("NEW"),
                Value::Null,
                string(&trigger.sql_mode),
                string(&trigger.definer),
                string(&trigger.character_set_client),
                string(&trigger.collation_connection),
                string(database.collation.name()),
            ]);
        }
    }
    rows
}

fn table_row(db: &str, table: &Table) -> Row {
    let schema = &table.schema;
    let mut row = vec![string(CATALOG), string(db), string(&schema.name)];
    if is_name(db) {
        // As MariaDB describes its own (MEMORY engine) tables; sizes unknown.
        row.extend([
            string("SYSTEM VIEW"),
            string("MEMORY"),
            count(11),
            string("Fixed"),
        ]);
        row.extend(std::iter::repeat_n(Value::Null, 10));
        row.extend([
            string(SYSTEM_COLLATION),
            Value::Null,
            string(""),
            string(""),
            count(0),
            string("Y"),
        ]);
        return row;
    }
    let auto_increment = match schema.auto_increment_column() {
        Some(_) => count(table.auto_increment()),
        None => Value::Null,
    };
    // InnoDB's format, as MariaDB names it ("Dynamic" unless declared otherwise); a
    // declared one is also among the create options.
    let format = schema
        .options
        .row_format
        .unwrap_or(RowFormat::Dynamic)
        .keyword();
    let create_options = match schema.options.row_format {
        Some(declared) => format!("row_format={}", declared.keyword()),
        None => String::new(),
    };
    row.extend([
        string("BASE TABLE"),
        string(ENGINE),
        count(10),
        string(&format!(
            "{}{}",
            &format[..1],
            format[1..].to_ascii_lowercase()
        )),
        count(table.approximate_row_count() as u64),
        count(0),
        count(0),
        count(0),
        count(0),
        count(0),
        auto_increment,
        Value::Null,
        Value::Null,
        Value::Null,
        string(schema.options.default_collation.name()),
        Value::Null,
        string(&create_options),
        string(&schema.comment),
        count(0),
        string("N"),
    ]);
    row
}

/// COLUMNS rows: the columns of every table and view the session sees and the statement
/// wants. A view's are its bound result columns; a view that does not bind for the
/// session (a table it reads is gone, or hidden from the session) shows none, with its
/// 1356 as a warning, as in MariaDB, which also binds only the views a statement names.
fn columns(catalog: &Catalog, source: &RowSource, lookup: &NameLookup) -> Vec<Row> {
    let grants = source.grants;
    let mut tables = visible_tables(catalog, grants, None);
    tables.retain(|(db, table)| lookup.wants_table(db, &table.schema.name));
    let views = visible_views(catalog, grants, None).filter_map(|(db, view)| {
        if !lookup.wants_table(db, &view.name) {
            return None;
        }
        match source.session.view_table(catalog, db, view) {
            Ok(table) => Some((db, Arc::new(table))),
            Err(e) => {
                source.session.warn(e.code, e.message);
                None
            }
        }
    });
    let mut rows = Vec::new();
    for (db, table) in tables.into_iter().chain(views) {
        let schema = &table.schema;
        for (i, c) in schema.columns.iter().enumerate() {
            if grants.sees_column(db, &schema.name, &c.name) {
                rows.push(column_row(db, schema, i, source.time_zone));
            }
        }
    }
    rows
}

fn column_row(db: &str, schema: &TableSchema, i: usize, zone: TimeZone) -> Row {
    let c = &schema.columns[i];
    let column_type = type_text(c);
    let mut row = vec![
        string(CATALOG),
        string(db),
        string(&schema.name),
        string(&c.name),
        count(i as u64 + 1),
        optional(column_default(c, zone).as_deref()),
        string(if c.nullable { "YES" } else { "NO" }),
    ];
    row.extend(type_facts(&c.data_type, &column_type));
    row.extend([
        string(&column_type),
        string(key_kind(schema, i)),
        string(&extra(c)),
        string(COLUMN_PRIVILEGES),
        string(&c.comment),
        string(if c.generated.is_some() {
            "ALWAYS"
        } else {
            "NEVER"
        }),
        c.generated
            .as_ref()
            .map_or(Value::Null, |g| string(&g.expression)),
    ]);
    row
}

/// DATA_TYPE, CHARACTER_MAXIMUM_LENGTH, CHARACTER_OCTET_LENGTH, NUMERIC_PRECISION,
/// NUMERIC_SCALE, DATETIME_PRECISION, CHARACTER_SET_NAME and COLLATION_NAME of a column
/// or parameter of `data_type`, whose full type is `type_text`.
fn type_facts(data_type: &DataType, type_text: &str) -> [Value; 8] {
    let name = type_text
        .split(['(', ' '])
        .next()
        .expect("split yields a first piece");
    let (charset, collation) = match data_type.collation() {
        manycore_types::Collation::Binary => (Value::Null, Value::Null),
        collation => (string("utf8mb4"), string(collation.name())),
    };
    let (char_length, octet_length) = match character_length(data_type) {
        Some((chars, octets)) => (count(chars), count(octets)),
        None => (Value::Null, Value::Null),
    };
    let (precision, scale) = numeric_precision(data_type);
    let datetime_precision = match data_type {
        DataType::DateTime { fsp } | DataType::Timestamp { fsp } | DataType::Time { fsp } => {
            count((*fsp).into())
        }
        _ => Value::Null,
    };
    [
        string(name),
        char_length,
        octet_length,
        precision.map_or(Value::Null, count),
        scale.map_or(Value::Null, count),
        datetime_precision,
        charset,
        collation,
    ]
}

/// The routines the session sees (`routine` invariant (9)), with how much of each.
fn visible_routines<'c>(
    catalog: &'c Catalog,
    source: &RowSource,
) -> Vec<(
    &'c str,
    &'c manycore_storage::Database,
    &'c RoutineSchema,
    Sight,
)> {
    let current_user = source.session.current_user();
    let mut visible = Vec::new();
    for (db, database) in &catalog.databases {
        for routine in database.routines.values() {
            let sight = crate::routine::sight(source.grants, current_user, db, routine);
            if sight != Sight::Hidden {
                visible.push((db.as_str(), &**database, &**routine, sight));
            }
        }
    }
    visible
}

/// ROUTINES rows: the stored routines the session sees.
fn routines(catalog: &Catalog, source: &RowSource) -> Vec<Row> {
    let mut rows = Vec::new();
    for (db, database, routine, sight) in visible_routines(catalog, source) {
        let kind = crate::routine::kind_name(routine.kind);
        let mut row = vec![
            string(&routine.name),
            string(CATALOG),
            string(db),
            string(&routine.name),
            string(kind),
        ];
        // A function's RETURNS is described as a column's type; a procedure has none.
        match crate::routine::stored_returns(&routine.returns) {
            Ok(returns) if routine.kind == RoutineKind::Function => {
                let type_text = returns.sql_name();
                row.extend(type_facts(&returns, &type_text));
                row.push(string(&type_text));
            }
            _ => {
                row.push(string(""));
                row.extend([const { Value::Null }; 8]);
            }
        }
        row.extend([
            string("SQL"),
            match sight {
                Sight::Whole => string(&routine.body),
                _ => Value::Null,
            },
            Value::Null,
            Value::Null,
            string("SQL"),
            string(if routine.deterministic { "YES" } else { "NO" }),
            string(&routine.data_access),
            Value::Null,
            string(&routine.security),
            string(&routine.created),
            string(&routine.modified),
            string(&routine.sql_mode),
            string(&routine.comment),
            string(&routine.definer),
            string(&routine.character_set_client),
            string(&routine.collation_connection),
            string(database.collation.name()),
        ]);
        rows.push(row);
    }
    rows
}

/// PARAMETERS rows: one per parameter of each routine ROUTINES lists. A parameter list
/// that no longer reads (it was checked at CREATE) lists no parameters.
fn parameters(catalog: &Catalog, source: &RowSource) -> Vec<Row> {
    let mut rows = Vec::new();
    for (db, _, routine, _) in visible_routines(catalog, source) {
        let kind = string(crate::routine::kind_name(routine.kind));
        // A function's RETURNS is its row 0, without mode or name.
        if routine.kind == RoutineKind::Function {
            if let Ok(returns) = crate::routine::stored_returns(&routine.returns) {
                let type_text = returns.sql_name();
                let mut row = vec![
                    string(CATALOG),
                    string(db),
                    string(&routine.name),
                    count(0),
                    Value::Null,
                    Value::Null,
                ];
                row.extend(type_facts(&returns, &type_text));
                row.extend([string(&type_text), kind.clone()]);
                rows.push(row);
            }
        }
        let parameters = crate::routine::parameters(&routine.params).unwrap_or_default();
        for (i, parameter) in parameters.iter().enumerate() {
            let type_text = parameter.data_type.sql_name();
            let mut row = vec![
                string(CATALOG),
                string(db),
                string(&routine.name),
                count(i as u64 + 1),
                string(parameter.mode.name()),
                string(&parameter.name),
            ];
            row.extend(type_facts(&parameter.data_type, &type_text));
            row.extend([string(&type_text), kind.clone()]);
            rows.push(row);
        }
    }
    rows
}

/// What COLUMNS.PRIVILEGES and SHOW FULL COLUMNS say (the privileges any column has).
pub const COLUMN_PRIVILEGES: &str = "select,insert,update,references";

/// (characters, bytes) a string column holds; None for other types.
fn character_length(t: &DataType) -> Option<(u64, u64)> {
    let lob = |size: &LobSize| match size {
        LobSize::Tiny => 255,
        LobSize::Regular => 65_535,
        LobSize::Medium => 16_777_215,
        LobSize::Long => 4_294_967_295,
    };
    match t {
        // utf8mb4: up to four bytes a character.
        DataType::Char { length, .. } | DataType::VarChar { length, .. } => {
            Some((u64::from(*length), u64::from(*length) * 4))
        }
        DataType::Binary { length } | DataType::VarBinary { length } => {
            Some((u64::from(*length), u64::from(*length)))
        }
        DataType::Text { size, .. } | DataType::Blob { size } => Some((lob(size), lob(size))),
        DataType::Enum { .. } | DataType::Set { .. } => {
            let length = t.max_length().unwrap_or(0);
            Some((length, length * 4))
        }
        _ => None,
    }
}

/// (NUMERIC_PRECISION, NUMERIC_SCALE) as MariaDB reports them.
fn numeric_precision(t: &DataType) -> (Option<u64>, Option<u64>) {
    match t {
        DataType::Int { width, unsigned } => {
            let digits = match (width, unsigned) {
                (IntWidth::Tiny, _) => 3,
                (IntWidth::Small, _) => 5,
                (IntWidth::Medium, _) => 7,
                (IntWidth::Int, _) => 10,
                (IntWidth::Big, false) => 19,
                (IntWidth::Big, true) => 20,
            };
            (Some(digits), Some(0))
        }
        DataType::Decimal {
            precision, scale, ..
        } => (Some((*precision).into()), Some((*scale).into())),
        DataType::Float { .. } | DataType::Double { .. } => match t.fixed_precision() {
            Some((precision, decimals)) => (Some(precision.into()), Some(decimals.into())),
            None => (Some(t.display_length().into()), None),
        },
        _ => (None, None),
    }
}

/// The default as COLUMNS.COLUMN_DEFAULT shows it (MariaDB 10.2.7 and later): a string
/// quoted, a number or CURRENT_TIMESTAMP as is, the word NULL for a nullable column
/// without one, None (SQL NULL) for a NOT NULL column without one.
fn column_default(c: &ColumnSchema, zone: TimeZone) -> Option<String> {
    match &c.default {
        ColumnDefault::None | ColumnDefault::Value(Value::Null) => {
            c.nullable.then(|| "NULL".to_string())
        }
        ColumnDefault::Value(_) if !c.data_type.is_numeric() => {
            default_text(c, zone).map(|text| quote_string(&text))
        }
        _ => default_text(c, zone),
    }
}

pub fn quote_string(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''"))
}

/// Key column of SHOW COLUMNS and COLUMNS.COLUMN_KEY: PRI, UNI or MUL (as MariaDB
/// decides it).
pub fn key_kind(schema: &TableSchema, i: usize) -> &'static str {
    if schema
        .primary_key
        .as_deref()
        .is_some_and(|pk| pk.contains(&i))
    {
        return "PRI";
    }
    if schema.indexes.iter().any(|x| x.unique && x.columns == [i]) {
        return "UNI";
    }
    let leads = |columns: &[usize]| columns.first() == Some(&i);
    if schema.indexes.iter().any(|x| leads(&x.columns))
        || schema.fulltext_indexes.iter().any(|x| leads(&x.columns))
    {
        return "MUL";
    }
    ""
}

pub fn timestamp_function(t: &DataType) -> String {
    match t {
        DataType::DateTime { fsp } | DataType::Timestamp { fsp } if *fsp > 0 => {
            format!("current_timestamp({fsp})")
        }
        _ => "current_timestamp()".to_string(),
    }
}

/// The default as SHOW COLUMNS prints it (unquoted), or None for NULL: a TIMESTAMP's in
/// the session's `zone`, like its cells.
pub fn default_text(c: &ColumnSchema, zone: TimeZone) -> Option<String> {
    match &c.default {
        ColumnDefault::None => None,
        ColumnDefault::CurrentTimestamp => Some(timestamp_function(&c.data_type)),
        ColumnDefault::Value(Value::Null) => None,
        ColumnDefault::Value(v) => {
            let shown = shown_cell(&c.data_type, v.clone(), zone);
            Some(format::to_text(&shown, &c.data_type))
        }
    }
}

/// SHOW COLUMNS' Extra and COLUMNS.EXTRA.
pub fn extra(c: &ColumnSchema) -> String {
    let mut parts = Vec::new();
    if c.auto_increment {
        parts.push("auto_increment".to_string());
    }
    if c.on_update_current_timestamp {
        parts.push(format!("on update {}", timestamp_function(&c.data_type)));
    }
    if let Some(g) = &c.generated {
        parts.push(format!(
            "{} GENERATED",
            if g.stored { "STORED" } else { "VIRTUAL" }
        ));
    }
    parts.join(" ")
}

/// The column type as SHOW and COLUMNS.COLUMN_TYPE print it, with the declared display
/// width of an integer.
pub fn type_text(c: &ColumnSchema) -> String {
    match (&c.data_type, c.display_width) {
        (DataType::Int { width, unsigned }, Some(w)) => {
            let sign = if *unsigned { " unsigned" } else { "" };
            format!("{}({w}){sign}", width.sql_name())
        }
        _ => c.data_type.sql_name(),
    }
}

/// Secondary indexes in the order MariaDB keeps keys (sort_keys): unique keys over NOT
/// NULL columns, then other unique keys, then the rest, each group in creation order.
pub fn sorted_indexes(schema: &TableSchema) -> Vec<&IndexSchema> {
    let rank = |i: &IndexSchema| {
        let nullable = i.columns.iter().any(|&c| schema.columns[c].nullable);
        match (i.unique, nullable) {
            (true, false) => 0,
            (true, true) => 1,
            (false, _) => 2,
        }
    };
    let mut indexes: Vec<_> = schema.indexes.iter().collect();
    indexes.sort_by_key(|i| rank(i));
    indexes
}

/// A table's keys as MariaDB lists them: the primary key first, then the others in
/// `sorted_indexes` order, then the FULLTEXT ones in creation order (sort_keys puts them
/// last).
fn keys(schema: &TableSchema) -> Vec<Key<'_>> {
    let primary = schema.primary_key.as_deref().map(|columns| Key {
        name: "PRIMARY",
        unique: true,
        fulltext: false,
        columns,
        prefix_lengths: &[],
    });
    let others = sorted_indexes(schema).into_iter().map(|i| Key {
        name: &i.name,
        unique: i.unique,
        fulltext: false,
        columns: &i.columns,
        prefix_lengths: &i.prefix_lengths,
    });
    let fulltext = schema.fulltext_indexes.iter().map(|i| Key {
        name: &i.name,
        unique: false,
        fulltext: true,
        columns: &i.columns,
        prefix_lengths: &[],
    });
    primary.into_iter().chain(others).chain(fulltext).collect()
}

/// A key as information_schema shows it; `prefix_lengths` is empty for whole columns.
struct Key<'a> {
    name: &'a str,
    unique: bool,
    fulltext: bool,
    columns: &'a [usize],
    prefix_lengths: &'a [Option<u32>],
}

/// STATISTICS rows of one table (also SHOW INDEX): a row per key column, in `keys`
/// order. Cardinality is `row_count`.
pub fn statistics(db: &str, schema: &TableSchema, row_count: usize) -> Vec<Row> {
    let mut rows = Vec::new();
    for Key {
        name,
        unique,
        fulltext,
        columns,
        prefix_lengths,
    } in keys(schema)
    {
        for (seq, &c) in columns.iter().enumerate() {
            let column = &schema.columns[c];
            let sub_part = prefix_lengths.get(seq).copied().flatten();
            // A FULLTEXT index has no order and no cardinality, as MariaDB shows it.
            let (collation, cardinality) = match fulltext {
                true => (Value::Null, Value::Null),
                false => (string("A"), count(row_count as u64)),
            };
            rows.push(vec![
                string(CATALOG),
                string(db),
                string(&schema.name),
                Value::Int(if unique { 0 } else { 1 }),
                string(db),
                string(name),
                count(seq as u64 + 1),
                string(&column.name),
                collation,
                cardinality,
                sub_part.map_or(Value::Null, |n| count(n.into())),
                Value::Null,
                string(if column.nullable { "YES" } else { "" }),
                string(if fulltext { "FULLTEXT" } else { "BTREE" }),
                string(""),
                string(""),
                string("NO"),
            ]);
        }
    }
    rows
}

/// Which of the two constraint tables `constraints` makes rows of.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ConstraintRows {
    /// TABLE_CONSTRAINTS: one row per constraint.
    Constraints,
    /// KEY_COLUMN_USAGE: one row per constraint column.
    Columns,
}

/// TABLE_CONSTRAINTS or KEY_COLUMN_USAGE rows of one table: its unique keys (PRIMARY
/// KEY, then UNIQUE in `keys` order), foreign keys, and (TABLE_CONSTRAINTS only, as
/// MariaDB) CHECK constraints in the table's order.
fn constraints(kind: ConstraintRows, db: &str, schema: &TableSchema) -> Vec<Row> {
    let mut rows = Vec::new();
    let table_constraint = |name: &str, constraint_type: &str| {
        vec![
            string(CATALOG),
            string(db),
            string(name),
            string(db),
            string(&schema.name),
            string(constraint_type),
        ]
    };
    for Key { name, columns, .. } in keys(schema).into_iter().filter(|k| k.unique) {
        if kind == ConstraintRows::Constraints {
            let kind = if name == "PRIMARY" {
                "PRIMARY KEY"
            } else {
                "UNIQUE"
            };
            rows.push(table_constraint(name, kind));
            continue;
        }
        for (position, &c) in columns.iter().enumerate() {
            rows.push(vec![
                string(CATALOG),
                string(db),
                string(name),
                string(CATALOG),
                string(db),
                string(&schema.name),
                string(&schema.columns[c].name),
                Value::Int(position as i64 + 1),
                Value::Null,
                Value::Null,
                Value::Null,
                Value::Null,
            ]);
        }
    }
    for fk in &schema.foreign_keys {
        if kind == ConstraintRows::Constraints {
            rows.push(table_constraint(&fk.name, "FOREIGN KEY"));
            continue;
        }
        for (position, (&c, parent_column)) in fk.columns.iter().zip(&fk.parent_columns).enumerate()
        {
            let position = Value::Int(position as i64 + 1);
            rows.push(vec![
                string(CATALOG),
                string(db),
                string(&fk.name),
                string(CATALOG),
                string(db),
                string(&schema.name),
                string(&schema.columns[c].name),
                position.clone(),
                position,
                string(&fk.parent_db),
                string(&fk.parent_table),
                string(parent_column),
            ]);
        }
    }
    if kind == ConstraintRows::Constraints {
        for check in &schema.checks {
            rows.push(table_constraint(&check.name, "CHECK"));
        }
    }
    rows
}

/// CHECK_CONSTRAINTS rows of one table, in its order: the expression as SHOW CREATE
/// TABLE prints it, LEVEL 'Column' for a constraint written on its column.
fn check_constraints(db: &str, schema: &TableSchema) -> Vec<Row> {
    schema
        .checks
        .iter()
        .map(|check| {
            vec![
                string(CATALOG),
                string(db),
                string(&schema.name),
                string(&check.name),
                string(if check.column_level {
                    "Column"
                } else {
                    "Table"
                }),
                string(&check.expression),
            ]
        })
        .collect()
}

/// REFERENTIAL_CONSTRAINTS rows of one child table: the parent's index the key uses is
/// its UNIQUE_CONSTRAINT_NAME (NULL while the parent does not exist).
fn referential_constraints(catalog: &Catalog, db: &str, schema: &TableSchema) -> Vec<Row> {
    use manycore_storage::ReferentialAction as A;
    let rule = |a: A| {
        string(match a {
            A::Restrict => "RESTRICT",
            A::Cascade => "CASCADE",
            A::SetNull => "SET NULL",
            A::NoAction => "NO ACTION",
        })
    };
    schema
        .foreign_keys
        .iter()
        .map(|fk| {
            let index = crate::foreign_key::parent_index_name(catalog, fk);
            vec![
                string(CATALOG),
                string(db),
                string(&fk.name),
                string(CATALOG),
                string(&fk.parent_db),
                index.as_deref().map_or(Value::Null, string),
                string("NONE"),
                rule(fk.on_update),
                rule(fk.on_delete),
                string(&schema.name),
                string(&fk.parent_table),
            ]
        })
        .collect()
}

/// ENGINES rows (also SHOW ENGINES): manycore's storage, which answers to InnoDB.
pub fn engines() -> Vec<Row> {
    vec![vec![
        string(ENGINE),
        string("DEFAULT"),
        string("manycore in-memory MVCC storage (answers to InnoDB for compatibility)"),
        string("YES"),
        string("NO"),
        string("YES"),
    ]]
}

/// The character sets manycore accepts: (name, description, default collation, maxlen).
const CHARSETS: &[(&str, &str, &str, u64)] = &[
    ("ascii", "US ASCII", "ascii_general_ci", 1),
    ("binary", "Binary pseudo charset", "binary", 1),
    ("latin1", "cp1252 West European", "latin1_swedish_ci", 1),
    ("utf8mb3", "UTF-8 Unicode", "utf8mb3_general_ci", 3),
    ("utf8mb4", "UTF-8 Unicode", "utf8mb4_general_ci", 4),
];

/// (name, character set, id, is the set's default) of the collations manycore accepts.
const COLLATIONS: &[(&str, &str, u64, bool)] = &[
    ("ascii_general_ci", "ascii", 11, true),
    ("binary", "binary", 63, true),
    ("latin1_swedish_ci", "latin1", 8, true),
    ("utf8mb3_general_ci", "utf8mb3", 33, true),
    ("utf8mb4_bin", "utf8mb4", 46, false),
    ("utf8mb4_general_ci", "utf8mb4", 45, true),
];

/// The name and default collation of a character set manycore accepts (utf8 is utf8mb3).
pub fn charset_default_collation(name: &str) -> Option<(&'static str, &'static str)> {
    let name = if name.eq_ignore_ascii_case("utf8") {
        "utf8mb3"
    } else {
        name
    };
    CHARSETS
        .iter()
        .find(|c| c.0.eq_ignore_ascii_case(name))
        .map(|c| (c.0, c.2))
}

pub fn collation_exists(name: &str) -> bool {
    COLLATIONS.iter().any(|c| c.0.eq_ignore_ascii_case(name))
}

/// CHARACTER_SETS rows (also SHOW CHARACTER SET).
pub fn character_sets() -> Vec<Row> {
    CHARSETS
        .iter()
        .map(|&(name, description, collation, maxlen)| {
            vec![
                string(name),
                string(collation),
                string(description),
                count(maxlen),
            ]
        })
        .collect()
}

/// COLLATIONS rows (also SHOW COLLATION).
pub fn collations() -> Vec<Row> {
    COLLATIONS
        .iter()
        .map(|&(name, charset, id, default)| {
            vec![
                string(name),
                string(charset),
                count(id),
                string(if default { "Yes" } else { "" }),
                string("Yes"),
                count(1),
            ]
        })
        .collect()
}

/// SHOW STATUS's or SHOW VARIABLES's rows as information_schema's: MariaDB spells the
/// names in capitals there.
fn name_value_rows(mut rows: Vec<Row>) -> Vec<Row> {
    for row in &mut rows {
        if let Value::Bytes(name) = &mut row[0] {
            name.make_ascii_uppercase();
        }
    }
    rows
}

/// PROCESSLIST rows the session sees (invariant (2)); also SHOW PROCESSLIST.
pub fn processlist(source: &RowSource) -> Vec<Row> {
    let all = source.grants.global(Privileges::PROCESS);
    source
        .engine
        .processlist()
        .rows()
        .into_iter()
        .filter(|p| all || p.user == source.user)
        .map(process_row)
        .collect()
}

fn process_row(p: ProcessRow) -> Row {
    // TIME_MS with its three decimals: only whole seconds are known.
    let seconds = i64::try_from(p.time_seconds).unwrap_or(i64::MAX);
    let millis = Decimal::new(seconds.saturating_mul(1_000_000), 3);
    let info_binary = p
        .info
        .as_ref()
        .map_or(Value::Null, |i| Value::Bytes(i.as_bytes().to_vec()));
    vec![
        count(p.id.into()),
        string(&p.user),
        string(&p.host),
        optional(p.database.as_deref()),
        string(p.command),
        Value::Int(p.time_seconds.min(i32::MAX as u64) as i64),
        string(p.state),
        optional(p.info.as_deref()),
        Value::Decimal(millis),
        Value::Int(0),
        Value::Int(0),
        Value::Decimal(Decimal::new(0, 3)),
        Value::Int(0),
        Value::Int(0),
        Value::Int(0),
        Value::Int(0),
        info_binary,
        count(p.thread_id),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn every_table_is_found_by_any_letter_case_and_recognised() {
        let catalog = Catalog::default();
        for t in SystemTable::ALL {
            let (db, table) = find_table(&catalog, "INFORMATION_SCHEMA", &t.name().to_lowercase())
                .expect("found");
            assert_eq!(db, NAME);
            assert_eq!(SystemTable::of(&table), Some(t));
        }
        let e = find_table(&catalog, NAME, "nosuch").err().expect("unknown");
        assert_eq!(e.code, ErrorCode::UnknownTable);
        let e = find_table(&catalog, "test", "t").err().expect("missing");
        assert_eq!(e.code, ErrorCode::NoSuchTable);
    }

    #[test]
    fn rows_are_as_wide_as_their_tables() {
        let schema = TableSchema {
            name: "t".into(),
            columns: vec![
                Column::Count.schema("id"),
                Column::NullText(10).schema("name"),
            ],
            primary_key: Some(vec![0]),
            indexes: vec![IndexSchema::new("k", vec![1, 0], false)],
            fulltext_indexes: Vec::new(),
            comment: String::new(),
            options: Default::default(),
            foreign_keys: Vec::new(),
            checks: Vec::new(),
        };
        let width = |t: SystemTable| t.table().schema.columns.len();
        let table = Table::detached("d", schema.clone());
        assert_eq!(table_row("d", &table).len(), width(SystemTable::Tables));
        let system = SystemTable::Tables.table();
        assert_eq!(table_row(NAME, system).len(), width(SystemTable::Tables));
        assert_eq!(
            column_row("d", &schema, 1, TimeZone::SYSTEM).len(),
            width(SystemTable::Columns)
        );
        let stats = statistics("d", &schema, 0);
        assert_eq!(stats.len(), 3, "PRIMARY (id), k (name, id)");
        assert!(stats
            .iter()
            .all(|r| r.len() == width(SystemTable::Statistics)));
        let constraints_of = |kind| constraints(kind, "d", &schema);
        let unique = constraints_of(ConstraintRows::Constraints);
        assert_eq!(unique.len(), 1, "PRIMARY only: k is not unique");
        assert_eq!(unique[0].len(), width(SystemTable::TableConstraints));
        assert_eq!(unique[0][5], string("PRIMARY KEY"));
        let usage = constraints_of(ConstraintRows::Columns);
        assert_eq!(usage.len(), 1);
        assert_eq!(usage[0].len(), width(SystemTable::KeyColumnUsage));
        for (table, rows) in [
            (SystemTable::Engines, engines()),
            (SystemTable::CharacterSets, character_sets()),
            (SystemTable::Collations, collations()),
        ] {
            assert!(rows.iter().all(|r| r.len() == width(table)), "{table:?}");
        }
        let process = ProcessRow {
            id: 7,
            user: "u".into(),
            host: "h".into(),
            database: None,
            command: "Sleep",
            time_seconds: 2,
            state: "",
            info: None,
            thread_id: 4242,
        };
        let row = process_row(process);
        assert_eq!(row.len(), width(SystemTable::Processlist));
        assert_eq!(
            row.last(),
            Some(&Value::UInt(4242)),
            "TID is the serving thread"
        );
        let schemata = schemata(&Catalog::default(), &SessionGrants::unrestricted());
        assert_eq!(
            schemata,
            vec![schemata[0].clone()],
            "information_schema only"
        );
        assert_eq!(schemata[0].len(), width(SystemTable::Schemata));
    }

    #[test]
    fn column_rows_describe_types_as_mariadb() {
        let mut c = Column::NullText(10).schema("s");
        c.default = ColumnDefault::Value(Value::text("x'y"));
        let schema = TableSchema {
            name: "t".into(),
            columns: vec![c, Column::Fixed(5, 2).schema("d")],
            primary_key: None,
            indexes: Vec::new(),
            fulltext_indexes: Vec::new(),
            comment: String::new(),
            options: Default::default(),
            foreign_keys: Vec::new(),
            checks: Vec::new(),
        };
        let s = column_row("db", &schema, 0, TimeZone::SYSTEM);
        assert_eq!(s[5], string("'x''y'"), "string defaults are quoted");
        assert_eq!(s[7], string("varchar"));
        assert_eq!((s[8].clone(), s[9].clone()), (count(10), count(40)));
        assert_eq!(s[15], string("varchar(10)"));
        let mut nullable = schema.clone();
        nullable.columns[0].default = ColumnDefault::None;
        let n = column_row("db", &nullable, 0, TimeZone::SYSTEM);
        assert_eq!(n[5], string("NULL"), "the word, for a nullable column");
        let d = column_row("db", &schema, 1, TimeZone::SYSTEM);
        assert_eq!(d[5], Value::Null, "SQL NULL, for a NOT NULL one");
        assert_eq!(d[6], string("NO"));
        assert_eq!((d[10].clone(), d[11].clone()), (count(5), count(2)));
        assert_eq!(d[13], Value::Null, "no character set for a number");
    }
}
