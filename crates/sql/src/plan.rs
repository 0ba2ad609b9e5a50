//! Logical plans of queries and how rows reach them from storage.
//!
//! A plan is a tree of operators over rows (`Vec<Value>` positions fixed at bind time):
//!
//! ```text
//!   Limit -> Distinct -> Project -> Sort -> Filter(HAVING) -> Compute(select list)
//!         -> Aggregate | Filter(WHERE residual) -> Scan(access path) | SystemScan
//!         | Join | Empty
//! ```
//!
//! With window functions, `Window` and a second `Compute` (the select values that read
//! window values) come between Filter(HAVING) and Sort (`window` module notes).
//!
//! A set operation or a parenthesised query is a tree of such query blocks
//! (`set_operation` binds it), its ORDER BY and LIMIT over the result:
//!
//! ```text
//!   Limit -> Sort -> SetOperation(UNION|INTERSECT|EXCEPT [ALL]) -> left, right
//! ```
//!
//! A subquery inside an expression is an `Expr::Subquery` holding its own plan, run by
//! the execution's `SubqueryRunner` (`expr::subquery`): once per execution if
//! uncorrelated, per outer row if it reads the enclosing row (`Expr::OuterColumn`).
//!
//! Row layout after the source: `[table columns W][select values K][aggregates A]`.
//! Select values and aggregate results have fixed positions before binding starts (K is
//! known once the select list is expanded), so HAVING and ORDER BY can name select aliases
//! and aggregates by position without a second binding pass. Queries without ORDER BY,
//! HAVING or aggregates skip the wide row: `Project` evaluates the select list directly on
//! the scanned row.
//!
//! A join's row is the concatenation of its tables' rows in the order the FROM clause
//! names them (`SourceTable::offset`), whatever order the nested loops read them in:
//! `Join` runs its steps as nested loops over one row buffer of that layout, each step
//! filling its tables' cells. A step is a table read through an access path whose key
//! values may be cells of earlier steps (an index lookup per outer row), or the inner
//! side of a LEFT JOIN (RIGHT JOIN is a LEFT JOIN with its operands swapped), whose
//! cells are NULL for an outer row nothing matched. Each WHERE or ON conjunct is checked
//! at the first step after which every cell it reads is filled (`join` module notes).
//!
//! Invariants:
//! (1) Every `Expr` in a plan is bound against the row layout its operator receives.
//! (2) A scan's rows are those its WHERE clause accepts, whatever the access path: the
//!     residual filter leaves out only conjuncts the path's key range enforces exactly
//!     (`access` module notes), and a fallback to a full scan applies the whole clause.
//! (3) A `WorkTable` is read only inside a run of its `Recursive` plan, which provides
//!     its rows; they belong to that run (`exec`), never to the plan.
//! (4) A `Sort` with `kept` cells is read only by a `Project` whose expressions are
//!     column references to kept cells: a sorted row is buffered whole until the sort
//!     ends, and copying the cells nothing reads was most of sorting sysbench's rows.
//!     Its other cells hold whatever an earlier sort's row left there.
//! (5) A `Compute` that widens its row has expressions that read only the input row's
//!     cells: the cells it adds hold the previous row's values until computed, so that
//!     a string value reuses its buffer.
//! (6) A `Sort` with `distinct` stands for DISTINCT too (no `Distinct` above it): it is
//!     set only when its keys are exactly the table columns its `Project` passes on,
//!     each of a type whose sort order calls two values equal exactly when their
//!     `exec::group_key`s are equal (integers and character strings). Duplicates are then
//!     neighbours after the stable sort, and the first of each run is the row a
//!     `Distinct` would keep. Comparing neighbours replaced building, hashing and keeping
//!     a key per row (sysbench's `SELECT DISTINCT c ... ORDER BY c`).
//! (7) A `Compute` with `copied` cells is read above only at those cells and at the ones
//!     it computes: its expressions are all table columns (read from the input row), and
//!     nothing above reads another cell below `at` (no HAVING, aggregate or window; sort
//!     keys that are cells, the FROM ones among them copied). Copying every FROM cell
//!     (sysbench's CHAR(60) `pad` and CHAR(120) `c`, which the select list shows
//!     through its own cell) was 1.6% of an oltp_read_only transaction's instructions.
//! (8) WITH ROLLUP's row is `[W][K][A][G]`, `G` the group's GROUP BY values. A
//!     super-aggregate row of a prefix of p values has its aggregates over the prefix's
//!     rows, `G` past the first p values NULL, and `W` from the first row of the group
//!     just ended (as MariaDB's rows show non-grouped columns). The binder makes every
//!     select value, HAVING and window expression equal to a GROUP BY expression read
//!     its `G` cell, so only those become NULL in a super-aggregate row; a subquery's
//!     outer references still read `W`, as in MariaDB.

