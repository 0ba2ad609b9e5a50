//! Running CREATE and DROP of procedures and functions, CALL, and SHOW CREATE PROCEDURE /
//! FUNCTION (`routine` reads them and holds their rules). CREATE and DROP commit an open
//! transaction first (session invariant (2)); CALL runs as one statement (`routine`
//! invariant (3)). A stored function runs where an expression calls it (`routine`
//! invariant (5)), not here.

use super::{storage_error, Placeholders, Session, StatementOutcome};
use crate::compound::{self, CallOutput};
use crate::error::{Condition, Error, ErrorCode, Result};
use crate::expr::SessionContext;
use crate::privilege::Privileges;
use crate::routine::{self, CreateRoutine, Mode};
use crate::scope::Parameters;
use crate::select_into::user_variable_of;
use crate::show::{self, Rows};
use crate::sink::{ColumnInfo, ResultSink};
use manycore_storage::{Catalog, RoutineKind, RoutineSchema};
use manycore_types::{DataType, Value};
use sqlparser::ast;
use std::collections::HashMap;
use std::sync::Arc;

/// Procedures a session keeps bound (a client's working set is a few; one that calls
/// more starts over).
const BOUND_PROCEDURES_MAX: usize = 64;

/// The procedures this session bound for CALL, by database and `routine_key`: a CALL
/// binds its body once, not at every call, as a trigger's is bound with its table's
/// write plan.
#[derive(Default)]
pub(super) struct BoundProcedures(HashMap<(String, String), Arc<BoundProcedure>>);

impl BoundProcedures {
    pub(super) fn clear(&mut self) {
        self.0.clear();
    }
}

/// A procedure bound under one catalog and one `BindGeneration`: a body binds tables
/// and checks privileges, so either changing means binding it again.
pub(super) struct BoundProcedure {
    procedure: Arc<routine::BoundProcedure>,
    catalog: Arc<Catalog>,
    generation: crate::plan_cache::BindGeneration,
}

impl Session {
    /// CREATE [OR REPLACE] PROCEDURE or FUNCTION: 1049 for a missing database, 1304 for a
    /// name in use (a note with IF NOT EXISTS); the parameters, a function's RETURNS
    /// and the body are checked now (`routine` invariant (1)).
    pub(super) fn create_routine(&mut self, statement: &CreateRoutine) -> Result<StatementOutcome> {
        self.implicit_commit()?;
        let kind = statement.kind;
        let (db, name) = crate::ddl::split_name(&statement.name)?;
        let db = self.require_db(db)?;
        let storage = self.engine.storage().clone();
        let catalog = storage.catalog();
        let database = catalog
            .databases
            .get(&db)
            .ok_or_else(|| Error::bad_db(&db))?;
        self.state
            .access()
            .database(&db, Privileges::CREATE_ROUTINE)?;
        let definer = self.state.definer_to_create(statement.definer.as_deref())?;
        let parameters = routine::typed_parameters(statement.declared.clone())?;
        let returns = match &statement.returns {
            Some(written) => {
                routine::returns_text(&routine::returns_type(written, database.collation)?)
            }
            None => String::new(),
        };
        {
            let unbound = Parameters::untyped();
            let mut cx = self.state.bind_context(&catalog, &statement.body, &unbound);
            cx.database = Some(&db);
            match kind {
                RoutineKind::Procedure => {
                    compound::bind_procedure(&cx, &db, &statement.body, &parameters)?
                }
                RoutineKind::Function => {
                    compound::bind_function(&cx, &db, &name, &statement.body, &parameters)?
                }
            };
        }
        let already_exists = || {
            let message = format!("{} {name} already exists", routine::kind_name(kind));
            Error::new(ErrorCode::SpAlreadyExists, message)
        };
        if database.routine(kind, &name).is_some() && !statement.or_replace {
            if statement.if_not_exists {
                let e = already_exists();
                self.state.note(e.code, e.message);
                return Ok(StatementOutcome::ok());
            }
            return Err(already_exists());
        }
        drop(catalog);
        let variable = |name: &str| self.state.system_variable_text(name);
        let now = self.statement_time_text();
        let mut schema = RoutineSchema {
            name: name.clone(),
            kind,
            params: statement.parameters.clone(),
            returns,
            body: statement.body.clone(),
            definer,
            security: routine::DEFAULT_SECURITY.to_string(),
            data_access: routine::DEFAULT_DATA_ACCESS.to_string(),
            deterministic: false,
            comment: String::new(),
            sql_mode: variable("sql_mode")?,
            character_set_client: variable("character_set_client")?,
            collation_connection: variable("collation_connection")?,
            created: now.clone(),
            modified: now,
        };
        for written in &statement.characteristics {
            written.apply(&mut schema);
        }
        if !storage
            .create_routine(&db, schema, statement.or_replace)
            .map_err(storage_error)?
        {
            return Err(already_exists());
        }
        self.grant_to_creator((&db, kind, &name))?;
        // Unqualified, a built-in function of the same name is the one called (MariaDB).
        if kind == RoutineKind::Function
            && crate::expr::Function::lookup(&name.to_ascii_uppercase()).is_some()
        {
            self.state.note(
                ErrorCode::NativeFctNameCollision,
                format!("This function '{name}' has the same name as a native function"),
            );
        }
        Ok(StatementOutcome::ok())
    }

