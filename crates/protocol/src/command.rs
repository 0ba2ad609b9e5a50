//! The command phase: what the client asks once it is authenticated.
//!
//! Every command payload starts with one command byte. Layouts after it:
//!
//!   COM_QUIT 0x01, COM_STATISTICS 0x09, COM_DEBUG 0x0D, COM_PING 0x0E,
//!   COM_RESET_CONNECTION 0x1F:       nothing
//!   COM_INIT_DB 0x02:                schema name (rest of payload)
//!   COM_QUERY 0x03:                  query text (rest; no attributes: we never
//!                                    advertise CLIENT_QUERY_ATTRIBUTES)
//!   COM_FIELD_LIST 0x04:             table NUL | wildcard (rest)
//!   COM_PROCESS_KILL 0x0C:           u32 connection id
//!   COM_CHANGE_USER 0x11:            user NUL | auth (u8 length + bytes with
//!                                    SECURE_CONNECTION, else NUL-terminated) | schema NUL
//!                                    [u16 charset [plugin NUL [lenenc connect attrs]]]
//!   COM_STMT_PREPARE 0x16:           query text (rest)
//!   COM_STMT_EXECUTE 0x17:           u32 statement id | ... (see `prepared::parse_execute`)
//!   COM_STMT_SEND_LONG_DATA 0x18:    u32 statement id | u16 param id | data (rest)
//!   COM_STMT_CLOSE 0x19, COM_STMT_RESET 0x1A: u32 statement id
//!   COM_SET_OPTION 0x1B:             u16 (0 = multi-statements on, 1 = off)
//!   COM_STMT_FETCH 0x1C:             u32 statement id | u32 row count
//!
//! Invariants:
//! (1) Parsing borrows from the payload and never allocates.
//! (2) Bytes after a command's fixed fields are ignored, as MySQL does; missing fixed
//!     fields are `Truncated`. COM_CHANGE_USER's trailing parts are optional (older
//!     clients stop after the schema), each one either whole or absent.
//! (3) An unknown command byte is not an error here: it is `Command::Unknown`, and the
//!     server answers ER_UNKNOWN_COM_ERROR (1047) and carries on.

use crate::codec::Reader;
use crate::error::{ProtocolError, Result};
use crate::handshake::{capability, parse_connect_attrs};

