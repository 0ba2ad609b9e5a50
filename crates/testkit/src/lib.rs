//! Test harness for everything that talks to a server over the wire.
//!
//! It owns throwaway servers (a manycore binary or a MariaDB 10.11 instance, our
//! oracle), the real clients we test with (`mariadb`, `mariadb-admin`, sysbench,
//! the Rust `mysql` driver; the Go, Node.js and Java driver programs of `tests/drivers/`
//! are run by `tests/drivers.rs`), and two data-driven runners: the differential SQL
//! runner (`tests/sql/*.sql`, manycore vs MariaDB) and the sqllogictest runner
//! (the `slt` binary).
//!
//! Invariants:
//! (1) Every server listens on 127.0.0.1 only, on a port picked free at start.
//! (2) Every process we spawn is stopped by its PID when its owner drops (SIGTERM,
//!     then SIGKILL after a bounded wait), and dies with the spawning thread if the
//!     test process itself is killed, so no run leaves servers behind.
//! (3) Every wait is bounded; a timeout panics with the server's captured output.
//! (4) The same test runs against either server: [`Target::from_env`] reads
//!     `MANYCORE_TEST_TARGET` (`manycore`, the default, or `mariadb`).

pub mod client;
pub mod differential;
pub mod manycore;
pub mod mariadb;
pub mod process;
pub mod raw;
pub mod slt;
pub mod target;

pub use client::{
    mariadb_admin, mariadb_check, mariadb_cli, mariadb_dump, sysbench, CommandOutput,
};
pub use manycore::ManycoreServer;
pub use mariadb::MariaDb;
pub use target::{Server, Target};
