//! Evaluation of bound expressions, and the node-level type and nullability queries.
//!
//! Operators dispatch on the bound result type when it is known (an INT node computes
//! in 64-bit integers with overflow error 1690, a DECIMAL node in 65 digits, a DOUBLE
//! node in f64), and on the operand values when the type is nominal (mod.rs invariant
//! (3)). Division by zero is NULL with warning 1365.
//!
//! DECIMAL values hold at most 65 significant digits (`manycore_types::Decimal`); a
//! result whose integer part needs more is error 1690, as in MariaDB.

use super::coerce::{
    self, compare, enum_set_number, match_collation, to_bytes, to_decimal, to_f64, to_i128,
    to_temporal, to_u64_bits, truth,
};
use super::display::{expr_text, op_text};
use super::function::{self, conform, BOOL_TYPE};
use super::{BinaryOp, EvalContext, Expr, UnaryOp};
use crate::error::{Error, ErrorCode, Result};
use manycore_types::{DataType, Decimal, Value};
use std::cmp::Ordering;

/// The type of a user variable holding a string, a date, NULL, or never set.
pub const USER_VARIABLE_STRING: DataType = DataType::text(manycore_types::LobSize::Long);

/// The type MariaDB gives `@v` holding `value`: integers BIGINT, doubles DOUBLE,
/// decimals DECIMAL(65, their scale), anything else LONGTEXT.
pub fn user_variable_type(value: &Value) -> DataType {
    match value {
        Value::Int(_) => DataType::BIGINT,
        Value::UInt(_) => function::UBIGINT,
        Value::Double(_) => DataType::DOUBLE,
        Value::Decimal(d) => DataType::Decimal {
            precision: 65,
            scale: d.scale().min(manycore_types::decimal::SCALE_MAX) as u8,
            unsigned: false,
        },
        _ => USER_VARIABLE_STRING,
    }
}

/// The nominal type of nodes whose type is only known at run time.
pub const NOMINAL_STRING: DataType = DataType::varchar(255);

/// div_precision_increment: digits `/` adds to the dividend's scale.
pub const DIV_PRECISION_INCREMENT: u32 = 4;

/// The value a column's cell has in expressions: a stored TIMESTAMP holds UTC and reads as
/// the session's local time (`time_zone` invariant (1)); any other cell as it is.
fn cell_value(column: &super::ColumnRef, cell: Value, ctx: &EvalContext) -> Value {
    match cell {
        Value::DateTime(utc) if column.holds_utc => {
            Value::DateTime(ctx.session.time_zone().from_utc(utc))
        }
        cell => cell,
    }
}

impl Expr {
    /// The row position this expression reads, if it is a plain column reference whose
    /// value is the stored cell (not a TIMESTAMP: `time_zone` invariant (1)).
    pub fn column_index(&self) -> Option<usize> {
        match self {
            Expr::Column(c) if !c.holds_utc => Some(c.index),
            _ => None,
        }
    }

