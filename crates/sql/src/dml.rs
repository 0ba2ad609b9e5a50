//! INSERT, REPLACE, UPDATE and DELETE: binding and execution.
//!
//! Writes collect their target rows first and write afterwards, so a statement never
//! sees its own changes while choosing rows (no Halloween problem) and storage callbacks
//! never nest writes. Their subqueries (of VALUES, SET, WHERE) read the tables, the target
//! too, as the statement found them, as in MariaDB: INSERT makes all its VALUES rows before
//! the first write, and UPDATE, when a subquery of SET reads the target table, all its new
//! rows.
//!
//! Affected rows follow MySQL: 1 per inserted row, 2 per row updated by ON DUPLICATE KEY
//! UPDATE (0 if unchanged, 1 with CLIENT_FOUND_ROWS), REPLACE 1 + rows deleted, UPDATE
//! rows actually changed (rows matched with CLIENT_FOUND_ROWS, which the session applies).
//!
//! Reads of target rows use the transaction's write view, refreshed at the start of each
//! write statement: like InnoDB's locking reads, UPDATE/DELETE see the latest commits even
//! inside a REPEATABLE READ transaction. A row another transaction holds becomes an error
//! with `wait` set; the session waits for the holder and runs the statement again
//! (session invariant (4)). An UPDATE locks every row it matches, also one it leaves as
//! it was (`lock_unchanged`, as InnoDB does; multi-table UPDATE too), so `UPDATE t SET
//! c = c WHERE ...` holds its rows until the transaction ends.
//!
//! Invariant: every value handed to storage went through `store_value` (or is a column
//! default, stored already coerced), so it has its column's type (types invariant (2)).

use crate::engine::Counter;
use crate::error::{Error, ErrorCode, Result};
use crate::exec::{self, ExecContext};
use crate::expr::{self, ColumnRef, EvalContext, Expr, SubqueryKind};
use crate::foreign_key::Enforcer;
use crate::plan::{Count, Scan, SortKey};
use crate::privilege::Privileges;
use crate::scope::{BindScope, SourceTable, VALUES_QUALIFIER};
use crate::select::{self, BindContext, SelectPlan};
use crate::session::StatementOutcome;
use crate::trigger::{self, Event, Triggers};
use manycore_storage::{RowSlot, StorageError, Table, Transaction};
use manycore_types::{ColumnDefault, DataType, Value};
use sqlparser::ast;
use std::ops::ControlFlow;
use std::sync::Arc;

#[derive(Clone)]
pub enum InsertSource {
    /// Rows of expressions; None is DEFAULT.
    Values(Vec<Vec<Option<Expr>>>),
    Select(Box<SelectPlan>),
    /// Rows the statement makes as it runs (LOAD DATA's, from its file), handed to
    /// `write_rows` with each value already through `InsertPlan::given_cell`;
    /// `execute_insert` has none to run.
    Given,
}

/// RETURNING's select list: evaluated against each row an INSERT, REPLACE or DELETE
/// wrote, the rows go back as a result set instead of the OK packet.
#[derive(Clone)]
pub struct Returning {
    pub exprs: Vec<Expr>,
    pub columns: crate::sink::Columns,
}

impl Returning {
    fn row(&self, row: &[Value], eval: &EvalContext) -> Result<Vec<Value>> {
        self.exprs.iter().map(|e| e.eval(row, eval)).collect()
    }
}

#[derive(Clone)]
pub struct InsertPlan {
    /// The table's database, for the `db`.`t`.`c` names of 1366 messages.
    pub db: String,
    pub table: Arc<Table>,
    pub columns: Vec<usize>,
    pub source: InsertSource,
    pub ignore: bool,
    pub replace: bool,
    /// ON DUPLICATE KEY UPDATE, bound against `[existing row][new row]`.
    pub on_duplicate: Vec<(usize, Expr)>,
    /// The table's CHECK constraints (`check` module).
    pub checks: Vec<crate::check::BoundCheck>,
    /// The table's generated columns (`generated` module).
    pub generated: Vec<crate::generated::BoundGenerated>,
    pub returning: Option<Returning>,
    /// Tables the subqueries of VALUES, SET and ON DUPLICATE KEY UPDATE read (to re-bind
    /// after DDL).
    pub subquery_tables: Vec<Arc<Table>>,
    /// The INSERT triggers it fires (`trigger`; empty for most tables).
    pub triggers: Triggers,
    /// What a conflicting row fires: REPLACE's DELETE triggers (for each row it deletes),
    /// ON DUPLICATE KEY UPDATE's UPDATE triggers (also when the row stays as it was, as
    /// in MariaDB).
    pub conflict_triggers: Triggers,
}

impl InsertPlan {
    /// MySQL: NULL into NOT NULL is an error for a single-row INSERT or in strict mode, a
    /// warning otherwise (and always with IGNORE).
    pub(crate) fn null_is_error(&self, strict: bool, multi_row: bool) -> bool {
        !self.ignore && (strict || !multi_row)
    }

    /// The cell `v`, given for `column` in row `row_number`, stores; None where the row
    /// computes it instead (`computed_cell`).
    pub(crate) fn given_cell(
        &self,
        column: usize,
        v: Value,
        row_number: u64,
        strict: bool,
        null_is_error: bool,
        session: &dyn expr::SessionContext,
    ) -> Result<Option<Value>> {
        let Some(v) = self.computed_cell(column, v, strict, session)? else {
            return Ok(None);
        };
        let c = &self.table.schema.columns[column];
        let name = || qualified(&self.db, &self.table, c);
        store(v, c, &name, row_number, strict, null_is_error, session).map(Some)
    }

    /// `v` given for `column`, or None where the row computes the cell instead: a
    /// generated column (after 1906) or NULL for AUTO_INCREMENT.
    pub(crate) fn computed_cell(
        &self,
        column: usize,
        v: Value,
        strict: bool,
        session: &dyn expr::SessionContext,
    ) -> Result<Option<Value>> {
        let schema = &self.table.schema;
        let c = &schema.columns[column];
        if !self.generated.is_empty() && c.generated.is_some() {
            // Ignored after its warning: `generated::fill` computes the value.
            crate::generated::written(c, &schema.name, strict, session)?;
            return Ok(None);
        }
        Ok(Some(v).filter(|v| !(v.is_null() && c.auto_increment)))
    }
}

#[derive(Clone)]
pub struct UpdatePlan {
    /// The table's database, for the `db`.`t`.`c` names of 1366 messages.
    pub db: String,
    pub scan: Scan,
    /// (column, value); None is DEFAULT (`default_cell`).
    pub assignments: Vec<(usize, Option<Expr>)>,
    pub order: Vec<SortKey>,
    pub limit: Option<Count>,
    pub ignore: bool,
    /// Tables the subqueries of SET and WHERE read (to re-bind after DDL).
    pub subquery_tables: Vec<Arc<Table>>,
    /// A subquery of SET reads the target table: every row's new values are made before
    /// the first write (`execute_update`).
    pub set_reads_target: bool,
    /// The table's CHECK constraints (`check` module).
    pub checks: Vec<crate::check::BoundCheck>,
    /// The UPDATE triggers it fires (`trigger`).
    pub triggers: Triggers,
    /// The table's generated columns (`generated` module).
    pub generated: Vec<crate::generated::BoundGenerated>,
}

#[derive(Clone)]
pub struct DeletePlan {
    pub scan: Scan,
    pub order: Vec<SortKey>,
    pub limit: Option<Count>,
    /// Tables the WHERE clause's subqueries read (to re-bind after DDL).
    pub subquery_tables: Vec<Arc<Table>>,
    pub returning: Option<Returning>,
    /// The DELETE triggers it fires (`trigger`).
    pub triggers: Triggers,
}

fn table_name(table: &ast::TableObject) -> Result<&ast::ObjectName> {
    match table {
        ast::TableObject::TableName(name) => Ok(name),
        _ => Err(Error::not_supported("INSERT into a table function")),
    }
}

pub(crate) fn is_default_keyword(e: &ast::Expr) -> bool {
    matches!(e, ast::Expr::Identifier(i) if i.quote_style.is_none() && i.value.eq_ignore_ascii_case("DEFAULT"))
}

