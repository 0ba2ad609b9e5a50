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
    let unit_micros: i128 = match unit {
        IntervalUnit::Microsecond => 1,
        IntervalUnit::Second => MICROS_PER_SECOND,
        IntervalUnit::Minute => 60 * MICROS_PER_SECOND,
        IntervalUnit::Hour => 3600 * MICROS_PER_SECOND,
        IntervalUnit::Day => MICROS_PER_DAY,
        IntervalUnit::Week => 7 * MICROS_PER_DAY,
        _ => return None,
    };
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

/// DATE_FORMAT with MySQL's specifiers; unknown specifiers print the character itself.
pub fn date_format(dt: &DateTime, format: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(format.len() + 16);
    let d = &dt.date;
    let hour12 = match dt.hour % 12 {
        0 => 12,
        h => h,
    };
    let am_pm = if dt.hour < 12 { "AM" } else { "PM" };
    let mut i = 0;
    while i < format.len() {
        let c = format[i];
        if c != b'%' || i + 1 == format.len() {
            out.push(c);
            i += 1;
            continue;
        }
        let spec = format[i + 1];
        i += 2;
        let text = match spec {
            b'Y' => format!("{:04}", d.year),
            b'y' => format!("{:02}", d.year % 100),
            b'm' => format!("{:02}", d.month),
            b'c' => format!("{}", d.month),
            b'd' => format!("{:02}", d.day),
            b'e' => format!("{}", d.day),
            b'D' => format!("{}{}", d.day, ordinal_suffix(d.day)),
            b'H' => format!("{:02}", dt.hour),
            b'k' => format!("{}", dt.hour),
            b'h' | b'I' => format!("{hour12:02}"),
            b'l' => format!("{hour12}"),
            b'i' => format!("{:02}", dt.minute),
            b's' | b'S' => format!("{:02}", dt.second),
            b'f' => format!("{:06}", dt.microsecond),
            b'p' => am_pm.to_string(),
            b'T' => format!("{:02}:{:02}:{:02}", dt.hour, dt.minute, dt.second),
            b'r' => format!("{hour12:02}:{:02}:{:02} {am_pm}", dt.minute, dt.second),
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
        };
        out.extend_from_slice(text.as_bytes());
    }
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
