//! The catalog: databases, tables and their schemas, swapped whole on DDL.
//!
//! Invariants:
//! (1) Readers get the catalog with one `arc_swap` load and never block; DDL builds a new
//!     `Catalog` and swaps it in under `Storage::ddl`, so DDL statements are serialized.
//! (2) A `TableSchema` never changes; DDL that changes a table makes a new `Table` that
//!     shares the old one's rows (`TableData`) and retires the old one. A renamed table
//!     (`rename_tables`) is such a new `Table`, with the old one's `TableId`.
//! (3) Write calls hold `TableData::structure` shared and fail with `WriteConflict` if
//!     their `Table` is retired; DDL holds it exclusive while it rebuilds a table and
//!     retires the old object before releasing it, so no write slips past a new index.
//!     Dropped tables (also by DROP DATABASE) are retired too. Commits and rollbacks do
//!     not take `structure`: a transaction that wrote through a table later replaced
//!     finishes on the rows it wrote (a rebuild, TRUNCATE and DROP wait for it, invariant
//!     (8); CREATE INDEX indexes its uncommitted versions, and entries of those that roll
//!     back stay behind as stale entries, which readers skip).
//! (4) Queued garbage refers to rows, schemas and index trees, never to `Table` or
//!     `TableData`, so a dropped table's memory is freed with its last `Table` (no cycle).
//! (5) A unique index is created only if no two rows can end up with the same non-NULL
//!     key however the transactions now writing them end: DuplicateKey if two rows have
//!     it for certain, WriteConflict if it depends on an uncommitted write.
//! (6) Every catalog change is appended to the log (if one is attached) under `ddl` and
//!     `commit_order` before the new catalog is stored, so a commit that can see the change
//!     is logged after it, and a change the log refused never happened; dropped tables are
//!     retired only after the log took the drop.
//! (7) A database's tables and views have distinct names: creating either fails with
//!     `TableExists` if the other holds the name (CREATE OR REPLACE VIEW replaces views
//!     only).
//! (8) DDL that takes a table's rows out of the catalog happens only while no other
//!     transaction holds a row of the table (`TableBusy` otherwise, naming one to wait
//!     for, checked under `structure`), since a commit of such a row would land in the
//!     retired rows, unlogged, and be lost after it was acknowledged: a rebuild
//!     (`alter_table` with a conversion: ALTER TABLE changing columns, which gives the
//!     table rows of its own, not the old `TableData`), TRUNCATE, DROP TABLE (all listed
//!     tables or none) and DROP DATABASE. RENAME checks the same, for a commit would be
//!     logged under the old name. An ALTER that changes no stored value keeps the
//!     `TableData` (indexes it adds are built over it as `create_index` builds them,
//!     invariant (5)).
//! (9) A trigger names a table of its own database: DROP TABLE and DROP DATABASE drop
//!     it with the table, RENAME TABLE moves it with the table (no log record of its own:
//!     replaying the drop or rename does the same).
//! (10) A stored routine belongs to its database alone (no table): DROP DATABASE drops it
//!     with the database (no log record of its own), RENAME TABLE leaves it. Procedures
//!     and functions are separate namespaces, each keyed by `routine_key` of the name, so
//!     two names MariaDB compares as equal are one routine.
//! (11) A temporary table (`Storage::temporary_table`) is in no catalog: no DDL of the
//!     catalog finds it, no other session can name it, and its commits are not logged
//!     (its rows are `detached` from the start), so recovery never sees it. Its garbage
//!     is collected as a catalog table's is, for as long as its rows live.

use crate::gc::{Horizon, ReaderSlot};
use crate::index::{IndexNo, KeyRange, PrimaryIndex};
use crate::log_hook::{
    note_commit_lsn, CommitLog, DdlChange, RebuiltRows, TableForeignKeys, TableRename,
};
use crate::slot::{RowSlot, DEAD, FREE, UNCOMMITTED};
use crate::transaction::{ReadView, Transaction};
use crate::StorageError;
use arc_swap::ArcSwap;
use crossbeam_utils::CachePadded;
use manycore_sync::NamedMutex;
use manycore_types::{collation, key, Collation, ColumnDefault, DataType, Row, Value};
use parking_lot::{Mutex, RwLock};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Bound::{self, Unbounded};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TableId(pub u32);

impl TableId {
    /// The id of every `Table::detached`; catalog tables are numbered from 1.
    pub const DETACHED: TableId = TableId(0);
}

/// Bytes reserved per key field before encoding it (an integer takes 9, short strings
/// fit), so building a key rarely reallocates.
const KEY_FIELD_BYTES_GUESS: usize = 16;

#[derive(Clone, Debug, PartialEq)]
pub struct ColumnSchema {
    pub name: String,
    pub data_type: DataType,
    pub nullable: bool,
    pub default: ColumnDefault,
    pub auto_increment: bool,
    pub on_update_current_timestamp: bool,
    pub comment: String,
    /// Display width as declared (`INT(5)`, `TINYINT(1)` and BOOL); None: the type's
    /// default. Only SHOW output reads it.
    pub display_width: Option<u32>,
    /// `AS (expr) VIRTUAL | STORED`: the sql crate computes the value into the row before
    /// every write (so storage indexes it like any other value); storage never evaluates it.
    pub generated: Option<GeneratedColumn>,
}

/// A generated column's definition. VIRTUAL values are kept in the row too (rows live in
/// memory), so VIRTUAL and STORED differ only in what SHOW and information_schema print.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedColumn {
    /// The expression, as SHOW CREATE TABLE prints it.
    pub expression: String,
    /// STORED (PERSISTENT) rather than VIRTUAL.
    pub stored: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexSchema {
    pub name: String,
    /// Column positions, in index order.
    pub columns: Vec<usize>,
    pub unique: bool,
    /// One per column: Some(n) keys only the first n characters of a string (bytes of a
    /// binary one), as `c(n)` declares; None keys the whole value. A unique index is
    /// unique on what it keys.
    pub prefix_lengths: Vec<Option<u32>>,
}

impl IndexSchema {
    /// An index of whole columns.
    pub fn new(name: impl Into<String>, columns: Vec<usize>, unique: bool) -> IndexSchema {
        let prefix_lengths = vec![None; columns.len()];
        IndexSchema {
            name: name.into(),
            columns,
            unique,
            prefix_lengths,
        }
    }

    /// Whether some column is keyed by a prefix only: the index then finds a superset of
    /// the rows equal to a value, and its order is not the columns' order.
    pub fn has_prefix(&self) -> bool {
        self.prefix_lengths.iter().any(Option::is_some)
    }
}

/// A FULLTEXT index: storage keeps its definition so SHOW, information_schema, ALTER and
/// MATCH see it and it survives a restart, but builds nothing for it: no word index
/// exists yet, and MATCH ... AGAINST reads the table's rows (`expr::fulltext` in the sql
/// crate).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FulltextIndex {
    pub name: String,
    /// Column positions, in index order.
    pub columns: Vec<usize>,
}

/// A CHECK constraint. Storage keeps its expression as text and never evaluates it: the
/// sql crate binds it and checks each row before handing it to storage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckConstraint {
    /// Its name; a column-level constraint is named after its column.
    pub name: String,
    /// Written with its column (`a INT CHECK (a > 0)`) rather than as a table constraint.
    pub column_level: bool,
    /// The expression, as SHOW CREATE TABLE prints it.
    pub expression: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TableSchema {
    pub name: String,
    pub columns: Vec<ColumnSchema>,
    /// Column positions of the primary key. None: rows are keyed by a hidden row id.
    pub primary_key: Option<Vec<usize>>,
    /// Secondary indexes.
    pub indexes: Vec<IndexSchema>,
    /// FULLTEXT indexes, in definition order. Their names share one namespace with
    /// `indexes`.
    pub fulltext_indexes: Vec<FulltextIndex>,
    pub comment: String,
    /// The table options kept besides the comment (default collation, ROW_FORMAT).
    pub options: TableOptions,
    /// Foreign keys this table (the child) declares, in declaration order. Storage keeps
    /// them and enforces nothing: the SQL layer checks them on writes.
    pub foreign_keys: Vec<ForeignKeySchema>,
    /// CHECK constraints in definition order. Set and logged apart from the rest of the
    /// schema (`Storage::set_check_constraints`): a created table has none yet.
    pub checks: Vec<CheckConstraint>,
}

/// Table options that change nothing storage does but are the table's, so SHOW and
/// information_schema show them as declared, and they survive a restart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableOptions {
    /// The collation of character columns declared without one of their own (`[DEFAULT]
    /// COLLATE`); utf8mb4_general_ci unless declared, also for tables from older logs.
    pub default_collation: Collation,
    /// ROW_FORMAT as declared; None: not declared (or DEFAULT), InnoDB's Dynamic.
    pub row_format: Option<RowFormat>,
}

impl Default for TableOptions {
    fn default() -> TableOptions {
        TableOptions {
            default_collation: Collation::Utf8mb4GeneralCi,
            row_format: None,
        }
    }
}

/// The InnoDB row formats a table may declare (FIXED and PAGE are not InnoDB's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowFormat {
    Dynamic,
    Compact,
    Redundant,
    Compressed,
}

impl RowFormat {
    pub const ALL: [RowFormat; 4] = [
        RowFormat::Dynamic,
        RowFormat::Compact,
        RowFormat::Redundant,
        RowFormat::Compressed,
    ];

    /// The keyword, in upper case, as SHOW CREATE TABLE prints it.
    pub fn keyword(self) -> &'static str {
        match self {
            RowFormat::Dynamic => "DYNAMIC",
            RowFormat::Compact => "COMPACT",
            RowFormat::Redundant => "REDUNDANT",
            RowFormat::Compressed => "COMPRESSED",
        }
    }
}

/// What a foreign key does to child rows when their parent row is deleted or its key
/// updated. `Restrict` is also the default, what a key declared without the clause does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReferentialAction {
    Restrict,
    Cascade,
    SetNull,
    NoAction,
}

/// A foreign key of a child table. The parent is named, not pointed to: it may be created
/// after the child (with foreign_key_checks off), dropped, or re-created, as in InnoDB.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForeignKeySchema {
    /// Constraint name, unique within the database (InnoDB's rule).
    pub name: String,
    /// The child's column positions, in key order.
    pub columns: Vec<usize>,
    pub parent_db: String,
    pub parent_table: String,
    /// The parent's column names, as declared (matched case-insensitively).
    pub parent_columns: Vec<String>,
    pub on_delete: ReferentialAction,
    pub on_update: ReferentialAction,
}

