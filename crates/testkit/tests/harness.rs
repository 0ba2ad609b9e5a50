//! The harness itself: servers stop by PID, scratch directories go away, commands
//! are bounded in time. Uses MariaDB only, so it runs before manycore exists.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use manycore_testkit::client::run_bounded;
use manycore_testkit::process::{port_accepts, ScratchDir};
use manycore_testkit::{mariadb_cli, MariaDb};

#[test]
fn mariadb_starts_on_loopback_and_stops_by_pid() {
    let server = MariaDb::start();
    let port = server.port();
    let pid = server.pid().expect("running");
    let data_dir = server.data_dir();
    assert!(port_accepts(port));
    let out = mariadb_cli(
        port,
        &[
            "-N",
            "-e",
            "SELECT CURRENT_USER(), @@bind_address, @@max_allowed_packet",
        ],
        "",
    )
    .expect_success("query as root without a password");
    assert_eq!(out.stdout, "root@localhost\t127.0.0.1\t67108864\n");
    drop(server);
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "mariadbd {pid} still exists"
    );
    assert!(!port_accepts(port), "port {port} still open");
    assert!(!data_dir.exists(), "scratch directory left behind");
}

#[test]
fn scratch_directories_are_removed() {
    let dir = ScratchDir::new("testkit-selftest");
    let path = dir.path().to_path_buf();
    std::fs::write(path.join("file"), b"x").expect("write");
    drop(dir);
    assert!(!path.exists());
}

#[test]
fn commands_are_killed_at_their_time_limit() {
    let mut command = Command::new("sleep");
    command.arg("30");
    let out = run_bounded(command, b"", Duration::from_millis(300));
    assert!(out.timed_out && !out.success(), "{out}");
    let mut command = Command::new("cat");
    command.arg("-");
    let out = run_bounded(command, b"echoed", Duration::from_secs(10));
    assert!(out.success() && out.stdout == "echoed", "{out}");
}
