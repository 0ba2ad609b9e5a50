//! A simulated disk for crash tests, after SQLite's test6.c: it keeps what was written but
//! not yet synced apart from what is durable, and on a simulated power loss keeps a random
//! subset of the unsynced writes, applied in random order, one possibly torn.
//!
//! It honours exactly the `Disk` contract and nothing more, so code that passes against it
//! relies on nothing a real file system does not promise.
//!
//! Faults it injects on demand: the Nth `sync` fails (EIO; its dirty bytes are dropped as
//! a kernel may drop them), and ENOSPC once the files would exceed a size limit (after
//! writing the prefix that fits, as write(2) may).

use crate::disk::Disk;
use parking_lot::Mutex;
use std::collections::{BTreeMap, HashMap};
use std::io;

/// SplitMix64: a tiny deterministic generator, so a seed replays a test exactly.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in 0..n (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "Rng::below(0)");
        self.next() % n
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

#[derive(Clone, Debug)]
enum Op {
    Write { offset: u64, bytes: Vec<u8> },
    Truncate(u64),
}

#[derive(Clone, Debug, Default)]
struct SimFile {
    durable: Vec<u8>,
    current: Vec<u8>,
    pending: Vec<Op>,
}

#[derive(Default)]
struct State {
    files: HashMap<u64, SimFile>,
    names: BTreeMap<String, u64>,
    durable_names: BTreeMap<String, u64>,
    next_id: u64,
    syncs: u64,
    fail_sync_at: Option<u64>,
    space_limit: Option<u64>,
    /// After `crash`, until `power_on`: every call fails, so a process that was "killed"
    /// cannot touch the disk the restarted one recovers from.
    powered_off: bool,
}

/// What a simulated power loss does with unsynced state.
#[derive(Clone, Copy, Debug)]
pub enum Crash {
    /// Every unsynced write and namespace change is lost.
    DropAll,
    /// Everything written reached the disk (a clean power loss after the cache drained).
    KeepAll,
    /// A random subset of unsynced writes, in random order, one possibly torn; namespace
    /// changes all kept or all lost.
    Random(u64),
}

#[derive(Default)]
pub struct SimDisk {
    state: Mutex<State>,
}

fn not_found(name: &str) -> io::Error {
    io::Error::new(io::ErrorKind::NotFound, format!("no file {name}"))
}

fn apply(data: &mut Vec<u8>, op: &Op) {
    match op {
        Op::Write { offset, bytes } => {
            let end = *offset as usize + bytes.len();
            if data.len() < end {
                data.resize(end, 0);
            }
            data[*offset as usize..end].copy_from_slice(bytes);
        }
        Op::Truncate(len) => data.resize(*len as usize, 0),
    }
}

impl SimDisk {
    pub fn new() -> std::sync::Arc<SimDisk> {
        std::sync::Arc::new(SimDisk::default())
    }

    /// The sync call `n` from now (1 = the next one) fails with EIO.
    pub fn fail_sync_after(&self, n: u64) {
        let mut s = self.state.lock();
        s.fail_sync_at = Some(s.syncs + n);
    }

    /// Writes that would make the files' total size exceed `limit` fail with ENOSPC.
    pub fn set_space_limit(&self, limit: Option<u64>) {
        self.state.lock().space_limit = limit;
    }

    /// Removes any injected sync failure and space limit.
    pub fn clear_faults(&self) {
        let mut s = self.state.lock();
        s.fail_sync_at = None;
        s.space_limit = None;
    }

    pub fn sync_count(&self) -> u64 {
        self.state.lock().syncs
    }

    /// Total size of all files as the running program sees them.
    pub fn used_bytes(&self) -> u64 {
        let s = self.state.lock();
        s.names
            .values()
            .map(|id| s.files[id].current.len() as u64)
            .sum()
    }

    /// Flips bits of one byte, durably (bit rot or a bad sector).
    pub fn corrupt(&self, name: &str, offset: u64) {
        let mut s = self.state.lock();
        let id = s.names[name];
        let file = s.files.get_mut(&id).expect("named file exists");
        file.current[offset as usize] ^= 0x5A;
        file.durable[offset as usize] ^= 0x5A;
    }

