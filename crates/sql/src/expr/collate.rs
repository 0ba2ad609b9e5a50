//! Collations of expressions, decided once per bind: `expr COLLATE name`, MariaDB's
//! derivation (what COERCIBILITY() reports) of every expression, and the collation an
//! operation over several strings runs under (MariaDB's `DTCollation::aggregate`).
//!
//! Rules (MariaDB 10.11, checked by tests/sql/collate_expr.sql):
//! ```text
//!   derivation  EXPLICIT 0 (COLLATE)  IMPLICIT 2 (columns, CAST, variables, subqueries)
//!               SYSCONST 3 (USER(), DATABASE(), VERSION(), @@variables)
//!               COERCIBLE 4 (literals, parameters, strings functions make)
//!               NUMERIC 5 (numbers and times)  IGNORABLE 6 (NULL)
//!   aggregate   the lower derivation wins; between a binary string and a character string
//!               of equal derivation, the binary one; between utf8mb4_bin and
//!               utf8mb4_general_ci of equal derivation, utf8mb4_bin, but two EXPLICIT
//!               ones are error 1267 (1270 for three operands, 1271 for more)
//!   results     a string function that transforms its arguments (CONCAT, LOWER, SUBSTRING,
//!               REPLACE, IF, COALESCE, ...) has their aggregate; numbers only give
//!               utf8mb4_general_ci, COERCIBLE
//! ```
//! manycore has one character set, so MariaDB's NONE derivation (two IMPLICIT collations
//! of which neither is a `_bin` one) never arises.
//!
//! Invariants:
//! (1) Evaluation compares two strings under `coerce::combined_collation` of their types.
//!     A comparison's operands are bound so that this is the aggregate collation
//!     (`compare_under_one_collation`): a column in another collation is wrapped in
//!     `Expr::Collate` (its index orders by its own, so index ranges must not see it), any
//!     other operand only where its own collation would give another one; a column
//!     compared under its own collation stays a bare column.
//! (2) `Expr::Collate` evaluates to its operand's string unchanged; its type is the
//!     operand's string type in the new collation. Nothing is added per row elsewhere.

use super::coerce::{combined_collation, string_collation};
use super::function::{char_length, is_binary_string, string_type};
use super::{Expr, Function};
use crate::error::{Error, ErrorCode, Result};
use manycore_types::{Collation, DataType, Value};

/// MariaDB's `Derivation`, by its COERCIBILITY() number (1, NONE, never arises here).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Derivation {
    Explicit = 0,
    Implicit = 2,
    SysConst = 3,
    Coercible = 4,
    Numeric = 5,
    Ignorable = 6,
}

impl Derivation {
    fn name(self) -> &'static str {
        match self {
            Derivation::Explicit => "EXPLICIT",
            Derivation::Implicit => "IMPLICIT",
            Derivation::SysConst => "SYSCONST",
            Derivation::Coercible => "COERCIBLE",
            Derivation::Numeric => "NUMERIC",
            Derivation::Ignorable => "IGNORABLE",
        }
    }
}

/// An expression's collation and how strongly it holds it. Numbers, times and NULL are
/// `binary`, as COLLATION() reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Derived {
    pub collation: Collation,
    pub derivation: Derivation,
}

/// Stands in for an operand while it is moved into its wrapper.
const PLACEHOLDER: Expr = Expr::Literal {
    value: Value::Null,
    data_type: DataType::Null,
};

const NUMERIC: Derived = Derived {
    collation: Collation::Binary,
    derivation: Derivation::Numeric,
};

/// The collation `expr COLLATE name` gives: the names the DDL side knows
/// (`ddl::declared_collation`, 1273 for others), if they are utf8mb4's (else 1253, as
/// for a binary string operand).
pub fn explicit_collation(name: &str, operand: &Expr) -> Result<Collation> {
    let collation = crate::ddl::declared_collation(name)?;
    let lower = name.to_ascii_lowercase();
    let charset = lower.split_once('_').map_or(lower.as_str(), |(c, _)| c);
    let operand_charset = match is_binary_string(&operand.data_type()) {
        true => "binary",
        false => "utf8mb4",
    };
    if charset != "utf8mb4" || operand_charset == "binary" {
        // MariaDB names utf8 collations utf8mb3 (old_mode UTF8_IS_UTF8MB3).
        let shown = match lower.strip_prefix("utf8_") {
            Some(rest) => format!("utf8mb3_{rest}"),
            None => lower,
        };
        return Err(Error::new(
            ErrorCode::CollationCharsetMismatch,
            format!("COLLATION '{shown}' is not valid for CHARACTER SET '{operand_charset}'"),
        ));
    }
    Ok(collation)
}

