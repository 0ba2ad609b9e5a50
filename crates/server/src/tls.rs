//! Transport security: the TLS certificate and the RSA key pair of caching_sha2_password,
//! loaded or created at startup, and the per-connection facts (`TlsInfo`) that SHOW STATUS
//! and `REQUIRE SSL` read.
//!
//! Files in the data directory, created on first start and reused afterwards:
//!
//!   tls-cert.pem     self-signed X.509 certificate (ECDSA P-256; CN "manycore"; names
//!                    localhost, 127.0.0.1 and ::1), valid 1975..4096. Not created when
//!                    `--tls-cert`/`--tls-key` name the operator's own pair.
//!   tls-key.pem      its PKCS#8 private key, mode 0600.
//!   rsa-private.pem  RSA 2048 PKCS#8 private key (caching_sha2_password full
//!                    authentication without TLS), mode 0600.
//!   rsa-public.pem   its SubjectPublicKeyInfo ("BEGIN PUBLIC KEY"), what a client gets
//!                    when it asks for the server's public key.
//!
//! Invariants:
//! (1) TLS 1.2 and 1.3 only, with AWS-LC's suites (AEAD and forward secrecy only); the
//!     same provider does the RSA-OAEP decryption, so there is one crypto stack.
//! (2) A private key file is created with mode 0600 under a temporary name and renamed
//!     into place: it is never readable by others, and never half written.
//! (3) An existing file is used, never overwritten; a file that cannot be read or parsed
//!     stops startup with a message naming it (a silently regenerated key would break
//!     clients that pinned the old one).

use aws_lc_rs::encoding::AsDer;
use aws_lc_rs::rsa::{KeySize, OaepPrivateDecryptingKey, PrivateDecryptingKey, OAEP_SHA1_MGF1SHA1};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub const CERT_FILE: &str = "tls-cert.pem";
pub const KEY_FILE: &str = "tls-key.pem";
pub const RSA_PRIVATE_FILE: &str = "rsa-private.pem";
pub const RSA_PUBLIC_FILE: &str = "rsa-public.pem";

/// What `version_ssl_library` reports.
pub const LIBRARY: &str = "rustls 0.23 (aws-lc-rs)";

/// The TLS parameters of one connection, as OpenSSL names them (SHOW STATUS
/// `Ssl_version`, `Ssl_cipher`; the `mariadb` client's `status` prints the cipher).
pub use manycore_sql::TlsInfo;

/// Everything the server needs to offer TLS and caching_sha2_password full
/// authentication; shared read-only by every worker.
pub struct Security {
    pub acceptor: tokio_rustls::TlsAcceptor,
    pub cert_path: PathBuf,
    pub key_path: PathBuf,
    pub rsa: RsaKeyPair,
}

impl Security {
    /// Loads the certificate (given, or the data directory's, created if missing) and
    /// the RSA key pair (the data directory's, created if missing).
    pub fn load(
        data_dir: &Path,
        cert: Option<&Path>,
        key: Option<&Path>,
    ) -> Result<Security, String> {
        let (cert_path, key_path) = match (cert, key) {
            (Some(cert), Some(key)) => (cert.to_path_buf(), key.to_path_buf()),
            (None, None) => {
                let paths = (data_dir.join(CERT_FILE), data_dir.join(KEY_FILE));
                ensure_self_signed(&paths.0, &paths.1)?;
                paths
            }
            _ => return Err("--tls-cert and --tls-key must be given together".to_string()),
        };
        let acceptor = acceptor(&cert_path, &key_path)?;
        let rsa = RsaKeyPair::load_or_create(
            &data_dir.join(RSA_PRIVATE_FILE),
            &data_dir.join(RSA_PUBLIC_FILE),
        )?;
        Ok(Security {
            acceptor,
            cert_path,
            key_path,
            rsa,
        })
    }
}

/// The rustls server configuration: invariant (1).
fn acceptor(cert_path: &Path, key_path: &Path) -> Result<tokio_rustls::TlsAcceptor, String> {
    let certs = CertificateDer::pem_file_iter(cert_path)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("cannot read TLS certificate {}: {e}", cert_path.display()))?;
    if certs.is_empty() {
        return Err(format!("no certificate in {}", cert_path.display()));
    }
    let key = PrivateKeyDer::from_pem_file(key_path)
        .map_err(|e| format!("cannot read TLS private key {}: {e}", key_path.display()))?;
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
        .map_err(|e| format!("TLS configuration: {e}"))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| {
            format!(
                "TLS certificate {} and key {} do not form a usable pair: {e}",
                cert_path.display(),
                key_path.display()
            )
        })?;
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
}

