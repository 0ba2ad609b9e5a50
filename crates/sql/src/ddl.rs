//! CREATE/DROP DATABASE, CREATE/DROP TABLE, CREATE/DROP INDEX, ALTER TABLE (indexes, keys),
//! TRUNCATE: from sqlparser's AST to storage schemas, with MySQL's checks and errors.
//!
//! MySQL rules applied here: primary-key columns become NOT NULL (an explicit NULL is
//! 1171); an AUTO_INCREMENT column must lead some key (1075); unnamed keys take their first
//! column's name, suffixed _2, _3 ... when taken; BOOL is TINYINT; ZEROFILL and display
//! widths are accepted and not kept (storage has no place for them; SHOW CREATE TABLE
//! prints the default widths); the ENGINE option is accepted and SHOW CREATE TABLE prints
//! InnoDB and utf8mb4 (the only engine and charset manycore has); the default collation,
//! ROW_FORMAT and COMMENT are kept with the table (`create_options`).
//! A character column's collation is its own COLLATE (or BINARY, meaning utf8mb4_bin),
//! else the table's default (its COLLATE, or its CHARSET's default collation), else its
//! database's (`default_collation`, `declared_collation`).
//! FOREIGN KEY clauses (and column-level REFERENCES) become the table's foreign keys, each
//! with the key MariaDB adds on its columns unless another key leads with them
//! (`foreign_key` checks them against their parents).

use crate::error::{Error, ErrorCode, Result};
use crate::expr::{self, EvalContext, SessionContext};
use crate::foreign_key;
use crate::scope::{BindScope, Parameters, SourceTable};
use crate::select::object_part;
use manycore_storage::{ColumnSchema, IndexSchema, RowFormat, TableOptions, TableSchema};
use manycore_types::enumset;
use manycore_types::{
    Collation, ColumnDefault, DataType, IntWidth, LobSize, Value, NOT_FIXED_DECIMALS,
};
use sqlparser::ast;

const CHAR_LENGTH_MAX: u64 = 255;
/// utf8mb4 VARCHAR: 65535 bytes / 4.
const VARCHAR_LENGTH_MAX: u64 = 16383;
const BINARY_LENGTH_MAX: u64 = 255;
const VARBINARY_LENGTH_MAX: u64 = 65532;
const DISPLAY_WIDTH_MAX: u64 = 255;

/// The display width an integer column was declared with (BOOL is TINYINT(1)); SHOW
/// COLUMNS and SHOW CREATE TABLE print it instead of the type's default width.
pub fn display_width(t: &ast::DataType) -> Option<u32> {
    use ast::DataType as A;
    let declared = match t {
        A::Bool | A::Boolean => return Some(1),
        A::TinyInt(d)
        | A::TinyIntUnsigned(d)
        | A::SmallInt(d)
        | A::SmallIntUnsigned(d)
        | A::MediumInt(d)
        | A::MediumIntUnsigned(d)
        | A::Int(d)
        | A::Integer(d)
        | A::IntUnsigned(d)
        | A::IntegerUnsigned(d)
        | A::BigInt(d)
        | A::BigIntUnsigned(d) => d,
        _ => return None,
    };
    declared.and_then(|d| u32::try_from(d).ok())
}

