//! Executing plans: a push model. Each operator calls its consumer once per row with a
//! borrowed `&[Value]`, and the consumer answers `ControlFlow::Break` to stop early (LIMIT).
//!
//! Why push: storage exposes scans as visitors (`Table::scan` calls a closure per visible
//! row under its epoch guard), so a pull iterator would have to buffer or re-seek; pushing
//! lets filter and projection run inside the scan callback on borrowed rows, and LIMIT
//! stops the scan itself. Pipeline breakers (Sort, Aggregate) buffer owned rows.
//!
//! Invariants:
//! (1) Errors raised inside a storage callback are carried out of it and returned; the
//!     scan stops at the first one.
//! (2) Every `INTERRUPT_CHECK_ROWS` visited rows the session's KILL flag is checked (1317).
//! (3) A primary-key point lookup and the projection of its row allocate nothing in steady
//!     state: the key and the output row are built in per-thread buffers that keep their
//!     capacity between statements (tests/allocations.rs).

use crate::engine::{Counter, ProcessEntry};
use crate::error::{Error, Result};
use crate::expr::coerce;
use crate::expr::fulltext::{FulltextMatch, Search, Statistics};
use crate::expr::{store_value, VarScope};
use crate::expr::{Accumulator, EvalContext, Expr, Subquery, SubqueryRows, SubqueryRunner};
use crate::information_schema::NameLookup;
use crate::key_set::KeySet;
use crate::plan::{
    AccessPath, Count, IndexAccess, Join, JoinSource, JoinStep, Plan, RecursiveCte, Scan,
    SetOperation, SetOperator, SortKey, SystemScan,
};
use crate::spare::{self, Loan};
use manycore_storage::{IndexNo, KeyRange, ReadView, RowSlot};
use manycore_types::{format, key, DataType, Value};
use std::cell::{Cell, OnceCell, RefCell};
use std::cmp::Ordering;
use std::ops::{Bound as KeyBound, ControlFlow};
use std::rc::Rc;
use std::sync::Arc;

pub const INTERRUPT_CHECK_ROWS: u64 = 1024;

/// The rows of a recursive CTE's work table, shared with the runs reading it.
type WorkRows = Rc<Vec<Vec<Value>>>;

thread_local! {
    // Invariant (3): lent out while in use (`spare::lend`).
    static KEY_BUFFER: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
    static ROW_BUFFER: Cell<Vec<Value>> = const { Cell::new(Vec::new()) };
    // A sort's buffered rows, end to end (`run_sort`).
    static SORT_CELLS: Cell<Vec<Value>> = const { Cell::new(Vec::new()) };
    // The work tables of the recursive CTEs running on this thread, innermost last (plan
    // invariant (3)): a run is synchronous, so its rows never leave the thread.
    static WORK_TABLES: RefCell<Vec<(u64, WorkRows)>> = const { RefCell::new(Vec::new()) };
}

/// An output row holding more than this many value bytes is not kept for reuse.
const KEPT_ROW_BYTES: usize = 1 << 16;
/// Sorted rows holding more than this many cells or value bytes are not kept for reuse.
const KEPT_SORT_CELLS: usize = 1 << 14;
const KEPT_SORT_BYTES: usize = 1 << 20;

/// Whether `cells` are few and small enough to keep for the next user, values and all
/// (their strings' allocations are reused by `assign`).
fn worth_keeping(cells: &[Value], max_cells: usize, max_bytes: usize) -> bool {
    let bytes: usize = (cells.iter().filter_map(Value::as_bytes))
        .map(<[u8]>::len)
        .sum();
    cells.len() <= max_cells && bytes <= max_bytes
}

/// A point lookup's key buffer: kept whatever it held (keys are short), cleared.
fn lend_key_buffer() -> Loan<Vec<u8>> {
    spare::lend(&KEY_BUFFER, |key| {
        key.clear();
        true
    })
}

/// `*dst = src.clone()`, reusing `dst`'s byte buffer when both are strings.
fn assign(dst: &mut Value, src: &Value) {
    if let (Value::Bytes(d), Value::Bytes(s)) = (&mut *dst, src) {
        d.clear();
        d.extend_from_slice(s);
        return;
    }
    *dst = src.clone();
}

pub struct ExecContext<'a> {
    pub view: ReadView,
    pub eval: EvalContext<'a>,
    pub interrupt: &'a ProcessEntry,
    /// Rows the statement's scans leave out (its subqueries' scans do not).
    pub skipped: Option<&'a SkippedRows>,
}

/// Rows by the address of their slot: those a SELECT ... SKIP LOCKED found held by another
/// transaction (`session::locking_read`), which keeps the slots alive while it reads.
pub type SkippedRows = std::collections::HashSet<*const RowSlot>;

pub type Flow = Result<ControlFlow<()>>;

/// Runs `f` in a context that reads `view` (its subqueries too) with `params`, leaving
/// out the `skipped` rows.
pub fn in_context<R>(
    view: ReadView,
    params: &[Value],
    session: &dyn crate::expr::SessionContext,
    interrupt: &ProcessEntry,
    skipped: Option<&SkippedRows>,
    f: impl FnOnce(&ExecContext) -> Result<R>,
) -> Result<R> {
    let subqueries = SubqueryReader::new(view, interrupt);
    let ctx = ExecContext {
        view,
        eval: EvalContext {
            subqueries: Some(&subqueries),
            ..EvalContext::new(params, session)
        },
        interrupt,
        skipped,
    };
    f(&ctx)
}

/// Runs the subqueries of one execution of a statement, keeping the rows of the
/// uncorrelated ones (subquery invariant (1)). Made per execution; empty, it allocates
/// nothing.
pub struct SubqueryReader<'a> {
    view: ReadView,
    interrupt: &'a ProcessEntry,
    /// By the address of the subquery's plan, which the statement's plan owns and
    /// keeps in place while it runs.
    uncorrelated: RefCell<Vec<(*const Plan, SubqueryRows)>>,
    fulltext: RefCell<Vec<KeptSearch>>,
}

/// A MATCH's statistics, with the search text they were read for.
struct KeptSearch {
    search: FulltextMatch,
    text: Vec<u8>,
    statistics: Rc<Statistics>,
}

impl<'a> SubqueryReader<'a> {
    pub fn new(view: ReadView, interrupt: &'a ProcessEntry) -> SubqueryReader<'a> {
        SubqueryReader {
            view,
            interrupt,
            uncorrelated: RefCell::new(Vec::new()),
            fulltext: RefCell::new(Vec::new()),
        }
    }
}

impl SubqueryRunner for SubqueryReader<'_> {
    fn reading(&self) -> (ReadView, &ProcessEntry) {
        (self.view, self.interrupt)
    }

