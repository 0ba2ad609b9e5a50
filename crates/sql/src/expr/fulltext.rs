//! MATCH (columns) AGAINST (search [IN NATURAL LANGUAGE MODE | IN BOOLEAN MODE]): InnoDB's
//! full-text search, with its words, its stopwords and its relevance.
//!
//! No word index is kept yet. Each execution reads the table once for its statistics
//! (how many rows there are, how many hold each term searched for), and a row's
//! relevance is computed from the row's own text. A MATCH therefore costs a full read of
//! the table per statement, however selective it is; the FULLTEXT key only says which
//! columns MATCH may name (1191 otherwise), as in InnoDB.
//!
//! InnoDB's relevance of a row, probed value by value on MariaDB 10.11:
//! - Words are runs of letters, digits and `_` (`can't` is `can` and `t`, `x-ray` is
//!   `x` and `ray`). A word counts if it has 3 to 84 characters and is not one of
//!   InnoDB's default stopwords. Words compare in the column's
//!   collation (general_ci folds case and accents: `café` is `CAFE`).
//! - Each term searched for (a word, or in boolean mode a prefix `abc*`) has a document
//!   count: the rows holding the word, or for a prefix the (row, word) pairs of the words
//!   it starts, counted again each time the term is searched for (`abc abc` counts
//!   `abc`'s rows twice). Its idf is log10(rows / document count), or log10(1.0001)
//!   when the two are equal, so a word every row holds still matches.
//! - A row's relevance is the sum, over the terms it holds, of frequency x idf², each
//!   product rounded to single precision and summed in single precision. A prefix's
//!   frequency in a row is that of the last word in collation order the row holds.
//! - A boolean phrase `"..."` matches the words from its first indexed one on, short
//!   ones and stopwords included, next to each other in one column (`"the abc"` is
//!   `abc`, `"abc the def"` needs its `the`). Its indexed words are terms.
//! - Boolean `>` adds 1 and `<` subtracts 1 for a row holding the term; each change is
//!   kept within [-1, 1] as it is made, before the terms' products are added.
//!
//! Invariants:
//! (1) A row that does not match has relevance 0, and a MATCH in WHERE keeps the rows
//!     whose relevance is not 0 (a match's relevance is never exactly 0 but by chance).
//! (2) The statistics of one MATCH are read once per execution of its statement
//!     (`SubqueryRunner::fulltext`), under the execution's read view, so they do not
//!     change between the rows of one statement.
//! (3) Boolean operators whose relevance InnoDB computes in ways not yet reproduced
//!     (`~`, and the `@` distance of a phrase) are refused (1235), never approximated.

use super::{EvalContext, Expr};
use crate::error::{Error, ErrorCode, Result};
use manycore_storage::Table;
use manycore_types::{Collation, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// InnoDB's innodb_ft_min_token_size and innodb_ft_max_token_size defaults.
const MIN_WORD_CHARS: usize = 3;
const MAX_WORD_CHARS: usize = 84;

/// InnoDB's default stopwords (information_schema.INNODB_FT_DEFAULT_STOPWORD, which
/// lists `the` twice).
const STOPWORDS: [&str; 35] = [
    "a", "about", "an", "are", "as", "at", "be", "by", "com", "de", "en", "for", "from", "how",
    "i", "in", "is", "it", "la", "of", "on", "or", "that", "the", "this", "to", "und", "was",
    "what", "when", "where", "who", "will", "with", "www",
];

const STOPWORD_MAX_CHARS: usize = 5;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchMode {
    NaturalLanguage,
    Boolean,
}

/// A bound MATCH ... AGAINST.
#[derive(Clone)]
pub struct FulltextMatch {
    /// The table whose rows the statistics count.
    pub table: Arc<Table>,
    /// The FULLTEXT key's columns, as positions in the table's rows.
    pub columns: Vec<usize>,
    /// The same columns in the row the expression reads (`Expr::Column` each).
    pub cells: Vec<Expr>,
    /// The search string: a literal or a parameter, constant for an execution.
    pub against: Box<Expr>,
    pub mode: SearchMode,
    /// The columns' collation, which words compare in.
    pub collation: Collation,
}

impl std::fmt::Debug for FulltextMatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FulltextMatch")
            .field("table", &self.table.schema.name)
            .field("columns", &self.columns)
            .field("against", &self.against)
            .field("mode", &self.mode)
            .finish()
    }
}

