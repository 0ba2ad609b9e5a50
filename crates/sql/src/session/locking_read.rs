//! Locking reads: SELECT ... FOR UPDATE and LOCK IN SHARE MODE.
//!
//! The rows a single-table query block reads (its scan's rows that pass the WHERE clause,
//! before the other operators) are locked first, in the order the scan reads them
//! (`Transaction::lock_row`: the row's lock alone, no new version), so another
//! transaction's write or locking read of them waits (with deadlock detection) until this
//! one ends; then the query reads the latest committed rows (the write view), as InnoDB's
//! locking reads do, not the transaction's snapshot.
//!
//! A query block whose FROM is a join (inner, comma, LEFT and RIGHT joins) locks, in each
//! of its tables, the rows that make up its joined rows: those of every combination that
//! passes the ON and WHERE conditions, before the other operators (GROUP BY, HAVING,
//! LIMIT). The join is planned to report its tables' row slots (`join::plan`) and run
//! to collect them; each joined row's rows are locked in the order the nested loops
//! read its tables, as InnoDB locks them. A LEFT JOIN's NULL-extended side has no row to
//! lock, and its preserved row is locked.
//!
//! When the block passes the scan's rows on in the scan's order with a LIMIT the one thing
//! cutting them (`Plan::scan_prefix`: no ORDER BY, or one the scan's index order gives),
//! only its first OFFSET + LIMIT rows are locked, as InnoDB stops locking where the limit
//! is met. So the job-queue read `... WHERE state = 'new' ORDER BY id LIMIT 1 FOR UPDATE
//! SKIP LOCKED` hands concurrent workers different rows. Otherwise, and under
//! SQL_CALC_FOUND_ROWS (which reads past the LIMIT), every row the scan passes on is
//! locked.
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
//!     scan by slot (`exec::SkippedRows`), even if a holder ended meanwhile. A joined row
//!     is yielded only when each of its rows is locked by this transaction.
//! (4) SKIP LOCKED over a join leaves out the joined rows that hold a row found held, as
//!     InnoDB does (a LEFT JOIN's outer row whose inner rows are all left out comes out
//!     NULL-extended); of such a joined row, the rows of tables read before the held one
//!     stay locked and those after it are not locked for it. The join is run again
//!     leaving out the held rows until a run meets no newly held row, locking what each
//!     run newly yields (a NULL-extended row that now passes the WHERE clause), so the
//!     final read's rows are all locked.
//!
//! Simpler than InnoDB (README): LOCK IN SHARE MODE locks as FOR UPDATE does (exclusive;
//! two shared readers of one row wait for each other, or skip each other's rows); when
//! ORDER BY is not the scan's order (another column, DESC: InnoDB reads the index
//! backwards) every row the scan passes on is locked, also those LIMIT leaves out; rows
//! the WHERE clause rejects are not locked (InnoDB keeps the locks of the rows it read
//! before the limit, and gap locks); a join locks only the rows of its joined rows, every
//! one of them (LIMIT never stops its locking), while InnoDB also locks the rows it reads
//! and the conditions reject (a full scan's whole table), and gap locks where a LEFT
//! JOIN finds no row, and which rows of a skipped joined row stay locked follows each
//! one's join order; SKIP LOCKED meets only the rows of joined rows, so a held inner row
//! of a LEFT JOIN that the WHERE clause rejects (`WHERE c.id IS NULL`) leaves its outer
//! row out, where InnoDB reads it, skips it and passes the outer row on NULL-extended; the rows of UNIONs, derived tables, views and subqueries are read
//! latest but not locked.

use super::Session;
use crate::error::Result;
use crate::exec::{self, ExecContext, SkippedRows};
use crate::plan::ScanPrefix;
use crate::select::{LockWaitPolicy, Locking, SelectPlan};
use manycore_storage::{RowSlot, StorageError, Table, Transaction};
use manycore_types::Value;
use std::collections::HashSet;
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
            // The read rows stay alive while `skipped` names them by address.
            let mut slots = Vec::new();
            let mut skipped = SkippedRows::new();
            if let Some(scan) = select.plan.single_scan() {
                // SQL_CALC_FOUND_ROWS reads every row, as MariaDB's does (module notes).
                let prefix = (!select.calc_found_rows)
                    .then(|| select.plan.scan_prefix())
                    .flatten();
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
                    } else if lock(txn, &scan.table, slot, policy)? {
                        locked += 1;
                    } else {
                        skipped.insert(Arc::as_ptr(slot));
                    }
                }
            } else if let Some(join) = select.plan.block_join() {
                let tables = join.tables();
                let mut locked: HashSet<*const RowSlot> = HashSet::new();
                // Invariant (4): runs the join again while SKIP LOCKED leaves out more. A
                // join of derived tables only has no row to lock.
                while !tables.is_empty() {
                    let mut read = Vec::new();
                    let leaving_out = (!skipped.is_empty()).then_some(&skipped);
                    let _ = exec::in_context(view, params, state, interrupt, leaving_out, |ctx| {
                        exec::run_join_with_slots(join, ctx, &mut |_, row_slots| {
                            read.extend(tables.iter().map(|&(_, at)| row_slots[at].clone()));
                            Ok(ControlFlow::Continue(()))
                        })
                    })?;
                    let skipped_before = skipped.len();
                    for joined in read.chunks(tables.len()) {
                        // A NULL-extended table has no row.
                        for (slot, &(table, _)) in joined.iter().zip(&tables) {
                            let Some(slot) = slot else { continue };
                            let address = Arc::as_ptr(slot);
                            if skipped.contains(&address) {
                                break;
                            }
                            if locked.contains(&address) {
                                continue;
                            }
                            slots.push(Arc::clone(slot));
                            if lock(txn, table, slot, policy)? {
                                locked.insert(address);
                            } else {
                                // The joined row's later tables are not read (invariant (4)).
                                skipped.insert(address);
                                break;
                            }
                        }
                    }
                    if skipped.len() == skipped_before {
                        break;
                    }
                }
            }
            // Read after locking: the write view now includes this transaction's id.
            let skipped = (!skipped.is_empty()).then_some(&skipped);
            exec::in_context(txn.write_view(), params, state, interrupt, skipped, f)
        })
    }
}

/// Locks `slot`'s row of `table` for this transaction; false when SKIP LOCKED finds it
/// held by another one (a held row under another policy is a lock wait, or 1205).
fn lock(
    txn: &mut Transaction,
    table: &Arc<Table>,
    slot: &Arc<RowSlot>,
    policy: LockWaitPolicy,
) -> Result<bool> {
    match txn.lock_row(table, slot) {
        Err(StorageError::LockWait { holder })
            if holder != 0 && policy == LockWaitPolicy::SkipLocked =>
        {
            Ok(false)
        }
        result => {
            result.map_err(|e| crate::dml::write_error(e, table, &[]))?;
            Ok(true)
        }
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
