//! caching_sha2_password's stored form: SHA-256 crypt (Drepper's "$5$" algorithm) with
//! MySQL's framing, as kept in `mysql.user.authentication_string`:
//!
//!   "$A$" | 3 digits: rounds / 1000 | "$" | 20-byte salt | 43 characters of crypt base64
//!
//! MySQL uses a 20-byte salt (the "$5$" format stops at 16); the digest is the standard
//! algorithm over the whole salt, so a hash made here verifies in MySQL and back.
//!
//! Invariants:
//! (1) The salt is drawn from the crypt alphabet, so the stored form is printable ASCII
//!     and never contains '$' past the header.
//! (2) Verification recomputes the digest and compares in constant time (auth invariant (2)).

use crate::auth::constant_time_eq;
use rand::RngExt;
use sha2::{Digest, Sha256};

pub const SALT_LEN: usize = 20;
/// MySQL's default: 5,000 rounds ("005").
pub const ROUNDS_DEFAULT: u32 = 5_000;
const DIGEST_TEXT_LEN: usize = 43;
const ALPHABET: &[u8; 64] = b"./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/// Upper bound on rounds accepted from a stored hash (MySQL allows up to 999 * 1000).
const ROUNDS_MAX: u32 = 999_000;

/// The "$A$005$<salt><digest>" text for `password` with a fresh random salt.
pub fn mysql_hash(password: &[u8]) -> String {
    let mut rng = rand::rng();
    let salt: Vec<u8> = (0..SALT_LEN)
        .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())])
        .collect();
    mysql_hash_with_salt(password, &salt, ROUNDS_DEFAULT)
}

pub fn mysql_hash_with_salt(password: &[u8], salt: &[u8], rounds: u32) -> String {
    let digest = crypt_text(password, salt, rounds);
    let mut out = format!("$A${:03}$", rounds / 1000);
    out.push_str(&String::from_utf8_lossy(salt));
    out.push_str(&digest);
    out
}

/// Whether `stored` is well-formed MySQL caching_sha2 text (rounds, salt, digest length).
pub fn is_mysql_hash(stored: &str) -> bool {
    parse(stored).is_some()
}

fn parse(stored: &str) -> Option<(u32, &[u8], &[u8])> {
    let bytes = stored.as_bytes();
    let rest = bytes.strip_prefix(b"$A$")?;
    let (digits, rest) = (rest.get(..3)?, rest.get(3..)?);
    let rounds = std::str::from_utf8(digits).ok()?.parse::<u32>().ok()? * 1000;
    let rest = rest.strip_prefix(b"$")?;
    if rest.len() != SALT_LEN + DIGEST_TEXT_LEN || rounds == 0 || rounds > ROUNDS_MAX {
        return None;
    }
    Some((rounds, &rest[..SALT_LEN], &rest[SALT_LEN..]))
}

/// Checks a cleartext password against the stored text (invariant (2)).
pub fn verify_mysql_hash(password: &[u8], stored: &str) -> bool {
    let Some((rounds, salt, digest)) = parse(stored) else {
        return false;
    };
    constant_time_eq(crypt_text(password, salt, rounds).as_bytes(), digest)
}

fn sha256(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

/// Bytes of `block` repeated to `len` bytes (the P and S sequences of the algorithm).
fn repeated(block: &[u8; 32], len: usize) -> Vec<u8> {
    block.iter().copied().cycle().take(len).collect()
}

/// The 43-character crypt base64 of the SHA-256 crypt digest.
fn crypt_text(key: &[u8], salt: &[u8], rounds: u32) -> String {
    let b = sha256(&[key, salt, key]);
    let mut a = Sha256::new();
    a.update(key);
    a.update(salt);
    let mut remaining = key.len();
    while remaining > 32 {
        a.update(b);
        remaining -= 32;
    }
    a.update(&b[..remaining]);
    let mut bits = key.len();
    while bits > 0 {
        if bits & 1 == 1 {
            a.update(b);
        } else {
            a.update(key);
        }
        bits >>= 1;
    }
    let a: [u8; 32] = a.finalize().into();

    let mut dp = Sha256::new();
    for _ in 0..key.len() {
        dp.update(key);
    }
    let p = repeated(&dp.finalize().into(), key.len());
    let mut ds = Sha256::new();
    for _ in 0..16 + a[0] as usize {
        ds.update(salt);
    }
    let s = repeated(&ds.finalize().into(), salt.len());

    let mut c = a;
    for round in 0..rounds {
        let mut h = Sha256::new();
        if round & 1 == 1 {
            h.update(&p);
        } else {
            h.update(c);
        }
        if round % 3 != 0 {
            h.update(&s);
        }
        if round % 7 != 0 {
            h.update(&p);
        }
        if round & 1 == 1 {
            h.update(c);
        } else {
            h.update(&p);
        }
        c = h.finalize().into();
    }

    const ORDER: [(usize, usize, usize); 10] = [
        (0, 10, 20),
        (21, 1, 11),
        (12, 22, 2),
        (3, 13, 23),
        (24, 4, 14),
        (15, 25, 5),
        (6, 16, 26),
        (27, 7, 17),
        (18, 28, 8),
        (9, 19, 29),
    ];
    let mut out = String::with_capacity(DIGEST_TEXT_LEN);
    let mut push = |b2: u8, b1: u8, b0: u8, n: usize| {
        let mut w = (u32::from(b2) << 16) | (u32::from(b1) << 8) | u32::from(b0);
        for _ in 0..n {
            out.push(ALPHABET[(w & 0x3f) as usize] as char);
            w >>= 6;
        }
    };
    for (x, y, z) in ORDER {
        push(c[x], c[y], c[z], 4);
    }
    push(0, c[31], c[30], 3);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_sha256_crypt_reference_vector() {
        // `openssl passwd -5 -salt saltstring "Hello world!"` (5000 rounds, the default).
        assert_eq!(
            crypt_text(b"Hello world!", b"saltstring", 5000),
            "5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5"
        );
    }

    #[test]
    fn mysql_form_round_trips() {
        let stored = mysql_hash(b"secret");
        assert!(stored.starts_with("$A$005$"));
        assert_eq!(stored.len(), 7 + SALT_LEN + DIGEST_TEXT_LEN);
        assert!(is_mysql_hash(&stored));
        assert!(verify_mysql_hash(b"secret", &stored));
        assert!(!verify_mysql_hash(b"secreT", &stored));
        assert!(!verify_mysql_hash(b"", &stored));
        assert!(!verify_mysql_hash(b"secret", "$A$005$short"));
        assert!(!is_mysql_hash("*14E65567ABDB5135D0CFD9A70B3032C179A49EE7"));
    }
}