pub fn bind_insert(insert: &ast::Insert, cx: &BindContext) -> Result<InsertPlan> {
    // REPLACE may delete rows, so MySQL requires DELETE as well; ON DUPLICATE KEY UPDATE
    // may update them, so UPDATE, and as in MariaDB the inserted columns need it too
    // (what they would have been set to may instead be a duplicate's update).
    let on_duplicate_update = matches!(insert.on, Some(ast::OnInsert::DuplicateKeyUpdate(_)));
    let mut needed = Privileges::INSERT;
    if insert.replace_into {
        needed |= Privileges::DELETE;
    }
    let mut insert_needs = Privileges::INSERT;
    if on_duplicate_update {
        needed |= Privileges::UPDATE;
        insert_needs |= Privileges::UPDATE;
    }
    // The update expressions and RETURNING may read the table's columns.
    let column_needs = if on_duplicate_update || insert.returning.is_some() {
        insert_needs | Privileges::SELECT
    } else {
        insert_needs
    };
    let (db, table, access) = cx.table(table_name(&insert.table)?, needed, column_needs)?;
    let schema_db = db.clone();
    let schema = table.schema.clone();
    let no_tables: [SourceTable; 0] = [];
    // Its subqueries may read the target table: every row's values are made before the
    // first write (`execute_insert`), so they see it as the statement found it.
    let value_scope = BindScope::in_query(&no_tables, "VALUES", cx);
    let column_index = |name: &str| {
        let i = schema
            .column_index(name)
            .ok_or_else(|| Error::bad_field(name, "INSERT INTO"))?;
        access.check(&schema.columns[i].name, insert_needs)?;
        Ok::<usize, Error>(i)
    };
    let mut columns = Vec::new();
    let mut source;
    if !insert.assignments.is_empty() {
        let mut row = Vec::new();
        for a in &insert.assignments {
            let name = assignment_column(&a.target)?;
            columns.push(column_index(&name)?);
            row.push(if is_default_keyword(&a.value) {
                None
            } else {
                Some(value_scope.bind(&a.value)?)
            });
        }
        source = InsertSource::Values(vec![row]);
    } else {
        for c in &insert.columns {
            let name = c.0.last().map(select::object_part).unwrap_or_default();
            columns.push(column_index(&name)?);
        }
        if columns.is_empty() {
            let names = schema.columns.iter().map(|c| c.name.as_str());
            access.check_all(names, insert_needs)?;
            columns = (0..schema.columns.len()).collect();
        }
        let query = insert
            .source
            .as_ref()
            .ok_or_else(|| Error::not_supported("INSERT without VALUES"))?;
        source = match query.body.as_ref() {
            ast::SetExpr::Values(values) if query.order_by.is_none() => {
                let mut rows = Vec::with_capacity(values.rows.len());
                for (n, row) in values.rows.iter().enumerate() {
                    let exprs = &row.content;
                    if exprs.len() != columns.len()
                        && !(exprs.is_empty() && insert.columns.is_empty())
                    {
                        return Err(Error::new(
                            ErrorCode::WrongValueCountOnRow,
                            format!("Column count doesn't match value count at row {}", n + 1),
                        ));
                    }
                    let mut bound = Vec::with_capacity(exprs.len());
                    for e in exprs {
                        bound.push(if is_default_keyword(e) {
                            None
                        } else {
                            Some(value_scope.bind(e)?)
                        });
                    }
                    if bound.is_empty() {
                        bound = vec![None; columns.len()];
                    }
                    rows.push(bound);
                }
                InsertSource::Values(rows)
            }
            _ => {
                let plan = select::bind_select(query, cx)?;
                if plan.columns.len() != columns.len() {
                    return Err(Error::new(
                        ErrorCode::WrongValueCountOnRow,
                        "Column count doesn't match value count at row 1",
                    ));
                }
                InsertSource::Select(Box::new(plan))
            }
        };
    }
    if let InsertSource::Values(rows) = &mut source {
        if rows.is_empty() {
            rows.push(vec![None; columns.len()]);
        }
    }
    let target = SourceTable::alone(db, &table, access.clone());
    let returning = match &insert.returning {
        Some(items) => Some(select::bind_returning(items, target.clone(), cx)?),
        None => None,
    };
    let mut on_duplicate = Vec::new();
    if let Some(ast::OnInsert::DuplicateKeyUpdate(assignments)) = &insert.on {
        let tables = [target];
        let mut scope = BindScope::in_query(&tables, "SELECT", cx);
        scope.values_offset = Some(schema.columns.len());
        for a in assignments {
            let name = assignment_column(&a.target)?;
            let column = schema
                .column_index(&name)
                .ok_or_else(|| Error::bad_field(&name, "UPDATE"))?;
            access.check(&schema.columns[column].name, Privileges::UPDATE)?;
            on_duplicate.push((column, scope.bind(&rewrite_values_calls(&a.value))?));
        }
    } else if insert.on.is_some() {
        return Err(Error::not_supported("ON CONFLICT"));
    }
    let subquery_tables = cx.subquery_tables.take();
    let mut read = subquery_tables.clone();
    if let InsertSource::Select(select) = &source {
        read.extend(select.tables.iter().cloned());
    }
    let rules = WriteRules::bind(
        cx,
        &schema_db,
        &table,
        &read,
        insert.replace_into,
        !on_duplicate.is_empty(),
    )?;
    Ok(InsertPlan {
        db: schema_db,
        table,
        columns,
        source,
        ignore: insert.ignore,
        replace: insert.replace_into,
        on_duplicate,
        checks: rules.checks,
        generated: rules.generated,
        returning,
        subquery_tables,
        triggers: rules.triggers,
        conflict_triggers: rules.conflict_triggers,
    })
}

/// What every row an INSERT, REPLACE or LOAD DATA writes into a table must go through,
/// besides its own values: the table's CHECK constraints, generated columns, INSERT
/// triggers and the triggers a conflicting row fires.
pub(crate) struct WriteRules {
    pub checks: Vec<crate::check::BoundCheck>,
    pub generated: Vec<crate::generated::BoundGenerated>,
    pub triggers: Triggers,
    /// `InsertPlan::conflict_triggers`.
    pub conflict_triggers: Triggers,
}

impl WriteRules {
    pub(crate) fn bind(
        cx: &BindContext,
        db: &str,
        table: &Arc<Table>,
        read: &[Arc<Table>],
        replace: bool,
        on_duplicate: bool,
    ) -> Result<WriteRules> {
        let checks = crate::check::bind(db, table)?;
        let triggers = crate::trigger::bind(cx, db, table, read, Event::Insert)?;
        let conflict_triggers = match (on_duplicate, replace) {
            (true, _) => crate::trigger::bind(cx, db, table, read, Event::Update)?,
            (false, true) => crate::trigger::bind(cx, db, table, read, Event::Delete)?,
            (false, false) => Triggers::default(),
        };
        let generated = crate::generated::bind(table)?;
        Ok(WriteRules {
            checks,
            generated,
            triggers,
            conflict_triggers,
        })
    }
}

fn assignment_column(target: &ast::AssignmentTarget) -> Result<String> {
    match target {
        ast::AssignmentTarget::ColumnName(name) => {
            Ok(name.0.last().map(select::object_part).unwrap_or_default())
        }
        ast::AssignmentTarget::Tuple(_) => Err(Error::not_supported("tuple assignment")),
    }
}

/// VALUES(col) in ON DUPLICATE KEY UPDATE reads the row that would have been inserted;
/// it becomes a column qualified by `VALUES_QUALIFIER`, which the scope resolves.
fn rewrite_values_calls(e: &ast::Expr) -> ast::Expr {
    use ast::Expr as E;
    let r = |x: &ast::Expr| Box::new(rewrite_values_calls(x));
    match e {
        E::Function(f) if f.name.to_string().eq_ignore_ascii_case("VALUES") => {
            if let ast::FunctionArguments::List(list) = &f.args {
                if let [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(arg))] =
                    list.args.as_slice()
                {
                    let column = match arg {
                        E::Identifier(i) => Some(i.clone()),
                        E::CompoundIdentifier(parts) => parts.last().cloned(),
                        _ => None,
                    };
                    if let Some(column) = column {
                        return E::CompoundIdentifier(vec![
                            ast::Ident::new(VALUES_QUALIFIER),
                            column,
                        ]);
                    }
                }
            }
            e.clone()
        }
        E::Function(f) => {
            let mut f = f.clone();
            if let ast::FunctionArguments::List(list) = &mut f.args {
                for arg in &mut list.args {
                    if let ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x)) = arg {
                        *x = rewrite_values_calls(x);
                    }
                }
            }
            E::Function(f)
        }
        E::BinaryOp { left, op, right } => E::BinaryOp {
            left: r(left),
            op: op.clone(),
            right: r(right),
        },
        E::UnaryOp { op, expr } => E::UnaryOp {
            op: *op,
            expr: r(expr),
        },
        E::Nested(x) => E::Nested(r(x)),
        E::IsNull(x) => E::IsNull(r(x)),
        E::IsNotNull(x) => E::IsNotNull(r(x)),
        E::Case {
            case_token,
            end_token,
            operand,
            conditions,
            else_result,
        } => E::Case {
            case_token: case_token.clone(),
            end_token: end_token.clone(),
            operand: operand.as_ref().map(|o| r(o)),
            conditions: conditions
                .iter()
                .map(|w| ast::CaseWhen {
                    condition: rewrite_values_calls(&w.condition),
                    result: rewrite_values_calls(&w.result),
                })
                .collect(),
            else_result: else_result.as_ref().map(|x| r(x)),
        },
        other => other.clone(),
    }
}

/// Calls `f` for every column reference in `expr`.
pub fn visit_columns(expr: &Expr, f: &mut dyn FnMut(&ColumnRef)) {
    visit(expr, &mut |e| {
        if let Expr::Column(c) = e {
            f(c)
        }
    });
}

