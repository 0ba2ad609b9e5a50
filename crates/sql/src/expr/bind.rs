//! Binding: sqlparser's AST to a typed `Expr`, with MySQL's type inference.
//!
//! Type rules (MariaDB 10.11):
//! ```text
//!   literals   integer -> INT up to 9 characters, BIGINT, BIGINT UNSIGNED above
//!              i64::MAX, DECIMAL beyond; 1.50 -> DECIMAL(3,2); 1e3 -> DOUBLE; 'x' -> VARCHAR
//!   + - * %    any DOUBLE/FLOAT/string/NULL operand -> DOUBLE; any DECIMAL -> DECIMAL
//!              (+/-: scale max, one more integer digit; *: scales add; %: larger scale);
//!              integers -> INT or BIGINT by the result's length (`int_length`);
//!              DATE/DATETIME count as integers YYYYMMDD...
//!   /          exact operands -> DECIMAL with scale + div_precision_increment (4)
//!   DIV        INT or BIGINT by the length of the dividend's integer part
//!   comparisons, logic, IS, IN, BETWEEN, LIKE, REGEXP -> INT (0/1/NULL); bit operators -> BIGINT
//!              UNSIGNED
//!   CASE/IF/IFNULL/COALESCE -> `function::aggregate_types` of the branches
//! ```
//!
//! Invariant: every `?` gets the next number from `Scope::next_parameter`, left to right
//! in the text, because bind walks the AST in source order.

use super::collate;
use super::fulltext;
use super::function::{
    aggregate_types, char_length, decimal_type, exact_shape, is_binary_string, result_type,
    string_type, varchar, BOOL_TYPE, INT_TYPE, UBIGINT,
};
use super::int_length::{
    binary_length, cast_length, int_length, literal_length, neg_length, IntLength,
};
use super::regexp::{self, RegexpFunction};
use super::subquery::{self, Subquery, SubqueryKind};
use super::{BinaryOp, ColumnRef, Expr, Function, IntervalUnit, TrimSide, UnaryOp, VarScope};
use crate::error::{Error, ErrorCode, Result};
use crate::query_text;
use manycore_storage::Table;
use manycore_types::{DataType, IntWidth, Value};
use sqlparser::ast;
use std::sync::Arc;

/// What bind needs from the statement being planned.
pub trait Scope {
    /// Resolves `qualifier.name` (qualifier = [] or [table] or [db, table]); Ok(None) if
    /// unknown (bind then reports 1054 "Unknown column 'x' in '<clause>'"), Err for an
    /// ambiguous name (1052).
    fn resolve_column(&self, qualifier: &[String], name: &str) -> Result<Option<ColumnRef>>;

    /// Aggregate calls (COUNT/SUM/...) already planned by the caller map to a column of the
    /// aggregated row; None makes bind report 1111 "Invalid use of group function".
    fn resolve_aggregate(&self, _call: &ast::Function) -> Result<Option<Expr>> {
        Ok(None)
    }

    /// A window function call (`f(...) OVER ...`): by default misplaced (4015), as
    /// everywhere but a query's select list and ORDER BY (`window`).
    fn resolve_window(&self, _call: &ast::Function) -> Result<Expr> {
        Err(crate::window::misplaced())
    }

    /// Name of the clause for error messages: "field list", "where clause", ...
    fn clause(&self) -> &str;

    /// Next parameter number for `?` placeholders (the caller keeps a Cell counter).
    fn next_parameter(&self) -> usize;

    /// The type of parameter `index` (see `Expr::Parameter`).
    fn parameter_type(&self, _index: usize) -> DataType {
        super::NOMINAL_PARAMETER_TYPE
    }

    /// The type of user variable `name` (lower case) by its current value.
    fn user_variable_type(&self, _name: &str) -> DataType {
        super::USER_VARIABLE_STRING
    }

    /// The session's current database, for "FUNCTION db.f does not exist" (1305).
    fn database(&self) -> Option<String> {
        None
    }

    /// A call of stored function `name` of database `db` (None: the current one);
    /// `written` is the call as written, and `args` binds its arguments in the scope of
    /// the call, once the function is found (an unknown function is 1305 before an
    /// unknown column among its arguments is 1054, as in MariaDB). By default no stored
    /// function is in reach (1305).
    fn stored_function(
        &self,
        db: Option<&str>,
        name: &str,
        _written: String,
        _args: &dyn Fn() -> Result<Vec<Expr>>,
    ) -> Result<Expr> {
        Err(no_such_function(
            db.map(str::to_string).or_else(|| self.database()),
            name,
        ))
    }

    /// Binds a subquery whose names may also resolve in this scope; its kind is Scalar,
    /// and the second value is its result's width. Not every statement runs plans
    /// (subquery invariant (4)): by default, 1235.
    fn bind_subquery(&self, _query: &ast::Query) -> Result<(Subquery, usize)> {
        Err(Error::not_supported("subqueries here"))
    }

    /// Refuses `what` (as 1901 names it) where the scope binds a column's or a
    /// constraint's definition (DEFAULT, CHECK) and it may not appear there; elsewhere
    /// Ok.
    fn refuse_in_definition(&self, _what: &str) -> Result<()> {
        Ok(())
    }

    /// The table MATCH's `columns` (column references of this scope) belong to, and
    /// their positions in its rows, when a FULLTEXT key of it has exactly those columns.
    /// By default no table is in reach: 1191.
    fn fulltext_key(&self, _columns: &[ColumnRef]) -> Result<(Arc<Table>, Vec<usize>)> {
        Err(fulltext::no_matching_key())
    }

    /// A column of an enclosing query, for a name this scope does not know (an
    /// `Expr::OuterColumn`); Ok(None) outside subqueries.
    fn resolve_outer(&self, _qualifier: &[String], _name: &str) -> Result<Option<Expr>> {
        Ok(None)
    }

    /// True where no table is in reach, here or in an enclosing query: an unknown
    /// qualified name there names an unknown table (1109), as in MariaDB, not an unknown
    /// column (1054).
    fn reaches_no_table(&self) -> bool {
        false
    }
}

/// `left op ANY|ALL (subquery)`.
fn quantified_op(
    left: &ast::Expr,
    op: &ast::BinaryOperator,
    all: bool,
    right: &ast::Expr,
    scope: &dyn Scope,
) -> Result<Expr> {
    use ast::BinaryOperator as B;
    let op = match op {
        B::Eq => BinaryOp::Eq,
        B::NotEq => BinaryOp::NotEq,
        B::Lt => BinaryOp::Lt,
        B::LtEq => BinaryOp::LtEq,
        B::Gt => BinaryOp::Gt,
        B::GtEq => BinaryOp::GtEq,
        other => return Err(Error::not_supported(&format!("{other} ANY/ALL"))),
    };
    let ast::Expr::Subquery(query) = right else {
        return Err(Error::not_supported("ANY/ALL without a subquery"));
    };
    quantified(left, op, all, query, scope)
}

fn quantified(
    operand: &ast::Expr,
    op: BinaryOp,
    all: bool,
    query: &ast::Query,
    scope: &dyn Scope,
) -> Result<Expr> {
    let operand = bind(operand, scope)?;
    let (mut subquery, width) = scope.bind_subquery(query)?;
    if width != 1 {
        return Err(subquery::one_column_error());
    }
    subquery.kind = SubqueryKind::Quantified {
        operand: Box::new(operand),
        op,
        all,
    };
    Ok(Expr::Subquery(Box::new(subquery)))
}

