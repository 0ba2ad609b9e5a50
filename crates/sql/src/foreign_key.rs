//! FOREIGN KEY constraints as InnoDB keeps them in MariaDB 10.11: their declaration
//! (CREATE TABLE, column-level REFERENCES, ALTER TABLE ADD/DROP FOREIGN KEY), the checks a
//! definition must pass, the clause SHOW CREATE TABLE and the 1451/1452 messages print, and
//! their enforcement on writes. Storage keeps the definitions (`ForeignKeySchema`, logged
//! and checkpointed with the table) and enforces nothing.
//!
//! Invariants:
//! (1) A child row whose key has no NULL is written only if a parent row has that key,
//!     checked after the child row is written, on the newest version of the parent rows
//!     (`Transaction::scan_latest`), not the statement's snapshot; a parent row another
//!     transaction holds makes the statement wait for it and run again.
//! (2) A parent row's key goes away (DELETE, REPLACE, an UPDATE of the key) only after it is
//!     written and its children, found the same way, were refused (RESTRICT, NO ACTION:
//!     1451), deleted or changed (CASCADE, SET NULL). As each side writes its own row
//!     before it looks at the other, two transactions racing on a parent and a child can
//!     not both miss each other (`Table::scan_latest`).
//! (3) Cascades nest less than `CASCADE_DEPTH_MAX` deep (InnoDB's FK_MAX_CASCADE_DEL):
//!     the 15th level of children fails the statement with 1296 (InnoDB's error 193).
//! (4) With foreign_key_checks off nothing is checked or cascaded, and a definition may
//!     name a parent that does not exist (yet), as mariadb-dump's output needs.
//! (5) A cascade recomputes the child row's generated columns before writing it; a
//!     duplicate in one of the child's unique keys is 1761, not 1062.
//! (6) Any error leaves the statement to be undone by the session, like any other
//!     statement error: no partial cascade survives.
//!
//! INSERT IGNORE skips a row without a parent with a warning, as MariaDB; UPDATE IGNORE
//! does not (the statement fails, where MariaDB skips such rows silently). Keys on
//! prefix-keyed columns are refused (errno 150).

use crate::error::{Error, ErrorCode, Result};
use crate::select::object_part;
use crate::show::quote_identifier as quoted;
use manycore_storage::{
    Catalog, ColumnSchema, ForeignKeySchema, IndexNo, KeyRange, ReferentialAction, StorageError,
    Table, TableSchema, Transaction,
};
use manycore_types::{DataType, Value};
use sqlparser::ast;
use std::ops::ControlFlow;
use std::sync::Arc;

/// InnoDB's FK_MAX_CASCADE_DEL: how deep cascades may nest.
const CASCADE_DEPTH_MAX: usize = 15;

/// A foreign key as declared, before it is named and checked.
pub struct Declared {
    /// CONSTRAINT name, else the FOREIGN KEY index name (MariaDB names the constraint so).
    pub name: Option<String>,
    pub columns: Vec<usize>,
    pub parent_db: String,
    pub parent_table: String,
    pub parent_columns: Vec<String>,
    pub on_delete: ReferentialAction,
    pub on_update: ReferentialAction,
}

/// SET DEFAULT is accepted and kept as RESTRICT, as InnoDB does (SHOW CREATE TABLE then
/// prints no clause).
fn action(a: Option<&ast::ReferentialAction>) -> ReferentialAction {
    match a {
        None | Some(ast::ReferentialAction::Restrict | ast::ReferentialAction::SetDefault) => {
            ReferentialAction::Restrict
        }
        Some(ast::ReferentialAction::Cascade) => ReferentialAction::Cascade,
        Some(ast::ReferentialAction::SetNull) => ReferentialAction::SetNull,
        Some(ast::ReferentialAction::NoAction) => ReferentialAction::NoAction,
    }
}

/// 1005 with InnoDB's errno 150, MariaDB's answer to most malformed foreign keys.
pub fn incorrectly_formed(db: &str, table: &str) -> Error {
    Error::new(
        ErrorCode::CantCreateTable,
        format!(
            "Can't create table `{db}`.`{table}` (errno: 150 \"Foreign key constraint is incorrectly formed\")"
        ),
    )
}

