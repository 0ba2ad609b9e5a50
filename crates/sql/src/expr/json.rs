//! The JSON functions (JSON_VALID, JSON_EXTRACT, JSON_OBJECT, ...) as MariaDB 10.11 has
//! them: JSON is text, parsed per call.
//!
//! The parser keeps each number and string as the text it was written as (MariaDB prints
//! a matched `1.50e0` or `"x\u0041"` unchanged) and prints containers as MariaDB does:
//! `{"a": 1, "b": [1, 2]}`. Nesting is limited to MariaDB's depth of 32, so a deep
//! document is a warning (4040), never a deep recursion. Bad text or paths make the call
//! NULL with MariaDB's warning (4037-4044) naming the argument and the 1-based byte
//! position just past the offending character.
//!
//! The functions that change a document (JSON_SET, JSON_MERGE_PATCH, ...) edit the parsed
//! tree and print it whole, as MariaDB does; the values they put in are SQL values made
//! JSON as JSON_OBJECT makes them (`sql_to_json`). JSON_ARRAYAGG and JSON_OBJECTAGG are
//! aggregates (`aggregate.rs`) that reuse `sql_to_json`.

use super::coerce::to_bytes;
use super::{EvalContext, Expr, SessionContext};
use crate::error::{ErrorCode, Result};
use manycore_types::{DataType, Value};

/// MariaDB's JSON_DEPTH_LIMIT: a 32nd nested container is refused.
const DEPTH_LIMIT: usize = 32;

/// A parsed JSON value borrowing its scalars' text from the document.
#[derive(Debug, PartialEq)]
pub enum Json<'a> {
    Null,
    Bool(bool),
    /// As written.
    Number(&'a str),
    /// The text between the quotes, escapes kept.
    String(&'a str),
    Array(Vec<Json<'a>>),
    /// Keys as written (escapes kept), in document order, duplicates kept.
    Object(Vec<(&'a str, Json<'a>)>),
}

/// Why a text or a path is refused.
#[derive(Debug, PartialEq, Eq)]
pub enum SyntaxError {
    /// The text ends where more is needed.
    End,
    /// A bad character; the position is the byte offset just past it.
    At(usize),
    /// Nested too deep, at the position past the container that is too many.
    Depth(usize),
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// The error for the character at the current position (its end, as MariaDB counts).
    fn bad(&self) -> SyntaxError {
        match self.text[self.pos..].chars().next() {
            Some(c) => SyntaxError::At(self.pos + c.len_utf8()),
            None => SyntaxError::End,
        }
    }

    fn expect(&mut self, byte: u8) -> std::result::Result<(), SyntaxError> {
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.bad())
        }
    }

    fn value(&mut self, depth: usize) -> std::result::Result<Json<'a>, SyntaxError> {
        self.skip_space();
        match self.peek() {
            None => Err(SyntaxError::End),
            Some(b'{' | b'[') if depth + 1 >= DEPTH_LIMIT => Err(SyntaxError::Depth(self.pos + 1)),
            Some(b'{') => {
                self.pos += 1;
                let mut members = Vec::new();
                self.skip_space();
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                    return Ok(Json::Object(members));
                }
                loop {
                    self.skip_space();
                    let key = self.string()?;
                    // MariaDB blames the character right after the key for a missing ':'.
                    let after_key = self.bad();
                    self.skip_space();
                    if self.peek() != Some(b':') {
                        return Err(after_key);
                    }
                    self.pos += 1;
                    members.push((key, self.value(depth + 1)?));
                    self.skip_space();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b'}') => {
                            self.pos += 1;
                            return Ok(Json::Object(members));
                        }
                        _ => return Err(self.bad()),
                    }
                }
            }
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                self.skip_space();
                if self.peek() == Some(b']') {
                    self.pos += 1;
                    return Ok(Json::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    self.skip_space();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {
                            self.pos += 1;
                            return Ok(Json::Array(items));
                        }
                        _ => return Err(self.bad()),
                    }
                }
            }
            Some(b'"') => self.string().map(Json::String),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => {
                for (word, value) in [
                    ("true", Json::Bool(true)),
                    ("false", Json::Bool(false)),
                    ("null", Json::Null),
                ] {
                    let rest = &self.text.as_bytes()[self.pos..];
                    let common = rest
                        .iter()
                        .zip(word.bytes())
                        .take_while(|(a, b)| *a == b)
                        .count();
                    if common == word.len() {
                        self.pos += common;
                        return Ok(value);
                    }
                    if common > 0 {
                        // MariaDB blames a half-written `true`, `false` or `null` at the
                        // offset of its first wrong character, not just past it.
                        self.pos += common;
                        return Err(match self.peek() {
                            Some(_) => SyntaxError::At(self.pos),
                            None => SyntaxError::End,
                        });
                    }
                }
                Err(self.bad())
            }
        }
    }

    /// A quoted string; returns the text between the quotes.
    fn string(&mut self) -> std::result::Result<&'a str, SyntaxError> {
        self.expect(b'"')?;
        let start = self.pos;
        loop {
            match self.peek() {
                None => return Err(SyntaxError::End),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(&self.text[start..self.pos - 1]);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    if self.peek().is_none() {
                        return Err(SyntaxError::End);
                    }
                    self.pos += 1;
                }
                Some(c) if c < 0x20 => return Err(self.bad()),
                Some(_) => self.pos += 1,
            }
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> std::result::Result<Json<'a>, SyntaxError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            None => return Err(SyntaxError::End),
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            Some(_) => return Err(self.bad()),
        }
        // MariaDB takes `1.` as a number.
        if self.peek() == Some(b'.') {
            self.pos += 1;
            self.digits();
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.bad());
            }
        }
        Ok(Json::Number(&self.text[start..self.pos]))
    }
}

/// Parses a whole document (surrounding white space allowed).
pub fn parse(text: &str) -> std::result::Result<Json<'_>, SyntaxError> {
    let mut parser = Parser { text, pos: 0 };
    let value = parser.value(0)?;
    parser.skip_space();
    if parser.pos < text.len() {
        return Err(parser.bad());
    }
    Ok(value)
}

/// Appends `value` as MariaDB prints JSON: `{"a": 1, "b": [1, 2]}`.
pub fn write(value: &Json, out: &mut String) {
    write_separated(value, ", ", ": ", out);
}

