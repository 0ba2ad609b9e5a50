//! Index numbering, key ranges, and the maps every index is stored in.
//!
//! A primary index maps the encoded primary key to its slot. A secondary index maps
//! `encode(index columns) ++ encoded primary key` to the slot, so its keys are unique even
//! for non-unique indexes. Secondary entries may be stale (the row moved to another key
//! and the old entry is not yet collected); readers re-check the visible row's key.
//!
//! Ranges are given as value prefixes of the index columns. Because every encoded field
//! starts with a tag byte below 0xFF, "all keys that start with prefix P" is
//! `[P, P ++ 0xFF)`.
//!
//! `OrderedIndex` is a lock-free skip list (crossbeam-skiplist) from encoded key to row slot.
//! It replaced `scc::TreeIndex` 3.8.8, whose `range` transiently yields nothing at all
//! while a concurrent insert or remove restructures the tree (up to a third of scans over
//! an 80-key tree with two writers; the test below is that workload), which would make a
//! table look empty to a SELECT. The price is point-read speed: a random get over 100k rows
//! costs about 3 us (pointer chasing through the towers, and a key dereference per
//! comparison), against about 0.6 us walking keys in order (examples/storage_bench.rs).
//!
//! So the primary index (`PrimaryIndex`) is two maps over the same slots: the skip list for
//! ranges, and an `scc::HashIndex` keyed by the slot's own key for equality on the full
//! primary key (`WHERE id = ?`, and `IN` lists through `Table::scan`). A random get over
//! 100k rows went from 1,915 to 520 instructions (callgrind) and from ~2.5 us to ~0.65 us of
//! CPU (storage_bench; docs/performance.md). The hash index stores only the `Arc<RowSlot>`
//! (its key is the slot's key), so it adds no key copy. Its price is paid by writers and
//! restart: ~0.3-0.6 us of CPU per recovered row (docs/durability.md).
//! Its reads are lock-free (bucket bitmaps under an `sdd` epoch guard); while it resizes a
//! reader may move one bucket with a try-lock (never waits), and a moved entry is written
//! to its new bucket before it is cleared from the old one, which readers check first, so
//! a present key is never missed (tested below, with both growing and shrinking).
//!
//! Invariants:
//! (1) A range visits, in key order, every entry present from the start to the end of the
//!     iteration; entries inserted or removed meanwhile may or may not appear. Readers
//!     re-check rows, so either is harmless.
//! (2) Point lookups and range scans take no lock and write no shared memory other than
//!     the epoch pin (no reference counts on entries), except that a hash lookup during a
//!     resize may help move one bucket (a try-lock, never a wait).
//! (3) A key maps to at most one slot; `remove_if` removes only the entry holding the given
//!     slot, never a newer entry with the same key.
//! (4) The primary hash index holds a subset of the ordered index's slots: a slot enters the
//!     skip list first (which decides, atomically, which slot owns the key) and the hash
//!     index second; it leaves the hash index first and the skip list second. The two differ
//!     only while a new slot has no committed version yet or a dead slot's newest version is
//!     a delete every snapshot sees, so a point read through either finds the same row.
//! (5) While a transaction (or the collector) holds a live slot's row lock, a secondary key
//!     the slot once had an entry under maps to that slot or to nothing: entries for a slot
//!     are added by its lock holder (or by CREATE INDEX, for the slot itself), and any other
//!     slot with the same primary key is dead, and entries are never added for dead slots.
//!     So the lock holder may remove such a key by key alone (`remove_locked`), with one
//!     search instead of `remove_if`'s two.

use crate::slot::RowSlot;
use crossbeam_skiplist::base::SkipList;
use manycore_types::{key, DataType, Value};
use scc::hash_index::Reserve;
use scc::HashIndex;
use std::borrow::Borrow;
use std::hash::{Hash, Hasher};
use std::ops::{Bound, RangeBounds};
use std::sync::Arc;

/// Keeps entries of an `OrderedIndex` alive while a reader looks at them.
pub(crate) type Guard = crossbeam_epoch::Guard;

pub(crate) fn pin() -> Guard {
    crossbeam_epoch::pin()
}

/// A concurrent ordered map from encoded key to row slot.
pub(crate) struct OrderedIndex {
    list: SkipList<Box<[u8]>, Arc<RowSlot>>,
}

