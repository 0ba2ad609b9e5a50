//! DATE and DATETIME values, stored field by field so MySQL's zero dates
//! ('0000-00-00') and partial dates are representable and ordering is field order;
//! TIME values, a signed duration in microseconds.
//!
//! Invariants:
//! (1) A `Time` is always within -838:59:59.999999..=838:59:59.999999 (MySQL's TIME
//!     range): `Time::new` refuses anything else, so every layer can format, encode and
//!     compare it without checks.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Date {
    pub year: u16,
    pub month: u8,
    pub day: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct DateTime {
    pub date: Date,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    pub microsecond: u32,
}

/// A TIME: a signed duration, not a time of day ('-12:00:00' and '100:00:00' are TIMEs).
/// Ordering is that of the duration, so negative times sort first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Time {
    microseconds: i64,
}

impl Time {
    pub const MICROS_PER_SECOND: i64 = 1_000_000;
    /// 838:59:59.999999, the largest TIME (the smallest is its negation).
    pub const MAX: Time = Time {
        microseconds: (838 * 3600 + 59 * 60 + 59) * Time::MICROS_PER_SECOND + 999_999,
    };

    /// The TIME of a signed microsecond count, None outside the TIME range (invariant (1)).
    pub fn new(microseconds: i64) -> Option<Time> {
        (microseconds.abs() <= Time::MAX.microseconds).then_some(Time { microseconds })
    }

    /// The TIME nearest to `microseconds` within the range, and whether it was clipped.
    pub fn clipped(microseconds: i128) -> (Time, bool) {
        let max = Time::MAX.microseconds as i128;
        let inside = microseconds.clamp(-max, max);
        (
            Time {
                microseconds: inside as i64,
            },
            inside != microseconds,
        )
    }

    pub fn microseconds(&self) -> i64 {
        self.microseconds
    }

    pub fn is_negative(&self) -> bool {
        self.microseconds < 0
    }

    /// The magnitude as (hours, minutes, seconds, microseconds); hours may exceed 23.
    pub fn parts(&self) -> (u32, u8, u8, u32) {
        let magnitude = self.microseconds.unsigned_abs();
        let seconds = magnitude / Time::MICROS_PER_SECOND as u64;
        (
            (seconds / 3600) as u32,
            (seconds / 60 % 60) as u8,
            (seconds % 60) as u8,
            (magnitude % Time::MICROS_PER_SECOND as u64) as u32,
        )
    }

    /// The time cut to `fsp` fraction digits (toward zero, as MariaDB stores a TIME(fsp)).
    pub fn truncate(&self, fsp: u8) -> Time {
        let unit = 10i64.pow(6 - fsp.min(6) as u32);
        Time {
            microseconds: self.microseconds / unit * unit,
        }
    }

    pub fn negated(&self) -> Time {
        Time {
            microseconds: -self.microseconds,
        }
    }

    /// The time of day of a DATETIME.
    pub fn of_day(dt: &DateTime) -> Time {
        let seconds = dt.hour as i64 * 3600 + dt.minute as i64 * 60 + dt.second as i64;
        Time {
            microseconds: seconds * Time::MICROS_PER_SECOND + dt.microsecond as i64,
        }
    }
}

impl Date {
    pub fn is_zero(&self) -> bool {
        self.year == 0 && self.month == 0 && self.day == 0
    }

    /// MySQL's day number (TO_DAYS): TO_DAYS('0000-01-01') = 1, TO_DAYS('1970-01-01') = 719528.
    /// MySQL's calendar is proleptic Gregorian except that year 0 is not a leap year.
    /// None for dates with a zero month or day.
    pub fn to_days(&self) -> Option<i64> {
        if self.month == 0 || self.day == 0 || self.month > 12 {
            return None;
        }
        let (y, m, d) = (self.year as i64, self.month as i64, self.day as i64);
        if y == 0 {
            let before: i64 = (1..m)
                .map(|mm| Date::days_in_month(1, mm as u8) as i64)
                .sum();
            return Some(before + d);
        }
        Some(days_from_civil(y, m, d) + 719528)
    }

    /// Inverse of `to_days` for day numbers 1..=3652424 (0000-01-01..9999-12-31).
    pub fn from_days(days: i64) -> Option<Date> {
        if !(1..=3652424).contains(&days) {
            return None;
        }
        if days <= 365 {
            let mut rest = days;
            for month in 1..=12u8 {
                let len = Date::days_in_month(1, month) as i64;
                if rest <= len {
                    return Some(Date {
                        year: 0,
                        month,
                        day: rest as u8,
                    });
                }
                rest -= len;
            }
        }
        let (y, m, d) = civil_from_days(days - 719528);
        Some(Date {
            year: y as u16,
            month: m as u8,
            day: d as u8,
        })
    }

    pub fn days_in_month(year: u16, month: u8) -> u8 {
        match month {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if is_leap_year(year) => 29,
            2 => 28,
            _ => 0,
        }
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    (y, m, d)
}

pub fn is_leap_year(year: u16) -> bool {
    (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400)
}

impl DateTime {
    pub fn from_date(date: Date) -> DateTime {
        DateTime {
            date,
            ..DateTime::default()
        }
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl DateTime {
    /// Formats with `fsp` fractional digits (0..=6), as MySQL shows a DATETIME(fsp).
    pub fn format(&self, fsp: u8) -> String {
        let mut s = format!(
            "{} {:02}:{:02}:{:02}",
            self.date, self.hour, self.minute, self.second
        );
        if fsp > 0 {
            let frac = format!("{:06}", self.microsecond);
            s.push('.');
            s.push_str(&frac[..fsp.min(6) as usize]);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_range_and_parts() {
        assert_eq!(Time::new(Time::MAX.microseconds() + 1), None);
        assert_eq!(
            Time::new(-Time::MAX.microseconds()),
            Some(Time::MAX.negated())
        );
        assert_eq!(Time::MAX.parts(), (838, 59, 59, 999_999));
        assert_eq!(
            Time::clipped(-10_000_000_000_000),
            (Time::MAX.negated(), true)
        );
        let t = Time::new(-(3600 * 1_000_000 + 123_456)).expect("in range");
        assert_eq!(t.parts(), (1, 0, 0, 123_456));
        assert_eq!(t.truncate(2).microseconds(), -(3600 * 1_000_000 + 120_000));
    }

    #[test]
    fn to_days_matches_mysql() {
        // Reference values from MariaDB: SELECT TO_DAYS('2024-02-29'), TO_DAYS('0000-01-01').
        assert_eq!(
            Date {
                year: 2024,
                month: 2,
                day: 29
            }
            .to_days(),
            Some(739310)
        );
        assert_eq!(
            Date {
                year: 0,
                month: 1,
                day: 1
            }
            .to_days(),
            Some(1)
        );
        assert_eq!(
            Date {
                year: 1970,
                month: 1,
                day: 1
            }
            .to_days(),
            Some(719528)
        );
        for days in [1, 59, 60, 365, 366, 719528, 739310, 3652424] {
            let d = Date::from_days(days).expect("in range");
            assert_eq!(d.to_days(), Some(days), "{d}");
        }
    }
}
