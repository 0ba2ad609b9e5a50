//! Prepared statements: the COM_STMT_PREPARE response and COM_STMT_EXECUTE parameters.
//!
//! COM_STMT_PREPARE_OK payload:
//!
//!   u8 0x00 | u32 statement id | u16 column count | u16 parameter count | u8 0
//!   u16 warning count
//!
//! followed by parameter definitions (+ EOF unless DEPRECATE_EOF) when there are
//! parameters, and column definitions (+ EOF unless DEPRECATE_EOF) when there are columns.
//!
//! COM_STMT_EXECUTE payload:
//!
//!   u8 0x17 | u32 statement id | u8 flags (cursor type) | u32 iteration count (1)
//!   if parameter count > 0:
//!     NULL bitmap, (n + 7) / 8 bytes, parameter i at bit i
//!     u8 new-params-bound flag
//!     if the flag is 1: n x (u8 type code, u8 flags: 0x80 = unsigned)
//!     values of the non-NULL parameters without long data, in their binary form:
//!       TINY 1, SHORT/YEAR 2, LONG/INT24 4, LONGLONG 8, FLOAT 4, DOUBLE 8 (LE);
//!       DATE/DATETIME/TIMESTAMP u8 length (0/4/7/11) + y u16, m, d, h, mi, s, us u32;
//!       TIME u8 length (0/8/12) + negative u8, days u32, h, mi, s, us u32;
//!       DECIMAL, strings, blobs, ENUM, SET, BIT, JSON, GEOMETRY: lenenc string;
//!       NULL type: nothing.
//!
//! Invariants:
//! (1) `parse_execute` validates every value before returning; the `params()` iterator
//!     then cannot fail and allocates nothing (values borrow from the payload).
//! (2) Types sent with new-params-bound = 1 replace the statement's cached types;
//!     an execute without types uses the cached ones, and fails with ParamTypesMissing
//!     if there are none.
//! (3) A parameter with long data (COM_STMT_SEND_LONG_DATA) takes its value from the
//!     long data and has no bytes in the execute payload; its NULL bit is ignored.

use crate::codec::{write_u16, write_u32, Reader};
use crate::error::{ProtocolError, Result};
use crate::packet::PacketWriter;
use crate::resultset::{
    column_flag, is_lenenc_type, write_column_definition, ColumnDefinition, ResultSetEncoder,
};
use manycore_types::datatype::type_code;
use manycore_types::{Date, DateTime, Time, Value};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrepareOk {
    pub statement_id: u32,
    pub column_count: u16,
    pub param_count: u16,
    pub warnings: u16,
}

pub fn write_prepare_ok(out: &mut Vec<u8>, ok: &PrepareOk) {
    out.push(0x00);
    write_u32(out, ok.statement_id);
    write_u16(out, ok.column_count);
    write_u16(out, ok.param_count);
    out.push(0);
    write_u16(out, ok.warnings);
}

/// The definition MySQL sends for each `?`: a binary VAR_STRING named "?".
pub fn param_definition() -> ColumnDefinition<'static> {
    ColumnDefinition {
        schema: b"",
        table: b"",
        org_table: b"",
        name: b"?",
        org_name: b"",
        charset: 63,
        column_length: 0,
        type_code: type_code::VAR_STRING,
        flags: column_flag::BINARY,
        decimals: 0,
    }
}

/// Writes the whole COM_STMT_PREPARE response: PREPARE_OK, parameter definitions and
/// column definitions, each block ended by EOF unless DEPRECATE_EOF.
pub fn write_prepare_response<'c>(
    out: &mut Vec<u8>,
    writer: &mut PacketWriter,
    encoder: &ResultSetEncoder,
    statement_id: u32,
    param_count: u16,
    columns: impl ExactSizeIterator<Item = ColumnDefinition<'c>>,
    status_flags: u16,
) {
    let column_count = u16::try_from(columns.len()).expect("a statement has at most 4096 columns");
    let ok = PrepareOk {
        statement_id,
        column_count,
        param_count,
        warnings: 0,
    };
    writer.write_with(out, |o| write_prepare_ok(o, &ok));
    if param_count > 0 {
        let param = param_definition();
        for _ in 0..param_count {
            writer.write_with(out, |o| write_column_definition(o, &param));
        }
        encoder.write_metadata_end(out, writer, status_flags);
    }
    if column_count > 0 {
        for c in columns {
            writer.write_with(out, |o| write_column_definition(o, &c));
        }
        encoder.write_metadata_end(out, writer, status_flags);
    }
}

