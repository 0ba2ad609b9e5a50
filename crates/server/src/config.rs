//! Server configuration: command-line flags and their safe defaults.

use clap::Args;
use manycore_wal::SyncMode;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args, Debug, Clone)]
pub struct ServeArgs {
    /// Address to listen on. The default accepts connections from this machine only.
    #[arg(long, default_value = "127.0.0.1:3306")]
    pub listen: SocketAddr,

    /// Also accept connections on this Unix socket (as MariaDB's --socket; clients connect
    /// with `mariadb --socket=PATH`). Its clients log in as from localhost. A stale socket
    /// file left by a server that is gone is replaced; any other file there stops startup.
    #[arg(long, value_name = "PATH")]
    pub socket: Option<PathBuf>,

    /// Directory holding the server's data and its lock file; created if missing.
    #[arg(long, default_value = "./manycore-data")]
    pub data_dir: PathBuf,

    /// Worker threads, each with its own listener and connections (default: one per core).
    #[arg(long)]
    pub workers: Option<usize>,

    /// Connections beyond this many are refused with error 1040.
    #[arg(long, default_value_t = 4096)]
    pub max_connections: u32,

    /// Largest packet (statement or row) accepted, in bytes; larger ones get error 1153.
    #[arg(long, default_value_t = 64 * 1024 * 1024)]
    pub max_allowed_packet: u64,

    /// Seconds a client may take to complete the handshake before it is disconnected.
    #[arg(long, default_value_t = 10)]
    pub connect_timeout: u64,

    /// When a commit is acknowledged: `commit` (after its log records are fdatasync'ed,
    /// with group commit) or `none` (at once; UNSAFE, loses recent commits on a crash; for
    /// tests and benchmarks only).
    #[arg(long, default_value = "commit", value_parser = parse_sync_mode)]
    pub sync: SyncMode,

    /// Extra microseconds the log writer waits to gather more commits into one fsync
    /// (0..=1000).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=1000))]
    pub group_delay_us: u64,

    /// Write a checkpoint (and drop the log before it) after this many MiB of log.
    #[arg(long, default_value_t = 256)]
    pub checkpoint_interval_mb: u64,

    /// TLS certificate chain (PEM). Without --tls-cert and --tls-key the server creates
    /// a self-signed certificate and key in the data directory on first start
    /// (tls-cert.pem, tls-key.pem) and reuses them afterwards.
    #[arg(long, requires = "tls_key", value_name = "PATH")]
    pub tls_cert: Option<PathBuf>,

    /// Private key (PEM, PKCS#8, PKCS#1 or SEC1) of --tls-cert.
    #[arg(long, requires = "tls_cert", value_name = "PATH")]
    pub tls_key: Option<PathBuf>,

    /// Refuse logins that do not use TLS (error 1045, as MariaDB); also settable with
    /// SET GLOBAL require_secure_transport.
    #[arg(long)]
    pub require_secure_transport: bool,

    /// Consecutive failed logins from one client host answered without delay; each
    /// further one waits --failed-login-delay-ms times its number past the threshold, at
    /// most --failed-login-delay-max-ms. A success from the host resets the count.
    /// 0 turns the delay off.
    #[arg(long, default_value_t = 5)]
    pub failed_login_delay_threshold: u32,

    /// The delay of the first failed login past the threshold, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    pub failed_login_delay_ms: u64,

    /// The longest delay of a failed login, in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    pub failed_login_delay_max_ms: u64,

    /// How replies leave a worker: `uring` sends the replies of one pass of the worker's
    /// event loop with one io_uring system call (falling back to `write` where io_uring is
    /// unavailable); `off` writes each connection's replies with its own system call.
    #[arg(long, default_value = "uring", value_parser = ["uring", "off"])]
    pub send_batching: String,

    /// The one directory whose files SELECT ... INTO OUTFILE/DUMPFILE may write and LOAD
    /// DATA INFILE and LOAD_FILE() may read (with the FILE privilege), as MariaDB's
    /// --secure-file-priv. Without it, files on the server are refused (error 1290). The
    /// server does not start if DIR is missing, not a directory or not readable.
    #[arg(long, value_name = "DIR")]
    pub secure_file_priv: Option<PathBuf>,

    /// Start even if the log is damaged before its tail: discard it from the first bad
    /// record on, losing those commits. Without it such damage stops startup.
    #[arg(long)]
    pub recover_truncate_log: bool,
}

fn parse_sync_mode(text: &str) -> Result<SyncMode, String> {
    match text {
        "commit" => Ok(SyncMode::Commit),
        "none" => Ok(SyncMode::None),
        other => Err(format!("unknown sync mode '{other}': use commit or none")),
    }
}

impl ServeArgs {
    pub fn failed_login_delay_policy(&self) -> crate::login_delay::DelayPolicy {
        crate::login_delay::DelayPolicy {
            threshold: self.failed_login_delay_threshold,
            delay_min: Duration::from_millis(self.failed_login_delay_ms),
            delay_max: Duration::from_millis(self.failed_login_delay_max_ms),
        }
    }

    pub fn worker_count(&self) -> usize {
        self.workers
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .max(1)
    }
}