    /// DROP {PROCEDURE | FUNCTION} [IF EXISTS] [db.]name: 1370 without ALTER ROUTINE
    /// (checked first, as MariaDB), 1305 (a note with IF EXISTS) if there is none.
    pub(super) fn drop_routine(
        &mut self,
        kind: RoutineKind,
        name: &ast::ObjectName,
        if_exists: bool,
    ) -> Result<StatementOutcome> {
        self.implicit_commit()?;
        let (db, name) = crate::ddl::split_name(name)?;
        let db = self.require_db(db)?;
        self.state
            .access()
            .routine(&db, kind, &name, Privileges::ALTER_ROUTINE)?;
        let storage = self.engine.storage();
        let dropped = match storage.drop_routine(&db, kind, &name) {
            Ok(dropped) => dropped,
            Err(manycore_storage::StorageError::NoSuchDatabase(_)) => false,
            Err(e) => return Err(storage_error(e)),
        };
        if !dropped {
            let e = routine::no_such_routine(kind, &db, &name);
            if !if_exists {
                return Err(e);
            }
            self.state.note(e.code, e.message);
            return Ok(StatementOutcome::ok());
        }
        self.revoke_on_drop((&db, kind, &name))?;
        Ok(StatementOutcome::ok())
    }

    /// ALTER {PROCEDURE | FUNCTION} [db.]name characteristic...: sets the characteristics
    /// written (a later one over an earlier one) and the routine's modification time;
    /// 1305 if there is none. Needs ALTER ROUTINE (`routine` invariant (8)).
    pub(super) fn alter_routine(
        &mut self,
        kind: RoutineKind,
        name: &ast::ObjectName,
        changes: &[routine::Characteristic],
    ) -> Result<StatementOutcome> {
        self.implicit_commit()?;
        let (db, name) = crate::ddl::split_name(name)?;
        let db = self.require_db(db)?;
        self.state
            .access()
            .routine(&db, kind, &name, Privileges::ALTER_ROUTINE)?;
        let storage = self.engine.storage();
        let catalog = storage.catalog();
        let found = catalog
            .databases
            .get(&db)
            .and_then(|d| d.routine(kind, &name))
            .ok_or_else(|| routine::no_such_routine(kind, &db, &name))?;
        let mut altered = RoutineSchema {
            modified: self.statement_time_text(),
            ..RoutineSchema::clone(found)
        };
        for change in changes {
            change.apply(&mut altered);
        }
        drop(catalog);
        match storage.alter_routine(&db, altered) {
            Ok(true) => Ok(StatementOutcome::ok()),
            // Dropped (or its database) since it was found.
            Ok(false) | Err(manycore_storage::StorageError::NoSuchDatabase(_)) => {
                Err(routine::no_such_routine(kind, &db, &name))
            }
            Err(e) => Err(storage_error(e)),
        }
    }

    /// This statement's time as CREATED and LAST_ALTERED show it.
    fn statement_time_text(&self) -> String {
        let now = self.state.local_statement_time();
        manycore_types::format::to_text(&Value::DateTime(now), &DataType::DateTime { fsp: 0 })
    }