/// Appends `value` with `comma` between items and `colon` after keys.
fn write_separated(value: &Json, comma: &str, colon: &str, out: &mut String) {
    match value {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Number(n) => out.push_str(n),
        Json::String(s) => {
            out.push('"');
            out.push_str(s);
            out.push('"');
        }
        Json::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(comma);
                }
                write_separated(item, comma, colon, out);
            }
            out.push(']');
        }
        Json::Object(members) => {
            out.push('{');
            for (i, (key, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push_str(comma);
                }
                out.push('"');
                out.push_str(key);
                out.push('"');
                out.push_str(colon);
                write_separated(item, comma, colon, out);
            }
            out.push('}');
        }
    }
}

fn printed(value: &Json) -> String {
    let mut out = String::new();
    write(value, &mut out);
    out
}

/// The text of a JSON string's contents with its escapes resolved.
fn unescape(raw: &str) -> String {
    if !raw.contains('\\') {
        return raw.to_string();
    }
    serde_json::from_str::<String>(&format!("\"{raw}\"")).unwrap_or_else(|_| {
        // An escape JSON does not define (`\q`) stands for its character, as in MariaDB.
        let mut out = String::new();
        let mut chars = raw.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => out.extend(chars.next()),
                c => out.push(c),
            }
        }
        out
    })
}

/// `text` as a JSON string, quoted and escaped as MariaDB's JSON_QUOTE does.
pub fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// One step of a path.
#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    /// `.key` or `."key"` (unescaped).
    Key(String),
    /// `.*`
    AnyKey,
    /// `[n]`
    Index(usize),
    /// `[last]`
    Last,
    /// `[*]`
    AnyIndex,
    /// `**`: this value and every value inside it.
    Descendants,
}

/// A parsed path: `$` then steps.
#[derive(Debug, PartialEq, Eq)]
pub struct Path {
    pub steps: Vec<Step>,
}

impl Path {
    pub fn has_wildcard(&self) -> bool {
        self.steps
            .iter()
            .any(|s| matches!(s, Step::AnyKey | Step::AnyIndex | Step::Descendants))
    }
}

/// Parses a path such as `$.a."b c"[0][*]`, `$.*`, `$**.k`.
pub fn parse_path(text: &str) -> std::result::Result<Path, SyntaxError> {
    let bytes = text.as_bytes();
    let mut pos = 0;
    let skip_space = |pos: &mut usize| {
        while bytes.get(*pos).is_some_and(u8::is_ascii_whitespace) {
            *pos += 1;
        }
    };
    let bad = |pos: usize| match text[pos..].chars().next() {
        Some(c) => SyntaxError::At(pos + c.len_utf8()),
        None => SyntaxError::End,
    };
    skip_space(&mut pos);
    if bytes.get(pos) != Some(&b'$') {
        return Err(bad(pos));
    }
    pos += 1;
    let mut steps = Vec::new();
    loop {
        skip_space(&mut pos);
        match bytes.get(pos) {
            None => break,
            Some(b'.') => {
                pos += 1;
                match bytes.get(pos) {
                    None => return Err(SyntaxError::End),
                    Some(b'*') => {
                        pos += 1;
                        steps.push(Step::AnyKey);
                    }
                    Some(b'"') => {
                        let start = pos + 1;
                        let mut end = start;
                        while bytes.get(end).is_some_and(|b| *b != b'"') {
                            end += if bytes[end] == b'\\' { 2 } else { 1 };
                        }
                        if end >= bytes.len() {
                            return Err(SyntaxError::End);
                        }
                        steps.push(Step::Key(unescape(&text[start..end])));
                        pos = end + 1;
                    }
                    Some(_) => {
                        let start = pos;
                        while bytes
                            .get(pos)
                            .is_some_and(|b| !matches!(b, b'.' | b'[' | b' ' | b'*'))
                        {
                            pos += 1;
                        }
                        if pos == start {
                            return Err(bad(pos));
                        }
                        steps.push(Step::Key(text[start..pos].to_string()));
                    }
                }
            }
            Some(b'[') => {
                pos += 1;
                skip_space(&mut pos);
                let step = if bytes.get(pos) == Some(&b'*') {
                    pos += 1;
                    Step::AnyIndex
                } else if text[pos..].starts_with("last") {
                    pos += 4;
                    Step::Last
                } else {
                    let start = pos;
                    while bytes.get(pos).is_some_and(u8::is_ascii_digit) {
                        pos += 1;
                    }
                    if pos == start {
                        return Err(bad(pos));
                    }
                    Step::Index(text[start..pos].parse().unwrap_or(usize::MAX))
                };
                skip_space(&mut pos);
                match bytes.get(pos) {
                    Some(b']') => pos += 1,
                    _ => return Err(bad(pos)),
                }
                steps.push(step);
            }
            Some(b'*') if bytes.get(pos + 1) == Some(&b'*') => {
                pos += 2;
                if pos >= bytes.len() {
                    return Err(SyntaxError::End);
                }
                steps.push(Step::Descendants);
            }
            Some(_) => return Err(bad(pos)),
        }
    }
    Ok(Path { steps })
}

fn key_matches(raw: &str, key: &str) -> bool {
    raw == key || (raw.contains('\\') && unescape(raw) == key)
}

/// Appends to `out` every value `steps` lead to from `value`, in document order.
fn select<'v, 'a>(value: &'v Json<'a>, steps: &[Step], out: &mut Vec<&'v Json<'a>>) {
    let Some((step, rest)) = steps.split_first() else {
        out.push(value);
        return;
    };
    match (step, value) {
        (Step::Key(key), Json::Object(members)) => {
            if let Some((_, item)) = members.iter().find(|(k, _)| key_matches(k, key)) {
                select(item, rest, out);
            }
        }
        (Step::AnyKey, Json::Object(members)) => {
            for (_, item) in members {
                select(item, rest, out);
            }
        }
        (Step::Index(i), Json::Array(items)) => {
            if let Some(item) = items.get(*i) {
                select(item, rest, out);
            }
        }
        // A scalar or object is an array of itself at index 0, as in MariaDB.
        (Step::Index(0) | Step::Last, v) if !matches!(v, Json::Array(_)) => select(v, rest, out),
        (Step::Last, Json::Array(items)) => {
            if let Some(item) = items.last() {
                select(item, rest, out);
            }
        }
        (Step::AnyIndex, Json::Array(items)) => {
            for item in items {
                select(item, rest, out);
            }
        }
        (Step::Descendants, v) => {
            select(v, rest, out);
            match v {
                Json::Array(items) => {
                    for item in items {
                        select(item, steps, out);
                    }
                }
                Json::Object(members) => {
                    for (_, item) in members {
                        select(item, steps, out);
                    }
                }
                _ => {}
            }
        }
        _ => {}
    }
}

