//! Logical log records: what recovery needs to rebuild storage, and their binary encoding.
//!
//! A record payload (the bytes a log frame or checkpoint entry carries) is:
//!
//!   0: u8 format version (`FORMAT_VERSION`, 2; version 1 is still read)
//!   1: u8 kind (table below)
//!   2: kind-specific fields, in declaration order
//!
//! | kind | record         | fields                                                    |
//! |------|----------------|-----------------------------------------------------------|
//! | 1    | CreateDatabase | name, u8 default collation unless utf8mb4_general_ci (old layout) |
//! | 2    | DropDatabase   | name                                                      |
//! | 3    | CreateTable    | db, schema, auto_increment (varint)                       |
//! | 4    | DropTable      | db, name                                                  |
//! | 5    | TruncateTable  | db, name                                                  |
//! | 6    | CreateIndex    | db, table, index                                          |
//! | 7    | DropIndex      | db, table, name                                           |
//! | 8    | Commit         | commit_ts (u64 LE, fixed at offset 2), count, changes     |
//! | 9    | AutoIncrement  | db, table, next (varint)                                  |
//! | 10   | TableRows      | db, table, count, (key bytes, row) * count (checkpoints)  |
//! | 11   | SetForeignKeys | db, table, count, foreign keys                            |
//! | 12   | CheckConstraints | db, table, count, (name, bool column_level, expression) * count |
//! | 13   | CreateView     | db, view                                                  |
//! | 14   | DropView       | db, name                                                  |
//! | 15   | RebuildTable   | db, schema, checks as in kind 12 (count, ...), auto_increment (varint), count, (key bytes, row) * count (read, no longer written) |
//! | 16   | AlterTable     | db, schema, checks as in kind 12, auto_increment (varint), count, (db, table, count, foreign keys) * count, bool rows follow |
//! | 17   | AlterRows      | db, table, count, (key bytes, row) * count                |
//! | 18   | AlterEnd       | db, table                                                 |
//! | 19   | RenameTables   | count, (from db, from name, to db, to name) * count       |
//! | 20   | CreateTrigger  | db, then TriggerSchema's 9 strings in declaration order   |
//! | 21   | DropTrigger    | db, name                                                  |
//! | 22   | AlterDatabase  | name, default collation                                   |
//! | 23   | CreateTrigger  | as kind 20, then the index FOLLOWS/PRECEDES gave it (varint) |
//! | 24   | CreateRoutine  | db, routine                                               |
//! | 25   | DropRoutine    | db, routine kind, name                                    |
//!
//! ALTER TABLE's column operations are one AlterTable record when the table keeps its
//! rows (a rename, a default), with the other tables whose foreign keys follow a renamed
//! column. A rebuilt table's record says its rows follow: AlterRows records of at most
//! `ROWS_RECORD_BYTES_MAX` bytes each, as checkpoints write tables, then AlterEnd. All of
//! them are appended under storage's commit order, so nothing comes between them, and
//! replay applies the ALTER only at its AlterEnd: the whole ALTER or none of it, with no
//! limit on the table's size. (RebuildTable held a whole table in one record, which capped
//! an ALTER at `RECORD_PAYLOAD_MAX`; logs holding it still replay.) A schema carries its
//! foreign keys as any schema does, and its CHECK constraints follow it in the record (a
//! checkpoint writes an altered table as CreateTable + CheckConstraints + TableRows like
//! any other).
//!
//! RenameTables (RENAME TABLE, ALTER TABLE ... RENAME) lists a statement's pairs in the
//! order they apply; replay applies them as one catalog change again
//! (`Storage::rename_tables`), which also moves foreign keys naming a renamed parent, so
//! they are not listed. A checkpoint writes renamed tables under their new names.
//!
//! Field encodings: a string or byte string is a varint length then the bytes; a count is a
//! varint; u64/u32 are varints; i64 is a zigzag varint; bool is one byte 0/1.
//! - change: u8 flags (bit 0: has row, bit 1: same table as the previous change), then
//!   db and table unless bit 1, then key bytes, then the row if bit 0.
//!   A change without a row is a delete; with one, an insert or the new full image.
//! - row: count, then values.
//! - value: u8 tag: 0 NULL | 1 Int zigzag | 2 UInt varint | 3 Double (u64 LE bits) |
//!   4 Decimal as written before 65-digit decimals (i128 LE mantissa, u8 scale; still
//!   read) | 5 Bytes | 6 Date | 7 DateTime | 8 Decimal (the 28 bytes of
//!   `Decimal::to_bytes`: 27-byte big-endian magnitude, then sign bit and scale) |
//!   9 Time (zigzag microseconds, within the TIME range).
//!   Date = varint year, u8 month, u8 day; DateTime = Date, u8 hour, minute, second,
//!   varint microsecond.
//! - data type: u8 tag: 0 Null | 1 Int (u8 width 0..=4 tiny..big, bool unsigned) |
//!   2 Decimal (u8 precision, u8 scale) | 3 Float | 4 Double | 5 Char | 6 VarChar |
//!   7 Binary | 8 VarBinary (each: varint length) | 9 Text | 10 Blob (each: u8 size
//!   0..=3 tiny..long) | 11 Date | 12 DateTime | 13 Timestamp (each: u8 fsp) |
//!   14 Decimal unsigned (u8 precision, u8 scale) | 15 DOUBLE(M,D) (u8 M, u8 D) |
//!   16 Time (u8 fsp) | 17 FLOAT(M,D) (u8 M, u8 D) | 18 FLOAT UNSIGNED | 19 DOUBLE
//!   UNSIGNED | 20 FLOAT(M,D) UNSIGNED | 21 DOUBLE(M,D) UNSIGNED (20, 21: u8 M, u8 D) |
//!   22 Char, 23 VarChar, 24 Text in utf8mb4_bin (fields as 5, 6, 9) |
//!   25 Enum, 26 Set (each: bool utf8mb4_bin (else general_ci), varint count, the
//!   members' strings).
//!   A DOUBLE without (M,D) is tag 4, a FLOAT without them tag 3; a character string
//!   in utf8mb4_general_ci keeps tag 5, 6 or 9, so logs from before collations read alike.
//! - column: name, type, bool nullable, default (u8 0 none | 1 value | 2 CURRENT_TIMESTAMP),
//!   bool auto_increment, bool on_update_current_timestamp, comment, varint display
//!   width (0 none, else width + 1).
//! - index: name, count, column positions (varints), u8 flags (bit 0 unique, bit 1
//!   prefixed; a bool before prefixes existed, so older logs read alike), then if
//!   prefixed one varint per column: 0 the whole column, else its prefix length.
//! - table schema: name, count, columns, u8 flags (bit 0: has a primary key, then count,
//!   positions; bit 1: has foreign keys; a bool before foreign keys existed, so older logs
//!   read alike; bit 2: has table options; bit 3: has generated columns), count,
//!   indexes, comment, then if bit 1: count, foreign keys, then if bit 2: table options,
//!   then if bit 3: count, (column position, expression, bool stored) * count.
//! - default collation (a database's, a table's): u8 0 utf8mb4_general_ci | 1 utf8mb4_bin.
//! - table options (written only when not all default, so older logs read alike):
//!   default collation, u8 row format (0 not
//!   declared | 1 DYNAMIC | 2 COMPACT | 3 REDUNDANT | 4 COMPRESSED).
//! - foreign key: name, count, child column positions, parent db, parent table, count,
//!   parent column names, u8 on delete, u8 on update (0 RESTRICT | 1 CASCADE |
//!   2 SET NULL | 3 NO ACTION).
//!   CHECK constraints are not part of it: a table's are a CheckConstraints record of
//!   their own (after its CreateTable, also in checkpoints), so a CreateTable's schema
//!   never has any.
//! - view: name, count, column names, query, algorithm, definer, security, check option
//!   (all strings).
//! - routine kind: u8 0 PROCEDURE | 1 FUNCTION.
//! - routine: name, routine kind, params, returns, body, definer, security, data access,
//!   bool deterministic, comment, sql_mode, character set client, collation connection,
//!   created, modified (`RoutineSchema`'s fields in declaration order; all else strings).
//!
//! Invariants:
//! (1) `decode(encode(r)) == r` for every record (tested exhaustively by kind).
//! (2) Decoding arbitrary bytes returns `Err`, never panics, and never yields a schema
//!     whose index refers to a missing column (storage asserts on that).
//! (3) A payload with an unknown version or kind is an error, not a skip: silently ignoring
//!     a record could lose a commit.

use crate::codec::*;
use manycore_storage::{
    CheckConstraint, ColumnSchema, ForeignKeySchema, FulltextIndex, GeneratedColumn, IndexSchema,
    ReferentialAction, RoutineKind, RoutineSchema, RowFormat, TableForeignKeys, TableOptions,
    TableRename, TableSchema, TriggerSchema, ViewSchema,
};
use manycore_types::decimal::PACKED_LEN;
use manycore_types::enumset::Members;
use manycore_types::{
    Collation, ColumnDefault, DataType, Date, DateTime, Decimal, IntWidth, LobSize, Time, Value,
    NOT_FIXED_DECIMALS,
};
use std::sync::Arc;

/// The version written. Versions differ only in how keys weigh utf8mb4_general_ci strings
/// (`manycore_types::collation`); the bytes are laid out alike:
/// - 1: by case only ('é' and 'E' were different keys);
/// - 2: by case and accents, as MariaDB ('é' = 'E').
///
/// A version-1 row whose key holds a character that weighs differently now fails
/// recovery's check that a row matches its key, rather than being filed under a key that
/// later lookups cannot find (docs/durability.md, "Log format versions").
pub const FORMAT_VERSION: u8 = 2;

/// Whether `payload` was written in format version 1 (keys weighed by case only).
pub fn weighs_keys_by_case_only(payload: &[u8]) -> bool {
    payload.first() == Some(&1)
}

/// Versions `decode` accepts.
const FORMAT_VERSIONS_READ: std::ops::RangeInclusive<u8> = 1..=FORMAT_VERSION;

/// Offset of `commit_ts` in a Commit payload, so it can be patched after encoding.
const COMMIT_TS_OFFSET: usize = 2;

/// The largest payload a record may have (a LONGBLOB row fits; MySQL's own packet limit is
/// far below). Checked before writing and when reading a length from disk.
pub const RECORD_PAYLOAD_MAX: usize = 1 << 30;

