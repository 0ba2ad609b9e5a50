//! Binding a FROM clause: its tables and derived tables, in the order written (which
//! fixes the join row's layout, plan module notes), what `*` expands to, and the nested
//! loops of a join with each condition placed where it can first be checked.
//!
//! Joins are flattened into levels. A level is a sequence of steps read as nested loops,
//! each a table or the inner side of a LEFT JOIN (a level of its own). Inner, cross and
//! comma joins concatenate their operands' levels (inner joins associate, also with a
//! LEFT JOIN on their right: `a JOIN (b LEFT JOIN c ON x) ON y` reads a, b, then c);
//! `a LEFT JOIN b ON c` appends b's level, holding c's conjuncts, as one outer step;
//! `a RIGHT JOIN b ON c` is `b LEFT JOIN a ON c`, as MySQL rewrites it.
//!
//! Invariants:
//! (1) A conjunct of a level is checked at the first step of that level after which
//!     every cell it reads is filled, never inside an outer step it does not belong to:
//!     a WHERE conjunct stays above every LEFT JOIN's inner side, so it sees that side's
//!     NULL-extended rows. The conjuncts placed at a table's step choose its access path
//!     (`access::join_access`: an index lookup per outer row when one equates a leading
//!     index column with a known value); the step checks them all, so a lookup that
//!     falls back to a full scan stays exact.
//! (2) Every table goes through `BindContext::table` (its privileges), once.
//! (3) USING and NATURAL: `*` lists the common columns first, in the preserved operand's
//!     order (the left one; RIGHT JOIN's right one), then that operand's other columns,
//!     then the other operand's; an unqualified common name means the preserved
//!     operand's column, the other's being `SourceTable::merged`.
//! (4) Tables are read in the order written (RIGHT JOIN's operands swapped), except that
//!     a level of tables only (no outer step) is read greedily: next comes the first
//!     table reachable through an index from known values, else the first one a conjunct
//!     connects to the tables read so far, else the first one left. Reordering inner
//!     joins changes no result, only the order of rows no ORDER BY orders.
//! (5) A step whose rows do not depend on earlier steps (a derived table, an
//!     information_schema table, a table no index reaches from known values) is read
//!     once per run of the join into a buffer, keeping the rows that pass the conjuncts
//!     placed there which read only its cells, constants and parameters; the buffer is
//!     replayed for every outer row and the step's other conjuncts checked then
//!     (`plan::JoinSource::Rows`). Buffers belong to the run, never to the plan (which
//!     prepared statements and the plan cache share). The first step runs once anyway
//!     and streams.
//! (6) A derived table `(SELECT ...) AS d`, a CTE's reference (`cte`) and a view's
//!     (`view`) are sources like a table: the query is bound on its own (it sees no
//!     enclosing query, as in MariaDB), its schema is the query's result columns (a
//!     detached table, as information_schema's), so names, `*`, `d.*`, USING and NATURAL
//!     resolve through the same scope code. A one-part name is a CTE's if one is in
//!     scope, else a view's, else a table's.

use crate::access::{self, conjunction, conjuncts};
use crate::error::{Error, ErrorCode, Result};
use crate::expr::{BinaryOp, Expr};
use crate::information_schema::SystemTable;
use crate::plan::{AccessPath, Join, JoinSource, JoinStep, Plan, Scan, SystemScan};
use crate::privilege::{ColumnAccess, Privileges};
use crate::scope::{BindScope, SourceTable};
use crate::select::{object_part, BindContext};
use crate::sink::ColumnInfo;
use manycore_storage::{ColumnSchema, Table, TableSchema};
use manycore_types::{ColumnDefault, DataType};
use sqlparser::ast;
use std::ops::Range;
use std::sync::Arc;

/// A bound FROM clause.
pub struct FromClause {
    pub sources: Vec<SourceTable>,
    /// What `*` expands to, as (source, column), in MySQL's order (invariant (3)).
    pub star: Vec<(usize, usize)>,
    /// The join of more than one table; None for none or one.
    pub joins: Option<Level>,
}

