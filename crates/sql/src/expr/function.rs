//! Scalar functions: the set, their names, arity, result types and evaluation.
//!
//! Invariants:
//! (1) `Function::lookup` knows every name bind accepts; an unknown name is error 1305
//!     ("FUNCTION db.name does not exist"), a wrong argument count 1582.
//! (2) `result_type` is computed once at bind time; `call` returns values of that type's
//!     representation (mod.rs invariant (1)) or NULL.
//! (3) IF, IFNULL, COALESCE and CASE evaluate only the arguments they need, so a warning
//!     (or error) of an unused branch never surfaces.

use super::coerce::{
    self, compare, string_collation, to_bytes, to_decimal, to_f64, to_i128, to_i64, to_temporal,
};
use super::int_length::{int_length, rounded_digits};
use super::json::JsonFunction;
use super::temporal::{self as tm};
use super::{EvalContext, Expr, TimeZone};
use crate::error::{Error, ErrorCode, Result};
use manycore_types::{DataType, DateTime, Decimal, IntWidth, LobSize, Value, NOT_FIXED_DECIMALS};
use std::cmp::Ordering;

/// Units of `INTERVAL n unit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntervalUnit {
    Microsecond,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
    Year,
}

impl IntervalUnit {
    /// True for units that can leave a DATE a DATE.
    pub fn is_date_unit(self) -> bool {
        matches!(
            self,
            IntervalUnit::Day
                | IntervalUnit::Week
                | IntervalUnit::Month
                | IntervalUnit::Quarter
                | IntervalUnit::Year
        )
    }

    pub fn name(self) -> &'static str {
        match self {
            IntervalUnit::Microsecond => "MICROSECOND",
            IntervalUnit::Second => "SECOND",
            IntervalUnit::Minute => "MINUTE",
            IntervalUnit::Hour => "HOUR",
            IntervalUnit::Day => "DAY",
            IntervalUnit::Week => "WEEK",
            IntervalUnit::Month => "MONTH",
            IntervalUnit::Quarter => "QUARTER",
            IntervalUnit::Year => "YEAR",
        }
    }
}

/// Which end(s) TRIM works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TrimSide {
    Both,
    Leading,
    Trailing,
}

/// A scalar function. Aliases (CEILING, SUBSTR, MID, UCASE, POSITION, ...) bind to one
/// member; POSITION(a IN b) and INSTR(b, a) bind to `Locate` with arguments reordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Function {
    Abs,
    Ceil,
    Floor,
    Round,
    Truncate,
    Mod,
    Pow,
    Sqrt,
    Exp,
    Ln,
    Log,
    Log2,
    Log10,
    Sign,
    Pi,
    Rand,
    Greatest,
    Least,
    Coalesce,
    IfNull,
    NullIf,
    If,
    IsNull,
    Concat,
    ConcatWs,
    Length,
    CharLength,
    Upper,
    Lower,
    Substring,
    Left,
    Right,
    Trim(TrimSide),
    Replace,
    Reverse,
    Repeat,
    Space,
    Lpad,
    Rpad,
    /// LOCATE(substr, str[, pos]).
    Locate,
    Ascii,
    /// ORD(str): the first character's bytes as a big-endian number.
    Ord,
    Quote,
    /// INSERT(str, pos, len, newstr).
    Insert,
    /// CONV(n, from_base, to_base); BIN and OCT bind to it with bases 10 -> 2 and 8.
    Conv,
    Char,
    Hex,
    Unhex,
    Md5,
    Sha1,
    Sha2,
    Strcmp,
    Format,
    Field,
    Elt,
    FindInSet,
    Now,
    SysDate,
    CurDate,
    /// CURTIME([fsp]) / CURRENT_TIME.
    CurTime,
    UtcTimestamp,
    UtcDate,
    UtcTime,
    /// CONVERT_TZ(datetime, from, to): `time_zone` module.
    ConvertTz,
    /// TIME(expr); the TIME functions are evaluated in `expr::time`.
    TimeOf,
    TimeToSec,
    SecToTime,
    TimeDiff,
    AddTime,
    SubTime,
    TimeFormat,
    MakeTime,
    UnixTimestamp,
    FromUnixtime,
    Date,
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    Microsecond,
    DayOfWeek,
    DayOfYear,
    Weekday,
    Week,
    Quarter,
    DayName,
    MonthName,
    DateFormat,
    /// DATE_ADD(d, INTERVAL n unit), `d + INTERVAL n unit`, ADDDATE.
    DateAdd(IntervalUnit),
    DateSub(IntervalUnit),
    DateDiff,
    ToDays,
    FromDays,
    LastDay,
    MakeDate,
    StrToDate,
    /// TIMESTAMPDIFF(unit, a, b).
    TimestampDiff(IntervalUnit),
    Database,
    User,
    CurrentUser,
    ConnectionId,
    LastInsertId,
    Version,
    FoundRows,
    RowCount,
    Charset,
    BitCount,
    Crc32,
    Uuid,
    UuidShort,
    Sleep,
    LoadFile,
    GetLock,
    ReleaseLock,
    ReleaseAllLocks,
    IsFreeLock,
    IsUsedLock,
    /// The JSON functions (`expr::json`).
    Json(JsonFunction),
}

const MANY: usize = usize::MAX;

impl Function {
    /// The function for an (upper-cased) SQL name; DATE_ADD-style names need their unit
    /// and are resolved by bind.
    pub fn lookup(name: &str) -> Option<Function> {
        use Function::*;
        Some(match name {
            "ABS" => Abs,
            "CEIL" | "CEILING" => Ceil,
            "FLOOR" => Floor,
            "ROUND" => Round,
            "TRUNCATE" => Truncate,
            "MOD" => Mod,
            "POW" | "POWER" => Pow,
            "SQRT" => Sqrt,
            "EXP" => Exp,
            "LN" => Ln,
            "LOG" => Log,
            "LOG2" => Log2,
            "LOG10" => Log10,
            "SIGN" => Sign,
            "PI" => Pi,
            "RAND" => Rand,
            "GREATEST" => Greatest,
            "LEAST" => Least,
            "COALESCE" => Coalesce,
            "IFNULL" | "NVL" => IfNull,
            "NULLIF" => NullIf,
            "IF" => If,
            "ISNULL" => IsNull,
            "CONCAT" => Concat,
            "CONCAT_WS" => ConcatWs,
            "LENGTH" | "OCTET_LENGTH" => Length,
            "CHAR_LENGTH" | "CHARACTER_LENGTH" => CharLength,
            "UPPER" | "UCASE" => Upper,
            "LOWER" | "LCASE" => Lower,
            "SUBSTRING" | "SUBSTR" | "MID" => Substring,
            "LEFT" => Left,
            "RIGHT" => Right,
            "TRIM" => Trim(TrimSide::Both),
            "LTRIM" => Trim(TrimSide::Leading),
            "RTRIM" => Trim(TrimSide::Trailing),
            "REPLACE" => Replace,
            "REVERSE" => Reverse,
            "REPEAT" => Repeat,
            "SPACE" => Space,
            "LPAD" => Lpad,
            "RPAD" => Rpad,
            "LOCATE" | "POSITION" | "INSTR" => Locate,
            "ASCII" => Ascii,
            "ORD" => Ord,
            "QUOTE" => Quote,
            "INSERT" => Insert,
            "CONV" => Conv,
            "CHAR" => Char,
            "HEX" => Hex,
            "UNHEX" => Unhex,
            "MD5" => Md5,
            "SHA1" | "SHA" => Sha1,
            "SHA2" => Sha2,
            "STRCMP" => Strcmp,
            "FORMAT" => Format,
            "FIELD" => Field,
            "ELT" => Elt,
            "FIND_IN_SET" => FindInSet,
            "NOW" | "CURRENT_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" => Now,
            "SYSDATE" => SysDate,
            "CURDATE" | "CURRENT_DATE" => CurDate,
            "CURTIME" | "CURRENT_TIME" => CurTime,
            "UTC_TIMESTAMP" => UtcTimestamp,
            "UTC_DATE" => UtcDate,
            "UTC_TIME" => UtcTime,
            "CONVERT_TZ" => ConvertTz,
            "TIME" => TimeOf,
            "TIME_TO_SEC" => TimeToSec,
            "SEC_TO_TIME" => SecToTime,
            "TIMEDIFF" => TimeDiff,
            "ADDTIME" => AddTime,
            "SUBTIME" => SubTime,
            "TIME_FORMAT" => TimeFormat,
            "MAKETIME" => MakeTime,
            "UNIX_TIMESTAMP" => UnixTimestamp,
            "FROM_UNIXTIME" => FromUnixtime,
            "DATE" => Date,
            "YEAR" => Year,
            "MONTH" => Month,
            "DAY" | "DAYOFMONTH" => Day,
            "HOUR" => Hour,
            "MINUTE" => Minute,
            "SECOND" => Second,
            "MICROSECOND" => Microsecond,
            "DAYOFWEEK" => DayOfWeek,
            "DAYOFYEAR" => DayOfYear,
            "WEEKDAY" => Weekday,
            "WEEK" => Week,
            "QUARTER" => Quarter,
            "DAYNAME" => DayName,
            "MONTHNAME" => MonthName,
            "DATE_FORMAT" => DateFormat,
            "DATEDIFF" => DateDiff,
            "TO_DAYS" => ToDays,
            "FROM_DAYS" => FromDays,
            "LAST_DAY" => LastDay,
            "MAKEDATE" => MakeDate,
            "STR_TO_DATE" => StrToDate,
            "DATABASE" | "SCHEMA" => Database,
            "USER" | "SESSION_USER" | "SYSTEM_USER" => User,
            "CURRENT_USER" => CurrentUser,
            "CONNECTION_ID" => ConnectionId,
            "LAST_INSERT_ID" => LastInsertId,
            "VERSION" => Version,
            "FOUND_ROWS" => FoundRows,
            "ROW_COUNT" => RowCount,
            "CHARSET" => Charset,
            "BIT_COUNT" => BitCount,
            "CRC32" => Crc32,
            "UUID" => Uuid,
            "UUID_SHORT" => UuidShort,
            "SLEEP" => Sleep,
            "LOAD_FILE" => LoadFile,
            "GET_LOCK" => GetLock,
            "RELEASE_LOCK" => ReleaseLock,
            "RELEASE_ALL_LOCKS" => ReleaseAllLocks,
            "IS_FREE_LOCK" => IsFreeLock,
            "IS_USED_LOCK" => IsUsedLock,
            _ => return JsonFunction::lookup(name).map(Json),
        })
    }

