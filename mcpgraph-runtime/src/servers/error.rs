//! A failed downstream call ([`DownstreamError`]) and the time limits of
//! shutting the downstream servers down, which the engine sets.

use crate::error::ErrorKind;
use crate::servers::convert;

/// How long shutdown takes at most when the caller gives no deadline
/// (`Engine::shutdown`): children get stdin closed and SIGTERM within it.
#[doc(hidden)]
pub const SHUTDOWN_LIMIT: std::time::Duration = std::time::Duration::from_secs(3);

/// How long `call`'s shutdown takes at most: its result is out and a person
/// waits for the prompt. Children still running the downstream manager's kill margin before
/// it are killed.
#[doc(hidden)]
pub const CALL_SHUTDOWN_LIMIT: std::time::Duration = std::time::Duration::from_millis(1000);

/// How long a child gets to exit on its closed stdin after `call`'s result
/// before SIGTERM (a Python server takes ~0.5 s to wind down, a Node one
/// ~10 ms; both exit at once on SIGTERM).
#[doc(hidden)]
pub const CALL_STDIN_GRACE: std::time::Duration = std::time::Duration::from_millis(200);

/// A failed downstream call: how it failed, and a message naming the
/// server and the tool.
#[derive(Clone, Debug)]
pub struct DownstreamError {
    #[doc(hidden)]
    pub kind: ErrorKind,
    #[doc(hidden)]
    pub message: String,
    /// How long the server asked to be left alone (`Retry-After` of an
    /// HTTP 429 or 5xx), or the rest of its circuit breaker's cool-down.
    #[doc(hidden)]
    pub retry_after: Option<std::time::Duration>,
}

impl DownstreamError {
    #[doc(hidden)]
    pub fn new(kind: crate::error::Downstream, message: String) -> Self {
        Self::of(ErrorKind::Downstream(kind), message)
    }

    /// A message quoting the server (its JSON-RPC error, its crash) is
    /// cut to `convert::MAX_ERROR_BYTES`.
    #[doc(hidden)]
    pub fn of(kind: ErrorKind, message: String) -> Self {
        Self {
            kind,
            message: convert::cut(message),
            retry_after: None,
        }
    }
}

impl DownstreamError {
    /// A call to a server the graph does not have.
    #[doc(hidden)]
    pub fn unconfigured(server: &str) -> Self {
        Self::new(
            crate::error::Downstream::Refused,
            format!("no downstream server `{server}` is configured"),
        )
    }
}

impl std::fmt::Display for DownstreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DownstreamError {}
