//! What a node does when its call fails: `retry`, `timeoutMs` and
//! `onError` (FORMAT.md, "Retries, node time limits and error routes"). One
//! type for every node (and branch) that calls a tool, so that lowering,
//! validation and expansion treat them alike.

pub use mcpgraph_format::Retry;

use super::Sp;

/// A node's `retry`, `timeoutMs` and `onError`, each where it is written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resilience {
    /// `retry:`, if given.
    pub retry: Option<Sp<Retry>>,
    /// `timeoutMs:`: the node's own time limit, retries included.
    pub timeout_ms: Option<Sp<u64>>,
    /// `onError:`: the node a failure goes to instead of failing the tool.
    pub on_error: Option<Sp<String>>,
}

impl Resilience {
    /// Whether nothing is set (the node fails as before).
    pub fn is_empty(&self) -> bool {
        self.retry.is_none() && self.timeout_ms.is_none() && self.on_error.is_none()
    }

    /// What the runtime gets: `retry` and `timeoutMs` without their
    /// positions (`onError` is a route of the state machine).
    pub fn runtime(&self) -> mcpgraph_format::Resilience {
        mcpgraph_format::Resilience {
            retry: self.retry.as_ref().map(|r| r.value),
            timeout_ms: self.timeout_ms.as_ref().map(|t| t.value),
        }
    }
}