impl TableSchema {
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
    }

    /// Whether a secondary or FULLTEXT index has this name (compared without case).
    pub fn has_index_named(&self, name: &str) -> bool {
        let named = |n: &str| n.eq_ignore_ascii_case(name);
        self.indexes.iter().any(|i| named(&i.name))
            || self.fulltext_indexes.iter().any(|i| named(&i.name))
    }

    pub fn auto_increment_column(&self) -> Option<usize> {
        self.columns.iter().position(|c| c.auto_increment)
    }

    /// Column positions of an index, in index order (empty for a hidden primary key).
    pub fn index_columns(&self, index: IndexNo) -> &[usize] {
        match index {
            IndexNo::Primary => self.primary_key.as_deref().unwrap_or(&[]),
            IndexNo::Secondary(i) => &self.indexes[i].columns,
        }
    }

    pub fn index_name(&self, index: IndexNo) -> &str {
        match index {
            IndexNo::Primary => "PRIMARY",
            IndexNo::Secondary(i) => &self.indexes[i].name,
        }
    }

    pub fn is_unique(&self, index: IndexNo) -> bool {
        match index {
            IndexNo::Primary => true,
            IndexNo::Secondary(i) => self.indexes[i].unique,
        }
    }

    /// Key of `row` in secondary index `i`: index columns then the primary key.
    pub(crate) fn secondary_key(&self, i: usize, row: &[Value], primary: &[u8]) -> Box<[u8]> {
        let columns = self.indexes[i].columns.len();
        let mut out = Vec::with_capacity(KEY_FIELD_BYTES_GUESS * columns + primary.len());
        self.encode_secondary_prefix(i, row, &mut out);
        out.extend_from_slice(primary);
        out.into_boxed_slice()
    }

    pub(crate) fn secondary_prefix(&self, i: usize, row: &[Value]) -> Vec<u8> {
        let mut out = Vec::with_capacity(KEY_FIELD_BYTES_GUESS * self.indexes[i].columns.len());
        self.encode_secondary_prefix(i, row, &mut out);
        out
    }

    fn encode_secondary_prefix(&self, i: usize, row: &[Value], out: &mut Vec<u8>) {
        let index = &self.indexes[i];
        for (&c, &length) in index.columns.iter().zip(&index.prefix_lengths) {
            key::encode_field_prefix(&row[c], &self.columns[c].data_type, length, out);
        }
    }

    /// Whether `key` is `row`'s entry key in secondary index `i` (`primary` is the row's
    /// primary key). Encodes into a per-thread buffer: no allocation.
    pub(crate) fn is_secondary_key(
        &self,
        i: usize,
        row: &[Value],
        primary: &[u8],
        key: &[u8],
    ) -> bool {
        let Some(prefix) = key.strip_suffix(primary) else {
            return false;
        };
        with_key_scratch(|scratch| {
            self.encode_secondary_prefix(i, row, scratch);
            scratch[..] == *prefix
        })
    }

    /// Whether rows `a` and `b` have the same key in secondary index `i` (no allocation).
    pub(crate) fn same_secondary_prefix(&self, i: usize, a: &[Value], b: &[Value]) -> bool {
        with_key_scratch(|scratch| {
            self.encode_secondary_prefix(i, a, scratch);
            let split = scratch.len();
            self.encode_secondary_prefix(i, b, scratch);
            let (first, second) = scratch.split_at(split);
            first == second
        })
    }

    /// Whether a version of `slot` that some snapshot may still read (all of them, with
    /// `horizon` None) has `key` in secondary index `i`.
    pub(crate) fn chain_has_secondary_key(
        &self,
        slot: &RowSlot,
        i: usize,
        key: &[u8],
        horizon: Option<u64>,
    ) -> bool {
        let mut current = slot.head.load_full();
        while let Some(version) = current {
            if let Some(row) = &version.row {
                if self.is_secondary_key(i, row, &slot.key, key) {
                    return true;
                }
            }
            let ts = version.commit_ts.load(Ordering::Acquire);
            if horizon.is_some_and(|h| ts != UNCOMMITTED && ts <= h) {
                return false;
            }
            current = version.prev.load_full();
        }
        false
    }

    /// Each key part of an index: its column's type and prefix length.
    fn key_parts(&self, index: IndexNo) -> Vec<(&DataType, Option<u32>)> {
        let columns = self.index_columns(index).iter();
        match index {
            IndexNo::Primary => columns
                .map(|&c| (&self.columns[c].data_type, None))
                .collect(),
            IndexNo::Secondary(i) => columns
                .zip(&self.indexes[i].prefix_lengths)
                .map(|(&c, &length)| (&self.columns[c].data_type, length))
                .collect(),
        }
    }
}

type Tree = crate::index::OrderedIndex;

thread_local! {
    /// Scratch space for comparing encoded index keys without allocating one per compare.
    static KEY_SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Calls `f` with an empty buffer: this thread's scratch buffer, or a new one if a caller
/// up the stack is using it.
fn with_key_scratch<R>(f: impl FnOnce(&mut Vec<u8>) -> R) -> R {
    KEY_SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
        Ok(mut buffer) => {
            buffer.clear();
            f(&mut buffer)
        }
        Err(_) => f(&mut Vec::new()),
    })
}

/// Rows of a table, shared by every `Table` object that DDL makes for it.
pub(crate) struct TableData {
    pub(crate) primary: PrimaryIndex,
    pub(crate) auto_increment: CachePadded<AtomicU64>,
    pub(crate) next_row_id: CachePadded<AtomicU64>,
    /// Serializes uniqueness checks on secondary unique indexes.
    pub(crate) unique_latch: Mutex<()>,
    pub(crate) structure: RwLock<()>,
    /// Work for the collector; written once per committed delete or key change.
    garbage: Mutex<Vec<Garbage>>,
    /// Set under `commit_order` when a catalog without these rows is stored (TRUNCATE,
    /// DROP TABLE, DROP DATABASE, a rebuild; each waits for the rows' holders first,
    /// invariant (8)): commits through them are no longer logged (log_hook invariant
    /// (3)). A commit reads it instead of looking its tables up by name. A temporary
    /// table's rows are never in a catalog: set from the start (invariant (11)).
    pub(crate) detached: AtomicBool,
}

/// `RowSlot::writer` while the collector examines a slot.
pub(crate) const GC_TXN: u64 = u64::MAX - 1;

/// The transaction that holds `slot` (has an uncommitted write in it, or is committing
/// it), if any.
fn holder_of(slot: &RowSlot) -> Option<u64> {
    let writer = slot.writer.load(Ordering::Acquire);
    (!matches!(writer, FREE | DEAD | GC_TXN)).then_some(writer)
}

/// Something that may be removed once no snapshot older than `ts` is active.
struct Garbage {
    slot: Arc<RowSlot>,
    ts: u64,
    /// None: the slot itself (deleted row or rolled-back insert); Some: one secondary entry.
    entry: Option<StaleEntry>,
}

/// A secondary entry that a committed write superseded. It names the schema and tree it
/// was made for (invariant (4)): DDL may since have renumbered or dropped the index.
struct StaleEntry {
    schema: Arc<TableSchema>,
    index: usize,
    tree: Arc<Tree>,
    key: Box<[u8]>,
}

pub struct Table {
    pub id: TableId,
    /// The database the table belongs to (for log records).
    pub(crate) db: Arc<str>,
    pub schema: Arc<TableSchema>,
    pub(crate) data: Arc<TableData>,
    pub(crate) secondary: Vec<Arc<Tree>>,
    /// Set when DDL replaced this object; writers holding it must retry.
    pub(crate) retired: AtomicBool,
}

pub struct Database {
    pub name: String,
    /// The default collation of the tables created in it without one of their own
    /// (CREATE/ALTER DATABASE ... COLLATE).
    pub collation: Collation,
    pub tables: BTreeMap<String, Arc<Table>>,
    /// Views by name; a name is a table's or a view's, never both (invariant (7)).
    pub views: BTreeMap<String, Arc<ViewSchema>>,
    /// Triggers in creation order (the order they fire in); each names a table of this
    /// database and is dropped with it (invariant (9)).
    pub triggers: Vec<Arc<TriggerSchema>>,
    /// Stored routines by kind and `routine_key` of their name (invariant (10)); iterated,
    /// procedures come first, each kind in utf8mb4_general_ci order of the names.
    pub routines: BTreeMap<(RoutineKind, String), Arc<RoutineSchema>>,
}

impl Database {
    /// The routine of `kind` named `name`, compared without case (as MariaDB compares
    /// routine names: `routine_key`).
    pub fn routine(&self, kind: RoutineKind, name: &str) -> Option<&Arc<RoutineSchema>> {
        self.routines.get(&(kind, routine_key(name)))
    }
}

/// How `Database::routines` keys a routine's name: each character's utf8mb4_general_ci
/// weight, since MariaDB compares routine names in mysql.proc's utf8mb3_general_ci, which
/// ignores case and accents ('p' = 'P' = 'ṕ', 'ß' = 's'). The weights are uppercase
/// letters, so keys also sort as that collation does (`a_b` after `aB`).
pub fn routine_key(name: &str) -> String {
    name.chars()
        .map(|c| char::from_u32(collation::char_weight(c)).unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect()
}

/// Procedure or function: their names are separate namespaces within a database.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RoutineKind {
    Procedure,
    Function,
}

/// A stored routine's definition. Storage keeps its SQL as opaque text (it knows no SQL):
/// the sql crate parses and binds it where it is called. Every field is as CREATE
/// PROCEDURE or CREATE FUNCTION gave it, for SHOW CREATE, SHOW ... STATUS and
/// information_schema.ROUTINES.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoutineSchema {
    /// As written at CREATE (its case is kept; lookups ignore case: `routine_key`).
    pub name: String,
    pub kind: RoutineKind,
    /// The parameter list as written, without the outer parentheses.
    pub params: String,
    /// A function's RETURNS type as written; empty for a procedure.
    pub returns: String,
    /// The body as written.
    pub body: String,
    /// DEFINER, `user@host`.
    pub definer: String,
    /// SQL SECURITY: `DEFINER` or `INVOKER`.
    pub security: String,
    /// `CONTAINS SQL`, `NO SQL`, `READS SQL DATA` or `MODIFIES SQL DATA`.
    pub data_access: String,
    pub deterministic: bool,
    pub comment: String,
    /// The session's sql_mode, character set client and collation connection at creation.
    pub sql_mode: String,
    pub character_set_client: String,
    pub collation_connection: String,
    /// When it was created and last changed, `YYYY-MM-DD HH:MM:SS` (the sql layer's
    /// clock: storage keeps no time of its own).
    pub created: String,
    pub modified: String,
}

/// A trigger's definition. Storage keeps its body as opaque text (it knows no SQL): the
/// sql crate parses and binds it with the statements that fire it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TriggerSchema {
    pub name: String,
    /// The table it belongs to, in the trigger's database.
    pub table: String,
    /// `BEFORE` or `AFTER`.
    pub timing: String,
    /// `INSERT`, `UPDATE` or `DELETE`.
    pub event: String,
    /// The body as written: one statement, or `BEGIN ... END`.
    pub body: String,
    /// DEFINER (`user@host`), the sql_mode and character set client at creation, kept for
    /// SHOW TRIGGERS and information_schema.TRIGGERS.
    pub definer: String,
    pub sql_mode: String,
    pub character_set_client: String,
    pub collation_connection: String,
}

/// Where CREATE TRIGGER puts a trigger in its database's list, whose order is the firing
/// order (and ACTION_ORDER) of the triggers of one table, timing and event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TriggerPlace {
    /// Last; a replaced trigger keeps its place.
    Last,
    /// Right after the trigger of this name (FOLLOWS), or last if there is none.
    Follows(String),
    /// Right before it (PRECEDES), or last if there is none.
    Precedes(String),
    /// At this index (log replay of a FOLLOWS or PRECEDES).
    At(usize),
}

/// A view's definition. Storage keeps the query as opaque text (it knows no SQL): the
/// sql crate binds it when a statement reads the view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewSchema {
    pub name: String,
    /// The column names listed after the view's name; empty: the query's own.
    pub columns: Vec<String>,
    /// The SELECT, as SQL text, to be bound in the view's database.
    pub query: String,
    /// ALGORITHM, DEFINER (`user@host`), SQL SECURITY and CHECK OPTION as given (or
    /// defaulted), kept for SHOW CREATE VIEW and information_schema.VIEWS.
    pub algorithm: String,
    pub definer: String,
    pub security: String,
    pub check_option: String,
}

#[derive(Default)]
pub struct Catalog {
    pub databases: BTreeMap<String, Arc<Database>>,
    /// Parent database -> parent table -> (child table, index of the key in its schema):
    /// built once per catalog by DDL, so a write looks its children up instead of scanning
    /// every table. Empty when no table declares a foreign key.
    referenced_by: HashMap<String, HashMap<String, Vec<ChildKey>>>,
}

/// A child table and the index of one of its foreign keys in its schema.
type ChildKey = (Arc<Table>, usize);

/// What ALTER TABLE makes of each row (`Catalog::alter_table`): the new row from its
/// number and old values, or the caller's error.
pub type RowConversion<'a, E> = dyn FnMut(u64, &[Value]) -> Result<Row, E> + 'a;

impl Catalog {
    fn new(databases: BTreeMap<String, Arc<Database>>) -> Catalog {
        let mut referenced_by: HashMap<String, HashMap<String, Vec<_>>> = HashMap::new();
        for table in databases.values().flat_map(|d| d.tables.values()) {
            for (i, fk) in table.schema.foreign_keys.iter().enumerate() {
                referenced_by
                    .entry(fk.parent_db.clone())
                    .or_default()
                    .entry(fk.parent_table.clone())
                    .or_default()
                    .push((table.clone(), i));
            }
        }
        Catalog {
            databases,
            referenced_by,
        }
    }

