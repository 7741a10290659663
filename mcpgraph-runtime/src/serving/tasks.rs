//! Graph calls as MCP tasks (the `io.modelcontextprotocol/tasks`
//! extension, MCP 2026-07-28): a `tools/call` of a client that declared the
//! extension returns a task at once, and the call runs on here, its state
//! in the server's task store (`mcpgraph-tasks`), where `tasks/get`,
//! `tasks/update` and `tasks/cancel` find it on any replica sharing the
//! store.
//!
//! A task's questions (an `elicit` node's, a downstream server's) are asked
//! the way a 2026-07-28 call asks them, in rounds (`questions::rounds`),
//! but the rounds are driven here instead of by the client: a round that
//! stops for answers puts its questions in the task (`input_required`),
//! waits for `tasks/update` to bring the answers, and the call runs again
//! from its entry with the tape of what it already got, so no downstream
//! call is made twice.

use std::sync::Arc;
use std::time::Duration;

use mcpgraph_tasks::{Outcome, Status, Task, TaskId, TaskStore};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ClientCapabilities,
    ContentBlock, CreateTaskResult, DetailedTask, GetTaskParams, GetTaskResult, InputResponses,
    ProtocolVersion, TaskPayload, TaskStatus, UpdateTaskParams,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData as McpError, model::ErrorCode};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::engine::{CallError, CallOptions};
use crate::error::ErrorKind;
use crate::questions::{Caller, Rounds, Saved};
use crate::serving::handler::Handler;
use crate::serving::metrics;
use crate::{TaskMode, TaskSupport};

/// What a call's client and tool say about running it as a task.
pub(super) enum Mode {
    /// A plain call.
    Plain,
    /// A task.
    Task,
    /// A tool with `askFirst`, called without answers: a plain call (its
    /// first round's questions go back as `input_required`); the call that
    /// brings the answers is the task.
    AskFirst,
}

impl Handler {
    /// Whether `request` runs as a task: only for a 2026-07-28 request
    /// that declares the extension (in its own `_meta`; the extension is
    /// not defined for session-era clients), of a tool that allows it, on
    /// a server with a task store. A tool marked `task: required` called
    /// without the extension is error -32021 naming it.
    pub(super) fn mode(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<Mode, McpError> {
        let never = TaskSupport {
            mode: TaskMode::Never,
            ask_first: false,
        };
        let support = self
            .engine()
            .tools()
            .iter()
            .find(|t| t.meta.name == request.name)
            .map_or(never, |t| t.meta.task);
        let declared = context
            .protocol_version()
            .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28)
            && context
                .client_capabilities()
                .is_some_and(|c| c.supports_tasks());
        match support.mode {
            TaskMode::Never => Ok(Mode::Plain),
            TaskMode::Required if !declared || self.tasks.is_none() => {
                Err(McpError::missing_required_client_capability(
                    ClientCapabilities::builder().enable_tasks().build(),
                ))
            }
            _ if !declared || self.tasks.is_none() => Ok(Mode::Plain),
            _ if support.ask_first && request.input_responses.is_none() => Ok(Mode::AskFirst),
            _ => Ok(Mode::Task),
        }
    }

    /// Starts `request` as a task and answers with it. The task is in the
    /// store (any replica can read it) before the answer goes out.
    pub(super) async fn start_task(
        &self,
        request: CallToolRequestParams,
        caller: Caller,
        round: Arc<Rounds>,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let Some(store) = self.tasks.clone() else {
            return Err(McpError::internal_error("no task store", None));
        };
        let owner = task_owner(&self.identity.principal(&context.extensions));
        let task = match store.create(&owner, &request.name).await {
            Ok(task) => task,
            Err(e) => {
                metrics::call(self.tool_label(&request.name), "refused");
                let text = format!("tool `{}` cannot start as a task: {e}", request.name);
                return Ok(CallToolResult::error(vec![ContentBlock::text(text)]).into());
            }
        };
        let created = CreateTaskResult::new(wire_task(&task));
        let runner = Runner {
            handler: self.clone(),
            store,
            id: task.id,
            tool: request.name.into_owned(),
            arguments: request.arguments,
            caller,
            first: round,
        };
        tokio::spawn(runner.run());
        Ok(CallToolResponse::Task(created))
    }

