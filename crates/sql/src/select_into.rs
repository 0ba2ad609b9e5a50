//! The INTO clause of a SELECT: `INTO @a, @b` (user variables; local variables in a
//! stored program's body), `INTO OUTFILE 'f' ...` and `INTO DUMPFILE 'f'` (`outfile`).
//!
//! The clause is taken out of the statement's text before sqlparser reads the SELECT
//! (`split`: blanked, so positions in errors stay right), at the top level
//! (`parse::parse`) and in a body (`compound`); the SELECT then binds and runs as any
//! other, and the session (or the body) delivers its row(s) to the destination.
//!
//! Invariants:
//! (1) Only an INTO outside parentheses is the clause: `SELECT (SELECT 1 INTO @a)` is left
//!     to sqlparser (and refused when bound).
//! (2) INTO after FROM (or after a UNION or a parenthesised SELECT) is MariaDB's deprecated
//!     position: it must end the statement but for a locking clause, and it is warning
//!     1287 (given where the statement is read: at PREPARE, not at each EXECUTE). INTO
//!     before FROM cannot be followed by a set operator, and a statement has one INTO.
//! (3) Variables receive the first row; a second row is 1172 after the first row was
//!     assigned, and no row is warning 1329 with the variables unchanged (as MariaDB's
//!     `select_dumpvar`). The column count must equal the target count (1222) before
//!     anything runs.

use crate::error::{Error, ErrorCode, Result};
use crate::exec::{self, ExecContext};
use crate::outfile::{self, IntoFile};
use crate::parse::{self, DIALECT};
use crate::plan::Plan;
use manycore_types::Value;
use sqlparser::ast;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, Tokenizer};
use std::ops::ControlFlow;

/// A SELECT's INTO clause.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntoClause {
    pub target: IntoTarget,
    /// Written after FROM (invariant (2)).
    pub deprecated_position: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IntoTarget {
    File(IntoFile),
    /// The targets as written: `@name` for user variables, else a local variable's name.
    Variables(Vec<String>),
}

/// `text` with its top-level INTO clause blanked out, and the clause; None when it has
/// none (the common case costs one case-insensitive byte search for INTO).
pub(crate) fn split(text: &str) -> std::result::Result<Option<(String, IntoClause)>, ParserError> {
    if !crate::query_text::mentions(text, "INTO") {
        return Ok(None);
    }
    let tokens = Tokenizer::new(&DIALECT, text).tokenize_with_location()?;
    let mut depth = 0usize;
    let mut deprecated_position = false;
    let mut into = None;
    let significant = tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| !matches!(t.token, Token::Whitespace(_)));
    if let Some((_, first)) = significant.clone().next() {
        deprecated_position = first.token == Token::LParen;
    }
    for (i, token) in significant {
        match &token.token {
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            _ if depth > 0 => {}
            _ => match parse::word(token).as_deref() {
                Some(
                    "FROM" | "WHERE" | "GROUP" | "HAVING" | "ORDER" | "LIMIT" | "UNION" | "EXCEPT"
                    | "INTERSECT" | "WINDOW",
                ) => deprecated_position = true,
                Some("INTO") => {
                    into = Some(i);
                    break;
                }
                _ => {}
            },
        }
    }
    let Some(into) = into else {
        return Ok(None);
    };
    let start = &tokens[into].span.start;
    let start = parse::offset_of(text, start.line as usize, start.column as usize);
    let mut parser = Parser::new(&DIALECT).with_tokens_with_locations(tokens[into..].to_vec());
    parser.next_token(); // INTO
    let target = match parse::word(&parser.peek_token()).as_deref() {
        Some("OUTFILE" | "DUMPFILE") => IntoTarget::File(outfile::parse_clause(&mut parser)?),
        _ => IntoTarget::Variables(parse_variables(&mut parser)?),
    };
    let next = parser.peek_token();
    // One INTO per statement, and the first position's INTO belongs to the whole
    // statement: no set operator may follow it (MariaDB's grammar).
    let mut depth = 0usize;
    let rest = match next.token {
        Token::EOF => &[][..],
        _ => &tokens[into..],
    };
    for token in rest.iter().filter(|t| t.span.start >= next.span.start) {
        match &token.token {
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            _ if depth > 0 => {}
            _ => match parse::word(token).as_deref() {
                Some("INTO") => return parser.expected("end of statement", token.clone()),
                Some("UNION" | "EXCEPT" | "INTERSECT") if !deprecated_position => {
                    return parser.expected("end of statement", token.clone())
                }
                _ => {}
            },
        }
    }
    let end = match next.token {
        Token::EOF => text.len(),
        _ => {
            // After FROM the clause ends the SELECT but for its locking clause.
            let locking = matches!(parse::word(&next).as_deref(), Some("FOR" | "LOCK"));
            if deprecated_position && !locking && next.token != Token::SemiColon {
                return parser.expected("end of statement", next);
            }
            let at = &next.span.start;
            parse::offset_of(text, at.line as usize, at.column as usize)
        }
    };
    let masked = format!(
        "{}{}{}",
        &text[..start],
        " ".repeat(end - start),
        &text[end..]
    );
    Ok(Some((
        masked,
        IntoClause {
            target,
            deprecated_position,
        },
    )))
}