/// Creates the self-signed certificate and its key unless both exist (invariant (3)).
fn ensure_self_signed(cert_path: &Path, key_path: &Path) -> Result<(), String> {
    match (cert_path.exists(), key_path.exists()) {
        (true, true) => return Ok(()),
        (false, false) => {}
        _ => {
            return Err(format!(
                "only one of {} and {} exists: restore the other, or remove both to have a \
                 new self-signed certificate generated",
                cert_path.display(),
                key_path.display()
            ))
        }
    }
    let key = rcgen::KeyPair::generate().map_err(|e| format!("TLS key generation: {e}"))?;
    let names = ["localhost", "127.0.0.1", "::1"].map(String::from).to_vec();
    let mut params =
        rcgen::CertificateParams::new(names).map_err(|e| format!("TLS certificate: {e}"))?;
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "manycore");
    let cert = params
        .self_signed(&key)
        .map_err(|e| format!("TLS certificate: {e}"))?;
    write_new_file(key_path, key.serialize_pem().as_bytes(), 0o600)?;
    write_new_file(cert_path, cert.pem().as_bytes(), 0o644)?;
    tracing::info!(
        cert = %cert_path.display(),
        "generated a self-signed TLS certificate (clients cannot verify it; give \
         --tls-cert and --tls-key for one they can)"
    );
    Ok(())
}

/// Writes `bytes` to a temporary file created with `mode`, then renames it to `path`
/// (invariant (2)).
fn write_new_file(path: &Path, bytes: &[u8], mode: u32) -> Result<(), String> {
    let temporary = path.with_extension("tmp");
    let _ = std::fs::remove_file(&temporary);
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(&temporary)
        .and_then(|mut file| {
            file.write_all(bytes)?;
            file.sync_all()
        })
        .and_then(|()| std::fs::rename(&temporary, path));
    written.map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The RSA key pair clients use to send a caching_sha2_password password without TLS.
pub struct RsaKeyPair {
    private: OaepPrivateDecryptingKey,
    public_pem: Vec<u8>,
    pub public_path: PathBuf,
    pub private_path: PathBuf,
}

impl RsaKeyPair {
    pub fn load_or_create(private_path: &Path, public_path: &Path) -> Result<RsaKeyPair, String> {
        let private = if private_path.exists() {
            let pem = std::fs::read(private_path)
                .map_err(|e| format!("cannot read {}: {e}", private_path.display()))?;
            let der = PrivateKeyDer::from_pem_slice(&pem)
                .map_err(|e| format!("{}: not a PEM private key: {e}", private_path.display()))?;
            PrivateDecryptingKey::from_pkcs8(der.secret_der())
                .map_err(|e| format!("{}: not an RSA key: {e}", private_path.display()))?
        } else {
            let key = PrivateDecryptingKey::generate(KeySize::Rsa2048)
                .map_err(|_| "RSA key generation failed".to_string())?;
            let der = key
                .as_der()
                .map_err(|_| "RSA key encoding failed".to_string())?;
            let pem = pem::encode(&pem::Pem::new("PRIVATE KEY", der.as_ref()));
            write_new_file(private_path, pem.as_bytes(), 0o600)?;
            tracing::info!(key = %private_path.display(), "generated an RSA key pair for \
                caching_sha2_password");
            key
        };
        let public_der = private
            .public_key()
            .as_der()
            .map_err(|_| "RSA public key encoding failed".to_string())?;
        let public_pem = pem::encode(&pem::Pem::new("PUBLIC KEY", public_der.as_ref()));
        // Rewritten from the private key when missing or stale: it holds no secret.
        if std::fs::read(public_path).ok().as_deref() != Some(public_pem.as_bytes()) {
            write_new_file(public_path, public_pem.as_bytes(), 0o644)?;
        }
        let private = OaepPrivateDecryptingKey::new(private)
            .map_err(|_| format!("{}: unusable for RSA-OAEP", private_path.display()))?;
        Ok(RsaKeyPair {
            private,
            public_pem: public_pem.into_bytes(),
            public_path: public_path.to_path_buf(),
            private_path: private_path.to_path_buf(),
        })
    }

    /// The PEM text sent to a client that asks for the public key.
    pub fn public_pem(&self) -> &[u8] {
        &self.public_pem
    }

    /// Decrypts an RSA-OAEP (SHA-1, MGF1-SHA-1: what MySQL clients use) ciphertext into
    /// `out`; None if it does not decrypt. The caller wipes `out` after use.
    pub fn decrypt<'a>(&self, ciphertext: &[u8], out: &'a mut Vec<u8>) -> Option<&'a [u8]> {
        out.clear();
        out.resize(self.private.min_output_size(), 0);
        let plaintext = self
            .private
            .decrypt(&OAEP_SHA1_MGF1SHA1, ciphertext, out, None)
            .ok()?;
        Some(plaintext)
    }
}