/// Cursor requested in COM_STMT_EXECUTE's flags.
pub mod cursor_flag {
    pub const NO_CURSOR: u8 = 0x00;
    pub const READ_ONLY: u8 = 0x01;
    pub const FOR_UPDATE: u8 = 0x02;
    pub const SCROLLABLE: u8 = 0x04;
    /// MySQL 8's PARAMETER_COUNT_AVAILABLE; only valid with CLIENT_QUERY_ATTRIBUTES,
    /// which we never advertise.
    pub const PARAMETER_COUNT_AVAILABLE: u8 = 0x08;
}

/// A parameter's wire type as the client declared it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamType {
    pub code: u8,
    pub unsigned: bool,
}

/// One decoded parameter, borrowing strings from the payload or the long data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamValue<'a> {
    Null,
    Int(i64),
    UInt(u64),
    Double(f64),
    /// Strings, blobs and DECIMAL text; the SQL layer converts by context.
    Bytes(&'a [u8]),
    Date(Date),
    DateTime(DateTime),
    Time {
        negative: bool,
        days: u32,
        hour: u8,
        minute: u8,
        second: u8,
        microsecond: u32,
    },
}

impl ParamValue<'_> {
    /// An owned `Value`. A TIME is clipped to the TIME range (MariaDB's binding does
    /// the same); one with a minute or second over 59 becomes its text, which the SQL
    /// layer then rejects with the warning a bad string gets.
    pub fn to_value(&self) -> Value {
        match *self {
            ParamValue::Null => Value::Null,
            ParamValue::Int(i) => Value::Int(i),
            ParamValue::UInt(u) => Value::UInt(u),
            ParamValue::Double(d) => Value::Double(d),
            ParamValue::Bytes(b) => Value::Bytes(b.to_vec()),
            ParamValue::Date(d) => Value::Date(d),
            ParamValue::DateTime(dt) => Value::DateTime(dt),
            ParamValue::Time {
                negative,
                days,
                hour,
                minute,
                second,
                microsecond,
            } => {
                let hours = days as u64 * 24 + hour as u64;
                if minute < 60 && second < 60 && microsecond < 1_000_000 {
                    let seconds = (hours * 3600 + minute as u64 * 60 + second as u64) as i128;
                    let micros = seconds * 1_000_000 + microsecond as i128;
                    let (time, _) = Time::clipped(if negative { -micros } else { micros });
                    return Value::Time(time);
                }
                let sign = if negative { "-" } else { "" };
                let mut s = format!("{sign}{hours:02}:{minute:02}:{second:02}");
                if microsecond != 0 {
                    s.push_str(&format!(".{microsecond:06}"));
                }
                Value::Bytes(s.into_bytes())
            }
        }
    }
}

/// A validated COM_STMT_EXECUTE.
#[derive(Clone, Debug)]
pub struct Execute<'a> {
    pub statement_id: u32,
    /// Raw flags; see `cursor_flag`. The server refuses cursors it does not support.
    pub flags: u8,
    pub iteration_count: u32,
    /// Whether this execute carried types (and so replaced the cached ones).
    pub new_params_bound: bool,
    null_bitmap: &'a [u8],
    types: &'a [Option<ParamType>],
    long_data: Option<&'a [Option<Vec<u8>>]>,
    values: &'a [u8],
}

impl<'a> Execute<'a> {
    pub fn param_count(&self) -> usize {
        self.types.len()
    }

    pub fn cursor_requested(&self) -> bool {
        self.flags & (cursor_flag::READ_ONLY | cursor_flag::FOR_UPDATE | cursor_flag::SCROLLABLE)
            != 0
    }

    /// The parameter values in order (invariant (1)).
    pub fn params(&self) -> impl Iterator<Item = ParamValue<'a>> + '_ {
        let mut r = Reader::new(self.values);
        (0..self.types.len()).map(move |i| {
            read_param(&mut r, i, self.null_bitmap, self.types, self.long_data)
                .expect("parse_execute validated every parameter")
        })
    }
}