    /// The name MariaDB uses in messages and expression text.
    pub fn name(self) -> &'static str {
        use Function::*;
        match self {
            Abs => "abs",
            Ceil => "ceiling",
            Floor => "floor",
            Round => "round",
            Truncate => "truncate",
            Mod => "MOD",
            Pow => "pow",
            Sqrt => "sqrt",
            Exp => "exp",
            Ln => "ln",
            Log => "log",
            Log2 => "log2",
            Log10 => "log10",
            Sign => "sign",
            Pi => "pi",
            Rand => "rand",
            Greatest => "greatest",
            Least => "least",
            Coalesce => "coalesce",
            IfNull => "ifnull",
            NullIf => "nullif",
            If => "if",
            IsNull => "isnull",
            Concat => "concat",
            ConcatWs => "concat_ws",
            Length => "octet_length",
            CharLength => "char_length",
            Upper => "ucase",
            Lower => "lcase",
            Substring => "substr",
            Left => "left",
            Right => "right",
            Trim(TrimSide::Both) => "trim",
            Trim(TrimSide::Leading) => "ltrim",
            Trim(TrimSide::Trailing) => "rtrim",
            Replace => "replace",
            Reverse => "reverse",
            Repeat => "repeat",
            Space => "space",
            Lpad => "lpad",
            Rpad => "rpad",
            Locate => "locate",
            Ascii => "ascii",
            Ord => "ord",
            Quote => "quote",
            Insert => "insert",
            Conv => "conv",
            Char => "char",
            Hex => "hex",
            Unhex => "unhex",
            Md5 => "md5",
            Sha1 => "sha",
            Sha2 => "sha2",
            Strcmp => "strcmp",
            Format => "format",
            Field => "field",
            Elt => "elt",
            FindInSet => "find_in_set",
            Now => "current_timestamp",
            SysDate => "sysdate",
            CurDate => "curdate",
            CurTime => "curtime",
            UtcTimestamp => "utc_timestamp",
            UtcDate => "utc_date",
            UtcTime => "utc_time",
            ConvertTz => "convert_tz",
            TimeOf => "time",
            TimeToSec => "time_to_sec",
            SecToTime => "sec_to_time",
            TimeDiff => "timediff",
            AddTime => "addtime",
            SubTime => "subtime",
            TimeFormat => "time_format",
            MakeTime => "maketime",
            UnixTimestamp => "unix_timestamp",
            FromUnixtime => "from_unixtime",
            Date => "cast",
            Year => "year",
            Month => "month",
            Day => "dayofmonth",
            Hour => "hour",
            Minute => "minute",
            Second => "second",
            Microsecond => "microsecond",
            DayOfWeek => "dayofweek",
            DayOfYear => "dayofyear",
            Weekday => "weekday",
            Week => "week",
            Quarter => "quarter",
            DayName => "dayname",
            MonthName => "monthname",
            DateFormat => "date_format",
            DateAdd(_) => "date_add",
            DateSub(_) => "date_sub",
            DateDiff => "datediff",
            ToDays => "to_days",
            FromDays => "from_days",
            LastDay => "last_day",
            MakeDate => "makedate",
            StrToDate => "str_to_date",
            TimestampDiff(_) => "timestampdiff",
            Database => "database",
            User => "user",
            CurrentUser => "current_user",
            ConnectionId => "connection_id",
            LastInsertId => "last_insert_id",
            Version => "version",
            FoundRows => "found_rows",
            RowCount => "row_count",
            Charset => "charset",
            BitCount => "bit_count",
            Crc32 => "crc32",
            Uuid => "uuid",
            UuidShort => "uuid_short",
            Sleep => "sleep",
            LoadFile => "load_file",
            GetLock => "get_lock",
            ReleaseLock => "release_lock",
            ReleaseAllLocks => "release_all_locks",
            IsFreeLock => "is_free_lock",
            IsUsedLock => "is_used_lock",
            Json(f) => f.name(),
        }
    }

    /// (minimum, maximum) argument count.
    pub fn arity(self) -> (usize, usize) {
        use Function::*;
        match self {
            Pi | CurDate | UtcDate | Database | User | CurrentUser | ConnectionId | Version
            | FoundRows | RowCount | Uuid | UuidShort | ReleaseAllLocks => (0, 0),
            Now | SysDate | CurTime | UtcTimestamp | UtcTime | Rand | UnixTimestamp
            | LastInsertId => (0, 1),
            Abs | Ceil | Floor | Sqrt | Exp | Ln | Log2 | Log10 | Sign | IsNull | Length
            | CharLength | Upper | Lower | Reverse | Space | Ascii | Hex | Unhex | Md5 | Sha1
            | Date | Year | Month | Day | Hour | Minute | Second | Microsecond | DayOfWeek
            | DayOfYear | Weekday | Quarter | DayName | MonthName | ToDays | FromDays | LastDay
            | Charset | BitCount | Crc32 | Sleep | Ord | Quote | TimeOf | TimeToSec | SecToTime
            | ReleaseLock | IsFreeLock | IsUsedLock | LoadFile => (1, 1),
            Round | Log | FromUnixtime | Week => (1, 2),
            Trim(_) => (1, 2),
            Truncate | Mod | Pow | IfNull | NullIf | Left | Right | Repeat | Sha2 | Strcmp
            | FindInSet | DateFormat | DateDiff | DateAdd(_) | DateSub(_) | MakeDate
            | StrToDate | TimestampDiff(_) | TimeDiff | AddTime | SubTime | TimeFormat
            | GetLock => (2, 2),
            Conv | MakeTime | ConvertTz => (3, 3),
            Substring | Locate | Format => (2, 3),
            If | Replace | Lpad | Rpad => (3, 3),
            Insert => (4, 4),
            Greatest | Least | Field | Elt | ConcatWs => (2, MANY),
            Coalesce | Concat | Char => (1, MANY),
            Json(f) => f.arity(),
        }
    }

    /// Whether a TRUE or FALSE argument must stay boolean (`json::is_boolean`).
    pub fn embeds_booleans(self) -> bool {
        matches!(self, Function::Json(f) if f.embeds_booleans())
    }

    /// Error 1582 unless `count` arguments fit.
    pub fn check_arity(self, display_name: &str, count: usize) -> Result<()> {
        let (min, max) = self.arity();
        let fits = match self {
            Function::Json(f) => f.takes(count),
            _ => true,
        };
        if count < min || count > max || !fits {
            return Err(Error::new(
                ErrorCode::WrongParamcountToNativeFct,
                format!(
                    "Incorrect parameter count in the call to native function '{display_name}'"
                ),
            ));
        }
        Ok(())
    }

    /// True if the function's value can change between calls with equal arguments.
    pub fn is_volatile(self) -> bool {
        use Function::*;
        matches!(
            self,
            Rand | Uuid
                | UuidShort
                | SysDate
                | Sleep
                | LoadFile
                | GetLock
                | ReleaseLock
                | ReleaseAllLocks
                | IsFreeLock
                | IsUsedLock
        )
    }

    /// 4079 for an argument of a type the function refuses, as MariaDB checks when it
    /// binds the call: a user lock's name must not be a number or a time.
    pub fn check_argument_types(self, args: &[Expr]) -> Result<()> {
        use Function::*;
        if !matches!(self, GetLock | ReleaseLock | IsFreeLock | IsUsedLock) {
            return Ok(());
        }
        let name_type = args[0].data_type();
        if name_type.is_numeric() || name_type.is_temporal() {
            return Err(Error::new(
                ErrorCode::IllegalParameterDataTypeForOperation,
                format!(
                    "Illegal parameter data type {} for operation '{}'",
                    name_type.handler_name(),
                    self.name()
                ),
            ));
        }
        Ok(())
    }

    /// True for functions whose value depends on the session or statement, not the row.
    pub fn is_session_dependent(self) -> bool {
        use Function::*;
        matches!(
            self,
            Now | CurDate
                | CurTime
                | UtcTimestamp
                | UtcDate
                | UtcTime
                | Database
                | User
                | CurrentUser
                | ConnectionId
                | LastInsertId
                | Version
                | FoundRows
                | RowCount
                | UnixTimestamp
        )
    }
}

pub const BOOL_TYPE: DataType = DataType::Int {
    width: IntWidth::Int,
    unsigned: false,
};
pub const INT_TYPE: DataType = DataType::Int {
    width: IntWidth::Int,
    unsigned: false,
};
pub const UBIGINT: DataType = DataType::Int {
    width: IntWidth::Big,
    unsigned: true,
};

pub fn varchar(length: u64) -> DataType {
    DataType::varchar(length.min(u32::MAX as u64) as u32)
}

/// Number of decimal digits (without sign) an integer type can hold.
pub fn int_digits(width: IntWidth, unsigned: bool) -> u32 {
    match width {
        IntWidth::Tiny => 3,
        IntWidth::Small => 5,
        IntWidth::Medium => 8,
        IntWidth::Int => 10,
        IntWidth::Big => {
            if unsigned {
                20
            } else {
                19
            }
        }
    }
}

/// (integer digits, scale) of an exact numeric type, as DECIMAL arithmetic sees it.
pub fn exact_shape(t: &DataType) -> (u32, u32) {
    match t {
        DataType::Int { width, unsigned } => (int_digits(*width, *unsigned), 0),
        DataType::Decimal {
            precision, scale, ..
        } => (
            (*precision as u32).saturating_sub(*scale as u32),
            *scale as u32,
        ),
        _ => (0, 0),
    }
}

pub fn decimal_type(int_digits: u32, scale: u32) -> DataType {
    let scale = scale.min(38);
    let precision = (int_digits + scale).clamp(1, 65).max(scale);
    DataType::Decimal {
        precision: precision as u8,
        scale: scale as u8,
        unsigned: false,
    }
}

/// Characters needed to print any value of `t`.
pub fn char_length(t: &DataType) -> u64 {
    match t {
        DataType::Null => 0,
        DataType::Int { width, unsigned } => int_digits(*width, *unsigned) as u64 + 1,
        DataType::Decimal {
            precision, scale, ..
        } => *precision as u64 + 1 + (*scale > 0) as u64,
        DataType::Float { .. } => 12,
        DataType::Double { .. } => 22,
        DataType::Char { length, .. }
        | DataType::VarChar { length, .. }
        | DataType::Binary { length }
        | DataType::VarBinary { length } => *length as u64,
        DataType::Text { size, .. } | DataType::Blob { size } => size.max_bytes(),
        DataType::Date => 10,
        DataType::DateTime { fsp } | DataType::Timestamp { fsp } => {
            19 + if *fsp > 0 { *fsp as u64 + 1 } else { 0 }
        }
        DataType::Time { .. } => t.display_length() as u64,
        DataType::Enum { .. } | DataType::Set { .. } => t.max_length().unwrap_or(0),
    }
}

pub fn is_binary_string(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Binary { .. } | DataType::VarBinary { .. } | DataType::Blob { .. }
    )
}

