//! EXPLAIN SELECT: MariaDB's traditional table (id, select_type, table, type,
//! possible_keys, key, key_len, ref, rows, Extra) describing manycore's own plan, one row
//! per table a query block reads, in the order its nested loops read them.
//!
//! The columns mean what they mean in MariaDB, for what manycore does:
//! - `type`: `const` (a unique key fully equal to constants: at most one row), `eq_ref` (the
//!   same with values of earlier tables), `ref` (equal leading key columns), `range` (IN
//!   alternatives or bounds on a key column) or `ALL` (every row). There is no `index`:
//!   manycore never reads an index alone.
//! - `possible_keys`: every key some conjunct constrains (`access::Choice`); `key` the one
//!   chosen; `key_len` the bytes of its parts used, as MariaDB counts them.
//! - `rows`: 1 for `const`/`eq_ref`; for a range of constants, the entries in it, counted
//!   when EXPLAIN runs (up to `COUNT_LIMIT`); otherwise the table's row count, an upper
//!   bound (MariaDB shows its statistics' estimate).
//! - `Extra`: `Using where` where rows are checked against conditions the access path does
//!   not enforce, `Using join buffer (flat, BNL join)` for a table read once and replayed
//!   per outer row, `Using temporary` for grouping, DISTINCT and window functions (rows
//!   buffered), `Using filesort` for ORDER BY, `No tables used`, and `Impossible WHERE`
//!   for a WHERE clause a constant conjunct makes false.
//!
//! Query blocks are numbered as met: derived tables read by a join get `<derivedN>` rows,
//! subqueries in expressions are SUBQUERY or DEPENDENT SUBQUERY (correlated), and the
//! operands of UNION/INTERSECT/EXCEPT are listed with a `<unionM,N>` result row (none when
//! every operator is UNION ALL), as MariaDB shows them. Unlike MariaDB, nothing is merged
//! or rewritten first: a derived table that is the only source is read as its own plan (its
//! tables appear in the outer block), and IN subqueries stay subqueries (MariaDB turns
//! them into semi-joins).
//!
//! Writes (`explain_write`, `explain_insert`): a single-table UPDATE or DELETE is
//! described from the Scan the write itself binds, as MariaDB's single-table plan shows it
//! (`range` for any key read, `ALL`, "Deleting all rows", "Impossible WHERE"); INSERT and
//! REPLACE ... VALUES are one `INSERT` row. INSERT and REPLACE ... SELECT (with ON
//! DUPLICATE KEY UPDATE too) are the SELECT's rows alone, as MariaDB shows them (no
//! `INSERT` row), with `Using temporary` when the SELECT reads the table written. A
//! multi-table UPDATE or DELETE is the join it reads (`multi_table`), described as a join
//! SELECT is. `tests/sql/explain.sql` compares these. Known to differ, so left out of that
//! file:
//! - an UPDATE of a table with a primary key that no key range reads (with or without
//!   WHERE): MariaDB shows `index` on PRIMARY, here `ALL`;
//! - ORDER BY ... LIMIT: MariaDB reads an index in order (`index`), here filesort;
//! - "Using buffer" (MariaDB's UPDATE of the key it reads by) is never shown;
//! - a DELETE without WHERE of an empty table: MariaDB's statistics say rows 1, here 0;
//! - multi-table writes, as join SELECTs: MariaDB orders the tables by cost (for small
//!   tables often the write's second table first, read `ALL` or `index` where here it is
//!   `eq_ref`), never uses its join buffer for them (here `Using join buffer` where a
//!   table is replayed), and shows `Using where` on the outer table a NULL-able join column
//!   is tested on, where here it is on each table a conjunct is checked at (`const` and
//!   `eq_ref` tables included) and a constant false conjunct of a join is not "Impossible
//!   WHERE";
//! - a locking read over a join (FOR UPDATE, LOCK IN SHARE MODE) reads each table per
//!   outer row, so its row slots can be locked (`session::locking_read`): no `Using join
//!   buffer`, which MariaDB still shows;
//! - INSERT ... SELECT of a SELECT whose plan differs as a SELECT (an `index` scan of a key
//!   covering the columns read, a subquery MariaDB optimizes away, `Using where` on ranges).
//!   Every INSERT ... SELECT buffers the SELECT's rows before writing (`dml`); only where
//!   MariaDB must too (the SELECT reads the target) is that shown.
//!
//! Not built: EXPLAIN EXTENDED or PARTITIONS of anything is a syntax error (1064) before it
//! gets here (the parser has neither).

