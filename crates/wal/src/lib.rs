//! Write-ahead log: record format, group commit, checkpoints, recovery. Owns every fsync.
//!
//! Code map:
//! - `record.rs`     logical records (`LogRecord`) and their byte-level encoding.
//! - `segment.rs`    log segment files: frame layout, checksums, torn tail vs corruption.
//! - `log.rs`        appends, the log-writer thread (group commit), durable waits.
//! - `waiters.rs`    durable waiters keyed by LSN: a batch wakes only the ones it decided.
//! - `checkpoint.rs` checkpoint file format, atomic install, dropping old segments.
//! - `recovery.rs`   newest checkpoint + log replay at startup.
//! - `hook.rs`       `Wal` as storage's `CommitLog` (commits and DDL append through it).
//! - `rebuild.rs`    replaying records into `Storage`; checkpoints of a storage snapshot.
//! - `disk.rs`       the file layer (`Disk`), real implementation `FsDisk`.
//! - `sim.rs`        `SimDisk`: drops, reorders and tears unsynced writes; ENOSPC, EIO.
//!
//! Definitions:
//! - An *LSN* numbers log records densely from 1. The *durable LSN*: every record at or
//!   below it is on stable storage.
//! - A *checkpoint at C* holds the state after applying every record <= C.
//!
//! Invariants (each file has its own; these are the ones the rest of the server relies on):
//! (1) In `SyncMode::Commit`, `wait_durable(lsn)` / `durable_waiter(lsn)` return Ok only
//!     after the record at `lsn` and every earlier one is durable (fdatasync returned).
//! (2) Log order is append order; storage appends under its commit-order mutex, so log
//!     order is commit order.
//! (3) Recovery hands back exactly a prefix of the appended records that includes every
//!     acknowledged one, or stops with `WalError::Corrupt { file, offset }`.
//! (4) After an fsync failure the log refuses appends until restart; after ENOSPC it
//!     fails the waiting commits and resumes when a write succeeds again.
//!
//! INTEGRATION PLAN (storage, server: done by their owners after this crate lands)
//!
//! Startup (server):
//!   `let (wal, report) = Wal::open(FsDisk::open(data_dir)?, options, |lsn, record| ..)?`
//!   with the closure applying each record to a fresh `Storage`, then log `report`.
//!   Storage's recovery entry points (no MVCC conflict checks, no logging):
//!   - `create_database`, `create_table` (+ `set_auto_increment(auto_increment)`),
//!     `drop_table`, `truncate_table`, `create_index`, `drop_index`: the existing DDL
//!     methods, called with the hook disabled (recovery runs before the hook is set).
//!   - Row changes of `Commit` and checkpoint `TableRows` records go into a
//!     `RecoveryBatch` (final image per key, per table) that `apply_recovery_batch`
//!     installs as committed versions, tables in parallel, before each DDL record and at
//!     the end (`rebuild.rs`). It maintains secondary indexes, AUTO_INCREMENT (past every
//!     value present) and, for hidden primary keys, `next_row_id` (past every key).
//!   - `AutoIncrement { next }` -> `set_auto_increment(next)`.
//!
//!   Segments are decoded on every core; rows load table by table on every core.
//!
//! Commit (storage, `Transaction::commit`): the transaction keeps, per write, the final
//!   (db, table, key, Option<row>) (collapse repeated writes of one key: last wins).
//!   Before taking `commit_order`, build `LogRecord::Commit { commit_ts: 0, changes }` and
//!   `encode()` it (no lock held). Inside `commit_order`, after computing `commit_ts` and
//!   BEFORE stamping any version: `encoded.set_commit_ts(commit_ts); let lsn =
//!   wal.append(&encoded)?;` On Err (poisoned log, backlog) roll back as if the commit had
//!   never started and return the error. Then stamp, advance the clock, release, and return
//!   `(commit_ts, Some(lsn))`. Appending is a memcpy under a short mutex (no I/O).
//!   Storage takes the hook as `Arc<dyn CommitLog>`-style trait object or `Option<Arc<Wal>>`;
//!   read-only transactions append nothing.
//! DDL (storage): under the `ddl` mutex, after the change succeeds in memory, append the
//!   DDL record (`CreateDatabase`, `CreateTable` with the table's auto_increment,
//!   `DropTable`, ...) and return its LSN; ALTER TABLE ... AUTO_INCREMENT appends
//!   `AutoIncrement`. If append fails, undo the catalog swap (keep the old `Arc<Catalog>`).
//!   DDL also takes `commit_order` while appending so it is ordered with commits (a DDL
//!   between two commits must replay between them).
//! Waiting (server/sql): after COMMIT (or an autocommit statement) returns an LSN, the
//!   connection task does `wal.durable_waiter(lsn).await` BEFORE writing the OK packet; on
//!   Err map `WalError::DiskFull` -> 1021 "Disk full" (HY000), `Io`/`Poisoned` -> 3 "Error
//!   writing file" (HY000). The fsync runs on the wal-writer thread; the tokio worker is
//!   free meanwhile. Before starting a write statement call `wal.check_writable()` so a
//!   poisoned log refuses writes early while reads keep working.
//! Checkpoints (server background thread, not a worker): every second or so, if
//!   `wal.should_checkpoint()`, call a new `Storage::checkpoint_snapshot(|| wal.last_lsn())`
//!   that takes `ddl` then `commit_order`, and while holding both: `begin(&reader)` (its
//!   snapshot = the clock), loads the catalog, and calls the closure for C; then releases
//!   both and returns (transaction, catalog, C). Every commit with lsn <= C has ts <= that
//!   clock and vice versa, because both are assigned under `commit_order`; DDL <= C is in
//!   that catalog because DDL appends under `ddl`. Then `let mut w =
//!   wal.begin_checkpoint(C)?`; write `CreateDatabase` per database, `CreateTable` (schema
//!   incl. indexes, `table.auto_increment()`) per table, `CreateView` per view, then per
//!   table scan the primary index at the snapshot
//!   (`Table::scan(&view, IndexNo::Primary, &KeyRange::all(), ..)`) and
//!   `w.write_row(db, table, slot.key(), row)`; `w.finish()?` installs it, flushing the
//!   log through C first, and deletes segments wholly <= C. The read-only transaction pins
//!   GC for the duration, as any long reader does. Hidden-primary-key tables also need
//!   `next_row_id` restored: recovery derives it from the largest key (see Startup).
//! Shutdown (server): stop accepting, let sessions finish, checkpoint as above (so the next
//!   start replays nothing), then `wal.close()?` (flushes and joins the writer).

