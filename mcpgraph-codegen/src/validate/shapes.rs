//! Types that flow through the graph: what shape each node's output has,
//! where the file or its lock says it.
//!
//! - `entry`: the tool's arguments (its `inputSchema`);
//! - a transform whose expression is an object constructor with literal
//!   keys (or a block or conditional ending in such constructors): exactly
//!   those keys;
//! - `mcp`: the `outputSchema` the lock records for its tool;
//! - `parallel`: an object with exactly its branches, each the output of
//!   its call ([`Types::call_output`]);
//! - `forEach`: an array of its call's outputs;
//! - `elicit`: on accept the answer's content, the fields of its
//!   `requestedSchema` (`null` on decline and cancel, which no path reads
//!   anything from).
//!
//! This module says what the shapes are; `paths` checks the paths of the
//! expressions against them, `exit_value` the value handed to the exit.

use jsonata_core::ast::AstNode;
use serde_json::Value;

use crate::lock::Lock;
use crate::model::{Call, NodeKind, Tool};

/// What the shapes of outputs are known from: the graph's tools, and the
/// lock when there is one.
#[derive(Clone, Copy)]
pub(crate) struct Types<'a> {
    /// Every tool of the file (a call without `server` calls one of them).
    pub(crate) tools: &'a [Tool],
    /// The lock beside the graph, when there is one.
    pub(crate) lock: Option<&'a Lock>,
}

/// Which schema a [`Shape::Schema`] is, for messages and lints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Origin<'a> {
    /// The tool's `inputSchema`.
    Input,
    /// The `outputSchema` of the called tool `.0`.
    Output(&'a str),
    /// An `elicit` node's `requestedSchema`.
    Form,
}

/// What is known of a value.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Shape<'a> {
    /// Described by a JSON Schema.
    Schema(&'a Value, Origin<'a>),
    /// An object with exactly these keys (each may still be absent when
    /// its value is nothing).
    Object(Vec<(String, Shape<'a>)>),
    /// An array of values of this shape (never [`Shape::Unknown`]).
    Array(Box<Shape<'a>>),
    /// Not known.
    Unknown,
}

impl<'a> Types<'a> {
    /// The shape of node `id`'s output in `tool`.
    pub(super) fn output_shape(&self, tool: &'a Tool, id: &str) -> Shape<'a> {
        let Some(node) = tool.nodes.iter().find(|n| n.id.value == id) else {
            return Shape::Unknown;
        };
        match &node.kind {
            NodeKind::Entry { .. } if tool.input_schema.get("properties").is_some() => {
                Shape::Schema(&tool.input_schema, Origin::Input)
            }
            NodeKind::Transform { expr, .. } => match jsonata_core::parser::parse(&expr.source) {
                Ok(ast) => constructed(&ast),
                Err(_) => Shape::Unknown,
            },
            NodeKind::Mcp { server, tool, .. } => self.locked_output(&server.value, &tool.value),
            NodeKind::Parallel { branches, .. } => Shape::Object(
                branches
                    .iter()
                    .map(|(name, call)| (name.value.clone(), self.call_output(call)))
                    .collect(),
            ),
            NodeKind::ForEach { call, .. } => match self.call_output(call) {
                Shape::Unknown => Shape::Unknown,
                each => Shape::Array(Box::new(each)),
            },
            NodeKind::Elicit { schema, .. } => Shape::Schema(schema, Origin::Form),
            _ => Shape::Unknown,
        }
    }

    /// The output of a call of a `parallel` branch or a `forEach` node: by
    /// the lock for a downstream tool, by the called tool's own
    /// `outputSchema` for a tool of this graph.
    pub(super) fn call_output(&self, call: &'a Call) -> Shape<'a> {
        match &call.server {
            Some(server) => self.locked_output(&server.value, &call.tool.value),
            None => self
                .tools
                .iter()
                .find(|t| t.name.value == call.tool.value)
                .and_then(|t| t.output_schema.as_ref())
                .map_or(Shape::Unknown, |s| {
                    Shape::Schema(s, Origin::Output(&call.tool.value))
                }),
        }
    }

    fn locked_output(&self, server: &str, tool: &'a str) -> Shape<'a> {
        self.lock
            .and_then(|l| l.servers.get(server))
            .and_then(|s| s.tools.get(tool))
            .and_then(|t| t.output_schema.as_ref())
            .map_or(Shape::Unknown, |s| Shape::Schema(s, Origin::Output(tool)))
    }

    /// Why the output of node `id` of `tool` is not known (its shape is
    /// [`Shape::Unknown`]).
    pub(super) fn why_unknown(&self, tool: &Tool, id: &str) -> String {
        let Some(node) = tool.nodes.iter().find(|n| n.id.value == id) else {
            return String::new();
        };
        match &node.kind {
            NodeKind::Entry { .. } => "the tool's `inputSchema` lists no `properties`".to_owned(),
            NodeKind::Transform { .. } => {
                "its expression is not an object constructor with literal keys".to_owned()
            }
            NodeKind::Mcp { server, tool, .. } => self.why_not_locked(&server.value, &tool.value),
            NodeKind::ForEach { call, .. } => match &call.server {
                Some(server) => self.why_not_locked(&server.value, &call.tool.value),
                None => format!(
                    "it calls `{}`, a tool of this graph without an `outputSchema`",
                    call.tool.value
                ),
            },
            NodeKind::Switch { .. } => {
                "a `switch` node's output is the id of the node it routes to".to_owned()
            }
            _ => "the output of this type of node is not inferred".to_owned(),
        }
    }

    fn why_not_locked(&self, server: &str, tool: &str) -> String {
        let Some(lock) = self.lock else {
            return format!(
                "the output of `{server}`/`{tool}` is known from its `outputSchema` in a lock, and there is none (`mcpgraph lock` writes it)"
            );
        };
        match lock.servers.get(server).and_then(|s| s.tools.get(tool)) {
            Some(_) => format!("the lock records no `outputSchema` for `{server}`/`{tool}`"),
            None => format!("the lock has no tool `{tool}` on server `{server}`"),
        }
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

/// The shape of one item of a value of `shape` that `forEach` iterates:
/// through arrays (a path that maps over arrays flattens them).
pub(super) fn element(shape: Shape<'_>) -> Shape<'_> {
    match shape {
        Shape::Array(each) => element(*each),
        Shape::Schema(schema, origin) => Shape::Schema(through_arrays(schema), origin),
        Shape::Object(_) | Shape::Unknown => Shape::Unknown,
    }
}

/// `schema`, or its `items` while it is an array's.
pub(super) fn through_arrays(mut schema: &Value) -> &Value {
    while let Some(items) = schema.get("items").filter(|_| is_array(schema)) {
        schema = items;
    }
    schema
}

fn is_array(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == "array",
        Some(Value::Array(types)) => types.iter().any(|t| t == "array"),
        _ => schema.get("items").is_some(),
    }
}

#[cfg(test)]
#[path = "shapes_tests.rs"]
mod tests;
