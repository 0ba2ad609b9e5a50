//! CHECK constraints (MariaDB 10.2+ enforces them): their text as MariaDB prints it, their
//! binding against a table's row, and the check of a row before it is written.
//!
//! Storage keeps a constraint as its printed text (`manycore_storage::CheckConstraint`);
//! a write statement's plan binds each once (`bind`), so executions parse nothing. A
//! column rename reparses the text of the constraints that name the column and prints
//! them again (`rename_column`), so string literals are never mistaken for names.
//!
//! Invariants:
//! (1) A row violates a constraint only when its expression is false: NULL passes, as in
//!     MariaDB. A violation is error 4025 `CONSTRAINT `name` failed for `db`.`t``, whose
//!     name is `t.c` for a column-level constraint of column c; with IGNORE it is a warning
//!     and the row is skipped.
//! (2) `check_constraint_checks = OFF` skips every check (as for `mariadb-dump` reloads).
//! (3) The stored text is MariaDB's `Item::print` of the expression for the forms `print`
//!     knows (columns, literals, operators with MariaDB's precedence-based parentheses,
//!     NOT pushed into comparisons, IS [NOT] NULL, [NOT] BETWEEN/IN/LIKE, function
//!     calls), so SHOW CREATE TABLE and dumps read as MariaDB's; other forms print as
//!     sqlparser writes them, which reparses to the same constraint.

use crate::error::{Error, ErrorCode, Result};
use crate::expr::{self, EvalContext, Expr};
use crate::scope::{BindScope, Parameters, SourceTable};
use manycore_storage::{CheckConstraint, Table};
use manycore_types::Value;
use sqlparser::ast;
use std::ops::ControlFlow;
use std::sync::Arc;

/// A table's constraint bound against its row (offset 0).
#[derive(Clone, Debug)]
pub struct BoundCheck {
    /// The name error 4025 shows.
    pub name: String,
    pub expr: Expr,
}

/// The constraints of `table` in `db`, bound; empty (no allocation) without any.
pub fn bind(db: &str, table: &Arc<Table>) -> Result<Vec<BoundCheck>> {
    let checks = &table.schema.checks;
    if checks.is_empty() {
        return Ok(Vec::new());
    }
    let sources = own_row(db, table);
    let parameters = Parameters::untyped();
    let mut scope = BindScope::new(&sources, "CHECK", &parameters);
    let mut bound = Vec::with_capacity(checks.len());
    for check in checks {
        scope.definition = Some(&check.name);
        let parsed = crate::parse::parse_expression(&check.expression)?;
        let name = if check.column_level {
            format!("{}.{}", table.schema.name, check.name)
        } else {
            check.name.clone()
        };
        bound.push(BoundCheck {
            name,
            expr: scope.bind(&parsed)?,
        });
    }
    Ok(bound)
}

/// `table` as the one source of an expression over its row (offset 0): what CHECK
/// constraints and generated columns read.
pub(crate) fn own_row(db: &str, table: &Arc<Table>) -> [SourceTable; 1] {
    [SourceTable::alone(
        db.to_string(),
        table,
        Default::default(),
    )]
}

/// Binds `schema`'s constraints against its columns, as CREATE TABLE and ALTER TABLE
/// ADD CONSTRAINT check them (1054 `Unknown column 'x' in 'CHECK'`).
pub fn validate(schema: &manycore_storage::TableSchema) -> Result<()> {
    if schema.checks.is_empty() {
        return Ok(());
    }
    let table = Arc::new(Table::detached("", schema.clone()));
    bind("", &table).map(drop)
}

