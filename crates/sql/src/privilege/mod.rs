//! Accounts and privileges: the compiled snapshot every check reads, host matching, and
//! each session's resolved view of its own grants.
//!
//! The truth is in ordinary tables of the `mysql` database (`tables`), so it is logged and
//! recovered like any data. Account statements (`statement`, run by the session) change
//! those tables in a transaction and then compile them into a new `PrivilegeSnapshot`,
//! which `PrivilegeRegistry` publishes with one atomic swap and a new generation.
//!
//! Invariants:
//! (1) A snapshot is immutable; a change builds a new one and swaps it in
//!     (`PrivilegeRegistry::publish`), under the registry's writer mutex, after the
//!     change committed. Its generation is greater than every earlier one.
//! (2) A privilege check is one atomic load of the generation (its own cache line, written
//!     only by account statements) plus lookups in the session's own `SessionGrants`;
//!     nothing is written to shared memory per statement. A session whose cached
//!     generation differs rebuilds its `SessionGrants` before its next statement, so a
//!     GRANT or REVOKE takes effect at the next statement of every session.
//! (3) Login matching follows MySQL: accounts are ordered most specific host first, then
//!     named users before the anonymous user (''); the first account whose host and user
//!     match the client is the one it authenticates as (no fallback to later rows).
//! (4) Privilege checks happen before existence checks, so a user without access cannot
//!     probe which databases or tables exist (MariaDB reports 1142 for a missing table too).
//! (5) Column privileges are checked once, when a statement is bound: binding a table
//!     yields its `ColumnAccess` (nothing to check, and nothing allocated, when the table
//!     level covers what the statement does to columns), and every column the statement
//!     names is checked as it resolves: read -> SELECT, INSERT list -> INSERT, SET target
//!     -> UPDATE (1143); an implicit all-column list needs them on every column (1142).
//!     A prepared statement is re-bound, so re-checked, when the generation changes.
//! (6) information_schema is not granted: every session may read it, and no grant lets
//!     one change it (1044 for any privilege but SELECT), as in MariaDB.

pub mod statement;
pub mod tables;

use crate::engine::Engine;
use crate::error::{Error, ErrorCode, Result};
use crate::information_schema;
use crate::variables::like_matches;
use arc_swap::ArcSwap;
use crossbeam_utils::CachePadded;
use manycore_storage::RoutineKind;
use parking_lot::{Mutex, MutexGuard};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The user and host of a definer as views, routines and triggers keep it (`user@host`).
pub fn split_definer(definer: &str) -> (&str, &str) {
    definer.rsplit_once('@').unwrap_or((definer, "%"))
}

/// 1449: a definer account that does not exist.
pub fn no_such_definer(user: &str, host: &str) -> Error {
    Error::new(
        ErrorCode::NoSuchUser,
        format!("The user specified as a definer ('{user}'@'{host}') does not exist"),
    )
}

/// 1227: the statement needs one of the global privileges `names` (as MariaDB lists them,
/// comma-separated).
pub fn need_one_of(names: &str) -> Error {
    Error::new(
        ErrorCode::SpecificAccessDenied,
        format!(
            "Access denied; you need (at least one of) the {names} privilege(s) for this operation"
        ),
    )
}

/// A set of privileges, one bit each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Privileges(u32);

impl Privileges {
    pub const NONE: Privileges = Privileges(0);
    pub const SELECT: Privileges = Privileges(1 << 0);
    pub const INSERT: Privileges = Privileges(1 << 1);
    pub const UPDATE: Privileges = Privileges(1 << 2);
    pub const DELETE: Privileges = Privileges(1 << 3);
    pub const CREATE: Privileges = Privileges(1 << 4);
    pub const DROP: Privileges = Privileges(1 << 5);
    pub const RELOAD: Privileges = Privileges(1 << 6);
    pub const SHUTDOWN: Privileges = Privileges(1 << 7);
    pub const PROCESS: Privileges = Privileges(1 << 8);
    pub const GRANT: Privileges = Privileges(1 << 9);
    pub const INDEX: Privileges = Privileges(1 << 10);
    pub const ALTER: Privileges = Privileges(1 << 11);
    pub const SUPER: Privileges = Privileges(1 << 12);
    pub const CREATE_USER: Privileges = Privileges(1 << 13);
    /// Column level only (nothing references tables yet; it makes a column visible).
    pub const REFERENCES: Privileges = Privileges(1 << 14);
    /// Global level only: files on the server (`server_file`).
    pub const FILE: Privileges = Privileges(1 << 15);
    /// CALL a procedure, call a function (global and database levels; `routine`).
    pub const EXECUTE: Privileges = Privileges(1 << 16);
    pub const CREATE_ROUTINE: Privileges = Privileges(1 << 17);
    /// ALTER and DROP of a procedure or function.
    pub const ALTER_ROUTINE: Privileges = Privileges(1 << 18);
    /// CREATE and DROP TRIGGER on a table, and seeing its triggers; a trigger fires only
    /// while its definer holds it (`trigger`).
    pub const TRIGGER: Privileges = Privileges(1 << 19);
    /// CREATE and ALTER VIEW (with DROP for ALTER).
    pub const CREATE_VIEW: Privileges = Privileges(1 << 20);
    // Granted, revoked and shown, but guarding nothing manycore has (docs/security.md):
    // there are no temporary tables, table locks, replication, binary log, events,
    // tablespaces or system-versioned tables, SHOW CREATE VIEW needs some privilege on
    // the view, and SHOW DATABASES lists the databases the session holds privileges in.
    pub const SHOW_DATABASES: Privileges = Privileges(1 << 21);
    pub const CREATE_TMP_TABLE: Privileges = Privileges(1 << 22);
    pub const LOCK_TABLES: Privileges = Privileges(1 << 23);
    pub const REPL_SLAVE: Privileges = Privileges(1 << 24);
    /// REPLICATION CLIENT, which MariaDB names BINLOG MONITOR.
    pub const BINLOG_MONITOR: Privileges = Privileges(1 << 25);
    pub const SHOW_VIEW: Privileges = Privileges(1 << 26);
    pub const EVENT: Privileges = Privileges(1 << 27);
    pub const CREATE_TABLESPACE: Privileges = Privileges(1 << 28);
    pub const DELETE_HISTORY: Privileges = Privileges(1 << 29);