/// Calls `f` on `expr` and every node under it that reads this row: a subquery's own
/// plan is not entered (its columns index other rows), its quantified operand is.
pub fn visit(expr: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(expr);
    match expr {
        Expr::Column(_) => {}
        Expr::Literal { .. }
        | Expr::Parameter { .. }
        | Expr::SystemVariable { .. }
        | Expr::UserVariable { .. } => {}
        Expr::Unary { operand, .. }
        | Expr::Cast { operand, .. }
        | Expr::Collate { operand, .. }
        | Expr::IsNull { operand, .. } => visit(operand, f),
        Expr::IsBool { operand, .. } => visit(operand, f),
        Expr::SetUserVariable { value, .. } => visit(value, f),
        Expr::Binary { left, right, .. } => {
            visit(left, f);
            visit(right, f);
        }
        Expr::InList { operand, list, .. } => {
            visit(operand, f);
            list.iter().for_each(|e| visit(e, f));
        }
        Expr::Between {
            operand, low, high, ..
        } => {
            visit(operand, f);
            visit(low, f);
            visit(high, f);
        }
        Expr::Like {
            operand,
            pattern,
            escape,
            ..
        } => {
            visit(operand, f);
            visit(pattern, f);
            if let Some(e) = escape {
                visit(e, f);
            }
        }
        Expr::Case {
            operand,
            branches,
            otherwise,
            ..
        } => {
            if let Some(o) = operand {
                visit(o, f);
            }
            for (w, t) in branches {
                visit(w, f);
                visit(t, f);
            }
            if let Some(o) = otherwise {
                visit(o, f);
            }
        }
        Expr::Call { args, .. } | Expr::Regexp { args, .. } | Expr::Stored { args, .. } => {
            args.iter().for_each(|e| visit(e, f))
        }
        Expr::Subquery(subquery) => {
            if let SubqueryKind::Quantified { operand, .. } = &subquery.kind {
                visit(operand, f);
            }
        }
        Expr::Match(search) => {
            search.cells.iter().for_each(|e| visit(e, f));
            visit(&search.against, f);
        }
        Expr::OuterColumn { .. } => {}
    }
}

/// As `visit`, with `f` free to change each node; `f` sees a node before the nodes under
/// it (as they are after `f` changed it).
pub fn visit_mut(expr: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    f(expr);
    match expr {
        Expr::Column(_) => {}
        Expr::Literal { .. }
        | Expr::Parameter { .. }
        | Expr::SystemVariable { .. }
        | Expr::UserVariable { .. } => {}
        Expr::Unary { operand, .. }
        | Expr::Cast { operand, .. }
        | Expr::Collate { operand, .. }
        | Expr::IsNull { operand, .. } => visit_mut(operand, f),
        Expr::IsBool { operand, .. } => visit_mut(operand, f),
        Expr::SetUserVariable { value, .. } => visit_mut(value, f),
        Expr::Binary { left, right, .. } => {
            visit_mut(left, f);
            visit_mut(right, f);
        }
        Expr::InList { operand, list, .. } => {
            visit_mut(operand, f);
            list.iter_mut().for_each(|e| visit_mut(e, f));
        }
        Expr::Between {
            operand, low, high, ..
        } => {
            visit_mut(operand, f);
            visit_mut(low, f);
            visit_mut(high, f);
        }
        Expr::Like {
            operand,
            pattern,
            escape,
            ..
        } => {
            visit_mut(operand, f);
            visit_mut(pattern, f);
            if let Some(e) = escape {
                visit_mut(e, f);
            }
        }
        Expr::Case {
            operand,
            branches,
            otherwise,
            ..
        } => {
            if let Some(o) = operand {
                visit_mut(o, f);
            }
            for (w, t) in branches {
                visit_mut(w, f);
                visit_mut(t, f);
            }
            if let Some(o) = otherwise {
                visit_mut(o, f);
            }
        }
        Expr::Call { args, .. } | Expr::Regexp { args, .. } | Expr::Stored { args, .. } => {
            args.iter_mut().for_each(|e| visit_mut(e, f))
        }
        Expr::Subquery(subquery) => {
            if let SubqueryKind::Quantified { operand, .. } = &mut subquery.kind {
                visit_mut(operand, f);
            }
        }
        Expr::Match(search) => {
            search.cells.iter_mut().for_each(|e| visit_mut(e, f));
            visit_mut(&mut search.against, f);
        }
        Expr::OuterColumn { .. } => {}
    }
}

/// The one table of an UPDATE or DELETE, which reads columns (WHERE, ORDER BY, SET
/// values: SELECT) besides what `needed` does to them.
fn single_table(
    from: &[ast::TableWithJoins],
    cx: &BindContext,
    needed: Privileges,
    column_needs: Privileges,
) -> Result<Vec<SourceTable>> {
    let sources =
        crate::join::bind_from(from, cx, needed, column_needs | Privileges::SELECT)?.sources;
    if sources.len() != 1 {
        return Err(Error::not_supported("multi-table UPDATE and DELETE"));
    }
    if sources[0].derived.is_some() {
        // As MariaDB: UPDATE reports the table, DELETE's grammar has no derived table.
        if needed.contains(Privileges::UPDATE) || sources[0].is_view() {
            return Err(crate::multi_table::not_updatable(&sources[0], "UPDATE"));
        }
        return Err(Error::parse_near("", 1));
    }
    Ok(sources)
}

pub(crate) fn bind_order_limit(
    order_by: &[ast::OrderByExpr],
    limit: Option<&ast::Expr>,
    sources: &[SourceTable],
    cx: &BindContext,
) -> Result<(Vec<SortKey>, Option<Count>)> {
    let scope = BindScope::new(sources, "ORDER BY", cx.parameters);
    let mut order = Vec::new();
    for o in order_by {
        cx.parameters.note_item(&o.expr);
        let descending = matches!(o.options.sort, Some(ast::OrderBySort::Desc));
        order.push(SortKey {
            expr: scope.bind(&o.expr)?,
            descending,
        });
    }
    let limit = match limit {
        None => None,
        Some(ast::Expr::Value(v)) => match &v.value {
            ast::Value::Number(n, _) => Some(Count::Value(
                n.parse().map_err(|_| Error::parse_near(n, 1))?,
            )),
            ast::Value::Placeholder(_) => Some(Count::Parameter(cx.parameters.next())),
            other => return Err(Error::parse_near(&other.to_string(), 1)),
        },
        Some(other) => return Err(Error::parse_near(&other.to_string(), 1)),
    };
    Ok((order, limit))
}

pub fn bind_update(update: &ast::Update, cx: &BindContext) -> Result<UpdatePlan> {
    let sources = single_table(
        std::slice::from_ref(&update.table),
        cx,
        Privileges::UPDATE,
        Privileges::UPDATE,
    )?;
    let schema = sources[0].table.schema.clone();
    let mut assignments = Vec::new();
    {
        let scope = BindScope::in_query(&sources, "SET", cx);
        for a in &update.assignments {
            let name = assignment_column(&a.target)?;
            let column = schema
                .column_index(&name)
                .ok_or_else(|| Error::bad_field(&name, "SET"))?;
            sources[0]
                .columns
                .check(&schema.columns[column].name, Privileges::UPDATE)?;
            let value = match is_default_keyword(&a.value) {
                true => None,
                false => Some(scope.bind(&a.value)?),
            };
            assignments.push((column, value));
        }
    }
    let set_reads_target = cx
        .subquery_tables
        .borrow()
        .iter()
        .any(|t| Arc::ptr_eq(t, &sources[0].table));
    let filter = match &update.selection {
        Some(e) => Some(BindScope::in_query(&sources, "WHERE", cx).bind(e)?),
        None => None,
    };
    let (order, limit) = bind_order_limit(&update.order_by, update.limit.as_ref(), &sources, cx)?;
    let subquery_tables = cx.subquery_tables.take();
    Ok(UpdatePlan {
        triggers: crate::trigger::bind(
            cx,
            &sources[0].db,
            &sources[0].table,
            &subquery_tables,
            Event::Update,
        )?,
        checks: crate::check::bind(&sources[0].db, &sources[0].table)?,
        generated: crate::generated::bind(&sources[0].table)?,
        db: sources[0].db.to_string(),
        scan: crate::access::scan(&sources[0], filter),
        assignments,
        order,
        limit,
        ignore: matches!(update.or, Some(ast::SqliteOnConflict::Ignore)),
        subquery_tables,
        set_reads_target,
    })
}

pub fn bind_delete(delete: &ast::Delete, cx: &BindContext) -> Result<DeletePlan> {
    let from = match &delete.from {
        ast::FromTable::WithFromKeyword(f) | ast::FromTable::WithoutKeyword(f) => f,
    };
    let sources = single_table(from, cx, Privileges::DELETE, Privileges::NONE)?;
    let filter = match &delete.selection {
        Some(e) => Some(BindScope::in_query(&sources, "WHERE", cx).bind(e)?),
        None => None,
    };
    let (order, limit) = bind_order_limit(&delete.order_by, delete.limit.as_ref(), &sources, cx)?;
    let subquery_tables = cx.subquery_tables.take();
    let returning = match &delete.returning {
        Some(items) => Some(select::bind_returning(items, sources[0].clone(), cx)?),
        None => None,
    };
    Ok(DeletePlan {
        triggers: crate::trigger::bind(
            cx,
            &sources[0].db,
            &sources[0].table,
            &subquery_tables,
            Event::Delete,
        )?,
        scan: crate::access::scan(&sources[0], filter),
        order,
        limit,
        subquery_tables,
        returning,
    })
}

/// Maps a storage error of a write to the client error.
pub fn write_error(e: StorageError, table: &Table, row: &[Value]) -> Error {
    match e {
        StorageError::DuplicateKey { index, .. } => duplicate_error(table, index, row),
        // The session waits and runs the statement again (Session::take_wait).
        StorageError::LockWait { holder } => Error::lock_wait(holder),
        StorageError::WriteConflict | StorageError::Deadlock => Error::deadlock(),
        other => crate::session::log_error(other),
    }
}

pub fn duplicate_error(table: &Table, index: manycore_storage::IndexNo, row: &[Value]) -> Error {
    let schema = &table.schema;
    let prefixes = match index {
        manycore_storage::IndexNo::Primary => &[][..],
        manycore_storage::IndexNo::Secondary(i) => &schema.indexes[i].prefix_lengths,
    };
    duplicate_entry(
        schema,
        schema.index_columns(index),
        prefixes,
        schema.index_name(index),
        row,
    )
}