pub fn column_type(name: &str, t: &ast::DataType) -> Result<DataType> {
    use ast::DataType as A;
    let int = |width, unsigned, display: &Option<u64>| -> Result<DataType> {
        if display.is_some_and(|d| d > DISPLAY_WIDTH_MAX) {
            return Err(Error::new(
                ErrorCode::TooBigDisplaywidth,
                format!("Display width out of range for '{name}' (max = 255)"),
            ));
        }
        Ok(DataType::Int { width, unsigned })
    };
    let char_length = |l: &Option<ast::CharacterLength>, default: Option<u64>| -> Result<u64> {
        match l {
            Some(ast::CharacterLength::IntegerLength { length, .. }) => Ok(*length),
            Some(ast::CharacterLength::Max) => Err(Error::parse_near("MAX", 1)),
            None => default.ok_or_else(|| Error::parse_near(")", 1)),
        }
    };
    let too_long = |max: u64| {
        Error::new(
            ErrorCode::TooBigFieldLength,
            format!(
                "Column length too big for column '{name}' (max = {max}); use BLOB or TEXT instead"
            ),
        )
    };
    Ok(match t {
        A::TinyInt(d) => int(IntWidth::Tiny, false, d)?,
        A::TinyIntUnsigned(d) => int(IntWidth::Tiny, true, d)?,
        A::SmallInt(d) => int(IntWidth::Small, false, d)?,
        A::SmallIntUnsigned(d) => int(IntWidth::Small, true, d)?,
        A::MediumInt(d) => int(IntWidth::Medium, false, d)?,
        A::MediumIntUnsigned(d) => int(IntWidth::Medium, true, d)?,
        A::Int(d) | A::Integer(d) => int(IntWidth::Int, false, d)?,
        A::IntUnsigned(d) | A::IntegerUnsigned(d) => int(IntWidth::Int, true, d)?,
        A::BigInt(d) => int(IntWidth::Big, false, d)?,
        A::BigIntUnsigned(d) => int(IntWidth::Big, true, d)?,
        A::Bool | A::Boolean => DataType::Int {
            width: IntWidth::Tiny,
            unsigned: false,
        },
        A::Decimal(info) | A::Numeric(info) | A::Dec(info) => {
            expr::declared_decimal(info, name, name)?
        }
        A::DecimalUnsigned(info) | A::DecUnsigned(info) => {
            expr::declared_decimal(info, name, name)?.with_unsigned(true)
        }
        A::Float(info) => declared_floating(info, true, false, name)?,
        A::FloatUnsigned(info) => declared_floating(info, true, true, name)?,
        // REAL is DOUBLE (sql_mode REAL_AS_FLOAT is off); `parse` reads REAL(M,D) and
        // DOUBLE PRECISION(M,D) as DOUBLE(M,D).
        A::Double(info) => declared_floating(info, false, false, name)?,
        A::DoubleUnsigned(info) => declared_floating(info, false, true, name)?,
        A::Real | A::DoublePrecision | A::Float8 | A::Float64 => DataType::DOUBLE,
        A::RealUnsigned | A::DoublePrecisionUnsigned => DataType::DOUBLE.with_unsigned(true),
        A::Float4 | A::Float32 => DataType::FLOAT,
        A::Char(l) | A::Character(l) => {
            let length = char_length(l, Some(1))?;
            if length > CHAR_LENGTH_MAX {
                return Err(too_long(CHAR_LENGTH_MAX));
            }
            DataType::char(length as u32)
        }
        A::Varchar(l) | A::CharacterVarying(l) | A::CharVarying(l) | A::Nvarchar(l) => {
            let length = char_length(l, None)?;
            if length > VARCHAR_LENGTH_MAX {
                return Err(too_long(VARCHAR_LENGTH_MAX));
            }
            DataType::varchar(length as u32)
        }
        A::Binary(l) => {
            let length = l.unwrap_or(1);
            if length > BINARY_LENGTH_MAX {
                return Err(too_long(BINARY_LENGTH_MAX));
            }
            DataType::Binary {
                length: length as u32,
            }
        }
        A::Varbinary(l) => {
            let length = match l {
                Some(ast::BinaryLength::IntegerLength { length }) => *length,
                _ => return Err(Error::parse_near(")", 1)),
            };
            if length > VARBINARY_LENGTH_MAX {
                return Err(too_long(VARBINARY_LENGTH_MAX));
            }
            DataType::VarBinary {
                length: length as u32,
            }
        }
        A::TinyText => DataType::text(LobSize::Tiny),
        A::Text => DataType::text(LobSize::Regular),
        A::MediumText => DataType::text(LobSize::Medium),
        A::LongText => DataType::text(LobSize::Long),
        // JSON is MariaDB's alias of LONGTEXT in utf8mb4_bin (`check::definitions` adds
        // its CHECK).
        A::JSON => DataType::text(LobSize::Long).with_collation(Collation::Utf8mb4Bin),
        A::TinyBlob => DataType::Blob {
            size: LobSize::Tiny,
        },
        A::Blob(_) => DataType::Blob {
            size: LobSize::Regular,
        },
        A::MediumBlob => DataType::Blob {
            size: LobSize::Medium,
        },
        A::LongBlob => DataType::Blob {
            size: LobSize::Long,
        },
        A::Date => DataType::Date,
        A::Datetime(fsp) => DataType::DateTime {
            fsp: fsp_of(name, *fsp)?,
        },
        A::Timestamp(fsp, _) => DataType::Timestamp {
            fsp: fsp_of(name, *fsp)?,
        },
        A::Time(fsp, _) => DataType::Time {
            fsp: fsp_of(name, *fsp)?,
        },
        A::Enum(declared, None) => {
            let mut members = Vec::with_capacity(declared.len());
            for member in declared {
                match member {
                    ast::EnumMember::Name(text) => members.push(member_text(text)),
                    ast::EnumMember::NamedValue(..) => return Err(Error::parse_near("=", 1)),
                }
            }
            DataType::Enum {
                members: members.into(),
                collation: Collation::Utf8mb4GeneralCi,
            }
        }
        A::Set(declared) => {
            if declared.len() > enumset::SET_MEMBERS_MAX {
                return Err(Error::new(
                    ErrorCode::TooBigSet,
                    format!("Too many strings for column {name} and SET"),
                ));
            }
            if let Some(comma) = declared.iter().find(|m| m.contains(',')) {
                return Err(Error::new(
                    ErrorCode::IllegalValueForType,
                    format!("Illegal set '{comma}' value found during parsing"),
                ));
            }
            DataType::Set {
                members: declared.iter().map(|m| member_text(m)).collect(),
                collation: Collation::Utf8mb4GeneralCi,
            }
        }
        other => return Err(Error::not_supported(&format!("column type {other}"))),
    })
}

/// A declared ENUM or SET member as MariaDB keeps it: without trailing spaces.
fn member_text(declared: &str) -> String {
    declared.trim_end_matches(' ').to_string()
}

/// An ENUM or SET whose members repeat under its collation: 1291 in strict mode; else a
/// note, and the list is kept as declared (a value then names the first of the equals).
fn check_members(name: &str, t: &DataType, session: &dyn SessionContext) -> Result<()> {
    let (Some(members), kind) = (t.members(), matches!(t, DataType::Set { .. })) else {
        return Ok(());
    };
    let collation = t.collation();
    for (i, member) in members.iter().enumerate() {
        if let Some(first) = enumset::position(&members[..i], collation, member.as_bytes()) {
            let kind = if kind { "SET" } else { "ENUM" };
            let first = &members[first];
            let message = format!("Column '{name}' has duplicated value '{first}' in {kind}");
            if session.strict() {
                return Err(Error::new(ErrorCode::DuplicatedValueInType, message));
            }
            session.note(ErrorCode::DuplicatedValueInType, message);
        }
    }
    Ok(())
}

fn fsp_of(name: &str, fsp: Option<u64>) -> Result<u8> {
    match fsp {
        None => Ok(0),
        Some(f) if f <= 6 => Ok(f as u8),
        Some(_) => Err(Error::new(
            ErrorCode::TooBigPrecision,
            format!("Too big precision specified for '{name}'. Maximum is 6"),
        )),
    }
}

fn is_current_timestamp(e: &ast::Expr) -> bool {
    let name = match e {
        ast::Expr::Function(f) => f.name.to_string(),
        ast::Expr::Identifier(i) => i.value.clone(),
        _ => return false,
    };
    matches!(
        name.to_ascii_uppercase().as_str(),
        "CURRENT_TIMESTAMP" | "NOW" | "LOCALTIME" | "LOCALTIMESTAMP"
    )
}

fn invalid_default(name: &str) -> Error {
    Error::new(
        ErrorCode::InvalidDefault,
        format!("Invalid default value for '{name}'"),
    )
}

/// Evaluates a DEFAULT expression and stores it as the column type (strictly), as the cell
/// the column will hold: a TIMESTAMP's is taken in the session's zone now and kept in UTC,
/// as MariaDB keeps it in the table's default row, so every later row gets that instant
/// whatever its session's zone (and SHOW CREATE TABLE shows it in the zone of the session
/// that asks).
fn default_value(
    name: &str,
    t: &DataType,
    e: &ast::Expr,
    session: &dyn SessionContext,
) -> Result<ColumnDefault> {
    if is_current_timestamp(e) {
        return match t {
            DataType::DateTime { .. } | DataType::Timestamp { .. } => {
                Ok(ColumnDefault::CurrentTimestamp)
            }
            _ => Err(invalid_default(name)),
        };
    }
    let parameters = Parameters::untyped();
    let no_tables: [SourceTable; 0] = [];
    let scope = BindScope {
        definition: Some(name),
        ..BindScope::new(&no_tables, "DEFAULT", &parameters)
    };
    let bound = scope.bind(e)?;
    let value = bound.eval(&[], &EvalContext::new(&[], session))?;
    if value.is_null() {
        return Ok(ColumnDefault::Value(Value::Null));
    }
    // An ENUM or SET default names its members: a number is no default.
    if t.members().is_some() && !matches!(value, Value::Bytes(_)) {
        return Err(invalid_default(name));
    }
    let stored = expr::store_value(value, t, &|| name.to_string(), 1, true, session)
        .map_err(|_| invalid_default(name))?;
    Ok(ColumnDefault::Value(expr::stored_cell(t, stored, session)))
}

