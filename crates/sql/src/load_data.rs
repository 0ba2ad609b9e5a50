//! LOAD DATA [LOCAL] INFILE: the rows of a text file the client sends (or, without LOCAL,
//! a file on the server, `server_file`), written into a table as INSERT writes rows.
//!
//! The statement is bound first (the table, its columns, the SET clause), so its errors
//! come before any file is asked for, as in MariaDB. Without LOCAL the session reads the
//! server's file (the FILE privilege, 1045, checked first). With LOCAL, the session asks
//! the client for the file (`WaitFor::LocalFile`, session invariant (4)): the server
//! sends the request, reads the bytes the client answers with, hands them to
//! `Session::supply_local_file` and runs the statement again, which now reads them.
//!
//! Invariants:
//! (1) Fields and lines are read as MariaDB reads them (`Reader`): FIELDS TERMINATED BY,
//!     [OPTIONALLY] ENCLOSED BY (a field that starts with the character ends at the next
//!     one followed by a terminator; a doubled one stands for itself), ESCAPED BY (`\N`
//!     is NULL; `\0 \b \n \r \t \Z` their characters; any other escaped byte itself),
//!     LINES STARTING BY (text before it is skipped) and TERMINATED BY. The unenclosed
//!     word NULL is NULL when ENCLOSED BY is given.
//! (2) Every row goes through `dml::write_rows`, as an INSERT's: defaults, triggers,
//!     AUTO_INCREMENT, generated columns, CHECK constraints, duplicates and foreign keys
//!     act as for INSERT. A field is converted as INSERT converts a string, in field
//!     order, so warnings come in MariaDB's order.
//! (3) LOCAL without REPLACE is IGNORE (the server cannot stop the client mid-file, as
//!     MariaDB reasons): duplicates are skipped with 1062 warnings and data errors are
//!     warnings. Otherwise, in strict mode, the first warning fails the statement, which is
//!     undone whole.
//! (4) A missing field (a short line) leaves its column NULL if the column's default is
//!     NULL and else its type's zero ('', 0), with warning 1261; a NULL for a NOT NULL
//!     column stores the zero with 1263 (a NOT NULL TIMESTAMP takes the current time, an
//!     AUTO_INCREMENT column a new value); more fields than targets is 1262. A missing
//!     user variable is NULL.
//!
//! SELECT ... INTO OUTFILE (`outfile`) writes with the same `Format` and its parser.
//!
//! Not built: fixed-width rows (FIELDS TERMINATED BY '' ENCLOSED BY ''), LOAD XML, the
//! PARTITION clause and character sets other than utf8mb4/utf8mb3 and binary (1235). The
//! file is held in memory while it loads.

use crate::dml::{self, InsertPlan, InsertSource, WriteContext, WriteRules, WriteSession};
use crate::error::{Error, ErrorCode, Result};
use crate::exec;
use crate::expr::{self, EvalContext, Expr, VarScope};
use crate::parse::{self, Statement};
use crate::privilege::Privileges;
use crate::scope::{BindScope, SourceTable};
use crate::select::{object_part, BindContext};
use crate::session::StatementOutcome;
use manycore_storage::{ColumnSchema, Transaction};
use manycore_types::{ColumnDefault, DataType, Value};
use sqlparser::ast;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// `LOAD DATA [LOW_PRIORITY | CONCURRENT] [LOCAL] INFILE 'file' [REPLACE | IGNORE] INTO
/// TABLE t [PARTITION (...)] [CHARACTER SET c] [{FIELDS | COLUMNS} ...] [LINES ...]
/// [IGNORE n {LINES | ROWS}] [(column or @variable, ...)] [SET column = expr, ...]`.
#[derive(Clone, Debug)]
pub struct LoadDataStatement {
    pub local: bool,
    pub file: String,
    pub duplicates: Duplicates,
    pub table: ast::ObjectName,
    pub partition: bool,
    pub charset: Option<String>,
    pub format: Format,
    pub ignore_lines: u64,
    /// Where each field of a line goes; empty: the table's columns, in order.
    pub targets: Vec<Target>,
    pub set: Vec<(String, ast::Expr)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Duplicates {
    Error,
    Ignore,
    Replace,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Column(String),
    /// A user variable (`@name`, without the `@`).
    Variable(String),
}

/// FIELDS and LINES, as written (defaults: tab-separated fields, `\` escapes, lines
/// ended by a newline).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Format {
    pub field_term: Vec<u8>,
    pub enclosed: Vec<u8>,
    /// OPTIONALLY ENCLOSED BY: a reader takes either; a writer encloses only strings.
    pub optionally: bool,
    /// ESCAPED BY if given: without it, `\` unless sql_mode has NO_BACKSLASH_ESCAPES.
    pub escaped: Option<Vec<u8>>,
    pub line_start: Vec<u8>,
    pub line_term: Vec<u8>,
}