    /// What a column grant can hold, with its word in `Column_priv` (a SET's member).
    pub const COLUMN_NAMES: [(Privileges, &'static str, &'static str); 4] = [
        (Self::SELECT, "SELECT", "Select"),
        (Self::INSERT, "INSERT", "Insert"),
        (Self::UPDATE, "UPDATE", "Update"),
        (Self::REFERENCES, "REFERENCES", "References"),
    ];
    pub const COLUMN_LEVEL: Privileges =
        Privileges(Self::SELECT.0 | Self::INSERT.0 | Self::UPDATE.0 | Self::REFERENCES.0);

    /// What a table grant can hold (ALL at that level).
    pub const TABLE_LEVEL: Privileges = Privileges(
        Self::SELECT.0
            | Self::INSERT.0
            | Self::UPDATE.0
            | Self::DELETE.0
            | Self::CREATE.0
            | Self::DROP.0
            | Self::GRANT.0
            | Self::INDEX.0
            | Self::ALTER.0
            | Self::CREATE_VIEW.0
            | Self::SHOW_VIEW.0
            | Self::TRIGGER.0
            | Self::DELETE_HISTORY.0,
    );
    /// What a database grant can hold (ALL at that level): a table's, the routines', and
    /// those of temporary tables, locks and events.
    pub const DATABASE_LEVEL: Privileges = Privileges(
        Self::TABLE_LEVEL.0
            | Self::EXECUTE.0
            | Self::CREATE_ROUTINE.0
            | Self::ALTER_ROUTINE.0
            | Self::CREATE_TMP_TABLE.0
            | Self::LOCK_TABLES.0
            | Self::EVENT.0,
    );
    /// What a grant on one routine can hold (ALL there is EXECUTE and ALTER ROUTINE).
    pub const ROUTINE_LEVEL: Privileges =
        Privileges(Self::EXECUTE.0 | Self::ALTER_ROUTINE.0 | Self::GRANT.0);
    /// Every privilege (ALL at the global level).
    pub const GLOBAL_LEVEL: Privileges = Privileges(((1 << 30) - 1) & !Self::REFERENCES.0);

    pub fn contains(self, other: Privileges) -> bool {
        self.0 & other.0 == other.0
    }

    pub fn intersects(self, other: Privileges) -> bool {
        self.0 & other.0 != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn intersection(self, other: Privileges) -> Privileges {
        Privileges(self.0 & other.0)
    }

    pub fn without(self, other: Privileges) -> Privileges {
        Privileges(self.0 & !other.0)
    }

    /// The privilege's SQL name and its `mysql.user`/`mysql.db` column, in MariaDB's
    /// SHOW GRANTS order. GRANT OPTION is shown as WITH GRANT OPTION instead.
    pub const NAMES: [(Privileges, &'static str, &'static str); 29] = [
        (Self::SELECT, "SELECT", "Select_priv"),
        (Self::INSERT, "INSERT", "Insert_priv"),
        (Self::UPDATE, "UPDATE", "Update_priv"),
        (Self::DELETE, "DELETE", "Delete_priv"),
        (Self::CREATE, "CREATE", "Create_priv"),
        (Self::DROP, "DROP", "Drop_priv"),
        (Self::RELOAD, "RELOAD", "Reload_priv"),
        (Self::SHUTDOWN, "SHUTDOWN", "Shutdown_priv"),
        (Self::PROCESS, "PROCESS", "Process_priv"),
        (Self::FILE, "FILE", "File_priv"),
        (Self::GRANT, "GRANT OPTION", "Grant_priv"),
        (Self::INDEX, "INDEX", "Index_priv"),
        (Self::ALTER, "ALTER", "Alter_priv"),
        (Self::SHOW_DATABASES, "SHOW DATABASES", "Show_db_priv"),
        (Self::SUPER, "SUPER", "Super_priv"),
        (
            Self::CREATE_TMP_TABLE,
            "CREATE TEMPORARY TABLES",
            "Create_tmp_table_priv",
        ),
        (Self::LOCK_TABLES, "LOCK TABLES", "Lock_tables_priv"),
        (Self::EXECUTE, "EXECUTE", "Execute_priv"),
        (Self::REPL_SLAVE, "REPLICATION SLAVE", "Repl_slave_priv"),
        (Self::BINLOG_MONITOR, "BINLOG MONITOR", "Repl_client_priv"),
        (Self::CREATE_VIEW, "CREATE VIEW", "Create_view_priv"),
        (Self::SHOW_VIEW, "SHOW VIEW", "Show_view_priv"),
        (
            Self::CREATE_ROUTINE,
            "CREATE ROUTINE",
            "Create_routine_priv",
        ),
        (Self::ALTER_ROUTINE, "ALTER ROUTINE", "Alter_routine_priv"),
        (Self::CREATE_USER, "CREATE USER", "Create_user_priv"),
        (Self::EVENT, "EVENT", "Event_priv"),
        (Self::TRIGGER, "TRIGGER", "Trigger_priv"),
        (
            Self::CREATE_TABLESPACE,
            "CREATE TABLESPACE",
            "Create_tablespace_priv",
        ),
        (
            Self::DELETE_HISTORY,
            "DELETE HISTORY",
            "Delete_history_priv",
        ),
    ];

    /// Other names GRANT and REVOKE accept for a privilege, which SHOW GRANTS and the grant
    /// tables never use (MariaDB renamed REPLICATION CLIENT to BINLOG MONITOR in 10.5).
    const ALIASES: [(Privileges, &'static str); 1] = [(Self::BINLOG_MONITOR, "REPLICATION CLIENT")];

    /// Every name GRANT accepts for a privilege: its own, then its aliases.
    fn grantable_names() -> impl Iterator<Item = (Privileges, &'static str)> {
        Self::NAMES
            .iter()
            .map(|(p, name, _)| (*p, *name))
            .chain(Self::ALIASES)
    }

    /// One privilege by SQL name or alias (already upper-case, words joined by one space).
    pub fn from_name(name: &str) -> Option<Privileges> {
        Self::grantable_names()
            .find(|(_, n)| *n == name)
            .map(|(p, _)| p)
    }

    /// Whether `words` (upper-case, joined by one space) are a privilege's name or alias, or
    /// their first words.
    pub fn name_begins_with(words: &str) -> bool {
        Self::grantable_names().any(|(_, name)| {
            name.strip_prefix(words)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
        })
    }

    /// The SQL name of a single privilege (for error messages).
    pub fn name(self) -> &'static str {
        Self::NAMES
            .iter()
            .chain(&Self::COLUMN_NAMES)
            .find(|(p, _, _)| *p == self)
            .map_or("USAGE", |(_, n, _)| n)
    }

    /// The name of the first privilege (in SHOW GRANTS order) of `self` missing from `have`.
    fn first_missing(self, have: Privileges) -> &'static str {
        Self::NAMES
            .iter()
            .chain(&Self::COLUMN_NAMES)
            .find(|(p, _, _)| self.contains(*p) && !have.contains(*p))
            .map_or("SELECT", |(_, name, _)| name)
    }

    /// The names of the privileges set, GRANT OPTION left out.
    pub fn names(self) -> Vec<&'static str> {
        Self::NAMES
            .iter()
            .filter(|(p, _, _)| self.contains(*p) && *p != Self::GRANT)
            .map(|(_, n, _)| *n)
            .collect()
    }
}

