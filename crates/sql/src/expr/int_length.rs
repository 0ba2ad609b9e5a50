//! Integer result types: INT or BIGINT, chosen as MariaDB 10.11 chooses them.
//!
//! MariaDB types an integer-valued expression by its maximum printed length: INT (LONG on
//! the wire) when every value fits in 9 characters, else BIGINT
//! (`Type_handler::type_handler_long_or_longlong`). So `1 + 2` and `tinyint_col + 1` are
//! INT, `int_col + 1` and `CAST(x AS SIGNED)` of a long string are BIGINT. The length of
//! an operator's result follows from its operands' (`Item_func_*::fix_length_and_dec`):
//! ```text
//!   literal       its digits, plus one for a minus sign; precision = its digits
//!   column        the type's digits, plus one for the sign of a signed type (a TIME
//!                 has 7: 838:59:59 is 8385959)
//!   a + b, a - b  precision max(pa, pb) + 1, UNSIGNED if either is
//!   a * b         precision pa + pb, UNSIGNED if either is
//!   a % b         precision max(pa, pb), UNSIGNED as a
//!   a DIV b       length = integer digits of a (no sign), UNSIGNED if either is
//!   -a            length of a + 1, signed
//!   a = b, a AND b, NOT a, a IS x, IN, BETWEEN, LIKE, REGEXP   length 1 (0, 1 or NULL)
//!   ABS(a)        length and sign of a
//!   CAST(a AS SIGNED/UNSIGNED)  length of a as text (at least 2 / 1)
//!   ENUM/SET e    read as its number (`bind::numeric_operand`): length = its text's
//!                 bytes (longest value's characters x bytes per character), precision =
//!                 its longest value's characters, signed (MariaDB's Field_enum keeps
//!                 its string lengths: `-e` of ENUM('abc') is BIGINT, `e + 0` INT)
//!   ROUND/FLOOR/CEILING/TRUNCATE of an ENUM/SET  5 digits, UNSIGNED
//! ```
//! where a result's precision is its length less the sign (`decimal_precision()`).
//!
//! Invariant: (1) the length is an upper bound on the printed width of every value the
//! expression can produce, so a LONG column never carries a value outside 32 bits (the
//! binary protocol sends LONG in 4 bytes). The rules above keep it: each bounds the
//! result's digits by its operands'. An ENUM or SET's length is also at least the digits
//! of its largest number (`enum_set_length`), so ENUM('a',...,'z') + 0 stays in bounds.

use super::function::{char_length, int_digits, Places};
use super::{BinaryOp, Expr, Function, UnaryOp};
use manycore_types::{DataType, IntWidth, Value};

/// What MariaDB knows of an integer expression's values: `length` characters at most
/// (sign included), `precision` digits, and whether it is unsigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntLength {
    pub length: u32,
    pub precision: u32,
    pub unsigned: bool,
}

/// MariaDB's maximum length of an INT (`MY_INT32_NUM_DECIMAL_DIGITS - 2`).
const INT_LENGTH_MAX: u32 = 9;

impl IntLength {
    fn of_length(length: u32, unsigned: bool) -> IntLength {
        IntLength {
            length,
            precision: length.saturating_sub(!unsigned as u32),
            unsigned,
        }
    }

    fn of_precision(precision: u32, unsigned: bool) -> IntLength {
        IntLength {
            length: precision + !unsigned as u32,
            precision,
            unsigned,
        }
    }

    /// The length of any value of an integer column type.
    pub fn of_type(width: IntWidth, unsigned: bool) -> IntLength {
        IntLength::of_precision(int_digits(width, unsigned), unsigned)
    }

    /// One more character, as ROUND(9, -1) = 10 needs.
    pub fn widened(self) -> IntLength {
        IntLength::of_length(self.length + 1, self.unsigned)
    }

    /// INT if every value prints in 9 characters, else BIGINT.
    pub fn data_type(self) -> DataType {
        let width = if self.length <= INT_LENGTH_MAX {
            IntWidth::Int
        } else {
            IntWidth::Big
        };
        DataType::Int {
            width,
            unsigned: self.unsigned,
        }
    }
}

