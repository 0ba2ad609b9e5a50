//! What every session shares: storage, global system variables, status counters, the
//! process list and the privilege snapshot.
//!
//! Invariants:
//! (1) The per-query path writes only the session's own worker shard of the status
//!     counters, the session's own counters (`SessionCounters`) and its own process-list
//!     entry; nothing here is a shared write per query.
//! (2) A process-list entry exists exactly as long as its `ProcessHandle`.
//! (3) KILL never blocks on the target: it sets the target's interrupt flag and calls its
//!     `on_kill` callback, which must itself not block.

use crate::privilege::PrivilegeRegistry;
use crate::user_lock::UserLocks;
use crate::variables::{self, VarMap};
use manycore_storage::Storage;
use manycore_sync::WorkerCounters;
use parking_lot::{Mutex, RwLock};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

pub struct EngineConfig {
    pub workers: usize,
    /// e.g. "10.11.99-MariaDB-manycore"
    pub server_version: String,
    pub data_dir: PathBuf,
    pub max_connections: u32,
    pub max_allowed_packet: u64,
    /// The directory server-side file statements may use, canonical (`server_file`); None
    /// refuses them all.
    pub secure_file_priv: Option<PathBuf>,
}

pub struct Engine {
    storage: Arc<Storage>,
    config: EngineConfig,
    /// Written only through `set_global`, which keeps `session_defaults` in step.
    pub(crate) globals: RwLock<VarMap>,
    /// `variables::session_defaults` of the globals, rebuilt by `set_global` (rare).
    session_defaults: RwLock<Arc<VarMap>>,
    status: Status,
    processlist: ProcessList,
    privileges: PrivilegeRegistry,
    /// GET_LOCK()'s locks (`user_lock`).
    user_locks: Arc<UserLocks>,
    started: Instant,
    /// What the next UUID_SHORT() returns (`next_uuid_short`).
    next_uuid_short: AtomicU64,
}

impl Engine {
    pub fn new(storage: Arc<Storage>, config: EngineConfig) -> Arc<Engine> {
        let mut data_dir = config.data_dir.display().to_string();
        if !data_dir.ends_with('/') {
            data_dir.push('/');
        }
        let hostname = std::fs::read_to_string("/etc/hostname")
            .map(|h| h.trim().to_string())
            .unwrap_or_else(|_| "localhost".to_string());
        let mut overrides = vec![
            ("version", config.server_version.clone()),
            ("datadir", data_dir),
            ("hostname", hostname),
            ("max_connections", config.max_connections.to_string()),
            ("max_allowed_packet", config.max_allowed_packet.to_string()),
        ];
        if let Some(dir) = &config.secure_file_priv {
            // Shown as MariaDB shows it, with a trailing '/'.
            let mut shown = dir.display().to_string();
            if !shown.ends_with('/') {
                shown.push('/');
            }
            overrides.push(("secure_file_priv", shown));
        }
        let globals = variables::initial_globals(&overrides);
        let workers = config.workers.max(1);
        // MariaDB's UUID_SHORT() base: server_id's low byte, then the startup time in
        // seconds, shifted left by 24 bits so that 2^24 calls per second stay unique.
        let server_id = match globals.get("server_id") {
            Some(manycore_types::Value::UInt(id)) => *id,
            Some(manycore_types::Value::Int(id)) => *id as u64,
            _ => 1,
        };
        let startup_seconds = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let uuid_short_base = ((server_id & 255) << 56).wrapping_add(startup_seconds << 24);
        Arc::new(Engine {
            storage,
            session_defaults: RwLock::new(Arc::new(variables::session_defaults(&globals))),
            globals: RwLock::new(globals),
            status: Status::new(workers),
            processlist: ProcessList::default(),
            privileges: PrivilegeRegistry::default(),
            user_locks: Arc::default(),
            started: Instant::now(),
            next_uuid_short: AtomicU64::new(uuid_short_base),
            config,
        })
    }

