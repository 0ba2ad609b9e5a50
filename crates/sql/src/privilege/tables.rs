//! The grant tables: `mysql.user`, `mysql.db`, `mysql.tables_priv`,
//! `mysql.columns_priv` and `mysql.procs_priv`, ordinary tables
//! (so the log records and recovery restores them like any data), their layout, the
//! bootstrap of an empty server, and reading and writing their rows.
//!
//! Layout (column names as MySQL's; privilege columns hold 'Y' or 'N'):
//!
//!   user:        Host, User, <Select_priv .. Create_user_priv in `Privileges::NAMES`
//!                order>, ssl_type ('' | 'ANY'),
//!                plugin, authentication_string, account_locked ('Y' | 'N')
//!                PRIMARY KEY (Host, User)
//!   db:          Host, Db, User, <Select_priv .. Alter_routine_priv of the database
//!                level>
//!                PRIMARY KEY (Host, Db, User)
//!   tables_priv: Host, Db, User, Table_name, Grantor, Table_priv (a SET's text:
//!                'Select,Insert,...'), Column_priv ('Select,Insert,Update,References':
//!                the union of the table's columns_priv rows, as MariaDB keeps it),
//!                PRIMARY KEY (Host, Db, User, Table_name)
//!   columns_priv: Host, Db, User, Table_name, Column_name, Column_priv
//!                PRIMARY KEY (Host, Db, User, Table_name, Column_name)
//!   procs_priv:  Host, Db, User, Routine_name, Routine_type ('FUNCTION' | 'PROCEDURE'),
//!                Grantor, Proc_priv ('Execute,Alter Routine,Grant')
//!                PRIMARY KEY (Host, Db, User, Routine_name, Routine_type)
//!
//! User, Db, Table_name and Column_name are VARBINARY: they compare case-sensitively, as
//! in MySQL (a column grant keeps the name as written; checks ignore its case); Host
//! compares case-insensitively.
//!
//! A tables_priv row exists while the account holds a table privilege or a column
//! privilege on the table (Table_priv '' with Column_priv set for column grants only).
//! Data directories created before a privilege (FILE, the routine privileges, TRIGGER,
//! CREATE VIEW and the others MariaDB has) get its column in `user` and `db` at startup
//! (`add_privilege_columns`), and a grant that held ALL at its level holds it too. Data
//! directories created before column privileges have a tables_priv without Column_priv;
//! nothing reads it, so they work the same, and the missing columns_priv is created at
//! startup.
//!
//! The same bootstrap creates `mysql.general_log` and `mysql.slow_log` with MariaDB's
//! columns. They stay empty: manycore keeps no general or slow query log. They exist
//! because clients expect MariaDB's `mysql` schema (mariadb-dump --all-databases dumps
//! their structure and fails without them).
//!
//! Invariant: rows are written only through `write_*`/`delete_*` here (account
//! statements) or by SQL DML a user with privileges on `mysql` runs; the snapshot is
//! rebuilt from the rows (`load`) after account statements and FLUSH PRIVILEGES.

use super::{
    Account, ColumnGrant, DatabaseGrant, PasswordPlugin, PrivilegeSnapshot, Privileges,
    RoutineGrant, TableGrant,
};
use crate::error::{Error, ErrorCode, Result};
use manycore_storage::{Catalog, IndexNo, KeyRange, RoutineKind, RowSlot, Table, Transaction};
use manycore_types::Value;
use std::ops::ControlFlow;
use std::sync::Arc;

pub const DATABASE: &str = "mysql";
pub const USER: &str = "user";
pub const DB: &str = "db";
pub const TABLES_PRIV: &str = "tables_priv";
pub const COLUMNS_PRIV: &str = "columns_priv";
pub const PROCS_PRIV: &str = "procs_priv";
pub const GENERAL_LOG: &str = "general_log";
pub const SLOW_LOG: &str = "slow_log";

/// The privileges of `level` with their names and columns, in `Privileges::NAMES` order:
/// DATABASE_LEVEL's have a column in `mysql.db`, TABLE_LEVEL's a word in `Table_priv`.
fn level_privileges(
    level: Privileges,
) -> impl Iterator<Item = &'static (Privileges, &'static str, &'static str)> + Clone {
    Privileges::NAMES
        .iter()
        .filter(move |(p, _, _)| level.contains(*p))
}