/// Columns named by an index definition, each with its prefix length (`c(10)`; None for
/// the whole column). A prefix as long as the column is the whole column, as MariaDB
/// takes it.
fn index_columns(
    columns: &[ast::IndexColumn],
    schema_columns: &[ColumnSchema],
) -> Result<Vec<(usize, Option<u32>)>> {
    let mut out = Vec::new();
    for c in columns {
        let (name, prefix) = match &c.column.expr {
            ast::Expr::Identifier(i) => (i.value.clone(), None),
            ast::Expr::Function(f) => (f.name.to_string(), Some(prefix_length(f)?)),
            other => {
                return Err(Error::not_supported(&format!(
                    "index on expression {other}"
                )))
            }
        };
        let position = key_column(&name, schema_columns)?;
        let column = &schema_columns[position];
        let prefix = match prefix {
            None => None,
            Some(0) => {
                return Err(Error::new(
                    ErrorCode::KeyPartZero,
                    format!("Key part '{}' length cannot be 0", column.name),
                ))
            }
            Some(length) => {
                let max = column.data_type.max_length();
                if !column.data_type.is_string() || max.is_some_and(|m| u64::from(length) > m) {
                    return Err(Error::new(
                        ErrorCode::WrongSubKey,
                        "Incorrect prefix key; the used key part isn't a string, the used length is longer than the key part, or the storage engine doesn't support unique prefix keys",
                    ));
                }
                let whole = matches!(
                    column.data_type,
                    DataType::Char { .. }
                        | DataType::VarChar { .. }
                        | DataType::Binary { .. }
                        | DataType::VarBinary { .. }
                ) && max == Some(u64::from(length));
                (!whole).then_some(length)
            }
        };
        // MariaDB 10.11 accepts BLOB/TEXT keys without a prefix (it keys them by hash);
        // storage orders them by collation weight, which serves the same queries.
        out.push((position, prefix));
    }
    Ok(out)
}

/// The position of the column a key names; 1072 if the table has none of that name.
fn key_column(name: &str, schema_columns: &[ColumnSchema]) -> Result<usize> {
    schema_columns
        .iter()
        .position(|s| s.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| {
            Error::new(
                ErrorCode::KeyColumnDoesNotExist,
                format!("Key column '{name}' doesn't exist in table"),
            )
        })
}

/// The columns of a FULLTEXT key. InnoDB indexes the words of character columns only:
/// any other type (binary strings, ENUM and SET too) is 1283. A prefix length (`c(10)`)
/// is accepted and ignored, and a column named twice is 1060, as in MariaDB 10.11.
fn fulltext_columns(
    columns: &[ast::IndexColumn],
    schema_columns: &[ColumnSchema],
) -> Result<Vec<usize>> {
    let mut out = Vec::new();
    for c in columns {
        let name = match &c.column.expr {
            ast::Expr::Identifier(i) => i.value.clone(),
            ast::Expr::Function(f) => {
                prefix_length(f)?;
                f.name.to_string()
            }
            other => {
                return Err(Error::not_supported(&format!(
                    "index on expression {other}"
                )))
            }
        };
        let position = key_column(&name, schema_columns)?;
        let column = &schema_columns[position];
        check_fulltext_column(column)?;
        if out.contains(&position) {
            return Err(Error::duplicate_column(&column.name));
        }
        out.push(position);
    }
    Ok(out)
}

/// 1283 unless the column is of a character type, whose words a FULLTEXT index keys.
pub fn check_fulltext_column(column: &ColumnSchema) -> Result<()> {
    let words = matches!(
        column.data_type,
        DataType::Char { .. } | DataType::VarChar { .. } | DataType::Text { .. }
    );
    if !words {
        return Err(Error::new(
            ErrorCode::BadFtColumn,
            format!("Column '{}' cannot be part of FULLTEXT index", column.name),
        ));
    }
    Ok(())
}

/// The `10` of a key part `c(10)`, which the parser reads as a call.
fn prefix_length(call: &ast::Function) -> Result<u32> {
    if let ast::FunctionArguments::List(list) = &call.args {
        if let [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ast::Expr::Value(v)))] =
            list.args.as_slice()
        {
            if let ast::Value::Number(n, _) = &v.value {
                if let Ok(length) = n.parse::<u32>() {
                    return Ok(length);
                }
            }
        }
    }
    Err(Error::parse_near(&call.to_string(), 1))
}

/// A primary key is named PRIMARY whatever its definition calls it: MariaDB warns (1280)
/// that the name, `CONSTRAINT name PRIMARY KEY` or `PRIMARY KEY name (...)`, is ignored.
pub fn ignore_primary_key_name(key: &ast::PrimaryKeyConstraint, session: &dyn SessionContext) {
    if let Some(name) = key.index_name.as_ref().or(key.name.as_ref()) {
        session.warn(
            ErrorCode::WrongNameForIndex,
            format!("Name '{}' ignored for PRIMARY key.", name.value),
        );
    }
}

/// The primary key's columns: MariaDB keys a primary key by a prefix too, manycore not yet.
pub fn primary_key_columns(
    columns: &[ast::IndexColumn],
    schema_columns: &[ColumnSchema],
) -> Result<Vec<usize>> {
    index_columns(columns, schema_columns)?
        .into_iter()
        .map(|(position, prefix)| match prefix {
            None => Ok(position),
            Some(_) => Err(Error::not_supported("a prefix length in a PRIMARY KEY")),
        })
        .collect()
}

/// A name for an unnamed key: its first column's, suffixed _2, _3 ... if taken.
fn generated_index_name(first_column: &str, schema: &TableSchema) -> String {
    let free = |n: &str| !n.eq_ignore_ascii_case("PRIMARY") && !schema.has_index_named(n);
    if free(first_column) {
        return first_column.to_string();
    }
    (2..)
        .map(|k| format!("{first_column}_{k}"))
        .find(|n| free(n))
        .expect("some suffix is free")
}

