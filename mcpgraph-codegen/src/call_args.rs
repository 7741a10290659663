//! A call's `args` against the `inputSchema` of the tool it calls: the
//! required arguments are given, each literal matches its property's
//! schema, an argument the schema does not list is an error when the
//! schema is closed (`additionalProperties: false`) and a warning when it
//! is open, and an `{expr}` argument reading a value of known type has the
//! type the property wants.
//!
//! One home for every call, wherever it stands (an `mcp` node, a
//! `parallel` branch, a `forEach` call) and whatever it calls: a
//! downstream tool as the lock records it (`lock::check`) or a tool of
//! this graph (`validate`). Finding the tool, and saying so when there is
//! none, is the caller's job.

use std::collections::BTreeSet;

use jsonata_core::ast::AstNode;
use serde_json::Value;

use crate::diag::Diagnostics;
use crate::diag::codes;
use crate::model::{Arg, Expr, Place, Pos, Sp, Tool};

/// An argument the tool's (open) input schema does not list.
pub const UNKNOWN_ARGUMENT: &str = codes::UNKNOWN_ARGUMENT.as_str();
/// An `{expr}` argument reading a tool argument of another JSON type.
pub const ARGUMENT_TYPE: &str = codes::ARGUMENT_TYPE.as_str();

/// The tool a call calls, as its arguments are checked against it.
pub(crate) struct Callee<'a> {
    /// Its name, as messages show it.
    pub name: &'a str,
    /// Its `inputSchema`.
    pub schema: &'a Value,
    /// Whether a required property with a `default` may be left out: a
    /// graph tool gets the default before it runs.
    pub defaults_fill: bool,
}

/// Where a call is written: in graph tool `tool`, node `node`, at `place`.
pub(crate) struct Caller<'a> {
    /// The graph tool holding the node.
    pub tool: &'a Tool,
    /// The node's id.
    pub node: &'a str,
    /// Where in the node.
    pub place: &'a Place,
}

impl Caller<'_> {
    /// How a message about the call starts: nothing for an `mcp` node (its
    /// position says which), `node `gather`, branch `now`: ` for a branch
    /// or an item call, which share a node with others.
    pub(crate) fn prefix(&self) -> String {
        match self.place {
            Place::Node => String::new(),
            place => format!("node `{}`, {place}: ", self.node),
        }
    }

    /// Whose `args` a missing argument goes into, for a help.
    fn args_owner(&self) -> &'static str {
        match self.place {
            Place::Node => "the node's",
            Place::Branch(_) => "the branch's",
            Place::Item => "the call's",
        }
    }
}

/// Checks the `fields` of a call's `args` object (written at `args_pos`)
/// against `callee`'s input schema.
pub(crate) fn check_args(
    caller: &Caller<'_>,
    callee: &Callee<'_>,
    fields: &[(Sp<String>, Arg)],
    args_pos: Pos,
    diags: &mut Diagnostics,
) {
    let (schema, name, prefix) = (callee.schema, callee.name, caller.prefix());
    let properties = schema.get("properties").and_then(Value::as_object);
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
    let required = schema.get("required").and_then(Value::as_array);
    let defaulted = |key: &str| {
        callee.defaults_fill
            && properties
                .and_then(|p| p.get(key)?.get("default"))
                .is_some()
    };
    for key in required.into_iter().flatten().filter_map(Value::as_str) {
        if !defaulted(key) && !fields.iter().any(|(k, _)| k.value == key) {
            diags
                .error(
                    codes::MISSING_ARGUMENT,
                    args_pos,
                    format!("{prefix}the call to `{name}` lacks its required argument `{key}`"),
                )
                .note(format!("`{name}` requires: {}", list(required)))
                .help(format!("add `{key}` to {} `args`", caller.args_owner()));
        }
    }
    for (key, arg) in fields {
        let (pos, key) = (key.pos, key.value.as_str());
        let Some(property) = properties.and_then(|p| p.get(key)) else {
            if properties.is_none() && !closed {
                continue;
            }
            let message = format!("{prefix}`{name}` has no argument `{key}`");
            let known: Vec<&str> = properties
                .map(|p| p.keys().map(String::as_str).collect())
                .unwrap_or_default();
            let d = if closed {
                diags.error(codes::UNKNOWN_ARGUMENT, pos, message)
            } else {
                diags
                    .warning(codes::UNKNOWN_ARGUMENT, pos, message)
                    .as_lint()
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
                diags.error(
                    codes::INVALID_ARGUMENT,
                    pos,
                    format!("{prefix}argument `{key}` of `{name}`: {error}"),
                );
            }
        } else if let Arg::Expr(expr) = arg {
            check_arg_type(caller, key, name, expr, property, diags);
        }
    }
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

/// `{expr: "$.entry.x"}`: the declared type of what the expression reads
/// against the property's.
fn check_arg_type(
    caller: &Caller<'_>,
    key: &str,
    name: &str,
    expr: &Expr,
    property: &Value,
    diags: &mut Diagnostics,
) {
    let Some(path) = root_path(&expr.source) else {
        return;
    };
    let Some((read, ours)) = source_type(caller, &path) else {
        return;
    };
    let Some(theirs) = property.get("type") else {
        return;
    };
    if !types_compatible(ours, theirs) {
        let d = diags.warning(
            codes::ARGUMENT_TYPE,
            expr.pos,
            format!(
                "{}argument `{key}` of `{name}` wants {theirs}, and {read} is {ours}",
                caller.prefix()
            ),
        );
        d.as_lint();
    }
}

/// What `path` (the names after `$.`) reads, described, and its declared
/// JSON `type`, where that is known: a field of the graph tool's input
/// (`$.entry.x`). In an item call `$.item` and `$.index` are the item and
/// its position, not nodes; their types are not known here.
fn source_type<'t>(caller: &Caller<'t>, path: &[String]) -> Option<(String, &'t Value)> {
    let [node, field] = path else {
        return None;
    };
    if *caller.place == Place::Item && crate::validate::ITEM_NAMES.contains(&node.as_str()) {
        return None;
    }
    let tool = caller.tool;
    if tool.entry().is_none_or(|i| tool.nodes[i].id.value != *node) {
        return None;
    }
    let ours = tool
        .input_schema
        .pointer(&format!("/properties/{field}/type"))?;
    Some((format!("`{field}` of this tool's input"), ours))
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

/// The names of a path from `$` or `$$`, up to the first step that is not
/// a plain name.
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