impl std::ops::BitOr for Privileges {
    type Output = Privileges;
    fn bitor(self, other: Privileges) -> Privileges {
        Privileges(self.0 | other.0)
    }
}

impl std::ops::BitOrAssign for Privileges {
    fn bitor_assign(&mut self, other: Privileges) {
        self.0 |= other.0;
    }
}

/// The authentication plugin of an account and what `authentication_string` holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PasswordPlugin {
    /// "" or "*" + 40 hex digits: SHA1(SHA1(password)).
    NativePassword,
    /// "" or "$A$005$" + salt + SHA-256 crypt (`manycore_protocol::sha256_crypt`).
    CachingSha2Password,
}

impl PasswordPlugin {
    pub fn name(self) -> &'static str {
        match self {
            PasswordPlugin::NativePassword => "mysql_native_password",
            PasswordPlugin::CachingSha2Password => "caching_sha2_password",
        }
    }

    pub fn from_name(name: &str) -> Option<PasswordPlugin> {
        match name.to_ascii_lowercase().as_str() {
            "mysql_native_password" => Some(PasswordPlugin::NativePassword),
            "caching_sha2_password" => Some(PasswordPlugin::CachingSha2Password),
            _ => None,
        }
    }
}

/// One row of `mysql.user`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    pub user: String,
    pub host: String,
    pub plugin: PasswordPlugin,
    /// The stored form of the password; empty for an account without password.
    pub authentication: String,
    pub locked: bool,
    /// REQUIRE SSL: only a TLS connection may log in as this account.
    pub require_ssl: bool,
    pub global: Privileges,
}

impl Account {
    pub fn has_password(&self) -> bool {
        !self.authentication.is_empty()
    }

    /// `'user'@'host'`, as error messages quote accounts.
    pub fn quoted(&self) -> String {
        format!("'{}'@'{}'", self.user, self.host)
    }
}

/// One row of `mysql.db`: privileges on one database (the name may hold `%`/`_` wildcards).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatabaseGrant {
    pub user: String,
    pub host: String,
    pub db: String,
    pub privileges: Privileges,
}

/// One row of `mysql.tables_priv`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableGrant {
    pub user: String,
    pub host: String,
    pub db: String,
    pub table: String,
    pub privileges: Privileges,
}

/// One row of `mysql.columns_priv`: privileges on one column of one table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnGrant {
    pub user: String,
    pub host: String,
    pub db: String,
    pub table: String,
    /// As the GRANT wrote it (MariaDB keeps the case; checks ignore it).
    pub column: String,
    pub privileges: Privileges,
}

/// One row of `mysql.procs_priv`: privileges on one procedure or function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoutineGrant {
    pub user: String,
    pub host: String,
    pub db: String,
    pub kind: RoutineKind,
    /// As the GRANT wrote it (checks ignore its case, as routine names do).
    pub name: String,
    pub privileges: Privileges,
}

impl RoutineGrant {
    /// Whether it is a grant on routine `db`.`name` of `kind` (names compare as routine
    /// names do: `routine_key`).
    pub fn is_on(&self, db: &str, kind: RoutineKind, name: &str) -> bool {
        self.db == db
            && self.kind == kind
            && manycore_storage::routine_key(&self.name) == manycore_storage::routine_key(name)
    }
}

/// Where a client logs in from, as account host patterns see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientHost {
    /// A TCP client's address.
    Address(IpAddr),
    /// A client of the local socket: its host is `localhost`, and it has no address.
    Local,
}

impl ClientHost {
    /// On this machine: a loopback address or the local socket.
    pub fn is_local(self) -> bool {
        match self {
            ClientHost::Address(ip) => ip.is_loopback(),
            ClientHost::Local => true,
        }
    }
}

/// Whether a host pattern matches a client (invariant (3)). Host names are not resolved:
/// `localhost` means loopback or the local socket; everything else is matched against the
/// address text with `%`/`_` wildcards (MySQL with --skip-name-resolve), or for a local
/// socket client against the name `localhost`, so `%` matches it but `127.0.0.1` does not,
/// as in MariaDB.
pub fn host_matches(pattern: &str, client: ClientHost) -> bool {
    if pattern.eq_ignore_ascii_case("localhost") {
        return client.is_local();
    }
    let peer = match client {
        ClientHost::Address(ip) => ip,
        ClientHost::Local => return like_matches(pattern, "localhost"),
    };
    let address = match peer {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4).to_string(),
            None => v6.to_string(),
        },
        v4 => v4.to_string(),
    };
    like_matches(pattern, &address)
}

