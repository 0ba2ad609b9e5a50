//! A throwaway MariaDB 10.11 instance: our oracle.
//!
//! Configured like Debian's packaged server where it changes results (utf8mb4,
//! utf8mb4_general_ci) and for speed elsewhere (no binlog, no performance schema,
//! relaxed log flushing): tests compare behaviour, not durability.
//!
//! Invariants:
//! (1) root has no password and reaches the server over TCP from 127.0.0.1
//!     (`--auth-root-authentication-method=normal` creates root@localhost and
//!     root@127.0.0.1 without passwords; `--skip-name-resolve` picks the latter).
//! (2) max_allowed_packet is 64M, the same default manycore has, so large-value
//!     tests mean the same on both servers.

use std::path::PathBuf;
use std::process::Command;

use crate::client::select_one_works;
use crate::process::{free_port, is_port_taken, port_accepts, ScratchDir, ServerProcess};

/// The flags every instance gets, besides paths and port.
pub const MARIADB_FLAGS: &[&str] = &[
    "--user=root",
    "--skip-log-bin",
    "--innodb-buffer-pool-size=256M",
    "--innodb-log-file-size=48M",
    "--innodb-flush-log-at-trx-commit=2",
    "--max-connections=1000",
    "--max-allowed-packet=64M",
    "--max-prepared-stmt-count=1048576",
    "--performance-schema=OFF",
    "--character-set-server=utf8mb4",
    "--collation-server=utf8mb4_general_ci",
];

#[derive(Debug)]
pub struct MariaDb {
    // Field order matters: the process stops before its directory is removed.
    process: ServerProcess,
    port: u16,
    dir: ScratchDir,
}

impl MariaDb {
    /// Installs a fresh data directory and starts mariadbd on a free port.
    pub fn start() -> MariaDb {
        MariaDb::start_with(&[])
    }

    /// As [`MariaDb::start`], with extra mariadbd flags.
    pub fn start_with(extra_flags: &[&str]) -> MariaDb {
        MariaDbInstall::new().start_with(extra_flags)
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
}

/// A data directory made by mariadb-install-db, not yet served. Installing is the
/// slow part of a start (seconds), and unlike a running server it may happen on any
/// thread: a server dies with the thread that spawned it (process invariant 2).
#[derive(Debug)]
pub struct MariaDbInstall {
    dir: ScratchDir,
}

impl MariaDbInstall {
    pub fn new() -> MariaDbInstall {
        let dir = ScratchDir::new("testkit-mariadb");
        let datadir = dir.path().join("data");
        // Each instance has its own tmpdir: two bootstraps sharing /tmp have been seen
        // to remove each other's temporary tables.
        let tmpdir = dir.path().join("tmp");
        std::fs::create_dir_all(&tmpdir).expect("create MariaDB tmpdir");
        let install = Command::new("mariadb-install-db")
            .env("TMPDIR", &tmpdir)
            .arg("--no-defaults")
            .arg(format!("--datadir={}", datadir.display()))
            .args([
                "--user=root",
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
            ])
            .output()
            .expect("run mariadb-install-db (is mariadb-server installed? see scripts/test.sh)");
        assert!(
            install.status.success(),
            "mariadb-install-db failed: {}\n{}",
            String::from_utf8_lossy(&install.stdout),
            String::from_utf8_lossy(&install.stderr)
        );
        MariaDbInstall { dir }
    }

    /// Starts mariadbd on this data directory and a free port, with extra flags.
    pub fn start_with(self, extra_flags: &[&str]) -> MariaDb {
        let dir = self.dir;
        let datadir = dir.path().join("data");
        // A port taken between free_port() and bind makes mariadbd exit at once;
        // try a few ports before calling it a failure.
        let mut last_log = String::new();
        for _attempt in 0..3 {
            let port = free_port();
            let mut command = Command::new(mariadbd_path());
            command
                .arg("--no-defaults")
                .arg(format!("--datadir={}", datadir.display()))
                .arg(format!("--port={port}"))
                .arg("--bind-address=127.0.0.1")
                .arg(format!(
                    "--socket={}",
                    dir.path().join("mariadb.sock").display()
                ))
                .arg(format!(
                    "--pid-file={}",
                    dir.path().join("mariadb.pid").display()
                ))
                .arg(format!("--tmpdir={}", dir.path().join("tmp").display()))
                .args(MARIADB_FLAGS)
                .args(extra_flags);
            let log = dir.path().join(format!("mariadbd-{port}.log"));
            let mut process = ServerProcess::spawn("mariadbd", command, &log);
            match process.wait_ready(|| port_accepts(port) && select_one_works(port)) {
                Ok(()) => return MariaDb { process, port, dir },
                Err(output) if is_port_taken(&output) => last_log = output,
                Err(output) => panic!("{output}"),
            }
        }
        panic!("mariadbd did not start on three ports; last output:\n{last_log}");
    }
}

impl Default for MariaDbInstall {
    fn default() -> Self {
        MariaDbInstall::new()
    }
}

/// mariadbd lives in /usr/sbin, which is not on every PATH.
fn mariadbd_path() -> PathBuf {
    let sbin = PathBuf::from("/usr/sbin/mariadbd");
    if sbin.exists() {
        sbin
    } else {
        PathBuf::from("mariadbd")
    }
}
