//! Compound statements: the bodies of triggers, stored procedures and stored functions
//! (`routine`), read as MariaDB's stored-program grammar, bound once and interpreted per
//! execution (a function's body reads through the calling statement's view:
//! `Access::View`).
//!
//! A body is parsed into `Node`s (`parse`), then bound (`bind`) into `Op`s: every
//! expression and every SQL statement inside is bound like a prepared statement, each
//! reference to a local variable, `NEW.col` or `OLD.col` replaced by a `?` parameter whose
//! source a `Ref` names. Running a body (`run`) fills those parameters from a `Frame` (the
//! local variables' values and the trigger's rows) into one buffer that the frame reuses,
//! so a run allocates only its locals (one `Vec`) and what the statements themselves do.
//!
//! What is built: BEGIN ... END blocks with DECLARE of local variables at their start,
//! SET (of locals, `NEW.col`, `@user` variables, several in one SET), IF / ELSEIF / ELSE,
//! the CASE statement (both forms; 1339 when nothing matches and there is no ELSE),
//! WHILE, REPEAT, LOOP, FOR (over a range, a cursor or a SELECT: invariant (10)), labels
//! with LEAVE and ITERATE, SELECT ... INTO locals or user variables, SIGNAL with its
//! condition items, DECLARE ... CONDITION and HANDLER, cursors (DECLARE ... CURSOR with
//! MariaDB's cursor parameters, OPEN, FETCH, CLOSE), and INSERT/UPDATE/DELETE (with
//! RETURNING in a procedure), in a procedure SELECT, and in a function RETURN (1313
//! elsewhere).
//!
//! Invariants:
//! (1) Labels and local variables are resolved when the body is bound (1308, 1309, 1310,
//!     1327, 1331 at CREATE, as MariaDB); a local variable's name, unqualified, shadows a
//!     column of the same name in every statement of its scope, as in MariaDB. In an
//!     expression the program reads as its own (DO's, a condition, RETURN's: see
//!     `Binder::program_expr`) a bare name must be a local variable (1327 at CREATE);
//!     in a statement's, an unknown name is the statement's error when it runs.
//! (2) A value assigned to a local variable is converted to its declared type as a column
//!     store converts it (so 1264/1406 in strict mode, a warning otherwise).
//! (3) A condition that is NULL is false; a loop checks the statement's KILL flag on every
//!     iteration (MariaDB has no other guard against a runaway loop). A looping body keeps
//!     its worker busy meanwhile: the KILL must come from a connection on another worker.
//! (4) Anything of the grammar not built here is 1235 when the body is bound (at CREATE
//!     TRIGGER), never a silent no-op: SET of system variables, GET DIAGNOSTICS of
//!     conditions outside a handler's body, a FOR loop's record assigned as a whole, and in a
//!     procedure transaction control, DDL and dynamic SQL. A statement MariaDB refuses in
//!     a body is refused then too, with MariaDB's error (`Refusal`): 1422 for what commits
//!     and 1336 for dynamic SQL in a function or a trigger, 1445 for SET autocommit there,
//!     and in any body 1314 (LOCK, UNLOCK, LOAD DATA), 1303 and 1357 (CREATE, DROP or
//!     ALTER of a routine or trigger).
//! (5) Conditions: DECLARE ... CONDITION names an SQLSTATE or error number; DECLARE
//!     CONTINUE / EXIT HANDLER catches an error of a statement, or else the last warning
//!     or note it raised that a handler catches (SELECT ... INTO that finds no row raises
//!     1329 'no data', SIGNAL of class '01' a warning). The innermost block with a handler
//!     for the condition takes it, and of its handlers the closest (error number, then
//!     SQLSTATE, then SQLWARNING / NOT FOUND / SQLEXCEPTION). A handler's body runs with
//!     only the blocks around its block handling what it raises; then CONTINUE goes on
//!     after the statement that raised the condition (after a whole IF, CASE or loop when
//!     its condition raised it), EXIT leaves the handler's block. A KILL, a deadlock and a
//!     statement undone to wait for a lock are not caught. In a handler's body, RESIGNAL
//!     raises the caught condition again (with the items it SETs) or, given an SQLSTATE,
//!     a new one keeping its message; GET DIAGNOSTICS reads it as condition 1 of 1.
//! (6) The warnings and notes a trigger's or a function's body raises stay in it (`run`);
//!     a CALL ends with those of its body (nested CALLs' included) that MariaDB's would:
//!     each statement that raises a condition first clears those gathered before it, one
//!     that names a table clears them even if it raises none (`clears_conditions`), and a
//!     condition a handler catches is dropped. In a trigger, a
//!     statement whose error a handler caught keeps what it wrote before the error, as
//!     MariaDB's triggers do; in a procedure each statement is atomic (`run_procedure`),
//!     as in MariaDB. A plain SELECT is 1415 in a trigger or a function; in a procedure
//!     its rows are a result set for the CALL (`CallOutput`).
//!
//! (7) A body is bound when its trigger is created, but as in MariaDB only its form and its
//!     NEW / OLD references are checked then: an error binding one of its statements or
//!     expressions (an unknown table, column or function, 1442) is that statement's error
//!     when it runs, which a handler may catch.
//! (8) A cursor's rows are read when it is opened, through the body's view, and kept in
//!     the frame (MariaDB reads them into a temporary table): FETCH does not see later
//!     changes, the body's own included. A cursor is closed when its block ends, so a
//!     block run again (in a loop) opens it again. FETCH past the last row is error 1329
//!     (SQLSTATE 02000), not SELECT ... INTO's warning: NOT FOUND catches it, SQLEXCEPTION
//!     and SQLWARNING do not, and unhandled it ends the body, as in MariaDB. A cursor's
//!     parameters are locals only its query sees, set by OPEN's arguments (4080 for
//!     another count, at CREATE).
//! (9) A CALL inside a body binds the procedure with the body (`routine::bind_procedure`,
//!     once per procedure a body calls; a recursion is bound as one: `routine` invariant
//!     (7)), so its errors (1305, 1318, 1414, 1415 for result sets in a trigger or a
//!     function) are the CALL's when it runs (invariant (7)), as MariaDB raises them. It runs in
//!     the caller's transaction and view: its statements' result sets and affected rows
//!     go to the CALL running the outermost body, and its OUT and INOUT parameters return
//!     to local variables, user variables or (in a BEFORE trigger) NEW.col.
//! (10) A FOR loop's variable is a new local of the loop's body, shadowing one of the same
//!     name; its header is bound in the scope around the loop. Over a range, the counter
//!     and the last value are BIGINT locals set once when the loop starts (lower first, or
//!     upper for REVERSE), which NULL may not be assigned (1048, whatever the sql_mode);
//!     each step adds 1 (or -1) to what the counter holds, the body's SETs included, and
//!     the loop ends once it is past the last value (1690 past BIGINT's range), as in
//!     MariaDB. Over a cursor (REVERSE ignored, as MariaDB does) or a SELECT (a cursor
//!     with no name), the loop opens it (1325 if open), fetches each row into a record
//!     whose fields are locals named and typed as the query's columns, and closes it when
//!     it ends by itself (no more rows, or its own label's LEAVE): a LEAVE of an outer
//!     label, an EXIT handler or an error leave it open, as in MariaDB. A record's field
//!     that does not exist (4082) and the record read as one value (1241) are errors of
//!     the statement naming them, when it runs (invariant (7)), as in MariaDB.
//! (11) ROW_COUNT() in a body reads what the body's last SQL statement set when it ended,
//!     as MariaDB's statements set it: -1 after an error or a result set (a SELECT,
//!     RETURNING), an INSERT's, UPDATE's (changed rows) or DELETE's affected rows, the
//!     rows a SELECT ... INTO delivered (0 or 1), 0 after a SET of a user variable, and a
//!     CALL's sum of its statements' affected rows. SET of a local, control flow and
//!     handlers change nothing; the first statement reads what the statement before the
//!     CALL set.
//!
//! GET DIAGNOSTICS outside any body is a statement of its own (`parse_get_diagnostics`,
//! run by the session on its warning list).
//!
//! Not built yet: GET DIAGNOSTICS of conditions (NUMBER, CONDITION n) in a body outside a
//! handler's (MariaDB reads the previous statement's conditions there; GET DIAGNOSTICS ...
//! ROW_COUNT is built anywhere: invariant (11)), the 4094 note ("At line N in
//! db.trigger") MariaDB adds after an error raised inside a body, and SIGNAL's items
//! other than MESSAGE_TEXT and MYSQL_ERRNO (accepted and checked, but not kept: GET
//! DIAGNOSTICS reads them as '').

use crate::dml::{self, DeletePlan, InsertPlan, UpdatePlan};
use crate::error::{Condition, Error, ErrorCode, Result, Signalled};
use crate::exec;
use crate::expr::{self, coerce, EvalContext, Expr};
use crate::parse::{self, Statement};
use crate::routine::{Callee, Parameter};
use crate::scope::{BindScope, Parameters};
use crate::select::{BindContext, SelectPlan};
use crate::select_into::{self, IntoTarget};
use crate::session::StatementOutcome;
use manycore_storage::{ColumnSchema, ReadView, Table, Transaction};
use manycore_types::{DataType, Value};
use sqlparser::ast::{self, VisitMut, VisitorMut};
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan};
use std::cell::RefCell;
use std::ops::ControlFlow;
use std::sync::Arc;

/// The longest MESSAGE_TEXT a SIGNAL keeps (MariaDB's MYSQL_ERRMSG_SIZE for conditions).
const MESSAGE_TEXT_CHARS_MAX: usize = 128;

// ---------------------------------------------------------------------------------------
// Parsing