impl PartialEq for FulltextMatch {
    fn eq(&self, other: &FulltextMatch) -> bool {
        Arc::ptr_eq(&self.table, &other.table)
            && self.columns == other.columns
            && self.cells == other.cells
            && self.against == other.against
            && self.mode == other.mode
    }
}

impl FulltextMatch {
    pub fn eval(&self, row: &[Value], ctx: &EvalContext) -> Result<Value> {
        let Some(runner) = ctx.subqueries else {
            return Err(Error::not_supported("MATCH ... AGAINST here"));
        };
        let value = self.against.eval(&[], ctx)?;
        let text = super::coerce::to_bytes(&value, &self.against.data_type()).unwrap_or_default();
        let statistics = runner.fulltext(self, &text)?;
        let mut texts = Vec::with_capacity(self.cells.len());
        for cell in &self.cells {
            texts.push(cell.eval(row, ctx)?);
        }
        let texts: Vec<&[u8]> = texts.iter().filter_map(Value::as_bytes).collect();
        Ok(Value::Double(f64::from(statistics.relevance(&texts))))
    }

    /// Whether `self` searching for `text` and `other` searching for `other_text` have
    /// the same statistics: they search the same columns for the same thing.
    pub fn same_search(&self, text: &[u8], other: &FulltextMatch, other_text: &[u8]) -> bool {
        Arc::ptr_eq(&self.table, &other.table)
            && self.columns == other.columns
            && self.mode == other.mode
            && text == other_text
    }
}

/// The words of `text` (module notes), before the length and stopword checks.
fn for_each_word(text: &str, mut f: impl FnMut(&str)) {
    let mut at = 0;
    while let Some((start, end)) = next_word(&text[at..]) {
        f(&text[at + start..at + end]);
        at += end;
    }
}

/// Where the first word of `text` starts and ends.
fn next_word(text: &str) -> Option<(usize, usize)> {
    let mut at = 0;
    let start = loop {
        let (is_word, length) = char_at(text, at)?;
        if is_word {
            break at;
        }
        at += length;
    };
    while let Some((true, length)) = char_at(text, at) {
        at += length;
    }
    Some((start, at))
}

