//! Conversions for writes and planning: store assignment (INSERT/UPDATE), exact index
//! keys for constants, and the ORDER BY / GROUP BY orderings of expression values.
//!
//! Invariants:
//! (1) `store_value` returns a value that fits its column (types crate invariant (2)) or
//!     an error; in non-strict mode it never errors on data, it adjusts and warns.
//! (2) `exact_key_value` returns Some only if the converted value compares equal to the
//!     original under SQL comparison with the column, and has the representation
//!     `key::encode_field` expects for the column; otherwise the planner must not use the
//!     value as an index key.
//! (3) `sort_key(a) == sort_key(b)` iff `compare_values(a, b) == Equal`, and byte order of
//!     sort keys is `compare_values` order, for values of one expression type.

use super::coerce::{
    self, compare_exact, double_to_i128, number_to_datetime, parse_datetime, string_collation,
    to_bytes, warning_text,
};
use super::time::{self, ParsedTime};
use super::time_zone::in_timestamp_range;
use super::SessionContext;
use crate::error::{Error, ErrorCode, Result};
use manycore_types::enumset;
use manycore_types::{Collation, DataType, Date, DateTime, Decimal, Time, Value};
use std::cmp::Ordering;

/// Names a column in messages: `column_name` may be "c" or "db.t.c"; 1264/1406/1265 print
/// the last part ('c'), 1366/1292 print every part in backticks (`db`.`t`.`c`), as MariaDB.
fn short_name(column_name: &str) -> &str {
    column_name.rsplit('.').next().unwrap_or(column_name)
}

fn quoted_name(column_name: &str) -> String {
    column_name
        .split('.')
        .map(|p| format!("`{p}`"))
        .collect::<Vec<_>>()
        .join(".")
}

fn out_of_range(column_name: &str, row: u64) -> (ErrorCode, String) {
    (
        ErrorCode::WarnDataOutOfRange,
        format!(
            "Out of range value for column '{}' at row {row}",
            short_name(column_name)
        ),
    )
}

/// 1292 for a value a date or datetime column cannot hold.
fn incorrect_temporal(
    kind: &str,
    value: &Value,
    column_name: &str,
    row: u64,
) -> (ErrorCode, String) {
    (
        ErrorCode::TruncatedWrongValue,
        format!(
            "Incorrect {kind} value: '{}' for column {} at row {row}",
            warning_text(value),
            quoted_name(column_name)
        ),
    )
}

/// Strict: the error; non-strict: the warning, and the adjusted value.
fn complain(
    strict: bool,
    session: &dyn SessionContext,
    (code, message): (ErrorCode, String),
    adjusted: Value,
) -> Result<Value> {
    if strict {
        return Err(Error::new(code, message));
    }
    session.warn(code, message);
    Ok(adjusted)
}

/// A string that is not clean number text: 1265 (data truncated) when it starts with a
/// number MariaDB could read ('12abc'), else 1366 (incorrect value: 'abc'), as
/// Field_num::check_edom_and_truncation decides.
fn incorrect_value(kind: &str, value: &Value, column_name: &str, row: u64) -> (ErrorCode, String) {
    if let Value::Bytes(b) = value {
        if has_number_prefix(b) {
            return truncated(column_name, row);
        }
    }
    (
        ErrorCode::TruncatedWrongValueForField,
        format!(
            "Incorrect {kind} value: '{}' for column {} at row {row}",
            warning_text(value),
            quoted_name(column_name)
        ),
    )
}

