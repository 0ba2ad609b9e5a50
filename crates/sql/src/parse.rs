//! From statement text to a `Statement`: sqlparser (`MariaDbDialect`) for what it parses
//! correctly, and a small pre-dispatch for the MySQL statements it lacks or misparses
//! (SHOW WARNINGS/INDEX/TABLE STATUS/ENGINE(S)/CREATE DATABASE/TRIGGERS/EVENTS/FUNCTION
//! STATUS/PROCEDURE STATUS/PACKAGE [BODY] STATUS, ALTER TABLE ... DISABLE|ENABLE KEYS, DO,
//! START TRANSACTION WITH
//! CONSISTENT SNAPSHOT, SET CHARACTER SET). Pre-dispatch looks only at leading keywords
//! and then parses the rest with sqlparser's own token stream, so it recognizes
//! statement kinds, never particular statement texts. Account statements (CREATE USER,
//! GRANT, ...) go to their own parser, `privilege::statement`. ALTER TABLE and RENAME
//! TABLE pass through `if_exists` first, a token pass that takes out MariaDB's IF [NOT]
//! EXISTS clauses sqlparser lacks (and supplies RENAME's optional TO) before sqlparser
//! parses the rest; that pass also reads REAL(M,D) and DOUBLE PRECISION(M,D) as
//! DOUBLE(M,D) in ALTER TABLE and CREATE statements.
//!
//! Parse errors become 1064 with MySQL's "near '<rest of the query>' at line N", where the
//! rest starts at the token sqlparser rejected.

use crate::dialect::MariaDbDialect;
use crate::error::{Error, ErrorCode, Result};
use crate::maintenance::Operation;
use crate::privilege::statement::{self, AccountStatement};
use manycore_storage::RoutineKind;
use sqlparser::ast;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Location, Span, Token, TokenWithSpan, Tokenizer};
use std::borrow::Cow;

#[derive(Clone, Debug)]
pub enum Statement {
    Sql(Box<ast::Statement>),
    ShowWarnings {
        errors: bool,
        count: bool,
        limit: Option<(u64, u64)>,
    },
    ShowIndex {
        table: String,
        db: Option<String>,
    },
    ShowTableStatus {
        db: Option<String>,
        like: Option<String>,
    },
    ShowEngines,
    ShowEngine {
        engine: String,
        what: String,
    },
    ShowCreateDatabase {
        name: String,
        /// SHOW CREATE DATABASE IF NOT EXISTS: the statement shown says so too (what
        /// mariadb-dump asks for, so a dump restores over an existing database).
        if_not_exists: bool,
    },
    /// SHOW TRIGGERS, EVENTS, FUNCTION/PROCEDURE/PACKAGE [BODY] STATUS.
    ShowStoredObjects {
        kind: StoredObjects,
        db: Option<String>,
        filter: Option<Box<ast::ShowStatementFilter>>,
    },
    /// `ALTER DATABASE|SCHEMA [name] [DEFAULT] CHARACTER SET [=] c | [DEFAULT] COLLATE [=] n
    /// ...`: the current database without a name. The last of each option counts.
    AlterDatabase {
        name: Option<String>,
        charset: Option<String>,
        collation: Option<String>,
    },
    /// `CREATE FULLTEXT INDEX name ON t (columns)`, which sqlparser does not read: the
    /// CREATE INDEX it reads without the word FULLTEXT.
    CreateFulltextIndex(Box<ast::CreateIndex>),
    /// ALTER TABLE t DISABLE|ENABLE KEYS (what mariadb-dump writes around a table's rows).
    AlterTableKeys {
        table: ast::ObjectName,
    },
    /// ALTER TABLE [IF EXISTS] t with only table options (`TableOptions`), which sqlparser
    /// does not read in ALTER TABLE: what migrations write to make sure of a table's
    /// engine and character set, or to change its comment.
    AlterTableOptions {
        table: ast::ObjectName,
        options: TableOptions,
        if_exists: bool,
    },
    Do(Vec<ast::Expr>),
    StartTransaction {
        read_only: bool,
        consistent_snapshot: bool,
    },
    SetCharacterSet(Option<String>),
    /// A SET whose items include NAMES beside others (`SET sql_mode = ..., NAMES utf8mb4`,
    /// what MariaDB Connector/J sends at connect), item by item: sqlparser takes NAMES
    /// only alone.
    Sets(Vec<ast::Set>),
    /// CREATE/ALTER/DROP/RENAME USER, SET PASSWORD, GRANT, REVOKE, SHOW GRANTS.
    Account(AccountStatement),
    /// CREATE [OR REPLACE] VIEW, ALTER VIEW (`view`): sqlparser lacks their MariaDB
    /// options and CHECK OPTION, and the view keeps its query's text.
    View(Box<crate::view::ViewStatement>),
    /// CREATE TRIGGER (`trigger`: sqlparser reads it for MySqlDialect only, and the
    /// trigger keeps its body's text).
    CreateTrigger(Box<crate::trigger::TriggerStatement>),
    /// SELECT ... INTO variables, OUTFILE or DUMPFILE (`select_into`): the SELECT without
    /// the clause.
    SelectInto {
        query: Box<ast::Statement>,
        into: Box<crate::select_into::IntoClause>,
    },
    /// LOAD DATA [LOCAL] INFILE (`load_data`; sqlparser reads only Hive's LOAD DATA).
    LoadData(Box<crate::load_data::LoadDataStatement>),
    /// CREATE PROCEDURE or FUNCTION (`routine`: the routine keeps its parameters' and
    /// body's text).
    CreateRoutine(Box<crate::routine::CreateRoutine>),
    /// ALTER {PROCEDURE | FUNCTION} name characteristic...: the characteristics it
    /// changes, in the order written.
    AlterRoutine {
        kind: manycore_storage::RoutineKind,
        name: ast::ObjectName,
        changes: Vec<crate::routine::Characteristic>,
    },
    /// DROP {PROCEDURE | FUNCTION} [IF EXISTS] name.
    DropRoutine {
        kind: manycore_storage::RoutineKind,
        name: ast::ObjectName,
        if_exists: bool,
    },
    /// CALL name[(arguments)].
    Call {
        name: ast::ObjectName,
        arguments: Vec<ast::Expr>,
    },
    /// DROP TRIGGER [IF EXISTS] name.
    DropTrigger {
        name: ast::ObjectName,
        if_exists: bool,
    },
    /// ALTER TABLE (other than DISABLE/ENABLE KEYS), with the operations that carried IF
    /// [NOT] EXISTS (`if_exists`).
    AlterTable(Box<crate::if_exists::AlterTable>),
    /// CHECK, ANALYZE, OPTIMIZE or REPAIR TABLE (`maintenance`; sqlparser lacks them).
    TableMaintenance {
        operation: Operation,
        tables: Vec<ast::ObjectName>,
    },
    /// GET [CURRENT] DIAGNOSTICS outside a body: reads the session's diagnostics area
    /// (the conditions SHOW WARNINGS lists) into user variables.
    GetDiagnostics {
        condition: Option<ast::Expr>,
        items: Vec<(String, &'static str)>,
    },
    /// CHECKSUM TABLE (`checksum`; sqlparser lacks it). `quick`: QUICK, which MariaDB
    /// answers with NULL for InnoDB (no live checksum).
    ChecksumTable {
        tables: Vec<ast::ObjectName>,
        quick: bool,
    },
    /// RENAME TABLE [IF EXISTS] (sqlparser lacks the clause).
    RenameTable {
        pairs: Vec<ast::RenameTable>,
        if_exists: bool,
    },
    /// `PREPARE name FROM expr`: an SQL-level prepared statement (sqlparser reads these
    /// three only in PostgreSQL's form).
    PrepareSql {
        name: String,
        source: Box<ast::Expr>,
    },
    /// `EXECUTE name [USING expr, ...]`.
    ExecuteSql {
        name: String,
        using: Vec<ast::Expr>,
    },
    /// `{DEALLOCATE | DROP} PREPARE name`.
    DeallocateSql {
        name: String,
    },
}

/// The table options of an ALTER TABLE, each the last one written (as MariaDB keeps it),
/// with its ALGORITHM and LOCK clauses (read by `alter_method`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableOptions {
    pub engine: Option<String>,
    /// [DEFAULT] CHARSET, CHARACTER SET, or CONVERT TO's.
    pub charset: Option<String>,
    pub collation: Option<String>,
    /// CONVERT TO CHARACTER SET: the character columns take the new default too.
    pub convert: bool,
    pub comment: Option<String>,
    /// ROW_FORMAT's word, in upper case: one of `ROW_FORMATS`.
    pub row_format: Option<String>,
    pub auto_increment: Option<u64>,
    /// FORCE or ENGINE=: MariaDB rebuilds the table (manycore need not).
    pub rebuild: bool,
    /// ALGORITHM's and LOCK's words as written; `alter_method::Requested::read` checks them.
    pub algorithm: Option<String>,
    pub lock: Option<String>,
}