    /// Reads every row of the MATCH's table once per execution and search text: there
    /// is no word index yet (`fulltext` module notes).
    fn fulltext(&self, search: &FulltextMatch, text: &[u8]) -> Result<Rc<Statistics>> {
        let kept = self.fulltext.borrow();
        if let Some(found) = (kept.iter()).find(|k| search.same_search(text, &k.search, &k.text)) {
            return Ok(Rc::clone(&found.statistics));
        }
        drop(kept);
        let parsed = Search::parse(text, search.mode, search.collation)?;
        let mut interrupted = false;
        let statistics = parsed.statistics(|add| {
            let mut visited = 0u64;
            let all = KeyRange::all();
            search
                .table
                .scan(&self.view, IndexNo::Primary, &all, |_, row| {
                    visited += 1;
                    if visited.is_multiple_of(INTERRUPT_CHECK_ROWS) && self.interrupt.interrupted()
                    {
                        interrupted = true;
                        return ControlFlow::Break(());
                    }
                    let texts: Vec<&[u8]> = (search.columns.iter())
                        .filter_map(|&c| row[c].as_bytes())
                        .collect();
                    add(&texts);
                    ControlFlow::Continue(())
                });
        });
        if interrupted {
            return Err(Error::interrupted());
        }
        let statistics = Rc::new(statistics);
        self.fulltext.borrow_mut().push(KeptSearch {
            search: search.clone(),
            text: text.to_vec(),
            statistics: Rc::clone(&statistics),
        });
        Ok(statistics)
    }

    fn rows(&self, subquery: &Subquery, limit: usize, ctx: &EvalContext) -> Result<SubqueryRows> {
        let key = Arc::as_ptr(&subquery.plan);
        if !subquery.correlated {
            let kept = self.uncorrelated.borrow();
            if let Some((_, rows)) = kept.iter().find(|(plan, _)| *plan == key) {
                return Ok(Rc::clone(rows));
            }
        }
        let exec = ExecContext {
            view: self.view,
            eval: *ctx,
            interrupt: self.interrupt,
            skipped: None,
        };
        let mut rows = Vec::new();
        let _ = run(&subquery.plan, &exec, &mut |row| {
            rows.push(row.to_vec());
            Ok(if rows.len() >= limit {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            })
        })?;
        let rows = Rc::new(rows);
        if !subquery.correlated {
            self.uncorrelated.borrow_mut().push((key, Rc::clone(&rows)));
        }
        Ok(rows)
    }
}

/// Runs a SELECT statement's `plan`, calling `out` for each result row; returns the
/// statement's FOUND_ROWS(). That is the number of rows it returned, or with
/// `past_limit` (SQL_CALC_FOUND_ROWS) the number its outermost LIMIT received, which
/// then reads its input to the end, as MariaDB's does.
pub fn run_found(
    plan: &Plan,
    past_limit: bool,
    ctx: &ExecContext,
    mut out: impl FnMut(&[Value]) -> Result<()>,
) -> Result<u64> {
    let (input, window) = match plan {
        Plan::Limit {
            input,
            offset,
            count,
        } if past_limit => {
            let first = count_value(*offset, ctx)?;
            let count = count.map_or(Ok(u64::MAX), |c| count_value(c, ctx))?;
            (input.as_ref(), first..first.saturating_add(count))
        }
        _ => (plan, 0..u64::MAX),
    };
    let mut found = 0u64;
    let _ = run(input, ctx, &mut |row| {
        if window.contains(&found) {
            out(row)?;
        }
        found += 1;
        Ok(ControlFlow::Continue(()))
    })?;
    Ok(found)
}

/// Runs `plan`, calling `out` for each result row.
pub fn run(plan: &Plan, ctx: &ExecContext, out: &mut dyn FnMut(&[Value]) -> Flow) -> Flow {
    match plan {
        Plan::Empty => out(&[]),
        Plan::Scan(scan) => scan_rows(scan, ctx, &mut |_, row| out(row)),
        Plan::Join(join) => {
            let mut row = vec![Value::Null; join.width];
            let buffers: Vec<Buffer> = (0..join.buffers).map(|_| Buffer::new()).collect();
            run_steps(&join.steps, &mut row, &buffers, None, ctx, &mut |row| {
                out(row)
            })
        }
        Plan::SystemScan(scan) => {
            let lookup = name_lookup(scan, ctx)?;
            for row in ctx
                .eval
                .session
                .information_schema_rows(scan.table, &lookup)
            {
                let passes = match &scan.filter {
                    Some(filter) => is_true(filter, &row, ctx)?,
                    None => true,
                };
                if passes && out(&row)?.is_break() {
                    return Ok(ControlFlow::Break(()));
                }
            }
            Ok(ControlFlow::Continue(()))
        }
        Plan::Filter { input, predicate } => run(input, ctx, &mut |row| {
            if is_true(predicate, row, ctx)? {
                out(row)
            } else {
                Ok(ControlFlow::Continue(()))
            }
        }),
        Plan::Compute {
            input,
            exprs,
            at,
            copied,
        } => {
            let mut buffer = Vec::new();
            run(input, ctx, &mut |row| {
                // Cells are assigned, not cloned afresh, so that a string cell reuses
                // the buffer's allocation from the row before (plan invariant (5)).
                buffer.resize(row.len().max(at + exprs.len()), Value::Null);
                match copied {
                    // Plan invariant (7): nothing above reads the others.
                    Some(cells) => cells.iter().for_each(|&c| assign(&mut buffer[c], &row[c])),
                    None => (buffer.iter_mut().zip(row)).for_each(|(cell, v)| assign(cell, v)),
                }
                for (i, e) in exprs.iter().enumerate() {
                    match e.column_index().filter(|&column| column < *at) {
                        // A select value that is a FROM column: the cell as it is.
                        Some(column) => assign(&mut buffer[at + i], &row[column]),
                        None => buffer[at + i] = e.eval(&buffer, &ctx.eval)?,
                    }
                }
                out(&buffer)
            })
        }
        Plan::Project { input, exprs } => {
            // Kept with its values: the next statement's strings reuse their allocations.
            let mut buffer = spare::lend(&ROW_BUFFER, |row| {
                worth_keeping(row, usize::MAX, KEPT_ROW_BYTES)
            });
            buffer.resize(exprs.len(), Value::Null);
            run(input, ctx, &mut |row| {
                for (slot, e) in buffer.iter_mut().zip(exprs) {
                    match e.column_index().and_then(|i| row.get(i)) {
                        Some(value) => assign(slot, value),
                        None => *slot = e.eval(row, &ctx.eval)?,
                    }
                }
                out(&buffer)
            })
        }
        Plan::Distinct { input, types } => {
            let mut seen = KeySet::default();
            run(input, ctx, &mut |row| {
                assert_eq!(row.len(), types.len(), "DISTINCT has a type per column");
                let new = seen.insert_with(|key| {
                    for (v, t) in row.iter().zip(types) {
                        group_key(v, Some(t), key);
                    }
                });
                if new {
                    out(row)
                } else {
                    Ok(ControlFlow::Continue(()))
                }
            })
        }
        Plan::Limit {
            input,
            offset,
            count,
        } => {
            let mut skip = count_value(*offset, ctx)?;
            let mut left = match count {
                Some(c) => count_value(*c, ctx)?,
                None => u64::MAX,
            };
            if left == 0 {
                return Ok(ControlFlow::Continue(()));
            }
            run(input, ctx, &mut |row| {
                if skip > 0 {
                    skip -= 1;
                    return Ok(ControlFlow::Continue(()));
                }
                left -= 1;
                let flow = out(row)?;
                if left == 0 {
                    return Ok(ControlFlow::Break(()));
                }
                Ok(flow)
            })
            .map(|_| ControlFlow::Continue(()))
        }
        Plan::Sort {
            input,
            keys,
            kept,
            distinct,
        } => run_sort(input, keys, kept.as_deref(), *distinct, ctx, out),
        Plan::Aggregate {
            input,
            group_by,
            calls,
            width,
            select_width,
            rollup,
        } => match rollup {
            false => run_aggregate(input, group_by, calls, *width, *select_width, ctx, out),
            true => {
                let mut rollup = Rollup::new(group_by, calls, *width, *select_width);
                if run(input, ctx, &mut |row| rollup.add(row, ctx, out))?.is_break() {
                    return Ok(ControlFlow::Break(()));
                }
                rollup.finish(ctx, out)
            }
        },
        Plan::Window { input, calls, at } => crate::window::run(input, calls, *at, ctx, out),
        Plan::SetOperation(operation) => run_set_operation(operation, ctx, out),
        Plan::Recursive(cte) => run_recursive(cte, ctx, out),
        Plan::WorkTable { id } => {
            let rows = WORK_TABLES.with(|tables| {
                tables
                    .borrow()
                    .iter()
                    .rev()
                    .find(|(table, _)| table == id)
                    .map(|(_, rows)| Rc::clone(rows))
            });
            // Plan invariant (3): the binder puts work tables only inside their CTE.
            let rows = rows.expect("a work table is read inside its recursive CTE's run");
            for row in rows.iter() {
                if out(row)?.is_break() {
                    return Ok(ControlFlow::Break(()));
                }
            }
            Ok(ControlFlow::Continue(()))
        }
    }
}

