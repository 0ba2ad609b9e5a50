//! Authentication: the two password plugins and the exchange that drives them.
//!
//! mysql_native_password. Stored: H2 = SHA1(SHA1(password)) (20 bytes; text form
//! "*" + 40 uppercase hex digits, as in mysql.user). Client sends
//! SHA1(password) XOR SHA1(scramble || H2). The server recovers SHA1(password) by
//! XOR-ing with SHA1(scramble || H2) and checks SHA1(that) == H2.
//!
//! caching_sha2_password. Stored: D2 = SHA256(SHA256(password)). Client sends
//! SHA256(password) XOR SHA256(D2 || scramble). Fast auth: the server recovers
//! SHA256(password), checks SHA256(it) == D2, sends AuthMoreData 0x03
//! (fast_auth_success) then OK. Full auth: the server sends AuthMoreData 0x04
//! (perform_full_authentication); the client answers with the NUL-terminated cleartext
//! password (TLS or unix socket only), or with 0x02 to ask for the server's RSA public
//! key, after which it sends RSA-OAEP(password || NUL XOR scramble), with SHA-1 and
//! MGF1-SHA-1 (OpenSSL's RSA_PKCS1_OAEP_PADDING). libmariadb (the `mariadb` CLI) skips
//! the scramble over TLS: its first response is already the cleartext `password || NUL`,
//! and it expects OK right after it, without AuthMoreData.
//!
//! Server packets of the auth phase:
//!
//!   AuthSwitchRequest: u8 0xFE | plugin name NUL | 20-byte scramble | u8 0
//!   AuthMoreData:      u8 0x01 | data
//!
//! Invariants:
//! (1) An account that does not exist is driven through exactly the same packets as one
//!     with a wrong password (`Credential::decoy`); the result is only ever "rejected".
//! (2) Every comparison of secrets is constant-time over its full length.
//! (3) An empty response (or a single NUL byte, which some clients send) means "no
//!     password": accepted only for an account without password, and such an account
//!     accepts nothing else.
//! (4) A cleartext password is accepted only when the server says the transport is
//!     secure (TLS or unix socket), or after the server decrypted it from RSA.
//! (5) The exchange writes its packets with the caller's `PacketWriter`, so sequence
//!     ids continue from the client's last packet.
//! (6) On a secure transport a caching_sha2_password response ending in NUL is first
//!     tried as libmariadb's cleartext; if that does not match, it is checked as a
//!     scramble as usual (a scramble ends in NUL once in 256), so both clients work.
//! (7) As in MySQL, a caching_sha2_password scramble that does not match is not a
//!     rejection but a request for full authentication: PyMySQL, after an auth switch,
//!     hashes the scramble with its trailing NUL, and only full auth lets it in. A wrong
//!     password is rejected after the full exchange, for real accounts and decoys alike.

use crate::codec::write_nul_bytes;
use crate::handshake::{Scramble, SCRAMBLE_LEN};
use crate::packet::PacketWriter;
use sha1::{Digest, Sha1};
use sha2::Sha256;

pub const NATIVE_PASSWORD: &str = "mysql_native_password";
pub const CACHING_SHA2_PASSWORD: &str = "caching_sha2_password";

const AUTH_MORE_DATA: u8 = 0x01;
const AUTH_SWITCH_REQUEST: u8 = 0xFE;
/// caching_sha2 AuthMoreData bodies and the client's public-key request.
const FAST_AUTH_SUCCESS: u8 = 0x03;
const PERFORM_FULL_AUTHENTICATION: u8 = 0x04;
const REQUEST_PUBLIC_KEY: u8 = 0x02;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuthPlugin {
    NativePassword,
    CachingSha2Password,
}

impl AuthPlugin {
    pub fn name(self) -> &'static str {
        match self {
            AuthPlugin::NativePassword => NATIVE_PASSWORD,
            AuthPlugin::CachingSha2Password => CACHING_SHA2_PASSWORD,
        }
    }

    /// None for plugins this server does not implement (the exchange then switches).
    pub fn from_name(name: &[u8]) -> Option<AuthPlugin> {
        match name {
            b"mysql_native_password" => Some(AuthPlugin::NativePassword),
            b"caching_sha2_password" => Some(AuthPlugin::CachingSha2Password),
            _ => None,
        }
    }
}

