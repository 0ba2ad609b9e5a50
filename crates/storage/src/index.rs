//! Index numbering and key ranges.
//!
//! A primary index maps the encoded primary key to its slot. A secondary index maps
//! `encode(index columns) ++ encoded primary key` to the slot, so its keys are unique even
//! for non-unique indexes. Secondary entries may be stale (the row moved to another key
//! and the old entry is not yet collected); readers re-check the visible row's key.
//!
//! Ranges are given as value prefixes of the index columns. Because every encoded field
//! starts with a tag byte below 0xFF, "all keys that start with prefix P" is
//! `[P, P ++ 0xFF)`.

use manycore_types::{key, DataType, Value};
use std::ops::Bound;

/// Which index of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IndexNo {
    Primary,
    /// Position in `TableSchema::indexes`.
    Secondary(usize),
}

/// A range over an index, as bounds on a prefix of its columns. Values must already have
/// the columns' types (the planner converts; a value that cannot convert exactly must not
/// be used as a bound).
#[derive(Clone, Debug, PartialEq)]
pub struct KeyRange {
    pub lower: Bound<Vec<Value>>,
    pub upper: Bound<Vec<Value>>,
}

impl KeyRange {
    pub fn all() -> KeyRange {
        KeyRange {
            lower: Bound::Unbounded,
            upper: Bound::Unbounded,
        }
    }

    /// Every row whose leading index columns equal `prefix`.
    pub fn prefix(prefix: Vec<Value>) -> KeyRange {
        KeyRange {
            lower: Bound::Included(prefix.clone()),
            upper: Bound::Included(prefix),
        }
    }

    /// Encodes the bounds for the index whose column types are `types` (in index order).
    pub(crate) fn encode(&self, types: &[&DataType]) -> (Bound<Vec<u8>>, Bound<Vec<u8>>) {
        let lower = match &self.lower {
            Bound::Unbounded => Bound::Unbounded,
            Bound::Included(values) => Bound::Included(encode_prefix(values, types)),
            Bound::Excluded(values) => {
                let mut key = encode_prefix(values, types);
                key.push(0xFF);
                Bound::Excluded(key)
            }
        };
        let upper = match &self.upper {
            Bound::Unbounded => Bound::Unbounded,
            Bound::Included(values) => {
                let mut key = encode_prefix(values, types);
                key.push(0xFF);
                Bound::Excluded(key)
            }
            Bound::Excluded(values) => Bound::Excluded(encode_prefix(values, types)),
        };
        (lower, upper)
    }
}

pub(crate) fn encode_prefix(values: &[Value], types: &[&DataType]) -> Vec<u8> {
    assert!(
        values.len() <= types.len(),
        "key prefix longer than the index"
    );
    let mut out = Vec::with_capacity(16 * values.len());
    for (value, data_type) in values.iter().zip(types) {
        key::encode_field(value, data_type, &mut out);
    }
    out
}
