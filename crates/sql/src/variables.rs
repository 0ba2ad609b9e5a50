//! System variables: their definitions (scope, type, read-only), global values, and the
//! per-session copies.
//!
//! A session copies the global value of every variable that has a session scope when it
//! starts (and on COM_RESET_CONNECTION), so reading a session variable on the hot path
//! touches only the session's own memory. Global-only variables are read from the
//! engine's map under a read lock; they are rarely read (clients ask once per connection).
//!
//! Invariants:
//! (1) Every stored value has its definition's representation: `Bool` as `Value::Int(0|1)`,
//!     `UInt` as `Value::UInt`, `Double` as `Value::Double`, strings as `Value::Bytes`
//!     (`StrOrNull` also as `Value::Null`),
//!     so `SELECT @@x` and `SHOW VARIABLES` agree with MariaDB (1 vs ON).
//! (2) `SET` validates before storing: a rejected value changes nothing.

use crate::error::{Error, ErrorCode, Result};
use manycore_types::{DataType, IntWidth, Value};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarScopeKind {
    Global,
    Session,
    Both,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum VarKind {
    Bool,
    UInt {
        min: u64,
        max: u64,
    },
    Double,
    Str,
    /// A string that may also be NULL: `character_set_results`, where NULL asks for
    /// results as stored (MySQL Connector/J sets it at connect).
    StrOrNull,
    Enum(&'static [&'static str]),
    /// A comma-separated subset of the given names (sql_mode).
    Set(&'static [&'static str]),
    /// `SYSTEM` or an offset (`expr::TimeZone`), kept as its normalized name.
    TimeZone,
}

#[derive(Debug)]
pub struct VarDef {
    pub name: &'static str,
    pub scope: VarScopeKind,
    pub kind: VarKind,
    pub read_only: bool,
    /// Default as text, None for NULL (`StrOrNull` only); `Engine` overrides the
    /// config-dependent ones.
    pub default: Option<&'static str>,
}

use VarKind::*;
use VarScopeKind::*;

const fn def(
    name: &'static str,
    scope: VarScopeKind,
    kind: VarKind,
    read_only: bool,
    default: &'static str,
) -> VarDef {
    VarDef {
        name,
        scope,
        kind,
        read_only,
        default: Some(default),
    }
}

/// A `StrOrNull` variable that starts as NULL.
const fn def_null(name: &'static str, scope: VarScopeKind, read_only: bool) -> VarDef {
    VarDef {
        name,
        scope,
        kind: StrOrNull,
        read_only,
        default: None,
    }
}

const U32: VarKind = UInt {
    min: 0,
    max: u32::MAX as u64,
};
const U64: VarKind = UInt {
    min: 0,
    max: u64::MAX,
};
const ISOLATION: &[&str] = &[
    "READ-UNCOMMITTED",
    "READ-COMMITTED",
    "REPEATABLE-READ",
    "SERIALIZABLE",
];

/// MariaDB's sql_mode names in bit order (the order SELECT @@sql_mode prints them).
pub const SQL_MODES: &[&str] = &[
    "REAL_AS_FLOAT",
    "PIPES_AS_CONCAT",
    "ANSI_QUOTES",
    "IGNORE_SPACE",
    "IGNORE_BAD_TABLE_OPTIONS",
    "ONLY_FULL_GROUP_BY",
    "NO_UNSIGNED_SUBTRACTION",
    "NO_DIR_IN_CREATE",
    "POSTGRESQL",
    "ORACLE",
    "MSSQL",
    "DB2",
    "MAXDB",
    "NO_KEY_OPTIONS",
    "NO_TABLE_OPTIONS",
    "NO_FIELD_OPTIONS",
    "MYSQL323",
    "MYSQL40",
    "ANSI",
    "NO_AUTO_VALUE_ON_ZERO",
    "NO_BACKSLASH_ESCAPES",
    "STRICT_TRANS_TABLES",
    "STRICT_ALL_TABLES",
    "NO_ZERO_IN_DATE",
    "NO_ZERO_DATE",
    "ALLOW_INVALID_DATES",
    "ERROR_FOR_DIVISION_BY_ZERO",
    "TRADITIONAL",
    "NO_AUTO_CREATE_USER",
    "HIGH_NOT_PRECEDENCE",
    "NO_ENGINE_SUBSTITUTION",
    "PAD_CHAR_TO_FULL_LENGTH",
    "EMPTY_STRING_IS_NULL",
    "SIMULTANEOUS_ASSIGNMENT",
    "TIME_ROUND_FRACTIONAL",
];

