//! Arbitrary bytes through HandshakeResponse parsing and an AuthExchange: no panic, and
//! never `Accepted` without the password (the oracle is in `../harness.rs`).
#![no_main]

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    harness::run(data);
});