use crate::expr::{AggregateCall, Expr};
use crate::information_schema::SystemTable;
use manycore_storage::{IndexNo, Table};
use manycore_types::DataType;
use std::sync::Arc;

#[derive(Clone, Debug)]
pub enum Plan {
    /// One row with no columns: SELECT without FROM.
    Empty,
    /// Boxed: a scan's two filters would make every plan node as large.
    Scan(Box<Scan>),
    /// An information_schema table: rows made when the plan runs (information_schema
    /// invariant (1)).
    SystemScan(Box<SystemScan>),
    /// Tables joined by nested loops (module notes).
    Join(Box<Join>),
    Filter {
        input: Box<Plan>,
        predicate: Expr,
    },
    /// Groups input rows (width `width`) by `group_by`; emits per group the group's first
    /// row, `select_width` NULLs for the select values, then the aggregate results.
    /// Without `group_by`, exactly one group (even over no rows).
    ///
    /// WITH ROLLUP (`rollup`): the input comes sorted by `group_by`, the groups are
    /// emitted in that order, each row ends with the group's `group_by` values, and after
    /// the last group of each shorter prefix of `group_by` comes a super-aggregate row
    /// (invariant (8)).
    Aggregate {
        input: Box<Plan>,
        group_by: Vec<Expr>,
        calls: Vec<AggregateCall>,
        width: usize,
        select_width: usize,
        rollup: bool,
    },
    /// row[at + i] = exprs[i](row), the row widened to `at + exprs.len()` cells when
    /// shorter (invariant (5)). With `copied`, only those of the input row's cells are
    /// passed on, the others NULL (invariant (7)).
    Compute {
        input: Box<Plan>,
        exprs: Vec<Expr>,
        at: usize,
        copied: Option<Vec<usize>>,
    },
    /// The input's rows in the order of `keys` (stable). With `kept`, a row passed on
    /// holds only those cells of the input row, the rest meaningless (invariant (4)).
    Sort {
        input: Box<Plan>,
        keys: Vec<SortKey>,
        kept: Option<Vec<usize>>,
        /// Passes on only the first of each run of rows with equal keys (invariant (6)).
        distinct: bool,
    },
    /// Buffers the rows and sets `row[at + i]` to window call `i`'s value (`window`).
    Window {
        input: Box<Plan>,
        calls: Vec<crate::window::WindowCall>,
        at: usize,
    },
    Project {
        input: Box<Plan>,
        exprs: Vec<Expr>,
    },
    Distinct {
        input: Box<Plan>,
        /// The columns' types: strings are told apart by their collations.
        types: Vec<DataType>,
    },
    Limit {
        input: Box<Plan>,
        offset: Count,
        count: Option<Count>,
    },
    /// `left UNION|INTERSECT|EXCEPT right`: each side's rows converted to `types`.
    SetOperation(Box<SetOperation>),
    /// A recursive CTE (`cte` module notes).
    Recursive(Box<RecursiveCte>),
    /// The rows the previous iteration of recursive CTE `id` added (invariant (3)).
    WorkTable {
        id: u64,
    },
}

impl Plan {
    /// Whether `f` holds for an operator of this query block above its FROM (the chain of
    /// one-input operators down to the source; derived tables inside are not looked at).
    pub fn block_has(&self, f: &dyn Fn(&Plan) -> bool) -> bool {
        f(self) || self.block_input().is_some_and(|input| input.block_has(f))
    }

