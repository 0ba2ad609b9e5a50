//! Running SELECT ... INTO (`select_into` reads the clause): the SELECT binds and runs as
//! any other, and its rows go to user variables or a file on the server instead of the
//! client, which gets an OK whose affected rows are the rows delivered.

use super::{Bound, Session, StatementOutcome};
use crate::error::{Error, ErrorCode, Result};
use crate::expr::SessionContext;
use crate::load_data;
use crate::outfile::{FileSink, IntoFile};
use crate::privilege::Privileges;
use crate::scope::Parameters;
use crate::select::SelectPlan;
use crate::select_into::{self, user_variable, IntoClause, IntoTarget};
use crate::server_file;
use crate::sink::ResultSink;
use manycore_types::Value;
use sqlparser::ast;

impl Session {
    /// `run` is (the values of `?`, the parameters, whether this is the EXECUTE of a
    /// prepared statement).
    pub(super) fn select_into(
        &mut self,
        query: &ast::Statement,
        into: &IntoClause,
        text: &str,
        (params, parameters, prepared): (&[Value], &Parameters, bool),
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<()> {
        let ast::Statement::Query(query) = query else {
            return Err(Error::not_supported(
                "INTO after a statement other than SELECT",
            ));
        };
        if let IntoTarget::Variables(names) = &into.target {
            // A stored program's body takes its INTO out itself (`compound`): here every
            // target must be a user variable.
            if let Some(local) = names.iter().find(|n| user_variable(n).is_none()) {
                return Err(crate::compound::undeclared(local));
            }
        }
        if let IntoTarget::File(_) = into.target {
            self.state.access().global(Privileges::FILE)?;
        }
        let plan = {
            let catalog = self.engine.storage().catalog();
            let cx = self.state.bind_context(&catalog, text, parameters);
            crate::select::bind_select(query, &cx)?
        };
        // MariaDB warns when it reads the statement: at PREPARE, not at each EXECUTE.
        if into.deprecated_position && !prepared {
            self.state.warn(
                ErrorCode::WarnDeprecatedSyntax,
                "'<select expression> INTO <destination>;' is deprecated and will be removed \
                 in a future release. Please use 'SELECT <select list> INTO <destination> \
                 FROM...' instead"
                    .to_string(),
            );
        }
        match &into.target {
            IntoTarget::File(file) => {
                let sink = &mut self.file_sink(file, sink)?;
                self.execute_bound(&Bound::Select(plan), params, sink, more)
            }
            IntoTarget::Variables(names) => {
                select_into::check_width(plan.columns.len(), names.len())?;
                let rows = self.select_into_variables(&plan, names, params)?;
                self.finish(
                    StatementOutcome::Affected {
                        rows,
                        last_insert_id: 0,
                    },
                    sink,
                    more,
                )
            }
        }
    }

    /// A sink that writes the rows to the new file `into` names (created here: 1086 if it
    /// exists) and sends the client an OK at the end.
    fn file_sink<'a>(
        &self,
        into: &'a IntoFile,
        client: &'a mut dyn ResultSink,
    ) -> Result<FileSink<'a>> {
        load_data::check_format(
            into.charset.as_deref(),
            &into.format,
            "SELECT ... INTO OUTFILE",
        )?;
        let escape = into.format.escape(&self.state);
        let dir = self.engine.config().secure_file_priv.as_deref();
        let file = server_file::create(dir, &into.file)?;
        Ok(FileSink::new(into, escape, file, client))
    }

    /// Runs `plan` and assigns its row to the user variables `names` (`select_into`
    /// invariant (3)); the rows assigned, 0 or 1.
    fn select_into_variables(
        &mut self,
        plan: &SelectPlan,
        names: &[String],
        params: &[Value],
    ) -> Result<u64> {
        plan.scans.count(&self.state);
        let (first, too_many) =
            self.reading_select(plan, params, |ctx| select_into::first_row(&plan.plan, ctx))?;
        let Some(row) = first else {
            self.state.found_rows.set(0);
            self.state
                .warn(ErrorCode::SpFetchNoData, select_into::NO_DATA.to_string());
            return Ok(0);
        };
        for (name, value) in names.iter().zip(row) {
            let name = user_variable(name).expect("checked before the query ran");
            self.state.set_user_variable(name, value);
        }
        if too_many {
            return Err(select_into::too_many_rows());
        }
        self.state.found_rows.set(1);
        Ok(1)
    }
}