/// The row slot each table of a join's current row came from, at the table's first cell
/// (`SourceTable::offset`); None where nothing was read or the row is NULL-extended.
pub type JoinSlots = RefCell<Vec<Option<Arc<RowSlot>>>>;

/// The row slots `run_join_slots` hands over with each joined row.
pub type RowSlots = [Option<Arc<RowSlot>>];

/// Runs a join planned by `join::plan` (or a single-table scan), calling `out` for each
/// joined row with the slots of its rows (multi-table UPDATE and DELETE). Only the slots
/// of the tables the plan reports are meaningful: buffered steps record none.
pub fn run_join_slots(
    plan: &Plan,
    ctx: &ExecContext,
    out: &mut dyn FnMut(&[Value], &RowSlots) -> Flow,
) -> Flow {
    match plan {
        Plan::Join(join) => run_join_with_slots(join, ctx, out),
        Plan::Scan(scan) => scan_rows(scan, ctx, &mut |slot, row| {
            out(row, std::slice::from_ref(&Some(slot.clone())))
        }),
        other => unreachable!("a write's join is a join or a scan: {other:?}"),
    }
}

/// `run_join_slots` of a join (also a locking read's: `session::locking_read`).
pub fn run_join_with_slots(
    join: &Join,
    ctx: &ExecContext,
    out: &mut dyn FnMut(&[Value], &RowSlots) -> Flow,
) -> Flow {
    let mut row = vec![Value::Null; join.width];
    let buffers: Vec<Buffer> = (0..join.buffers).map(|_| Buffer::new()).collect();
    let slots: JoinSlots = RefCell::new(vec![None; join.width]);
    run_steps(
        &join.steps,
        &mut row,
        &buffers,
        Some(&slots),
        ctx,
        &mut |row| out(row, &slots.borrow()),
    )
}

/// Runs a recursive CTE (`cte` module notes): the anchor's rows, then iterations of the
/// recursive parts over the rows the previous iteration added, each iteration's rows
/// stored into the anchor's column types. Rows go to `out` as they are added, outside
/// the iterations, so `out` may run this CTE again (a second reference) without meeting
/// this run's work table.
fn run_recursive(
    cte: &RecursiveCte,
    ctx: &ExecContext,
    out: &mut dyn FnMut(&[Value]) -> Flow,
) -> Flow {
    let session = ctx.eval.session;
    let strict = session.strict();
    let iterations_max =
        match session.system_variable("max_recursive_iterations", VarScope::Session)? {
            Value::UInt(n) => n,
            _ => u64::MAX,
        };
    // Keys of the rows added so far (UNION DISTINCT only).
    let mut seen = KeySet::default();
    let mut is_new = |row: &[Value]| {
        cte.all
            || seen.insert_with(|key| {
                for (value, data_type) in row.iter().zip(&cte.types) {
                    group_key(value, Some(data_type), key);
                }
            })
    };
    let mut added: Vec<Vec<Value>> = Vec::new();
    let flow = run(&cte.anchor, ctx, &mut |row| {
        if !is_new(row) {
            return Ok(ControlFlow::Continue(()));
        }
        added.push(row.to_vec());
        out(row)
    })?;
    if flow.is_break() {
        return Ok(flow);
    }
    let mut row_count = added.len() as u64;
    let mut iterations = 0u64;
    while !added.is_empty() {
        if iterations >= iterations_max {
            session.warn(
                crate::ErrorCode::QueryResultIncomplete,
                format!(
                    "Query execution was interrupted. The query exceeded \
                     max_recursive_iterations = {iterations_max}. The query result may be \
                     incomplete"
                ),
            );
            break;
        }
        iterations += 1;
        let work = Rc::new(std::mem::take(&mut added));
        WORK_TABLES.with(|tables| tables.borrow_mut().push((cte.id, Rc::clone(&work))));
        let mut step = || -> Result<()> {
            for (plan, _) in &cte.steps {
                let _ = run(plan, ctx, &mut |row| {
                    let mut stored = Vec::with_capacity(row.len());
                    for (i, (value, to)) in row.iter().zip(&cte.types).enumerate() {
                        let row_number = row_count + added.len() as u64 + 1;
                        let name = || cte.names[i].clone();
                        stored.push(store_value(
                            value.clone(),
                            to,
                            &name,
                            row_number,
                            strict,
                            session,
                        )?);
                    }
                    if is_new(&stored) {
                        added.push(stored);
                    }
                    Ok(ControlFlow::Continue(()))
                })?;
            }
            Ok(())
        };
        let result = step();
        WORK_TABLES.with(|tables| tables.borrow_mut().pop());
        result?;
        row_count += added.len() as u64;
        for row in &added {
            if out(row)?.is_break() {
                return Ok(ControlFlow::Break(()));
            }
        }
    }
    Ok(ControlFlow::Continue(()))
}

/// The rows a `JoinSource::Rows` step keeps for one run of its join (join invariant (5)).
type Buffer = OnceCell<Vec<Vec<Value>>>;

/// Copies a source's row into its cells of the join row.
fn fill_cells(row: &mut [Value], offset: usize, values: &[Value]) {
    for (cell, value) in row[offset..].iter_mut().zip(values) {
        assign(cell, value);
    }
}

