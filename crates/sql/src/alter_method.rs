//! ALTER TABLE's ALGORITHM and LOCK clauses (and CREATE INDEX's). MariaDB refuses an
//! ALTER whose clauses ask for less than its engine needs for the change: ALGORITHM=INSTANT
//! with an ADD INDEX, LOCK=NONE with a column type change. manycore refuses the same
//! statements with the same errors (`check`), judging the change as InnoDB judges it
//! (`needed`), so a migration written for MariaDB runs, or fails, here as it does there.
//!
//! How manycore then runs the ALTER is its own: every ALTER holds writes to its table while
//! it runs (reads go on, each from its snapshot), and a rebuild of the rows or an index
//! build takes time in proportion to the rows. Where that breaks the promise of a clause
//! MariaDB admits — LOCK=NONE (writes go on), ALGORITHM=INSTANT (no row is touched) — the
//! statement says so in a Note (`unkept`) instead of refusing what MariaDB runs.
//! ALGORITHM=COPY rebuilds the rows, as MariaDB's copy does, and reports them.

use crate::error::{Error, ErrorCode, Result};
use crate::parse::TableOptions;
use manycore_storage::TableSchema;
use sqlparser::ast;

/// An ALGORITHM other than DEFAULT, in InnoDB's order: each does less to the table than
/// the next, and a change one can do any later one can do too.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Algorithm {
    Instant,
    NoCopy,
    Inplace,
    Copy,
}

impl Algorithm {
    fn clause(self) -> &'static str {
        match self {
            Algorithm::Instant => "ALGORITHM=INSTANT",
            Algorithm::NoCopy => "ALGORITHM=NOCOPY",
            Algorithm::Inplace => "ALGORITHM=INPLACE",
            Algorithm::Copy => "ALGORITHM=COPY",
        }
    }
}

/// A LOCK other than DEFAULT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lock {
    None,
    Shared,
    Exclusive,
}

/// The words ALGORITHM= takes, and what each asks for (DEFAULT: nothing).
const ALGORITHMS: [(&str, Option<Algorithm>); 5] = [
    ("DEFAULT", None),
    ("INSTANT", Some(Algorithm::Instant)),
    ("NOCOPY", Some(Algorithm::NoCopy)),
    ("INPLACE", Some(Algorithm::Inplace)),
    ("COPY", Some(Algorithm::Copy)),
];

/// The words LOCK= takes.
const LOCKS: [(&str, Option<Lock>); 4] = [
    ("DEFAULT", None),
    ("NONE", Some(Lock::None)),
    ("SHARED", Some(Lock::Shared)),
    ("EXCLUSIVE", Some(Lock::Exclusive)),
];

/// The clauses a statement wrote (the last of each kind); None for DEFAULT or none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Requested {
    pub algorithm: Option<Algorithm>,
    pub lock: Option<Lock>,
}

impl Requested {
    /// An ALTER TABLE's clauses, as `parse::table_options` kept their words: 1800 or 1801
    /// for a word MariaDB does not know (its parser's errors, so before the table is
    /// looked up).
    pub fn read(options: &TableOptions) -> Result<Requested> {
        Ok(Requested {
            algorithm: known_word(
                options.algorithm.as_deref(),
                &ALGORITHMS,
                ErrorCode::UnknownAlterAlgorithm,
                "Unknown ALGORITHM",
            )?,
            lock: known_word(
                options.lock.as_deref(),
                &LOCKS,
                ErrorCode::UnknownAlterLock,
                "Unknown LOCK type",
            )?,
        })
    }

    /// CREATE INDEX's clauses, as sqlparser reads them (it knows no NOCOPY: a syntax error
    /// there, where MariaDB takes it).
    pub fn of_create_index(clauses: &[ast::AlterTableOperation]) -> Result<Requested> {
        let mut options = TableOptions::default();
        for clause in clauses {
            match clause {
                ast::AlterTableOperation::Algorithm { algorithm, .. } => {
                    options.algorithm = Some(algorithm.to_string());
                }
                ast::AlterTableOperation::Lock { lock, .. } => {
                    options.lock = Some(lock.to_string());
                }
                _ => {}
            }
        }
        Requested::read(&options)
    }

    /// Whether the rows are rebuilt whatever the change: ALGORITHM=COPY.
    pub fn forces_copy(self) -> bool {
        self.algorithm == Some(Algorithm::Copy)
    }
}