/// A string type of `length` characters: binary if `binary`, else utf8mb4 (4 bytes a
/// character at most). As MariaDB's `Type_handler::string_type_handler`, the bytes decide:
/// VARCHAR/VARBINARY below 65,535, BLOB at exactly that (only a binary string gets
/// there), MEDIUM from 65,536 and LONG from 16,777,216; so a text function of a TEXT
/// column (65,535 characters) is MEDIUMTEXT.
pub fn string_type(length: u64, binary: bool) -> DataType {
    const VARCHAR_BYTES_MAX: u64 = 65_534;
    let bytes = match binary {
        true => length,
        false => length.saturating_mul(4),
    };
    let size = match bytes {
        0..=VARCHAR_BYTES_MAX => {
            return match binary {
                true => DataType::VarBinary {
                    length: length as u32,
                },
                false => varchar(length),
            };
        }
        65_535 => LobSize::Regular,
        65_536..=16_777_215 => LobSize::Medium,
        _ => LobSize::Long,
    };
    match binary {
        true => DataType::Blob { size },
        false => DataType::text(size),
    }
}

/// The type of a value that may come from any of `types` (CASE, IF, COALESCE, UNION),
/// following MySQL's type aggregation.
pub fn aggregate_types<'a>(types: impl IntoIterator<Item = &'a DataType>) -> DataType {
    let types: Vec<&DataType> = types
        .into_iter()
        .filter(|t| **t != DataType::Null)
        .collect();
    let Some(first) = types.first() else {
        return DataType::Null;
    };
    if types.iter().all(|t| t == first) {
        return (*first).clone();
    }
    if types.iter().any(|t| t.is_string())
        || (types.iter().any(|t| t.is_temporal()) && types.iter().any(|t| !t.is_temporal()))
    {
        let length = types.iter().map(|t| char_length(t)).max().unwrap_or(0);
        return string_type(length, types.iter().any(|t| is_binary_string(t)));
    }
    if types.iter().all(|t| t.is_temporal()) {
        if types.iter().all(|t| **t == DataType::Date) {
            return DataType::Date;
        }
        let fsp = types
            .iter()
            .map(|t| match t {
                DataType::DateTime { fsp } | DataType::Timestamp { fsp } => *fsp,
                _ => 0,
            })
            .max()
            .unwrap_or(0);
        return DataType::DateTime { fsp };
    }
    if types.iter().all(|t| matches!(t, DataType::Float { .. })) {
        return DataType::FLOAT;
    }
    if types
        .iter()
        .any(|t| matches!(t, DataType::Float { .. } | DataType::Double { .. }))
    {
        let decimals = types.iter().map(|t| t.double_decimals()).max();
        return DataType::double(decimals.unwrap_or(NOT_FIXED_DECIMALS));
    }
    if types.iter().all(|t| t.is_integer()) {
        let all_unsigned = types.iter().all(|t| t.is_unsigned());
        let any_unsigned = types.iter().any(|t| t.is_unsigned());
        let widest = types
            .iter()
            .filter_map(|t| match t {
                DataType::Int { width, .. } => Some(*width),
                _ => None,
            })
            .max_by_key(|w| int_digits(*w, false))
            .unwrap_or(IntWidth::Big);
        if any_unsigned && !all_unsigned {
            let digits = types.iter().map(|t| exact_shape(t).0).max().unwrap_or(20) + 1;
            return if digits > 19 {
                decimal_type(digits, 0)
            } else {
                DataType::BIGINT
            };
        }
        return DataType::Int {
            width: widest,
            unsigned: all_unsigned,
        };
    }
    let int_digits = types.iter().map(|t| exact_shape(t).0).max().unwrap_or(0);
    let scale = types.iter().map(|t| exact_shape(t).1).max().unwrap_or(0);
    decimal_type(int_digits, scale)
}

fn literal_int(e: &Expr) -> Option<i64> {
    match e {
        Expr::Literal {
            value: Value::Int(i),
            ..
        } => Some(*i),
        Expr::Literal {
            value: Value::UInt(u),
            ..
        } => Some((*u).min(i64::MAX as u64) as i64),
        _ => None,
    }
}

/// The places argument of ROUND/TRUNCATE as MariaDB's `Item_func_round` sees it when
/// it fixes the result type: only a constant decides the result's decimals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Places {
    /// ROUND(x): zero places.
    Absent,
    /// A literal number (rounded to an integer as `val_int` rounds it).
    Constant(i64),
    /// A NULL literal: the result is NULL, typed as a DOUBLE with no fixed decimals.
    Null,
    /// Anything else: known only per row.
    Varying,
}

impl Places {
    pub(super) fn of(args: &[Expr]) -> Places {
        let Some(places) = args.get(1) else {
            return Places::Absent;
        };
        let Expr::Literal { value, .. } = places else {
            return Places::Varying;
        };
        match value {
            Value::Null => Places::Null,
            Value::Int(i) => Places::Constant(*i),
            Value::UInt(u) => Places::Constant((*u).min(i64::MAX as u64) as i64),
            Value::Decimal(d) => Places::Constant(super::coerce::decimal_to_i128(d) as i64),
            Value::Double(d) => Places::Constant(super::coerce::double_to_i128(*d) as i64),
            Value::Bytes(text) => Places::Constant(integer_prefix(text)),
            _ => Places::Varying,
        }
    }
}

/// The integer a string literal starts with, as MariaDB reads constant places from it
/// ('1.6' is 1, 'x' is 0; a conversion warning, if any, comes when the call runs).
fn integer_prefix(text: &[u8]) -> i64 {
    let text = String::from_utf8_lossy(text);
    let text = text.trim_start();
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let magnitude = digits
        .bytes()
        .take_while(u8::is_ascii_digit)
        .fold(0i64, |n, d| {
            n.saturating_mul(10).saturating_add((d - b'0') as i64)
        });
    if negative {
        -magnitude
    } else {
        magnitude
    }
}

/// MariaDB's `float_length`: the column length of a DOUBLE with `decimals` (17 digits
/// and a sign, point and the decimals; 23 when they are not fixed).
pub fn float_length(decimals: u8) -> u32 {
    if decimals >= NOT_FIXED_DECIMALS {
        23
    } else {
        17 + decimals as u32
    }
}

/// The type of ROUND/TRUNCATE(x, places), as MariaDB's `Item_func_round::fix_arg_*`:
///   integer x   kept, or one character wider for ROUND to negative or unknown places
///               (ROUND(9, -1) = 10); a BIGINT x then becomes a DECIMAL one digit wider;
///   DECIMAL x   scale = the constant places (0..=38), precision one integer digit wider
///               when ROUND drops digits; its own scale when places vary;
///   other x     DOUBLE with the constant places as decimals (0 if negative, not fixed
///               from 31 on), the argument's own decimals when places vary.
/// A NULL literal for places makes a non-integer result a DOUBLE without fixed decimals.
fn round_type(truncate: bool, args: &[Expr]) -> DataType {
    let places = Places::of(args);
    match args[0].data_type() {
        d @ DataType::Int { width, .. } => {
            let widened = match places {
                Places::Constant(p) => !truncate && p < 0,
                Places::Varying => !truncate,
                Places::Absent | Places::Null => false,
            };
            if !widened {
                return d;
            }
            let length = int_length(&args[0]).expect("an integer argument has a length");
            if width == IntWidth::Big {
                // MariaDB does not widen a BIGINT: one more digit makes it a DECIMAL
                // (ROUND(9223372036854775807, -1) = 9223372036854775810).
                DataType::Decimal {
                    precision: (length.precision + 1).min(65) as u8,
                    scale: 0,
                    unsigned: length.unsigned,
                }
            } else {
                length.widened().data_type()
            }
        }
        DataType::Decimal {
            precision, scale, ..
        } => {
            let int = (precision as u32).saturating_sub(scale as u32);
            let new_scale = match places {
                Places::Null => return DataType::double(NOT_FIXED_DECIMALS),
                Places::Absent => 0,
                Places::Constant(p) => p.clamp(0, 38) as u32,
                Places::Varying => scale as u32,
            };
            let dropped = new_scale < scale as u32 || places == Places::Varying;
            decimal_type(int + (!truncate && dropped) as u32, new_scale)
        }
        t if t.is_temporal() => DataType::DOUBLE,
        t => DataType::double(match places {
            Places::Absent => 0,
            Places::Constant(p) => p.clamp(0, NOT_FIXED_DECIMALS as i64) as u8,
            Places::Null => NOT_FIXED_DECIMALS,
            Places::Varying => t.double_decimals(),
        }),
    }
}

/// The column length MariaDB reports for `function(args)` where it is not the one its
/// result type implies (`DataType::display_length`): PI() is 8 characters, a rounded
/// DOUBLE `float_length` of its decimals, a rounded integer its `int_length`.
pub fn column_length(function: Function, args: &[Expr], data_type: &DataType) -> Option<u32> {
    use Function::*;
    match (function, data_type) {
        (Pi, _) => Some(8),
        (Round | Truncate | Ceil | Floor, DataType::Double { decimals, .. }) => {
            Some(float_length(*decimals))
        }
        (Round | Truncate | Ceil | Floor, DataType::Int { .. }) => {
            super::int_length::call_length(function, args).map(|l| l.length)
        }
        _ => None,
    }
}

