//! Paths into an `mcp` node's output (`$.node.field...`), checked against
//! the `outputSchema` its tool declares in the lock: the node's output is
//! the result's `structuredContent`, which that schema describes.

use jsonata_core::ast::{AstNode, Stage};
use serde_json::Value;

use super::{Lock, UNKNOWN_OUTPUT_FIELD, lint, path_names};
use crate::diag::Diagnostics;
use crate::model::{Arg, Expr, Logic, Message, NodeKind, Tool};

/// Checks every expression of `tool`.
pub(super) fn check_output_paths(tool: &Tool, lock: &Lock, diags: &mut Diagnostics) {
    for expr in tool_exprs(tool) {
        let Ok(ast) = jsonata_core::parser::parse(&expr.source) else {
            continue;
        };
        for path in context_paths(&ast) {
            check_path(tool, lock, expr, &path, diags);
        }
    }
}

/// Every expression of `tool` that reads the graph's context (not a
/// `forEach` node's `call.args`, which read `$.item`).
pub(crate) fn tool_exprs(tool: &Tool) -> Vec<&Expr> {
    let mut exprs = Vec::new();
    for node in &tool.nodes {
        match &node.kind {
            NodeKind::Transform { expr, .. } => exprs.push(expr),
            NodeKind::Mcp { args, .. } => arg_exprs(args, &mut exprs),
            NodeKind::Parallel { branches, .. } => {
                for (_, call) in branches {
                    arg_exprs(&call.args, &mut exprs);
                }
            }
            // Its `call.args` read `$.item`, which is no node.
            NodeKind::ForEach { items, .. } => exprs.push(items),
            NodeKind::Switch { conditions, .. } => {
                for condition in conditions {
                    logic_exprs(&condition.rule, &mut exprs);
                }
            }
            NodeKind::Elicit {
                message: Message::Expr(expr),
                ..
            } => exprs.push(expr),
            NodeKind::Elicit { .. } | NodeKind::Entry { .. } | NodeKind::Exit => {}
        }
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
pub(crate) fn context_paths(ast: &AstNode) -> Vec<Vec<String>> {
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

/// `[node, field, ...]`: when `node` is an `mcp` node whose tool declares
/// an output schema, each field must be one the schema allows.
fn check_path(tool: &Tool, lock: &Lock, expr: &Expr, path: &[String], diags: &mut Diagnostics) {
    let Some((node_id, fields)) = path.split_first() else {
        return;
    };
    let Some(NodeKind::Mcp {
        server,
        tool: name,
        resilience,
        ..
    }) = tool
        .nodes
        .iter()
        .find(|n| n.id.value == *node_id)
        .map(|n| &n.kind)
    else {
        return;
    };
    // A node with `onError` has `{error: ...}` for its output after a
    // failure, which no output schema describes.
    if resilience.on_error.is_some() && fields.first().is_some_and(|f| f == "error") {
        return;
    }
    let Some(mut schema) = lock
        .servers
        .get(&server.value)
        .and_then(|s| s.tools.get(&name.value))
        .and_then(|t| t.output_schema.as_ref())
    else {
        return;
    };
    let mut walked = node_id.clone();
    for field in fields {
        // A path maps over arrays: look through `items`.
        while let Some(items) = schema.get("items").filter(|_| is_array(schema)) {
            schema = items;
        }
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            return;
        };
        let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
        match properties.get(field) {
            Some(next) => schema = next,
            None => {
                let message = format!(
                    "`{walked}.{field}`: the output of `{}` (a call to `{}`) has no field `{field}`",
                    node_id, name.value
                );
                let known: Vec<&str> = properties.keys().map(String::as_str).collect();
                let d = if closed {
                    diags.error(expr.pos, message)
                } else {
                    let d = diags.warning(expr.pos, message);
                    lint(d, UNKNOWN_OUTPUT_FIELD);
                    d
                };
                d.note(format!(
                    "its fields, by its outputSchema: {}",
                    known.join(", ")
                ));
                if let Some(close) = crate::suggest::suggest(field, &known) {
                    d.help(format!("did you mean `{close}`?"));
                }
                return;
            }
        }
        walked = format!("{walked}.{field}");
    }
}

pub(crate) fn is_array(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == "array",
        Some(Value::Array(types)) => types.iter().any(|t| t == "array"),
        _ => schema.get("items").is_some(),
    }
}