pub fn duplicate_name(db: &str, table: &str) -> Error {
    Error::new(
        ErrorCode::CantCreateTable,
        format!(
            "Can't create table `{db}`.`{table}` (errno: 121 \"Duplicate key on write or update\")"
        ),
    )
}

/// Reads a FOREIGN KEY clause of a table in `db`. `column` is the column a
/// column-level REFERENCES follows (its constraint lists no columns of its own).
pub fn declare(
    fk: &ast::ForeignKeyConstraint,
    column: Option<usize>,
    columns: &[ColumnSchema],
    db: &str,
) -> Result<Declared> {
    let mut positions = Vec::with_capacity(fk.columns.len().max(1));
    match column {
        Some(c) => positions.push(c),
        None => {
            for ident in &fk.columns {
                let position = columns
                    .iter()
                    .position(|c| c.name.eq_ignore_ascii_case(&ident.value))
                    .ok_or_else(|| {
                        Error::new(
                            ErrorCode::KeyColumnDoesNotExist,
                            format!("Key column '{}' doesn't exist in table", ident.value),
                        )
                    })?;
                positions.push(position);
            }
        }
    }
    let name = fk
        .name
        .as_ref()
        .or(fk.index_name.as_ref())
        .map(|n| n.value.clone());
    if fk.referred_columns.len() != positions.len() {
        return Err(Error::new(
            ErrorCode::WrongFkDef,
            format!(
                "Incorrect foreign key definition for '{}': Key reference and table reference don't match",
                name.as_deref().unwrap_or("foreign key without name")
            ),
        ));
    }
    let parts: Vec<String> = fk.foreign_table.0.iter().map(object_part).collect();
    let (parent_db, parent_table) = match parts.as_slice() {
        [t] => (db.to_string(), t.clone()),
        [d, t] => (d.clone(), t.clone()),
        _ => return Err(Error::not_supported("multi-part names")),
    };
    let declared = Declared {
        name,
        columns: positions,
        parent_db,
        parent_table,
        parent_columns: fk
            .referred_columns
            .iter()
            .map(|c| c.value.clone())
            .collect(),
        on_delete: action(fk.on_delete.as_ref()),
        on_update: action(fk.on_update.as_ref()),
    };
    check_generated_columns(&declared, columns)?;
    Ok(declared)
}

/// Whether a foreign key of `schema` may write `column` of its rows: ON UPDATE CASCADE,
/// ON UPDATE SET NULL or ON DELETE SET NULL over it. A STORED generated column may not
/// read such a column (1901), as MariaDB refuses it. SET DEFAULT, kept as RESTRICT, is
/// not seen here (MariaDB refuses it too).
pub fn written_by_actions(schema: &TableSchema, column: usize) -> bool {
    use ReferentialAction::{Cascade, SetNull};
    schema.foreign_keys.iter().any(|fk| {
        fk.columns.contains(&column)
            && (matches!(fk.on_update, Cascade | SetNull) || fk.on_delete == SetNull)
    })
}

/// 1905: the first action of a foreign key over a generated column that would write it,
/// in the order MariaDB checks them.
fn check_generated_columns(declared: &Declared, columns: &[ColumnSchema]) -> Result<()> {
    // A column-level REFERENCES is declared before its column joins `columns`, so it is
    // not checked here (a gap: MariaDB refuses it too).
    let generated = |&c: &usize| columns.get(c).is_some_and(|c| c.generated.is_some());
    if !declared.columns.iter().any(generated) {
        return Ok(());
    }
    use ReferentialAction::{Cascade, SetNull};
    let clause = if declared.on_delete == SetNull {
        "ON DELETE SET NULL"
    } else if declared.on_update == SetNull {
        "ON UPDATE SET NULL"
    } else if declared.on_update == Cascade {
        "ON UPDATE CASCADE"
    } else {
        return Ok(());
    };
    Err(Error::new(
        ErrorCode::WrongFkOptionForGeneratedColumn,
        format!("Cannot define foreign key with {clause} clause on a generated column"),
    ))
}

