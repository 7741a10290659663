//! What a node does when its call fails: `retry`, `timeoutMs` and
//! `onError` (FORMAT.md, "Retries, node time limits and error routes"). One
//! type for every node (and branch) that calls a tool, so that lowering,
//! validation and expansion treat them alike.

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

/// `retry: { attempts, backoffMs, maxBackoffMs }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retry {
    /// Tries in all (at least 1).
    pub attempts: u32,
    /// The first retry's wait (default 100).
    pub backoff_ms: u64,
    /// The longest wait (default 2000, at least `backoff_ms`).
    pub max_backoff_ms: u64,
}

impl Retry {
    /// `backoffMs`'s default.
    pub const DEFAULT_BACKOFF_MS: u64 = 100;
    /// `maxBackoffMs`'s default.
    pub const DEFAULT_MAX_BACKOFF_MS: u64 = 2000;
}

impl Resilience {
    /// Whether nothing is set (the node fails as before).
    pub fn is_empty(&self) -> bool {
        self.retry.is_none() && self.timeout_ms.is_none() && self.on_error.is_none()
    }
}
