//! ALTER TABLE's operations on a copy of the table's schema. The column operations
//! (MODIFY, ADD, DROP, CHANGE and RENAME COLUMN, ALTER COLUMN SET/DROP DEFAULT) are applied
//! first, in order (`Alteration`), then the key, foreign key and CHECK operations
//! (`edit_keys`: drops, RENAME INDEX, adds, ADD PRIMARY KEY's among them), as MariaDB
//! applies them, a DROP CONSTRAINT or DROP INDEX `PRIMARY` read first as the drop of what
//! it names (`resolve_drops`), and a column definition's PRIMARY KEY or UNIQUE as the ADD
//! PRIMARY KEY or ADD UNIQUE it declares (`split_column_keys`); the session installs the
//! result with one `Storage::alter_table`: the table rebuilt once with every row converted,
//! as MariaDB's copying ALTER does, unless no stored value or primary key changed
//! (`keeps_rows`: renames, defaults, keys, CHECKs), when the schema is replaced and added
//! indexes built.
//!
//! Invariants:
//! (1) During the edits a column is known by an id: its old position, or a number past the
//!     old columns for an added one. Keys hold ids until `finish` turns them into the new
//!     positions, so moves and drops renumber every key the same way.
//! (2) A new column's value comes from the old column of the same id, converted as an
//!     INSERT stores it when its type or nullability changed; an added column gets its
//!     default (AUTO_INCREMENT: the row's number, in the old table's key order, which
//!     for a table without a primary key is the order its rows were inserted in).
//! (3) Nothing is stored until every operation applied and every check that can fail
//!     passed, so a failing ALTER leaves the table as it was, as in MariaDB: rows are
//!     checked against added CHECKs and foreign keys, and unique indexes built, before the
//!     one catalog change (and its one log record) that installs the new table.

use crate::alter_method::RowCopy;
use crate::error::{Error, ErrorCode, Result};
use crate::expr::SessionContext;
use manycore_storage::{
    Catalog, ForeignKeySchema, GeneratedColumn, IndexNo, KeyRange, ReadView, StorageError, Table,
    TableSchema,
};
use manycore_types::{Collation, ColumnDefault, DataType, Row, Value};
use sqlparser::ast;

/// Whether `op` is one of this module's.
pub(crate) fn is_column_operation(op: &ast::AlterTableOperation) -> bool {
    use ast::AlterTableOperation as O;
    matches!(
        op,
        O::ModifyColumn { .. }
            | O::ChangeColumn { .. }
            | O::AddColumn { .. }
            | O::DropColumn { .. }
            | O::RenameColumn { .. }
            | O::AlterColumn {
                op: ast::AlterColumnOperation::SetDefault { .. }
                    | ast::AlterColumnOperation::DropDefault,
                ..
            }
    )
}

/// Whether `op` is one `edit_keys` applies.
pub(crate) fn is_key_operation(op: &ast::AlterTableOperation) -> bool {
    use ast::AlterTableOperation as O;
    use ast::TableConstraint as C;
    matches!(
        op,
        O::AddConstraint {
            constraint: C::PrimaryKey(_)
                | C::Index(_)
                | C::Unique(_)
                | C::ForeignKey(_)
                | C::Check(_)
                | C::FulltextOrSpatial(ast::FullTextOrSpatialConstraint { fulltext: true, .. }),
            ..
        } | O::DropIndex { .. }
            | O::DropPrimaryKey { .. }
            | O::RenameConstraint { .. }
            | O::DropForeignKey { .. }
            | O::DropConstraint { .. }
            | O::AutoIncrement { .. }
    )
}

/// A schema being edited (invariant (1)).
pub(crate) struct Alteration {
    db: String,
    old: TableSchema,
    schema: TableSchema,
    /// Id of each column of `schema`.
    ids: Vec<usize>,
    next_id: usize,
    /// Renames of columns other tables' foreign keys may name: (old name, new name).
    pub(crate) renamed: Vec<(String, String)>,
    /// A MODIFY or CHANGE made a column JSON: its automatic CHECK must hold for the
    /// rows, as for an added CHECK (an added JSON column's is not checked against
    /// them: MariaDB adds a column in place, checking nothing).
    pub(crate) checks_added: bool,
}

impl Alteration {
    pub(crate) fn new(db: &str, old: &TableSchema) -> Alteration {
        Alteration {
            db: db.to_string(),
            old: old.clone(),
            schema: old.clone(),
            ids: (0..old.columns.len()).collect(),
            next_id: old.columns.len(),
            renamed: Vec::new(),
            checks_added: false,
        }
    }

    fn position(&self, name: &str) -> Result<usize> {
        self.schema
            .column_index(name)
            .ok_or_else(|| Error::bad_field(name, &self.schema.name))
    }

    fn check_new_name(&self, name: &str, except: Option<usize>) -> Result<()> {
        match self.schema.column_index(name) {
            Some(i) if Some(i) != except => Err(Error::duplicate_column(name)),
            _ => Ok(()),
        }
    }

