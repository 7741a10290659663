//! jsonata-js's behaviour where jsonata-core's differs, restored by
//! rewriting the expression once, before it is evaluated.
//!
//! FORMAT.md says transforms follow jsonata-js; the differential runner
//! (docs/DIFFERENTIAL.md) found these gaps, each closed here without
//! touching jsonata-core:
//!
//! - **non-finite numbers** ([`finite`]): `x / 0` and `x % 0` give NaN or
//!   Infinity in both engines, but jsonata-js then refuses them as an
//!   operand (T2001/T2002, D1002, or D1001 "Number out of range") and
//!   reads NaN as false; jsonata-core carries them on. In an expression
//!   that divides, operands and conditions that may hold such a number go
//!   through a check;
//! - **key order**: a JavaScript object lists integer-like keys
//!   first, ascending; jsonata-core keeps insertion order, which `$keys`,
//!   `$each`, `$spread`, `$string` and `&` show. Objects built with keys
//!   computed at run time (or integer-like literal ones), group-bys and
//!   `$merge` results are put in JavaScript's order;
//! - **`$reduce` of an empty array** without a start value: no value in
//!   jsonata-js, `null` in jsonata-core. The array goes through a check
//!   that turns an empty one into no value, which jsonata-core reduces to
//!   no value;
//! - **`$exists($)`**: jsonata-core looks `$` up as a variable named "" and
//!   answers false; it is evaluated as `($)` instead.
//!
//! The checks are host functions, in `host` beside the rewrites that call
//! them (with the `eval` feature), which the runtime registers by group
//! (`register`, [`Helpers`]); an expression that needs none of them (no
//! division, no computed keys, no `$merge`, no two-argument `$reduce`) is
//! left as it is and costs nothing more.

pub mod finite;
mod keys;

use jsonata_core::ast::{AstNode, StepId};

use crate::{Helpers, is_plain_step, push_children};
pub use keys::KEYS;

/// `$__mcpgraph_nonempty(value)`: its argument, but no value for an empty
/// array (see the module docs on `$reduce`).
pub const NONEMPTY: &str = "__mcpgraph_nonempty";

/// Rewrites `ast` (see the module docs) and says which helpers it now
/// calls.
pub fn rewrite(ast: &mut AstNode) -> Helpers {
    let mut used = Helpers::default();
    if finite::divides(ast) && finite::guard_all(ast) {
        used.add(Helpers::FINITE);
    }
    if keys::needs_order(ast) {
        wrap(ast, KEYS, Vec::new());
        used.add(Helpers::KEYS);
    }
    let mut stack = vec![ast];
    let mut children = Vec::new();
    while let Some(node) = stack.pop() {
        rewrite_calls(node, &mut used);
        if order_steps(node) {
            used.add(Helpers::KEYS);
        }
        // A wrapper's own argument is already in order; a path's steps
        // were handled by `order_steps`.
        let order_children = !keys::is_wrapper(node) && !matches!(node, AstNode::Path { .. });
        push_children(node, &mut children);
        for child in children.drain(..) {
            if order_children && keys::needs_order(child) {
                wrap(child, KEYS, Vec::new());
                used.add(Helpers::KEYS);
            }
            stack.push(child);
        }
    }
    used
}

/// `$exists($)` and two-argument `$reduce` (see the module docs).
fn rewrite_calls(node: &mut AstNode, used: &mut Helpers) {
    let AstNode::Function {
        name,
        args,
        is_builtin: true,
    } = node
    else {
        return;
    };
    match (name.as_str(), args.as_mut_slice()) {
        ("exists", [arg]) if is_context(arg) => {
            *arg = AstNode::Block(vec![AstNode::Variable(String::new())]);
        }
        ("reduce", [array, function]) if reduces_as_written(array, function) => {
            wrap(array, NONEMPTY, Vec::new());
            used.add(Helpers::NONEMPTY);
        }
        _ => {}
    }
}

/// Whether `node` is `$`, the context.
fn is_context(node: &AstNode) -> bool {
    matches!(node, AstNode::Variable(name) if name.is_empty())
}

/// Whether an empty `array` would make jsonata-js's `$reduce` give no value
/// rather than an error: the array is not a placeholder, and the function
/// is not a lambda of fewer than two parameters (D3050 before anything).
fn reduces_as_written(array: &AstNode, function: &AstNode) -> bool {
    let too_few = matches!(function, AstNode::Lambda { params, .. } if params.len() < 2);
    !matches!(array, AstNode::Placeholder) && !too_few
}

/// Puts a path step that builds an object in JavaScript's key order (a
/// plain step only: one with stages or bindings is left as it is). Its
/// node changes, so the step gets a new id (see `PathStep::id`).
fn order_steps(node: &mut AstNode) -> bool {
    let AstNode::Path { steps } = node else {
        return false;
    };
    let mut ordered = false;
    for step in steps.iter_mut() {
        if is_plain_step(step) && keys::needs_order(&step.node) {
            wrap(&mut step.node, KEYS, Vec::new());
            step.id = StepId::default();
            ordered = true;
        }
    }
    ordered
}

/// Replaces `node` with a call of the host function `name` on it, followed
/// by `extra` arguments.
fn wrap(node: &mut AstNode, name: &str, extra: Vec<AstNode>) {
    let inner = std::mem::replace(node, AstNode::Null);
    let mut args = Vec::with_capacity(1 + extra.len());
    args.push(inner);
    args.extend(extra);
    *node = AstNode::Function {
        name: name.to_owned(),
        args,
        is_builtin: true,
    };
}

#[cfg(feature = "eval")]
mod host;

#[cfg(feature = "eval")]
pub use host::register;

#[cfg(all(test, feature = "eval"))]
mod tests;