    /// The foreign keys that name `db`.`table` as their parent, with their child tables
    /// (a self-reference included).
    pub fn children_of<'a>(
        &'a self,
        db: &str,
        table: &str,
    ) -> impl Iterator<Item = (&'a Arc<Table>, &'a ForeignKeySchema)> + 'a {
        self.referenced_by
            .get(db)
            .and_then(|tables| tables.get(table))
            .into_iter()
            .flatten()
            .map(|(child, i)| (child, &child.schema.foreign_keys[*i]))
    }

    pub fn table(&self, db: &str, table: &str) -> Option<&Arc<Table>> {
        self.databases.get(db)?.tables.get(table)
    }

    pub fn view(&self, db: &str, view: &str) -> Option<&Arc<ViewSchema>> {
        self.databases.get(db)?.views.get(view)
    }
}

pub struct Storage {
    pub(crate) catalog: ArcSwap<Catalog>,
    /// Serializes DDL. Both mutexes here are `sync`'s instrumented spin-then-park lock:
    /// their critical sections are short (no I/O), where lockbench measures it at or above
    /// parking_lot, and their contention shows in SHOW ENGINE MANYCORE MUTEX.
    pub(crate) ddl: NamedMutex<()>,
    pub(crate) clock: CachePadded<AtomicU64>,
    pub(crate) commit_order: NamedMutex<()>,
    pub(crate) next_txn: CachePadded<AtomicU64>,
    next_table_id: AtomicU32,
    pub(crate) horizon: Horizon,
    pub(crate) transactions: crate::lock_wait::TxnRegistry,
    /// The write-ahead log, attached after recovery (`attach_log`).
    pub(crate) log: OnceLock<Arc<dyn CommitLog>>,
    /// The rows of the live temporary tables (`temporary_table`), which no catalog lists,
    /// for the collector. Locked when one is made and by the collector, never per query.
    temporary: Mutex<Vec<std::sync::Weak<TableData>>>,
}

impl Storage {
    pub fn new() -> Arc<Storage> {
        Arc::new(Storage {
            catalog: ArcSwap::from_pointee(Catalog::default()),
            ddl: NamedMutex::new("storage.ddl", ()),
            clock: CachePadded::new(AtomicU64::new(1)),
            commit_order: NamedMutex::new("storage.commit_order", ()),
            next_txn: CachePadded::new(AtomicU64::new(1)),
            next_table_id: AtomicU32::new(1),
            horizon: Horizon::default(),
            transactions: Default::default(),
            log: OnceLock::new(),
            temporary: Mutex::new(Vec::new()),
        })
    }

    /// The current catalog; lock-free (invariant (1)).
    pub fn catalog(&self) -> arc_swap::Guard<Arc<Catalog>> {
        self.catalog.load()
    }

    /// A registration slot for one session's snapshots.
    pub fn register_reader(&self) -> ReaderSlot {
        self.horizon.register()
    }

    /// A wait for transaction `holder` to end, for DDL refused with `TableBusy` (which
    /// holds no row while it waits, so it needs no deadlock check).
    pub fn wait_for_transaction(&self, holder: u64) -> crate::LockWait {
        self.transactions.wait_holding_nothing(holder)
    }

    /// Starts a transaction whose snapshot is the current clock.
    pub fn begin(self: &Arc<Self>, reader: &ReaderSlot) -> Transaction {
        let snapshot = reader.pin(&self.clock, &self.horizon);
        Transaction::new(self.clone(), reader.clone(), snapshot)
    }

    /// The timestamp of the newest commit.
    pub fn clock(&self) -> u64 {
        self.clock.load(Ordering::Acquire)
    }

    /// Builds a new catalog with `change`, logs `record(&result)` and installs it
    /// (invariant (6)). The caller holds `ddl`.
    fn update_catalog<R>(
        &self,
        change: impl FnOnce(&mut BTreeMap<String, Arc<Database>>) -> Result<R, StorageError>,
        record: impl FnOnce(&R) -> Option<DdlChange>,
    ) -> Result<R, StorageError> {
        let current = self.catalog.load_full();
        let mut databases = current.databases.clone();
        let result = change(&mut databases)?;
        let record = record(&result);
        let _order = self.commit_order.lock();
        if let (Some(log), Some(record)) = (self.log.get(), record) {
            note_commit_lsn(log.append_ddl(&record)?);
        }
        detach_dropped_rows(&current, &databases);
        self.catalog.store(Arc::new(Catalog::new(databases)));
        Ok(result)
    }

    /// Installs the write-ahead log. Call once, after recovery and before serving.
    pub fn attach_log(&self, log: Arc<dyn CommitLog>) {
        assert!(self.log.set(log).is_ok(), "a log is already attached");
    }

    /// Err if the attached log refuses commits for good (writes fail early, reads work).
    pub fn check_log_writable(&self) -> Result<(), StorageError> {
        match self.log.get() {
            Some(log) => log.check_writable(),
            None => Ok(()),
        }
    }

    /// Sets a table's next AUTO_INCREMENT value (ALTER TABLE ... AUTO_INCREMENT, CREATE
    /// TABLE ... AUTO_INCREMENT) and logs it.
    pub fn set_auto_increment(&self, db: &str, table: &str, next: u64) -> Result<(), StorageError> {
        let _ddl = self.ddl.lock();
        let catalog = self.catalog.load_full();
        let t = catalog
            .table(db, table)
            .ok_or_else(|| StorageError::NoSuchTable(table.to_string()))?;
        if let Some(log) = self.log.get() {
            let _order = self.commit_order.lock();
            let record = DdlChange::AutoIncrement {
                db: db.to_string(),
                table: table.to_string(),
                next,
            };
            note_commit_lsn(log.append_ddl(&record)?);
        }
        t.set_auto_increment(next);
        Ok(())
    }

    /// Ok(false) if it existed and `if_not_exists` (its collation is then left as it is).
    pub fn create_database(
        &self,
        name: &str,
        collation: Collation,
        if_not_exists: bool,
    ) -> Result<bool, StorageError> {
        let _ddl = self.ddl.lock();
        self.update_catalog(
            |dbs| {
                if dbs.contains_key(name) {
                    return if if_not_exists {
                        Ok(false)
                    } else {
                        Err(StorageError::DatabaseExists(name.to_string()))
                    };
                }
                let db = Database {
                    name: name.to_string(),
                    collation,
                    tables: BTreeMap::new(),
                    views: BTreeMap::new(),
                    triggers: Vec::new(),
                    routines: BTreeMap::new(),
                };
                dbs.insert(name.to_string(), Arc::new(db));
                Ok(true)
            },
            |&created| {
                created.then(|| DdlChange::CreateDatabase {
                    name: name.to_string(),
                    collation,
                })
            },
        )
    }

    /// ALTER DATABASE ... COLLATE: the default collation of tables created from now on
    /// (the existing ones keep theirs).
    pub fn alter_database(&self, name: &str, collation: Collation) -> Result<(), StorageError> {
        let _ddl = self.ddl.lock();
        self.update_catalog(
            |dbs| {
                let database = dbs
                    .get_mut(name)
                    .ok_or_else(|| StorageError::NoSuchDatabase(name.to_string()))?;
                *database = Arc::new(Database {
                    collation,
                    ..clone_database(database)
                });
                Ok(())
            },
            |()| {
                Some(DdlChange::AlterDatabase {
                    name: name.to_string(),
                    collation,
                })
            },
        )
    }

    /// Returns the number of tables dropped, or None if absent and `if_exists`.
    /// `TableBusy` (nothing dropped) if another transaction holds a row of one of its
    /// tables (invariant (8)).
    pub fn drop_database(
        &self,
        name: &str,
        if_exists: bool,
    ) -> Result<Option<usize>, StorageError> {
        let _ddl = self.ddl.lock();
        let catalog = self.catalog.load_full();
        let Some(database) = catalog.databases.get(name) else {
            return match if_exists {
                true => Ok(None),
                false => Err(StorageError::NoSuchDatabase(name.to_string())),
            };
        };
        let tables = || database.tables.values().map(|t| &*t.data);
        let _structures = lock_structures(tables());
        refuse_held(tables())?;
        // The catalog cannot change meanwhile: `ddl` is held.
        self.update_catalog(
            |dbs| {
                dbs.remove(name);
                Ok(())
            },
            |()| {
                Some(DdlChange::DropDatabase {
                    name: name.to_string(),
                })
            },
        )?;
        for table in database.tables.values() {
            table.retired.store(true, Ordering::Release); // Invariants (3), (6).
        }
        Ok(Some(database.tables.len()))
    }

    /// Ok(false) if it existed and `if_not_exists`.
    pub fn create_table(
        &self,
        db: &str,
        schema: TableSchema,
        if_not_exists: bool,
    ) -> Result<bool, StorageError> {
        assert!(
            schema.checks.is_empty(),
            "CHECK constraints are set with set_check_constraints, logged apart"
        );
        let in_range = |columns: &[usize]| columns.iter().all(|&c| c < schema.columns.len());
        assert!(
            schema.indexes.iter().all(|i| in_range(&i.columns))
                && schema.fulltext_indexes.iter().all(|i| in_range(&i.columns))
                && schema.primary_key.as_deref().is_none_or(in_range),
            "index on a column that does not exist"
        );
        assert!(
            schema
                .indexes
                .iter()
                .all(|i| i.prefix_lengths.len() == i.columns.len()),
            "an index needs one prefix length (or None) per column"
        );
        let _ddl = self.ddl.lock();
        let id = TableId(self.next_table_id.fetch_add(1, Ordering::Relaxed));
        self.update_catalog(
            |dbs| {
                let database = dbs
                    .get(db)
                    .ok_or_else(|| StorageError::NoSuchDatabase(db.into()))?;
                if database.tables.contains_key(&schema.name)
                    || database.views.contains_key(&schema.name)
                {
                    return if if_not_exists {
                        Ok(None)
                    } else {
                        Err(StorageError::TableExists(schema.name.clone()))
                    };
                }
                let table = Table::new(id, db, schema, Arc::new(TableData::new()), Vec::new());
                let mut database = clone_database(database);
                let table = Arc::new(table);
                database
                    .tables
                    .insert(table.schema.name.clone(), table.clone());
                dbs.insert(db.to_string(), Arc::new(database));
                Ok(Some(table))
            },
            |created| {
                created.as_ref().map(|t| DdlChange::CreateTable {
                    db: db.to_string(),
                    schema: (*t.schema).clone(),
                    auto_increment: t.auto_increment(),
                })
            },
        )
        .map(|created| created.is_some())
    }

    /// A temporary table (invariant (11)): a table in no catalog, with rows, indexes and
    /// MVCC as any other, whose commits are not logged. Its owner (one SQL session) holds
    /// it; it is gone when the owner drops it. `schema.checks` are its own (nothing is
    /// logged to set them apart).
    pub fn temporary_table(&self, db: &str, schema: TableSchema) -> Arc<Table> {
        let id = TableId(self.next_table_id.fetch_add(1, Ordering::Relaxed));
        let data = Arc::new(TableData::new());
        // Rows no catalog holds are never logged (the `detached` field's rule).
        data.detached.store(true, Ordering::Release);
        self.temporary.lock().push(Arc::downgrade(&data));
        Arc::new(Table::new(id, db, schema, data, Vec::new()))
    }

    /// Temporary table `old` as `db`.`name` (RENAME TABLE): a new table sharing its rows
    /// and indexes; `old` is retired.
    pub fn rename_temporary_table(&self, old: &Table, db: &str, name: &str) -> Arc<Table> {
        assert!(
            old.data.detached.load(Ordering::Acquire),
            "a temporary table's rows are detached"
        );
        let mut schema = (*old.schema).clone();
        schema.name = name.to_string();
        let table = Table::new(old.id, db, schema, old.data.clone(), old.secondary.clone());
        old.retired.store(true, Ordering::Release);
        Arc::new(table)
    }

