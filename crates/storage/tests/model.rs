//! Model-based randomized test: random interleavings of operations by a few transactions
//! on one thread, compared after every step against a simple model: the committed state
//! after each commit, and per transaction its snapshot and its stack of writes. Conflicts
//! and duplicates are modelled exactly, so any difference in outcome fails. Replay a
//! failure with MANYCORE_SEED=<seed printed>.

mod common;

use common::*;
use manycore_storage::{IndexNo, KeyRange, ReaderSlot, Savepoint, StorageError, Transaction};
use manycore_types::Value;
use std::collections::BTreeMap;

type Cols = (Option<i64>, Option<i64>); // (a, b)
type State = BTreeMap<i64, Cols>;

#[derive(Debug, PartialEq)]
enum Outcome {
    Ok,
    Duplicate(IndexNo),
    Conflict,
}

static OUTCOMES: [std::sync::atomic::AtomicU64; 3] = [
    std::sync::atomic::AtomicU64::new(0),
    std::sync::atomic::AtomicU64::new(0),
    std::sync::atomic::AtomicU64::new(0),
];

fn outcome<T>(result: Result<T, StorageError>) -> Outcome {
    let which = match &result {
        Ok(_) => 0,
        Err(StorageError::DuplicateKey { .. }) => 1,
        _ => 2,
    };
    OUTCOMES[which].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    match result {
        Ok(_) => Outcome::Ok,
        Err(StorageError::DuplicateKey { index, .. }) => Outcome::Duplicate(index),
        Err(StorageError::WriteConflict | StorageError::LockWait { .. }) => Outcome::Conflict,
        Err(e) => panic!("unexpected error {e}"),
    }
}

struct ModelTxn {
    snapshot: usize,
    /// Writes in order: key and what was done to it.
    writes: Vec<(i64, Change)>,
}

#[derive(Clone, Copy, Debug)]
enum Change {
    /// The row written (None: delete).
    Row(Option<Cols>),
    /// A row lock (`lock_row`): held like a write, but the row stays as it was.
    Lock,
}

impl ModelTxn {
    /// The last row this transaction wrote for `k`: Some(None) for a delete.
    fn written(&self, k: i64) -> Option<Option<Cols>> {
        self.writes
            .iter()
            .rev()
            .find_map(|(key, change)| match change {
                Change::Row(row) if *key == k => Some(*row),
                _ => None,
            })
    }
}

struct Model {
    /// Committed state after each commit; index = model timestamp.
    history: Vec<State>,
    last_write_ts: BTreeMap<i64, usize>,
}

impl Model {
    fn committed(&self) -> &State {
        self.history.last().expect("initial state")
    }

    fn latest(&self, txn: &ModelTxn, k: i64) -> Option<Cols> {
        match txn.written(k) {
            Some(row) => row,
            None => self.committed().get(&k).copied(),
        }
    }

    fn visible(&self, txn: &ModelTxn, k: i64) -> Option<Cols> {
        match txn.written(k) {
            Some(row) => row,
            None => self.history[txn.snapshot].get(&k).copied(),
        }
    }

    fn holder(txns: &[Option<ModelTxn>], k: i64) -> Option<usize> {
        let mut holders = txns.iter().enumerate().filter(|(_, t)| {
            t.as_ref()
                .is_some_and(|t| t.writes.iter().any(|(key, _)| *key == k))
        });
        let first = holders.next().map(|(i, _)| i);
        assert!(holders.next().is_none(), "model: two holders of {k}");
        first
    }

    /// The unique check on b for a row `k` of transaction `me` (pk order = index order).
    fn check_unique(
        &self,
        txns: &[Option<ModelTxn>],
        me: usize,
        k: i64,
        b: Option<i64>,
    ) -> Outcome {
        let Some(b) = b else { return Outcome::Ok };
        let keys: Vec<i64> = (0..KEYS).filter(|&k2| k2 != k).collect();
        for k2 in keys {
            let outcomes: Vec<bool> = match Self::holder(txns, k2) {
                Some(h) if h == me => {
                    let t = txns[me].as_ref().expect("me");
                    vec![self.latest(t, k2).is_some_and(|r| r.1 == Some(b))]
                }
                Some(h) => {
                    let t = txns[h].as_ref().expect("holder");
                    let mut o: Vec<bool> = t
                        .writes
                        .iter()
                        .filter_map(|(key, change)| match change {
                            Change::Row(r) if *key == k2 => Some(r.is_some_and(|r| r.1 == Some(b))),
                            _ => None,
                        })
                        .collect();
                    o.push(self.committed().get(&k2).is_some_and(|r| r.1 == Some(b)));
                    o
                }
                None => vec![self.committed().get(&k2).is_some_and(|r| r.1 == Some(b))],
            };
            if outcomes.iter().all(|&h| h) {
                return Outcome::Duplicate(B);
            }
            if outcomes.iter().any(|&h| h) {
                return Outcome::Conflict;
            }
        }
        Outcome::Ok
    }