/// The length of an integer literal's value.
pub fn literal_length(value: &Value) -> Option<IntLength> {
    match value {
        Value::Int(i) => {
            let precision = i.unsigned_abs().to_string().len() as u32;
            Some(IntLength {
                length: precision + (*i < 0) as u32,
                precision,
                unsigned: false,
            })
        }
        Value::UInt(u) => Some(IntLength::of_precision(u.to_string().len() as u32, true)),
        _ => None,
    }
}

/// The length of `e` if it is integer-valued (module notes), None otherwise.
pub fn int_length(e: &Expr) -> Option<IntLength> {
    let (width, unsigned) = match e.data_type() {
        DataType::Int { width, unsigned } => (width, unsigned),
        // A TIME without fraction in arithmetic is the integer [-]hhhmmss: 7 digits.
        DataType::Time { fsp: 0 } => return Some(IntLength::of_precision(7, false)),
        _ => return None,
    };
    Some(derived_length(e).unwrap_or_else(|| IntLength::of_type(width, unsigned)))
}

/// The length of an integer-typed `e` where it follows from the expression (a literal, an
/// operator, a CAST, the functions of `call_length`) rather than from its type alone.
pub fn derived_length(e: &Expr) -> Option<IntLength> {
    let DataType::Int { unsigned, .. } = e.data_type() else {
        return None;
    };
    match e {
        // A truth value (comparisons, logic, IS, IN, BETWEEN, LIKE, REGEXP): 0, 1 or NULL.
        _ if super::json::is_boolean(e) => Some(IntLength::of_length(1, false)),
        Expr::Literal { value, .. } => literal_length(value),
        Expr::Unary {
            op: UnaryOp::Neg,
            operand,
            ..
        } => neg_length(operand),
        Expr::Binary {
            op, left, right, ..
        } => binary_length(*op, left, right),
        Expr::Cast { operand, .. } => Some(cast_length(operand, unsigned)),
        Expr::SetUserVariable { value, .. } => int_length(value),
        Expr::Call { function, args, .. } => call_length(*function, args),
        _ => None,
    }
}

/// The length of `-operand` for an integer operand.
pub fn neg_length(operand: &Expr) -> Option<IntLength> {
    enum_set_read_length(operand)
        .or_else(|| int_length(operand))
        .map(|a| IntLength::of_length(a.length + 1, false))
}

/// The length of an integer `left op right` (module notes); None if an operand is not
/// an integer, except DIV, whose result is an integer for any operands.
pub fn binary_length(op: BinaryOp, left: &Expr, right: &Expr) -> Option<IntLength> {
    if op == BinaryOp::IntDiv {
        let unsigned = left.data_type().is_unsigned() || right.data_type().is_unsigned();
        return Some(IntLength::of_length(integer_digits(left), unsigned));
    }
    let (a, b) = (int_length(left)?, int_length(right)?);
    Some(match op {
        BinaryOp::Add | BinaryOp::Sub => {
            IntLength::of_precision(a.precision.max(b.precision) + 1, a.unsigned || b.unsigned)
        }
        BinaryOp::Mul => {
            IntLength::of_precision(a.precision + b.precision, a.unsigned || b.unsigned)
        }
        BinaryOp::Mod => IntLength::of_precision(a.precision.max(b.precision), a.unsigned),
        _ => return None,
    })
}

/// Digits before the decimal point of any value of `e` (`decimal_int_part()`), at least 1.
fn integer_digits(e: &Expr) -> u32 {
    let digits = match e.data_type() {
        DataType::Int { .. } => int_length(e).map_or(0, |l| l.precision),
        DataType::Decimal {
            precision, scale, ..
        } => (precision - scale) as u32,
        DataType::Null => 1,
        other => char_length(&other).min(u32::MAX as u64) as u32,
    };
    // A BIGINT UNSIGNED has at most 20 digits.
    digits.clamp(1, 20)
}

/// The length of an ENUM or SET read as its number (module notes); None for other types.
pub fn enum_set_length(t: &DataType) -> Option<IntLength> {
    let largest_digits = t.largest_member_number()?.to_string().len() as u32;
    let characters = t.max_length()?.min(u32::MAX as u64) as u32;
    let bytes = characters.saturating_mul(t.collation().max_bytes_per_char() as u32);
    Some(IntLength {
        length: bytes.max(largest_digits + 1),
        precision: characters.max(largest_digits),
        unsigned: false,
    })
}

