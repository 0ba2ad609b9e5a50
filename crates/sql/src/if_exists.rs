//! MariaDB's IF [NOT] EXISTS clauses inside ALTER TABLE's operations and after RENAME
//! TABLE, which sqlparser does not read for MySQL (or reads for a few operations only). A
//! token pass takes them out before sqlparser parses the statement and remembers which
//! operation carried one (`alter_table`, `rename_table`); before an ALTER TABLE runs,
//! `runnable` leaves out each operation whose condition fails, with MariaDB's Note, as
//! MariaDB's `handle_if_exists_options` does. The same pass supplies two words MariaDB
//! makes optional and sqlparser requires: `RENAME [TO|AS] name` gets its TO, and `DROP
//! KEY` is read as its synonym `DROP INDEX`; and it reads two forms sqlparser does not
//! read for MySQL: `RENAME INDEX|KEY a TO b`, parsed as RENAME COLUMN and handed over as
//! `RenameConstraint`, and `ADD [COLUMN] (a INT, b INT)`, parsed as one ADD per item.
//! `ALTER ONLINE TABLE` is read as ALTER TABLE with LOCK=NONE.
//! Column types in ALTER TABLE and CREATE statements get one more edit (`create`):
//! `REAL(M,D)` and `DOUBLE PRECISION(M,D)`, which sqlparser reads only without (M,D),
//! are read as their synonym `DOUBLE(M,D)` (REAL is DOUBLE while sql_mode has no
//! REAL_AS_FLOAT).
//!
//! Invariants:
//! (1) A clause is taken out only where MariaDB's grammar has it (`clause_position`): IF
//!     NOT EXISTS after ADD [COLUMN], ADD {INDEX|KEY}, ADD {FULLTEXT|SPATIAL} [INDEX|KEY],
//!     ADD [CONSTRAINT [name]] {PRIMARY KEY | UNIQUE [INDEX|KEY] | FOREIGN KEY}, and ADD
//!     CONSTRAINT followed by a named CHECK; IF EXISTS after DROP [COLUMN], DROP
//!     {CONSTRAINT | INDEX | KEY | FOREIGN KEY}, CHANGE, MODIFY and ALTER [COLUMN], RENAME
//!     COLUMN, and RENAME TABLE. There an IF not followed by the rest of its clause is a
//!     syntax error at the first word that differs, as in MariaDB, where IF is reserved.
//! (2) Operations are separated by the commas outside parentheses, as sqlparser reads
//!     them (`parse_comma_separated`), so the n-th operation of the text is the n-th of the
//!     AST; a clause that lands on an operation that takes none is a syntax error.
//! (3) Removed tokens leave the others' spans as they were, so a syntax error still
//!     points into the statement's text.
//! (4) Conditions are decided against the table as the statement found it, before any
//!     operation runs, counting the statement's earlier operations as MariaDB does (ADD
//!     COLUMN: earlier ADD, CHANGE and MODIFY; a DROP: earlier DROPs of its kind; ADD KEY:
//!     earlier keys of its type, a foreign key's index too); the notes come in MariaDB's
//!     order: added columns, CHANGE/MODIFY, ALTER/RENAME COLUMN, drops, keys, CHECKs.

use crate::alter::{drop_target_exists, DropKind};
use crate::error::{Error, ErrorCode};
use crate::expr::SessionContext;
use crate::parse::{self, Statement};
use manycore_storage::TableSchema;
use sqlparser::ast;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};

/// ALTER TABLE as sqlparser reads it once its clauses are out.
#[derive(Clone, Debug)]
pub struct AlterTable {
    pub alter: ast::AlterTable,
    /// One per operation: whether it carried IF [NOT] EXISTS (its kind says which).
    pub conditional: Vec<bool>,
    /// The table options among the operations, applied with them.
    pub options: parse::TableOptions,
}

