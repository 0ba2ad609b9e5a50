//! Order-preserving key encoding for indexes.
//!
//! A key is the concatenation of one encoded field per index column. Each field starts
//! with a tag byte (0x00 NULL, 0x01 value) so NULLs sort first, as in MySQL. Then:
//!   integers  8 bytes big-endian; signed values with the sign bit flipped
//!   double    8 bytes: IEEE bits, all bits flipped if negative, else sign bit set
//!   decimal   a sign byte and 27 bytes of magnitude at the column's scale (stored values
//!             already have it: crate invariant (2)), see `Decimal::write_key`
//!   strings   the collation weight, with 0x00 escaped as 0x00 0xFF, ended by 0x00 0x00;
//!             a prefix key part (`c(10)`) weighs only the value's prefix
//!   date      year (2 bytes) month day; datetime adds hour minute second and 4 bytes of
//!             microseconds
//!   time      the signed microsecond count as 8 bytes big-endian, sign bit flipped
//!
//! Invariant: for two rows a, b of the same index, `encode(a) < encode(b)` iff a sorts
//! before b under SQL comparison of the columns left to right (NULL first).
//! Values must already have the column's type (crate invariant (2)); a mismatch is a
//! programmer error and panics.

use crate::datatype::DataType;
use crate::value::Value;

const TAG_NULL: u8 = 0x00;
const TAG_VALUE: u8 = 0x01;

/// Appends the encoding of one field of a key part that holds only the first
/// `prefix_length` characters of a string (`c(10)`); other values are whole.
pub fn encode_field_prefix(
    value: &Value,
    data_type: &DataType,
    prefix_length: Option<u32>,
    out: &mut Vec<u8>,
) {
    match (value, prefix_length) {
        (Value::Bytes(b), Some(length)) => {
            out.push(TAG_VALUE);
            encode_bytes(data_type.collation().prefix(b, length), data_type, out);
        }
        _ => encode_field(value, data_type, out),
    }
}

fn encode_bytes(b: &[u8], data_type: &DataType, out: &mut Vec<u8>) {
    let mut weight = Vec::with_capacity(b.len() * 3);
    data_type.collation().append_weight(b, &mut weight);
    for byte in weight {
        out.push(byte);
        if byte == 0 {
            out.push(0xFF);
        }
    }
    out.extend_from_slice(&[0, 0]);
}

/// Appends the encoding of one field.
pub fn encode_field(value: &Value, data_type: &DataType, out: &mut Vec<u8>) {
    let Some(value) = non_null(value, out) else {
        return;
    };
    match (value, data_type) {
        (Value::Int(v), _) => out.extend_from_slice(&((*v as u64) ^ (1 << 63)).to_be_bytes()),
        (Value::UInt(v), _) => out.extend_from_slice(&v.to_be_bytes()),
        (Value::Double(v), _) => {
            let bits = v.to_bits();
            let ordered = if *v < 0.0 || (bits >> 63 == 1) {
                !bits
            } else {
                bits | (1 << 63)
            };
            out.extend_from_slice(&ordered.to_be_bytes());
        }
        (Value::Decimal(d), DataType::Decimal { scale, .. }) => {
            d.write_key(*scale as u32, out);
        }
        (Value::Bytes(b), t) => encode_bytes(b, t, out),
        (Value::Date(d), _) => encode_date(d, out),
        (Value::DateTime(dt), _) => {
            encode_date(&dt.date, out);
            out.extend_from_slice(&[dt.hour, dt.minute, dt.second]);
            out.extend_from_slice(&dt.microsecond.to_be_bytes());
        }
        (Value::Time(t), _) => {
            out.extend_from_slice(&((t.microseconds() as u64) ^ (1 << 63)).to_be_bytes())
        }
        (v, t) => panic!("key field {v:?} does not have its column type {t:?}"),
    }
}

fn non_null<'a>(value: &'a Value, out: &mut Vec<u8>) -> Option<&'a Value> {
    if value.is_null() {
        out.push(TAG_NULL);
        None
    } else {
        out.push(TAG_VALUE);
        Some(value)
    }
}

fn encode_date(d: &crate::temporal::Date, out: &mut Vec<u8>) {
    out.extend_from_slice(&d.year.to_be_bytes());
    out.extend_from_slice(&[d.month, d.day]);
}

/// Encodes the given columns of `row` (by index) into `out`, which is cleared first.
pub fn encode_key(row: &[Value], columns: &[usize], types: &[DataType], out: &mut Vec<u8>) {
    out.clear();
    for &c in columns {
        encode_field(&row[c], &types[c], out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datatype::IntWidth;
    use crate::{Collation, Decimal, Time};

    fn enc(v: Value, t: &DataType) -> Vec<u8> {
        let mut out = Vec::new();
        encode_field(&v, t, &mut out);
        out
    }

    #[test]
    fn order_is_preserved() {
        let int = DataType::Int {
            width: IntWidth::Int,
            unsigned: false,
        };
        let ints = [Value::Null, Value::Int(-5), Value::Int(0), Value::Int(7)];
        let encoded: Vec<_> = ints.iter().map(|v| enc(v.clone(), &int)).collect();
        assert!(encoded.windows(2).all(|w| w[0] < w[1]));

        let dbl = DataType::DOUBLE;
        let ds = [-10.5, -0.1, 0.0, 0.1, 3e10];
        let encoded: Vec<_> = ds.iter().map(|v| enc(Value::Double(*v), &dbl)).collect();
        assert!(encoded.windows(2).all(|w| w[0] < w[1]));

        let dec = DataType::Decimal {
            precision: 10,
            scale: 2,
            unsigned: false,
        };
        let ds = ["-3.50", "-0.01", "0.00", "2.25", "100.00"];
        let encoded: Vec<_> = ds
            .iter()
            .map(|s| enc(Value::Decimal(s.parse::<Decimal>().expect("literal")), &dec))
            .collect();
        assert!(encoded.windows(2).all(|w| w[0] < w[1]));

        let s = DataType::VarChar {
            length: 10,
            collation: Collation::Utf8mb4GeneralCi,
        };
        let ss = ["", "a", "a\0b", "AB", "b"];
        let encoded: Vec<_> = ss.iter().map(|v| enc(Value::text(v), &s)).collect();
        assert!(encoded.windows(2).all(|w| w[0] < w[1]), "{encoded:?}");
        assert_eq!(enc(Value::text("abc"), &s), enc(Value::text("ABC "), &s));

        let bin = DataType::VarChar {
            length: 10,
            collation: Collation::Utf8mb4Bin,
        };
        let ss = ["", "A", "B", "a", "a\0b", "ab", "é"];
        let encoded: Vec<_> = ss.iter().map(|v| enc(Value::text(v), &bin)).collect();
        assert!(encoded.windows(2).all(|w| w[0] < w[1]), "{encoded:?}");
        assert_eq!(enc(Value::text("ab"), &bin), enc(Value::text("ab  "), &bin));

        let time = DataType::Time { fsp: 6 };
        let micros = [
            -Time::MAX.microseconds(),
            -3_600_000_001,
            -3_600_000_000,
            -1,
            0,
            1,
            999_999,
            1_000_000,
            Time::MAX.microseconds(),
        ];
        let mut encoded = vec![enc(Value::Null, &time)];
        encoded.extend(
            micros
                .iter()
                .map(|&m| enc(Value::Time(Time::new(m).expect("in range")), &time)),
        );
        assert!(encoded.windows(2).all(|w| w[0] < w[1]), "{encoded:?}");
    }
}
