//! A raw MySQL-protocol client for sending what no driver would: malformed,
//! truncated or unknown packets, and connections dropped mid-transaction.
//!
//! Packet framing: 3-byte little-endian payload length, 1-byte sequence id, payload.
//! Login: root with an empty password answers the server's handshake with an empty
//! auth response (valid for mysql_native_password and caching_sha2_password alike),
//! and an auth-switch request with an empty response too.
//!
//! Invariants:
//! (1) Every read has a timeout, so a server that never answers fails the test
//!     instead of hanging it.
//! (2) Nothing here interprets more of a packet than the test needs: the first byte
//!     (0x00 OK, 0xFF ERR, 0xFE EOF/auth switch) and, for ERR, the error code.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::time::Duration;

/// How long a raw read waits for the server.
pub const READ_TIMEOUT: Duration = Duration::from_secs(10);

pub const COM_QUIT: u8 = 0x01;
pub const COM_INIT_DB: u8 = 0x02;
pub const COM_QUERY: u8 = 0x03;
pub const COM_FIELD_LIST: u8 = 0x04;
pub const COM_PING: u8 = 0x0e;
pub const COM_STMT_PREPARE: u8 = 0x16;
pub const COM_STMT_EXECUTE: u8 = 0x17;
pub const COM_STMT_CLOSE: u8 = 0x19;
pub const COM_STMT_FETCH: u8 = 0x1c;

// Capability flags of the handshake response.
const CLIENT_LONG_PASSWORD: u32 = 0x0000_0001;
const CLIENT_PROTOCOL_41: u32 = 0x0000_0200;
const CLIENT_TRANSACTIONS: u32 = 0x0000_2000;
const CLIENT_SECURE_CONNECTION: u32 = 0x0000_8000;
const CLIENT_MULTI_RESULTS: u32 = 0x0002_0000;
const CLIENT_PLUGIN_AUTH: u32 = 0x0008_0000;

/// What the server answered, classified by the payload's first byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    Ok,
    Error {
        code: u16,
        message: String,
    },
    /// Anything else (a result set header, EOF, ...): the raw payload.
    Other(Vec<u8>),
    /// The server closed the connection.
    Closed,
}

#[derive(Debug)]
pub struct RawClient {
    stream: TcpStream,
}