/// Steps read as nested loops, and the conjuncts to place among them (module notes).
pub struct Level {
    steps: Vec<Draft>,
    conjuncts: Vec<Expr>,
}

enum Draft {
    Table(usize),
    Outer(Level),
}

/// A join operand being bound: its level, its sources (a contiguous run, as written),
/// and its columns in `*` order.
struct Operand {
    level: Level,
    sources: Range<usize>,
    columns: Vec<(usize, usize)>,
}

/// Binds a FROM clause whose tables the session must hold `needed` on.
pub fn bind_from(
    from: &[ast::TableWithJoins],
    cx: &BindContext,
    needed: Privileges,
    column_needs: Privileges,
) -> Result<FromClause> {
    let mut sources = Vec::new();
    if let [one] = from {
        if one.joins.is_empty() && is_dual(&one.relation) {
            return Ok(FromClause {
                sources,
                star: Vec::new(),
                joins: None,
            });
        }
    }
    let binder = Binder {
        cx,
        needed,
        column_needs,
    };
    let mut whole: Option<Operand> = None;
    for item in from {
        let operand = binder.table_with_joins(item, &mut sources)?;
        // A comma is a cross join (lower in precedence than JOIN: its operands are whole).
        whole = Some(match whole {
            None => operand,
            Some(left) => cross(left, operand),
        });
    }
    let Some(whole) = whole else {
        return Ok(FromClause {
            sources,
            star: Vec::new(),
            joins: None,
        });
    };
    let joins = (sources.len() > 1).then_some(whole.level);
    Ok(FromClause {
        sources,
        star: whole.columns,
        joins,
    })
}

fn is_dual(factor: &ast::TableFactor) -> bool {
    matches!(factor, ast::TableFactor::Table { name, .. }
        if name.0.len() == 1 && object_part(&name.0[0]).eq_ignore_ascii_case("dual"))
}

fn cross(left: Operand, right: Operand) -> Operand {
    let mut steps = left.level.steps;
    steps.extend(right.level.steps);
    let mut conjuncts = left.level.conjuncts;
    conjuncts.extend(right.level.conjuncts);
    let mut columns = left.columns;
    columns.extend(right.columns);
    Operand {
        level: Level { steps, conjuncts },
        sources: left.sources.start..right.sources.end,
        columns,
    }
}

struct Binder<'a, 'b> {
    cx: &'a BindContext<'b>,
    needed: Privileges,
    column_needs: Privileges,
}

#[derive(Clone, Copy, PartialEq)]
enum JoinKind {
    Inner,
    Left,
    Right,
}

impl Binder<'_, '_> {
    fn table_with_joins(
        &self,
        item: &ast::TableWithJoins,
        sources: &mut Vec<SourceTable>,
    ) -> Result<Operand> {
        let mut left = self.factor(&item.relation, sources)?;
        for join in &item.joins {
            let right = self.factor(&join.relation, sources)?;
            left = self.join(left, right, &join.join_operator, sources)?;
        }
        Ok(left)
    }