/// A join's nested loops (plan module notes): fills the cells of `steps[0]` from each of
/// its rows, checks the step's filter, and goes on with the rest; past the last step the
/// whole row goes to `next`. With `slots`, table steps record their rows' slots there.
fn run_steps(
    steps: &[JoinStep],
    row: &mut [Value],
    buffers: &[Buffer],
    slots: Option<&JoinSlots>,
    ctx: &ExecContext,
    next: &mut dyn FnMut(&mut [Value]) -> Flow,
) -> Flow {
    let Some((step, rest)) = steps.split_first() else {
        return next(row);
    };
    let mut deeper = |row: &mut [Value]| -> Flow {
        if let Some(filter) = &step.filter {
            if !is_true(filter, row, ctx)? {
                return Ok(ControlFlow::Continue(()));
            }
        }
        run_steps(rest, row, buffers, slots, ctx, &mut *next)
    };
    match &step.source {
        JoinSource::Table { scan, offset } => {
            // Invariant (2) within one scan; an inner table's scans are often short.
            if ctx.interrupt.interrupted() {
                return Err(Error::interrupted());
            }
            // The key values read the cells of earlier steps: evaluated before the scan
            // overwrites this step's cells.
            let (resolved, from_text) = resolve_access(scan, row, ctx)?;
            scan_resolved(scan, resolved, from_text, ctx, &mut |slot, table_row| {
                fill_cells(row, *offset, table_row);
                if let Some(slots) = slots {
                    slots.borrow_mut()[*offset] = Some(slot.clone());
                }
                deeper(row)
            })
        }
        JoinSource::Rows {
            plan,
            offset,
            own,
            buffer,
        } => {
            let Some(slot) = buffer else {
                return run(plan, ctx, &mut |made| {
                    fill_cells(row, *offset, made);
                    deeper(row)
                });
            };
            let buffer = &buffers[*slot];
            if buffer.get().is_none() {
                let mut kept = Vec::new();
                let _ = run(plan, ctx, &mut |made| {
                    fill_cells(row, *offset, made);
                    if own
                        .as_ref()
                        .map_or(Ok(true), |own| is_true(own, row, ctx))?
                    {
                        kept.push(made.to_vec());
                    }
                    Ok(ControlFlow::Continue(()))
                })?;
                let _ = buffer.set(kept);
            }
            let kept = buffer.get().expect("filled above");
            for (i, made) in kept.iter().enumerate() {
                // Invariant (2): a replay visits rows as a scan does.
                if (i as u64 + 1).is_multiple_of(INTERRUPT_CHECK_ROWS)
                    && ctx.interrupt.interrupted()
                {
                    return Err(Error::interrupted());
                }
                fill_cells(row, *offset, made);
                if deeper(row)?.is_break() {
                    return Ok(ControlFlow::Break(()));
                }
            }
            Ok(ControlFlow::Continue(()))
        }
        JoinSource::Outer {
            steps: inner,
            nulls,
        } => {
            let mut matched = false;
            let flow = run_steps(inner, row, buffers, slots, ctx, &mut |row| {
                matched = true;
                deeper(row)
            })?;
            if flow.is_break() || matched {
                return Ok(flow);
            }
            for cells in nulls {
                row[cells.clone()].fill(Value::Null);
                if let Some(slots) = slots {
                    slots.borrow_mut()[cells.start] = None;
                }
            }
            deeper(row)
        }
    }
}

/// Runs `plan`, converting each row from `from` to `to` (the set operation's column types)
/// and appending its key (`group_key` per column) to `key`.
fn run_conformed(
    plan: &Plan,
    from: &[DataType],
    to: &[DataType],
    ctx: &ExecContext,
    out: &mut dyn FnMut(&[Value], &[u8]) -> Flow,
) -> Flow {
    let mut converted = Vec::with_capacity(to.len());
    let mut key = Vec::new();
    run(plan, ctx, &mut |row| {
        converted.clear();
        key.clear();
        for ((value, from), to) in row.iter().zip(from).zip(to) {
            let value = crate::expr::function::conform(value.clone(), from, to, &ctx.eval)?;
            group_key(&value, Some(to), &mut key);
            converted.push(value);
        }
        out(&converted, &key)
    })
}

fn run_set_operation(
    operation: &SetOperation,
    ctx: &ExecContext,
    out: &mut dyn FnMut(&[Value]) -> Flow,
) -> Flow {
    let SetOperation {
        operator,
        all,
        left,
        right,
        left_types,
        right_types,
        types,
    } = operation;
    let left_rows =
        |f: &mut dyn FnMut(&[Value], &[u8]) -> Flow| run_conformed(left, left_types, types, ctx, f);
    // Keys already emitted, for the DISTINCT forms.
    let mut emitted = KeySet::default();
    let mut first_time = |key: &[u8]| *all || emitted.insert(key);
    if *operator == SetOperator::Union {
        let flow = left_rows(&mut |row, key| match first_time(key) {
            true => out(row),
            false => Ok(ControlFlow::Continue(())),
        })?;
        if flow.is_break() {
            return Ok(flow);
        }
        return run_conformed(
            right,
            right_types,
            types,
            ctx,
            &mut |row, key| match first_time(key) {
                true => out(row),
                false => Ok(ControlFlow::Continue(())),
            },
        );
    }
    // INTERSECT and EXCEPT: count the right side's rows by key, then filter the left's.
    let mut right_counts = foldhash::HashMap::<Vec<u8>, u64>::default();
    let _ = run_conformed(right, right_types, types, ctx, &mut |_, key| {
        *right_counts.entry(key.to_vec()).or_insert(0) += 1;
        Ok(ControlFlow::Continue(()))
    })?;
    let intersect = *operator == SetOperator::Intersect;
    left_rows(&mut |row, key| {
        let in_right = match right_counts.get_mut(key) {
            // ALL pairs each left row with one right row, once.
            Some(count) if *count > 0 => {
                if *all {
                    *count -= 1;
                }
                true
            }
            _ => false,
        };
        if in_right == intersect && first_time(key) {
            out(row)
        } else {
            Ok(ControlFlow::Continue(()))
        }
    })
}

/// A LIMIT or OFFSET operand's value in this execution.
pub fn count_value(count: Count, ctx: &ExecContext) -> Result<u64> {
    match count {
        Count::Value(v) => Ok(v),
        Count::Parameter(i) => match ctx.eval.params.get(i) {
            Some(Value::Int(v)) if *v >= 0 => Ok(*v as u64),
            Some(Value::UInt(v)) => Ok(*v),
            Some(Value::Bytes(b)) => std::str::from_utf8(b)
                .ok()
                .and_then(|s| s.trim().parse().ok())
                .ok_or_else(|| {
                    Error::new(
                        crate::ErrorCode::WrongArguments,
                        "Incorrect arguments to LIMIT",
                    )
                }),
            _ => Err(Error::new(
                crate::ErrorCode::WrongArguments,
                "Incorrect arguments to LIMIT",
            )),
        },
    }
}

/// The names `scan`'s lookups ask for, their values evaluated as text (a number names
/// the table spelt as it prints, as in MariaDB).
fn name_lookup(scan: &SystemScan, ctx: &ExecContext) -> Result<NameLookup> {
    let names = scan
        .lookups
        .iter()
        .map(|lookup| {
            let value = lookup.value.eval(&[], &ctx.eval)?;
            let name = (!value.is_null()).then(|| format::to_text(&value, &DataType::Null));
            Ok((lookup.cell, name))
        })
        .collect::<Result<_>>()?;
    Ok(NameLookup::new(scan.table, names))
}