fn sha1(parts: &[&[u8]]) -> [u8; 20] {
    let mut h = Sha1::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

fn sha256(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

fn xor<const N: usize>(a: &[u8; N], b: &[u8; N]) -> [u8; N] {
    let mut out = [0u8; N];
    for i in 0..N {
        out[i] = a[i] ^ b[i];
    }
    out
}

/// Compares two byte strings in time that depends only on their lengths (invariant (2)).
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    // black_box keeps the optimizer from turning the fold into an early exit.
    std::hint::black_box(diff) == 0
}

/// SHA1(SHA1(password)): what mysql_native_password stores.
pub fn native_password_hash(password: &[u8]) -> [u8; 20] {
    sha1(&[&sha1(&[password])])
}

/// The mysql.user text form: "*" followed by 40 uppercase hex digits.
pub fn native_password_hash_text(hash: &[u8; 20]) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut s = String::with_capacity(41);
    s.push('*');
    for b in hash {
        s.push(HEX[(b >> 4) as usize] as char);
        s.push(HEX[(b & 15) as usize] as char);
    }
    s
}

/// Parses the "*HEX" text form (either case); None if it is not exactly that.
pub fn parse_native_password_hash_text(text: &str) -> Option<[u8; 20]> {
    let hex = text.strip_prefix('*')?.as_bytes();
    if hex.len() != 40 {
        return None;
    }
    let mut out = [0u8; 20];
    for (i, pair) in hex.chunks_exact(2).enumerate() {
        let digit = |c: u8| (c as char).to_digit(16);
        out[i] = (digit(pair[0])? * 16 + digit(pair[1])?) as u8;
    }
    Some(out)
}

/// The client's mysql_native_password response (used by tests and client tools).
pub fn native_password_scramble(password: &[u8], scramble: &[u8; SCRAMBLE_LEN]) -> [u8; 20] {
    let stage1 = sha1(&[password]);
    let stage2 = sha1(&[&stage1]);
    xor(&stage1, &sha1(&[scramble, &stage2]))
}

/// Checks a 20-byte mysql_native_password response against the stored hash.
pub fn verify_native_password(
    scramble: &[u8; SCRAMBLE_LEN],
    response: &[u8],
    hash: &[u8; 20],
) -> bool {
    let Ok(response) = <&[u8; 20]>::try_from(response) else {
        return false;
    };
    let stage1 = xor(response, &sha1(&[scramble, hash]));
    constant_time_eq(&sha1(&[&stage1]), hash)
}

/// SHA256(SHA256(password)): what caching_sha2_password keeps for fast auth.
pub fn caching_sha2_digest(password: &[u8]) -> [u8; 32] {
    sha256(&[&sha256(&[password])])
}

/// The client's caching_sha2_password fast-auth response.
pub fn caching_sha2_scramble(password: &[u8], scramble: &[u8; SCRAMBLE_LEN]) -> [u8; 32] {
    let stage1 = sha256(&[password]);
    let stage2 = sha256(&[&stage1]);
    xor(&stage1, &sha256(&[&stage2, scramble]))
}

/// Checks a 32-byte caching_sha2_password fast-auth response against the digest.
pub fn verify_caching_sha2(
    scramble: &[u8; SCRAMBLE_LEN],
    response: &[u8],
    digest: &[u8; 32],
) -> bool {
    let Ok(response) = <&[u8; 32]>::try_from(response) else {
        return false;
    };
    let stage1 = xor(response, &sha256(&[digest, scramble]));
    constant_time_eq(&sha256(&[&stage1]), digest)
}

/// Appends an AuthSwitchRequest payload carrying the scramble for `plugin`.
pub fn write_auth_switch_request(out: &mut Vec<u8>, plugin: AuthPlugin, scramble: &Scramble) {
    out.push(AUTH_SWITCH_REQUEST);
    write_nul_bytes(out, plugin.name().as_bytes());
    out.extend_from_slice(scramble.as_bytes());
    out.push(0);
}

