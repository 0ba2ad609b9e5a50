//! Bound expressions: the tree the binder produces from sqlparser's AST, with every
//! column resolved to a position in the input row and every node typed.
//!
//! This file is the contract between the binder/planner (statements) and expression
//! semantics (evaluation, types, conversions, functions). Invariants:
//! (1) `eval` returns values of the node's `data_type()` representation: integer types
//!     give Value::Int / Value::UInt, DECIMAL gives Value::Decimal, FLOAT/DOUBLE give
//!     Value::Double, strings give Value::Bytes, DATE gives Value::Date, DATETIME and
//!     TIMESTAMP give Value::DateTime, TIME gives Value::Time; or Value::Null.
//! (2) Evaluation never panics on any input; bad input is an `Error` (or a warning and a
//!     MySQL-compatible value where MySQL only warns).
//! (3) Nodes whose type is only known at run time report a nominal type (a character
//!     string) and evaluate to the value as supplied: a `UserVariable`, and a `Parameter`
//!     bound before its values were known (a prepared statement is re-bound with its
//!     values' types when they change). Every operator dispatches on the values it
//!     receives, so this is safe.
//!
//! Code map: `bind` (sqlparser AST -> Expr, with MySQL's type inference), `eval`
//! (evaluation), `function` (scalar functions), `regexp` (REGEXP and REGEXP_*), `fulltext`
//! (MATCH ... AGAINST), `aggregate` (COUNT/SUM/... and their
//! accumulators), `convert` (store assignment, index keys, sort keys), `coerce` (value
//! conversions and the comparison rule), `collate` (COLLATE, collation derivation and
//! aggregation, COERCIBILITY()), `temporal` (date parsing, arithmetic, formats), `time` (TIME
//! parsing and conversions), `time_zone` (the session's zone; TIMESTAMP cells hold UTC).

use crate::error::Result;
use manycore_types::{DataType, Value};

pub mod aggregate;
mod bind;
pub mod coerce;
pub mod collate;
pub mod convert;
mod digest;
mod display;
mod eval;
pub mod fulltext;
pub mod function;
mod int_length;
pub mod json;
mod like;
pub mod regexp;
pub mod subquery;
mod temporal;
#[cfg(test)]
mod tests;
pub mod time;
mod time_zone;

pub use aggregate::{bind_aggregate, Accumulator, AggregateCall, AggregateFunction};
pub use bind::{
    binary_node, bind, check_scale, declared_decimal, function_name, is_aggregate, is_plain_name,
    no_such_function, numeric_operand, Scope,
};
pub use convert::{compare_values, exact_key_value, sort_key, store_value};
pub use eval::NOMINAL_STRING as NOMINAL_PARAMETER_TYPE;
pub use eval::{user_variable_type, USER_VARIABLE_STRING};
pub use function::{wall_clock_utc, Function, IntervalUnit, TrimSide, BOOL_TYPE};
pub use regexp::{Pattern, RegexpFunction};
pub use subquery::{OuterRow, Subquery, SubqueryKind, SubqueryRows, SubqueryRunner};
pub use time_zone::{shown_cell, stored_cell, TimeZone};

/// Scope of a `@@variable` reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VarScope {
    /// `@@x`: session value if the variable has one, else global.
    Default,
    Session,
    Global,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    /// NOT / !
    Not,
    /// ~
    BitNot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    /// `/`: DECIMAL result for exact operands (scale + div_precision_increment).
    Div,
    /// DIV: integer division.
    IntDiv,
    /// % / MOD
    Mod,
    Eq,
    /// <=>
    NullSafeEq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
    And,
    Or,
    Xor,
    BitAnd,
    BitOr,
    BitXor,
    ShiftLeft,
    ShiftRight,
}

impl BinaryOp {
    /// Whether the operator's value is a truth value (0, 1 or NULL): the comparisons and
    /// the logical operators.
    pub fn is_truth_valued(self) -> bool {
        use BinaryOp::*;
        matches!(
            self,
            Eq | NullSafeEq | NotEq | Lt | LtEq | Gt | GtEq | And | Or | Xor
        )
    }
}

/// A resolved column reference: position in the input row and its type.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnRef {
    pub index: usize,
    pub data_type: DataType,
    pub nullable: bool,
    /// The cell is a stored TIMESTAMP, which holds UTC and reads as the session's local
    /// time (`time_zone` invariant (1)). False for every value an expression made.
    pub holds_utc: bool,
    /// The cell is a JSON column's (`check::is_json_column`): JSON_OBJECT and JSON_ARRAY
    /// embed it as JSON, not as a string.
    pub holds_json: bool,
}

impl ColumnRef {
    /// A cell holding a value an expression made: neither stored UTC nor a JSON column's.
    pub fn computed(index: usize, data_type: DataType, nullable: bool) -> ColumnRef {
        ColumnRef {
            index,
            data_type,
            nullable,
            holds_utc: false,
            holds_json: false,
        }
    }
}

