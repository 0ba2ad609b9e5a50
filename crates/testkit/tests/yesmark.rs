//! "yesmark" from the source posts: several clients each streaming `DO 0;` into
//! the `mariadb` CLI while `mariadb-admin extended-status` counts Questions.
//! Each stream sends a known number of statements (what `yes "DO 0;" | head -n N`
//! would), so the check is exact: Questions grows by at least that many.

use std::thread;
use std::time::Duration;

use manycore_testkit::client::{run_bounded, status_value};
use manycore_testkit::{mariadb_admin, Server};

const STREAM_COUNT: usize = 4;
const STATEMENTS_PER_STREAM: usize = 20_000;

fn questions(port: u16) -> u64 {
    let out = mariadb_admin(port, &["extended-status"]).expect_success("extended-status");
    status_value(&out.stdout, "Questions").unwrap_or_else(|| panic!("no Questions in {out}"))
}

#[test]
fn do_streams_are_all_counted() {
    let server = Server::from_env();
    let port = server.port();
    let before = questions(port);
    let input = "DO 0;\n".repeat(STATEMENTS_PER_STREAM);
    let streams: Vec<_> = (0..STREAM_COUNT)
        .map(|_| {
            let input = input.clone();
            thread::spawn(move || {
                let mut command = std::process::Command::new("mariadb");
                command
                    .args(["--no-defaults", "--protocol=TCP", "-h127.0.0.1", "-uroot"])
                    .arg(format!("-P{port}"));
                run_bounded(command, input.as_bytes(), Duration::from_secs(300))
            })
        })
        .collect();
    for stream in streams {
        let out = stream.join().expect("stream thread");
        assert!(out.success(), "a DO stream failed: {out}");
        assert!(out.stdout.is_empty(), "DO prints nothing: {out}");
    }
    let after = questions(port);
    let sent = (STREAM_COUNT * STATEMENTS_PER_STREAM) as u64;
    assert!(
        after - before >= sent,
        "Questions grew by {} for {sent} statements",
        after - before
    );
}
