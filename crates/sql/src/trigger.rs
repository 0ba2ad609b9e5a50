//! Triggers: CREATE/DROP TRIGGER, and the bodies that INSERT, UPDATE and DELETE fire.
//!
//! A trigger is stored in the catalog as its body's text (`storage::TriggerSchema`), in
//! creation order, logged and checkpointed like a view. A write statement binds the
//! triggers of its table and event with its own plan (`bind`), so a body is parsed and
//! bound once per catalog version (plan cache invariant (2)), not per row; a table
//! without triggers costs one emptiness check per bind and nothing per row (the bound
//! lists are empty `Vec`s, which do not allocate).
//!
//! A body is one statement or `BEGIN ... END` around a list of them. Each `NEW.col` and
//! `OLD.col` in a statement becomes a `?` parameter (`RowRef` says which cell fills it),
//! so a body statement binds and runs as a prepared statement does.
//!
//! Invariants:
//! (1) A body statement runs inside the firing statement's transaction, with its
//!     interrupt and session: an error in it fails the firing statement, which the
//!     session undoes whole (statement atomicity), and nothing after it runs.
//! (2) Rows written by a body do not count in the firing statement's affected rows and do
//!     not set LAST_INSERT_ID: a body's outcome is dropped.
//! (3) A trigger statement writing a table the firing statement (or a trigger further
//!     out) writes binds as `Step::Refused`: 1442 when it runs, as in MariaDB. This also
//!     ends the binding of trigger cycles.
//!
//! Not built yet: IF/ELSEIF/ELSE, DECLARE and other compound statements (1235), FOLLOWS
//! and PRECEDES (1235), SIGNAL with an SQLSTATE other than '45000' or with items other
//! than MESSAGE_TEXT (1235), the UPDATE triggers of ON DUPLICATE KEY UPDATE and the DELETE
//! triggers of REPLACE (`dml::bind_insert` refuses such a statement with 1235), and a
//! creation time (information_schema.TRIGGERS.CREATED is NULL). Body statements are bound
//! with the invoker's privileges, not the definer's; CREATE/DROP TRIGGER check ALTER on
//! the table (the TRIGGER privilege is not modelled).

use crate::dml::{self, DeletePlan, InsertPlan, UpdatePlan};
use crate::error::{Error, ErrorCode, Result};
use crate::expr::{self, EvalContext, Expr};
use crate::parse::{self, Statement};
use crate::scope::{BindScope, Parameters, SourceTable};
use crate::select::BindContext;
use manycore_storage::{Table, Transaction, TriggerSchema};
use manycore_types::{DataType, Value};
use sqlparser::ast::{self, VisitMut, VisitorMut};
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;
use std::cell::RefCell;
use std::ops::ControlFlow;
use std::sync::Arc;

/// CREATE [OR REPLACE] [DEFINER = ...] TRIGGER [IF NOT EXISTS] name timing event ON table
/// FOR EACH ROW [FOLLOWS | PRECEDES other] body.
#[derive(Clone, Debug)]
pub struct TriggerStatement {
    pub or_replace: bool,
    pub if_not_exists: bool,
    pub definer: Option<String>,
    pub name: ast::ObjectName,
    pub timing: String,
    pub event: String,
    pub table: ast::ObjectName,
    /// FOLLOWS or PRECEDES, which are not built yet.
    pub ordering: Option<String>,
    /// The body as written (without a trailing `;`).
    pub body: String,
}

/// Reads a CREATE TRIGGER after its TRIGGER keyword.
pub(crate) fn parse_create(
    parser: &mut Parser,
    text: &str,
    or_replace: bool,
    definer: Option<String>,
) -> std::result::Result<Statement, ParserError> {
    let if_not_exists = parser.parse_keywords(&[
        sqlparser::keywords::Keyword::IF,
        sqlparser::keywords::Keyword::NOT,
        sqlparser::keywords::Keyword::EXISTS,
    ]);
    let name = parser.parse_object_name(false)?;
    let timing = one_of(parser, &["BEFORE", "AFTER"])?;
    let event = one_of(parser, &["INSERT", "UPDATE", "DELETE"])?;
    one_of(parser, &["ON"])?;
    let table = parser.parse_object_name(false)?;
    for w in ["FOR", "EACH", "ROW"] {
        one_of(parser, &[w])?;
    }
    let ordering = match parse::word(&parser.peek_token()).as_deref() {
        Some(w @ ("FOLLOWS" | "PRECEDES")) => {
            let w = w.to_string();
            parser.next_token();
            parser.parse_identifier()?;
            Some(w)
        }
        _ => None,
    };
    let at = parser.peek_token().span.start;
    if parser.peek_token().token == Token::EOF {
        return Err(ParserError::ParserError("Expected: a trigger body".into()));
    }
    let start = parse::offset_of(text, at.line as usize, at.column as usize);
    let body = text[start..]
        .trim()
        .trim_end_matches(';')
        .trim_end()
        .to_string();
    Ok(Statement::CreateTrigger(Box::new(TriggerStatement {
        or_replace,
        if_not_exists,
        definer,
        name,
        timing,
        event,
        table,
        ordering,
        body,
    })))
}