/// The result type of `function(args)`.
pub fn result_type(function: Function, args: &[Expr]) -> DataType {
    use Function::*;
    let t = |i: usize| args.get(i).map(Expr::data_type).unwrap_or(DataType::Null);
    match function {
        Abs => match t(0) {
            DataType::Int { .. } => super::int_length::call_length(Abs, args)
                .expect("an integer argument has a length")
                .data_type(),
            d @ (DataType::Decimal { .. } | DataType::Double { .. }) => d,
            _ => DataType::DOUBLE,
        },
        Ceil | Floor => match t(0) {
            // An integer argument comes back unchanged, type and all.
            d @ DataType::Int { .. } => d,
            DataType::Decimal {
                precision, scale, ..
            } => match rounded_digits(precision, scale) {
                0..=9 => INT_TYPE,
                10..=18 => DataType::BIGINT,
                digits => decimal_type(digits, 0),
            },
            t if t.is_temporal() => DataType::DOUBLE,
            // A DOUBLE stays one (1e300 has no integer type), printed with no decimals.
            _ => DataType::double(0),
        },
        Round | Truncate => round_type(function == Truncate, args),
        Mod => super::bind::binary_type(super::BinaryOp::Mod, &args[0], &args[1]),
        Pow | Sqrt | Exp | Ln | Log | Log2 | Log10 | Rand => DataType::DOUBLE,
        // MariaDB gives PI() 6 decimals: it prints 3.141593, and what is computed from it
        // keeps them (`DataType::double_decimals`) though the value is exact.
        Pi => DataType::double(6),
        Sign | IsNull | Length | CharLength | Locate | Ascii | Strcmp | Field | FindInSet
        | Year | Month | Day | Hour | Minute | Second | Microsecond | DayOfWeek | DayOfYear
        | Weekday | Week | Quarter | DateDiff | ToDays | BitCount | Sleep | GetLock
        | ReleaseLock | ReleaseAllLocks | IsFreeLock => INT_TYPE,
        // A connection id.
        IsUsedLock => DataType::Int {
            width: IntWidth::Int,
            unsigned: true,
        },
        // A NULL argument makes GREATEST/LEAST of numbers a DOUBLE (MariaDB's min/max
        // aggregation); strings and dates keep their type.
        Greatest | Least => match aggregate_types(
            args.iter()
                .map(|a| a.data_type())
                .collect::<Vec<_>>()
                .iter(),
        ) {
            t if t.is_numeric() && args.iter().any(|a| a.data_type() == DataType::Null) => {
                DataType::DOUBLE
            }
            t => t,
        },
        Coalesce => aggregate_types(
            args.iter()
                .map(|a| a.data_type())
                .collect::<Vec<_>>()
                .iter(),
        ),
        IfNull => aggregate_types([t(0), t(1)].iter()),
        If => aggregate_types([t(1), t(2)].iter()),
        NullIf => t(0),
        Concat => {
            let length = args.iter().map(|a| char_length(&a.data_type())).sum();
            string_type(
                length,
                args.iter().any(|a| is_binary_string(&a.data_type())),
            )
        }
        ConcatWs => {
            let sep = char_length(&t(0));
            let length: u64 = args[1..]
                .iter()
                .map(|a| char_length(&a.data_type()) + sep)
                .sum();
            string_type(
                length,
                args.iter().any(|a| is_binary_string(&a.data_type())),
            )
        }
        Upper | Lower | Reverse | Trim(_) => same_string_type(&t(0), char_length(&t(0))),
        Substring => same_string_type(&t(0), char_length(&t(0))),
        // A literal count bounds the result, as in MariaDB (LEFT(text, 3) is a VARCHAR).
        Left | Right => same_string_type(
            &t(0),
            args.get(1)
                .and_then(literal_int)
                .map_or(char_length(&t(0)), |n| {
                    char_length(&t(0)).min(n.max(0) as u64)
                }),
        ),
        Replace => same_string_type(
            &t(0),
            char_length(&t(0)).saturating_mul(char_length(&t(2)).max(1)),
        ),
        Repeat => same_string_type(
            &t(0),
            char_length(&t(0))
                .saturating_mul(args.get(1).and_then(literal_int).unwrap_or(1000).max(0) as u64),
        ),
        Lpad | Rpad => same_string_type(
            &t(0),
            args.get(1)
                .and_then(literal_int)
                .map(|n| n.max(0) as u64)
                .unwrap_or(char_length(&t(0))),
        ),
        Space => varchar(
            args.first()
                .and_then(literal_int)
                .map(|n| n.max(0) as u64)
                .unwrap_or(1000),
        ),
        Char => DataType::VarBinary {
            length: args.len() as u32 * 4,
        },
        Hex => string_type(char_length(&t(0)) * 2, false),
        Unhex => DataType::VarBinary {
            length: (char_length(&t(0)) / 2 + 1) as u32,
        },
        LoadFile => DataType::Blob {
            size: manycore_types::LobSize::Long,
        },
        Md5 => varchar(32),
        Sha1 => varchar(40),
        Sha2 => varchar(128),
        Format => varchar(char_length(&t(0)) + 20),
        Elt => aggregate_types(
            args[1..]
                .iter()
                .map(|a| a.data_type())
                .collect::<Vec<_>>()
                .iter(),
        ),
        Now | SysDate | UtcTimestamp => DataType::DateTime {
            fsp: args.first().and_then(literal_int).unwrap_or(0).clamp(0, 6) as u8,
        },
        ConvertTz => DataType::DateTime {
            fsp: temporal_fsp(&args[0]),
        },
        CurDate | UtcDate | FromDays | LastDay | Date | MakeDate => DataType::Date,
        // The format decides; a format known only at run time gives DATETIME(6).
        StrToDate => match args.get(1) {
            Some(Expr::Literal {
                value: Value::Bytes(format),
                ..
            }) => match tm::format_parts(format) {
                tm::FormatParts::Date => DataType::Date,
                tm::FormatParts::DateTime => DataType::DateTime {
                    fsp: if format.windows(2).any(|w| w == b"%f") {
                        6
                    } else {
                        0
                    },
                },
                tm::FormatParts::Time => DataType::Time {
                    fsp: if format.windows(2).any(|w| w == b"%f") {
                        6
                    } else {
                        0
                    },
                },
            },
            _ => DataType::DateTime { fsp: 6 },
        },
        Ord => INT_TYPE,
        TimestampDiff(_) => DataType::BIGINT,
        Insert => same_string_type(&t(0), char_length(&t(0)) + char_length(&t(3))),
        Quote => same_string_type(&t(0), char_length(&t(0)).saturating_mul(2) + 2),
        Conv => varchar(64),
        CurTime | UtcTime | TimeOf | TimeToSec | SecToTime | TimeDiff | AddTime | SubTime
        | MakeTime => super::time::result_type(function, args),
        UnixTimestamp => DataType::BIGINT,
        FromUnixtime => {
            if args.len() == 2 {
                varchar(64)
            } else {
                match t(0) {
                    DataType::Decimal { scale, .. } => DataType::DateTime { fsp: scale.min(6) },
                    DataType::Double { .. } | DataType::Float { .. } | DataType::VarChar { .. } => {
                        DataType::DateTime { fsp: 6 }
                    }
                    _ => DataType::DateTime { fsp: 0 },
                }
            }
        }
        DayName | MonthName => varchar(9),
        DateFormat | TimeFormat => varchar(char_length(&t(1)).saturating_mul(10).max(1)),
        DateAdd(unit) | DateSub(unit) => {
            let micro = unit == IntervalUnit::Microsecond
                || !matches!(
                    args.get(1),
                    Some(Expr::Literal {
                        value: Value::Int(_),
                        ..
                    }) | None
                ) && unit == IntervalUnit::Second;
            match t(0) {
                DataType::Date if unit.is_date_unit() => DataType::Date,
                DataType::Date => DataType::DateTime {
                    fsp: if micro { 6 } else { 0 },
                },
                DataType::DateTime { fsp } | DataType::Timestamp { fsp } => DataType::DateTime {
                    fsp: if micro { 6 } else { fsp },
                },
                // A string argument gives a CHAR result, as in MariaDB.
                _ => DataType::char(if micro { 26 } else { 19 }),
            }
        }
        Database | User | CurrentUser | Version | Charset => varchar(64),
        ConnectionId => DataType::Int {
            width: IntWidth::Int,
            unsigned: true,
        },
        LastInsertId | UuidShort => UBIGINT,
        FoundRows | RowCount => DataType::BIGINT,
        Crc32 => DataType::Int {
            width: IntWidth::Int,
            unsigned: true,
        },
        Uuid => varchar(36),
        Json(f) => f.result_type(args),
    }
}

fn same_string_type(t: &DataType, length: u64) -> DataType {
    string_type(length, is_binary_string(t))
}

/// Nullability of `function(args)`.
pub fn nullable(function: Function, args: &[Expr]) -> bool {
    use Function::*;
    let any = || args.iter().any(Expr::nullable);
    match function {
        Pi | Rand | Now | SysDate | CurDate | CurTime | UtcTimestamp | UtcDate | UtcTime
        | ConnectionId | LastInsertId | Version | FoundRows | RowCount | Uuid | UuidShort
        | IsNull | CurrentUser | User => false,
        Coalesce => args.iter().all(Expr::nullable),
        IfNull => args.get(1).is_none_or(Expr::nullable),
        If => args.get(1).is_none_or(Expr::nullable) || args.get(2).is_none_or(Expr::nullable),
        Concat | ConcatWs | Length | CharLength | Upper | Lower | Reverse | Trim(_) | Hex | Md5
        | Sha1 | Abs | Sign | Ceil | Floor | Round | Truncate | Ascii | Ord | Strcmp | Greatest
        | Least | BitCount | Crc32 | Field | Char => any(),
        Quote => false,
        _ => true,
    }
}

fn eval_args(args: &[Expr], row: &[Value], ctx: &EvalContext) -> Result<Vec<Value>> {
    args.iter().map(|a| a.eval(row, ctx)).collect()
}

fn string_arg(args: &[Expr], values: &[Value], i: usize) -> Option<Vec<u8>> {
    let t = args.get(i).map(Expr::data_type).unwrap_or(DataType::Null);
    values.get(i).and_then(|v| to_bytes(v, &t))
}

fn chars(b: &[u8]) -> Vec<char> {
    String::from_utf8_lossy(b).chars().collect()
}

fn from_chars(c: &[char]) -> Value {
    Value::Bytes(c.iter().collect::<String>().into_bytes())
}

fn is_binary_arg(args: &[Expr], i: usize) -> bool {
    args.get(i)
        .is_some_and(|a| is_binary_string(&a.data_type()))
}