/// Command bytes.
pub mod com {
    pub const SLEEP: u8 = 0x00;
    pub const QUIT: u8 = 0x01;
    pub const INIT_DB: u8 = 0x02;
    pub const QUERY: u8 = 0x03;
    pub const FIELD_LIST: u8 = 0x04;
    pub const STATISTICS: u8 = 0x09;
    pub const PROCESS_KILL: u8 = 0x0C;
    pub const DEBUG: u8 = 0x0D;
    pub const PING: u8 = 0x0E;
    pub const CHANGE_USER: u8 = 0x11;
    pub const STMT_PREPARE: u8 = 0x16;
    pub const STMT_EXECUTE: u8 = 0x17;
    pub const STMT_SEND_LONG_DATA: u8 = 0x18;
    pub const STMT_CLOSE: u8 = 0x19;
    pub const STMT_RESET: u8 = 0x1A;
    pub const SET_OPTION: u8 = 0x1B;
    pub const STMT_FETCH: u8 = 0x1C;
    pub const RESET_CONNECTION: u8 = 0x1F;
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command<'a> {
    Quit,
    InitDb {
        schema: &'a [u8],
    },
    Query {
        query: &'a [u8],
    },
    FieldList {
        table: &'a [u8],
        wildcard: &'a [u8],
    },
    Statistics,
    ProcessKill {
        connection_id: u32,
    },
    Debug,
    Ping,
    ChangeUser(ChangeUser<'a>),
    StmtPrepare {
        query: &'a [u8],
    },
    /// Only the statement id is decoded here: the rest needs the statement's parameter
    /// count, so the server passes the same payload to `prepared::parse_execute`.
    StmtExecute {
        statement_id: u32,
    },
    StmtSendLongData {
        statement_id: u32,
        param_id: u16,
        data: &'a [u8],
    },
    StmtClose {
        statement_id: u32,
    },
    StmtReset {
        statement_id: u32,
    },
    SetOption {
        multi_statements: bool,
    },
    StmtFetch {
        statement_id: u32,
        row_count: u32,
    },
    ResetConnection,
    Unknown(u8),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangeUser<'a> {
    pub username: &'a [u8],
    pub auth_response: &'a [u8],
    pub schema: &'a [u8],
    pub charset: Option<u16>,
    pub auth_plugin: Option<&'a [u8]>,
    pub connect_attrs: Option<&'a [u8]>,
}

/// Parses one command payload. `client_capabilities` are the negotiated capabilities
/// (COM_CHANGE_USER's layout depends on them).
pub fn parse_command(payload: &[u8], client_capabilities: u32) -> Result<Command<'_>> {
    let mut r = Reader::new(payload);
    let command = r.u8("command")?;
    Ok(match command {
        com::QUIT => Command::Quit,
        com::INIT_DB => Command::InitDb { schema: r.rest() },
        com::QUERY => Command::Query { query: r.rest() },
        com::FIELD_LIST => {
            let table = r.nul_bytes("table")?;
            Command::FieldList {
                table,
                wildcard: r.rest(),
            }
        }
        com::STATISTICS => Command::Statistics,
        com::PROCESS_KILL => Command::ProcessKill {
            connection_id: r.u32("connection id")?,
        },
        com::DEBUG => Command::Debug,
        com::PING => Command::Ping,
        com::CHANGE_USER => Command::ChangeUser(parse_change_user(&mut r, client_capabilities)?),
        com::STMT_PREPARE => Command::StmtPrepare { query: r.rest() },
        com::STMT_EXECUTE => Command::StmtExecute {
            statement_id: r.u32("statement id")?,
        },
        com::STMT_SEND_LONG_DATA => Command::StmtSendLongData {
            statement_id: r.u32("statement id")?,
            param_id: r.u16("parameter id")?,
            data: r.rest(),
        },
        com::STMT_CLOSE => Command::StmtClose {
            statement_id: r.u32("statement id")?,
        },
        com::STMT_RESET => Command::StmtReset {
            statement_id: r.u32("statement id")?,
        },
        com::SET_OPTION => match r.u16("option")? {
            0 => Command::SetOption {
                multi_statements: true,
            },
            1 => Command::SetOption {
                multi_statements: false,
            },
            _ => return Err(ProtocolError::Malformed { what: "option" }),
        },
        com::STMT_FETCH => Command::StmtFetch {
            statement_id: r.u32("statement id")?,
            row_count: r.u32("row count")?,
        },
        com::RESET_CONNECTION => Command::ResetConnection,
        other => Command::Unknown(other),
    })
}

