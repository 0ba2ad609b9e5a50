//! Multi-table UPDATE and DELETE: `UPDATE t1 JOIN t2 ... SET t1.a = ..., t2.b = ...`,
//! `UPDATE t1, t2 SET ...`, `DELETE t1, t2 FROM <join> ...` and
//! `DELETE FROM t1, t2 USING <join> ...`.
//!
//! The FROM clause is bound and planned as a SELECT's join (`join::plan`), with the
//! write targets read as tables so each joined row carries its targets' row slots
//! (`exec::run_join_slots`). As single-table writes (dml module notes), every joined row is
//! collected before the first write, so the statement never sees its own changes.
//!
//! Invariants (MariaDB's semantics):
//! (1) A target row is updated or deleted at most once, however many joined rows match it:
//!     the first joined row that reaches it decides its new values. A target on the
//!     NULL-extended side of an outer join is not touched for rows nothing matched.
//! (2) An assignment sees its own table's earlier assignments in the same statement and
//!     every other table's values as the join read them (MariaDB updates a row buffer per
//!     table). "Rows matched" counts distinct target rows reached, "Changed" those whose
//!     values changed.
//! (3) UPDATE takes ORDER BY and LIMIT over the joined rows; DELETE's grammar has neither
//!     (1064, as MariaDB). A DELETE whose WHERE subquery reads a target is 1093; an
//!     UPDATE's may (MariaDB 10.11 reads the table as the statement found it).
//! (4) Privileges: the write privilege on each target table, SELECT on every other table
//!     (checked after the FROM clause is bound, since which tables are targets is known
//!     only then), SELECT on each column read, UPDATE on each column assigned.
//! (5) Triggers fire once per target row reached (invariant (1)), when the rows are
//!     written: BEFORE UPDATE may change the new values, and AFTER UPDATE fires also for a
//!     row that ends unchanged, as in MariaDB. MariaDB writes its first table as it reads
//!     the join and the others afterwards, so with triggers on several targets the
//!     order of their firings can differ from MariaDB's; here every write follows the
//!     joined rows' order. A body may not write a table the statement reads (1442).

use crate::dml::{self, WriteSession};
use crate::engine::Counter;
use crate::error::{Error, ErrorCode, Result};
use crate::exec::{self, ExecContext};
use crate::expr::{self, EvalContext, Expr};
use crate::foreign_key::Enforcer;
use crate::information_schema;
use crate::plan::{Count, Plan, SortKey};
use crate::privilege::Privileges;
use crate::scope::{BindScope, SourceTable};
use crate::select::{object_part, BindContext};
use crate::session::StatementOutcome;
use crate::trigger::{self, Event, Triggers};
use manycore_storage::{RowSlot, StorageError, Table, Transaction};
use manycore_types::Value;
use sqlparser::ast;
use std::sync::Arc;

/// A table a multi-table statement writes.
#[derive(Clone)]
pub struct Target {
    /// Its database, for the `db`.`t`.`c` names of 1366 messages.
    pub db: String,
    pub table: Arc<Table>,
    /// Where its cells start in the joined row.
    pub offset: usize,
    /// Its assignments (UPDATE): (column, value bound against the joined row; None is
    /// DEFAULT, `dml::default_cell`), in the order written.
    pub assignments: Vec<(usize, Option<Expr>)>,
    /// Its CHECK constraints (UPDATE).
    pub checks: Vec<crate::check::BoundCheck>,
    /// Its generated columns (UPDATE).
    pub generated: Vec<crate::generated::BoundGenerated>,
    /// Its triggers of the statement's event.
    pub triggers: Triggers,
}

#[derive(Clone)]
pub struct MultiUpdatePlan {
    /// The join (or, for one table, the scan) with the WHERE clause.
    pub join: Plan,
    pub targets: Vec<Target>,
    pub order: Vec<SortKey>,
    pub limit: Option<Count>,
    pub ignore: bool,
    /// Every table the statement reads, to re-bind after DDL.
    pub tables: Vec<Arc<Table>>,
}