/// ROUND, FLOOR, CEILING or TRUNCATE of an ENUM or SET: MariaDB types it as a 5-digit
/// UNSIGNED whatever the members (more digits only where a SET's bitmask needs them).
fn rounded_enum_set_length(t: &DataType) -> Option<IntLength> {
    let largest_digits = t.largest_member_number()?.to_string().len() as u32;
    Some(IntLength::of_precision(largest_digits.max(5), true))
}

/// CAST(operand AS SIGNED/UNSIGNED): as long as the operand printed, at most 20
/// characters, at least one digit and a sign (`Item_func_signed::fix_length_and_dec`). A
/// negative operand cast to UNSIGNED wraps to 20 digits, so only an operand known not to
/// be negative keeps its length.
pub fn cast_length(operand: &Expr, unsigned: bool) -> IntLength {
    // An ENUM or SET casts by its number (`bind::numeric_operand`).
    if let Some(length) = enum_set_length(&operand.data_type()) {
        return match unsigned {
            true => IntLength::of_precision(20, true),
            // CAST(e AS SIGNED) of ENUM('medium') is INT: as long as its characters.
            false => IntLength::of_precision(length.precision, false),
        };
    }
    // A TIME casts by its text ('-838:59:59'), not by its integer digits.
    let length = match operand.data_type() {
        DataType::Time { .. } => None,
        _ => int_length(operand),
    };
    let never_negative = match (operand, length) {
        (Expr::Literal { value, .. }, _) => !matches!(value, Value::Int(i) if *i < 0),
        (_, Some(l)) => l.unsigned,
        _ => false,
    };
    if unsigned && !never_negative {
        return IntLength::of_precision(20, true);
    }
    let printed = match length {
        Some(l) => l.length,
        None => char_length(&operand.data_type()).min(20) as u32,
    };
    IntLength::of_length(printed.clamp(2 - unsigned as u32, 20), unsigned)
}

/// Digits of FLOOR or CEIL of a DECIMAL(precision, scale): FLOOR(-9.9) = -10 and
/// CEIL(9.9) = 10 need one more than the integer part.
pub fn rounded_digits(precision: u8, scale: u8) -> u32 {
    (precision as u32).saturating_sub(scale as u32) + (scale > 0) as u32
}

pub(super) fn call_length(function: Function, args: &[Expr]) -> Option<IntLength> {
    if let (Function::Round | Function::Truncate | Function::Ceil | Function::Floor, Some(n)) =
        (function, args.first())
    {
        if let Some(length) = enum_set_operand(n).and_then(|t| rounded_enum_set_length(&t)) {
            return Some(length);
        }
    }
    match function {
        Function::Ceil | Function::Floor => match args.first()?.data_type() {
            DataType::Decimal {
                precision, scale, ..
            } => Some(IntLength::of_precision(
                rounded_digits(precision, scale),
                false,
            )),
            _ => int_length(args.first()?),
        },
        // ABS and `-e` of an ENUM or SET keep its text's bytes (module notes).
        Function::Abs => enum_set_read_length(args.first()?).or_else(|| int_length(&args[0])),
        Function::Truncate => int_length(args.first()?),
        // ROUND(9, -1) = 10: negative places, or places not known until run time, may
        // need one more digit.
        Function::Round => match Places::of(args) {
            Places::Constant(p) if p < 0 => int_length(args.first()?).map(IntLength::widened),
            Places::Varying => int_length(args.first()?).map(IntLength::widened),
            _ => int_length(args.first()?),
        },
        Function::Mod => binary_length(BinaryOp::Mod, args.first()?, args.get(1)?),
        // MariaDB's default for an integer function (`Item_int_func`): 21 characters.
        Function::LastInsertId | Function::UuidShort => Some(IntLength::of_length(21, true)),
        _ => None,
    }
}

/// The ENUM or SET type `e` reads as a number, if `e` is such a read
/// (`bind::numeric_operand`).
fn enum_set_operand(e: &Expr) -> Option<DataType> {
    match e {
        Expr::Cast { operand, .. } => Some(operand.data_type()).filter(|t| t.members().is_some()),
        _ => None,
    }
}

/// The length of `e` if it reads an ENUM or SET as its number (module notes).
fn enum_set_read_length(e: &Expr) -> Option<IntLength> {
    enum_set_operand(e).and_then(|t| enum_set_length(&t))
}
