//! CHECKSUM TABLE: MariaDB's checksum of a table's rows, computed the way MariaDB computes
//! it for an InnoDB table, so a table copied between MariaDB and manycore (by mariadb-dump,
//! say) can be compared by one number.
//!
//! The checksum is the sum, modulo 2^32, over the rows of each row's CRC-32 (zlib's
//! polynomial) over the row as MariaDB's server layer holds it (`row_crc`): the null
//! bitmap, then each non-NULL column, fixed-size ones in their record format and strings
//! (VARCHAR, TEXT, BLOB, JSON) as their bytes. Each format here was checked byte for byte
//! against MariaDB 10.11 (tests/sql/checksum_table.sql).
//!
//! Invariants:
//! (1) The null bitmap has one bit per nullable column, in column order, after a first bit
//!     MariaDB keeps for a record that is not packed (a table with no VARCHAR, TEXT or BLOB
//!     column and a ROW_FORMAT other than DYNAMIC); the bits past the last are set, and so
//!     is that first one. A table with no bit has no bitmap.
//! (2) Generated columns (always nullable in MariaDB) count as NULL: MariaDB's checksum
//!     reads the stored columns only, so it finds their bits set and skips them.
//! (3) The order of the rows does not matter (a sum), so any snapshot scan will do.

use crate::error::{Error, ErrorCode};
use crate::show::{text, Rows};
use crate::sink::ColumnInfo;
use manycore_storage::{IndexNo, KeyRange, ReadView, RowFormat, Table, TableSchema};
use manycore_types::{enumset, DataType, Date, DateTime, IntWidth, Time, Value};

use std::ops::ControlFlow;

/// A table's checksum over the rows `view` sees.
pub fn table_checksum(table: &Table, view: &ReadView) -> u32 {
    let layout = Layout::of(&table.schema);
    let mut sum = 0u32;
    let mut record = Vec::new();
    table.scan(view, IndexNo::Primary, &KeyRange::all(), |_, row| {
        sum = sum.wrapping_add(layout.row_crc(&table.schema, row, &mut record));
        ControlFlow::Continue(())
    });
    sum
}

/// CHECKSUM TABLE's answer: (Table, Checksum) per table, as `db.name`; None is NULL (a
/// table that is missing or not a base table, or QUICK: InnoDB keeps no live checksum).
pub fn result_rows(checksums: Vec<(String, Option<u32>)>) -> Rows {
    Rows {
        columns: vec![
            ColumnInfo::text("Table", 128),
            ColumnInfo::expression(
                "Checksum",
                DataType::Int {
                    width: IntWidth::Big,
                    unsigned: false,
                },
                true,
            ),
        ],
        rows: checksums
            .into_iter()
            .map(|(name, sum)| {
                vec![
                    text(&name),
                    sum.map_or(Value::Null, |s| Value::Int(s.into())),
                ]
            })
            .collect(),
    }
}

/// MariaDB's 1347 for a view named where a base table is needed.
pub fn not_base_table(db: &str, name: &str) -> Error {
    Error::new(
        ErrorCode::WrongObject,
        format!("'{db}.{name}' is not of type 'BASE TABLE'"),
    )
}

/// Where each column's null bit is (invariant (1)).
struct Layout {
    /// Per column: its bit in the null bitmap, if nullable.
    null_bit: Vec<Option<usize>>,
    /// The bitmap of a row with no NULL: the first bit set in a record that is not
    /// packed, and the bits past the last column's (the same for every row).
    empty_bitmap: Vec<u8>,
}

impl Layout {
    fn of(schema: &TableSchema) -> Layout {
        let variable = |t: &DataType| {
            matches!(
                t,
                DataType::VarChar { .. }
                    | DataType::VarBinary { .. }
                    | DataType::Text { .. }
                    | DataType::Blob { .. }
            )
        };
        let packed = schema.columns.iter().any(|c| variable(&c.data_type))
            || schema.options.row_format == Some(RowFormat::Dynamic);
        let mut bits = usize::from(!packed);
        let null_bit = schema
            .columns
            .iter()
            .map(|c| {
                (c.nullable || c.generated.is_some()).then(|| {
                    bits += 1;
                    bits - 1
                })
            })
            .collect();
        let mut empty_bitmap = vec![0u8; bits.div_ceil(8)];
        if !packed {
            empty_bitmap[0] |= 1;
        }
        for bit in bits..empty_bitmap.len() * 8 {
            empty_bitmap[bit / 8] |= 1 << (bit % 8);
        }
        Layout {
            null_bit,
            empty_bitmap,
        }
    }

    /// One row's CRC-32 (`record` is scratch space).
    fn row_crc(&self, schema: &TableSchema, row: &[Value], record: &mut Vec<u8>) -> u32 {
        record.clear();
        record.extend_from_slice(&self.empty_bitmap);
        for (i, column) in schema.columns.iter().enumerate() {
            let null = column.generated.is_some() || row[i].is_null();
            if null {
                let bit = self.null_bit[i].expect("a NULL in a nullable column");
                record[bit / 8] |= 1 << (bit % 8);
                continue;
            }
            append_field(&column.data_type, &row[i], record);
        }
        crc32fast::hash(record)
    }
}