fn has_wildcard(text: &str) -> bool {
    text.contains(['%', '_'])
}

/// Sort key: most specific host first (no wildcard before wildcard, longer literal prefix
/// before shorter, `%` last), then named users before the anonymous user.
fn specificity(account: &Account) -> (bool, std::cmp::Reverse<usize>, bool) {
    let host = &account.host;
    let literal_prefix = host.find(['%', '_']).unwrap_or(host.len());
    (
        has_wildcard(host),
        std::cmp::Reverse(literal_prefix),
        account.user.is_empty(),
    )
}

/// The compiled grant tables (invariant (1)).
#[derive(Debug, Default)]
pub struct PrivilegeSnapshot {
    pub generation: u64,
    /// In login-match order (invariant (3)).
    accounts: Vec<Account>,
    databases: Vec<DatabaseGrant>,
    tables: Vec<TableGrant>,
    columns: Vec<ColumnGrant>,
    routines: Vec<RoutineGrant>,
}

impl PrivilegeSnapshot {
    pub fn new(
        mut accounts: Vec<Account>,
        databases: Vec<DatabaseGrant>,
        tables: Vec<TableGrant>,
        columns: Vec<ColumnGrant>,
        mut routines: Vec<RoutineGrant>,
    ) -> PrivilegeSnapshot {
        accounts.sort_by_key(specificity);
        // SHOW GRANTS's order: procedures, then functions.
        routines.sort_by(|a, b| (a.kind, &a.db, &a.name).cmp(&(b.kind, &b.db, &b.name)));
        PrivilegeSnapshot {
            generation: 0,
            accounts,
            databases,
            tables,
            columns,
            routines,
        }
    }

    pub fn accounts(&self) -> &[Account] {
        &self.accounts
    }

    /// The account a client logging in as `user` from `peer` authenticates as.
    pub fn find_login(&self, user: &str, peer: ClientHost) -> Option<&Account> {
        self.accounts
            .iter()
            .find(|a| (a.user == user || a.user.is_empty()) && host_matches(&a.host, peer))
    }

    /// The account named exactly `user`@`host` (host compared case-insensitively).
    pub fn account(&self, user: &str, host: &str) -> Option<&Account> {
        self.accounts
            .iter()
            .find(|a| a.user == user && a.host.eq_ignore_ascii_case(host))
    }

    pub fn database_grants(&self, user: &str, host: &str) -> Vec<&DatabaseGrant> {
        self.databases
            .iter()
            .filter(|g| g.user == user && g.host.eq_ignore_ascii_case(host))
            .collect()
    }

    pub fn table_grants(&self, user: &str, host: &str) -> Vec<&TableGrant> {
        self.tables
            .iter()
            .filter(|g| g.user == user && g.host.eq_ignore_ascii_case(host))
            .collect()
    }

    pub fn column_grants(&self, user: &str, host: &str) -> Vec<&ColumnGrant> {
        self.columns
            .iter()
            .filter(|g| g.user == user && g.host.eq_ignore_ascii_case(host))
            .collect()
    }

    pub fn routine_grants(&self, user: &str, host: &str) -> Vec<&RoutineGrant> {
        self.routines
            .iter()
            .filter(|g| g.user == user && g.host.eq_ignore_ascii_case(host))
            .collect()
    }

    /// The grants on routine `db`.`name` of `kind`, every account's.
    pub fn grants_on_routine(&self, db: &str, kind: RoutineKind, name: &str) -> Vec<&RoutineGrant> {
        self.routines
            .iter()
            .filter(|g| g.is_on(db, kind, name))
            .collect()
    }

    /// The first account without a password, if any (the non-loopback listen rule).
    pub fn passwordless_account(&self) -> Option<&Account> {
        self.accounts.iter().find(|a| !a.has_password())
    }

    /// Resolves one account's grants into the session's private lookup structure.
    pub fn grants_of(self: &Arc<Self>, user: &str, host: &str) -> SessionGrants {
        let snapshot = Some(Arc::clone(self));
        let Some(account) = self.account(user, host) else {
            return SessionGrants {
                generation: self.generation,
                snapshot,
                ..SessionGrants::default()
            };
        };
        let mut grants = SessionGrants {
            generation: self.generation,
            global: account.global,
            snapshot,
            ..SessionGrants::default()
        };
        for g in self.database_grants(user, host) {
            if has_wildcard(&g.db) {
                grants.database_patterns.push((g.db.clone(), g.privileges));
            } else {
                *grants.databases.entry(g.db.clone()).or_default() |= g.privileges;
            }
        }
        for g in self.table_grants(user, host) {
            grants.table_entry(&g.db, &g.table).privileges |= g.privileges;
        }
        let mut columns: HashMap<(&str, &str), TableColumns> = HashMap::new();
        for g in self.column_grants(user, host) {
            let table = columns.entry((&g.db, &g.table)).or_default();
            *table.columns.entry(g.column.to_lowercase()).or_default() |= g.privileges;
            table.any |= g.privileges;
        }
        for ((db, table), columns) in columns {
            grants.table_entry(db, table).columns = Some(Arc::new(columns));
        }
        for g in self.routine_grants(user, host) {
            let key = (g.db.clone(), g.kind, manycore_storage::routine_key(&g.name));
            *grants.routines.entry(key).or_default() |= g.privileges;
        }
        grants
    }
}

/// A session's privileges on one table: the table-level grant and its column grants.
#[derive(Clone, Debug, Default)]
struct TableEntry {
    privileges: Privileges,
    columns: Option<Arc<TableColumns>>,
}