    /// Applies one operation (`is_column_operation` must hold).
    pub(crate) fn apply(
        &mut self,
        op: &ast::AlterTableOperation,
        catalog: &Catalog,
        session: &dyn SessionContext,
    ) -> Result<()> {
        use ast::AlterTableOperation as O;
        match op {
            O::ModifyColumn {
                col_name,
                data_type,
                options,
                column_position,
            } => {
                let at = self.position(&col_name.value)?;
                let def = column_def(col_name, data_type, options)?;
                self.replace(at, def, column_position.as_ref(), catalog, session)
            }
            O::ChangeColumn {
                old_name,
                new_name,
                data_type,
                options,
                column_position,
            } => {
                let at = self.position(&old_name.value)?;
                let def = column_def(new_name, data_type, options)?;
                self.replace(at, def, column_position.as_ref(), catalog, session)
            }
            O::RenameColumn {
                old_column_name,
                new_column_name,
            } => {
                let at = self.position(&old_column_name.value)?;
                self.rename(at, &new_column_name.value)
            }
            O::AddColumn {
                column_def,
                column_position,
                ..
            } => {
                self.check_new_name(&column_def.name.value, None)?;
                reject_constraint_options(column_def.options.iter().map(|o| &o.option))?;
                // Without COLLATE, the table's default (as the statement's options left it).
                let default_collation = self.schema.options.default_collation;
                let column = crate::ddl::column_schema(column_def, default_collation, session)?;
                let at = self.place(self.schema.columns.len(), column_position.as_ref())?;
                self.schema.columns.insert(at, column);
                self.add_json_check(column_def);
                self.ids.insert(at, self.next_id);
                self.next_id += 1;
                Ok(())
            }
            O::DropColumn { column_names, .. } => {
                for name in column_names {
                    let at = self.schema.column_index(&name.value);
                    let at = at.ok_or_else(|| Error::cant_drop("COLUMN", &name.value))?;
                    self.drop(at, catalog)?;
                }
                Ok(())
            }
            O::AlterColumn { column_name, op } => {
                let at = self.position(&column_name.value)?;
                let column = &self.schema.columns[at];
                let default = match op {
                    ast::AlterColumnOperation::SetDefault { value } => {
                        crate::ddl::column_default(column, value, session)?
                    }
                    _ => ColumnDefault::None,
                };
                self.schema.columns[at].default = default;
                Ok(())
            }
            other => unreachable!("not a column operation: {other}"),
        }
    }

    /// The position FIRST / AFTER x asks for, `default` without one; `at` is not yet in
    /// the table.
    fn place(&self, default: usize, position: Option<&ast::MySQLColumnPosition>) -> Result<usize> {
        match position {
            None => Ok(default),
            Some(ast::MySQLColumnPosition::First) => Ok(0),
            Some(ast::MySQLColumnPosition::After(x)) => Ok(self.position(&x.value)? + 1),
        }
    }

    /// MODIFY / CHANGE: column `at` becomes `def`, maybe moved. A parent column another
    /// table's foreign key names keeps its type (1833, as MariaDB).
    fn replace(
        &mut self,
        at: usize,
        def: ast::ColumnDef,
        position: Option<&ast::MySQLColumnPosition>,
        catalog: &Catalog,
        session: &dyn SessionContext,
    ) -> Result<()> {
        // As ADD COLUMN: without COLLATE, the table's default.
        let default_collation = self.schema.options.default_collation;
        let mut column = crate::ddl::column_schema(&def, default_collation, session)?;
        let was = &self.schema.columns[at];
        crate::generated::check_redefinition(was, &column)?;
        if self.ids[at] < self.old.columns.len() && was.data_type != column.data_type {
            let children = catalog.children_of(&self.db, &self.old.name);
            for (child, fk) in children {
                if fk
                    .parent_columns
                    .iter()
                    .any(|c| c.eq_ignore_ascii_case(&was.name))
                {
                    return Err(Error::new(
                        ErrorCode::FkColumnCannotChangeChild,
                        format!(
                            "Cannot change column '{}': used in a foreign key constraint '{}' of table '{}.{}'",
                            was.name,
                            fk.name,
                            child.db(),
                            child.schema.name
                        ),
                    ));
                }
            }
        }
        let name = column.name.clone();
        column.name = self.schema.columns[at].name.clone();
        let in_primary_key = self
            .schema
            .primary_key
            .as_ref()
            .is_some_and(|pk| pk.contains(&self.ids[at]));
        if in_primary_key {
            column.nullable = false; // As CREATE TABLE makes a key column.
        }
        // The column's own CHECKs belong to its old definition and go with it, as in
        // MariaDB; a JSON one gets its automatic CHECK back, which the rows must pass
        // unless they already had to.
        let old_name = &self.schema.columns[at].name;
        let json_check = crate::check::json_valid_check(&def.name.value);
        let had_json_check = self.schema.checks.contains(&json_check);
        self.schema
            .checks
            .retain(|k| !(k.column_level && k.name.eq_ignore_ascii_case(old_name)));
        self.schema.columns[at] = column;
        self.rename(at, &name)?;
        self.checks_added |= self.add_json_check(&def) && !had_json_check;
        if position.is_some() {
            let column = self.schema.columns.remove(at);
            let id = self.ids.remove(at);
            let to = self.place(at, position)?;
            self.schema.columns.insert(to, column);
            self.ids.insert(to, id);
        }
        Ok(())
    }

    /// Gives a column defined JSON the CHECK (json_valid(col)) CREATE TABLE gives it
    /// (`check::json_valid_check`); whether it did.
    fn add_json_check(&mut self, def: &ast::ColumnDef) -> bool {
        if def.data_type != ast::DataType::JSON {
            return false;
        }
        let check = crate::check::json_valid_check(&def.name.value);
        self.schema.checks.push(check);
        true
    }