/// Reads `DROP TRIGGER [IF EXISTS] name`.
pub(crate) fn parse_drop(parser: &mut Parser) -> std::result::Result<Statement, ParserError> {
    parser.next_token();
    parser.next_token();
    let if_exists = parser.parse_keywords(&[
        sqlparser::keywords::Keyword::IF,
        sqlparser::keywords::Keyword::EXISTS,
    ]);
    let name = parser.parse_object_name(false)?;
    if parser.peek_token().token != Token::EOF {
        return parser.expected("end of statement", parser.peek_token());
    }
    Ok(Statement::DropTrigger { name, if_exists })
}

fn one_of(parser: &mut Parser, words: &[&str]) -> std::result::Result<String, ParserError> {
    let token = parser.peek_token();
    match parse::word(&token) {
        Some(w) if words.contains(&w.as_str()) => {
            parser.next_token();
            Ok(w)
        }
        _ => parser.expected(&words.join(" or "), token),
    }
}

/// The statement that creates `trigger`, as SHOW CREATE TRIGGER and mariadb-dump print it.
pub fn create_text(trigger: &TriggerSchema) -> String {
    use crate::view::{quote_definer, quote_name};
    format!(
        "CREATE DEFINER={} TRIGGER {} {} {} ON {} FOR EACH ROW {}",
        quote_definer(&trigger.definer),
        quote_name(&trigger.name),
        trigger.timing,
        trigger.event,
        quote_name(&trigger.table),
        trigger.body
    )
}

/// One statement of a body, parsed.
#[derive(Clone, Debug)]
enum BodyStatement {
    Sql(Box<ast::Statement>),
    /// SIGNAL SQLSTATE '45000' [SET MESSAGE_TEXT = expr].
    Signal {
        message: Option<Box<ast::Expr>>,
    },
}

/// The statements of a body: one, or those between BEGIN and END.
fn parse_body(body: &str) -> Result<Vec<(BodyStatement, String)>> {
    let upper = body.to_ascii_uppercase();
    let inner = match upper.strip_prefix("BEGIN") {
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_whitespace()) => {
            let trimmed = upper.trim_end();
            if !trimmed.ends_with("END")
                || !trimmed[..trimmed.len() - 3].ends_with(|c: char| c.is_whitespace() || c == ';')
            {
                return Err(Error::parse_near("", 1));
            }
            &body[5..trimmed.len() - 3]
        }
        _ => body,
    };
    let mut statements = Vec::new();
    for piece in crate::split::split(inner) {
        let text = piece.text.trim().to_string();
        let statement = match first_word(&text).as_deref() {
            Some("SIGNAL") => parse_signal(&text)?,
            Some("BEGIN" | "IF" | "DECLARE" | "CASE" | "WHILE" | "LOOP" | "REPEAT" | "CALL") => {
                return Err(Error::not_supported(
                    "compound statements in a trigger body (IF, DECLARE, ...)",
                ))
            }
            _ => match parse::parse(&text, piece.line)? {
                Statement::Sql(s) => BodyStatement::Sql(s),
                Statement::Sets(_) => {
                    return Err(Error::not_supported("SET with several items in a trigger"))
                }
                _ => return Err(Error::not_supported("this statement in a trigger body")),
            },
        };
        statements.push((statement, text));
    }
    Ok(statements)
}

fn first_word(text: &str) -> Option<String> {
    let word: String = text
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (!word.is_empty()).then(|| word.to_ascii_uppercase())
}