/// Evaluates a call; `data_type` is the bound result type.
pub fn call(
    function: Function,
    args: &[Expr],
    data_type: &DataType,
    row: &[Value],
    ctx: &EvalContext,
) -> Result<Value> {
    use Function::*;
    let session = ctx.session;
    // Lazily evaluated functions first (invariant (3)).
    match function {
        If => {
            let cond = args[0].eval_bool(row, ctx)?;
            let chosen = if cond == Some(true) {
                &args[1]
            } else {
                &args[2]
            };
            return conform(chosen.eval(row, ctx)?, &chosen.data_type(), data_type, ctx);
        }
        IfNull | Coalesce => {
            for a in args {
                let v = a.eval(row, ctx)?;
                if !v.is_null() {
                    return conform(v, &a.data_type(), data_type, ctx);
                }
            }
            return Ok(Value::Null);
        }
        Json(f) => return super::json::call(f, args, row, ctx),
        _ => {}
    }
    let v = eval_args(args, row, ctx)?;
    let null = v.iter().any(Value::is_null);
    let s = |i: usize| string_arg(args, &v, i);
    let int = |i: usize| v.get(i).and_then(|x| to_i64(x, session));
    let dbl = |i: usize| v.get(i).and_then(|x| to_f64(x, session));
    let int_value = |i: i64| Value::Int(i);
    let double = |d: Option<f64>| match d {
        Some(d) if d.is_finite() => Value::Double(d),
        _ => Value::Null,
    };
    Ok(match function {
        If | IfNull | Coalesce => Value::Null,
        Abs => match &v[0] {
            Value::Null => Value::Null,
            Value::Int(i) => match i.checked_abs() {
                Some(a) => Value::Int(a),
                None => {
                    return Err(coerce::bigint_out_of_range(
                        false,
                        &format!("abs({})", super::display::expr_text(&args[0])),
                    ))
                }
            },
            Value::UInt(u) => Value::UInt(*u),
            Value::Decimal(d) => Value::Decimal(d.abs()),
            other => double(to_f64(other, session).map(f64::abs)),
        },
        Ceil | Floor => {
            let up = function == Ceil;
            match &v[0] {
                Value::Null => Value::Null,
                x @ (Value::Int(_) | Value::UInt(_)) => x.clone(),
                Value::Decimal(d) => {
                    let r = if up { d.ceil() } else { d.floor() };
                    numeric_as(Value::Decimal(r), data_type)
                }
                // + 0.0: CEIL(-0.5e0) is 0, not -0, in MariaDB's binary protocol too.
                other => double(
                    to_f64(other, session).map(|d| if up { d.ceil() } else { d.floor() } + 0.0),
                ),
            }
        }
        Round | Truncate => {
            if null {
                return Ok(Value::Null);
            }
            let places = if v.len() > 1 { int(1).unwrap_or(0) } else { 0 };
            round_value(&v[0], places, function == Truncate, data_type, session)
        }
        Mod => super::eval::arith(super::BinaryOp::Mod, &v[0], &v[1], data_type, ctx, &|| {
            super::display::call_text(function, args)
        })?,
        Pow => double(dbl(0).zip(dbl(1)).map(|(a, b)| a.powf(b))),
        Sqrt => double(dbl(0).filter(|d| *d >= 0.0).map(f64::sqrt)),
        Exp => double(dbl(0).map(f64::exp)),
        Ln => double(dbl(0).filter(|d| *d > 0.0).map(f64::ln)),
        Log => {
            if v.len() == 2 {
                double(
                    dbl(0)
                        .zip(dbl(1))
                        .filter(|(b, x)| *b > 0.0 && *b != 1.0 && *x > 0.0)
                        .map(|(b, x)| x.ln() / b.ln()),
                )
            } else {
                double(dbl(0).filter(|d| *d > 0.0).map(f64::ln))
            }
        }
        Log2 => double(dbl(0).filter(|d| *d > 0.0).map(f64::log2)),
        Log10 => double(dbl(0).filter(|d| *d > 0.0).map(f64::log10)),
        Sign => match &v[0] {
            Value::Null => Value::Null,
            Value::Int(i) => int_value(i.signum()),
            Value::UInt(u) => int_value((*u > 0) as i64),
            Value::Decimal(d) => int_value(if d.is_zero() {
                0
            } else if d.is_sign_negative() {
                -1
            } else {
                1
            }),
            other => {
                let d = to_f64(other, session).unwrap_or(0.0);
                int_value(if d > 0.0 {
                    1
                } else if d < 0.0 {
                    -1
                } else {
                    0
                })
            }
        },
        Pi => Value::Double(std::f64::consts::PI),
        Rand => Value::Double(match v.first() {
            Some(seed) if !seed.is_null() => mysql_rand_first(to_i64(seed, session).unwrap_or(0)),
            _ => random_unit(),
        }),
        Greatest | Least => {
            if null {
                return Ok(Value::Null);
            }
            let mut best = 0;
            for i in 1..v.len() {
                let ord = compare(
                    &v[i],
                    &args[i].data_type(),
                    &v[best],
                    &args[best].data_type(),
                    session,
                );
                let better = match function {
                    Greatest => ord == Some(Ordering::Greater),
                    _ => ord == Some(Ordering::Less),
                };
                if better {
                    best = i;
                }
            }
            conform(v[best].clone(), &args[best].data_type(), data_type, ctx)?
        }
        NullIf => {
            if compare(
                &v[0],
                &args[0].data_type(),
                &v[1],
                &args[1].data_type(),
                session,
            ) == Some(Ordering::Equal)
            {
                Value::Null
            } else {
                v[0].clone()
            }
        }
        IsNull => int_value(v[0].is_null() as i64),
        Concat => {
            if null {
                return Ok(Value::Null);
            }
            let mut out = Vec::new();
            for i in 0..v.len() {
                out.extend(s(i).unwrap_or_default());
            }
            Value::Bytes(out)
        }
        ConcatWs => {
            let Some(sep) = s(0) else {
                return Ok(Value::Null);
            };
            let mut out = Vec::new();
            let mut first = true;
            for i in 1..v.len() {
                if let Some(part) = s(i) {
                    if !first {
                        out.extend_from_slice(&sep);
                    }
                    out.extend(part);
                    first = false;
                }
            }
            Value::Bytes(out)
        }
        Length => match s(0) {
            Some(b) => int_value(b.len() as i64),
            None => Value::Null,
        },
        CharLength => match s(0) {
            Some(b) if is_binary_arg(args, 0) => int_value(b.len() as i64),
            Some(b) => int_value(String::from_utf8_lossy(&b).chars().count() as i64),
            None => Value::Null,
        },
        Upper | Lower => match s(0) {
            Some(b) if is_binary_arg(args, 0) => Value::Bytes(b),
            Some(b) => {
                let text = String::from_utf8_lossy(&b);
                Value::Bytes(
                    if function == Upper {
                        text.to_uppercase()
                    } else {
                        text.to_lowercase()
                    }
                    .into_bytes(),
                )
            }
            None => Value::Null,
        },
        Substring => {
            if null {
                return Ok(Value::Null);
            }
            let text = chars(&s(0).unwrap_or_default());
            let n = text.len() as i64;
            let pos = int(1).unwrap_or(0);
            let len = if v.len() > 2 {
                int(2).unwrap_or(0)
            } else {
                i64::MAX
            };
            let start = if pos > 0 {
                pos - 1
            } else if pos < 0 {
                n + pos
            } else {
                return Ok(Value::text(""));
            };
            if start < 0 || start >= n || len <= 0 {
                return Ok(Value::text(""));
            }
            let end = start.saturating_add(len).min(n);
            from_chars(&text[start as usize..end as usize])
        }
        Left | Right => {
            if null {
                return Ok(Value::Null);
            }
            let text = chars(&s(0).unwrap_or_default());
            let k = int(1).unwrap_or(0).clamp(0, text.len() as i64) as usize;
            if function == Left {
                from_chars(&text[..k])
            } else {
                from_chars(&text[text.len() - k..])
            }
        }
        Trim(side) => {
            if null {
                return Ok(Value::Null);
            }
            let text = s(0).unwrap_or_default();
            let pattern = if v.len() > 1 {
                s(1).unwrap_or_default()
            } else {
                b" ".to_vec()
            };
            Value::Bytes(trim(&text, &pattern, side))
        }
        Replace => {
            if null {
                return Ok(Value::Null);
            }
            let (text, from, to) = (
                s(0).unwrap_or_default(),
                s(1).unwrap_or_default(),
                s(2).unwrap_or_default(),
            );
            Value::Bytes(replace_bytes(&text, &from, &to))
        }
        Reverse => match s(0) {
            Some(b) if is_binary_arg(args, 0) => Value::Bytes(b.into_iter().rev().collect()),
            Some(b) => {
                let mut c = chars(&b);
                c.reverse();
                from_chars(&c)
            }
            None => Value::Null,
        },
        Repeat => {
            if null {
                return Ok(Value::Null);
            }
            let text = s(0).unwrap_or_default();
            let count = int(1).unwrap_or(0).max(0) as usize;
            if text.len().saturating_mul(count) > MAX_STRING_BYTES {
                return Ok(too_big(function, session));
            }
            Value::Bytes(text.repeat(count))
        }
        Space => match int(0) {
            Some(n) if n as usize > MAX_STRING_BYTES => too_big(function, session),
            Some(n) => Value::Bytes(vec![b' '; n.max(0) as usize]),
            None => Value::Null,
        },
        Lpad | Rpad => {
            if null {
                return Ok(Value::Null);
            }
            let text = chars(&s(0).unwrap_or_default());
            let len = int(1).unwrap_or(0);
            let pad = chars(&s(2).unwrap_or_default());
            if len < 0 {
                return Ok(Value::Null);
            }
            let len = len as usize;
            if len > MAX_STRING_BYTES {
                return Ok(too_big(function, session));
            }
            if len <= text.len() {
                return Ok(from_chars(&text[..len]));
            }
            if pad.is_empty() {
                return Ok(Value::Null);
            }
            let fill: Vec<char> = pad.iter().copied().cycle().take(len - text.len()).collect();
            if function == Lpad {
                from_chars(&[fill, text].concat())
            } else {
                from_chars(&[text, fill].concat())
            }
        }
        Locate => {
            if null {
                return Ok(Value::Null);
            }
            let needle = s(0).unwrap_or_default();
            let hay = s(1).unwrap_or_default();
            let start = if v.len() > 2 { int(2).unwrap_or(1) } else { 1 };
            let binary = is_binary_arg(args, 0) || is_binary_arg(args, 1);
            int_value(locate(&needle, &hay, start, binary))
        }
        Ascii => match s(0) {
            Some(b) => int_value(b.first().copied().unwrap_or(0) as i64),
            None => Value::Null,
        },
        Ord => match s(0) {
            Some(b) => {
                let binary = is_binary_arg(args, 0);
                let len = if binary { 1 } else { utf8_char_len(&b) };
                let code = b
                    .iter()
                    .take(len)
                    .fold(0i64, |n, byte| n << 8 | *byte as i64);
                int_value(code)
            }
            None => Value::Null,
        },
        Insert => {
            if null {
                return Ok(Value::Null);
            }
            let text = chars(&s(0).unwrap_or_default());
            let (pos, len) = (int(1).unwrap_or(0), int(2).unwrap_or(0));
            // A position outside the string leaves it unchanged; a negative or too long
            // length replaces the rest.
            if pos < 1 || pos as usize > text.len() {
                from_chars(&text)
            } else {
                let start = pos as usize - 1;
                let end = if len < 0 {
                    text.len()
                } else {
                    start.saturating_add(len as usize).min(text.len())
                };
                let new = chars(&s(3).unwrap_or_default());
                let mut out = text[..start].to_vec();
                out.extend_from_slice(&new);
                out.extend_from_slice(&text[end..]);
                from_chars(&out)
            }
        }
        Quote => match s(0) {
            Some(b) => Value::Bytes(quote(&b)),
            None => Value::text("NULL"),
        },
        Conv => {
            if null {
                return Ok(Value::Null);
            }
            let text = match &v[0] {
                Value::Bytes(b) => b.clone(),
                other => to_bytes(other, &args[0].data_type()).unwrap_or_default(),
            };
            match (int(1), int(2)) {
                (Some(from), Some(to)) => conv(&text, from, to)
                    .map(|t| Value::Bytes(t.into_bytes()))
                    .unwrap_or(Value::Null),
                _ => Value::Null,
            }
        }
        Char => {
            let mut out = Vec::new();
            for x in &v {
                if let Some(n) = to_i128(x, session) {
                    let n = n as u64 as u32;
                    let bytes = n.to_be_bytes();
                    let skip = bytes.iter().take_while(|b| **b == 0).count().min(3);
                    out.extend_from_slice(&bytes[skip..]);
                }
            }
            Value::Bytes(out)
        }
        Hex => match &v[0] {
            Value::Null => Value::Null,
            Value::Bytes(b) => Value::Bytes(hex_upper(b).into_bytes()),
            other => {
                let n = coerce::to_u64_bits(other, session).unwrap_or(0);
                Value::Bytes(format!("{n:X}").into_bytes())
            }
        },
        Unhex => match s(0) {
            Some(b) => unhex(&b).map(Value::Bytes).unwrap_or(Value::Null),
            None => Value::Null,
        },
        Md5 => match s(0) {
            Some(b) => Value::Bytes(hex_lower(&super::digest::md5(&b)).into_bytes()),
            None => Value::Null,
        },
        Sha1 => match s(0) {
            Some(b) => Value::Bytes(hex_lower(&super::digest::sha1(&b)).into_bytes()),
            None => Value::Null,
        },
        Sha2 => match (s(0), int(1)) {
            (Some(b), Some(bits)) => match super::digest::sha2(&b, bits) {
                Some(d) => Value::Bytes(hex_lower(&d).into_bytes()),
                None => Value::Null,
            },
            _ => Value::Null,
        },
        Strcmp => {
            if null {
                return Ok(Value::Null);
            }
            // The arguments were bound to compare under one collation (`collate`).
            let collation = coerce::combined_collation(
                string_collation(&args[0].data_type()),
                string_collation(&args[1].data_type()),
            );
            int_value(
                match collation.compare(&s(0).unwrap_or_default(), &s(1).unwrap_or_default()) {
                    Ordering::Less => -1,
                    Ordering::Equal => 0,
                    Ordering::Greater => 1,
                },
            )
        }
        Format => {
            if v[0].is_null() || v[1].is_null() {
                return Ok(Value::Null);
            }
            let places = int(1).unwrap_or(0).clamp(0, 38) as u32;
            let d = to_decimal(&v[0], session).unwrap_or_default();
            Value::Bytes(format_number(&d, places).into_bytes())
        }
        Field => {
            if v[0].is_null() {
                return Ok(int_value(0));
            }
            let t0 = args[0].data_type();
            let found = (1..v.len()).find(|&i| {
                compare(&v[0], &t0, &v[i], &args[i].data_type(), session) == Some(Ordering::Equal)
            });
            int_value(found.unwrap_or(0) as i64)
        }
        Elt => match int(0) {
            Some(n) if n >= 1 && (n as usize) < v.len() => {
                let i = n as usize;
                conform(v[i].clone(), &args[i].data_type(), data_type, ctx)?
            }
            _ => Value::Null,
        },
        FindInSet => {
            if null {
                return Ok(Value::Null);
            }
            let needle = s(0).unwrap_or_default();
            let list = s(1).unwrap_or_default();
            if needle.contains(&b',') {
                return Ok(int_value(0));
            }
            let list_type = args[1].data_type();
            // A constant against a SET: the member's position in the definition, if the
            // value holds it (MariaDB's Item_func_find_in_set::enum_value).
            if let (
                DataType::Set { members, collation },
                Expr::Literal { .. } | Expr::Parameter { .. },
            ) = (&list_type, &args[0])
            {
                let bits = manycore_types::enumset::set_number(members, *collation, &list);
                let held = manycore_types::enumset::position(members, *collation, &needle)
                    .filter(|&p| p < 64 && bits & (1 << p) != 0);
                return Ok(int_value(held.map_or(0, |p| p as i64 + 1)));
            }
            let collation = string_collation(&list_type);
            let pos = list
                .split(|c| *c == b',')
                .position(|item| collation.eq(item, &needle));
            int_value(pos.map(|p| p as i64 + 1).unwrap_or(0))
        }
        Now | SysDate | UtcTimestamp => {
            let now = match function {
                SysDate => session.time_zone().from_utc(wall_clock_utc()),
                UtcTimestamp => session.statement_time_utc(),
                _ => session.local_statement_time(),
            };
            let fsp = match data_type {
                DataType::DateTime { fsp } => *fsp,
                _ => 0,
            };
            Value::DateTime(truncate_fraction(now, fsp))
        }
        CurDate => Value::Date(session.local_statement_time().date),
        UtcDate => Value::Date(session.statement_time_utc().date),
        ConvertTz => {
            let zone = |i: usize| {
                s(i).and_then(|b| std::str::from_utf8(&b).ok().and_then(TimeZone::parse))
            };
            let (Some(from), Some(to)) = (zone(1), zone(2)) else {
                return Ok(Value::Null);
            };
            let Some(local) = to_temporal(&v[0], session).map(|p| p.datetime) else {
                return Ok(Value::Null);
            };
            let fsp = match data_type {
                DataType::DateTime { fsp } => *fsp,
                _ => 6,
            };
            // MariaDB converts only what TIMESTAMP can hold, and returns the rest as given.
            let utc = from.to_utc(local);
            let converted = if in_timestamp_range(&utc) {
                to.from_utc(utc)
            } else {
                local
            };
            Value::DateTime(truncate_fraction(converted, fsp))
        }
        CurTime | UtcTime | TimeOf | TimeToSec | SecToTime | TimeDiff | AddTime | SubTime
        | TimeFormat | MakeTime => super::time::call(function, &v, data_type, session)?,
        UnixTimestamp => match v.first() {
            None => int_value(tm::unix_seconds(&session.statement_time_utc()).unwrap_or(0)),
            Some(Value::Null) => Value::Null,
            Some(x) => match to_temporal(x, session) {
                Some(p) => tm::unix_seconds(&session.time_zone().to_utc(p.datetime))
                    .map(int_value)
                    .unwrap_or(int_value(0)),
                None => Value::Null,
            },
        },
        FromUnixtime => {
            if null {
                return Ok(Value::Null);
            }
            let d = to_decimal(&v[0], session).unwrap_or_default();
            if d.is_sign_negative() {
                return Ok(Value::Null);
            }
            let secs = d.to_i64().unwrap_or(-1);
            let micros = d
                .fract()
                .checked_mul(Decimal::from(1_000_000i64))
                .and_then(Decimal::to_i64)
                .unwrap_or(0) as u32;
            let Some(dt) = (secs <= 32_536_771_199)
                .then(|| tm::from_unix_seconds(secs, micros))
                .flatten()
                .map(|utc| session.time_zone().from_utc(utc))
            else {
                return Ok(Value::Null);
            };
            if v.len() == 2 {
                Value::Bytes(tm::date_format(&dt, &s(1).unwrap_or_default()))
            } else {
                let fsp = match data_type {
                    DataType::DateTime { fsp } => *fsp,
                    _ => 6,
                };
                Value::DateTime(truncate_fraction(dt, fsp))
            }
        }
        Date => temporal_part(&v[0], session, |dt| Some(Value::Date(dt.date))),
        Year => temporal_part(&v[0], session, |dt| Some(int_value(dt.date.year as i64))),
        Month => temporal_part(&v[0], session, |dt| Some(int_value(dt.date.month as i64))),
        Day => temporal_part(&v[0], session, |dt| Some(int_value(dt.date.day as i64))),
        Hour | Minute | Second | Microsecond => match &v[0] {
            Value::Null => Value::Null,
            time => super::time::time_part(function, time, session),
        },
        Quarter => temporal_part(&v[0], session, |dt| {
            Some(int_value((dt.date.month as i64 + 2) / 3))
        }),
        DayOfWeek => temporal_part(&v[0], session, |dt| {
            tm::weekday(&dt.date).map(|w| int_value((w as i64 + 1) % 7 + 1))
        }),
        Weekday => temporal_part(&v[0], session, |dt| {
            tm::weekday(&dt.date).map(|w| int_value(w as i64))
        }),
        DayOfYear => temporal_part(&v[0], session, |dt| {
            tm::day_of_year(&dt.date).map(int_value)
        }),
        Week => temporal_part(&v[0], session, |dt| tm::week_mode0(&dt.date).map(int_value)),
        DayName => temporal_part(&v[0], session, |dt| {
            tm::weekday(&dt.date).map(|w| Value::text(tm::DAY_NAMES[w as usize]))
        }),
        MonthName => temporal_part(&v[0], session, |dt| {
            tm::month_name(dt.date.month).map(Value::text)
        }),
        DateFormat => {
            if null {
                return Ok(Value::Null);
            }
            let format = s(1).unwrap_or_default();
            temporal_part(&v[0], session, |dt| {
                Some(Value::Bytes(tm::date_format(&dt, &format)))
            })
        }
        DateAdd(unit) | DateSub(unit) => {
            if null {
                return Ok(Value::Null);
            }
            let negate = matches!(function, DateSub(_));
            date_add(
                &v[0],
                &args[0].data_type(),
                &v[1],
                unit,
                negate,
                data_type,
                session,
            )
        }
        DateDiff => {
            if null {
                return Ok(Value::Null);
            }
            match (to_temporal(&v[0], session), to_temporal(&v[1], session)) {
                (Some(a), Some(b)) => {
                    match (a.datetime.date.to_days(), b.datetime.date.to_days()) {
                        (Some(x), Some(y)) => int_value(x - y),
                        _ => Value::Null,
                    }
                }
                _ => Value::Null,
            }
        }
        ToDays => temporal_part(&v[0], session, |dt| dt.date.to_days().map(int_value)),
        FromDays => match int(0) {
            Some(n) if n < 366 => Value::Date(manycore_types::Date::default()),
            Some(n) => manycore_types::Date::from_days(n)
                .map(Value::Date)
                .unwrap_or(Value::Null),
            None => Value::Null,
        },
        LastDay => temporal_part(&v[0], session, |dt| {
            let d = dt.date;
            (d.month >= 1 && d.month <= 12).then(|| {
                Value::Date(manycore_types::Date {
                    day: manycore_types::Date::days_in_month(d.year, d.month),
                    ..d
                })
            })
        }),
        MakeDate => match (int(0), int(1)) {
            (Some(year), Some(day)) => tm::make_date(year, day)
                .map(Value::Date)
                .unwrap_or(Value::Null),
            _ => Value::Null,
        },
        StrToDate => {
            if null {
                return Ok(Value::Null);
            }
            let (text, format) = (s(0).unwrap_or_default(), s(1).unwrap_or_default());
            match tm::str_to_date(&text, &format) {
                Some(dt) => match data_type {
                    DataType::Date => Value::Date(dt.date),
                    DataType::DateTime { .. } => Value::DateTime(dt),
                    _ => Value::Time(manycore_types::Time::of_day(&dt)),
                },
                None => {
                    let shown = match tm::format_parts(&format) {
                        tm::FormatParts::Date => "date",
                        tm::FormatParts::Time => "time",
                        tm::FormatParts::DateTime => "datetime",
                    };
                    session.warn(
                        ErrorCode::WrongValueForType,
                        format!(
                            "Incorrect {shown} value: '{}' for function str_to_date",
                            String::from_utf8_lossy(&text)
                        ),
                    );
                    Value::Null
                }
            }
        }
        TimestampDiff(unit) => {
            if null {
                return Ok(Value::Null);
            }
            match (to_temporal(&v[0], session), to_temporal(&v[1], session)) {
                (Some(a), Some(b)) => tm::timestamp_diff(unit, &a.datetime, &b.datetime)
                    .map(int_value)
                    .unwrap_or(Value::Null),
                _ => Value::Null,
            }
        }
        Database => match session.current_database() {
            Some(db) => Value::text(db),
            None => Value::Null,
        },
        User => Value::text(session.login_user()),
        // In a SQL SECURITY DEFINER routine or a trigger: its definer.
        CurrentUser => match session.running_routines().and_then(|r| r.current_user()) {
            Some(definer) => Value::text(&definer),
            None => Value::text(session.current_user()),
        },
        ConnectionId => Value::UInt(session.connection_id() as u64),
        LastInsertId => match v.first() {
            Some(x) if !x.is_null() => Value::UInt(coerce::to_u64_bits(x, session).unwrap_or(0)),
            _ => Value::UInt(session.last_insert_id()),
        },
        Version => {
            let version = session.system_variable("version", super::VarScope::Default)?;
            Value::Bytes(to_bytes(&version, &DataType::Null).unwrap_or_default())
        }
        FoundRows => int_value(session.found_rows() as i64),
        RowCount => int_value(session.row_count()),
        Charset => Value::text(
            if is_binary_arg(args, 0) || !args[0].data_type().is_string() {
                "binary"
            } else {
                "utf8mb4"
            },
        ),
        BitCount => match coerce::to_u64_bits(&v[0], session) {
            Some(n) => int_value(n.count_ones() as i64),
            None => Value::Null,
        },
        Crc32 => match s(0) {
            Some(b) => Value::UInt(super::digest::crc32(&b) as u64),
            None => Value::Null,
        },
        Uuid => Value::Bytes(uuid_v4().into_bytes()),
        UuidShort => Value::UInt(session.uuid_short()),
        Sleep => {
            // Asked of the session, never slept here: a worker thread serves many
            // connections (session invariant (4) says how the statement waits).
            if let Some(seconds) = dbl(0).filter(|s| *s > 0.0) {
                let asked = std::time::Duration::try_from_secs_f64(seconds)
                    .map_or(SLEEP_MAX, |d| d.min(SLEEP_MAX));
                session.sleep(asked);
            }
            int_value(0)
        }
        // Asked of the session, which knows the privileges and secure_file_priv.
        LoadFile => match s(0) {
            Some(name) => session.load_file(&name),
            None => Value::Null,
        },
        GetLock | ReleaseLock | ReleaseAllLocks | IsFreeLock | IsUsedLock => {
            return user_lock(function, args, &v, session)
        }
        Json(_) => unreachable!("evaluated before the arguments"),
    })
}

