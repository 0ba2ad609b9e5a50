//! Running account statements: each is one transaction on the grant tables, committed
//! under the privilege registry's writer lock, after which the tables are compiled into
//! the next snapshot (privilege invariant (1)). Like DDL they commit an open transaction
//! first (session invariant (2)).
//!
//! Differences from MariaDB, on purpose: a statement naming several users is atomic (it
//! changes all or none; MariaDB applies the ones that work and reports the others).

use super::{storage_error, Session, StatementOutcome};
use crate::error::{Error, ErrorCode, Result};
use crate::privilege::statement::{
    AccountOptions, AccountStatement, AuthOption, Level, PrivilegeList, UserName, UserRef, UserSpec,
};
use crate::privilege::tables::{self, GrantTables};
use crate::privilege::{
    self, Account, ColumnGrant, DatabaseGrant, PasswordPlugin, PrivilegeSnapshot, Privileges,
    RoutineGrant, TableGrant,
};
use crate::show::{self, Rows};
use crate::sink::{ColumnInfo, ResultSink};
use manycore_protocol::auth::{
    native_password_hash, native_password_hash_text, parse_native_password_hash_text,
};
use manycore_protocol::sha256_crypt;
use manycore_storage::{RoutineKind, Transaction};
use manycore_types::Value;

/// The stored `authentication_string` for a cleartext password.
fn hash_password(plugin: PasswordPlugin, password: &str) -> String {
    if password.is_empty() {
        return String::new();
    }
    match plugin {
        PasswordPlugin::NativePassword => {
            native_password_hash_text(&native_password_hash(password.as_bytes()))
        }
        PasswordPlugin::CachingSha2Password => sha256_crypt::mysql_hash(password.as_bytes()),
    }
}

/// Checks an already-hashed password's form for `plugin` (1372 otherwise).
fn checked_hash(plugin: PasswordPlugin, hash: &str) -> Result<String> {
    let valid = match plugin {
        _ if hash.is_empty() => return Ok(String::new()),
        PasswordPlugin::NativePassword => parse_native_password_hash_text(hash)
            .map(|h| native_password_hash_text(&h))
            .ok_or(()),
        PasswordPlugin::CachingSha2Password => {
            if sha256_crypt::is_mysql_hash(hash) {
                Ok(hash.to_string())
            } else {
                Err(())
            }
        }
    };
    valid.map_err(|()| {
        Error::new(
            ErrorCode::PasswordFormat,
            "Password hash should be a 41-digit hexadecimal number",
        )
    })
}

/// Applies an IDENTIFIED clause to `account` (whose plugin is kept unless one is named).
fn apply_auth(account: &mut Account, auth: &AuthOption) -> Result<()> {
    match auth {
        AuthOption::Password { plugin, password } => {
            account.plugin = plugin.unwrap_or(account.plugin);
            account.authentication = hash_password(account.plugin, password);
        }
        AuthOption::Hash { plugin, hash } => {
            account.plugin = plugin.unwrap_or(account.plugin);
            account.authentication = checked_hash(account.plugin, hash)?;
        }
        AuthOption::Plugin(plugin) => {
            account.plugin = *plugin;
            account.authentication.clear();
        }
    }
    Ok(())
}

fn apply_options(account: &mut Account, options: &AccountOptions) {
    if let Some(require_ssl) = options.require_ssl {
        account.require_ssl = require_ssl;
    }
    if let Some(locked) = options.locked {
        account.locked = locked;
    }
}

/// Applies a CREATE/ALTER/DROP/RENAME USER to each of its users. `apply` returns the
/// account the operation fails for (exists, missing), if it does; every user is tried so
/// that the error (1396) names all of them, as MariaDB's does, and the caller's rollback
/// then undoes the ones that worked (atomic statements, module doc).
fn for_each_user<T>(
    operation: &str,
    users: &[T],
    mut apply: impl FnMut(&T) -> Result<Option<UserName>>,
) -> Result<()> {
    let mut failed = Vec::new();
    for user in users {
        if let Some(name) = apply(user)? {
            failed.push(format!("'{}'@'{}'", name.user, name.host));
        }
    }
    if failed.is_empty() {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::CannotUser,
        format!("Operation {operation} failed for {}", failed.join(",")),
    ))
}