    fn factor(&self, factor: &ast::TableFactor, sources: &mut Vec<SourceTable>) -> Result<Operand> {
        match factor {
            ast::TableFactor::Table {
                name,
                alias,
                args: None,
                ..
            } => {
                // A one-part name is a CTE's first, then a view's or a table's.
                if let (Some(_), [part]) = (self.cx.ctes, name.0.as_slice()) {
                    let cte_name = object_part(part);
                    if let Some(plan) = crate::cte::reference(self.cx, &cte_name)? {
                        let alias = alias.as_ref().map_or(cte_name, |a| a.name.value.clone());
                        return self.derived(String::new(), alias, plan, sources);
                    }
                }
                if let Some((db, view)) = crate::view::find(self.cx, name)? {
                    self.cx.access.table_columns(
                        &db,
                        &view.name,
                        self.needed,
                        self.column_needs,
                    )?;
                    let plan = crate::view::bind(self.cx, &db, &view)?;
                    let alias = alias
                        .as_ref()
                        .map_or(view.name.clone(), |a| a.name.value.clone());
                    return self.derived(db, alias, plan, sources);
                }
                let (db, table, columns) = self.cx.table(name, self.needed, self.column_needs)?;
                let alias = match alias {
                    Some(a) => a.name.value.clone(),
                    None => table.schema.name.clone(),
                };
                push_source(sources, db, alias, table, columns, None)
            }
            ast::TableFactor::Derived {
                lateral,
                subquery,
                alias,
                ..
            } => {
                // MariaDB 10.11's grammar requires the alias and has neither LATERAL nor
                // a column list after the alias: all three are syntax errors there.
                let Some(alias) = alias.as_ref().filter(|a| !lateral && a.columns.is_empty())
                else {
                    return Err(Error::parse_near("", 1));
                };
                let plan = crate::select::bind_select(subquery, &self.cx.for_derived())?;
                self.derived(String::new(), alias.name.value.clone(), plan, sources)
            }
            ast::TableFactor::NestedJoin {
                table_with_joins,
                alias: None,
            } => self.table_with_joins(table_with_joins, sources),
            _ => Err(Error::not_supported("table functions")),
        }
    }

    /// A derived table, a CTE's or a view's reference as the FROM source `alias` (of
    /// database `db`: a view's, else none).
    fn derived(
        &self,
        db: String,
        alias: String,
        plan: crate::select::SelectPlan,
        sources: &mut Vec<SourceTable>,
    ) -> Result<Operand> {
        self.cx.subquery_tables.borrow_mut().extend(plan.tables);
        let table = derived_table(&alias, &plan.columns)?;
        push_source(
            sources,
            db,
            alias,
            Arc::new(table),
            ColumnAccess::default(),
            Some(Arc::new(plan.plan)),
        )
    }

    fn join(
        &self,
        left: Operand,
        right: Operand,
        operator: &ast::JoinOperator,
        sources: &mut [SourceTable],
    ) -> Result<Operand> {
        use ast::JoinOperator as J;
        let (kind, constraint) = match operator {
            J::Join(c) | J::Inner(c) | J::CrossJoin(c) | J::StraightJoin(c) => (JoinKind::Inner, c),
            J::Left(c) | J::LeftOuter(c) => (JoinKind::Left, c),
            J::Right(c) | J::RightOuter(c) => (JoinKind::Right, c),
            _ => return Err(Error::not_supported("this join type")),
        };
        if kind != JoinKind::Inner && matches!(constraint, ast::JoinConstraint::None) {
            // MySQL's grammar requires ON or USING after LEFT/RIGHT JOIN.
            return Err(Error::parse_near("", 1));
        }
        let (mut preserved, mut other) = match kind {
            JoinKind::Right => (right, left),
            _ => (left, right),
        };
        if kind != JoinKind::Inner {
            for source in &mut sources[other.sources.clone()] {
                if source
                    .derived
                    .as_deref()
                    .is_some_and(crate::cte::is_work_table)
                {
                    return Err(crate::cte::work_table_misplaced(&source.alias));
                }
                source.null_extended = true;
            }
        }
        let textual = preserved.sources.start.min(other.sources.start)
            ..preserved.sources.end.max(other.sources.end);
        let mut condition = Vec::new();
        let columns = match constraint {
            ast::JoinConstraint::On(e) => {
                let scope = BindScope::in_query(&sources[textual.clone()], "ON", self.cx);
                let bound = scope.bind(e)?;
                let mut parts = Vec::new();
                conjuncts(&bound, &mut parts);
                condition.extend(parts.into_iter().cloned());
                textual_columns(&preserved, &other, kind)
            }
            ast::JoinConstraint::None => textual_columns(&preserved, &other, kind),
            ast::JoinConstraint::Using(names) => {
                let names: Vec<String> = names
                    .iter()
                    .map(|n| n.0.last().map(object_part).unwrap_or_default())
                    .collect();
                merge_columns(&names, &mut preserved, &mut other, sources, &mut condition)?
            }
            ast::JoinConstraint::Natural => {
                let names: Vec<String> = preserved
                    .columns
                    .iter()
                    .map(|&(s, c)| column_name(sources, s, c).to_string())
                    .filter(|name| {
                        other
                            .columns
                            .iter()
                            .any(|&(s, c)| column_name(sources, s, c).eq_ignore_ascii_case(name))
                    })
                    .collect();
                merge_columns(&names, &mut preserved, &mut other, sources, &mut condition)?
            }
        };
        let level = match kind {
            JoinKind::Inner => {
                let mut joined = cross(preserved, other).level;
                joined.conjuncts.extend(condition);
                joined
            }
            JoinKind::Left | JoinKind::Right => {
                let mut inner = other.level;
                inner.conjuncts.extend(condition);
                let mut steps = preserved.level.steps;
                steps.push(Draft::Outer(inner));
                Level {
                    steps,
                    conjuncts: preserved.level.conjuncts,
                }
            }
        };
        Ok(Operand {
            level,
            sources: textual,
            columns,
        })
    }
}

