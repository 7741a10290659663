//! The seam between a call's downstream calls and the servers: a
//! [`CallInterceptor`] sees (or answers) each one. Graph tests replay a
//! cassette and record one through it, and `serve --record-failures`
//! keeps each call's exchanges until it knows whether the call failed;
//! both live above the engine, which is given one with
//! [`Engine::with_interceptor`](crate::Engine::with_interceptor). Without
//! one, a downstream call costs one `Option` check more.

use std::future::Future;
use std::sync::Arc;

use rmcp::model::CallToolResult;
use serde_json::{Map, Value};

use crate::error::CallError;
use crate::meta::Limits;
use crate::servers::DownstreamError;

/// Stands between an engine's calls and their downstream calls. Not an API
/// for users: the crates of mcpgraph implement it.
#[doc(hidden)]
pub trait CallInterceptor: Send + Sync {
    /// A call of the graph's tool `tool` with `arguments` (its defaults
    /// applied) starts, within `limits`: what sees its downstream calls
    /// (the calls of the graph's own tools it makes included), `None` for
    /// nothing.
    fn begin(
        self: Arc<Self>,
        tool: &'static str,
        arguments: &Map<String, Value>,
        limits: &Limits,
    ) -> Option<Arc<dyn CallInterceptor>>;

    /// Before a downstream call of `tool` on `server` with `arguments`
    /// goes out (after any retry's changes): whether it does.
    fn before(&self, server: &str, tool: &str, arguments: &Map<String, Value>) -> Before {
        let _ = (server, tool, arguments);
        Before::Call
    }

    /// The downstream call `before` answered [`Before::Watch`] with
    /// `ticket` for ended with `outcome`. A call dropped before it ends
    /// (cancelled, timed out) is never reported.
    fn after(&self, ticket: usize, outcome: &Result<CallToolResult, DownstreamError>) {
        let _ = (ticket, outcome);
    }

    /// The call [`CallInterceptor::begin`] returned this for ended with
    /// `outcome` (`cancelled_by_caller`: its caller gave up on it).
    fn end(&self, outcome: &Result<Value, CallError>, cancelled_by_caller: bool) {
        let _ = (outcome, cancelled_by_caller);
    }
}

/// What [`CallInterceptor::before`] decided for a downstream call.
#[doc(hidden)]
#[derive(Debug)]
pub enum Before {
    /// Make the call.
    Call,
    /// Make the call and report how it ended ([`CallInterceptor::after`]
    /// with this ticket).
    Watch(usize),
    /// Do not make it: this is its outcome.
    Answer(Result<CallToolResult, DownstreamError>),
    /// Do not make it, and never answer it (a recorded call that was
    /// cancelled): the caller's time limit or cancellation ends it.
    Hang,
}

/// `call` (one downstream call of `tool` on `server` with `arguments`),
/// through `interceptor` if there is one.
pub(super) async fn through<F>(
    interceptor: Option<&dyn CallInterceptor>,
    server: &str,
    tool: &str,
    arguments: Map<String, Value>,
    call: impl FnOnce(Map<String, Value>) -> F,
) -> Result<CallToolResult, DownstreamError>
where
    F: Future<Output = Result<CallToolResult, DownstreamError>>,
{
    let Some(interceptor) = interceptor else {
        return call(arguments).await;
    };
    match interceptor.before(server, tool, &arguments) {
        Before::Call => call(arguments).await,
        Before::Watch(ticket) => {
            let outcome = call(arguments).await;
            interceptor.after(ticket, &outcome);
            outcome
        }
        Before::Answer(outcome) => outcome,
        Before::Hang => std::future::pending().await,
    }
}
