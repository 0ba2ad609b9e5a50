//! Binding UNION, INTERSECT and EXCEPT, and the ORDER BY / LIMIT of a parenthesised query
//! or a set operation, which apply to its result rows (`plan::SetOperation` runs them).
//!
//! MySQL's rules (MariaDB 10.11), in brief: INTERSECT binds tighter than UNION and EXCEPT,
//! which associate to the left (sqlparser builds the tree so); no quantifier means
//! DISTINCT; the result's column names are the first operand's, each column's type is
//! the aggregate of the operands' types (as CASE's branches, `function::aggregate_types`);
//! an ORDER BY over the result names its columns by those names or by position.
//!
//! Invariants:
//! (1) Both operands of a set operation have the result's width; a different width is
//!     error 1222 at bind time.
//! (2) Operands bind left to right, then the ORDER BY and LIMIT after them, so `?`s are
//!     numbered in text order (expr::bind's invariant).

use crate::error::{Error, ErrorCode, Result};
use crate::expr::{function::aggregate_types, ColumnRef};
use crate::plan::{Count, Plan, SetOperation, SetOperator};
use crate::scope::{Alias, BindScope};
use crate::select::{self, BindContext, SelectPlan};
use crate::sink::ColumnInfo;
use sqlparser::ast;

/// Binds one operand of a set operation, or the body of a parenthesised query.
pub fn bind_set_expr(body: &ast::SetExpr, cx: &BindContext) -> Result<SelectPlan> {
    match body {
        ast::SetExpr::Select(select) => select::bind_query_block(select, None, &None, None, cx),
        ast::SetExpr::Query(query) => select::bind_select(query, cx),
        ast::SetExpr::SetOperation {
            op,
            set_quantifier,
            left,
            right,
        } => {
            let operator = match op {
                ast::SetOperator::Union => SetOperator::Union,
                ast::SetOperator::Intersect => SetOperator::Intersect,
                ast::SetOperator::Except | ast::SetOperator::Minus => SetOperator::Except,
            };
            let all = match set_quantifier {
                ast::SetQuantifier::All => true,
                ast::SetQuantifier::Distinct | ast::SetQuantifier::None => false,
                _ => return Err(Error::not_supported("set operations BY NAME")),
            };
            let left = bind_set_expr(left, cx)?;
            let right = bind_set_expr(right, cx)?;
            combine(operator, all, left, right)
        }
        _ => Err(Error::not_supported("VALUES and TABLE as queries")),
    }
}

/// `left operator right`, its columns typed as the operands' aggregate.
pub fn combine(
    operator: SetOperator,
    all: bool,
    left: SelectPlan,
    right: SelectPlan,
) -> Result<SelectPlan> {
    if left.columns.len() != right.columns.len() {
        return Err(Error::new(
            ErrorCode::WrongNumberOfColumnsInSelect,
            "The used SELECT statements have a different number of columns",
        ));
    }
    let columns: Vec<ColumnInfo> = left
        .columns
        .iter()
        .zip(right.columns.iter())
        .map(|(l, r)| {
            let data_type = aggregate_types([&l.data_type, &r.data_type]);
            let mut info =
                ColumnInfo::expression(l.name.clone(), data_type, l.not_null && r.not_null);
            info.length = info.length.max(l.length).max(r.length);
            // JSON only if both sides are, as in MariaDB.
            info.holds_json = l.holds_json && r.holds_json;
            info
        })
        .collect();
    let types_of = |columns: &[ColumnInfo]| columns.iter().map(|c| c.data_type.clone()).collect();
    let mut tables = left.tables;
    tables.extend(right.tables);
    Ok(SelectPlan {
        scans: left.scans.or(right.scans),
        plan: Plan::SetOperation(Box::new(SetOperation {
            operator,
            all,
            left_types: types_of(&left.columns),
            right_types: types_of(&right.columns),
            types: types_of(&columns),
            left: left.plan,
            right: right.plan,
        })),
        columns: columns.into(),
        tables,
        calc_found_rows: false,
        locking: None,
    })
}

/// Applies `query`'s ORDER BY and LIMIT to `operand`, its already bound body: keys name
/// the result's columns (invariant (2): bound after the body).
pub fn order_and_limit(
    operand: SelectPlan,
    query: &ast::Query,
    cx: &BindContext,
) -> Result<SelectPlan> {
    let SelectPlan {
        mut plan,
        columns,
        tables,
        locking,
        scans,
        calc_found_rows: _,
    } = operand;
    if query.order_by.is_some() && select::is_rollup_block(&query.body) {
        return Err(select::rollup_and_order_by());
    }
    if let Some(order_by) = &query.order_by {
        let aliases: Vec<Alias> = columns
            .iter()
            .enumerate()
            .map(|(index, c)| Alias {
                name: c.name.clone(),
                column: ColumnRef::computed(index, c.data_type.clone(), !c.not_null),
            })
            .collect();
        let mut scope = BindScope::new(&[], "ORDER BY", cx.parameters);
        scope.aliases = &aliases;
        scope.aliases_first = true;
        let keys = select::bind_sort_keys(order_by, &scope)?;
        plan = Plan::Sort {
            input: Box::new(plan),
            keys,
            kept: None,
            distinct: false,
        };
    }
    let (offset, count) = select::bind_limit(&query.limit_clause, cx.parameters)?;
    if offset != Count::Value(0) || count.is_some() {
        plan = Plan::Limit {
            input: Box::new(plan),
            offset,
            count,
        };
    }
    Ok(SelectPlan {
        plan,
        columns,
        tables,
        locking: locking.or(crate::select::locking(query)?),
        scans,
        calc_found_rows: false,
    })
}