/// Owned key bounds, so a range iterator does not borrow its caller's buffers.
struct OwnedRange(Bound<Vec<u8>>, Bound<Vec<u8>>);

impl RangeBounds<[u8]> for OwnedRange {
    fn start_bound(&self) -> Bound<&[u8]> {
        self.0.as_ref().map(Vec::as_slice)
    }

    fn end_bound(&self) -> Bound<&[u8]> {
        self.1.as_ref().map(Vec::as_slice)
    }
}

impl OrderedIndex {
    pub(crate) fn new() -> OrderedIndex {
        OrderedIndex {
            list: SkipList::new(crossbeam_epoch::default_collector().clone()),
        }
    }

    pub(crate) fn get<'g>(&'g self, key: &[u8], guard: &'g Guard) -> Option<&'g Arc<RowSlot>> {
        self.list.get(key, guard).map(|entry| entry.value())
    }

    /// Inserts `key -> slot` unless the key is present; returns whether it inserted.
    pub(crate) fn insert_new(&self, key: Box<[u8]>, slot: &Arc<RowSlot>) -> bool {
        self.insert_or_get(key, slot).is_ok()
    }

    /// Inserts `key -> slot`, or returns the slot that holds the key.
    fn insert_or_get(&self, key: Box<[u8]>, slot: &Arc<RowSlot>) -> Result<(), Arc<RowSlot>> {
        let guard = pin();
        let entry = self.list.get_or_insert(key, slot.clone(), &guard);
        let result = match Arc::ptr_eq(entry.value(), slot) {
            true => Ok(()),
            false => Err(entry.value().clone()),
        };
        entry.release(&guard);
        result
    }

    /// Removes `key` if it maps to a slot for which `holds` is true (invariant (3)).
    pub(crate) fn remove_if(&self, key: &[u8], holds: impl FnOnce(&Arc<RowSlot>) -> bool) -> bool {
        let guard = pin();
        match self.list.get(key, &guard) {
            Some(entry) if holds(entry.value()) => entry.remove(),
            _ => false,
        }
    }

    /// Removes `key`, which maps to `slot` or to nothing because the caller holds `slot`'s
    /// row lock and `slot` is live (invariant (5)). One search: `remove_if` needs a `get`
    /// and then a second search to unlink the entry it found. Returns whether it removed.
    pub(crate) fn remove_locked(&self, key: &[u8], slot: &Arc<RowSlot>) -> bool {
        let guard = pin();
        let Some(entry) = self.list.remove(key, &guard) else {
            return false;
        };
        let ours = Arc::ptr_eq(entry.value(), slot);
        entry.release(&guard);
        assert!(
            ours,
            "invariant (5): a locked slot's key held by another slot"
        );
        true
    }

    /// Entries with keys within the bounds, in key order (invariant (1)).
    pub(crate) fn range<'g>(
        &'g self,
        lower: Bound<Vec<u8>>,
        upper: Bound<Vec<u8>>,
        guard: &'g Guard,
    ) -> impl Iterator<Item = (&'g [u8], &'g Arc<RowSlot>)> + 'g {
        self.list
            .range(OwnedRange(lower, upper), guard)
            .map(|entry| (&entry.key()[..], entry.value()))
    }

    /// The largest key, if any.
    pub(crate) fn last_key(&self) -> Option<Box<[u8]>> {
        let guard = pin();
        self.list.back(&guard).map(|entry| entry.key().clone())
    }

    /// Number of entries.
    pub(crate) fn len(&self) -> usize {
        self.list.len()
    }
}

/// A hash index entry: the slot, hashed and compared by its primary key, so the map needs no
/// copy of the key and a lookup by `&[u8]` finds it.
pub(crate) struct SlotKey(Arc<RowSlot>);

impl Hash for SlotKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // Must hash as `[u8]` does: lookups hash the borrowed form.
        self.0.key[..].hash(state);
    }
}

impl PartialEq for SlotKey {
    fn eq(&self, other: &SlotKey) -> bool {
        self.0.key == other.0.key
    }
}

impl Eq for SlotKey {}

impl Borrow<[u8]> for SlotKey {
    fn borrow(&self) -> &[u8] {
        &self.0.key
    }
}

/// The primary index: the ordered map for ranges, which also decides which slot owns a key,
/// and a hash index over the same slots for point reads (invariant (4)).
pub(crate) struct PrimaryIndex {
    ordered: OrderedIndex,
    hashed: HashIndex<SlotKey, (), PointHasher>,
}