impl Default for Format {
    fn default() -> Format {
        Format {
            field_term: b"\t".to_vec(),
            enclosed: Vec::new(),
            optionally: false,
            escaped: None,
            line_start: Vec::new(),
            line_term: b"\n".to_vec(),
        }
    }
}

/// Parses the statement; the parser stands on LOAD.
pub(crate) fn parse(parser: &mut Parser) -> std::result::Result<Statement, ParserError> {
    parser.next_token();
    expect(parser, "DATA")?;
    let _ = eat(parser, "LOW_PRIORITY") || eat(parser, "CONCURRENT");
    let local = eat(parser, "LOCAL");
    expect(parser, "INFILE")?;
    let file = parser.parse_literal_string()?;
    let duplicates = if eat(parser, "REPLACE") {
        Duplicates::Replace
    } else if eat(parser, "IGNORE") {
        Duplicates::Ignore
    } else {
        Duplicates::Error
    };
    expect(parser, "INTO")?;
    expect(parser, "TABLE")?;
    let table = parser.parse_object_name(false)?;
    let partition = eat(parser, "PARTITION");
    if partition {
        parser.expect_token(&Token::LParen)?;
        parser.parse_comma_separated(|p| p.parse_identifier())?;
        parser.expect_token(&Token::RParen)?;
    }
    let charset = parse_charset(parser)?;
    let format = parse_format(parser)?;
    let mut ignore_lines = 0;
    if eat(parser, "IGNORE") {
        let token = parser.next_token();
        ignore_lines = match &token.token {
            Token::Number(n, _) => n.parse().map_err(|_| number_expected(&token))?,
            _ => return Err(number_expected(&token)),
        };
        if !(eat(parser, "LINES") || eat(parser, "ROWS")) {
            return parser.expected("LINES or ROWS", parser.peek_token());
        }
    }
    let mut targets = Vec::new();
    if parser.consume_token(&Token::LParen) && !parser.consume_token(&Token::RParen) {
        targets = parser.parse_comma_separated(|p| {
            let name = p.parse_identifier()?;
            Ok(match name.value.strip_prefix('@') {
                Some(variable) if name.quote_style.is_none() => {
                    Target::Variable(variable.to_string())
                }
                _ => Target::Column(name.value),
            })
        })?;
        parser.expect_token(&Token::RParen)?;
    }
    let mut set = Vec::new();
    if eat(parser, "SET") {
        set = parser.parse_comma_separated(|p| {
            let column = p.parse_object_name(false)?;
            p.expect_token(&Token::Eq)?;
            let value = p.parse_expr()?;
            let name = column.0.last().map(object_part).unwrap_or_default();
            Ok((name, value))
        })?;
    }
    parse::end(parser)?;
    Ok(Statement::LoadData(Box::new(LoadDataStatement {
        local,
        file,
        duplicates,
        table,
        partition,
        charset,
        format,
        ignore_lines,
        targets,
        set,
    })))
}

/// `[CHARACTER SET | CHARSET name]`, as LOAD DATA and SELECT ... INTO OUTFILE read it.
pub(crate) fn parse_charset(
    parser: &mut Parser,
) -> std::result::Result<Option<String>, ParserError> {
    if eat(parser, "CHARSET") || (eat(parser, "CHARACTER") && expect(parser, "SET").is_ok()) {
        return Ok(Some(parser.parse_identifier()?.value));
    }
    Ok(None)
}