pub const DEFAULT_SQL_MODE: &str =
    "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION";

/// Variables computed by the session from its state rather than stored.
pub const COMPUTED_SESSION_VARIABLES: &[&str] = &[
    "warning_count",
    "error_count",
    "last_insert_id",
    "identity",
    "insert_id",
    "in_transaction",
    "timestamp",
    "pseudo_thread_id",
];

/// Every variable manycore knows, sorted by name (SHOW VARIABLES order).
pub static VARIABLES: &[VarDef] = &[
    def(
        "auto_increment_increment",
        Both,
        UInt { min: 1, max: 65535 },
        false,
        "1",
    ),
    def(
        "auto_increment_offset",
        Both,
        UInt { min: 1, max: 65535 },
        false,
        "1",
    ),
    def("autocommit", Both, Bool, false, "ON"),
    def("automatic_sp_privileges", Global, Bool, false, "ON"),
    def("back_log", Global, U32, true, "80"),
    def("basedir", Global, Str, true, "/usr/"),
    def("big_tables", Both, Bool, false, "OFF"),
    def("bind_address", Global, Str, true, "127.0.0.1"),
    // MySQL's names; the server sets both paths at startup.
    def(
        "caching_sha2_password_private_key_path",
        Global,
        Str,
        true,
        "",
    ),
    def(
        "caching_sha2_password_public_key_path",
        Global,
        Str,
        true,
        "",
    ),
    def("character_set_client", Both, Str, false, "utf8mb4"),
    def("character_set_connection", Both, Str, false, "utf8mb4"),
    def("character_set_database", Both, Str, false, "utf8mb4"),
    def("character_set_filesystem", Both, Str, false, "binary"),
    def("character_set_results", Both, StrOrNull, false, "utf8mb4"),
    def("character_set_server", Both, Str, false, "utf8mb4"),
    def("character_set_system", Global, Str, true, "utf8mb3"),
    // OFF skips CHECK constraints (`check` module invariant (2)).
    def("check_constraint_checks", Both, Bool, false, "ON"),
    def(
        "collation_connection",
        Both,
        Str,
        false,
        "utf8mb4_general_ci",
    ),
    def("collation_database", Both, Str, false, "utf8mb4_general_ci"),
    def("collation_server", Both, Str, false, "utf8mb4_general_ci"),
    def(
        "completion_type",
        Both,
        Enum(&["NO_CHAIN", "CHAIN", "RELEASE"]),
        false,
        "NO_CHAIN",
    ),
    def(
        "connect_timeout",
        Global,
        UInt {
            min: 2,
            max: 31_536_000,
        },
        false,
        "10",
    ),
    def("datadir", Global, Str, true, ""),
    def("default_storage_engine", Both, Str, false, "InnoDB"),
    def("default_tmp_storage_engine", Both, Str, false, ""),
    def(
        "default_week_format",
        Both,
        UInt { min: 0, max: 7 },
        false,
        "0",
    ),
    def(
        "div_precision_increment",
        Both,
        UInt { min: 0, max: 38 },
        false,
        "4",
    ),
    def("explicit_defaults_for_timestamp", Both, Bool, false, "ON"),
    def("foreign_key_checks", Both, Bool, false, "ON"),
    def("general_log", Global, Bool, false, "OFF"),
    def(
        "group_concat_max_len",
        Both,
        UInt {
            min: 4,
            max: u32::MAX as u64,
        },
        false,
        "1048576",
    ),
    def("have_compress", Global, Str, true, "NO"),
    def("have_dynamic_loading", Global, Str, true, "NO"),
    def("have_openssl", Global, Str, true, "NO"),
    def("have_query_cache", Global, Str, true, "NO"),
    def("have_ssl", Global, Str, true, "DISABLED"),
    def("have_symlink", Global, Str, true, "NO"),
    def("hostname", Global, Str, true, "localhost"),
    def("init_connect", Global, Str, false, ""),
    def(
        "innodb_lock_wait_timeout",
        Both,
        UInt {
            min: 0,
            max: 100_000_000,
        },
        false,
        "50",
    ),
    def(
        "interactive_timeout",
        Both,
        UInt {
            min: 1,
            max: 31_536_000,
        },
        false,
        "28800",
    ),
    def("join_buffer_size", Both, U64, false, "262144"),
    def("large_files_support", Global, Bool, true, "ON"),
    def("lc_time_names", Both, Str, false, "en_US"),
    def("license", Global, Str, true, "Apache-2.0"),
    // LOAD DATA LOCAL INFILE is served (`load_data`); read-only here.
    def("local_infile", Global, Bool, true, "ON"),
    def(
        "lock_wait_timeout",
        Both,
        UInt {
            min: 0,
            max: 31_536_000,
        },
        false,
        "86400",
    ),
    def("log_bin", Global, Bool, true, "OFF"),
    def("log_error", Global, Str, true, ""),
    def("log_warnings", Both, U32, false, "2"),
    def("long_query_time", Both, Double, false, "10"),
    def(
        "lower_case_table_names",
        Global,
        UInt { min: 0, max: 2 },
        true,
        "0",
    ),
    def(
        "max_allowed_packet",
        Both,
        UInt {
            min: 1024,
            max: 1_073_741_824,
        },
        false,
        "16777216",
    ),
    def(
        "max_connections",
        Global,
        UInt {
            min: 10,
            max: 100_000,
        },
        false,
        "151",
    ),
    def(
        "max_error_count",
        Both,
        UInt { min: 0, max: 65535 },
        false,
        "64",
    ),
    def("max_heap_table_size", Both, U64, false, "16777216"),
    def("max_join_size", Both, U64, false, "18446744073709551615"),
    def("max_recursive_iterations", Both, U32, false, "1000"),
    def(
        "max_sp_recursion_depth",
        Both,
        UInt { min: 0, max: 255 },
        false,
        "0",
    ),
    def("max_statement_time", Both, Double, false, "0"),
    def("max_user_connections", Both, U32, false, "0"),
    def(
        "net_buffer_length",
        Both,
        UInt {
            min: 1024,
            max: 1_048_576,
        },
        false,
        "16384",
    ),
    def(
        "net_read_timeout",
        Both,
        UInt {
            min: 1,
            max: 31_536_000,
        },
        false,
        "30",
    ),
    def("net_retry_count", Both, U32, false, "10"),
    def(
        "net_write_timeout",
        Both,
        UInt {
            min: 1,
            max: 31_536_000,
        },
        false,
        "60",
    ),
    def("old_mode", Both, Str, false, "UTF8_IS_UTF8MB3"),
    def("open_files_limit", Global, U64, true, "20000"),
    def("performance_schema", Global, Bool, true, "OFF"),
    def("pid_file", Global, Str, true, ""),
    def("port", Global, U32, true, "3306"),
    def("profiling", Both, Bool, false, "OFF"),
    def("protocol_version", Global, U32, true, "10"),
    def("query_cache_size", Global, U64, false, "0"),
    def(
        "query_cache_type",
        Both,
        Enum(&["OFF", "ON", "DEMAND"]),
        false,
        "OFF",
    ),
    def("read_buffer_size", Both, U64, false, "131072"),
    def("read_only", Global, Bool, false, "OFF"),
    def("require_secure_transport", Global, Bool, false, "OFF"),
    // NULL unless `serve --secure-file-priv DIR` gave the directory (`Engine::new`): files
    // on the server are then refused (1290), the meaning security guides give NULL.
    def_null("secure_file_priv", Global, true),
    def("server_id", Both, U32, false, "1"),
    def("session_track_schema", Both, Bool, false, "ON"),
    def("session_track_state_change", Both, Bool, false, "OFF"),
    def(
        "session_track_system_variables",
        Both,
        Str,
        false,
        "autocommit,character_set_client,character_set_connection,character_set_results,time_zone",
    ),
    def(
        "session_track_transaction_info",
        Both,
        Enum(&["OFF", "STATE", "CHARACTERISTICS"]),
        false,
        "OFF",
    ),
    def("skip_name_resolve", Global, Bool, true, "OFF"),
    def("skip_networking", Global, Bool, true, "OFF"),
    def("slow_query_log", Global, Bool, false, "OFF"),
    def("socket", Global, Str, true, ""),
    def("sort_buffer_size", Both, U64, false, "2097152"),
    def("sql_auto_is_null", Both, Bool, false, "OFF"),
    def("sql_big_selects", Both, Bool, false, "ON"),
    def("sql_buffer_result", Both, Bool, false, "OFF"),
    def("sql_log_bin", Both, Bool, false, "ON"),
    def("sql_mode", Both, Set(SQL_MODES), false, DEFAULT_SQL_MODE),
    def("sql_notes", Both, Bool, false, "ON"),
    def("sql_quote_show_create", Both, Bool, false, "ON"),
    def("sql_safe_updates", Both, Bool, false, "OFF"),
    def("sql_select_limit", Both, U64, false, "18446744073709551615"),
    def("sql_warnings", Both, Bool, false, "OFF"),
    def("ssl_ca", Global, Str, true, ""),
    def("ssl_cert", Global, Str, true, ""),
    def("ssl_cipher", Global, Str, true, ""),
    def("ssl_key", Global, Str, true, ""),
    def("storage_engine", Both, Str, false, "InnoDB"),
    def("system_time_zone", Global, Str, true, "UTC"),
    def("table_open_cache", Global, U32, false, "2000"),
    def("thread_cache_size", Global, U32, false, "151"),
    def("thread_handling", Global, Str, true, "pool-of-threads"),
    def("thread_stack", Global, U64, true, "299008"),
    def("time_zone", Both, TimeZone, false, "SYSTEM"),
    def("tls_version", Global, Str, true, "TLSv1.2,TLSv1.3"),
    def("tmp_table_size", Both, U64, false, "16777216"),
    def("tmpdir", Global, Str, true, "/tmp"),
    // MariaDB 10.11 has only tx_*; the transaction_* names (MySQL 8, MariaDB 11.1) are
    // kept too because drivers written for MySQL read them.
    def(
        "transaction_isolation",
        Both,
        Enum(ISOLATION),
        false,
        "REPEATABLE-READ",
    ),
    def("transaction_read_only", Both, Bool, false, "OFF"),
    def(
        "tx_isolation",
        Both,
        Enum(ISOLATION),
        false,
        "REPEATABLE-READ",
    ),
    def("tx_read_only", Both, Bool, false, "OFF"),
    def("unique_checks", Both, Bool, false, "ON"),
    def("version", Global, Str, true, ""),
    def("version_comment", Global, Str, true, "manycore"),
    def(
        "version_compile_machine",
        Global,
        Str,
        true,
        std::env::consts::ARCH,
    ),
    def("version_compile_os", Global, Str, true, "Linux"),
    def("version_malloc_library", Global, Str, true, "system"),
    def("version_ssl_library", Global, Str, true, ""),
    def(
        "wait_timeout",
        Both,
        UInt {
            min: 1,
            max: 31_536_000,
        },
        false,
        "28800",
    ),
];