/// The ROW_FORMAT values MariaDB's grammar knows.
const ROW_FORMATS: &[&str] = &[
    "DEFAULT",
    "DYNAMIC",
    "FIXED",
    "COMPRESSED",
    "REDUNDANT",
    "COMPACT",
    "PAGE",
];

/// What a SHOW of stored objects lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoredObjects {
    Triggers,
    Events,
    /// Stored routines of one ROUTINE_TYPE: FUNCTION, PROCEDURE, PACKAGE or PACKAGE BODY.
    Routines(&'static str),
}

pub(crate) const DIALECT: MariaDbDialect = MariaDbDialect::new();

/// Parses one statement (the splitter already cut the query at top-level `;`).
/// `line` is the query line on which `text` starts, for error messages.
pub fn parse(text: &str, line: usize) -> Result<Statement> {
    if statement::is_account_statement(text) {
        return statement::parse(text, line).map(Statement::Account);
    }
    let mut parser = parser(text).map_err(|e| parse_error(text, line, &e))?;
    let first = word(&parser.peek_token());
    let result = match first.as_deref() {
        Some("SHOW") => match pre_show(&mut parser) {
            Ok(Some(statement)) => Ok(statement),
            Ok(None) => sql(text),
            Err(e) => Err(e),
        },
        Some("ALTER")
            if matches!(
                peek_word(&parser, 1).as_deref(),
                Some("DATABASE" | "SCHEMA")
            ) =>
        {
            alter_database(&mut parser)
        }
        Some("ALTER") if peek_word(&parser, 1).as_deref() == Some("PROCEDURE") => {
            crate::routine::parse_alter(&mut parser, RoutineKind::Procedure)
        }
        Some("ALTER") if peek_word(&parser, 1).as_deref() == Some("FUNCTION") => {
            crate::routine::parse_alter(&mut parser, RoutineKind::Function)
        }
        Some("ALTER") => match pre_alter_keys(&mut parser) {
            Ok(Some(statement)) => Ok(statement),
            Ok(None) => match reparse(text).and_then(|mut p| pre_view(&mut p, text)) {
                Ok(Some(statement)) => Ok(statement),
                Ok(None) => or_sql(crate::if_exists::alter_table(text), text),
                Err(e) => Err(e),
            },
            Err(e) => Err(e),
        },
        Some("RENAME") => or_sql(crate::if_exists::rename_table(text), text),
        Some("CHECK") => or_sql(pre_maintenance(&mut parser, Operation::Check), text),
        Some("ANALYZE") => or_sql(pre_maintenance(&mut parser, Operation::Analyze), text),
        Some("OPTIMIZE") => or_sql(pre_maintenance(&mut parser, Operation::Optimize), text),
        Some("REPAIR") => or_sql(pre_maintenance(&mut parser, Operation::Repair), text),
        Some("CHECKSUM") => or_sql(pre_checksum(&mut parser), text),
        Some("CREATE") => match pre_view(&mut parser, text) {
            Ok(Some(statement)) => Ok(statement),
            Ok(None) => or_sql(crate::if_exists::create(text), text),
            Err(e) => Err(e),
        },
        Some("PREPARE" | "EXECUTE" | "DEALLOCATE") => prepared_sql(&mut parser),
        Some("DROP") if peek_word(&parser, 1).as_deref() == Some("PREPARE") => {
            prepared_sql(&mut parser)
        }
        Some("DROP") if peek_word(&parser, 1).as_deref() == Some("TRIGGER") => {
            crate::trigger::parse_drop(&mut parser)
        }
        Some("DROP") if peek_word(&parser, 1).as_deref() == Some("PROCEDURE") => {
            crate::routine::parse_drop(&mut parser, RoutineKind::Procedure)
        }
        Some("DROP") if peek_word(&parser, 1).as_deref() == Some("FUNCTION") => {
            crate::routine::parse_drop(&mut parser, RoutineKind::Function)
        }
        Some("CALL") => crate::routine::parse_call(&mut parser),
        Some("GET") => {
            return crate::compound::parse_get_diagnostics(text)
                .map(|(condition, items)| Statement::GetDiagnostics { condition, items });
        }
        Some("LOAD") if peek_word(&parser, 1).as_deref() == Some("XML") => {
            return Err(Error::not_supported("LOAD XML"));
        }
        Some("LOAD") => crate::load_data::parse(&mut parser),
        Some("DO") => {
            parser.next_token();
            parser
                .parse_comma_separated(Parser::parse_expr)
                .and_then(|exprs| end(&mut parser).map(|_| Statement::Do(exprs)))
        }
        Some("START") | Some("BEGIN") => match pre_start(&mut parser) {
            Ok(Some(statement)) => Ok(statement),
            Ok(None) => sql(text),
            Err(e) => Err(e),
        },
        Some("SET") => match pre_set(&mut parser) {
            Ok(Some(statement)) => Ok(statement),
            // Only a SET sqlparser rejects is split into items: most SETs are tokenized once.
            Ok(None) => sql(text).or_else(|error| match set_items_with_names(text) {
                Ok(Some(items)) => Ok(Statement::Sets(items)),
                Ok(None) => Err(error),
                Err(e) => Err(e),
            }),
            Err(e) => Err(e),
        },
        Some("SELECT" | "WITH") | None => select(text),
        _ => sql(text),
    };
    result.map_err(|e| parse_error(text, line, &e))
}

/// A SELECT, with its INTO clause (`select_into`) and the parts of MariaDB's locking
/// clause sqlparser does not read (`locking_clause_for_sqlparser`).
fn select(text: &str) -> Result<Statement, ParserError> {
    let (query, into) = match crate::select_into::split(text)? {
        Some((query, into)) => (Cow::Owned(query), Some(into)),
        None => (Cow::Borrowed(text), None),
    };
    let (query, wait_seconds) = match locking_clause_for_sqlparser(&query)? {
        Some((rewritten, wait_seconds)) => (Cow::Owned(rewritten), wait_seconds),
        None => (query, None),
    };
    let mut statement = sql(&query)?;
    if let (Statement::Sql(sql), Some(seconds)) = (&mut statement, wait_seconds) {
        if let ast::Statement::Query(query) = sql.as_mut() {
            // MariaDB reads WAIT n as SET STATEMENT innodb_lock_wait_timeout=n: so does
            // the query's setting (`select::locking`), which no text can give otherwise
            // (the dialect has no SETTINGS clause).
            query.settings = Some(vec![ast::Setting {
                key: ast::Ident::new(LOCK_WAIT_SETTING),
                value: ast::Expr::value(ast::Value::Number(seconds.to_string(), false)),
            }]);
        }
    }
    Ok(match (statement, into) {
        (Statement::Sql(query), Some(into)) => Statement::SelectInto {
            query,
            into: Box::new(into),
        },
        (statement, _) => statement,
    })
}