    pub fn storage(&self) -> &Arc<Storage> {
        &self.storage
    }

    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    pub fn status(&self) -> &Status {
        &self.status
    }

    pub fn processlist(&self) -> &ProcessList {
        &self.processlist
    }

    /// Accounts and grants: the snapshot privilege checks and logins read.
    pub fn privileges(&self) -> &PrivilegeRegistry {
        &self.privileges
    }

    pub(crate) fn user_locks(&self) -> &Arc<UserLocks> {
        &self.user_locks
    }

    /// UUID_SHORT(): a number unique across calls since startup (one shared atomic add:
    /// not on any hot path, and a counter is what the function is).
    pub fn next_uuid_short(&self) -> u64 {
        self.next_uuid_short.fetch_add(1, Ordering::Relaxed)
    }

    pub fn uptime_seconds(&self) -> u64 {
        self.started.elapsed().as_secs()
    }

    /// Sets a variable SQL cannot set (read-only ones such as `port` and `socket`), for
    /// the server at startup. Unknown names are ignored.
    pub fn set_server_variable(&self, name: &str, value: &str) {
        if let Some(def) = variables::lookup(name) {
            self.set_global(def.name, def.parse_default(value));
        }
    }

    /// Sets a global variable; sessions started from now on see it (SET GLOBAL).
    pub(crate) fn set_global(&self, name: &'static str, value: manycore_types::Value) {
        let mut globals = self.globals.write();
        globals.insert(name, value);
        // Under the globals' lock, so defaults are never published out of order.
        *self.session_defaults.write() = Arc::new(variables::session_defaults(&globals));
    }

    /// What a new (or reset) session's variables start from.
    pub(crate) fn session_variables(&self) -> variables::SessionVars {
        variables::SessionVars::new(self.session_defaults.read().clone())
    }

    pub fn global_variable(&self, name: &'static str) -> Option<manycore_types::Value> {
        self.globals.read().get(name).cloned()
    }
}

macro_rules! counters {
    ($($variant:ident = $name:literal,)*) => {
        /// Status counters kept per worker (`SHOW STATUS` names).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(usize)]
        pub enum Counter { $($variant,)* }

        impl Counter {
            pub const ALL: &'static [Counter] = &[$(Counter::$variant,)*];
            pub const COUNT: usize = Counter::ALL.len();

            pub fn name(self) -> &'static str {
                match self { $(Counter::$variant => $name,)* }
            }

            /// Whether only the server keeps this counter, so SHOW SESSION STATUS shows
            /// its global value (MariaDB's global-only status variables; the send
            /// ring's are the workers').
            #[inline]
            pub const fn is_global_only(self) -> bool {
                matches!(
                    self,
                    Counter::AbortedClients
                        | Counter::AbortedConnects
                        | Counter::Connections
                        | Counter::Queries
                        | Counter::SendRingSends
                        | Counter::SendRingSubmits
                        | Counter::SslAccepts
                        | Counter::SslFinishedAccepts
                )
            }
        }
    };
}

