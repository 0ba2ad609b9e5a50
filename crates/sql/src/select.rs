//! Binding a SELECT into a plan (see `plan` for the operator tree and row layout) and the
//! result columns' metadata as MariaDB reports it.

use crate::access;
use crate::cte::CteScope;
use crate::error::{Error, ErrorCode, Result};
use crate::expr::{self, BinaryOp, ColumnRef, Expr};
use crate::information_schema::{self, SystemTable};
use crate::join;
use crate::plan::{
    AccessPath, Count, IndexAccess, JoinSource, JoinStep, Plan, SortKey, SystemScan,
};
use crate::privilege::{AccessCheck, ColumnAccess, Privileges};
use crate::scope::{Aggregates, Alias, BindScope, Outer, Parameters, SourceTable};
use crate::set_operation;
use crate::sink::{ColumnInfo, Columns};
use crate::temporary::TemporaryTables;
use crate::window::{self, WindowAlias, Windows};
use manycore_storage::{Catalog, Table};
use manycore_types::DataType;
use sqlparser::ast;
use std::cell::RefCell;
use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Duration;

/// A bound SELECT.
#[derive(Clone)]
pub struct SelectPlan {
    pub plan: Plan,
    pub columns: Columns,
    /// Tables read, to re-bind prepared statements after DDL.
    pub tables: Vec<Arc<Table>>,
    /// FOR UPDATE / LOCK IN SHARE MODE was given, with what it does with held rows
    /// (`session::locking_read`).
    pub locking: Option<Locking>,
    /// How its tables are read, counted on each execution (decided here so executions do
    /// not walk the plan).
    pub scans: ScanKinds,
    /// SELECT SQL_CALC_FOUND_ROWS: FOUND_ROWS() counts the rows the outermost LIMIT
    /// received, not those it passed on (`exec::run_found`). Set for a SELECT statement
    /// (`calc_found_rows`), never for a subquery's plan.
    pub calc_found_rows: bool,
}

/// What binding needs from the session.
pub struct BindContext<'a> {
    pub catalog: &'a Catalog,
    pub database: Option<&'a str>,
    /// The statement text, for naming expression columns as written.
    pub text: &'a str,
    pub parameters: &'a Parameters,
    /// The session's privileges, checked where names become tables.
    pub access: AccessCheck<'a>,
    /// The enclosing query's clause, while binding a subquery.
    pub outer: Option<&'a Outer<'a>>,
    /// Tables the subqueries bound so far read (a query's `SelectPlan::tables` include
    /// them, so DDL on them re-binds a prepared statement).
    pub subquery_tables: RefCell<Vec<Arc<Table>>>,
    /// The CTEs (WITH) this query sees (`cte`).
    pub ctes: Option<&'a CteScope<'a>>,
    /// The stored functions whose bodies are being bound around this statement,
    /// `db.routine_key`: a call of one of them is recursion (`routine` invariant (6)).
    pub calling: &'a [String],
    /// The session's temporary tables, which hide the catalog's (`temporary` invariant (2)).
    pub temporary: &'a TemporaryTables,
}

impl<'a> BindContext<'a> {
    /// The context of a subquery inside a clause of this query.
    pub fn for_subquery(&self, outer: &'a Outer<'a>) -> BindContext<'a> {
        self.nested(Some(outer))
    }

    /// The context of a derived table's query in this query's FROM: it sees no
    /// enclosing query's rows (join invariant (6)).
    pub fn for_derived(&self) -> BindContext<'a> {
        self.nested(None)
    }

    /// A query nested in this one, seeing the rows of `outer`; it counts its own tables.
    fn nested(&self, outer: Option<&'a Outer<'a>>) -> BindContext<'a> {
        BindContext {
            catalog: self.catalog,
            database: self.database,
            text: self.text,
            parameters: self.parameters,
            access: self.access,
            outer,
            subquery_tables: RefCell::default(),
            ctes: self.ctes,
            calling: self.calling,
            temporary: self.temporary,
        }
    }

    /// The context of a CTE's query: it sees the CTEs of `ctes`, and no enclosing
    /// query's rows (as a derived table).
    pub fn for_cte<'b>(&'b self, ctes: &'b CteScope<'b>) -> BindContext<'b> {
        BindContext {
            outer: None,
            ..self.for_cte_body(ctes)
        }
    }

    /// The context of the query a WITH clause belongs to: this one, seeing `ctes`.
    pub fn for_cte_body<'b>(&'b self, ctes: &'b CteScope<'b>) -> BindContext<'b> {
        BindContext {
            catalog: self.catalog,
            database: self.database,
            text: self.text,
            parameters: self.parameters,
            access: self.access,
            outer: self.outer,
            subquery_tables: RefCell::default(),
            ctes: Some(ctes),
            calling: self.calling,
            temporary: self.temporary,
        }
    }

    /// Resolves `[db.]table` to (db, table), which the session must hold `needed` on,
    /// and what it may do with the columns, whose uses are checked for `column_needs`:
    /// the one place statements turn table names into tables, so the one place their
    /// privileges are checked (privilege invariant (4): before the table's existence).
    pub fn table(
        &self,
        name: &ast::ObjectName,
        needed: Privileges,
        column_needs: Privileges,
    ) -> Result<(String, Arc<Table>, ColumnAccess)> {
        let (db, table) = self.table_name(name)?;
        if let Some(temporary) = self.temporary.get(&db, &table) {
            return Ok((db, temporary.clone(), ColumnAccess::default()));
        }
        let columns = self
            .access
            .table_columns(&db, &table, needed, column_needs)?;
        // FROM reads views before it gets here (`join`); what else names one would write.
        if self.catalog.view(&db, &table).is_some() {
            return Err(Error::not_supported(
                "INSERT, UPDATE and DELETE through a view",
            ));
        }
        let (db, table) = information_schema::find_table(self.catalog, &db, &table)?;
        Ok((db, table, columns))
    }

    /// `[db.]table`, in the current database unless named.
    fn table_name(&self, name: &ast::ObjectName) -> Result<(String, String)> {
        let parts: Vec<String> = name.0.iter().map(object_part).collect();
        match parts.as_slice() {
            [table] => Ok((
                self.database.ok_or_else(Error::no_db_selected)?.to_string(),
                table.clone(),
            )),
            [db, table] => Ok((db.clone(), table.clone())),
            _ => Err(Error::not_supported("multi-part table names")),
        }
    }

    /// The text of `expr` as the client wrote it, for column names.
    pub fn text_of(&self, expr: &ast::Expr) -> String {
        use sqlparser::ast::Spanned;
        // sqlparser gives some expressions no span (REGEXP) or a part of one: the union
        // with every subexpression's covers what was written.
        let mut span = expr.span();
        let _ = ast::visit_expressions(expr, |e| {
            span = span.union(&e.span());
            // MATCH has no span at all: its columns and its value cover it.
            if let ast::Expr::MatchAgainst {
                columns,
                match_value,
                ..
            } = e
            {
                let parts = columns
                    .iter()
                    .flat_map(|c| &c.0)
                    .filter_map(|p| p.as_ident());
                for ident in parts {
                    span = span.union(&ident.span);
                }
                span = span.union(&match_value.span);
            }
            ControlFlow::<()>::Continue(())
        });
        if span.start.line == 0 {
            return expr.to_string();
        }
        let start = crate::parse::offset_of(
            self.text,
            span.start.line as usize,
            span.start.column as usize,
        );
        let end =
            crate::parse::offset_of(self.text, span.end.line as usize, span.end.column as usize);
        let (mut start, mut end) = (start, end);
        if let ast::Expr::Nested(_) = expr {
            // The span is the inner expression's: take the enclosing parentheses too.
            if let Some(open) = self.text[..start].rfind('(') {
                if self.text[open + 1..start].trim().is_empty() {
                    start = open;
                }
            }
        }
        // sqlparser's spans of prefix operators (-x, NOT x, ~x, CAST(x AS t)) and of
        // postfix ones (x IS NULL) cover only the operand: widen to the whole item.
        start = item_start(self.text, start);
        if matches!(
            expr,
            ast::Expr::IsNull(_)
                | ast::Expr::IsNotNull(_)
                | ast::Expr::IsTrue(_)
                | ast::Expr::IsNotTrue(_)
                | ast::Expr::IsFalse(_)
                | ast::Expr::IsNotFalse(_)
                | ast::Expr::IsUnknown(_)
                | ast::Expr::IsNotUnknown(_)
        ) {
            end = close_open_parentheses(self.text, start, end);
            end = extend_over_words(
                self.text,
                end,
                &["IS", "NOT", "NULL", "TRUE", "FALSE", "UNKNOWN"],
            );
        }
        end = close_open_parentheses(self.text, start, end);
        if ends_with_interval(expr) {
            // The span of `INTERVAL n unit` stops before the unit.
            end = extend_over_words(self.text, end, INTERVAL_UNITS);
        }
        let end = extend_over_window(self.text, extend_over_parentheses(self.text, end));
        match self.text.get(start..end) {
            Some(s) if !s.is_empty() => s.to_string(),
            _ => expr.to_string(),
        }
    }
}