/// The generated constraint names `<table>_ibfk_<n>` continue after the highest `n` the
/// table already has, as InnoDB numbers them.
fn next_generated_number(table: &str, existing: &[ForeignKeySchema]) -> u64 {
    let prefix = format!("{table}_ibfk_");
    existing
        .iter()
        .filter_map(|fk| fk.name.strip_prefix(&prefix)?.parse::<u64>().ok())
        .max()
        .unwrap_or(0)
        + 1
}

/// Names the declared keys of `table` after its `existing` ones.
pub fn name_all(
    table: &str,
    existing: &[ForeignKeySchema],
    declared: Vec<Declared>,
) -> Vec<ForeignKeySchema> {
    let mut next = next_generated_number(table, existing);
    declared
        .into_iter()
        .map(|d| ForeignKeySchema {
            name: d.name.unwrap_or_else(|| {
                let name = format!("{table}_ibfk_{next}");
                next += 1;
                name
            }),
            columns: d.columns,
            parent_db: d.parent_db,
            parent_table: d.parent_table,
            parent_columns: d.parent_columns,
            on_delete: d.on_delete,
            on_update: d.on_update,
        })
        .collect()
}

/// Whether `index` keys whole `columns` as its first parts, in that order: what a foreign
/// key needs of an index on either side.
fn index_leads_with(schema: &TableSchema, index: IndexNo, columns: &[usize]) -> bool {
    let parts = schema.index_columns(index);
    let whole = match index {
        IndexNo::Primary => true,
        IndexNo::Secondary(i) => schema.indexes[i].prefix_lengths[..columns.len().min(parts.len())]
            .iter()
            .all(Option::is_none),
    };
    whole && parts.len() >= columns.len() && parts[..columns.len()] == *columns
}

/// An index of `schema` that leads with `columns`, preferring the primary key.
fn index_for(schema: &TableSchema, columns: &[usize]) -> Option<IndexNo> {
    let primary = schema.primary_key.is_some().then_some(IndexNo::Primary);
    primary
        .into_iter()
        .chain((0..schema.indexes.len()).map(IndexNo::Secondary))
        .find(|&i| index_leads_with(schema, i, columns))
}

/// Whether some index of `schema` (the primary key included) leads with `columns`.
pub fn has_index_for(schema: &TableSchema, columns: &[usize]) -> bool {
    index_for(schema, columns).is_some()
}

/// The name of the parent's index `fk` uses (information_schema's
/// UNIQUE_CONSTRAINT_NAME), if the parent exists.
pub fn parent_index_name(catalog: &Catalog, fk: &ForeignKeySchema) -> Option<String> {
    let parent = &catalog.table(&fk.parent_db, &fk.parent_table)?.schema;
    let index = index_for(parent, &parent_positions(parent, fk)?)?;
    Some(parent.index_name(index).to_string())
}

/// Positions in `schema` of the parent columns a foreign key names.
fn parent_positions(schema: &TableSchema, fk: &ForeignKeySchema) -> Option<Vec<usize>> {
    fk.parent_columns
        .iter()
        .map(|c| schema.column_index(c))
        .collect()
}

/// Whether a child column of type `child` may reference a parent column of type `parent`:
/// InnoDB wants the same type, except that string lengths may differ.
fn compatible(child: &DataType, parent: &DataType) -> bool {
    use DataType as D;
    match (child, parent) {
        (D::Char { .. } | D::VarChar { .. }, D::Char { .. } | D::VarChar { .. }) => true,
        (D::Binary { .. } | D::VarBinary { .. }, D::Binary { .. } | D::VarBinary { .. }) => true,
        _ => child == parent,
    }
}

