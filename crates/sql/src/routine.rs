//! Stored procedures and functions: CREATE, ALTER and DROP PROCEDURE / FUNCTION and
//! CALL read here, the statement SHOW CREATE prints, and the binding and
//! running of a stored function's call. A routine's body is a compound statement
//! (`compound`) with the routine's parameters as its first local variables; the session
//! binds a procedure for CALL and runs it (`session::routines`), an expression runs a
//! function (`Expr::Stored`).
//!
//! A routine is kept in the catalog as text (`storage::RoutineSchema`: the parameter
//! list, a function's RETURNS type (`returns_text`) and the body as written, and the
//! characteristics), logged and checkpointed like a trigger.
//!
//! Invariants:
//! (1) CREATE checks what MariaDB checks then: the parameter list (1330 for a name given
//!     twice, 1064 for a type it cannot read), a function's RETURNS, and the body's form
//!     (1064; 1308, 1327... from `compound`; 1313 for RETURN in a procedure, 1320 for a
//!     function without RETURN, 1415 for a function's SELECT; 1235 for what is not
//!     built). An error binding one of the body's statements (an unknown table) comes
//!     when the statement runs (`compound` invariant (7)).
//! (2) A CALL checks its arguments before anything runs: their count (1318), and that
//!     each OUT or INOUT argument is a user variable or a `?` of a prepared CALL (1414).
//!     Each returns there when the body ends: to its user variable; to the one EXECUTE
//!     ... USING gave the `?` (1414 if that was no variable); or, for COM_STMT_EXECUTE,
//!     to the client, in one row of their own after the body's result sets, flagged
//!     SERVER_PS_OUT_PARAMS (only to a client with CLIENT_PS_MULTI_RESULTS, as MariaDB).
//! (3) A CALL is one statement to the session. Each statement of the body is atomic
//!     (`compound::run_procedure`): one that fails is undone, and the work before it
//!     stays, committed when the CALL ends in autocommit mode (MariaDB commits each
//!     statement as it ends: only a concurrent reader, or a crash during the CALL, can
//!     tell the difference).
//! (4) The result sets of the body's SELECTs are held until the CALL ends and then sent,
//!     followed by an OK whose affected rows are the sum over the body's statements, as
//!     MariaDB's. A CALL that must wait for a row lock is undone and runs again from its
//!     start with nothing sent (session invariant (4)). A client without
//!     CLIENT_MULTI_RESULTS gets 1312 before the body runs, if it holds a SELECT or a
//!     RETURNING.
//! (5) A stored function is bound where a statement calls it (`bind_function_call`: 1305,
//!     1318, 4187 for an OUT or INOUT parameter), its body bound for that call, and runs
//!     each time the call is evaluated, over the calling statement's view: it sees what
//!     that statement sees (its transaction's own changes too), and never writes. A
//!     function whose body writes is 1235 where it is called. The value RETURN gives is
//!     converted to the RETURNS type as a column stores it (1264 / 1406 in strict mode,
//!     named by the call as written); a body that ends without RETURN is 1321. A bound
//!     call is part of its statement's plan: the text plan cache and prepared statements
//!     bind again when a routine or a table the body reads changes.
//! (6) No function runs inside itself: binding a call of a function whose body is being
//!     bound (`BindContext::calling`) is 1424, which, inside a body, is the error of the
//!     statement holding the call when it runs, as MariaDB raises it when that statement
//!     is first run, whether or not the call would be evaluated. Bindings of distinct
//!     routines nest at most `NESTING_MAX` deep (1436 past it, the same way), so
//!     binding them stays within a worker's stack.
//! (7) A procedure may CALL itself, directly or through other routines or triggers: a
//!     CALL bound inside the body of a procedure that is being bound does not bind it
//!     again (`Callee::Recursive`). When it runs, it runs the body of the procedure's
//!     innermost running instance in the session (`RunningRoutines`, which every CALL
//!     enters), unless max_sp_recursion_depth instances run inside the first already:
//!     then it is 1456, as in MariaDB (whose default, 0, allows no recursion). A nested
//!     CALL runs on a fresh stack segment when the worker's stack runs low (`compound`),
//!     where MariaDB stops with 1436.
//! (8) Privileges: CREATE needs CREATE ROUTINE on the database (1044), and naming another
//!     account as DEFINER needs SUPER (1227); ALTER and DROP need ALTER ROUTINE (1370). A
//!     CALL and a function call need EXECUTE (1370), checked when the call is bound, with
//!     the privileges its statement or body binds with. Each is held globally, on the
//!     database or on the routine itself (GRANT ... ON PROCEDURE | FUNCTION,
//!     `mysql.procs_priv`); with automatic_sp_privileges ON (the default) a creator
//!     holding less gets EXECUTE and ALTER ROUTINE on what it created, and a DROP takes
//!     every grant on the routine away (`Session::grant_to_creator`, `revoke_on_drop`),
//!     as in MariaDB. EXECUTE is checked before the routine is looked up, so without it a
//!     missing routine is 1370 too. A body binds with its definer's privileges (SQL
//!     SECURITY DEFINER, the default; 1449 if that account no longer exists, 1370 if it
//!     may not execute the routine) or the caller's (INVOKER): what it may read and write
//!     is checked then (CURRENT_USER() in it is whose privileges it runs with:
//!     `RunningRoutines::current_user`), and a bound routine binds again when a GRANT or
//!     REVOKE changes any account's privileges (session invariant (2)).
//! (9) A session sees a routine (information_schema.ROUTINES and PARAMETERS, SHOW ...
//!     STATUS, SHOW CREATE) only if it holds EXECUTE, ALTER ROUTINE or CREATE ROUTINE on
//!     it, and its definition (ROUTINE_DEFINITION, SHOW CREATE's text) only as its definer
//!     or with SELECT on `mysql.proc` (`sight`), as in MariaDB: otherwise 1305, or NULL.
//!
//! Not built yet (1235, or as noted): stored functions that write (also through a CALL);
//! DDL, transaction control and SET of
//! system variables inside a procedure's body (a function's refuses them as MariaDB
//! does: `compound` invariant (4)). (A stored function in a DEFAULT, CHECK or GENERATED
//! ALWAYS AS clause is 1901, as in MariaDB: `BindScope::definition`.) The body runs with
//! the caller's sql_mode, not the one recorded at CREATE, and CURRENT_USER() in a
//! DEFINER body names the caller, not the definer.

