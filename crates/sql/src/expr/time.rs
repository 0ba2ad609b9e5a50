//! TIME values: reading text and numbers as a TIME (MariaDB's str_to_time and
//! number_to_time), a TIME as a number, and the expression-context conversion with its
//! warnings. Store assignment into a TIME column is in `convert::store_value`, from the
//! same `parse_time` and `number_to_time`.
//!
//! Text forms read (checked against MariaDB 10.11), after an optional '-':
//!   'D hh:mm[:ss]'  days, then a clock: hours = D * 24 + hh
//!   'hh:mm[:ss]'    hours of any length ('100:00:00')
//!   'hhmmss'        digits alone read from the right: '1234' is 00:12:34, '12' 00:00:12
//!   any of these with '.ffffff' (digits past the sixth are cut off)
//!   a datetime ('2024-01-02 03:04:05', or 12+ digits): its time of day
//!
//! Invariants:
//! (1) A result is always a valid `Time`: hours past 838 clip to the TIME range and say
//!     so (`ParsedTime::clipped`), minutes or seconds past 59 make the text invalid (None).
//! (2) Text after a complete time is ignored and reported (`ParsedTime::trailing`), as
//!     MariaDB warns "Truncated incorrect time value".
//! (3) The TIME functions (`call`) return values of the type `result_type` gave them
//!     (expression invariant (1)): a TIME truncated to its fsp, and a result outside the
//!     TIME range is clipped with warning 1292, never an error.

use super::coerce::{
    number_to_datetime, parse_datetime, to_decimal, to_i64, to_temporal, warning_text,
};
use super::function::{varchar, Function};
use super::temporal::{clock_specifier, expand_format, from_micros, to_micros};
use super::{Expr, SessionContext};
use crate::error::{ErrorCode, Result};
use manycore_types::format::to_text;
use manycore_types::{DataType, Decimal, Time, Value};

/// What a text or number read as a TIME gave.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParsedTime {
    pub time: Time,
    /// The value was outside the TIME range and was clipped to its bound.
    pub clipped: bool,
    /// Text followed the time and was ignored.
    pub trailing: bool,
    /// The value was a date and time, of which only the time of day was kept.
    pub from_datetime: bool,
    /// The text had more than six fraction digits; the rest were cut off.
    pub fraction_cut: bool,
}

impl ParsedTime {
    pub fn exact(time: Time) -> ParsedTime {
        ParsedTime {
            time,
            clipped: false,
            trailing: false,
            from_datetime: false,
            fraction_cut: false,
        }
    }
}

/// Reads MariaDB's TIME text forms (module notes); None if the text is not a time.
pub fn parse_time(text: &[u8]) -> Option<ParsedTime> {
    let text = text.trim_ascii();
    if looks_like_datetime(text) {
        let parsed = parse_datetime(text)?;
        return Some(ParsedTime {
            from_datetime: true,
            ..ParsedTime::exact(Time::of_day(&parsed.datetime))
        });
    }
    let (negative, body) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let mut at = 0;
    let first = digit_run(body, &mut at)?;
    let (mut hours, minutes, seconds);
    if body.get(at) == Some(&b' ') && has_clock_after(&body[at..]) {
        while body.get(at) == Some(&b' ') {
            at += 1;
        }
        let days = first;
        hours = days
            .saturating_mul(24)
            .saturating_add(digit_run(body, &mut at)?);
        (minutes, seconds) = clock_rest(body, &mut at)?;
    } else if body.get(at) == Some(&b':') {
        hours = first;
        (minutes, seconds) = clock_rest(body, &mut at)?;
    } else {
        hours = first / 10_000;
        minutes = first / 100 % 100;
        seconds = first % 100;
    }
    let mut microseconds = 0;
    let mut fraction_cut = false;
    if body.get(at) == Some(&b'.') && body.get(at + 1).is_some_and(u8::is_ascii_digit) {
        at += 1;
        let start = at;
        while body.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        microseconds = fraction_micros(&body[start..at]);
        fraction_cut = at - start > 6;
    }
    if minutes > 59 || seconds > 59 {
        return None;
    }
    hours = hours.min(u64::MAX / 3_600_000_000 / 2);
    let magnitude =
        ((hours * 3600 + minutes * 60 + seconds) * 1_000_000 + microseconds as u64) as i128;
    let (time, clipped) = Time::clipped(if negative { -magnitude } else { magnitude });
    Some(ParsedTime {
        time,
        clipped,
        trailing: !body[at..].trim_ascii().is_empty(),
        from_datetime: false,
        fraction_cut,
    })
}