/// One statement of a body, parsed.
#[derive(Debug)]
enum Node {
    Block {
        label: Option<String>,
        declarations: Vec<Declaration>,
        body: Vec<Node>,
    },
    If {
        arms: Vec<(ast::Expr, Vec<Node>)>,
        otherwise: Option<Vec<Node>>,
    },
    Case {
        operand: Option<ast::Expr>,
        arms: Vec<(ast::Expr, Vec<Node>)>,
        otherwise: Option<Vec<Node>>,
    },
    Loop {
        label: Option<String>,
        kind: LoopKind<ast::Expr, Box<ForNode>>,
        body: Vec<Node>,
    },
    Leave(String),
    Iterate(String),
    Set(Vec<(ast::ObjectName, ast::Expr)>),
    Signal(Box<SignalNode>),
    /// GET [CURRENT] DIAGNOSTICS [CONDITION n] target = item, ...
    GetDiagnostics {
        condition: Option<ast::Expr>,
        items: Vec<(String, &'static str)>,
    },
    SelectInto {
        query: Box<ast::Query>,
        targets: Vec<String>,
        text: String,
    },
    Sql {
        statement: Box<ast::Statement>,
        text: String,
    },
    /// A statement no body holds here: the refusal is raised where the body is bound,
    /// which knows the kind of program.
    Refused(Refusal),
    /// RETURN expr, in a function's body.
    Return(ast::Expr),
    /// OPEN cursor [(argument, ...)]
    Open {
        cursor: String,
        arguments: Vec<ast::Expr>,
    },
    /// FETCH [[NEXT] FROM] cursor INTO variable, ...
    Fetch {
        cursor: String,
        targets: Vec<String>,
    },
    /// CLOSE cursor
    Close(String),
    /// CALL procedure[(argument, ...)]
    Call {
        name: ast::ObjectName,
        arguments: Vec<ast::Expr>,
    },
    /// DO expression, ...
    Do(Vec<ast::Expr>),
}

#[derive(Clone, Debug)]
enum LoopKind<E, F> {
    /// WHILE cond DO ... END WHILE
    While(E),
    /// REPEAT ... UNTIL cond END REPEAT
    Repeat(E),
    /// LOOP ... END LOOP
    Plain,
    /// FOR variable IN ... DO ... END FOR
    For(F),
}

/// A FOR loop's header: its variable and what it runs over.
#[derive(Debug)]
struct ForNode {
    /// A range's counter, or the record a cursor's rows are fetched into.
    variable: String,
    source: ForSource,
}

#[derive(Debug)]
enum ForSource {
    /// `[REVERSE] lower .. upper`
    Range {
        reverse: bool,
        lower: Box<ast::Expr>,
        upper: Box<ast::Expr>,
    },
    /// `cursor [(argument, ...)]` (REVERSE is accepted and ignored, as MariaDB does).
    Cursor {
        name: String,
        arguments: Vec<ast::Expr>,
    },
    /// `(SELECT ...)`: the rows of a cursor that has no name.
    Select {
        query: Box<ast::Query>,
        text: String,
    },
}

#[derive(Debug)]
enum Declaration {
    Variables {
        names: Vec<String>,
        data_type: DataType,
        default: Option<Box<ast::Expr>>,
    },
    /// DECLARE name CONDITION FOR ...
    Condition { name: String, value: ConditionNode },
    /// DECLARE {CONTINUE | EXIT} HANDLER FOR condition, ... statement
    Handler(Box<HandlerNode>),
    /// DECLARE name CURSOR [(parameter type, ...)] FOR select
    Cursor(Box<CursorNode>),
}

#[derive(Debug)]
struct CursorNode {
    name: String,
    /// MariaDB's cursor parameters: locals of the cursor's query, set by OPEN.
    parameters: Vec<(String, DataType)>,
    query: Box<ast::Query>,
    text: String,
}

/// A condition as a handler or DECLARE ... CONDITION names it.
#[derive(Debug)]
enum ConditionNode {
    Value(ConditionValue),
    /// A declared condition's name.
    Named(String),
}

#[derive(Debug)]
struct HandlerNode {
    exit: bool,
    conditions: Vec<ConditionNode>,
    body: Node,
}

/// What SIGNAL raises: an SQLSTATE, or a condition declared with one.
#[derive(Debug)]
enum SignalTarget {
    Sqlstate(String),
    Named(String),
}

#[derive(Debug)]
struct SignalNode {
    /// RESIGNAL: raise the condition the running handler caught, or a new one.
    resignal: bool,
    /// None: RESIGNAL of the caught condition itself.
    target: Option<SignalTarget>,
    message: Option<ast::Expr>,
    errno: Option<ast::Expr>,
    /// The other condition items (CLASS_ORIGIN, ...): evaluated, kept by nobody.
    others: Vec<ast::Expr>,
}

/// What a GET DIAGNOSTICS reads: the condition number (None: the statement items NUMBER
/// and ROW_COUNT), and each target with its item.
pub(crate) type DiagnosticsRequest = (Option<ast::Expr>, Vec<(String, &'static str)>);

/// GET DIAGNOSTICS as a statement of its own (outside any body: it reads the session's
/// diagnostics area), parsed as in a body.
pub(crate) fn parse_get_diagnostics(text: &str) -> Result<DiagnosticsRequest> {
    let mut reader = Reader::new(text, Program::Procedure)?;
    let request = reader.get_diagnostics()?;
    match reader.parser.peek_token().token {
        Token::EOF => Ok(request),
        _ => Err(reader.error_here()),
    }
}

/// The items of a condition GET DIAGNOSTICS reads; SIGNAL sets all but the first.
const CONDITION_ITEMS: [&str; 13] = [
    "RETURNED_SQLSTATE",
    "MESSAGE_TEXT",
    "MYSQL_ERRNO",
    "CLASS_ORIGIN",
    "SUBCLASS_ORIGIN",
    "CONSTRAINT_CATALOG",
    "CONSTRAINT_SCHEMA",
    "CONSTRAINT_NAME",
    "CATALOG_NAME",
    "SCHEMA_NAME",
    "TABLE_NAME",
    "COLUMN_NAME",
    "CURSOR_NAME",
];

/// Words that end a statement list.
const LIST_END: [&str; 5] = ["END", "ELSE", "ELSEIF", "WHEN", "UNTIL"];

struct Reader<'t> {
    text: &'t str,
    parser: Parser<'t>,
    program: Program,
}

type ParseResult<T> = std::result::Result<T, Error>;

impl<'t> Reader<'t> {
    fn new(text: &'t str, program: Program) -> ParseResult<Reader<'t>> {
        let parser = parse::parser(text).map_err(|e| parse::parse_error(text, 1, &e))?;
        Ok(Reader {
            text,
            parser,
            program,
        })
    }

    fn peek_word(&self, n: usize) -> Option<String> {
        parse::word(&self.parser.peek_nth_token(n))
    }

    fn offset(&self, token: &TokenWithSpan) -> usize {
        let at = token.span.start;
        if token.token == Token::EOF {
            return self.text.len();
        }
        parse::offset_of(self.text, at.line as usize, at.column as usize)
    }

    /// 1064 near the next token, as MariaDB reports a statement it cannot read.
    fn error_here(&self) -> Error {
        let token = self.parser.peek_token();
        let at = self.offset(&token);
        let line = self.text[..at].matches('\n').count() + 1;
        Error::parse_near(self.text[at..].trim_end(), line)
    }

    fn fail(&self, e: ParserError) -> Error {
        parse::parse_error(self.text, 1, &e)
    }

    fn expect_word(&mut self, word: &str) -> ParseResult<()> {
        if self.peek_word(0).as_deref() == Some(word) {
            self.parser.next_token();
            Ok(())
        } else {
            Err(self.error_here())
        }
    }

    fn eat_word(&mut self, word: &str) -> bool {
        let found = self.peek_word(0).as_deref() == Some(word);
        if found {
            self.parser.next_token();
        }
        found
    }

    fn expr(&mut self) -> ParseResult<ast::Expr> {
        self.parser.parse_expr().map_err(|e| self.fail(e))
    }

    fn name(&mut self) -> ParseResult<String> {
        match self.parser.parse_identifier() {
            Ok(ident) => Ok(ident.value),
            Err(_) => Err(self.error_here()),
        }
    }

    /// The whole body: one statement, then the end of the text.
    fn body(&mut self) -> ParseResult<Node> {
        let node = self.statement(true)?;
        if self.parser.peek_token().token != Token::EOF {
            return Err(self.error_here());
        }
        Ok(node)
    }

    /// Statements each ended by `;`, up to a word that ends the list.
    fn list(&mut self, may_be_empty: bool) -> ParseResult<Vec<Node>> {
        let mut nodes = Vec::new();
        loop {
            let next = self.peek_word(0);
            let at_end = next.as_deref().is_some_and(|w| LIST_END.contains(&w))
                || self.parser.peek_token().token == Token::EOF;
            if at_end {
                if nodes.is_empty() && !may_be_empty {
                    return Err(self.error_here());
                }
                return Ok(nodes);
            }
            if next.as_deref() == Some("DECLARE") {
                // DECLARE only at the start of a BEGIN block (MariaDB's grammar).
                return Err(self.error_here());
            }
            nodes.push(self.statement(false)?);
            if self.parser.peek_token().token != Token::SemiColon {
                return Err(self.error_here());
            }
            self.parser.next_token();
        }
    }

    fn statement(&mut self, whole_body: bool) -> ParseResult<Node> {
        let label = match (self.peek_word(0), &self.parser.peek_nth_token(1).token) {
            (Some(_), Token::Colon)
                if matches!(
                    self.peek_word(2).as_deref(),
                    Some("BEGIN" | "LOOP" | "WHILE" | "REPEAT" | "FOR")
                ) =>
            {
                let label = self.name()?;
                self.parser.next_token();
                Some(label)
            }
            _ => None,
        };
        let word = self.peek_word(0);
        match word.as_deref() {
            Some("BEGIN") => self.block(label),
            Some("LOOP" | "WHILE" | "REPEAT" | "FOR") => self.loop_statement(label),
            Some("IF") => self.if_statement(),
            Some("CASE") => self.case_statement(),
            Some("LEAVE" | "ITERATE") => {
                self.parser.next_token();
                let target = self.name()?;
                Ok(match word.as_deref() {
                    Some("LEAVE") => Node::Leave(target),
                    _ => Node::Iterate(target),
                })
            }
            Some("SET") if self.set_is_assignment() => self.set_statement(),
            Some("SIGNAL" | "RESIGNAL") => self.signal(),
            Some("GET") => {
                let (condition, items) = self.get_diagnostics()?;
                Ok(Node::GetDiagnostics { condition, items })
            }
            Some("DECLARE") => Err(self.error_here()),
            Some("RETURN") if self.program == Program::Function => {
                self.parser.next_token();
                Ok(Node::Return(self.expr()?))
            }
            Some("RETURN") => Err(Error::new(
                ErrorCode::SpBadReturn,
                "RETURN is only allowed in a FUNCTION",
            )),
            Some("OPEN") => {
                self.parser.next_token();
                let cursor = self.name()?;
                let arguments = self.cursor_arguments()?;
                Ok(Node::Open { cursor, arguments })
            }
            Some("FETCH") => self.fetch(),
            Some("CLOSE") => {
                self.parser.next_token();
                Ok(Node::Close(self.name()?))
            }
            _ => self.sql(whole_body),
        }
    }

    /// A cursor's arguments, `[(argument, ...)]`, after its name.
    fn cursor_arguments(&mut self) -> ParseResult<Vec<ast::Expr>> {
        if !self.parser.consume_token(&Token::LParen) || self.parser.consume_token(&Token::RParen) {
            return Ok(Vec::new());
        }
        let arguments = self
            .parser
            .parse_comma_separated(Parser::parse_expr)
            .map_err(|e| self.fail(e))?;
        self.parser
            .expect_token(&Token::RParen)
            .map_err(|e| self.fail(e))?;
        Ok(arguments)
    }

    /// `SET a = ...`: not SET NAMES, SET TRANSACTION, SET PASSWORD...
    fn set_is_assignment(&self) -> bool {
        !matches!(
            self.peek_word(1).as_deref(),
            Some(
                "NAMES"
                    | "CHARACTER"
                    | "CHARSET"
                    | "TRANSACTION"
                    | "PASSWORD"
                    | "ROLE"
                    | "DEFAULT"
                    | "GLOBAL"
                    | "SESSION"
                    | "LOCAL"
                    | "STATEMENT"
            )
        )
    }

    fn block(&mut self, label: Option<String>) -> ParseResult<Node> {
        self.expect_word("BEGIN")?;
        if self.peek_word(0).as_deref() == Some("NOT")
            && self.peek_word(1).as_deref() == Some("ATOMIC")
        {
            self.parser.next_token();
            self.parser.next_token();
        }
        let mut declarations = Vec::new();
        while self.peek_word(0).as_deref() == Some("DECLARE") {
            // Variables and conditions first, then cursors, then handlers (MariaDB's
            // order).
            let declaration = self.declaration()?;
            let after = |cursors: bool| {
                declarations.iter().any(|d| match d {
                    Declaration::Handler(_) => true,
                    Declaration::Cursor(_) => cursors,
                    _ => false,
                })
            };
            match declaration {
                Declaration::Variables { .. } | Declaration::Condition { .. } if after(true) => {
                    return Err(Error::new(
                        ErrorCode::SpVarcondAfterCurshndlr,
                        "Variable or condition declaration after cursor or handler declaration",
                    ))
                }
                Declaration::Cursor(_) if after(false) => {
                    return Err(Error::new(
                        ErrorCode::SpCursorAfterHandler,
                        "Cursor declaration after handler declaration",
                    ))
                }
                _ => {}
            }
            declarations.push(declaration);
            if self.parser.peek_token().token != Token::SemiColon {
                return Err(self.error_here());
            }
            self.parser.next_token();
        }
        let body = self.list(true)?;
        self.expect_word("END")?;
        self.end_label(&label)?;
        Ok(Node::Block {
            label,
            declarations,
            body,
        })
    }

    /// An end label must repeat the begin label (1310).
    fn end_label(&mut self, label: &Option<String>) -> ParseResult<()> {
        let Token::Word(w) = self.parser.peek_token().token else {
            return Ok(());
        };
        if parse::word(&self.parser.peek_token()).is_some_and(|w| LIST_END.contains(&w.as_str())) {
            return Ok(());
        }
        self.parser.next_token();
        match label {
            Some(l) if l.eq_ignore_ascii_case(&w.value) => Ok(()),
            _ => Err(Error::new(
                ErrorCode::SpLabelMismatch,
                format!("End-label {} without match", w.value),
            )),
        }
    }

    fn declaration(&mut self) -> ParseResult<Declaration> {
        self.expect_word("DECLARE")?;
        if self.peek_word(0).as_deref() == Some("UNDO") {
            // MariaDB's grammar has no UNDO handlers.
            return Err(self.error_here());
        }
        if let Some(kind @ ("CONTINUE" | "EXIT")) = self.peek_word(0).as_deref() {
            let exit = kind == "EXIT";
            self.parser.next_token();
            return self.handler(exit);
        }
        let mut names = vec![self.name()?];
        match self.peek_word(0).as_deref() {
            Some("CONDITION") => {
                self.parser.next_token();
                self.expect_word("FOR")?;
                // A condition names an SQLSTATE or an error number, nothing else.
                let by_number = matches!(self.parser.peek_token().token, Token::Number(..));
                if !by_number && self.peek_word(0).as_deref() != Some("SQLSTATE") {
                    return Err(self.error_here());
                }
                let value = self.condition()?;
                return Ok(Declaration::Condition {
                    name: names.remove(0),
                    value,
                });
            }
            Some("CURSOR") => {
                self.parser.next_token();
                return self.cursor(names.remove(0));
            }
            _ => {}
        }
        while self.parser.consume_token(&Token::Comma) {
            names.push(self.name()?);
        }
        let declared = self.parser.parse_data_type().map_err(|e| self.fail(e))?;
        let data_type = crate::ddl::column_type(&names[0], &declared)?;
        if matches!(
            self.peek_word(0).as_deref(),
            Some("CHARACTER" | "CHARSET" | "COLLATE")
        ) {
            return Err(Error::not_supported(
                "CHARACTER SET or COLLATE of a local variable",
            ));
        }
        let default = if self.eat_word("DEFAULT") {
            Some(Box::new(self.expr()?))
        } else {
            None
        };
        Ok(Declaration::Variables {
            names,
            data_type,
            default,
        })
    }

    /// `CURSOR [(parameter type, ...)] FOR select`, after the cursor's name.
    fn cursor(&mut self, name: String) -> ParseResult<Declaration> {
        let mut parameters = Vec::new();
        if self.parser.consume_token(&Token::LParen) {
            loop {
                let parameter = self.name()?;
                let declared = self.parser.parse_data_type().map_err(|e| self.fail(e))?;
                let data_type = crate::ddl::column_type(&parameter, &declared)?;
                parameters.push((parameter, data_type));
                if !self.parser.consume_token(&Token::Comma) {
                    break;
                }
            }
            self.parser
                .expect_token(&Token::RParen)
                .map_err(|e| self.fail(e))?;
        }
        self.expect_word("FOR")?;
        let at = self.offset(&self.parser.peek_token());
        let statement = self.sql(false)?;
        let (query, text) = self.cursor_query(statement, at)?;
        Ok(Declaration::Cursor(Box::new(CursorNode {
            name,
            parameters,
            query,
            text,
        })))
    }

    /// A cursor's query, read as `statement` from offset `at`: a SELECT without INTO
    /// (1323 with one, 1064 for another statement).
    fn cursor_query(&self, statement: Node, at: usize) -> ParseResult<(Box<ast::Query>, String)> {
        match statement {
            Node::SelectInto { .. } => Err(Error::new(
                ErrorCode::SpBadCursorSelect,
                "Cursor SELECT must not have INTO",
            )),
            Node::Sql { statement, text } => match *statement {
                ast::Statement::Query(query) => Ok((query, text)),
                _ => Err(Error::parse_near(self.text[at..].trim_end(), 1)),
            },
            _ => Err(Error::parse_near(self.text[at..].trim_end(), 1)),
        }
    }

    /// `FETCH [[NEXT] FROM] cursor INTO variable [, variable]...`: local variables only
    /// (MariaDB's grammar takes no `@user` there).
    fn fetch(&mut self) -> ParseResult<Node> {
        self.expect_word("FETCH")?;
        if self.eat_word("NEXT") {
            self.expect_word("FROM")?;
        } else {
            self.eat_word("FROM");
        }
        let cursor = self.name()?;
        self.expect_word("INTO")?;
        let mut targets = Vec::new();
        loop {
            if self.peek_word(0).is_some_and(|w| w.starts_with('@')) {
                return Err(self.error_here());
            }
            targets.push(self.name()?);
            if !self.parser.consume_token(&Token::Comma) {
                return Ok(Node::Fetch { cursor, targets });
            }
        }
    }

    /// `HANDLER FOR condition [, condition]... statement`, after CONTINUE or EXIT.
    fn handler(&mut self, exit: bool) -> ParseResult<Declaration> {
        self.expect_word("HANDLER")?;
        self.expect_word("FOR")?;
        let mut conditions = vec![self.condition()?];
        while self.parser.consume_token(&Token::Comma) {
            conditions.push(self.condition()?);
        }
        let body = self.statement(false)?;
        Ok(Declaration::Handler(Box::new(HandlerNode {
            exit,
            conditions,
            body,
        })))
    }

    /// A condition value: `SQLSTATE [VALUE] 'state'`, an error number, SQLWARNING,
    /// NOT FOUND, SQLEXCEPTION or a declared condition's name.
    fn condition(&mut self) -> ParseResult<ConditionNode> {
        let token = self.parser.peek_token();
        if let Token::Number(digits, _) = &token.token {
            let number = digits.parse::<u16>().ok().filter(|n| *n > 0);
            let Some(number) = number else {
                return Err(Error::new(
                    ErrorCode::WrongValue,
                    format!("Incorrect CONDITION value: '{digits}'"),
                ));
            };
            self.parser.next_token();
            return Ok(ConditionNode::Value(ConditionValue::Number(number)));
        }
        let value = match self.peek_word(0).as_deref() {
            Some("SQLSTATE") => {
                self.parser.next_token();
                self.eat_word("VALUE");
                ConditionValue::Sqlstate(self.sqlstate()?)
            }
            Some("SQLWARNING") => ConditionValue::Warning,
            Some("SQLEXCEPTION") => ConditionValue::Exception,
            Some("NOT") if self.peek_word(1).as_deref() == Some("FOUND") => {
                self.parser.next_token();
                ConditionValue::NotFound
            }
            Some(_) if matches!(token.token, Token::Word(_)) => {
                return Ok(ConditionNode::Named(self.name()?));
            }
            _ => return Err(self.error_here()),
        };
        if !matches!(value, ConditionValue::Sqlstate(_)) {
            self.parser.next_token();
        }
        Ok(ConditionNode::Value(value))
    }

    /// A quoted SQLSTATE: five digits or capital letters, not of class '00' (1407).
    fn sqlstate(&mut self) -> ParseResult<String> {
        let sqlstate = self
            .parser
            .parse_literal_string()
            .map_err(|e| self.fail(e))?;
        let well_formed = sqlstate.len() == 5
            && sqlstate
                .bytes()
                .all(|b| b.is_ascii_digit() || b.is_ascii_uppercase())
            && !sqlstate.starts_with("00");
        if !well_formed {
            return Err(Error::new(
                ErrorCode::SpBadSqlstate,
                format!("Bad SQLSTATE: '{sqlstate}'"),
            ));
        }
        Ok(sqlstate)
    }

    fn loop_statement(&mut self, label: Option<String>) -> ParseResult<Node> {
        let word = self.peek_word(0).unwrap_or_default();
        self.parser.next_token();
        let (kind, body) = match word.as_str() {
            "WHILE" => {
                let condition = self.expr()?;
                self.expect_word("DO")?;
                let body = self.list(false)?;
                (LoopKind::While(condition), body)
            }
            "REPEAT" => {
                let body = self.list(false)?;
                self.expect_word("UNTIL")?;
                (LoopKind::Repeat(self.expr()?), body)
            }
            "FOR" => {
                let header = self.for_header()?;
                self.expect_word("DO")?;
                (LoopKind::For(Box::new(header)), self.list(false)?)
            }
            _ => (LoopKind::Plain, self.list(false)?),
        };
        self.expect_word("END")?;
        self.expect_word(&word)?;
        self.end_label(&label)?;
        Ok(Node::Loop { label, kind, body })
    }

    /// `variable IN [REVERSE] {lower .. upper | cursor [(argument, ...)] | (SELECT ...)}`,
    /// after FOR, up to its DO. The tokenizer reads `1..3` as `1.` `.3`, so a range's
    /// bounds are parsed from the text on either side of its `..`.
    fn for_header(&mut self) -> ParseResult<ForNode> {
        let variable = self.name()?;
        self.expect_word("IN")?;
        let reverse = self.eat_word("REVERSE");
        let start = self.offset(&self.parser.peek_token());
        let end = self.before_do()?;
        let header = &self.text[start..end];
        let source = if let Some(dots) = range_dots(header) {
            ForSource::Range {
                reverse,
                lower: Box::new(self.expr_between(start, start + dots)?),
                upper: Box::new(self.expr_between(start + dots + 2, end)?),
            }
        } else if let Some(inner) = header
            .trim_end()
            .strip_prefix('(')
            .and_then(|h| h.strip_suffix(')'))
        {
            let at = start + 1;
            let line = self.text[..at].matches('\n').count() + 1;
            let statement = self.statement_text(inner.trim(), line, true)?;
            let (query, text) = self.cursor_query(statement, at)?;
            ForSource::Select { query, text }
        } else {
            let name = self.name()?;
            let arguments = self.cursor_arguments()?;
            ForSource::Cursor { name, arguments }
        };
        while self.offset(&self.parser.peek_token()) < end {
            self.parser.next_token();
        }
        Ok(ForNode { variable, source })
    }

    /// The offset of the DO that ends a FOR header (outside parentheses).
    fn before_do(&self) -> ParseResult<usize> {
        let mut depth = 0usize;
        for n in 0.. {
            let token = self.parser.peek_nth_token(n);
            match &token.token {
                Token::EOF => break,
                Token::LParen => depth += 1,
                Token::RParen => depth = depth.saturating_sub(1),
                _ if depth == 0 && parse::word(&token).as_deref() == Some("DO") => {
                    return Ok(self.offset(&token))
                }
                _ => {}
            }
        }
        Err(self.error_here())
    }

    /// The expression that is all of `text[from..to]` (1064 near what is left over).
    fn expr_between(&self, from: usize, to: usize) -> ParseResult<ast::Expr> {
        let text = &self.text[from..to];
        let near = |parser: &Parser| {
            let at = parser.peek_token().span.start;
            let at = match at.line {
                0 => text.len(),
                line => parse::offset_of(text, line as usize, at.column as usize),
            };
            let at = from + at;
            let line = self.text[..at].matches('\n').count() + 1;
            Error::parse_near(self.text[at..].trim_end(), line)
        };
        let mut parser = parse::parser(text).map_err(|e| parse::parse_error(text, 1, &e))?;
        let Ok(e) = parser.parse_expr() else {
            return Err(near(&parser));
        };
        if parser.peek_token().token != Token::EOF {
            return Err(near(&parser));
        }
        Ok(e)
    }

    fn if_statement(&mut self) -> ParseResult<Node> {
        self.expect_word("IF")?;
        let mut arms = Vec::new();
        let mut otherwise = None;
        loop {
            let condition = self.expr()?;
            self.expect_word("THEN")?;
            arms.push((condition, self.list(false)?));
            if self.eat_word("ELSEIF") {
                continue;
            }
            if self.eat_word("ELSE") {
                otherwise = Some(self.list(false)?);
            }
            break;
        }
        self.expect_word("END")?;
        self.expect_word("IF")?;
        Ok(Node::If { arms, otherwise })
    }

    fn case_statement(&mut self) -> ParseResult<Node> {
        self.expect_word("CASE")?;
        let operand = match self.peek_word(0).as_deref() {
            Some("WHEN") => None,
            _ => Some(self.expr()?),
        };
        let mut arms = Vec::new();
        while self.eat_word("WHEN") {
            let value = self.expr()?;
            self.expect_word("THEN")?;
            arms.push((value, self.list(false)?));
        }
        if arms.is_empty() {
            return Err(self.error_here());
        }
        let otherwise = if self.eat_word("ELSE") {
            Some(self.list(false)?)
        } else {
            None
        };
        self.expect_word("END")?;
        self.expect_word("CASE")?;
        Ok(Node::Case {
            operand,
            arms,
            otherwise,
        })
    }

    /// SET target = expr [, target = expr]... (`:=` as well).
    fn set_statement(&mut self) -> ParseResult<Node> {
        self.expect_word("SET")?;
        let mut items = Vec::new();
        loop {
            let target = match self.parser.parse_object_name(false) {
                Ok(name) => name,
                Err(_) => return Err(self.error_here()),
            };
            if !self.parser.consume_token(&Token::Eq)
                && !self.parser.consume_token(&Token::Assignment)
            {
                return Err(self.error_here());
            }
            items.push((target, self.expr()?));
            if !self.parser.consume_token(&Token::Comma) {
                return Ok(Node::Set(items));
            }
        }
    }

    /// SIGNAL {SQLSTATE [VALUE] 'state' | condition} [SET item = value, ...].
    fn signal(&mut self) -> ParseResult<Node> {
        let resignal = self.eat_word("RESIGNAL");
        if !resignal {
            self.expect_word("SIGNAL")?;
        }
        let at_end = matches!(
            self.parser.peek_token().token,
            Token::SemiColon | Token::EOF
        ) || self.peek_word(0).as_deref() == Some("SET");
        let target = if self.eat_word("SQLSTATE") {
            self.eat_word("VALUE");
            Some(SignalTarget::Sqlstate(self.sqlstate()?))
        } else if resignal && at_end {
            None
        } else {
            Some(SignalTarget::Named(self.name()?))
        };
        let mut signal = SignalNode {
            resignal,
            target,
            message: None,
            errno: None,
            others: Vec::new(),
        };
        let mut seen: Vec<String> = Vec::new();
        if self.eat_word("SET") {
            loop {
                let item = self.peek_word(0).unwrap_or_default();
                if !CONDITION_ITEMS[1..].contains(&item.as_str()) {
                    return Err(self.error_here());
                }
                self.parser.next_token();
                if seen.contains(&item) {
                    return Err(Error::new(
                        ErrorCode::DupSignalSet,
                        format!("Duplicate condition information item '{item}'"),
                    ));
                }
                if !self.parser.consume_token(&Token::Eq) {
                    return Err(self.error_here());
                }
                let value_at = self.parser.peek_token();
                let value = self.expr()?;
                if let ast::Expr::Function(f) = &value {
                    // MariaDB reads the name as a variable's and stops there.
                    return Err(undeclared(&f.name.to_string()));
                }
                if !is_simple_value(&value) {
                    // MariaDB takes a literal or a variable here, not an expression.
                    let at = self.offset(&value_at);
                    return Err(Error::parse_near(self.text[at..].trim_end(), 1));
                }
                match item.as_str() {
                    "MESSAGE_TEXT" => signal.message = Some(value),
                    "MYSQL_ERRNO" => signal.errno = Some(value),
                    _ => signal.others.push(value),
                }
                seen.push(item);
                if !self.parser.consume_token(&Token::Comma) {
                    break;
                }
            }
        }
        Ok(Node::Signal(Box::new(signal)))
    }

    /// `GET [CURRENT] DIAGNOSTICS target = {NUMBER | ROW_COUNT}, ...` or `GET [CURRENT]
    /// DIAGNOSTICS CONDITION n target = condition_item, ...`.
    fn get_diagnostics(&mut self) -> ParseResult<DiagnosticsRequest> {
        self.expect_word("GET")?;
        self.eat_word("CURRENT");
        self.expect_word("DIAGNOSTICS")?;
        let condition = match self.eat_word("CONDITION") {
            // A literal or a variable, as MariaDB takes there.
            true => Some(self.parser.parse_prefix().map_err(|e| self.fail(e))?),
            false => None,
        };
        let allowed: &[&'static str] = match condition {
            Some(_) => &CONDITION_ITEMS,
            None => &["NUMBER", "ROW_COUNT"],
        };
        let mut items = Vec::new();
        loop {
            let target = self.name()?;
            if !self.parser.consume_token(&Token::Eq) {
                return Err(self.error_here());
            }
            let word = self.peek_word(0).unwrap_or_default();
            let Some(item) = allowed.iter().find(|i| **i == word) else {
                return Err(self.error_here());
            };
            self.parser.next_token();
            items.push((target, *item));
            if !self.parser.consume_token(&Token::Comma) {
                return Ok((condition, items));
            }
        }
    }

    /// A statement of SQL: up to its `;` (or the end of a one-statement body).
    fn sql(&mut self, whole_body: bool) -> ParseResult<Node> {
        let first = self.parser.peek_token();
        let start = self.offset(&first);
        loop {
            let token = self.parser.peek_token();
            if token.token == Token::EOF || token.token == Token::SemiColon && !whole_body {
                break;
            }
            self.parser.next_token();
        }
        let end = self.offset(&self.parser.peek_token());
        let text = self.text[start..end].trim_end();
        let line = self.text[..start].matches('\n').count() + 1;
        let select = parse::word(&first).as_deref() == Some("SELECT");
        self.statement_text(text, line, select)
    }

    /// The statement of SQL `text` (starting on `line`); `select` when it may be a
    /// SELECT ... INTO.
    fn statement_text(&self, text: &str, line: usize, select: bool) -> ParseResult<Node> {
        if select {
            if let Some(node) = self.select_into(text, line)? {
                return Ok(node);
            }
        }
        match parse::parse(text, line)? {
            Statement::Sql(statement) => Ok(Node::Sql {
                statement,
                text: text.to_string(),
            }),
            Statement::Call { name, arguments } => Ok(Node::Call { name, arguments }),
            Statement::Do(values) => Ok(Node::Do(values)),
            other => Ok(Node::Refused(refusal(&other))),
        }
    }

    /// `SELECT ... INTO a, @b ...`: the query without its INTO clause, and the targets.
    fn select_into(&self, text: &str, line: usize) -> ParseResult<Option<Node>> {
        let (query_text, into) = match select_into::split(text) {
            Ok(Some(split)) => split,
            Ok(None) => return Ok(None),
            Err(e) => return Err(parse::parse_error(text, line, &e)),
        };
        let IntoTarget::Variables(targets) = into.target else {
            return Err(Error::not_supported(
                "SELECT ... INTO OUTFILE in a stored program body",
            ));
        };
        match parse::parse(&query_text, line)? {
            Statement::Sql(statement) => match *statement {
                ast::Statement::Query(query) => Ok(Some(Node::SelectInto {
                    query,
                    targets,
                    text: query_text,
                })),
                _ => Err(self.error_here()),
            },
            _ => Err(self.error_here()),
        }
    }
}

/// The offset of a range's `..` in a FOR header, outside quotes and parentheses.
fn range_dots(header: &str) -> Option<usize> {
    let bytes = header.as_bytes();
    let mut depth = 0usize;
    let mut quote = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) if b == b'\\' && q != b'`' => i += 1,
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None => match b {
                b'\'' | b'"' | b'`' => quote = Some(b),
                b'(' => depth += 1,
                b')' => depth = depth.saturating_sub(1),
                b'.' if depth == 0 && bytes.get(i + 1) == Some(&b'.') => return Some(i),
                _ => {}
            },
        }
        i += 1;
    }
    None
}