    /// The one table this query block reads, when its source is a single table's scan.
    pub fn single_scan(&self) -> Option<&Scan> {
        match self {
            Plan::Scan(scan) => Some(scan),
            _ => self.block_input()?.single_scan(),
        }
    }

    /// The join this query block reads, when its source is one.
    pub fn block_join(&self) -> Option<&Join> {
        match self {
            Plan::Join(join) => Some(join),
            _ => self.block_input()?.block_join(),
        }
    }

    /// What this query block delivers of its single table's scan when it passes the
    /// scan's rows on in the scan's order with a LIMIT the one thing cutting them: a
    /// LIMIT over the select list, an ORDER BY of ascending table columns (which the
    /// scan must read in: `Scan::reads_in_order_of`) or none, and no HAVING, aggregate,
    /// window or DISTINCT. Its rows are then the first OFFSET + LIMIT rows the scan
    /// passes on (a stable sort keeps the scan's order among equal keys).
    pub fn scan_prefix(&self) -> Option<ScanPrefix<'_>> {
        let Plan::Limit {
            input,
            offset,
            count: Some(count),
        } = self
        else {
            return None;
        };
        let mut keys: &[SortKey] = &[];
        // The select values' expressions, at their positions in the row.
        let mut computed: Option<(&[Expr], usize)> = None;
        let mut plan: &Plan = input;
        let scan = loop {
            match plan {
                Plan::Project { input, .. } => plan = input,
                Plan::Compute {
                    input, exprs, at, ..
                } => {
                    computed = Some((exprs, *at));
                    plan = input;
                }
                Plan::Sort {
                    input,
                    keys: sort,
                    distinct: false,
                    ..
                } => {
                    keys = sort;
                    plan = input;
                }
                Plan::Scan(scan) => break scan,
                _ => return None,
            }
        };
        let table_column = |expr: &Expr| {
            let index = expr.column_index()?;
            match computed {
                // A select alias (ORDER BY id names the select list's `id`).
                Some((exprs, at)) if index >= at => exprs.get(index - at)?.column_index(),
                _ => Some(index),
            }
        };
        let sorted_by = keys
            .iter()
            .map(|key| table_column(&key.expr).filter(|_| !key.descending))
            .collect::<Option<Vec<usize>>>()?;
        let table_width = scan.table.schema.columns.len();
        if sorted_by.iter().any(|&column| column >= table_width) {
            return None;
        }
        Some(ScanPrefix {
            scan,
            offset: *offset,
            count: *count,
            sorted_by,
        })
    }

    /// The input of a one-input operator of a query block.
    pub(crate) fn block_input(&self) -> Option<&Plan> {
        match self {
            Plan::Filter { input, .. }
            | Plan::Aggregate { input, .. }
            | Plan::Compute { input, .. }
            | Plan::Sort { input, .. }
            | Plan::Window { input, .. }
            | Plan::Project { input, .. }
            | Plan::Distinct { input, .. }
            | Plan::Limit { input, .. } => Some(input),
            _ => None,
        }
    }
}