/// ALTER TABLE ADD CONSTRAINT: every row of `table` must pass the constraints of its new
/// `schema` (MariaDB copies the rows through all of them). Rows written meanwhile by
/// other transactions are not seen (DDL does not stop DML). Returns the rows checked:
/// the ones MariaDB's copy reports.
pub fn verify_rows(
    db: &str,
    table: &Table,
    schema: &manycore_storage::TableSchema,
    view: &manycore_storage::ReadView,
    session: &dyn expr::SessionContext,
) -> Result<u64> {
    let detached = Arc::new(Table::detached(db, schema.clone()));
    let checks = bind(db, &detached)?;
    let eval = EvalContext::new(&[], session);
    let mut failure = None;
    let mut rows = 0;
    let all = manycore_storage::KeyRange::all();
    table.scan(
        view,
        manycore_storage::IndexNo::Primary,
        &all,
        |_, row| match row_passes(&checks, db, &schema.name, row, &eval, false) {
            Ok(_) => {
                rows += 1;
                std::ops::ControlFlow::Continue(())
            }
            Err(e) => {
                failure = Some(e);
                std::ops::ControlFlow::Break(())
            }
        },
    );
    failure.map_or(Ok(rows), Err)
}

/// Invariant (1): whether `row` of `db`.`table` may be written. A violation is an error,
/// or with `ignore` a warning and false.
pub fn row_passes(
    checks: &[BoundCheck],
    db: &str,
    table: &str,
    row: &[Value],
    eval: &EvalContext,
    ignore: bool,
) -> Result<bool> {
    if checks.is_empty() || !enabled(eval.session) {
        return Ok(true);
    }
    for check in checks {
        let value = check.expr.eval(row, eval)?;
        if crate::expr::coerce::truth(&value, eval.session) != Some(false) {
            continue;
        }
        let e = Error::new(
            ErrorCode::ConstraintFailed,
            format!("CONSTRAINT `{}` failed for `{db}`.`{table}`", check.name),
        );
        if ignore {
            eval.session.warn(e.code, e.message);
            return Ok(false);
        }
        return Err(e);
    }
    Ok(true)
}

/// Invariant (2).
fn enabled(session: &dyn expr::SessionContext) -> bool {
    session
        .system_variable("check_constraint_checks", expr::VarScope::Session)
        .map_or(true, |v| {
            crate::expr::coerce::truth(&v, session) != Some(false)
        })
}

/// The constraints a CREATE TABLE defines, named as MariaDB names them: a column-level
/// one after its column, an unnamed table-level one `CONSTRAINT_n` (n counting the
/// table-level constraints); 1826 for a name given twice.
pub fn definitions(create: &ast::CreateTable) -> Result<Vec<CheckConstraint>> {
    let mut checks: Vec<CheckConstraint> = Vec::new();
    for column in &create.columns {
        let checks_before = checks.len();
        for option in &column.options {
            if let ast::ColumnOption::Check(c) = &option.option {
                checks.push(CheckConstraint {
                    name: column.name.value.clone(),
                    column_level: true,
                    expression: print(&c.expr),
                });
            }
        }
        // A JSON column's own CHECK replaces the automatic one, as in MariaDB.
        if column.data_type == ast::DataType::JSON && checks.len() == checks_before {
            checks.push(json_valid_check(&column.name.value));
        }
    }
    for constraint in &create.constraints {
        if let ast::TableConstraint::Check(c) = constraint {
            let check = table_level(c, &checks);
            add(&mut checks, check)?;
        }
    }
    Ok(checks)
}

/// `CHECK (json_valid(`c`))`, the constraint MariaDB gives a column declared JSON.
pub fn json_valid_check(column: &str) -> CheckConstraint {
    CheckConstraint {
        name: column.to_string(),
        column_level: true,
        expression: json_valid_expression(column),
    }
}

fn json_valid_expression(column: &str) -> String {
    format!("json_valid({})", crate::show::quote_identifier(column))
}

/// Whether column `index` of `schema` is one declared JSON: a utf8mb4_bin LONGTEXT with
/// the automatic `json_valid` constraint (storage keeps no more), as a JSON column's dump
/// also restores. A general_ci LONGTEXT with that CHECK is not one, as in MariaDB.
pub fn is_json_column(schema: &manycore_storage::TableSchema, index: usize) -> bool {
    schema.columns[index].data_type
        == manycore_types::DataType::text(manycore_types::LobSize::Long)
            .with_collation(manycore_types::Collation::Utf8mb4Bin)
        && has_json_check(schema, index)
}