/// The query setting that carries a locking clause's `WAIT n` (`select`).
pub const LOCK_WAIT_SETTING: &str = "innodb_lock_wait_timeout";

/// `text` with its top-level locking clause as sqlparser reads it: `LOCK IN SHARE MODE`
/// written `FOR SHARE`, and a `WAIT n` after it or after `FOR UPDATE` blanked out and
/// returned as whole seconds (MariaDB truncates a fractional n). Rewritten parts are
/// blank-padded, so positions stay. None if the text has neither.
fn locking_clause_for_sqlparser(text: &str) -> Result<Option<(String, Option<u64>)>, ParserError> {
    use crate::query_text::mentions;
    if !mentions(text, "SHARE") && !mentions(text, "WAIT") {
        return Ok(None);
    }
    let tokens = Tokenizer::new(&DIALECT, text).tokenize_with_location()?;
    let significant: Vec<&TokenWithSpan> = tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .collect();
    let words_at = |i: usize, phrase: &[&str]| {
        phrase.len() <= significant.len().saturating_sub(i)
            && phrase
                .iter()
                .zip(&significant[i..])
                .all(|(expected, token)| word(token).as_deref() == Some(*expected))
    };
    let at = |l: &Location| offset_of(text, l.line as usize, l.column as usize);
    let mut rewritten = text.to_string();
    let mut changed = false;
    let mut wait_seconds = None;
    let mut depth = 0usize;
    for (i, token) in significant.iter().enumerate() {
        match token.token {
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            _ if depth > 0 => {}
            _ => {
                let (length, replacement) = if words_at(i, &["LOCK", "IN", "SHARE", "MODE"]) {
                    (4, "FOR SHARE")
                } else if words_at(i, &["WAIT"])
                    && (i >= 2 && words_at(i - 2, &["FOR", "UPDATE"])
                        || i >= 4 && words_at(i - 4, &["LOCK", "IN", "SHARE", "MODE"]))
                {
                    // NOWAIT or SKIP LOCKED after it is MariaDB's syntax error too: left, as
                    // anything but a number after WAIT, for sqlparser to reject.
                    let then_nonblock = significant
                        .get(i + 2)
                        .and_then(|t| word(t))
                        .is_some_and(|w| w == "NOWAIT" || w == "SKIP");
                    match significant.get(i + 1).and_then(|t| whole_seconds(&t.token)) {
                        Some(seconds) if !then_nonblock => wait_seconds = Some(seconds),
                        _ => continue,
                    }
                    (2, "")
                } else {
                    continue;
                };
                let start = at(&token.span.start);
                let end = at(&significant[i + length - 1].span.end);
                let blanked = format!("{replacement:width$}", width = end - start);
                rewritten.replace_range(start..end, &blanked);
                changed = true;
            }
        }
    }
    Ok(changed.then_some((rewritten, wait_seconds)))
}

/// The whole seconds a `WAIT` number gives (integer, decimal, float or hex literal, as
/// MariaDB takes), saturating; None for anything else (a string, `?`, a sign).
fn whole_seconds(token: &Token) -> Option<u64> {
    match token {
        Token::Number(digits, _) => digits
            .parse::<u64>()
            .ok()
            .or_else(|| digits.parse::<f64>().ok().map(|n| n as u64)),
        Token::HexStringLiteral(hex) => {
            let digits = hex.trim_start_matches('0');
            Some(if digits.len() > 16 {
                u64::MAX
            } else {
                u64::from_str_radix(digits, 16).unwrap_or(0)
            })
        }
        _ => None,
    }
}

/// Parses one expression (a stored CHECK constraint's text).
pub fn parse_expression(text: &str) -> Result<sqlparser::ast::Expr> {
    let mut parser = Parser::new(&DIALECT)
        .try_with_sql(text)
        .map_err(|e| parse_error(text, 1, &e))?;
    let expr = parser.parse_expr().map_err(|e| parse_error(text, 1, &e))?;
    end(&mut parser).map_err(|e| parse_error(text, 1, &e))?;
    Ok(expr)
}

fn sql(text: &str) -> Result<Statement, ParserError> {
    let statement = only_statement(parser(text)?)?;
    Ok(Statement::Sql(Box::new(statement)))
}

/// A pre-dispatch's statement, or sqlparser's where it had none.
fn or_sql(
    pre: Result<Option<Statement>, ParserError>,
    text: &str,
) -> Result<Statement, ParserError> {
    match pre {
        Ok(Some(statement)) => Ok(statement),
        Ok(None) => sql(text),
        Err(e) => Err(e),
    }
}

/// The one statement `parser` reads.
pub(crate) fn only_statement(mut parser: Parser) -> Result<ast::Statement, ParserError> {
    let mut statements = parser.parse_statements()?;
    match statements.len() {
        1 => Ok(statements.remove(0)),
        _ => Err(ParserError::ParserError(
            "Expected: end of statement".into(),
        )),
    }
}

/// Reads `DROP <kind> [IF EXISTS] name` to the end of the statement, `DROP <kind>` being
/// the next two words: the name, and whether IF EXISTS was written.
pub(crate) fn parse_drop_object(
    parser: &mut Parser,
) -> std::result::Result<(ast::ObjectName, bool), ParserError> {
    parser.next_token();
    parser.next_token();
    let if_exists = parser.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
    let name = parser.parse_object_name(false)?;
    end(parser)?;
    Ok((name, if_exists))
}

/// An unquoted word, in upper case.
pub(crate) fn word(token: &TokenWithSpan) -> Option<String> {
    match &token.token {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
        _ => None,
    }
}

fn peek_word(parser: &Parser, n: usize) -> Option<String> {
    // peek_nth_token skips whitespace and comments.
    word(&parser.peek_nth_token(n))
}

fn eat_word(parser: &mut Parser, expected: &str) -> bool {
    if peek_word(parser, 0).as_deref() == Some(expected) {
        parser.next_token();
        true
    } else {
        false
    }
}

fn expect_word(parser: &mut Parser, expected: &str) -> Result<(), ParserError> {
    if eat_word(parser, expected) {
        Ok(())
    } else {
        let found = parser.peek_token();
        Err(ParserError::ParserError(format!(
            "Expected: {expected}, found: {}{}",
            found.token, found.span.start
        )))
    }
}

pub(crate) fn end(parser: &mut Parser) -> Result<(), ParserError> {
    let next = parser.peek_token();
    if next.token == Token::EOF {
        Ok(())
    } else {
        Err(ParserError::ParserError(format!(
            "Expected: end of statement, found: {}{}",
            next.token, next.span.start
        )))
    }
}

/// The rest of `text` from the parser's next token, as written, without a trailing `;`:
/// a stored program's body (1064 expecting `what` if there is none).
pub(crate) fn body_as_written(
    parser: &Parser,
    text: &str,
    what: &str,
) -> Result<String, ParserError> {
    let next = parser.peek_token();
    if next.token == Token::EOF {
        return Err(ParserError::ParserError(format!("Expected: {what}")));
    }
    let at = next.span.start;
    let start = offset_of(text, at.line as usize, at.column as usize);
    Ok(text[start..]
        .trim()
        .trim_end_matches(';')
        .trim_end()
        .to_string())
}

fn reparse(text: &str) -> Result<Parser<'static>, ParserError> {
    parser(text)
}