/// Adds a FROM source (a table, or a derived table's detached table and plan) after the
/// others; 1066 if its alias is taken.
fn push_source(
    sources: &mut Vec<SourceTable>,
    db: String,
    alias: String,
    table: Arc<Table>,
    columns: ColumnAccess,
    derived: Option<Arc<Plan>>,
) -> Result<Operand> {
    if sources.iter().any(|s| s.alias == alias && s.db == db)
        || sources
            .iter()
            .any(|s| s.alias == alias && s.alias != s.table.schema.name)
    {
        return Err(Error::new(
            ErrorCode::NonUniqTable,
            format!("Not unique table/alias: '{alias}'"),
        ));
    }
    let offset = sources
        .last()
        .map_or(0, |s| s.offset + s.table.schema.columns.len());
    let index = sources.len();
    let width = table.schema.columns.len();
    sources.push(SourceTable {
        db,
        alias,
        table,
        offset,
        columns,
        merged: Vec::new(),
        null_extended: false,
        derived,
    });
    Ok(Operand {
        level: Level {
            steps: vec![Draft::Table(index)],
            conjuncts: Vec::new(),
        },
        sources: index..index + 1,
        columns: (0..width).map(|c| (index, c)).collect(),
    })
}

/// A derived table's columns as a table without rows: the derived query's result
/// columns, each name once (1060 otherwise, as MariaDB). A column holding JSON gets the
/// automatic JSON check, which is how its readers know it (`check::has_json_check`);
/// the table is never written, so the check is never run.
pub fn derived_table(alias: &str, columns: &[ColumnInfo]) -> Result<Table> {
    let mut schema_columns: Vec<ColumnSchema> = Vec::with_capacity(columns.len());
    let json_checks = columns
        .iter()
        .filter(|c| c.holds_json)
        .map(|c| crate::check::json_valid_check(&c.name))
        .collect();
    for column in columns {
        if schema_columns
            .iter()
            .any(|c| c.name.eq_ignore_ascii_case(&column.name))
        {
            return Err(Error::duplicate_column(&column.name));
        }
        let data_type = match &column.data_type {
            // MariaDB materializes a NULL column as BINARY(0).
            DataType::Null => DataType::Binary { length: 0 },
            other => other.clone(),
        };
        schema_columns.push(ColumnSchema {
            name: column.name.clone(),
            data_type,
            nullable: !column.not_null,
            default: ColumnDefault::None,
            auto_increment: false,
            on_update_current_timestamp: false,
            comment: String::new(),
            display_width: None,
            generated: None,
        });
    }
    let schema = TableSchema {
        name: alias.to_string(),
        columns: schema_columns,
        primary_key: None,
        indexes: Vec::new(),
        fulltext_indexes: Vec::new(),
        comment: String::new(),
        options: Default::default(),
        foreign_keys: Vec::new(),
        checks: json_checks,
    };
    Ok(Table::detached("", schema))
}