/// A JSON function, bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JsonFunction {
    Valid,
    Extract,
    Unquote,
    Quote,
    Value,
    Object,
    Array,
    Length,
    Depth,
    Type,
    Keys,
    Set,
    Insert,
    Replace,
    Remove,
    ArrayAppend,
    ArrayInsert,
    /// JSON_MERGE_PRESERVE and its old name JSON_MERGE.
    MergePreserve,
    MergePatch,
    Contains,
    ContainsPath,
    Search,
    Compact,
    Loose,
}

impl JsonFunction {
    pub fn lookup(name: &str) -> Option<JsonFunction> {
        use JsonFunction::*;
        Some(match name {
            "JSON_VALID" => Valid,
            "JSON_EXTRACT" => Extract,
            "JSON_UNQUOTE" => Unquote,
            "JSON_QUOTE" => Quote,
            "JSON_VALUE" => Value,
            "JSON_OBJECT" => Object,
            "JSON_ARRAY" => Array,
            "JSON_LENGTH" => Length,
            "JSON_DEPTH" => Depth,
            "JSON_TYPE" => Type,
            "JSON_KEYS" => Keys,
            "JSON_SET" => Set,
            "JSON_INSERT" => Insert,
            "JSON_REPLACE" => Replace,
            "JSON_REMOVE" => Remove,
            "JSON_ARRAY_APPEND" => ArrayAppend,
            "JSON_ARRAY_INSERT" => ArrayInsert,
            "JSON_MERGE_PRESERVE" | "JSON_MERGE" => MergePreserve,
            "JSON_MERGE_PATCH" => MergePatch,
            "JSON_CONTAINS" => Contains,
            "JSON_CONTAINS_PATH" => ContainsPath,
            "JSON_SEARCH" => Search,
            "JSON_COMPACT" => Compact,
            "JSON_LOOSE" => Loose,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        use JsonFunction::*;
        match self {
            Valid => "json_valid",
            Extract => "json_extract",
            Unquote => "json_unquote",
            Quote => "json_quote",
            Value => "json_value",
            Object => "json_object",
            Array => "json_array",
            Length => "json_length",
            Depth => "json_depth",
            Type => "json_type",
            Keys => "json_keys",
            Set => "json_set",
            Insert => "json_insert",
            Replace => "json_replace",
            Remove => "json_remove",
            ArrayAppend => "json_array_append",
            ArrayInsert => "json_array_insert",
            MergePreserve => "json_merge_preserve",
            MergePatch => "json_merge_patch",
            Contains => "json_contains",
            ContainsPath => "json_contains_path",
            Search => "json_search",
            Compact => "json_compact",
            Loose => "json_loose",
        }
    }

    pub fn arity(self) -> (usize, usize) {
        use JsonFunction::*;
        match self {
            Valid | Unquote | Quote | Depth | Type | Compact | Loose => (1, 1),
            Length | Keys => (1, 2),
            Value => (2, 2),
            Contains => (2, 3),
            Extract | Remove | MergePreserve | MergePatch => (2, usize::MAX),
            Set | Insert | Replace | ArrayAppend | ArrayInsert => (3, usize::MAX),
            ContainsPath | Search => (3, usize::MAX),
            Object | Array => (0, usize::MAX),
        }
    }

    /// Whether `count` arguments fit besides the arity: JSON_OBJECT takes pairs, the
    /// functions that write a document take it and then path-value pairs.
    pub fn takes(self, count: usize) -> bool {
        use JsonFunction::*;
        match self {
            Object => count.is_multiple_of(2),
            Set | Insert | Replace | ArrayAppend | ArrayInsert => !count.is_multiple_of(2),
            _ => true,
        }
    }

    /// Whether a TRUE or FALSE argument is embedded as `true`/`false`: the functions
    /// that make JSON of SQL values.
    pub fn embeds_booleans(self) -> bool {
        use JsonFunction::*;
        matches!(
            self,
            Object | Array | Set | Insert | Replace | ArrayAppend | ArrayInsert
        )
    }

    /// Whether the result is JSON a JSON_OBJECT or JSON_ARRAY embeds as is, not as a
    /// string.
    fn returns_json(self) -> bool {
        use JsonFunction::*;
        matches!(
            self,
            Extract
                | Object
                | Array
                | Keys
                | Set
                | Insert
                | Replace
                | Remove
                | ArrayAppend
                | ArrayInsert
                | MergePreserve
                | MergePatch
                | Search
                | Compact
                | Loose
        )
    }

    /// The result type: as long as the text it comes from (so a LONGTEXT argument
    /// gives a LONGTEXT, as in MariaDB).
    pub fn result_type(self, args: &[Expr]) -> DataType {
        use super::function::{char_length, string_type, BOOL_TYPE};
        use JsonFunction::*;
        let length = |e: &Expr| char_length(&e.data_type());
        match self {
            Valid | Length | Depth | Contains | ContainsPath => BOOL_TYPE,
            Type => super::function::varchar(12),
            Quote => string_type(args.first().map_or(0, length).saturating_mul(2) + 2, false),
            Extract | Unquote | Value | Keys | Remove | Search | Compact | Loose => {
                string_type(args.first().map_or(0, length), false)
            }
            Object | Array | Set | Insert | Replace | ArrayAppend | ArrayInsert | MergePreserve
            | MergePatch => string_type(
                args.iter()
                    .map(|a| length(a).saturating_add(4))
                    .sum::<u64>()
                    .max(2),
                false,
            ),
        }
    }
}

/// True for a value that is JSON, embedded unquoted by JSON_OBJECT/JSON_ARRAY: a JSON
/// function's result, a JSON column (also a derived table's or a view's column made of
/// one) or a scalar subquery selecting one.
pub fn is_json_expr(e: &Expr) -> bool {
    match e {
        Expr::Call {
            function: super::Function::Json(f),
            ..
        } => f.returns_json(),
        Expr::Column(c) => c.holds_json,
        Expr::Subquery(s) => s.kind == super::SubqueryKind::Scalar && s.holds_json,
        _ => false,
    }
}

/// True for an expression MariaDB types as boolean (a comparison, a logical operator,
/// TRUE or FALSE), which JSON_OBJECT/JSON_ARRAY embed as `true`/`false`, not 1/0, and
/// whose result column is 1 long (`int_length`).
pub(super) fn is_boolean(e: &Expr) -> bool {
    match e {
        Expr::Binary { op, .. } => op.is_truth_valued(),
        Expr::Unary { op, .. } => *op == super::UnaryOp::Not,
        Expr::Regexp { function, .. } => {
            matches!(function, super::regexp::RegexpFunction::Matches { .. })
        }
        Expr::IsNull { .. }
        | Expr::InList { .. }
        | Expr::Between { .. }
        | Expr::Like { .. }
        | Expr::IsBool { .. } => true,
        Expr::Call {
            function: super::Function::Json(f),
            ..
        } => matches!(
            f,
            JsonFunction::Valid | JsonFunction::Contains | JsonFunction::ContainsPath
        ),
        _ => false,
    }
}

/// Reports a bad text or path of argument `arg` (0-based) of `function` as a warning.
fn warn(
    session: &dyn SessionContext,
    function: JsonFunction,
    arg: usize,
    path: bool,
    error: SyntaxError,
) {
    let name = function.name();
    let n = arg + 1;
    let (what, eos, syntax) = if path {
        ("path", ErrorCode::JsonPathEos, ErrorCode::JsonPathSyntax)
    } else {
        ("text", ErrorCode::JsonEos, ErrorCode::JsonSyntax)
    };
    let (code, message) = match error {
        SyntaxError::End => (
            eos,
            format!("Unexpected end of JSON {what} in argument {n} to function '{name}'"),
        ),
        SyntaxError::At(pos) => (
            syntax,
            format!(
                "Syntax error in JSON {what} in argument {n} to function '{name}' at position {pos}"
            ),
        ),
        SyntaxError::Depth(pos) => (
            ErrorCode::JsonDepth,
            format!(
                "Limit of 32 on JSON nested structures depth is reached in argument {n} to function '{name}' at position {pos}"
            ),
        ),
    };
    // JSON_VALID answers 0 and only notes why.
    match function {
        JsonFunction::Valid => session.note(code, message),
        _ => session.warn(code, message),
    }
}

fn text_of(arg: &Expr, value: &Value) -> Option<String> {
    to_bytes(value, &arg.data_type()).map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// The value of an SQL argument inside JSON_OBJECT/JSON_ARRAY.
pub(crate) fn sql_to_json(
    arg: &Expr,
    value: &Value,
    session: &dyn SessionContext,
    out: &mut String,
) {
    match value {
        Value::Null => out.push_str("null"),
        v if is_boolean(arg) => {
            let truth = super::coerce::truth(v, session) == Some(true);
            out.push_str(if truth { "true" } else { "false" });
        }
        v if arg.data_type().is_numeric() => {
            out.push_str(&text_of(arg, v).unwrap_or_default());
        }
        v => {
            let text = text_of(arg, v).unwrap_or_default();
            if is_json_expr(arg) {
                out.push_str(&text);
            } else {
                out.push_str(&quote(&text));
            }
        }
    }
}

/// Evaluates a JSON function call.
pub fn call(
    function: JsonFunction,
    args: &[Expr],
    row: &[Value],
    ctx: &EvalContext,
) -> Result<Value> {
    use manycore_types::Value as V;
    use JsonFunction::*;
    let session = ctx.session;
    let values = args
        .iter()
        .map(|a| a.eval(row, ctx))
        .collect::<Result<Vec<_>>>()?;
    let text = |v: Option<String>| v.map_or(V::Null, |s| V::Bytes(s.into_bytes()));
    match function {
        Object => {
            let mut out = String::from("{");
            for (i, pair) in args.chunks(2).enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let key = text_of(&pair[0], &values[2 * i]).unwrap_or_default();
                out.push_str(&quote(&key));
                out.push_str(": ");
                sql_to_json(&pair[1], &values[2 * i + 1], session, &mut out);
            }
            out.push('}');
            return Ok(text(Some(out)));
        }
        Array => {
            let mut out = String::from("[");
            for (i, (arg, value)) in args.iter().zip(&values).enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                sql_to_json(arg, value, session, &mut out);
            }
            out.push(']');
            return Ok(text(Some(out)));
        }
        Set | Insert | Replace | ArrayAppend | ArrayInsert => {
            return Ok(text(edit(function, args, &values, session)))
        }
        MergePatch => return Ok(text(merge_patch_call(args, &values, session))),
        Search => return search(args, &values, session).map(text),
        _ => {}
    }
    if values.iter().any(V::is_null) {
        return Ok(V::Null);
    }
    let texts: Vec<String> = args
        .iter()
        .zip(&values)
        .map(|(arg, value)| text_of(arg, value).unwrap_or_default())
        .collect();
    let document = &texts[0];
    match function {
        Quote => {
            return Ok(if args[0].data_type().is_string() {
                text(Some(quote(document)))
            } else {
                V::Null
            })
        }
        Unquote => {
            return Ok(text(Some(match document.strip_prefix('"') {
                Some(_) => match parse(document) {
                    Ok(Json::String(raw)) => unescape(raw),
                    _ => document.clone(),
                },
                None => document.clone(),
            })))
        }
        MergePreserve => {
            let mut merged = None;
            for (i, text) in texts.iter().enumerate() {
                let Some(json) = parse_document(function, i, text, session) else {
                    return Ok(V::Null);
                };
                merged = Some(match merged {
                    None => json,
                    Some(merged) => merge_preserve(merged, json),
                });
            }
            return Ok(text(merged.as_ref().map(printed)));
        }
        _ => {}
    }
    let json = match parse(document) {
        Ok(json) => json,
        Err(error) => {
            warn(session, function, 0, false, error);
            return Ok(if function == Valid {
                V::Int(0)
            } else {
                V::Null
            });
        }
    };
    match function {
        Compact => return Ok(text(Some(compact(&json)))),
        Loose => return Ok(text(Some(printed(&json)))),
        Contains => {
            let Some(candidate) = parse_document(function, 1, &texts[1], session) else {
                return Ok(V::Null);
            };
            let target = match texts.get(2) {
                None => Some(&json),
                Some(path) => {
                    let Some(path) = parse_path_argument(function, 2, path, false, session) else {
                        return Ok(V::Null);
                    };
                    let mut found = Vec::new();
                    select(&json, &path.steps, &mut found);
                    found.first().copied()
                }
            };
            return Ok(V::Int(
                target.is_some_and(|t| contains(t, &candidate)) as i64
            ));
        }
        ContainsPath => {
            let Some(all) = one_or_all(function, &texts[1], session) else {
                return Ok(V::Null);
            };
            let mut paths = Vec::new();
            for (i, path) in texts.iter().enumerate().skip(2) {
                match parse_path_argument(function, i, path, true, session) {
                    Some(path) => paths.push(path),
                    None => return Ok(V::Null),
                }
            }
            let exists = |path: &Path| {
                let mut found = Vec::new();
                select(&json, &path.steps, &mut found);
                !found.is_empty()
            };
            let answer = match all {
                true => paths.iter().all(exists),
                false => paths.iter().any(exists),
            };
            return Ok(V::Int(answer as i64));
        }
        _ => {}
    }
    let mut paths = Vec::new();
    for (i, path) in texts.iter().enumerate().skip(1) {
        match parse_path_argument(function, i, path, function == Extract, session) {
            Some(path) if function == Remove && path.steps.is_empty() => {
                session.warn(
                    ErrorCode::JsonPathEmpty,
                    format!(
                        "Path expression '$' is not allowed in argument {} to function '{}'.",
                        i + 1,
                        function.name()
                    ),
                );
                return Ok(V::Null);
            }
            Some(path) => paths.push(path),
            None => return Ok(V::Null),
        }
    }
    if function == Remove {
        let mut json = json;
        for path in &paths {
            remove(&mut json, &path.steps);
        }
        return Ok(text(Some(printed(&json))));
    }
    // The value the (single, wildcard-free) path names; the document without a path.
    let target = match paths.first() {
        Some(path) if function != Extract => {
            let mut found = Vec::new();
            select(&json, &path.steps, &mut found);
            match found.first() {
                Some(value) => *value,
                None => return Ok(V::Null),
            }
        }
        _ => &json,
    };
    Ok(match function {
        Valid => V::Int(1),
        Extract => {
            let mut found = Vec::new();
            for path in &paths {
                select(&json, &path.steps, &mut found);
            }
            let as_array = paths.len() > 1 || paths.iter().any(Path::has_wildcard);
            match found.as_slice() {
                [] => V::Null,
                [one] if !as_array => text(Some(printed(one))),
                many => {
                    let mut out = String::from("[");
                    for (i, item) in many.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        write(item, &mut out);
                    }
                    out.push(']');
                    text(Some(out))
                }
            }
        }
        Value => match target {
            Json::String(raw) => text(Some(unescape(raw))),
            Json::Number(n) => text(Some(n.to_string())),
            Json::Bool(b) => text(Some(if *b { "1" } else { "0" }.to_string())),
            Json::Null | Json::Array(_) | Json::Object(_) => V::Null,
        },
        Length => V::Int(match target {
            Json::Array(items) => items.len(),
            Json::Object(members) => members.len(),
            _ => 1,
        } as i64),
        Depth => V::Int(depth(target) as i64),
        Type => text(Some(
            match target {
                Json::Null => "NULL",
                Json::Bool(_) => "BOOLEAN",
                Json::Number(n) if n.contains('.') => "DOUBLE",
                Json::Number(_) => "INTEGER",
                Json::String(_) => "STRING",
                Json::Array(_) => "ARRAY",
                Json::Object(_) => "OBJECT",
            }
            .to_string(),
        )),
        Keys => match target {
            Json::Object(members) => {
                let keys = members.iter().map(|(k, _)| Json::String(k)).collect();
                text(Some(printed(&Json::Array(keys))))
            }
            _ => V::Null,
        },
        Object | Array | Quote | Unquote | Set | Insert | Replace | Remove | ArrayAppend
        | ArrayInsert | MergePreserve | MergePatch | Contains | ContainsPath | Search | Compact
        | Loose => unreachable!("handled above"),
    })
}

