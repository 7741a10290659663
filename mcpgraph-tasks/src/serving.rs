//! Graph calls run as MCP tasks on a replica ([`Tasks`], the core's
//! `TaskHost`): a `tools/call` of a client that declared the extension
//! returns a task at once and the call runs on here, its state in the
//! [`TaskStore`], where `tasks/get`, `tasks/update` and `tasks/cancel` find
//! it on any replica sharing the store.
//!
//! The replica running a task holds a lease on it in the store and keeps
//! its journal there (`journal`): when the replica stops, another takes the
//! task over and replays the journal (`runner`). A task is stored and
//! reported on the wire as `wire` says.

mod journal;
mod runner;
mod sealer;
mod steps;
mod wire;

use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use mcpgraph_runtime::host::{TaskCall, TaskEngine, TaskHost};
use rmcp::ErrorData as McpError;
use rmcp::model::{
    CallToolResponse, CallToolResult, CancelTaskParams, ContentBlock, CreateTaskResult,
    GetTaskParams, GetTaskResult, UpdateTaskParams,
};
use sha2::{Digest, Sha256};

use self::journal::{Entry, KeptToken, LEASE, Start};
use self::runner::Runner;
use self::sealer::Sealer;
use crate::{StoreError, Task, TaskId, TaskStore};

/// The tasks of this replica, kept in a store that other replicas may
/// share: what a server hands its handler (`Handler::with_tasks`).
#[derive(Clone)]
pub struct Tasks {
    store: Arc<dyn TaskStore>,
    /// This process's name in the store's leases.
    replica: Arc<str>,
}

impl Tasks {
    /// Tasks kept in `store`, run by this process.
    pub fn new(store: Arc<dyn TaskStore>) -> Self {
        Self {
            store,
            replica: replica_name(),
        }
    }

    /// Starts `call` as a task: in the store (any replica can read it)
    /// before the answer goes out, claimed by this replica, its journal
    /// begun with the call.
    async fn start_call(self, call: TaskCall) -> Result<CallToolResponse, McpError> {
        let TaskCall {
            engine,
            tool,
            arguments,
            capabilities,
            caller,
            first,
            principal,
        } = call;
        let owner = task_owner(&principal);
        let task = match self.store.create(&owner, &tool).await {
            Ok(task) => task,
            Err(e) => {
                engine.count_call(&tool, "refused");
                let text = format!("tool `{tool}` cannot start as a task: {e}");
                return Ok(CallToolResult::error(vec![ContentBlock::text(text)]).into());
            }
        };
        let created = CreateTaskResult::new(wire::task(&task));
        let start = Start {
            tool,
            arguments,
            capabilities,
            owner: caller.owner().map(|o| o.name().to_owned()),
            token: caller.token().map(KeptToken::of),
        };
        let sealer = Arc::new(Sealer::for_task(&engine, &task.id));
        let kept = async {
            if !self.store.claim(&task.id, &self.replica, LEASE).await? {
                return Ok(false);
            }
            let entry = sealer.seal(&Entry::Start(Box::new(start.clone())));
            self.store.append_journal(&task.id, entry).await?;
            Ok::<_, StoreError>(true)
        };
        match kept.await {
            Ok(true) => {}
            other => {
                let why = match other {
                    Err(e) => e.to_string(),
                    _ => "another replica holds it".to_owned(),
                };
                let text = format!("tool `{}` cannot start as a task: {why}", start.tool);
                let _ = self.store.cancel(&task.id, &owner).await;
                return Ok(CallToolResult::error(vec![ContentBlock::text(text)]).into());
            }
        }
        let runner = Runner {
            engine,
            store: self.store,
            replica: self.replica,
            id: task.id,
            start,
            caller,
            first,
            rounds_before: 0,
            interrupted: Vec::new(),
            sealer,
        };
        tracing::info!(task = %runner.id, "started a task for tool `{}`", runner.start.tool);
        tokio::spawn(runner.run());
        Ok(CallToolResponse::Task(created))
    }

    /// The caller's task `id`, or error -32602.
    async fn find(self, principal: Vec<u8>, id: String) -> Result<Task, McpError> {
        let id = TaskId::parse(&id).ok_or_else(not_found)?;
        match self.store.get(&id, &task_owner(&principal)).await {
            Ok(Some(task)) => Ok(task),
            Ok(None) => Err(not_found()),
            Err(e) => Err(store_failed(&e)),
        }
    }
}

impl TaskHost for Tasks {
    fn start(&self, call: TaskCall) -> BoxFuture<'static, Result<CallToolResponse, McpError>> {
        self.clone().start_call(call).boxed()
    }

    fn get(
        &self,
        principal: Vec<u8>,
        request: GetTaskParams,
    ) -> BoxFuture<'static, Result<GetTaskResult, McpError>> {
        let find = self.clone().find(principal, request.task_id);
        async move { Ok(GetTaskResult::new(wire::detailed(find.await?))) }.boxed()
    }

    /// Answers to the task's outstanding questions (any other key is
    /// ignored), sealed for the task.
    fn update(
        &self,
        engine: TaskEngine,
        principal: Vec<u8>,
        request: UpdateTaskParams,
    ) -> BoxFuture<'static, Result<(), McpError>> {
        let store = Arc::clone(&self.store);
        async move {
            let id = TaskId::parse(&request.task_id).ok_or_else(not_found)?;
            let sealer = Sealer::for_task(&engine, &id);
            let answers = request
                .input_responses
                .into_iter()
                .map(|(key, answer)| (key, sealer.seal_answer(&answer)))
                .collect();
            acknowledged(store.answer(&id, &task_owner(&principal), answers).await)
        }
        .boxed()
    }

    /// Asks the task to stop; a finished task is left as it is (and the
    /// request acknowledged all the same).
    fn cancel(
        &self,
        principal: Vec<u8>,
        request: CancelTaskParams,
    ) -> BoxFuture<'static, Result<(), McpError>> {
        let store = Arc::clone(&self.store);
        async move {
            let id = TaskId::parse(&request.task_id).ok_or_else(not_found)?;
            acknowledged(store.cancel(&id, &task_owner(&principal)).await)
        }
        .boxed()
    }

    fn adopt(&self, engine: TaskEngine) {
        tokio::spawn(runner::adopt_orphans(
            engine,
            Arc::clone(&self.store),
            Arc::clone(&self.replica),
        ));
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
fn acknowledged(found: Result<bool, StoreError>) -> Result<(), McpError> {
    match found {
        Ok(true) => Ok(()),
        Ok(false) => Err(not_found()),
        Err(e) => Err(store_failed(&e)),
    }
}

fn not_found() -> McpError {
    McpError::invalid_params("Failed to retrieve task: Task not found", None)
}

fn store_failed(e: &StoreError) -> McpError {
    McpError::internal_error(format!("the task store failed: {e}"), None)
}

/// A name for this process among replicas: its id and start time.
fn replica_name() -> Arc<str> {
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    Arc::from(format!("{}-{started:x}", std::process::id()).as_str())
}