/// Whether `declared` names `name` (case-insensitively, as MariaDB compares them).
fn is_declared<T>(declared: &[(String, T)], name: &str) -> bool {
    declared.iter().any(|(n, _)| n.eq_ignore_ascii_case(name))
}

/// The innermost of `in_scope` (innermost last) that `name` names, as MariaDB compares
/// names (without case).
fn innermost(in_scope: &[(String, usize)], name: &str) -> Option<usize> {
    in_scope
        .iter()
        .rev()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, number)| *number)
}

/// 1327 for `name`, a variable that is neither a declared local nor `@user`.
pub(crate) fn undeclared(name: &str) -> Error {
    Error::new(
        ErrorCode::SpUndeclaredVar,
        format!("Undeclared variable: {name}"),
    )
}

fn no_result_sets(program: Program) -> Error {
    let from = match program {
        Program::Function => "a function",
        _ => "a trigger",
    };
    Error::new(
        ErrorCode::SpNoRetset,
        format!("Not allowed to return a result set from {from}"),
    )
}

/// What ROW_COUNT() returns after a body's INSERT, UPDATE or DELETE (invariant (11)): its
/// affected rows, or -1 when it sent rows (RETURNING), as after a statement of the session.
fn row_count_after(outcome: &StatementOutcome) -> i64 {
    match outcome {
        StatementOutcome::Returned { .. } => -1,
        outcome => outcome.affected_rows() as i64,
    }
}

/// Why a body may not hold a statement, as MariaDB says it when the body is created.
#[derive(Debug)]
enum Refusal {
    /// It commits (transaction control, DDL, accounts): 1422 in a function or a trigger;
    /// in a procedure, where MariaDB runs it, it is not built here.
    Commits,
    /// PREPARE, EXECUTE, DEALLOCATE: 1336 in a function or a trigger; in a procedure, not
    /// built here.
    DynamicSql,
    /// SET PASSWORD, which MariaDB refuses with 1445 in a function or a trigger; in a
    /// procedure, not built here.
    SetsPassword,
    /// Refused in every body: 1303, 1314, 1357.
    Always(Error),
    /// MariaDB runs it in a body; not built here.
    NotBuilt,
}

impl Refusal {
    /// The error for a body of `program` holding the statement.
    fn error(self, program: Program) -> Error {
        let function_or_trigger = program != Program::Procedure;
        match self {
            Refusal::Always(e) => e,
            Refusal::Commits if function_or_trigger => Error::new(
                ErrorCode::CommitNotAllowedInSfOrTrg,
                "Explicit or implicit commit is not allowed in stored function or trigger",
            ),
            Refusal::DynamicSql if function_or_trigger => Error::new(
                ErrorCode::StmtNotAllowedInSfOrTrg,
                "Dynamic SQL is not allowed in stored function or trigger",
            ),
            Refusal::SetsPassword if function_or_trigger => autocommit_not_settable(),
            _ => Error::not_supported("this statement in a stored program body"),
        }
    }
}

/// 1445: SET autocommit in a function or a trigger (MariaDB gives it for SET PASSWORD too).
fn autocommit_not_settable() -> Error {
    Error::new(
        ErrorCode::VariableNotSettableInSfOrTrg,
        "Not allowed to set autocommit from a stored function or trigger",
    )
}

/// Why a body may not hold `statement`, which is not one of the SQL statements a body
/// runs (those are `Node::Sql`'s and CALL).
fn refusal(statement: &Statement) -> Refusal {
    use crate::privilege::statement::AccountStatement;
    let kind = |kind| crate::routine::kind_name(kind);
    match statement {
        Statement::Sql(sql) => sql_refusal(sql),
        Statement::StartTransaction { .. }
        | Statement::View(_)
        | Statement::AlterTable(_)
        | Statement::AlterTableKeys { .. }
        | Statement::AlterTableOptions { .. }
        | Statement::CreateFulltextIndex(_)
        | Statement::RenameTable { .. }
        | Statement::DropTrigger { .. } => Refusal::Commits,
        Statement::Account(AccountStatement::SetPassword { .. }) => Refusal::SetsPassword,
        // A result set, like the other SHOWs.
        Statement::Account(AccountStatement::ShowGrants(_)) => Refusal::NotBuilt,
        Statement::Account(_) => Refusal::Commits,
        Statement::PrepareSql { .. }
        | Statement::ExecuteSql { .. }
        | Statement::DeallocateSql { .. } => Refusal::DynamicSql,
        Statement::CreateTrigger(_) => Refusal::Always(created_inside("TRIGGER")),
        Statement::CreateRoutine(create) => Refusal::Always(created_inside(kind(create.kind))),
        Statement::AlterRoutine { kind: k, .. } | Statement::DropRoutine { kind: k, .. } => {
            Refusal::Always(Error::new(
                ErrorCode::SpNoDropSp,
                format!(
                    "Can't drop or alter a {} from within another stored routine",
                    kind(*k)
                ),
            ))
        }
        Statement::LoadData(_) => Refusal::Always(not_in_routines("LOAD DATA")),
        _ => Refusal::NotBuilt,
    }
}

/// Why a body may not hold the SQL statement `statement`, which is not one a body runs.
fn sql_refusal(statement: &ast::Statement) -> Refusal {
    use ast::Statement as S;
    match statement {
        S::Commit { .. }
        | S::Rollback {
            savepoint: None, ..
        }
        | S::StartTransaction { .. }
        | S::CreateIndex(_)
        | S::CreateDatabase { .. }
        | S::CreateSchema { .. }
        | S::CreateSequence { .. }
        | S::Truncate(_)
        | S::AlterTable(_)
        | S::RenameTable(_)
        | S::Drop {
            temporary: false, ..
        } => Refusal::Commits,
        S::CreateTable(create) if !create.temporary => Refusal::Commits,
        S::Lock(_) => Refusal::Always(not_in_routines("LOCK")),
        S::UnlockTables => Refusal::Always(not_in_routines("UNLOCK")),
        _ => Refusal::NotBuilt,
    }
}

/// 1303: CREATE of a `kind` (PROCEDURE, FUNCTION, TRIGGER) in a body.
fn created_inside(kind: &str) -> Error {
    Error::new(
        ErrorCode::SpNoRecursiveCreate,
        format!("Can't create a {kind} from within another stored routine"),
    )
}

/// 1314: a statement no stored program may hold (LOCK, UNLOCK, LOAD DATA).
fn not_in_routines(statement: &str) -> Error {
    Error::new(
        ErrorCode::SpBadstatement,
        format!("{statement} is not allowed in stored procedures"),
    )
}

/// 1241: a FOR loop's record read as a whole, as one value.
fn whole_record() -> Error {
    Error::new(
        ErrorCode::OperandColumns,
        "Operand should contain 1 column(s)",
    )
}

/// 1326: FETCH or CLOSE of a cursor that is not open.
fn cursor_not_open() -> Error {
    Error::new(ErrorCode::SpCursorNotOpen, "Cursor is not open")
}

/// 4080: OPEN with more or fewer arguments than the cursor has parameters.
fn wrong_cursor_arguments(cursor: &str) -> Error {
    Error::new(
        ErrorCode::WrongParamcountToCursor,
        format!("Incorrect parameter count to cursor '{cursor}'"),
    )
}

/// A SIGNAL item's value: a literal or a variable (MariaDB's `signal_allowed_expr`).
fn is_simple_value(e: &ast::Expr) -> bool {
    match e {
        ast::Expr::Value(_) | ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_) => true,
        ast::Expr::UnaryOp { expr, .. } => matches!(expr.as_ref(), ast::Expr::Value(_)),
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------
// Binding

/// Where a `?` parameter of a bound expression or statement takes its value from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ref {
    /// The new row's column (INSERT, UPDATE triggers).
    New(usize),
    /// The old row's column (UPDATE, DELETE triggers).
    Old(usize),
    /// A local variable's slot.
    Local(usize),
}

/// The kind of stored program a body belongs to: what it may hold (RETURN only in a
/// function, a plain SELECT only in a procedure) and how it ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Program {
    Trigger,
    Procedure,
    Function,
}

/// The row a trigger body reads as NEW and OLD.
pub(crate) struct TriggerRow<'a> {
    pub db: &'a str,
    pub table: &'a Arc<Table>,
    /// INSERT, UPDATE or DELETE.
    pub event: &'a str,
    /// BEFORE or AFTER.
    pub timing: &'a str,
}

/// Something bound with the parameters its references fill, or the error binding it
/// met, which running it raises (invariant (7)).
#[derive(Clone)]
struct Bound<T> {
    item: Result<T>,
    refs: Vec<Ref>,
}

impl<T> Bound<T> {
    fn get(&self) -> Result<&T> {
        self.item.as_ref().map_err(Error::clone)
    }
}

/// `bind()`, unless collecting its references met an error it raises when it runs
/// (`Binder::collect`).
fn after<T>(failed: &Option<Error>, bind: impl FnOnce() -> Result<T>) -> Result<T> {
    match failed {
        Some(e) => Err(e.clone()),
        None => bind(),
    }
}

/// A statement's or expression's binding, with its error kept for when it runs
/// (invariant (7)); only what is not built fails the body's binding.
fn deferred<T>(bound: Result<T>) -> Result<Result<T>> {
    match bound {
        Err(e) if e.code == ErrorCode::NotSupportedYet => Err(e),
        bound => Ok(bound),
    }
}

