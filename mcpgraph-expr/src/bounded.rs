//! Built-ins bounded before they allocate or run past their time.
//!
//! A watchdog stops an evaluation between steps (jsonata-core looks at its
//! cancel token at each node, and at each item a higher-order built-in
//! hands its callback), not inside one built-in call; and the byte budget
//! (`maxValueBytes`) is measured on what a node gives, not on what a
//! built-in builds inside an expression. So every built-in whose cost can
//! grow faster than its arguments is rewritten, once, before the tree is
//! ever evaluated ([`guard`]), to a host function that computes the size
//! of its result before it is built and looks at the time as it goes:
//!
//! | Built-in | Worst case, for inputs of size n | Bounded by |
//! |---|---|---|
//! | `$pad(s, w, c)` | w characters | [`PAD_ARG`]: `w` checked |
//! | `$join(a, sep)` | len(a) × len(sep) | [`JOIN`]: sized, then built |
//! | `$replace(s, p, r, l)`, `r` a string | matches × len(r): n² | [`REPLACE_CHECK`]: sized exactly |
//! | `$replace` with a function | matches × its results | time: a step per match |
//! | `$string(v, true)` | size × depth (indentation) | [`STRING_CHECK`]: lower bound |
//! | `$distinct(a)` | time n² (pairwise comparison) | [`DISTINCT`]: hashed, linear |
//! | `a..b` (ranges) | b − a items | D2014 (10⁷ items) and the sequence cap |
//! | `$string(v)`, `$keys`, `$merge`, `$spread`, `$append`, `$reverse`, `$zip`, `$lookup`, `$split`, `$uppercase`, `$lowercase`, `$trim`, `$substring*`, `$contains`, `$match`, `$base64*`, `$encode*`, `$decode*`, `$format*`, `$number`, aggregates | linear | size of their inputs |
//! | `$sort(a)` | time n log n | (fast enough at any size the budget admits) |
//! | `$map`, `$filter`, `$reduce`, `$single`, `$sift`, `$each`, `$sort(a, f)`, `$match`/`$replace`/`$split`/`$contains` with a regex | a step per item or match (regexes run in linear time: Rust's engine does not backtrack) | time: the watchdog |
//!
//! The sequence cap (`max_sequence_length`, set by the runtime from the
//! budget at two bytes an item) bounds ranges, path results, maps and
//! filters; it only bites where a budget is smaller than 20 MB. What a
//! linear built-in or operator (`&`, `$append`) builds from values already
//! built is at most a small multiple of them: growth over many steps
//! (a value doubled in a loop) is stopped by the time limit. A built-in
//! taken as a value (`$f := $replace`) or partly applied
//! (`$replace(?, "a", "b")`) is not rewritten.
//!
//! The rewrites keep jsonata-js's results below the budget:
//!
//! - every argument of `$pad(...)` goes through [`PAD_ARG`], which passes
//!   it on unchanged unless it is a width whose padding alone would pass
//!   the budget (each character is at least one byte). The built-in still
//!   does the padding;
//! - `$join(...)` and `$distinct(...)` become [`JOIN`] and [`DISTINCT`],
//!   the built-ins' behaviour (error codes included, which the
//!   conformance suite pins) with the bounds. Both are on jsonata-core's
//!   compiled fast path, so they cannot be overridden in place;
//! - `$replace(a, ...)` and `$string(v, p)` become a block that binds
//!   their arguments once, in order, calls a check on them (and on the
//!   context `$`, which `$replace` reads when its string is left out),
//!   then the built-in: `($__mcpgraph_0 := a; ...;
//!   $__mcpgraph_replace_check($, $__mcpgraph_0, ...);
//!   $replace($__mcpgraph_0, ...))`. The check fails only where the
//!   built-in would succeed with a result over the budget.
//!
//! The functions are here too, with the `eval` feature: every evaluator
//! of the runtime registers them (`register`), as any rewritten
//! expression may call them.

use jsonata_core::ast::{AstNode, BinaryOp};