fn parse_signal(text: &str) -> Result<BodyStatement> {
    let fail = |e: ParserError| parse::parse_error(text, 1, &e);
    let mut parser = Parser::new(&parse::DIALECT)
        .try_with_sql(text)
        .map_err(fail)?;
    parser.next_token();
    one_of(&mut parser, &["SQLSTATE"]).map_err(fail)?;
    if parse::word(&parser.peek_token()).as_deref() == Some("VALUE") {
        parser.next_token();
    }
    let state = parser.parse_literal_string().map_err(fail)?;
    if state != "45000" {
        return Err(Error::not_supported(
            "SIGNAL with an SQLSTATE other than '45000'",
        ));
    }
    let mut message = None;
    if parse::word(&parser.peek_token()).as_deref() == Some("SET") {
        parser.next_token();
        one_of(&mut parser, &["MESSAGE_TEXT"]).map_err(fail)?;
        parser.expect_token(&Token::Eq).map_err(fail)?;
        message = Some(Box::new(parser.parse_expr().map_err(fail)?));
    }
    if parser.peek_token().token != Token::EOF {
        return Err(Error::not_supported("SIGNAL items other than MESSAGE_TEXT"));
    }
    Ok(BodyStatement::Signal { message })
}

/// Which row a `NEW.col` / `OLD.col` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RowRef {
    New(usize),
    Old(usize),
}

/// A body statement, bound; each carries the row cells its `?` parameters take.
#[derive(Clone)]
enum Step {
    SetNew {
        column: usize,
        value: Expr,
    },
    SetUser {
        name: String,
        value: Expr,
    },
    Signal {
        message: Option<Expr>,
    },
    Insert(Box<InsertPlan>),
    Update(Box<UpdatePlan>),
    Delete(Box<DeletePlan>),
    /// A write of a table the firing statement writes: 1442 when it runs (invariant (3)).
    Refused(Box<Error>),
}

#[derive(Clone)]
pub struct BoundTrigger {
    steps: Vec<(Step, Vec<RowRef>)>,
    /// The firing table's database, for the names in 1366 messages of SET NEW.
    db: String,
    table: Arc<Table>,
}

/// The triggers a write statement fires, in firing order; empty for most tables.
#[derive(Clone, Default)]
pub struct Triggers {
    pub before: Vec<BoundTrigger>,
    pub after: Vec<BoundTrigger>,
}

impl Triggers {
    pub fn is_empty(&self) -> bool {
        self.before.is_empty() && self.after.is_empty()
    }
}

/// The event a write fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    Insert,
    Update,
    Delete,
}

impl Event {
    fn word(self) -> &'static str {
        match self {
            Event::Insert => "INSERT",
            Event::Update => "UPDATE",
            Event::Delete => "DELETE",
        }
    }
}

thread_local! {
    /// The tables whose triggers are being bound on this thread, outermost first: a body
    /// writing one of them is 1442 (invariant (3)), which also ends trigger cycles.
    static WRITING: RefCell<Vec<(String, String)>> = const { RefCell::new(Vec::new()) };
}

/// Checks that a statement may write `db`.`table` (not a table a statement firing it
/// writes: invariant (3)) and binds the triggers of `event` on it.
pub fn bind(cx: &BindContext, db: &str, table: &Arc<Table>, event: Event) -> Result<Triggers> {
    let name = &table.schema.name;
    let key = (db.to_string(), name.clone());
    if WRITING.with(|w| w.borrow().contains(&key)) {
        return Err(Error::new(
            ErrorCode::CantUpdateUsedTableInSfOrTrg,
            format!(
                "Can't update table '{name}' in stored function/trigger because it is \
                 already used by statement which invoked this stored function/trigger"
            ),
        ));
    }
    let Some(database) = cx.catalog.databases.get(db) else {
        return Ok(Triggers::default());
    };
    if database.triggers.is_empty() {
        return Ok(Triggers::default());
    }
    let mut bound = Triggers::default();
    WRITING.with(|w| w.borrow_mut().push(key));
    let result = (|| {
        for schema in database
            .triggers
            .iter()
            .filter(|t| t.table == *name && t.event == event.word())
        {
            let trigger = bind_one(cx, db, table, schema)?;
            match schema.timing.as_str() {
                "BEFORE" => bound.before.push(trigger),
                _ => bound.after.push(trigger),
            }
        }
        Ok(())
    })();
    WRITING.with(|w| w.borrow_mut().pop());
    result.map(|()| bound)
}

fn bind_one(
    cx: &BindContext,
    db: &str,
    table: &Arc<Table>,
    schema: &TriggerSchema,
) -> Result<BoundTrigger> {
    let mut steps = Vec::new();
    for (statement, text) in parse_body(&schema.body)? {
        steps.push(bind_statement(cx, db, table, schema, statement, &text)?);
    }
    Ok(BoundTrigger {
        steps,
        db: db.to_string(),
        table: table.clone(),
    })
}