use crate::access::{self, conjuncts};
use crate::exec::{self, ExecContext};
use crate::expr::{coerce, Expr};
use crate::plan::{AccessPath, IndexAccess, JoinSource, JoinStep, Plan, Scan, SetOperator};
use crate::show::Rows;
use crate::sink::ColumnInfo;
use manycore_storage::{IndexNo, Table};
use manycore_types::{DataType, IntWidth, Value};
use std::ops::ControlFlow;
use std::sync::Arc;

/// Most entries counted for a `rows` estimate; past it, the table's row count stands.
const COUNT_LIMIT: u64 = 100_000;

/// The EXPLAIN rows of `plan`, a bound SELECT; `ctx` reads the ranges it counts.
pub fn explain(plan: &Plan, ctx: &ExecContext) -> crate::Result<Rows> {
    Ok(table(select_rows(plan, ctx)?))
}

/// The EXPLAIN rows of an INSERT or REPLACE ... SELECT: MariaDB shows only the SELECT's
/// rows, with `Using temporary` on the first when the SELECT reads the table written (its
/// rows must all be read before the first is written; here every INSERT ... SELECT
/// buffers them, `dml`).
pub fn explain_insert_select(
    select: &Plan,
    reads_target: bool,
    ctx: &ExecContext,
) -> crate::Result<Rows> {
    let mut rows = select_rows(select, ctx)?;
    if reads_target {
        if let Some(first) = rows.first_mut() {
            if !first.extra.contains(&"Using temporary") {
                first.extra.insert(0, "Using temporary");
            }
        }
    }
    Ok(table(rows))
}

/// The rows of `plan`, a bound SELECT (or a multi-table write's join).
fn select_rows(plan: &Plan, ctx: &ExecContext) -> crate::Result<Vec<Row>> {
    let mut explainer = Explainer::new(ctx);
    let id = explainer.new_id();
    explainer.block(plan, id, "SIMPLE")?;
    // Block 1 is PRIMARY as soon as there is a second one.
    if explainer.next_id > 2 {
        for row in explainer.rows.iter_mut() {
            if row.id == Some(1) && row.select_type == "SIMPLE" {
                row.select_type = "PRIMARY";
            }
        }
    }
    Ok(explainer.rows)
}

/// The EXPLAIN rows of a single-table UPDATE or DELETE reading `scan`: MariaDB's
/// single-table plan, which knows no `const` or `ref` (its range optimizer picks the
/// key: `range`, rows counted), checks every WHERE clause (`Using where`), and does not
/// read the rows of a DELETE without WHERE, ORDER BY, LIMIT or DELETE triggers (`Deleting
/// all rows`).
/// `sorts`: the statement has an ORDER BY.
pub fn explain_write(
    scan: &Scan,
    sorts: bool,
    deletes_all: bool,
    ctx: &ExecContext,
) -> crate::Result<Rows> {
    let mut explainer = Explainer::new(ctx);
    let id = explainer.new_id();
    let impossible = scan
        .filter
        .as_ref()
        .is_some_and(|f| explainer.impossible(f));
    let row = if impossible {
        Row {
            id: Some(id),
            select_type: "SIMPLE",
            extra: vec!["Impossible WHERE"],
            ..Row::default()
        }
    } else if deletes_all {
        Row {
            id: Some(id),
            select_type: "SIMPLE",
            rows: Some(scan.table.approximate_row_count() as u64),
            extra: vec!["Deleting all rows"],
            ..Row::default()
        }
    } else {
        let mut row = explainer.scan_row(scan, id, "SIMPLE", &[], scan.filter.is_some())?;
        if let AccessPath::Index(index) = &scan.access {
            row.access = Some("range");
            row.reference = None;
            if index_is_constant(index) {
                // A range estimate is never below one row.
                row.rows = explainer.count(scan)?.map(|n| n.max(1)).or(row.rows);
            }
        }
        if sorts {
            row.extra.push("Using filesort");
        }
        row
    };
    explainer.rows.push(row);
    if !impossible {
        explainer.enclosing.push(vec![Named::of(0, scan)]);
        let explained = scan
            .filter
            .iter()
            .try_for_each(|filter| explainer.subqueries(filter));
        explainer.enclosing.pop();
        explained?;
    }
    Ok(table(explainer.rows))
}