/// `[{FIELDS | COLUMNS} ...] [LINES ...]`, shared by LOAD DATA and SELECT ... INTO OUTFILE.
pub(crate) fn parse_format(parser: &mut Parser) -> std::result::Result<Format, ParserError> {
    let mut format = Format::default();
    if eat(parser, "FIELDS") || eat(parser, "COLUMNS") {
        let mut any = false;
        loop {
            if eat(parser, "TERMINATED") {
                expect(parser, "BY")?;
                format.field_term = literal(parser)?;
            } else if peek(parser, "OPTIONALLY") || peek(parser, "ENCLOSED") {
                format.optionally = eat(parser, "OPTIONALLY");
                expect(parser, "ENCLOSED")?;
                expect(parser, "BY")?;
                format.enclosed = literal(parser)?;
            } else if eat(parser, "ESCAPED") {
                expect(parser, "BY")?;
                format.escaped = Some(literal(parser)?);
            } else if any {
                break;
            } else {
                return parser.expected("TERMINATED, ENCLOSED or ESCAPED", parser.peek_token());
            }
            any = true;
        }
    }
    if eat(parser, "LINES") {
        let mut any = false;
        loop {
            if eat(parser, "STARTING") {
                expect(parser, "BY")?;
                format.line_start = literal(parser)?;
            } else if eat(parser, "TERMINATED") {
                expect(parser, "BY")?;
                format.line_term = literal(parser)?;
            } else if any {
                break;
            } else {
                return parser.expected("STARTING or TERMINATED", parser.peek_token());
            }
            any = true;
        }
    }
    Ok(format)
}

fn peek(parser: &Parser, word: &str) -> bool {
    parse::word(&parser.peek_token()).as_deref() == Some(word)
}

fn eat(parser: &mut Parser, word: &str) -> bool {
    let found = peek(parser, word);
    if found {
        parser.next_token();
    }
    found
}

fn expect(parser: &mut Parser, word: &str) -> std::result::Result<(), ParserError> {
    if eat(parser, word) {
        Ok(())
    } else {
        parser.expected(word, parser.peek_token())
    }
}

fn literal(parser: &mut Parser) -> std::result::Result<Vec<u8>, ParserError> {
    Ok(parser.parse_literal_string()?.into_bytes())
}

fn number_expected(token: &sqlparser::tokenizer::TokenWithSpan) -> ParserError {
    ParserError::ParserError(format!("Expected: a number, found: {}", token.token))
}

/// 1083 for ENCLOSED BY or ESCAPED BY longer than one byte; 1115 for an unknown character
/// set; 1235 for one other than utf8mb4/utf8mb3/binary and for fixed-width rows
/// (`statement` names LOAD DATA or SELECT ... INTO OUTFILE).
pub(crate) fn check_format(charset: Option<&str>, format: &Format, statement: &str) -> Result<()> {
    let escaped_len = format.escaped.as_ref().map_or(0, Vec::len);
    if escaped_len > 1 || format.enclosed.len() > 1 {
        return Err(Error::new(
            ErrorCode::WrongFieldTerminators,
            "Field separator argument is not what is expected; check the manual",
        ));
    }
    if let Some(name) = charset {
        if crate::information_schema::charset_default_collation(name).is_none() {
            return Err(Error::unknown_charset(name));
        }
        let name = name.to_ascii_lowercase();
        if !matches!(name.as_str(), "utf8mb4" | "utf8mb3" | "utf8" | "binary") {
            return Err(Error::not_supported(&format!(
                "{statement} with a character set other than utf8mb4 or binary"
            )));
        }
    }
    if format.field_term.is_empty() && format.enclosed.is_empty() {
        return Err(Error::not_supported(&format!(
            "{statement} of fixed-width rows (FIELDS TERMINATED BY '' ENCLOSED BY '')"
        )));
    }
    Ok(())
}

/// A bound LOAD DATA: the INSERT its rows go through, and where each field goes.
pub struct LoadPlan {
    /// `insert.columns`: the columns fields or SET write, each once.
    insert: InsertPlan,
    targets: Vec<Slot>,
    /// (position in `insert.columns`, value; None is DEFAULT), in the order written.
    set: Vec<(usize, Option<Expr>)>,
    /// For each of the table's columns, its position in `insert.columns` (for SET's rows).
    slots: Vec<Option<usize>>,
    format: Format,
    ignore_lines: u64,
    pub file: String,
}

