//! String comparison rules.
//!
//! MariaDB's default collation for utf8mb4 is `utf8mb4_general_ci`: one weight per
//! character, which ignores case and accents ('é' = 'E', 'ß' = 's'), and trailing spaces
//! ignored (PAD SPACE). `utf8mb4_bin` orders by code point, which for valid UTF-8 is the
//! order of the bytes, also with trailing spaces ignored. Binary strings compare byte by
//! byte, spaces and all.
//!
//! A character's weight (`char_weight`) is derived from Unicode, not copied from a table:
//! in the Latin, Greek and Cyrillic blocks a precomposed letter weighs as its base letter
//! (the first character of its canonical decomposition, when that recomposes to it), then
//! every character weighs as its simple uppercase; outside the Basic Multilingual Plane
//! every character weighs as U+FFFD. Three exceptions follow MariaDB: 'ß' weighs as 'S',
//! Cyrillic 'Й' keeps its breve, and the lunate sigma 'ϲ' weighs as 'Σ'. The table is
//! built on first use (~2 ms). `tests/collation_weights.rs` (testkit) compares every BMP
//! character with MariaDB's `WEIGHT_STRING`: they differ only where Unicode gave a
//! lowercase letter its uppercase after MariaDB's table was made (e.g. U+0180 'ƀ'), which
//! MariaDB weighs as itself.
//!
//! Not yet MariaDB's (both PAD SPACE collations): PAD SPACE pads the shorter string with
//! spaces, so MariaDB orders 'a\tb' below 'a'; trimmed weights order it above.
//!
//! Weights are index keys, which the log and checkpoints store: changing any weight needs
//! a new log record format version (`manycore_wal::record::FORMAT_VERSION`).
//!
//! Invariant: `compare(a, b) == Equal` iff `weight(a) == weight(b)`, and the byte order of
//! weights is the collation order, so indexes (which store weights) agree with comparisons.

use std::cmp::Ordering;
use unicode_normalization::UnicodeNormalization;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Collation {
    Utf8mb4GeneralCi,
    Utf8mb4Bin,
    Binary,
}

impl Collation {
    /// The collation named `name` (any case), among those manycore implements.
    pub fn from_name(name: &str) -> Option<Collation> {
        [
            Collation::Utf8mb4GeneralCi,
            Collation::Utf8mb4Bin,
            Collation::Binary,
        ]
        .into_iter()
        .find(|c| c.name().eq_ignore_ascii_case(name))
    }