    /// Simulates a power loss. Afterwards the disk holds only what survived, and every
    /// call fails until `power_on`.
    pub fn crash(&self, how: Crash) {
        let mut s = self.state.lock();
        s.powered_off = true;
        let mut rng = Rng::new(match how {
            Crash::Random(seed) => seed,
            _ => 0,
        });
        let keep_names = match how {
            Crash::DropAll => false,
            Crash::KeepAll => true,
            Crash::Random(_) => rng.chance(50),
        };
        if keep_names {
            s.durable_names = s.names.clone();
        } else {
            s.names = s.durable_names.clone();
        }
        for file in s.files.values_mut() {
            let mut pending = std::mem::take(&mut file.pending);
            match how {
                Crash::DropAll => {}
                Crash::KeepAll => pending.iter().for_each(|op| apply(&mut file.durable, op)),
                Crash::Random(_) => {
                    // Shuffle, keep a random subset, tear at most one write.
                    for i in (1..pending.len()).rev() {
                        pending.swap(i, rng.below(i as u64 + 1) as usize);
                    }
                    let mut torn = false;
                    for op in pending {
                        if !rng.chance(60) {
                            continue;
                        }
                        match op {
                            Op::Write { offset, mut bytes } if !torn && rng.chance(30) => {
                                torn = true;
                                bytes.truncate(rng.below(bytes.len() as u64 + 1) as usize);
                                apply(&mut file.durable, &Op::Write { offset, bytes });
                            }
                            op => apply(&mut file.durable, &op),
                        }
                    }
                }
            }
            file.current = file.durable.clone();
        }
    }

    /// Ends the simulated outage: the restarted process may use the disk.
    pub fn power_on(&self) {
        self.state.lock().powered_off = false;
    }

    fn file(&self, s: &mut State, name: &str) -> io::Result<u64> {
        s.powered()?;
        s.names.get(name).copied().ok_or_else(|| not_found(name))
    }
}

impl State {
    fn powered(&self) -> io::Result<()> {
        if self.powered_off {
            return Err(io::Error::other("simulated power loss"));
        }
        Ok(())
    }
}

impl Disk for SimDisk {
    fn list(&self) -> io::Result<Vec<String>> {
        let s = self.state.lock();
        s.powered()?;
        Ok(s.names.keys().cloned().collect())
    }

    fn create(&self, name: &str) -> io::Result<()> {
        let mut s = self.state.lock();
        s.powered()?;
        let id = s.next_id;
        s.next_id += 1;
        s.files.insert(id, SimFile::default());
        s.names.insert(name.to_string(), id);
        Ok(())
    }

    fn len(&self, name: &str) -> io::Result<u64> {
        let mut s = self.state.lock();
        let id = self.file(&mut s, name)?;
        Ok(s.files[&id].current.len() as u64)
    }

    fn read_at(&self, name: &str, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
        let mut s = self.state.lock();
        let id = self.file(&mut s, name)?;
        let data = &s.files[&id].current;
        let start = (offset as usize).min(data.len());
        let n = buf.len().min(data.len() - start);
        buf[..n].copy_from_slice(&data[start..start + n]);
        Ok(n)
    }

    fn write_at(&self, name: &str, offset: u64, bytes: &[u8]) -> io::Result<()> {
        let mut s = self.state.lock();
        let id = self.file(&mut s, name)?;
        let mut bytes = bytes.to_vec();
        let mut full = false;
        if let Some(limit) = s.space_limit {
            let used: u64 = s
                .names
                .values()
                .map(|id| s.files[id].current.len() as u64)
                .sum();
            let own = s.files[&id].current.len() as u64;
            let growth = (offset + bytes.len() as u64).saturating_sub(own);
            if used + growth > limit {
                let room = (limit.saturating_sub(used) + own).saturating_sub(offset);
                bytes.truncate(room as usize);
                full = true;
            }
        }
        let file = s.files.get_mut(&id).expect("named file exists");
        let op = Op::Write { offset, bytes };
        apply(&mut file.current, &op);
        file.pending.push(op);
        if full {
            return Err(io::Error::from_raw_os_error(28));
        }
        Ok(())
    }

    fn sync(&self, name: &str) -> io::Result<()> {
        let mut s = self.state.lock();
        let id = self.file(&mut s, name)?;
        s.syncs += 1;
        let fail = s.fail_sync_at == Some(s.syncs);
        let file = s.files.get_mut(&id).expect("named file exists");
        if fail {
            // The kernel may mark the dirty pages clean without writing them.
            file.pending.clear();
            return Err(io::Error::from_raw_os_error(5));
        }
        file.durable = file.current.clone();
        file.pending.clear();
        Ok(())
    }

    fn truncate(&self, name: &str, len: u64) -> io::Result<()> {
        let mut s = self.state.lock();
        let id = self.file(&mut s, name)?;
        let file = s.files.get_mut(&id).expect("named file exists");
        let op = Op::Truncate(len);
        apply(&mut file.current, &op);
        file.pending.push(op);
        Ok(())
    }

    fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        let mut s = self.state.lock();
        s.powered()?;
        let id = s.names.remove(from).ok_or_else(|| not_found(from))?;
        s.names.insert(to.to_string(), id);
        Ok(())
    }

    fn remove(&self, name: &str) -> io::Result<()> {
        let mut s = self.state.lock();
        s.powered()?;
        s.names.remove(name).ok_or_else(|| not_found(name))?;
        Ok(())
    }

    fn sync_dir(&self) -> io::Result<()> {
        let mut s = self.state.lock();
        s.powered()?;
        s.durable_names = s.names.clone();
        Ok(())
    }
}