/// What `written` (any letter case) means among `words`; None if nothing was written;
/// `code` and `unknown` make the error for a word not among them.
fn known_word<T: Copy>(
    written: Option<&str>,
    words: &[(&str, Option<T>)],
    code: ErrorCode,
    unknown: &str,
) -> Result<Option<T>> {
    let Some(written) = written else {
        return Ok(None);
    };
    words
        .iter()
        .find(|(word, _)| word.eq_ignore_ascii_case(written))
        .map(|(_, meaning)| *meaning)
        .ok_or_else(|| Error::new(code, format!("{unknown} '{written}'")))
}

/// Why InnoDB copies the rows for a change (`alter::row_copy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RowCopy {
    /// The key InnoDB clusters the rows on is dropped and none is added.
    ClusteringKeyDropped,
    /// A STORED generated column is added, redefined or made a plain column.
    StoredGenerated,
    /// A column's stored type changed.
    TypeChanged,
}

/// An ALTER's change, as `needed` judges it.
pub(crate) struct Change<'a> {
    pub old: &'a TableSchema,
    pub new: &'a TableSchema,
    /// The old position each new column reads (None: added).
    pub sources: &'a [Option<usize>],
    /// The operations, after `alter::split_column_keys` and `alter::resolve_drops`.
    pub operations: &'a [ast::AlterTableOperation],
    pub row_copy: Option<RowCopy>,
    pub checks_added: bool,
    /// Foreign keys added while foreign_key_checks is on (their rows are checked).
    pub checked_foreign_keys: bool,
    /// FORCE or ENGINE=: MariaDB rebuilds the table.
    pub rebuild: bool,
}

/// The least ALGORITHM InnoDB does a change with, and MariaDB's reason for refusing less
/// (None where MariaDB names none: its 1845).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Needed {
    pub algorithm: Algorithm,
    pub reason: Option<&'static str>,
}

/// What InnoDB needs for `change`, as MariaDB 10.11 answers (checked against it case by
/// case in tests/sql/alter_method.sql): a copy to change a stored type, to check added
/// CHECKs or foreign keys' rows, or to drop the clustering key; a rebuild in place for a new
/// primary key, a column's nullability, an added AUTO_INCREMENT column, FORCE or ENGINE=,
/// or columns added or dropped together with an index added; no copy to add or drop an
/// index or change the collation of an indexed column; and only the table's definition
/// for the rest (ADD, DROP, RENAME and reordering of columns, defaults, a VARCHAR growing
/// within its length bytes, names, comments, dropped foreign keys and CHECKs).
pub(crate) fn needed(change: &Change<'_>) -> Needed {
    use ast::AlterTableOperation as O;
    let need = |algorithm, reason| Needed { algorithm, reason };
    match change.row_copy {
        Some(RowCopy::TypeChanged) => {
            return need(Algorithm::Copy, Some("Cannot change column type"));
        }
        Some(RowCopy::ClusteringKeyDropped) => {
            return need(
                Algorithm::Copy,
                Some("Dropping a primary key is not allowed without also adding a new primary key"),
            );
        }
        Some(RowCopy::StoredGenerated) => return need(Algorithm::Copy, None),
        None => {}
    }
    if change.checks_added {
        return need(Algorithm::Copy, None);
    }
    if change.checked_foreign_keys {
        return need(
            Algorithm::Copy,
            Some("Adding foreign keys needs foreign_key_checks=OFF"),
        );
    }
    let (old, new) = (change.old, change.new);
    // Indexes by name, but for RENAME INDEX, which changes only the definition.
    let renames: Vec<(&str, &str)> = change
        .operations
        .iter()
        .filter_map(|op| match op {
            O::RenameConstraint { old_name, new_name } => {
                Some((old_name.value.as_str(), new_name.value.as_str()))
            }
            _ => None,
        })
        .collect();
    // An index of the new table that the old one did not have: added by an ADD INDEX, a
    // column's UNIQUE or a foreign key needing one.
    let adds_index = index_names(new).any(|name| {
        !old.has_index_named(name) && !renames.iter().any(|(_, to)| to.eq_ignore_ascii_case(name))
    });
    let drops_index = index_names(old).any(|name| {
        !new.has_index_named(name)
            && !renames
                .iter()
                .any(|(from, _)| from.eq_ignore_ascii_case(name))
    });
    let columns_added_or_dropped = change.sources.iter().any(Option::is_none)
        || change.sources.iter().flatten().count() < old.columns.len();
    let nullability_changed = new
        .columns
        .iter()
        .zip(change.sources)
        .any(|(c, s)| s.is_some_and(|k| old.columns[k].nullable != c.nullable));
    let auto_increment_added = new
        .columns
        .iter()
        .zip(change.sources)
        .any(|(c, s)| c.auto_increment && s.is_none_or(|k| !old.columns[k].auto_increment));
    // The primary key's columns, each by its old position (None: added).
    let new_key = new
        .primary_key
        .as_ref()
        .map(|key| key.iter().map(|&c| change.sources[c]).collect::<Vec<_>>());
    let old_key = old
        .primary_key
        .as_ref()
        .map(|key| key.iter().map(|&c| Some(c)).collect::<Vec<_>>());
    if change.rebuild
        || old_key != new_key
        || nullability_changed
        || auto_increment_added
        || (columns_added_or_dropped && adds_index)
    {
        return need(Algorithm::Inplace, None);
    }
    // An index over a column whose collation changed is built again.
    let index_collation_changed = new.columns.iter().zip(change.sources).any(|(c, s)| {
        s.is_some_and(|k| {
            let (was, is) = (&old.columns[k].data_type, &c.data_type);
            was != is
                && crate::alter::collation_only(was, is)
                && old.indexes.iter().any(|index| index.columns.contains(&k))
        })
    });
    if adds_index || index_collation_changed {
        return need(Algorithm::NoCopy, Some("ADD INDEX"));
    }
    if drops_index {
        return need(Algorithm::NoCopy, Some("DROP INDEX"));
    }
    need(Algorithm::Instant, None)
}