/// 1062 for `row`'s entry in the index of `columns` (what it keys of each: `prefixes`,
/// empty for whole columns), named `index_name`: the entry as MariaDB shows it.
pub fn duplicate_entry(
    schema: &manycore_storage::TableSchema,
    columns: &[usize],
    prefixes: &[Option<u32>],
    index_name: &str,
    row: &[Value],
) -> Error {
    let text: Vec<String> = columns
        .iter()
        .enumerate()
        .map(|(k, &c)| {
            let data_type = &schema.columns[c].data_type;
            let value = row.get(c).unwrap_or(&Value::Null);
            match (value, prefixes.get(k).copied().flatten()) {
                (Value::Bytes(b), Some(length)) => {
                    let keyed = Value::Bytes(data_type.collation().prefix(b, length).to_vec());
                    manycore_types::format::to_text(&keyed, data_type)
                }
                _ => manycore_types::format::to_text(value, data_type),
            }
        })
        .collect();
    Error::dup_entry(&text.join("-"), index_name)
}

/// A row a write statement targets: its slot and current values.
type TargetRow = (Arc<RowSlot>, Vec<Value>);

/// A write statement's LIMIT, `u64::MAX` without one.
pub(crate) fn limit_value(limit: Option<Count>, ctx: &ExecContext) -> Result<u64> {
    Ok(match limit {
        None => u64::MAX,
        Some(Count::Value(v)) => v,
        Some(Count::Parameter(i)) => match ctx.eval.params.get(i) {
            Some(Value::Int(v)) if *v >= 0 => *v as u64,
            Some(Value::UInt(v)) => *v,
            _ => {
                return Err(Error::new(
                    ErrorCode::WrongArguments,
                    "Incorrect arguments to LIMIT",
                ))
            }
        },
    })
}

/// Rows a write statement targets, after ORDER BY and LIMIT. With `copy_rows` false (a
/// DELETE, which needs only the slots) each target's values are left empty.
fn collect_targets(
    scan: &Scan,
    order: &[SortKey],
    limit: Option<Count>,
    copy_rows: bool,
    ctx: &ExecContext,
) -> Result<Vec<TargetRow>> {
    first_rows(order, limit, ctx, |keep| {
        exec::scan_rows(scan, ctx, &mut |slot, row| {
            let values = if copy_rows { row.to_vec() } else { Vec::new() };
            keep(row, (slot.clone(), values))
        })
        .map(drop)
    })
}

/// What `read` offers, by `keep(row, item)`, in `order` of each row and cut at `limit`:
/// the rows an UPDATE or DELETE (single- or multi-table) with ORDER BY / LIMIT writes.
/// Without ORDER BY the read stops at the limit.
pub(crate) fn first_rows<T>(
    order: &[SortKey],
    limit: Option<Count>,
    ctx: &ExecContext,
    read: impl FnOnce(&mut dyn FnMut(&[Value], T) -> Result<ControlFlow<()>>) -> Result<()>,
) -> Result<Vec<T>> {
    let limit = limit_value(limit, ctx)?;
    if limit == 0 {
        return Ok(Vec::new());
    }
    let mut rows: Vec<(Vec<Value>, T)> = Vec::new(); // (sort key, item)
    read(&mut |row, item| {
        let mut keys = Vec::with_capacity(order.len());
        for k in order {
            keys.push(k.expr.eval(row, &ctx.eval)?);
        }
        rows.push((keys, item));
        if order.is_empty() && rows.len() as u64 >= limit {
            return Ok(ControlFlow::Break(()));
        }
        Ok(ControlFlow::Continue(()))
    })?;
    if !order.is_empty() {
        exec::sort_rows(&mut rows, order, ctx.eval.session);
    }
    rows.truncate(limit.min(usize::MAX as u64) as usize);
    Ok(rows.into_iter().map(|(_, r)| r).collect())
}

/// The rows an UPDATE or DELETE changes, all collected before the first write: a
/// subquery of its WHERE clause reads the table as the statement found it (as MariaDB,
/// which allows the target table there).
#[allow(clippy::too_many_arguments)]
fn targets(
    txn: &Transaction,
    scan: &Scan,
    order: &[SortKey],
    limit: Option<Count>,
    copy_rows: bool,
    params: &[Value],
    session: &dyn expr::SessionContext,
    interrupt: &crate::engine::ProcessEntry,
) -> Result<Vec<TargetRow>> {
    let subqueries = exec::SubqueryReader::new(txn.write_view(), interrupt);
    let eval = EvalContext {
        subqueries: Some(&subqueries),
        ..EvalContext::new(params, session)
    };
    collect_targets(
        scan,
        order,
        limit,
        copy_rows,
        &exec_context(txn, eval, interrupt),
    )
}

pub(crate) fn exec_context<'a>(
    txn: &Transaction,
    eval: EvalContext<'a>,
    interrupt: &'a crate::engine::ProcessEntry,
) -> ExecContext<'a> {
    ExecContext {
        view: txn.write_view(),
        eval,
        interrupt,
        skipped: None,
    }
}

pub fn execute_update(
    plan: &UpdatePlan,
    txn: &mut Transaction,
    params: &[Value],
    session: &dyn expr::SessionContext,
    interrupt: &crate::engine::ProcessEntry,
) -> Result<StatementOutcome> {
    txn.refresh_write_view();
    let table = &plan.scan.table;
    let schema = &table.schema;
    let enforcer = Enforcer::for_write(txn, table, session);
    let targets = targets(
        txn,
        &plan.scan,
        &plan.order,
        plan.limit,
        true,
        params,
        session,
        interrupt,
    )?;
    // IGNORE turns strict-mode data errors into warnings (non-strict adjustments).
    let strict = session.strict() && !plan.ignore;
    let write_session = WriteSession::new(session, strict);
    let subqueries = exec::SubqueryReader::new(txn.write_view(), interrupt);
    let eval = EvalContext {
        subqueries: Some(&subqueries),
        ..EvalContext::new(params, &write_session)
    };
    let may_duplicate = may_change_unique_key(plan);
    let (mut matched, mut changed) = (0u64, 0u64);
    // The values the assignments replaced in the current row (each column once), to tell
    // whether it changed: the row is updated in place rather than copied.
    let mut replaced: Vec<(usize, Value)> = Vec::with_capacity(plan.assignments.len());
    // Assigns row `n`'s columns in order (each assignment sees those before it); whether
    // any of them changed.
    let mut assign = |n: usize, new: &mut [Value]| -> Result<bool> {
        replaced.clear();
        for (column, e) in &plan.assignments {
            let c = &schema.columns[*column];
            if !plan.generated.is_empty() && c.generated.is_some() {
                // DEFAULT, or a value ignored after its warning: `fill` computes it.
                if e.is_some() {
                    crate::generated::written(c, &schema.name, strict, session)?;
                }
                continue;
            }
            let value = match e {
                Some(e) => {
                    let value = write_session.check(e.eval(new, &eval))?;
                    let name = || qualified(&plan.db, table, c);
                    // NULL into NOT NULL: an error only in strict mode without IGNORE.
                    store(value, c, &name, n as u64 + 1, strict, strict, session)?
                }
                // MariaDB: 1364 here even with IGNORE or without strict mode.
                None => default_cell(c, true, session)?,
            };
            let previous = std::mem::replace(&mut new[*column], value);
            if !replaced.iter().any(|(r, _)| r == column) {
                replaced.push((*column, previous));
            }
        }
        Ok(replaced
            .iter()
            .any(|(column, previous)| new[*column] != *previous))
    };
    // As in MariaDB, a subquery of SET reads the target table as the statement found it,
    // not as its earlier rows' writes left it.
    let mut assigned_first = Vec::new();
    if plan.set_reads_target {
        for (n, (_, row)) in targets.iter().enumerate() {
            let mut new = row.clone();
            let row_changed = assign(n, &mut new)?;
            assigned_first.push((new, row_changed));
        }
    }
    let mut assigned_first = assigned_first.into_iter();
    let fires = !plan.triggers.is_empty();
    for (n, (slot, row)) in targets.into_iter().enumerate() {
        matched += 1;
        let (mut new, old, row_changed) = match assigned_first.next() {
            Some((new, row_changed)) => (
                new,
                (enforcer.is_some() || fires).then_some(row),
                row_changed,
            ),
            None => {
                let old = (enforcer.is_some() || fires).then(|| row.clone());
                let mut new = row;
                let row_changed = assign(n, &mut new)?;
                (new, old, row_changed)
            }
        };
        // A row the assignments leave as it was still fires its triggers, and BEFORE
        // UPDATE may change it after all.
        let writes_row = match (fires, &old) {
            (true, Some(old)) => before_update(
                &plan.triggers,
                old,
                &mut new,
                (plan.db.as_str(), table),
                strict,
                txn,
                session,
                interrupt,
            )?,
            _ => row_changed,
        };
        if !writes_row {
            lock_unchanged(txn, table, &slot)?;
            continue;
        }
        stamp_on_update(schema, &plan.assignments, &mut new, session);
        crate::generated::fill(
            &plan.generated,
            schema,
            &mut new,
            n as u64 + 1,
            strict,
            &eval,
        )?;
        if !crate::check::row_passes(
            &plan.checks,
            &plan.db,
            &schema.name,
            &new,
            &eval,
            plan.ignore,
        )? {
            // MariaDB counts a row a CHECK refused as not matched.
            matched -= 1;
            continue;
        }
        // Only a duplicate-key message and foreign keys need the new row once storage has
        // it.
        let kept = (may_duplicate || enforcer.is_some() || fires).then(|| new.clone());
        match txn.update(table, &slot, new.into_boxed_slice()) {
            Ok(()) => {
                changed += 1;
                session.count(Counter::HandlerUpdate, 1);
                if let (Some(enforcer), Some(old), Some(new)) = (&enforcer, &old, &kept) {
                    enforcer.row_written(txn, table, Some(old.as_slice()), Some(new.as_slice()))?;
                }
                if let (true, Some(old), Some(mut new)) = (fires, &old, kept) {
                    trigger::fire(
                        &plan.triggers.after,
                        Some(old),
                        Some(&mut new),
                        txn,
                        session,
                        interrupt,
                    )?;
                }
            }
            Err(StorageError::DuplicateKey { index, .. }) => {
                let e = match &kept {
                    Some(row) => duplicate_error(table, index, row),
                    // `may_change_unique_key` rules this out; if it ever were wrong, the
                    // client still gets 1062, only without the key's value.
                    None => Error::dup_entry("?", table.schema.index_name(index)),
                };
                if !plan.ignore {
                    return Err(e);
                }
                session.warn(e.code, e.message);
            }
            // Not a duplicate key: the message does not show the row.
            Err(e) => return Err(write_error(e, table, &[])),
        }
    }
    Ok(StatementOutcome::Update { matched, changed })
}