/// `*` of a join without USING: the operands' columns in the order written.
fn textual_columns(preserved: &Operand, other: &Operand, kind: JoinKind) -> Vec<(usize, usize)> {
    let (first, second) = match kind {
        JoinKind::Right => (other, preserved),
        _ => (preserved, other),
    };
    first
        .columns
        .iter()
        .chain(&second.columns)
        .copied()
        .collect()
}

fn column_name(sources: &[SourceTable], source: usize, column: usize) -> &str {
    &sources[source].table.schema.columns[column].name
}

/// USING/NATURAL (invariant (3)): adds `preserved.x = other.x` to `condition` for each
/// name, merges the other operand's columns, and gives the `*` order.
fn merge_columns(
    names: &[String],
    preserved: &mut Operand,
    other: &mut Operand,
    sources: &mut [SourceTable],
    condition: &mut Vec<Expr>,
) -> Result<Vec<(usize, usize)>> {
    let mut common = Vec::new();
    let mut merged = Vec::new();
    for name in names {
        let kept = find_column(&preserved.columns, sources, name)?;
        let dropped = find_column(&other.columns, sources, name)?;
        let column = |(s, c): (usize, usize)| -> Result<Expr> {
            let source = &sources[s];
            let schema_column = &source.table.schema.columns[c];
            source
                .columns
                .check(&schema_column.name, Privileges::SELECT)?;
            Ok(Expr::Column(source.column_ref(c)))
        };
        let left = column(preserved.columns[kept])?;
        let right = column(other.columns[dropped])?;
        condition.push(crate::expr::binary_node(BinaryOp::Eq, left, right));
        common.push(kept);
        merged.push(dropped);
    }
    common.sort_unstable();
    for &position in &merged {
        let (s, c) = other.columns[position];
        sources[s].merged.push(c);
    }
    let mut columns: Vec<(usize, usize)> = common.iter().map(|&p| preserved.columns[p]).collect();
    columns.extend(
        (0..preserved.columns.len())
            .filter(|p| !common.contains(p))
            .map(|p| preserved.columns[p]),
    );
    columns.extend(
        (0..other.columns.len())
            .filter(|p| !merged.contains(p))
            .map(|p| other.columns[p]),
    );
    Ok(columns)
}

/// The position of the one column named `name` in `columns` (1054 if none, 1052 if more).
fn find_column(columns: &[(usize, usize)], sources: &[SourceTable], name: &str) -> Result<usize> {
    let mut found = None;
    for (position, &(s, c)) in columns.iter().enumerate() {
        if column_name(sources, s, c).eq_ignore_ascii_case(name) {
            if found.is_some() {
                return Err(Error::new(
                    ErrorCode::NonUniq,
                    format!("Column '{name}' in FROM is ambiguous"),
                ));
            }
            found = Some(position);
        }
    }
    found.ok_or_else(|| Error::bad_field(name, "FROM"))
}

/// The plan of a join whose rows must also pass `filter` (the WHERE clause). The sources
/// `reported` (indexes into `sources`) are read as tables (`JoinSource::Table`), never
/// buffered, so the join can report their row slots (`exec::run_join_slots`): a
/// multi-table UPDATE or DELETE's targets, a locking read's tables.
pub fn plan(
    mut level: Level,
    filter: Option<Expr>,
    sources: &[SourceTable],
    reported: &[usize],
) -> Plan {
    if let Some(filter) = &filter {
        let mut parts = Vec::new();
        conjuncts(filter, &mut parts);
        level.conjuncts.extend(parts.into_iter().cloned());
    }
    let width = sources
        .last()
        .map_or(0, |s| s.offset + s.table.schema.columns.len());
    let mut buffers = 0;
    let placing = Placing {
        sources,
        reported,
        buffers: &mut buffers,
        top: true,
    };
    let steps = place(level, &mut Vec::new(), placing);
    Plan::Join(Box::new(Join {
        steps,
        width,
        buffers,
    }))
}