/// A date in front ('2024-01-02 ...', '24/1/2 ...') or a run of 12 or more digits
/// ('20240102030405'): MariaDB reads those as a datetime and keeps its time.
fn looks_like_datetime(text: &[u8]) -> bool {
    let digits = text.iter().take_while(|b| b.is_ascii_digit()).count();
    digits >= 12 || (digits > 0 && matches!(text.get(digits), Some(b'-' | b'/')))
}

/// After the days of 'D hh:mm', a clock must follow: '1 2' is one second and text.
fn has_clock_after(rest: &[u8]) -> bool {
    let clock = rest.trim_ascii_start();
    let hours = clock.iter().take_while(|b| b.is_ascii_digit()).count();
    hours > 0 && clock.get(hours) == Some(&b':')
}

/// The digits at `at` as a number (saturating), moving `at` past them; None if none.
fn digit_run(text: &[u8], at: &mut usize) -> Option<u64> {
    let start = *at;
    let mut value: u64 = 0;
    while let Some(d) = text.get(*at).filter(|b| b.is_ascii_digit()) {
        value = value.saturating_mul(10).saturating_add(u64::from(d - b'0'));
        *at += 1;
    }
    (*at > start).then_some(value)
}

/// ':mm[:ss]' after the hours of a clock.
fn clock_rest(text: &[u8], at: &mut usize) -> Option<(u64, u64)> {
    if text.get(*at) != Some(&b':') {
        return Some((0, 0));
    }
    *at += 1;
    let minutes = digit_run(text, at)?;
    if text.get(*at) != Some(&b':') || !text.get(*at + 1).is_some_and(u8::is_ascii_digit) {
        return Some((minutes, 0));
    }
    *at += 1;
    Some((minutes, digit_run(text, at)?))
}

/// Fraction digits as microseconds; digits past the sixth are cut off.
fn fraction_micros(digits: &[u8]) -> u32 {
    let kept = &digits[..digits.len().min(6)];
    let value = kept.iter().fold(0u32, |v, d| v * 10 + u32::from(d - b'0'));
    value * 10u32.pow(6 - kept.len() as u32)
}

/// A number as [-]hhmmss[.ffffff]; 12+ digit magnitudes as YYYYMMDDhhmmss (the time of
/// day kept). None when the minutes or seconds are over 59 or the datetime is invalid;
/// magnitudes past the TIME range clip.
pub fn number_to_time(value: &Value) -> Option<ParsedTime> {
    let (negative, whole, microseconds) = match value {
        Value::Int(i) => (*i < 0, i.unsigned_abs() as u128, 0),
        Value::UInt(u) => (false, *u as u128, 0),
        Value::Decimal(d) => decimal_parts(d),
        Value::Double(f) if f.is_finite() => {
            let whole = f.abs().trunc();
            let micros = ((f.abs() - whole) * 1e6).round().min(999_999.0) as u32;
            (*f < 0.0, whole.min(1e30) as u128, micros)
        }
        Value::Double(_) => return None,
        _ => return None,
    };
    if whole >= 10_000_000_000 {
        let parsed = u64::try_from(whole)
            .ok()
            .and_then(|n| number_to_datetime(n as i128));
        return Some(match parsed {
            Some(p) if !negative => ParsedTime {
                from_datetime: true,
                ..ParsedTime::exact(Time::of_day(&p.datetime))
            },
            _ => clipped_bound(negative),
        });
    }
    let (hours, minutes, seconds) = (whole / 10_000, whole / 100 % 100, whole % 100);
    if minutes > 59 || seconds > 59 {
        return None;
    }
    let magnitude =
        ((hours * 3600 + minutes * 60 + seconds) * 1_000_000 + microseconds as u128) as i128;
    let (time, clipped) = Time::clipped(if negative { -magnitude } else { magnitude });
    Some(ParsedTime {
        clipped,
        ..ParsedTime::exact(time)
    })
}

fn clipped_bound(negative: bool) -> ParsedTime {
    ParsedTime {
        clipped: true,
        ..ParsedTime::exact(if negative {
            Time::MAX.negated()
        } else {
            Time::MAX
        })
    }
}

