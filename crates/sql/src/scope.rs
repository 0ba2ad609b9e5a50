//! Name resolution for the binder: which row position a column name, a select alias or
//! an aggregate refers to, per clause.
//!
//! MySQL's rules, in brief: WHERE sees table columns only; GROUP BY sees table columns,
//! then select aliases; HAVING and ORDER BY see select aliases first, then table columns;
//! aggregates may appear in the select list, HAVING and ORDER BY, never in WHERE (1111).
//! Column names are case-insensitive; table names and aliases are case-sensitive
//! (lower_case_table_names=0).

use crate::error::{Error, ErrorCode, Result};
use crate::expr::{self, AggregateCall, ColumnRef, Expr, Scope, Subquery, SubqueryKind};
use crate::plan::Plan;
use crate::privilege::{ColumnAccess, Privileges};
use crate::select::BindContext;
use crate::view::quote_name;
use crate::window::Windows;
use manycore_storage::Table;
use manycore_types::{DataType, Value};
use sqlparser::ast;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

/// A table in FROM: its row occupies `offset .. offset + columns` of the input row.
#[derive(Clone)]
pub struct SourceTable {
    pub db: String,
    /// The alias, or the table name.
    pub alias: String,
    pub table: Arc<Table>,
    pub offset: usize,
    /// What the statement may do with the columns: every column it reads is checked
    /// for SELECT here, as the name resolves (privilege invariant (5)).
    pub columns: ColumnAccess,
    /// Columns a USING or NATURAL join merged into the other operand's column of the
    /// same name: an unqualified name means that one (the value MySQL coalesces to).
    pub merged: Vec<usize>,
    /// On the inner side of an outer join: any column may be NULL (a row nothing
    /// matched), whatever its definition says.
    pub null_extended: bool,
    /// A derived table: the plan making its rows (`table` is a detached table with the
    /// derived query's result columns as its schema).
    pub derived: Option<Arc<Plan>>,
}

impl SourceTable {
    /// `table` alone, its row at offset 0, named by its own name: a write's target, or
    /// the row CHECK constraints and generated columns read.
    pub fn alone(db: String, table: &Arc<Table>, columns: ColumnAccess) -> SourceTable {
        SourceTable {
            db,
            alias: table.schema.name.clone(),
            table: Arc::clone(table),
            offset: 0,
            columns,
            merged: Vec::new(),
            null_extended: false,
            derived: None,
        }
    }

    /// A view's reference: derived, and the only derived source with a database.
    pub fn is_view(&self) -> bool {
        self.derived.is_some() && !self.db.is_empty()
    }

    /// Whether column `i` may hold NULL in this FROM clause.
    pub fn nullable(&self, i: usize) -> bool {
        self.null_extended || self.table.schema.columns[i].nullable
    }

    /// A reference to column `i`: the one way a table's column becomes an expression.
    pub fn column_ref(&self, i: usize) -> ColumnRef {
        let data_type = self.table.schema.columns[i].data_type.clone();
        ColumnRef {
            index: self.offset + i,
            // A derived table's cells are values its query made, already local time.
            holds_utc: matches!(data_type, DataType::Timestamp { .. }) && self.derived.is_none(),
            holds_json: match self.derived {
                None => crate::check::is_json_column(&self.table.schema, i),
                // `join::derived_table` marks its JSON columns with the JSON check.
                Some(_) => crate::check::has_json_check(&self.table.schema, i),
            },
            data_type,
            nullable: self.nullable(i),
        }
    }
}

/// A select-list alias visible to GROUP BY / HAVING / ORDER BY.
#[derive(Clone, Debug)]
pub struct Alias {
    pub name: String,
    pub column: ColumnRef,
}

/// Collects the aggregates a query uses; each gets a fixed row position.
pub struct Aggregates {
    pub calls: RefCell<Vec<AggregateCall>>,
    /// Row position of the first aggregate result.
    pub base: usize,
}