pub fn is_true(predicate: &Expr, row: &[Value], ctx: &ExecContext) -> Result<bool> {
    Ok(predicate.eval_bool(row, &ctx.eval)? == Some(true))
}

/// `Plan::Sort`. A buffered row holds the `kept` cells of the input row (all when None),
/// then the values of the keys that are not kept cells: a key that is a kept cell is
/// compared in place rather than copied once more. With `distinct`, a row whose keys all
/// equal the previous row's is not passed on (plan invariant (6)).
///
/// The rows lie end to end in one reused run of cells, and the sort orders their
/// positions: a row costs no allocation of its own, and a string cell reuses the one an
/// earlier sort left there.
fn run_sort(
    input: &Plan,
    keys: &[SortKey],
    kept: Option<&[usize]>,
    distinct: bool,
    ctx: &ExecContext,
    out: &mut dyn FnMut(&[Value]) -> Flow,
) -> Flow {
    // Each key's kept cell, or None for a key evaluated and buffered after the row.
    let kept_cells: Vec<Option<usize>> = keys
        .iter()
        .map(|key| {
            (key.expr.column_index()).filter(|column| kept.is_none_or(|kept| kept.contains(column)))
        })
        .collect();
    let evaluated = kept_cells.iter().filter(|cell| cell.is_none()).count();
    let mut cells = spare::lend(&SORT_CELLS, |cells| {
        worth_keeping(cells, KEPT_SORT_CELLS, KEPT_SORT_BYTES)
    });
    let mut width = None;
    let mut count = 0;
    let _ = run(input, ctx, &mut |row| {
        let width = *width.get_or_insert(row.len());
        assert_eq!(row.len(), width, "a sort's input rows have one width");
        let start = count * (width + evaluated);
        if cells.len() < start + width + evaluated {
            cells.resize(start + width + evaluated, Value::Null);
        }
        let buffered = &mut cells[start..start + width + evaluated];
        match kept {
            // The other cells hold what an earlier row left (invariant (4)).
            Some(kept) => kept.iter().for_each(|&c| assign(&mut buffered[c], &row[c])),
            None => (buffered.iter_mut().zip(row)).for_each(|(cell, v)| assign(cell, v)),
        }
        let evaluated_keys = keys.iter().zip(&kept_cells).filter(|(_, c)| c.is_none());
        for (slot, (key, _)) in buffered[width..].iter_mut().zip(evaluated_keys) {
            *slot = key.expr.eval(row, &ctx.eval)?;
        }
        count += 1;
        Ok(ControlFlow::Continue(()))
    })?;
    let Some(width) = width else {
        return Ok(ControlFlow::Continue(()));
    };
    let stride = width + evaluated;
    let mut next_evaluated = width;
    let positions = kept_cells.iter().map(|cell| {
        cell.unwrap_or_else(|| {
            next_evaluated += 1;
            next_evaluated - 1
        })
    });
    let orders: Vec<KeyOrder> = keys
        .iter()
        .zip(positions)
        .map(|(key, position)| KeyOrder::new(key, position))
        .collect();
    let row = |i: usize| &cells[i * stride..(i + 1) * stride];
    let compare = |a: &[Value], b: &[Value]| compare_rows(&orders, a, b, ctx.eval.session);
    // Stable: rows with equal keys keep their input order.
    let mut order: Vec<usize> = (0..count).collect();
    order.sort_by(|&a, &b| compare(row(a), row(b)));
    let mut previous: Option<&[Value]> = None;
    let mut delivered = 0;
    let mut flow = ControlFlow::Continue(());
    for &i in &order {
        let row = row(i);
        if distinct && previous.is_some_and(|p| compare(p, row) == Ordering::Equal) {
            continue;
        }
        previous = Some(row);
        delivered += 1;
        flow = out(&row[..width])?;
        if flow.is_break() {
            break;
        }
    }
    // Sort_rows: those delivered, as MariaDB counts a LIMIT's sort.
    ctx.eval.session.count(Counter::SortRows, delivered);
    Ok(flow)
}

/// Sorts by keys: NULL first ascending (last descending), stable for equal keys.
pub fn sort_rows<T>(
    rows: &mut [(Vec<Value>, T)],
    keys: &[SortKey],
    session: &dyn crate::expr::SessionContext,
) {
    let orders: Vec<KeyOrder> = (keys.iter().enumerate())
        .map(|(i, key)| KeyOrder::new(key, i))
        .collect();
    rows.sort_by(|a, b| compare_rows(&orders, &a.0, &b.0, session));
    session.count(Counter::SortRows, rows.len() as u64);
}

/// How a sort compares one key, chosen once per sort rather than for each pair of rows:
/// data_type() may build a type, and choosing the comparison was 40% of sorting
/// sysbench's CHAR rows.
pub(crate) struct KeyOrder {
    /// Where the key's value is in the compared rows.
    position: usize,
    descending: bool,
    data_type: DataType,
    /// What `coerce::compare` compares two strings of `data_type` in.
    strings: manycore_types::Collation,
}

impl KeyOrder {
    pub(crate) fn new(key: &SortKey, position: usize) -> KeyOrder {
        KeyOrder::of_type(key.expr.data_type(), key.descending, position)
    }

    pub(crate) fn of_type(data_type: DataType, descending: bool, position: usize) -> KeyOrder {
        KeyOrder {
            position,
            descending,
            strings: coerce::string_collation(&data_type),
            data_type,
        }
    }

    /// NULL first ascending (last descending), then as `coerce::compare`.
    pub(crate) fn compare(
        &self,
        a: &Value,
        b: &Value,
        session: &dyn crate::expr::SessionContext,
    ) -> Ordering {
        let ord = match (a, b) {
            (Value::Null, Value::Null) => Ordering::Equal,
            (Value::Null, _) => Ordering::Less,
            (_, Value::Null) => Ordering::Greater,
            (Value::Bytes(x), Value::Bytes(y)) => self.strings.compare(x, y),
            _ => coerce::compare(a, &self.data_type, b, &self.data_type, session)
                .unwrap_or(Ordering::Equal),
        };
        if self.descending {
            ord.reverse()
        } else {
            ord
        }
    }
}

/// The order of two rows by `orders`, the first key that tells them apart deciding.
pub(crate) fn compare_rows(
    orders: &[KeyOrder],
    a: &[Value],
    b: &[Value],
    session: &dyn crate::expr::SessionContext,
) -> Ordering {
    for order in orders {
        let ord = order.compare(&a[order.position], &b[order.position], session);
        if ord != Ordering::Equal {
            return ord;
        }
    }
    Ordering::Equal
}