    fn insert(&self, txns: &mut [Option<ModelTxn>], me: usize, k: i64, row: Cols) -> Outcome {
        if Self::holder(txns, k).is_some_and(|h| h != me) {
            return Outcome::Conflict;
        }
        if self.latest(txns[me].as_ref().expect("me"), k).is_some() {
            return Outcome::Duplicate(IndexNo::Primary);
        }
        let unique = self.check_unique(txns, me, k, row.1);
        if unique == Outcome::Ok {
            let writes = &mut txns[me].as_mut().expect("me").writes;
            writes.push((k, Change::Row(Some(row))));
        }
        unique
    }

    /// Update in place (`Change::Row(None)`: delete), or lock the row.
    fn write(&self, txns: &mut [Option<ModelTxn>], me: usize, k: i64, change: Change) -> Outcome {
        let holder = Self::holder(txns, k);
        if holder.is_some_and(|h| h != me) {
            return Outcome::Conflict;
        }
        let t = txns[me].as_ref().expect("me");
        if holder.is_none()
            && self
                .last_write_ts
                .get(&k)
                .is_some_and(|&ts| ts > t.snapshot)
        {
            return Outcome::Conflict;
        }
        let Some(old) = self.latest(t, k) else {
            return Outcome::Conflict;
        };
        if let Change::Row(Some(new)) = change {
            if new.1 != old.1 {
                let unique = self.check_unique(txns, me, k, new.1);
                if unique != Outcome::Ok {
                    return unique;
                }
            }
        }
        txns[me].as_mut().expect("me").writes.push((k, change));
        Outcome::Ok
    }

    fn commit(&mut self, txn: ModelTxn) {
        let rows: Vec<(i64, Option<Cols>)> = txn
            .writes
            .iter()
            .filter_map(|(k, change)| match change {
                Change::Row(row) => Some((*k, *row)),
                Change::Lock => None,
            })
            .collect();
        if rows.is_empty() {
            return; // Row locks alone commit nothing.
        }
        let mut state = self.committed().clone();
        for (k, row) in &rows {
            match row {
                Some(r) => state.insert(*k, *r),
                None => state.remove(k),
            };
        }
        self.history.push(state);
        let ts = self.history.len() - 1;
        for (k, _) in &rows {
            self.last_write_ts.insert(*k, ts);
        }
    }
}

const KEYS: i64 = 6;
const TXNS: usize = 3;

fn random_cols(rng: &mut Rng) -> Cols {
    let a = if rng.chance(20) {
        None
    } else {
        Some(rng.below(3) as i64)
    };
    let b = if rng.chance(25) {
        None
    } else {
        Some(rng.below(5) as i64)
    };
    (a, b)
}

fn to_row(k: i64, c: Cols) -> manycore_types::Row {
    row(k, c.0, c.1)
}

fn expected_scan(state: &BTreeMap<i64, Cols>, index: IndexNo) -> Vec<Vec<Value>> {
    let mut rows: Vec<(i64, Cols)> = state.iter().map(|(k, c)| (*k, *c)).collect();
    match index {
        IndexNo::Primary => {}
        IndexNo::Secondary(0) => rows.sort_by_key(|(k, c)| (c.0, *k)),
        IndexNo::Secondary(_) => rows.sort_by_key(|(k, c)| (c.1, *k)),
    }
    rows.into_iter()
        .map(|(k, c)| to_row(k, c).to_vec())
        .collect()
}

