//! Aggregate functions: binding, result types and accumulators.
//!
//! Result types (MariaDB 10.11): COUNT -> BIGINT; SUM of integers/DECIMAL(p,s) ->
//! DECIMAL(p+22, s); AVG of exact -> DECIMAL(p+4, s+4); SUM/AVG of anything else -> DOUBLE;
//! MIN/MAX -> the argument's type; BIT_AND/OR/XOR -> BIGINT UNSIGNED; STD/VARIANCE ->
//! DOUBLE; GROUP_CONCAT, JSON_ARRAYAGG, JSON_OBJECTAGG -> TEXT.
//!
//! Invariants:
//! (1) NULL inputs are skipped, except by JSON_ARRAYAGG and JSON_OBJECTAGG, which make
//!     them JSON's `null`; over no rows COUNT is 0, BIT_AND is all ones, BIT_OR/XOR
//!     are 0 and everything else is NULL.
//! (2) DISTINCT compares values by `convert::sort_key` of the argument's type, the same
//!     rule GROUP BY uses, so 1.0 and 1.00 (or 'a' and 'A') are one value.
//! (3) GROUP_CONCAT's several arguments are one CONCAT of them, so a row with a NULL
//!     among them adds nothing, as in MariaDB. Its ORDER BY and JSON_ARRAYAGG's keep
//!     each item with its ORDER BY values and sort them once, at `finish`.

use super::bind::{function_name, numeric_operand, Scope};
use super::coerce::{enum_set_number, to_bytes, to_decimal, to_f64, to_u64_bits};
use super::convert::{compare_values, sort_key};
use super::function::{decimal_type, exact_shape, UBIGINT};
use super::{bind, EvalContext, Expr};
use crate::error::{Error, ErrorCode, Result};
use manycore_types::{Collation, DataType, Decimal, LobSize, Value};
use sqlparser::ast;
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AggregateFunction {
    Count,
    Sum,
    Avg,
    Min,
    Max,
    GroupConcat,
    BitAnd,
    BitOr,
    BitXor,
    /// STD / STDDEV / STDDEV_POP
    StdPop,
    StdSamp,
    /// VARIANCE / VAR_POP
    VarPop,
    VarSamp,
    /// JSON_ARRAYAGG: `[1,"a",null]` (no space, as MariaDB prints it).
    JsonArrayAgg,
    /// JSON_OBJECTAGG(key, value): `{"a":1, "b":null}`.
    JsonObjectAgg,
}

impl AggregateFunction {
    pub fn lookup(upper_name: &str) -> Option<AggregateFunction> {
        use AggregateFunction::*;
        Some(match upper_name {
            "COUNT" => Count,
            "SUM" => Sum,
            "AVG" => Avg,
            "MIN" => Min,
            "MAX" => Max,
            "GROUP_CONCAT" => GroupConcat,
            "BIT_AND" => BitAnd,
            "BIT_OR" => BitOr,
            "BIT_XOR" => BitXor,
            "STD" | "STDDEV" | "STDDEV_POP" => StdPop,
            "STDDEV_SAMP" => StdSamp,
            "VARIANCE" | "VAR_POP" => VarPop,
            "VAR_SAMP" => VarSamp,
            "JSON_ARRAYAGG" => JsonArrayAgg,
            "JSON_OBJECTAGG" => JsonObjectAgg,
            _ => return None,
        })
    }
}

/// A bound aggregate call.
#[derive(Clone, Debug, PartialEq)]
pub struct AggregateCall {
    pub function: AggregateFunction,
    /// None for COUNT(*).
    pub arg: Option<Expr>,
    pub distinct: bool,
    /// GROUP_CONCAT's SEPARATOR (default ",").
    pub separator: Vec<u8>,
    /// JSON_OBJECTAGG's key (`arg` is its value).
    pub key: Option<Expr>,
    /// GROUP_CONCAT's and JSON_ARRAYAGG's ORDER BY.
    pub order_by: Vec<crate::plan::SortKey>,
}

