//! Where NaN or Infinity can come from, judged from the tree (see
//! `finite`): what a node gives, and whether the context `$` it is
//! evaluated on is JSON data, which holds finite numbers only.

use jsonata_core::ast::{AstNode, BinaryOp, PathStep};

use super::{EXTREME, OPERAND, TRUTH};
use crate::bounded::JOIN;

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
    // The checks themselves, and `bounded`'s `$join`.
    OPERAND,
    TRUTH,
    JOIN,
];

/// Built-ins whose result is finite when every number they are given is
/// (ignoring overflow past 1.8e308, as for `+` and `*`).
const AGGREGATES: &[&str] = &[
    "sum", "max", "min", "average", "abs", "floor", "ceil", "round", EXTREME,
];

/// Whether `node`, evaluated on a context that is JSON data (`data`) or
/// may not be, may give NaN or Infinity. Operands of `+`, `-`, `*`, `/`,
/// `%` and of unary minus are checked where they are used, so those
/// operators give finite numbers, but for a division or remainder by
/// anything else than a non-zero literal. Follows what blocks,
/// conditionals, array items and aggregates give without recursion.
pub(super) fn may_be_non_finite(node: &AstNode, data: bool) -> bool {
    let mut pending = vec![(node, data)];
    while let Some((node, data)) = pending.pop() {
        let open = match node {
            AstNode::Number(n) => !n.is_finite(),
            AstNode::String(_)
            | AstNode::Boolean(_)
            | AstNode::Null
            | AstNode::Undefined
            | AstNode::Placeholder
            | AstNode::Regex { .. }
            | AstNode::Lambda { .. }
            | AstNode::Object(_)
            | AstNode::ObjectTransform { .. }
            | AstNode::Transform { .. }
            | AstNode::Unary { .. } => false,
            AstNode::Array(items) => {
                pending.extend(items.iter().map(|item| (item, data)));
                false
            }
            AstNode::Block(items) => {
                pending.extend(items.last().map(|item| (item, data)));
                false
            }
            AstNode::FunctionApplication(inner) => {
                pending.push((inner, data));
                false
            }
            AstNode::Conditional {
                then_branch,
                else_branch,
                ..
            } => {
                pending.push((then_branch, data));
                pending.extend(else_branch.as_deref().map(|other| (other, data)));
                false
            }
            AstNode::Binary { op, rhs, .. } => match op {
                BinaryOp::ColonEqual => {
                    pending.push((rhs, data));
                    false
                }
                BinaryOp::Divide | BinaryOp::Modulo => !is_non_zero_literal(rhs),
                BinaryOp::Coalesce | BinaryOp::Default | BinaryOp::ChainPipe => true,
                _ => false,
            },
            AstNode::Function {
                name,
                args,
                is_builtin: true,
            } => {
                if AGGREGATES.contains(&name.as_str()) {
                    pending.extend(args.iter().map(|arg| (arg, data)));
                    false
                } else {
                    !FINITE_FUNCTIONS.contains(&name.as_str())
                }
            }
            AstNode::Path { steps } => match computed_last_step(steps, data) {
                // `items.(price * qty)`: what the last step gives, on
                // the data the steps before it reach.
                Some((last, context)) => {
                    pending.push((last, context));
                    false
                }
                None => !data_value(node, data),
            },
            other => !data_value(other, data),
        };
        if open {
            return true;
        }
    }
    false
}

/// A path's last step when it computes (a block, a function call...) and
/// every step before it navigates, with whether its context is data.
fn computed_last_step(steps: &[PathStep], data: bool) -> Option<(&AstNode, bool)> {
    let (last, before) = steps.split_last()?;
    if navigates(&last.node) || !last.stages.is_empty() {
        return None;
    }
    let context = data && before.iter().all(|step| navigates(&step.node));
    Some((&last.node, context))
}

/// A number literal other than zero, negated or not.
fn is_non_zero_literal(mut node: &AstNode) -> bool {
    while let AstNode::Unary { operand, .. } = node {
        node = operand;
    }
    matches!(node, AstNode::Number(n) if n.is_finite() && *n != 0.0)
}

/// Whether `node` reads JSON data: `$$`, or `$` or a path of field names
/// (and wildcards, parents) on a context that is JSON data.
pub(super) fn data_value(node: &AstNode, data: bool) -> bool {
    match node {
        AstNode::Variable(name) => name.is_empty() && data,
        AstNode::ParentVariable(_) => true,
        AstNode::Path { steps } => data && steps.iter().all(|step| navigates(&step.node)),
        _ => false,
    }
}

/// Whether a path step only moves through the data (its result, and the
/// context of the next step, are data when its context is).
pub(super) fn navigates(node: &AstNode) -> bool {
    match node {
        AstNode::Name(_)
        | AstNode::ParentVariable(_)
        | AstNode::Wildcard
        | AstNode::Descendant
        | AstNode::Parent(_) => true,
        AstNode::Variable(name) => name.is_empty(),
        _ => false,
    }
}