fn run(seed: u64, steps: usize) {
    let mut rng = Rng::new(seed);
    let (storage, t) = setup();
    let readers: Vec<ReaderSlot> = (0..TXNS + 1).map(|_| storage.register_reader()).collect();
    let mut real: Vec<Option<(Transaction, Vec<Savepoint>)>> = (0..TXNS).map(|_| None).collect();
    let mut model_txns: Vec<Option<ModelTxn>> = (0..TXNS).map(|_| None).collect();
    let mut model = Model {
        history: vec![State::new()],
        last_write_ts: BTreeMap::new(),
    };
    let mut savepoints: Vec<Vec<usize>> = vec![Vec::new(); TXNS];
    for step in 0..steps {
        let me = rng.below(TXNS as u64) as usize;
        let context = format!("seed {seed} step {step} txn {me}");
        if real[me].is_none() {
            real[me] = Some((storage.begin(&readers[me]), Vec::new()));
            model_txns[me] = Some(ModelTxn {
                snapshot: model.history.len() - 1,
                writes: Vec::new(),
            });
            savepoints[me].clear();
            continue;
        }
        let k = rng.below(KEYS as u64) as i64;
        let choice = rng.below(100);
        let (txn, real_savepoints) = real[me].as_mut().expect("live");
        let view = txn.view();
        let visible = get(&t, &view, k).is_some();
        assert_eq!(
            visible,
            model
                .visible(model_txns[me].as_ref().expect("live"), k)
                .is_some(),
            "{context}: visibility of {k}"
        );
        match choice {
            0..=29 => {
                let cols = random_cols(&mut rng);
                let got = outcome(txn.insert(&t, to_row(k, cols)));
                let want = model.insert(&mut model_txns, me, k, cols);
                assert_eq!(got, want, "{context}: insert {k} {cols:?}");
            }
            30..=54 if visible => {
                let cols = random_cols(&mut rng);
                let got = outcome(update(txn, &t, k, to_row(k, cols)));
                let want = model.write(&mut model_txns, me, k, Change::Row(Some(cols)));
                assert_eq!(got, want, "{context}: update {k} {cols:?}");
            }
            55..=60 if visible => {
                let got = outcome(delete(txn, &t, k));
                let want = model.write(&mut model_txns, me, k, Change::Row(None));
                assert_eq!(got, want, "{context}: delete {k}");
            }
            61..=64 if visible => {
                let locked = slot(&t, &view, k).expect("visible");
                let got = outcome(txn.lock_row(&t, &locked));
                let want = model.write(&mut model_txns, me, k, Change::Lock);
                assert_eq!(got, want, "{context}: lock {k}");
            }
            65..=71 if visible => {
                // Move the row to another primary key: a delete and an insert, or neither.
                let k2 = (k + 1 + rng.below(KEYS as u64 - 1) as i64) % KEYS;
                let cols = random_cols(&mut rng);
                let got = outcome(update(txn, &t, k, to_row(k2, cols)));
                let before = model_txns[me].as_ref().expect("live").writes.len();
                let mut want = model.write(&mut model_txns, me, k, Change::Row(None));
                if want == Outcome::Ok {
                    want = model.insert(&mut model_txns, me, k2, cols);
                    if want != Outcome::Ok {
                        model_txns[me]
                            .as_mut()
                            .expect("live")
                            .writes
                            .truncate(before);
                    }
                }
                assert_eq!(got, want, "{context}: move {k} -> {k2} {cols:?}");
            }
            72..=79 => {
                real_savepoints.push(txn.savepoint());
                savepoints[me].push(model_txns[me].as_ref().expect("live").writes.len());
            }
            80..=85 if !real_savepoints.is_empty() => {
                let i = rng.below(real_savepoints.len() as u64) as usize;
                txn.rollback_to(real_savepoints[i]);
                real_savepoints.truncate(i + 1);
                let len = savepoints[me][i];
                savepoints[me].truncate(i + 1);
                model_txns[me].as_mut().expect("live").writes.truncate(len);
            }
            86..=93 => {
                let (txn, _) = real[me].take().expect("live");
                txn.commit().expect("commit");
                model.commit(model_txns[me].take().expect("live"));
            }
            94..=97 => {
                let (txn, _) = real[me].take().expect("live");
                txn.rollback();
                model_txns[me] = None;
            }
            _ => storage.collect_garbage(),
        }
        // Every live transaction, and a fresh snapshot, read exactly what the model says.
        let fresh = storage.begin(&readers[TXNS]);
        let mut views = vec![(fresh.view(), model.committed().clone())];
        for (r, m) in real.iter().zip(&model_txns) {
            if let (Some((txn, _)), Some(m)) = (r, m) {
                let state: State = (0..KEYS)
                    .filter_map(|k| model.visible(m, k).map(|c| (k, c)))
                    .collect();
                views.push((txn.view(), state));
            }
        }
        for (view, state) in &views {
            for index in [IndexNo::Primary, A, B] {
                let got = scan(&t, view, index, &KeyRange::all());
                assert_eq!(
                    got,
                    expected_scan(state, index),
                    "{context}: scan {index:?} {view:?}"
                );
            }
            for (k, c) in state {
                let b = KeyRange::prefix(vec![c.1.map_or(Value::Null, Value::Int)]);
                assert!(scan(&t, view, B, &b).iter().any(|r| int_of(&r[0]) == *k));
            }
        }
        fresh.commit().expect("commit");
    }
    drop(real);
    storage.collect_garbage();
    assert_eq!(
        storage.garbage_len(),
        0,
        "seed {seed}: garbage left after all ended"
    );
    assert_eq!(
        t.approximate_row_count(),
        model.committed().len(),
        "seed {seed}"
    );
    assert_eq!(
        t.index_entry_count(B),
        model.committed().len(),
        "seed {seed}"
    );
}

#[test]
fn random_interleavings_match_the_model() {
    let base = seed(0x30de1);
    let (seeds, steps) = if cfg!(debug_assertions) {
        (30, 300)
    } else {
        (100, 600)
    };
    for i in 0..seeds {
        run(base.wrapping_add(i), steps);
    }
    let [ok, duplicate, conflict] = OUTCOMES
        .each_ref()
        .map(|o| o.load(std::sync::atomic::Ordering::Relaxed));
    eprintln!("writes: {ok} ok, {duplicate} duplicate, {conflict} conflict");
    assert!(
        duplicate > 0 && conflict > 0,
        "the mix exercises every outcome"
    );
}
