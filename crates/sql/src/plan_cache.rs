//! The text-protocol plan cache: a session's COM_QUERY statements that differ only in
//! their literals share one bound plan, so a repeated `SELECT c FROM t WHERE id=42` is
//! neither parsed nor bound again.
//!
//! A statement's *key* is its text with each integer and plain string literal replaced by
//! `?` (the *template*), followed by a NUL and one class byte per replaced literal; the
//! literals become the values of those `?`, as if the client had prepared the template
//! and executed it with them. MariaDB types a parameter by the value bound to it, so the
//! classes in the key are exactly what the bound plan depends on (`scope::Parameters`).
//!
//! Which statements may use a template is decided once per key, by binding both the
//! statement as written and its template (`Session::execute`): the template is used only
//! if both bind, every replaced literal became a parameter, the plan does not depend on
//! the literals' text (`scope::Parameters::literal_dependent`: an ORDER BY or GROUP BY
//! item that is a bare parameter, where a literal is a column position, or WITH ROLLUP), and
//! the result columns are identical (a literal in the select list names its column and
//! sets its type). Otherwise the key is remembered as uncacheable and such statements
//! take the ordinary path.
//!
//! Kept per session, not per worker: a plan depends on the current database, the
//! session's grants and the catalog, which are checked on every hit (`CachedPlan::is_fresh`),
//! and a session-local map needs no synchronization at all. Texts with comments, user or
//! system variables (`@`), a `?`, or more than `MAX_TEXT` bytes are never cached: the key
//! scanner does not look inside comments, variables can change the types a statement
//! binds to, and long texts (bulk INSERTs) rarely repeat.
//!
//! Invariants:
//! (1) Replacing each `?` of a template, in order, by the literal text its value came from
//!     gives back the statement's text: only whole literal tokens are replaced, and every
//!     other byte is copied.
//! (2) An entry's plan was bound under the catalog, `BindGeneration` and database it
//!     records; a hit with any of them changed is a miss.

use crate::engine::Counter;
use crate::parse::Statement;
use crate::query_text;
use crate::session::Bound;
use manycore_storage::Catalog;
use manycore_types::Value;
use std::sync::Arc;

/// Longest statement text the cache considers.
const MAX_TEXT: usize = 2048;
/// Most literals one statement may have replaced.
const MAX_LITERALS: usize = 64;
/// Entries per session; a full cache is emptied (the working set of an OLTP client is a
/// few dozen statement shapes; a client that keeps producing new ones gains nothing).
const MAX_ENTRIES: usize = 256;

/// Class bytes of the key, one per replaced literal.
const CLASS_INT: u8 = b'i';
const CLASS_STRING: u8 = b's';

/// What a bound plan depends on besides the catalog and the database: the grants it was
/// checked against and the temporary tables its names could resolve to (`temporary`
/// invariant (3)). A plan bound under another is bound again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BindGeneration {
    pub grants: u64,
    pub temporary: u64,
}

pub(crate) struct CachedPlan {
    pub bound: Bound,
    pub counter: Option<Counter>,
    /// Whether the statement clears the warning list before running (`uses_tables`).
    pub clears_warnings: bool,
    catalog: Arc<Catalog>,
    generation: BindGeneration,
    database: Option<String>,
}

impl CachedPlan {
    pub fn new(
        bound: Bound,
        counter: Option<Counter>,
        clears_warnings: bool,
        catalog: Arc<Catalog>,
        generation: BindGeneration,
        database: Option<String>,
    ) -> CachedPlan {
        CachedPlan {
            bound,
            counter,
            clears_warnings,
            catalog,
            generation,
            database,
        }
    }

    /// Invariant (2). Holding `catalog` keeps the pointer comparison sound: the catalog the
    /// plan was bound under cannot be freed and its address reused while this entry lives.
    pub fn is_fresh(
        &self,
        catalog: &Arc<Catalog>,
        generation: BindGeneration,
        database: Option<&str>,
    ) -> bool {
        Arc::ptr_eq(&self.catalog, catalog)
            && self.generation == generation
            && self.database.as_deref() == database
    }
}

