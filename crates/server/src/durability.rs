//! Durability at the server: recovery at startup, acknowledging commits only once they are
//! durable, background checkpoints, and the final checkpoint at shutdown.
//!
//! The log itself (format, group commit, fsync) is the `wal` crate's; storage appends to it
//! through its `CommitLog` hook. This module wires the two together (see `docs/durability.md`).
//!
//! Invariants:
//! (1) The log is attached to storage only after recovery rebuilt every table, so nothing
//!     replayed is logged twice and no client sees a half-recovered state.
//! (2) A command's replies are sent only after every commit and DDL it made is durable
//!     (`await_commit`, called by the connection before it flushes). If the log fails, the
//!     replies already encoded are discarded and replaced by the log's error, so a client
//!     never reads OK for a commit that may be lost. Waiting never blocks a worker thread:
//!     the fsync runs on the log writer thread and the connection task awaits it.
//! (3) Checkpoints run on their own thread, never a worker, one at a time.
//! (4) A clean shutdown checkpoints everything logged and closes the log, so the next start
//!     replays no log records.

use crate::config::ServeArgs;
use manycore_protocol::packet::PacketWriter;
use manycore_protocol::response::write_err;
use manycore_storage::Storage;
use manycore_wal::{FsDisk, Lsn, Replayer, SyncMode, Wal, WalError, WalOptions};
use parking_lot::Mutex;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// How often the checkpoint thread asks the log whether a checkpoint is due.
const CHECKPOINT_POLL_INTERVAL: Duration = Duration::from_secs(1);

pub struct Durability {
    pub wal: Arc<Wal>,
    storage: Arc<Storage>,
    /// LSN of the newest checkpoint (or of the recovered state, if the log was empty).
    /// The mutex also keeps checkpoints one at a time (invariant (3)).
    checkpoint_lsn: Mutex<Lsn>,
}

/// Opens the log in `dir`, rebuilds storage from it and attaches the log (invariant (1)).
pub fn recover(dir: &Path, args: &ServeArgs) -> Result<(Arc<Storage>, Arc<Durability>), String> {
    let options = WalOptions {
        sync_mode: args.sync,
        group_delay_us: args.group_delay_us,
        checkpoint_after_bytes: args.checkpoint_interval_mb.max(1) << 20,
        recover_truncate_log: args.recover_truncate_log,
        ..WalOptions::default()
    };
    if options.sync_mode == SyncMode::None {
        tracing::warn!(
            "UNSAFE: --sync none acknowledges commits before they are on stable storage; a \
             crash or power loss can lose the last second or so of acknowledged commits. Use \
             it only for tests and benchmarks"
        );
    }
    let disk = FsDisk::open(dir)
        .map_err(|e| format!("cannot open log directory {}: {e}", dir.display()))?;
    let storage = Storage::new();
    let mut replayer = Replayer::new(storage.clone());
    let started = Instant::now();
    let (wal, report) = Wal::open(disk, options, |lsn, record| replayer.apply(lsn, record))
        .map_err(|e| recovery_error(dir, e))?;
    replayer.finish();
    if let Some(error) = replayer.error.take() {
        return Err(format!(
            "recovery of {} failed while {error}; the log does not match what storage \
             accepts, so the server will not start on it",
            dir.display()
        ));
    }
    if report.format1_records > 0 {
        // Version 1 weighed accented keys by case only: rows its commits kept apart may
        // now share a unique key (docs/durability.md, "Log format versions").
        if let Some(index) = storage.find_unique_violation() {
            return Err(format!(
                "recovery of {}: two rows of {index} have the same key under today's \
                 utf8mb4_general_ci weights, which ignore accents; the log (format version 1) \
                 was written when they did not. Dump the data with the older manycore and \
                 load it into a new data directory (docs/durability.md, \"Log format versions\")",
                dir.display()
            ));
        }
    }
    let elapsed_ms = started.elapsed().as_millis() as u64;
    if let Some((file, offset)) = &report.torn_tail {
        tracing::warn!(
            "recovery truncated a torn log tail in {file} at offset {offset}: a write cut \
             short by the crash, never acknowledged to a client"
        );
    }
    if let Some((file, offset, reason)) = &report.truncated_corruption {
        tracing::error!(
            "--recover-truncate-log: discarded the log from {file} offset {offset} on \
             ({reason}); commits after that point are lost"
        );
    }
    tracing::info!(
        checkpoint_lsn = report.checkpoint_lsn.0,
        checkpoint = report.checkpoint_file.as_deref().unwrap_or("none"),
        checkpoint_entries = report.checkpoint_entries,
        log_records = report.log_records,
        skipped_changes = replayer.skipped_changes,
        abandoned_alters = replayer.abandoned_alters,
        next_lsn = report.next_lsn.0,
        elapsed_ms,
        "recovery complete: replayed {} log records after the checkpoint",
        report.log_records
    );
    let wal = Arc::new(wal);
    storage.attach_log(wal.clone());
    let checkpoint_lsn = if report.log_records == 0 {
        Lsn(report.next_lsn.0 - 1)
    } else {
        report.checkpoint_lsn
    };
    let durability = Durability {
        wal,
        storage: storage.clone(),
        checkpoint_lsn: Mutex::new(checkpoint_lsn),
    };
    Ok((storage, Arc::new(durability)))
}