#[derive(Clone)]
pub struct MultiDeletePlan {
    pub join: Plan,
    pub targets: Vec<Target>,
    pub tables: Vec<Arc<Table>>,
}

/// Whether an UPDATE names more than one table (a join or a comma list).
pub fn is_multi_update(update: &ast::Update) -> bool {
    update.from.is_some() || !update.table.joins.is_empty()
}

/// Whether a DELETE has a target list (`DELETE t1 FROM ...`, `DELETE FROM t1 USING ...`).
pub fn is_multi_delete(delete: &ast::Delete) -> bool {
    !delete.tables.is_empty() || delete.using.is_some()
}

/// A bound FROM clause of a multi-table write.
struct FromTables {
    sources: Vec<SourceTable>,
    joins: Option<crate::join::Level>,
}

fn bind_sources(
    from: &[ast::TableWithJoins],
    cx: &BindContext,
    column_needs: Privileges,
) -> Result<FromTables> {
    // Table privileges depend on the table's role, known after binding (invariant (4)).
    let clause = crate::join::bind_from(
        from,
        cx,
        Privileges::NONE,
        column_needs | Privileges::SELECT,
    )?;
    Ok(FromTables {
        sources: clause.sources,
        joins: clause.joins,
    })
}

/// Invariant (4): `write` on the targets, SELECT on the other tables.
fn check_tables(
    sources: &[SourceTable],
    targets: &[usize],
    write: Privileges,
    cx: &BindContext,
) -> Result<()> {
    for (i, source) in sources.iter().enumerate() {
        if source.derived.is_some() {
            continue;
        }
        let needed = if targets.contains(&i) {
            write
        } else {
            Privileges::SELECT
        };
        cx.access.table_columns(
            &source.db,
            &source.table.schema.name,
            needed,
            Privileges::NONE,
        )?;
    }
    Ok(())
}

/// The plan reading `bound` with `filter`, targets as tables.
fn plan(bound: FromTables, filter: Option<Expr>, targets: &[usize]) -> Plan {
    match bound.joins {
        Some(level) => crate::join::plan(level, filter, &bound.sources, targets),
        None => Plan::Scan(Box::new(crate::access::scan(&bound.sources[0], filter))),
    }
}

/// A derived target's error: 1288 as MariaDB, except that writes through views are not
/// built yet (1235), though MariaDB makes many views writable.
pub fn not_updatable(source: &SourceTable, statement: &str) -> Error {
    if source.is_view() {
        return Error::not_supported("INSERT, UPDATE and DELETE through a view");
    }
    Error::new(
        ErrorCode::NonUpdatableTable,
        format!(
            "The target table {} of the {statement} is not updatable",
            source.alias
        ),
    )
}

/// The source and column an UPDATE's `SET [[db.]t.]c` names (1054, 1052 as MariaDB).
fn assigned_column(
    sources: &[SourceTable],
    target: &ast::AssignmentTarget,
) -> Result<(usize, usize)> {
    let ast::AssignmentTarget::ColumnName(name) = target else {
        return Err(Error::not_supported("tuple assignment"));
    };
    let parts: Vec<String> = name.0.iter().map(object_part).collect();
    let Some((column, qualifier)) = parts.split_last() else {
        return Err(Error::parse_near("", 1));
    };
    let mut found = None;
    for (i, source) in sources.iter().enumerate() {
        let matches = match qualifier {
            [] => true,
            [table] => *table == source.alias,
            [db, table] => *table == source.alias && *db == source.db,
            _ => false,
        };
        let Some(c) = source.table.schema.column_index(column).filter(|_| matches) else {
            continue;
        };
        // USING/NATURAL: the unqualified name is the preserved operand's column.
        if qualifier.is_empty() && source.merged.contains(&c) {
            continue;
        }
        if found.is_some() {
            return Err(Error::new(
                ErrorCode::NonUniq,
                format!("Column '{column}' in SET is ambiguous"),
            ));
        }
        found = Some((i, c));
    }
    found.ok_or_else(|| Error::bad_field(&parts.join("."), "SET"))
}

