//! Log segment files: layout, frame checksums, and how a damaged tail is told from
//! corruption.
//!
//! The log is a sequence of files `log-<first lsn, 16 hex digits>.wal`. Each is:
//!
//!   header (32 bytes, written and synced before any frame):
//!     0: [u8; 8] magic "MCWALSEG"     8: u32 LE version (1)     12: u32 zero
//!    16: u64 LE first lsn             24: u32 LE crc32c of bytes 0..24   28: u32 zero
//!   then frames back to back, no padding:
//!     0: u32 LE payload length n (<= RECORD_PAYLOAD_MAX)
//!     4: u32 LE crc32c of bytes 0..4 then 8..24+n (everything but the crc itself)
//!     8: u64 LE lsn
//!    16: u64 LE synced lsn: every lsn <= this was durable when this frame was written
//!    24: payload (record.rs), n bytes
//!
//! Invariants:
//! (1) LSNs are dense: the first frame of a segment has the header's first lsn, each next
//!     frame the previous one's plus one, and a segment's first lsn is the previous
//!     segment's last plus one.
//! (2) A segment is synced in full before the next one is created, so only the newest
//!     segment can have a damaged tail.
//! (3) `synced lsn < lsn` in every frame.
//!
//! Torn tail versus corruption. Scanning stops at the first frame that is short, has a bad
//! length or checksum, or the wrong lsn; call its expected lsn L and offset o.
//! - In a segment that is not the newest, that is corruption (invariant (2)).
//! - In the newest segment it is corruption if some later offset holds a valid frame whose
//!   synced lsn is >= L: that frame was written after L was durable, so L was once whole
//!   on disk and something damaged it since.
//! - Otherwise it is a torn tail: L was never acknowledged (its fsync never returned, or
//!   in SyncMode::None the damage is within what was not yet synced), and the bytes from o
//!   on are truncated. This covers zero-filled and short tails and writes that reached the
//!   disk out of order. The one case it cannot tell apart: bit rot in the newest synced
//!   records with nothing written after them looks the same as a torn write. Recovery
//!   warns with the file and offset either way.

use crate::codec::{read_u32_le, read_u64_le};
use crate::record::RECORD_PAYLOAD_MAX;
use crate::Lsn;

pub const SEGMENT_MAGIC: &[u8; 8] = b"MCWALSEG";
pub const SEGMENT_VERSION: u32 = 1;
pub const SEGMENT_HEADER_LEN: usize = 32;
pub const FRAME_HEADER_LEN: usize = 24;

pub fn segment_name(first_lsn: Lsn) -> String {
    format!("log-{:016x}.wal", first_lsn.0)
}

/// The first lsn in a segment file name, if it is one.
pub fn parse_segment_name(name: &str) -> Option<Lsn> {
    let hex = name.strip_prefix("log-")?.strip_suffix(".wal")?;
    (hex.len() == 16).then(|| u64::from_str_radix(hex, 16).ok().map(Lsn))?
}

pub fn segment_header(first_lsn: Lsn) -> [u8; SEGMENT_HEADER_LEN] {
    let mut h = [0u8; SEGMENT_HEADER_LEN];
    h[0..8].copy_from_slice(SEGMENT_MAGIC);
    h[8..12].copy_from_slice(&SEGMENT_VERSION.to_le_bytes());
    h[16..24].copy_from_slice(&first_lsn.0.to_le_bytes());
    let crc = crc32c::crc32c(&h[0..24]);
    h[24..28].copy_from_slice(&crc.to_le_bytes());
    h
}

fn parse_segment_header(bytes: &[u8]) -> Option<Lsn> {
    let h = bytes.get(..SEGMENT_HEADER_LEN)?;
    let ok = &h[0..8] == SEGMENT_MAGIC
        && read_u32_le(h, 8)? == SEGMENT_VERSION
        && read_u32_le(h, 24)? == crc32c::crc32c(&h[0..24]);
    ok.then(|| read_u64_le(h, 16).map(Lsn))?
}

/// Appends a frame with a zero checksum and synced lsn; `seal_frames` fills them in.
pub fn push_frame(buf: &mut Vec<u8>, lsn: Lsn, payload: &[u8]) {
    assert!(
        payload.len() <= RECORD_PAYLOAD_MAX,
        "payload of {} bytes",
        payload.len()
    );
    buf.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    buf.extend_from_slice(&[0; 4]);
    buf.extend_from_slice(&lsn.0.to_le_bytes());
    buf.extend_from_slice(&[0; 8]);
    buf.extend_from_slice(payload);
}

