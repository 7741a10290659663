//! The calls of `parallel` and `forEach` nodes.

use super::{Arg, NodeKind, Pos, Resilience, Retry, Sp};

/// One call of a `parallel` branch or of a `forEach` node.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// `server`: a key of `mcpServers`; `None` calls a tool of this graph.
    pub server: Option<Sp<String>>,
    /// `tool`: on `server`, or of this graph.
    pub tool: Sp<String>,
    /// `args` (default: empty object).
    pub args: Arg,
    /// Where a missing argument goes: the `args` key, or the call's
    /// mapping when it has none.
    pub args_pos: Pos,
    /// The call's own `retry` and `timeoutMs` (never `onError`: that is
    /// the node's).
    pub resilience: Resilience,
}

impl NodeKind {
    /// The calls a `parallel` or `forEach` node makes (none for others).
    pub fn calls(&self) -> Vec<&Call> {
        match self {
            NodeKind::Parallel { branches, .. } => branches.iter().map(|(_, c)| c).collect(),
            NodeKind::ForEach { call, .. } => vec![call],
            _ => Vec::new(),
        }
    }
}

impl Call {
    /// The `retry` this call runs with: its own, else its node's
    /// (`node`), which applies to calls of a downstream server only.
    pub fn retry<'a>(&'a self, node: &'a Resilience) -> Option<&'a Sp<Retry>> {
        self.resilience
            .retry
            .as_ref()
            .or(node.retry.as_ref().filter(|_| self.server.is_some()))
    }
}