/// A bound, typed expression. The planner matches on `Column`, `Literal`, `Parameter`,
/// comparisons, `And`, `InList`, `Between` and `IsNull` to choose index ranges; all other
/// semantics live behind `eval`, `data_type` and `nullable`.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Literal {
        value: Value,
        data_type: DataType,
    },
    Column(ColumnRef),
    /// A `?` of a prepared statement; its value comes from `EvalContext::params`. Typed
    /// by the value of the execution it was bound for, else `NOMINAL_PARAMETER_TYPE`.
    Parameter {
        index: usize,
        data_type: DataType,
    },
    SystemVariable {
        name: String,
        scope: VarScope,
    },
    /// Typed by the variable's value when bound (`user_variable_type`); evaluates to the
    /// current value converted to that type.
    UserVariable {
        name: String,
        data_type: DataType,
    },
    /// `@name := value`: evaluates `value`, stores it in the session's user variable and
    /// yields it. Typed as `value` (an integer as long, `int_length`).
    SetUserVariable {
        name: String,
        value: Box<Expr>,
        data_type: DataType,
    },
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
        data_type: DataType,
    },
    Binary {
        op: BinaryOp,
        left: Box<Expr>,
        right: Box<Expr>,
        data_type: DataType,
    },
    IsNull {
        operand: Box<Expr>,
        negated: bool,
    },
    InList {
        operand: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
    },
    Between {
        operand: Box<Expr>,
        low: Box<Expr>,
        high: Box<Expr>,
        negated: bool,
    },
    Like {
        operand: Box<Expr>,
        pattern: Box<Expr>,
        escape: Option<Box<Expr>>,
        negated: bool,
    },
    /// REGEXP / RLIKE and the REGEXP_* functions (`regexp`): `args` are the subject, the
    /// pattern and REGEXP_REPLACE's replacement; `compiled` is a literal pattern, compiled
    /// when bound (`regexp` invariant (2)).
    Regexp {
        function: RegexpFunction,
        args: Vec<Expr>,
        compiled: Option<Box<Pattern>>,
        data_type: DataType,
    },
    Case {
        operand: Option<Box<Expr>>,
        branches: Vec<(Expr, Expr)>,
        otherwise: Option<Box<Expr>>,
        data_type: DataType,
    },
    Cast {
        operand: Box<Expr>,
        data_type: DataType,
    },
    /// `operand COLLATE name`, or an operand a comparison reads in another collation than
    /// its own (`collate` invariant (1)): the operand's string, typed in that collation.
    Collate {
        operand: Box<Expr>,
        data_type: DataType,
    },
    Call {
        function: Function,
        args: Vec<Expr>,
        data_type: DataType,
    },
    /// `x IS [NOT] TRUE` / `x IS [NOT] FALSE`: never NULL.
    IsBool {
        operand: Box<Expr>,
        value: bool,
        negated: bool,
    },
    /// A subquery (`subquery` module).
    Subquery(Box<Subquery>),
    /// A column of an enclosing query's row, read inside a correlated subquery: `depth` 1
    /// is the row of the query directly around it.
    OuterColumn {
        depth: usize,
        column: ColumnRef,
    },
    /// MATCH ... AGAINST (`fulltext`): a DOUBLE, the row's relevance.
    Match(Box<fulltext::FulltextMatch>),
    /// A call of a stored function (`routine`), typed by its RETURNS. Never constant: its
    /// body may read tables and call non-deterministic functions.
    Stored {
        function: StoredCall,
        args: Vec<Expr>,
    },
}

/// A stored function as one call binds it (`routine`).
pub trait StoredFunction: std::fmt::Debug + Send + Sync {
    /// The RETURNS type.
    fn returns(&self) -> &DataType;
    /// Runs the body with the arguments' values; it reads what `ctx.subqueries` reads.
    fn call(&self, args: Vec<Value>, ctx: &EvalContext) -> Result<Value>;
}

/// A bound stored function; two are equal only if they are the same binding.
#[derive(Clone, Debug)]
pub struct StoredCall(pub std::sync::Arc<dyn StoredFunction>);

impl PartialEq for StoredCall {
    fn eq(&self, other: &StoredCall) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

/// Everything evaluation needs from outside the row.
#[derive(Clone, Copy)]
pub struct EvalContext<'a> {
    /// Values of `?` parameters, by position.
    pub params: &'a [Value],
    pub session: &'a dyn SessionContext,
    /// Runs subqueries; None where no plan can run (subquery invariant (4)).
    pub subqueries: Option<&'a dyn SubqueryRunner>,
    /// The enclosing queries' rows, inside a correlated subquery.
    pub outer: Option<&'a OuterRow<'a>>,
}