fn no_such_grant(user: &UserName) -> Error {
    Error::new(
        ErrorCode::NonExistingGrant,
        format!(
            "There is no such grant defined for user '{}' on host '{}'",
            user.user, user.host
        ),
    )
}

fn no_matching_user() -> Error {
    Error::new(
        ErrorCode::PasswordNoMatch,
        "Can't find any matching row in the user table",
    )
}

/// The privileges a GRANT/REVOKE names at `level` (ALL expands per level); 1221/1144 if
/// it names global-only privileges below the global level.
fn level_privileges(list: &PrivilegeList, level: &Level) -> Result<Privileges> {
    let (all, allowed) = match level {
        Level::Global => (Privileges::GLOBAL_LEVEL, Privileges::GLOBAL_LEVEL),
        Level::Database(_) => (Privileges::DATABASE_LEVEL, Privileges::DATABASE_LEVEL),
        Level::Table(..) => (Privileges::TABLE_LEVEL, Privileges::TABLE_LEVEL),
        Level::Routine(..) => (Privileges::ROUTINE_LEVEL, Privileges::ROUTINE_LEVEL),
    };
    if !list.columns.is_empty() && !matches!(level, Level::Table(..)) {
        return Err(Error::new(
            ErrorCode::IllegalGrantForTable,
            "Illegal GRANT/REVOKE command; please consult the manual to see which \
             privileges can be used",
        ));
    }
    let grant_option = list.privileges.intersection(Privileges::GRANT);
    let privileges = if list.all {
        all.without(Privileges::GRANT) | grant_option
    } else {
        list.privileges
    };
    if !allowed.contains(privileges) {
        return Err(match level {
            Level::Table(..) | Level::Routine(..) => Error::new(
                ErrorCode::IllegalGrantForTable,
                "Illegal GRANT/REVOKE command; please consult the manual to see which \
                 privileges can be used",
            ),
            _ => Error::new(
                ErrorCode::WrongUsage,
                "Incorrect usage of DB GRANT and GLOBAL PRIVILEGES",
            ),
        });
    }
    Ok(privileges)
}

/// One line of SHOW GRANTS: the privilege list, or ALL PRIVILEGES when every privilege of
/// the level is held.
fn privilege_text(privileges: Privileges, all: Privileges) -> String {
    let all = all.without(Privileges::GRANT);
    if privileges.contains(all) {
        return "ALL PRIVILEGES".into();
    }
    privilege_names(privileges)
}

/// The privileges' names (USAGE for none), GRANT OPTION left out.
fn privilege_names(privileges: Privileges) -> String {
    let names = privileges.names();
    if names.is_empty() {
        "USAGE".into()
    } else {
        names.join(", ")
    }
}

fn grant_option_text(privileges: Privileges) -> &'static str {
    if privileges.contains(Privileges::GRANT) {
        " WITH GRANT OPTION"
    } else {
        ""
    }
}

/// SHOW GRANTS lines of one account, in MariaDB's format and order.
pub(crate) fn grant_lines(snapshot: &PrivilegeSnapshot, account: &Account) -> Vec<String> {
    let to = format!("`{}`@`{}`", account.user, account.host);
    let mut global = format!(
        "GRANT {} ON *.* TO {to}",
        privilege_text(account.global, Privileges::GLOBAL_LEVEL)
    );
    if account.has_password() {
        match account.plugin {
            PasswordPlugin::NativePassword => global.push_str(&format!(
                " IDENTIFIED BY PASSWORD '{}'",
                account.authentication
            )),
            PasswordPlugin::CachingSha2Password => global.push_str(&format!(
                " IDENTIFIED VIA caching_sha2_password USING '{}'",
                account.authentication
            )),
        }
    } else if account.plugin != PasswordPlugin::NativePassword {
        global.push_str(&format!(" IDENTIFIED VIA {}", account.plugin.name()));
    }
    if account.require_ssl {
        global.push_str(" REQUIRE SSL");
    }
    global.push_str(grant_option_text(account.global));
    let mut lines = vec![global];
    for g in snapshot.database_grants(&account.user, &account.host) {
        lines.push(format!(
            "GRANT {} ON `{}`.* TO {to}{}",
            privilege_text(g.privileges, Privileges::DATABASE_LEVEL),
            g.db,
            grant_option_text(g.privileges)
        ));
    }
    let columns = snapshot.column_grants(&account.user, &account.host);
    for g in snapshot.table_grants(&account.user, &account.host) {
        let columns: Vec<_> = columns
            .iter()
            .filter(|c| c.db == g.db && c.table == g.table)
            .collect();
        lines.push(format!(
            "GRANT {} ON `{}`.`{}` TO {to}{}",
            table_privilege_text(g.privileges, &columns),
            g.db,
            g.table,
            grant_option_text(g.privileges)
        ));
    }
    // MariaDB shows a routine's name in lower case, whatever the GRANT wrote.
    for g in snapshot.routine_grants(&account.user, &account.host) {
        lines.push(format!(
            "GRANT {} ON {} `{}`.`{}` TO {to}{}",
            privilege_names(g.privileges),
            crate::routine::kind_name(g.kind),
            g.db,
            g.name.to_lowercase(),
            grant_option_text(g.privileges)
        ));
    }
    lines
}

