//! Literal operands of a type their operator refuses, as jsonata-js
//! refuses them.

use jsonata_core::ast::{AstNode, BinaryOp, UnaryOp};

/// How an operator whose operands may be of the wrong type is written.
pub(super) fn op_token(op: BinaryOp) -> Option<&'static str> {
    use BinaryOp::*;
    Some(match op {
        Add => "+",
        Subtract => "-",
        Multiply => "*",
        Divide => "/",
        Modulo => "%",
        LessThan => "<",
        LessThanOrEqual => "<=",
        GreaterThan => ">",
        GreaterThanOrEqual => ">=",
        Range => "..",
        _ => return None,
    })
}

/// What a literal is, when it is not a number.
pub(super) fn non_number(node: &AstNode) -> Option<String> {
    Some(match node {
        AstNode::String(s) => format!("the string {}", serde_json::Value::from(s.as_str())),
        AstNode::Boolean(b) => format!("`{b}`"),
        AstNode::Null => "`null`".to_owned(),
        AstNode::Array(_) => "an array".to_owned(),
        AstNode::Object(_) => "an object".to_owned(),
        _ => return None,
    })
}

/// The error jsonata-js raises for these literal operands of `op`, which
/// it raises whatever the other operand is (but for an error of its own).
pub(super) fn operand_error(
    op: BinaryOp,
    token: &str,
    lhs: &AstNode,
    rhs: &AstNode,
) -> Option<(&'static str, String)> {
    use BinaryOp::*;
    match op {
        Add | Subtract | Multiply | Divide | Modulo => {
            let (code, side, kind) = match (non_number(lhs), non_number(rhs)) {
                (Some(k), _) => ("T2001", "left", k),
                (None, Some(k)) => ("T2002", "right", k),
                (None, None) => return None,
            };
            Some((
                code,
                format!("`{token}` needs numbers, but its {side} side is {kind}"),
            ))
        }
        Range => {
            let not_integer = |n: &AstNode| match n {
                AstNode::Number(x) if x.fract() != 0.0 => Some(format!("the number {x}")),
                other => non_number(other),
            };
            let (code, side, kind) = match (not_integer(lhs), not_integer(rhs)) {
                (Some(k), _) => ("T2003", "left", k),
                (None, Some(k)) => ("T2004", "right", k),
                (None, None) => return None,
            };
            Some((
                code,
                format!("`..` needs integers, but its {side} side is {kind}"),
            ))
        }
        LessThan | LessThanOrEqual | GreaterThan | GreaterThanOrEqual => {
            let incomparable = |n: &AstNode| match n {
                AstNode::String(_) => None,
                other => non_number(other),
            };
            if let Some(kind) = incomparable(lhs).or_else(|| incomparable(rhs)) {
                return Some((
                    "T2010",
                    format!("`{token}` compares numbers or strings, but one side is {kind}"),
                ));
            }
            match (lhs, rhs) {
                (AstNode::String(_), AstNode::Number(_))
                | (AstNode::Number(_), AstNode::String(_)) => Some((
                    "T2009",
                    format!(
                        "`{token}` compares values of one type, but one side is a string and the other a number"
                    ),
                )),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The type symbol jsonata-js's signatures give the value of a literal
/// (`s n b l a o f`); `None` for anything else, whose type is not known.
pub(super) fn type_symbol(node: &AstNode) -> Option<char> {
    Some(match node {
        AstNode::String(_) => 's',
        AstNode::Number(_) => 'n',
        AstNode::Unary {
            op: UnaryOp::Negate,
            operand,
        } if matches!(**operand, AstNode::Number(_)) => 'n',
        AstNode::Boolean(_) => 'b',
        AstNode::Null => 'l',
        AstNode::Array(_) => 'a',
        AstNode::Object(_) => 'o',
        AstNode::Lambda { .. } | AstNode::Regex { .. } | AstNode::Transform { .. } => 'f',
        _ => return None,
    })
}
