//! The handshake fuzz target's checks on stable: replay of the checked-in corpus
//! (`fuzz/corpus/handshake`, seeds from `fuzz/make_seeds.py` plus whatever fuzzing found
//! worth keeping), and proptest inputs that must never authenticate.

#[path = "../fuzz/harness.rs"]
mod harness;

use harness::{run, Outcome};
use proptest::prelude::*;

#[test]
fn corpus_replays_with_the_outcomes_its_names_promise() {
    let directory = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/handshake");
    let mut replayed = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&directory)
        .expect("corpus directory")
        .map(|entry| entry.expect("corpus entry").path())
        .collect();
    entries.sort();
    for path in entries {
        let data = std::fs::read(&path).expect("corpus file");
        let outcome = run(&data);
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with("accept-") {
            assert_eq!(outcome, Outcome::Accepted, "{name}");
        } else if name.starts_with("reject-") {
            assert_eq!(outcome, Outcome::Rejected, "{name}");
        }
        replayed += 1;
    }
    assert!(
        replayed >= 17,
        "only {replayed} corpus files in {}",
        directory.display()
    );
}

/// Every one-byte change of every seed (the selector, lengths, capability bits, the
/// proof) runs without panic and without an acceptance the oracle refuses.
#[test]
fn single_byte_changes_to_seeds_never_break_the_oracle() {
    let directory = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/handshake");
    for entry in std::fs::read_dir(directory).expect("corpus directory") {
        let path = entry.expect("corpus entry").path();
        let data = std::fs::read(&path).expect("corpus file");
        for i in 0..data.len() {
            for flip in [0x01, 0x80, 0xFF] {
                let mut mutated = data.clone();
                mutated[i] ^= flip;
                run(&mutated); // Panics if the oracle is violated.
            }
        }
    }
}

fn packet() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..300)
}

fn framed(selector: u8, packets: &[Vec<u8>]) -> Vec<u8> {
    let mut data = vec![selector];
    for p in packets {
        data.extend_from_slice(&(p.len() as u16).to_le_bytes());
        data.extend_from_slice(p);
    }
    data
}

/// A well-formed HandshakeResponse41 with the given auth response and plugin.
fn response(auth: &[u8], plugin: &[u8]) -> Vec<u8> {
    let mut p = Vec::new();
    p.extend_from_slice(&0x017F_F75Fu32.to_le_bytes());
    p.extend_from_slice(&(16u32 << 20).to_le_bytes());
    p.push(45);
    p.extend_from_slice(&[0; 23]);
    p.extend_from_slice(b"root\0");
    p.push(auth.len() as u8);
    p.extend_from_slice(auth);
    p.extend_from_slice(b"\0");
    p.extend_from_slice(plugin);
    p.push(0);
    p.extend_from_slice(&[0]);
    p
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn random_packets_never_authenticate_an_account_with_a_password(
        selector in prop::sample::select(vec![0u8, 1, 2, 5, 6]),
        packets in prop::collection::vec(packet(), 0..6),
    ) {
        prop_assert_ne!(run(&framed(selector, &packets)), Outcome::Accepted);
    }

    #[test]
    fn random_auth_responses_in_well_formed_handshakes_never_authenticate(
        selector in prop::sample::select(vec![0u8, 1, 2, 5, 6]),
        auth in prop::collection::vec(any::<u8>(), 0..64),
        native in any::<bool>(),
        later in prop::collection::vec(packet(), 0..4),
    ) {
        let plugin: &[u8] = if native { b"mysql_native_password" } else { b"caching_sha2_password" };
        let mut packets = vec![response(&auth, plugin)];
        packets.extend(later);
        prop_assert_ne!(run(&framed(selector, &packets)), Outcome::Accepted);
    }
}
