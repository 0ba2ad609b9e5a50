//! A connection's SQL state and the entry points the server calls.
//!
//! Transactions: in autocommit mode each statement runs in its own storage transaction
//! (a read takes only a snapshot). BEGIN or autocommit=0 opens a session transaction whose
//! storage transaction starts lazily at the first statement that touches data (InnoDB
//! takes its REPEATABLE READ snapshot at the first read too), unless WITH CONSISTENT
//! SNAPSHOT asks for it at once.
//!
//! Invariants:
//! (1) Each statement inside a transaction runs under a storage savepoint; a failed
//!     statement is rolled back to it and the transaction continues, except a write
//!     conflict (1213), which rolls the whole transaction back (crate invariant (2)).
//! (2) DDL, LOCK TABLES and SET autocommit=1 commit an open transaction first.
//! (3) Warnings belong to the last statement that is not SHOW WARNINGS/ERRORS; a failed
//!     statement leaves its error as the list's last entry.
//! (4) A statement that must wait is undone (to its savepoint, with its user variable
//!     assignments and what it sent) and returns an error with `wait` set while
//!     `Session::wait` is armed; the server awaits the wait (never blocking its worker
//!     thread) and calls `resume`, which runs that statement and the rest of its batch
//!     again. It waits for a row held by another transaction (waiting in a cycle is a
//!     deadlock: 1213, whole transaction rolled back; waiting past
//!     innodb_lock_wait_timeout is 1205), for the end of a transaction holding a row of a
//!     table DDL would rebuild, rename, truncate or drop (DDL holds no row, so it closes
//!     no cycle; waiting past lock_wait_timeout is 1205), for SLEEP(): a statement whose
//!     SLEEP calls asked for more than the server already slept for it waits for the
//!     difference, and its next run finds its SLEEP calls slept, or for a user lock
//!     GET_LOCK() found held (`user_lock`): the next run's call answers 1 if it takes the
//!     lock, 0 past its timeout, NULL after KILL QUERY, which ends the other waits with
//!     1317.

mod accounts;
mod load_data;
mod locking_read;
mod routines;
mod select_into;
mod temporary;
mod triggers;
mod views;

use crate::ddl::KeyKind;
use crate::dml::{self, DeletePlan, InsertPlan, UpdatePlan};
use crate::engine::{
    ConnectionInfo, Counter, Engine, KillKind, ProcessEntry, ProcessHandle, SessionCounters,
    TlsInfo,
};
use crate::error::{Condition, Error, ErrorCode, Result, WaitFor};
use crate::exec::{self, ExecContext};
use crate::expr::{EvalContext, SessionContext, TimeZone, VarScope};
use crate::information_schema::{self, RowSource, SystemTable};
use crate::maintenance::{self, Operation};
use crate::multi_table::{self, MultiDeletePlan, MultiUpdatePlan};
use crate::parse::{self, Statement, StoredObjects};
use crate::plan_cache::{BindGeneration, CachedPlan, Lookup, TextPlans};
use crate::privilege::{self, AccessCheck, ColumnAccess, Privileges, SessionGrants};
use crate::scope::{Alias, BindScope, Parameters, SourceTable};
use crate::select::{self, BindContext, SelectPlan};
use crate::show::{self, Rows};
use crate::sink::{
    ColumnInfo, Columns, OkInfo, PreparedInfo, ResultSink, SERVER_STATUS_AUTOCOMMIT,
    SERVER_STATUS_IN_TRANS,
};
use crate::split;
use crate::temporary::TemporaryTables;
use crate::user_lock::{StatementLocks, UserLockCall, UserLockWait, WaitOutcome};
use crate::variables::{self, SessionVars, VarScopeKind};
use manycore_storage::{
    LockWait, ReaderSlot, RoutineKind, Savepoint, StorageError, Table, TableRename, Transaction,
};
use manycore_types::{Collation, DataType, DateTime, Value};
use sqlparser::ast;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// Most warnings kept per statement (max_error_count's default).
pub const WARNINGS_MAX: usize = 64;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    pub level: &'static str,
    pub code: u16,
    /// What GET DIAGNOSTICS reads as RETURNED_SQLSTATE.
    pub sqlstate: String,
    pub message: String,
}

/// What a statement did, for its OK packet.
#[derive(Clone, Debug, PartialEq)]
pub enum StatementOutcome {
    /// A result set was sent.
    ResultSet,
    Affected {
        rows: u64,
        last_insert_id: u64,
    },
    /// An INSERT that generated AUTO_INCREMENT values; `generated` is the first.
    Inserted {
        rows: u64,
        generated: u64,
        last_insert_id: u64,
    },
    Update {
        matched: u64,
        changed: u64,
    },
    /// A table change that reports "Records: .. Duplicates: .. Warnings: .." (CREATE/DROP
    /// INDEX and ALTER TABLE, which change no rows).
    Records {
        records: u64,
        duplicates: u64,
    },
    /// A multi-row INSERT or REPLACE, or INSERT ... SELECT: its OK packet carries
    /// "Records: N  Duplicates: D  Warnings: W" (single-row inserts send no info).
    InsertedRows {
        rows: u64,
        /// The first AUTO_INCREMENT value generated, if any.
        generated: Option<u64>,
        last_insert_id: u64,
        records: u64,
        duplicates: u64,
    },
    /// LOAD DATA: its OK packet carries "Records: R  Deleted: D  Skipped: S  Warnings: W".
    Loaded {
        rows: u64,
        /// The first AUTO_INCREMENT value generated, if any.
        generated: Option<u64>,
        records: u64,
        deleted: u64,
        skipped: u64,
    },
    /// INSERT/REPLACE/DELETE ... RETURNING: the rows to send as a result set.
    Returned {
        columns: Columns,
        rows: Vec<Vec<Value>>,
    },
    /// PREPARE's OK: "Statement prepared".
    Prepared,
}

impl StatementOutcome {
    fn ok() -> StatementOutcome {
        StatementOutcome::Affected {
            rows: 0,
            last_insert_id: 0,
        }
    }

    /// The first AUTO_INCREMENT value it generated: what LAST_INSERT_ID() returns after it.
    pub(crate) fn generated_id(&self) -> Option<u64> {
        match self {
            StatementOutcome::Inserted { generated, .. } => Some(*generated),
            StatementOutcome::InsertedRows { generated, .. }
            | StatementOutcome::Loaded { generated, .. } => *generated,
            _ => None,
        }
    }

    /// The rows it wrote, as a CALL sums them: an UPDATE's changed rows.
    pub(crate) fn affected_rows(&self) -> u64 {
        match self {
            StatementOutcome::Affected { rows, .. }
            | StatementOutcome::Inserted { rows, .. }
            | StatementOutcome::InsertedRows { rows, .. }
            | StatementOutcome::Loaded { rows, .. } => *rows,
            StatementOutcome::Update { changed, .. } => *changed,
            StatementOutcome::Returned { rows, .. } => rows.len() as u64,
            StatementOutcome::ResultSet
            | StatementOutcome::Records { .. }
            | StatementOutcome::Prepared => 0,
        }
    }
}

/// The session state expressions may read (`SessionContext`); separate from the
/// transaction so a statement can borrow both.
pub(crate) struct SessionState {
    engine: Arc<Engine>,
    id: u32,
    worker: usize,
    user: String,
    host: String,
    /// `account_user@account_host`: CURRENT_USER().
    current_user: String,
    /// `user@client host`: USER().
    login_user: String,
    /// `'user'@'client host'`, as denial messages name the session.
    quoted_user: String,
    /// `'user'@'account host'`, as MariaDB's 1044 and 1370 name the session.
    quoted_account: String,
    /// The account authenticated as (`mysql.user` key; the user may be '' (anonymous)).
    account_user: String,
    account_host: String,
    /// Whether the login sent a password ("using password: YES" in 1045 messages).
    using_password: bool,
    /// This session's resolved grants (privilege invariant (2)).
    grants: SessionGrants,
    database: Option<String>,
    vars: SessionVars,
    /// User variables by lower-case name; `@x := v` sets them while a statement runs.
    user_vars: RefCell<HashMap<String, Value>>,
    /// What the running statement's assignments replaced, oldest first: put back when
    /// the statement is undone to wait (invariant (4)).
    user_vars_before: RefCell<Vec<(String, Option<Value>)>>,
    warnings: RefCell<Vec<Warning>>,
    /// Warnings in the list, including those beyond WARNINGS_MAX (@@warning_count).
    warning_total: Cell<usize>,
    /// Warnings the running statement raised (the count its OK/EOF packet carries).
    statement_warnings: Cell<usize>,
    /// Whether the list holds the running statement's conditions; the first condition a
    /// statement raises replaces an older list (invariant (3)).
    warnings_current: Cell<bool>,
    /// The conditions of running stored-program bodies, innermost last
    /// (`SessionContext::begin_conditions`): they do not reach the statement's list.
    kept_conditions: RefCell<Vec<Vec<Condition>>>,
    last_insert_id: Cell<u64>,
    autocommit: bool,
    strict: bool,
    /// `time_zone`, parsed once per SET (the variable holds its normalized name).
    time_zone: TimeZone,
    /// foreign_key_checks, cached like `strict` (read by every write to a table with
    /// foreign keys).
    foreign_key_checks: bool,
    statement_time: Cell<Option<DateTime>>,
    waits: StatementWaits,
    found_rows: Cell<u64>,
    row_count: Cell<i64>,
    in_transaction: Cell<bool>,
    /// The connection's TLS parameters; None on a plain connection (SHOW STATUS LIKE
    /// 'Ssl%').
    tls: Option<TlsInfo>,
    /// SHOW SESSION STATUS's counters.
    counters: SessionCounters,
    /// The routines and triggers running, which recursive CALLs read.
    running_routines: crate::routine::RunningRoutines,
    /// CREATE TEMPORARY TABLE's tables (`temporary`).
    temporary: TemporaryTables,
}

impl SessionState {
    /// Adds `n` to `counter`, the session's and its worker's (engine invariant (1)).
    #[inline]
    fn count(&self, counter: Counter, n: u64) {
        self.engine.status().add(self.worker, counter, n);
        // A global-only counter's session cell would never be read.
        if !counter.is_global_only() {
            self.counters.add(counter, n);
        }
    }

    /// What the plans bound now depend on besides the catalog (`plan_cache::BindGeneration`).
    fn bind_generation(&self) -> BindGeneration {
        BindGeneration {
            grants: self.grants.generation,
            temporary: self.temporary.generation(),
        }
    }

    /// The text of a session variable, as CREATE TRIGGER and PROCEDURE record it.
    fn system_variable_text(&self, name: &str) -> Result<String> {
        let value = self.system_variable(name, VarScope::Session)?;
        Ok(manycore_types::format::to_text(&value, &DataType::Null))
    }

    /// The DEFINER a CREATE of a view, routine or trigger gave (`user@host`), or the
    /// current user's for none or CURRENT_USER. Naming another account needs SUPER (1227:
    /// the object runs with its definer's privileges); one that does not exist is a note
    /// (1449), as in MariaDB.
    fn definer_to_create(&self, written: Option<&str>) -> Result<String> {
        let definer = match written {
            Some(d)
                if !d.eq_ignore_ascii_case("CURRENT_USER")
                    && !d.eq_ignore_ascii_case("CURRENT_USER()") =>
            {
                d.to_string()
            }
            _ => return Ok(self.current_user.clone()),
        };
        if definer == self.current_user {
            return Ok(definer);
        }
        if !self.grants.global(Privileges::SUPER) {
            return Err(privilege::need_one_of("SUPER, SET USER"));
        }
        let (user, host) = privilege::split_definer(&definer);
        if !self.grants.account_exists(user, host) {
            let e = privilege::no_such_definer(user, host);
            self.note(e.code, e.message);
        }
        Ok(definer)
    }

    /// Puts back the user variables the running statement assigned (invariant (4)).
    fn undo_user_variables(&self) {
        let mut vars = self.user_vars.borrow_mut();
        for (name, before) in self.user_vars_before.borrow_mut().drain(..).rev() {
            match before {
                Some(value) => vars.insert(name, value),
                None => vars.remove(&name),
            };
        }
    }

    /// The name database `db` is entered by (USE, COM_INIT_DB, a login's database): 1044
    /// if the session may not see it (checked first: privilege invariant (4)), 1049 if
    /// there is none; information_schema in any letter case is `information_schema`.
    fn enterable_database(&self, db: &str) -> Result<String> {
        self.access().sees_database(db)?;
        if !information_schema::database_exists(&self.engine.storage().catalog(), db) {
            return Err(Error::bad_db(db));
        }
        Ok(information_schema::canonical_database(db).to_string())
    }

    /// What information_schema's rows are made from for this session.
    fn row_source(&self) -> RowSource<'_> {
        RowSource {
            engine: &self.engine,
            grants: &self.grants,
            user: &self.user,
            time_zone: self.time_zone,
            session: self,
        }
    }

    pub(crate) fn tls(&self) -> Option<TlsInfo> {
        self.tls
    }

    pub(crate) fn counters(&self) -> &SessionCounters {
        &self.counters
    }

    fn bind_context<'a>(
        &'a self,
        catalog: &'a manycore_storage::Catalog,
        text: &'a str,
        parameters: &'a Parameters,
    ) -> BindContext<'a> {
        BindContext {
            catalog,
            database: self.database.as_deref(),
            text,
            parameters,
            access: self.access(),
            outer: None,
            subquery_tables: Default::default(),
            ctes: None,
            calling: &[],
            temporary: &self.temporary,
        }
    }

    /// View `db.view`'s result columns, as a table without rows: what DESCRIBE, SHOW
    /// COLUMNS and information_schema.COLUMNS show of it. Binding it checks what the
    /// session may read through it, as a SELECT of the view would.
    pub(crate) fn view_table(
        &self,
        catalog: &manycore_storage::Catalog,
        db: &str,
        view: &manycore_storage::ViewSchema,
    ) -> Result<manycore_storage::Table> {
        let parameters = Parameters::untyped();
        let cx = self.bind_context(catalog, &view.query, &parameters);
        crate::view::columns_table(&cx, db, view)
    }

    /// SHOW [GLOBAL] VARIABLES's rows (name, value as text), in name order; also
    /// information_schema's GLOBAL_VARIABLES and SESSION_VARIABLES.
    pub(crate) fn variable_rows(&self, global: bool) -> Vec<Vec<Value>> {
        let globals = self.engine.globals.read().clone();
        let mut rows: Vec<Vec<Value>> = Vec::new();
        for def in variables::VARIABLES {
            let value = if global || def.scope == VarScopeKind::Global {
                globals.get(def.name)
            } else {
                self.vars.get(def.name)
            };
            let Some(value) = value else { continue };
            rows.push(vec![show::text(def.name), show::text(&def.show(value))]);
        }
        if !global {
            for name in [
                "in_transaction",
                "warning_count",
                "error_count",
                "last_insert_id",
                "identity",
                "insert_id",
                "pseudo_thread_id",
            ] {
                if let Some(v) = self.computed(name) {
                    rows.push(vec![
                        show::text(name),
                        show::text(&variables::value_text(&v)),
                    ]);
                }
            }
            rows.sort_by(|a, b| a[0].as_bytes().cmp(&b[0].as_bytes()));
        }
        rows
    }

    pub(crate) fn access(&self) -> AccessCheck<'_> {
        AccessCheck {
            grants: &self.grants,
            quoted_user: &self.quoted_user,
            quoted_account: &self.quoted_account,
        }
    }

    /// 1045 for a statement that needs a global privilege the account lacks: MariaDB
    /// names the account (not the client's host) and whether the login used a password.
    fn access_denied(&self) -> Error {
        privilege::access_denied(&self.account_user, &self.account_host, self.using_password)
    }

    /// Sets who the session is: login name, client host, the account matched, and
    /// whether the login sent a password.
    fn set_identity(
        &mut self,
        user: String,
        host: String,
        account_host: String,
        using_password: bool,
    ) {
        let host_only = host.split(':').next().unwrap_or("").to_string();
        self.login_user = format!("{user}@{host_only}");
        self.quoted_user = format!("'{user}'@'{host_only}'");
        self.quoted_account = format!("'{user}'@'{account_host}'");
        self.account_user = user.clone();
        self.current_user = format!("{user}@{account_host}");
        self.account_host = account_host;
        self.using_password = using_password;
        self.user = user;
        self.host = host;
        if !self.grants.is_unrestricted() {
            self.grants = SessionGrants::default();
            self.grants.generation = u64::MAX; // Resolved before the next statement.
        }
    }

    /// Re-resolves the session's grants if an account statement published a new snapshot
    /// since (privilege invariant (2): one atomic load when nothing changed).
    fn refresh_grants(&mut self) {
        let registry = self.engine.privileges();
        if self.grants.is_unrestricted() || registry.generation() == self.grants.generation {
            return;
        }
        let snapshot = registry.snapshot();
        self.grants = snapshot.grants_of(&self.account_user, &self.account_host);
    }

    fn push_warning(&self, level: &'static str, code: ErrorCode, message: String) {
        if let Some(kept) = self.kept_conditions.borrow_mut().last_mut() {
            kept.push(Condition {
                level,
                number: code.code(),
                sqlstate: code.sqlstate().to_string(),
                message,
            });
            return;
        }
        self.push_warning_number(level, code.code(), code.sqlstate(), message)
    }

    /// A warning by number: a SIGNAL's MYSQL_ERRNO need not be an `ErrorCode`.
    fn push_warning_number(&self, level: &'static str, code: u16, sqlstate: &str, message: String) {
        if !self.warnings_current.replace(true) {
            self.clear_warnings();
        }
        self.statement_warnings
            .set(self.statement_warnings.get() + 1);
        self.warning_total.set(self.warning_total.get() + 1);
        let mut warnings = self.warnings.borrow_mut();
        if warnings.len() < WARNINGS_MAX {
            warnings.push(Warning {
                level,
                code,
                sqlstate: sqlstate.to_string(),
                message,
            });
        }
    }

    pub(crate) fn note(&self, code: ErrorCode, message: String) {
        self.push_warning("Note", code, message);
    }

    fn clear_warnings(&self) {
        self.warnings.borrow_mut().clear();
        self.warning_total.set(0);
    }

    fn warning_count(&self) -> u16 {
        self.statement_warnings.get().min(u16::MAX as usize) as u16
    }

    fn refresh_cached(&mut self) {
        self.autocommit = self.vars.get("autocommit") != Some(&Value::Int(0));
        let mode = self.vars.get("sql_mode").and_then(|v| {
            v.as_bytes()
                .map(|b| String::from_utf8_lossy(b).into_owned())
        });
        self.strict = mode
            .is_some_and(|m| m.contains("STRICT_TRANS_TABLES") || m.contains("STRICT_ALL_TABLES"));
        // SET validated the name (variables invariant (2)); a global default given at
        // startup is validated there too.
        self.time_zone = self
            .vars
            .get("time_zone")
            .and_then(Value::as_bytes)
            .and_then(|b| std::str::from_utf8(b).ok())
            .and_then(TimeZone::parse)
            .unwrap_or(TimeZone::SYSTEM);
        self.foreign_key_checks = self.vars.get("foreign_key_checks") != Some(&Value::Int(0));
    }

    /// `@@character_set_database` and `@@collation_database` while a database is current:
    /// its own, as MariaDB sets them on entering it. Not yet as MariaDB: a SET of them does
    /// not show while a database is current (MariaDB keeps it until the next USE).
    fn database_variable(&self, name: &str) -> Option<Value> {
        let charset = match name {
            "character_set_database" => true,
            "collation_database" => false,
            _ => return None,
        };
        let db = self.database.as_deref()?;
        let collation = self.engine.storage().catalog().databases.get(db)?.collation;
        Some(Value::text(if charset {
            "utf8mb4"
        } else {
            collation.name()
        }))
    }

    fn computed(&self, name: &str) -> Option<Value> {
        Some(match name {
            "warning_count" => Value::UInt(self.warning_total.get() as u64),
            "error_count" => Value::UInt(
                self.warnings
                    .borrow()
                    .iter()
                    .filter(|w| w.level == "Error")
                    .count() as u64,
            ),
            "last_insert_id" | "identity" => Value::UInt(self.last_insert_id.get()),
            "insert_id" => Value::UInt(0),
            "in_transaction" => Value::Int(self.in_transaction.get() as i64),
            "timestamp" => {
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap_or_default();
                Value::Double(now.as_micros() as f64 / 1e6)
            }
            "pseudo_thread_id" => Value::UInt(self.id as u64),
            _ => return None,
        })
    }
}

/// What the running statement's functions asked to wait for (invariant (4)): SLEEP()'s
/// time and GET_LOCK()'s locks; and how long its row lock waits may last.
#[derive(Default)]
struct StatementWaits {
    sleep: StatementSleep,
    locks: StatementLocks,
    /// The innodb_lock_wait_timeout of this run, when its locking read said NOWAIT or
    /// WAIT n (`locking_read`).
    row_lock_timeout: Cell<Option<Duration>>,
}

impl StatementWaits {
    /// A run of a statement begins.
    fn begin_run(&self) {
        self.sleep.begin_run();
        self.locks.begin_run();
        self.row_lock_timeout.set(None);
    }

    /// The statement ended (done, failed or abandoned).
    fn end_statement(&self) {
        self.sleep.end_statement();
        self.locks.end_statement();
    }

    /// Err with the statement's wait when this run must wait before it can complete: for
    /// a lock first (the sleep is then still owed when it runs again).
    fn check(&self) -> Result<()> {
        if self.locks.stopped() {
            return Err(Error::user_lock_wait());
        }
        self.sleep.check()
    }
}

/// The SLEEP() time of the running statement (invariant (4)), in nanoseconds: a u64 is
/// one load and compare per statement on the hot path, where a `Duration` is two words.
#[derive(Default)]
struct StatementSleep {
    /// What this run's SLEEP calls asked for.
    asked: Cell<u64>,
    /// What the server already slept for the statement, before this run.
    slept: Cell<u64>,
}

impl StatementSleep {
    fn nanos(duration: Duration) -> u64 {
        u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
    }

    fn ask(&self, duration: Duration) {
        let asked = self.asked.get().saturating_add(Self::nanos(duration));
        self.asked.set(asked);
    }