impl RawClient {
    /// A TCP connection to 127.0.0.1:`port` with the handshake not yet read.
    pub fn connect(port: u16) -> io::Result<RawClient> {
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5))?;
        stream.set_read_timeout(Some(READ_TIMEOUT))?;
        stream.set_write_timeout(Some(READ_TIMEOUT))?;
        stream.set_nodelay(true)?;
        Ok(RawClient { stream })
    }

    /// Connects and logs in as root with no password; Err if the server refuses.
    pub fn login(port: u16) -> io::Result<RawClient> {
        Ok(RawClient::login_as(port, None)?.0)
    }

    /// Logs in as a MariaDB client does: CLIENT_MYSQL clear and MariaDB's `extended`
    /// capability flags declared. Returns the client and the extended capabilities the
    /// server's handshake offered.
    pub fn login_mariadb(port: u16, extended: u32) -> io::Result<(RawClient, u32)> {
        RawClient::login_as(port, Some(extended))
    }

    fn login_as(port: u16, extended: Option<u32>) -> io::Result<(RawClient, u32)> {
        let mut client = RawClient::connect(port)?;
        let (_, handshake) = client.read_packet()?;
        let plugin = handshake_plugin(&handshake).unwrap_or_else(|| "mysql_native_password".into());
        let offered = handshake_extended_capabilities(&handshake).unwrap_or(0);
        client.write_packet(1, &handshake_response(&plugin, extended))?;
        let mut seq = 2;
        loop {
            let (reply_seq, payload) = client.read_packet()?;
            match payload.first() {
                Some(0x00) => return Ok((client, offered)),
                // Auth switch (0xFE) or more auth data (0x01): answer with an empty response.
                Some(0xfe) | Some(0x01) if seq < 8 => {
                    seq = reply_seq.wrapping_add(1);
                    client.write_packet(seq, &[])?;
                }
                _ => {
                    return Err(io::Error::other(format!(
                        "login refused: {:?}",
                        classify(Some(payload))
                    )))
                }
            }
        }
    }

    /// Writes one framed packet (payload under 16 MiB).
    pub fn write_packet(&mut self, seq: u8, payload: &[u8]) -> io::Result<()> {
        assert!(payload.len() < 0xff_ffff, "raw packets are single-frame");
        let len = payload.len() as u32;
        let mut frame = Vec::with_capacity(payload.len() + 4);
        frame.extend_from_slice(&len.to_le_bytes()[..3]);
        frame.push(seq);
        frame.extend_from_slice(payload);
        self.stream.write_all(&frame)
    }

    /// Writes bytes as they are, framing or not.
    pub fn write_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stream.write_all(bytes)
    }

    /// Sends a command (sequence id 0).
    pub fn command(&mut self, command: u8, argument: &[u8]) -> io::Result<()> {
        let mut payload = vec![command];
        payload.extend_from_slice(argument);
        self.write_packet(0, &payload)
    }

    /// Reads one packet: (sequence id, payload).
    pub fn read_packet(&mut self) -> io::Result<(u8, Vec<u8>)> {
        let mut header = [0u8; 4];
        self.stream.read_exact(&mut header)?;
        let len = u32::from_le_bytes([header[0], header[1], header[2], 0]) as usize;
        let mut payload = vec![0u8; len];
        self.stream.read_exact(&mut payload)?;
        Ok((header[3], payload))
    }

    /// The server's next reply, classified; `Closed` on EOF or reset. A read timeout
    /// is an `Err`: the server neither answered nor closed.
    pub fn reply(&mut self) -> io::Result<Reply> {
        match self.read_packet() {
            Ok((_, payload)) => Ok(classify(Some(payload))),
            Err(e) if is_closed(&e) => Ok(Reply::Closed),
            Err(e) => Err(e),
        }
    }

    /// Runs a text query and reads its reply's first packet, draining a result set.
    pub fn query(&mut self, sql: &str) -> io::Result<Reply> {
        self.command(COM_QUERY, sql.as_bytes())?;
        let reply = self.reply()?;
        if let Reply::Other(_) = reply {
            self.drain_result_set()?;
        }
        Ok(reply)
    }

    /// COM_STMT_PREPARE: (statement id, parameter count, column count), after reading
    /// the definitions that follow (each list ends in an EOF: no DEPRECATE_EOF here).
    pub fn prepare(&mut self, sql: &str) -> io::Result<(u32, u16, u16)> {
        self.command(COM_STMT_PREPARE, sql.as_bytes())?;
        let (_, ok) = self.read_packet()?;
        if ok.first() != Some(&0) || ok.len() < 9 {
            return Err(io::Error::other(format!(
                "COM_STMT_PREPARE_OK expected, got {:?}",
                classify(Some(ok))
            )));
        }
        let id = u32::from_le_bytes([ok[1], ok[2], ok[3], ok[4]]);
        let columns = u16::from_le_bytes([ok[5], ok[6]]);
        let params = u16::from_le_bytes([ok[7], ok[8]]);
        for count in [params, columns] {
            if count > 0 {
                for _ in 0..=count {
                    self.read_packet()?;
                }
            }
        }
        Ok((id, params, columns))
    }

    /// Reads packets up to the end of a text result set (two EOF/OK terminators:
    /// after the column definitions and after the rows).
    pub fn drain_result_set(&mut self) -> io::Result<()> {
        let mut terminators = 0;
        while terminators < 2 {
            let (_, payload) = self.read_packet()?;
            match payload.first() {
                Some(0xfe) if payload.len() < 0xff_ffff => terminators += 1,
                Some(0xff) => return Ok(()),
                _ => {}
            }
        }
        Ok(())
    }

    /// Closes our sending side, as a client that dies mid-packet would.
    pub fn shutdown_write(&self) {
        let _ = self.stream.shutdown(Shutdown::Write);
    }

    /// Drops the connection without COM_QUIT.
    pub fn abort(self) {
        let _ = self.stream.shutdown(Shutdown::Both);
    }
}

