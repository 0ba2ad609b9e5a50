//! Splitting a COM_QUERY into statements, and MySQL executable comments.
//!
//! A byte scanner that knows the lexical states in which `;` does not end a statement:
//! 'single' and "double" quoted strings (backslash escapes and doubled quotes), `backtick`
//! identifiers, and `-- `, `#` and `/* */` comments. Executable comments `/*!NNNNN ...*/`
//! and `/*M!NNNNNN ...*/` (what mariadb-dump emits) are code when the version number is
//! at most ours: their markers are blanked with spaces and their content kept. A blanked
//! marker keeps every byte offset, so parser error positions still point into the text
//! the client sent.
//!
//! Invariants:
//! (1) Each piece's `text` has the same length as the slice of the query it came from.
//! (2) Pieces that contain only whitespace and comments are dropped.
//! (3) In a CREATE ... TRIGGER, PROCEDURE or FUNCTION, a `;` inside a compound statement
//!     of the body (BEGIN ... END, IF ... END IF, ...: `Block`) does not end the piece.

/// Our version as executable comments compare it (10.11.99 -> 101199).
pub const VERSION_NUMBER: u32 = 101199;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece {
    /// The statement with executable-comment markers blanked (invariant (1)).
    pub text: String,
    /// Line of the query on which the statement starts (1-based).
    pub line: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Code,
    Quote(u8),
    LineComment,
    BlockComment,
}

/// Splits `query` at top-level semicolons.
pub fn split(query: &str) -> Vec<Piece> {
    let bytes = query.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut pieces = Vec::new();
    let mut state = State::Code;
    let mut has_code = false;
    let mut start_line = 1;
    let mut line = 1;
    // Depth of open executable comments whose closing `*/` must be blanked.
    let mut executable_open = 0usize;
    // The words of the current piece that tell a stored program's BEGIN ... END body,
    // whose `;` do not end the statement (invariant (3)).
    let mut block = Block::default();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let next = bytes.get(i + 1).copied();
        if c == b'\n' {
            line += 1;
        }
        match state {
            State::Code => match c {
                b'\'' | b'"' | b'`' => {
                    state = State::Quote(c);
                    has_code = true;
                    out.push(c);
                }
                b'#' => {
                    state = State::LineComment;
                    out.push(c);
                }
                b'-' if next == Some(b'-')
                    && bytes
                        .get(i + 2)
                        .is_none_or(|b| b.is_ascii_whitespace() || *b < 32) =>
                {
                    state = State::LineComment;
                    out.push(c);
                }
                b'/' if next == Some(b'*') => {
                    if let Some((marker_len, version)) = executable_marker(&bytes[i..]) {
                        if version.is_none_or(|v| v <= VERSION_NUMBER) {
                            out.extend(std::iter::repeat_n(b' ', marker_len));
                            executable_open += 1;
                            i += marker_len;
                            continue;
                        }
                    }
                    state = State::BlockComment;
                    out.extend_from_slice(b"/*");
                    i += 2;
                    continue;
                }
                b'*' if next == Some(b'/') && executable_open > 0 => {
                    executable_open -= 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                    continue;
                }
                b';' if block.is_open() => {
                    block.symbol(c);
                    out.push(c);
                }
                b';' => {
                    if has_code {
                        pieces.push(piece(&out, start_line));
                    }
                    out.clear();
                    has_code = false;
                    start_line = line;
                    block = Block::default();
                }
                _ if c.is_ascii_alphabetic()
                    && !out
                        .last()
                        .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_') =>
                {
                    let end = i + bytes[i..]
                        .iter()
                        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                        .count();
                    block.word(&bytes[i..end]);
                    has_code = true;
                    out.extend_from_slice(&bytes[i..end]);
                    i = end;
                    continue;
                }
                _ => {
                    if !c.is_ascii_whitespace() {
                        has_code = true;
                    }
                    block.symbol(c);
                    out.push(c);
                }
            },
            State::Quote(q) => {
                out.push(c);
                if c == b'\\' && q != b'`' {
                    if let Some(n) = next {
                        out.push(n);
                        if n == b'\n' {
                            line += 1;
                        }
                        i += 2;
                        continue;
                    }
                } else if c == q {
                    if next == Some(q) {
                        out.push(q);
                        i += 2;
                        continue;
                    }
                    state = State::Code;
                }
            }
            State::LineComment => {
                out.push(c);
                if c == b'\n' {
                    state = State::Code;
                }
            }
            State::BlockComment => {
                out.push(c);
                if c == b'*' && next == Some(b'/') {
                    out.push(b'/');
                    state = State::Code;
                    i += 2;
                    continue;
                }
            }
        }
        i += 1;
    }
    if has_code {
        pieces.push(piece(&out, start_line));
    }
    pieces
}

