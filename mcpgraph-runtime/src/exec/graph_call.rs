//! Calls of the graph's own tools from `parallel` and `forEach` nodes: a
//! child [`Execution`] with its own context and history, sharing the
//! caller's deadline and node count, one level deeper (at most
//! `maxCallDepth`), running the called tool's generated state machine.
//! The child carries the caller's identity (its access token, for servers
//! that pass it on, and its trace context) and is checked against the
//! called tool's `requiredScopes` as a call from the client is; it asks
//! the caller nothing.

use std::rc::Rc;
use std::sync::Arc;

use jsonata_core::value::JValue;
use serde_json::Value;

use super::{Execution, from_json_opt};
use crate::error::{ErrorKind, Limit, NodeError, SchemaSide};
use crate::graph::RunFuture;
use crate::meta::ToolMeta;
use crate::questions::Caller;

/// Why a tool of the graph called by a `parallel` or `forEach` node cannot
/// ask its caller (see [`crate::questions::Unanswered`]).
const NESTED: &str =
    "is not asked by a tool of the graph that a `parallel` or `forEach` node calls";

/// The graph's tools, as the engine holds them.
pub(crate) trait GraphTools: Send + Sync {
    /// Runs tool `tool`'s graph in `exec`, as [`Graph::run`](crate::Graph::run).
    fn run<'a>(&'a self, tool: usize, exec: &'a mut Execution) -> RunFuture<'a>;
    /// Tool `tool`'s metadata (its schema checks).
    fn meta(&self, tool: usize) -> Option<&'static ToolMeta>;
    /// Fills in the `default`s of tool `tool`'s input properties that
    /// `arguments` lacks (as a call from a client gets them).
    fn apply_defaults(&self, tool: usize, arguments: &mut Value);
}

impl Execution {
    /// Lets this call run the graph's tools (`parallel` and `forEach`
    /// nodes without `server`).
    pub(crate) fn with_tools(&mut self, tools: Arc<dyn GraphTools>) {
        self.tools = Some(tools);
    }

    /// The future of a call of the graph's tool `tool` (named `name`) with
    /// `arguments`, for the current node: checked here (depth, arguments
    /// against its `inputSchema`), run by the caller.
    pub(super) fn graph_call(
        &self,
        tool: usize,
        name: &'static str,
        arguments: Value,
    ) -> Result<impl Future<Output = Result<JValue, NodeError>> + 'static, NodeError> {
        let tools = self.tools.clone().ok_or_else(|| {
            self.error(
                ErrorKind::Internal,
                format!("tool `{name}` of this graph cannot be called outside an engine"),
            )
        })?;
        let meta = tools.meta(tool).ok_or_else(|| {
            self.error(
                ErrorKind::Internal,
                format!("no tool `{name}` in this graph"),
            )
        })?;
        if self.depth >= self.limits.max_call_depth {
            return Err(self.error(
                ErrorKind::Limit(Limit::CallDepth),
                format!(
                    "Execution limit exceeded: calls of the graph's tools nest deeper than maxCallDepth ({}) at tool `{name}`",
                    self.limits.max_call_depth
                ),
            ));
        }
        let mut arguments = arguments;
        tools.apply_defaults(tool, &mut arguments);
        if let Some(message) = (meta.input_check)(&arguments) {
            return Err(self.error(
                ErrorKind::Schema(SchemaSide::Input),
                format!("invalid arguments for tool `{name}`: {message}"),
            ));
        }
        let token = self.caller.as_ref().and_then(Caller::token);
        if let Some(scope) = token.and_then(|t| t.lacks(meta.required_scopes)) {
            return Err(self.error(
                ErrorKind::Refused,
                format!(
                    "tool `{name}` needs scope `{scope}` (its requiredScopes), which the caller's \
                     access token does not grant"
                ),
            ));
        }
        let mut child = Execution::new(&arguments, self.limits, Arc::clone(&self.clients));
        child.caller = self.caller.as_ref().map(|caller| {
            Caller::closed(NESTED)
                .with_trace(caller.trace().cloned())
                .with_token(caller.token().cloned())
        });
        child.interceptor = self.interceptor.clone();
        child.deadline = self.deadline;
        child.executed = Rc::clone(&self.executed);
        child.depth = self.depth + 1;
        child.tools = Some(Arc::clone(&tools));
        let node = self.current;
        Ok(async move {
            let outcome = tools.run(tool, &mut child).await;
            let inner = |e: NodeError| {
                let at = e
                    .node()
                    .map(|n| format!(" at node `{n}`"))
                    .unwrap_or_default();
                NodeError::new(
                    e.kind(),
                    Some(node),
                    format!("tool `{name}` failed{at}: {}", e.message()),
                )
            };
            outcome.map_err(inner)?;
            let value = child.finish().ok_or_else(|| {
                NodeError::new(
                    ErrorKind::Internal,
                    Some(node),
                    format!("tool `{name}` ended without reaching its exit node"),
                )
            })?;
            if let Some(message) = meta.output_check.and_then(|check| check(&value)) {
                return Err(NodeError::new(
                    ErrorKind::Schema(SchemaSide::Output),
                    Some(node),
                    format!(
                        "the result of tool `{name}` does not match its outputSchema: {message}"
                    ),
                ));
            }
            Ok(from_json_opt(Some(value)))
        })
    }
}
