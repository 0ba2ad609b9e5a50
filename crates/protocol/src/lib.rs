//! The MySQL client/server protocol as a pure codec: bytes in, bytes out, no sockets.
//!
//! The server crate owns I/O; it reads socket bytes into a buffer, asks `packet` for
//! complete payloads, decodes them here (`handshake`, `command`, `prepared`), drives
//! authentication with `auth`, and encodes replies (`response`, `resultset`,
//! `prepared`) into a reused output buffer through `packet::PacketWriter`.
//!
//! Code map:
//! - `codec`: lenenc integers/strings, NUL strings, a bounds-checked `Reader`.
//! - `packet`: framing, 16 MiB splitting, `max_allowed_packet`.
//! - `handshake`: Initial Handshake v10, HandshakeResponse41, SSLRequest, capabilities.
//! - `auth`: mysql_native_password and caching_sha2_password, AuthSwitch, AuthMoreData.
//! - `sha256_crypt`: caching_sha2_password's stored form ("$A$005$..." in mysql.user).
//! - `response`: OK / ERR / EOF and server status flags.
//! - `resultset`: column definitions, text and binary rows, MySQL number formatting.
//! - `command`: the command phase (COM_*) parser.
//! - `prepared`: COM_STMT_PREPARE_OK and COM_STMT_EXECUTE parameters.
//! - `error`: `ProtocolError`, with the MySQL code and SQLSTATE of each case.
//!
//! Architecture invariants:
//! (1) No I/O, no async, no logging, no global state: every function is a pure
//!     transformation of its arguments, so the codec is testable byte for byte.
//! (2) Decoders borrow from the payload; encoders append to a caller-owned `Vec<u8>`.
//!     Nothing allocates per query in steady state.
//! (3) Malformed input is an `Err(ProtocolError)`, never a panic.

pub mod auth;
pub mod codec;
pub mod command;
pub mod error;
pub mod handshake;
pub mod packet;
pub mod prepared;
pub mod response;
pub mod resultset;
pub mod sha256_crypt;

pub use error::{ProtocolError, Result};
