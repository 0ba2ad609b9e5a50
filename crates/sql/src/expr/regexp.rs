//! REGEXP / RLIKE / NOT REGEXP and REGEXP_REPLACE, REGEXP_SUBSTR, REGEXP_INSTR, as
//! MariaDB 10.11 has them.
//!
//! Matching uses the `regex` crate; MariaDB uses PCRE2. The syntax they share (classes,
//! anchors, alternation, repetition, groups, `(?i)` flags) behaves alike, but `regex`
//! has no backreferences in patterns (`(a)\1`) and no look-around (`(?=`, `(?<=`): such a
//! pattern is error 1139, where MariaDB would match. It runs in time linear in the text,
//! so no pattern can make a statement hang.
//!
//! Invariants:
//! (1) The collation decides case, as for LIKE (`coerce::match_collation`): under
//!     utf8mb4_general_ci a pattern matches case-insensitively on characters; under
//!     binary, case-sensitively on bytes (`.` is one byte), as PCRE2 without UTF.
//! (2) A literal pattern is compiled once, when the expression is bound (an invalid one
//!     fails the statement's bind, as MariaDB's prepare); any other pattern is compiled
//!     when evaluated, through a small per-thread cache, so a statement whose pattern is
//!     a parameter compiles it once per worker, not per row.
//! (3) Positions are 1-based characters (bytes under binary), as MariaDB's.

use super::coerce::{match_collation, to_bytes};
use super::{EvalContext, Expr};
use crate::error::{Error, ErrorCode, Result};
use manycore_types::{Collation, DataType, Value};
use regex::bytes::{Captures, Regex, RegexBuilder};
use std::cell::RefCell;

/// Which regular-expression operation an `Expr::Regexp` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegexpFunction {
    /// `text [NOT] REGEXP pattern` (also RLIKE): 1, 0 or NULL.
    Matches { negated: bool },
    /// REGEXP_REPLACE(subject, pattern, replacement).
    Replace,
    /// REGEXP_SUBSTR(subject, pattern).
    Substr,
    /// REGEXP_INSTR(subject, pattern).
    Instr,
}

impl RegexpFunction {
    /// The REGEXP_* function named `name` (upper case).
    pub fn lookup(name: &str) -> Option<RegexpFunction> {
        Some(match name {
            "REGEXP_REPLACE" => RegexpFunction::Replace,
            "REGEXP_SUBSTR" => RegexpFunction::Substr,
            "REGEXP_INSTR" => RegexpFunction::Instr,
            _ => return None,
        })
    }

    pub fn arity(self) -> usize {
        match self {
            RegexpFunction::Replace => 3,
            _ => 2,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            RegexpFunction::Matches { .. } => "regexp",
            RegexpFunction::Replace => "regexp_replace",
            RegexpFunction::Substr => "regexp_substr",
            RegexpFunction::Instr => "regexp_instr",
        }
    }
}

/// A compiled pattern; equal when compiled from the same pattern text and collation.
#[derive(Clone, Debug)]
pub struct Pattern {
    regex: Regex,
    collation: Collation,
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        self.collation == other.collation && self.regex.as_str() == other.regex.as_str()
    }
}

impl Pattern {
    /// Compiles `pattern` for matching under `collation` (invariant (1)); error 1139 if
    /// it is not a valid pattern or uses what `regex` lacks (module doc).
    pub fn compile(pattern: &[u8], collation: Collation) -> Result<Pattern> {
        let text = String::from_utf8_lossy(pattern);
        RegexBuilder::new(&text)
            .case_insensitive(collation == Collation::Utf8mb4GeneralCi)
            .unicode(collation != Collation::Binary)
            .build()
            .map(|regex| Pattern { regex, collation })
            .map_err(|e| regexp_error(&e))
    }

    fn matches(&self, text: &[u8]) -> bool {
        self.regex.is_match(text)
    }

    /// The text of the first match, or empty.
    fn first_match(&self, text: &[u8]) -> Vec<u8> {
        self.regex
            .find(text)
            .map(|m| m.as_bytes().to_vec())
            .unwrap_or_default()
    }

    /// 1-based position of the first match (invariant (3)), 0 if none.
    fn position(&self, text: &[u8]) -> i64 {
        let Some(m) = self.regex.find(text) else {
            return 0;
        };
        let before = &text[..m.start()];
        let units = match self.collation {
            Collation::Binary => before.len(),
            Collation::Utf8mb4GeneralCi | Collation::Utf8mb4Bin => {
                String::from_utf8_lossy(before).chars().count()
            }
        };
        units as i64 + 1
    }

