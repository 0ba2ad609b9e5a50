//! Date arithmetic and formatting: INTERVAL addition, DATE_FORMAT, unix time, week days.
//!
//! Invariants:
//! (1) Month and year arithmetic clamps the day to the target month's last day
//!     ('2024-01-31' + INTERVAL 1 MONTH = '2024-02-29'), as MySQL does.
//! (2) A result outside 0000-01-01..9999-12-31 is NULL (the caller warns), never a panic.

use super::function::IntervalUnit;
use manycore_types::{Date, DateTime};

const MICROS_PER_SECOND: i128 = 1_000_000;
const MICROS_PER_DAY: i128 = 86_400 * MICROS_PER_SECOND;

/// Microseconds since 0000-01-01 00:00:00 (day number 1), None for zero-part dates.
pub fn to_micros(dt: &DateTime) -> Option<i128> {
    let days = dt.date.to_days()? as i128;
    Some(
        days * MICROS_PER_DAY
            + (dt.hour as i128 * 3600 + dt.minute as i128 * 60 + dt.second as i128)
                * MICROS_PER_SECOND
            + dt.microsecond as i128,
    )
}

pub fn from_micros(micros: i128) -> Option<DateTime> {
    let days = micros.div_euclid(MICROS_PER_DAY);
    let rest = micros.rem_euclid(MICROS_PER_DAY);
    let date = Date::from_days(i64::try_from(days).ok()?)?;
    let seconds = rest / MICROS_PER_SECOND;
    Some(DateTime {
        date,
        hour: (seconds / 3600) as u8,
        minute: (seconds / 60 % 60) as u8,
        second: (seconds % 60) as u8,
        microsecond: (rest % MICROS_PER_SECOND) as u32,
    })
}

/// `dt + INTERVAL amount unit` (amount already signed for DATE_SUB). For the
/// microsecond-based units `amount` counts that unit; None if out of range.
pub fn add_interval(dt: &DateTime, amount: i128, unit: IntervalUnit) -> Option<DateTime> {
    let months = match unit {
        IntervalUnit::Month => Some(amount),
        IntervalUnit::Quarter => amount.checked_mul(3),
        IntervalUnit::Year => amount.checked_mul(12),
        _ => None,
    };
    if let Some(months) = months {
        let total = dt.date.year as i128 * 12 + (dt.date.month as i128 - 1) + months;
        if !(0..=9999 * 12 + 11).contains(&total) {
            return None;
        }
        let year = (total / 12) as u16;
        let month = (total % 12 + 1) as u8;
        let day = dt.date.day.min(Date::days_in_month(year, month));
        return Some(DateTime {
            date: Date { year, month, day },
            ..*dt
        });
    }
    let unit_micros = fixed_unit_micros(unit)?;
    let base = to_micros(dt)?;
    from_micros(base.checked_add(amount.checked_mul(unit_micros)?)?)
}

/// Days since 1970-01-01 of a valid date.
pub fn unix_days(d: &Date) -> Option<i64> {
    Some(d.to_days()? - 719_528)
}

/// Seconds since the epoch of a UTC datetime (None before 1970 or for zero dates).
pub fn unix_seconds(dt: &DateTime) -> Option<i64> {
    let days = unix_days(&dt.date)?;
    let s = days * 86_400 + dt.hour as i64 * 3600 + dt.minute as i64 * 60 + dt.second as i64;
    (s >= 0).then_some(s)
}

pub fn from_unix_seconds(seconds: i64, microsecond: u32) -> Option<DateTime> {
    let micros = (seconds as i128 + 719_528 * 86_400) * MICROS_PER_SECOND + microsecond as i128;
    from_micros(micros)
}

/// 0 = Monday .. 6 = Sunday (WEEKDAY()).
pub fn weekday(d: &Date) -> Option<u8> {
    // Day number 1 (0000-01-01) was a Saturday in MySQL's calendar.
    Some(((d.to_days()? + 5) % 7) as u8)
}

pub const DAY_NAMES: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];
pub const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

pub fn day_of_year(d: &Date) -> Option<i64> {
    Some(
        d.to_days()?
            - Date {
                year: d.year,
                month: 1,
                day: 1,
            }
            .to_days()?
            + 1,
    )
}