/// Whether the character at byte `at` of `text` is a word character, and its length;
/// None at the end. ASCII, most text, is decided without decoding.
fn char_at(text: &str, at: usize) -> Option<(bool, usize)> {
    let byte = *text.as_bytes().get(at)?;
    if byte.is_ascii() {
        return Some((byte.is_ascii_alphanumeric() || byte == b'_', 1));
    }
    let c = text[at..].chars().next()?;
    Some((is_word_char(c), c.len_utf8()))
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether InnoDB indexes `word`: long enough, short enough, not a stopword.
fn is_indexed(word: &str, collation: Collation) -> bool {
    let chars = word.chars().count();
    // No stopword has more than STOPWORD_MAX_CHARS characters, and the collations
    // weigh character by character.
    (MIN_WORD_CHARS..=MAX_WORD_CHARS).contains(&chars)
        && (chars > STOPWORD_MAX_CHARS
            || !STOPWORDS
                .iter()
                .any(|stop| collation.eq(stop.as_bytes(), word.as_bytes())))
}

fn weight(word: &str, collation: Collation) -> Vec<u8> {
    let mut out = Vec::with_capacity(word.len() * 3);
    collation.append_weight(word.as_bytes(), &mut out);
    out
}

/// A term searched for: a word, or in boolean mode a prefix. Terms with the same text
/// are one term, as in InnoDB (`abc abc*` counts both lookups' rows for `abc`).
#[derive(Debug)]
struct Term {
    weight: Vec<u8>,
    /// Characters in the word or prefix.
    chars: usize,
    /// Times the term is looked up as a whole word and as a prefix.
    word_lookups: u32,
    prefix_lookups: u32,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Presence {
    Optional,
    Required,
    Excluded,
}

#[derive(Debug)]
enum Atom {
    Word(usize),
    Prefix(usize),
    /// Words in this order, next to each other in one column: the weights of the
    /// phrase's words from its first indexed one on, short words and stopwords included
    /// (module notes).
    Phrase(Vec<Vec<u8>>),
    Group(Vec<Clause>),
}

#[derive(Debug)]
struct Clause {
    presence: Presence,
    /// +1 for `>`, -1 for `<`.
    boost: i8,
    atom: Atom,
}

/// A parsed search string.
#[derive(Debug)]
pub struct Search {
    terms: Vec<Term>,
    clauses: Vec<Clause>,
    collation: Collation,
    /// Some clause is a phrase: rows are read with their words in order.
    has_phrases: bool,
}

impl Search {
    pub fn parse(text: &[u8], mode: SearchMode, collation: Collation) -> Result<Search> {
        let text = String::from_utf8_lossy(text);
        let mut search = Search {
            terms: Vec::new(),
            clauses: Vec::new(),
            collation,
            has_phrases: false,
        };
        search.clauses = match mode {
            SearchMode::NaturalLanguage => {
                let mut clauses = Vec::new();
                for_each_word(&text, |word| {
                    if is_indexed(word, collation) {
                        let term = search.term(word, false);
                        clauses.push(Clause {
                            presence: Presence::Optional,
                            boost: 0,
                            atom: Atom::Word(term),
                        });
                    }
                });
                clauses
            }
            SearchMode::Boolean => {
                let mut parser = BooleanParser {
                    text: &text,
                    at: 0,
                    search: &mut search,
                    depth: 0,
                };
                parser.group(false)?
            }
        };
        Ok(search)
    }

    /// Whether `word` has as many characters as a term's word, or at least as many as a
    /// prefix term's: the collations weigh character by character, so no other word is
    /// one a term matches. Cheaper than its weight.
    fn may_want(&self, word: &str) -> bool {
        let chars = match word.is_ascii() {
            true => word.len(),
            false => word.chars().count(),
        };
        self.terms.iter().any(|t| {
            (t.word_lookups > 0 && chars == t.chars) || (t.prefix_lookups > 0 && chars >= t.chars)
        })
    }

    /// Whether a row's `word`, of collation weight `weight`, is one a term matches: the
    /// term's word (which is indexed, so the row's is too), or an indexed word a prefix
    /// term starts.
    fn wants(&self, word: &str, weight: &[u8]) -> bool {
        self.terms.iter().any(|t| {
            (t.word_lookups > 0 && t.weight == weight)
                || (t.prefix_lookups > 0
                    && weight.starts_with(&t.weight)
                    && is_indexed(word, self.collation))
        })
    }

    /// The term for `word`, counting one more lookup of it.
    fn term(&mut self, word: &str, prefix: bool) -> usize {
        let weight = weight(word, self.collation);
        let index = match self.terms.iter().position(|t| t.weight == weight) {
            Some(i) => i,
            None => {
                self.terms.push(Term {
                    weight,
                    chars: word.chars().count(),
                    word_lookups: 0,
                    prefix_lookups: 0,
                });
                self.terms.len() - 1
            }
        };
        let term = &mut self.terms[index];
        match prefix {
            true => term.prefix_lookups += 1,
            false => term.word_lookups += 1,
        }
        index
    }

    /// The statistics of this search over the rows `read_rows` passes to the function it
    /// is given, each row as its matched columns' texts.
    pub fn statistics(self, read_rows: impl FnOnce(&mut dyn FnMut(&[&[u8]]))) -> Statistics {
        let mut total = 0u64;
        let mut documents = vec![0u64; self.terms.len()];
        read_rows(&mut |texts| {
            total += 1;
            if self.terms.is_empty() {
                return;
            }
            let words = Document::read(texts, &self).frequencies;
            for (term, count) in self.terms.iter().zip(&mut documents) {
                if words.contains_key(&term.weight) {
                    *count += u64::from(term.word_lookups);
                }
                if term.prefix_lookups > 0 {
                    let starting = words.keys().filter(|w| w.starts_with(&term.weight));
                    *count += starting.count() as u64 * u64::from(term.prefix_lookups);
                }
            }
        });
        let squared_idf = documents
            .iter()
            .map(|&count| {
                let idf = match count {
                    0 => 0.0,
                    _ if count == total => 1.0001f64.log10(),
                    _ => (total as f64 / count as f64).log10(),
                };
                idf * idf
            })
            .collect();
        // InnoDB sums the terms in its word order: collation order.
        let mut order: Vec<usize> = (0..self.terms.len()).collect();
        order.sort_by(|&a, &b| self.terms[a].weight.cmp(&self.terms[b].weight));
        Statistics {
            search: self,
            squared_idf,
            order,
        }
    }
}

/// Reads a boolean-mode search string: `+` required, `-` excluded, `>` and `<` raise
/// and lower the relevance, `(...)` a group, `"..."` a phrase, `word*` a prefix.
struct BooleanParser<'t, 's> {
    text: &'t str,
    at: usize,
    search: &'s mut Search,
    /// Groups open at the cursor: at most MAX_GROUP_DEPTH, so that neither parsing nor
    /// matching recurses without bound on a search string of `(((...`.
    depth: usize,
}

/// InnoDB evaluates 32 nested groups and refuses 33 (MariaDB 10.11: error 128).
const MAX_GROUP_DEPTH: usize = 32;

impl BooleanParser<'_, '_> {
    fn peek(&self) -> Option<char> {
        self.text[self.at..].chars().next()
    }

    fn bump(&mut self) {
        if let Some(c) = self.peek() {
            self.at += c.len_utf8();
        }
    }

    /// The clauses up to the end of the text, or with `nested` up to its `)`.
    fn group(&mut self, nested: bool) -> Result<Vec<Clause>> {
        let mut clauses = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return Ok(clauses);
            };
            if c == ')' {
                self.bump();
                if nested {
                    return Ok(clauses);
                }
                continue;
            }
            if !(is_word_char(c) || "+-<>(\"~".contains(c)) {
                self.bump();
                continue;
            }
            let mut presence = Presence::Optional;
            let mut boost = 0;
            while let Some(op) = self.peek() {
                match op {
                    '+' => presence = Presence::Required,
                    '-' => presence = Presence::Excluded,
                    '>' => boost = 1,
                    '<' => boost = -1,
                    '~' => return Err(unsupported("the ~ operator")),
                    _ => break,
                }
                self.bump();
            }
            let atom = match self.peek() {
                Some('(') => {
                    if self.depth == MAX_GROUP_DEPTH {
                        return Err(unsupported("groups nested more than 32 deep"));
                    }
                    self.bump();
                    self.depth += 1;
                    let group = self.group(true)?;
                    self.depth -= 1;
                    Some(Atom::Group(group))
                }
                Some('"') => {
                    self.bump();
                    self.phrase()?
                }
                Some(c) if is_word_char(c) => self.word(),
                // An operator before nothing it could apply to.
                _ => None,
            };
            if let Some(atom) = atom {
                clauses.push(Clause {
                    presence,
                    boost,
                    atom,
                });
            }
        }
    }

    /// The word at the cursor, a prefix if `*` follows it; None for a word InnoDB does
    /// not index (a prefix may be short or a stopword).
    fn word(&mut self) -> Option<Atom> {
        let rest = &self.text[self.at..];
        let (start, end) = next_word(rest)?;
        let word = rest[start..end].to_string();
        self.at += end;
        if self.peek() == Some('*') {
            self.bump();
            return Some(Atom::Prefix(self.search.term(&word, true)));
        }
        is_indexed(&word, self.search.collation).then(|| Atom::Word(self.search.term(&word, false)))
    }

    /// The phrase after an opening `"`, up to the closing one or the end of the text.
    fn phrase(&mut self) -> Result<Option<Atom>> {
        let rest = &self.text[self.at..];
        let (inside, consumed) = match rest.find('"') {
            Some(end) => (&rest[..end], end + 1),
            None => (rest, rest.len()),
        };
        self.at += consumed;
        if self.peek() == Some('@') {
            return Err(unsupported("the @ distance of a phrase"));
        }
        let mut words = Vec::new();
        for_each_word(inside, |word| {
            let indexed = is_indexed(word, self.search.collation);
            if indexed {
                self.search.term(word, false);
            }
            if indexed || !words.is_empty() {
                words.push(weight(word, self.search.collation));
            }
        });
        if words.is_empty() {
            return Ok(None);
        }
        self.search.has_phrases = true;
        Ok(Some(Atom::Phrase(words)))
    }
}

