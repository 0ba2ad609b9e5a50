//! String comparison rules.
//!
//! MariaDB's default collation for utf8mb4 is `utf8mb4_general_ci`: case-insensitive,
//! trailing spaces ignored (PAD SPACE). We model it as "compare the per-character simple
//! uppercase folding, with trailing spaces trimmed". Binary strings compare byte by byte.
//!
//! Not yet MariaDB's: general_ci also ignores accents ('é' = 'E', 'Ÿ' = 'y') and weighs
//! 'ß' as 's'; here those differ. Changing weights changes index keys, which the log and
//! checkpoints store, so it needs a data-format version step.
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
                compare_general_ci(trim_trailing_spaces(a), trim_trailing_spaces(b))
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
                if s.is_ascii() {
                    // Most strings: no Unicode case tables, no UTF-8 decoding, no
                    // capacity check per character.
                    let start = out.len();
                    out.resize(start + 3 * s.len(), 0);
                    for (weight, &c) in out[start..].chunks_exact_mut(3).zip(s) {
                        weight[2] = c.to_ascii_uppercase();
                    }
                } else {
                    for c in folded_code_points(s) {
                        out.extend_from_slice(&c.to_be_bytes()[1..]);
                    }
                }
            }
        }
    }
}

/// general_ci order of trimmed strings, equal to the order of their weights. Sorting and
/// DISTINCT compare strings many times each, and two strings usually differ early: the
/// bytes they share are skipped as they are (equal bytes weigh the same), and only where
/// they differ is a character folded. A difference at a non-ASCII byte compares weights.
fn compare_general_ci(a: &[u8], b: &[u8]) -> Ordering {
    let common = a.len().min(b.len());
    let mut at = 0;
    while at < common {
        at += a[at..common]
            .iter()
            .zip(&b[at..common])
            .position(|(x, y)| x != y)
            .unwrap_or(common - at);
        if at == common {
            break;
        }
        let (x, y) = (a[at], b[at]);
        if !(x.is_ascii() && y.is_ascii()) {
            return folded_code_points(a).cmp(folded_code_points(b));
        }
        match x.to_ascii_uppercase().cmp(&y.to_ascii_uppercase()) {
            Ordering::Equal => at += 1,
            order => return order,
        }
    }
    let longer = if a.len() > b.len() { a } else { b };
    if longer.get(common).is_some_and(|&c| c & 0xC0 == 0x80) {
        // The shorter one ends inside a character: a truncated one, which weighs as U+FFFD.
        return folded_code_points(a).cmp(folded_code_points(b));
    }
    // One is a prefix of the other, as characters: trimmed, the longer one has more.
    a.len().cmp(&b.len())
}

/// The folded code point of each character, U+FFFD for each invalid sequence (as a lossy
/// UTF-8 decode gives).
fn folded_code_points(s: &[u8]) -> impl Iterator<Item = u32> + '_ {
    s.utf8_chunks().flat_map(|chunk| {
        let invalid = (!chunk.invalid().is_empty()).then_some('\u{FFFD}');
        chunk
            .valid()
            .chars()
            .chain(invalid)
            .map(|c| fold_char(c) as u32)
    })
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

    /// The invariant of the module notes, on strings where the fast paths and the general
    /// one meet: case, trailing spaces, prefixes, non-ASCII and invalid UTF-8 at and after
    /// the first difference.
    #[test]
    fn general_ci_compare_agrees_with_weights() {
        let ci = Collation::Utf8mb4GeneralCi;
        let strings: &[&[u8]] = &[
            b"",
            b" ",
            b"a",
            b"A",
            b"a ",
            b"ab",
            b"aB",
            b"abc",
            b"ab c",
            b"ab\t",
            b"b",
            b"Z",
            b"_",
            b"[",
            b"a\xff",
            b"a\xfe",
            b"a\xff ",
            b"\xc3",
            b"\xc3\xa9",
            "é".as_bytes(),
            "É".as_bytes(),
            "éa".as_bytes(),
            "ÉB".as_bytes(),
            "aé".as_bytes(),
            "aÉ ".as_bytes(),
            "a\u{10400}".as_bytes(),
            "a\u{FFFD}".as_bytes(),
            "ß".as_bytes(),
            "SS".as_bytes(),
            "z".as_bytes(),
            "ÿ".as_bytes(),
            "Ÿ".as_bytes(),
        ];
        let weight = |s: &[u8]| {
            let mut w = Vec::new();
            ci.append_weight(s, &mut w);
            w
        };
        // And every string of up to 3 bytes from an alphabet of ASCII, space, tab, UTF-8
        // lead and continuation bytes and an invalid byte.
        let alphabet = [b'a', b'A', b'b', b' ', b'\t', 0xC3, 0xA9, 0x89, 0xFF];
        let mut short: Vec<Vec<u8>> = vec![Vec::new()];
        for length in 1..=3 {
            let mut next = Vec::new();
            for s in short.iter().filter(|s| s.len() == length - 1) {
                for &c in &alphabet {
                    next.push([&s[..], &[c]].concat());
                }
            }
            short.extend(next);
        }
        let all: Vec<&[u8]> = strings
            .iter()
            .copied()
            .chain(short.iter().map(|s| &s[..]))
            .collect();
        for a in &all {
            for b in &all {
                assert_eq!(
                    ci.compare(a, b),
                    weight(a).cmp(&weight(b)),
                    "{:?} vs {:?}",
                    String::from_utf8_lossy(a),
                    String::from_utf8_lossy(b)
                );
            }
        }
    }
}