counters! {
    // First, together, what every query counts: its cells share a cache line or two
    // in a session's and a worker's counters. (Names order SHOW STATUS, not this.)
    BytesReceived = "Bytes_received",
    BytesSent = "Bytes_sent",
    ComSelect = "Com_select",
    ComStmtExecute = "Com_stmt_execute",
    HandlerReadKey = "Handler_read_key",
    Queries = "Queries",
    Questions = "Questions",
    AbortedClients = "Aborted_clients",
    AbortedConnects = "Aborted_connects",
    ComAlterDb = "Com_alter_db",
    ComAlterFunction = "Com_alter_function",
    ComAlterProcedure = "Com_alter_procedure",
    ComAlterTable = "Com_alter_table",
    ComAnalyze = "Com_analyze",
    ComCheck = "Com_check",
    ComGetDiagnostics = "Com_get_diagnostics",
    ComChecksum = "Com_checksum",
    ComOptimize = "Com_optimize",
    ComRepair = "Com_repair",
    ComBegin = "Com_begin",
    ComCallProcedure = "Com_call_procedure",
    ComChangeDb = "Com_change_db",
    ComCommit = "Com_commit",
    ComCreateDb = "Com_create_db",
    ComCreateFunction = "Com_create_function",
    ComCreateIndex = "Com_create_index",
    ComCreateProcedure = "Com_create_procedure",
    ComCreateTable = "Com_create_table",
    ComDeallocSql = "Com_dealloc_sql",
    ComDelete = "Com_delete",
    ComDo = "Com_do",
    ComDropDb = "Com_drop_db",
    ComDropFunction = "Com_drop_function",
    ComDropIndex = "Com_drop_index",
    ComDropProcedure = "Com_drop_procedure",
    ComDropTable = "Com_drop_table",
    ComExecuteSql = "Com_execute_sql",
    ComFlush = "Com_flush",
    ComInsert = "Com_insert",
    ComInsertSelect = "Com_insert_select",
    ComKill = "Com_kill",
    ComLoad = "Com_load",
    ComLockTables = "Com_lock_tables",
    ComPrepareSql = "Com_prepare_sql",
    ComReleaseSavepoint = "Com_release_savepoint",
    ComRenameTable = "Com_rename_table",
    ComReplace = "Com_replace",
    ComRollback = "Com_rollback",
    ComRollbackToSavepoint = "Com_rollback_to_savepoint",
    ComSavepoint = "Com_savepoint",
    ComSetOption = "Com_set_option",
    ComShowCharsets = "Com_show_charsets",
    ComShowCollations = "Com_show_collations",
    ComShowCreateDb = "Com_show_create_db",
    ComShowCreateTable = "Com_show_create_table",
    ComShowDatabases = "Com_show_databases",
    ComShowEngineMutex = "Com_show_engine_mutex",
    ComShowEngineStatus = "Com_show_engine_status",
    ComShowEngines = "Com_show_storage_engines",
    ComShowErrors = "Com_show_errors",
    ComShowEvents = "Com_show_events",
    ComShowFields = "Com_show_fields",
    ComShowKeys = "Com_show_keys",
    ComShowPackageBodyStatus = "Com_show_package_body_status",
    ComShowPackageStatus = "Com_show_package_status",
    ComShowProcesslist = "Com_show_processlist",
    ComShowStatus = "Com_show_status",
    ComShowStatusFunc = "Com_show_status_func",
    ComShowStatusProc = "Com_show_status_proc",
    ComShowTableStatus = "Com_show_table_status",
    ComShowTables = "Com_show_tables",
    ComShowTriggers = "Com_show_triggers",
    ComShowVariables = "Com_show_variables",
    ComShowWarnings = "Com_show_warnings",
    ComStmtClose = "Com_stmt_close",
    ComStmtPrepare = "Com_stmt_prepare",
    ComStmtReset = "Com_stmt_reset",
    ComTruncate = "Com_truncate",
    ComUnlockTables = "Com_unlock_tables",
    ComUpdate = "Com_update",
    Connections = "Connections",
    HandlerCommit = "Handler_commit",
    HandlerDelete = "Handler_delete",
    HandlerReadNext = "Handler_read_next",
    HandlerReadRndNext = "Handler_read_rnd_next",
    HandlerRollback = "Handler_rollback",
    HandlerUpdate = "Handler_update",
    HandlerWrite = "Handler_write",
    OpenedTables = "Opened_tables",
    // Text-protocol statements that ran a cached plan, and those whose shape had none
    // (manycore's own; MariaDB has no plan cache).
    PlanCacheHits = "Plan_cache_hits",
    PlanCacheMisses = "Plan_cache_misses",
    // Replies sent through a worker's io_uring send ring, and the system calls that
    // submitted them (manycore's own): their ratio is the batch size.
    SendRingSends = "Send_ring_sends",
    SendRingSubmits = "Send_ring_submits",
    SelectFullJoin = "Select_full_join",
    SelectRange = "Select_range",
    SelectScan = "Select_scan",
    SlowQueries = "Slow_queries",
    SortRows = "Sort_rows",
    SslAccepts = "Ssl_accepts",
    SslFinishedAccepts = "Ssl_finished_accepts",
}