mod checkpoint;
mod codec;
mod disk;
mod hook;
mod log;
mod rebuild;
mod record;
mod recovery;
mod segment;
pub mod sim;
mod waiters;

pub use checkpoint::{CheckpointReport, CheckpointWriter};
pub use codec::DecodeError;
pub use disk::{Disk, FsDisk};
pub use hook::{ddl_record, storage_error};
pub use log::{WalStats, APPEND_BACKLOG_BYTES_MAX};
pub use rebuild::{write_checkpoint, Replayer};
pub use record::{
    encode_commit, EncodedRecord, KeyedRows, LogRecord, RowChange, RowChangeRef, RECORD_PAYLOAD_MAX,
};
pub use recovery::RecoveryReport;

use std::fmt;
use std::future::Future;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// A log sequence number. Records are numbered densely from 1; 0 means "none".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Lsn(pub u64);

/// When a commit is acknowledged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SyncMode {
    /// After its records are durable (fdatasync). The default.
    #[default]
    Commit,
    /// UNSAFE, for tests and benchmarks: at once. The log is still written and synced about
    /// once a second, so a crash loses at most the last second or so of commits.
    None,
}

/// The longest group-commit delay allowed.
pub const GROUP_DELAY_US_MAX: u64 = 1000;

#[derive(Clone, Debug)]
pub struct WalOptions {
    pub sync_mode: SyncMode,
    /// Extra time the writer waits for more commits before writing a batch (0..=1000 us).
    pub group_delay_us: u64,
    /// A segment is closed and a new one started once it reaches this size.
    pub segment_size_max: u64,
    /// `should_checkpoint` turns true once this many log bytes were written since the last.
    pub checkpoint_after_bytes: u64,
    /// Accept corruption in the log: truncate at the first bad record, drop later segments.
    pub recover_truncate_log: bool,
}

impl Default for WalOptions {
    fn default() -> WalOptions {
        WalOptions {
            sync_mode: SyncMode::Commit,
            group_delay_us: 0,
            segment_size_max: 64 << 20,
            checkpoint_after_bytes: 256 << 20,
            recover_truncate_log: false,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WalError {
    /// ENOSPC: the commit is not known durable; later commits succeed once space is freed.
    /// MySQL 1021 "Disk full".
    DiskFull(String),
    /// A write or fsync failed; the log is poisoned until restart. MySQL 3.
    Io(String),
    /// Recovery found damage that is not a torn tail.
    Corrupt {
        file: String,
        offset: u64,
        reason: String,
    },
    /// The log was closed.
    Closed,
}

impl WalError {
    /// The MySQL error number the SQL layer should report.
    pub fn mysql_code(&self) -> u16 {
        match self {
            WalError::DiskFull(_) => 1021,
            _ => 3,
        }
    }
}

impl fmt::Display for WalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WalError::DiskFull(m) => write!(f, "disk full: {m}"),
            WalError::Io(m) => write!(f, "log I/O error: {m}"),
            WalError::Corrupt {
                file,
                offset,
                reason,
            } => {
                write!(f, "log corrupt in {file} at offset {offset}: {reason}")
            }
            WalError::Closed => write!(f, "log closed"),
        }
    }
}