/// Appends a byte key under which equal values (SQL equality, the type's collation for
/// strings) are equal, for GROUP BY and DISTINCT. Never panics on a type mismatch.
pub fn group_key(value: &Value, data_type: Option<&DataType>, out: &mut Vec<u8>) {
    match value {
        Value::Null => out.push(0),
        Value::Int(i) => {
            out.push(1);
            out.extend_from_slice(&(*i as i128).to_be_bytes());
        }
        Value::UInt(u) => {
            out.push(1);
            out.extend_from_slice(&(*u as i128).to_be_bytes());
        }
        Value::Double(d) => {
            out.push(2);
            let d = if *d == 0.0 { 0.0 } else { *d };
            out.extend_from_slice(&d.to_bits().to_be_bytes());
        }
        Value::Decimal(d) => {
            out.push(3);
            out.extend_from_slice(d.normalize().to_string().as_bytes());
            out.push(0);
        }
        Value::Bytes(b) => {
            out.push(4);
            let collation = data_type
                .map(coerce::string_collation)
                .unwrap_or(manycore_types::Collation::Utf8mb4GeneralCi);
            // The weight's length, written once the weight is appended after it.
            let length_at = out.len();
            out.extend_from_slice(&[0; 4]);
            collation.append_weight(b, out);
            let length = (out.len() - length_at - 4) as u32;
            out[length_at..length_at + 4].copy_from_slice(&length.to_be_bytes());
        }
        Value::Date(d) => {
            out.push(5);
            out.extend_from_slice(&d.year.to_be_bytes());
            out.extend_from_slice(&[d.month, d.day, 0, 0, 0]);
            out.extend_from_slice(&0u32.to_be_bytes());
        }
        Value::DateTime(dt) => {
            out.push(5);
            out.extend_from_slice(&dt.date.year.to_be_bytes());
            out.extend_from_slice(&[dt.date.month, dt.date.day, dt.hour, dt.minute, dt.second]);
            out.extend_from_slice(&dt.microsecond.to_be_bytes());
        }
        Value::Time(t) => {
            out.push(6);
            out.extend_from_slice(&t.microseconds().to_be_bytes());
        }
    }
}

struct Group {
    first: Vec<Value>,
    accumulators: Vec<Accumulator>,
}

fn run_aggregate(
    input: &Plan,
    group_by: &[Expr],
    calls: &[crate::expr::AggregateCall],
    width: usize,
    select_width: usize,
    ctx: &ExecContext,
    out: &mut dyn FnMut(&[Value]) -> Flow,
) -> Flow {
    let mut groups: Vec<Group> = Vec::new();
    let mut index = foldhash::HashMap::<Vec<u8>, usize>::default();
    let mut key = Vec::new();
    let _ = run(input, ctx, &mut |row| {
        let new_group = |groups: &mut Vec<Group>| {
            groups.push(Group {
                first: row.to_vec(),
                accumulators: calls.iter().map(Accumulator::new).collect(),
            });
            groups.len() - 1
        };
        let g = if group_by.is_empty() {
            // One group: no key to make or look up per row.
            match groups.is_empty() {
                true => new_group(&mut groups),
                false => 0,
            }
        } else {
            key.clear();
            for e in group_by {
                let v = e.eval(row, &ctx.eval)?;
                group_key(&v, Some(&e.data_type()), &mut key);
            }
            match index.get(&key) {
                Some(&g) => g,
                None => {
                    let g = new_group(&mut groups);
                    index.insert(key.clone(), g);
                    g
                }
            }
        };
        for acc in &mut groups[g].accumulators {
            acc.update(row, &ctx.eval)?;
        }
        Ok(ControlFlow::Continue(()))
    })?;
    if groups.is_empty() && group_by.is_empty() {
        groups.push(Group {
            first: vec![Value::Null; width],
            accumulators: calls.iter().map(Accumulator::new).collect(),
        });
    }
    let mut row = Vec::with_capacity(width + select_width + calls.len());
    for group in groups {
        row.clear();
        row.extend(group.first);
        row.resize(width + select_width, Value::Null);
        for acc in group.accumulators {
            row.push(acc.finish(&ctx.eval)?);
        }
        if out(&row)?.is_break() {
            return Ok(ControlFlow::Break(()));
        }
    }
    Ok(ControlFlow::Continue(()))
}

/// WITH ROLLUP's aggregation (plan invariant (8)) over rows sorted by the GROUP BY
/// values, so that each group's rows, and each prefix's groups, are neighbours: it keeps
/// one set of accumulators per prefix length and emits a prefix's row as its last group
/// ends, without holding the groups.
struct Rollup<'a> {
    group_by: &'a [Expr],
    calls: &'a [crate::expr::AggregateCall],
    width: usize,
    select_width: usize,
    /// `accumulators[p]`: the aggregates of the rows read since the first p GROUP BY
    /// values last changed (`p == group_by.len()`: the current group's).
    accumulators: Vec<Vec<Accumulator>>,
    /// Whether a row has been read, so that there is a current group.
    in_group: bool,
    /// The current group's first row, its GROUP BY values, and their `group_key`s
    /// (`ends[i]`: where value i's key ends).
    first: Vec<Value>,
    values: Vec<Value>,
    key: Vec<u8>,
    ends: Vec<usize>,
    /// The incoming row's, compared with the current group's.
    row_values: Vec<Value>,
    row_key: Vec<u8>,
    row_ends: Vec<usize>,
    emitted: Vec<Value>,
}

impl<'a> Rollup<'a> {
    fn new(
        group_by: &'a [Expr],
        calls: &'a [crate::expr::AggregateCall],
        width: usize,
        select_width: usize,
    ) -> Rollup<'a> {
        assert!(!group_by.is_empty(), "WITH ROLLUP follows a GROUP BY list");
        Rollup {
            group_by,
            calls,
            width,
            select_width,
            accumulators: (0..=group_by.len())
                .map(|_| calls.iter().map(Accumulator::new).collect())
                .collect(),
            in_group: false,
            first: Vec::new(),
            values: Vec::new(),
            key: Vec::new(),
            ends: Vec::new(),
            row_values: Vec::new(),
            row_key: Vec::new(),
            row_ends: Vec::new(),
            emitted: Vec::with_capacity(width + select_width + calls.len() + group_by.len()),
        }
    }

    fn add(
        &mut self,
        row: &[Value],
        ctx: &ExecContext,
        out: &mut dyn FnMut(&[Value]) -> Flow,
    ) -> Flow {
        self.row_values.clear();
        self.row_key.clear();
        self.row_ends.clear();
        for e in self.group_by {
            let value = e.eval(row, &ctx.eval)?;
            group_key(&value, Some(&e.data_type()), &mut self.row_key);
            self.row_values.push(value);
            self.row_ends.push(self.row_key.len());
        }
        if !self.in_group {
            self.start_group(row);
        } else {
            // How many leading GROUP BY values this row shares with the current group.
            let shared = (0..self.group_by.len())
                .take_while(|&i| self.key[..self.ends[i]] == self.row_key[..self.row_ends[i]])
                .count();
            if shared < self.group_by.len() {
                if self.emit_down_to(shared + 1, ctx, out)?.is_break() {
                    return Ok(ControlFlow::Break(()));
                }
                self.start_group(row);
            }
        }
        for accumulators in &mut self.accumulators {
            for acc in accumulators {
                acc.update(row, &ctx.eval)?;
            }
        }
        Ok(ControlFlow::Continue(()))
    }

    fn start_group(&mut self, row: &[Value]) {
        self.in_group = true;
        self.first.clear();
        self.first.extend_from_slice(row);
        std::mem::swap(&mut self.values, &mut self.row_values);
        std::mem::swap(&mut self.key, &mut self.row_key);
        std::mem::swap(&mut self.ends, &mut self.row_ends);
    }

    /// After the last row: the last group's rows and every prefix's, down to the grand
    /// total. Nothing over no rows, as in MariaDB.
    fn finish(mut self, ctx: &ExecContext, out: &mut dyn FnMut(&[Value]) -> Flow) -> Flow {
        if !self.in_group {
            return Ok(ControlFlow::Continue(()));
        }
        self.emit_down_to(0, ctx, out)
    }

    /// Emits the rows of prefix lengths `group_by.len()` (the group itself) down to
    /// `shortest`, each starting its prefix's aggregates afresh.
    fn emit_down_to(
        &mut self,
        shortest: usize,
        ctx: &ExecContext,
        out: &mut dyn FnMut(&[Value]) -> Flow,
    ) -> Flow {
        for prefix in (shortest..=self.group_by.len()).rev() {
            let row = &mut self.emitted;
            row.clear();
            row.extend_from_slice(&self.first);
            row.resize(self.width + self.select_width, Value::Null);
            for acc in &self.accumulators[prefix] {
                row.push(acc.finish(&ctx.eval)?);
            }
            row.extend_from_slice(&self.values[..prefix]);
            row.resize(row.len() + self.group_by.len() - prefix, Value::Null);
            self.accumulators[prefix] = self.calls.iter().map(Accumulator::new).collect();
            if out(row)?.is_break() {
                return Ok(ControlFlow::Break(()));
            }
        }
        Ok(ControlFlow::Continue(()))
    }
}