/// A recursive CTE: the anchor's rows, then iterations of `steps` over the work table
/// (the rows the previous iteration added) until one adds none.
#[derive(Clone, Debug)]
pub struct RecursiveCte {
    /// What the steps' `Plan::WorkTable`s name.
    pub id: u64,
    /// UNION ALL: rows are added even when already there.
    pub all: bool,
    /// The result's column names (for store errors) and types: the anchor's.
    pub names: Vec<String>,
    pub types: Vec<DataType>,
    pub anchor: Plan,
    /// Each recursive part, and its column types.
    pub steps: Vec<(Plan, Vec<DataType>)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetOperator {
    Union,
    Intersect,
    Except,
}

/// A set operation over two operands of equal width. With `all`, rows keep their
/// multiplicity (INTERSECT ALL: the smaller count, EXCEPT ALL: the difference); without,
/// the result has no duplicates. Rows are equal when every column is (NULL equals NULL,
/// strings by the result column's collation).
#[derive(Clone, Debug)]
pub struct SetOperation {
    pub operator: SetOperator,
    pub all: bool,
    pub left: Plan,
    pub right: Plan,
    /// The operands' column types, and the result's.
    pub left_types: Vec<DataType>,
    pub right_types: Vec<DataType>,
    pub types: Vec<DataType>,
}

/// Nested loops over `steps`, each row `width` cells wide (module notes).
#[derive(Clone, Debug)]
pub struct Join {
    pub steps: Vec<JoinStep>,
    pub width: usize,
    /// How many steps read their rows once per run into a buffer (`JoinSource::Rows`).
    pub buffers: usize,
}

impl Join {
    /// The tables read as `JoinSource::Table`, with their offsets, in the order the
    /// nested loops read them (an outer row's tables before its LEFT JOIN's inner side).
    pub fn tables(&self) -> Vec<(&Arc<Table>, usize)> {
        fn collect<'a>(steps: &'a [JoinStep], out: &mut Vec<(&'a Arc<Table>, usize)>) {
            for step in steps {
                match &step.source {
                    JoinSource::Table { scan, offset } => out.push((&scan.table, *offset)),
                    JoinSource::Outer { steps, .. } => collect(steps, out),
                    JoinSource::Rows { .. } => {}
                }
            }
        }
        let mut tables = Vec::new();
        collect(&self.steps, &mut tables);
        tables
    }
}

/// One level of the nested loops: a source of rows, and the conjuncts that can be checked
/// once its cells are filled (bound against the whole join row).
#[derive(Clone, Debug)]
pub struct JoinStep {
    pub source: JoinSource,
    pub filter: Option<Expr>,
}

#[derive(Clone, Debug)]
pub enum JoinSource {
    /// A table whose rows fill cells `offset..`. The scan's access path may read cells of
    /// earlier steps; its own filter and residual are empty, as `JoinStep::filter` holds
    /// every conjunct placed here (so a fallback to a full scan stays exact).
    Table { scan: Box<Scan>, offset: usize },
    /// Rows that do not depend on earlier steps (a derived table, an information_schema
    /// table, a table no index reaches): `plan`'s rows fill cells `offset..`. With
    /// `buffer`, they are read once per run of the join into that buffer, keeping only
    /// those passing `own` (the conjuncts placed here that read nothing but these cells,
    /// constants and parameters), and replayed for every outer row; without (the first
    /// step of the join, which runs once), they stream and `own` is None.
    Rows {
        plan: Box<Plan>,
        offset: usize,
        own: Option<Expr>,
        buffer: Option<usize>,
    },
    /// The inner side of a LEFT JOIN: its steps (whose filters hold the ON condition)
    /// run per outer row; when no inner row passes them, the cells `nulls` are set to
    /// NULL and the outer row goes on once.
    Outer {
        steps: Vec<JoinStep>,
        nulls: Vec<std::ops::Range<usize>>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct SortKey {
    pub expr: Expr,
    pub descending: bool,
}

/// A LIMIT/OFFSET operand: a literal or a `?`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    Value(u64),
    Parameter(usize),
}

/// A query block whose rows are the first `offset` + `count` rows its scan passes on,
/// less the first `offset` (`Plan::scan_prefix`), provided the scan reads in ascending
/// order of `sorted_by`.
pub struct ScanPrefix<'a> {
    pub scan: &'a Scan,
    pub offset: Count,
    pub count: Count,
    /// The table columns ORDER BY sorts by, ascending (empty without ORDER BY).
    pub sorted_by: Vec<usize>,
}

#[derive(Clone)]
pub struct Scan {
    pub table: Arc<Table>,
    /// The name the statement gives the table (its alias, else its name), for EXPLAIN.
    pub alias: String,
    pub access: AccessPath,
    /// Every index some conjunct constrains, the chosen one among them (EXPLAIN).
    pub possible_keys: Vec<IndexNo>,
    /// The full WHERE clause (invariant (2)): for a full scan.
    pub filter: Option<Expr>,
    /// What the index access leaves of `filter` to check per row (invariant (2)).
    pub residual: Option<Expr>,
}

impl Scan {
    /// Whether the rows this scan passes on come in ascending order of `columns`: those
    /// of its index when it reads through its access path (`access_followed`; a
    /// secondary index's keys end with the primary key's columns), else of the primary
    /// key. Columns the access holds at one value (`col = constant`) are the same in
    /// every row, so they are left out on both sides; a column keyed by a prefix of its
    /// value orders its rows only partly, so the order ends before it.
    pub fn reads_in_order_of(&self, columns: &[usize], access_followed: bool) -> bool {
        let schema = &self.table.schema;
        let primary = schema.primary_key.as_deref().unwrap_or_default();
        let mut fixed = Vec::new();
        let order: Vec<usize> = match &self.access {
            AccessPath::Index(access) if access_followed => {
                let keyed: Vec<(usize, Option<u32>)> = match access.index {
                    IndexNo::Primary => primary.iter().map(|&c| (c, None)).collect(),
                    IndexNo::Secondary(i) => {
                        let index = &schema.indexes[i];
                        let own = index.columns.iter().copied();
                        own.zip(index.prefix_lengths.iter().copied())
                            .chain(primary.iter().map(|&c| (c, None)))
                            .collect()
                    }
                };
                for (alternatives, (column, _)) in access.eq.iter().zip(&keyed) {
                    if alternatives.len() == 1 {
                        fixed.push(*column);
                    }
                }
                keyed
                    .iter()
                    .take_while(|(_, prefix)| prefix.is_none())
                    .map(|(column, _)| *column)
                    .collect()
            }
            _ => primary.to_vec(),
        };
        let free = |column: &&usize| !fixed.contains(*column);
        let wanted: Vec<usize> = columns.iter().filter(free).copied().collect();
        let order: Vec<usize> = order.iter().filter(free).copied().collect();
        order.starts_with(&wanted)
    }
}

impl std::fmt::Debug for Scan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scan")
            .field("table", &self.table.schema.name)
            .field("access", &self.access)
            .field("filter", &self.filter)
            .field("residual", &self.residual)
            .finish()
    }
}