/// Whether column `index` of `schema` has the automatic `json_valid` constraint: all a
/// derived table's column needs to read as JSON (`join::derived_table`).
pub fn has_json_check(schema: &manycore_storage::TableSchema, index: usize) -> bool {
    let column = &schema.columns[index];
    schema.checks.iter().any(|k| {
        k.column_level
            && k.name == column.name
            && k.expression == json_valid_expression(&column.name)
    })
}

/// A table-level constraint joining `existing`; unnamed, it is `CONSTRAINT_n` with the
/// first n from 1 no table-level constraint has taken (MariaDB numbers only the unnamed).
pub fn table_level(c: &ast::CheckConstraint, existing: &[CheckConstraint]) -> CheckConstraint {
    let name = match &c.name {
        Some(name) => name.value.clone(),
        None => (1..)
            .map(|n| format!("CONSTRAINT_{n}"))
            .find(|name| {
                !existing
                    .iter()
                    .any(|k| !k.column_level && k.name.eq_ignore_ascii_case(name))
            })
            .unwrap_or_default(),
    };
    CheckConstraint {
        name,
        column_level: false,
        expression: print(&c.expr),
    }
}

/// Appends a table-level constraint: 1826 if its name is taken by another one.
pub fn add(checks: &mut Vec<CheckConstraint>, check: CheckConstraint) -> Result<()> {
    if checks
        .iter()
        .any(|c| !c.column_level && c.name.eq_ignore_ascii_case(&check.name))
    {
        return Err(Error::duplicate_check(&check.name));
    }
    checks.push(check);
    Ok(())
}

/// The identifier an expression names a column by (`c`, or the last part of `t.c`).
fn column_ident(e: &ast::Expr) -> Option<&ast::Ident> {
    match e {
        ast::Expr::Identifier(i) => Some(i),
        ast::Expr::CompoundIdentifier(parts) => parts.last(),
        _ => None,
    }
}

fn column_ident_mut(e: &mut ast::Expr) -> Option<&mut ast::Ident> {
    match e {
        ast::Expr::Identifier(i) => Some(i),
        ast::Expr::CompoundIdentifier(parts) => parts.last_mut(),
        _ => None,
    }
}

/// Whether stored constraint text names column `name` (matched case-insensitively, as
/// MariaDB matches column names).
pub fn names_column(text: &str, name: &str) -> Result<bool> {
    let parsed = crate::parse::parse_expression(text)?;
    let found = ast::visit_expressions(&parsed, |e| match column_ident(e) {
        Some(i) if i.value.eq_ignore_ascii_case(name) => ControlFlow::Break(()),
        _ => ControlFlow::Continue(()),
    });
    Ok(found.is_break())
}

/// Stored constraint text with column `old` (matched as in `names_column`) renamed `new`,
/// printed again as `print` prints (invariant (3)); None if it does not name `old`, so a
/// constraint the rename does not touch keeps its text as it is.
pub fn rename_column(text: &str, old: &str, new: &str) -> Result<Option<String>> {
    let mut parsed = crate::parse::parse_expression(text)?;
    let mut renamed = false;
    let _ = ast::visit_expressions_mut(&mut parsed, |e| {
        if let Some(i) = column_ident_mut(e) {
            if i.value.eq_ignore_ascii_case(old) {
                // Quoted: sqlparser's own printing of forms `print` does not know must
                // not read a new name such as `order` or `a b` as something else.
                *i = ast::Ident::with_quote('`', new);
                renamed = true;
            }
        }
        ControlFlow::<()>::Continue(())
    });
    Ok(renamed.then(|| print(&parsed)))
}

