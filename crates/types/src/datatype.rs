//! Column and expression types, with what the wire protocol needs to describe them.

use crate::collation::Collation;
use crate::enumset::{self, Members};
use crate::value::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntWidth {
    Tiny,
    Small,
    Medium,
    Int,
    Big,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LobSize {
    Tiny,
    Regular,
    Medium,
    Long,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DataType {
    /// The type of a bare NULL literal.
    Null,
    Int {
        width: IntWidth,
        unsigned: bool,
    },
    Decimal {
        precision: u8,
        scale: u8,
        /// DECIMAL UNSIGNED: negative values are out of range.
        unsigned: bool,
    },
    /// A single-precision value (held as the f64 of an f32). `decimals` and `precision`
    /// as for DOUBLE: a FLOAT(M,D) column's values are stored rounded to D decimals and
    /// below 10^(M-D), then to single precision; a plain FLOAT has None and NOT_FIXED.
    Float {
        decimals: u8,
        precision: Option<u8>,
        /// FLOAT UNSIGNED: negative values are out of range.
        unsigned: bool,
    },
    /// `decimals`: the fraction digits its text form has (MariaDB's `decimals`), or
    /// NOT_FIXED_DECIMALS for the shortest digits that round-trip. Fixed decimals come
    /// from a DOUBLE(M,D) column, PI(), a DOUBLE rounded by ROUND/TRUNCATE/CEIL/FLOOR, and
    /// what is computed from them. `precision`: a DOUBLE(M,D) column's M (its values are
    /// stored rounded to D decimals and below 10^(M-D)); None for every other DOUBLE.
    Double {
        decimals: u8,
        precision: Option<u8>,
        /// DOUBLE UNSIGNED: negative values are out of range.
        unsigned: bool,
    },
    /// Character strings carry their collation (utf8mb4_general_ci unless declared).
    Char {
        length: u32,
        collation: Collation,
    },
    VarChar {
        length: u32,
        collation: Collation,
    },
    Binary {
        length: u32,
    },
    VarBinary {
        length: u32,
    },
    Text {
        size: LobSize,
        collation: Collation,
    },
    Blob {
        size: LobSize,
    },
    Date,
    DateTime {
        fsp: u8,
    },
    Timestamp {
        fsp: u8,
    },
    Time {
        fsp: u8,
    },
    /// ENUM: a cell holds one member's text as declared (or '', the invalid value 0);
    /// `col + 0` and comparisons with numbers read its 1-based position (`enumset`).
    Enum {
        members: Members,
        collation: Collation,
    },
    /// SET: a cell holds the text of its members in declaration order, comma-separated;
    /// numbers read the bitmask (bit i for member i).
    Set {
        members: Members,
        collation: Collation,
    },
}

/// MySQL protocol column type codes (enum_field_types).
pub mod type_code {
    pub const DECIMAL: u8 = 0x00;
    pub const TINY: u8 = 0x01;
    pub const SHORT: u8 = 0x02;
    pub const LONG: u8 = 0x03;
    pub const FLOAT: u8 = 0x04;
    pub const DOUBLE: u8 = 0x05;
    pub const NULL: u8 = 0x06;
    pub const TIMESTAMP: u8 = 0x07;
    pub const LONGLONG: u8 = 0x08;
    pub const INT24: u8 = 0x09;
    pub const DATE: u8 = 0x0a;
    pub const TIME: u8 = 0x0b;
    pub const DATETIME: u8 = 0x0c;
    pub const YEAR: u8 = 0x0d;
    pub const VARCHAR: u8 = 0x0f;
    pub const BIT: u8 = 0x10;
    pub const NEWDECIMAL: u8 = 0xf6;
    pub const ENUM: u8 = 0xf7;
    pub const SET: u8 = 0xf8;
    pub const TINY_BLOB: u8 = 0xf9;
    pub const MEDIUM_BLOB: u8 = 0xfa;
    pub const LONG_BLOB: u8 = 0xfb;
    pub const BLOB: u8 = 0xfc;
    pub const VAR_STRING: u8 = 0xfd;
    pub const STRING: u8 = 0xfe;
    pub const GEOMETRY: u8 = 0xff;
}

/// Where a column's default comes from when an INSERT does not name it.
#[derive(Clone, Debug, PartialEq)]
pub enum ColumnDefault {
    /// No DEFAULT clause: NULL for nullable columns, an error (1364) in strict mode otherwise.
    None,
    /// A constant, kept as the cell the column stores (a TIMESTAMP's in UTC).
    Value(Value),
    /// DEFAULT CURRENT_TIMESTAMP / NOW().
    CurrentTimestamp,
}

impl IntWidth {
    /// (min signed, max signed, max unsigned)
    pub fn bounds(self) -> (i64, i64, u64) {
        match self {
            IntWidth::Tiny => (i8::MIN as i64, i8::MAX as i64, u8::MAX as u64),
            IntWidth::Small => (i16::MIN as i64, i16::MAX as i64, u16::MAX as u64),
            IntWidth::Medium => (-(1 << 23), (1 << 23) - 1, (1 << 24) - 1),
            IntWidth::Int => (i32::MIN as i64, i32::MAX as i64, u32::MAX as u64),
            IntWidth::Big => (i64::MIN, i64::MAX, u64::MAX),
        }
    }

    pub fn sql_name(self) -> &'static str {
        match self {
            IntWidth::Tiny => "tinyint",
            IntWidth::Small => "smallint",
            IntWidth::Medium => "mediumint",
            IntWidth::Int => "int",
            IntWidth::Big => "bigint",
        }
    }
}

impl LobSize {
    pub fn max_bytes(self) -> u64 {
        match self {
            LobSize::Tiny => 255,
            LobSize::Regular => 65_535,
            LobSize::Medium => 16_777_215,
            LobSize::Long => 4_294_967_295,
        }
    }

    fn prefix(self) -> &'static str {
        match self {
            LobSize::Tiny => "tiny",
            LobSize::Regular => "",
            LobSize::Medium => "medium",
            LobSize::Long => "long",
        }
    }
}