/// The EXPLAIN row of an INSERT or REPLACE writing VALUES into `target`: MariaDB's
/// one `INSERT` row, with NULL for what no read has (`Extra` too).
pub fn explain_insert(target: &Table) -> Rows {
    table(vec![Row {
        id: Some(1),
        select_type: "INSERT",
        table: Some(target.schema.name.clone()),
        access: Some("ALL"),
        extra_is_null: true,
        ..Row::default()
    }])
}

/// MariaDB's EXPLAIN result set holding `rows`.
fn table(rows: Vec<Row>) -> Rows {
    let id = ColumnInfo::expression(
        "id",
        DataType::Int {
            width: IntWidth::Big,
            unsigned: true,
        },
        false,
    );
    // MariaDB's columns: VARCHARs of these lengths, `rows` one of them too.
    let mut columns = vec![id, ColumnInfo::text("select_type", 19)];
    for (name, length) in [
        ("table", 64),
        ("type", 10),
        ("possible_keys", 4096),
        ("key", 64),
        ("key_len", 4096),
        ("ref", 2048),
        ("rows", 64),
        ("Extra", 255),
    ] {
        columns.push(ColumnInfo::text_nullable(name, length));
    }
    Rows {
        columns,
        rows: rows.into_iter().map(Row::values).collect(),
    }
}

/// One EXPLAIN row; None is NULL.
#[derive(Default)]
struct Row {
    id: Option<u64>,
    select_type: &'static str,
    table: Option<String>,
    access: Option<&'static str>,
    possible_keys: Option<String>,
    key: Option<String>,
    key_len: Option<String>,
    reference: Option<String>,
    rows: Option<u64>,
    extra: Vec<&'static str>,
    /// An INSERT's `Extra` is NULL, not empty.
    extra_is_null: bool,
}

impl Row {
    fn values(self) -> Vec<Value> {
        let text = |s: Option<String>| s.map_or(Value::Null, |s| Value::text(&s));
        vec![
            self.id.map_or(Value::Null, Value::UInt),
            Value::text(self.select_type),
            text(self.table),
            self.access.map_or(Value::Null, Value::text),
            text(self.possible_keys),
            text(self.key),
            text(self.key_len),
            text(self.reference),
            text(self.rows.map(|n| n.to_string())),
            match self.extra_is_null {
                true => Value::Null,
                false => Value::text(&self.extra.join("; ")),
            },
        ]
    }
}

/// What a query block does above its source (the one-input operators down to it).
#[derive(Default)]
struct Above<'p> {
    sorts: bool,
    buffers: bool,
    /// Expressions that may hold subqueries, in the order met.
    exprs: Vec<&'p Expr>,
    /// The filter right above the source: a FROM-less query's WHERE clause.
    filter: Option<&'p Expr>,
}

/// Blocks to explain after a block's own rows: derived tables' (numbered when met), then
/// those of the subqueries in expressions.
#[derive(Default)]
struct Later<'p> {
    derived: Vec<(&'p Plan, u64)>,
    exprs: Vec<&'p Expr>,
}

struct Explainer<'c, 'a> {
    ctx: &'c ExecContext<'a>,
    rows: Vec<Row>,
    next_id: u64,
    /// The tables of the blocks around the subquery being explained, innermost last.
    enclosing: Vec<Vec<Named>>,
}

impl<'c, 'a> Explainer<'c, 'a> {
    fn new(ctx: &'c ExecContext<'a>) -> Explainer<'c, 'a> {
        Explainer {
            ctx,
            rows: Vec::new(),
            next_id: 1,
            enclosing: Vec::new(),
        }
    }
}

/// A table a block reads, for naming its columns in `ref`.
struct Named {
    /// Where its cells start in the block's row.
    offset: usize,
    table: Arc<Table>,
    alias: String,
}

impl Named {
    fn of(offset: usize, scan: &Scan) -> Named {
        Named {
            offset,
            table: scan.table.clone(),
            alias: scan.alias.clone(),
        }
    }
}

