//! Built-ins bounded before they allocate.
//!
//! A watchdog can stop an evaluation between steps, but not inside one
//! built-in call: `$pad("", 1e9)` or `$join` of many copies of a long
//! separator allocates gigabytes in a single step, before any node output
//! is measured. So [`guard`] rewrites those calls to check their size
//! against the runtime's `maxValueBytes` first:
//!
//! - every argument of `$pad(...)` goes through [`PAD_ARG`], which passes
//!   it on unchanged unless it is a width whose padding alone would pass
//!   the budget (each character is at least one byte). The built-in still
//!   does the padding, with its own signature handling (the string taken
//!   from the context included);
//! - `$join(...)` becomes [`JOIN`], which computes the result's length
//!   before building it. `$join` is on jsonata-core's compiled fast path,
//!   so it cannot be overridden in place; the runtime's function is the
//!   built-in's behaviour, error codes included, which the conformance
//!   suite pins.
//!
//! Every evaluator of the runtime registers both functions: any rewritten
//! expression may call them.

use jsonata_core::ast::AstNode;

use crate::names::{JOIN, PAD_ARG};
use crate::push_children;

/// Rewrites every `$pad` and `$join` call in `ast` (see the module docs).
pub fn guard(ast: &mut AstNode) {
    let mut stack = vec![ast];
    while let Some(node) = stack.pop() {
        if let AstNode::Function {
            name,
            args,
            is_builtin: true,
        } = node
        {
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
                _ => {}
            }
        }
        push_children(node, &mut stack);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn deep_expressions_are_walked_without_recursion() {
        let source = format!("{}1{}", "[".repeat(20_000), "]".repeat(20_000));
        if let Ok(mut ast) = jsonata_core::parser::parse(&source) {
            super::guard(&mut ast);
        }
    }
}
