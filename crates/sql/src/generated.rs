//! Generated columns (`c type [GENERATED ALWAYS] AS (expr) [VIRTUAL | PERSISTENT | STORED]`):
//! their definition checks, their binding against a table's row, and the values a write
//! computes into the row.
//!
//! Storage keeps the expression as its printed text (`manycore_storage::GeneratedColumn`,
//! printed by `check::print`, MariaDB's canonical form); a write statement's plan binds
//! them once (`bind`), so executions parse nothing.
//!
//! Invariants:
//! (1) Every row handed to storage holds each generated column's value as computed from
//!     that row and stored as an INSERT stores a value into the column (`fill`), VIRTUAL
//!     ones too: rows live in memory, so reading a VIRTUAL column costs nothing extra and
//!     an index on one is an index on a stored value. Writes call `fill` after every other
//!     column of the row is final (defaults, AUTO_INCREMENT, ON UPDATE) and before its
//!     CHECK constraints, so a CHECK reads the computed values.
//! (2) A generated column is computed in column order and may only read base columns and
//!     earlier generated columns (4029 otherwise), so one pass in order is enough.
//! (3) A value other than DEFAULT written to one is 1906: an error in strict mode without
//!     IGNORE, else a warning and the value ignored (`written`).
//! (4) A table without generated columns binds an empty list (no allocation) and every
//!     write checks only that it is empty.
//! (5) Expressions whose value can change between evaluations (RAND(), NOW(), @var, ...)
//!     are 1901 for a STORED or indexed column, as in MariaDB. MariaDB evaluates them on
//!     every read of a plain VIRTUAL column; manycore keeps the value in the row, so it
//!     refuses them there with 1235 rather than answer differently.
//! (6) Foreign keys: a cascade that changes a child row refills it (`fill`) before writing
//!     it (`foreign_key::Enforcer`); a STORED column may not read a column a key's ON
//!     UPDATE CASCADE / SET NULL or ON DELETE SET NULL writes (1901, `validate`, run again
//!     after ALTER adds keys), nor a key with those actions cover a generated column (1905,
//!     `foreign_key::declare`). ALTER may not switch a column to or from VIRTUAL (1907).
//!
//! Not built: 1901 for ON ... SET DEFAULT keys (stored as RESTRICT, so `validate` cannot
//! see them), and 1905 for a column-level REFERENCES on a generated column.

use crate::error::{Error, ErrorCode, Result};
use crate::expr::{self, EvalContext, Expr};
use crate::scope::{BindScope, Parameters};
use manycore_storage::{ColumnSchema, Table, TableSchema};
use manycore_types::Value;
use sqlparser::ast;
use std::ops::ControlFlow;
use std::sync::Arc;

/// A generated column bound against its table's row (offset 0).
#[derive(Clone, Debug)]
pub struct BoundGenerated {
    pub column: usize,
    pub expr: Expr,
}

/// The clause 1054 and 1901 name.
const CLAUSE: &str = "GENERATED ALWAYS AS";

/// The generated columns of `table`, bound in column order; empty (no allocation)
/// without any (invariant (4)).
pub fn bind(table: &Arc<Table>) -> Result<Vec<BoundGenerated>> {
    let columns = &table.schema.columns;
    if columns.iter().all(|c| c.generated.is_none()) {
        return Ok(Vec::new());
    }
    let sources = crate::check::own_row(table.db(), table);
    let parameters = Parameters::untyped();
    let mut scope = BindScope::new(&sources, CLAUSE, &parameters);
    let mut bound = Vec::new();
    for (column, c) in columns.iter().enumerate() {
        if let Some(g) = &c.generated {
            scope.definition = Some(&c.name);
            let parsed = crate::parse::parse_expression(&g.expression)?;
            bound.push(BoundGenerated {
                column,
                expr: scope.bind(&parsed)?,
            });
        }
    }
    Ok(bound)
}