/// Whether an UPDATE can fail with a duplicate key: only if the table has a unique
/// secondary index, or the statement can change a primary key column (assigned, or set by
/// ON UPDATE CURRENT_TIMESTAMP). Storage reports duplicates of unique keys only.
fn may_change_unique_key(plan: &UpdatePlan) -> bool {
    let schema = &plan.scan.table.schema;
    if schema.indexes.iter().any(|i| i.unique) {
        return true;
    }
    schema
        .primary_key
        .as_deref()
        .unwrap_or(&[])
        .iter()
        .any(|&c| {
            schema.columns[c].on_update_current_timestamp
                || plan.assignments.iter().any(|(a, _)| *a == c)
        })
}

pub fn execute_delete(
    plan: &DeletePlan,
    txn: &mut Transaction,
    params: &[Value],
    session: &dyn expr::SessionContext,
    interrupt: &crate::engine::ProcessEntry,
) -> Result<StatementOutcome> {
    txn.refresh_write_view();
    let table = &plan.scan.table;
    let enforcer = Enforcer::for_write(txn, table, session);
    let targets = targets(
        txn,
        &plan.scan,
        &plan.order,
        plan.limit,
        enforcer.is_some() || plan.returning.is_some() || !plan.triggers.is_empty(),
        params,
        session,
        interrupt,
    )?;
    let eval = EvalContext::new(params, session);
    let mut returned = Vec::new();
    let mut deleted = 0;
    let deleting = Deleting {
        table,
        triggers: &plan.triggers,
        enforcer: enforcer.as_ref(),
    };
    for (slot, row) in targets {
        deleting.row(&slot, &row, txn, session, interrupt)?;
        if let Some(returning) = &plan.returning {
            returned.push(returning.row(&row, &eval)?);
        }
        deleted += 1;
    }
    if let Some(returning) = &plan.returning {
        return Ok(StatementOutcome::Returned {
            columns: returning.columns.clone(),
            rows: returned,
        });
    }
    Ok(StatementOutcome::Affected {
        rows: deleted,
        last_insert_id: 0,
    })
}

/// Coerces `value` for column `c`, with MySQL's NULL rule for NOT NULL columns: an error
/// (1048) when `null_is_error`, else a warning and the type's implicit default.
pub(crate) fn store(
    value: Value,
    c: &manycore_storage::ColumnSchema,
    name: &dyn Fn() -> String,
    row_number: u64,
    strict: bool,
    null_is_error: bool,
    session: &dyn expr::SessionContext,
) -> Result<Value> {
    if value.is_null() {
        if c.nullable {
            return Ok(Value::Null);
        }
        if null_means_now(c) {
            return Ok(current_timestamp(c, session));
        }
        let e = Error::new(
            ErrorCode::BadNull,
            format!("Column '{}' cannot be null", c.name),
        );
        if null_is_error {
            return Err(e);
        }
        session.warn(e.code, e.message);
        return Ok(implicit_default(&c.data_type));
    }
    let value = expr::store_value(value, &c.data_type, name, row_number, strict, session)?;
    Ok(expr::stored_cell(&c.data_type, value, session))
}

/// The cell column `c` gets from its default, where an INSERT leaves it out or writes
/// DEFAULT and for UPDATE's `SET c = DEFAULT`: the one place a default becomes a value.
/// It runs at execution, so plans hold no default value and stay valid whatever the
/// session's time_zone when they run. A constant default is stored as its cell
/// (`ddl::default_value`), so it costs a clone. Without a default, an AUTO_INCREMENT column
/// gets its type's implicit default (0), and any other NOT NULL column is 1364 when
/// `strict`, else a warning and that implicit default.
pub(crate) fn default_cell(
    c: &manycore_storage::ColumnSchema,
    strict: bool,
    session: &dyn expr::SessionContext,
) -> Result<Value> {
    match &c.default {
        ColumnDefault::Value(v) => Ok(v.clone()),
        ColumnDefault::CurrentTimestamp => Ok(current_timestamp(c, session)),
        ColumnDefault::None if c.nullable => Ok(Value::Null),
        ColumnDefault::None if !lacks_default(c) => Ok(implicit_default(&c.data_type)),
        ColumnDefault::None => {
            let e = Error::new(
                ErrorCode::NoDefaultForField,
                format!("Field '{}' doesn't have a default value", c.name),
            );
            if strict {
                return Err(e);
            }
            session.warn(e.code, e.message);
            Ok(implicit_default(&c.data_type))
        }
    }
}

/// Runs the BEFORE UPDATE `triggers` of a row about to change from `old` to `new` and
/// settles the NULLs they may leave in NOT NULL columns of `target` (database, table).
/// Returns whether the row still changes; when it does not, its AFTER UPDATE triggers
/// fire here, as MariaDB fires them for every row an UPDATE matches.
#[allow(clippy::too_many_arguments)]
pub(crate) fn before_update(
    triggers: &Triggers,
    old: &[Value],
    new: &mut Vec<Value>,
    (db, table): (&str, &Arc<Table>),
    strict: bool,
    txn: &mut Transaction,
    session: &dyn expr::SessionContext,
    interrupt: &crate::engine::ProcessEntry,
) -> Result<bool> {
    trigger::fire(
        &triggers.before,
        Some(old),
        Some(new),
        txn,
        session,
        interrupt,
    )?;
    settle_nulls(db, table, new, |_| false, strict, strict, session)?;
    if new.as_slice() != old {
        return Ok(true);
    }
    trigger::fire(
        &triggers.after,
        Some(old),
        Some(new),
        txn,
        session,
        interrupt,
    )?;
    Ok(false)
}

/// Locks the row in `slot` that an UPDATE matched and leaves as it was, until the
/// transaction ends, as InnoDB locks every row an UPDATE matches: a held row is waited
/// for, and no other transaction changes it before this one ends.
pub(crate) fn lock_unchanged(
    txn: &mut Transaction,
    table: &Arc<Table>,
    slot: &Arc<RowSlot>,
) -> Result<()> {
    txn.lock_row(table, slot)
        .map_err(|e| write_error(e, table, &[]))
}

/// How a DELETE removes each row of one table.
pub(crate) struct Deleting<'p> {
    pub table: &'p Arc<Table>,
    pub triggers: &'p Triggers,
    pub enforcer: Option<&'p Enforcer<'p>>,
}

impl Deleting<'_> {
    /// Deletes `row` (in `slot`): BEFORE DELETE triggers, the delete, its foreign keys'
    /// actions, then AFTER DELETE triggers, which see the cascades done (MariaDB's
    /// cascades run inside the row's delete).
    pub(crate) fn row(
        &self,
        slot: &Arc<RowSlot>,
        row: &[Value],
        txn: &mut Transaction,
        session: &dyn expr::SessionContext,
        interrupt: &crate::engine::ProcessEntry,
    ) -> Result<()> {
        let table = self.table;
        trigger::fire(
            &self.triggers.before,
            Some(row),
            None,
            txn,
            session,
            interrupt,
        )?;
        // A delete never meets a duplicate key, the one error that shows the row.
        txn.delete(table, slot)
            .map_err(|e| write_error(e, table, &[]))?;
        session.count(Counter::HandlerDelete, 1);
        if let Some(enforcer) = self.enforcer {
            enforcer.row_written(txn, table, Some(row), None)?;
        }
        trigger::fire(
            &self.triggers.after,
            Some(row),
            None,
            txn,
            session,
            interrupt,
        )?;
        Ok(())
    }
}

/// After BEFORE triggers, which may leave NULL in NOT NULL columns of `row` (MariaDB checks
/// after them): a column `left_out_unset` (an INSERT left it out and no trigger set it)
/// gets its default's 1364, any other the 1048 of storing NULL, each an error or a warning
/// and the implicit default as the statement's mode says.
fn settle_nulls(
    db: &str,
    table: &Arc<Table>,
    row: &mut [Value],
    left_out_unset: impl Fn(usize) -> bool,
    strict: bool,
    null_is_error: bool,
    session: &dyn expr::SessionContext,
) -> Result<()> {
    for (i, c) in table.schema.columns.iter().enumerate() {
        if !row[i].is_null() || c.nullable || c.auto_increment || c.generated.is_some() {
            continue;
        }
        row[i] = match left_out_unset(i) {
            true => default_cell(c, strict, session)?,
            false => {
                let name = || qualified(db, table, c);
                store(Value::Null, c, &name, 1, strict, null_is_error, session)?
            }
        };
    }
    Ok(())
}

