//! Errors raised while decoding client packets or encoding server packets.
//!
//! Every variant maps to the MySQL error code and SQLSTATE the server should send
//! (`ProtocolError::code`, `ProtocolError::sql_state`), and says whether the
//! connection must be closed afterwards (`ProtocolError::is_fatal`). This crate never
//! builds the ERR packet for its own errors: the server turns errors into wire packets
//! in exactly one place, with `response::write_err`.
//!
//! Invariants:
//! (1) Decoding never panics on any input; every malformed input is one of these variants.
//! (2) `PacketTooLarge` and `PacketsOutOfOrder` are fatal: the framing is lost, so the
//!     server sends the ERR and closes.

use std::fmt;

/// MySQL error codes this crate's errors map to.
pub mod code {
    /// ER_HANDSHAKE_ERROR, SQLSTATE 08S01: "Bad handshake".
    pub const HANDSHAKE_ERROR: u16 = 1043;
    /// ER_ACCESS_DENIED_ERROR, SQLSTATE 28000.
    pub const ACCESS_DENIED: u16 = 1045;
    /// ER_UNKNOWN_COM_ERROR, SQLSTATE 08S01: "Unknown command".
    pub const UNKNOWN_COMMAND: u16 = 1047;
    /// ER_NET_PACKET_TOO_LARGE, SQLSTATE 08S01.
    pub const NET_PACKET_TOO_LARGE: u16 = 1153;
    /// ER_NET_PACKETS_OUT_OF_ORDER, SQLSTATE 08S01.
    pub const NET_PACKETS_OUT_OF_ORDER: u16 = 1156;
    /// ER_WRONG_ARGUMENTS, SQLSTATE HY000: "Incorrect arguments to mysqld_stmt_execute".
    pub const WRONG_ARGUMENTS: u16 = 1210;
    /// ER_MALFORMED_PACKET, SQLSTATE HY000: "Malformed communication packet".
    pub const MALFORMED_PACKET: u16 = 1835;
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProtocolError {
    /// The payload ended before the field named by `what` was complete.
    Truncated { what: &'static str },
    /// A field held a value the protocol does not allow (for example a length-encoded
    /// integer starting with 0xFF, or a string without its NUL terminator).
    Malformed { what: &'static str },
    /// The handshake response could not be understood (pre-4.1 client, bad layout).
    BadHandshake { what: &'static str },
    /// A logical payload exceeds `max_allowed_packet`. Fatal.
    PacketTooLarge { length: usize, max: usize },
    /// A continuation packet of a split payload carried the wrong sequence id. Fatal.
    PacketsOutOfOrder { expected: u8, got: u8 },
    /// COM_STMT_EXECUTE named a parameter type this server does not know.
    UnknownParamType { code: u8 },
    /// COM_STMT_EXECUTE sent no parameter types and none were cached from an earlier
    /// execute of the statement.
    ParamTypesMissing,
    /// COM_STMT_EXECUTE carried an argument that cannot be decoded (bad length, bad date).
    BadParam { index: usize, what: &'static str },
    /// A value could not be encoded as its column type in a binary row.
    ValueTypeMismatch { column: usize },
}

impl ProtocolError {
    /// MySQL error code for the ERR packet.
    pub fn code(&self) -> u16 {
        match self {
            ProtocolError::Truncated { .. } | ProtocolError::Malformed { .. } => {
                code::MALFORMED_PACKET
            }
            ProtocolError::BadHandshake { .. } => code::HANDSHAKE_ERROR,
            ProtocolError::PacketTooLarge { .. } => code::NET_PACKET_TOO_LARGE,
            ProtocolError::PacketsOutOfOrder { .. } => code::NET_PACKETS_OUT_OF_ORDER,
            ProtocolError::UnknownParamType { .. }
            | ProtocolError::ParamTypesMissing
            | ProtocolError::BadParam { .. } => code::WRONG_ARGUMENTS,
            ProtocolError::ValueTypeMismatch { .. } => code::MALFORMED_PACKET,
        }
    }

    /// Five-character SQLSTATE for the ERR packet.
    pub fn sql_state(&self) -> &'static str {
        match self {
            ProtocolError::BadHandshake { .. }
            | ProtocolError::PacketTooLarge { .. }
            | ProtocolError::PacketsOutOfOrder { .. } => "08S01",
            _ => "HY000",
        }
    }

    /// True when the connection cannot continue after this error (invariant (2)).
    pub fn is_fatal(&self) -> bool {
        matches!(
            self,
            ProtocolError::PacketTooLarge { .. }
                | ProtocolError::PacketsOutOfOrder { .. }
                | ProtocolError::BadHandshake { .. }
        )
    }
}

impl fmt::Display for ProtocolError {
    /// The message text as MySQL words it, so clients and tests see familiar errors.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProtocolError::Truncated { .. } | ProtocolError::Malformed { .. } => {
                f.write_str("Malformed communication packet.")
            }
            ProtocolError::BadHandshake { .. } => f.write_str("Bad handshake"),
            ProtocolError::PacketTooLarge { .. } => {
                f.write_str("Got a packet bigger than 'max_allowed_packet' bytes")
            }
            ProtocolError::PacketsOutOfOrder { .. } => f.write_str("Got packets out of order"),
            ProtocolError::UnknownParamType { .. }
            | ProtocolError::ParamTypesMissing
            | ProtocolError::BadParam { .. } => {
                f.write_str("Incorrect arguments to mysqld_stmt_execute")
            }
            ProtocolError::ValueTypeMismatch { column } => {
                write!(
                    f,
                    "Internal error: value does not fit the type of column {column}"
                )
            }
        }
    }
}

impl std::error::Error for ProtocolError {}

pub type Result<T> = std::result::Result<T, ProtocolError>;