/// `ALTER TABLE ...`; None for any other statement.
pub(crate) fn alter_table(text: &str) -> Result<Option<Statement>, ParserError> {
    let tokens = Tokens::new(text)?;
    // MariaDB's `ALTER ONLINE TABLE`: LOCK=NONE, unless a LOCK clause says otherwise.
    let online = tokens.is(1, &["ONLINE"]);
    if !(tokens.is(0, &["ALTER"]) && tokens.is(1 + usize::from(online), &["TABLE"])) {
        return Ok(None);
    }
    let mut at = 2 + usize::from(online);
    let if_exists = tokens.is(at, &["IF"]) && tokens.is(at + 1, &["EXISTS"]);
    if if_exists {
        at += 2;
    }
    let name_at = at;
    at = tokens.after_name(at);
    // Operations that are only table options, which sqlparser does not read in ALTER
    // TABLE: taken out, with a comma that separated them, and read into `options`.
    let mut options = parse::TableOptions::default();
    let mut kept_operation = false;
    let mut edits = tokens.floating_synonyms();
    if online {
        edits.push(Edit::Remove(1));
    }
    // (operation ordinal, position of its IF)
    let mut clauses = Vec::new();
    // Ordinals of the RENAME INDEX|KEY operations, read as RENAME COLUMN.
    let mut index_renames = Vec::new();
    // The column list of an `ADD [COLUMN] [IF NOT EXISTS] (a INT, b INT)` being read: the
    // depth inside its parentheses and the position of its IF, if written. Its
    // parentheses are taken out and each of its items becomes an ADD of its own (with
    // the list's clause), as MariaDB adds them.
    let mut column_list: Option<(usize, Option<usize>)> = None;
    // Each item of such a list: its ordinal and the position of the comma or parenthesis
    // that ends it. MariaDB's grammar has no FIRST / AFTER there (`list_positions`).
    let mut list_items = Vec::new();
    let (mut ordinal, mut depth, mut operation_start) = (0, 0usize, true);
    while at < tokens.len() {
        if operation_start && column_list.is_none() {
            if let Some(end) = tokens.table_options(at, &mut options) {
                edits.extend((at..end).map(Edit::Remove));
                let comma_after = tokens.token(end).is_some_and(|t| t.token == Token::Comma);
                if kept_operation {
                    // The comma before it ends the operation kept before.
                    edits.push(Edit::Remove(at - 1));
                    ordinal -= 1;
                    // Its own comma (if any) is read as the end of an operation again.
                    at = end;
                    operation_start = false;
                } else if comma_after {
                    edits.push(Edit::Remove(end));
                    at = end + 1;
                } else {
                    at = end;
                }
                continue;
            }
            kept_operation = true;
        }
        if operation_start {
            operation_start = false;
            let mut if_at = None;
            if let Some(clause) = tokens.clause_position(at) {
                if tokens.clause(clause, &mut edits)? {
                    clauses.push((ordinal, clause.at));
                    if_at = Some(clause.at);
                }
            }
            tokens.optional_words(at, &mut edits);
            if tokens.is(at, &["RENAME"]) && tokens.is(at + 1, &["INDEX", "KEY"]) {
                edits.push(Edit::Replace(at + 1, "COLUMN"));
                index_renames.push(ordinal);
            }
            if let Some(open) = tokens.column_list_start(at) {
                edits.push(Edit::Remove(open));
                column_list = Some((depth + 1, if_at));
            }
        }
        match tokens.token(at).map(|t| &t.token) {
            Some(Token::LParen) => depth += 1,
            Some(Token::RParen) => {
                if column_list.is_some_and(|(list_depth, _)| list_depth == depth) {
                    edits.push(Edit::Remove(at));
                    list_items.push((ordinal, at));
                    column_list = None;
                }
                depth = depth.saturating_sub(1);
            }
            Some(Token::Comma) if depth == 0 => {
                ordinal += 1;
                operation_start = true;
            }
            Some(Token::Comma) => {
                if let Some((list_depth, if_at)) = column_list {
                    if list_depth == depth {
                        list_items.push((ordinal, at));
                        ordinal += 1;
                        edits.push(Edit::InsertBefore(at + 1, "ADD"));
                        clauses.extend(if_at.map(|if_at| (ordinal, if_at)));
                    }
                }
            }
            _ => {}
        }
        at += 1;
    }
    if online && options.lock.is_none() {
        options.lock = Some("NONE".to_string());
    }
    if !kept_operation {
        let table = Parser::new(&parse::DIALECT)
            .with_tokens_with_locations(tokens.slice(name_at, tokens.after_name(name_at)))
            .parse_object_name(false)?;
        return Ok(Some(Statement::AlterTableOptions {
            table,
            options,
            if_exists,
        }));
    }
    let statement = parse::only_statement(tokens.parser(&edits))?;
    let ast::Statement::AlterTable(mut alter) = statement else {
        return Ok(Some(Statement::Sql(Box::new(statement))));
    };
    for ordinal in index_renames {
        let Some(operation) = alter.operations.get_mut(ordinal) else {
            continue;
        };
        if let ast::AlterTableOperation::RenameColumn {
            old_column_name,
            new_column_name,
        } = operation
        {
            // sqlparser has no RENAME INDEX for MySQL; MariaDB has no RENAME CONSTRAINT,
            // so that operation stands for it (`alter::edit_index_names`).
            let rename = ast::AlterTableOperation::RenameConstraint {
                old_name: old_column_name.clone(),
                new_name: new_column_name.clone(),
            };
            *operation = rename;
        }
    }
    tokens.list_positions(&alter.operations, &list_items)?;
    let mut conditional = vec![false; alter.operations.len()];
    for (ordinal, if_at) in clauses {
        match alter.operations.get(ordinal) {
            Some(op) if takes_clause(op) => conditional[ordinal] = true,
            _ => return Err(tokens.unexpected(if_at, "an operation")),
        }
    }
    Ok(Some(Statement::AlterTable(Box::new(AlterTable {
        alter,
        conditional,
        options,
    }))))
}

