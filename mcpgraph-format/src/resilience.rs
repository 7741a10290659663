//! A node's `retry` and `timeoutMs` (FORMAT.md, "Retries, node time limits
//! and error routes"); `onError` is a route, which the generated state
//! machine holds.

use serde::{Deserialize, Serialize};

/// A node's `retry:`: `attempts` tries in all, the n-th retry waiting
/// about `backoff_ms × 2ⁿ⁻¹`, at most `max_backoff_ms`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Retry {
    /// Tries in all, the first included (at least 1).
    pub attempts: u32,
    /// The wait before the first retry, in milliseconds (default 100).
    #[serde(default = "Retry::default_backoff_ms")]
    pub backoff_ms: u64,
    /// The longest wait between two tries, in milliseconds (default 2000,
    /// at least `backoff_ms`; a `Retry-After` longer than this is cut to
    /// it).
    #[serde(default = "Retry::default_max_backoff_ms")]
    pub max_backoff_ms: u64,
}

impl Retry {
    /// `backoffMs`'s default.
    pub const DEFAULT_BACKOFF_MS: u64 = 100;
    /// `maxBackoffMs`'s default.
    pub const DEFAULT_MAX_BACKOFF_MS: u64 = 2000;

    fn default_backoff_ms() -> u64 {
        Self::DEFAULT_BACKOFF_MS
    }

    fn default_max_backoff_ms() -> u64 {
        Self::DEFAULT_MAX_BACKOFF_MS
    }
}

/// What a node's `retry` and `timeoutMs` say.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Resilience {
    /// `retry:`, if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry: Option<Retry>,
    /// `timeoutMs:`: the node's own time limit, retries and their waits
    /// included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

impl Resilience {
    /// A node without `retry` or `timeoutMs`.
    pub const NONE: Resilience = Resilience {
        retry: None,
        timeout_ms: None,
    };

    /// Whether nothing is set.
    pub fn is_empty(&self) -> bool {
        self.retry.is_none() && self.timeout_ms.is_none()
    }
}
