//! Running the view statements (`view` holds the definitions' rules): CREATE/ALTER VIEW,
//! DROP VIEW, SHOW CREATE VIEW (and SHOW CREATE TABLE of a view), DESCRIBE of a view.
//! Like other DDL they commit an open transaction first (session invariant (2)).

use super::{storage_error, Session, StatementOutcome};
use crate::error::{Error, ErrorCode, Result};
use crate::privilege::Privileges;
use crate::scope::Parameters;
use crate::show::{self, Rows};
use crate::sink::ColumnInfo;
use crate::view::{self, ViewStatement};
use manycore_storage::{StorageError, ViewSchema};
use sqlparser::ast;
use std::sync::Arc;

impl Session {
    /// CREATE [OR REPLACE] VIEW and ALTER VIEW.
    pub(super) fn create_view(&mut self, statement: &ViewStatement) -> Result<StatementOutcome> {
        self.implicit_commit()?;
        let (db, name) = crate::ddl::split_name(&statement.name)?;
        let db = self.require_db(db)?;
        self.state
            .access()
            .table(&db, &name, Privileges::CREATE_VIEW)?;
        if statement.alter || statement.or_replace {
            self.state.access().table(&db, &name, Privileges::DROP)?;
        }
        let storage = self.engine.storage().clone();
        let catalog = storage.catalog();
        let database = catalog
            .databases
            .get(&db)
            .ok_or_else(|| Error::bad_db(&db))?;
        if database.tables.contains_key(&name) {
            if statement.alter || statement.or_replace {
                return Err(not_of_type(&db, &name, "VIEW"));
            }
            return Err(storage_error(StorageError::TableExists(name)));
        }
        let exists = database.views.contains_key(&name);
        if statement.alter && !exists {
            return Err(Error::no_such_table(&db, &name));
        }
        if exists && !statement.alter && !statement.or_replace {
            return Err(storage_error(StorageError::TableExists(name)));
        }
        drop(catalog);
        // Invariant (1) of `view`: the query binds now, in the view's database.
        let query = view::parse_query(&statement.query)?;
        {
            let catalog = storage.catalog();
            let parameters = Parameters::untyped();
            let mut cx = self
                .state
                .bind_context(&catalog, &statement.query, &parameters);
            cx.database = Some(&db);
            let mut plan = crate::select::bind_select(&query, &cx)?;
            // It binds with the session's temporary tables only to refuse them: a view
            // reads the catalog's tables (`temporary` invariant (2)).
            if let Some(t) = plan.tables.iter().find(|t| self.is_temporary(t.db(), t)) {
                return Err(Error::new(
                    ErrorCode::ViewSelectTmptable,
                    format!(
                        "View's SELECT refers to a temporary table '{}'",
                        t.schema.name
                    ),
                ));
            }
            view::rename_columns(&mut plan, &statement.columns)?;
            crate::join::derived_table(&name, &plan.columns)?;
        }
        if statement.check_option.is_some() && !view::updatable(&query) {
            return Err(Error::new(
                ErrorCode::ViewNonupdCheck,
                format!("CHECK OPTION on non-updatable view `{db}`.`{name}`"),
            ));
        }
        let definer = self.state.definer_to_create(statement.definer.as_deref())?;
        let definition = ViewSchema {
            name,
            columns: statement.columns.clone(),
            query: statement.query.clone(),
            algorithm: statement.algorithm.clone().unwrap_or("UNDEFINED".into()),
            definer,
            security: statement.security.clone().unwrap_or("DEFINER".into()),
            check_option: statement.check_option.clone().unwrap_or("NONE".into()),
        };
        storage
            .create_view(&db, definition, statement.alter || statement.or_replace)
            .map_err(storage_error)?;
        Ok(StatementOutcome::ok())
    }

    /// DROP VIEW [IF EXISTS] v, ...: drops the views that exist; the others are one
    /// error (or with IF EXISTS one note) 4092, as MariaDB.
    pub(super) fn drop_views(
        &mut self,
        names: &[ast::ObjectName],
        if_exists: bool,
    ) -> Result<StatementOutcome> {
        let storage = self.engine.storage().clone();
        let mut missing = Vec::new();
        for n in names {
            let (db, name) = crate::ddl::split_name(n)?;
            let db = self.require_db(db)?;
            self.state.access().table(&db, &name, Privileges::DROP)?;
            match storage.drop_view(&db, &name) {
                Ok(()) => {}
                Err(StorageError::NoSuchTable(_) | StorageError::NoSuchDatabase(_)) => {
                    missing.push(format!("{db}.{name}"))
                }
                Err(e) => return Err(storage_error(e)),
            }
        }
        if !missing.is_empty() {
            // One condition naming every missing view, as MariaDB raises it.
            let message = format!("Unknown VIEW: '{}'", missing.join(","));
            if !if_exists {
                return Err(Error::new(ErrorCode::UnknownView, message));
            }
            self.state.note(ErrorCode::UnknownView, message);
        }
        Ok(StatementOutcome::ok())
    }

