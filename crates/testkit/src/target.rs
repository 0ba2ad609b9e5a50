//! Which server a test runs against: manycore (the default) or MariaDB, so one
//! test proves itself against the oracle before it judges manycore.

use crate::client;
use crate::manycore::ManycoreServer;
use crate::mariadb::MariaDb;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Manycore,
    MariaDb,
}

impl Target {
    /// `MANYCORE_TEST_TARGET`: `manycore` (default) or `mariadb`.
    pub fn from_env() -> Target {
        match std::env::var("MANYCORE_TEST_TARGET").as_deref() {
            Ok("mariadb") => Target::MariaDb,
            Ok("manycore") | Ok("") | Err(_) => Target::Manycore,
            Ok(other) => panic!("MANYCORE_TEST_TARGET={other}: expected manycore or mariadb"),
        }
    }

    pub fn start(self) -> Server {
        match self {
            Target::Manycore => Server::Manycore(ManycoreServer::start()),
            Target::MariaDb => Server::MariaDb(MariaDb::start()),
        }
    }
}

/// A running server of either kind.
#[derive(Debug)]
pub enum Server {
    Manycore(ManycoreServer),
    MariaDb(MariaDb),
}

impl Server {
    /// Starts the server `MANYCORE_TEST_TARGET` names.
    pub fn from_env() -> Server {
        Target::from_env().start()
    }

    pub fn target(&self) -> Target {
        match self {
            Server::Manycore(_) => Target::Manycore,
            Server::MariaDb(_) => Target::MariaDb,
        }
    }

    pub fn port(&self) -> u16 {
        match self {
            Server::Manycore(s) => s.port(),
            Server::MariaDb(s) => s.port(),
        }
    }

    pub fn log_tail(&self) -> String {
        match self {
            Server::Manycore(s) => s.log_tail(),
            Server::MariaDb(s) => s.log_tail(),
        }
    }

    pub fn connect(&self) -> mysql::Conn {
        client::connect(self.port())
    }

    /// True if a fresh connection still runs `SELECT 1`: the server survived.
    pub fn is_alive(&self) -> bool {
        client::select_one_works(self.port())
    }
}