/// MATCH (columns) AGAINST (value [modifier]). sqlparser reads only a literal or a `?`
/// as the value, so it is constant, as MariaDB requires (1210 otherwise).
fn bind_match(
    columns: &[ast::ObjectName],
    value: &ast::Value,
    modifier: Option<&ast::SearchModifier>,
    scope: &dyn Scope,
) -> Result<Expr> {
    use ast::SearchModifier as M;
    let mode = match modifier {
        None | Some(M::InNaturalLanguageMode) => fulltext::SearchMode::NaturalLanguage,
        Some(M::InBooleanMode) => fulltext::SearchMode::Boolean,
        Some(M::WithQueryExpansion | M::InNaturalLanguageModeWithQueryExpansion) => {
            return Err(Error::not_supported(
                "full-text search WITH QUERY EXPANSION",
            ))
        }
    };
    scope.refuse_in_definition("match ... against()")?;
    let mut cells = Vec::with_capacity(columns.len());
    let mut references = Vec::with_capacity(columns.len());
    for name in columns {
        let parts: Vec<ast::Ident> = name
            .0
            .iter()
            .filter_map(|p| p.as_ident().cloned())
            .collect();
        let cell = match parts.as_slice() {
            [one] => bind_identifier(one, scope)?,
            _ => bind_compound(&parts, scope)?,
        };
        let Expr::Column(reference) = &cell else {
            return Err(fulltext::wrong_arguments("MATCH"));
        };
        references.push(reference.clone());
        cells.push(cell);
    }
    let against = bind_value(value, scope)?;
    let (table, columns) = scope.fulltext_key(&references)?;
    Ok(Expr::Match(Box::new(fulltext::FulltextMatch {
        table,
        columns,
        cells,
        against: Box::new(against),
        mode,
        collation: super::coerce::string_collation(&references[0].data_type),
    })))
}

/// True if `call` is an aggregate (COUNT, SUM, AVG, MIN, MAX, GROUP_CONCAT, BIT_*,
/// STD/VARIANCE...) rather than a scalar function or a window function.
pub fn is_aggregate(call: &ast::Function) -> bool {
    call.over.is_none()
        && super::aggregate::AggregateFunction::lookup(&function_name(call)).is_some()
}

pub fn function_name(call: &ast::Function) -> String {
    call.name
        .0
        .last()
        .and_then(|p| p.as_ident())
        .map(|i| i.value.to_ascii_uppercase())
        .unwrap_or_default()
}