/// Qualifier naming the row an ON DUPLICATE KEY UPDATE's VALUES(col) reads.
pub const VALUES_QUALIFIER: &str = "\u{1}values";

/// The `?` placeholders of a statement being bound: numbered left to right in the text,
/// and typed by the values of an execution when those are known, as MariaDB types a
/// parameter by the value bound to it (an integer makes `? + 1` a BIGINT).
pub struct Parameters {
    next: Cell<usize>,
    /// By position; empty (all untyped) when binding for PREPARE.
    types: Vec<DataType>,
    /// The types of the session's user variables when the statement is bound (MariaDB
    /// types `@v` by the value it holds then); unset ones are LONGTEXT.
    user_variables: HashMap<String, DataType>,
    /// The user variables the statement read, with the types it bound them with.
    user_variables_read: RefCell<Vec<(String, DataType)>>,
    /// The plan depends on the literals the text holds, so a template with `?` in their
    /// place does not behave like its text: an ORDER BY or GROUP BY item was a bare `?`
    /// (a literal there is a column position, a parameter a constant), or the statement
    /// has WITH ROLLUP (a select value equal to a GROUP BY expression, literals
    /// included, reads its rolled-up cell: plan invariant (8)).
    literal_dependent: Cell<bool>,
}

impl Parameters {
    pub fn untyped() -> Parameters {
        Parameters::typed(Vec::new())
    }

    pub fn typed(types: Vec<DataType>) -> Parameters {
        Parameters {
            next: Cell::new(0),
            types,
            user_variables: HashMap::new(),
            user_variables_read: RefCell::default(),
            literal_dependent: Cell::new(false),
        }
    }

    /// Types user variables by the values they hold (no allocation when there are none).
    /// A plan bound so is valid only while those types hold: a plan cache must key on
    /// them, or not cache statements that read `@v`.
    pub fn with_user_variables(mut self, values: &HashMap<String, Value>) -> Parameters {
        self.user_variables = values
            .iter()
            .map(|(name, value)| (name.clone(), expr::user_variable_type(value)))
            .collect();
        self
    }

    pub fn user_variable_type(&self, name: &str) -> DataType {
        let data_type = self
            .user_variables
            .get(name)
            .cloned()
            .unwrap_or(expr::USER_VARIABLE_STRING);
        let mut read = self.user_variables_read.borrow_mut();
        if !read.iter().any(|(n, _)| n == name) {
            read.push((name.to_string(), data_type.clone()));
        }
        data_type
    }

    /// The user variables read so far (`user_variable_type`) and their types: a plan
    /// bound with them holds while each has a value of that type.
    pub fn user_variables_read(&self) -> Vec<(String, DataType)> {
        self.user_variables_read.borrow().clone()
    }

    /// Numbers the next `?`.
    pub fn next(&self) -> usize {
        let n = self.next.get();
        self.next.set(n + 1);
        n
    }

    /// Passes over `count` parameters that are not bound (a CALL's OUT arguments).
    pub fn skip(&self, count: usize) {
        self.next.set(self.next.get() + count);
    }

    /// Notes an ORDER BY or GROUP BY item `item`, at any depth of the statement.
    pub fn note_item(&self, item: &ast::Expr) {
        if matches!(item, ast::Expr::Value(v) if matches!(v.value, ast::Value::Placeholder(_))) {
            self.literal_dependent.set(true);
        }
    }

    /// Notes a GROUP BY ... WITH ROLLUP, at any depth of the statement.
    pub fn note_rollup(&self) {
        self.literal_dependent.set(true);
    }

    /// Whether the plan depends on the literals of the text (`note_item`, `note_rollup`).
    pub fn literal_dependent(&self) -> bool {
        self.literal_dependent.get()
    }

    /// Numbers the next `?` as `next`: a clause bound out of text order (FROM before
    /// the select list) is numbered from where its text puts it.
    pub fn rewind(&self, next: usize) {
        self.next.set(next);
    }