enum Entry {
    Plan(Arc<CachedPlan>),
    /// The template was tried and does not behave like the statement, or the statement
    /// is not plannable (SET, DO, SHOW, ...): such texts are parsed and run as written.
    /// The last one parsed is kept, so the same text again (`DO 0`, `COMMIT`) skips the
    /// parser; parsing depends on nothing but the text.
    Uncacheable(Option<(Box<str>, Arc<Statement>)>),
}

pub(crate) enum Lookup {
    Hit(Arc<CachedPlan>),
    Miss,
    /// Uncacheable; with the parsed statement if the text is the one last parsed.
    Uncacheable(Option<Arc<Statement>>),
}

#[derive(Default)]
pub(crate) struct TextPlans {
    /// foldhash (randomly seeded), not SipHash: keys are client text, but the map holds at
    /// most `MAX_ENTRIES` of one session's own keys, so keys made to collide slow down
    /// only the session that sent them.
    entries: foldhash::HashMap<String, Entry>,
    /// The key of the statement last normalized; reused, so a hit allocates no key.
    key: String,
    /// Length of the template at the start of `key`.
    template_len: usize,
    /// The replaced literals of the statement last normalized, in order.
    values: Vec<Value>,
}

impl TextPlans {
    /// Computes the key and literal values of `text`; false if `text` is never cached.
    pub fn normalize(&mut self, text: &str) -> bool {
        self.key.clear();
        self.values.clear();
        match template(text, &mut self.key, &mut self.values) {
            Some(template_len) => {
                self.template_len = template_len;
                true
            }
            None => false,
        }
    }

    /// Looks up the key of the last `normalize`, whose text was `text`.
    pub fn lookup(&self, text: &str) -> Lookup {
        match self.entries.get(&self.key) {
            Some(Entry::Plan(plan)) => Lookup::Hit(plan.clone()),
            Some(Entry::Uncacheable(parsed)) => Lookup::Uncacheable(
                parsed
                    .as_ref()
                    .filter(|(parsed_text, _)| **parsed_text == *text)
                    .map(|(_, statement)| Arc::clone(statement)),
            ),
            None => Lookup::Miss,
        }
    }

    /// Keeps `statement`, parsed from `text`, with the last normalized key if that key is
    /// uncacheable.
    pub fn remember_parse(&mut self, text: &str, statement: &Arc<Statement>) {
        if let Some(Entry::Uncacheable(parsed)) = self.entries.get_mut(&self.key) {
            *parsed = Some((text.into(), Arc::clone(statement)));
        }
    }

    /// The template of the last `normalize`.
    pub fn template(&self) -> &str {
        &self.key[..self.template_len]
    }

    pub fn values(&self) -> &[Value] {
        &self.values
    }

    /// Hands the last statement's values to its execution; `restore_values` gives the
    /// buffer back so its capacity is reused.
    pub fn take_values(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.values)
    }

    pub fn restore_values(&mut self, mut values: Vec<Value>) {
        values.clear();
        self.values = values;
    }

    /// Remembers the last normalized key's plan (None: uncacheable).
    pub fn insert(&mut self, plan: Option<Arc<CachedPlan>>) {
        if self.entries.len() >= MAX_ENTRIES {
            self.entries.clear();
        }
        let entry = match plan {
            Some(plan) => Entry::Plan(plan),
            None => Entry::Uncacheable(None),
        };
        self.entries.insert(self.key.clone(), entry);
    }

    /// Forgets the last normalized key (its plan went stale).
    pub fn remove(&mut self) {
        self.entries.remove(&self.key);
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

fn is_word_byte(b: u8) -> bool {
    WORD_BYTES[usize::from(b)]
}

/// Bytes that belong to words: ASCII letters and digits, `_`, `$` and every byte of a
/// non-ASCII character. A table, because every byte of every COM_QUERY is classified.
const WORD_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80;
        b += 1;
    }
    table
};