/// A parser of `text`. A user variable whose name is quoted (`@'a b'`, `@"a"`, @`a`),
/// which sqlparser reads as `@` and a string or a quoted identifier, is one word `@a b`
/// to it, as `@a` is. An `@` right after a word or a string is an account's (`'u'@'h'`,
/// `u@'h'`) and stays.
pub(crate) fn parser(text: &str) -> Result<Parser<'static>, ParserError> {
    let quoted_at = |at: usize| matches!(text.as_bytes().get(at + 1), Some(b'\'' | b'"' | b'`'));
    if !memchr::memchr_iter(b'@', text.as_bytes()).any(quoted_at) {
        return Parser::new(&DIALECT).try_with_sql(text);
    }
    let tokens = Tokenizer::new(&DIALECT, text).tokenize_with_location()?;
    let mut merged: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    let mut tokens = tokens.into_iter().peekable();
    while let Some(token) = tokens.next() {
        let after_name = matches!(
            merged.last().map(|t| &t.token),
            Some(Token::Word(_) | Token::SingleQuotedString(_) | Token::DoubleQuotedString(_))
        );
        let quoted_name = match tokens.peek().map(|t| &t.token) {
            Some(Token::SingleQuotedString(name) | Token::DoubleQuotedString(name)) => Some(name),
            Some(Token::Word(w)) if w.quote_style == Some('`') => Some(&w.value),
            _ => None,
        };
        match (&token.token, quoted_name) {
            (Token::AtSign, Some(name)) if !after_name => {
                let word = Token::make_word(&format!("@{name}"), None);
                let end = tokens.next().expect("peeked").span.end;
                merged.push(TokenWithSpan::new(word, Span::new(token.span.start, end)));
            }
            _ => merged.push(token),
        }
    }
    Ok(Parser::new(&DIALECT).with_tokens_with_locations(merged))
}

/// `CREATE [OR REPLACE] [ALGORITHM = a] [DEFINER = user] [SQL SECURITY s] VIEW name
/// [(columns)] AS query [WITH [CASCADED | LOCAL] CHECK OPTION]`, or ALTER with the same
/// options; None if the statement is not about a view.
fn pre_view(parser: &mut Parser, text: &str) -> Result<Option<Statement>, ParserError> {
    let alter = peek_word(parser, 0).as_deref() == Some("ALTER");
    parser.next_token();
    let or_replace = !alter && peek_word(parser, 0).as_deref() == Some("OR");
    if or_replace {
        parser.next_token();
        if !eat_word(parser, "REPLACE") {
            return Ok(None);
        }
    }
    let mut algorithm = None;
    let mut definer = None;
    let mut security = None;
    loop {
        match peek_word(parser, 0).as_deref() {
            Some("ALGORITHM") => {
                parser.next_token();
                parser.expect_token(&Token::Eq)?;
                let value = identifier(parser)?.to_ascii_uppercase();
                if !matches!(value.as_str(), "UNDEFINED" | "MERGE" | "TEMPTABLE") {
                    return Err(ParserError::ParserError(format!(
                        "Expected: UNDEFINED, MERGE or TEMPTABLE, found: {value}"
                    )));
                }
                algorithm = Some(value);
            }
            Some("DEFINER") => {
                parser.next_token();
                parser.expect_token(&Token::Eq)?;
                // `user@host` in any quoting, or CURRENT_USER[()]: its tokens' text.
                let mut written = String::new();
                while !matches!(
                    peek_word(parser, 0).as_deref(),
                    Some("SQL" | "VIEW" | "TRIGGER" | "PROCEDURE" | "FUNCTION")
                ) && parser.peek_token().token != Token::EOF
                {
                    written.push_str(&parser.next_token().token.to_string());
                }
                definer = Some(written.replace(['`', '\'', '"'], ""));
            }
            Some("SQL") if peek_word(parser, 1).as_deref() == Some("SECURITY") => {
                parser.next_token();
                parser.next_token();
                let value = identifier(parser)?.to_ascii_uppercase();
                if !matches!(value.as_str(), "DEFINER" | "INVOKER") {
                    return Err(ParserError::ParserError(format!(
                        "Expected: DEFINER or INVOKER, found: {value}"
                    )));
                }
                security = Some(value);
            }
            _ => break,
        }
    }
    if !alter && algorithm.is_none() && security.is_none() && eat_word(parser, "TRIGGER") {
        return crate::trigger::parse_create(parser, text, or_replace, definer).map(Some);
    }
    if !alter && algorithm.is_none() && security.is_none() {
        let kind = match peek_word(parser, 0).as_deref() {
            Some("PROCEDURE") => Some(RoutineKind::Procedure),
            // `CREATE FUNCTION f RETURNS ... SONAME` (a UDF) has no parameter list.
            Some("FUNCTION") if has_parameter_list(parser) => Some(RoutineKind::Function),
            _ => None,
        };
        if let Some(kind) = kind {
            parser.next_token();
            return crate::routine::parse_create(parser, text, kind, or_replace, definer).map(Some);
        }
    }
    if !eat_word(parser, "VIEW") {
        return Ok(None);
    }
    let name = parser.parse_object_name(false)?;
    let mut columns = Vec::new();
    if parser.consume_token(&Token::LParen) {
        columns = parser.parse_comma_separated(identifier)?;
        parser.expect_token(&Token::RParen)?;
    }
    parser.expect_keyword(Keyword::AS)?;
    let query_at = parser.peek_token().span.start;
    let start = offset_of(text, query_at.line as usize, query_at.column as usize);
    // `WITH [CASCADED | LOCAL] CHECK OPTION` ends the statement. It is blanked out before
    // the query is parsed (sqlparser would take its WITH as a GROUP BY modifier); the
    // blanks keep every position, so a parse error still points into `text`.
    let mut words = Vec::new();
    loop {
        let token = parser.next_token();
        match token.token {
            Token::EOF => break,
            Token::SemiColon => {}
            _ => words.push((word(&token), token.span.start)),
        }
    }
    let tail: Vec<Option<&str>> = words
        .iter()
        .rev()
        .take(4)
        .map(|(w, _)| w.as_deref())
        .collect();
    let (check_option, cut) = match tail.as_slice() {
        [Some("OPTION"), Some("CHECK"), Some(kind @ ("CASCADED" | "LOCAL")), Some("WITH")] => {
            (Some(kind.to_string()), 4)
        }
        [Some("OPTION"), Some("CHECK"), Some("WITH"), ..] => (Some("CASCADED".to_string()), 3),
        _ => (None, 0),
    };
    let query_end = match cut {
        0 => text.len(),
        n => {
            let at = words[words.len() - n].1;
            offset_of(text, at.line as usize, at.column as usize)
        }
    };
    let masked = format!(
        "{}{}",
        &text[..query_end],
        " ".repeat(text.len() - query_end)
    );
    let mut query_parser = reparse(&masked)?;
    while query_parser.peek_token().span.start != query_at
        && query_parser.peek_token().token != Token::EOF
    {
        query_parser.next_token();
    }
    query_parser.parse_query()?;
    end(&mut query_parser)?;
    let query = text[start..query_end]
        .trim()
        .trim_end_matches(';')
        .trim_end()
        .to_string();
    Ok(Some(Statement::View(Box::new(
        crate::view::ViewStatement {
            alter,
            or_replace,
            algorithm,
            definer,
            security,
            name,
            columns,
            query,
            check_option,
        },
    ))))
}

fn identifier(parser: &mut Parser) -> Result<String, ParserError> {
    Ok(parser.parse_identifier()?.value)
}

/// `FROM|IN name`.
fn from_clause(parser: &mut Parser) -> Result<Option<String>, ParserError> {
    if eat_word(parser, "FROM") || eat_word(parser, "IN") {
        Ok(Some(identifier(parser)?))
    } else {
        Ok(None)
    }
}

fn like_clause(parser: &mut Parser) -> Result<Option<String>, ParserError> {
    if eat_word(parser, "LIKE") {
        Ok(Some(parser.parse_literal_string()?))
    } else {
        Ok(None)
    }
}

