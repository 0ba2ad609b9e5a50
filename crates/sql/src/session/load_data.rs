//! Running LOAD DATA [LOCAL] INFILE (`load_data` holds the file format and the rows' path):
//! with LOCAL, the statement's first run asks the client for the file, its next run loads
//! it; without, the file is read on the server (`server_file`), with the FILE privilege.

use super::{Bound, Session, StatementOutcome, Wait};
use crate::error::{Error, ErrorCode, Result};
use crate::expr::SessionContext;
use crate::load_data::{self, LoadDataStatement};
use crate::outfile::{FileSink, IntoFile};
use crate::privilege::Privileges;
use crate::scope::Parameters;
use crate::server_file;
use crate::sink::ResultSink;
use manycore_types::Value;
use sqlparser::ast;

impl Session {
    pub(super) fn load_data(
        &mut self,
        statement: &LoadDataStatement,
        text: &str,
        parameters: &Parameters,
    ) -> Result<StatementOutcome> {
        if statement.local && !self.client_local_files {
            return Err(Error::new(
                ErrorCode::LoadInfileCapabilityDisabled,
                "The used command is not allowed because the MariaDB server or client has \
                 disabled the local infile capability",
            ));
        }
        if !statement.local {
            self.require_file_privilege()?;
        }
        // Bound before the file is asked for (or read), so its errors cost no transfer.
        let plan = {
            let catalog = self.engine.storage().catalog();
            let cx = self.bind_context(&catalog, text, parameters);
            load_data::bind(statement, &cx)?
        };
        let data = if statement.local {
            let Some(data) = self.local_file.take() else {
                self.wait = Some(Wait::LocalFile(plan.file.clone()));
                return Err(Error::local_file_wait());
            };
            data
        } else {
            // Read again if the statement runs again after a row-lock wait.
            let dir = self.engine.config().secure_file_priv.as_deref();
            server_file::read(dir, &plan.file)?
        };
        let found_rows = self.client_found_rows;
        let result = self.with_transaction(true, |txn, state, interrupt| {
            load_data::execute(&plan, &data, txn, state, interrupt, found_rows)
        });
        if statement.local && result.as_ref().is_err_and(|e| e.wait.is_some()) {
            // Undone to wait for a row lock: it runs again with the same file.
            self.local_file = Some(data);
        }
        result
    }

    /// 1045 unless the session holds FILE, as MariaDB refuses LOAD DATA INFILE (SELECT ...
    /// INTO OUTFILE is 1227 instead: `AccessCheck::global`).
    fn require_file_privilege(&self) -> Result<()> {
        if self.state.grants.global(Privileges::FILE) {
            return Ok(());
        }
        Err(self.state.access_denied())
    }

    /// The file the waiting LOAD DATA LOCAL asked for (`Wait::LocalFile`), as the client
    /// sent it; `resume` runs the statement again with it.
    pub fn supply_local_file(&mut self, data: Vec<u8>) {
        self.local_file = Some(data);
    }
}

impl Session {
    /// SELECT ... INTO OUTFILE|DUMPFILE (`outfile`): the SELECT runs into the file, and
    /// the client gets an OK with the rows written. `run` is (the values of `?`, the
    /// parameters, whether this is the EXECUTE of a prepared statement).
    pub(super) fn select_into(
        &mut self,
        query: &ast::Statement,
        into: &IntoFile,
        text: &str,
        (params, parameters, prepared): (&[Value], &Parameters, bool),
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<()> {
        self.state.access().global(Privileges::FILE)?;
        let ast::Statement::Query(query) = query else {
            return Err(Error::not_supported(
                "INTO OUTFILE after a statement other than SELECT",
            ));
        };
        let plan = {
            let catalog = self.engine.storage().catalog();
            let cx = self.bind_context(&catalog, text, parameters);
            Bound::Select(crate::select::bind_select(query, &cx)?)
        };
        load_data::check_format(
            into.charset.as_deref(),
            &into.format,
            "SELECT ... INTO OUTFILE",
        )?;
        let escape = into.format.escape(&self.state);
        let dir = self.engine.config().secure_file_priv.as_deref();
        let file = server_file::create(dir, &into.file)?;
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
        let mut file_sink = FileSink::new(into, escape, file, sink);
        self.execute_bound(&plan, params, &mut file_sink, more)
    }
}
