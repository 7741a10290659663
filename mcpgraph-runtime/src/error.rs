//! Error types: failures of one node (reported to the caller as a tool
//! error naming the node) and start-up failures.

use std::fmt;

/// A failed tool call: which node failed (if any) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeError {
    /// The node that was running, `None` before the graph started (for
    /// example invalid arguments).
    pub node: Option<String>,
    /// What failed.
    pub message: String,
}

impl NodeError {
    /// An error of node `node`.
    pub fn at(node: &str, message: impl Into<String>) -> Self {
        Self {
            node: Some(node.to_owned()),
            message: message.into(),
        }
    }

    /// An error outside any node.
    pub fn call(message: impl Into<String>) -> Self {
        Self {
            node: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for NodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.node {
            Some(node) => write!(f, "node `{node}`: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for NodeError {}

/// A failure while preparing the server: an expression or schema that does
/// not compile, a bad `--mcp` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartupError(pub String);

impl fmt::Display for StartupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StartupError {}