/// Appends an AuthMoreData payload (0x01 + data), e.g. the PEM public key.
pub fn write_auth_more_data(out: &mut Vec<u8>, data: &[u8]) {
    out.push(AUTH_MORE_DATA);
    out.extend_from_slice(data);
}

/// What the server knows about the account's password.
#[derive(Clone, PartialEq, Eq)]
pub enum Credential {
    /// `hash` is SHA1(SHA1(password)); None for an account without password.
    NativePassword { hash: Option<[u8; 20]> },
    /// `digest` is SHA256(SHA256(password)); None for an account without password.
    /// `fast_auth`: false forces full authentication (as MySQL does for an account not
    /// yet in its cache, e.g. after a restart).
    CachingSha2Password {
        digest: Option<[u8; 32]>,
        fast_auth: bool,
    },
    /// caching_sha2_password known only by its stored form (`sha256_crypt`, "$A$005$..."),
    /// e.g. after a restart: every login is a full authentication that checks the
    /// cleartext against it; `AuthExchange::verified_digest` then yields the fast-auth
    /// digest for the server's cache.
    CachingSha2Crypt { stored: String },
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Credential({})", self.plugin().name())
    }
}

impl Credential {
    pub fn plugin(&self) -> AuthPlugin {
        match self {
            Credential::NativePassword { .. } => AuthPlugin::NativePassword,
            Credential::CachingSha2Password { .. } | Credential::CachingSha2Crypt { .. } => {
                AuthPlugin::CachingSha2Password
            }
        }
    }

    /// A credential no password matches, for a user that does not exist, so the exchange
    /// looks the same as for a wrong password (invariant (1)). `fast_auth` should be what
    /// real accounts get, so the packet sequence does not differ either.
    pub fn decoy(plugin: AuthPlugin, fast_auth: bool) -> Credential {
        // A random digest: the chance that some password matches it is that of a hash
        // collision, and nobody knows a preimage.
        let seed = Scramble::random();
        match plugin {
            AuthPlugin::NativePassword => Credential::NativePassword {
                hash: Some(sha1(&[seed.as_bytes()])),
            },
            AuthPlugin::CachingSha2Password => Credential::CachingSha2Password {
                digest: Some(sha256(&[seed.as_bytes()])),
                fast_auth,
            },
        }
    }
}

/// Why authentication failed. The server answers every case with ER_ACCESS_DENIED_ERROR
/// (1045, 28000) so nothing is revealed to the client; the reason is for the server's log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuthFailure {
    WrongPassword,
    /// The account needs another plugin and the client cannot switch (no CLIENT_PLUGIN_AUTH).
    ClientCannotSwitch,
    /// A cleartext password over a transport that is not secure.
    InsecureTransport,
    /// The client sent something the exchange did not expect at this point.
    UnexpectedPacket,
}

/// What the server must do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuthStep {
    /// Packets were appended to the output: flush them, read the client's next payload
    /// and pass it to `AuthExchange::receive`.
    Continue,
    /// The client asked for the RSA public key. The server calls `send_public_key`
    /// (then `Continue`s).
    PublicKeyRequested,
    /// The client's payload is RSA-OAEP encrypted. The server decrypts it with its
    /// private key and passes the plaintext to `receive_rsa_decrypted`.
    DecryptPassword,
    /// Authenticated; any AuthMoreData was already appended. The server sends OK.
    Accepted,
    /// The server sends ER_ACCESS_DENIED_ERROR and closes.
    Rejected(AuthFailure),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AuthState {
    Start,
    AwaitSwitchResponse,
    AwaitFullAuth,
    AwaitKeyDecision,
    AwaitRsaPassword,
    Done,
}