use crate::compound;
use crate::error::{Error, ErrorCode, Result};
use crate::expr::{EvalContext, Expr, SessionContext, StoredCall, StoredFunction, VarScope};
use crate::parse::{self, Statement};
use crate::privilege::{self, AccessCheck, Privileges, SessionGrants};
use crate::scope::Parameters;
use crate::select::BindContext;
use crate::view::{quote_definer, quote_name};
use manycore_storage::{RoutineKind, RoutineSchema};
use manycore_types::{Collation, DataType, Value};
use sqlparser::ast;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;
use std::cell::RefCell;
use std::sync::Arc;

/// How a parameter passes its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    In,
    Out,
    InOut,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::In => "IN",
            Mode::Out => "OUT",
            Mode::InOut => "INOUT",
        }
    }
}

/// One parameter of a procedure, read from its stored parameter list.
#[derive(Clone, Debug, PartialEq)]
pub struct Parameter {
    pub mode: Mode,
    pub name: String,
    pub data_type: DataType,
}

/// A routine's data access when CREATE writes none, as in MariaDB.
pub const DEFAULT_DATA_ACCESS: &str = "CONTAINS SQL";
/// A routine's SQL SECURITY when CREATE writes none, as in MariaDB.
pub const DEFAULT_SECURITY: &str = "DEFINER";

/// One characteristic of CREATE or ALTER PROCEDURE / FUNCTION, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Characteristic {
    Comment(String),
    Deterministic(bool),
    /// CONTAINS SQL, NO SQL, READS SQL DATA or MODIFIES SQL DATA.
    DataAccess(String),
    /// DEFINER or INVOKER.
    Security(String),
}

impl Characteristic {
    /// Sets this characteristic of `routine`, over what was set before: of CREATE's or
    /// ALTER's characteristics, a later one wins, as in MariaDB.
    pub fn apply(&self, routine: &mut RoutineSchema) {
        match self {
            Characteristic::Comment(comment) => routine.comment.clone_from(comment),
            Characteristic::Deterministic(deterministic) => routine.deterministic = *deterministic,
            Characteristic::DataAccess(data_access) => routine.data_access.clone_from(data_access),
            Characteristic::Security(security) => routine.security.clone_from(security),
        }
    }
}

/// A parameter as the parser read it: its mode, name and type as written.
pub type WrittenParameter = (Mode, String, ast::DataType);

/// A function's RETURNS as the parser read it: the type, and the collation a COLLATE
/// after it names.
#[derive(Clone, Debug)]
pub struct WrittenReturns {
    pub data_type: ast::DataType,
    pub collation: Option<String>,
}

/// CREATE [OR REPLACE] [DEFINER = user] {PROCEDURE | FUNCTION} [IF NOT EXISTS] name
/// ([parameters]) [RETURNS type] [characteristics] body.
#[derive(Clone, Debug)]
pub struct CreateRoutine {
    pub kind: RoutineKind,
    pub or_replace: bool,
    pub if_not_exists: bool,
    pub definer: Option<String>,
    pub name: ast::ObjectName,
    /// The parameter list as written, without its parentheses.
    pub parameters: String,
    /// The same parameters, read (so CREATE types them without reading them again).
    pub declared: Vec<WrittenParameter>,
    /// A function's RETURNS; None for a procedure.
    pub returns: Option<WrittenReturns>,
    /// In the order written (`Characteristic::apply`).
    pub characteristics: Vec<Characteristic>,
    /// The body as written (without a trailing `;`).
    pub body: String,
}

/// PROCEDURE or FUNCTION, as statements and messages name the kind.
pub fn kind_name(kind: RoutineKind) -> &'static str {
    match kind {
        RoutineKind::Procedure => "PROCEDURE",
        RoutineKind::Function => "FUNCTION",
    }
}

/// Reads a CREATE PROCEDURE or CREATE FUNCTION after its PROCEDURE or FUNCTION keyword.
pub(crate) fn parse_create(
    parser: &mut Parser,
    text: &str,
    kind: RoutineKind,
    or_replace: bool,
    definer: Option<String>,
) -> std::result::Result<Statement, ParserError> {
    use sqlparser::keywords::Keyword;
    let if_not_exists = parser.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]);
    let name = parser.parse_object_name(false)?;
    let open = parser.expect_token(&Token::LParen)?.span.end;
    // Read here so a malformed parameter is 1064 at its place in the statement.
    let declared = read_parameters(parser, &Token::RParen)?;
    let close = parser.expect_token(&Token::RParen)?.span.start;
    let offset = |at: sqlparser::tokenizer::Location| {
        parse::offset_of(text, at.line as usize, at.column as usize)
    };
    let parameters = text[offset(open)..offset(close)].to_string();
    let returns = match kind {
        RoutineKind::Procedure => None,
        RoutineKind::Function => {
            if parse::word(&parser.peek_token()).as_deref() != Some("RETURNS") {
                return parser.expected("RETURNS", parser.peek_token());
            }
            parser.next_token();
            Some(read_returns(parser)?)
        }
    };
    let characteristics = read_characteristics(parser, true)?;
    let body = parse::body_as_written(parser, text, "a routine body")?;
    Ok(Statement::CreateRoutine(Box::new(CreateRoutine {
        kind,
        or_replace,
        if_not_exists,
        definer,
        name,
        parameters,
        declared,
        returns,
        characteristics,
        body,
    })))
}

