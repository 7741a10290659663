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
//! argument) that may hold one (judged by the tree alone) goes through a
//! check, a host function ([`OPERAND`], [`TRUTH`]);
//! `$max`/`$min` of numbers that may include NaN are computed as
//! JavaScript's `Math.max`/`Math.min` do ([`EXTREME`]), and the array
//! of a one-argument `$sort` is checked as jsonata-js checks it
//! ([`SORTABLE`]). What reads
//! JSON data (`price`, `$.entry.a`, `items.(price * qty)`), literals,
//! sums, products, comparisons and divisions by a non-zero literal give
//! finite numbers and are left alone, so the usual arithmetic costs
//! nothing more.
//!
//! The checks themselves are here too, with the `eval` feature: host
//! functions `compat::register` puts on an evaluator.

mod flow;

use jsonata_core::ast::{AstNode, BinaryOp, Stage, UnaryOp};

use super::wrap;
use crate::push_children;
use flow::{data_value, may_be_non_finite, navigates};

/// `$__mcpgraph_operand(value, code)`: `value` unless it is a non-finite
/// number; `code` says which operand it is (see [`OPERATORS`]).
pub const OPERAND: &str = "__mcpgraph_operand";
/// `$__mcpgraph_truth(value)`: NaN as false, Infinity an error.
pub const TRUTH: &str = "__mcpgraph_truth";
/// `$__mcpgraph_extreme(numbers, 1)` is `$max(numbers)`, with 0 it is
/// `$min`: the built-ins, but a NaN among the numbers gives NaN, as
/// JavaScript's `Math.max` (jsonata-js's) gives; jsonata-core's skips it.
pub const EXTREME: &str = "__mcpgraph_extreme";
/// `$__mcpgraph_sortable(values)`: the array, unless a number in it is NaN
/// (D3070, as jsonata-js's one-argument `$sort` finds it is no array of
/// numbers) or infinite (D1001); jsonata-core sorts them.
pub const SORTABLE: &str = "__mcpgraph_sortable";

/// The arithmetic operators by code: operand code `i` is the left side of
/// `OPERATORS[i]`, `i + OPERATORS.len()` its right side, and
/// [`NEGATED`] the value of a unary minus.
pub const OPERATORS: [(BinaryOp, &str); 5] = [
    (BinaryOp::Add, "+"),
    (BinaryOp::Subtract, "-"),
    (BinaryOp::Multiply, "*"),
    (BinaryOp::Divide, "/"),
    (BinaryOp::Modulo, "%"),
];
/// The operand code of a unary minus's value.
pub const NEGATED: usize = 2 * OPERATORS.len();

/// Whether `ast` divides anywhere (`/` or `%`).
pub(crate) fn divides(ast: &mut AstNode) -> bool {
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

/// Rewrites an expression that divides (see the module docs); true when
/// it wrapped anything. Walks without recursion, knowing at each node
/// whether its context `$` is JSON data (the input is).
pub(crate) fn guard_all(ast: &mut AstNode) -> bool {
    let mut guarded = false;
    let mut stack = vec![(ast, true)];
    while let Some((node, data)) = stack.pop() {
        guarded |= guard_operands(node, data);
        push_in_context(node, data, &mut stack);
    }
    guarded
}

/// Pushes `node`'s children with whether their context is JSON data: a
/// path step's context is the previous steps' result, a predicate's and a
/// group-by's or sort's terms' the items they run on; a transform's is
/// whatever its function is applied to.
fn push_in_context<'a>(
    node: &'a mut AstNode,
    data: bool,
    stack: &mut Vec<(&'a mut AstNode, bool)>,
) {
    match node {
        AstNode::Path { steps } => {
            let mut context = data;
            for step in steps {
                let next = context && navigates(&step.node);
                stack.push((&mut step.node, context));
                for stage in &mut step.stages {
                    if let Stage::Filter(filter) = stage {
                        stack.push((&mut **filter, next));
                    }
                }
                context = next;
            }
        }
        AstNode::ObjectTransform { input, pattern } => {
            let items = data_value(input, data);
            stack.push((&mut **input, data));
            for (key, value) in pattern {
                stack.extend([(key, items), (value, items)]);
            }
        }
        AstNode::Sort { input, terms } => {
            let items = data_value(input, data);
            stack.push((&mut **input, data));
            stack.extend(terms.iter_mut().map(|(term, _)| (term, items)));
        }
        AstNode::Transform { .. } => {
            let mut children = Vec::new();
            push_children(node, &mut children);
            stack.extend(children.into_iter().map(|child| (child, false)));
        }
        _ => {
            let mut children = Vec::new();
            push_children(node, &mut children);
            stack.extend(children.into_iter().map(|child| (child, data)));
        }
    }
}

/// Wraps the operands and truth-tested values of `node` that may hold a
/// non-finite number; true when it wrapped any.
fn guard_operands(node: &mut AstNode, data: bool) -> bool {
    match node {
        AstNode::Binary { op, lhs, rhs } => {
            if let Some(i) = OPERATORS.iter().position(|(o, _)| o == op) {
                let left = guard(lhs, data, OPERAND, Some(i));
                let right = guard(rhs, data, OPERAND, Some(i + OPERATORS.len()));
                left | right
            } else if matches!(op, BinaryOp::And | BinaryOp::Or) {
                let left = guard(lhs, data, TRUTH, None);
                let right = guard(rhs, data, TRUTH, None);
                left | right
            } else if matches!(op, BinaryOp::Default) {
                guard(lhs, data, TRUTH, None)
            } else {
                false
            }
        }
        AstNode::Unary {
            op: UnaryOp::Negate,
            operand,
        } => guard(operand, data, OPERAND, Some(NEGATED)),
        AstNode::Conditional { condition, .. } => guard(condition, data, TRUTH, None),
        AstNode::Function {
            name,
            args,
            is_builtin: true,
        } => match (name.as_str(), args.as_mut_slice()) {
            ("max" | "min", [numbers]) if may_be_non_finite(numbers, data) => {
                let code = if name == "max" { 1.0 } else { 0.0 };
                *name = EXTREME.to_owned();
                args.push(AstNode::Number(code));
                true
            }
            ("not" | "boolean", [value]) => guard(value, data, TRUTH, None),
            ("sort", [array]) if may_be_non_finite(array, data) => {
                wrap(array, SORTABLE, Vec::new());
                true
            }
            _ => false,
        },
        _ => false,
    }
}

/// Wraps `node` in `check` when it may hold a non-finite number.
fn guard(node: &mut AstNode, data: bool, check: &str, code: Option<usize>) -> bool {
    if !may_be_non_finite(node, data) {
        return false;
    }
    let extra = code.map(|c| vec![AstNode::Number(c as f64)]);
    wrap(node, check, extra.unwrap_or_default());
    true
}