/// 1191: no FULLTEXT key has exactly MATCH's columns.
pub fn no_matching_key() -> Error {
    Error::new(
        ErrorCode::FtMatchingKeyNotFound,
        "Can't find FULLTEXT index matching the column list",
    )
}

/// 1210 for `function`'s arguments.
pub fn wrong_arguments(function: &str) -> Error {
    Error::new(
        ErrorCode::WrongArguments,
        format!("Incorrect arguments to {function}"),
    )
}

fn unsupported(what: &str) -> Error {
    Error::new(
        ErrorCode::NotSupportedYet,
        format!(
            "This version of manycore doesn't yet support '{what} in a boolean full-text search'"
        ),
    )
}

/// What a search needs of one row's words: how often each indexed word some term
/// matches occurs, and for a search with phrases each column's words in order, all of
/// them (phrase words included short ones and stopwords).
struct Document {
    columns: Vec<Vec<Vec<u8>>>,
    frequencies: HashMap<Vec<u8>, u32>,
}

impl Document {
    fn read(texts: &[&[u8]], search: &Search) -> Document {
        let mut document = Document {
            columns: Vec::new(),
            frequencies: HashMap::new(),
        };
        let mut weight = Vec::new();
        for text in texts {
            let text = String::from_utf8_lossy(text);
            let mut words = Vec::new();
            for_each_word(&text, |word| {
                if !search.has_phrases && !search.may_want(word) {
                    return;
                }
                weight.clear();
                search.collation.append_weight(word.as_bytes(), &mut weight);
                if search.wants(word, &weight) {
                    *document.frequencies.entry(weight.clone()).or_default() += 1;
                }
                if search.has_phrases {
                    words.push(weight.clone());
                }
            });
            if search.has_phrases {
                document.columns.push(words);
            }
        }
        document
    }

