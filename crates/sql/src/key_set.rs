//! A set of byte keys (`exec::group_key`'s) for DISTINCT and UNION: the operators that
//! ask, per row, "was this key seen?".
//!
//! Why not `HashSet<Vec<u8>>`: every new key there is an allocation of its own, and each
//! growth of the table hashes every key again (9% of oltp_read_only's instructions went
//! to that set's inserts and growth). Here the keys lie end to end in one buffer and the
//! table holds each key's hash beside its place, so growth rehashes nothing.
//!
//! A set's table and buffer go back to a per-thread spare (`spare`) when it is dropped, so
//! that a statement run again finds them grown: without that, copying the keys as the buffer
//! grew cost more than the rehashing saved.
//!
//! Invariant: (1) every entry's `hash` is the hash of `bytes[start..end]`.

use crate::spare::{self, Loan};
use hashbrown::HashTable;
use std::cell::Cell;
use std::hash::BuildHasher;

/// A set whose keys took more than this many bytes is not kept as the spare.
const KEPT_BYTES: usize = 1 << 20;

thread_local! {
    static SPARE: Cell<Keys> = const {
        Cell::new(Keys {
            entries: HashTable::new(),
            bytes: Vec::new(),
        })
    };
}

pub struct KeySet {
    keys: Loan<Keys>,
    hasher: foldhash::fast::RandomState,
}

#[derive(Default)]
struct Keys {
    entries: HashTable<Entry>,
    bytes: Vec<u8>,
}

struct Entry {
    hash: u64,
    start: usize,
    end: usize,
}

impl Default for KeySet {
    fn default() -> KeySet {
        let keys = spare::lend(&SPARE, |keys| {
            keys.entries.clear();
            keys.bytes.clear();
            keys.bytes.capacity() <= KEPT_BYTES
        });
        debug_assert!(
            keys.entries.is_empty() && keys.bytes.is_empty(),
            "a spare is kept cleared"
        );
        KeySet {
            keys,
            hasher: foldhash::fast::RandomState::default(),
        }
    }
}

impl KeySet {
    /// Adds `key`; whether it was new.
    pub fn insert(&mut self, key: &[u8]) -> bool {
        self.insert_with(|bytes| bytes.extend_from_slice(key))
    }

    /// Adds the key `write` appends to the buffer it is given (and must not otherwise
    /// change); whether it was new. The key is built in place: a new one is not copied,
    /// a repeated one is cut off again.
    pub fn insert_with(&mut self, write: impl FnOnce(&mut Vec<u8>)) -> bool {
        let Keys { entries, bytes } = &mut *self.keys;
        let start = bytes.len();
        write(bytes);
        debug_assert!(bytes.len() >= start, "a key is only appended");
        let key = &bytes[start..];
        let hash = self.hasher.hash_one(key);
        let entry = entries.entry(
            hash,
            |e| e.hash == hash && &bytes[e.start..e.end] == key,
            |e| e.hash,
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(_) => {
                bytes.truncate(start);
                false
            }
            hashbrown::hash_table::Entry::Vacant(vacant) => {
                vacant.insert(Entry {
                    hash,
                    start,
                    end: bytes.len(),
                });
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::KeySet;
    use std::collections::HashSet;

    #[test]
    fn agrees_with_a_hash_set_over_repeated_and_empty_keys() {
        let mut set = KeySet::default();
        let mut model = HashSet::new();
        // Keys of many lengths, most repeated, the empty key among them: enough to make
        // the table grow several times.
        let mut x: u64 = 7;
        for _ in 0..5000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let length = (x >> 60) as usize;
            let key: Vec<u8> = (0..length)
                .map(|i| (x >> (8 * (i % 7))) as u8 % 3)
                .collect();
            // Both ways in: a copied key, and one built in place.
            let added = match x & 1 {
                0 => set.insert(&key),
                _ => set.insert_with(|bytes| bytes.extend_from_slice(&key)),
            };
            assert_eq!(added, model.insert(key.clone()), "key {key:?}");
        }
        assert!(model.contains(&Vec::new()), "the empty key was tried");
    }

    #[test]
    fn a_set_made_after_another_was_dropped_starts_empty() {
        let mut first = KeySet::default();
        assert!(first.insert(b"a"));
        // A set made while the first is alive (a nested query's) is its own.
        let mut nested = KeySet::default();
        assert!(nested.insert(b"a"));
        drop(nested);
        drop(first);
        let mut next = KeySet::default();
        assert!(next.insert(b"a"), "the spare came back cleared");
        assert!(!next.insert(b"a"));
    }
}