/// `operand COLLATE <collation>`: a number or a time is its text first, as in MariaDB.
pub fn collate(operand: Expr, collation: Collation) -> Expr {
    let operand = match operand.data_type() {
        t if t.is_string() || t == DataType::Null => operand,
        t => Expr::Cast {
            operand: Box::new(operand),
            data_type: string_type(char_length(&t).max(1), false),
        },
    };
    let data_type = in_collation(&operand.data_type(), collation);
    Expr::Collate {
        operand: Box::new(operand),
        data_type,
    }
}

/// The string type `t` holds its values as, in `collation` (binary: a byte string).
fn in_collation(t: &DataType, collation: Collation) -> DataType {
    let binary = collation == Collation::Binary;
    match t {
        DataType::Char { .. } | DataType::VarChar { .. } | DataType::Text { .. } if !binary => {
            t.clone().with_collation(collation)
        }
        _ => string_type(char_length(t), binary).with_collation(collation),
    }
}

/// The derivation of `e` (see the module notes).
pub fn derived(e: &Expr) -> Derived {
    let data_type = e.data_type();
    let holding = |derivation| match data_type.is_string() {
        true => Derived {
            collation: string_collation(&data_type),
            derivation,
        },
        false => NUMERIC,
    };
    match e {
        Expr::Literal {
            value: Value::Null, ..
        }
        | Expr::Parameter {
            data_type: DataType::Null,
            ..
        } => Derived {
            collation: Collation::Binary,
            derivation: Derivation::Ignorable,
        },
        Expr::Literal { .. } | Expr::Parameter { .. } => holding(Derivation::Coercible),
        Expr::Column(_)
        | Expr::OuterColumn { .. }
        | Expr::UserVariable { .. }
        | Expr::SetUserVariable { .. }
        | Expr::Subquery(_)
        | Expr::Match(_)
        | Expr::Stored { .. }
        | Expr::Cast { .. } => holding(Derivation::Implicit),
        Expr::SystemVariable { .. } => holding(Derivation::SysConst),
        Expr::Collate { .. } => holding(Derivation::Explicit),
        Expr::Case {
            branches,
            otherwise,
            ..
        } => {
            let results = branches
                .iter()
                .map(|(_, then)| then)
                .chain(otherwise.as_deref());
            from_arguments(holding(Derivation::Coercible), results)
        }
        Expr::Call { function, args, .. } => match function {
            Function::Database | Function::User | Function::CurrentUser | Function::Version => {
                holding(Derivation::SysConst)
            }
            f => match result_arguments(*f, args) {
                Some(arguments) => from_arguments(holding(Derivation::Coercible), arguments),
                None => holding(Derivation::Coercible),
            },
        },
        Expr::Regexp { args, .. } => from_arguments(holding(Derivation::Coercible), args.iter()),
        Expr::Unary { .. }
        | Expr::Binary { .. }
        | Expr::IsNull { .. }
        | Expr::InList { .. }
        | Expr::Between { .. }
        | Expr::Like { .. }
        | Expr::IsBool { .. } => NUMERIC,
    }
}

/// A string result's derivation from the arguments it transforms; the bound type
/// (`holding`) already carries their collation (`result_collation`).
fn from_arguments<'a>(holding: Derived, arguments: impl Iterator<Item = &'a Expr>) -> Derived {
    if holding == NUMERIC {
        return NUMERIC;
    }
    let derivation = arguments
        .map(|a| derived(a).derivation)
        .min()
        .filter(|&d| d < Derivation::Numeric)
        .unwrap_or(Derivation::Coercible);
    Derived {
        collation: holding.collation,
        derivation,
    }
}

/// The arguments a function's string result takes its collation from; None for
/// functions that make a new string (HEX, DATE_FORMAT, ...: utf8mb4_general_ci).
fn result_arguments(function: Function, args: &[Expr]) -> Option<impl Iterator<Item = &Expr>> {
    use Function::*;
    let takes: fn(usize) -> bool = match function {
        Concat | ConcatWs | Upper | Lower | Reverse | Trim(_) | Replace | Coalesce | Greatest
        | Least | Quote | IfNull => |_| true,
        Substring | Left | Right | Repeat | NullIf => |i| i == 0,
        Lpad | Rpad => |i| i == 0 || i == 2,
        Insert => |i| i == 0 || i == 3,
        If | Elt => |i| i > 0,
        _ => return None,
    };
    Some(
        args.iter()
            .enumerate()
            .filter(move |&(i, _)| takes(i))
            .map(|(_, a)| a),
    )
}