/// What SHOW CREATE TABLE writes after a number type declared UNSIGNED.
fn sign(unsigned: bool) -> &'static str {
    if unsigned {
        " unsigned"
    } else {
        ""
    }
}

/// MariaDB's NOT_FIXED_DEC: a FLOAT or DOUBLE printed with the shortest digits that
/// round-trip; also what column definitions send as their decimals.
pub const NOT_FIXED_DECIMALS: u8 = 31;

impl DataType {
    pub const BIGINT: DataType = DataType::Int {
        width: IntWidth::Big,
        unsigned: false,
    };

    /// A FLOAT printed with the shortest digits that round-trip as a single.
    pub const FLOAT: DataType = DataType::Float {
        decimals: NOT_FIXED_DECIMALS,
        precision: None,
        unsigned: false,
    };

    /// A DOUBLE printed with the shortest digits that round-trip (almost every DOUBLE).
    pub const DOUBLE: DataType = DataType::Double {
        decimals: NOT_FIXED_DECIMALS,
        precision: None,
        unsigned: false,
    };

    pub fn is_integer(&self) -> bool {
        matches!(self, DataType::Int { .. })
    }

    /// An INT UNSIGNED type (the integer arithmetic that follows differs).
    pub fn is_unsigned(&self) -> bool {
        matches!(self, DataType::Int { unsigned: true, .. })
    }

    /// Any number declared UNSIGNED: it holds no negative values, and column definitions
    /// carry the UNSIGNED flag.
    pub fn is_unsigned_number(&self) -> bool {
        match self {
            DataType::Int { unsigned, .. }
            | DataType::Decimal { unsigned, .. }
            | DataType::Float { unsigned, .. }
            | DataType::Double { unsigned, .. } => *unsigned,
            _ => false,
        }
    }

    /// This number type declared UNSIGNED (or not); any other type as it is.
    pub fn with_unsigned(mut self, unsigned: bool) -> DataType {
        if let DataType::Int { unsigned: u, .. }
        | DataType::Decimal { unsigned: u, .. }
        | DataType::Float { unsigned: u, .. }
        | DataType::Double { unsigned: u, .. } = &mut self
        {
            *u = unsigned;
        }
        self
    }

