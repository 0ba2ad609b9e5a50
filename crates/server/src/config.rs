//! Server configuration: command-line flags and their safe defaults.

use clap::Args;
use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(Args, Debug, Clone)]
pub struct ServeArgs {
    /// Address to listen on. The default accepts connections from this machine only.
    #[arg(long, default_value = "127.0.0.1:3306")]
    pub listen: SocketAddr,

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
}

impl ServeArgs {
    pub fn worker_count(&self) -> usize {
        self.workers
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .max(1)
    }
}