    /// Renames column `at` to `new`, in CHECK constraints too (as MariaDB does: their
    /// expressions reparsed, `check::rename_column`); other tables' foreign keys naming it
    /// follow after the rebuild (`renamed`).
    fn rename(&mut self, at: usize, new: &str) -> Result<()> {
        let old = self.schema.columns[at].name.clone();
        if old == new {
            return Ok(());
        }
        self.check_new_name(new, Some(at))?;
        for check in &mut self.schema.checks {
            if let Some(text) = crate::check::rename_column(&check.expression, &old, new)? {
                check.expression = text;
            }
            if check.column_level && check.name.eq_ignore_ascii_case(&old) {
                check.name = new.to_string();
            }
        }
        self.schema.columns[at].name = new.to_string();
        if self.ids[at] < self.old.columns.len() {
            self.renamed.push((old, new.to_string()));
        }
        Ok(())
    }

    /// DROP COLUMN: the column leaves every key; a key left with no column goes.
    fn drop(&mut self, at: usize, catalog: &Catalog) -> Result<()> {
        if self.schema.columns.len() == 1 {
            return Err(Error::new(
                ErrorCode::CantRemoveAllFields,
                "You can't delete all columns with ALTER TABLE; use DROP TABLE instead",
            ));
        }
        let id = self.ids[at];
        let name = self.schema.columns[at].name.clone();
        if let Some(fk) = self
            .schema
            .foreign_keys
            .iter()
            .find(|fk| fk.columns.contains(&id))
        {
            return Err(Error::new(
                ErrorCode::DropIndexFk,
                format!(
                    "Cannot drop index '{}': needed in a foreign key constraint",
                    fk.name
                ),
            ));
        }
        if id < self.old.columns.len() {
            for (child, fk) in catalog.children_of(&self.db, &self.old.name) {
                if fk
                    .parent_columns
                    .iter()
                    .any(|c| c.eq_ignore_ascii_case(&name))
                {
                    return Err(Error::new(
                        ErrorCode::FkColumnCannotDropChild,
                        format!(
                            "Cannot drop column '{name}': needed in a foreign key constraint '{}' of table `{}`.`{}`",
                            fk.name,
                            child.db(),
                            child.schema.name
                        ),
                    ));
                }
            }
        }
        // A column's own CHECK goes with it; a table CHECK naming it is an error.
        self.schema
            .checks
            .retain(|k| !(k.column_level && k.name.eq_ignore_ascii_case(&name)));
        for k in &self.schema.checks {
            if crate::check::names_column(&k.expression, &name)? {
                return Err(Error::bad_field(&name, "CHECK"));
            }
        }
        self.schema.columns.remove(at);
        self.ids.remove(at);
        for index in &mut self.schema.indexes {
            while let Some(i) = index.columns.iter().position(|&c| c == id) {
                index.columns.remove(i);
                index.prefix_lengths.remove(i);
            }
        }
        self.schema.indexes.retain(|i| !i.columns.is_empty());
        for index in &mut self.schema.fulltext_indexes {
            index.columns.retain(|&c| c != id);
        }
        self.schema
            .fulltext_indexes
            .retain(|i| !i.columns.is_empty());
        if let Some(pk) = &mut self.schema.primary_key {
            pk.retain(|&c| c != id);
            if pk.is_empty() {
                self.schema.primary_key = None;
            }
        }
        Ok(())
    }

    /// The edited schema with keys at the new positions, and the old position each new
    /// column reads (None: added).
    pub(crate) fn finish(mut self) -> Result<(TableSchema, Vec<Option<usize>>)> {
        let position_of = |id: usize| {
            self.ids
                .iter()
                .position(|&i| i == id)
                .expect("keys name only present columns")
        };
        for index in &mut self.schema.indexes {
            index.columns = index.columns.iter().map(|&c| position_of(c)).collect();
        }
        for index in &mut self.schema.fulltext_indexes {
            index.columns = index.columns.iter().map(|&c| position_of(c)).collect();
            for &c in &index.columns {
                crate::ddl::check_fulltext_column(&self.schema.columns[c])?;
            }
        }
        if let Some(pk) = &mut self.schema.primary_key {
            *pk = pk.iter().map(|&c| position_of(c)).collect();
        }
        for fk in &mut self.schema.foreign_keys {
            fk.columns = fk.columns.iter().map(|&c| position_of(c)).collect();
        }
        crate::check::validate(&self.schema)?;
        let old_count = self.old.columns.len();
        let sources = self
            .ids
            .iter()
            .map(|&id| (id < old_count).then_some(id))
            .collect();
        Ok((self.schema, sources))
    }
}