const INTERVAL_UNITS: &[&str] = &[
    "MICROSECOND",
    "SECOND",
    "MINUTE",
    "HOUR",
    "DAY",
    "WEEK",
    "MONTH",
    "QUARTER",
    "YEAR",
];

fn ends_with_interval(expr: &ast::Expr) -> bool {
    match expr {
        ast::Expr::Interval(_) => true,
        ast::Expr::BinaryOp { right, .. } => ends_with_interval(right),
        _ => false,
    }
}

/// MariaDB names a string literal's column by its value: `SELECT 'a'` gives column `a`.
fn string_literal_text(expr: &ast::Expr) -> Option<String> {
    match expr {
        ast::Expr::Value(v) => match &v.value {
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
                Some(crate::query_text::literal_text(s).into_owned())
            }
            _ => None,
        },
        _ => None,
    }
}

/// Moves `start` back over a prefix that belongs to the same select item: unary
/// operators, opening parentheses and function names such as `CAST(`, stopping at the
/// comma or keyword (SELECT, DISTINCT, ...) that precedes the item at its depth.
fn item_start(text: &str, start: usize) -> usize {
    const LEADING: &[&str] = &[
        "SELECT",
        "DISTINCT",
        "ALL",
        "DISTINCTROW",
        "STRAIGHT_JOIN",
        "HIGH_PRIORITY",
        "SQL_CALC_FOUND_ROWS",
        "SQL_NO_CACHE",
        "SQL_CACHE",
        "SQL_SMALL_RESULT",
        "SQL_BIG_RESULT",
        "SQL_BUFFER_RESULT",
    ];
    let bytes = text.as_bytes();
    let mut item = start;
    let mut i = start;
    let mut depth = 0usize;
    while i > 0 {
        let c = bytes[i - 1];
        if c.is_ascii_whitespace() {
            i -= 1;
            continue;
        }
        if c.is_ascii_alphanumeric() || c == b'_' {
            let mut word_start = i;
            while word_start > 0
                && (bytes[word_start - 1].is_ascii_alphanumeric() || bytes[word_start - 1] == b'_')
            {
                word_start -= 1;
            }
            let word = &text[word_start..i];
            if depth == 0 && LEADING.iter().any(|k| k.eq_ignore_ascii_case(word)) {
                break;
            }
            // Only a word directly before `(` (a function name) or an operator word
            // (NOT, BINARY, EXISTS, TRIM's BOTH/LEADING/TRAILING, MATCH) is part of this
            // item's prefix.
            let before_paren = bytes.get(i) == Some(&b'(');
            let operator = [
                "NOT", "BINARY", "EXISTS", "BOTH", "LEADING", "TRAILING", "MATCH",
            ]
            .iter()
            .any(|k| k.eq_ignore_ascii_case(word));
            if depth == 0 && !before_paren && !operator {
                break;
            }
            i = word_start;
            item = i;
            continue;
        }
        match c {
            b',' | b';' | b'\'' | b'"' | b'`' if depth == 0 => break,
            b')' => depth += 1,
            b'(' if depth > 0 => depth -= 1,
            b'(' | b'-' | b'~' | b'!' => {}
            _ if depth > 0 => {}
            _ => break,
        }
        i -= 1;
        if depth == 0 {
            item = i;
        }
    }
    item
}

/// Extends `end` over whitespace-separated words from `words` (case-insensitive).
fn extend_over_words(text: &str, end: usize, words: &[&str]) -> usize {
    let bytes = text.as_bytes();
    let mut end = end;
    loop {
        let mut i = end;
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut j = i;
        while j < bytes.len() && (bytes[j].is_ascii_alphanumeric() || bytes[j] == b'_') {
            j += 1;
        }
        if j > i && words.iter().any(|w| w.eq_ignore_ascii_case(&text[i..j])) {
            end = j;
        } else {
            return end;
        }
    }
}

