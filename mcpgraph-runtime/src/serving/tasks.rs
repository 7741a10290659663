//! Graph calls as MCP tasks (the `io.modelcontextprotocol/tasks`
//! extension, MCP 2026-07-28), as far as the core knows them: which call
//! runs as a task ([`runs_as_task`]), the seam through which the crate
//! that runs tasks (`mcpgraph-tasks`: the store, the runner, the journal,
//! takeover by another replica) is handed one ([`TaskHost`]), and what it
//! runs a task's rounds with ([`TaskEngine`]): rounds as a 2026-07-28 call
//! has them (`questions::rounds`), driven by the task's runner instead of
//! the client, each ending with the call or with its questions
//! ([`RoundEnd::Asked`]), so that no downstream call is made twice.

use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::ErrorData as McpError;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ClientCapabilities,
    ErrorCode, GetTaskParams, GetTaskResult, InputRequests, ProtocolVersion, UpdateTaskParams,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value};
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use crate::engine::{CallError, CallOptions, Engine};
use crate::error::ErrorKind;
use crate::graph::GraphDef;
use crate::meta::{TaskMode, TaskSupport};
use crate::observe::ProgressEvent;
use crate::questions::{Caller, Rounds, Saved};
use crate::serving::metrics;
use mcpgraph_secrets::StateKeys;

/// What runs calls as MCP tasks and answers `tasks/get`, `tasks/update`
/// and `tasks/cancel`: `mcpgraph-tasks` implements it, the facade installs
/// it with `Handler::with_tasks`. Each request method is given the
/// caller's principal (the bytes its credential names; empty for none),
/// which a task is visible to alone.
pub trait TaskHost: Send + Sync + 'static {
    /// Starts `call` as a task and answers with it.
    fn start(&self, call: TaskCall) -> BoxFuture<'static, Result<CallToolResponse, McpError>>;
    /// `tasks/get`.
    fn get(
        &self,
        principal: Vec<u8>,
        request: GetTaskParams,
    ) -> BoxFuture<'static, Result<GetTaskResult, McpError>>;
    /// `tasks/update`: answers to the task's questions, of a call of
    /// `engine`'s graph.
    fn update(
        &self,
        engine: TaskEngine,
        principal: Vec<u8>,
        request: UpdateTaskParams,
    ) -> BoxFuture<'static, Result<(), McpError>>;
    /// `tasks/cancel`.
    fn cancel(
        &self,
        principal: Vec<u8>,
        request: CancelTaskParams,
    ) -> BoxFuture<'static, Result<(), McpError>>;
    /// Takes over, from now on, the tasks of the replicas sharing this
    /// one's store that stop; `engine` runs them. Called once per server.
    fn adopt(&self, engine: TaskEngine);
}

/// A `tools/call` that starts as a task, as the handler hands it over.
pub struct TaskCall {
    /// What runs it.
    pub engine: TaskEngine,
    /// The tool called.
    pub tool: String,
    /// Its arguments.
    pub arguments: Option<Map<String, Value>>,
    /// What the client declared.
    pub capabilities: Option<ClientCapabilities>,
    /// The caller as the request made it (token, owner, trace).
    pub caller: Caller,
    /// The first round: the request's own (the call of an `askFirst` tool
    /// brings the answers to the questions asked before the task).
    pub first: Arc<Rounds>,
    /// Whose task it is (see [`TaskHost`]).
    pub principal: Vec<u8>,
}

/// How one round of a task's call ended.
pub enum RoundEnd {
    /// The call's result, or its tool error.
    Done(CallToolResult),
    /// A protocol error (an unknown tool, a capability the client lacks).
    Failed {
        /// Its JSON-RPC code.
        code: i64,
        /// Its message.
        message: String,
    },
    /// The round stopped for answers.
    Asked {
        /// The questions, by key.
        requests: InputRequests,
        /// What the next round starts from.
        saved: Saved,
    },
}

