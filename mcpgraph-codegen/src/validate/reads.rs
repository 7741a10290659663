//! What the graph's expressions read: every expression of a tool, with
//! what `$` is in it, and the paths of an expression that start at the
//! context (`$.node.field...`, `$$.node...`).

use jsonata_core::ast::{AstNode, Stage};

use crate::call_args::path_names;
use crate::model::{Arg, Expr, Logic, Message, Node, NodeKind, Tool};

/// What an expression's paths start from.
#[derive(Clone, Copy, Debug)]
pub(super) enum Root<'a> {
    /// The graph's context: the nodes that ran.
    Context,
    /// Inside the `call.args` of this `forEach` node: `$.item` and
    /// `$.index` besides the nodes (and shadowing nodes of those ids).
    Item(&'a Node),
}

/// Every expression of `tool` that reads the graph's context, with its
/// root.
pub(super) fn tool_exprs(tool: &Tool) -> Vec<(&Expr, Root<'_>)> {
    let mut exprs = Vec::new();
    for node in &tool.nodes {
        let mut found = Vec::new();
        let mut root = Root::Context;
        match &node.kind {
            NodeKind::Transform { expr, .. } => found.push(expr),
            NodeKind::Mcp { args, .. } => arg_exprs(args, &mut found),
            NodeKind::Parallel { branches, .. } => {
                for (_, call) in branches {
                    arg_exprs(&call.args, &mut found);
                }
            }
            NodeKind::ForEach { items, call, .. } => {
                exprs.push((items, Root::Context));
                arg_exprs(&call.args, &mut found);
                root = Root::Item(node);
            }
            NodeKind::Switch { conditions, .. } => {
                for condition in conditions {
                    logic_exprs(&condition.rule, &mut found);
                }
            }
            NodeKind::Elicit {
                message: Message::Expr(expr),
                ..
            } => found.push(expr),
            NodeKind::Elicit { .. } | NodeKind::Entry { .. } | NodeKind::Exit => {}
        }
        exprs.extend(found.into_iter().map(|e| (e, root)));
    }
    exprs
}

fn arg_exprs<'a>(arg: &'a Arg, out: &mut Vec<&'a Expr>) {
    match arg {
        Arg::Expr(expr) => out.push(expr),
        Arg::Object(fields) => fields.iter().for_each(|(_, a)| arg_exprs(a, out)),
        Arg::Array(items) => items.iter().for_each(|a| arg_exprs(a, out)),
        Arg::Literal(_) => {}
    }
}

fn logic_exprs<'a>(logic: &'a Logic, out: &mut Vec<&'a Expr>) {
    match logic {
        Logic::Var(expr) => out.push(expr),
        Logic::Object(fields) => fields.iter().for_each(|(_, l)| logic_exprs(l, out)),
        Logic::Array(items) => items.iter().for_each(|l| logic_exprs(l, out)),
        Logic::Literal(_) => {}
    }
}

/// The paths of `ast` that read the context from its root: `$$.a.b`
/// anywhere, `$.a.b` where `$` is still the context (not inside a
/// predicate, a later path step or a function body). Walks without
/// recursion.
pub(super) fn context_paths(ast: &AstNode) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut stack = vec![(ast, true)];
    while let Some((node, top)) = stack.pop() {
        if let Some(names) = path_names(node) {
            let root = matches!(node, AstNode::Path { steps } if matches!(steps[0].node, AstNode::ParentVariable(_)));
            if top || root {
                out.push(names);
            }
        }
        match node {
            AstNode::Path { steps } => {
                for (i, step) in steps.iter().enumerate() {
                    stack.push((&step.node, top && i == 0));
                    for stage in &step.stages {
                        if let Stage::Filter(filter) = stage {
                            stack.push((filter, false));
                        }
                    }
                }
            }
            AstNode::Lambda { body, .. } => stack.push((body, false)),
            AstNode::Binary { lhs, rhs, .. } => stack.extend([(&**lhs, top), (&**rhs, top)]),
            AstNode::Unary { operand, .. } => stack.push((operand, top)),
            AstNode::Function { args, .. } => stack.extend(args.iter().map(|a| (a, top))),
            AstNode::Call { procedure, args } => {
                stack.push((procedure, top));
                stack.extend(args.iter().map(|a| (a, top)));
            }
            AstNode::Array(items) | AstNode::Block(items) => {
                stack.extend(items.iter().map(|a| (a, top)))
            }
            AstNode::Object(pairs) => {
                stack.extend(pairs.iter().flat_map(|(k, v)| [(k, top), (v, top)]));
            }
            AstNode::Conditional {
                condition,
                then_branch,
                else_branch,
            } => {
                stack.extend([(&**condition, top), (&**then_branch, top)]);
                if let Some(other) = else_branch {
                    stack.push((other, top));
                }
            }
            _ => {}
        }
    }
    out
}

/// The names of `ast` when it is nothing but a path from the context
/// (`$.entry.files`, no predicates or other steps).
pub(super) fn whole_path(ast: &AstNode) -> Option<Vec<String>> {
    let AstNode::Path { steps } = ast else {
        return None;
    };
    let names = path_names(ast)?;
    (names.len() + 1 == steps.len() && steps.iter().all(|s| s.stages.is_empty())).then_some(names)
}
