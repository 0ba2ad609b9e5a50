//! Random bytes into every decoder: none may panic (lib.rs invariant (3)).

use manycore_protocol::command::parse_command;
use manycore_protocol::handshake::{capability, parse_handshake_response};
use manycore_protocol::packet::next_payload;
use manycore_protocol::prepared::{parse_execute, ParamType};
use proptest::prelude::*;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 2000,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn command_parser_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..64), caps in any::<u32>()) {
        let _ = parse_command(&bytes, caps);
        let _ = parse_command(&bytes, capability::SERVER_DEFAULT);
    }

    #[test]
    fn handshake_parser_never_panics(
        head in any::<u32>(),
        rest in proptest::collection::vec(any::<u8>(), 0..128),
    ) {
        // Force PROTOCOL_41 half the time so parsing goes past the capability check.
        let mut bytes = (head | (head & 1) << 9).to_le_bytes().to_vec();
        bytes.extend_from_slice(&rest);
        let _ = parse_handshake_response(&bytes);
    }

    #[test]
    fn packet_decoder_never_panics(
        bytes in proptest::collection::vec(any::<u8>(), 0..64),
        max in 0usize..64,
    ) {
        let mut buf = bytes.clone();
        let mut start = 0;
        while let Ok(Some(frame)) = next_payload(&mut buf[start..], max) {
            prop_assert!(frame.consumed > 0 && frame.payload.end <= frame.consumed);
            start += frame.consumed;
        }
    }

    #[test]
    fn execute_parser_never_panics(
        rest in proptest::collection::vec(any::<u8>(), 0..96),
        count in 0usize..12,
        flags in any::<u8>(),
    ) {
        let mut bytes = vec![0x17, 1, 0, 0, 0, flags & 0x07, 1, 0, 0, 0];
        bytes.extend_from_slice(&rest);
        let mut cached: Vec<Option<ParamType>> = vec![None; count];
        if let Ok(e) = parse_execute(&bytes, &mut cached, None) {
            prop_assert_eq!(e.params().count(), count);
        }
        // Cached types of every kind, including unknown codes.
        let mut cached: Vec<Option<ParamType>> = (0..count)
            .map(|i| Some(ParamType { code: rest.get(i).copied().unwrap_or(0), unsigned: i % 2 == 0 }))
            .collect();
        if let Ok(e) = parse_execute(&bytes, &mut cached, None) {
            prop_assert_eq!(e.params().count(), count);
        }
    }
}
