//! Common table expressions: `WITH [RECURSIVE] name [(column, ...)] AS (query), ... query`.
//!
//! A CTE is a named derived table: every reference to it in the query after the WITH
//! clause (and in later CTEs, subqueries and derived tables inside it) is a FROM source
//! whose rows its plan makes (join invariant (6)). MariaDB 10.11's rules, as checked
//! against it: names in one WITH clause are unique (4004); a column list must match the
//! query's width (4002); a CTE sees the CTEs before it, not itself or later ones unless
//! RECURSIVE; a qualified name `db.t` never names a CTE; a CTE nobody reads is still
//! bound, so its errors are reported.
//!
//! A recursive CTE's query is a UNION [ALL] chain of anchors (parts that do not read it)
//! followed by recursive parts (that do). Its column types are the anchors'; each
//! iteration runs every recursive part over the rows the previous one added (the work
//! table), stores their values into those types (strict mode: 1406 as MariaDB) and adds
//! them (without duplicates under UNION DISTINCT), until an iteration adds none or
//! `max_recursive_iterations` is reached (warning 1931). Restrictions (4008): a
//! recursive part may not aggregate, read the CTE in a subquery or on the inner side of
//! an outer join; ORDER BY/LIMIT over the whole CTE query is 1235 as in MariaDB.
//!
//! Invariants:
//! (1) Each CTE is bound once, where the WITH clause is, in text order (so `?`s are
//!     numbered in text order, expr::bind's invariant); a reference clones its plan.
//! (2) A recursive part reads the work table through `Plan::WorkTable`, whose rows belong
//!     to the run (`exec`), never to the plan, which prepared statements share.
//!
//! Not built (1235): a CTE of a RECURSIVE WITH that names a later one (mutual recursion),
//! and an anchor after a recursive part.

use crate::error::{Error, ErrorCode, Result};
use crate::plan::{Plan, RecursiveCte};
use crate::select::{self, BindContext, SelectPlan};
use crate::sink::ColumnInfo;
use sqlparser::ast;
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicU64, Ordering};

/// The CTEs a query block sees: those of one WITH clause bound so far, then the
/// enclosing queries' (`parent`).
pub struct CteScope<'a> {
    with: &'a ast::With,
    /// The bound CTEs of `with`, in order; a CTE's own query sees only those before it.
    bound: &'a RefCell<Vec<SelectPlan>>,
    /// How many of `bound` this scope sees.
    visible: usize,
    /// The recursive CTE whose recursive parts are being bound.
    work: Option<&'a WorkTable>,
    parent: Option<&'a CteScope<'a>>,
}

/// A recursive CTE's reference to itself while its query binds.
pub struct WorkTable {
    name: String,
    id: u64,
    /// None while the anchors bind: a reference then marks a recursive part.
    columns: Option<Vec<ColumnInfo>>,
    /// The context of the part being bound: a reference from any other (a subquery)
    /// breaks the restrictions.
    part: Cell<usize>,
    /// The part being bound read the work table.
    referenced: Cell<bool>,
}

/// Work-table ids, unique in the process so nested recursive CTEs never share rows.
static NEXT_WORK_TABLE: AtomicU64 = AtomicU64::new(1);

/// The error a reference to the CTE raises while its anchors bind (never seen by a
/// client: `bind_recursive` turns it into "this part is recursive").
fn recursive_marker() -> Error {
    Error::new(
        ErrorCode::NotStandardCompliantRecursive,
        "\u{1}recursive part",
    )
}

fn restrictions_violated(name: &str) -> Error {
    Error::new(
        ErrorCode::NotStandardCompliantRecursive,
        format!("Restrictions imposed on recursive definitions are violated for table '{name}'"),
    )
}