/// Invariant (1): computes every generated column of `row` from its other columns.
/// `row_number` is the statement's row, for the messages of a value the column's type
/// cannot hold (1264 in strict mode, as in MariaDB; else a warning).
pub fn fill(
    generated: &[BoundGenerated],
    schema: &TableSchema,
    row: &mut [Value],
    row_number: u64,
    strict: bool,
    eval: &EvalContext,
) -> Result<()> {
    for g in generated {
        let value = g.expr.eval(row, eval)?;
        let column = &schema.columns[g.column];
        let name = || column.name.clone();
        row[g.column] = crate::dml::store(
            value,
            column,
            &name,
            row_number,
            strict,
            false,
            eval.session,
        )?;
    }
    Ok(())
}

/// Invariant (3): a write of a value other than DEFAULT to `column` of `table`. Ok(())
/// means the value is ignored (after the warning).
pub fn written(
    column: &ColumnSchema,
    table: &str,
    strict: bool,
    session: &dyn expr::SessionContext,
) -> Result<()> {
    let e = Error::new(
        ErrorCode::NonDefaultValueForGeneratedColumn,
        format!(
            "The value specified for generated column '{}' in table '{table}' has been ignored",
            column.name
        ),
    );
    if strict {
        return Err(e);
    }
    session.warn(e.code, e.message);
    Ok(())
}

/// The generated column of a definition's options, its expression printed as MariaDB
/// prints it.
pub fn definition(options: &[ast::ColumnOptionDef]) -> Option<manycore_storage::GeneratedColumn> {
    options.iter().find_map(|o| match &o.option {
        ast::ColumnOption::Generated {
            generation_expr: Some(e),
            generation_expr_mode,
            ..
        } => Some(manycore_storage::GeneratedColumn {
            expression: crate::check::print(e),
            stored: *generation_expr_mode == Some(ast::GeneratedExpressionMode::Stored),
        }),
        _ => None,
    })
}

/// Checks a schema's generated columns as CREATE TABLE and ALTER TABLE do: the functions
/// they call (1901, invariant (5)), the columns they read (1054; 4029, invariant (2); an
/// AUTO_INCREMENT one from a STORED column, 1901), and keys (1903 for a primary key).
pub fn validate(schema: &TableSchema) -> Result<()> {
    if schema.columns.iter().all(|c| c.generated.is_none()) {
        return Ok(());
    }
    if let Some(pk) = &schema.primary_key {
        if pk.iter().any(|&c| schema.columns[c].generated.is_some()) {
            return Err(Error::new(
                ErrorCode::PrimaryKeyOnGeneratedColumn,
                "Primary key cannot be defined upon a generated column",
            ));
        }
    }
    let table = Arc::new(Table::detached("", schema.clone()));
    let sources = crate::check::own_row("", &table);
    let parameters = Parameters::untyped();
    let mut scope = BindScope::new(&sources, CLAUSE, &parameters);
    for (position, column) in schema.columns.iter().enumerate() {
        let Some(g) = &column.generated else {
            continue;
        };
        scope.definition = Some(&column.name);
        let parsed = crate::parse::parse_expression(&g.expression)?;
        let indexed = schema.indexes.iter().any(|i| i.columns.contains(&position));
        if let Some((name, always)) = refused_function(&parsed) {
            if always || g.stored || indexed {
                return Err(not_allowed(&name, &column.name));
            }
            return Err(Error::not_supported(&format!(
                "{name} in a VIRTUAL column (its value is kept in the row)"
            )));
        }
        let bound = scope.bind(&parsed)?;
        let mut read = Vec::new();
        crate::dml::visit_columns(&bound, &mut |c| read.push(c.index));
        for c in read {
            let other = &schema.columns[c];
            if other.generated.is_some() && c >= position {
                return Err(Error::new(
                    ErrorCode::ExpressionRefersToUninitField,
                    format!(
                        "Expression for field `{}` is referring to uninitialized field `{}`",
                        column.name, other.name
                    ),
                ));
            }
            if other.auto_increment && g.stored {
                return Err(not_allowed("AUTO_INCREMENT", &other.name));
            }
            if g.stored && crate::foreign_key::written_by_actions(schema, c) {
                return Err(not_allowed(&other.name, &column.name));
            }
        }
    }
    Ok(())
}