/// Server status counters (invariant (1)).
pub struct Status {
    counters: WorkerCounters<{ Counter::COUNT }>,
    /// What FLUSH STATUS subtracts from each of `RESET_BY_FLUSH` (their shards only
    /// grow, and only their workers may write them).
    flushed: [AtomicU64; Status::RESET_BY_FLUSH.len()],
    max_used_connections: AtomicU64,
    /// When FLUSH STATUS last ran, in seconds of uptime.
    flushed_at: AtomicU64,
}

impl Status {
    /// The global-only counters FLUSH STATUS restarts from zero: those that are not
    /// cumulative, as in MariaDB.
    const RESET_BY_FLUSH: [Counter; 2] = [Counter::AbortedClients, Counter::AbortedConnects];

    fn new(workers: usize) -> Status {
        Status {
            counters: WorkerCounters::new(workers),
            flushed: std::array::from_fn(|_| AtomicU64::new(0)),
            max_used_connections: AtomicU64::new(0),
            flushed_at: AtomicU64::new(0),
        }
    }

    /// Adds `n` to `counter` in `worker`'s shard; only the thread running `worker` may
    /// call this (counters invariant (2)). Out-of-range workers share shards modulo the
    /// worker count (still sound, increments may be lost).
    #[inline]
    pub fn add(&self, worker: usize, counter: Counter, n: u64) {
        let worker = worker % self.counters.workers();
        self.counters.add(worker, counter as usize, n);
    }

    pub fn get(&self, counter: Counter) -> u64 {
        let flushed = Status::RESET_BY_FLUSH
            .iter()
            .position(|&reset| reset == counter)
            .map_or(0, |k| self.flushed[k].load(Ordering::Relaxed));
        self.counters.sum(counter as usize).saturating_sub(flushed)
    }

    /// FLUSH STATUS's share of the server's counters, as MariaDB's: `RESET_BY_FLUSH`
    /// restart from zero,
    /// Max_used_connections from the connections now open, Uptime_since_flush_status
    /// from now. The sessions' counters, and the global sums of them, are untouched.
    pub(crate) fn flush(&self, connected: usize, uptime_seconds: u64) {
        for (flushed, counter) in self.flushed.iter().zip(Status::RESET_BY_FLUSH) {
            flushed.store(self.counters.sum(counter as usize), Ordering::Relaxed);
        }
        self.max_used_connections
            .store(connected as u64, Ordering::Relaxed);
        self.flushed_at.store(uptime_seconds, Ordering::Relaxed);
    }

    /// Uptime_since_flush_status, given the uptime now.
    pub fn seconds_since_flush(&self, uptime_seconds: u64) -> u64 {
        uptime_seconds.saturating_sub(self.flushed_at.load(Ordering::Relaxed))
    }

    pub fn max_used_connections(&self) -> u64 {
        self.max_used_connections.load(Ordering::Relaxed)
    }
}

/// A session's own status counters (SHOW SESSION STATUS): written and read only by the
/// session's thread, so plain cells, beside the session's other state.
pub(crate) struct SessionCounters([Cell<u64>; Counter::COUNT]);

impl SessionCounters {
    pub(crate) fn new() -> SessionCounters {
        SessionCounters(std::array::from_fn(|_| Cell::new(0)))
    }

    #[inline]
    pub(crate) fn add(&self, counter: Counter, n: u64) {
        debug_assert!(
            !counter.is_global_only(),
            "{counter:?} is the server's only"
        );
        let cell = &self.0[counter as usize];
        cell.set(cell.get().wrapping_add(n));
    }