/// The user variable a target names (`@name`), or None for a local variable's name.
pub(crate) fn user_variable(target: &str) -> Option<&str> {
    target.strip_prefix('@').filter(|n| !n.starts_with('@'))
}

/// The user variable an expression is (`@name` written alone), or None for any other
/// expression: what an OUT argument or an EXECUTE ... USING item may return a value to.
pub(crate) fn user_variable_of(expr: &ast::Expr) -> Option<&str> {
    match expr {
        ast::Expr::Identifier(ident) => user_variable(&ident.value),
        _ => None,
    }
}

/// 1222 unless the SELECT has one column per target (checked before it runs).
pub(crate) fn check_width(columns: usize, targets: usize) -> Result<()> {
    match columns == targets {
        true => Ok(()),
        false => Err(Error::new(
            ErrorCode::WrongNumberOfColumnsInSelect,
            "The used SELECT statements have a different number of columns",
        )),
    }
}

/// Runs `plan`: its first row, and whether a second one followed (invariant (3)).
pub(crate) fn first_row(plan: &Plan, ctx: &ExecContext) -> Result<(Option<Vec<Value>>, bool)> {
    let mut first: Option<Vec<Value>> = None;
    let mut more = false;
    let _ = exec::run(plan, ctx, &mut |row| {
        if first.is_some() {
            more = true;
            return Ok(ControlFlow::Break(()));
        }
        first = Some(row.to_vec());
        Ok(ControlFlow::Continue(()))
    })?;
    Ok((first, more))
}

pub(crate) fn too_many_rows() -> Error {
    Error::new(
        ErrorCode::TooManyRows,
        "Result consisted of more than one row",
    )
}

/// The 'no data' condition of a SELECT ... INTO that found no row.
pub(crate) const NO_DATA: &str = "No data - zero rows fetched, selected, or processed";

/// `a, @b, ...`: one or more variable names.
fn parse_variables(parser: &mut Parser) -> std::result::Result<Vec<String>, ParserError> {
    let mut names = Vec::new();
    loop {
        let token = parser.next_token();
        match &token.token {
            Token::Word(w) => names.push(w.value.clone()),
            _ => return parser.expected("a variable", token),
        }
        if !parser.consume_token(&Token::Comma) {
            return Ok(names);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(masked: &str) -> Vec<&str> {
        masked.split_whitespace().collect()
    }

    #[test]
    fn split_blanks_a_file_clause_and_reads_its_options() {
        let sql = "SELECT a INTO OUTFILE '/f' FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY \
                   '\"' LINES TERMINATED BY '\\r\\n' FROM t";
        let (masked, into) = split(sql).expect("parses").expect("has INTO");
        assert_eq!(masked.len(), sql.len());
        assert_eq!(words(&masked), ["SELECT", "a", "FROM", "t"]);
        assert!(!into.deprecated_position);
        let IntoTarget::File(file) = into.target else {
            panic!("a file");
        };
        assert_eq!(file.file, "/f");
        assert!(!file.dumpfile);
        assert_eq!(file.format.field_term, b",");
        assert!(file.format.optionally);
        assert_eq!(file.format.line_term, b"\r\n");
        let (_, after) = split("select * from t into dumpfile '/d'")
            .expect("ok")
            .expect("into");
        assert!(after.deprecated_position);
        assert!(matches!(after.target, IntoTarget::File(f) if f.dumpfile));
        assert!(split("select 'outfile' from t").expect("ok").is_none());
        assert!(split("select * from t into outfile '/f' limit 1").is_err());
    }

    #[test]
    fn split_takes_variables_out_of_the_query() {
        let (masked, into) = split("SELECT a, b INTO x, @y FROM t WHERE c IN (1, 2) LIMIT 1")
            .expect("parses")
            .expect("has INTO");
        assert_eq!(
            words(&masked),
            ["SELECT", "a,", "b", "FROM", "t", "WHERE", "c", "IN", "(1,", "2)", "LIMIT", "1"]
        );
        assert_eq!(
            into.target,
            IntoTarget::Variables(vec!["x".into(), "@y".into()])
        );
        assert!(!into.deprecated_position);
        let (masked, into) = split("select a from t where a = 2 into @d for update")
            .expect("parses")
            .expect("has INTO");
        assert_eq!(
            words(&masked),
            ["select", "a", "from", "t", "where", "a", "=", "2", "for", "update"]
        );
        assert!(into.deprecated_position);
        // Invariant (1): INTO inside parentheses is not the statement's clause.
        assert!(split("select (select 1 into @a)").expect("ok").is_none());
        assert!(split("select 1 from t into @a where a = 1").is_err());
        assert!(split("select 1 into 'x'").is_err());
        // Invariant (2)'s neighbours: one INTO, and none before a set operator.
        assert!(split("select a into @f from t union select 2").is_err());
        assert!(split("select a into outfile '/f' from t into @a").is_err());
        assert!(split("select a from t union select 3 into @f").is_ok());
        assert!(split("select 1 into @q, @q").is_ok());
    }
}