/// Up to 6 bytes of `bytes` as MariaDB quotes a string that is not UTF-8 in 1366:
/// printable ASCII as itself, other bytes as `\xHH`, then `...` if more follow.
fn printable_prefix(bytes: &[u8]) -> String {
    const SHOWN: usize = 6;
    let mut out = String::new();
    for &b in bytes.iter().take(SHOWN) {
        if (0x20..0x7f).contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    if bytes.len() > SHOWN {
        out.push_str("...");
    }
    out
}

/// `bytes` with each byte of an invalid UTF-8 sequence replaced by `?`, as MariaDB
/// stores such a string in a character column.
fn question_marks_for_invalid(mut bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    loop {
        match std::str::from_utf8(bytes) {
            Ok(valid) => {
                out.push_str(valid);
                return out;
            }
            Err(e) => {
                let (valid, rest) = bytes.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                let bad = e.error_len().unwrap_or(rest.len());
                out.extend(std::iter::repeat_n('?', bad));
                bytes = &rest[bad..];
            }
        }
    }
}

fn truncated(column_name: &str, row: u64) -> (ErrorCode, String) {
    (
        ErrorCode::WarnDataTruncated,
        format!(
            "Data truncated for column '{}' at row {row}",
            short_name(column_name)
        ),
    )
}

/// Whether `b` begins (after spaces) with digits, optionally signed or after a point.
fn has_number_prefix(b: &[u8]) -> bool {
    let mut rest = b.trim_ascii_start();
    if let [b'+' | b'-', tail @ ..] = rest {
        rest = tail;
    }
    if let [b'.', tail @ ..] = rest {
        rest = tail;
    }
    rest.first().is_some_and(u8::is_ascii_digit)
}

/// How a string reads as a number for store: the value, and whether it was clean.
fn parse_number_text(b: &[u8]) -> (Decimal, bool) {
    let text = String::from_utf8_lossy(b);
    let trimmed = text.trim_matches(|c: char| c == ' ' || c == '\t' || c == '\n' || c == '\r');
    if let Some(d) = coerce::parse_decimal_text(trimmed) {
        if !trimmed.is_empty() && trimmed.bytes().any(|c| c.is_ascii_digit()) {
            return (d, true);
        }
    }
    let silent = crate::expr::coerce::str_to_decimal_quiet(b);
    (silent, false)
}

/// Whether `text` is a whole number too large for any DECIMAL (`1e400`), which MariaDB
/// stores as out of range rather than as a bad value.
fn beyond_decimal(text: &[u8]) -> bool {
    let text = String::from_utf8_lossy(text);
    let text = text.trim();
    // Rust also reads `inf` and `NaN`, which are not numbers to MariaDB.
    let numeric = text
        .bytes()
        .all(|c| c.is_ascii_digit() || b"+-.eE".contains(&c));
    numeric
        && text
            .parse::<f64>()
            .is_ok_and(|f| f.is_infinite() || f.abs() >= 1e65)
}

/// The number an ENUM or SET assignment reads from `value`: Ok for numbers (DOUBLE and
/// DECIMAL cut to integers), Err with the text of strings and dates, which name members.
fn member_number(value: &Value) -> std::result::Result<i128, Vec<u8>> {
    match value {
        Value::Int(i) => Ok(*i as i128),
        Value::UInt(u) => Ok(*u as i128),
        Value::Double(d) => Ok(d.trunc() as i128),
        Value::Decimal(d) => Ok(coerce::decimal_to_i128(&d.trunc())),
        Value::Bytes(b) => Err(b.clone()),
        other => Err(to_bytes(other, &DataType::Null).unwrap_or_default()),
    }
}

/// A string of decimal digits only, as a number (MariaDB's `strntoul` with its end
/// checked), if it fits.
fn digits(text: &[u8]) -> Option<u64> {
    if text.is_empty() || !text.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(text).ok()?.parse().ok()
}

/// Store assignment of `value` into a column of type `column` (see module invariant (1)).
/// `row_number` is 1-based, as in MySQL's messages. `column_name` is called only to word a
/// warning or error: building the name for every stored value cost ~2% of a write
/// transaction's CPU.
pub fn store_value(
    value: Value,
    column: &DataType,
    column_name: &dyn Fn() -> String,
    row_number: u64,
    strict: bool,
    session: &dyn SessionContext,
) -> Result<Value> {
    if value.is_null() {
        return Ok(Value::Null);
    }
    let row = row_number;
    match column {
        DataType::Null => Ok(Value::Null),
        DataType::Enum { members, collation } => {
            let invalid = || {
                let empty = Value::Bytes(Vec::new());
                complain(strict, session, truncated(&column_name(), row), empty)
            };
            let number = match member_number(&value) {
                Ok(number) => number,
                Err(text) => match enumset::position(members, *collation, &text) {
                    Some(i) => return Ok(Value::text(&members[i])),
                    // MariaDB reads a short string of digits as the member's number.
                    None if text.len() < 6 => match digits(&text) {
                        Some(n) => n.into(),
                        None => return invalid(),
                    },
                    None => return invalid(),
                },
            };
            match usize::try_from(number) {
                Ok(n @ 1..) if n <= members.len() => Ok(Value::text(&members[n - 1])),
                _ => invalid(),
            }
        }
        DataType::Set { members, collation } => {
            let mask = enumset::set_mask(members.len());
            let bits = match member_number(&value) {
                Ok(number) => number,
                Err(text) => match enumset::parse_set(members, *collation, &text) {
                    (bits, true) => return Ok(Value::text(&enumset::set_text(members, bits))),
                    // A number in a string stores its bits, as a number does.
                    (0, false) if text.len() < 22 && digits(&text).is_some_and(|n| n <= mask) => {
                        digits(&text).unwrap_or(0).into()
                    }
                    (0, false) => {
                        let empty = Value::Bytes(Vec::new());
                        return complain(strict, session, truncated(&column_name(), row), empty);
                    }
                    // Unknown items are dropped; the members named are kept.
                    (bits, false) => {
                        let kept = Value::text(&enumset::set_text(members, bits));
                        return complain(strict, session, truncated(&column_name(), row), kept);
                    }
                },
            };
            // A negative number is its two's complement, as MariaDB's (ulonglong) cast.
            let bits = bits as u64;
            let stored = Value::text(&enumset::set_text(members, bits & mask));
            match bits & !mask {
                0 => Ok(stored),
                _ => complain(strict, session, truncated(&column_name(), row), stored),
            }
        }
        DataType::Int { width, unsigned } => {
            let (min, max, umax) = width.bounds();
            let (lo, hi) = if *unsigned {
                (0i128, umax as i128)
            } else {
                (min as i128, max as i128)
            };
            let as_int = |i: i128| {
                if *unsigned {
                    Value::UInt(i as u64)
                } else {
                    Value::Int(i as i64)
                }
            };
            let wide: i128 = match &value {
                Value::Int(i) => *i as i128,
                Value::UInt(u) => *u as i128,
                Value::Double(d) => double_to_i128(*d),
                Value::Decimal(d) => coerce::decimal_to_i128(d),
                Value::Date(_) | Value::DateTime(_) | Value::Time(_) => {
                    coerce::to_i128(&value, session).unwrap_or(0)
                }
                Value::Bytes(b) => {
                    let (d, clean) = parse_number_text(b);
                    let i = coerce::decimal_to_i128(&d);
                    if !clean {
                        let adjusted = as_int(i.clamp(lo, hi));
                        return complain(
                            strict,
                            session,
                            incorrect_value("integer", &value, &column_name(), row),
                            adjusted,
                        );
                    }
                    i
                }
                Value::Null => return Ok(Value::Null),
            };
            if wide < lo || wide > hi {
                return complain(
                    strict,
                    session,
                    out_of_range(&column_name(), row),
                    as_int(wide.clamp(lo, hi)),
                );
            }
            Ok(as_int(wide))
        }
        DataType::Decimal {
            precision,
            scale,
            unsigned,
        } => {
            let max = || Decimal::max_of(precision.saturating_sub(*scale) as u32, *scale as u32);
            let min = |max: Decimal| if *unsigned { Decimal::ZERO } else { -max };
            let d = match &value {
                Value::Bytes(b) => {
                    let (d, clean) = parse_number_text(b);
                    if !clean && beyond_decimal(b) {
                        // A well-formed number past 65 digits ('1e400'): out of range.
                        let max = max();
                        let negative = String::from_utf8_lossy(b).trim_start().starts_with('-');
                        let clamped = Value::Decimal(if negative { min(max) } else { max });
                        return complain(
                            strict,
                            session,
                            out_of_range(&column_name(), row),
                            clamped,
                        );
                    }
                    if !clean {
                        let adjusted =
                            Value::Decimal(clamp_decimal(d, *precision, *scale, *unsigned).0);
                        return complain(
                            strict,
                            session,
                            incorrect_value("decimal", &value, &column_name(), row),
                            adjusted,
                        );
                    }
                    d
                }
                Value::Double(f) if !f.is_finite() => Decimal::ZERO,
                // Beyond 65 digits: out of range like any value above the column's max.
                Value::Double(f) if Decimal::from_f64(*f).is_none() => {
                    let max = max();
                    let clamped = Value::Decimal(if *f < 0.0 { min(max) } else { max });
                    return complain(strict, session, out_of_range(&column_name(), row), clamped);
                }
                other => coerce::to_decimal(other, session).unwrap_or_default(),
            };
            let (fitted, clamped) = clamp_decimal(d, *precision, *scale, *unsigned);
            if clamped {
                return complain(
                    strict,
                    session,
                    out_of_range(&column_name(), row),
                    Value::Decimal(fitted),
                );
            }
            if fitted != d {
                // Rounding away fractional digits is a note, in every mode.
                let (code, message) = truncated(&column_name(), row);
                session.note(code, message);
            }
            Ok(Value::Decimal(fitted))
        }
        DataType::Float { .. } | DataType::Double { .. } => {
            let d = match &value {
                Value::Bytes(b) => {
                    let (d, clean) = parse_number_text(b);
                    let f = String::from_utf8_lossy(b).trim().parse::<f64>().ok();
                    let f = f.unwrap_or_else(|| d.to_f64());
                    if !clean {
                        return complain(
                            strict,
                            session,
                            incorrect_value("double", &value, &column_name(), row),
                            Value::Double(f),
                        );
                    }
                    f
                }
                other => coerce::to_f64(other, session).unwrap_or(0.0),
            };
            // UNSIGNED refuses every negative value, even one (M,D) would round to zero,
            // and stores -0 as 0.
            let d = match column.is_unsigned_number() {
                true if d < 0.0 => {
                    return complain(
                        strict,
                        session,
                        out_of_range(&column_name(), row),
                        Value::Double(0.0),
                    );
                }
                true => d.abs(),
                false => d,
            };
            // (M,D): rounded to D decimals and bounded by 10^(M-D) first, as MariaDB does,
            // then to single precision for a FLOAT.
            let (d, in_range) = match column.fixed_precision() {
                Some((precision, decimals)) => fit_double(d, precision, decimals),
                None => (d, true),
            };
            let (d, in_range) = match column {
                DataType::Float { .. } => {
                    let f = d as f32;
                    match f.is_finite() || !d.is_finite() {
                        true => (f as f64, in_range),
                        false => ((if d > 0.0 { f32::MAX } else { f32::MIN }) as f64, false),
                    }
                }
                _ => (d, in_range),
            };
            if !in_range {
                return complain(
                    strict,
                    session,
                    out_of_range(&column_name(), row),
                    Value::Double(d),
                );
            }
            Ok(Value::Double(d))
        }
        DataType::Char { .. } | DataType::VarChar { .. } | DataType::Text { .. } => {
            // An owned string value is kept as it is when it is valid UTF-8 (the usual
            // case): no copy, and the lossy conversion only for invalid bytes.
            let bytes = match value {
                Value::Bytes(b) => b,
                other => to_bytes(&other, &DataType::Null).unwrap_or_default(),
            };
            let text = match String::from_utf8(bytes) {
                Ok(text) => text,
                Err(invalid) => {
                    let bad = &invalid.as_bytes()[invalid.utf8_error().valid_up_to()..];
                    let message = format!(
                        "Incorrect string value: '{}' for column {} at row {row}",
                        printable_prefix(bad),
                        quoted_name(&column_name())
                    );
                    let code = ErrorCode::TruncatedWrongValueForField;
                    complain(strict, session, (code, message), Value::Null)?;
                    question_marks_for_invalid(invalid.as_bytes())
                }
            };
            let limit = column.max_length().unwrap_or(u64::MAX);
            let is_text = matches!(column, DataType::Text { .. });
            // A string has at most as many characters as bytes, so characters are
            // counted only when the byte length is over the limit.
            let length = if is_text || text.len() as u64 <= limit {
                text.len() as u64
            } else {
                text.chars().count() as u64
            };
            let mut stored = if length > limit {
                // Trailing spaces beyond the limit are cut silently (MySQL does too).
                let cut: String = if is_text {
                    truncate_utf8(&text, limit as usize)
                } else {
                    text.chars().take(limit as usize).collect()
                };
                let rest = &text[cut.len()..];
                let spaces_only = rest.bytes().all(|c| c == b' ');
                if spaces_only && !matches!(column, DataType::Char { .. }) {
                    // Only spaces lost: a note (Field_longstr::report_if_important_data).
                    let (code, message) = truncated(&column_name(), row);
                    session.note(code, message);
                }
                if !spaces_only {
                    let message = if strict {
                        (
                            ErrorCode::DataTooLong,
                            format!(
                                "Data too long for column '{}' at row {row}",
                                short_name(&column_name())
                            ),
                        )
                    } else {
                        (
                            ErrorCode::WarnDataTruncated,
                            format!(
                                "Data truncated for column '{}' at row {row}",
                                short_name(&column_name())
                            ),
                        )
                    };
                    complain(strict, session, message, Value::Null)?;
                }
                cut.into_bytes()
            } else {
                text.into_bytes()
            };
            if matches!(column, DataType::Char { .. }) {
                while stored.last() == Some(&b' ') {
                    stored.pop();
                }
            }
            Ok(Value::Bytes(stored))
        }
        DataType::Binary { .. } | DataType::VarBinary { .. } | DataType::Blob { .. } => {
            let mut bytes = to_bytes(&value, &DataType::Null).unwrap_or_default();
            let limit = column.max_length().unwrap_or(u64::MAX) as usize;
            if bytes.len() > limit {
                let message = if strict {
                    (
                        ErrorCode::DataTooLong,
                        format!(
                            "Data too long for column '{}' at row {row}",
                            short_name(&column_name())
                        ),
                    )
                } else {
                    (
                        ErrorCode::WarnDataTruncated,
                        format!(
                            "Data truncated for column '{}' at row {row}",
                            short_name(&column_name())
                        ),
                    )
                };
                complain(strict, session, message, Value::Null)?;
                bytes.truncate(limit);
            }
            if let DataType::Binary { length } = column {
                bytes.resize(*length as usize, 0);
            }
            Ok(Value::Bytes(bytes))
        }
        DataType::Date | DataType::DateTime { .. } | DataType::Timestamp { .. } => {
            let parsed = match &value {
                Value::Date(d) => Some(DateTime::from_date(*d)),
                Value::DateTime(dt) => Some(*dt),
                Value::Bytes(b) => parse_datetime(b).map(|p| p.datetime),
                other => coerce::to_i128(other, session)
                    .and_then(number_to_datetime)
                    .map(|p| p.datetime),
            };
            let kind = if *column == DataType::Date {
                "date"
            } else {
                "datetime"
            };
            let Some(dt) = parsed else {
                let zero = if *column == DataType::Date {
                    Value::Date(Date::default())
                } else {
                    Value::DateTime(DateTime::default())
                };
                // Strict: 1292; otherwise MariaDB stores the zero date and warns 1265.
                let message = if strict {
                    incorrect_temporal(kind, &value, &column_name(), row)
                } else {
                    truncated(&column_name(), row)
                };
                return complain(strict, session, message, zero);
            };
            Ok(match column {
                DataType::Date => {
                    // MariaDB notes a time of day dropped, but not a fraction alone.
                    if (dt.hour, dt.minute, dt.second) != (0, 0, 0) {
                        let (code, message) = truncated(&column_name(), row);
                        session.note(code, message);
                    }
                    Value::Date(dt.date)
                }
                DataType::DateTime { fsp } | DataType::Timestamp { fsp } => {
                    let unit = 10u32.pow(6 - (*fsp).min(6) as u32);
                    let dt = DateTime {
                        microsecond: dt.microsecond / unit * unit,
                        ..dt
                    };
                    if matches!(column, DataType::Timestamp { .. })
                        && !in_timestamp_range(&session.time_zone().to_utc(dt))
                    {
                        // Strict: 1292; otherwise MariaDB stores the zero datetime and
                        // warns 1264.
                        let message = if strict {
                            incorrect_temporal(kind, &value, &column_name(), row)
                        } else {
                            out_of_range(&column_name(), row)
                        };
                        let zero = Value::DateTime(DateTime::default());
                        return complain(strict, session, message, zero);
                    }
                    Value::DateTime(dt)
                }
                _ => Value::DateTime(dt),
            })
        }
        DataType::Time { fsp } => store_time(&value, *fsp, &column_name, row, strict, session),
    }
}

/// Store assignment into a TIME(fsp) column: strict mode refuses anything that is not
/// exactly a time (1292); otherwise an invalid value stores 00:00:00 with 1265 and an out
/// of range one its bound with 1264. A datetime keeps its time of day with a note.
fn store_time(
    value: &Value,
    fsp: u8,
    column_name: &dyn Fn() -> String,
    row: u64,
    strict: bool,
    session: &dyn SessionContext,
) -> Result<Value> {
    let parsed = match value {
        Value::Time(t) => Some(ParsedTime::exact(*t)),
        Value::Date(_) | Value::DateTime(_) => {
            let (code, message) = truncated(&column_name(), row);
            session.note(code, message);
            return Ok(Value::Time(
                time::to_time(value, session)
                    .unwrap_or_default()
                    .truncate(fsp),
            ));
        }
        Value::Bytes(b) => time::parse_time(b),
        number => time::number_to_time(number),
    };
    let incorrect = || {
        (
            ErrorCode::TruncatedWrongValue,
            format!(
                "Incorrect time value: '{}' for column {} at row {row}",
                warning_text(value),
                quoted_name(&column_name())
            ),
        )
    };
    let Some(parsed) = parsed else {
        let message = if strict {
            incorrect()
        } else {
            truncated(&column_name(), row)
        };
        return complain(strict, session, message, Value::Time(Time::default()));
    };
    let stored = Value::Time(parsed.time.truncate(fsp));
    if parsed.clipped || parsed.trailing {
        let message = if strict {
            incorrect()
        } else if parsed.clipped {
            out_of_range(&column_name(), row)
        } else {
            truncated(&column_name(), row)
        };
        return complain(strict, session, message, stored);
    }
    if parsed.from_datetime || parsed.fraction_cut {
        let (code, message) = truncated(&column_name(), row);
        session.note(code, message);
    }
    Ok(stored)
}

fn truncate_utf8(text: &str, max_bytes: usize) -> String {
    let mut end = max_bytes.min(text.len());
    while end > 0 && !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

/// Rounds to `scale` (half away from zero) and clamps to DECIMAL(precision, scale),
/// whose least value is 0 if unsigned; returns whether it had to clamp.
fn clamp_decimal(d: Decimal, precision: u8, scale: u8, unsigned: bool) -> (Decimal, bool) {
    let max = Decimal::max_of(precision.saturating_sub(scale) as u32, scale as u32);
    let min = if unsigned {
        Decimal::ZERO.rescale(scale as u32).unwrap_or_default()
    } else {
        -max
    };
    let clamped = if d.is_sign_negative() { min } else { max };
    // UNSIGNED refuses every negative value, even one that rounds to zero (MariaDB).
    let negative = unsigned && d < Decimal::ZERO;
    match d.rescale(scale as u32) {
        Some(r) if !negative && r <= max && r >= min => (r, false),
        _ => (clamped, true),
    }
}

/// The constant `value` in the column's key representation, only if the conversion is
/// exact (module invariant (2)).
pub fn exact_key_value(value: &Value, column: &DataType) -> Option<Value> {
    if value.is_null() {
        return None;
    }
    match column {
        DataType::Int { width, unsigned } => {
            let i: i128 = match value {
                Value::Int(i) => *i as i128,
                Value::UInt(u) => *u as i128,
                Value::Decimal(d) if d.fract().is_zero() => d.to_i128()?,
                Value::Double(f) if f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15 => {
                    *f as i128
                }
                Value::Bytes(b) => {
                    let text = std::str::from_utf8(b).ok()?.trim();
                    let d = coerce::parse_decimal_text(text)?;
                    if text.is_empty() || !d.fract().is_zero() || text.contains(['e', 'E']) {
                        return None;
                    }
                    d.to_i128()?
                }
                _ => return None,
            };
            let (min, max, umax) = width.bounds();
            if *unsigned {
                (0..=umax as i128)
                    .contains(&i)
                    .then_some(Value::UInt(i as u64))
            } else {
                (min as i128..=max as i128)
                    .contains(&i)
                    .then_some(Value::Int(i as i64))
            }
        }
        DataType::Decimal {
            precision, scale, ..
        } => {
            let d = match value {
                Value::Int(i) => Decimal::from(*i),
                Value::UInt(u) => Decimal::from(*u),
                Value::Decimal(d) => *d,
                Value::Double(f) => {
                    let d = Decimal::from_f64(*f)?;
                    if d.to_f64() != *f {
                        return None;
                    }
                    d
                }
                Value::Bytes(b) => {
                    let text = std::str::from_utf8(b).ok()?.trim();
                    if text.is_empty() || text.contains(['e', 'E']) {
                        return None;
                    }
                    coerce::parse_decimal_text(text)?
                }
                _ => return None,
            };
            let r = d.rescale(*scale as u32)?;
            let max = Decimal::max_of(precision.saturating_sub(*scale) as u32, *scale as u32);
            (r == d && r.abs() <= max).then_some(Value::Decimal(r))
        }
        DataType::Float { .. } | DataType::Double { .. } => {
            let f = match value {
                Value::Int(i) => {
                    let f = *i as f64;
                    (f as i128 == *i as i128).then_some(f)?
                }
                Value::UInt(u) => {
                    let f = *u as f64;
                    (f as u128 == *u as u128).then_some(f)?
                }
                Value::Double(f) => *f,
                Value::Decimal(d) => {
                    let f = d.to_f64();
                    (Decimal::from_f64(f)? == *d).then_some(f)?
                }
                _ => return None,
            };
            if matches!(column, DataType::Float { .. }) && (f as f32) as f64 != f {
                return None;
            }
            Some(Value::Double(f))
        }
        DataType::Char { .. } | DataType::VarChar { .. } | DataType::Text { .. } => match value {
            Value::Bytes(b) => Some(Value::Bytes(b.clone())),
            _ => None,
        },
        DataType::Binary { length } => match value {
            Value::Bytes(b) if b.len() <= *length as usize => {
                let mut b = b.clone();
                b.resize(*length as usize, 0);
                Some(Value::Bytes(b))
            }
            _ => None,
        },
        DataType::VarBinary { .. } | DataType::Blob { .. } => match value {
            Value::Bytes(b) => Some(Value::Bytes(b.clone())),
            _ => None,
        },
        DataType::Date => {
            let dt = temporal_constant(value)?;
            let midnight = dt.hour == 0 && dt.minute == 0 && dt.second == 0 && dt.microsecond == 0;
            midnight.then_some(Value::Date(dt.date))
        }
        DataType::DateTime { fsp } | DataType::Timestamp { fsp } => {
            let dt = temporal_constant(value)?;
            let unit = 10u32.pow(6 - (*fsp).min(6) as u32);
            (dt.microsecond % unit == 0).then_some(Value::DateTime(dt))
        }
        DataType::Time { fsp } => {
            let parsed = match value {
                Value::Time(t) => ParsedTime::exact(*t),
                Value::Bytes(b) => time::parse_time(b)?,
                Value::Int(_) | Value::UInt(_) | Value::Decimal(_) => time::number_to_time(value)?,
                _ => return None,
            };
            let exact = !parsed.clipped
                && !parsed.trailing
                && !parsed.from_datetime
                && !parsed.fraction_cut;
            (exact && parsed.time.truncate(*fsp) == parsed.time).then_some(Value::Time(parsed.time))
        }
        // A string compares with an ENUM or SET as a string; a number compares with its
        // position or bitmask, which the key (the member's text) does not order by: such
        // a comparison scans. Keys ordered by position are not built (README Status).
        DataType::Enum { .. } | DataType::Set { .. } => match value {
            Value::Bytes(b) => Some(Value::Bytes(b.clone())),
            _ => None,
        },
        DataType::Null => None,
    }
}

fn temporal_constant(value: &Value) -> Option<DateTime> {
    match value {
        Value::Date(d) => Some(DateTime::from_date(*d)),
        Value::DateTime(dt) => Some(*dt),
        Value::Bytes(b) => parse_datetime(b).map(|p| p.datetime),
        _ => None,
    }
}

/// A DOUBLE(M,D) column's value: `d` with its fraction rounded to D digits (half to
/// even, as C's `rint`, which makes -0.00005 in DOUBLE(10,4) a positive 0), and whether it
/// is within +-(10^(M-D) - 10^-D); out of range it is clamped to that bound.
fn fit_double(d: f64, precision: u8, decimals: u8) -> (f64, bool) {
    let scale = 10f64.powi(i32::from(decimals));
    let whole = d.floor();
    let rounded = if d.is_finite() {
        whole + ((d - whole) * scale).round_ties_even() / scale
    } else {
        d
    };
    let bound = 10f64.powi(i32::from(precision) - i32::from(decimals)) - 1.0 / scale;
    if rounded.abs() > bound {
        return (bound.copysign(rounded), false);
    }
    (rounded, true)
}

/// Total order of values of one expression type for ORDER BY, MIN and MAX: NULL first,
/// strings by `collation`, numbers by value, dates chronologically.
pub fn compare_values(a: &Value, b: &Value, collation: Collation) -> Ordering {
    match (a, b) {
        (Value::Null, Value::Null) => Ordering::Equal,
        (Value::Null, _) => Ordering::Less,
        (_, Value::Null) => Ordering::Greater,
        (Value::Bytes(x), Value::Bytes(y)) => collation.compare(x, y),
        (Value::Double(x), Value::Double(y)) => x.total_cmp(y),
        (
            Value::Int(_) | Value::UInt(_) | Value::Decimal(_),
            Value::Int(_) | Value::UInt(_) | Value::Decimal(_),
        ) => compare_exact(a, b),
        (Value::Date(x), Value::Date(y)) => x.cmp(y),
        (Value::Date(_) | Value::DateTime(_), Value::Date(_) | Value::DateTime(_)) => {
            as_datetime(a).cmp(&as_datetime(b))
        }
        (Value::Time(x), Value::Time(y)) => x.cmp(y),
        _ => {
            // Mixed representations (nominal types): numbers before strings before dates,
            // numbers compared as doubles.
            let (ra, rb) = (rank(a), rank(b));
            if ra != rb {
                return ra.cmp(&rb);
            }
            let fa = number_f64(a);
            let fb = number_f64(b);
            fa.total_cmp(&fb)
        }
    }
}

fn rank(v: &Value) -> u8 {
    match v {
        Value::Null => 0,
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) => 1,
        Value::Bytes(_) => 2,
        Value::Date(_) | Value::DateTime(_) => 3,
        Value::Time(_) => 4,
    }
}

fn number_f64(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::UInt(u) => *u as f64,
        Value::Decimal(d) => d.to_f64(),
        Value::Double(d) => *d,
        _ => 0.0,
    }
}

