//! Packet framing: splitting logical payloads into wire packets and back.
//!
//! Wire packet layout:
//!
//!   0: u24 LE payload length (0..=0xFFFFFF)   3: u8 sequence id   4: payload
//!
//! A logical payload of L bytes travels as ceil-ish L / 0xFFFFFF packets: every packet
//! but the last carries exactly 0xFFFFFF bytes, the last carries fewer. When L is an
//! exact multiple of 0xFFFFFF (including L = 0xFFFFFF) a final empty packet ends it.
//! Sequence ids increase by one per packet, wrapping 255 -> 0, across both directions of
//! one command exchange; a new command restarts at 0.
//!
//! Reading: the server reads socket bytes into a buffer and calls `next_payload` on the
//! unconsumed part. It returns `Ok(None)` until a whole logical payload is present, then
//! a `Frame` saying where the payload lies and how many buffer bytes to consume. A split
//! payload is reassembled in place (the interior headers are squeezed out by moving the
//! bytes), so no byte is copied into a second buffer.
//!
//! Writing: `PacketWriter` appends packets to a caller-owned `Vec<u8>`. Encoders write a
//! payload directly after a reserved header (`begin`), and `finish` fills the header,
//! inserting extra headers if the payload turned out to need splitting.
//!
//! Invariants:
//! (1) `next_payload` does not modify the buffer unless it returns a complete `Frame`.
//! (2) A logical payload longer than `max_payload_len` is rejected with
//!     `PacketTooLarge` as soon as the headers prove it, before its bytes arrive.
//! (3) Within a split payload each packet's sequence id is the previous one plus one;
//!     anything else is `PacketsOutOfOrder`.
//! (4) `PacketWriter` emits the exact packet sequence a MySQL server emits for the same
//!     payload, including the trailing empty packet.

use crate::error::{ProtocolError, Result};
use std::ops::Range;

/// Largest payload one wire packet can carry; a packet this long is continued.
pub const MAX_PACKET_CHUNK: usize = 0xFF_FFFF;
pub const HEADER_LEN: usize = 4;

/// One complete logical payload found at the start of a read buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Sequence id of the first packet (0 for a new command).
    pub first_sequence_id: u8,
    /// Sequence id of the last packet; the reply starts at this plus one.
    pub last_sequence_id: u8,
    /// Where the reassembled payload lies in the buffer given to `next_payload`.
    pub payload: Range<usize>,
    /// How many bytes at the start of the buffer this frame used up.
    pub consumed: usize,
}

impl Frame {
    /// The sequence id the server's first reply packet must carry.
    pub fn reply_sequence_id(&self) -> u8 {
        self.last_sequence_id.wrapping_add(1)
    }
}

/// Extracts the next logical payload from the start of `buf`.
///
/// `Ok(None)`: more bytes are needed. `Err(PacketTooLarge)`: the payload exceeds
/// `max_payload_len` (the server sends ER_NET_PACKET_TOO_LARGE and closes).
pub fn next_payload(buf: &mut [u8], max_payload_len: usize) -> Result<Option<Frame>> {
    // First pass: find where the logical payload ends, reading headers only (invariant (1)).
    let mut at = 0;
    let mut total = 0usize;
    let mut chunks = 0usize;
    let mut first_sequence_id = 0;
    let mut sequence_id = 0u8;
    loop {
        if buf.len() < at + HEADER_LEN {
            return Ok(None);
        }
        let len = u32::from_le_bytes([buf[at], buf[at + 1], buf[at + 2], 0]) as usize;
        let seq = buf[at + 3];
        if chunks == 0 {
            first_sequence_id = seq;
        } else if seq != sequence_id.wrapping_add(1) {
            return Err(ProtocolError::PacketsOutOfOrder {
                expected: sequence_id.wrapping_add(1),
                got: seq,
            });
        }
        sequence_id = seq;
        total += len;
        chunks += 1;
        if total > max_payload_len {
            return Err(ProtocolError::PacketTooLarge {
                length: total,
                max: max_payload_len,
            });
        }
        if buf.len() < at + HEADER_LEN + len {
            return Ok(None);
        }
        at += HEADER_LEN + len;
        if len < MAX_PACKET_CHUNK {
            break;
        }
    }
    // Second pass, only for split payloads: squeeze out the interior headers so the
    // payload is contiguous right after the first header.
    let mut write = HEADER_LEN + MAX_PACKET_CHUNK.min(total);
    let mut read = write;
    for _ in 1..chunks {
        read += HEADER_LEN;
        let len = (total - (write - HEADER_LEN)).min(MAX_PACKET_CHUNK);
        buf.copy_within(read..read + len, write);
        read += len;
        write += len;
    }
    debug_assert_eq!(read, at);
    Ok(Some(Frame {
        first_sequence_id,
        last_sequence_id: sequence_id,
        payload: HEADER_LEN..HEADER_LEN + total,
        consumed: at,
    }))
}

