//! Text form of values, exactly as MariaDB prints them in the text protocol, in
//! CAST(... AS CHAR) and in CONCAT.
//!
//! Rules (checked against MariaDB 10.11):
//!   integers  decimal digits
//!   DECIMAL   exactly the type's scale in fraction digits (the value is rescaled, rounding
//!             half away from zero); "0.00", never "-0.00"; non-DECIMAL types print the
//!             value's own scale
//!   DOUBLE    the shortest digits that round-trip, in fixed notation when the decimal
//!             exponent is in -15..=14, else `<digits>e<exp>` ("1e20", "1.5e-16",
//!             "0.00000015", "100000000000000"); -0 prints "0"; a DOUBLE with fixed
//!             decimals (PI(), ROUND(x, 2)) prints exactly that many fraction digits
//!             ("3.141593"), -0 as "0.00"
//!   FLOAT     rounded to 6 significant digits first ("123457000", "1.1"), then as DOUBLE
//!   DATE      YYYY-MM-DD; DATETIME/TIMESTAMP with the type's fsp fraction digits
//!   TIME      [-]hh:mm:ss (hours as many digits as needed, at least two) with the type's
//!             fsp fraction digits
//!   strings   their bytes
//!
//! Invariants:
//! (1) NULL appends nothing: the caller encodes NULL (0xFB on the wire, NULL in CONCAT).
//! (2) This is the one number-to-text rule of the SQL layer: CAST(x AS CHAR), CONCAT and
//!     result rows all format through `write_text`, so they always agree.

use crate::datatype::{DataType, NOT_FIXED_DECIMALS};
use crate::temporal::{Date, DateTime, Time};
use crate::value::Value;
use crate::Decimal;
use std::io::Write;

/// Appends the text form of `value`, whose expression or column type is `data_type`.
pub fn write_text(value: &Value, data_type: &DataType, out: &mut Vec<u8>) {
    match value {
        Value::Null => {}
        Value::Int(i) => write!(out, "{i}").expect("writing to a Vec cannot fail"),
        Value::UInt(u) => write!(out, "{u}").expect("writing to a Vec cannot fail"),
        Value::Double(d) => match data_type {
            DataType::Float { decimals, .. } | DataType::Double { decimals, .. }
                if *decimals < NOT_FIXED_DECIMALS =>
            {
                write_fixed(*d, *decimals, out)
            }
            DataType::Float { .. } => write_float(*d as f32, out),
            _ => write_double(*d, out),
        },
        Value::Decimal(d) => match data_type {
            DataType::Decimal { scale, .. } => write_decimal(d, Some(*scale), out),
            _ => write_decimal(d, None, out),
        },
        Value::Bytes(b) => out.extend_from_slice(b),
        Value::Date(d) => write_date(d, out),
        Value::DateTime(dt) => match data_type {
            DataType::Date => write_date(&dt.date, out),
            DataType::DateTime { fsp } | DataType::Timestamp { fsp } => {
                write_datetime(dt, *fsp, out)
            }
            _ => write_datetime(dt, if dt.microsecond == 0 { 0 } else { 6 }, out),
        },
        Value::Time(t) => match data_type {
            DataType::Time { fsp } => write_time(t, *fsp, out),
            _ => write_time(t, if t.parts().3 == 0 { 0 } else { 6 }, out),
        },
    }
}