fn cells(source: &SourceTable) -> Range<usize> {
    source.offset..source.offset + source.table.schema.columns.len()
}

fn draft_cells(draft: &Draft, sources: &[SourceTable], out: &mut Vec<Range<usize>>) {
    match draft {
        Draft::Table(i) => out.push(cells(&sources[*i])),
        Draft::Outer(level) => level
            .steps
            .iter()
            .for_each(|d| draft_cells(d, sources, out)),
    }
}

fn reads_only(expr: &Expr, known: &[Range<usize>]) -> bool {
    let mut inside = true;
    crate::dml::visit_columns(expr, &mut |c| {
        inside &= known.iter().any(|cells| cells.contains(&c.index))
    });
    inside
}

/// What placing the steps of a join needs besides a level: the sources, those whose row
/// slots the join reports (`plan`), and the count of steps read once per run (invariant (5)).
struct Placing<'a> {
    sources: &'a [SourceTable],
    reported: &'a [usize],
    buffers: &'a mut usize,
    /// Whether the level's conjuncts are the WHERE clause's and inner joins' (an outer
    /// join's inner level holds its ON condition, which MariaDB does not look names up by).
    top: bool,
}

/// Turns a level into steps (invariant (1)); `known` holds the cells filled before it
/// and, on return, those it fills too.
fn place(mut level: Level, known: &mut Vec<Range<usize>>, placing: Placing) -> Vec<JoinStep> {
    let sources = placing.sources;
    reorder(&mut level, known, sources);
    let mut pending: Vec<Option<Expr>> = level.conjuncts.into_iter().map(Some).collect();
    let mut steps = Vec::with_capacity(level.steps.len());
    let last = level.steps.len() - 1;
    for (j, draft) in level.steps.into_iter().enumerate() {
        let before = known.len();
        let mut after = known.clone();
        draft_cells(&draft, sources, &mut after);
        // The conjuncts this step completes (the last step takes whatever is left).
        let here: Vec<Expr> = pending
            .iter_mut()
            .filter(|p| {
                p.as_ref()
                    .is_some_and(|e| j == last || reads_only(e, &after))
            })
            .filter_map(Option::take)
            .collect();
        let (source, here) = match draft {
            Draft::Table(i) => {
                let reported = placing.reported.contains(&i);
                let (buffers, lookups) = (&mut *placing.buffers, placing.top);
                table_step(&sources[i], here, known, reported, lookups, buffers)
            }
            Draft::Outer(inner) => (
                JoinSource::Outer {
                    steps: place(
                        inner,
                        &mut known.clone(),
                        Placing {
                            sources,
                            reported: placing.reported,
                            buffers: &mut *placing.buffers,
                            top: false,
                        },
                    ),
                    nulls: after[before..].to_vec(),
                },
                here,
            ),
        };
        *known = after;
        steps.push(JoinStep {
            source,
            filter: conjunction(here),
        });
    }
    steps
}

