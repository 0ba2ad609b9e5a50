//! LIKE pattern matching: `%` any run, `_` one character, the escape character (default
//! `\`) makes the next character literal. Under utf8mb4_general_ci characters compare by
//! their weight (case and accents ignored); under binary, byte by byte. Unlike `=`, trailing spaces count.
//!
//! Invariant: matching is iterative with one backtrack point per `%` (the classic
//! greedy algorithm), so a pattern cannot make it take exponential time.

use manycore_types::collation::char_weight;
use manycore_types::Collation;

#[derive(Clone, Copy, PartialEq)]
enum Token<T> {
    Any,
    One,
    Literal(T),
}

fn tokenize<T: Copy + PartialEq>(
    pattern: &[T],
    escape: Option<T>,
    percent: T,
    underscore: T,
) -> Vec<Token<T>> {
    let mut out = Vec::with_capacity(pattern.len());
    let mut i = 0;
    while i < pattern.len() {
        let c = pattern[i];
        if Some(c) == escape && i + 1 < pattern.len() {
            out.push(Token::Literal(pattern[i + 1]));
            i += 2;
            continue;
        }
        out.push(if c == percent {
            Token::Any
        } else if c == underscore {
            Token::One
        } else {
            Token::Literal(c)
        });
        i += 1;
    }
    out
}

fn matches<T: Copy + PartialEq>(text: &[T], pattern: &[Token<T>]) -> bool {
    let (mut t, mut p) = (0, 0);
    let mut backtrack: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some(Token::Any) => {
                backtrack = Some((p, t));
                p += 1;
                continue;
            }
            Some(Token::One) => {
                t += 1;
                p += 1;
                continue;
            }
            Some(Token::Literal(c)) if *c == text[t] => {
                t += 1;
                p += 1;
                continue;
            }
            _ => {}
        }
        match backtrack {
            Some((bp, bt)) => {
                backtrack = Some((bp, bt + 1));
                p = bp + 1;
                t = bt + 1;
            }
            None => return false,
        }
    }
    pattern[p.min(pattern.len())..]
        .iter()
        .all(|tok| *tok == Token::Any)
}

/// `text LIKE pattern ESCAPE escape`.
pub fn like(text: &[u8], pattern: &[u8], escape: Option<char>, collation: Collation) -> bool {
    match collation {
        Collation::Binary => {
            let escape = escape.and_then(|c| u8::try_from(c as u32).ok());
            matches(text, &tokenize(pattern, escape, b'%', b'_'))
        }
        Collation::Utf8mb4GeneralCi | Collation::Utf8mb4Bin => {
            // Characters match by their weight: general_ci's, or the code point for bin.
            let weight = match collation {
                Collation::Utf8mb4GeneralCi => char_weight,
                _ => u32::from,
            };
            let text: Vec<u32> = String::from_utf8_lossy(text).chars().map(weight).collect();
            let pattern: Vec<char> = String::from_utf8_lossy(pattern).chars().collect();
            let tokens: Vec<Token<u32>> = tokenize(&pattern, escape, '%', '_')
                .into_iter()
                .map(|t| match t {
                    Token::Literal(c) => Token::Literal(weight(c)),
                    Token::Any => Token::Any,
                    Token::One => Token::One,
                })
                .collect();
            matches(&text, &tokens)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        let ci = Collation::Utf8mb4GeneralCi;
        let cases: &[(&str, &str, Option<char>, bool)] = &[
            ("abc", "A%", Some('\\'), true),
            ("abc", "%c", Some('\\'), true),
            ("abc", "a_c", Some('\\'), true),
            ("abc", "a_", Some('\\'), false),
            ("a_c", "a\\_c", Some('\\'), true),
            ("abc", "a\\_c", Some('\\'), false),
            ("abc", "a!%", Some('!'), false),
            ("a%", "a!%", Some('!'), true),
            ("", "%", Some('\\'), true),
            ("", "_", Some('\\'), false),
            ("abc ", "abc", Some('\\'), false),
            ("mississippi", "%iss%ppi", Some('\\'), true),
            ("Ärger", "ä%", Some('\\'), true),
            ("Ärger", "a%", Some('\\'), true),
            ("naïve", "%I_E", Some('\\'), true),
        ];
        for (text, pattern, escape, want) in cases {
            assert_eq!(
                like(text.as_bytes(), pattern.as_bytes(), *escape, ci),
                *want,
                "{text} LIKE {pattern}"
            );
        }
        assert!(!like(b"abc", b"A%", Some('\\'), Collation::Binary));
        let bin = Collation::Utf8mb4Bin;
        assert!(!like(b"abc", b"A%", Some('\\'), bin));
        assert!(like(b"abc", b"a%", Some('\\'), bin));
        assert!(like("é".as_bytes(), b"_", Some('\\'), bin));
        assert!(!like("é".as_bytes(), b"e", Some('\\'), bin));
    }
}
