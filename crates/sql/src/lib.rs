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
//! - `session`: a connection's SQL state and the entry points the server calls.
//! - `engine`: what sessions share (storage, global variables, status, process list).
//!
//! Invariants:
//! (1) Statements are never recognised by pattern-matching their text; everything goes
//!     through parse -> bind -> plan -> execute.
//! (2) A failed statement leaves no partial effect (statement savepoints); a failed
//!     statement inside a transaction does not end the transaction, except a deadlock
//!     (1213), which rolls the whole transaction back as InnoDB does.

pub mod error;
pub mod expr;

pub use error::{Error, ErrorCode, Result};