/// The names of a table's secondary and FULLTEXT indexes (one namespace).
fn index_names(schema: &TableSchema) -> impl Iterator<Item = &str> {
    let secondary = schema.indexes.iter().map(|i| i.name.as_str());
    secondary.chain(schema.fulltext_indexes.iter().map(|i| i.name.as_str()))
}

/// MariaDB's refusal of `requested` for a change that needs `needed`: the ALGORITHM asked
/// first, then LOCK=NONE, which a copy cannot keep.
pub(crate) fn check(requested: Requested, needed: Needed) -> Result<()> {
    if let Some(asked) = requested.algorithm {
        if asked < needed.algorithm {
            return Err(not_supported(
                asked.clause(),
                needed.reason,
                needed.algorithm.clause(),
            ));
        }
    }
    if requested.lock == Some(Lock::None) {
        if requested.forces_copy() {
            return Err(not_supported(
                "LOCK=NONE",
                Some("COPY algorithm requires a lock"),
                "LOCK=SHARED",
            ));
        }
        if needed.algorithm == Algorithm::Copy {
            return Err(not_supported("LOCK=NONE", needed.reason, "LOCK=SHARED"));
        }
    }
    Ok(())
}

/// RENAME TO in an ALTER: MariaDB takes it only under an exclusive lock.
pub(crate) fn check_rename(requested: Requested) -> Result<()> {
    match requested.lock {
        Some(Lock::None | Lock::Shared) => {
            Err(not_supported("LOCK=NONE/SHARED", None, "LOCK=EXCLUSIVE"))
        }
        _ => Ok(()),
    }
}

/// What manycore's run of an admitted ALTER did that its clauses promised it would not:
/// one Note per clause not kept. `rebuilt`: the rows were rebuilt; `built_index`: an index
/// was built over them. Both hold writes to the table meanwhile.
pub(crate) fn unkept(
    requested: Requested,
    table: &str,
    rebuilt: bool,
    built_index: bool,
) -> Vec<Error> {
    let work = match (rebuilt, built_index) {
        (true, _) => format!("rebuilt the rows of {table}"),
        (false, true) => format!("built an index over the rows of {table}"),
        (false, false) => return Vec::new(),
    };
    let lock = (requested.lock == Some(Lock::None)).then(|| {
        format!("LOCK=NONE was not kept: manycore {work}, and writes to the table waited")
    });
    let algorithm = (requested.algorithm == Some(Algorithm::Instant) && rebuilt)
        .then(|| format!("ALGORITHM=INSTANT was not kept: manycore {work}"));
    [algorithm, lock]
        .into_iter()
        .flatten()
        .map(|message| Error::new(ErrorCode::AlterOperationNotSupportedReason, message))
        .collect()
}

