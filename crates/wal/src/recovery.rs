//! Recovery: newest checkpoint + the log after it, verified record by record.
//!
//! Steps, in order (nothing is changed on disk until the whole log has been read and
//! judged, so a startup that stops on corruption leaves the files as they were):
//! 1. List the directory: checkpoints, unfinished `.tmp` checkpoints, segments.
//! 2. C = the newest checkpoint's LSN (0 without one). Segments wholly <= C are obsolete.
//! 3. Scan the remaining segments in order (segment.rs says what is torn and what is
//!    corrupt). A torn tail of the newest segment is truncated and reported. Corruption
//!    stops startup with the file and offset, unless `recover_truncate_log`, which cuts the
//!    log there, drops later segments and warns loudly.
//! 4. Stream the checkpoint to `apply` (its records carry LSN C), then every log record
//!    with LSN > C, in LSN order. Both are decoded on every core (checkpoint entries a
//!    run of them at a time) and applied in order.
//! 5. Repair: truncate the torn tail, remove obsolete files, and start a new segment if
//!    the next LSN would not continue the newest segment.
//!
//! Invariant: every record handed to `apply` passed its checksum and decoded; LSNs of log
//! records handed to `apply` are dense and start at C + 1.

use crate::checkpoint::{is_temp_checkpoint, parse_checkpoint_name, read_checkpoint};
use crate::disk::{read_all, Disk};
use crate::log::{create_segment, Cursor, SegmentInfo};
use crate::record::{weighs_keys_by_case_only, LogRecord};
use crate::segment::{parse_segment_name, scan_segment, ScanEnd, SEGMENT_HEADER_LEN};
use crate::{DecodeError, Lsn, WalError, WalOptions};
use std::ops::Range;

/// Segments (and runs of checkpoint entries) at least this large are decoded on every core.
const PARALLEL_DECODE_BYTES_MIN: usize = 1 << 20;

/// What recovery found and did; the server logs it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecoveryReport {
    /// LSN of the checkpoint loaded (0: none).
    pub checkpoint_lsn: Lsn,
    pub checkpoint_file: Option<String>,
    pub checkpoint_entries: u64,
    /// Log records applied after the checkpoint.
    pub log_records: u64,
    /// A torn tail that was truncated: (file, offset).
    pub torn_tail: Option<(String, u64)>,
    /// Corruption accepted because of `recover_truncate_log`: (file, offset, reason).
    pub truncated_corruption: Option<(String, u64, String)>,
    /// The first LSN the log will hand out.
    pub next_lsn: Lsn,
    /// Records and checkpoint entries read that were written in format version 1, whose
    /// keys weighed utf8mb4_general_ci strings by case only (record.rs).
    pub format1_records: u64,
}

pub(crate) struct Recovered {
    pub(crate) report: RecoveryReport,
    pub(crate) segments: Vec<SegmentInfo>,
    pub(crate) cursor: Cursor,
}

fn io(what: &str, name: &str, e: std::io::Error) -> WalError {
    WalError::Io(format!("{what} {name}: {e}"))
}

