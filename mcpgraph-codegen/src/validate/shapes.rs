//! Types that flow through the graph, where the file alone says them: the
//! output of `entry` is the tool's arguments (its `inputSchema`), and the
//! output of a transform whose expression is an object constructor with
//! literal keys (or a block or conditional ending in such constructors)
//! has exactly those keys. Every path `$.node.field...` (or `$$.`) into
//! such an output is checked: a field the shape cannot have is an error
//! where the shape is closed (a constructor, a schema level with
//! `additionalProperties: false`), a warning ([`UNKNOWN_INPUT_FIELD`])
//! where it is open. The outputs of `mcp` nodes are checked against the
//! lock's output schemas (`lock::check`); the others are not known here.

use jsonata_core::ast::AstNode;
use serde_json::Value;

use super::lexer::{find_name, find_string};
use crate::diag::{Diagnostics, UNKNOWN_INPUT_FIELD};
use crate::lock::check::output::{context_paths, is_array, tool_exprs};
use crate::lower::expr_pos;
use crate::model::{Expr, NodeKind, Tool};
use crate::suggest::suggest;

/// What is known of a value.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Shape<'a> {
    /// Described by a JSON Schema.
    Schema(&'a Value),
    /// An object with exactly these keys (each may still be absent when
    /// its value is nothing).
    Object(Vec<(String, Shape<'a>)>),
    /// Not known.
    Unknown,
}

/// The shape of node `id`'s output, when the file says it.
pub(super) fn output_shape<'a>(tool: &'a Tool, id: &str) -> Shape<'a> {
    let Some(node) = tool.nodes.iter().find(|n| n.id.value == id) else {
        return Shape::Unknown;
    };
    match &node.kind {
        NodeKind::Entry { .. } if tool.input_schema.get("properties").is_some() => {
            Shape::Schema(&tool.input_schema)
        }
        NodeKind::Transform { expr, .. } => match jsonata_core::parser::parse(&expr.source) {
            Ok(ast) => constructed(&ast),
            Err(_) => Shape::Unknown,
        },
        _ => Shape::Unknown,
    }
}

/// The shape an expression's value has by its form. Owns nothing of the
/// tree: keys are copied.
fn constructed(ast: &AstNode) -> Shape<'static> {
    match ast {
        AstNode::Object(pairs) => {
            let mut fields = Vec::new();
            for (k, v) in pairs {
                let AstNode::String(key) = k else {
                    return Shape::Unknown;
                };
                fields.push((key.clone(), constructed(v)));
            }
            Shape::Object(fields)
        }
        AstNode::Block(items) => items.last().map_or(Shape::Unknown, constructed),
        AstNode::Conditional {
            then_branch,
            else_branch: Some(else_branch),
            ..
        } => match (constructed(then_branch), constructed(else_branch)) {
            (Shape::Object(mut a), Shape::Object(b)) => {
                for (key, shape) in b {
                    match a.iter_mut().find(|(k, _)| *k == key) {
                        Some((_, s)) if *s != shape => *s = Shape::Unknown,
                        Some(_) => {}
                        None => a.push((key, shape)),
                    }
                }
                Shape::Object(a)
            }
            _ => Shape::Unknown,
        },
        _ => Shape::Unknown,
    }
}

/// How a path fared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Checked {
    /// Its first field was checked against a known shape.
    Yes,
    /// The node's output is not known here.
    No,
}

/// Checks every path of `tool`'s expressions into the outputs whose shape
/// is known; returns how each path into a node fared.
pub(super) fn check_shapes(tool: &Tool, diags: &mut Diagnostics) -> Vec<Checked> {
    let mut fared = Vec::new();
    let mut unknown: Vec<String> = Vec::new();
    for expr in tool_exprs(tool) {
        let Ok(ast) = jsonata_core::parser::parse(&expr.source) else {
            continue;
        };
        for path in context_paths(&ast) {
            let Some((id, fields)) = path.split_first() else {
                continue;
            };
            if fields.is_empty() || !tool.nodes.iter().any(|n| n.id.value == *id) {
                continue;
            }
            let shape = output_shape(tool, id);
            if shape == Shape::Unknown {
                fared.push(Checked::No);
                if !unknown.contains(id) {
                    unknown.push(id.clone());
                    not_inferred(tool, id, expr, diags);
                }
                continue;
            }
            fared.push(Checked::Yes);
            check_path(id, shape, fields, expr, diags);
        }
    }
    check_exit_value(tool, diags);
    fared
}

