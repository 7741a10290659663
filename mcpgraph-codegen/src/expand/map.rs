//! `Graph::MAP`: each tool's nodes and the routes a node may take besides
//! its one `next` (switch conditions and default, elicit answers,
//! `onError`), with their lines, as JSON: what `<server> test` measures
//! coverage against.

use serde_json::{Value, json};

use crate::model::{GraphFile, Node, NodeKind, Sp};

/// The map of `graph`, whose file is named `file` in messages.
pub(super) fn map(graph: &GraphFile, file: &str) -> String {
    let tools: Vec<Value> = graph
        .tools
        .iter()
        .map(|tool| json!({ "name": tool.name.value, "nodes": tool.nodes.iter().map(node).collect::<Vec<_>>() }))
        .collect();
    json!({ "file": file, "tools": tools }).to_string()
}

fn node(node: &Node) -> Value {
    let mut routes = Vec::new();
    let mut route = |to: &Sp<String>, label: String| {
        routes.push(json!({ "to": to.value, "line": to.pos.line, "label": label }));
    };
    let kind = match &node.kind {
        NodeKind::Entry { .. } => "entry",
        NodeKind::Exit => "exit",
        NodeKind::Transform { .. } => "transform",
        NodeKind::Mcp { resilience, .. } => {
            if let Some(to) = &resilience.on_error {
                route(to, "onError".to_owned());
            }
            "mcp"
        }
        NodeKind::Parallel { resilience, .. } => {
            if let Some(to) = &resilience.on_error {
                route(to, "onError".to_owned());
            }
            "parallel"
        }
        NodeKind::ForEach { resilience, .. } => {
            if let Some(to) = &resilience.on_error {
                route(to, "onError".to_owned());
            }
            "forEach"
        }
        NodeKind::Switch { conditions, next } => {
            for (i, condition) in conditions.iter().enumerate() {
                route(&condition.next, format!("condition {}", i + 1));
            }
            route(next, "default".to_owned());
            "switch"
        }
        NodeKind::Elicit {
            routes: answers, ..
        } => {
            for (answer, to) in answers.iter() {
                route(to, answer.to_owned());
            }
            "elicit"
        }
    };
    json!({ "id": node.id.value, "type": kind, "line": node.id.pos.line, "routes": routes })
}