pub fn bind_update(update: &ast::Update, cx: &BindContext) -> Result<MultiUpdatePlan> {
    let mut from = vec![update.table.clone()];
    match &update.from {
        Some(ast::UpdateTableFromKind::BeforeSet(more)) => from.extend(more.iter().cloned()),
        Some(ast::UpdateTableFromKind::AfterSet(_)) => return Err(Error::parse_near("", 1)),
        None => {}
    }
    let bound = bind_sources(&from, cx, Privileges::UPDATE)?;
    let sources = &bound.sources;
    let mut targets: Vec<usize> = Vec::new();
    let mut assignments: Vec<(usize, usize, Option<Expr>)> = Vec::new();
    {
        let scope = BindScope::in_query(sources, "SELECT", cx);
        for a in &update.assignments {
            let (source, column) = assigned_column(sources, &a.target)?;
            let s = &sources[source];
            if s.derived.is_some() || information_schema::SystemTable::of(&s.table).is_some() {
                return Err(not_updatable(s, "UPDATE"));
            }
            let schema_column = &s.table.schema.columns[column];
            s.columns.check(&schema_column.name, Privileges::UPDATE)?;
            let value = match dml::is_default_keyword(&a.value) {
                true => None,
                false => Some(scope.bind(&a.value)?),
            };
            if !targets.contains(&source) {
                targets.push(source);
            }
            assignments.push((source, column, value));
        }
    }
    targets.sort_unstable();
    check_tables(sources, &targets, Privileges::UPDATE, cx)?;
    let filter = match &update.selection {
        Some(e) => Some(BindScope::in_query(sources, "WHERE", cx).bind(e)?),
        None => None,
    };
    let (order, limit) =
        dml::bind_order_limit(&update.order_by, update.limit.as_ref(), sources, cx)?;
    let tables = read_tables(sources, cx);
    let triggers = bind_triggers(sources, &targets, &tables, Event::Update, cx)?;
    let mut targets_out = Vec::with_capacity(targets.len());
    for (&i, triggers) in targets.iter().zip(triggers) {
        targets_out.push(Target {
            db: sources[i].db.clone(),
            table: sources[i].table.clone(),
            offset: sources[i].offset,
            assignments: assignments
                .iter()
                .filter(|(s, _, _)| *s == i)
                .map(|(_, c, e)| (*c, e.clone()))
                .collect(),
            checks: crate::check::bind(&sources[i].db, &sources[i].table)?,
            generated: crate::generated::bind(&sources[i].table)?,
            triggers,
        });
    }
    Ok(MultiUpdatePlan {
        join: plan(bound, filter, &targets),
        targets: targets_out,
        order,
        limit,
        ignore: matches!(update.or, Some(ast::SqliteOnConflict::Ignore)),
        tables,
    })
}

/// The `event` triggers of each target (invariant (5)); `read` is every table the
/// statement reads, targets included.
fn bind_triggers(
    sources: &[SourceTable],
    targets: &[usize],
    read: &[Arc<Table>],
    event: Event,
    cx: &BindContext,
) -> Result<Vec<Triggers>> {
    let targets: Vec<(&str, &Arc<Table>)> = targets
        .iter()
        .map(|&i| (sources[i].db.as_str(), &sources[i].table))
        .collect();
    trigger::bind_each(cx, &targets, read, event)
}

/// The tables a statement reads: its FROM clause's and its subqueries'.
fn read_tables(sources: &[SourceTable], cx: &BindContext) -> Vec<Arc<Table>> {
    let mut tables: Vec<Arc<Table>> = sources
        .iter()
        .filter(|s| s.derived.is_none())
        .map(|s| s.table.clone())
        .collect();
    tables.extend(cx.subquery_tables.take());
    tables
}

