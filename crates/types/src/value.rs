//! A single SQL value.
//!
//! `Value` carries no type information beyond its representation; the column or
//! expression type (`DataType`) says how to format it (FLOAT vs DOUBLE, CHAR vs BLOB).

use crate::temporal::{Date, DateTime, Time};
use crate::Decimal;

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    /// Any signed integer type.
    Int(i64),
    /// Any unsigned integer type (and signed expressions whose value exceeds i64::MAX).
    UInt(u64),
    /// FLOAT and DOUBLE; a FLOAT column stores values already rounded to f32 precision.
    Double(f64),
    Decimal(Decimal),
    /// Character and binary strings. Character strings are UTF-8 (utf8mb4);
    /// the type says which collation applies.
    Bytes(Vec<u8>),
    Date(Date),
    /// DATETIME and TIMESTAMP.
    DateTime(DateTime),
    Time(Time),
}

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    pub fn text(s: &str) -> Value {
        Value::Bytes(s.as_bytes().to_vec())
    }

    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            Value::Bytes(b) => Some(b),
            _ => None,
        }
    }
}
