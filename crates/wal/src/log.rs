//! The running log: appends, group commit on a dedicated writer thread, durable waits.
//!
//! Appenders (storage's commit hook, under its commit-order mutex) copy a frame into the
//! current in-memory batch under `Shared::append` and get the next LSN; that is all they
//! do. The writer thread takes the whole batch, seals it (checksums), writes it with one
//! write and makes it durable with one fdatasync, outside the mutex, while new appends fill
//! the next batch. Then it publishes the durable LSN and wakes the waiters at or below it
//! (waiters.rs): a commit that went into the next batch sleeps on.
//!
//! Invariants:
//! (1) LSNs are handed out dense and increasing under `append`; batches are written in
//!     LSN order, so the log order is the append order.
//! (2) `durable` only grows, and every LSN <= it is on stable storage (SyncMode::Commit).
//! (3) Appenders never do I/O and never wait for the writer, but for a rebuilt table's
//!     rows (hook.rs), which wait whenever the backlog passes half of
//!     `APPEND_BACKLOG_BYTES_MAX`, rather than fail or hold a whole table twice in memory.
//! (4) After a failed fsync (or any write error but ENOSPC, or a failed truncate) the log
//!     is poisoned: appends fail and waits not yet durable fail, until restart.
//! (5) After ENOSPC the batch is truncated off the file and kept: its waiters (and all
//!     appended so far) get `DiskFull`, and the writer retries it, ahead of later appends,
//!     until it fits. Records are never dropped from the middle of the log, because storage
//!     already made them visible in memory and later commits may depend on them.
//! (6) The writer appends only to the newest segment; it syncs a segment completely before
//!     creating the next (segment.rs invariant (2)).
//! (7) Whatever changes a wait's outcome (`durable`, `failed_upto`, `poisoned`, shutdown) is
//!     stored before the waiters it decides are drained (waiters.rs invariants (1), (3)).

use crate::disk::{is_disk_full, Disk};
use crate::segment::{push_frame, seal_frames, segment_header, segment_name, SEGMENT_HEADER_LEN};
use crate::waiters::{block_on, DurableWaiters};
use crate::{EncodedRecord, Lsn, SyncMode, WalError, WalOptions};
use crossbeam_utils::CachePadded;
use parking_lot::{Condvar, Mutex};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

/// Appended but unwritten bytes beyond which appends fail rather than grow memory without
/// bound (only reachable while the disk is full or very slow).
pub const APPEND_BACKLOG_BYTES_MAX: usize = 512 << 20;

/// How long the writer waits before retrying a batch that hit ENOSPC.
const DISK_FULL_RETRY: Duration = Duration::from_millis(50);

/// In SyncMode::None, how often the writer syncs anyway (lazy durability).
const LAZY_SYNC_INTERVAL: Duration = Duration::from_millis(1000);

struct AppendState {
    /// Frames appended since the writer last took the batch.
    batch: Vec<u8>,
    /// LSN of the first frame in `batch`; equals `next_lsn` when it is empty.
    batch_first: Lsn,
    next_lsn: Lsn,
    writer_idle: bool,
    /// Highest LSN someone asked to be synced (flush, checkpoint, SyncMode::None).
    sync_requested: Lsn,
    shutdown: bool,
    poison: Option<WalError>,
}

/// One segment of the log: its first LSN and file name.
#[derive(Clone, Debug)]
pub(crate) struct SegmentInfo {
    pub(crate) first_lsn: Lsn,
    pub(crate) name: String,
}

pub(crate) struct Shared {
    pub(crate) disk: Arc<dyn Disk>,
    pub(crate) options: WalOptions,
    append: Mutex<AppendState>,
    work: Condvar,
    durable: CachePadded<AtomicU64>,
    /// Every LSN <= this that is not durable failed with `last_error`.
    failed_upto: AtomicU64,
    last_error: Mutex<Option<WalError>>,
    poisoned: AtomicBool,
    waiters: DurableWaiters,
    /// Segments in LSN order; the last is the one being written.
    pub(crate) segments: Mutex<Vec<SegmentInfo>>,
    pub(crate) stats: Stats,
    pub(crate) checkpoint_running: AtomicBool,
    /// `stats.bytes_written` when the newest checkpoint began.
    pub(crate) bytes_at_checkpoint: AtomicU64,
}