pub fn bind_delete(delete: &ast::Delete, cx: &BindContext) -> Result<MultiDeletePlan> {
    // As MariaDB: RETURNING belongs to single-table DELETE only (`DELETE FROM t1, t2
    // USING ... RETURNING` parses).
    if delete.returning.is_some() {
        return Err(Error::parse_near_keyword(cx.text, "returning"));
    }
    if !delete.order_by.is_empty() || delete.limit.is_some() {
        return Err(order_or_limit_error(cx.text, delete.order_by.is_empty()));
    }
    let listed = match &delete.from {
        ast::FromTable::WithFromKeyword(f) | ast::FromTable::WithoutKeyword(f) => f,
    };
    // `DELETE t1, t2 FROM <join>` or `DELETE FROM t1, t2 USING <join>`.
    let (names, from): (Vec<&ast::ObjectName>, &[ast::TableWithJoins]) = match &delete.using {
        None => (delete.tables.iter().collect(), listed.as_slice()),
        Some(using) => {
            let mut names = Vec::with_capacity(listed.len());
            for item in listed {
                match &item.relation {
                    ast::TableFactor::Table {
                        name, alias: None, ..
                    } if item.joins.is_empty() => names.push(name),
                    _ => return Err(Error::parse_near("", 1)),
                }
            }
            (names, using.as_slice())
        }
    };
    let bound = bind_sources(from, cx, Privileges::NONE)?;
    let sources = &bound.sources;
    let mut targets = Vec::with_capacity(names.len());
    for name in names {
        let parts: Vec<String> = name.0.iter().map(object_part).collect();
        let found = sources.iter().position(|s| match parts.as_slice() {
            [table] => *table == s.alias,
            [db, table] => *table == s.alias && *db == s.db,
            _ => false,
        });
        let unknown =
            || Error::unknown_table(parts.last().map_or("", String::as_str), "MULTI DELETE");
        let i = found.ok_or_else(unknown)?;
        if sources[i].derived.is_some() {
            return Err(not_updatable(&sources[i], "DELETE"));
        }
        if information_schema::SystemTable::of(&sources[i].table).is_some() {
            return Err(unknown());
        }
        if !targets.contains(&i) {
            targets.push(i);
        }
    }
    targets.sort_unstable();
    check_tables(sources, &targets, Privileges::DELETE, cx)?;
    let before = cx.subquery_tables.take();
    let filter = match &delete.selection {
        Some(e) => Some(BindScope::in_query(sources, "WHERE", cx).bind(e)?),
        None => None,
    };
    let read_by_where = cx.subquery_tables.replace(before);
    // Invariant (3): MariaDB deletes as it reads, so a subquery may not read a target.
    if let Some(t) = targets
        .iter()
        .map(|&i| &sources[i])
        .find(|s| read_by_where.iter().any(|t| Arc::ptr_eq(t, &s.table)))
    {
        return Err(Error::new(
            ErrorCode::UpdateTableUsed,
            format!(
                "Table '{}' is specified twice, both as a target for 'DELETE' and as a \
                 separate source for data",
                t.alias
            ),
        ));
    }
    cx.subquery_tables.borrow_mut().extend(read_by_where);
    let tables = read_tables(sources, cx);
    let triggers = bind_triggers(sources, &targets, &tables, Event::Delete, cx)?;
    let targets_out = targets
        .iter()
        .zip(triggers)
        .map(|(&i, triggers)| Target {
            db: sources[i].db.clone(),
            table: sources[i].table.clone(),
            offset: sources[i].offset,
            assignments: Vec::new(),
            checks: Vec::new(),
            generated: Vec::new(),
            triggers,
        })
        .collect();
    Ok(MultiDeletePlan {
        join: plan(bound, filter, &targets),
        targets: targets_out,
        tables,
    })
}

/// 1064 for a multi-table DELETE's ORDER BY or LIMIT, near that clause as MariaDB says.
fn order_or_limit_error(text: &str, limit_only: bool) -> Error {
    Error::parse_near_keyword(text, if limit_only { "limit" } else { "order" })
}

/// A joined row and the slots of its targets' rows (None: NULL-extended).
type Joined = (Vec<Value>, Vec<Option<Arc<RowSlot>>>);

