//! A downstream call that its server runs as an MCP task (the tasks
//! extension of MCP 2026-07-28, which mcpgraph declares to every server):
//! instead of a request held open, the task is polled with `tasks/get`,
//! first after [`MIN_POLL`], then twice as long each time up to the
//! interval the server asks for (at most [`MAX_POLL`]), so that a short
//! task costs little more than a plain call; its questions are taken to the caller and answered with
//! `tasks/update` (a 2026-07-28 caller hears them as this round's, and its
//! retry brings the answers to the same task); it is cancelled with
//! `tasks/cancel` when the call is abandoned or runs out of time. Its time
//! is bounded by the server's `timeoutMs` like any call's, the caller's
//! time to answer not counted.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolResult, CancelTaskParams, CancelTaskRequest, ClientRequest, GetExtensions,
    GetTaskParams, GetTaskRequest, GetTaskResult, InputResponses, ServerResult, TaskPayload,
    UpdateTaskParams, UpdateTaskRequest,
};
use rmcp::service::{Peer, RoleClient, ServiceError};
use serde_json::Value;

use super::answers::{answer, pass_on};
use super::connection::Connection;
use super::{ClientManager, Downstream, DownstreamError};
use mcpgraph_runtime::Caller;
use mcpgraph_runtime::Downstream as Kind;
use mcpgraph_runtime::host::CallerToken;

/// How a sealed state names a downstream task waiting for the caller's
/// answers.
pub(super) const TASK: &str = "mcpgraph-task:";

/// The shortest and longest waits between two polls of a task, whatever
/// its server asks.
const MIN_POLL: Duration = Duration::from_millis(20);
const MAX_POLL: Duration = Duration::from_secs(5);

/// The wait before the next poll, after `last`: twice as long, up to what
/// the server asks for, within bounds.
fn interval(last: Duration, asked_ms: Option<u64>) -> Duration {
    let asked = asked_ms
        .map_or(Duration::from_millis(500), Duration::from_millis)
        .clamp(MIN_POLL, MAX_POLL);
    (last * 2).min(asked)
}

impl ClientManager {
    /// Follows task `id` of the server on `connection` to its end (with
    /// `answers` sent first, a 2026-07-28 caller's to the task's last
    /// questions): the tool's result, or why there is none.
    pub(super) async fn follow_task(
        &self,
        connection: &Arc<Connection>,
        downstream: &Downstream,
        id: String,
        answers: Option<InputResponses>,
        caller: Option<&Caller>,
        what: &str,
    ) -> Result<CallToolResult, DownstreamError> {
        let peer = connection.service.peer().clone();
        let token = caller.and_then(Caller::token).cloned();
        let mut abandon = CancelTaskOnDrop {
            peer: Some(peer.clone()),
            id: id.clone(),
            token: token.clone(),
            runtime: self.runtime.clone(),
        };
        let failed = |doing: &str, e: rmcp::service::ServiceError| {
            DownstreamError::new(
                Kind::Protocol,
                format!("{what}: {doing} its task failed: {e}"),
            )
        };
        let work = async {
            let mut wait = MIN_POLL;
            if let Some(responses) = answers {
                update(&peer, &id, responses, token.as_ref())
                    .await
                    .map_err(|e| failed("answering", e))?;
            }
            loop {
                tokio::time::sleep(wait).await;
                let got = get(&peer, &id, token.as_ref())
                    .await
                    .map_err(|e| failed("polling", e))?;
                wait = interval(wait, got.task.task.poll_interval_ms);
                match got.task.payload {
                    TaskPayload::Working => {}
                    TaskPayload::InputRequired { input_requests } => {
                        if let Some(caller) = caller
                            && let Some(round) = caller.round()
                        {
                            let state = Some(format!("{TASK}{id}"));
                            return Err(pass_on(input_requests, state, caller, round, what));
                        }
                        let responses = answer(input_requests, caller, what).await?;
                        update(&peer, &id, responses, token.as_ref())
                            .await
                            .map_err(|e| failed("answering", e))?;
                        wait = MIN_POLL;
                    }
                    TaskPayload::Completed { result } => {
                        return serde_json::from_value(Value::Object(result)).map_err(|e| {
                            DownstreamError::new(
                                Kind::Protocol,
                                format!("{what}: its task's result is not a tool result: {e}"),
                            )
                        });
                    }
                    TaskPayload::Failed { error } => {
                        let message = error.get("message").and_then(Value::as_str);
                        return Err(DownstreamError::new(
                            Kind::Protocol,
                            format!(
                                "{what}: its task failed: {}",
                                message.unwrap_or("(no message)")
                            ),
                        ));
                    }
                    TaskPayload::Cancelled => {
                        return Err(DownstreamError::new(
                            Kind::Protocol,
                            format!("{what}: its server cancelled the task"),
                        ));
                    }
                    _ => {}
                }
            }
        };
        let timeout = downstream.spec.timeout();
        let outcome = super::waiting::bounded(caller, timeout, what, work).await?;
        match outcome {
            None => Err(DownstreamError::new(
                Kind::TimedOut,
                format!(
                    "{what} did not end its task within {} ms (the server's timeoutMs); \
                     the task was cancelled",
                    timeout.as_millis()
                ),
            )),
            // Ended; or waiting for the answers of a caller who retries, or
            // unreachable for now (its server keeps it for its TTL): not
            // cancelled.
            Some(outcome) => {
                abandon.disarm();
                outcome
            }
        }
    }
}

