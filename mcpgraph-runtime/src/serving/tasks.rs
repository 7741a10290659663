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
//!
//! The replica running a task holds a lease on it in the store and keeps
//! its journal there (`journal`): when the replica stops, another takes
//! the task over and replays the journal (`runner`).

mod journal;
mod runner;

use std::sync::Arc;

use mcpgraph_tasks::{Outcome, Status, Task, TaskId, TaskStore};
use rmcp::ErrorData as McpError;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ClientCapabilities,
    ContentBlock, CreateTaskResult, DetailedTask, GetTaskParams, GetTaskResult, ProtocolVersion,
    TaskPayload, TaskStatus, UpdateTaskParams,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;
use sha2::{Digest, Sha256};

use self::journal::{Entry, LEASE, Sealer, Start};
use self::runner::Runner;
use crate::questions::{Caller, Rounds};
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
        // This replica runs it, and the journal starts with the call.
        let start = Start {
            tool: request.name.into_owned(),
            arguments: request.arguments,
            capabilities: context.client_capabilities(),
            owner: caller.owner().map(|o| o.name().to_owned()),
        };
        let sealer = Arc::new(self.task_sealer(&task.id));
        let kept = async {
            if !store.claim(&task.id, &self.replica(), LEASE).await? {
                return Ok(false);
            }
            store
                .append_journal(
                    &task.id,
                    sealer.seal(&Entry::Start(Box::new(start.clone()))),
                )
                .await?;
            Ok::<_, mcpgraph_tasks::StoreError>(true)
        };
        match kept.await {
            Ok(true) => {}
            other => {
                let why = match other {
                    Err(e) => e.to_string(),
                    _ => "another replica holds it".to_owned(),
                };
                let text = format!("tool `{}` cannot start as a task: {why}", start.tool);
                let _ = store.cancel(&task.id, &owner).await;
                return Ok(CallToolResult::error(vec![ContentBlock::text(text)]).into());
            }
        }
        let runner = Runner {
            handler: self.clone(),
            store,
            id: task.id,
            start,
            caller,
            first: round,
            rounds_before: 0,
            interrupted: Vec::new(),
            sealer,
        };
        tokio::spawn(runner.run());
        Ok(CallToolResponse::Task(created))
    }

    /// Takes over, from now on, the tasks of the replicas sharing this
    /// one's store that stop (a task whose lease runs out): a server calls
    /// it once. Nothing without a task store.
    pub fn adopt_tasks(&self) {
        if let Some(store) = self.tasks.clone() {
            tokio::spawn(runner::adopt_orphans(self.clone(), store));
        }
    }

    /// What seals the journal of task `id`.
    fn task_sealer(&self, id: &TaskId) -> Sealer {
        let server = self.engine().graph().server;
        let graph = [server.name.as_bytes(), b"\0", server.version.as_bytes()].concat();
        Sealer::new(Arc::clone(&self.state_keys), &graph, id)
    }

    /// This replica's name in the task store's leases.
    fn replica(&self) -> Arc<str> {
        Arc::clone(&self.replica)
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
        acknowledged(store.answer(&id, &owner, answers).await)
    }

    /// `tasks/cancel`: asks the task to stop; a finished task is left as it
    /// is (and the request acknowledged all the same).
    pub(super) async fn task_cancel(
        &self,
        request: CancelTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let (store, id, owner) = self.lookup(&request.task_id, context)?;
        acknowledged(store.cancel(&id, &owner).await)
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

/// The empty acknowledgement of `tasks/update` and `tasks/cancel`: the
/// store found the caller's task (`true`), or error -32602.
fn acknowledged(found: Result<bool, mcpgraph_tasks::StoreError>) -> Result<(), McpError> {
    match found {
        Ok(true) => Ok(()),
        Ok(false) => Err(not_found()),
        Err(e) => Err(store_failed(&e)),
    }
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

/// Unix milliseconds as ISO 8601 (UTC, milliseconds).
fn iso(ms: u64) -> String {
    let ms = i64::try_from(ms).unwrap_or(i64::MAX);
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}