/// foldhash seeded per process: about a third of SipHash's instructions per key
/// (std's default), with a random seed so keys chosen by clients cannot be aimed at one
/// bucket without knowing it.
type PointHasher = foldhash::quality::RandomState;

impl PrimaryIndex {
    pub(crate) fn new() -> PrimaryIndex {
        PrimaryIndex {
            ordered: OrderedIndex::new(),
            hashed: HashIndex::with_hasher(PointHasher::default()),
        }
    }

    /// Calls `f` with the slot of `key`, found through the hash index.
    pub(crate) fn get<R>(&self, key: &[u8], f: impl FnOnce(&Arc<RowSlot>) -> R) -> Option<R> {
        self.hashed.peek_with(key, |entry, ()| f(&entry.0))
    }

    pub(crate) fn get_cloned(&self, key: &[u8]) -> Option<Arc<RowSlot>> {
        self.get(key, Arc::clone)
    }

    /// Inserts `key -> slot` unless the key is present, else returns the slot holding it
    /// (perhaps a dead one on its way out, which the hash index may no longer show).
    pub(crate) fn insert_new(
        &self,
        key: Box<[u8]>,
        slot: &Arc<RowSlot>,
    ) -> Result<(), Arc<RowSlot>> {
        debug_assert_eq!(key, slot.key);
        self.ordered.insert_or_get(key, slot)?;
        // The skip list gave this slot the key; the hash index cannot hold another slot for
        // it, since slots leave the hash index before the skip list (invariant (4)).
        let fresh = self.hashed.insert_sync(SlotKey(slot.clone()), ()).is_ok();
        assert!(
            fresh,
            "primary hash index holds a key the ordered index lacks"
        );
        Ok(())
    }

    /// Removes `slot`'s entries (invariant (3)); returns whether it was present.
    pub(crate) fn remove(&self, slot: &Arc<RowSlot>) -> bool {
        let hashed = match self.hashed.get_sync(&slot.key[..]) {
            Some(entry) if Arc::ptr_eq(&entry.key().0, slot) => {
                entry.remove_entry();
                true
            }
            _ => false,
        };
        let ordered = self.ordered.remove_if(&slot.key, |s| Arc::ptr_eq(s, slot));
        assert_eq!(hashed, ordered, "primary hash index out of step");
        ordered
    }

    /// Keeps room for `additional` more keys while the result lives, so a bulk load does not
    /// grow the hash index step by step.
    pub(crate) fn reserve(
        &self,
        additional: usize,
    ) -> Option<Reserve<'_, SlotKey, (), PointHasher>> {
        self.hashed.reserve(additional)
    }

    pub(crate) fn range<'g>(
        &'g self,
        lower: Bound<Vec<u8>>,
        upper: Bound<Vec<u8>>,
        guard: &'g Guard,
    ) -> impl Iterator<Item = (&'g [u8], &'g Arc<RowSlot>)> + 'g {
        self.ordered.range(lower, upper, guard)
    }

    pub(crate) fn last_key(&self) -> Option<Box<[u8]>> {
        self.ordered.last_key()
    }

    pub(crate) fn len(&self) -> usize {
        self.ordered.len()
    }

    /// Number of hash index entries (a diagnostic; counts every bucket).
    pub(crate) fn hashed_len(&self) -> usize {
        self.hashed.len()
    }
}

/// Which index of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IndexNo {
    Primary,
    /// Position in `TableSchema::indexes`.
    Secondary(usize),
}

/// A range over an index, as bounds on a prefix of its columns. Values must already have
/// the columns' types (the planner converts; a value that cannot convert exactly must not
/// be used as a bound).
#[derive(Clone, Debug, PartialEq)]
pub struct KeyRange {
    pub lower: Bound<Vec<Value>>,
    pub upper: Bound<Vec<Value>>,
}

impl KeyRange {
    pub fn all() -> KeyRange {
        KeyRange {
            lower: Bound::Unbounded,
            upper: Bound::Unbounded,
        }
    }

    /// Every row whose leading index columns equal `prefix`.
    pub fn prefix(prefix: Vec<Value>) -> KeyRange {
        KeyRange {
            lower: Bound::Included(prefix.clone()),
            upper: Bound::Included(prefix),
        }
    }

