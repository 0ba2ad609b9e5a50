//! Access-path selection: which index range (if any) a scan of one table visits, chosen
//! from the WHERE clause's conjuncts.
//!
//! Recognized conjuncts: `col op v` and `v op col` for =, <, <=, >, >=; `col BETWEEN v AND
//! w`; `col IN (v, ...)`; where `v` is a literal, a parameter, a variable, in a join a
//! column of a table read before this one, or an arithmetic expression of those (evaluated
//! once per execution, in a join once per outer row). For each index the longest
//! prefix of columns with equalities is taken, then at most one column with bounds.
//! Preference: a primary-key point lookup, then a unique index fully bound by
//! equalities, then the most equality columns, then a range; ties go to the primary key.
//! A prefix key part (`c(10)`) keys only the value's prefix: its bounds become inclusive
//! (storage truncates them to the prefix) and what it finds is checked row by row.
//!
//! Invariant: selection never changes results (plan invariant (2)). The WHERE clause is
//! kept whole for an execution that falls back to a full scan; a conjunct is left out of
//! the residual filter only where the index range is exactly the rows it accepts: a
//! NOT NULL integer column, whose bound values convert exactly or the execution falls back.
//! An execution whose bound values include a string checks the whole clause too: comparing
//! a row with `' 3 '` warns, as MariaDB does, once per row.

use crate::expr::{BinaryOp, Expr, SubqueryKind, BOOL_TYPE};
use crate::plan::{AccessPath, Bound, IndexAccess, Scan};
use crate::scope::SourceTable;
use manycore_storage::{IndexNo, TableSchema};
use std::ops::Range;

/// True for expressions whose value is known before the scanned table's row is: it
/// reads no cells but those in `known` (a join's earlier tables; none for one table).
pub fn is_known(expr: &Expr, known: &[Range<usize>]) -> bool {
    match expr {
        Expr::Literal { .. }
        | Expr::Parameter { .. }
        | Expr::SystemVariable { .. }
        | Expr::UserVariable { .. }
        // Constant while a subquery runs for one outer row.
        | Expr::OuterColumn { .. } => true,
        // Runs once per execution (subquery invariant (1)).
        Expr::Subquery(s) => !s.correlated && s.kind == SubqueryKind::Scalar,
        Expr::Column(c) => known.iter().any(|cells| cells.contains(&c.index)),
        Expr::Unary { operand, .. } | Expr::Cast { operand, .. } | Expr::Collate { operand, .. } => {
            is_known(operand, known)
        }
        Expr::Binary {
            op, left, right, ..
        } => {
            matches!(
                op,
                BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div
            ) && is_known(left, known)
                && is_known(right, known)
        }
        _ => false,
    }
}

/// Splits a predicate into its AND-ed conjuncts.
pub fn conjuncts<'a>(expr: &'a Expr, out: &mut Vec<&'a Expr>) {
    match expr {
        Expr::Binary {
            op: BinaryOp::And,
            left,
            right,
            ..
        } => {
            conjuncts(left, out);
            conjuncts(right, out);
        }
        other => out.push(other),
    }
}

/// The AND of `parts`; None for none.
pub fn conjunction(parts: impl IntoIterator<Item = Expr>) -> Option<Expr> {
    parts.into_iter().reduce(|left, right| Expr::Binary {
        op: BinaryOp::And,
        data_type: BOOL_TYPE, // AND's type, as the binder gives it
        left: Box::new(left),
        right: Box::new(right),
    })
}

/// Constraints on one column, each with the conjunct (its position) it came from.
#[derive(Default)]
struct ColumnConstraints {
    eq: Option<(Vec<Expr>, usize)>,
    lower: Option<(Bound, usize)>,
    upper: Option<(Bound, usize)>,
}

