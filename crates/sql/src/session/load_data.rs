//! Running LOAD DATA [LOCAL] INFILE (`load_data` holds the file format and the rows' path):
//! with LOCAL, the statement's first run asks the client for the file, its next run loads
//! it; without, the file is read on the server (`server_file`), with the FILE privilege.

use super::{Session, StatementOutcome, Wait};
use crate::error::{Error, ErrorCode, Result};
use crate::load_data::{self, LoadDataStatement};
use crate::privilege::Privileges;
use crate::scope::Parameters;
use crate::server_file;

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
            let cx = self.state.bind_context(&catalog, text, parameters);
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