    /// `tasks/get`: the caller's task, with its questions, result or error.
    pub(super) async fn task_get(
        &self,
        request: GetTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        let task = self.find(&request.task_id, context).await?;
        Ok(GetTaskResult::new(detailed(task)))
    }

    /// `tasks/update`: answers to the task's outstanding questions (any
    /// other key is ignored).
    pub(super) async fn task_update(
        &self,
        request: UpdateTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let (store, id, owner) = self.lookup(&request.task_id, context)?;
        let answers = request.input_responses.into_iter().collect();
        match store.answer(&id, &owner, answers).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(not_found()),
            Err(e) => Err(store_failed(&e)),
        }
    }

    /// `tasks/cancel`: asks the task to stop; a finished task is left as it
    /// is (and the request acknowledged all the same).
    pub(super) async fn task_cancel(
        &self,
        request: CancelTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let (store, id, owner) = self.lookup(&request.task_id, context)?;
        match store.cancel(&id, &owner).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(not_found()),
            Err(e) => Err(store_failed(&e)),
        }
    }

    /// The caller's task `id`, or error -32602.
    async fn find(&self, id: &str, context: &RequestContext<RoleServer>) -> Result<Task, McpError> {
        let (store, id, owner) = self.lookup(id, context)?;
        match store.get(&id, &owner).await {
            Ok(Some(task)) => Ok(task),
            Ok(None) => Err(not_found()),
            Err(e) => Err(store_failed(&e)),
        }
    }

    /// The store, the parsed id and the caller's owner key for `id`.
    fn lookup(
        &self,
        id: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<(Arc<dyn TaskStore>, TaskId, String), McpError> {
        let store = self.tasks.clone().ok_or_else(not_found)?;
        let id = TaskId::parse(id).ok_or_else(not_found)?;
        let owner = task_owner(&self.identity.principal(&context.extensions));
        Ok((store, id, owner))
    }
}

