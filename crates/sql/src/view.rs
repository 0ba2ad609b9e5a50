//! Views: `CREATE [OR REPLACE] [ALGORITHM=...] [DEFINER=...] [SQL SECURITY ...] VIEW name
//! [(columns)] AS query [WITH [CASCADED|LOCAL] CHECK OPTION]`, `ALTER VIEW`, and reading a
//! view as a FROM source.
//!
//! A view is stored in the catalog as its query's text (`storage::ViewSchema`), logged and
//! checkpointed like a table's schema, and bound each time a statement names it: as a
//! derived table (join invariant (6)) whose query binds in the view's database, seeing no
//! CTE or row of the statement. Its columns are the query's, renamed by the column list.
//!
//! Invariants:
//! (1) CREATE and ALTER bind the query first, so a stored view was valid when stored;
//!     when it no longer binds (a table or column it reads is gone) reading it is 1356
//!     naming the outermost view, as MariaDB.
//! (2) Views nest at most `NESTING_MAX` deep: a cycle (possible through CREATE OR REPLACE)
//!     is error 1462, never a stack overflow.
//! (3) A SQL SECURITY DEFINER view (the default) binds its query with its definer's
//!     privileges (`routine::Definer`; 1449 if the account is gone), an INVOKER view
//!     with those of the statement reading it; what the query may not read is 1356.
//!     Reading the view itself needs SELECT on it, checked where it is named.
//!
//! What differs from MariaDB (docs: README, ARCHITECTURE "What is not built yet"):
//! SHOW CREATE VIEW and information_schema.VIEWS show the query as written, not
//! MariaDB's rewritten text; CURRENT_USER() in a DEFINER view is the invoker, not the
//! definer; INSERT, UPDATE and DELETE through a view are error 1235. SHOW CREATE VIEW
//! needs SELECT and SHOW VIEW on the view, as in MariaDB (`session::views`).

use crate::error::{Error, ErrorCode, Result};
use crate::parse::Statement;
use crate::privilege::AccessCheck;
use crate::routine;
use crate::scope::Parameters;
use crate::select::{self, BindContext, SelectPlan};
use crate::sink::ColumnInfo;
use crate::temporary::TemporaryTables;
use manycore_storage::ViewSchema;
use sqlparser::ast;
use std::cell::Cell;

/// How deep views may read views (invariant (2)).
const NESTING_MAX: usize = 64;

thread_local! {
    // Views being bound on this thread, for invariant (2).
    static NESTING: Cell<usize> = const { Cell::new(0) };
}

/// A parsed CREATE VIEW or ALTER VIEW.
#[derive(Clone, Debug)]
pub struct ViewStatement {
    pub alter: bool,
    pub or_replace: bool,
    pub algorithm: Option<String>,
    /// As written, quotes removed (`root@localhost`); CURRENT_USER is resolved later.
    pub definer: Option<String>,
    pub security: Option<String>,
    pub name: ast::ObjectName,
    pub columns: Vec<String>,
    /// The query's text.
    pub query: String,
    pub check_option: Option<String>,
}

/// The view's definition as SHOW CREATE VIEW prints it.
pub fn create_text(view: &ViewSchema) -> String {
    let quote = |s: &str| quote_name(s);
    let definer = quote_definer(&view.definer);
    let mut text = format!(
        "CREATE ALGORITHM={} DEFINER={definer} SQL SECURITY {} VIEW {}",
        view.algorithm,
        view.security,
        quote(&view.name)
    );
    if !view.columns.is_empty() {
        let columns: Vec<String> = view.columns.iter().map(|c| quote(c)).collect();
        text.push_str(&format!(" ({})", columns.join(",")));
    }
    text.push_str(" AS ");
    text.push_str(&view.query);
    if view.check_option != "NONE" {
        text.push_str(&format!(" WITH {} CHECK OPTION", view.check_option));
    }
    text
}

/// A name in backticks, as SHOW CREATE prints it.
pub fn quote_name(s: &str) -> String {
    format!("`{}`", s.replace('`', "``"))
}

/// A DEFINER kept as `user@host`, as SHOW CREATE VIEW and TRIGGER print it.
pub fn quote_definer(definer: &str) -> String {
    match definer.rsplit_once('@') {
        Some((user, host)) => format!("{}@{}", quote_name(user), quote_name(host)),
        None => quote_name(definer),
    }
}

/// The view `[db.]name` names, if there is one (its database, and it).
pub fn find(cx: &BindContext, name: &ast::ObjectName) -> Result<Option<(String, ViewSchemaRef)>> {
    let (db, view) = crate::ddl::split_name(name)?;
    let Some(db) = db.or_else(|| cx.database.map(str::to_string)) else {
        return Ok(None);
    };
    if cx.temporary.get(&db, &view).is_some() {
        return Ok(None); // It hides the view (`temporary` invariant (2)).
    }
    Ok(cx.catalog.view(&db, &view).map(|v| (db, v.clone())))
}

pub type ViewSchemaRef = std::sync::Arc<ViewSchema>;

