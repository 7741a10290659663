//! Serving MCP: the rmcp handler that turns a `tools/call` into an engine
//! call ([`handler`]), the tools it lists ([`tools`]) and the results it
//! answers with ([`result`]), the transports (streamable HTTP with its front
//! door in `http`, with the `http-server` feature; the process's own stdin
//! and stdout in [`stdio`]), the
//! sealing of the state a client keeps between rounds ([`state`]), and what
//! an operator watches: `/metrics` ([`metrics`]), logs and spans
//! ([`telemetry`], written by [`stderr_writer`]).

// Public for the `testing` re-exports (the fuzz target serves through it).
#[cfg_attr(not(feature = "testing"), allow(unreachable_pub))]
pub(crate) mod handler;
#[cfg(feature = "http-server")]
pub mod http;
// Without `http-server` the counters still count (an atomic add), but
// nothing scrapes them.
#[cfg_attr(not(feature = "http-server"), allow(dead_code))]
pub(crate) mod metrics;
pub(crate) mod result;
mod resume;
pub(crate) mod state;
pub(crate) mod stderr_writer;
pub(crate) mod stdio;
pub(crate) mod telemetry;
pub(crate) mod tools;

/// Time for responses produced during shutdown to reach their streams.
pub const FLUSH_GRACE: std::time::Duration = std::time::Duration::from_millis(150);