/// One row written, deleted or replaced by a committed transaction: storage's type, so a
/// commit is encoded straight from what storage hands the log hook.
pub use manycore_storage::{RowChange, RowChangeRef};

/// Rows of one table in a checkpoint: (encoded key, row).
pub type KeyedRows = Vec<(Vec<u8>, Vec<Value>)>;

/// Rows per TableRows or AlterRows record (fewer if they exceed `ROWS_RECORD_BYTES_MAX`):
/// records small enough to stream, large enough that their framing costs nothing.
pub const ROWS_RECORD_MAX: usize = 1024;
pub const ROWS_RECORD_BYTES_MAX: usize = 1 << 20;

#[derive(Clone, Debug, PartialEq)]
pub enum LogRecord {
    CreateDatabase {
        name: String,
        collation: Collation,
    },
    DropDatabase {
        name: String,
    },
    AlterDatabase {
        name: String,
        collation: Collation,
    },
    CreateTable {
        db: String,
        schema: TableSchema,
        auto_increment: u64,
    },
    DropTable {
        db: String,
        name: String,
    },
    TruncateTable {
        db: String,
        name: String,
    },
    CreateIndex {
        db: String,
        table: String,
        index: IndexSchema,
    },
    DropIndex {
        db: String,
        table: String,
        name: String,
    },
    Commit {
        commit_ts: u64,
        changes: Vec<RowChange>,
    },
    AutoIncrement {
        db: String,
        table: String,
        next: u64,
    },
    SetForeignKeys {
        db: String,
        table: String,
        foreign_keys: Vec<ForeignKeySchema>,
    },
    /// Only in checkpoints: committed rows of one table as of the checkpoint.
    TableRows {
        db: String,
        table: String,
        rows: KeyedRows,
    },
    /// A table's CHECK constraints, replacing any it had.
    CheckConstraints {
        db: String,
        table: String,
        checks: Vec<CheckConstraint>,
    },
    /// A view created or replaced (CREATE [OR REPLACE] VIEW, ALTER VIEW).
    CreateView {
        db: String,
        view: ViewSchema,
    },
    DropView {
        db: String,
        name: String,
    },
    /// A trigger created or replaced (CREATE [OR REPLACE] TRIGGER): kind 20, or kind 23
    /// with the `position` FOLLOWS or PRECEDES gave it.
    CreateTrigger {
        db: String,
        trigger: TriggerSchema,
        position: Option<u32>,
    },
    DropTrigger {
        db: String,
        name: String,
    },
    /// A stored procedure or function created or replaced (CREATE [OR REPLACE] PROCEDURE
    /// or FUNCTION): replay replaces the routine of its kind and name.
    CreateRoutine {
        db: String,
        routine: RoutineSchema,
    },
    /// DROP PROCEDURE or FUNCTION (`name` compared without case, as storage keys it).
    DropRoutine {
        db: String,
        kind: RoutineKind,
        name: String,
    },
    /// The table named by `schema` gets `schema` (CHECK constraints included) and exactly
    /// `rows` (ALTER TABLE's rebuild, as logs before AlterTable wrote it).
    RebuildTable {
        db: String,
        schema: TableSchema,
        auto_increment: u64,
        rows: KeyedRows,
    },
    /// ALTER TABLE (storage's `DdlChange::AlterTable`): applied at once, or if
    /// `rows_follow`, at the AlterEnd after its AlterRows.
    AlterTable {
        db: String,
        schema: TableSchema,
        auto_increment: u64,
        followers: Vec<TableForeignKeys>,
        rows_follow: bool,
    },
    /// Some of the rows of the AlterTable before it.
    AlterRows {
        db: String,
        table: String,
        rows: KeyedRows,
    },
    /// The last record of an AlterTable whose rows follow.
    AlterEnd {
        db: String,
        table: String,
    },
    /// RENAME TABLE's pairs, in the order they apply, as one change.
    RenameTables {
        renames: Vec<TableRename>,
    },
}

/// A checked, encoded payload ready to append. Encoding happens outside any lock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodedRecord {
    payload: Vec<u8>,
}

impl EncodedRecord {
    pub fn payload(&self) -> &[u8] {
        &self.payload
    }

    pub fn is_commit(&self) -> bool {
        self.payload[1] == 8
    }

    /// Sets the commit timestamp of a Commit record (known only inside storage's commit
    /// critical section, after the changes were encoded outside it).
    pub fn set_commit_ts(&mut self, commit_ts: u64) {
        assert!(self.is_commit(), "set_commit_ts on a non-commit record");
        let at = COMMIT_TS_OFFSET;
        self.payload[at..at + 8].copy_from_slice(&commit_ts.to_le_bytes());
    }
}

