//! What the core counts for `/metrics` (the counters are
//! `mcpgraph-telemetry`'s): a call by the label of its tool, never the
//! name a client sent, and a failed call by its error's kind.

use crate::engine::Engine;
use crate::error::ErrorKind;

pub(crate) use mcpgraph_telemetry::counters::{call, refused};

/// The tool label of every call naming a tool the graph does not have. Not
/// a possible tool name (those are `A-Z a-z 0-9 _ - .`), so it cannot be
/// mistaken for one.
pub(crate) const UNKNOWN_TOOL: &str = "(unknown)";

/// The label `/metrics` counts a call of `name` under: the graph's own
/// name for one of `engine`'s tools, [`UNKNOWN_TOOL`] for any other, so
/// that no client can add labels (or memory) by making names up.
pub(crate) fn tool_label(engine: &Engine, name: &str) -> &'static str {
    engine
        .tools()
        .iter()
        .map(|t| t.meta.name)
        .find(|known| *known == name)
        .unwrap_or(UNKNOWN_TOOL)
}

/// Counts one failed call, by its error's kind.
pub(crate) fn node_error(kind: ErrorKind) {
    mcpgraph_telemetry::counters::node_error(kind.as_str());
}