/// The statements that create the grant tables that do not exist, and `root`@`localhost`
/// without password if `mysql.user` is among them. Safe to run again after a crash
/// between them (each is logged on its own).
pub fn bootstrap_statements(catalog: &Catalog) -> Vec<String> {
    let priv_columns = |privileges: &mut dyn Iterator<Item = &(Privileges, &str, &str)>| {
        privileges
            .map(|(_, _, column)| format!("`{column}` CHAR(1) NOT NULL DEFAULT 'N', "))
            .collect::<String>()
    };
    let all_global = Privileges::NAMES
        .iter()
        .map(|_| "'Y'")
        .collect::<Vec<_>>()
        .join(", ");
    let missing = |table: &str| catalog.table(DATABASE, table).is_none();
    let mut statements = vec![format!("CREATE DATABASE IF NOT EXISTS `{DATABASE}`")];
    if missing(USER) {
        statements.push(format!(
            "CREATE TABLE `{DATABASE}`.`{USER}` (`Host` VARCHAR(255) NOT NULL DEFAULT '', \
             `User` VARBINARY(128) NOT NULL DEFAULT '', {}`ssl_type` VARCHAR(9) NOT NULL \
             DEFAULT '', `plugin` VARCHAR(64) NOT NULL DEFAULT '', `authentication_string` \
             VARCHAR(255) NOT NULL DEFAULT '', `account_locked` CHAR(1) NOT NULL DEFAULT 'N', \
             PRIMARY KEY (`Host`, `User`))",
            priv_columns(&mut Privileges::NAMES.iter())
        ));
        statements.push(format!(
            "INSERT INTO `{DATABASE}`.`{USER}` VALUES ('localhost', 'root', {all_global}, '', \
             'mysql_native_password', '', 'N')"
        ));
    }
    // The table privileges that existed when the data directory was written are those
    // with a column in `user`.
    let table_level_then = catalog.table(DATABASE, USER).map(|user| {
        level_privileges(Privileges::TABLE_LEVEL)
            .filter(|(_, _, column)| user.schema.column_index(column).is_some())
            .fold(Privileges::NONE, |all, (p, _, _)| all | *p)
    });
    if let Some(then) = table_level_then.filter(|then| *then != Privileges::TABLE_LEVEL) {
        if !missing(TABLES_PRIV) {
            // A table grant of ALL from before the newer table privileges keeps holding
            // ALL. Before the user table's columns, which say this ran: run again after a
            // crash, it finds no row.
            let added = Privileges::TABLE_LEVEL.without(then);
            for held in [then.without(Privileges::GRANT), then] {
                let before = set_text(table_priv_members(), held);
                let now = set_text(table_priv_members(), held | added);
                statements.push(format!(
                    "UPDATE `{DATABASE}`.`{TABLES_PRIV}` SET `Table_priv` = '{now}' WHERE \
                     `Table_priv` = '{before}'"
                ));
            }
        }
    }
    if let Some(user) = catalog.table(DATABASE, USER) {
        statements.extend(add_privilege_columns(user, Privileges::GLOBAL_LEVEL));
    }
    if let Some(db) = catalog.table(DATABASE, DB) {
        statements.extend(add_privilege_columns(db, Privileges::DATABASE_LEVEL));
    }
    if missing(DB) {
        statements.push(format!(
            "CREATE TABLE `{DATABASE}`.`{DB}` (`Host` VARCHAR(255) NOT NULL DEFAULT '', `Db` \
             VARBINARY(64) NOT NULL DEFAULT '', `User` VARBINARY(128) NOT NULL DEFAULT '', {}\
             PRIMARY KEY (`Host`, `Db`, `User`))",
            priv_columns(&mut level_privileges(Privileges::DATABASE_LEVEL))
        ));
    }
    if missing(TABLES_PRIV) {
        statements.push(format!(
            "CREATE TABLE `{DATABASE}`.`{TABLES_PRIV}` (`Host` VARCHAR(255) NOT NULL DEFAULT '', \
             `Db` VARBINARY(64) NOT NULL DEFAULT '', `User` VARBINARY(128) NOT NULL DEFAULT '', \
             `Table_name` VARBINARY(64) NOT NULL DEFAULT '', `Grantor` VARCHAR(384) NOT NULL \
             DEFAULT '', `Table_priv` VARCHAR(255) NOT NULL DEFAULT '', `Column_priv` \
             VARCHAR(255) NOT NULL DEFAULT '', PRIMARY KEY (`Host`, `Db`, `User`, \
             `Table_name`))"
        ));
    }
    if missing(COLUMNS_PRIV) {
        statements.push(format!(
            "CREATE TABLE `{DATABASE}`.`{COLUMNS_PRIV}` (`Host` VARCHAR(255) NOT NULL DEFAULT \
             '', `Db` VARBINARY(64) NOT NULL DEFAULT '', `User` VARBINARY(128) NOT NULL \
             DEFAULT '', `Table_name` VARBINARY(64) NOT NULL DEFAULT '', `Column_name` \
             VARBINARY(64) NOT NULL DEFAULT '', `Column_priv` VARCHAR(255) NOT NULL DEFAULT \
             '', PRIMARY KEY (`Host`, `Db`, `User`, `Table_name`, `Column_name`))"
        ));
    }
    if missing(PROCS_PRIV) {
        statements.push(format!(
            "CREATE TABLE `{DATABASE}`.`{PROCS_PRIV}` (`Host` VARCHAR(255) NOT NULL DEFAULT '', \
             `Db` VARBINARY(64) NOT NULL DEFAULT '', `User` VARBINARY(128) NOT NULL DEFAULT '', \
             `Routine_name` VARCHAR(64) NOT NULL DEFAULT '', `Routine_type` \
             ENUM('FUNCTION','PROCEDURE') NOT NULL, `Grantor` VARCHAR(384) NOT NULL DEFAULT '', \
             `Proc_priv` SET('Execute','Alter Routine','Grant') NOT NULL DEFAULT '', PRIMARY KEY \
             (`Host`, `Db`, `User`, `Routine_name`, `Routine_type`)) COMMENT='Procedure privileges'"
        ));
    }
    let log_start = "timestamp(6) NOT NULL DEFAULT current_timestamp(6) ON UPDATE \
                     current_timestamp(6), `user_host` mediumtext NOT NULL";
    if missing(GENERAL_LOG) {
        statements.push(format!(
            "CREATE TABLE `{DATABASE}`.`{GENERAL_LOG}` (`event_time` {log_start}, `thread_id` \
             bigint(21) unsigned NOT NULL, `server_id` int(10) unsigned NOT NULL, \
             `command_type` varchar(64) NOT NULL, `argument` mediumtext NOT NULL) \
             COMMENT='General log'"
        ));
    }
    if missing(SLOW_LOG) {
        statements.push(format!(
            "CREATE TABLE `{DATABASE}`.`{SLOW_LOG}` (`start_time` {log_start}, `query_time` \
             time(6) NOT NULL, `lock_time` time(6) NOT NULL, `rows_sent` bigint(20) unsigned \
             NOT NULL, `rows_examined` bigint(20) unsigned NOT NULL, `db` varchar(512) NOT \
             NULL, `last_insert_id` int(11) NOT NULL, `insert_id` int(11) NOT NULL, \
             `server_id` int(10) unsigned NOT NULL, `sql_text` mediumtext NOT NULL, \
             `thread_id` bigint(21) unsigned NOT NULL, `rows_affected` bigint(20) unsigned \
             NOT NULL) COMMENT='Slow log'"
        ));
    }
    statements
}

