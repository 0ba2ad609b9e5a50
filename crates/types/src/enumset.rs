//! ENUM and SET member lists: how a member's text maps to its position (ENUM) or bit (SET)
//! and back, and how MariaDB prints the list.
//!
//! A cell of an ENUM or SET column holds text (`Value::Bytes`), which is what every string
//! context reads: an ENUM's cell is one member exactly as declared, or '' (MariaDB's
//! invalid value, number 0); a SET's cell is its members as declared, in declaration
//! order, joined by commas. Numeric contexts read the number MariaDB stores instead: the
//! 1-based position of the member (ENUM), or the bitmask with bit i for member i (SET).
//!
//! Invariants:
//! (1) Members are compared under the column's collation (general_ci: case-insensitive,
//!     trailing spaces ignored), so a list never holds two members that compare equal
//!     (the DDL refuses them, 1291) and `position` finds at most one.
//! (2) A SET has at most `SET_MEMBERS_MAX` members and none contains a comma, so a
//!     stored SET text splits back into members unambiguously.

use crate::collation::Collation;
use std::sync::Arc;

/// The declared members of an ENUM or SET, in order.
pub type Members = Arc<[String]>;

/// MariaDB's limits on the member count.
pub const ENUM_MEMBERS_MAX: usize = 65_535;
pub const SET_MEMBERS_MAX: usize = 64;

/// The 0-based index of the member `text` names under `collation`, if any.
pub fn position(members: &[String], collation: Collation, text: &[u8]) -> Option<usize> {
    members
        .iter()
        .position(|m| collation.eq(m.as_bytes(), text))
}

/// The number an ENUM cell reads as: the member's 1-based position, 0 for '' (or any
/// text that is no member, which a stored cell never is).
pub fn enum_number(members: &[String], collation: Collation, cell: &[u8]) -> u64 {
    position(members, collation, cell).map_or(0, |i| i as u64 + 1)
}

/// The bitmask a SET cell reads as; members it does not name count for nothing.
pub fn set_number(members: &[String], collation: Collation, cell: &[u8]) -> u64 {
    let (bits, _) = parse_set(members, collation, cell);
    bits
}

/// The members `text` lists (comma-separated, any order, repeats allowed) as a bitmask,
/// and whether every item named a member. '' is the empty set.
pub fn parse_set(members: &[String], collation: Collation, text: &[u8]) -> (u64, bool) {
    if text.is_empty() {
        return (0, true);
    }
    let mut bits = 0u64;
    let mut all_known = true;
    for item in text.split(|&b| b == b',') {
        match position(members, collation, item) {
            Some(i) => bits |= 1 << i,
            None => all_known = false,
        }
    }
    (bits, all_known)
}

/// The bits a SET of `count` members can hold.
pub fn set_mask(count: usize) -> u64 {
    match count {
        SET_MEMBERS_MAX.. => u64::MAX,
        n => (1u64 << n) - 1,
    }
}

/// The cell of the SET value `bits`: its members in declaration order, comma-joined.
pub fn set_text(members: &[String], bits: u64) -> String {
    members
        .iter()
        .enumerate()
        .filter(|(i, _)| *i < SET_MEMBERS_MAX && bits & (1 << i) != 0)
        .map(|(_, m)| m.as_str())
        .collect::<Vec<_>>()
        .join(",")
}

/// The longest member, in characters: an ENUM's CHARACTER_MAXIMUM_LENGTH.
pub fn enum_max_length(members: &[String]) -> u64 {
    members
        .iter()
        .map(|m| m.chars().count() as u64)
        .max()
        .unwrap_or(0)
}

/// Every member and the commas between them, in characters: a SET's longest value.
pub fn set_max_length(members: &[String]) -> u64 {
    let characters: u64 = members.iter().map(|m| m.chars().count() as u64).sum();
    characters + members.len().saturating_sub(1) as u64
}

/// The member list as SHOW CREATE TABLE prints it: `'a','it''s','b\\c'` (MariaDB's
/// `append_unescaped`: quotes doubled; backslash, NUL, newline and return escaped).
pub fn quoted(members: &[String]) -> String {
    let mut out = String::new();
    for (i, member) in members.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('\'');
        for c in member.chars() {
            match c {
                '\'' => out.push_str("''"),
                '\\' => out.push_str("\\\\"),
                '\0' => out.push_str("\\0"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                c => out.push(c),
            }
        }
        out.push('\'');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members(list: &[&str]) -> Members {
        list.iter().map(|m| m.to_string()).collect()
    }

    #[test]
    fn positions_ignore_case_and_trailing_spaces_under_general_ci() {
        let m = members(&["small", "Medium", "large"]);
        let ci = Collation::Utf8mb4GeneralCi;
        assert_eq!(position(&m, ci, b"MEDIUM  "), Some(1));
        assert_eq!(position(&m, Collation::Utf8mb4Bin, b"MEDIUM"), None);
        assert_eq!(enum_number(&m, ci, b"large"), 3);
        assert_eq!(enum_number(&m, ci, b""), 0);
    }

    #[test]
    fn sets_read_any_order_and_print_in_declaration_order() {
        let m = members(&["x", "y", "z"]);
        let ci = Collation::Utf8mb4GeneralCi;
        assert_eq!(parse_set(&m, ci, b"z,X,z"), (0b101, true));
        assert_eq!(parse_set(&m, ci, b"x,w"), (0b001, false));
        assert_eq!(parse_set(&m, ci, b""), (0, true));
        assert_eq!(set_text(&m, 0b101), "x,z");
        assert_eq!(set_number(&m, ci, b"x,z"), 5);
        assert_eq!(set_mask(3), 7);
        assert_eq!(set_mask(64), u64::MAX);
    }

    #[test]
    fn lengths_and_quoting_follow_mariadb() {
        let m = members(&["it's", "b\\c", "ä"]);
        assert_eq!(quoted(&m), "'it''s','b\\\\c','ä'");
        assert_eq!(enum_max_length(&m), 4);
        assert_eq!(set_max_length(&m), 4 + 3 + 1 + 2);
    }
}