#[derive(Clone)]
enum Target {
    Local(usize),
    New(usize),
    User(String),
}

/// A condition a handler catches, or a declared condition's value.
#[derive(Clone, Debug, PartialEq, Eq)]
enum ConditionValue {
    Number(u16),
    Sqlstate(String),
    /// SQLWARNING: an SQLSTATE of class '01', or any condition of level Warning.
    Warning,
    /// NOT FOUND: an SQLSTATE of class '02'.
    NotFound,
    /// SQLEXCEPTION: an error of any other class.
    Exception,
}

impl ConditionValue {
    /// How closely this value catches a condition (lower is closer; MariaDB prefers an
    /// error number to an SQLSTATE to a class), or None when it does not.
    fn catches(&self, number: u16, sqlstate: &str, level: &str) -> Option<u8> {
        let class = &sqlstate[..2.min(sqlstate.len())];
        let caught = match self {
            ConditionValue::Number(n) => return (*n == number).then_some(0),
            ConditionValue::Sqlstate(s) => return (s == sqlstate).then_some(1),
            ConditionValue::Warning => class == "01" || level == "Warning",
            ConditionValue::NotFound => class == "02",
            ConditionValue::Exception => level == "Error" && !matches!(class, "00" | "01" | "02"),
        };
        caught.then_some(2)
    }
}

/// DECLARE {CONTINUE | EXIT} HANDLER, bound.
#[derive(Clone)]
struct Handler {
    /// EXIT leaves the handler's block once its body ran; CONTINUE goes on after the
    /// statement that raised the condition.
    exit: bool,
    conditions: Vec<ConditionValue>,
    body: Op,
}

#[derive(Clone)]
enum Op {
    Block {
        /// Slots set to their DEFAULT (or NULL) on entry, with the value that sets them.
        declarations: Vec<(Vec<usize>, Option<Bound<Expr>>)>,
        handlers: Vec<Handler>,
        body: Vec<Op>,
        /// The block's own id (labelled or not): LEAVE and EXIT handlers end it.
        label: u32,
        /// The cursors it declares (`Body::cursors`), closed when it ends.
        cursors: Vec<usize>,
    },
    If {
        arms: Vec<(Bound<Expr>, Vec<Op>)>,
        otherwise: Vec<Op>,
    },
    /// A simple CASE stores its operand in a hidden local first (evaluated once), which
    /// each arm's `operand = value` reads.
    Case {
        operand: Option<(usize, Bound<Expr>)>,
        arms: Vec<(Bound<Expr>, Vec<Op>)>,
        otherwise: Option<Vec<Op>>,
    },
    Loop {
        label: u32,
        kind: LoopKind<Bound<Expr>, Box<ForLoop>>,
        body: Vec<Op>,
    },
    Leave(u32),
    Iterate(u32),
    /// A target's error (a record's missing field) is raised when the SET runs.
    Set {
        items: Vec<(Result<Target>, Bound<Expr>)>,
        /// A SET of a user variable is a statement to ROW_COUNT(); one of only locals or
        /// NEW.col is not (invariant (11)).
        sets_user_variable: bool,
    },
    Signal(Box<Signal>),
    /// GET DIAGNOSTICS in a handler's body: it reads the condition the handler caught.
    GetDiagnostics {
        condition: Option<Bound<Expr>>,
        items: Vec<(Target, &'static str)>,
    },
    SelectInto(Box<Bound<SelectPlan>>, Vec<Target>),
    /// A SELECT in a procedure's body: a result set for the CALL (`CallOutput`).
    Select(Box<Bound<SelectPlan>>),
    Insert(Box<Bound<InsertPlan>>),
    Update(Box<Bound<UpdatePlan>>),
    Delete(Box<Bound<DeletePlan>>),
    /// RETURN in a function's body: its value ends the call.
    Return(Bound<Expr>),
    /// OPEN of a cursor (`Body::cursors`) with its parameters' values.
    Open {
        cursor: usize,
        arguments: Vec<Bound<Expr>>,
    },
    Fetch {
        cursor: usize,
        targets: Vec<Target>,
    },
    Close(usize),
    /// CALL of a procedure, bound with its body for this CALL (invariant (9)).
    Call(Box<Result<NestedCall>>),
    /// DO: each value is evaluated for what it does (SLEEP, GET_LOCK, a warning) and
    /// dropped.
    Do(Vec<Bound<Expr>>),
}

/// Finds the first bare name that is not a local variable in an expression, outside its
/// subqueries (`Binder::program_expr`).
struct BareNames<'a> {
    is_local: &'a dyn Fn(&str) -> bool,
    subqueries: usize,
    undeclared: Option<String>,
}

impl ast::Visitor for BareNames<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, _: &ast::Query) -> ControlFlow<()> {
        self.subqueries += 1;
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _: &ast::Query) -> ControlFlow<()> {
        self.subqueries -= 1;
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, e: &ast::Expr) -> ControlFlow<()> {
        match e {
            ast::Expr::Identifier(ident)
                if self.subqueries == 0
                    && expr::is_plain_name(ident)
                    && !(self.is_local)(&ident.value) =>
            {
                self.undeclared = Some(ident.value.clone());
                ControlFlow::Break(())
            }
            _ => ControlFlow::Continue(()),
        }
    }
}

/// A FOR loop's header, bound (invariant (10)).
#[derive(Clone)]
enum ForLoop {
    /// The counter runs from `first` to `last` by `step` (1, or -1 for REVERSE), both
    /// evaluated once into BIGINT locals that may not be NULL (`Body::counters`).
    Range {
        counter: usize,
        last_slot: usize,
        step: i64,
        first: Bound<Expr>,
        last: Bound<Expr>,
    },
    /// Opens the cursor and fetches each row into the record's fields; closes it when
    /// the loop ends by itself (invariant (10)).
    Cursor {
        cursor: usize,
        arguments: Vec<Bound<Expr>>,
        /// The record's field slots, or the error the loop raises (1060 for two columns of
        /// one name).
        fields: Result<Vec<Target>>,
    },
}

/// A CALL inside a body, bound.
#[derive(Clone)]
struct NestedCall {
    callee: crate::routine::Callee,
    /// Per parameter: the argument's value (None for OUT: it starts NULL), and where an
    /// OUT or INOUT parameter's final value goes.
    arguments: Vec<(Option<Bound<Expr>>, Option<Target>)>,
}

/// DECLARE ... CURSOR, bound.
#[derive(Clone)]
struct Cursor {
    /// The local slots of its parameters, which OPEN sets.
    parameters: Vec<usize>,
    query: Bound<SelectPlan>,
}

#[derive(Clone)]
struct Signal {
    resignal: bool,
    /// None: RESIGNAL of the caught condition itself.
    sqlstate: Option<String>,
    message: Option<Bound<Expr>>,
    errno: Option<Bound<Expr>>,
    others: Vec<Bound<Expr>>,
}

/// A bound body: run it with `run`.
#[derive(Clone)]
pub(crate) struct Body {
    op: Op,
    /// Every local variable's type and name, by slot (hidden CASE operands included).
    locals: Vec<(DataType, String)>,
    /// The table whose NEW row `SET NEW.col` writes, and its database.
    row_table: Option<(String, Arc<Table>)>,
    /// It holds an INSERT, UPDATE or DELETE (a READ ONLY transaction refuses its CALL).
    pub writes: bool,
    /// It holds a SELECT or a RETURNING that gives a procedure's CALL a result set (1312
    /// for a client without CLIENT_MULTI_RESULTS, before the CALL runs).
    pub result_sets: bool,
    /// The tables its expressions and SELECTs read: a prepared statement that calls a
    /// stored function binds again when one of them changes.
    pub tables: Vec<Arc<Table>>,
    /// Its cursors, by number (a FOR loop's over a SELECT included).
    cursors: Vec<Cursor>,
    /// The slots of FOR loops' counters and last values: NULL is not stored there (1048,
    /// as in MariaDB whatever the sql_mode).
    counters: Vec<usize>,
}

/// A FOR loop's record's fields: their names and slots, or the error naming them raises
/// (1060 for two columns of one name).
type Fields = Result<Vec<(String, usize)>>;

struct Label {
    name: String,
    id: u32,
    is_loop: bool,
}

struct Binder<'a, 'c> {
    cx: &'a BindContext<'c>,
    db: &'a str,
    program: Program,
    row: Option<&'a TriggerRow<'a>>,
    /// The local variables in scope, innermost last: (name, slot).
    in_scope: Vec<(String, usize)>,
    /// The declared conditions in scope, innermost last.
    conditions: Vec<(String, ConditionValue)>,
    /// The cursors in scope, innermost last: (name, number in `cursors`).
    cursors_in_scope: Vec<(String, usize)>,
    cursors: Vec<Cursor>,
    /// The record variables of FOR loops over cursors: the slot that names the record in
    /// `in_scope` (it holds nothing), with its fields' names and slots, or the error
    /// naming them raises.
    records: Vec<(usize, Fields)>,
    /// `Body::counters`.
    counters: Vec<usize>,
    /// What its CALLs run, by `routine::calling_key`: a procedure called from several
    /// places of one body is bound once.
    called: Vec<(String, crate::routine::Callee)>,
    /// Whether a handler's body is being bound (GET DIAGNOSTICS reads its condition).
    in_handler: bool,
    locals: Vec<(DataType, String)>,
    labels: Vec<Label>,
    next_label: u32,
    /// An INSERT, UPDATE or DELETE was bound (`Body::writes`).
    writes: bool,
    /// A RETURN was bound (a function's body needs one: 1320).
    returns: bool,
    /// A statement giving a result set was bound (`Body::result_sets`).
    result_sets: bool,
    /// The tables the bound expressions and SELECTs read (`Body::tables`).
    tables: RefCell<Vec<Arc<Table>>>,
}

/// Parses and binds a trigger's `body`, which reads `row`.
pub(crate) fn bind(cx: &BindContext, db: &str, body: &str, row: &TriggerRow) -> Result<Body> {
    bind_program(cx, db, body, Program::Trigger, Some(row), &[]).map(|(body, _)| body)
}

/// Parses and binds a procedure's `body`; its `parameters` (name, type) are its first
/// local variables, in order (`run_procedure`).
pub(crate) fn bind_procedure(
    cx: &BindContext,
    db: &str,
    body: &str,
    parameters: &[Parameter],
) -> Result<Body> {
    bind_program(cx, db, body, Program::Procedure, None, parameters).map(|(body, _)| body)
}

/// Parses and binds the body of function `db.name`, whose `parameters` are its first
/// locals as a procedure's are; 1320 if it holds no RETURN (as MariaDB, at CREATE).
pub(crate) fn bind_function(
    cx: &BindContext,
    db: &str,
    name: &str,
    body: &str,
    parameters: &[Parameter],
) -> Result<Body> {
    let (body, returns) = bind_program(cx, db, body, Program::Function, None, parameters)?;
    if !returns {
        return Err(Error::new(
            ErrorCode::SpNoreturn,
            format!("No RETURN found in FUNCTION {db}.{name}"),
        ));
    }
    Ok(body)
}

/// The bound body, and whether it holds a RETURN.
fn bind_program(
    cx: &BindContext,
    db: &str,
    body: &str,
    program: Program,
    row: Option<&TriggerRow>,
    parameters: &[Parameter],
) -> Result<(Body, bool)> {
    let node = Reader::new(body, program)?.body()?;
    let mut binder = Binder {
        cx,
        db,
        program,
        row,
        in_scope: (0..parameters.len())
            .map(|slot| (parameters[slot].name.clone(), slot))
            .collect(),
        conditions: Vec::new(),
        cursors_in_scope: Vec::new(),
        cursors: Vec::new(),
        records: Vec::new(),
        counters: Vec::new(),
        called: Vec::new(),
        in_handler: false,
        locals: parameters
            .iter()
            .map(|p| (p.data_type.clone(), p.name.clone()))
            .collect(),
        labels: Vec::new(),
        next_label: 0,
        writes: false,
        returns: false,
        result_sets: false,
        tables: RefCell::default(),
    };
    let op = binder.node(node)?;
    let body = Body {
        op,
        locals: binder.locals,
        writes: binder.writes,
        result_sets: binder.result_sets,
        tables: binder.tables.into_inner(),
        cursors: binder.cursors,
        counters: binder.counters,
        row_table: row.map(|r| (r.db.to_string(), r.table.clone())),
    };
    Ok((body, binder.returns))
}

/// Replaces `NEW.col`, `OLD.col` and local variables by `?`, collecting their sources.
struct RefCollector<'b, 'a, 'c> {
    binder: &'b Binder<'a, 'c>,
    refs: Vec<Ref>,
    error: Option<Error>,
    /// The first error of a record reference, which MariaDB raises when the statement
    /// runs.
    failed: Option<Error>,
}

impl VisitorMut for RefCollector<'_, '_, '_> {
    type Break = ();

    fn pre_visit_expr(&mut self, e: &mut ast::Expr) -> ControlFlow<()> {
        // A record's error is raised when the statement runs, as MariaDB raises it.
        let (found, record) = match e {
            ast::Expr::Identifier(ident) => match self.binder.local(&ident.value) {
                Some(slot) if self.binder.record(slot).is_some() => {
                    (Some(Err(whole_record())), true)
                }
                slot => (slot.map(|slot| Ok(Ref::Local(slot))), false),
            },
            ast::Expr::CompoundIdentifier(parts) => match parts.as_slice() {
                [row, column] => match self.binder.field(&row.value, &column.value) {
                    Some(field) => (Some(field.map(Ref::Local)), true),
                    None => (self.binder.row_ref(&row.value, &column.value), false),
                },
                _ => (None, false),
            },
            _ => (None, false),
        };
        match found {
            None => ControlFlow::Continue(()),
            Some(Err(error)) if record => {
                self.failed.get_or_insert(error);
                ControlFlow::Continue(())
            }
            Some(Ok(r)) => {
                self.refs.push(r);
                // The reference's span stays: a result column is named by what was written.
                let span = sqlparser::ast::Spanned::span(&*e);
                *e = ast::Expr::Value(ast::ValueWithSpan {
                    value: ast::Value::Placeholder("?".into()),
                    span,
                });
                ControlFlow::Continue(())
            }
            Some(Err(error)) => {
                self.error = Some(error);
                ControlFlow::Break(())
            }
        }
    }
}

impl Binder<'_, '_> {
    fn local(&self, name: &str) -> Option<usize> {
        innermost(&self.in_scope, name)
    }

    /// The fields of the record whose slot is `slot`, if it is a record's.
    fn record(&self, slot: usize) -> Option<&Fields> {
        self.records
            .iter()
            .find(|(record, _)| *record == slot)
            .map(|(_, fields)| fields)
    }

    /// `record.field` when `record` names a record in scope: the field's slot, or 4082.
    fn field(&self, record: &str, field: &str) -> Option<Result<usize>> {
        let fields = self.record(self.local(record)?)?;
        Some(fields.as_ref().map_err(Error::clone).and_then(|fields| {
            innermost(fields, field).ok_or_else(|| {
                Error::new(
                    ErrorCode::RowVariableNoField,
                    format!("Row variable '{record}' does not have a field '{field}'"),
                )
            })
        }))
    }

    /// The local variable `name` as a target of SET, FETCH, SELECT ... INTO or an OUT
    /// argument: a record as a whole is not one (not built).
    fn local_target(&self, name: &str) -> Option<Result<Target>> {
        let slot = self.local(name)?;
        Some(match self.record(slot) {
            Some(_) => Err(Error::not_supported("assigning a whole record variable")),
            None => Ok(Target::Local(slot)),
        })
    }

