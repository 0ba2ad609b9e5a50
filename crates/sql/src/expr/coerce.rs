//! Conversions between value representations with MySQL's rules: strings to numbers
//! (longest numeric prefix, warning 1292 when something was cut off), numbers to strings
//! (`manycore_types::format`), anything to DATE/DATETIME, and the comparison rules that
//! pick how two values of possibly different types compare.
//!
//! Invariants:
//! (1) Nothing here panics on any input; a bad string converts to 0 (numbers) or NULL
//!     (dates) plus a warning, as MariaDB does in a SELECT.
//! (2) `compare` is the one comparison rule: `=`, `<`, IN, BETWEEN, CASE x WHEN,
//!     NULLIF, GREATEST/LEAST all go through it.

use super::function::UBIGINT;
use super::{temporal, time, SessionContext};
use crate::error::{Error, ErrorCode};
use manycore_types::enumset;
use manycore_types::format::{to_text, write_text};
use manycore_types::{Collation, DataType, Date, DateTime, Decimal, Value, NOT_FIXED_DECIMALS};
use std::cmp::Ordering;

/// The text of a value in a warning message: strings as they are, others formatted.
pub fn warning_text(value: &Value) -> String {
    match value {
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        other => to_text(other, &DataType::Null),
    }
}

/// Length of the longest prefix of `s` (after leading spaces) that reads as a number:
/// `[+-]digits[.digits][e[+-]digits]`. Returns (start, end, has_fraction_or_exponent).
fn numeric_prefix(s: &[u8]) -> (usize, usize, bool) {
    let mut i = 0;
    while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    let start = i;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        i += 1;
    }
    let digits_start = i;
    while i < s.len() && s[i].is_ascii_digit() {
        i += 1;
    }
    let mut int_digits = i - digits_start;
    let mut inexact = false;
    if i < s.len() && s[i] == b'.' {
        let dot = i;
        i += 1;
        while i < s.len() && s[i].is_ascii_digit() {
            i += 1;
        }
        if i - dot - 1 == 0 && int_digits == 0 {
            return (start, start, false);
        }
        int_digits += i - dot - 1;
        inexact = true;
    }
    if int_digits == 0 {
        return (start, start, false);
    }
    if i < s.len() && (s[i] == b'e' || s[i] == b'E') {
        let mut j = i + 1;
        if j < s.len() && (s[j] == b'+' || s[j] == b'-') {
            j += 1;
        }
        let exp_start = j;
        while j < s.len() && s[j].is_ascii_digit() {
            j += 1;
        }
        if j > exp_start {
            i = j;
            inexact = true;
        }
    }
    (start, i, inexact)
}

fn only_spaces(s: &[u8]) -> bool {
    s.iter().all(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
}

/// Reports what follows the number read from `s` (1292): a warning when there was no
/// number or other text follows, a note when only spaces follow (MariaDB 10.11 notes
/// trailing spaces; leading ones pass silently).
fn check_number_end(session: &dyn SessionContext, kind: &str, s: &[u8], found: bool, rest: &[u8]) {
    let message = || {
        format!(
            "Truncated incorrect {kind} value: '{}'",
            String::from_utf8_lossy(s)
        )
    };
    if !found || !only_spaces(rest) {
        session.warn(ErrorCode::TruncatedWrongValue, message());
    } else if !rest.is_empty() {
        session.note(ErrorCode::TruncatedWrongValue, message());
    }
}

/// String to DOUBLE: the numeric prefix, warning if anything but spaces follows.
pub fn str_to_f64(s: &[u8], session: &dyn SessionContext) -> f64 {
    let (start, end, _) = numeric_prefix(s);
    check_number_end(session, "DOUBLE", s, start < end, &s[end..]);
    std::str::from_utf8(&s[start..end])
        .ok()
        .and_then(|t| t.parse::<f64>().ok())
        .unwrap_or(0.0)
}

/// String to DECIMAL: the numeric prefix (exponents applied), warning if cut.
pub fn str_to_decimal(s: &[u8], session: &dyn SessionContext) -> Decimal {
    let (start, end, _) = numeric_prefix(s);
    check_number_end(session, "DECIMAL", s, start < end, &s[end..]);
    let text = std::str::from_utf8(&s[start..end]).unwrap_or("0");
    parse_decimal_text(text).unwrap_or_default()
}

/// String to DECIMAL without a warning (store assignment reports its own error).
pub fn str_to_decimal_quiet(s: &[u8]) -> Decimal {
    let (start, end, _) = numeric_prefix(s);
    let text = std::str::from_utf8(&s[start..end]).unwrap_or("0");
    parse_decimal_text(text).unwrap_or_default()
}

/// Parses "[-]digits[.digits][e[-]digits]" exactly (fraction digits past 65 digits are
/// rounded away); None if the integer part needs more than 65 digits.
pub fn parse_decimal_text(text: &str) -> Option<Decimal> {
    if text.is_empty() {
        return Some(Decimal::ZERO);
    }
    let text = text.strip_prefix('+').unwrap_or(text);
    // MySQL accepts "5." and ".5"; the decimal parser wants digits on both sides.
    let (sign, unsigned) = match text.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", text),
    };
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => unsigned.split_at(at),
        None => (unsigned, ""),
    };
    let mantissa = mantissa.strip_suffix('.').unwrap_or(mantissa);
    let zero = if mantissa.starts_with('.') { "0" } else { "" };
    Decimal::parse(&format!("{sign}{zero}{mantissa}{exponent}"))
}