fn frame_crc(frame: &[u8]) -> u32 {
    crc32c::crc32c_append(crc32c::crc32c(&frame[0..4]), &frame[8..])
}

/// Stamps every frame in `batch` (lsns `first..`, dense) with `synced` and its checksum.
/// Returns the number of frames. Panics if the batch is not well formed: a record is
/// checked before it is written.
pub fn seal_frames(batch: &mut [u8], first: Lsn, synced: Lsn) -> u64 {
    let mut at = 0;
    let mut lsn = first.0;
    while at < batch.len() {
        let len = read_u32_le(batch, at).expect("frame header in batch") as usize;
        let end = at + FRAME_HEADER_LEN + len;
        assert!(end <= batch.len(), "frame at {at} overruns its batch");
        assert_eq!(
            read_u64_le(batch, at + 8),
            Some(lsn),
            "lsns in a batch are dense"
        );
        assert!(
            synced.0 < lsn,
            "synced lsn {} not below frame lsn {lsn}",
            synced.0
        );
        batch[at + 16..at + 24].copy_from_slice(&synced.0.to_le_bytes());
        let crc = frame_crc(&batch[at..end]);
        batch[at + 4..at + 8].copy_from_slice(&crc.to_le_bytes());
        at = end;
        lsn += 1;
    }
    lsn - first.0
}

/// A frame that checks out at `at`: (lsn, synced lsn, payload range, end offset).
fn valid_frame(bytes: &[u8], at: usize) -> Option<(u64, u64, std::ops::Range<usize>)> {
    let len = read_u32_le(bytes, at)? as usize;
    if len > RECORD_PAYLOAD_MAX {
        return None;
    }
    let end = at.checked_add(FRAME_HEADER_LEN + len)?;
    let frame = bytes.get(at..end)?;
    let (lsn, synced) = (read_u64_le(frame, 8)?, read_u64_le(frame, 16)?);
    if synced >= lsn || read_u32_le(frame, 4)? != frame_crc(frame) {
        return None;
    }
    Some((lsn, synced, at + FRAME_HEADER_LEN..end))
}

/// How a segment's scan ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScanEnd {
    /// Every byte belongs to a valid frame.
    Clean,
    /// Bytes from `offset` on are a torn write (never acknowledged).
    TornTail { offset: u64 },
    /// Damage at `offset` before data that was durable.
    Corrupt { offset: u64, reason: &'static str },
}

#[derive(Debug)]
pub struct SegmentScan {
    /// (lsn, payload range) of each valid frame, in order.
    pub frames: Vec<(Lsn, std::ops::Range<usize>)>,
    /// Offset just past the last valid frame (or the header).
    pub valid_end: u64,
    pub end: ScanEnd,
}

/// Scans one segment whose name says it starts at `first_lsn`.
pub fn scan_segment(bytes: &[u8], first_lsn: Lsn, newest: bool) -> SegmentScan {
    let mut scan = SegmentScan {
        frames: Vec::new(),
        valid_end: 0,
        end: ScanEnd::Clean,
    };
    match parse_segment_header(bytes) {
        Some(lsn) if lsn == first_lsn => {}
        Some(_) => {
            scan.end = ScanEnd::Corrupt {
                offset: 0,
                reason: "header lsn differs from name",
            };
            return scan;
        }
        // A segment is created, given its header and synced before any frame is written,
        // so a bad header on a file no longer than a header is a torn creation.
        None if newest && bytes.len() <= SEGMENT_HEADER_LEN => {
            scan.end = ScanEnd::TornTail { offset: 0 };
            return scan;
        }
        None => {
            scan.end = ScanEnd::Corrupt {
                offset: 0,
                reason: "bad segment header",
            };
            return scan;
        }
    }
    let mut at = SEGMENT_HEADER_LEN;
    let mut expected = first_lsn.0;
    while at < bytes.len() {
        match valid_frame(bytes, at) {
            Some((lsn, _, payload)) if lsn == expected => {
                at = payload.end;
                scan.frames.push((Lsn(lsn), payload));
                expected += 1;
            }
            _ => break,
        }
    }
    scan.valid_end = at as u64;
    if at == bytes.len() {
        return scan;
    }
    scan.end = if !newest {
        ScanEnd::Corrupt {
            offset: at as u64,
            reason: "bad frame in a completed segment",
        }
    } else if durable_frame_after(bytes, at + 1, expected) {
        ScanEnd::Corrupt {
            offset: at as u64,
            reason: "bad frame followed by later durable data",
        }
    } else {
        ScanEnd::TornTail { offset: at as u64 }
    };
    scan
}

