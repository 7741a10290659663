//! An `mcp` node's downstream call, and its replay in a later round of an
//! MCP 2026-07-28 call (see `questions::rounds`).

use std::time::Instant;

use rmcp::model::CallToolResult;
use serde_json::Value;

use super::Execution;
use crate::error::{ErrorKind, NodeError};
use crate::questions::Caller;

impl Execution {
    /// What the current node got in an earlier round of this call, if it
    /// ran then.
    pub(super) fn replayed(
        &self,
        caller: Option<&Caller>,
    ) -> Result<Option<CallToolResult>, NodeError> {
        let Some(round) = caller.and_then(Caller::round) else {
            return Ok(None);
        };
        let value = round
            .replay(self.current)
            .map_err(|off| self.error(ErrorKind::Internal, off.to_string()))?;
        value.map(serde_json::from_value).transpose().map_err(|e| {
            self.error(
                ErrorKind::Internal,
                format!("the sealed state's result for this node does not read back: {e}"),
            )
        })
    }

    /// Calls `tool` on `server` for the current node, within what is left
    /// of the graph's run time; the time the caller takes to answer the
    /// server's questions is not run time.
    pub(super) async fn call(
        &mut self,
        server: &'static str,
        tool: &'static str,
        arguments: serde_json::Map<String, Value>,
        caller: Option<&Caller>,
    ) -> Result<CallToolResult, NodeError> {
        let call = self.clients.call(server, tool, arguments, caller);
        let left = self.deadline.saturating_duration_since(Instant::now());
        let outcome = match caller {
            Some(caller) => {
                let waited = caller.clock().waited();
                let outcome = caller.clock().timeout(left, call).await;
                self.deadline += caller.clock().waited() - waited;
                outcome
            }
            None => tokio::time::timeout(left, call).await.ok(),
        };
        match outcome {
            Some(result) => result.map_err(|e| self.error(e.kind, e.message)),
            None => Err(self.time_limit()),
        }
    }
}