    /// MariaDB's REGEXP_REPLACE: every match from left to right is replaced, but the
    /// first empty match ends the replacing (`x*` against `abc` leaves `abc`).
    fn replace(&self, text: &[u8], replacement: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(text.len());
        let mut start = 0;
        loop {
            let captures = self.regex.captures_at(text, start);
            let Some(whole) = captures
                .as_ref()
                .and_then(|c| c.get(0))
                .filter(|m| !m.is_empty())
            else {
                out.extend_from_slice(&text[start..]);
                return out;
            };
            out.extend_from_slice(&text[start..whole.start()]);
            if let Some(captures) = &captures {
                append_replacement(&mut out, captures, replacement);
            }
            start = whole.end();
        }
    }
}

/// Appends `replacement` with MariaDB's escapes: `\N` (a digit) is group N's text (empty
/// if the pattern has no such group or it did not take part), `\x` any other character
/// is `x`, and a lone trailing `\` is dropped.
fn append_replacement(out: &mut Vec<u8>, captures: &Captures, replacement: &[u8]) {
    let mut bytes = replacement.iter();
    while let Some(&b) = bytes.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        match bytes.next() {
            Some(d) if d.is_ascii_digit() => {
                if let Some(group) = captures.get(usize::from(d - b'0')) {
                    out.extend_from_slice(group.as_bytes());
                }
            }
            Some(&other) => out.push(other),
            None => {}
        }
    }
}

/// 1139 with MariaDB's message shape; `regex`'s explanation in place of PCRE2's.
fn regexp_error(error: &regex::Error) -> Error {
    let why = match error {
        // The last line of `regex`'s report is the reason ("error: unclosed group").
        regex::Error::Syntax(text) => {
            let last = text.lines().last().unwrap_or(text).trim();
            last.strip_prefix("error: ").unwrap_or(last).to_string()
        }
        other => other.to_string(),
    };
    Error::new(ErrorCode::RegexpError, format!("Regex error '{why}'"))
}

/// Patterns compiled per evaluation (invariant (2)), most recent first.
const CACHED_PATTERNS: usize = 8;

thread_local! {
    static PATTERN_CACHE: RefCell<Vec<(Vec<u8>, Pattern)>> = const { RefCell::new(Vec::new()) };
}

/// `pattern` compiled under `collation`, from the per-thread cache when it was recently.
fn cached_pattern(pattern: &[u8], collation: Collation) -> Result<Pattern> {
    PATTERN_CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        if let Some(i) = cache
            .iter()
            .position(|(text, p)| text == pattern && p.collation == collation)
        {
            let entry = cache.remove(i);
            let compiled = entry.1.clone();
            cache.insert(0, entry);
            return Ok(compiled);
        }
        let compiled = Pattern::compile(pattern, collation)?;
        cache.truncate(CACHED_PATTERNS - 1);
        cache.insert(0, (pattern.to_vec(), compiled.clone()));
        Ok(compiled)
    })
}

/// The pattern a literal `pattern` argument compiles to when bound (invariant (2)):
/// None if it is not a literal, or is NULL.
pub fn bind_pattern(subject: &Expr, pattern: &Expr) -> Result<Option<Pattern>> {
    let Expr::Literal { value, data_type } = pattern else {
        return Ok(None);
    };
    match to_bytes(value, data_type) {
        Some(text) => {
            let collation = match_collation(&subject.data_type(), data_type);
            Pattern::compile(&text, collation).map(Some)
        }
        None => Ok(None),
    }
}