/// Where a scan goes after evaluating its access path's values.
enum Resolved {
    Full,
    Nothing,
    Point(Loan<Vec<u8>>),
    /// Ranges of an index; `unique_points` when each is one value of every column of a
    /// unique index (an IN list on the primary key): at most one row each.
    Ranges {
        index: IndexNo,
        ranges: Vec<KeyRange>,
        unique_points: bool,
    },
}

/// Visits the rows of `scan` that pass its filter, with their slots (for UPDATE/DELETE).
pub fn scan_rows(
    scan: &Scan,
    ctx: &ExecContext,
    f: &mut dyn FnMut(&Arc<RowSlot>, &[Value]) -> Flow,
) -> Flow {
    scan_rows_in_order(scan, ctx, f).map(|(flow, _)| flow)
}

/// `scan_rows`, also saying whether the rows came in the order of the scan's access path:
/// false when a key value without an exact conversion made it a full scan, whose rows
/// come in primary-key order (`Scan::reads_in_order_of`).
pub fn scan_rows_in_order(
    scan: &Scan,
    ctx: &ExecContext,
    f: &mut dyn FnMut(&Arc<RowSlot>, &[Value]) -> Flow,
) -> Result<(ControlFlow<()>, bool)> {
    let (resolved, from_text) = resolve_access(scan, &[], ctx)?;
    let fell_back =
        matches!(scan.access, AccessPath::Index(_)) && matches!(resolved, Resolved::Full);
    Ok((
        scan_resolved(scan, resolved, from_text, ctx, f)?,
        !fell_back,
    ))
}

/// Where `scan`'s access path leads, its key values evaluated on `outer` (a join's row so
/// far; empty for one table), and whether one of them was a string (see `key_value`).
fn resolve_access(scan: &Scan, outer: &[Value], ctx: &ExecContext) -> Result<(Resolved, bool)> {
    let from_text = Cell::new(false);
    let resolved = match &scan.access {
        AccessPath::Full => Resolved::Full,
        AccessPath::Index(access) => resolve(scan, access, outer, ctx, &from_text)?,
    };
    Ok((resolved, from_text.get()))
}

fn scan_resolved(
    scan: &Scan,
    resolved: Resolved,
    from_text: bool,
    ctx: &ExecContext,
    f: &mut dyn FnMut(&Arc<RowSlot>, &[Value]) -> Flow,
) -> Flow {
    let filter = match resolved {
        Resolved::Full => &scan.filter,
        _ if from_text => &scan.filter,
        _ => &scan.residual,
    };
    let mut visited = 0u64;
    let mut error = None;
    let mut stopped = false;
    let handler_reads;
    {
        let mut visit = |slot: &Arc<RowSlot>, row: &[Value]| -> ControlFlow<()> {
            visited += 1;
            if visited.is_multiple_of(INTERRUPT_CHECK_ROWS) && ctx.interrupt.interrupted() {
                error = Some(Error::interrupted());
                return ControlFlow::Break(());
            }
            if ctx
                .skipped
                .is_some_and(|rows| rows.contains(&Arc::as_ptr(slot)))
            {
                return ControlFlow::Continue(());
            }
            if let Some(filter) = filter {
                match is_true(filter, row, ctx) {
                    Ok(true) => {}
                    Ok(false) => return ControlFlow::Continue(()),
                    Err(e) => {
                        error = Some(e);
                        return ControlFlow::Break(());
                    }
                }
            }
            match f(slot, row) {
                Ok(ControlFlow::Continue(())) => ControlFlow::Continue(()),
                Ok(ControlFlow::Break(())) => {
                    stopped = true;
                    ControlFlow::Break(())
                }
                Err(e) => {
                    error = Some(e);
                    ControlFlow::Break(())
                }
            }
        };
        let table = &scan.table;
        handler_reads = match resolved {
            Resolved::Nothing => HandlerReads::default(),
            Resolved::Full => {
                table.scan(&ctx.view, IndexNo::Primary, &KeyRange::all(), &mut visit);
                HandlerReads::full_scan()
            }
            Resolved::Point(key) => {
                table.get(&ctx.view, &key, |slot, row| visit(slot, row));
                HandlerReads::seeks(1, false)
            }
            Resolved::Ranges {
                index,
                ranges,
                unique_points,
            } => {
                let mut seeks = 0;
                for range in &ranges {
                    seeks += 1;
                    let mut halted = false;
                    table.scan(&ctx.view, index, range, |slot, row| {
                        let flow = visit(slot, row);
                        halted = flow.is_break();
                        flow
                    });
                    if halted {
                        break;
                    }
                }
                HandlerReads::seeks(seeks, !unique_points)
            }
        };
    }
    handler_reads.count(visited, stopped || error.is_some(), ctx);
    if let Some(e) = error {
        return Err(e);
    }
    Ok(if stopped {
        ControlFlow::Break(())
    } else {
        ControlFlow::Continue(())
    })
}

/// The storage reads one scan made, counted as MariaDB counts InnoDB's handler calls: a
/// seek of an index is Handler_read_key and returns the seek's first row; each further
/// row of a range, and the read that finds the range ended, Handler_read_next (none for
/// a unique point); each row of a whole-table scan, and the read that finds it ended,
/// Handler_read_rnd_next. A scan stopped early (LIMIT) did not make the ending read.
#[derive(Default)]
struct HandlerReads {
    seeks: u64,
    /// The seeks' ranges may hold more than one row.
    reads_next: bool,
    whole_table: bool,
}