/// Says, as a note, why the paths into node `id` (first read by `expr`)
/// are not checked here.
fn not_inferred(tool: &Tool, id: &str, expr: &Expr, diags: &mut Diagnostics) {
    let Some(node) = tool.nodes.iter().find(|n| n.id.value == id) else {
        return;
    };
    let why = match &node.kind {
        NodeKind::Entry { .. } => "the tool's `inputSchema` lists no `properties`",
        NodeKind::Transform { .. } => {
            "its expression is not an object constructor with literal keys"
        }
        NodeKind::Mcp { .. } => {
            "an `mcp` node's output is known only from a lock's `outputSchema`, where the lock checks it"
        }
        _ => "the output of this type of node is not inferred",
    };
    diags.note(
        expr.pos,
        format!("the paths into the output of `{id}` are not checked: {why}"),
    );
}

/// The value of the transforms that go to the exit against the tool's
/// `outputSchema`: a required property no constructor writes is surely
/// missing (an error); a key the schema does not list is an error when
/// it is closed.
fn check_exit_value(tool: &Tool, diags: &mut Diagnostics) {
    // Content blocks returned as they came are another result.
    let (Some(schema), None) = (&tool.output_schema, &tool.exit_content) else {
        return;
    };
    let Some(exit) = tool.nodes.iter().find(|n| matches!(n.kind, NodeKind::Exit)) else {
        return;
    };
    let properties = schema.get("properties").and_then(Value::as_object);
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for node in &tool.nodes {
        let NodeKind::Transform { expr, .. } = &node.kind else {
            continue;
        };
        if !node.kind.targets().iter().any(|t| t.value == exit.id.value) {
            continue;
        }
        let Shape::Object(fields) = output_shape(tool, &node.id.value) else {
            continue;
        };
        let keys: Vec<&str> = fields.iter().map(|(k, _)| k.as_str()).collect();
        for r in &required {
            if !keys.contains(r) {
                diags
                    .error(
                        expr.pos,
                        format!(
                            "the tool's result lacks `{r}`, which its `outputSchema` requires: `{}` goes to the exit with an object without it",
                            node.id.value
                        ),
                    )
                    .note(format!("the object's keys: {}", keys.join(", ")));
            }
        }
        if let (Some(properties), true) = (properties, closed) {
            for key in &keys {
                if !properties.contains_key(*key) {
                    let listed: Vec<&str> = properties.keys().map(String::as_str).collect();
                    let pos = expr_pos(expr, find_string(&expr.source, key).unwrap_or(0));
                    let d = diags.error(
                        pos,
                        format!(
                            "the tool's result has `{key}`, which its `outputSchema` does not allow (`additionalProperties: false`)"
                        ),
                    );
                    d.note(format!("its properties: {}", listed.join(", ")));
                    if let Some(s) = suggest(key, &listed) {
                        d.help(format!("did you mean `{s}`?"));
                    }
                }
            }
        }
    }
}

/// Walks `fields` down `shape`; reports the first one it cannot have.
fn check_path(
    id: &str,
    mut shape: Shape<'_>,
    fields: &[String],
    expr: &Expr,
    diags: &mut Diagnostics,
) {
    let mut walked = id.to_owned();
    for field in fields {
        let (known, closed, next): (Vec<String>, bool, Option<Shape<'_>>) = match shape {
            Shape::Unknown => return,
            Shape::Object(entries) => {
                let keys = entries.iter().map(|(k, _)| k.clone()).collect();
                let next = entries
                    .into_iter()
                    .find(|(k, _)| k == field)
                    .map(|(_, s)| s);
                (keys, true, next)
            }
            Shape::Schema(mut schema) => {
                // A path maps over arrays: look through `items`.
                while let Some(items) = schema.get("items").filter(|_| is_array(schema)) {
                    schema = items;
                }
                let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                    return;
                };
                let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
                (
                    properties.keys().cloned().collect(),
                    closed,
                    properties.get(field).map(Shape::Schema),
                )
            }
        };
        if let Some(next) = next {
            shape = next;
            walked = format!("{walked}.{field}");
            continue;
        }
        let whose = if walked == id && id == "entry" {
            "the tool's arguments (its `inputSchema`)".to_owned()
        } else {
            format!("`{walked}`")
        };
        let message = format!("`{walked}.{field}`: {whose} cannot have a field `{field}`");
        let pos = expr_pos(expr, find_name(&expr.source, field).unwrap_or(0));
        let d = if closed {
            diags.error(pos, message)
        } else {
            let d = diags.warning(pos, message);
            d.lint = Some(UNKNOWN_INPUT_FIELD);
            d
        };
        let listed: Vec<&str> = known.iter().map(String::as_str).collect();
        d.note(format!("its fields: {}", listed.join(", ")));
        if let Some(s) = suggest(field, &listed) {
            d.help(format!("did you mean `{s}`?"));
        }
        return;
    }
}

#[cfg(test)]
#[path = "shapes_tests.rs"]
mod tests;