/// The name a key added to `schema` gets: its own, or one generated from its first
/// column. PRIMARY is 1280 and a name another key (of either kind) has is 1061.
fn new_index_name(
    schema: &TableSchema,
    name: Option<&ast::Ident>,
    first_column: usize,
) -> Result<String> {
    let name = match name {
        Some(n) => n.value.clone(),
        None => generated_index_name(&schema.columns[first_column].name, schema),
    };
    if name.eq_ignore_ascii_case("PRIMARY") {
        return Err(wrong_index_name(&name));
    }
    if schema.has_index_named(&name) {
        return Err(Error::duplicate_key(&name));
    }
    Ok(name)
}

fn add_index(
    schema: &mut TableSchema,
    name: Option<&ast::Ident>,
    key_parts: Vec<(usize, Option<u32>)>,
    unique: bool,
) -> Result<()> {
    let name = new_index_name(schema, name, key_parts[0].0)?;
    let (columns, prefix_lengths) = key_parts.into_iter().unzip();
    schema.indexes.push(IndexSchema {
        name,
        columns,
        unique,
        prefix_lengths,
    });
    Ok(())
}

fn add_fulltext_index(
    schema: &mut TableSchema,
    name: Option<&ast::Ident>,
    columns: Vec<usize>,
) -> Result<()> {
    let name = new_index_name(schema, name, columns[0])?;
    schema
        .fulltext_indexes
        .push(manycore_storage::FulltextIndex { name, columns });
    Ok(())
}

/// Names MariaDB refuses for a table (1103): empty, longer than 64 characters, or ending
/// in a space (`check_table_name`).
fn check_table_name(name: &str) -> Result<()> {
    const NAME_CHARS_MAX: usize = 64;
    if name.is_empty() || name.chars().count() > NAME_CHARS_MAX || name.ends_with(' ') {
        return Err(Error::new(
            ErrorCode::WrongTableName,
            format!("Incorrect table name '{name}'"),
        ));
    }
    Ok(())
}

/// A key CREATE TABLE declared: (name, key parts, kind, generated for a foreign key).
type PendingIndex = (Option<ast::Ident>, Vec<(usize, Option<u32>)>, KeyKind, bool);

/// What a declared key is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    Plain,
    Unique,
    Fulltext,
}

/// Drops each index generated for a foreign key whose columns another key (the primary key
/// included) already leads with, as MariaDB does: the foreign key uses that one.
fn drop_covered_foreign_key_indexes(
    pending: &mut Vec<PendingIndex>,
    primary_key: Option<&[usize]>,
) {
    let mut k = 0;
    while k < pending.len() {
        let (_, parts, _, generated) = &pending[k];
        let leads = |other: &[(usize, Option<u32>)]| {
            other.len() >= parts.len()
                && other
                    .iter()
                    .zip(parts)
                    .all(|(o, p)| o.0 == p.0 && o.1.is_none())
        };
        let in_primary = primary_key.is_some_and(|pk| {
            pk.len() >= parts.len() && pk.iter().zip(parts).all(|(&c, p)| c == p.0)
        });
        let covered = *generated
            && (in_primary
                || pending.iter().enumerate().any(|(j, other)| {
                    // A FULLTEXT key serves no foreign key.
                    j != k && other.2 != KeyKind::Fulltext && leads(&other.1)
                }));
        if covered {
            pending.remove(k);
        } else {
            k += 1;
        }
    }
}

/// The result of CREATE TABLE's translation.
pub struct TableDefinition {
    pub schema: TableSchema,
    pub auto_increment_start: Option<u64>,
}

/// `CREATE TABLE name LIKE source`: the source's columns (types, defaults, comments,
/// AUTO_INCREMENT), keys and comment; no rows, and the auto-increment counter starts
/// over, as in MariaDB.
pub fn like_definition(name: &str, source: &manycore_storage::Table) -> Result<TableDefinition> {
    check_table_name(name)?;
    let mut schema = (*source.schema).clone();
    schema.name = name.to_string();
    // LIKE copies no foreign keys (their indexes stay), as in MariaDB.
    schema.foreign_keys.clear();
    Ok(TableDefinition {
        schema,
        auto_increment_start: None,
    })
}

/// `CREATE TABLE name [(definitions)] SELECT ...` whose result has `columns`: the defined
/// columns, then each result column no definition names, as MariaDB makes it: a table
/// column keeps its definition (type, width, default, comment; AUTO_INCREMENT dropped,
/// leaving a NOT NULL column the type's implicit default), an expression's column gets the
/// result type (a NULL one BINARY(0)) and no default. The keys may name any of these
/// columns. Also returns, per result column, the table column it fills.
pub fn select_definition(
    create: &ast::CreateTable,
    db: &str,
    columns: &[crate::sink::ColumnInfo],
    catalog: &manycore_storage::Catalog,
    session: &dyn SessionContext,
) -> Result<(TableDefinition, Vec<usize>)> {
    for (n, column) in columns.iter().enumerate() {
        if columns[..n]
            .iter()
            .any(|c| c.name.eq_ignore_ascii_case(&column.name))
        {
            return Err(Error::duplicate_column(&column.name));
        }
    }
    let defined_at = |column: &crate::sink::ColumnInfo| {
        create
            .columns
            .iter()
            .position(|d| d.name.value.eq_ignore_ascii_case(&column.name))
    };
    let from_query = columns
        .iter()
        .filter(|c| defined_at(c).is_none())
        .map(|c| result_column(c, catalog))
        .collect();
    let collation = database_collation(catalog, db);
    let mut definition = definition_with(create, db, collation, session, from_query)?;
    // MariaDB's order: the defined columns the query does not fill, then the query's
    // columns (a defined one keeps its definition there). The table's columns are now the
    // defined ones, then the query's others; `order` lists them in MariaDB's order.
    let defined = create.columns.len();
    let filled: Vec<Option<usize>> = columns.iter().map(defined_at).collect();
    let mut order: Vec<usize> = (0..defined)
        .filter(|i| !filled.contains(&Some(*i)))
        .collect();
    let mut next_from_query = defined;
    for fills in &filled {
        order.push(fills.unwrap_or_else(|| {
            next_from_query += 1;
            next_from_query - 1
        }));
    }
    let schema = &mut definition.schema;
    debug_assert_eq!(order.len(), schema.columns.len());
    let mut new_position = vec![0; order.len()];
    for (new, &old) in order.iter().enumerate() {
        new_position[old] = new;
    }
    let mut unordered: Vec<Option<ColumnSchema>> = std::mem::take(&mut schema.columns)
        .into_iter()
        .map(Some)
        .collect();
    schema.columns = order
        .iter()
        .map(|&old| unordered[old].take().expect("each column once"))
        .collect();
    for c in schema.primary_key.iter_mut().flatten() {
        *c = new_position[*c];
    }
    for index in &mut schema.indexes {
        for c in &mut index.columns {
            *c = new_position[*c];
        }
    }
    for index in &mut schema.fulltext_indexes {
        for c in &mut index.columns {
            *c = new_position[*c];
        }
    }
    let fills = (order.len() - columns.len()..order.len()).collect();
    Ok((definition, fills))
}