/// One account's column grants on one table.
#[derive(Debug, Default)]
pub struct TableColumns {
    /// Lower-cased column name (column names compare case-insensitively) -> privileges.
    columns: HashMap<String, Privileges>,
    /// The union over the columns (MySQL's `Column_priv`).
    any: Privileges,
}

/// One session's grants, resolved for one snapshot generation (invariant (2)).
#[derive(Clone, Debug, Default)]
pub struct SessionGrants {
    pub generation: u64,
    /// Internal sessions (bootstrap) may do anything.
    unrestricted: bool,
    pub global: Privileges,
    databases: HashMap<String, Privileges>,
    database_patterns: Vec<(String, Privileges)>,
    tables: HashMap<String, HashMap<String, TableEntry>>,
    /// By database, kind and `routine_key`.
    routines: HashMap<(String, RoutineKind, String), Privileges>,
    /// The snapshot these were resolved from, where a SQL SECURITY DEFINER routine finds
    /// its definer's grants (`definer`).
    snapshot: Option<Arc<PrivilegeSnapshot>>,
}

impl SessionGrants {
    pub fn unrestricted() -> SessionGrants {
        SessionGrants {
            unrestricted: true,
            global: Privileges::GLOBAL_LEVEL,
            ..SessionGrants::default()
        }
    }

    pub fn global(&self, needed: Privileges) -> bool {
        self.unrestricted || self.global.contains(needed)
    }

    pub fn is_unrestricted(&self) -> bool {
        self.unrestricted
    }

    /// The grants of account `user`@`host` in the snapshot these were resolved from (None
    /// if it has no such account): what a SQL SECURITY DEFINER routine's body binds with
    /// (`routine`). An internal session's routines run unrestricted too.
    pub fn definer(&self, user: &str, host: &str) -> Option<SessionGrants> {
        if self.unrestricted {
            return Some(SessionGrants::unrestricted());
        }
        if !self.account_exists(user, host) {
            return None;
        }
        Some(self.snapshot.as_ref()?.grants_of(user, host))
    }

    /// Whether account `user`@`host` exists in the snapshot these were resolved from (an
    /// internal session, which has no snapshot, takes every account as existing).
    pub fn account_exists(&self, user: &str, host: &str) -> bool {
        self.unrestricted
            || self
                .snapshot
                .as_ref()
                .is_some_and(|s| s.account(user, host).is_some())
    }

    fn table_entry(&mut self, db: &str, table: &str) -> &mut TableEntry {
        self.tables
            .entry(db.to_string())
            .or_default()
            .entry(table.to_string())
            .or_default()
    }

    /// The table's column grants, if the session holds any.
    fn columns(&self, db: &str, table: &str) -> Option<&Arc<TableColumns>> {
        self.tables.get(db)?.get(table)?.columns.as_ref()
    }

    /// Privileges on database `db` from the global and database levels.
    pub fn database(&self, db: &str) -> Privileges {
        let mut p = self.global;
        if let Some(d) = self.databases.get(db) {
            p |= *d;
        }
        for (pattern, privileges) in &self.database_patterns {
            if like_matches(pattern, db) {
                p |= *privileges;
            }
        }
        p
    }

    /// Privileges on routine `db`.`name` of `kind` from every level.
    pub fn routine(&self, db: &str, kind: RoutineKind, name: &str) -> Privileges {
        if self.unrestricted {
            return Privileges::GLOBAL_LEVEL;
        }
        let own = self
            .routines
            .get(&(db.to_string(), kind, manycore_storage::routine_key(name)))
            .copied()
            .unwrap_or_default();
        self.database(db) | own
    }

    /// Privileges on `db`.`table` from every level.
    pub fn table(&self, db: &str, table: &str) -> Privileges {
        if self.unrestricted {
            return Privileges::GLOBAL_LEVEL;
        }
        let mut p = self.database(db);
        if let Some(t) = self.tables.get(db).and_then(|t| t.get(table)) {
            p |= t.privileges;
        }
        p
    }

    /// Whether the session holds some privilege on the table or one of its columns (SHOW
    /// TABLES lists it; SHOW COLUMNS and COM_FIELD_LIST may describe it).
    pub fn table_any(&self, db: &str, table: &str) -> bool {
        self.sees_all_tables(db)
            || self.table(db, table).intersects(Privileges::TABLE_LEVEL)
            || self.columns(db, table).is_some()
    }

    /// Whether the session may see column `column` of the table: some privilege on the
    /// table, or on the column (SHOW COLUMNS, COM_FIELD_LIST).
    pub fn sees_column(&self, db: &str, table: &str, column: &str) -> bool {
        self.sees_all_tables(db)
            || self.table(db, table).intersects(Privileges::TABLE_LEVEL)
            || self
                .columns(db, table)
                .is_some_and(|c| c.columns.contains_key(&column.to_lowercase()))
    }

    /// Whether the session may see database `db` at all (USE, SHOW DATABASES, SHOW TABLES).
    pub fn sees_database(&self, db: &str) -> bool {
        self.sees_all_tables(db)
            || self.database(db).intersects(Privileges::DATABASE_LEVEL)
            || self.tables.get(db).is_some_and(|t| !t.is_empty())
    }

    /// Whether the session sees every table of `db` (it holds a db- or global-level grant;
    /// everyone sees information_schema).
    pub fn sees_all_tables(&self, db: &str) -> bool {
        self.unrestricted
            || information_schema::is_name(db)
            || self.database(db).intersects(Privileges::TABLE_LEVEL)
    }
}

/// Compiles the grant tables into a new snapshot and publishes it (FLUSH PRIVILEGES,
/// startup). Err 1146 if a grant table is missing.
pub fn reload(engine: &Engine) -> Result<()> {
    let _writer = engine.privileges().lock_writer();
    reload_locked(engine)
}

/// `reload` for a caller that holds the registry's writer lock.
pub(crate) fn reload_locked(engine: &Engine) -> Result<()> {
    let storage = engine.storage();
    let tables = tables::GrantTables::open(&storage.catalog())?;
    let reader = storage.register_reader();
    let txn = storage.begin(&reader);
    let snapshot = tables.load(&txn);
    txn.rollback(); // Read-only.
    engine.privileges().publish(snapshot);
    Ok(())
}

