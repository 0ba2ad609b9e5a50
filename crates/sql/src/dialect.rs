//! MariaDB's dialect: sqlparser's MySqlDialect with MariaDB's operator grammar where
//! sqlparser's differs.
//!
//! Invariants:
//! (1) Everything not listed here behaves exactly as MySqlDialect: every method it
//!     overrides is delegated, and `dialect()` reports MySqlDialect's type so that
//!     sqlparser's `dialect_of!(... MySqlDialect)` checks still apply.
//! (2) Differences, each MariaDB's documented grammar:
//!     - `XOR` binds looser than AND and tighter than OR (sqlparser ranks it above the
//!       comparisons, so `a > 1 XOR b = 2` parsed as `a > (1 XOR b) = 2`);
//!     - `a MOD b` is `a % b` (sqlparser only knows the MOD() function);
//!     - `UPDATE IGNORE t` updates t ignoring errors (sqlparser took IGNORE for the
//!       table); it becomes sqlparser's `UPDATE OR IGNORE`, which means the same;
//!     - `UPDATE t1, t2 SET ...` updates a comma join (sqlparser reads one table and
//!       its joins); the tables after the first become `from` (`UPDATE ... FROM`, which
//!       MariaDB's grammar lacks, so `from` set means a comma join);
//!     - a column's `BINARY` attribute (`VARCHAR(10) BINARY`) is its charset's _bin
//!       collation: it becomes `COLLATE utf8mb4_bin` (sqlparser has no such option);
//!     - `DELETE t1.*, t2 FROM ...` names its targets with an optional `.*`
//!       (sqlparser's target list takes plain names only);
//!     - `x [NOT] REGEXP|RLIKE NULL` compares with NULL (sqlparser took the NULL for
//!       `x NOT NULL`'s and then found no pattern);
//!     - `BINARY x` binds tighter than any binary operator (`BINARY a REGEXP b` is
//!       `(BINARY a) REGEXP b`; sqlparser cast the whole expression after it);
//!     - a generated column's `[GENERATED ALWAYS] AS (expr)` may end in PERSISTENT,
//!       MariaDB's word for STORED (sqlparser knows only VIRTUAL and STORED);
//!     - `LOCK TABLE[S] [db.]t [[AS] alias] {READ [LOCAL] | [LOW_PRIORITY] WRITE}, ...`
//!       takes qualified names (sqlparser's LockTable holds one identifier); it becomes
//!       sqlparser's `Lock` with the names, and with lock mode SHARE if every table is
//!       locked READ, EXCLUSIVE otherwise (all the session needs: it takes no table
//!       locks); `UNLOCK TABLE` is `UNLOCK TABLES`;
//!     - a reserved word that starts an expression but is not followed by one (`SELECT
//!       case`) is a syntax error, not a column name (`MARIADB_RESERVED_PREFIXES`).
//!       Not yet: reserved words as aliases and names elsewhere (`SELECT 1 AS select`)
//!       and a bare `binary` (which SET character_set_x = binary needs) are accepted;
//!       MariaDB gives 1064.

use sqlparser::ast::{
    BinaryOperator, CastKind, ColumnOption, DataType, Delete, Expr, FromTable, GeneratedAs,
    GeneratedExpressionMode, Ident, Lock, LockTableMode, LockTableTarget, ObjectName, OrderByExpr,
    SqliteOnConflict, Statement, Update, UpdateTableFromKind,
};
use sqlparser::dialect::{Dialect, MySqlDialect, Precedence};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

#[derive(Debug)]
pub struct MariaDbDialect(MySqlDialect);

impl MariaDbDialect {
    pub const fn new() -> MariaDbDialect {
        MariaDbDialect(MySqlDialect {})
    }
}

/// Words that start an expression (`CASE ...`, `EXISTS (...)`) and that MariaDB reserves,
/// so one that does not start a valid expression is 1064, never a column of that name.
/// sqlparser's own list holds TRIM and STRUCT, which MariaDB allows as names. BINARY has
/// its own prefix parser here (`parse_prefix`), which keeps a bare `binary` as a name.
const MARIADB_RESERVED_PREFIXES: &[Keyword] = &[
    Keyword::CASE,
    Keyword::CONVERT,
    Keyword::EXISTS,
    Keyword::INTERVAL,
    Keyword::MATCH,
];

/// Between sqlparser's OR (5) and AND (10).
const XOR_PRECEDENCE: u8 = 7;

/// Delegates the listed no-argument `bool` methods to MySqlDialect (invariant 1).
macro_rules! delegate {
    ($($name:ident),* $(,)?) => {
        $(fn $name(&self) -> bool {
            self.0.$name()
        })*
    };
}

