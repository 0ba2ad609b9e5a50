//! The server side of the connection phase, driven by arbitrary bytes: shared by the
//! cargo-fuzz target (`fuzz_targets/handshake.rs`) and the ordinary tests that replay
//! the checked-in corpus and run proptest (`tests/handshake_fuzz.rs`).
//!
//! Input layout: byte 0 picks the account (see `account`), then packets, each a u16
//! little-endian length and that many bytes (a short last packet takes what is left).
//! The first packet is the client's handshake answer; an SSLRequest makes the transport
//! secure (as the server's TLS upgrade does) and the next packet is the response. Each
//! later packet answers the exchange's `Continue`; `DecryptPassword` treats the packet
//! itself as the RSA plaintext (the RSA layer is the server's, tested there).
//!
//! The oracle: `Accepted` only ever follows a packet that proves the password: the right
//! scramble for the plugin, or (secure transport only) the cleartext, or the RSA
//! plaintext; for a decoy (unknown user), never; for an account without a password,
//! only an empty response. Any panic is a failure too.

use manycore_protocol::auth::{
    caching_sha2_digest, caching_sha2_scramble, native_password_hash, native_password_scramble,
    AuthExchange, AuthPlugin, AuthStep, Credential,
};
use manycore_protocol::handshake::{
    capability, parse_handshake_response, ClientHandshake, Scramble,
};
use manycore_protocol::packet::PacketWriter;

pub const PASSWORD: &[u8] = b"correct horse";
pub const SCRAMBLE: [u8; 20] = *b"fuzz-scramble-0123ab";
/// Packets handled per input; the exchange must end long before this.
const PACKETS_MAX: usize = 16;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The input ended or did not parse before the exchange decided.
    Unfinished,
    Rejected,
    Accepted,
}

/// The account the input logs in to, chosen by its first byte.
fn account(selector: u8) -> Credential {
    let hash = Some(native_password_hash(PASSWORD));
    let digest = Some(caching_sha2_digest(PASSWORD));
    match selector % 7 {
        0 => Credential::NativePassword { hash },
        1 => Credential::CachingSha2Password {
            digest,
            fast_auth: true,
        },
        2 => Credential::CachingSha2Password {
            digest,
            fast_auth: false,
        },
        3 => Credential::NativePassword { hash: None },
        4 => Credential::CachingSha2Password {
            digest: None,
            fast_auth: false,
        },
        5 => Credential::decoy(AuthPlugin::NativePassword, true),
        _ => Credential::decoy(AuthPlugin::CachingSha2Password, false),
    }
}

fn is_decoy(selector: u8) -> bool {
    selector % 7 >= 5
}

fn has_password(credential: &Credential) -> bool {
    !matches!(
        credential,
        Credential::NativePassword { hash: None }
            | Credential::CachingSha2Password { digest: None, .. }
    )
}

fn packets(data: &[u8]) -> Vec<&[u8]> {
    let mut packets = Vec::new();
    let mut rest = data;
    while rest.len() >= 2 && packets.len() < PACKETS_MAX {
        let length = u16::from_le_bytes([rest[0], rest[1]]) as usize;
        let end = (2 + length).min(rest.len());
        packets.push(&rest[2..end]);
        rest = &rest[end..];
    }
    packets
}

/// What proves the password in a packet at the step that accepted it.
fn proves_password(packet: &[u8], secure: bool) -> bool {
    let scramble = &SCRAMBLE;
    let xored = |text: &[u8]| -> Vec<u8> {
        text.iter()
            .enumerate()
            .map(|(i, c)| c ^ scramble[i % scramble.len()])
            .collect()
    };
    let mut with_nul = PASSWORD.to_vec();
    with_nul.push(0);
    packet == native_password_scramble(PASSWORD, scramble)
        || packet == caching_sha2_scramble(PASSWORD, scramble)
        || packet == xored(PASSWORD)
        || packet == xored(&with_nul)
        || (secure && (packet == PASSWORD || packet == with_nul.as_slice()))
}

/// Runs one input; panics if the oracle is violated.
pub fn run(data: &[u8]) -> Outcome {
    let Some((&selector, rest)) = data.split_first() else {
        return Outcome::Unfinished;
    };
    let credential = account(selector);
    let password = has_password(&credential);
    let mut packets = packets(rest).into_iter();
    let mut secure = false;
    let mut first = match packets.next() {
        Some(packet) => packet,
        None => return Outcome::Unfinished,
    };
    let response = loop {
        match parse_handshake_response(first) {
            Ok(ClientHandshake::Response(response)) => break response,
            Ok(ClientHandshake::SslRequest(_)) if !secure => {
                secure = true;
                first = match packets.next() {
                    Some(packet) => packet,
                    None => return Outcome::Unfinished,
                };
            }
            Ok(ClientHandshake::SslRequest(_)) | Err(_) => return Outcome::Rejected,
        }
    };
    let capabilities = response.capabilities & capability::server(true);
    let mut exchange = AuthExchange::new(Scramble(SCRAMBLE), credential, secure, capabilities);
    let mut out = Vec::new();
    let mut writer = PacketWriter::new(2);
    let mut last = response.auth_response;
    let mut step = exchange.start(response.auth_plugin, last, &mut out, &mut writer);
    loop {
        match step {
            AuthStep::Accepted => {
                assert!(!is_decoy(selector), "a decoy accepted {last:?}");
                if password {
                    assert!(
                        proves_password(last, secure),
                        "accepted without the password: {last:?}"
                    );
                } else {
                    assert!(
                        last.is_empty() || last == [0],
                        "empty account took {last:?}"
                    );
                }
                return Outcome::Accepted;
            }
            AuthStep::Rejected(_) => return Outcome::Rejected,
            AuthStep::PublicKeyRequested => {
                step = exchange.send_public_key(b"-----PEM-----", &mut out, &mut writer);
            }
            AuthStep::DecryptPassword => step = exchange.receive_rsa_decrypted(last),
            AuthStep::Continue => {
                let Some(packet) = packets.next() else {
                    return Outcome::Unfinished;
                };
                last = packet;
                step = exchange.receive(packet, &mut out, &mut writer);
            }
        }
        out.clear();
    }
}