/// Whether a valid frame starts at or after `from` that was written once `lsn` was durable.
fn durable_frame_after(bytes: &[u8], from: usize, lsn: u64) -> bool {
    (from..bytes.len().saturating_sub(FRAME_HEADER_LEN - 1)).any(|at| {
        // Cheap filter before the checksum: the synced field must cover `lsn`.
        let synced = read_u64_le(bytes, at + 16).unwrap_or(0);
        let frame_lsn = read_u64_le(bytes, at + 8).unwrap_or(0);
        synced >= lsn && frame_lsn > synced && valid_frame(bytes, at).is_some()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segment(first: u64, payloads: &[&[u8]], synced: &[u64]) -> Vec<u8> {
        let mut bytes = segment_header(Lsn(first)).to_vec();
        for (i, p) in payloads.iter().enumerate() {
            let mut batch = Vec::new();
            push_frame(&mut batch, Lsn(first + i as u64), p);
            seal_frames(&mut batch, Lsn(first + i as u64), Lsn(synced[i]));
            bytes.extend_from_slice(&batch);
        }
        bytes
    }

    #[test]
    fn names_round_trip() {
        assert_eq!(segment_name(Lsn(0x1f)), "log-000000000000001f.wal");
        assert_eq!(
            parse_segment_name(&segment_name(Lsn(u64::MAX))),
            Some(Lsn(u64::MAX))
        );
        assert_eq!(parse_segment_name("log-1.wal"), None);
        assert_eq!(parse_segment_name("checkpoint-000000000000001f.ckpt"), None);
    }

    #[test]
    fn clean_segment_scans_every_frame() {
        let bytes = segment(5, &[b"a", b"bc", b""], &[4, 4, 6]);
        let scan = scan_segment(&bytes, Lsn(5), true);
        assert_eq!(scan.end, ScanEnd::Clean);
        assert_eq!(scan.frames.len(), 3);
        assert_eq!(scan.frames[2].0, Lsn(7));
        assert_eq!(&bytes[scan.frames[1].1.clone()], b"bc");
    }

    #[test]
    fn every_truncation_of_the_tail_is_torn() {
        let bytes = segment(1, &[b"first", b"second", b"third"], &[0, 1, 1]);
        let second_end = SEGMENT_HEADER_LEN + 2 * FRAME_HEADER_LEN + 11;
        for cut in second_end + 1..bytes.len() {
            let scan = scan_segment(&bytes[..cut], Lsn(1), true);
            assert_eq!(
                scan.end,
                ScanEnd::TornTail {
                    offset: second_end as u64
                },
                "cut {cut}"
            );
            assert_eq!(scan.frames.len(), 2);
        }
        let mut zeroed = bytes.clone();
        zeroed.extend_from_slice(&[0; 100]);
        assert!(matches!(
            scan_segment(&zeroed, Lsn(1), true).end,
            ScanEnd::TornTail { .. }
        ));
        // A torn header on a fresh segment.
        assert_eq!(
            scan_segment(&bytes[..10], Lsn(1), true).end,
            ScanEnd::TornTail { offset: 0 }
        );
        assert!(matches!(
            scan_segment(&bytes[..10], Lsn(1), false).end,
            ScanEnd::Corrupt { .. }
        ));
    }

    #[test]
    fn damage_before_durable_data_is_corruption() {
        // Frame 3 says lsn 2 was durable when it was written.
        let mut bytes = segment(1, &[b"one", b"two", b"three"], &[0, 1, 2]);
        let second = SEGMENT_HEADER_LEN + FRAME_HEADER_LEN + 3;
        bytes[second + FRAME_HEADER_LEN] ^= 1;
        let scan = scan_segment(&bytes, Lsn(1), true);
        assert!(matches!(scan.end, ScanEnd::Corrupt { offset, .. } if offset == second as u64));
        // Same damage when the later frame was written before lsn 2 was synced: torn.
        let mut bytes = segment(1, &[b"one", b"two", b"three"], &[0, 1, 1]);
        bytes[second + FRAME_HEADER_LEN] ^= 1;
        let scan = scan_segment(&bytes, Lsn(1), true);
        assert_eq!(
            scan.end,
            ScanEnd::TornTail {
                offset: second as u64
            }
        );
    }
}