/// Checks the foreign keys `added` to `child` (whose schema has them already, with the
/// index each needs) in `db`: the constraint names are free in the database, this table's
/// keys before included (errno 121; two added together with one name: errno 150),
/// SET NULL has nullable columns, and with `checks` the parent exists (`child` itself for a
/// self-reference) with an index leading with the referenced columns of compatible types
/// (errno 150). `reported` is the table the 1005 message names.
pub fn check_definitions(
    catalog: &Catalog,
    db: &str,
    child: &TableSchema,
    added: &[ForeignKeySchema],
    checks: bool,
    reported: &str,
) -> Result<()> {
    for fk in added {
        let named = |keys: &[ForeignKeySchema]| {
            let same = |other: &&ForeignKeySchema| other.name.eq_ignore_ascii_case(&fk.name);
            keys.iter().filter(same).count()
        };
        let added_twice = named(added) > 1;
        let taken_before = named(&child.foreign_keys) > named(added);
        let taken_elsewhere = catalog.databases.get(db).is_some_and(|d| {
            d.tables
                .values()
                .filter(|t| t.schema.name != child.name)
                .flat_map(|t| t.schema.foreign_keys.iter())
                .any(|other| other.name.eq_ignore_ascii_case(&fk.name))
        });
        if taken_elsewhere || taken_before {
            return Err(duplicate_name(db, reported));
        }
        if added_twice {
            // Two keys added together with one name: InnoDB's errno 150.
            return Err(incorrectly_formed(db, reported));
        }
        let sets_null = fk.on_delete == ReferentialAction::SetNull
            || fk.on_update == ReferentialAction::SetNull;
        if sets_null && fk.columns.iter().any(|&c| !child.columns[c].nullable) {
            return Err(incorrectly_formed(db, reported));
        }
        if !checks {
            continue;
        }
        let parent_table = catalog.table(&fk.parent_db, &fk.parent_table);
        let parent: &TableSchema = if fk.parent_db == db && fk.parent_table == child.name {
            child
        } else {
            match parent_table {
                Some(t) => &t.schema,
                None => return Err(incorrectly_formed(db, reported)),
            }
        };
        let formed = parent_positions(parent, fk).is_some_and(|positions| {
            index_for(parent, &positions).is_some()
                && positions.iter().zip(&fk.columns).all(|(&p, &c)| {
                    compatible(&child.columns[c].data_type, &parent.columns[p].data_type)
                })
        });
        if !formed {
            return Err(incorrectly_formed(db, reported));
        }
    }
    Ok(())
}

/// Whether `index` of `schema` is the only one a foreign key needs, on either side (1553
/// if it is dropped, 1025 for the primary key): the child's keys of `schema`, and
/// `children` that reference it.
pub fn index_needed(catalog: &Catalog, db: &str, schema: &TableSchema, index: IndexNo) -> bool {
    let needs = |columns: &[usize]| {
        index_leads_with(schema, index, columns)
            && !schema
                .primary_key
                .is_some()
                .then_some(IndexNo::Primary)
                .into_iter()
                .chain((0..schema.indexes.len()).map(IndexNo::Secondary))
                .filter(|&i| i != index)
                .any(|i| index_leads_with(schema, i, columns))
    };
    schema.foreign_keys.iter().any(|fk| needs(&fk.columns))
        || catalog
            .children_of(db, &schema.name)
            .filter_map(|(_, fk)| parent_positions(schema, fk))
            .any(|positions| needs(&positions))
}

/// A primary key a foreign key needs: InnoDB refuses the rebuilt table (errno 150) where
/// MariaDB renames it into place; MariaDB's message names its temporary table.
pub fn drop_primary_key_error(db: &str, table: &str) -> Error {
    Error::new(
        ErrorCode::ErrorOnRename,
        format!(
            "Error on rename of './{db}/#sql-alter' to './{db}/{table}' (errno: 150 \"Foreign key constraint is incorrectly formed\")"
        ),
    )
}

pub fn drop_index_error(name: &str) -> Error {
    Error::new(
        ErrorCode::DropIndexFk,
        format!("Cannot drop index '{name}': needed in a foreign key constraint"),
    )
}