/// `type [CHARSET name | CHARACTER SET name] [COLLATE name]`, as RETURNS takes it and as
/// SHOW CREATE FUNCTION prints it. The character set is only read: manycore stores
/// utf8mb4 (`ddl::declared_collation`).
fn read_returns(parser: &mut Parser) -> std::result::Result<WrittenReturns, ParserError> {
    let data_type = parser.parse_data_type()?;
    let mut collation = None;
    loop {
        let word = |n| parse::word(&parser.peek_nth_token(n)).unwrap_or_default();
        match (word(0).as_str(), word(1).as_str()) {
            ("CHARSET", _) => parser.next_token(),
            ("CHARACTER", "SET") => {
                parser.next_token();
                parser.next_token()
            }
            ("COLLATE", _) => {
                parser.next_token();
                collation = Some(parser.parse_identifier()?.value);
                continue;
            }
            _ => {
                return Ok(WrittenReturns {
                    data_type,
                    collation,
                })
            }
        };
        parser.parse_identifier()?;
    }
}

/// COMMENT 'text', LANGUAGE SQL, CONTAINS SQL, NO SQL, READS SQL DATA, MODIFIES SQL DATA,
/// SQL SECURITY {DEFINER | INVOKER} and, where `determinism` allows it (CREATE, not
/// ALTER, as in MariaDB), [NOT] DETERMINISTIC, in any order, as written; the first word
/// of anything else ends them. LANGUAGE SQL changes nothing, so it is not returned.
fn read_characteristics(
    parser: &mut Parser,
    determinism: bool,
) -> std::result::Result<Vec<Characteristic>, ParserError> {
    let mut written = Vec::new();
    loop {
        let word = |n| parse::word(&parser.peek_nth_token(n)).unwrap_or_default();
        let (first, second, third) = (word(0), word(1), word(2));
        let (taken, characteristic) = match (first.as_str(), second.as_str(), third.as_str()) {
            ("COMMENT", _, _) => {
                parser.next_token();
                written.push(Characteristic::Comment(parser.parse_literal_string()?));
                continue;
            }
            ("LANGUAGE", "SQL", _) => (2, None),
            ("DETERMINISTIC", _, _) if determinism => {
                (1, Some(Characteristic::Deterministic(true)))
            }
            ("NOT", "DETERMINISTIC", _) if determinism => {
                (2, Some(Characteristic::Deterministic(false)))
            }
            ("CONTAINS" | "NO", "SQL", _) => {
                (2, Some(Characteristic::DataAccess(format!("{first} SQL"))))
            }
            ("READS" | "MODIFIES", "SQL", "DATA") => (
                3,
                Some(Characteristic::DataAccess(format!("{first} SQL DATA"))),
            ),
            ("SQL", "SECURITY", "DEFINER" | "INVOKER") => {
                (3, Some(Characteristic::Security(third)))
            }
            _ => return Ok(written),
        };
        for _ in 0..taken {
            parser.next_token();
        }
        written.extend(characteristic);
    }
}

/// Reads `ALTER {PROCEDURE | FUNCTION} name [characteristic ...]`.
pub(crate) fn parse_alter(
    parser: &mut Parser,
    kind: RoutineKind,
) -> std::result::Result<Statement, ParserError> {
    parser.next_token();
    parser.next_token();
    let name = parser.parse_object_name(false)?;
    let changes = read_characteristics(parser, false)?;
    parse::end(parser)?;
    Ok(Statement::AlterRoutine {
        kind,
        name,
        changes,
    })
}

/// Reads `DROP {PROCEDURE | FUNCTION} [IF EXISTS] name`.
pub(crate) fn parse_drop(
    parser: &mut Parser,
    kind: RoutineKind,
) -> std::result::Result<Statement, ParserError> {
    let (name, if_exists) = parse::parse_drop_object(parser)?;
    Ok(Statement::DropRoutine {
        kind,
        name,
        if_exists,
    })
}

/// Reads `CALL name[([argument, ...])]`.
pub(crate) fn parse_call(parser: &mut Parser) -> std::result::Result<Statement, ParserError> {
    parser.next_token();
    let name = parser.parse_object_name(false)?;
    let mut arguments = Vec::new();
    if parser.consume_token(&Token::LParen) && !parser.consume_token(&Token::RParen) {
        arguments = parser.parse_comma_separated(Parser::parse_expr)?;
        parser.expect_token(&Token::RParen)?;
    }
    parse::end(parser)?;
    Ok(Statement::Call { name, arguments })
}

/// The parameters of a stored parameter list: `[IN | OUT | INOUT] name type, ...`. 1330
/// for a name given twice (names compare without case), 1064 for what is not a
/// parameter.
pub fn parameters(list: &str) -> Result<Vec<Parameter>> {
    let written = Parser::new(&parse::DIALECT)
        .try_with_sql(list)
        .and_then(|mut parser| read_parameters(&mut parser, &Token::EOF))
        .map_err(|e| parse::parse_error(list, 1, &e))?;
    typed_parameters(written)
}

/// The parameters the parser read, typed; 1330 for a name given twice (names compare
/// without case).
pub fn typed_parameters(written: Vec<WrittenParameter>) -> Result<Vec<Parameter>> {
    let mut read = Vec::<Parameter>::new();
    for (mode, name, written) in written {
        if read.iter().any(|p| p.name.eq_ignore_ascii_case(&name)) {
            return Err(Error::new(
                ErrorCode::SpDupParam,
                format!("Duplicate parameter: {name}"),
            ));
        }
        let data_type = crate::ddl::column_type(&name, &written)?;
        read.push(Parameter {
            mode,
            name,
            data_type,
        });
    }
    Ok(read)
}

/// `[IN | OUT | INOUT] name type, ...` up to `end`, which is left for the caller.
fn read_parameters(
    parser: &mut Parser,
    end: &Token,
) -> std::result::Result<Vec<WrittenParameter>, ParserError> {
    let mut read = Vec::new();
    if parser.peek_token().token == *end {
        return Ok(read);
    }
    loop {
        // IN, OUT and INOUT are reserved words: no parameter has their name.
        let written = match parse::word(&parser.peek_token()).as_deref() {
            Some("IN") => Some(Mode::In),
            Some("OUT") => Some(Mode::Out),
            Some("INOUT") => Some(Mode::InOut),
            _ => None,
        };
        if written.is_some() {
            parser.next_token();
        }
        let name = parser.parse_identifier()?.value;
        let data_type = parser.parse_data_type()?;
        read.push((written.unwrap_or(Mode::In), name, data_type));
        if !parser.consume_token(&Token::Comma) {
            if parser.peek_token().token != *end {
                return parser.expected(&format!("{end} or ,"), parser.peek_token());
            }
            return Ok(read);
        }
    }
}

