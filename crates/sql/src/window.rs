//! Window functions: `f(...) OVER ([PARTITION BY ...] [ORDER BY ...] [frame])` in the
//! select list and ORDER BY, computed over the rows HAVING passed, before ORDER BY,
//! DISTINCT and LIMIT.
//!
//! Row layout: window values follow the aggregates, `[W][K][A][N]` (plan module notes).
//! A is known only once the whole query is bound (ORDER BY may add aggregates), so a
//! window call binds to a placeholder position `SLOT + i` and `remap` moves it to
//! `W + K + A + i` when binding is done. A query block with window functions runs as
//!
//! ```text
//!   Aggregate | Filter(WHERE) -> Compute(select items without windows) -> Filter(HAVING)
//!     -> Window -> Compute(select items with windows) -> Sort -> Project -> ...
//! ```
//!
//! Invariants:
//! (1) Partitions are the rows with equal PARTITION BY values by GROUP BY's rule
//!     (`exec::group_key`); NULLs form one partition.
//! (2) Rows whose ORDER BY values all compare equal (NULL equal to NULL) are peers. A
//!     RANGE frame's CURRENT ROW is the current row's whole peer group; without ORDER BY
//!     every row of a partition is a peer of every other. The default frame is RANGE
//!     BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW: the partition up to the last peer.
//! (3) A window's rows are sorted stably: peers keep their input order (the order of
//!     ROW_NUMBER among peers is unspecified, as in MariaDB).
//! (4) Queries without window functions pay nothing: no `Window` operator, no remap.
//! (5) A window's PARTITION BY and ORDER BY may name select-list aliases, as in MariaDB,
//!     even of later items: the reference reads the select value, made before the
//!     `Window` operator runs (4016 if a window function makes it). Names bind as table
//!     columns first, then as aliases, except that an ORDER BY item that is just a name is
//!     the alias first (MariaDB's ORDER BY rule). An alias's type is known only once its
//!     item is bound, so a select list whose windows name one binds twice: first with the
//!     aliases untyped, then typed by the first binding's items (`select::bind_select_list`).

use crate::error::{Error, ErrorCode, Result};
use crate::exec::{self, ExecContext, Flow};
use crate::expr::{self, Accumulator, AggregateCall, AggregateFunction, ColumnRef, Expr, Scope};
use crate::plan::Plan;
use manycore_types::{DataType, Value, NOT_FIXED_DECIMALS};
use sqlparser::ast;
use std::cell::{Cell, RefCell};
use std::cmp::Ordering;
use std::ops::ControlFlow;

/// Placeholder positions of window values while a query block binds (module notes).
pub const SLOT: usize = 1 << 48;

#[derive(Clone, Debug, PartialEq)]
pub enum WindowFunction {
    RowNumber,
    Rank,
    DenseRank,
    PercentRank,
    CumeDist,
    Ntile,
    Lag,
    Lead,
    FirstValue,
    LastValue,
    NthValue,
    Aggregate(AggregateCall),
}

/// A bound window function call.
#[derive(Clone, Debug, PartialEq)]
pub struct WindowCall {
    pub function: WindowFunction,
    /// LAG/LEAD/FIRST_VALUE/LAST_VALUE/NTH_VALUE: the value, then LAG's offset or
    /// NTH_VALUE's n; NTILE: the bucket count. An aggregate's argument is in its call.
    pub args: Vec<Expr>,
    pub window: Window,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    pub partition_by: Vec<Expr>,
    /// Expressions and whether each is DESC.
    pub order_by: Vec<(Expr, bool)>,
    pub frame: Frame,
}

impl Window {
    /// Whether `other` sorts and partitions rows as this one does.
    fn same_order(&self, other: &Window) -> bool {
        self.partition_by == other.partition_by && self.order_by == other.order_by
    }
}

/// ROWS or RANGE frame (invariant (2)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    pub rows: bool,
    pub start: FrameBound,
    pub end: FrameBound,
}

/// RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW.
pub const DEFAULT_FRAME: Frame = Frame {
    rows: false,
    start: FrameBound::UnboundedPreceding,
    end: FrameBound::CurrentRow,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameBound {
    UnboundedPreceding,
    Preceding(u64),
    CurrentRow,
    Following(u64),
    UnboundedFollowing,
}

impl WindowCall {
    pub fn data_type(&self) -> DataType {
        use WindowFunction::*;
        match &self.function {
            RowNumber | Rank | DenseRank | Ntile => DataType::BIGINT,
            PercentRank | CumeDist => DataType::double(10),
            Lag | Lead | FirstValue | LastValue | NthValue => self.args[0].data_type(),
            Aggregate(call) => call.result_type(),
        }
    }

    pub fn nullable(&self) -> bool {
        use WindowFunction::*;
        match &self.function {
            RowNumber | Rank | DenseRank | Ntile => false,
            Aggregate(call) => call.nullable(),
            _ => true,
        }
    }
}

/// An `AS` alias of the select list, as a window may name it (invariant (5)).
pub struct WindowAlias {
    name: String,
    /// The select value's position; its type is `DataType::Null` until known.
    column: ColumnRef,
    /// A window function makes the value.
    windowed: bool,
}

impl WindowAlias {
    /// The alias `name` of the value at row position `at`, before its type is known.
    pub fn untyped(name: &str, at: usize) -> WindowAlias {
        let column = ColumnRef::computed(at, DataType::Null, true);
        WindowAlias::typed(name, column, false)
    }

    pub fn typed(name: &str, column: ColumnRef, windowed: bool) -> WindowAlias {
        WindowAlias {
            name: name.to_string(),
            column,
            windowed,
        }
    }
}

/// The window calls of one query block being bound, its WINDOW clause, and the select
/// list's aliases its windows may name.
pub struct Windows {
    pub calls: RefCell<Vec<WindowCall>>,
    pub named: Vec<ast::NamedWindowDefinition>,
    aliases: Vec<WindowAlias>,
    /// A window named one of `aliases`.
    alias_read: Cell<bool>,
}

impl Windows {
    /// The collector of a query block with WINDOW clause `named` and select-list
    /// `aliases`: 4010 if two of its windows share a name, used or not (as MariaDB).
    pub fn new(named: &[ast::NamedWindowDefinition], aliases: Vec<WindowAlias>) -> Result<Windows> {
        for (i, definition) in named.iter().enumerate() {
            let name = &definition.0.value;
            if named[..i]
                .iter()
                .any(|d| d.0.value.eq_ignore_ascii_case(name))
            {
                return Err(Error::new(
                    ErrorCode::DupWindowName,
                    format!("Multiple window specifications with the same name '{name}'"),
                ));
            }
        }
        Ok(Windows {
            calls: RefCell::default(),
            named: named.to_vec(),
            aliases,
            alias_read: Cell::new(false),
        })
    }

    /// Whether a window named a select-list alias (invariant (5)).
    pub fn alias_read(&self) -> bool {
        self.alias_read.get()
    }

    /// The value the select-list alias `name` names, for a window (invariant (5)).
    fn alias(&self, name: &str) -> Result<Option<ColumnRef>> {
        let Some(alias) = self
            .aliases
            .iter()
            .find(|a| a.name.eq_ignore_ascii_case(name))
        else {
            return Ok(None);
        };
        if alias.windowed {
            return Err(Error::new(
                ErrorCode::WindowFunctionInWindowSpec,
                "Window function is not allowed in window specification",
            ));
        }
        self.alias_read.set(true);
        Ok(Some(alias.column.clone()))
    }
}

impl Windows {
    /// Adds `call`; the column is its placeholder position (module notes).
    pub fn push(&self, call: WindowCall) -> Expr {
        let mut calls = self.calls.borrow_mut();
        let column = ColumnRef::computed(SLOT + calls.len(), call.data_type(), call.nullable());
        calls.push(call);
        Expr::Column(column)
    }
}

/// Whether `upper_name` is a function that exists only with OVER (ROW_NUMBER, LAG...).
pub fn is_window_only(upper_name: &str) -> bool {
    matches!(
        upper_name,
        "ROW_NUMBER"
            | "RANK"
            | "DENSE_RANK"
            | "PERCENT_RANK"
            | "CUME_DIST"
            | "NTILE"
            | "LAG"
            | "LEAD"
            | "FIRST_VALUE"
            | "LAST_VALUE"
            | "NTH_VALUE"
    )
}

/// 4015: a window function where only the select list and ORDER BY may have one.
pub fn misplaced() -> Error {
    Error::new(
        ErrorCode::WrongPlacementOfWindowFunction,
        "Window function is allowed only in SELECT list and ORDER BY clause",
    )
}

/// 4074: a window function inside an aggregate's argument.
pub fn in_aggregate() -> Error {
    Error::new(
        ErrorCode::SumFuncWithWindowFuncAsArg,
        "Window functions can not be used as arguments to group functions.",
    )
}

/// Binds `call` (which has OVER): its arguments in `args` (a scope where aggregates of
/// the query may appear but window functions may not), its window in `spec`, with the
/// WINDOW clause and select-list aliases of `windows`.
pub fn bind_call(
    call: &ast::Function,
    windows: &Windows,
    args: &dyn Scope,
    spec: &dyn Scope,
) -> Result<WindowCall> {
    let name = expr::function_name(call);
    let named = &windows.named;
    let (over, from_clause) = match &call.over {
        Some(ast::WindowType::WindowSpec(over)) if over.window_name.is_none() => {
            (over.clone(), false)
        }
        Some(ast::WindowType::WindowSpec(over)) => (resolve_spec(over, named, named.len())?, true),
        Some(ast::WindowType::NamedWindow(window)) => (lookup(window, named, named.len())?, true),
        None => unreachable!("bind_call is called for calls with OVER"),
    };
    if call.filter.is_some() || call.null_treatment.is_some() || !call.within_group.is_empty() {
        return Err(Error::parse_near(&call.to_string(), 1));
    }
    let list: Vec<&ast::Expr> = match &call.args {
        ast::FunctionArguments::None => Vec::new(),
        ast::FunctionArguments::List(list) if list.duplicate_treatment.is_none() => list
            .args
            .iter()
            .filter_map(|a| match a {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => Some(e),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    let plain_args = match &call.args {
        ast::FunctionArguments::None => 0,
        ast::FunctionArguments::List(list) => list.args.len(),
        ast::FunctionArguments::Subquery(_) => usize::MAX,
    };
    use WindowFunction::*;
    let (function, arity): (WindowFunction, &[usize]) = match name.as_str() {
        "ROW_NUMBER" => (RowNumber, &[0]),
        "RANK" => (Rank, &[0]),
        "DENSE_RANK" => (DenseRank, &[0]),
        "PERCENT_RANK" => (PercentRank, &[0]),
        "CUME_DIST" => (CumeDist, &[0]),
        "NTILE" => (Ntile, &[1]),
        "LAG" => (Lag, &[1, 2]),
        "LEAD" => (Lead, &[1, 2]),
        "FIRST_VALUE" => (FirstValue, &[1]),
        "LAST_VALUE" => (LastValue, &[1]),
        "NTH_VALUE" => (NthValue, &[2]),
        _ => match AggregateFunction::lookup(&name) {
            Some(
                AggregateFunction::GroupConcat
                | AggregateFunction::JsonArrayAgg
                | AggregateFunction::JsonObjectAgg,
            ) => {
                return Err(Error::not_supported(&format!(
                    "{name}() aggregate as window function"
                )))
            }
            Some(_) => {
                if let ast::FunctionArguments::List(list) = &call.args {
                    if list.duplicate_treatment == Some(ast::DuplicateTreatment::Distinct) {
                        return Err(Error::not_supported(&format!(
                            "{name}(DISTINCT) aggregate as window function"
                        )));
                    }
                }
                (Aggregate(expr::bind_aggregate(call, args)?), &[])
            }
            None => return Err(Error::parse_near(&call.to_string(), 1)),
        },
    };
    let args = if matches!(function, Aggregate(_)) {
        Vec::new()
    } else {
        if !arity.contains(&plain_args) || list.len() != plain_args {
            return Err(Error::parse_near(&call.to_string(), 1));
        }
        list.iter()
            .map(|e| expr::bind(e, args))
            .collect::<Result<Vec<_>>>()?
    };
    let scope = SpecScope {
        inner: spec,
        windows,
        parameter_used: Cell::new(false),
    };
    let window = bind_window(&over, &scope)?;
    if from_clause && scope.parameter_used.get() {
        // A WINDOW clause comes after the select list and ORDER BY's window calls, so a
        // `?` in it would be numbered out of text order (bind's invariant).
        return Err(Error::not_supported("parameters in a WINDOW clause"));
    }
    if window.order_by.is_empty()
        && matches!(
            function,
            Rank | DenseRank | PercentRank | CumeDist | Lag | Lead
        )
    {
        return Err(Error::new(
            ErrorCode::NoOrderListInWindowSpec,
            format!(
                "No order list in window specification for '{}'",
                name.to_ascii_lowercase()
            ),
        ));
    }
    Ok(WindowCall {
        function,
        args,
        window,
    })
}

/// Named window `name` among the first `visible` definitions of the WINDOW clause (a
/// definition sees those before it), resolved to a spec naming no other window.
fn lookup(
    name: &ast::Ident,
    named: &[ast::NamedWindowDefinition],
    visible: usize,
) -> Result<ast::WindowSpec> {
    let Some(at) = named[..visible]
        .iter()
        .position(|d| d.0.value.eq_ignore_ascii_case(&name.value))
    else {
        return Err(Error::new(
            ErrorCode::WrongWindowSpecName,
            format!(
                "Window specification with name '{}' is not defined",
                name.value
            ),
        ));
    };
    match &named[at].1 {
        ast::NamedWindowExpr::WindowSpec(spec) => resolve_spec(spec, named, at),
        ast::NamedWindowExpr::NamedWindow(other) => lookup(other, named, at),
    }
}

/// `(name [ORDER BY ...] [frame])`: the named window's PARTITION BY and ORDER BY, with
/// this spec's ORDER BY and frame added (MariaDB's 4011, 4012 and 4013 where they clash).
fn resolve_spec(
    spec: &ast::WindowSpec,
    named: &[ast::NamedWindowDefinition],
    visible: usize,
) -> Result<ast::WindowSpec> {
    let Some(name) = &spec.window_name else {
        return Ok(spec.clone());
    };
    let base = lookup(name, named, visible)?;
    let clash = |code, message: &str| Err(Error::new(code, message.to_string()));
    if !spec.partition_by.is_empty() {
        return clash(
            ErrorCode::PartitionListInReferencingWindowSpec,
            &format!(
                "Window specification referencing another one '{}' cannot contain partition \
                 list",
                name.value
            ),
        );
    }
    if !base.order_by.is_empty() && !spec.order_by.is_empty() {
        return clash(
            ErrorCode::OrderListInReferencingWindowSpec,
            &format!(
                "Referenced window specification '{}' already contains order list",
                name.value
            ),
        );
    }
    if base.window_frame.is_some() {
        return clash(
            ErrorCode::WindowFrameInReferencedWindowSpec,
            &format!(
                "Referenced window specification '{}' cannot contain window frame",
                name.value
            ),
        );
    }
    Ok(ast::WindowSpec {
        window_name: None,
        partition_by: base.partition_by,
        order_by: match spec.order_by.is_empty() {
            true => base.order_by,
            false => spec.order_by.clone(),
        },
        window_frame: spec.window_frame.clone(),
    })
}

/// The scope of a window's PARTITION BY and ORDER BY: `inner`'s names, then the select
/// list's aliases (invariant (5)); it notes whether a `?` was bound.
struct SpecScope<'a> {
    inner: &'a dyn Scope,
    windows: &'a Windows,
    parameter_used: Cell<bool>,
}

impl Scope for SpecScope<'_> {
    fn resolve_column(&self, qualifier: &[String], name: &str) -> Result<Option<ColumnRef>> {
        match self.inner.resolve_column(qualifier, name)? {
            None if qualifier.is_empty() => self.windows.alias(name),
            found => Ok(found),
        }
    }
    fn resolve_aggregate(&self, call: &ast::Function) -> Result<Option<Expr>> {
        self.inner.resolve_aggregate(call)
    }
    fn resolve_window(&self, call: &ast::Function) -> Result<Expr> {
        self.inner.resolve_window(call)
    }
    fn clause(&self) -> &str {
        self.inner.clause()
    }
    fn next_parameter(&self) -> usize {
        self.parameter_used.set(true);
        self.inner.next_parameter()
    }
    fn parameter_type(&self, index: usize) -> DataType {
        self.inner.parameter_type(index)
    }
    fn user_variable_type(&self, name: &str) -> DataType {
        self.inner.user_variable_type(name)
    }
    fn database(&self) -> Option<String> {
        self.inner.database()
    }
    fn bind_subquery(&self, query: &ast::Query) -> Result<(expr::Subquery, usize)> {
        self.inner.bind_subquery(query)
    }
    fn refuse_in_definition(&self, what: &str) -> Result<()> {
        self.inner.refuse_in_definition(what)
    }
    fn fulltext_key(
        &self,
        columns: &[ColumnRef],
    ) -> Result<(std::sync::Arc<manycore_storage::Table>, Vec<usize>)> {
        self.inner.fulltext_key(columns)
    }
    fn stored_function(
        &self,
        db: Option<&str>,
        name: &str,
        written: String,
        args: &dyn Fn() -> Result<Vec<Expr>>,
    ) -> Result<Expr> {
        self.inner.stored_function(db, name, written, args)
    }
    fn resolve_outer(&self, qualifier: &[String], name: &str) -> Result<Option<Expr>> {
        self.inner.resolve_outer(qualifier, name)
    }
}

/// `over` bound in `scope`; an ORDER BY item that is just a name is a select-list alias
/// first (invariant (5)).
fn bind_window(over: &ast::WindowSpec, scope: &SpecScope) -> Result<Window> {
    let partition_by = over
        .partition_by
        .iter()
        .map(|e| expr::bind(e, scope))
        .collect::<Result<Vec<_>>>()?;
    let mut order_by = Vec::with_capacity(over.order_by.len());
    for o in &over.order_by {
        let descending = matches!(o.options.sort, Some(ast::OrderBySort::Desc));
        let alias = match &o.expr {
            ast::Expr::Identifier(name) => scope.windows.alias(&name.value)?.map(Expr::Column),
            _ => None,
        };
        let e = match alias {
            Some(e) => e,
            None => expr::bind(&o.expr, scope)?,
        };
        order_by.push((e, descending));
    }
    let frame = match &over.window_frame {
        None => DEFAULT_FRAME,
        Some(frame) => bind_frame(frame)?,
    };
    Ok(Window {
        partition_by,
        order_by,
        frame,
    })
}

fn bind_frame(frame: &ast::WindowFrame) -> Result<Frame> {
    let rows = match frame.units {
        ast::WindowFrameUnits::Rows => true,
        ast::WindowFrameUnits::Range => false,
        ast::WindowFrameUnits::Groups => return Err(Error::parse_near("GROUPS", 1)),
    };
    use FrameBound::*;
    let start = bind_bound(&frame.start_bound, rows)?;
    let Some(end) = &frame.end_bound else {
        // `ROWS x` is `BETWEEN x AND CURRENT ROW`; MariaDB's grammar takes no FOLLOWING
        // there.
        if matches!(start, Following(_) | UnboundedFollowing) {
            return Err(Error::parse_near(&frame.start_bound.to_string(), 1));
        }
        return Ok(Frame {
            rows,
            start,
            end: CurrentRow,
        });
    };
    let end = bind_bound(end, rows)?;
    // MariaDB's combinations of bounds that leave no row (its check_frame_bounds). A start
    // after the end that offsets make (`1 FOLLOWING AND 1 PRECEDING`) passes: its frames
    // are empty.
    let bad = start == UnboundedFollowing
        || end == UnboundedPreceding
        || (start == CurrentRow && matches!(end, Preceding(_)))
        || (end == CurrentRow && matches!(start, Following(_)));
    if bad {
        return Err(Error::new(
            ErrorCode::BadCombinationOfWindowFrameBoundSpecs,
            "Unacceptable combination of window frame bound specifications",
        ));
    }
    Ok(Frame { rows, start, end })
}

fn bind_bound(bound: &ast::WindowFrameBound, rows: bool) -> Result<FrameBound> {
    let offset = |e: &ast::Expr| -> Result<u64> {
        if !rows {
            return Err(Error::not_supported("RANGE frames with an offset"));
        }
        match e {
            ast::Expr::Value(v) => match &v.value {
                ast::Value::Number(n, _) => n.parse().map_err(|_| Error::parse_near(n, 1)),
                _ => Err(Error::parse_near(&e.to_string(), 1)),
            },
            _ => Err(Error::parse_near(&e.to_string(), 1)),
        }
    };
    Ok(match bound {
        ast::WindowFrameBound::CurrentRow => FrameBound::CurrentRow,
        ast::WindowFrameBound::Preceding(None) => FrameBound::UnboundedPreceding,
        ast::WindowFrameBound::Following(None) => FrameBound::UnboundedFollowing,
        ast::WindowFrameBound::Preceding(Some(e)) => FrameBound::Preceding(offset(e)?),
        ast::WindowFrameBound::Following(Some(e)) => FrameBound::Following(offset(e)?),
    })
}

/// Moves the placeholder positions in `expr` to `base + i` (module notes). A subquery's
/// own plan is not entered (`dml::visit_mut`): its window calls belong to its own query
/// block.
pub fn remap(expr: &mut Expr, base: usize) {
    crate::dml::visit_mut(expr, &mut |e| {
        if let Expr::Column(c) = e {
            if c.index >= SLOT {
                c.index = c.index - SLOT + base;
            }
        }
    });
}

/// Whether `expr` reads a window placeholder (before `remap`).
pub fn has_window(expr: &Expr) -> bool {
    let mut found = false;
    crate::dml::visit_columns(expr, &mut |c| found |= c.index >= SLOT);
    found
}

/// Runs `Plan::Window`: buffers `input`'s rows, sets `row[at + i]` to call `i`'s value,
/// and emits the rows in the order of the last window sorted.
pub fn run(
    input: &Plan,
    calls: &[WindowCall],
    at: usize,
    ctx: &ExecContext,
    out: &mut dyn FnMut(&[Value]) -> Flow,
) -> Flow {
    let width = at + calls.len();
    let mut rows: Vec<Vec<Value>> = Vec::new();
    let _ = exec::run(input, ctx, &mut |row| {
        let mut owned = Vec::with_capacity(width);
        owned.extend_from_slice(row);
        owned.resize(width, Value::Null);
        rows.push(owned);
        Ok(ControlFlow::Continue(()))
    })?;
    let mut order: Vec<usize> = (0..rows.len()).collect();
    let mut done = vec![false; calls.len()];
    for first in 0..calls.len() {
        if done[first] {
            continue;
        }
        let window = &calls[first].window;
        let groups = sort(window, &rows, &mut order, ctx)?;
        for (i, call) in calls.iter().enumerate().skip(first) {
            if done[i] || !call.window.same_order(window) {
                continue;
            }
            done[i] = true;
            let values = compute(call, &rows, &order, &groups, ctx)?;
            let decimals = match call.data_type() {
                DataType::Double { decimals, .. } if decimals < NOT_FIXED_DECIMALS => {
                    Some(decimals)
                }
                _ => None,
            };
            for (&r, value) in order.iter().zip(values) {
                rows[r][at + i] = match (value, decimals) {
                    (Value::Double(d), Some(decimals)) => Value::Double(round(d, decimals)),
                    (value, _) => value,
                };
            }
        }
    }
    for &r in &order {
        if out(&rows[r])?.is_break() {
            return Ok(ControlFlow::Break(()));
        }
    }
    Ok(ControlFlow::Continue(()))
}

/// `d` rounded to `decimals` places: MariaDB keeps a window function's DOUBLE in a
/// temporary table column with the type's decimals, so the value itself is rounded
/// (visible in the binary protocol: CUME_DIST gives 0.3333333333, not 0.333...3).
fn round(d: f64, decimals: u8) -> f64 {
    let scale = 10f64.powi(decimals as i32);
    let rounded = (d * scale).round() / scale;
    if rounded.is_finite() {
        rounded
    } else {
        d
    }
}

/// Where partitions and peer groups begin in a window's sorted rows.
struct Groups {
    /// Position (in sorted order) of the first row of each row's partition and the
    /// position after its last.
    partition: Vec<(usize, usize)>,
    /// The same for each row's peer group (invariant (2)).
    peers: Vec<(usize, usize)>,
}

/// Sorts `order` (row numbers) by `window`'s partition, then its ORDER BY (invariants
/// (1) and (3)), and finds the partitions and peer groups.
fn sort(
    window: &Window,
    rows: &[Vec<Value>],
    order: &mut [usize],
    ctx: &ExecContext,
) -> Result<Groups> {
    let orders: Vec<exec::KeyOrder> = (window.order_by.iter().enumerate())
        .map(|(i, (e, descending))| exec::KeyOrder::of_type(e.data_type(), *descending, i))
        .collect();
    let mut keys: Vec<(Vec<u8>, Vec<Value>)> = Vec::with_capacity(rows.len());
    for row in rows {
        let mut partition = Vec::new();
        for e in &window.partition_by {
            exec::group_key(
                &e.eval(row, &ctx.eval)?,
                Some(&e.data_type()),
                &mut partition,
            );
        }
        let mut values = Vec::with_capacity(window.order_by.len());
        for (e, _) in &window.order_by {
            values.push(e.eval(row, &ctx.eval)?);
        }
        keys.push((partition, values));
    }
    let compare_order =
        |a: &[Value], b: &[Value]| exec::compare_rows(&orders, a, b, ctx.eval.session);
    // Invariant (3): a stable sort of the input order.
    order.sort_by(|&a, &b| {
        keys[a]
            .0
            .cmp(&keys[b].0)
            .then_with(|| compare_order(&keys[a].1, &keys[b].1))
    });
    let n = order.len();
    let mut partition = vec![(0, 0); n];
    let mut peers = vec![(0, 0); n];
    let mut start = 0;
    while start < n {
        let mut end = start + 1;
        while end < n && keys[order[end]].0 == keys[order[start]].0 {
            end += 1;
        }
        partition[start..end].fill((start, end));
        let mut peer = start;
        while peer < end {
            let mut peer_end = peer + 1;
            while peer_end < end
                && compare_order(&keys[order[peer_end]].1, &keys[order[peer]].1) == Ordering::Equal
            {
                peer_end += 1;
            }
            peers[peer..peer_end].fill((peer, peer_end));
            peer = peer_end;
        }
        start = end;
    }
    Ok(Groups { partition, peers })
}

/// The frame of the row at sorted position `k`: positions `lo..hi` (empty if lo >= hi).
fn frame_range(frame: &Frame, k: usize, groups: &Groups) -> (usize, usize) {
    let (p0, p1) = groups.partition[k];
    let (peer0, peer1) = groups.peers[k];
    let (k, p0, p1) = (k as i128, p0 as i128, p1 as i128);
    let lo = match frame.start {
        FrameBound::UnboundedPreceding => p0,
        FrameBound::Preceding(n) => k - n as i128,
        FrameBound::CurrentRow if frame.rows => k,
        FrameBound::CurrentRow => peer0 as i128,
        FrameBound::Following(n) => k + n as i128,
        FrameBound::UnboundedFollowing => p1,
    };
    let hi = match frame.end {
        FrameBound::UnboundedPreceding => p0,
        FrameBound::Preceding(n) => k - n as i128 + 1,
        FrameBound::CurrentRow if frame.rows => k + 1,
        FrameBound::CurrentRow => peer1 as i128,
        FrameBound::Following(n) => k + n as i128 + 1,
        FrameBound::UnboundedFollowing => p1,
    };
    let lo = lo.clamp(p0, p1) as usize;
    let hi = hi.clamp(p0, p1) as usize;
    (lo, hi.max(lo))
}

/// An integer argument's value (NTILE's count, LAG's offset, NTH_VALUE's n): a fraction
/// rounded half away from zero, as MariaDB's val_int does (NTILE(2.5) has 3 buckets).
fn integer(value: &Value, ctx: &ExecContext) -> Option<i64> {
    match value {
        Value::Int(i) => Some(*i),
        Value::UInt(u) => i64::try_from(*u).ok(),
        Value::Null => None,
        other => expr::coerce::to_f64(other, ctx.eval.session).map(|f| f.round() as i64),
    }
}

/// `call`'s value for each row, in sorted order.
fn compute(
    call: &WindowCall,
    rows: &[Vec<Value>],
    order: &[usize],
    groups: &Groups,
    ctx: &ExecContext,
) -> Result<Vec<Value>> {
    use WindowFunction::*;
    let n = order.len();
    let eval_arg = |i: usize| -> Result<Vec<Value>> {
        order
            .iter()
            .map(|&r| call.args[i].eval(&rows[r], &ctx.eval))
            .collect()
    };
    let mut out = Vec::with_capacity(n);
    match &call.function {
        RowNumber => {
            for k in 0..n {
                out.push(Value::Int((k - groups.partition[k].0 + 1) as i64));
            }
        }
        Rank => {
            for k in 0..n {
                out.push(Value::Int(
                    (groups.peers[k].0 - groups.partition[k].0 + 1) as i64,
                ));
            }
        }
        DenseRank => {
            let mut rank = 0i64;
            for k in 0..n {
                if k == groups.partition[k].0 {
                    rank = 0;
                }
                if k == groups.peers[k].0 {
                    rank += 1;
                }
                out.push(Value::Int(rank));
            }
        }
        PercentRank => {
            for k in 0..n {
                let (p0, p1) = groups.partition[k];
                let rank = groups.peers[k].0 - p0;
                let value = if p1 - p0 <= 1 {
                    0.0
                } else {
                    rank as f64 / (p1 - p0 - 1) as f64
                };
                out.push(Value::Double(value));
            }
        }
        CumeDist => {
            for k in 0..n {
                let (p0, p1) = groups.partition[k];
                let through = groups.peers[k].1 - p0;
                out.push(Value::Double(through as f64 / (p1 - p0) as f64));
            }
        }
        Ntile => {
            // As MariaDB, the count may read the row, but it must be greater than 0 and
            // stay what the partition's first row made it: else 4024.
            let counts = eval_arg(0)?;
            let mut partition_buckets = 0;
            for (k, count) in counts.iter().enumerate() {
                let (p0, p1) = groups.partition[k];
                let buckets = match integer(count, ctx) {
                    Some(b) if b > 0 && (k == p0 || b as u64 == partition_buckets) => b as u64,
                    _ => {
                        return Err(Error::new(
                            ErrorCode::InvalidNtileArgument,
                            "Argument of NTILE must be greater than 0",
                        ))
                    }
                };
                partition_buckets = buckets;
                out.push(Value::Int(
                    ntile((k - p0) as u64, (p1 - p0) as u64, buckets) as i64,
                ));
            }
        }
        Lag | Lead => {
            let values = eval_arg(0)?;
            let offsets = match call.args.len() {
                2 => Some(eval_arg(1)?),
                _ => None,
            };
            for k in 0..n {
                let offset = match &offsets {
                    Some(offsets) => integer(&offsets[k], ctx),
                    None => Some(1),
                };
                let (p0, p1) = groups.partition[k];
                let target = offset.and_then(|offset| {
                    let offset = if matches!(call.function, Lag) {
                        -(offset as i128)
                    } else {
                        offset as i128
                    };
                    let target = k as i128 + offset;
                    (target >= p0 as i128 && target < p1 as i128).then_some(target as usize)
                });
                out.push(target.map_or(Value::Null, |t| values[t].clone()));
            }
        }
        FirstValue | LastValue | NthValue => {
            let values = eval_arg(0)?;
            let nth = match call.function {
                NthValue => Some(eval_arg(1)?),
                _ => None,
            };
            for k in 0..n {
                let (lo, hi) = frame_range(&call.window.frame, k, groups);
                let at = match (&call.function, &nth) {
                    (FirstValue, _) => (lo < hi).then_some(lo),
                    (LastValue, _) => (lo < hi).then(|| hi - 1),
                    (_, Some(nth)) => match integer(&nth[k], ctx) {
                        Some(m) if m >= 1 && (m as u64) <= (hi - lo) as u64 => {
                            Some(lo + m as usize - 1)
                        }
                        _ => None,
                    },
                    _ => None,
                };
                out.push(at.map_or(Value::Null, |t| values[t].clone()));
            }
        }
        Aggregate(aggregate) => {
            let values: Vec<Value> = match &aggregate.arg {
                // COUNT(*): every row counts.
                None => vec![Value::Int(1); n],
                Some(arg) => order
                    .iter()
                    .map(|&r| arg.eval(&rows[r], &ctx.eval))
                    .collect::<Result<_>>()?,
            };
            aggregate_frames(
                aggregate,
                &call.window.frame,
                &values,
                groups,
                ctx,
                &mut out,
            )?;
        }
    }
    Ok(out)
}

/// An aggregate over each row's frame. Frames that only grow (the default frame, ROWS
/// UNBOUNDED PRECEDING) feed one accumulator incrementally; an unchanged frame (peers,
/// the whole partition) reuses the value; any other frame is fed afresh.
fn aggregate_frames(
    call: &AggregateCall,
    frame: &Frame,
    values: &[Value],
    groups: &Groups,
    ctx: &ExecContext,
    out: &mut Vec<Value>,
) -> Result<()> {
    let mut accumulator = Accumulator::new(call);
    let mut fed: Option<(usize, usize)> = None;
    let mut value = Value::Null;
    for k in 0..values.len() {
        let (lo, hi) = frame_range(frame, k, groups);
        let from = match fed {
            Some(f) if f == (lo, hi) => None,
            Some((fed_lo, fed_hi)) if fed_lo == lo && fed_hi <= hi => Some(fed_hi),
            _ => {
                accumulator = Accumulator::new(call);
                Some(lo)
            }
        };
        if let Some(from) = from {
            for v in &values[from..hi] {
                accumulator.update_value(v.clone(), &ctx.eval)?;
            }
            value = accumulator.finish(&ctx.eval)?;
        }
        fed = Some((lo, hi));
        out.push(value.clone());
    }
    Ok(())
}

/// NTILE's bucket (from 1) of the row at `index` (from 0) of a partition of `rows` rows:
/// the first `rows % buckets` buckets hold one row more than the others.
fn ntile(index: u64, rows: u64, buckets: u64) -> u64 {
    let size = rows / buckets;
    let extra = rows % buckets;
    if index < extra * (size + 1) {
        index / (size + 1) + 1
    } else {
        (index - extra * (size + 1)) / size + extra + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn groups(partitions: &[usize], peers: &[usize]) -> Groups {
        // Sizes of consecutive partitions and of consecutive peer groups.
        let expand = |sizes: &[usize]| {
            let mut out = Vec::new();
            let mut start = 0;
            for &size in sizes {
                out.extend(std::iter::repeat_n((start, start + size), size));
                start += size;
            }
            out
        };
        Groups {
            partition: expand(partitions),
            peers: expand(peers),
        }
    }

    #[test]
    fn frames_in_rows_and_peer_groups() {
        // One partition of 5 rows; peers: [0], [1, 2], [3, 4].
        let g = groups(&[5], &[1, 2, 2]);
        let range = |frame: Frame| {
            (0..5)
                .map(|k| frame_range(&frame, k, &g))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            range(DEFAULT_FRAME),
            [(0, 1), (0, 3), (0, 3), (0, 5), (0, 5)]
        );
        let rows = |start, end| Frame {
            rows: true,
            start,
            end,
        };
        use FrameBound::*;
        assert_eq!(
            range(rows(Preceding(1), Following(1))),
            [(0, 2), (0, 3), (1, 4), (2, 5), (3, 5)]
        );
        assert_eq!(
            range(rows(CurrentRow, UnboundedFollowing)),
            [(0, 5), (1, 5), (2, 5), (3, 5), (4, 5)]
        );
        // An inverted frame is empty.
        assert!(range(rows(Following(1), Preceding(1)))
            .iter()
            .all(|(lo, hi)| lo == hi));
        let range_current = Frame {
            rows: false,
            start: CurrentRow,
            end: UnboundedFollowing,
        };
        assert_eq!(
            range(range_current),
            [(0, 5), (1, 5), (1, 5), (3, 5), (3, 5)]
        );
    }

    #[test]
    fn frames_stay_in_their_partition() {
        let g = groups(&[2, 3], &[1, 1, 1, 1, 1]);
        let frame = Frame {
            rows: true,
            start: FrameBound::Preceding(5),
            end: FrameBound::Following(5),
        };
        let ranges: Vec<_> = (0..5).map(|k| frame_range(&frame, k, &g)).collect();
        assert_eq!(ranges, [(0, 2), (0, 2), (2, 5), (2, 5), (2, 5)]);
    }

    #[test]
    fn ntile_gives_the_first_buckets_the_extra_rows() {
        let buckets = |rows, n| (0..rows).map(|i| ntile(i, rows, n)).collect::<Vec<_>>();
        assert_eq!(buckets(5, 2), [1, 1, 1, 2, 2]);
        assert_eq!(buckets(7, 3), [1, 1, 1, 2, 2, 3, 3]);
        assert_eq!(buckets(2, 4), [1, 2]);
        assert_eq!(buckets(4, 4), [1, 2, 3, 4]);
    }
}