/// The row `old` becomes under `schema` (invariant (2)); `number` is the row's, from 1.
pub(crate) fn convert_row(
    old_schema: &TableSchema,
    schema: &TableSchema,
    sources: &[Option<usize>],
    old: &[Value],
    number: u64,
    session: &dyn SessionContext,
) -> Result<Row> {
    let strict = session.strict();
    let mut row = Vec::with_capacity(schema.columns.len());
    for (c, source) in schema.columns.iter().zip(sources) {
        let value = match *source {
            Some(k) => {
                let was = &old_schema.columns[k];
                let value = old[k].clone();
                let truncated = || {
                    Error::new(
                        ErrorCode::WarnDataTruncated,
                        format!("Data truncated for column '{}' at row {number}", c.name),
                    )
                };
                if value.is_null() && !c.nullable {
                    // MariaDB's wording for a NULL in a column made NOT NULL.
                    let e = truncated();
                    if strict {
                        return Err(e);
                    }
                    session.warn(e.code, e.message);
                    crate::dml::implicit_default(&c.data_type)
                } else if was.data_type == c.data_type {
                    value
                } else {
                    let name = || c.name.clone();
                    let stored = crate::expr::store_value(
                        value,
                        &c.data_type,
                        &name,
                        number,
                        strict,
                        session,
                    );
                    // INSERT's 1406 is ALTER's 1265 in MariaDB (the copy truncates). A
                    // string that is no number stays INSERT's 1366 here, where MariaDB's
                    // copy says 1292 "Truncated incorrect INTEGER value" (known mismatch).
                    let value = stored.map_err(|e| match e.code {
                        ErrorCode::DataTooLong => truncated(),
                        _ => e,
                    })?;
                    crate::expr::stored_cell(&c.data_type, value, session)
                }
            }
            None => match &c.default {
                ColumnDefault::Value(v) => v.clone(),
                ColumnDefault::CurrentTimestamp => crate::dml::current_timestamp(c, session),
                // Stored as INSERT stores a generated value of the column's type.
                ColumnDefault::None if c.auto_increment && c.data_type.is_unsigned() => {
                    Value::UInt(number)
                }
                ColumnDefault::None if c.auto_increment => Value::Int(number as i64),
                ColumnDefault::None if c.nullable => Value::Null,
                ColumnDefault::None => crate::dml::implicit_default(&c.data_type),
            },
        };
        row.push(value);
    }
    Ok(row.into_boxed_slice())
}

/// Applies an ALTER TABLE's table options to `schema` before its other operations, so
/// the columns they add or redefine without COLLATE take the new default collation, as in
/// MariaDB. ENGINE is checked by the caller (an unknown one is refused before the table is
/// looked up). A character set or collation other than utf8mb4's is a change not made
/// (1235): every character column is utf8mb4 here; other utf8mb4 collations load as
/// `ddl::declared_collation` reads them.
pub(crate) fn apply_table_options(
    schema: &mut TableSchema,
    options: &crate::parse::TableOptions,
) -> Result<()> {
    let refused =
        |option: &str, asked: &str| Error::not_supported(&format!("ALTER TABLE {option}={asked}"));
    if let Some(charset) = options.charset.as_deref() {
        if !charset.eq_ignore_ascii_case("utf8mb4") {
            return Err(refused("CHARSET", charset));
        }
    }
    let collation = match options.collation.as_deref() {
        Some(name) => {
            let collation = crate::ddl::declared_collation(name)?;
            if !name.to_ascii_lowercase().starts_with("utf8mb4_") {
                return Err(refused("COLLATE", name));
            }
            Some(collation)
        }
        // A character set alone means its default collation.
        None => options
            .charset
            .is_some()
            .then_some(Collation::Utf8mb4GeneralCi),
    };
    if let Some(collation) = collation {
        schema.options.default_collation = collation;
    }
    if let Some(format) = options.row_format.as_deref() {
        schema.options.row_format = crate::ddl::row_format(format)?;
    }
    if let Some(comment) = &options.comment {
        schema.comment = comment.clone();
    }
    Ok(())
}

/// The largest positive value `column` holds in the rows `view` sees (0 if none): ALTER
/// TABLE ... AUTO_INCREMENT sets the counter no lower than one past it, as InnoDB does.
pub(crate) fn largest_auto_increment(table: &Table, column: usize, view: &ReadView) -> u64 {
    let mut largest = 0;
    table.scan(view, IndexNo::Primary, &KeyRange::all(), |_, row| {
        largest = largest.max(match row[column] {
            Value::Int(v) => u64::try_from(v).unwrap_or(0),
            Value::UInt(v) => v,
            // A FLOAT or DOUBLE AUTO_INCREMENT column counts by its integer part.
            Value::Double(v) if v > 0.0 => v as u64,
            _ => 0,
        });
        std::ops::ControlFlow::Continue(())
    });
    largest
}

/// CONVERT TO CHARACTER SET: every character column takes the table's default collation
/// (after the statement's other operations, so the columns they add too).
pub(crate) fn convert_character_columns(schema: &mut TableSchema) {
    let collation = schema.options.default_collation;
    for column in &mut schema.columns {
        column.data_type = column.data_type.clone().with_collation(collation);
    }
}