/// The scan of `source` for rows where `filter` holds: its access path, and the residual
/// filter that path leaves (module notes).
pub fn scan(source: &SourceTable, filter: Option<Expr>) -> Scan {
    let (table, offset) = (source.table.clone(), source.offset);
    let (choice, residual) = match &filter {
        None => (Choice::full(), None),
        Some(filter) => {
            let mut parts = Vec::new();
            conjuncts(filter, &mut parts);
            let choice = choose(&table.schema, offset, &parts, &[]);
            let residual = conjunction(
                parts
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !choice.enforced.contains(i))
                    .map(|(_, part)| (*part).clone()),
            );
            (choice, residual)
        }
    };
    Scan {
        table,
        alias: source.alias.clone(),
        access: choice.access,
        possible_keys: choice.possible_keys,
        filter,
        residual,
    }
}

/// The access path of a joined table whose cells start at `offset`, from the conjuncts
/// checked where it is read; `known` are the cells of the tables read before it.
pub fn join_access(
    schema: &TableSchema,
    offset: usize,
    parts: &[&Expr],
    known: &[Range<usize>],
) -> Choice {
    choose(schema, offset, parts, known)
}

/// An access path chosen from a scan's conjuncts.
pub struct Choice {
    pub access: AccessPath,
    /// Positions of the conjuncts the path enforces exactly (module notes).
    enforced: Vec<usize>,
    /// Every index some conjunct constrains, the chosen one among them.
    pub possible_keys: Vec<IndexNo>,
}

impl Choice {
    fn full() -> Choice {
        Choice {
            access: AccessPath::Full,
            enforced: Vec::new(),
            possible_keys: Vec::new(),
        }
    }
}

