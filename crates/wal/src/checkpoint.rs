//! Checkpoints: a consistent snapshot of every database (its tables, views, triggers and
//! stored routines) and row, as of one LSN, written in the background and installed
//! atomically; then the log before it is dropped.
//!
//! File `checkpoint-<lsn, 16 hex digits>.ckpt` (written as `.tmp`, then renamed):
//!
//!   header (32 bytes):
//!     0: [u8; 8] magic "MCWALCKP"   8: u32 LE version (1)   12: u32 zero
//!    16: u64 LE lsn                 24: u32 LE crc32c of bytes 0..24   28: u32 zero
//!   entries, back to back:
//!     0: u32 LE payload length n (<= RECORD_PAYLOAD_MAX)
//!     4: u32 LE crc32c of bytes 0..4 then 8..8+n
//!     8: payload: a LogRecord (record.rs): CreateDatabase, CreateTable (with its
//!        AUTO_INCREMENT), CheckConstraints, CreateView, CreateTrigger, CreateRoutine,
//!        TableRows, ...
//!   trailer (32 bytes):
//!     0: u32 LE 0xFFFF_FFFF (never a valid length)   4: u32 zero
//!     8: u64 LE entry count   16: u64 LE lsn
//!    24: u32 LE crc32c of all entry bytes   28: u32 LE crc32c of trailer bytes 0..28
//!
//! Invariants:
//! (1) A `.ckpt` file is complete: it is renamed from `.tmp` only after its trailer is
//!     written and synced, and the rename is made durable before anything is deleted.
//! (2) Before a checkpoint at LSN C is installed, the log is durable through C, so the
//!     log after C continues where the checkpoint ends (no gap after a crash).
//! (3) Log segments are deleted only when wholly <= C, oldest first, never the newest.
//! (4) A damaged `.ckpt` stops recovery: the log before it is gone, so there is nothing
//!     to fall back on. A `.tmp` file is an unfinished checkpoint and is deleted.

use crate::codec::{read_u32_le, read_u64_le};
use crate::disk::{is_disk_full, Disk};
use crate::log::Shared;
use crate::record::{
    weighs_keys_by_case_only, KeyedRows, LogRecord, RECORD_PAYLOAD_MAX, ROWS_RECORD_BYTES_MAX,
    ROWS_RECORD_MAX,
};
use crate::recovery::decode_payloads;
use crate::{Lsn, WalError};
use manycore_types::Value;
use std::sync::atomic::Ordering;
use std::sync::Arc;

pub const CHECKPOINT_MAGIC: &[u8; 8] = b"MCWALCKP";
pub const CHECKPOINT_VERSION: u32 = 1;
const HEADER_LEN: usize = 32;
const TRAILER_LEN: usize = 32;
const TRAILER_MARK: u32 = u32::MAX;

/// Checkpoint bytes read and verified before they are decoded at once, on every core.
const DECODE_RUN_BYTES: usize = 16 << 20;
/// Bytes buffered before one write to the checkpoint file.
const WRITE_CHUNK_BYTES: usize = 1 << 20;

pub fn checkpoint_name(lsn: Lsn) -> String {
    format!("checkpoint-{:016x}.ckpt", lsn.0)
}

fn temp_name(lsn: Lsn) -> String {
    format!("checkpoint-{:016x}.tmp", lsn.0)
}

pub fn parse_checkpoint_name(name: &str) -> Option<Lsn> {
    let hex = name.strip_prefix("checkpoint-")?.strip_suffix(".ckpt")?;
    (hex.len() == 16).then(|| u64::from_str_radix(hex, 16).ok().map(Lsn))?
}

pub(crate) fn is_temp_checkpoint(name: &str) -> bool {
    name.starts_with("checkpoint-") && name.ends_with(".tmp")
}

fn io_error(what: &str, name: &str, e: std::io::Error) -> WalError {
    if is_disk_full(&e) {
        WalError::DiskFull(format!("{what} {name}: {e}"))
    } else {
        WalError::Io(format!("{what} {name}: {e}"))
    }
}

/// Writes one checkpoint. Feed it the catalog, then rows table by table; `finish`
/// installs it. Dropping it unfinished removes the temporary file.
pub struct CheckpointWriter {
    shared: Arc<Shared>,
    lsn: Lsn,
    name: String,
    buffer: Vec<u8>,
    offset: u64,
    entries: u64,
    entries_crc: u32,
    rows: Option<(String, String, KeyedRows, usize)>,
    finished: bool,
}