/// Replaces `NEW.col` and `OLD.col` by `?`, collecting which cell each one reads.
struct RowRefs<'a> {
    table: &'a Table,
    event: &'a str,
    refs: Vec<RowRef>,
    error: Option<Error>,
}

impl VisitorMut for RowRefs<'_> {
    type Break = ();

    fn pre_visit_expr(&mut self, e: &mut ast::Expr) -> ControlFlow<()> {
        let ast::Expr::CompoundIdentifier(parts) = e else {
            return ControlFlow::Continue(());
        };
        let [row, column] = parts.as_slice() else {
            return ControlFlow::Continue(());
        };
        let side = row.value.to_ascii_uppercase();
        if side != "NEW" && side != "OLD" {
            return ControlFlow::Continue(());
        }
        match self.resolve(&side, &column.value) {
            Ok(r) => {
                self.refs.push(r);
                *e = ast::Expr::value(ast::Value::Placeholder("?".into()));
                ControlFlow::Continue(())
            }
            Err(error) => {
                self.error = Some(error);
                ControlFlow::Break(())
            }
        }
    }
}

impl RowRefs<'_> {
    fn resolve(&self, side: &str, column: &str) -> Result<RowRef> {
        if matches!((side, self.event), ("NEW", "DELETE") | ("OLD", "INSERT")) {
            return Err(no_such_row(side, self.event));
        }
        let Some(i) = self
            .table
            .schema
            .columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(column))
        else {
            return Err(Error::new(
                ErrorCode::BadField,
                format!("Unknown column '{column}' in '{side}'"),
            ));
        };
        Ok(if side == "NEW" {
            RowRef::New(i)
        } else {
            RowRef::Old(i)
        })
    }

    fn types(&self) -> Vec<DataType> {
        self.refs
            .iter()
            .map(|r| {
                let (RowRef::New(i) | RowRef::Old(i)) = *r;
                self.table.schema.columns[i].data_type.clone()
            })
            .collect()
    }
}

fn no_such_row(side: &str, event: &str) -> Error {
    Error::new(
        ErrorCode::TrgNoSuchRowInTrg,
        format!("There is no {side} row in on {event} trigger"),
    )
}

fn bind_statement(
    cx: &BindContext,
    db: &str,
    table: &Arc<Table>,
    schema: &TriggerSchema,
    statement: BodyStatement,
    text: &str,
) -> Result<(Step, Vec<RowRef>)> {
    let mut refs = RowRefs {
        table,
        event: &schema.event,
        refs: Vec::new(),
        error: None,
    };
    let bind_expr = |e: &ast::Expr, refs: &RowRefs| -> Result<Expr> {
        let parameters = Parameters::typed(refs.types());
        let no_tables: [SourceTable; 0] = [];
        BindScope::new(&no_tables, "SET", &parameters).bind(e)
    };
    let step = match statement {
        BodyStatement::Signal { mut message } => {
            if let Some(m) = &mut message {
                let _ = m.as_mut().visit(&mut refs);
            }
            if let Some(e) = refs.error.take() {
                return Err(e);
            }
            let message = message.map(|m| bind_expr(&m, &refs)).transpose()?;
            Step::Signal { message }
        }
        BodyStatement::Sql(mut statement) => {
            // `SET NEW.col = ...` names the target as NEW.col: taken apart before the
            // visitor replaces it.
            if let ast::Statement::Set(ast::Set::SingleAssignment {
                variable, values, ..
            }) = statement.as_mut()
            {
                let target: Vec<String> =
                    variable.0.iter().map(|p| p.to_string()).collect::<Vec<_>>();
                let [value] = values.as_mut_slice() else {
                    return Err(Error::not_supported("SET of several values in a trigger"));
                };
                let _ = value.visit(&mut refs);
                if let Some(e) = refs.error.take() {
                    return Err(e);
                }
                let bound = bind_expr(value, &refs)?;
                let step = match target.as_slice() {
                    [row, column] if row.eq_ignore_ascii_case("NEW") => {
                        if schema.timing == "AFTER" {
                            return Err(Error::new(
                                ErrorCode::TrgCantChangeRow,
                                "Updating of NEW row is not allowed in after trigger",
                            ));
                        }
                        let RowRef::New(column) = refs.resolve("NEW", column)? else {
                            unreachable!("NEW resolves to the new row");
                        };
                        Step::SetNew {
                            column,
                            value: bound,
                        }
                    }
                    [row, _] if row.eq_ignore_ascii_case("OLD") => {
                        return Err(Error::new(
                            ErrorCode::TrgCantChangeRow,
                            "Updating of OLD row is not allowed in trigger",
                        ))
                    }
                    [name] if name.starts_with('@') && !name.starts_with("@@") => Step::SetUser {
                        name: name[1..].to_string(),
                        value: bound,
                    },
                    _ => return Err(Error::not_supported("this SET in a trigger body")),
                };
                return Ok((step, refs.refs));
            }
            let _ = statement.visit(&mut refs);
            if let Some(e) = refs.error.take() {
                return Err(e);
            }
            let parameters = Parameters::typed(refs.types());
            let inner = BindContext {
                catalog: cx.catalog,
                database: Some(db),
                text,
                parameters: &parameters,
                access: cx.access,
                outer: None,
                subquery_tables: RefCell::new(Vec::new()),
                ctes: None,
            };
            let bound = match *statement {
                ast::Statement::Insert(i) => {
                    dml::bind_insert(&i, &inner).map(|p| Step::Insert(Box::new(p)))
                }
                ast::Statement::Update(u) => {
                    dml::bind_update(&u, &inner).map(|p| Step::Update(Box::new(p)))
                }
                ast::Statement::Delete(d) => {
                    dml::bind_delete(&d, &inner).map(|p| Step::Delete(Box::new(p)))
                }
                _ => return Err(Error::not_supported("this statement in a trigger body")),
            };
            match bound {
                Err(e) if e.code == ErrorCode::CantUpdateUsedTableInSfOrTrg => {
                    Step::Refused(Box::new(e))
                }
                other => other?,
            }
        }
    };
    Ok((step, refs.refs))
}