/// Extends `end` until the parentheses opened in `text[start..end]` are closed.
fn close_open_parentheses(text: &str, start: usize, end: usize) -> usize {
    let bytes = text.as_bytes();
    let mut depth = 0i64;
    let mut quote: Option<u8> = None;
    let mut i = start;
    while i < bytes.len() && (i < end || depth > 0) {
        let c = bytes[i];
        match quote {
            Some(q) => {
                if c == b'\\' {
                    i += 1;
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                b'\'' | b'"' | b'`' => quote = Some(c),
                b'(' => depth += 1,
                b')' => depth -= 1,
                _ => {}
            },
        }
        i += 1;
    }
    i.max(end).min(text.len())
}

/// sqlparser's span of a function call ends at its name; extend `end` over an argument
/// list that follows, balancing parentheses outside quotes.
fn extend_over_parentheses(text: &str, end: usize) -> usize {
    let bytes = text.as_bytes();
    if bytes.get(end) != Some(&b'(') {
        return end;
    }
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut i = end;
    while i < bytes.len() {
        let c = bytes[i];
        match quote {
            Some(q) => {
                if c == b'\\' {
                    i += 1;
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                b'\'' | b'"' | b'`' => quote = Some(c),
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return extend_over_parentheses(text, i + 1);
                    }
                }
                _ => {}
            },
        }
        i += 1;
    }
    end
}