/// Parses COM_STMT_EXECUTE (the whole payload, command byte included).
///
/// `cached_types` has one slot per parameter of the statement (its length is the
/// parameter count) and holds the types of the previous execute; it is updated when this
/// execute sends types. `long_data`, if any, has one slot per parameter with the bytes
/// collected from COM_STMT_SEND_LONG_DATA.
pub fn parse_execute<'a>(
    payload: &'a [u8],
    cached_types: &'a mut [Option<ParamType>],
    long_data: Option<&'a [Option<Vec<u8>>]>,
) -> Result<Execute<'a>> {
    let mut r = Reader::new(payload);
    if r.u8("command")? != crate::command::com::STMT_EXECUTE {
        return Err(ProtocolError::Malformed { what: "command" });
    }
    let statement_id = r.u32("statement id")?;
    let flags = r.u8("flags")?;
    if flags & cursor_flag::PARAMETER_COUNT_AVAILABLE != 0 {
        return Err(ProtocolError::Malformed { what: "flags" });
    }
    let iteration_count = r.u32("iteration count")?;
    let count = cached_types.len();
    if let Some(long) = long_data {
        assert_eq!(
            long.len(),
            count,
            "long data slots differ from the parameter count"
        );
    }
    let mut execute = Execute {
        statement_id,
        flags,
        iteration_count,
        new_params_bound: false,
        null_bitmap: &[],
        types: &[],
        long_data,
        values: &[],
    };
    if count == 0 {
        return Ok(execute);
    }
    execute.null_bitmap = r.bytes(count.div_ceil(8), "null bitmap")?;
    execute.new_params_bound = match r.u8("new params bound")? {
        0 => false,
        1 => true,
        _ => {
            return Err(ProtocolError::Malformed {
                what: "new params bound",
            })
        }
    };
    if execute.new_params_bound {
        for slot in cached_types.iter_mut() {
            let code = r.u8("parameter type")?;
            let unsigned = r.u8("parameter flags")? & 0x80 != 0;
            *slot = Some(ParamType { code, unsigned });
        }
    } else if cached_types.iter().any(Option::is_none) {
        return Err(ProtocolError::ParamTypesMissing);
    }
    let types: &'a [Option<ParamType>] = cached_types;
    execute.types = types;
    execute.values = r.rest();
    let mut values = Reader::new(execute.values);
    for i in 0..count {
        read_param(&mut values, i, execute.null_bitmap, types, long_data)?;
    }
    Ok(execute)
}

fn read_param<'a>(
    r: &mut Reader<'a>,
    index: usize,
    null_bitmap: &[u8],
    types: &[Option<ParamType>],
    long_data: Option<&'a [Option<Vec<u8>>]>,
) -> Result<ParamValue<'a>> {
    if let Some(Some(data)) = long_data.map(|l| &l[index]) {
        return Ok(ParamValue::Bytes(data));
    }
    if null_bitmap[index / 8] & (1 << (index % 8)) != 0 {
        return Ok(ParamValue::Null);
    }
    let ty = types[index].ok_or(ProtocolError::ParamTypesMissing)?;
    let bad = |what| ProtocolError::BadParam { index, what };
    let short = |_| bad("truncated value");
    let signed = !ty.unsigned;
    let int = |v: i64, u: u64| {
        if signed {
            ParamValue::Int(v)
        } else {
            ParamValue::UInt(u)
        }
    };
    Ok(match ty.code {
        type_code::NULL => ParamValue::Null,
        type_code::TINY => {
            let b = r.u8("value").map_err(short)?;
            int(b as i8 as i64, b as u64)
        }
        type_code::SHORT | type_code::YEAR => {
            let v = r.u16("value").map_err(short)?;
            int(v as i16 as i64, v as u64)
        }
        type_code::LONG | type_code::INT24 => {
            let v = r.u32("value").map_err(short)?;
            int(v as i32 as i64, v as u64)
        }
        type_code::LONGLONG => {
            let v = r.u64("value").map_err(short)?;
            int(v as i64, v)
        }
        type_code::FLOAT => {
            ParamValue::Double(f32::from_bits(r.u32("value").map_err(short)?) as f64)
        }
        type_code::DOUBLE => ParamValue::Double(f64::from_bits(r.u64("value").map_err(short)?)),
        type_code::DATE | type_code::DATETIME | type_code::TIMESTAMP => {
            let dt = read_datetime(r)
                .map_err(short)?
                .ok_or_else(|| bad("date length"))?;
            if ty.code == type_code::DATE {
                ParamValue::Date(dt.date)
            } else {
                ParamValue::DateTime(dt)
            }
        }
        type_code::TIME => read_time(r)
            .map_err(short)?
            .ok_or_else(|| bad("time length"))?,
        code if is_lenenc_type(code) => ParamValue::Bytes(r.lenenc_bytes("value").map_err(short)?),
        code => return Err(ProtocolError::UnknownParamType { code }),
    })
}