/// Whether `c` has no value to take when a write leaves it out (1364): NOT NULL without a
/// DEFAULT, and neither AUTO_INCREMENT, generated nor an ENUM (MariaDB gives a NOT NULL
/// ENUM without DEFAULT its first member, in every mode).
fn lacks_default(c: &manycore_storage::ColumnSchema) -> bool {
    matches!(c.default, ColumnDefault::None)
        && !c.nullable
        && !c.auto_increment
        && c.generated.is_none()
        && !matches!(c.data_type, DataType::Enum { .. })
}

/// Sets the ON UPDATE CURRENT_TIMESTAMP columns of a changing `row` that the statement's
/// `assigned` (column, value) pairs do not write.
pub(crate) fn stamp_on_update<V>(
    schema: &manycore_storage::TableSchema,
    assigned: &[(usize, V)],
    row: &mut [Value],
    session: &dyn expr::SessionContext,
) {
    for (i, c) in schema.columns.iter().enumerate() {
        if c.on_update_current_timestamp && !assigned.iter().any(|(a, _)| *a == i) {
            row[i] = current_timestamp(c, session);
        }
    }
}

/// Whether NULL written to `c` stores the current time: a NOT NULL TIMESTAMP, in every
/// mode and without a warning, as MariaDB does whatever explicit_defaults_for_timestamp.
pub(crate) fn null_means_now(c: &manycore_storage::ColumnSchema) -> bool {
    !c.nullable && matches!(c.data_type, DataType::Timestamp { .. })
}

/// CURRENT_TIMESTAMP as a DEFAULT or ON UPDATE value of `c`: UTC in a TIMESTAMP cell, the
/// session's local time in a DATETIME (`time_zone` invariant (1)).
pub(crate) fn current_timestamp(
    c: &manycore_storage::ColumnSchema,
    session: &dyn expr::SessionContext,
) -> Value {
    Value::DateTime(match c.data_type {
        DataType::Timestamp { .. } => session.statement_time_utc(),
        _ => session.local_statement_time(),
    })
}

/// `db.t.c`, the column name `store_value` expects (1366 messages print every part).
pub(crate) fn qualified(db: &str, table: &Table, c: &manycore_storage::ColumnSchema) -> String {
    format!("{db}.{}.{}", table.schema.name, c.name)
}

/// The session as a write statement's expressions see it: with strict mode (and
/// ERROR_FOR_DIVISION_BY_ZERO, part of the default sql_mode) a division by zero in a
/// value INSERT or UPDATE stores is error 1365, not a warning and NULL. `strict` is
/// already false under IGNORE.
pub(crate) struct WriteSession<'a> {
    inner: &'a dyn expr::SessionContext,
    strict: bool,
    escalated: std::cell::RefCell<Option<Error>>,
}

impl<'a> WriteSession<'a> {
    pub(crate) fn new(inner: &'a dyn expr::SessionContext, strict: bool) -> WriteSession<'a> {
        WriteSession {
            inner,
            strict,
            escalated: std::cell::RefCell::new(None),
        }
    }

    /// The result of an evaluation, or the error a warning during it became.
    pub(crate) fn check(&self, result: Result<Value>) -> Result<Value> {
        let value = result?;
        match self.escalated.borrow_mut().take() {
            Some(e) => Err(e),
            None => Ok(value),
        }
    }
}

impl expr::SessionContext for WriteSession<'_> {
    fn system_variable(&self, name: &str, scope: expr::VarScope) -> Result<Value> {
        self.inner.system_variable(name, scope)
    }
    fn user_variable(&self, name: &str) -> Value {
        self.inner.user_variable(name)
    }
    fn set_user_variable(&self, name: &str, value: Value) {
        self.inner.set_user_variable(name, value)
    }
    fn current_database(&self) -> Option<&str> {
        self.inner.current_database()
    }
    fn connection_id(&self) -> u32 {
        self.inner.connection_id()
    }
    fn uuid_short(&self) -> u64 {
        self.inner.uuid_short()
    }
    fn last_insert_id(&self) -> u64 {
        self.inner.last_insert_id()
    }
    fn set_last_insert_id(&self, id: u64) {
        self.inner.set_last_insert_id(id);
    }
    fn current_user(&self) -> &str {
        self.inner.current_user()
    }
    fn login_user(&self) -> &str {
        self.inner.login_user()
    }
    fn statement_time_utc(&self) -> manycore_types::DateTime {
        self.inner.statement_time_utc()
    }
    fn time_zone(&self) -> expr::TimeZone {
        self.inner.time_zone()
    }
    fn warn(&self, code: ErrorCode, message: String) {
        if self.strict && code == ErrorCode::DivisionByZero {
            let mut escalated = self.escalated.borrow_mut();
            escalated.get_or_insert(Error::new(code, message));
            return;
        }
        self.inner.warn(code, message)
    }
    fn note(&self, code: ErrorCode, message: String) {
        self.inner.note(code, message)
    }
    fn begin_conditions(&self) {
        self.inner.begin_conditions()
    }
    fn take_conditions(&self) -> Vec<crate::error::Condition> {
        self.inner.take_conditions()
    }
    fn end_conditions(&self) {
        self.inner.end_conditions()
    }
    fn foreign_key_checks(&self) -> bool {
        self.inner.foreign_key_checks()
    }
    fn strict(&self) -> bool {
        self.strict
    }
    fn sleep(&self, duration: std::time::Duration) {
        self.inner.sleep(duration)
    }
    fn user_lock(&self, call: crate::user_lock::UserLockCall<'_>) -> Value {
        self.inner.user_lock(call)
    }
    fn load_file(&self, name: &[u8]) -> Value {
        self.inner.load_file(name)
    }
    fn running_routines(&self) -> Option<&crate::routine::RunningRoutines> {
        self.inner.running_routines()
    }
    fn found_rows(&self) -> u64 {
        self.inner.found_rows()
    }
    fn row_count(&self) -> i64 {
        self.inner.row_count()
    }
    fn set_row_count(&self, count: i64) {
        self.inner.set_row_count(count)
    }
    fn set_found_rows(&self, rows: u64) {
        self.inner.set_found_rows(rows)
    }
    fn count(&self, counter: crate::engine::Counter, n: u64) {
        self.inner.count(counter, n)
    }
    fn information_schema_rows(
        &self,
        table: crate::information_schema::SystemTable,
        lookup: &crate::information_schema::NameLookup,
    ) -> Vec<Vec<Value>> {
        self.inner.information_schema_rows(table, lookup)
    }
}

/// The value MySQL stores for a NOT NULL column given nothing usable: 0, '', zero date.
pub fn implicit_default(t: &DataType) -> Value {
    match t {
        DataType::Int { unsigned: true, .. } => Value::UInt(0),
        DataType::Int { .. } => Value::Int(0),
        DataType::Decimal { .. } => Value::Decimal(manycore_types::Decimal::ZERO),
        DataType::Float { .. } | DataType::Double { .. } => Value::Double(0.0),
        DataType::Date => Value::Date(manycore_types::Date::default()),
        DataType::DateTime { .. } | DataType::Timestamp { .. } => {
            Value::DateTime(manycore_types::DateTime::default())
        }
        DataType::Null => Value::Null,
        // An ENUM's first member ('' if it has none); a SET's empty set.
        DataType::Enum { members, .. } => Value::Bytes(
            members
                .first()
                .map(|m| m.as_bytes().to_vec())
                .unwrap_or_default(),
        ),
        _ => Value::Bytes(Vec::new()),
    }
}

fn auto_value(t: &DataType, id: u64) -> Value {
    if t.is_unsigned() {
        Value::UInt(id)
    } else {
        Value::Int(id.min(i64::MAX as u64) as i64)
    }
}

fn as_id(v: &Value) -> Option<u64> {
    match v {
        Value::Int(i) if *i > 0 => Some(*i as u64),
        Value::UInt(u) if *u > 0 => Some(*u),
        _ => None,
    }
}

