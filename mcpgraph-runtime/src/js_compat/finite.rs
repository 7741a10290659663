//! NaN and Infinity as jsonata-js treats them.
//!
//! Both engines compute `1 / 0` (Infinity) and `1 % 0` (NaN). jsonata-js
//! then checks every arithmetic operand (`isNumeric`): NaN fails the
//! operator (T2001 left, T2002 right, D1002 for `-x`), Infinity fails with
//! D1001 "Number out of range"; and its truth test reads NaN as false and
//! fails on Infinity (D1001). jsonata-core does neither: `(1 % 0) + 1` is
//! NaN, `$not(1 % 0)` false.
//!
//! Only an expression that divides (`/` or `%`) can make such a number
//! from JSON data (ignoring overflow past 1.8e308), so only those are
//! rewritten: each arithmetic operand, negated value and truth-tested
//! value (condition, `and`/`or` side, `?:` left side, `$not`/`$boolean`
//! argument) that may hold one goes through [`operand`] or [`truth`].
//! A literal, a sum, difference, product or negation (its own operands
//! checked), a comparison or a function known to give a finite number or
//! no number at all cannot, and is left alone.

use jsonata_core::ast::{AstNode, BinaryOp, UnaryOp};
use jsonata_core::evaluator::EvaluatorError;
use jsonata_core::value::JValue;

use super::wrap;
use crate::bounded::push_children;

/// `$__mcpgraph_operand(value, code)`: `value` unless it is a non-finite
/// number; `code` says which operand it is (see [`OPERATORS`]).
pub(super) const OPERAND: &str = "__mcpgraph_operand";
/// `$__mcpgraph_truth(value)`: NaN as false, Infinity an error.
pub(super) const TRUTH: &str = "__mcpgraph_truth";

/// `$__mcpgraph_extreme(numbers, 1)` is `$max(numbers)`, with 0 it is
/// `$min`: the built-ins, but a NaN among the numbers gives NaN, as
/// JavaScript's `Math.max` (jsonata-js's) gives; jsonata-core's skips it.
pub(super) const EXTREME: &str = "__mcpgraph_extreme";

/// The arithmetic operators by code: operand code `i` is the left side of
/// `OPERATORS[i]`, `i + OPERATORS.len()` its right side, and
/// [`NEGATED`] the value of a unary minus.
const OPERATORS: [(BinaryOp, &str); 5] = [
    (BinaryOp::Add, "+"),
    (BinaryOp::Subtract, "-"),
    (BinaryOp::Multiply, "*"),
    (BinaryOp::Divide, "/"),
    (BinaryOp::Modulo, "%"),
];
const NEGATED: usize = 2 * OPERATORS.len();

/// Built-ins whose result is never a non-finite number.
const FINITE_FUNCTIONS: &[&str] = &[
    "count",
    "length",
    "string",
    "boolean",
    "not",
    "exists",
    "keys",
    "uppercase",
    "lowercase",
    "trim",
    "pad",
    "substring",
    "substringBefore",
    "substringAfter",
    "join",
    "split",
    "contains",
    "match",
    "replace",
    "type",
    "formatNumber",
    "formatBase",
    "formatInteger",
    "base64encode",
    "base64decode",
    "encodeUrl",
    "encodeUrlComponent",
    "decodeUrl",
    "decodeUrlComponent",
    "now",
    "millis",
];

/// Whether `ast` divides anywhere (`/` or `%`).
pub(super) fn divides(ast: &mut AstNode) -> bool {
    let mut stack = vec![ast];
    while let Some(node) = stack.pop() {
        if let AstNode::Binary {
            op: BinaryOp::Divide | BinaryOp::Modulo,
            ..
        } = node
        {
            return true;
        }
        push_children(node, &mut stack);
    }
    false
}

/// Wraps the operands and truth-tested values of `node` that may hold a
/// non-finite number; true when it wrapped any.
pub(super) fn guard_operands(node: &mut AstNode) -> bool {
    match node {
        AstNode::Binary { op, lhs, rhs } => {
            if let Some(i) = OPERATORS.iter().position(|(o, _)| o == op) {
                let left = guard(lhs, OPERAND, Some(i));
                let right = guard(rhs, OPERAND, Some(i + OPERATORS.len()));
                left | right
            } else if matches!(op, BinaryOp::And | BinaryOp::Or) {
                let left = guard(lhs, TRUTH, None);
                let right = guard(rhs, TRUTH, None);
                left | right
            } else if matches!(op, BinaryOp::Default) {
                guard(lhs, TRUTH, None)
            } else {
                false
            }
        }
        AstNode::Unary {
            op: UnaryOp::Negate,
            operand,
        } => guard(operand, OPERAND, Some(NEGATED)),
        AstNode::Conditional { condition, .. } => guard(condition, TRUTH, None),
        AstNode::Function {
            name,
            args,
            is_builtin: true,
        } if matches!(name.as_str(), "max" | "min")
            && matches!(args.as_slice(), [arg] if !is_literal(arg)) =>
        {
            let code = if name == "max" { 1.0 } else { 0.0 };
            *name = EXTREME.to_owned();
            args.push(AstNode::Number(code));
            true
        }
        AstNode::Function {
            name,
            args,
            is_builtin: true,
        } if matches!(name.as_str(), "not" | "boolean") && args.len() == 1 => {
            guard(&mut args[0], TRUTH, None)
        }
        _ => false,
    }
}