fn pre_show(parser: &mut Parser) -> Result<Option<Statement>, ParserError> {
    let second = peek_word(parser, 1);
    match second.as_deref() {
        Some("WARNINGS") | Some("ERRORS") => {
            parser.next_token();
            let errors = peek_word(parser, 0).as_deref() == Some("ERRORS");
            parser.next_token();
            let limit = if parser.parse_keyword(Keyword::LIMIT) {
                let first = parse_u64(parser)?;
                if parser.consume_token(&Token::Comma) {
                    Some((first, parse_u64(parser)?))
                } else if parser.parse_keyword(Keyword::OFFSET) {
                    Some((parse_u64(parser)?, first))
                } else {
                    Some((0, first))
                }
            } else {
                None
            };
            end(parser)?;
            Ok(Some(Statement::ShowWarnings {
                errors,
                count: false,
                limit,
            }))
        }
        Some("COUNT") => {
            parser.next_token();
            parser.next_token();
            parser.expect_token(&Token::LParen)?;
            parser.expect_token(&Token::Mul)?;
            parser.expect_token(&Token::RParen)?;
            let errors = match peek_word(parser, 0).as_deref() {
                Some("WARNINGS") => false,
                Some("ERRORS") => true,
                _ => return Err(ParserError::ParserError("Expected: WARNINGS".into())),
            };
            parser.next_token();
            end(parser)?;
            Ok(Some(Statement::ShowWarnings {
                errors,
                count: true,
                limit: None,
            }))
        }
        Some("INDEX") | Some("INDEXES") | Some("KEYS") => {
            parser.next_token();
            parser.next_token();
            if !(eat_word(parser, "FROM") || eat_word(parser, "IN")) {
                expect_word(parser, "FROM")?;
            }
            let name = parser.parse_object_name(false)?;
            let mut parts: Vec<String> = name.0.iter().map(|p| p.to_string()).collect();
            let mut db = from_clause(parser)?;
            let table = parts.pop().unwrap_or_default();
            if db.is_none() {
                db = parts.pop().map(|p| unquote(&p));
            }
            if parser.parse_keyword(Keyword::WHERE) {
                parser.parse_expr()?; // Accepted and ignored, like LIKE on SHOW INDEX.
            }
            end(parser)?;
            Ok(Some(Statement::ShowIndex {
                table: unquote(&table),
                db,
            }))
        }
        Some("TABLE") if peek_word(parser, 2).as_deref() == Some("STATUS") => {
            for _ in 0..3 {
                parser.next_token();
            }
            let db = from_clause(parser)?;
            let like = like_clause(parser)?;
            end(parser)?;
            Ok(Some(Statement::ShowTableStatus { db, like }))
        }
        Some("ENGINES") => {
            parser.next_token();
            parser.next_token();
            end(parser)?;
            Ok(Some(Statement::ShowEngines))
        }
        Some("STORAGE") if peek_word(parser, 2).as_deref() == Some("ENGINES") => {
            for _ in 0..3 {
                parser.next_token();
            }
            end(parser)?;
            Ok(Some(Statement::ShowEngines))
        }
        Some("ENGINE") => {
            parser.next_token();
            parser.next_token();
            let engine = identifier(parser)?;
            let what = identifier(parser)?.to_ascii_uppercase();
            end(parser)?;
            Ok(Some(Statement::ShowEngine { engine, what }))
        }
        Some("CREATE")
            if matches!(
                peek_word(parser, 2).as_deref(),
                Some("DATABASE") | Some("SCHEMA")
            ) =>
        {
            for _ in 0..3 {
                parser.next_token();
            }
            let if_not_exists =
                parser.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]);
            let name = identifier(parser)?;
            end(parser)?;
            Ok(Some(Statement::ShowCreateDatabase {
                name,
                if_not_exists,
            }))
        }
        Some("TRIGGERS") | Some("EVENTS") => {
            parser.next_token();
            let kind = match peek_word(parser, 0).as_deref() {
                Some("TRIGGERS") => StoredObjects::Triggers,
                _ => StoredObjects::Events,
            };
            parser.next_token();
            let db = from_clause(parser)?;
            let filter = show_filter(parser)?;
            end(parser)?;
            Ok(Some(Statement::ShowStoredObjects { kind, db, filter }))
        }
        Some(routine @ ("FUNCTION" | "PROCEDURE" | "PACKAGE")) => {
            let (routine_type, words) = match (routine, peek_word(parser, 2).as_deref()) {
                ("FUNCTION", Some("STATUS")) => ("FUNCTION", 3),
                ("PROCEDURE", Some("STATUS")) => ("PROCEDURE", 3),
                ("PACKAGE", Some("STATUS")) => ("PACKAGE", 3),
                ("PACKAGE", Some("BODY")) if peek_word(parser, 3).as_deref() == Some("STATUS") => {
                    ("PACKAGE BODY", 4)
                }
                _ => return Ok(None),
            };
            for _ in 0..words {
                parser.next_token();
            }
            let filter = show_filter(parser)?;
            end(parser)?;
            Ok(Some(Statement::ShowStoredObjects {
                kind: StoredObjects::Routines(routine_type),
                db: None,
                filter,
            }))
        }
        _ => Ok(None),
    }
}

/// ALTER TABLE name DISABLE|ENABLE KEYS, which sqlparser lacks; any other ALTER is left
/// to sqlparser.
/// `ALTER DATABASE|SCHEMA [name] option...` (`Statement::AlterDatabase`); an option
/// other than the character set and collation, or none, is a syntax error.
fn alter_database(parser: &mut Parser) -> Result<Statement, ParserError> {
    parser.next_token();
    parser.next_token();
    let option_word = |parser: &Parser| {
        matches!(
            peek_word(parser, 0).as_deref(),
            Some("DEFAULT" | "CHARACTER" | "CHARSET" | "COLLATE")
        )
    };
    let name = match option_word(parser) {
        true => None,
        false => Some(identifier(parser)?),
    };
    let (mut charset, mut collation) = (None, None);
    loop {
        eat_word(parser, "DEFAULT");
        let target = match peek_word(parser, 0).as_deref() {
            Some("CHARACTER") => {
                parser.next_token();
                expect_word(parser, "SET")?;
                &mut charset
            }
            Some("CHARSET") => {
                parser.next_token();
                &mut charset
            }
            Some("COLLATE") => {
                parser.next_token();
                &mut collation
            }
            _ => break,
        };
        let _equals = parser.consume_token(&Token::Eq);
        *target = Some(identifier(parser)?);
    }
    if charset.is_none() && collation.is_none() {
        // MariaDB's grammar needs an option: an error near what follows the name.
        return Err(ParserError::ParserError(format!(
            "Expected: CHARACTER SET or COLLATE, found: {}",
            parser.peek_token().token
        )));
    }
    end(parser)?;
    Ok(Statement::AlterDatabase {
        name,
        charset,
        collation,
    })
}

fn pre_alter_keys(parser: &mut Parser) -> Result<Option<Statement>, ParserError> {
    if peek_word(parser, 1).as_deref() != Some("TABLE") {
        return Ok(None);
    }
    parser.next_token();
    parser.next_token();
    let table = parser.parse_object_name(false)?;
    let toggles_keys = matches!(peek_word(parser, 0).as_deref(), Some("DISABLE" | "ENABLE"))
        && peek_word(parser, 1).as_deref() == Some("KEYS")
        && parser.peek_nth_token(2).token == Token::EOF;
    if toggles_keys {
        return Ok(Some(Statement::AlterTableKeys { table }));
    }
    let mut options = TableOptions::default();
    let only_options = table_options(parser, &mut options).is_some();
    Ok(only_options.then_some(Statement::AlterTableOptions {
        table,
        options,
        if_exists: false,
    }))
}