/// Whether MariaDB copies the rows for this change, and so reports them, and why: the
/// table loses the key InnoDB clusters its rows on (`has_clustering_key`) and gains none,
/// which InnoDB cannot do in place (it builds a new one in place), a STORED generated
/// column changes, or some column's type changed, other than a VARCHAR or VARBINARY
/// growing where its values' length bytes stay as they are (`keeps_length_bytes`) or a new
/// collation, which InnoDB does in place.
pub(crate) fn row_copy(
    old: &TableSchema,
    schema: &TableSchema,
    sources: &[Option<usize>],
) -> Option<RowCopy> {
    if has_clustering_key(old) && !has_clustering_key(schema) {
        return Some(RowCopy::ClusteringKeyDropped);
    }
    let stored_generated_changed = schema.columns.iter().zip(sources).any(|(c, source)| {
        // A STORED generated column added, redefined or made a plain column copies every
        // row; a VIRTUAL one, as in InnoDB, is not stored.
        let generated_before = source.and_then(|k| old.columns[k].generated.as_ref());
        let stored = |g: Option<&GeneratedColumn>| g.is_some_and(|g| g.stored);
        (stored(c.generated.as_ref()) || stored(generated_before))
            && c.generated.as_ref() != generated_before
    });
    if stored_generated_changed {
        return Some(RowCopy::StoredGenerated);
    }
    let in_primary_key = |c: usize| {
        schema
            .primary_key
            .as_ref()
            .is_some_and(|key| key.contains(&c))
    };
    let columns = schema.columns.iter().zip(sources).enumerate();
    let type_changed = columns.into_iter().any(|(i, (c, source))| {
        let Some(k) = *source else { return false };
        match (&old.columns[k].data_type, &c.data_type) {
            // Equal but maybe for the collation, which InnoDB changes in place (manycore
            // rebuilds: `keeps_rows`) but in the primary key, which orders the rows.
            (a, b) if collation_only(a, b) => a != b && in_primary_key(i),
            (DataType::VarChar { length: a, .. }, DataType::VarChar { length: b, .. }) => {
                !keeps_length_bytes(u64::from(*a) * 4, u64::from(*b) * 4)
            }
            (DataType::VarBinary { length: a }, DataType::VarBinary { length: b }) => {
                !keeps_length_bytes(u64::from(*a), u64::from(*b))
            }
            _ => true,
        }
    });
    type_changed.then_some(RowCopy::TypeChanged)
}

/// Whether two types differ at most in their collation.
pub(crate) fn collation_only(a: &DataType, b: &DataType) -> bool {
    a.clone().with_collation(Collation::Utf8mb4GeneralCi)
        == b.clone().with_collation(Collation::Utf8mb4GeneralCi)
}

/// Whether a variable-length column's largest size growing from `old` to `new` bytes
/// leaves every stored value's length as InnoDB wrote it (checked against MariaDB 10.11):
/// one length byte while the largest size is at most 255 bytes, and a value under 128
/// bytes takes one byte whatever the largest size; so it does, unless values of 128 to 255
/// bytes, written with one byte, would need two.
fn keeps_length_bytes(old: u64, new: u64) -> bool {
    new >= old && (old <= 127 || new <= 255 || old > 255)
}

/// Whether InnoDB would cluster the table's rows on a key of its own: the primary key, or
/// else a unique key over whole NOT NULL columns, which MariaDB takes for the primary key.
fn has_clustering_key(schema: &TableSchema) -> bool {
    schema.primary_key.is_some()
        || schema.indexes.iter().any(|i| {
            i.unique
                && i.prefix_lengths.iter().all(Option::is_none)
                && i.columns.iter().all(|&c| !schema.columns[c].nullable)
        })
}

/// Whether the table keeps its rows as they are: every column reads its own old position
/// with the same stored type, and the primary key is unchanged, so only names, defaults,
/// comments, CHECKs, foreign keys and secondary indexes changed, and the schema is replaced
/// without a rebuild, added indexes built over the rows (`Storage::alter_table` asserts
/// the same).
pub(crate) fn keeps_rows(
    old: &TableSchema,
    schema: &TableSchema,
    sources: &[Option<usize>],
) -> bool {
    sources.len() == old.columns.len()
        && sources.iter().enumerate().all(|(i, &s)| s == Some(i))
        && old.columns.iter().zip(&schema.columns).all(|(a, b)| {
            a.data_type == b.data_type
                && a.nullable == b.nullable
                && a.auto_increment == b.auto_increment
                && a.generated == b.generated
        })
        && old.primary_key == schema.primary_key
}

/// A conversion failure or a storage refusal, out of `Storage::alter_table`.
pub(crate) enum Failure {
    Sql(Error),
    Storage(StorageError),
}

impl From<StorageError> for Failure {
    fn from(e: StorageError) -> Failure {
        Failure::Storage(e)
    }
}

/// MODIFY and CHANGE's parts as a column definition.
fn column_def(
    name: &ast::Ident,
    data_type: &ast::DataType,
    options: &[ast::ColumnOption],
) -> Result<ast::ColumnDef> {
    reject_constraint_options(options.iter())?;
    Ok(ast::ColumnDef {
        name: name.clone(),
        data_type: data_type.clone(),
        options: options
            .iter()
            .map(|o| ast::ColumnOptionDef {
                name: None,
                option: o.clone(),
            })
            .collect(),
    })
}

/// A REFERENCES or CHECK declared with a column in ALTER TABLE is not built yet (its keys
/// are: `split_column_keys`).
fn reject_constraint_options<'a>(
    mut options: impl Iterator<Item = &'a ast::ColumnOption>,
) -> Result<()> {
    let constraint = options.find(|o| {
        matches!(
            o,
            ast::ColumnOption::ForeignKey(_) | ast::ColumnOption::Check(_)
        )
    });
    match constraint {
        Some(constraint) => Err(Error::not_supported(&format!(
            "ALTER TABLE column option {constraint}"
        ))),
        None => Ok(()),
    }
}