/// Tracks the compound statements (BEGIN ... END, IF ... END IF, LOOP, WHILE, REPEAT,
/// FOR, CASE) and CASE expressions in the body of a CREATE ... TRIGGER, PROCEDURE or
/// FUNCTION (whose body starts after its parameter list, a function's RETURNS type, and
/// the characteristics): IF, REPEAT and FOR open a statement only where a statement
/// starts (elsewhere they are the IF() and REPEAT() functions, CURSOR FOR, FOR UPDATE,
/// FOR EACH ROW...); END closes the innermost one, and its IF, LOOP ... word opens nothing.
#[derive(Default)]
struct Block {
    words: usize,
    create: bool,
    /// TRIGGER, PROCEDURE or FUNCTION was seen: a body follows.
    program: bool,
    /// FUNCTION was seen: RETURNS and a type follow the parameter list.
    function: bool,
    /// In a CREATE PROCEDURE or FUNCTION, the depth of parentheses before its body: the
    /// parameter list's; None once the list closed.
    parameters: Option<usize>,
    /// In a function's RETURNS clause and characteristics: no word there opens a block,
    /// and the body's first word starts a statement.
    returns: bool,
    /// What is open, innermost last: true for a CASE expression, inside which THEN and
    /// ELSE start no statement.
    open: Vec<bool>,
    /// The next word starts a statement.
    statement_start: bool,
    /// The previous word was END.
    after_end: bool,
    /// The previous word was FOLLOWS or PRECEDES: the next one is a trigger's name.
    ordering: bool,
}

impl Block {
    fn is_open(&self) -> bool {
        !self.open.is_empty()
    }

    /// Sees a character of code that is not part of a word.
    fn symbol(&mut self, c: u8) {
        if let Some(depth) = self.parameters {
            self.parameters = match c {
                b'(' => Some(depth + 1),
                b')' if depth == 1 => {
                    self.statement_start = true;
                    self.returns = self.function;
                    None
                }
                b')' => Some(depth.saturating_sub(1)),
                _ => Some(depth),
            };
            return;
        }
        // A type's `(30)` or `(8,2)`, or a label's `:` before the body.
        if self.returns {
            return;
        }
        if !c.is_ascii_whitespace() {
            self.statement_start = matches!(c, b';' | b':');
            self.after_end = false;
        }
    }

    /// Sees the next word of the piece.
    fn word(&mut self, word: &[u8]) {
        let is = |w: &str| word.eq_ignore_ascii_case(w.as_bytes());
        let one_of = |ws: &[&str]| ws.iter().any(|w| is(w));
        if self.words == 0 {
            self.create = is("CREATE");
        }
        self.words += 1;
        if !self.create {
            return;
        }
        if !self.program {
            self.function = is("FUNCTION");
            self.program = is("TRIGGER") || is("PROCEDURE") || self.function;
            if is("PROCEDURE") || self.function {
                self.parameters = Some(0);
            }
            return;
        }
        if self.parameters.is_some() {
            return;
        }
        // The words of a type and of characteristics open no block; the body's first
        // word that may open one ends the clause.
        if self.returns {
            if !one_of(&["BEGIN", "LOOP", "WHILE", "IF", "REPEAT", "CASE", "FOR"]) {
                return;
            }
            self.returns = false;
        }
        // A procedure's characteristics come before its body's first statement.
        if self.statement_start && self.open.is_empty() && one_of(&CHARACTERISTIC_WORDS) {
            return;
        }
        if std::mem::take(&mut self.after_end)
            && one_of(&["IF", "WHILE", "LOOP", "CASE", "REPEAT", "FOR"])
        {
            self.statement_start = false;
            return;
        }
        if std::mem::take(&mut self.ordering) {
            return;
        }
        let start = self.statement_start;
        // FOR opens a loop only where a statement starts (not CURSOR FOR, FOR UPDATE...).
        if one_of(&["BEGIN", "LOOP", "WHILE"]) || start && one_of(&["IF", "REPEAT", "FOR"]) {
            self.open.push(false);
        } else if is("CASE") {
            self.open.push(!start);
        } else if is("END") {
            self.open.pop();
            self.after_end = true;
        }
        let in_case_expression = self.open.last() == Some(&true);
        self.statement_start = one_of(&["BEGIN", "DO", "LOOP", "REPEAT", "ROW"])
            || !in_case_expression && one_of(&["THEN", "ELSE"]);
        self.ordering = one_of(&["FOLLOWS", "PRECEDES"]);
        if self.ordering {
            self.statement_start = true;
        }
    }
}