impl HandlerReads {
    fn full_scan() -> HandlerReads {
        HandlerReads {
            whole_table: true,
            ..HandlerReads::default()
        }
    }

    fn seeks(seeks: u64, reads_next: bool) -> HandlerReads {
        HandlerReads {
            seeks,
            reads_next,
            whole_table: false,
        }
    }

    /// Counts the reads of a scan that visited `visited` rows.
    fn count(&self, visited: u64, stopped: bool, ctx: &ExecContext) {
        let session = ctx.eval.session;
        if self.whole_table {
            session.count(Counter::HandlerReadRndNext, visited + u64::from(!stopped));
            return;
        }
        if self.seeks > 0 {
            session.count(Counter::HandlerReadKey, self.seeks);
        }
        // The last range's first row came with its seek; a stopped scan made no ending read.
        let next = visited.saturating_sub(u64::from(stopped));
        if self.reads_next && next > 0 {
            session.count(Counter::HandlerReadNext, next);
        }
    }
}

/// `expr`'s value as a key of `data_type`: None if it has no exact one. Sets `from_text`
/// when the value is a string: comparing a row with it may warn (MariaDB warns once per
/// row about `id = ' 3 '`), so the scan then checks its whole WHERE clause per row.
fn key_value(
    expr: &Expr,
    data_type: &DataType,
    outer: &[Value],
    ctx: &ExecContext,
    from_text: &Cell<bool>,
) -> Result<Option<Value>> {
    let value = expr.eval(outer, &ctx.eval)?;
    if value.is_null() {
        return Ok(Some(Value::Null));
    }
    if let Value::Bytes(_) = value {
        from_text.set(true);
    }
    // Keys hold what cells hold: a TIMESTAMP bound is shifted to UTC as a stored value is.
    Ok(crate::expr::exact_key_value(&value, data_type)
        .map(|key| crate::expr::stored_cell(data_type, key, ctx.eval.session)))
}

fn resolve(
    scan: &Scan,
    access: &IndexAccess,
    outer: &[Value],
    ctx: &ExecContext,
    from_text: &Cell<bool>,
) -> Result<Resolved> {
    // The common point lookup (one value per primary-key column, no range): the key is
    // encoded straight into the reused buffer (invariant (3)); the general path below
    // gives the same key.
    let single_values = access.eq.iter().all(|alternatives| alternatives.len() == 1);
    if access.primary_point && access.lower.is_none() && access.upper.is_none() && single_values {
        let mut key = lend_key_buffer();
        for (alternatives, data_type) in access.eq.iter().zip(&access.types) {
            match key_value(&alternatives[0], data_type, outer, ctx, from_text)? {
                Some(Value::Null) => return Ok(Resolved::Nothing), // `= NULL` matches nothing.
                Some(v) => key::encode_field(&v, data_type, &mut key),
                None => return Ok(Resolved::Full),
            }
        }
        return Ok(Resolved::Point(key));
    }
    // Equality alternatives per column, converted; any inexact value -> full scan.
    let mut columns: Vec<Vec<Value>> = Vec::with_capacity(access.eq.len());
    for (i, alternatives) in access.eq.iter().enumerate() {
        let mut values = Vec::with_capacity(alternatives.len());
        let mut keys: Vec<(Vec<u8>, Value)> = Vec::new();
        for e in alternatives {
            match key_value(e, &access.types[i], outer, ctx, from_text)? {
                Some(Value::Null) => {} // `= NULL` matches nothing.
                Some(v) => {
                    let mut k = Vec::new();
                    key::encode_field(&v, &access.types[i], &mut k);
                    keys.push((k, v));
                }
                None => return Ok(Resolved::Full),
            }
        }
        keys.sort_by(|a, b| a.0.cmp(&b.0));
        keys.dedup_by(|a, b| a.0 == b.0);
        values.extend(keys.into_iter().map(|(_, v)| v));
        if values.is_empty() {
            return Ok(Resolved::Nothing);
        }
        columns.push(values);
    }
    let next_type = access.types.get(access.eq.len());
    let bound_value = |b: &Option<crate::plan::Bound>| -> Result<Option<Option<(Value, bool)>>> {
        match (b, next_type) {
            (Some(b), Some(t)) => match key_value(&b.expr, t, outer, ctx, from_text)? {
                Some(Value::Null) => Ok(None),
                Some(v) => Ok(Some(Some((v, b.inclusive)))),
                None => Ok(Some(None)),
            },
            _ => Ok(Some(None)),
        }
    };
    let lower = bound_value(&access.lower)?;
    let upper = bound_value(&access.upper)?;
    let (Some(lower), Some(upper)) = (lower, upper) else {
        return Ok(Resolved::Nothing); // A NULL bound: no row compares true.
    };
    let bound_inexact =
        (access.lower.is_some() && lower.is_none()) || (access.upper.is_some() && upper.is_none());
    if bound_inexact {
        return Ok(Resolved::Full);
    }
    // Cartesian product of the alternatives, in key order.
    let mut prefixes: Vec<Vec<Value>> = vec![Vec::new()];
    for values in &columns {
        let mut next = Vec::with_capacity(prefixes.len() * values.len());
        for p in &prefixes {
            for v in values {
                let mut q = p.clone();
                q.push(v.clone());
                next.push(q);
            }
        }
        prefixes = next;
    }
    if access.primary_point && lower.is_none() && upper.is_none() {
        let prefix = prefixes.pop().expect("one combination for a point lookup");
        let mut key = lend_key_buffer();
        *key = scan.table.primary_key(&prefix);
        return Ok(Resolved::Point(key));
    }
    let ranges = prefixes
        .into_iter()
        .map(|prefix| {
            let with = |v: &Value| {
                let mut p = prefix.clone();
                p.push(v.clone());
                p
            };
            let lower_bound = match &lower {
                Some((v, true)) => KeyBound::Included(with(v)),
                Some((v, false)) => KeyBound::Excluded(with(v)),
                // Skip NULLs of the ranged column: no comparison is true for them.
                None if upper.is_some() => KeyBound::Excluded(with(&Value::Null)),
                None if prefix.is_empty() => KeyBound::Unbounded,
                None => KeyBound::Included(prefix.clone()),
            };
            let upper_bound = match &upper {
                Some((v, true)) => KeyBound::Included(with(v)),
                Some((v, false)) => KeyBound::Excluded(with(v)),
                None if prefix.is_empty() => KeyBound::Unbounded,
                None => KeyBound::Included(prefix.clone()),
            };
            KeyRange {
                lower: lower_bound,
                upper: upper_bound,
            }
        })
        .collect();
    let schema = &scan.table.schema;
    let unique = match access.index {
        IndexNo::Primary => true,
        IndexNo::Secondary(i) => schema.indexes[i].unique,
    };
    let whole_key = access.eq.len() == schema.index_columns(access.index).len();
    Ok(Resolved::Ranges {
        index: access.index,
        ranges,
        unique_points: unique && whole_key && lower.is_none() && upper.is_none(),
    })
}
