//! Locking reads: SELECT ... FOR UPDATE and LOCK IN SHARE MODE inside a transaction.
//!
//! The rows a single-table query block reads (its scan's rows, before the other
//! operators) are locked first, each as a write of its unchanged row
//! (`Transaction::lock_row`), so another transaction's write or locking read of them waits
//! (with deadlock detection) until this one ends; then the query reads the latest committed
//! rows (the write view), as InnoDB's locking reads do, not the transaction's snapshot.
//!
//! Invariants:
//! (1) Every row is locked before any row is sent: a lock wait undoes the statement and
//!     runs it again (session invariant (4)) with nothing sent yet.
//! (2) A read is locking only in a session transaction (BEGIN, or autocommit off) that is
//!     not READ ONLY; in autocommit a locking read is a plain read of the latest rows (its
//!     locks would end with the statement).
//!
//! Simpler than InnoDB (README): LOCK IN SHARE MODE locks as FOR UPDATE does (exclusive;
//! two shared readers of one row wait for each other); every row the scan reads is locked,
//! also those ORDER BY ... LIMIT leaves out; the rows of joins, UNIONs, derived tables and
//! subqueries are read latest but not locked; a locked row is logged at commit as a write
//! of its unchanged value.

use super::Session;
use crate::error::Result;
use crate::exec::{self, ExecContext};
use crate::select::SelectPlan;
use manycore_types::Value;
use std::ops::ControlFlow;
use std::sync::Arc;

impl Session {
    /// Runs `f` with the context `select` reads its rows in: the session's (`reading`), or,
    /// for a locking read in a transaction, the write view after its rows were locked.
    pub(super) fn reading_select<R>(
        &mut self,
        select: &SelectPlan,
        params: &[Value],
        f: impl FnOnce(&ExecContext) -> Result<R>,
    ) -> Result<R> {
        let in_transaction = self.explicit || !self.state.autocommit;
        if !select.locking || !in_transaction || self.read_only {
            return self.reading(params, f);
        }
        self.with_transaction(true, |txn, state, interrupt| {
            txn.refresh_write_view();
            if let Some(scan) = select.plan.single_scan() {
                let slots = exec::in_context(txn.write_view(), params, state, interrupt, |ctx| {
                    let mut slots = Vec::new();
                    let _ = exec::scan_rows(scan, ctx, &mut |slot, _| {
                        slots.push(Arc::clone(slot));
                        Ok(ControlFlow::Continue(()))
                    })?;
                    Ok(slots)
                })?;
                for slot in &slots {
                    txn.lock_row(&scan.table, slot)
                        .map_err(|e| crate::dml::write_error(e, &scan.table, &[]))?;
                }
            }
            // Read after locking: the write view now includes this transaction's id.
            exec::in_context(txn.write_view(), params, state, interrupt, f)
        })
    }
}