    /// `NEW.col` / `OLD.col` in a trigger: its cell, or the error naming it.
    fn row_ref(&self, side: &str, column: &str) -> Option<Result<Ref>> {
        let row = self.row?;
        let side = side.to_ascii_uppercase();
        if side != "NEW" && side != "OLD" {
            return None;
        }
        if matches!(
            (side.as_str(), row.event),
            ("NEW", "DELETE") | ("OLD", "INSERT")
        ) {
            return Some(Err(Error::new(
                ErrorCode::TrgNoSuchRowInTrg,
                format!("There is no {side} row in on {} trigger", row.event),
            )));
        }
        let Some(i) = row
            .table
            .schema
            .columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(column))
        else {
            return Some(Err(Error::new(
                ErrorCode::BadField,
                format!("Unknown column '{column}' in '{side}'"),
            )));
        };
        Some(Ok(if side == "NEW" {
            Ref::New(i)
        } else {
            Ref::Old(i)
        }))
    }

    fn ref_type(&self, r: Ref) -> DataType {
        match r {
            Ref::New(i) | Ref::Old(i) => self
                .row
                .expect("row references are bound only in trigger bodies")
                .table
                .schema
                .columns[i]
                .data_type
                .clone(),
            Ref::Local(slot) => self.locals[slot].0.clone(),
        }
    }

    /// Replaces the references in `node` (an expression or a statement) by parameters:
    /// their sources, and the error of a record reference, which is the statement's when
    /// it runs (`after`).
    fn collect<V: VisitMut>(&self, node: &mut V) -> Result<(Vec<Ref>, Option<Error>)> {
        let mut collector = RefCollector {
            binder: self,
            refs: Vec::new(),
            error: None,
            failed: None,
        };
        let _ = node.visit(&mut collector);
        match collector.error {
            Some(e) => Err(e),
            None => Ok((collector.refs, collector.failed)),
        }
    }

    /// Notes the tables a bound SELECT reads (`Body::tables`).
    fn read_by(&self, select: &Result<SelectPlan>) {
        if let Ok(select) = select {
            self.tables
                .borrow_mut()
                .extend(select.tables.iter().cloned());
        }
    }

    fn parameters(&self, refs: &[Ref]) -> Parameters {
        Parameters::typed(refs.iter().map(|r| self.ref_type(*r)).collect())
    }

    fn inner_context<'p>(&'p self, text: &'p str, parameters: &'p Parameters) -> BindContext<'p> {
        BindContext {
            catalog: self.cx.catalog,
            database: Some(self.db),
            text,
            parameters,
            access: self.cx.access,
            outer: None,
            subquery_tables: RefCell::new(Vec::new()),
            ctes: None,
            calling: self.cx.calling,
            temporary: self.cx.temporary,
        }
    }

    fn expr(&self, mut e: ast::Expr) -> Result<Bound<Expr>> {
        let (refs, failed) = self.collect(&mut e)?;
        let parameters = self.parameters(&refs);
        let text = e.to_string();
        let cx = self.inner_context(&text, &parameters);
        let item = deferred(after(&failed, || {
            BindScope::in_query(&[], "SET", &cx).bind(&e)
        }))?;
        self.tables
            .borrow_mut()
            .append(&mut cx.subquery_tables.borrow_mut());
        Ok(Bound { item, refs })
    }

    /// An expression MariaDB reads as the program's own rather than a statement's: DO's,
    /// RETURN's, a condition, a CASE operand, a DECLARE's DEFAULT, a local's SET, a CALL's
    /// or an OPEN's argument, a FOR loop's bounds. A bare name outside its subqueries
    /// must then be a local variable, or the body is refused where it is bound, at CREATE
    /// (1327), as MariaDB refuses it. (A SET of `@user` reads a name only when it runs.)
    fn program_expr(&self, e: ast::Expr) -> Result<Bound<Expr>> {
        self.names_declared(&e)?;
        self.expr(e)
    }

    /// `program_expr`'s check alone: 1327 for a bare name outside `e`'s subqueries that
    /// is no local variable.
    fn names_declared(&self, e: &ast::Expr) -> Result<()> {
        let mut names = BareNames {
            is_local: &|name| self.local(name).is_some(),
            subqueries: 0,
            undeclared: None,
        };
        let _ = ast::Visit::visit(e, &mut names);
        match names.undeclared {
            Some(name) => Err(undeclared(&name)),
            None => Ok(()),
        }
    }

    /// A SIGNAL item's value: a bare name must be a local variable (1327).
    fn item(&self, e: ast::Expr) -> Result<Bound<Expr>> {
        if let ast::Expr::Identifier(name) = &e {
            if !name.value.starts_with('@') && self.local(&name.value).is_none() {
                return Err(undeclared(&name.value));
            }
        }
        self.expr(e)
    }

    fn list(&mut self, nodes: Vec<Node>) -> Result<Vec<Op>> {
        nodes.into_iter().map(|n| self.node(n)).collect()
    }

    fn push_label(&mut self, name: Option<String>, is_loop: bool) -> Result<u32> {
        let id = self.next_label;
        self.next_label += 1;
        if let Some(name) = name {
            if self
                .labels
                .iter()
                .any(|l| l.name.eq_ignore_ascii_case(&name))
            {
                return Err(Error::new(
                    ErrorCode::SpLabelRedefine,
                    format!("Redefining label {name}"),
                ));
            }
            self.labels.push(Label { name, id, is_loop });
        }
        Ok(id)
    }

    fn pop_label(&mut self, id: u32) {
        if self.labels.last().is_some_and(|l| l.id == id) {
            self.labels.pop();
        }
    }

    fn find_label(&self, name: &str, statement: &str, iterate: bool) -> Result<u32> {
        self.labels
            .iter()
            .rev()
            .find(|l| l.name.eq_ignore_ascii_case(name) && (l.is_loop || !iterate))
            .map(|l| l.id)
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::SpLilabelMismatch,
                    format!("{statement} with no matching label: {name}"),
                )
            })
    }

    fn new_slot(&mut self, data_type: DataType, name: String) -> usize {
        self.locals.push((data_type, name));
        self.locals.len() - 1
    }

    fn node(&mut self, node: Node) -> Result<Op> {
        Ok(match node {
            Node::Block {
                label,
                declarations,
                body,
            } => {
                let label = self.push_label(label, false)?;
                let scope_start = self.in_scope.len();
                let conditions_start = self.conditions.len();
                let cursors_start = self.cursors_in_scope.len();
                let mut bound = Vec::new();
                let mut handlers = Vec::new();
                let mut cursors = Vec::new();
                for d in declarations {
                    match d {
                        Declaration::Variables {
                            names,
                            data_type,
                            default,
                        } => {
                            // A DEFAULT reads the variables declared before this DECLARE.
                            let default = default.map(|e| self.program_expr(*e)).transpose()?;
                            let mut slots = Vec::new();
                            for name in names {
                                if is_declared(&self.in_scope[scope_start..], &name) {
                                    return Err(Error::new(
                                        ErrorCode::SpDupVar,
                                        format!("Duplicate variable: {name}"),
                                    ));
                                }
                                let slot = self.new_slot(data_type.clone(), name.clone());
                                self.in_scope.push((name, slot));
                                slots.push(slot);
                            }
                            bound.push((slots, default));
                        }
                        Declaration::Condition { name, value } => {
                            if is_declared(&self.conditions[conditions_start..], &name) {
                                return Err(Error::new(
                                    ErrorCode::SpDupCond,
                                    format!("Duplicate condition: {name}"),
                                ));
                            }
                            let value = self.condition_value(value)?;
                            self.conditions.push((name, value));
                        }
                        Declaration::Handler(handler) => {
                            let handler = self.handler(*handler, &handlers)?;
                            handlers.push(handler);
                        }
                        Declaration::Cursor(cursor) => {
                            if is_declared(&self.cursors_in_scope[cursors_start..], &cursor.name) {
                                return Err(Error::new(
                                    ErrorCode::SpDupCurs,
                                    format!("Duplicate cursor: {}", cursor.name),
                                ));
                            }
                            let CursorNode {
                                name,
                                parameters,
                                query,
                                text,
                            } = *cursor;
                            let number = self.cursor(parameters, query, text)?;
                            self.cursors_in_scope.push((name, number));
                            cursors.push(number);
                        }
                    }
                }
                let body = self.list(body);
                self.in_scope.truncate(scope_start);
                self.conditions.truncate(conditions_start);
                self.cursors_in_scope.truncate(cursors_start);
                self.pop_label(label);
                Op::Block {
                    declarations: bound,
                    handlers,
                    body: body?,
                    label,
                    cursors,
                }
            }
            Node::If { arms, otherwise } => Op::If {
                arms: self.arms(arms)?,
                otherwise: self.list(otherwise.unwrap_or_default())?,
            },
            Node::Case {
                operand,
                arms,
                otherwise,
            } => self.case(operand, arms, otherwise)?,
            Node::Loop { label, kind, body } => {
                let id = self.push_label(label, true)?;
                let scope_start = self.in_scope.len();
                let kind = match kind {
                    LoopKind::While(e) => LoopKind::While(self.program_expr(e)?),
                    LoopKind::Repeat(e) => LoopKind::Repeat(self.program_expr(e)?),
                    LoopKind::Plain => LoopKind::Plain,
                    LoopKind::For(header) => LoopKind::For(Box::new(self.for_loop(*header)?)),
                };
                let body = self.list(body);
                self.in_scope.truncate(scope_start);
                self.pop_label(id);
                Op::Loop {
                    label: id,
                    kind,
                    body: body?,
                }
            }
            Node::Leave(name) => Op::Leave(self.find_label(&name, "LEAVE", false)?),
            Node::Iterate(name) => Op::Iterate(self.find_label(&name, "ITERATE", true)?),
            Node::Set(items) => {
                let mut bound = Vec::new();
                for (target, value) in items {
                    let field = match target.0.as_slice() {
                        [record, field] => self
                            .field(
                                &crate::select::object_part(record),
                                &crate::select::object_part(field),
                            )
                            .map(|field| field.map(Target::Local)),
                        _ => None,
                    };
                    let target = match field {
                        Some(field) => field,
                        None => Ok(self.set_target(&target)?),
                    };
                    let value = match target {
                        Ok(Target::Local(_)) => self.program_expr(value)?,
                        _ => self.expr(value)?,
                    };
                    bound.push((target, value));
                }
                let sets_user_variable = bound
                    .iter()
                    .any(|(target, _)| matches!(target, Ok(Target::User(_))));
                Op::Set {
                    items: bound,
                    sets_user_variable,
                }
            }
            Node::Signal(signal) => {
                let SignalNode {
                    resignal,
                    target,
                    message,
                    errno,
                    others,
                } = *signal;
                let sqlstate = match target {
                    None => None,
                    Some(SignalTarget::Sqlstate(sqlstate)) => Some(sqlstate),
                    Some(SignalTarget::Named(name)) => {
                        match self.condition_value(ConditionNode::Named(name))? {
                            ConditionValue::Sqlstate(sqlstate) => Some(sqlstate),
                            _ => return Err(Error::new(
                                ErrorCode::SignalBadConditionType,
                                "SIGNAL/RESIGNAL can only use a CONDITION defined with SQLSTATE",
                            )),
                        }
                    }
                };
                Op::Signal(Box::new(Signal {
                    resignal,
                    sqlstate,
                    message: message.map(|e| self.item(e)).transpose()?,
                    errno: errno.map(|e| self.item(e)).transpose()?,
                    others: others
                        .into_iter()
                        .map(|e| self.item(e))
                        .collect::<Result<_>>()?,
                }))
            }
            Node::GetDiagnostics { condition, items } => {
                // Outside a handler's body only ROW_COUNT, which needs no conditions.
                let conditions =
                    condition.is_some() || items.iter().any(|(_, i)| *i != "ROW_COUNT");
                if conditions && !self.in_handler {
                    return Err(Error::not_supported(
                        "GET DIAGNOSTICS of conditions outside a handler's body",
                    ));
                }
                Op::GetDiagnostics {
                    condition: condition.map(|e| self.item(e)).transpose()?,
                    items: items
                        .into_iter()
                        .map(|(target, item)| Ok((self.select_target(&target)?, item)))
                        .collect::<Result<_>>()?,
                }
            }
            Node::SelectInto {
                mut query,
                targets,
                text,
            } => {
                let targets = targets
                    .iter()
                    .map(|t| self.select_target(t))
                    .collect::<Result<Vec<_>>>()?;
                let (refs, failed) = self.collect(query.as_mut())?;
                let parameters = self.parameters(&refs);
                let cx = self.inner_context(&text, &parameters);
                let item = deferred(after(&failed, || crate::select::bind_select(&query, &cx)))?;
                self.read_by(&item);
                Op::SelectInto(Box::new(Bound { item, refs }), targets)
            }
            Node::Sql {
                mut statement,
                text,
            } => {
                let (refs, failed) = self.collect(statement.as_mut())?;
                self.writes |= matches!(
                    *statement,
                    ast::Statement::Insert(_)
                        | ast::Statement::Update(_)
                        | ast::Statement::Delete(_)
                );
                self.result_sets |= match statement.as_ref() {
                    ast::Statement::Query(_) => true,
                    ast::Statement::Insert(i) => i.returning.is_some(),
                    ast::Statement::Delete(d) => d.returning.is_some(),
                    _ => false,
                };
                let parameters = self.parameters(&refs);
                let cx = self.inner_context(&text, &parameters);
                match *statement {
                    ast::Statement::Query(_) if self.program != Program::Procedure => {
                        return Err(no_result_sets(self.program))
                    }
                    ast::Statement::Query(q) => {
                        // Where SQL_CALC_FOUND_ROWS may stand is syntax, refused at
                        // CREATE as in MariaDB, even while the body's tables are missing.
                        crate::select::calc_found_rows(&q)?;
                        let bind = || crate::select::bind_select_statement(&q, &cx);
                        let item = deferred(after(&failed, bind))?;
                        self.read_by(&item);
                        Op::Select(Box::new(Bound { item, refs }))
                    }
                    ast::Statement::Insert(i) => Op::Insert(Box::new(Bound {
                        item: deferred(after(&failed, || dml::bind_insert(&i, &cx)))?,
                        refs,
                    })),
                    ast::Statement::Update(u) => Op::Update(Box::new(Bound {
                        item: deferred(after(&failed, || dml::bind_update(&u, &cx)))?,
                        refs,
                    })),
                    ast::Statement::Delete(d) => Op::Delete(Box::new(Bound {
                        item: deferred(after(&failed, || dml::bind_delete(&d, &cx)))?,
                        refs,
                    })),
                    other => return Err(sql_refusal(&other).error(self.program)),
                }
            }
            Node::Refused(refusal) => return Err(refusal.error(self.program)),
            Node::Return(value) => {
                self.returns = true;
                Op::Return(self.program_expr(value)?)
            }
            Node::Open { cursor, arguments } => {
                let number = self.find_cursor(&cursor)?;
                Op::Open {
                    cursor: number,
                    arguments: self.open_arguments(&cursor, number, arguments)?,
                }
            }
            Node::Fetch { cursor, targets } => Op::Fetch {
                cursor: self.find_cursor(&cursor)?,
                targets: targets
                    .iter()
                    .map(|t| self.local_target(t).unwrap_or_else(|| Err(undeclared(t))))
                    .collect::<Result<_>>()?,
            },
            Node::Close(cursor) => Op::Close(self.find_cursor(&cursor)?),
            Node::Do(values) => Op::Do(
                values
                    .into_iter()
                    .map(|value| self.program_expr(value))
                    .collect::<Result<_>>()?,
            ),
            Node::Call { name, arguments } => {
                // MariaDB reads the arguments before it looks for the procedure, so an
                // undeclared name is 1327 at CREATE even when the procedure is missing,
                // which is an error only when the CALL runs (deferred).
                for argument in &arguments {
                    self.names_declared(argument)?;
                }
                let call = deferred(self.call(&name, arguments))?;
                // A recursion's body is one being bound around this one, which counts its
                // own writes and tables.
                if let Ok(NestedCall {
                    callee: Callee::Bound(procedure),
                    ..
                }) = &call
                {
                    self.writes |= procedure.body.writes;
                    let tables = procedure.body.tables.iter().cloned();
                    self.tables.borrow_mut().extend(tables);
                }
                Op::Call(Box::new(call))
            }
        })
    }

    /// A CALL inside the body: the procedure bound for it, its arguments checked (1318,
    /// 1414) and bound. Its result sets go to the CALL running this body, so in a trigger
    /// or a function it may have none (1415). The caller checked the arguments' names
    /// (`names_declared`) before the procedure was looked up.
    fn call(&mut self, name: &ast::ObjectName, arguments: Vec<ast::Expr>) -> Result<NestedCall> {
        let (db, name) = crate::ddl::split_name(name)?;
        let db = db.unwrap_or_else(|| self.db.to_string());
        let key = crate::routine::calling_key(manycore_storage::RoutineKind::Procedure, &db, &name);
        let callee = match self.called.iter().find(|(k, _)| *k == key) {
            Some((_, callee)) => callee.clone(),
            None => {
                let callee = crate::routine::procedure_callee(self.cx, &db, &name)?;
                self.called.push((key, callee.clone()));
                callee
            }
        };
        let declared = callee.declared();
        if declared.len() != arguments.len() {
            return Err(crate::routine::wrong_argument_count(
                manycore_storage::RoutineKind::Procedure,
                callee.qualified(),
                declared.len(),
                arguments.len(),
            ));
        }
        // A recursion's result sets are those of the procedure body around this one.
        if let Callee::Bound(procedure) = &callee {
            if procedure.body.result_sets && self.program != Program::Procedure {
                return Err(no_result_sets(self.program));
            }
            self.result_sets |= procedure.body.result_sets;
        }
        let mut bound = Vec::with_capacity(arguments.len());
        for (i, (parameter, argument)) in declared.iter().zip(arguments).enumerate() {
            use crate::routine::Mode;
            let target = match parameter.mode {
                Mode::In => None,
                Mode::Out | Mode::InOut => {
                    Some(self.out_target(&argument).ok_or_else(|| {
                        crate::routine::not_variable_argument(i, callee.qualified())
                    })??)
                }
            };
            let value = match parameter.mode {
                Mode::Out => None,
                Mode::In | Mode::InOut => Some(self.expr(argument)?),
            };
            bound.push((value, target));
        }
        Ok(NestedCall {
            callee,
            arguments: bound,
        })
    }

    /// Where an OUT or INOUT argument returns its value: a local variable, `@user`, or
    /// `NEW.col` in a BEFORE trigger; None for anything else (1414).
    fn out_target(&self, argument: &ast::Expr) -> Option<Result<Target>> {
        match argument {
            ast::Expr::Identifier(ident) => {
                if let Some(user) = crate::select_into::user_variable(&ident.value) {
                    return Some(Ok(Target::User(user.to_string())));
                }
                self.local_target(&ident.value)
            }
            ast::Expr::CompoundIdentifier(parts) => match parts.as_slice() {
                [row, _] if row.value.eq_ignore_ascii_case("NEW") => {
                    Some(self.set_target(&ast::ObjectName::from(parts.clone())))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// Binds a cursor's query, whose `parameters` are locals that only it sees. Its
    /// number in `cursors`.
    fn cursor(
        &mut self,
        parameters: Vec<(String, DataType)>,
        mut query: Box<ast::Query>,
        text: String,
    ) -> Result<usize> {
        let scope_start = self.in_scope.len();
        let mut slots = Vec::new();
        for (parameter, data_type) in parameters {
            let slot = self.new_slot(data_type, parameter.clone());
            self.in_scope.push((parameter, slot));
            slots.push(slot);
        }
        let collected = self.collect(query.as_mut());
        self.in_scope.truncate(scope_start);
        let (refs, failed) = collected?;
        let parameters = self.parameters(&refs);
        let cx = self.inner_context(&text, &parameters);
        let item = deferred(after(&failed, || crate::select::bind_select(&query, &cx)))?;
        self.read_by(&item);
        self.cursors.push(Cursor {
            parameters: slots,
            query: Bound { item, refs },
        });
        Ok(self.cursors.len() - 1)
    }

    /// OPEN's arguments (or a FOR loop's) to cursor `name` (4080 for another count than
    /// its parameters).
    fn open_arguments(
        &self,
        name: &str,
        cursor: usize,
        arguments: Vec<ast::Expr>,
    ) -> Result<Vec<Bound<Expr>>> {
        if arguments.len() != self.cursors[cursor].parameters.len() {
            return Err(wrong_cursor_arguments(name));
        }
        arguments
            .into_iter()
            .map(|e| self.program_expr(e))
            .collect()
    }

    /// A FOR loop's header: its bounds or cursor bound in the scope around the loop, then
    /// its variable brought into scope for the body (the caller ends that scope).
    fn for_loop(&mut self, header: ForNode) -> Result<ForLoop> {
        let ForNode { variable, source } = header;
        let (cursor, arguments) = match source {
            ForSource::Range {
                reverse,
                lower,
                upper,
            } => {
                let (first, last, step) = match reverse {
                    false => (lower, upper, 1),
                    true => (upper, lower, -1),
                };
                let (first, last) = (self.program_expr(*first)?, self.program_expr(*last)?);
                let bigint = DataType::Int {
                    width: manycore_types::IntWidth::Big,
                    unsigned: false,
                };
                // The counter's slot comes first: MariaDB's 1690 names it by its slot.
                let counter = self.new_slot(bigint.clone(), variable.clone());
                let last_slot = self.new_slot(bigint, "[target_bound]".into());
                self.counters.extend([counter, last_slot]);
                self.in_scope.push((variable, counter));
                return Ok(ForLoop::Range {
                    counter,
                    last_slot,
                    step,
                    first,
                    last,
                });
            }
            ForSource::Cursor { name, arguments } => {
                // MariaDB reads a name that is no cursor's as a variable's.
                let cursor =
                    innermost(&self.cursors_in_scope, &name).ok_or_else(|| undeclared(&name))?;
                (cursor, self.open_arguments(&name, cursor, arguments)?)
            }
            ForSource::Select { query, text } => {
                (self.cursor(Vec::new(), query, text)?, Vec::new())
            }
        };
        let columns = self.cursors[cursor]
            .query
            .item
            .as_ref()
            .map(|s| s.columns.clone());
        let mut fields = Ok(Vec::new());
        if let (Ok(columns), Ok(slots)) = (columns, &mut fields) {
            for column in columns.iter() {
                if is_declared(slots, &column.name) {
                    fields = Err(Error::new(
                        ErrorCode::DupFieldName,
                        format!("Duplicate column name '{}'", column.name),
                    ));
                    break;
                }
                let slot = self.new_slot(column.data_type.clone(), column.name.clone());
                slots.push((column.name.clone(), slot));
            }
        }
        let record = self.new_slot(DataType::Null, variable.clone());
        self.in_scope.push((variable, record));
        let targets = fields
            .as_ref()
            .map(|fields| {
                fields
                    .iter()
                    .map(|(_, slot)| Target::Local(*slot))
                    .collect()
            })
            .map_err(Error::clone);
        self.records.push((record, fields));
        Ok(ForLoop::Cursor {
            cursor,
            arguments,
            fields: targets,
        })
    }

    /// The cursor `name` in scope (1324 when none is).
    fn find_cursor(&self, name: &str) -> Result<usize> {
        innermost(&self.cursors_in_scope, name).ok_or_else(|| {
            Error::new(
                ErrorCode::SpCursorMismatch,
                format!("Undefined CURSOR: {name}"),
            )
        })
    }

    /// A condition value, a declared condition's name resolved (1319 when none is).
    fn condition_value(&self, condition: ConditionNode) -> Result<ConditionValue> {
        match condition {
            ConditionNode::Value(value) => Ok(value),
            ConditionNode::Named(name) => self
                .conditions
                .iter()
                .rev()
                .find(|(n, _)| n.eq_ignore_ascii_case(&name))
                .map(|(_, value)| value.clone())
                .ok_or_else(|| {
                    Error::new(
                        ErrorCode::SpCondMismatch,
                        format!("Undefined CONDITION: {name}"),
                    )
                }),
        }
    }

    /// A handler of a block whose earlier handlers are `declared` (1413 when two catch
    /// the same condition).
    fn handler(&mut self, handler: HandlerNode, declared: &[Handler]) -> Result<Handler> {
        let mut conditions: Vec<ConditionValue> = Vec::new();
        for condition in handler.conditions {
            let value = self.condition_value(condition)?;
            let duplicate = conditions.contains(&value)
                || declared.iter().any(|h| h.conditions.contains(&value));
            if duplicate {
                return Err(Error::new(
                    ErrorCode::SpDupHandler,
                    "Duplicate handler declared in the same block",
                ));
            }
            conditions.push(value);
        }
        // A handler's body reaches no label around it (1308), as in MariaDB.
        let labels = std::mem::take(&mut self.labels);
        let in_handler = std::mem::replace(&mut self.in_handler, true);
        let body = self.node(handler.body);
        self.labels = labels;
        self.in_handler = in_handler;
        Ok(Handler {
            exit: handler.exit,
            conditions,
            body: body?,
        })
    }

    fn arms(&mut self, arms: Vec<(ast::Expr, Vec<Node>)>) -> Result<Vec<(Bound<Expr>, Vec<Op>)>> {
        arms.into_iter()
            .map(|(condition, body)| Ok((self.program_expr(condition)?, self.list(body)?)))
            .collect()
    }

    fn case(
        &mut self,
        operand: Option<ast::Expr>,
        arms: Vec<(ast::Expr, Vec<Node>)>,
        otherwise: Option<Vec<Node>>,
    ) -> Result<Op> {
        let Some(operand) = operand else {
            return Ok(Op::Case {
                operand: None,
                arms: self.arms(arms)?,
                otherwise: otherwise.map(|o| self.list(o)).transpose()?,
            });
        };
        let operand = self.program_expr(operand)?;
        // The hidden local is named so that no identifier can name it.
        // An operand that failed to bind fails the CASE before the local is read.
        let operand_type = operand
            .item
            .as_ref()
            .map_or(DataType::Null, |e| e.data_type());
        let slot = self.new_slot(operand_type, String::new());
        let scope_start = self.in_scope.len();
        let hidden = " case operand";
        self.in_scope.push((hidden.to_string(), slot));
        let compared = arms
            .into_iter()
            .map(|(value, body)| {
                let condition = ast::Expr::BinaryOp {
                    left: Box::new(ast::Expr::Identifier(ast::Ident::new(hidden))),
                    op: ast::BinaryOperator::Eq,
                    right: Box::new(value),
                };
                (condition, body)
            })
            .collect();
        let arms = self.arms(compared);
        self.in_scope.truncate(scope_start);
        Ok(Op::Case {
            operand: Some((slot, operand)),
            arms: arms?,
            otherwise: otherwise.map(|o| self.list(o)).transpose()?,
        })
    }

    /// The error for a SET of system variable `name`: 1445 for autocommit in a function or
    /// a trigger, as in MariaDB; not built otherwise.
    fn system_variable_set(&self, name: &str) -> Error {
        if name.eq_ignore_ascii_case("autocommit") && self.program != Program::Procedure {
            return autocommit_not_settable();
        }
        Error::not_supported("SET of a system variable in a stored program body")
    }

    fn set_target(&self, target: &ast::ObjectName) -> Result<Target> {
        let parts: Vec<String> = target.0.iter().map(crate::select::object_part).collect();
        match parts.as_slice() {
            [name] if name.starts_with("@@") => Err(self.system_variable_set(&name[2..])),
            [name] if name.starts_with('@') => Ok(Target::User(name[1..].to_string())),
            [name] => match self.local_target(name) {
                Some(target) => target,
                None if crate::variables::lookup(name).is_some() => {
                    Err(self.system_variable_set(name))
                }
                None => Err(Error::new(
                    ErrorCode::UnknownSystemVariable,
                    format!("Unknown system variable '{name}'"),
                )),
            },
            [scope, name] if scope.starts_with("@@") => Err(self.system_variable_set(name)),
            [row, column] => {
                let Some(found) = self.row_ref(row, column) else {
                    return Err(Error::not_supported("this SET in a stored program body"));
                };
                let timing = self.row.map_or("", |r| r.timing);
                match found? {
                    Ref::New(_) if timing == "AFTER" => Err(Error::new(
                        ErrorCode::TrgCantChangeRow,
                        "Updating of NEW row is not allowed in after trigger",
                    )),
                    Ref::New(i) => Ok(Target::New(i)),
                    _ => Err(Error::new(
                        ErrorCode::TrgCantChangeRow,
                        "Updating of OLD row is not allowed in trigger",
                    )),
                }
            }
            _ => Err(Error::not_supported("this SET in a stored program body")),
        }
    }

    /// A SELECT ... INTO target: a local variable or `@user` (1327 for anything else).
    fn select_target(&self, name: &str) -> Result<Target> {
        if let Some(user) = crate::select_into::user_variable(name) {
            return Ok(Target::User(user.to_string()));
        }
        self.local_target(name)
            .unwrap_or_else(|| Err(undeclared(name)))
    }
}

// ---------------------------------------------------------------------------------------
// Running

/// What one run of a body reads and writes besides the database.
pub(crate) struct Frame<'r> {
    pub old: Option<&'r [Value]>,
    pub new: Option<&'r mut Vec<Value>>,
    /// The NEW columns the body assigned, in order (with repeats).
    pub assigned: Vec<usize>,
    locals: Vec<Value>,
    /// The parameters of the expression or statement being run (reused).
    params: Vec<Value>,
    /// What a function's RETURN gave.
    returned: Option<Value>,
    /// The rows each open cursor has yet to fetch, by cursor number (invariant (8)).
    cursors: Vec<Option<std::vec::IntoIter<Vec<Value>>>>,
}

impl<'r> Frame<'r> {
    pub fn new(old: Option<&'r [Value]>, new: Option<&'r mut Vec<Value>>) -> Frame<'r> {
        Frame {
            old,
            new,
            assigned: Vec::new(),
            locals: Vec::new(),
            params: Vec::new(),
            returned: None,
            cursors: Vec::new(),
        }
    }

    /// Readies the frame for a run of `body`: every local NULL, every cursor closed.
    fn start(&mut self, body: &Body) {
        self.locals.clear();
        self.locals.resize(body.locals.len(), Value::Null);
        self.cursors.clear();
        self.cursors.resize(body.cursors.len(), None);
    }

    fn fill(&mut self, refs: &[Ref]) -> &[Value] {
        self.params.clear();
        for r in refs {
            let value = match *r {
                Ref::New(i) => self
                    .new
                    .as_deref()
                    .map_or(Value::Null, |row| row[i].clone()),
                Ref::Old(i) => self.old.map_or(Value::Null, |row| row[i].clone()),
                Ref::Local(slot) => self.locals[slot].clone(),
            };
            self.params.push(value);
        }
        &self.params
    }
}

/// What a body reads and writes through.
pub(crate) enum Access<'s> {
    /// A trigger's or a procedure's: the transaction of the statement that runs it.
    Transaction(&'s mut Transaction),
    /// A stored function's: the view of the statement that calls it. Such a body never
    /// writes: a function that writes is refused where it is called (`routine`
    /// invariant (5)).
    View(ReadView),
}

impl Access<'_> {
    fn view(&self) -> ReadView {
        match self {
            Access::Transaction(txn) => txn.write_view(),
            Access::View(view) => *view,
        }
    }

    fn transaction(&mut self) -> &mut Transaction {
        match self {
            Access::Transaction(txn) => txn,
            Access::View(_) => unreachable!("a body that writes runs only in a transaction"),
        }
    }
}