/// sqlparser's span of a window function call ends before its OVER: extend `end` over
/// `OVER name` or `OVER (...)` that follows.
fn extend_over_window(text: &str, end: usize) -> usize {
    let rest = &text[end..];
    let after_space = rest.len() - rest.trim_start().len();
    let word = rest[after_space..]
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .next()
        .unwrap_or_default();
    if !word.eq_ignore_ascii_case("OVER") {
        return end;
    }
    let over_end = end + after_space + word.len();
    let rest = &text[over_end..];
    let space = rest.len() - rest.trim_start().len();
    let next = over_end + space;
    if text.as_bytes().get(next) == Some(&b'(') {
        return extend_over_parentheses(text, next);
    }
    let name = text[next..]
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_' && c != '`')
        .next()
        .unwrap_or_default();
    next + name.len()
}

pub fn object_part(part: &ast::ObjectNamePart) -> String {
    match part {
        ast::ObjectNamePart::Identifier(ident) => ident.value.clone(),
        other => other.to_string(),
    }
}

/// One select-list entry after `*` expansion.
struct Item {
    expr: Expr,
    info: ColumnInfo,
}

pub fn bind_select(query: &ast::Query, cx: &BindContext) -> Result<SelectPlan> {
    match &query.with {
        Some(with) => crate::cte::bind_with(query, with, cx),
        None => bind_body(query, cx),
    }
}

/// A locking read's clause (`session::locking_read`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Locking {
    /// LOCK IN SHARE MODE, which a READ ONLY transaction may run; else FOR UPDATE.
    pub shared: bool,
    pub policy: LockWaitPolicy,
}

/// What a locking read does with a row another transaction holds (`session::locking_read`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockWaitPolicy {
    /// Waits for it, until innodb_lock_wait_timeout.
    Wait,
    /// NOWAIT (zero) or WAIT n: waits at most this long, as if innodb_lock_wait_timeout
    /// were set to it for the statement (MariaDB's reading).
    WaitAtMost(Duration),
    /// SKIP LOCKED: leaves the row out.
    SkipLocked,
}

/// innodb_lock_wait_timeout's maximum, which bounds WAIT n as it bounds the variable.
const LOCK_WAIT_SECONDS_MAX: u64 = 100_000_000;

/// `query`'s locking clause (FOR UPDATE, or LOCK IN SHARE MODE: `parse`) and what it does
/// with held rows; None for a read that locks nothing.
pub fn locking(query: &ast::Query) -> Result<Option<Locking>> {
    let Some(clause) = query.locks.last() else {
        return Ok(None);
    };
    if clause.of.is_some() {
        return Err(Error::not_supported("FOR UPDATE OF"));
    }
    let wait_seconds = query
        .settings
        .iter()
        .flatten()
        .find(|setting| setting.key.value == crate::parse::LOCK_WAIT_SETTING)
        .and_then(|setting| match &setting.value {
            ast::Expr::Value(v) => match &v.value {
                ast::Value::Number(seconds, _) => seconds.parse::<u64>().ok(),
                _ => None,
            },
            _ => None,
        });
    let policy = match (clause.nonblock, wait_seconds) {
        (Some(ast::NonBlock::Nowait), _) => LockWaitPolicy::WaitAtMost(Duration::ZERO),
        (Some(ast::NonBlock::SkipLocked), _) => LockWaitPolicy::SkipLocked,
        (None, Some(seconds)) => {
            LockWaitPolicy::WaitAtMost(Duration::from_secs(seconds.min(LOCK_WAIT_SECONDS_MAX)))
        }
        (None, None) => LockWaitPolicy::Wait,
    };
    Ok(Some(Locking {
        shared: clause.lock_type == ast::LockType::Share,
        policy,
    }))
}

/// `query` without its WITH clause (whose CTEs `cx` holds).
pub fn bind_body(query: &ast::Query, cx: &BindContext) -> Result<SelectPlan> {
    match query.body.as_ref() {
        ast::SetExpr::Select(select) => bind_query_block(
            select,
            query.order_by.as_ref(),
            &query.limit_clause,
            locking(query)?,
            cx,
        ),
        // Parenthesised queries and set operations: ORDER BY and LIMIT apply to the result.
        body => {
            let operand = set_operation::bind_set_expr(body, cx)?;
            set_operation::order_and_limit(operand, query, cx)
        }
    }
}

/// The MATCH a WHERE clause searches by: a conjunct that is a MATCH, or a MATCH
/// compared greater than a constant. MariaDB reads such a MATCH's rows through the
/// FULLTEXT key, and so returns them by relevance, best first, unless ORDER BY says
/// otherwise; manycore sorts them so (the sort is stable: ties keep their order).
fn searched_match(filter: &Expr) -> Option<&Expr> {
    let mut conjuncts = Vec::new();
    crate::access::conjuncts(filter, &mut conjuncts);
    conjuncts.into_iter().find_map(|c| match c {
        Expr::Match(_) => Some(c),
        Expr::Binary {
            op: BinaryOp::Gt | BinaryOp::GtEq,
            left,
            right,
            ..
        } if matches!(**left, Expr::Match(_)) && right.is_constant() => Some(&**left),
        Expr::Binary {
            op: BinaryOp::Lt | BinaryOp::LtEq,
            left,
            right,
            ..
        } if matches!(**right, Expr::Match(_)) && left.is_constant() => Some(&**right),
        _ => None,
    })
}

/// One SELECT ... FROM ... [ORDER BY] [LIMIT]: a query block.
pub fn bind_query_block(
    select: &ast::Select,
    order_by: Option<&ast::OrderBy>,
    limit: &Option<ast::LimitClause>,
    locking: Option<Locking>,
    cx: &BindContext,
) -> Result<SelectPlan> {
    if select.into.is_some() {
        // Refused rather than run without its INTO (a stored program's body takes INTO
        // out before binding: `compound`).
        return Err(Error::not_supported("SELECT ... INTO variables"));
    }
    let rollup = with_rollup(&select.group_by, cx)?;
    if rollup {
        if order_by.is_some() {
            return Err(rollup_and_order_by());
        }
        cx.parameters.note_rollup();
    }
    let start = cx.parameters.count();
    let mut from = join::bind_from(&select.from, cx, Privileges::SELECT, Privileges::SELECT)?;
    let from_parameters = cx.parameters.count() - start;
    if from_parameters > 0 {
        // `?`s are numbered in text order (expr::bind), where the select list comes
        // before FROM: count the select list's, then bind FROM again numbered after them.
        cx.parameters.rewind(start);
        bind_select_list(select, &from, cx)?;
        let listed = cx.parameters.count() - start;
        cx.parameters.rewind(start + listed);
        from = join::bind_from(&select.from, cx, Privileges::SELECT, Privileges::SELECT)?;
        cx.parameters.rewind(start);
    }
    let (mut items, aggregates, windows) = bind_select_list(select, &from, cx)?;
    if from_parameters > 0 {
        cx.parameters
            .rewind(cx.parameters.count() + from_parameters);
    }
    let join::FromClause {
        sources,
        star: _,
        joins,
    } = from;
    let width = scope_width(&sources);
    let select_width = items.len();
    let parameters = cx.parameters;
    let aliases: Vec<Alias> = items
        .iter()
        .enumerate()
        .map(|(i, item)| Alias {
            name: item.info.name.clone(),
            // A super-aggregate row may show NULL in any select value (plan invariant (8)).
            column: ColumnRef::computed(
                width + i,
                item.expr.data_type().clone(),
                rollup || !item.info.not_null,
            ),
        })
        .collect();

    let filter = match &select.selection {
        Some(e) => Some(BindScope::in_query(&sources, "WHERE", cx).bind(e)?),
        None => None,
    };

    let mut group_by = Vec::new();
    // Its modifiers are `with_rollup`'s.
    if let ast::GroupByExpr::Expressions(exprs, _) = &select.group_by {
        for e in exprs {
            group_by.push(bind_group_item(e, &sources, &items, width, cx)?);
        }
    } else {
        return Err(Error::not_supported("GROUP BY ALL"));
    }

    let mut having = match &select.having {
        Some(e) => {
            let mut scope = BindScope::in_query(&sources, "HAVING", cx);
            scope.aggregates = Some(&aggregates);
            scope.aliases = &aliases;
            scope.aliases_first = true;
            let having = scope.bind(e)?;
            // Select values made by window functions are computed after HAVING.
            let mut reads_window = false;
            crate::dml::visit_columns(&having, &mut |c| {
                reads_window |= c.index >= width
                    && items
                        .get(c.index - width)
                        .is_some_and(|item| window::has_window(&item.expr));
            });
            if reads_window {
                return Err(window::misplaced());
            }
            Some(having)
        }
        None => None,
    };

    let mut sort_keys = match order_by {
        Some(order_by) => {
            let mut scope = BindScope::in_query(&sources, "ORDER BY", cx);
            scope.aggregates = Some(&aggregates);
            scope.windows = Some(&windows);
            scope.aliases = &aliases;
            scope.aliases_first = true;
            bind_sort_keys(order_by, &scope)?
        }
        None => Vec::new(),
    };
    let plain = group_by.is_empty() && aggregates.calls.borrow().is_empty();
    if sort_keys.is_empty() && plain && select.distinct.is_none() {
        if let Some(search) = filter.as_ref().and_then(searched_match) {
            sort_keys.push(SortKey {
                expr: search.clone(),
                descending: true,
            });
        }
    }

    let (offset, count) = bind_limit(limit, parameters)?;

    // Assemble the operator tree (plan module doc).
    let calls = aggregates.calls.into_inner();
    let aggregated = !group_by.is_empty() || !calls.is_empty();
    // Window values go after the aggregates (window module notes).
    let mut window_calls = windows.calls.into_inner();
    if rollup {
        let at = width + select_width + calls.len();
        for item in &mut items {
            if read_group_cells(&mut item.expr, &group_by, at) {
                item.info.not_null = false;
            }
        }
        if let Some(having) = &mut having {
            read_group_cells(having, &group_by, at);
        }
        for call in &mut window_calls {
            let window = &mut call.window;
            let read = (call.args.iter_mut())
                .chain(&mut window.partition_by)
                .chain(window.order_by.iter_mut().map(|(e, _)| e));
            for e in read {
                read_group_cells(e, &group_by, at);
            }
        }
    }
    let group_cells = if rollup { group_by.len() } else { 0 };
    let window_at = width + select_width + calls.len() + group_cells;
    let windowed: Vec<bool> = items.iter().map(|i| window::has_window(&i.expr)).collect();
    if !window_calls.is_empty() {
        for item in &mut items {
            window::remap(&mut item.expr, window_at);
        }
        for key in &mut sort_keys {
            window::remap(&mut key.expr, window_at);
        }
    }
    let mut plan = match sources.first() {
        Some(_) if joins.is_some() => {
            // A locking read locks the rows of its tables the join reports.
            let locked: Vec<usize> = match locking {
                Some(_) => (0..sources.len())
                    .filter(|&i| sources[i].derived.is_none())
                    .collect(),
                None => Vec::new(),
            };
            join::plan(joins.expect("checked"), filter, &sources, &locked)
        }
        None => {
            if filter.is_some() {
                Plan::Filter {
                    input: Box::new(Plan::Empty),
                    predicate: filter.clone().expect("checked"),
                }
            } else {
                Plan::Empty
            }
        }
        // A derived table alone: its plan's rows have this query's row layout.
        Some(SourceTable {
            derived: Some(derived),
            ..
        }) => {
            let input = Plan::clone(derived);
            match filter {
                Some(predicate) => Plan::Filter {
                    input: Box::new(input),
                    predicate,
                },
                None => input,
            }
        }
        // Bind time is the one place a virtual table is told apart (information_schema
        // invariant (4)): its rows are made when the plan runs.
        Some(source) => match SystemTable::of(&source.table) {
            Some(table) => {
                let mut parts = Vec::new();
                if let Some(filter) = &filter {
                    access::conjuncts(filter, &mut parts);
                }
                let lookups = table.lookups(&parts, source.offset);
                Plan::SystemScan(Box::new(SystemScan {
                    table,
                    filter,
                    lookups,
                }))
            }
            None => Plan::Scan(Box::new(access::scan(source, filter))),
        },
    };
    let select_exprs: Vec<Expr> = items.iter().map(|i| i.expr.clone()).collect();
    let extended =
        aggregated || having.is_some() || !sort_keys.is_empty() || !window_calls.is_empty();
    let distinct = match &select.distinct {
        Some(ast::Distinct::Distinct) => true,
        Some(ast::Distinct::On(_)) => return Err(Error::not_supported("DISTINCT ON")),
        Some(ast::Distinct::All) | None => false,
    };
    // Plan invariant (6): over the FROM row, which an aggregate or a window replaces.
    let sort_distinct = distinct
        && !aggregated
        && window_calls.is_empty()
        && sort_does_distinct(&sort_keys, &select_exprs, &sources, width);
    if rollup {
        // Plan invariant (8): each group's rows, and each prefix's groups, neighbours.
        // An ENUM sorts by position, a SET by bitmask, as in ORDER BY.
        let keys = group_by.iter().map(|e| SortKey {
            expr: expr::numeric_operand(e.clone()),
            descending: false,
        });
        plan = Plan::Sort {
            input: Box::new(plan),
            keys: keys.collect(),
            kept: None,
            distinct: false,
        };
    }
    if aggregated {
        plan = Plan::Aggregate {
            input: Box::new(plan),
            group_by,
            calls,
            width,
            select_width,
            rollup,
        };
    }
    if extended {
        // Select values that read window values are made after the Window operator.
        let exprs = items
            .iter()
            .zip(&windowed)
            .map(|(item, &windowed)| match windowed {
                true => Expr::Literal {
                    value: manycore_types::Value::Null,
                    data_type: item.expr.data_type(),
                },
                false => item.expr.clone(),
            })
            .collect::<Vec<_>>();
        // Plan invariant (5): without aggregates this Compute widens the FROM row, whose
        // cells are all the select list reads.
        debug_assert!(aggregated || !exprs.iter().any(|e| references_at_or_above(e, width)));
        // Plan invariant (7): when the select values and the sort keys are all plain
        // cells, the FROM cells read above the Compute are the sort keys' ones.
        let plain_cells = !aggregated
            && having.is_none()
            && window_calls.is_empty()
            && from_columns(&exprs, width).is_some()
            && sort_keys.iter().all(|k| k.expr.column_index().is_some());
        let copied = plain_cells.then(|| {
            let mut cells: Vec<usize> = (sort_keys.iter())
                .filter_map(|k| k.expr.column_index().filter(|&c| c < width))
                .collect();
            cells.sort_unstable();
            cells.dedup();
            cells
        });
        plan = Plan::Compute {
            input: Box::new(plan),
            exprs,
            at: width,
            copied,
        };
    }
    if let Some(predicate) = having {
        plan = Plan::Filter {
            input: Box::new(plan),
            predicate,
        };
    }
    if !window_calls.is_empty() {
        plan = Plan::Window {
            input: Box::new(plan),
            calls: window_calls,
            at: window_at,
        };
        let exprs = items
            .iter()
            .zip(&windowed)
            .zip(&aliases)
            .map(|((item, &windowed), alias)| match windowed {
                true => item.expr.clone(),
                false => Expr::Column(alias.column.clone()),
            })
            .collect();
        plan = Plan::Compute {
            input: Box::new(plan),
            exprs,
            at: width,
            copied: None,
        };
    }
    let project: Vec<Expr> = if extended {
        aliases
            .iter()
            .map(|a| Expr::Column(a.column.clone()))
            .collect()
    } else {
        select_exprs
    };
    if !sort_keys.is_empty() {
        plan = Plan::Sort {
            input: Box::new(plan),
            keys: sort_keys,
            // Plan invariant (4): the Project made next is the sort's one reader.
            kept: project.iter().map(Expr::column_index).collect(),
            distinct: sort_distinct,
        };
    }
    let types = project.iter().map(|e| e.data_type()).collect();
    plan = Plan::Project {
        input: Box::new(plan),
        exprs: project,
    };
    if distinct && !sort_distinct {
        plan = Plan::Distinct {
            input: Box::new(plan),
            types,
        };
    }
    if offset != Count::Value(0) || count.is_some() {
        plan = Plan::Limit {
            input: Box::new(plan),
            offset,
            count,
        };
    }
    Ok(SelectPlan {
        scans: ScanKinds::of(&plan),
        plan,
        columns: items.into_iter().map(|i| i.info).collect(),
        tables: sources
            .iter()
            .map(|s| s.table.clone())
            .chain(cx.subquery_tables.take())
            .collect(),
        locking,
        calc_found_rows: false,
    })
}

/// Binds a SELECT statement, not a subquery: `bind_select` with its SQL_CALC_FOUND_ROWS.
pub fn bind_select_statement(query: &ast::Query, cx: &BindContext) -> Result<SelectPlan> {
    let calc_found_rows = calc_found_rows(query)?;
    let mut plan = bind_select(query, cx)?;
    plan.calc_found_rows = calc_found_rows;
    Ok(plan)
}

/// Whether SELECT statement `query` says SQL_CALC_FOUND_ROWS. Only its first query block
/// may (the first operand of a set operation, in parentheses or not); any other, a
/// subquery's or a derived table's included, is 1234, as in MariaDB.
pub fn calc_found_rows(query: &ast::Query) -> Result<bool> {
    fn first_block(body: &ast::SetExpr) -> Option<&ast::Select> {
        match body {
            ast::SetExpr::Select(select) => Some(select),
            ast::SetExpr::SetOperation { left, .. } => first_block(left),
            ast::SetExpr::Query(query) => first_block(&query.body),
            _ => None,
        }
    }
    fn asks(select: &ast::Select) -> bool {
        (select.select_modifiers.as_ref()).is_some_and(|m| m.sql_calc_found_rows)
    }
    struct Misplaced<'a>(Option<&'a ast::Select>);
    impl ast::Visitor for Misplaced<'_> {
        type Break = ();
        fn pre_visit_select(&mut self, select: &ast::Select) -> ControlFlow<()> {
            match asks(select) && !self.0.is_some_and(|first| std::ptr::eq(first, select)) {
                true => ControlFlow::Break(()),
                false => ControlFlow::Continue(()),
            }
        }
    }
    let first = first_block(&query.body);
    if ast::Visit::visit(query, &mut Misplaced(first)).is_break() {
        return Err(Error::new(
            ErrorCode::WrongPlacement,
            "Incorrect usage/placement of 'SQL_CALC_FOUND_ROWS'",
        ));
    }
    Ok(first.is_some_and(asks))
}

/// The FROM cell each of `exprs` reads, when every one is a plain column of the FROM row
/// of `width` cells (plan invariants (6) and (7)).
fn from_columns(exprs: &[Expr], width: usize) -> Option<Vec<usize>> {
    exprs
        .iter()
        .map(|e| e.column_index().filter(|&c| c < width))
        .collect()
}

/// Whether a sort by `keys` can also do the DISTINCT of select list `exprs` over the FROM
/// row of `width` cells read from `sources` (plan invariant (6)): every select value is a
/// column of a stored table (its cells hold values of the column's type, which a derived
/// or information_schema table's need not), of an integer or character-string type,
/// and the keys name exactly those columns, directly or through the select list.
fn sort_does_distinct(
    keys: &[SortKey],
    exprs: &[Expr],
    sources: &[SourceTable],
    width: usize,
) -> bool {
    let stored = |column: usize| {
        sources.iter().any(|s| {
            (s.offset..s.offset + s.table.schema.columns.len()).contains(&column)
                && s.derived.is_none()
                && SystemTable::of(&s.table).is_none()
        })
    };
    let equal_as_grouped = |data_type: &DataType| {
        matches!(
            data_type,
            DataType::Int { .. }
                | DataType::Char { .. }
                | DataType::VarChar { .. }
                | DataType::Text { .. }
        )
    };
    let Some(columns) = from_columns(exprs, width) else {
        return false;
    };
    let fits = |(&column, e): (&usize, &Expr)| stored(column) && equal_as_grouped(&e.data_type());
    if !columns.iter().zip(exprs).all(fits) {
        return false;
    }
    let key_columns = keys.iter().map(|key| match key.expr.column_index()? {
        // A select alias (ORDER BY 1, ORDER BY c naming the select list's c).
        position if position >= width => columns.get(position - width).copied(),
        column => Some(column),
    });
    key_columns
        .collect::<Option<Vec<usize>>>()
        .is_some_and(|keys| {
            !keys.is_empty()
                && keys.iter().all(|k| columns.contains(k))
                && columns.iter().all(|c| keys.contains(c))
        })
}

/// The select list bound over `from` (`*` expanded), and the aggregates and window
/// functions it uses.
fn bind_select_list(
    select: &ast::Select,
    from: &join::FromClause,
    cx: &BindContext,
) -> Result<(Vec<Item>, Aggregates, Windows)> {
    let sources = &from.sources;
    // `*` expansion fixes K (plan module notes) before anything binds.
    let width = scope_width(sources);
    let (select_width, names) =
        expanded_width(&select.projection, width, sources, &from.star, cx.database)?;
    let start = cx.parameters.count();
    let untyped = names
        .iter()
        .map(|(name, at)| WindowAlias::untyped(name, *at));
    let first = bind_select_items(select, from, cx, select_width, untyped.collect())?;
    if !first.2.alias_read() {
        return Ok(first);
    }
    // A window names a select alias, which may come later in the list: bind again with
    // the aliases typed by the values they name (window invariant (5)).
    let typed = names.iter().map(|(name, at)| {
        let item = &first.0[at - width];
        let column = ColumnRef::computed(*at, item.expr.data_type(), !item.info.not_null);
        WindowAlias::typed(name, column, window::has_window(&item.expr))
    });
    let typed = typed.collect();
    cx.parameters.rewind(start);
    bind_select_items(select, from, cx, select_width, typed)
}

/// One binding of the select list, with the aliases its windows may name.
fn bind_select_items(
    select: &ast::Select,
    from: &join::FromClause,
    cx: &BindContext,
    select_width: usize,
    aliases: Vec<WindowAlias>,
) -> Result<(Vec<Item>, Aggregates, Windows)> {
    let sources = &from.sources;
    let aggregates = Aggregates {
        calls: RefCell::new(Vec::new()),
        base: scope_width(sources) + select_width,
    };
    let mut items: Vec<Item> = Vec::with_capacity(select_width);
    let windows = Windows::new(&select.named_window, aliases)?;
    let mut scope = BindScope::in_query(sources, "SELECT", cx);
    scope.aggregates = Some(&aggregates);
    scope.windows = Some(&windows);
    for item in &select.projection {
        bind_item(item, sources, &from.star, &scope, cx, &mut items)?;
    }
    Ok((items, aggregates, windows))
}

/// The select list's width once `*` is expanded, and its `AS` aliases with the row
/// positions of their values (the select values start at `width`).
fn expanded_width(
    projection: &[ast::SelectItem],
    width: usize,
    sources: &[SourceTable],
    star: &[(usize, usize)],
    database: Option<&str>,
) -> Result<(usize, Vec<(String, usize)>)> {
    let mut n = 0;
    let mut aliases = Vec::new();
    for item in projection {
        if let ast::SelectItem::ExprWithAlias { alias, .. } = item {
            aliases.push((alias.value.clone(), width + n));
        }
        n += match item {
            ast::SelectItem::Wildcard(_) => {
                if sources.is_empty() {
                    return Err(Error::new(ErrorCode::NoTablesUsed, "No tables used"));
                }
                star.len()
            }
            ast::SelectItem::QualifiedWildcard(kind, _) => {
                let name = kind.to_string();
                let source = find_source(sources, &name, database)?;
                source.table.schema.columns.len()
            }
            _ => 1,
        };
    }
    Ok((n, aliases))
}

/// The table `[db.]alias.*` names; 1051 naming `db.alias` as MariaDB does.
fn find_source<'a>(
    sources: &'a [SourceTable],
    name: &str,
    database: Option<&str>,
) -> Result<&'a SourceTable> {
    let name = name.trim_end_matches(".*");
    let mut parts = name.rsplit('.').map(|p| p.trim_matches('`'));
    let alias = parts.next().unwrap_or(name);
    let db = parts.next();
    sources
        .iter()
        .find(|s| s.alias == alias && db.is_none_or(|db| s.db == db))
        .ok_or_else(|| {
            let db = db.or(database).unwrap_or_default();
            Error::bad_table(&[format!("{db}.{alias}")])
        })
}