fn is_closed(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::UnexpectedEof
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::BrokenPipe
    )
}

fn classify(payload: Option<Vec<u8>>) -> Reply {
    let Some(payload) = payload else {
        return Reply::Closed;
    };
    match payload.first() {
        Some(0x00) => Reply::Ok,
        Some(0xff) if payload.len() >= 3 => {
            let code = u16::from_le_bytes([payload[1], payload[2]]);
            // ERR: 0xFF, code, then '#' + 5-byte SQLSTATE, then the message.
            let message_start = if payload.get(3) == Some(&b'#') { 9 } else { 3 };
            let message = String::from_utf8_lossy(payload.get(message_start..).unwrap_or(&[]));
            Reply::Error {
                code,
                message: message.into_owned(),
            }
        }
        _ => Reply::Other(payload),
    }
}

/// The auth plugin name at the end of a v10 handshake, if present.
fn handshake_plugin(handshake: &[u8]) -> Option<String> {
    if handshake.first() != Some(&10) {
        return None;
    }
    let version_end = 1 + handshake[1..].iter().position(|&b| b == 0)?;
    // version NUL, connection id (4), auth data 1 (8), filler (1), caps low (2),
    // charset (1), status (2), caps high (2), auth data length (1), reserved (10).
    let auth_len_at = version_end + 1 + 4 + 8 + 1 + 2 + 1 + 2 + 2;
    let auth_len = usize::from(*handshake.get(auth_len_at)?);
    let part2_at = auth_len_at + 1 + 10;
    let part2_len = auth_len.saturating_sub(8).max(13);
    let plugin_at = part2_at + part2_len;
    let rest = handshake.get(plugin_at..)?;
    let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
    Some(String::from_utf8_lossy(&rest[..end]).into_owned())
}

/// MariaDB's extended capabilities in a v10 handshake (None if it is too short), read
/// whether or not CLIENT_MYSQL says they mean anything.
fn handshake_extended_capabilities(handshake: &[u8]) -> Option<u32> {
    let version_end = 1 + handshake.get(1..)?.iter().position(|&b| b == 0)?;
    // As in `handshake_plugin`; the last 4 of the 10 reserved bytes.
    let at = version_end + 1 + 4 + 8 + 1 + 2 + 1 + 2 + 2 + 1 + 6;
    let bytes = handshake.get(at..at + 4)?;
    Some(u32::from_le_bytes(bytes.try_into().ok()?))
}

/// HandshakeResponse41 for root with an empty password and no database; with
/// `extended`, as a MariaDB client (CLIENT_MYSQL clear, extended flags in the filler).
fn handshake_response(plugin: &str, extended: Option<u32>) -> Vec<u8> {
    let client_mysql = if extended.is_some() {
        0
    } else {
        CLIENT_LONG_PASSWORD
    };
    let capabilities = client_mysql
        | CLIENT_PROTOCOL_41
        | CLIENT_TRANSACTIONS
        | CLIENT_SECURE_CONNECTION
        | CLIENT_MULTI_RESULTS
        | CLIENT_PLUGIN_AUTH;
    let mut payload = Vec::new();
    payload.extend_from_slice(&capabilities.to_le_bytes());
    payload.extend_from_slice(&(16u32 * 1024 * 1024).to_le_bytes());
    payload.push(45); // utf8mb4_general_ci
    payload.extend_from_slice(&[0u8; 19]);
    payload.extend_from_slice(&extended.unwrap_or(0).to_le_bytes());
    payload.extend_from_slice(b"root\0");
    payload.push(0); // auth response length: empty password
    payload.extend_from_slice(plugin.as_bytes());
    payload.push(0);
    payload
}