/// For a data directory from before some privileges of `level` (GLOBAL_LEVEL for
/// `user`, DATABASE_LEVEL for `db`): the statements adding grant table `table`'s missing
/// privilege columns, each after the one before it in `Privileges::NAMES` order, after
/// which a row that held every privilege the table had (ALL at its level then; ALL leaves
/// GRANT OPTION out) holds the new ones too. A crash between the statements leaves them
/// to be granted again.
fn add_privilege_columns(table: &Table, level: Privileges) -> Vec<String> {
    let has = |column: &str| table.schema.column_index(column).is_some();
    let (held, added): (Vec<_>, Vec<_>) =
        level_privileges(level).partition(|(_, _, column)| has(column));
    if added.is_empty() {
        return Vec::new();
    }
    let name = &table.schema.name;
    let mut statements = Vec::new();
    let mut after = "User";
    for (_, _, column) in level_privileges(level) {
        if !has(column) {
            statements.push(format!(
                "ALTER TABLE `{DATABASE}`.`{name}` ADD COLUMN `{column}` CHAR(1) NOT NULL \
                 DEFAULT 'N' AFTER `{after}`"
            ));
        }
        after = column;
    }
    let held_all = held
        .iter()
        .filter(|(p, _, _)| *p != Privileges::GRANT)
        .map(|(_, _, column)| format!("`{column}` = 'Y'"))
        .collect::<Vec<_>>()
        .join(" AND ");
    let set = added
        .iter()
        .map(|(_, _, column)| format!("`{column}` = 'Y'"))
        .collect::<Vec<_>>()
        .join(", ");
    assert!(!held_all.is_empty(), "{name} has privilege columns");
    statements.push(format!(
        "UPDATE `{DATABASE}`.`{name}` SET {set} WHERE {held_all}"
    ));
    statements
}