    /// The server sleeps `duration` for the statement before it runs again.
    fn add_slept(&self, duration: Duration) {
        let slept = self.slept.get().saturating_add(Self::nanos(duration));
        self.slept.set(slept);
    }

    /// A run of a statement begins: it has asked for nothing yet.
    fn begin_run(&self) {
        self.asked.set(0);
    }

    /// The statement ended (done, failed or abandoned): nothing is slept for it any more.
    fn end_statement(&self) {
        self.slept.set(0);
    }

    /// Err (`Error::sleep`) when this run asked for more than was slept: the statement is
    /// undone, and runs again after the server slept the rest.
    fn check(&self) -> Result<()> {
        let (asked, slept) = (self.asked.get(), self.slept.get());
        if asked > slept {
            return Err(Error::sleep(Duration::from_nanos(asked - slept)));
        }
        Ok(())
    }
}

impl SessionContext for SessionState {
    fn system_variable(&self, name: &str, scope: VarScope) -> Result<Value> {
        let lower = name.to_ascii_lowercase();
        if let Some(v) = self.computed(&lower) {
            if scope == VarScope::Global {
                return Err(variables::wrong_scope_read(&lower, "SESSION"));
            }
            return Ok(v);
        }
        if scope != VarScope::Global {
            if let Some(v) = self.database_variable(&lower) {
                return Ok(v);
            }
        }
        let def = variables::lookup(&lower).ok_or_else(|| variables::unknown_variable(name))?;
        match scope {
            VarScope::Global => {
                if def.scope == VarScopeKind::Session {
                    return Err(variables::wrong_scope_read(def.name, "SESSION"));
                }
                Ok(self.engine.global_variable(def.name).unwrap_or(Value::Null))
            }
            VarScope::Session | VarScope::Default => {
                if def.scope == VarScopeKind::Global {
                    if scope == VarScope::Session {
                        return Err(variables::wrong_scope_read(def.name, "GLOBAL"));
                    }
                    return Ok(self.engine.global_variable(def.name).unwrap_or(Value::Null));
                }
                Ok(self.vars.get(def.name).cloned().unwrap_or(Value::Null))
            }
        }
    }

    fn user_variable(&self, name: &str) -> Value {
        self.user_vars
            .borrow()
            .get(&name.to_ascii_lowercase())
            .cloned()
            .unwrap_or(Value::Null)
    }

    fn set_user_variable(&self, name: &str, value: Value) {
        let name = name.to_ascii_lowercase();
        let before = self.user_vars.borrow_mut().insert(name.clone(), value);
        self.user_vars_before.borrow_mut().push((name, before));
    }

    fn current_database(&self) -> Option<&str> {
        self.database.as_deref()
    }

    fn connection_id(&self) -> u32 {
        self.id
    }

    fn uuid_short(&self) -> u64 {
        self.engine.next_uuid_short()
    }

    fn last_insert_id(&self) -> u64 {
        self.last_insert_id.get()
    }

    fn set_last_insert_id(&self, id: u64) {
        self.last_insert_id.set(id);
    }

    fn current_user(&self) -> &str {
        &self.current_user
    }

    fn login_user(&self) -> &str {
        &self.login_user
    }

    fn statement_time_utc(&self) -> DateTime {
        match self.statement_time.get() {
            Some(t) => t,
            None => {
                let t = crate::expr::wall_clock_utc();
                self.statement_time.set(Some(t));
                t
            }
        }
    }

    fn time_zone(&self) -> TimeZone {
        self.time_zone
    }

    fn warn(&self, code: ErrorCode, message: String) {
        self.push_warning("Warning", code, message);
    }

    fn note(&self, code: ErrorCode, message: String) {
        self.push_warning("Note", code, message);
    }

    fn begin_conditions(&self) {
        self.kept_conditions.borrow_mut().push(Vec::new());
    }

    fn take_conditions(&self) -> Vec<Condition> {
        self.kept_conditions
            .borrow_mut()
            .last_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    fn end_conditions(&self) {
        let ended = self.kept_conditions.borrow_mut().pop();
        debug_assert!(ended.is_some(), "end_conditions without begin_conditions");
    }

    fn strict(&self) -> bool {
        self.strict
    }

    fn foreign_key_checks(&self) -> bool {
        self.foreign_key_checks
    }

    fn sleep(&self, duration: Duration) {
        self.waits.sleep.ask(duration);
    }

    fn user_lock(&self, call: UserLockCall<'_>) -> Value {
        let locks = self.engine.user_locks();
        self.waits.locks.answer(locks, self.id, call)
    }

    fn load_file(&self, name: &[u8]) -> Value {
        if !self.grants.global(crate::privilege::Privileges::FILE) {
            return Value::Null;
        }
        let max = match self.system_variable("max_allowed_packet", VarScope::Session) {
            Ok(Value::UInt(n)) => n,
            _ => self.engine.config().max_allowed_packet,
        };
        let dir = self.engine.config().secure_file_priv.as_deref();
        let name = String::from_utf8_lossy(name);
        crate::server_file::read_at_most(dir, &name, max).map_or(Value::Null, Value::Bytes)
    }

    fn running_routines(&self) -> Option<&crate::routine::RunningRoutines> {
        Some(&self.running_routines)
    }

    fn found_rows(&self) -> u64 {
        self.found_rows.get()
    }

    fn row_count(&self) -> i64 {
        self.row_count.get()
    }

    fn set_row_count(&self, count: i64) {
        self.row_count.set(count);
    }

    fn set_found_rows(&self, rows: u64) {
        self.found_rows.set(rows);
    }

    fn count(&self, counter: Counter, n: u64) {
        SessionState::count(self, counter, n);
    }

    fn information_schema_rows(
        &self,
        table: SystemTable,
        lookup: &information_schema::NameLookup,
    ) -> Vec<Vec<Value>> {
        information_schema::rows(table, &self.row_source(), lookup)
    }
}

/// A statement bound to a plan (the parts of prepared statements kept between executions).
#[derive(Clone)]
pub(crate) enum Bound {
    Select(SelectPlan),
    Insert(InsertPlan),
    Update(UpdatePlan),
    Delete(DeletePlan),
    MultiUpdate(MultiUpdatePlan),
    MultiDelete(MultiDeletePlan),
}

impl Bound {
    /// The columns of the result set it sends: a SELECT's, or RETURNING's.
    fn result_columns(&self) -> Option<&Columns> {
        match self {
            Bound::Select(s) => Some(&s.columns),
            Bound::Insert(i) => i.returning.as_ref().map(|r| &r.columns),
            Bound::Delete(d) => d.returning.as_ref().map(|r| &r.columns),
            Bound::Update(_) | Bound::MultiUpdate(_) | Bound::MultiDelete(_) => None,
        }
    }

    fn tables(&self) -> Vec<&Arc<Table>> {
        match self {
            Bound::Select(s) => s.tables.iter().collect(),
            Bound::Insert(i) => {
                let mut t = vec![&i.table];
                if let dml::InsertSource::Select(s) = &i.source {
                    t.extend(s.tables.iter());
                }
                t.extend(&i.subquery_tables);
                t
            }
            Bound::Update(u) => std::iter::once(&u.scan.table)
                .chain(&u.subquery_tables)
                .collect(),
            Bound::Delete(d) => std::iter::once(&d.scan.table)
                .chain(&d.subquery_tables)
                .collect(),
            Bound::MultiUpdate(u) => u.tables.iter().collect(),
            Bound::MultiDelete(d) => d.tables.iter().collect(),
        }
    }
}

/// Whether a trigger or a stored function was created, replaced or dropped between two
/// catalogs: a write statement binds its table's triggers with it (`trigger`), and a call
/// binds its function's body (`routine`), so a prepared one re-binds.
fn programs_changed(before: &manycore_storage::Catalog, now: &manycore_storage::Catalog) -> bool {
    now.databases.iter().any(|(name, database)| {
        let Some(old) = before.databases.get(name) else {
            return !database.triggers.is_empty() || !database.routines.is_empty();
        };
        old.triggers.len() != database.triggers.len()
            || old
                .triggers
                .iter()
                .zip(&database.triggers)
                .any(|(a, b)| !Arc::ptr_eq(a, b))
            || old.routines.len() != database.routines.len()
            || old
                .routines
                .values()
                .zip(database.routines.values())
                .any(|(a, b)| !Arc::ptr_eq(a, b))
    })
}

/// Whether each of `types` (user variables, and the types a plan bound them with) still
/// holds a value of its type in `values` (an unset variable is typed as a string).
fn user_variables_keep_types(
    types: &[(String, DataType)],
    values: &HashMap<String, Value>,
) -> bool {
    types.iter().all(|(name, data_type)| {
        let now = values.get(name).map_or(
            crate::expr::USER_VARIABLE_STRING,
            crate::expr::user_variable_type,
        );
        now == *data_type
    })
}

/// A prepared statement. Shared pieces are behind `Arc` so an execution borrows them
/// without copying (the execute path allocates nothing in steady state).
struct Prepared {
    text: Arc<str>,
    statement: Arc<Statement>,
    /// `com_counter` and `clears_warnings` of `statement`, found once at PREPARE so an
    /// execution does not walk the syntax tree (cold memory with many connections).
    counter: Option<Counter>,
    clears_warnings: bool,
    bound: Option<Arc<Bound>>,
    params: usize,
    /// The parameter types `bound` was bound with (empty: untyped, as at PREPARE).
    param_types: Vec<DataType>,
    /// The user variables `bound` reads and the types it was bound with: MariaDB types
    /// `@v` by the value it holds at each execution, so another type re-binds.
    user_variable_types: Vec<(String, DataType)>,
    database: Option<String>,
    /// The grants and temporary tables `bound` was bound under; another one re-binds.
    checked_generation: BindGeneration,
    /// The catalog `bound`'s tables were last found current in: while it is still the
    /// catalog, no table can have been replaced.
    checked_catalog: Arc<manycore_storage::Catalog>,
}

impl Prepared {
    fn plan(&self) -> PreparedPlan {
        match &self.bound {
            Some(bound) => PreparedPlan::Bound(Arc::clone(bound)),
            None => PreparedPlan::Unbound(Arc::clone(&self.statement), Arc::clone(&self.text)),
        }
    }
}

/// What one execution of a prepared statement runs: its bound plan, or the statement
/// and text for statements that are not bound ahead (`execute_unbound`).
enum PreparedPlan {
    Bound(Arc<Bound>),
    Unbound(Arc<Statement>, Arc<str>),
}

/// Where the values of a statement's `?`s came from. A CALL returns an OUT or INOUT
/// parameter given as a `?` to it (`routine` invariant (2)).
#[derive(Clone, Copy)]
pub(crate) enum Placeholders<'a> {
    /// A query's text, which has no `?`.
    Query,
    /// COM_STMT_EXECUTE: the client sent them, and reads OUT parameters back in a result
    /// set of their own.
    Client,
    /// EXECUTE ... USING: the user variable each `?`'s expression was, if it was one.
    Using(&'a [Option<String>]),
}

pub struct Session {
    engine: Arc<Engine>,
    state: SessionState,
    txn: Option<Transaction>,
    /// SAVEPOINT names of the open transaction, oldest first; empty outside one.
    savepoints: Vec<(String, Savepoint)>,
    /// BEGIN (or autocommit=0 work) opened a session transaction.
    explicit: bool,
    read_only: bool,
    /// LOCK TABLES ran and no UNLOCK TABLES or START TRANSACTION since: UNLOCK TABLES
    /// then commits (MariaDB commits only then).
    tables_locked: bool,
    reader: ReaderSlot,
    process: ProcessHandle,
    /// foldhash, not SipHash: ids are ours, not the client's to choose, and this map is
    /// read on every COM_STMT_EXECUTE.
    prepared: foldhash::HashMap<u32, Prepared>,
    next_prepared_id: u32,
    /// The statements PREPARE named (lower case), by their id in `prepared`.
    named_prepared: HashMap<String, u32>,
    /// COM_QUERY plans by statement shape (`plan_cache`).
    text_plans: TextPlans,
    /// The procedures CALL bound (`routines`).
    procedures: routines::BoundProcedures,
    multi_statements: bool,
    /// CLIENT_MULTI_RESULTS (`set_client_multi_results`).
    client_multi_results: bool,
    /// CLIENT_PS_MULTI_RESULTS (`set_client_ps_multi_results`).
    client_ps_multi_results: bool,
    /// CLIENT_FOUND_ROWS: affected rows count the rows a statement matched, changed or not.
    client_found_rows: bool,
    /// CLIENT_LOCAL_FILES: the client offered to send files for LOAD DATA LOCAL.
    client_local_files: bool,
    /// The file the waiting LOAD DATA LOCAL asked for, once the client sent it
    /// (`load_data` module notes); taken by that statement's next run.
    local_file: Option<Vec<u8>>,
    /// Armed when a statement stopped to wait (invariant (4)).
    wait: Option<Wait>,
    /// What runs again once the wait ends.
    pending: Option<Pending>,
    /// `resume` runs the statement that waited again: it was counted already.
    resumed: bool,
}

/// What the server awaits before `Session::resume` runs an undone statement again.
pub enum Wait {
    /// The end of the transaction holding a row (bounded by
    /// `Session::row_lock_wait_timeout`).
    RowLock(LockWait),
    /// The end of a transaction holding a row of a table DDL changes (bounded by
    /// `Session::table_lock_wait_timeout`).
    TableLock(LockWait),
    /// Time the statement's SLEEP calls asked for and nobody slept yet.
    Sleep(Duration),
    /// The release of a user lock, until the GET_LOCK call's deadline
    /// (`UserLockWait::deadline`); either way the statement runs again.
    UserLock(UserLockWait),
    /// The client's copy of the file LOAD DATA LOCAL names: the server asks for it and
    /// hands it to `Session::supply_local_file` before `resume`.
    LocalFile(String),
}

/// Work undone to wait (invariant (4)): resumed by `Session::resume`.
enum Pending {
    /// The statement that waited and every statement after it in the same COM_QUERY.
    Pieces(Vec<split::Piece>),
    Prepared {
        id: u32,
        params: Vec<Value>,
    },
}

/// The type MariaDB gives a `?` bound to `value`: numbers by their kind; strings, NULL
/// and temporal values keep the nominal string type.
fn parameter_type(value: &Value) -> DataType {
    match value {
        Value::Int(_) => DataType::BIGINT,
        Value::UInt(_) => DataType::Int {
            width: manycore_types::IntWidth::Big,
            unsigned: true,
        },
        Value::Double(_) => DataType::DOUBLE,
        // MariaDB's Item_param::set_null: a NULL value is of type NULL.
        Value::Null => DataType::Null,
        _ => crate::expr::NOMINAL_PARAMETER_TYPE,
    }
}

fn count_placeholders(text: &str) -> usize {
    use sqlparser::tokenizer::{Token, Tokenizer};
    Tokenizer::new(&crate::dialect::MariaDbDialect::new(), text)
        .tokenize()
        .map(|tokens| {
            tokens
                .iter()
                .filter(|t| matches!(t, Token::Placeholder(p) if p == "?"))
                .count()
        })
        .unwrap_or(0)
}

fn storage_error(e: StorageError) -> Error {
    match e {
        // The session waits and runs the statement again (Session::take_wait).
        StorageError::LockWait { holder } => Error::lock_wait(holder),
        // DDL on a table another transaction holds rows of: the session waits for it and
        // runs the statement again, as MariaDB waits for the table's metadata lock.
        StorageError::TableBusy { holder } => Error::table_lock_wait(holder),
        StorageError::WriteConflict | StorageError::Deadlock => Error::deadlock(),
        StorageError::DatabaseExists(d) => Error::new(
            ErrorCode::DbCreateExists,
            format!("Can't create database '{d}'; database exists"),
        ),
        StorageError::NoSuchDatabase(d) => Error::bad_db(&d),
        StorageError::TableExists(t) => Error::new(
            ErrorCode::TableExists,
            format!("Table '{t}' already exists"),
        ),
        StorageError::DuplicateIndexName(i) => Error::duplicate_key(&i),
        StorageError::NoSuchIndex(i) => Error::cant_drop("INDEX", &i),
        other => log_error(other),
    }
}

/// An ALTER's answer: the rows a copy made, as MariaDB's copying ALTER reports them.
fn altered(copied: u64) -> StatementOutcome {
    match copied {
        0 => StatementOutcome::Records {
            records: 0,
            duplicates: 0,
        },
        rows => StatementOutcome::InsertedRows {
            rows,
            generated: None,
            last_insert_id: 0,
            records: rows,
            duplicates: 0,
        },
    }
}

/// The INSERT of CREATE TABLE ... SELECT: `select`'s rows into the new `table`'s
/// `columns` (a new table has no triggers).
fn select_insert_plan(
    db: &str,
    table: Arc<Table>,
    columns: Vec<usize>,
    select: SelectPlan,
) -> Result<InsertPlan> {
    Ok(InsertPlan {
        checks: crate::check::bind(db, &table)?,
        generated: crate::generated::bind(&table)?,
        db: db.to_string(),
        table,
        columns,
        source: dml::InsertSource::Select(Box::new(select)),
        ignore: false,
        replace: false,
        on_duplicate: Vec::new(),
        returning: None,
        subquery_tables: Vec::new(),
        triggers: Default::default(),
        conflict_triggers: Default::default(),
    })
}

/// An ALTER TABLE's ENGINE: an unknown one is 1286 before the table is looked up, as in
/// MariaDB; another engine than InnoDB, the one there is, is a change not made (1235).
fn check_alter_engine(options: &crate::parse::TableOptions) -> Result<()> {
    let Some(asked) = options.engine.as_deref() else {
        return Ok(());
    };
    match crate::storage_engine::resolve(asked)? {
        "InnoDB" => Ok(()),
        other => Err(Error::not_supported(&format!("ALTER TABLE ENGINE={other}"))),
    }
}

/// RENAME TABLE into a database that does not exist: MariaDB's engine fails the file
/// rename (1025, errno 168).
fn rename_into_missing_database(rename: &TableRename) -> Error {
    let TableRename {
        from_db,
        from,
        to_db,
        to,
    } = rename;
    Error::new(
        ErrorCode::ErrorOnRename,
        format!(
            "Error on rename of './{from_db}/{from}' to './{to_db}/{to}' (errno: 168 \"Unknown \
             (generic) error from engine\")"
        ),
    )
}

/// The log refused a commit or DDL (MariaDB's texts for ER_DISK_FULL, ER_ERROR_ON_WRITE
/// and ER_TRANS_CACHE_FULL); anything else is an internal error.
pub(crate) fn log_error(e: StorageError) -> Error {
    match e {
        StorageError::LogDiskFull(m) => Error::new(
            ErrorCode::DiskFull,
            format!(
                "Disk full ({m}); waiting for someone to free some space... (errno: 28 \"No \
                 space left on device\")"
            ),
        ),
        StorageError::LogFailed(m) => Error::new(
            ErrorCode::ErrorOnWrite,
            format!("Error writing file 'manycore write-ahead log' (Errcode: 5 \"{m}\")"),
        ),
        // MariaDB's text for a transaction beyond max_binlog_cache_size; manycore's limit
        // is one log record's size.
        StorageError::TransactionTooLarge { limit, .. } => Error::new(
            ErrorCode::TransCacheFull,
            format!(
                "Multi-statement transaction required more than 'max_binlog_cache_size' \
                 bytes of storage; increase this mysqld variable and try again (manycore: a \
                 transaction's changes must fit in one {limit}-byte log record)"
            ),
        ),
        other => Error::new(ErrorCode::UnknownError, other.to_string()),
    }
}

fn com_counter(statement: &Statement) -> Option<Counter> {
    use ast::Statement as S;
    Some(match statement {
        Statement::ShowWarnings { errors: false, .. } => Counter::ComShowWarnings,
        Statement::ShowWarnings { errors: true, .. } => Counter::ComShowErrors,
        Statement::ShowIndex { .. } => Counter::ComShowKeys,
        Statement::ShowTableStatus { .. } => Counter::ComShowTableStatus,
        Statement::ShowEngines => Counter::ComShowEngines,
        Statement::ShowEngine { what, .. } if what == "MUTEX" => Counter::ComShowEngineMutex,
        Statement::ShowEngine { .. } => Counter::ComShowEngineStatus,
        Statement::ShowCreateDatabase { .. } => Counter::ComShowCreateDb,
        Statement::AlterDatabase { .. } => Counter::ComAlterDb,
        Statement::AlterTableKeys { .. }
        | Statement::AlterTableOptions { .. }
        | Statement::AlterTable(_) => Counter::ComAlterTable,
        Statement::CreateFulltextIndex(_) => Counter::ComCreateIndex,
        Statement::RenameTable { .. } => Counter::ComRenameTable,
        Statement::PrepareSql { .. } => Counter::ComPrepareSql,
        Statement::ExecuteSql { .. } => Counter::ComExecuteSql,
        Statement::DeallocateSql { .. } => Counter::ComDeallocSql,
        Statement::TableMaintenance { operation, .. } => match operation {
            Operation::Check => Counter::ComCheck,
            Operation::Analyze => Counter::ComAnalyze,
            Operation::Optimize => Counter::ComOptimize,
            Operation::Repair => Counter::ComRepair,
        },
        Statement::ChecksumTable { .. } => Counter::ComChecksum,
        Statement::GetDiagnostics { .. } => Counter::ComGetDiagnostics,
        Statement::ShowStoredObjects { kind, .. } => match kind {
            StoredObjects::Triggers => Counter::ComShowTriggers,
            StoredObjects::Events => Counter::ComShowEvents,
            StoredObjects::Routines("FUNCTION") => Counter::ComShowStatusFunc,
            StoredObjects::Routines("PROCEDURE") => Counter::ComShowStatusProc,
            StoredObjects::Routines("PACKAGE") => Counter::ComShowPackageStatus,
            StoredObjects::Routines(_) => Counter::ComShowPackageBodyStatus,
        },
        Statement::Do(_) => Counter::ComDo,
        Statement::LoadData(_) => Counter::ComLoad,
        Statement::SelectInto { .. } => Counter::ComSelect,
        Statement::StartTransaction { .. } => Counter::ComBegin,
        Statement::SetCharacterSet(_) | Statement::Sets(_) => Counter::ComSetOption,
        Statement::Account(_) | Statement::View(_) => return None,
        Statement::CreateTrigger(_) | Statement::DropTrigger { .. } => return None,
        Statement::CreateRoutine(c) => match c.kind {
            RoutineKind::Procedure => Counter::ComCreateProcedure,
            RoutineKind::Function => Counter::ComCreateFunction,
        },
        Statement::AlterRoutine { kind, .. } => match kind {
            RoutineKind::Procedure => Counter::ComAlterProcedure,
            RoutineKind::Function => Counter::ComAlterFunction,
        },
        Statement::DropRoutine { kind, .. } => match kind {
            RoutineKind::Procedure => Counter::ComDropProcedure,
            RoutineKind::Function => Counter::ComDropFunction,
        },
        Statement::Call { .. } => Counter::ComCallProcedure,
        Statement::Sql(s) => match s.as_ref() {
            S::Query(_) => Counter::ComSelect,
            S::Insert(i) if i.replace_into => Counter::ComReplace,
            S::Insert(i)
                if matches!(
                    i.source.as_ref().map(|q| q.body.as_ref()),
                    Some(ast::SetExpr::Values(_)) | None
                ) =>
            {
                Counter::ComInsert
            }
            S::Insert(_) => Counter::ComInsertSelect,
            S::Update(_) => Counter::ComUpdate,
            S::Delete(_) => Counter::ComDelete,
            S::StartTransaction { .. } => Counter::ComBegin,
            S::Commit { .. } => Counter::ComCommit,
            S::Rollback {
                savepoint: Some(_), ..
            } => Counter::ComRollbackToSavepoint,
            S::Rollback { .. } => Counter::ComRollback,
            S::Savepoint { .. } => Counter::ComSavepoint,
            S::ReleaseSavepoint { .. } => Counter::ComReleaseSavepoint,
            S::Set(_) => Counter::ComSetOption,
            S::ShowDatabases { .. } | S::ShowSchemas { .. } => Counter::ComShowDatabases,
            S::ShowTables { .. } => Counter::ComShowTables,
            S::ShowColumns { .. } | S::ExplainTable { .. } => Counter::ComShowFields,
            S::ShowVariables { .. } => Counter::ComShowVariables,
            S::ShowStatus { .. } => Counter::ComShowStatus,
            S::ShowProcessList { .. } => Counter::ComShowProcesslist,
            S::ShowCreate { .. } => Counter::ComShowCreateTable,
            S::ShowCharset(_) => Counter::ComShowCharsets,
            S::ShowCollation { .. } => Counter::ComShowCollations,
            S::CreateDatabase { .. } | S::CreateSchema { .. } => Counter::ComCreateDb,
            S::CreateTable(_) => Counter::ComCreateTable,
            S::CreateIndex(_) => Counter::ComCreateIndex,
            S::Drop {
                object_type: ast::ObjectType::Table,
                ..
            } => Counter::ComDropTable,
            S::Drop {
                object_type: ast::ObjectType::Index,
                ..
            } => Counter::ComDropIndex,
            S::Drop { .. } => Counter::ComDropDb,
            S::Truncate(_) => Counter::ComTruncate,
            S::Use(_) => Counter::ComChangeDb,
            S::Kill { .. } => Counter::ComKill,
            S::Flush { .. } => Counter::ComFlush,
            S::Lock(_) => Counter::ComLockTables,
            S::UnlockTables => Counter::ComUnlockTables,
            _ => return None,
        },
    })
}

fn is_warning_show(statement: &Statement) -> bool {
    matches!(statement, Statement::ShowWarnings { .. })
}

/// Whether `statement` starts by clearing the warning list (see `uses_tables`).
fn clears_warnings(statement: &Statement) -> bool {
    !is_warning_show(statement) && uses_tables(statement)
}

/// Whether MariaDB clears the warning list before running `statement`: it does for
/// statements that open tables; the others (SELECT without FROM, SET, DO, USE, CREATE
/// DATABASE, ...) keep the previous list unless they raise conditions of their own.
fn uses_tables(statement: &Statement) -> bool {
    let (Statement::Sql(s) | Statement::SelectInto { query: s, .. }) = statement else {
        return matches!(
            statement,
            Statement::ShowIndex { .. }
                | Statement::ShowTableStatus { .. }
                | Statement::AlterTableKeys { .. }
                | Statement::AlterTableOptions { .. }
                | Statement::AlterTable(_)
                | Statement::CreateFulltextIndex(_)
                | Statement::RenameTable { .. }
                | Statement::TableMaintenance { .. }
                | Statement::ChecksumTable { .. }
                | Statement::LoadData(_)
        );
    };
    match s.as_ref() {
        ast::Statement::Query(q) => query_uses_tables(q),
        ast::Statement::Set(_)
        | ast::Statement::Use(_)
        | ast::Statement::CreateDatabase { .. }
        | ast::Statement::CreateSchema { .. }
        | ast::Statement::StartTransaction { .. }
        | ast::Statement::Commit { .. }
        | ast::Statement::Rollback { .. } => false,
        ast::Statement::Drop { object_type, .. } => {
            matches!(object_type, ast::ObjectType::Table | ast::ObjectType::Index)
        }
        _ => true,
    }
}

fn query_uses_tables(query: &ast::Query) -> bool {
    fn set_expr(body: &ast::SetExpr) -> bool {
        match body {
            ast::SetExpr::Select(select) => !select.from.is_empty(),
            ast::SetExpr::Query(q) => query_uses_tables(q),
            ast::SetExpr::SetOperation { left, right, .. } => set_expr(left) || set_expr(right),
            ast::SetExpr::Values(_) => false,
            _ => true,
        }
    }
    set_expr(&query.body)
}

impl Session {
    pub fn new(
        engine: Arc<Engine>,
        info: ConnectionInfo,
        on_kill: Box<dyn Fn(KillKind) + Send + Sync>,
    ) -> Result<Session> {
        Session::with_grants(engine, info, on_kill, SessionGrants::default())
    }