#[derive(Default)]
pub(crate) struct Stats {
    pub(crate) records: AtomicU64,
    pub(crate) batches: AtomicU64,
    pub(crate) fsyncs: AtomicU64,
    pub(crate) bytes_written: AtomicU64,
}

/// Counters for monitoring and the group-commit benchmark.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WalStats {
    pub records: u64,
    pub batches: u64,
    pub fsyncs: u64,
    pub bytes_written: u64,
    pub durable_lsn: Lsn,
}

/// Where the writer appends: the newest segment and its length.
pub(crate) struct Cursor {
    pub(crate) segment: SegmentInfo,
    pub(crate) len: u64,
    /// Whether bytes were written to it since its last sync.
    pub(crate) dirty: bool,
}

impl Shared {
    pub(crate) fn new(
        disk: Arc<dyn Disk>,
        options: WalOptions,
        next_lsn: Lsn,
        segments: Vec<SegmentInfo>,
    ) -> Shared {
        let durable = next_lsn.0 - 1;
        Shared {
            disk,
            options,
            append: Mutex::new(AppendState {
                batch: Vec::new(),
                batch_first: next_lsn,
                next_lsn,
                writer_idle: false,
                sync_requested: Lsn(durable),
                shutdown: false,
                poison: None,
            }),
            work: Condvar::new(),
            durable: CachePadded::new(AtomicU64::new(durable)),
            failed_upto: AtomicU64::new(0),
            last_error: Mutex::new(None),
            poisoned: AtomicBool::new(false),
            waiters: DurableWaiters::new(),
            segments: Mutex::new(segments),
            stats: Stats::default(),
            checkpoint_running: AtomicBool::new(false),
            bytes_at_checkpoint: AtomicU64::new(0),
        }
    }

    pub(crate) fn append(&self, record: &EncodedRecord) -> Result<Lsn, WalError> {
        let mut st = self.append.lock();
        if let Some(e) = &st.poison {
            return Err(e.clone());
        }
        if st.shutdown {
            return Err(WalError::Closed);
        }
        if st.batch.len() > APPEND_BACKLOG_BYTES_MAX {
            return Err(WalError::DiskFull(format!(
                "log backlog exceeds {APPEND_BACKLOG_BYTES_MAX} bytes"
            )));
        }
        let lsn = st.next_lsn;
        push_frame(&mut st.batch, lsn, record.payload());
        st.next_lsn = Lsn(lsn.0 + 1);
        if self.options.sync_mode == SyncMode::Commit {
            st.sync_requested = lsn; // SyncMode::None syncs lazily, on the interval.
        }
        if st.writer_idle {
            st.writer_idle = false;
            self.work.notify_one();
        }
        Ok(lsn)
    }

    /// Bytes appended and not yet taken by the writer.
    pub(crate) fn backlog_bytes(&self) -> usize {
        self.append.lock().batch.len()
    }

    /// The last LSN handed out (0 before the first record ever).
    pub(crate) fn last_lsn(&self) -> Lsn {
        Lsn(self.append.lock().next_lsn.0 - 1)
    }

    pub(crate) fn durable_lsn(&self) -> Lsn {
        Lsn(self.durable.load(Ordering::Acquire))
    }

    /// The outcome for a commit at `lsn`, if decided. `strict`: ignore SyncMode::None.
    fn outcome(&self, lsn: Lsn, strict: bool) -> Option<Result<(), WalError>> {
        if self.durable.load(Ordering::Acquire) >= lsn.0 {
            return Some(Ok(()));
        }
        if self.poisoned.load(Ordering::Acquire)
            || self.failed_upto.load(Ordering::Acquire) >= lsn.0
        {
            let error = self.last_error.lock().clone();
            return Some(Err(error.unwrap_or(WalError::Closed)));
        }
        if !strict && self.options.sync_mode == SyncMode::None {
            return Some(Ok(())); // Acknowledged before the disk: unsafe by choice.
        }
        None
    }