/// Binds one expression.
pub fn bind(e: &ast::Expr, scope: &dyn Scope) -> Result<Expr> {
    use ast::Expr as A;
    Ok(match e {
        A::Value(v) => bind_value(&v.value, scope)?,
        A::Identifier(ident) => bind_identifier(ident, scope)?,
        A::CompoundIdentifier(parts) => bind_compound(parts, scope)?,
        A::Nested(inner) => bind(inner, scope)?,
        A::UnaryOp { op, expr } => bind_unary(*op, expr, scope)?,
        A::BinaryOp { left, op, right } => bind_binary(left, op, right, scope)?,
        A::IsNull(x) => Expr::IsNull {
            operand: Box::new(bind(x, scope)?),
            negated: false,
        },
        A::IsNotNull(x) => Expr::IsNull {
            operand: Box::new(bind(x, scope)?),
            negated: true,
        },
        A::IsTrue(x) => is_bool(x, true, false, scope)?,
        A::IsNotTrue(x) => is_bool(x, true, true, scope)?,
        A::IsFalse(x) => is_bool(x, false, false, scope)?,
        A::IsNotFalse(x) => is_bool(x, false, true, scope)?,
        A::IsUnknown(x) => Expr::IsNull {
            operand: Box::new(bind(x, scope)?),
            negated: false,
        },
        A::IsNotUnknown(x) => Expr::IsNull {
            operand: Box::new(bind(x, scope)?),
            negated: true,
        },
        A::IsNotDistinctFrom(a, b) => {
            comparison(BinaryOp::NullSafeEq, bind(a, scope)?, bind(b, scope)?)?
        }
        A::IsDistinctFrom(a, b) => {
            let eq = comparison(BinaryOp::NullSafeEq, bind(a, scope)?, bind(b, scope)?)?;
            Expr::Unary {
                op: UnaryOp::Not,
                operand: Box::new(eq),
                data_type: BOOL_TYPE,
            }
        }
        A::MatchAgainst {
            columns,
            match_value,
            opt_search_modifier,
        } => bind_match(
            columns,
            &match_value.value,
            opt_search_modifier.as_ref(),
            scope,
        )?,
        A::Subquery(query) => {
            let (subquery, width) = scope.bind_subquery(query)?;
            if width != 1 {
                return Err(subquery::one_column_error());
            }
            Expr::Subquery(Box::new(subquery))
        }
        A::Exists { subquery, negated } => {
            let (mut subquery, _) = scope.bind_subquery(subquery)?;
            subquery.kind = SubqueryKind::Exists { negated: *negated };
            Expr::Subquery(Box::new(subquery))
        }
        // Invariant (3) of `subquery`: IN is `= ANY`, NOT IN is `<> ALL`.
        A::InSubquery {
            expr,
            subquery,
            negated,
        } => {
            let op = if *negated {
                BinaryOp::NotEq
            } else {
                BinaryOp::Eq
            };
            quantified(expr, op, *negated, subquery, scope)?
        }
        A::AnyOp {
            left,
            compare_op,
            right,
            ..
        } => quantified_op(left, compare_op, false, right, scope)?,
        A::AllOp {
            left,
            compare_op,
            right,
        } => quantified_op(left, compare_op, true, right, scope)?,
        A::InList {
            expr,
            list,
            negated,
        } => {
            let mut operands = vec![bind(expr, scope)?];
            for item in list {
                operands.push(bind(item, scope)?);
            }
            // MariaDB reads `x IN (y)` as `x = y`.
            let operation = if list.len() == 1 { "=" } else { "in" };
            collate::compare_under_one_collation(&mut operands, operation)?;
            let mut operands = operands.into_iter();
            Expr::InList {
                operand: Box::new(operands.next().expect("the operand was pushed first")),
                list: operands.collect(),
                negated: *negated,
            }
        }
        A::Between {
            expr,
            negated,
            low,
            high,
        } => {
            let mut operands = [bind(expr, scope)?, bind(low, scope)?, bind(high, scope)?];
            collate::compare_under_one_collation(&mut operands, "between")?;
            let [operand, low, high] = operands;
            Expr::Between {
                operand: Box::new(operand),
                low: Box::new(low),
                high: Box::new(high),
                negated: *negated,
            }
        }
        A::Like {
            negated,
            any: false,
            expr,
            pattern,
            escape_char,
        } => {
            let mut operands = [bind(expr, scope)?, bind(pattern, scope)?];
            collate::compare_under_one_collation(&mut operands, "like")?;
            let [operand, pattern] = operands;
            Expr::Like {
                operand: Box::new(operand),
                pattern: Box::new(pattern),
                escape: match escape_char {
                    Some(x) => Some(Box::new(bind(x, scope)?)),
                    None => None,
                },
                negated: *negated,
            }
        }
        A::RLike {
            negated,
            expr,
            pattern,
            ..
        } => bind_regexp(
            RegexpFunction::Matches { negated: *negated },
            vec![bind(expr, scope)?, bind(pattern, scope)?],
        )?,
        A::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            let operand = match operand {
                Some(o) => Some(bind(o, scope)?),
                None => None,
            };
            let mut whens = Vec::with_capacity(conditions.len());
            let mut results = Vec::with_capacity(conditions.len() + 1);
            for c in conditions {
                whens.push(bind(&c.condition, scope)?);
                results.push(bind(&c.result, scope)?);
            }
            let operand = match operand {
                // `CASE x WHEN y ...` compares x with each y under one collation.
                Some(operand) => {
                    let mut compared = vec![operand];
                    compared.append(&mut whens);
                    collate::compare_under_one_collation(&mut compared, "case")?;
                    let mut compared = compared.into_iter();
                    let operand = compared.next().map(Box::new);
                    whens = compared.collect();
                    operand
                }
                None => None,
            };
            if let Some(x) = else_result {
                results.push(bind(x, scope)?);
            }
            let types: Vec<DataType> = results.iter().map(Expr::data_type).collect();
            let data_type = aggregate_types(types.iter());
            let data_type = collate::result_collation(data_type, None, &results, "case")?;
            let otherwise = match else_result {
                Some(_) => results.pop().map(Box::new),
                None => None,
            };
            let branches = whens.into_iter().zip(results).collect();
            Expr::Case {
                operand,
                branches,
                otherwise,
                data_type,
            }
        }
        A::Cast {
            expr, data_type, ..
        } => {
            let operand = bind(expr, scope)?;
            let data_type = cast_type(data_type, &operand, &expr.to_string())?;
            Expr::Cast {
                operand: Box::new(operand),
                data_type,
            }
        }
        A::Convert {
            expr,
            data_type,
            charset,
            ..
        } => {
            let operand = bind(expr, scope)?;
            match data_type {
                Some(t) => {
                    let data_type = cast_type(t, &operand, &expr.to_string())?;
                    Expr::Cast {
                        operand: Box::new(operand),
                        data_type,
                    }
                }
                None => {
                    let binary = charset
                        .as_ref()
                        .is_some_and(|c| c.to_string().eq_ignore_ascii_case("binary"));
                    let length = char_length(&operand.data_type());
                    let data_type = string_type(length, binary);
                    Expr::Cast {
                        operand: Box::new(operand),
                        data_type,
                    }
                }
            }
        }
        A::Ceil { expr, .. } => call(Function::Ceil, vec![bind(expr, scope)?])?,
        A::Floor { expr, .. } => call(Function::Floor, vec![bind(expr, scope)?])?,
        A::Position { expr, r#in } => call(
            Function::Locate,
            vec![bind(expr, scope)?, bind(r#in, scope)?],
        )?,
        A::Substring {
            expr,
            substring_from,
            substring_for,
            ..
        } => {
            let mut args = vec![bind(expr, scope)?];
            match (substring_from, substring_for) {
                (Some(f), _) => args.push(bind(f, scope)?),
                // MariaDB's grammar has no one-argument SUBSTRING.
                (None, None) => return Err(Error::parse_near(")", 1)),
                (None, Some(_)) => args.push(int_literal(1)),
            }
            if let Some(f) = substring_for {
                args.push(bind(f, scope)?);
            }
            call(Function::Substring, args)?
        }
        A::Trim {
            trim_where,
            trim_what,
            expr,
            trim_characters,
        } => {
            let side = match trim_where {
                Some(ast::TrimWhereField::Leading) => TrimSide::Leading,
                Some(ast::TrimWhereField::Trailing) => TrimSide::Trailing,
                _ => TrimSide::Both,
            };
            let mut args = vec![bind(expr, scope)?];
            if let Some(w) = trim_what {
                args.push(bind(w, scope)?);
            } else if let Some(chars) = trim_characters.as_ref().and_then(|c| c.first()) {
                args.push(bind(chars, scope)?);
            }
            call(Function::Trim(side), args)?
        }
        A::Extract { field, expr, .. } => {
            let f = match field {
                ast::DateTimeField::Year | ast::DateTimeField::Years => Function::Year,
                ast::DateTimeField::Month | ast::DateTimeField::Months => Function::Month,
                ast::DateTimeField::Day | ast::DateTimeField::Days => Function::Day,
                ast::DateTimeField::Hour | ast::DateTimeField::Hours => Function::Hour,
                ast::DateTimeField::Minute | ast::DateTimeField::Minutes => Function::Minute,
                ast::DateTimeField::Second | ast::DateTimeField::Seconds => Function::Second,
                ast::DateTimeField::Microsecond | ast::DateTimeField::Microseconds => {
                    Function::Microsecond
                }
                ast::DateTimeField::Quarter => Function::Quarter,
                ast::DateTimeField::Week(_) => Function::Week,
                other => return Err(Error::not_supported(&format!("EXTRACT({other})"))),
            };
            call(f, vec![bind(expr, scope)?])?
        }
        A::Collate { expr, collation } => {
            let operand = bind(expr, scope)?;
            let name = collation
                .0
                .last()
                .map(crate::select::object_part)
                .unwrap_or_default();
            let collation = collate::explicit_collation(&name, &operand)?;
            collate::collate(operand, collation)
        }
        A::Prefixed { prefix, value } => {
            let inner = bind(value, scope)?;
            if prefix.value.eq_ignore_ascii_case("_binary") {
                if let Expr::Literal {
                    value: Value::Bytes(b),
                    ..
                } = &inner
                {
                    // A quoted string keeps the bytes the client sent, valid UTF-8 or not.
                    let bytes = match quoted_string(value) {
                        Some(text) => query_text::literal_bytes(text),
                        None => b.clone(),
                    };
                    let length = bytes.len() as u32;
                    return Ok(Expr::Literal {
                        value: Value::Bytes(bytes),
                        data_type: DataType::VarBinary { length },
                    });
                }
            }
            inner
        }
        A::TypedString(ts) => bind_typed_string(ts)?,
        A::Function(f) => bind_function(f, scope)?,
        A::Interval(_) => {
            return Err(Error::parse_near(&e.to_string(), 1));
        }
        A::Tuple(_) => {
            return Err(Error::new(
                ErrorCode::OperandColumns,
                "Operand should contain 1 column(s)",
            ))
        }
        other => return Err(Error::not_supported(&other.to_string())),
    })
}

/// A function call, its string arguments compared under one collation where it compares
/// them, and its string result in the collation its arguments give it (`collate`).
pub(super) fn call(function: Function, mut args: Vec<Expr>) -> Result<Expr> {
    let numeric_arguments = match function {
        Function::Abs
        | Function::Ceil
        | Function::Floor
        | Function::Sign
        | Function::Sqrt
        | Function::Exp
        | Function::Ln
        | Function::Log
        | Function::Log2
        | Function::Log10
        | Function::Mod
        | Function::Pow => args.len(),
        Function::Round | Function::Truncate => 1,
        // Against a number, GREATEST and LEAST compare an ENUM or SET by its number.
        Function::Greatest | Function::Least if args.iter().any(|a| a.data_type().is_numeric()) => {
            args.len()
        }
        _ => 0,
    };
    let reads_enum_set_number =
        numeric_arguments > 0 && args.iter().any(|a| a.data_type().members().is_some());
    if reads_enum_set_number {
        args = args
            .into_iter()
            .enumerate()
            .map(|(i, a)| match i < numeric_arguments {
                true => numeric_operand(a),
                false => a,
            })
            .collect();
    }
    let compared = match function {
        Function::Strcmp | Function::NullIf => 2,
        Function::Field | Function::Greatest | Function::Least => args.len(),
        _ => 0,
    };
    let operation = function.name();
    let compared = compared.min(args.len());
    collate::compare_under_one_collation(&mut args[..compared], operation)?;
    let data_type = match function {
        // MariaDB compares a string with a number as DOUBLEs, and GREATEST/LEAST of an ENUM
        // and a number returns the DOUBLE.
        Function::Greatest | Function::Least if reads_enum_set_number => DataType::DOUBLE,
        Function::Round | Function::Truncate | Function::Ceil | Function::Floor
            if reads_enum_set_number =>
        {
            super::int_length::call_length(function, &args)
                .map_or_else(|| result_type(function, &args), |l| l.data_type())
        }
        _ => result_type(function, &args),
    };
    let data_type = collate::result_collation(data_type, Some(function), &args, operation)?;
    Ok(Expr::Call {
        function,
        args,
        data_type,
    })
}

fn int_literal(i: i64) -> Expr {
    let value = Value::Int(i);
    Expr::Literal {
        data_type: literal_length(&value)
            .expect("an Int value has a length")
            .data_type(),
        value,
    }
}

fn is_bool(x: &ast::Expr, value: bool, negated: bool, scope: &dyn Scope) -> Result<Expr> {
    Ok(Expr::IsBool {
        operand: Box::new(bind(x, scope)?),
        value,
        negated,
    })
}

fn string_literal(s: &str) -> Expr {
    let text = query_text::literal_text(s);
    Expr::Literal {
        value: Value::text(&text),
        data_type: varchar(text.chars().count() as u64),
    }
}

/// The text of a quoted string literal, as decoded from the query.
fn quoted_string(e: &ast::Expr) -> Option<&str> {
    match e {
        ast::Expr::Value(v) => match &v.value {
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => Some(s),
            _ => None,
        },
        _ => None,
    }
}

fn bind_value(v: &ast::Value, scope: &dyn Scope) -> Result<Expr> {
    use ast::Value as V;
    Ok(match v {
        V::Number(text, _) => number_literal(text)?,
        V::SingleQuotedString(s)
        | V::DoubleQuotedString(s)
        | V::NationalStringLiteral(s)
        | V::EscapedStringLiteral(s)
        | V::TripleSingleQuotedString(s)
        | V::TripleDoubleQuotedString(s) => string_literal(s),
        V::HexStringLiteral(h) => {
            let bytes = hex_literal(h).ok_or_else(|| Error::parse_near(&format!("x'{h}'"), 1))?;
            let length = bytes.len() as u32;
            Expr::Literal {
                value: Value::Bytes(bytes),
                data_type: DataType::VarBinary { length },
            }
        }
        V::SingleQuotedByteStringLiteral(bits) | V::DoubleQuotedByteStringLiteral(bits) => {
            let bytes =
                bit_literal(bits).ok_or_else(|| Error::parse_near(&format!("b'{bits}'"), 1))?;
            let length = bytes.len() as u32;
            Expr::Literal {
                value: Value::Bytes(bytes),
                data_type: DataType::VarBinary { length },
            }
        }
        V::Boolean(b) => int_literal(*b as i64),
        V::Null => Expr::Literal {
            value: Value::Null,
            data_type: DataType::Null,
        },
        V::Placeholder(p) if p == "?" => {
            let index = scope.next_parameter();
            Expr::Parameter {
                index,
                data_type: scope.parameter_type(index),
            }
        }
        other => return Err(Error::not_supported(&other.to_string())),
    })
}

fn hex_literal(h: &str) -> Option<Vec<u8>> {
    let padded = if h.len() % 2 == 1 {
        format!("0{h}")
    } else {
        h.to_string()
    };
    (0..padded.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&padded[i..i + 2], 16).ok())
        .collect()
}