    /// The session's value, or the server's for a global-only counter.
    pub(crate) fn get(&self, counter: Counter, status: &Status) -> u64 {
        if counter.is_global_only() {
            status.get(counter)
        } else {
            self.0[counter as usize].get()
        }
    }

    /// FLUSH STATUS: the session's counters restart from zero.
    pub(crate) fn reset(&self) {
        self.0.iter().for_each(|c| c.set(0));
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KillKind {
    Query,
    Connection,
}

/// A TLS connection's protocol and cipher suite, as OpenSSL names them ("TLSv1.3",
/// "TLS_AES_256_GCM_SHA384"): what SHOW STATUS shows as `Ssl_version` and `Ssl_cipher`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TlsInfo {
    pub version: &'static str,
    pub cipher: &'static str,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectionInfo {
    pub id: u32,
    pub user: String,
    /// "localhost" or "127.0.0.1:port", as SHOW PROCESSLIST shows it.
    pub host: String,
    /// The host part of the account the client authenticated as (`mysql.user.Host`, e.g.
    /// "localhost" or "%"): CURRENT_USER() and every privilege check use it.
    pub account_host: String,
    /// Whether the client sent a password when it logged in: 1045 messages say so.
    pub using_password: bool,
    pub worker: usize,
    /// The operating-system thread serving the connection (PROCESSLIST's TID, as in
    /// MariaDB): its worker's thread, shared by all of the worker's connections.
    pub thread_id: u64,
    pub database: Option<String>,
}

/// What SHOW PROCESSLIST shows of one connection, and how to interrupt it.
pub struct ProcessEntry {
    pub id: u32,
    thread_id: u64,
    state: Mutex<ProcessState>,
    interrupted: AtomicBool,
    on_kill: Box<dyn Fn(KillKind) + Send + Sync>,
}

struct ProcessState {
    user: String,
    host: String,
    database: Option<String>,
    command: &'static str,
    /// What the statement does, where it says more than "executing" ("User sleep").
    activity: &'static str,
    /// The statement running, reusing its buffer between statements.
    info: String,
    has_info: bool,
    /// When `command` began. A coarse clock (CLOCK_MONOTONIC_COARSE, a few ms of
    /// resolution for a column shown in seconds): it is read twice per statement.
    since: coarsetime::Instant,
}

/// One row of SHOW PROCESSLIST.
#[derive(Clone, Debug)]
pub struct ProcessRow {
    pub id: u32,
    pub user: String,
    pub host: String,
    pub database: Option<String>,
    pub command: &'static str,
    pub time_seconds: u64,
    /// SHOW PROCESSLIST's State: "" when idle, else what the statement does.
    pub state: &'static str,
    pub info: Option<String>,
    pub thread_id: u64,
}

impl ProcessEntry {
    pub(crate) fn set_command(&self, command: &'static str) {
        let mut state = self.state.lock();
        state.command = command;
        state.activity = "";
        state.since = coarsetime::Instant::now();
        if command != "Query" && command != "Execute" {
            state.has_info = false;
        }
    }

    /// A statement starts: `command` is "Query" (COM_QUERY) or "Execute" (COM_STMT_EXECUTE).
    pub(crate) fn set_query(&self, command: &'static str, text: &str) {
        let mut state = self.state.lock();
        state.info.clear();
        state.info.push_str(text);
        state.has_info = true;
        state.command = command;
        state.activity = "";
        state.since = coarsetime::Instant::now();
    }

    /// The running statement now does `activity` (shown as State); "" for "executing".
    pub(crate) fn set_activity(&self, activity: &'static str) {
        self.state.lock().activity = activity;
    }

    pub(crate) fn set_identity(&self, user: &str, host: &str, database: Option<&str>) {
        let mut state = self.state.lock();
        state.user = user.to_string();
        state.host = host.to_string();
        state.database = database.map(str::to_string);
    }

    pub(crate) fn set_database(&self, database: Option<&str>) {
        self.state.lock().database = database.map(str::to_string);
    }