/// A session's grants and how to name it in errors: what statements check against.
#[derive(Clone, Copy)]
pub struct AccessCheck<'a> {
    pub grants: &'a SessionGrants,
    /// `'user'@'host'` of the client, as MariaDB's 1142 and 1143 name it.
    pub quoted_user: &'a str,
    /// `'user'@'host'` of the account, as MariaDB's 1044 and 1370 name it.
    pub quoted_account: &'a str,
}

impl AccessCheck<'_> {
    /// information_schema may be read by everyone and changed by no one (invariant (6)).
    fn information_schema(&self, needed: Privileges) -> Result<()> {
        if Privileges::SELECT.contains(needed) {
            return Ok(());
        }
        Err(database_denied(
            self.quoted_account,
            information_schema::NAME,
        ))
    }

    /// 1142 unless the session holds every privilege of `needed` on `db`.`table`.
    pub fn table(&self, db: &str, table: &str, needed: Privileges) -> Result<()> {
        if information_schema::is_name(db) {
            return self.information_schema(needed);
        }
        if self.grants.global(needed) {
            return Ok(()); // The common case for administrators: one test, no lookups.
        }
        let have = self.grants.table(db, table);
        if have.contains(needed) {
            return Ok(());
        }
        Err(table_denied(
            needed.first_missing(have),
            self.quoted_user,
            db,
            table,
        ))
    }

    /// 1142 (naming SELECT) unless the session holds some privilege on the table or one
    /// of its columns (SHOW COLUMNS, SHOW INDEX, COM_FIELD_LIST).
    pub fn table_any(&self, db: &str, table: &str) -> Result<()> {
        if self.grants.table_any(db, table) {
            return Ok(());
        }
        Err(table_denied("SELECT", self.quoted_user, db, table))
    }

    /// 1142 naming `command` unless the session holds some privilege on the table itself
    /// (SHOW CREATE TABLE: column grants are not enough).
    pub fn table_level_any(&self, db: &str, table: &str, command: &str) -> Result<()> {
        if self.grants.sees_all_tables(db)
            || self
                .grants
                .table(db, table)
                .intersects(Privileges::TABLE_LEVEL)
        {
            return Ok(());
        }
        Err(table_denied(command, self.quoted_user, db, table))
    }

    /// Binding a table a statement uses: 1142 unless the session holds `needed` on the
    /// table, each privilege either on the table or on some of its columns; then what it
    /// may do with the columns, for the checks of `column_needs` on each column the
    /// statement names. Holding `column_needs` on the table (every administrator and
    /// table-level grantee) leaves nothing to check per column and allocates nothing.
    pub fn table_columns(
        &self,
        db: &str,
        table: &str,
        needed: Privileges,
        column_needs: Privileges,
    ) -> Result<ColumnAccess> {
        if information_schema::is_name(db) {
            return self
                .information_schema(needed | column_needs)
                .map(|()| ColumnAccess::default());
        }
        if self.grants.global(needed | column_needs) {
            return Ok(ColumnAccess::default());
        }
        let have = self.grants.table(db, table);
        if have.contains(needed | column_needs) {
            return Ok(ColumnAccess::default()); // Table grantees: no column lookup.
        }
        let columns = self.grants.columns(db, table);
        let column_any = columns.map_or(Privileges::NONE, |c| c.any);
        if !(have | column_any).contains(needed) {
            let missing = needed.first_missing(have | column_any);
            return Err(table_denied(missing, self.quoted_user, db, table));
        }
        Ok(ColumnAccess(Some(Arc::new(ColumnRestriction {
            table_level: have,
            columns: columns.cloned(),
            quoted_user: self.quoted_user.to_string(),
            db: db.to_string(),
            table: table.to_string(),
        }))))
    }

    /// 1044 unless the session holds `needed` on the database level.
    pub fn database(&self, db: &str, needed: Privileges) -> Result<()> {
        if information_schema::is_name(db) {
            return self.information_schema(needed);
        }
        if self.grants.global(needed) || self.grants.database(db).contains(needed) {
            return Ok(());
        }
        Err(database_denied(self.quoted_account, db))
    }

    /// 1370 unless the session holds `needed` on routine `db`.`name` of `kind`, from any
    /// level; the message names the first missing of EXECUTE, ALTER ROUTINE and GRANT
    /// OPTION, as MariaDB's does.
    pub fn routine(
        &self,
        db: &str,
        kind: RoutineKind,
        name: &str,
        needed: Privileges,
    ) -> Result<()> {
        if self.grants.global(needed) {
            return Ok(());
        }
        let have = self.grants.routine(db, kind, name);
        let command = [
            (Privileges::EXECUTE, "execute"),
            (Privileges::ALTER_ROUTINE, "alter routine"),
            (Privileges::GRANT, "grant"),
        ]
        .into_iter()
        .find(|(p, _)| needed.contains(*p) && !have.contains(*p));
        let Some((_, command)) = command else {
            return Ok(());
        };
        Err(Error::new(
            ErrorCode::ProcaccessDenied,
            format!(
                "{command} command denied to user {} for routine '{db}.{name}'",
                self.quoted_account
            ),
        ))
    }

    /// 1044 unless the session may see `db` (USE, SHOW TABLES).
    pub fn sees_database(&self, db: &str) -> Result<()> {
        if self.grants.sees_database(db) {
            return Ok(());
        }
        Err(database_denied(self.quoted_account, db))
    }

    /// 1227 unless the session holds the global privilege `needed`.
    pub fn global(&self, needed: Privileges) -> Result<()> {
        if self.grants.global(needed) {
            return Ok(());
        }
        Err(need_one_of(needed.name()))
    }
}

/// What a bound statement may do with the columns of one of its tables (None: whatever
/// it needs, the common case). Checked once, at bind time, for each column it names.
#[derive(Clone, Debug, Default)]
pub struct ColumnAccess(Option<Arc<ColumnRestriction>>);