/// `CONSTRAINT `n` FOREIGN KEY (`a`) REFERENCES `p` (`id`) ON DELETE CASCADE`, as SHOW
/// CREATE TABLE prints it and 1451/1452 quote it; the parent's database only if it is not
/// the child's (`db`).
pub fn clause(fk: &ForeignKeySchema, child: &TableSchema, db: &str) -> String {
    let columns: Vec<String> = fk
        .columns
        .iter()
        .map(|&c| quoted(&child.columns[c].name))
        .collect();
    let parent_columns: Vec<String> = fk.parent_columns.iter().map(|c| quoted(c)).collect();
    let parent = if fk.parent_db == db {
        quoted(&fk.parent_table)
    } else {
        format!("{}.{}", quoted(&fk.parent_db), quoted(&fk.parent_table))
    };
    let mut out = format!(
        "CONSTRAINT {} FOREIGN KEY ({}) REFERENCES {parent} ({})",
        quoted(&fk.name),
        columns.join(", "),
        parent_columns.join(", ")
    );
    for (event, action) in [("DELETE", fk.on_delete), ("UPDATE", fk.on_update)] {
        let text = match action {
            ReferentialAction::Restrict => continue,
            ReferentialAction::Cascade => "CASCADE",
            ReferentialAction::SetNull => "SET NULL",
            ReferentialAction::NoAction => "NO ACTION",
        };
        out.push_str(&format!(" ON {event} {text}"));
    }
    out
}

fn failure(code: ErrorCode, what: &str, child: &Table, fk: &ForeignKeySchema) -> Error {
    Error::new(
        code,
        format!(
            "Cannot {what}: a foreign key constraint fails ({}.{}, {})",
            quoted(child.db()),
            quoted(&child.schema.name),
            clause(fk, &child.schema, child.db())
        ),
    )
}

/// 1452 for a child row of `child` without a parent under `fk`.
pub fn no_parent(child: &Table, fk: &ForeignKeySchema) -> Error {
    failure(
        ErrorCode::NoReferencedRow2,
        "add or update a child row",
        child,
        fk,
    )
}

fn still_referenced(child: &Table, fk: &ForeignKeySchema) -> Error {
    failure(
        ErrorCode::RowIsReferenced2,
        "delete or update a parent row",
        child,
        fk,
    )
}

/// 1451 without details: DROP TABLE of a parent that other tables reference.
pub fn parent_dropped() -> Error {
    Error::new(
        ErrorCode::RowIsReferenced2,
        "Cannot delete or update a parent row: a foreign key constraint fails",
    )
}

/// Invariant (1): `row` of `table` has a parent row under `fk` (else 1452).
fn check_parent(
    catalog: &Catalog,
    txn: &Transaction,
    table: &Table,
    fk: &ForeignKeySchema,
    row: &[Value],
) -> Result<()> {
    let Some(parent) = catalog.table(&fk.parent_db, &fk.parent_table) else {
        return Err(no_parent(table, fk));
    };
    let Some(positions) = parent_positions(&parent.schema, fk) else {
        return Err(no_parent(table, fk));
    };
    let Some(index) = index_for(&parent.schema, &positions) else {
        return Err(no_parent(table, fk));
    };
    let key: Vec<Value> = fk.columns.iter().map(|&c| row[c].clone()).collect();
    let mut found = false;
    txn.scan_latest(parent, index, &KeyRange::prefix(key), |_, _| {
        found = true;
        ControlFlow::Break(())
    })
    .map_err(|e| crate::dml::write_error(e, parent, &[]))?;
    if found {
        Ok(())
    } else {
        Err(no_parent(table, fk))
    }
}

/// 1761: a cascade would give `child` a duplicate in its key `index`. The record is the
/// new key of the child row `changed`, its columns joined by '-', as MariaDB prints it.
fn duplicate_in_child(
    child: &Table,
    index: IndexNo,
    fk: &ForeignKeySchema,
    changed: &[Value],
) -> Error {
    let record: Vec<String> = fk
        .columns
        .iter()
        .map(|&c| manycore_types::format::to_text(&changed[c], &child.schema.columns[c].data_type))
        .collect();
    Error::new(
        ErrorCode::ForeignDuplicateKeyWithChildInfo,
        format!(
            "Foreign key constraint for table '{}', record '{}' would lead to a duplicate entry \
             in table '{}', key '{}'",
            fk.parent_table,
            record.join("-"),
            child.schema.name,
            child.schema.index_name(index)
        ),
    )
}