    pub(crate) fn wait_blocking(self: &Arc<Self>, lsn: Lsn, strict: bool) -> Result<(), WalError> {
        block_on(self.clone().durable_wait(lsn, strict))
    }

    pub(crate) fn durable_wait(self: Arc<Self>, lsn: Lsn, strict: bool) -> DurableWait {
        DurableWait {
            shared: self,
            lsn,
            strict,
            registration: None,
        }
    }

    /// Blocks until every LSN appended so far is durable, whatever the sync mode.
    pub(crate) fn flush(self: &Arc<Self>) -> Result<Lsn, WalError> {
        let lsn = {
            let mut st = self.append.lock();
            let lsn = Lsn(st.next_lsn.0 - 1);
            st.sync_requested = st.sync_requested.max(lsn);
            if st.writer_idle {
                st.writer_idle = false;
                self.work.notify_one();
            }
            lsn
        };
        self.wait_blocking(lsn, true)?;
        Ok(lsn)
    }

    pub(crate) fn stats(&self) -> WalStats {
        WalStats {
            records: self.stats.records.load(Ordering::Relaxed),
            batches: self.stats.batches.load(Ordering::Relaxed),
            fsyncs: self.stats.fsyncs.load(Ordering::Relaxed),
            bytes_written: self.stats.bytes_written.load(Ordering::Relaxed),
            durable_lsn: self.durable_lsn(),
        }
    }

    pub(crate) fn shutdown(&self) {
        let mut st = self.append.lock();
        st.shutdown = true;
        st.sync_requested = Lsn(st.next_lsn.0 - 1);
        self.work.notify_one();
    }

    pub(crate) fn check_writable(&self) -> Result<(), WalError> {
        if self.poisoned.load(Ordering::Acquire) {
            return Err(self.last_error.lock().clone().unwrap_or(WalError::Closed));
        }
        Ok(())
    }

    /// No waiter may outlive the writer: whatever is appended and not durable now never
    /// will be (shutdown with a full disk), so fail it.
    fn writer_exited(&self) {
        let appended = {
            let mut st = self.append.lock();
            st.shutdown = true;
            st.next_lsn.0 - 1
        };
        if self.durable.load(Ordering::Acquire) < appended {
            self.last_error.lock().get_or_insert(WalError::Closed);
            self.failed_upto.fetch_max(appended, Ordering::AcqRel);
        }
        self.waiters.wake_all();
    }

    fn poison(&self, error: WalError) {
        tracing::error!("write-ahead log poisoned, refusing commits until restart: {error}");
        self.append.lock().poison = Some(error.clone());
        *self.last_error.lock() = Some(error);
        self.poisoned.store(true, Ordering::Release);
        self.waiters.wake_all();
    }
}

/// A wait for the commit at `lsn` to become durable (or fail): the future connection tasks
/// await, and what `wait_blocking` runs on its thread.
pub(crate) struct DurableWait {
    shared: Arc<Shared>,
    lsn: Lsn,
    /// Ignore SyncMode::None (flushes and checkpoints).
    strict: bool,
    registration: Option<(u64, u64)>,
}

impl Future for DurableWait {
    type Output = Result<(), WalError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        let decide = || this.shared.outcome(this.lsn, this.strict);
        this.shared
            .waiters
            .poll_wait(this.lsn.0, &mut this.registration, cx, decide)
    }
}

impl Drop for DurableWait {
    fn drop(&mut self) {
        // Dropped undecided (a killed connection): nobody else removes the entry.
        if let Some(key) = self.registration {
            self.shared.waiters.cancel(key);
        }
    }
}

/// What the writer holds between iterations.
struct Writer {
    shared: Arc<Shared>,
    cursor: Cursor,
    /// Sealed-or-not frames not yet on disk (kept across ENOSPC), first LSN `pending_first`.
    pending: Vec<u8>,
    pending_first: Lsn,
    /// The last attempt hit ENOSPC: pause before the next.
    disk_full: bool,
    last_sync: std::time::Instant,
}