/// The type a function's RETURNS declares; a string type without COLLATE takes
/// `default_collation` (its database's), as a column does.
pub fn returns_type(written: &WrittenReturns, default_collation: Collation) -> Result<DataType> {
    let data_type = crate::ddl::column_type("", &written.data_type)?;
    if !data_type.is_string() || matches!(data_type.collation(), Collation::Binary) {
        return Ok(data_type);
    }
    let collation = match &written.collation {
        Some(name) => crate::ddl::declared_collation(name)?,
        None => default_collation,
    };
    Ok(data_type.with_collation(collation))
}

/// RETURNS as the catalog keeps it and SHOW CREATE FUNCTION prints it: the type's name,
/// and a string's character set and collation.
pub fn returns_text(data_type: &DataType) -> String {
    match data_type.collation() {
        Collation::Binary => data_type.sql_name(),
        collation => format!(
            "{} CHARSET utf8mb4 COLLATE {}",
            data_type.sql_name(),
            collation.name()
        ),
    }
}

/// The type of a RETURNS the catalog keeps (`returns_text`).
pub fn stored_returns(text: &str) -> Result<DataType> {
    let written = Parser::new(&parse::DIALECT)
        .try_with_sql(text)
        .and_then(|mut parser| read_returns(&mut parser))
        .map_err(|e| parse::parse_error(text, 1, &e))?;
    returns_type(&written, Collation::Utf8mb4GeneralCi)
}

/// The statement that creates `routine`, as SHOW CREATE PROCEDURE / FUNCTION and
/// mariadb-dump print it: the characteristics that differ from the defaults, one per line.
pub fn create_text(routine: &RoutineSchema) -> String {
    let mut text = format!(
        "CREATE DEFINER={} {} {}({})",
        quote_definer(&routine.definer),
        kind_name(routine.kind),
        quote_name(&routine.name),
        routine.params
    );
    if routine.kind == RoutineKind::Function {
        text.push_str(&format!(" RETURNS {}", routine.returns));
    }
    text.push('\n');
    if routine.data_access != DEFAULT_DATA_ACCESS {
        text.push_str(&format!("    {}\n", routine.data_access));
    }
    if routine.deterministic {
        text.push_str("    DETERMINISTIC\n");
    }
    if routine.security != DEFAULT_SECURITY {
        text.push_str(&format!("    SQL SECURITY {}\n", routine.security));
    }
    if !routine.comment.is_empty() {
        text.push_str(&format!(
            "    COMMENT '{}'\n",
            routine.comment.replace('\'', "''")
        ));
    }
    text.push_str(&routine.body);
    text
}

/// 1305: no procedure or function `db.name`.
pub fn no_such_routine(kind: RoutineKind, db: &str, name: &str) -> Error {
    Error::new(
        ErrorCode::SpDoesNotExist,
        format!("{} {db}.{name} does not exist", kind_name(kind)),
    )
}

/// 1318: a call with `given` arguments of a routine with `expected` parameters.
pub fn wrong_argument_count(
    kind: RoutineKind,
    qualified: &str,
    expected: usize,
    given: usize,
) -> Error {
    Error::new(
        ErrorCode::SpWrongNoOfArgs,
        format!(
            "Incorrect number of arguments for {} {qualified}; expected {expected}, got {given}",
            kind_name(kind)
        ),
    )
}

/// 1414: the OUT or INOUT argument at `index` (from 0) of a CALL is not a variable.
pub fn not_variable_argument(index: usize, qualified: &str) -> Error {
    Error::new(
        ErrorCode::SpNotVarArg,
        format!(
            "OUT or INOUT argument {} for routine {qualified} is not a variable or NEW \
             pseudo-variable in BEFORE trigger",
            index + 1,
        ),
    )
}

// ---------------------------------------------------------------------------------------
// Routines calling routines

/// How deep calls of distinct stored routines may nest (each one binds the next one's
/// body, and runs it, on the worker's stack): deeper is 1436, not a stack overflow.
const NESTING_MAX: usize = 32;

/// The name of routine `db.name` in `BindContext::calling`.
pub(crate) fn calling_key(kind: RoutineKind, db: &str, name: &str) -> String {
    format!(
        "{} {db}.{}",
        kind_name(kind),
        manycore_storage::routine_key(name)
    )
}

/// The routines being bound once the body of `db.name` is entered: 1424 for a function
/// already among them (invariant (6)), 1436 past `NESTING_MAX`. A procedure among them is
/// not bound again: `procedure_callee` makes its call a `Callee::Recursive`.
fn entered(cx: &BindContext, kind: RoutineKind, db: &str, name: &str) -> Result<Vec<String>> {
    if cx.calling.len() >= NESTING_MAX {
        return Err(Error::new(
            ErrorCode::StackOverrunNeedMore,
            format!(
                "Thread stack overrun: stored routine calls nest more than {NESTING_MAX} \
                 deep (at {db}.{name})"
            ),
        ));
    }
    let key = calling_key(kind, db, name);
    if cx.calling.contains(&key) {
        assert_eq!(kind, RoutineKind::Function, "{key} is bound as a recursion");
        // Inside a body, this binding error is its statement's when it runs (`compound`
        // invariant (7)): MariaDB raises it when a statement holding the call is first
        // run, whether or not the call is evaluated.
        return Err(Error::new(
            ErrorCode::SpNoRecursion,
            "Recursive stored functions and triggers are not allowed",
        ));
    }
    Ok(cx.calling.iter().cloned().chain([key]).collect())
}

/// The routine `db.name` of `kind` in the catalog `cx` binds under (1305 if none).
fn stored<'c>(
    cx: &BindContext<'c>,
    kind: RoutineKind,
    db: &str,
    name: &str,
) -> Result<&'c Arc<RoutineSchema>> {
    cx.catalog
        .databases
        .get(db)
        .and_then(|d| d.routine(kind, name))
        .ok_or_else(|| no_such_routine(kind, db, name))
}

