//! Running CREATE TRIGGER and DROP TRIGGER (`trigger` holds the bodies' rules). Like
//! other DDL they commit an open transaction first (session invariant (2)).

use super::{storage_error, Session, StatementOutcome};
use crate::error::{Error, ErrorCode, Result};

use crate::privilege::{self, Privileges};
use crate::scope::Parameters;
use crate::show::{self, Rows};
use crate::sink::ColumnInfo;
use crate::trigger::{self, TriggerStatement};
use manycore_storage::{TriggerPlace, TriggerSchema};
use manycore_types::Value;
use sqlparser::ast;

impl Session {
    /// CREATE [OR REPLACE] TRIGGER: 1146 for a missing table, 1347 for a view, 1359 for
    /// a name in use; the body binds now against its table (1363, 1362, 1054...).
    pub(super) fn create_trigger(
        &mut self,
        statement: &TriggerStatement,
    ) -> Result<StatementOutcome> {
        self.implicit_commit()?;
        let (trigger_db, name) = crate::ddl::split_name(&statement.name)?;
        let (table_db, table_name) = crate::ddl::split_name(&statement.table)?;
        let db = self.require_db(trigger_db.or(table_db.clone()))?;
        let table_db = table_db.unwrap_or(db.clone());
        if table_db != db {
            return Err(Error::new(
                ErrorCode::TrgInWrongSchema,
                "Trigger in wrong schema",
            ));
        }
        self.state
            .access()
            .table(&db, &table_name, Privileges::TRIGGER)?;
        let storage = self.engine.storage().clone();
        if self.state.temporary.get(&db, &table_name).is_some() {
            return Err(Error::new(
                ErrorCode::TrgOnViewOrTempTable,
                format!("Trigger's '{table_name}' is a view, temporary table or sequence"),
            ));
        }
        let catalog = storage.catalog();
        let database = catalog
            .databases
            .get(&db)
            .ok_or_else(|| Error::bad_db(&db))?;
        if database.views.contains_key(&table_name) {
            return Err(Error::new(
                ErrorCode::WrongObject,
                format!("'{db}.{table_name}' is not of type 'BASE TABLE'"),
            ));
        }
        let Some(table) = database.tables.get(&table_name).cloned() else {
            return Err(Error::no_such_table(&db, &table_name));
        };
        if database.triggers.iter().any(|t| t.name == name) && !statement.or_replace {
            if statement.if_not_exists {
                self.state.note(
                    ErrorCode::TrgAlreadyExists,
                    format!("Trigger '{db}.{name}' already exists"),
                );
                return Ok(StatementOutcome::ok());
            }
            return Err(trigger_exists(&db, &name));
        }
        let place = statement.ordering.clone().unwrap_or(TriggerPlace::Last);
        if let TriggerPlace::Follows(other) | TriggerPlace::Precedes(other) = &place {
            // As MariaDB: the other trigger must fire at the same time for the same event.
            let found = database.triggers.iter().any(|t| {
                t.name == *other
                    && t.table == table_name
                    && t.timing == statement.timing
                    && t.event == statement.event
            });
            if !found {
                return Err(Error::new(
                    ErrorCode::ReferencedTrgDoesNotExist,
                    format!(
                        "Referenced trigger '{other}' for the given action time and event \
                         type does not exist"
                    ),
                ));
            }
        }
        let definer = self.state.definer_to_create(statement.definer.as_deref())?;
        let variable = |name: &str| self.state.system_variable_text(name);
        let schema = TriggerSchema {
            name: name.clone(),
            table: table_name,
            timing: statement.timing.clone(),
            event: statement.event.clone(),
            body: statement.body.clone(),
            definer,
            sql_mode: variable("sql_mode")?,
            character_set_client: variable("character_set_client")?,
            collation_connection: variable("collation_connection")?,
        };
        {
            let parameters = Parameters::untyped();
            let mut cx = self
                .state
                .bind_context(&catalog, &statement.body, &parameters);
            cx.database = Some(&db);
            trigger::validate(&cx, &db, &table, &schema)?;
        }
        drop(catalog);
        if !storage
            .create_trigger(&db, schema, statement.or_replace, place)
            .map_err(storage_error)?
        {
            return Err(trigger_exists(&db, &name));
        }
        Ok(StatementOutcome::ok())
    }

    /// DROP TRIGGER [IF EXISTS] [db.]name: 1360 (a note with IF EXISTS) if there is none.
    pub(super) fn drop_trigger(
        &mut self,
        name: &ast::ObjectName,
        if_exists: bool,
    ) -> Result<StatementOutcome> {
        self.implicit_commit()?;
        let (db, name) = crate::ddl::split_name(name)?;
        let db = self.require_db(db)?;
        let storage = self.engine.storage().clone();
        let table = storage.catalog().databases.get(&db).and_then(|d| {
            d.triggers
                .iter()
                .find(|t| t.name == name)
                .map(|t| t.table.clone())
        });
        if let Some(table) = &table {
            self.state.access().table(&db, table, Privileges::TRIGGER)?;
        }
        if table.is_none() || !storage.drop_trigger(&db, &name).map_err(storage_error)? {
            let e = Error::new(ErrorCode::TrgDoesNotExist, "Trigger does not exist");
            if !if_exists {
                return Err(e);
            }
            self.state.note(e.code, e.message);
        }
        Ok(StatementOutcome::ok())
    }
}

impl Session {
    /// SHOW CREATE TRIGGER [db.]name: 1360 if there is none. Created is NULL (the
    /// creation time is not kept yet).
    pub(super) fn show_create_trigger(&self, name: &ast::ObjectName) -> Result<Rows> {
        let (db, name) = crate::ddl::split_name(name)?;
        let db = self.require_db(db)?;
        let catalog = self.engine.storage().catalog();
        let database = catalog.databases.get(&db);
        let Some((database, found)) =
            database.and_then(|d| d.triggers.iter().find(|t| t.name == name).map(|t| (d, t)))
        else {
            return Err(Error::new(
                ErrorCode::TrgDoesNotExist,
                "Trigger does not exist",
            ));
        };
        if !self
            .state
            .grants
            .table(&db, &found.table)
            .contains(Privileges::TRIGGER)
        {
            return Err(privilege::need_one_of(Privileges::TRIGGER.name()));
        }
        let text = |name: &str, length| ColumnInfo::text(name, length);
        Ok(Rows {
            columns: vec![
                text("Trigger", 64),
                text("sql_mode", 8192),
                text("SQL Original Statement", 1024),
                text("character_set_client", 32),
                text("collation_connection", 32),
                text("Database Collation", 32),
                ColumnInfo::text_nullable("Created", 22),
            ],
            rows: vec![vec![
                show::text(&found.name),
                show::text(&found.sql_mode),
                show::text(&trigger::create_text(found)),
                show::text(&found.character_set_client),
                show::text(&found.collation_connection),
                show::text(database.collation.name()),
                Value::Null,
            ]],
        })
    }
}

fn trigger_exists(db: &str, name: &str) -> Error {
    Error::new(
        ErrorCode::TrgAlreadyExists,
        format!("Trigger '{db}.{name}' already exists"),
    )
}
