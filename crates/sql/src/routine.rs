//! Stored procedures: CREATE PROCEDURE, DROP PROCEDURE and CALL read here, and the
//! statement SHOW CREATE PROCEDURE prints. A procedure's body is a compound statement
//! (`compound`), bound at each CALL with the procedure's parameters as its first local
//! variables; the session runs it (`session::routines`).
//!
//! A procedure is kept in the catalog as text (`storage::RoutineSchema`: the parameter
//! list and the body as written, and the characteristics), logged and checkpointed like
//! a trigger.
//!
//! Invariants:
//! (1) CREATE PROCEDURE checks what MariaDB checks then: the parameter list (1330 for a
//!     name given twice, 1064 for a type it cannot read) and the body's form (1064; 1308,
//!     1327... from `compound`; 1235 for what is not built). An error binding one of the
//!     body's statements (an unknown table) comes when the statement runs (`compound`
//!     invariant (7)).
//! (2) A CALL checks its arguments before anything runs: their count (1318), and that
//!     each OUT or INOUT argument is a user variable (1414).
//! (3) A CALL is one statement to the session. Each statement of the body is atomic
//!     (`compound::run_procedure`): one that fails is undone, and the work before it
//!     stays, committed when the CALL ends in autocommit mode (MariaDB commits each
//!     statement as it ends: only a concurrent reader, or a crash during the CALL, can
//!     tell the difference).
//! (4) The result sets of the body's SELECTs are held until the CALL ends and then sent,
//!     followed by an OK whose affected rows are the sum over the body's statements, as
//!     MariaDB's. A CALL that must wait for a row lock is undone and runs again from its
//!     start with nothing sent (session invariant (4)).
//!
//! Not built yet (1235, or as noted): stored functions; CALL, DDL, transaction control and
//! SET of system variables inside a body (`compound` invariant (4)); ALTER PROCEDURE; an
//! OUT or INOUT argument given as a `?` of a prepared CALL (1414 here); recursion. The
//! body runs with the caller's privileges and sql_mode, not the definer's or the one
//! recorded at CREATE; CREATE and DROP PROCEDURE check the database's CREATE and DROP
//! privileges (CREATE ROUTINE, ALTER ROUTINE and EXECUTE are not modelled). Warnings the
//! body's statements raise stay in the body, as in a trigger.

use crate::error::{Error, ErrorCode, Result};
use crate::parse::{self, Statement};
use crate::view::{quote_definer, quote_name};
use manycore_types::DataType;
use sqlparser::ast;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

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

/// The characteristics of CREATE PROCEDURE, with MariaDB's defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Characteristics {
    pub comment: String,
    pub deterministic: bool,
    /// CONTAINS SQL, NO SQL, READS SQL DATA or MODIFIES SQL DATA.
    pub data_access: String,
    /// DEFINER or INVOKER.
    pub security: String,
}

impl Default for Characteristics {
    fn default() -> Characteristics {
        Characteristics {
            comment: String::new(),
            deterministic: false,
            data_access: "CONTAINS SQL".to_string(),
            security: "DEFINER".to_string(),
        }
    }
}

/// CREATE [OR REPLACE] [DEFINER = user] PROCEDURE [IF NOT EXISTS] name ([parameters])
/// [characteristics] body.
#[derive(Clone, Debug)]
pub struct CreateProcedure {
    pub or_replace: bool,
    pub if_not_exists: bool,
    pub definer: Option<String>,
    pub name: ast::ObjectName,
    /// The parameter list as written, without its parentheses.
    pub parameters: String,
    pub characteristics: Characteristics,
    /// The body as written (without a trailing `;`).
    pub body: String,
}

/// Reads a CREATE PROCEDURE after its PROCEDURE keyword.
pub(crate) fn parse_create(
    parser: &mut Parser,
    text: &str,
    or_replace: bool,
    definer: Option<String>,
) -> std::result::Result<Statement, ParserError> {
    use sqlparser::keywords::Keyword;
    let if_not_exists = parser.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]);
    let name = parser.parse_object_name(false)?;
    let open = parser.expect_token(&Token::LParen)?.span.end;
    // Read here so a malformed parameter is 1064 at its place in the statement.
    read_parameters(parser, &Token::RParen)?;
    let close = parser.expect_token(&Token::RParen)?.span.start;
    let offset = |at: sqlparser::tokenizer::Location| {
        parse::offset_of(text, at.line as usize, at.column as usize)
    };
    let parameters = text[offset(open)..offset(close)].to_string();
    let characteristics = read_characteristics(parser)?;
    let body = parse::body_as_written(parser, text, "a procedure body")?;
    Ok(Statement::CreateProcedure(Box::new(CreateProcedure {
        or_replace,
        if_not_exists,
        definer,
        name,
        parameters,
        characteristics,
        body,
    })))
}