    /// Creates view `view.name` in `db`, or with `replace` replaces the view of that name
    /// (TableExists if a table has it, or a view and not `replace`).
    pub fn create_view(
        &self,
        db: &str,
        view: ViewSchema,
        replace: bool,
    ) -> Result<(), StorageError> {
        let _ddl = self.ddl.lock();
        self.update_catalog(
            |dbs| {
                let database = dbs
                    .get(db)
                    .ok_or_else(|| StorageError::NoSuchDatabase(db.into()))?;
                if database.tables.contains_key(&view.name)
                    || (!replace && database.views.contains_key(&view.name))
                {
                    return Err(StorageError::TableExists(view.name.clone()));
                }
                let mut database = clone_database(database);
                database
                    .views
                    .insert(view.name.clone(), Arc::new(view.clone()));
                dbs.insert(db.to_string(), Arc::new(database));
                Ok(())
            },
            |()| {
                Some(DdlChange::CreateView {
                    db: db.to_string(),
                    view: view.clone(),
                })
            },
        )
    }

    /// Creates trigger `trigger.name` in `db`, after the others (it fires last), or with
    /// `replace` in the place of the trigger of that name. Ok(false), and nothing changed,
    /// if a trigger has the name and not `replace`; NoSuchTable if its table is none.
    pub fn create_trigger(
        &self,
        db: &str,
        trigger: TriggerSchema,
        replace: bool,
        place: TriggerPlace,
    ) -> Result<bool, StorageError> {
        let _ddl = self.ddl.lock();
        self.update_catalog(
            |dbs| {
                let database = dbs
                    .get(db)
                    .ok_or_else(|| StorageError::NoSuchDatabase(db.into()))?;
                if !database.tables.contains_key(&trigger.table) {
                    return Err(StorageError::NoSuchTable(trigger.table.clone()));
                }
                let mut database = clone_database(database);
                let new = Arc::new(trigger.clone());
                let triggers = &mut database.triggers;
                let existing = triggers.iter().position(|t| t.name == trigger.name);
                if existing.is_some() && !replace {
                    return Ok(None);
                }
                let anchor = match &place {
                    TriggerPlace::Follows(other) | TriggerPlace::Precedes(other) => Some(other),
                    TriggerPlace::Last | TriggerPlace::At(_) => None,
                };
                let position = match (existing, &place) {
                    (Some(at), TriggerPlace::Last) => {
                        triggers[at] = new;
                        None
                    }
                    // Replacing a trigger placed after or before itself keeps its place.
                    (Some(at), _) if anchor == Some(&trigger.name) => {
                        triggers[at] = new;
                        Some(at)
                    }
                    (None, TriggerPlace::Last) => {
                        triggers.push(new);
                        None
                    }
                    (existing, place) => {
                        if let Some(at) = existing {
                            triggers.remove(at);
                        }
                        let find = |other: &String| triggers.iter().position(|t| t.name == *other);
                        let at = match place {
                            TriggerPlace::Follows(other) => find(other).map(|i| i + 1),
                            TriggerPlace::Precedes(other) => find(other),
                            TriggerPlace::At(i) => Some(*i),
                            TriggerPlace::Last => None,
                        }
                        .unwrap_or(triggers.len())
                        .min(triggers.len());
                        triggers.insert(at, new);
                        Some(at)
                    }
                };
                dbs.insert(db.to_string(), Arc::new(database));
                Ok(Some(position))
            },
            |created| {
                created.map(|position| DdlChange::CreateTrigger {
                    db: db.to_string(),
                    trigger: trigger.clone(),
                    position: position.map(|p| u32::try_from(p).expect("trigger count fits u32")),
                })
            },
        )
        .map(|created| created.is_some())
    }

    /// Drops trigger `name` of `db`: Ok(false) if there is none.
    pub fn drop_trigger(&self, db: &str, name: &str) -> Result<bool, StorageError> {
        let _ddl = self.ddl.lock();
        self.update_catalog(
            |dbs| {
                let Some(database) = dbs.get(db) else {
                    return Ok(false);
                };
                let mut database = clone_database(database);
                let before = database.triggers.len();
                database.triggers.retain(|t| t.name != name);
                if database.triggers.len() == before {
                    return Ok(false);
                }
                dbs.insert(db.to_string(), Arc::new(database));
                Ok(true)
            },
            |&dropped| {
                dropped.then(|| DdlChange::DropTrigger {
                    db: db.to_string(),
                    name: name.to_string(),
                })
            },
        )
    }

    /// Creates `routine` in `db`; with `replace` it replaces the routine of the same kind
    /// and name (without case: `routine_key`), taking the name as now written. Ok(false),
    /// and nothing changed, if one exists and not `replace`; NoSuchDatabase if no `db`.
    pub fn create_routine(
        &self,
        db: &str,
        routine: RoutineSchema,
        replace: bool,
    ) -> Result<bool, StorageError> {
        self.put_routine(db, routine, |exists| replace || !exists)
    }

    /// Replaces the routine of `routine`'s kind and name in `db` with `routine` (ALTER
    /// PROCEDURE / FUNCTION). Ok(false), and nothing changed, if there is none (a
    /// concurrent DROP is not undone); NoSuchDatabase if no `db`.
    pub fn alter_routine(&self, db: &str, routine: RoutineSchema) -> Result<bool, StorageError> {
        self.put_routine(db, routine, |exists| exists)
    }

    /// Stores `routine` in `db` if `wanted(whether one of its kind and name exists)`,
    /// logged as a CreateRoutine (which replaces on replay).
    fn put_routine(
        &self,
        db: &str,
        routine: RoutineSchema,
        wanted: impl Fn(bool) -> bool,
    ) -> Result<bool, StorageError> {
        let _ddl = self.ddl.lock();
        self.update_catalog(
            |dbs| {
                let database = dbs
                    .get(db)
                    .ok_or_else(|| StorageError::NoSuchDatabase(db.into()))?;
                let key = (routine.kind, routine_key(&routine.name));
                if !wanted(database.routines.contains_key(&key)) {
                    return Ok(false);
                }
                let mut database = clone_database(database);
                database.routines.insert(key, Arc::new(routine.clone()));
                dbs.insert(db.to_string(), Arc::new(database));
                Ok(true)
            },
            |&stored| {
                stored.then(|| DdlChange::CreateRoutine {
                    db: db.to_string(),
                    routine: routine.clone(),
                })
            },
        )
    }

    /// Drops the routine of `kind` named `name` (without case: `routine_key`) in `db`:
    /// Ok(false) if there is none (or no `db`).
    pub fn drop_routine(
        &self,
        db: &str,
        kind: RoutineKind,
        name: &str,
    ) -> Result<bool, StorageError> {
        let _ddl = self.ddl.lock();
        self.update_catalog(
            |dbs| {
                let Some(database) = dbs.get(db) else {
                    return Ok(false);
                };
                let key = (kind, routine_key(name));
                if !database.routines.contains_key(&key) {
                    return Ok(false);
                }
                let mut database = clone_database(database);
                database.routines.remove(&key);
                dbs.insert(db.to_string(), Arc::new(database));
                Ok(true)
            },
            |&dropped| {
                dropped.then(|| DdlChange::DropRoutine {
                    db: db.to_string(),
                    kind,
                    name: name.to_string(),
                })
            },
        )
    }

    /// Drops view `name` of `db` (NoSuchTable if there is none).
    pub fn drop_view(&self, db: &str, name: &str) -> Result<(), StorageError> {
        let _ddl = self.ddl.lock();
        self.update_catalog(
            |dbs| {
                let database = dbs
                    .get(db)
                    .ok_or_else(|| StorageError::NoSuchDatabase(db.into()))?;
                let mut database = clone_database(database);
                if database.views.remove(name).is_none() {
                    return Err(StorageError::NoSuchTable(name.to_string()));
                }
                dbs.insert(db.to_string(), Arc::new(database));
                Ok(())
            },
            |()| {
                Some(DdlChange::DropView {
                    db: db.to_string(),
                    name: name.to_string(),
                })
            },
        )
    }

    /// Ok(false) if absent (or its database is) and `if_exists`; else as `drop_tables`.
    pub fn drop_table(&self, db: &str, name: &str, if_exists: bool) -> Result<bool, StorageError> {
        let dropped = self.drop_tables(&[(db, name)])? == [true];
        if !dropped && !if_exists {
            return Err(StorageError::NoSuchTable(name.to_string()));
        }
        Ok(dropped)
    }

    /// Drops the tables named (database, table) in order and returns whether each existed.
    /// All or none: `TableBusy`, and nothing dropped, if another transaction holds a row
    /// of any of them (invariant (8)), as MariaDB takes the metadata lock of every table
    /// it drops before it drops the first.
    pub fn drop_tables(&self, tables: &[(&str, &str)]) -> Result<Vec<bool>, StorageError> {
        let _ddl = self.ddl.lock();
        let catalog = self.catalog.load_full();
        let found: Vec<&Arc<Table>> = tables
            .iter()
            .filter_map(|(db, name)| catalog.table(db, name))
            .collect();
        let _structures = lock_structures(found.iter().map(|t| &*t.data));
        refuse_held(found.iter().map(|t| &*t.data))?;
        tables
            .iter()
            .map(|(db, name)| self.drop_one_table(db, name))
            .collect()
    }

    /// `drop_tables` for one table, whose rows are locked and unheld: Ok(false) if absent.
    fn drop_one_table(&self, db: &str, name: &str) -> Result<bool, StorageError> {
        let dropped = self.update_catalog(
            |dbs| {
                let Some(database) = dbs.get(db) else {
                    return Ok(None);
                };
                let mut database = clone_database(database);
                let Some(table) = database.tables.remove(name) else {
                    return Ok(None);
                };
                database.triggers.retain(|t| t.table != name);
                dbs.insert(db.to_string(), Arc::new(database));
                Ok(Some(table))
            },
            |dropped| {
                dropped.is_some().then(|| DdlChange::DropTable {
                    db: db.to_string(),
                    name: name.to_string(),
                })
            },
        )?;
        // Invariants (3), (6): retired once the drop is logged.
        Ok(dropped
            .map(|t| t.retired.store(true, Ordering::Release))
            .is_some())
    }

    /// Replaces the table's rows with nothing; AUTO_INCREMENT restarts at 1. `TableBusy`
    /// if another transaction holds a row of it (invariant (8)).
    pub fn truncate_table(&self, db: &str, name: &str) -> Result<(), StorageError> {
        let record = DdlChange::TruncateTable {
            db: db.to_string(),
            name: name.to_string(),
        };
        self.replace_table(db, name, record, |table| {
            refuse_held([&*table.data])?;
            let schema = (*table.schema).clone();
            Ok(Table::new(
                table.id,
                &table.db,
                schema,
                Arc::new(TableData::new()),
                Vec::new(),
            ))
        })
    }

    pub fn create_index(
        &self,
        db: &str,
        table: &str,
        index: IndexSchema,
    ) -> Result<(), StorageError> {
        assert_eq!(
            index.prefix_lengths.len(),
            index.columns.len(),
            "an index needs one prefix length (or None) per column"
        );
        let record = DdlChange::CreateIndex {
            db: db.to_string(),
            table: table.to_string(),
            index: index.clone(),
        };
        self.replace_table(db, table, record, |old| {
            let duplicate = old
                .schema
                .indexes
                .iter()
                .any(|i| i.name.eq_ignore_ascii_case(&index.name));
            if duplicate || index.name.eq_ignore_ascii_case("PRIMARY") {
                return Err(StorageError::DuplicateIndexName(index.name.clone()));
            }
            let mut schema = (*old.schema).clone();
            schema.indexes.push(index);
            let mut secondary = old.secondary.clone();
            secondary.push(Arc::new(Tree::new()));
            let table = Table::new(old.id, &old.db, schema, old.data.clone(), secondary);
            table.build_secondary(table.secondary.len() - 1)?;
            Ok(table)
        })
    }