/// The account a SQL SECURITY DEFINER routine's or a trigger's body binds and runs as
/// (invariant (8)): its grants, its name for messages, and its name as CURRENT_USER()
/// shows it.
pub(crate) struct Definer {
    grants: SessionGrants,
    quoted: String,
    name: Arc<str>,
}

impl Definer {
    /// Definer `definer` (`user@host`, as a routine or trigger keeps it) of an object
    /// used under `cx`: 1449 if the account is gone, as in MariaDB.
    pub(crate) fn resolve(cx: &BindContext, definer: &str) -> Result<Definer> {
        let (user, host) = privilege::split_definer(definer);
        let Some(grants) = cx.access.grants.definer(user, host) else {
            return Err(privilege::no_such_definer(user, host));
        };
        Ok(Definer {
            grants,
            quoted: format!("'{user}'@'{host}'"),
            name: definer.into(),
        })
    }

    pub(crate) fn access(&self) -> AccessCheck<'_> {
        AccessCheck {
            grants: &self.grants,
            quoted_user: &self.quoted,
            quoted_account: &self.quoted,
        }
    }

    /// `user@host`, as CURRENT_USER() shows it in the body.
    pub(crate) fn name(&self) -> &Arc<str> {
        &self.name
    }
}

/// The definer whose privileges `found` (of database `db`) binds its body with, called
/// under `cx`: None for SQL SECURITY INVOKER (the caller's); 1449 if the account is
/// gone, 1370 if it may not execute the routine itself, as in MariaDB.
fn definer(cx: &BindContext, db: &str, found: &RoutineSchema) -> Result<Option<Definer>> {
    if found.security.eq_ignore_ascii_case("INVOKER") {
        return Ok(None);
    }
    let definer = Definer::resolve(cx, &found.definer)?;
    definer
        .access()
        .routine(db, found.kind, &found.name, Privileges::EXECUTE)?;
    Ok(Some(definer))
}

/// The context a routine's or trigger's `body` of database `db` binds in, called under
/// `cx` by the routines `calling`, with `definer`'s privileges or else the caller's.
pub(crate) fn body_context<'a>(
    cx: &BindContext<'a>,
    db: &'a str,
    body: &'a str,
    unbound: &'a Parameters,
    calling: &'a [String],
    definer: Option<&'a Definer>,
) -> BindContext<'a> {
    let access = definer.map_or(cx.access, Definer::access);
    BindContext {
        catalog: cx.catalog,
        database: Some(db),
        text: body,
        parameters: unbound,
        access,
        outer: None,
        subquery_tables: RefCell::default(),
        ctes: None,
        calling,
        temporary: cx.temporary,
    }
}

/// How much of a routine a session sees (invariant (9)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sight {
    Hidden,
    /// Its name and characteristics, not its definition.
    Described,
    Whole,
}

/// How much of routine `found` of database `db` a session with `grants`, logged in as
/// account `current_user` (`user@host`), sees.
pub(crate) fn sight(
    grants: &SessionGrants,
    current_user: &str,
    db: &str,
    found: &RoutineSchema,
) -> Sight {
    let full =
        grants.table("mysql", "proc").contains(Privileges::SELECT) || found.definer == current_user;
    let some = Privileges::EXECUTE | Privileges::ALTER_ROUTINE | Privileges::CREATE_ROUTINE;
    match (
        full,
        grants.routine(db, found.kind, &found.name).intersects(some),
    ) {
        (true, _) => Sight::Whole,
        (false, true) => Sight::Described,
        (false, false) => Sight::Hidden,
    }
}

/// A procedure bound for a CALL: a statement's or one inside a stored program's body.
pub(crate) struct BoundProcedure {
    /// Its `calling_key`, by which a recursive CALL finds it running.
    key: String,
    /// `db.name`, for messages.
    pub qualified: String,
    pub declared: Vec<Parameter>,
    pub body: compound::Body,
    /// Its definer's `user@host` for SQL SECURITY DEFINER (CURRENT_USER() in the body).
    definer: Option<Arc<str>>,
}

/// Binds procedure `db.name` for a CALL under `cx` (1305, and the errors of `entered`);
/// the CALL checks its arguments against `declared`.
pub(crate) fn bind_procedure(cx: &BindContext, db: &str, name: &str) -> Result<BoundProcedure> {
    let kind = RoutineKind::Procedure;
    cx.access.routine(db, kind, name, Privileges::EXECUTE)?;
    let found = stored(cx, kind, db, name)?;
    let declared = parameters(&found.params)?;
    let calling = entered(cx, kind, db, &found.name)?;
    let unbound = Parameters::untyped();
    let definer = definer(cx, db, found)?;
    let body_cx = body_context(cx, db, &found.body, &unbound, &calling, definer.as_ref());
    let body = compound::bind_procedure(&body_cx, db, &found.body, &declared)?;
    Ok(BoundProcedure {
        key: calling_key(kind, db, &found.name),
        qualified: format!("{db}.{}", found.name),
        declared,
        body,
        definer: definer.as_ref().map(|d| Arc::clone(d.name())),
    })
}

/// What a CALL inside a body runs (invariant (7)).
#[derive(Clone)]
pub(crate) enum Callee {
    /// A procedure bound for the call.
    Bound(Arc<BoundProcedure>),
    /// A procedure whose body is being bound around the call: the call runs the body its
    /// innermost running instance runs.
    Recursive(Arc<Recursion>),
}

/// A recursive CALL's procedure, as the catalog declares it.
pub(crate) struct Recursion {
    key: String,
    /// Its name as created, for 1456.
    name: String,
    qualified: String,
    declared: Vec<Parameter>,
}

