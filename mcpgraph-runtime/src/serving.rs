//! Serving MCP: the rmcp handler that turns a `tools/call` into an engine
//! call ([`handler`]), the caps on calls in flight it admits a call under
//! ([`caps`]), one session over any transport ([`session`]), the tools it
//! lists ([`tools`]) and the results it answers with ([`result`]), the
//! process's own stdin and stdout
//! ([`stdio`]; streamable HTTP is `mcpgraph-http`'s, told who sent a
//! request through [`identity`]), the rounds a client resumes with the
//! state it keeps, sealed by `mcpgraph-secrets` (`resume`), and what an
//! operator watches on `/metrics` ([`metrics`]; logs and spans go where
//! `mcpgraph-telemetry` sends them).

pub(crate) mod caps;
// Public for the `testing` re-exports (the fuzz target serves through it).
#[cfg_attr(not(feature = "testing"), allow(unreachable_pub))]
pub(crate) mod handler;
pub(crate) mod identity;
pub(crate) mod metrics;
pub(crate) mod result;
mod resume;
pub(crate) mod session;
pub(crate) mod stdio;
pub(crate) mod tasks;
pub(crate) mod tools;

/// Time for responses produced during shutdown to reach their streams.
pub const FLUSH_GRACE: std::time::Duration = std::time::Duration::from_millis(150);