impl Dialect for MariaDbDialect {
    fn dialect(&self) -> std::any::TypeId {
        self.0.dialect()
    }

    fn is_identifier_start(&self, ch: char) -> bool {
        self.0.is_identifier_start(ch)
    }

    fn is_identifier_part(&self, ch: char) -> bool {
        self.0.is_identifier_part(ch)
    }

    fn is_delimited_identifier_start(&self, ch: char) -> bool {
        self.0.is_delimited_identifier_start(ch)
    }

    fn identifier_quote_style(&self, identifier: &str) -> Option<char> {
        self.0.identifier_quote_style(identifier)
    }

    delegate!(
        supports_string_literal_backslash_escape,
        supports_string_literal_concatenation,
        ignores_wildcard_escapes,
        supports_numeric_prefix,
        supports_bitwise_shift_operators,
        supports_multiline_comment_hints,
        require_interval_qualifier,
        supports_limit_comma,
        supports_create_table_select,
        supports_insert_set,
        supports_user_host_grantee,
        supports_table_hints,
        requires_single_line_comment_whitespace,
        supports_match_against,
        supports_select_modifiers,
        supports_set_names,
        supports_comma_separated_set_assignments,
        supports_update_order_by,
        supports_data_type_signed_suffix,
        supports_cross_join_constraint,
        supports_double_ampersand_operator,
        supports_binary_kw_as_cast,
        supports_comment_optimizer_hint,
        supports_constraint_keyword_without_name,
        supports_key_column_option,
        supports_group_by_with_modifier,
        supports_left_associative_joins_without_parens,
    );

    fn is_reserved_for_identifier(&self, kw: Keyword) -> bool {
        MARIADB_RESERVED_PREFIXES.contains(&kw)
    }

    fn is_table_factor_alias(&self, explicit: bool, kw: &Keyword, parser: &mut Parser) -> bool {
        self.0.is_table_factor_alias(explicit, kw, parser)
    }

    fn parse_statement(&self, parser: &mut Parser) -> Option<Result<Statement, ParserError>> {
        let is_word = |n: usize, keyword: Keyword| matches!(&parser.peek_nth_token_ref(n).token, Token::Word(w) if w.keyword == keyword);
        if is_word(0, Keyword::UPDATE) {
            let update_token = parser.next_token();
            return Some(parse_update(parser, update_token));
        }
        if is_word(0, Keyword::LOCK) && (is_word(1, Keyword::TABLES) || is_word(1, Keyword::TABLE))
        {
            parser.next_token();
            parser.next_token();
            return Some(parse_lock_tables(parser));
        }
        if is_word(0, Keyword::UNLOCK) && is_word(1, Keyword::TABLE) {
            parser.next_token();
            parser.next_token();
            return Some(Ok(Statement::UnlockTables));
        }
        if is_word(0, Keyword::DELETE) {
            let multi_table = !is_word(1, Keyword::FROM);
            let delete_token = parser.next_token();
            if multi_table {
                return Some(parse_multi_delete(parser, delete_token));
            }
            return Some(parse_delete_returning_last(parser, delete_token));
        }
        self.0.parse_statement(parser)
    }

    fn parse_column_option(
        &self,
        parser: &mut Parser,
    ) -> Result<Option<Result<Option<ColumnOption>, ParserError>>, ParserError> {
        if parser.parse_keyword(Keyword::BINARY) {
            let bin = ObjectName::from(vec![Ident::new("utf8mb4_bin")]);
            return Ok(Some(Ok(Some(ColumnOption::Collation(bin)))));
        }
        if parser.parse_keywords(&[Keyword::GENERATED, Keyword::ALWAYS, Keyword::AS])
            || parser.parse_keyword(Keyword::AS)
        {
            return Ok(Some(generated_column(parser)));
        }
        self.0.parse_column_option(parser)
    }

    fn get_next_precedence(&self, parser: &Parser) -> Option<Result<u8, ParserError>> {
        match &parser.peek_token_ref().token {
            Token::Word(w) if w.keyword == Keyword::XOR => Some(Ok(XOR_PRECEDENCE)),
            Token::Word(w) if w.keyword == Keyword::MOD && w.quote_style.is_none() => {
                Some(Ok(self.prec_value(Precedence::MulDivModOp)))
            }
            _ => self.0.get_next_precedence(parser),
        }
    }