    /// Evaluates against one input row.
    pub fn eval(&self, row: &[Value], ctx: &EvalContext) -> Result<Value> {
        match self {
            Expr::Literal { value, .. } => Ok(value.clone()),
            Expr::Column(c) => {
                let cell = row.get(c.index).ok_or_else(|| {
                    Error::new(
                        ErrorCode::UnknownError,
                        format!(
                            "column {} is outside the {}-column input row",
                            c.index,
                            row.len()
                        ),
                    )
                })?;
                Ok(cell_value(c, cell.clone(), ctx))
            }
            Expr::Parameter { index, .. } => ctx.params.get(*index).cloned().ok_or_else(|| {
                Error::new(
                    ErrorCode::WrongArguments,
                    "Incorrect arguments to mysqld_stmt_execute".to_string(),
                )
            }),
            Expr::SystemVariable { name, scope } => {
                let v = ctx.session.system_variable(name, *scope)?;
                if let Some(t) = crate::variables::value_type(name) {
                    let v = crate::variables::typed_value(v, &t);
                    if matches!(t, DataType::Double { .. }) {
                        if let Value::Int(i) = v {
                            return Ok(Value::Double(i as f64));
                        }
                    }
                    return Ok(v);
                }
                Ok(to_bytes(&v, &DataType::Null)
                    .map(Value::Bytes)
                    .unwrap_or(Value::Null))
            }
            Expr::SetUserVariable { name, value, .. } => {
                let v = value.eval(row, ctx)?;
                ctx.session.set_user_variable(name, v.clone());
                Ok(v)
            }
            Expr::UserVariable { name, data_type } => {
                let v = ctx.session.user_variable(name);
                if data_type.is_string() || v.is_null() {
                    return Ok(to_bytes(&v, &DataType::Null)
                        .map(Value::Bytes)
                        .unwrap_or(Value::Null));
                }
                conform(v.clone(), &user_variable_type(&v), data_type, ctx)
            }
            Expr::Unary {
                op: UnaryOp::Not,
                operand,
                ..
            } => Ok(match operand.eval_bool(row, ctx)? {
                Some(b) => bool_value(!b),
                None => Value::Null,
            }),
            Expr::Unary {
                op,
                operand,
                data_type,
            } => {
                let v = operand.eval(row, ctx)?;
                unary(*op, v, data_type, ctx, &|| expr_text(self))
            }
            Expr::Binary {
                op,
                left,
                right,
                data_type,
            } => binary(*op, left, right, data_type, row, ctx, self),
            Expr::IsNull { operand, negated } => {
                let is_null = operand.eval(row, ctx)?.is_null();
                Ok(bool_value(is_null != *negated))
            }
            Expr::IsBool {
                operand,
                value,
                negated,
            } => {
                let t = operand.eval_bool(row, ctx)?;
                Ok(bool_value((t == Some(*value)) != *negated))
            }
            Expr::InList {
                operand,
                list,
                negated,
            } => {
                let v = operand.eval(row, ctx)?;
                if v.is_null() {
                    return Ok(Value::Null);
                }
                let vt = operand.data_type();
                let mut saw_null = false;
                for item in list {
                    let x = item.eval(row, ctx)?;
                    match compare(&v, &vt, &x, &item.data_type(), ctx.session) {
                        Some(Ordering::Equal) => return Ok(bool_value(!*negated)),
                        None => saw_null = true,
                        _ => {}
                    }
                }
                Ok(if saw_null {
                    Value::Null
                } else {
                    bool_value(*negated)
                })
            }
            Expr::Between {
                operand,
                low,
                high,
                negated,
            } => {
                let v = operand.eval(row, ctx)?;
                let vt = operand.data_type();
                let lo = low.eval(row, ctx)?;
                let hi = high.eval(row, ctx)?;
                let ge = compare(&v, &vt, &lo, &low.data_type(), ctx.session)
                    .map(|o| o != Ordering::Less);
                let le = compare(&v, &vt, &hi, &high.data_type(), ctx.session)
                    .map(|o| o != Ordering::Greater);
                let inside = and3(ge, le);
                Ok(match inside {
                    Some(b) => bool_value(b != *negated),
                    None => Value::Null,
                })
            }
            Expr::Like {
                operand,
                pattern,
                escape,
                negated,
            } => {
                let text = operand.eval(row, ctx)?;
                let pat = pattern.eval(row, ctx)?;
                let (Some(text_bytes), Some(pat_bytes)) = (
                    to_bytes(&text, &operand.data_type()),
                    to_bytes(&pat, &pattern.data_type()),
                ) else {
                    return Ok(Value::Null);
                };
                let escape_char = match escape {
                    None => Some('\\'),
                    Some(e) => {
                        let ev = e.eval(row, ctx)?;
                        to_bytes(&ev, &e.data_type())
                            .and_then(|b| String::from_utf8_lossy(&b).chars().next())
                    }
                };
                let collation = match_collation(&operand.data_type(), &pattern.data_type());
                let m = super::like::like(&text_bytes, &pat_bytes, escape_char, collation);
                Ok(bool_value(m != *negated))
            }
            Expr::Case {
                operand,
                branches,
                otherwise,
                data_type,
            } => {
                let chosen = match operand {
                    Some(op) => {
                        let v = op.eval(row, ctx)?;
                        let vt = op.data_type();
                        let mut found = None;
                        for (when, then) in branches {
                            let w = when.eval(row, ctx)?;
                            if compare(&v, &vt, &w, &when.data_type(), ctx.session)
                                == Some(Ordering::Equal)
                            {
                                found = Some(then);
                                break;
                            }
                        }
                        found
                    }
                    None => {
                        let mut found = None;
                        for (when, then) in branches {
                            if when.eval_bool(row, ctx)? == Some(true) {
                                found = Some(then);
                                break;
                            }
                        }
                        found
                    }
                };
                match chosen.or(otherwise.as_deref()) {
                    Some(e) => conform(e.eval(row, ctx)?, &e.data_type(), data_type, ctx),
                    None => Ok(Value::Null),
                }
            }
            Expr::Cast { operand, data_type } => {
                let v = operand.eval(row, ctx)?;
                cast_value(v, &operand.data_type(), data_type, ctx)
            }
            Expr::Collate { operand, .. } => operand.eval(row, ctx),
            Expr::Call {
                function,
                args,
                data_type,
            } => function::call(*function, args, data_type, row, ctx),
            Expr::Regexp {
                function,
                args,
                compiled,
                ..
            } => super::regexp::eval(*function, args, compiled.as_deref(), row, ctx),
            Expr::Subquery(subquery) => subquery.eval(row, ctx),
            Expr::Match(search) => search.eval(row, ctx),
            Expr::Stored { function, args } => {
                let values = args
                    .iter()
                    .map(|a| a.eval(row, ctx))
                    .collect::<Result<Vec<_>>>()?;
                function.0.call(values, ctx)
            }
            Expr::OuterColumn { depth, column } => {
                let cell = super::subquery::outer_value(*depth, column.index, ctx)?;
                Ok(cell_value(column, cell, ctx))
            }
        }
    }