/// The table column `CREATE TABLE ... SELECT` makes of a result column (`select_definition`).
fn result_column(
    column: &crate::sink::ColumnInfo,
    catalog: &manycore_storage::Catalog,
) -> ColumnSchema {
    let source = catalog
        .table(&column.schema, &column.org_table)
        .and_then(|t| {
            t.schema
                .columns
                .get(t.schema.column_index(&column.org_name)?)
        })
        .filter(|_| !column.org_name.is_empty());
    if let Some(source) = source {
        let mut c = source.clone();
        c.name = column.name.clone();
        c.nullable = !column.not_null;
        if c.auto_increment {
            c.auto_increment = false;
            if !c.nullable {
                c.default = ColumnDefault::Value(crate::dml::implicit_default(&c.data_type));
            }
        }
        return c;
    }
    let data_type = match &column.data_type {
        DataType::Null => DataType::Binary { length: 0 },
        other => other.clone(),
    };
    let display_width = matches!(data_type, DataType::Int { .. }).then_some(column.length);
    ColumnSchema {
        name: column.name.clone(),
        data_type,
        nullable: !column.not_null,
        default: ColumnDefault::None,
        auto_increment: false,
        on_update_current_timestamp: false,
        comment: String::new(),
        display_width,
        generated: None,
    }
}

/// MariaDB's character sets, which a known collation's name starts with.
const CHARSETS: &[&str] = &[
    "armscii8", "ascii", "big5", "cp1250", "cp1251", "cp1256", "cp1257", "cp850", "cp852", "cp866",
    "cp932", "dec8", "eucjpms", "euckr", "gb2312", "gbk", "geostd8", "greek", "hebrew", "hp8",
    "keybcs2", "koi8r", "koi8u", "latin1", "latin2", "latin5", "latin7", "macce", "macroman",
    "sjis", "swe7", "tis620", "ucs2", "ujis", "utf16", "utf16le", "utf32", "utf8", "utf8mb3",
    "utf8mb4",
];

/// The collation a column declared `COLLATE name` gets. manycore stores utf8mb4 and has
/// two collations for it, so that dumps from other collations still load: a
/// case-insensitive MariaDB collation (`*_ci`: utf8mb4_unicode_ci, latin1_swedish_ci, ...)
/// is utf8mb4_general_ci, a case-sensitive one (`*_bin`, `*_cs`) utf8mb4_bin. MySQL 8's
/// `*_0900_*` collations are unknown to MariaDB 10.11, as any other name: 1273.
pub fn declared_collation(name: &str) -> Result<Collation> {
    let lower = name.to_ascii_lowercase();
    let charset_known = lower
        .split_once('_')
        .is_some_and(|(charset, _)| CHARSETS.contains(&charset));
    match lower.rsplit('_').next() {
        _ if lower == "binary" => Ok(Collation::Utf8mb4Bin),
        _ if !charset_known || lower.contains("_0900_") => Err(unknown_collation(name)),
        Some("ci") => Ok(Collation::Utf8mb4GeneralCi),
        Some("bin" | "cs") => Ok(Collation::Utf8mb4Bin),
        _ => Err(unknown_collation(name)),
    }
}

fn unknown_collation(name: &str) -> Error {
    Error::new(
        ErrorCode::UnknownCollation,
        format!("Unknown collation: '{name}'"),
    )
}

/// The collation a column definition declares (COLLATE, or BINARY, which the dialect
/// reads as COLLATE utf8mb4_bin), if it declares one.
fn column_collation(def: &ast::ColumnDef) -> Result<Option<Collation>> {
    let mut declared = None;
    for option in &def.options {
        if let ast::ColumnOption::Collation(name) = &option.option {
            let name = name.0.last().map(object_part).unwrap_or_default();
            declared = Some(declared_collation(&name)?);
        }
    }
    Ok(declared)
}

/// The column a definition declares, from its type and its own options (NULL, DEFAULT,
/// AUTO_INCREMENT, COMMENT, ON UPDATE, COLLATE: else `default_collation`); the key
/// options (PRIMARY KEY, UNIQUE, REFERENCES, CHECK) are the caller's to place.
pub fn column_schema(
    def: &ast::ColumnDef,
    default_collation: Collation,
    session: &dyn SessionContext,
) -> Result<ColumnSchema> {
    let column_name = def.name.value.clone();
    let data_type = column_type(&column_name, &def.data_type)?;
    let data_type = match column_collation(def)? {
        Some(collation) => data_type.with_collation(collation),
        // JSON is utf8mb4_bin whatever the table's default.
        None if def.data_type == ast::DataType::JSON => data_type,
        None => data_type.with_collation(default_collation),
    };
    check_members(&column_name, &data_type, session)?;
    let mut column = ColumnSchema {
        name: column_name.clone(),
        data_type,
        nullable: true,
        default: ColumnDefault::None,
        auto_increment: false,
        on_update_current_timestamp: false,
        comment: String::new(),
        display_width: display_width(&def.data_type),
        generated: None,
    };
    let mut default_expr = None;
    for option in &def.options {
        match &option.option {
            ast::ColumnOption::Null => column.nullable = true,
            ast::ColumnOption::NotNull => column.nullable = false,
            ast::ColumnOption::Default(e) => default_expr = Some(e.clone()),
            ast::ColumnOption::DialectSpecific(tokens) => {
                let text: String = tokens
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(" ");
                if text.eq_ignore_ascii_case("AUTO_INCREMENT") {
                    // MariaDB's grammar makes the column NOT NULL here; a NULL written
                    // after AUTO_INCREMENT makes it nullable again.
                    column.auto_increment = true;
                    column.nullable = false;
                } else {
                    return Err(Error::not_supported(&format!("column option {text}")));
                }
            }
            ast::ColumnOption::Comment(c) => column.comment = c.clone(),
            ast::ColumnOption::OnUpdate(e) if is_current_timestamp(e) => {
                if !matches!(
                    column.data_type,
                    DataType::DateTime { .. } | DataType::Timestamp { .. }
                ) {
                    return Err(Error::new(
                        ErrorCode::InvalidOnUpdate,
                        format!("Invalid ON UPDATE clause for '{column_name}' column"),
                    ));
                }
                column.on_update_current_timestamp = true;
            }
            // The data type's collation, above; CHARACTER SET is utf8mb4's (module doc).
            ast::ColumnOption::CharacterSet(_) | ast::ColumnOption::Collation(_) => {}
            // Placed by the caller.
            ast::ColumnOption::PrimaryKey(_)
            | ast::ColumnOption::Unique(_)
            | ast::ColumnOption::ForeignKey(_)
            | ast::ColumnOption::Check(_) => {}
            ast::ColumnOption::Generated { .. } => {
                column.generated = crate::generated::definition(&def.options)
            }
            other => return Err(Error::not_supported(&format!("column option {other}"))),
        }
    }
    if let Some(e) = default_expr {
        column.default = column_default(&column, &e, session)?;
    }
    Ok(column)
}