/// What a CALL of procedure `db.name` inside a body bound under `cx` runs: the procedure
/// bound (`bind_procedure`), or, if its body is being bound already, a recursion.
pub(crate) fn procedure_callee(cx: &BindContext, db: &str, name: &str) -> Result<Callee> {
    let key = calling_key(RoutineKind::Procedure, db, name);
    if !cx.calling.contains(&key) {
        return bind_procedure(cx, db, name).map(|bound| Callee::Bound(Arc::new(bound)));
    }
    let kind = RoutineKind::Procedure;
    cx.access.routine(db, kind, name, Privileges::EXECUTE)?;
    let found = stored(cx, kind, db, name)?;
    Ok(Callee::Recursive(Arc::new(Recursion {
        key,
        name: found.name.clone(),
        qualified: format!("{db}.{}", found.name),
        declared: parameters(&found.params)?,
    })))
}

impl Callee {
    pub(crate) fn declared(&self) -> &[Parameter] {
        match self {
            Callee::Bound(bound) => &bound.declared,
            Callee::Recursive(recursion) => &recursion.declared,
        }
    }

    pub(crate) fn qualified(&self) -> &str {
        match self {
            Callee::Bound(bound) => &bound.qualified,
            Callee::Recursive(recursion) => &recursion.qualified,
        }
    }

    /// The procedure to run now, among the routines running in `session`: a recursion
    /// may run as many instances deep as max_sp_recursion_depth allows (1456 past it).
    pub(crate) fn procedure(&self, session: &dyn SessionContext) -> Result<Arc<BoundProcedure>> {
        let recursion = match self {
            Callee::Bound(bound) => return Ok(Arc::clone(bound)),
            Callee::Recursive(recursion) => recursion,
        };
        // The body holding this call was bound inside the recursion's body, so it runs
        // inside an instance of it.
        let (innermost, instances, crossed) = session
            .running_routines()
            .and_then(|running| running.recursion(&recursion.key))
            .ok_or_else(|| Error::not_supported("a recursive procedure call from here"))?;
        let limit = match session.system_variable(MAX_DEPTH_VARIABLE, VarScope::Session)? {
            Value::UInt(limit) => limit,
            other => unreachable!("{MAX_DEPTH_VARIABLE} holds {other:?}"),
        };
        if instances as u64 > limit {
            return Err(Error::new(
                ErrorCode::SpRecursionLimit,
                format!(
                    "Recursive limit {limit} (as set by the {MAX_DEPTH_VARIABLE} variable) was \
                     exceeded for routine {}",
                    recursion.name
                ),
            ));
        }
        // What binding refuses in a function's or a trigger's CALL, and cannot see in a
        // recursion's body while binding it.
        if crossed.function && innermost.body.writes {
            return Err(Error::not_supported(
                "stored functions that write (INSERT, UPDATE or DELETE in the body)",
            ));
        }
        if crossed.function && innermost.body.result_sets {
            return Err(Error::new(
                ErrorCode::SpNoRetset,
                "Not allowed to return a result set from a function",
            ));
        }
        if crossed.trigger {
            return Err(Error::not_supported(
                "a procedure's recursion through a trigger",
            ));
        }
        Ok(innermost)
    }
}

/// How many instances of one procedure may run inside it, as in MariaDB (0 to 255).
const MAX_DEPTH_VARIABLE: &str = "max_sp_recursion_depth";

/// The routines running in a session, outermost first (invariant (7)).
#[derive(Default)]
pub struct RunningRoutines(RefCell<Vec<Running>>);

enum Running {
    Procedure(Arc<BoundProcedure>),
    /// A function, by `calling_key`, with its definer for SQL SECURITY DEFINER.
    Function(Arc<str>, Option<Arc<str>>),
    /// A trigger, with its definer.
    Trigger(Arc<str>),
}

/// What lies between a procedure's innermost running instance and a recursive CALL.
#[derive(Default)]
struct Crossed {
    function: bool,
    trigger: bool,
}

impl RunningRoutines {
    /// `procedure` runs until the guard returned is dropped.
    pub(crate) fn enter_procedure(&self, procedure: Arc<BoundProcedure>) -> Entered<'_> {
        self.enter(Running::Procedure(procedure))
    }

    /// Function `key` runs until the guard returned is dropped; 1424 if it runs already
    /// (binding refuses a function inside itself, but not a recursion's body run again,
    /// invariant (7)).
    fn enter_function(&self, key: &Arc<str>, definer: Option<Arc<str>>) -> Result<Entered<'_>> {
        let running = self.0.borrow().iter().any(|r| match r {
            Running::Function(running, _) => running == key,
            _ => false,
        });
        if running {
            return Err(Error::new(
                ErrorCode::SpNoRecursion,
                "Recursive stored functions and triggers are not allowed",
            ));
        }
        Ok(self.enter(Running::Function(Arc::clone(key), definer)))
    }

    /// The body of a trigger defined by `definer` runs until the guard returned is
    /// dropped.
    pub(crate) fn enter_trigger(&self, definer: Arc<str>) -> Entered<'_> {
        self.enter(Running::Trigger(definer))
    }

    /// The account the innermost running body runs as, CURRENT_USER() in it: the
    /// definer of the innermost SQL SECURITY DEFINER routine or trigger (an INVOKER
    /// routine runs as its caller); None outside them (the session's account).
    pub(crate) fn current_user(&self) -> Option<Arc<str>> {
        self.0
            .borrow()
            .iter()
            .rev()
            .find_map(|routine| match routine {
                Running::Procedure(procedure) => procedure.definer.clone(),
                Running::Function(_, definer) => definer.clone(),
                Running::Trigger(definer) => Some(Arc::clone(definer)),
            })
    }

    fn enter(&self, routine: Running) -> Entered<'_> {
        self.0.borrow_mut().push(routine);
        Entered(self)
    }

    /// The innermost running instance of procedure `key`, how many are running, and
    /// what runs inside the innermost.
    fn recursion(&self, key: &str) -> Option<(Arc<BoundProcedure>, usize, Crossed)> {
        let running = self.0.borrow();
        let mut instances = 0;
        let mut innermost = None;
        let mut crossed = Crossed::default();
        for routine in running.iter().rev() {
            match routine {
                Running::Procedure(procedure) if procedure.key == key => {
                    instances += 1;
                    innermost.get_or_insert_with(|| Arc::clone(procedure));
                }
                Running::Procedure(_) => {}
                Running::Function(..) => crossed.function |= innermost.is_none(),
                Running::Trigger(_) => crossed.trigger |= innermost.is_none(),
            }
        }
        Some((innermost?, instances, crossed))
    }
}