impl<'a> EvalContext<'a> {
    /// A context that runs no subqueries.
    pub fn new(params: &'a [Value], session: &'a dyn SessionContext) -> EvalContext<'a> {
        EvalContext {
            params,
            session,
            subqueries: None,
            outer: None,
        }
    }
}

/// What expressions may ask of the session (implemented by the session).
pub trait SessionContext {
    fn system_variable(&self, name: &str, scope: VarScope) -> Result<Value>;
    fn user_variable(&self, name: &str) -> Value;
    /// `@name := value` inside an expression.
    fn set_user_variable(&self, name: &str, value: Value);
    fn current_database(&self) -> Option<&str>;
    fn connection_id(&self) -> u32;
    /// The next UUID_SHORT() value, unique across the server's sessions since startup.
    fn uuid_short(&self) -> u64;
    fn last_insert_id(&self) -> u64;
    /// Sets what LAST_INSERT_ID() returns: a write inside a procedure's body that
    /// generated an AUTO_INCREMENT value (`compound`).
    fn set_last_insert_id(&self, id: u64);
    /// `user@host` as CURRENT_USER() shows it: the account the session authenticated as.
    fn current_user(&self) -> &str;
    /// `user@host` as USER() shows it: the name the client gave and where it connects from.
    fn login_user(&self) -> &str {
        self.current_user()
    }
    /// The statement's start time in UTC (NOW() is constant within a statement).
    fn statement_time_utc(&self) -> manycore_types::DateTime;
    /// The session's `time_zone` (`time_zone` module).
    fn time_zone(&self) -> TimeZone;
    /// The statement's start time as the session's clock shows it: NOW(), CURDATE().
    fn local_statement_time(&self) -> manycore_types::DateTime {
        self.time_zone().from_utc(self.statement_time_utc())
    }
    /// Records a warning for SHOW WARNINGS (code, message).
    fn warn(&self, code: crate::error::ErrorCode, message: String);
    /// Records a note (level "Note") for SHOW WARNINGS.
    fn note(&self, code: crate::error::ErrorCode, message: String) {
        self.warn(code, message)
    }
    /// Keeps the warnings and notes raised from now on apart from the statement's, until
    /// the matching `end_conditions` (nested calls nest): a stored program's body reads
    /// its own for its handlers, and MariaDB does not pass a trigger's on.
    fn begin_conditions(&self);
    /// The conditions kept since `begin_conditions` or the last take, oldest first.
    fn take_conditions(&self) -> Vec<crate::error::Condition>;
    /// Ends the innermost `begin_conditions`, dropping what it kept.
    fn end_conditions(&self);
    /// Strict sql_mode (STRICT_TRANS_TABLES or STRICT_ALL_TABLES).
    fn strict(&self) -> bool;
    /// foreign_key_checks: whether writes check and act on foreign keys.
    fn foreign_key_checks(&self) -> bool {
        true
    }
    /// SLEEP(): the statement asks to sleep `duration` (added to what it asked before).
    fn sleep(&self, duration: std::time::Duration);
    /// GET_LOCK() and the other user-lock functions (`user_lock`): the call's answer.
    fn user_lock(&self, call: crate::user_lock::UserLockCall<'_>) -> Value;
    /// LOAD_FILE(): the bytes of the server file `name`, or NULL (`server_file`).
    fn load_file(&self, _name: &[u8]) -> Value {
        Value::Null
    }
    /// The procedures, functions and triggers running in the session: a recursive CALL
    /// runs a procedure's body again from there, and a function may not be entered twice
    /// (`routine` invariant (7)). None without a session behind it.
    fn running_routines(&self) -> Option<&crate::routine::RunningRoutines> {
        None
    }
    /// FOUND_ROWS(): rows the previous SELECT returned (or would have without LIMIT).
    fn found_rows(&self) -> u64 {
        0
    }
    /// ROW_COUNT(): rows affected by the previous statement, -1 after a result set.
    fn row_count(&self) -> i64 {
        -1
    }
    /// Sets what ROW_COUNT() returns: a stored program's statement sets it when it ends,
    /// as each statement of the session does (`compound` invariant (11)). Without a
    /// session behind it, there is nothing to set.
    fn set_row_count(&self, _count: i64) {}
    /// Sets what FOUND_ROWS() returns: a procedure's SELECT sets it, as the session's
    /// SELECT statements do. Without a session behind it, there is nothing to set.
    fn set_found_rows(&self, _rows: u64) {}
    /// Adds `n` to a status counter a statement's execution counts (Sort_rows, the
    /// Handler_* counters). Without a session behind it, nothing counts.
    fn count(&self, _counter: crate::engine::Counter, _n: u64) {}
    /// The rows of an information_schema table as this session sees them now (made per
    /// execution: information_schema invariant (1)) that `lookup` names.
    fn information_schema_rows(
        &self,
        table: crate::information_schema::SystemTable,
        lookup: &crate::information_schema::NameLookup,
    ) -> Vec<Vec<Value>>;
}