/// The aggregate of two derivations (MariaDB's `DTCollation::aggregate`); None where
/// MariaDB refuses the mix.
fn aggregate_pair(a: Derived, b: Derived) -> Option<Derived> {
    let lower = if b.derivation < a.derivation { b } else { a };
    if a.collation == b.collation {
        return Some(lower);
    }
    if a.derivation != b.derivation {
        return Some(lower);
    }
    // Equal derivations: a binary string, then a _bin collation, wins; two EXPLICIT
    // character collations do not mix.
    let binary = [a, b]
        .into_iter()
        .find(|d| d.collation == Collation::Binary);
    match binary {
        Some(d) => Some(d),
        None if a.derivation == Derivation::Explicit => None,
        None => Some(Derived {
            collation: combined_collation(a.collation, b.collation),
            derivation: a.derivation,
        }),
    }
}

/// The collation `operation` over `operands` runs under, or MariaDB's 1267/1270/1271.
pub fn aggregate(operands: &[Derived], operation: &str) -> Result<Derived> {
    let mut result = match operands.first() {
        Some(&first) => first,
        None => return Ok(NUMERIC),
    };
    for &next in &operands[1..] {
        result = aggregate_pair(result, next).ok_or_else(|| illegal_mix(operands, operation))?;
    }
    Ok(result)
}

fn illegal_mix(operands: &[Derived], operation: &str) -> Error {
    let shown: Vec<String> = operands
        .iter()
        .map(|d| format!("({},{})", d.collation.name(), d.derivation.name()))
        .collect();
    match shown.as_slice() {
        [a, b] => Error::new(
            ErrorCode::CantAggregate2Collations,
            format!("Illegal mix of collations {a} and {b} for operation '{operation}'"),
        ),
        [a, b, c] => Error::new(
            ErrorCode::CantAggregate3Collations,
            format!("Illegal mix of collations {a}, {b}, {c} for operation '{operation}'"),
        ),
        _ => Error::new(
            ErrorCode::CantAggregateNCollations,
            format!("Illegal mix of collations for operation '{operation}'"),
        ),
    }
}

/// The type of a string result of `function(args)` or of a CASE over `results`:
/// `data_type` in the aggregate collation of the values it comes from (1267 where they do
/// not mix). Other types, and binary strings, are returned as they are.
pub fn result_collation(
    data_type: DataType,
    function: Option<Function>,
    results: &[Expr],
    operation: &str,
) -> Result<DataType> {
    if !matches!(
        data_type,
        DataType::Char { .. } | DataType::VarChar { .. } | DataType::Text { .. }
    ) {
        return Ok(data_type);
    }
    let sources: Vec<Derived> = match function {
        Some(f) => match result_arguments(f, results) {
            Some(arguments) => arguments.map(derived).collect(),
            None => return Ok(data_type),
        },
        None => results.iter().map(derived).collect(),
    };
    let aggregate = aggregate(&sources, operation)?;
    Ok(match aggregate.derivation {
        // Only numbers (or NULLs): the connection's collation.
        Derivation::Numeric | Derivation::Ignorable => data_type,
        _ if aggregate.collation == Collation::Binary => data_type,
        _ => data_type.with_collation(aggregate.collation),
    })
}

/// Binds the operands of a comparison (`=`, IN, BETWEEN, LIKE, CASE's operand, STRCMP,
/// ...) to compare under their aggregate collation (invariant (1)). `operands[0]` is
/// compared with each other one (with the others too for GREATEST/LEAST and FIELD: then
/// every string operand ends in that collation). Operands that are not strings take no
/// part: such a comparison is numeric or temporal.
pub fn compare_under_one_collation(operands: &mut [Expr], operation: &str) -> Result<()> {
    let strings: Vec<usize> = (0..operands.len())
        .filter(|&i| operands[i].data_type().is_string())
        .collect();
    if strings.len() < 2 {
        return Ok(());
    }
    let derivations: Vec<Derived> = strings.iter().map(|&i| derived(&operands[i])).collect();
    let target = aggregate(&derivations, operation)?.collation;
    let own = |e: &Expr| string_collation(&e.data_type());
    // The operand every other is compared with holds the target itself: the first, or in
    // a two-operand comparison whichever already does.
    let pivot = match strings.as_slice() {
        [a, b] if own(&operands[*a]) != target && own(&operands[*b]) == target => *b,
        _ => strings[0],
    };
    for &i in &strings {
        let collation = own(&operands[i]);
        // A column's index orders by its own collation: it serves no other one.
        let wrap = collation != target
            && (i == pivot
                || matches!(operands[i], Expr::Column(_))
                || combined_collation(collation, target) != target);
        if wrap {
            let operand = std::mem::replace(&mut operands[i], PLACEHOLDER);
            let data_type = in_collation(&operand.data_type(), target);
            operands[i] = Expr::Collate {
                operand: Box::new(operand),
                data_type,
            };
        }
    }
    Ok(())
}
