//! Session time zones: what `time_zone` may be set to, and the shift between UTC and the
//! session's local time.
//!
//! A zone is `SYSTEM` (manycore's system zone is UTC: `system_time_zone`) or a fixed
//! offset `[+|-]H:MM` from -12:59 to +13:00, which is what MariaDB accepts without its
//! time zone tables. Named zones ('UTC', 'Europe/Paris') need those tables, which manycore
//! does not have: SET gives 1298 and CONVERT_TZ gives NULL for them, as MariaDB does on a
//! server whose tables were never loaded.
//!
//! Invariants:
//! (1) TIMESTAMP cells hold UTC. A value stored into a TIMESTAMP column is read as the
//!     session's local time and shifted to UTC (`to_utc`); a TIMESTAMP column read by an
//!     expression is shifted to local time (`from_utc`). Every other temporal value is
//!     local time and never shifted. With offsets only, the shift is a bijection, so index
//!     keys built from local bounds (`to_utc`) find exactly the rows a comparison accepts.
//! (2) The zero datetime ('0000-00-00 00:00:00') is never shifted.
//! (3) A TIMESTAMP cell is the zero datetime or within MariaDB's range, 1970-01-01
//!     00:00:01 to 2038-01-19 03:14:07.999999 UTC (seconds since the epoch in 32 bits):
//!     store assignment refuses the rest (`in_timestamp_range`).

use super::temporal::{from_micros, to_micros};
use super::SessionContext;
use manycore_types::{DataType, Date, DateTime, Value};

const SECONDS_PER_MINUTE: i32 = 60;
const SECONDS_PER_HOUR: i32 = 3600;
/// MariaDB's range for offsets (tztime.cc: "-12:59 to 13:00").
const OFFSET_MIN_SECONDS: i32 = -(12 * SECONDS_PER_HOUR + 59 * SECONDS_PER_MINUTE);
const OFFSET_MAX_SECONDS: i32 = 13 * SECONDS_PER_HOUR;

/// A session's time zone: `None` offset is SYSTEM.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeZone {
    offset_seconds: Option<i32>,
}

impl TimeZone {
    pub const SYSTEM: TimeZone = TimeZone {
        offset_seconds: None,
    };

    /// Parses a `time_zone` value; None for names and malformed or out-of-range offsets.
    pub fn parse(text: &str) -> Option<TimeZone> {
        if text.eq_ignore_ascii_case("SYSTEM") {
            return Some(TimeZone::SYSTEM);
        }
        let (negative, rest) = match text.as_bytes().first()? {
            b'+' => (false, &text[1..]),
            b'-' => (true, &text[1..]),
            _ => return None,
        };
        let (hours, minutes) = rest.split_once(':')?;
        let digits = |s: &str| {
            (!s.is_empty() && s.len() <= 2 && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse::<i32>().ok())
                .flatten()
        };
        let (hours, minutes) = (digits(hours)?, digits(minutes)?);
        if minutes > 59 {
            return None;
        }
        let magnitude = hours * SECONDS_PER_HOUR + minutes * SECONDS_PER_MINUTE;
        let offset = if negative { -magnitude } else { magnitude };
        (OFFSET_MIN_SECONDS..=OFFSET_MAX_SECONDS)
            .contains(&offset)
            .then_some(TimeZone {
                offset_seconds: Some(offset),
            })
    }

    /// The name `@@time_zone` shows: `SYSTEM` or the offset as `+hh:mm`.
    pub fn name(&self) -> String {
        match self.offset_seconds {
            None => "SYSTEM".to_string(),
            Some(offset) => {
                let sign = if offset < 0 { '-' } else { '+' };
                let magnitude = offset.abs();
                format!(
                    "{sign}{:02}:{:02}",
                    magnitude / SECONDS_PER_HOUR,
                    magnitude % SECONDS_PER_HOUR / SECONDS_PER_MINUTE
                )
            }
        }
    }

    /// Seconds to add to UTC to get local time (SYSTEM is UTC).
    pub fn offset_seconds(&self) -> i32 {
        self.offset_seconds.unwrap_or(0)
    }

    /// Local time of a UTC datetime (invariant (2)); unchanged if the shift leaves the
    /// DATETIME range.
    pub fn from_utc(&self, utc: DateTime) -> DateTime {
        shift(utc, self.offset_seconds())
    }

    /// UTC of a local datetime (invariant (2)); unchanged if the shift leaves the range.
    pub fn to_utc(&self, local: DateTime) -> DateTime {
        shift(local, -self.offset_seconds())
    }
}