/// Wraps `node` in `check` when it may hold a non-finite number.
fn guard(node: &mut AstNode, check: &str, code: Option<usize>) -> bool {
    if !may_be_non_finite(node) {
        return false;
    }
    let extra = code.map(|c| vec![AstNode::Number(c as f64)]);
    wrap(node, check, extra.unwrap_or_default());
    true
}

fn is_literal(node: &AstNode) -> bool {
    matches!(
        node,
        AstNode::Number(_) | AstNode::String(_) | AstNode::Boolean(_) | AstNode::Null
    )
}

/// Whether `node` may evaluate to NaN or Infinity (see the module docs).
/// Follows the values a block or a conditional can give without
/// recursion.
fn may_be_non_finite(node: &AstNode) -> bool {
    let mut pending = vec![node];
    while let Some(node) = pending.pop() {
        match node {
            AstNode::Number(n) if !n.is_finite() => return true,
            AstNode::Block(items) => pending.extend(items.last()),
            AstNode::Conditional {
                then_branch,
                else_branch,
                ..
            } => {
                pending.push(then_branch);
                pending.extend(else_branch.as_deref());
            }
            AstNode::Binary {
                op: BinaryOp::ColonEqual,
                rhs,
                ..
            } => pending.push(rhs),
            AstNode::Binary { op, .. } => {
                if matches!(
                    op,
                    BinaryOp::Divide
                        | BinaryOp::Modulo
                        | BinaryOp::Coalesce
                        | BinaryOp::Default
                        | BinaryOp::ChainPipe
                ) {
                    return true;
                }
            }
            AstNode::Function {
                name,
                is_builtin: true,
                ..
            } => {
                let known =
                    name.starts_with("__mcpgraph_") || FINITE_FUNCTIONS.contains(&name.as_str());
                if !known {
                    return true;
                }
            }
            AstNode::Number(_)
            | AstNode::String(_)
            | AstNode::Boolean(_)
            | AstNode::Null
            | AstNode::Undefined
            | AstNode::Regex { .. }
            | AstNode::Lambda { .. }
            | AstNode::Array(_)
            | AstNode::Object(_)
            | AstNode::ObjectTransform { .. }
            | AstNode::Transform { .. }
            | AstNode::Unary { .. } => {}
            _ => return true,
        }
    }
    false
}

/// See [`OPERAND`]. Errors as jsonata-js's `evaluateNumericExpression`
/// and unary minus raise them.
pub(super) fn operand(args: &[JValue]) -> Result<JValue, EvaluatorError> {
    let value = args.first().cloned().unwrap_or(JValue::Undefined);
    let n = match value {
        JValue::Number(n) if !n.is_finite() => n,
        value => return Ok(value),
    };
    if n.is_infinite() {
        return Err(out_of_range());
    }
    let code = match args.get(1) {
        Some(JValue::Number(c)) => *c as usize,
        _ => NEGATED,
    };
    let message = match (code.checked_sub(OPERATORS.len()), OPERATORS.get(code)) {
        (_, Some((_, symbol))) => {
            format!("T2001: The left side of the {symbol} operator must evaluate to a number")
        }
        (Some(right), _) if right < OPERATORS.len() => format!(
            "T2002: The right side of the {} operator must evaluate to a number",
            OPERATORS[right].1
        ),
        _ => "D1002: Cannot negate a non-numeric value: NaN".to_owned(),
    };
    Err(EvaluatorError::TypeError(message))
}

/// See [`TRUTH`]: jsonata-js's `boolean` reads NaN as false and fails on
/// Infinity.
pub(super) fn truth(args: &[JValue]) -> Result<JValue, EvaluatorError> {
    match args.first() {
        Some(JValue::Number(n)) if n.is_nan() => Ok(JValue::Bool(false)),
        Some(JValue::Number(n)) if n.is_infinite() => Err(out_of_range()),
        Some(value) => Ok(value.clone()),
        None => Ok(JValue::Undefined),
    }
}

/// See [`EXTREME`]: the signature `<a<n>:n>` of the built-ins (a number
/// alone is an array of one; an empty array gives no value).
pub(super) fn extreme(args: &[JValue]) -> Result<JValue, EvaluatorError> {
    let max = matches!(args.get(1), Some(JValue::Number(c)) if *c == 1.0);
    let items = match args.first() {
        None | Some(JValue::Undefined) => return Ok(JValue::Undefined),
        Some(JValue::Number(n)) => return Ok(JValue::Number(*n)),
        Some(JValue::Array(items)) => items,
        Some(_) => return Err(not_numbers()),
    };
    let mut best: Option<f64> = None;
    for item in items.iter() {
        let JValue::Number(n) = item else {
            return Err(not_numbers());
        };
        best = Some(match best {
            None => *n,
            Some(b) if b.is_nan() || n.is_nan() => f64::NAN,
            Some(b) if max => b.max(*n),
            Some(b) => b.min(*n),
        });
    }
    Ok(best.map_or(JValue::Undefined, JValue::Number))
}

fn not_numbers() -> EvaluatorError {
    EvaluatorError::TypeError("T0412: Argument 1 must be an array of Number".to_owned())
}

fn out_of_range() -> EvaluatorError {
    EvaluatorError::EvaluationError("D1001: Number out of range".to_owned())
}
