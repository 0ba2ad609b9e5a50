//! Result sets: column definitions, text rows, binary rows, and MySQL's text formatting
//! of numbers and dates.
//!
//! A result set is this packet sequence:
//!
//!   column count (lenenc) | N x ColumnDefinition41 | [EOF unless DEPRECATE_EOF]
//!   rows ... | EOF, or OK with the 0xFE header under DEPRECATE_EOF
//!
//! ColumnDefinition41 payload:
//!
//!   lenenc "def" | lenenc schema | lenenc table | lenenc org_table | lenenc name
//!   lenenc org_name | lenenc 0x0C | u16 charset | u32 column length | u8 type
//!   u16 flags | u8 decimals | u16 0      [| lenenc default: COM_FIELD_LIST only]
//!
//! Text row: one lenenc string per column, 0xFB for NULL.
//! Binary row: u8 0x00 | NULL bitmap of (N + 9) / 8 bytes, column i at bit i + 2 |
//! the non-NULL values in their binary form (see `write_binary_value`).
//!
//! Text values are formatted by `manycore_types::format`, the one number-to-text rule
//! (MariaDB's, checked against 10.11), which CAST(... AS CHAR) and CONCAT also use.
//!
//! Invariants:
//! (1) Every value a row writer appends has the wire form of its column's type code as
//!     sent in the column definition (clients decode binary rows by that code alone).
//! (2) Formatting writes straight into the output buffer; no String is built.

use crate::codec::{
    write_lenenc_bytes, write_lenenc_int, write_short_lenenc_with, write_u16, write_u32,
    NULL_MARKER,
};
use crate::error::{ProtocolError, Result};
use crate::packet::PacketWriter;
use crate::response::{write_eof, write_result_set_end_ok, OkPacket};
use manycore_types::datatype::type_code;
use manycore_types::{format, Collation, DataType, DateTime, IntWidth, Time, Value};

/// Column definition flags.
pub mod column_flag {
    pub const NOT_NULL: u16 = 1;
    pub const PRI_KEY: u16 = 2;
    pub const UNIQUE_KEY: u16 = 4;
    pub const MULTIPLE_KEY: u16 = 8;
    pub const BLOB: u16 = 16;
    pub const UNSIGNED: u16 = 32;
    pub const ZEROFILL: u16 = 64;
    pub const BINARY: u16 = 128;
    pub const ENUM: u16 = 256;
    pub const AUTO_INCREMENT: u16 = 512;
    pub const TIMESTAMP: u16 = 1024;
    pub const SET: u16 = 2048;
    pub const NO_DEFAULT_VALUE: u16 = 4096;
    pub const ON_UPDATE_NOW: u16 = 8192;
    pub const PART_KEY: u16 = 16384;
    pub const NUM: u16 = 32768;
}

/// One column's metadata, borrowing its names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColumnDefinition<'a> {
    pub schema: &'a [u8],
    pub table: &'a [u8],
    pub org_table: &'a [u8],
    pub name: &'a [u8],
    pub org_name: &'a [u8],
    pub charset: u16,
    pub column_length: u32,
    pub type_code: u8,
    pub flags: u16,
    pub decimals: u8,
}

impl<'a> ColumnDefinition<'a> {
    /// A column of an expression (no table) named `name`, described by `data_type`.
    /// The server adds table names and NOT_NULL / key flags where it knows them.
    pub fn new(name: &'a [u8], data_type: &DataType) -> Self {
        let mut flags = 0;
        if data_type.is_numeric() {
            flags |= column_flag::NUM;
        }
        if data_type.is_unsigned_number() {
            flags |= column_flag::UNSIGNED;
        }
        if matches!(data_type, DataType::Text { .. } | DataType::Blob { .. }) {
            flags |= column_flag::BLOB;
        }
        match data_type {
            DataType::Enum { .. } => flags |= column_flag::ENUM,
            DataType::Set { .. } => flags |= column_flag::SET,
            _ => {}
        }
        // Binary strings, temporals, and utf8mb4_bin (which sorts by bytes) too, as MariaDB.
        if data_type.collation() != Collation::Utf8mb4GeneralCi && !data_type.is_numeric() {
            flags |= column_flag::BINARY;
        }
        ColumnDefinition {
            schema: b"",
            table: b"",
            org_table: b"",
            name,
            org_name: b"",
            charset: data_type.charset_id(),
            column_length: data_type.display_length(),
            type_code: data_type.type_code(),
            flags,
            decimals: data_type.decimals(),
        }
    }