    /// SQL truth of the expression: Some(true/false), or None for NULL (unknown).
    pub fn eval_bool(&self, row: &[Value], ctx: &EvalContext) -> Result<Option<bool>> {
        match self {
            Expr::Binary {
                op: BinaryOp::And,
                left,
                right,
                ..
            } => {
                let l = left.eval_bool(row, ctx)?;
                if l == Some(false) {
                    return Ok(Some(false));
                }
                Ok(and3(l, right.eval_bool(row, ctx)?))
            }
            Expr::Binary {
                op: BinaryOp::Or,
                left,
                right,
                ..
            } => {
                let l = left.eval_bool(row, ctx)?;
                if l == Some(true) {
                    return Ok(Some(true));
                }
                Ok(or3(l, right.eval_bool(row, ctx)?))
            }
            _ => {
                let v = self.eval(row, ctx)?;
                // An ENUM or SET is true by its number ('a' is member 1: true), as MariaDB.
                let v = match v {
                    Value::Bytes(_) => enum_set_number(v, &self.data_type()),
                    v => v,
                };
                Ok(truth(&v, ctx.session))
            }
        }
    }

    /// The column length a result column of this expression reports: its type's
    /// (`DataType::display_length`), except for the functions whose MariaDB length is
    /// not a function of the type (`function::column_length`) and integer expressions
    /// whose length follows from their operands (`int_length::derived_length`: `1 + 1`
    /// is 3 long, as in MariaDB).
    pub fn column_length(&self) -> u32 {
        let data_type = self.data_type();
        match self {
            Expr::Call { function, args, .. } => {
                function::column_length(*function, args, &data_type)
            }
            _ => None,
        }
        .or_else(|| super::int_length::derived_length(self).map(|l| l.length))
        .unwrap_or_else(|| data_type.display_length())
    }