/// `RENAME TABLE [IF EXISTS] a TO b, ...`; None for any other statement.
pub(crate) fn rename_table(text: &str) -> Result<Option<Statement>, ParserError> {
    let tokens = Tokens::new(text)?;
    if !(tokens.is(0, &["RENAME"]) && tokens.is(1, &["TABLE"])) {
        return Ok(None);
    }
    let mut edits = Vec::new();
    let clause = Clause {
        at: 2,
        not: false,
        named_check: false,
    };
    let if_exists = tokens.clause(clause, &mut edits)?;
    match parse::only_statement(tokens.parser(&edits))? {
        ast::Statement::RenameTable(pairs) => Ok(Some(Statement::RenameTable { pairs, if_exists })),
        other => Ok(Some(Statement::Sql(Box::new(other)))),
    }
}

/// A CREATE statement whose column types spell DOUBLE(M,D) as REAL(M,D) or DOUBLE
/// PRECISION(M,D), or CREATE FULLTEXT INDEX; None for any other statement, left to
/// sqlparser as it is.
pub(crate) fn create(text: &str) -> Result<Option<Statement>, ParserError> {
    let tokens = Tokens::new(text)?;
    if tokens.is(1, &["FULLTEXT"]) && tokens.is(2, &["INDEX"]) {
        return match parse::only_statement(tokens.parser(&[Edit::Remove(1)]))? {
            ast::Statement::CreateIndex(create) if create.using.is_none() => {
                Ok(Some(Statement::CreateFulltextIndex(Box::new(create))))
            }
            // `USING BTREE|HASH` with FULLTEXT is a syntax error in MariaDB.
            _ => Err(ParserError::ParserError(
                "USING with a FULLTEXT index".into(),
            )),
        };
    }
    let edits = tokens.floating_synonyms();
    if edits.is_empty() {
        return Ok(None);
    }
    let statement = parse::only_statement(tokens.parser(&edits))?;
    Ok(Some(Statement::Sql(Box::new(statement))))
}

/// Whether MariaDB's grammar lets `op` carry IF [NOT] EXISTS.
fn takes_clause(op: &ast::AlterTableOperation) -> bool {
    use ast::AlterTableOperation as O;
    matches!(
        op,
        O::AddColumn { .. }
            | O::ChangeColumn { .. }
            | O::ModifyColumn { .. }
            | O::AlterColumn { .. }
            | O::RenameColumn { .. }
            | O::DropColumn { .. }
            | O::DropIndex { .. }
            | O::DropForeignKey { .. }
            | O::DropConstraint { .. }
            | O::AddConstraint { .. }
    )
}

/// Where a clause may stand (invariant (1)).
#[derive(Clone, Copy)]
struct Clause {
    /// Position (among significant tokens) of its IF, if written.
    at: usize,
    /// IF NOT EXISTS rather than IF EXISTS.
    not: bool,
    /// ADD CONSTRAINT IF NOT EXISTS, which a name and CHECK must follow.
    named_check: bool,
}

