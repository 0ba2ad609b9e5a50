//! Locking reads: SELECT ... FOR UPDATE and LOCK IN SHARE MODE inside a transaction.
//!
//! The rows a single-table query block reads (its scan's rows, before the other
//! operators) are locked first, each as a write of its unchanged row
//! (`Transaction::lock_row`), so another transaction's write or locking read of them waits
//! (with deadlock detection) until this one ends; then the query reads the latest committed
//! rows (the write view), as InnoDB's locking reads do, not the transaction's snapshot.
//!
//! A row another transaction holds is met as any write meets it (a lock wait, session
//! invariant (4)), bounded by the clause's `LockWaitPolicy`: NOWAIT and WAIT n are the
//! statement's innodb_lock_wait_timeout (0 for NOWAIT: 1205 at once), as MariaDB reads
//! them; SKIP LOCKED leaves the row out of the read instead of waiting.
//!
//! Invariants:
//! (1) Every row is locked before any row is sent: a lock wait undoes the statement and
//!     runs it again (session invariant (4)) with nothing sent yet.
//! (2) A read is locking only in a session transaction (BEGIN, or autocommit off) that is
//!     not READ ONLY; in autocommit a locking read is a plain read of the latest rows (its
//!     locks would end with the statement), so NOWAIT, WAIT n and SKIP LOCKED change
//!     nothing there.
//! (3) With SKIP LOCKED the read yields, of the scanned rows, only those this transaction
//!     locked: the rows found held are left out of the scan by slot (`exec::SkippedRows`),
//!     even if their holder ended meanwhile.
//!
//! Simpler than InnoDB (README): LOCK IN SHARE MODE locks as FOR UPDATE does (exclusive;
//! two shared readers of one row wait for each other, or skip each other's rows); every
//! row the scan reads is locked, also those ORDER BY ... LIMIT leaves out; the rows of
//! joins, UNIONs, derived tables and subqueries are read latest but not locked; a locked
//! row is logged at commit as a write of its unchanged value.

use super::Session;
use crate::error::Result;
use crate::exec::{self, ExecContext, SkippedRows};
use crate::select::{LockWaitPolicy, SelectPlan};
use manycore_storage::StorageError;
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
        let Some(policy) = select.locking.filter(|_| in_transaction && !self.read_only) else {
            return self.reading(params, f);
        };
        if let LockWaitPolicy::WaitAtMost(timeout) = policy {
            self.state.waits.row_lock_timeout.set(Some(timeout));
        }
        self.with_transaction(true, |txn, state, interrupt| {
            txn.refresh_write_view();
            let view = txn.write_view();
            // The scanned rows stay alive while `skipped` names them by address.
            let mut slots = Vec::new();
            let mut skipped = SkippedRows::new();
            if let Some(scan) = select.plan.single_scan() {
                let _ = exec::in_context(view, params, state, interrupt, None, |ctx| {
                    exec::scan_rows(scan, ctx, &mut |slot, _| {
                        slots.push(Arc::clone(slot));
                        Ok(ControlFlow::Continue(()))
                    })
                })?;
                for slot in &slots {
                    match txn.lock_row(&scan.table, slot) {
                        Err(StorageError::LockWait { holder })
                            if holder != 0 && policy == LockWaitPolicy::SkipLocked =>
                        {
                            skipped.insert(Arc::as_ptr(slot));
                        }
                        locked => {
                            locked.map_err(|e| crate::dml::write_error(e, &scan.table, &[]))?
                        }
                    }
                }
            }
            // Read after locking: the write view now includes this transaction's id.
            let skipped = (!skipped.is_empty()).then_some(&skipped);
            exec::in_context(txn.write_view(), params, state, interrupt, skipped, f)
        })
    }
}