/// WEEK(date) in the default mode 0: weeks start on Sunday, week 1 is the first week
/// with a Sunday in this year; days before it are week 0.
pub fn week_mode0(d: &Date) -> Option<i64> {
    let jan1 = Date {
        year: d.year,
        month: 1,
        day: 1,
    };
    let jan1_weekday = weekday(&jan1)? as i64; // 0 = Monday
    let sunday_based = (jan1_weekday + 1) % 7; // 0 = Sunday
    let first_sunday_offset = (7 - sunday_based) % 7;
    let doy0 = day_of_year(d)? - 1;
    if doy0 < first_sunday_offset {
        return Some(0);
    }
    Some((doy0 - first_sunday_offset) / 7 + 1)
}

fn ordinal_suffix(day: u8) -> &'static str {
    match (day % 100, day % 10) {
        (11..=13, _) => "th",
        (_, 1) => "st",
        (_, 2) => "nd",
        (_, 3) => "rd",
        _ => "th",
    }
}

/// The `%` scan DATE_FORMAT and TIME_FORMAT share: each `%x` becomes `text(x)`; a
/// trailing `%` stays as it is. None when `text` gives up (TIME_FORMAT's date parts).
pub fn expand_format(
    format: &[u8],
    out: &mut Vec<u8>,
    mut text: impl FnMut(u8) -> Option<String>,
) -> Option<()> {
    let mut i = 0;
    while i < format.len() {
        let c = format[i];
        if c != b'%' || i + 1 == format.len() {
            out.push(c);
            i += 1;
            continue;
        }
        out.extend_from_slice(text(format[i + 1])?.as_bytes());
        i += 2;
    }
    Some(())
}

/// The hour, minute, second and AM/PM specifiers of both format functions (hours past 23
/// only from a TIME); None for any other specifier.
pub fn clock_specifier(
    spec: u8,
    hours: u32,
    minutes: u8,
    seconds: u8,
    microseconds: u32,
) -> Option<String> {
    let hour12 = match hours % 12 {
        0 => 12,
        h => h,
    };
    let am_pm = if hours % 24 < 12 { "AM" } else { "PM" };
    Some(match spec {
        b'H' => format!("{hours:02}"),
        b'k' => format!("{hours}"),
        b'h' | b'I' => format!("{hour12:02}"),
        b'l' => format!("{hour12}"),
        b'i' => format!("{minutes:02}"),
        b's' | b'S' => format!("{seconds:02}"),
        b'f' => format!("{microseconds:06}"),
        b'p' => am_pm.to_string(),
        b'T' => format!("{hours:02}:{minutes:02}:{seconds:02}"),
        b'r' => format!("{hour12:02}:{minutes:02}:{seconds:02} {am_pm}"),
        _ => return None,
    })
}

/// DATE_FORMAT with MySQL's specifiers; unknown specifiers print the character itself.
pub fn date_format(dt: &DateTime, format: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(format.len() + 16);
    let d = &dt.date;
    let clock = |spec| clock_specifier(spec, dt.hour.into(), dt.minute, dt.second, dt.microsecond);
    let expanded = expand_format(format, &mut out, |spec| {
        Some(clock(spec).unwrap_or_else(|| {
            match spec {
                b'Y' => format!("{:04}", d.year),
                b'y' => format!("{:02}", d.year % 100),
                b'm' => format!("{:02}", d.month),
                b'c' => format!("{}", d.month),
                b'd' => format!("{:02}", d.day),
                b'e' => format!("{}", d.day),
                b'D' => format!("{}{}", d.day, ordinal_suffix(d.day)),
                b'M' => month_name(d.month).unwrap_or("").to_string(),
                b'b' => month_name(d.month)
                    .map(|m| m[..3].to_string())
                    .unwrap_or_default(),
                b'W' => weekday(d)
                    .map(|w| DAY_NAMES[w as usize].to_string())
                    .unwrap_or_default(),
                b'a' => weekday(d)
                    .map(|w| DAY_NAMES[w as usize][..3].to_string())
                    .unwrap_or_default(),
                b'w' => weekday(d)
                    .map(|w| ((w + 1) % 7).to_string())
                    .unwrap_or_default(),
                b'j' => day_of_year(d)
                    .map(|n| format!("{n:03}"))
                    .unwrap_or_default(),
                b'U' => week_mode0(d).map(|n| format!("{n:02}")).unwrap_or_default(),
                other => (other as char).to_string(),
            }
        }))
    });
    debug_assert!(expanded.is_some(), "every DATE_FORMAT specifier has a text");
    out
}

