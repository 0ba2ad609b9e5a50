//! Running CREATE PROCEDURE, DROP PROCEDURE, CALL and SHOW CREATE PROCEDURE (`routine`
//! reads them and holds their rules). CREATE and DROP commit an open transaction first
//! (session invariant (2)); CALL runs as one statement (`routine` invariant (3)).

use super::{storage_error, Session, StatementOutcome};
use crate::compound::{self, CallOutput};
use crate::error::{Error, ErrorCode, Result};
use crate::expr::SessionContext;
use crate::privilege::Privileges;
use crate::routine::{self, Characteristics, CreateProcedure, Mode};
use crate::scope::Parameters;
use crate::select_into::user_variable;
use crate::show::{self, Rows};
use crate::sink::{ColumnInfo, ResultSink};
use manycore_storage::{RoutineKind, RoutineSchema};
use manycore_types::{DataType, Value};
use sqlparser::ast;
use std::sync::Arc;

impl Session {
    /// CREATE [OR REPLACE] PROCEDURE: 1049 for a missing database, 1304 for a name in
    /// use (a note with IF NOT EXISTS); the parameters and the body are checked now
    /// (`routine` invariant (1)).
    pub(super) fn create_procedure(
        &mut self,
        statement: &CreateProcedure,
    ) -> Result<StatementOutcome> {
        self.implicit_commit()?;
        let (db, name) = crate::ddl::split_name(&statement.name)?;
        let db = self.require_db(db)?;
        let storage = self.engine.storage().clone();
        let catalog = storage.catalog();
        let database = catalog
            .databases
            .get(&db)
            .ok_or_else(|| Error::bad_db(&db))?;
        self.state.access().database(&db, Privileges::CREATE)?;
        let parameters = routine::parameters(&statement.parameters)?;
        {
            let typed: Vec<(String, DataType)> = parameters
                .iter()
                .map(|p| (p.name.clone(), p.data_type.clone()))
                .collect();
            let unbound = Parameters::untyped();
            let mut cx = self.bind_context(&catalog, &statement.body, &unbound);
            cx.database = Some(&db);
            compound::bind_procedure(&cx, &db, &statement.body, &typed)?;
        }
        if database.routine(RoutineKind::Procedure, &name).is_some() && !statement.or_replace {
            if statement.if_not_exists {
                self.state
                    .note(ErrorCode::SpAlreadyExists, already_exists(&name));
                return Ok(StatementOutcome::ok());
            }
            return Err(Error::new(
                ErrorCode::SpAlreadyExists,
                already_exists(&name),
            ));
        }
        drop(catalog);
        let variable = |name: &str| self.state.system_variable_text(name);
        let now = self.state.local_statement_time();
        let now =
            manycore_types::format::to_text(&Value::DateTime(now), &DataType::DateTime { fsp: 0 });
        let Characteristics {
            comment,
            deterministic,
            data_access,
            security,
        } = statement.characteristics.clone();
        let schema = RoutineSchema {
            name: name.clone(),
            kind: RoutineKind::Procedure,
            params: statement.parameters.clone(),
            returns: String::new(),
            body: statement.body.clone(),
            definer: self.state.definer(statement.definer.as_deref()),
            security,
            data_access,
            deterministic,
            comment,
            sql_mode: variable("sql_mode")?,
            character_set_client: variable("character_set_client")?,
            collation_connection: variable("collation_connection")?,
            created: now.clone(),
            modified: now,
        };
        if !storage
            .create_routine(&db, schema, statement.or_replace)
            .map_err(storage_error)?
        {
            return Err(Error::new(
                ErrorCode::SpAlreadyExists,
                already_exists(&name),
            ));
        }
        Ok(StatementOutcome::ok())
    }

    /// DROP PROCEDURE [IF EXISTS] [db.]name: 1305 (a note with IF EXISTS) if there is none.
    pub(super) fn drop_procedure(
        &mut self,
        name: &ast::ObjectName,
        if_exists: bool,
    ) -> Result<StatementOutcome> {
        self.implicit_commit()?;
        let (db, name) = crate::ddl::split_name(name)?;
        let db = self.require_db(db)?;
        self.state.access().database(&db, Privileges::DROP)?;
        let storage = self.engine.storage();
        let dropped = match storage.drop_routine(&db, RoutineKind::Procedure, &name) {
            Ok(dropped) => dropped,
            Err(manycore_storage::StorageError::NoSuchDatabase(_)) => false,
            Err(e) => return Err(storage_error(e)),
        };
        if !dropped {
            let e = routine::no_such_procedure(&db, &name);
            if !if_exists {
                return Err(e);
            }
            self.state.note(e.code, e.message);
        }
        Ok(StatementOutcome::ok())
    }