impl Explainer<'_, '_> {
    fn new_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// The rows of one query block (or of a set operation's operands) numbered `id`.
    fn block(&mut self, plan: &Plan, id: u64, select_type: &'static str) -> crate::Result<()> {
        let mut above = Above::default();
        let mut source = plan;
        let mut parent = None;
        loop {
            let input = match source {
                Plan::Filter { input, predicate } => {
                    above.exprs.push(predicate);
                    input
                }
                Plan::Aggregate {
                    input,
                    group_by,
                    calls,
                    rollup,
                    ..
                } => {
                    // WITH ROLLUP aggregates its sorted input as it comes, as MariaDB does.
                    above.buffers |= !group_by.is_empty() && !rollup;
                    above.exprs.extend(group_by);
                    above
                        .exprs
                        .extend(calls.iter().filter_map(|c| c.arg.as_ref()));
                    input
                }
                Plan::Compute { input, exprs, .. } | Plan::Project { input, exprs } => {
                    above.exprs.extend(exprs);
                    input
                }
                Plan::Sort {
                    input,
                    keys,
                    distinct,
                    ..
                } => {
                    above.sorts = true;
                    above.buffers |= *distinct;
                    above.exprs.extend(keys.iter().map(|k| &k.expr));
                    input
                }
                Plan::Window { input, .. } | Plan::Distinct { input, .. } => {
                    above.buffers = true;
                    input
                }
                Plan::Limit { input, .. } => input,
                _ => break,
            };
            parent = Some(source);
            source = input;
        }
        if let Some(Plan::Filter { predicate, .. }) = parent {
            above.filter = Some(predicate);
        }
        let first = self.rows.len();
        let mut later = Later::default();
        let mut tables = Vec::new();
        match source {
            Plan::Empty => {
                let impossible = above.filter.is_some_and(|e| self.impossible(e));
                self.rows.push(Row {
                    id: Some(id),
                    select_type,
                    extra: vec![match impossible {
                        true => "Impossible WHERE",
                        false => "No tables used",
                    }],
                    ..Row::default()
                });
            }
            Plan::Scan(scan) => {
                if scan.filter.as_ref().is_some_and(|f| self.impossible(f)) {
                    self.rows.push(Row {
                        id: Some(id),
                        select_type,
                        extra: vec!["Impossible WHERE"],
                        ..Row::default()
                    });
                } else {
                    let row = self.scan_row(scan, id, select_type, &[], scan.residual.is_some())?;
                    // As MariaDB, the one row of a const table is read now.
                    let found = row.access != Some("const") || self.any_row(scan)?;
                    self.rows.push(match found {
                        true => row,
                        false => Row {
                            id: Some(id),
                            select_type,
                            extra: vec!["Impossible WHERE noticed after reading const tables"],
                            ..Row::default()
                        },
                    });
                    tables.push(Named::of(0, scan));
                    later.exprs.extend(&scan.filter);
                }
            }
            Plan::SystemScan(system) => {
                self.rows.push(Row {
                    id: Some(id),
                    select_type,
                    table: Some(system.table.name().to_ascii_lowercase()),
                    access: Some("ALL"),
                    extra: system.filter.iter().map(|_| "Using where").collect(),
                    ..Row::default()
                });
            }
            Plan::Join(join) => {
                self.steps(&join.steps, id, select_type, &mut tables, &mut later)?;
            }
            Plan::SetOperation(_) => return self.set_operation(source, id, select_type),
            // A recursive CTE read alone: its anchor's block stands for it.
            Plan::Recursive(cte) => return self.block(&cte.anchor, id, select_type),
            Plan::WorkTable { .. } => {
                self.rows.push(Row {
                    id: Some(id),
                    select_type,
                    access: Some("ALL"),
                    ..Row::default()
                });
            }
            _ => unreachable!("one-input operators are walked above"),
        }
        if let Some(row) = self.rows.get_mut(first) {
            if above.buffers {
                row.extra.push("Using temporary");
            }
            if above.sorts {
                row.extra.push("Using filesort");
            }
        }
        for (plan, id) in later.derived {
            self.block(plan, id, "DERIVED")?;
        }
        self.enclosing.push(tables);
        let explained = later
            .exprs
            .into_iter()
            .chain(above.exprs)
            .try_for_each(|expr| self.subqueries(expr));
        self.enclosing.pop();
        explained
    }