pub fn month_name(month: u8) -> Option<&'static str> {
    MONTH_NAMES.get((month as usize).checked_sub(1)?).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dt(y: u16, m: u8, d: u8, h: u8, mi: u8, s: u8) -> DateTime {
        DateTime {
            date: Date {
                year: y,
                month: m,
                day: d,
            },
            hour: h,
            minute: mi,
            second: s,
            microsecond: 0,
        }
    }

    #[test]
    fn interval_arithmetic() {
        let base = dt(2024, 1, 31, 0, 0, 0);
        assert_eq!(
            add_interval(&base, 1, IntervalUnit::Month),
            Some(dt(2024, 2, 29, 0, 0, 0))
        );
        assert_eq!(
            add_interval(&base, -1, IntervalUnit::Hour),
            Some(dt(2024, 1, 30, 23, 0, 0))
        );
        assert_eq!(
            add_interval(&base, 1, IntervalUnit::Quarter),
            Some(dt(2024, 4, 30, 0, 0, 0))
        );
        assert_eq!(
            add_interval(&base, 1, IntervalUnit::Week),
            Some(dt(2024, 2, 7, 0, 0, 0))
        );
        assert_eq!(add_interval(&base, 8000, IntervalUnit::Year), None);
        assert_eq!(
            weekday(&Date {
                year: 2024,
                month: 1,
                day: 2
            }),
            Some(1)
        );
        assert_eq!(unix_seconds(&dt(2024, 1, 2, 0, 0, 0)), Some(1704153600));
        let f = date_format(
            &dt(2024, 1, 2, 3, 4, 5),
            b"%Y-%m-%d %H:%i:%s %W %M %a %b %j %e %c %y %p %T %r %D %f %h %I %l %k %%",
        );
        assert_eq!(
            String::from_utf8(f).expect("ascii"),
            "2024-01-02 03:04:05 Tuesday January Tue Jan 002 2 1 24 AM 03:04:05 03:04:05 AM 2nd 000000 03 03 3 3 %"
        );
        assert_eq!(
            week_mode0(&Date {
                year: 2024,
                month: 1,
                day: 7
            }),
            Some(1)
        );
    }
}

/// MAKEDATE(year, day_of_year): two-digit years as MySQL reads them (70..99 -> 19xx,
/// 0..69 -> 20xx); None for a day below 1 or a result past 9999-12-31.
pub fn make_date(year: i64, day_of_year: i64) -> Option<Date> {
    if !(0..=9999).contains(&year) || day_of_year < 1 {
        return None;
    }
    let year = match year {
        0..=69 => year + 2000,
        70..=99 => year + 1900,
        _ => year,
    };
    let first = Date {
        year: year as u16,
        month: 1,
        day: 1,
    };
    let date = Date::from_days(first.to_days()?.checked_add(day_of_year - 1)?)?;
    (date.year <= 9999).then_some(date)
}

/// TIMESTAMPDIFF(unit, a, b): whole units from a to b, truncated toward zero. Months
/// (and quarters, years) count only when b's day and time reach a's, as in MySQL.
pub fn timestamp_diff(unit: IntervalUnit, a: &DateTime, b: &DateTime) -> Option<i64> {
    let months_per = match unit {
        IntervalUnit::Month => Some(1),
        IntervalUnit::Quarter => Some(3),
        IntervalUnit::Year => Some(12),
        _ => None,
    };
    if let Some(per) = months_per {
        let month_index = |dt: &DateTime| dt.date.year as i64 * 12 + dt.date.month as i64;
        let rest = |dt: &DateTime| (dt.date.day, dt.hour, dt.minute, dt.second, dt.microsecond);
        let mut months = month_index(b) - month_index(a);
        if months > 0 && rest(b) < rest(a) {
            months -= 1;
        } else if months < 0 && rest(b) > rest(a) {
            months += 1;
        }
        return Some(months / per);
    }
    let unit_micros = fixed_unit_micros(unit)?;
    i64::try_from((to_micros(b)? - to_micros(a)?) / unit_micros).ok()
}

/// What STR_TO_DATE's format yields: a date, a date and time, or a time alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatParts {
    Date,
    DateTime,
    Time,
}