/// The DEFAULT `e` of `column` (its definition, ALTER COLUMN SET DEFAULT): DEFAULT NULL is
/// no default, and invalid on a NOT NULL column.
pub fn column_default(
    column: &ColumnSchema,
    e: &ast::Expr,
    session: &dyn SessionContext,
) -> Result<ColumnDefault> {
    match default_value(&column.name, &column.data_type, e, session)? {
        ColumnDefault::Value(Value::Null) if !column.nullable => Err(invalid_default(&column.name)),
        ColumnDefault::Value(Value::Null) => Ok(ColumnDefault::None),
        default => Ok(default),
    }
}

pub fn table_definition(
    create: &ast::CreateTable,
    db: &str,
    database_collation: Collation,
    session: &dyn SessionContext,
) -> Result<TableDefinition> {
    definition_with(create, db, database_collation, session, Vec::new())
}

/// The table `create` defines, with the columns `from_query` after its own: a CREATE
/// TABLE ... SELECT's keys may name the query's columns (`select_definition`).
fn definition_with(
    create: &ast::CreateTable,
    db: &str,
    database_collation: Collation,
    session: &dyn SessionContext,
    from_query: Vec<ColumnSchema>,
) -> Result<TableDefinition> {
    let name = create.name.0.last().map(object_part).unwrap_or_default();
    check_table_name(&name)?;
    if create.columns.is_empty() && from_query.is_empty() {
        // MariaDB's grammar has no empty column list: `CREATE TABLE t ()` is a syntax error.
        return Err(Error::parse_near(")", 1));
    }
    let mut columns: Vec<ColumnSchema> = Vec::new();
    let mut primary_key: Option<Vec<usize>> = None;
    // Unnamed keys are named in declaration order, FULLTEXT ones too, as in MariaDB.
    let mut pending_indexes: Vec<PendingIndex> = Vec::new();
    let mut foreign_keys = Vec::new();
    let multiple_primary = || Error::new(ErrorCode::MultiplePriKey, "Multiple primary key defined");
    let default_collation = table_collation(&create.table_options, database_collation)?;
    for (position, def) in create.columns.iter().enumerate() {
        let column_name = def.name.value.clone();
        if columns
            .iter()
            .any(|c| c.name.eq_ignore_ascii_case(&column_name))
        {
            return Err(Error::duplicate_column(&column_name));
        }
        let column = column_schema(def, default_collation, session)?;
        for option in &def.options {
            match &option.option {
                ast::ColumnOption::PrimaryKey(_) => {
                    if primary_key.is_some() {
                        return Err(multiple_primary());
                    }
                    primary_key = Some(vec![position]);
                }
                ast::ColumnOption::Unique(_) => {
                    pending_indexes.push((None, vec![(position, None)], KeyKind::Unique, false))
                }
                ast::ColumnOption::ForeignKey(fk) => {
                    // MariaDB 10.11 keeps a column-level REFERENCES as a foreign key.
                    let declared = foreign_key::declare(fk, Some(position), &columns, db)?;
                    pending_indexes.push((
                        declared.name.as_deref().map(ast::Ident::new),
                        vec![(position, None)],
                        KeyKind::Plain,
                        true,
                    ));
                    foreign_keys.push(declared);
                }
                _ => {} // The column's own options: `column_schema`.
            }
        }
        columns.push(column);
    }
    columns.extend(from_query);
    for constraint in &create.constraints {
        match constraint {
            ast::TableConstraint::PrimaryKey(pk) => {
                if primary_key.is_some() {
                    return Err(multiple_primary());
                }
                ignore_primary_key_name(pk, session);
                primary_key = Some(primary_key_columns(&pk.columns, &columns)?);
            }
            ast::TableConstraint::Unique(u) => {
                let cols = index_columns(&u.columns, &columns)?;
                let name = u.index_name.clone().or(u.name.clone());
                pending_indexes.push((name, cols, KeyKind::Unique, false));
            }
            ast::TableConstraint::Index(i) => {
                let cols = index_columns(&i.columns, &columns)?;
                pending_indexes.push((i.name.clone(), cols, KeyKind::Plain, false));
            }
            ast::TableConstraint::ForeignKey(fk) => {
                let declared = foreign_key::declare(fk, None, &columns, db)?;
                let cols = declared.columns.iter().map(|&c| (c, None)).collect();
                pending_indexes.push((
                    declared.name.as_deref().map(ast::Ident::new),
                    cols,
                    KeyKind::Plain,
                    true,
                ));
                foreign_keys.push(declared);
            }
            // Collected by `check::definitions`.
            ast::TableConstraint::Check(_) => {}
            ast::TableConstraint::FulltextOrSpatial(k) if k.fulltext => {
                let cols = fulltext_columns(&k.columns, &columns)?;
                let cols = cols.into_iter().map(|c| (c, None)).collect();
                pending_indexes.push((k.opt_index_name.clone(), cols, KeyKind::Fulltext, false));
            }
            other => return Err(Error::not_supported(&format!("constraint {other}"))),
        }
    }
    if let Some(pk) = &primary_key {
        for &c in pk {
            // MariaDB 10.11 silently makes even an explicit NULL column NOT NULL here.
            columns[c].nullable = false;
        }
    }
    drop_covered_foreign_key_indexes(&mut pending_indexes, primary_key.as_deref());
    let mut comment = String::new();
    let mut auto_increment_start = None;
    let kept_options = create_options(create, db, &name, database_collation, session)?;
    for option in table_options(&create.table_options) {
        match option {
            ast::SqlOption::Comment(ast::CommentDef::WithEq(c) | ast::CommentDef::WithoutEq(c)) => {
                comment = c.clone()
            }
            ast::SqlOption::KeyValue {
                key,
                value: ast::Expr::Value(v),
            } if key.value.eq_ignore_ascii_case("AUTO_INCREMENT") => {
                if let ast::Value::Number(n, _) = &v.value {
                    auto_increment_start = n.parse().ok();
                }
            }
            _ => {} // ENGINE, CHARSET, ...: accepted (module doc); `create_options`.
        }
    }
    let foreign_keys = foreign_key::name_all(&name, &[], foreign_keys);
    let mut schema = TableSchema {
        name,
        columns,
        primary_key,
        indexes: Vec::new(),
        fulltext_indexes: Vec::new(),
        comment,
        options: kept_options,
        foreign_keys,
        checks: crate::check::definitions(create)?,
    };
    for (name, cols, kind, _) in pending_indexes {
        match kind {
            KeyKind::Fulltext => {
                let cols = cols.into_iter().map(|(c, _)| c).collect();
                add_fulltext_index(&mut schema, name.as_ref(), cols)?;
            }
            _ => add_index(&mut schema, name.as_ref(), cols, kind == KeyKind::Unique)?,
        }
    }
    check_auto_column(
        &schema.columns,
        schema.primary_key.as_deref(),
        &schema.indexes,
    )?;
    crate::check::validate(&schema)?;
    crate::generated::validate(&schema)?;
    Ok(TableDefinition {
        schema,
        auto_increment_start,
    })
}

