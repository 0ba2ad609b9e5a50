//! Who may log in: the account a client authenticates as (looked up in the engine's
//! privilege snapshot, `manycore_sql::privilege`), the credential its exchange checks, the
//! checks after authentication (locked account, REQUIRE SSL), the caching_sha2_password
//! fast-auth cache, and the rule about listening beyond loopback.
//!
//! Invariants:
//! (1) A connection from a non-loopback address never authenticates as an account
//!     without a password; the lookup answers "no such account" (a decoy exchange).
//! (2) The server does not listen on a non-loopback address while any account has no
//!     password (`check_listen_address`).
//! (3) Every refusal before the session exists looks the same to the client: 1045 for an
//!     unknown user, a wrong password, or an account that requires TLS on a plain
//!     connection. Only a locked account, after the right password, gets its own error.
//! (4) The fast-auth cache maps a stored crypt text to SHA256(SHA256(password)); a new
//!     password is a new stored text, so a stale entry can never match. It is filled
//!     only after a full authentication verified the password, and is empty after a
//!     restart, as in MySQL.

use manycore_protocol::auth::{parse_native_password_hash_text, AuthPlugin, Credential};
use manycore_sql::privilege::{self, Account, ClientHost, PasswordPlugin};
use manycore_sql::{Engine, Error, ErrorCode};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::LazyLock;

/// Where a client connects from.
#[derive(Clone, Copy, Debug)]
pub enum Peer {
    Tcp(SocketAddr),
    /// A client of the local socket (`--socket`): on this machine, like a loopback one.
    Local,
}

impl Peer {
    /// The address the failed-login count and denial messages see: 127.0.0.1 for a local
    /// client, so it is counted with loopback clients and named `localhost`.
    pub fn ip(self) -> IpAddr {
        match self {
            Peer::Tcp(address) => address.ip(),
            Peer::Local => IpAddr::V4(Ipv4Addr::LOCALHOST),
        }
    }

    /// Who account host patterns see: a local client is `localhost` and has no address,
    /// so it matches `localhost` and `%` accounts but not `127.0.0.1` ones, as in MariaDB.
    pub fn client_host(self) -> ClientHost {
        match self {
            Peer::Tcp(address) => ClientHost::Address(address.ip()),
            Peer::Local => ClientHost::Local,
        }
    }

    /// PROCESSLIST's Host, as MariaDB shows it: `host:port`, or `localhost` for the local
    /// socket.
    pub fn process_host(self) -> String {
        match self {
            Peer::Tcp(address) => format!("{}:{}", host_name(address.ip()), address.port()),
            Peer::Local => "localhost".to_string(),
        }
    }
}

/// The plugin real accounts use by default, for decoy exchanges.
pub const DEFAULT_PLUGIN: AuthPlugin = AuthPlugin::NativePassword;

/// Most fast-auth digests kept; the cache is emptied when full (entries refill on login).
const FAST_AUTH_ENTRIES_MAX: usize = 65_536;

static FAST_AUTH: LazyLock<Mutex<HashMap<String, [u8; 32]>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// The account a client logs in as, with what its authentication checks.
pub struct Login {
    pub account: Account,
    pub credential: Credential,
}

/// The account `user` connecting from `peer` authenticates as, or None (the caller then
/// runs a decoy exchange, so an unknown user looks like a wrong password).
pub fn find_login(engine: &Engine, user: &str, peer: Peer) -> Option<Login> {
    let snapshot = engine.privileges().snapshot();
    let client = peer.client_host();
    let account = snapshot.find_login(user, client)?;
    if !account.has_password() && !client.is_local() {
        return None; // Invariant (1).
    }
    let credential = credential(account)?;
    Some(Login {
        account: account.clone(),
        credential,
    })
}

fn credential(account: &Account) -> Option<Credential> {
    let stored = &account.authentication;
    Some(match account.plugin {
        PasswordPlugin::NativePassword if stored.is_empty() => {
            Credential::NativePassword { hash: None }
        }
        PasswordPlugin::NativePassword => Credential::NativePassword {
            hash: Some(parse_native_password_hash_text(stored)?),
        },
        PasswordPlugin::CachingSha2Password if stored.is_empty() => {
            Credential::CachingSha2Password {
                digest: None,
                fast_auth: true,
            }
        }
        PasswordPlugin::CachingSha2Password => match FAST_AUTH.lock().get(stored) {
            Some(digest) => Credential::CachingSha2Password {
                digest: Some(*digest),
                fast_auth: true,
            },
            None => Credential::CachingSha2Crypt {
                stored: stored.clone(),
            },
        },
    })
}