    /// The result type (see mod.rs invariants (1) and (3)).
    pub fn data_type(&self) -> DataType {
        match self {
            Expr::Literal { data_type, .. }
            | Expr::Unary { data_type, .. }
            | Expr::Binary { data_type, .. }
            | Expr::Case { data_type, .. }
            | Expr::Cast { data_type, .. }
            | Expr::Collate { data_type, .. }
            | Expr::SetUserVariable { data_type, .. }
            | Expr::UserVariable { data_type, .. }
            | Expr::Parameter { data_type, .. }
            | Expr::Call { data_type, .. }
            | Expr::Regexp { data_type, .. } => data_type.clone(),
            Expr::Column(c) | Expr::OuterColumn { column: c, .. } => c.data_type.clone(),
            Expr::Subquery(subquery) => subquery.data_type(),
            Expr::Match(_) => DataType::DOUBLE,
            Expr::Stored { function, .. } => function.0.returns().clone(),
            Expr::SystemVariable { name, .. } => {
                crate::variables::value_type(name).unwrap_or(NOMINAL_STRING)
            }
            Expr::IsNull { .. }
            | Expr::IsBool { .. }
            | Expr::InList { .. }
            | Expr::Between { .. }
            | Expr::Like { .. } => BOOL_TYPE,
        }
    }

    /// False only if the expression can never be NULL.
    pub fn nullable(&self) -> bool {
        match self {
            Expr::Literal { value, .. } => value.is_null(),
            Expr::Column(c) | Expr::OuterColumn { column: c, .. } => c.nullable,
            Expr::Subquery(subquery) => subquery.nullable(),
            Expr::Parameter { .. }
            | Expr::SystemVariable { .. }
            | Expr::UserVariable { .. }
            | Expr::Stored { .. } => true,
            Expr::Unary { operand, .. } | Expr::Collate { operand, .. } => operand.nullable(),
            Expr::SetUserVariable { value, .. } => value.nullable(),
            Expr::Binary {
                op, left, right, ..
            } => match op {
                BinaryOp::NullSafeEq => false,
                BinaryOp::Div | BinaryOp::IntDiv | BinaryOp::Mod => true,
                _ => left.nullable() || right.nullable(),
            },
            Expr::IsNull { .. } | Expr::IsBool { .. } | Expr::Match(_) => false,
            Expr::InList { operand, list, .. } => {
                operand.nullable() || list.iter().any(Expr::nullable)
            }
            Expr::Between {
                operand, low, high, ..
            } => operand.nullable() || low.nullable() || high.nullable(),
            Expr::Like {
                operand, pattern, ..
            } => operand.nullable() || pattern.nullable(),
            Expr::Case {
                branches,
                otherwise,
                ..
            } => {
                otherwise.as_ref().is_none_or(|e| e.nullable())
                    || branches.iter().any(|(_, then)| then.nullable())
            }
            Expr::Cast { operand, data_type } => operand.nullable() || data_type.is_temporal(),
            Expr::Call { function, args, .. } => function::nullable(*function, args),
            Expr::Regexp { args, .. } => args.iter().any(Expr::nullable),
        }
    }

