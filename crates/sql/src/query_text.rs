//! Query bytes as text, keeping the bytes of binary string literals exact.
//!
//! The parser works on `str`, but a client may put any byte inside a string literal:
//! drivers that quote parameters into the query themselves (go-sql-driver's
//! interpolateParams, Connector/J without server-side prepared statements, PyMySQL) send a
//! BLOB as `_binary'...'` with its bytes as they are, only quotes, backslashes and a few
//! control bytes escaped. A lossy decode would turn each invalid sequence into U+FFFD.
//!
//! So each byte that is not part of valid UTF-8 becomes one *escape character*, the code
//! point `ESCAPE_BASE + byte` at the end of plane 16 (private use), and a literal's bytes
//! are recovered by mapping those code points back ([`literal_bytes`]). A genuine escape
//! character in the query is itself escaped byte by byte, so the mapping is exact.
//!
//! Invariants:
//! (1) `literal_bytes(&decode(q)) == q` for every byte string `q`.
//! (2) Valid UTF-8 without escape characters (every query a normal client sends) is
//!     borrowed as it is: no copy, no allocation.

use std::borrow::Cow;

/// Whether `word` (ASCII) occurs in `text` in any letter case, anywhere: a byte search that
/// lets a parser skip tokenizing a query that cannot hold a clause starting with `word`.
pub fn mentions(text: &str, word: &str) -> bool {
    debug_assert!(word.is_ascii() && !word.is_empty());
    text.as_bytes()
        .windows(word.len())
        .any(|w| w.eq_ignore_ascii_case(word.as_bytes()))
}

/// The escape character of byte `b` is `ESCAPE_BASE + b`: U+10FF00..=U+10FFFF.
const ESCAPE_BASE: u32 = 0x10FF00;
/// Every escape character's UTF-8 encoding starts with these two bytes.
const ESCAPE_PREFIX: [u8; 2] = [0xF4, 0x8F];

/// The query as text (module notes).
pub fn decode(query: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(query) {
        Ok(text) if !contains_escape_prefix(query) => Cow::Borrowed(text),
        _ => Cow::Owned(escape(query)),
    }
}

fn escape(query: &[u8]) -> String {
    let mut text = String::with_capacity(query.len() * 2);
    for chunk in query.utf8_chunks() {
        for c in chunk.valid().chars() {
            if is_escape(c) {
                let mut encoded = [0u8; 4];
                c.encode_utf8(&mut encoded)
                    .bytes()
                    .for_each(|b| text.push(escape_of(b)));
            } else {
                text.push(c);
            }
        }
        chunk
            .invalid()
            .iter()
            .for_each(|&b| text.push(escape_of(b)));
    }
    text
}

fn escape_of(byte: u8) -> char {
    char::from_u32(ESCAPE_BASE + u32::from(byte)).expect("U+10FF00..=U+10FFFF are characters")
}

fn is_escape(c: char) -> bool {
    u32::from(c) >= ESCAPE_BASE
}

/// True if `text` holds escape characters: a literal in it is not plain UTF-8.
pub fn has_escapes(text: &str) -> bool {
    contains_escape_prefix(text.as_bytes()) && text.chars().any(is_escape)
}

/// Every COM_QUERY is scanned: memchr's vectorized search for the first byte, which a
/// normal query never holds. (`memmem::find` builds a searcher per call: ~300 instructions
/// on a point select's text, 4% of its server-side user time.)
fn contains_escape_prefix(bytes: &[u8]) -> bool {
    memchr::memchr_iter(ESCAPE_PREFIX[0], bytes)
        .any(|i| bytes.get(i + 1) == Some(&ESCAPE_PREFIX[1]))
}

/// The bytes the client sent for `text`, a piece of a decoded query.
pub fn literal_bytes(text: &str) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(text.len());
    for c in text.chars() {
        if is_escape(c) {
            bytes.push((u32::from(c) - ESCAPE_BASE) as u8);
        } else {
            bytes.extend_from_slice(c.encode_utf8(&mut [0u8; 4]).as_bytes());
        }
    }
    bytes
}

/// `text` as a character string: what the client sent, with each invalid sequence as
/// U+FFFD (a character string holds UTF-8).
pub fn literal_text(text: &str) -> Cow<'_, str> {
    if has_escapes(text) {
        Cow::Owned(String::from_utf8_lossy(&literal_bytes(text)).into_owned())
    } else {
        Cow::Borrowed(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_utf8_is_borrowed() {
        // U+100000 (F4 80 80 80) and U+10EFFF (F4 8E BF BF) share only the prefix's first byte.
        for query in [
            "SELECT 1",
            "SELECT 'héllo 😀 日本語'",
            "\u{100000}\u{10EFFF}",
            "",
        ] {
            assert!(matches!(decode(query.as_bytes()), Cow::Borrowed(q) if q == query));
        }
    }

    #[test]
    fn every_byte_string_comes_back_exactly() {
        let all_bytes: Vec<u8> = (0..=255u8).collect();
        let genuine_escape = "\u{10FF41}\u{10FFFF}".as_bytes().to_vec();
        let cases: Vec<Vec<u8>> = vec![
            all_bytes.clone(),
            [
                b"INSERT INTO t VALUES (_binary'".as_slice(),
                &all_bytes,
                b"')",
            ]
            .concat(),
            genuine_escape.clone(),
            [b"\xff".as_slice(), &genuine_escape, "é".as_bytes(), b"\xc3"].concat(),
            b"\xf4\x8f".to_vec(),
        ];
        for query in cases {
            let text = decode(&query);
            assert!(matches!(text, Cow::Owned(_)), "{query:?}");
            assert_eq!(literal_bytes(&text), query);
        }
    }

    #[test]
    fn character_literals_replace_invalid_bytes() {
        let text = decode(b"a\xffb\xc3\xa9");
        assert!(has_escapes(&text));
        assert_eq!(literal_text(&text), "a\u{FFFD}bé");
        assert!(!has_escapes("plain é"));
        assert_eq!(literal_text("plain é"), "plain é");
    }
}