    /// Sets schema, table alias and real table names and the real column name. A table's
    /// TEXT or BLOB column is BLOB on the wire whatever its size (MariaDB's
    /// `Field_blob::type()`); only expressions say TINY/MEDIUM/LONG_BLOB. A table's
    /// TIMESTAMP column is UNSIGNED, as MariaDB's `Field_timestamp` says.
    pub fn with_table(
        mut self,
        schema: &'a [u8],
        table: &'a [u8],
        org_table: &'a [u8],
        org_name: &'a [u8],
    ) -> Self {
        use type_code::{BLOB, LONG_BLOB, MEDIUM_BLOB, TIMESTAMP, TINY_BLOB};
        if !org_table.is_empty() && matches!(self.type_code, TINY_BLOB | MEDIUM_BLOB | LONG_BLOB) {
            self.type_code = BLOB;
        }
        if !org_table.is_empty() && self.type_code == TIMESTAMP {
            self.flags |= column_flag::UNSIGNED;
        }
        self.schema = schema;
        self.table = table;
        self.org_table = org_table;
        self.org_name = org_name;
        self
    }
}

pub fn write_column_count(out: &mut Vec<u8>, count: u64) {
    write_lenenc_int(out, count);
}

pub fn write_column_definition(out: &mut Vec<u8>, c: &ColumnDefinition<'_>) {
    write_lenenc_bytes(out, b"def");
    write_lenenc_bytes(out, c.schema);
    write_lenenc_bytes(out, c.table);
    write_lenenc_bytes(out, c.org_table);
    write_lenenc_bytes(out, c.name);
    write_lenenc_bytes(out, c.org_name);
    out.push(0x0C);
    write_u16(out, c.charset);
    write_u32(out, c.column_length);
    out.push(c.type_code);
    write_u16(out, c.flags);
    out.push(c.decimals);
    write_u16(out, 0);
}

/// COM_FIELD_LIST's column definition: the normal one plus the default value.
pub fn write_field_list_definition(
    out: &mut Vec<u8>,
    c: &ColumnDefinition<'_>,
    default: Option<&[u8]>,
) {
    write_column_definition(out, c);
    match default {
        Some(d) => write_lenenc_bytes(out, d),
        None => out.push(NULL_MARKER),
    }
}

/// CACHE_METADATA's byte after the column count.
const METADATA_FOLLOWS: u8 = 1;
const NO_METADATA: u8 = 0;

/// Writes a result set packet by packet; knows whether EOF packets are deprecated.
#[derive(Clone, Copy, Debug)]
pub struct ResultSetEncoder {
    pub deprecate_eof: bool,
    /// MariaDB's CACHE_METADATA was negotiated: column counts carry a metadata byte.
    pub cache_metadata: bool,
}

impl ResultSetEncoder {
    /// `client_capabilities` and `extended_capabilities` are the negotiated ones.
    pub fn new(client_capabilities: u32, extended_capabilities: u32) -> Self {
        use crate::handshake::{capability, mariadb_capability};
        ResultSetEncoder {
            deprecate_eof: client_capabilities & capability::DEPRECATE_EOF != 0,
            cache_metadata: extended_capabilities & mariadb_capability::CACHE_METADATA != 0,
        }
    }