/// ER_ALTER_OPERATION_NOT_SUPPORTED_REASON (1846) with a reason, else
/// ER_ALTER_OPERATION_NOT_SUPPORTED (1845).
fn not_supported(asked: &str, reason: Option<&str>, instead: &str) -> Error {
    match reason {
        Some(reason) => Error::new(
            ErrorCode::AlterOperationNotSupportedReason,
            format!("{asked} is not supported. Reason: {reason}. Try {instead}"),
        ),
        None => Error::new(
            ErrorCode::AlterOperationNotSupported,
            format!("{asked} is not supported for this operation. Try {instead}"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(algorithm: Option<&str>, lock: Option<&str>) -> TableOptions {
        TableOptions {
            algorithm: algorithm.map(String::from),
            lock: lock.map(String::from),
            ..TableOptions::default()
        }
    }

    #[test]
    fn clauses_read_as_mariadb_reads_them() {
        let read = |a, l| Requested::read(&options(a, l));
        assert_eq!(
            read(Some("default"), Some("Default")),
            Ok(Requested::default())
        );
        let requested = read(Some("NoCopy"), Some("none")).expect("known words");
        assert_eq!(requested.algorithm, Some(Algorithm::NoCopy));
        assert_eq!(requested.lock, Some(Lock::None));
        let bad = read(Some("bogus"), None).expect_err("unknown algorithm");
        assert_eq!(
            (bad.code as u16, bad.message.as_str()),
            (1800, "Unknown ALGORITHM 'bogus'")
        );
        let bad = read(None, Some("bogus")).expect_err("unknown lock");
        assert_eq!(
            (bad.code as u16, bad.message.as_str()),
            (1801, "Unknown LOCK type 'bogus'")
        );
    }

    #[test]
    fn less_than_needed_is_refused_with_the_reason() {
        let index = Needed {
            algorithm: Algorithm::NoCopy,
            reason: Some("ADD INDEX"),
        };
        let asked = |algorithm, lock| Requested { algorithm, lock };
        let refused = check(asked(Some(Algorithm::Instant), None), index).expect_err("instant");
        assert_eq!(
            refused.message,
            "ALGORITHM=INSTANT is not supported. Reason: ADD INDEX. Try ALGORITHM=NOCOPY"
        );
        assert_eq!(
            check(asked(Some(Algorithm::NoCopy), Some(Lock::None)), index),
            Ok(())
        );
        assert_eq!(check(asked(Some(Algorithm::Inplace), None), index), Ok(()));
        let copy_lock = check(asked(Some(Algorithm::Copy), Some(Lock::None)), index);
        assert_eq!(
            copy_lock.expect_err("copy without a lock").message,
            "LOCK=NONE is not supported. Reason: COPY algorithm requires a lock. Try LOCK=SHARED"
        );
        let check_added = Needed {
            algorithm: Algorithm::Copy,
            reason: None,
        };
        let refused = check(asked(None, Some(Lock::None)), check_added).expect_err("lock");
        assert_eq!(refused.code as u16, 1845);
        assert_eq!(check(asked(None, Some(Lock::Shared)), check_added), Ok(()));
        assert!(check_rename(asked(None, Some(Lock::Shared))).is_err());
        assert_eq!(check_rename(asked(None, Some(Lock::Exclusive))), Ok(()));
    }

    #[test]
    fn a_note_only_where_a_promise_was_broken() {
        let none = Requested {
            algorithm: None,
            lock: Some(Lock::None),
        };
        assert!(unkept(none, "`d`.`t`", false, false).is_empty());
        let notes = unkept(none, "`d`.`t`", false, true);
        assert_eq!(notes.len(), 1, "index build held writes");
        assert!(
            notes[0].message.contains("built an index"),
            "{}",
            notes[0].message
        );
        let instant = Requested {
            algorithm: Some(Algorithm::Instant),
            lock: None,
        };
        assert_eq!(unkept(instant, "`d`.`t`", true, false).len(), 1);
        assert!(unkept(instant, "`d`.`t`", false, false).is_empty());
        let both = Requested {
            algorithm: Some(Algorithm::Instant),
            lock: Some(Lock::None),
        };
        assert_eq!(unkept(both, "`d`.`t`", true, false).len(), 2);
        assert!(unkept(Requested::default(), "`d`.`t`", true, true).is_empty());
    }
}