/// Whether `request` runs as a task: only if its client declared the
/// extension (a 2026-07-28 request in its `_meta`, a session-era client in
/// `initialize`), for a tool that allows it, on a server that runs tasks
/// (`hosted`). A tool with `askFirst` called by a 2026-07-28 client without
/// answers runs as a plain call (its first questions go back as
/// `input_required`) and the call bringing the answers is the task; a
/// session-era client has no such round, so its call is the task at once.
/// `task: required` without the extension is error -32021 naming it.
pub(super) fn runs_as_task(
    engine: &Engine,
    hosted: bool,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<bool, McpError> {
    let never = TaskSupport {
        mode: TaskMode::Never,
        ask_first: false,
    };
    let support = engine
        .tools()
        .iter()
        .find(|t| t.meta.name == request.name)
        .map_or(never, |t| t.meta.task);
    let declared = context
        .client_capabilities()
        .is_some_and(|c| c.supports_tasks());
    match support.mode {
        TaskMode::Never => Ok(false),
        TaskMode::Required if !declared || !hosted => {
            Err(McpError::missing_required_client_capability(
                ClientCapabilities::builder().enable_tasks().build(),
            ))
        }
        _ if !declared || !hosted => Ok(false),
        _ => Ok(!support.ask_first || request.input_responses.is_some() || session_era(context)),
    }
}

/// Whether the request `context` is of comes from a client of the session
/// era (one that opened with `initialize`, before MCP 2026-07-28).
pub(super) fn session_era(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_none_or(|v| v < ProtocolVersion::V_2026_07_28)
}

/// The engine as a task host sees it: what runs a task's rounds, the graph,
/// the keys sealing what a task keeps.
#[derive(Clone)]
pub struct TaskEngine {
    pub(super) engine: Engine,
    pub(super) state_keys: Arc<StateKeys>,
}

impl TaskEngine {
    /// The graph its calls run.
    pub fn graph(&self) -> &GraphDef {
        self.engine.graph()
    }

    /// The keys sealing the state of calls, which replicas share.
    pub fn state_keys(&self) -> &Arc<StateKeys> {
        &self.state_keys
    }

    /// One round of task call `tool`: the engine's call with `caller` in
    /// `rounds`, each node reported on `progress`, stopped by `cancel`;
    /// counted on `/metrics` as it ends (a round that asks is not).
    pub async fn round(
        &self,
        tool: &str,
        arguments: Option<Map<String, Value>>,
        caller: Caller,
        rounds: Arc<Rounds>,
        progress: UnboundedSender<ProgressEvent>,
        cancel: CancellationToken,
    ) -> RoundEnd {
        let label = metrics::tool_label(&self.engine, tool);
        let options = CallOptions {
            cancel,
            caller: Some(caller.in_rounds(Arc::clone(&rounds))),
            progress: Some(progress),
            ..CallOptions::default()
        };
        let outcome = self.engine.call_with(tool, arguments, options).await;
        let error = match outcome.result {
            Ok(value) => {
                metrics::call(label, "ok");
                return RoundEnd::Done(crate::serving::result::tool_result(value, outcome.content));
            }
            Err(CallError::UnknownTool(name)) => {
                metrics::call(metrics::UNKNOWN_TOOL, "unknown_tool");
                return RoundEnd::Failed {
                    code: ErrorCode::INVALID_PARAMS.0.into(),
                    message: format!("unknown tool `{name}`"),
                };
            }
            Err(CallError::Failed(e)) => e,
        };
        if let Some(missing) = rounds.missing() {
            metrics::call(label, "error");
            return RoundEnd::Failed {
                code: ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY.0.into(),
                message: format!("{error} (the client must declare {missing})"),
            };
        }
        let asked = (error.kind() == ErrorKind::InputRequired)
            .then(|| rounds.asked())
            .flatten();
        if let Some((requests, saved)) = asked {
            return RoundEnd::Asked { requests, saved };
        }
        RoundEnd::Done(crate::serving::result::tool_error(label, &error))
    }

    /// Counts a call of `tool` that ended as `outcome` without a round
    /// (refused, cancelled) on `/metrics`.
    pub fn count_call(&self, tool: &str, outcome: &'static str) {
        metrics::call(metrics::tool_label(&self.engine, tool), outcome);
    }
}