enum Slot {
    /// A position in `insert.columns`.
    Column(usize),
    Variable(String),
}

/// Binds `load` against the catalog: its errors come before the file is asked for.
pub fn bind(load: &LoadDataStatement, cx: &BindContext) -> Result<LoadPlan> {
    let format = &load.format;
    check_format(load.charset.as_deref(), format, "LOAD DATA")?;
    if load.partition {
        return Err(Error::not_supported("LOAD DATA ... PARTITION"));
    }
    let replace = load.duplicates == Duplicates::Replace;
    let mut needed = Privileges::INSERT;
    if replace {
        needed |= Privileges::DELETE;
    }
    let (db, table, access) = cx.table(&load.table, needed, Privileges::INSERT)?;
    let schema = table.schema.clone();
    let mut columns: Vec<usize> = Vec::new();
    let mut slot_of = |name: &str| -> Result<usize> {
        let column = schema
            .column_index(name)
            .ok_or_else(|| Error::bad_field(name, "SELECT"))?;
        access.check(&schema.columns[column].name, Privileges::INSERT)?;
        Ok(match columns.iter().position(|&c| c == column) {
            Some(slot) => slot,
            None => {
                columns.push(column);
                columns.len() - 1
            }
        })
    };
    let mut targets = Vec::new();
    if load.targets.is_empty() {
        for c in &schema.columns {
            targets.push(Slot::Column(slot_of(&c.name)?));
        }
    }
    for target in &load.targets {
        targets.push(match target {
            Target::Column(name) => Slot::Column(slot_of(name)?),
            Target::Variable(name) => Slot::Variable(name.clone()),
        });
    }
    let tables = [SourceTable::alone(db.clone(), &table, access.clone())];
    let scope = BindScope::in_query(&tables, "SELECT", cx);
    let mut set = Vec::new();
    for (name, value) in &load.set {
        let slot = slot_of(name)?;
        let value = match dml::is_default_keyword(value) {
            true => None,
            false => Some(scope.bind(value)?),
        };
        set.push((slot, value));
    }
    let mut slots = vec![None; schema.columns.len()];
    for (slot, &column) in columns.iter().enumerate() {
        slots[column] = Some(slot);
    }
    let subquery_tables = cx.subquery_tables.take();
    let rules = WriteRules::bind(cx, &db, &table, &[], replace, false)?;
    Ok(LoadPlan {
        insert: InsertPlan {
            db,
            table,
            columns,
            source: InsertSource::Given,
            // Invariant (3).
            ignore: load.duplicates == Duplicates::Ignore || (load.local && !replace),
            replace,
            on_duplicate: Vec::new(),
            checks: rules.checks,
            generated: rules.generated,
            returning: None,
            subquery_tables,
            triggers: rules.triggers,
            conflict_triggers: rules.conflict_triggers,
        },
        targets,
        set,
        slots,
        format: load.format.clone(),
        ignore_lines: load.ignore_lines,
        file: load.file.clone(),
    })
}