/// The session side of a run.
pub(crate) struct Runtime<'s> {
    pub access: Access<'s>,
    pub session: &'s dyn expr::SessionContext,
    pub interrupt: &'s crate::engine::ProcessEntry,
    /// A procedure's CALL, which takes its result sets and affected rows; None in a
    /// trigger, whose outcomes are dropped (trigger invariant (2)).
    pub call: Option<&'s mut CallOutput>,
}

/// What a procedure's statements give its CALL.
#[derive(Default)]
pub(crate) struct CallOutput {
    /// The result sets of its SELECTs (and RETURNING clauses), in order.
    pub result_sets: Vec<crate::show::Rows>,
    /// The rows its statements affected, summed (MariaDB's CALL reports the sum).
    pub affected: u64,
    /// The warnings and notes the CALL ends with, if a statement of its body cleared or
    /// raised any; None leaves those before the CALL (invariant (6)).
    pub conditions: Option<Vec<Condition>>,
}

/// How a statement ended: normally, or leaving or iterating the labelled statement.
enum Flow {
    Next,
    Leave(u32),
    Iterate(u32),
    /// A function's RETURN ran (its value is in `Frame::returned`).
    Return,
}

/// Runs `body` once with `frame`'s rows (a BEFORE trigger may change `frame.new`).
///
/// The warnings and notes its statements raise are its own (`begin_conditions`): its
/// handlers may catch them, and they do not reach the statement that fired the trigger,
/// as measured on MariaDB 10.11.
pub(crate) fn run(body: &Body, frame: &mut Frame, rt: &mut Runtime) -> Result<()> {
    frame.start(body);
    run_frame(body, frame, rt)
}

/// Runs a procedure's `body` (bound by `bind_procedure`) with its parameters' values,
/// each converted to the parameter's type as a SET converts it (1406 in strict mode);
/// returns the parameters' values at the end, for OUT and INOUT.
///
/// Each statement of the body is atomic (MariaDB's rule in stored procedures): one that
/// fails is undone whole, whether a handler catches its error or it ends the CALL, and
/// the statements before it keep their work.
pub(crate) fn run_procedure(
    body: &Body,
    arguments: Vec<Value>,
    rt: &mut Runtime,
) -> Result<Vec<Value>> {
    debug_assert!(body.row_table.is_none());
    let count = arguments.len();
    let mut frame = with_arguments(body, arguments, rt)?;
    run_frame(body, &mut frame, rt)?;
    frame.locals.truncate(count);
    Ok(frame.locals)
}

/// What the worker's stack must keep free to run one more nested procedure: a statement
/// of its body may need it all (a deep expression, a join).
const CALL_STACK_RED_ZONE: usize = 256 * 1024;
/// The stack segment a nested procedure runs on once the red zone is reached.
const CALL_STACK_SEGMENT: usize = 2 * 1024 * 1024;

/// Runs `procedure` for a CALL inside a body, as `run_procedure` does, entered among the
/// session's running procedures (`routine` invariant (7)). Recursion may nest it hundreds
/// of times deep, so when the thread's stack runs low it runs on a new segment (stacker
/// switches stacks; a worker's stack is a few megabytes).
fn enter_and_run(
    procedure: Arc<crate::routine::BoundProcedure>,
    arguments: Vec<Value>,
    rt: &mut Runtime,
) -> Result<Vec<Value>> {
    let _running = rt
        .session
        .running_routines()
        .map(|running| running.enter_procedure(Arc::clone(&procedure)));
    stacker::maybe_grow(CALL_STACK_RED_ZONE, CALL_STACK_SEGMENT, || {
        run_procedure(&procedure.body, arguments, rt)
    })
}

/// Runs a function's `body` (bound by `bind_function`) with its arguments' values, each
/// converted as `run_procedure` converts them; the value its RETURN gave, or None when
/// it ended without one. It runs as one statement of the caller (no savepoints).
pub(crate) fn run_function(
    body: &Body,
    arguments: Vec<Value>,
    rt: &mut Runtime,
) -> Result<Option<Value>> {
    debug_assert!(rt.call.is_none() && !body.writes);
    let mut frame = with_arguments(body, arguments, rt)?;
    run_frame(body, &mut frame, rt)?;
    Ok(frame.returned)
}

/// A frame whose first locals are a routine's parameters, set from `arguments`.
fn with_arguments<'r>(body: &Body, arguments: Vec<Value>, rt: &Runtime) -> Result<Frame<'r>> {
    let mut frame = Frame::new(None, None);
    frame.start(body);
    for (slot, value) in arguments.into_iter().enumerate() {
        let (data_type, name) = &body.locals[slot];
        let stored = expr::store_value(
            value,
            data_type,
            &|| name.clone(),
            0,
            rt.session.strict(),
            rt.session,
        )?;
        frame.locals[slot] = expr::stored_cell(data_type, stored, rt.session);
    }
    Ok(frame)
}

fn run_frame(body: &Body, frame: &mut Frame, rt: &mut Runtime) -> Result<()> {
    let session = rt.session;
    session.begin_conditions();
    let mut run = Run {
        body,
        frame,
        rt,
        handlers: Vec::new(),
        raised: Vec::new(),
        caught: Vec::new(),
        past_handlers: false,
    };
    let outcome = run.op(&body.op);
    session.end_conditions();
    outcome.map(drop)
}