/// (negative, whole part, first six fraction digits as microseconds) of a DECIMAL.
fn decimal_parts(d: &Decimal) -> (bool, u128, u32) {
    let magnitude = d.abs();
    let whole = magnitude.trunc().to_i128().unwrap_or(i128::MAX);
    let micros = magnitude
        .fract()
        .truncate(6)
        .rescale(6)
        .and_then(|f| f.checked_mul(Decimal::from(1_000_000i64)))
        .and_then(|f| f.to_i128())
        .unwrap_or(0);
    (d.is_sign_negative(), whole as u128, micros as u32)
}

/// Any value as a TIME in an expression (CAST, comparison, TIME functions): NULL plus
/// warning 1292 when it is not a time, the clipped or truncated value plus 1292 when
/// MariaDB warns "Truncated incorrect time value".
pub fn to_time(value: &Value, session: &dyn SessionContext) -> Option<Time> {
    let parsed = match value {
        Value::Null => return None,
        Value::Time(t) => return Some(*t),
        Value::DateTime(dt) => return Some(Time::of_day(dt)),
        Value::Date(_) => return Some(Time::default()),
        Value::Bytes(b) => parse_time(b),
        number => number_to_time(number),
    };
    let Some(parsed) = parsed else {
        session.warn(
            ErrorCode::TruncatedWrongValue,
            format!("Incorrect time value: '{}'", warning_text(value)),
        );
        return None;
    };
    let message = || format!("Truncated incorrect time value: '{}'", warning_text(value));
    if parsed.clipped || parsed.trailing {
        session.warn(ErrorCode::TruncatedWrongValue, message());
    } else if parsed.fraction_cut {
        session.note(ErrorCode::TruncatedWrongValue, message());
    }
    Some(parsed.time)
}

/// A TIME as the number hhmmss (integer part, signed) and its microseconds: what
/// `TIME + 0` and CAST(TIME AS ...) compute with.
pub fn time_number(t: &Time) -> (i64, u32) {
    let (hours, minutes, seconds, microseconds) = t.parts();
    let magnitude = hours as i64 * 10_000 + minutes as i64 * 100 + seconds as i64;
    (
        if t.is_negative() {
            -magnitude
        } else {
            magnitude
        },
        microseconds,
    )
}

/// A TIME as a DECIMAL hhmmss.ffffff (six fraction digits when it has a fraction).
pub fn time_decimal(t: &Time) -> Decimal {
    let (number, microseconds) = time_number(t);
    if microseconds == 0 {
        return Decimal::from(number);
    }
    let micros = number as i128 * 1_000_000
        + if t.is_negative() {
            -(microseconds as i128)
        } else {
            microseconds as i128
        };
    Decimal::from_i128_with_scale(micros, 6).expect("a TIME fits 65 digits")
}

/// Seconds of a TIME as a DOUBLE-free exact DECIMAL (TIME_TO_SEC keeps the fraction).
pub fn time_seconds(t: &Time) -> Decimal {
    Decimal::from_i128_with_scale(t.microseconds() as i128, 6).expect("a TIME fits 65 digits")
}

/// The fraction digits a TIME computed from `arg` keeps (MariaDB's
/// `datetime_precision`): a temporal type's fsp, a number's scale, a string literal's
/// fraction digits, 6 for any other string.
pub fn time_precision(arg: &Expr) -> u8 {
    match arg {
        Expr::Literal {
            value: Value::Bytes(b),
            ..
        } => literal_fraction_digits(b),
        other => match other.data_type() {
            DataType::Time { fsp } | DataType::DateTime { fsp } | DataType::Timestamp { fsp } => {
                fsp
            }
            DataType::Null | DataType::Date | DataType::Int { .. } => 0,
            t if t.is_numeric() => t.double_decimals().min(6),
            _ => 6,
        },
    }
}