/// COMMENT 'text', LANGUAGE SQL, [NOT] DETERMINISTIC, CONTAINS SQL, NO SQL, READS SQL
/// DATA, MODIFIES SQL DATA and SQL SECURITY {DEFINER | INVOKER}, in any order; a later
/// one overrides an earlier one, as in MariaDB.
fn read_characteristics(parser: &mut Parser) -> std::result::Result<Characteristics, ParserError> {
    let mut chosen = Characteristics::default();
    loop {
        let word = |n| parse::word(&parser.peek_nth_token(n)).unwrap_or_default();
        let (first, second, third) = (word(0), word(1), word(2));
        let taken = match (first.as_str(), second.as_str(), third.as_str()) {
            ("COMMENT", _, _) => {
                parser.next_token();
                chosen.comment = parser.parse_literal_string()?;
                continue;
            }
            ("LANGUAGE", "SQL", _) => 2,
            ("DETERMINISTIC", _, _) => {
                chosen.deterministic = true;
                1
            }
            ("NOT", "DETERMINISTIC", _) => {
                chosen.deterministic = false;
                2
            }
            ("CONTAINS" | "NO", "SQL", _) => {
                chosen.data_access = format!("{first} SQL");
                2
            }
            ("READS" | "MODIFIES", "SQL", "DATA") => {
                chosen.data_access = format!("{first} SQL DATA");
                3
            }
            ("SQL", "SECURITY", "DEFINER" | "INVOKER") => {
                chosen.security = third;
                3
            }
            _ => return Ok(chosen),
        };
        for _ in 0..taken {
            parser.next_token();
        }
    }
}

/// Reads `DROP PROCEDURE [IF EXISTS] name`.
pub(crate) fn parse_drop(parser: &mut Parser) -> std::result::Result<Statement, ParserError> {
    use sqlparser::keywords::Keyword;
    parser.next_token();
    parser.next_token();
    let if_exists = parser.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
    let name = parser.parse_object_name(false)?;
    if parser.peek_token().token != Token::EOF {
        return parser.expected("end of statement", parser.peek_token());
    }
    Ok(Statement::DropProcedure { name, if_exists })
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
    if parser.peek_token().token != Token::EOF {
        return parser.expected("end of statement", parser.peek_token());
    }
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
) -> std::result::Result<Vec<(Mode, String, ast::DataType)>, ParserError> {
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

/// The statement that creates the procedure, as SHOW CREATE PROCEDURE and mariadb-dump
/// print it: the characteristics that differ from the defaults, one per line.
pub fn create_text(
    definer: &str,
    name: &str,
    parameters: &str,
    characteristics: &Characteristics,
    body: &str,
) -> String {
    let mut text = format!(
        "CREATE DEFINER={} PROCEDURE {}({})\n",
        quote_definer(definer),
        quote_name(name),
        parameters
    );
    let defaults = Characteristics::default();
    if characteristics.data_access != defaults.data_access {
        text.push_str(&format!("    {}\n", characteristics.data_access));
    }
    if characteristics.deterministic {
        text.push_str("    DETERMINISTIC\n");
    }
    if characteristics.security != defaults.security {
        text.push_str(&format!("    SQL SECURITY {}\n", characteristics.security));
    }
    if !characteristics.comment.is_empty() {
        text.push_str(&format!(
            "    COMMENT '{}'\n",
            characteristics.comment.replace('\'', "''")
        ));
    }
    text.push_str(body);
    text
}

/// 1305: no procedure `db.name`.
pub fn no_such_procedure(db: &str, name: &str) -> Error {
    Error::new(
        ErrorCode::SpDoesNotExist,
        format!("PROCEDURE {db}.{name} does not exist"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn create(text: &str) -> CreateProcedure {
        match parse::parse(text, 1).expect("parses") {
            Statement::CreateProcedure(c) => *c,
            _ => panic!("not a CREATE PROCEDURE: {text}"),
        }
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
        let expected = Characteristics {
            comment: "it's".into(),
            deterministic: true,
            data_access: "CONTAINS SQL".into(),
            security: "INVOKER".into(),
        };
        assert_eq!(c.characteristics, expected);
        assert_eq!(
            create_text("u@%", "p", &c.parameters, &c.characteristics, &c.body),
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
            Statement::DropProcedure {
                if_exists: true,
                ..
            }
        ));
    }
}
