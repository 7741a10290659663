//! What a tool's picture shows, before any geometry: a shape per node
//! (its kind, its lines of text, the calls of a `parallel` or `forEach`
//! node as parts of its group) and an edge per route, with the text drawn
//! on it and the route's name in the graph's coverage map (`condition 1`,
//! `default`, `onError`, an `elicit` answer).
//!
//! Read from a validated model (`load_str`); nothing here measures or
//! places anything (`layout`), nor writes SVG (`draw`).

use mcpgraph_codegen::mermaid::rule_text;
use mcpgraph_codegen::model::{Call, NodeKind, Tool};

/// A tool's nodes and routes.
#[derive(Debug)]
pub(super) struct Scene {
    pub(super) tool: String,
    pub(super) shapes: Vec<Shape>,
    pub(super) edges: Vec<Edge>,
}

/// What a node is drawn as: its type.
pub(super) use mcpgraph_runtime::NodeType as Kind;

/// One node.
#[derive(Debug)]
pub(super) struct Shape {
    pub(super) id: String,
    pub(super) kind: Kind,
    /// Lines under the id: `server / tool`, `transform`...
    pub(super) detail: Vec<String>,
    /// The calls of a `parallel` node (one per branch) or a `forEach`
    /// node (its one call, made per item), drawn inside its group.
    pub(super) parts: Vec<Part>,
}

/// A call inside a group.
#[derive(Debug)]
pub(super) struct Part {
    /// The branch's name; `item` for a `forEach` call.
    pub(super) name: String,
    /// What it calls: `server / tool`, or a tool of this graph.
    pub(super) call: String,
}

/// What kind of route an edge is, for its style.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Route {
    /// The one `next`.
    Next,
    /// A switch condition.
    Rule,
    /// A switch's `next`.
    Default,
    /// An `elicit` answer.
    Answer,
    /// `onError`.
    OnError,
}

impl Route {
    /// The class of the edge's SVG group.
    pub(super) fn class(self) -> &'static str {
        match self {
            Route::Next => "next",
            Route::Rule => "rule",
            Route::Default => "default",
            Route::Answer => "answer",
            Route::OnError => "on-error",
        }
    }
}

/// One route from a node to another.
#[derive(Debug)]
pub(super) struct Edge {
    /// Positions in [`Scene::shapes`].
    pub(super) from: usize,
    pub(super) to: usize,
    pub(super) route: Route,
    /// The text drawn on it (a switch's rule, `default`, an answer,
    /// `onError`); empty for a `next`.
    pub(super) text: String,
    /// Its name in the coverage map (`condition 1`, `default`, `onError`,
    /// `accept`...); empty for a `next`, which the map does not list.
    pub(super) label: String,
}

impl Scene {
    /// The scene of `tool`.
    pub(super) fn of(tool: &Tool) -> Self {
        let index = tool.node_index();
        let mut edges = Vec::new();
        let shapes = tool
            .nodes
            .iter()
            .enumerate()
            .map(|(from, node)| {
                let mut edge = |to: &str, route: Route, text: String, label: String| {
                    if let Some(&to) = index.get(to) {
                        edges.push(Edge {
                            from,
                            to,
                            route,
                            text,
                            label,
                        });
                    }
                };
                let kind = &node.kind;
                let (kind_of, detail, parts) = match kind {
                    NodeKind::Entry { .. } => (Kind::Entry, Vec::new(), Vec::new()),
                    NodeKind::Exit => (Kind::Exit, Vec::new(), Vec::new()),
                    NodeKind::Mcp { server, tool, .. } => (
                        Kind::Mcp,
                        vec![format!("{} / {}", server.value, tool.value)],
                        Vec::new(),
                    ),
                    NodeKind::Transform { .. } => {
                        (Kind::Transform, vec!["transform".to_owned()], Vec::new())
                    }
                    NodeKind::Switch { .. } => (Kind::Switch, Vec::new(), Vec::new()),
                    NodeKind::Elicit { .. } => {
                        (Kind::Elicit, vec!["asks the user".to_owned()], Vec::new())
                    }
                    NodeKind::Parallel {
                        branches,
                        max_concurrency,
                        ..
                    } => (
                        Kind::Parallel,
                        vec![match max_concurrency {
                            Some(n) => format!("parallel, {n} at once"),
                            None => "parallel".to_owned(),
                        }],
                        branches
                            .iter()
                            .map(|(name, call)| Part {
                                name: name.value.clone(),
                                call: call_text(call),
                            })
                            .collect(),
                    ),
                    NodeKind::ForEach {
                        items,
                        call,
                        max_concurrency,
                        ..
                    } => (
                        Kind::ForEach,
                        vec![
                            format!("forEach, {max_concurrency} at once"),
                            format!("items: {}", shortened(&items.source, 40)),
                        ],
                        vec![Part {
                            name: "item".to_owned(),
                            call: call_text(call),
                        }],
                    ),
                };
                match kind {
                    NodeKind::Switch { conditions, next } => {
                        for (i, condition) in conditions.iter().enumerate() {
                            edge(
                                &condition.next.value,
                                Route::Rule,
                                shortened(&rule_text(&condition.rule), 48),
                                format!("condition {}", i + 1),
                            );
                        }
                        edge(
                            &next.value,
                            Route::Default,
                            "default".to_owned(),
                            "default".to_owned(),
                        );
                    }
                    NodeKind::Elicit { routes, .. } => {
                        for (answer, to) in routes.iter() {
                            edge(
                                &to.value,
                                Route::Answer,
                                answer.to_owned(),
                                answer.to_owned(),
                            );
                        }
                    }
                    NodeKind::Entry { next }
                    | NodeKind::Mcp { next, .. }
                    | NodeKind::Transform { next, .. }
                    | NodeKind::Parallel { next, .. }
                    | NodeKind::ForEach { next, .. } => {
                        edge(&next.value, Route::Next, String::new(), String::new());
                    }
                    NodeKind::Exit => {}
                }
                if let Some(to) = kind.resilience().and_then(|r| r.on_error.as_ref()) {
                    edge(
                        &to.value,
                        Route::OnError,
                        "onError".to_owned(),
                        "onError".to_owned(),
                    );
                }
                Shape {
                    id: node.id.value.clone(),
                    kind: kind_of,
                    detail,
                    parts,
                }
            })
            .collect();
        Scene {
            tool: tool.name.value.clone(),
            shapes,
            edges,
        }
    }
}

/// `server / tool`, or `tool (this graph)`.
fn call_text(call: &Call) -> String {
    match &call.server {
        Some(server) => format!("{} / {}", server.value, call.tool.value),
        None => format!("{} (this graph)", call.tool.value),
    }
}

/// `text` on one line, at most `max` characters.
fn shortened(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > max {
        flat.chars().take(max - 1).collect::<String>() + "…"
    } else {
        flat
    }
}