    /// Column count, the definitions, and the EOF that ends them (if not deprecated).
    pub fn write_metadata<'c>(
        &self,
        out: &mut Vec<u8>,
        writer: &mut PacketWriter,
        columns: impl ExactSizeIterator<Item = ColumnDefinition<'c>>,
        status_flags: u16,
    ) {
        self.write_definitions(out, writer, columns);
        self.write_metadata_end(out, writer, status_flags);
    }

    /// Column count and the definitions: the part of the metadata that depends only on
    /// the columns (and the sequence ids), not on the status flags.
    pub fn write_definitions<'c>(
        &self,
        out: &mut Vec<u8>,
        writer: &mut PacketWriter,
        columns: impl ExactSizeIterator<Item = ColumnDefinition<'c>>,
    ) {
        writer.write_with(out, |o| {
            write_column_count(o, columns.len() as u64);
            if self.cache_metadata {
                o.push(METADATA_FOLLOWS);
            }
        });
        for c in columns {
            writer.write_with(out, |o| write_column_definition(o, &c));
        }
    }

    /// A result set's metadata when the client already holds its column definitions
    /// (only under `cache_metadata`): the column count, "no metadata", and the EOF if not
    /// deprecated (MariaDB Connector/C reads that EOF for the status flags).
    pub fn write_cached_metadata(
        &self,
        out: &mut Vec<u8>,
        writer: &mut PacketWriter,
        column_count: usize,
        status_flags: u16,
    ) {
        assert!(
            self.cache_metadata,
            "metadata left out without CACHE_METADATA"
        );
        writer.write_with(out, |o| {
            write_column_count(o, column_count as u64);
            o.push(NO_METADATA);
        });
        self.write_metadata_end(out, writer, status_flags);
    }

    /// The EOF after column (or parameter) definitions; nothing under DEPRECATE_EOF.
    pub fn write_metadata_end(
        &self,
        out: &mut Vec<u8>,
        writer: &mut PacketWriter,
        status_flags: u16,
    ) {
        if !self.deprecate_eof {
            writer.write_with(out, |o| write_eof(o, 0, status_flags));
        }
    }

    pub fn write_text_row(
        &self,
        out: &mut Vec<u8>,
        writer: &mut PacketWriter,
        values: &[Value],
        types: &[DataType],
    ) {
        writer.write_with(out, |o| write_text_row(o, values, types));
    }

    pub fn write_binary_row(
        &self,
        out: &mut Vec<u8>,
        writer: &mut PacketWriter,
        values: &[Value],
        types: &[DataType],
    ) -> Result<()> {
        let start = writer.begin(out);
        match write_binary_row(out, values, types) {
            Ok(()) => {
                writer.finish(out, start);
                Ok(())
            }
            Err(e) => {
                // Drop the half-written packet so the buffer holds only whole packets.
                writer.abandon(out, start);
                Err(e)
            }
        }
    }

    /// The packet that ends the rows: EOF, or OK with the 0xFE header.
    pub fn write_end(
        &self,
        out: &mut Vec<u8>,
        writer: &mut PacketWriter,
        warnings: u16,
        status_flags: u16,
    ) {
        if self.deprecate_eof {
            let ok = OkPacket {
                status_flags,
                warnings,
                ..OkPacket::default()
            };
            writer.write_with(out, |o| write_result_set_end_ok(o, &ok));
        } else {
            writer.write_with(out, |o| write_eof(o, warnings, status_flags));
        }
    }
}

/// Appends one text-protocol row payload.
pub fn write_text_row(out: &mut Vec<u8>, values: &[Value], types: &[DataType]) {
    assert_eq!(
        values.len(),
        types.len(),
        "row width differs from column count"
    );
    for (v, t) in values.iter().zip(types) {
        write_text_value(out, v, t);
    }
}

/// Appends one value of a text row: a lenenc string in MySQL's text form, or 0xFB.
pub fn write_text_value(out: &mut Vec<u8>, value: &Value, data_type: &DataType) {
    match value {
        Value::Null => out.push(NULL_MARKER),
        Value::Bytes(b) => write_lenenc_bytes(out, b),
        _ => write_short_lenenc_with(out, |o| format::write_text(value, data_type, o)),
    }
}

/// Appends one binary-protocol row payload (invariant (1)).
pub fn write_binary_row(out: &mut Vec<u8>, values: &[Value], types: &[DataType]) -> Result<()> {
    assert_eq!(
        values.len(),
        types.len(),
        "row width differs from column count"
    );
    out.push(0x00);
    let bitmap_at = out.len();
    out.resize(bitmap_at + (values.len() + 9) / 8, 0);
    for (i, (v, t)) in values.iter().zip(types).enumerate() {
        if v.is_null() {
            let bit = i + 2;
            out[bitmap_at + bit / 8] |= 1 << (bit % 8);
        } else {
            write_binary_value(out, v, t)
                .map_err(|ValueTypeMismatch| ProtocolError::ValueTypeMismatch { column: i })?;
        }
    }
    Ok(())
}

/// A value that has no binary form in its column's type (a string in an INT column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueTypeMismatch;