/// Reads table options, separated by spaces or commas, up to the end of the parser's
/// tokens into `options`; None if something else comes (the ALTER is then read with its
/// other operations: `if_exists::alter_table` takes each operation that is only table
/// options out and reads it here).
pub(crate) fn table_options(parser: &mut Parser, options: &mut TableOptions) -> Option<()> {
    // The value after an option's name and its optional `=`.
    let value = |parser: &mut Parser| {
        let _equals = parser.consume_token(&Token::Eq);
        match parser.next_token().token {
            Token::Word(w) => Some(w.value),
            Token::SingleQuotedString(s) => Some(s),
            _ => None,
        }
    };
    loop {
        // DEFAULT may precede only the character set and collation.
        let default = eat_word(parser, "DEFAULT");
        match peek_word(parser, 0).as_deref() {
            Some("FORCE") if !default => {
                parser.next_token();
                options.rebuild = true;
            }
            Some("ENGINE") if !default => {
                parser.next_token();
                options.engine = Some(value(parser)?);
                options.rebuild = true;
            }
            Some("ALGORITHM") if !default => {
                parser.next_token();
                options.algorithm = Some(value(parser)?);
            }
            Some("LOCK") if !default => {
                parser.next_token();
                options.lock = Some(value(parser)?);
            }
            Some("COMMENT") if !default => {
                parser.next_token();
                let _equals = parser.consume_token(&Token::Eq);
                match parser.next_token().token {
                    Token::SingleQuotedString(s) => options.comment = Some(s),
                    _ => return None,
                }
            }
            Some("ROW_FORMAT") if !default => {
                parser.next_token();
                let format = value(parser)?.to_ascii_uppercase();
                ROW_FORMATS.contains(&format.as_str()).then_some(())?;
                options.row_format = Some(format);
            }
            Some("AUTO_INCREMENT") if !default => {
                parser.next_token();
                let _equals = parser.consume_token(&Token::Eq);
                match parser.next_token().token {
                    Token::Number(n, _) => options.auto_increment = Some(n.parse().ok()?),
                    _ => return None,
                }
            }
            Some("CONVERT") if !default => {
                parser.next_token();
                options.convert = true;
                eat_word(parser, "TO").then_some(())?;
                if !eat_word(parser, "CHARSET") {
                    (eat_word(parser, "CHARACTER") && eat_word(parser, "SET")).then_some(())?;
                }
                options.charset = Some(value(parser)?);
                if eat_word(parser, "COLLATE") {
                    options.collation = Some(value(parser)?);
                }
            }
            Some("CHARSET") => {
                parser.next_token();
                options.charset = Some(value(parser)?);
            }
            Some("CHARACTER") if peek_word(parser, 1).as_deref() == Some("SET") => {
                parser.next_token();
                parser.next_token();
                options.charset = Some(value(parser)?);
            }
            Some("COLLATE") => {
                parser.next_token();
                options.collation = Some(value(parser)?);
            }
            _ => return None,
        }
        let _comma = parser.consume_token(&Token::Comma);
        if parser.peek_token().token == Token::EOF {
            return Some(());
        }
    }
}

/// `CHECK TABLE[S] t, ... [option ...]`, and ANALYZE, OPTIMIZE and REPAIR with their
/// optional NO_WRITE_TO_BINLOG or LOCAL (meaningless here: there is no binary log);
/// None if TABLE does not follow. Options that only tune how MariaDB's engines work
/// (QUICK, EXTENDED, ...) are read and change nothing: the check is always complete.
fn pre_maintenance(
    parser: &mut Parser,
    operation: Operation,
) -> Result<Option<Statement>, ParserError> {
    parser.next_token();
    if operation != Operation::Check && !eat_word(parser, "NO_WRITE_TO_BINLOG") {
        eat_word(parser, "LOCAL");
    }
    if !eat_word(parser, "TABLE") && !eat_word(parser, "TABLES") {
        return Ok(None);
    }
    let tables = parser.parse_comma_separated(|p| p.parse_object_name(false))?;
    let options: &[&str] = match operation {
        Operation::Check => &["QUICK", "FAST", "MEDIUM", "EXTENDED", "CHANGED"],
        Operation::Repair => &["QUICK", "EXTENDED", "USE_FRM"],
        Operation::Analyze | Operation::Optimize => &[],
    };
    loop {
        if operation == Operation::Check && eat_word(parser, "FOR") {
            expect_word(parser, "UPGRADE")?;
        } else if !options.iter().any(|option| eat_word(parser, option)) {
            break;
        }
    }
    end(parser)?;
    Ok(Some(Statement::TableMaintenance { operation, tables }))
}

/// `CHECKSUM TABLE[S] t, ... [QUICK | EXTENDED]`; None if TABLE does not follow.
fn pre_checksum(parser: &mut Parser) -> Result<Option<Statement>, ParserError> {
    parser.next_token();
    if !eat_word(parser, "TABLE") && !eat_word(parser, "TABLES") {
        return Ok(None);
    }
    let tables = parser.parse_comma_separated(|p| p.parse_object_name(false))?;
    let quick = eat_word(parser, "QUICK");
    if !quick {
        eat_word(parser, "EXTENDED");
    }
    end(parser)?;
    Ok(Some(Statement::ChecksumTable { tables, quick }))
}

/// PREPARE, EXECUTE and DEALLOCATE/DROP PREPARE; the statement's first word is next.
/// A prepared statement's name is an identifier, compared case-insensitively.
fn prepared_sql(parser: &mut Parser) -> Result<Statement, ParserError> {
    let first = word(&parser.next_token());
    let name = |parser: &mut Parser| parser.parse_identifier().map(|i| i.value);
    let statement = match first.as_deref() {
        Some("PREPARE") => {
            let name = name(parser)?;
            parser.expect_keyword(Keyword::FROM)?;
            Statement::PrepareSql {
                name,
                source: Box::new(parser.parse_expr()?),
            }
        }
        Some("EXECUTE") => {
            let name = name(parser)?;
            let using = if parser.parse_keyword(Keyword::USING) {
                parser.parse_comma_separated(Parser::parse_expr)?
            } else {
                Vec::new()
            };
            Statement::ExecuteSql { name, using }
        }
        _ => {
            expect_word(parser, "PREPARE")?;
            Statement::DeallocateSql {
                name: name(parser)?,
            }
        }
    };
    end(parser)?;
    Ok(statement)
}

/// `LIKE 'pattern'` or `WHERE expr`.
fn show_filter(parser: &mut Parser) -> Result<Option<Box<ast::ShowStatementFilter>>, ParserError> {
    let filter = if let Some(pattern) = like_clause(parser)? {
        ast::ShowStatementFilter::Like(pattern)
    } else if parser.parse_keyword(Keyword::WHERE) {
        ast::ShowStatementFilter::Where(parser.parse_expr()?)
    } else {
        return Ok(None);
    };
    Ok(Some(Box::new(filter)))
}

fn unquote(part: &str) -> String {
    part.trim_matches('`').to_string()
}

fn parse_u64(parser: &mut Parser) -> Result<u64, ParserError> {
    let token = parser.next_token();
    match &token.token {
        Token::Number(n, _) => n
            .parse()
            .map_err(|_| ParserError::ParserError(format!("Expected: number{}", token.span.start))),
        other => Err(ParserError::ParserError(format!(
            "Expected: number, found: {other}{}",
            token.span.start
        ))),
    }
}

/// START TRANSACTION with MySQL's characteristics (sqlparser lacks WITH CONSISTENT
/// SNAPSHOT); BEGIN [WORK].
fn pre_start(parser: &mut Parser) -> Result<Option<Statement>, ParserError> {
    if eat_word(parser, "BEGIN") {
        eat_word(parser, "WORK");
        end(parser)?;
        return Ok(Some(Statement::StartTransaction {
            read_only: false,
            consistent_snapshot: false,
        }));
    }
    if peek_word(parser, 1).as_deref() != Some("TRANSACTION") {
        return Ok(None);
    }
    parser.next_token();
    parser.next_token();
    let (mut read_only, mut consistent_snapshot) = (false, false);
    if parser.peek_token().token != Token::EOF {
        loop {
            if eat_word(parser, "WITH") {
                expect_word(parser, "CONSISTENT")?;
                expect_word(parser, "SNAPSHOT")?;
                consistent_snapshot = true;
            } else if eat_word(parser, "READ") {
                if eat_word(parser, "ONLY") {
                    read_only = true;
                } else {
                    expect_word(parser, "WRITE")?;
                    read_only = false;
                }
            } else {
                expect_word(parser, "READ")?;
            }
            if !parser.consume_token(&Token::Comma) {
                break;
            }
        }
    }
    end(parser)?;
    Ok(Some(Statement::StartTransaction {
        read_only,
        consistent_snapshot,
    }))
}