/// Metadata of a table column in a result set (flags as MariaDB sets them).
pub fn table_column_info(source: &SourceTable, i: usize, name: &str) -> ColumnInfo {
    let schema = &source.table.schema;
    let c = &schema.columns[i];
    let in_primary = schema
        .primary_key
        .as_deref()
        .is_some_and(|pk| pk.contains(&i));
    let unique_key = schema.indexes.iter().any(|x| x.unique && x.columns == [i]);
    let multiple_key = schema
        .indexes
        .iter()
        .any(|x| x.columns.first() == Some(&i) && !(x.unique && x.columns.len() == 1))
        && !in_primary;
    ColumnInfo {
        schema: source.db.clone(),
        table: source.alias.clone(),
        org_table: schema.name.clone(),
        name: name.to_string(),
        org_name: c.name.clone(),
        data_type: c.data_type.clone(),
        length: c.data_type.display_length(),
        not_null: !source.nullable(i),
        primary_key: in_primary,
        unique_key,
        multiple_key,
        auto_increment: c.auto_increment,
        default: None,
        holds_json: source.column_ref(i).holds_json,
    }
}

fn bind_item(
    item: &ast::SelectItem,
    sources: &[SourceTable],
    star: &[(usize, usize)],
    scope: &BindScope,
    cx: &BindContext,
    items: &mut Vec<Item>,
) -> Result<()> {
    let mut push_columns = |columns: &mut dyn Iterator<Item = (&SourceTable, usize)>| {
        for (source, i) in columns {
            let c = &source.table.schema.columns[i];
            // As `*`: 1142 on the table, naming no column.
            source
                .columns
                .check_all([c.name.as_str()], Privileges::SELECT)?;
            items.push(Item {
                expr: Expr::Column(source.column_ref(i)),
                info: table_column_info(source, i, &c.name),
            });
        }
        Ok(())
    };
    let (ast_expr, alias) = match item {
        ast::SelectItem::Wildcard(_) => {
            return push_columns(&mut star.iter().map(|&(s, i)| (&sources[s], i)));
        }
        ast::SelectItem::QualifiedWildcard(kind, _) => {
            let source = find_source(sources, &kind.to_string(), cx.database)?;
            let width = source.table.schema.columns.len();
            return push_columns(&mut (0..width).map(|i| (source, i)));
        }
        ast::SelectItem::UnnamedExpr(e) => (e, None),
        ast::SelectItem::ExprWithAlias { expr, alias } => (expr, Some(alias.value.clone())),
        _ => return Err(Error::not_supported("multiple aliases")),
    };
    let expr = scope.bind(ast_expr)?;
    let written = match ast_expr {
        // A user variable is named as written (`@'a b'` too), as an expression is.
        ast::Expr::Identifier(ident)
            if ident.quote_style.is_none() && ident.value.starts_with('@') =>
        {
            None
        }
        ast::Expr::Identifier(ident) => Some(ident.value.clone()),
        // `@@session.x` is a variable, named as written, not a qualified column.
        ast::Expr::CompoundIdentifier(parts) if !parts[0].value.starts_with('@') => {
            parts.last().map(|p| p.value.clone())
        }
        _ => None,
    };
    let name = alias.unwrap_or_else(|| {
        written
            .clone()
            .or_else(|| string_literal_text(ast_expr))
            .unwrap_or_else(|| cx.text_of(ast_expr))
    });
    let info = match (&expr, written) {
        (Expr::Column(c), Some(_)) if c.index < scope_width(sources) => {
            let source = sources
                .iter()
                .rev()
                .find(|s| s.offset <= c.index)
                .expect("column index inside some table");
            table_column_info(source, c.index - source.offset, &name)
        }
        _ => ColumnInfo {
            length: expr.column_length(),
            holds_json: crate::expr::json::is_json_expr(&expr),
            ..ColumnInfo::expression(name, expr.data_type().clone(), !expr.nullable())
        },
    };
    items.push(Item { expr, info });
    Ok(())
}

