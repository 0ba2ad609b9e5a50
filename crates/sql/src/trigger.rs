//! Triggers: CREATE/DROP TRIGGER, and the bodies that INSERT, UPDATE and DELETE fire.
//!
//! A trigger is stored in the catalog as its body's text (`storage::TriggerSchema`), in
//! firing order (creation order, or where FOLLOWS / PRECEDES placed it:
//! `storage::TriggerPlace`), logged and checkpointed like a view. A write statement binds
//! the triggers of its table and event with its own plan (`bind`), so a body is parsed and
//! bound once per catalog version (plan cache invariant (2)), not per row; a table
//! without triggers costs one emptiness check per bind and nothing per row (the bound
//! lists are empty `Vec`s, which do not allocate).
//!
//! A body is a compound statement (`compound`: BEGIN ... END, IF, CASE, loops, DECLARE,
//! SET, SELECT ... INTO, SIGNAL) or one SQL statement. Each `NEW.col` and `OLD.col` in it
//! becomes a `?` parameter (`compound::Ref` says which cell fills it), so a body statement
//! binds and runs as a prepared statement does.
//!
//! Invariants:
//! (1) A body statement runs inside the firing statement's transaction, with its
//!     interrupt and session: an error in it fails the firing statement, which the
//!     session undoes whole (statement atomicity), and nothing after it runs.
//! (2) Rows written by a body do not count in the firing statement's affected rows and do
//!     not set LAST_INSERT_ID: a body's outcome is dropped.
//! (3) A trigger statement writing a table the firing statement (or a trigger further
//!     out) writes or reads binds as a step failing with 1442 when it runs, as in MariaDB
//!     (`compound` invariant (7)). This
//!     also ends the binding of trigger cycles.
//!
//! (4) A trigger fires as its definer, as in MariaDB: its body binds with the definer's
//!     privileges (`routine::Definer`) and CURRENT_USER() in it is the definer. If the
//!     definer no longer exists (1449) or does not hold TRIGGER on the table (1142 naming
//!     the definer), the statement fails when the trigger would fire; a statement that
//!     fires it on no row succeeds. CREATE and DROP TRIGGER need TRIGGER on the table, and
//!     only a session holding it sees the table's triggers (information_schema.TRIGGERS,
//!     SHOW TRIGGERS, SHOW CREATE TRIGGER: 1227).
//!
//! Not built yet: cursors, RESIGNAL and the other parts of the stored-program grammar
//! `compound` lists (1235), and a creation time (information_schema.TRIGGERS.CREATED is
//! NULL). The definer's column privileges on the NEW and OLD columns a body reads or sets
//! are not checked (MariaDB's 1143), and bodies run under the session's sql_mode, not the
//! one recorded at CREATE. REPLACE fires the DELETE triggers of each row it deletes and
//! ON DUPLICATE KEY UPDATE the UPDATE triggers of the row it updates
//! (`dml::InsertPlan::conflict_triggers`).

use crate::compound;
use crate::error::{Error, ErrorCode, Result};
use crate::expr;
use crate::parse::{self, Statement};
use crate::privilege::Privileges;
use crate::routine;
use crate::scope::Parameters;
use crate::select::BindContext;
use manycore_storage::{Database, Table, Transaction, TriggerPlace, TriggerSchema};
use manycore_types::Value;
use sqlparser::ast;
use sqlparser::parser::{Parser, ParserError};
use std::cell::RefCell;
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
    /// FOLLOWS or PRECEDES another trigger of the same table, timing and event.
    pub ordering: Option<TriggerPlace>,
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
            let follows = w == "FOLLOWS";
            parser.next_token();
            let other = parser.parse_identifier()?.value;
            Some(match follows {
                true => TriggerPlace::Follows(other),
                false => TriggerPlace::Precedes(other),
            })
        }
        _ => None,
    };
    let body = parse::body_as_written(parser, text, "a trigger body")?;
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
    let (name, if_exists) = parse::parse_drop_object(parser)?;
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

#[derive(Clone)]
pub struct BoundTrigger {
    /// The body bound with its definer's privileges, or why it may not fire (invariant
    /// (4)).
    body: Result<compound::Body>,
    /// Its definer's `user@host`, CURRENT_USER() in the body.
    definer: Arc<str>,
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
    /// The tables the statements whose triggers are being bound on this thread use
    /// (write or read), outermost first: a body writing one of them is 1442 (invariant
    /// (3)), which also ends trigger cycles. Compared by identity: one bind reads one
    /// catalog version.
    static USED: RefCell<Vec<Arc<Table>>> = const { RefCell::new(Vec::new()) };
}

/// The triggers of `database` on `table` for `event`, in firing order.
fn triggers_of<'a>(
    database: &'a Database,
    table: &'a str,
    event: Event,
) -> impl Iterator<Item = &'a Arc<TriggerSchema>> {
    database
        .triggers
        .iter()
        .filter(move |t| t.table == table && t.event == event.word())
}

/// Checks that a statement may write `db`.`table` and binds the triggers of `event` on it.
/// `read` holds the other tables the statement reads (its subqueries', an INSERT's
/// SELECT's), which its triggers may not write either.
pub fn bind(
    cx: &BindContext,
    db: &str,
    table: &Arc<Table>,
    read: &[Arc<Table>],
    event: Event,
) -> Result<Triggers> {
    let mut each = bind_each(cx, &[(db, table)], read, event)?;
    Ok(each.pop().unwrap_or_default())
}