    /// True once if a KILL QUERY/CONNECTION arrived since the last `clear_interrupt`.
    pub(crate) fn interrupted(&self) -> bool {
        self.interrupted.load(Ordering::Relaxed)
    }

    pub(crate) fn clear_interrupt(&self) {
        if self.interrupted.load(Ordering::Relaxed) {
            self.interrupted.store(false, Ordering::Relaxed);
        }
    }

    fn row(&self) -> ProcessRow {
        let state = self.state.lock();
        ProcessRow {
            id: self.id,
            user: state.user.clone(),
            host: state.host.clone(),
            database: state.database.clone(),
            command: state.command,
            time_seconds: state.since.elapsed().as_secs(),
            state: match (state.command, state.activity) {
                ("Sleep", _) => "",
                (_, "") => "executing",
                (_, activity) => activity,
            },
            info: state.has_info.then(|| state.info.clone()),
            thread_id: self.thread_id,
        }
    }
}

/// Connections by id (cold path: connect, disconnect, SHOW PROCESSLIST, KILL).
#[derive(Default)]
pub struct ProcessList {
    entries: Arc<Mutex<BTreeMap<u32, Arc<ProcessEntry>>>>,
}

/// Registration in the process list; unregisters on drop (invariant (2)).
pub struct ProcessHandle {
    entries: Arc<Mutex<BTreeMap<u32, Arc<ProcessEntry>>>>,
    entry: Arc<ProcessEntry>,
}

impl ProcessHandle {
    pub fn entry(&self) -> &Arc<ProcessEntry> {
        &self.entry
    }
}

impl Drop for ProcessHandle {
    fn drop(&mut self) {
        let mut entries = self.entries.lock();
        if entries
            .get(&self.entry.id)
            .is_some_and(|e| Arc::ptr_eq(e, &self.entry))
        {
            entries.remove(&self.entry.id);
        }
    }
}

impl ProcessList {
    pub fn register(
        &self,
        info: &ConnectionInfo,
        on_kill: Box<dyn Fn(KillKind) + Send + Sync>,
    ) -> ProcessHandle {
        let entry = Arc::new(ProcessEntry {
            id: info.id,
            thread_id: info.thread_id,
            state: Mutex::new(ProcessState {
                user: info.user.clone(),
                host: info.host.clone(),
                database: info.database.clone(),
                command: "Sleep",
                activity: "",
                info: String::new(),
                has_info: false,
                since: coarsetime::Instant::now(),
            }),
            interrupted: AtomicBool::new(false),
            on_kill,
        });
        self.entries.lock().insert(info.id, entry.clone());
        ProcessHandle {
            entries: self.entries.clone(),
            entry,
        }
    }

    pub fn len(&self) -> usize {
        self.entries.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Connections running a command other than Sleep.
    pub fn running(&self) -> usize {
        let entries: Vec<_> = self.entries.lock().values().cloned().collect();
        entries
            .iter()
            .filter(|e| e.state.lock().command != "Sleep")
            .count()
    }

    pub fn rows(&self) -> Vec<ProcessRow> {
        let entries: Vec<_> = self.entries.lock().values().cloned().collect();
        entries.iter().map(|e| e.row()).collect()
    }

    /// The user name connection `id` logged in with, if it exists (KILL's owner check).
    pub fn user_of(&self, id: u32) -> Option<String> {
        let entry = self.entries.lock().get(&id).cloned();
        entry.map(|e| e.state.lock().user.clone())
    }

    /// Interrupts connection `id` (invariant (3)). False if there is no such connection.
    pub fn kill(&self, id: u32, kind: KillKind) -> bool {
        let entry = self.entries.lock().get(&id).cloned();
        match entry {
            Some(entry) => {
                entry.interrupted.store(true, Ordering::Relaxed);
                (entry.on_kill)(kind);
                true
            }
            None => false,
        }
    }
}

impl Status {
    pub(crate) fn observe_connections(&self, connected: usize) {
        self.max_used_connections
            .fetch_max(connected as u64, Ordering::Relaxed);
    }
}