    fn parse_prefix(&self, parser: &mut Parser) -> Option<Result<Expr, ParserError>> {
        if !is_keyword(parser, 0, Keyword::BINARY) {
            return self.0.parse_prefix(parser);
        }
        parser.next_token();
        let ends = [Token::EOF, Token::SemiColon, Token::Comma, Token::RParen];
        if ends.contains(&parser.peek_token().token) {
            // Nothing to cast: the name `binary` (`SET character_set_database = binary`,
            // what mariadb-import sends).
            return Some(Ok(Expr::Identifier(sqlparser::ast::Ident::new("binary"))));
        }
        let operand = parser.parse_subexpr(self.prec_value(Precedence::MulDivModOp));
        Some(operand.map(|operand| Expr::Cast {
            kind: CastKind::Cast,
            expr: Box::new(operand),
            data_type: DataType::Binary(None),
            format: None,
        }))
    }

    fn parse_infix(
        &self,
        parser: &mut Parser,
        expr: &Expr,
        precedence: u8,
    ) -> Option<Result<Expr, ParserError>> {
        let negated = is_keyword(parser, 0, Keyword::NOT);
        let operator = usize::from(negated);
        let regexp = is_keyword(parser, operator, Keyword::REGEXP);
        if regexp || is_keyword(parser, operator, Keyword::RLIKE) {
            for _ in 0..=operator {
                parser.next_token();
            }
            let pattern = parser.parse_subexpr(self.prec_value(Precedence::Like));
            return Some(pattern.map(|pattern| Expr::RLike {
                negated,
                expr: Box::new(expr.clone()),
                pattern: Box::new(pattern),
                regexp,
            }));
        }
        if parser.parse_keyword(Keyword::MOD) {
            return Some(
                parser
                    .parse_subexpr(precedence)
                    .map(|right| Expr::BinaryOp {
                        left: Box::new(expr.clone()),
                        op: BinaryOperator::Modulo,
                        right: Box::new(right),
                    }),
            );
        }
        self.0.parse_infix(parser, expr, precedence)
    }
}

/// Whether the `n`th token ahead is the unquoted `keyword`.
fn is_keyword(parser: &Parser, n: usize, keyword: Keyword) -> bool {
    matches!(&parser.peek_nth_token_ref(n).token,
        Token::Word(w) if w.keyword == keyword && w.quote_style.is_none())
}

/// A generated column's `(expr) [VIRTUAL | PERSISTENT | STORED]`, after its `AS`
/// (invariant 2); without a keyword it is VIRTUAL, as in MariaDB.
fn generated_column(parser: &mut Parser) -> Result<Option<ColumnOption>, ParserError> {
    parser.expect_token(&Token::LParen)?;
    let expr = parser.parse_expr()?;
    parser.expect_token(&Token::RParen)?;
    let stored = match &parser.peek_token_ref().token {
        Token::Word(w) if w.quote_style.is_none() => {
            let stored = ["PERSISTENT", "STORED"]
                .iter()
                .any(|k| w.value.eq_ignore_ascii_case(k));
            if stored || w.value.eq_ignore_ascii_case("VIRTUAL") {
                parser.next_token();
            }
            stored
        }
        _ => false,
    };
    let (generated_as, mode) = match stored {
        true => (GeneratedAs::ExpStored, GeneratedExpressionMode::Stored),
        false => (GeneratedAs::Always, GeneratedExpressionMode::Virtual),
    };
    Ok(Some(ColumnOption::Generated {
        generated_as,
        sequence_options: None,
        generation_expr: Some(expr),
        generation_expr_mode: Some(mode),
        generated_keyword: true,
    }))
}

/// MariaDB's UPDATE after the keyword (invariant (2)): `[IGNORE] tables SET assignments
/// [WHERE e] [ORDER BY ...] [LIMIT n]`.
/// MariaDB's LOCK TABLES list, after `LOCK TABLE[S]` (invariant 2).
fn parse_lock_tables(parser: &mut Parser) -> Result<Statement, ParserError> {
    let mut every_read = true;
    let tables = parser.parse_comma_separated(|parser| {
        let name = parser.parse_object_name(false)?;
        parser.parse_optional_alias(&[Keyword::READ, Keyword::WRITE, Keyword::LOW_PRIORITY])?;
        if parser.parse_keyword(Keyword::READ) {
            let _local = parser.parse_keyword(Keyword::LOCAL); // READ LOCAL reads as READ.
        } else {
            let _low_priority = parser.parse_keyword(Keyword::LOW_PRIORITY);
            parser.expect_keyword(Keyword::WRITE)?;
            every_read = false;
        }
        Ok(LockTableTarget {
            name,
            only: false,
            has_asterisk: false,
        })
    })?;
    let lock_mode = match every_read {
        true => LockTableMode::Share,
        false => LockTableMode::Exclusive,
    };
    Ok(Statement::Lock(Lock {
        tables,
        lock_mode: Some(lock_mode),
        nowait: false,
    }))
}