pub(crate) fn spawn_writer(
    shared: Arc<Shared>,
    cursor: Cursor,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    let first = shared.append.lock().next_lsn;
    let writer = Writer {
        shared,
        cursor,
        pending: Vec::new(),
        pending_first: first,
        disk_full: false,
        last_sync: std::time::Instant::now(),
    };
    std::thread::Builder::new()
        .name("wal-writer".into())
        .spawn(move || writer.run())
}

impl Writer {
    fn run(mut self) {
        while let Some(sync_upto) = self.take_batch() {
            if let Err(error) = self.write_and_sync(sync_upto) {
                self.shared.poison(error);
                break;
            }
        }
        self.shared.writer_exited();
    }

    /// Waits for work and moves the current batch into `pending`. Returns the LSN up to
    /// which a sync was requested, or None to exit.
    fn take_batch(&mut self) -> Option<Lsn> {
        let shared = &self.shared;
        let mut st = shared.append.lock();
        loop {
            let durable = Lsn(shared.durable.load(Ordering::Relaxed));
            let lazy_due = shared.options.sync_mode == SyncMode::None
                && self.cursor.dirty
                && self.last_sync.elapsed() >= LAZY_SYNC_INTERVAL;
            let work = !st.batch.is_empty()
                || !self.pending.is_empty()
                || st.sync_requested > durable
                || lazy_due;
            if work && st.shutdown && self.disk_full {
                return None; // Shutting down with a full disk: nothing more was acknowledged.
            }
            if work {
                break;
            }
            if st.shutdown || st.poison.is_some() {
                return None;
            }
            st.writer_idle = true;
            let timeout = match shared.options.sync_mode {
                SyncMode::None => LAZY_SYNC_INTERVAL,
                SyncMode::Commit => Duration::from_secs(3600),
            };
            shared.work.wait_for(&mut st, timeout);
            st.writer_idle = false;
        }
        if self.disk_full {
            // Retrying after ENOSPC: give the disk a moment.
            parking_lot::MutexGuard::unlocked(&mut st, || std::thread::sleep(DISK_FULL_RETRY));
        } else if shared.options.group_delay_us > 0 && !st.shutdown {
            let delay = Duration::from_micros(shared.options.group_delay_us);
            parking_lot::MutexGuard::unlocked(&mut st, || std::thread::sleep(delay));
        }
        if self.pending.is_empty() {
            self.pending_first = st.batch_first;
            // Double buffering: appenders continue in our last (cleared) buffer.
            std::mem::swap(&mut self.pending, &mut st.batch);
        } else {
            self.pending.extend_from_slice(&st.batch);
            st.batch.clear();
        }
        st.batch_first = st.next_lsn;
        let mut sync_upto = st.sync_requested;
        if shared.options.sync_mode == SyncMode::None
            && self.last_sync.elapsed() >= LAZY_SYNC_INTERVAL
        {
            sync_upto = Lsn(st.next_lsn.0 - 1);
        }
        Some(sync_upto)
    }

    fn write_and_sync(&mut self, sync_upto: Lsn) -> Result<(), WalError> {
        let shared = self.shared.clone();
        if !self.pending.is_empty() {
            let durable = Lsn(shared.durable.load(Ordering::Relaxed));
            if self.cursor.len >= shared.options.segment_size_max {
                match self.rotate(self.pending_first) {
                    Err(WalError::DiskFull(message)) => {
                        self.disk_full(message);
                        return Ok(());
                    }
                    other => other?,
                }
            }
            let count = seal_frames(&mut self.pending, self.pending_first, durable);
            let name = self.cursor.segment.name.clone();
            if let Err(e) = shared.disk.write_at(&name, self.cursor.len, &self.pending) {
                return self.write_failed(e);
            }
            self.disk_full = false;
            self.cursor.len += self.pending.len() as u64;
            self.cursor.dirty = true;
            let last = Lsn(self.pending_first.0 + count - 1);
            shared.stats.records.fetch_add(count, Ordering::Relaxed);
            shared.stats.batches.fetch_add(1, Ordering::Relaxed);
            let written = self.pending.len() as u64;
            shared
                .stats
                .bytes_written
                .fetch_add(written, Ordering::Relaxed);
            self.pending_first = Lsn(last.0 + 1);
            self.pending.clear();
            if shared.options.sync_mode == SyncMode::None && sync_upto < last {
                return Ok(()); // Lazy: written, not yet synced.
            }
            self.sync()?;
            self.publish(last);
        } else if sync_upto > Lsn(shared.durable.load(Ordering::Relaxed)) || self.cursor.dirty {
            // SyncMode::None: a flush or the lazy interval asks for what was written.
            self.sync()?;
            self.publish(Lsn(self.pending_first.0 - 1));
        }
        Ok(())
    }