/// Argument `arg` (0-based) parsed as a JSON document, or None after warning why not.
fn parse_document<'t>(
    function: JsonFunction,
    arg: usize,
    text: &'t str,
    session: &dyn SessionContext,
) -> Option<Json<'t>> {
    parse(text)
        .map_err(|error| warn(session, function, arg, false, error))
        .ok()
}

/// Argument `arg` parsed as a path, or None after warning why not: a syntax error, or a
/// wildcard where the function wants one value (4044).
fn parse_path_argument(
    function: JsonFunction,
    arg: usize,
    text: &str,
    wildcards: bool,
    session: &dyn SessionContext,
) -> Option<Path> {
    match parse_path(text) {
        Ok(path) if path.has_wildcard() && !wildcards => {
            session.warn(
                ErrorCode::JsonPathNoWildcard,
                format!(
                    "Wildcards or range in JSON path not allowed in argument {} to function '{}'",
                    arg + 1,
                    function.name()
                ),
            );
            None
        }
        Ok(path) => Some(path),
        Err(error) => {
            warn(session, function, arg, true, error);
            None
        }
    }
}

/// The mode argument (the 2nd) of JSON_CONTAINS_PATH and JSON_SEARCH: Some(true) for
/// 'all', Some(false) for 'one', any case; None after warning 4046.
fn one_or_all(function: JsonFunction, mode: &str, session: &dyn SessionContext) -> Option<bool> {
    if mode.eq_ignore_ascii_case("all") {
        Some(true)
    } else if mode.eq_ignore_ascii_case("one") {
        Some(false)
    } else {
        session.warn(
            ErrorCode::JsonOneOrAll,
            format!(
                "Argument 2 to function '{}' must be \"one\" or \"all\".",
                function.name()
            ),
        );
        None
    }
}

