//! How the manycore binary starts: what it refuses.

use manycore_testkit::manycore::manycore_binary;
use manycore_testkit::process::{is_port_taken, ScratchDir, ServerProcess};
use manycore_testkit::ManycoreServer;
use std::process::Command;

/// Workers listen with SO_REUSEPORT, which any process of the same user may join: a
/// second server on the same port would silently take a share of the first one's
/// connections, with its own data. It must refuse to start instead.
#[test]
fn a_second_server_on_a_busy_port_refuses_to_start() {
    let first = ManycoreServer::start();
    let dir = ScratchDir::new("testkit-second");
    let mut command = Command::new(manycore_binary());
    command
        .arg("serve")
        .arg("--listen")
        .arg(format!("127.0.0.1:{}", first.port()))
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .current_dir(dir.path());
    let mut second = ServerProcess::spawn("second manycore", command, &dir.path().join("log"));
    // Never "ready": it must exit, or wait_ready panics when its time runs out.
    let output = second
        .wait_ready(|| false)
        .expect_err("the second server exits");
    assert!(is_port_taken(&output), "{output}");
    assert!(output.contains("is another server running?"), "{output}");
    let mut first = first;
    assert!(first.is_running(), "{}", first.log_tail());
}