fn as_datetime(v: &Value) -> DateTime {
    match v {
        Value::Date(d) => DateTime::from_date(*d),
        Value::DateTime(dt) => *dt,
        _ => DateTime::default(),
    }
}

const KEY_NULL: u8 = 0x00;
const KEY_EXACT: u8 = 0x02;
const KEY_DOUBLE: u8 = 0x03;
const KEY_STRING: u8 = 0x04;
const KEY_TEMPORAL: u8 = 0x05;
const KEY_TIME: u8 = 0x06;

/// Appends a memcomparable key of `value` (module invariant (3)). Layout, after a class
/// byte (NULL 0x00 < exact 0x02 < double 0x03 < string 0x04 < temporal 0x05 < time 0x06):
///   exact numbers  normalized decimal: 0x80 for zero; positive 0x81, u16 (exponent +
///                  0x8000), ASCII digits, 0x00; negative 0x7F and all of that inverted
///   double         IEEE bits, flipped so byte order is numeric order (-0 == 0)
///   string         collation weight with 0x00 escaped as 0x00 0xFF, ended by 0x00 0x00
///   date/datetime  year u16, month, day, hour, minute, second, microsecond u32
///   time           microseconds as i64 big-endian with the sign bit flipped
pub fn sort_key(value: &Value, data_type: &DataType, out: &mut Vec<u8>) {
    match value {
        Value::Null => out.push(KEY_NULL),
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_)
            if matches!(data_type, DataType::Double { .. } | DataType::Float { .. }) =>
        {
            double_key(number_f64(value), out)
        }
        Value::Int(i) => decimal_key(Decimal::from(*i), out),
        Value::UInt(u) => decimal_key(Decimal::from(*u), out),
        Value::Decimal(d) => decimal_key(*d, out),
        Value::Double(d) => double_key(*d, out),
        Value::Bytes(b) => {
            out.push(KEY_STRING);
            let collation = if data_type.is_string() {
                string_collation(data_type)
            } else {
                Collation::Binary
            };
            let mut weight = Vec::with_capacity(b.len());
            collation.append_weight(b, &mut weight);
            for byte in weight {
                out.push(byte);
                if byte == 0 {
                    out.push(0xFF);
                }
            }
            out.extend_from_slice(&[0, 0]);
        }
        Value::Date(_) | Value::DateTime(_) => {
            let dt = as_datetime(value);
            out.push(KEY_TEMPORAL);
            out.extend_from_slice(&dt.date.year.to_be_bytes());
            out.extend_from_slice(&[dt.date.month, dt.date.day, dt.hour, dt.minute, dt.second]);
            out.extend_from_slice(&dt.microsecond.to_be_bytes());
        }
        Value::Time(t) => {
            out.push(KEY_TIME);
            out.extend_from_slice(&((t.microseconds() as u64) ^ (1 << 63)).to_be_bytes());
        }
    }
}