    /// The rows of join steps; `tables` gathers the steps read so far, for `ref` names.
    fn steps<'p>(
        &mut self,
        steps: &'p [JoinStep],
        id: u64,
        select_type: &'static str,
        tables: &mut Vec<Named>,
        later: &mut Later<'p>,
    ) -> crate::Result<()> {
        for step in steps {
            later.exprs.extend(&step.filter);
            let checks = step.filter.is_some();
            match &step.source {
                JoinSource::Table { scan, offset } => {
                    let row = self.scan_row(scan, id, select_type, tables, checks)?;
                    self.rows.push(row);
                    tables.push(Named::of(*offset, scan));
                }
                JoinSource::Rows {
                    plan,
                    offset,
                    own,
                    buffer,
                } => {
                    later.exprs.extend(own);
                    let mut row = match plan.as_ref() {
                        Plan::Scan(scan) => {
                            tables.push(Named::of(*offset, scan));
                            self.scan_row(scan, id, select_type, &[], false)?
                        }
                        Plan::SystemScan(system) => Row {
                            table: Some(system.table.name().to_ascii_lowercase()),
                            ..Row::default()
                        },
                        derived => {
                            let number = self.new_id();
                            later.derived.push((derived, number));
                            Row {
                                table: Some(format!("<derived{number}>")),
                                ..Row::default()
                            }
                        }
                    };
                    row.id = Some(id);
                    row.select_type = select_type;
                    row.access = Some("ALL");
                    row.extra.clear();
                    if checks || own.is_some() {
                        row.extra.push("Using where");
                    }
                    if buffer.is_some() {
                        row.extra.push("Using join buffer (flat, BNL join)");
                    }
                    self.rows.push(row);
                }
                JoinSource::Outer { steps, .. } => {
                    self.steps(steps, id, select_type, tables, later)?;
                }
            }
        }
        Ok(())
    }

    /// The row of a table read through `scan`, after the tables `earlier`; `checks`: rows
    /// are checked against conditions the access path leaves.
    fn scan_row(
        &self,
        scan: &Scan,
        id: u64,
        select_type: &'static str,
        earlier: &[Named],
        checks: bool,
    ) -> crate::Result<Row> {
        let table = &scan.table;
        let mut row = Row {
            id: Some(id),
            select_type,
            table: Some(scan.alias.clone()),
            access: Some("ALL"),
            rows: Some(table.approximate_row_count() as u64),
            extra: if checks {
                vec!["Using where"]
            } else {
                Vec::new()
            },
            ..Row::default()
        };
        let AccessPath::Index(index) = &scan.access else {
            return Ok(row);
        };
        let schema = &table.schema;
        let possible: Vec<&str> = scan
            .possible_keys
            .iter()
            .map(|&i| schema.index_name(i))
            .collect();
        row.possible_keys = Some(possible.join(","));
        row.key = Some(schema.index_name(index.index).to_string());
        let columns = schema.index_columns(index.index);
        let ranged = index.lower.is_some() || index.upper.is_some();
        let used = index.eq.len() + usize::from(ranged);
        let prefixes = match index.index {
            IndexNo::Primary => &[][..],
            IndexNo::Secondary(i) => &schema.indexes[i].prefix_lengths[..],
        };
        let key_len: u32 = columns[..used]
            .iter()
            .enumerate()
            .map(|(k, &c)| {
                let column = &schema.columns[c];
                let prefix = prefixes.get(k).copied().flatten();
                key_part_len(&column.data_type, prefix) + u32::from(column.nullable)
            })
            .sum();
        row.key_len = Some(key_len.to_string());
        let points = index.eq.iter().all(|alternatives| alternatives.len() == 1);
        let constant = index_is_constant(index);
        let unique = index.eq.len() == columns.len() && schema.is_unique(index.index);
        row.access = Some(match (points && !ranged, unique, constant) {
            (true, true, true) => "const",
            (true, true, false) => "eq_ref",
            (true, false, _) => "ref",
            (false, _, _) => "range",
        });
        if points && !ranged {
            let names: Vec<String> = index
                .eq
                .iter()
                .map(|alternatives| self.reference(&alternatives[0], earlier))
                .collect();
            row.reference = Some(names.join(","));
        }
        row.rows = match row.access {
            Some("const" | "eq_ref") => Some(1),
            _ if constant => Some(
                self.count(scan)?
                    .unwrap_or(table.approximate_row_count() as u64),
            ),
            _ => row.rows,
        };
        Ok(row)
    }

    /// Whether `scan` (its whole filter applied) finds a row.
    fn any_row(&self, scan: &Scan) -> crate::Result<bool> {
        let plan = Plan::Scan(Box::new(scan.clone()));
        let flow = exec::run(&plan, self.ctx, &mut |_| Ok(ControlFlow::Break(())))?;
        Ok(flow.is_break())
    }

    /// MariaDB's `ref` entry for a key part compared with `value`: `const`, the
    /// `db.table.column` of an earlier table or of an enclosing query's, or `func`.
    fn reference(&self, value: &Expr, earlier: &[Named]) -> String {
        let (tables, index) = match value {
            _ if known_before_rows(value) => return "const".to_string(),
            Expr::Column(c) => (earlier, c.index),
            Expr::OuterColumn { depth, column } => match self.enclosing.len().checked_sub(*depth) {
                Some(level) => (&self.enclosing[level][..], column.index),
                None => return "func".to_string(),
            },
            _ => return "func".to_string(),
        };
        for named in tables {
            let columns = &named.table.schema.columns;
            if (named.offset..named.offset + columns.len()).contains(&index) {
                let column = &columns[index - named.offset].name;
                return format!("{}.{}.{column}", named.table.db(), named.alias);
            }
        }
        "func".to_string()
    }

    /// The entries `scan`'s index range holds, if at most `COUNT_LIMIT`.
    fn count(&self, scan: &Scan) -> crate::Result<Option<u64>> {
        let range = Plan::Scan(Box::new(Scan {
            filter: None,
            residual: None,
            ..scan.clone()
        }));
        let mut count = 0u64;
        let flow = exec::run(&range, self.ctx, &mut |_| {
            count += 1;
            Ok(match count >= COUNT_LIMIT {
                true => ControlFlow::Break(()),
                false => ControlFlow::Continue(()),
            })
        })?;
        Ok(flow.is_continue().then_some(count))
    }

    /// Whether a constant conjunct of `filter` is not true: no row can pass.
    fn impossible(&self, filter: &Expr) -> bool {
        let mut parts = Vec::new();
        conjuncts(filter, &mut parts);
        parts.into_iter().filter(|e| e.is_constant()).any(|e| {
            // An error is the query's to report when it runs, not EXPLAIN's.
            e.eval(&[], &self.ctx.eval)
                .is_ok_and(|v| coerce::truth(&v, self.ctx.eval.session) != Some(true))
        })
    }

    /// The blocks of the subqueries in `expr`, each numbered as met.
    fn subqueries(&mut self, expr: &Expr) -> crate::Result<()> {
        let mut found = Vec::new();
        crate::dml::visit(expr, &mut |e| {
            if let Expr::Subquery(s) = e {
                found.push((s.plan.clone(), s.correlated));
            }
        });
        for (plan, correlated) in found {
            let id = self.new_id();
            let select_type = match correlated {
                true => "DEPENDENT SUBQUERY",
                false => "SUBQUERY",
            };
            self.block(&plan, id, select_type)?;
        }
        Ok(())
    }

    /// A set operation's operands, each its own block, then the result row MariaDB shows.
    fn set_operation(
        &mut self,
        plan: &Plan,
        id: u64,
        select_type: &'static str,
    ) -> crate::Result<()> {
        // `a UNION b UNION c` is ((a, b), c): its operands in order, left-deep.
        let mut operands = Vec::new();
        let mut operators = Vec::new();
        let mut left = plan;
        while let Plan::SetOperation(set) = left {
            operands.push(&set.right);
            operators.push((set.operator, set.all));
            left = &set.left;
        }
        operands.push(left);
        operands.reverse();
        operators.reverse();
        let mut ids = vec![id];
        self.block(operands[0], id, select_type)?;
        for (operand, &(operator, _)) in operands[1..].iter().zip(&operators) {
            let id = self.new_id();
            ids.push(id);
            let select_type = match operator {
                SetOperator::Union => "UNION",
                SetOperator::Intersect => "INTERSECT",
                SetOperator::Except => "EXCEPT",
            };
            self.block(operand, id, select_type)?;
        }
        if operators
            .iter()
            .all(|&(op, all)| op == SetOperator::Union && all)
        {
            return Ok(());
        }
        let (name, select_type) = match operators[operators.len() - 1].0 {
            SetOperator::Union => ("union", "UNION RESULT"),
            SetOperator::Intersect => ("intersect", "INTERSECT RESULT"),
            SetOperator::Except => ("except", "EXCEPT RESULT"),
        };
        let ids: Vec<String> = ids.iter().map(u64::to_string).collect();
        self.rows.push(Row {
            select_type,
            table: Some(format!("<{name}{}>", ids.join(","))),
            access: Some("ALL"),
            ..Row::default()
        });
        Ok(())
    }
}