/// A CREATE TABLE's table options, however sqlparser grouped them.
pub(crate) fn table_options(options: &ast::CreateTableOptions) -> &[ast::SqlOption] {
    match options {
        ast::CreateTableOptions::Plain(o)
        | ast::CreateTableOptions::With(o)
        | ast::CreateTableOptions::Options(o)
        | ast::CreateTableOptions::TableProperties(o) => o.as_slice(),
        ast::CreateTableOptions::None => &[],
    }
}

/// The options a CREATE TABLE keeps: its default collation and ROW_FORMAT. A ROW_FORMAT
/// InnoDB does not have (FIXED, PAGE) fails as InnoDB's strict mode fails it: 1005,
/// after the warning 1478 and before 1030.
fn create_options(
    create: &ast::CreateTable,
    db: &str,
    name: &str,
    database_collation: Collation,
    session: &dyn SessionContext,
) -> Result<TableOptions> {
    let mut row_format = None;
    for option in table_options(&create.table_options) {
        if let ast::SqlOption::KeyValue { key, value } = option {
            if key.value.eq_ignore_ascii_case("ROW_FORMAT") {
                let word = option_word(value);
                row_format = match self::row_format(&word) {
                    Ok(format) => format,
                    Err(e) if e.code == ErrorCode::IllegalHaCreateOption => {
                        session.warn(e.code, "InnoDB: invalid ROW_FORMAT specifier.".into());
                        let engine_error = Error::new(
                            ErrorCode::GetErrno,
                            "Got error 140 \"Wrong create options\" from storage engine InnoDB",
                        );
                        return Err(Error {
                            trailing_warning: Some(Box::new(engine_error)),
                            ..Error::new(
                                ErrorCode::CantCreateTable,
                                format!(
                                    "Can't create table `{db}`.`{name}` (errno: 140 \"Wrong \
                                     create options\")"
                                ),
                            )
                        });
                    }
                    Err(e) => return Err(e),
                };
            }
        }
    }
    Ok(TableOptions {
        default_collation: table_collation(&create.table_options, database_collation)?,
        row_format,
    })
}

/// A ROW_FORMAT's word (any case): None for DEFAULT; FIXED and PAGE, which InnoDB does not
/// have, are 1478 (MariaDB names the option by its internal name, ROW_TYPE). Other words
/// are a syntax error, as in MariaDB's grammar.
pub fn row_format(word: &str) -> Result<Option<RowFormat>> {
    if word.eq_ignore_ascii_case("DEFAULT") {
        return Ok(None);
    }
    if ["FIXED", "PAGE"]
        .iter()
        .any(|w| w.eq_ignore_ascii_case(word))
    {
        return Err(Error::new(
            ErrorCode::IllegalHaCreateOption,
            "Table storage engine 'InnoDB' does not support the create option 'ROW_TYPE'",
        ));
    }
    RowFormat::ALL
        .into_iter()
        .find(|f| f.keyword().eq_ignore_ascii_case(word))
        .map(Some)
        .ok_or_else(|| Error::parse_near(word, 1))
}

/// An option's value written as a word or a quoted string.
fn option_word(value: &ast::Expr) -> String {
    match value {
        ast::Expr::Identifier(name) => name.value.clone(),
        ast::Expr::Value(v) => match &v.value {
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => s.clone(),
            other => other.to_string(),
        },
        other => other.to_string(),
    }
}

/// The default collation a CREATE TABLE's `[DEFAULT] CHARSET [=] charset` and `[DEFAULT]
/// COLLATE [=] name` give its character columns; the database's (`database_collation`)
/// without either.
fn table_collation(
    options: &ast::CreateTableOptions,
    database_collation: Collation,
) -> Result<Collation> {
    let (mut charset, mut collation) = (None, None);
    for option in table_options(options) {
        if let ast::SqlOption::KeyValue { key, value } = option {
            match key.value.to_ascii_uppercase().as_str() {
                "COLLATE" | "DEFAULT COLLATE" => collation = Some(option_word(value)),
                "CHARSET" | "DEFAULT CHARSET" | "CHARACTER SET" | "DEFAULT CHARACTER SET" => {
                    charset = Some(option_word(value))
                }
                _ => {}
            }
        }
    }
    default_collation(charset.as_deref(), collation.as_deref(), database_collation)
}

/// The default collation of database `db`'s new tables (the server's, utf8mb4_general_ci,
/// if there is no such database).
pub fn database_collation(catalog: &manycore_storage::Catalog, db: &str) -> Collation {
    catalog
        .databases
        .get(db)
        .map_or(Collation::Utf8mb4GeneralCi, |database| database.collation)
}