/// A non-NULL value as MariaDB's record holds it (strings: their bytes).
fn append_field(data_type: &DataType, value: &Value, out: &mut Vec<u8>) {
    let integer = |v: &Value| match v {
        Value::Int(i) => i128::from(*i),
        Value::UInt(u) => i128::from(*u),
        other => panic!("an integer column holds {other:?}"),
    };
    match data_type {
        DataType::Int { width, .. } => {
            let size = match width {
                IntWidth::Tiny => 1,
                IntWidth::Small => 2,
                IntWidth::Medium => 3,
                IntWidth::Int => 4,
                IntWidth::Big => 8,
            };
            out.extend_from_slice(&integer(value).to_le_bytes()[..size]);
        }
        DataType::Float { .. } => out.extend_from_slice(&(double(value) as f32).to_le_bytes()),
        DataType::Double { .. } => out.extend_from_slice(&double(value).to_le_bytes()),
        DataType::Decimal {
            precision, scale, ..
        } => match value {
            Value::Decimal(d) => decimal_binary(&d.to_string(), *precision, *scale, out),
            other => panic!("a DECIMAL column holds {other:?}"),
        },
        DataType::Char { length, .. } => {
            // utf8mb4: four bytes a character, padded with spaces.
            let bytes = bytes(value);
            out.extend_from_slice(bytes);
            let size = *length as usize * 4;
            out.resize(out.len() + size.saturating_sub(bytes.len()), b' ');
        }
        DataType::Binary { length } => {
            let bytes = bytes(value);
            out.extend_from_slice(bytes);
            out.resize(
                out.len() + (*length as usize).saturating_sub(bytes.len()),
                0,
            );
        }
        DataType::VarChar { .. }
        | DataType::VarBinary { .. }
        | DataType::Text { .. }
        | DataType::Blob { .. } => out.extend_from_slice(bytes(value)),
        DataType::Enum { members, collation } => {
            let number = enumset::enum_number(members, *collation, bytes(value));
            let size = if members.len() < 256 { 1 } else { 2 };
            out.extend_from_slice(&number.to_le_bytes()[..size]);
        }
        DataType::Set { members, collation } => {
            let bits = enumset::set_number(members, *collation, bytes(value));
            let size = match members.len().div_ceil(8) {
                size @ 1..=4 => size,
                _ => 8,
            };
            out.extend_from_slice(&bits.to_le_bytes()[..size]);
        }
        DataType::Date => {
            let Value::Date(date) = value else {
                panic!("a DATE column holds {value:?}");
            };
            let packed =
                u32::from(date.day) + u32::from(date.month) * 32 + u32::from(date.year) * 512;
            out.extend_from_slice(&packed.to_le_bytes()[..3]);
        }
        DataType::DateTime { fsp } => datetime_binary(&datetime(value), *fsp, out),
        DataType::Timestamp { fsp } => {
            let utc = datetime(value);
            let seconds = epoch_seconds(&utc);
            out.extend_from_slice(&seconds.to_be_bytes());
            fraction(utc.microsecond.into(), *fsp, out);
        }
        DataType::Time { fsp } => match value {
            Value::Time(time) => time_binary(time, *fsp, out),
            other => panic!("a TIME column holds {other:?}"),
        },
        DataType::Null => panic!("a column of the NULL type"),
    }
}

fn double(value: &Value) -> f64 {
    match value {
        Value::Double(d) => *d,
        other => panic!("a floating-point column holds {other:?}"),
    }
}

fn bytes(value: &Value) -> &[u8] {
    match value {
        Value::Bytes(b) => b,
        other => panic!("a string column holds {other:?}"),
    }
}

fn datetime(value: &Value) -> DateTime {
    match value {
        Value::DateTime(dt) => *dt,
        other => panic!("a DATETIME or TIMESTAMP column holds {other:?}"),
    }
}

/// Seconds since 1970 of a UTC TIMESTAMP cell; 0 for the zero datetime.
fn epoch_seconds(utc: &DateTime) -> u32 {
    const EPOCH: Date = Date {
        year: 1970,
        month: 1,
        day: 1,
    };
    let (Some(days), Some(epoch)) = (utc.date.to_days(), EPOCH.to_days()) else {
        return 0;
    };
    let seconds = (days - epoch) * 86_400
        + i64::from(utc.hour) * 3600
        + i64::from(utc.minute) * 60
        + i64::from(utc.second);
    u32::try_from(seconds).unwrap_or(0)
}