pub fn execute_insert(
    plan: &InsertPlan,
    txn: &mut Transaction,
    params: &[Value],
    session: &dyn expr::SessionContext,
    interrupt: &crate::engine::ProcessEntry,
    client_found_rows: bool,
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
    let source_rows: Vec<Vec<Value>>;
    let mut value_rows: Vec<Vec<Option<Value>>> = Vec::new();
    match &plan.source {
        InsertSource::Values(rows) => {
            for row in rows {
                let mut values = Vec::with_capacity(row.len());
                for e in row {
                    values.push(match e {
                        Some(e) => Some(write_session.check(e.eval(&[], &eval))?),
                        None => None,
                    });
                }
                value_rows.push(values);
            }
        }
        InsertSource::Given => {
            return Err(Error::new(
                ErrorCode::UnknownError,
                "an INSERT plan without rows of its own was run as an INSERT",
            ))
        }
        InsertSource::Select(select) => {
            let ctx = exec_context(txn, eval, interrupt);
            let mut rows = Vec::new();
            let _ = exec::run(&select.plan, &ctx, &mut |row| {
                rows.push(row.to_vec());
                Ok(ControlFlow::Continue(()))
            })?;
            write_session.check(Ok(Value::Null))?;
            source_rows = rows;
            value_rows = source_rows
                .into_iter()
                .map(|r| r.into_iter().map(Some).collect())
                .collect();
        }
    }
    let multi_row = value_rows.len() > 1 || matches!(plan.source, InsertSource::Select(_));
    let written = write_rows(
        plan,
        value_rows.into_iter().map(Ok),
        multi_row,
        &eval,
        &write_session,
        WriteContext {
            txn,
            session,
            interrupt,
            client_found_rows,
        },
    )?;
    let Written {
        affected,
        records,
        copied,
        duplicates,
        first_generated,
        last_insert_id,
        returned,
    } = written;
    if let Some(returning) = &plan.returning {
        return Ok(StatementOutcome::Returned {
            columns: returning.columns.clone(),
            rows: returned,
        });
    }
    if multi_row {
        return Ok(StatementOutcome::InsertedRows {
            rows: affected,
            generated: first_generated,
            last_insert_id,
            records,
            duplicates: if plan.ignore {
                records - copied
            } else {
                duplicates
            },
        });
    }
    if let Some(id) = first_generated {
        return Ok(StatementOutcome::Inserted {
            rows: affected,
            generated: id,
            last_insert_id,
        });
    }
    Ok(StatementOutcome::Affected {
        rows: affected,
        last_insert_id,
    })
}

/// What an INSERT's rows did (`write_rows`).
pub(crate) struct Written {
    /// MySQL's affected rows (module notes).
    pub affected: u64,
    /// Rows offered, less those a CHECK constraint refused under IGNORE.
    pub records: u64,
    /// Rows inserted, or updated by ON DUPLICATE KEY UPDATE.
    pub copied: u64,
    /// Rows REPLACE deleted, plus rows ON DUPLICATE KEY UPDATE updated.
    pub duplicates: u64,
    /// The first AUTO_INCREMENT value generated, if any.
    pub first_generated: Option<u64>,
    /// The OK packet's id.
    pub last_insert_id: u64,
    /// RETURNING's rows (empty without RETURNING).
    pub returned: Vec<Vec<Value>>,
}

/// Where an INSERT's rows are written: its transaction and session.
pub(crate) struct WriteContext<'a> {
    pub txn: &'a mut Transaction,
    pub session: &'a dyn expr::SessionContext,
    pub interrupt: &'a crate::engine::ProcessEntry,
    pub client_found_rows: bool,
}

/// Writes `rows` into `plan`'s table: each a value per `plan.columns` (None: DEFAULT),
/// made already (VALUES, the SELECT's rows, or LOAD DATA's fields). Every row of an
/// INSERT, REPLACE and LOAD DATA goes through here: defaults, BEFORE triggers,
/// AUTO_INCREMENT, generated columns, CHECK constraints, duplicates, foreign keys, AFTER
/// triggers and RETURNING. `eval` evaluates with `write_session`, whose strictness is
/// the statement's.
pub(crate) fn write_rows(
    plan: &InsertPlan,
    rows: impl Iterator<Item = Result<Vec<Option<Value>>>>,
    multi_row: bool,
    eval: &EvalContext,
    write_session: &WriteSession,
    cx: WriteContext,
) -> Result<Written> {
    let WriteContext {
        txn,
        session,
        interrupt,
        client_found_rows,
    } = cx;
    let table = &plan.table;
    let schema = &table.schema;
    let strict = write_session.strict;
    let null_is_error = plan.null_is_error(strict, multi_row);
    // LOAD DATA's values come stored (`InsertSource::Given`).
    let stored = matches!(plan.source, InsertSource::Given);
    // MariaDB: IGNORE makes a failed CHECK a warning only for a multi-row INSERT; a
    // single-row one fails with 4025 all the same.
    let ignore_failed_checks = plan.ignore && multi_row;
    let auto_column = schema.auto_increment_column();
    let enforcer = Enforcer::for_write(txn, table, session);
    let mut affected = 0u64;
    let (mut records, mut copied, mut duplicates) = (0u64, 0u64, 0u64);
    let mut first_generated: Option<u64> = None;
    let mut last_auto_value = 0u64;
    // An id generated for a row IGNORE skipped goes to the next row (MariaDB's
    // restore_auto_increment), so skipped duplicates leave no gaps within a statement.
    let mut spare_id: Option<u64> = None;
    let mut auto_ids = AutoIds::new(matches!(
        plan.source,
        InsertSource::Select(_) | InsertSource::Given
    ));
    // MariaDB checks once, before any row, that each column the statement leaves out has a
    // value to take (1364), unless a BEFORE INSERT trigger might set it: then the trigger
    // sees NULL there, and each row is checked after it (`settle_nulls`).
    let left_out_checked = plan.triggers.before.is_empty();
    let left_out_lacking =
        |i: usize| lacks_default(&schema.columns[i]) && !plan.columns.contains(&i);
    if left_out_checked {
        for i in (0..schema.columns.len()).filter(|&i| left_out_lacking(i)) {
            default_cell(&schema.columns[i], strict, session)?;
        }
    }
    let mut returned = Vec::new();
    for (n, values) in rows.enumerate() {
        let values = values?;
        records += 1;
        let row_number = n as u64 + 1;
        let mut row: Vec<Option<Value>> = vec![None; schema.columns.len()];
        for (i, v) in values.into_iter().enumerate() {
            let column = plan.columns[i];
            row[column] = match v {
                Some(v) if !stored => {
                    plan.given_cell(column, v, row_number, strict, null_is_error, session)?
                }
                v => v,
            };
        }
        let mut full = Vec::with_capacity(schema.columns.len());
        for (i, c) in schema.columns.iter().enumerate() {
            let v = match row[i].take() {
                Some(v) => v,
                None if Some(i) == auto_column => Value::Null,
                None if left_out_lacking(i) => match left_out_checked {
                    // Warned of before the first row.
                    true => implicit_default(&c.data_type),
                    false => Value::Null,
                },
                None => default_cell(c, strict, session)?,
            };
            full.push(v);
        }
        if !plan.triggers.before.is_empty() {
            // BEFORE INSERT sees 0 in an AUTO_INCREMENT column not given, as in MariaDB.
            if let Some(a) = auto_column.filter(|&a| full[a].is_null()) {
                full[a] = auto_value(&schema.columns[a].data_type, 0);
            }
            let assigned = trigger::fire(
                &plan.triggers.before,
                None,
                Some(&mut full),
                txn,
                session,
                interrupt,
            )?;
            let unset = |i: usize| left_out_lacking(i) && !assigned.contains(&i);
            let db = &plan.db;
            settle_nulls(db, table, &mut full, unset, strict, null_is_error, session)?;
        }
        let mut generated = None;
        if let Some(a) = auto_column {
            match as_id(&full[a]) {
                Some(id) => {
                    table.observe_auto_increment(id);
                    auto_ids.observe(id);
                }
                None => {
                    let id = spare_id.take().unwrap_or_else(|| auto_ids.take(table));
                    full[a] = auto_value(&schema.columns[a].data_type, id);
                    generated = Some(id);
                }
            }
        }
        crate::generated::fill(&plan.generated, schema, &mut full, row_number, strict, eval)?;
        if !crate::check::row_passes(
            &plan.checks,
            &plan.db,
            &schema.name,
            &full,
            eval,
            ignore_failed_checks,
        )? {
            // MariaDB counts a row a CHECK refused neither as a record nor a duplicate.
            records -= 1;
            spare_id = generated;
            continue;
        }
        let auto_of = |row: &[Value]| auto_column.and_then(|a| as_id(&row[a]));
        let inserted_auto = auto_of(&full);
        let kept =
            (plan.returning.is_some() || !plan.triggers.after.is_empty()).then(|| full.clone());
        let written = insert_row(
            plan,
            txn,
            full,
            eval,
            (row_number, null_is_error),
            enforcer.as_ref(),
            interrupt,
        )?;
        if let Some(returning) = &plan.returning {
            // MariaDB returns each row as written: inserted, or as ON DUPLICATE KEY
            // UPDATE left it; not a row IGNORE skipped.
            let row = match &written {
                RowWrite::Inserted { .. } => kept.as_deref(),
                RowWrite::Updated { row } | RowWrite::Unchanged { row } => Some(row.as_slice()),
                RowWrite::Ignored => None,
            };
            if let Some(row) = row {
                returned.push(returning.row(row, eval)?);
            }
        }
        if let (RowWrite::Inserted { .. }, Some(mut row)) = (&written, kept) {
            trigger::fire(
                &plan.triggers.after,
                None,
                Some(&mut row),
                txn,
                session,
                interrupt,
            )?;
        }
        match written {
            RowWrite::Inserted { replaced } => {
                affected += 1 + replaced;
                copied += 1;
                duplicates += replaced;
                if let Some(id) = generated {
                    first_generated.get_or_insert(id);
                }
                last_auto_value = inserted_auto.unwrap_or(last_auto_value);
            }
            RowWrite::Updated { row } => {
                affected += 2;
                copied += 1;
                duplicates += 1;
                last_auto_value = auto_of(&row).unwrap_or(last_auto_value);
            }
            RowWrite::Unchanged { .. } => affected += u64::from(client_found_rows),
            RowWrite::Ignored => spare_id = generated,
        }
    }
    // The OK packet's id: the first generated value, else the auto-increment value of
    // the last row written (MariaDB reads it from the record buffer).
    let last_insert_id = first_generated.unwrap_or(if copied > 0 { last_auto_value } else { 0 });
    Ok(Written {
        affected,
        records,
        copied,
        duplicates,
        first_generated,
        last_insert_id,
        returned,
    })
}