/// SET CHARACTER SET x / SET CHARSET x (sqlparser lacks both).
fn pre_set(parser: &mut Parser) -> Result<Option<Statement>, ParserError> {
    let second = peek_word(parser, 1);
    let skip = match second.as_deref() {
        Some("CHARACTER") if peek_word(parser, 2).as_deref() == Some("SET") => 3,
        Some("CHARSET") => 2,
        _ => return Ok(None),
    };
    for _ in 0..skip {
        parser.next_token();
    }
    let name = if eat_word(parser, "DEFAULT") {
        None
    } else {
        let token = parser.next_token();
        match token.token {
            Token::Word(w) => Some(w.value),
            Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => Some(s),
            other => {
                return Err(ParserError::ParserError(format!(
                    "Expected: character set name, found: {other}{}",
                    token.span.start
                )))
            }
        }
    };
    end(parser)?;
    Ok(Some(Statement::SetCharacterSet(name)))
}

/// The items of a SET with more than one item, one of them NAMES, each parsed as a SET of
/// its own; None for any other SET. Items are cut at the commas outside parentheses.
fn set_items_with_names(text: &str) -> Result<Option<Vec<ast::Set>>, ParserError> {
    let tokens = Tokenizer::new(&DIALECT, text).tokenize_with_location()?;
    let mut depth = 0usize;
    let mut comma_offsets = Vec::new();
    let mut has_names = false;
    // Whether the next word starts an item; the first item starts after SET.
    let mut item_start = false;
    let mut seen_set = false;
    for token in &tokens {
        match &token.token {
            Token::Whitespace(_) => continue,
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            Token::Comma if depth == 0 => {
                comma_offsets.push(byte_offset(text, token.span.start));
                item_start = true;
                continue;
            }
            _ => {}
        }
        if item_start && word(token).as_deref() == Some("NAMES") {
            has_names = true;
        }
        item_start = !seen_set;
        seen_set = true;
    }
    if !has_names || comma_offsets.is_empty() {
        return Ok(None);
    }
    let mut starts = vec![0];
    starts.extend(comma_offsets.iter().map(|c| c + 1));
    let mut ends = comma_offsets;
    ends.push(text.len());
    let mut items = Vec::new();
    for (index, (start, end)) in starts.into_iter().zip(ends).enumerate() {
        let item = &text[start..end];
        let statement = if index == 0 {
            sql(item)?
        } else {
            sql(&format!("SET {item}"))?
        };
        match statement {
            Statement::Sql(s) => match *s {
                ast::Statement::Set(set) => items.push(set),
                other => {
                    return Err(ParserError::ParserError(format!(
                        "Expected: SET item, found: {other}"
                    )))
                }
            },
            _ => return Err(ParserError::ParserError("Expected: SET item".into())),
        }
    }
    Ok(Some(items))
}

/// The byte offset of a tokenizer location (1-based line, and column in characters).
fn byte_offset(text: &str, at: Location) -> usize {
    let (mut line, mut column) = (1, 1);
    for (offset, c) in text.char_indices() {
        if line == at.line && column == at.column {
            return offset;
        }
        if c == '\n' {
            line += 1;
            column = 1;
        } else {
            column += 1;
        }
    }
    text.len()
}

/// 1064 with the remainder of the statement from the location in sqlparser's message.
pub fn parse_error(text: &str, line: usize, error: &ParserError) -> Error {
    let message = match error {
        ParserError::TokenizerError(m) | ParserError::ParserError(m) => m.as_str(),
        ParserError::RecursionLimitExceeded => {
            return Error::new(
                ErrorCode::Parse,
                "Stack overrun: query is nested too deeply",
            )
        }
    };
    match error_location(message) {
        Some((l, c)) => {
            let offset = offset_of(text, l, c);
            Error::parse_near(&text[offset..], line + l - 1)
        }
        None if message.contains("found: EOF") || message.contains("end of statement") => {
            let lines = text.trim_end().lines().count().max(1);
            Error::parse_near("", line + lines - 1)
        }
        None => Error::parse_near(text.trim_start(), line),
    }
}

/// "... at Line: 3, Column: 7" -> (3, 7).
fn error_location(message: &str) -> Option<(usize, usize)> {
    let at = message.rfind("Line: ")?;
    let rest = &message[at + 6..];
    let (line, rest) = rest.split_once(", Column: ")?;
    let column: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    Some((line.trim().parse().ok()?, column.parse().ok()?))
}

/// Byte offset of 1-based (line, column in characters) in `text`.
pub fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut offset = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            let within: usize = l
                .chars()
                .take(column.saturating_sub(1))
                .map(char::len_utf8)
                .sum();
            return (offset + within).min(text.len());
        }
        offset += l.len();
    }
    text.len()
}