/// The fraction bytes after a temporal value's whole seconds: none without fractional
/// digits, else 1, 2 or 3 bytes (big-endian) of hundredths, ten-thousandths or
/// microseconds. `micros` may be negative (a TIME's).
fn fraction(micros: i64, fsp: u8, out: &mut Vec<u8>) {
    match fsp {
        0 => {}
        1 | 2 => out.push((micros / 10_000) as u8),
        3 | 4 => out.extend_from_slice(&((micros / 100) as u16).to_be_bytes()),
        _ => out.extend_from_slice(&(micros as u32).to_be_bytes()[1..]),
    }
}

/// MariaDB's DATETIME(fsp) record: 5 bytes big-endian of the packed date and time,
/// offset by 2^39, then the fraction.
fn datetime_binary(dt: &DateTime, fsp: u8, out: &mut Vec<u8>) {
    let year_month = u64::from(dt.date.year) * 13 + u64::from(dt.date.month);
    let ymd = (year_month << 5) | u64::from(dt.date.day);
    let hms = (u64::from(dt.hour) << 12) | (u64::from(dt.minute) << 6) | u64::from(dt.second);
    let packed = ((ymd << 17) | hms) + (1 << 39);
    out.extend_from_slice(&packed.to_be_bytes()[3..]);
    fraction(dt.microsecond.into(), fsp, out);
}

/// MariaDB's TIME(fsp) record: the signed packed time (hours, minutes and seconds above
/// 24 bits of microseconds), its whole part in 3 bytes offset by 2^23, then the fraction
/// (as C's division leaves it, negative for a negative time); with 5 or 6 digits, all 48
/// bits offset by 2^47.
fn time_binary(time: &Time, fsp: u8, out: &mut Vec<u8>) {
    let (hours, minutes, seconds, micros) = time.parts();
    let hms = (i64::from(hours) << 12) | (i64::from(minutes) << 6) | i64::from(seconds);
    let magnitude = (hms << 24) + i64::from(micros);
    let packed = if time.is_negative() {
        -magnitude
    } else {
        magnitude
    };
    if fsp >= 5 {
        let offset = packed + (1 << 47);
        out.extend_from_slice(&offset.to_be_bytes()[2..]);
        return;
    }
    let whole = (packed >> 24) + (1 << 23);
    out.extend_from_slice(&whole.to_be_bytes()[5..]);
    fraction(packed % (1 << 24), fsp, out);
}

/// MariaDB's binary DECIMAL(precision, scale): the integer and fraction digits in groups of
/// nine, each group big-endian in 4 bytes (a partial group in as few bytes as hold it),
/// all bytes inverted for a negative value, then the first byte's top bit flipped.
fn decimal_binary(text: &str, precision: u8, scale: u8, out: &mut Vec<u8>) {
    const BYTES_FOR_DIGITS: [usize; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];
    let negative = text.starts_with('-');
    let digits = text.trim_start_matches('-');
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let (scale, integer_digits) = (usize::from(scale), usize::from(precision - scale));
    let whole = format!("{whole:0>integer_digits$}");
    let whole = &whole[whole.len() - integer_digits..];
    let fraction = format!("{:0<scale$}", &fraction[..fraction.len().min(scale)]);
    let start = out.len();
    let mut group = |digits: &str| {
        let value: u32 = digits.parse().unwrap_or(0);
        let size = BYTES_FOR_DIGITS[digits.len()];
        out.extend_from_slice(&value.to_be_bytes()[4 - size..]);
    };
    let lead = integer_digits % 9;
    if lead > 0 {
        group(&whole[..lead]);
    }
    for chunk in whole.as_bytes()[lead..].chunks(9) {
        group(std::str::from_utf8(chunk).unwrap_or("0"));
    }
    for chunk in fraction.as_bytes().chunks(9) {
        group(std::str::from_utf8(chunk).unwrap_or("0"));
    }
    if negative {
        for byte in &mut out[start..] {
            *byte = !*byte;
        }
    }
    if let Some(first) = out.get_mut(start) {
        *first ^= 0x80;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decimal(text: &str, precision: u8, scale: u8) -> Vec<u8> {
        let mut out = Vec::new();
        decimal_binary(text, precision, scale, &mut out);
        out
    }

    /// Byte strings MariaDB's record holds for these values (its my_decimal2binary and
    /// TIME2 layouts), as checked through CHECKSUM TABLE.
    #[test]
    fn record_formats() {
        assert_eq!(decimal("12.34", 10, 2), [0x80, 0x00, 0x00, 0x0c, 0x22]);
        assert_eq!(decimal("-12.34", 10, 2), [0x7f, 0xff, 0xff, 0xf3, 0xdd]);
        assert_eq!(decimal("1", 5, 0), [0x80, 0x00, 0x01]);
        let mut out = Vec::new();
        let time = Time::new(-(3_723 * 1_000_000 + 450_000)).expect("in range");
        time_binary(&time, 2, &mut out);
        assert_eq!(out, [0x7f, 0xef, 0x7c, 0xd3]);
    }
}