/// Kind 8 from its fields, for `LogRecord::encode` and `encode_commit`.
fn put_commit(out: &mut Vec<u8>, commit_ts: u64, changes: &[RowChangeRef<'_>]) {
    put_u8(out, 8);
    put_u64_fixed(out, commit_ts);
    put_varint(out, changes.len() as u64);
    let mut previous: Option<(&str, &str)> = None;
    for change in changes {
        let same = previous == Some((change.db, change.table));
        let flags = change.row.is_some() as u8 | (same as u8) << 1;
        put_u8(out, flags);
        if !same {
            put_str(out, change.db);
            put_str(out, change.table);
        }
        put_bytes(out, change.key);
        if let Some(row) = change.row {
            put_row(out, row);
        }
        previous = Some((change.db, change.table));
    }
}

/// About the encoded size of a commit of `changes` (exact for strings and byte strings,
/// an upper bound for the rest), so the payload is allocated once, not grown value by value.
fn commit_size_hint(changes: &[RowChangeRef<'_>]) -> usize {
    let value_size = |v: &Value| match v {
        Value::Bytes(b) => 1 + 10 + b.len(),
        _ => 1 + PACKED_LEN.max(16),
    };
    changes.iter().fold(16, |size, change| {
        let row = change
            .row
            .map_or(0, |r| 10 + r.iter().map(value_size).sum::<usize>());
        size + 1 + 20 + change.db.len() + change.table.len() + 10 + change.key.len() + row
    })
}

/// The same bytes as `LogRecord::Commit { commit_ts, changes }.encode()`, without copying
/// the changes into a record first; Err(payload length) if that exceeds
/// `RECORD_PAYLOAD_MAX` (the transaction must roll back).
pub fn encode_commit(commit_ts: u64, changes: &[RowChangeRef<'_>]) -> Result<EncodedRecord, usize> {
    let mut out = Vec::with_capacity(commit_size_hint(changes));
    put_u8(&mut out, FORMAT_VERSION);
    put_commit(&mut out, commit_ts, changes);
    checked(out)
}

fn checked(payload: Vec<u8>) -> Result<EncodedRecord, usize> {
    if payload.len() > RECORD_PAYLOAD_MAX {
        return Err(payload.len());
    }
    Ok(EncodedRecord { payload })
}

/// Builds AlterRows records row by row, straight from storage's rows (no `KeyedRows`
/// copy): the same bytes as `LogRecord::AlterRows { .. }.encode()`.
pub struct AlterRowsEncoder {
    db: String,
    table: String,
    /// The encoded rows, without the count that precedes them.
    rows: Vec<u8>,
    count: usize,
}

impl AlterRowsEncoder {
    pub fn new(db: &str, table: &str) -> AlterRowsEncoder {
        AlterRowsEncoder {
            db: db.to_string(),
            table: table.to_string(),
            rows: Vec::new(),
            count: 0,
        }
    }

    /// Adds a row; returns a record once `ROWS_RECORD_MAX` rows or
    /// `ROWS_RECORD_BYTES_MAX` bytes are gathered.
    pub fn push(&mut self, key: &[u8], row: &[Value]) -> Option<EncodedRecord> {
        put_bytes(&mut self.rows, key);
        put_row(&mut self.rows, row);
        self.count += 1;
        let full = self.count >= ROWS_RECORD_MAX || self.rows.len() >= ROWS_RECORD_BYTES_MAX;
        full.then(|| self.take()).flatten()
    }

    /// The record of the rows gathered since the last one, if any.
    pub fn take(&mut self) -> Option<EncodedRecord> {
        if self.count == 0 {
            return None;
        }
        let mut out = Vec::with_capacity(self.rows.len() + self.db.len() + self.table.len() + 32);
        put_u8(&mut out, FORMAT_VERSION);
        put_u8(&mut out, 17);
        put_str(&mut out, &self.db);
        put_str(&mut out, &self.table);
        put_varint(&mut out, self.count as u64);
        out.extend_from_slice(&self.rows);
        self.rows.clear();
        self.count = 0;
        // One row of up to a LONGBLOB fits, as in any record.
        Some(checked(out).unwrap_or_else(|len| panic!("log record of {len} bytes")))
    }
}

impl EncodedRecord {
    /// Takes the bytes back (the storage hook carries them as a plain buffer).
    pub fn into_payload(self) -> Vec<u8> {
        self.payload
    }

    /// Wraps bytes from `into_payload`. Checked again: a frame must carry a valid payload.
    pub fn from_payload(payload: Vec<u8>) -> EncodedRecord {
        assert!(
            payload.len() >= 2 && payload[0] == FORMAT_VERSION,
            "not an encoded record"
        );
        EncodedRecord { payload }
    }
}

impl LogRecord {
    /// Panics beyond `RECORD_PAYLOAD_MAX`: only a commit can grow that large
    /// (`encode_commit`); a row or a schema cannot.
    pub fn encode(&self) -> EncodedRecord {
        let mut out = Vec::with_capacity(64);
        put_u8(&mut out, FORMAT_VERSION);
        match self {
            LogRecord::CreateDatabase { name, collation } => {
                put_u8(&mut out, 1);
                put_str(&mut out, name);
                if *collation != Collation::Utf8mb4GeneralCi {
                    put_default_collation(&mut out, *collation);
                }
            }
            LogRecord::AlterDatabase { name, collation } => {
                put_u8(&mut out, 22);
                put_str(&mut out, name);
                put_default_collation(&mut out, *collation);
            }
            LogRecord::DropDatabase { name } => {
                put_u8(&mut out, 2);
                put_str(&mut out, name);
            }
            LogRecord::CreateTable {
                db,
                schema,
                auto_increment,
            } => {
                put_u8(&mut out, 3);
                put_str(&mut out, db);
                put_schema(&mut out, schema);
                put_varint(&mut out, *auto_increment);
            }
            LogRecord::DropTable { db, name } => {
                put_u8(&mut out, 4);
                put_str(&mut out, db);
                put_str(&mut out, name);
            }
            LogRecord::TruncateTable { db, name } => {
                put_u8(&mut out, 5);
                put_str(&mut out, db);
                put_str(&mut out, name);
            }
            LogRecord::CreateIndex { db, table, index } => {
                put_u8(&mut out, 6);
                put_str(&mut out, db);
                put_str(&mut out, table);
                put_index(&mut out, index);
            }
            LogRecord::DropIndex { db, table, name } => {
                put_u8(&mut out, 7);
                put_str(&mut out, db);
                put_str(&mut out, table);
                put_str(&mut out, name);
            }
            LogRecord::Commit { commit_ts, changes } => {
                let changes: Vec<RowChangeRef<'_>> =
                    changes.iter().map(RowChange::borrowed).collect();
                put_commit(&mut out, *commit_ts, &changes);
            }
            LogRecord::AutoIncrement { db, table, next } => {
                put_u8(&mut out, 9);
                put_str(&mut out, db);
                put_str(&mut out, table);
                put_varint(&mut out, *next);
            }
            LogRecord::TableRows { db, table, rows } => {
                put_u8(&mut out, 10);
                put_str(&mut out, db);
                put_str(&mut out, table);
                put_keyed_rows(&mut out, rows);
            }
            LogRecord::SetForeignKeys {
                db,
                table,
                foreign_keys,
            } => {
                put_u8(&mut out, 11);
                put_str(&mut out, db);
                put_str(&mut out, table);
                put_foreign_keys(&mut out, foreign_keys);
            }
            LogRecord::CheckConstraints { db, table, checks } => {
                put_u8(&mut out, 12);
                put_str(&mut out, db);
                put_str(&mut out, table);
                put_checks(&mut out, checks);
            }
            LogRecord::RebuildTable {
                db,
                schema,
                auto_increment,
                rows,
            } => {
                put_u8(&mut out, 15);
                put_str(&mut out, db);
                put_schema(&mut out, schema);
                put_checks(&mut out, &schema.checks);
                put_varint(&mut out, *auto_increment);
                put_keyed_rows(&mut out, rows);
            }
            LogRecord::AlterTable {
                db,
                schema,
                auto_increment,
                followers,
                rows_follow,
            } => {
                put_u8(&mut out, 16);
                put_str(&mut out, db);
                put_schema(&mut out, schema);
                put_checks(&mut out, &schema.checks);
                put_varint(&mut out, *auto_increment);
                put_varint(&mut out, followers.len() as u64);
                for follower in followers {
                    put_str(&mut out, &follower.db);
                    put_str(&mut out, &follower.table);
                    put_foreign_keys(&mut out, &follower.foreign_keys);
                }
                put_bool(&mut out, *rows_follow);
            }
            LogRecord::AlterRows { db, table, rows } => {
                put_u8(&mut out, 17);
                put_str(&mut out, db);
                put_str(&mut out, table);
                put_keyed_rows(&mut out, rows);
            }
            LogRecord::AlterEnd { db, table } => {
                put_u8(&mut out, 18);
                put_str(&mut out, db);
                put_str(&mut out, table);
            }
            LogRecord::CreateView { db, view } => {
                put_u8(&mut out, 13);
                put_str(&mut out, db);
                put_view(&mut out, view);
            }
            LogRecord::DropView { db, name } => {
                put_u8(&mut out, 14);
                put_str(&mut out, db);
                put_str(&mut out, name);
            }
            LogRecord::CreateTrigger {
                db,
                trigger,
                position,
            } => {
                put_u8(&mut out, if position.is_some() { 23 } else { 20 });
                put_str(&mut out, db);
                for text in [
                    &trigger.name,
                    &trigger.table,
                    &trigger.timing,
                    &trigger.event,
                    &trigger.body,
                    &trigger.definer,
                    &trigger.sql_mode,
                    &trigger.character_set_client,
                    &trigger.collation_connection,
                ] {
                    put_str(&mut out, text);
                }
                if let Some(position) = position {
                    put_varint(&mut out, u64::from(*position));
                }
            }
            LogRecord::DropTrigger { db, name } => {
                put_u8(&mut out, 21);
                put_str(&mut out, db);
                put_str(&mut out, name);
            }
            LogRecord::CreateRoutine { db, routine } => {
                put_u8(&mut out, 24);
                put_str(&mut out, db);
                put_routine(&mut out, routine);
            }
            LogRecord::DropRoutine { db, kind, name } => {
                put_u8(&mut out, 25);
                put_str(&mut out, db);
                put_routine_kind(&mut out, *kind);
                put_str(&mut out, name);
            }
            LogRecord::RenameTables { renames } => {
                put_u8(&mut out, 19);
                put_varint(&mut out, renames.len() as u64);
                for rename in renames {
                    put_str(&mut out, &rename.from_db);
                    put_str(&mut out, &rename.from);
                    put_str(&mut out, &rename.to_db);
                    put_str(&mut out, &rename.to);
                }
            }
        }
        checked(out).unwrap_or_else(|len| panic!("log record of {len} bytes"))
    }

    pub fn decode(payload: &[u8]) -> Result<LogRecord, DecodeError> {
        let mut r = Reader::new(payload);
        if !FORMAT_VERSIONS_READ.contains(&r.u8()?) {
            return Err(DecodeError("unknown record format version"));
        }
        let tag = r.u8()?;
        let record = match tag {
            1 => LogRecord::CreateDatabase {
                name: r.string()?,
                collation: match r.is_empty() {
                    true => Collation::Utf8mb4GeneralCi,
                    false => get_default_collation(&mut r)?,
                },
            },
            22 => LogRecord::AlterDatabase {
                name: r.string()?,
                collation: get_default_collation(&mut r)?,
            },
            2 => LogRecord::DropDatabase { name: r.string()? },
            3 => LogRecord::CreateTable {
                db: r.string()?,
                schema: get_schema(&mut r)?,
                auto_increment: r.varint()?,
            },
            4 => LogRecord::DropTable {
                db: r.string()?,
                name: r.string()?,
            },
            5 => LogRecord::TruncateTable {
                db: r.string()?,
                name: r.string()?,
            },
            6 => LogRecord::CreateIndex {
                db: r.string()?,
                table: r.string()?,
                index: get_index(&mut r)?,
            },
            7 => LogRecord::DropIndex {
                db: r.string()?,
                table: r.string()?,
                name: r.string()?,
            },
            8 => get_commit(&mut r)?,
            9 => LogRecord::AutoIncrement {
                db: r.string()?,
                table: r.string()?,
                next: r.varint()?,
            },
            10 => LogRecord::TableRows {
                db: r.string()?,
                table: r.string()?,
                rows: get_keyed_rows(&mut r)?,
            },
            11 => LogRecord::SetForeignKeys {
                db: r.string()?,
                table: r.string()?,
                foreign_keys: get_foreign_keys(&mut r)?,
            },
            12 => LogRecord::CheckConstraints {
                db: r.string()?,
                table: r.string()?,
                checks: get_checks(&mut r)?,
            },
            15 => {
                let db = r.string()?;
                let mut schema = get_schema(&mut r)?;
                schema.checks = get_checks(&mut r)?;
                LogRecord::RebuildTable {
                    db,
                    schema,
                    auto_increment: r.varint()?,
                    rows: get_keyed_rows(&mut r)?,
                }
            }
            16 => {
                let db = r.string()?;
                let mut schema = get_schema(&mut r)?;
                schema.checks = get_checks(&mut r)?;
                let auto_increment = r.varint()?;
                let count = r.len()?;
                let mut followers = Vec::with_capacity(count);
                for _ in 0..count {
                    followers.push(TableForeignKeys {
                        db: r.string()?,
                        table: r.string()?,
                        foreign_keys: get_foreign_keys(&mut r)?,
                    });
                }
                LogRecord::AlterTable {
                    db,
                    schema,
                    auto_increment,
                    followers,
                    rows_follow: r.bool()?,
                }
            }
            17 => LogRecord::AlterRows {
                db: r.string()?,
                table: r.string()?,
                rows: get_keyed_rows(&mut r)?,
            },
            18 => LogRecord::AlterEnd {
                db: r.string()?,
                table: r.string()?,
            },
            13 => LogRecord::CreateView {
                db: r.string()?,
                view: get_view(&mut r)?,
            },
            14 => LogRecord::DropView {
                db: r.string()?,
                name: r.string()?,
            },
            20 | 23 => LogRecord::CreateTrigger {
                db: r.string()?,
                trigger: TriggerSchema {
                    name: r.string()?,
                    table: r.string()?,
                    timing: r.string()?,
                    event: r.string()?,
                    body: r.string()?,
                    definer: r.string()?,
                    sql_mode: r.string()?,
                    character_set_client: r.string()?,
                    collation_connection: r.string()?,
                },
                position: match tag {
                    23 => Some(r.u32_varint()?),
                    _ => None,
                },
            },
            21 => LogRecord::DropTrigger {
                db: r.string()?,
                name: r.string()?,
            },
            24 => LogRecord::CreateRoutine {
                db: r.string()?,
                routine: get_routine(&mut r)?,
            },
            25 => LogRecord::DropRoutine {
                db: r.string()?,
                kind: get_routine_kind(&mut r)?,
                name: r.string()?,
            },
            19 => {
                let count = r.len()?;
                let mut renames = Vec::with_capacity(count);
                for _ in 0..count {
                    renames.push(TableRename {
                        from_db: r.string()?,
                        from: r.string()?,
                        to_db: r.string()?,
                        to: r.string()?,
                    });
                }
                LogRecord::RenameTables { renames }
            }
            _ => return Err(DecodeError("unknown record kind")),
        };
        if !r.is_empty() {
            return Err(DecodeError("trailing bytes after the record"));
        }
        Ok(record)
    }
}

fn put_view(out: &mut Vec<u8>, view: &ViewSchema) {
    put_str(out, &view.name);
    put_varint(out, view.columns.len() as u64);
    for column in &view.columns {
        put_str(out, column);
    }
    for text in [
        &view.query,
        &view.algorithm,
        &view.definer,
        &view.security,
        &view.check_option,
    ] {
        put_str(out, text);
    }
}

fn get_view(r: &mut Reader<'_>) -> Result<ViewSchema, DecodeError> {
    let name = r.string()?;
    let count = r.len()?;
    let mut columns = Vec::with_capacity(count.min(4096));
    for _ in 0..count {
        columns.push(r.string()?);
    }
    Ok(ViewSchema {
        name,
        columns,
        query: r.string()?,
        algorithm: r.string()?,
        definer: r.string()?,
        security: r.string()?,
        check_option: r.string()?,
    })
}

fn put_routine_kind(out: &mut Vec<u8>, kind: RoutineKind) {
    put_u8(
        out,
        match kind {
            RoutineKind::Procedure => 0,
            RoutineKind::Function => 1,
        },
    );
}

fn get_routine_kind(r: &mut Reader<'_>) -> Result<RoutineKind, DecodeError> {
    match r.u8()? {
        0 => Ok(RoutineKind::Procedure),
        1 => Ok(RoutineKind::Function),
        _ => Err(DecodeError("unknown routine kind")),
    }
}

fn put_routine(out: &mut Vec<u8>, routine: &RoutineSchema) {
    put_str(out, &routine.name);
    put_routine_kind(out, routine.kind);
    for text in [
        &routine.params,
        &routine.returns,
        &routine.body,
        &routine.definer,
        &routine.security,
        &routine.data_access,
    ] {
        put_str(out, text);
    }
    put_bool(out, routine.deterministic);
    for text in [
        &routine.comment,
        &routine.sql_mode,
        &routine.character_set_client,
        &routine.collation_connection,
        &routine.created,
        &routine.modified,
    ] {
        put_str(out, text);
    }
}

fn get_routine(r: &mut Reader<'_>) -> Result<RoutineSchema, DecodeError> {
    Ok(RoutineSchema {
        name: r.string()?,
        kind: get_routine_kind(r)?,
        params: r.string()?,
        returns: r.string()?,
        body: r.string()?,
        definer: r.string()?,
        security: r.string()?,
        data_access: r.string()?,
        deterministic: r.bool()?,
        comment: r.string()?,
        sql_mode: r.string()?,
        character_set_client: r.string()?,
        collation_connection: r.string()?,
        created: r.string()?,
        modified: r.string()?,
    })
}

fn get_commit(r: &mut Reader<'_>) -> Result<LogRecord, DecodeError> {
    let commit_ts = r.u64_fixed()?;
    let count = r.len()?;
    let mut changes: Vec<RowChange> = Vec::with_capacity(count);
    for _ in 0..count {
        let flags = r.u8()?;
        if flags > 3 {
            return Err(DecodeError("bad row change flags"));
        }
        let (db, table) = if flags & 2 != 0 {
            let previous = changes
                .last()
                .ok_or(DecodeError("first change refers back"))?;
            (previous.db.clone(), previous.table.clone())
        } else {
            (Arc::from(r.string()?), Arc::from(r.string()?))
        };
        let key = r.bytes()?;
        let row = if flags & 1 != 0 {
            Some(get_row(r)?)
        } else {
            None
        };
        changes.push(RowChange {
            db,
            table,
            key,
            row,
        });
    }
    Ok(LogRecord::Commit { commit_ts, changes })
}

fn put_checks(out: &mut Vec<u8>, checks: &[CheckConstraint]) {
    put_varint(out, checks.len() as u64);
    for check in checks {
        put_str(out, &check.name);
        put_bool(out, check.column_level);
        put_str(out, &check.expression);
    }
}

fn get_checks(r: &mut Reader<'_>) -> Result<Vec<CheckConstraint>, DecodeError> {
    let count = r.len()?;
    let mut checks = Vec::with_capacity(count);
    for _ in 0..count {
        checks.push(CheckConstraint {
            name: r.string()?,
            column_level: r.bool()?,
            expression: r.string()?,
        });
    }
    Ok(checks)
}

fn put_keyed_rows(out: &mut Vec<u8>, rows: &KeyedRows) {
    put_varint(out, rows.len() as u64);
    for (key, row) in rows {
        put_bytes(out, key);
        put_row(out, row);
    }
}

fn get_keyed_rows(r: &mut Reader<'_>) -> Result<KeyedRows, DecodeError> {
    let count = r.len()?;
    let mut rows = Vec::with_capacity(count);
    for _ in 0..count {
        rows.push((r.bytes()?, get_row(r)?));
    }
    Ok(rows)
}

fn put_row(out: &mut Vec<u8>, row: &[Value]) {
    put_varint(out, row.len() as u64);
    for value in row {
        put_value(out, value);
    }
}

fn get_row(r: &mut Reader<'_>) -> Result<Vec<Value>, DecodeError> {
    let count = r.len()?;
    let mut row = Vec::with_capacity(count);
    for _ in 0..count {
        row.push(get_value(r)?);
    }
    Ok(row)
}

pub(crate) fn put_value(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Null => put_u8(out, 0),
        Value::Int(v) => {
            put_u8(out, 1);
            put_zigzag(out, *v);
        }
        Value::UInt(v) => {
            put_u8(out, 2);
            put_varint(out, *v);
        }
        Value::Double(v) => {
            put_u8(out, 3);
            put_u64_fixed(out, v.to_bits());
        }
        Value::Decimal(d) => {
            put_u8(out, 8);
            out.extend_from_slice(&d.to_bytes());
        }
        Value::Bytes(b) => {
            put_u8(out, 5);
            put_bytes(out, b);
        }
        Value::Date(d) => {
            put_u8(out, 6);
            put_date(out, d);
        }
        Value::DateTime(dt) => {
            put_u8(out, 7);
            put_date(out, &dt.date);
            out.extend_from_slice(&[dt.hour, dt.minute, dt.second]);
            put_varint(out, dt.microsecond as u64);
        }
        Value::Time(t) => {
            put_u8(out, 9);
            put_zigzag(out, t.microseconds());
        }
    }
}

fn put_date(out: &mut Vec<u8>, d: &Date) {
    put_varint(out, d.year as u64);
    out.extend_from_slice(&[d.month, d.day]);
}

fn get_date(r: &mut Reader<'_>) -> Result<Date, DecodeError> {
    let year = u16::try_from(r.varint()?).map_err(|_| DecodeError("year exceeds u16"))?;
    Ok(Date {
        year,
        month: r.u8()?,
        day: r.u8()?,
    })
}

pub(crate) fn get_value(r: &mut Reader<'_>) -> Result<Value, DecodeError> {
    Ok(match r.u8()? {
        0 => Value::Null,
        1 => Value::Int(r.zigzag()?),
        2 => Value::UInt(r.varint()?),
        3 => Value::Double(f64::from_bits(r.u64_fixed()?)),
        4 => {
            let mantissa = i128::from_le_bytes(r.take(16)?.try_into().expect("took 16 bytes"));
            let scale = r.u8()? as u32;
            let d = Decimal::from_i128_with_scale(mantissa, scale)
                .ok_or(DecodeError("decimal out of range"))?;
            Value::Decimal(d)
        }
        8 => {
            let bytes = r
                .take(PACKED_LEN)?
                .try_into()
                .expect("took the packed length");
            Value::Decimal(Decimal::from_bytes(bytes).ok_or(DecodeError("malformed decimal"))?)
        }
        5 => Value::Bytes(r.bytes()?),
        6 => Value::Date(get_date(r)?),
        7 => {
            let date = get_date(r)?;
            let (hour, minute, second) = (r.u8()?, r.u8()?, r.u8()?);
            let microsecond = r.u32_varint()?;
            Value::DateTime(DateTime {
                date,
                hour,
                minute,
                second,
                microsecond,
            })
        }
        9 => Value::Time(Time::new(r.zigzag()?).ok_or(DecodeError("time out of range"))?),
        _ => return Err(DecodeError("unknown value tag")),
    })
}

fn put_data_type(out: &mut Vec<u8>, t: &DataType) {
    let lob = |s: &LobSize| match s {
        LobSize::Tiny => 0u8,
        LobSize::Regular => 1,
        LobSize::Medium => 2,
        LobSize::Long => 3,
    };
    match t {
        DataType::Null => put_u8(out, 0),
        DataType::Int { width, unsigned } => {
            let w = match width {
                IntWidth::Tiny => 0u8,
                IntWidth::Small => 1,
                IntWidth::Medium => 2,
                IntWidth::Int => 3,
                IntWidth::Big => 4,
            };
            out.extend_from_slice(&[1, w, *unsigned as u8]);
        }
        DataType::Decimal {
            precision,
            scale,
            unsigned,
        } => out.extend_from_slice(&[if *unsigned { 14 } else { 2 }, *precision, *scale]),
        DataType::Float {
            decimals,
            precision,
            unsigned,
        } => floating_type(out, [3, 17, 18, 20], *decimals, *precision, *unsigned),
        DataType::Double {
            decimals,
            precision,
            unsigned,
        } => floating_type(out, [4, 15, 19, 21], *decimals, *precision, *unsigned),
        DataType::Char { length, collation } => {
            length_type(out, string_tag(5, 22, *collation), *length)
        }
        DataType::VarChar { length, collation } => {
            length_type(out, string_tag(6, 23, *collation), *length)
        }
        DataType::Binary { length } => length_type(out, 7, *length),
        DataType::VarBinary { length } => length_type(out, 8, *length),
        DataType::Text { size, collation } => {
            out.extend_from_slice(&[string_tag(9, 24, *collation), lob(size)])
        }
        DataType::Blob { size } => out.extend_from_slice(&[10, lob(size)]),
        DataType::Date => put_u8(out, 11),
        DataType::DateTime { fsp } => out.extend_from_slice(&[12, *fsp]),
        DataType::Timestamp { fsp } => out.extend_from_slice(&[13, *fsp]),
        DataType::Time { fsp } => out.extend_from_slice(&[16, *fsp]),
        DataType::Enum { members, collation } => member_type(out, 25, members, *collation),
        DataType::Set { members, collation } => member_type(out, 26, members, *collation),
    }
}

/// An ENUM or SET under `tag`: its collation, then its members.
fn member_type(out: &mut Vec<u8>, tag: u8, members: &[String], collation: Collation) {
    put_u8(out, tag);
    put_u8(out, string_tag(0, 1, collation));
    put_varint(out, members.len() as u64);
    for member in members {
        put_str(out, member);
    }
}

fn get_member_type(r: &mut Reader<'_>) -> Result<(Members, Collation), DecodeError> {
    let collation = match r.u8()? {
        0 => Collation::Utf8mb4GeneralCi,
        1 => Collation::Utf8mb4Bin,
        _ => return Err(DecodeError("unknown ENUM/SET collation")),
    };
    let count = r.len()?;
    let members = (0..count)
        .map(|_| r.string())
        .collect::<Result<Members, _>>()?;
    Ok((members, collation))
}

/// A character string's tag: `general_ci` (the tag written before strings had other
/// collations, so older logs read as general_ci) or `bin` for utf8mb4_bin.
fn string_tag(general_ci: u8, bin: u8, collation: Collation) -> u8 {
    match collation {
        Collation::Utf8mb4GeneralCi => general_ci,
        Collation::Utf8mb4Bin => bin,
        Collation::Binary => unreachable!("a character string has a utf8mb4 collation"),
    }
}

/// A FLOAT or DOUBLE under its tag from `tags`: [plain, (M,D), UNSIGNED, (M,D) UNSIGNED].
/// The unsigned ones came later as tags of their own, so older logs read alike.
fn floating_type(
    out: &mut Vec<u8>,
    tags: [u8; 4],
    decimals: u8,
    precision: Option<u8>,
    unsigned: bool,
) {
    match precision {
        None => put_u8(out, tags[if unsigned { 2 } else { 0 }]),
        Some(precision) => {
            put_u8(out, tags[if unsigned { 3 } else { 1 }]);
            put_u8(out, precision);
            put_u8(out, decimals);
        }
    }
}

fn length_type(out: &mut Vec<u8>, tag: u8, length: u32) {
    put_u8(out, tag);
    put_varint(out, length as u64);
}

/// The D of a DOUBLE(M,D) or FLOAT(M,D).
fn fixed_decimals(r: &mut Reader<'_>) -> Result<u8, DecodeError> {
    match r.u8()? {
        d @ 0..NOT_FIXED_DECIMALS => Ok(d),
        _ => Err(DecodeError("(M,D) with D over 30")),
    }
}

fn get_data_type(r: &mut Reader<'_>) -> Result<DataType, DecodeError> {
    let lob = |v: u8| match v {
        0 => Ok(LobSize::Tiny),
        1 => Ok(LobSize::Regular),
        2 => Ok(LobSize::Medium),
        3 => Ok(LobSize::Long),
        _ => Err(DecodeError("unknown LOB size")),
    };
    Ok(match r.u8()? {
        0 => DataType::Null,
        1 => {
            let width = match r.u8()? {
                0 => IntWidth::Tiny,
                1 => IntWidth::Small,
                2 => IntWidth::Medium,
                3 => IntWidth::Int,
                4 => IntWidth::Big,
                _ => return Err(DecodeError("unknown integer width")),
            };
            DataType::Int {
                width,
                unsigned: r.bool()?,
            }
        }
        tag @ (2 | 14) => DataType::Decimal {
            precision: r.u8()?,
            scale: r.u8()?,
            unsigned: tag == 14,
        },
        3 => DataType::FLOAT,
        4 => DataType::DOUBLE,
        18 => DataType::FLOAT.with_unsigned(true),
        19 => DataType::DOUBLE.with_unsigned(true),
        tag @ (15 | 21) => DataType::Double {
            precision: Some(r.u8()?),
            decimals: fixed_decimals(r)?,
            unsigned: tag == 21,
        },
        tag @ (17 | 20) => DataType::Float {
            precision: Some(r.u8()?),
            decimals: fixed_decimals(r)?,
            unsigned: tag == 20,
        },
        5 => DataType::char(r.u32_varint()?),
        6 => DataType::varchar(r.u32_varint()?),
        22 => DataType::char(r.u32_varint()?).with_collation(Collation::Utf8mb4Bin),
        23 => DataType::varchar(r.u32_varint()?).with_collation(Collation::Utf8mb4Bin),
        24 => DataType::text(lob(r.u8()?)?).with_collation(Collation::Utf8mb4Bin),
        7 => DataType::Binary {
            length: r.u32_varint()?,
        },
        8 => DataType::VarBinary {
            length: r.u32_varint()?,
        },
        9 => DataType::text(lob(r.u8()?)?),
        10 => DataType::Blob {
            size: lob(r.u8()?)?,
        },
        11 => DataType::Date,
        12 => DataType::DateTime { fsp: r.u8()? },
        13 => DataType::Timestamp { fsp: r.u8()? },
        16 => DataType::Time { fsp: r.u8()? },
        25 => {
            let (members, collation) = get_member_type(r)?;
            DataType::Enum { members, collation }
        }
        26 => {
            let (members, collation) = get_member_type(r)?;
            DataType::Set { members, collation }
        }
        _ => return Err(DecodeError("unknown data type")),
    })
}

fn put_positions(out: &mut Vec<u8>, positions: &[usize]) {
    put_varint(out, positions.len() as u64);
    for &p in positions {
        put_varint(out, p as u64);
    }
}

fn get_positions(r: &mut Reader<'_>) -> Result<Vec<usize>, DecodeError> {
    let count = r.len()?;
    let mut positions = Vec::with_capacity(count);
    for _ in 0..count {
        positions.push(r.u32_varint()? as usize);
    }
    Ok(positions)
}

const INDEX_UNIQUE: u8 = 1;
const INDEX_PREFIXED: u8 = 2;

fn put_index(out: &mut Vec<u8>, index: &IndexSchema) {
    put_str(out, &index.name);
    put_positions(out, &index.columns);
    let prefixed = index.has_prefix();
    put_u8(
        out,
        u8::from(index.unique) * INDEX_UNIQUE + u8::from(prefixed) * INDEX_PREFIXED,
    );
    if prefixed {
        for length in &index.prefix_lengths {
            put_varint(out, length.map_or(0, u64::from));
        }
    }
}

fn get_index(r: &mut Reader<'_>) -> Result<IndexSchema, DecodeError> {
    let name = r.string()?;
    let columns = get_positions(r)?;
    let flags = r.u8()?;
    if flags & !(INDEX_UNIQUE | INDEX_PREFIXED) != 0 {
        return Err(DecodeError("bad index flags"));
    }
    let mut index = IndexSchema::new(name, columns, flags & INDEX_UNIQUE != 0);
    if flags & INDEX_PREFIXED != 0 {
        for length in &mut index.prefix_lengths {
            *length = match r.u32_varint()? {
                0 => None,
                n => Some(n),
            };
        }
    }
    Ok(index)
}

fn put_schema(out: &mut Vec<u8>, schema: &TableSchema) {
    put_str(out, &schema.name);
    put_varint(out, schema.columns.len() as u64);
    for c in &schema.columns {
        put_str(out, &c.name);
        put_data_type(out, &c.data_type);
        put_bool(out, c.nullable);
        match &c.default {
            ColumnDefault::None => put_u8(out, 0),
            ColumnDefault::Value(v) => {
                put_u8(out, 1);
                put_value(out, v);
            }
            ColumnDefault::CurrentTimestamp => put_u8(out, 2),
        }
        put_bool(out, c.auto_increment);
        put_bool(out, c.on_update_current_timestamp);
        put_str(out, &c.comment);
        put_varint(out, c.display_width.map_or(0, |w| u64::from(w) + 1));
    }
    let has_foreign_keys = !schema.foreign_keys.is_empty();
    // Default options are not written, so such a schema is laid out as before they existed.
    let has_options = schema.options != TableOptions::default();
    // Written only when some column is generated, so other schemas read as before.
    let generated: Vec<(usize, &GeneratedColumn)> = schema
        .columns
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.generated.as_ref().map(|g| (i, g)))
        .collect();
    put_u8(
        out,
        u8::from(schema.primary_key.is_some()) * SCHEMA_PRIMARY_KEY
            + u8::from(has_foreign_keys) * SCHEMA_FOREIGN_KEYS
            + u8::from(has_options) * SCHEMA_OPTIONS
            + u8::from(!generated.is_empty()) * SCHEMA_GENERATED
            + u8::from(!schema.fulltext_indexes.is_empty()) * SCHEMA_FULLTEXT,
    );
    if let Some(pk) = &schema.primary_key {
        put_positions(out, pk);
    }
    put_varint(out, schema.indexes.len() as u64);
    for index in &schema.indexes {
        put_index(out, index);
    }
    put_str(out, &schema.comment);
    if has_foreign_keys {
        put_foreign_keys(out, &schema.foreign_keys);
    }
    if has_options {
        put_table_options(out, &schema.options);
    }
    if !generated.is_empty() {
        put_varint(out, generated.len() as u64);
        for (position, g) in generated {
            put_varint(out, position as u64);
            put_str(out, &g.expression);
            put_bool(out, g.stored);
        }
    }
    // Written only when the table has one, so other schemas read as before.
    if !schema.fulltext_indexes.is_empty() {
        put_varint(out, schema.fulltext_indexes.len() as u64);
        for index in &schema.fulltext_indexes {
            put_str(out, &index.name);
            put_positions(out, &index.columns);
        }
    }
}

const SCHEMA_PRIMARY_KEY: u8 = 1;
const SCHEMA_FOREIGN_KEYS: u8 = 2;
const SCHEMA_OPTIONS: u8 = 4;
const SCHEMA_GENERATED: u8 = 8;
const SCHEMA_FULLTEXT: u8 = 16;

fn put_default_collation(out: &mut Vec<u8>, collation: Collation) {
    put_u8(
        out,
        match collation {
            Collation::Utf8mb4GeneralCi => 0,
            Collation::Utf8mb4Bin => 1,
            Collation::Binary => unreachable!("a default collation is utf8mb4's"),
        },
    );
}

fn get_default_collation(r: &mut Reader<'_>) -> Result<Collation, DecodeError> {
    match r.u8()? {
        0 => Ok(Collation::Utf8mb4GeneralCi),
        1 => Ok(Collation::Utf8mb4Bin),
        _ => Err(DecodeError("unknown default collation")),
    }
}

fn put_table_options(out: &mut Vec<u8>, options: &TableOptions) {
    put_default_collation(out, options.default_collation);
    let row_format = options.row_format.map_or(0, |f| match f {
        RowFormat::Dynamic => 1,
        RowFormat::Compact => 2,
        RowFormat::Redundant => 3,
        RowFormat::Compressed => 4,
    });
    put_u8(out, row_format);
}

fn get_table_options(r: &mut Reader<'_>) -> Result<TableOptions, DecodeError> {
    let default_collation = get_default_collation(r)?;
    let row_format = match r.u8()? {
        0 => None,
        1 => Some(RowFormat::Dynamic),
        2 => Some(RowFormat::Compact),
        3 => Some(RowFormat::Redundant),
        4 => Some(RowFormat::Compressed),
        _ => return Err(DecodeError("unknown row format")),
    };
    Ok(TableOptions {
        default_collation,
        row_format,
    })
}

fn put_action(out: &mut Vec<u8>, action: ReferentialAction) {
    put_u8(
        out,
        match action {
            ReferentialAction::Restrict => 0,
            ReferentialAction::Cascade => 1,
            ReferentialAction::SetNull => 2,
            ReferentialAction::NoAction => 3,
        },
    );
}

fn get_action(r: &mut Reader<'_>) -> Result<ReferentialAction, DecodeError> {
    Ok(match r.u8()? {
        0 => ReferentialAction::Restrict,
        1 => ReferentialAction::Cascade,
        2 => ReferentialAction::SetNull,
        3 => ReferentialAction::NoAction,
        _ => return Err(DecodeError("unknown referential action")),
    })
}

fn put_foreign_keys(out: &mut Vec<u8>, foreign_keys: &[ForeignKeySchema]) {
    put_varint(out, foreign_keys.len() as u64);
    for fk in foreign_keys {
        put_str(out, &fk.name);
        put_positions(out, &fk.columns);
        put_str(out, &fk.parent_db);
        put_str(out, &fk.parent_table);
        put_varint(out, fk.parent_columns.len() as u64);
        for c in &fk.parent_columns {
            put_str(out, c);
        }
        put_action(out, fk.on_delete);
        put_action(out, fk.on_update);
    }
}

fn get_foreign_keys(r: &mut Reader<'_>) -> Result<Vec<ForeignKeySchema>, DecodeError> {
    let count = r.len()?;
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let name = r.string()?;
        let columns = get_positions(r)?;
        let (parent_db, parent_table) = (r.string()?, r.string()?);
        let parent_count = r.len()?;
        let mut parent_columns = Vec::with_capacity(parent_count);
        for _ in 0..parent_count {
            parent_columns.push(r.string()?);
        }
        if parent_columns.len() != columns.len() || columns.is_empty() {
            return Err(DecodeError("foreign key column counts differ"));
        }
        out.push(ForeignKeySchema {
            name,
            columns,
            parent_db,
            parent_table,
            parent_columns,
            on_delete: get_action(r)?,
            on_update: get_action(r)?,
        });
    }
    Ok(out)
}