#[derive(Debug)]
struct ColumnRestriction {
    /// From the global, database and table levels: held on every column.
    table_level: Privileges,
    columns: Option<Arc<TableColumns>>,
    quoted_user: String,
    db: String,
    table: String,
}

impl ColumnRestriction {
    fn held(&self, column: &str) -> Privileges {
        let own = self
            .columns
            .as_ref()
            .and_then(|c| c.columns.get(&column.to_lowercase()).copied())
            .unwrap_or_default();
        self.table_level | own
    }
}

impl ColumnAccess {
    /// 1143 unless the session holds `needed` on `column` (its schema name).
    pub fn check(&self, column: &str, needed: Privileges) -> Result<()> {
        let Some(r) = &self.0 else {
            return Ok(());
        };
        let held = r.held(column);
        if held.contains(needed) {
            return Ok(());
        }
        Err(Error::new(
            ErrorCode::ColumnAccessDenied,
            format!(
                "{} command denied to user {} for column '{column}' in table '{}'",
                needed.first_missing(held),
                r.quoted_user,
                r.table
            ),
        ))
    }

    /// For a statement naming every column implicitly (`SELECT *`, INSERT without a
    /// column list): 1142 on the table unless the session holds `needed` on all of them,
    /// naming no column (as MariaDB, so the error does not list columns one cannot see).
    pub fn check_all<'a>(
        &self,
        columns: impl IntoIterator<Item = &'a str>,
        needed: Privileges,
    ) -> Result<()> {
        let Some(r) = &self.0 else {
            return Ok(());
        };
        for column in columns {
            let held = r.held(column);
            if !held.contains(needed) {
                let missing = needed.first_missing(held);
                return Err(table_denied(missing, &r.quoted_user, &r.db, &r.table));
            }
        }
        Ok(())
    }
}

pub fn table_denied(command: &str, quoted_user: &str, db: &str, table: &str) -> Error {
    Error::new(
        ErrorCode::TableAccessDenied,
        format!("{command} command denied to user {quoted_user} for table `{db}`.`{table}`"),
    )
}

/// ER_ACCESS_DENIED_ERROR as MariaDB words it: the login refused, and the statements that
/// need a global privilege the account lacks (LOAD DATA INFILE, a global GRANT). `user`
/// and `host` name the account (the client's host at login); `using_password` is whether
/// the client sent one when it logged in.
pub fn access_denied(user: &str, host: &str, using_password: bool) -> Error {
    let using = if using_password { "YES" } else { "NO" };
    Error::new(
        ErrorCode::AccessDenied,
        format!("Access denied for user '{user}'@'{host}' (using password: {using})"),
    )
}

/// 1044, naming the account as MariaDB does (`'user'@'account host'`).
pub fn database_denied(quoted_account: &str, db: &str) -> Error {
    Error::new(
        ErrorCode::DbAccessDenied,
        format!("Access denied for user {quoted_account} to database '{db}'"),
    )
}

/// Where the current snapshot lives (invariants (1), (2)).
pub struct PrivilegeRegistry {
    snapshot: ArcSwap<PrivilegeSnapshot>,
    generation: CachePadded<AtomicU64>,
    writer: Mutex<()>,
}

impl Default for PrivilegeRegistry {
    fn default() -> Self {
        PrivilegeRegistry {
            snapshot: ArcSwap::from_pointee(PrivilegeSnapshot::default()),
            generation: CachePadded::new(AtomicU64::new(0)),
            writer: Mutex::new(()),
        }
    }
}

impl PrivilegeRegistry {
    /// The generation of the current snapshot: the per-statement check's one load.
    #[inline]
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    pub fn snapshot(&self) -> Arc<PrivilegeSnapshot> {
        self.snapshot.load_full()
    }