/// Appends a non-NULL value in the binary form of `data_type.type_code()`:
/// TINY 1 byte, SHORT 2, INT24/LONG 4, LONGLONG 8, FLOAT f32, DOUBLE f64 (all LE),
/// DATE/DATETIME/TIMESTAMP u8 length (0, 4, 7 or 11) + y u16, m, d, h, mi, s, us u32,
/// TIME u8 length (0, 8 or 12) + negative u8, days u32, h, mi, s, us u32,
/// DECIMAL and strings as lenenc text. Numbers convert between integer and float kinds
/// as Rust's `as` does; a string in a numeric or temporal column is an error.
pub fn write_binary_value(
    out: &mut Vec<u8>,
    value: &Value,
    data_type: &DataType,
) -> std::result::Result<(), ValueTypeMismatch> {
    match data_type {
        DataType::Int { width, .. } => {
            let v = as_i64(value)?;
            match width {
                IntWidth::Tiny => out.push(v as u8),
                IntWidth::Small => out.extend_from_slice(&(v as u16).to_le_bytes()),
                IntWidth::Medium | IntWidth::Int => {
                    out.extend_from_slice(&(v as u32).to_le_bytes())
                }
                IntWidth::Big => out.extend_from_slice(&v.to_le_bytes()),
            }
        }
        DataType::Float { .. } => out.extend_from_slice(&(as_f64(value)? as f32).to_le_bytes()),
        DataType::Double { .. } => out.extend_from_slice(&as_f64(value)?.to_le_bytes()),
        DataType::Date => match value {
            Value::Date(d) => write_binary_datetime(out, &DateTime::from_date(*d), false),
            Value::DateTime(dt) => write_binary_datetime(out, &DateTime::from_date(dt.date), false),
            _ => return Err(ValueTypeMismatch),
        },
        DataType::DateTime { .. } | DataType::Timestamp { .. } => match value {
            Value::Date(d) => write_binary_datetime(out, &DateTime::from_date(*d), true),
            Value::DateTime(dt) => write_binary_datetime(out, dt, true),
            _ => return Err(ValueTypeMismatch),
        },
        DataType::Time { .. } => match value {
            Value::Time(t) => write_binary_time(out, t),
            _ => return Err(ValueTypeMismatch),
        },
        // The NULL type has no bytes at all: only NULL values (in the bitmap) fit it.
        DataType::Null => return Err(ValueTypeMismatch),
        // DECIMAL and strings travel as lenenc text.
        _ => write_text_value(out, value, data_type),
    }
    Ok(())
}

fn as_i64(value: &Value) -> std::result::Result<i64, ValueTypeMismatch> {
    match value {
        Value::Int(i) => Ok(*i),
        Value::UInt(u) => Ok(*u as i64),
        Value::Double(d) => Ok(*d as i64),
        Value::Decimal(d) => d.to_i64().ok_or(ValueTypeMismatch),
        _ => Err(ValueTypeMismatch),
    }
}

fn as_f64(value: &Value) -> std::result::Result<f64, ValueTypeMismatch> {
    match value {
        Value::Int(i) => Ok(*i as f64),
        Value::UInt(u) => Ok(*u as f64),
        Value::Double(d) => Ok(*d),
        Value::Decimal(d) => Ok(d.to_f64()),
        _ => Err(ValueTypeMismatch),
    }
}

/// The shortest of the 0/4/7/11-byte forms that holds the value. A DATE column always
/// gets 0 or 4 bytes.
fn write_binary_datetime(out: &mut Vec<u8>, dt: &DateTime, with_time: bool) {
    let has_time = with_time && (dt.hour | dt.minute | dt.second) != 0;
    let has_micros = with_time && dt.microsecond != 0;
    let len: u8 = if has_micros {
        11
    } else if has_time {
        7
    } else if !dt.date.is_zero() {
        4
    } else {
        0
    };
    out.push(len);
    if len >= 4 {
        write_u16(out, dt.date.year);
        out.push(dt.date.month);
        out.push(dt.date.day);
    }
    if len >= 7 {
        out.extend_from_slice(&[dt.hour, dt.minute, dt.second]);
    }
    if len == 11 {
        write_u32(out, dt.microsecond);
    }
}

