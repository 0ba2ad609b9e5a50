//! Replies through the workers' io_uring send rings (`--send-batching uring`, the default)
//! and through plain writes (`off`): concurrent clients get every reply, a reply larger
//! than the socket buffer arrives whole, and the status counters show which path ran.
//! Where io_uring is unavailable the server logs it and falls back; the test then checks
//! the fallback instead.

use manycore_testkit::client::{run_bounded, status_value};
use manycore_testkit::{mariadb_admin, mariadb_cli, ManycoreServer};
use std::thread;
use std::time::Duration;

const STREAMS: usize = 4;
const STATEMENTS_PER_STREAM: usize = 5_000;
/// Larger than a loopback socket's send buffer, so the ring's send takes only part of it.
const BIG_REPLY_BYTES: usize = 8 << 20;

fn status(port: u16, name: &str) -> u64 {
    let out = mariadb_admin(port, &["extended-status"]).expect_success("extended-status");
    status_value(&out.stdout, name).unwrap_or_else(|| panic!("no {name} in {out}"))
}

/// Runs concurrent `SELECT n` streams and a big reply; returns the sends the rings made.
fn serve_clients(server: &ManycoreServer) -> u64 {
    let port = server.port();
    let streams: Vec<_> = (0..STREAMS)
        .map(|stream| {
            let input: String = (0..STATEMENTS_PER_STREAM)
                .map(|i| format!("SELECT {};\n", stream * STATEMENTS_PER_STREAM + i))
                .collect();
            thread::spawn(move || {
                let mut command = std::process::Command::new("mariadb");
                command
                    .args(["--no-defaults", "--protocol=TCP", "-h127.0.0.1", "-uroot"])
                    .args(["--skip-ssl", "-N", "-B"])
                    .arg(format!("-P{port}"));
                (
                    stream,
                    run_bounded(command, input.as_bytes(), Duration::from_secs(300)),
                )
            })
        })
        .collect();
    for handle in streams {
        let (stream, out) = handle.join().expect("stream thread");
        assert!(out.success(), "stream {stream} failed: {out}");
        let expected: String = (0..STATEMENTS_PER_STREAM)
            .map(|i| format!("{}\n", stream * STATEMENTS_PER_STREAM + i))
            .collect();
        assert!(
            out.stdout == expected,
            "stream {stream}: every reply, in order ({} bytes of {})",
            out.stdout.len(),
            expected.len()
        );
    }
    let big = mariadb_cli(
        port,
        &["--skip-ssl", "-N", "-B", "--max-allowed-packet=64M"],
        &format!(
            "SELECT LENGTH(REPEAT('x', {BIG_REPLY_BYTES})), REPEAT('y', {BIG_REPLY_BYTES});\n"
        ),
    );
    assert!(big.success(), "big reply: {big}");
    let line = big.stdout.trim_end_matches('\n');
    let (length, text) = line.split_once('\t').expect("two columns");
    assert_eq!(length, BIG_REPLY_BYTES.to_string());
    assert!(
        text.len() == BIG_REPLY_BYTES && text.bytes().all(|b| b == b'y'),
        "the big reply arrives whole ({} bytes)",
        text.len()
    );
    status(port, "Send_ring_sends")
}

#[test]
fn replies_go_through_the_send_ring_by_default() {
    let server = ManycoreServer::start();
    let sends = serve_clients(&server);
    let submits = status(server.port(), "Send_ring_submits");
    if server.log_tail().contains("io_uring unavailable") {
        assert_eq!(sends, 0, "no ring, no ring sends");
        eprintln!("io_uring is unavailable here: checked the write fallback only");
        return;
    }
    let statements = (STREAMS * STATEMENTS_PER_STREAM) as u64;
    assert!(
        sends >= statements,
        "every reply goes through the ring: {sends} sends for {statements} statements"
    );
    assert!(
        (1..=sends).contains(&submits),
        "{submits} submissions for {sends} sends"
    );
}

#[test]
fn send_batching_off_writes_directly() {
    let server = ManycoreServer::start_with(&["--send-batching", "off"]);
    assert_eq!(serve_clients(&server), 0);
    assert_eq!(status(server.port(), "Send_ring_submits"), 0);
}