/// `bind` for a statement writing several `targets` (database, table): the triggers of
/// each, in `targets`' order.
pub fn bind_each(
    cx: &BindContext,
    targets: &[(&str, &Arc<Table>)],
    read: &[Arc<Table>],
    event: Event,
) -> Result<Vec<Triggers>> {
    for (_, table) in targets {
        if USED.with(|u| u.borrow().iter().any(|t| Arc::ptr_eq(t, table))) {
            let name = &table.schema.name;
            return Err(Error::new(
                ErrorCode::CantUpdateUsedTableInSfOrTrg,
                format!(
                    "Can't update table '{name}' in stored function/trigger because it is \
                     already used by statement which invoked this stored function/trigger"
                ),
            ));
        }
    }
    let mut bound = vec![Triggers::default(); targets.len()];
    let database_of = |db: &str| cx.catalog.databases.get(db);
    let fires = |&(db, table): &(&str, &Arc<Table>)| {
        database_of(db).is_some_and(|d| triggers_of(d, &table.schema.name, event).next().is_some())
    };
    if !targets.iter().any(fires) {
        return Ok(bound);
    }
    let outer = USED.with(|u| {
        let mut used = u.borrow_mut();
        let outer = used.len();
        used.extend(targets.iter().map(|(_, t)| Arc::clone(t)));
        used.extend(read.iter().cloned());
        outer
    });
    let result = (|| {
        for ((db, table), triggers) in targets.iter().zip(&mut bound) {
            let Some(database) = database_of(db) else {
                continue;
            };
            for schema in triggers_of(database, &table.schema.name, event) {
                let trigger = bind_one(cx, db, table, schema)?;
                match schema.timing.as_str() {
                    "BEFORE" => triggers.before.push(trigger),
                    _ => triggers.after.push(trigger),
                }
            }
        }
        Ok(())
    })();
    USED.with(|u| u.borrow_mut().truncate(outer));
    result.map(|()| bound)
}

/// Binds `schema`, a trigger on `table` of `db`, as it fires: with its definer's
/// privileges, if the definer exists and holds TRIGGER on the table (invariant (4)).
fn bind_one(
    cx: &BindContext,
    db: &str,
    table: &Arc<Table>,
    schema: &TriggerSchema,
) -> Result<BoundTrigger> {
    let definer = routine::Definer::resolve(cx, &schema.definer).and_then(|definer| {
        definer
            .access()
            .table(db, &table.schema.name, Privileges::TRIGGER)?;
        Ok(definer)
    });
    // Errors binding the body fail the firing statement now, as before it runs.
    let body = match definer {
        Ok(definer) => Ok(bind_body(cx, db, table, schema, Some(&definer))?),
        Err(e) => Err(e),
    };
    Ok(BoundTrigger {
        body,
        definer: schema.definer.as_str().into(),
    })
}

/// Binds the body of `schema`, a trigger on `table` of `db`, with `definer`'s privileges
/// or else those of `cx`.
fn bind_body(
    cx: &BindContext,
    db: &str,
    table: &Arc<Table>,
    schema: &TriggerSchema,
    definer: Option<&routine::Definer>,
) -> Result<compound::Body> {
    let row = compound::TriggerRow {
        db,
        table,
        event: &schema.event,
        timing: &schema.timing,
    };
    let unbound = Parameters::untyped();
    let body_cx = routine::body_context(cx, db, &schema.body, &unbound, cx.calling, definer);
    compound::bind(&body_cx, db, &schema.body, &row)
}

/// Checks a CREATE TRIGGER's body as MariaDB does when it is created (1363, 1362, 1235
/// for what is not built), by binding it against its table with the creator's
/// privileges: errors binding its statements wait for them to run (`compound` invariant
/// (7)), and whether its definer may fire it is checked when it fires.
pub fn validate(
    cx: &BindContext,
    db: &str,
    table: &Arc<Table>,
    schema: &TriggerSchema,
) -> Result<()> {
    bind_body(cx, db, table, schema, None).map(drop)
}

/// Runs `triggers` for one row: `old` is the row before the write (UPDATE, DELETE), `new`
/// the row to write (INSERT, UPDATE), which BEFORE triggers may change, leaving NULL in a
/// NOT NULL column for the write to settle (`dml::settle_nulls`). Returns the NEW columns
/// the bodies assigned.
pub fn fire(
    triggers: &[BoundTrigger],
    old: Option<&[Value]>,
    new: Option<&mut Vec<Value>>,
    txn: &mut Transaction,
    session: &dyn expr::SessionContext,
    interrupt: &crate::engine::ProcessEntry,
) -> Result<Vec<usize>> {
    if triggers.is_empty() {
        return Ok(Vec::new());
    }
    let mut frame = compound::Frame::new(old, new);
    let mut runtime = compound::Runtime {
        access: compound::Access::Transaction(txn),
        session,
        interrupt,
        call: None,
    };
    for trigger in triggers {
        let body = trigger.body.as_ref().map_err(Clone::clone)?;
        let _running = session
            .running_routines()
            .map(|r| r.enter_trigger(Arc::clone(&trigger.definer)));
        compound::run(body, &mut frame, &mut runtime)?;
    }
    Ok(frame.assigned)
}