/// The parts a STR_TO_DATE format sets (MariaDB picks the result type from them).
pub fn format_parts(format: &[u8]) -> FormatParts {
    let (mut date, mut time) = (false, false);
    let mut i = 0;
    while i + 1 < format.len() {
        if format[i] == b'%' {
            match format[i + 1] {
                b'd' | b'e' | b'm' | b'c' | b'Y' | b'y' | b'M' | b'b' | b'j' | b'a' | b'W'
                | b'D' | b'U' | b'u' | b'V' | b'v' | b'X' | b'x' | b'w' => date = true,
                b'H' | b'k' | b'h' | b'I' | b'l' | b'i' | b's' | b'S' | b'f' | b'p' | b'T'
                | b'r' => time = true,
                _ => {}
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    match (date, time) {
        (true, true) => FormatParts::DateTime,
        (false, true) => FormatParts::Time,
        _ => FormatParts::Date,
    }
}

/// STR_TO_DATE(text, format): the inverse of DATE_FORMAT for the numeric and name
/// specifiers; None when the text does not match the format (the caller warns 1411).
pub fn str_to_date(text: &[u8], format: &[u8]) -> Option<DateTime> {
    let mut dt = DateTime::default();
    let (mut t, mut f) = (0, 0);
    let mut pm = None;
    let mut hour12 = false;
    let skip_spaces = |t: &mut usize| {
        while *t < text.len() && text[*t].is_ascii_whitespace() {
            *t += 1;
        }
    };
    let number = |t: &mut usize, max_digits: usize| -> Option<u32> {
        let start = *t;
        while *t < text.len() && *t - start < max_digits && text[*t].is_ascii_digit() {
            *t += 1;
        }
        std::str::from_utf8(&text[start..*t]).ok()?.parse().ok()
    };
    while f < format.len() {
        if format[f].is_ascii_whitespace() {
            f += 1;
            skip_spaces(&mut t);
            continue;
        }
        if format[f] != b'%' || f + 1 == format.len() {
            if text.get(t) != Some(&format[f]) {
                return None;
            }
            t += 1;
            f += 1;
            continue;
        }
        let spec = format[f + 1];
        f += 2;
        if spec != b'%' && spec != b'p' {
            skip_spaces(&mut t);
        }
        match spec {
            b'd' | b'e' => dt.date.day = number(&mut t, 2)? as u8,
            b'm' | b'c' => dt.date.month = number(&mut t, 2)? as u8,
            b'Y' => {
                let start = t;
                let y = number(&mut t, 4)?;
                dt.date.year = if t - start <= 2 {
                    two_digit_year(y)
                } else {
                    y as u16
                };
            }
            b'y' => dt.date.year = two_digit_year(number(&mut t, 2)?),
            b'j' => {
                let day = number(&mut t, 3)?;
                let date = make_date(dt.date.year as i64, day as i64)?;
                dt.date = date;
            }
            b'H' | b'k' => dt.hour = number(&mut t, 2)? as u8,
            b'h' | b'I' | b'l' => {
                dt.hour = number(&mut t, 2)? as u8;
                hour12 = true;
            }
            b'i' => dt.minute = number(&mut t, 2)? as u8,
            b's' | b'S' => dt.second = number(&mut t, 2)? as u8,
            b'f' => {
                let start = t;
                let digits = number(&mut t, 6)?;
                dt.microsecond = digits * 10u32.pow(6 - (t - start) as u32);
            }
            b'p' => {
                let word = text.get(t..t + 2)?.to_ascii_uppercase();
                pm = Some(match word.as_slice() {
                    b"AM" => false,
                    b"PM" => true,
                    _ => return None,
                });
                t += 2;
            }
            b'M' | b'b' => {
                let rest = &text[t..];
                let (month, len) = MONTH_NAMES.iter().enumerate().find_map(|(i, name)| {
                    let len = if spec == b'b' { 3 } else { name.len() };
                    rest.get(..len)
                        .filter(|w| w.eq_ignore_ascii_case(&name.as_bytes()[..len]))
                        .map(|_| (i as u8 + 1, len))
                })?;
                dt.date.month = month;
                t += len;
            }
            b'a' | b'W' => {
                let rest = &text[t..];
                let len = DAY_NAMES.iter().find_map(|name| {
                    let len = if spec == b'a' { 3 } else { name.len() };
                    rest.get(..len)
                        .filter(|w| w.eq_ignore_ascii_case(&name.as_bytes()[..len]))
                        .map(|_| len)
                })?;
                t += len;
            }
            b'T' => {
                dt.hour = number(&mut t, 2)? as u8;
                (text.get(t) == Some(&b':')).then_some(())?;
                t += 1;
                dt.minute = number(&mut t, 2)? as u8;
                (text.get(t) == Some(&b':')).then_some(())?;
                t += 1;
                dt.second = number(&mut t, 2)? as u8;
            }
            b'%' => {
                (text.get(t) == Some(&b'%')).then_some(())?;
                t += 1;
            }
            _ => return None,
        }
    }
    if let Some(pm) = pm {
        if !hour12 || dt.hour == 0 || dt.hour > 12 {
            return None;
        }
        dt.hour = dt.hour % 12 + if pm { 12 } else { 0 };
    }
    // MariaDB checks each part's range, not the day against its month: '31/02/2024'
    // gives 2024-02-31.
    let valid = dt.date.month <= 12
        && dt.date.day <= 31
        && dt.hour < 24
        && dt.minute < 60
        && dt.second < 60;
    valid.then_some(dt)
}

fn two_digit_year(y: u32) -> u16 {
    match y {
        0..=69 => 2000 + y as u16,
        70..=99 => 1900 + y as u16,
        _ => y as u16,
    }
}

#[cfg(test)]
mod parse_tests {
    use super::*;

    fn dt(text: &str) -> DateTime {
        let (date, time) = text.split_once(' ').unwrap_or((text, "00:00:00"));
        let d: Vec<u32> = date
            .split('-')
            .map(|p| p.parse().expect("digits"))
            .collect();
        let t: Vec<u32> = time
            .split(':')
            .map(|p| p.parse().expect("digits"))
            .collect();
        DateTime {
            date: Date {
                year: d[0] as u16,
                month: d[1] as u8,
                day: d[2] as u8,
            },
            hour: t[0] as u8,
            minute: t[1] as u8,
            second: t[2] as u8,
            microsecond: 0,
        }
    }

    #[test]
    fn str_to_date_cases() {
        let cases: &[(&str, &str, Option<&str>)] = &[
            ("15/03/2024", "%d/%m/%Y", Some("2024-03-15")),
            (
                "2024-03-15 07:08:09",
                "%Y-%m-%d %H:%i:%s",
                Some("2024-03-15 07:08:09"),
            ),
            ("March 5 2024", "%M %e %Y", Some("2024-03-05")),
            ("5 pm 24", "%l %p %y", Some("2024-00-00 17:00:00")),
            ("32/02/2024", "%d/%m/%Y", None),
            ("15-03-2024", "%d/%m/%Y", None),
        ];
        for (text, format, want) in cases {
            let got = str_to_date(text.as_bytes(), format.as_bytes());
            let want = want.map(|w| {
                let mut d = dt(&w.replace("-00-00", "-01-01"));
                if w.contains("-00-00") {
                    d.date.month = 0;
                    d.date.day = 0;
                }
                d
            });
            assert_eq!(got, want, "STR_TO_DATE('{text}', '{format}')");
        }
        assert_eq!(format_parts(b"%d/%m/%Y"), FormatParts::Date);
        assert_eq!(format_parts(b"%Y %H"), FormatParts::DateTime);
        assert_eq!(format_parts(b"%H:%i"), FormatParts::Time);
    }

    #[test]
    fn timestamp_diff_cases() {
        let cases = [
            (IntervalUnit::Day, "2024-01-01", "2024-03-01", 60),
            (IntervalUnit::Month, "2024-01-31", "2024-03-01", 1),
            (IntervalUnit::Month, "2024-03-01", "2024-01-31", -1),
            (IntervalUnit::Year, "2000-02-29", "2024-02-28", 23),
            (
                IntervalUnit::Hour,
                "2024-01-01 10:00:00",
                "2024-01-01 07:30:00",
                -2,
            ),
        ];
        for (unit, a, b, want) in cases {
            assert_eq!(
                timestamp_diff(unit, &dt(a), &dt(b)),
                Some(want),
                "{unit:?} {a} {b}"
            );
        }
    }

    #[test]
    fn make_date_cases() {
        assert_eq!(make_date(2024, 60), Some(dt("2024-02-29").date));
        assert_eq!(make_date(99, 1), Some(dt("1999-01-01").date));
        assert_eq!(make_date(2024, 0), None);
        assert_eq!(make_date(9999, 366), None);
    }
}

/// Microseconds in one `unit`, for the units of fixed length (not MONTH, QUARTER, YEAR).
fn fixed_unit_micros(unit: IntervalUnit) -> Option<i128> {
    Some(match unit {
        IntervalUnit::Microsecond => 1,
        IntervalUnit::Second => MICROS_PER_SECOND,
        IntervalUnit::Minute => 60 * MICROS_PER_SECOND,
        IntervalUnit::Hour => 3600 * MICROS_PER_SECOND,
        IntervalUnit::Day => MICROS_PER_DAY,
        IntervalUnit::Week => 7 * MICROS_PER_DAY,
        _ => return None,
    })
}