    fn sync(&mut self) -> Result<(), WalError> {
        let name = &self.cursor.segment.name;
        self.shared.stats.fsyncs.fetch_add(1, Ordering::Relaxed);
        self.shared
            .disk
            .sync(name)
            .map_err(|e| WalError::Io(format!("fdatasync {name}: {e}")))?;
        self.cursor.dirty = false;
        self.last_sync = std::time::Instant::now();
        Ok(())
    }

    fn publish(&self, durable: Lsn) {
        let previous = self.shared.durable.swap(durable.0, Ordering::AcqRel);
        assert!(
            previous <= durable.0,
            "durable lsn went back from {previous} to {}",
            durable.0
        );
        self.shared.waiters.wake_upto(durable.0);
    }

    /// Invariant (5): ENOSPC keeps the batch for a retry; anything else poisons.
    fn write_failed(&mut self, e: std::io::Error) -> Result<(), WalError> {
        let name = self.cursor.segment.name.clone();
        if !is_disk_full(&e) {
            return Err(WalError::Io(format!(
                "write {name} at {}: {e}",
                self.cursor.len
            )));
        }
        if let Err(t) = self.shared.disk.truncate(&name, self.cursor.len) {
            return Err(WalError::Io(format!("truncate {name} after ENOSPC: {t}")));
        }
        self.disk_full(format!("write {name}: {e}"));
        Ok(())
    }

    /// Fails every commit appended so far that is not durable; keeps them for a retry.
    fn disk_full(&mut self, message: String) {
        let error = WalError::DiskFull(message);
        tracing::warn!("log write failed, will retry: {error}");
        self.disk_full = true;
        let appended = self.shared.append.lock().next_lsn.0 - 1;
        *self.shared.last_error.lock() = Some(error);
        self.shared
            .failed_upto
            .fetch_max(appended, Ordering::AcqRel);
        self.shared.waiters.wake_upto(appended);
    }

    /// Invariant (6): sync the full segment, then start a new one at `first`.
    fn rotate(&mut self, first: Lsn) -> Result<(), WalError> {
        if self.cursor.dirty {
            self.sync()?;
        }
        let segment = create_segment(&*self.shared.disk, first)?;
        self.shared.segments.lock().push(segment.clone());
        self.cursor = Cursor {
            segment,
            len: SEGMENT_HEADER_LEN as u64,
            dirty: false,
        };
        Ok(())
    }
}

/// Creates a segment file with its header, durably (file data and directory entry).
pub(crate) fn create_segment(disk: &dyn Disk, first: Lsn) -> Result<SegmentInfo, WalError> {
    let name = segment_name(first);
    let io = |what: &str, e: std::io::Error| WalError::Io(format!("{what} {name}: {e}"));
    disk.create(&name).map_err(|e| io("create", e))?;
    disk.write_at(&name, 0, &segment_header(first))
        .map_err(|e| {
            if is_disk_full(&e) {
                WalError::DiskFull(format!("create {name}: {e}"))
            } else {
                io("write", e)
            }
        })?;
    disk.sync(&name).map_err(|e| io("fdatasync", e))?;
    disk.sync_dir().map_err(|e| io("sync directory for", e))?;
    Ok(SegmentInfo {
        first_lsn: first,
        name,
    })
}
