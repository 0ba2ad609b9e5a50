//! Who may log in. Until accounts and grants exist (a later issue), there is one account:
//! `root`, without a password, allowed only from loopback.
//!
//! Invariant: a connection from a non-loopback address never authenticates as a
//! password-less account (and the listener refuses non-loopback addresses anyway).

use manycore_protocol::auth::{AuthPlugin, Credential};
use std::net::{IpAddr, SocketAddr};

pub const ROOT: &str = "root";

/// The credential to check for `user` connecting from `peer`, or None if no such account
/// may log in from there (the caller then runs a decoy exchange, so the client cannot
/// tell an unknown user from a wrong password).
pub fn credential_for(user: &str, peer: IpAddr) -> Option<Credential> {
    (user == ROOT && peer.is_loopback()).then_some(Credential::NativePassword { hash: None })
}

/// The plugin real accounts use, for decoy exchanges.
pub const DEFAULT_PLUGIN: AuthPlugin = AuthPlugin::NativePassword;

/// The host part shown for a connection: MySQL shows `localhost` for loopback.
pub fn host_name(peer: IpAddr) -> &'static str {
    if peer.is_loopback() {
        "localhost"
    } else {
        "%"
    }
}

pub fn warn_about_passwordless_root(listen: &SocketAddr, fresh: bool) {
    if fresh {
        tracing::warn!(
            "new data directory: root@localhost has NO PASSWORD and can log in only from \
             this machine ({listen})"
        );
    } else {
        tracing::warn!("root@localhost has no password; it can log in only from this machine");
    }
}