/// The step reading `table` after the cells `known`, with the conjuncts `here` placed
/// there; returns the source and the conjuncts the step checks per joined row. A table
/// whose slots are `reported` is always read as a table, never buffered (`plan`). With
/// `lookups`, an information_schema table looks up the names `here` gives
/// (`Placing::top`).
fn table_step(
    table: &SourceTable,
    here: Vec<Expr>,
    known: &[Range<usize>],
    reported: bool,
    lookups: bool,
    buffers: &mut usize,
) -> (JoinSource, Vec<Expr>) {
    let offset = table.offset;
    // Rows made by a plan: a derived table's, or an information_schema table's made
    // per execution (information_schema invariant (1)).
    let made = match (&table.derived, SystemTable::of(&table.table)) {
        (Some(plan), _) => Some(Plan::clone(plan)),
        // Its conjuncts here still run per joined row; the lookups among them only spare
        // making rows they would reject (information_schema invariant (5)).
        (None, Some(system)) => Some(Plan::SystemScan(Box::new(SystemScan {
            table: system,
            filter: None,
            lookups: if lookups {
                system.lookups(&here.iter().collect::<Vec<_>>(), offset)
            } else {
                Vec::new()
            },
        }))),
        (None, None) => None,
    };
    let plan = match made {
        Some(plan) => plan,
        None => {
            let parts: Vec<&Expr> = here.iter().collect();
            let choice = access::join_access(&table.table.schema, offset, &parts, known);
            let scan = Box::new(Scan {
                table: table.table.clone(),
                alias: table.alias.clone(),
                access: choice.access,
                possible_keys: choice.possible_keys,
                filter: None,
                residual: None,
            });
            // The first step streams; an index lookup depends on earlier cells.
            if known.is_empty() || reported || matches!(scan.access, AccessPath::Index(_)) {
                return (JoinSource::Table { scan, offset }, here);
            }
            Plan::Scan(scan)
        }
    };
    if known.is_empty() {
        let source = JoinSource::Rows {
            plan: Box::new(plan),
            offset,
            own: None,
            buffer: None,
        };
        return (source, here);
    }
    let own_cells = [cells(table)];
    let (own, rest): (Vec<Expr>, Vec<Expr>) = here
        .into_iter()
        .partition(|e| reads_only(e, &own_cells) && !reads_joined_row_inside(e));
    let source = JoinSource::Rows {
        plan: Box::new(plan),
        offset,
        own: conjunction(own),
        buffer: Some(*buffers),
    };
    *buffers += 1;
    (source, rest)
}

/// Whether a correlated subquery in `expr` reads the join row, whose cells of earlier
/// steps change from one outer row to the next.
fn reads_joined_row_inside(expr: &Expr) -> bool {
    let mut found = false;
    crate::dml::visit(expr, &mut |e| {
        found |= matches!(e, Expr::Subquery(s) if s.correlated);
    });
    found
}

/// Invariant (4): in a level of tables only, reads next the first table an index reaches
/// from known values, else the first one a conjunct connects to what is known, else the
/// first one left.
fn reorder(level: &mut Level, known: &[Range<usize>], sources: &[SourceTable]) {
    let tables: Option<Vec<usize>> = level
        .steps
        .iter()
        .map(|d| match d {
            Draft::Table(i) => Some(*i),
            Draft::Outer(_) => None,
        })
        .collect();
    let Some(mut left) = tables else {
        return;
    };
    let mut known = known.to_vec();
    let mut order = Vec::with_capacity(left.len());
    while !left.is_empty() {
        let score = |i: usize| -> u8 {
            let mut reach = known.clone();
            reach.push(cells(&sources[i]));
            let own = cells(&sources[i]);
            let usable: Vec<&Expr> = level
                .conjuncts
                .iter()
                .filter(|e| reads_only(e, &reach) && !reads_only(e, &known))
                .collect();
            let indexed = matches!(
                access::join_access(&sources[i].table.schema, own.start, &usable, &known).access,
                AccessPath::Index(_)
            );
            let connected = usable
                .iter()
                .any(|e| !reads_only(e, std::slice::from_ref(&own)));
            if indexed {
                2
            } else {
                u8::from(connected)
            }
        };
        let mut best = 0;
        let mut best_score = score(left[0]);
        for (k, &i) in left.iter().enumerate().skip(1) {
            let s = score(i);
            if s > best_score {
                best = k;
                best_score = s;
            }
        }
        let chosen = left.remove(best);
        known.push(cells(&sources[chosen]));
        order.push(Draft::Table(chosen));
    }
    level.steps = order;
}