/// A change to the token stream, at a position among the significant tokens.
enum Edit {
    Remove(usize),
    Replace(usize, &'static str),
    InsertBefore(usize, &'static str),
}

/// A statement's tokens, and which of them are not whitespace or comments: positions
/// below count those only.
struct Tokens {
    tokens: Vec<TokenWithSpan>,
    significant: Vec<usize>,
}

impl Tokens {
    fn new(text: &str) -> Result<Tokens, ParserError> {
        let tokens = Tokenizer::new(&parse::DIALECT, text).tokenize_with_location()?;
        let significant = (0..tokens.len())
            .filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
            .collect();
        Ok(Tokens {
            tokens,
            significant,
        })
    }

    fn len(&self) -> usize {
        self.significant.len()
    }

    fn token(&self, at: usize) -> Option<&TokenWithSpan> {
        self.significant.get(at).map(|&i| &self.tokens[i])
    }

    /// Whether the token at `at` is one of `words`, unquoted (any case).
    fn is(&self, at: usize, words: &[&str]) -> bool {
        self.token(at)
            .and_then(parse::word)
            .is_some_and(|w| words.contains(&w.as_str()))
    }

    fn is_name(&self, at: usize) -> bool {
        matches!(self.token(at).map(|t| &t.token), Some(Token::Word(_)))
    }

    /// The significant tokens from `from` up to `to`.
    fn slice(&self, from: usize, to: usize) -> Vec<TokenWithSpan> {
        (from..to.min(self.len()))
            .map(|at| self.tokens[self.significant[at]].clone())
            .collect()
    }

    /// If the operation starting at `start` is only table options, reads them into
    /// `options` and returns the position after it (its comma, or the end).
    fn table_options(&self, start: usize, options: &mut parse::TableOptions) -> Option<usize> {
        let end = (start..self.len())
            .find(|&at| {
                matches!(
                    self.token(at).map(|t| &t.token),
                    Some(Token::Comma | Token::LParen)
                )
            })
            .unwrap_or(self.len());
        if self.token(end).is_some_and(|t| t.token == Token::LParen) || end == start {
            return None; // Options have no parentheses.
        }
        let mut parser =
            Parser::new(&parse::DIALECT).with_tokens_with_locations(self.slice(start, end));
        let mut read = options.clone();
        parse::table_options(&mut parser, &mut read)?;
        *options = read;
        Some(end)
    }

    /// The position after a `name` or `db.name` at `at`.
    fn after_name(&self, mut at: usize) -> usize {
        at += 1;
        while matches!(self.token(at).map(|t| &t.token), Some(Token::Period)) {
            at += 2;
        }
        at
    }

    /// A syntax error at `at` (its location is what `parse::parse_error` reads).
    fn unexpected(&self, at: usize, expected: &str) -> ParserError {
        let message = match self.token(at) {
            Some(found) => format!(
                "Expected: {expected}, found: {}{}",
                found.token, found.span.start
            ),
            None => format!("Expected: {expected}, found: EOF"),
        };
        ParserError::ParserError(message)
    }

    /// Where the operation starting at `start` may carry its clause (invariant (1)).
    fn clause_position(&self, start: usize) -> Option<Clause> {
        let is = |at: usize, words: &[&str]| self.is(at, words);
        let exists = |at: usize| Clause {
            at,
            not: false,
            named_check: false,
        };
        let not_exists = |at: usize| Clause {
            at,
            not: true,
            named_check: false,
        };
        let after_column = |at: usize| if is(at, &["COLUMN"]) { at + 1 } else { at };
        let at = start + 1;
        if is(start, &["ADD"]) {
            if is(at, &["CONSTRAINT"]) {
                if is(at + 1, &["IF"]) {
                    return Some(Clause {
                        named_check: true,
                        ..not_exists(at + 1)
                    });
                }
                let name = !is(at + 1, &["PRIMARY", "UNIQUE", "FOREIGN", "CHECK"]);
                return self
                    .after_key_type(at + 1 + usize::from(name))
                    .map(not_exists);
            }
            if is(at, &["INDEX", "KEY"]) {
                return Some(not_exists(at + 1));
            }
            if is(at, &["FULLTEXT", "SPATIAL"]) {
                let key = is(at + 1, &["INDEX", "KEY"]);
                return Some(not_exists(at + 1 + usize::from(key)));
            }
            if let Some(after) = self.after_key_type(at) {
                return Some(not_exists(after));
            }
            if is(at, &["CHECK", "PARTITION", "PERIOD", "SYSTEM"]) {
                return None;
            }
            return Some(not_exists(after_column(at)));
        }
        if is(start, &["DROP"]) {
            if is(at, &["CONSTRAINT", "INDEX", "KEY"]) {
                return Some(exists(at + 1));
            }
            if is(at, &["FOREIGN"]) {
                return is(at + 1, &["KEY"]).then(|| exists(at + 2));
            }
            if is(at, &["PRIMARY", "CHECK", "PARTITION", "PERIOD", "SYSTEM"]) {
                return None;
            }
            return Some(exists(after_column(at)));
        }
        if is(start, &["CHANGE", "MODIFY"]) {
            return Some(exists(after_column(at)));
        }
        if is(start, &["ALTER"]) {
            return (!is(at, &["INDEX", "KEY"])).then(|| exists(after_column(at)));
        }
        if is(start, &["RENAME"]) && is(at, &["COLUMN"]) {
            return Some(exists(at + 1));
        }
        None
    }

    /// The position of the parenthesis of `ADD [COLUMN] [IF NOT EXISTS] (` at `start`, if
    /// the operation adds a parenthesised column list.
    fn column_list_start(&self, start: usize) -> Option<usize> {
        if !self.is(start, &["ADD"]) {
            return None;
        }
        let mut at = start + 1;
        if self.is(at, &["COLUMN"]) {
            at += 1;
        }
        if self.is(at, &["IF"]) {
            at += 3; // IF NOT EXISTS, checked by `clause`.
        }
        matches!(self.token(at).map(|t| &t.token), Some(Token::LParen)).then_some(at)
    }

    /// A syntax error at the FIRST or AFTER that sqlparser read as the position of a
    /// column of an `ADD (...)` list (`items`: each one's ordinal and end), where
    /// MariaDB's grammar has none. Such a position is the item's last words, `FIRST` or
    /// `AFTER name`, or follows the list's closing parenthesis.
    fn list_positions(
        &self,
        operations: &[ast::AlterTableOperation],
        items: &[(usize, usize)],
    ) -> Result<(), ParserError> {
        for &(ordinal, end) in items {
            let words = match operations.get(ordinal) {
                Some(ast::AlterTableOperation::AddColumn {
                    column_position: Some(position),
                    ..
                }) => match position {
                    ast::MySQLColumnPosition::First => 1,
                    ast::MySQLColumnPosition::After(_) => 2,
                },
                _ => continue,
            };
            let at = match self.is(end - words, &["FIRST", "AFTER"]) {
                true => end - words,
                false => end + 1,
            };
            return Err(self.unexpected(at, "a column option"));
        }
        Ok(())
    }

    /// The position after `PRIMARY KEY`, `UNIQUE [INDEX|KEY]` or `FOREIGN KEY` at `at`.
    fn after_key_type(&self, at: usize) -> Option<usize> {
        if self.is(at, &["PRIMARY", "FOREIGN"]) {
            return self.is(at + 1, &["KEY"]).then_some(at + 2);
        }
        if self.is(at, &["UNIQUE"]) {
            return Some(at + 1 + usize::from(self.is(at + 1, &["INDEX", "KEY"])));
        }
        None
    }

    /// Takes out the clause at `clause.at` if one is written there: whether it was.
    fn clause(&self, clause: Clause, edits: &mut Vec<Edit>) -> Result<bool, ParserError> {
        if !self.is(clause.at, &["IF"]) {
            return Ok(false);
        }
        let words: &[&str] = if clause.not {
            &["IF", "NOT", "EXISTS"]
        } else {
            &["IF", "EXISTS"]
        };
        for (offset, expected) in words.iter().enumerate().skip(1) {
            if !self.is(clause.at + offset, &[expected]) {
                return Err(self.unexpected(clause.at + offset, expected));
            }
        }
        if clause.named_check {
            let name = clause.at + words.len();
            let reserved = ["PRIMARY", "UNIQUE", "FOREIGN", "CHECK", "INDEX", "KEY"];
            if !self.is_name(name) || self.is(name, &reserved) {
                return Err(self.unexpected(name, "constraint name"));
            }
            if !self.is(name + 1, &["CHECK"]) {
                return Err(self.unexpected(name + 1, "CHECK"));
            }
        }
        edits.extend((0..words.len()).map(|offset| Edit::Remove(clause.at + offset)));
        Ok(true)
    }

    /// The words MariaDB lets an operation leave out or spell otherwise that sqlparser
    /// requires: TO in `RENAME [TO|AS] name`, INDEX for KEY in `DROP KEY`.
    fn optional_words(&self, start: usize, edits: &mut Vec<Edit>) {
        let at = start + 1;
        let other = ["TO", "AS", "COLUMN", "INDEX", "KEY"];
        if self.is(start, &["RENAME"]) && self.is_name(at) && !self.is(at, &other) {
            edits.push(Edit::InsertBefore(at, "TO"));
        }
        if self.is(start, &["DROP"]) && self.is(at, &["KEY"]) {
            edits.push(Edit::Replace(at, "INDEX"));
        }
    }

    /// `REAL (` becomes `DOUBLE (` and `DOUBLE PRECISION (` loses its PRECISION: sqlparser
    /// reads (M,D) after DOUBLE only. REAL and PRECISION are reserved words in MariaDB,
    /// so unquoted they name these types and nothing else.
    fn floating_synonyms(&self) -> Vec<Edit> {
        let mut edits = Vec::new();
        let opens = |at: usize| matches!(self.token(at).map(|t| &t.token), Some(Token::LParen));
        for at in 0..self.len() {
            if self.is(at, &["REAL"]) && opens(at + 1) {
                edits.push(Edit::Replace(at, "DOUBLE"));
            }
            if self.is(at, &["DOUBLE"]) && self.is(at + 1, &["PRECISION"]) && opens(at + 2) {
                edits.push(Edit::Remove(at + 1));
            }
        }
        edits
    }

    /// A parser over the tokens with `edits` applied; an inserted keyword takes the span
    /// of the token it precedes (invariant (3)).
    fn parser(&self, edits: &[Edit]) -> Parser<'static> {
        let mut tokens = self.tokens.clone();
        let mut edits: Vec<(usize, &Edit)> = edits
            .iter()
            .map(|edit| match edit {
                Edit::Remove(at) | Edit::Replace(at, _) | Edit::InsertBefore(at, _) => {
                    (self.significant[*at], edit)
                }
            })
            .collect();
        // From the end, so that each index is still where it was.
        edits.sort_by_key(|(index, _)| std::cmp::Reverse(*index));
        for (index, edit) in edits {
            match edit {
                Edit::Remove(_) => {
                    tokens.remove(index);
                }
                Edit::Replace(_, keyword) => tokens[index].token = Token::make_keyword(keyword),
                Edit::InsertBefore(_, keyword) => {
                    let span = tokens[index].span;
                    tokens.insert(
                        index,
                        TokenWithSpan::new(Token::make_keyword(keyword), span),
                    );
                }
            }
        }
        Parser::new(&parse::DIALECT).with_tokens_with_locations(tokens)
    }
}

/// The operations of `alter` that run: each conditional one whose condition fails against
/// `schema`, the table as the statement found it, is left out with its Note (invariant
/// (4)).
pub(crate) fn runnable(
    schema: &TableSchema,
    alter: &AlterTable,
    session: &dyn SessionContext,
) -> Vec<ast::AlterTableOperation> {
    let operations = &alter.alter.operations;
    let mut skipped = vec![false; operations.len()];
    for stage in STAGES {
        let mut earlier: Vec<Subject> = Vec::new();
        for (i, op) in operations.iter().enumerate() {
            let Some((subject, decided_here)) = subject(stage, op) else {
                continue;
            };
            if skipped[i] {
                continue;
            }
            if decided_here && alter.conditional[i] {
                if let Some(note) = failure(schema, &subject, &earlier) {
                    session.note(note.code, note.message);
                    skipped[i] = true;
                    continue;
                }
            }
            earlier.push(subject);
        }
    }
    operations
        .iter()
        .zip(skipped)
        .filter(|(_, skipped)| !skipped)
        .map(|(op, _)| op.clone())
        .collect()
}

/// The stages of MariaDB's checks, in its order (invariant (4)).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    AddColumn,
    ChangeColumn,
    AlterColumn,
    Drop,
    AddKey,
    AddCheck,
}

