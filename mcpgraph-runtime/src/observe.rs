//! What a call did, node by node: the execution record (mcpGraph's
//! introspection API), observer hooks for Rust callers, and progress
//! events for clients that sent a `progressToken`.
//!
//! Recording costs a JSON copy of each node's output, so it is done only
//! when someone asked for it (an observer, `call --trace`); without that,
//! a node costs one `Instant::now()` and a disabled tracing span.

use std::time::Duration;

use serde_json::Value;

use crate::error::NodeError;

/// The type of a node, as written in the graph file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NodeType {
    /// `entry`.
    Entry,
    /// `exit`.
    Exit,
    /// `mcp`.
    Mcp,
    /// `transform`.
    Transform,
    /// `switch`.
    Switch,
    /// `elicit` (an extension): asks the calling client's user.
    Elicit,
    /// `parallel` (an extension): calls at once.
    Parallel,
    /// `forEach` (an extension): one call per item.
    ForEach,
}

impl NodeType {
    /// The name used in graph files.
    pub const fn as_str(self) -> &'static str {
        match self {
            NodeType::Entry => "entry",
            NodeType::Exit => "exit",
            NodeType::Mcp => "mcp",
            NodeType::Transform => "transform",
            NodeType::Switch => "switch",
            NodeType::Elicit => "elicit",
            NodeType::Parallel => "parallel",
            NodeType::ForEach => "forEach",
        }
    }
}

impl std::fmt::Display for NodeType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One node execution of a call.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeRecord {
    /// Position in the call's history, from 0.
    pub index: usize,
    /// Node id.
    pub node: String,
    /// Node type.
    pub node_type: NodeType,
    /// When the node started, from the start of the call.
    pub start: Duration,
    /// How long it ran.
    pub duration: Duration,
    /// What an `mcp` node sent (its arguments); `None` for other nodes.
    pub input: Option<Value>,
    /// Its output (`None`: no output) or the error it failed with.
    pub outcome: Result<Option<Value>, NodeError>,
    /// For one call of a `parallel` node (the branch's name) or of a
    /// `forEach` node (the item's index): recorded as it ends, before the
    /// node's own record. `None` for a node.
    pub part: Option<String>,
}

impl NodeRecord {
    /// The record as one line of `--trace`: number, node, type, start,
    /// duration, then its output or error.
    #[doc(hidden)]
    pub fn trace_line(&self) -> String {
        let detail = match &self.outcome {
            Ok(Some(output)) => format!("-> {}", mcpgraph_expr::js_text::to_js_string(output)),
            Ok(None) => "-> (no output)".to_owned(),
            Err(e) => format!("!! {}", e.message()),
        };
        let node = match &self.part {
            Some(part) => format!("  {}/{part}", self.node),
            None => self.node.clone(),
        };
        format!(
            "#{:<3} {:<24} {:<9} +{:>9.3} ms {:>9.3} ms  {detail}",
            self.index,
            node,
            self.node_type.as_str(),
            self.start.as_secs_f64() * 1000.0,
            self.duration.as_secs_f64() * 1000.0,
        )
    }

    /// The record as JSON, for `call --trace` and logs.
    pub fn to_json(&self) -> Value {
        let mut v = serde_json::json!({
            "index": self.index,
            "node": self.node,
            "type": self.node_type.as_str(),
            "startMs": self.start.as_secs_f64() * 1000.0,
            "durationMs": self.duration.as_secs_f64() * 1000.0,
        });
        if let Some(part) = &self.part {
            v["part"] = Value::String(part.clone());
        }
        if let Some(input) = &self.input {
            v["input"] = input.clone();
        }
        match &self.outcome {
            Ok(Some(output)) => v["output"] = output.clone(),
            Ok(None) => {}
            Err(e) => v["error"] = Value::String(e.message().to_owned()),
        }
        v
    }
}

/// Hooks called as a call runs, on the worker thread that runs it. Keep
/// them quick: the call waits for them.
pub trait Observer: Send + Sync + 'static {
    /// A node is about to run.
    fn on_node_start(&self, tool: &str, index: usize, node: &str, node_type: NodeType) {
        let _ = (tool, index, node, node_type);
    }

    /// A node finished; `record.outcome` is `Ok`.
    fn on_node_complete(&self, tool: &str, record: &NodeRecord) {
        let _ = (tool, record);
    }

    /// A node failed; `record.outcome` is `Err`.
    fn on_node_error(&self, tool: &str, record: &NodeRecord) {
        let _ = (tool, record);
    }
}

/// A step of a call's progress, for progress notifications: a node started
/// (`progress` is then the number of node executions so far, a whole
/// number), or a downstream server reported progress within an `mcp` node
/// (`progress` is then between that node's number and the next, and
/// `message` is the server's).
#[derive(Clone, Debug, PartialEq)]
pub struct ProgressEvent {
    /// How far the call is, in node executions: increases with every event.
    pub progress: f64,
    /// The node running.
    pub node: &'static str,
    /// The downstream server's message, if it sent one.
    pub message: Option<String>,
}