/// The operations with each PRIMARY KEY and UNIQUE [KEY] of an ADD, MODIFY or CHANGE
/// column definition taken out of it and written after it as the ADD PRIMARY KEY (col) or
/// ADD UNIQUE (col) it is, as MariaDB's parser makes a key of the statement of it, in the
/// statement's order: `edit_keys` then builds, names (the column's name, `_2` ... if
/// taken) and checks it as any added key, and the column operation sees only the column's
/// own options.
pub(crate) fn split_column_keys(
    operations: &[ast::AlterTableOperation],
) -> Vec<ast::AlterTableOperation> {
    use ast::AlterTableOperation as O;
    use ast::ColumnOption as K;
    // The key `option` declares on `column`, if it declares one.
    let key = |option: &K, column: &ast::Ident| {
        let columns = vec![ast::IndexColumn::from(column.clone())];
        let constraint = match option {
            K::PrimaryKey(k) => ast::TableConstraint::PrimaryKey(ast::PrimaryKeyConstraint {
                columns,
                ..k.clone()
            }),
            K::Unique(k) => ast::TableConstraint::Unique(ast::UniqueConstraint {
                columns,
                ..k.clone()
            }),
            _ => return None,
        };
        Some(O::AddConstraint {
            constraint,
            not_valid: false,
        })
    };
    let mut out = Vec::with_capacity(operations.len());
    for op in operations {
        let mut op = op.clone();
        let keys: Vec<O> = match &mut op {
            O::AddColumn { column_def, .. } => {
                let name = &column_def.name;
                let keys = column_def
                    .options
                    .iter()
                    .filter_map(|o| key(&o.option, name));
                let keys = keys.collect();
                column_def
                    .options
                    .retain(|o| key(&o.option, name).is_none());
                keys
            }
            O::ModifyColumn {
                col_name: name,
                options,
                ..
            }
            | O::ChangeColumn {
                new_name: name,
                options,
                ..
            } => {
                let keys = options.iter().filter_map(|o| key(o, name)).collect();
                options.retain(|o| key(o, name).is_none());
                keys
            }
            _ => Vec::new(),
        };
        out.push(op);
        out.extend(keys);
    }
    out
}

/// What a DROP operation names (`DROP COLUMN`, `DROP INDEX|KEY` and `DROP PRIMARY KEY`,
/// `DROP FOREIGN KEY`, `DROP CONSTRAINT`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum DropKind {
    Column,
    Index,
    ForeignKey,
    Constraint,
}

impl DropKind {
    /// As 1091 names it: "Can't DROP INDEX `k`".
    pub(crate) fn words(self) -> &'static str {
        match self {
            DropKind::Column => "COLUMN",
            DropKind::Index => "INDEX",
            DropKind::ForeignKey => "FOREIGN KEY",
            DropKind::Constraint => "CONSTRAINT",
        }
    }
}

/// Whether `schema` has what `DROP <kind> name` names, as MariaDB decides it both for its
/// 1091 and for DROP ... IF EXISTS: the primary key is the index PRIMARY, and a
/// CONSTRAINT is a table-level CHECK, a foreign key or a unique key (the primary key
/// too); a column's own CHECK is named after its column and no DROP CONSTRAINT drops it.
pub(crate) fn drop_target_exists(kind: DropKind, schema: &TableSchema, name: &str) -> bool {
    let same = |other: &str| other.eq_ignore_ascii_case(name);
    let foreign_key = || schema.foreign_keys.iter().any(|k| same(&k.name));
    match kind {
        DropKind::Column => schema.column_index(name).is_some(),
        DropKind::Index => crate::if_exists::has_key(schema, name),
        DropKind::ForeignKey => foreign_key(),
        DropKind::Constraint => {
            schema
                .checks
                .iter()
                .any(|k| !k.column_level && same(&k.name))
                || foreign_key()
                || (schema.primary_key.is_some() && same("PRIMARY"))
                || schema.indexes.iter().any(|i| i.unique && same(&i.name))
        }
    }
}

/// The operations with each DROP CONSTRAINT that names a foreign key or a unique key, and
/// each DROP INDEX `PRIMARY`, written as the DROP FOREIGN KEY, DROP INDEX or DROP PRIMARY
/// KEY it is in MariaDB (looked up in `old`, the table as it was), so the rest of the
/// ALTER knows one spelling of each.
pub(crate) fn resolve_drops(
    old: &TableSchema,
    operations: &[ast::AlterTableOperation],
) -> Vec<ast::AlterTableOperation> {
    use ast::AlterTableOperation as O;
    let is_check = |name: &str| {
        old.checks
            .iter()
            .any(|k| !k.column_level && k.name.eq_ignore_ascii_case(name))
    };
    let is_primary = |name: &str| old.primary_key.is_some() && name.eq_ignore_ascii_case("PRIMARY");
    operations
        .iter()
        .map(|op| match op {
            O::DropIndex { name } if is_primary(&name.value) => O::DropPrimaryKey {
                drop_behavior: None,
            },
            O::DropConstraint { name, .. } if !is_check(&name.value) => {
                if drop_target_exists(DropKind::ForeignKey, old, &name.value) {
                    O::DropForeignKey {
                        name: name.clone(),
                        drop_behavior: None,
                    }
                } else if is_primary(&name.value) {
                    O::DropPrimaryKey {
                        drop_behavior: None,
                    }
                } else if drop_target_exists(DropKind::Constraint, old, &name.value) {
                    O::DropIndex { name: name.clone() }
                } else {
                    op.clone()
                }
            }
            _ => op.clone(),
        })
        .collect()
}