/// Whether every value the index access compares with is known before any row is read.
fn index_is_constant(index: &IndexAccess) -> bool {
    index.eq.iter().flatten().all(known_before_rows)
        && [&index.lower, &index.upper]
            .into_iter()
            .flatten()
            .all(|bound| known_before_rows(&bound.expr))
}

/// Whether `value` is known before the statement reads a row: what the access path
/// takes as known (uncorrelated scalar subqueries included), but no enclosing query's
/// column, which changes from one outer row to the next.
fn known_before_rows(value: &Expr) -> bool {
    let mut outer = false;
    crate::dml::visit(value, &mut |e| {
        outer |= matches!(e, Expr::OuterColumn { .. })
    });
    !outer && access::is_known(value, &[])
}

/// The bytes MariaDB counts for one key part of `data_type` (`prefix`: a prefix key
/// part's length in characters), before the NULL flag byte.
fn key_part_len(data_type: &DataType, prefix: Option<u32>) -> u32 {
    // Characters are utf8mb4 (4 bytes each); variable-length parts add a 2-byte length.
    match data_type {
        DataType::Null => 0,
        DataType::Int { width, .. } => match width {
            IntWidth::Tiny => 1,
            IntWidth::Small => 2,
            IntWidth::Medium => 3,
            IntWidth::Int => 4,
            IntWidth::Big => 8,
        },
        DataType::Decimal {
            precision, scale, ..
        } => decimal_bytes(u32::from(*precision), u32::from(*scale)),
        DataType::Float { .. } => 4,
        DataType::Double { .. } => 8,
        DataType::Char { length, .. } => 4 * prefix.unwrap_or(*length),
        DataType::VarChar { length, .. } => 4 * prefix.unwrap_or(*length) + 2,
        DataType::Binary { length } => prefix.unwrap_or(*length),
        DataType::VarBinary { length } => prefix.unwrap_or(*length) + 2,
        DataType::Text { .. } => 4 * prefix.unwrap_or(0) + 2,
        DataType::Blob { .. } => prefix.unwrap_or(0) + 2,
        DataType::Date => 3,
        DataType::DateTime { fsp } => 5 + fraction_bytes(*fsp),
        DataType::Timestamp { fsp } => 4 + fraction_bytes(*fsp),
        DataType::Time { fsp } => 3 + fraction_bytes(*fsp),
        // MariaDB stores the member's number, in as few bytes as the list needs.
        DataType::Enum { members, .. } => match members.len() {
            0..=255 => 1,
            _ => 2,
        },
        DataType::Set { members, .. } => match members.len().div_ceil(8) {
            3 => 4,
            5..=7 => 8,
            bytes => bytes as u32,
        },
    }
}