/// 1907: ALTER TABLE MODIFY/CHANGE may not turn a column into a VIRTUAL one or a VIRTUAL
/// one into any other (STORED or plain); MariaDB does not support either, while STORED
/// and plain columns turn into each other.
pub fn check_redefinition(was: &ColumnSchema, now: &ColumnSchema) -> Result<()> {
    let is_virtual = |c: &ColumnSchema| c.generated.as_ref().is_some_and(|g| !g.stored);
    if is_virtual(was) != is_virtual(now) {
        return Err(Error::new(
            ErrorCode::UnsupportedActionOnGeneratedColumn,
            "This is not yet supported for generated columns",
        ));
    }
    Ok(())
}

fn not_allowed(what: &str, column: &str) -> Error {
    Error::not_allowed_in_clause(what, CLAUSE, column)
}

/// The first part of `e` a generated column may not hold, as 1901 names it, and whether
/// it is refused in every column (a subquery, an aggregate) rather than only in a STORED
/// or indexed one (a value that can change between evaluations).
fn refused_function(e: &ast::Expr) -> Option<(String, bool)> {
    let mut refused = None;
    let _ = ast::visit_expressions(e, |e| {
        refused = match e {
            ast::Expr::Subquery(_) | ast::Expr::Exists { .. } | ast::Expr::InSubquery { .. } => {
                Some(("select ...".to_string(), true))
            }
            ast::Expr::MatchAgainst { .. } => Some(("match ... against()".to_string(), true)),
            ast::Expr::Identifier(i) if i.value.starts_with('@') => Some((i.value.clone(), false)),
            ast::Expr::Function(f) => {
                let name = f.name.to_string().to_ascii_lowercase();
                let no_arguments = match &f.args {
                    ast::FunctionArguments::List(list) => list.args.is_empty(),
                    _ => true,
                };
                if AGGREGATES.contains(&name.as_str()) {
                    Some((format!("{name}()"), true))
                } else {
                    changing_name(&name, no_arguments).map(|n| (format!("{n}()"), false))
                }
            }
            _ => None,
        };
        match refused {
            Some(_) => ControlFlow::Break(()),
            None => ControlFlow::Continue(()),
        }
    });
    refused
}

const AGGREGATES: &[&str] = &[
    "count",
    "sum",
    "avg",
    "min",
    "max",
    "group_concat",
    "bit_and",
    "bit_or",
    "bit_xor",
    "std",
    "stddev",
    "stddev_pop",
    "stddev_samp",
    "variance",
    "var_pop",
    "var_samp",
    "json_arrayagg",
    "json_objectagg",
];

/// MariaDB's name of a function whose value can change between calls with the same
/// arguments (UNIX_TIMESTAMP only without any).
fn changing_name(name: &str, no_arguments: bool) -> Option<&'static str> {
    Some(match name {
        "now" | "current_timestamp" | "localtime" | "localtimestamp" => "current_timestamp",
        "curdate" | "current_date" => "curdate",
        "curtime" | "current_time" => "curtime",
        "unix_timestamp" if no_arguments => "unix_timestamp",
        "sysdate" => "sysdate",
        "utc_timestamp" => "utc_timestamp",
        "utc_date" => "utc_date",
        "utc_time" => "utc_time",
        "rand" => "rand",
        "uuid" => "uuid",
        "uuid_short" => "uuid_short",
        "connection_id" => "connection_id",
        "user" | "session_user" | "system_user" => "user",
        "current_user" => "current_user",
        "database" | "schema" => "database",
        "last_insert_id" => "last_insert_id",
        "found_rows" => "found_rows",
        "row_count" => "row_count",
        "sleep" => "sleep",
        "get_lock" => "get_lock",
        "release_lock" => "release_lock",
        "release_all_locks" => "release_all_locks",
        "is_free_lock" => "is_free_lock",
        "is_used_lock" => "is_used_lock",
        "version" => "version",
        _ => return None,
    })
}
