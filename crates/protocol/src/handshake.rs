//! Connection phase packets: the server's Initial Handshake (protocol v10), the
//! client's HandshakeResponse41 and SSLRequest, and the capability flags.
//!
//! Initial Handshake v10 payload:
//!
//!   u8 10 | server version NUL | u32 connection id | 8 bytes scramble part 1 | u8 0
//!   u16 capabilities (low) | u8 charset | u16 status | u16 capabilities (high)
//!   u8 scramble length + 1 (21) | 6 bytes 0 | u32 MariaDB extended capabilities
//!   12 bytes scramble part 2 | u8 0 | auth plugin name NUL
//!
//! HandshakeResponse41 payload:
//!
//!   u32 capabilities | u32 max packet | u8 charset | 19 bytes filler
//!   u32 MariaDB extended capabilities (read only without CLIENT_MYSQL) | user NUL
//!   auth response: lenenc (PLUGIN_AUTH_LENENC_CLIENT_DATA) or u8 length (SECURE_CONNECTION)
//!   [database NUL (CONNECT_WITH_DB)] [plugin name NUL (PLUGIN_AUTH)]
//!   [lenenc total length, then lenenc key / lenenc value pairs (CONNECT_ATTRS)]
//!   [u8 zstd level (ZSTD_COMPRESSION_ALGORITHM)] -- never negotiated, ignored
//!
//! SSLRequest: the first 32 bytes of a HandshakeResponse41 with CLIENT_SSL set; the
//! server then starts TLS and the client sends the full response inside it.
//!
//! Invariants:
//! (1) We present ourselves as MariaDB: CLIENT_MYSQL (bit 0, MySQL's old LONG_PASSWORD)
//!     is clear, so MariaDB clients read the extended capabilities, of which we offer
//!     only `mariadb_capability::CACHE_METADATA`. MySQL clients ignore both.
//! (2) The scramble has 20 bytes in 1..=127 without '$' (as MySQL generates): no NUL, so
//!     clients that treat it as a C string read all of it.
//! (3) Response parsing is strict: a field the capabilities announce must be present
//!     and complete, otherwise the result is `BadHandshake`/`Truncated` (never a guess).
//! (4) Pre-4.1 clients (no CLIENT_PROTOCOL_41) are refused with `BadHandshake`.

use crate::codec::{write_nul_bytes, write_u16, write_u32, Reader};
use crate::error::{ProtocolError, Result};
use rand::Rng;

/// Client/server capability flags.
pub mod capability {
    /// MariaDB calls this bit CLIENT_MYSQL: set by a server, it says "not MariaDB".
    pub const LONG_PASSWORD: u32 = 1;
    pub const FOUND_ROWS: u32 = 1 << 1;
    pub const LONG_FLAG: u32 = 1 << 2;
    pub const CONNECT_WITH_DB: u32 = 1 << 3;
    pub const NO_SCHEMA: u32 = 1 << 4;
    pub const COMPRESS: u32 = 1 << 5;
    pub const ODBC: u32 = 1 << 6;
    pub const LOCAL_FILES: u32 = 1 << 7;
    pub const IGNORE_SPACE: u32 = 1 << 8;
    pub const PROTOCOL_41: u32 = 1 << 9;
    pub const INTERACTIVE: u32 = 1 << 10;
    pub const SSL: u32 = 1 << 11;
    pub const IGNORE_SIGPIPE: u32 = 1 << 12;
    pub const TRANSACTIONS: u32 = 1 << 13;
    pub const RESERVED: u32 = 1 << 14;
    pub const SECURE_CONNECTION: u32 = 1 << 15;
    pub const MULTI_STATEMENTS: u32 = 1 << 16;
    pub const MULTI_RESULTS: u32 = 1 << 17;
    pub const PS_MULTI_RESULTS: u32 = 1 << 18;
    pub const PLUGIN_AUTH: u32 = 1 << 19;
    pub const CONNECT_ATTRS: u32 = 1 << 20;
    pub const PLUGIN_AUTH_LENENC_CLIENT_DATA: u32 = 1 << 21;
    pub const CAN_HANDLE_EXPIRED_PASSWORDS: u32 = 1 << 22;
    pub const SESSION_TRACK: u32 = 1 << 23;
    pub const DEPRECATE_EOF: u32 = 1 << 24;
    pub const OPTIONAL_RESULTSET_METADATA: u32 = 1 << 25;
    pub const ZSTD_COMPRESSION_ALGORITHM: u32 = 1 << 26;
    pub const QUERY_ATTRIBUTES: u32 = 1 << 27;
    pub const MULTI_FACTOR_AUTHENTICATION: u32 = 1 << 28;
    pub const CAPABILITY_EXTENSION: u32 = 1 << 29;
    pub const SSL_VERIFY_SERVER_CERT: u32 = 1 << 30;
    pub const REMEMBER_OPTIONS: u32 = 1 << 31;