    /// How many `?` were numbered.
    pub fn count(&self) -> usize {
        self.next.get()
    }

    /// The type of parameter `index`: its value's, or nominally a string if unknown.
    pub fn type_of(&self, index: usize) -> DataType {
        self.types
            .get(index)
            .cloned()
            .unwrap_or(expr::NOMINAL_PARAMETER_TYPE)
    }
}

pub struct BindScope<'a> {
    pub tables: &'a [SourceTable],
    pub clause: &'static str,
    pub parameters: &'a Parameters,
    pub aggregates: Option<&'a Aggregates>,
    pub aliases: &'a [Alias],
    pub aliases_first: bool,
    /// Offset of the row VALUES(col) reads (INSERT ... ON DUPLICATE KEY UPDATE).
    pub values_offset: Option<usize>,
    /// The query being bound, in clauses that may hold subqueries (`in_query`).
    pub query: Option<&'a BindContext<'a>>,
    /// Where window functions go, in the clauses that may have them (select list, ORDER
    /// BY); elsewhere they are misplaced (4015).
    pub windows: Option<&'a Windows>,
    /// Binding an aggregate's argument, where a window function is 4074.
    pub aggregate_argument: bool,
    /// The column or constraint whose DEFAULT, CHECK or GENERATED ALWAYS AS clause is
    /// bound, where a stored function is 1901 (MariaDB), not a call.
    pub definition: Option<&'a str>,
}

/// The clause of the enclosing query, seen from a subquery inside it: where the
/// subquery's names fall back to.
pub struct Outer<'a> {
    pub scope: &'a BindScope<'a>,
    /// A name inside the subquery resolved here or further out: it is correlated.
    pub referenced: Cell<bool>,
}

impl<'a> BindScope<'a> {
    pub fn new(
        tables: &'a [SourceTable],
        clause: &'static str,
        parameters: &'a Parameters,
    ) -> Self {
        BindScope {
            tables,
            clause,
            parameters,
            aggregates: None,
            aliases: &[],
            aliases_first: false,
            values_offset: None,
            query: None,
            windows: None,
            aggregate_argument: false,
            definition: None,
        }
    }

    /// A scope of a clause of the query `cx` binds: subqueries may appear in it.
    pub fn in_query(
        tables: &'a [SourceTable],
        clause: &'static str,
        cx: &'a BindContext<'a>,
    ) -> Self {
        BindScope {
            query: Some(cx),
            ..BindScope::new(tables, clause, cx.parameters)
        }
    }

    pub fn bind(&self, ast: &ast::Expr) -> Result<Expr> {
        expr::bind(ast, self)
    }

    fn table_column(&self, qualifier: &[String], name: &str) -> Result<Option<ColumnRef>> {
        if qualifier.len() == 1 && qualifier[0] == VALUES_QUALIFIER {
            if let (Some(offset), Some(t)) = (self.values_offset, self.tables.first()) {
                return Ok(column_ref(t, name).map(|mut c| {
                    c.index = c.index - t.offset + offset;
                    c
                }));
            }
            return Ok(None);
        }
        let mut found: Option<ColumnRef> = None;
        for t in self.tables {
            let matches = match qualifier {
                [] => true,
                [table] => *table == t.alias,
                [db, table] => *table == t.alias && *db == t.db,
                _ => false,
            };
            if !matches {
                continue;
            }
            if let Some(c) = column_ref(t, name) {
                if qualifier.is_empty() && t.merged.contains(&(c.index - t.offset)) {
                    continue;
                }
                t.columns.check(
                    &t.table.schema.columns[c.index - t.offset].name,
                    Privileges::SELECT,
                )?;
                if found.is_some() {
                    return Err(Error::new(
                        ErrorCode::NonUniq,
                        format!("Column '{name}' in {} is ambiguous", self.clause),
                    ));
                }
                found = Some(c);
            }
        }
        Ok(found)
    }