/// Loads `data`, the file's bytes, as `plan` says.
pub fn execute(
    plan: &LoadPlan,
    data: &[u8],
    txn: &mut Transaction,
    session: &dyn expr::SessionContext,
    interrupt: &crate::engine::ProcessEntry,
    client_found_rows: bool,
) -> Result<StatementOutcome> {
    txn.refresh_write_view();
    let insert = &plan.insert;
    let schema = &insert.table.schema;
    let strict = session.strict() && !insert.ignore;
    let null_is_error = insert.null_is_error(strict, true);
    let write_session = WriteSession::new(session, strict);
    let subqueries = exec::SubqueryReader::new(txn.write_view(), interrupt);
    let eval = EvalContext {
        subqueries: Some(&subqueries),
        ..EvalContext::new(&[], &write_session)
    };
    let mut reader = Reader::new(data, &plan.format, plan.format.escape(session));
    let mut skip_rows = 0;
    if reader.line_term.is_empty() {
        skip_rows = plan.ignore_lines;
    } else {
        for _ in 0..plan.ignore_lines {
            if reader.next_line() {
                break;
            }
        }
    }
    let mut row_number = 0u64;
    let mut started = false;
    let problem = |code: ErrorCode, message: String| -> Result<()> {
        if strict {
            return Err(Error::new(code, message));
        }
        session.warn(code, message);
        Ok(())
    };
    let rows = std::iter::from_fn(|| {
        let row = (|| -> Result<Option<Vec<Option<Value>>>> {
            loop {
                if started {
                    if reader.next_line() {
                        return Ok(None);
                    }
                    if reader.line_cut {
                        problem(
                            ErrorCode::WarnTooManyRecords,
                            format!(
                            "Row {row_number} was truncated; it contained more data than there \
                             were input columns"
                        ),
                        )?;
                    }
                }
                started = true;
                if interrupt.interrupted() {
                    return Err(Error::interrupted());
                }
                if skip_rows > 0 {
                    skip_rows -= 1;
                    for _ in &plan.targets {
                        if reader.field().is_none() {
                            break;
                        }
                    }
                    continue;
                }
                row_number += 1;
                let mut values: Vec<Option<Value>> = vec![None; insert.columns.len()];
                let mut read = 0;
                for target in &plan.targets {
                    let Some(field) = reader.field() else { break };
                    read += 1;
                    match target {
                        Slot::Variable(name) => {
                            let value = field.map_or(Value::Null, Value::Bytes);
                            session.set_user_variable(name, value);
                        }
                        Slot::Column(slot) => {
                            let column = insert.columns[*slot];
                            // Stored now, so warnings come in the fields' order.
                            values[*slot] = match field {
                                Some(bytes) => insert.given_cell(
                                    column,
                                    Value::Bytes(bytes),
                                    row_number,
                                    strict,
                                    null_is_error,
                                    &write_session,
                                )?,
                                None => {
                                    let c = &schema.columns[column];
                                    let value = null_field(c, row_number, session, &problem)?;
                                    insert.computed_cell(column, value, strict, &write_session)?
                                }
                            };
                        }
                    }
                }
                if read == 0 {
                    // No field at all: the input ended.
                    return Ok(None);
                }
                for target in &plan.targets[read..] {
                    match target {
                        Slot::Variable(name) => session.set_user_variable(name, Value::Null),
                        Slot::Column(slot) => {
                            let column = insert.columns[*slot];
                            let value = missing_field(&schema.columns[column], session);
                            problem(
                                ErrorCode::WarnTooFewRecords,
                                format!("Row {row_number} doesn't contain data for all columns"),
                            )?;
                            values[*slot] =
                                insert.computed_cell(column, value, strict, &write_session)?;
                        }
                    }
                }
                if !plan.set.is_empty() {
                    let stored = (row_number, strict, null_is_error);
                    assign(plan, &mut values, stored, &eval, &write_session)?;
                }
                return Ok(Some(values));
            }
        })();
        row.transpose()
    });
    let written = dml::write_rows(
        insert,
        rows,
        true,
        &eval,
        &write_session,
        WriteContext {
            txn,
            session,
            interrupt,
            client_found_rows,
        },
    )?;
    Ok(StatementOutcome::Loaded {
        rows: written.affected,
        generated: written.first_generated,
        records: written.records,
        deleted: if insert.replace {
            written.duplicates
        } else {
            0
        },
        skipped: written.records - written.copied,
    })
}

/// The SET clause: each value evaluated against the row as read so far (a column no field
/// gave reads its default), in the order written, then stored, so a later one sees an
/// earlier one's stored value. `stored` is (row number, strict, NULL is an error) for
/// `InsertPlan::given_cell`.
fn assign(
    plan: &LoadPlan,
    values: &mut [Option<Value>],
    (row_number, strict, null_is_error): (u64, bool, bool),
    eval: &EvalContext,
    write_session: &WriteSession,
) -> Result<()> {
    let insert = &plan.insert;
    let schema = &insert.table.schema;
    let mut row = Vec::with_capacity(schema.columns.len());
    for (c, slot) in schema.columns.iter().zip(&plan.slots) {
        row.push(match slot.and_then(|slot| values[slot].clone()) {
            Some(v) => v,
            None => record_default(c, write_session),
        });
    }
    for (slot, value) in &plan.set {
        let column = insert.columns[*slot];
        let c = &schema.columns[column];
        values[*slot] = match value {
            Some(e) => {
                let v = write_session.check(e.eval(&row, eval))?;
                let cell = insert.given_cell(
                    column,
                    v,
                    row_number,
                    strict,
                    null_is_error,
                    write_session,
                )?;
                row[column] = cell.clone().unwrap_or(Value::Null);
                cell
            }
            None => {
                row[column] = match c.auto_increment {
                    true => Value::Null,
                    false => dml::default_cell(c, false, write_session)?,
                };
                None
            }
        };
    }
    Ok(())
}

