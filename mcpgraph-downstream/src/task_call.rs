//! A downstream call that its server runs as an MCP task (the tasks
//! extension of MCP 2026-07-28, which mcpgraph declares to every server):
//! instead of a request held open, the task is polled with `tasks/get` at
//! the interval the server asks for (kept between [`MIN_POLL`] and
//! [`MAX_POLL`]); its questions are taken to the caller and answered with
//! `tasks/update` (a 2026-07-28 caller hears them as this round's, and its
//! retry brings the answers to the same task); it is cancelled with
//! `tasks/cancel` when the call is abandoned or runs out of time. Its time
//! is bounded by the server's `timeoutMs` like any call's, the caller's
//! time to answer not counted.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolResult, CancelTaskParams, GetTaskParams, InputResponses, TaskPayload, UpdateTaskParams,
};
use rmcp::service::{Peer, RoleClient};
use serde_json::Value;

use super::answers::answer;
use super::call::pass_on;
use super::connection::Connection;
use super::{ClientManager, Downstream, DownstreamError};
use mcpgraph_runtime::Caller;
use mcpgraph_runtime::Downstream as Kind;

/// How a sealed state names a downstream task waiting for the caller's
/// answers.
pub(super) const TASK: &str = "mcpgraph-task:";

/// The shortest and longest waits between two polls of a task, whatever
/// its server asks.
const MIN_POLL: Duration = Duration::from_millis(20);
const MAX_POLL: Duration = Duration::from_secs(5);

/// The wait before the next poll, as the server asks, within bounds.
fn interval(asked_ms: Option<u64>) -> Duration {
    asked_ms
        .map_or(Duration::from_millis(500), Duration::from_millis)
        .clamp(MIN_POLL, MAX_POLL)
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
        let mut abandon = CancelTaskOnDrop {
            peer: Some(peer.clone()),
            id: id.clone(),
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
                let update = UpdateTaskParams::new(id.clone(), responses);
                peer.update_task(update)
                    .await
                    .map_err(|e| failed("answering", e))?;
            }
            loop {
                tokio::time::sleep(wait).await;
                let got = peer
                    .get_task(GetTaskParams::new(id.clone()))
                    .await
                    .map_err(|e| failed("polling", e))?;
                wait = interval(got.task.task.poll_interval_ms);
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
                        peer.update_task(UpdateTaskParams::new(id.clone(), responses))
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
        let outcome = match caller {
            Some(caller) => tokio::select! {
                outcome = caller.clock().timeout(timeout, work) => outcome,
                stop = caller.budget().stopped() => {
                    return Err(super::waiting::stopped(what, stop));
                }
            },
            None => tokio::time::timeout(timeout, work).await.ok(),
        };
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

/// Sends `tasks/cancel` for a task abandoned before it ended (the graph's
/// time limit, a cancelled call, the server's `timeoutMs`).
struct CancelTaskOnDrop {
    peer: Option<Peer<RoleClient>>,
    id: String,
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
        self.runtime.spawn(async move {
            let _ = peer.cancel_task(CancelTaskParams::new(id)).await;
        });
    }
}