/// Checks a CREATE TRIGGER's body as MariaDB does when it is created (1363, 1362, 1235
/// for what is not built), by binding it against its table.
pub fn validate(
    cx: &BindContext,
    db: &str,
    table: &Arc<Table>,
    schema: &TriggerSchema,
) -> Result<()> {
    bind_one(cx, db, table, schema).map(drop)
}

/// Runs `triggers` for one row: `old` is the row before the write (UPDATE, DELETE), `new`
/// the row to write (INSERT, UPDATE), which BEFORE triggers may change.
pub fn fire(
    triggers: &[BoundTrigger],
    old: Option<&[Value]>,
    mut new: Option<&mut Vec<Value>>,
    txn: &mut Transaction,
    session: &dyn expr::SessionContext,
    interrupt: &crate::engine::ProcessEntry,
) -> Result<()> {
    for trigger in triggers {
        for (step, refs) in &trigger.steps {
            let params: Vec<Value> = refs
                .iter()
                .map(|r| match *r {
                    RowRef::New(i) => new.as_deref().map_or(Value::Null, |row| row[i].clone()),
                    RowRef::Old(i) => old.map_or(Value::Null, |row| row[i].clone()),
                })
                .collect();
            let eval = EvalContext::new(&params, session);
            match step {
                Step::SetNew { column, value } => {
                    let value = value.eval(&[], &eval)?;
                    let c = &trigger.table.schema.columns[*column];
                    let name = || dml::qualified(&trigger.db, &trigger.table, c);
                    let stored = dml::store(value, c, &name, 1, session.strict(), true, session)?;
                    if let Some(row) = new.as_deref_mut() {
                        row[*column] = stored;
                    }
                }
                Step::SetUser { name, value } => {
                    let value = value.eval(&[], &eval)?;
                    session.set_user_variable(name, value);
                }
                Step::Signal { message } => {
                    let text = match message {
                        Some(m) => {
                            manycore_types::format::to_text(&m.eval(&[], &eval)?, &m.data_type())
                        }
                        None => "Unhandled user-defined exception condition".to_string(),
                    };
                    return Err(Error::new(ErrorCode::SignalException, text));
                }
                // A body's outcome is dropped (invariant (2)).
                Step::Insert(plan) => {
                    dml::execute_insert(plan, txn, &params, session, interrupt, false)?;
                }
                Step::Update(plan) => {
                    dml::execute_update(plan, txn, &params, session, interrupt)?;
                }
                Step::Delete(plan) => {
                    dml::execute_delete(plan, txn, &params, session, interrupt)?;
                }
                Step::Refused(e) => return Err(Error::clone(e)),
            }
        }
    }
    Ok(())
}