/// The rows of an information_schema table that pass `filter`, the whole WHERE clause.
#[derive(Clone, Debug)]
pub struct SystemScan {
    pub table: SystemTable,
    pub filter: Option<Expr>,
    /// The `name = constant` conjuncts of `filter` on the rows' database or table name,
    /// looked up as MariaDB does (`SystemTable::lookups`).
    pub lookups: Vec<Lookup>,
}

/// A conjunct `cell = value` of a SystemScan's filter, on the cell of the rows' database
/// or table name, `value` constant: only the tables so named have rows. As in MariaDB,
/// which opens only the table such a condition names, the name must be the table's
/// exactly (letter case and trailing spaces count), whatever the column's collation.
#[derive(Clone, Debug)]
pub struct Lookup {
    pub cell: usize,
    pub value: Expr,
}

// Not boxed: a `Scan` is already boxed in its plan, and a box here would cost every
// indexed read one more pointer to follow.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum AccessPath {
    Full,
    Index(IndexAccess),
}

/// Rows of one index whose leading columns equal `eq` and whose next column lies within
/// `lower`/`upper`. Bound expressions are constants, parameters or (in a join) cells of
/// earlier steps, evaluated per execution (per outer row) and converted exactly to the column types; a value without an exact conversion makes
/// the execution fall back to a full scan (which applies the whole WHERE clause).
#[derive(Clone, Debug)]
pub struct IndexAccess {
    pub index: IndexNo,
    /// Alternatives for each leading column (more than one only for IN lists).
    pub eq: Vec<Vec<Expr>>,
    pub lower: Option<Bound>,
    pub upper: Option<Bound>,
    /// Types of the index columns, in index order.
    pub types: Vec<DataType>,
    /// `eq` covers every column of the primary key: a point lookup.
    pub primary_point: bool,
}

#[derive(Clone, Debug)]
pub struct Bound {
    pub expr: Expr,
    pub inclusive: bool,
}