    /// What this server supports, without SSL. Left out on purpose: LONG_PASSWORD
    /// (invariant (1)), COMPRESS and ZSTD (no compressed protocol), SESSION_TRACK (we send no session-state blocks), QUERY_ATTRIBUTES (COM_QUERY
    /// then carries a parameter block we do not parse), OPTIONAL_RESULTSET_METADATA,
    /// MULTI_FACTOR_AUTHENTICATION.
    pub const SERVER_DEFAULT: u32 = FOUND_ROWS
        | LONG_FLAG
        | CONNECT_WITH_DB
        | LOCAL_FILES
        | NO_SCHEMA
        | ODBC
        | IGNORE_SPACE
        | PROTOCOL_41
        | INTERACTIVE
        | IGNORE_SIGPIPE
        | TRANSACTIONS
        | RESERVED
        | SECURE_CONNECTION
        | MULTI_STATEMENTS
        | MULTI_RESULTS
        | PS_MULTI_RESULTS
        | PLUGIN_AUTH
        | CONNECT_ATTRS
        | PLUGIN_AUTH_LENENC_CLIENT_DATA
        | CAN_HANDLE_EXPIRED_PASSWORDS
        | DEPRECATE_EOF;

    /// The capabilities the server advertises; SSL only when TLS is configured.
    pub fn server(tls_available: bool) -> u32 {
        if tls_available {
            SERVER_DEFAULT | SSL
        } else {
            SERVER_DEFAULT
        }
    }
}

/// MariaDB's extended capability flags: bits 32.. of its 64-bit capabilities, sent as
/// a u32 in bytes the MySQL handshake leaves reserved.
pub mod mariadb_capability {
    /// A result set's column count carries a "metadata follows" byte; a prepared
    /// statement's execution may leave out column definitions the client already holds.
    pub const CACHE_METADATA: u32 = 1 << 4;

    /// What this server supports (invariant (1)).
    pub const SERVER_DEFAULT: u32 = CACHE_METADATA;
}

/// utf8mb4_general_ci, the collation the handshake announces.
pub const CHARSET_UTF8MB4_GENERAL_CI: u8 = 45;
pub const SCRAMBLE_LEN: usize = 20;
const PROTOCOL_VERSION: u8 = 10;
const SSL_REQUEST_LEN: usize = 32;

/// The 20-byte nonce ("auth-plugin-data") both auth plugins hash with the password.
#[derive(Clone, PartialEq, Eq)]
pub struct Scramble(pub [u8; SCRAMBLE_LEN]);

impl Scramble {
    /// A fresh scramble from the thread-local CSPRNG (invariant (2)).
    pub fn random() -> Scramble {
        let mut rng = rand::rng();
        let mut bytes = [0u8; SCRAMBLE_LEN];
        for b in bytes.iter_mut() {
            loop {
                let mut one = [0u8; 1];
                rng.fill_bytes(&mut one);
                let c = one[0] & 0x7F;
                if c != 0 && c != b'$' {
                    *b = c;
                    break;
                }
            }
        }
        Scramble(bytes)
    }

    pub fn as_bytes(&self) -> &[u8; SCRAMBLE_LEN] {
        &self.0
    }
}

impl std::fmt::Debug for Scramble {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Scramble(..)")
    }
}