/// What a finished checkpoint did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckpointReport {
    pub lsn: Lsn,
    pub file: String,
    pub bytes: u64,
    pub entries: u64,
    pub segments_removed: usize,
}

impl CheckpointWriter {
    pub(crate) fn new(shared: Arc<Shared>, lsn: Lsn) -> Result<CheckpointWriter, WalError> {
        let running = shared.checkpoint_running.swap(true, Ordering::AcqRel);
        if running {
            return Err(WalError::Io("a checkpoint is already running".into()));
        }
        let bytes_now = shared.stats.bytes_written.load(Ordering::Relaxed);
        shared
            .bytes_at_checkpoint
            .store(bytes_now, Ordering::Relaxed);
        let name = temp_name(lsn);
        let mut writer = CheckpointWriter {
            shared,
            lsn,
            name,
            buffer: Vec::with_capacity(WRITE_CHUNK_BYTES + ROWS_RECORD_BYTES_MAX),
            offset: 0,
            entries: 0,
            entries_crc: 0,
            rows: None,
            finished: false,
        };
        let disk = &writer.shared.disk;
        disk.create(&writer.name)
            .map_err(|e| io_error("create", &writer.name, e))?;
        let mut header = [0u8; HEADER_LEN];
        header[0..8].copy_from_slice(CHECKPOINT_MAGIC);
        header[8..12].copy_from_slice(&CHECKPOINT_VERSION.to_le_bytes());
        header[16..24].copy_from_slice(&lsn.0.to_le_bytes());
        let crc = crc32c::crc32c(&header[0..24]);
        header[24..28].copy_from_slice(&crc.to_le_bytes());
        writer.buffer.extend_from_slice(&header);
        Ok(writer)
    }

    pub fn lsn(&self) -> Lsn {
        self.lsn
    }

    /// A catalog record (CreateDatabase, CreateTable, ...), in the order to replay.
    pub fn write(&mut self, record: &LogRecord) -> Result<(), WalError> {
        self.flush_rows()?;
        self.entry(record)
    }

    /// One committed row of `db.table` as of the checkpoint's snapshot.
    pub fn write_row(
        &mut self,
        db: &str,
        table: &str,
        key: &[u8],
        row: &[Value],
    ) -> Result<(), WalError> {
        let same = matches!(&self.rows, Some((d, t, _, _)) if d == db && t == table);
        if !same {
            self.flush_rows()?;
            self.rows = Some((db.to_string(), table.to_string(), Vec::new(), 0));
        }
        let (_, _, rows, bytes) = self.rows.as_mut().expect("set above");
        *bytes += key.len() + row.len() * 9 + 8;
        rows.push((key.to_vec(), row.to_vec()));
        if rows.len() >= ROWS_RECORD_MAX || *bytes >= ROWS_RECORD_BYTES_MAX {
            self.flush_rows()?;
        }
        Ok(())
    }

    fn flush_rows(&mut self) -> Result<(), WalError> {
        if let Some((db, table, rows, _)) = self.rows.take() {
            if !rows.is_empty() {
                self.entry(&LogRecord::TableRows { db, table, rows })?;
            }
        }
        Ok(())
    }

    fn entry(&mut self, record: &LogRecord) -> Result<(), WalError> {
        let encoded = record.encode();
        let payload = encoded.payload();
        let start = self.buffer.len();
        self.buffer
            .extend_from_slice(&(payload.len() as u32).to_le_bytes());
        let crc = crc32c::crc32c_append(crc32c::crc32c(&self.buffer[start..start + 4]), payload);
        self.buffer.extend_from_slice(&crc.to_le_bytes());
        self.buffer.extend_from_slice(payload);
        self.entries_crc = crc32c::crc32c_append(self.entries_crc, &self.buffer[start..]);
        self.entries += 1;
        if self.buffer.len() >= WRITE_CHUNK_BYTES {
            self.write_buffer()?;
        }
        Ok(())
    }

    fn write_buffer(&mut self) -> Result<(), WalError> {
        let disk = &self.shared.disk;
        disk.write_at(&self.name, self.offset, &self.buffer)
            .map_err(|e| io_error("write", &self.name, e))?;
        self.offset += self.buffer.len() as u64;
        self.buffer.clear();
        Ok(())
    }