    /// True if the value does not depend on the row (columns) and is the same for every
    /// call within a statement (no RAND(), UUID(), SLEEP(), SYSDATE()).
    pub fn is_constant(&self) -> bool {
        match self {
            Expr::Literal { .. }
            | Expr::Parameter { .. }
            | Expr::SystemVariable { .. }
            | Expr::UserVariable { .. } => true,
            // Assigns on every call; subqueries are left out of constant folding.
            Expr::Column(_)
            | Expr::SetUserVariable { .. }
            | Expr::Subquery(_)
            | Expr::Match(_)
            | Expr::Stored { .. }
            | Expr::OuterColumn { .. } => false,
            Expr::Unary { operand, .. }
            | Expr::IsNull { operand, .. }
            | Expr::IsBool { operand, .. }
            | Expr::Cast { operand, .. }
            | Expr::Collate { operand, .. } => operand.is_constant(),
            Expr::Binary { left, right, .. } => left.is_constant() && right.is_constant(),
            Expr::InList { operand, list, .. } => {
                operand.is_constant() && list.iter().all(Expr::is_constant)
            }
            Expr::Between {
                operand, low, high, ..
            } => operand.is_constant() && low.is_constant() && high.is_constant(),
            Expr::Like {
                operand,
                pattern,
                escape,
                ..
            } => {
                operand.is_constant()
                    && pattern.is_constant()
                    && escape.as_ref().is_none_or(|e| e.is_constant())
            }
            Expr::Case {
                operand,
                branches,
                otherwise,
                ..
            } => {
                operand.as_ref().is_none_or(|e| e.is_constant())
                    && branches
                        .iter()
                        .all(|(w, t)| w.is_constant() && t.is_constant())
                    && otherwise.as_ref().is_none_or(|e| e.is_constant())
            }
            Expr::Call { function, args, .. } => {
                !function.is_volatile() && args.iter().all(Expr::is_constant)
            }
            Expr::Regexp { args, .. } => args.iter().all(Expr::is_constant),
        }
    }
}

/// Whether comparison `op` (=, <>, <, <=, >, >=) holds for operands ordered so.
pub fn comparison_holds(op: BinaryOp, ordering: Ordering) -> bool {
    match op {
        BinaryOp::Eq => ordering == Ordering::Equal,
        BinaryOp::NotEq => ordering != Ordering::Equal,
        BinaryOp::Lt => ordering == Ordering::Less,
        BinaryOp::LtEq => ordering != Ordering::Greater,
        BinaryOp::Gt => ordering == Ordering::Greater,
        _ => ordering != Ordering::Less,
    }
}

pub fn bool_value(b: bool) -> Value {
    Value::Int(b as i64)
}

fn and3(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

fn or3(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    }
}