/// Binds the query of view `db.view` as the statement `cx` reads it (module notes).
pub fn bind(cx: &BindContext, db: &str, view: &ViewSchema) -> Result<SelectPlan> {
    let depth = NESTING.with(|n| n.get());
    if depth >= NESTING_MAX {
        return Err(Error::new(
            ErrorCode::ViewRecursive,
            format!("`{db}`.`{}` contains view recursion", view.name),
        ));
    }
    NESTING.with(|n| n.set(depth + 1));
    let bound = bind_query(cx, db, view);
    NESTING.with(|n| n.set(depth));
    bound.map_err(|mut e| match e.code {
        ErrorCode::NoSuchTable
        | ErrorCode::BadField
        | ErrorCode::SpDoesNotExist
        | ErrorCode::ViewInvalid
        | ErrorCode::TableAccessDenied
        | ErrorCode::ColumnAccessDenied => {
            // An inner view's 1356 passes on what made it invalid.
            let cause = e.cause.take().unwrap_or_else(|| Box::new(e));
            Error {
                cause: Some(cause),
                ..Error::new(
                    ErrorCode::ViewInvalid,
                    format!(
                        "View '{db}.{}' references invalid table(s) or column(s) or \
                         function(s) or definer/invoker of view lack rights to use them",
                        view.name
                    ),
                )
            }
        }
        _ => e,
    })
}

/// CHECK TABLE of a view: binds its query in its database, as a statement reading the
/// view would (MariaDB opens the view to check it).
pub fn check(
    catalog: &manycore_storage::Catalog,
    access: AccessCheck<'_>,
    db: &str,
    view: &ViewSchema,
) -> Result<()> {
    let parameters = Parameters::untyped();
    let cx = BindContext {
        catalog,
        database: Some(db),
        text: &view.query,
        parameters: &parameters,
        access,
        outer: None,
        subquery_tables: Default::default(),
        ctes: None,
        calling: &[],
        temporary: TemporaryTables::NONE,
    };
    bind(&cx, db, view).map(|_| ())
}

fn bind_query(cx: &BindContext, db: &str, view: &ViewSchema) -> Result<SelectPlan> {
    let query = parse_query(&view.query)?;
    let definer = match view.security.eq_ignore_ascii_case("INVOKER") {
        true => None,
        false => Some(routine::Definer::resolve(cx, &view.definer)?),
    };
    let inner = BindContext {
        catalog: cx.catalog,
        database: Some(db),
        text: &view.query,
        parameters: cx.parameters,
        access: definer.as_ref().map_or(cx.access, routine::Definer::access),
        outer: None,
        subquery_tables: Default::default(),
        ctes: None,
        calling: cx.calling,
        // A view reads the catalog's tables, whichever session reads it.
        temporary: TemporaryTables::NONE,
    };
    let mut plan = select::bind_select(&query, &inner)?;
    rename_columns(&mut plan, &view.columns)?;
    Ok(plan)
}

/// The query of a view's text.
pub fn parse_query(text: &str) -> Result<Box<ast::Query>> {
    match crate::parse::parse(text, 1)? {
        Statement::Sql(statement) => match *statement {
            ast::Statement::Query(query) => Ok(query),
            _ => Err(Error::parse_near(text, 1)),
        },
        _ => Err(Error::parse_near(text, 1)),
    }
}

/// Renames the query's columns by the view's column list (1353 on a count mismatch).
pub fn rename_columns(plan: &mut SelectPlan, names: &[String]) -> Result<()> {
    if names.is_empty() {
        return Ok(());
    }
    if names.len() != plan.columns.len() {
        return Err(Error::new(
            ErrorCode::ViewWrongList,
            "View's SELECT and view's field list have different column counts",
        ));
    }
    let mut columns: Vec<ColumnInfo> = plan.columns.iter().cloned().collect();
    for (column, name) in columns.iter_mut().zip(names) {
        column.name = name.clone();
    }
    plan.columns = columns.into();
    Ok(())
}

/// The view's result columns (for DESCRIBE / SHOW COLUMNS), as a table without rows.
pub fn columns_table(
    cx: &BindContext,
    db: &str,
    view: &ViewSchema,
) -> Result<manycore_storage::Table> {
    let plan = bind(cx, db, view)?;
    crate::join::derived_table(&view.name, &plan.columns)
}

/// Whether MariaDB would call the view updatable, as far as its text tells: one query
/// block reading tables or views only (joins too), without DISTINCT, GROUP BY, HAVING,
/// an aggregate in the select list, LIMIT or WITH. WITH CHECK OPTION needs it (1368);
/// information_schema.VIEWS.IS_UPDATABLE shows it.
pub fn updatable(query: &ast::Query) -> bool {
    let ast::SetExpr::Select(select) = query.body.as_ref() else {
        return false;
    };
    let named = |factor: &ast::TableFactor| matches!(factor, ast::TableFactor::Table { .. });
    let tables_only = !select.from.is_empty()
        && select
            .from
            .iter()
            .all(|t| named(&t.relation) && t.joins.iter().all(|j| named(&j.relation)));
    let grouped = !matches!(&select.group_by, ast::GroupByExpr::Expressions(e, _) if e.is_empty());
    let aggregates = select.projection.iter().any(|item| match item {
        ast::SelectItem::UnnamedExpr(ast::Expr::Function(call))
        | ast::SelectItem::ExprWithAlias {
            expr: ast::Expr::Function(call),
            ..
        } => crate::expr::is_aggregate(call),
        _ => false,
    });
    tables_only
        && select.distinct.is_none()
        && !grouped
        && select.having.is_none()
        && !aggregates
        && query.limit_clause.is_none()
        && query.with.is_none()
}