/// Evaluates `function` over `args` (subject, pattern[, replacement]).
pub fn eval(
    function: RegexpFunction,
    args: &[Expr],
    compiled: Option<&Pattern>,
    row: &[Value],
    ctx: &EvalContext,
) -> Result<Value> {
    let (subject, pattern) = (&args[0], &args[1]);
    let text = subject.eval(row, ctx)?;
    let Some(text) = to_bytes(&text, &subject.data_type()) else {
        return Ok(Value::Null);
    };
    let pattern_value = pattern.eval(row, ctx)?;
    let Some(pattern_text) = to_bytes(&pattern_value, &pattern.data_type()) else {
        return Ok(Value::Null);
    };
    let owned;
    let pattern = match compiled {
        Some(p) => p,
        None => {
            let collation = match_collation(&subject.data_type(), &pattern.data_type());
            owned = cached_pattern(&pattern_text, collation)?;
            &owned
        }
    };
    Ok(match function {
        RegexpFunction::Matches { negated } => {
            super::eval::bool_value(pattern.matches(&text) != negated)
        }
        RegexpFunction::Instr => Value::Int(pattern.position(&text)),
        RegexpFunction::Substr => Value::Bytes(pattern.first_match(&text)),
        RegexpFunction::Replace => {
            let replacement = &args[2];
            let value = replacement.eval(row, ctx)?;
            let Some(replacement) = to_bytes(&value, &replacement.data_type()) else {
                return Ok(Value::Null);
            };
            Value::Bytes(pattern.replace(&text, &replacement))
        }
    })
}

/// MariaDB's length for a string function result of unknown size.
const MAX_BLOB_WIDTH: u64 = 16_777_216;

/// The result type: INT for a match or a position; for REGEXP_SUBSTR the subject's
/// string type (its length, binary if it is), for REGEXP_REPLACE MariaDB's
/// MAX_BLOB_WIDTH characters, a LONGTEXT (LONGBLOB for a binary subject).
pub fn result_type(function: RegexpFunction, subject: &DataType) -> DataType {
    use super::function::{char_length, is_binary_string, string_type, BOOL_TYPE};
    match function {
        RegexpFunction::Matches { .. } | RegexpFunction::Instr => BOOL_TYPE,
        RegexpFunction::Substr => string_type(char_length(subject), is_binary_string(subject)),
        RegexpFunction::Replace => string_type(MAX_BLOB_WIDTH, is_binary_string(subject)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CI: Collation = Collation::Utf8mb4GeneralCi;
    const BIN: Collation = Collation::Binary;

    fn compile(pattern: &str, collation: Collation) -> Pattern {
        Pattern::compile(pattern.as_bytes(), collation).expect("valid pattern")
    }

    #[test]
    fn case_follows_the_collation() {
        assert!(compile("B", CI).matches(b"abc"));
        assert!(!compile("B", BIN).matches(b"abc"));
        assert!(compile("É", CI).matches("café".as_bytes()));
        assert!(!compile("E", CI).matches("é".as_bytes()), "accents count");
    }

    #[test]
    fn binary_matches_bytes() {
        assert!(compile("^.{6}$", BIN).matches("日本".as_bytes()));
        assert!(compile("^.{2}$", CI).matches("日本".as_bytes()));
        assert_eq!(compile("b", BIN).position("日本b".as_bytes()), 7);
        assert_eq!(compile("b", CI).position("日本b".as_bytes()), 3);
        assert_eq!(compile("x", CI).position(b"abc"), 0);
    }

    #[test]
    fn unsupported_and_invalid_patterns_are_1139() {
        for pattern in ["(", "[", "a{2,1}", "(a)\\1", "a(?=b)", "(?<=a)b"] {
            let error = Pattern::compile(pattern.as_bytes(), CI).expect_err(pattern);
            assert_eq!(error.code, ErrorCode::RegexpError, "{pattern}");
        }
    }

    #[test]
    fn replace_as_mariadb() {
        let replace = |text: &str, pattern: &str, with: &str| {
            let out = compile(pattern, CI).replace(text.as_bytes(), with.as_bytes());
            String::from_utf8(out).expect("utf-8")
        };
        assert_eq!(replace("aXbXc", "x", "-"), "a-b-c");
        assert_eq!(replace("abc", "(b)", "[\\1\\2\\z\\]"), "a[bz]c");
        assert_eq!(replace("abc", "b", "\\0\\0\\"), "abbc");
        assert_eq!(replace("abc", "x*", "-"), "abc", "an empty match ends it");
        assert_eq!(replace("abbc", "b+|", "-"), "abbc");
        assert_eq!(replace("héllo", "L", "Ł"), "héŁŁo");
    }

    #[test]
    fn cache_keeps_collations_apart() {
        assert!(cached_pattern(b"B", CI)
            .expect("valid pattern")
            .matches(b"b"));
        assert!(!cached_pattern(b"B", BIN)
            .expect("valid pattern")
            .matches(b"b"));
        assert!(cached_pattern(b"(", CI).is_err());
    }
}