/// Chooses the access path of a scan whose row starts at `offset` from the WHERE clause's
/// conjuncts `parts`, whose values may read the cells `known`.
fn choose(schema: &TableSchema, offset: usize, parts: &[&Expr], known: &[Range<usize>]) -> Choice {
    let is_known_value = |e: &Expr| is_known(e, known);
    let mut constraints: Vec<ColumnConstraints> = (0..schema.columns.len())
        .map(|_| ColumnConstraints::default())
        .collect();
    let column_of = |e: &Expr| match e {
        Expr::Column(c) if c.index >= offset && c.index - offset < schema.columns.len() => {
            Some(c.index - offset)
        }
        _ => None,
    };
    for (position, &part) in parts.iter().enumerate() {
        match part {
            Expr::Binary {
                op, left, right, ..
            } => {
                let (column, value, op) = match (column_of(left), column_of(right)) {
                    (Some(c), None) if is_known_value(right) => (c, right, *op),
                    (None, Some(c)) if is_known_value(left) => (c, left, flip(*op)),
                    _ => continue,
                };
                let slot = &mut constraints[column];
                let bound = |inclusive| {
                    let expr = (**value).clone();
                    Some((Bound { expr, inclusive }, position))
                };
                match op {
                    BinaryOp::Eq if slot.eq.is_none() => {
                        slot.eq = Some((vec![(**value).clone()], position))
                    }
                    BinaryOp::Lt | BinaryOp::LtEq if slot.upper.is_none() => {
                        slot.upper = bound(op == BinaryOp::LtEq)
                    }
                    BinaryOp::Gt | BinaryOp::GtEq if slot.lower.is_none() => {
                        slot.lower = bound(op == BinaryOp::GtEq)
                    }
                    _ => {}
                }
            }
            Expr::Between {
                operand,
                low,
                high,
                negated: false,
            } => {
                let Some(column) = column_of(operand) else {
                    continue;
                };
                if !(is_known_value(low) && is_known_value(high)) {
                    continue;
                }
                let slot = &mut constraints[column];
                if slot.lower.is_none() && slot.upper.is_none() {
                    let bound = |expr: &Expr| Bound {
                        expr: expr.clone(),
                        inclusive: true,
                    };
                    slot.lower = Some((bound(low), position));
                    slot.upper = Some((bound(high), position));
                }
            }
            Expr::InList {
                operand,
                list,
                negated: false,
            } => {
                let Some(column) = column_of(operand) else {
                    continue;
                };
                if !list.is_empty() && list.iter().all(is_known_value) {
                    let slot = &mut constraints[column];
                    if slot.eq.is_none() {
                        slot.eq = Some((list.clone(), position));
                    }
                }
            }
            _ => {}
        }
    }

    // Where the key range is exactly the rows the conjunct accepts (module notes).
    let exact = |c: usize| !schema.columns[c].nullable && schema.columns[c].data_type.is_integer();
    let mut best: Option<(u32, IndexAccess, Vec<usize>)> = None;
    let mut possible = Vec::new();
    let mut candidates = Vec::new();
    if schema.primary_key.is_some() {
        candidates.push(IndexNo::Primary);
    }
    candidates.extend((0..schema.indexes.len()).map(IndexNo::Secondary));
    for index in candidates {
        let columns = schema.index_columns(index);
        let mut access = IndexAccess {
            index,
            eq: Vec::new(),
            lower: None,
            upper: None,
            types: columns
                .iter()
                .map(|&c| schema.columns[c].data_type.clone())
                .collect(),
            primary_point: false,
        };
        // A prefix key part finds every row whose prefix matches: its bounds must include
        // the prefix they truncate to, and the whole condition stays a residual check.
        let prefixes = match index {
            IndexNo::Primary => &[][..],
            IndexNo::Secondary(i) => &schema.indexes[i].prefix_lengths[..],
        };
        let mut enforced = Vec::new();
        let mut alternatives = 1usize;
        for (k, &c) in columns.iter().enumerate() {
            let prefixed = prefixes.get(k).is_some_and(Option::is_some);
            debug_assert!(
                !(prefixed && exact(c)),
                "only strings have prefix key parts"
            );
            let slot = &constraints[c];
            if let Some((eq, position)) = &slot.eq {
                if alternatives.saturating_mul(eq.len()) > MAX_POINTS {
                    break;
                }
                alternatives *= eq.len();
                access.eq.push(eq.clone());
                if exact(c) {
                    enforced.push(*position);
                }
                continue;
            }
            for (bound, from) in [
                (&mut access.lower, &slot.lower),
                (&mut access.upper, &slot.upper),
            ] {
                if let Some((expr, position)) = from {
                    *bound = Some(Bound {
                        expr: expr.expr.clone(),
                        inclusive: expr.inclusive || prefixed,
                    });
                    if exact(c) {
                        enforced.push(*position);
                    }
                }
            }
            break;
        }
        let full_eq = access.eq.len() == columns.len();
        access.primary_point = full_eq && index == IndexNo::Primary && alternatives == 1;
        let ranged = access.lower.is_some() || access.upper.is_some();
        if access.eq.is_empty() && !ranged {
            continue;
        }
        possible.push(index);
        let unique_point = full_eq && schema.is_unique(index);
        let score = (access.primary_point as u32) * 10_000
            + (unique_point as u32) * 1_000
            + access.eq.len() as u32 * 10
            + ranged as u32 * 5
            + (index == IndexNo::Primary) as u32;
        if best.as_ref().is_none_or(|(s, _, _)| score > *s) {
            best = Some((score, access, enforced));
        }
    }
    match best {
        Some((_, access, enforced)) => Choice {
            access: AccessPath::Index(access),
            enforced,
            possible_keys: possible,
        },
        None => Choice::full(),
    }
}

/// Most key combinations an IN-list access path enumerates.
pub const MAX_POINTS: usize = 4096;

fn flip(op: BinaryOp) -> BinaryOp {
    match op {
        BinaryOp::Lt => BinaryOp::Gt,
        BinaryOp::LtEq => BinaryOp::GtEq,
        BinaryOp::Gt => BinaryOp::Lt,
        BinaryOp::GtEq => BinaryOp::LtEq,
        other => other,
    }
}