/// `name`'s grant on routine `db`.`routine` of `kind`, if it has one.
fn routine_grant<'s>(
    current: &'s PrivilegeSnapshot,
    name: &UserName,
    (db, kind, routine): (&str, RoutineKind, &str),
) -> Option<&'s RoutineGrant> {
    current
        .routine_grants(&name.user, &name.host)
        .into_iter()
        .find(|g| g.is_on(db, kind, routine))
}

/// A table line's privileges, MariaDB's way: in privilege order, each privilege held on
/// the table by name and each held on columns as `NAME (`a`, `b`)`:
/// `SELECT, SELECT (`a`), UPDATE (`b`)`.
fn table_privilege_text(privileges: Privileges, columns: &[&&ColumnGrant]) -> String {
    if columns.is_empty() {
        return privilege_text(privileges, Privileges::TABLE_LEVEL);
    }
    let all = privileges.contains(Privileges::TABLE_LEVEL.without(Privileges::GRANT));
    let mut parts = Vec::new();
    if all {
        parts.push("ALL PRIVILEGES".to_string());
    }
    // MariaDB's order: REFERENCES comes after DROP, before INDEX.
    let order = Privileges::NAMES
        .iter()
        .filter(|(p, _, _)| {
            Privileges::TABLE_LEVEL
                .without(Privileges::GRANT)
                .contains(*p)
        })
        .flat_map(|(p, name, _)| {
            let references =
                (*p == Privileges::INDEX).then_some((Privileges::REFERENCES, "REFERENCES"));
            references.into_iter().chain([(*p, *name)])
        });
    for (p, name) in order {
        if !all && privileges.contains(p) {
            parts.push(name.to_string());
        }
        let named: Vec<String> = columns
            .iter()
            .filter(|c| c.privileges.contains(p))
            .map(|c| format!("`{}`", c.column))
            .collect();
        if !named.is_empty() {
            parts.push(format!("{name} ({})", named.join(", ")));
        }
    }
    parts.join(", ")
}

/// An account's privileges on one table: the table level and its column grants (None
/// if it has no `mysql.tables_priv` row for the table).
fn table_state(
    current: &PrivilegeSnapshot,
    name: &UserName,
    db: &str,
    table: &str,
) -> Option<(Privileges, Vec<(String, Privileges)>)> {
    let held = current
        .table_grants(&name.user, &name.host)
        .into_iter()
        .find(|g| g.db == db && g.table == table)?
        .privileges;
    let columns = current
        .column_grants(&name.user, &name.host)
        .into_iter()
        .filter(|g| g.db == db && g.table == table)
        .map(|g| (g.column.clone(), g.privileges))
        .collect();
    Some((held, columns))
}