/// Binds `COUNT(*)`, `SUM(DISTINCT x)`, `GROUP_CONCAT(x, '-', y ORDER BY z DESC SEPARATOR
/// ';')`, ... (GROUP_CONCAT's and JSON_ARRAYAGG's LIMIT, and GROUP_CONCAT(DISTINCT) of
/// several arguments, are not supported: 1235.)
pub fn bind_aggregate(call: &ast::Function, scope: &dyn Scope) -> Result<AggregateCall> {
    let name = function_name(call);
    let function = AggregateFunction::lookup(&name).ok_or_else(|| {
        Error::new(
            ErrorCode::UnknownError,
            format!("{name} is not an aggregate"),
        )
    })?;
    let ast::FunctionArguments::List(list) = &call.args else {
        return Err(Error::parse_near(&call.to_string(), 1));
    };
    let distinct = matches!(
        list.duplicate_treatment,
        Some(ast::DuplicateTreatment::Distinct)
    );
    let mut separator = b",".to_vec();
    let mut order_keys: &[ast::OrderByExpr] = &[];
    for clause in &list.clauses {
        match clause {
            ast::FunctionArgumentClause::Separator(v) => {
                separator = v.clone().into_string().unwrap_or_default().into_bytes();
            }
            ast::FunctionArgumentClause::OrderBy(keys)
                if matches!(
                    function,
                    AggregateFunction::JsonArrayAgg | AggregateFunction::GroupConcat
                ) =>
            {
                order_keys = keys;
            }
            other => return Err(Error::not_supported(&format!("{name}(... {other})"))),
        }
    }
    let json = matches!(
        function,
        AggregateFunction::JsonArrayAgg | AggregateFunction::JsonObjectAgg
    );
    let bind_argument = |e: &ast::Expr| match json {
        true => super::bind::bind_embedded_in_json(e, scope),
        false => bind(e, scope),
    };
    let wanted = match function {
        AggregateFunction::JsonArrayAgg => 1,
        AggregateFunction::JsonObjectAgg => 2,
        _ => 0,
    };
    if json && list.args.len() != wanted {
        return Err(Error::new(
            ErrorCode::WrongParamcountToNativeFct,
            format!("Incorrect parameter count in the call to native function '{name}'"),
        ));
    }
    let mut key = None;
    let arg = match list.args.as_slice() {
        [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Wildcard)]
            if function == AggregateFunction::Count && !distinct =>
        {
            None
        }
        [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(k)), ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(v))]
            if function == AggregateFunction::JsonObjectAgg && !distinct =>
        {
            key = Some(bind(k, scope)?);
            Some(bind_argument(v)?)
        }
        [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e))] => {
            let arg = bind_argument(e)?;
            // MIN, MAX, COUNT, GROUP_CONCAT and the JSON aggregates read an ENUM or SET as
            // text, the others as its number.
            use AggregateFunction::*;
            Some(match function {
                Count | Min | Max | GroupConcat | JsonArrayAgg | JsonObjectAgg => arg,
                Sum | Avg | BitAnd | BitOr | BitXor | StdPop | StdSamp | VarPop | VarSamp => {
                    numeric_operand(arg)
                }
            })
        }
        args if function == AggregateFunction::GroupConcat && args.len() > 1 => {
            if distinct {
                return Err(Error::not_supported(
                    "GROUP_CONCAT(DISTINCT) with several arguments",
                ));
            }
            // Invariant (3): one CONCAT of the arguments.
            let parts = args
                .iter()
                .map(|a| match a {
                    ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => bind(e, scope),
                    _ => Err(Error::parse_near(&call.to_string(), 1)),
                })
                .collect::<Result<Vec<_>>>()?;
            Some(super::bind::call(super::Function::Concat, parts)?)
        }
        _ => return Err(Error::parse_near(&call.to_string(), 1)),
    };
    let order_by = order_keys
        .iter()
        .map(|key| {
            Ok(crate::plan::SortKey {
                expr: order_key(&key.expr, list, function, scope)?,
                descending: matches!(key.options.sort, Some(ast::OrderBySort::Desc)),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(AggregateCall {
        function,
        arg,
        distinct,
        separator,
        key,
        order_by,
    })
}

/// One ORDER BY key of GROUP_CONCAT or JSON_ARRAYAGG. In GROUP_CONCAT a whole number
/// names an argument by its position (`GROUP_CONCAT(a, b ORDER BY 2)`), as in MariaDB:
/// 1054 past the last, and for 0 or a negative number.
fn order_key(
    key: &ast::Expr,
    list: &ast::FunctionArgumentList,
    function: AggregateFunction,
    scope: &dyn Scope,
) -> Result<Expr> {
    let number = |e: &ast::Expr| match e {
        ast::Expr::Value(v) => match &v.value {
            ast::Value::Number(n, _) if n.bytes().all(|b| b.is_ascii_digit()) => Some(n.clone()),
            _ => None,
        },
        _ => None,
    };
    let position = match key {
        _ if function != AggregateFunction::GroupConcat => None,
        ast::Expr::UnaryOp {
            op: ast::UnaryOperator::Minus,
            expr,
        } => number(expr).map(|n| format!("-{n}")),
        _ => number(key),
    };
    let Some(position) = position else {
        return bind(key, scope);
    };
    let argument = (position.parse::<usize>().ok())
        .and_then(|n| n.checked_sub(1))
        .and_then(|i| list.args.get(i));
    match argument {
        Some(ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e))) => bind(e, scope),
        _ => Err(Error::bad_field(&position, "ORDER BY")),
    }
}

impl AggregateCall {
    pub fn result_type(&self) -> DataType {
        use AggregateFunction::*;
        let arg = self
            .arg
            .as_ref()
            .map(Expr::data_type)
            .unwrap_or(DataType::Null);
        let exact = matches!(arg, DataType::Int { .. } | DataType::Decimal { .. });
        match self.function {
            Count => DataType::BIGINT,
            Sum if exact => {
                let (i, s) = exact_shape(&arg);
                decimal_type(i + 22, s)
            }
            Avg if exact => {
                let (i, s) = exact_shape(&arg);
                decimal_type(i, s + 4)
            }
            // A DOUBLE argument's decimals carry over; the averages add
            // div_precision_increment (AVG(PI()) prints 10 digits).
            Sum => DataType::double(arg.double_decimals()),
            Avg | StdPop | StdSamp | VarPop | VarSamp => DataType::double(
                arg.double_decimals()
                    .saturating_add(super::eval::DIV_PRECISION_INCREMENT as u8),
            ),
            // MariaDB's MIN/MAX of an ENUM or SET is a VARCHAR of its text.
            Min | Max if arg.members().is_some() => {
                super::function::varchar(arg.max_length().unwrap_or(0))
                    .with_collation(arg.collation())
            }
            Min | Max => arg,
            BitAnd | BitOr | BitXor => UBIGINT,
            GroupConcat | JsonArrayAgg | JsonObjectAgg => DataType::text(LobSize::Regular),
        }
    }

    pub fn nullable(&self) -> bool {
        !matches!(
            self.function,
            AggregateFunction::Count
                | AggregateFunction::BitAnd
                | AggregateFunction::BitOr
                | AggregateFunction::BitXor
        )
    }
}

/// Running state of one aggregate over one group.
#[derive(Clone, Debug)]
pub struct Accumulator {
    call: AggregateCall,
    arg_type: DataType,
    result_type: DataType,
    count: u64,
    int_sum: i128,
    decimal_sum: Option<Decimal>,
    double_sum: f64,
    /// Welford's running mean and sum of squared deviations (STD/VARIANCE).
    mean: f64,
    m2: f64,
    bits: u64,
    best: Option<Value>,
    concat: Option<Vec<u8>>,
    seen: HashSet<Vec<u8>>,
    /// JSON_ARRAYAGG(DISTINCT x)'s items by `sort_key`: MariaDB lists them sorted.
    distinct_json: BTreeMap<Vec<u8>, String>,
    /// GROUP_CONCAT's and JSON_ARRAYAGG's items with their ORDER BY values, sorted at
    /// the end (invariant (3)).
    ordered: Vec<(Vec<Value>, Vec<u8>)>,
    overflow: bool,
}

impl Accumulator {
    pub fn new(call: &AggregateCall) -> Accumulator {
        let arg_type = call
            .arg
            .as_ref()
            .map(Expr::data_type)
            .unwrap_or(DataType::Null);
        Accumulator {
            result_type: call.result_type(),
            call: call.clone(),
            arg_type,
            count: 0,
            int_sum: 0,
            decimal_sum: None,
            double_sum: 0.0,
            mean: 0.0,
            m2: 0.0,
            bits: if call.function == AggregateFunction::BitAnd {
                u64::MAX
            } else {
                0
            },
            best: None,
            concat: None,
            seen: HashSet::new(),
            distinct_json: BTreeMap::new(),
            ordered: Vec::new(),
            overflow: false,
        }
    }

    /// Feeds one input row.
    pub fn update(&mut self, row: &[Value], ctx: &EvalContext) -> Result<()> {
        let value = match &self.call.arg {
            None => {
                self.count += 1;
                return Ok(());
            }
            Some(e) => e.eval(row, ctx)?,
        };
        if let Some(key) = &self.call.key {
            let key = key.eval(row, ctx)?;
            return self.update_member(key, value, ctx);
        }
        if self.call.order_by.is_empty() {
            return self.update_value(value, ctx);
        }
        let keys = self
            .call
            .order_by
            .iter()
            .map(|k| k.expr.eval(row, ctx))
            .collect::<Result<Vec<_>>>()?;
        if self.call.function == AggregateFunction::JsonArrayAgg {
            return self.update_json_array(value, keys, ctx);
        }
        if !self.admits(&value) {
            return Ok(());
        }
        self.count += 1;
        let bytes = to_bytes(&value, &self.arg_type).unwrap_or_default();
        self.ordered.push((keys, bytes));
        Ok(())
    }

    /// Whether `value` is fed on: not NULL (invariant (1)) and, under DISTINCT, not seen
    /// before (invariant (2)).
    fn admits(&mut self, value: &Value) -> bool {
        if value.is_null() {
            return false;
        }
        if !self.call.distinct {
            return true;
        }
        let mut key = Vec::new();
        sort_key(value, &self.arg_type, &mut key);
        self.seen.insert(key)
    }

    /// Feeds JSON_OBJECTAGG one key and value; a NULL key adds nothing, as in MariaDB.
    fn update_member(&mut self, key: Value, value: Value, ctx: &EvalContext) -> Result<()> {
        let (Some(key_expr), Some(value_expr)) = (&self.call.key, &self.call.arg) else {
            unreachable!("JSON_OBJECTAGG has a key and a value");
        };
        if key.is_null() {
            return Ok(());
        }
        self.count += 1;
        let out = self.concat.get_or_insert_with(Vec::new);
        if self.count > 1 {
            out.extend_from_slice(b", ");
        }
        let key = to_bytes(&key, &key_expr.data_type()).unwrap_or_default();
        let mut member = super::json::quote(&String::from_utf8_lossy(&key));
        member.push(':');
        super::json::sql_to_json(value_expr, &value, ctx.session, &mut member);
        out.extend_from_slice(member.as_bytes());
        Ok(())
    }

    /// Feeds one already evaluated argument value.
    pub fn update_value(&mut self, value: Value, ctx: &EvalContext) -> Result<()> {
        use AggregateFunction::*;
        if self.call.function == JsonArrayAgg {
            return self.update_json_array(value, Vec::new(), ctx);
        }
        if !self.admits(&value) {
            return Ok(());
        }
        self.count += 1;
        let session = ctx.session;
        match self.call.function {
            Count => {}
            Sum | Avg => match (&self.result_type, &value) {
                (DataType::Decimal { .. }, Value::Int(i)) => self.int_sum += *i as i128,
                (DataType::Decimal { .. }, Value::UInt(u)) => self.int_sum += *u as i128,
                (DataType::Decimal { .. }, v) => {
                    let d = to_decimal(v, session).unwrap_or_default();
                    let sum = self.decimal_sum.unwrap_or_default();
                    match sum.checked_add(d) {
                        Some(s) => self.decimal_sum = Some(s),
                        None => self.overflow = true,
                    }
                }
                (_, v) => self.double_sum += to_f64(v, session).unwrap_or(0.0),
            },
            StdPop | StdSamp | VarPop | VarSamp => {
                let x = to_f64(&value, session).unwrap_or(0.0);
                let delta = x - self.mean;
                self.mean += delta / self.count as f64;
                self.m2 += delta * (x - self.mean);
            }
            Min | Max => {
                let replace = match &self.best {
                    None => true,
                    // MariaDB orders ENUM and SET by their numbers here too.
                    Some(best) if self.arg_type.members().is_some() => {
                        let number = |v: &Value| enum_set_number(v.clone(), &self.arg_type);
                        let ord = compare_values(&number(&value), &number(best), Collation::Binary);
                        if self.call.function == Min {
                            ord == Ordering::Less
                        } else {
                            ord == Ordering::Greater
                        }
                    }
                    Some(best) => {
                        let ord = compare_values(&value, best, self.arg_type.collation());
                        if self.call.function == Min {
                            ord == Ordering::Less
                        } else {
                            ord == Ordering::Greater
                        }
                    }
                };
                if replace {
                    self.best = Some(value);
                }
            }
            BitAnd | BitOr | BitXor => {
                let b = to_u64_bits(&value, session).unwrap_or(0);
                match self.call.function {
                    BitAnd => self.bits &= b,
                    BitOr => self.bits |= b,
                    _ => self.bits ^= b,
                }
            }
            GroupConcat => {
                let bytes = to_bytes(&value, &self.arg_type).unwrap_or_default();
                let out = self.concat.get_or_insert_with(Vec::new);
                if self.count > 1 {
                    out.extend_from_slice(&self.call.separator);
                }
                out.extend_from_slice(&bytes);
                if out.len() > GROUP_CONCAT_MAX_LEN {
                    out.truncate(GROUP_CONCAT_MAX_LEN);
                }
            }
            JsonArrayAgg | JsonObjectAgg => {
                unreachable!("fed by update_json_array and update_member")
            }
        }
        Ok(())
    }

    /// Feeds JSON_ARRAYAGG one value (NULL too, as `null`) and its ORDER BY values.
    fn update_json_array(
        &mut self,
        value: Value,
        order_values: Vec<Value>,
        ctx: &EvalContext,
    ) -> Result<()> {
        let arg = self
            .call
            .arg
            .as_ref()
            .expect("JSON_ARRAYAGG has an argument");
        let mut item = String::new();
        super::json::sql_to_json(arg, &value, ctx.session, &mut item);
        self.count += 1;
        let ordered = !self.call.order_by.is_empty();
        if self.call.distinct {
            let mut key = Vec::new();
            sort_key(&value, &self.arg_type, &mut key);
            if !ordered {
                self.distinct_json.entry(key).or_insert(item);
                return Ok(());
            }
            if !self.seen.insert(key) {
                return Ok(());
            }
        }
        if ordered {
            self.ordered.push((order_values, item.into_bytes()));
            return Ok(());
        }
        let out = self.concat.get_or_insert_with(Vec::new);
        if self.count > 1 {
            out.push(b',');
        }
        out.extend_from_slice(item.as_bytes());
        Ok(())
    }

    /// The aggregate's value for the rows fed so far. A DECIMAL sum beyond 65 digits is
    /// error 1690.
    pub fn finish(&self, ctx: &EvalContext) -> Result<Value> {
        use AggregateFunction::*;
        if self.overflow {
            return Err(super::coerce::decimal_out_of_range("sum"));
        }
        if self.count == 0 {
            return Ok(match self.call.function {
                Count => Value::Int(0),
                BitAnd | BitOr | BitXor => Value::UInt(self.bits),
                _ => Value::Null,
            });
        }
        Ok(match self.call.function {
            Count => Value::Int(self.count as i64),
            Sum | Avg => match self.result_type {
                DataType::Decimal { scale, .. } => {
                    let int = Decimal::from_i128_with_scale(self.int_sum, 0)
                        .ok_or_else(|| super::coerce::decimal_out_of_range("sum"))?;
                    let sum = self
                        .decimal_sum
                        .unwrap_or_default()
                        .checked_add(int)
                        .ok_or_else(|| super::coerce::decimal_out_of_range("sum"))?;
                    if self.call.function == Sum {
                        Value::Decimal(sum)
                    } else {
                        let avg = sum
                            .checked_div(Decimal::from(self.count))
                            .and_then(|avg| avg.round(scale as i32))
                            .ok_or_else(|| super::coerce::decimal_out_of_range("avg"))?;
                        Value::Decimal(avg)
                    }
                }
                _ if self.call.function == Sum => Value::Double(self.double_sum),
                _ => Value::Double(self.double_sum / self.count as f64),
            },
            StdPop => Value::Double((self.m2 / self.count as f64).sqrt()),
            VarPop => Value::Double(self.m2 / self.count as f64),
            StdSamp | VarSamp if self.count < 2 => Value::Null,
            StdSamp => Value::Double((self.m2 / (self.count - 1) as f64).sqrt()),
            VarSamp => Value::Double(self.m2 / (self.count - 1) as f64),
            Min | Max => self.best.clone().unwrap_or(Value::Null),
            BitAnd | BitOr | BitXor => Value::UInt(self.bits),
            GroupConcat if !self.call.order_by.is_empty() => {
                let mut out = self.sorted_items(ctx).join(self.call.separator.as_slice());
                out.truncate(GROUP_CONCAT_MAX_LEN);
                Value::Bytes(out)
            }
            GroupConcat => self.concat.clone().map(Value::Bytes).unwrap_or(Value::Null),
            JsonArrayAgg if !self.call.order_by.is_empty() => {
                let mut out = vec![b'['];
                out.extend(self.sorted_items(ctx).join(&b","[..]));
                out.push(b']');
                Value::Bytes(out)
            }
            JsonArrayAgg if self.call.distinct => {
                let items: Vec<&str> = self.distinct_json.values().map(String::as_str).collect();
                Value::Bytes(format!("[{}]", items.join(",")).into_bytes())
            }
            JsonArrayAgg | JsonObjectAgg => {
                let (open, close) = match self.call.function {
                    JsonArrayAgg => (b'[', b']'),
                    _ => (b'{', b'}'),
                };
                let mut out = vec![open];
                out.extend_from_slice(self.concat.as_deref().unwrap_or_default());
                out.push(close);
                Value::Bytes(out)
            }
        })
    }
}

impl Accumulator {
    /// The ORDER BY items, sorted (invariant (3)).
    fn sorted_items(&self, ctx: &EvalContext) -> Vec<&[u8]> {
        let mut rows: Vec<(Vec<Value>, &[u8])> = (self.ordered.iter())
            .map(|(keys, item)| (keys.clone(), item.as_slice()))
            .collect();
        crate::exec::sort_rows(&mut rows, &self.call.order_by, ctx.session);
        rows.into_iter().map(|(_, item)| item).collect()
    }
}

/// group_concat_max_len's default in MariaDB (1 MiB).
pub const GROUP_CONCAT_MAX_LEN: usize = 1024 * 1024;