    /// Replaces a table's CHECK constraints (CREATE TABLE, ALTER TABLE ADD/DROP
    /// CONSTRAINT) and logs them. Rows are not checked here: the sql crate checks the
    /// existing rows against an added constraint before calling this.
    pub fn set_check_constraints(
        &self,
        db: &str,
        table: &str,
        checks: Vec<CheckConstraint>,
    ) -> Result<(), StorageError> {
        let record = DdlChange::CheckConstraints {
            db: db.to_string(),
            table: table.to_string(),
            checks: checks.clone(),
        };
        self.replace_table(db, table, record, |old| {
            let mut schema = (*old.schema).clone();
            schema.checks = checks;
            Ok(Table::new(
                old.id,
                &old.db,
                schema,
                old.data.clone(),
                old.secondary.clone(),
            ))
        })
    }

    pub fn drop_index(&self, db: &str, table: &str, name: &str) -> Result<(), StorageError> {
        let record = DdlChange::DropIndex {
            db: db.to_string(),
            table: table.to_string(),
            name: name.to_string(),
        };
        self.replace_table(db, table, record, |old| {
            let position = old
                .schema
                .indexes
                .iter()
                .position(|i| i.name.eq_ignore_ascii_case(name));
            let position = position.ok_or_else(|| StorageError::NoSuchIndex(name.to_string()))?;
            let mut schema = (*old.schema).clone();
            schema.indexes.remove(position);
            let mut secondary = old.secondary.clone();
            secondary.remove(position);
            Ok(Table::new(
                old.id,
                &old.db,
                schema,
                old.data.clone(),
                secondary,
            ))
        })
    }

    /// Replaces the table's foreign keys (ALTER TABLE ADD/DROP FOREIGN KEY).
    pub fn set_foreign_keys(
        &self,
        db: &str,
        table: &str,
        foreign_keys: Vec<ForeignKeySchema>,
    ) -> Result<(), StorageError> {
        let record = DdlChange::SetForeignKeys {
            db: db.to_string(),
            table: table.to_string(),
            foreign_keys: foreign_keys.clone(),
        };
        self.replace_table(db, table, record, |old| {
            let in_range = foreign_keys
                .iter()
                .all(|fk| fk.columns.iter().all(|&c| c < old.schema.columns.len()));
            assert!(in_range, "foreign key on a column that does not exist");
            let mut schema = (*old.schema).clone();
            schema.foreign_keys = foreign_keys;
            Ok(Table::new(
                old.id,
                &old.db,
                schema,
                old.data.clone(),
                old.secondary.clone(),
            ))
        })
    }

    /// ALTER TABLE's column operations: `db`.`name` gets `schema`, and `followers` (other
    /// tables whose foreign keys follow a renamed column) get their new keys, in one
    /// catalog swap and one log change, so replay has the whole ALTER or none of it.
    ///
    /// With `convert`, the table is rebuilt: every row converted (called with the row's
    /// number from 1, in primary key order, and the row), as ALTER TABLE's copy does;
    /// `TableBusy` if another transaction holds a row (invariant (8); MariaDB would wait
    /// for its metadata lock instead). Each row keeps the commit timestamp of its newest
    /// version, so snapshots taken since still see it; an older snapshot sees neither that
    /// version nor the ones before it (MariaDB answers such a reader 1412, "Table
    /// definition has changed"). Without `convert` the table keeps its rows and indexes:
    /// `schema` may differ only in what no stored row or index depends on (names,
    /// defaults, comments, CHECK text, foreign keys) or in secondary indexes, which are
    /// dropped or built over the shared rows as CREATE INDEX builds them (invariant (5));
    /// the rest is asserted.
    ///
    /// `verify` sees the new table (rows converted, indexes built) before anything is
    /// logged or swapped: an error from it leaves the catalog as it was, so the whole
    /// ALTER fails as one (the sql crate checks foreign keys' rows there).
    pub fn alter_table<E: From<StorageError>>(
        &self,
        db: &str,
        name: &str,
        schema: TableSchema,
        followers: Vec<TableForeignKeys>,
        convert: Option<&mut RowConversion<'_, E>>,
        verify: impl FnOnce(&Table) -> Result<(), E>,
    ) -> Result<(), E> {
        let logged = self.log.get().is_some();
        self.alter_tables_with(db, name, followers, |old| {
            let converts = convert.is_some();
            let table = rebuilt(old, schema, convert, verify)?;
            let rows = (logged && converts).then(|| RebuiltRows(table.clone()));
            Ok((table, rows))
        })
    }

    /// ALTER TABLE of temporary table `old` (invariant (11)): `alter_table`'s rebuild,
    /// into a temporary table returned to the owner, which holds no row of it (its ALTER
    /// committed first). Nothing is logged; `old` is retired.
    pub fn alter_temporary_table<E: From<StorageError>>(
        &self,
        old: &Table,
        schema: TableSchema,
        convert: Option<&mut RowConversion<'_, E>>,
        verify: impl FnOnce(&Table) -> Result<(), E>,
    ) -> Result<Arc<Table>, E> {
        assert!(
            old.data.detached.load(Ordering::Acquire),
            "a temporary table's rows are detached"
        );
        let _structure = old.data.structure.write();
        let table = rebuilt(old, schema, convert, verify)?;
        if !Arc::ptr_eq(&table.data, &old.data) {
            table.data.detached.store(true, Ordering::Release);
            self.temporary.lock().push(Arc::downgrade(&table.data));
        }
        old.retired.store(true, Ordering::Release);
        Ok(table)
    }

    /// Replays a `DdlChange::AlterTable` (recovery): the table named by `schema` gets
    /// `schema` and, if `rows` is Some, exactly those rows, committed at the clock.
    pub fn replay_alter_table(
        &self,
        db: &str,
        schema: TableSchema,
        auto_increment: u64,
        rows: Option<Vec<(Box<[u8]>, Row)>>,
        followers: Vec<TableForeignKeys>,
    ) -> Result<(), StorageError> {
        let ts = self.clock();
        let name = schema.name.clone();
        self.alter_tables_with(db, &name, followers, |old| {
            let Some(rows) = rows else {
                return Ok((with_schema_keeping_rows(old, schema)?, None));
            };
            let data = Arc::new(TableData::new());
            data.auto_increment.store(auto_increment, Ordering::Relaxed);
            let table = Table::new(old.id, &old.db, schema, data, Vec::new());
            table.load_rows(rows.into_iter().map(|(k, r)| (k, r, ts)).collect())?;
            Ok((Arc::new(table), None))
        })
    }

    /// Swaps in the table `alter` makes from `db`.`name` and each follower's new foreign
    /// keys, logging one `DdlChange::AlterTable` (invariants (3), (6)).
    fn alter_tables_with<E: From<StorageError>>(
        &self,
        db: &str,
        name: &str,
        followers: Vec<TableForeignKeys>,
        alter: impl FnOnce(&Table) -> Result<(Arc<Table>, Option<RebuiltRows>), E>,
    ) -> Result<(), E> {
        let _ddl = self.ddl.lock();
        let catalog = self.catalog.load_full();
        let lookup = |db: &str, name: &str| {
            catalog
                .table(db, name)
                .cloned()
                .ok_or_else(|| StorageError::NoSuchTable(name.to_string()))
        };
        let old = lookup(db, name)?;
        let old_followers = followers
            .iter()
            .map(|f| lookup(&f.db, &f.table))
            .collect::<Result<Vec<_>, _>>()?;
        assert!(
            old_followers.iter().all(|f| !Arc::ptr_eq(f, &old)),
            "the altered table follows itself"
        );
        // Invariant (3): no write statement is between its table lookup and its last
        // write. A write call holds one table's `structure` at a time, so taking several
        // here cannot deadlock with one.
        let _structure = old.data.structure.write();
        let _follower_structures: Vec<_> = old_followers
            .iter()
            .map(|f| f.data.structure.write())
            .collect();
        let (new, rows) = alter(&old)?;
        let new_followers: Vec<Arc<Table>> = old_followers
            .iter()
            .zip(&followers)
            .map(|(f, keys)| {
                let in_range = keys
                    .foreign_keys
                    .iter()
                    .all(|fk| fk.columns.iter().all(|&c| c < f.schema.columns.len()));
                assert!(in_range, "foreign key on a column that does not exist");
                let mut schema = (*f.schema).clone();
                schema.foreign_keys = keys.foreign_keys.clone();
                Arc::new(Table::new(
                    f.id,
                    &f.db,
                    schema,
                    f.data.clone(),
                    f.secondary.clone(),
                ))
            })
            .collect();
        let record = DdlChange::AlterTable {
            db: db.to_string(),
            schema: (*new.schema).clone(),
            auto_increment: new.auto_increment(),
            rows,
            followers,
        };
        self.update_catalog(
            |dbs| {
                let tables = std::iter::once((db, name, new)).chain(
                    old_followers
                        .iter()
                        .zip(new_followers)
                        .map(|(f, t)| (&*f.db, f.schema.name.as_str(), t)),
                );
                for (db, name, table) in tables {
                    let database = dbs
                        .get(db)
                        .ok_or_else(|| StorageError::NoSuchDatabase(db.into()))?;
                    let mut database = clone_database(database);
                    database.tables.insert(name.to_string(), table);
                    dbs.insert(db.to_string(), Arc::new(database));
                }
                Ok(())
            },
            |_| Some(record),
        )?;
        old.retired.store(true, Ordering::Release);
        for f in &old_followers {
            f.retired.store(true, Ordering::Release);
        }
        Ok(())
    }

    fn replace_table(
        &self,
        db: &str,
        name: &str,
        record: DdlChange,
        rebuild: impl FnOnce(&Table) -> Result<Table, StorageError>,
    ) -> Result<(), StorageError> {
        self.replace_table_with(db, name, |old| Ok((rebuild(old)?, Some(record))))
    }

    /// Swaps the table `rebuild` makes from the current one into the catalog, logging the
    /// record it returns (None only where no log is attached).
    fn replace_table_with<E: From<StorageError>>(
        &self,
        db: &str,
        name: &str,
        rebuild: impl FnOnce(&Table) -> Result<(Table, Option<DdlChange>), E>,
    ) -> Result<(), E> {
        let _ddl = self.ddl.lock();
        let catalog = self.catalog.load_full();
        let old = catalog
            .table(db, name)
            .ok_or_else(|| StorageError::NoSuchTable(name.to_string()))?
            .clone();
        // Invariant (3): no write statement is between its table lookup and its last write.
        let _structure = old.data.structure.write();
        let (new, record) = rebuild(&old)?;
        assert!(
            record.is_some() || self.log.get().is_none(),
            "a catalog change with no log record"
        );
        let new = Arc::new(new);
        self.update_catalog(
            |dbs| {
                let database = dbs
                    .get(db)
                    .ok_or_else(|| StorageError::NoSuchDatabase(db.into()))?;
                let mut database = clone_database(database);
                database.tables.insert(name.to_string(), new);
                dbs.insert(db.to_string(), Arc::new(database));
                Ok(())
            },
            |_| record,
        )?;
        old.retired.store(true, Ordering::Release);
        Ok(())
    }

