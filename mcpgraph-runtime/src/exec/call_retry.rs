//! The `retry` and `timeoutMs` of one call of a `parallel` branch or of a
//! `forEach` node (FORMAT.md, "Retries, node time limits and error
//! routes"): the same rules as an `mcp` node's ([`retryable`] failures
//! only, backoff with jitter, `Retry-After` honoured, never past the
//! graph's time limit), for a call that runs beside others and so owns
//! nothing of the execution.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::CallToolResult;
use serde_json::Value;

use super::intercept::{CallInterceptor, through};
use super::retry::{Attempt, Resilience, Tries};
use crate::error::{ErrorKind, NodeError};
use crate::questions::Caller;
use crate::servers::Servers;

/// One downstream call of a fan-out node, with what it needs to run on
/// its own.
pub(super) struct FanOutCall {
    pub(super) clients: Arc<dyn Servers>,
    /// What sees the call (see `Execution::intercept`).
    pub(super) interceptor: Option<Arc<dyn CallInterceptor>>,
    pub(super) server: &'static str,
    pub(super) tool: &'static str,
    /// The caller, asked on behalf of this call (its part of the node:
    /// see `Caller::in_part`).
    pub(super) caller: Option<Caller>,
    /// The node the call belongs to, for errors and logs.
    pub(super) node: &'static str,
    /// The graph's `maxExecutionTimeMs` runs out then: no retry waits past
    /// it (the node itself stops the call at that instant).
    pub(super) graph_deadline: Instant,
}

impl FanOutCall {
    /// Calls the tool with `arguments` as `resilience` says: tried again
    /// after a retryable failure while tries and time are left, the whole
    /// within the call's own `timeoutMs`. In a later round of a 2026-07-28
    /// caller, a call that ended in an earlier round is not made again (its
    /// result is replayed), and one that asked goes on as the try that
    /// asked, with its own answers.
    pub(super) async fn run(
        self,
        arguments: serde_json::Map<String, Value>,
        resilience: &Resilience,
    ) -> Result<CallToolResult, NodeError> {
        let round = self.caller.as_ref().and_then(Caller::round);
        let Some((round, slot)) = round.zip(self.caller.as_ref().map(Caller::slot)) else {
            return self.tries(arguments, resilience, 1).await;
        };
        let replayed = round
            .replay_call(&slot)
            .map_err(|off| self.error(ErrorKind::Internal, off.to_string()))?;
        if let Some(value) = replayed {
            return serde_json::from_value(value).map_err(|e| {
                self.error(
                    ErrorKind::Internal,
                    format!("the sealed state's result for call {slot} does not read back: {e}"),
                )
            });
        }
        round
            .begin_call(&slot, self.server, self.tool)
            .await
            .map_err(|why| self.error(ErrorKind::TaskInterrupted, why))?;
        let first = round.attempt(&slot).unwrap_or(1);
        let result = self.tries(arguments, resilience, first).await?;
        round.record_call(slot, serde_json::to_value(&result).unwrap_or_default());
        Ok(result)
    }

    /// [`FanOutCall::run`]'s tries, from try `first`.
    async fn tries(
        &self,
        arguments: serde_json::Map<String, Value>,
        resilience: &Resilience,
        first: u32,
    ) -> Result<CallToolResult, NodeError> {
        let (server, tool) = (self.server, self.tool);
        let call_deadline = resilience
            .timeout_ms
            .map(|ms| Instant::now() + Duration::from_millis(ms));
        let limit = call_deadline.map_or(self.graph_deadline, |c| c.min(self.graph_deadline));
        let tries = Tries {
            resilience,
            node: self.node,
            server,
            tool,
            scope: "call",
        };
        tries
            .run(arguments, first, async |this, attempt| {
                let caller = self.caller.as_ref().map(|c| c.on_attempt(attempt));
                let call = through(self.interceptor.as_deref(), server, tool, this, |this| {
                    self.clients.call(server, tool, this, caller.as_ref())
                });
                match within(call_deadline, call).await {
                    Some(Ok(result)) => Attempt::Answered(result),
                    Some(Err(error)) => Attempt::Failed(error, limit),
                    None => Attempt::TimedOut,
                }
            })
            .await
    }

    fn error(&self, kind: ErrorKind, message: String) -> NodeError {
        let message = mcpgraph_secrets::redact(&message).into_owned();
        NodeError::new(kind, Some(self.node), message)
    }
}

/// `future`, given up (`None`) at `deadline` if there is one.
pub(super) async fn within<T>(
    deadline: Option<Instant>,
    future: impl Future<Output = T>,
) -> Option<T> {
    match deadline {
        Some(deadline) => tokio::time::timeout_at(deadline.into(), future).await.ok(),
        None => Some(future.await),
    }
}