/// A routine running (`RunningRoutines::enter_*`).
pub(crate) struct Entered<'a>(&'a RunningRoutines);

impl Drop for Entered<'_> {
    fn drop(&mut self) {
        self.0 .0.borrow_mut().pop();
    }
}

// ---------------------------------------------------------------------------------------
// Stored functions in expressions

/// Binds a call of stored function `db.name`; `args` binds its arguments in the caller's
/// scope once the function is found (1370, then 1305, come before their errors, and 1318
/// after);
/// `written` is the call as written, which names its value in messages (1264, 1406).
/// Its body is bound here for this call (invariant (5)), with its definer's privileges or
/// the caller's (invariant (8)).
pub(crate) fn bind_function_call(
    cx: &BindContext,
    db: &str,
    name: &str,
    written: String,
    args: &dyn Fn() -> Result<Vec<Expr>>,
) -> Result<Expr> {
    let kind = RoutineKind::Function;
    cx.access.routine(db, kind, name, Privileges::EXECUTE)?;
    let found = stored(cx, kind, db, name)?;
    let args = args()?;
    let declared = parameters(&found.params)?;
    if declared.len() != args.len() {
        let qualified = format!("{db}.{}", found.name);
        let (expected, given) = (declared.len(), args.len());
        return Err(wrong_argument_count(
            RoutineKind::Function,
            &qualified,
            expected,
            given,
        ));
    }
    if let Some(i) = declared.iter().position(|p| p.mode != Mode::In) {
        return Err(Error::new(
            ErrorCode::SfOutInoutArgNotAllowed,
            format!(
                "OUT or INOUT argument {} for function {} is not allowed here",
                i + 1,
                found.name
            ),
        ));
    }
    let returns = stored_returns(&found.returns)?;
    let calling = entered(cx, RoutineKind::Function, db, &found.name)?;
    let unbound = Parameters::untyped();
    let definer = definer(cx, db, found)?;
    let body_cx = body_context(cx, db, &found.body, &unbound, &calling, definer.as_ref());
    let body = compound::bind_function(&body_cx, db, &found.name, &found.body, &declared)?;
    if body.writes {
        return Err(Error::not_supported(
            "stored functions that write (INSERT, UPDATE or DELETE in the body)",
        ));
    }
    // A prepared statement calling it binds again when a table its body reads changes.
    cx.subquery_tables
        .borrow_mut()
        .extend(body.tables.iter().cloned());
    let function = Arc::new(BoundFunction {
        key: calling_key(RoutineKind::Function, db, &found.name).into(),
        name: found.name.clone(),
        written,
        returns,
        body,
        definer: definer.as_ref().map(|d| Arc::clone(d.name())),
    });
    Ok(Expr::Stored {
        function: StoredCall(function),
        args,
    })
}

/// A stored function's body as one call bound it.
struct BoundFunction {
    /// Its `calling_key`, by which it is running (`RunningRoutines`).
    key: Arc<str>,
    name: String,
    /// The call as written.
    written: String,
    returns: DataType,
    body: compound::Body,
    /// Its definer's `user@host` for SQL SECURITY DEFINER (CURRENT_USER() in the body).
    definer: Option<Arc<str>>,
}

impl std::fmt::Debug for BoundFunction {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.debug_struct("BoundFunction")
            .field("name", &self.name)
            .field("returns", &self.returns)
            .finish_non_exhaustive()
    }
}

impl StoredFunction for BoundFunction {
    fn returns(&self) -> &DataType {
        &self.returns
    }