struct Run<'b, 'f, 'r, 's, 't> {
    body: &'b Body,
    frame: &'f mut Frame<'r>,
    rt: &'t mut Runtime<'s>,
    /// The handlers of the blocks being run, outermost first, with each block's id.
    handlers: Vec<(&'b [Handler], u32)>,
    /// Conditions the running statement raised itself (SIGNAL of a warning, SELECT ...
    /// INTO finding no row), besides those the session kept.
    raised: Vec<Condition>,
    /// The conditions the running handlers caught, innermost last.
    caught: Vec<Caught>,
    /// Set once an error escaped a handler's body: the blocks around that handler were
    /// offered it already, and the blocks inside it may not take it.
    past_handlers: bool,
}

/// The condition a running handler caught: what RESIGNAL raises again and GET
/// DIAGNOSTICS reads.
#[derive(Clone)]
enum Caught {
    Error(Error),
    Warning(Condition),
}

impl Caught {
    fn number(&self) -> u16 {
        match self {
            Caught::Error(e) => e.number(),
            Caught::Warning(c) => c.number,
        }
    }

    fn sqlstate(&self) -> &str {
        match self {
            Caught::Error(e) => e.sqlstate(),
            Caught::Warning(c) => &c.sqlstate,
        }
    }

    fn message(&self) -> &str {
        match self {
            Caught::Error(e) => &e.message,
            Caught::Warning(c) => &c.message,
        }
    }
}

/// Whether a handler may take an error: not a KILL, a deadlock (the transaction is
/// gone) or a statement undone to wait for a lock (it runs again).
fn catchable(error: &Error) -> bool {
    error.wait.is_none()
        && !matches!(
            error.code,
            ErrorCode::QueryInterrupted | ErrorCode::LockDeadlock
        )
}

impl<'b> Run<'b, '_, '_, '_, '_> {
    fn eval(&mut self, bound: &Bound<Expr>) -> Result<Value> {
        let session = self.rt.session;
        let subqueries = exec::SubqueryReader::new(self.rt.access.view(), self.rt.interrupt);
        let params = self.frame.fill(&bound.refs);
        let eval = EvalContext {
            subqueries: Some(&subqueries),
            ..EvalContext::new(params, session)
        };
        bound.get()?.eval(&[], &eval)
    }

    /// A condition: NULL is false (invariant (3)).
    fn holds(&mut self, bound: &Bound<Expr>) -> Result<bool> {
        let value = self.eval(bound)?;
        Ok(coerce::truth(&value, self.rt.session) == Some(true))
    }

    fn list(&mut self, ops: &'b [Op]) -> Result<Flow> {
        for op in ops {
            match self.op(op)? {
                Flow::Next => {}
                flow => return Ok(flow),
            }
        }
        Ok(Flow::Next)
    }

    /// Runs `op`, then lets the handlers in scope take what it raised: its error, or else
    /// the last of its warnings that one catches (MariaDB's choice: the last condition
    /// raised is the most substantial). The rest is what the CALL has then (invariant (6)).
    fn op(&mut self, op: &'b Op) -> Result<Flow> {
        if self.clears_conditions(op) {
            self.call_conditions(Vec::new());
        }
        let outcome = self.step(op);
        let mut raised = self.rt.session.take_conditions();
        raised.append(&mut self.raised);
        let flow = match outcome {
            Err(e) if self.past_handlers || !catchable(&e) => return Err(e),
            Err(e) => match self.find_handler(e.number(), e.sqlstate(), "Error") {
                Some((depth, handler)) => {
                    self.call_conditions(raised);
                    return self.activate(depth, handler, Caught::Error(e));
                }
                None => return Err(e),
            },
            Ok(flow) => flow,
        };
        let raised_any = !raised.is_empty();
        // A condition of level Error here was not raised as an error (DO's): no handler
        // takes it.
        let caught = raised.iter().enumerate().rev().find_map(|(i, c)| {
            if c.level == "Error" {
                return None;
            }
            let (depth, handler) = self.find_handler(c.number, &c.sqlstate, c.level)?;
            Some((depth, handler, i))
        });
        let caught = caught.map(|(depth, handler, i)| (depth, handler, raised.remove(i)));
        if raised_any {
            self.call_conditions(raised);
        }
        match caught {
            Some((depth, handler, c)) => self.activate(depth, handler, Caught::Warning(c)),
            None => Ok(flow),
        }
    }

    /// Whether `op` clears the conditions a CALL gathered before it runs, even if it raises
    /// none (invariant (6)): as measured on MariaDB, a SELECT, INSERT, UPDATE or DELETE
    /// that names a table and OPEN of such a cursor do; a SET or a condition reading one
    /// through a subquery, FETCH and CALL do not.
    fn clears_conditions(&self, op: &Op) -> bool {
        let names_a_table = |plan: &Bound<SelectPlan>| match &plan.item {
            Ok(select) => !select.tables.is_empty(),
            Err(_) => true,
        };
        match op {
            Op::Insert(_) | Op::Update(_) | Op::Delete(_) => true,
            Op::Select(plan) | Op::SelectInto(plan, _) => names_a_table(plan),
            Op::Open { cursor, .. } => names_a_table(&self.body.cursors[*cursor].query),
            _ => false,
        }
    }

    /// Replaces the conditions the running CALL gathered (none run outside a CALL: a
    /// trigger's and a function's stay in their bodies).
    fn call_conditions(&mut self, conditions: Vec<Condition>) {
        if let Some(call) = self.rt.call.as_deref_mut() {
            call.conditions = Some(conditions);
        }
    }

    /// The handler for a condition: the innermost block's with one that catches it, and
    /// of that block's the closest (error number, then SQLSTATE, then class).
    fn find_handler(
        &self,
        number: u16,
        sqlstate: &str,
        level: &str,
    ) -> Option<(usize, &'b Handler)> {
        self.handlers
            .iter()
            .enumerate()
            .rev()
            .find_map(|(depth, (handlers, _))| {
                handlers
                    .iter()
                    .filter_map(|h| {
                        let closeness = h
                            .conditions
                            .iter()
                            .filter_map(|c| c.catches(number, sqlstate, level))
                            .min()?;
                        Some((closeness, h))
                    })
                    .min_by_key(|(closeness, _)| *closeness)
                    .map(|(_, h)| (depth, h))
            })
    }

    /// Runs `handler` (of the block at `depth` of the handler stack) for `caught`. Its
    /// body is handled only by the blocks around that block.
    fn activate(&mut self, depth: usize, handler: &'b Handler, caught: Caught) -> Result<Flow> {
        let block = self.handlers[depth].1;
        let inner = self.handlers.split_off(depth);
        self.caught.push(caught);
        let outcome = self.op(&handler.body);
        self.caught.pop();
        self.handlers.extend(inner);
        match outcome {
            Err(e) => {
                self.past_handlers = true;
                Err(e)
            }
            Ok(Flow::Next) if handler.exit => Ok(Flow::Leave(block)),
            Ok(Flow::Next) => Ok(Flow::Next),
            // An EXIT handler of a block around this one ran inside the body.
            Ok(flow) => Ok(flow),
        }
    }

    fn step(&mut self, op: &'b Op) -> Result<Flow> {
        match op {
            Op::Block {
                declarations,
                handlers,
                body,
                label,
                cursors,
            } => {
                for (slots, default) in declarations {
                    let value = match default {
                        Some(d) => self.eval(d)?,
                        None => Value::Null,
                    };
                    for slot in slots {
                        self.assign(&Target::Local(*slot), value.clone())?;
                    }
                }
                let catching = !handlers.is_empty();
                if catching {
                    self.handlers.push((handlers, *label));
                }
                let outcome = self.list(body);
                if catching {
                    self.handlers.pop();
                }
                for &cursor in cursors {
                    self.frame.cursors[cursor] = None;
                }
                match outcome? {
                    Flow::Leave(l) if l == *label => Ok(Flow::Next),
                    flow => Ok(flow),
                }
            }
            Op::If { arms, otherwise } => {
                for (condition, body) in arms {
                    if self.holds(condition)? {
                        return self.list(body);
                    }
                }
                self.list(otherwise)
            }
            Op::Case {
                operand,
                arms,
                otherwise,
            } => {
                if let Some((slot, value)) = operand {
                    self.frame.locals[*slot] = self.eval(value)?;
                }
                for (condition, body) in arms {
                    if self.holds(condition)? {
                        return self.list(body);
                    }
                }
                match otherwise {
                    Some(body) => self.list(body),
                    None => Err(Error::new(
                        ErrorCode::SpCaseNotFound,
                        "Case not found for CASE statement",
                    )),
                }
            }
            Op::Loop { label, kind, body } => {
                let LoopKind::For(header) = kind else {
                    return self.repeat(*label, kind, body);
                };
                self.start_for(header)?;
                let flow = self.repeat(*label, kind, body)?;
                // Only a loop that ends itself closes its cursor: MariaDB's stays open
                // when a LEAVE of an outer label or an EXIT handler leaves the loop.
                if let (ForLoop::Cursor { cursor, .. }, Flow::Next) = (&**header, &flow) {
                    self.frame.cursors[*cursor] = None;
                }
                Ok(flow)
            }
            Op::Leave(label) => Ok(Flow::Leave(*label)),
            Op::Iterate(label) => Ok(Flow::Iterate(*label)),
            Op::Set {
                items,
                sets_user_variable,
            } => {
                let set = items.iter().try_for_each(|(target, value)| {
                    let target = target.as_ref().map_err(Error::clone)?;
                    let value = self.eval(value)?;
                    self.assign(target, value)
                });
                if *sets_user_variable {
                    self.rt
                        .session
                        .set_row_count(if set.is_ok() { 0 } else { -1 });
                }
                set.map(|()| Flow::Next)
            }
            Op::Signal(signal) => self.signal(signal),
            Op::GetDiagnostics { condition, items } => {
                let caught = self.caught.last().cloned();
                let caught = || {
                    caught
                        .as_ref()
                        .expect("GET DIAGNOSTICS of conditions is bound only in handler bodies")
                };
                if let Some(number) = condition {
                    // Only the caught condition is there: another number sets nothing.
                    let number = self.eval(number)?;
                    if coerce::to_i128(&number, self.rt.session) != Some(1) {
                        return Ok(Flow::Next);
                    }
                }
                for (target, item) in items {
                    let value = match *item {
                        "ROW_COUNT" => Value::Int(self.rt.session.row_count()),
                        "NUMBER" => Value::Int(1),
                        "RETURNED_SQLSTATE" => Value::text(caught().sqlstate()),
                        "MESSAGE_TEXT" => Value::text(caught().message()),
                        "MYSQL_ERRNO" => Value::Int(caught().number().into()),
                        // SIGNAL's other items are not kept: they read as empty.
                        _ => Value::text(""),
                    };
                    self.assign(target, value)?;
                }
                Ok(Flow::Next)
            }
            Op::SelectInto(plan, targets) => {
                let found = self.select_into(plan, targets);
                self.rt
                    .session
                    .set_row_count(found.as_ref().map_or(-1, |&n| n.into()));
                found.map(|_| Flow::Next)
            }
            Op::Select(plan) => {
                let rows = self.rows(plan);
                self.rt.session.set_row_count(-1);
                let (rows, found) = rows?;
                self.rt.session.set_found_rows(found);
                let call = self.rt.call.as_deref_mut();
                let call = call.expect("SELECT is bound only in procedure bodies");
                call.result_sets.push(crate::show::Rows {
                    columns: plan.get()?.columns.to_vec(),
                    rows,
                });
                Ok(Flow::Next)
            }
            Op::Insert(plan) => self.write(&plan.refs, |rt, params| {
                let insert = plan.get()?;
                let txn = rt.access.transaction();
                dml::execute_insert(insert, txn, params, rt.session, rt.interrupt, false)
            }),
            Op::Update(plan) => self.write(&plan.refs, |rt, params| {
                let txn = rt.access.transaction();
                dml::execute_update(plan.get()?, txn, params, rt.session, rt.interrupt)
            }),
            Op::Delete(plan) => self.write(&plan.refs, |rt, params| {
                let txn = rt.access.transaction();
                dml::execute_delete(plan.get()?, txn, params, rt.session, rt.interrupt)
            }),
            Op::Return(value) => {
                self.frame.returned = Some(self.eval(value)?);
                Ok(Flow::Return)
            }
            Op::Open { cursor, arguments } => {
                self.open(*cursor, arguments)?;
                Ok(Flow::Next)
            }
            Op::Fetch { cursor, targets } => match self.fetch(*cursor, targets)? {
                true => Ok(Flow::Next),
                // An error, unlike SELECT ... INTO's warning: unhandled, it ends the body
                // (as in MariaDB); NOT FOUND catches it.
                false => Err(Error::new(ErrorCode::SpFetchNoData, select_into::NO_DATA)),
            },
            Op::Do(values) => {
                // As at the top level, an expression that fails to evaluate (not to bind)
                // leaves its error as a condition of level Error, which no handler takes,
                // and the body goes on (as measured on MariaDB).
                for value in values {
                    value.get()?;
                    match self.eval(value) {
                        Err(e) if catchable(&e) => self.raised.push(Condition {
                            level: "Error",
                            number: e.number(),
                            sqlstate: e.sqlstate().to_string(),
                            message: e.message,
                        }),
                        evaluated => drop(evaluated?),
                    }
                }
                Ok(Flow::Next)
            }
            Op::Close(cursor) => match self.frame.cursors[*cursor].take() {
                Some(_) => Ok(Flow::Next),
                None => Err(cursor_not_open()),
            },
            Op::Call(call) => {
                let call = call.as_ref().as_ref().map_err(Error::clone)?;
                let mut values = Vec::with_capacity(call.arguments.len());
                for (value, _) in &call.arguments {
                    values.push(match value {
                        Some(value) => self.eval(value)?,
                        None => Value::Null,
                    });
                }
                let affected_before = self.rt.call.as_deref().map(|c| c.affected);
                let finals = call
                    .callee
                    .procedure(self.rt.session)
                    .and_then(|procedure| enter_and_run(procedure, values, self.rt));
                // A CALL counts its statements' affected rows, as at the top level; where
                // none are counted (a trigger's or a function's CALL), ROW_COUNT() stays as
                // the procedure's last statement set it.
                match (&finals, affected_before, self.rt.call.as_deref()) {
                    (Err(_), ..) => self.rt.session.set_row_count(-1),
                    (Ok(_), Some(before), Some(call)) => self
                        .rt
                        .session
                        .set_row_count((call.affected - before) as i64),
                    (Ok(_), ..) => {}
                }
                let finals = finals?;
                for ((_, target), value) in call.arguments.iter().zip(finals) {
                    if let Some(target) = target {
                        self.assign(target, value)?;
                    }
                }
                Ok(Flow::Next)
            }
        }
    }

    /// Runs a loop's body until it ends: by its condition (WHILE, REPEAT, FOR), by LEAVE,
    /// or by a flow leaving a statement around it (invariant (3)).
    fn repeat(
        &mut self,
        label: u32,
        kind: &'b LoopKind<Bound<Expr>, Box<ForLoop>>,
        body: &'b [Op],
    ) -> Result<Flow> {
        let mut first = true;
        loop {
            if self.rt.interrupt.interrupted() {
                return Err(Error::interrupted());
            }
            let more = match kind {
                LoopKind::While(condition) => self.holds(condition)?,
                LoopKind::For(header) => self.next_for(header, first)?,
                LoopKind::Repeat(_) | LoopKind::Plain => true,
            };
            if !more {
                return Ok(Flow::Next);
            }
            first = false;
            match self.list(body)? {
                Flow::Leave(l) if l == label => return Ok(Flow::Next),
                Flow::Iterate(l) if l == label => continue,
                Flow::Next => {}
                flow => return Ok(flow),
            }
            if let LoopKind::Repeat(condition) = kind {
                if self.holds(condition)? {
                    return Ok(Flow::Next);
                }
            }
        }
    }

    /// Starts a FOR loop: a range's counter and last value set, or its cursor opened.
    fn start_for(&mut self, header: &'b ForLoop) -> Result<()> {
        match header {
            ForLoop::Range {
                counter,
                last_slot,
                first,
                last,
                ..
            } => {
                let value = self.eval(first)?;
                self.assign(&Target::Local(*counter), value)?;
                let value = self.eval(last)?;
                self.assign(&Target::Local(*last_slot), value)
            }
            ForLoop::Cursor {
                cursor,
                arguments,
                fields,
            } => {
                fields.as_ref().map_err(Error::clone)?;
                self.open(*cursor, arguments)
            }
        }
    }

    /// Whether a FOR loop runs its body again: a range's counter (stepped, but before
    /// the first run) not past its last value, or a row fetched into the record.
    fn next_for(&mut self, header: &ForLoop, first: bool) -> Result<bool> {
        match header {
            ForLoop::Range {
                counter,
                last_slot,
                step,
                ..
            } => {
                let mut value = self.counter(*counter);
                if !first {
                    value = value.checked_add(*step).ok_or_else(|| {
                        let name = &self.body.locals[*counter].1;
                        Error::new(
                            ErrorCode::DataOutOfRange,
                            format!("BIGINT value is out of range in '{name}@{counter} + {step}'"),
                        )
                    })?;
                    self.frame.locals[*counter] = Value::Int(value);
                }
                let last = self.counter(*last_slot);
                Ok(if *step > 0 {
                    value <= last
                } else {
                    value >= last
                })
            }
            ForLoop::Cursor { cursor, fields, .. } => {
                let fields = fields.as_ref().map_err(Error::clone)?;
                self.fetch(*cursor, fields)
            }
        }
    }

    /// The value of a FOR loop's counter or last value: a BIGINT, never NULL.
    fn counter(&self, slot: usize) -> i64 {
        match self.frame.locals[slot] {
            Value::Int(value) => value,
            _ => unreachable!("a FOR loop's counter holds a BIGINT (`Body::counters`)"),
        }
    }