/// Everything the server puts in its first packet.
#[derive(Clone, Debug)]
pub struct InitialHandshake<'a> {
    /// For example "8.0.36-manycore" or "5.7.99-manycore"; clients parse the leading
    /// version number to decide on features, so the server chooses it.
    pub server_version: &'a str,
    pub connection_id: u32,
    pub scramble: &'a Scramble,
    /// Normally `capability::server(tls_available)`.
    pub capabilities: u32,
    pub charset: u8,
    pub status_flags: u16,
    /// "mysql_native_password" or "caching_sha2_password".
    pub auth_plugin: &'a str,
}

/// Appends the Initial Handshake v10 payload.
pub fn write_initial_handshake(out: &mut Vec<u8>, h: &InitialHandshake<'_>) {
    let scramble = h.scramble.as_bytes();
    out.push(PROTOCOL_VERSION);
    write_nul_bytes(out, h.server_version.as_bytes());
    write_u32(out, h.connection_id);
    out.extend_from_slice(&scramble[..8]);
    out.push(0);
    write_u16(out, h.capabilities as u16);
    out.push(h.charset);
    write_u16(out, h.status_flags);
    write_u16(out, (h.capabilities >> 16) as u16);
    out.push(SCRAMBLE_LEN as u8 + 1);
    out.extend_from_slice(&[0; 6]);
    write_u32(out, mariadb_capability::SERVER_DEFAULT);
    out.extend_from_slice(&scramble[8..]);
    out.push(0);
    write_nul_bytes(out, h.auth_plugin.as_bytes());
}

/// The client's first answer: either a request to start TLS or the real response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientHandshake<'a> {
    /// CLIENT_SSL short packet: the server upgrades the socket to TLS and then reads a
    /// full `HandshakeResponse` over it.
    SslRequest(SslRequest),
    Response(HandshakeResponse<'a>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SslRequest {
    pub capabilities: u32,
    pub max_packet_size: u32,
    pub charset: u8,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandshakeResponse<'a> {
    /// The client's capability flags as sent; the session uses these AND the server's.
    pub capabilities: u32,
    /// MariaDB's extended flags as sent; 0 from a client that set CLIENT_MYSQL.
    pub extended_capabilities: u32,
    pub max_packet_size: u32,
    pub charset: u8,
    pub username: &'a [u8],
    pub auth_response: &'a [u8],
    pub database: Option<&'a [u8]>,
    /// The client's auth plugin; None without CLIENT_PLUGIN_AUTH.
    pub auth_plugin: Option<&'a [u8]>,
    /// Raw connect-attribute block (without its total length); see `connect_attrs`.
    pub connect_attrs: Option<&'a [u8]>,
}

impl<'a> HandshakeResponse<'a> {
    /// Iterates the connect attributes as (key, value) pairs.
    pub fn connect_attrs(&self) -> ConnectAttrs<'a> {
        ConnectAttrs {
            reader: Reader::new(self.connect_attrs.unwrap_or(&[])),
        }
    }
}

/// Iterator over connect-attribute pairs; the block was validated by the parser.
#[derive(Clone, Debug)]
pub struct ConnectAttrs<'a> {
    reader: Reader<'a>,
}

impl<'a> Iterator for ConnectAttrs<'a> {
    type Item = (&'a [u8], &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        if self.reader.is_empty() {
            return None;
        }
        let key = self.reader.lenenc_bytes("attribute key").ok()?;
        let value = self.reader.lenenc_bytes("attribute value").ok()?;
        Some((key, value))
    }
}

