//! What a statement produces, described for the server: result sets (column metadata and
//! rows), OK packets, and COM_FIELD_LIST column lists. The server implements `ResultSink`
//! and turns each call into wire packets; this crate never sees bytes.
//!
//! Invariants:
//! (1) For each statement exactly one of `ok` or `result_set_start .. result_set_end` is
//!     called, unless the statement fails, in which case the session returns `Err` and
//!     the server sends the error (a result set may then be cut short).
//! (2) `more_results` is true on every statement's final call except the last of a
//!     COM_QUERY.

use crate::error::Result;
use manycore_types::{DataType, Value};
use std::sync::Arc;

/// SERVER_STATUS_IN_TRANS: a transaction is open.
pub const SERVER_STATUS_IN_TRANS: u16 = 0x0001;
/// SERVER_STATUS_AUTOCOMMIT: autocommit is on.
pub const SERVER_STATUS_AUTOCOMMIT: u16 = 0x0002;
/// SERVER_MORE_RESULTS_EXISTS (set by the server from `more_results`).
pub const SERVER_MORE_RESULTS_EXISTS: u16 = 0x0008;
/// SERVER_PS_OUT_PARAMS: this result set holds a CALL's OUT parameters.
pub const SERVER_PS_OUT_PARAMS: u16 = 0x1000;

/// One column of a result set, as a column-definition packet describes it.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnInfo {
    pub schema: String,
    /// Table alias (or name) the column came from; empty for expressions.
    pub table: String,
    pub org_table: String,
    /// Alias, or the expression text as written.
    pub name: String,
    pub org_name: String,
    pub data_type: DataType,
    /// The column length sent in the column definition: the type's display length,
    /// or an expression's own where MariaDB's differs (`Expr::column_length`).
    pub length: u32,
    pub not_null: bool,
    pub primary_key: bool,
    pub unique_key: bool,
    pub multiple_key: bool,
    pub auto_increment: bool,
    /// The column default as text, only for COM_FIELD_LIST.
    pub default: Option<String>,
    /// The values are JSON (a JSON column's, a JSON function's): a derived table or a
    /// subquery reading them passes that on, so JSON_OBJECT embeds them as JSON.
    pub holds_json: bool,
}

impl ColumnInfo {
    /// A computed column (no table) named `name`.
    pub fn expression(name: impl Into<String>, data_type: DataType, not_null: bool) -> ColumnInfo {
        ColumnInfo {
            schema: String::new(),
            table: String::new(),
            org_table: String::new(),
            name: name.into(),
            org_name: String::new(),
            length: data_type.display_length(),
            data_type,
            not_null,
            primary_key: false,
            unique_key: false,
            multiple_key: false,
            auto_increment: false,
            default: None,
            holds_json: false,
        }
    }

    /// A VARCHAR(len) NOT NULL column, as SHOW statements return them.
    pub fn text(name: &str, length: u32) -> ColumnInfo {
        ColumnInfo::expression(name, DataType::varchar(length), true)
    }

    /// A nullable VARCHAR(len) column.
    pub fn text_nullable(name: &str, length: u32) -> ColumnInfo {
        ColumnInfo::expression(name, DataType::varchar(length), false)
    }
}

/// The content of an OK packet.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OkInfo {
    pub affected_rows: u64,
    pub last_insert_id: u64,
    pub status_flags: u16,
    pub warnings: u16,
    /// Human-readable info ("Rows matched: 1  Changed: 1  Warnings: 0"), often empty.
    pub info: String,
}

/// A result's column definitions, shared with the plan that produces them: a sink that
/// keeps the `Arc` can tell by pointer that the next result has the same columns,
/// without comparing every name.
pub type Columns = Arc<[ColumnInfo]>;

/// What COM_STMT_PREPARE answers.
#[derive(Clone, Debug, PartialEq)]
pub struct PreparedInfo {
    pub id: u32,
    pub params: Vec<ColumnInfo>,
    pub columns: Columns,
}

/// Receives statement results; implemented by the server (and by tests).
pub trait ResultSink {
    fn result_set_start(&mut self, columns: &Columns) -> Result<()>;
    fn row(&mut self, values: &[Value]) -> Result<()>;
    fn result_set_end(
        &mut self,
        status_flags: u16,
        warnings: u16,
        more_results: bool,
    ) -> Result<()>;
    fn ok(&mut self, ok: &OkInfo, more_results: bool) -> Result<()>;
    /// The OUT and INOUT parameters a CALL run by COM_STMT_EXECUTE returns through its
    /// `?`s: one row, flagged SERVER_PS_OUT_PARAMS; the CALL's final OK follows.
    fn out_parameters(
        &mut self,
        columns: &Columns,
        values: &[Value],
        status_flags: u16,
        warnings: u16,
    ) -> Result<()> {
        self.result_set_start(columns)?;
        self.row(values)?;
        self.result_set_end(status_flags | SERVER_PS_OUT_PARAMS, warnings, true)
    }
    fn field_list(&mut self, columns: &[ColumnInfo]) -> Result<()>;
    /// Takes back what the running statement sent since the last complete reply: it was
    /// undone and runs again (session invariant (4)).
    fn discard_unfinished(&mut self);
}
