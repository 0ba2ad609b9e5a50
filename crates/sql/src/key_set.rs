//! A set of byte keys (`exec::group_key`'s) for DISTINCT and UNION: the operators that
//! ask, per row, "was this key seen?".
//!
//! Why not `HashSet<Vec<u8>>`: every new key there is an allocation of its own, and each
//! growth of the table hashes every key again (9% of oltp_read_only's instructions went
//! to that set's inserts and growth). Here the keys lie end to end in one buffer and the
//! table holds each key's hash beside its place, so growth rehashes nothing.
//!
//! A set's table and buffer go back to a per-thread spare when it is dropped, so that a
//! statement run again finds them grown: without that, copying the keys as the buffer
//! grew cost more than the rehashing saved.
//!
//! Invariant: (1) every entry's `hash` is the hash of `bytes[start..end]`.

use hashbrown::HashTable;
use std::cell::Cell;
use std::hash::BuildHasher;

/// A set whose keys took more than this many bytes is not kept as the spare.
const KEPT_BYTES: usize = 1 << 20;

thread_local! {
    // Taken while a set is alive: a set made meanwhile (a nested query's) starts empty.
    static SPARE: Cell<Option<(HashTable<Entry>, Vec<u8>)>> = const { Cell::new(None) };
}

pub struct KeySet {
    entries: HashTable<Entry>,
    bytes: Vec<u8>,
    hasher: foldhash::fast::RandomState,
}

struct Entry {
    hash: u64,
    start: usize,
    end: usize,
}

impl Default for KeySet {
    fn default() -> KeySet {
        let (entries, bytes) = SPARE.take().unwrap_or_default();
        debug_assert!(
            entries.is_empty() && bytes.is_empty(),
            "a spare is kept cleared"
        );
        KeySet {
            entries,
            bytes,
            hasher: foldhash::fast::RandomState::default(),
        }
    }
}

impl Drop for KeySet {
    fn drop(&mut self) {
        if self.bytes.capacity() <= KEPT_BYTES {
            let mut entries = std::mem::take(&mut self.entries);
            entries.clear();
            let mut bytes = std::mem::take(&mut self.bytes);
            bytes.clear();
            SPARE.set(Some((entries, bytes)));
        }
    }
}

impl KeySet {
    /// Adds `key`; whether it was new.
    pub fn insert(&mut self, key: &[u8]) -> bool {
        let hash = self.hasher.hash_one(key);
        let bytes = &self.bytes;
        let entry = self.entries.entry(
            hash,
            |e| e.hash == hash && &bytes[e.start..e.end] == key,
            |e| e.hash,
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(_) => false,
            hashbrown::hash_table::Entry::Vacant(vacant) => {
                let start = self.bytes.len();
                self.bytes.extend_from_slice(key);
                vacant.insert(Entry {
                    hash,
                    start,
                    end: self.bytes.len(),
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
            assert_eq!(set.insert(&key), model.insert(key.clone()), "key {key:?}");
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