/// After a successful exchange: remembers the fast-auth digest a full authentication
/// verified (invariant (4)).
pub fn remember_verified(credential: &Credential, digest: Option<[u8; 32]>) {
    if let (Credential::CachingSha2Crypt { stored }, Some(digest)) = (credential, digest) {
        let mut cache = FAST_AUTH.lock();
        if cache.len() >= FAST_AUTH_ENTRIES_MAX {
            cache.clear();
        }
        cache.insert(stored.clone(), digest);
    }
}

/// The checks after the password was verified: REQUIRE SSL (1045 on a connection
/// without TLS, invariant (3)) and a locked account (4151, MariaDB's error).
pub fn admit(login: &Login, user: &str, peer: IpAddr, tls: bool) -> Result<(), Error> {
    if login.account.require_ssl && !tls {
        return Err(access_denied(user, peer, true));
    }
    if login.account.locked {
        return Err(Error::new(
            ErrorCode::AccountLocked,
            "Access denied, this account is locked",
        ));
    }
    Ok(())
}

/// ER_ACCESS_DENIED_ERROR as MariaDB words it.
pub fn access_denied(user: &str, peer: IpAddr, using_password: bool) -> Error {
    privilege::access_denied(user, &host_name(peer), using_password)
}

/// The host part shown for a connection: MySQL shows `localhost` for loopback.
pub fn host_name(peer: IpAddr) -> String {
    if peer.is_loopback() {
        "localhost".to_string()
    } else {
        peer.to_string()
    }
}

/// Invariant (2): Err with what to do if `listen` is not loopback and an account has no
/// password.
pub fn check_listen_address(engine: &Engine, listen: &SocketAddr) -> Result<(), String> {
    if listen.ip().is_loopback() {
        return Ok(());
    }
    match engine.privileges().snapshot().passwordless_account() {
        None => Ok(()),
        Some(account) => Err(format!(
            "refusing to listen on {listen}: account {} has no password, and no account \
             without a password may be reachable from the network. Start on 127.0.0.1 (the \
             default), set a password with `ALTER USER {} IDENTIFIED BY '<password>'` (or \
             drop the account), then restart with --listen {listen}",
            account.quoted(),
            account.quoted()
        )),
    }
}

/// Warns at startup about password-less accounts (reachable only from this machine).
pub fn warn_about_passwordless_accounts(engine: &Engine, listen: &SocketAddr, fresh: bool) {
    let snapshot = engine.privileges().snapshot();
    let Some(account) = snapshot.passwordless_account() else {
        return;
    };
    if fresh {
        tracing::warn!(
            "new data directory: {} has NO PASSWORD and can log in only from this machine \
             ({listen}); set one with ALTER USER ... IDENTIFIED BY",
            account.quoted()
        );
    } else {
        tracing::warn!(
            "{} has no password; it can log in only from this machine",
            account.quoted()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use manycore_sql::privilege::Privileges;

    fn account(plugin: PasswordPlugin, authentication: &str) -> Account {
        Account {
            user: "u".into(),
            host: "%".into(),
            plugin,
            authentication: authentication.into(),
            locked: false,
            require_ssl: false,
            global: Privileges::NONE,
        }
    }

    #[test]
    fn credentials_follow_the_stored_form_and_the_fast_auth_cache() {
        let native = account(
            PasswordPlugin::NativePassword,
            "*14E65567ABDB5135D0CFD9A70B3032C179A49EE7",
        );
        assert!(matches!(
            credential(&native),
            Some(Credential::NativePassword { hash: Some(_) })
        ));
        let stored = manycore_protocol::sha256_crypt::mysql_hash(b"pw");
        let sha2 = account(PasswordPlugin::CachingSha2Password, &stored);
        let first = credential(&sha2).expect("credential");
        assert!(matches!(first, Credential::CachingSha2Crypt { .. }));
        let digest = manycore_protocol::auth::caching_sha2_digest(b"pw");
        remember_verified(&first, Some(digest));
        assert_eq!(
            credential(&sha2),
            Some(Credential::CachingSha2Password {
                digest: Some(digest),
                fast_auth: true
            })
        );
        // A damaged hash never authenticates.
        assert_eq!(
            credential(&account(PasswordPlugin::NativePassword, "*12")),
            None
        );
    }
}