/// String to a signed integer for integer contexts (CAST AS SIGNED, bit operations,
/// LEFT's length...): the integer prefix, warning if anything else follows.
/// Saturates at the i64 bounds. Returns the value as i128 so callers can apply
/// unsigned wrap-around.
pub fn str_to_i128(s: &[u8], session: &dyn SessionContext) -> i128 {
    let mut i = 0;
    while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    let start = i;
    let negative = i < s.len() && s[i] == b'-';
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        i += 1;
    }
    let digits_start = i;
    let mut value: i128 = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        value = (value * 10 + (s[i] - b'0') as i128).min(u64::MAX as i128 + 1);
        i += 1;
    }
    check_number_end(session, "INTEGER", s, i > digits_start, &s[i..]);
    let _ = start;
    if negative {
        (-value).max(i64::MIN as i128)
    } else {
        value.min(u64::MAX as i128)
    }
}

/// Any value as DOUBLE (None for NULL).
pub fn to_f64(value: &Value, session: &dyn SessionContext) -> Option<f64> {
    Some(match value {
        Value::Null => return None,
        Value::Int(i) => *i as f64,
        Value::UInt(u) => *u as f64,
        Value::Double(d) => *d,
        Value::Decimal(d) => d.to_f64(),
        Value::Bytes(b) => str_to_f64(b, session),
        Value::Date(d) => date_number(d) as f64,
        Value::DateTime(dt) => datetime_number(dt) as f64 + dt.microsecond as f64 / 1_000_000.0,
        Value::Time(t) => time::time_decimal(t).to_f64(),
    })
}

/// Any value as DECIMAL (None for NULL). Doubles convert through their shortest text.
pub fn to_decimal(value: &Value, session: &dyn SessionContext) -> Option<Decimal> {
    Some(match value {
        Value::Null => return None,
        Value::Int(i) => Decimal::from(*i),
        Value::UInt(u) => Decimal::from(*u),
        Value::Double(d) => double_to_decimal(*d),
        Value::Decimal(d) => *d,
        Value::Bytes(b) => str_to_decimal(b, session),
        Value::Date(d) => Decimal::from(date_number(d)),
        Value::DateTime(dt) => {
            if dt.microsecond == 0 {
                Decimal::from(datetime_number(dt))
            } else {
                let micros = datetime_number(dt) as i128 * 1_000_000 + dt.microsecond as i128;
                Decimal::from_i128_with_scale(micros, 6).expect("a datetime fits 65 digits")
            }
        }
        Value::Time(t) => time::time_decimal(t),
    })
}

pub fn double_to_decimal(d: f64) -> Decimal {
    if !d.is_finite() {
        return Decimal::ZERO;
    }
    Decimal::from_f64(d).unwrap_or({
        let max = Decimal::max_of(65, 0);
        if d > 0.0 {
            max
        } else {
            -max
        }
    })
}