    /// OPEN of `cursor` (1325 if it is open): its parameters set from `arguments`, its
    /// rows read (invariant (8)).
    fn open(&mut self, cursor: usize, arguments: &[Bound<Expr>]) -> Result<()> {
        if self.frame.cursors[cursor].is_some() {
            return Err(Error::new(
                ErrorCode::SpCursorAlreadyOpen,
                "Cursor is already open",
            ));
        }
        let declared = &self.body.cursors[cursor];
        for (&slot, argument) in declared.parameters.iter().zip(arguments) {
            let value = self.eval(argument)?;
            self.assign(&Target::Local(slot), value)?;
        }
        let (rows, _) = self.rows(&declared.query)?;
        self.frame.cursors[cursor] = Some(rows.into_iter());
        Ok(())
    }

    /// FETCH of `cursor`'s next row into `targets`; false when it has no more rows.
    fn fetch(&mut self, cursor: usize, targets: &[Target]) -> Result<bool> {
        let Some(open) = self.frame.cursors[cursor].as_mut() else {
            return Err(cursor_not_open());
        };
        let Some(row) = open.next() else {
            return Ok(false);
        };
        if row.len() != targets.len() {
            return Err(Error::new(
                ErrorCode::SpWrongNoOfFetchArgs,
                "Incorrect number of FETCH variables",
            ));
        }
        for (target, value) in targets.iter().zip(row) {
            self.assign(target, value)?;
        }
        Ok(true)
    }

    /// The rows of a SELECT, read through the body's view, and its FOUND_ROWS().
    fn rows(&mut self, plan: &Bound<SelectPlan>) -> Result<(Vec<Vec<Value>>, u64)> {
        let select = plan.get()?;
        select.scans.count(self.rt.session);
        let view = self.rt.access.view();
        let params = self.frame.fill(&plan.refs);
        let mut rows = Vec::new();
        let found = exec::in_context(
            view,
            params,
            self.rt.session,
            self.rt.interrupt,
            None,
            |ctx| {
                exec::run_found(&select.plan, select.calc_found_rows, ctx, |row| {
                    rows.push(row.to_vec());
                    Ok(())
                })
            },
        )?;
        Ok((rows, found))
    }

    /// Runs a write statement with its parameters. In a trigger its outcome is dropped
    /// (trigger invariant (2)); in a procedure it is atomic (`run_procedure`), its
    /// outcome goes to the CALL and the value it generated to LAST_INSERT_ID(). Either way
    /// it sets ROW_COUNT() when it ends (invariant (11)).
    fn write(
        &mut self,
        refs: &[Ref],
        statement: impl FnOnce(&mut Runtime, &[Value]) -> Result<StatementOutcome>,
    ) -> Result<Flow> {
        let params = self.frame.fill(refs);
        let rt = &mut *self.rt;
        let savepoint = rt
            .call
            .is_some()
            .then(|| rt.access.transaction().savepoint());
        let outcome = statement(rt, params);
        rt.session
            .set_row_count(outcome.as_ref().map_or(-1, row_count_after));
        let Some(savepoint) = savepoint else {
            return outcome.map(|_| Flow::Next);
        };
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(e) => {
                rt.access.transaction().rollback_to(savepoint);
                return Err(e);
            }
        };
        if let Some(id) = outcome.generated_id() {
            rt.session.set_last_insert_id(id);
        }
        let call = rt.call.as_deref_mut().expect("checked above");
        call.affected += outcome.affected_rows();
        if let StatementOutcome::Returned { columns, rows } = outcome {
            call.result_sets.push(crate::show::Rows {
                columns: columns.to_vec(),
                rows,
            });
        }
        Ok(Flow::Next)
    }

    /// Stores `value` in `target`, converted as invariant (2) says.
    fn assign(&mut self, target: &Target, value: Value) -> Result<()> {
        let session = self.rt.session;
        match target {
            Target::Local(slot) if value.is_null() && self.body.counters.contains(slot) => {
                let name = &self.body.locals[*slot].1;
                return Err(Error::new(
                    ErrorCode::BadNull,
                    format!("Column '{name}' cannot be null"),
                ));
            }
            Target::Local(slot) => {
                let (data_type, name) = &self.body.locals[*slot];
                let stored = expr::store_value(
                    value,
                    data_type,
                    &|| name.clone(),
                    0,
                    session.strict(),
                    session,
                )?;
                self.frame.locals[*slot] = expr::stored_cell(data_type, stored, session);
            }
            Target::New(column) => {
                let (db, table) = self
                    .body
                    .row_table
                    .as_ref()
                    .expect("NEW is bound only in trigger bodies");
                let c: &ColumnSchema = &table.schema.columns[*column];
                // NEW may hold NULL in a NOT NULL column until the BEFORE triggers end, as
                // in MariaDB: the write checks it then (`dml::settle_nulls`).
                let stored = match value.is_null() {
                    true => Value::Null,
                    false => {
                        let name = || dml::qualified(db, table, c);
                        dml::store(value, c, &name, 1, session.strict(), true, session)?
                    }
                };
                if let Some(row) = self.frame.new.as_deref_mut() {
                    row[*column] = stored;
                    self.frame.assigned.push(*column);
                }
            }
            Target::User(name) => session.set_user_variable(name, value),
        }
        Ok(())
    }

    /// SELECT ... INTO: one row sets the targets; none leaves them and raises 'no data'
    /// (1329, for a NOT FOUND or SQLWARNING handler); more than one is 1172.
    /// Runs a SELECT ... INTO; how many rows it delivered (0 or 1).
    fn select_into(&mut self, plan: &Bound<SelectPlan>, targets: &[Target]) -> Result<u8> {
        let select = plan.get()?;
        select_into::check_width(select.columns.len(), targets.len())?;
        select.scans.count(self.rt.session);
        let view = self.rt.access.view();
        let params = self.frame.fill(&plan.refs);
        let (found, too_many) = exec::in_context(
            view,
            params,
            self.rt.session,
            self.rt.interrupt,
            None,
            |ctx| select_into::first_row(&select.plan, ctx),
        )?;
        if too_many {
            return Err(select_into::too_many_rows());
        }
        match found {
            Some(row) => {
                for (target, value) in targets.iter().zip(row) {
                    self.assign(target, value)?;
                }
                // The row it delivered counts among a CALL's affected rows, as at the top
                // level.
                if let Some(call) = self.rt.call.as_deref_mut() {
                    call.affected += 1;
                }
                Ok(1)
            }
            None => {
                self.raised.push(Condition {
                    level: "Warning",
                    number: ErrorCode::SpFetchNoData.code(),
                    sqlstate: ErrorCode::SpFetchNoData.sqlstate().to_string(),
                    message: select_into::NO_DATA.into(),
                });
                Ok(0)
            }
        }
    }

    fn signal(&mut self, signal: &Signal) -> Result<Flow> {
        let invalid = |item: &str, value: &str| {
            Error::new(
                ErrorCode::WrongValueForVar,
                format!("Variable '{item}' can't be set to the value of '{value}'"),
            )
        };
        let message: Option<String> = match &signal.message {
            Some(m) => match self.eval(m)? {
                Value::Null => return Err(invalid("MESSAGE_TEXT", "NULL")),
                v => {
                    let text = manycore_types::format::to_text(&v, &m.get()?.data_type());
                    Some(text.chars().take(MESSAGE_TEXT_CHARS_MAX).collect())
                }
            },
            None => None,
        };
        let errno = match &signal.errno {
            Some(e) => {
                let value = self.eval(e)?;
                let text = manycore_types::format::to_text(&value, &e.get()?.data_type());
                match text.parse::<u16>() {
                    Ok(n) if n > 0 => Some(n),
                    _ => return Err(invalid("MYSQL_ERRNO", &text)),
                }
            }
            None => None,
        };
        for other in &signal.others {
            if self.eval(other)?.is_null() {
                return Err(invalid("condition item", "NULL"));
            }
        }
        let caught = match signal.resignal {
            false => None,
            true => Some(self.caught.last().cloned().ok_or_else(|| {
                Error::new(
                    ErrorCode::ResignalWithoutActiveHandler,
                    "RESIGNAL when handler not active",
                )
            })?),
        };
        let Some(sqlstate) = &signal.sqlstate else {
            // RESIGNAL alone: the caught condition again, with the items SET.
            return match caught.expect("RESIGNAL found its condition above") {
                Caught::Error(mut e) => {
                    if let Some(message) = message {
                        e.message = message;
                    }
                    if let Some(number) = errno {
                        let sqlstate = e.sqlstate().to_string();
                        e.signalled = Some(Box::new(Signalled { number, sqlstate }));
                    }
                    Err(e)
                }
                Caught::Warning(mut c) => {
                    c.message = message.unwrap_or(c.message);
                    c.number = errno.unwrap_or(c.number);
                    self.raised.push(c);
                    Ok(Flow::Next)
                }
            };
        };
        // RESIGNAL of another SQLSTATE keeps the caught condition's message unless SET.
        let message = message.or_else(|| caught.map(|c| c.message().to_string()));
        let (code, default_message) = match &sqlstate[..2] {
            // A warning: the body goes on, and a handler may catch it (the body's
            // conditions do not reach the statement: `run`).
            "01" => {
                self.raised.push(Condition {
                    level: "Warning",
                    number: errno.unwrap_or(ErrorCode::SignalWarn.code()),
                    sqlstate: sqlstate.clone(),
                    message: message
                        .unwrap_or_else(|| "Unhandled user-defined warning condition".into()),
                });
                return Ok(Flow::Next);
            }
            "02" => (
                ErrorCode::SignalNotFound,
                "Unhandled user-defined not found condition",
            ),
            _ => (
                ErrorCode::SignalException,
                "Unhandled user-defined exception condition",
            ),
        };
        let mut error = Error::new(code, message.unwrap_or_else(|| default_message.into()));
        error.signalled = Some(Box::new(Signalled {
            number: errno.unwrap_or(code.code()),
            sqlstate: sqlstate.clone(),
        }));
        Err(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(body: &str) -> Result<Node> {
        Reader::new(body, Program::Trigger)?.body()
    }

    #[test]
    fn the_grammar_refuses_what_mariadb_refuses() {
        let refused = [
            ("BEGIN SET @a = 1; DECLARE x INT; END", 1064),
            ("IF 1 THEN END IF", 1064),
            ("BEGIN SET @a = 1 END", 1064),
            ("CASE 1 END CASE", 1064),
            (
                "BEGIN DECLARE CONTINUE HANDLER FOR 1062 SET @a = 1; DECLARE x INT; END",
                1337,
            ),
            ("BEGIN DECLARE UNDO HANDLER FOR 1062 SET @a = 1; END", 1064),
            ("BEGIN DECLARE EXIT HANDLER FOR 0 SET @a = 1; END", 1525),
            ("BEGIN DECLARE c CONDITION FOR SQLSTATE '00000'; END", 1407),
            ("BEGIN DECLARE c CONDITION FOR SQLWARNING; END", 1064),
            (
                "BEGIN DECLARE c CURSOR FOR SELECT 1; DECLARE x INT; END",
                1337,
            ),
            (
                "BEGIN DECLARE CONTINUE HANDLER FOR 1062 SET @a = 1; \
                 DECLARE c CURSOR FOR SELECT 1; END",
                1338,
            ),
            ("BEGIN DECLARE c CURSOR FOR SELECT 1 INTO @a; END", 1323),
            ("BEGIN DECLARE c CURSOR FOR DELETE FROM t; END", 1064),
            ("BEGIN DECLARE x INT; FETCH c INTO @x; END", 1064),
            ("FOR i IN 1.. DO SET @a = i; END FOR", 1064),
            ("FOR i IN 1..3 SET @a = i; END FOR", 1064),
            ("FOR i 1..3 DO SET @a = i; END FOR", 1064),
            ("FOR r IN (SELECT 1 INTO @a) DO SET @a = 1; END FOR", 1323),
            ("FOR r IN (DELETE FROM t) DO SET @a = 1; END FOR", 1064),
            ("a: FOR i IN 1..3 DO SET @a = i; END FOR b", 1310),
            ("BEGIN GET DIAGNOSTICS @n = MESSAGE_TEXT; END", 1064),
            ("RETURN 1", 1313),
            ("SIGNAL SQLSTATE '00000'", 1407),
            ("SIGNAL SQLSTATE '4500'", 1407),
            (
                "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'a', MESSAGE_TEXT = 'b'",
                1641,
            ),
            (
                "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = CONCAT('a')",
                1327,
            ),
            ("a: LOOP LEAVE a; END LOOP b", 1310),
        ];
        for (body, code) in refused {
            let got = parsed(body).map(drop).map_err(|e| e.code.code());
            assert_eq!(got, Err(code), "{body}");
        }
        let accepted = [
            "BEGIN END",
            "a: BEGIN LEAVE a; END a",
            "BEGIN DECLARE a, b INT DEFAULT 1; DECLARE c CHAR(2); SET a = 2, @b := a; END",
            "CASE WHEN 1 THEN SET @a = 1; ELSE BEGIN END; END CASE",
            "l: WHILE 1 DO ITERATE l; END WHILE l",
            "REPEAT SET @a = @a + 1; UNTIL @a > 3 END REPEAT",
            "a: FOR i IN REVERSE 1..3 DO ITERATE a; END FOR a",
            "FOR i IN 1.5..3.7 DO \
             FOR j IN i .. (SELECT MAX(x) FROM t) DO SET @a = j; END FOR; END FOR",
            "FOR i IN '1..2'..@n DO SET @a = i; END FOR",
            "FOR r IN c DO SET @a = r.a; END FOR",
            "FOR r IN REVERSE c(1, 'a') DO SET @a = r.a; END FOR",
            "FOR r IN (SELECT a, b FROM t WHERE a IN (1, 2)) DO SET @a = r.a; END FOR",
            "SELECT 1, 2 INTO @a, @b FROM t WHERE x = 1 LIMIT 1",
            "SIGNAL SQLSTATE VALUE '01000' SET MYSQL_ERRNO = 1000, MESSAGE_TEXT = @m",
            "BEGIN DECLARE x INT; DECLARE c CURSOR (a INT, b CHAR(2)) FOR SELECT a UNION SELECT b; \
             DECLARE EXIT HANDLER FOR NOT FOUND CLOSE c; \
             OPEN c(1, 'b'); FETCH c INTO x; FETCH NEXT FROM c INTO x; FETCH FROM c INTO x; END",
            "BEGIN DECLARE x INT; CALL p(1, x); CALL db.q; CALL r(); END",
            "BEGIN DECLARE c CONDITION FOR SQLSTATE VALUE '45000'; \
             DECLARE CONTINUE HANDLER FOR c, 1062, NOT FOUND BEGIN END; \
             DECLARE EXIT HANDLER FOR SQLWARNING, SQLEXCEPTION SET @a = 1; SIGNAL c; END",
        ];
        for body in accepted {
            assert!(parsed(body).is_ok(), "{body}: {:?}", parsed(body));
        }
    }

    #[test]
    fn statements_no_body_runs_are_refused_by_the_kind_of_program() {
        // (statement, code in a function or trigger, code in a procedure)
        let cases = [
            ("COMMIT", 1422, 1235),
            ("ROLLBACK", 1422, 1235),
            ("START TRANSACTION", 1422, 1235),
            ("CREATE TABLE z (a INT)", 1422, 1235),
            ("DROP TABLE t", 1422, 1235),
            ("TRUNCATE t", 1422, 1235),
            ("RENAME TABLE t TO u", 1422, 1235),
            ("CREATE VIEW v AS SELECT 1", 1422, 1235),
            ("GRANT SELECT ON *.* TO u", 1422, 1235),
            ("SET PASSWORD FOR u = PASSWORD('x')", 1445, 1235),
            ("PREPARE s FROM 'SELECT 1'", 1336, 1235),
            ("LOCK TABLES t READ", 1314, 1314),
            ("UNLOCK TABLES", 1314, 1314),
            ("LOAD DATA INFILE 'x' INTO TABLE t", 1314, 1314),
            ("CREATE PROCEDURE x() SELECT 1", 1303, 1303),
            ("DROP FUNCTION IF EXISTS y", 1357, 1357),
            // MariaDB runs these in every body; they are not built here.
            ("CREATE TEMPORARY TABLE z (a INT)", 1235, 1235),
            ("DROP TEMPORARY TABLE z", 1235, 1235),
            ("ROLLBACK TO SAVEPOINT a", 1235, 1235),
            ("SHOW GRANTS", 1235, 1235),
        ];
        for (text, in_function, in_procedure) in cases {
            let statement = parse::parse(text, 1).expect(text);
            let code = |program| refusal(&statement).error(program).code.code();
            assert_eq!(code(Program::Function), in_function, "{text}");
            assert_eq!(code(Program::Trigger), in_function, "{text}");
            assert_eq!(code(Program::Procedure), in_procedure, "{text}");
        }
    }

    #[test]
    fn select_into_takes_its_targets_out_of_the_query() {
        let Ok(Node::SelectInto { targets, text, .. }) =
            parsed("SELECT a, b INTO x, @y FROM t WHERE c IN (1, 2) LIMIT 1")
        else {
            panic!("a SELECT ... INTO");
        };
        assert_eq!(targets, ["x", "@y"]);
        assert_eq!(
            text.split_whitespace().collect::<Vec<_>>(),
            ["SELECT", "a,", "b", "FROM", "t", "WHERE", "c", "IN", "(1,", "2)", "LIMIT", "1"]
        );
    }
}