/// A payload whose header is reserved in the output buffer but not yet filled.
#[must_use = "a begun packet must be finished"]
#[derive(Debug)]
pub struct PacketStart {
    header_at: usize,
}

/// Appends packets to an output buffer and tracks the sequence id.
#[derive(Clone, Debug, Default)]
pub struct PacketWriter {
    sequence_id: u8,
}

impl PacketWriter {
    pub fn new(sequence_id: u8) -> Self {
        PacketWriter { sequence_id }
    }

    /// The sequence id the next packet will carry.
    pub fn sequence_id(&self) -> u8 {
        self.sequence_id
    }

    /// Sets the next sequence id, e.g. to `Frame::reply_sequence_id()` before replying.
    pub fn set_sequence_id(&mut self, sequence_id: u8) {
        self.sequence_id = sequence_id;
    }

    /// Reserves a header; the caller then appends the payload to `out`.
    pub fn begin(&mut self, out: &mut Vec<u8>) -> PacketStart {
        let header_at = out.len();
        out.extend_from_slice(&[0; HEADER_LEN]);
        PacketStart { header_at }
    }

    /// Fills the header reserved by `begin`, splitting the payload (everything appended
    /// since `begin`) into several packets when it is `MAX_PACKET_CHUNK` bytes or longer.
    pub fn finish(&mut self, out: &mut Vec<u8>, start: PacketStart) {
        let base = start.header_at;
        let total = out.len() - base - HEADER_LEN;
        if total < MAX_PACKET_CHUNK {
            // Nearly every packet: one header, no splitting.
            let header = (total as u32 | u32::from(self.sequence_id) << 24).to_le_bytes();
            out[base..base + HEADER_LEN].copy_from_slice(&header);
            self.sequence_id = self.sequence_id.wrapping_add(1);
            return;
        }
        let chunks = total / MAX_PACKET_CHUNK + 1;
        if chunks > 1 {
            // Make room for the extra headers, then move chunks back to front so no chunk
            // is overwritten before it has moved.
            out.resize(out.len() + (chunks - 1) * HEADER_LEN, 0);
            for i in (1..chunks).rev() {
                let src = base + HEADER_LEN + i * MAX_PACKET_CHUNK;
                let len = (total - i * MAX_PACKET_CHUNK).min(MAX_PACKET_CHUNK);
                let dst = src + i * HEADER_LEN;
                out.copy_within(src..src + len, dst);
            }
        }
        for i in 0..chunks {
            let len = (total - i * MAX_PACKET_CHUNK).min(MAX_PACKET_CHUNK);
            let at = base + i * (MAX_PACKET_CHUNK + HEADER_LEN);
            out[at..at + 3].copy_from_slice(&(len as u32).to_le_bytes()[..3]);
            out[at + 3] = self.sequence_id;
            self.sequence_id = self.sequence_id.wrapping_add(1);
        }
    }

    /// Drops a begun packet and everything appended since `begin` (e.g. after an
    /// encoding error), leaving the sequence id untouched.
    pub fn abandon(&mut self, out: &mut Vec<u8>, start: PacketStart) {
        out.truncate(start.header_at);
    }

    /// Appends `payload` as one logical packet.
    pub fn write_packet(&mut self, out: &mut Vec<u8>, payload: &[u8]) {
        let start = self.begin(out);
        out.extend_from_slice(payload);
        self.finish(out, start);
    }

