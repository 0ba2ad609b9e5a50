//! Expression text as MariaDB prints it inside error messages
//! ("BIGINT value is out of range in '9223372036854775807 + 1'").
//!
//! Columns print as `col#N` (their position): bound expressions no longer carry names.

use super::{BinaryOp, Expr, Function, UnaryOp};
use manycore_types::format::to_text;
use manycore_types::{DataType, Value};

pub fn expr_text(e: &Expr) -> String {
    let mut out = String::new();
    write(e, &mut out, false);
    out
}

pub fn call_text(function: Function, args: &[Expr]) -> String {
    let mut out = String::new();
    write_call(function, args, &mut out);
    out
}

fn write_call(function: Function, args: &[Expr], out: &mut String) {
    if function == Function::Mod && args.len() == 2 {
        write(&args[0], out, true);
        out.push_str(" MOD ");
        write(&args[1], out, true);
        return;
    }
    out.push_str(function.name());
    out.push('(');
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write(a, out, false);
    }
    out.push(')');
}

pub fn op_text(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Add => "+",
        BinaryOp::Sub => "-",
        BinaryOp::Mul => "*",
        BinaryOp::Div => "/",
        BinaryOp::IntDiv => "DIV",
        BinaryOp::Mod => "MOD",
        BinaryOp::Eq => "=",
        BinaryOp::NullSafeEq => "<=>",
        BinaryOp::NotEq => "<>",
        BinaryOp::Lt => "<",
        BinaryOp::LtEq => "<=",
        BinaryOp::Gt => ">",
        BinaryOp::GtEq => ">=",
        BinaryOp::And => "and",
        BinaryOp::Or => "or",
        BinaryOp::Xor => "xor",
        BinaryOp::BitAnd => "&",
        BinaryOp::BitOr => "|",
        BinaryOp::BitXor => "^",
        BinaryOp::ShiftLeft => "<<",
        BinaryOp::ShiftRight => ">>",
    }
}

fn write(e: &Expr, out: &mut String, nested: bool) {
    match e {
        Expr::Literal {
            value: Value::Null, ..
        } => out.push_str("NULL"),
        Expr::Literal {
            value: Value::Bytes(b),
            ..
        } => {
            out.push('\'');
            out.push_str(&String::from_utf8_lossy(b));
            out.push('\'');
        }
        Expr::Literal { value, data_type } => out.push_str(&to_text(value, data_type)),
        Expr::Column(c) => out.push_str(&format!("col#{}", c.index)),
        Expr::Parameter { .. } => out.push('?'),
        Expr::SystemVariable { name, .. } => out.push_str(&format!("@@{name}")),
        Expr::UserVariable { name, .. } => out.push_str(&format!("@{name}")),
        Expr::SetUserVariable { name, value, .. } => {
            out.push_str(&format!("@{name} := "));
            write(value, out, true);
        }
        Expr::Unary { op, operand, .. } => {
            out.push_str(match op {
                UnaryOp::Neg => "-",
                UnaryOp::Not => "!",
                UnaryOp::BitNot => "~",
            });
            write(operand, out, true);
        }
        Expr::Binary {
            op, left, right, ..
        } => {
            if nested {
                out.push('(');
            }
            write(left, out, true);
            out.push(' ');
            out.push_str(op_text(*op));
            out.push(' ');
            write(right, out, true);
            if nested {
                out.push(')');
            }
        }
        Expr::Cast { operand, data_type } => {
            out.push_str("cast(");
            write(operand, out, false);
            out.push_str(" as ");
            out.push_str(
                match data_type {
                    DataType::Int { unsigned: true, .. } => "unsigned".to_string(),
                    DataType::Int { .. } => "signed".to_string(),
                    other => other.sql_name(),
                }
                .as_str(),
            );
            out.push(')');
        }
        Expr::Call { function, args, .. } => write_call(*function, args, out),
        _ => out.push_str("..."),
    }
}