const STAGES: [Stage; 6] = [
    Stage::AddColumn,
    Stage::ChangeColumn,
    Stage::AlterColumn,
    Stage::Drop,
    Stage::AddKey,
    Stage::AddCheck,
];

/// What one stage looks at in an operation.
enum Subject {
    /// A column added (or named by CHANGE/MODIFY, which ADD COLUMN counts as earlier).
    NewColumn(String),
    /// A column that must exist.
    Column(String),
    Drop(DropKind, String),
    /// A key's type and the name MariaDB checks: its own, or PRIMARY for a primary key,
    /// or its first column's (None when that is an expression: never checked).
    Key(KeyType, Option<String>),
    Check(String),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum KeyType {
    Primary,
    Unique,
    Index,
    Fulltext,
    Spatial,
    Foreign,
}

/// `op`'s subject at `stage`, and whether that stage decides `op`'s own condition.
fn subject(stage: Stage, op: &ast::AlterTableOperation) -> Option<(Subject, bool)> {
    use ast::AlterTableOperation as O;
    use ast::TableConstraint as C;
    let name = |ident: &ast::Ident| ident.value.clone();
    Some(match (stage, op) {
        (Stage::AddColumn, O::AddColumn { column_def, .. }) => {
            (Subject::NewColumn(name(&column_def.name)), true)
        }
        (Stage::AddColumn, O::ChangeColumn { new_name, .. }) => {
            (Subject::NewColumn(name(new_name)), false)
        }
        (Stage::AddColumn, O::ModifyColumn { col_name, .. }) => {
            (Subject::NewColumn(name(col_name)), false)
        }
        (Stage::ChangeColumn, O::ChangeColumn { old_name: c, .. })
        | (Stage::ChangeColumn, O::ModifyColumn { col_name: c, .. })
        | (Stage::AlterColumn, O::AlterColumn { column_name: c, .. })
        | (
            Stage::AlterColumn,
            O::RenameColumn {
                old_column_name: c, ..
            },
        ) => (Subject::Column(name(c)), true),
        (Stage::Drop, O::DropColumn { column_names, .. }) => {
            let column = column_names.first()?;
            (Subject::Drop(DropKind::Column, name(column)), true)
        }
        (Stage::Drop, O::DropIndex { name: n }) => (Subject::Drop(DropKind::Index, name(n)), true),
        (Stage::Drop, O::DropPrimaryKey { .. }) => {
            (Subject::Drop(DropKind::Index, "PRIMARY".into()), true)
        }
        (Stage::Drop, O::DropForeignKey { name: n, .. }) => {
            (Subject::Drop(DropKind::ForeignKey, name(n)), true)
        }
        (Stage::Drop, O::DropConstraint { name: n, .. }) => {
            (Subject::Drop(DropKind::Constraint, name(n)), true)
        }
        (Stage::AddKey, O::AddConstraint { constraint, .. }) => {
            let first = |columns: &[ast::IndexColumn]| match &columns.first()?.column.expr {
                ast::Expr::Identifier(column) => Some(name(column)),
                _ => None,
            };
            let key = match constraint {
                C::PrimaryKey(k) => (
                    KeyType::Primary,
                    Some(
                        k.index_name
                            .as_ref()
                            .or(k.name.as_ref())
                            .map_or("PRIMARY".into(), name),
                    ),
                ),
                C::Unique(k) => (
                    KeyType::Unique,
                    k.index_name
                        .as_ref()
                        .or(k.name.as_ref())
                        .map(name)
                        .or_else(|| first(&k.columns)),
                ),
                C::Index(k) => (
                    KeyType::Index,
                    k.name.as_ref().map(name).or_else(|| first(&k.columns)),
                ),
                C::FulltextOrSpatial(k) => (
                    if k.fulltext {
                        KeyType::Fulltext
                    } else {
                        KeyType::Spatial
                    },
                    k.opt_index_name
                        .as_ref()
                        .map(name)
                        .or_else(|| first(&k.columns)),
                ),
                C::ForeignKey(k) => (
                    KeyType::Foreign,
                    k.index_name
                        .as_ref()
                        .or(k.name.as_ref())
                        .or(k.columns.first())
                        .map(name),
                ),
                _ => return None,
            };
            (Subject::Key(key.0, key.1), true)
        }
        (
            Stage::AddCheck,
            O::AddConstraint {
                constraint: C::Check(c),
                ..
            },
        ) => (Subject::Check(c.name.as_ref().map(name)?), true),
        _ => return None,
    })
}

/// The Note that leaves out a conditional operation whose subject is `subject`, or None
/// if it runs.
fn failure(schema: &TableSchema, subject: &Subject, earlier: &[Subject]) -> Option<Error> {
    let same = |a: &str, b: &str| a.eq_ignore_ascii_case(b);
    match subject {
        Subject::NewColumn(column) => {
            let added = earlier
                .iter()
                .any(|e| matches!(e, Subject::NewColumn(c) if same(c, column)));
            (schema.column_index(column).is_some() || added)
                .then(|| Error::duplicate_column(column))
        }
        Subject::Column(column) => schema
            .column_index(column)
            .is_none()
            .then(|| Error::bad_field(column, &schema.name)),
        Subject::Drop(kind, name) => {
            let exists = drop_target_exists(*kind, schema, name);
            let dropped = earlier
                .iter()
                .any(|e| matches!(e, Subject::Drop(k, n) if k == kind && same(n, name)));
            (!exists || dropped).then(|| Error::cant_drop(kind.words(), name))
        }
        Subject::Key(KeyType::Primary, _) if schema.primary_key.is_some() => Some(Error::new(
            ErrorCode::DupKeyName,
            "Multiple primary key defined",
        )),
        Subject::Key(_, None) => None,
        Subject::Key(key_type, Some(name)) => {
            let exists = match key_type {
                KeyType::Foreign => schema.foreign_keys.iter().any(|fk| same(&fk.name, name)),
                _ => has_key(schema, name),
            };
            // A foreign key also adds an index of its name.
            let added = earlier.iter().any(|e| {
                matches!(e, Subject::Key(t, Some(n))
                    if same(n, name)
                        && (t == key_type
                            || (*t == KeyType::Foreign && *key_type == KeyType::Index)))
            });
            (exists || added).then(|| Error::duplicate_key(name))
        }
        Subject::Check(name) => {
            let taken = schema
                .checks
                .iter()
                .any(|k| !k.column_level && same(&k.name, name));
            taken.then(|| Error::duplicate_check(name))
        }
    }
}

/// Whether the table has a key named `name` (its primary key is PRIMARY): what CREATE
/// INDEX IF NOT EXISTS and DROP INDEX IF EXISTS check too.
pub(crate) fn has_key(schema: &TableSchema, name: &str) -> bool {
    (schema.primary_key.is_some() && name.eq_ignore_ascii_case("PRIMARY"))
        || schema.has_index_named(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The operations of an ALTER TABLE as sqlparser prints them, and which carried a
    /// clause.
    fn alter(text: &str) -> Vec<(String, bool)> {
        match crate::parse::parse(text, 1) {
            Ok(Statement::AlterTable(a)) => a
                .alter
                .operations
                .iter()
                .map(ToString::to_string)
                .zip(a.conditional.iter().copied())
                .collect(),
            other => panic!("{text}: {other:?}"),
        }
    }

    fn near(text: &str) -> String {
        let message = crate::parse::parse(text, 1).expect_err(text).message;
        let at = message.find("near '").expect("a 1064") + 6;
        message[at..]
            .split("' at line")
            .next()
            .unwrap_or_default()
            .to_string()
    }

    #[test]
    fn clauses_are_taken_out_where_mariadb_allows_them() {
        for (text, operation) in [
            (
                "ALTER TABLE t ADD COLUMN IF NOT EXISTS b INT",
                "ADD COLUMN b INT",
            ),
            (
                "alter table t add if not exists b int first",
                "ADD b INT FIRST",
            ),
            (
                "ALTER TABLE t ADD INDEX IF NOT EXISTS k (b)",
                "ADD INDEX k (b)",
            ),
            ("ALTER TABLE t ADD KEY IF NOT EXISTS (b)", "ADD KEY (b)"),
            (
                "ALTER TABLE t ADD UNIQUE KEY IF NOT EXISTS k (b)",
                "ADD UNIQUE KEY k (b)",
            ),
            (
                "ALTER TABLE t ADD CONSTRAINT c UNIQUE IF NOT EXISTS (b)",
                "ADD CONSTRAINT c UNIQUE (b)",
            ),
            (
                "ALTER TABLE t ADD PRIMARY KEY IF NOT EXISTS (a)",
                "ADD PRIMARY KEY (a)",
            ),
            (
                "ALTER TABLE t ADD FOREIGN KEY IF NOT EXISTS f (b) REFERENCES p (a)",
                "ADD FOREIGN KEY f (b) REFERENCES p(a)",
            ),
            (
                "ALTER TABLE t ADD CONSTRAINT IF NOT EXISTS c CHECK (a > 0)",
                "ADD CONSTRAINT c CHECK (a > 0)",
            ),
            ("ALTER TABLE t DROP IF EXISTS b", "DROP b"),
            ("ALTER TABLE t DROP COLUMN IF EXISTS b", "DROP COLUMN b"),
            ("ALTER TABLE t DROP INDEX IF EXISTS k", "DROP INDEX k"),
            ("ALTER TABLE t DROP KEY IF EXISTS k", "DROP INDEX k"),
            (
                "ALTER TABLE t DROP FOREIGN KEY IF EXISTS f",
                "DROP FOREIGN KEY f",
            ),
            (
                "ALTER TABLE t DROP CONSTRAINT IF EXISTS c",
                "DROP CONSTRAINT c",
            ),
            (
                "ALTER TABLE t CHANGE IF EXISTS a b INT",
                "CHANGE COLUMN a b INT",
            ),
            (
                "ALTER TABLE t MODIFY COLUMN IF EXISTS a INT",
                "MODIFY COLUMN a INT",
            ),
            (
                "ALTER TABLE t ALTER IF EXISTS a SET DEFAULT 1",
                "ALTER COLUMN a SET DEFAULT 1",
            ),
            (
                "ALTER TABLE t RENAME COLUMN IF EXISTS a TO b",
                "RENAME COLUMN a TO b",
            ),
        ] {
            assert_eq!(alter(text), [(operation.to_string(), true)], "{text}");
        }
    }

    #[test]
    fn each_clause_belongs_to_its_operation() {
        let operations = alter(
            "ALTER TABLE d.t ADD c ENUM('x', 'y'), DROP IF EXISTS b, \
             ADD INDEX k (a, b), MODIFY IF EXISTS a INT",
        );
        let conditional: Vec<bool> = operations.iter().map(|(_, c)| *c).collect();
        assert_eq!(conditional, [false, true, false, true]);
    }

    #[test]
    fn optional_words_are_supplied() {
        assert_eq!(
            alter("ALTER TABLE t RENAME t2"),
            [("RENAME TO t2".into(), false)]
        );
        assert_eq!(
            alter("ALTER TABLE t RENAME d.`column`"),
            [("RENAME TO d.`column`".into(), false)]
        );
        assert_eq!(
            alter("ALTER TABLE t DROP KEY k"),
            [("DROP INDEX k".into(), false)]
        );
    }

    #[test]
    fn a_parenthesised_column_list_is_one_add_per_item() {
        assert_eq!(
            alter("ALTER TABLE t ADD COLUMN IF NOT EXISTS (a DECIMAL(5,2), b INT), DROP c"),
            [
                ("ADD COLUMN a DECIMAL(5,2)".into(), true),
                ("ADD b INT".into(), true),
                ("DROP c".into(), false),
            ]
        );
        assert_eq!(
            alter("ALTER TABLE t ADD (a VARCHAR(3), INDEX k (a))"),
            [
                ("ADD a VARCHAR(3)".into(), false),
                ("ADD INDEX k (a)".into(), false),
            ]
        );
    }

    /// MariaDB's list items are column and key definitions: a position is a syntax error
    /// where it is written, inside the list or after it.
    #[test]
    fn a_column_list_takes_no_positions() {
        assert_eq!(near("ALTER TABLE t ADD (f INT FIRST)"), "FIRST)");
        assert_eq!(
            near("ALTER TABLE t ADD (f INT AFTER a, g INT)"),
            "AFTER a, g INT)"
        );
        assert_eq!(
            near("ALTER TABLE t ADD COLUMN (f INT, g INT) FIRST"),
            "FIRST"
        );
        assert_eq!(
            alter("ALTER TABLE t ADD (first INT, g INT)"),
            [("ADD first INT".into(), false), ("ADD g INT".into(), false)]
        );
    }

    #[test]
    fn rename_table_if_exists() {
        match crate::parse::parse("RENAME TABLE IF EXISTS a TO b, c TO d", 1) {
            Ok(Statement::RenameTable { pairs, if_exists }) => {
                assert!(if_exists);
                assert_eq!(pairs.len(), 2);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            crate::parse::parse("rename table a to b", 1),
            Ok(Statement::RenameTable {
                if_exists: false,
                ..
            })
        ));
    }

    /// MariaDB's "near" for clauses it rejects (IF is reserved there).
    #[test]
    fn misplaced_clauses_are_syntax_errors_where_mariadb_says() {
        for (text, rest) in [
            ("ALTER TABLE t ADD COLUMN IF EXISTS b INT", "EXISTS b INT"),
            ("ALTER TABLE t DROP COLUMN IF NOT EXISTS b", "NOT EXISTS b"),
            ("ALTER TABLE t DROP INDEX IF b", "b"),
            (
                "ALTER TABLE t MODIFY IF NOT EXISTS b INT",
                "NOT EXISTS b INT",
            ),
            (
                "ALTER TABLE t ADD CONSTRAINT IF NOT EXISTS x UNIQUE (b)",
                "UNIQUE (b)",
            ),
            (
                "ALTER TABLE t ADD CONSTRAINT IF NOT EXISTS CHECK (b > 0)",
                "CHECK (b > 0)",
            ),
            ("ALTER TABLE t ADD CONSTRAINT IF NOT EXISTS x", ""),
            ("ALTER TABLE t ADD COLUMN IF NOT EXISTS", ""),
            ("RENAME TABLE IF NOT EXISTS v TO v2", "NOT EXISTS v TO v2"),
            ("RENAME TABLE v TO v2 IF EXISTS", "IF EXISTS"),
            ("ALTER TABLE t ADD INDEX IF NOT EXISTS k (b) IF", "IF"),
        ] {
            assert_eq!(near(text), rest, "{text}");
        }
    }
}