use crate::push_children;

/// `$__mcpgraph_pad_arg(arg)`: a `$pad` argument, checked against the size
/// budget.
pub const PAD_ARG: &str = "__mcpgraph_pad_arg";
/// `$__mcpgraph_join(...)`: `$join`, checked against the size budget.
pub const JOIN: &str = "__mcpgraph_join";
/// `$__mcpgraph_distinct(a)`: `$distinct` in linear time.
pub const DISTINCT: &str = "__mcpgraph_distinct";
/// `$__mcpgraph_replace_check($, args...)`: fails if `$replace(args...)`
/// would be larger than the budget.
pub const REPLACE_CHECK: &str = "__mcpgraph_replace_check";
/// `$__mcpgraph_string_check($, args...)`: fails if `$string(args...)`
/// would be larger than the budget.
pub const STRING_CHECK: &str = "__mcpgraph_string_check";
/// The prefix of the variables a checked call binds its arguments to.
const ARG_VAR: &str = "__mcpgraph_";

/// Rewrites the calls of the built-ins in the module docs' table (see
/// there).
pub fn guard(ast: &mut AstNode) {
    let mut stack = vec![ast];
    while let Some(node) = stack.pop() {
        if let AstNode::Function {
            name,
            args,
            is_builtin: true,
        } = node
        {
            let partial = args.iter().any(|arg| matches!(arg, AstNode::Placeholder));
            match name.as_str() {
                "pad" => {
                    for arg in args.iter_mut() {
                        if !matches!(arg, AstNode::Placeholder) {
                            let inner = std::mem::replace(arg, AstNode::Null);
                            *arg = AstNode::Function {
                                name: PAD_ARG.to_owned(),
                                args: vec![inner],
                                is_builtin: true,
                            };
                        }
                    }
                    // The wrapped arguments are walked below, inside their
                    // wrappers.
                }
                "join" => *name = JOIN.to_owned(),
                "distinct" => *name = DISTINCT.to_owned(),
                "replace" if !partial && (2..=4).contains(&args.len()) => {
                    checked(node, REPLACE_CHECK, &mut stack);
                    continue;
                }
                "string" if !partial && args.len() == 2 => {
                    checked(node, STRING_CHECK, &mut stack);
                    continue;
                }
                _ => {}
            }
        }
        push_children(node, &mut stack);
    }
}

/// Turns the call `node` into a block that binds its arguments, calls
/// `check` on the context and them, then makes the call on them (see the
/// module docs); pushes the arguments onto `stack`, to be walked.
fn checked<'a>(node: &'a mut AstNode, check: &str, stack: &mut Vec<&'a mut AstNode>) {
    let AstNode::Function { name, args, .. } = std::mem::replace(node, AstNode::Null) else {
        return;
    };
    let vars: Vec<String> = (0..args.len()).map(|i| format!("{ARG_VAR}{i}")).collect();
    let bound = || vars.iter().map(|var| AstNode::Variable(var.clone()));
    let mut items: Vec<AstNode> = vars
        .iter()
        .zip(args)
        .map(|(var, arg)| AstNode::Binary {
            op: BinaryOp::ColonEqual,
            lhs: Box::new(AstNode::Variable(var.clone())),
            rhs: Box::new(arg),
        })
        .collect();
    items.push(AstNode::Function {
        name: check.to_owned(),
        args: std::iter::once(AstNode::Variable(String::new()))
            .chain(bound())
            .collect(),
        is_builtin: true,
    });
    items.push(AstNode::Function {
        name,
        args: bound().collect(),
        is_builtin: true,
    });
    *node = AstNode::Block(items);
    if let AstNode::Block(items) = node {
        for item in items {
            if let AstNode::Binary { rhs, .. } = item {
                stack.push(rhs);
            }
        }
    }
}

#[cfg(feature = "eval")]
mod host;

#[cfg(feature = "eval")]
pub use host::{CODE, register};

#[cfg(all(test, feature = "eval"))]
mod tests;
