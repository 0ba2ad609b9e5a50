//! Primitive field codecs shared by every packet: fixed-width little-endian integers,
//! length-encoded integers and strings, NUL-terminated strings.
//!
//! Length-encoded integer ("lenenc") layout, first byte decides:
//!
//!   0x00..=0xFA  the value itself (1 byte)
//!   0xFB         NULL marker in text rows; not an integer
//!   0xFC         followed by u16 LE (3 bytes total)
//!   0xFD         followed by u24 LE (4 bytes total)
//!   0xFE         followed by u64 LE (9 bytes total)
//!   0xFF         ERR packet header; not an integer
//!
//! A lenenc string is a lenenc integer N followed by N raw bytes.
//!
//! Invariants:
//! (1) `Reader` never reads past its slice and never panics: every short read is
//!     `ProtocolError::Truncated` naming the field.
//! (2) Writers append to the caller's `Vec<u8>` and never clear it, so one buffer can
//!     hold many packets (no allocation per query once the buffer has grown).
//! (3) `write_lenenc_int` always uses the shortest form, as MySQL servers do.

use crate::error::{ProtocolError, Result};

/// The NULL marker of a text-protocol row value.
pub const NULL_MARKER: u8 = 0xFB;

/// A cursor over a borrowed payload. Strings come back as subslices of the payload.
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    pub fn position(&self) -> usize {
        self.pos
    }

    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The next byte without consuming it.
    pub fn peek(&self) -> Option<u8> {
        self.buf.get(self.pos).copied()
    }

    pub fn bytes(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        if self.remaining() < n {
            return Err(ProtocolError::Truncated { what });
        }
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.bytes(N, what)?);
        Ok(out)
    }

    pub fn skip(&mut self, n: usize, what: &'static str) -> Result<()> {
        self.bytes(n, what).map(|_| ())
    }

    /// Everything left in the payload.
    pub fn rest(&mut self) -> &'a [u8] {
        let out = &self.buf[self.pos..];
        self.pos = self.buf.len();
        out
    }

    pub fn u8(&mut self, what: &'static str) -> Result<u8> {
        Ok(self.array::<1>(what)?[0])
    }

    pub fn u16(&mut self, what: &'static str) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }

    pub fn u24(&mut self, what: &'static str) -> Result<u32> {
        let b: [u8; 3] = self.array(what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], 0]))
    }

    pub fn u32(&mut self, what: &'static str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    pub fn u64(&mut self, what: &'static str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    /// A length-encoded integer; 0xFB (NULL) and 0xFF are `Malformed` here.
    pub fn lenenc_int(&mut self, what: &'static str) -> Result<u64> {
        match self.u8(what)? {
            n @ 0x00..=0xFA => Ok(n as u64),
            0xFC => Ok(self.u16(what)? as u64),
            0xFD => Ok(self.u24(what)? as u64),
            0xFE => self.u64(what),
            _ => Err(ProtocolError::Malformed { what }),
        }
    }

    /// A length-encoded string.
    pub fn lenenc_bytes(&mut self, what: &'static str) -> Result<&'a [u8]> {
        let len = self.lenenc_int(what)?;
        let len = usize::try_from(len).map_err(|_| ProtocolError::Truncated { what })?;
        self.bytes(len, what)
    }

    /// A NUL-terminated string, without its terminator. A missing NUL is `Truncated`.
    pub fn nul_bytes(&mut self, what: &'static str) -> Result<&'a [u8]> {
        let rest = &self.buf[self.pos..];
        let end = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or(ProtocolError::Truncated { what })?;
        self.pos += end + 1;
        Ok(&rest[..end])
    }
}

/// Number of bytes `write_lenenc_int(value)` appends.
pub fn lenenc_int_len(value: u64) -> usize {
    match value {
        0..=0xFA => 1,
        0xFB..=0xFFFF => 3,
        0x1_0000..=0xFF_FFFF => 4,
        _ => 9,
    }
}

pub fn write_lenenc_int(out: &mut Vec<u8>, value: u64) {
    match value {
        0..=0xFA => out.push(value as u8),
        0xFB..=0xFFFF => {
            out.push(0xFC);
            out.extend_from_slice(&(value as u16).to_le_bytes());
        }
        0x1_0000..=0xFF_FFFF => {
            out.push(0xFD);
            out.extend_from_slice(&(value as u32).to_le_bytes()[..3]);
        }
        _ => {
            out.push(0xFE);
            out.extend_from_slice(&value.to_le_bytes());
        }
    }
}

pub fn write_lenenc_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    write_lenenc_int(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// Appends `bytes` and a NUL. The caller guarantees `bytes` holds no NUL (a NUL inside
/// would silently end the string for the reader), so this is asserted in debug builds.
pub fn write_nul_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    debug_assert!(!bytes.contains(&0), "NUL inside a NUL-terminated string");
    out.extend_from_slice(bytes);
    out.push(0);
}

pub fn write_u16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub fn write_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub fn write_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Runs `format` to append a value, then prefixes it with its lenenc length. Used for
/// numbers and dates, whose text is almost always below 251 bytes (a one-byte length), so
/// they are formatted straight into the output buffer; a longer one (FLOOR(1e300) prints
/// 301 digits, a DOUBLE with fixed decimals is never in exponent form) is moved once to
/// make room for a longer length.
pub(crate) fn write_short_lenenc_with(out: &mut Vec<u8>, format: impl FnOnce(&mut Vec<u8>)) {
    let at = out.len();
    out.push(0);
    format(out);
    let len = out.len() - at - 1;
    if len <= 0xFA {
        out[at] = len as u8;
    } else {
        let text = out.split_off(at + 1);
        out.truncate(at);
        write_lenenc_bytes(out, &text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formatted_lenenc_values_of_any_length() {
        for len in [0, 1, 250, 251, 252, 312, 70_000] {
            let mut out = vec![7];
            write_short_lenenc_with(&mut out, |o| o.resize(o.len() + len, b'9'));
            let mut expected = vec![7];
            write_lenenc_bytes(&mut expected, &vec![b'9'; len]);
            assert_eq!(out, expected, "{len}");
        }
    }

    #[test]
    fn lenenc_int_round_trips_at_every_boundary() {
        for v in [
            0,
            1,
            250,
            251,
            252,
            0xFFFF,
            0x1_0000,
            0xFF_FFFF,
            0x100_0000,
            u64::MAX,
        ] {
            let mut out = Vec::new();
            write_lenenc_int(&mut out, v);
            assert_eq!(out.len(), lenenc_int_len(v), "{v}");
            let mut r = Reader::new(&out);
            assert_eq!(r.lenenc_int("v"), Ok(v));
            assert!(r.is_empty());
            for cut in 0..out.len() {
                assert!(
                    Reader::new(&out[..cut]).lenenc_int("v").is_err(),
                    "{v} cut {cut}"
                );
            }
        }
        assert!(Reader::new(&[0xFB]).lenenc_int("v").is_err());
        assert!(Reader::new(&[0xFF]).lenenc_int("v").is_err());
    }

    #[test]
    fn strings_round_trip() {
        let mut out = Vec::new();
        write_lenenc_bytes(&mut out, b"hello");
        write_nul_bytes(&mut out, b"world");
        let mut r = Reader::new(&out);
        assert_eq!(r.lenenc_bytes("a"), Ok(&b"hello"[..]));
        assert_eq!(r.nul_bytes("b"), Ok(&b"world"[..]));
        assert!(r.is_empty());
        assert!(Reader::new(b"abc").nul_bytes("x").is_err());
        assert!(
            Reader::new(&[0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
                .lenenc_bytes("x")
                .is_err()
        );
    }
}