fn bit_literal(bits: &str) -> Option<Vec<u8>> {
    if !bits.bytes().all(|b| b == b'0' || b == b'1') {
        return None;
    }
    let mut value: Vec<u8> = Vec::new();
    let pad = (8 - bits.len() % 8) % 8;
    let padded = format!("{}{bits}", "0".repeat(pad));
    for chunk in padded.as_bytes().chunks(8) {
        value.push(chunk.iter().fold(0u8, |acc, b| acc << 1 | (b - b'0')));
    }
    Some(value)
}

/// Numeric literal text to a typed literal (see the module notes).
pub(super) fn number_literal(text: &str) -> Result<Expr> {
    if text.contains(['e', 'E']) {
        let d: f64 = text.parse().map_err(|_| Error::parse_near(text, 1))?;
        return Ok(Expr::Literal {
            value: Value::Double(d),
            data_type: DataType::DOUBLE,
        });
    }
    if !text.contains('.') {
        if let Ok(i) = text.parse::<i64>() {
            return Ok(int_literal(i));
        }
        if let Ok(u) = text.parse::<u64>() {
            return Ok(Expr::Literal {
                value: Value::UInt(u),
                data_type: UBIGINT,
            });
        }
    }
    decimal_literal(text)
}

fn decimal_literal(text: &str) -> Result<Expr> {
    let (int_part, frac) = text.split_once('.').unwrap_or((text, ""));
    let int_part = int_part.trim_start_matches(['-', '+']);
    let int_digits = int_part.trim_start_matches('0').len() as u32;
    let scale = frac.len() as u32;
    match super::coerce::parse_decimal_text(text) {
        Some(d) if int_digits + scale <= 65 => Ok(Expr::Literal {
            value: Value::Decimal(d.rescale(scale).unwrap_or(d)),
            data_type: decimal_type(int_digits.max(1), scale),
        }),
        _ => {
            // Beyond DECIMAL's 65 digits a literal is a DOUBLE, as in MariaDB.
            let d: f64 = text.parse().map_err(|_| Error::parse_near(text, 1))?;
            Ok(Expr::Literal {
                value: Value::Double(d),
                data_type: DataType::DOUBLE,
            })
        }
    }
}

fn bind_typed_string(ts: &ast::TypedString) -> Result<Expr> {
    let text = match &ts.value.value {
        ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => s.clone(),
        other => other.to_string(),
    };
    let (kind, date_only) = match &ts.data_type {
        ast::DataType::Date => ("DATE", true),
        ast::DataType::Timestamp(..) | ast::DataType::Datetime(_) => ("DATETIME", false),
        ast::DataType::Time(..) => return time_literal(&text),
        _ => return Ok(string_literal(&text)),
    };
    let Some(parsed) = super::coerce::parse_datetime(text.as_bytes()) else {
        return Err(Error::new(
            ErrorCode::TruncatedWrongValue,
            format!("Incorrect {kind} value: '{text}'"),
        ));
    };
    Ok(if date_only {
        Expr::Literal {
            value: Value::Date(parsed.datetime.date),
            data_type: DataType::Date,
        }
    } else {
        Expr::Literal {
            value: Value::DateTime(parsed.datetime),
            data_type: DataType::DateTime {
                fsp: parsed.fraction_digits,
            },
        }
    })
}