pub fn lookup(name: &str) -> Option<&'static VarDef> {
    VARIABLES.iter().find(|v| v.name.eq_ignore_ascii_case(name))
}

/// The type `SELECT @@name` reports: MariaDB gives boolean and integer variables (and the
/// computed counters) BIGINT, DOUBLE ones DOUBLE, the rest strings. None: a string.
pub fn value_type(name: &str) -> Option<DataType> {
    let big = |unsigned| DataType::Int {
        width: IntWidth::Big,
        unsigned,
    };
    match name {
        "warning_count" | "error_count" | "last_insert_id" | "identity" | "insert_id"
        | "pseudo_thread_id" => return Some(big(true)),
        "in_transaction" => return Some(big(false)),
        "timestamp" => return Some(DataType::DOUBLE),
        _ => {}
    }
    match lookup(name)?.kind {
        Bool => Some(big(false)),
        UInt { .. } => Some(big(true)),
        Double => Some(DataType::DOUBLE),
        Str | StrOrNull | Enum(_) | Set(_) | TimeZone => None,
    }
}

/// `value` in the representation of `value_type` (mod expr invariant (1)).
pub fn typed_value(value: Value, data_type: &DataType) -> Value {
    match (data_type, value) {
        (_, Value::Null) => Value::Null,
        (DataType::Int { .. }, v @ (Value::Int(_) | Value::UInt(_))) => v,
        (DataType::Double { .. }, Value::Double(d)) => Value::Double(d),
        (DataType::Int { .. } | DataType::Double { .. }, v) => {
            let text = value_text(&v);
            if let Ok(i) = text.parse::<i64>() {
                Value::Int(i)
            } else if let Ok(u) = text.parse::<u64>() {
                Value::UInt(u)
            } else if let Ok(d) = text.parse::<f64>() {
                Value::Double(d)
            } else {
                Value::Bytes(text.into_bytes())
            }
        }
        (_, v) => Value::Bytes(value_text(&v).into_bytes()),
    }
}