/// Who a task belongs to: the digest of the caller's principal (its
/// access token's subject, or its static token), so that the same caller
/// finds it on any connection and any replica; callers without a
/// credential share one owner, and a task id (128 random bits) is what
/// keeps them apart.
fn task_owner(principal: &[u8]) -> String {
    if principal.is_empty() {
        return "anonymous".to_owned();
    }
    let digest = Sha256::digest(principal);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn not_found() -> McpError {
    McpError::invalid_params("Failed to retrieve task: Task not found", None)
}

fn store_failed(e: &mcpgraph_tasks::StoreError) -> McpError {
    McpError::internal_error(format!("the task store failed: {e}"), None)
}

/// A stored task as the wire's `Task`.
fn wire_task(task: &Task) -> rmcp::model::Task {
    let status = match task.status {
        Status::Working => TaskStatus::Working,
        Status::InputRequired => TaskStatus::InputRequired,
        Status::Completed => TaskStatus::Completed,
        Status::Failed => TaskStatus::Failed,
        Status::Cancelled => TaskStatus::Cancelled,
    };
    let mut wire = rmcp::model::Task::new(
        task.id.to_string(),
        status,
        iso(task.created_at_ms),
        iso(task.updated_at_ms),
    )
    .with_ttl_ms(task.ttl_ms)
    .with_poll_interval_ms(task.poll_interval_ms);
    if let Some(message) = &task.status_message {
        wire = wire.with_status_message(message.clone());
    }
    wire
}

/// A stored task with what its status carries.
fn detailed(task: Task) -> DetailedTask {
    let payload = match (&task.status, &task.outcome) {
        (Status::InputRequired, _) => TaskPayload::InputRequired {
            input_requests: task
                .input_requests
                .iter()
                .filter_map(|(k, v)| Some((k.clone(), serde_json::from_value(v.clone()).ok()?)))
                .collect(),
        },
        (Status::Completed, Some(Outcome::Result(Value::Object(result)))) => {
            TaskPayload::Completed {
                result: result.clone(),
            }
        }
        (Status::Failed, Some(Outcome::Error { code, message })) => TaskPayload::Failed {
            error: serde_json::json!({ "code": code, "message": message })
                .as_object()
                .cloned()
                .unwrap_or_default(),
        },
        (Status::Cancelled, _) => TaskPayload::Cancelled,
        _ => TaskPayload::Working,
    };
    DetailedTask::new(wire_task(&task), payload)
}

/// How often a task's status message may change in the store at most: a
/// loop of fast nodes costs no store write per node.
const MESSAGE_EVERY: Duration = Duration::from_millis(200);

/// Keeps the task's status message on the node running (`running node
/// `x``), written when the node changes, at most every [`MESSAGE_EVERY`],
/// and the last one when the call ends.
async fn report_nodes(
    store: Arc<dyn TaskStore>,
    id: TaskId,
    mut events: tokio::sync::mpsc::UnboundedReceiver<crate::observe::ProgressEvent>,
) {
    let (mut written, mut latest): (Option<&'static str>, Option<&'static str>) = (None, None);
    let mut next_write = tokio::time::Instant::now();
    loop {
        let event = tokio::select! {
            event = events.recv() => event,
            () = tokio::time::sleep_until(next_write), if latest != written => {
                if let Some(node) = latest {
                    let _ = store.set_message(&id, format!("running node `{node}`")).await;
                }
                written = latest;
                next_write = tokio::time::Instant::now() + MESSAGE_EVERY;
                continue;
            }
        };
        match event {
            Some(event) => latest = Some(event.node),
            None => break,
        }
    }
    if let Some(node) = latest.filter(|_| latest != written) {
        let _ = store
            .set_message(&id, format!("running node `{node}`"))
            .await;
    }
}

/// Unix milliseconds as ISO 8601 (UTC, milliseconds).
fn iso(ms: u64) -> String {
    let ms = i64::try_from(ms).unwrap_or(i64::MAX);
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// One task's call, run to its end.
struct Runner {
    handler: Handler,
    store: Arc<dyn TaskStore>,
    id: TaskId,
    tool: String,
    arguments: Option<serde_json::Map<String, Value>>,
    /// The caller as the request made it (token, owner, trace); its channel
    /// is replaced by each round's.
    caller: Caller,
    /// The first round: the request's own (a call of an `askFirst` tool
    /// brings the answers to the questions asked before the task).
    first: Arc<Rounds>,
}

/// How a task ended.
enum End {
    Done(CallToolResult),
    Failed { code: i64, message: String },
    Cancelled,
}

impl Runner {
    async fn run(self) {
        let end = self.rounds().await;
        let (status, outcome) = match end {
            End::Done(result) => (
                Status::Completed,
                Some(Outcome::Result(
                    serde_json::to_value(result).unwrap_or(Value::Null),
                )),
            ),
            End::Failed { code, message } => {
                (Status::Failed, Some(Outcome::Error { code, message }))
            }
            End::Cancelled => (Status::Cancelled, None),
        };
        if let Err(e) = self.store.finish(&self.id, status, outcome).await {
            tracing::warn!(task = %self.id, error = %e, "a task's end could not be stored");
        }
    }

    /// Runs the call round after round until it ends.
    async fn rounds(&self) -> End {
        let label = self.handler.tool_label(&self.tool);
        let mut next = Some(Arc::clone(&self.first));
        let (mut saved, mut responses) = (Saved::default(), InputResponses::new());
        let mut round = 0;
        loop {
            round += 1;
            let rounds = match next.take() {
                Some(first) => first,
                None => Arc::new(Rounds::new(saved, responses)),
            };
            let caller = self.caller.clone().in_rounds(Arc::clone(&rounds));
            let cancel = tokio_util::sync::CancellationToken::new();
            let (progress, events) = tokio::sync::mpsc::unbounded_channel();
            let reporting = tokio::spawn(report_nodes(
                Arc::clone(&self.store),
                self.id.clone(),
                events,
            ));
            let options = CallOptions {
                cancel: cancel.clone(),
                caller: Some(caller),
                progress: Some(progress),
                ..CallOptions::default()
            };
            let call = self
                .handler
                .engine()
                .call_with(&self.tool, self.arguments.clone(), options);
            let outcome = tokio::select! {
                outcome = call => outcome,
                _ = self.store.cancelled(&self.id) => {
                    cancel.cancel();
                    reporting.abort();
                    metrics::call(label, "cancelled");
                    return End::Cancelled;
                }
            };
            // The call's sender is gone: the last node's message is stored.
            let _ = reporting.await;
            let error = match outcome.result {
                Ok(value) => {
                    metrics::call(label, "ok");
                    return End::Done(crate::serving::result::tool_result(value, outcome.content));
                }
                Err(CallError::UnknownTool(name)) => {
                    return End::Failed {
                        code: ErrorCode::INVALID_PARAMS.0.into(),
                        message: format!("unknown tool `{name}`"),
                    };
                }
                Err(CallError::Failed(e)) => e,
            };
            if let Some(missing) = rounds.missing() {
                metrics::call(label, "error");
                return End::Failed {
                    code: ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY.0.into(),
                    message: format!("{error} (the client must declare {missing})"),
                };
            }
            let asked = (error.kind() == ErrorKind::InputRequired)
                .then(|| rounds.asked())
                .flatten();
            let Some((requests, next)) = asked else {
                metrics::call(label, "error");
                metrics::node_error(error.kind());
                let text = crate::servers::convert::cut_to(
                    error.to_string(),
                    2 * crate::servers::convert::MAX_ERROR_BYTES,
                );
                return End::Done(CallToolResult::error(vec![ContentBlock::text(text)]));
            };
            match self.ask(round, requests).await {
                Ok(Some(answers)) => (saved, responses) = (next, answers),
                Ok(None) => return End::Cancelled,
                Err(message) => {
                    return End::Done(CallToolResult::error(vec![ContentBlock::text(message)]));
                }
            }
        }
    }

    /// Puts a round's questions in the task and waits for every answer,
    /// each for at most `maxAnswerWaitMs`. The task's keys are the round's
    /// own, prefixed with the round number, so that no key is used twice in
    /// the task's life. `None`: cancelled while waiting.
    async fn ask(
        &self,
        round: u32,
        requests: rmcp::model::InputRequests,
    ) -> Result<Option<InputResponses>, String> {
        let failed = |e: mcpgraph_tasks::StoreError| format!("the task store failed: {e}");
        let mut keys = Vec::with_capacity(requests.len());
        for (key, request) in requests {
            let task_key = format!("r{round}.{key}");
            let request = serde_json::to_value(&request).map_err(|e| e.to_string())?;
            self.store
                .ask(&self.id, task_key.clone(), request)
                .await
                .map_err(failed)?;
            keys.push((key, task_key));
        }
        let wait = Duration::from_millis(self.handler.engine().graph().limits.max_answer_wait_ms);
        let mut answers = InputResponses::new();
        for (key, task_key) in keys {
            let answer = tokio::select! {
                answer = self.store.wait_answer(&self.id, &task_key, wait) => answer.map_err(failed)?,
                _ = self.store.cancelled(&self.id) => return Ok(None),
            };
            match answer {
                Some(answer) => {
                    answers.insert(key, answer);
                }
                None => {
                    return Err(format!(
                        "question `{task_key}` was not answered within {} ms (maxAnswerWaitMs)",
                        wait.as_millis()
                    ));
                }
            }
        }
        Ok(Some(answers))
    }
}
