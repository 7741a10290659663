//! An `mcp` node: its arguments, its downstream call, its replay in a later
//! round of an MCP 2026-07-28 call (see `questions::rounds`), and the
//! conversion of the result into its output.

use std::time::Instant;

use rmcp::model::CallToolResult;
use serde_json::Value;

use super::{Execution, from_json_opt, kind_of};
use crate::downstream::convert::output_of_result;
use crate::error::{Downstream, ErrorKind, NodeError};
use crate::expressions::expr::Args;
use crate::questions::Caller;

impl Execution {
    /// Runs an `mcp` node: evaluates its arguments, calls `tool` on
    /// `server`, and records the converted result.
    pub async fn mcp(
        &mut self,
        server: &'static str,
        tool: &'static str,
        args: &Args,
    ) -> Result<(), NodeError> {
        let arguments = match self.eval_args(args)? {
            Some(Value::Object(map)) => map,
            Some(other) => {
                return Err(self.error(
                    ErrorKind::Expression,
                    format!(
                        "the arguments for `{server}`/`{tool}` are not an object but {}",
                        kind_of(&other)
                    ),
                ));
            }
            None => {
                return Err(self.error(
                    ErrorKind::Expression,
                    format!(
                        "the arguments for `{server}`/`{tool}` yielded no value, not an object"
                    ),
                ));
            }
        };
        let progress = self
            .watch
            .progress
            .clone()
            .map(|sink| (sink, self.executed.get()));
        let caller = self.caller.as_ref().map(|c| c.at(self.current, progress));
        let result = match self.replayed(caller.as_ref())? {
            Some(result) => result,
            None => {
                let result = self.call(server, tool, arguments, caller.as_ref()).await?;
                if let Some(round) = caller.as_ref().and_then(|c| c.round()) {
                    round.record(
                        self.current,
                        serde_json::to_value(&result).unwrap_or_default(),
                    );
                }
                result
            }
        };
        if let Some(kept) = &mut self.kept
            && result.is_error != Some(true)
        {
            kept.offer(self.current, &result.content);
        }
        let output = output_of_result(result).map_err(|text| {
            self.error(
                ErrorKind::Downstream(Downstream::ToolError),
                format!("`{server}`/`{tool}` returned an error: {text}"),
            )
        })?;
        self.record(from_json_opt(output))?;
        Ok(())
    }

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
