//! A throwaway manycore server: the release binary on a free port and a scratch
//! data directory.
//!
//! The binary is `$MANYCORE_BIN` if set, else `target/release/manycore` of this
//! workspace (honouring `CARGO_TARGET_DIR`). Tests do not build it: `scripts/test.sh`
//! runs `cargo build --release -p manycore-server` first, because a release build
//! from inside a test would hold the cargo lock the test run already holds.
//!
//! Invariants:
//! (1) The server is started as `serve --listen 127.0.0.1:<port> --data-dir <dir>
//!     --workers 2` (unless the extra arguments set `--workers`); `restart()` reuses the
//!     same port and data directory, so crash tests see what survived.
//! (2) The data directory outlives `kill9()` and `restart()`; it is removed only
//!     when the `ManycoreServer` drops.

use std::path::PathBuf;
use std::process::Command;

use crate::client::select_one_works;
use crate::process::{free_port, is_port_taken, port_accepts, ScratchDir, ServerProcess};

#[derive(Debug)]
pub struct ManycoreServer {
    // Field order matters: the process stops before its directory is removed.
    process: ServerProcess,
    port: u16,
    binary: PathBuf,
    extra_args: Vec<String>,
    dir: ScratchDir,
}

impl ManycoreServer {
    /// Starts the release binary; panics with its output if it is not ready in time.
    pub fn start() -> ManycoreServer {
        ManycoreServer::start_with(&[])
    }

    /// As [`ManycoreServer::start`], with extra `serve` arguments.
    pub fn start_with(extra_args: &[&str]) -> ManycoreServer {
        let binary = manycore_binary();
        let dir = ScratchDir::new("testkit-manycore");
        let extra_args: Vec<String> = extra_args.iter().map(|s| s.to_string()).collect();
        let mut last_output = String::new();
        for _attempt in 0..3 {
            let port = free_port();
            let mut process = spawn(&binary, &dir, port, &extra_args);
            match process.wait_ready(|| is_ready(port, &extra_args)) {
                Ok(()) => {
                    return ManycoreServer {
                        process,
                        port,
                        binary,
                        extra_args,
                        dir,
                    }
                }
                Err(output) if is_port_taken(&output) => last_output = output,
                Err(output) => panic!("{output}"),
            }
        }
        panic!("manycore did not start on three ports; last output:\n{last_output}");
    }

    /// The server's PID while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.process.pid()
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    pub fn log_tail(&self) -> String {
        self.process.log_tail()
    }

    /// True while the process has not exited.
    pub fn is_running(&mut self) -> bool {
        self.process.pid().is_some() && self.process.try_exit_status().is_none()
    }

    /// Graceful stop (SIGTERM, then SIGKILL), then a start on the same port and
    /// data directory. Also the way back up after [`ManycoreServer::kill9`].
    pub fn restart(&mut self) {
        self.process.stop();
        let mut process = spawn(&self.binary, &self.dir, self.port, &self.extra_args);
        let (port, extra_args) = (self.port, &self.extra_args);
        if let Err(output) = process.wait_ready(|| is_ready(port, extra_args)) {
            panic!("manycore did not come back on port {port}: {output}");
        }
        self.process = process;
    }

    /// SIGKILL at once: the crash in crash tests. Call `restart()` to recover.
    pub fn kill9(&mut self) {
        self.process.kill9();
    }
}

/// `$MANYCORE_BIN`, else `<target dir>/release/manycore`; panics with the build
/// command if it is missing.
pub fn manycore_binary() -> PathBuf {
    if let Some(bin) = std::env::var_os("MANYCORE_BIN") {
        return PathBuf::from(bin);
    }
    let binary = target_dir().join("release/manycore");
    assert!(
        binary.exists(),
        "{} not found: run `cargo build --release -p manycore-server` (scripts/test.sh does), \
         set MANYCORE_BIN, or test against MariaDB with MANYCORE_TEST_TARGET=mariadb",
        binary.display()
    );
    binary
}

/// The workspace's cargo target directory: `CARGO_TARGET_DIR` (relative to the workspace)
/// or `target`.
pub fn target_dir() -> PathBuf {
    let workspace = workspace_dir();
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|t| {
            if t.is_relative() {
                workspace.join(t)
            } else {
                t
            }
        })
        .unwrap_or_else(|| workspace.join("target"))
}

pub fn workspace_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The server accepts connections and runs `SELECT 1`; under
/// `--require-secure-transport` the plain-TCP probe cannot log in, and accepting is enough.
fn is_ready(port: u16, extra_args: &[String]) -> bool {
    let plain_refused = extra_args.iter().any(|a| a == "--require-secure-transport");
    port_accepts(port) && (plain_refused || select_one_works(port))
}

fn spawn(binary: &PathBuf, dir: &ScratchDir, port: u16, extra: &[String]) -> ServerProcess {
    let mut command = Command::new(binary);
    command
        .arg("serve")
        .arg("--listen")
        .arg(format!("127.0.0.1:{port}"))
        .arg("--data-dir")
        .arg(dir.path().join("data"));
    if !extra.iter().any(|a| a == "--workers") {
        command.arg("--workers").arg("2");
    }
    command.args(extra).current_dir(dir.path());
    ServerProcess::spawn(
        "manycore",
        command,
        &dir.path().join(format!("manycore-{port}.log")),
    )
}