    /// CALL [db.]name[(arguments)]: runs the procedure's body with its parameters set from
    /// the arguments, assigns the OUT and INOUT parameters to their user variables, and
    /// sends the body's result sets, then an OK (`routine` invariants (2) to (4)).
    pub(super) fn call(
        &mut self,
        name: &ast::ObjectName,
        arguments: &[ast::Expr],
        (text, params, parameters): (&str, &[Value], &Parameters),
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<()> {
        let (db, name) = crate::ddl::split_name(name)?;
        let db = self.require_db(db)?;
        let catalog = self.engine.storage().catalog();
        let found = catalog
            .databases
            .get(&db)
            .and_then(|d| d.routine(RoutineKind::Procedure, &name))
            .map(Arc::clone)
            .ok_or_else(|| routine::no_such_procedure(&db, &name))?;
        let declared = routine::parameters(&found.params)?;
        if declared.len() != arguments.len() {
            return Err(Error::new(
                ErrorCode::SpWrongNoOfArgs,
                format!(
                    "Incorrect number of arguments for PROCEDURE {db}.{}; expected {}, got {}",
                    found.name,
                    declared.len(),
                    arguments.len()
                ),
            ));
        }
        // Each OUT or INOUT argument names the user variable it is returned to.
        let mut returned = Vec::new();
        for (i, (parameter, argument)) in declared.iter().zip(arguments).enumerate() {
            if parameter.mode == Mode::In {
                continue;
            }
            let variable = match argument {
                ast::Expr::Identifier(ident) => user_variable(&ident.value),
                _ => None,
            };
            let Some(variable) = variable else {
                return Err(Error::new(
                    ErrorCode::SpNotVarArg,
                    format!(
                        "OUT or INOUT argument {} for routine {db}.{} is not a variable or \
                         NEW pseudo-variable in BEFORE trigger",
                        i + 1,
                        found.name
                    ),
                ));
            };
            returned.push((i, variable.to_string()));
        }
        let mut values = Vec::with_capacity(arguments.len());
        for (parameter, argument) in declared.iter().zip(arguments) {
            values.push(match parameter.mode {
                Mode::Out => Value::Null,
                Mode::In | Mode::InOut => {
                    self.eval_constant(argument, "field list", text, params, parameters)?
                }
            });
        }
        let body = {
            let typed: Vec<(String, DataType)> = declared
                .into_iter()
                .map(|p| (p.name, p.data_type))
                .collect();
            let unbound = Parameters::untyped();
            let mut cx = self.bind_context(&catalog, &found.body, &unbound);
            cx.database = Some(&db);
            compound::bind_procedure(&cx, &db, &found.body, &typed)?
        };
        drop(catalog);
        let mut output = CallOutput::default();
        // A statement of the body that failed was undone by itself (`routine` invariant
        // (3)): its error ends the CALL, and the work before it stays. Only a lock wait
        // or a deadlock undoes the whole CALL.
        let ran = self.with_transaction(body.writes, |txn, state, interrupt| {
            let mut runtime = compound::Runtime {
                txn,
                session: state,
                interrupt,
                call: Some(&mut output),
            };
            match compound::run_procedure(&body, values, &mut runtime) {
                Err(e) if e.wait.is_none() && e.code != ErrorCode::LockDeadlock => Ok(Err(e)),
                ran => ran.map(Ok),
            }
        })?;
        let finals = ran?;
        if !self.client_multi_results && !output.result_sets.is_empty() {
            return Err(Error::new(
                ErrorCode::SpBadselect,
                format!(
                    "PROCEDURE {db}.{} can't return a result set in the given context",
                    found.name
                ),
            ));
        }
        for (slot, variable) in returned {
            self.state
                .set_user_variable(&variable, finals[slot].clone());
        }
        for rows in output.result_sets {
            self.send_rows(rows, sink, true)?;
        }
        self.finish(
            StatementOutcome::Affected {
                rows: output.affected,
                last_insert_id: 0,
            },
            sink,
            more,
        )
    }

    /// SHOW CREATE PROCEDURE [db.]name: 1305 if there is none.
    pub(super) fn show_create_procedure(&self, name: &ast::ObjectName) -> Result<Rows> {
        let (db, name) = crate::ddl::split_name(name)?;
        let db = self.require_db(db)?;
        let catalog = self.engine.storage().catalog();
        let database = catalog.databases.get(&db);
        let Some((database, found)) =
            database.and_then(|d| d.routine(RoutineKind::Procedure, &name).map(|r| (d, r)))
        else {
            return Err(routine::no_such_procedure(&db, &name));
        };
        let found = Arc::clone(found);
        let text = |name: &str, length| ColumnInfo::text(name, length);
        Ok(Rows {
            columns: vec![
                text("Procedure", 64),
                text("sql_mode", 8192),
                ColumnInfo::text_nullable("Create Procedure", 65535),
                text("character_set_client", 32),
                text("collation_connection", 32),
                text("Database Collation", 32),
            ],
            rows: vec![vec![
                show::text(&found.name),
                show::text(&found.sql_mode),
                show::text(&create_text(&found)),
                show::text(&found.character_set_client),
                show::text(&found.collation_connection),
                show::text(database.collation.name()),
            ]],
        })
    }
}

/// The CREATE PROCEDURE that makes `found`.
pub(crate) fn create_text(found: &RoutineSchema) -> String {
    let characteristics = Characteristics {
        comment: found.comment.clone(),
        deterministic: found.deterministic,
        data_access: found.data_access.clone(),
        security: found.security.clone(),
    };
    routine::create_text(
        &found.definer,
        &found.name,
        &found.params,
        &characteristics,
        &found.body,
    )
}

fn already_exists(name: &str) -> String {
    format!("PROCEDURE {name} already exists")
}