/// The value `steps` name, for writing; a scalar or object is its own `[0]` and
/// `[last]`, as in `select`. None where a step finds nothing.
fn locate_mut<'v, 'a>(value: &'v mut Json<'a>, steps: &[Step]) -> Option<&'v mut Json<'a>> {
    let Some((step, rest)) = steps.split_first() else {
        return Some(value);
    };
    let next = match (step, value) {
        (Step::Key(key), Json::Object(members)) => {
            &mut members.iter_mut().find(|(k, _)| key_matches(k, key))?.1
        }
        (Step::Index(i), Json::Array(items)) => items.get_mut(*i)?,
        (Step::Last, Json::Array(items)) => items.last_mut()?,
        (Step::Index(0) | Step::Last, v) => v,
        _ => return None,
    };
    locate_mut(next, rest)
}

/// `text` as it is written inside a JSON string (without the quotes): a new member's
/// key, kept as raw text like the parsed ones.
fn escaped(text: &str) -> String {
    let quoted = quote(text);
    quoted[1..quoted.len() - 1].to_string()
}

/// JSON_SET, JSON_INSERT, JSON_REPLACE, JSON_ARRAY_APPEND and JSON_ARRAY_INSERT: the
/// document with each path-value pair applied in turn, or None (a NULL document or
/// path, bad JSON or a bad path, which warns; JSON_ARRAY_INSERT's path not ending in an
/// array position and JSON_ARRAY_APPEND's path finding nothing, which do not). A NULL
/// value is JSON's `null`.
fn edit(
    function: JsonFunction,
    args: &[Expr],
    values: &[Value],
    session: &dyn SessionContext,
) -> Option<String> {
    use JsonFunction::*;
    if values[0].is_null()
        || values
            .iter()
            .skip(1)
            .step_by(2)
            .any(manycore_types::Value::is_null)
    {
        return None;
    }
    let document = text_of(&args[0], &values[0]).unwrap_or_default();
    let mut paths = Vec::new();
    for i in (1..args.len()).step_by(2) {
        let text = text_of(&args[i], &values[i]).unwrap_or_default();
        let path = parse_path_argument(function, i, &text, false, session)?;
        if function == ArrayInsert
            && !matches!(path.steps.last(), Some(Step::Index(_) | Step::Last))
        {
            return None;
        }
        paths.push(path);
    }
    // The new values' JSON text and the new keys' raw text, which the edited document
    // borrows.
    let inserted: Vec<String> = (2..args.len())
        .step_by(2)
        .map(|i| {
            let mut out = String::new();
            sql_to_json(&args[i], &values[i], session, &mut out);
            match parse(&out) {
                Ok(_) => out,
                // A JSON argument that is not JSON after all is a string.
                Err(_) => quote(&out),
            }
        })
        .collect();
    let keys: Vec<String> = paths
        .iter()
        .map(|p| match p.steps.last() {
            Some(Step::Key(key)) => escaped(key),
            _ => String::new(),
        })
        .collect();
    let mut json = parse_document(function, 0, &document, session)?;
    for ((path, value), key) in paths.iter().zip(&inserted).zip(&keys) {
        let value = parse(value).unwrap_or(Json::Null);
        match function {
            ArrayAppend => match locate_mut(&mut json, &path.steps) {
                Some(Json::Array(items)) => items.push(value),
                Some(other) => {
                    let old = std::mem::replace(other, Json::Null);
                    *other = Json::Array(vec![old, value]);
                }
                // Unlike the others, a path that finds nothing makes the result NULL.
                None => return None,
            },
            _ => {
                let Some((last, parents)) = path.steps.split_last() else {
                    // `$` itself: replaced, never inserted.
                    if function != Insert {
                        json = value;
                    }
                    continue;
                };
                if let Some(parent) = locate_mut(&mut json, parents) {
                    put(function, parent, last, key, value);
                }
            }
        }
    }
    Some(printed(&json))
}