/// One authentication attempt (initial handshake or COM_CHANGE_USER).
///
/// Server loop:
/// ```text
/// let mut ex = AuthExchange::new(scramble, credential, secure, client_caps);
/// let mut step = ex.start(resp.auth_plugin, resp.auth_response, &mut out, &mut writer);
/// loop { match step {
///     Continue => { flush; read payload; writer.set_sequence_id(frame.reply_sequence_id());
///                   step = ex.receive(payload, &mut out, &mut writer) }
///     PublicKeyRequested => step = ex.send_public_key(pem, &mut out, &mut writer),
///     DecryptPassword => step = ex.receive_rsa_decrypted(&plain, &mut out, &mut writer),
///     Accepted => { write OK; break }   Rejected(_) => { write ERR 1045; break }
/// } }
/// ```
pub struct AuthExchange {
    scramble: Scramble,
    credential: Credential,
    secure_transport: bool,
    client_plugin_auth: bool,
    state: AuthState,
    /// SHA256(SHA256(password)) after a successful caching_sha2 full authentication.
    verified_digest: Option<[u8; 32]>,
}

impl AuthExchange {
    /// `secure_transport`: the connection is TLS or a unix socket (cleartext allowed).
    /// `client_capabilities`: from the handshake response (for CLIENT_PLUGIN_AUTH).
    pub fn new(
        scramble: Scramble,
        credential: Credential,
        secure_transport: bool,
        client_capabilities: u32,
    ) -> Self {
        let client_plugin_auth =
            client_capabilities & crate::handshake::capability::PLUGIN_AUTH != 0;
        AuthExchange {
            scramble,
            credential,
            secure_transport,
            client_plugin_auth,
            state: AuthState::Start,
            verified_digest: None,
        }
    }

    pub fn scramble(&self) -> &Scramble {
        &self.scramble
    }

    /// After `Accepted` by a caching_sha2 full authentication (cleartext over a secure
    /// transport or RSA): SHA256(SHA256(password)), which the server may cache so the
    /// account's next logins take the fast path, as MySQL does.
    pub fn verified_digest(&self) -> Option<[u8; 32]> {
        self.verified_digest
    }

    /// Begins with the plugin and response from the handshake response (or
    /// COM_CHANGE_USER). A client without CLIENT_PLUGIN_AUTH (`client_plugin` None)
    /// speaks mysql_native_password.
    pub fn start(
        &mut self,
        client_plugin: Option<&[u8]>,
        auth_response: &[u8],
        out: &mut Vec<u8>,
        writer: &mut PacketWriter,
    ) -> AuthStep {
        if self.state != AuthState::Start {
            return self.fail(AuthFailure::UnexpectedPacket);
        }
        let client_plugin = match client_plugin {
            None => Some(AuthPlugin::NativePassword),
            Some(name) => AuthPlugin::from_name(name),
        };
        if client_plugin == Some(self.credential.plugin()) {
            return self.check_response(auth_response, out, writer);
        }
        if !self.client_plugin_auth {
            return self.fail(AuthFailure::ClientCannotSwitch);
        }
        let plugin = self.credential.plugin();
        writer.write_with(out, |o| {
            write_auth_switch_request(o, plugin, &self.scramble)
        });
        self.state = AuthState::AwaitSwitchResponse;
        AuthStep::Continue
    }

    /// Handles the client's next packet after `Continue`.
    pub fn receive(
        &mut self,
        payload: &[u8],
        out: &mut Vec<u8>,
        writer: &mut PacketWriter,
    ) -> AuthStep {
        match self.state {
            AuthState::AwaitSwitchResponse => self.check_response(payload, out, writer),
            AuthState::AwaitFullAuth if payload == [REQUEST_PUBLIC_KEY] => {
                self.state = AuthState::AwaitKeyDecision;
                AuthStep::PublicKeyRequested
            }
            AuthState::AwaitFullAuth if self.secure_transport => {
                let password = payload.strip_suffix(&[0]).unwrap_or(payload);
                self.check_cleartext(password)
            }
            AuthState::AwaitFullAuth => self.fail(AuthFailure::InsecureTransport),
            AuthState::AwaitRsaPassword => AuthStep::DecryptPassword,
            _ => self.fail(AuthFailure::UnexpectedPacket),
        }
    }