/// Variable values by name (names are the definitions' lowercase names). foldhash, not
/// SipHash: the names are ours, not the client's to choose.
pub type VarMap = foldhash::HashMap<&'static str, Value>;

/// The session-scope values of `globals`: what a new session starts from.
pub fn session_defaults(globals: &VarMap) -> VarMap {
    VARIABLES
        .iter()
        .filter(|d| d.scope != VarScopeKind::Global)
        .filter_map(|d| globals.get(d.name).map(|v| (d.name, v.clone())))
        .collect()
}

/// A session's system variables: the defaults it started with, shared with every session
/// that started under the same globals, and the values it set itself. A connection
/// then costs one reference count instead of a copy of every variable.
#[derive(Clone)]
pub struct SessionVars {
    defaults: Arc<VarMap>,
    set: VarMap,
}

impl SessionVars {
    pub fn new(defaults: Arc<VarMap>) -> SessionVars {
        SessionVars {
            defaults,
            set: VarMap::default(),
        }
    }

    pub fn get(&self, name: &str) -> Option<&Value> {
        self.set.get(name).or_else(|| self.defaults.get(name))
    }

    pub fn insert(&mut self, name: &'static str, value: Value) {
        self.set.insert(name, value);
    }
}

impl VarDef {
    /// The definition's default value (invariant (1)).
    pub fn default_value(&self) -> Value {
        match self.default {
            Some(text) => self.parse_default(text),
            None => Value::Null,
        }
    }