/// MariaDB's operator precedence (its `enum precedence`), lowest first.
#[derive(Clone, Copy, PartialEq, PartialOrd)]
enum Precedence {
    Lowest,
    Or,
    Xor,
    And,
    Not,
    Between,
    Comparison,
    BitOr,
    BitAnd,
    Shift,
    Add,
    Multiply,
    BitXor,
    Negate,
    Highest,
}

impl Precedence {
    fn next(self) -> Precedence {
        use Precedence as P;
        match self {
            P::Lowest => P::Or,
            P::Or => P::Xor,
            P::Xor => P::And,
            P::And => P::Not,
            P::Not => P::Between,
            P::Between => P::Comparison,
            P::Comparison => P::BitOr,
            P::BitOr => P::BitAnd,
            P::BitAnd => P::Shift,
            P::Shift => P::Add,
            P::Add => P::Multiply,
            P::Multiply => P::BitXor,
            P::BitXor => P::Negate,
            P::Negate | P::Highest => P::Highest,
        }
    }
}

/// Invariant (3): the expression as MariaDB prints it.
pub fn print(e: &ast::Expr) -> String {
    let mut out = String::new();
    write(e, Precedence::Lowest, &mut out);
    out
}

/// Writes `e`, in parentheses if it binds looser than `parent`.
fn write(e: &ast::Expr, parent: Precedence, out: &mut String) {
    let (text, precedence) = printed(e);
    if precedence < parent {
        out.push('(');
        out.push_str(&text);
        out.push(')');
    } else {
        out.push_str(&text);
    }
}

fn operator(op: &ast::BinaryOperator) -> Option<(&'static str, Precedence)> {
    use ast::BinaryOperator as B;
    use Precedence as P;
    Some(match op {
        B::Or => ("or", P::Or),
        B::Xor => ("xor", P::Xor),
        B::And => ("and", P::And),
        B::Eq => ("=", P::Comparison),
        B::NotEq => ("<>", P::Comparison),
        B::Lt => ("<", P::Comparison),
        B::LtEq => ("<=", P::Comparison),
        B::Gt => (">", P::Comparison),
        B::GtEq => (">=", P::Comparison),
        B::Spaceship => ("<=>", P::Comparison),
        B::BitwiseOr => ("|", P::BitOr),
        B::BitwiseAnd => ("&", P::BitAnd),
        B::PGBitwiseShiftLeft => ("<<", P::Shift),
        B::PGBitwiseShiftRight => (">>", P::Shift),
        B::Plus => ("+", P::Add),
        B::Minus => ("-", P::Add),
        B::Multiply => ("*", P::Multiply),
        B::Divide => ("/", P::Multiply),
        B::Modulo => ("MOD", P::Multiply),
        B::MyIntegerDivide => ("DIV", P::Multiply),
        B::BitwiseXor => ("^", P::BitXor),
        _ => return None,
    })
}

/// The comparison that is true exactly when `op` is false (for non-NULL operands), as
/// MariaDB rewrites NOT over a comparison.
fn negated(op: &ast::BinaryOperator) -> Option<ast::BinaryOperator> {
    use ast::BinaryOperator as B;
    Some(match op {
        B::Eq => B::NotEq,
        B::NotEq => B::Eq,
        B::Lt => B::GtEq,
        B::LtEq => B::Gt,
        B::Gt => B::LtEq,
        B::GtEq => B::Lt,
        _ => return None,
    })
}

/// `NOT e` as MariaDB simplifies it: comparisons invert, AND/OR follow De Morgan, a bare
/// value becomes `= 0`.
fn not(e: &ast::Expr) -> (String, Precedence) {
    use ast::Expr as E;
    match e {
        E::Nested(inner) => not(inner),
        E::BinaryOp { left, op, right } => {
            let flipped = match op {
                ast::BinaryOperator::And => Some(ast::BinaryOperator::Or),
                ast::BinaryOperator::Or => Some(ast::BinaryOperator::And),
                _ => None,
            };
            if let Some(flipped) = flipped {
                let both = E::BinaryOp {
                    left: Box::new(not_expr(left)),
                    op: flipped,
                    right: Box::new(not_expr(right)),
                };
                return printed(&both);
            }
            match negated(op) {
                Some(op) => printed(&E::BinaryOp {
                    left: left.clone(),
                    op,
                    right: right.clone(),
                }),
                None => negation(e),
            }
        }
        E::IsNull(x) => printed(&E::IsNotNull(x.clone())),
        E::IsNotNull(x) => printed(&E::IsNull(x.clone())),
        E::Identifier(_) | E::CompoundIdentifier(_) | E::Function(_) => {
            let mut out = String::new();
            write(e, Precedence::Comparison, &mut out);
            out.push_str(" = 0");
            (out, Precedence::Comparison)
        }
        _ => negation(e),
    }
}