impl std::error::Error for WalError {}

/// The write-ahead log of one data directory.
pub struct Wal {
    shared: Arc<log::Shared>,
    writer: parking_lot::Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl Wal {
    /// Recovers the directory and starts the log writer. `apply` receives the newest
    /// checkpoint's records (with its LSN) and then each later log record, in order.
    pub fn open(
        disk: Arc<dyn Disk>,
        options: WalOptions,
        mut apply: impl FnMut(Lsn, LogRecord),
    ) -> Result<(Wal, RecoveryReport), WalError> {
        assert!(
            options.group_delay_us <= GROUP_DELAY_US_MAX,
            "group_delay_us above maximum"
        );
        assert!(options.segment_size_max > 0, "segment_size_max is 0");
        let recovered = recovery::recover(&*disk, &options, &mut apply)?;
        let report = recovered.report;
        let shared = Arc::new(log::Shared::new(
            disk,
            options,
            report.next_lsn,
            recovered.segments,
        ));
        let writer = log::spawn_writer(shared.clone(), recovered.cursor)
            .map_err(|e| WalError::Io(format!("spawn log writer: {e}")))?;
        let wal = Wal {
            shared,
            writer: parking_lot::Mutex::new(Some(writer)),
        };
        Ok((wal, report))
    }

    /// Appends a record and returns its LSN. No I/O; call `wait_durable` or
    /// `durable_waiter` before acknowledging.
    pub fn append(&self, record: &EncodedRecord) -> Result<Lsn, WalError> {
        self.shared.append(record)
    }

    /// Blocks until `lsn` is durable (or acknowledged, in SyncMode::None), or failed.
    pub fn wait_durable(&self, lsn: Lsn) -> Result<(), WalError> {
        self.shared.wait_blocking(lsn, false)
    }

    /// The same as a future, for connection tasks on a current-thread runtime.
    pub fn durable_waiter(
        &self,
        lsn: Lsn,
    ) -> impl Future<Output = Result<(), WalError>> + Send + 'static {
        self.shared.clone().durable_wait(lsn, false)
    }

    /// Makes every record appended so far durable, in any sync mode. Returns the last LSN.
    pub fn flush(&self) -> Result<Lsn, WalError> {
        self.shared.flush()
    }

    /// The last LSN handed out. Read it under storage's commit-order mutex to pair it with
    /// the clock for a checkpoint.
    pub fn last_lsn(&self) -> Lsn {
        self.shared.last_lsn()
    }

    pub fn durable_lsn(&self) -> Lsn {
        self.shared.durable_lsn()
    }

    /// Err once the log is poisoned: refuse write statements early.
    pub fn check_writable(&self) -> Result<(), WalError> {
        self.shared.check_writable()
    }

    /// Whether enough log was written since the last checkpoint to take another.
    pub fn should_checkpoint(&self) -> bool {
        let s = &self.shared;
        let written = s.stats.bytes_written.load(Ordering::Relaxed);
        let since = written - s.bytes_at_checkpoint.load(Ordering::Relaxed);
        since >= s.options.checkpoint_after_bytes && !s.checkpoint_running.load(Ordering::Acquire)
    }

    /// Starts a checkpoint of the state as of `lsn` (see the integration plan for how the
    /// caller pairs it with a snapshot). One at a time.
    pub fn begin_checkpoint(&self, lsn: Lsn) -> Result<CheckpointWriter, WalError> {
        assert!(
            lsn <= self.last_lsn(),
            "checkpoint at {lsn:?} beyond the last lsn"
        );
        CheckpointWriter::new(self.shared.clone(), lsn)
    }

    pub fn stats(&self) -> WalStats {
        self.shared.stats()
    }

    pub fn options(&self) -> &WalOptions {
        &self.shared.options
    }

    /// Flushes, stops the writer and joins it. Appends fail afterwards.
    pub fn close(&self) -> Result<(), WalError> {
        let flushed = self.shared.flush();
        self.shared.shutdown();
        if let Some(writer) = self.writer.lock().take() {
            writer
                .join()
                .map_err(|_| WalError::Io("log writer panicked".into()))?;
        }
        flushed.map(|_| ())
    }
}

impl Drop for Wal {
    fn drop(&mut self) {
        self.shared.shutdown();
        if let Some(writer) = self.writer.lock().take() {
            let _ = writer.join();
        }
    }
}