/// Binds `query` (which has a WITH clause): its CTEs in order, then its body with them
/// in scope.
pub fn bind_with(query: &ast::Query, with: &ast::With, cx: &BindContext) -> Result<SelectPlan> {
    let bound = RefCell::new(Vec::with_capacity(with.cte_tables.len()));
    // The tables the CTEs read, even unread ones: DDL on them re-binds a prepared
    // statement as it would fail or change.
    let mut tables = Vec::new();
    for (i, cte) in with.cte_tables.iter().enumerate() {
        let name = &cte.alias.name.value;
        if with.cte_tables[..i]
            .iter()
            .any(|c| &c.alias.name.value == name)
        {
            return Err(Error::new(
                ErrorCode::DupQueryName,
                format!("Duplicate query name `{name}` in WITH clause"),
            ));
        }
        let scope = CteScope {
            with,
            bound: &bound,
            visible: i,
            work: None,
            parent: cx.ctes,
        };
        let inner = cx.for_cte(&scope);
        let mut plan = if with.recursive {
            bind_recursive(cte, &scope, &inner)?
        } else {
            select::bind_select(&cte.query, &inner)?
        };
        rename_columns(&mut plan, &cte.alias.columns)?;
        tables.extend(plan.tables.iter().cloned());
        bound.borrow_mut().push(plan);
    }
    let scope = CteScope {
        with,
        bound: &bound,
        visible: with.cte_tables.len(),
        work: None,
        parent: cx.ctes,
    };
    let mut plan = select::bind_body(query, &cx.for_cte_body(&scope))?;
    plan.tables.extend(tables);
    Ok(plan)
}

/// `WITH c (x, y) AS ...`: the columns take the listed names.
fn rename_columns(plan: &mut SelectPlan, names: &[ast::TableAliasColumnDef]) -> Result<()> {
    if names.is_empty() {
        return Ok(());
    }
    if names.len() != plan.columns.len() {
        return Err(Error::new(
            ErrorCode::WithColWrongList,
            "WITH column list and SELECT field list have different column counts",
        ));
    }
    let mut columns: Vec<ColumnInfo> = plan.columns.iter().cloned().collect();
    for (column, name) in columns.iter_mut().zip(names) {
        column.name = name.name.value.clone();
    }
    plan.columns = columns.into();
    Ok(())
}

/// The plan of the CTE `name` if `cx` sees one by that name (None: a table's name).
pub fn reference(cx: &BindContext, name: &str) -> Result<Option<SelectPlan>> {
    let mut scope = cx.ctes;
    while let Some(s) = scope {
        if let Some(work) = s.work.filter(|w| w.name == name) {
            return work_reference(cx, work).map(Some);
        }
        let position = s
            .with
            .cte_tables
            .iter()
            .position(|c| c.alias.name.value == name);
        match position {
            Some(i) if i < s.visible => return Ok(Some(s.bound.borrow()[i].clone())),
            Some(i) if s.with.recursive && i > s.visible => {
                return Err(Error::not_supported(
                    "a recursive WITH element referring to a later one",
                ))
            }
            _ => {}
        }
        scope = s.parent;
    }
    Ok(None)
}

fn work_reference(cx: &BindContext, work: &WorkTable) -> Result<SelectPlan> {
    let Some(columns) = &work.columns else {
        return Err(recursive_marker());
    };
    if std::ptr::from_ref(cx) as usize != work.part.get() || cx.outer.is_some() {
        return Err(restrictions_violated(&work.name));
    }
    work.referenced.set(true);
    Ok(SelectPlan {
        plan: Plan::WorkTable { id: work.id },
        columns: columns.clone().into(),
        tables: Vec::new(),
        locking: None,
        scans: Default::default(),
        calc_found_rows: false,
    })
}

/// Whether `plan` is a recursive CTE's reference to itself (join: 4008 on the inner side
/// of an outer join).
pub fn is_work_table(plan: &Plan) -> bool {
    matches!(plan, Plan::WorkTable { .. })
}

/// The 4008 error for a work table read where MariaDB forbids it.
pub fn work_table_misplaced(alias: &str) -> Error {
    restrictions_violated(alias)
}

/// The UNION operands of a recursive CTE's query, in text order, and whether every
/// UNION is ALL.
fn union_parts<'q>(body: &'q ast::SetExpr, parts: &mut Vec<&'q ast::SetExpr>, all: &mut bool) {
    match body {
        ast::SetExpr::SetOperation {
            op: ast::SetOperator::Union,
            set_quantifier,
            left,
            right,
        } => {
            *all &= matches!(set_quantifier, ast::SetQuantifier::All);
            union_parts(left, parts, all);
            union_parts(right, parts, all);
        }
        other => parts.push(other),
    }
}