/// MariaDB reports a DROP of a column, index, foreign key or CHECK the table does not have
/// before any other error, in the statement's order: each is looked up in `old`, the
/// table as it was (so what the statement adds cannot be dropped by it, as in MariaDB),
/// and each of the table's columns and keys is dropped once, so a second DROP of it (say
/// DROP CONSTRAINT ua, DROP INDEX ua, after `resolve_drops`) finds nothing left.
pub(crate) fn check_drop_targets(
    old: &TableSchema,
    operations: &[ast::AlterTableOperation],
) -> Result<()> {
    use ast::AlterTableOperation as O;
    let mut dropped: Vec<(DropKind, &str)> = Vec::new();
    for op in operations {
        let targets: Vec<(DropKind, &str)> = match op {
            O::DropColumn { column_names, .. } => column_names
                .iter()
                .map(|c| (DropKind::Column, c.value.as_str()))
                .collect(),
            O::DropIndex { name } => vec![(DropKind::Index, &name.value)],
            O::DropPrimaryKey { .. } => vec![(DropKind::Index, "PRIMARY")],
            O::DropForeignKey { name, .. } => vec![(DropKind::ForeignKey, &name.value)],
            O::DropConstraint { name, .. } => vec![(DropKind::Constraint, &name.value)],
            _ => Vec::new(),
        };
        for (kind, name) in targets {
            let again = dropped
                .iter()
                .any(|&(k, n)| k == kind && n.eq_ignore_ascii_case(name));
            if again || !drop_target_exists(kind, old, name) {
                return Err(Error::cant_drop(kind.words(), name));
            }
            dropped.push((kind, name));
        }
    }
    Ok(())
}

/// Takes the foreign keys DROP FOREIGN KEY names out of `schema` (before the column
/// operations, so a column of a dropped key can go too) and returns them. The key's index
/// stays, as in MariaDB.
pub(crate) fn drop_foreign_keys(
    schema: &mut TableSchema,
    operations: &[ast::AlterTableOperation],
) -> Result<Vec<ForeignKeySchema>> {
    let mut dropped = Vec::new();
    for op in operations {
        if let ast::AlterTableOperation::DropForeignKey { name, .. } = op {
            let position = schema
                .foreign_keys
                .iter()
                .position(|fk| fk.name.eq_ignore_ascii_case(&name.value))
                .ok_or_else(|| Error::cant_drop("FOREIGN KEY", &name.value))?;
            dropped.push(schema.foreign_keys.remove(position));
        }
    }
    Ok(dropped)
}

/// What `edit_keys` added that the table's rows must satisfy, and the AUTO_INCREMENT asked.
#[derive(Default)]
pub(crate) struct KeyEdits {
    pub(crate) checks_added: bool,
    pub(crate) foreign_keys_added: Vec<ForeignKeySchema>,
    pub(crate) auto_increment: Option<u64>,
}

/// Applies the key, foreign key, CHECK and AUTO_INCREMENT operations to `schema` (the
/// table after its column operations, as MariaDB applies them; `dropped_keys` are the
/// foreign keys `drop_foreign_keys` took out), in MariaDB's order so its error comes
/// first: indexes dropped then added, CHECKs, foreign keys added (with the index one
/// needs). Nothing is stored here (invariant (3)).
pub(crate) fn edit_keys(
    db: &str,
    schema: &mut TableSchema,
    dropped_keys: &[ForeignKeySchema],
    operations: &[ast::AlterTableOperation],
    catalog: &Catalog,
    foreign_key_checks: bool,
    session: &dyn SessionContext,
) -> Result<KeyEdits> {
    use crate::foreign_key;
    use ast::AlterTableOperation as O;
    use ast::TableConstraint as C;
    let mut edits = KeyEdits::default();
    for op in operations {
        match op {
            O::DropIndex { name } => {
                let named = |n: &str| n.eq_ignore_ascii_case(&name.value);
                schema.fulltext_indexes.retain(|i| !named(&i.name));
                let position = schema.indexes.iter().position(|i| named(&i.name));
                let Some(position) = position else {
                    continue; // FULLTEXT, or dropped with its columns (`check_drop_targets`).
                };
                let index = IndexNo::Secondary(position);
                if foreign_key::index_needed(catalog, db, schema, index) {
                    return Err(foreign_key::drop_index_error(
                        &schema.indexes[position].name,
                    ));
                }
                schema.indexes.remove(position);
            }
            O::DropPrimaryKey { .. } => {
                if schema.primary_key.is_none() {
                    continue; // Dropped with its columns.
                }
                if foreign_key::index_needed(catalog, db, schema, IndexNo::Primary) {
                    return Err(foreign_key::drop_primary_key_error(db, &schema.name));
                }
                schema.primary_key = None;
            }
            _ => {}
        }
    }
    edit_index_names(schema, operations)?;
    for op in operations {
        let (name, columns, unique) = match op {
            O::AddConstraint {
                constraint: C::PrimaryKey(k),
                ..
            } => {
                crate::ddl::ignore_primary_key_name(k, session);
                add_primary_key(schema, &k.columns)?;
                continue;
            }
            O::AddConstraint {
                constraint: C::Index(i),
                ..
            } => (i.name.clone(), &i.columns, false),
            O::AddConstraint {
                constraint: C::Unique(u),
                ..
            } => (u.index_name.clone().or(u.name.clone()), &u.columns, true),
            O::AddConstraint {
                constraint: C::FulltextOrSpatial(k),
                ..
            } if k.fulltext => {
                let name = k.opt_index_name.as_ref();
                crate::ddl::add_fulltext_definition(schema, name, &k.columns)?;
                continue;
            }
            _ => continue,
        };
        crate::ddl::add_index_definition(schema, name.as_ref(), columns, unique)?;
    }
    for op in operations {
        match op {
            O::AddConstraint {
                constraint: C::Check(c),
                ..
            } => {
                let check = crate::check::table_level(c, &schema.checks);
                crate::check::add(&mut schema.checks, check)?;
                edits.checks_added = true;
            }
            O::DropConstraint { name, .. } => {
                let position = schema
                    .checks
                    .iter()
                    .position(|k| !k.column_level && k.name.eq_ignore_ascii_case(&name.value))
                    .ok_or_else(|| Error::cant_drop("CONSTRAINT", &name.value))?;
                schema.checks.remove(position);
            }
            _ => {}
        }
    }
    crate::check::validate(schema)?;
    crate::generated::validate(schema)?;
    for op in operations {
        let O::AddConstraint {
            constraint: C::ForeignKey(fk),
            ..
        } = op
        else {
            continue;
        };
        let declared = foreign_key::declare(fk, None, &schema.columns, db)?;
        let index_name = declared.name.clone();
        // InnoDB still holds the keys the statement drops while it adds the others: their
        // names are neither reused (errno 121) nor generated again.
        let held: Vec<ForeignKeySchema> = schema
            .foreign_keys
            .iter()
            .chain(dropped_keys)
            .cloned()
            .collect();
        let added = foreign_key::name_all(&schema.name, &held, vec![declared]);
        let reported = schema.name.clone();
        let names_dropped = |key: &ForeignKeySchema| {
            dropped_keys
                .iter()
                .any(|d| d.name.eq_ignore_ascii_case(&key.name))
        };
        if added.iter().any(names_dropped) {
            return Err(foreign_key::duplicate_name(db, &reported));
        }
        schema.foreign_keys.extend(added.iter().cloned());
        foreign_key::check_definitions(catalog, db, schema, &added, foreign_key_checks, &reported)?;
        for key in added {
            if !foreign_key::has_index_for(schema, &key.columns) {
                crate::ddl::add_foreign_key_index(schema, index_name.as_deref(), &key.columns)?;
            }
            edits.foreign_keys_added.push(key);
        }
    }
    if !edits.foreign_keys_added.is_empty() {
        // STORED columns may not read what the added keys' actions write (1901).
        crate::generated::validate(schema)?;
    }
    // Once every key is in place, as MariaDB checks it: an AUTO_INCREMENT column the
    // statement added or kept leads some key, maybe one the statement added.
    crate::ddl::check_auto_column(
        &schema.columns,
        schema.primary_key.as_deref(),
        &schema.indexes,
    )?;
    for op in operations {
        if let O::AutoIncrement { value, .. } = op {
            if let ast::Value::Number(n, _) = &value.value {
                edits.auto_increment = Some(n.parse().unwrap_or(1));
            }
        }
    }
    Ok(edits)
}