/// A column no field gave, as SET reads it: MariaDB's row starts as the defaults, without
/// the warnings a default the row keeps would give.
fn record_default(c: &ColumnSchema, session: &dyn expr::SessionContext) -> Value {
    match &c.default {
        ColumnDefault::Value(v) => v.clone(),
        ColumnDefault::CurrentTimestamp => dml::current_timestamp(c, session),
        ColumnDefault::None if c.nullable || c.auto_increment => Value::Null,
        ColumnDefault::None => dml::implicit_default(&c.data_type),
    }
}

/// What a NULL field (`\N`, or NULL with ENCLOSED BY) stores in `c` (invariant (4)).
fn null_field(
    c: &ColumnSchema,
    row_number: u64,
    session: &dyn expr::SessionContext,
    problem: &dyn Fn(ErrorCode, String) -> Result<()>,
) -> Result<Value> {
    if c.nullable || c.auto_increment {
        return Ok(Value::Null);
    }
    if dml::null_means_now(c) {
        return Ok(dml::current_timestamp(c, session));
    }
    problem(
        ErrorCode::WarnNullToNotnull,
        format!(
            "Column set to default value; NULL supplied to NOT NULL column '{}' at row \
             {row_number}",
            c.name
        ),
    )?;
    Ok(reset_value(c))
}

/// What `c` stores when its field is missing (invariant (4)): MariaDB resets the column
/// of a row that starts as the defaults, which keeps NULL only where the default is NULL.
fn missing_field(c: &ColumnSchema, session: &dyn expr::SessionContext) -> Value {
    let null_default = match &c.default {
        ColumnDefault::None => c.nullable,
        ColumnDefault::Value(v) => v.is_null(),
        ColumnDefault::CurrentTimestamp => false,
    };
    if null_default {
        Value::Null
    } else if dml::null_means_now(c) {
        dml::current_timestamp(c, session)
    } else {
        reset_value(c)
    }
}

/// The zero MariaDB's field reset leaves in `c`: the type's implicit default, except that
/// an ENUM gets '' (its number 0), not its first member.
fn reset_value(c: &ColumnSchema) -> Value {
    match c.data_type {
        DataType::Enum { .. } => Value::Bytes(Vec::new()),
        _ => dml::implicit_default(&c.data_type),
    }
}

impl Format {
    /// The escape character: ESCAPED BY's (none if ''), else `\` unless sql_mode has
    /// NO_BACKSLASH_ESCAPES, as MariaDB reads and writes files.
    pub(crate) fn escape(&self, session: &dyn expr::SessionContext) -> Option<u8> {
        match &self.escaped {
            Some(given) => given.first().copied(),
            None if no_backslash_escapes(session) => None,
            None => Some(b'\\'),
        }
    }
}

fn no_backslash_escapes(session: &dyn expr::SessionContext) -> bool {
    match session.system_variable("sql_mode", VarScope::Session) {
        Ok(Value::Bytes(mode)) => String::from_utf8_lossy(&mode)
            .split(',')
            .any(|m| m.eq_ignore_ascii_case("NO_BACKSLASH_ESCAPES")),
        _ => false,
    }
}

/// Reads fields and lines (invariant (1)).
struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    field_term: &'a [u8],
    /// Empty when it equals `field_term` (fields then run on across lines, as MariaDB).
    line_term: &'a [u8],
    line_start: &'a [u8],
    enclosed: Option<u8>,
    escape: Option<u8>,
    /// The last field ended its line (or the input).
    end_of_line: bool,
    eof: bool,
    /// LINES STARTING BY is still to be found before the line's first field.
    seek_line_start: bool,
    /// `next_line` skipped fields no target took.
    line_cut: bool,
}