/// Parses the client's reply to the initial handshake.
pub fn parse_handshake_response(payload: &[u8]) -> Result<ClientHandshake<'_>> {
    let mut r = Reader::new(payload);
    let capabilities = r.u32("client capabilities")?;
    if capabilities & capability::PROTOCOL_41 == 0 {
        return Err(ProtocolError::BadHandshake {
            what: "pre-4.1 client",
        });
    }
    let max_packet_size = r.u32("max packet size")?;
    let charset = r.u8("charset")?;
    r.skip(19, "filler")?;
    let extended = r.u32("extended capabilities")?;
    let extended_capabilities = if capabilities & capability::LONG_PASSWORD == 0 {
        extended
    } else {
        0
    };
    if payload.len() == SSL_REQUEST_LEN && capabilities & capability::SSL != 0 {
        return Ok(ClientHandshake::SslRequest(SslRequest {
            capabilities,
            max_packet_size,
            charset,
        }));
    }
    let username = r.nul_bytes("username")?;
    let auth_response = if capabilities & capability::PLUGIN_AUTH_LENENC_CLIENT_DATA != 0 {
        r.lenenc_bytes("auth response")?
    } else if capabilities & capability::SECURE_CONNECTION != 0 {
        let len = r.u8("auth response length")?;
        r.bytes(len as usize, "auth response")?
    } else {
        r.nul_bytes("auth response")?
    };
    let database = if capabilities & capability::CONNECT_WITH_DB != 0 {
        Some(r.nul_bytes("database")?)
    } else {
        None
    };
    let auth_plugin = if capabilities & capability::PLUGIN_AUTH != 0 {
        Some(r.nul_bytes("auth plugin")?)
    } else {
        None
    };
    let connect_attrs = if capabilities & capability::CONNECT_ATTRS != 0 {
        Some(parse_connect_attrs(&mut r)?)
    } else {
        None
    };
    // Anything after (a zstd level byte) belongs to features we never negotiate.
    Ok(ClientHandshake::Response(HandshakeResponse {
        capabilities,
        extended_capabilities,
        max_packet_size,
        charset,
        username,
        auth_response,
        database,
        auth_plugin,
        connect_attrs,
    }))
}