    /// Appends one logical packet whose payload `encode` writes.
    pub fn write_with<R>(
        &mut self,
        out: &mut Vec<u8>,
        encode: impl FnOnce(&mut Vec<u8>) -> R,
    ) -> R {
        let start = self.begin(out);
        let result = encode(out);
        self.finish(out, start);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame_all(mut wire: Vec<u8>, max: usize) -> Vec<Vec<u8>> {
        let mut payloads = Vec::new();
        let mut start = 0;
        while let Some(f) = next_payload(&mut wire[start..], max).expect("valid") {
            payloads.push(wire[start + f.payload.start..start + f.payload.end].to_vec());
            start += f.consumed;
        }
        assert_eq!(start, wire.len(), "all bytes consumed");
        payloads
    }

    #[test]
    fn small_packets_round_trip() {
        let mut w = PacketWriter::new(0);
        let mut out = Vec::new();
        w.write_packet(&mut out, b"\x03select 1");
        w.write_packet(&mut out, b"");
        assert_eq!(&out[..4], &[9, 0, 0, 0]);
        assert_eq!(&out[13..17], &[0, 0, 0, 1]);
        assert_eq!(w.sequence_id(), 2);
        assert_eq!(
            frame_all(out, 1 << 20),
            vec![b"\x03select 1".to_vec(), vec![]]
        );
    }

    #[test]
    fn split_payloads_round_trip_at_boundaries() {
        let mut lens = vec![MAX_PACKET_CHUNK - 1, MAX_PACKET_CHUNK, MAX_PACKET_CHUNK + 1];
        lens.push(2 * MAX_PACKET_CHUNK);
        for len in lens {
            let payload: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            let mut w = PacketWriter::new(254);
            let mut out = b"prefix".to_vec();
            w.write_packet(&mut out, &payload);
            let expected_packets = len / MAX_PACKET_CHUNK + 1;
            assert_eq!(out.len(), 6 + len + HEADER_LEN * expected_packets);
            assert_eq!(w.sequence_id(), 254u8.wrapping_add(expected_packets as u8));
            // The last packet is short (possibly empty).
            let last = 6 + (expected_packets - 1) * (MAX_PACKET_CHUNK + HEADER_LEN);
            assert_eq!(
                out[last..last + 3],
                ((len % MAX_PACKET_CHUNK) as u32).to_le_bytes()[..3]
            );
            let wire = out.split_off(6);
            let mut buf = wire.clone();
            let f = next_payload(&mut buf, 64 << 20)
                .expect("valid")
                .expect("complete");
            assert_eq!(f.first_sequence_id, 254);
            assert_eq!(f.consumed, wire.len());
            assert!(buf[f.payload.clone()] == payload[..], "len {len}");
            // Any strict prefix is incomplete and left untouched (invariant (1)).
            for cut in [0, 3, 4, MAX_PACKET_CHUNK + 3, wire.len() - 1] {
                let mut part = wire[..cut.min(wire.len() - 1)].to_vec();
                assert_eq!(next_payload(&mut part, 64 << 20), Ok(None));
                assert!(part[..] == wire[..part.len()]);
            }
        }
    }

    #[test]
    fn too_large_is_detected_from_the_header() {
        let mut buf = vec![0x10, 0x00, 0x00, 0x00, b'x'];
        assert_eq!(
            next_payload(&mut buf, 15),
            Err(ProtocolError::PacketTooLarge {
                length: 16,
                max: 15
            })
        );
        assert_eq!(next_payload(&mut buf, 16), Ok(None));
    }

    #[test]
    fn out_of_order_continuation_is_rejected() {
        let mut buf = vec![0xFF, 0xFF, 0xFF, 7];
        buf.resize(4 + MAX_PACKET_CHUNK, 1);
        buf.extend_from_slice(&[0, 0, 0, 9]);
        assert_eq!(
            next_payload(&mut buf, usize::MAX),
            Err(ProtocolError::PacketsOutOfOrder {
                expected: 8,
                got: 9
            })
        );
    }

    #[test]
    fn write_with_encodes_in_place() {
        let mut w = PacketWriter::default();
        let mut out = Vec::new();
        let n = w.write_with(&mut out, |o| {
            o.extend_from_slice(b"abc");
            3
        });
        assert_eq!(n, 3);
        assert_eq!(out, b"\x03\x00\x00\x00abc");
    }
}