/// Fraction digits written in a time or datetime text ('12:00:00.50' has 2), at most 6.
pub fn literal_fraction_digits(text: &[u8]) -> u8 {
    let Some(point) = text.iter().rposition(|&b| b == b'.') else {
        return 0;
    };
    text[point + 1..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count()
        .min(6) as u8
}

/// Result type of the TIME functions (MariaDB 10.11's, checked column by column).
pub fn result_type(function: Function, args: &[Expr]) -> DataType {
    let precision = |i: usize| args.get(i).map_or(0, time_precision);
    match function {
        Function::CurTime | Function::UtcTime => DataType::Time {
            fsp: args.first().map_or(0, time_precision_literal),
        },
        Function::TimeOf | Function::SecToTime => DataType::Time { fsp: precision(0) },
        Function::MakeTime => DataType::Time { fsp: precision(2) },
        Function::TimeDiff => DataType::Time {
            fsp: precision(0).max(precision(1)),
        },
        Function::TimeToSec => match precision(0) {
            0 => DataType::BIGINT,
            fsp => DataType::Decimal {
                precision: 16 + fsp,
                scale: fsp,
                unsigned: false,
            },
        },
        Function::AddTime | Function::SubTime => {
            let fsp = precision(0).max(precision(1));
            match args[0].data_type() {
                DataType::Time { .. } => DataType::Time { fsp },
                DataType::Date | DataType::DateTime { .. } | DataType::Timestamp { .. } => {
                    DataType::DateTime { fsp }
                }
                // A string may hold a time or a datetime: the result is its text.
                _ => varchar(26),
            }
        }
        _ => unreachable!("{function:?} is not a TIME function"),
    }
}

/// CURTIME(fsp): the literal fsp, as NOW(fsp) takes it.
fn time_precision_literal(arg: &Expr) -> u8 {
    match arg {
        Expr::Literal {
            value: Value::Int(i),
            ..
        } => (*i).clamp(0, 6) as u8,
        _ => 0,
    }
}

/// Evaluates a TIME function on its argument values (invariant (3)).
pub fn call(
    function: Function,
    v: &[Value],
    data_type: &DataType,
    session: &dyn SessionContext,
) -> Result<Value> {
    let fsp = match data_type {
        DataType::Time { fsp } | DataType::DateTime { fsp } => *fsp,
        DataType::Decimal { scale, .. } => *scale,
        DataType::Int { .. } => 0,
        _ => 6,
    };
    if let Function::CurTime | Function::UtcTime = function {
        let now = match function {
            Function::UtcTime => session.statement_time_utc(),
            _ => session.local_statement_time(),
        };
        return Ok(Value::Time(Time::of_day(&now).truncate(fsp)));
    }
    if v.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let time = |i: usize| to_time(&v[i], session);
    Ok(match function {
        Function::TimeOf => time(0).map_or(Value::Null, |t| Value::Time(t.truncate(fsp))),
        Function::TimeToSec => match time(0) {
            None => Value::Null,
            Some(t) if fsp == 0 => Value::Int(t.microseconds() / Time::MICROS_PER_SECOND),
            Some(t) => Value::Decimal(time_seconds(&t.truncate(fsp)).truncate(fsp as i32)),
        },
        Function::SecToTime => {
            let seconds = to_decimal(&v[0], session).unwrap_or_default();
            let micros = seconds
                .truncate(6)
                .checked_mul(Decimal::from(1_000_000i64))
                .and_then(|m| m.to_i128())
                .unwrap_or(if seconds.is_sign_negative() {
                    i128::MIN
                } else {
                    i128::MAX
                });
            clipped_result(micros, fsp, &v[0], session)
        }
        Function::MakeTime => {
            let (Some(hours), Some(minutes)) = (to_i64(&v[0], session), to_i64(&v[1], session))
            else {
                return Ok(Value::Null);
            };
            let seconds = to_decimal(&v[2], session).unwrap_or_default();
            if seconds.is_sign_negative() || seconds >= Decimal::from(60i64) {
                session.warn(
                    ErrorCode::TruncatedWrongValue,
                    format!(
                        "Truncated incorrect seconds value: '{}'",
                        warning_text(&v[2])
                    ),
                );
                return Ok(Value::Null);
            }
            if !(0..60).contains(&minutes) {
                return Ok(Value::Null);
            }
            let second_micros = seconds
                .truncate(6)
                .checked_mul(Decimal::from(1_000_000i64))
                .and_then(|m| m.to_i128())
                .unwrap_or(0);
            let magnitude = (hours.unsigned_abs() as i128 * 3600 + minutes as i128 * 60)
                * 1_000_000
                + second_micros;
            let micros = if hours < 0 { -magnitude } else { magnitude };
            let shown = Value::text(&format!("{hours}:{minutes:02}:{}", seconds));
            clipped_result(micros, fsp, &shown, session)
        }
        Function::TimeDiff => match (as_instant(&v[0], session), as_instant(&v[1], session)) {
            (Some(Instant::Time(a)), Some(Instant::Time(b))) => {
                let micros = a.microseconds() as i128 - b.microseconds() as i128;
                clipped_result(micros, fsp, &Value::Null, session)
            }
            (Some(Instant::DateTime(a)), Some(Instant::DateTime(b))) => {
                clipped_result(a - b, fsp, &Value::Null, session)
            }
            _ => Value::Null,
        },
        Function::AddTime | Function::SubTime => {
            let Some(delta) = time(1) else {
                return Ok(Value::Null);
            };
            let delta = if function == Function::SubTime {
                -(delta.microseconds() as i128)
            } else {
                delta.microseconds() as i128
            };
            add_time(&v[0], delta, data_type, session)
        }
        Function::TimeFormat => {
            let format = super::coerce::to_bytes(&v[1], &DataType::Null).unwrap_or_default();
            time(0)
                .and_then(|t| time_format(&t, &format))
                .map_or(Value::Null, Value::Bytes)
        }
        _ => unreachable!("{function:?} is not a TIME function"),
    })
}

/// A TIMEDIFF/ADDTIME operand: a time, or a date and time as microseconds since
/// 0000-01-01.
enum Instant {
    Time(Time),
    DateTime(i128),
}

fn as_instant(value: &Value, session: &dyn SessionContext) -> Option<Instant> {
    let datetime = match value {
        Value::Date(_) | Value::DateTime(_) => true,
        Value::Bytes(b) => looks_like_datetime(b.trim_ascii()),
        _ => false,
    };
    if datetime {
        let parsed = to_temporal(value, session)?;
        return to_micros(&parsed.datetime).map(Instant::DateTime);
    }
    to_time(value, session).map(Instant::Time)
}

/// ADDTIME/SUBTIME of a time or datetime and `delta` microseconds, in the result type.
fn add_time(
    base: &Value,
    delta: i128,
    data_type: &DataType,
    session: &dyn SessionContext,
) -> Value {
    let fsp = match data_type {
        DataType::Time { fsp } | DataType::DateTime { fsp } => *fsp,
        _ => 6,
    };
    match as_instant(base, session) {
        Some(Instant::Time(t)) => {
            let result =
                clipped_result(t.microseconds() as i128 + delta, fsp, &Value::Null, session);
            match (result, data_type) {
                (time @ Value::Time(_), DataType::VarChar { .. }) => {
                    Value::text(&to_text(&time, &DataType::Null))
                }
                (other, _) => other,
            }
        }
        Some(Instant::DateTime(micros)) => match from_micros(micros + delta) {
            Some(dt) if matches!(data_type, DataType::DateTime { .. }) => Value::DateTime(dt),
            Some(dt) => Value::text(&to_text(&Value::DateTime(dt), &DataType::Null)),
            None => Value::Null,
        },
        None => Value::Null,
    }
}

/// A computed TIME: clipped to the range with 1292 naming `shown` (or the unclipped
/// value when `shown` is NULL), then truncated to `fsp`.
fn clipped_result(micros: i128, fsp: u8, shown: &Value, session: &dyn SessionContext) -> Value {
    let (time, clipped) = Time::clipped(micros);
    if clipped {
        let text = match shown {
            Value::Null => {
                let magnitude = micros.unsigned_abs();
                let seconds = magnitude / 1_000_000;
                let sign = if micros < 0 { "-" } else { "" };
                format!(
                    "{sign}{}:{:02}:{:02}",
                    seconds / 3600,
                    seconds / 60 % 60,
                    seconds % 60
                )
            }
            other => warning_text(other),
        };
        session.warn(
            ErrorCode::TruncatedWrongValue,
            format!("Truncated incorrect time value: '{text}'"),
        );
    }
    Value::Time(time.truncate(fsp))
}

/// The parts of a TIME that HOUR, MINUTE, SECOND and MICROSECOND return (magnitudes:
/// HOUR('-12:00:00') is 12).
pub fn time_part(function: Function, value: &Value, session: &dyn SessionContext) -> Value {
    let Some(t) = to_time(value, session) else {
        return Value::Null;
    };
    let (hours, minutes, seconds, microseconds) = t.parts();
    Value::Int(match function {
        Function::Hour => hours as i64,
        Function::Minute => minutes as i64,
        Function::Second => seconds as i64,
        _ => microseconds as i64,
    })
}

/// TIME_FORMAT(time, format): the hour, minute, second and AM/PM specifiers of
/// DATE_FORMAT, with hours past 23 as they are; a date specifier makes the result NULL.
pub fn time_format(t: &Time, format: &[u8]) -> Option<Vec<u8>> {
    let (hours, minutes, seconds, microseconds) = t.parts();
    let mut out = Vec::with_capacity(format.len() + 8);
    if t.is_negative() {
        out.push(b'-');
    }
    expand_format(format, &mut out, |spec| {
        match clock_specifier(spec, hours, minutes, seconds, microseconds) {
            Some(text) => Some(text),
            None => match spec {
                b'Y' | b'y' | b'm' | b'c' | b'd' | b'e' | b'D' | b'M' | b'b' | b'W' | b'a'
                | b'w' | b'j' | b'U' | b'u' | b'V' | b'v' | b'X' | b'x' => None,
                other => Some((other as char).to_string()),
            },
        }
    })?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use manycore_types::format::write_time;

    #[test]
    fn time_format_cases() {
        let t = parse_time(b"-100:02:03.5").expect("valid").time;
        let got = time_format(&t, b"%H %k %h %I %l %i %s %f %p %T %r %%").expect("no date part");
        assert_eq!(
            String::from_utf8(got).expect("ascii"),
            "-100 100 04 04 4 02 03 500000 AM 100:02:03 04:02:03 AM %"
        );
        assert_eq!(time_format(&t, b"%Y"), None);
    }

    fn text(parsed: Option<ParsedTime>) -> Option<String> {
        parsed.map(|p| {
            let mut out = Vec::new();
            write_time(&p.time, 6, &mut out);
            String::from_utf8(out).expect("ascii")
        })
    }

    #[test]
    fn text_forms_match_mariadb() {
        // (text, CAST(text AS TIME(6)) on MariaDB 10.11, clipped or trailing)
        let cases: &[(&str, Option<&str>, bool)] = &[
            ("12:34:56", Some("12:34:56.000000"), false),
            ("1 12:00:00", Some("36:00:00.000000"), false),
            ("123456", Some("12:34:56.000000"), false),
            ("12:34", Some("12:34:00.000000"), false),
            ("12:34:56.1234567", Some("12:34:56.123456"), false),
            ("1234", Some("00:12:34.000000"), false),
            ("12", Some("00:00:12.000000"), false),
            ("-1:2:3", Some("-01:02:03.000000"), false),
            ("  10:00:00  ", Some("10:00:00.000000"), false),
            ("1:2:3.5", Some("01:02:03.500000"), false),
            ("900:00:00", Some("838:59:59.999999"), true),
            ("35 00:00:00", Some("838:59:59.999999"), true),
            ("34 00:00:00", Some("816:00:00.000000"), false),
            ("1 2:3", Some("26:03:00.000000"), false),
            ("1 2", Some("00:00:01.000000"), true),
            ("12:00:00abc", Some("12:00:00.000000"), true),
            ("2024-01-02 03:04:05.6", Some("03:04:05.600000"), false),
            ("20240102030405", Some("03:04:05.000000"), false),
            ("abc", None, false),
            ("", None, false),
            ("12:61:00", None, false),
            ("99999999", None, false),
        ];
        for (input, want, flagged) in cases {
            let parsed = parse_time(input.as_bytes());
            assert_eq!(text(parsed).as_deref(), *want, "{input}");
            if let Some(p) = parsed {
                assert_eq!(p.clipped || p.trailing, *flagged, "{input}");
            }
        }
    }

    #[test]
    fn numbers_match_mariadb() {
        let dec = |s: &str| Value::Decimal(s.parse().expect("decimal literal"));
        let cases: &[(Value, Option<&str>)] = &[
            (Value::Int(123456), Some("12:34:56.000000")),
            (Value::Int(-123456), Some("-12:34:56.000000")),
            (dec("12.5"), Some("00:00:12.500000")),
            (Value::Double(1e3), Some("00:10:00.000000")),
            (Value::Int(99999999), None),
            (Value::Int(9000000), Some("838:59:59.999999")),
            (Value::Int(20240102030405), Some("03:04:05.000000")),
            (Value::Double(1e20), Some("838:59:59.999999")),
        ];
        for (input, want) in cases {
            assert_eq!(text(number_to_time(input)).as_deref(), *want, "{input:?}");
        }
        let t = parse_time(b"-12:34:56.5").expect("valid").time;
        assert_eq!(time_number(&t), (-123456, 500_000));
        assert_eq!(time_decimal(&t).to_string(), "-123456.500000");
        assert_eq!(time_seconds(&t).to_string(), "-45296.500000");
    }
}