/// Writes the key of `text` (module notes) into `key` and the replaced literals into
/// `values`; returns the template's length, or None if `text` is never cached.
fn template(text: &str, key: &mut String, values: &mut Vec<Value>) -> Option<usize> {
    let b = text.as_bytes();
    if b.len() > MAX_TEXT {
        return None;
    }
    let mut classes = [0u8; MAX_LITERALS];
    // `text[copied..i]` is yet to be copied into `key`.
    let mut copied = 0;
    let mut i = 0;
    // Whether b[i - 1] belongs to a word (identifier, keyword or number).
    let mut in_word = false;
    while i < b.len() {
        let c = b[i];
        match c {
            b'?' | b'@' | b'#' => return None,
            b'-' if b.get(i + 1) == Some(&b'-') => return None,
            b'/' if b.get(i + 1) == Some(&b'*') => return None,
            b'\'' => {
                let (end, plain) = quoted_end(b, i)?;
                // A quote right after a word is x'..', b'..', N'..' or an introducer's
                // string; one with escapes is kept as written, so the key never depends
                // on how escapes decode.
                // A literal with bytes that are not UTF-8 decodes by context (`query_text`).
                let literal = &text[i + 1..end];
                if !in_word && plain && !query_text::has_escapes(literal) {
                    let n = values.len();
                    if n == MAX_LITERALS {
                        return None;
                    }
                    key.push_str(&text[copied..i]);
                    key.push('?');
                    values.push(Value::text(&literal.replace("''", "'")));
                    classes[n] = CLASS_STRING;
                    copied = end + 1;
                }
                i = end + 1;
                in_word = false;
            }
            b'"' | b'`' => {
                let (end, _) = quoted_end(b, i)?;
                i = end + 1;
                in_word = false;
            }
            b'0'..=b'9' if !in_word && (i == 0 || b[i - 1] != b'.') => {
                // The digits' value as they are scanned; None once it overflows i64.
                let mut value = Some(0i64);
                let mut end = i;
                while end < b.len() && b[end].is_ascii_digit() {
                    let digit = i64::from(b[end] - b'0');
                    value = value.and_then(|v| v.checked_mul(10)?.checked_add(digit));
                    end += 1;
                }
                let whole_token = end == b.len() || !(is_word_byte(b[end]) || b[end] == b'.');
                match value.filter(|_| whole_token) {
                    Some(v) => {
                        let n = values.len();
                        if n == MAX_LITERALS {
                            return None;
                        }
                        key.push_str(&text[copied..i]);
                        key.push('?');
                        values.push(Value::Int(v));
                        classes[n] = CLASS_INT;
                        copied = end;
                        i = end;
                        in_word = false;
                    }
                    // A decimal, float, hex or too-large number, or a word that starts
                    // with digits: kept as written, up to the next non-word byte.
                    None => {
                        i = number_or_word_end(b, i);
                        in_word = true;
                    }
                }
            }
            // A word (or digits after a word byte): skipped whole, nothing in it is replaced.
            _ if is_word_byte(c) => {
                i += 1;
                while i < b.len() && is_word_byte(b[i]) {
                    i += 1;
                }
                in_word = true;
            }
            _ => {
                in_word = false;
                i += 1;
            }
        }
    }
    key.push_str(&text[copied..]);
    let template_len = key.len();
    key.push('\0');
    for &class in &classes[..values.len()] {
        key.push(class as char);
    }
    Some(template_len)
}

/// The end of a number-like token starting at `start`: digits, letters, `.` and an
/// exponent's sign (`1.5e-3`).
fn number_or_word_end(b: &[u8], start: usize) -> usize {
    let mut i = start;
    while i < b.len() {
        let c = b[i];
        let exponent_sign = (c == b'+' || c == b'-')
            && matches!(b[i - 1], b'e' | b'E')
            && b[start..i - 1]
                .iter()
                .all(|d| d.is_ascii_digit() || *d == b'.');
        if !(is_word_byte(c) || c == b'.' || exponent_sign) {
            break;
        }
        i += 1;
    }
    i
}