/// None when the length byte is not one of 0, 4, 7, 11.
fn read_datetime(r: &mut Reader<'_>) -> Result<Option<DateTime>> {
    let len = r.u8("date length")?;
    let mut dt = DateTime::default();
    if !matches!(len, 0 | 4 | 7 | 11) {
        return Ok(None);
    }
    if len >= 4 {
        dt.date = Date {
            year: r.u16("year")?,
            month: r.u8("month")?,
            day: r.u8("day")?,
        };
    }
    if len >= 7 {
        (dt.hour, dt.minute, dt.second) = (r.u8("hour")?, r.u8("minute")?, r.u8("second")?);
    }
    if len == 11 {
        dt.microsecond = r.u32("microsecond")?;
    }
    Ok(Some(dt))
}

fn read_time<'a>(r: &mut Reader<'_>) -> Result<Option<ParamValue<'a>>> {
    let len = r.u8("time length")?;
    if !matches!(len, 0 | 8 | 12) {
        return Ok(None);
    }
    let (mut negative, mut days, mut hour, mut minute, mut second, mut microsecond) =
        (false, 0, 0, 0, 0, 0);
    if len >= 8 {
        negative = r.u8("sign")? != 0;
        days = r.u32("days")?;
        (hour, minute, second) = (r.u8("hour")?, r.u8("minute")?, r.u8("second")?);
    }
    if len == 12 {
        microsecond = r.u32("microsecond")?;
    }
    Ok(Some(ParamValue::Time {
        negative,
        days,
        hour,
        minute,
        second,
        microsecond,
    }))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::codec::write_lenenc_bytes;

    /// An execute of a 10-parameter statement with types bound.
    pub(crate) fn sample_execute() -> Vec<u8> {
        let mut p = vec![0x17, 7, 0, 0, 0, 0, 1, 0, 0, 0];
        // NULL bitmap: parameter 1 is NULL.
        p.extend_from_slice(&[0b0000_0010, 0]);
        p.push(1);
        let types: [(u8, u8); 10] = [
            (type_code::TINY, 0),
            (type_code::LONG, 0),
            (type_code::LONGLONG, 0x80),
            (type_code::DOUBLE, 0),
            (type_code::VAR_STRING, 0),
            (type_code::DATETIME, 0),
            (type_code::TIME, 0),
            (type_code::NEWDECIMAL, 0),
            (type_code::FLOAT, 0),
            (type_code::SHORT, 0x80),
        ];
        for (code, flags) in types {
            p.extend_from_slice(&[code, flags]);
        }
        p.push(0xFE);
        p.extend_from_slice(&u64::MAX.to_le_bytes());
        p.extend_from_slice(&1.5f64.to_le_bytes());
        write_lenenc_bytes(&mut p, b"hello");
        p.extend_from_slice(&[11, 0xE8, 0x07, 2, 29, 23, 59, 58, 0x3F, 0x42, 0x0F, 0]);
        p.extend_from_slice(&[8, 1, 1, 0, 0, 0, 2, 3, 4]);
        write_lenenc_bytes(&mut p, b"-12.50");
        p.extend_from_slice(&0.5f32.to_le_bytes());
        p.extend_from_slice(&65535u16.to_le_bytes());
        p
    }

    #[test]
    fn execute_decodes_every_type() {
        let p = sample_execute();
        let mut cached = [None; 10];
        let e = parse_execute(&p, &mut cached, None).expect("valid");
        assert_eq!(
            (
                e.statement_id,
                e.flags,
                e.iteration_count,
                e.new_params_bound
            ),
            (7, 0, 1, true)
        );
        assert!(!e.cursor_requested());
        let got: Vec<_> = e.params().collect();
        let dt = DateTime {
            date: Date {
                year: 2024,
                month: 2,
                day: 29,
            },
            hour: 23,
            minute: 59,
            second: 58,
            microsecond: 999_999,
        };
        assert_eq!(
            got,
            vec![
                ParamValue::Int(-2),
                ParamValue::Null,
                ParamValue::UInt(u64::MAX),
                ParamValue::Double(1.5),
                ParamValue::Bytes(b"hello"),
                ParamValue::DateTime(dt),
                ParamValue::Time {
                    negative: true,
                    days: 1,
                    hour: 2,
                    minute: 3,
                    second: 4,
                    microsecond: 0
                },
                ParamValue::Bytes(b"-12.50"),
                ParamValue::Double(0.5),
                ParamValue::UInt(65535),
            ]
        );
        assert_eq!(
            got[6].to_value(),
            Value::Time(Time::new(-(26 * 3600 + 3 * 60 + 4) * 1_000_000).expect("in range"))
        );
        // Every strict prefix fails, never panics.
        for cut in 0..p.len() {
            let mut cached = [None; 10];
            assert!(
                parse_execute(&p[..cut], &mut cached, None).is_err(),
                "prefix {cut}"
            );
        }
    }

    #[test]
    fn cached_types_and_long_data() {
        let mut cached = [None; 2];
        // First execute binds types (LONGLONG, BLOB); the BLOB comes as long data.
        let mut p = vec![0x17, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0b10, 1];
        p.extend_from_slice(&[type_code::LONGLONG, 0, type_code::BLOB, 0]);
        p.extend_from_slice(&5i64.to_le_bytes());
        let long = [None, Some(b"big".to_vec())];
        let e = parse_execute(&p, &mut cached, Some(&long)).expect("valid");
        assert!(e.cursor_requested());
        let got: Vec<_> = e.params().collect();
        assert_eq!(got, vec![ParamValue::Int(5), ParamValue::Bytes(b"big")]);
        // Second execute omits the types and uses the cached ones.
        let mut p = vec![0x17, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0b01, 0];
        write_lenenc_bytes(&mut p, b"xyz");
        let e = parse_execute(&p, &mut cached, None).expect("valid");
        let got: Vec<_> = e.params().collect();
        assert_eq!(got, vec![ParamValue::Null, ParamValue::Bytes(b"xyz")]);
        // Without cached types that is an error.
        let mut empty = [None; 2];
        assert_eq!(
            parse_execute(&p, &mut empty, None).err(),
            Some(ProtocolError::ParamTypesMissing)
        );
    }

    #[test]
    fn bad_params_are_errors() {
        let mut cached = [None; 1];
        let p = [0x17, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0x42, 0, 0];
        assert_eq!(
            parse_execute(&p, &mut cached, None).err(),
            Some(ProtocolError::UnknownParamType { code: 0x42 })
        );
        let p = [
            0x17,
            1,
            0,
            0,
            0,
            0,
            1,
            0,
            0,
            0,
            0,
            1,
            type_code::DATE,
            0,
            5,
            0,
            0,
            0,
            0,
            0,
        ];
        assert!(matches!(
            parse_execute(&p, &mut cached, None),
            Err(ProtocolError::BadParam { .. })
        ));
        let mut none: [Option<ParamType>; 0] = [];
        let e =
            parse_execute(&[0x17, 9, 0, 0, 0, 0, 1, 0, 0, 0], &mut none, None).expect("no params");
        assert_eq!(e.params().count(), 0);
    }

    #[test]
    fn prepare_response_layout() {
        let mut out = Vec::new();
        let mut w = PacketWriter::new(1);
        let enc = ResultSetEncoder {
            deprecate_eof: false,
            cache_metadata: false,
        };
        let t = manycore_types::DataType::BIGINT;
        let cols = [ColumnDefinition::new(b"a", &t)];
        write_prepare_response(&mut out, &mut w, &enc, 3, 2, cols.into_iter(), 2);
        // PREPARE_OK, 2 params, EOF, 1 column, EOF.
        assert_eq!(w.sequence_id(), 7);
        assert_eq!(
            &out[..16],
            &[12, 0, 0, 1, 0, 3, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0]
        );
    }
}