pub(crate) fn recover(
    disk: &dyn Disk,
    options: &WalOptions,
    apply: &mut dyn FnMut(Lsn, LogRecord),
) -> Result<Recovered, WalError> {
    let names = disk.list().map_err(|e| io("list", "directory", e))?;
    let checkpoint = names
        .iter()
        .filter_map(|n| Some((parse_checkpoint_name(n)?, n)))
        .max();
    let c = checkpoint.map_or(Lsn(0), |(lsn, _)| lsn);
    let mut segments: Vec<SegmentInfo> = names
        .iter()
        .filter_map(|n| {
            Some(SegmentInfo {
                first_lsn: parse_segment_name(n)?,
                name: n.clone(),
            })
        })
        .collect();
    segments.sort_by_key(|s| s.first_lsn);
    let live_from = segments
        .iter()
        .rposition(|s| s.first_lsn.0 <= c.0 + 1)
        .unwrap_or(0);
    let obsolete: Vec<SegmentInfo> = segments.drain(..live_from).collect();
    let mut report = RecoveryReport {
        checkpoint_lsn: c,
        checkpoint_file: checkpoint.map(|(_, n)| n.clone()),
        ..RecoveryReport::default()
    };

    // Step 3: read and judge the log.
    let mut records: Vec<(Lsn, LogRecord)> = Vec::new();
    let mut expected = segments.first().map_or(Lsn(c.0 + 1), |s| s.first_lsn);
    if expected.0 > c.0 + 1 {
        let name = &segments[0].name;
        return Err(corrupt(
            name,
            0,
            format!("log starts at {} after checkpoint {}", expected.0, c.0),
        ));
    }
    let mut cut: Option<(usize, u64)> = None; // (segment index, offset) to truncate at.
    for (i, segment) in segments.iter().enumerate() {
        let newest = i + 1 == segments.len();
        if segment.first_lsn != expected {
            let reason = format!(
                "segment starts at lsn {}, expected {}",
                segment.first_lsn.0, expected.0
            );
            accept_or_fail(options, &mut report, &segment.name, 0, reason)?;
            cut = Some((i, 0));
            break;
        }
        let bytes = read_all(disk, &segment.name).map_err(|e| io("read", &segment.name, e))?;
        let scan = scan_segment(&bytes, segment.first_lsn, newest);
        if let Some((lsn, _)) = scan.frames.last() {
            expected = Lsn(lsn.0 + 1);
        }
        let after_checkpoint = scan.frames.partition_point(|(lsn, _)| lsn.0 <= c.0);
        let decoded =
            decode_frames(&bytes, &scan.frames[after_checkpoint..]).map_err(|(at, e)| {
                let offset = (at - crate::segment::FRAME_HEADER_LEN) as u64;
                corrupt(
                    &segment.name,
                    offset,
                    format!("record does not decode: {e}"),
                )
            })?;
        report.format1_records += scan.frames[after_checkpoint..]
            .iter()
            .filter(|(_, payload)| weighs_keys_by_case_only(&bytes[payload.clone()]))
            .count() as u64;
        records.extend(decoded);
        match scan.end {
            ScanEnd::Clean => {}
            ScanEnd::TornTail { offset } => {
                tracing::warn!(
                    "log {} has a torn tail at offset {offset} (a write cut short by a crash); \
                     truncating it. No acknowledged commit is lost.",
                    segment.name
                );
                report.torn_tail = Some((segment.name.clone(), offset));
                cut = Some((i, offset));
            }
            ScanEnd::Corrupt { offset, reason } => {
                accept_or_fail(
                    options,
                    &mut report,
                    &segment.name,
                    offset,
                    reason.to_string(),
                )?;
                cut = Some((i, offset));
                break;
            }
        }
    }
    if expected.0 <= c.0 {
        // The checkpoint holds everything up to C, so nothing is lost; but the log is
        // made durable through C before a checkpoint is installed, so say so.
        tracing::warn!(
            "log ends at lsn {} before checkpoint {}",
            expected.0 - 1,
            c.0
        );
    }

    // Step 4: apply.
    if let Some((lsn, name)) = checkpoint {
        report.checkpoint_entries =
            read_checkpoint(disk, name, lsn, apply, &mut report.format1_records)?;
    }
    report.log_records = records.len() as u64;
    for (lsn, record) in records {
        apply(lsn, record);
    }

    // Step 5: repair, then pick where appends continue.
    let next_lsn = Lsn(expected.0.max(c.0 + 1));
    report.next_lsn = next_lsn;
    let mut removed = false;
    if let Some((i, offset)) = cut {
        for segment in segments.drain(i + 1..) {
            disk.remove(&segment.name)
                .map_err(|e| io("remove", &segment.name, e))?;
            removed = true;
        }
        let segment = &segments[i];
        if offset < SEGMENT_HEADER_LEN as u64 {
            disk.remove(&segment.name)
                .map_err(|e| io("remove", &segment.name, e))?;
            segments.pop();
            removed = true;
        } else {
            disk.truncate(&segment.name, offset)
                .map_err(|e| io("truncate", &segment.name, e))?;
            disk.sync(&segment.name)
                .map_err(|e| io("fdatasync", &segment.name, e))?;
        }
    }
    for name in names.iter().filter(|n| is_temp_checkpoint(n)) {
        disk.remove(name).map_err(|e| io("remove", name, e))?;
        removed = true;
    }
    for name in names
        .iter()
        .filter(|n| parse_checkpoint_name(n).is_some_and(|l| l < c))
    {
        disk.remove(name).map_err(|e| io("remove", name, e))?;
        removed = true;
    }
    for segment in &obsolete {
        disk.remove(&segment.name)
            .map_err(|e| io("remove", &segment.name, e))?;
        removed = true;
    }
    if removed {
        disk.sync_dir().map_err(|e| io("sync", "directory", e))?;
    }
    // Appends continue the newest segment only if it ends right before `next_lsn`.
    let continues = segments.last().is_some() && expected == next_lsn;
    let cursor = if continues {
        let segment = segments.last().expect("checked").clone();
        let len = disk
            .len(&segment.name)
            .map_err(|e| io("stat", &segment.name, e))?;
        Cursor {
            segment,
            len,
            dirty: false,
        }
    } else {
        let segment = create_segment(disk, next_lsn)?;
        segments.push(segment.clone());
        Cursor {
            segment,
            len: SEGMENT_HEADER_LEN as u64,
            dirty: false,
        }
    };
    Ok(Recovered {
        report,
        segments,
        cursor,
    })
}