/// A parent row's key under one foreign key, as a write changes it.
struct KeyChange {
    old: Vec<Value>,
    /// None: the parent row is deleted.
    new: Option<Vec<Value>>,
}

/// The foreign-key work of one write statement on one table: present only if
/// foreign_key_checks is on and the table has foreign keys or is some table's parent.
pub struct Enforcer<'s> {
    catalog: Arc<Catalog>,
    /// Evaluates the generated columns of the child rows cascades change.
    session: &'s dyn crate::expr::SessionContext,
}

impl<'s> Enforcer<'s> {
    pub fn for_write(
        txn: &Transaction,
        table: &Table,
        session: &'s dyn crate::expr::SessionContext,
    ) -> Option<Enforcer<'s>> {
        if !session.foreign_key_checks() {
            return None;
        }
        // A guard until the table is known to be involved: taking the `Arc` writes its
        // shared count, which writes to tables without foreign keys must not pay.
        let catalog = txn.storage().catalog();
        let involved = !table.schema.foreign_keys.is_empty()
            || catalog
                .children_of(table.db(), &table.schema.name)
                .next()
                .is_some();
        involved.then(|| Enforcer {
            catalog: arc_swap::Guard::into_inner(catalog),
            session,
        })
    }

    /// Checks and acts after `table`'s row changed from `old` to `new` (None: absent), in
    /// the transaction that wrote it (invariants (1), (2)).
    pub fn row_written(
        &self,
        txn: &mut Transaction,
        table: &Table,
        old: Option<&[Value]>,
        new: Option<&[Value]>,
    ) -> Result<()> {
        self.written(txn, table, old, new, 0)
    }

    fn written(
        &self,
        txn: &mut Transaction,
        table: &Table,
        old: Option<&[Value]>,
        new: Option<&[Value]>,
        depth: usize,
    ) -> Result<()> {
        if let Some(new) = new {
            for fk in &table.schema.foreign_keys {
                if fk.columns.iter().any(|&c| new[c].is_null()) {
                    continue;
                }
                if old.is_some_and(|old| fk.columns.iter().all(|&c| old[c] == new[c])) {
                    continue;
                }
                check_parent(&self.catalog, txn, table, fk, new)?;
            }
        }
        let Some(old) = old else {
            return Ok(());
        };
        let children: Vec<(Arc<Table>, ForeignKeySchema)> = self
            .catalog
            .children_of(table.db(), &table.schema.name)
            .map(|(t, fk)| (t.clone(), fk.clone()))
            .collect();
        for (child, fk) in children {
            let Some(positions) = parent_positions(&table.schema, &fk) else {
                continue;
            };
            if positions.iter().any(|&p| old[p].is_null()) {
                continue;
            }
            if new.is_some_and(|new| positions.iter().all(|&p| old[p] == new[p])) {
                continue;
            }
            let new_key: Option<Vec<Value>> =
                new.map(|new| positions.iter().map(|&p| new[p].clone()).collect());
            let old_key: Vec<Value> = positions.iter().map(|&p| old[p].clone()).collect();
            // A row that references itself still counts as its own child, as InnoDB finds
            // it through the child index before the write is final.
            let own_child = child.schema.name == table.schema.name
                && child.db() == table.db()
                && fk.columns.iter().zip(&old_key).all(|(&c, k)| old[c] == *k);
            let key = KeyChange {
                old: old_key,
                new: new_key,
            };
            self.act_on_children(txn, &child, &fk, key, own_child, depth)?;
        }
        Ok(())
    }

    /// ALTER TABLE ADD FOREIGN KEY: every row of `table` must have a parent under `fk`
    /// (1452). Returns the number of rows, which MariaDB's copying ALTER reports.
    pub fn check_rows(
        catalog: Arc<Catalog>,
        txn: &Transaction,
        table: &Table,
        fk: &ForeignKeySchema,
    ) -> Result<u64> {
        let mut rows = Vec::new();
        txn.scan_latest(table, IndexNo::Primary, &KeyRange::all(), |_, row| {
            rows.push(row.to_vec());
            ControlFlow::Continue(())
        })
        .map_err(|e| crate::dml::write_error(e, table, &[]))?;
        for row in &rows {
            if fk.columns.iter().all(|&c| !row[c].is_null()) {
                check_parent(&catalog, txn, table, fk, row)?;
            }
        }
        Ok(rows.len() as u64)
    }

    /// The children of a parent row whose key under `fk` of `child` changes as `key` says.
    fn act_on_children(
        &self,
        txn: &mut Transaction,
        child: &Arc<Table>,
        fk: &ForeignKeySchema,
        key: KeyChange,
        own_child: bool,
        depth: usize,
    ) -> Result<()> {
        // The index a foreign key needs is created with it and cannot be dropped (1553);
        // were it ever missing, a scan comparing values stays correct.
        let index = index_for(&child.schema, &fk.columns);
        let (scanned, range) = match index {
            Some(index) => (index, KeyRange::prefix(key.old.clone())),
            None => (IndexNo::Primary, KeyRange::all()),
        };
        let mut rows = Vec::new();
        txn.scan_latest(child, scanned, &range, |slot, row| {
            // The index matched by collation, as InnoDB compares keys.
            let matches =
                index.is_some() || fk.columns.iter().zip(&key.old).all(|(&c, k)| row[c] == *k);
            if matches {
                rows.push((slot.clone(), row.to_vec()));
            }
            ControlFlow::Continue(())
        })
        .map_err(|e| crate::dml::write_error(e, child, &[]))?;
        let action = if key.new.is_some() {
            fk.on_update
        } else {
            fk.on_delete
        };
        let restrict = matches!(
            action,
            ReferentialAction::Restrict | ReferentialAction::NoAction
        );
        if restrict && (own_child || !rows.is_empty()) {
            return Err(still_referenced(child, fk));
        }
        if rows.is_empty() {
            return Ok(());
        }
        if depth + 1 >= CASCADE_DEPTH_MAX {
            // InnoDB's DB_FOREIGN_EXCEED_MAX_CASCADE (193), which MariaDB reports as 1296.
            return Err(Error::new(
                ErrorCode::GetErrmsg,
                format!(
                    "Got error 193 '{}.{}, {}' from InnoDB",
                    quoted(child.db()),
                    quoted(&child.schema.name),
                    clause(fk, &child.schema, child.db())
                ),
            ));
        }
        // Generated columns read the changed key (1905 keeps it from being one of them).
        let generated = crate::generated::bind(child)?;
        let eval = crate::expr::EvalContext::new(&[], self.session);
        for (slot, row) in rows {
            let mut changed = match (&key.new, action) {
                (None, ReferentialAction::Cascade) => None,
                (Some(key), ReferentialAction::Cascade) => {
                    let mut changed = row.clone();
                    for (&c, v) in fk.columns.iter().zip(key) {
                        changed[c] = v.clone();
                    }
                    Some(changed)
                }
                _ => {
                    let mut changed = row.clone();
                    for &c in &fk.columns {
                        changed[c] = Value::Null;
                    }
                    Some(changed)
                }
            };
            if let Some(changed) = &mut changed {
                let strict = self.session.strict();
                crate::generated::fill(&generated, &child.schema, changed, 1, strict, &eval)?;
            }
            match &changed {
                None => txn.delete(child, &slot),
                Some(changed) => txn.update(child, &slot, changed.clone().into_boxed_slice()),
            }
            .map_err(|e| match (e, &changed) {
                (StorageError::DuplicateKey { index, .. }, Some(changed)) => {
                    duplicate_in_child(child, index, fk, changed)
                }
                (e, _) => crate::dml::write_error(e, child, changed.as_deref().unwrap_or(&[])),
            })?;
            self.written(
                txn,
                child,
                Some(row.as_slice()),
                changed.as_deref(),
                depth + 1,
            )?;
        }
        Ok(())
    }
}