/// The cell a column of `data_type` keeps for `value`, already of that type: a TIMESTAMP
/// keeps UTC (invariant (1)); any other type the value itself, without asking the session.
pub fn stored_cell(data_type: &DataType, value: Value, session: &dyn SessionContext) -> Value {
    match (data_type, value) {
        (DataType::Timestamp { .. }, Value::DateTime(local)) => {
            Value::DateTime(session.time_zone().to_utc(local))
        }
        (_, value) => value,
    }
}

/// What a cell of `data_type` shows in `zone`: a TIMESTAMP's UTC as local time (invariant
/// (1)), any other cell as it is. The inverse of `stored_cell`.
pub fn shown_cell(data_type: &DataType, cell: Value, zone: TimeZone) -> Value {
    match (data_type, cell) {
        (DataType::Timestamp { .. }, Value::DateTime(utc)) => Value::DateTime(zone.from_utc(utc)),
        (_, cell) => cell,
    }
}

/// Invariant (3), for a UTC datetime.
pub fn in_timestamp_range(utc: &DateTime) -> bool {
    let first = DateTime {
        date: Date {
            year: 1970,
            month: 1,
            day: 1,
        },
        hour: 0,
        minute: 0,
        second: 1,
        microsecond: 0,
    };
    let last = DateTime {
        date: Date {
            year: 2038,
            month: 1,
            day: 19,
        },
        hour: 3,
        minute: 14,
        second: 7,
        microsecond: 999_999,
    };
    *utc == DateTime::default() || (first..=last).contains(utc)
}

fn shift(dt: DateTime, seconds: i32) -> DateTime {
    if seconds == 0 || dt == DateTime::default() {
        return dt;
    }
    to_micros(&dt)
        .and_then(|micros| from_micros(micros + seconds as i128 * 1_000_000))
        .unwrap_or(dt)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(year: u16, month: u8, day: u8, hour: u8, minute: u8) -> DateTime {
        DateTime {
            date: Date { year, month, day },
            hour,
            minute,
            second: 0,
            microsecond: 0,
        }
    }

    #[test]
    fn parses_what_mariadb_accepts_without_time_zone_tables() {
        let offset = |text: &str| TimeZone::parse(text).map(|z| z.offset_seconds());
        assert_eq!(TimeZone::parse("system"), Some(TimeZone::SYSTEM));
        assert_eq!(offset("+02:00"), Some(7200));
        assert_eq!(offset("+2:00"), Some(7200));
        assert_eq!(offset("-05:30"), Some(-19_800));
        assert_eq!(offset("-12:59"), Some(-46_740));
        assert_eq!(offset("+13:00"), Some(46_800));
        for bad in [
            "UTC", "+13:01", "-13:00", "+1:60", "+01", "01:00", "+:00", "+1:", "+001:00", "",
        ] {
            assert_eq!(TimeZone::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn names_are_normalized() {
        let name = |text: &str| TimeZone::parse(text).map(|z| z.name());
        assert_eq!(name("+2:00").as_deref(), Some("+02:00"));
        assert_eq!(name("-0:30").as_deref(), Some("-00:30"));
        assert_eq!(name("-00:00").as_deref(), Some("+00:00"));
        assert_eq!(name("System").as_deref(), Some("SYSTEM"));
    }

    #[test]
    fn shifts_both_ways_and_never_the_zero_date() {
        let zone = TimeZone::parse("+02:00").expect("valid");
        let utc = at(2019, 12, 31, 23, 30);
        assert_eq!(zone.from_utc(utc), at(2020, 1, 1, 1, 30));
        assert_eq!(zone.to_utc(zone.from_utc(utc)), utc);
        assert_eq!(zone.from_utc(DateTime::default()), DateTime::default());
        assert_eq!(TimeZone::SYSTEM.from_utc(utc), utc);
    }

    #[test]
    fn the_timestamp_range_is_mariadbs_and_keeps_the_zero_datetime() {
        let second = |dt: DateTime, second: u8, microsecond: u32| DateTime {
            second,
            microsecond,
            ..dt
        };
        assert!(!in_timestamp_range(&at(1970, 1, 1, 0, 0)));
        assert!(in_timestamp_range(&second(at(1970, 1, 1, 0, 0), 1, 0)));
        assert!(in_timestamp_range(&second(
            at(2038, 1, 19, 3, 14),
            7,
            999_999
        )));
        assert!(!in_timestamp_range(&second(at(2038, 1, 19, 3, 14), 8, 0)));
        assert!(!in_timestamp_range(&at(1969, 12, 31, 23, 59)));
        assert!(in_timestamp_range(&DateTime::default()));
    }
}