    /// Renames tables (and views) as RENAME TABLE does: the pairs apply in order (so `a TO
    /// tmp, b TO a, tmp TO b` swaps two tables) and all or none of them happen, in one
    /// catalog swap and one log record (`DdlChange::RenameTables`). Errors, checked pair by
    /// pair against the catalog as the pairs before left it, in MariaDB's order:
    /// `NoSuchTable` (naming `db.table`) if the old name is no table or view (also when its
    /// database does not exist), `NoSuchDatabase` for the new name's database,
    /// `TableExists` if a table or view has the new name (invariant (7)), and
    /// `ViewAcrossDatabases` for a view moved to another database.
    ///
    /// A renamed table is a new `Table` with the old one's id, rows (`TableData`) and
    /// index trees under the new name (invariant (2)); foreign keys that name it as their
    /// parent, in any table and in the table itself, follow it to its new name (as InnoDB
    /// does), and keys of a renamed child named `<old>_ibfk_<n>` (the generated names)
    /// become `<new>_ibfk_<n>` (InnoDB renames them so too). Views naming a table are not
    /// changed (MariaDB leaves them naming the old name).
    ///
    /// `TableBusy` if another transaction holds a row of a table to be renamed: a commit
    /// logs its rows under the table name it wrote through, so a commit of such a row after
    /// the rename would be replayed into the old name (into the other table, after a
    /// swap). MariaDB waits for the table's metadata lock instead. Transactions that only
    /// read the table are unaffected: the rows are the same.
    pub fn rename_tables(&self, renames: &[TableRename]) -> Result<(), StorageError> {
        let _ddl = self.ddl.lock();
        let current = self.catalog.load_full();
        let mut databases = current.databases.clone();
        for rename in renames {
            rename_one(&mut databases, rename)?;
        }
        // Tables replaced by new objects: the renamed ones and those whose keys followed.
        let kept: HashSet<*const Table> = databases
            .values()
            .flat_map(|db| db.tables.values())
            .map(Arc::as_ptr)
            .collect();
        let replaced: Vec<&Arc<Table>> = current
            .databases
            .values()
            .flat_map(|db| db.tables.values())
            .filter(|t| !kept.contains(&Arc::as_ptr(t)))
            .collect();
        let _structures = lock_structures(replaced.iter().map(|t| &*t.data));
        let renamed = replaced.iter().filter(|old| {
            let same_name = databases
                .get(&*old.db)
                .and_then(|db| db.tables.get(&old.schema.name))
                .is_some_and(|t| Arc::ptr_eq(&t.data, &old.data));
            !same_name
        });
        refuse_held(renamed.map(|t| &*t.data))?;
        let record = DdlChange::RenameTables {
            renames: renames.to_vec(),
        };
        // The catalog cannot change meanwhile: `ddl` is held.
        self.update_catalog(
            |dbs| {
                *dbs = databases;
                Ok(())
            },
            |_| Some(record),
        )?;
        for old in replaced {
            old.retired.store(true, Ordering::Release);
        }
        Ok(())
    }

    /// Number of garbage items queued for the tables in the current catalog and the live
    /// temporary tables (a diagnostic).
    pub fn garbage_len(&self) -> usize {
        let catalog = self.catalog.load();
        let temporary: usize = self
            .temporary
            .lock()
            .iter()
            .filter_map(std::sync::Weak::upgrade)
            .map(|data| data.garbage_len())
            .sum();
        catalog
            .databases
            .values()
            .flat_map(|db| db.tables.values())
            .map(|t| t.data.garbage_len())
            .sum::<usize>()
            + temporary
    }

    /// The garbage-collection horizon: no active snapshot is older (a diagnostic).
    pub fn horizon(&self) -> u64 {
        self.horizon.get()
    }

    /// Drops versions and index entries no snapshot can see any more. Call periodically
    /// from a background thread.
    pub fn collect_garbage(&self) {
        self.horizon.advance(&self.clock);
        let horizon = self.horizon.get();
        let catalog = self.catalog.load_full();
        for database in catalog.databases.values() {
            for table in database.tables.values() {
                table.collect_garbage(horizon);
            }
        }
        let mut temporary = self.temporary.lock();
        temporary.retain(|data| match data.upgrade() {
            Some(data) => {
                data.collect_garbage(horizon);
                true
            }
            None => false,
        });
    }
}

/// Applies one pair of `Storage::rename_tables` to `dbs`.
fn rename_one(
    dbs: &mut BTreeMap<String, Arc<Database>>,
    rename: &TableRename,
) -> Result<(), StorageError> {
    let TableRename {
        from_db,
        from,
        to_db,
        to,
    } = rename;
    let missing = || StorageError::NoSuchTable(format!("{from_db}.{from}"));
    let source = dbs.get(from_db).ok_or_else(missing)?;
    let table = source.tables.get(from).cloned();
    let view = source.views.get(from).cloned();
    if table.is_none() && view.is_none() {
        return Err(missing());
    }
    let target = dbs
        .get(to_db)
        .ok_or_else(|| StorageError::NoSuchDatabase(to_db.clone()))?;
    if target.tables.contains_key(to) || target.views.contains_key(to) {
        return Err(StorageError::TableExists(to.clone()));
    }
    let mut source = clone_database(source);
    source.tables.remove(from);
    source.views.remove(from);
    // The table's triggers follow it (invariant (9)).
    let (moved, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut source.triggers)
        .into_iter()
        .partition(|t| t.table == *from);
    source.triggers = kept;
    dbs.insert(from_db.clone(), Arc::new(source));
    let mut target = clone_database(&dbs[to_db]);
    if let Some(view) = view {
        if from_db != to_db {
            return Err(StorageError::ViewAcrossDatabases {
                view: from.clone(),
                from: from_db.clone(),
                to: to_db.clone(),
            });
        }
        let mut view = ViewSchema::clone(&view);
        view.name = to.clone();
        target.views.insert(to.clone(), Arc::new(view));
        dbs.insert(to_db.clone(), Arc::new(target));
        return Ok(());
    }
    let Some(old) = table else {
        unreachable!("a table or a view");
    };
    let mut schema = TableSchema::clone(&old.schema);
    schema.name = to.clone();
    let generated = format!("{from}_ibfk_");
    for fk in &mut schema.foreign_keys {
        if let Some(n) = fk.name.strip_prefix(&generated) {
            if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
                fk.name = format!("{to}_ibfk_{n}");
            }
        }
    }
    let table = Table::new(
        old.id,
        to_db,
        schema,
        old.data.clone(),
        old.secondary.clone(),
    );
    target.tables.insert(to.clone(), Arc::new(table));
    target.triggers.extend(moved.into_iter().map(|t| {
        let mut t = TriggerSchema::clone(&t);
        t.table = to.clone();
        Arc::new(t)
    }));
    dbs.insert(to_db.clone(), Arc::new(target));
    // Foreign keys naming the old name as their parent now name the new one.
    let names_parent = |fk: &ForeignKeySchema| fk.parent_db == *from_db && fk.parent_table == *from;
    let children: Vec<(String, Arc<Table>)> = dbs
        .iter()
        .flat_map(|(name, db)| db.tables.values().map(move |t| (name, t)))
        .filter(|(_, t)| t.schema.foreign_keys.iter().any(names_parent))
        .map(|(name, t)| (name.clone(), t.clone()))
        .collect();
    for (db, child) in children {
        let mut schema = TableSchema::clone(&child.schema);
        for fk in schema.foreign_keys.iter_mut().filter(|fk| names_parent(fk)) {
            fk.parent_db = to_db.clone();
            fk.parent_table = to.clone();
        }
        let table = Table::new(
            child.id,
            &child.db,
            schema,
            child.data.clone(),
            child.secondary.clone(),
        );
        let mut database = clone_database(&dbs[&db]);
        database
            .tables
            .insert(table.schema.name.clone(), Arc::new(table));
        dbs.insert(db, Arc::new(database));
    }
    Ok(())
}

/// Takes `structure` exclusive on each of `tables` once (invariant (3): no write statement
/// is then between its table lookup and its last write). Write calls hold one table's
/// `structure` at a time, so taking several cannot deadlock with them; the caller holds
/// `ddl`, so no other DDL takes them meanwhile.
fn lock_structures<'t>(
    tables: impl IntoIterator<Item = &'t TableData>,
) -> Vec<parking_lot::RwLockWriteGuard<'t, ()>> {
    let mut locked = HashSet::new();
    tables
        .into_iter()
        .filter(|data| locked.insert(std::ptr::from_ref(*data)))
        .map(|data| data.structure.write())
        .collect()
}

/// `TableBusy` naming a transaction that holds a row of one of `tables`, for DDL that
/// would take those rows out of the catalog (invariant (8)): the caller waits for it and
/// tries again. Call with the tables' `structure` held, so no write starts after the check.
fn refuse_held<'t>(tables: impl IntoIterator<Item = &'t TableData>) -> Result<(), StorageError> {
    match tables.into_iter().find_map(TableData::holder_of_any_row) {
        Some(holder) => Err(StorageError::TableBusy { holder }),
        None => Ok(()),
    }
}

/// Marks the rows of every table `old` has and `new` lacks (`TableData::detached`): rows
/// no table of `new` shares were replaced or dropped (a renamed table shares its rows).
fn detach_dropped_rows(old: &Catalog, new: &BTreeMap<String, Arc<Database>>) {
    let kept: HashSet<*const TableData> = new
        .values()
        .flat_map(|db| db.tables.values())
        .map(|table| Arc::as_ptr(&table.data))
        .collect();
    for table in old.databases.values().flat_map(|db| db.tables.values()) {
        if !kept.contains(&Arc::as_ptr(&table.data)) {
            table.data.detached.store(true, Ordering::Release);
        }
    }
}

/// An index entry to insert: encoded key and the row it points to.
pub(crate) type IndexEntry = (Box<[u8]>, Arc<RowSlot>);

/// Index builds of at least this many entries insert on every core.
const PARALLEL_INSERT_MIN: usize = 1 << 16;

/// Inserts index entries in key order: a skip list walks far fewer cache lines for ordered
/// inserts than for random ones (index builds and recovery). Large builds split the sorted
/// entries into one contiguous key range per core, so the threads rarely meet in the list.
/// A key already present keeps its entry (a version of the same row indexed it already).
pub(crate) fn insert_sorted(tree: &Tree, mut entries: Vec<IndexEntry>) {
    entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let insert = |part: Vec<IndexEntry>| {
        let _pin = crate::index::pin(); // Makes the inserts' own pins cheap.
        for (key, slot) in part {
            tree.insert_new(key, &slot);
        }
    };
    let threads = match entries.len() {
        0..PARALLEL_INSERT_MIN => 1,
        _ => std::thread::available_parallelism().map_or(1, usize::from),
    };
    let chunk = entries.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        while entries.len() > chunk {
            let part = entries.split_off(entries.len() - chunk);
            scope.spawn(move || insert(part));
        }
        insert(entries);
    });
}

/// `old` with `schema`: its rows kept (`convert` None: no stored value changes) or each
/// committed row converted into new rows (TableBusy if a transaction holds one), then
/// `verify`'d. The new table keeps `old`'s id and database.
fn rebuilt<E: From<StorageError>>(
    old: &Table,
    schema: TableSchema,
    convert: Option<&mut RowConversion<'_, E>>,
    verify: impl FnOnce(&Table) -> Result<(), E>,
) -> Result<Arc<Table>, E> {
    let Some(convert) = convert else {
        let table = with_schema_keeping_rows(old, schema)?;
        verify(&table)?;
        return Ok(table);
    };
    let mut rows = Vec::new();
    let guard = crate::index::pin();
    for (_, slot) in old.data.primary.range(Unbounded, Unbounded, &guard) {
        if let Some(holder) = holder_of(slot) {
            return Err(StorageError::TableBusy { holder }.into());
        }
        let Some(newest) = slot.head.load_full() else {
            continue;
        };
        let ts = newest.commit_ts.load(Ordering::Acquire);
        assert_ne!(ts, UNCOMMITTED, "uncommitted version in an unlocked slot");
        if let Some(row) = &newest.row {
            let converted = convert(rows.len() as u64 + 1, row)?;
            rows.push((slot.key.clone(), converted, ts));
        }
    }
    drop(guard);
    let data = Arc::new(TableData::new());
    data.auto_increment
        .store(old.auto_increment(), Ordering::Relaxed);
    let table = Table::new(old.id, &old.db, schema, data, Vec::new());
    // A hidden key stays the row's; rows that lost their primary key get new ids.
    let keep_hidden = old.schema.primary_key.is_none();
    let rows = rows
        .into_iter()
        .map(|(old_key, row, ts)| {
            let key = match table.primary_key_of_row(&row) {
                Some(key) => key,
                None if keep_hidden => old_key,
                None => {
                    let id = table.data.next_row_id.fetch_add(1, Ordering::Relaxed);
                    id.to_be_bytes().to_vec().into_boxed_slice()
                }
            };
            (key, row, ts)
        })
        .collect();
    table.load_rows(rows)?;
    verify(&table)?;
    Ok(Arc::new(table))
}