    /// Serializes account statements: change tables, commit, publish.
    pub fn lock_writer(&self) -> MutexGuard<'_, ()> {
        self.writer.lock()
    }

    /// Installs `snapshot` as the next generation. The caller holds the writer lock.
    pub fn publish(&self, mut snapshot: PrivilegeSnapshot) {
        let generation = self.generation.load(Ordering::Relaxed) + 1;
        snapshot.generation = generation;
        self.snapshot.store(Arc::new(snapshot));
        // After the store: a session that sees the new generation loads the new snapshot.
        self.generation.store(generation, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn account(user: &str, host: &str) -> Account {
        Account {
            user: user.into(),
            host: host.into(),
            plugin: PasswordPlugin::NativePassword,
            authentication: String::new(),
            locked: false,
            require_ssl: false,
            global: Privileges::NONE,
        }
    }

    #[test]
    fn login_matches_most_specific_host_then_named_user() {
        let snapshot = PrivilegeSnapshot::new(
            vec![
                account("", "%"),
                account("bob", "%"),
                account("bob", "10.0.%"),
                account("bob", "10.0.0.7"),
                account("", "localhost"),
                account("root", "localhost"),
            ],
            Vec::new(),
            Vec::new(),
            Vec::new(),
            Vec::new(),
        );
        let ip = |s: &str| ClientHost::Address(s.parse::<IpAddr>().expect("test address"));
        let found = |user, peer| {
            snapshot
                .find_login(user, ip(peer))
                .map(|a| (a.user.clone(), a.host.clone()))
        };
        assert_eq!(
            found("bob", "10.0.0.7"),
            Some(("bob".into(), "10.0.0.7".into()))
        );
        assert_eq!(
            found("bob", "10.0.0.8"),
            Some(("bob".into(), "10.0.%".into()))
        );
        assert_eq!(
            found("bob", "192.168.1.1"),
            Some(("bob".into(), "%".into()))
        );
        assert_eq!(found("eve", "192.168.1.1"), Some(("".into(), "%".into())));
        assert_eq!(
            found("root", "127.0.0.1"),
            Some(("root".into(), "localhost".into()))
        );
        // localhost rows come before '%': the anonymous localhost row wins for bob, as
        // in MySQL.
        assert_eq!(
            found("bob", "127.0.0.1"),
            Some(("".into(), "localhost".into()))
        );
        assert_eq!(found("root", "10.0.0.1"), Some(("".into(), "%".into())));
        assert!(host_matches("10.0.0._", ip("10.0.0.7")));
        assert!(!host_matches("localhost", ip("10.0.0.7")));
        assert!(host_matches("127.0.0.1", ip("::ffff:127.0.0.1")));
        // The local socket's client is `localhost` by name only.
        assert!(host_matches("localhost", ClientHost::Local));
        assert!(host_matches("%", ClientHost::Local));
        assert!(host_matches("local%", ClientHost::Local));
        assert!(!host_matches("127.0.0.1", ClientHost::Local));
        assert!(!host_matches("127.%", ClientHost::Local));
        assert_eq!(
            snapshot
                .find_login("bob", ClientHost::Local)
                .map(|a| a.host.as_str()),
            Some("localhost")
        );
    }

    #[test]
    fn session_grants_combine_levels() {
        let mut a = account("u", "%");
        a.global = Privileges::PROCESS;
        let snapshot = PrivilegeSnapshot::new(
            vec![a],
            vec![
                DatabaseGrant {
                    user: "u".into(),
                    host: "%".into(),
                    db: "d1".into(),
                    privileges: Privileges::INSERT,
                },
                DatabaseGrant {
                    user: "u".into(),
                    host: "%".into(),
                    db: "te_t%".into(),
                    privileges: Privileges::DELETE,
                },
            ],
            vec![TableGrant {
                user: "u".into(),
                host: "%".into(),
                db: "d2".into(),
                table: "t".into(),
                privileges: Privileges::SELECT,
            }],
            Vec::new(),
            vec![RoutineGrant {
                user: "u".into(),
                host: "%".into(),
                db: "d2".into(),
                kind: RoutineKind::Procedure,
                name: "Pay".into(),
                privileges: Privileges::EXECUTE,
            }],
        );
        let snapshot = Arc::new(snapshot);
        let g = snapshot.grants_of("u", "%");
        assert_eq!(g.table("d1", "x"), Privileges::PROCESS | Privileges::INSERT);
        assert_eq!(g.table("d2", "t"), Privileges::PROCESS | Privileges::SELECT);
        assert_eq!(g.table("d2", "u"), Privileges::PROCESS);
        assert!(g.table("test1", "x").contains(Privileges::DELETE));
        assert!(g.sees_database("d2") && !g.sees_all_tables("d2") && g.sees_all_tables("d1"));
        // A routine grant holds for its kind and name (in any case) only; the database
        // level adds to it.
        let (procedure, function) = (RoutineKind::Procedure, RoutineKind::Function);
        assert_eq!(
            g.routine("d2", procedure, "PAY"),
            Privileges::PROCESS | Privileges::EXECUTE
        );
        assert_eq!(g.routine("d2", function, "pay"), Privileges::PROCESS);
        assert_eq!(
            g.routine("d1", procedure, "pay"),
            Privileges::PROCESS | Privileges::INSERT
        );
        assert!(snapshot
            .grants_of("nobody", "%")
            .table("d1", "x")
            .is_empty());
    }

    #[test]
    fn column_grants_are_checked_per_column() {
        let column = |name: &str, privileges| ColumnGrant {
            user: "u".into(),
            host: "%".into(),
            db: "d".into(),
            table: "t".into(),
            column: name.into(),
            privileges,
        };
        let snapshot = PrivilegeSnapshot::new(
            vec![account("u", "%")],
            vec![],
            vec![TableGrant {
                user: "u".into(),
                host: "%".into(),
                db: "d".into(),
                table: "t".into(),
                privileges: Privileges::NONE,
            }],
            vec![
                column("A", Privileges::SELECT | Privileges::INSERT),
                column("b", Privileges::UPDATE),
            ],
            Vec::new(),
        );
        let grants = Arc::new(snapshot).grants_of("u", "%");
        let access = AccessCheck {
            grants: &grants,
            quoted_user: "'u'@'h'",
            quoted_account: "'u'@'%'",
        };
        assert!(grants.sees_database("d") && grants.table_any("d", "t"));
        assert!(grants.sees_column("d", "t", "a") && !grants.sees_column("d", "t", "c"));
        let message = |r: Result<()>| r.expect_err("denied").message;
        // DELETE has no column level: the table check fails.
        assert_eq!(
            message(
                access
                    .table_columns("d", "t", Privileges::DELETE, Privileges::SELECT)
                    .map(drop)
            ),
            "DELETE command denied to user 'u'@'h' for table `d`.`t`"
        );
        let select = access
            .table_columns("d", "t", Privileges::SELECT, Privileges::SELECT)
            .expect("SELECT on a column is enough for the table");
        select.check("a", Privileges::SELECT).expect("granted as A");
        assert_eq!(
            message(select.check("b", Privileges::SELECT)),
            "SELECT command denied to user 'u'@'h' for column 'b' in table 't'"
        );
        assert_eq!(
            message(select.check_all(["a", "b"], Privileges::SELECT)),
            "SELECT command denied to user 'u'@'h' for table `d`.`t`"
        );
        let update = access
            .table_columns("d", "t", Privileges::UPDATE, Privileges::UPDATE)
            .expect("UPDATE on b");
        update.check("b", Privileges::UPDATE).expect("granted");
        assert!(update.check("a", Privileges::UPDATE).is_err());
    }

    #[test]
    fn publish_bumps_the_generation() {
        let registry = PrivilegeRegistry::default();
        let before = registry.generation();
        registry.publish(PrivilegeSnapshot::new(
            vec![account("a", "%")],
            vec![],
            vec![],
            vec![],
            vec![],
        ));
        assert_eq!(registry.generation(), before + 1);
        assert_eq!(registry.snapshot().generation, before + 1);
        assert_eq!(registry.snapshot().accounts().len(), 1);
    }
}