/// TIME'...': a TIME with as many fraction digits as the text has; anything the column
/// would only take with a warning is an error here.
fn time_literal(text: &str) -> Result<Expr> {
    match super::time::parse_time(text.as_bytes()) {
        Some(p) if !p.clipped && !p.trailing && !p.from_datetime => {
            let fraction_digits = text
                .split_once('.')
                .map_or(0, |(_, f)| f.trim_end().len().min(6));
            Ok(Expr::Literal {
                value: Value::Time(p.time),
                data_type: DataType::Time {
                    fsp: fraction_digits as u8,
                },
            })
        }
        _ => Err(Error::new(
            ErrorCode::TruncatedWrongValue,
            format!("Incorrect TIME value: '{text}'"),
        )),
    }
}

/// Names that are functions even without parentheses (reserved words in MySQL).
fn niladic_function(name: &str) -> Option<Function> {
    match name.to_ascii_uppercase().as_str() {
        "CURRENT_USER" => Some(Function::CurrentUser),
        "CURRENT_DATE" => Some(Function::CurDate),
        "CURRENT_TIME" => Some(Function::CurTime),
        "CURRENT_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" => Some(Function::Now),
        "UTC_TIMESTAMP" => Some(Function::UtcTimestamp),
        "UTC_DATE" => Some(Function::UtcDate),
        "UTC_TIME" => Some(Function::UtcTime),
        _ => None,
    }
}

/// Whether a bare identifier in an expression is bound as a name (a column, or a stored
/// program's variable) rather than as `@user`, `@@system` or a niladic function.
pub fn is_plain_name(ident: &ast::Ident) -> bool {
    ident.quote_style.is_some()
        || !(ident.value.starts_with('@') || niladic_function(&ident.value).is_some())
}

fn bind_identifier(ident: &ast::Ident, scope: &dyn Scope) -> Result<Expr> {
    let name = &ident.value;
    if ident.quote_style.is_none() {
        if let Some(rest) = name.strip_prefix("@@") {
            return Ok(system_variable(rest, VarScope::Default));
        }
        if let Some(rest) = name.strip_prefix('@') {
            let name = unquote(rest).to_lowercase();
            return Ok(Expr::UserVariable {
                data_type: scope.user_variable_type(&name),
                name,
            });
        }
        if let Some(f) = niladic_function(name) {
            return call(f, Vec::new());
        }
    }
    match scope.resolve_column(&[], name)? {
        Some(c) => Ok(Expr::Column(c)),
        None => scope
            .resolve_outer(&[], name)?
            .ok_or_else(|| Error::bad_field(name, scope.clause())),
    }
}

fn unquote(s: &str) -> &str {
    let b = s.as_bytes();
    if b.len() >= 2 && matches!(b[0], b'`' | b'\'' | b'"') && b[b.len() - 1] == b[0] {
        &s[1..s.len() - 1]
    } else {
        s
    }
}

fn system_variable(name: &str, scope: VarScope) -> Expr {
    Expr::SystemVariable {
        name: unquote(name).to_ascii_lowercase(),
        scope,
    }
}

fn bind_compound(parts: &[ast::Ident], scope: &dyn Scope) -> Result<Expr> {
    if let Some(first) = parts.first() {
        let lower = first.value.to_ascii_lowercase();
        let var_scope = match lower.as_str() {
            "@@session" | "@@local" => Some(VarScope::Session),
            "@@global" => Some(VarScope::Global),
            _ => None,
        };
        if let (Some(s), 2) = (var_scope, parts.len()) {
            return Ok(system_variable(&parts[1].value, s));
        }
        if let Some(rest) = first.value.strip_prefix("@@") {
            let name: Vec<&str> = std::iter::once(rest)
                .chain(parts[1..].iter().map(|p| p.value.as_str()))
                .collect();
            return Ok(system_variable(&name.join("."), VarScope::Default));
        }
    }
    let (name, qualifier) = parts.split_last().ok_or_else(|| Error::parse_near("", 1))?;
    let qualifier: Vec<String> = qualifier.iter().map(|p| p.value.clone()).collect();
    if let Some(c) = scope.resolve_column(&qualifier, &name.value)? {
        return Ok(Expr::Column(c));
    }
    scope
        .resolve_outer(&qualifier, &name.value)?
        .ok_or_else(|| {
            if !qualifier.is_empty() && scope.reaches_no_table() {
                return Error::unknown_table(&qualifier.join("."), scope.clause());
            }
            let full: Vec<&str> = parts.iter().map(|p| p.value.as_str()).collect();
            Error::bad_field(&full.join("."), scope.clause())
        })
}

fn bind_unary(op: ast::UnaryOperator, operand: &ast::Expr, scope: &dyn Scope) -> Result<Expr> {
    use ast::UnaryOperator as U;
    // Fold a minus into a numeric literal so -9223372036854775808 is a BIGINT.
    if op == U::Minus {
        if let ast::Expr::Value(v) = operand {
            if let ast::Value::Number(text, _) = &v.value {
                return number_literal(&format!("-{text}"));
            }
        }
    }
    let inner = bind(operand, scope)?;
    let inner = match op {
        U::Minus | U::BitwiseNot => numeric_operand(inner),
        _ => inner,
    };
    Ok(match op {
        U::Plus => inner,
        U::Minus => match inner {
            // MariaDB folds a minus into a literal however deeply nested: -(-3) is 3.
            Expr::Literal {
                value: Value::Int(i),
                ..
            } if i != i64::MIN => int_literal(-i),
            Expr::Literal {
                value: Value::Decimal(d),
                data_type,
            } => Expr::Literal {
                value: Value::Decimal(-d),
                data_type,
            },
            inner => {
                let inner = numeric_operand(inner);
                let data_type = match inner.data_type() {
                    DataType::Int { .. } => neg_length(&inner)
                        .expect("an integer operand has a length")
                        .data_type(),
                    // A negated number may be negative: never UNSIGNED.
                    d @ (DataType::Decimal { .. } | DataType::Double { .. }) => {
                        d.with_unsigned(false)
                    }
                    _ => DataType::DOUBLE,
                };
                Expr::Unary {
                    op: UnaryOp::Neg,
                    operand: Box::new(inner),
                    data_type,
                }
            }
        },
        U::Not | U::BangNot => Expr::Unary {
            op: UnaryOp::Not,
            operand: Box::new(inner),
            data_type: BOOL_TYPE,
        },
        U::BitwiseNot => Expr::Unary {
            op: UnaryOp::BitNot,
            operand: Box::new(inner),
            data_type: UBIGINT,
        },
        other => return Err(Error::not_supported(&other.to_string())),
    })
}