    /// Parses a default given as text (invariant (1)).
    pub fn parse_default(&self, text: &str) -> Value {
        self.parse_text(text).unwrap_or_else(|| Value::text(text))
    }

    fn parse_text(&self, text: &str) -> Option<Value> {
        Some(match self.kind {
            Bool => Value::Int(parse_bool_text(text)? as i64),
            UInt { .. } => Value::UInt(text.trim().parse().ok()?),
            Double => Value::Double(text.trim().parse().ok()?),
            Str | StrOrNull | Enum(_) | Set(_) | TimeZone => Value::text(text),
        })
    }

    /// Whether SET clamps `value` into the variable's range (`coerce`), which MariaDB
    /// warns of (1292).
    pub fn clamps(&self, value: &Value) -> bool {
        match (self.kind, value) {
            (UInt { min, max }, Value::Int(i)) => *i < 0 || (*i as u64) < min || *i as u64 > max,
            (UInt { min, max }, Value::UInt(u)) => *u < min || *u > max,
            _ => false,
        }
    }

    /// Validates and normalizes a value given to SET (invariant (2)). `DEFAULT` is
    /// handled by the caller.
    pub fn coerce(&self, value: &Value) -> Result<Value> {
        let bad = || wrong_value(self.name, value);
        match self.kind {
            Bool => match value {
                Value::Int(0) | Value::UInt(0) => Ok(Value::Int(0)),
                Value::Int(1) | Value::UInt(1) => Ok(Value::Int(1)),
                Value::Bytes(b) => {
                    let text = String::from_utf8_lossy(b);
                    parse_bool_text(&text)
                        .map(|b| Value::Int(b as i64))
                        .ok_or_else(bad)
                }
                Value::Double(d) if *d == 0.0 || *d == 1.0 => Ok(Value::Int(*d as i64)),
                Value::Decimal(d) if d.is_zero() || *d == manycore_types::Decimal::ONE => {
                    Ok(Value::Int(if d.is_zero() { 0 } else { 1 }))
                }
                _ => Err(bad()),
            },
            UInt { min, max } => {
                let n: u64 = match value {
                    Value::Int(i) if *i < 0 => min,
                    Value::Int(i) => *i as u64,
                    Value::UInt(u) => *u,
                    Value::Double(d) => return Err(wrong_type(self.name, d.is_finite())),
                    Value::Decimal(_) => return Err(wrong_type(self.name, true)),
                    Value::Bytes(_) => return Err(wrong_type(self.name, true)),
                    _ => return Err(bad()),
                };
                Ok(Value::UInt(n.clamp(min, max)))
            }
            Double => match value {
                Value::Int(i) => Ok(Value::Double(*i as f64)),
                Value::UInt(u) => Ok(Value::Double(*u as f64)),
                Value::Double(d) => Ok(Value::Double(*d)),
                Value::Decimal(d) => Ok(Value::Double(d.to_string().parse().map_err(|_| bad())?)),
                _ => Err(wrong_type(self.name, true)),
            },
            Str | StrOrNull => match value {
                Value::Bytes(b) => Ok(Value::Bytes(b.clone())),
                Value::Null if self.kind == StrOrNull => Ok(Value::Null),
                Value::Null => Err(bad()),
                other => Ok(Value::text(&value_text(other))),
            },
            Enum(names) => {
                let found = match value {
                    Value::Bytes(b) => {
                        let text = String::from_utf8_lossy(b);
                        names.iter().find(|n| n.eq_ignore_ascii_case(text.trim()))
                    }
                    Value::Int(i) if *i >= 0 => names.get(*i as usize),
                    Value::UInt(u) => names.get(*u as usize),
                    _ => None,
                };
                found.map(|n| Value::text(n)).ok_or_else(bad)
            }
            TimeZone => {
                let text = match value {
                    Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
                    Value::Null => return Err(bad()),
                    _ => return Err(wrong_type(self.name, true)),
                };
                crate::expr::TimeZone::parse(&text)
                    .map(|zone| Value::text(&zone.name()))
                    .ok_or_else(|| {
                        Error::new(
                            ErrorCode::UnknownTimeZone,
                            format!("Unknown or incorrect time zone: '{text}'"),
                        )
                    })
            }
            Set(names) => {
                let Value::Bytes(b) = value else {
                    return Err(bad());
                };
                let text = String::from_utf8_lossy(b);
                let mut chosen = vec![false; names.len()];
                for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                    let i = names
                        .iter()
                        .position(|n| n.eq_ignore_ascii_case(part))
                        .ok_or_else(|| wrong_value(self.name, &Value::text(part)))?;
                    chosen[i] = true;
                }
                let parts: Vec<&str> = names
                    .iter()
                    .zip(chosen)
                    .filter_map(|(n, c)| c.then_some(*n))
                    .collect();
                Ok(Value::text(&parts.join(",")))
            }
        }
    }

    /// The value as SHOW VARIABLES prints it.
    pub fn show(&self, value: &Value) -> String {
        match (self.kind, value) {
            (Bool, Value::Int(0)) => "OFF".to_string(),
            (Bool, Value::Int(_)) => "ON".to_string(),
            (Double, Value::Double(d)) => format!("{d:.6}"),
            (StrOrNull, Value::Null) => String::new(),
            (_, v) => value_text(v),
        }
    }
}