/// An integer view of a value: Int/UInt exactly, DECIMAL rounded half away from zero,
/// DOUBLE rounded half to even (as MySQL's rint), strings by their integer prefix.
/// i128 so both the signed and unsigned range fit; saturated at the 64-bit bounds.
pub fn to_i128(value: &Value, session: &dyn SessionContext) -> Option<i128> {
    Some(match value {
        Value::Null => return None,
        Value::Int(i) => *i as i128,
        Value::UInt(u) => *u as i128,
        Value::Double(d) => double_to_i128(*d),
        Value::Decimal(d) => decimal_to_i128(d),
        Value::Bytes(b) => str_to_i128(b, session),
        Value::Date(d) => date_number(d) as i128,
        Value::DateTime(dt) => datetime_number(dt) as i128,
        Value::Time(t) => decimal_to_i128(&time::time_decimal(t)),
    })
}

pub fn double_to_i128(d: f64) -> i128 {
    if d.is_nan() {
        return 0;
    }
    let r = d.round_ties_even();
    r.clamp(i64::MIN as f64, u64::MAX as f64) as i128
}

pub fn decimal_to_i128(d: &Decimal) -> i128 {
    d.round(0)
        .and_then(Decimal::to_i128)
        .unwrap_or(if d.is_sign_negative() {
            i64::MIN as i128
        } else {
            u64::MAX as i128
        })
        .clamp(i64::MIN as i128, u64::MAX as i128)
}

/// Any value as a signed 64-bit integer, saturating (used for lengths, positions, counts).
pub fn to_i64(value: &Value, session: &dyn SessionContext) -> Option<i64> {
    to_i128(value, session).map(|v| v.clamp(i64::MIN as i128, i64::MAX as i128) as i64)
}

/// Any value as unsigned 64 bits, two's complement for negatives (bit operations).
pub fn to_u64_bits(value: &Value, session: &dyn SessionContext) -> Option<u64> {
    Some(match value {
        Value::Double(d) => {
            let r = d.round_ties_even();
            if r < 0.0 {
                (r.max(i64::MIN as f64) as i64) as u64
            } else {
                r.min(u64::MAX as f64) as u64
            }
        }
        other => {
            let v = to_i128(other, session)?;
            if v < 0 {
                v as i64 as u64
            } else {
                v as u64
            }
        }
    })
}

/// The bytes of a value as a string (numbers and dates formatted as MariaDB prints them).
pub fn to_bytes(value: &Value, data_type: &DataType) -> Option<Vec<u8>> {
    match value {
        Value::Null => None,
        Value::Bytes(b) => Some(b.clone()),
        other => {
            let mut out = Vec::new();
            write_text(other, data_type, &mut out);
            Some(out)
        }
    }
}

/// YYYYMMDD as a number.
pub fn date_number(d: &Date) -> i64 {
    d.year as i64 * 10_000 + d.month as i64 * 100 + d.day as i64
}

/// YYYYMMDDhhmmss as a number.
pub fn datetime_number(dt: &DateTime) -> i64 {
    date_number(&dt.date) * 1_000_000
        + dt.hour as i64 * 10_000
        + dt.minute as i64 * 100
        + dt.second as i64
}

/// Result of parsing a date/time string: the value and whether it had a time part.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParsedTemporal {
    pub datetime: DateTime,
    pub has_time: bool,
    /// Number of fraction digits written in the text.
    pub fraction_digits: u8,
}