/// The shortest of the 0/8/12-byte forms that holds the time.
fn write_binary_time(out: &mut Vec<u8>, t: &Time) {
    let (hours, minute, second, microsecond) = t.parts();
    let len: u8 = if microsecond != 0 {
        12
    } else if t.microseconds() != 0 {
        8
    } else {
        0
    };
    out.push(len);
    if len >= 8 {
        out.push(t.is_negative() as u8);
        write_u32(out, hours / 24);
        out.extend_from_slice(&[(hours % 24) as u8, minute, second]);
    }
    if len == 12 {
        write_u32(out, microsecond);
    }
}

/// True when `code` is a type whose binary form is a lenenc string.
pub fn is_lenenc_type(code: u8) -> bool {
    use type_code::*;
    matches!(
        code,
        DECIMAL
            | NEWDECIMAL
            | VARCHAR
            | BIT
            | ENUM
            | SET
            | TINY_BLOB
            | MEDIUM_BLOB
            | LONG_BLOB
            | BLOB
            | VAR_STRING
            | STRING
            | GEOMETRY
            | 0xF5
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::Reader;
    use manycore_types::Date;

    fn double(v: f64) -> String {
        let mut out = Vec::new();
        format::write_double(v, &mut out);
        String::from_utf8(out).expect("ascii")
    }

    fn float(v: f32) -> String {
        let mut out = Vec::new();
        format::write_float(v, &mut out);
        String::from_utf8(out).expect("ascii")
    }

    #[test]
    fn double_text_matches_mariadb() {
        // (value, what MariaDB 10.11 prints for it in a DOUBLE column or e-literal)
        let cases: &[(f64, &str)] = &[
            (1e20, "1e20"),
            (1e15, "1e15"),
            (1e14, "100000000000000"),
            (123456789012345.0, "123456789012345"),
            (1234567890123456.0, "1.234567890123456e15"),
            (12345678901234567.0, "1.2345678901234568e16"),
            (123456789012345.6, "123456789012345.6"),
            (0.1, "0.1"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1.5e-7, "0.00000015"),
            (1e-4, "0.0001"),
            (1e-10, "0.0000000001"),
            (1e-15, "0.000000000000001"),
            (1.2345e-15, "0.0000000000000012345"),
            (1e-16, "1e-16"),
            (1.5e-16, "1.5e-16"),
            (-1.5e-15, "-0.0000000000000015"),
            (1.23456789e-20, "1.23456789e-20"),
            (100.0, "100"),
            (1.0, "1"),
            (0.0, "0"),
            (-0.0, "0"),
            (-1.5, "-1.5"),
            (f64::MAX, "1.7976931348623157e308"),
            (2.2250738585072014e-308, "2.2250738585072014e-308"),
            (5e-324, "5e-324"),
            (123.456, "123.456"),
            (1e21, "1e21"),
            (1e301, "1e301"),
            (1.0 / 3.0, "0.3333333333333333"),
            (100.0 / 3.0, "33.333333333333336"),
            (1e0 / 7.0, "0.14285714285714285"),
            (12345678901234567890.0, "1.2345678901234567e19"),
        ];
        for (v, want) in cases {
            assert_eq!(double(*v), *want, "{v:e}");
        }
    }

    #[test]
    fn float_text_matches_mariadb() {
        let cases: &[(f32, &str)] = &[
            (1.1, "1.1"),
            (123456789.0, "123457000"),
            (16777217.0, "16777200"),
            (1234567.8, "1234570"),
            (9999999.0, "10000000"),
            (1e20, "1e20"),
            (1.5e-7, "0.00000015"),
            (1e-15, "0.000000000000001"),
            (1e-16, "1e-16"),
            (1e14, "100000000000000"),
            (1e15, "1e15"),
            (123456789012345.0, "123457000000000"),
            (-3.4e38, "-3.4e38"),
            (f32::MIN_POSITIVE, "1.17549e-38"),
            (0.000015, "0.000015"),
            (4.56789, "4.56789"),
            (0.0, "0"),
        ];
        for (v, want) in cases {
            assert_eq!(float(*v), *want, "{v:e}");
        }
    }

    #[test]
    fn text_values() {
        let dec = |s: &str| Value::Decimal(s.parse().expect("decimal"));
        let dt = DateTime {
            date: Date {
                year: 2024,
                month: 1,
                day: 2,
            },
            hour: 3,
            minute: 4,
            second: 5,
            microsecond: 500_000,
        };
        let cases: Vec<(Value, DataType, &[u8])> = vec![
            (Value::Null, DataType::BIGINT, b"\xFB"),
            (Value::Int(-42), DataType::BIGINT, b"\x03-42"),
            (
                Value::UInt(u64::MAX),
                DataType::BIGINT,
                b"\x1418446744073709551615",
            ),
            (
                dec("1.5"),
                DataType::Decimal {
                    precision: 10,
                    scale: 3,
                    unsigned: false,
                },
                b"\x051.500",
            ),
            (
                dec("-0.5"),
                DataType::Decimal {
                    precision: 5,
                    scale: 2,
                    unsigned: false,
                },
                b"\x05-0.50",
            ),
            (
                dec("7"),
                DataType::Decimal {
                    precision: 5,
                    scale: 0,
                    unsigned: false,
                },
                b"\x017",
            ),
            (Value::Double(1.1f32 as f64), DataType::FLOAT, b"\x031.1"),
            (Value::Double(1e20), DataType::DOUBLE, b"\x041e20"),
            (Value::Date(dt.date), DataType::Date, b"\x0a2024-01-02"),
            (
                Value::DateTime(dt),
                DataType::DateTime { fsp: 3 },
                b"\x172024-01-02 03:04:05.500",
            ),
            (
                Value::DateTime(dt),
                DataType::Timestamp { fsp: 0 },
                b"\x132024-01-02 03:04:05",
            ),
            (
                Value::text("héllo"),
                DataType::varchar(5),
                b"\x06h\xc3\xa9llo",
            ),
        ];
        for (v, t, want) in cases {
            let mut out = Vec::new();
            write_text_value(&mut out, &v, &t);
            assert_eq!(out, want, "{v:?} as {t:?}");
        }
    }

    #[test]
    fn column_definition_layout() {
        let t = DataType::Int {
            width: IntWidth::Int,
            unsigned: true,
        };
        let c = ColumnDefinition::new(b"id", &t).with_table(b"db", b"t", b"t", b"id");
        let mut out = Vec::new();
        write_column_definition(&mut out, &c);
        let mut r = Reader::new(&out);
        for want in [&b"def"[..], b"db", b"t", b"t", b"id", b"id"] {
            assert_eq!(r.lenenc_bytes("s"), Ok(want));
        }
        assert_eq!(r.lenenc_int("fixed"), Ok(0x0C));
        assert_eq!(r.u16("charset"), Ok(63));
        assert_eq!(r.u32("length"), Ok(10));
        assert_eq!(r.u8("type"), Ok(type_code::LONG));
        assert_eq!(r.u16("flags"), Ok(column_flag::NUM | column_flag::UNSIGNED));
        assert_eq!(r.u8("decimals"), Ok(0));
        assert_eq!(r.u16("filler"), Ok(0));
        assert!(r.is_empty());
    }

    #[test]
    fn table_timestamp_columns_are_unsigned_like_mariadb() {
        let t = DataType::Timestamp { fsp: 3 };
        let expression = ColumnDefinition::new(b"ts", &t);
        assert_eq!(expression.flags & column_flag::UNSIGNED, 0);
        let column = expression.with_table(b"db", b"t", b"t", b"ts");
        assert_eq!(column.flags, column_flag::BINARY | column_flag::UNSIGNED);
    }

    #[test]
    fn binary_row_layout() {
        let dt = DateTime {
            date: Date {
                year: 2024,
                month: 1,
                day: 2,
            },
            hour: 3,
            minute: 4,
            second: 5,
            microsecond: 0,
        };
        let types = [
            DataType::Int {
                width: IntWidth::Tiny,
                unsigned: false,
            },
            DataType::Null,
            DataType::Int {
                width: IntWidth::Small,
                unsigned: false,
            },
            DataType::Int {
                width: IntWidth::Medium,
                unsigned: false,
            },
            DataType::BIGINT,
            DataType::DOUBLE,
            DataType::FLOAT,
            DataType::varchar(3),
            DataType::DateTime { fsp: 0 },
            DataType::Date,
            DataType::DateTime { fsp: 0 },
        ];
        let values = [
            Value::Int(-1),
            Value::Null,
            Value::Int(258),
            Value::Int(-2),
            Value::UInt(u64::MAX),
            Value::Double(0.5),
            Value::Double(0.25),
            Value::text("abc"),
            Value::DateTime(dt),
            Value::Date(Date::default()),
            Value::DateTime(DateTime::from_date(dt.date)),
        ];
        let mut out = Vec::new();
        write_binary_row(&mut out, &values, &types).expect("encodable");
        let mut want = vec![0x00, 0b0000_1000, 0];
        want.push(0xFF);
        want.extend_from_slice(&258u16.to_le_bytes());
        want.extend_from_slice(&(-2i32).to_le_bytes());
        want.extend_from_slice(&u64::MAX.to_le_bytes());
        want.extend_from_slice(&0.5f64.to_le_bytes());
        want.extend_from_slice(&0.25f32.to_le_bytes());
        want.extend_from_slice(b"\x03abc");
        want.extend_from_slice(&[7, 0xE8, 0x07, 1, 2, 3, 4, 5]);
        want.push(0);
        want.extend_from_slice(&[4, 0xE8, 0x07, 1, 2]);
        assert_eq!(out, want);
        let mut out = Vec::new();
        let err = write_binary_row(&mut out, &[Value::text("x")], &[DataType::BIGINT]);
        assert_eq!(err, Err(ProtocolError::ValueTypeMismatch { column: 0 }));
        // Through the encoder a failed row leaves no partial packet behind.
        let enc = ResultSetEncoder {
            deprecate_eof: true,
            cache_metadata: false,
        };
        let mut w = PacketWriter::new(3);
        let mut out = b"kept".to_vec();
        let err = enc.write_binary_row(&mut out, &mut w, &[Value::Int(1)], &[DataType::Null]);
        assert!(err.is_err());
        assert_eq!((out.as_slice(), w.sequence_id()), (&b"kept"[..], 3));
    }

    #[test]
    fn encoder_uses_eof_or_ok_end() {
        let types = [DataType::BIGINT];
        for (caps, end) in [
            (0, &[0xFE, 0, 0, 2, 0][..]),
            (
                crate::handshake::capability::DEPRECATE_EOF,
                &[0xFE, 0, 0, 2, 0, 0, 0],
            ),
        ] {
            let enc = ResultSetEncoder::new(caps, 0);
            let mut out = Vec::new();
            let mut w = PacketWriter::new(1);
            let cols = [ColumnDefinition::new(b"a", &types[0])];
            enc.write_metadata(&mut out, &mut w, cols.into_iter(), 2);
            enc.write_text_row(&mut out, &mut w, &[Value::Int(1)], &types);
            enc.write_end(&mut out, &mut w, 0, 2);
            let packets = if caps == 0 { 5 } else { 4 };
            assert_eq!(w.sequence_id(), 1 + packets);
            assert!(out.ends_with(end));
        }
    }

    #[test]
    fn cache_metadata_flags_the_column_count() {
        use crate::handshake::mariadb_capability::CACHE_METADATA;
        let t = DataType::BIGINT;
        let plain = ResultSetEncoder::new(0, 0);
        let cached = ResultSetEncoder::new(0, CACHE_METADATA);
        assert!(!plain.cache_metadata && cached.cache_metadata);

        // Definitions follow: the count packet is [count, 1].
        let (mut out, mut w) = (Vec::new(), PacketWriter::new(1));
        let cols = [ColumnDefinition::new(b"a", &t)];
        cached.write_metadata(&mut out, &mut w, cols.into_iter(), 2);
        assert_eq!(out[..6], [2, 0, 0, 1, 1, 1]);
        assert_eq!(w.sequence_id(), 4, "count, definition, EOF");

        // Left out: [count, 0], then only the EOF (Connector/C reads its status flags).
        let (mut out, mut w) = (Vec::new(), PacketWriter::new(1));
        cached.write_cached_metadata(&mut out, &mut w, 1, 2);
        assert_eq!(out, [2, 0, 0, 1, 1, 0, 5, 0, 0, 2, 0xFE, 0, 0, 2, 0]);

        // Without the capability the count packet is the count alone.
        let (mut out, mut w) = (Vec::new(), PacketWriter::new(1));
        let cols = [ColumnDefinition::new(b"a", &t)];
        plain.write_metadata(&mut out, &mut w, cols.into_iter(), 2);
        assert_eq!(out[..5], [1, 0, 0, 1, 1]);
    }
}
