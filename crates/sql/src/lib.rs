//! SQL: parsing, binding, planning and execution of statements against `storage`.
//!
//! Owns: the statement pipeline (sqlparser for the cold path plus our own pre-dispatch),
//! expression semantics with MySQL's type rules, sessions (variables, transactions,
//! prepared statements, warnings), server status counters, the process list, and the
//! mapping of every error to a MySQL code (`error`). Knows no sockets and no wire format:
//! results go to a `ResultSink` the server implements.
//!
//! Code map:
//! - `error`: every client-visible error, code and SQLSTATE in one place.
//! - `expr`: bound expressions, evaluation, conversions, functions, aggregates.
//! - `engine`: what sessions share (storage, global variables, status, process list).
//! - `session`: a connection's SQL state and the entry points the server calls.
//! - `sink`: `ResultSink`, column metadata and OK packets: what statements produce.
//! - `query_text`: query bytes as text, with binary string literals kept byte-exact.
//! - `split`, `parse`: statement splitting (quotes, comments, executable comments) and
//!   sqlparser plus our pre-dispatch for the MySQL statements it lacks; `dialect`:
//!   MariaDB's operator grammar where sqlparser's MySQL dialect differs;
//!   `if_exists`: MariaDB's IF [NOT] EXISTS clauses of ALTER TABLE and RENAME TABLE.
//! - `scope`, `select`, `dml`, `ddl`: binding statements against the catalog.
//! - `plan`, `access`, `exec`: the operator tree, access-path choice, the executor;
//!   `key_set`: the seen-keys set of DISTINCT and UNION.
//! - `show`, `variables`: SHOW output and system variables.
//! - `information_schema`: its virtual tables, whose rows SHOW shows too.
//! - `privilege`: accounts, grants, the grant tables in `mysql`, the lock-free snapshot
//!   every privilege check reads, and the account statements' parser.
//!
//! Invariants:
//! (1) Statements are never recognised by pattern-matching their text; everything goes
//!     through parse -> bind -> plan -> execute.
//! (2) A failed statement leaves no partial effect (statement savepoints); a failed
//!     statement inside a transaction does not end the transaction, except a deadlock
//!     (1213), which rolls the whole transaction back as InnoDB does.

mod access;
mod alter;
mod alter_method;
mod check;
mod checksum;
mod compound;
mod cte;
mod ddl;
mod dialect;
mod dml;
pub mod engine;
pub mod error;
mod exec;
mod explain;
pub mod expr;
mod foreign_key;
mod generated;
mod if_exists;
pub mod information_schema;
mod join;
mod key_set;
mod load_data;
mod maintenance;
mod multi_table;
mod outfile;
mod parse;
mod plan;
mod plan_cache;
pub mod privilege;
pub mod query_text;
mod routine;
mod scope;
mod select;
mod select_into;
mod server_file;
pub mod session;
mod set_operation;
mod show;
pub mod sink;
mod spare;
pub mod split;
mod storage_engine;
mod temporary;
#[cfg(test)]
mod tests;
mod trigger;
pub mod user_lock;
pub mod variables;
mod view;
mod window;

pub use engine::{
    ConnectionInfo, Counter, Engine, EngineConfig, KillKind, ProcessHandle, ProcessList, Status,
    TlsInfo,
};
pub use error::{Error, ErrorCode, Result};
pub use session::{Session, Wait, Warning};
pub use sink::{
    ColumnInfo, Columns, OkInfo, PreparedInfo, ResultSink, SERVER_STATUS_AUTOCOMMIT,
    SERVER_STATUS_IN_TRANS,
};