    /// Runs the body over the calling statement's view; its value is converted to the
    /// RETURNS type as a column stores it (1264 / 1406 in strict mode, as MariaDB).
    fn call(&self, args: Vec<Value>, ctx: &EvalContext) -> Result<Value> {
        let reader = ctx
            .subqueries
            .ok_or_else(|| Error::not_supported("stored functions here"))?;
        let (view, interrupt) = reader.reading();
        let session = ctx.session;
        let _running = match session.running_routines() {
            Some(running) => Some(running.enter_function(&self.key, self.definer.clone())?),
            None => None,
        };
        let mut runtime = compound::Runtime {
            access: compound::Access::View(view),
            session,
            interrupt,
            call: None,
        };
        let Some(value) = compound::run_function(&self.body, args, &mut runtime)? else {
            return Err(Error::new(
                ErrorCode::SpNoreturnend,
                format!("FUNCTION {} ended without RETURN", self.name),
            ));
        };
        let name = || self.written.clone();
        crate::expr::store_value(value, &self.returns, &name, 0, session.strict(), session)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn create(text: &str) -> CreateRoutine {
        match parse::parse(text, 1).expect("parses") {
            Statement::CreateRoutine(c) => *c,
            _ => panic!("not a CREATE PROCEDURE: {text}"),
        }
    }

    /// The procedure `c` makes, named `p`, as CREATE stores it (with MariaDB's defaults for
    /// what it does not write).
    fn as_stored(c: &CreateRoutine) -> RoutineSchema {
        let mut routine = RoutineSchema {
            name: "p".into(),
            kind: RoutineKind::Procedure,
            params: c.parameters.clone(),
            returns: String::new(),
            body: c.body.clone(),
            definer: "u@%".into(),
            security: DEFAULT_SECURITY.into(),
            data_access: DEFAULT_DATA_ACCESS.into(),
            deterministic: false,
            comment: String::new(),
            sql_mode: String::new(),
            character_set_client: "utf8mb4".into(),
            collation_connection: "utf8mb4_general_ci".into(),
            created: "2026-11-29 00:00:00".into(),
            modified: "2026-11-29 00:00:00".into(),
        };
        for written in &c.characteristics {
            written.apply(&mut routine);
        }
        routine
    }

    #[test]
    fn create_keeps_parameters_and_body_as_written() {
        let c = create(
            "CREATE DEFINER=`u`@`%` PROCEDURE d.p( in a int , out b varchar(3)) \
             COMMENT 'it''s' NO SQL DETERMINISTIC SQL SECURITY INVOKER CONTAINS SQL \
             BEGIN SELECT a; END;",
        );
        assert_eq!(c.name.to_string(), "d.p");
        assert_eq!(c.definer.as_deref(), Some("u@%"));
        assert_eq!(c.parameters, " in a int , out b varchar(3)");
        assert_eq!(c.body, "BEGIN SELECT a; END");
        let routine = as_stored(&c);
        let set = (
            routine.comment.as_str(),
            routine.deterministic,
            routine.data_access.as_str(),
            routine.security.as_str(),
        );
        assert_eq!(set, ("it's", true, "CONTAINS SQL", "INVOKER"));
        assert_eq!(
            create_text(&routine),
            "CREATE DEFINER=`u`@`%` PROCEDURE `p`( in a int , out b varchar(3))\n    \
             DETERMINISTIC\n    SQL SECURITY INVOKER\n    COMMENT 'it''s'\nBEGIN SELECT a; END"
        );
    }

    #[test]
    fn parameters_read_modes_and_refuse_duplicates() {
        let read = parameters("in a int, OUT b varchar(3), inout c int, inn int").expect("reads");
        let modes: Vec<_> = read.iter().map(|p| (p.mode, p.name.as_str())).collect();
        assert_eq!(
            modes,
            [
                (Mode::In, "a"),
                (Mode::Out, "b"),
                (Mode::InOut, "c"),
                (Mode::In, "inn")
            ]
        );
        assert!(parameters("").expect("reads").is_empty());
        let e = parameters("x int, X int").expect_err("a duplicate");
        assert_eq!(
            (e.code, e.message.as_str()),
            (ErrorCode::SpDupParam, "Duplicate parameter: X")
        );
        assert_eq!(parameters("x").expect_err("no type").code, ErrorCode::Parse);
    }

    #[test]
    fn call_and_drop_read_their_names() {
        match parse::parse("CALL d.p(1, @x)", 1).expect("parses") {
            Statement::Call { name, arguments } => {
                assert_eq!((name.to_string(), arguments.len()), ("d.p".to_string(), 2))
            }
            _ => panic!("not a CALL"),
        }
        assert!(matches!(
            parse::parse("CALL p", 1).expect("parses"),
            Statement::Call { arguments, .. } if arguments.is_empty()
        ));
        assert!(matches!(
            parse::parse("DROP PROCEDURE IF EXISTS p", 1).expect("parses"),
            Statement::DropRoutine {
                kind: RoutineKind::Procedure,
                if_exists: true,
                ..
            }
        ));
        assert!(matches!(
            parse::parse("DROP FUNCTION d.f", 1).expect("parses"),
            Statement::DropRoutine {
                kind: RoutineKind::Function,
                if_exists: false,
                ..
            }
        ));
    }

    #[test]
    fn create_function_reads_returns_as_show_create_prints_it() {
        let c = create(
            "CREATE FUNCTION IF NOT EXISTS d.f(a int) RETURNS varchar(30) CHARSET latin1 \
             COLLATE latin1_bin DETERMINISTIC RETURN concat(a, 'x')",
        );
        assert_eq!((c.kind, c.if_not_exists), (RoutineKind::Function, true));
        assert_eq!(c.body, "RETURN concat(a, 'x')");
        assert_eq!(c.characteristics, [Characteristic::Deterministic(true)]);
        let returns = c.returns.expect("a function has RETURNS");
        let data_type = returns_type(&returns, Collation::Utf8mb4GeneralCi).expect("a type");
        let text = returns_text(&data_type);
        assert_eq!(text, "varchar(30) CHARSET utf8mb4 COLLATE utf8mb4_bin");
        assert_eq!(stored_returns(&text).expect("reads back"), data_type);
        let int = stored_returns("int(11)").expect("an int");
        assert_eq!(returns_text(&int), "int(11)");
        // Without a parameter list it is a UDF, which is not read as a stored function.
        assert!(!matches!(
            parse::parse("CREATE FUNCTION u RETURNS STRING SONAME 'u.so'", 1),
            Ok(Statement::CreateRoutine(_))
        ));
        // RETURNS is required.
        let e = parse::parse("CREATE FUNCTION f() RETURN 1", 1).expect_err("no RETURNS");
        assert_eq!(e.code, ErrorCode::Parse);
    }

    #[test]
    fn alter_reads_the_characteristics_it_changes_in_order() {
        let alter = parse::parse(
            "ALTER PROCEDURE d.p COMMENT 'a' LANGUAGE SQL NO SQL SQL SECURITY INVOKER COMMENT 'b'",
            1,
        )
        .expect("parses");
        let Statement::AlterRoutine {
            kind: RoutineKind::Procedure,
            name,
            changes,
        } = alter
        else {
            panic!("not an ALTER PROCEDURE: {alter:?}");
        };
        assert_eq!(name.to_string(), "d.p");
        use Characteristic::*;
        let expected = [
            Comment("a".into()),
            DataAccess("NO SQL".into()),
            Security("INVOKER".into()),
            Comment("b".into()),
        ];
        assert_eq!(changes, expected);
        let mut routine = as_stored(&create("CREATE PROCEDURE p() COMMENT 'x' SELECT 1"));
        for change in &changes {
            change.apply(&mut routine);
        }
        let set = (routine.comment.as_str(), routine.data_access.as_str());
        assert_eq!(set, ("b", "NO SQL"), "a later one wins");
        assert!(matches!(
            parse::parse("ALTER FUNCTION f", 1),
            Ok(Statement::AlterRoutine { ref changes, .. }) if changes.is_empty()
        ));
        for refused in [
            "ALTER FUNCTION f DETERMINISTIC",
            "ALTER FUNCTION f NOT DETERMINISTIC",
            "ALTER PROCEDURE p BOGUS",
            "ALTER PROCEDURE p COMMENT",
        ] {
            let e = parse::parse(refused, 1).expect_err(refused);
            assert_eq!(e.code, ErrorCode::Parse, "{refused}");
        }
    }
}