/// Puts `value` at step `last` of `parent` as `function` (JSON_SET, JSON_INSERT,
/// JSON_REPLACE or JSON_ARRAY_INSERT) does; `key` is a key step's raw text.
fn put<'a>(
    function: JsonFunction,
    parent: &mut Json<'a>,
    last: &Step,
    key: &'a str,
    value: Json<'a>,
) {
    use JsonFunction::*;
    let replaces = matches!(function, Set | Replace);
    let adds = matches!(function, Set | Insert);
    match (last, parent) {
        (_, Json::Array(items)) if function == ArrayInsert => {
            let at = match last {
                Step::Index(i) => (*i).min(items.len()),
                _ => items.len(),
            };
            items.insert(at, value);
        }
        (_, _) if function == ArrayInsert => {}
        (Step::Key(name), Json::Object(members)) => {
            match members.iter_mut().find(|(k, _)| key_matches(k, name)) {
                Some((_, old)) if replaces => *old = value,
                Some(_) => {}
                None if adds => members.push((key, value)),
                None => {}
            }
        }
        (Step::Index(i), Json::Array(items)) => match items.get_mut(*i) {
            Some(old) if replaces => *old = value,
            Some(_) => {}
            None if adds => items.push(value),
            None => {}
        },
        (Step::Last, Json::Array(items)) => match items.last_mut() {
            Some(old) if replaces => *old = value,
            Some(_) => {}
            None if adds => items.push(value),
            None => {}
        },
        // A scalar or object is its own `[0]`; a later position makes it an array.
        (Step::Index(0) | Step::Last, other) if replaces => *other = value,
        (Step::Index(i), other) if adds && *i > 0 => {
            let old = std::mem::replace(other, Json::Null);
            *other = Json::Array(vec![old, value]);
        }
        _ => {}
    }
}

/// JSON_REMOVE of one path (not `$`): the member or element it names, if any.
fn remove(json: &mut Json, steps: &[Step]) {
    let Some((last, parents)) = steps.split_last() else {
        return;
    };
    match (last, locate_mut(json, parents)) {
        (Step::Key(name), Some(Json::Object(members))) => {
            if let Some(at) = members.iter().position(|(k, _)| key_matches(k, name)) {
                members.remove(at);
            }
        }
        (Step::Index(i), Some(Json::Array(items))) if *i < items.len() => {
            items.remove(*i);
        }
        (Step::Last, Some(Json::Array(items))) => {
            items.pop();
        }
        _ => {}
    }
}

/// The items a value adds to an array merge: an array's own, else itself.
fn into_items(value: Json) -> Vec<Json> {
    match value {
        Json::Array(items) => items,
        other => vec![other],
    }
}

/// JSON_MERGE_PRESERVE of two documents: objects merge member-wise (a key in both
/// merges its two values), anything else concatenates as arrays.
fn merge_preserve<'a>(first: Json<'a>, second: Json<'a>) -> Json<'a> {
    match (first, second) {
        (Json::Object(mut members), Json::Object(more)) => {
            for (key, value) in more {
                match members.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, old)) => {
                        let merged = merge_preserve(std::mem::replace(old, Json::Null), value);
                        *old = merged;
                    }
                    None => members.push((key, value)),
                }
            }
            Json::Object(members)
        }
        (first, second) => {
            let mut items = into_items(first);
            items.extend(into_items(second));
            Json::Array(items)
        }
    }
}