/// Makes `name`'s privileges on `db`.`table` what is given: the `columns_priv` rows (a
/// column with no privileges left, or no longer listed, loses its row) and the
/// `tables_priv` row, whose `Column_priv` is the union of the columns' privileges.
#[allow(clippy::too_many_arguments)]
fn write_table_privileges(
    tables: &GrantTables,
    txn: &mut Transaction,
    current: &PrivilegeSnapshot,
    name: &UserName,
    (db, table): (&str, &str),
    privileges: Privileges,
    columns: &[(String, Privileges)],
    grantor: &str,
) -> Result<()> {
    let column_grant = |column: &str, privileges| ColumnGrant {
        user: name.user.clone(),
        host: name.host.clone(),
        db: db.to_string(),
        table: table.to_string(),
        column: column.to_string(),
        privileges,
    };
    for old in current.column_grants(&name.user, &name.host) {
        if old.db == db && old.table == table && !columns.iter().any(|(c, _)| *c == old.column) {
            tables.write_column_grant(txn, &column_grant(&old.column, Privileges::NONE))?;
        }
    }
    let mut union = Privileges::NONE;
    for (column, p) in columns {
        tables.write_column_grant(txn, &column_grant(column, *p))?;
        union |= *p;
    }
    let grant = TableGrant {
        user: name.user.clone(),
        host: name.host.clone(),
        db: db.to_string(),
        table: table.to_string(),
        privileges,
    };
    tables.write_table_grant(txn, &grant, union, grantor)
}

impl Session {
    fn resolve_user(&self, user: &UserRef) -> UserName {
        match user {
            UserRef::Named(name) => name.clone(),
            UserRef::Current => UserName {
                user: self.state.account_user.clone(),
                host: self.state.account_host.clone(),
            },
        }
    }

    fn is_self(&self, user: &UserRef) -> bool {
        let name = self.resolve_user(user);
        name.user == self.state.account_user
            && name.host.eq_ignore_ascii_case(&self.state.account_host)
    }