fn binary(
    op: BinaryOp,
    left: &Expr,
    right: &Expr,
    data_type: &DataType,
    row: &[Value],
    ctx: &EvalContext,
    node: &Expr,
) -> Result<Value> {
    use BinaryOp::*;
    match op {
        And | Or => {
            return Ok(match node.eval_bool(row, ctx)? {
                Some(b) => bool_value(b),
                None => Value::Null,
            })
        }
        Xor => {
            let l = left.eval_bool(row, ctx)?;
            let r = right.eval_bool(row, ctx)?;
            return Ok(match (l, r) {
                (Some(a), Some(b)) => bool_value(a != b),
                _ => Value::Null,
            });
        }
        _ => {}
    }
    let a = left.eval(row, ctx)?;
    let b = right.eval(row, ctx)?;
    match op {
        Eq | NotEq | Lt | LtEq | Gt | GtEq => {
            let ord = compare(&a, &left.data_type(), &b, &right.data_type(), ctx.session);
            Ok(match ord {
                None => Value::Null,
                Some(o) => bool_value(comparison_holds(op, o)),
            })
        }
        NullSafeEq => Ok(bool_value(match (a.is_null(), b.is_null()) {
            (true, true) => true,
            (true, false) | (false, true) => false,
            _ => {
                compare(&a, &left.data_type(), &b, &right.data_type(), ctx.session)
                    == Some(Ordering::Equal)
            }
        })),
        BitAnd | BitOr | BitXor | ShiftLeft | ShiftRight => {
            let (Some(x), Some(y)) = (to_u64_bits(&a, ctx.session), to_u64_bits(&b, ctx.session))
            else {
                return Ok(Value::Null);
            };
            Ok(Value::UInt(match op {
                BitAnd => x & y,
                BitOr => x | y,
                BitXor => x ^ y,
                ShiftLeft => x.checked_shl(y.min(64) as u32).unwrap_or(0),
                _ => x.checked_shr(y.min(64) as u32).unwrap_or(0),
            }))
        }
        _ => arith(op, &a, &b, data_type, ctx, &|| expr_text(node)),
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Int { unsigned: bool },
    Decimal,
    Double,
}

fn dynamic_mode(op: BinaryOp, a: &Value, b: &Value) -> Mode {
    let inexact = |v: &Value| {
        matches!(
            v,
            Value::Double(_)
                | Value::Bytes(_)
                | Value::Date(_)
                | Value::DateTime(_)
                | Value::Time(_)
        )
    };
    if inexact(a) || inexact(b) {
        return Mode::Double;
    }
    if matches!(a, Value::Decimal(_)) || matches!(b, Value::Decimal(_)) || op == BinaryOp::Div {
        return Mode::Decimal;
    }
    Mode::Int {
        unsigned: matches!(a, Value::UInt(_)) || matches!(b, Value::UInt(_)),
    }
}

fn division_by_zero(ctx: &EvalContext) -> Value {
    ctx.session
        .warn(ErrorCode::DivisionByZero, "Division by 0".to_string());
    Value::Null
}

/// Arithmetic `a op b` for +, -, *, /, DIV and MOD, producing `data_type`'s representation.
pub(super) fn arith(
    op: BinaryOp,
    a: &Value,
    b: &Value,
    data_type: &DataType,
    ctx: &EvalContext,
    text: &dyn Fn() -> String,
) -> Result<Value> {
    use BinaryOp::*;
    if a.is_null() || b.is_null() {
        return Ok(Value::Null);
    }
    let session = ctx.session;
    if op == IntDiv {
        return int_div(a, b, data_type, ctx, text);
    }
    let mode = match data_type {
        DataType::Int { unsigned, .. } => Mode::Int {
            unsigned: *unsigned,
        },
        DataType::Decimal { .. } => Mode::Decimal,
        DataType::Double { .. } | DataType::Float { .. } => Mode::Double,
        _ => dynamic_mode(op, a, b),
    };
    match mode {
        Mode::Int { unsigned } => {
            let x = to_i128(a, session).unwrap_or(0);
            let y = to_i128(b, session).unwrap_or(0);
            let r = match op {
                Add => x + y,
                Sub => x - y,
                Mul => x.saturating_mul(y),
                Mod => {
                    if y == 0 {
                        return Ok(division_by_zero(ctx));
                    }
                    x % y
                }
                _ => unreachable_op(op)?,
            };
            int_result(r, unsigned, text)
        }
        Mode::Decimal => {
            let x = to_decimal(a, session).unwrap_or_default();
            let y = to_decimal(b, session).unwrap_or_default();
            let r = match op {
                Add => x.checked_add(y),
                Sub => x.checked_sub(y),
                Mul => x.checked_mul(y),
                Mod => {
                    if y.is_zero() {
                        return Ok(division_by_zero(ctx));
                    }
                    x.checked_rem(y)
                }
                Div => {
                    if y.is_zero() {
                        return Ok(division_by_zero(ctx));
                    }
                    // MariaDB keeps the quotient to the scale rounded up to 9 digits,
                    // so (1/3)*3 prints 1.0000.
                    let scale = match data_type {
                        DataType::Decimal { scale, .. } => *scale as u32,
                        _ => x.scale() + DIV_PRECISION_INCREMENT,
                    };
                    let digits = scale.div_ceil(9) * 9;
                    x.checked_div(y).and_then(|q| q.round(digits as i32))
                }
                _ => unreachable_op(op)?,
            };
            match r {
                Some(d) => Ok(Value::Decimal(d)),
                None => Err(coerce::decimal_out_of_range(&text())),
            }
        }
        Mode::Double => {
            let x = to_f64(a, session).unwrap_or(0.0);
            let y = to_f64(b, session).unwrap_or(0.0);
            let r = match op {
                Add => x + y,
                Sub => x - y,
                Mul => x * y,
                Div | Mod if y == 0.0 => return Ok(division_by_zero(ctx)),
                Div => x / y,
                Mod => x % y,
                _ => unreachable_op(op)?,
            };
            if !r.is_finite() {
                return Err(Error::new(
                    ErrorCode::DataOutOfRange,
                    format!("DOUBLE value is out of range in '{}'", text()),
                ));
            }
            Ok(Value::Double(r))
        }
    }
}

fn unreachable_op<T>(op: BinaryOp) -> Result<T> {
    Err(Error::new(
        ErrorCode::UnknownError,
        format!("operator {} is not arithmetic", op_text(op)),
    ))
}

fn int_result(r: i128, unsigned: bool, text: &dyn Fn() -> String) -> Result<Value> {
    if unsigned {
        if (0..=u64::MAX as i128).contains(&r) {
            return Ok(Value::UInt(r as u64));
        }
        return Err(coerce::bigint_out_of_range(true, &text()));
    }
    if (i64::MIN as i128..=i64::MAX as i128).contains(&r) {
        return Ok(Value::Int(r as i64));
    }
    Err(coerce::bigint_out_of_range(false, &text()))
}

fn int_div(
    a: &Value,
    b: &Value,
    data_type: &DataType,
    ctx: &EvalContext,
    text: &dyn Fn() -> String,
) -> Result<Value> {
    let session = ctx.session;
    let unsigned = data_type.is_unsigned();
    let q: i128 = match (a, b) {
        (Value::Int(_) | Value::UInt(_), Value::Int(_) | Value::UInt(_)) => {
            let x = to_i128(a, session).unwrap_or(0);
            let y = to_i128(b, session).unwrap_or(0);
            if y == 0 {
                return Ok(division_by_zero(ctx));
            }
            x / y
        }
        (Value::Double(_) | Value::Bytes(_), _) | (_, Value::Double(_) | Value::Bytes(_)) => {
            let x = to_f64(a, session).unwrap_or(0.0);
            let y = to_f64(b, session).unwrap_or(0.0);
            if y == 0.0 {
                return Ok(division_by_zero(ctx));
            }
            let q = (x / y).trunc();
            if !(i64::MIN as f64..=u64::MAX as f64).contains(&q) {
                return Err(coerce::bigint_out_of_range(unsigned, &text()));
            }
            q as i128
        }
        _ => {
            let x = to_decimal(a, session).unwrap_or_default();
            let y = to_decimal(b, session).unwrap_or_default();
            if y.is_zero() {
                return Ok(division_by_zero(ctx));
            }
            match x.checked_div(y).and_then(|q| q.trunc().to_i128()) {
                Some(q) => q,
                None => return Err(coerce::bigint_out_of_range(unsigned, &text())),
            }
        }
    };
    int_result(q, unsigned, text)
}

fn unary(
    op: UnaryOp,
    v: Value,
    data_type: &DataType,
    ctx: &EvalContext,
    text: &dyn Fn() -> String,
) -> Result<Value> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    let session = ctx.session;
    Ok(match op {
        UnaryOp::Not => unreachable!("NOT is evaluated through its operand's eval_bool"),
        UnaryOp::BitNot => Value::UInt(!to_u64_bits(&v, session).unwrap_or(0)),
        UnaryOp::Neg => match (&v, data_type) {
            (Value::Int(_) | Value::UInt(_), DataType::Int { .. }) => {
                let x = to_i128(&v, session).unwrap_or(0);
                return int_result(-x, false, text);
            }
            (_, DataType::Decimal { .. }) | (Value::Decimal(_), DataType::Null) => {
                Value::Decimal(-to_decimal(&v, session).unwrap_or_default())
            }
            (Value::Int(i), _) => match i.checked_neg() {
                Some(n) => Value::Int(n),
                None => Value::Decimal(-Decimal::from(*i)),
            },
            _ => Value::Double(-to_f64(&v, session).unwrap_or(0.0)),
        },
    })
}