    /// Completes the file and installs it (invariants (1)-(3)).
    pub fn finish(mut self) -> Result<CheckpointReport, WalError> {
        self.flush_rows()?;
        let mut trailer = [0u8; TRAILER_LEN];
        trailer[0..4].copy_from_slice(&TRAILER_MARK.to_le_bytes());
        trailer[8..16].copy_from_slice(&self.entries.to_le_bytes());
        trailer[16..24].copy_from_slice(&self.lsn.0.to_le_bytes());
        trailer[24..28].copy_from_slice(&self.entries_crc.to_le_bytes());
        let crc = crc32c::crc32c(&trailer[0..28]);
        trailer[28..32].copy_from_slice(&crc.to_le_bytes());
        self.buffer.extend_from_slice(&trailer);
        self.write_buffer()?;
        let shared = self.shared.clone();
        let disk = &*shared.disk;
        disk.sync(&self.name)
            .map_err(|e| io_error("fdatasync", &self.name, e))?;
        // Invariant (2).
        let durable = shared.flush()?;
        assert!(
            durable >= self.lsn,
            "checkpoint lsn {:?} beyond the log",
            self.lsn
        );
        let file = checkpoint_name(self.lsn);
        disk.rename(&self.name, &file)
            .map_err(|e| io_error("rename", &self.name, e))?;
        disk.sync_dir()
            .map_err(|e| io_error("sync directory for", &file, e))?;
        self.finished = true;
        let segments_removed = remove_obsolete(disk, &shared, self.lsn, &file)?;
        Ok(CheckpointReport {
            lsn: self.lsn,
            file,
            bytes: self.offset,
            entries: self.entries,
            segments_removed,
        })
    }
}

impl Drop for CheckpointWriter {
    fn drop(&mut self) {
        if !self.finished {
            let _ = self.shared.disk.remove(&self.name);
        }
        self.shared
            .checkpoint_running
            .store(false, Ordering::Release);
    }
}

/// Removes older checkpoints and the segments wholly at or below `lsn` (invariant (3)).
fn remove_obsolete(
    disk: &dyn Disk,
    shared: &Shared,
    lsn: Lsn,
    keep: &str,
) -> Result<usize, WalError> {
    let names = disk
        .list()
        .map_err(|e| WalError::Io(format!("list directory: {e}")))?;
    for name in names {
        let older = parse_checkpoint_name(&name).is_some_and(|l| l < lsn);
        if (older || is_temp_checkpoint(&name)) && name != keep {
            disk.remove(&name)
                .map_err(|e| io_error("remove", &name, e))?;
        }
    }
    let obsolete: Vec<_> = {
        let mut segments = shared.segments.lock();
        // Segment i holds lsns first(i)..first(i+1); it is obsolete if first(i+1) <= lsn+1.
        let count = segments
            .windows(2)
            .take_while(|w| w[1].first_lsn.0 <= lsn.0 + 1)
            .count();
        segments.drain(..count).collect()
    };
    for segment in &obsolete {
        disk.remove(&segment.name)
            .map_err(|e| io_error("remove", &segment.name, e))?;
    }
    if !obsolete.is_empty() {
        disk.sync_dir()
            .map_err(|e| WalError::Io(format!("sync directory: {e}")))?;
    }
    Ok(obsolete.len())
}