/// `NOT e` as an expression, for De Morgan's rewriting.
fn not_expr(e: &ast::Expr) -> ast::Expr {
    ast::Expr::UnaryOp {
        op: ast::UnaryOperator::Not,
        expr: Box::new(e.clone()),
    }
}

fn negation(e: &ast::Expr) -> (String, Precedence) {
    let mut out = String::from("!");
    write(e, Precedence::Highest, &mut out);
    (out, Precedence::Negate)
}

fn list(items: &[ast::Expr]) -> String {
    items.iter().map(print).collect::<Vec<_>>().join(",")
}

fn printed(e: &ast::Expr) -> (String, Precedence) {
    use ast::Expr as E;
    use Precedence as P;
    let mut out = String::new();
    let precedence = match e {
        E::Identifier(i) => {
            out = format!("`{}`", i.value.replace('`', "``"));
            P::Highest
        }
        E::CompoundIdentifier(parts) => {
            let name = parts.last().map_or("", |i| i.value.as_str());
            out = format!("`{}`", name.replace('`', "``"));
            P::Highest
        }
        E::Nested(inner) => return printed(inner),
        E::Value(v) => {
            out = match &v.value {
                ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
                    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
                }
                ast::Value::Boolean(b) => u8::from(*b).to_string(),
                ast::Value::Null => "NULL".into(),
                other => other.to_string(),
            };
            P::Highest
        }
        E::BinaryOp { left, op, right } => match operator(op) {
            Some((text, precedence)) => {
                write(left, precedence, &mut out);
                out.push(' ');
                out.push_str(text);
                out.push(' ');
                write(right, precedence.next(), &mut out);
                precedence
            }
            None => return (e.to_string(), P::Lowest),
        },
        E::UnaryOp {
            op: ast::UnaryOperator::Not,
            expr,
        } => return not(expr),
        E::UnaryOp {
            op: ast::UnaryOperator::Minus,
            expr,
        } => {
            out.push('-');
            write(expr, P::Negate, &mut out);
            P::Negate
        }
        E::UnaryOp {
            op: ast::UnaryOperator::Plus,
            expr,
        } => return printed(expr),
        E::IsNull(x) | E::IsNotNull(x) => {
            write(x, P::Comparison, &mut out);
            out.push_str(if matches!(e, E::IsNull(_)) {
                " is null"
            } else {
                " is not null"
            });
            P::Comparison
        }
        E::Between {
            expr,
            negated,
            low,
            high,
        } => {
            write(expr, P::Between, &mut out);
            out.push_str(if *negated {
                " not between "
            } else {
                " between "
            });
            write(low, P::Between.next(), &mut out);
            out.push_str(" and ");
            write(high, P::Between.next(), &mut out);
            P::Between
        }
        E::InList {
            expr,
            list: items,
            negated,
        } => {
            write(expr, P::Comparison, &mut out);
            out.push_str(if *negated { " not in (" } else { " in (" });
            out.push_str(&list(items));
            out.push(')');
            P::Comparison
        }
        E::Like {
            negated,
            expr,
            pattern,
            escape_char: None,
            any: false,
        } => {
            write(expr, P::Comparison, &mut out);
            // MariaDB prints two spaces before NOT LIKE.
            out.push_str(if *negated { "  not like " } else { " like " });
            write(pattern, P::Comparison.next(), &mut out);
            P::Comparison
        }
        E::Substring {
            expr,
            substring_from,
            substring_for,
            ..
        } => {
            let parts: Vec<String> = std::iter::once(expr)
                .chain(substring_from)
                .chain(substring_for)
                .map(|x| print(x))
                .collect();
            out = format!("substr({})", parts.join(","));
            P::Highest
        }
        E::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            out.push_str("case ");
            if let Some(operand) = operand {
                out.push_str(&print(operand));
                out.push(' ');
            }
            for w in conditions {
                out.push_str(&format!(
                    "when {} then {} ",
                    print(&w.condition),
                    print(&w.result)
                ));
            }
            if let Some(e) = else_result {
                out.push_str(&format!("else {} ", print(e)));
            }
            out.push_str("end");
            P::Highest
        }
        E::Function(f) => match &f.args {
            ast::FunctionArguments::List(arguments)
                if arguments.duplicate_treatment.is_none() && arguments.clauses.is_empty() =>
            {
                let mut args = Vec::with_capacity(arguments.args.len());
                for a in &arguments.args {
                    match a {
                        ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x)) => {
                            args.push(print(x))
                        }
                        _ => return (e.to_string(), P::Lowest),
                    }
                }
                let name = f.name.to_string().to_lowercase();
                out = format!("{}({})", canonical_function(&name), args.join(","));
                P::Highest
            }
            ast::FunctionArguments::None => {
                out = f.name.to_string().to_lowercase();
                P::Highest
            }
            _ => return (e.to_string(), P::Lowest),
        },
        _ => return (e.to_string(), P::Lowest),
    };
    (out, precedence)
}