/// `old` under `schema`, with its rows and indexes: `Storage::alter_table` without
/// `convert`, whose schema may change nothing a stored row or an index depends on.
/// `old`'s rows under `schema`: an index `old` has keeps its tree, an added one is built.
fn with_schema_keeping_rows(old: &Table, schema: TableSchema) -> Result<Arc<Table>, StorageError> {
    assert_keeps_rows(&old.schema, &schema);
    let kept = |index: &IndexSchema| {
        let position = old.schema.indexes.iter().position(|i| i == index)?;
        Some(old.secondary[position].clone())
    };
    let secondary: Vec<Option<Arc<Tree>>> = schema.indexes.iter().map(kept).collect();
    let added: Vec<usize> = (0..secondary.len())
        .filter(|&i| secondary[i].is_none())
        .collect();
    let secondary = secondary
        .into_iter()
        .map(|tree| tree.unwrap_or_else(|| Arc::new(Tree::new())))
        .collect();
    let table = Table::new(old.id, &old.db, schema, old.data.clone(), secondary);
    for i in added {
        table.build_secondary(i)?;
    }
    Ok(Arc::new(table))
}

fn assert_keeps_rows(old: &TableSchema, new: &TableSchema) {
    let same_storage = |a: &ColumnSchema, b: &ColumnSchema| {
        a.data_type == b.data_type
            && a.nullable == b.nullable
            && a.auto_increment == b.auto_increment
    };
    assert!(
        old.columns.len() == new.columns.len()
            && old
                .columns
                .iter()
                .zip(&new.columns)
                .all(|(a, b)| same_storage(a, b))
            && old.primary_key == new.primary_key,
        "an ALTER that keeps the rows changes what they or the primary key store"
    );
}

fn clone_database(db: &Database) -> Database {
    Database {
        name: db.name.clone(),
        collation: db.collation,
        tables: db.tables.clone(),
        views: db.views.clone(),
        triggers: db.triggers.clone(),
        routines: db.routines.clone(),
    }
}

impl TableData {
    fn new() -> TableData {
        TableData {
            primary: PrimaryIndex::new(),
            auto_increment: CachePadded::new(AtomicU64::new(1)),
            next_row_id: CachePadded::new(AtomicU64::new(1)),
            unique_latch: Mutex::new(()),
            structure: RwLock::new(()),
            garbage: Mutex::new(Vec::new()),
            detached: AtomicBool::new(false),
        }
    }

    /// A transaction that holds a row (has an uncommitted write in it, or is committing
    /// it), if any. Scans every row: for DDL only.
    fn holder_of_any_row(&self) -> Option<u64> {
        let guard = crate::index::pin();
        let holder = self
            .primary
            .range(Unbounded, Unbounded, &guard)
            .find_map(|(_, slot)| holder_of(slot));
        holder
    }

    pub(crate) fn queue_garbage_slot(&self, slot: Arc<RowSlot>, ts: u64) {
        let item = Garbage {
            slot,
            ts,
            entry: None,
        };
        self.garbage.lock().push(item);
    }

    fn collect_garbage(&self, horizon: u64) {
        let items = std::mem::take(&mut *self.garbage.lock());
        let mut keep = Vec::new();
        for item in items {
            let done = item.ts <= horizon
                && match &item.entry {
                    None => self.collect_slot(&item.slot, horizon),
                    Some(entry) => entry.collect(&item.slot, horizon),
                };
            if !done {
                keep.push(item);
            }
        }
        self.garbage.lock().extend(keep);
    }

    /// Removes a slot whose newest version is a delete no snapshot needs, or that has no
    /// versions. Returns false to be retried later (the slot was busy).
    fn collect_slot(&self, slot: &Arc<RowSlot>, horizon: u64) -> bool {
        match slot
            .writer
            .compare_exchange(FREE, GC_TXN, Ordering::Acquire, Ordering::Acquire)
        {
            Ok(_) => {}
            Err(DEAD) => return true,
            Err(_) => return false,
        }
        let removable = match &slot.head.load_full() {
            None => true,
            Some(v) => {
                let ts = v.commit_ts.load(Ordering::Acquire);
                v.row.is_none() && ts != UNCOMMITTED && ts <= horizon
            }
        };
        if !removable {
            // Re-inserted since (a later delete queues the slot again).
            slot.writer.store(FREE, Ordering::Release);
            return true;
        }
        // Slot invariant (3): from here on writers look the key up again.
        slot.writer.store(DEAD, Ordering::Release);
        self.primary.remove(slot);
        true
    }

    /// Number of queued garbage items (a diagnostic).
    fn garbage_len(&self) -> usize {
        self.garbage.lock().len()
    }
}

impl StaleEntry {
    /// Removes the entry if no version a snapshot may read has its key. Returns false to be
    /// retried later (the row was locked).
    fn collect(&self, slot: &Arc<RowSlot>, horizon: u64) -> bool {
        match slot
            .writer
            .compare_exchange(FREE, GC_TXN, Ordering::Acquire, Ordering::Acquire)
        {
            Ok(_) => {
                let needed =
                    self.schema
                        .chain_has_secondary_key(slot, self.index, &self.key, Some(horizon));
                if !needed {
                    self.tree.remove_locked(&self.key, slot); // We hold the lock: index.rs (5).
                }
                slot.writer.store(FREE, Ordering::Release);
                true
            }
            Err(DEAD) => {
                self.tree.remove_if(&self.key, |s| Arc::ptr_eq(s, slot));
                true
            }
            Err(_) => false,
        }
    }
}

impl Table {
    fn new(
        id: TableId,
        db: &str,
        schema: TableSchema,
        data: Arc<TableData>,
        mut secondary: Vec<Arc<Tree>>,
    ) -> Table {
        while secondary.len() < schema.indexes.len() {
            secondary.push(Arc::new(Tree::new()));
        }
        Table {
            id,
            db: Arc::from(db),
            schema: Arc::new(schema),
            data,
            secondary,
            retired: AtomicBool::new(false),
        }
    }

    /// A table in no catalog, with no rows, that nothing may write: the schema of a
    /// virtual table whose rows its reader makes (the SQL layer's information_schema).
    /// Its id is `TableId::DETACHED`; a write through it fails as on a retired table.
    pub fn detached(db: &str, schema: TableSchema) -> Table {
        let table = Table::new(
            TableId::DETACHED,
            db,
            schema,
            Arc::new(TableData::new()),
            Vec::new(),
        );
        table.retired.store(true, Ordering::Relaxed);
        table
    }

    /// The next AUTO_INCREMENT value that would be generated.
    pub fn auto_increment(&self) -> u64 {
        self.data.auto_increment.load(Ordering::Relaxed)
    }

    /// Reserves `count` consecutive AUTO_INCREMENT values and returns the first.
    pub fn reserve_auto_increment(&self, count: u64) -> u64 {
        self.data.auto_increment.fetch_add(count, Ordering::Relaxed)
    }

    /// Makes sure later generated values exceed `used` (after an explicit value).
    pub fn observe_auto_increment(&self, used: u64) {
        self.data
            .auto_increment
            .fetch_max(used.saturating_add(1), Ordering::Relaxed);
    }

    /// Sets the next value (ALTER TABLE ... AUTO_INCREMENT = n, recovery).
    pub fn set_auto_increment(&self, next: u64) {
        self.data.auto_increment.store(next, Ordering::Relaxed);
    }

    /// Number of keys in the primary index (including rows not yet collected).
    pub fn approximate_row_count(&self) -> usize {
        self.data.primary.len()
    }

    /// The database the table belongs to.
    pub fn db(&self) -> &str {
        &self.db
    }

    /// Encodes a full primary key from its column values (in primary key order).
    pub fn primary_key(&self, values: &[Value]) -> Vec<u8> {
        let types = self.schema.key_parts(IndexNo::Primary);
        assert_eq!(
            values.len(),
            types.len(),
            "primary key lookup needs every key column"
        );
        crate::index::encode_prefix(values, &types)
    }

    pub(crate) fn primary_key_of_row(&self, row: &[Value]) -> Option<Box<[u8]>> {
        let columns = self.schema.primary_key.as_deref()?;
        let mut out = Vec::with_capacity(KEY_FIELD_BYTES_GUESS * columns.len());
        for &c in columns {
            key::encode_field(&row[c], &self.schema.columns[c].data_type, &mut out);
        }
        Some(out.into_boxed_slice())
    }

    /// Whether `row`'s primary key encodes to `key` (a hidden row id never changes: true).
    /// Encodes into a per-thread buffer: no allocation.
    pub(crate) fn has_primary_key(&self, row: &[Value], key: &[u8]) -> bool {
        let Some(columns) = self.schema.primary_key.as_deref() else {
            return true;
        };
        with_key_scratch(|scratch| {
            for &c in columns {
                key::encode_field(&row[c], &self.schema.columns[c].data_type, scratch);
            }
            scratch[..] == *key
        })
    }

    /// Key of `row` in secondary index `i`: index columns then the primary key.
    pub(crate) fn secondary_key(&self, i: usize, row: &[Value], primary: &[u8]) -> Box<[u8]> {
        self.schema.secondary_key(i, row, primary)
    }

    pub(crate) fn secondary_prefix(&self, i: usize, row: &[Value]) -> Vec<u8> {
        self.schema.secondary_prefix(i, row)
    }

    pub(crate) fn same_secondary_prefix(&self, i: usize, a: &[Value], b: &[Value]) -> bool {
        self.schema.same_secondary_prefix(i, a, b)
    }

    /// Number of entries in an index, stale ones included (a diagnostic).
    pub fn index_entry_count(&self, index: IndexNo) -> usize {
        match index {
            IndexNo::Primary => self.data.primary.len(),
            IndexNo::Secondary(i) => self.secondary[i].len(),
        }
    }

    pub(crate) fn has_unique_secondary(&self) -> bool {
        self.schema.indexes.iter().any(|i| i.unique)
    }

    /// Whether a version of `slot` that some snapshot may still read (all of them, with
    /// `horizon` None) has `key` in secondary index `i`.
    pub(crate) fn chain_has_secondary_key(
        &self,
        slot: &RowSlot,
        i: usize,
        key: &[u8],
        horizon: Option<u64>,
    ) -> bool {
        self.schema.chain_has_secondary_key(slot, i, key, horizon)
    }

    pub(crate) fn queue_garbage_entry(
        &self,
        i: usize,
        key: Box<[u8]>,
        slot: Arc<RowSlot>,
        ts: u64,
    ) {
        let entry = StaleEntry {
            schema: self.schema.clone(),
            index: i,
            tree: self.secondary[i].clone(),
            key,
        };
        let item = Garbage {
            slot,
            ts,
            entry: Some(entry),
        };
        self.data.garbage.lock().push(item);
    }

    fn collect_garbage(&self, horizon: u64) {
        self.data.collect_garbage(horizon);
    }

    /// Calls `f` with the row whose primary key is `key` (encoded), if visible. One hash
    /// lookup, not a skip-list search.
    pub fn get<R>(
        &self,
        view: &ReadView,
        key: &[u8],
        f: impl FnOnce(&Arc<RowSlot>, &[Value]) -> R,
    ) -> Option<R> {
        self.data
            .primary
            .get(key, |slot| slot.read(view, |row| f(slot, row)))?
    }

    /// Number of primary hash index entries (a diagnostic: equals the primary index's).
    pub fn primary_hash_entry_count(&self) -> usize {
        self.data.primary.hashed_len()
    }

    /// Visits visible rows of `range` over `index` in index order until `f` breaks.
    pub fn scan(
        &self,
        view: &ReadView,
        index: IndexNo,
        range: &KeyRange,
        f: impl FnMut(&Arc<RowSlot>, &[Value]) -> ControlFlow<()>,
    ) {
        let unchecked = self.scan_checked(view, index, range, |_| Ok(()), f);
        debug_assert!(unchecked.is_ok(), "no slot check can fail");
    }