/// Reads a checkpoint, verifying every entry, and hands each record to `apply`; counts
/// the entries written in format version 1 into `format1_entries`.
/// Streams: memory use is one chunk, not the file.
pub(crate) fn read_checkpoint(
    disk: &dyn Disk,
    name: &str,
    lsn: Lsn,
    apply: &mut dyn FnMut(Lsn, LogRecord),
    format1_entries: &mut u64,
) -> Result<u64, WalError> {
    let corrupt = |offset: u64, reason: &str| WalError::Corrupt {
        file: name.to_string(),
        offset,
        reason: format!("damaged checkpoint: {reason}"),
    };
    let mut reader = ChunkReader {
        disk,
        name,
        offset: 0,
        buffer: Vec::new(),
        at: 0,
    };
    let header = reader
        .take(HEADER_LEN)?
        .ok_or_else(|| corrupt(0, "short header"))?;
    let header_ok = &header[0..8] == CHECKPOINT_MAGIC
        && read_u32_le(&header, 8) == Some(CHECKPOINT_VERSION)
        && read_u32_le(&header, 24) == Some(crc32c::crc32c(&header[0..24]))
        && read_u64_le(&header, 16) == Some(lsn.0);
    if !header_ok {
        return Err(corrupt(0, "bad header"));
    }
    let (mut entries, mut entries_crc) = (0u64, 0u32);
    // Verified entries not yet decoded: (file offset, payload); decoded a run at a time on
    // every core, then applied in file order.
    let mut pending: Vec<(u64, Vec<u8>)> = Vec::new();
    let mut pending_bytes = 0;
    let mut decode_pending = |pending: &mut Vec<(u64, Vec<u8>)>, bytes| -> Result<(), WalError> {
        let payloads: Vec<&[u8]> = pending.iter().map(|(_, p)| &p[..]).collect();
        *format1_entries += payloads
            .iter()
            .filter(|p| weighs_keys_by_case_only(p))
            .count() as u64;
        let records =
            decode_payloads(&payloads, bytes).map_err(|(i, e)| corrupt(pending[i].0, e.0))?;
        pending.clear();
        for record in records {
            apply(lsn, record);
        }
        Ok(())
    };
    loop {
        let at = reader.position();
        let head = reader
            .take(8)?
            .ok_or_else(|| corrupt(at, "ends without a trailer"))?;
        let len = read_u32_le(&head, 0).expect("8 bytes");
        if len == TRAILER_MARK {
            decode_pending(&mut pending, pending_bytes)?;
            let rest = reader
                .take(TRAILER_LEN - 8)?
                .ok_or_else(|| corrupt(at, "short trailer"))?;
            let trailer: Vec<u8> = head.iter().chain(rest.iter()).copied().collect();
            let ok = read_u64_le(&trailer, 8) == Some(entries)
                && read_u64_le(&trailer, 16) == Some(lsn.0)
                && read_u32_le(&trailer, 24) == Some(entries_crc)
                && read_u32_le(&trailer, 28) == Some(crc32c::crc32c(&trailer[0..28]));
            if !ok {
                return Err(corrupt(at, "trailer does not match the entries"));
            }
            if reader.take(1)?.is_some() {
                return Err(corrupt(reader.position(), "bytes after the trailer"));
            }
            return Ok(entries);
        }
        if len as usize > RECORD_PAYLOAD_MAX {
            return Err(corrupt(at, "entry length out of range"));
        }
        let payload = reader
            .take(len as usize)?
            .ok_or_else(|| corrupt(at, "short entry"))?;
        let crc = crc32c::crc32c_append(crc32c::crc32c(&head[0..4]), &payload);
        if read_u32_le(&head, 4) != Some(crc) {
            return Err(corrupt(at, "entry checksum mismatch"));
        }
        entries_crc = crc32c::crc32c_append(entries_crc, &head);
        entries_crc = crc32c::crc32c_append(entries_crc, &payload);
        entries += 1;
        pending_bytes += payload.len();
        pending.push((at, payload));
        if pending_bytes >= DECODE_RUN_BYTES {
            decode_pending(&mut pending, pending_bytes)?;
            pending_bytes = 0;
        }
    }
}

struct ChunkReader<'a> {
    disk: &'a dyn Disk,
    name: &'a str,
    /// File offset of `buffer[0]`.
    offset: u64,
    buffer: Vec<u8>,
    at: usize,
}

impl ChunkReader<'_> {
    fn position(&self) -> u64 {
        self.offset + self.at as u64
    }

    /// The next `n` bytes, or None if the file ends first.
    fn take(&mut self, n: usize) -> Result<Option<Vec<u8>>, WalError> {
        while self.buffer.len() - self.at < n {
            self.offset += self.at as u64;
            self.buffer.drain(..self.at);
            self.at = 0;
            let have = self.buffer.len();
            let want = (n - have).max(WRITE_CHUNK_BYTES);
            self.buffer.resize(have + want, 0);
            let file_at = self.offset + have as u64;
            let read = self
                .disk
                .read_at(self.name, file_at, &mut self.buffer[have..]);
            let read = read.map_err(|e| WalError::Io(format!("read {}: {e}", self.name)))?;
            self.buffer.truncate(have + read);
            if read == 0 {
                return Ok(None);
            }
        }
        let out = self.buffer[self.at..self.at + n].to_vec();
        self.at += n;
        Ok(Some(out))
    }
}
