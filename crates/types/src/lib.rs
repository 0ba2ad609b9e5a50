//! The value model shared by every layer: SQL values, column types, collations and
//! the order-preserving key encoding used by indexes.
//!
//! This crate knows no SQL syntax, no storage structures and no sockets. It exists so
//! that `storage` (which must order keys) and `sql` (which must compute values) agree on
//! one definition of a value and of its order.
//!
//! Invariants:
//! (1) `Value` ordering for keys is defined once, by `key::encode_key`: byte order of the
//!     encoded keys equals SQL order under the column's collation.
//! (2) A `Value` stored in a table always already fits its column's `DataType`
//!     (the SQL layer coerces on assignment); storage never converts.

pub mod collation;
pub mod datatype;
pub mod decimal;
pub mod enumset;
pub mod format;
pub mod key;
pub mod temporal;
pub mod value;

pub use collation::Collation;
pub use datatype::{ColumnDefault, DataType, IntWidth, LobSize, NOT_FIXED_DECIMALS};
pub use decimal::Decimal;
pub use temporal::{Date, DateTime, Time};
pub use value::Value;

/// One stored row: values in column order.
pub type Row = Box<[Value]>;