/// The grant tables, resolved from one catalog.
pub struct GrantTables {
    user: Arc<Table>,
    db: Arc<Table>,
    tables_priv: Arc<Table>,
    columns_priv: Arc<Table>,
    procs_priv: Arc<Table>,
}

fn text(row: &[Value], table: &Table, column: &str) -> String {
    table
        .schema
        .column_index(column)
        .and_then(|i| row.get(i))
        .and_then(Value::as_bytes)
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .unwrap_or_default()
}

fn flag(row: &[Value], table: &Table, column: &str) -> bool {
    text(row, table, column).eq_ignore_ascii_case("Y")
}

fn yes_no(set: bool) -> Value {
    Value::text(if set { "Y" } else { "N" })
}

/// The members of the privilege SET columns (`Table_priv`, `Column_priv`, `Proc_priv`),
/// MySQL's SET member names in the SET's order, each with the privilege it stands for.
///
/// `Table_priv`'s members: 'Select,Insert,...,Grant,...'.
fn table_priv_members() -> impl Iterator<Item = (Privileges, &'static str)> + Clone {
    level_privileges(Privileges::TABLE_LEVEL).map(|&(p, _, column)| {
        let word = match p {
            Privileges::CREATE_VIEW => "Create View",
            Privileges::SHOW_VIEW => "Show view",
            Privileges::DELETE_HISTORY => "Delete versioning rows",
            _ => column.trim_end_matches("_priv"),
        };
        (p, word)
    })
}

/// `Column_priv`'s members: 'Select,Insert,Update,References'.
fn column_priv_members() -> impl Iterator<Item = (Privileges, &'static str)> + Clone {
    Privileges::COLUMN_NAMES
        .iter()
        .map(|(p, _, word)| (*p, *word))
}

/// `Proc_priv`'s members: 'Execute,Alter Routine,Grant'.
const PROC_PRIV_MEMBERS: [(Privileges, &str); 3] = [
    (Privileges::EXECUTE, "Execute"),
    (Privileges::ALTER_ROUTINE, "Alter Routine"),
    (Privileges::GRANT, "Grant"),
];

fn proc_priv_members() -> impl Iterator<Item = (Privileges, &'static str)> + Clone {
    PROC_PRIV_MEMBERS.iter().copied()
}