/// Where a statement's generated AUTO_INCREMENT values come from. A statement whose row
/// count is unknown up front (INSERT ... SELECT, LOAD DATA) reserves them as MariaDB's
/// handler asks InnoDB for them: 1, then 2, 4, ... up to 65536 at a time, and what its
/// last interval leaves unused is lost (the next statement's values leave a gap, as in
/// MariaDB). Other statements take one value at a time (MariaDB reserves their known
/// count at once: the same values).
struct AutoIds {
    unknown_count: bool,
    next: u64,
    end: u64,
    interval: u64,
}

impl AutoIds {
    const INTERVAL_MAX: u64 = 1 << 16;

    fn new(unknown_count: bool) -> AutoIds {
        AutoIds {
            unknown_count,
            next: 0,
            end: 0,
            interval: 1,
        }
    }

    fn take(&mut self, table: &Table) -> u64 {
        if !self.unknown_count {
            return table.reserve_auto_increment(1);
        }
        if self.next == self.end {
            self.next = table.reserve_auto_increment(self.interval);
            self.end = self.next + self.interval;
            self.interval = (self.interval * 2).min(Self::INTERVAL_MAX);
        }
        self.next += 1;
        self.next - 1
    }

    /// A row gave its own value `id`: values of the interval up to it are skipped.
    fn observe(&mut self, id: u64) {
        if (self.next..self.end).contains(&id) {
            self.next = id + 1;
        }
    }
}

/// What one row of an INSERT or REPLACE did.
enum RowWrite {
    /// Inserted, after REPLACE deleted `replaced` conflicting rows.
    Inserted { replaced: u64 },
    /// ON DUPLICATE KEY UPDATE changed the existing row into `row`.
    Updated { row: Vec<Value> },
    /// ON DUPLICATE KEY UPDATE left the existing row as it was: `row`.
    Unchanged { row: Vec<Value> },
    /// INSERT IGNORE skipped a duplicate.
    Ignored,
}

/// Whether REPLACE's new `row` is the same as the `existing` row it conflicts with on
/// `index`, where MariaDB writes the row over the old one and counts nothing deleted: on
/// the table's last unique index, when no foreign key refers to the table and it has no
/// DELETE trigger (the caller's part; otherwise it deletes the old row and counts it).
fn replaced_in_place(
    txn: &Transaction,
    table: &Table,
    index: manycore_storage::IndexNo,
    existing: &RowSlot,
    row: &[Value],
    enforcer: Option<&Enforcer>,
) -> bool {
    let later = match index {
        manycore_storage::IndexNo::Primary => 0,
        manycore_storage::IndexNo::Secondary(i) => i + 1,
    };
    let last_unique = !table.schema.indexes[later..].iter().any(|i| i.unique);
    let referenced = enforcer.is_some()
        && txn
            .storage()
            .catalog()
            .children_of(table.db(), &table.schema.name)
            .next()
            .is_some();
    last_unique
        && !referenced
        && existing
            .read(&txn.write_view(), |old| old == row)
            .unwrap_or(false)
}

/// Inserts one complete row, resolving duplicates per IGNORE / REPLACE / ON DUPLICATE KEY
/// UPDATE, and checks and acts on foreign keys after each write (`enforcer`). The row is
/// number `row_number` of its statement, where NULL into NOT NULL is an error if
/// `null_is_error` (ON DUPLICATE KEY UPDATE's assignments follow the INSERT's rule).
fn insert_row(
    plan: &InsertPlan,
    txn: &mut Transaction,
    mut row: Vec<Value>,
    eval: &EvalContext,
    (row_number, null_is_error): (u64, bool),
    enforcer: Option<&Enforcer>,
    interrupt: &crate::engine::ProcessEntry,
) -> Result<RowWrite> {
    // The statement's write session (IGNORE's strictness), as its expressions see it.
    let session = eval.session;
    let table = &plan.table;
    let conflict = &plan.conflict_triggers;
    let schema = &table.schema;
    let mut replaced = 0;
    // REPLACE may delete one conflicting row per unique index.
    for _ in 0..=schema.indexes.len() + 1 {
        // Storage hands the row back if the insert fails: no copy up front, unless foreign
        // keys need it after the insert.
        let kept = enforcer.map(|_| row.clone());
        let savepoint = txn.savepoint();
        match txn.insert_or_return(table, row.into_boxed_slice()) {
            Ok(_) => {
                session.count(Counter::HandlerWrite, 1);
                if let (Some(enforcer), Some(row)) = (enforcer, &kept) {
                    if let Err(e) = enforcer.row_written(txn, table, None, Some(row.as_slice())) {
                        // INSERT IGNORE skips a row without a parent, with a warning.
                        if !plan.ignore || e.wait.is_some() || e.code != ErrorCode::NoReferencedRow2
                        {
                            return Err(e);
                        }
                        txn.rollback_to(savepoint);
                        session.warn(e.code, e.message);
                        return Ok(RowWrite::Ignored);
                    }
                }
                return Ok(RowWrite::Inserted { replaced });
            }
            Err((StorageError::DuplicateKey { index, existing }, back)) => {
                row = back.into_vec();
                if plan.replace
                    && conflict.is_empty()
                    && replaced_in_place(txn, table, index, &existing, &row, enforcer)
                {
                    return Ok(RowWrite::Inserted { replaced });
                }
                if plan.replace {
                    let old = match enforcer.is_some() || !conflict.is_empty() {
                        true => existing.read(&txn.write_view(), |r| r.to_vec()),
                        false => None,
                    };
                    if let Some(old) = old.as_deref().filter(|_| !conflict.before.is_empty()) {
                        trigger::fire(&conflict.before, Some(old), None, txn, session, interrupt)?;
                    }
                    txn.delete(table, &existing)
                        .map_err(|e| write_error(e, table, &row))?;
                    session.count(Counter::HandlerDelete, 1);
                    if let (Some(enforcer), Some(old)) = (enforcer, &old) {
                        enforcer.row_written(txn, table, Some(old.as_slice()), None)?;
                    }
                    if let Some(old) = old.as_deref().filter(|_| !conflict.after.is_empty()) {
                        trigger::fire(&conflict.after, Some(old), None, txn, session, interrupt)?;
                    }
                    replaced += 1;
                    continue;
                }
                if !plan.on_duplicate.is_empty() {
                    let view = txn.write_view();
                    let Some(old) = existing.read(&view, |r| r.to_vec()) else {
                        return Err(Error::deadlock());
                    };
                    let mut both = old.clone();
                    both.extend(row.iter().cloned());
                    let mut new = old.clone();
                    let strict = session.strict();
                    for (column, e) in &plan.on_duplicate {
                        let c = &schema.columns[*column];
                        if !plan.generated.is_empty() && c.generated.is_some() {
                            // As in MariaDB, no 1906 here: the value is ignored.
                            continue;
                        }
                        both[..new.len()].clone_from_slice(&new);
                        let value = e.eval(&both, eval)?;
                        let name = || qualified(&plan.db, table, c);
                        new[*column] =
                            store(value, c, &name, row_number, strict, null_is_error, session)?;
                    }
                    if !conflict.before.is_empty() {
                        let before = &conflict.before;
                        trigger::fire(before, Some(&old), Some(&mut new), txn, session, interrupt)?;
                        let db = &plan.db;
                        settle_nulls(
                            db,
                            table,
                            &mut new,
                            |_| false,
                            strict,
                            null_is_error,
                            session,
                        )?;
                    }
                    if new == old {
                        if !conflict.after.is_empty() {
                            let after = &conflict.after;
                            trigger::fire(
                                after,
                                Some(&old),
                                Some(&mut new),
                                txn,
                                session,
                                interrupt,
                            )?;
                        }
                        return Ok(RowWrite::Unchanged { row: old });
                    }
                    stamp_on_update(schema, &plan.on_duplicate, &mut new, session);
                    crate::generated::fill(
                        &plan.generated,
                        schema,
                        &mut new,
                        row_number,
                        strict,
                        eval,
                    )?;
                    let db = &plan.db;
                    if !crate::check::row_passes(
                        &plan.checks,
                        db,
                        &schema.name,
                        &new,
                        eval,
                        plan.ignore,
                    )? {
                        return Ok(RowWrite::Unchanged { row: old });
                    }
                    txn.update(table, &existing, new.clone().into_boxed_slice())
                        .map_err(|e| write_error(e, table, &new))?;
                    session.count(Counter::HandlerUpdate, 1);
                    if let Some(enforcer) = enforcer {
                        enforcer.row_written(
                            txn,
                            table,
                            Some(old.as_slice()),
                            Some(new.as_slice()),
                        )?;
                    }
                    if !conflict.after.is_empty() {
                        let mut fired = new.clone();
                        let after = &conflict.after;
                        trigger::fire(
                            after,
                            Some(&old),
                            Some(&mut fired),
                            txn,
                            session,
                            interrupt,
                        )?;
                    }
                    return Ok(RowWrite::Updated { row: new });
                }
                let e = duplicate_error(table, index, &row);
                if plan.ignore {
                    session.warn(e.code, e.message);
                    return Ok(RowWrite::Ignored);
                }
                return Err(e);
            }
            Err((e, back)) => return Err(write_error(e, table, &back)),
        }
    }
    Err(Error::new(
        ErrorCode::UnknownError,
        "REPLACE did not converge",
    ))
}