/// A user-lock function (`user_lock`): NULL for a NULL or empty name, 1059 for one longer
/// than a lock name may be, NULL with warning 1411 for a timeout GET_LOCK refuses.
fn user_lock(
    function: Function,
    args: &[Expr],
    v: &[Value],
    session: &dyn super::SessionContext,
) -> Result<Value> {
    use crate::user_lock::{self, UserLockCall};
    let name = match function {
        Function::ReleaseAllLocks => Vec::new(),
        _ => match string_arg(args, v, 0) {
            Some(name) if !name.is_empty() => name,
            _ => return Ok(Value::Null),
        },
    };
    if name.len() > user_lock::NAME_MAX_BYTES {
        return Err(Error::new(
            ErrorCode::TooLongIdent,
            format!(
                "Identifier name '{}' is too long",
                user_lock::shown_name(&name)
            ),
        ));
    }
    let call = match function {
        Function::GetLock => {
            let seconds = v.get(1).and_then(|t| to_f64(t, session));
            match user_lock::timeout(seconds) {
                Ok(timeout) => UserLockCall::Get {
                    name: &name,
                    timeout,
                },
                Err(shown) => {
                    session.warn(
                        ErrorCode::WrongValueForType,
                        format!("Incorrect timeout value: '{shown}' for function get_lock"),
                    );
                    return Ok(Value::Null);
                }
            }
        }
        Function::ReleaseLock => UserLockCall::Release(&name),
        Function::IsFreeLock => UserLockCall::IsFree(&name),
        Function::IsUsedLock => UserLockCall::IsUsed(&name),
        _ => UserLockCall::ReleaseAll,
    };
    Ok(session.user_lock(call))
}