    /// Answers `PublicKeyRequested` with the PEM-encoded RSA public key.
    pub fn send_public_key(
        &mut self,
        pem: &[u8],
        out: &mut Vec<u8>,
        writer: &mut PacketWriter,
    ) -> AuthStep {
        if self.state != AuthState::AwaitKeyDecision {
            return self.fail(AuthFailure::UnexpectedPacket);
        }
        writer.write_with(out, |o| write_auth_more_data(o, pem));
        self.state = AuthState::AwaitRsaPassword;
        AuthStep::Continue
    }

    /// Ends RSA full auth when the client's payload does not decrypt with the server's
    /// private key: to the client this is a wrong password like any other.
    pub fn reject_undecryptable(&mut self) -> AuthStep {
        self.fail(AuthFailure::WrongPassword)
    }

    /// Finishes RSA full auth with the decrypted payload: (password || NUL) XOR scramble.
    pub fn receive_rsa_decrypted(&mut self, plaintext: &[u8]) -> AuthStep {
        if self.state != AuthState::AwaitRsaPassword {
            return self.fail(AuthFailure::UnexpectedPacket);
        }
        let mut password = [0u8; 256];
        let Some(password) = password.get_mut(..plaintext.len()) else {
            return self.fail(AuthFailure::WrongPassword);
        };
        let scramble = self.scramble.as_bytes();
        for (i, (p, c)) in password.iter_mut().zip(plaintext).enumerate() {
            *p = c ^ scramble[i % SCRAMBLE_LEN];
        }
        let password = match password.split_last() {
            Some((0, rest)) => rest,
            _ => &password[..],
        };
        self.check_cleartext(password)
    }

    fn fail(&mut self, why: AuthFailure) -> AuthStep {
        self.state = AuthState::Done;
        AuthStep::Rejected(why)
    }

    fn accept(&mut self) -> AuthStep {
        self.state = AuthState::Done;
        AuthStep::Accepted
    }

    /// Checks a scrambled response for the account's own plugin (invariant (3)).
    fn check_response(
        &mut self,
        response: &[u8],
        out: &mut Vec<u8>,
        writer: &mut PacketWriter,
    ) -> AuthStep {
        let empty = response.is_empty() || response == [0];
        let scramble = self.scramble.as_bytes();
        match &self.credential {
            Credential::NativePassword { hash: None }
            | Credential::CachingSha2Password { digest: None, .. } => {
                if empty {
                    self.accept()
                } else {
                    self.fail(AuthFailure::WrongPassword)
                }
            }
            _ if empty => self.fail(AuthFailure::WrongPassword),
            Credential::NativePassword { hash: Some(hash) } => {
                if verify_native_password(scramble, response, hash) {
                    self.accept()
                } else {
                    self.fail(AuthFailure::WrongPassword)
                }
            }
            Credential::CachingSha2Password {
                digest: Some(_), ..
            }
            | Credential::CachingSha2Crypt { .. }
                if self.secure_transport
                    && response.split_last().is_some_and(|(&last, password)| {
                        last == 0 && self.cleartext_matches(password)
                    }) =>
            {
                // Invariant (6): libmariadb's cleartext over TLS; OK follows directly.
                self.accept_cleartext(&response[..response.len() - 1])
            }
            Credential::CachingSha2Password {
                digest: Some(digest),
                fast_auth: true,
            } if verify_caching_sha2(scramble, response, digest) => {
                writer.write_with(out, |o| write_auth_more_data(o, &[FAST_AUTH_SUCCESS]));
                self.accept()
            }
            // Invariant (7): a scramble that does not match leads to full auth too; a crypt
            // credential always needs it (it holds no digest to check a scramble against).
            Credential::CachingSha2Password {
                digest: Some(_), ..
            }
            | Credential::CachingSha2Crypt { .. } => {
                writer.write_with(out, |o| {
                    write_auth_more_data(o, &[PERFORM_FULL_AUTHENTICATION])
                });
                self.state = AuthState::AwaitFullAuth;
                AuthStep::Continue
            }
        }
    }

    fn check_cleartext(&mut self, password: &[u8]) -> AuthStep {
        if self.cleartext_matches(password) {
            self.accept_cleartext(password)
        } else {
            self.fail(AuthFailure::WrongPassword)
        }
    }