/// A row a multi-table UPDATE matched: (target, slot, whether the assignments changed it,
/// old row, new row).
type RowWrite = (usize, Arc<RowSlot>, bool, Vec<Value>, Vec<Value>);

/// Runs the join, keeping every joined row with its targets' slots (sorted by `order`,
/// cut at `limit`).
fn joined_rows(
    join: &Plan,
    targets: &[Target],
    order: &[SortKey],
    limit: Option<Count>,
    ctx: &ExecContext,
) -> Result<Vec<Joined>> {
    let single = matches!(join, Plan::Scan(_));
    dml::first_rows(order, limit, ctx, |keep| {
        exec::run_join_slots(join, ctx, &mut |row, slots| {
            let target_slots = targets
                .iter()
                .map(|t| {
                    let at = if single { 0 } else { t.offset };
                    slots.get(at).cloned().flatten()
                })
                .collect();
            keep(row, (row.to_vec(), target_slots))
        })
        .map(drop)
    })
}

/// Per target, the slots already reached (invariant (1)).
fn first_visit(seen: &mut foldhash::HashSet<usize>, slot: &Arc<RowSlot>) -> bool {
    seen.insert(Arc::as_ptr(slot) as usize)
}

pub fn execute_update(
    plan: &MultiUpdatePlan,
    txn: &mut Transaction,
    params: &[Value],
    session: &dyn expr::SessionContext,
    interrupt: &crate::engine::ProcessEntry,
) -> Result<StatementOutcome> {
    txn.refresh_write_view();
    // IGNORE turns strict-mode data errors into warnings (non-strict adjustments).
    let strict = session.strict() && !plan.ignore;
    let write_session = WriteSession::new(session, strict);
    let subqueries = exec::SubqueryReader::new(txn.write_view(), interrupt);
    let eval = EvalContext {
        subqueries: Some(&subqueries),
        ..EvalContext::new(params, &write_session)
    };
    let ctx = dml::exec_context(txn, eval, interrupt);
    let rows = joined_rows(&plan.join, &plan.targets, &plan.order, plan.limit, &ctx)?;
    let mut seen: Vec<foldhash::HashSet<usize>> = vec![Default::default(); plan.targets.len()];
    // Every changed row, written after all are computed.
    let mut writes: Vec<RowWrite> = Vec::new();
    let mut matched = 0u64;
    for (row, slots) in &rows {
        for (t, target) in plan.targets.iter().enumerate() {
            let Some(slot) = &slots[t] else { continue };
            if !first_visit(&mut seen[t], slot) {
                continue;
            }
            matched += 1;
            // Invariant (2): this table's assignments see each other, the rest the join.
            let mut work = row.clone();
            let width = target.table.schema.columns.len();
            let cells = target.offset..target.offset + width;
            for (column, e) in &target.assignments {
                let c = &target.table.schema.columns[*column];
                if !target.generated.is_empty() && c.generated.is_some() {
                    // MariaDB's multi-table UPDATE ignores a value written to a generated
                    // column without 1906 (its own UPDATE does not): `fill` computes it.
                    continue;
                }
                let value = match e {
                    Some(e) => {
                        let value = write_session.check(e.eval(&work, &ctx.eval))?;
                        let name = || dml::qualified(&target.db, &target.table, c);
                        // NULL into NOT NULL: an error only in strict mode without IGNORE.
                        dml::store(value, c, &name, matched, strict, strict, session)?
                    }
                    // MariaDB: 1364 here even with IGNORE or without strict mode.
                    None => dml::default_cell(c, true, session)?,
                };
                work[target.offset + column] = value;
            }
            let changes = work[cells.clone()] != row[cells.clone()];
            writes.push((
                t,
                slot.clone(),
                changes,
                row[cells.clone()].to_vec(),
                work[cells].to_vec(),
            ));
        }
    }
    let enforcers: Vec<Option<Enforcer>> = plan
        .targets
        .iter()
        .map(|target| Enforcer::for_write(txn, &target.table, session))
        .collect();
    let mut changed = 0u64;
    for (t, slot, changes, old, mut new) in writes {
        let target = &plan.targets[t];
        let table = &target.table;
        // A row left as it was still fires its triggers (invariant (5)), and BEFORE UPDATE
        // may change it after all.
        let writes_row = if target.triggers.is_empty() {
            changes
        } else {
            dml::before_update(
                &target.triggers,
                &old,
                &mut new,
                (&target.db, table),
                strict,
                txn,
                session,
                interrupt,
            )?
        };
        if !writes_row {
            dml::lock_unchanged(txn, table, &slot)?;
            continue;
        }
        dml::stamp_on_update(&table.schema, &target.assignments, &mut new, session);
        let eval = EvalContext::new(params, &write_session);
        crate::generated::fill(
            &target.generated,
            &table.schema,
            &mut new,
            changed + 1,
            strict,
            &eval,
        )?;
        let name = &table.schema.name;
        if !crate::check::row_passes(&target.checks, &target.db, name, &new, &eval, plan.ignore)? {
            continue;
        }
        let mut kept = new.clone();
        match txn.update(table, &slot, new.into_boxed_slice()) {
            Ok(()) => {
                changed += 1;
                session.count(Counter::HandlerUpdate, 1);
                if let Some(enforcer) = &enforcers[t] {
                    enforcer.row_written(txn, table, Some(&old), Some(&kept))?;
                }
                let after = &target.triggers.after;
                trigger::fire(after, Some(&old), Some(&mut kept), txn, session, interrupt)?;
            }
            // MariaDB's multi-table UPDATE IGNORE skips a duplicate without a warning and
            // counts the row as changed (its deferred updates of `multi_update::do_updates`).
            Err(StorageError::DuplicateKey { .. }) if plan.ignore => changed += 1,
            Err(StorageError::DuplicateKey { index, .. }) => {
                return Err(dml::duplicate_error(table, index, &kept));
            }
            Err(e) => return Err(dml::write_error(e, table, &[])),
        }
    }
    Ok(StatementOutcome::Update { matched, changed })
}