/// Reads the lenenc-length attribute block and checks that it is a whole number of
/// lenenc key/value pairs.
pub(crate) fn parse_connect_attrs<'a>(r: &mut Reader<'a>) -> Result<&'a [u8]> {
    let block = r.lenenc_bytes("connect attributes")?;
    let mut pairs = Reader::new(block);
    while !pairs.is_empty() {
        pairs.lenenc_bytes("attribute key")?;
        pairs.lenenc_bytes("attribute value")?;
    }
    Ok(block)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::codec::{write_lenenc_bytes, write_lenenc_int};

    /// A HandshakeResponse41 as libmysqlclient builds it with every optional part.
    pub(crate) fn full_response() -> Vec<u8> {
        let caps = capability::SERVER_DEFAULT;
        let mut p = Vec::new();
        write_u32(&mut p, caps);
        write_u32(&mut p, 16 << 20);
        p.push(45);
        p.extend_from_slice(&[0; 23]);
        write_nul_bytes(&mut p, b"root");
        write_lenenc_bytes(&mut p, &[7; 20]);
        write_nul_bytes(&mut p, b"test");
        write_nul_bytes(&mut p, b"mysql_native_password");
        let mut attrs = Vec::new();
        write_lenenc_bytes(&mut attrs, b"_client_name");
        write_lenenc_bytes(&mut attrs, b"libmysql");
        write_lenenc_bytes(&mut attrs, b"_pid");
        write_lenenc_bytes(&mut attrs, b"42");
        write_lenenc_int(&mut p, attrs.len() as u64);
        p.extend_from_slice(&attrs);
        p
    }

    #[test]
    fn initial_handshake_layout() {
        let scramble = Scramble(*b"abcdefghijklmnopqrst");
        let mut out = Vec::new();
        write_initial_handshake(
            &mut out,
            &InitialHandshake {
                server_version: "8.0.36-manycore",
                connection_id: 0x01020304,
                scramble: &scramble,
                capabilities: capability::server(false),
                charset: CHARSET_UTF8MB4_GENERAL_CI,
                status_flags: 2,
                auth_plugin: "caching_sha2_password",
            },
        );
        assert_eq!(out[0], 10);
        assert_eq!(&out[1..17], b"8.0.36-manycore\0");
        assert_eq!(&out[17..21], &[4, 3, 2, 1]);
        assert_eq!(&out[21..29], b"abcdefgh");
        let caps = u16::from_le_bytes([out[30], out[31]]) as u32
            | (u16::from_le_bytes([out[35], out[36]]) as u32) << 16;
        assert_eq!(caps, capability::SERVER_DEFAULT);
        assert_eq!(caps & capability::SSL, 0);
        assert_eq!(out[32], 45);
        assert_eq!(out[37], 21);
        assert_eq!(&out[38..44], &[0; 6]);
        assert_eq!(
            caps & capability::LONG_PASSWORD,
            0,
            "CLIENT_MYSQL clear: MariaDB"
        );
        assert_eq!(
            u32::from_le_bytes([out[44], out[45], out[46], out[47]]),
            mariadb_capability::CACHE_METADATA
        );
        assert_eq!(&out[48..61], b"ijklmnopqrst\0");
        assert_eq!(&out[61..], b"caching_sha2_password\0");
    }

    #[test]
    fn scramble_has_no_nul_or_dollar() {
        for _ in 0..100 {
            let s = Scramble::random();
            assert!(s.0.iter().all(|&b| b != 0 && b != b'$' && b < 128));
        }
        assert_ne!(Scramble::random(), Scramble::random());
    }

    #[test]
    fn full_response_parses_and_every_prefix_fails() {
        let p = full_response();
        let ClientHandshake::Response(r) = parse_handshake_response(&p).expect("valid") else {
            panic!("not a response")
        };
        assert_eq!(r.username, b"root");
        assert_eq!(r.auth_response, &[7; 20]);
        assert_eq!(r.database, Some(&b"test"[..]));
        assert_eq!(r.auth_plugin, Some(&b"mysql_native_password"[..]));
        let attrs: Vec<_> = r.connect_attrs().collect();
        assert_eq!(
            attrs,
            vec![(&b"_client_name"[..], &b"libmysql"[..]), (b"_pid", b"42")]
        );
        for cut in 0..p.len() {
            assert!(parse_handshake_response(&p[..cut]).is_err(), "prefix {cut}");
        }
    }

    #[test]
    fn extended_capabilities_count_only_without_client_mysql() {
        let response = |caps: u32| {
            let mut p = Vec::new();
            write_u32(&mut p, caps);
            write_u32(&mut p, 0);
            p.push(45);
            p.extend_from_slice(&[0; 19]);
            write_u32(&mut p, mariadb_capability::CACHE_METADATA);
            write_nul_bytes(&mut p, b"bob");
            p.push(0);
            p
        };
        let base = capability::PROTOCOL_41 | capability::SECURE_CONNECTION;
        for (caps, expected) in [
            (base, mariadb_capability::CACHE_METADATA),
            (base | capability::LONG_PASSWORD, 0),
        ] {
            let p = response(caps);
            let ClientHandshake::Response(r) = parse_handshake_response(&p).expect("valid") else {
                panic!("not a response")
            };
            assert_eq!(r.extended_capabilities, expected, "client caps {caps:#x}");
        }
    }

    #[test]
    fn secure_connection_and_minimal_variants() {
        let caps = capability::PROTOCOL_41 | capability::SECURE_CONNECTION;
        let mut p = Vec::new();
        write_u32(&mut p, caps);
        write_u32(&mut p, 0);
        p.push(33);
        p.extend_from_slice(&[0; 23]);
        write_nul_bytes(&mut p, b"bob");
        p.push(0);
        let ClientHandshake::Response(r) = parse_handshake_response(&p).expect("valid") else {
            panic!("not a response")
        };
        assert_eq!(
            (r.username, r.auth_response, r.database, r.auth_plugin),
            (&b"bob"[..], &b""[..], None, None)
        );
        assert_eq!(r.connect_attrs().count(), 0);
    }

    #[test]
    fn ssl_request_and_old_clients() {
        let mut p = Vec::new();
        write_u32(&mut p, capability::SERVER_DEFAULT | capability::SSL);
        write_u32(&mut p, 1 << 24);
        p.push(45);
        p.extend_from_slice(&[0; 23]);
        assert_eq!(
            parse_handshake_response(&p),
            Ok(ClientHandshake::SslRequest(SslRequest {
                capabilities: capability::SERVER_DEFAULT | capability::SSL,
                max_packet_size: 1 << 24,
                charset: 45
            }))
        );
        p[1] &= !(capability::PROTOCOL_41 >> 8) as u8;
        assert!(matches!(
            parse_handshake_response(&p),
            Err(ProtocolError::BadHandshake { .. })
        ));
    }
}
