//! utf8mb4_general_ci's weight of every character of the Basic Multilingual Plane, against
//! MariaDB's `WEIGHT_STRING`. manycore derives its weights from Unicode
//! (`manycore_types::collation`); MariaDB's table is older than today's Unicode, so the one
//! difference allowed is a lowercase letter that Unicode gave an uppercase after that
//! table was made: MariaDB weighs it as itself, manycore as its uppercase.

use manycore_testkit::client::opts;
use manycore_testkit::MariaDb;
use manycore_types::collation::char_weight;
use mysql::prelude::Queryable;
use mysql::{Conn, Opts, Row};

/// MariaDB's weight of each character (as a code point), a thousand per query.
fn mariadb_weights(conn: &mut Conn, chars: &[char]) -> Vec<u32> {
    let mut weights = Vec::with_capacity(chars.len());
    for chunk in chars.chunks(1000) {
        let columns: Vec<String> = chunk
            .iter()
            .map(|c| {
                let utf8: String = c.to_string().bytes().map(|b| format!("{b:02X}")).collect();
                format!("HEX(WEIGHT_STRING(_utf8mb4 X'{utf8}' COLLATE utf8mb4_general_ci))")
            })
            .collect();
        let row: Row = conn
            .query_first(format!("SELECT {}", columns.join(",")))
            .expect("SELECT WEIGHT_STRING")
            .expect("one row");
        for (i, c) in chunk.iter().enumerate() {
            let hex: String = row.get(i).expect("a weight");
            let weight = u32::from_str_radix(&hex, 16)
                .unwrap_or_else(|e| panic!("weight {hex:?} of U+{:04X}: {e}", *c as u32));
            weights.push(weight);
        }
    }
    weights
}

#[test]
fn general_ci_weights_match_mariadb() {
    let mariadb = MariaDb::start();
    let mut conn = Conn::new(Opts::from(opts(mariadb.port(), None))).expect("connect");
    // U+0000 has an empty weight string in MariaDB (a single NUL pads like a space).
    let chars: Vec<char> = (1..=0xFFFF).filter_map(char::from_u32).collect();
    let theirs = mariadb_weights(&mut conn, &chars);
    let mut newer_case_pairs = 0;
    let mut unexplained = Vec::new();
    for (&c, &their_weight) in chars.iter().zip(&theirs) {
        let ours = char_weight(c);
        if ours == their_weight {
            continue;
        }
        let mut upper = c.to_uppercase();
        let uppercase = match (upper.next(), upper.next()) {
            (Some(u), None) => u as u32,
            _ => c as u32,
        };
        if their_weight == c as u32 && ours == uppercase && c.is_lowercase() {
            newer_case_pairs += 1;
        } else {
            unexplained.push(format!(
                "U+{:04X} {c}: MariaDB {their_weight:04X}, manycore {ours:04X}",
                c as u32
            ));
        }
    }
    assert!(
        unexplained.is_empty(),
        "{} of {} characters weigh differently in manycore and MariaDB:\n{}",
        unexplained.len(),
        chars.len(),
        unexplained.join("\n")
    );
    // Today's Unicode has a few hundred such letters (Georgian Mkhedruli, Cherokee,
    // Glagolitic, Latin extended B, ...). Many more would mean our uppercasing changed.
    assert!(
        newer_case_pairs < 600,
        "{newer_case_pairs} lowercase letters weigh as their uppercase only in manycore"
    );
    eprintln!(
        "{} BMP characters: same weight as MariaDB's but {newer_case_pairs} newer case pairs",
        chars.len()
    );
}