fn parse_update(
    parser: &mut Parser,
    update_token: sqlparser::tokenizer::TokenWithSpan,
) -> Result<Statement, ParserError> {
    let or = parser
        .parse_keyword(Keyword::IGNORE)
        .then_some(SqliteOnConflict::Ignore);
    let mut tables = parser.parse_comma_separated(Parser::parse_table_and_joins)?;
    let table = tables.remove(0);
    parser.expect_keyword(Keyword::SET)?;
    let assignments = parser.parse_comma_separated(Parser::parse_assignment)?;
    let (selection, order_by, limit) = parse_where_order_limit(parser)?;
    Ok(Statement::Update(Update {
        update_token: update_token.into(),
        optimizer_hints: Vec::new(),
        table,
        assignments,
        from: (!tables.is_empty()).then_some(UpdateTableFromKind::BeforeSet(tables)),
        selection,
        returning: None,
        output: None,
        or,
        order_by,
        limit,
    }))
}

/// The WHERE condition, ORDER BY items and LIMIT of `parse_where_order_limit`.
type WhereOrderLimit = (Option<Expr>, Vec<OrderByExpr>, Option<Expr>);

/// `[WHERE e] [ORDER BY ...] [LIMIT n]`, the tail of UPDATE and multi-table DELETE. The
/// limit is an expression (a number or a placeholder; `LIMIT ALL` is no MariaDB syntax).
fn parse_where_order_limit(parser: &mut Parser) -> Result<WhereOrderLimit, ParserError> {
    let selection = if parser.parse_keyword(Keyword::WHERE) {
        Some(parser.parse_expr()?)
    } else {
        None
    };
    let order_by = if parser.parse_keywords(&[Keyword::ORDER, Keyword::BY]) {
        parser.parse_comma_separated(Parser::parse_order_by_expr)?
    } else {
        Vec::new()
    };
    let limit = if parser.parse_keyword(Keyword::LIMIT) {
        Some(parser.parse_expr()?)
    } else {
        None
    };
    Ok((selection, order_by, limit))
}

/// `DELETE FROM ...` with MariaDB's clause order: RETURNING after ORDER BY and LIMIT,
/// where sqlparser expects it before them (which is also accepted).
fn parse_delete_returning_last(
    parser: &mut Parser,
    delete_token: sqlparser::tokenizer::TokenWithSpan,
) -> Result<Statement, ParserError> {
    let mut statement = parser.parse_delete(delete_token)?;
    if let Statement::Delete(delete) = &mut statement {
        if parser.parse_keyword(Keyword::RETURNING) {
            delete.returning = Some(parser.parse_comma_separated(Parser::parse_select_item)?);
        }
    }
    Ok(statement)
}