/// The default collation `[DEFAULT] CHARACTER SET charset` and `[DEFAULT] COLLATE name`
/// declare, a database's or a table's: the collation named (1253 if it is not of the
/// character set given too), else the character set's default (1115 if it is unknown),
/// else `inherited` (the server's for a database, its database's for a table). As for
/// columns, the collation is utf8mb4's of the same case sensitivity (`declared_collation`):
/// another character set is accepted and stored as utf8mb4.
pub fn default_collation(
    charset: Option<&str>,
    collation: Option<&str>,
    inherited: Collation,
) -> Result<Collation> {
    let charset = match charset {
        Some(name) => Some(
            crate::information_schema::charset_default_collation(name)
                .ok_or_else(|| Error::unknown_charset(name))?,
        ),
        None => None,
    };
    match (charset, collation) {
        (charset, Some(name)) => {
            let declared = declared_collation(name)?;
            // MariaDB names utf8 collations utf8mb3 (old_mode UTF8_IS_UTF8MB3).
            let lower = name.to_ascii_lowercase();
            let shown = match lower.strip_prefix("utf8_") {
                Some(rest) => format!("utf8mb3_{rest}"),
                None => lower,
            };
            if let Some((charset, _)) = charset {
                let of_charset = shown == charset || shown.starts_with(&format!("{charset}_"));
                if !of_charset {
                    return Err(Error::new(
                        ErrorCode::CollationCharsetMismatch,
                        format!("COLLATION '{shown}' is not valid for CHARACTER SET '{charset}'"),
                    ));
                }
            }
            Ok(declared)
        }
        (Some((_, charset_default)), None) => declared_collation(charset_default),
        (None, None) => Ok(inherited),
    }
}

/// At most one AUTO_INCREMENT column, numeric and first in a key (1075 otherwise).
pub fn check_auto_column(
    columns: &[ColumnSchema],
    primary_key: Option<&[usize]>,
    indexes: &[IndexSchema],
) -> Result<()> {
    let autos: Vec<usize> = (0..columns.len())
        .filter(|&i| columns[i].auto_increment)
        .collect();
    if let Some(&a) = autos.first() {
        let leads_key =
            primary_key.is_some_and(|pk| pk[0] == a) || indexes.iter().any(|i| i.columns[0] == a);
        if autos.len() > 1 || !leads_key || !columns[a].data_type.is_numeric() {
            return Err(Error::new(
                ErrorCode::WrongAutoKey,
                "Incorrect table definition; there can be only one auto column and it must be defined as a key",
            ));
        }
    }
    Ok(())
}

/// 1280: PRIMARY named where only the primary key may be.
pub fn wrong_index_name(name: &str) -> Error {
    Error::new(
        ErrorCode::WrongNameForIndex,
        format!("Incorrect index name '{name}'"),
    )
}

/// An index added by CREATE INDEX or ALTER TABLE ADD INDEX/UNIQUE.
pub fn add_index_definition(
    schema: &mut TableSchema,
    name: Option<&ast::Ident>,
    columns: &[ast::IndexColumn],
    unique: bool,
) -> Result<()> {
    let cols = index_columns(columns, &schema.columns)?;
    add_index(schema, name, cols, unique)
}

/// A FULLTEXT index added by CREATE FULLTEXT INDEX or ALTER TABLE ADD FULLTEXT.
pub fn add_fulltext_definition(
    schema: &mut TableSchema,
    name: Option<&ast::Ident>,
    columns: &[ast::IndexColumn],
) -> Result<()> {
    let cols = fulltext_columns(columns, &schema.columns)?;
    add_fulltext_index(schema, name, cols)
}

/// The index ALTER TABLE ADD FOREIGN KEY adds when no index leads with the key's columns:
/// named after the constraint if it has a name, else after its first column.
pub fn add_foreign_key_index(
    schema: &mut TableSchema,
    name: Option<&str>,
    columns: &[usize],
) -> Result<()> {
    let name = name.map(ast::Ident::new);
    let parts = columns.iter().map(|&c| (c, None)).collect();
    add_index(schema, name.as_ref(), parts, false)
}

/// Table name parts: (db or None, table).
pub fn split_name(name: &ast::ObjectName) -> Result<(Option<String>, String)> {
    let parts: Vec<String> = name.0.iter().map(object_part).collect();
    match parts.as_slice() {
        [t] => Ok((None, t.clone())),
        [d, t] => Ok((Some(d.clone()), t.clone())),
        _ => Err(Error::not_supported("multi-part names")),
    }
}

/// DOUBLE, FLOAT, or either with (M,D), [UNSIGNED]: with M and D, values are stored
/// rounded to D decimals and must stay below 10^(M-D) (`expr::convert`). MariaDB's limits:
/// M <= 255, D <= 30, D <= M. FLOAT(p), a single precision, is a FLOAT up to 24 and a
/// DOUBLE up to 53; more is error 1063.
fn declared_floating(
    info: &ast::ExactNumberInfo,
    single: bool,
    unsigned: bool,
    name: &str,
) -> Result<DataType> {
    let plain = |single: bool| match single {
        true => DataType::FLOAT.with_unsigned(unsigned),
        false => DataType::DOUBLE.with_unsigned(unsigned),
    };
    let (precision, decimals) = match info {
        ast::ExactNumberInfo::None => return Ok(plain(single)),
        ast::ExactNumberInfo::Precision(p) if single => {
            if *p > 53 {
                return Err(Error::new(
                    ErrorCode::WrongFieldSpec,
                    format!("Incorrect column specifier for column '{name}'"),
                ));
            }
            return Ok(plain(*p <= 24));
        }
        ast::ExactNumberInfo::Precision(_) => return Err(Error::parse_near(")", 1)),
        ast::ExactNumberInfo::PrecisionAndScale(m, d) => (*m, (*d).max(0) as u64),
    };
    if precision > 255 {
        return Err(Error::new(
            ErrorCode::TooBigDisplaywidth,
            format!("Display width out of range for '{name}' (max = 255)"),
        ));
    }
    let max_decimals = u64::from(NOT_FIXED_DECIMALS) - 1;
    expr::check_scale(decimals, max_decimals, precision, name, name)?;
    let (decimals, precision) = (decimals as u8, Some(precision.max(1) as u8));
    Ok(match single {
        true => DataType::Float {
            decimals,
            precision,
            unsigned,
        },
        false => DataType::Double {
            decimals,
            precision,
            unsigned,
        },
    })
}
