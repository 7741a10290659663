//! The calls of `parallel` and `forEach` nodes, and every call a node
//! makes wherever it stands ([`NodeKind::every_call`]).

use std::fmt;

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

/// Where a call stands in its node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// The node itself (an `mcp` node).
    Node,
    /// A branch of a `parallel` node, by name.
    Branch(String),
    /// The `call` of a `forEach` node, made once per item.
    Item,
}

impl fmt::Display for Place {
    /// `branch `now``, `item call`; nothing for the node itself.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Node => Ok(()),
            Place::Branch(name) => write!(f, "branch `{name}`"),
            Place::Item => f.write_str("item call"),
        }
    }
}

/// One call a node makes: an `mcp` node's, a branch's or a `forEach`
/// node's, seen alike.
#[derive(Clone, Debug)]
pub struct NodeCall<'a> {
    /// Where it stands in the node.
    pub place: Place,
    /// Its `server`; `None` calls a tool of this graph.
    pub server: Option<&'a Sp<String>>,
    /// Its `tool`.
    pub tool: &'a Sp<String>,
    /// Its `args`.
    pub args: &'a Arg,
    /// Where a missing argument goes.
    pub args_pos: Pos,
    /// The `retry` it runs with (a branch's or item call's own, else its
    /// node's).
    pub retry: Option<&'a Sp<Retry>>,
}

impl NodeKind {
    /// Every call this node makes: an `mcp` node's one, a `parallel`
    /// node's branches, a `forEach` node's call (none for the others).
    pub fn every_call(&self) -> Vec<NodeCall<'_>> {
        match self {
            NodeKind::Mcp {
                server,
                tool,
                args,
                args_pos,
                resilience,
                ..
            } => vec![NodeCall {
                place: Place::Node,
                server: Some(server),
                tool,
                args,
                args_pos: *args_pos,
                retry: resilience.retry.as_ref(),
            }],
            NodeKind::Parallel {
                branches,
                resilience,
                ..
            } => branches
                .iter()
                .map(|(name, call)| call.seen_alike(Place::Branch(name.value.clone()), resilience))
                .collect(),
            NodeKind::ForEach {
                call, resilience, ..
            } => vec![call.seen_alike(Place::Item, resilience)],
            _ => Vec::new(),
        }
    }
}

impl Call {
    /// This call as a [`NodeCall`] standing at `place` of a node with
    /// `node`'s resilience.
    fn seen_alike<'a>(&'a self, place: Place, node: &'a Resilience) -> NodeCall<'a> {
        NodeCall {
            place,
            server: self.server.as_ref(),
            tool: &self.tool,
            args: &self.args,
            args_pos: self.args_pos,
            retry: self.retry(node),
        }
    }
}