/// Parses MySQL's date/datetime text forms: 'YYYY-MM-DD[ hh:mm:ss[.ffffff]]' with any
/// punctuation as delimiter and 'T' or spaces between date and time, 2-digit years
/// (70..99 -> 19xx), and the delimiter-free 'YYYYMMDD[hhmmss]' / 'YYMMDD[hhmmss]'.
/// Trailing garbage after a complete date is ignored (MariaDB warns). None if invalid
/// (including impossible dates like 2024-02-30; zero dates and zero parts are allowed).
pub fn parse_datetime(s: &[u8]) -> Option<ParsedTemporal> {
    let text = std::str::from_utf8(s).ok()?.trim();
    if text.is_empty() {
        return None;
    }
    let bytes = text.as_bytes();
    let first_run = bytes.iter().take_while(|c| c.is_ascii_digit()).count();
    let (mut parts, mut fraction, mut fraction_digits, has_time);
    if first_run == bytes.len() || (first_run >= 6 && bytes.get(first_run) == Some(&b'.')) {
        // Delimiter-free digits.
        let digits = &text[..first_run];
        let (year_len, total) = match digits.len() {
            6 => (2, 6),
            8 => (4, 8),
            12 => (2, 12),
            14 => (4, 14),
            _ => return None,
        };
        let mut fields = vec![digits[..year_len].parse::<u32>().ok()?];
        let mut i = year_len;
        while i < total {
            fields.push(digits[i..i + 2].parse::<u32>().ok()?);
            i += 2;
        }
        has_time = fields.len() > 3;
        if year_len == 2 {
            fields[0] += if fields[0] < 70 { 2000 } else { 1900 };
        }
        parts = fields;
        fraction = 0;
        fraction_digits = 0;
        if has_time && bytes.get(first_run) == Some(&b'.') {
            let frac: String = text[first_run + 1..]
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            (fraction, fraction_digits) = parse_fraction(&frac);
        }
    } else {
        // Delimited: numbers separated by punctuation; date/time split at 'T' or space.
        parts = Vec::new();
        fraction = 0;
        fraction_digits = 0;
        let mut i = 0;
        let mut year_digits = 0;
        while i < bytes.len() && parts.len() < 6 {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            if i == start {
                break;
            }
            if parts.is_empty() {
                year_digits = i - start;
            }
            parts.push(text[start..i].parse::<u32>().ok()?);
            if parts.len() == 6 {
                break;
            }
            if i >= bytes.len() {
                break;
            }
            let c = bytes[i];
            if parts.len() == 3 {
                if c == b'T' || c == b' ' {
                    while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'T') {
                        i += 1;
                    }
                    continue;
                }
                break;
            }
            if c.is_ascii_punctuation() {
                i += 1;
            } else {
                break;
            }
        }
        if parts.len() == 6 && i < bytes.len() && bytes[i] == b'.' {
            let frac: String = text[i + 1..]
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            (fraction, fraction_digits) = parse_fraction(&frac);
        }
        if parts.len() < 3 || parts.len() == 4 {
            return None;
        }
        has_time = parts.len() > 3;
        if year_digits <= 2 {
            parts[0] += if parts[0] < 70 { 2000 } else { 1900 };
        }
        while parts.len() < 6 {
            parts.push(0);
        }
    }
    while parts.len() < 6 {
        parts.push(0);
    }
    let (year, month, day) = (parts[0], parts[1], parts[2]);
    let (hour, minute, second) = (parts[3], parts[4], parts[5]);
    if year > 9999 || month > 12 || hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let date = Date {
        year: year as u16,
        month: month as u8,
        day: day as u8,
    };
    if day > 31 || (month != 0 && day > Date::days_in_month(date.year, date.month) as u32) {
        return None;
    }
    Some(ParsedTemporal {
        datetime: DateTime {
            date,
            hour: hour as u8,
            minute: minute as u8,
            second: second as u8,
            microsecond: fraction,
        },
        has_time,
        fraction_digits,
    })
}

fn parse_fraction(digits: &str) -> (u32, u8) {
    let taken: String = digits.chars().take(6).collect();
    let n = taken.len();
    if n == 0 {
        return (0, 0);
    }
    let value: u32 = taken.parse().unwrap_or(0);
    (value * 10u32.pow(6 - n as u32), n as u8)
}

/// A number as YYYYMMDD or YYYYMMDDhhmmss (and 2-digit-year forms), as MySQL reads it.
pub fn number_to_datetime(n: i128) -> Option<ParsedTemporal> {
    if n < 0 {
        return None;
    }
    if n == 0 {
        return Some(ParsedTemporal {
            datetime: DateTime::default(),
            has_time: false,
            fraction_digits: 0,
        });
    }
    let text = n.to_string();
    let padded = match text.len() {
        5 | 7 | 11 | 13 => format!("0{text}"),
        _ => text,
    };
    parse_datetime(padded.as_bytes())
}