    /// CALL [db.]name[(arguments)]: runs the procedure's body with its parameters set from
    /// the arguments, returns the OUT and INOUT parameters (`Returned`), and sends the
    /// body's result sets, then an OK (`routine` invariants (2) to (4)).
    pub(super) fn call(
        &mut self,
        name: &ast::ObjectName,
        arguments: &[ast::Expr],
        (text, params, parameters, placeholders): (&str, &[Value], &Parameters, Placeholders),
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<()> {
        let (db, name) = crate::ddl::split_name(name)?;
        let db = self.require_db(db)?;
        let bound = self.bound_procedure(&db, &name)?;
        let procedure = &bound.procedure;
        let qualified = &procedure.qualified;
        let declared = &procedure.declared;
        if declared.len() != arguments.len() {
            let kind = RoutineKind::Procedure;
            let (expected, given) = (declared.len(), arguments.len());
            return Err(routine::wrong_argument_count(
                kind, qualified, expected, given,
            ));
        }
        let mut returned = Vec::new();
        let mut placeholder = 0;
        for (i, (parameter, argument)) in declared.iter().zip(arguments).enumerate() {
            let own = is_placeholder(argument).then_some(placeholder);
            placeholder += placeholders_in(argument);
            if parameter.mode == Mode::In {
                continue;
            }
            let to = match (user_variable_of(argument), own, placeholders) {
                (Some(variable), ..) => Some(Returned::Variable(variable.to_string())),
                (None, Some(_), Placeholders::Client) => Some(Returned::Client),
                (None, Some(index), Placeholders::Using(variables)) => {
                    variables[index].clone().map(Returned::Variable)
                }
                _ => None,
            };
            let Some(to) = to else {
                return Err(routine::not_variable_argument(i, qualified));
            };
            returned.push((i, to));
        }
        if !self.client_multi_results && procedure.body.result_sets {
            return Err(Error::new(
                ErrorCode::SpBadselect,
                format!("PROCEDURE {qualified} can't return a result set in the given context"),
            ));
        }
        let mut values = Vec::with_capacity(arguments.len());
        for (parameter, argument) in declared.iter().zip(arguments) {
            values.push(match parameter.mode {
                Mode::Out => {
                    // Its `?` (if it is one) is not read, but it is counted.
                    parameters.skip(placeholders_in(argument));
                    Value::Null
                }
                Mode::In | Mode::InOut => {
                    self.eval_constant(argument, "field list", text, params, parameters)?
                }
            });
        }
        let mut output = CallOutput::default();
        // A statement of the body that failed was undone by itself (`routine` invariant
        // (3)): its error ends the CALL, and the work before it stays. Only a lock wait
        // or a deadlock undoes the whole CALL.
        let body = &procedure.body;
        let ran = self.with_transaction(body.writes, |txn, state, interrupt| {
            let _running = state
                .running_routines
                .enter_procedure(Arc::clone(procedure));
            let mut runtime = compound::Runtime {
                access: compound::Access::Transaction(txn),
                session: state,
                interrupt,
                call: Some(&mut output),
            };
            match compound::run_procedure(body, values, &mut runtime) {
                Err(e) if e.wait.is_none() && e.code != ErrorCode::LockDeadlock => Ok(Err(e)),
                ran => ran.map(Ok),
            }
        })?;
        let mut finals = ran?;
        if let Some(conditions) = output.conditions {
            self.state.clear_warnings();
            self.state.warnings_current.set(true);
            for condition in conditions {
                let Condition {
                    level,
                    number,
                    sqlstate,
                    message,
                } = condition;
                self.state
                    .push_warning_number(level, number, &sqlstate, message);
            }
        }
        let mut to_client = (Vec::new(), Vec::new());
        for (slot, to) in returned {
            let value = std::mem::replace(&mut finals[slot], Value::Null);
            match to {
                Returned::Variable(variable) => self.state.set_user_variable(&variable, value),
                Returned::Client => {
                    let parameter = &declared[slot];
                    let column =
                        ColumnInfo::expression(&parameter.name, parameter.data_type.clone(), false);
                    to_client.0.push(column);
                    to_client.1.push(value);
                }
            }
        }
        for rows in output.result_sets {
            self.send_rows(rows, sink, true)?;
        }
        // A client without CLIENT_PS_MULTI_RESULTS does not read them: MariaDB drops them.
        let (columns, values) = to_client;
        if !columns.is_empty() && self.client_ps_multi_results {
            let (flags, warnings) = (self.status_flags(), self.state.warning_count());
            sink.out_parameters(&columns.into(), &values, flags, warnings)?;
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

    /// Procedure `db.name` bound, from this session's `BoundProcedures` while the catalog
    /// and the grants it was bound under are current; 1305 if there is none.
    fn bound_procedure(&mut self, db: &str, name: &str) -> Result<Arc<BoundProcedure>> {
        let catalog = self.engine.storage().catalog();
        let generation = self.state.bind_generation();
        let key = (db.to_string(), manycore_storage::routine_key(name));
        if let Some(bound) = self.procedures.0.get(&key) {
            if Arc::ptr_eq(&bound.catalog, &catalog) && bound.generation == generation {
                return Ok(Arc::clone(bound));
            }
        }
        let unbound = Parameters::untyped();
        let cx = self.state.bind_context(&catalog, "", &unbound);
        let procedure = routine::bind_procedure(&cx, db, name)?;
        let bound = Arc::new(BoundProcedure {
            procedure: Arc::new(procedure),
            catalog: Arc::clone(&catalog),
            generation,
        });
        if self.procedures.0.len() >= BOUND_PROCEDURES_MAX {
            self.procedures.clear();
        }
        self.procedures.0.insert(key, Arc::clone(&bound));
        Ok(bound)
    }

    /// SHOW CREATE PROCEDURE / FUNCTION [db.]name: 1305 if there is none or the session
    /// may not see it, the text NULL unless it may see that (`routine` invariant (9)).
    pub(super) fn show_create_routine(
        &self,
        kind: RoutineKind,
        name: &ast::ObjectName,
    ) -> Result<Rows> {
        let (db, name) = crate::ddl::split_name(name)?;
        let db = self.require_db(db)?;
        let catalog = self.engine.storage().catalog();
        let database = catalog.databases.get(&db);
        // MariaDB's message here names the routine without its database.
        let missing = || {
            let message = format!("{} {name} does not exist", routine::kind_name(kind));
            Error::new(ErrorCode::SpDoesNotExist, message)
        };
        let Some((database, found)) = database.and_then(|d| d.routine(kind, &name).map(|r| (d, r)))
        else {
            return Err(missing());
        };
        let found = Arc::clone(found);
        let definition =
            match routine::sight(&self.state.grants, &self.state.current_user, &db, &found) {
                routine::Sight::Hidden => return Err(missing()),
                routine::Sight::Described => Value::Null,
                routine::Sight::Whole => show::text(&routine::create_text(&found)),
            };
        let text = |name: &str, length| ColumnInfo::text(name, length);
        let (title, create) = match kind {
            RoutineKind::Procedure => ("Procedure", "Create Procedure"),
            RoutineKind::Function => ("Function", "Create Function"),
        };
        Ok(Rows {
            columns: vec![
                text(title, 64),
                text("sql_mode", 8192),
                ColumnInfo::text_nullable(create, 65535),
                text("character_set_client", 32),
                text("collation_connection", 32),
                text("Database Collation", 32),
            ],
            rows: vec![vec![
                show::text(&found.name),
                show::text(&found.sql_mode),
                definition,
                show::text(&found.character_set_client),
                show::text(&found.collation_connection),
                show::text(database.collation.name()),
            ]],
        })
    }
}

/// Where a CALL returns an OUT or INOUT parameter (`routine` invariant (2)).
enum Returned {
    /// `@v`, or a `?` that EXECUTE ... USING gave `@v`.
    Variable(String),
    /// A `?` of COM_STMT_EXECUTE: the result set of OUT parameters (`out_parameters`).
    Client,
}

/// How many `?`s `argument` holds: a bare one, or those in an expression.
fn placeholders_in(argument: &ast::Expr) -> usize {
    let mut count = 0;
    let _ = ast::visit_expressions(argument, |e| {
        count += usize::from(is_placeholder(e));
        std::ops::ControlFlow::<()>::Continue(())
    });
    count
}

/// Whether `e` is a bare `?`.
fn is_placeholder(e: &ast::Expr) -> bool {
    matches!(e, ast::Expr::Value(v) if matches!(&v.value, ast::Value::Placeholder(p) if p == "?"))
}