    /// How often the row holds `term`: as a word, or the last word in collation order
    /// that it starts.
    fn frequency(&self, term: &Term) -> u32 {
        if term.prefix_lookups > 0 {
            let starting = self
                .frequencies
                .iter()
                .filter(|(w, _)| w.starts_with(&term.weight));
            if let Some((_, &count)) = starting.max_by(|a, b| a.0.cmp(b.0)) {
                return count;
            }
        }
        self.frequencies.get(&term.weight).copied().unwrap_or(0)
    }

    fn holds_word(&self, term: &Term) -> bool {
        self.frequencies.contains_key(&term.weight)
    }

    fn holds_prefix(&self, term: &Term) -> bool {
        self.frequencies.keys().any(|w| w.starts_with(&term.weight))
    }

    fn holds_phrase(&self, words: &[Vec<u8>]) -> bool {
        let mut columns = self.columns.iter();
        columns.any(|column| column.windows(words.len()).any(|window| window == words))
    }
}

/// A search's statistics over one execution's rows (invariant (2)).
#[derive(Debug)]
pub struct Statistics {
    search: Search,
    /// By term: idf² (module notes).
    squared_idf: Vec<f64>,
    /// Term positions in the order InnoDB adds their relevance.
    order: Vec<usize>,
}

impl Statistics {
    /// The relevance of the row whose matched columns hold `texts` (invariant (1)).
    pub fn relevance(&self, texts: &[&[u8]]) -> f32 {
        let search = &self.search;
        if search.terms.is_empty() {
            return 0.0;
        }
        let document = Document::read(texts, search);
        let mut boost = 0.0f32;
        if !self.matches(&search.clauses, &document, &mut boost) {
            return 0.0;
        }
        let mut relevance = boost;
        for &term in &self.order {
            let frequency = document.frequency(&search.terms[term]);
            if frequency > 0 {
                relevance += (f64::from(frequency) * self.squared_idf[term]) as f32;
            }
        }
        relevance
    }