/// Longest string a function may build (max_allowed_packet's default, 16 MiB); longer
/// results are NULL with warning 1301, as MariaDB does.
pub const MAX_STRING_BYTES: usize = 16 * 1024 * 1024;

/// The longest one SLEEP() call sleeps (MariaDB has no limit; a year is none in practice).
pub const SLEEP_MAX: std::time::Duration = std::time::Duration::from_secs(365 * 24 * 3600);

fn too_big(function: Function, session: &dyn super::SessionContext) -> Value {
    session.warn(
        ErrorCode::UnknownError,
        format!(
            "Result of {}() was larger than max_allowed_packet ({MAX_STRING_BYTES}) - truncated",
            function.name()
        ),
    );
    Value::Null
}

fn truncate_fraction(mut dt: DateTime, fsp: u8) -> DateTime {
    let unit = 10u32.pow(6 - fsp.min(6) as u32);
    dt.microsecond = dt.microsecond / unit * unit;
    dt
}

/// Whether a UTC datetime is inside TIMESTAMP's range, 1970-01-01 00:00:01 to
/// 2038-01-19 03:14:07.
fn in_timestamp_range(utc: &DateTime) -> bool {
    const TIMESTAMP_MAX_SECONDS: i64 = i32::MAX as i64;
    tm::unix_seconds(utc).is_some_and(|s| (1..=TIMESTAMP_MAX_SECONDS).contains(&s))
}

/// Fractional digits of a temporal argument's value: its type's, a string literal's own,
/// else 6.
fn temporal_fsp(arg: &Expr) -> u8 {
    match arg.data_type() {
        DataType::DateTime { fsp } | DataType::Timestamp { fsp } | DataType::Time { fsp } => fsp,
        DataType::Date | DataType::Int { .. } => 0,
        _ => match arg {
            Expr::Literal {
                value: Value::Bytes(text),
                ..
            } => text
                .iter()
                .rposition(|&b| b == b'.')
                .map_or(0, |dot| (text.len() - dot - 1).min(6) as u8),
            _ => 6,
        },
    }
}

/// The clock now, in UTC.
pub fn wall_clock_utc() -> DateTime {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    tm::from_unix_seconds(now.as_secs() as i64, now.subsec_micros()).unwrap_or_default()
}

fn temporal_part(
    v: &Value,
    session: &dyn super::SessionContext,
    f: impl FnOnce(DateTime) -> Option<Value>,
) -> Value {
    if v.is_null() {
        return Value::Null;
    }
    match to_temporal(v, session) {
        Some(p) => f(p.datetime).unwrap_or(Value::Null),
        None => Value::Null,
    }
}

/// Converts `value` (of type `from`) to the representation of `to` without warnings,
/// for functions that pass one argument through (IF, COALESCE, GREATEST, ...).
pub fn conform(value: Value, from: &DataType, to: &DataType, ctx: &EvalContext) -> Result<Value> {
    if value.is_null() || from == to {
        return Ok(value);
    }
    let session = ctx.session;
    Ok(match to {
        DataType::Null => value,
        t if t.is_string() => Value::Bytes(to_bytes(&value, from).unwrap_or_default()),
        DataType::Int { unsigned, .. } => match value {
            Value::Int(_) | Value::UInt(_) => value,
            other => {
                let i = to_i128(&other, session).unwrap_or(0);
                if *unsigned && i >= 0 {
                    Value::UInt(i as u64)
                } else {
                    Value::Int(i.clamp(i64::MIN as i128, i64::MAX as i128) as i64)
                }
            }
        },
        DataType::Decimal { .. } => Value::Decimal(to_decimal(&value, session).unwrap_or_default()),
        DataType::Float { .. } | DataType::Double { .. } => {
            Value::Double(to_f64(&value, session).unwrap_or(0.0))
        }
        DataType::Date => match coerce::to_datetime(&value, session) {
            Some(dt) => Value::Date(dt.date),
            None => Value::Null,
        },
        DataType::DateTime { .. } | DataType::Timestamp { .. } => {
            match coerce::to_datetime(&value, session) {
                Some(dt) => Value::DateTime(dt),
                None => Value::Null,
            }
        }
        DataType::Time { .. } => match super::time::to_time(&value, session) {
            Some(t) => Value::Time(t),
            None => Value::Null,
        },
        _ => value,
    })
}

/// An exact numeric result as the integer or decimal the type asks for.
fn numeric_as(value: Value, data_type: &DataType) -> Value {
    match (value, data_type) {
        (Value::Decimal(d), DataType::Int { .. }) => match d.to_i64() {
            Some(i) => Value::Int(i),
            None => Value::Decimal(d),
        },
        (v, _) => v,
    }
}

fn round_value(
    v: &Value,
    places: i64,
    truncate: bool,
    data_type: &DataType,
    session: &dyn super::SessionContext,
) -> Value {
    match v {
        Value::Int(_) | Value::UInt(_) if places >= 0 => v.clone(),
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) => {
            let d = to_decimal(v, session).unwrap_or_default();
            let r = round_decimal(d, places, truncate);
            match data_type {
                DataType::Int { unsigned: true, .. } => {
                    Value::UInt(r.to_i128().and_then(|i| u64::try_from(i).ok()).unwrap_or(0))
                }
                DataType::Int { .. } => Value::Int(r.to_i64().unwrap_or(0)),
                _ => Value::Decimal(r),
            }
        }
        other => Value::Double(round_double(
            to_f64(other, session).unwrap_or(0.0),
            places,
            truncate,
        )),
    }
}

/// ROUND/TRUNCATE of a DOUBLE, step for step as MariaDB's `my_double_round`, so the
/// last bit agrees: scale by an exact power of ten (multiplying for places >= 0, dividing
/// for negative places, as 10^-n is inexact), round half to even (rint) or toward zero,
/// scale back. A value that overflows when scaled up is returned as it is (it has no
/// digits that far right); scaling down by more than 10^308 gives 0.
fn round_double(value: f64, places: i64, truncate: bool) -> f64 {
    let negative = places < 0;
    let factor = power_of_ten(places.unsigned_abs());
    if negative && factor.is_infinite() {
        return 0.0;
    }
    let scaled = if negative {
        value / factor
    } else {
        value * factor
    };
    if !negative && scaled.is_infinite() {
        return value;
    }
    let rounded = if truncate {
        scaled.trunc()
    } else {
        scaled.round_ties_even()
    };
    // + 0.0 turns -0 into 0: MariaDB sends ROUND(-0.001e0, 2) as 0 in the binary
    // protocol too.
    if negative {
        rounded * factor + 0.0
    } else {
        rounded / factor + 0.0
    }
}