fn parse_bool_text(text: &str) -> Option<bool> {
    match text.trim().to_ascii_uppercase().as_str() {
        "ON" | "1" | "TRUE" | "YES" => Some(true),
        "OFF" | "0" | "FALSE" | "NO" => Some(false),
        _ => None,
    }
}

/// Plain text of a scalar value (for variables and messages).
pub fn value_text(value: &Value) -> String {
    match value {
        Value::Null => "NULL".to_string(),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Double(d) => d.to_string(),
        Value::Decimal(d) => d.to_string(),
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        Value::Date(d) => d.to_string(),
        Value::DateTime(dt) => dt.format(if dt.microsecond > 0 { 6 } else { 0 }),
        Value::Time(_) => manycore_types::format::to_text(value, &DataType::Null),
    }
}

pub fn wrong_value(name: &str, value: &Value) -> Error {
    Error::new(
        ErrorCode::WrongValueForVar,
        format!(
            "Variable '{name}' can't be set to the value of '{}'",
            value_text(value)
        ),
    )
}

fn wrong_type(name: &str, _numeric: bool) -> Error {
    Error::new(
        ErrorCode::WrongTypeForVar,
        format!("Incorrect argument type to variable '{name}'"),
    )
}

pub fn unknown_variable(name: &str) -> Error {
    Error::new(
        ErrorCode::UnknownSystemVariable,
        format!("Unknown system variable '{name}'"),
    )
}