/// The SET text of `privileges`: the names of its members, comma-separated.
fn set_text(
    members: impl Iterator<Item = (Privileges, &'static str)>,
    privileges: Privileges,
) -> String {
    members
        .filter(|(p, _)| privileges.contains(*p))
        .map(|(_, word)| word)
        .collect::<Vec<_>>()
        .join(",")
}

/// The privileges a SET text names, ignoring case, spaces around words and words that
/// name no member.
fn parse_set(
    members: impl Iterator<Item = (Privileges, &'static str)> + Clone,
    text: &str,
) -> Privileges {
    text.split(',')
        .flat_map(|word| {
            members
                .clone()
                .filter(move |(_, member)| member.eq_ignore_ascii_case(word.trim()))
        })
        .fold(Privileges::NONE, |all, (p, _)| all | p)
}

/// `Routine_type`'s value for `kind`.
fn routine_type(kind: RoutineKind) -> &'static str {
    match kind {
        RoutineKind::Procedure => "PROCEDURE",
        RoutineKind::Function => "FUNCTION",
    }
}

type Rows = Vec<(Arc<RowSlot>, Vec<Value>)>;

impl GrantTables {
    /// Err 1146 if a grant table is missing (someone dropped it).
    pub fn open(catalog: &Catalog) -> Result<GrantTables> {
        let get = |name: &str| {
            catalog
                .table(DATABASE, name)
                .cloned()
                .ok_or_else(|| Error::no_such_table(DATABASE, name))
        };
        Ok(GrantTables {
            user: get(USER)?,
            db: get(DB)?,
            tables_priv: get(TABLES_PRIV)?,
            columns_priv: get(COLUMNS_PRIV)?,
            procs_priv: get(PROCS_PRIV)?,
        })
    }

    fn rows(txn: &Transaction, table: &Arc<Table>) -> Rows {
        let mut rows = Vec::new();
        table.scan(
            &txn.write_view(),
            IndexNo::Primary,
            &KeyRange::all(),
            |slot, row| {
                rows.push((slot.clone(), row.to_vec()));
                ControlFlow::Continue(())
            },
        );
        rows
    }

    /// Compiles the tables as `txn` sees them.
    pub fn load(&self, txn: &Transaction) -> PrivilegeSnapshot {
        let user = &self.user;
        let accounts = Self::rows(txn, user)
            .into_iter()
            .map(|(_, row)| {
                let mut global = Privileges::NONE;
                for (p, _, column) in Privileges::NAMES.iter() {
                    if flag(&row, user, column) {
                        global |= *p;
                    }
                }
                Account {
                    user: text(&row, user, "User"),
                    host: text(&row, user, "Host"),
                    plugin: PasswordPlugin::from_name(&text(&row, user, "plugin"))
                        .unwrap_or(PasswordPlugin::NativePassword),
                    authentication: text(&row, user, "authentication_string"),
                    locked: flag(&row, user, "account_locked"),
                    require_ssl: !text(&row, user, "ssl_type").is_empty(),
                    global,
                }
            })
            .collect();
        let db = &self.db;
        let databases = Self::rows(txn, db)
            .into_iter()
            .map(|(_, row)| {
                let mut privileges = Privileges::NONE;
                for (p, _, column) in level_privileges(Privileges::DATABASE_LEVEL) {
                    if flag(&row, db, column) {
                        privileges |= *p;
                    }
                }
                DatabaseGrant {
                    user: text(&row, db, "User"),
                    host: text(&row, db, "Host"),
                    db: text(&row, db, "Db"),
                    privileges,
                }
            })
            .collect();
        let tp = &self.tables_priv;
        let tables = Self::rows(txn, tp)
            .into_iter()
            .map(|(_, row)| TableGrant {
                user: text(&row, tp, "User"),
                host: text(&row, tp, "Host"),
                db: text(&row, tp, "Db"),
                table: text(&row, tp, "Table_name"),
                privileges: parse_set(table_priv_members(), &text(&row, tp, "Table_priv")),
            })
            .collect();
        let cp = &self.columns_priv;
        let columns = Self::rows(txn, cp)
            .into_iter()
            .map(|(_, row)| ColumnGrant {
                user: text(&row, cp, "User"),
                host: text(&row, cp, "Host"),
                db: text(&row, cp, "Db"),
                table: text(&row, cp, "Table_name"),
                column: text(&row, cp, "Column_name"),
                privileges: parse_set(column_priv_members(), &text(&row, cp, "Column_priv")),
            })
            .collect();
        let pp = &self.procs_priv;
        let routines = Self::rows(txn, pp)
            .into_iter()
            .map(|(_, row)| RoutineGrant {
                user: text(&row, pp, "User"),
                host: text(&row, pp, "Host"),
                db: text(&row, pp, "Db"),
                kind: match text(&row, pp, "Routine_type").as_str() {
                    "FUNCTION" => RoutineKind::Function,
                    _ => RoutineKind::Procedure,
                },
                name: text(&row, pp, "Routine_name"),
                privileges: parse_set(proc_priv_members(), &text(&row, pp, "Proc_priv")),
            })
            .collect();
        PrivilegeSnapshot::new(accounts, databases, tables, columns, routines)
    }

    /// The row of `table` whose primary key columns hold `key` (a point lookup: Host
    /// compares case-insensitively through its collation, the binary columns exactly).
    fn find(
        txn: &Transaction,
        table: &Arc<Table>,
        key: &[(&str, &str)],
    ) -> Option<(Arc<RowSlot>, Vec<Value>)> {
        let schema = &table.schema;
        let values = schema
            .primary_key
            .as_deref()?
            .iter()
            .map(|&c| {
                let name = &schema.columns[c].name;
                key.iter()
                    .find(|(column, _)| column == name)
                    .map(|(_, value)| Value::text(value))
            })
            .collect::<Option<Vec<Value>>>()?;
        let key = table.primary_key(&values);
        table.get(&txn.write_view(), &key, |slot, row| {
            (slot.clone(), row.to_vec())
        })
    }

    /// Inserts, or replaces by its primary `key`, the row whose key columns hold `key`'s
    /// values and every other column `value(column name)`.
    fn put(
        txn: &mut Transaction,
        table: &Arc<Table>,
        key: &[(&str, &str)],
        value: impl Fn(&str) -> Value,
    ) -> Result<()> {
        let row: Box<[Value]> = table
            .schema
            .columns
            .iter()
            .map(|column| {
                let name = column.name.as_str();
                match key.iter().find(|(k, _)| *k == name) {
                    Some((_, v)) => Value::text(v),
                    None => value(name),
                }
            })
            .collect();
        let result = match Self::find(txn, table, key) {
            Some((slot, _)) => txn.update(table, &slot, row),
            None => txn.insert(table, row).map(drop),
        };
        result.map_err(grant_table_error)
    }

    /// Deletes the row with primary `key`, if there is one.
    fn remove(txn: &mut Transaction, table: &Arc<Table>, key: &[(&str, &str)]) -> Result<()> {
        match Self::find(txn, table, key) {
            Some((slot, _)) => txn.delete(table, &slot).map_err(grant_table_error),
            None => Ok(()),
        }
    }

    /// Inserts or replaces the `mysql.user` row of `account`.
    pub fn write_account(&self, txn: &mut Transaction, account: &Account) -> Result<()> {
        let key = [
            ("Host", account.host.as_str()),
            ("User", account.user.as_str()),
        ];
        Self::put(txn, &self.user, &key, |name| {
            let privilege = Privileges::NAMES.iter().find(|(_, _, c)| *c == name);
            match (name, privilege) {
                (_, Some((p, _, _))) => yes_no(account.global.contains(*p)),
                ("ssl_type", _) => Value::text(if account.require_ssl { "ANY" } else { "" }),
                ("plugin", _) => Value::text(account.plugin.name()),
                ("authentication_string", _) => Value::text(&account.authentication),
                ("account_locked", _) => yes_no(account.locked),
                _ => Value::text(""),
            }
        })
    }

    /// Sets (or with no privileges, removes) a `mysql.db` row.
    pub fn write_database_grant(&self, txn: &mut Transaction, grant: &DatabaseGrant) -> Result<()> {
        let key = [
            ("Host", grant.host.as_str()),
            ("Db", grant.db.as_str()),
            ("User", grant.user.as_str()),
        ];
        if grant.privileges.is_empty() {
            return Self::remove(txn, &self.db, &key);
        }
        Self::put(txn, &self.db, &key, |name| {
            yes_no(
                level_privileges(Privileges::DATABASE_LEVEL)
                    .any(|(p, _, c)| *c == name && grant.privileges.contains(*p)),
            )
        })
    }

    /// Sets (or with no privileges, removes) a `mysql.tables_priv` row; `columns` is the
    /// union of the account's column grants on the table (its `Column_priv`).
    pub fn write_table_grant(
        &self,
        txn: &mut Transaction,
        grant: &TableGrant,
        columns: Privileges,
        grantor: &str,
    ) -> Result<()> {
        let key = [
            ("Host", grant.host.as_str()),
            ("Db", grant.db.as_str()),
            ("User", grant.user.as_str()),
            ("Table_name", grant.table.as_str()),
        ];
        if grant.privileges.is_empty() && columns.is_empty() {
            return Self::remove(txn, &self.tables_priv, &key);
        }
        Self::put(txn, &self.tables_priv, &key, |name| match name {
            "Grantor" => Value::text(grantor),
            "Table_priv" => Value::text(&set_text(table_priv_members(), grant.privileges)),
            "Column_priv" => Value::text(&set_text(column_priv_members(), columns)),
            _ => Value::text(""),
        })
    }

    /// Sets (or with no privileges, removes) a `mysql.procs_priv` row.
    pub fn write_routine_grant(
        &self,
        txn: &mut Transaction,
        grant: &RoutineGrant,
        grantor: &str,
    ) -> Result<()> {
        let key = [
            ("Host", grant.host.as_str()),
            ("Db", grant.db.as_str()),
            ("User", grant.user.as_str()),
            ("Routine_name", grant.name.as_str()),
            ("Routine_type", routine_type(grant.kind)),
        ];
        if grant.privileges.is_empty() {
            return Self::remove(txn, &self.procs_priv, &key);
        }
        Self::put(txn, &self.procs_priv, &key, |name| match name {
            "Grantor" => Value::text(grantor),
            "Proc_priv" => Value::text(&set_text(proc_priv_members(), grant.privileges)),
            _ => Value::text(""),
        })
    }

    /// Sets (or with no privileges, removes) a `mysql.columns_priv` row.
    pub fn write_column_grant(&self, txn: &mut Transaction, grant: &ColumnGrant) -> Result<()> {
        let key = [
            ("Host", grant.host.as_str()),
            ("Db", grant.db.as_str()),
            ("User", grant.user.as_str()),
            ("Table_name", grant.table.as_str()),
            ("Column_name", grant.column.as_str()),
        ];
        if grant.privileges.is_empty() {
            return Self::remove(txn, &self.columns_priv, &key);
        }
        Self::put(txn, &self.columns_priv, &key, |name| match name {
            "Column_priv" => Value::text(&set_text(column_priv_members(), grant.privileges)),
            _ => Value::text(""),
        })
    }

    /// Deletes every row of `user`@`host` in the grant tables.
    pub fn delete_account(&self, txn: &mut Transaction, user: &str, host: &str) -> Result<()> {
        let tables = [
            &self.user,
            &self.db,
            &self.tables_priv,
            &self.columns_priv,
            &self.procs_priv,
        ];
        for table in tables {
            for (slot, row) in Self::rows(txn, table) {
                if text(&row, table, "User") == user
                    && text(&row, table, "Host").eq_ignore_ascii_case(host)
                {
                    txn.delete(table, &slot).map_err(grant_table_error)?;
                }
            }
        }
        Ok(())
    }
}

/// A grant table row another transaction holds, or a log failure.
fn grant_table_error(e: manycore_storage::StorageError) -> Error {
    match e {
        manycore_storage::StorageError::LockWait { .. }
        | manycore_storage::StorageError::WriteConflict
        | manycore_storage::StorageError::Deadlock => Error::new(
            ErrorCode::LockWaitTimeout,
            "Lock wait timeout exceeded; try restarting transaction",
        ),
        other => crate::session::log_error(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn privilege_set_text_round_trips() {
        let p = Privileges::SELECT | Privileges::INSERT | Privileges::GRANT | Privileges::ALTER;
        assert_eq!(
            set_text(table_priv_members(), p),
            "Select,Insert,Grant,Alter"
        );
        assert_eq!(
            parse_set(table_priv_members(), "Select,Insert,Grant,Alter"),
            p
        );
        assert_eq!(parse_set(table_priv_members(), ""), Privileges::NONE);
        let c = Privileges::SELECT | Privileges::REFERENCES;
        assert_eq!(set_text(column_priv_members(), c), "Select,References");
        assert_eq!(parse_set(column_priv_members(), "Select,References"), c);
        let r = Privileges::EXECUTE | Privileges::ALTER_ROUTINE;
        assert_eq!(set_text(proc_priv_members(), r), "Execute,Alter Routine");
        assert_eq!(
            parse_set(proc_priv_members(), "execute, Alter Routine,Bogus"),
            r
        );
    }
}
