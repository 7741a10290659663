//! The graph checked against its lock at build time: every `mcp` node's
//! call against the tool the lock records. (The paths into the outputs of
//! calls are checked with the other types, in `validate`, given the lock.)
//!
//! Errors are what the server would reject for certain (a tool it does
//! not have, a required argument missing, a literal that does not match
//! its schema, an argument a closed schema does not allow); warnings, each
//! with a lint name `allow(...)` accepts, are what is likely wrong.

use std::collections::BTreeSet;

use jsonata_core::ast::AstNode;
use serde_json::Value;

use super::{Lock, ToolLock};
use crate::diag::{Diagnostic, Diagnostics};
use crate::model::{Arg, Expr, GraphFile, NodeKind, Pos, Resilience, Tool};

/// A server the graph declares that the lock lacks, or a locked server no
/// node calls.
pub const LOCK_COVERAGE: &str = "lock_coverage";
/// An argument the tool's (open) input schema does not list.
pub const UNKNOWN_ARGUMENT: &str = "unknown_argument";
/// An `{expr}` argument reading a tool argument of another JSON type.
pub const ARGUMENT_TYPE: &str = "argument_type";
/// A path into an `mcp` node's output naming a field its tool's (open)
/// output schema does not list.
pub const UNKNOWN_OUTPUT_FIELD: &str = "unknown_output_field";
/// A `retry` on a call to a tool that the lock does not annotate as
/// read-only (`readOnlyHint`) or idempotent (`idempotentHint`): a retried
/// call may do its work twice.
pub const RETRY_NOT_IDEMPOTENT: &str = "retry_not_idempotent";

/// Every lint of this module.
pub const LINTS: [&str; 5] = [
    LOCK_COVERAGE,
    UNKNOWN_ARGUMENT,
    ARGUMENT_TYPE,
    UNKNOWN_OUTPUT_FIELD,
    RETRY_NOT_IDEMPOTENT,
];

/// Checks `file` against `lock` (read from the file shown as `lock_name`).
pub fn check(file: &GraphFile, lock: &Lock, lock_name: &str, diags: &mut Diagnostics) {
    for server in &file.mcp_servers {
        if !lock.servers.contains_key(&server.name.value) {
            let d = diags.warning(
                server.name.pos,
                format!(
                    "server `{}` is not in the lock `{lock_name}`",
                    server.name.value
                ),
            );
            d.help("run `mcpgraph lock` to record its tools; until then its calls are not checked");
            d.lint = Some(LOCK_COVERAGE);
        }
    }
    for tool in &file.tools {
        for node in &tool.nodes {
            check_fan_out_retries(&node.kind, lock, diags);
            let NodeKind::Mcp {
                server,
                tool: name,
                args,
                args_pos,
                resilience,
                ..
            } = &node.kind
            else {
                continue;
            };
            let Some(locked) = lock.servers.get(&server.value) else {
                continue;
            };
            let Some(target) = locked.tools.get(&name.value) else {
                let names: Vec<&str> = locked.tools.keys().map(String::as_str).collect();
                let d = diags.error(
                    name.pos,
                    format!("server `{}` has no tool `{}`", server.value, name.value),
                );
                if let Some(close) = crate::suggest::suggest(&name.value, &names) {
                    d.help(format!("did you mean `{close}`?"));
                }
                d.note(format!("its tools in `{lock_name}`: {}", names.join(", ")));
                continue;
            };
            check_args(tool, &name.value, args, *args_pos, target, diags);
            check_retry(resilience, &server.value, &name.value, target, diags);
        }
    }
    // A declared server that no node calls has its own warning already.
    for server in lock.servers.keys() {
        if !file.mcp_servers.iter().any(|s| s.name.value == *server) {
            let d = diags.warning(
                Pos::default(),
                format!(
                    "the lock `{lock_name}` has server `{server}`, which the graph does not declare"
                ),
            );
            d.help("re-run `mcpgraph lock` to drop it");
            d.lint = Some(LOCK_COVERAGE);
        }
    }
}

fn lint(d: &mut Diagnostic, name: &'static str) {
    d.lint = Some(name);
}

/// The `args` of one call (written at `args_pos`) against the tool's input
/// schema.
fn check_args(
    tool: &Tool,
    name: &str,
    args: &Arg,
    args_pos: Pos,
    target: &ToolLock,
    diags: &mut Diagnostics,
) {
    let schema = &target.input_schema;
    let fields = match args {
        Arg::Object(fields) => fields,
        Arg::Expr(expr) => {
            diags
                .note(
                    expr.pos,
                    format!("the call to `{name}` cannot be checked against the lock"),
                )
                .note("its whole `args` is one expression, whose keys are known only when it runs");
            return;
        }
        // Not an object: lowering has reported it.
        Arg::Array(_) | Arg::Literal(_) => return,
    };
    let properties = schema.get("properties").and_then(Value::as_object);
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
    let required = schema.get("required").and_then(Value::as_array);
    for key in required.into_iter().flatten().filter_map(Value::as_str) {
        if !fields.iter().any(|(k, _)| k.value == key) {
            diags
                .error(
                    args_pos,
                    format!("the call to `{name}` lacks its required argument `{key}`"),
                )
                .note(format!("`{name}` requires: {}", list(required)))
                .help(format!("add `{key}` to the node's `args`"));
        }
    }
    for (key, arg) in fields {
        let (pos, key) = (key.pos, key.value.as_str());
        let Some(property) = properties.and_then(|p| p.get(key)) else {
            if properties.is_none() && !closed {
                continue;
            }
            let message = format!("`{name}` has no argument `{key}`");
            let known: Vec<&str> = properties
                .map(|p| p.keys().map(String::as_str).collect())
                .unwrap_or_default();
            let d = if closed {
                diags.error(pos, message)
            } else {
                let d = diags.warning(pos, message);
                lint(d, UNKNOWN_ARGUMENT);
                d
            };
            if let Some(close) = crate::suggest::suggest(key, &known) {
                d.help(format!("did you mean `{close}`?"));
            }
            continue;
        };
        if let Some(value) = literal(arg) {
            if let Ok(validator) = jsonschema::validator_for(property)
                && let Some(error) = validator.iter_errors(&value).next()
            {
                diags.error(pos, format!("argument `{key}` of `{name}`: {error}"));
            }
        } else if let Arg::Expr(expr) = arg {
            check_arg_type(tool, key, name, expr, property, diags);
        }
    }
}