/// RENAME INDEX|KEY old TO new, which the token pass hands over as sqlparser's
/// `RenameConstraint` (MariaDB has no RENAME CONSTRAINT), applied after the drops and
/// before the adds, as MariaDB does: each names a key the table has under its name from
/// before the statement's renames (1176), PRIMARY is neither renamed nor a new name (1280),
/// and a new name another key keeps is 1061.
fn edit_index_names(
    schema: &mut TableSchema,
    operations: &[ast::AlterTableOperation],
) -> Result<()> {
    let is_primary = |name: &str| name.eq_ignore_ascii_case("PRIMARY");
    let has_primary_key = schema.primary_key.is_some();
    let table = schema.name.clone();
    // Secondary and FULLTEXT indexes share one namespace.
    let mut names: Vec<&mut String> = schema
        .indexes
        .iter_mut()
        .map(|i| &mut i.name)
        .chain(schema.fulltext_indexes.iter_mut().map(|i| &mut i.name))
        .collect();
    let mut renamed = vec![false; names.len()];
    for op in operations {
        let ast::AlterTableOperation::RenameConstraint { old_name, new_name } = op else {
            continue;
        };
        let (old, new) = (&old_name.value, &new_name.value);
        if is_primary(old) && has_primary_key {
            return Err(crate::ddl::wrong_index_name(old));
        }
        let position = (0..names.len())
            .find(|&i| !renamed[i] && names[i].eq_ignore_ascii_case(old))
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::NoSuchIndex,
                    format!("Key '{old}' doesn't exist in table '{table}'"),
                )
            })?;
        if is_primary(new) {
            return Err(crate::ddl::wrong_index_name(new));
        }
        renamed[position] = true;
        *names[position] = new.clone();
    }
    for (i, name) in names.iter().enumerate() {
        if names[..i]
            .iter()
            .any(|other| other.eq_ignore_ascii_case(name))
        {
            return Err(Error::duplicate_key(name));
        }
    }
    Ok(())
}

/// ADD PRIMARY KEY: its columns are looked up first (1072), then 1068 if the table has a
/// primary key (the statement's DROP PRIMARY KEY already applied), as MariaDB reports
/// them. Its columns become NOT NULL, as MariaDB makes them, even one declared NULL:
/// `convert_row` then refuses a NULL they hold, as MODIFY ... NOT NULL does. A
/// constraint name is ignored: the key is PRIMARY.
fn add_primary_key(schema: &mut TableSchema, columns: &[ast::IndexColumn]) -> Result<()> {
    let columns = crate::ddl::primary_key_columns(columns, &schema.columns)?;
    if schema.primary_key.is_some() {
        return Err(Error::new(
            ErrorCode::MultiplePriKey,
            "Multiple primary key defined",
        ));
    }
    for &c in &columns {
        schema.columns[c].nullable = false;
    }
    schema.primary_key = Some(columns);
    Ok(())
}