    fn alias(&self, qualifier: &[String], name: &str) -> Option<ColumnRef> {
        if !qualifier.is_empty() {
            return None;
        }
        self.aliases
            .iter()
            .find(|a| a.name.eq_ignore_ascii_case(name))
            .map(|a| a.column.clone())
    }
}

fn column_ref(t: &SourceTable, name: &str) -> Option<ColumnRef> {
    Some(t.column_ref(t.table.schema.column_index(name)?))
}

impl Scope for BindScope<'_> {
    fn resolve_column(&self, qualifier: &[String], name: &str) -> Result<Option<ColumnRef>> {
        if self.aliases_first {
            if let Some(c) = self.alias(qualifier, name) {
                return Ok(Some(c));
            }
        }
        if let Some(c) = self.table_column(qualifier, name)? {
            return Ok(Some(c));
        }
        Ok(self.alias(qualifier, name))
    }

    fn resolve_aggregate(&self, function: &ast::Function) -> Result<Option<Expr>> {
        let Some(aggregates) = self.aggregates else {
            return Err(Error::new(
                ErrorCode::InvalidGroupFuncUse,
                "Invalid use of group function",
            ));
        };
        // Arguments see the input row only, and may not nest aggregates.
        let inner = BindScope {
            tables: self.tables,
            clause: self.clause,
            parameters: self.parameters,
            aggregates: None,
            aliases: &[],
            aliases_first: false,
            values_offset: None,
            query: self.query,
            windows: None,
            aggregate_argument: true,
            definition: self.definition,
        };
        let call = expr::bind_aggregate(function, &inner)?;
        let data_type = call.result_type();
        let nullable = call.nullable();
        // JSON_OBJECT embeds JSON_ARRAYAGG's and JSON_OBJECTAGG's results as JSON.
        let holds_json = matches!(
            call.function,
            expr::AggregateFunction::JsonArrayAgg | expr::AggregateFunction::JsonObjectAgg
        );
        let mut calls = aggregates.calls.borrow_mut();
        calls.push(call);
        let index = aggregates.base + calls.len() - 1;
        Ok(Some(Expr::Column(ColumnRef {
            holds_json,
            ..ColumnRef::computed(index, data_type, nullable)
        })))
    }

    fn resolve_window(&self, call: &ast::Function) -> Result<Expr> {
        let Some(windows) = self.windows else {
            return Err(match self.aggregate_argument {
                true => crate::window::in_aggregate(),
                false => crate::window::misplaced(),
            });
        };
        // Arguments and the window see the input row and the query's aggregates (SUM(SUM(x))
        // OVER ()), not select aliases; a window function inside is misplaced (4015), or
        // 4074 inside an aggregate's argument.
        let scope = |aggregate_argument| BindScope {
            tables: self.tables,
            clause: self.clause,
            parameters: self.parameters,
            aggregates: self.aggregates,
            aliases: &[],
            aliases_first: false,
            values_offset: None,
            query: self.query,
            windows: None,
            aggregate_argument,
            definition: self.definition,
        };
        let call = crate::window::bind_call(call, windows, &scope(true), &scope(false))?;
        Ok(windows.push(call))
    }

    fn clause(&self) -> &str {
        self.clause
    }

    fn next_parameter(&self) -> usize {
        self.parameters.next()
    }

    fn parameter_type(&self, index: usize) -> DataType {
        self.parameters.type_of(index)
    }

    fn user_variable_type(&self, name: &str) -> DataType {
        self.parameters.user_variable_type(name)
    }

    fn stored_function(
        &self,
        db: Option<&str>,
        name: &str,
        written: String,
        args: &dyn Fn() -> Result<Vec<Expr>>,
    ) -> Result<Expr> {
        if let Some(of) = self.definition {
            // MariaDB names the function as written, without its arguments, whether or not
            // it exists.
            let name = match db {
                Some(db) => format!("{}.{}", quote_name(db), quote_name(name)),
                None => quote_name(name),
            };
            return Err(Error::not_allowed_in_clause(
                &format!("{name}()"),
                self.clause,
                of,
            ));
        }
        let db = db.or(self.query.and_then(|cx| cx.database));
        match (self.query, db) {
            (Some(cx), Some(db)) => crate::routine::bind_function_call(cx, db, name, written, args),
            _ => Err(expr::no_such_function(db.map(str::to_string), name)),
        }
    }

    fn bind_subquery(&self, query: &ast::Query) -> Result<(Subquery, usize)> {
        let Some(cx) = self.query else {
            return Err(Error::not_supported("subqueries here"));
        };
        let outer = Outer {
            scope: self,
            referenced: Cell::new(false),
        };
        let inner = cx.for_subquery(&outer);
        let plan = crate::select::bind_select(query, &inner)?;
        cx.subquery_tables.borrow_mut().extend(plan.tables);
        let subquery = Subquery {
            plan: Arc::new(plan.plan),
            kind: SubqueryKind::Scalar,
            column_type: plan.columns[0].data_type.clone(),
            holds_json: plan.columns[0].holds_json,
            correlated: outer.referenced.get(),
        };
        Ok((subquery, plan.columns.len()))
    }

    fn refuse_in_definition(&self, what: &str) -> Result<()> {
        match self.definition {
            Some(of) => Err(Error::not_allowed_in_clause(what, self.clause, of)),
            None => Ok(()),
        }
    }

    /// The one table all of MATCH's columns are in (1210 otherwise), a base table with a
    /// FULLTEXT key of exactly those columns in any order (1191 otherwise, a view's
    /// columns included: views are not merged into the query that reads them).
    fn fulltext_key(&self, columns: &[ColumnRef]) -> Result<(Arc<Table>, Vec<usize>)> {
        let source_of = |c: &ColumnRef| {
            self.tables.iter().position(|t| {
                (t.offset..t.offset + t.table.schema.columns.len()).contains(&c.index)
            })
        };
        let Some(source) = columns.first().and_then(source_of) else {
            return Err(expr::fulltext::no_matching_key());
        };
        if columns.iter().any(|c| source_of(c) != Some(source)) {
            return Err(expr::fulltext::wrong_arguments("MATCH"));
        }
        let t = &self.tables[source];
        let positions: Vec<usize> = columns.iter().map(|c| c.index - t.offset).collect();
        let mut wanted = positions.clone();
        wanted.sort_unstable();
        let keyed = t.table.schema.fulltext_indexes.iter().any(|key| {
            let mut have = key.columns.clone();
            have.sort_unstable();
            have == wanted
        });
        if t.derived.is_some() || !keyed {
            return Err(expr::fulltext::no_matching_key());
        }
        Ok((Arc::clone(&t.table), positions))
    }

    /// A query block without tables, not nested in another (the outermost one, a derived
    /// table's, a UNION's part, SET and DO). HAVING and INSERT's VALUES say 1054 in
    /// MariaDB: its HAVING resolves through the select list, its VALUES sees the table.
    fn reaches_no_table(&self) -> bool {
        self.tables.is_empty()
            && self.query.is_some_and(|cx| cx.outer.is_none())
            && !matches!(self.clause, "HAVING" | "VALUES")
    }

    fn resolve_outer(&self, qualifier: &[String], name: &str) -> Result<Option<Expr>> {
        let Some(outer) = self.query.and_then(|cx| cx.outer) else {
            return Ok(None);
        };
        let found = match outer.scope.resolve_column(qualifier, name)? {
            Some(column) => Some(Expr::OuterColumn { depth: 1, column }),
            None => match outer.scope.resolve_outer(qualifier, name)? {
                Some(Expr::OuterColumn { depth, column }) => Some(Expr::OuterColumn {
                    depth: depth + 1,
                    column,
                }),
                other => other,
            },
        };
        if found.is_some() {
            outer.referenced.set(true);
        }
        Ok(found)
    }
}