/// INSERT/REPLACE/DELETE ... RETURNING (MariaDB 10.5+): the select list bound over the
/// one table written, evaluated against each row written. No subqueries or aggregates:
/// the row is all it sees.
pub fn bind_returning(
    items: &[ast::SelectItem],
    source: SourceTable,
    cx: &BindContext,
) -> Result<crate::dml::Returning> {
    let sources = [source];
    let star: Vec<(usize, usize)> = (0..sources[0].table.schema.columns.len())
        .map(|i| (0, i))
        .collect();
    let scope = BindScope::new(&sources, "RETURNING", cx.parameters);
    let mut bound = Vec::with_capacity(items.len());
    for item in items {
        bind_item(item, &sources, &star, &scope, cx, &mut bound)?;
    }
    let (exprs, columns): (Vec<Expr>, Vec<ColumnInfo>) =
        bound.into_iter().map(|i| (i.expr, i.info)).unzip();
    Ok(crate::dml::Returning {
        exprs,
        columns: columns.into(),
    })
}

fn scope_width(sources: &[SourceTable]) -> usize {
    sources.iter().map(|s| s.table.schema.columns.len()).sum()
}

/// ORDER BY items in `scope`, whose aliases are the select list in order (`ORDER BY 2`
/// is the second).
pub fn bind_sort_keys(order_by: &ast::OrderBy, scope: &BindScope) -> Result<Vec<SortKey>> {
    let ast::OrderByKind::Expressions(exprs) = &order_by.kind else {
        return Err(Error::not_supported("ORDER BY ALL"));
    };
    let mut keys = Vec::with_capacity(exprs.len());
    for o in exprs {
        scope.parameters.note_item(&o.expr);
        let expr = match position(&o.expr) {
            Some(n) if n >= 1 && n <= scope.aliases.len() => {
                Expr::Column(scope.aliases[n - 1].column.clone())
            }
            Some(_) => return Err(Error::bad_field(&o.expr.to_string(), "ORDER BY")),
            None => scope.bind(&o.expr)?,
        };
        // An ENUM sorts by position, a SET by bitmask.
        let expr = expr::numeric_operand(expr);
        let descending = matches!(o.options.sort, Some(ast::OrderBySort::Desc));
        keys.push(SortKey { expr, descending });
    }
    Ok(keys)
}