pub fn read_only(name: &str) -> Error {
    Error::new(
        ErrorCode::IncorrectGlobalLocalVar,
        format!("Variable '{name}' is a read only variable"),
    )
}

/// 1238 for reading @@session.x of a global-only variable (or @@global.x of a session one).
pub fn wrong_scope_read(name: &str, is: &str) -> Error {
    Error::new(
        ErrorCode::IncorrectGlobalLocalVar,
        format!("Variable '{name}' is a {is} variable"),
    )
}

pub fn global_only(name: &str) -> Error {
    Error::new(
        ErrorCode::GlobalVariable,
        format!("Variable '{name}' is a GLOBAL variable and should be set with SET GLOBAL"),
    )
}

pub fn session_only(name: &str) -> Error {
    Error::new(
        ErrorCode::LocalVariable,
        format!("Variable '{name}' is a SESSION variable and can't be used with SET GLOBAL"),
    )
}

/// Initial global values: every definition's default, overridden by `overrides`.
pub fn initial_globals(overrides: &[(&str, String)]) -> VarMap {
    let mut map: VarMap = VARIABLES
        .iter()
        .map(|d| (d.name, d.default_value()))
        .collect();
    for (name, text) in overrides {
        if let Some(d) = lookup(name) {
            map.insert(d.name, d.parse_default(text));
        }
    }
    map
}

/// SQL LIKE matching as SHOW ... LIKE uses it: `%`, `_`, `\` escape, case-insensitive.
pub fn like_matches(pattern: &str, text: &str) -> bool {
    fn go(p: &[char], t: &[char]) -> bool {
        match p.split_first() {
            None => t.is_empty(),
            Some(('%', rest)) => (0..=t.len()).any(|i| go(rest, &t[i..])),
            Some(('_', rest)) => !t.is_empty() && go(rest, &t[1..]),
            Some(('\\', rest)) if !rest.is_empty() => {
                !t.is_empty() && eq_ci(rest[0], t[0]) && go(&rest[1..], &t[1..])
            }
            Some((c, rest)) => !t.is_empty() && eq_ci(*c, t[0]) && go(rest, &t[1..]),
        }
    }
    fn eq_ci(a: char, b: char) -> bool {
        a == b || a.to_lowercase().eq(b.to_lowercase())
    }
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    go(&p, &t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_are_sorted_and_defaults_parse() {
        assert!(VARIABLES.windows(2).all(|w| w[0].name < w[1].name));
        let globals = initial_globals(&[]);
        assert_eq!(globals["autocommit"], Value::Int(1));
        assert_eq!(globals["max_allowed_packet"], Value::UInt(16_777_216));
    }

    #[test]
    fn out_of_range_integers_are_clamped_and_said_so() {
        let depth = lookup("max_sp_recursion_depth").expect("known");
        assert_eq!(
            depth.coerce(&Value::Int(256)).expect("clamped"),
            Value::UInt(255)
        );
        assert!(depth.clamps(&Value::Int(256)));
        assert_eq!(
            depth.coerce(&Value::Int(-1)).expect("clamped"),
            Value::UInt(0)
        );
        assert!(depth.clamps(&Value::Int(-1)));
        assert!(!depth.clamps(&Value::Int(255)) && !depth.clamps(&Value::UInt(0)));
        let wait = lookup("wait_timeout").expect("known");
        assert!(wait.clamps(&Value::UInt(0)));
        assert!(!lookup("autocommit").expect("known").clamps(&Value::Int(2)));
    }

    #[test]
    fn set_validation() {
        let ac = lookup("AUTOCOMMIT").expect("known");
        assert_eq!(
            ac.coerce(&Value::text("off")).expect("valid"),
            Value::Int(0)
        );
        assert_eq!(
            ac.coerce(&Value::Int(2)).expect_err("invalid").code,
            ErrorCode::WrongValueForVar
        );
        let mode = lookup("sql_mode").expect("known");
        let v = mode
            .coerce(&Value::text("no_engine_substitution,ansi_quotes"))
            .expect("ok");
        assert_eq!(v, Value::text("ANSI_QUOTES,NO_ENGINE_SUBSTITUTION"));
        assert!(mode.coerce(&Value::text("FOO")).is_err());
        assert!(like_matches("com\\_s%", "Com_select"));
        assert!(!like_matches("com\\_s%", "Comxselect"));
    }
}