/// The words of CREATE PROCEDURE's characteristics (COMMENT's string is not a word).
const CHARACTERISTIC_WORDS: [&str; 13] = [
    "LANGUAGE",
    "SQL",
    "NOT",
    "DETERMINISTIC",
    "CONTAINS",
    "NO",
    "READS",
    "MODIFIES",
    "DATA",
    "SECURITY",
    "DEFINER",
    "INVOKER",
    "COMMENT",
];

/// Whether `split(query)` is exactly one piece equal to `query`, starting on line 1: the
/// query starts with a letter and has no `;` and nothing that may start a comment.
/// Conservative: a `;` or `#` inside a string also says no.
pub fn is_single_statement(query: &str) -> bool {
    let b = query.as_bytes();
    b.first().is_some_and(u8::is_ascii_alphabetic)
        && !b.iter().any(|&c| matches!(c, b';' | b'#' | b'/' | b'-'))
}

fn piece(bytes: &[u8], line: usize) -> Piece {
    // Splitting happens only at ASCII bytes, so each piece is valid UTF-8.
    let text = String::from_utf8_lossy(bytes).into_owned();
    Piece { text, line }
}

/// `/*!NNNNN` or `/*M!NNNNNN` (digits optional): marker length and version.
fn executable_marker(bytes: &[u8]) -> Option<(usize, Option<u32>)> {
    let prefix = if bytes.starts_with(b"/*!") {
        3
    } else if bytes.starts_with(b"/*M!") {
        4
    } else {
        return None;
    };
    let digits = bytes[prefix..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    let version = match digits {
        5 | 6 => std::str::from_utf8(&bytes[prefix..prefix + digits])
            .ok()
            .and_then(|d| d.parse().ok()),
        _ => None,
    };
    let used = if version.is_some() { digits } else { 0 };
    Some((prefix + used, version))
}

/// True if `text` holds only whitespace and comments.
pub fn is_blank(text: &str) -> bool {
    split(text).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compound_trigger_bodies_keep_their_semicolons() {
        let one = |query: &str| {
            let pieces = split(query);
            assert_eq!(pieces.len(), 2, "{pieces:?}");
            assert_eq!(pieces[1].text.trim(), "SELECT 1");
        };
        one(
            "CREATE TRIGGER t BEFORE INSERT ON t FOR EACH ROW IF NEW.a THEN SET @a = 1; \
             ELSEIF IF(NEW.a, 1, 0) THEN SET @a = REPEAT('x', 2); END IF; SELECT 1",
        );
        one(
            "CREATE TRIGGER t BEFORE INSERT ON t FOR EACH ROW a: LOOP LEAVE a; END LOOP a; \
             SELECT 1",
        );
        one("CREATE TRIGGER t BEFORE INSERT ON t FOR EACH ROW BEGIN \
             SET @x = CASE WHEN 1 THEN IF(1, 2, 3) ELSE 4 END; SET @y = 2; \
             CASE @x WHEN 1 THEN SET @z = 1; ELSE BEGIN END; END CASE; \
             REPEAT SET @y = @y - 1; UNTIL @y < 0 END REPEAT; \
             WHILE @y < 3 DO SET @y = @y + 1; END WHILE; END; SELECT 1");
        one(
            "CREATE TRIGGER t BEFORE INSERT ON t FOR EACH ROW FOLLOWS u IF 1 THEN \
             SET @a = 1; END IF; SELECT 1",
        );
        one(
            "CREATE DEFINER=`u`@`%` PROCEDURE p(IN a VARCHAR(3), OUT b DECIMAL(5, 2)) \
             BEGIN SELECT a; IF a THEN SET b = 1; END IF; END; SELECT 1",
        );
        one(
            "CREATE PROCEDURE p() COMMENT 'x;' NOT DETERMINISTIC READS SQL DATA \
             IF 1 THEN SELECT 1; END IF; SELECT 1",
        );
        one("CREATE PROCEDURE p() REPEAT SET @a = 1; UNTIL 1 END REPEAT; SELECT 1");
        one(
            "CREATE FUNCTION f(a INT) RETURNS DECIMAL(8,2) CHARSET latin1 READS SQL DATA \
             BEGIN DECLARE p DECIMAL(8,2); IF a THEN RETURN 1; END IF; RETURN p; END; SELECT 1",
        );
        one("CREATE FUNCTION f() RETURNS INT l: LOOP RETURN 1; END LOOP; SELECT 1");
        one("CREATE FUNCTION f() RETURNS INT FOR i IN 1..2 DO RETURN i; END FOR; SELECT 1");
        one("CREATE PROCEDURE p() BEGIN DECLARE c CURSOR FOR SELECT 1; \
             l: FOR i IN 1..2 DO FOR r IN c DO SET @a = r.a; END FOR; END FOR l; END; SELECT 1");
        one("CREATE TRIGGER t BEFORE INSERT ON t FOR EACH ROW \
             FOR r IN (SELECT a FROM u FOR UPDATE) DO SET @a = r.a; END FOR; SELECT 1");
        one("CREATE FUNCTION f() RETURNS INT IF 1 THEN RETURN 1; END IF; SELECT 1");
        let pieces = split("CREATE FUNCTION f() RETURNS INT RETURN 1; SELECT 1");
        assert_eq!(pieces.len(), 2, "{pieces:?}");
        // A one-statement body ends at its `;`.
        let pieces = split("CREATE PROCEDURE p(a INT) SELECT a; SELECT 1");
        assert_eq!(pieces.len(), 2, "{pieces:?}");
    }

    #[test]
    fn a_trigger_body_keeps_its_semicolons() {
        let query = "CREATE TRIGGER t1 BEFORE INSERT ON t FOR EACH ROW BEGIN SET NEW.a = 1; \
                     IF NEW.a THEN SET @x = 'end;'; END IF; END; SELECT 1; \
                     SELECT 'BEGIN'; SELECT 2";
        let texts: Vec<String> = split(query).into_iter().map(|p| p.text).collect();
        assert_eq!(texts.len(), 4, "{texts:?}");
        assert!(texts[0].ends_with("END IF; END"), "{texts:?}");
        assert_eq!(texts[1].trim(), "SELECT 1");
        assert_eq!(texts[2].trim(), "SELECT 'BEGIN'");
        // Outside CREATE ... TRIGGER, BEGIN starts a transaction: `;` ends it.
        assert_eq!(split("BEGIN; SELECT 1").len(), 2);
    }

    #[test]
    fn single_statements_are_what_split_would_return() {
        for q in [
            "SELECT c FROM sbtest1 WHERE id=5",
            "select 'a b'\n  FROM t\n",
            "UPDATE t SET k=k+1 WHERE id=1 ",
            "DO 0",
        ] {
            assert!(is_single_statement(q), "{q}");
            assert_eq!(
                split(q),
                vec![Piece {
                    text: q.to_string(),
                    line: 1
                }],
                "{q}"
            );
        }
        for q in [
            "",
            " SELECT 1",
            "SELECT 1;",
            "SELECT 1 -- c",
            "SELECT /*!1 */ 1",
            "#c",
        ] {
            assert!(!is_single_statement(q), "{q}");
        }
    }

    fn texts(q: &str) -> Vec<String> {
        split(q)
            .into_iter()
            .map(|p| p.text.trim().to_string())
            .collect()
    }

    #[test]
    fn splits_respecting_quotes_and_comments() {
        assert_eq!(texts("select 1; select 2;"), ["select 1", "select 2"]);
        assert_eq!(
            texts("select ';'; select \"a;\\\"b\""),
            ["select ';'", "select \"a;\\\"b\""]
        );
        assert_eq!(
            texts("select `a;b` from t -- x;y\n; #c;\n"),
            ["select `a;b` from t -- x;y"]
        );
        assert_eq!(
            texts("/* a; */ select 1 /* b; */"),
            ["/* a; */ select 1 /* b; */"]
        );
        assert_eq!(texts("select 'it''s;'"), ["select 'it''s;'"]);
        assert!(split("  ;  -- nothing\n").is_empty());
        let lines: Vec<usize> = split("select 1;\nselect 2")
            .iter()
            .map(|p| p.line)
            .collect();
        assert_eq!(lines, [1, 1]);
    }

    #[test]
    fn executable_comments_become_code() {
        assert_eq!(
            texts("/*!40101 SET NAMES utf8mb4 */;/*M!200000 SET x=1 */"),
            ["SET NAMES utf8mb4"]
        );
        assert_eq!(
            texts("SHOW /*!50002 GLOBAL */ STATUS"),
            ["SHOW          GLOBAL    STATUS"]
        );
        assert_eq!(texts("/*M!100101 SET a=1 */"), ["SET a=1"]);
        let q = "CREATE TABLE t (a int) /*! ENGINE = innodb */";
        assert_eq!(split(q)[0].text.len(), q.len());
    }
}