impl<'a> Reader<'a> {
    fn new(data: &'a [u8], format: &'a Format, escape: Option<u8>) -> Reader<'a> {
        let line_term = if format.line_term == format.field_term {
            &[][..]
        } else {
            &format.line_term[..]
        };
        Reader {
            data,
            pos: 0,
            field_term: &format.field_term,
            line_term,
            line_start: &format.line_start,
            enclosed: format.enclosed.first().copied(),
            escape,
            end_of_line: false,
            eof: false,
            seek_line_start: !format.line_start.is_empty(),
            line_cut: false,
        }
    }

    fn at(&self, pos: usize, term: &[u8]) -> bool {
        !term.is_empty() && self.data[pos..].starts_with(term)
    }

    /// The next field of the line: None when the line (or the input) has ended, Some(None)
    /// for NULL.
    fn field(&mut self) -> Option<Option<Vec<u8>>> {
        if self.end_of_line {
            return None;
        }
        if self.seek_line_start {
            self.seek_line_start = false;
            let start = self.data[self.pos..]
                .windows(self.line_start.len())
                .position(|w| w == self.line_start);
            match start {
                Some(at) => self.pos += at + self.line_start.len(),
                None => {
                    self.pos = self.data.len();
                    self.end_of_line = true;
                    self.eof = true;
                    return None;
                }
            }
        }
        if self.pos >= self.data.len() {
            self.end_of_line = true;
            self.eof = true;
            return None;
        }
        let mut text = Vec::new();
        let mut escaped_n = false;
        let quote = self.enclosed.filter(|&q| self.data[self.pos] == q);
        if let Some(q) = quote {
            // Kept in case the field never closes: it is then read as written.
            text.push(q);
            self.pos += 1;
        }
        loop {
            let Some(&c) = self.data.get(self.pos) else {
                self.end_of_line = true;
                self.eof = true;
                return Some(self.finish(text, false, escaped_n));
            };
            self.pos += 1;
            if Some(c) == self.escape {
                let Some(&next) = self.data.get(self.pos) else {
                    text.push(c);
                    continue;
                };
                // With ESCAPED BY equal to ENCLOSED BY, the character escapes only itself
                // (`""` in a "-enclosed field); otherwise it is the enclosing character.
                if self.escape != self.enclosed || next == c {
                    self.pos += 1;
                    text.push(match next {
                        b'n' => b'\n',
                        b't' => b'\t',
                        b'r' => b'\r',
                        b'b' => 0x08,
                        b'0' => 0,
                        b'Z' => 0x1a,
                        b'N' => {
                            escaped_n = true;
                            b'N'
                        }
                        other => other,
                    });
                    continue;
                }
            }
            if quote.is_none() && self.at(self.pos - 1, self.line_term) {
                self.pos += self.line_term.len() - 1;
                self.end_of_line = true;
                return Some(self.finish(text, false, escaped_n));
            }
            if Some(c) == quote {
                if self.data.get(self.pos) == Some(&c) {
                    text.push(c);
                    self.pos += 1;
                    continue;
                }
                if self.pos == self.data.len() || self.at(self.pos, self.line_term) {
                    self.pos += self.line_term.len().min(self.data.len() - self.pos);
                    self.end_of_line = true;
                    text.remove(0);
                    return Some(self.finish(text, true, escaped_n));
                }
                if self.at(self.pos, self.field_term) {
                    self.pos += self.field_term.len();
                    text.remove(0);
                    return Some(self.finish(text, true, escaped_n));
                }
            } else if quote.is_none() && self.at(self.pos - 1, self.field_term) {
                self.pos += self.field_term.len() - 1;
                return Some(self.finish(text, false, escaped_n));
            }
            text.push(c);
        }
    }

    /// A field's value: NULL for `\N` alone, or for the unenclosed word NULL when
    /// ENCLOSED BY is given.
    fn finish(&self, text: Vec<u8>, enclosed: bool, escaped_n: bool) -> Option<Vec<u8>> {
        let null_word = !enclosed && self.enclosed.is_some() && text == b"NULL";
        if null_word || (text.len() == 1 && escaped_n) {
            None
        } else {
            Some(text)
        }
    }

    /// Moves to the next line, skipping what is left of this one (`line_cut` says whether
    /// anything was). True when the input has ended.
    fn next_line(&mut self) -> bool {
        self.line_cut = false;
        self.seek_line_start = !self.line_start.is_empty();
        if self.end_of_line || self.eof {
            self.end_of_line = false;
            return self.eof;
        }
        if self.line_term.is_empty() {
            return false;
        }
        loop {
            let Some(&c) = self.data.get(self.pos) else {
                return true;
            };
            self.pos += 1;
            if Some(c) == self.escape {
                self.line_cut = true;
                if self.pos == self.data.len() {
                    return true;
                }
                self.pos += 1;
                continue;
            }
            if self.at(self.pos - 1, self.line_term) {
                self.pos += self.line_term.len() - 1;
                return false;
            }
            self.line_cut = true;
        }
    }
}