fn interval_of(e: &ast::Expr, scope: &dyn Scope) -> Result<Option<(Expr, IntervalUnit)>> {
    let ast::Expr::Interval(interval) = e else {
        return Ok(None);
    };
    if interval.last_field.is_some() {
        return Err(Error::not_supported("compound INTERVAL units"));
    }
    use ast::DateTimeField as F;
    let unit = match &interval.leading_field {
        Some(F::Microsecond | F::Microseconds) => IntervalUnit::Microsecond,
        Some(F::Second | F::Seconds) => IntervalUnit::Second,
        Some(F::Minute | F::Minutes) => IntervalUnit::Minute,
        Some(F::Hour | F::Hours) => IntervalUnit::Hour,
        Some(F::Day | F::Days) => IntervalUnit::Day,
        Some(F::Week(_) | F::Weeks) => IntervalUnit::Week,
        Some(F::Month | F::Months) => IntervalUnit::Month,
        Some(F::Quarter) => IntervalUnit::Quarter,
        Some(F::Year | F::Years) => IntervalUnit::Year,
        other => {
            let text = other.as_ref().map(|f| f.to_string()).unwrap_or_default();
            return Err(Error::not_supported(&format!("INTERVAL unit {text}")));
        }
    };
    Ok(Some((bind(&interval.value, scope)?, unit)))
}

fn bind_binary(
    left: &ast::Expr,
    op: &ast::BinaryOperator,
    right: &ast::Expr,
    scope: &dyn Scope,
) -> Result<Expr> {
    use ast::BinaryOperator as B;
    if matches!(op, B::Plus | B::Minus) {
        if let Some((amount, unit)) = interval_of(right, scope)? {
            let date = bind(left, scope)?;
            let f = if *op == B::Plus {
                Function::DateAdd(unit)
            } else {
                Function::DateSub(unit)
            };
            return call(f, vec![date, amount]);
        }
        if *op == B::Plus {
            if let Some((amount, unit)) = interval_of(left, scope)? {
                let date = bind(right, scope)?;
                return call(Function::DateAdd(unit), vec![date, amount]);
            }
        }
    }
    let op = match op {
        B::Plus => BinaryOp::Add,
        B::Minus => BinaryOp::Sub,
        B::Multiply => BinaryOp::Mul,
        B::Divide => BinaryOp::Div,
        B::Modulo => BinaryOp::Mod,
        B::MyIntegerDivide | B::DuckIntegerDivide => BinaryOp::IntDiv,
        B::Eq => BinaryOp::Eq,
        B::NotEq => BinaryOp::NotEq,
        B::Lt => BinaryOp::Lt,
        B::LtEq => BinaryOp::LtEq,
        B::Gt => BinaryOp::Gt,
        B::GtEq => BinaryOp::GtEq,
        B::Spaceship => BinaryOp::NullSafeEq,
        B::And => BinaryOp::And,
        // `||` is OR in MySQL's default sql_mode (no PIPES_AS_CONCAT).
        B::Or | B::StringConcat => BinaryOp::Or,
        B::Xor => BinaryOp::Xor,
        B::BitwiseAnd => BinaryOp::BitAnd,
        B::BitwiseOr => BinaryOp::BitOr,
        B::BitwiseXor | B::PGBitwiseXor => BinaryOp::BitXor,
        B::PGBitwiseShiftLeft => BinaryOp::ShiftLeft,
        B::PGBitwiseShiftRight => BinaryOp::ShiftRight,
        B::Assignment => return bind_assignment(left, right, scope),
        other => return Err(Error::not_supported(&format!("operator {other}"))),
    };
    let l = bind(left, scope)?;
    let r = bind(right, scope)?;
    comparison(op, l, r)
}

/// `left op right`; a comparison's string operands compare under their aggregate
/// collation (`collate::compare_under_one_collation`).
fn comparison(op: BinaryOp, left: Expr, right: Expr) -> Result<Expr> {
    use BinaryOp::*;
    let operation = match op {
        Eq => "=",
        NullSafeEq => "<=>",
        NotEq => "<>",
        Lt => "<",
        LtEq => "<=",
        Gt => ">",
        GtEq => ">=",
        _ => return Ok(binary_node(op, left, right)),
    };
    let mut operands = [left, right];
    collate::compare_under_one_collation(&mut operands, operation)?;
    let [left, right] = operands;
    Ok(binary_node(op, left, right))
}

/// `@name := value`; any other target of `:=` is a syntax error.
fn bind_assignment(target: &ast::Expr, value: &ast::Expr, scope: &dyn Scope) -> Result<Expr> {
    let name = match target {
        ast::Expr::Identifier(ident) if ident.quote_style.is_none() => ident
            .value
            .strip_prefix('@')
            .filter(|rest| !rest.starts_with('@'))
            .map(|rest| unquote(rest).to_lowercase()),
        _ => None,
    };
    let Some(name) = name else {
        return Err(Error::parse_near(&format!(":= {value}"), 1));
    };
    let value = bind(value, scope)?;
    let data_type = match int_length(&value) {
        Some(length) => length.data_type(),
        None => value.data_type(),
    };
    Ok(Expr::SetUserVariable {
        name,
        value: Box::new(value),
        data_type,
    })
}

/// `e` as a numeric context reads it: an ENUM's position or a SET's bitmask, an integer
/// as MariaDB types `enum_col + 0`; any other expression as it is.
pub fn numeric_operand(e: Expr) -> Expr {
    let Some(length) = super::int_length::enum_set_length(&e.data_type()) else {
        return e;
    };
    // A SET of 64 members reaches 2^64 - 1, which only BIGINT UNSIGNED holds.
    let data_type = match e.data_type().largest_member_number() {
        Some(largest) if largest > i64::MAX as u64 => UBIGINT,
        _ => length.data_type(),
    };
    Expr::Cast {
        operand: Box::new(e),
        data_type,
    }
}

/// Builds a binary node with its inferred type; an arithmetic or bit operator reads ENUM
/// and SET operands as numbers.
pub fn binary_node(op: BinaryOp, left: Expr, right: Expr) -> Expr {
    use BinaryOp::*;
    let (left, right) = match op {
        Add | Sub | Mul | Div | IntDiv | Mod | BitAnd | BitOr | BitXor | ShiftLeft | ShiftRight => {
            (numeric_operand(left), numeric_operand(right))
        }
        Eq | NullSafeEq | NotEq | Lt | LtEq | Gt | GtEq | And | Or | Xor => (left, right),
    };
    let data_type = binary_type(op, &left, &right);
    Expr::Binary {
        op,
        left: Box::new(left),
        right: Box::new(right),
        data_type,
    }
}

/// How a type takes part in arithmetic.
enum NumView {
    /// (integer digits, scale, is an integer)
    Exact(u32, u32, bool),
    Inexact,
}

fn num_view(t: &DataType) -> NumView {
    match t {
        DataType::Int { .. } => {
            let (i, s) = exact_shape(t);
            NumView::Exact(i, s, true)
        }
        DataType::Decimal { .. } => {
            let (i, s) = exact_shape(t);
            NumView::Exact(i, s, false)
        }
        DataType::Date => NumView::Exact(8, 0, true),
        DataType::DateTime { fsp: 0 } | DataType::Timestamp { fsp: 0 } => {
            NumView::Exact(14, 0, true)
        }
        DataType::DateTime { fsp } | DataType::Timestamp { fsp } => {
            NumView::Exact(14, *fsp as u32, false)
        }
        // hhhmmss: 838:59:59 is 8385959.
        DataType::Time { fsp: 0 } => NumView::Exact(7, 0, true),
        DataType::Time { fsp } => NumView::Exact(7, *fsp as u32, false),
        // A bare NULL is a string to MariaDB's arithmetic: the result is DOUBLE.
        _ => NumView::Inexact,
    }
}

