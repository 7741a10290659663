//! Where an mcpgraph server's logs, spans and counters go (an internal crate of
//! mcpgraph, with no semver promise: use it through `mcpgraph`).
//!
//! - [`init`]: the process's tracing subscriber, to stderr always (stdout
//!   belongs to the stdio transport) and, with the `otel` feature and an
//!   endpoint, to an OTLP/HTTP collector; kept alive by [`Telemetry`];
//! - [`stderr`]: our stderr, written by one background thread through a
//!   bounded queue, so that writing to it never blocks the runtime;
//! - [`TraceContext`]: a caller's W3C trace context, taken from a
//!   request's `_meta` and passed on to downstream calls;
//! - [`counters`]: what `/metrics` counts (calls, failures by kind,
//!   restarts, circuit breakers, refusals).

pub mod counters;
pub mod stderr;
mod subscriber;
mod trace_context;

pub use subscriber::{Telemetry, init};
pub use trace_context::TraceContext;