/// `DELETE targets FROM tables [USING ...] [WHERE e] [ORDER BY ...] [LIMIT n]` (invariant
/// (2)), each target `[db.]t[.*]`.
fn parse_multi_delete(
    parser: &mut Parser,
    delete_token: sqlparser::tokenizer::TokenWithSpan,
) -> Result<Statement, ParserError> {
    let mut tables = Vec::new();
    loop {
        let mut parts = vec![parser.parse_identifier()?];
        while parser.consume_token(&Token::Period) {
            if parser.consume_token(&Token::Mul) {
                break;
            }
            parts.push(parser.parse_identifier()?);
        }
        tables.push(ObjectName::from(parts));
        if !parser.consume_token(&Token::Comma) {
            break;
        }
    }
    parser.expect_keyword(Keyword::FROM)?;
    let from = parser.parse_comma_separated(Parser::parse_table_and_joins)?;
    let using = if parser.parse_keyword(Keyword::USING) {
        Some(parser.parse_comma_separated(Parser::parse_table_and_joins)?)
    } else {
        None
    };
    let (selection, order_by, limit) = parse_where_order_limit(parser)?;
    Ok(Statement::Delete(Delete {
        delete_token: delete_token.into(),
        optimizer_hints: Vec::new(),
        tables,
        from: FromTable::WithFromKeyword(from),
        using,
        selection,
        returning: None,
        output: None,
        order_by,
        limit,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (left, operator, right) of the top-level binary operator of `sql`.
    fn split(sql: &str) -> (String, BinaryOperator, String) {
        let expr = Parser::new(&MariaDbDialect::new())
            .try_with_sql(sql)
            .and_then(|mut p| p.parse_expr())
            .expect("parses");
        match expr {
            Expr::BinaryOp { left, op, right } => (left.to_string(), op, right.to_string()),
            other => panic!("not a binary operator: {other}"),
        }
    }

    #[test]
    fn regexp_takes_a_null_pattern() {
        for (sql, negated) in [("a REGEXP NULL", false), ("a NOT RLIKE NULL", true)] {
            let expr = Parser::new(&MariaDbDialect::new())
                .try_with_sql(sql)
                .and_then(|mut p| p.parse_expr())
                .expect("parses");
            let Expr::RLike {
                negated: n,
                pattern,
                ..
            } = expr
            else {
                panic!("not REGEXP: {expr}")
            };
            assert_eq!((n, pattern.to_string()), (negated, "NULL".to_string()));
        }
    }

    #[test]
    fn binary_binds_tighter_than_binary_operators() {
        let (left, op, right) = split("BINARY a * b + c");
        assert_eq!(
            (left.as_str(), right.as_str()),
            ("CAST(a AS BINARY) * b", "c")
        );
        assert_eq!(op, BinaryOperator::Plus);
        let expr = Parser::new(&MariaDbDialect::new())
            .try_with_sql("BINARY 'x' REGEXP 'y'")
            .and_then(|mut p| p.parse_expr())
            .expect("parses");
        assert_eq!(expr.to_string(), "CAST('x' AS BINARY) REGEXP 'y'");
        let alone = Parser::new(&MariaDbDialect::new())
            .try_with_sql("binary")
            .and_then(|mut p| p.parse_expr())
            .expect("parses");
        assert_eq!(
            alone.to_string(),
            "binary",
            "the name, with nothing to cast"
        );
    }

    #[test]
    fn xor_binds_between_and_and_or() {
        let xor = BinaryOperator::Xor;
        assert_eq!(
            split("a > 1 XOR b = 2"),
            ("a > 1".into(), xor.clone(), "b = 2".into())
        );
        assert_eq!(
            split("a OR b XOR c AND d"),
            ("a".into(), BinaryOperator::Or, "b XOR c AND d".into())
        );
        assert_eq!(split("b XOR c AND d"), ("b".into(), xor, "c AND d".into()));
    }

    #[test]
    fn update_ignore_is_update_or_ignore() {
        let statement = Parser::new(&MariaDbDialect::new())
            .try_with_sql("UPDATE IGNORE t SET a = 1")
            .and_then(|mut p| p.parse_statement())
            .expect("parses");
        let Statement::Update(update) = statement else {
            panic!("not an UPDATE: {statement}");
        };
        assert_eq!(update.or, Some(SqliteOnConflict::Ignore));
        assert_eq!(update.table.to_string(), "t");
    }

    #[test]
    fn delete_targets_may_end_in_a_star() {
        let statement = Parser::new(&MariaDbDialect::new())
            .try_with_sql("DELETE t1.*, d.t2 FROM t1 JOIN d.t2 ON x WHERE y")
            .and_then(|mut p| p.parse_statement())
            .expect("parses");
        let Statement::Delete(delete) = statement else {
            panic!("not a DELETE: {statement}");
        };
        let names: Vec<String> = delete.tables.iter().map(ToString::to_string).collect();
        assert_eq!(names, ["t1", "d.t2"]);
        assert!(delete.selection.is_some());
    }

    #[test]
    fn update_of_a_comma_join_keeps_every_table() {
        let statement = Parser::new(&MariaDbDialect::new())
            .try_with_sql("UPDATE t1 JOIN t2 ON x, t3 SET a = 1 WHERE b ORDER BY c LIMIT 2")
            .and_then(|mut p| p.parse_statement())
            .expect("parses");
        let Statement::Update(update) = statement else {
            panic!("not an UPDATE: {statement}");
        };
        assert_eq!(update.table.to_string(), "t1 JOIN t2 ON x");
        assert!(matches!(&update.from, Some(UpdateTableFromKind::BeforeSet(t)) if t.len() == 1));
        assert_eq!(update.order_by.len(), 1);
        assert!(update.limit.is_some() && update.selection.is_some());
    }

    #[test]
    fn mod_is_an_infix_operator() {
        let modulo = BinaryOperator::Modulo;
        assert_eq!(split("7 MOD -3"), ("7".into(), modulo.clone(), "-3".into()));
        assert_eq!(
            split("7.25 mod 0.5"),
            ("7.25".into(), modulo.clone(), "0.5".into())
        );
        assert_eq!(
            split("1 + 7 MOD 2 * 3"),
            ("1".into(), BinaryOperator::Plus, "7 % 2 * 3".into())
        );
        assert_eq!(split("MOD(7, 3) = 1").1, BinaryOperator::Eq);
    }
}
