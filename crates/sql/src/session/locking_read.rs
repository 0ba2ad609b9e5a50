//! Locking reads: SELECT ... FOR UPDATE and LOCK IN SHARE MODE.
//!
//! The rows a single-table query block reads (its scan's rows that pass the WHERE clause,
//! before the other operators) are locked first, in the order the scan reads them, each as
//! a write of its unchanged row (`Transaction::lock_row`), so another transaction's write
//! or locking read of them waits (with deadlock detection) until this one ends; then the
//! query reads the latest committed rows (the write view), as InnoDB's locking reads do,
//! not the transaction's snapshot.
//!
//! When the block passes the scan's rows on in the scan's order with a LIMIT the one thing
//! cutting them (`Plan::scan_prefix`: no ORDER BY, or one the scan's index order gives),
//! only its first OFFSET + LIMIT rows are locked, as InnoDB stops locking where the limit
//! is met. So the job-queue read `... WHERE state = 'new' ORDER BY id LIMIT 1 FOR UPDATE
//! SKIP LOCKED` hands concurrent workers different rows. Otherwise every row the scan
//! passes on is locked.
//!
//! A row another transaction holds is met as any write meets it (a lock wait, session
//! invariant (4)), bounded by the clause's `LockWaitPolicy`: NOWAIT and WAIT n are the
//! statement's innodb_lock_wait_timeout (0 for NOWAIT: 1205 at once), as MariaDB reads
//! them; SKIP LOCKED leaves the row out of the read instead of waiting, and it does not
//! count toward the limit.
//!
//! Invariants:
//! (1) Every row is locked before any row is sent: a lock wait undoes the statement and
//!     runs it again (session invariant (4)) with nothing sent yet.
//! (2) A read is locking in autocommit too, as in MariaDB: the statement is a transaction
//!     of its own whose locks end with it, so it waits for a held row, NOWAIT fails with
//!     1205 and SKIP LOCKED skips. In a READ ONLY transaction FOR UPDATE is refused with
//!     1792, as a write is, and LOCK IN SHARE MODE locks (both as in MariaDB).
//! (3) The read yields, of the scanned rows, only those this transaction locked: the rows
//!     found held (SKIP LOCKED) and those past the first OFFSET + LIMIT are left out of the
//!     scan by slot (`exec::SkippedRows`), even if a holder ended meanwhile.
//!
//! Simpler than InnoDB (README): LOCK IN SHARE MODE locks as FOR UPDATE does (exclusive;
//! two shared readers of one row wait for each other, or skip each other's rows); when
//! ORDER BY is not the scan's order (another column, DESC: InnoDB reads the index
//! backwards) every row the scan passes on is locked, also those LIMIT leaves out; rows
//! the WHERE clause rejects are not locked (InnoDB keeps the locks of the rows it read
//! before the limit, and gap locks); the rows of joins, UNIONs, derived tables and
//! subqueries are read latest but not locked; a locked row is logged at commit as a
//! write of its unchanged value.

use super::Session;
use crate::error::Result;
use crate::exec::{self, ExecContext, SkippedRows};
use crate::plan::ScanPrefix;
use crate::select::{LockWaitPolicy, Locking, SelectPlan};
use manycore_storage::StorageError;
use manycore_types::Value;
use std::ops::ControlFlow;
use std::sync::Arc;

impl Session {
    /// Runs `f` with the context `select` reads its rows in: the session's (`reading`), or,
    /// for a locking read, the write view after its rows were locked.
    pub(super) fn reading_select<R>(
        &mut self,
        select: &SelectPlan,
        params: &[Value],
        f: impl FnOnce(&ExecContext) -> Result<R>,
    ) -> Result<R> {
        let Some(Locking { shared, policy }) = select.locking else {
            return self.reading(params, f);
        };
        if let LockWaitPolicy::WaitAtMost(timeout) = policy {
            self.state.waits.row_lock_timeout.set(Some(timeout));
        }
        // In autocommit its locks last for the statement (invariant (2)).
        self.with_transaction(!shared, |txn, state, interrupt| {
            txn.refresh_write_view();
            let view = txn.write_view();
            // The scanned rows stay alive while `skipped` names them by address.
            let mut slots = Vec::new();
            let mut skipped = SkippedRows::new();
            if let Some(scan) = select.plan.single_scan() {
                let prefix = select.plan.scan_prefix();
                let wanted = exec::in_context(view, params, state, interrupt, None, |ctx| {
                    let (_, access_followed) =
                        exec::scan_rows_in_order(scan, ctx, &mut |slot, _| {
                            slots.push(Arc::clone(slot));
                            Ok(ControlFlow::Continue(()))
                        })?;
                    rows_delivered(prefix, access_followed, ctx)
                })?;
                let mut locked = 0;
                for slot in &slots {
                    if locked == wanted {
                        // Past the rows the query delivers (invariant (3)).
                        skipped.insert(Arc::as_ptr(slot));
                        continue;
                    }
                    match txn.lock_row(&scan.table, slot) {
                        Err(StorageError::LockWait { holder })
                            if holder != 0 && policy == LockWaitPolicy::SkipLocked =>
                        {
                            skipped.insert(Arc::as_ptr(slot));
                        }
                        result => {
                            result.map_err(|e| crate::dml::write_error(e, &scan.table, &[]))?;
                            locked += 1;
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

/// How many of its scan's rows, in the order the scan passes them on, a query block
/// delivers (OFFSET + LIMIT) when that is all it can deliver (`Plan::scan_prefix`, read in
/// the order its ORDER BY asks for); else every one (u64::MAX).
fn rows_delivered(
    prefix: Option<ScanPrefix>,
    access_followed: bool,
    ctx: &ExecContext,
) -> Result<u64> {
    match prefix {
        Some(prefix)
            if prefix
                .scan
                .reads_in_order_of(&prefix.sorted_by, access_followed) =>
        {
            let offset = exec::count_value(prefix.offset, ctx)?;
            Ok(offset.saturating_add(exec::count_value(prefix.count, ctx)?))
        }
        _ => Ok(u64::MAX),
    }
}