/// The text form as a String (lossy for non-UTF-8 binary strings).
pub fn to_text(value: &Value, data_type: &DataType) -> String {
    let mut out = Vec::new();
    write_text(value, data_type, &mut out);
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// A DECIMAL with `scale` fraction digits (rounded half away from zero), or its own scale.
pub fn write_decimal(d: &Decimal, scale: Option<u8>, out: &mut Vec<u8>) {
    let Some(scale) = scale.map(u32::from) else {
        return write!(out, "{d}").expect("writing to a Vec cannot fail");
    };
    // A quotient typed with more digits than 65 hold (scale + 4) keeps fewer fraction
    // digits: MariaDB pads the digits it kept with zeros, and so do we.
    let r = d.rescale(scale).unwrap_or(*d);
    write!(out, "{r}").expect("writing to a Vec cannot fail");
    let missing = scale.saturating_sub(r.scale()) as usize;
    if r.scale() == 0 && missing > 0 {
        out.push(b'.');
    }
    out.resize(out.len() + missing, b'0');
}

pub fn write_date(d: &Date, out: &mut Vec<u8>) {
    write!(out, "{:04}-{:02}-{:02}", d.year, d.month, d.day).expect("writing to a Vec cannot fail");
}

/// "YYYY-MM-DD hh:mm:ss" plus `fsp` (0..=6) fraction digits (truncated, as MariaDB does).
pub fn write_datetime(dt: &DateTime, fsp: u8, out: &mut Vec<u8>) {
    write_date(&dt.date, out);
    write!(out, " {:02}:{:02}:{:02}", dt.hour, dt.minute, dt.second)
        .expect("writing to a Vec cannot fail");
    let fsp = fsp.min(6) as u32;
    if fsp > 0 {
        let frac = dt.microsecond / 10u32.pow(6 - fsp);
        write!(out, ".{:0width$}", frac, width = fsp as usize)
            .expect("writing to a Vec cannot fail");
    }
}

/// "[-]hh:mm:ss" plus `fsp` (0..=6) fraction digits (truncated, as MariaDB does).
pub fn write_time(t: &Time, fsp: u8, out: &mut Vec<u8>) {
    let (hours, minutes, seconds, microseconds) = t.parts();
    let sign = if t.is_negative() { "-" } else { "" };
    write!(out, "{sign}{hours:02}:{minutes:02}:{seconds:02}")
        .expect("writing to a Vec cannot fail");
    let fsp = fsp.min(6) as u32;
    if fsp > 0 {
        let frac = microseconds / 10u32.pow(6 - fsp);
        write!(out, ".{:0width$}", frac, width = fsp as usize)
            .expect("writing to a Vec cannot fail");
    }
}

/// A DOUBLE as MariaDB prints it (see the module notes).
pub fn write_double(value: f64, out: &mut Vec<u8>) {
    if !value.is_finite() {
        return write_non_finite(value, out);
    }
    // `{:e}` gives the shortest digits that round-trip, as d.ddde-x.
    let text = format!("{value:e}");
    layout_scientific(text.as_bytes(), out);
}

/// A DOUBLE with `decimals` fraction digits (MariaDB's my_fcvt, dtoa mode 3): the
/// shortest digits that round-trip, padded with zeros when they need no more than
/// `decimals` fraction digits (ROUND(1e0/3, 30) is 0.333333333333333300000000000000, not
/// the binary value's exact expansion), else rounded to `decimals`.
fn write_fixed(value: f64, decimals: u8, out: &mut Vec<u8>) {
    // my_fcvt prints an overflowed value (ROUND(1.5e308, -308)) as "0".
    if !value.is_finite() {
        out.push(b'0');
        return;
    }
    // -0 (ROUND(-0.001e0, 2)) prints "0.00"; a negative value that merely rounds to zero
    // keeps its sign ("-0.0000000000"), as my_fcvt does.
    let value = if value == 0.0 { 0.0 } else { value };
    let at = out.len();
    // Display is the shortest round-trip digits in plain (never exponent) notation.
    write!(out, "{value}").expect("writing to a Vec cannot fail");
    let fraction = match out[at..].iter().position(|&b| b == b'.') {
        Some(point) => out.len() - at - point - 1,
        None => 0,
    };
    let decimals = decimals as usize;
    if fraction <= decimals {
        if fraction == 0 && decimals > 0 {
            out.push(b'.');
        }
        out.resize(out.len() + decimals - fraction, b'0');
    } else {
        out.truncate(at);
        write!(out, "{value:.decimals$}").expect("writing to a Vec cannot fail");
    }
}

/// A FLOAT as MariaDB prints it: 6 significant digits, then the DOUBLE layout.
pub fn write_float(value: f32, out: &mut Vec<u8>) {
    if !value.is_finite() {
        return write_non_finite(value as f64, out);
    }
    let text = format!("{value:.5e}");
    layout_scientific(text.as_bytes(), out);
}

/// MySQL never stores these; print them the way C's printf does.
fn write_non_finite(value: f64, out: &mut Vec<u8>) {
    out.extend_from_slice(if value.is_nan() {
        b"nan"
    } else if value > 0.0 {
        b"inf"
    } else {
        b"-inf"
    });
}

/// Rewrites Rust's scientific text ("-1.2300e-7") in MariaDB's layout.
fn layout_scientific(text: &[u8], out: &mut Vec<u8>) {
    let (negative, text) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let e_at = text
        .iter()
        .position(|&c| c == b'e')
        .expect("scientific text has an exponent");
    let exponent: i32 = std::str::from_utf8(&text[e_at + 1..])
        .ok()
        .and_then(|s| s.parse().ok())
        .expect("scientific text has an integer exponent");
    let mut digits: Vec<u8> = text[..e_at]
        .iter()
        .copied()
        .filter(u8::is_ascii_digit)
        .collect();
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
    }
    if digits == b"0" {
        out.push(b'0');
        return;
    }
    if negative {
        out.push(b'-');
    }
    if (-15..=14).contains(&exponent) {
        if exponent < 0 {
            out.extend_from_slice(b"0.");
            out.extend(std::iter::repeat_n(b'0', (-exponent - 1) as usize));
            out.extend_from_slice(&digits);
        } else {
            let int_len = exponent as usize + 1;
            if digits.len() <= int_len {
                out.extend_from_slice(&digits);
                out.extend(std::iter::repeat_n(b'0', int_len - digits.len()));
            } else {
                out.extend_from_slice(&digits[..int_len]);
                out.push(b'.');
                out.extend_from_slice(&digits[int_len..]);
            }
        }
    } else {
        out.push(digits[0]);
        if digits.len() > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        write!(out, "e{exponent}").expect("writing to a Vec cannot fail");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datatype::IntWidth;

    fn text(v: Value, t: DataType) -> String {
        to_text(&v, &t)
    }

    #[test]
    fn matches_mariadb() {
        let dec = |s: &str| Value::Decimal(s.parse().expect("decimal literal"));
        // (value, type, what MariaDB 10.11 prints)
        let cases: Vec<(Value, DataType, &str)> = vec![
            (Value::Int(-5), DataType::BIGINT, "-5"),
            (
                Value::UInt(u64::MAX),
                DataType::BIGINT,
                "18446744073709551615",
            ),
            (
                dec("1.5"),
                DataType::Decimal {
                    precision: 10,
                    scale: 2,
                    unsigned: false,
                },
                "1.50",
            ),
            (
                dec("1.555"),
                DataType::Decimal {
                    precision: 10,
                    scale: 2,
                    unsigned: false,
                },
                "1.56",
            ),
            (
                // SELECT w / 3 for w = DECIMAL(65,30) max: 65 digits kept, scale 34.
                dec(&format!("{}.{}", "3".repeat(35), "3".repeat(30))),
                DataType::Decimal {
                    precision: 65,
                    scale: 34,
                    unsigned: false,
                },
                "33333333333333333333333333333333333.3333333333333333333333333333330000",
            ),
            (
                dec("-0.001"),
                DataType::Decimal {
                    precision: 10,
                    scale: 2,
                    unsigned: false,
                },
                "0.00",
            ),
            (
                dec("7"),
                DataType::Decimal {
                    precision: 10,
                    scale: 0,
                    unsigned: false,
                },
                "7",
            ),
            (Value::Double(1e15), DataType::DOUBLE, "1e15"),
            (Value::Double(1e16), DataType::DOUBLE, "1e16"),
            (
                Value::Double(123_456_789.123_456_79),
                DataType::DOUBLE,
                "123456789.12345679",
            ),
            (Value::Double(0.00001), DataType::DOUBLE, "0.00001"),
            (Value::Double(-0.0), DataType::DOUBLE, "0"),
            (
                Value::Double(1.0 / 3.0),
                DataType::DOUBLE,
                "0.3333333333333333",
            ),
            (Value::Double(100000.0), DataType::DOUBLE, "100000"),
            (
                Value::Double(std::f64::consts::PI),
                DataType::double(6),
                "3.141593",
            ),
            (
                Value::Double(std::f64::consts::FRAC_PI_2),
                DataType::double(10),
                "1.5707963268",
            ),
            (Value::Double(-0.0), DataType::double(2), "0.00"),
            (Value::Double(-1e-11), DataType::double(10), "-0.0000000000"),
            (
                Value::Double(1.0 / 3.0),
                DataType::double(30),
                "0.333333333333333300000000000000",
            ),
            (
                Value::Double(0.1 + 0.2),
                DataType::double(25),
                "0.3000000000000000400000000",
            ),
            (
                Value::Double(123456789012345678.0),
                DataType::double(2),
                "123456789012345680.00",
            ),
            (Value::Double(f64::INFINITY), DataType::double(0), "0"),
            (
                Value::Double(1e20),
                DataType::double(0),
                "100000000000000000000",
            ),
            (Value::Double(1.1f32 as f64), DataType::FLOAT, "1.1"),
            (
                Value::Date(Date {
                    year: 2024,
                    month: 1,
                    day: 2,
                }),
                DataType::Date,
                "2024-01-02",
            ),
            (
                Value::DateTime(DateTime {
                    date: Date {
                        year: 2024,
                        month: 1,
                        day: 2,
                    },
                    hour: 3,
                    minute: 4,
                    second: 5,
                    microsecond: 123456,
                }),
                DataType::DateTime { fsp: 3 },
                "2024-01-02 03:04:05.123",
            ),
            (
                Value::Time(
                    Time::new(-(838 * 3600 + 59 * 60 + 59) * 1_000_000 - 999_999)
                        .expect("in range"),
                ),
                DataType::Time { fsp: 3 },
                "-838:59:59.999",
            ),
            (
                Value::Time(Time::new(5_000_001).expect("in range")),
                DataType::Time { fsp: 0 },
                "00:00:05",
            ),
            (
                Value::Time(Time::new(-500_000).expect("in range")),
                DataType::Time { fsp: 1 },
                "-00:00:00.5",
            ),
            (
                Value::text("abc"),
                DataType::Int {
                    width: IntWidth::Int,
                    unsigned: false,
                },
                "abc",
            ),
        ];
        for (v, t, want) in cases {
            assert_eq!(text(v.clone(), t.clone()), want, "{v:?} as {t:?}");
        }
    }
}