    pub fn is_numeric(&self) -> bool {
        matches!(
            self,
            DataType::Int { .. }
                | DataType::Decimal { .. }
                | DataType::Float { .. }
                | DataType::Double { .. }
        )
    }

    pub fn is_string(&self) -> bool {
        matches!(
            self,
            DataType::Char { .. }
                | DataType::VarChar { .. }
                | DataType::Binary { .. }
                | DataType::VarBinary { .. }
                | DataType::Text { .. }
                | DataType::Blob { .. }
                | DataType::Enum { .. }
                | DataType::Set { .. }
        )
    }

    /// The member list of an ENUM or SET type.
    pub fn members(&self) -> Option<&Members> {
        match self {
            DataType::Enum { members, .. } | DataType::Set { members, .. } => Some(members),
            _ => None,
        }
    }

    /// The largest number a value of an ENUM (its last position) or SET (every bit) reads
    /// as in a numeric context.
    pub fn largest_member_number(&self) -> Option<u64> {
        match self {
            DataType::Enum { members, .. } => Some(members.len() as u64),
            DataType::Set { members, .. } => Some(enumset::set_mask(members.len())),
            _ => None,
        }
    }

    pub fn is_temporal(&self) -> bool {
        matches!(
            self,
            DataType::Date
                | DataType::DateTime { .. }
                | DataType::Timestamp { .. }
                | DataType::Time { .. }
        )
    }

    /// CHAR(length) in the default collation, utf8mb4_general_ci.
    pub const fn char(length: u32) -> DataType {
        DataType::Char {
            length,
            collation: Collation::Utf8mb4GeneralCi,
        }
    }

    /// VARCHAR(length) in the default collation.
    pub const fn varchar(length: u32) -> DataType {
        DataType::VarChar {
            length,
            collation: Collation::Utf8mb4GeneralCi,
        }
    }

    /// A TEXT type in the default collation.
    pub const fn text(size: LobSize) -> DataType {
        DataType::Text {
            size,
            collation: Collation::Utf8mb4GeneralCi,
        }
    }

    /// This type in `collation` if it is a character string; other types have none.
    pub fn with_collation(self, collation: Collation) -> DataType {
        match self {
            DataType::Char { length, .. } => DataType::Char { length, collation },
            DataType::VarChar { length, .. } => DataType::VarChar { length, collation },
            DataType::Text { size, .. } => DataType::Text { size, collation },
            DataType::Enum { members, .. } => DataType::Enum { members, collation },
            DataType::Set { members, .. } => DataType::Set { members, collation },
            other => other,
        }
    }

    /// The collation that compares values of this type; binary for non-strings.
    pub fn collation(&self) -> Collation {
        match self {
            DataType::Char { collation, .. }
            | DataType::VarChar { collation, .. }
            | DataType::Text { collation, .. }
            | DataType::Enum { collation, .. }
            | DataType::Set { collation, .. } => *collation,
            _ => Collation::Binary,
        }
    }

    /// Maximum length in characters (strings) or bytes (binary), if bounded per value.
    pub fn max_length(&self) -> Option<u64> {
        match self {
            DataType::Char { length, .. }
            | DataType::VarChar { length, .. }
            | DataType::Binary { length }
            | DataType::VarBinary { length } => Some(*length as u64),
            DataType::Text { size, .. } | DataType::Blob { size } => Some(size.max_bytes()),
            DataType::Enum { members, .. } => Some(enumset::enum_max_length(members)),
            DataType::Set { members, .. } => Some(enumset::set_max_length(members)),
            _ => None,
        }
    }