/// The name MariaDB prints a function call by: some are its synonyms' (`length` is
/// `octet_length`), the rest as written, in lower case.
fn canonical_function(name: &str) -> &str {
    match name {
        "length" => "octet_length",
        "upper" => "ucase",
        "lower" => "lcase",
        "substring" => "substr",
        "character_length" => "char_length",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn printed_as(sql: &str) -> String {
        print(&crate::parse::parse_expression(sql).expect("parses"))
    }

    /// MariaDB 10.11's SHOW CREATE TABLE text of each expression (from the server).
    #[test]
    fn prints_as_mariadb() {
        let cases = [
            ("a > 0", "`a` > 0"),
            ("c <> ''", "`c` <> ''"),
            ("a + b < 100", "`a` + `b` < 100"),
            (
                "a between 1 and 50 and b is not null or c in ('x', 'y')",
                "`a` between 1 and 50 and `b` is not null or `c` in ('x','y')",
            ),
            ("not (a = 3)", "`a` <> 3"),
            ("not a", "`a` = 0"),
            ("not (a > 1 and b > 1)", "`a` <= 1 or `b` <= 1"),
            ("a - (b - 1) > -a", "`a` - (`b` - 1) > -`a`"),
            (
                "a % 2 = 0 or a div 2 > 1 or a mod 3 = 1",
                "`a` MOD 2 = 0 or `a` DIV 2 > 1 or `a` MOD 3 = 1",
            ),
            (
                "c like 'x%' or c not like 'y%' or c not in ('a','b') or a not between 1 and 2",
                "`c` like 'x%' or `c`  not like 'y%' or `c` not in ('a','b') or `a` not between 1 and 2",
            ),
            (
                "a is null or b is not null or a <=> b or a != b",
                "`a` is null or `b` is not null or `a` <=> `b` or `a` <> `b`",
            ),
            (
                "coalesce(a, 0) >= 0 and ifnull(b,1) <> 0",
                "coalesce(`a`,0) >= 0 and ifnull(`b`,1) <> 0",
            ),
            ("a in (1, 2,3) xor b = 1", "`a` in (1,2,3) xor `b` = 1"),
            (
                "(a + b) * 2 > 1 and -a < 5 and a = TRUE",
                "(`a` + `b`) * 2 > 1 and -`a` < 5 and `a` = 1",
            ),
            ("c = \"dq\" and c <> 'it''s'", "`c` = 'dq' and `c` <> 'it\\'s'"),
            ("a > 1.50 and b < 1e3", "`a` > 1.50 and `b` < 1e3"),
        ];
        for (sql, expected) in cases {
            assert_eq!(printed_as(sql), expected, "{sql}");
        }
    }

    fn renamed(text: &str, old: &str, new: &str) -> Option<String> {
        rename_column(text, old, new).expect("stored text parses")
    }

    fn names(text: &str, name: &str) -> bool {
        names_column(text, name).expect("stored text parses")
    }

    #[test]
    fn rename_follows_identifiers_not_literals() {
        let cases = [
            ("`a` > 0", "a", "b", "`b` > 0"),
            // Case differs: column names match case-insensitively.
            ("`A` > 0 and `b` < `a`", "a", "z", "`z` > 0 and `b` < `z`"),
            ("`a` > 0", "A", "Z", "`Z` > 0"),
            // Quoted names, backquotes inside names.
            (
                "`my col` > 0 and `x` < 1",
                "MY COL",
                "new name",
                "`new name` > 0 and `x` < 1",
            ),
            (
                "`a``b` > 0 and `a` > 1",
                "a`b",
                "c`d",
                "`c``d` > 0 and `a` > 1",
            ),
            ("`a` > 0", "a", "order", "`order` > 0"),
            // Literals naming the column, with escaped quotes, stay as they are.
            (
                "`c` <> 'x\\'c' and `c` > 0",
                "c",
                "d",
                "`d` <> 'x\\'c' and `d` > 0",
            ),
            (
                "`c` <> '`c`' and `c` not in ('c','\\'`c`\\'')",
                "c",
                "d",
                "`d` <> '`c`' and `d` not in ('c','\\'`c`\\'')",
            ),
            (
                "`c` like 'a\\\\' or `c` = 'c'",
                "c",
                "d",
                "`d` like 'a\\\\' or `d` = 'c'",
            ),
            // Nested expressions, function arguments, qualified names.
            (
                "(`a` + `b`) * 2 > 1 and coalesce(`a`,0) between -`a` and 2 or `a` in (1,`a`)",
                "a",
                "z",
                "(`z` + `b`) * 2 > 1 and coalesce(`z`,0) between -`z` and 2 or `z` in (1,`z`)",
            ),
            ("`t`.`a` > 0", "a", "b", "`b` > 0"),
        ];
        for (text, old, new, expected) in cases {
            assert_eq!(renamed(text, old, new).as_deref(), Some(expected), "{text}");
            assert!(names(expected, new), "{expected}");
            assert!(!names(expected, old), "{expected} names {old}");
        }
    }

    #[test]
    fn rename_leaves_other_constraints_alone() {
        for (text, old) in [
            ("`a` > 'b'", "b"),
            ("`c` <> 'x\\'c'", "x"),
            ("`d` <> 'x\\'c and `c`'", "c"),
            ("`ab` > 0", "a"),
        ] {
            assert_eq!(renamed(text, old, "new"), None, "{text}");
            assert!(!names(text, old), "{text}");
        }
    }

    /// Forms `print` leaves to sqlparser keep the new name quoted.
    #[test]
    fn rename_in_forms_print_does_not_know() {
        let text = printed_as("case when a > 0 then a else 0 end = 1 or a regexp 'a'");
        let after = renamed(&text, "a", "order by").expect("names a");
        assert!(names(&after, "order by"), "{after}");
        assert!(!names(&after, "a"), "{after}");
    }

    /// What `print` writes parses back to what it prints (dumps restore).
    #[test]
    fn printed_text_reparses_to_itself() {
        for sql in [
            "a > 0 and (b < 1 or c = 'x')",
            "not (a = 3)",
            "a - (b - 1) > -a",
        ] {
            let once = printed_as(sql);
            assert_eq!(printed_as(&once), once, "{sql}");
        }
    }
}
