//! How the manycore binary starts: what it refuses.

use manycore_testkit::manycore::manycore_binary;
use manycore_testkit::process::{is_port_taken, port_accepts, ScratchDir, ServerProcess};
use manycore_testkit::ManycoreServer;
use std::net::SocketAddr;
use std::process::Command;

fn serve(dir: &ScratchDir, listen: &str) -> Command {
    let mut command = Command::new(manycore_binary());
    command
        .arg("serve")
        .arg("--listen")
        .arg(listen)
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .current_dir(dir.path());
    command
}

/// Starts a second server on `port` and checks that it exits, saying why.
fn assert_second_server_refused(port: u16) {
    let dir = ScratchDir::new("testkit-second");
    let command = serve(&dir, &format!("127.0.0.1:{port}"));
    let mut second = ServerProcess::spawn("second manycore", command, &dir.path().join("log"));
    // Never "ready": it must exit, or wait_ready panics when its time runs out.
    let output = second
        .wait_ready(|| false)
        .expect_err("the second server exits");
    assert!(is_port_taken(&output), "{output}");
    assert!(output.contains("is another server running?"), "{output}");
}

/// Workers listen with SO_REUSEPORT, which any process of the same user may join: a
/// second server on the same port would silently take a share of the first one's
/// connections, with its own data. It must refuse to start instead.
#[test]
fn a_second_server_on_a_busy_port_refuses_to_start() {
    let mut first = ManycoreServer::start();
    assert_second_server_refused(first.port());
    assert!(first.is_running(), "{}", first.log_tail());
}

/// Port 0: the server picks one port for all its workers and names it in its log (as
/// plain text when the log is not a terminal); nothing but that server ever bound it, and
/// a second server there is refused too.
#[test]
fn port_zero_is_one_port_named_in_the_log_and_defended() {
    let dir = ScratchDir::new("testkit-first");
    let log = dir.path().join("log");
    let mut first = ServerProcess::spawn("first manycore", serve(&dir, "127.0.0.1:0"), &log);
    let mut listening = None;
    first
        .wait_ready(|| {
            listening = manycore_testkit::process::log_tail(&log)
                .split_whitespace()
                .find_map(|word| word.strip_prefix("listen="))
                .and_then(|address| address.parse::<SocketAddr>().ok());
            listening.is_some()
        })
        .expect("the first server starts");
    let port = listening.expect("ready").port();
    assert!(port_accepts(port));
    assert_second_server_refused(port);
    assert!(port_accepts(port), "{}", first.log_tail());
}

/// `--secure-file-priv DIR` that is missing or not a directory: the server exits with
/// status 1 and says why before it creates its data directory or binds its port, as
/// MariaDB refuses to start ("Failed to normalize the argument for --secure-file-priv").
#[test]
fn an_unusable_secure_file_priv_directory_refuses_to_start() {
    let dir = ScratchDir::new("testkit-secure-file-priv");
    let file = dir.path().join("a-file");
    std::fs::write(&file, "not a directory").expect("write a file");
    for (priv_dir, why) in [
        (dir.path().join("missing"), "No such file or directory"),
        (file, "Not a directory"),
    ] {
        let mut command = serve(&dir, "127.0.0.1:0");
        command.arg("--secure-file-priv").arg(&priv_dir);
        let log = dir.path().join("log");
        let mut server = ServerProcess::spawn("manycore", command, &log);
        // Never "ready": it must exit, or wait_ready panics when its time runs out.
        let output = server.wait_ready(|| false).expect_err("the server exits");
        assert!(output.contains("(exit status: 1)"), "{output}");
        let message = format!(
            "manycore: Failed to access directory for --secure-file-priv {}: {why}",
            priv_dir.display()
        );
        assert!(output.contains(&message), "{output}");
        assert!(!output.contains("listen="), "{output}");
        assert!(!dir.path().join("data").exists(), "{output}");
    }
}