    /// Encodes the bounds for the index whose column types are `types` (in index order).
    pub(crate) fn encode(
        &self,
        types: &[(&DataType, Option<u32>)],
    ) -> (Bound<Vec<u8>>, Bound<Vec<u8>>) {
        let lower = match &self.lower {
            Bound::Unbounded => Bound::Unbounded,
            Bound::Included(values) => Bound::Included(encode_prefix(values, types)),
            Bound::Excluded(values) => {
                let mut key = encode_prefix(values, types);
                key.push(0xFF);
                Bound::Excluded(key)
            }
        };
        let upper = match &self.upper {
            Bound::Unbounded => Bound::Unbounded,
            Bound::Included(values) => {
                let mut key = encode_prefix(values, types);
                key.push(0xFF);
                Bound::Excluded(key)
            }
            Bound::Excluded(values) => Bound::Excluded(encode_prefix(values, types)),
        };
        (lower, upper)
    }
}

/// The key of `values`, the leading columns of an index whose key parts are `types`.
pub(crate) fn encode_prefix(values: &[Value], types: &[(&DataType, Option<u32>)]) -> Vec<u8> {
    assert!(
        values.len() <= types.len(),
        "key prefix longer than the index"
    );
    let mut out = Vec::with_capacity(16 * values.len());
    for (value, &(data_type, prefix_length)) in values.iter().zip(types) {
        key::encode_field_prefix(value, data_type, prefix_length, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

    fn slot(k: u64) -> Arc<RowSlot> {
        Arc::new(RowSlot::new(k.to_be_bytes().to_vec().into(), 0))
    }

    /// Twelve keys that never change, with a window of keys below them that two threads
    /// insert at the top and remove 40 inserts later. Every scan must see all twelve.
    /// (scc::TreeIndex 3.8.8 returned nothing for about a third of these scans.)
    #[test]
    fn ranges_see_every_key_present_throughout_while_others_restructure() {
        let index = Arc::new(OrderedIndex::new());
        let stable: Vec<u64> = (0..12).map(|i| 1 << 40 | i).collect();
        for &k in &stable {
            assert!(index.insert_new(k.to_be_bytes().to_vec().into(), &slot(k)));
        }
        let next = Arc::new(AtomicU64::new(1));
        let stop = Arc::new(AtomicBool::new(false));
        let writers: Vec<_> = (0..2)
            .map(|_| {
                let (index, next, stop) = (index.clone(), next.clone(), stop.clone());
                std::thread::spawn(move || {
                    let mut live = VecDeque::new();
                    while !stop.load(Ordering::Relaxed) {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let s = slot(k);
                        assert!(index.insert_new(k.to_be_bytes().to_vec().into(), &s));
                        live.push_back((k, s));
                        if live.len() > 40 {
                            let (old, s) = live.pop_front().expect("non-empty");
                            assert!(index.remove_if(&old.to_be_bytes(), |x| Arc::ptr_eq(x, &s)));
                        }
                    }
                })
            })
            .collect();
        let rounds = if cfg!(debug_assertions) {
            2_000
        } else {
            20_000
        };
        for round in 0..rounds {
            let guard = pin();
            let seen: Vec<u64> = index
                .range(Bound::Unbounded, Bound::Unbounded, &guard)
                .map(|(k, _)| u64::from_be_bytes(k.try_into().expect("8-byte keys")))
                .filter(|k| k >> 40 == 1)
                .collect();
            assert_eq!(seen, stable, "round {round}");
            let lower = Bound::Included(0u64.to_be_bytes().to_vec());
            let bounded = index.range(lower, Bound::Unbounded, &guard).count();
            assert!(bounded >= stable.len(), "round {round}");
        }
        stop.store(true, Ordering::Relaxed);
        for w in writers {
            w.join().expect("writer");
        }
    }

    fn primary_slot(k: u64) -> (Box<[u8]>, Arc<RowSlot>) {
        let key: Box<[u8]> = k.to_be_bytes().to_vec().into();
        (key.clone(), Arc::new(RowSlot::new(key, 0)))
    }

    /// Point reads through the hash index while two writers insert and remove thousands of
    /// keys, so the hash index grows and shrinks many times: every key present throughout
    /// is found, always with its own slot, and both maps end up with the same entries.
    #[test]
    fn primary_point_reads_see_every_key_present_throughout_while_others_resize() {
        let index = Arc::new(PrimaryIndex::new());
        let stable: Vec<(Box<[u8]>, Arc<RowSlot>)> =
            (0..64).map(|i| primary_slot(1 << 40 | i)).collect();
        for (key, slot) in &stable {
            assert!(index.insert_new(key.clone(), slot).is_ok());
        }
        let cycles = if cfg!(debug_assertions) { 20 } else { 100 };
        let writing = Arc::new(AtomicU64::new(2));
        let writers: Vec<_> = (0..2u64)
            .map(|w| {
                let (index, writing) = (index.clone(), writing.clone());
                std::thread::spawn(move || {
                    for cycle in 0..cycles {
                        // Grow by a few thousand keys, then remove them all (shrinks).
                        let first = w << 32 | cycle << 16;
                        let batch: Vec<_> = (0..3_000).map(|i| primary_slot(first + i)).collect();
                        for (key, slot) in &batch {
                            assert!(index.insert_new(key.clone(), slot).is_ok());
                        }
                        for (key, slot) in &batch {
                            let found = index.get_cloned(key).expect("own key present");
                            assert!(Arc::ptr_eq(&found, slot));
                            assert!(index.remove(slot));
                            assert!(!index.remove(slot), "removed twice");
                        }
                    }
                    writing.fetch_sub(1, Ordering::Release);
                })
            })
            .collect();
        let (mut rounds, mut capacities) = (0u64, std::collections::BTreeSet::new());
        while writing.load(Ordering::Acquire) > 0 {
            for (key, slot) in &stable {
                let found = index.get(key, |s| Arc::ptr_eq(s, slot));
                assert_eq!(found, Some(true), "round {rounds}");
            }
            assert!(index.get(&(1u64 << 41).to_be_bytes(), |_| ()).is_none());
            capacities.insert(index.hashed.capacity());
            rounds += 1;
        }
        for w in writers {
            w.join().expect("writer");
        }
        assert!(
            capacities.len() > 2,
            "the hash index did not resize: {capacities:?}"
        );
        assert_eq!(index.len(), stable.len());
        assert_eq!(index.hashed_len(), stable.len());
    }

    /// A new slot for a key whose old slot is still in the index does not replace it, and
    /// removing the old slot does not remove a newer one.
    #[test]
    fn primary_index_respects_slot_identity() {
        let index = PrimaryIndex::new();
        let (key, a) = primary_slot(7);
        let (_, b) = primary_slot(7);
        assert!(index.insert_new(key.clone(), &a).is_ok());
        let holder = index.insert_new(key.clone(), &b).expect_err("key taken");
        assert!(Arc::ptr_eq(&holder, &a));
        assert!(index.get_cloned(&key).is_some_and(|s| Arc::ptr_eq(&s, &a)));
        assert!(!index.remove(&b), "not b's entry");
        assert!(index.remove(&a));
        assert!(index.get_cloned(&key).is_none());
        assert!(index.insert_new(key.clone(), &b).is_ok());
        assert!(!index.remove(&a), "a is gone; b stays");
        assert!(index.get_cloned(&key).is_some_and(|s| Arc::ptr_eq(&s, &b)));
        assert_eq!((index.len(), index.hashed_len()), (1, 1));
    }

    #[test]
    fn insert_new_and_remove_if_respect_slot_identity() {
        let index = OrderedIndex::new();
        let (a, b) = (slot(1), slot(1));
        assert!(index.insert_new(Box::from(&b"k"[..]), &a));
        assert!(!index.insert_new(Box::from(&b"k"[..]), &b), "key taken");
        assert!(
            !index.remove_if(b"k", |s| Arc::ptr_eq(s, &b)),
            "not b's entry"
        );
        assert_eq!(index.len(), 1);
        assert!(index.remove_if(b"k", |s| Arc::ptr_eq(s, &a)));
        assert!(index.insert_new(Box::from(&b"k"[..]), &b));
        let guard = pin();
        assert!(index.get(b"k", &guard).is_some_and(|s| Arc::ptr_eq(s, &b)));
        let keys: Vec<&[u8]> = index
            .range(
                Bound::Excluded(b"j".to_vec()),
                Bound::Included(b"k".to_vec()),
                &guard,
            )
            .map(|(k, _)| k)
            .collect();
        assert_eq!(keys, vec![&b"k"[..]]);
    }
}