fn double_key(d: f64, out: &mut Vec<u8>) {
    out.push(KEY_DOUBLE);
    let d = if d == 0.0 { 0.0 } else { d };
    let bits = d.to_bits();
    let ordered = if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    };
    out.extend_from_slice(&ordered.to_be_bytes());
}

fn decimal_key(d: Decimal, out: &mut Vec<u8>) {
    out.push(KEY_EXACT);
    if d.is_zero() {
        out.push(0x80);
        return;
    }
    let negative = d.is_sign_negative();
    // Significant digits without leading or trailing zeros, so 1.5 and 1.50 agree.
    let text = d.abs().to_string();
    let (int, fraction) = text.split_once('.').unwrap_or((&text, ""));
    let all = format!("{int}{fraction}");
    let leading_zeros = all.len() - all.trim_start_matches('0').len();
    let digits = all.trim_matches('0');
    let exponent = int.len() as i32 - leading_zeros as i32;
    let e = (exponent + 0x8000) as u16;
    let mut body = Vec::with_capacity(digits.len() + 3);
    body.extend_from_slice(&e.to_be_bytes());
    body.extend_from_slice(digits.as_bytes());
    body.push(0x00);
    if negative {
        out.push(0x7F);
        out.extend(body.iter().map(|b| !b));
    } else {
        out.push(0x81);
        out.extend_from_slice(&body);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(v: &Value, t: &DataType) -> Vec<u8> {
        let mut out = Vec::new();
        sort_key(v, t, &mut out);
        out
    }

    #[test]
    fn sort_keys_order_and_equate() {
        let dec = |s: &str| Value::Decimal(s.parse().expect("decimal literal"));
        let t = DataType::Decimal {
            precision: 20,
            scale: 4,
            unsigned: false,
        };
        let ordered = [
            Value::Null,
            dec("-100"),
            dec("-12.5"),
            dec("-12.25"),
            dec("-1"),
            dec("-0.5"),
            dec("0"),
            dec("0.001"),
            dec("0.5"),
            dec("1"),
            dec("1.25"),
            dec("9"),
            dec("10"),
            dec("123.4"),
        ];
        let keys: Vec<_> = ordered.iter().map(|v| key(v, &t)).collect();
        for w in keys.windows(2) {
            assert!(w[0] < w[1], "{w:?}");
        }
        assert_eq!(key(&dec("1.0"), &t), key(&dec("1.00"), &t));
        assert_eq!(key(&Value::Int(1), &t), key(&dec("1.00"), &t));
        let s = DataType::varchar(10);
        assert_eq!(key(&Value::text("abc"), &s), key(&Value::text("ABC "), &s));
        let d = DataType::DOUBLE;
        assert_eq!(key(&Value::Double(0.0), &d), key(&Value::Double(-0.0), &d));
        assert!(key(&Value::Double(-1.0), &d) < key(&Value::Double(0.5), &d));
    }
}