    /// The view `[db.]name` names, after the session's privileges on it are checked
    /// (`needed`; None: any).
    pub(super) fn lookup_view(
        &self,
        name: &ast::ObjectName,
        needed: Option<Privileges>,
    ) -> Result<Option<(String, Arc<ViewSchema>)>> {
        let Some((db, found)) = self.find_view(name)? else {
            return Ok(None);
        };
        match needed {
            Some(needed) => self.state.access().table(&db, &found.name, needed)?,
            None => self.state.access().table_any(&db, &found.name)?,
        }
        Ok(Some((db, found)))
    }

    /// The view `[db.]name` names, before any privilege check.
    fn find_view(&self, name: &ast::ObjectName) -> Result<Option<(String, Arc<ViewSchema>)>> {
        let (db, view) = crate::ddl::split_name(name)?;
        let db = self.require_db(db)?;
        let catalog = self.engine.storage().catalog();
        Ok(catalog.view(&db, &view).map(|found| (db, found.clone())))
    }

    /// SHOW CREATE VIEW (`view`: 1347 on a table) and SHOW CREATE TABLE of a view. As in
    /// MariaDB, SHOW CREATE VIEW needs SELECT and SHOW VIEW on the view, and SHOW CREATE
    /// TABLE some privilege on it ("SHOW command denied") and SHOW VIEW; being its
    /// definer is not enough (1142 naming the first one missing).
    pub(super) fn show_create_view(
        &self,
        name: &ast::ObjectName,
        view: bool,
    ) -> Result<Option<Rows>> {
        let found = self.find_view(name)?;
        if let Some((db, found)) = &found {
            let access = self.state.access();
            if !view {
                access.table_level_any(db, &found.name, "SHOW")?;
            }
            let needed = match view {
                true => Privileges::SELECT | Privileges::SHOW_VIEW,
                false => Privileges::SHOW_VIEW,
            };
            access.table(db, &found.name, needed)?;
        }
        let Some((_, found)) = found else {
            if !view {
                return Ok(None);
            }
            let (db, table) = crate::ddl::split_name(name)?;
            let db = self.require_db(db)?;
            let catalog = self.engine.storage().catalog();
            if catalog.table(&db, &table).is_some() {
                return Err(not_of_type(&db, &table, "VIEW"));
            }
            return Err(Error::no_such_table(&db, &table));
        };
        let text = |name: &str, length| ColumnInfo::text(name, length);
        let (client, collation) = crate::information_schema::VIEW_CHARSET;
        Ok(Some(Rows {
            columns: vec![
                text("View", 64),
                text("Create View", 1024),
                text("character_set_client", 32),
                text("collation_connection", 32),
            ],
            rows: vec![vec![
                show::text(&found.name),
                show::text(&view::create_text(&found)),
                show::text(client),
                show::text(collation),
            ]],
        }))
    }

    /// DESCRIBE / SHOW COLUMNS of a view: its bound result columns.
    pub(super) fn view_columns(
        &self,
        name: &ast::ObjectName,
    ) -> Result<Option<(String, Arc<manycore_storage::Table>)>> {
        let (db, view) = crate::ddl::split_name(name)?;
        if self
            .state
            .temporary
            .get(&self.require_db(db)?, &view)
            .is_some()
        {
            return Ok(None); // It hides the view (`temporary` invariant (2)).
        }
        let Some((db, found)) = self.lookup_view(name, None)? else {
            return Ok(None);
        };
        let catalog = self.engine.storage().catalog();
        let table = Arc::new(self.state.view_table(&catalog, &db, &found)?);
        Ok(Some((db, table)))
    }
}

/// 1347: `db.name` is not a VIEW (or not a BASE TABLE).
pub(super) fn not_of_type(db: &str, name: &str, kind: &str) -> Error {
    Error::new(
        ErrorCode::WrongObject,
        format!("'{db}.{name}' is not of type '{kind}'"),
    )
}