/// Decodes frames of one segment (in LSN order), on every core for a large segment.
/// Err: the payload start and error of the first frame in log order that does not decode.
fn decode_frames(
    bytes: &[u8],
    frames: &[(Lsn, Range<usize>)],
) -> Result<Vec<(Lsn, LogRecord)>, (usize, DecodeError)> {
    let payloads: Vec<&[u8]> = frames.iter().map(|(_, r)| &bytes[r.clone()]).collect();
    let records =
        decode_payloads(&payloads, bytes.len()).map_err(|(i, e)| (frames[i].1.start, e))?;
    Ok(frames.iter().map(|(lsn, _)| *lsn).zip(records).collect())
}

/// Decodes payloads in order: when they total at least `PARALLEL_DECODE_BYTES_MIN`
/// (`bytes`), one contiguous part per core. Err: the position in `payloads` and error of
/// the first payload in order that does not decode.
pub(crate) fn decode_payloads(
    payloads: &[&[u8]],
    bytes: usize,
) -> Result<Vec<LogRecord>, (usize, DecodeError)> {
    let decode = |first: usize, part: &[&[u8]]| {
        part.iter()
            .enumerate()
            .map(|(i, payload)| LogRecord::decode(payload).map_err(|e| (first + i, e)))
            .collect::<Result<Vec<_>, _>>()
    };
    let threads = match bytes {
        0..PARALLEL_DECODE_BYTES_MIN => 1,
        _ => std::thread::available_parallelism().map_or(1, usize::from),
    };
    let chunk = payloads.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let parts: Vec<_> = payloads
            .chunks(chunk)
            .enumerate()
            .map(|(i, part)| scope.spawn(move || decode(i * chunk, part)))
            .collect();
        let mut records = Vec::with_capacity(payloads.len());
        for part in parts {
            records.extend(part.join().expect("decoding thread panicked")?);
        }
        Ok(records)
    })
}

fn corrupt(file: &str, offset: u64, reason: String) -> WalError {
    WalError::Corrupt {
        file: file.to_string(),
        offset,
        reason,
    }
}

/// Corruption stops startup unless the operator accepted losing the log from there on.
fn accept_or_fail(
    options: &WalOptions,
    report: &mut RecoveryReport,
    file: &str,
    offset: u64,
    reason: String,
) -> Result<(), WalError> {
    if !options.recover_truncate_log {
        return Err(corrupt(file, offset, reason));
    }
    tracing::error!(
        "LOG CORRUPTION ACCEPTED (recover_truncate_log): {file} at offset {offset}: {reason}. \
         Every record from there on, and every later segment, is DISCARDED; commits that \
         were acknowledged may be lost."
    );
    report.truncated_corruption = Some((file.to_string(), offset, reason));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use manycore_types::Value;

    /// Enough payload bytes to decode on every core: the records come back in order, and a
    /// bad payload in a later part is reported at its own position.
    #[test]
    fn parallel_decoding_keeps_order_and_reports_the_first_bad_payload() {
        let records: Vec<LogRecord> = (0..64u8)
            .map(|i| LogRecord::TableRows {
                db: "d".into(),
                table: format!("t{i}"),
                rows: vec![(vec![i], vec![Value::Bytes(vec![i; 40_000])])],
            })
            .collect();
        let encoded: Vec<_> = records.iter().map(LogRecord::encode).collect();
        let mut payloads: Vec<&[u8]> = encoded.iter().map(|e| e.payload()).collect();
        let bytes = payloads.iter().map(|p| p.len()).sum();
        assert!(bytes >= PARALLEL_DECODE_BYTES_MIN);
        assert_eq!(decode_payloads(&payloads, bytes), Ok(records));
        let bad = [crate::record::FORMAT_VERSION, 0xEE];
        payloads[50] = &bad;
        payloads[60] = &bad;
        let (at, _) = decode_payloads(&payloads, bytes).expect_err("payload 50 is bad");
        assert_eq!(at, 50);
    }
}