    /// Protocol type code for column definitions and the binary row format. TEXT and
    /// BLOB say their size, as MariaDB does for expressions; a table's column is always
    /// BLOB (`ColumnDefinition::with_table`).
    pub fn type_code(&self) -> u8 {
        use type_code::*;
        match self {
            DataType::Null => NULL,
            DataType::Int { width, .. } => match width {
                IntWidth::Tiny => TINY,
                IntWidth::Small => SHORT,
                IntWidth::Medium => INT24,
                IntWidth::Int => LONG,
                IntWidth::Big => LONGLONG,
            },
            DataType::Decimal { .. } => NEWDECIMAL,
            DataType::Float { .. } => FLOAT,
            DataType::Double { .. } => DOUBLE,
            // MariaDB sends ENUM and SET as STRING, with a flag saying which.
            DataType::Char { .. }
            | DataType::Binary { .. }
            | DataType::Enum { .. }
            | DataType::Set { .. } => STRING,
            DataType::VarChar { .. } | DataType::VarBinary { .. } => VAR_STRING,
            DataType::Text { size, .. } | DataType::Blob { size } => match size {
                LobSize::Tiny => TINY_BLOB,
                LobSize::Regular => BLOB,
                LobSize::Medium => MEDIUM_BLOB,
                LobSize::Long => LONG_BLOB,
            },
            DataType::Date => DATE,
            DataType::DateTime { .. } => DATETIME,
            DataType::Timestamp { .. } => TIMESTAMP,
            DataType::Time { .. } => TIME,
        }
    }

    /// Column display length as sent in column definitions (characters x 4 for utf8mb4).
    pub fn display_length(&self) -> u32 {
        match self {
            DataType::Null => 0,
            DataType::Int { width, unsigned } => {
                let digits = match width {
                    IntWidth::Tiny => 3,
                    IntWidth::Small => 5,
                    IntWidth::Medium => 8,
                    IntWidth::Int => 10,
                    IntWidth::Big => {
                        if *unsigned {
                            20
                        } else {
                            19
                        }
                    }
                };
                digits + if *unsigned { 0 } else { 1 }
            }
            DataType::Decimal {
                precision,
                scale,
                unsigned,
            } => *precision as u32 + (*scale > 0) as u32 + (!*unsigned) as u32,
            DataType::Float { precision, .. } => precision.map_or(12, u32::from),
            DataType::Double { precision, .. } => precision.map_or(22, u32::from),
            DataType::Char { length, .. } | DataType::VarChar { length, .. } => {
                length.saturating_mul(4)
            }
            DataType::Enum { .. } | DataType::Set { .. } => {
                let characters = self.max_length().unwrap_or(0);
                characters.saturating_mul(4).min(u32::MAX as u64) as u32
            }
            DataType::Binary { length } | DataType::VarBinary { length } => *length,
            DataType::Text { size, .. } | DataType::Blob { size } => {
                size.max_bytes().min(u32::MAX as u64) as u32
            }
            DataType::Date => 10,
            DataType::DateTime { fsp } | DataType::Timestamp { fsp } => {
                19 + if *fsp > 0 { *fsp as u32 + 1 } else { 0 }
            }
            // '-838:59:59' plus the fraction.
            DataType::Time { fsp } => 10 + if *fsp > 0 { *fsp as u32 + 1 } else { 0 },
        }
    }

    /// The decimals a DOUBLE computed from a value of this type keeps (MariaDB's
    /// `Item::decimals`): an exact type's scale or fsp, a DOUBLE's own; NOT_FIXED for FLOAT,
    /// strings and NULL.
    pub fn double_decimals(&self) -> u8 {
        match self {
            DataType::Int { .. } | DataType::Date => 0,
            DataType::Decimal { scale, .. } => *scale,
            DataType::DateTime { fsp } | DataType::Timestamp { fsp } | DataType::Time { fsp } => {
                *fsp
            }
            DataType::Float { decimals, .. } | DataType::Double { decimals, .. } => *decimals,
            _ => NOT_FIXED_DECIMALS,
        }
    }

    /// A FLOAT(M,D) or DOUBLE(M,D) column's (M, D): its values are stored rounded to D
    /// decimals and below 10^(M-D). None for every other type.
    pub fn fixed_precision(&self) -> Option<(u8, u8)> {
        match self {
            DataType::Float {
                decimals,
                precision: Some(precision),
                ..
            }
            | DataType::Double {
                decimals,
                precision: Some(precision),
                ..
            } => Some((*precision, *decimals)),
            _ => None,
        }
    }