fn recovery_error(dir: &Path, e: WalError) -> String {
    match e {
        WalError::Corrupt {
            file,
            offset,
            reason,
        } => format!(
            "the log in {} is damaged: {file} at offset {offset}: {reason}. This is not a torn \
             tail from a crash (that is repaired automatically). Restore the data directory \
             from a backup, or restart with --recover-truncate-log to accept losing every \
             commit from that point on",
            dir.display()
        ),
        other => format!("cannot recover the log in {}: {other}", dir.display()),
    }
}

impl Durability {
    /// Writes a checkpoint if anything was logged since the last one.
    pub fn checkpoint(&self) -> Result<(), WalError> {
        let mut previous = self.checkpoint_lsn.lock();
        let reader = self.storage.register_reader();
        let started = Instant::now();
        let report = manycore_wal::write_checkpoint(&self.wal, &self.storage, &reader, *previous)?;
        if let Some(report) = report {
            *previous = report.lsn;
            tracing::info!(
                lsn = report.lsn.0,
                file = %report.file,
                bytes = report.bytes,
                entries = report.entries,
                segments_removed = report.segments_removed,
                elapsed_ms = started.elapsed().as_millis() as u64,
                "checkpoint written"
            );
        }
        Ok(())
    }

    /// Final checkpoint and close (invariant (4)).
    pub fn shutdown(&self) {
        if let Err(e) = self.checkpoint() {
            tracing::error!("shutdown checkpoint failed (the next start replays the log): {e}");
        }
        match self.wal.close() {
            Ok(()) => tracing::info!("log flushed and closed"),
            Err(e) => tracing::error!("closing the log: {e}"),
        }
    }
}

/// The checkpoint thread (invariant (3)).
pub fn spawn_checkpointer(
    durability: Arc<Durability>,
    shutdown: watch::Receiver<bool>,
) -> Result<std::thread::JoinHandle<()>, String> {
    std::thread::Builder::new()
        .name("checkpointer".into())
        .spawn(move || {
            let step = Duration::from_millis(50);
            let mut waited = Duration::ZERO;
            while !*shutdown.borrow() {
                std::thread::sleep(step);
                waited += step;
                if waited < CHECKPOINT_POLL_INTERVAL {
                    continue;
                }
                waited = Duration::ZERO;
                if durability.wal.should_checkpoint() {
                    if let Err(e) = durability.checkpoint() {
                        tracing::error!("checkpoint failed (retrying later): {e}");
                    }
                }
            }
        })
        .map_err(|e| format!("cannot start checkpoint thread: {e}"))
}

/// MariaDB's error for a log failure: 1021 for a full disk, 3 otherwise (both HY000).
pub fn log_error(e: &WalError) -> (u16, String) {
    match e {
        WalError::DiskFull(m) => (
            1021,
            format!(
                "Disk full ({m}); waiting for someone to free some space... (errno: 28 \"No \
                 space left on device\")"
            ),
        ),
        other => (
            3,
            format!("Error writing file 'manycore write-ahead log' (Errcode: 5 \"{other}\")"),
        ),
    }
}

/// Where a command's replies start in the output buffer, to replace them on failure.
#[derive(Clone, Copy)]
pub struct ReplyStart {
    pub output_len: usize,
    pub sequence_id: u8,
}

impl ReplyStart {
    pub fn new(output: &[u8], writer: &PacketWriter) -> ReplyStart {
        ReplyStart {
            output_len: output.len(),
            sequence_id: writer.sequence_id(),
        }
    }
}

/// Waits until what the command just committed is durable (invariant (2)). `earlier`: an
/// LSN taken before the command awaited anything (a lock wait lets other connections run
/// on this thread, and they would take this thread's LSN). False when the log failed:
/// the replies from `start` on were replaced by its error.
pub async fn await_commit(
    durability: &Durability,
    earlier: Option<u64>,
    start: ReplyStart,
    output: &mut Vec<u8>,
    writer: &mut PacketWriter,
) -> bool {
    let Some(lsn) = earlier.max(manycore_storage::take_commit_lsn()) else {
        return true;
    };
    if let Err(e) = durability.wal.durable_waiter(Lsn(lsn)).await {
        let (code, message) = log_error(&e);
        output.truncate(start.output_len);
        writer.set_sequence_id(start.sequence_id);
        writer.write_with(output, |o| write_err(o, code, "HY000", message.as_bytes()));
        return false;
    }
    true
}