/// [`check_retry`] for each call of a `parallel` or `forEach` node to a
/// locked tool, with the retry it runs with (its own or its node's).
fn check_fan_out_retries(kind: &NodeKind, lock: &Lock, diags: &mut Diagnostics) {
    let Some(node) = kind.resilience() else {
        return;
    };
    for call in kind.calls() {
        let Some(server) = &call.server else {
            continue;
        };
        let Some(target) = lock
            .servers
            .get(&server.value)
            .and_then(|s| s.tools.get(&call.tool.value))
        else {
            continue;
        };
        let retry = Resilience {
            retry: call.retry(node).cloned(),
            ..Resilience::default()
        };
        check_retry(&retry, &server.value, &call.tool.value, target, diags);
    }
}

/// A `retry` on a call to a tool not annotated read-only or idempotent.
fn check_retry(
    resilience: &Resilience,
    server: &str,
    name: &str,
    target: &ToolLock,
    diags: &mut Diagnostics,
) {
    let Some(retry) = &resilience.retry else {
        return;
    };
    let hint = |key: &str| {
        target
            .annotations
            .as_ref()
            .and_then(|a| a.get(key))
            .and_then(Value::as_bool)
            == Some(true)
    };
    if hint("readOnlyHint") || hint("idempotentHint") {
        return;
    }
    let d = diags.warning(
        retry.pos,
        format!(
            "`retry` on `{server}`/`{name}`, which its server does not annotate as read-only or idempotent"
        ),
    );
    d.note(
        "a call that failed for lack of an answer may have done its work: a retry may do it again",
    );
    d.help("retry only tools with `readOnlyHint` or `idempotentHint`, or accept it");
    lint(d, RETRY_NOT_IDEMPOTENT);
}

fn list(values: Option<&Vec<Value>>) -> String {
    values
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|v| format!("`{v}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The JSON value of an argument with no expression in it.
fn literal(arg: &Arg) -> Option<Value> {
    match arg {
        Arg::Literal(value) => Some(value.clone()),
        Arg::Expr(_) => None,
        Arg::Array(items) => items
            .iter()
            .map(literal)
            .collect::<Option<_>>()
            .map(Value::Array),
        Arg::Object(fields) => fields
            .iter()
            .map(|(k, v)| Some((k.value.clone(), literal(v)?)))
            .collect::<Option<serde_json::Map<_, _>>>()
            .map(Value::Object),
    }
}

/// `{expr: "$.entry.x"}`: the graph tool's declared type of `x` against the
/// downstream property's.
fn check_arg_type(
    tool: &Tool,
    key: &str,
    name: &str,
    expr: &Expr,
    property: &Value,
    diags: &mut Diagnostics,
) {
    let Some(path) = root_path(&expr.source) else {
        return;
    };
    let [node, field] = path.as_slice() else {
        return;
    };
    if tool.entry().is_none_or(|i| tool.nodes[i].id.value != *node) {
        return;
    }
    let Some(ours) = tool
        .input_schema
        .pointer(&format!("/properties/{field}/type"))
    else {
        return;
    };
    let Some(theirs) = property.get("type") else {
        return;
    };
    if !types_compatible(ours, theirs) {
        let d = diags.warning(
            expr.pos,
            format!("argument `{key}` of `{name}` wants {theirs}, and `{field}` of this tool's input is {ours}"),
        );
        lint(d, ARGUMENT_TYPE);
    }
}

fn types_compatible(ours: &Value, theirs: &Value) -> bool {
    let set = |v: &Value| -> BTreeSet<String> {
        match v {
            Value::String(s) => BTreeSet::from([s.clone()]),
            Value::Array(items) => items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => BTreeSet::new(),
        }
    };
    let (ours, theirs) = (set(ours), set(theirs));
    ours.iter()
        .all(|t| theirs.contains(t) || (t == "integer" && theirs.contains("number")))
}

/// The names of `$.a.b` or `$$.a.b` when that is the whole expression.
fn root_path(source: &str) -> Option<Vec<String>> {
    let ast = jsonata_core::parser::parse(source).ok()?;
    path_names(&ast)
}

/// The names of a path from the context (`$.a.b`, `$$.a.b`), up to its
/// first step that is not a plain name.
pub(crate) fn path_names(ast: &AstNode) -> Option<Vec<String>> {
    let AstNode::Path { steps } = ast else {
        return None;
    };
    let (first, rest) = steps.split_first()?;
    if !matches!(&first.node, AstNode::Variable(v) | AstNode::ParentVariable(v) if v.is_empty()) {
        return None;
    }
    let mut names = Vec::new();
    for step in rest {
        match &step.node {
            AstNode::Name(name) => names.push(name.clone()),
            _ => break,
        }
        if !step.stages.is_empty() {
            break;
        }
    }
    Some(names)
}

#[cfg(test)]
#[path = "check_tests.rs"]
mod tests;
