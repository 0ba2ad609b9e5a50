//! Generic server responses: OK, ERR and EOF packets, and the server status flags.
//!
//! Payload layouts (all integers little-endian; PROTOCOL_41 is always negotiated):
//!
//! OK:   u8 header (0x00, or 0xFE when it ends a result set under CLIENT_DEPRECATE_EOF)
//!       lenenc affected_rows, lenenc last_insert_id, u16 status_flags, u16 warnings,
//!       [lenenc info, only when non-empty]. The protocol docs call info string<EOF>,
//!       but MySQL and MariaDB servers write it lenenc (net_store_data) and clients
//!       read it so. We never advertise CLIENT_SESSION_TRACK: no session-state block.
//! ERR:  u8 0xFF, u16 error code, u8 '#', 5 bytes SQLSTATE, message: rest of payload
//! EOF:  u8 0xFE, u16 warnings, u16 status_flags (exactly 5 bytes)
//!
//! Invariants:
//! (1) An OK with the 0xFE header is shorter than 9 bytes + info, so clients can tell it
//!     from a text row starting with a 0xFE lenenc prefix (which needs 9+ bytes).
//! (2) The ERR message is cut to `ERR_MESSAGE_MAX` bytes at a UTF-8 character boundary,
//!     as clients allocate MYSQL_ERRMSG_SIZE for it.
//! (3) SQLSTATE is always exactly 5 bytes on the wire; a wrong-length state is a
//!     programmer error (asserted) since all states come from constants.

use crate::codec::{write_lenenc_bytes, write_lenenc_int, write_u16};

/// Server status flags, sent in OK and EOF packets and in the handshake.
pub mod status {
    pub const IN_TRANS: u16 = 0x0001;
    pub const AUTOCOMMIT: u16 = 0x0002;
    pub const MORE_RESULTS_EXISTS: u16 = 0x0008;
    pub const NO_GOOD_INDEX_USED: u16 = 0x0010;
    pub const NO_INDEX_USED: u16 = 0x0020;
    pub const CURSOR_EXISTS: u16 = 0x0040;
    pub const LAST_ROW_SENT: u16 = 0x0080;
    pub const DB_DROPPED: u16 = 0x0100;
    pub const NO_BACKSLASH_ESCAPES: u16 = 0x0200;
    pub const METADATA_CHANGED: u16 = 0x0400;
    pub const QUERY_WAS_SLOW: u16 = 0x0800;
    pub const PS_OUT_PARAMS: u16 = 0x1000;
    pub const IN_TRANS_READONLY: u16 = 0x2000;
    pub const SESSION_STATE_CHANGED: u16 = 0x4000;
}

/// Clients keep error messages in a 512-byte buffer (MYSQL_ERRMSG_SIZE).
pub const ERR_MESSAGE_MAX: usize = 512;

pub const OK_HEADER: u8 = 0x00;
pub const EOF_HEADER: u8 = 0xFE;
pub const ERR_HEADER: u8 = 0xFF;
pub const LOCAL_INFILE_HEADER: u8 = 0xFB;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OkPacket<'a> {
    pub affected_rows: u64,
    pub last_insert_id: u64,
    pub status_flags: u16,
    pub warnings: u16,
    /// Human-readable info ("Rows matched: 1  Changed: 1  Warnings: 0"), usually empty.
    pub info: &'a [u8],
}

/// Appends an OK payload with the 0x00 header (a command's success).
pub fn write_ok(out: &mut Vec<u8>, ok: &OkPacket<'_>) {
    write_ok_with_header(out, OK_HEADER, ok);
}

/// Appends the OK payload with the 0xFE header that ends a result set when
/// CLIENT_DEPRECATE_EOF is negotiated (it replaces the final EOF packet).
pub fn write_result_set_end_ok(out: &mut Vec<u8>, ok: &OkPacket<'_>) {
    write_ok_with_header(out, EOF_HEADER, ok);
}

fn write_ok_with_header(out: &mut Vec<u8>, header: u8, ok: &OkPacket<'_>) {
    out.push(header);
    write_lenenc_int(out, ok.affected_rows);
    write_lenenc_int(out, ok.last_insert_id);
    write_u16(out, ok.status_flags);
    write_u16(out, ok.warnings);
    if !ok.info.is_empty() {
        write_lenenc_bytes(out, ok.info);
    }
}

/// Appends an ERR payload.
pub fn write_err(out: &mut Vec<u8>, code: u16, sql_state: &str, message: &[u8]) {
    assert_eq!(
        sql_state.len(),
        5,
        "SQLSTATE must be 5 characters: {sql_state:?}"
    );
    out.push(ERR_HEADER);
    write_u16(out, code);
    out.push(b'#');
    out.extend_from_slice(sql_state.as_bytes());
    out.extend_from_slice(truncate_message(message));
}

/// Cuts `message` to at most ERR_MESSAGE_MAX bytes without splitting a UTF-8 character.
fn truncate_message(message: &[u8]) -> &[u8] {
    if message.len() <= ERR_MESSAGE_MAX {
        return message;
    }
    let mut end = ERR_MESSAGE_MAX;
    // Step back over continuation bytes (10xxxxxx) to the start of a character.
    while end > 0 && message[end] & 0xC0 == 0x80 {
        end -= 1;
    }
    &message[..end]
}

/// Appends LOAD DATA LOCAL's request for a file: 0xFB, then the name as the statement
/// gave it. The client answers with the file's bytes in packets, then an empty packet.
pub fn write_local_infile_request(out: &mut Vec<u8>, file_name: &[u8]) {
    out.push(LOCAL_INFILE_HEADER);
    out.extend_from_slice(file_name);
}

/// Appends a 5-byte EOF payload.
pub fn write_eof(out: &mut Vec<u8>, warnings: u16, status_flags: u16) {
    out.push(EOF_HEADER);
    write_u16(out, warnings);
    write_u16(out, status_flags);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ok_layout() {
        let mut out = Vec::new();
        let ok = OkPacket {
            affected_rows: 300,
            last_insert_id: 7,
            status_flags: status::AUTOCOMMIT,
            warnings: 1,
            info: b"hi",
        };
        write_ok(&mut out, &ok);
        assert_eq!(
            out,
            [0x00, 0xFC, 0x2C, 0x01, 0x07, 0x02, 0x00, 0x01, 0x00, 2, b'h', b'i']
        );
        out.clear();
        write_result_set_end_ok(&mut out, &OkPacket::default());
        assert_eq!(out, [0xFE, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn err_layout_and_truncation() {
        let mut out = Vec::new();
        write_err(&mut out, 1146, "42S02", b"Table 't' doesn't exist");
        assert_eq!(&out[..9], b"\xFF\x7A\x04#42S02");
        assert_eq!(&out[9..], b"Table 't' doesn't exist");
        let long = "é".repeat(400);
        out.clear();
        write_err(&mut out, 1064, "42000", long.as_bytes());
        let message = &out[9..];
        assert_eq!(message.len(), ERR_MESSAGE_MAX);
        assert!(std::str::from_utf8(message).is_ok());
    }

    #[test]
    fn eof_layout() {
        let mut out = Vec::new();
        write_eof(&mut out, 2, status::IN_TRANS | status::AUTOCOMMIT);
        assert_eq!(out, [0xFE, 2, 0, 3, 0]);
    }
}