/// Result type of `left op right`.
pub fn binary_type(op: BinaryOp, left: &Expr, right: &Expr) -> DataType {
    use BinaryOp::*;
    match op {
        _ if op.is_truth_valued() => return BOOL_TYPE,
        BitAnd | BitOr | BitXor | ShiftLeft | ShiftRight => return UBIGINT,
        IntDiv => {
            return binary_length(op, left, right)
                .expect("DIV has an integer result for any operands")
                .data_type()
        }
        _ => {}
    }
    let (left_type, right_type) = (left.data_type(), right.data_type());
    let (NumView::Exact(ia, sa, inta), NumView::Exact(ib, sb, intb)) =
        (num_view(&left_type), num_view(&right_type))
    else {
        // MariaDB's Item_num_op::fix_length_and_dec_double: the operands' larger decimals,
        // plus div_precision_increment for `/` (PI()/2 prints 10 digits).
        let decimals = left_type
            .double_decimals()
            .max(right_type.double_decimals());
        let increment = match op {
            Div => super::eval::DIV_PRECISION_INCREMENT as u8,
            _ => 0,
        };
        return DataType::double(decimals.saturating_add(increment));
    };
    if let (true, true, Some(length)) = (inta, intb, binary_length(op, left, right)) {
        return length.data_type();
    }
    match op {
        Div => decimal_type(ia + sb, sa + super::eval::DIV_PRECISION_INCREMENT),
        // Temporal operands: integers of their YYYYMMDD... digits.
        _ if inta && intb => IntLength::of_type(IntWidth::Big, false).data_type(),
        Add | Sub => decimal_type(ia.max(ib) + 1, sa.max(sb)),
        Mul => decimal_type(ia + ib, sa + sb),
        _ => decimal_type(ia.max(ib), sa.max(sb)),
    }
}

/// 1305 for function `name` of `db`.
pub fn no_such_function(db: Option<String>, name: &str) -> Error {
    let name = match db {
        Some(db) => format!("{db}.{name}"),
        None => name.to_string(),
    };
    Error::new(
        ErrorCode::SpDoesNotExist,
        format!("FUNCTION {name} does not exist"),
    )
}

/// A call that no built-in function takes: a stored function's.
fn stored_call(
    f: &ast::Function,
    db: Option<&str>,
    name: &str,
    raw: &[&ast::Expr],
    scope: &dyn Scope,
) -> Result<Expr> {
    let args = || raw.iter().map(|a| bind(a, scope)).collect();
    scope.stored_function(db, name, f.to_string(), &args)
}

fn function_args(f: &ast::Function) -> Result<Vec<&ast::Expr>> {
    match &f.args {
        ast::FunctionArguments::None => Ok(Vec::new()),
        ast::FunctionArguments::Subquery(_) => Err(Error::not_supported("subquery arguments")),
        ast::FunctionArguments::List(list) => list
            .args
            .iter()
            .map(|a| match a {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => Ok(e),
                other => Err(Error::parse_near(&other.to_string(), 1)),
            })
            .collect(),
    }
}

fn bind_function(f: &ast::Function, scope: &dyn Scope) -> Result<Expr> {
    let upper = function_name(f);
    let written = f
        .name
        .0
        .last()
        .and_then(|p| p.as_ident())
        .map(|i| i.value.clone())
        .unwrap_or_default();
    if f.over.is_some() {
        return scope.resolve_window(f);
    }
    if let [db, _] = &f.name.0[..] {
        // `db.f(...)` names a stored function, never a built-in one (MariaDB).
        let db = db.as_ident().map(|i| i.value.clone()).unwrap_or_default();
        return stored_call(f, Some(&db), &written, &function_args(f)?, scope);
    }
    if super::aggregate::AggregateFunction::lookup(&upper).is_some() {
        return match scope.resolve_aggregate(f)? {
            Some(e) => Ok(e),
            None => Err(Error::new(
                ErrorCode::InvalidGroupFuncUse,
                "Invalid use of group function",
            )),
        };
    }
    let raw = function_args(f)?;
    // DATE_ADD family: the second argument is an INTERVAL (or a day count for ADDDATE).
    if matches!(
        upper.as_str(),
        "DATE_ADD" | "DATE_SUB" | "ADDDATE" | "SUBDATE"
    ) {
        if raw.len() != 2 {
            return Err(param_count(&written));
        }
        let date = bind(raw[0], scope)?;
        let (amount, unit) = match interval_of(raw[1], scope)? {
            Some(x) => x,
            None if upper == "ADDDATE" || upper == "SUBDATE" => {
                (bind(raw[1], scope)?, IntervalUnit::Day)
            }
            None => return Err(Error::parse_near(&raw[1].to_string(), 1)),
        };
        let function = if upper.ends_with("ADD") || upper == "ADDDATE" {
            Function::DateAdd(unit)
        } else {
            Function::DateSub(unit)
        };
        return call(function, vec![date, amount]);
    }
    // BIN(n) and OCT(n) are CONV(n, 10, 2) and CONV(n, 10, 8).
    if let Some(base) = match upper.as_str() {
        "BIN" => Some(2),
        "OCT" => Some(8),
        _ => None,
    } {
        if raw.len() != 1 {
            return Err(param_count(&written));
        }
        let literal = |n: i64| Expr::Literal {
            value: Value::Int(n),
            data_type: DataType::BIGINT,
        };
        return call(
            Function::Conv,
            vec![bind(raw[0], scope)?, literal(10), literal(base)],
        );
    }
    // TIMESTAMPDIFF(unit, a, b): the unit is a keyword, not an expression.
    if upper == "TIMESTAMPDIFF" {
        if raw.len() != 3 {
            return Err(param_count(&written));
        }
        let unit = match raw[0] {
            ast::Expr::Identifier(ident) => unit_named(&ident.value.to_ascii_uppercase()),
            _ => None,
        }
        .ok_or_else(|| Error::parse_near(&raw[0].to_string(), 1))?;
        let args = vec![bind(raw[1], scope)?, bind(raw[2], scope)?];
        return call(Function::TimestampDiff(unit), args);
    }
    if let Some(function) = RegexpFunction::lookup(&upper) {
        if raw.len() != function.arity() {
            return Err(param_count(&written));
        }
        let args = raw
            .iter()
            .map(|a| bind(a, scope))
            .collect::<Result<Vec<_>>>()?;
        return bind_regexp(function, args);
    }
    if crate::window::is_window_only(&upper) {
        // MariaDB's grammar knows these names only before OVER.
        return Err(Error::parse_near(&f.to_string(), 1));
    }
    if matches!(upper.as_str(), "COLLATION" | "COERCIBILITY") {
        // Answered when bound, from the argument's type and derivation; the argument is
        // never evaluated (COLLATION(NULL) is 'binary').
        if raw.len() != 1 {
            return Err(param_count(&written));
        }
        let derived = collate::derived(&bind(raw[0], scope)?);
        return Ok(match upper.as_str() {
            "COLLATION" => Expr::Literal {
                value: Value::text(derived.collation.name()),
                data_type: varchar(64),
            },
            _ => Expr::Literal {
                value: Value::Int(derived.derivation as i64),
                data_type: INT_TYPE,
            },
        });
    }
    let Some(function) = Function::lookup(&upper) else {
        return stored_call(f, None, &written, &raw, scope);
    };
    function.check_arity(&written, raw.len())?;
    let mut args = raw
        .iter()
        .map(|a| match function.embeds_booleans() {
            true => bind_embedded_in_json(a, scope),
            false => bind(a, scope),
        })
        .collect::<Result<Vec<_>>>()?;
    function.check_argument_types(&args)?;
    if upper == "INSTR" {
        args.swap(0, 1);
    }
    if function == Function::Week && args.len() == 2 {
        // Only the default mode 0 is implemented.
        args.truncate(1);
    }
    call(function, args)
}