    /// Whether `document` satisfies a group's clauses: every required one, no excluded
    /// one, and without required ones at least one optional one. When it does, `boost`
    /// gathers the `>` and `<` of the clauses it holds.
    fn matches(&self, clauses: &[Clause], document: &Document, boost: &mut f32) -> bool {
        let mut any_required = false;
        let mut any_optional = false;
        let mut gathered = *boost;
        for clause in clauses {
            let holds = self.holds(&clause.atom, document, &mut gathered);
            match clause.presence {
                Presence::Required if !holds => return false,
                Presence::Excluded if holds => return false,
                Presence::Required => any_required = true,
                Presence::Optional if holds => any_optional = true,
                Presence::Optional | Presence::Excluded => {}
            }
            if holds && clause.presence != Presence::Excluded && clause.boost != 0 {
                gathered = (gathered + f32::from(clause.boost)).clamp(-1.0, 1.0);
            }
        }
        let matched = any_required || any_optional;
        if matched {
            *boost = gathered;
        }
        matched
    }

    fn holds(&self, atom: &Atom, document: &Document, boost: &mut f32) -> bool {
        let terms = &self.search.terms;
        match atom {
            Atom::Word(term) => document.holds_word(&terms[*term]),
            Atom::Prefix(term) => document.holds_prefix(&terms[*term]),
            Atom::Phrase(words) => document.holds_phrase(words),
            Atom::Group(clauses) => self.matches(clauses, document, boost),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for_each_word(text, |w| out.push(w.to_string()));
        out
    }

    #[test]
    fn stopwords_are_short() {
        let longest = STOPWORDS.iter().map(|s| s.chars().count()).max();
        assert_eq!(longest, Some(STOPWORD_MAX_CHARS));
    }

    #[test]
    fn words_are_innodbs() {
        assert_eq!(
            words("x-ray can't dogs' 'quoted' stop_me"),
            ["x", "ray", "can", "t", "dogs", "quoted", "stop_me"]
        );
        assert_eq!(words("a''b café,12"), ["a", "b", "café", "12"]);
        assert!(!is_indexed("the", Collation::Utf8mb4GeneralCi));
        assert!(!is_indexed("THE", Collation::Utf8mb4GeneralCi));
        assert!(is_indexed("and", Collation::Utf8mb4GeneralCi));
        assert!(!is_indexed("12", Collation::Utf8mb4GeneralCi));
        assert!(is_indexed(&"x".repeat(84), Collation::Utf8mb4GeneralCi));
        assert!(!is_indexed(&"x".repeat(85), Collation::Utf8mb4GeneralCi));
    }

    fn relevance(rows: &[&str], search: &str, mode: SearchMode) -> Vec<f32> {
        let collation = Collation::Utf8mb4GeneralCi;
        let parsed =
            Search::parse(search.as_bytes(), mode, collation).expect("a search manycore runs");
        let statistics = parsed.statistics(|add| {
            for row in rows {
                add(&[row.as_bytes()]);
            }
        });
        rows.iter()
            .map(|r| statistics.relevance(&[r.as_bytes()]))
            .collect()
    }

    // The values below are MariaDB 10.11's, for the same rows and searches.
    #[test]
    fn natural_language_relevance_is_innodbs() {
        let rows = [
            "abc xyz",
            "abcd stop_me",
            "x-ray can't",
            "café CAFE cafe",
            "",
            "",
            "the",
        ];
        let r = relevance(&rows, "abc", SearchMode::NaturalLanguage);
        assert_eq!(f64::from(r[0]), 0.7141907215118408);
        assert_eq!(r[1..], [0.0; 6]);
        let r = relevance(&rows, "cafe", SearchMode::NaturalLanguage);
        assert_eq!(f64::from(r[3]), 2.1425721645355225);
        let r = relevance(&rows, "abc abc", SearchMode::NaturalLanguage);
        assert_eq!(f64::from(r[0]), 0.2960100471973419);
    }

    #[test]
    fn boolean_relevance_is_innodbs() {
        let rows = [
            "abc zeta",
            "abc",
            "zeta",
            "other words",
            "more other",
            "abc abc zeta zeta",
            "x",
            "y",
        ];
        let b = SearchMode::Boolean;
        let r = relevance(&rows, ">abc >zeta", b);
        assert_eq!(f64::from(r[0]), 1.362898826599121);
        assert_eq!(f64::from(r[5]), 1.725797414779663);
        let r = relevance(&rows, "<abc <zeta", b);
        assert_eq!(f64::from(r[1]), -0.8185506463050842);
        let r = relevance(&rows, "abc abc*", b);
        assert_eq!(f64::from(r[5]), 0.031219376251101494);
        let r = relevance(&rows, "+\"abc zeta\" -other", b);
        assert_eq!(f64::from(r[5]), 0.7257974147796631);
        assert_eq!(r[1], 0.0);
        let r = relevance(&rows, "-abc", b);
        assert_eq!(r, [0.0; 8]);
        let r = relevance(&rows, "+the", b);
        assert_eq!(r, [0.0; 8]);
        let r = relevance(&rows, "ab*", b);
        assert_eq!(f64::from(r[1]), 0.18144935369491577);
        assert!(Search::parse(b"~abc", b, Collation::Utf8mb4GeneralCi).is_err());
        let nested = |depth| format!("{}abc{}", "(".repeat(depth), ")".repeat(depth));
        let parse = |text: String| Search::parse(text.as_bytes(), b, Collation::Utf8mb4GeneralCi);
        assert!(parse(nested(MAX_GROUP_DEPTH)).is_ok());
        assert!(parse(nested(MAX_GROUP_DEPTH + 1)).is_err());
        assert!(parse("(".repeat(200_000)).is_err());
        assert!(Search::parse(b"\"abc\"@2", b, Collation::Utf8mb4GeneralCi).is_err());
    }

    #[test]
    fn a_phrase_starts_at_its_first_indexed_word() {
        let rows = [
            "abc zz def",
            "abc the def",
            "x ray",
            "other",
            "abc def",
            "x-ray abc",
            "p",
        ];
        let b = SearchMode::Boolean;
        let r = relevance(&rows, "\"abc zz\"", b);
        assert_eq!(f64::from(r[0]), 0.0590674914419651);
        assert_eq!(r[1..], [0.0; 6]);
        let r = relevance(&rows, "\"zz def\"", b);
        assert_eq!(f64::from(r[1]), 0.13540691137313843);
        let r = relevance(&rows, "\"abc the def\"", b);
        assert_eq!(f64::from(r[1]), 0.19447439908981323);
        assert_eq!(r[4], 0.0);
        let r = relevance(&rows, "\"ray abc\"", b);
        assert_eq!(f64::from(r[5]), 0.3550775349140167);
        assert_eq!(relevance(&rows, "\"zz\"", b), [0.0; 7]);
    }

    #[test]
    fn a_prefix_counts_each_word_it_starts() {
        // MariaDB: 'abc*' over these rows is 0.06516405194997787 for each of the four.
        let rows = [
            "abc xyz",
            "abcd stop_me",
            "x",
            "y",
            "z",
            "w",
            "v",
            "abc abc abcd zeta",
            "zeta abcdef",
        ];
        let r = relevance(&rows, "abc*", SearchMode::Boolean);
        for i in [0, 1, 7, 8] {
            assert_eq!(f64::from(r[i]), 0.06516405194997787, "row {i}");
        }
    }
}
