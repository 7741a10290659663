//! Which call of the graph a question or a tape entry belongs to (a
//! [`Slot`]), and the key its question is sent to the client under.

use serde::{Deserialize, Serialize};

/// Which call of the graph a tape entry or a question belongs to: a node,
/// and for a call of a `parallel` or `forEach` node, its branch name or
/// item index (the calls of one such node run at once, each with its own
/// server, state and answers).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[doc(hidden)]
pub struct Slot {
    pub(crate) node: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) part: Option<String>,
}

impl Slot {
    /// The node `node` itself (an `mcp` or `elicit` node).
    pub(crate) fn node(node: &str) -> Self {
        Self {
            node: node.to_owned(),
            part: None,
        }
    }

    /// The key under which the client is sent the question the server
    /// asked under `key`: the server's own for a node (one asks at a time);
    /// for a call of a fan-out node, which may ask beside others (all with
    /// the same key, perhaps), `node[part]/key`, with `#attempt` after the
    /// part from the second try of a call on. Distinct per call, and the
    /// same in every round.
    pub(super) fn client_key(&self, attempt: u32, key: &str) -> String {
        match &self.part {
            None => key.to_owned(),
            Some(part) if attempt > 1 => format!("{}[{part}]#{attempt}/{key}", self.node),
            Some(part) => format!("{}[{part}]/{key}", self.node),
        }
    }
}

impl std::fmt::Display for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.part {
            None => f.write_str(&self.node),
            Some(part) => write!(f, "{}[{part}]", self.node),
        }
    }
}