    /// MariaDB's name, as SHOW and information_schema print it.
    pub fn name(self) -> &'static str {
        match self {
            Collation::Utf8mb4GeneralCi => "utf8mb4_general_ci",
            Collation::Utf8mb4Bin => "utf8mb4_bin",
            Collation::Binary => "binary",
        }
    }

    /// The most bytes one character takes (MariaDB's `mbmaxlen`).
    pub fn max_bytes_per_char(self) -> u64 {
        match self {
            Collation::Utf8mb4GeneralCi | Collation::Utf8mb4Bin => 4,
            Collation::Binary => 1,
        }
    }

    /// MariaDB's collation id, which the protocol's column definitions carry.
    pub fn id(self) -> u16 {
        match self {
            Collation::Utf8mb4GeneralCi => 45,
            Collation::Utf8mb4Bin => 46,
            Collation::Binary => 63,
        }
    }

    pub fn compare(self, a: &[u8], b: &[u8]) -> Ordering {
        match self {
            Collation::Binary => a.cmp(b),
            Collation::Utf8mb4Bin => trim_trailing_spaces(a).cmp(trim_trailing_spaces(b)),
            Collation::Utf8mb4GeneralCi => {
                compare_general_ci(trim_trailing_spaces(a), trim_trailing_spaces(b))
            }
        }
    }

    pub fn eq(self, a: &[u8], b: &[u8]) -> bool {
        self.compare(a, b) == Ordering::Equal
    }

    /// The first `length` characters of `s` (bytes for binary strings): what an index
    /// key part declared `c(length)` holds. Characters are counted by their leading bytes.
    pub fn prefix(self, s: &[u8], length: u32) -> &[u8] {
        let length = length as usize;
        match self {
            Collation::Binary => &s[..s.len().min(length)],
            Collation::Utf8mb4GeneralCi | Collation::Utf8mb4Bin => {
                // A character starts at every byte that is not a continuation byte.
                let end = s
                    .iter()
                    .enumerate()
                    .filter(|&(_, &b)| b & 0xC0 != 0x80)
                    .nth(length)
                    .map_or(s.len(), |(i, _)| i);
                &s[..end]
            }
        }
    }

    /// Appends the sort weight of `s`: bytes whose order is the collation order.
    /// For general_ci each character's `char_weight`, big-endian in 3 bytes; for bin the
    /// trimmed bytes (UTF-8's byte order is its code point order).
    pub fn append_weight(self, s: &[u8], out: &mut Vec<u8>) {
        match self {
            Collation::Binary => out.extend_from_slice(s),
            Collation::Utf8mb4Bin => out.extend_from_slice(trim_trailing_spaces(s)),
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
                    for weight in char_weights(s) {
                        out.extend_from_slice(&weight.to_be_bytes()[1..]);
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
            return char_weights(a).cmp(char_weights(b));
        }
        match x.to_ascii_uppercase().cmp(&y.to_ascii_uppercase()) {
            Ordering::Equal => at += 1,
            order => return order,
        }
    }
    let longer = if a.len() > b.len() { a } else { b };
    if longer.get(common).is_some_and(|&c| c & 0xC0 == 0x80) {
        // The shorter one ends inside a character: a truncated one, which weighs as U+FFFD.
        return char_weights(a).cmp(char_weights(b));
    }
    // One is a prefix of the other, as characters: trimmed, the longer one has more.
    a.len().cmp(&b.len())
}

/// The weight of each character, U+FFFD's for each invalid sequence (as a lossy UTF-8
/// decode gives).
fn char_weights(s: &[u8]) -> impl Iterator<Item = u32> + '_ {
    s.utf8_chunks().flat_map(|chunk| {
        let invalid = (!chunk.invalid().is_empty()).then_some('\u{FFFD}');
        chunk.valid().chars().chain(invalid).map(char_weight)
    })
}

fn trim_trailing_spaces(s: &[u8]) -> &[u8] {
    let end = s.iter().rposition(|&c| c != b' ').map_or(0, |p| p + 1);
    &s[..end]
}

/// utf8mb4_general_ci's weight of one character: a code point, equal for characters the
/// collation does not tell apart (LIKE compares characters by it too).
pub fn char_weight(c: char) -> u32 {
    if c.is_ascii() {
        return u32::from(c.to_ascii_uppercase() as u8);
    }
    match BMP_WEIGHTS.get(c as usize) {
        Some(&weight) => u32::from(weight),
        None => 0xFFFD,
    }
}

/// Every BMP character's weight, derived once (~65k decompositions) on first use.
static BMP_WEIGHTS: std::sync::LazyLock<Box<[u16]>> = std::sync::LazyLock::new(|| {
    (0..=0xFFFF_u32)
        .map(|code| char::from_u32(code).map_or(code as u16, derive_weight))
        .collect()
});

/// See the module notes. Only for BMP characters (the result must fit 16 bits).
fn derive_weight(c: char) -> u16 {
    let weight = match c {
        'ß' => 'S',
        'Й' | 'й' => 'Й',
        'ϲ' => 'Σ',
        _ => simple_uppercase(base_letter(c).unwrap_or(c)),
    };
    u16::try_from(weight as u32).expect("a BMP character's uppercase is in the BMP")
}