fn bad_datetime(session: &dyn SessionContext, value: &Value) {
    session.warn(
        ErrorCode::TruncatedWrongValue,
        format!("Incorrect datetime value: '{}'", warning_text(value)),
    );
}

/// Any value as DATETIME (NULL plus warning 1292 when it is not a valid date).
pub fn to_datetime(value: &Value, session: &dyn SessionContext) -> Option<DateTime> {
    to_temporal(value, session).map(|p| p.datetime)
}

/// Any value as a parsed date/time, keeping whether a time part was present.
pub fn to_temporal(value: &Value, session: &dyn SessionContext) -> Option<ParsedTemporal> {
    let parsed = match value {
        Value::Null => return None,
        Value::Date(d) => {
            return Some(ParsedTemporal {
                datetime: DateTime::from_date(*d),
                has_time: false,
                fraction_digits: 0,
            })
        }
        Value::DateTime(dt) => {
            return Some(ParsedTemporal {
                datetime: *dt,
                has_time: true,
                fraction_digits: 6,
            })
        }
        Value::Bytes(b) => parse_datetime(b),
        // A TIME is a time of the current day (MariaDB's TIME to DATETIME conversion).
        Value::Time(t) => {
            let micros =
                temporal::to_micros(&DateTime::from_date(session.local_statement_time().date))
                    .and_then(|day| temporal::from_micros(day + t.microseconds() as i128));
            return micros.map(|datetime| ParsedTemporal {
                datetime,
                has_time: true,
                fraction_digits: 6,
            });
        }
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) => {
            to_i128(value, session).and_then(number_to_datetime)
        }
    };
    if parsed.is_none() {
        bad_datetime(session, value);
    }
    parsed
}

/// How two values compare, chosen from their types as MySQL does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareKind {
    /// Both strings: by the collation (binary if either side is a binary string).
    String(Collation),
    /// Both exact numbers (integers, DECIMAL).
    Exact,
    /// Anything involving DOUBLE, or a string against a number.
    Double,
    /// A date/time against a date/time or a string.
    Temporal,
    /// A TIME against a TIME, a string or a number (MariaDB compares as TIME).
    Time,
}

/// The collation of a string-typed operand; parameters and NULL-typed operands are
/// character strings (utf8mb4_general_ci).
pub fn string_collation(t: &DataType) -> Collation {
    match t {
        DataType::Binary { .. } | DataType::VarBinary { .. } | DataType::Blob { .. } => {
            Collation::Binary
        }
        DataType::Char { collation, .. }
        | DataType::VarChar { collation, .. }
        | DataType::Text { collation, .. } => *collation,
        _ => Collation::Utf8mb4GeneralCi,
    }
}

/// The collation two strings compare under: binary if either is a binary string, else
/// utf8mb4_bin if either is, as MariaDB for operands of equal derivation; the binder
/// makes this the operands' aggregate collation otherwise (`collate` invariant (1)).
pub fn combined_collation(a: Collation, b: Collation) -> Collation {
    [Collation::Binary, Collation::Utf8mb4Bin]
        .into_iter()
        .find(|&strict| a == strict || b == strict)
        .unwrap_or(Collation::Utf8mb4GeneralCi)
}

/// The collation a pattern match (LIKE, REGEXP) runs under: the strings' combined
/// collation (numbers and times match as their text, in utf8mb4_general_ci).
pub fn match_collation(text: &DataType, pattern: &DataType) -> Collation {
    let of = |t: &DataType| {
        if t.is_string() {
            string_collation(t)
        } else {
            Collation::Utf8mb4GeneralCi
        }
    };
    combined_collation(of(text), of(pattern))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Str,
    Exact,
    Double,
    Temporal,
    Time,
    Null,
}

fn class_of(value: &Value) -> Class {
    match value {
        Value::Null => Class::Null,
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) => Class::Exact,
        Value::Double(_) => Class::Double,
        Value::Bytes(_) => Class::Str,
        Value::Date(_) | Value::DateTime(_) => Class::Temporal,
        Value::Time(_) => Class::Time,
    }
}