/// RFC 7396's merge patch, as JSON_MERGE_PATCH: a patch that is not an object replaces
/// the target; an object's `null` members remove keys, the others patch theirs.
fn merge_patch<'a>(target: Json<'a>, patch: Json<'a>) -> Json<'a> {
    let Json::Object(patch) = patch else {
        return patch;
    };
    let mut members = match target {
        Json::Object(members) => members,
        _ => Vec::new(),
    };
    for (key, value) in patch {
        let at = members.iter().position(|(k, _)| *k == key);
        match (at, value) {
            (Some(at), Json::Null) => {
                members.remove(at);
            }
            (None, Json::Null) => {}
            (Some(at), value) => {
                let old = std::mem::replace(&mut members[at].1, Json::Null);
                members[at].1 = merge_patch(old, value);
            }
            (None, value) => members.push((key, merge_patch(Json::Null, value))),
        }
    }
    Json::Object(members)
}

/// JSON_MERGE_PATCH over its arguments. MariaDB's NULLs: a NULL argument makes the
/// running result NULL; a later object patches NULL into NULL, a later non-object
/// replaces it.
fn merge_patch_call(
    args: &[Expr],
    values: &[Value],
    session: &dyn SessionContext,
) -> Option<String> {
    let texts: Vec<Option<String>> = args
        .iter()
        .zip(values)
        .map(|(arg, value)| text_of(arg, value).filter(|_| !value.is_null()))
        .collect();
    let mut merged: Option<Json> = None;
    for (i, text) in texts.iter().enumerate() {
        let Some(text) = text else {
            merged = None;
            continue;
        };
        let json = parse_document(JsonFunction::MergePatch, i, text, session)?;
        merged = match merged {
            Some(target) => Some(merge_patch(target, json)),
            None if i > 0 && matches!(json, Json::Object(_)) => None,
            None => Some(json),
        };
    }
    merged.as_ref().map(printed)
}

/// Whether `target` contains `candidate` as JSON_CONTAINS decides: an object contains
/// an object whose every key it has with a value containing the candidate's; an array
/// contains an array whose every element it contains, and any other value one of its
/// elements contains; scalars contain equal scalars (numbers by value).
fn contains(target: &Json, candidate: &Json) -> bool {
    match (target, candidate) {
        (Json::Object(members), Json::Object(wanted)) => wanted.iter().all(|(key, value)| {
            members
                .iter()
                .find(|(k, _)| k == key)
                .is_some_and(|(_, v)| contains(v, value))
        }),
        (Json::Object(_), _) => false,
        (Json::Array(_), Json::Array(wanted)) => wanted.iter().all(|w| contains(target, w)),
        (Json::Array(items), _) => items.iter().any(|item| contains(item, candidate)),
        (Json::Number(a), Json::Number(b)) => {
            a == b || a.parse::<f64>().ok() == b.parse::<f64>().ok()
        }
        (Json::String(a), Json::String(b)) => a == b || unescape(a) == unescape(b),
        (Json::Bool(a), Json::Bool(b)) => a == b,
        (Json::Null, Json::Null) => true,
        _ => false,
    }
}

/// A step of a found value's own path: a key (raw) or an index in an array of `len`.
enum Found<'v> {
    Key(&'v str),
    Index(usize, usize),
}

/// Whether `pattern` (a JSON_SEARCH path, wildcards allowed) names `path` or a value
/// `path` is inside.
fn covers(pattern: &[Step], path: &[Found]) -> bool {
    let Some((step, rest)) = pattern.split_first() else {
        return true;
    };
    if *step == Step::Descendants {
        return (0..=path.len()).any(|skip| covers(rest, &path[skip..]));
    }
    let Some((found, inner)) = path.split_first() else {
        return false;
    };
    let matches = match (step, found) {
        (Step::Key(key), Found::Key(raw)) => key_matches(raw, key),
        (Step::AnyKey, Found::Key(_)) | (Step::AnyIndex, Found::Index(..)) => true,
        (Step::Index(i), Found::Index(at, _)) => i == at,
        (Step::Last, Found::Index(at, len)) => at + 1 == *len,
        _ => false,
    };
    matches && covers(rest, inner)
}

/// Calls `visit` with every scalar in `value` and its path, in document order.
fn walk<'v>(value: &'v Json, path: &mut Vec<Found<'v>>, visit: &mut dyn FnMut(&Json, &[Found])) {
    match value {
        Json::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(Found::Index(i, items.len()));
                walk(item, path, visit);
                path.pop();
            }
        }
        Json::Object(members) => {
            for (key, item) in members {
                path.push(Found::Key(key));
                walk(item, path, visit);
                path.pop();
            }
        }
        scalar => visit(scalar, path),
    }
}

/// JSON_SEARCH(doc, 'one'|'all', pattern [, escape [, path...]]): the paths of the
/// strings and numbers matching the LIKE pattern (in the pattern's collation) inside the
/// given paths, as a JSON string ('one', or one match) or an array. An escape of more
/// than one character is error 1210.
fn search(args: &[Expr], values: &[Value], session: &dyn SessionContext) -> Result<Option<String>> {
    let function = JsonFunction::Search;
    if values[..3].iter().any(Value::is_null) || values.iter().skip(4).any(Value::is_null) {
        return Ok(None);
    }
    let texts: Vec<String> = args
        .iter()
        .zip(values)
        .map(|(arg, value)| text_of(arg, value).unwrap_or_default())
        .collect();
    let escape = match texts.get(3).filter(|_| !values[3].is_null()) {
        None => Some('\\'),
        Some(escape) => {
            let mut chars = escape.chars();
            let first = chars.next();
            if chars.next().is_some() {
                return Err(crate::error::Error::new(
                    ErrorCode::WrongArguments,
                    "Incorrect arguments to ESCAPE",
                ));
            }
            first
        }
    };
    let Some(json) = parse_document(function, 0, &texts[0], session) else {
        return Ok(None);
    };
    let Some(all) = one_or_all(function, &texts[1], session) else {
        return Ok(None);
    };
    let mut patterns = Vec::new();
    for (i, path) in texts.iter().enumerate().skip(4) {
        match parse_path_argument(function, i, path, true, session) {
            Some(path) => patterns.push(path),
            None => return Ok(None),
        }
    }
    let pattern = texts[2].as_bytes();
    let collation = args[2].data_type().collation();
    let mut found = Vec::new();
    walk(&json, &mut Vec::new(), &mut |value, path| {
        if !all && !found.is_empty() {
            return;
        }
        let text = match value {
            Json::String(raw) => unescape(raw),
            Json::Number(n) => n.to_string(),
            _ => return,
        };
        let inside = patterns.is_empty() || patterns.iter().any(|p| covers(&p.steps, path));
        if inside && super::like::like(text.as_bytes(), pattern, escape, collation) {
            let mut out = String::from("\"$");
            for step in path {
                match step {
                    Found::Key(key) => {
                        out.push('.');
                        out.push_str(key);
                    }
                    Found::Index(i, _) => out.push_str(&format!("[{i}]")),
                }
            }
            out.push('"');
            found.push(out);
        }
    });
    Ok(match found.len() {
        0 => None,
        1 => found.pop(),
        _ => Some(format!("[{}]", found.join(", "))),
    })
}