/// The letter a precomposed Latin, Greek or Cyrillic letter is built on ('é' -> 'e'), if
/// `c` is one: its canonical decomposition starts with a letter and recomposes to `c`
/// (which leaves out singletons such as U+1F71, a compatibility copy of U+03AC).
fn base_letter(c: char) -> Option<char> {
    let accented_blocks = |c: char| matches!(c, '\u{80}'..='\u{52F}' | '\u{1E00}'..='\u{1FFF}');
    if !accented_blocks(c) {
        return None;
    }
    let mut parts = Vec::new();
    unicode_normalization::char::decompose_canonical(c, |part| parts.push(part));
    let base = parts[0];
    let recomposes = parts.iter().copied().nfc().eq(std::iter::once(c));
    (parts.len() > 1 && base.is_alphabetic() && recomposes).then_some(base)
}

fn simple_uppercase(c: char) -> char {
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
        assert!(ci.eq("straße".as_bytes(), "STRASE".as_bytes()));
        assert!(ci.eq("Élan".as_bytes(), "elan".as_bytes()));
        assert!(ci.eq("Ÿ".as_bytes(), "y".as_bytes()));
        assert!(!ci.eq("Й".as_bytes(), "и".as_bytes()));
        assert_eq!(ci.compare("é".as_bytes(), b"f"), Ordering::Less);
        assert_eq!(ci.compare(b"a", b"B"), Ordering::Less);
        assert_eq!(Collation::Binary.compare(b"a", b"B"), Ordering::Greater);
        let (mut wa, mut wb) = (Vec::new(), Vec::new());
        ci.append_weight("éa".as_bytes(), &mut wa);
        ci.append_weight("ÉA ".as_bytes(), &mut wb);
        assert_eq!(wa, wb);
    }

    #[test]
    fn bin_tells_case_apart_but_ignores_trailing_spaces() {
        let bin = Collation::Utf8mb4Bin;
        assert!(!bin.eq(b"a", b"A"));
        assert!(bin.eq(b"a", b"a  "));
        assert!(!bin.eq("é".as_bytes(), b"e"));
        assert_eq!(bin.compare(b"B", b"a"), Ordering::Less);
        assert_eq!(bin.compare("é".as_bytes(), "😀".as_bytes()), Ordering::Less);
        assert_eq!(bin.prefix("héllo".as_bytes(), 2), "hé".as_bytes());
        for c in [
            Collation::Utf8mb4GeneralCi,
            Collation::Utf8mb4Bin,
            Collation::Binary,
        ] {
            assert_eq!(Collation::from_name(&c.name().to_uppercase()), Some(c));
        }
        assert_eq!(Collation::from_name("utf8mb4_unicode_ci"), None);
    }

    #[test]
    fn prefixes_count_characters_or_bytes() {
        let ci = Collation::Utf8mb4GeneralCi;
        assert_eq!(ci.prefix("héllo".as_bytes(), 2), "hé".as_bytes());
        assert_eq!(ci.prefix("héllo".as_bytes(), 9), "héllo".as_bytes());
        assert_eq!(ci.prefix("😀ab".as_bytes(), 1), "😀".as_bytes());
        assert_eq!(ci.prefix(b"abc", 0), b"");
        assert_eq!(Collation::Binary.prefix("héllo".as_bytes(), 2), b"h\xC3");
    }

    /// The invariant of the module notes, on strings where the fast paths and the general
    /// one meet: case, trailing spaces, prefixes, non-ASCII and invalid UTF-8 at and after
    /// the first difference.
    #[test]
    fn compare_agrees_with_weights() {
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
        let weight = |collation: Collation, s: &[u8]| {
            let mut w = Vec::new();
            collation.append_weight(s, &mut w);
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
        for collation in [Collation::Utf8mb4GeneralCi, Collation::Utf8mb4Bin] {
            for a in &all {
                for b in &all {
                    assert_eq!(
                        collation.compare(a, b),
                        weight(collation, a).cmp(&weight(collation, b)),
                        "{collation:?}: {:?} vs {:?}",
                        String::from_utf8_lossy(a),
                        String::from_utf8_lossy(b)
                    );
                }
            }
        }
    }
}