/// Picks the comparison for two non-NULL values with the given static types.
pub fn compare_kind(a: &Value, at: &DataType, b: &Value, bt: &DataType) -> CompareKind {
    match (class_of(a), class_of(b)) {
        (Class::Str, Class::Str) => CompareKind::String(combined_collation(
            string_collation(at),
            string_collation(bt),
        )),
        (Class::Exact, Class::Exact) => CompareKind::Exact,
        (Class::Time, Class::Time | Class::Str | Class::Exact | Class::Double)
        | (Class::Str | Class::Exact | Class::Double, Class::Time) => CompareKind::Time,
        (Class::Temporal | Class::Time, Class::Temporal | Class::Str | Class::Time)
        | (Class::Str, Class::Temporal) => CompareKind::Temporal,
        _ => CompareKind::Double,
    }
}

/// The number an ENUM or SET cell reads as in a numeric context (its position or bitmask,
/// `manycore_types::enumset`); any other value as it is.
pub fn enum_set_number(value: Value, t: &DataType) -> Value {
    match (t, &value) {
        (DataType::Enum { members, collation }, Value::Bytes(b)) => {
            Value::UInt(enumset::enum_number(members, *collation, b))
        }
        (DataType::Set { members, collation }, Value::Bytes(b)) => {
            Value::UInt(enumset::set_number(members, *collation, b))
        }
        _ => value,
    }
}

fn is_number(v: &Value) -> bool {
    matches!(
        v,
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_)
    )
}

/// SQL comparison of two values: None if either is NULL. An ENUM or SET compared with a
/// number compares its position or bitmask; with anything else, its text.
pub fn compare(
    a: &Value,
    at: &DataType,
    b: &Value,
    bt: &DataType,
    session: &dyn SessionContext,
) -> Option<Ordering> {
    if a.is_null() || b.is_null() {
        return None;
    }
    if at.members().is_some() && is_number(b) {
        return compare(&enum_set_number(a.clone(), at), &UBIGINT, b, bt, session);
    }
    if bt.members().is_some() && is_number(a) {
        return compare(a, at, &enum_set_number(b.clone(), bt), &UBIGINT, session);
    }
    Some(match compare_kind(a, at, b, bt) {
        CompareKind::String(collation) => {
            collation.compare(a.as_bytes().unwrap_or(b""), b.as_bytes().unwrap_or(b""))
        }
        CompareKind::Exact => compare_exact(&at_scale(a, at), &at_scale(b, bt)),
        CompareKind::Temporal => {
            let da = to_datetime(a, session);
            let db = to_datetime(b, session);
            match (da, db) {
                (Some(x), Some(y)) => x.cmp(&y),
                // An unparsable string compares as a string against the date's text.
                _ => {
                    let sa = to_bytes(a, at).unwrap_or_default();
                    let sb = to_bytes(b, bt).unwrap_or_default();
                    sa.cmp(&sb)
                }
            }
        }
        CompareKind::Time => match (time::to_time(a, session), time::to_time(b, session)) {
            (Some(x), Some(y)) => x.cmp(&y),
            _ => return None,
        },
        CompareKind::Double => {
            let x = to_f64(a, session).unwrap_or(0.0);
            let y = to_f64(b, session).unwrap_or(0.0);
            // MariaDB's compare_real_fixed: when both sides have fixed decimals (one is
            // computed from PI()), values closer than half a unit in the last of the more
            // precise side's digits are equal, so PI() = 3.141593 holds.
            let decimals = at.double_decimals().max(bt.double_decimals());
            if decimals < NOT_FIXED_DECIMALS
                && (x - y).abs() < 5.0 / 10f64.powi(i32::from(decimals) + 1)
            {
                Ordering::Equal
            } else {
                x.partial_cmp(&y).unwrap_or(Ordering::Equal)
            }
        }
    })
}

/// A DECIMAL value rounded to its type's scale: MariaDB keeps a quotient's extra digits
/// for arithmetic but compares it at the declared scale (1/3 = 0.3333 is true).
fn at_scale(v: &Value, t: &DataType) -> Value {
    match (v, t) {
        (Value::Decimal(d), DataType::Decimal { scale, .. }) if d.scale() > *scale as u32 => {
            Value::Decimal(d.round(*scale as i32).unwrap_or(*d))
        }
        _ => v.clone(),
    }
}