/// Bytes of a temporal value's fractional seconds (MariaDB's binary formats).
fn fraction_bytes(fsp: u8) -> u32 {
    u32::from(fsp).div_ceil(2)
}

/// Bytes of MariaDB's binary DECIMAL: 4 per 9 digits, and the leftover digits' bytes, for
/// the integer and the fraction parts apart.
fn decimal_bytes(precision: u32, scale: u32) -> u32 {
    const LEFTOVER: [u32; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];
    let part = |digits: u32| digits / 9 * 4 + LEFTOVER[(digits % 9) as usize];
    part(precision - scale) + part(scale)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{engine, rows, run, session};

    /// EXPLAIN rows as `id select_type table type possible_keys key key_len ref rows Extra`.
    fn explain(sql: &str) -> Vec<String> {
        let engine = engine();
        let mut s = session(&engine, 1);
        for setup in [
            "CREATE DATABASE test",
            "USE test",
            "CREATE TABLE t (id INT PRIMARY KEY, a INT, k INT NOT NULL, KEY (a), KEY (k))",
            "INSERT INTO t VALUES (1, 1, 1), (2, 2, 1), (3, NULL, 2), (4, 4, 3)",
            "CREATE TABLE u (id INT PRIMARY KEY, t_id INT NOT NULL, note TEXT, KEY (t_id))",
            "INSERT INTO u VALUES (1, 1, 'a'), (2, 1, 'b'), (3, 2, 'c')",
        ] {
            run(&mut s, setup);
        }
        rows(&mut s, sql).into_iter().map(|r| r.join(" ")).collect()
    }

    #[test]
    fn a_key_the_range_enforces_exactly_leaves_no_where() {
        // NOT NULL integer keys: the range is the condition (access module notes).
        assert_eq!(
            explain("EXPLAIN SELECT * FROM t WHERE id > 1"),
            ["1 SIMPLE t range PRIMARY PRIMARY 4 NULL 3 "]
        );
        assert_eq!(
            explain("EXPLAIN SELECT * FROM t WHERE k = 1"),
            ["1 SIMPLE t ref k k 4 const 2 "]
        );
        // A nullable key is checked row by row again.
        assert_eq!(
            explain("EXPLAIN SELECT * FROM t WHERE a IN (1, 2, 4)"),
            ["1 SIMPLE t range a a 5 NULL 3 Using where"]
        );
    }

    #[test]
    fn joins_show_their_nested_loops_in_reading_order() {
        assert_eq!(
            explain("EXPLAIN SELECT * FROM u JOIN t ON t.id = u.t_id WHERE u.note = 'a'"),
            [
                "1 SIMPLE u ALL NULL NULL NULL NULL 3 Using where",
                "1 SIMPLE t eq_ref PRIMARY PRIMARY 4 test.u.t_id 1 Using where",
            ]
        );
        // No index reaches the inner table: read once, replayed per outer row.
        assert_eq!(
            explain("EXPLAIN SELECT * FROM t, u AS x WHERE x.note > t.a"),
            [
                "1 SIMPLE t ALL NULL NULL NULL NULL 4 ",
                "1 SIMPLE x ALL NULL NULL NULL NULL 3 Using where; Using join buffer (flat, BNL join)",
            ]
        );
    }

    #[test]
    fn derived_tables_and_subqueries_are_their_own_blocks() {
        assert_eq!(
            explain(
                "EXPLAIN SELECT * FROM t JOIN (SELECT t_id, COUNT(*) n FROM u GROUP BY t_id) d \
                 ON d.t_id = t.id WHERE t.a > (SELECT MIN(id) FROM u)"
            ),
            [
                "1 PRIMARY t range a a 5 NULL 2 Using where",
                "1 PRIMARY <derived2> ALL NULL NULL NULL NULL NULL Using where; Using join buffer (flat, BNL join)",
                "2 DERIVED u ALL NULL NULL NULL NULL 3 Using temporary",
                "3 SUBQUERY u ALL NULL NULL NULL NULL 3 ",
            ]
        );
    }

    #[test]
    fn a_delete_without_where_deletes_all_rows_unread() {
        assert_eq!(
            explain("EXPLAIN DELETE FROM t"),
            ["1 SIMPLE NULL NULL NULL NULL NULL NULL 4 Deleting all rows"]
        );
        // A WHERE clause, even one a key enforces, makes it a read again.
        assert_eq!(
            explain("EXPLAIN DELETE FROM t WHERE id = 2"),
            ["1 SIMPLE t range PRIMARY PRIMARY 4 NULL 1 Using where"]
        );
    }

    #[test]
    fn a_false_where_makes_a_write_read_nothing() {
        for sql in [
            "EXPLAIN DELETE FROM t WHERE 1 = 0",
            "EXPLAIN UPDATE t SET a = 1 WHERE a = 1 AND 1 = 2",
        ] {
            assert_eq!(
                explain(sql),
                ["1 SIMPLE NULL NULL NULL NULL NULL NULL NULL Impossible WHERE"]
            );
        }
    }

    #[test]
    fn an_insert_of_values_is_one_row_reading_nothing() {
        for sql in [
            "EXPLAIN INSERT INTO t VALUES (5, 5, 5), (6, 6, 6)",
            "EXPLAIN REPLACE INTO t (id, k) VALUES (1, 1)",
        ] {
            assert_eq!(
                explain(sql),
                ["1 INSERT t ALL NULL NULL NULL NULL NULL NULL"]
            );
        }
    }

    #[test]
    fn decimal_key_parts_take_mariadb_binary_sizes() {
        assert_eq!(decimal_bytes(10, 2), 5);
        assert_eq!(decimal_bytes(18, 9), 8);
        assert_eq!(decimal_bytes(65, 30), 30);
    }

    #[test]
    fn temporal_fractions_take_half_a_byte_per_digit_rounded_up() {
        assert_eq!(key_part_len(&DataType::DateTime { fsp: 0 }, None), 5);
        assert_eq!(key_part_len(&DataType::DateTime { fsp: 3 }, None), 7);
        assert_eq!(key_part_len(&DataType::Timestamp { fsp: 6 }, None), 7);
    }
}