/// The OpenSSL names of the negotiated protocol and cipher suite.
pub fn connection_info(connection: &rustls::ServerConnection) -> TlsInfo {
    let version = match connection.protocol_version() {
        Some(rustls::ProtocolVersion::TLSv1_3) => "TLSv1.3",
        Some(rustls::ProtocolVersion::TLSv1_2) => "TLSv1.2",
        _ => "",
    };
    let cipher = connection
        .negotiated_cipher_suite()
        .map_or("", |suite| openssl_cipher_name(suite.suite()));
    TlsInfo { version, cipher }
}

/// OpenSSL's name for each suite AWS-LC offers (what MariaDB shows in Ssl_cipher).
fn openssl_cipher_name(suite: rustls::CipherSuite) -> &'static str {
    use rustls::CipherSuite as S;
    match suite {
        S::TLS13_AES_256_GCM_SHA384 => "TLS_AES_256_GCM_SHA384",
        S::TLS13_AES_128_GCM_SHA256 => "TLS_AES_128_GCM_SHA256",
        S::TLS13_CHACHA20_POLY1305_SHA256 => "TLS_CHACHA20_POLY1305_SHA256",
        S::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384 => "ECDHE-ECDSA-AES256-GCM-SHA384",
        S::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 => "ECDHE-ECDSA-AES128-GCM-SHA256",
        S::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256 => "ECDHE-ECDSA-CHACHA20-POLY1305",
        S::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384 => "ECDHE-RSA-AES256-GCM-SHA384",
        S::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 => "ECDHE-RSA-AES128-GCM-SHA256",
        S::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256 => "ECDHE-RSA-CHACHA20-POLY1305",
        _ => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_lc_rs::rsa::{OaepPublicEncryptingKey, PublicEncryptingKey};
    use std::os::unix::fs::PermissionsExt;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("manycore-tls-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        dir
    }

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path)
            .expect("exists")
            .permissions()
            .mode()
            & 0o777
    }

    #[test]
    fn files_are_created_once_with_private_modes_and_reused() {
        let dir = scratch("files");
        let first = Security::load(&dir, None, None).expect("first start");
        assert_eq!(mode(&dir.join(KEY_FILE)), 0o600);
        assert_eq!(mode(&dir.join(RSA_PRIVATE_FILE)), 0o600);
        let cert = std::fs::read(dir.join(CERT_FILE)).expect("cert");
        let second = Security::load(&dir, None, None).expect("second start");
        assert_eq!(std::fs::read(dir.join(CERT_FILE)).expect("cert"), cert);
        assert_eq!(first.rsa.public_pem(), second.rsa.public_pem());
        assert!(first
            .rsa
            .public_pem()
            .starts_with(b"-----BEGIN PUBLIC KEY-----"));

        std::fs::remove_file(dir.join(KEY_FILE)).expect("remove key");
        let error = Security::load(&dir, None, None).err().expect("half a pair");
        assert!(error.contains("only one of"), "{error}");
        std::fs::write(dir.join(RSA_PRIVATE_FILE), "garbage").expect("write");
        let error = Security::load(&dir, Some(&dir.join(CERT_FILE)), None)
            .err()
            .expect("cert without key");
        assert!(error.contains("together"), "{error}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn rsa_oaep_round_trip_through_the_public_pem() {
        let dir = scratch("rsa");
        let pair = RsaKeyPair::load_or_create(&dir.join("private.pem"), &dir.join("public.pem"))
            .expect("key pair");
        // What a client does with the PEM it receives.
        let der = pem::parse(pair.public_pem()).expect("PEM");
        let public = PublicEncryptingKey::from_der(der.contents()).expect("SPKI");
        let public = OaepPublicEncryptingKey::new(public).expect("OAEP");
        let mut ciphertext = vec![0; public.ciphertext_size()];
        let ciphertext = public
            .encrypt(&OAEP_SHA1_MGF1SHA1, b"secret\0", &mut ciphertext, None)
            .expect("encrypt");
        let mut out = Vec::new();
        assert_eq!(pair.decrypt(ciphertext, &mut out), Some(&b"secret\0"[..]));
        let mut tampered = ciphertext.to_vec();
        tampered[10] ^= 1;
        assert_eq!(pair.decrypt(&tampered, &mut out), None);
        assert_eq!(pair.decrypt(b"short", &mut out), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