    /// A DOUBLE with `decimals` (at most NOT_FIXED_DECIMALS: more digits are not fixed).
    pub fn double(decimals: u8) -> DataType {
        DataType::Double {
            decimals: decimals.min(NOT_FIXED_DECIMALS),
            precision: None,
            unsigned: false,
        }
    }

    /// Number of decimals sent in column definitions.
    pub fn decimals(&self) -> u8 {
        match self {
            DataType::Decimal { scale, .. } => *scale,
            DataType::Float { decimals, .. } | DataType::Double { decimals, .. } => *decimals,
            DataType::DateTime { fsp } | DataType::Timestamp { fsp } | DataType::Time { fsp } => {
                *fsp
            }
            DataType::Char { .. }
            | DataType::VarChar { .. }
            | DataType::Text { .. }
            | DataType::Binary { .. }
            | DataType::VarBinary { .. }
            | DataType::Blob { .. } => 0x27,
            _ => 0,
        }
    }

    /// Character set id sent in column definitions: MariaDB sends the result character
    /// set's (character_set_results, utf8mb4: 45) for every character string, whatever its
    /// collation; binary (63) for everything else.
    pub fn charset_id(&self) -> u16 {
        match self.collation() {
            Collation::Binary => Collation::Binary.id(),
            _ => Collation::Utf8mb4GeneralCi.id(),
        }
    }

    /// The type as MariaDB's messages name it, after its type handler: `sql_name`
    /// without the parenthesized size (`int unsigned`, `decimal`, `datetime`).
    pub fn handler_name(&self) -> String {
        let full = self.sql_name();
        match (full.find('('), full.find(')')) {
            (Some(open), Some(close)) => format!("{}{}", &full[..open], &full[close + 1..]),
            _ => full,
        }
    }

    /// The type as SHOW CREATE TABLE / SHOW COLUMNS print it.
    pub fn sql_name(&self) -> String {
        match self {
            DataType::Null => "null".to_string(),
            DataType::Int { width, unsigned } => {
                let display = match (width, unsigned) {
                    (IntWidth::Tiny, false) => 4,
                    (IntWidth::Tiny, true) => 3,
                    (IntWidth::Small, false) => 6,
                    (IntWidth::Small, true) => 5,
                    (IntWidth::Medium, false) => 9,
                    (IntWidth::Medium, true) => 8,
                    (IntWidth::Int, false) => 11,
                    (IntWidth::Int, true) => 10,
                    (IntWidth::Big, _) => 20,
                };
                format!("{}({display}){}", width.sql_name(), sign(*unsigned))
            }
            DataType::Decimal {
                precision,
                scale,
                unsigned,
            } => format!("decimal({precision},{scale}){}", sign(*unsigned)),
            DataType::Float { unsigned, .. } | DataType::Double { unsigned, .. } => {
                let name = match self {
                    DataType::Float { .. } => "float",
                    _ => "double",
                };
                let size = self
                    .fixed_precision()
                    .map_or(String::new(), |(m, d)| format!("({m},{d})"));
                format!("{name}{size}{}", sign(*unsigned))
            }
            DataType::Char { length, .. } => format!("char({length})"),
            DataType::VarChar { length, .. } => format!("varchar({length})"),
            DataType::Binary { length } => format!("binary({length})"),
            DataType::VarBinary { length } => format!("varbinary({length})"),
            DataType::Text { size, .. } => format!("{}text", size.prefix()),
            DataType::Blob { size } => format!("{}blob", size.prefix()),
            DataType::Date => "date".to_string(),
            DataType::DateTime { fsp: 0 } => "datetime".to_string(),
            DataType::DateTime { fsp } => format!("datetime({fsp})"),
            DataType::Timestamp { fsp: 0 } => "timestamp".to_string(),
            DataType::Timestamp { fsp } => format!("timestamp({fsp})"),
            DataType::Time { fsp: 0 } => "time".to_string(),
            DataType::Time { fsp } => format!("time({fsp})"),
            DataType::Enum { members, .. } => format!("enum({})", enumset::quoted(members)),
            DataType::Set { members, .. } => format!("set({})", enumset::quoted(members)),
        }
    }
}