    /// A session that may do anything, for the server's own work (bootstrap): it is in the
    /// process list like any other.
    fn internal(engine: Arc<Engine>) -> Result<Session> {
        let info = ConnectionInfo {
            id: 0,
            user: "root".into(),
            host: "localhost".into(),
            account_host: "localhost".into(),
            using_password: true,
            worker: 0,
            thread_id: 0,
            database: None,
        };
        Session::with_grants(
            engine,
            info,
            Box::new(|_| {}),
            SessionGrants::unrestricted(),
        )
    }

    fn with_grants(
        engine: Arc<Engine>,
        info: ConnectionInfo,
        on_kill: Box<dyn Fn(KillKind) + Send + Sync>,
        grants: SessionGrants,
    ) -> Result<Session> {
        let mut state = SessionState {
            engine: engine.clone(),
            id: info.id,
            worker: info.worker,
            current_user: String::new(),
            login_user: String::new(),
            quoted_user: String::new(),
            quoted_account: String::new(),
            account_user: String::new(),
            account_host: String::new(),
            using_password: false,
            grants,
            user: String::new(),
            host: String::new(),
            database: None,
            vars: engine.session_variables(),
            user_vars: RefCell::new(HashMap::new()),
            user_vars_before: RefCell::new(Vec::new()),
            warnings: RefCell::new(Vec::new()),
            warning_total: Cell::new(0),
            statement_warnings: Cell::new(0),
            warnings_current: Cell::new(false),
            kept_conditions: RefCell::new(Vec::new()),
            last_insert_id: Cell::new(0),
            autocommit: true,
            strict: true,
            time_zone: TimeZone::SYSTEM,
            foreign_key_checks: true,
            statement_time: Cell::new(None),
            waits: StatementWaits::default(),
            found_rows: Cell::new(0),
            row_count: Cell::new(-1),
            in_transaction: Cell::new(false),
            tls: None,
            counters: SessionCounters::new(),
            running_routines: Default::default(),
            temporary: TemporaryTables::default(),
        };
        state.refresh_cached();
        state.set_identity(
            info.user.clone(),
            info.host.clone(),
            info.account_host.clone(),
            info.using_password,
        );
        state.refresh_grants();
        state.database = match &info.database {
            Some(db) => Some(state.enterable_database(db)?),
            None => None,
        };
        let process = engine.processlist().register(&info, on_kill);
        engine
            .status()
            .observe_connections(engine.processlist().len());
        let reader = engine.storage().register_reader();
        Ok(Session {
            engine,
            state,
            txn: None,
            savepoints: Vec::new(),
            explicit: false,
            read_only: false,
            tables_locked: false,
            reader,
            process,
            prepared: foldhash::HashMap::default(),
            next_prepared_id: 1,
            named_prepared: HashMap::new(),
            text_plans: TextPlans::default(),
            procedures: Default::default(),
            multi_statements: false,
            client_multi_results: false,
            client_ps_multi_results: false,
            client_found_rows: false,
            client_local_files: false,
            local_file: None,
            wait: None,
            pending: None,
            resumed: false,
        })
    }

    pub fn worker(&self) -> usize {
        self.state.worker
    }

    /// Records that the connection runs over TLS (set once, after the handshake).
    pub fn set_tls(&mut self, tls: Option<TlsInfo>) {
        self.state.tls = tls;
    }

    pub fn connection_id(&self) -> u32 {
        self.state.id
    }

    pub fn current_database(&self) -> Option<&str> {
        self.state.database.as_deref()
    }

    pub fn set_multi_statements(&mut self, enabled: bool) {
        self.multi_statements = enabled;
    }

    /// CLIENT_MULTI_RESULTS: the client reads the several result sets a CALL may send.
    pub fn set_client_multi_results(&mut self, enabled: bool) {
        self.client_multi_results = enabled;
    }

    /// CLIENT_PS_MULTI_RESULTS: the client reads the OUT parameters a CALL executed with
    /// COM_STMT_EXECUTE returns in a result set of their own (`routine` invariant (2)).
    pub fn set_client_ps_multi_results(&mut self, enabled: bool) {
        self.client_ps_multi_results = enabled;
    }

    /// Whether the client asked for CLIENT_FOUND_ROWS (most drivers do by default).
    pub fn set_client_found_rows(&mut self, enabled: bool) {
        self.client_found_rows = enabled;
    }

    /// CLIENT_LOCAL_FILES, from the handshake.
    pub fn set_client_local_files(&mut self, enabled: bool) {
        self.client_local_files = enabled;
    }

    pub fn warning_count(&self) -> u16 {
        self.state.warning_count()
    }

    /// The warnings of the last statement (SHOW WARNINGS), for the server and tests.
    pub fn warnings(&self) -> Vec<Warning> {
        self.state.warnings.borrow().clone()
    }

    fn in_transaction(&self) -> bool {
        self.explicit || self.txn.is_some()
    }

    pub fn status_flags(&self) -> u16 {
        let mut flags = 0;
        if self.in_transaction() {
            flags |= SERVER_STATUS_IN_TRANS;
        }
        if self.state.autocommit {
            flags |= SERVER_STATUS_AUTOCOMMIT;
        }
        flags
    }

    /// Adds `n` to `counter`, the session's and its worker's (engine invariant (1)).
    #[inline]
    pub fn count(&self, counter: Counter, n: u64) {
        self.state.count(counter, n);
    }

    // ---- transactions -------------------------------------------------------------

    /// START TRANSACTION / BEGIN: commits an open transaction first and releases table
    /// locks (as in MariaDB); `consistent_snapshot` takes the snapshot now rather than at
    /// the first read.
    fn start_transaction(&mut self, read_only: bool, consistent_snapshot: bool) -> Result<()> {
        self.implicit_commit()?;
        self.tables_locked = false;
        self.explicit = true;
        self.read_only = read_only;
        self.state.in_transaction.set(true);
        if consistent_snapshot {
            self.txn = Some(self.engine.storage().begin(&self.reader));
        }
        Ok(())
    }

    fn commit_transaction(&mut self) -> Result<()> {
        let mut result = Ok(());
        if let Some(txn) = self.txn.take() {
            // A commit the log refuses rolled back (1021 disk full, 3 log failure).
            result = txn.commit().map(drop).map_err(storage_error);
            self.count(Counter::HandlerCommit, 1);
        }
        self.savepoints.clear();
        self.explicit = false;
        self.read_only = false;
        self.state.in_transaction.set(false);
        result
    }

    fn rollback_transaction(&mut self) {
        if let Some(txn) = self.txn.take() {
            txn.rollback();
            self.count(Counter::HandlerRollback, 1);
        }
        self.savepoints.clear();
        self.explicit = false;
        self.read_only = false;
        self.state.in_transaction.set(false);
    }

    /// SAVEPOINT `name`: marks the transaction's writes so far, replacing an older mark of
    /// the same name. Outside a transaction there is nothing to mark (MariaDB accepts it).
    fn savepoint(&mut self, name: &str) {
        if !self.in_transaction() {
            return;
        }
        if let Ok(position) = self.savepoint_position(name) {
            self.savepoints.remove(position);
        }
        let txn = self
            .txn
            .get_or_insert_with(|| self.engine.storage().begin(&self.reader));
        self.savepoints.push((name.to_string(), txn.savepoint()));
    }