/// CAST(value AS to): MySQL's conversion with warnings for cut-off input.
pub fn cast_value(v: Value, from: &DataType, to: &DataType, ctx: &EvalContext) -> Result<Value> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    let session = ctx.session;
    let v = match to.is_numeric() {
        true => enum_set_number(v, from),
        false => v,
    };
    Ok(match to {
        DataType::Int {
            unsigned: false, ..
        } => {
            let i = to_i128(&v, session).unwrap_or(0);
            // Values above i64::MAX wrap, as CAST(18446744073709551615 AS SIGNED) = -1.
            Value::Int(if i > i64::MAX as i128 {
                i as u64 as i64
            } else {
                i as i64
            })
        }
        DataType::Int { unsigned: true, .. } => {
            let i = to_i128(&v, session).unwrap_or(0);
            if i < 0 {
                session.note(
                    ErrorCode::UnknownError,
                    "Cast to unsigned converted negative integer to it's positive complement"
                        .to_string(),
                );
            }
            Value::UInt(if i < 0 { i as i64 as u64 } else { i as u64 })
        }
        DataType::Decimal {
            precision, scale, ..
        } => {
            let d = to_decimal(&v, session).unwrap_or_default();
            Value::Decimal(fit_decimal(d, *precision, *scale, session, || {
                format!("CAST({} AS DECIMAL)", expr_text_value(&v))
            }))
        }
        DataType::Double { .. } => Value::Double(to_f64(&v, session).unwrap_or(0.0)),
        DataType::Float { .. } => Value::Double(to_f64(&v, session).unwrap_or(0.0) as f32 as f64),
        DataType::Date => match to_temporal(&v, session) {
            Some(p) => Value::Date(p.datetime.date),
            None => Value::Null,
        },
        DataType::DateTime { fsp } | DataType::Timestamp { fsp } => {
            match to_temporal(&v, session) {
                Some(p) => {
                    let mut dt = p.datetime;
                    let unit = 10u32.pow(6 - (*fsp).min(6) as u32);
                    dt.microsecond = dt.microsecond / unit * unit;
                    Value::DateTime(dt)
                }
                None => Value::Null,
            }
        }
        DataType::Time { fsp } => match super::time::to_time(&v, session) {
            Some(t) => Value::Time(t.truncate(*fsp)),
            None => Value::Null,
        },
        t if t.is_string() => {
            let bytes = to_bytes(&v, from).unwrap_or_default();
            let limit = match t {
                DataType::Char { length, .. }
                | DataType::VarChar { length, .. }
                | DataType::Binary { length } => Some(*length as usize),
                _ => None,
            };
            match limit {
                Some(n) => {
                    let text = String::from_utf8_lossy(&bytes);
                    let binary = matches!(t, DataType::Binary { .. });
                    let count = if binary {
                        bytes.len()
                    } else {
                        text.chars().count()
                    };
                    if count > n {
                        let kind = if binary { "BINARY" } else { "CHAR" };
                        session.warn(
                            ErrorCode::TruncatedWrongValue,
                            format!("Truncated incorrect {kind}({n}) value: '{text}'"),
                        );
                        if binary {
                            Value::Bytes(bytes[..n].to_vec())
                        } else {
                            Value::Bytes(text.chars().take(n).collect::<String>().into_bytes())
                        }
                    } else {
                        Value::Bytes(bytes)
                    }
                }
                None => Value::Bytes(bytes),
            }
        }
        _ => v,
    })
}

fn expr_text_value(v: &Value) -> String {
    coerce::warning_text(v)
}

/// Rounds `d` to `scale` and clamps it to DECIMAL(precision, scale), warning 1264 when
/// clamped (CAST(123.456 AS DECIMAL(4,2)) = 99.99).
pub fn fit_decimal(
    d: Decimal,
    precision: u8,
    scale: u8,
    session: &dyn super::SessionContext,
    what: impl FnOnce() -> String,
) -> Decimal {
    let int_digits = precision.saturating_sub(scale) as u32;
    let max = Decimal::max_of(int_digits, scale as u32);
    // Rounding past 65 digits (999...9.5) is out of range like any value above max.
    let mut r = d
        .round(scale as i32)
        .unwrap_or(if d.is_sign_negative() { -max } else { max });
    if r.abs() > max {
        session.warn(
            ErrorCode::WarnDataOutOfRange,
            format!("Out of range value for column '{}' at row 1", what()),
        );
        r = if r.is_sign_negative() { -max } else { max };
    }
    r
}