    /// Visits the newest committed version (or `txn`'s own) of each row of `range` over
    /// `index`, as a foreign-key check must (InnoDB reads the latest version under a lock,
    /// not the snapshot). Err(holder) if another transaction holds a row of the range,
    /// whose outcome then decides the check: the caller waits for it and runs again.
    ///
    /// Sound against a concurrent writer of the other side because each side writes (and
    /// locks) its own row before it looks at the other: whichever looks second finds the
    /// first one's row locked. A slot is read only after its lock was seen free, and a
    /// commit stamps its versions before it unlocks them, so nothing committed is missed.
    pub fn scan_latest(
        &self,
        txn: u64,
        index: IndexNo,
        range: &KeyRange,
        f: impl FnMut(&Arc<RowSlot>, &[Value]) -> ControlFlow<()>,
    ) -> Result<(), u64> {
        // Every stamped version is visible; uncommitted ones (UNCOMMITTED) only to `txn`.
        let view = ReadView {
            snapshot: UNCOMMITTED - 1,
            txn,
        };
        let check = |slot: &RowSlot| match slot.writer.load(Ordering::Acquire) {
            FREE | DEAD | GC_TXN => Ok(()),
            holder if holder == txn => Ok(()),
            holder => Err(holder),
        };
        self.scan_checked(&view, index, range, check, f)
    }

    /// `scan`, with `check` called on each slot of the range before it is read.
    fn scan_checked(
        &self,
        view: &ReadView,
        index: IndexNo,
        range: &KeyRange,
        check: impl Fn(&RowSlot) -> Result<(), u64>,
        mut f: impl FnMut(&Arc<RowSlot>, &[Value]) -> ControlFlow<()>,
    ) -> Result<(), u64> {
        let types = self.schema.key_parts(index);
        if let (IndexNo::Primary, Bound::Included(low), Bound::Included(high)) =
            (index, &range.lower, &range.upper)
        {
            // The whole primary key, as `id IN (...)` gives: at most one row, by hash.
            if low.len() == types.len() && !types.is_empty() && low == high {
                let key = crate::index::encode_prefix(low, &types);
                return self
                    .data
                    .primary
                    .get(key.as_slice(), |slot| {
                        check(slot)?;
                        slot.read(view, |row| f(slot, row));
                        Ok(())
                    })
                    .unwrap_or(Ok(()));
            }
        }
        let (lower, upper) = range.encode(&types);
        let guard = crate::index::pin();
        match index {
            IndexNo::Primary => {
                for (_, slot) in self.data.primary.range(lower, upper, &guard) {
                    check(slot)?;
                    if let Some(ControlFlow::Break(())) = slot.read(view, |row| f(slot, row)) {
                        return Ok(());
                    }
                }
            }
            IndexNo::Secondary(i) => {
                for (entry, slot) in self.secondary[i].range(lower, upper, &guard) {
                    check(slot)?;
                    let flow = slot.read(view, |row| {
                        // Stale entries: the visible row must still have this key.
                        if self.schema.is_secondary_key(i, row, &slot.key, entry) {
                            f(slot, row)
                        } else {
                            ControlFlow::Continue(())
                        }
                    });
                    if let Some(ControlFlow::Break(())) = flow {
                        return Ok(());
                    }
                }
            }
        }
        Ok(())
    }

    /// Fills a new table, which nothing else can see yet, with committed rows (key, row,
    /// commit timestamp): its primary and secondary indexes, AUTO_INCREMENT past every
    /// value present and the hidden row id past every hidden key. DuplicateKey if two rows
    /// share a unique key.
    fn load_rows(&self, rows: Vec<(Box<[u8]>, Row, u64)>) -> Result<(), StorageError> {
        let _pin = crate::index::pin(); // Makes the index calls' own pins cheap.
        let auto_increment = self.schema.auto_increment_column();
        let hidden = self.schema.primary_key.is_none();
        let mut entries: Vec<Vec<IndexEntry>> = vec![Vec::new(); self.secondary.len()];
        for (key, row, ts) in rows {
            if hidden {
                let id: [u8; 8] = key[..].try_into().expect("a hidden key is a u64");
                let next = u64::from_be_bytes(id).saturating_add(1);
                self.data.next_row_id.fetch_max(next, Ordering::Relaxed);
            }
            if let Some(c) = auto_increment {
                match &row[c] {
                    Value::Int(v) if *v > 0 => self.observe_auto_increment(*v as u64),
                    Value::UInt(v) => self.observe_auto_increment(*v),
                    _ => {}
                }
            }
            // Keyed before the row moves into its slot.
            let keys: Vec<Box<[u8]>> = (0..entries.len())
                .map(|i| self.secondary_key(i, &row, &key))
                .collect();
            let slot = Arc::new(RowSlot::committed(key.clone(), row, ts));
            for (index, secondary_key) in entries.iter_mut().zip(keys) {
                index.push((secondary_key, slot.clone()));
            }
            if let Err(existing) = self.data.primary.insert_new(key, &slot) {
                return Err(StorageError::DuplicateKey {
                    index: IndexNo::Primary,
                    existing,
                });
            }
        }
        for (i, index) in entries.into_iter().enumerate() {
            insert_sorted(&self.secondary[i], index);
            if self.schema.indexes[i].unique {
                self.check_unique_after_build(i)?;
            }
        }
        Ok(())
    }

    /// CHECK TABLE: whether every row `view` sees can be found through every index, as
    /// readers find it: its slot under its own primary key in both primary maps (index.rs
    /// invariant (4)), and under its key in each secondary index (entries of a version
    /// are collected only once no snapshot sees it, and `view`'s snapshot is registered).
    /// Ok with the number of rows checked, or Err describing the first row not found.
    pub fn check(&self, view: &ReadView) -> Result<usize, String> {
        let guard = crate::index::pin();
        let mut rows = 0;
        for (key, slot) in self.data.primary.range(Unbounded, Unbounded, &guard) {
            let found = slot.read(view, |row| -> Result<(), String> {
                let shown = || {
                    let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
                    format!("the row with encoded primary key {hex}")
                };
                if !self.has_primary_key(row, key) {
                    return Err(format!("{} is stored under another primary key", shown()));
                }
                let hashed = self.data.primary.get(key, |s| Arc::ptr_eq(s, slot));
                if hashed != Some(true) {
                    return Err(format!(
                        "{} is missing from the primary hash index",
                        shown()
                    ));
                }
                for (i, index) in self.secondary.iter().enumerate() {
                    let entry = self.secondary_key(i, row, key);
                    if !index
                        .get(&entry, &guard)
                        .is_some_and(|s| Arc::ptr_eq(s, slot))
                    {
                        let name = &self.schema.indexes[i].name;
                        return Err(format!("{} is missing from index `{name}`", shown()));
                    }
                }
                Ok(())
            });
            if let Some(found) = found {
                found?;
                rows += 1;
            }
        }
        Ok(rows)
    }

    /// Every row's newest committed version with its key (a rebuilt table's log record).
    /// Calls `f` with each row's key and newest version, in key order (a table no one
    /// else writes: `RebuiltRows`).
    pub(crate) fn try_for_each_committed_row<E>(
        &self,
        mut f: impl FnMut(&[u8], &[Value]) -> Result<(), E>,
    ) -> Result<(), E> {
        let guard = crate::index::pin();
        for (_, slot) in self.data.primary.range(Unbounded, Unbounded, &guard) {
            let Some(newest) = slot.head.load_full() else {
                continue;
            };
            if let Some(row) = &newest.row {
                f(&slot.key, row)?;
            }
        }
        Ok(())
    }

    /// Indexes every version of every row in secondary index `i` (CREATE INDEX).
    fn build_secondary(&self, i: usize) -> Result<(), StorageError> {
        let guard = crate::index::pin();
        let mut entries = Vec::with_capacity(self.data.primary.len());
        for (_, slot) in self.data.primary.range(Unbounded, Unbounded, &guard) {
            let mut version = slot.head.load_full();
            while let Some(v) = version {
                if let Some(row) = &v.row {
                    entries.push((self.secondary_key(i, row, &slot.key), slot.clone()));
                }
                version = v.prev.load_full();
            }
        }
        insert_sorted(&self.secondary[i], entries);
        if self.schema.indexes[i].unique {
            self.check_unique_after_build(i)?;
        }
        Ok(())
    }

    /// Invariant (5): every key each row may end with, across every row.
    fn check_unique_after_build(&self, i: usize) -> Result<(), StorageError> {
        let columns = &self.schema.indexes[i].columns;
        let guard = crate::index::pin();
        // (key, row, whether the row has this key however its writer ends)
        let mut keys: Vec<(Vec<u8>, Arc<RowSlot>, bool)> = Vec::new();
        for (_, slot) in self.data.primary.range(Unbounded, Unbounded, &guard) {
            let outcomes = slot.possible_rows(|row| {
                row.filter(|r| columns.iter().all(|&c| !r[c].is_null()))
                    .map(|r| self.secondary_prefix(i, r))
            });
            let certain = outcomes.windows(2).all(|pair| pair[0] == pair[1]);
            let mut distinct: Vec<Vec<u8>> = outcomes.into_iter().flatten().collect();
            distinct.sort();
            distinct.dedup();
            for key in distinct {
                keys.push((key, slot.clone(), certain));
            }
        }
        keys.sort_by(|a, b| a.0.cmp(&b.0));
        let mut conflict = false;
        for pair in keys.windows(2) {
            if pair[0].0 == pair[1].0 {
                if pair[0].2 && pair[1].2 {
                    return Err(StorageError::DuplicateKey {
                        index: IndexNo::Secondary(i),
                        existing: pair[1].1.clone(),
                    });
                }
                conflict = true;
            }
        }
        if conflict {
            return Err(StorageError::WriteConflict);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use manycore_types::IntWidth;

    fn column(name: &str) -> ColumnSchema {
        ColumnSchema {
            name: name.to_string(),
            data_type: DataType::Int {
                width: IntWidth::Big,
                unsigned: false,
            },
            nullable: false,
            default: ColumnDefault::None,
            auto_increment: false,
            on_update_current_timestamp: false,
            comment: String::new(),
            display_width: None,
            generated: None,
        }
    }

    #[test]
    fn check_reports_a_row_its_index_lost() {
        let storage = Storage::new();
        storage
            .create_database("d", manycore_types::Collation::Utf8mb4GeneralCi, false)
            .expect("database");
        let schema = TableSchema {
            name: "t".to_string(),
            columns: vec![column("id"), column("a")],
            primary_key: Some(vec![0]),
            indexes: vec![IndexSchema::new("by_a", vec![1], false)],
            fulltext_indexes: Vec::new(),
            comment: String::new(),
            options: Default::default(),
            foreign_keys: Vec::new(),
            checks: Vec::new(),
        };
        storage.create_table("d", schema, false).expect("table");
        let table = storage.catalog().table("d", "t").expect("t").clone();
        let reader = storage.register_reader();
        let mut txn = storage.begin(&reader);
        for id in 1..=2 {
            txn.insert(&table, vec![Value::Int(id), Value::Int(id)].into())
                .expect("insert");
        }
        txn.commit().expect("commit");
        let txn = storage.begin(&reader);
        assert_eq!(table.check(&txn.view()), Ok(2));
        let key = table.primary_key(&[Value::Int(2)]);
        let entry = table.secondary_key(0, &[Value::Int(2), Value::Int(2)], &key);
        assert!(table.secondary[0].remove_if(&entry, |_| true));
        let problem = table.check(&txn.view()).expect_err("an entry is missing");
        assert!(problem.contains("missing from index `by_a`"), "{problem}");
    }

    /// Routine names compare as MariaDB compares them (utf8mb3_general_ci: case and accents
    /// ignored, 'ß' = 's'), and keys sort in that collation's order.
    #[test]
    fn routine_keys_fold_as_mariadb_compares_names() {
        assert_eq!(routine_key("Pé"), routine_key("pE"));
        assert_eq!(routine_key("sß"), routine_key("SS"));
        assert_ne!(routine_key("p1"), routine_key("p2"));
        assert!(routine_key("aB") < routine_key("a_b"));
    }
}