/// Exact comparison of integers and decimals.
pub fn compare_exact(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::UInt(x), Value::UInt(y)) => x.cmp(y),
        (Value::Int(x), Value::UInt(y)) => (*x as i128).cmp(&(*y as i128)),
        (Value::UInt(x), Value::Int(y)) => (*x as i128).cmp(&(*y as i128)),
        _ => {
            let x = exact_decimal(a);
            let y = exact_decimal(b);
            x.cmp(&y)
        }
    }
}

fn exact_decimal(v: &Value) -> Decimal {
    match v {
        Value::Int(i) => Decimal::from(*i),
        Value::UInt(u) => Decimal::from(*u),
        Value::Decimal(d) => *d,
        _ => Decimal::ZERO,
    }
}

/// SQL truth of a value: numbers non-zero, strings through their numeric prefix,
/// dates non-zero; None for NULL.
pub fn truth(value: &Value, session: &dyn SessionContext) -> Option<bool> {
    Some(match value {
        Value::Null => return None,
        Value::Int(i) => *i != 0,
        Value::UInt(u) => *u != 0,
        Value::Double(d) => *d != 0.0,
        Value::Decimal(d) => !d.is_zero(),
        Value::Bytes(b) => str_to_f64(b, session) != 0.0,
        Value::Date(d) => !d.is_zero(),
        Value::DateTime(dt) => !(dt.date.is_zero() && dt.hour == 0 && dt.minute == 0),
        Value::Time(t) => t.microseconds() != 0,
    })
}

/// Error 1690 for an out-of-range BIGINT result of `expression`.
pub fn bigint_out_of_range(unsigned: bool, expression: &str) -> Error {
    let kind = if unsigned {
        "BIGINT UNSIGNED"
    } else {
        "BIGINT"
    };
    Error::new(
        ErrorCode::DataOutOfRange,
        format!("{kind} value is out of range in '{expression}'"),
    )
}

/// Error 1690 for a DECIMAL result that does not fit 65 digits.
pub fn decimal_out_of_range(expression: &str) -> Error {
    Error::new(
        ErrorCode::DataOutOfRange,
        format!("DECIMAL value is out of range in '{expression}'"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datetime_text_forms() {
        let cases: &[(&str, Option<&str>)] = &[
            ("2024-01-02", Some("2024-01-02 00:00:00")),
            ("2024-1-2", Some("2024-01-02 00:00:00")),
            ("24-01-02", Some("2024-01-02 00:00:00")),
            ("2024/01/02", Some("2024-01-02 00:00:00")),
            ("20240102", Some("2024-01-02 00:00:00")),
            ("20240102030405", Some("2024-01-02 03:04:05")),
            ("2024-01-02T03:04:05", Some("2024-01-02 03:04:05")),
            ("2024-01-02 3:4:5", Some("2024-01-02 03:04:05")),
            ("2024-01-02 03:04:05.5", Some("2024-01-02 03:04:05.500000")),
            ("0000-00-00", Some("0000-00-00 00:00:00")),
            ("2024-00-00", Some("2024-00-00 00:00:00")),
            ("2024-01-02abc", Some("2024-01-02 00:00:00")),
            (" 2024-01-02 ", Some("2024-01-02 00:00:00")),
            ("2024-02-30", None),
            ("2024-01-02 25:00:00", None),
            ("abc", None),
            ("", None),
        ];
        for (text, want) in cases {
            let got = parse_datetime(text.as_bytes()).map(|p| p.datetime.format(6));
            let want = want.map(|w| {
                if w.len() == 19 {
                    format!("{w}.000000")
                } else {
                    w.to_string()
                }
            });
            assert_eq!(got, want, "{text}");
        }
    }

    #[test]
    fn numeric_prefixes() {
        let cases: &[(&str, usize, usize)] = &[
            ("12abc", 0, 2),
            (" 1.5e3x", 1, 6),
            ("abc", 0, 0),
            ("-.5", 0, 3),
            ("1e", 0, 1),
        ];
        for (text, start, end) in cases {
            let (s, e, _) = numeric_prefix(text.as_bytes());
            assert_eq!((s, e), (*start, *end), "{text}");
        }
    }
}