fn get_schema(r: &mut Reader<'_>) -> Result<TableSchema, DecodeError> {
    let name = r.string()?;
    let count = r.len()?;
    let mut columns = Vec::with_capacity(count);
    for _ in 0..count {
        let name = r.string()?;
        let data_type = get_data_type(r)?;
        let nullable = r.bool()?;
        let default = match r.u8()? {
            0 => ColumnDefault::None,
            1 => ColumnDefault::Value(get_value(r)?),
            2 => ColumnDefault::CurrentTimestamp,
            _ => return Err(DecodeError("unknown column default")),
        };
        columns.push(ColumnSchema {
            name,
            data_type,
            nullable,
            default,
            auto_increment: r.bool()?,
            on_update_current_timestamp: r.bool()?,
            comment: r.string()?,
            display_width: match r.varint()? {
                0 => None,
                w => Some(u32::try_from(w - 1).map_err(|_| DecodeError("bad display width"))?),
            },
            generated: None,
        });
    }
    let flags = r.u8()?;
    let known = SCHEMA_PRIMARY_KEY
        | SCHEMA_FOREIGN_KEYS
        | SCHEMA_OPTIONS
        | SCHEMA_GENERATED
        | SCHEMA_FULLTEXT;
    if flags & !known != 0 {
        return Err(DecodeError("bad table schema flags"));
    }
    let primary_key = match flags & SCHEMA_PRIMARY_KEY {
        0 => None,
        _ => Some(get_positions(r)?),
    };
    let index_count = r.len()?;
    let mut indexes = Vec::with_capacity(index_count);
    for _ in 0..index_count {
        indexes.push(get_index(r)?);
    }
    let comment = r.string()?;
    let foreign_keys = match flags & SCHEMA_FOREIGN_KEYS {
        0 => Vec::new(),
        _ => get_foreign_keys(r)?,
    };
    let options = match flags & SCHEMA_OPTIONS {
        0 => TableOptions::default(),
        _ => get_table_options(r)?,
    };
    if flags & SCHEMA_GENERATED != 0 {
        for _ in 0..r.len()? {
            let position = r.len()?;
            let expression = r.string()?;
            let stored = r.bool()?;
            let column = columns
                .get_mut(position)
                .ok_or(DecodeError("generated column that does not exist"))?;
            column.generated = Some(GeneratedColumn { expression, stored });
        }
    }
    let mut fulltext_indexes = Vec::new();
    if flags & SCHEMA_FULLTEXT != 0 {
        for _ in 0..r.len()? {
            let name = r.string()?;
            let columns = get_positions(r)?;
            fulltext_indexes.push(FulltextIndex { name, columns });
        }
    }
    // Invariant (2): storage asserts that indexes and foreign keys name existing columns.
    let in_range = |p: &[usize]| p.iter().all(|&c| c < columns.len());
    if !primary_key.as_deref().is_none_or(in_range)
        || !indexes.iter().all(|i| in_range(&i.columns))
        || !fulltext_indexes.iter().all(|i| in_range(&i.columns))
        || !foreign_keys.iter().all(|fk| in_range(&fk.columns))
    {
        return Err(DecodeError("index on a column that does not exist"));
    }
    Ok(TableSchema {
        name,
        columns,
        primary_key,
        indexes,
        fulltext_indexes,
        comment,
        options,
        foreign_keys,
        checks: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Rng;

    fn column(name: &str, data_type: DataType, default: ColumnDefault) -> ColumnSchema {
        ColumnSchema {
            name: name.into(),
            data_type,
            nullable: true,
            default,
            auto_increment: false,
            on_update_current_timestamp: false,
            comment: String::new(),
            display_width: None,
            generated: None,
        }
    }

    /// One value of every variant, with edge cases.
    pub(crate) fn sample_values() -> Vec<Value> {
        let date = Date {
            year: 2024,
            month: 2,
            day: 29,
        };
        vec![
            Value::Null,
            Value::Int(0),
            Value::Int(i64::MIN),
            Value::Int(i64::MAX),
            Value::UInt(u64::MAX),
            Value::Double(-0.0),
            Value::Double(f64::INFINITY),
            Value::Double(1.5e-300),
            Value::Decimal(Decimal::new(-123_456_789, 4)),
            Value::Decimal(Decimal::max_of(35, 30)),
            Value::Decimal(-Decimal::max_of(65, 0)),
            Value::Decimal(Decimal::new(-5, 30)),
            Value::Bytes(Vec::new()),
            Value::Bytes("straße \0 ✓".as_bytes().to_vec()),
            Value::Date(Date::default()),
            Value::Date(date),
            Value::DateTime(DateTime {
                date,
                hour: 23,
                minute: 59,
                second: 58,
                microsecond: 999_999,
            }),
            Value::Time(Time::MAX.negated()),
            Value::Time(Time::new(3_600_000_001).expect("in range")),
        ]
    }

    fn every_type() -> Vec<DataType> {
        let mut types = vec![DataType::Null, DataType::Date];
        for unsigned in [false, true] {
            types.extend([
                DataType::FLOAT.with_unsigned(unsigned),
                DataType::Float {
                    decimals: 2,
                    precision: Some(10),
                    unsigned,
                },
                DataType::DOUBLE.with_unsigned(unsigned),
                DataType::Double {
                    decimals: 4,
                    precision: Some(10),
                    unsigned,
                },
            ]);
        }
        for width in [
            IntWidth::Tiny,
            IntWidth::Small,
            IntWidth::Medium,
            IntWidth::Int,
        ] {
            types.push(DataType::Int {
                width,
                unsigned: true,
            });
        }
        types.push(DataType::BIGINT);
        types.push(DataType::Decimal {
            precision: 65,
            scale: 30,
            unsigned: false,
        });
        types.push(DataType::char(255));
        types.push(DataType::varchar(u32::MAX));
        types.push(DataType::char(1).with_collation(Collation::Utf8mb4Bin));
        types.push(DataType::varchar(10).with_collation(Collation::Utf8mb4Bin));
        types.push(DataType::Binary { length: 16 });
        types.push(DataType::VarBinary { length: 0 });
        for size in [
            LobSize::Tiny,
            LobSize::Regular,
            LobSize::Medium,
            LobSize::Long,
        ] {
            types.push(DataType::text(size));
            types.push(DataType::text(size).with_collation(Collation::Utf8mb4Bin));
            types.push(DataType::Blob { size });
        }
        types.push(DataType::DateTime { fsp: 6 });
        types.push(DataType::Timestamp { fsp: 0 });
        types.push(DataType::Time { fsp: 3 });
        for collation in [Collation::Utf8mb4GeneralCi, Collation::Utf8mb4Bin] {
            let members: Members = ["a", "it's", "ä,"].map(String::from).into();
            types.push(DataType::Enum {
                members: members.clone(),
                collation,
            });
            types.push(DataType::Set {
                members: members[..2].into(),
                collation,
            });
        }
        types.push(DataType::Enum {
            members: Members::from([]),
            collation: Collation::Utf8mb4GeneralCi,
        });
        types
    }

    pub(crate) fn sample_schema() -> TableSchema {
        let mut columns: Vec<ColumnSchema> = every_type()
            .into_iter()
            .enumerate()
            .map(|(i, t)| column(&format!("c{i}"), t, ColumnDefault::None))
            .collect();
        columns[0].default = ColumnDefault::Value(Value::Int(7));
        columns[1].default = ColumnDefault::CurrentTimestamp;
        columns[1].on_update_current_timestamp = true;
        columns[2].auto_increment = true;
        columns[2].nullable = false;
        columns[3].comment = "a comment".into();
        columns[4].display_width = Some(1);
        columns[5].generated = Some(GeneratedColumn {
            expression: "`c0` + 1".into(),
            stored: false,
        });
        columns[6].generated = Some(GeneratedColumn {
            expression: "concat(`c3`,'x')".into(),
            stored: true,
        });
        TableSchema {
            name: "t1".into(),
            columns,
            primary_key: Some(vec![2, 0]),
            indexes: vec![
                IndexSchema::new("k", vec![3], false),
                IndexSchema::new("u", vec![4, 5], true),
                IndexSchema {
                    prefix_lengths: vec![None, Some(3)],
                    ..IndexSchema::new("p", vec![2, 1], true)
                },
            ],
            fulltext_indexes: vec![FulltextIndex {
                name: "f".into(),
                columns: vec![3, 6],
            }],
            comment: "table comment".into(),
            options: Default::default(),
            foreign_keys: sample_foreign_keys(),
            checks: Vec::new(),
        }
    }

    fn sample_foreign_keys() -> Vec<ForeignKeySchema> {
        vec![
            ForeignKeySchema {
                name: "t1_ibfk_1".into(),
                columns: vec![3],
                parent_db: "db".into(),
                parent_table: "parent".into(),
                parent_columns: vec!["id".into()],
                on_delete: ReferentialAction::Restrict,
                on_update: ReferentialAction::Cascade,
            },
            ForeignKeySchema {
                name: "fk ünïcode".into(),
                columns: vec![4, 5],
                parent_db: "other".into(),
                parent_table: "t1".into(),
                parent_columns: vec!["a".into(), "B".into()],
                on_delete: ReferentialAction::SetNull,
                on_update: ReferentialAction::NoAction,
            },
        ]
    }

    pub(crate) fn sample_records() -> Vec<LogRecord> {
        let (db, table) = ("db".to_string(), "t1".to_string());
        let mut hidden = sample_schema();
        hidden.primary_key = None;
        hidden.indexes.clear();
        hidden.foreign_keys.clear();
        // Every table option value, each in a schema of its own.
        let with_options = RowFormat::ALL
            .into_iter()
            .map(Some)
            .chain([None])
            .zip(
                [Collation::Utf8mb4Bin, Collation::Utf8mb4GeneralCi]
                    .into_iter()
                    .cycle(),
            )
            .map(|(row_format, default_collation)| LogRecord::CreateTable {
                db: db.clone(),
                schema: TableSchema {
                    options: TableOptions {
                        default_collation,
                        row_format,
                    },
                    ..hidden.clone()
                },
                auto_increment: 1,
            })
            .collect::<Vec<_>>();
        let change = |table: &str, key: &[u8], row: Option<Vec<Value>>| RowChange {
            db: db.as_str().into(),
            table: table.into(),
            key: key.to_vec(),
            row,
        };
        vec![
            LogRecord::CreateDatabase {
                name: db.clone(),
                collation: Collation::Utf8mb4GeneralCi,
            },
            LogRecord::CreateDatabase {
                name: "binary_default".into(),
                collation: Collation::Utf8mb4Bin,
            },
            LogRecord::AlterDatabase {
                name: db.clone(),
                collation: Collation::Utf8mb4Bin,
            },
            LogRecord::DropDatabase {
                name: "ünïcode".into(),
            },
            LogRecord::CreateTable {
                db: db.clone(),
                schema: sample_schema(),
                auto_increment: 1,
            },
            LogRecord::CreateTable {
                db: db.clone(),
                schema: hidden,
                auto_increment: u64::MAX,
            },
            LogRecord::DropTable {
                db: db.clone(),
                name: table.clone(),
            },
            LogRecord::TruncateTable {
                db: db.clone(),
                name: table.clone(),
            },
            LogRecord::CreateIndex {
                db: db.clone(),
                table: table.clone(),
                index: IndexSchema::new("i", vec![1, 0], true),
            },
            LogRecord::DropIndex {
                db: db.clone(),
                table: table.clone(),
                name: "i".into(),
            },
            LogRecord::Commit {
                commit_ts: 0,
                changes: Vec::new(),
            },
            LogRecord::Commit {
                commit_ts: u64::MAX,
                changes: vec![
                    change("t1", b"\x01k1", Some(sample_values())),
                    change("t1", b"\x01k2", None),
                    change("t2", b"", Some(Vec::new())),
                    change("t1", b"\x01k1", Some(vec![Value::Null])),
                ],
            },
            LogRecord::AutoIncrement {
                db: db.clone(),
                table: table.clone(),
                next: 42,
            },
            LogRecord::SetForeignKeys {
                db: db.clone(),
                table: table.clone(),
                foreign_keys: sample_foreign_keys(),
            },
            LogRecord::SetForeignKeys {
                db: db.clone(),
                table: table.clone(),
                foreign_keys: Vec::new(),
            },
            LogRecord::TableRows {
                db: db.clone(),
                table: table.clone(),
                rows: Vec::new(),
            },
            LogRecord::TableRows {
                db: db.clone(),
                table: table.clone(),
                rows: vec![
                    (b"a".to_vec(), sample_values()),
                    (b"b".to_vec(), Vec::new()),
                ],
            },
            LogRecord::CheckConstraints {
                db: db.clone(),
                table: table.clone(),
                checks: Vec::new(),
            },
            LogRecord::RebuildTable {
                db: db.clone(),
                schema: TableSchema {
                    checks: vec![CheckConstraint {
                        name: "c".into(),
                        column_level: false,
                        expression: "`a` > 0".into(),
                    }],
                    ..sample_schema()
                },
                auto_increment: 7,
                rows: vec![
                    (b"a".to_vec(), sample_values()),
                    (b"b".to_vec(), Vec::new()),
                ],
            },
            LogRecord::RebuildTable {
                db: db.clone(),
                schema: sample_schema(),
                auto_increment: 1,
                rows: Vec::new(),
            },
            LogRecord::CheckConstraints {
                db: db.clone(),
                table: table.clone(),
                checks: vec![
                    CheckConstraint {
                        name: "a".into(),
                        column_level: true,
                        expression: "`a` > 0".into(),
                    },
                    CheckConstraint {
                        name: "CONSTRAINT_1".into(),
                        column_level: false,
                        expression: "`a` + `b` < 100 and `c` <> 'é'".into(),
                    },
                ],
            },
            LogRecord::AlterTable {
                db: db.clone(),
                schema: TableSchema {
                    checks: vec![CheckConstraint {
                        name: "c".into(),
                        column_level: true,
                        expression: "`a` > 0".into(),
                    }],
                    ..sample_schema()
                },
                auto_increment: 9,
                followers: vec![
                    TableForeignKeys {
                        db: "other".into(),
                        table: "child".into(),
                        foreign_keys: sample_foreign_keys(),
                    },
                    TableForeignKeys {
                        db: db.clone(),
                        table: "t2".into(),
                        foreign_keys: Vec::new(),
                    },
                ],
                rows_follow: false,
            },
            LogRecord::AlterTable {
                db: db.clone(),
                schema: sample_schema(),
                auto_increment: 1,
                followers: Vec::new(),
                rows_follow: true,
            },
            LogRecord::AlterRows {
                db: db.clone(),
                table: table.clone(),
                rows: vec![(b"a".to_vec(), sample_values()), (Vec::new(), Vec::new())],
            },
            LogRecord::AlterEnd {
                db: db.clone(),
                table: table.clone(),
            },
            LogRecord::CreateView {
                db: db.clone(),
                view: sample_view(),
            },
            LogRecord::CreateView {
                db: db.clone(),
                view: ViewSchema {
                    columns: Vec::new(),
                    ..sample_view()
                },
            },
            LogRecord::CreateTrigger {
                db: db.clone(),
                trigger: TriggerSchema {
                    name: "tr".into(),
                    table: table.clone(),
                    timing: "BEFORE".into(),
                    event: "INSERT".into(),
                    body: "BEGIN SET NEW.a = 'ü;'; END".into(),
                    definer: "root@localhost".into(),
                    sql_mode: "STRICT_TRANS_TABLES".into(),
                    character_set_client: "utf8mb4".into(),
                    collation_connection: "utf8mb4_general_ci".into(),
                },
                position: None,
            },
            LogRecord::CreateTrigger {
                db: db.clone(),
                trigger: TriggerSchema {
                    name: "placed".into(),
                    table: table.clone(),
                    timing: "AFTER".into(),
                    event: "DELETE".into(),
                    body: "SET @x = 1".into(),
                    definer: "root@localhost".into(),
                    sql_mode: "".into(),
                    character_set_client: "latin1".into(),
                    collation_connection: "latin1_swedish_ci".into(),
                },
                position: Some(3),
            },
            LogRecord::DropTrigger {
                db: db.clone(),
                name: "tr".into(),
            },
            LogRecord::CreateRoutine {
                db: db.clone(),
                routine: sample_routine(),
            },
            LogRecord::CreateRoutine {
                db: db.clone(),
                routine: RoutineSchema {
                    name: "Ünïcode_proc".into(),
                    kind: RoutineKind::Procedure,
                    params: "IN a INT, OUT b VARCHAR(10)".into(),
                    returns: String::new(),
                    body: "BEGIN SELECT a INTO b; END".into(),
                    security: "INVOKER".into(),
                    data_access: "MODIFIES SQL DATA".into(),
                    deterministic: false,
                    comment: String::new(),
                    sql_mode: String::new(),
                    ..sample_routine()
                },
            },
            LogRecord::DropRoutine {
                db: db.clone(),
                kind: RoutineKind::Function,
                name: "f".into(),
            },
            LogRecord::DropRoutine {
                db: db.clone(),
                kind: RoutineKind::Procedure,
                name: "Ünïcode_PROC".into(),
            },
            LogRecord::DropView { db, name: table },
            LogRecord::RenameTables {
                renames: vec![
                    TableRename {
                        from_db: "db".into(),
                        from: "a".into(),
                        to_db: "db".into(),
                        to: "tmp".into(),
                    },
                    TableRename {
                        from_db: "db".into(),
                        from: "ünïcode".into(),
                        to_db: "other".into(),
                        to: "a".into(),
                    },
                ],
            },
            LogRecord::RenameTables {
                renames: Vec::new(),
            },
        ]
        .into_iter()
        .chain(with_options)
        .collect()
    }

    /// A schema with default table options is written as before options existed, so logs
    /// from then read alike (and with no options flag).
    #[test]
    fn default_table_options_keep_the_old_layout() {
        let mut schema = sample_schema();
        // Generated columns and FULLTEXT indexes would follow the options.
        for column in &mut schema.columns {
            column.generated = None;
        }
        schema.fulltext_indexes.clear();
        let mut with_default = Vec::new();
        put_schema(&mut with_default, &schema);
        schema.options.row_format = Some(RowFormat::Compact);
        let mut with_compact = Vec::new();
        put_schema(&mut with_compact, &schema);
        assert_eq!(with_compact.len(), with_default.len() + 2);
        assert!(with_compact.ends_with(&[0, 2]), "general_ci, COMPACT");
        let old = get_schema(&mut Reader::new(&with_default)).expect("decodes");
        assert_eq!(old.options, TableOptions::default());
    }

    /// Generated columns follow everything else, under their own flag: a schema without
    /// any is laid out as before they existed (no flag, no trailer).
    #[test]
    fn generated_columns_keep_the_old_layout() {
        let mut schema = sample_schema();
        let mut with_generated = Vec::new();
        put_schema(&mut with_generated, &schema);
        assert_eq!(
            get_schema(&mut Reader::new(&with_generated)).expect("decodes"),
            schema
        );
        for column in &mut schema.columns {
            column.generated = None;
        }
        let mut without = Vec::new();
        put_schema(&mut without, &schema);
        // The trailer: count 1 byte, then per column position, text and stored.
        let trailer = 1 + (1 + 1 + "`c0` + 1".len() + 1) + (1 + 1 + "concat(`c3`,'x')".len() + 1);
        assert_eq!(with_generated.len(), without.len() + trailer);
        assert_eq!(
            get_schema(&mut Reader::new(&without)).expect("decodes"),
            schema
        );
    }

    /// FULLTEXT indexes come last, under their own flag: a schema without any is laid out
    /// as before they existed.
    #[test]
    fn fulltext_indexes_keep_the_old_layout() {
        let mut schema = sample_schema();
        let mut with_fulltext = Vec::new();
        put_schema(&mut with_fulltext, &schema);
        assert_eq!(
            get_schema(&mut Reader::new(&with_fulltext)).expect("decodes"),
            schema
        );
        schema.fulltext_indexes.clear();
        let mut without = Vec::new();
        put_schema(&mut without, &schema);
        // The trailer: count, then name (length and "f") and positions (count, 3, 6).
        assert_eq!(with_fulltext.len(), without.len() + 1 + 2 + 3);
        assert!(with_fulltext.ends_with(&[1, 1, b'f', 2, 3, 6]));
        assert_eq!(
            get_schema(&mut Reader::new(&without)).expect("decodes"),
            schema
        );
    }

    pub(crate) fn sample_routine() -> RoutineSchema {
        RoutineSchema {
            name: "f".into(),
            kind: RoutineKind::Function,
            params: "x INT".into(),
            returns: "VARCHAR(20) CHARSET utf8mb4".into(),
            body: "RETURN concat('é;', x)".into(),
            definer: "root@localhost".into(),
            security: "DEFINER".into(),
            data_access: "CONTAINS SQL".into(),
            deterministic: true,
            comment: "a comment".into(),
            sql_mode: "STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION".into(),
            character_set_client: "utf8mb4".into(),
            collation_connection: "utf8mb4_general_ci".into(),
            created: "2026-11-29 10:00:00".into(),
            modified: "2026-11-29 10:05:00".into(),
        }
    }

    pub(crate) fn sample_view() -> ViewSchema {
        ViewSchema {
            name: "v".into(),
            columns: vec!["x".into(), "ÿ".into()],
            query: "SELECT a, b FROM t1 WHERE a > 1".into(),
            algorithm: "UNDEFINED".into(),
            definer: "root@localhost".into(),
            security: "DEFINER".into(),
            check_option: "NONE".into(),
        }
    }

    #[test]
    fn every_record_round_trips() {
        for record in sample_records() {
            let encoded = record.encode();
            let decoded = LogRecord::decode(encoded.payload());
            assert_eq!(decoded.as_ref(), Ok(&record), "{record:?}");
            // Every strict prefix is rejected (no record is a prefix of another), but for
            // a CreateDatabase's name alone: the layout without a collation.
            let old_create_database = |end: usize| {
                matches!(record, LogRecord::CreateDatabase { .. })
                    && end + 1 == encoded.payload().len()
            };
            for end in (0..encoded.payload().len()).filter(|&end| !old_create_database(end)) {
                assert!(
                    LogRecord::decode(&encoded.payload()[..end]).is_err(),
                    "{record:?}"
                );
            }
        }
    }

    /// A database created before databases had collations reads as utf8mb4_general_ci, the
    /// layout still written for that collation.
    #[test]
    fn a_database_without_collation_keeps_the_old_layout() {
        let name = "d".to_string();
        let old = [FORMAT_VERSION, 1, 1, b'd'];
        let general = LogRecord::CreateDatabase {
            name: name.clone(),
            collation: Collation::Utf8mb4GeneralCi,
        };
        assert_eq!(general.encode().payload(), old);
        assert_eq!(LogRecord::decode(&old), Ok(general));
        let bin = LogRecord::CreateDatabase {
            name,
            collation: Collation::Utf8mb4Bin,
        };
        assert_eq!(bin.encode().payload(), [FORMAT_VERSION, 1, 1, b'd', 1]);
    }

    /// A version-1 log still reads (its layout is version 2's); versions never written do not.
    #[test]
    fn reads_the_format_versions_it_knows() {
        for record in sample_records() {
            let mut payload = record.encode().payload().to_vec();
            payload[0] = 1;
            assert_eq!(LogRecord::decode(&payload).as_ref(), Ok(&record));
            for unknown in [0, FORMAT_VERSION + 1] {
                payload[0] = unknown;
                assert!(LogRecord::decode(&payload).is_err(), "version {unknown}");
            }
        }
    }

    /// Decimals keep their scale (Value equality is numeric, so check the text), and a
    /// log written with the 16-byte mantissa form (tag 4) still reads.
    #[test]
    fn decimals_keep_scale_and_read_the_old_form() {
        for text in [
            "1.50",
            "-0.000000000000000000000000000001",
            "12345678901234567890123456789012345678901234567890123456789012345",
        ] {
            let value = Value::Decimal(text.parse().expect("literal"));
            let mut out = Vec::new();
            put_value(&mut out, &value);
            let decoded = get_value(&mut Reader::new(&out));
            assert_eq!(decoded.map(|v| format!("{v:?}")), Ok(format!("{value:?}")));
        }
        let mut old = vec![4];
        old.extend_from_slice(&(-15i128).to_le_bytes());
        old.push(1);
        let decoded = get_value(&mut Reader::new(&old));
        assert_eq!(
            decoded.map(|v| format!("{v:?}")),
            Ok("Decimal(-1.5)".to_string())
        );
    }

    /// The encoder's records are AlterRows records, split by count and by size.
    #[test]
    fn alter_rows_encoder_matches_the_record_and_splits() {
        let rows: KeyedRows = (0..ROWS_RECORD_MAX as u64 + 5)
            .map(|i| (i.to_be_bytes().to_vec(), sample_values()))
            .collect();
        let mut encoder = AlterRowsEncoder::new("db", "t1");
        let mut records: Vec<EncodedRecord> = rows
            .iter()
            .filter_map(|(k, r)| encoder.push(k, r))
            .collect();
        records.extend(encoder.take());
        assert!(encoder.take().is_none());
        let (first, rest) = rows.split_at(ROWS_RECORD_MAX);
        let expected: Vec<EncodedRecord> = [first, rest]
            .iter()
            .map(|rows| {
                LogRecord::AlterRows {
                    db: "db".into(),
                    table: "t1".into(),
                    rows: rows.to_vec(),
                }
                .encode()
            })
            .collect();
        assert_eq!(records, expected);

        let big = vec![Value::Bytes(vec![7; ROWS_RECORD_BYTES_MAX / 2 + 1])];
        let mut encoder = AlterRowsEncoder::new("db", "t1");
        assert!(encoder.push(b"1", &big).is_none());
        let record = encoder.push(b"2", &big).expect("two halves fill a record");
        match LogRecord::decode(record.payload()) {
            Ok(LogRecord::AlterRows { rows, .. }) => assert_eq!(rows.len(), 2),
            other => panic!("{other:?}"),
        }
    }

    /// A commit beyond one record is refused (storage rolls it back), not a panic.
    #[test]
    fn a_commit_larger_than_a_record_is_refused() {
        let row = [Value::Bytes(vec![0; RECORD_PAYLOAD_MAX])];
        let change = RowChangeRef {
            db: "d",
            table: "t",
            key: b"k",
            row: Some(&row),
        };
        match encode_commit(1, &[change]) {
            Err(len) => assert!(len > RECORD_PAYLOAD_MAX, "{len}"),
            Ok(_) => panic!("a record over the limit"),
        }
    }

    #[test]
    fn point_update_is_compact() {
        let record = LogRecord::Commit {
            commit_ts: 1 << 40,
            changes: vec![RowChange {
                db: "sbtest".into(),
                table: "sbtest1".into(),
                key: vec![1, 0x80, 0, 0, 0, 0, 0, 0, 42],
                row: Some(vec![Value::Int(42), Value::Int(7), Value::text("abc")]),
            }],
        };
        let len = record.encode().payload().len();
        assert!(len <= 50, "{len} bytes");
    }

    #[test]
    fn commit_ts_is_patched_in_place() {
        let record = LogRecord::Commit {
            commit_ts: 0,
            changes: Vec::new(),
        };
        let mut encoded = record.encode();
        encoded.set_commit_ts(99);
        let decoded = LogRecord::decode(encoded.payload());
        assert_eq!(
            decoded,
            Ok(LogRecord::Commit {
                commit_ts: 99,
                changes: Vec::new()
            })
        );
    }

    #[test]
    fn decoding_garbage_never_panics() {
        let mut rng = Rng::new(7);
        let samples: Vec<Vec<u8>> = sample_records()
            .iter()
            .map(|r| r.encode().payload().to_vec())
            .collect();
        for round in 0..200_000 {
            let mut bytes = if round % 2 == 0 {
                samples[rng.below(samples.len() as u64) as usize].clone()
            } else {
                let len = rng.below(64) as usize;
                let mut b: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
                if !b.is_empty() {
                    b[0] = FORMAT_VERSION;
                }
                b
            };
            for _ in 0..=rng.below(4) {
                if bytes.is_empty() {
                    break;
                }
                let at = rng.below(bytes.len() as u64) as usize;
                match rng.below(3) {
                    0 => bytes[at] = rng.next() as u8,
                    1 => bytes.truncate(at),
                    _ => bytes.insert(at, rng.next() as u8),
                }
            }
            let _ = LogRecord::decode(&bytes);
        }
    }

    #[test]
    fn schema_with_missing_column_is_rejected() {
        let mut schema = sample_schema();
        schema.indexes[0].columns = vec![schema.columns.len()];
        let record = LogRecord::CreateTable {
            db: "d".into(),
            schema,
            auto_increment: 1,
        };
        assert!(LogRecord::decode(record.encode().payload()).is_err());
    }
}