/// 10^n correctly rounded, as MariaDB's table of `1e0`..`1e308` literals; infinite
/// beyond. `powi` is exact only up to 10^22 (larger powers are not representable and
/// repeated multiplication rounds more than once), so those are parsed from text.
fn power_of_ten(n: u64) -> f64 {
    const EXACT_MAX: u64 = 22;
    const FINITE_MAX: u64 = 308;
    match n {
        0..=EXACT_MAX => 10f64.powi(n as i32),
        n if n <= FINITE_MAX => format!("1e{n}")
            .parse()
            .expect("1e<n> is a valid float literal"),
        _ => f64::INFINITY,
    }
}

/// ROUND/TRUNCATE of a DECIMAL to `places` (negative: tens, hundreds...); 0 when the
/// rounded value would not fit 65 digits.
fn round_decimal(d: Decimal, places: i64, truncate: bool) -> Decimal {
    let places = places.clamp(-100, 100) as i32;
    if truncate {
        d.truncate(places)
    } else {
        d.round(places).unwrap_or(Decimal::ZERO)
    }
}

fn trim(text: &[u8], pattern: &[u8], side: TrimSide) -> Vec<u8> {
    if pattern.is_empty() {
        return text.to_vec();
    }
    let mut start = 0;
    let mut end = text.len();
    if side != TrimSide::Trailing {
        while text[start..end].starts_with(pattern) {
            start += pattern.len();
        }
    }
    if side != TrimSide::Leading {
        while end - start >= pattern.len() && text[start..end].ends_with(pattern) {
            end -= pattern.len();
        }
    }
    text[start..end].to_vec()
}

fn replace_bytes(text: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    if from.is_empty() {
        return text.to_vec();
    }
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    out
}

/// LOCATE: 1-based character position of `needle` in `hay` at or after `start`, 0 if absent.
/// Case-insensitive unless either side is binary.
fn locate(needle: &[u8], hay: &[u8], start: i64, binary: bool) -> i64 {
    let fold = |b: &[u8]| -> Vec<char> {
        let s = String::from_utf8_lossy(b);
        if binary {
            b.iter().map(|c| *c as char).collect()
        } else {
            s.chars()
                .map(|c| c.to_uppercase().next().unwrap_or(c))
                .collect()
        }
    };
    let (n, h) = (fold(needle), fold(hay));
    if start < 1 || start as usize > h.len() + 1 {
        return 0;
    }
    let from = start as usize - 1;
    if n.is_empty() {
        return start;
    }
    (from..h.len())
        .find(|&i| h[i..].starts_with(&n))
        .map(|i| i as i64 + 1)
        .unwrap_or(0)
}

fn hex_upper(b: &[u8]) -> String {
    b.iter().map(|c| format!("{c:02X}")).collect()
}

fn hex_lower(b: &[u8]) -> String {
    b.iter().map(|c| format!("{c:02x}")).collect()
}

fn unhex(b: &[u8]) -> Option<Vec<u8>> {
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let padded: Vec<u8> = if b.len() % 2 == 1 {
        [b"0".as_slice(), b].concat()
    } else {
        b.to_vec()
    };
    padded
        .chunks(2)
        .map(|p| Some(digit(p[0])? * 16 + digit(p[1])?))
        .collect()
}

/// FORMAT(x, d): rounded to d places, thousands separated by ',' (locale en_US).
fn format_number(d: &Decimal, places: u32) -> String {
    let places = places.min(manycore_types::decimal::SCALE_MAX);
    let r = d.round(places as i32).unwrap_or(*d);
    let mut bytes = Vec::new();
    manycore_types::format::write_decimal(&r, Some(places as u8), &mut bytes);
    let text = String::from_utf8(bytes).unwrap_or_default();
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest.to_string()),
        None => (false, text.clone()),
    };
    let (int_part, frac) = match body.split_once('.') {
        Some((i, f)) => (i.to_string(), Some(f.to_string())),
        None => (body, None),
    };
    let mut grouped = String::new();
    for (i, c) in int_part.chars().enumerate() {
        if i > 0 && (int_part.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    out.push_str(&grouped);
    if let Some(f) = frac {
        out.push('.');
        out.push_str(&f);
    }
    out
}

/// `date + INTERVAL amount unit` with MySQL's result typing (see `result_type`).
fn date_add(
    date: &Value,
    date_type: &DataType,
    amount: &Value,
    unit: IntervalUnit,
    negate: bool,
    data_type: &DataType,
    session: &dyn super::SessionContext,
) -> Value {
    let Some(parsed) = to_temporal(date, session) else {
        return Value::Null;
    };
    // Fractional amounts round to whole units, except SECOND keeps microseconds.
    let (amount, unit) = if unit == IntervalUnit::Second {
        let d = to_decimal(amount, session).unwrap_or_default();
        let micros = d
            .checked_mul(Decimal::from(1_000_000i64))
            .and_then(|m| m.round(0))
            .and_then(Decimal::to_i128)
            .unwrap_or(0);
        (micros, IntervalUnit::Microsecond)
    } else {
        (to_i128(amount, session).unwrap_or(0), unit)
    };
    let amount = if negate { -amount } else { amount };
    let Some(result) = tm::add_interval(&parsed.datetime, amount, unit) else {
        session.warn(
            ErrorCode::DataOutOfRange,
            "Datetime function: datetime field overflow".to_string(),
        );
        return Value::Null;
    };
    match data_type {
        DataType::Date => Value::Date(result.date),
        DataType::DateTime { .. } | DataType::Timestamp { .. } => Value::DateTime(result),
        _ => {
            let date_only = !parsed.has_time && unit.is_date_unit() && !date_type.is_temporal()
                || (*date_type == DataType::Date && unit.is_date_unit());
            let mut out = Vec::new();
            if date_only {
                manycore_types::format::write_date(&result.date, &mut out);
            } else {
                let fsp = if result.microsecond != 0 { 6 } else { 0 };
                manycore_types::format::write_datetime(&result, fsp, &mut out);
            }
            Value::Bytes(out)
        }
    }
}

/// MySQL's RAND(seed) first value (the generator of `my_rnd_init` / `my_rnd`).
fn mysql_rand_first(seed: i64) -> f64 {
    const MAX: u64 = 0x3FFF_FFFF;
    let seed = seed as u32 as u64;
    let mut seed1 = (seed.wrapping_mul(0x10001).wrapping_add(55_555_555)) % MAX;
    let seed2 = (seed.wrapping_mul(0x1000_0001)) % MAX;
    seed1 = (seed1 * 3 + seed2) % MAX;
    seed1 as f64 / MAX as f64
}

thread_local! {
    static RNG: std::cell::Cell<u64> = std::cell::Cell::new(seed_from_time());
}

fn seed_from_time() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0x9E37_79B9_7F4A_7C15);
    nanos | 1
}

/// xorshift64*: fast, good enough for RAND() and UUID().
fn next_random() -> u64 {
    RNG.with(|state| {
        let mut x = state.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        state.set(x);
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    })
}

fn random_unit() -> f64 {
    (next_random() >> 11) as f64 / (1u64 << 53) as f64
}

fn uuid_v4() -> String {
    let (a, b) = (next_random(), next_random());
    let b = (b & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000;
    let a = (a & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000;
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xFFFF,
        a & 0xFFFF,
        b >> 48,
        b & 0xFFFF_FFFF_FFFF
    )
}

/// Bytes of the first UTF-8 character of `b` (1 for an invalid lead byte).
fn utf8_char_len(b: &[u8]) -> usize {
    match b.first() {
        Some(0xF0..=0xF7) => 4,
        Some(0xE0..=0xEF) => 3,
        Some(0xC0..=0xDF) => 2,
        _ => 1,
    }
    .min(b.len().max(1))
}

/// QUOTE(s): single-quoted, with backslash, quote, NUL and Ctrl-Z escaped so the result
/// reads back as the same string literal.
fn quote(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len() + 2);
    out.push(b'\'');
    for &byte in b {
        match byte {
            b'\\' | b'\'' => out.extend_from_slice(&[b'\\', byte]),
            0 => out.extend_from_slice(b"\\0"),
            0x1A => out.extend_from_slice(b"\\Z"),
            _ => out.push(byte),
        }
    }
    out.push(b'\'');
    out
}

/// CONV(text, from, to): the leading digits of `text` in base |from| (signed if from is
/// negative), written in base |to| (as a signed number if to is negative); None for a
/// base outside 2..=36. Values saturate at the 64-bit bounds, as in MySQL.
fn conv(text: &[u8], from: i64, to: i64) -> Option<String> {
    let (from_base, to_base) = (from.unsigned_abs(), to.unsigned_abs());
    if !(2..=36).contains(&from_base) || !(2..=36).contains(&to_base) {
        return None;
    }
    let text = std::str::from_utf8(text).ok()?.trim_start();
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let mut magnitude: u64 = 0;
    for c in digits.chars() {
        let Some(d) = c.to_digit(from_base as u32) else {
            break;
        };
        magnitude = magnitude
            .checked_mul(from_base)
            .and_then(|m| m.checked_add(d as u64))
            .unwrap_or(u64::MAX);
    }
    let value: u64 = if from < 0 {
        let signed = if negative {
            (magnitude.min(1 << 63) as i128).wrapping_neg()
        } else {
            magnitude.min(i64::MAX as u64) as i128
        };
        signed as i64 as u64
    } else if negative {
        magnitude.wrapping_neg()
    } else {
        magnitude
    };
    let (negative_out, mut n) = if to < 0 && (value as i64) < 0 {
        (true, (value as i64).unsigned_abs())
    } else {
        (false, value)
    };
    let mut out = Vec::new();
    loop {
        let d = (n % to_base) as u32;
        out.push(
            char::from_digit(d, to_base as u32)
                .expect("digit below base")
                .to_ascii_uppercase(),
        );
        n /= to_base;
        if n == 0 {
            break;
        }
    }
    if negative_out {
        out.push('-');
    }
    Some(out.iter().rev().collect())
}

#[cfg(test)]
mod tests {
    use super::{conv, quote};

    #[test]
    fn conv_cases() {
        let cases: &[(&str, i64, i64, Option<&str>)] = &[
            ("ff", 16, 10, Some("255")),
            ("10", 10, 2, Some("1010")),
            ("-1", 10, 16, Some("FFFFFFFFFFFFFFFF")),
            ("-1", 10, -10, Some("-1")),
            ("zz", 36, 10, Some("1295")),
            ("12x9", 10, 10, Some("12")),
            (
                "99999999999999999999999",
                10,
                10,
                Some("18446744073709551615"),
            ),
            ("12", 1, 10, None),
            ("12", 10, 37, None),
        ];
        for (text, from, to, want) in cases {
            assert_eq!(
                conv(text.as_bytes(), *from, *to).as_deref(),
                *want,
                "CONV('{text}', {from}, {to})"
            );
        }
    }

    #[test]
    fn quote_escapes() {
        assert_eq!(quote(b"it's"), b"'it\\'s'");
        assert_eq!(quote(b"a\\b\0\x1a"), b"'a\\\\b\\0\\Z'");
    }
}
