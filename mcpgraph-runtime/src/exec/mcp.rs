//! An `mcp` node: its arguments, its downstream call, its replay in a later
//! round of an MCP 2026-07-28 call (see `questions::rounds`), and the
//! conversion of the result into its output.

use std::time::Instant;

use rmcp::model::CallToolResult;
use serde_json::Value;

use super::intercept::through;
use super::retry::{Attempt, Resilience};
use super::{Execution, from_json_opt, kind_of};
use crate::error::{Downstream, ErrorKind, NodeError};
use crate::questions::{Caller, Slot};
use crate::servers::convert::output_of_result;
use mcpgraph_expr::parsed::Args;

impl Execution {
    /// Runs an `mcp` node: evaluates its arguments, calls `tool` on
    /// `server`, and records the converted result.
    pub async fn mcp(
        &mut self,
        server: &'static str,
        tool: &'static str,
        args: &Args,
    ) -> Result<(), NodeError> {
        self.mcp_with(server, tool, args, &Resilience::NONE).await
    }

    /// [`Execution::mcp`] for a node with `retry` or `timeoutMs`
    /// (see [`Resilience`]).
    pub async fn mcp_with(
        &mut self,
        server: &'static str,
        tool: &'static str,
        args: &Args,
        resilience: &Resilience,
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
        if self.watch.keeps_records()
            && let Some(pending) = &mut self.pending
        {
            pending.input = Some(Value::Object(arguments.clone()));
        }
        let progress = self
            .watch
            .progress
            .clone()
            .map(|sink| (sink, self.executed.get()));
        let caller = self.caller.as_ref().map(|c| c.at(self.current, progress));
        let result = match self.replayed(caller.as_ref())? {
            Some(result) => result,
            None => {
                if let Some(round) = caller.as_ref().and_then(|c| c.round()) {
                    round
                        .begin_call(&Slot::node(self.current), server, tool)
                        .await
                        .map_err(|why| self.error(ErrorKind::TaskInterrupted, why))?;
                }
                let result = self
                    .call_with(server, tool, arguments, caller.as_ref(), resilience)
                    .await?;
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

    /// Calls `tool` on `server` once for the current node, within what is
    /// left of the graph's run time and of the node's own (`node_deadline`);
    /// the time the caller takes to answer the server's questions counts
    /// toward neither (both deadlines move by it). A failed try carries the
    /// time no other may start after (the earlier of the two).
    pub(super) async fn call_once(
        &mut self,
        server: &'static str,
        tool: &'static str,
        arguments: serde_json::Map<String, Value>,
        caller: Option<&Caller>,
        node_deadline: &mut Option<Instant>,
    ) -> Attempt {
        let clients = &self.clients;
        let call = through(
            self.interceptor.as_deref(),
            server,
            tool,
            arguments,
            |arguments| clients.call(server, tool, arguments, caller),
        );
        let limit = node_deadline.map_or(self.deadline, |node| node.min(self.deadline));
        let left = limit.saturating_duration_since(Instant::now());
        let outcome = match caller {
            Some(caller) => {
                let waited = caller.clock().waited();
                let outcome = caller.clock().timeout(left, call).await;
                let waited = caller.clock().waited() - waited;
                self.deadline += waited;
                if let Some(node) = node_deadline {
                    *node += waited;
                }
                outcome
            }
            None => tokio::time::timeout(left, call).await.ok(),
        };
        match outcome {
            Some(Ok(result)) => Attempt::Answered(result),
            Some(Err(e)) => {
                let limit = node_deadline.map_or(self.deadline, |node| node.min(self.deadline));
                Attempt::Failed(e, limit)
            }
            None if node_deadline.is_some_and(|node| node < self.deadline) => Attempt::TimedOut,
            None => Attempt::Ended(self.time_limit()),
        }
    }
}