/// JSON_COMPACT: the document without any space between its tokens.
fn compact(value: &Json) -> String {
    let mut out = String::new();
    write_separated(value, ",", ":", &mut out);
    out
}

/// JSON_DEPTH: 1 for a scalar or an empty container, one more per level of nesting.
fn depth(value: &Json) -> usize {
    match value {
        Json::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Json::Object(members) => 1 + members.iter().map(|(_, v)| depth(v)).max().unwrap_or(0),
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reprinted(text: &str) -> String {
        printed(&parse(text).expect("valid JSON"))
    }

    #[test]
    fn prints_as_mariadb() {
        assert_eq!(
            reprinted(r#" {"a" :[1,  2.50e0], "b":{ }} "#),
            r#"{"a": [1, 2.50e0], "b": {}}"#
        );
        assert_eq!(reprinted(r#""x\u0041""#), r#""x\u0041""#);
        assert_eq!(reprinted("[ ]"), "[]");
        assert_eq!(quote("a\"b\\c\n\u{1}é"), r#""a\"b\\c\n\u0001é""#);
    }

    #[test]
    fn refuses_bad_text_at_mariadbs_positions() {
        assert_eq!(parse(r#"{"a":1,}"#), Err(SyntaxError::At(8)));
        assert_eq!(parse("[1 2]"), Err(SyntaxError::At(4)));
        assert_eq!(parse("[01]"), Err(SyntaxError::At(3)));
        assert_eq!(parse(r#"{"a" 1}"#), Err(SyntaxError::At(5)));
        assert_eq!(parse("é"), Err(SyntaxError::At(2)));
        assert_eq!(parse(r#""abc"#), Err(SyntaxError::End));
        assert_eq!(parse("tru"), Err(SyntaxError::End));
        assert_eq!(parse("nx"), Err(SyntaxError::At(1)));
        assert_eq!(parse("falsy"), Err(SyntaxError::At(4)));
        assert_eq!(parse("x"), Err(SyntaxError::At(1)));
        assert_eq!(parse(""), Err(SyntaxError::End));
        let nested = |n| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(parse(&nested(31)).is_ok());
        assert_eq!(parse(&nested(40)), Err(SyntaxError::Depth(32)));
    }

    #[test]
    fn parses_paths() {
        let path = parse_path(r#"$.a."b c"[3][*].*[last]"#).expect("valid path");
        assert_eq!(
            path.steps,
            vec![
                Step::Key("a".into()),
                Step::Key("b c".into()),
                Step::Index(3),
                Step::AnyIndex,
                Step::AnyKey,
                Step::Last
            ]
        );
        assert_eq!(parse_path("$**.k").expect("valid").steps.len(), 2);
        assert_eq!(parse_path("a"), Err(SyntaxError::At(1)));
        assert_eq!(parse_path("$[a]"), Err(SyntaxError::At(3)));
        assert_eq!(parse_path("$x"), Err(SyntaxError::At(2)));
        assert_eq!(parse_path("$."), Err(SyntaxError::End));
        assert_eq!(parse_path("$.a["), Err(SyntaxError::End));
        assert_eq!(parse_path(r#"$."a"#), Err(SyntaxError::End));
    }

    fn merged(a: &str, b: &str, patch: bool) -> String {
        let (a, b) = (parse(a).expect("valid"), parse(b).expect("valid"));
        printed(&if patch {
            merge_patch(a, b)
        } else {
            merge_preserve(a, b)
        })
    }

    #[test]
    fn merges_as_mariadb() {
        assert_eq!(
            merged(r#"{"a":{"x":1}}"#, r#"{"a":{"x":2,"y":3}}"#, false),
            r#"{"a": {"x": [1, 2], "y": 3}}"#
        );
        assert_eq!(merged("1", r#"{"b":1}"#, false), r#"[1, {"b": 1}]"#);
        assert_eq!(
            merged(r#"{"a":1,"b":2}"#, r#"{"b":null,"c":{"d":null}}"#, true),
            r#"{"a": 1, "c": {}}"#
        );
        assert_eq!(merged(r#"{"a":1}"#, "[2]", true), "[2]");
    }

    #[test]
    fn contains_recursively() {
        let holds =
            |t: &str, c: &str| contains(&parse(t).expect("valid"), &parse(c).expect("valid"));
        assert!(holds("[1,2,[3]]", "3"));
        assert!(holds("[1,[2,3]]", "[2]"));
        assert!(holds(r#"{"a":[1,2],"b":0}"#, r#"{"a":1}"#));
        assert!(holds("1e0", "1"));
        assert!(!holds("1", "[1]"));
        assert!(!holds(r#"{"a":1}"#, r#"{"b":1}"#));
    }

    #[test]
    fn search_patterns_cover_paths() {
        let path = [Found::Key("b"), Found::Index(1, 2), Found::Key("c")];
        let covers_text = |p: &str| covers(&parse_path(p).expect("valid").steps, &path);
        assert!(covers_text("$"));
        assert!(covers_text("$.b"));
        assert!(covers_text("$.b[last]"));
        assert!(covers_text("$**.c"));
        assert!(covers_text("$.*[*]"));
        assert!(!covers_text("$.b[0]"));
        assert!(!covers_text("$.c"));
    }

    #[test]
    fn selects_in_document_order() {
        let json = parse(r#"{"a":1,"b":{"a":2},"c":[{"a":3}]}"#).expect("valid");
        let path = parse_path("$**.a").expect("valid");
        let mut found = Vec::new();
        select(&json, &path.steps, &mut found);
        let found: Vec<String> = found.into_iter().map(printed).collect();
        assert_eq!(found, ["1", "2", "3"]);
    }
}