fn parse_change_user<'a>(r: &mut Reader<'a>, capabilities: u32) -> Result<ChangeUser<'a>> {
    let username = r.nul_bytes("username")?;
    let auth_response = if capabilities & capability::SECURE_CONNECTION != 0 {
        let len = r.u8("auth response length")?;
        r.bytes(len as usize, "auth response")?
    } else {
        r.nul_bytes("auth response")?
    };
    let schema = r.nul_bytes("schema")?;
    let mut change = ChangeUser {
        username,
        auth_response,
        schema,
        charset: None,
        auth_plugin: None,
        connect_attrs: None,
    };
    if r.is_empty() {
        return Ok(change);
    }
    change.charset = Some(r.u16("charset")?);
    if capabilities & capability::PLUGIN_AUTH != 0 && !r.is_empty() {
        change.auth_plugin = Some(r.nul_bytes("auth plugin")?);
    }
    if capabilities & capability::CONNECT_ATTRS != 0 && !r.is_empty() {
        change.connect_attrs = Some(parse_connect_attrs(r)?);
    }
    Ok(change)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{write_lenenc_bytes, write_nul_bytes};

    const CAPS: u32 = capability::SERVER_DEFAULT;

    #[test]
    fn simple_commands() {
        let cases: Vec<(&[u8], Command<'_>)> = vec![
            (b"\x01", Command::Quit),
            (b"\x02db1", Command::InitDb { schema: b"db1" }),
            (b"\x03select 1", Command::Query { query: b"select 1" }),
            (
                b"\x04t1\0a%",
                Command::FieldList {
                    table: b"t1",
                    wildcard: b"a%",
                },
            ),
            (b"\x09", Command::Statistics),
            (b"\x0c\x05\0\0\0", Command::ProcessKill { connection_id: 5 }),
            (b"\x0d", Command::Debug),
            (b"\x0e", Command::Ping),
            (b"\x16select ?", Command::StmtPrepare { query: b"select ?" }),
            (
                b"\x17\x01\0\0\0\0\x01\0\0\0",
                Command::StmtExecute { statement_id: 1 },
            ),
            (
                b"\x18\x02\0\0\0\x01\0data",
                Command::StmtSendLongData {
                    statement_id: 2,
                    param_id: 1,
                    data: b"data",
                },
            ),
            (b"\x19\x03\0\0\0", Command::StmtClose { statement_id: 3 }),
            (b"\x1a\x03\0\0\0", Command::StmtReset { statement_id: 3 }),
            (
                b"\x1b\0\0",
                Command::SetOption {
                    multi_statements: true,
                },
            ),
            (
                b"\x1b\x01\0",
                Command::SetOption {
                    multi_statements: false,
                },
            ),
            (
                b"\x1c\x03\0\0\0\x0a\0\0\0",
                Command::StmtFetch {
                    statement_id: 3,
                    row_count: 10,
                },
            ),
            (b"\x1f", Command::ResetConnection),
            (b"\x63", Command::Unknown(0x63)),
        ];
        for (payload, want) in cases {
            assert_eq!(
                parse_command(payload, CAPS),
                Ok(want.clone()),
                "{payload:?}"
            );
        }
        for bad in [
            &b""[..],
            b"\x0c\x05",
            b"\x04t1",
            b"\x19\x01\x02\x03",
            b"\x1b\x02\0",
            b"\x1c\x01\0\0\0",
        ] {
            assert!(parse_command(bad, CAPS).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn change_user_full_and_every_mandatory_prefix() {
        let mut p = vec![com::CHANGE_USER];
        write_nul_bytes(&mut p, b"alice");
        p.push(20);
        p.extend_from_slice(&[9; 20]);
        write_nul_bytes(&mut p, b"shop");
        let mandatory = p.len();
        p.extend_from_slice(&45u16.to_le_bytes());
        write_nul_bytes(&mut p, b"caching_sha2_password");
        let mut attrs = Vec::new();
        write_lenenc_bytes(&mut attrs, b"k");
        write_lenenc_bytes(&mut attrs, b"v");
        write_lenenc_bytes(&mut p, &attrs);
        let Ok(Command::ChangeUser(c)) = parse_command(&p, CAPS) else {
            panic!("parse")
        };
        assert_eq!(c.username, b"alice");
        assert_eq!(c.auth_response, &[9; 20]);
        assert_eq!(c.schema, b"shop");
        assert_eq!(c.charset, Some(45));
        assert_eq!(c.auth_plugin, Some(&b"caching_sha2_password"[..]));
        assert_eq!(c.connect_attrs, Some(&attrs[..]));
        for cut in 0..mandatory {
            assert!(parse_command(&p[..cut], CAPS).is_err(), "prefix {cut}");
        }
        // Every longer prefix either parses or fails cleanly; old clients stop after schema.
        for cut in mandatory..p.len() {
            let _ = parse_command(&p[..cut], CAPS);
        }
        let Ok(Command::ChangeUser(c)) = parse_command(&p[..mandatory], CAPS) else {
            panic!("old")
        };
        assert_eq!((c.charset, c.auth_plugin), (None, None));
    }
}