    fn cleartext_matches(&self, password: &[u8]) -> bool {
        match &self.credential {
            Credential::NativePassword { hash: Some(hash) } => {
                constant_time_eq(&native_password_hash(password), hash)
            }
            Credential::CachingSha2Password {
                digest: Some(digest),
                ..
            } => constant_time_eq(&caching_sha2_digest(password), digest),
            Credential::CachingSha2Crypt { stored } => {
                crate::sha256_crypt::verify_mysql_hash(password, stored)
            }
            Credential::NativePassword { hash: None }
            | Credential::CachingSha2Password { digest: None, .. } => password.is_empty(),
        }
    }

    /// Accepts a cleartext password already checked; caching_sha2 keeps its digest for
    /// the server's fast-auth cache.
    fn accept_cleartext(&mut self, password: &[u8]) -> AuthStep {
        if self.credential.plugin() == AuthPlugin::CachingSha2Password && !password.is_empty() {
            self.verified_digest = Some(caching_sha2_digest(password));
        }
        self.accept()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCRAMBLE: [u8; 20] = *b"0123456789abcdefghij";

    fn exchange(credential: Credential, secure: bool) -> (AuthExchange, Vec<u8>, PacketWriter) {
        let caps = crate::handshake::capability::SERVER_DEFAULT;
        (
            AuthExchange::new(Scramble(SCRAMBLE), credential, secure, caps),
            Vec::new(),
            PacketWriter::new(2),
        )
    }

    #[test]
    fn native_hash_text_matches_mysql() {
        // SELECT PASSWORD('secret') in MariaDB.
        let hash = native_password_hash(b"secret");
        let text = native_password_hash_text(&hash);
        assert_eq!(text, "*14E65567ABDB5135D0CFD9A70B3032C179A49EE7");
        assert_eq!(parse_native_password_hash_text(&text), Some(hash));
        assert_eq!(
            parse_native_password_hash_text(&text.to_lowercase()),
            Some(hash)
        );
        assert_eq!(parse_native_password_hash_text("*12"), None);
        assert_eq!(parse_native_password_hash_text(&text[1..]), None);
    }

    #[test]
    fn native_password_accepts_right_and_rejects_wrong() {
        let hash = native_password_hash(b"pw");
        let cred = Credential::NativePassword { hash: Some(hash) };
        let (mut ex, mut out, mut w) = exchange(cred.clone(), false);
        let resp = native_password_scramble(b"pw", &SCRAMBLE);
        assert_eq!(
            ex.start(Some(b"mysql_native_password"), &resp, &mut out, &mut w),
            AuthStep::Accepted
        );
        assert!(out.is_empty());
        let (mut ex, mut out, mut w) = exchange(cred.clone(), false);
        let resp = native_password_scramble(b"px", &SCRAMBLE);
        assert_eq!(
            ex.start(Some(b"mysql_native_password"), &resp, &mut out, &mut w),
            AuthStep::Rejected(AuthFailure::WrongPassword)
        );
        let (mut ex, mut out, mut w) = exchange(cred, false);
        assert_eq!(
            ex.start(None, b"", &mut out, &mut w),
            AuthStep::Rejected(AuthFailure::WrongPassword)
        );
    }

    #[test]
    fn empty_passwords() {
        for cred in [
            Credential::NativePassword { hash: None },
            Credential::CachingSha2Password {
                digest: None,
                fast_auth: true,
            },
        ] {
            let plugin = cred.plugin().name().as_bytes();
            for resp in [&b""[..], b"\0"] {
                let (mut ex, mut out, mut w) = exchange(cred.clone(), false);
                assert_eq!(
                    ex.start(Some(plugin), resp, &mut out, &mut w),
                    AuthStep::Accepted
                );
            }
            let (mut ex, mut out, mut w) = exchange(cred.clone(), false);
            let resp = native_password_scramble(b"x", &SCRAMBLE);
            assert!(matches!(
                ex.start(Some(plugin), &resp, &mut out, &mut w),
                AuthStep::Rejected(_)
            ));
        }
    }

    #[test]
    fn caching_sha2_fast_auth_sends_notice() {
        let cred = Credential::CachingSha2Password {
            digest: Some(caching_sha2_digest(b"pw")),
            fast_auth: true,
        };
        let (mut ex, mut out, mut w) = exchange(cred, false);
        let resp = caching_sha2_scramble(b"pw", &SCRAMBLE);
        assert_eq!(
            ex.start(Some(b"caching_sha2_password"), &resp, &mut out, &mut w),
            AuthStep::Accepted
        );
        assert_eq!(out, [2, 0, 0, 2, 0x01, 0x03]);
        assert_eq!(w.sequence_id(), 3);
    }

    #[test]
    fn caching_sha2_full_auth_over_tls_and_rsa() {
        let cred = Credential::CachingSha2Password {
            digest: Some(caching_sha2_digest(b"pw")),
            fast_auth: false,
        };
        let resp = caching_sha2_scramble(b"pw", &SCRAMBLE);
        // Over TLS: cleartext.
        let (mut ex, mut out, mut w) = exchange(cred.clone(), true);
        assert_eq!(
            ex.start(Some(b"caching_sha2_password"), &resp, &mut out, &mut w),
            AuthStep::Continue
        );
        assert_eq!(out, [2, 0, 0, 2, 0x01, 0x04]);
        assert_eq!(ex.receive(b"pw\0", &mut out, &mut w), AuthStep::Accepted);
        // Over plain TCP: the cleartext is refused, the RSA path works.
        let (mut ex, mut out, mut w) = exchange(cred.clone(), false);
        ex.start(Some(b"caching_sha2_password"), &resp, &mut out, &mut w);
        assert_eq!(
            ex.receive(b"pw\0", &mut out, &mut w),
            AuthStep::Rejected(AuthFailure::InsecureTransport)
        );
        let (mut ex, mut out, mut w) = exchange(cred, false);
        ex.start(Some(b"caching_sha2_password"), &resp, &mut out, &mut w);
        assert_eq!(
            ex.receive(&[2], &mut out, &mut w),
            AuthStep::PublicKeyRequested
        );
        out.clear();
        assert_eq!(
            ex.send_public_key(b"PEM", &mut out, &mut w),
            AuthStep::Continue
        );
        assert_eq!(&out[4..], b"\x01PEM");
        assert_eq!(
            ex.receive(b"ciphertext", &mut out, &mut w),
            AuthStep::DecryptPassword
        );
        let plain: Vec<u8> = b"pw\0"
            .iter()
            .enumerate()
            .map(|(i, c)| c ^ SCRAMBLE[i % 20])
            .collect();
        assert_eq!(ex.receive_rsa_decrypted(&plain), AuthStep::Accepted);
    }

    #[test]
    fn caching_sha2_cleartext_first_response_only_over_tls() {
        for fast_auth in [true, false] {
            let cred = Credential::CachingSha2Password {
                digest: Some(caching_sha2_digest(b"pw")),
                fast_auth,
            };
            let (mut ex, mut out, mut w) = exchange(cred.clone(), true);
            assert_eq!(
                ex.start(Some(b"caching_sha2_password"), b"pw\0", &mut out, &mut w),
                AuthStep::Accepted
            );
            assert!(out.is_empty(), "OK follows the cleartext directly");
            let (mut ex, mut out, mut w) = exchange(cred.clone(), true);
            assert!(matches!(
                ex.start(Some(b"caching_sha2_password"), b"px\0", &mut out, &mut w),
                AuthStep::Rejected(_) | AuthStep::Continue
            ));
            let (mut ex, mut out, mut w) = exchange(cred, false);
            assert_ne!(
                ex.start(Some(b"caching_sha2_password"), b"pw\0", &mut out, &mut w),
                AuthStep::Accepted
            );
        }
    }

    #[test]
    fn caching_sha2_crypt_needs_full_auth_and_yields_the_digest() {
        let stored = crate::sha256_crypt::mysql_hash(b"pw");
        let cred = Credential::CachingSha2Crypt { stored };
        let resp = caching_sha2_scramble(b"pw", &SCRAMBLE);
        let (mut ex, mut out, mut w) = exchange(cred.clone(), true);
        assert_eq!(
            ex.start(Some(b"caching_sha2_password"), &resp, &mut out, &mut w),
            AuthStep::Continue
        );
        assert_eq!(out, [2, 0, 0, 2, 0x01, 0x04]);
        assert_eq!(ex.receive(b"pw\0", &mut out, &mut w), AuthStep::Accepted);
        assert_eq!(ex.verified_digest(), Some(caching_sha2_digest(b"pw")));
        let (mut ex, mut out, mut w) = exchange(cred, true);
        ex.start(Some(b"caching_sha2_password"), &resp, &mut out, &mut w);
        assert!(matches!(
            ex.receive(b"px\0", &mut out, &mut w),
            AuthStep::Rejected(_)
        ));
        assert_eq!(ex.verified_digest(), None);
    }

    #[test]
    fn plugin_mismatch_switches() {
        let cred = Credential::NativePassword {
            hash: Some(native_password_hash(b"pw")),
        };
        let (mut ex, mut out, mut w) = exchange(cred, false);
        let first = caching_sha2_scramble(b"pw", &SCRAMBLE);
        assert_eq!(
            ex.start(Some(b"caching_sha2_password"), &first, &mut out, &mut w),
            AuthStep::Continue
        );
        assert_eq!(
            &out[4..],
            b"\xFEmysql_native_password\x000123456789abcdefghij\x00"
        );
        let resp = native_password_scramble(b"pw", &SCRAMBLE);
        assert_eq!(ex.receive(&resp, &mut out, &mut w), AuthStep::Accepted);
        assert_eq!(
            ex.receive(&resp, &mut out, &mut w),
            AuthStep::Rejected(AuthFailure::UnexpectedPacket)
        );
    }

    #[test]
    fn unknown_user_looks_like_wrong_password() {
        let real = [
            Credential::NativePassword {
                hash: Some(native_password_hash(b"pw")),
            },
            Credential::CachingSha2Password {
                digest: Some(caching_sha2_digest(b"pw")),
                fast_auth: true,
            },
        ];
        for account in real {
            let plugin = account.plugin();
            let name = plugin.name().as_bytes();
            let wrong = caching_sha2_scramble(b"px", &SCRAMBLE);
            let mut transcripts = Vec::new();
            for credential in [account.clone(), Credential::decoy(plugin, true)] {
                let (mut ex, mut out, mut w) = exchange(credential, false);
                let mut steps = vec![ex.start(Some(name), &wrong, &mut out, &mut w)];
                if steps[0] == AuthStep::Continue {
                    steps.push(ex.receive(&[2], &mut out, &mut w));
                    steps.push(ex.send_public_key(b"PEM", &mut out, &mut w));
                    steps.push(ex.receive(b"ciphertext", &mut out, &mut w));
                    steps.push(ex.receive_rsa_decrypted(b"px\0"));
                }
                transcripts.push((steps, out));
            }
            assert_eq!(transcripts[0], transcripts[1], "{plugin:?}");
            let last = transcripts[0].0.last().copied();
            assert_eq!(last, Some(AuthStep::Rejected(AuthFailure::WrongPassword)));
        }
    }

    #[test]
    fn caching_sha2_wrong_scramble_falls_back_to_full_auth() {
        let cred = Credential::CachingSha2Password {
            digest: Some(caching_sha2_digest(b"pw")),
            fast_auth: true,
        };
        // PyMySQL after an auth switch: the scramble hashed with its trailing NUL.
        let mut with_nul = SCRAMBLE.to_vec();
        with_nul.push(0);
        let stage1 = sha256(&[b"pw"]);
        let stage2 = sha256(&[&stage1]);
        let resp = xor(&stage1, &sha256(&[&stage2, &with_nul]));
        let (mut ex, mut out, mut w) = exchange(cred, true);
        assert_eq!(
            ex.start(Some(b"caching_sha2_password"), &resp, &mut out, &mut w),
            AuthStep::Continue
        );
        assert_eq!(out, [2, 0, 0, 2, 0x01, 0x04]);
        assert_eq!(ex.receive(b"pw\0", &mut out, &mut w), AuthStep::Accepted);
    }

    #[test]
    fn constant_time_eq_basics() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
    }
}