fn bind_recursive(cte: &ast::Cte, scope: &CteScope, cx: &BindContext) -> Result<SelectPlan> {
    let name = cte.alias.name.value.clone();
    let query = &cte.query;
    let mut parts = Vec::new();
    let mut all = true;
    union_parts(&query.body, &mut parts, &mut all);
    let probe = WorkTable {
        name: name.clone(),
        id: 0,
        columns: None,
        part: Cell::new(0),
        referenced: Cell::new(false),
    };
    let probing = CteScope {
        work: Some(&probe),
        ..*scope
    };
    let probe_cx = cx.for_cte(&probing);
    let start = cx.parameters.count();
    // Anchors: the parts before the first that reads the CTE.
    let mut anchors: Vec<SelectPlan> = Vec::new();
    let mut first_recursive = parts.len();
    for (i, part) in parts.iter().enumerate() {
        let part_start = cx.parameters.count();
        match crate::set_operation::bind_set_expr(part, &probe_cx) {
            Ok(plan) => anchors.push(plan),
            Err(e) if e == recursive_marker() => {
                cx.parameters.rewind(part_start);
                first_recursive = i;
                break;
            }
            Err(e) => return Err(e),
        }
    }
    if first_recursive == parts.len() {
        // No part reads the CTE: an ordinary one.
        cx.parameters.rewind(start);
        return select::bind_select(query, cx);
    }
    if anchors.is_empty() {
        return Err(Error::new(
            ErrorCode::RecursiveWithoutAnchors,
            format!("No anchors for recursive WITH element '{name}'"),
        ));
    }
    if query.order_by.is_some() || query.limit_clause.is_some() {
        return Err(Error::not_supported(
            "global ORDER_BY/LIMIT in recursive CTE spec",
        ));
    }
    let mut anchors = anchors.into_iter();
    let mut anchor = anchors.next().expect("checked: not empty");
    for right in anchors {
        // Duplicates go where the recursive parts' do (`all`), in the run.
        anchor =
            crate::set_operation::combine(crate::plan::SetOperator::Union, true, anchor, right)?;
    }
    rename_columns(&mut anchor, &cte.alias.columns)?;
    let work = WorkTable {
        name: name.clone(),
        id: NEXT_WORK_TABLE.fetch_add(1, Ordering::Relaxed),
        columns: Some(anchor.columns.iter().cloned().collect()),
        part: Cell::new(0),
        referenced: Cell::new(false),
    };
    let recursive_scope = CteScope {
        work: Some(&work),
        ..*scope
    };
    let mut steps = Vec::new();
    let mut tables = anchor.tables.clone();
    for part in &parts[first_recursive..] {
        let part_cx = cx.for_cte(&recursive_scope);
        work.part.set(std::ptr::from_ref(&part_cx) as usize);
        work.referenced.set(false);
        let plan = crate::set_operation::bind_set_expr(part, &part_cx)?;
        if !work.referenced.get() {
            return Err(Error::not_supported(
                "an anchor after a recursive part of a WITH element",
            ));
        }
        if plan.columns.len() != anchor.columns.len() {
            return Err(Error::new(
                ErrorCode::WrongNumberOfColumnsInSelect,
                "The used SELECT statements have a different number of columns",
            ));
        }
        if plan
            .plan
            .block_has(&|p| matches!(p, Plan::Aggregate { .. }))
        {
            return Err(restrictions_violated(&name));
        }
        tables.extend(plan.tables.iter().cloned());
        steps.push((
            plan.plan,
            plan.columns.iter().map(|c| c.data_type.clone()).collect(),
        ));
    }
    let columns: Vec<ColumnInfo> = anchor.columns.iter().cloned().collect();
    Ok(SelectPlan {
        scans: anchor.scans,
        plan: Plan::Recursive(Box::new(RecursiveCte {
            id: work.id,
            all,
            names: columns.iter().map(|c| c.name.clone()).collect(),
            types: columns.iter().map(|c| c.data_type.clone()).collect(),
            anchor: anchor.plan,
            steps,
        })),
        columns: columns.into(),
        tables,
        locking: None,
        calc_found_rows: false,
    })
}