pub fn execute_delete(
    plan: &MultiDeletePlan,
    txn: &mut Transaction,
    params: &[Value],
    session: &dyn expr::SessionContext,
    interrupt: &crate::engine::ProcessEntry,
) -> Result<StatementOutcome> {
    txn.refresh_write_view();
    let subqueries = exec::SubqueryReader::new(txn.write_view(), interrupt);
    let eval = EvalContext {
        subqueries: Some(&subqueries),
        ..EvalContext::new(params, session)
    };
    let ctx = dml::exec_context(txn, eval, interrupt);
    let rows = joined_rows(&plan.join, &plan.targets, &[], None, &ctx)?;
    let enforcers: Vec<Option<Enforcer>> = plan
        .targets
        .iter()
        .map(|target| Enforcer::for_write(txn, &target.table, session))
        .collect();
    // One set for all targets: a table named under two aliases loses each row once.
    let mut seen = foldhash::HashSet::default();
    let mut deleted = 0;
    for (row, slots) in rows {
        for ((target, slot), enforcer) in plan.targets.iter().zip(slots).zip(&enforcers) {
            let Some(slot) = slot else { continue };
            if !first_visit(&mut seen, &slot) {
                continue;
            }
            // A foreign key's cascade may have deleted it already, in this statement.
            if slot.read(&txn.write_view(), |_| ()).is_none() {
                continue;
            }
            let deleting = dml::Deleting {
                table: &target.table,
                triggers: &target.triggers,
                enforcer: enforcer.as_ref(),
            };
            let width = target.table.schema.columns.len();
            let old = &row[target.offset..target.offset + width];
            deleting.row(&slot, old, txn, session, interrupt)?;
            deleted += 1;
        }
    }
    Ok(StatementOutcome::Affected {
        rows: deleted,
        last_insert_id: 0,
    })
}