    /// Where savepoint `name` is (names are case-insensitive), or 1305.
    fn savepoint_position(&self, name: &str) -> Result<usize> {
        self.savepoints
            .iter()
            .position(|(n, _)| n.eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::SpDoesNotExist,
                    format!("SAVEPOINT {name} does not exist"),
                )
            })
    }

    /// 1792 in a READ ONLY transaction, for a statement that writes.
    fn check_not_read_only(&self) -> Result<()> {
        if self.read_only && self.explicit {
            return Err(Error::new(
                ErrorCode::ReadOnlyTransaction,
                "Cannot execute statement in a READ ONLY transaction",
            ));
        }
        Ok(())
    }

    /// Runs `f` in the statement's transaction (invariant (1)).
    fn with_transaction<R>(
        &mut self,
        write: bool,
        f: impl FnOnce(&mut Transaction, &SessionState, &ProcessEntry) -> Result<R>,
    ) -> Result<R> {
        if write {
            self.check_not_read_only()?;
        }
        let session_txn = self.explicit || !self.state.autocommit;
        if !session_txn {
            let mut txn = self.engine.storage().begin(&self.reader);
            let mut result = f(&mut txn, &self.state, self.process.entry())
                .and_then(|r| self.state.waits.check().map(|()| r));
            match &result {
                Ok(_) => {
                    if let Err(e) = txn.commit() {
                        result = Err(storage_error(e)); // Rolled back: the log refused it.
                    }
                }
                Err(e) => {
                    if let Some(WaitFor::RowLock { holder }) = e.wait {
                        match txn.prepare_lock_wait(holder) {
                            Ok(wait) => self.wait = Some(Wait::RowLock(wait)),
                            Err(_) => result = Err(Error::deadlock()),
                        }
                    }
                    txn.rollback();
                }
            }
            return result;
        }
        if self.txn.is_none() {
            self.txn = Some(self.engine.storage().begin(&self.reader));
            self.state.in_transaction.set(true);
        }
        let txn = self.txn.as_mut().expect("just ensured");
        let savepoint = txn.savepoint();
        let result = f(txn, &self.state, self.process.entry())
            .and_then(|r| self.state.waits.check().map(|()| r));
        if let Err(e) = &result {
            if let Some(WaitFor::RowLock { holder }) = e.wait {
                // Undo the statement (freeing the locks it took), then wait for the holder
                // unless that closes a cycle: a deadlock rolls everything back (1213).
                txn.rollback_to(savepoint);
                match txn.prepare_lock_wait(holder) {
                    Ok(wait) => self.wait = Some(Wait::RowLock(wait)),
                    Err(_) => {
                        self.rollback_transaction();
                        return Err(Error::deadlock());
                    }
                }
            } else if e.code == ErrorCode::LockDeadlock {
                self.rollback_transaction();
            } else if let Some(txn) = self.txn.as_mut() {
                txn.rollback_to(savepoint);
            }
        }
        result
    }

    /// Implicit commit before DDL and similar statements (invariant (2)).
    fn implicit_commit(&mut self) -> Result<()> {
        if self.in_transaction() {
            self.commit_transaction()?;
        }
        Ok(())
    }

    // ---- entry points ---------------------------------------------------------------

    /// COM_QUERY. The server counts Questions; this counts Queries and Com_*.
    pub fn run_query(&mut self, text: &str, sink: &mut dyn ResultSink) -> Result<()> {
        self.process.entry().set_query("Query", text);
        let result = self.run_pieces(text, sink);
        self.statement_ended();
        result
    }

    /// The process list shows the connection idle again, unless its statement waits for a
    /// row lock: that statement is still running and SHOW PROCESSLIST must say which.
    fn statement_ended(&self) {
        if self.pending.is_none() {
            self.process.entry().set_command("Sleep");
        }
    }

    fn run_pieces(&mut self, text: &str, sink: &mut dyn ResultSink) -> Result<()> {
        if split::is_single_statement(text) {
            // What `split` would return, without building it (no allocation).
            self.count(Counter::Queries, 1);
            let result = self.run_piece(text, 1, sink, false);
            self.after_run(&result, sink);
            return self.after_statement(result, || {
                vec![split::Piece {
                    text: text.to_string(),
                    line: 1,
                }]
            });
        }
        let pieces = split::split(text);
        if pieces.is_empty() {
            let e = Error::new(ErrorCode::EmptyQuery, "Query was empty");
            self.fail(&e);
            return Err(e);
        }
        if pieces.len() > 1 && !self.multi_statements {
            let second = &pieces[1];
            let e = Error::parse_near(second.text.trim_start(), second.line);
            self.fail(&e);
            return Err(e);
        }
        self.run_statements(pieces, sink)
    }

    /// Runs statements in order until one fails. One that must wait for a row lock is kept,
    /// with those after it, for `resume` (invariant (4)).
    fn run_statements(
        &mut self,
        pieces: Vec<split::Piece>,
        sink: &mut dyn ResultSink,
    ) -> Result<()> {
        let last = pieces.len().saturating_sub(1);
        for (i, piece) in pieces.iter().enumerate() {
            if !self.resumed {
                self.count(Counter::Queries, 1);
            }
            let result = self.run_piece(&piece.text, piece.line, sink, i < last);
            self.after_run(&result, sink);
            if result.is_err() {
                return self.after_statement(result, || pieces.into_iter().skip(i).collect());
            }
        }
        Ok(())
    }

    /// A failed statement either waits, keeping itself and the statements after it
    /// (`rest`) to run again, or is recorded for SHOW WARNINGS.
    fn after_statement(
        &mut self,
        mut result: Result<()>,
        rest: impl FnOnce() -> Vec<split::Piece>,
    ) -> Result<()> {
        if let Err(e) = &mut result {
            if self.waits(e) {
                self.pending = Some(Pending::Pieces(rest()));
            } else {
                self.fail(e);
            }
        }
        result
    }

    /// Whether failed statement `e` waits to run again (invariant (4)), arming its wait.
    /// A wait that would deadlock replaces `e` with 1213 and returns false.
    fn waits(&mut self, e: &mut Error) -> bool {
        match e.wait {
            // Armed where the statement's transaction was undone (`with_transaction`).
            Some(WaitFor::RowLock { .. }) => self.wait.is_some(),
            Some(WaitFor::TableLock { holder }) => {
                let wait = self.engine.storage().wait_for_transaction(holder);
                self.wait = Some(Wait::TableLock(wait));
                self.process
                    .entry()
                    .set_activity("Waiting for table metadata lock");
                true
            }
            Some(WaitFor::Sleep(unslept)) => {
                self.wait = Some(Wait::Sleep(unslept));
                self.process.entry().set_activity("User sleep");
                true
            }
            // Armed by the statement (`load_data`).
            Some(WaitFor::LocalFile) => self.wait.is_some(),
            Some(WaitFor::UserLock) => {
                let locks = &self.state.waits.locks;
                let (name, deadline) = locks.awaited().expect("a stopped run has its call");
                let user_locks = self.engine.user_locks();
                match user_locks.wait_for(&name, self.state.id, deadline) {
                    WaitOutcome::Wait(wait) => {
                        self.wait = Some(Wait::UserLock(wait));
                        self.process.entry().set_activity("User lock");
                        true
                    }
                    WaitOutcome::Deadlock => {
                        // User-lock invariant (3): the statement fails; the transaction
                        // and the locks it took stay.
                        locks.end_statement();
                        *e = Error::deadlock();
                        false
                    }
                }
            }
            None => false,
        }
    }

    /// After one run of a statement: one that waits to run again takes back what it sent;
    /// one that ended had its SLEEP calls slept (invariant (4)).
    fn after_run(&self, result: &Result<()>, sink: &mut dyn ResultSink) {
        if result.as_ref().is_err_and(|e| e.wait.is_some()) {
            sink.discard_unfinished();
            self.state.undo_user_variables();
        } else {
            self.state.waits.end_statement();
        }
    }

    /// After `run_query` or `execute_prepared` returned an error with `wait` set: what to
    /// await before calling `resume`. A sleep counts as slept from here on: the server
    /// sleeps it, or abandons the statement.
    pub fn take_wait(&mut self) -> Option<Wait> {
        let wait = self.wait.take();
        if let Some(Wait::Sleep(unslept)) = &wait {
            self.state.waits.sleep.add_slept(*unslept);
        }
        wait
    }

    /// A KILL QUERY arrived since the running statement began.
    pub fn interrupted(&self) -> bool {
        self.process.entry().interrupted()
    }

    /// innodb_lock_wait_timeout: how long a statement waits for rows (its locking read's
    /// NOWAIT or WAIT n, when it has one).
    pub fn row_lock_wait_timeout(&self) -> std::time::Duration {
        self.state.waits.row_lock_timeout.get().unwrap_or_else(|| {
            // MariaDB's minimum is 1 second.
            self.timeout_variable("innodb_lock_wait_timeout")
                .max(std::time::Duration::from_secs(1))
        })
    }

    /// lock_wait_timeout: how long DDL waits for a table (0: not at all).
    pub fn table_lock_wait_timeout(&self) -> std::time::Duration {
        self.timeout_variable("lock_wait_timeout")
    }

    fn timeout_variable(&self, name: &str) -> std::time::Duration {
        let seconds = match self.state.system_variable(name, VarScope::Default) {
            Ok(Value::Int(n)) => n.max(0) as u64,
            Ok(Value::UInt(n)) => n,
            // Both variables are typed UInt, so this is a bug; the definition's default
            // keeps the connection alive (a panic would end it).
            other => {
                debug_assert!(false, "{name} is an integer variable: {other:?}");
                crate::variables::lookup(name)
                    .and_then(|definition| definition.default?.parse().ok())
                    .expect("a timeout variable's default is a number")
            }
        };
        std::time::Duration::from_secs(seconds)
    }

    /// Runs the interrupted work again once its lock wait ended.
    pub fn resume(&mut self, sink: &mut dyn ResultSink) -> Result<()> {
        self.process.entry().set_activity("");
        self.resumed = true;
        let result = match self.pending.take() {
            Some(Pending::Pieces(pieces)) => self.run_statements(pieces, sink),
            Some(Pending::Prepared { id, params }) => self.run_prepared(id, &params, sink),
            None => Ok(()),
        };
        self.statement_ended();
        result
    }

    /// The lock wait timed out: the waiting statement fails with 1205 (the transaction
    /// stays open, as with InnoDB's default innodb_rollback_on_timeout=OFF).
    pub fn abandon_lock_wait(&mut self) -> Error {
        self.abandon_wait(Error::lock_wait_timeout())
    }

    /// KILL QUERY ended a user-lock wait: unlike the other waits the statement goes on,
    /// its GET_LOCK call answering NULL in the next run (as in MariaDB).
    pub fn interrupt_user_lock_wait(&mut self) {
        self.state.waits.locks.interrupt();
    }

    /// KILL QUERY ended the wait: the waiting statement fails with 1317 and the rest of
    /// its batch does not run (the transaction stays open).
    pub fn interrupt_wait(&mut self) -> Error {
        self.abandon_wait(Error::interrupted())
    }

    fn abandon_wait(&mut self, e: Error) -> Error {
        self.drop_pending();
        self.fail(&e);
        e
    }

    /// The server cannot go on with the waiting work (the log failed before a LOAD DATA
    /// LOCAL's file was asked for, and that failure is the command's reply): neither the
    /// waiting statement nor those after it run.
    pub fn drop_pending(&mut self) {
        self.wait = None;
        self.pending = None;
        self.local_file = None;
        self.state.waits.end_statement();
        self.statement_ended();
    }

    /// Records a failed statement's error for SHOW WARNINGS / SHOW ERRORS (invariant (3)).
    fn fail(&mut self, e: &Error) {
        self.state
            .push_warning_number("Error", e.number(), e.sqlstate(), e.message.clone());
        if let Some(warning) = &e.trailing_warning {
            let (code, message) = (warning.code, warning.message.clone());
            self.state.push_warning("Warning", code, message);
        }
    }

    pub fn prepare(&mut self, text: &str) -> Result<PreparedInfo> {
        // Com_stmt_prepare is counted by the server.
        let result = self.prepare_inner(text);
        if let Err(e) = &result {
            self.state.clear_warnings();
            self.fail(e);
        }
        result
    }

    fn prepare_inner(&mut self, text: &str) -> Result<PreparedInfo> {
        let pieces = split::split(text);
        let piece = match pieces.as_slice() {
            [] => return Err(Error::new(ErrorCode::EmptyQuery, "Query was empty")),
            [one] => one,
            [_, second, ..] => {
                return Err(Error::parse_near(second.text.trim_start(), second.line))
            }
        };
        let statement = parse::parse(&piece.text, piece.line)?;
        if matches!(
            statement,
            Statement::PrepareSql { .. }
                | Statement::ExecuteSql { .. }
                | Statement::DeallocateSql { .. }
        ) {
            return Err(Error::new(
                ErrorCode::UnsupportedPs,
                "This command is not supported in the prepared statement protocol yet",
            ));
        }
        let parameters = Parameters::untyped().with_user_variables(&self.state.user_vars.borrow());
        self.state.refresh_grants();
        let catalog = self.engine.storage().catalog();
        let bound = self.bind(&catalog, &statement, &piece.text, &parameters)?;
        let params = match &bound {
            Some(_) => parameters.count(),
            None => count_placeholders(&piece.text),
        };
        let columns = match bound.as_ref().and_then(Bound::result_columns) {
            Some(columns) => columns.clone(),
            None => Columns::from([]),
        };
        let id = self.next_prepared_id;
        self.next_prepared_id = self.next_prepared_id.wrapping_add(1).max(1);
        let param_info = ColumnInfo::expression("?", DataType::VarBinary { length: 0 }, false);
        let info = PreparedInfo {
            id,
            params: vec![param_info; params],
            columns,
        };
        self.prepared.insert(
            id,
            Prepared {
                text: piece.text.as_str().into(),
                counter: com_counter(&statement),
                clears_warnings: clears_warnings(&statement),
                statement: Arc::new(statement),
                bound: bound.map(Arc::new),
                params,
                param_types: Vec::new(),
                user_variable_types: parameters.user_variables_read(),
                database: self.state.database.clone(),
                checked_generation: self.state.bind_generation(),
                checked_catalog: Arc::clone(&catalog),
            },
        );
        Ok(info)
    }

    pub fn prepared_param_count(&self, id: u32) -> Option<usize> {
        self.prepared.get(&id).map(|p| p.params)
    }

    pub fn close_prepared(&mut self, id: u32) {
        self.count(Counter::ComStmtClose, 1);
        self.prepared.remove(&id);
    }

    pub fn reset_prepared(&mut self, id: u32) -> Result<()> {
        self.count(Counter::ComStmtReset, 1);
        if self.prepared.contains_key(&id) {
            Ok(())
        } else {
            Err(unknown_handler(id, "mysqld_stmt_reset"))
        }
    }

    pub fn execute_prepared(
        &mut self,
        id: u32,
        params: &[Value],
        sink: &mut dyn ResultSink,
    ) -> Result<()> {
        // Questions and Com_stmt_execute are counted by the server.
        self.count(Counter::Queries, 1);
        let result = self.run_prepared(id, params, sink);
        self.statement_ended();
        result
    }

    /// One execution of a prepared statement, first or resumed after a lock wait.
    fn run_prepared(&mut self, id: u32, params: &[Value], sink: &mut dyn ResultSink) -> Result<()> {
        let mut result = self.execute_prepared_inner(id, params, Placeholders::Client, sink, false);
        self.after_run(&result, sink);
        if let Err(e) = &mut result {
            if self.waits(e) {
                self.pending = Some(Pending::Prepared {
                    id,
                    params: params.to_vec(),
                });
            } else {
                self.fail(e);
            }
        }
        result
    }

    /// Runs prepared statement `id`; `more`: more results of the same query follow (an
    /// EXECUTE in a multi-statement query).
    fn execute_prepared_inner(
        &mut self,
        id: u32,
        params: &[Value],
        placeholders: Placeholders<'_>,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<()> {
        self.state.refresh_grants();
        let generation = self.state.bind_generation();
        let catalog = self.engine.storage().catalog();
        let Some(prepared) = self.prepared.get_mut(&id) else {
            return Err(unknown_handler(id, "mysqld_stmt_execute"));
        };
        if params.len() != prepared.params {
            return Err(Error::new(
                ErrorCode::WrongArguments,
                "Incorrect arguments to mysqld_stmt_execute",
            ));
        }
        self.process.entry().set_query("Execute", &prepared.text);
        // Re-bind after DDL replaced a table the plan uses, or after a GRANT or REVOKE
        // (binding checks privileges; privilege invariant (2)).
        let mut stale = prepared.checked_generation != generation;
        if !stale && !Arc::ptr_eq(&prepared.checked_catalog, &catalog) {
            stale = prepared.bound.as_ref().is_some_and(|b| {
                b.tables().iter().any(|t| {
                    let current = catalog
                        .databases
                        .values()
                        .find_map(|d| d.tables.get(&t.schema.name).filter(|c| Arc::ptr_eq(c, t)));
                    current.is_none()
                })
            }) || programs_changed(&prepared.checked_catalog, &catalog);
            if !stale {
                prepared.checked_catalog = Arc::clone(&catalog);
            }
        }
        // Re-bind when the values' types differ from those the plan was bound with:
        // MariaDB types each `?` by the value bound to it (see `scope::Parameters`).
        let retype = prepared.bound.is_some()
            && !(prepared.param_types.len() == params.len()
                && prepared
                    .param_types
                    .iter()
                    .zip(params)
                    .all(|(t, v)| *t == parameter_type(v))
                && user_variables_keep_types(
                    &prepared.user_variable_types,
                    &self.state.user_vars.borrow(),
                ));
        let (counter, clears) = (prepared.counter, prepared.clears_warnings);
        // Everything the execution needs is taken from this one lookup of the statement.
        let prepared_database =
            (prepared.database != self.state.database).then(|| prepared.database.clone());
        let bound = if stale || retype {
            let statement = Arc::clone(&prepared.statement);
            let text = Arc::clone(&prepared.text);
            let database = prepared.database.clone();
            let saved = std::mem::replace(&mut self.state.database, database);
            let param_types: Vec<DataType> = params.iter().map(parameter_type).collect();
            // User variables are typed by their values now, as at PREPARE.
            let parameters = Parameters::typed(param_types.clone())
                .with_user_variables(&self.state.user_vars.borrow());
            let rebound = self.bind(&catalog, &statement, &text, &parameters);
            self.state.database = saved;
            let prepared = self.prepared.get_mut(&id).expect("checked above");
            prepared.bound = rebound?.map(Arc::new);
            prepared.param_types = param_types;
            prepared.user_variable_types = parameters.user_variables_read();
            prepared.checked_generation = generation;
            prepared.checked_catalog = Arc::clone(&catalog);
            prepared.plan()
        } else {
            prepared.plan()
        };
        drop(catalog);
        if let Some(c) = counter {
            self.count_statement(c);
        }
        self.begin_statement(clears);
        let outer_database = prepared_database.map(|database| self.enter_database(database));
        let result = match bound {
            PreparedPlan::Bound(bound) => self.execute_bound(&bound, params, sink, more),
            PreparedPlan::Unbound(statement, text) => {
                self.execute_unbound(&statement, &text, params, sink, more, placeholders)
            }
        };
        if let Some(database) = outer_database {
            self.process.entry().set_database(database.as_deref());
            self.state.database = database;
        }
        result
    }

    /// MariaDB runs a prepared statement in `database`, the one current when it was
    /// prepared, and then switches back, undoing a USE it ran (`Prepared_statement::execute`);
    /// a database dropped since leaves none selected, with note 1049. Returns the session's
    /// own database, to switch back to.
    fn enter_database(&mut self, database: Option<String>) -> Option<String> {
        let database = database.filter(|name| {
            let exists =
                information_schema::database_exists(&self.engine.storage().catalog(), name);
            if !exists {
                let e = Error::bad_db(name);
                self.state.note(e.code, e.message);
            }
            exists
        });
        std::mem::replace(&mut self.state.database, database)
    }

    pub fn init_db(&mut self, db: &str) -> Result<()> {
        self.count(Counter::ComChangeDb, 1);
        self.state.refresh_grants();
        let db = match self.state.enterable_database(db) {
            Ok(db) => db,
            Err(e) => {
                self.fail(&e);
                return Err(e);
            }
        };
        self.process.entry().set_database(Some(&db));
        self.state.database = Some(db);
        Ok(())
    }

    pub fn field_list(
        &mut self,
        table: &str,
        wildcard: &str,
        sink: &mut dyn ResultSink,
    ) -> Result<()> {
        let db = self
            .state
            .database
            .clone()
            .ok_or_else(Error::no_db_selected)?;
        self.state.refresh_grants();
        let (db, t) = self.lookup_table_in(db, table, None)?;
        let source = SourceTable {
            db: db.clone(),
            alias: table.to_string(),
            table: Arc::clone(&t),
            offset: 0,
            columns: ColumnAccess::default(),
            merged: Vec::new(),
            null_extended: false,
            derived: None,
        };
        let grants = &self.state.grants;
        let columns: Vec<ColumnInfo> = t
            .schema
            .columns
            .iter()
            .enumerate()
            .filter(|(_, c)| wildcard.is_empty() || variables::like_matches(wildcard, &c.name))
            .filter(|(_, c)| grants.sees_column(&db, table, &c.name))
            .map(|(i, c)| {
                let mut info = select::table_column_info(&source, i, &c.name);
                info.default = information_schema::default_text(c, self.state.time_zone);
                info
            })
            .collect();
        sink.field_list(&columns)
    }

    /// COM_RESET_CONNECTION (and the start of COM_CHANGE_USER): the session as a new
    /// login's, status counters included (MariaDB's THD::init), on the same connection.
    pub fn reset(&mut self) {
        self.end();
        self.state.counters.reset();
        self.state.user_vars.borrow_mut().clear();
        self.state.vars = self.engine.session_variables();
        self.state.refresh_cached();
        self.prepared.clear();
        self.named_prepared.clear();
        self.text_plans.clear();
        self.procedures.clear();
        self.state.clear_warnings();
        self.state.last_insert_id.set(0);
        self.state.temporary = TemporaryTables::default(); // As MariaDB's reset drops them.
    }

    /// COM_CHANGE_USER after the server authenticated `user` as `user`@`account_host`
    /// (`using_password`: whether the client sent a password).
    pub fn change_user(
        &mut self,
        user: String,
        host: String,
        account_host: String,
        using_password: bool,
        database: Option<String>,
    ) -> Result<()> {
        self.reset();
        self.state
            .set_identity(user, host, account_host, using_password);
        self.state.refresh_grants();
        let database = match database {
            Some(db) => match self.state.enterable_database(&db) {
                Ok(db) => Some(db),
                Err(e) => {
                    self.state.database = None;
                    return Err(e);
                }
            },
            None => None,
        };
        let (user, host) = (self.state.user.clone(), self.state.host.clone());
        self.process
            .entry()
            .set_identity(&user, &host, database.as_deref());
        self.state.database = database;
        Ok(())
    }

    /// The session ends or starts over (COM_RESET_CONNECTION, COM_CHANGE_USER): its
    /// transaction rolls back and its user locks are released, as in MariaDB.
    fn end(&mut self) {
        self.wait = None;
        self.pending = None;
        self.local_file = None;
        self.state.waits.end_statement();
        self.rollback_transaction();
        self.engine.user_locks().release_all(self.state.id);
    }

    // ---- statements -----------------------------------------------------------------

    /// Counts a statement's Com_* counter, unless this is its run again after a wait
    /// (`resumed`): MariaDB counts a statement once.
    fn count_statement(&mut self, counter: Counter) {
        if !self.resumed {
            self.count(counter, 1);
        }
    }

    fn begin_statement(&mut self, clears_warnings: bool) {
        // Whatever runs after the resumed statement is counted as usual.
        self.resumed = false;
        self.state.statement_warnings.set(0);
        self.state.warnings_current.set(false);
        if clears_warnings {
            self.state.clear_warnings();
        }
        self.state.statement_time.set(None);
        self.state.waits.begin_run();
        self.state.user_vars_before.borrow_mut().clear();
        self.process.entry().clear_interrupt();
    }

    /// One statement of a COM_QUERY: its cached plan if the text's shape has a fresh one,
    /// else parsed and bound (and its shape's template tried, `plan_cache`).
    fn run_piece(
        &mut self,
        text: &str,
        line: usize,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<()> {
        let mut try_template = false;
        let normalized = self.text_plans.normalize(text);
        if normalized {
            self.state.refresh_grants();
            match self.text_plans.lookup(text) {
                Lookup::Hit(plan) => {
                    let fresh = plan.is_fresh(
                        &self.engine.storage().catalog(),
                        self.state.bind_generation(),
                        self.state.database.as_deref(),
                    );
                    if fresh {
                        self.count(Counter::PlanCacheHits, 1);
                        return self.execute_cached(&plan, sink, more);
                    }
                    self.text_plans.remove();
                    self.count(Counter::PlanCacheMisses, 1);
                    try_template = true;
                }
                Lookup::Miss => {
                    self.count(Counter::PlanCacheMisses, 1);
                    try_template = true;
                }
                Lookup::Uncacheable(Some(statement)) => {
                    return self.execute(&statement, text, false, sink, more)
                }
                Lookup::Uncacheable(None) => {}
            }
        }
        let statement = Arc::new(parse::parse(text, line)?);
        let result = self.execute(&statement, text, try_template, sink, more);
        if normalized {
            self.text_plans.remember_parse(text, &statement);
        }
        result
    }

    fn execute_cached(
        &mut self,
        plan: &CachedPlan,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<()> {
        if let Some(c) = plan.counter {
            self.count_statement(c);
        }
        self.begin_statement(plan.clears_warnings);
        self.execute_with_literals(&plan.bound, sink, more)
    }

    /// Runs a parsed COM_QUERY statement. With `try_template`, the text was just
    /// normalized and its shape is new: a plannable statement whose template binds to the
    /// same plan runs through the template, which is cached for the next one.
    fn execute(
        &mut self,
        statement: &Statement,
        text: &str,
        try_template: bool,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<()> {
        if let Some(c) = com_counter(statement) {
            self.count_statement(c);
        }
        self.begin_statement(clears_warnings(statement));
        self.state.refresh_grants();
        let (bound, template) = {
            let catalog = self.engine.storage().catalog();
            let parameters =
                Parameters::untyped().with_user_variables(&self.state.user_vars.borrow());
            let bound = self.bind(&catalog, statement, text, &parameters)?;
            // The plan holds the catalog: a reference-count write on the shared catalog,
            // once per new statement shape, never on a hit.
            let template = match &bound {
                Some(bound) if try_template => {
                    self.template_plan(statement, bound, Arc::clone(&catalog))
                }
                _ => None,
            };
            (bound, template)
        };
        if try_template {
            self.text_plans.insert(template.clone());
        }
        match (template, bound) {
            (Some(plan), _) => self.execute_with_literals(&plan.bound, sink, more),
            (None, Some(bound)) => self.execute_bound(&bound, &[], sink, more),
            (None, None) => {
                self.execute_unbound(statement, text, &[], sink, more, Placeholders::Query)
            }
        }
    }

    /// Runs a template's plan with the literals of the text last normalized.
    fn execute_with_literals(
        &mut self,
        bound: &Bound,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<()> {
        let values = self.text_plans.take_values();
        let result = self.execute_bound(bound, &values, sink, more);
        self.text_plans.restore_values(values);
        result
    }

    /// The plan of the last normalized text's template, if it behaves exactly like
    /// `literal`, the statement's own plan (`plan_cache` module notes).
    fn template_plan(
        &self,
        statement: &Statement,
        literal: &Bound,
        catalog: Arc<manycore_storage::Catalog>,
    ) -> Option<Arc<CachedPlan>> {
        let text = self.text_plans.template();
        let template = parse::parse(text, 1).ok()?;
        let values = self.text_plans.values();
        let parameters = Parameters::typed(values.iter().map(parameter_type).collect());
        let bound = self.bind(&catalog, &template, text, &parameters).ok()??;
        let same_columns = std::mem::discriminant(&bound) == std::mem::discriminant(literal)
            && bound.result_columns() == literal.result_columns();
        if !same_columns || parameters.count() != values.len() || parameters.literal_dependent() {
            return None;
        }
        Some(Arc::new(CachedPlan::new(
            bound,
            com_counter(statement),
            clears_warnings(statement),
            catalog,
            self.state.bind_generation(),
            self.state.database.clone(),
        )))
    }

    /// Binds plannable statements (SELECT and DML); None for everything else.
    fn bind(
        &self,
        catalog: &manycore_storage::Catalog,
        statement: &Statement,
        text: &str,
        parameters: &Parameters,
    ) -> Result<Option<Bound>> {
        let Statement::Sql(s) = statement else {
            return Ok(None);
        };
        let cx = self.state.bind_context(catalog, text, parameters);
        Ok(Some(match s.as_ref() {
            ast::Statement::Query(q) => Bound::Select(select::bind_select_statement(q, &cx)?),
            ast::Statement::Insert(i) => Bound::Insert(dml::bind_insert(i, &cx)?),
            ast::Statement::Update(u) if multi_table::is_multi_update(u) => {
                Bound::MultiUpdate(multi_table::bind_update(u, &cx)?)
            }
            ast::Statement::Delete(d) if multi_table::is_multi_delete(d) => {
                Bound::MultiDelete(multi_table::bind_delete(d, &cx)?)
            }
            ast::Statement::Update(u) => Bound::Update(dml::bind_update(u, &cx)?),
            ast::Statement::Delete(d) => Bound::Delete(dml::bind_delete(d, &cx)?),
            _ => return Ok(None),
        }))
    }

    fn execute_bound(
        &mut self,
        bound: &Bound,
        params: &[Value],
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<()> {
        let outcome = match bound {
            Bound::Select(plan) => {
                plan.scans.count(&self.state);
                let rows = self.reading_select(plan, params, |ctx| {
                    sink.result_set_start(&plan.columns)?;
                    exec::run_found(&plan.plan, plan.calc_found_rows, ctx, |row| sink.row(row))
                })?;
                self.state.found_rows.set(rows);
                self.state.row_count.set(-1);
                return sink.result_set_end(self.status_flags(), self.state.warning_count(), more);
            }
            Bound::Insert(plan) => {
                let found_rows = self.client_found_rows;
                let write = self.writes_catalog_table(&plan.table);
                self.with_transaction(write, |txn, state, interrupt| {
                    dml::execute_insert(plan, txn, params, state, interrupt, found_rows)
                })?
            }
            Bound::Update(plan) => {
                let write = self.writes_catalog_table(&plan.scan.table);
                self.with_transaction(write, |txn, state, interrupt| {
                    dml::execute_update(plan, txn, params, state, interrupt)
                })?
            }
            Bound::Delete(plan) => {
                let write = self.writes_catalog_table(&plan.scan.table);
                self.with_transaction(write, |txn, state, interrupt| {
                    dml::execute_delete(plan, txn, params, state, interrupt)
                })?
            }
            Bound::MultiUpdate(plan) => self.with_transaction(true, |txn, state, interrupt| {
                multi_table::execute_update(plan, txn, params, state, interrupt)
            })?,
            Bound::MultiDelete(plan) => self.with_transaction(true, |txn, state, interrupt| {
                multi_table::execute_delete(plan, txn, params, state, interrupt)
            })?,
        };
        self.finish(outcome, sink, more)
    }

    /// Sends the OK packet of a statement's outcome.
    fn finish(
        &mut self,
        outcome: StatementOutcome,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<()> {
        if let Some(id) = outcome.generated_id() {
            self.state.last_insert_id.set(id);
        }
        let (affected, last_insert_id, info) = match outcome {
            StatementOutcome::ResultSet => return Ok(()),
            StatementOutcome::Returned { columns, rows } => {
                sink.result_set_start(&columns)?;
                for row in &rows {
                    sink.row(row)?;
                }
                self.state.row_count.set(-1);
                return sink.result_set_end(self.status_flags(), self.state.warning_count(), more);
            }
            StatementOutcome::Affected {
                rows,
                last_insert_id,
            } => (rows, last_insert_id, String::new()),
            StatementOutcome::Prepared => (0, 0, "Statement prepared".to_string()),
            StatementOutcome::Inserted {
                rows,
                last_insert_id,
                ..
            } => (rows, last_insert_id, String::new()),
            StatementOutcome::Records {
                records,
                duplicates,
            } => (
                0,
                0,
                counts_info(&[
                    ("Records: ", records),
                    ("  Duplicates: ", duplicates),
                    ("  Warnings: ", self.state.warning_count() as u64),
                ]),
            ),
            StatementOutcome::InsertedRows {
                rows,
                last_insert_id,
                records,
                duplicates,
                ..
            } => {
                let warnings = self.state.warning_count();
                let info = counts_info(&[
                    ("Records: ", records),
                    ("  Duplicates: ", duplicates),
                    ("  Warnings: ", warnings as u64),
                ]);
                (rows, last_insert_id, info)
            }
            StatementOutcome::Loaded {
                rows,
                records,
                deleted,
                skipped,
                ..
            } => {
                let info = counts_info(&[
                    ("Records: ", records),
                    ("  Deleted: ", deleted),
                    ("  Skipped: ", skipped),
                    ("  Warnings: ", self.state.warning_count() as u64),
                ]);
                // MariaDB's OK packet for LOAD DATA carries no id; LAST_INSERT_ID() has it.
                (rows, 0, info)
            }
            StatementOutcome::Update { matched, changed } => (
                if self.client_found_rows {
                    matched
                } else {
                    changed
                },
                0,
                counts_info(&[
                    ("Rows matched: ", matched),
                    ("  Changed: ", changed),
                    ("  Warnings: ", self.state.warning_count() as u64),
                ]),
            ),
        };
        self.state.row_count.set(affected as i64);
        let ok = OkInfo {
            affected_rows: affected,
            last_insert_id,
            status_flags: self.status_flags(),
            warnings: self.state.warning_count(),
            info,
        };
        sink.ok(&ok, more)
    }

    fn send_rows(&mut self, rows: Rows, sink: &mut dyn ResultSink, more: bool) -> Result<()> {
        sink.result_set_start(&rows.columns.into())?;
        for row in &rows.rows {
            sink.row(row)?;
        }
        self.state.row_count.set(-1);
        sink.result_set_end(self.status_flags(), self.state.warning_count(), more)
    }

    fn require_db(&self, db: Option<String>) -> Result<String> {
        db.or_else(|| self.state.database.clone())
            .ok_or_else(Error::no_db_selected)
    }

    /// SHOW COLUMNS rows (name first) the session may see: every column with a privilege
    /// on the table, else those it holds a column privilege on.
    fn visible_columns(&self, db: &str, table: &Table, mut rows: Rows) -> Rows {
        let grants = &self.state.grants;
        rows.retain_named(|name| grants.sees_column(db, &table.schema.name, name));
        rows
    }

    /// Resolves a table name the session must hold `needed` on (None: any privilege, for
    /// SHOW COLUMNS and the like). Privileges are checked before existence. The session's
    /// temporary table of the name comes first (`temporary` invariant (2)).
    fn lookup_table(
        &self,
        name: &ast::ObjectName,
        needed: Option<Privileges>,
    ) -> Result<(String, Arc<Table>)> {
        let (db, table) = crate::ddl::split_name(name)?;
        self.lookup_table_in(self.require_db(db)?, &table, needed)
    }

    /// `lookup_table` for a statement that changes a base table (ALTER TABLE, CREATE and
    /// DROP INDEX): a view of that name is 1347, as in MariaDB.
    fn lookup_base_table(
        &self,
        name: &ast::ObjectName,
        needed: Privileges,
    ) -> Result<(String, Arc<Table>)> {
        self.lookup_table(name, Some(needed)).map_err(|e| {
            if e.code != ErrorCode::NoSuchTable {
                return e;
            }
            // The name was split and its database resolved before the table was sought.
            let (db, table) = crate::ddl::split_name(name).expect("split by lookup_table");
            let db = self.require_db(db).expect("resolved by lookup_table");
            match self.engine.storage().catalog().view(&db, &table) {
                Some(_) => crate::checksum::not_base_table(&db, &table),
                None => e,
            }
        })
    }

    /// `lookup_table` of `db`.`table`.
    fn lookup_table_in(
        &self,
        db: String,
        table: &str,
        needed: Option<Privileges>,
    ) -> Result<(String, Arc<Table>)> {
        if let Some(temporary) = self.state.temporary.get(&db, table) {
            return Ok((db, Arc::clone(temporary))); // No privilege checks (`temporary` (2)).
        }
        match needed {
            Some(needed) => self.state.access().table(&db, table, needed)?,
            None => self.state.access().table_any(&db, table)?,
        }
        information_schema::find_table(&self.engine.storage().catalog(), &db, table)
    }

    /// ALTER TABLE with only table options: applied as any ALTER's (`alter_operations`).
    fn alter_table_options(
        &mut self,
        table: &ast::ObjectName,
        options: &crate::parse::TableOptions,
        if_exists: bool,
    ) -> Result<StatementOutcome> {
        let requested = crate::alter_method::Requested::read(options)?;
        check_alter_engine(options)?;
        let Some((db, table)) = self.altered_table(table, if_exists)? else {
            return Ok(StatementOutcome::ok());
        };
        let copied = self.alter_operations(&db, &table, &[], options, requested)?;
        Ok(altered(copied))
    }

    /// The table an ALTER TABLE [IF EXISTS] names; None when IF EXISTS and it does not
    /// exist: MariaDB answers OK and keeps the error as a warning, still of level Error.
    fn altered_table(
        &mut self,
        name: &ast::ObjectName,
        if_exists: bool,
    ) -> Result<Option<(String, Arc<Table>)>> {
        match self.lookup_base_table(name, Privileges::ALTER) {
            Err(e) if if_exists && e.code == ErrorCode::NoSuchTable => {
                self.state.push_warning("Error", e.code, e.message);
                Ok(None)
            }
            found => found.map(Some),
        }
    }

    /// EXPLAIN [FORMAT=TRADITIONAL] of a SELECT, UPDATE, DELETE, INSERT or REPLACE: the
    /// rows describing its plan (`explain`).
    fn explain(
        &mut self,
        statement: &ast::Statement,
        text: &str,
        params: &[Value],
        parameters: &Parameters,
    ) -> Result<Rows> {
        let ast::Statement::Explain {
            statement,
            analyze,
            format,
            ..
        } = statement
        else {
            unreachable!("the caller matched EXPLAIN")
        };
        let traditional = matches!(
            format,
            None | Some(ast::AnalyzeFormatKind::Keyword(
                ast::AnalyzeFormat::TRADITIONAL
            ))
        );
        if *analyze || !traditional {
            return Err(Error::not_supported(
                "ANALYZE and EXPLAIN FORMAT other than TRADITIONAL",
            ));
        }
        // Bound as the statement would be (its errors too), never run: EXPLAIN reads only.
        let catalog = self.engine.storage().catalog();
        let cx = self.state.bind_context(&catalog, text, parameters);
        match statement.as_ref() {
            ast::Statement::Query(query) => {
                let select = select::bind_select(query, &cx)?;
                drop(cx);
                self.reading(params, |ctx| crate::explain::explain(&select.plan, ctx))
            }
            ast::Statement::Update(u) if !multi_table::is_multi_update(u) => {
                let update = dml::bind_update(u, &cx)?;
                drop(cx);
                let sorts = !update.order.is_empty();
                self.reading(params, |ctx| {
                    crate::explain::explain_write(&update.scan, sorts, false, ctx)
                })
            }
            ast::Statement::Delete(d) if !multi_table::is_multi_delete(d) => {
                let delete = dml::bind_delete(d, &cx)?;
                drop(cx);
                let sorts = !delete.order.is_empty();
                // MariaDB reads the rows when DELETE triggers must see each one.
                let deletes_all = delete.scan.filter.is_none()
                    && !sorts
                    && delete.limit.is_none()
                    && delete.triggers.is_empty();
                self.reading(params, |ctx| {
                    crate::explain::explain_write(&delete.scan, sorts, deletes_all, ctx)
                })
            }
            ast::Statement::Insert(i) => {
                let insert = dml::bind_insert(i, &cx)?;
                drop(cx);
                match &insert.source {
                    dml::InsertSource::Select(select) => {
                        let reads_target =
                            select.tables.iter().any(|t| Arc::ptr_eq(t, &insert.table));
                        self.reading(params, |ctx| {
                            crate::explain::explain_insert_select(&select.plan, reads_target, ctx)
                        })
                    }
                    _ => Ok(crate::explain::explain_insert(&insert.table)),
                }
            }
            // A multi-table write reads its join as a SELECT would.
            ast::Statement::Update(u) => {
                let update = multi_table::bind_update(u, &cx)?;
                drop(cx);
                self.reading(params, |ctx| crate::explain::explain(&update.join, ctx))
            }
            ast::Statement::Delete(d) => {
                let delete = multi_table::bind_delete(d, &cx)?;
                drop(cx);
                self.reading(params, |ctx| crate::explain::explain(&delete.join, ctx))
            }
            _ => Err(Error::not_supported(
                "EXPLAIN of a statement other than SELECT, UPDATE, DELETE, INSERT and REPLACE",
            )),
        }
    }

    /// Runs `f` in a read-only statement of the session's transaction, with what executing
    /// a SELECT needs: its snapshot, `params` and a reader for its subqueries.
    #[inline]
    fn reading<R>(
        &mut self,
        params: &[Value],
        f: impl FnOnce(&ExecContext) -> Result<R>,
    ) -> Result<R> {
        self.with_transaction(false, |txn, state, interrupt| {
            let subqueries = exec::SubqueryReader::new(txn.view(), interrupt);
            let ctx = ExecContext {
                view: txn.view(),
                eval: EvalContext {
                    subqueries: Some(&subqueries),
                    ..EvalContext::new(params, state)
                },
                interrupt,
                skipped: None,
            };
            f(&ctx)
        })
    }

    /// `CREATE [TEMPORARY] TABLE t [(definitions)] SELECT ...`: creates the table with the
    /// columns the query's result types give (`ddl::select_definition`), then inserts the
    /// query's rows; if that fails, the table is dropped again, so a failing SELECT leaves
    /// no table. Errors of the query come before the table exists. A permanent table's rows
    /// go in a transaction of their own; a temporary table's in the session's, as an
    /// INSERT ... SELECT would (the caller checked the temporary name free).
    fn create_table_select(
        &mut self,
        create: &ast::CreateTable,
        text: &str,
        params: &[Value],
        parameters: &Parameters,
        temporary: bool,
    ) -> Result<StatementOutcome> {
        let query = create
            .query
            .as_deref()
            .ok_or_else(|| Error::parse_near("", 1))?;
        crate::storage_engine::check_create(create)?;
        let storage = self.engine.storage().clone();
        let (db, name) = crate::ddl::split_name(&create.name)?;
        let db = self.require_db(db)?;
        let catalog = storage.catalog();
        if !temporary {
            self.state
                .access()
                .table(&db, &name, Privileges::CREATE | Privileges::INSERT)?;
            if !catalog.databases.contains_key(&db) {
                return Err(Error::bad_db(&db));
            }
            if catalog.table(&db, &name).is_some() {
                if create.if_not_exists {
                    self.state.note(
                        ErrorCode::TableExists,
                        format!("Table '{name}' already exists"),
                    );
                    return Ok(StatementOutcome::ok());
                }
                return Err(storage_error(StorageError::TableExists(name)));
            }
        }
        let cx = self.state.bind_context(&catalog, text, parameters);
        let select = select::bind_select(query, &cx)?;
        let (mut definition, columns) =
            crate::ddl::select_definition(create, &db, &select.columns, &catalog, &self.state)?;
        drop(cx);
        if temporary {
            temporary::check_temporary_schema(&db, &definition.schema)?;
        }
        if !definition.schema.foreign_keys.is_empty() {
            // Their definitions would need the checks CREATE TABLE makes (foreign_key).
            return Err(Error::not_supported(
                "FOREIGN KEY in CREATE TABLE ... SELECT",
            ));
        }
        if temporary {
            let table = self.add_temporary_table(&db, definition);
            let plan = select_insert_plan(&db, table, columns, select);
            let found_rows = self.client_found_rows;
            let inserted = plan.and_then(|plan| {
                // Checked by `create_temporary_table`: LOCK TABLES ... READ allows it.
                self.with_transaction(false, |txn, state, interrupt| {
                    dml::execute_insert(&plan, txn, params, state, interrupt, found_rows)
                })
            });
            if inserted.is_err() {
                self.drop_temporary_table(&db, &name);
            }
            return inserted;
        }
        let checks = std::mem::take(&mut definition.schema.checks);
        storage
            .create_table(&db, definition.schema, false)
            .map_err(storage_error)?;
        let dropped = |e: Error| {
            // Undo the creation: the statement fails as a whole.
            let _ = storage.drop_table(&db, &name, true);
            e
        };
        if let Some(start) = definition.auto_increment_start {
            storage
                .set_auto_increment(&db, &name, start.max(1))
                .map_err(|e| dropped(storage_error(e)))?;
        }
        if !checks.is_empty() {
            storage
                .set_check_constraints(&db, &name, checks)
                .map_err(|e| dropped(storage_error(e)))?;
        }
        let table = storage
            .catalog()
            .table(&db, &name)
            .cloned()
            .ok_or_else(|| dropped(Error::no_such_table(&db, &name)))?;
        let plan = select_insert_plan(&db, table, columns, select).map_err(dropped)?;
        let mut txn = storage.begin(&self.reader);
        let inserted = dml::execute_insert(
            &plan,
            &mut txn,
            params,
            &self.state,
            self.process.entry(),
            self.client_found_rows,
        );
        match inserted {
            Ok(outcome) => {
                txn.commit().map_err(|e| dropped(storage_error(e)))?;
                Ok(outcome)
            }
            Err(e) => {
                txn.rollback();
                Err(dropped(e))
            }
        }
    }

    /// Evaluates a row-independent expression of `clause` (SET, DO, PREPARE ... FROM,
    /// EXECUTE ... USING) in the statement `text`.
    fn eval_constant(
        &mut self,
        e: &ast::Expr,
        clause: &'static str,
        text: &str,
        params: &[Value],
        parameters: &Parameters,
    ) -> Result<Value> {
        self.eval_constant_typed(e, clause, text, params, parameters)
            .map(|(value, _)| value)
    }

    /// `eval_constant`, with the expression's type.
    fn eval_constant_typed(
        &mut self,
        e: &ast::Expr,
        clause: &'static str,
        text: &str,
        params: &[Value],
        parameters: &Parameters,
    ) -> Result<(Value, DataType)> {
        let bound = self.bind_constant(e, clause, text, parameters)?;
        let value = self.eval_bound_constant(&bound, params)?;
        // Outside a transaction, nothing else checks for a sleep's KILL.
        self.state.waits.check()?;
        Ok((value, bound.data_type()))
    }

    /// Binds a row-independent expression of `clause` in the statement `text`.
    fn bind_constant(
        &self,
        e: &ast::Expr,
        clause: &'static str,
        text: &str,
        parameters: &Parameters,
    ) -> Result<crate::expr::Expr> {
        let catalog = self.engine.storage().catalog();
        let cx = self.state.bind_context(&catalog, text, parameters);
        let no_tables: [SourceTable; 0] = [];
        BindScope::in_query(&no_tables, clause, &cx).bind(e)
    }

    /// Evaluates what `bind_constant` bound. A subquery in it reads the session's
    /// transaction, as it would in a SELECT; an expression without one starts none.
    fn eval_bound_constant(
        &mut self,
        bound: &crate::expr::Expr,
        params: &[Value],
    ) -> Result<Value> {
        let mut reads_tables = false;
        crate::dml::visit(bound, &mut |e| {
            reads_tables |= matches!(
                e,
                crate::expr::Expr::Subquery(_)
                    | crate::expr::Expr::Match(_)
                    | crate::expr::Expr::Stored { .. }
            );
        });
        match reads_tables {
            true => self.reading(params, |ctx| bound.eval(&[], &ctx.eval)),
            false => bound.eval(&[], &EvalContext::new(params, &self.state)),
        }
    }

    /// PREPARE name FROM source. The statement replaces one of the same name, which is
    /// gone even when the new one fails, as in MariaDB; a NULL source reads as `NULL`.
    fn prepare_named(
        &mut self,
        name: &str,
        source: &ast::Expr,
        text: &str,
        params: &[Value],
        parameters: &Parameters,
    ) -> Result<()> {
        // MariaDB counts SQL PREPARE as a COM_STMT_PREPARE too.
        self.count(Counter::ComStmtPrepare, 1);
        let key = name.to_lowercase();
        if let Some(old) = self.named_prepared.remove(&key) {
            self.prepared.remove(&old);
        }
        let (value, data_type) =
            self.eval_constant_typed(source, "SET", text, params, parameters)?;
        let text = crate::expr::coerce::to_bytes(&value, &data_type).map_or_else(
            || "NULL".to_string(),
            |b| String::from_utf8_lossy(&b).into_owned(),
        );
        let info = self.prepare_inner(&text)?;
        self.named_prepared.insert(key, info.id);
        Ok(())
    }

    /// The statement PREPARE named `name` (1243 if none).
    fn named_statement(&self, name: &str) -> Result<u32> {
        self.named_prepared
            .get(&name.to_lowercase())
            .copied()
            .filter(|id| self.prepared.contains_key(id))
            .ok_or_else(|| unknown_handler(name, "EXECUTE"))
    }

    /// EXECUTE name [USING ...] of statement `id`: `values` are the USING expressions',
    /// one per `?`, and `variables` the user variable each expression was, if it was one.
    fn execute_named(
        &mut self,
        id: u32,
        (values, variables): (&[Value], &[Option<String>]),
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<()> {
        if self.prepared_param_count(id) != Some(values.len()) {
            return Err(Error::new(
                ErrorCode::WrongArguments,
                "Incorrect arguments to EXECUTE",
            ));
        }
        self.execute_prepared_inner(id, values, Placeholders::Using(variables), sink, more)
    }

    fn execute_unbound(
        &mut self,
        statement: &Statement,
        text: &str,
        params: &[Value],
        sink: &mut dyn ResultSink,
        more: bool,
        placeholders: Placeholders<'_>,
    ) -> Result<()> {
        let parameters = Parameters::untyped().with_user_variables(&self.state.user_vars.borrow());
        let outcome = match statement {
            Statement::Sql(s) if matches!(s.as_ref(), ast::Statement::CreateTable(c) if c.temporary) =>
            {
                let ast::Statement::CreateTable(create) = s.as_ref() else {
                    unreachable!("matched above")
                };
                // No implicit commit (`session::temporary`).
                self.create_temporary_table(create, text, params, &parameters)?
            }
            Statement::Sql(s) if matches!(s.as_ref(), ast::Statement::CreateTable(c) if c.query.is_some()) =>
            {
                let ast::Statement::CreateTable(create) = s.as_ref() else {
                    unreachable!("matched above")
                };
                self.implicit_commit()?;
                self.create_table_select(create, text, params, &parameters, false)?
            }
            Statement::Sql(s) if matches!(s.as_ref(), ast::Statement::Explain { .. }) => {
                let rows = self.explain(s, text, params, &parameters)?;
                return self.send_rows(rows, sink, more);
            }
            Statement::Sql(s) => return self.execute_sql(s, text, params, &parameters, sink, more),
            Statement::AlterTable(alter) => {
                self.implicit_commit()?;
                self.alter_table(alter)?
            }
            Statement::TableMaintenance { operation, tables } => {
                let tables = self.named_tables(tables)?;
                let temporary = &self.state.temporary;
                maintenance::check_names(*operation, &tables, &self.state.access(), temporary)?;
                let storage = self.engine.storage();
                let rows = maintenance::run(
                    *operation,
                    &tables,
                    storage,
                    &self.reader,
                    self.state.access(),
                    temporary,
                );
                return self.send_rows(rows, sink, more);
            }
            Statement::GetDiagnostics { condition, items } => {
                let condition = condition.as_ref();
                self.get_diagnostics(condition, items, text, params, &parameters)?;
                StatementOutcome::ok()
            }
            Statement::ChecksumTable { tables, quick } => {
                let tables = self.named_tables(tables)?;
                let access = self.state.access();
                let temporary = &self.state.temporary;
                maintenance::check_names(
                    maintenance::Operation::Check,
                    &tables,
                    &access,
                    temporary,
                )?;
                let rows = self.checksum_tables(&tables, *quick);
                return self.send_rows(rows, sink, more);
            }
            Statement::RenameTable { pairs, if_exists } => {
                self.implicit_commit()?;
                self.rename_table_statement(pairs, *if_exists)?
            }
            Statement::Account(a) => return self.execute_account(a, sink, more),
            Statement::View(view) => self.create_view(view)?,
            Statement::CreateTrigger(t) => self.create_trigger(t)?,
            Statement::LoadData(load) => self.load_data(load, text, &parameters)?,
            Statement::SelectInto { query, into } => {
                let prepared = !matches!(placeholders, Placeholders::Query);
                let run = (params, &parameters, prepared);
                return self.select_into(query, into, text, run, sink, more);
            }
            Statement::DropTrigger { name, if_exists } => self.drop_trigger(name, *if_exists)?,
            Statement::CreateRoutine(c) => self.create_routine(c)?,
            Statement::AlterRoutine {
                kind,
                name,
                changes,
            } => self.alter_routine(*kind, name, changes)?,
            Statement::DropRoutine {
                kind,
                name,
                if_exists,
            } => self.drop_routine(*kind, name, *if_exists)?,
            Statement::Call { name, arguments } => {
                let run = (text, params, &parameters, placeholders);
                return self.call(name, arguments, run, sink, more);
            }
            Statement::ShowWarnings {
                errors,
                count,
                limit,
            } => {
                let warnings = self.state.warnings.borrow().clone();
                let selected: Vec<&Warning> = warnings
                    .iter()
                    .filter(|w| !errors || w.level == "Error")
                    .collect();
                if *count {
                    let name = if *errors {
                        "@@session.error_count"
                    } else {
                        "@@session.warning_count"
                    };
                    let n = if *errors {
                        selected.len()
                    } else {
                        self.state.warning_total.get()
                    };
                    let rows = Rows {
                        columns: vec![ColumnInfo::expression(
                            name,
                            DataType::Int {
                                width: manycore_types::IntWidth::Big,
                                unsigned: true,
                            },
                            true,
                        )],
                        rows: vec![vec![Value::UInt(n as u64)]],
                    };
                    return self.send_rows(rows, sink, more);
                }
                let (offset, max) = limit.unwrap_or((0, u64::MAX));
                let rows = Rows {
                    columns: vec![
                        ColumnInfo::text("Level", 7),
                        ColumnInfo::expression(
                            "Code",
                            DataType::Int {
                                width: manycore_types::IntWidth::Int,
                                unsigned: true,
                            },
                            true,
                        ),
                        ColumnInfo::text("Message", 512),
                    ],
                    rows: selected
                        .iter()
                        .skip(offset as usize)
                        .take(max.min(usize::MAX as u64) as usize)
                        .map(|w| {
                            vec![
                                show::text(w.level),
                                Value::UInt(w.code as u64),
                                show::text(&w.message),
                            ]
                        })
                        .collect(),
                };
                return self.send_rows(rows, sink, more);
            }
            Statement::ShowIndex { table, db } => {
                let db = self.require_db(db.clone())?;
                let (db, t) = self.lookup_table_in(db, table, None)?;
                return self.send_rows(show::index(&db, &t), sink, more);
            }
            Statement::ShowTableStatus { db, like } => {
                let db = self.require_db(db.clone())?;
                self.state.access().sees_database(&db)?;
                let catalog = self.engine.storage().catalog();
                let db = information_schema::canonical_database(&db);
                let rows = show::table_status(&catalog, &self.state.grants, db, like.as_deref())
                    .ok_or_else(|| Error::bad_db(db))?;
                return self.send_rows(rows, sink, more);
            }
            Statement::ShowEngines => return self.send_rows(show::engines(), sink, more),
            Statement::ShowEngine { engine, what } => {
                let known = ["manycore", "innodb"]
                    .iter()
                    .any(|e| e.eq_ignore_ascii_case(engine));
                if !known {
                    return Err(Error::new(
                        ErrorCode::UnknownStorageEngine,
                        format!("Unknown storage engine '{engine}'"),
                    ));
                }
                let rows = match what.as_str() {
                    "MUTEX" => show::engine_mutex(),
                    "STATUS" => show::engine_status(&self.engine),
                    _ => return Err(Error::parse_near(what, 1)),
                };
                return self.send_rows(rows, sink, more);
            }
            Statement::ShowCreateDatabase {
                name,
                if_not_exists,
            } => {
                self.state.access().sees_database(name)?;
                let catalog = self.engine.storage().catalog();
                let Some(database) = catalog.databases.get(name) else {
                    return Err(Error::bad_db(name));
                };
                let rows = show::create_database(database, *if_not_exists);
                return self.send_rows(rows, sink, more);
            }
            Statement::ShowStoredObjects { kind, db, filter } => {
                // Triggers and events belong to a database (the current one unless named);
                // SHOW ... STATUS lists the routines of every database.
                let db = match kind {
                    StoredObjects::Routines(_) => None,
                    _ => {
                        let db = self.require_db(db.clone())?;
                        self.state.access().sees_database(&db)?;
                        let catalog = self.engine.storage().catalog();
                        // As MariaDB: SHOW EVENTS of a missing database is only empty.
                        if *kind == StoredObjects::Triggers
                            && !information_schema::database_exists(&catalog, &db)
                        {
                            return Err(Error::bad_db(&db));
                        }
                        Some(information_schema::canonical_database(&db).to_string())
                    }
                };
                let like = match filter.as_deref() {
                    Some(ast::ShowStatementFilter::Like(pattern)) => Some(pattern.as_str()),
                    _ => None,
                };
                let rows =
                    show::stored_objects(*kind, &self.state.row_source(), db.as_deref(), like);
                let predicate = match filter.as_deref() {
                    Some(ast::ShowStatementFilter::Where(w)) => Some(w),
                    _ => None,
                };
                let rows = self.filter_where(rows, predicate, params, &parameters)?;
                return self.send_rows(rows, sink, more);
            }
            Statement::AlterTableOptions {
                table,
                options,
                if_exists,
            } => {
                self.implicit_commit()?;
                self.alter_table_options(table, options, *if_exists)?
            }
            Statement::AlterDatabase {
                name,
                charset,
                collation,
            } => {
                let name = self.require_db(name.clone())?;
                self.state.access().database(&name, Privileges::ALTER)?;
                let collation = crate::ddl::default_collation(
                    charset.as_deref(),
                    collation.as_deref(),
                    Collation::Utf8mb4GeneralCi,
                )?;
                self.implicit_commit()?;
                let storage = self.engine.storage();
                if let Err(e) = storage.alter_database(&name, collation) {
                    return Err(match e {
                        // MariaDB writes the options to the database's db.opt file.
                        StorageError::NoSuchDatabase(_) => Error::new(
                            ErrorCode::CantCreateFile,
                            format!(
                                "Can't create/write to file './{name}/db.opt' (Errcode: 2 \"No \
                                 such file or directory\")"
                            ),
                        ),
                        other => storage_error(other),
                    });
                }
                StatementOutcome::Affected {
                    rows: 1,
                    last_insert_id: 0,
                }
            }
            Statement::CreateFulltextIndex(create) => {
                self.implicit_commit()?;
                self.create_index(create, KeyKind::Fulltext)?
            }
            Statement::AlterTableKeys { table } => {
                let (db, table) = self.lookup_base_table(table, Privileges::ALTER)?;
                self.implicit_commit()?;
                // Every index is kept up to date on each write, as InnoDB's are, so there is
                // nothing to disable; MariaDB says the same for InnoDB.
                self.state.note(
                    ErrorCode::IllegalHa,
                    format!(
                        "Storage engine InnoDB of the table `{db}`.`{}` doesn't have this option",
                        table.schema.name
                    ),
                );
                StatementOutcome::ok()
            }
            Statement::PrepareSql { name, source } => {
                self.prepare_named(name, source, text, params, &parameters)?;
                StatementOutcome::Prepared
            }
            Statement::ExecuteSql { name, using } => {
                let id = self.named_statement(name)?;
                let values = using
                    .iter()
                    .map(|e| self.eval_constant(e, "SET", text, params, &parameters))
                    .collect::<Result<Vec<_>>>()?;
                let variables: Vec<Option<String>> = using
                    .iter()
                    .map(|e| crate::select_into::user_variable_of(e).map(str::to_string))
                    .collect();
                return self.execute_named(id, (&values, &variables), sink, more);
            }
            Statement::DeallocateSql { name } => {
                let id = self
                    .named_prepared
                    .remove(&name.to_lowercase())
                    .ok_or_else(|| unknown_handler(name, "DEALLOCATE PREPARE"))?;
                self.prepared.remove(&id);
                StatementOutcome::ok()
            }
            Statement::Do(exprs) => {
                let bound = exprs
                    .iter()
                    .map(|e| self.bind_constant(e, "DO", text, &parameters))
                    .collect::<Result<Vec<_>>>()?;
                // As MariaDB's DO: every expression is evaluated, and one that fails
                // leaves its error as a warning of level Error; the statement succeeds.
                for e in &bound {
                    if let Err(error) = self.eval_bound_constant(e, params) {
                        self.state.push_warning("Error", error.code, error.message);
                    }
                    self.state.waits.check()?;
                }
                StatementOutcome::ok()
            }
            Statement::Sets(items) => {
                for set in items {
                    self.execute_set(set, text, params, &parameters)?;
                }
                StatementOutcome::ok()
            }
            Statement::StartTransaction {
                read_only,
                consistent_snapshot,
            } => {
                self.start_transaction(*read_only, *consistent_snapshot)?;
                StatementOutcome::ok()
            }
            Statement::SetCharacterSet(name) => {
                let charset = match name {
                    None => "utf8mb4".to_string(),
                    Some(n) => information_schema::charset_default_collation(n)
                        .map(|(c, _)| c.to_string())
                        .ok_or_else(|| Error::unknown_charset(n))?,
                };
                let connection_collation = self.state.vars.get("collation_database").cloned();
                self.set_session_text("character_set_client", &charset);
                self.set_session_text("character_set_results", &charset);
                if let Some(c) = connection_collation {
                    self.state.vars.insert("collation_connection", c);
                }
                StatementOutcome::ok()
            }
        };
        self.finish(outcome, sink, more)
    }

    fn set_session_text(&mut self, name: &'static str, value: &str) {
        self.state.vars.insert(name, Value::text(value));
    }

    fn execute_sql(
        &mut self,
        statement: &ast::Statement,
        text: &str,
        params: &[Value],
        parameters: &Parameters,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<()> {
        use ast::Statement as S;
        let outcome = match statement {
            S::Set(set) => {
                self.execute_set(set, text, params, parameters)?;
                StatementOutcome::ok()
            }
            S::Use(u) => {
                let name = match u {
                    ast::Use::Object(n) | ast::Use::Database(n) | ast::Use::Schema(n) => {
                        n.0.last().map(select::object_part).unwrap_or_default()
                    }
                    other => return Err(Error::not_supported(&other.to_string())),
                };
                let name = self.state.enterable_database(&name)?;
                self.process.entry().set_database(Some(&name));
                self.state.database = Some(name);
                StatementOutcome::ok()
            }
            S::StartTransaction { modes, .. } => {
                let read_only = modes.iter().any(|m| {
                    matches!(
                        m,
                        ast::TransactionMode::AccessMode(ast::TransactionAccessMode::ReadOnly)
                    )
                });
                self.start_transaction(read_only, false)?;
                StatementOutcome::ok()
            }
            S::Commit { .. } => {
                self.commit_transaction()?;
                StatementOutcome::ok()
            }
            S::Rollback {
                savepoint: None, ..
            } => {
                self.rollback_transaction();
                StatementOutcome::ok()
            }
            S::Savepoint { name } => {
                self.savepoint(&name.value);
                StatementOutcome::ok()
            }
            S::Rollback {
                savepoint: Some(name),
                ..
            } => {
                let position = self.savepoint_position(&name.value)?;
                let (_, savepoint) = self.savepoints[position];
                self.savepoints.truncate(position + 1);
                self.txn
                    .as_mut()
                    .expect("a savepoint implies a transaction")
                    .rollback_to(savepoint);
                StatementOutcome::ok()
            }
            S::ReleaseSavepoint { name } => {
                let position = self.savepoint_position(&name.value)?;
                self.savepoints.truncate(position);
                StatementOutcome::ok()
            }
            S::ShowDatabases { show_options, .. } | S::ShowSchemas { show_options, .. } => {
                let like = like_filter(show_options)?;
                let catalog = self.engine.storage().catalog();
                let rows = show::databases(&catalog, &self.state.grants, like.as_deref());
                let rows =
                    self.filter_where(rows, where_filter(show_options), params, parameters)?;
                return self.send_rows(rows, sink, more);
            }
            S::ShowTables {
                full, show_options, ..
            } => {
                let db = show_options
                    .show_in
                    .as_ref()
                    .and_then(|i| i.parent_name.as_ref())
                    .and_then(|n| n.0.last())
                    .map(select::object_part);
                let db = self.require_db(db)?;
                self.state.access().sees_database(&db)?;
                let like = like_filter(show_options)?;
                let catalog = self.engine.storage().catalog();
                let db = information_schema::canonical_database(&db);
                let rows = show::tables(&catalog, &self.state.grants, db, *full, like.as_deref())
                    .ok_or_else(|| Error::bad_db(db))?;
                let rows =
                    self.filter_where(rows, where_filter(show_options), params, parameters)?;
                return self.send_rows(rows, sink, more);
            }
            S::ShowColumns {
                full, show_options, ..
            } => {
                let name = show_options
                    .show_in
                    .as_ref()
                    .and_then(|i| i.parent_name.clone())
                    .ok_or_else(|| Error::parse_near("", 1))?;
                // sqlparser puts `FROM t FROM db` as [db, t].
                let (db, t) = match self.view_columns(&name)? {
                    Some(view) => view,
                    None => self.lookup_table(&name, None)?,
                };
                let like = like_filter(show_options)?;
                let rows = self.visible_columns(
                    &db,
                    &t,
                    show::columns(&t, *full, like.as_deref(), self.state.time_zone),
                );
                let rows =
                    self.filter_where(rows, where_filter(show_options), params, parameters)?;
                return self.send_rows(rows, sink, more);
            }
            S::ExplainTable { table_name, .. } => {
                let (db, t) = match self.view_columns(table_name)? {
                    Some(view) => view,
                    None => self.lookup_table(table_name, None)?,
                };
                let rows = self.visible_columns(
                    &db,
                    &t,
                    show::columns(&t, false, None, self.state.time_zone),
                );
                return self.send_rows(rows, sink, more);
            }
            S::ShowCreate {
                obj_type: ast::ShowCreateObject::View,
                obj_name,
            } => {
                let rows = self.show_create_view(obj_name, true)?;
                return self.send_rows(rows.expect("errs when there is no view"), sink, more);
            }
            S::ShowCreate {
                obj_type: ast::ShowCreateObject::Trigger,
                obj_name,
            } => {
                let rows = self.show_create_trigger(obj_name)?;
                return self.send_rows(rows, sink, more);
            }
            S::ShowCreate {
                obj_type:
                    object @ (ast::ShowCreateObject::Procedure | ast::ShowCreateObject::Function),
                obj_name,
            } => {
                let kind = match object {
                    ast::ShowCreateObject::Procedure => RoutineKind::Procedure,
                    _ => RoutineKind::Function,
                };
                let rows = self.show_create_routine(kind, obj_name)?;
                return self.send_rows(rows, sink, more);
            }
            S::ShowCreate {
                obj_type: ast::ShowCreateObject::Table,
                obj_name,
            } => {
                let (db, name) = crate::ddl::split_name(obj_name)?;
                let db = self.require_db(db)?;
                if let Some(t) = self.state.temporary.get(&db, &name) {
                    let rows = show::create_table(t, self.state.time_zone, true);
                    return self.send_rows(rows, sink, more);
                }
                if let Some(rows) = self.show_create_view(obj_name, false)? {
                    return self.send_rows(rows, sink, more);
                }
                let (db, t) = self.lookup_table(obj_name, None)?;
                // Column grants alone do not show the whole definition (MariaDB: 1142).
                self.state
                    .access()
                    .table_level_any(&db, &t.schema.name, "SHOW")?;
                let rows = show::create_table(&t, self.state.time_zone, false);
                return self.send_rows(rows, sink, more);
            }
            S::ShowVariables { filter, global, .. } => {
                let rows = self.show_variables(*global);
                let rows = self.filter_show(rows, filter.as_ref(), params, parameters)?;
                return self.send_rows(rows, sink, more);
            }
            S::ShowStatus { filter, global, .. } => {
                let like = match filter {
                    Some(ast::ShowStatementFilter::Like(p)) => Some(p.clone()),
                    _ => None,
                };
                // SESSION unless GLOBAL is written, as in MariaDB.
                let session = (!global).then_some(&self.state.counters);
                let rows = show::status(&self.engine, like.as_deref(), self.state.tls, session);
                let rows = match filter {
                    Some(ast::ShowStatementFilter::Where(w)) => {
                        self.filter_where(rows, Some(w), params, parameters)?
                    }
                    _ => rows,
                };
                return self.send_rows(rows, sink, more);
            }
            S::ShowProcessList { full } => {
                let rows = show::processlist(&self.state.row_source(), *full);
                return self.send_rows(rows, sink, more);
            }
            S::ShowCharset(c) => {
                let like = match &c.filter {
                    Some(ast::ShowStatementFilter::Like(p)) => Some(p.clone()),
                    _ => None,
                };
                return self.send_rows(show::charsets(like.as_deref()), sink, more);
            }
            S::ShowCollation { filter } => {
                let like = match filter {
                    Some(ast::ShowStatementFilter::Like(p)) => Some(p.clone()),
                    _ => None,
                };
                return self.send_rows(show::collations(like.as_deref()), sink, more);
            }
            S::Kill { modifier, id } => {
                let kind = match modifier {
                    Some(ast::KillType::Query) => KillKind::Query,
                    _ => KillKind::Connection,
                };
                let id = u32::try_from(*id).map_err(|_| no_such_thread(*id))?;
                if !self.state.grants.global(Privileges::SUPER) {
                    let owner = self.engine.processlist().user_of(id);
                    if owner
                        .as_ref()
                        .is_some_and(|owner| *owner != self.state.user)
                    {
                        return Err(Error::new(
                            ErrorCode::KillDenied,
                            format!("You are not owner of thread {id}"),
                        ));
                    }
                }
                if !self.engine.processlist().kill(id, kind) {
                    return Err(no_such_thread(id as u64));
                }
                StatementOutcome::ok()
            }
            S::Flush { object_type, .. } => {
                self.state.access().global(Privileges::RELOAD)?;
                match object_type {
                    ast::FlushType::Privileges => crate::privilege::reload(&self.engine)?,
                    ast::FlushType::Status => {
                        self.state.counters.reset();
                        let status = self.engine.status();
                        status.flush(
                            self.engine.processlist().len(),
                            self.engine.uptime_seconds(),
                        );
                    }
                    _ => {}
                }
                StatementOutcome::ok()
            }
            S::Drop {
                object_type: ast::ObjectType::Table,
                temporary: true,
                if_exists,
                names,
                ..
            } => self.drop_temporary_tables(names, *if_exists)?,
            S::Lock(lock) => self.lock_tables(lock)?,
            S::UnlockTables => {
                if std::mem::take(&mut self.tables_locked) {
                    self.implicit_commit()?;
                }
                StatementOutcome::ok()
            }
            _ => {
                self.implicit_commit()?;
                self.execute_ddl(statement)?
            }
        };
        self.finish(outcome, sink, more)
    }

    /// CREATE [UNIQUE | FULLTEXT] INDEX, which is ALTER TABLE ADD INDEX in MariaDB, but
    /// needs only the INDEX privilege; IF NOT EXISTS of a key the table has is a note.
    fn create_index(
        &mut self,
        create: &ast::CreateIndex,
        kind: KeyKind,
    ) -> Result<StatementOutcome> {
        let (db, table) = self.lookup_base_table(&create.table_name, Privileges::INDEX)?;
        let name = create
            .name
            .as_ref()
            .and_then(|n| n.0.last())
            .map(|p| ast::Ident::new(select::object_part(p)));
        let existing = name
            .as_ref()
            .filter(|n| crate::if_exists::has_key(&table.schema, &n.value));
        if let Some(existing) = existing.filter(|_| create.if_not_exists) {
            let note = Error::duplicate_key(&existing.value);
            self.state.note(note.code, note.message);
            return Ok(StatementOutcome::Records {
                records: 0,
                duplicates: 0,
            });
        }
        let columns = create.columns.clone();
        let constraint = match kind {
            KeyKind::Unique => ast::TableConstraint::Unique(ast::UniqueConstraint {
                name: None,
                index_name: name,
                index_type_display: ast::KeyOrIndexDisplay::None,
                index_type: None,
                columns,
                include: Vec::new(),
                index_options: Vec::new(),
                characteristics: None,
                nulls_distinct: ast::NullsDistinctOption::None,
            }),
            KeyKind::Plain => ast::TableConstraint::Index(ast::IndexConstraint {
                display_as_key: false,
                name,
                index_type: None,
                columns,
                index_options: Vec::new(),
            }),
            KeyKind::Fulltext => {
                ast::TableConstraint::FulltextOrSpatial(ast::FullTextOrSpatialConstraint {
                    fulltext: true,
                    index_type_display: ast::KeyOrIndexDisplay::Index,
                    opt_index_name: name,
                    columns,
                })
            }
        };
        let add = ast::AlterTableOperation::AddConstraint {
            constraint,
            not_valid: false,
        };
        let requested = crate::alter_method::Requested::of_create_index(&create.alter_options)?;
        let copied = self.alter_operations(&db, &table, &[add], &Default::default(), requested)?;
        Ok(altered(copied))
    }

    /// LOCK TABLES: checked as MariaDB checks it (the LOCK TABLES privilege on each table's
    /// database, 1044; SELECT on the table, 1142; then 1146 if there is no such table or
    /// view), then it commits like MariaDB does. No table lock is taken (documented): when
    /// every table is locked READ, the session may not write until UNLOCK TABLES, so it
    /// reads one snapshot until then instead, in a read-only transaction (writes are
    /// 1792), which makes `mariadb-dump --lock-tables` consistent; WRITE locks change
    /// nothing.
    fn lock_tables(&mut self, lock: &ast::Lock) -> Result<StatementOutcome> {
        for target in &lock.tables {
            let (db, table) = crate::ddl::split_name(&target.name)?;
            let db = self.require_db(db)?;
            if self.state.temporary.get(&db, &table).is_some() {
                continue; // The session's own: nothing to check, as in MariaDB.
            }
            let access = self.state.access();
            access.database(&db, Privileges::LOCK_TABLES)?;
            access.table(&db, &table, Privileges::SELECT)?;
            let catalog = self.engine.storage().catalog();
            if catalog.table(&db, &table).is_none() && catalog.view(&db, &table).is_none() {
                return Err(Error::no_such_table(&db, &table));
            }
        }
        let every_read = lock.lock_mode == Some(ast::LockTableMode::Share);
        match every_read {
            true => self.start_transaction(true, true)?,
            false => self.implicit_commit()?,
        }
        self.tables_locked = true;
        Ok(StatementOutcome::ok())
    }

    /// DROP of tables that do not exist: one 1051 naming all of them, a note with IF EXISTS.
    fn unknown_tables_dropped(&mut self, unknown: &[String], if_exists: bool) -> Result<()> {
        if unknown.is_empty() {
            return Ok(());
        }
        let e = Error::bad_table(unknown);
        if !if_exists {
            return Err(e);
        }
        self.state.note(e.code, e.message);
        Ok(())
    }

    fn execute_ddl(&mut self, statement: &ast::Statement) -> Result<StatementOutcome> {
        use ast::Statement as S;
        let storage = self.engine.storage().clone();
        match statement {
            S::CreateDatabase { .. }
            | S::CreateSchema {
                schema_name: ast::SchemaName::Simple(_),
                ..
            } => {
                let (db_name, if_not_exists, default_charset, default_collation) = match statement {
                    S::CreateDatabase {
                        db_name,
                        if_not_exists,
                        default_charset,
                        default_collation,
                        ..
                    } => (db_name, if_not_exists, default_charset, default_collation),
                    S::CreateSchema {
                        schema_name: ast::SchemaName::Simple(db_name),
                        if_not_exists,
                        ..
                    } => (db_name, if_not_exists, &None, &None),
                    _ => unreachable!("matched above"),
                };
                let name = db_name
                    .0
                    .last()
                    .map(select::object_part)
                    .unwrap_or_default();
                self.state.access().database(&name, Privileges::CREATE)?;
                let collation = crate::ddl::default_collation(
                    default_charset.as_deref(),
                    default_collation.as_deref(),
                    Collation::Utf8mb4GeneralCi,
                )?;
                let created = storage
                    .create_database(&name, collation, *if_not_exists)
                    .map_err(storage_error)?;
                if !created {
                    self.state.note(
                        ErrorCode::DbCreateExists,
                        format!("Can't create database '{name}'; database exists"),
                    );
                }
                Ok(StatementOutcome::Affected {
                    rows: created as u64,
                    last_insert_id: 0,
                })
            }
            S::Drop {
                object_type: ast::ObjectType::Schema | ast::ObjectType::Database,
                if_exists,
                names,
                ..
            } => {
                let name = names
                    .first()
                    .and_then(|n| n.0.last())
                    .map(select::object_part)
                    .unwrap_or_default();
                self.state.access().database(&name, Privileges::DROP)?;
                match storage.drop_database(&name, *if_exists) {
                    Ok(Some(tables)) => {
                        if self.state.database.as_deref() == Some(name.as_str()) {
                            self.state.database = None;
                            self.process.entry().set_database(None);
                        }
                        Ok(StatementOutcome::Affected {
                            rows: tables as u64,
                            last_insert_id: 0,
                        })
                    }
                    Ok(None) => {
                        self.state.note(
                            ErrorCode::DbDropExists,
                            format!("Can't drop database '{name}'; database doesn't exist"),
                        );
                        Ok(StatementOutcome::ok())
                    }
                    Err(StorageError::NoSuchDatabase(_)) => Err(Error::new(
                        ErrorCode::DbDropExists,
                        format!("Can't drop database '{name}'; database doesn't exist"),
                    )),
                    Err(e) => Err(storage_error(e)),
                }
            }
            S::CreateTable(create) => {
                if create.query.is_some() || create.clone.is_some() {
                    return Err(Error::not_supported("CREATE TABLE ... SELECT"));
                }
                crate::storage_engine::check_create(create)?;
                let (db, name) = crate::ddl::split_name(&create.name)?;
                let db = self.require_db(db)?;
                self.state.access().table(&db, &name, Privileges::CREATE)?;
                if !storage.catalog().databases.contains_key(&db) {
                    return Err(Error::bad_db(&db));
                }
                let mut definition = match &create.like {
                    Some(
                        ast::CreateTableLikeKind::Plain(like)
                        | ast::CreateTableLikeKind::Parenthesized(like),
                    ) => {
                        // A temporary source too: the copy is permanent, as in MariaDB.
                        let (_, source) =
                            self.lookup_table(&like.name, Some(Privileges::SELECT))?;
                        crate::ddl::like_definition(&name, &source)?
                    }
                    None => {
                        let collation = crate::ddl::database_collation(&storage.catalog(), &db);
                        crate::ddl::table_definition(create, &db, collation, &self.state)?
                    }
                };
                // Storage logs CHECK constraints apart (its `set_check_constraints`).
                let checks = std::mem::take(&mut definition.schema.checks);
                let schema = &definition.schema;
                if !schema.foreign_keys.is_empty() && storage.catalog().table(&db, &name).is_none()
                {
                    crate::foreign_key::check_definitions(
                        &storage.catalog(),
                        &db,
                        schema,
                        &schema.foreign_keys,
                        self.state.foreign_key_checks,
                        &name,
                    )?;
                }
                match storage.create_table(&db, definition.schema, create.if_not_exists) {
                    Ok(true) => {
                        if let Some(start) = definition.auto_increment_start {
                            storage
                                .set_auto_increment(&db, &name, start.max(1))
                                .map_err(storage_error)?; // Logged, so recovery keeps it.
                        }
                        if !checks.is_empty() {
                            storage
                                .set_check_constraints(&db, &name, checks)
                                .map_err(storage_error)?;
                        }
                        Ok(StatementOutcome::ok())
                    }
                    Ok(false) => {
                        self.state.note(
                            ErrorCode::TableExists,
                            format!("Table '{name}' already exists"),
                        );
                        Ok(StatementOutcome::ok())
                    }
                    Err(e) => Err(storage_error(e)),
                }
            }
            S::Drop {
                object_type: ast::ObjectType::View,
                if_exists,
                names,
                ..
            } => self.drop_views(names, *if_exists),
            S::Drop {
                object_type: ast::ObjectType::Table,
                if_exists,
                names,
                ..
            } => {
                let mut referenced = false;
                let mut to_drop: Vec<(String, String)> = Vec::new();
                for n in names {
                    let (db, table) = crate::ddl::split_name(n)?;
                    let db = self.require_db(db)?;
                    if self.drop_temporary_table(&db, &table) {
                        continue; // It hid any table of its name (`temporary` (2)).
                    }
                    self.state.access().table(&db, &table, Privileges::DROP)?;
                    if self.lookup_view(n, Some(Privileges::DROP))?.is_some() {
                        // As MariaDB: a view is not dropped by DROP TABLE.
                        let message = format!("'{db}.{table}' is a view");
                        if !*if_exists {
                            return Err(Error::new(ErrorCode::IsAView, message));
                        }
                        self.state.note(ErrorCode::IsAView, message);
                        continue;
                    }
                    // MariaDB drops the listed tables in order, each when it comes to it: a
                    // parent whose child still exists (is not listed before it) stays, the
                    // others go, and the statement then fails with 1451.
                    if self.state.foreign_key_checks
                        && self.has_children_besides(&db, &table, &to_drop)
                    {
                        referenced = true;
                        continue;
                    }
                    to_drop.push((db, table));
                }
                // One storage call, so a table another transaction holds rows of makes the
                // statement wait before it drops any (MariaDB locks every table first).
                let names: Vec<(&str, &str)> = to_drop
                    .iter()
                    .map(|(db, table)| (db.as_str(), table.as_str()))
                    .collect();
                let existed = storage.drop_tables(&names).map_err(storage_error)?;
                let missing: Vec<String> = names
                    .iter()
                    .zip(existed)
                    .filter(|(_, existed)| !existed)
                    .map(|((db, table), _)| format!("{db}.{table}"))
                    .collect();
                if referenced {
                    return Err(crate::foreign_key::parent_dropped());
                }
                self.unknown_tables_dropped(&missing, *if_exists)?;
                Ok(StatementOutcome::ok())
            }
            S::CreateIndex(create) => {
                let kind = match create.unique {
                    true => KeyKind::Unique,
                    false => KeyKind::Plain,
                };
                self.create_index(create, kind)
            }
            S::Drop {
                object_type: ast::ObjectType::Index,
                names,
                table: Some(table_name),
                if_exists,
                ..
            } => {
                use crate::alter::{drop_target_exists, DropKind};
                let (db, table) = self.lookup_base_table(table_name, Privileges::INDEX)?;
                // As in MariaDB, DROP INDEX is ALTER TABLE DROP INDEX.
                let mut drops = Vec::new();
                for n in names {
                    let name = n.0.last().map(select::object_part).unwrap_or_default();
                    if *if_exists && !drop_target_exists(DropKind::Index, &table.schema, &name) {
                        let note = Error::cant_drop("INDEX", &name);
                        self.state.note(note.code, note.message);
                        continue;
                    }
                    drops.push(ast::AlterTableOperation::DropIndex {
                        name: ast::Ident::new(name),
                    });
                }
                let mut copied = 0; // Only a temporary table's rows are copied.
                if !drops.is_empty() {
                    let requested = Default::default();
                    copied =
                        self.alter_operations(&db, &table, &drops, &Default::default(), requested)?;
                }
                Ok(altered(copied))
            }
            S::Truncate(t) => {
                for target in &t.table_names {
                    let (db, table) = self.lookup_table(&target.name, Some(Privileges::DROP))?;
                    if self.is_temporary(&db, &table) {
                        self.truncate_temporary(&db, &table);
                        continue;
                    }
                    storage
                        .truncate_table(&db, &table.schema.name)
                        .map_err(storage_error)?;
                }
                Ok(StatementOutcome::ok())
            }
            other => Err(Error::not_supported(&first_words(&other.to_string()))),
        }
    }

    /// ALTER TABLE: the operations whose IF [NOT] EXISTS fails are left out with their
    /// notes (`if_exists::runnable`), the others run in order, RENAME last.
    fn alter_table(
        &mut self,
        statement: &crate::if_exists::AlterTable,
    ) -> Result<StatementOutcome> {
        let alter = &statement.alter;
        let storage = self.engine.storage().clone();
        let requested = crate::alter_method::Requested::read(&statement.options)?;
        check_alter_engine(&statement.options)?;
        let Some((db, table)) = self.altered_table(&alter.name, alter.if_exists)? else {
            return Ok(StatementOutcome::ok());
        };
        // Judged now: the operations replace the session's temporary table object.
        let temporary = self.is_temporary(&db, &table);
        // RENAME [TO|AS] comes last, after the other operations, whatever its place
        // (as MariaDB does it); the last one counts. Its target is checked first, so
        // a RENAME that must fail leaves the other operations undone.
        let is_rename = |op: &ast::AlterTableOperation| {
            matches!(op, ast::AlterTableOperation::RenameTable { .. })
        };
        let rename = match alter.operations.iter().rev().find(|op| is_rename(op)) {
            Some(ast::AlterTableOperation::RenameTable {
                table_name: ast::RenameTableNameKind::To(new) | ast::RenameTableNameKind::As(new),
            }) => {
                crate::alter_method::check_rename(requested)?;
                let rename = self.rename_pair(&alter.name, new)?;
                let same = rename.to_db == rename.from_db && rename.to == table.schema.name;
                if temporary {
                    if !same
                        && self
                            .state
                            .temporary
                            .get(&rename.to_db, &rename.to)
                            .is_some()
                    {
                        return Err(storage_error(StorageError::TableExists(rename.to)));
                    }
                    (!same).then_some(rename)
                } else {
                    let catalog = storage.catalog();
                    let Some(target) = catalog.databases.get(&rename.to_db) else {
                        return Err(rename_into_missing_database(&rename));
                    };
                    if !same
                        && (target.tables.contains_key(&rename.to)
                            || target.views.contains_key(&rename.to))
                    {
                        return Err(storage_error(StorageError::TableExists(rename.to)));
                    }
                    (!same).then_some(rename)
                }
            }
            _ => None,
        };
        let mut operations = crate::if_exists::runnable(&table.schema, statement, &self.state);
        operations.retain(|op| !is_rename(op));
        // Rows an ALTER ADD FOREIGN KEY or CHECK checked or a column change copied: MariaDB
        // copies the table then.
        let copied =
            self.alter_operations(&db, &table, &operations, &statement.options, requested)?;
        if let Some(rename) = rename {
            match temporary {
                true => self.rename_temporary_tables(&[rename])?,
                false => self.rename_tables(&[rename])?,
            }
        }
        if operations.is_empty() && alter.operations.iter().any(is_rename) {
            return Ok(StatementOutcome::ok()); // Only RENAME: no "Records:" info.
        }
        Ok(altered(copied))
    }

    /// GET DIAGNOSTICS outside a body, on the diagnostics area SHOW WARNINGS lists (which
    /// it leaves as it is): NUMBER is its count, ROW_COUNT the last statement's, and
    /// CONDITION n its n-th condition. A condition number out of range sets nothing and
    /// adds MariaDB's 1758 to the area, at level Error, though the statement succeeds.
    /// Targets are user variables (a bare name is 1327, as in MariaDB).
    fn get_diagnostics(
        &mut self,
        condition: Option<&ast::Expr>,
        items: &[(String, &'static str)],
        text: &str,
        params: &[Value],
        parameters: &Parameters,
    ) -> Result<()> {
        let targets = items
            .iter()
            .map(|(target, _)| match target.strip_prefix('@') {
                Some(name) if !name.starts_with('@') => Ok(name.to_string()),
                _ => Err(Error::new(
                    ErrorCode::SpUndeclaredVar,
                    format!("Undeclared variable: {target}"),
                )),
            })
            .collect::<Result<Vec<_>>>()?;
        let warnings = self.state.warnings.borrow().clone();
        let chosen = match condition {
            None => None,
            Some(number) => {
                let number =
                    self.eval_constant(number, "GET DIAGNOSTICS", text, params, parameters)?;
                let index = crate::expr::coerce::to_i128(&number, &self.state)
                    .and_then(|n| usize::try_from(n).ok())
                    .and_then(|n| n.checked_sub(1));
                match index.and_then(|i| warnings.get(i)) {
                    Some(warning) => Some(warning),
                    None => {
                        // Added to the area as it stands, not to a fresh one.
                        self.state.warnings_current.set(true);
                        let code = ErrorCode::DaInvalidConditionNumber;
                        self.state
                            .push_warning("Error", code, "Invalid condition number".into());
                        return Ok(());
                    }
                }
            }
        };
        for ((_, item), name) in items.iter().zip(targets) {
            let value = match (*item, chosen) {
                ("NUMBER", _) => Value::Int(warnings.len() as i64),
                ("ROW_COUNT", _) => Value::Int(self.state.row_count.get()),
                ("RETURNED_SQLSTATE", Some(w)) => Value::text(&w.sqlstate),
                ("MESSAGE_TEXT", Some(w)) => Value::text(&w.message),
                ("MYSQL_ERRNO", Some(w)) => Value::Int(w.code.into()),
                // The other condition items are empty for the server's own conditions.
                _ => Value::text(""),
            };
            self.state.set_user_variable(&name, value);
        }
        Ok(())
    }

    /// The tables a maintenance statement names, unqualified ones in the current database.
    fn named_tables(&self, names: &[ast::ObjectName]) -> Result<maintenance::Named> {
        names
            .iter()
            .map(|name| {
                let (db, table) = crate::ddl::split_name(name)?;
                Ok((self.require_db(db)?, table))
            })
            .collect()
    }

    /// CHECKSUM TABLE over a fresh snapshot (as CHECK TABLE reads): a missing table or a
    /// view is NULL with MariaDB's error as an Error-level warning; information_schema's
    /// tables are 0, as MariaDB answers.
    fn checksum_tables(&self, tables: &maintenance::Named, quick: bool) -> Rows {
        let storage = self.engine.storage();
        let catalog = storage.catalog();
        let checksums = tables
            .iter()
            .map(|(db, name)| {
                let shown = format!("{db}.{name}");
                if information_schema::is_name(db) {
                    return (shown, Some(0));
                }
                let found = self.state.temporary.get(db, name);
                let Some(table) = found.or_else(|| catalog.table(db, name)) else {
                    let e = match catalog.view(db, name) {
                        Some(_) => crate::checksum::not_base_table(db, name),
                        None => Error::no_such_table(db, name),
                    };
                    self.state.push_warning("Error", e.code, e.message);
                    return (shown, None);
                };
                if quick {
                    return (shown, None);
                }
                let txn = storage.begin(&self.reader);
                let sum = crate::checksum::table_checksum(table, &txn.view());
                let _ = txn.commit(); // Read-only: nothing to log, cannot fail.
                (shown, Some(sum))
            })
            .collect();
        crate::checksum::result_rows(checksums)
    }

    /// RENAME TABLE [IF EXISTS]. With IF EXISTS a pair whose table does not exist when its
    /// turn comes (after the pairs before it) is left out with a Note, as in MariaDB. The
    /// pairs renaming the session's temporary tables (`renames_temporary`) are checked
    /// first and renamed after the catalog's, all or none: when pairs of both kinds would
    /// fail, the temporary one's 1050 is the error, wherever it stands.
    fn rename_table_statement(
        &mut self,
        pairs: &[ast::RenameTable],
        if_exists: bool,
    ) -> Result<StatementOutcome> {
        let all = pairs
            .iter()
            .map(|p| self.rename_names(&p.old_name, &p.new_name))
            .collect::<Result<Vec<_>>>()?;
        let mut is_temporary = self.renames_temporary(&all).into_iter();
        let (temporary, mut renames): (Vec<_>, Vec<_>) = all
            .into_iter()
            .partition(|_| is_temporary.next() == Some(true));
        for rename in &renames {
            self.check_rename_privileges(rename)?;
        }
        self.check_temporary_renames(&temporary)?;
        if if_exists {
            let catalog = self.engine.storage().catalog();
            // (db, name, exists) as the kept pairs before leave them, the latest last.
            let mut moved: Vec<(String, String, bool)> = Vec::new();
            renames.retain(|r| {
                let exists = match moved
                    .iter()
                    .rev()
                    .find(|(db, name, _)| *db == r.from_db && *name == r.from)
                {
                    Some((_, _, exists)) => *exists,
                    None => {
                        catalog.table(&r.from_db, &r.from).is_some()
                            || catalog.view(&r.from_db, &r.from).is_some()
                    }
                };
                if !exists {
                    let note = Error::no_such_table(&r.from_db, &r.from);
                    self.state.note(note.code, note.message);
                    return false;
                }
                moved.push((r.from_db.clone(), r.from.clone(), false));
                moved.push((r.to_db.clone(), r.to.clone(), true));
                true
            });
        }
        // The catalog's renames may fail; the temporary tables' cannot once checked.
        if !renames.is_empty() {
            self.rename_tables(&renames)?;
        }
        self.apply_temporary_renames(&temporary);
        Ok(StatementOutcome::ok())
    }

    /// One pair of ALTER TABLE ... RENAME, names resolved (`rename_names`) and privileges
    /// checked unless it renames the session's own temporary table.
    fn rename_pair(&self, from: &ast::ObjectName, to: &ast::ObjectName) -> Result<TableRename> {
        let rename = self.rename_names(from, to)?;
        if self
            .state
            .temporary
            .get(&rename.from_db, &rename.from)
            .is_none()
        {
            self.check_rename_privileges(&rename)?;
        }
        Ok(rename)
    }

    /// A rename's names, an unqualified one in the current database.
    fn rename_names(&self, from: &ast::ObjectName, to: &ast::ObjectName) -> Result<TableRename> {
        let (from_db, from) = crate::ddl::split_name(from)?;
        let from_db = self.require_db(from_db)?;
        let (to_db, to) = crate::ddl::split_name(to)?;
        let to_db = self.require_db(to_db)?;
        Ok(TableRename {
            from_db,
            from,
            to_db,
            to,
        })
    }

    /// The privileges MariaDB checks to rename a table of the catalog: ALTER and DROP on
    /// the old name, CREATE and INSERT on the new. (The session's own temporary table is
    /// renamed without.)
    fn check_rename_privileges(&self, rename: &TableRename) -> Result<()> {
        let access = self.state.access();
        access.table(
            &rename.from_db,
            &rename.from,
            Privileges::ALTER | Privileges::DROP,
        )?;
        access.table(
            &rename.to_db,
            &rename.to,
            Privileges::CREATE | Privileges::INSERT,
        )
    }

    /// Renames as one storage change (`Storage::rename_tables`: pairs in order, all or
    /// none, foreign keys following a renamed parent; views naming a table are left as
    /// they are, as in MariaDB), with MariaDB's errors.
    ///
    /// A table another transaction holds a row of is not renamed: storage refuses it
    /// (`TableBusy`) because that transaction's commit would be logged under the old name.
    /// The statement waits for that transaction and runs again (invariant (4)), as MariaDB
    /// waits for the table's metadata lock, until lock_wait_timeout.
    fn rename_tables(&self, renames: &[TableRename]) -> Result<()> {
        match self.engine.storage().rename_tables(renames) {
            Ok(()) => Ok(()),
            Err(StorageError::NoSuchTable(name)) => Err(Error::new(
                ErrorCode::NoSuchTable,
                format!("Table '{name}' doesn't exist"),
            )),
            // The first pair into that database: the pairs before it did not fail.
            Err(StorageError::NoSuchDatabase(db)) => match renames.iter().find(|r| r.to_db == db) {
                Some(rename) => Err(rename_into_missing_database(rename)),
                None => Err(Error::bad_db(&db)),
            },
            Err(StorageError::ViewAcrossDatabases { from, to, .. }) => Err(Error::new(
                ErrorCode::ForbidSchemaChange,
                format!("Changing schema from '{from}' to '{to}' is not allowed"),
            )),
            Err(e) => Err(storage_error(e)),
        }
    }

    /// Whether a table other than `table` itself and those in `dropped` has a foreign key
    /// naming it: DROP TABLE refuses it with foreign_key_checks on.
    fn has_children_besides(&self, db: &str, table: &str, dropped: &[(String, String)]) -> bool {
        let catalog = self.engine.storage().catalog();
        let referenced = catalog.children_of(db, table).any(|(child, _)| {
            let child = (child.db(), child.schema.name.as_str());
            child != (db, table)
                && !dropped
                    .iter()
                    .any(|(d, t)| (d.as_str(), t.as_str()) == child)
        });
        referenced
    }

    /// Applies ALTER TABLE's operations to a copy of `table`'s schema and installs the
    /// result with one `Storage::alter_table` (`alter` module, invariant (3)): a failure
    /// leaves the table as it was. Returns the rows copied or checked if MariaDB would
    /// copy them, else 0.
    fn alter_operations(
        &mut self,
        db: &str,
        table: &Arc<Table>,
        operations: &[ast::AlterTableOperation],
        options: &crate::parse::TableOptions,
        requested: crate::alter_method::Requested,
    ) -> Result<u64> {
        use crate::alter::{convert_row, keeps_rows, row_copy, Alteration, Failure};
        use crate::foreign_key::Enforcer;
        use manycore_storage::TableForeignKeys;
        let storage = self.engine.storage().clone();
        let catalog = storage.catalog();
        let operations = &crate::alter::split_column_keys(operations);
        let operations = &crate::alter::resolve_drops(&table.schema, operations);
        crate::alter::check_drop_targets(&table.schema, operations)?;
        let mut start = (*table.schema).clone();
        crate::alter::apply_table_options(&mut start, options)?;
        let dropped_keys = crate::alter::drop_foreign_keys(&mut start, operations)?;
        let mut alteration = Alteration::new(db, &start);
        for op in operations {
            if crate::alter::is_column_operation(op) {
                alteration.apply(op, &catalog, &self.state)?;
            } else if !crate::alter::is_key_operation(op) {
                return Err(Error::not_supported(&format!("ALTER TABLE {op}")));
            }
        }
        let renamed = std::mem::take(&mut alteration.renamed);
        let json_checks_added = alteration.checks_added;
        let (mut schema, sources) = alteration.finish()?;
        if options.convert {
            crate::alter::convert_character_columns(&mut schema);
        }
        let checks = self.state.foreign_key_checks;
        let mut edits = crate::alter::edit_keys(
            db,
            &mut schema,
            &dropped_keys,
            operations,
            &catalog,
            checks,
            &self.state,
        )?;
        edits.checks_added |= json_checks_added;
        let rename = |columns: &mut Vec<String>| {
            for column in columns {
                if let Some((_, new)) = renamed
                    .iter()
                    .find(|(old, _)| old.eq_ignore_ascii_case(column))
                {
                    *column = new.clone();
                }
            }
        };
        // Foreign keys naming the table's renamed columns follow (as in MariaDB): its own
        // in the new schema, other tables' in the same catalog change.
        let name = &table.schema.name;
        let temporary = self.is_temporary(db, table);
        if temporary {
            temporary::check_temporary_schema(db, &schema)?;
        }
        for fk in &mut schema.foreign_keys {
            if fk.parent_db == db && fk.parent_table == *name {
                rename(&mut fk.parent_columns);
            }
        }
        // No foreign key names a temporary table: the catalog's name a table it hides.
        let followers: Vec<TableForeignKeys> = catalog
            .children_of(db, name)
            .filter(|_| !temporary)
            .filter(|(child, _)| child.schema.name != *name || child.db() != db)
            .filter_map(|(child, _)| {
                let mut keys = child.schema.foreign_keys.clone();
                for fk in &mut keys {
                    if fk.parent_db == db && fk.parent_table == *name {
                        rename(&mut fk.parent_columns);
                    }
                }
                (keys != child.schema.foreign_keys).then(|| TableForeignKeys {
                    db: child.db().to_string(),
                    table: child.schema.name.clone(),
                    foreign_keys: keys,
                })
            })
            .collect();
        drop(catalog);
        let row_copy = row_copy(&table.schema, &schema, &sources);
        // Judged only when a clause asks for something: without one any change goes.
        if requested != crate::alter_method::Requested::default() {
            let needed = crate::alter_method::needed(&crate::alter_method::Change {
                old: &table.schema,
                new: &schema,
                sources: &sources,
                operations,
                row_copy,
                checks_added: edits.checks_added,
                checked_foreign_keys: checks && !edits.foreign_keys_added.is_empty(),
                rebuild: options.rebuild,
            });
            crate::alter_method::check(requested, needed)?;
        }
        let changed = schema != *table.schema || !followers.is_empty();
        // ALGORITHM=COPY rebuilds the rows whatever changed, as MariaDB's copy does; so does
        // any ALTER of a temporary table, as in MariaDB (its count is the rows copied).
        let forced_copy = changed && (requested.forces_copy() || temporary);
        let keeps = keeps_rows(&table.schema, &schema, &sources) && !forced_copy;
        let built_index = schema
            .indexes
            .iter()
            .any(|index| !table.schema.indexes.contains(index));
        let mut rows = 0;
        if edits.checks_added && keeps {
            let txn = storage.begin(&self.reader);
            let view = txn.view();
            rows = crate::check::verify_rows(db, table, &schema, &view, &self.state)?;
        }
        // A copy checks each converted row against the CHECKs, as MariaDB's does, so a
        // violation is reported before a duplicate key of a later row.
        let bound_checks = match edits.checks_added && !keeps {
            true => crate::check::bind(db, &Arc::new(Table::detached(db, schema.clone())))?,
            false => Vec::new(),
        };
        // A rebuilt table's generated columns are computed again from each converted row.
        let bound_generated = match keeps {
            false => crate::generated::bind(&Arc::new(Table::detached(db, schema.clone())))?,
            true => Vec::new(),
        };
        let copies = row_copy.is_some() || forced_copy;
        let session = &self.state;
        let eval = crate::expr::EvalContext::new(&[], session);
        let mut converted = 0;
        let mut convert = |number: u64, row: &[Value]| {
            converted = number;
            let mut row = convert_row(&table.schema, &schema, &sources, row, number, session)
                .map_err(Failure::Sql)?;
            crate::generated::fill(
                &bound_generated,
                &schema,
                &mut row,
                number,
                session.strict(),
                &eval,
            )
            .map_err(Failure::Sql)?;
            crate::check::row_passes(&bound_checks, db, name, &row, &eval, false)
                .map_err(Failure::Sql)?;
            Ok(row)
        };
        let convert: Option<&mut manycore_storage::RowConversion<'_, _>> = match keeps {
            true => None,
            false => Some(&mut convert),
        };
        // Foreign keys check the new table's rows (converted, if the copy converted them).
        let mut checked = 0;
        let reader = &self.reader;
        let verify = |new: &Table| {
            if !checks || edits.foreign_keys_added.is_empty() {
                return Ok(());
            }
            let txn = storage.begin(reader);
            let catalog = arc_swap::Guard::into_inner(storage.catalog());
            let result = edits.foreign_keys_added.iter().try_for_each(|key| {
                checked = Enforcer::check_rows(catalog.clone(), &txn, new, key)?;
                Ok(())
            });
            let _ = txn.commit(); // Read-only: nothing to log, cannot fail.
            result.map_err(Failure::Sql)
        };
        let mut altered_temporary = None;
        let result = match (changed, temporary) {
            (true, false) => {
                storage.alter_table(db, name, schema.clone(), followers, convert, verify)
            }
            (true, true) => storage
                .alter_temporary_table(table, schema.clone(), convert, verify)
                .map(|new| altered_temporary = Some(new)),
            (false, _) => Ok(()),
        };
        match result {
            Ok(()) => {}
            Err(Failure::Sql(e)) => return Err(e),
            Err(Failure::Storage(StorageError::DuplicateKey { index, existing })) => {
                let txn = storage.begin(&self.reader);
                let row = existing
                    .read(&txn.view(), |r| r.to_vec())
                    .unwrap_or_default();
                let _ = txn.commit(); // Read-only: nothing to log, cannot fail.
                let (columns, prefixes, index_name) = match index {
                    manycore_storage::IndexNo::Secondary(i) => {
                        let index = &schema.indexes[i];
                        (
                            index.columns.clone(),
                            index.prefix_lengths.clone(),
                            index.name.as_str(),
                        )
                    }
                    manycore_storage::IndexNo::Primary => {
                        let pk = schema.primary_key.clone().unwrap_or_default();
                        let prefixes = vec![None; pk.len()];
                        (pk, prefixes, "PRIMARY")
                    }
                };
                return Err(crate::dml::duplicate_entry(
                    &schema, &columns, &prefixes, index_name, &row,
                ));
            }
            Err(Failure::Storage(e)) => return Err(storage_error(e)),
        }
        // The temporary table as it is now (the session's from here on).
        let temporary_now = temporary.then(|| match altered_temporary {
            Some(new) => {
                self.state.temporary.replace(db, Arc::clone(&new));
                new
            }
            None => Arc::clone(table),
        });
        if let Some(asked) = options.auto_increment.or(edits.auto_increment) {
            // As InnoDB: the value asked, but above every value the column holds.
            let next = match schema.auto_increment_column() {
                Some(column) => {
                    let altered = match &temporary_now {
                        Some(table) => Some(Arc::clone(table)),
                        None => storage.catalog().table(db, name).cloned(),
                    };
                    let altered = altered.ok_or_else(|| Error::no_such_table(db, name))?;
                    let txn = storage.begin(&self.reader);
                    let largest =
                        crate::alter::largest_auto_increment(&altered, column, &txn.view());
                    let _ = txn.commit(); // Read-only: nothing to log, cannot fail.
                    asked.max(largest.saturating_add(1))
                }
                None => asked,
            };
            match &temporary_now {
                Some(table) => table.set_auto_increment(next),
                // Logged, so recovery keeps it; only a log failure can fail it.
                None => storage
                    .set_auto_increment(db, name, next)
                    .map_err(storage_error)?,
            }
        }
        if copies || edits.checks_added {
            rows = rows.max(converted); // The copy checked them.
        }
        let table_name = format!("`{db}`.`{name}`");
        for note in crate::alter_method::unkept(requested, &table_name, !keeps, built_index) {
            self.state.note(note.code, note.message);
        }
        Ok(rows.max(checked))
    }

    fn show_variables(&self, global: bool) -> Rows {
        let rows = self.state.variable_rows(global);
        Rows {
            columns: vec![
                ColumnInfo::text("Variable_name", 64),
                ColumnInfo::text("Value", 2048),
            ],
            rows,
        }
    }

    fn filter_show(
        &self,
        rows: Rows,
        filter: Option<&ast::ShowStatementFilter>,
        params: &[Value],
        parameters: &Parameters,
    ) -> Result<Rows> {
        match filter {
            None => Ok(rows),
            Some(ast::ShowStatementFilter::Like(p)) => Ok(Rows {
                columns: rows.columns,
                rows: rows
                    .rows
                    .into_iter()
                    .filter(|r| {
                        r[0].as_bytes().is_some_and(|b| {
                            variables::like_matches(p, &String::from_utf8_lossy(b))
                        })
                    })
                    .collect(),
            }),
            Some(ast::ShowStatementFilter::Where(w)) => {
                self.filter_where(rows, Some(w), params, parameters)
            }
            Some(other) => Err(Error::not_supported(&other.to_string())),
        }
    }

    /// SHOW ... WHERE: the predicate sees the result columns by name.
    fn filter_where(
        &self,
        rows: Rows,
        predicate: Option<&ast::Expr>,
        params: &[Value],
        parameters: &Parameters,
    ) -> Result<Rows> {
        let Some(predicate) = predicate else {
            return Ok(rows);
        };
        let aliases: Vec<Alias> = rows
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| Alias {
                name: c.name.clone(),
                column: crate::expr::ColumnRef::computed(i, c.data_type.clone(), !c.not_null),
            })
            .collect();
        let no_tables: [SourceTable; 0] = [];
        let mut scope = BindScope::new(&no_tables, "WHERE", parameters);
        scope.aliases = &aliases;
        let bound = scope.bind(predicate)?;
        let ctx = EvalContext::new(params, &self.state);
        let mut kept = Vec::new();
        for row in rows.rows {
            let v = bound.eval(&row, &ctx)?;
            if crate::expr::coerce::truth(&v, &self.state) == Some(true) {
                kept.push(row);
            }
        }
        self.state.waits.check()?;
        Ok(Rows {
            columns: rows.columns,
            rows: kept,
        })
    }

    fn execute_set(
        &mut self,
        set: &ast::Set,
        text: &str,
        params: &[Value],
        parameters: &Parameters,
    ) -> Result<()> {
        match set {
            ast::Set::SingleAssignment {
                scope,
                variable,
                values,
                ..
            } => {
                let [value] = values.as_slice() else {
                    return Err(Error::parse_near(&variable.to_string(), 1));
                };
                let assignment = self.evaluate_assignment(
                    scope.as_ref(),
                    variable,
                    value,
                    text,
                    params,
                    parameters,
                )?;
                self.make_assignment(assignment)
            }
            ast::Set::MultipleAssignments { assignments } => {
                // As MariaDB: every value is evaluated and checked before any is assigned,
                // so `SET @a = @a + 1, @b = @a` reads the old @a, and an error assigns none.
                let evaluated = assignments
                    .iter()
                    .map(|a| {
                        self.evaluate_assignment(
                            a.scope.as_ref(),
                            &a.name,
                            &a.value,
                            text,
                            params,
                            parameters,
                        )
                    })
                    .collect::<Result<Vec<_>>>()?;
                evaluated
                    .into_iter()
                    .try_for_each(|a| self.make_assignment(a))
            }
            ast::Set::SetNames {
                charset_name,
                collation_name,
            } => {
                let (charset, default_collation) =
                    information_schema::charset_default_collation(&charset_name.value)
                        .ok_or_else(|| Error::unknown_charset(&charset_name.value))?;
                let collation = match collation_name {
                    Some(c) if information_schema::collation_exists(c) => c.to_ascii_lowercase(),
                    Some(c) => {
                        return Err(Error::new(
                            ErrorCode::UnknownCollation,
                            format!("Unknown collation: '{c}'"),
                        ))
                    }
                    None => default_collation.to_string(),
                };
                self.set_session_text("character_set_client", charset);
                self.set_session_text("character_set_connection", charset);
                self.set_session_text("character_set_results", charset);
                self.set_session_text("collation_connection", &collation);
                Ok(())
            }
            ast::Set::SetNamesDefault {} => {
                for name in [
                    "character_set_client",
                    "character_set_connection",
                    "character_set_results",
                ] {
                    self.set_session_text(name, "utf8mb4");
                }
                self.set_session_text("collation_connection", "utf8mb4_general_ci");
                Ok(())
            }
            ast::Set::SetTransaction { modes, .. } => {
                for m in modes {
                    if let ast::TransactionMode::IsolationLevel(level) = m {
                        let text = match level {
                            ast::TransactionIsolationLevel::ReadUncommitted => "READ-UNCOMMITTED",
                            ast::TransactionIsolationLevel::ReadCommitted => "READ-COMMITTED",
                            ast::TransactionIsolationLevel::RepeatableRead => "REPEATABLE-READ",
                            _ => "SERIALIZABLE",
                        };
                        self.set_session_text("tx_isolation", text);
                        self.set_session_text("transaction_isolation", text);
                    }
                }
                Ok(())
            }
            other => Err(Error::not_supported(&first_words(&other.to_string()))),
        }
    }

    /// One SET assignment's value, evaluated and checked (privileges included).
    fn evaluate_assignment(
        &mut self,
        scope: Option<&ast::ContextModifier>,
        name: &ast::ObjectName,
        value: &ast::Expr,
        text: &str,
        params: &[Value],
        parameters: &Parameters,
    ) -> Result<Assignment> {
        let parts: Vec<String> = name.0.iter().map(select::object_part).collect();
        let mut global = matches!(scope, Some(ast::ContextModifier::Global));
        let mut explicit_session = matches!(scope, Some(ast::ContextModifier::Session));
        let var_name = match parts.as_slice() {
            [one] if one.starts_with("@@") => one[2..].to_string(),
            [one] if one.starts_with('@') => {
                let value = self.eval_constant(value, "SET", text, params, parameters)?;
                return Ok(Assignment::User {
                    name: one[1..].to_string(),
                    value,
                });
            }
            [one] => one.clone(),
            [prefix, var] if prefix.starts_with("@@") => {
                match prefix[2..].to_ascii_lowercase().as_str() {
                    "global" => global = true,
                    "session" | "local" => explicit_session = true,
                    _ => return Err(variables::unknown_variable(&format!("{prefix}.{var}"))),
                }
                var.clone()
            }
            _ => return Err(variables::unknown_variable(&name.to_string())),
        };
        let lower = var_name.to_ascii_lowercase();
        if variables::COMPUTED_SESSION_VARIABLES.contains(&lower.as_str()) {
            if lower == "last_insert_id"
                || lower == "insert_id"
                || lower == "timestamp"
                || lower == "pseudo_thread_id"
            {
                let v = self.eval_constant(value, "SET", text, params, parameters)?;
                return Ok(match (lower.as_str(), v) {
                    ("last_insert_id", Value::Int(i)) => Assignment::LastInsertId(i.max(0) as u64),
                    ("last_insert_id", Value::UInt(u)) => Assignment::LastInsertId(u),
                    _ => Assignment::Ignored,
                });
            }
            return Err(variables::read_only(&lower));
        }
        let def =
            variables::lookup(&lower).ok_or_else(|| variables::unknown_variable(&var_name))?;
        if def.read_only {
            return Err(variables::read_only(def.name));
        }
        if global && def.scope == VarScopeKind::Session {
            return Err(variables::session_only(def.name));
        }
        if !global && def.scope == VarScopeKind::Global {
            return Err(variables::global_only(def.name));
        }
        if !global && def.name == "max_allowed_packet" {
            let _ = explicit_session;
            return Err(Error::new(
                ErrorCode::VariableIsReadonly,
                "SESSION variable 'max_allowed_packet' is read-only. Use SET GLOBAL to assign the value",
            ));
        }
        let new = if is_keyword(value, "DEFAULT") {
            if global {
                def.default_value()
            } else {
                self.engine
                    .global_variable(def.name)
                    .unwrap_or_else(|| def.default_value())
            }
        } else {
            let raw = match value {
                // SET x = ON / SET sql_mode = ANSI: a bare word is its own name.
                ast::Expr::Identifier(i)
                    if i.quote_style.is_none() && !i.value.starts_with('@') =>
                {
                    Value::text(&i.value)
                }
                _ => self.eval_constant(value, "SET", text, params, parameters)?,
            };
            let new = def.coerce(&raw)?;
            if def.clamps(&raw) {
                self.state.warn(
                    ErrorCode::TruncatedWrongValue,
                    format!(
                        "Truncated incorrect {} value: '{}'",
                        def.name,
                        variables::value_text(&raw)
                    ),
                );
            }
            new
        };
        if global {
            self.state.access().global(Privileges::SUPER)?;
            return Ok(Assignment::Global {
                name: def.name,
                value: new,
            });
        }
        Ok(Assignment::Session {
            name: def.name,
            value: new,
        })
    }

    fn make_assignment(&mut self, assignment: Assignment) -> Result<()> {
        match assignment {
            Assignment::User { name, value } => self.state.set_user_variable(&name, value),
            Assignment::LastInsertId(id) => self.state.last_insert_id.set(id),
            Assignment::Ignored => {}
            Assignment::Global { name, value } => self.engine.set_global(name, value),
            Assignment::Session { name, value } => {
                if name == "autocommit" && value == Value::Int(1) && !self.state.autocommit {
                    // Invariant (2): turning autocommit on commits.
                    self.commit_transaction()?;
                }
                self.state.vars.insert(name, value);
                self.state.refresh_cached();
            }
        }
        Ok(())
    }
}

/// One SET assignment, evaluated and checked but not yet made.
enum Assignment {
    User {
        name: String,
        value: Value,
    },
    LastInsertId(u64),
    /// insert_id, timestamp and pseudo_thread_id: accepted, with no effect here.
    Ignored,
    Global {
        name: &'static str,
        value: Value,
    },
    Session {
        name: &'static str,
        value: Value,
    },
}

/// An OK packet's info text ("Rows matched: 1  Changed: 1  Warnings: 0") from labels and
/// counts. Built by hand because it is sent for every UPDATE, where `format!` cost about
/// 1,000 instructions.
fn counts_info(parts: &[(&str, u64)]) -> String {
    let mut info = String::with_capacity(48);
    for (label, count) in parts {
        info.push_str(label);
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        let mut rest = *count;
        loop {
            at -= 1;
            digits[at] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        for &digit in &digits[at..] {
            info.push(digit as char);
        }
    }
    info
}

fn is_keyword(e: &ast::Expr, word: &str) -> bool {
    matches!(e, ast::Expr::Identifier(i) if i.quote_style.is_none() && i.value.eq_ignore_ascii_case(word))
}

fn like_filter(options: &ast::ShowStatementOptions) -> Result<Option<String>> {
    match &options.filter_position {
        Some(ast::ShowStatementFilterPosition::Suffix(ast::ShowStatementFilter::Like(p)))
        | Some(ast::ShowStatementFilterPosition::Infix(ast::ShowStatementFilter::Like(p))) => {
            Ok(Some(p.clone()))
        }
        _ => Ok(None),
    }
}

fn where_filter(options: &ast::ShowStatementOptions) -> Option<&ast::Expr> {
    match &options.filter_position {
        Some(ast::ShowStatementFilterPosition::Suffix(ast::ShowStatementFilter::Where(w)))
        | Some(ast::ShowStatementFilterPosition::Infix(ast::ShowStatementFilter::Where(w))) => {
            Some(w)
        }
        _ => None,
    }
}

fn first_words(text: &str) -> String {
    text.split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// 1243 for a prepared statement's `handler`: its id, or the name PREPARE gave it.
fn unknown_handler(handler: impl std::fmt::Display, what: &str) -> Error {
    Error::new(
        ErrorCode::UnknownStmtHandler,
        format!("Unknown prepared statement handler ({handler}) given to {what}"),
    )
}

fn no_such_thread(id: u64) -> Error {
    Error::new(ErrorCode::NoSuchThread, format!("Unknown thread id: {id}"))
}

impl Drop for Session {
    fn drop(&mut self) {
        self.end();
    }
}

#[cfg(test)]
mod info_tests {
    #[test]
    fn counts_info_matches_format() {
        for (a, b) in [(0u64, 0u64), (1, 10), (12_345, u64::MAX)] {
            assert_eq!(
                super::counts_info(&[("Rows matched: ", a), ("  Changed: ", b)]),
                format!("Rows matched: {a}  Changed: {b}")
            );
        }
    }
}
