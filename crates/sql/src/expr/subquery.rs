//! Subqueries in expressions: `(SELECT ...)`, `[NOT] EXISTS (...)`, `x [NOT] IN (...)` and
//! `x op ANY|SOME|ALL (...)`, bound to a plan that runs when the expression is evaluated.
//!
//! A subquery's names resolve in its own FROM first, then in the enclosing queries' rows,
//! innermost first (`Scope::resolve_outer`): such a column is an `Expr::OuterColumn`,
//! read from `EvalContext::outer`, and makes the subquery (and every subquery around it
//! up to the query the column belongs to) correlated.
//!
//! Invariants:
//! (1) An uncorrelated subquery runs at most once per execution of its statement: the
//!     `SubqueryRunner` of that execution keeps its rows (never the plan, which prepared
//!     statements and the plan cache share between executions).
//! (2) A correlated subquery runs again for every outer row that evaluates it, with that
//!     row pushed onto `EvalContext::outer`.
//! (3) `x IN (...)` is `x = ANY (...)` and `x NOT IN (...)` is `x <> ALL (...)`: SQL's
//!     three-valued answer (NULL when no comparison decides and one is unknown).
//! (4) Evaluation without a runner (a DEFAULT, a SET statement) is error 1235: binding allows
//!     subqueries only where statements run plans.

use super::eval::{bool_value, comparison_holds};
use super::{BinaryOp, EvalContext, Expr};
use crate::error::{Error, ErrorCode, Result};
use crate::plan::Plan;
use manycore_types::{DataType, Value};
use std::rc::Rc;
use std::sync::Arc;

/// A bound subquery and what its expression makes of the rows.
#[derive(Clone, Debug)]
pub struct Subquery {
    pub plan: Arc<Plan>,
    pub kind: SubqueryKind,
    /// Type of the (first) result column.
    pub column_type: DataType,
    /// The (first) result column is JSON (`ColumnInfo::holds_json`).
    pub holds_json: bool,
    /// Reads a row of an enclosing query (invariant (2)).
    pub correlated: bool,
}

/// Two nodes are equal when they are the same bound subquery (GROUP BY matching).
impl PartialEq for Subquery {
    fn eq(&self, other: &Subquery) -> bool {
        Arc::ptr_eq(&self.plan, &other.plan) && self.kind == other.kind
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum SubqueryKind {
    /// The single value of at most one row (NULL for none; more rows: error 1242).
    Scalar,
    Exists {
        negated: bool,
    },
    /// `operand op ANY (...)`, or `ALL` (invariant (3)).
    Quantified {
        operand: Box<Expr>,
        op: BinaryOp,
        all: bool,
    },
}

/// The rows of the queries enclosing a correlated subquery, innermost first.
#[derive(Clone, Copy)]
pub struct OuterRow<'a> {
    pub row: &'a [Value],
    pub parent: Option<&'a OuterRow<'a>>,
}

/// A subquery's result rows, shared between the runner's cache and its callers.
pub type SubqueryRows = Rc<Vec<Vec<Value>>>;

/// Runs subqueries' plans for one execution of a statement (invariant (1)).
pub trait SubqueryRunner {
    /// The rows of `subquery`, at most `limit` of them, with `ctx.outer` the rows of the
    /// enclosing queries.
    fn rows(&self, subquery: &Subquery, limit: usize, ctx: &EvalContext) -> Result<SubqueryRows>;

    /// The statistics of `search` looking for `text` in this execution (fulltext
    /// invariant (2)).
    fn fulltext(
        &self,
        search: &super::fulltext::FulltextMatch,
        text: &[u8],
    ) -> Result<Rc<super::fulltext::Statistics>>;

    /// The view this execution reads, and its process entry (for KILL): a stored
    /// function's body reads with them (`routine`).
    fn reading(&self) -> (manycore_storage::ReadView, &crate::engine::ProcessEntry);
}

pub fn one_column_error() -> Error {
    Error::new(
        ErrorCode::OperandColumns,
        "Operand should contain 1 column(s)",
    )
}

impl Subquery {
    pub fn data_type(&self) -> DataType {
        match self.kind {
            SubqueryKind::Scalar => self.column_type.clone(),
            _ => super::BOOL_TYPE,
        }
    }

    pub fn nullable(&self) -> bool {
        !matches!(self.kind, SubqueryKind::Exists { .. })
    }

    pub fn eval(&self, row: &[Value], ctx: &EvalContext) -> Result<Value> {
        let Some(runner) = ctx.subqueries else {
            return Err(Error::not_supported("subqueries here"));
        };
        let outer = OuterRow {
            row,
            parent: ctx.outer,
        };
        let inner = EvalContext {
            outer: Some(&outer),
            ..*ctx
        };
        // Scalar needs a second row only to report it; EXISTS needs one.
        let limit = match self.kind {
            SubqueryKind::Scalar => 2,
            SubqueryKind::Exists { .. } => 1,
            SubqueryKind::Quantified { .. } => usize::MAX,
        };
        let rows = runner.rows(self, limit, &inner)?;
        match &self.kind {
            SubqueryKind::Scalar => match rows.as_slice() {
                [] => Ok(Value::Null),
                [one] => Ok(one.first().cloned().unwrap_or(Value::Null)),
                _ => Err(Error::new(
                    ErrorCode::SubqueryNoOneRow,
                    "Subquery returns more than 1 row",
                )),
            },
            SubqueryKind::Exists { negated } => Ok(bool_value(rows.is_empty() == *negated)),
            SubqueryKind::Quantified { operand, op, all } => {
                if rows.is_empty() {
                    return Ok(bool_value(*all));
                }
                let value = operand.eval(row, ctx)?;
                let value_type = operand.data_type();
                let mut unknown = false;
                for candidate in rows.iter() {
                    let Some(candidate) = candidate.first() else {
                        continue;
                    };
                    let ordering = super::coerce::compare(
                        &value,
                        &value_type,
                        candidate,
                        &self.column_type,
                        ctx.session,
                    );
                    match ordering.map(|o| comparison_holds(*op, o)) {
                        // ANY is decided by a true comparison, ALL by a false one.
                        Some(holds) if holds != *all => return Ok(bool_value(holds)),
                        Some(_) => {}
                        None => unknown = true,
                    }
                }
                Ok(if unknown {
                    Value::Null
                } else {
                    bool_value(*all)
                })
            }
        }
    }
}

/// `Expr::OuterColumn`: column `index` of the enclosing row `depth` levels out.
pub fn outer_value(depth: usize, index: usize, ctx: &EvalContext) -> Result<Value> {
    let mut outer = ctx.outer;
    for _ in 1..depth {
        outer = outer.and_then(|o| o.parent);
    }
    outer
        .and_then(|o| o.row.get(index))
        .cloned()
        .ok_or_else(|| {
            Error::new(
                ErrorCode::UnknownError,
                format!("outer column {index} at depth {depth} is outside the enclosing rows"),
            )
        })
}