/// Every line's fields, as `Reader` gives them (None: NULL), `targets` per line.
#[cfg(test)]
pub(crate) fn read_fields(
    data: &[u8],
    format: &Format,
    escape: Option<u8>,
    targets: usize,
) -> Vec<Vec<Option<Vec<u8>>>> {
    let mut reader = Reader::new(data, format, escape);
    let mut lines = Vec::new();
    loop {
        let mut line = Vec::new();
        for _ in 0..targets {
            match reader.field() {
                Some(f) => line.push(f),
                None => break,
            }
        }
        if line.is_empty() {
            return lines;
        }
        lines.push(line);
        if reader.next_line() {
            return lines;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `read_fields` as text, with the format's escape character.
    fn read(data: &str, format: &Format, targets: usize) -> Vec<Vec<Option<String>>> {
        let escape = format
            .escaped
            .clone()
            .unwrap_or(b"\\".to_vec())
            .first()
            .copied();
        read_fields(data.as_bytes(), format, escape, targets)
            .into_iter()
            .map(|line| {
                line.into_iter()
                    .map(|f| f.map(|b| String::from_utf8_lossy(&b).into_owned()))
                    .collect()
            })
            .collect()
    }

    fn text(fields: &[&str]) -> Vec<Option<String>> {
        fields.iter().map(|f| Some(f.to_string())).collect()
    }

    #[test]
    fn tab_separated_lines_unescape_and_read_backslash_n_as_null() {
        let lines = read("1\ta\\tb\n2\t\\N\n\n3\t\\Nx", &Format::default(), 2);
        assert_eq!(
            lines,
            vec![
                text(&["1", "a\tb"]),
                vec![Some("2".into()), None],
                text(&[""]),
                text(&["3", "Nx"]),
            ]
        );
    }

    #[test]
    fn enclosed_fields_keep_terminators_and_doubled_quotes() {
        let format = Format {
            field_term: b",".to_vec(),
            enclosed: b"\"".to_vec(),
            ..Format::default()
        };
        let lines = read(
            "\"a,b\",\"x\"\"y\",NULL,\"NULL\"\n  \"sp\" ,\"q\n",
            &format,
            4,
        );
        assert_eq!(
            lines,
            vec![
                vec![
                    Some("a,b".into()),
                    Some("x\"y".into()),
                    None,
                    Some("NULL".into())
                ],
                text(&["  \"sp\" ", "\"q\n"]),
            ]
        );
    }

    #[test]
    fn extra_fields_are_cut_and_line_starts_are_sought() {
        let format = Format {
            line_start: b"xx".to_vec(),
            line_term: b"\r\n".to_vec(),
            ..Format::default()
        };
        let data = "xx1\t2\t3\r\nyy\r\nzzxx4\r\n";
        let mut reader = Reader::new(data.as_bytes(), &format, Some(b'\\'));
        assert_eq!(reader.field(), Some(Some(b"1".to_vec())));
        assert_eq!(reader.field(), Some(Some(b"2".to_vec())));
        assert!(!reader.next_line());
        assert!(reader.line_cut, "the third field was not taken");
        // "yy" has no line start: the next line is the one after "zz".
        assert_eq!(reader.field(), Some(Some(b"4".to_vec())));
        assert_eq!(reader.field(), None);
        assert!(!reader.next_line());
        assert!(!reader.line_cut);
        assert_eq!(reader.field(), None, "the input ended");
    }
}
