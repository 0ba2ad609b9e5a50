//! String comparison rules.
//!
//! MariaDB's default collation for utf8mb4 is `utf8mb4_general_ci`: case-insensitive,
//! accent-sensitive for most letters, trailing spaces ignored (PAD SPACE). We model it as
//! "compare the per-character simple uppercase folding, with trailing spaces trimmed".
//! Binary strings compare byte by byte.
//!
//! Invariant: `compare(a, b) == Equal` iff `weight(a) == weight(b)`, and the byte order of
//! weights is the collation order, so indexes (which store weights) agree with comparisons.

use std::cmp::Ordering;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Collation {
    Utf8mb4GeneralCi,
    Binary,
}

impl Collation {
    pub fn compare(self, a: &[u8], b: &[u8]) -> Ordering {
        match self {
            Collation::Binary => a.cmp(b),
            Collation::Utf8mb4GeneralCi => {
                let (a, b) = (trim_trailing_spaces(a), trim_trailing_spaces(b));
                if a.is_ascii() && b.is_ascii() {
                    let fold = |c: &u8| c.to_ascii_uppercase();
                    return a.iter().map(fold).cmp(b.iter().map(fold));
                }
                let mut wa = Vec::new();
                let mut wb = Vec::new();
                self.append_weight(a, &mut wa);
                self.append_weight(b, &mut wb);
                wa.cmp(&wb)
            }
        }
    }

    pub fn eq(self, a: &[u8], b: &[u8]) -> bool {
        self.compare(a, b) == Ordering::Equal
    }

    /// Appends the sort weight of `s`: bytes whose order is the collation order.
    /// For general_ci each character's simple uppercase code point, big-endian in 3 bytes.
    pub fn append_weight(self, s: &[u8], out: &mut Vec<u8>) {
        match self {
            Collation::Binary => out.extend_from_slice(s),
            Collation::Utf8mb4GeneralCi => {
                let s = trim_trailing_spaces(s);
                for c in String::from_utf8_lossy(s).chars() {
                    let folded = fold_char(c) as u32;
                    out.extend_from_slice(&folded.to_be_bytes()[1..]);
                }
            }
        }
    }
}

fn trim_trailing_spaces(s: &[u8]) -> &[u8] {
    let end = s.iter().rposition(|&c| c != b' ').map_or(0, |p| p + 1);
    &s[..end]
}

/// Simple uppercase mapping of one character, as general_ci's weight table does
/// for the Basic Multilingual Plane; characters outside it weigh as U+FFFD.
fn fold_char(c: char) -> char {
    if (c as u32) > 0xFFFF {
        return '\u{FFFD}';
    }
    let mut upper = c.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(u), None) => u,
        _ => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn general_ci_ignores_case_and_trailing_spaces() {
        let ci = Collation::Utf8mb4GeneralCi;
        assert!(ci.eq(b"abc", b"ABC  "));
        assert!(!ci.eq("straße".as_bytes(), "STRASSE".as_bytes()));
        assert_eq!(ci.compare(b"a", b"B"), Ordering::Less);
        assert_eq!(Collation::Binary.compare(b"a", b"B"), Ordering::Greater);
        let (mut wa, mut wb) = (Vec::new(), Vec::new());
        ci.append_weight("éa".as_bytes(), &mut wa);
        ci.append_weight("ÉA ".as_bytes(), &mut wb);
        assert_eq!(wa, wb);
    }
}