/// `ORDER BY 2` / `GROUP BY 2`: a bare integer literal is a select-list position.
fn position(expr: &ast::Expr) -> Option<usize> {
    match expr {
        ast::Expr::Value(v) => match &v.value {
            ast::Value::Number(n, _) => n.parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

fn bind_group_item(
    e: &ast::Expr,
    sources: &[SourceTable],
    items: &[Item],
    width: usize,
    cx: &BindContext,
) -> Result<Expr> {
    let from_item = |i: usize| -> Result<Expr> {
        let expr = items[i].expr.clone();
        if references_at_or_above(&expr, width) {
            return Err(Error::new(
                ErrorCode::WrongGroupField,
                format!("Can't group on '{}'", items[i].info.name),
            ));
        }
        Ok(expr)
    };
    cx.parameters.note_item(e);
    if let Some(n) = position(e) {
        if n >= 1 && n <= items.len() {
            return from_item(n - 1);
        }
        return Err(Error::bad_field(&n.to_string(), "GROUP BY"));
    }
    let scope = BindScope::in_query(sources, "GROUP BY", cx);
    if let ast::Expr::Identifier(ident) = e {
        if sources
            .iter()
            .all(|s| s.table.schema.column_index(&ident.value).is_none())
        {
            if let Some(i) = items
                .iter()
                .position(|it| it.info.name.eq_ignore_ascii_case(&ident.value))
            {
                return from_item(i);
            }
        }
    }
    scope.bind(e)
}

/// Whether GROUP BY ends WITH ROLLUP. As in MariaDB, WITH CUBE is 1235 and any other
/// modifier, or a second one, 1064.
fn with_rollup(group_by: &ast::GroupByExpr, cx: &BindContext) -> Result<bool> {
    use ast::GroupByWithModifier as Modifier;
    let ast::GroupByExpr::Expressions(_, modifiers) = group_by else {
        return Ok(false);
    };
    match modifiers.as_slice() {
        [] => Ok(false),
        [Modifier::Rollup] => Ok(true),
        [Modifier::Cube, ..] => Err(Error::not_supported("CUBE")),
        [Modifier::Rollup, ..] => Err(Error::parse_near_keyword(cx.text, "rollup")),
        _ => Err(Error::parse_near_keyword(cx.text, "with")),
    }
}

/// MariaDB sorts a query block's groups to roll them up and takes no other order for it.
pub fn rollup_and_order_by() -> Error {
    Error::new(
        ErrorCode::WrongUsage,
        "Incorrect usage of CUBE/ROLLUP and ORDER BY",
    )
}

/// Whether `body` is a query block WITH ROLLUP, perhaps in parentheses without an
/// ORDER BY or LIMIT of their own: an ORDER BY after it would be the block's.
pub fn is_rollup_block(body: &ast::SetExpr) -> bool {
    match body {
        ast::SetExpr::Select(select) => matches!(&select.group_by,
            ast::GroupByExpr::Expressions(_, modifiers)
                if modifiers.contains(&ast::GroupByWithModifier::Rollup)),
        ast::SetExpr::Query(query) => {
            query.order_by.is_none() && query.limit_clause.is_none() && is_rollup_block(&query.body)
        }
        _ => false,
    }
}

/// Makes `expr` read WITH ROLLUP's cell `at + i` wherever it holds GROUP BY expression
/// `i` (plan invariant (8)); whether it did.
fn read_group_cells(expr: &mut Expr, group_by: &[Expr], at: usize) -> bool {
    let mut changed = false;
    crate::dml::visit_mut(expr, &mut |e| {
        if let Some(i) = group_by.iter().position(|g| g == e) {
            *e = Expr::Column(ColumnRef::computed(at + i, e.data_type(), true));
            changed = true;
        }
    });
    changed
}

/// Whether `expr` reads a row position >= `limit` (a select value or an aggregate).
fn references_at_or_above(expr: &Expr, limit: usize) -> bool {
    let mut found = false;
    crate::dml::visit_columns(expr, &mut |c| found |= c.index >= limit);
    found
}

pub fn bind_limit(
    limit: &Option<ast::LimitClause>,
    parameters: &Parameters,
) -> Result<(Count, Option<Count>)> {
    let count_of = |e: &ast::Expr| -> Result<Count> {
        match e {
            ast::Expr::Value(v) => match &v.value {
                ast::Value::Number(n, _) => n
                    .parse()
                    .map(Count::Value)
                    .map_err(|_| Error::parse_near(&n.to_string(), 1)),
                ast::Value::Placeholder(_) => Ok(Count::Parameter(parameters.next())),
                _ => Err(Error::parse_near(&e.to_string(), 1)),
            },
            _ => Err(Error::parse_near(&e.to_string(), 1)),
        }
    };
    Ok(match limit {
        None => (Count::Value(0), None),
        Some(ast::LimitClause::LimitOffset {
            limit,
            offset,
            limit_by,
        }) => {
            if !limit_by.is_empty() {
                return Err(Error::not_supported("LIMIT BY"));
            }
            let count = limit.as_ref().map(count_of).transpose()?;
            let offset = match offset {
                Some(o) => count_of(&o.value)?,
                None => Count::Value(0),
            };
            (offset, count)
        }
        Some(ast::LimitClause::OffsetCommaLimit { offset, limit }) => {
            (count_of(offset)?, Some(count_of(limit)?))
        }
    })
}

/// How a SELECT reads its tables, as MariaDB's status counters count its joins: the first
/// table read whole (Select_scan) or by a range of an index (Select_range: bounds or an IN
/// list, not equalities alone), and a later table of a join read whole, no index reaching
/// it (Select_full_join).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScanKinds {
    pub scan: bool,
    pub range: bool,
    pub full_join: bool,
}

impl ScanKinds {
    /// Counts one execution of the SELECT in the session's Select_* counters, wherever it
    /// runs: a statement of its own, SELECT ... INTO, or a stored procedure's body.
    pub fn count(self, session: &dyn expr::SessionContext) {
        use crate::engine::Counter;
        for (counted, counter) in [
            (self.scan, Counter::SelectScan),
            (self.range, Counter::SelectRange),
            (self.full_join, Counter::SelectFullJoin),
        ] {
            if counted {
                session.count(counter, 1);
            }
        }
    }

    pub fn of(plan: &Plan) -> ScanKinds {
        let first = |access: &AccessPath| ScanKinds {
            scan: matches!(access, AccessPath::Full),
            range: matches!(access, AccessPath::Index(index) if is_range(index)),
            full_join: false,
        };
        if let Some(input) = plan.block_input() {
            return ScanKinds::of(input);
        }
        match plan {
            Plan::Scan(s) => first(&s.access),
            Plan::SystemScan(_) => ScanKinds {
                scan: true,
                ..ScanKinds::default()
            },
            Plan::Join(join) => {
                let kinds = match &join.steps[0].source {
                    JoinSource::Table { scan, .. } => first(&scan.access),
                    JoinSource::Rows { plan, .. } => ScanKinds::of(plan),
                    JoinSource::Outer { .. } => ScanKinds::default(),
                };
                ScanKinds {
                    full_join: kinds.full_join || reads_later_table_whole(&join.steps[1..]),
                    ..kinds
                }
            }
            Plan::Recursive(cte) => ScanKinds::of(&cte.anchor),
            Plan::SetOperation(operation) => {
                ScanKinds::of(&operation.left).or(ScanKinds::of(&operation.right))
            }
            // No table (a CTE's work table is rows already read); one-input operators
            // were followed above.
            _ => ScanKinds::default(),
        }
    }

    /// Either's kinds: a set operation's, whose sides are joins of their own.
    pub fn or(self, other: ScanKinds) -> ScanKinds {
        ScanKinds {
            scan: self.scan || other.scan,
            range: self.range || other.range,
            full_join: self.full_join || other.full_join,
        }
    }
}

/// An index access MariaDB calls a range: a bound, or several values for a column.
fn is_range(access: &IndexAccess) -> bool {
    access.lower.is_some() || access.upper.is_some() || access.eq.iter().any(|v| v.len() > 1)
}

/// Whether a join step after the first reads a table whole for each row before it (or,
/// buffered, once: MariaDB's join buffer counts as a full join too).
fn reads_later_table_whole(steps: &[JoinStep]) -> bool {
    steps.iter().any(|step| match &step.source {
        JoinSource::Table { scan, .. } => matches!(scan.access, AccessPath::Full),
        JoinSource::Rows { plan, .. } => ScanKinds::of(plan).scan,
        JoinSource::Outer { steps, .. } => reads_later_table_whole(steps),
    })
}