/// The index of the quote closing the quoted token that starts at `start`, and whether the
/// token has no backslash; None if it never closes. A doubled quote is part of the token.
fn quoted_end(b: &[u8], start: usize) -> Option<(usize, bool)> {
    let quote = b[start];
    let mut plain = true;
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' if quote != b'`' => {
                plain = false;
                i += 2;
            }
            c if c == quote => {
                if b.get(i + 1) == Some(&quote) {
                    i += 2;
                } else {
                    return Some((i, plain));
                }
            }
            _ => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(text: &str) -> Option<(String, String, Vec<Value>)> {
        let mut key = String::new();
        let mut values = Vec::new();
        let len = template(text, &mut key, &mut values)?;
        Some((key[..len].to_string(), key[len + 1..].to_string(), values))
    }

    #[test]
    fn integers_and_plain_strings_become_parameters() {
        let (t, classes, values) =
            key("SELECT c FROM sbtest1 WHERE id=42 AND s = 'it''s' LIMIT 10").expect("cacheable");
        assert_eq!(t, "SELECT c FROM sbtest1 WHERE id=? AND s = ? LIMIT ?");
        assert_eq!(classes, "isi");
        assert_eq!(
            values,
            vec![Value::Int(42), Value::text("it's"), Value::Int(10)]
        );
        let (t, _, _) = key("SELECT -5, 7+t2.a FROM t2").expect("cacheable");
        assert_eq!(t, "SELECT -?, ?+t2.a FROM t2");
    }

    #[test]
    fn other_literals_and_words_are_kept_as_written() {
        for text in [
            "SELECT 1.5, .5, 1e3, 1.5e-3, 0x1F, 3abc, x'AB', b'01', N'x', _utf8mb4'x'",
            "SELECT 'a\\'b', \"dq\", `b``q`, 99999999999999999999",
            "SELECT t1.2col FROM db1.t1",
        ] {
            let (t, classes, values) = key(text).expect("cacheable");
            assert_eq!(t, text);
            assert!(classes.is_empty() && values.is_empty(), "{text}");
        }
    }

    #[test]
    fn comments_variables_placeholders_and_long_texts_are_not_cached() {
        for text in [
            "SELECT 1 -- c",
            "SELECT 1 # c",
            "SELECT /* c */ 1",
            "SELECT @a",
            "SELECT @@version",
            "SELECT ?",
            "SELECT 'open",
        ] {
            assert!(key(text).is_none(), "{text}");
        }
        assert!(key(&format!("SELECT '{}'", "x".repeat(MAX_TEXT))).is_none());
        let many = vec!["1"; MAX_LITERALS + 1].join(",");
        assert!(key(&format!("SELECT {many}")).is_none());
    }

    #[test]
    fn the_template_with_its_literals_gives_back_the_text() {
        // Invariant (1), over texts mixing every kind of token.
        let parts = [
            "SELECT ", "c", " ", "42", ",", "'x y'", "''", "1.5", "t1", ".", "id", "=", "-", "7",
            "'é'", "`a'b`", "\"q\"", "0x1", "e", "(", ")", "\n",
        ];
        let mut seed = 12345u64;
        for _ in 0..2000 {
            let mut text = String::new();
            for _ in 0..12 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                text.push_str(parts[(seed >> 33) as usize % parts.len()]);
            }
            let Some((t, _, values)) = key(&text) else {
                continue;
            };
            let mut rebuilt = String::new();
            let mut values = values.iter();
            for piece in t.split('?').enumerate() {
                if piece.0 > 0 {
                    match values.next().expect("one value per ?") {
                        Value::Int(v) => rebuilt.push_str(&v.to_string()),
                        v => {
                            let s = std::str::from_utf8(v.as_bytes().expect("text")).expect("utf8");
                            rebuilt.push('\'');
                            rebuilt.push_str(&s.replace('\'', "''"));
                            rebuilt.push('\'');
                        }
                    }
                }
                rebuilt.push_str(piece.1);
            }
            assert!(values.next().is_none());
            assert_eq!(rebuilt, text);
        }
    }
}