/// TRUE or FALSE, however parenthesised.
/// Binds an argument a JSON function embeds in JSON. TRUE and FALSE bind as 1 and 0;
/// JSON_OBJECT, JSON_ARRAY (and the others of `Function::embeds_booleans`) embed them as
/// `true`/`false`, so they stay boolean here: `1 IS TRUE` is that value, typed boolean
/// (json::is_boolean).
pub(crate) fn bind_embedded_in_json(e: &ast::Expr, scope: &dyn Scope) -> Result<Expr> {
    match boolean_literal(e) {
        Some(b) => Ok(Expr::IsBool {
            operand: Box::new(int_literal(b as i64)),
            value: true,
            negated: false,
        }),
        None => bind(e, scope),
    }
}

fn boolean_literal(e: &ast::Expr) -> Option<bool> {
    match e {
        ast::Expr::Nested(inner) => boolean_literal(inner),
        ast::Expr::Value(v) => match v.value {
            ast::Value::Boolean(b) => Some(b),
            _ => None,
        },
        _ => None,
    }
}

/// A REGEXP operator or REGEXP_* call over bound `args` (subject, pattern, ...); a literal
/// pattern is compiled here (`regexp` invariant (2)).
fn bind_regexp(function: RegexpFunction, mut args: Vec<Expr>) -> Result<Expr> {
    collate::compare_under_one_collation(&mut args[..2], "regexp")?;
    let compiled = regexp::bind_pattern(&args[0], &args[1])?.map(Box::new);
    let data_type = regexp::result_type(function, &args[0].data_type());
    let data_type = collate::result_collation(data_type, None, &args, "regexp_replace")?;
    Ok(Expr::Regexp {
        function,
        args,
        compiled,
        data_type,
    })
}

fn unit_named(name: &str) -> Option<IntervalUnit> {
    Some(match name {
        "MICROSECOND" => IntervalUnit::Microsecond,
        "SECOND" => IntervalUnit::Second,
        "MINUTE" => IntervalUnit::Minute,
        "HOUR" => IntervalUnit::Hour,
        "DAY" => IntervalUnit::Day,
        "WEEK" => IntervalUnit::Week,
        "MONTH" => IntervalUnit::Month,
        "QUARTER" => IntervalUnit::Quarter,
        "YEAR" => IntervalUnit::Year,
        _ => return None,
    })
}

fn param_count(name: &str) -> Error {
    Error::new(
        ErrorCode::WrongParamcountToNativeFct,
        format!("Incorrect parameter count in the call to native function '{name}'"),
    )
}

fn length_of(len: &Option<ast::CharacterLength>) -> Option<u32> {
    match len {
        Some(ast::CharacterLength::IntegerLength { length, .. }) => {
            Some((*length).min(u32::MAX as u64) as u32)
        }
        _ => None,
    }
}

/// DECIMAL(M,D) as declared in a column or a CAST, checked as MariaDB does (1426, 1425,
/// 1427). `name` is the column, or the CAST operand as written; MariaDB names the column in
/// 1427 but leaves it empty for a CAST, so that one is `m_d_name`.
pub fn declared_decimal(
    info: &ast::ExactNumberInfo,
    name: &str,
    m_d_name: &str,
) -> Result<DataType> {
    let (precision, scale) = match info {
        ast::ExactNumberInfo::None => (10, 0),
        ast::ExactNumberInfo::Precision(p) => (*p, 0),
        ast::ExactNumberInfo::PrecisionAndScale(p, s) => (*p, (*s).max(0) as u64),
    };
    if precision > 65 {
        return Err(Error::new(
            ErrorCode::TooBigPrecision,
            format!("Too big precision specified for '{name}'. Maximum is 65"),
        ));
    }
    check_scale(scale, 38, precision, name, m_d_name)?;
    Ok(DataType::Decimal {
        precision: precision.max(1) as u8,
        scale: scale as u8,
        unsigned: false,
    })
}

/// A declared (M,D)'s scale: at most `max_scale` (error 1425) and at most M (1427), as
/// MariaDB checks DECIMAL and DOUBLE alike.
pub fn check_scale(
    scale: u64,
    max_scale: u64,
    precision: u64,
    name: &str,
    m_d_name: &str,
) -> Result<()> {
    if scale > max_scale {
        return Err(Error::new(
            ErrorCode::TooBigScale,
            format!("Too big scale specified for '{name}'. Maximum is {max_scale}"),
        ));
    }
    if scale > precision {
        return Err(Error::new(
            ErrorCode::MBiggerThanD,
            format!(
                "For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column \
                 '{m_d_name}')"
            ),
        ));
    }
    Ok(())
}

/// The target type of CAST(x AS t) / CONVERT(x, t).
fn cast_type(t: &ast::DataType, operand: &Expr, operand_text: &str) -> Result<DataType> {
    use ast::DataType as T;
    let from = &operand.data_type();
    Ok(match t {
        T::Signed | T::SignedInteger | T::Integer(_) | T::Int(_) | T::BigInt(_) => {
            cast_length(operand, false).data_type()
        }
        T::Unsigned | T::UnsignedInteger | T::IntUnsigned(_) | T::BigIntUnsigned(_) => {
            cast_length(operand, true).data_type()
        }
        T::Decimal(info) | T::Numeric(info) | T::Dec(info) => {
            declared_decimal(info, operand_text, "")?
        }
        T::Double(_) | T::DoublePrecision | T::Real | T::Float8 => DataType::DOUBLE,
        T::Float(_) | T::Float4 => DataType::FLOAT,
        T::Char(len) | T::Character(len) | T::Varchar(len) | T::Nvarchar(len) => {
            // MariaDB's CAST(x AS CHAR(n)) is a VARCHAR(n), cut to n characters.
            match length_of(len) {
                Some(n) => DataType::varchar(n),
                None => string_type(char_length(from).max(1), false),
            }
        }
        T::Binary(len) => match len {
            Some(n) => DataType::Binary {
                length: (*n).min(u32::MAX as u64) as u32,
            },
            None => string_type(char_length(from).max(1), true),
        },
        T::Date => DataType::Date,
        T::Datetime(fsp) | T::Timestamp(fsp, _) => DataType::DateTime {
            fsp: fsp.unwrap_or(0).min(6) as u8,
        },
        T::Time(fsp, _) => DataType::Time {
            fsp: fsp.unwrap_or(0).min(6) as u8,
        },
        T::Text | T::LongText | T::MediumText | T::TinyText => {
            string_type(char_length(from).max(1), is_binary_string(from))
        }
        other => return Err(Error::not_supported(&format!("CAST AS {other}"))),
    })
}