    pub(super) fn execute_account(
        &mut self,
        statement: &AccountStatement,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<()> {
        if let AccountStatement::ShowGrants(user) = statement {
            return self.show_grants(user.as_ref(), sink, more);
        }
        self.implicit_commit()?;
        self.check_account_privilege(statement)?;
        self.change_grant_tables(|session, tables, txn, current| {
            session.apply_account(statement, tables, txn, current)
        })?;
        self.finish(StatementOutcome::ok(), sink, more)
    }

    /// Runs `apply` as one transaction on the grant tables under the registry's writer
    /// lock, then publishes the next snapshot (privilege invariant (1)).
    fn change_grant_tables(
        &mut self,
        apply: impl FnOnce(&Self, &GrantTables, &mut Transaction, &PrivilegeSnapshot) -> Result<()>,
    ) -> Result<()> {
        let engine = self.engine.clone();
        let _writer = engine.privileges().lock_writer();
        let storage = engine.storage().clone();
        let tables = GrantTables::open(&storage.catalog())?;
        let mut txn = storage.begin(&self.reader);
        let current = tables.load(&txn);
        match apply(self, &tables, &mut txn, &current) {
            Ok(()) => txn.commit().map_err(storage_error)?,
            Err(e) => {
                txn.rollback();
                return Err(e);
            }
        };
        privilege::reload_locked(&engine)?;
        self.state.refresh_grants();
        Ok(())
    }

    /// automatic_sp_privileges (ON by default, as in MariaDB).
    fn automatic_sp_privileges(&self) -> bool {
        self.engine.global_variable("automatic_sp_privileges") == Some(Value::Int(1))
    }

    /// With automatic_sp_privileges, a routine's creator gets EXECUTE and ALTER ROUTINE
    /// on it unless it holds both already.
    pub(super) fn grant_to_creator(
        &mut self,
        (db, kind, name): (&str, RoutineKind, &str),
    ) -> Result<()> {
        let owner = Privileges::EXECUTE | Privileges::ALTER_ROUTINE;
        if !self.automatic_sp_privileges()
            || self.state.grants.global(owner)
            || self.state.grants.routine(db, kind, name).contains(owner)
        {
            return Ok(());
        }
        self.change_grant_tables(|session, tables, txn, current| {
            let creator = UserName {
                user: session.state.account_user.clone(),
                host: session.state.account_host.clone(),
            };
            let held = routine_grant(current, &creator, (db, kind, name));
            let grant = RoutineGrant {
                user: creator.user,
                host: creator.host,
                db: db.to_string(),
                kind,
                name: held.map_or_else(|| name.to_string(), |g| g.name.clone()),
                privileges: held.map_or(Privileges::NONE, |g| g.privileges) | owner,
            };
            tables.write_routine_grant(txn, &grant, &session.state.current_user)
        })
    }

    /// With automatic_sp_privileges, a dropped routine's grants go with it.
    pub(super) fn revoke_on_drop(
        &mut self,
        (db, kind, name): (&str, RoutineKind, &str),
    ) -> Result<()> {
        if !self.automatic_sp_privileges()
            || self
                .engine
                .privileges()
                .snapshot()
                .grants_on_routine(db, kind, name)
                .is_empty()
        {
            return Ok(());
        }
        self.change_grant_tables(|session, tables, txn, current| {
            for g in current.grants_on_routine(db, kind, name) {
                let gone = RoutineGrant {
                    privileges: Privileges::NONE,
                    ..g.clone()
                };
                tables.write_routine_grant(txn, &gone, &session.state.current_user)?;
            }
            Ok(())
        })
    }

    /// The privileges the statement itself needs, before anything is read.
    fn check_account_privilege(&self, statement: &AccountStatement) -> Result<()> {
        let access = self.state.access();
        match statement {
            AccountStatement::SetPassword { user, .. } => match user {
                Some(user) if !self.is_self(user) => {
                    if self.state.grants.global(Privileges::CREATE_USER) {
                        Ok(())
                    } else {
                        access.database(tables::DATABASE, Privileges::UPDATE)
                    }
                }
                _ => Ok(()),
            },
            AccountStatement::Grant {
                privileges, level, ..
            }
            | AccountStatement::Revoke {
                privileges, level, ..
            } => {
                // REFERENCES exists only on columns: GRANT OPTION on the table grants it.
                let columns = privileges
                    .columns
                    .iter()
                    .fold(Privileges::NONE, |all, (_, p)| all | *p)
                    .without(Privileges::REFERENCES);
                let needed = level_privileges(privileges, level)? | columns | Privileges::GRANT;
                match level {
                    Level::Global if !self.state.grants.global(needed) => {
                        Err(self.state.access_denied())
                    }
                    Level::Global => Ok(()),
                    Level::Database(db) => {
                        let db = self.require_db(db.clone())?;
                        access.database(&db, needed)
                    }
                    Level::Table(db, table) => {
                        let db = self.require_db(db.clone())?;
                        if access.table(&db, table, needed).is_err() {
                            return Err(privilege::table_denied(
                                "GRANT",
                                &self.state.quoted_user,
                                &db,
                                table,
                            ));
                        }
                        Ok(())
                    }
                    Level::Routine(kind, db, name) => {
                        let db = self.require_db(db.clone())?;
                        access.routine(&db, *kind, name, needed)
                    }
                }
            }
            AccountStatement::ShowGrants(_) => Ok(()),
            _ => access.global(Privileges::CREATE_USER),
        }
    }

    fn apply_account(
        &self,
        statement: &AccountStatement,
        tables: &GrantTables,
        txn: &mut Transaction,
        current: &PrivilegeSnapshot,
    ) -> Result<()> {
        let find = |u: &UserName| current.account(&u.user, &u.host).cloned();
        match statement {
            AccountStatement::CreateUser {
                or_replace,
                if_not_exists,
                users,
                options,
            } => for_each_user(statement.operation(), users, |spec| {
                let name = self.resolve_user(&spec.user);
                if find(&name).is_some() {
                    if *or_replace {
                        tables.delete_account(txn, &name.user, &name.host)?;
                    } else if *if_not_exists {
                        self.state.note(
                            ErrorCode::UserCreateExists,
                            format!(
                                "Can't create user '{}'@'{}'; it already exists",
                                name.user, name.host
                            ),
                        );
                        return Ok(None);
                    } else {
                        return Ok(Some(name));
                    }
                }
                let mut account = new_account(&name);
                if let Some(auth) = &spec.auth {
                    apply_auth(&mut account, auth)?;
                }
                apply_options(&mut account, options);
                tables.write_account(txn, &account)?;
                Ok(None)
            })?,
            AccountStatement::AlterUser {
                if_exists,
                users,
                options,
            } => for_each_user(statement.operation(), users, |spec| {
                let name = self.resolve_user(&spec.user);
                let Some(mut account) = find(&name) else {
                    return Ok((!*if_exists).then_some(name));
                };
                if let Some(auth) = &spec.auth {
                    apply_auth(&mut account, auth)?;
                }
                apply_options(&mut account, options);
                tables.write_account(txn, &account)?;
                Ok(None)
            })?,
            AccountStatement::DropUser { if_exists, users } => {
                for_each_user(statement.operation(), users, |user| {
                    let name = self.resolve_user(user);
                    if find(&name).is_some() {
                        tables.delete_account(txn, &name.user, &name.host)?;
                        return Ok(None);
                    }
                    if !*if_exists {
                        return Ok(Some(name));
                    }
                    self.state.note(
                        ErrorCode::UserDropExists,
                        format!(
                            "Can't drop user '{}'@'{}'; it doesn't exist",
                            name.user, name.host
                        ),
                    );
                    Ok(None)
                })?
            }
            AccountStatement::RenameUser(pairs) => {
                for_each_user(statement.operation(), pairs, |(from, to)| {
                    let (from, to) = (self.resolve_user(from), self.resolve_user(to));
                    let Some(mut account) = find(&from) else {
                        return Ok(Some(from));
                    };
                    if find(&to).is_some() {
                        return Ok(Some(from));
                    }
                    tables.delete_account(txn, &from.user, &from.host)?;
                    account.user = to.user.clone();
                    account.host = to.host.clone();
                    tables.write_account(txn, &account)?;
                    for g in current.database_grants(&from.user, &from.host) {
                        let mut g = g.clone();
                        g.user = to.user.clone();
                        g.host = to.host.clone();
                        tables.write_database_grant(txn, &g)?;
                    }
                    for g in current.table_grants(&from.user, &from.host) {
                        let (privileges, columns) =
                            table_state(current, &from, &g.db, &g.table).unwrap_or_default();
                        write_table_privileges(
                            tables,
                            txn,
                            current,
                            &to,
                            (&g.db, &g.table),
                            privileges,
                            &columns,
                            &self.state.current_user,
                        )?;
                    }
                    for g in current.routine_grants(&from.user, &from.host) {
                        let mut g = g.clone();
                        g.user = to.user.clone();
                        g.host = to.host.clone();
                        tables.write_routine_grant(txn, &g, &self.state.current_user)?;
                    }
                    Ok(None)
                })?
            }
            AccountStatement::SetPassword { user, auth } => {
                let name = match user {
                    Some(user) => self.resolve_user(user),
                    None => self.resolve_user(&UserRef::Current),
                };
                let mut account = find(&name).ok_or_else(no_matching_user)?;
                apply_auth(&mut account, auth)?;
                tables.write_account(txn, &account)?;
            }
            AccountStatement::Grant {
                privileges,
                level,
                users,
                options,
            } => {
                for spec in users {
                    self.grant_to(tables, txn, current, spec, privileges, level, options)?;
                }
            }
            AccountStatement::Revoke {
                privileges,
                level,
                users,
            } => {
                for user in users {
                    let name = self.resolve_user(user);
                    let account = find(&name).ok_or_else(|| no_such_grant(&name))?;
                    self.revoke_from(tables, txn, current, account, privileges, level)?;
                }
            }
            AccountStatement::RevokeAll { users } => {
                for user in users {
                    let name = self.resolve_user(user);
                    let mut account = find(&name).ok_or_else(|| no_such_grant(&name))?;
                    account.global = Privileges::NONE;
                    tables.write_account(txn, &account)?;
                    for g in current.database_grants(&name.user, &name.host) {
                        let mut g = g.clone();
                        g.privileges = Privileges::NONE;
                        tables.write_database_grant(txn, &g)?;
                    }
                    for g in current.table_grants(&name.user, &name.host) {
                        write_table_privileges(
                            tables,
                            txn,
                            current,
                            &name,
                            (&g.db, &g.table),
                            Privileges::NONE,
                            &[],
                            "",
                        )?;
                    }
                    for g in current.routine_grants(&name.user, &name.host) {
                        let mut g = g.clone();
                        g.privileges = Privileges::NONE;
                        tables.write_routine_grant(txn, &g, "")?;
                    }
                }
            }
            AccountStatement::ShowGrants(_) => {}
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn grant_to(
        &self,
        tables: &GrantTables,
        txn: &mut Transaction,
        current: &PrivilegeSnapshot,
        spec: &UserSpec,
        list: &PrivilegeList,
        level: &Level,
        options: &AccountOptions,
    ) -> Result<()> {
        let privileges = level_privileges(list, level)?;
        let name = self.resolve_user(&spec.user);
        let mut account = match current.account(&name.user, &name.host) {
            Some(account) => account.clone(),
            // GRANT creates an account only with a password and CREATE USER
            // (NO_AUTO_CREATE_USER, MariaDB's default).
            None if spec.auth.is_some() && self.state.grants.global(Privileges::CREATE_USER) => {
                new_account(&name)
            }
            None => return Err(no_matching_user()),
        };
        if let Some(auth) = &spec.auth {
            apply_auth(&mut account, auth)?;
        }
        apply_options(&mut account, options);
        match level {
            Level::Global => account.global |= privileges,
            Level::Database(db) => {
                let db = self.require_db(db.clone())?;
                let existing = current
                    .database_grants(&name.user, &name.host)
                    .into_iter()
                    .find(|g| g.db == db)
                    .map_or(Privileges::NONE, |g| g.privileges);
                tables.write_database_grant(
                    txn,
                    &DatabaseGrant {
                        user: name.user.clone(),
                        host: name.host.clone(),
                        db,
                        privileges: existing | privileges,
                    },
                )?;
            }
            Level::Table(db, table) => {
                let db = self.require_db(db.clone())?;
                let catalog = self.engine.storage().catalog();
                match catalog.table(&db, table) {
                    Some(t) => {
                        if let Some((column, _)) = list
                            .columns
                            .iter()
                            .find(|(c, _)| t.schema.column_index(c).is_none())
                        {
                            return Err(Error::bad_field(column, table));
                        }
                    }
                    // A view is granted as a table is; its columns are not checked.
                    None if catalog.view(&db, table).is_some() => {
                        if !list.columns.is_empty() {
                            return Err(Error::not_supported("column privileges on a view"));
                        }
                    }
                    None => return Err(Error::no_such_table(&db, table)),
                }
                let (existing, mut columns) =
                    table_state(current, &name, &db, table).unwrap_or_default();
                for (column, p) in &list.columns {
                    match columns.iter_mut().find(|(c, _)| c == column) {
                        Some((_, held)) => *held |= *p,
                        None => columns.push((column.clone(), *p)),
                    }
                }
                write_table_privileges(
                    tables,
                    txn,
                    current,
                    &name,
                    (&db, table),
                    existing | privileges,
                    &columns,
                    &self.state.current_user,
                )?;
            }
            Level::Routine(kind, db, routine) => {
                let db = self.require_db(db.clone())?;
                let catalog = self.engine.storage().catalog();
                let exists = catalog
                    .databases
                    .get(&db)
                    .is_some_and(|d| d.routine(*kind, routine).is_some());
                if !exists {
                    return Err(Error::new(
                        ErrorCode::SpDoesNotExist,
                        format!("FUNCTION or PROCEDURE {routine} does not exist"),
                    ));
                }
                let held = routine_grant(current, &name, (&db, *kind, routine));
                let grant = RoutineGrant {
                    user: name.user.clone(),
                    host: name.host.clone(),
                    db,
                    kind: *kind,
                    // A grant keeps the name it was first given with.
                    name: held.map_or_else(|| routine.clone(), |g| g.name.clone()),
                    privileges: held.map_or(Privileges::NONE, |g| g.privileges) | privileges,
                };
                tables.write_routine_grant(txn, &grant, &self.state.current_user)?;
            }
        }
        tables.write_account(txn, &account)
    }

    fn revoke_from(
        &self,
        tables: &GrantTables,
        txn: &mut Transaction,
        current: &PrivilegeSnapshot,
        mut account: Account,
        list: &PrivilegeList,
        level: &Level,
    ) -> Result<()> {
        let privileges = level_privileges(list, level)?;
        let name = UserName {
            user: account.user.clone(),
            host: account.host.clone(),
        };
        match level {
            Level::Global => {
                account.global = account.global.without(privileges);
                tables.write_account(txn, &account)
            }
            Level::Database(db) => {
                let db = self.require_db(db.clone())?;
                let mut grant = current
                    .database_grants(&name.user, &name.host)
                    .into_iter()
                    .find(|g| g.db == db)
                    .cloned()
                    .ok_or_else(|| no_such_grant(&name))?;
                grant.privileges = grant.privileges.without(privileges);
                tables.write_database_grant(txn, &grant)
            }
            Level::Table(db, table) => {
                let db = self.require_db(db.clone())?;
                let (held, mut columns) =
                    table_state(current, &name, &db, table).ok_or_else(|| {
                        Error::new(
                            ErrorCode::NonexistingTableGrant,
                            format!(
                                "There is no such grant defined for user '{}' on host '{}' on \
                                 table '{table}'",
                                name.user, name.host
                            ),
                        )
                    })?;
                // A table-level REVOKE takes the privilege from every column too (MariaDB);
                // ALL includes REFERENCES, which exists only there.
                let from_columns = if list.all {
                    privileges | Privileges::COLUMN_LEVEL
                } else {
                    privileges
                };
                for (column, p) in &mut columns {
                    *p = p.without(from_columns);
                    for (named, revoked) in &list.columns {
                        if named.eq_ignore_ascii_case(column) {
                            *p = p.without(*revoked);
                        }
                    }
                }
                write_table_privileges(
                    tables,
                    txn,
                    current,
                    &name,
                    (&db, table),
                    held.without(privileges),
                    &columns,
                    &self.state.current_user,
                )
            }
            Level::Routine(kind, db, routine) => {
                let db = self.require_db(db.clone())?;
                let mut grant = routine_grant(current, &name, (&db, *kind, routine))
                    .cloned()
                    .ok_or_else(|| {
                        Error::new(
                            ErrorCode::NonexistingProcGrant,
                            format!(
                                "There is no such grant defined for user '{}' on host '{}' on \
                                 routine '{routine}'",
                                name.user, name.host
                            ),
                        )
                    })?;
                grant.privileges = grant.privileges.without(privileges);
                tables.write_routine_grant(txn, &grant, &self.state.current_user)
            }
        }
    }

    fn show_grants(
        &mut self,
        user: Option<&UserRef>,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<()> {
        let name = self.resolve_user(user.unwrap_or(&UserRef::Current));
        if !self.is_self(&UserRef::Named(name.clone())) {
            self.state
                .access()
                .database(tables::DATABASE, Privileges::SELECT)?;
        }
        let snapshot = self.engine.privileges().snapshot();
        let account = snapshot
            .account(&name.user, &name.host)
            .ok_or_else(|| no_such_grant(&name))?;
        let rows = Rows {
            columns: vec![ColumnInfo::text(
                &format!("Grants for {}@{}", name.user, name.host),
                1024,
            )],
            rows: grant_lines(&snapshot, account)
                .iter()
                .map(|line| vec![show::text(line)])
                .collect(),
        };
        self.send_rows(rows, sink, more)
    }

    /// Creates the grant tables that are missing (all of them, with `root`@`localhost`
    /// without password, in a new data directory), then compiles the snapshot.
    pub fn bootstrap_privileges(engine: &std::sync::Arc<crate::Engine>) -> Result<()> {
        let statements = tables::bootstrap_statements(&engine.storage().catalog());
        if statements.len() > 1 {
            let mut session = Session::internal(engine.clone())?;
            let mut sink = Discard;
            for text in statements {
                session.run_query(&text, &mut sink)?;
            }
        }
        privilege::reload(engine)
    }
}

fn new_account(name: &UserName) -> Account {
    Account {
        user: name.user.clone(),
        host: name.host.clone(),
        plugin: PasswordPlugin::NativePassword,
        authentication: String::new(),
        locked: false,
        require_ssl: false,
        global: Privileges::NONE,
    }
}

/// Bootstrap statements return nothing worth keeping.
struct Discard;

impl ResultSink for Discard {
    fn result_set_start(&mut self, _: &crate::sink::Columns) -> Result<()> {
        Ok(())
    }
    fn row(&mut self, _: &[manycore_types::Value]) -> Result<()> {
        Ok(())
    }
    fn result_set_end(&mut self, _: u16, _: u16, _: bool) -> Result<()> {
        Ok(())
    }
    fn ok(&mut self, _: &crate::sink::OkInfo, _: bool) -> Result<()> {
        Ok(())
    }
    fn field_list(&mut self, _: &[ColumnInfo]) -> Result<()> {
        Ok(())
    }
    fn discard_unfinished(&mut self) {}
}