/// Whether the `FUNCTION [IF NOT EXISTS] [db.]name` at the parser comes with a parameter
/// list (a stored function), not RETURNS (a UDF).
fn has_parameter_list(parser: &Parser) -> bool {
    (1..8)
        .map(|n| parser.peek_nth_token(n))
        .find(|t| t.token == Token::LParen || word(t).as_deref() == Some("RETURNS"))
        .is_some_and(|t| t.token == Token::LParen)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn near(text: &str) -> String {
        parse(text, 1).expect_err("should fail").message
    }

    #[test]
    fn pre_dispatch() {
        assert!(matches!(
            parse("SHOW WARNINGS", 1),
            Ok(Statement::ShowWarnings {
                errors: false,
                count: false,
                ..
            })
        ));
        assert!(matches!(
            parse("show count(*) errors", 1),
            Ok(Statement::ShowWarnings {
                errors: true,
                count: true,
                ..
            })
        ));
        match parse("SHOW INDEX FROM t FROM db", 1) {
            Ok(Statement::ShowIndex { table, db }) => {
                assert_eq!((table.as_str(), db.as_deref()), ("t", Some("db")))
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parse("SHOW TABLE STATUS LIKE 'a%'", 1),
            Ok(Statement::ShowTableStatus { .. })
        ));
        assert!(matches!(
            parse("SHOW ENGINE manycore MUTEX", 1),
            Ok(Statement::ShowEngine { .. })
        ));
        assert!(matches!(
            parse("show create database d", 1),
            Ok(Statement::ShowCreateDatabase { .. })
        ));
        for (text, expected) in [
            ("SHOW TRIGGERS FROM d LIKE 't%'", StoredObjects::Triggers),
            ("show events", StoredObjects::Events),
            (
                "SHOW FUNCTION STATUS WHERE Db = 'd'",
                StoredObjects::Routines("FUNCTION"),
            ),
            (
                "SHOW PROCEDURE STATUS",
                StoredObjects::Routines("PROCEDURE"),
            ),
            ("SHOW PACKAGE STATUS", StoredObjects::Routines("PACKAGE")),
            (
                "SHOW PACKAGE BODY STATUS LIKE 'p'",
                StoredObjects::Routines("PACKAGE BODY"),
            ),
        ] {
            match parse(text, 1) {
                Ok(Statement::ShowStoredObjects { kind, .. }) => assert_eq!(kind, expected),
                other => panic!("{text}: {other:?}"),
            }
        }
        assert!(matches!(
            parse("ALTER TABLE d.t DISABLE KEYS", 1),
            Ok(Statement::AlterTableKeys { .. })
        ));
        assert!(matches!(
            parse("alter table t enable keys", 1),
            Ok(Statement::AlterTableKeys { .. })
        ));
        assert!(matches!(
            parse("ALTER TABLE t AUTO_INCREMENT = 5", 1),
            Ok(Statement::AlterTableOptions { options, .. })
                if options.auto_increment == Some(5)
        ));
        assert!(matches!(
            parse("ALTER TABLE IF EXISTS t ENGINE = InnoDB, COMMENT 'c'", 1),
            Ok(Statement::AlterTableOptions { options, if_exists: true, .. })
                if options.comment.as_deref() == Some("c")
        ));
        // Options mixed with other operations, separated by commas or not.
        for text in [
            "ALTER TABLE t ADD COLUMN c INT, COMMENT 'x'",
            "ALTER TABLE t COMMENT 'x', ADD COLUMN c INT",
            "ALTER TABLE t ENGINE=InnoDB COMMENT 'x', ADD COLUMN c INT, ROW_FORMAT=COMPACT",
            "ALTER TABLE t ADD COLUMN c INT COMMENT 'y', COMMENT 'x', ENGINE=InnoDB",
        ] {
            match parse(text, 1) {
                Ok(Statement::AlterTable(alter)) => {
                    assert_eq!(alter.alter.operations.len(), 1, "{text}");
                    assert_eq!(alter.options.comment.as_deref(), Some("x"), "{text}");
                }
                other => panic!("{text}: {other:?}"),
            }
        }
        assert!(matches!(parse("DO 1, 2", 1), Ok(Statement::Do(e)) if e.len() == 2));
        assert!(matches!(
            parse("START TRANSACTION READ ONLY, WITH CONSISTENT SNAPSHOT", 1),
            Ok(Statement::StartTransaction {
                read_only: true,
                consistent_snapshot: true
            })
        ));
        assert!(matches!(
            parse("SET CHARACTER SET utf8", 1),
            Ok(Statement::SetCharacterSet(Some(_)))
        ));
        assert!(matches!(parse("SHOW TABLES", 1), Ok(Statement::Sql(_))));
        assert!(matches!(
            parse("begin", 1),
            Ok(Statement::StartTransaction { .. })
        ));
    }

    #[test]
    fn set_lists_with_names_are_split_into_items() {
        // What MariaDB Connector/J 3.5 sends at connect, abridged.
        let connect = "set sql_mode=CONCAT(@@sql_mode,',STRICT_TRANS_TABLES'),\n\
                       session_track_system_variables=CONCAT('autocommit,time_zone', \
                       IF(LOCATE('*', @@session_track_system_variables) > 0, ',x', '')),\
                       session_track_schema=1,NAMES utf8mb4";
        match parse(connect, 1) {
            Ok(Statement::Sets(items)) => {
                assert_eq!(items.len(), 4);
                assert!(matches!(items[3], ast::Set::SetNames { .. }), "{items:?}");
            }
            other => panic!("{other:?}"),
        }
        match parse(
            "SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci, @a = (1, 2)",
            1,
        ) {
            Ok(Statement::Sets(items)) => assert_eq!(items.len(), 2),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parse("SET NAMES utf8mb4", 1),
            Ok(Statement::Sql(_))
        ));
        assert!(matches!(
            parse("SET a = 1, b = 2", 1),
            Ok(Statement::Sql(_))
        ));
        assert!(parse("SET NAMES utf8mb4, SELECT 1", 1).is_err());
    }

    /// What binding reads from `text`'s locking clause.
    fn lock_policy(text: &str) -> Option<crate::select::LockWaitPolicy> {
        let statement = match parse(text, 1).expect(text) {
            Statement::Sql(statement)
            | Statement::SelectInto {
                query: statement, ..
            } => statement,
            other => panic!("{other:?}"),
        };
        match *statement {
            ast::Statement::Query(query) => crate::select::locking(&query)
                .expect(text)
                .map(|locking| locking.policy),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn locking_clauses_as_mariadb_reads_them() {
        use crate::select::LockWaitPolicy::{SkipLocked, Wait, WaitAtMost};
        let seconds = |n| Some(WaitAtMost(std::time::Duration::from_secs(n)));
        assert_eq!(lock_policy("SELECT * FROM t"), None);
        assert_eq!(lock_policy("SELECT * FROM t FOR UPDATE"), Some(Wait));
        assert_eq!(
            lock_policy("SELECT * FROM t LOCK IN SHARE MODE"),
            Some(Wait)
        );
        assert_eq!(lock_policy("SELECT * FROM t FOR UPDATE NOWAIT"), seconds(0));
        assert_eq!(
            lock_policy("select * from t lock in share mode nowait"),
            seconds(0)
        );
        let skip = "SELECT * FROM t ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED";
        assert_eq!(lock_policy(skip), Some(SkipLocked));
        let skip = "SELECT * FROM t LOCK IN SHARE MODE SKIP LOCKED";
        assert_eq!(lock_policy(skip), Some(SkipLocked));
        assert_eq!(lock_policy("SELECT * FROM t FOR UPDATE WAIT 5"), seconds(5));
        assert_eq!(
            lock_policy("SELECT * FROM t lock in share mode wait 2"),
            seconds(2)
        );
        // Any number literal, a fractional one truncated, bounded by the variable's maximum.
        assert_eq!(
            lock_policy("SELECT * FROM t FOR UPDATE WAIT 1.9"),
            seconds(1)
        );
        assert_eq!(
            lock_policy("SELECT * FROM t FOR UPDATE WAIT 0.5"),
            seconds(0)
        );
        assert_eq!(
            lock_policy("SELECT * FROM t FOR UPDATE WAIT 1e1"),
            seconds(10)
        );
        assert_eq!(
            lock_policy("SELECT * FROM t FOR UPDATE WAIT 0x10"),
            seconds(16)
        );
        let huge = "SELECT * FROM t FOR UPDATE WAIT 18446744073709551616";
        assert_eq!(lock_policy(huge), seconds(100_000_000));
        // With INTO before or after the clause; `wait` elsewhere is a name.
        let into = "SELECT a FROM t WHERE a = 1 FOR UPDATE WAIT 3 INTO @a";
        assert_eq!(lock_policy(into), seconds(3));
        let into = "SELECT a INTO @a FROM t WHERE a = 1 FOR UPDATE WAIT 3";
        assert_eq!(lock_policy(into), seconds(3));
        let named = "SELECT wait FROM wait WHERE wait = 1 FOR UPDATE";
        assert_eq!(lock_policy(named), Some(Wait));
        for text in [
            "SELECT * FROM t FOR UPDATE WAIT",
            "SELECT * FROM t FOR UPDATE WAIT -1",
            "SELECT * FROM t FOR UPDATE WAIT '1'",
            "SELECT * FROM t FOR UPDATE WAIT ?",
            "SELECT * FROM t FOR UPDATE NOWAIT SKIP LOCKED",
            "SELECT * FROM t FOR UPDATE WAIT 1 SKIP LOCKED",
            "SELECT * FROM t WAIT 1",
            "SELECT * FROM t SKIP LOCKED",
        ] {
            assert_eq!(
                parse(text, 1).map(|_| ()).map_err(|e| e.code),
                Err(ErrorCode::Parse),
                "{text}"
            );
        }
    }

    #[test]
    fn errors_point_near_the_failing_token() {
        assert!(
            near("selec 1").contains("near 'selec 1' at line 1"),
            "{}",
            near("selec 1")
        );
        assert!(
            near("select 1 from").contains("near '' at line 1"),
            "{}",
            near("select 1 from")
        );
        assert!(near("select * from t where a = = 1").contains("near '= 1' at line 1"));
    }
}