/// Sends a request about a task with the caller's token (carried
/// in-process to the transport, never sent, as the call's own request
/// does: the servers that pass the caller's identity on exchange it), so
/// that the server finds the task as the caller's.
async fn send(
    peer: &Peer<RoleClient>,
    mut request: ClientRequest,
    token: Option<&CallerToken>,
) -> Result<ServerResult, ServiceError> {
    if let Some(token) = token {
        request.extensions_mut().insert(token.clone());
    }
    peer.send_request(request).await
}

/// `tasks/get` of task `id`.
async fn get(
    peer: &Peer<RoleClient>,
    id: &str,
    token: Option<&CallerToken>,
) -> Result<GetTaskResult, ServiceError> {
    let request = GetTaskRequest::new(GetTaskParams::new(id));
    match send(peer, ClientRequest::GetTaskRequest(request), token).await? {
        ServerResult::GetTaskResult(got) => Ok(got),
        _ => Err(ServiceError::UnexpectedResponse),
    }
}

/// `tasks/update` of task `id` with `responses`.
async fn update(
    peer: &Peer<RoleClient>,
    id: &str,
    responses: InputResponses,
    token: Option<&CallerToken>,
) -> Result<(), ServiceError> {
    let request = UpdateTaskRequest::new(UpdateTaskParams::new(id, responses));
    match send(peer, ClientRequest::UpdateTaskRequest(request), token).await? {
        ServerResult::TaskAckResult(_) | ServerResult::EmptyResult(_) => Ok(()),
        _ => Err(ServiceError::UnexpectedResponse),
    }
}

/// Sends `tasks/cancel` for a task abandoned before it ended (the graph's
/// time limit, a cancelled call, the server's `timeoutMs`).
struct CancelTaskOnDrop {
    peer: Option<Peer<RoleClient>>,
    id: String,
    token: Option<CallerToken>,
    runtime: tokio::runtime::Handle,
}

impl CancelTaskOnDrop {
    fn disarm(&mut self) {
        self.peer = None;
    }
}

impl Drop for CancelTaskOnDrop {
    fn drop(&mut self) {
        let Some(peer) = self.peer.take() else {
            return;
        };
        let id = std::mem::take(&mut self.id);
        let token = self.token.take();
        self.runtime.spawn(async move {
            let request = CancelTaskRequest::new(CancelTaskParams::new(id));
            let _ = send(
                &peer,
                ClientRequest::CancelTaskRequest(request),
                token.as_ref(),
            )
            .await;
        });
    }
}
