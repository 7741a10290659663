//! The seam between execution and the downstream servers a graph calls:
//! [`Servers`], what a call needs of them, and [`Connect`], how the engine
//! gets them for a graph (generated code names the facade's constructor,
//! so that the core links no transport). [`NoServers`] is the set of a
//! graph that calls nothing (the differential runner's). Here too what
//! the engine and execution share with the downstream client manager:
//! the servers' settings (`spec`), a failed call ([`DownstreamError`]),
//! how a result becomes a node's output (`convert`) and the time limits
//! of shutting the servers down.

#[doc(hidden)]
pub mod convert;
mod error;
mod spec;

pub use error::{CALL_SHUTDOWN_LIMIT, CALL_STDIN_GRACE, DownstreamError, SHUTDOWN_LIMIT};
pub use spec::{ServerAuth, ServerSpec, TransportSpec, effective_specs};

use std::sync::Arc;
use std::time::Instant;

use futures::future::BoxFuture;
use rmcp::model::CallToolResult;
use serde_json::{Map, Value};

use crate::error::StartupError;
use crate::questions::Caller;

/// The downstream servers of one engine, as execution calls them.
pub trait Servers: Send + Sync + std::fmt::Debug {
    /// Calls `tool` on `server` on behalf of `caller` (who is asked what
    /// the server asks; `None`: nobody can be). The error names the server
    /// and tool. Boxed: generated code awaits it, and an unboxed body
    /// would be compiled again in every graph's crate.
    fn call<'a>(
        &'a self,
        server: &'a str,
        tool: &'a str,
        arguments: Map<String, Value>,
        caller: Option<&'a Caller>,
    ) -> BoxFuture<'a, Result<CallToolResult, DownstreamError>>;

    /// Drops the calls parked for the questions of `states` (their node
    /// failed: nobody will answer them).
    fn forget_parked(&self, states: &[Option<String>]);

    /// Closes every connection and stops every child process by
    /// `deadline`; children still running at `term_at`, when given, are
    /// sent SIGTERM then.
    fn shutdown(&self, deadline: Instant, term_at: Option<Instant>) -> BoxFuture<'_, ()>;

    /// `--strict-lock`: a call to a tool that changed since the graph's
    /// lock fails instead of reaching the server.
    fn set_strict_lock(&self, strict: bool);
}

/// Builds a graph's [`Servers`] from their settings and the schema lock the
/// graph was built against (`Graph::LOCK`), if any. Called inside the
/// tokio runtime that drives the connections.
pub type Connect =
    fn(Vec<ServerSpec>, Option<&'static str>) -> Result<Arc<dyn Servers>, StartupError>;

/// The servers of a graph that calls none: every call fails.
#[derive(Debug, Default)]
pub struct NoServers;

/// The [`Connect`] of a graph that declares no server: [`NoServers`]
/// whatever `--mcp` adds (no node can call a server the graph does not
/// declare). Generated code names it instead of the downstream crate's
/// connector, so such a server links no MCP client and no transport.
pub fn no_servers(
    _: Vec<ServerSpec>,
    _: Option<&'static str>,
) -> Result<Arc<dyn Servers>, StartupError> {
    Ok(Arc::new(NoServers))
}

impl Servers for NoServers {
    fn call<'a>(
        &'a self,
        server: &'a str,
        _: &'a str,
        _: Map<String, Value>,
        _: Option<&'a Caller>,
    ) -> BoxFuture<'a, Result<CallToolResult, DownstreamError>> {
        Box::pin(async move { Err(DownstreamError::unconfigured(server)) })
    }

    fn forget_parked(&self, _: &[Option<String>]) {}

    fn shutdown(&self, _: Instant, _: Option<Instant>) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }

    fn set_strict_lock(&self, _: bool) {}
}
