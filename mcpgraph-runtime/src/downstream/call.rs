//! One downstream `tools/call`: on the connection for the caller's
//! capabilities, bounded by the server's `timeoutMs` (not counting the
//! time the caller takes to answer a question), cancelled downstream when
//! abandoned, with the server's questions taken to the caller (a
//! server-to-client request as it comes, an `input_required` result by
//! asking each of its requests and calling again with the answers).

// Sampling and roots are deprecated by SEP-2577, and still in the protocol
// that downstream servers speak: their questions are forwarded.
#![allow(deprecated)]

use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientRequest, ContentBlock, InputRequest, InputRequiredResult, InputResponses, RequestId,
    ServerRequest, ServerResult,
};
use rmcp::service::{Peer, PeerRequestOptions, RoleClient, ServiceError};
use serde_json::Value;

use super::connection::{Connection, InFlight, crash_report, process_gone};
use super::{ClientManager, Downstream, DownstreamError};
use crate::error::{Downstream as Kind, ErrorKind};
use crate::questions::{Caller, Declared};

/// How many `input_required` rounds one downstream call may take (rmcp's
/// own client stops at the same number).
const MAX_ROUNDS: usize = rmcp::model::DEFAULT_MRTR_MAX_ROUNDS;

impl ClientManager {
    /// Calls `tool` on `server` on behalf of `caller` (who is asked what
    /// the server asks; `None`: nobody can be), connecting first if
    /// needed. The error names the server and tool.
    ///
    /// The future is boxed because generated code awaits it (an `mcp` node,
    /// through `Execution::mcp`), and the body of an async fn is compiled
    /// in the crate that polls it: unboxed, everything it awaits (the
    /// connecting, rmcp's client, the transports) would be compiled again
    /// in every graph's crate, on every rebuild. One allocation per
    /// downstream call, beside its round trip.
    pub fn call<'a>(
        &'a self,
        server: &'a str,
        tool: &'a str,
        arguments: serde_json::Map<String, Value>,
        caller: Option<&'a Caller>,
    ) -> BoxFuture<'a, Result<CallToolResult, DownstreamError>> {
        Box::pin(self.call_unboxed(server, tool, arguments, caller))
    }

    /// [`ClientManager::call`]'s body.
    async fn call_unboxed(
        &self,
        server: &str,
        tool: &str,
        arguments: serde_json::Map<String, Value>,
        caller: Option<&Caller>,
    ) -> Result<CallToolResult, DownstreamError> {
        let Some(base) = self.servers.get(server) else {
            return Err(DownstreamError::new(
                Kind::Refused,
                format!("no downstream server `{server}` is configured"),
            ));
        };
        let declared = caller.map(Caller::declared).unwrap_or_default();
        let downstream = if declared.is_empty() {
            Arc::clone(base)
        } else {
            self.declaring(base, declared)
        };
        // Over stdio and SSE, a connection whose server may ask questions
        // carries one call at a time: nothing on the wire says which call
        // a question is for.
        let _turn = match &downstream.turns {
            Some(turns) => Some(Arc::clone(turns).acquire_owned().await.map_err(|_| {
                DownstreamError::new(Kind::Refused, format!("`{server}` is closing"))
            })?),
            None => None,
        };
        let connection = self.connection(&downstream).await.map_err(|message| {
            let kind = if self.closing.is_cancelled() {
                ErrorKind::Shutdown
            } else {
                ErrorKind::Downstream(Kind::Refused)
            };
            DownstreamError { kind, message }
        })?;
        self.check_lock(server, tool, &connection, &downstream)
            .await?;
        let what = format!("downstream server `{server}` tool `{tool}`");
        let mut params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
        for _ in 0..MAX_ROUNDS {
            let sent = self
                .send(&connection, &downstream, params.clone(), caller, &what)
                .await?;
            match sent {
                Sent::Complete(result) => return Ok(result),
                Sent::InputRequired(input) => {
                    let (responses, state) = answer(input, caller, &what).await?;
                    params.input_responses = Some(responses);
                    params.request_state = state;
                }
            }
        }
        Err(DownstreamError::new(
            Kind::Protocol,
            format!("{what} asked for input more than {MAX_ROUNDS} times in one call"),
        ))
    }

    /// Under a lock: warns of (or, with `--strict-lock`, refuses) a tool
    /// that changed since the lock.
    async fn check_lock(
        &self,
        server: &str,
        tool: &str,
        connection: &Arc<Connection>,
        downstream: &Downstream,
    ) -> Result<(), DownstreamError> {
        let Some(locked) = self.lock.as_ref().and_then(|l| l.server(server)) else {
            return Ok(());
        };
        let strict = self.strict_lock.load(std::sync::atomic::Ordering::SeqCst);
        let changed = connection
            .drift
            .changed(server, connection, locked, downstream.spec.timeout(), strict)
            .await
            .map_err(|e| {
                DownstreamError::new(
                    if e.timed_out { Kind::TimedOut } else { Kind::Protocol },
                    format!(
                        "downstream server `{server}` tool `{tool}` could not be compared with the graph's lock: {e}; \
                         refused under --strict-lock (the next call lists the server's tools again)"
                    ),
                )
            })?;
        if let Some(why) = changed.get(tool)
            && strict
        {
            return Err(DownstreamError::new(
                Kind::Protocol,
                format!(
                    "downstream server `{server}` tool `{tool}` changed since the graph's lock ({why}); \
                     refused under --strict-lock: re-run `mcpgraph lock` and rebuild"
                ),
            ));
        }
        Ok(())
    }

    /// The downstream server `base` as callers that declared `declared`
    /// see it (a connection of its own).
    fn declaring(&self, base: &Arc<Downstream>, declared: Declared) -> Arc<Downstream> {
        let Ok(mut declaring) = self.declaring.lock() else {
            return Arc::clone(base);
        };
        Arc::clone(
            declaring
                .entry((base.spec.name.clone(), declared))
                .or_insert_with(|| Arc::new(Downstream::new(base.spec.clone(), declared))),
        )
    }

    /// One `tools/call` request and its answer.
    async fn send(
        &self,
        connection: &Arc<Connection>,
        downstream: &Downstream,
        params: CallToolRequestParams,
        caller: Option<&Caller>,
        what: &str,
    ) -> Result<Sent, DownstreamError> {
        let timeout = downstream.spec.timeout();
        let peer = connection.service.peer();
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let handle = peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
            .map_err(|e| DownstreamError::new(Kind::Crashed, format!("{what} failed: {e}")))?;
        let registered = caller.map(|c| connection.calls.register(handle.id.clone(), c.clone()));
        // Dropping this future (the graph's time limit, a cancelled call,
        // shutdown) sends `notifications/cancelled` downstream, and the
        // in-flight guard marks the connection suspect.
        let abandon = CancelOnDrop {
            peer: peer.clone(),
            id: Some(handle.id.clone()),
            runtime: self.runtime.clone(),
        };
        let in_flight = InFlight {
            connection: Arc::clone(connection),
            answered: false,
            probe: (self.runtime.clone(), downstream.spec.ping_timeout()),
        };
        let waiting = handle.await_response();
        let outcome = match caller {
            Some(caller) => caller.clock().timeout(timeout, waiting).await,
            None => tokio::time::timeout(timeout, waiting).await.ok(),
        };
        in_flight.answered(outcome.is_some());
        let note = registered.as_ref().and_then(|r| r.problem());
        let Some(outcome) = outcome else {
            return Err(DownstreamError::new(
                Kind::TimedOut,
                format!(
                    "{what} did not answer within {} ms (the server's timeoutMs){}",
                    timeout.as_millis(),
                    note.map(|n| format!("; {n}")).unwrap_or_default()
                ),
            ));
        };
        abandon.disarm();
        match outcome {
            Ok(ServerResult::CallToolResult(mut result)) => {
                if let Some(note) = note
                    && result.is_error == Some(true)
                {
                    result.content.push(ContentBlock::text(format!("({note})")));
                }
                Ok(Sent::Complete(result))
            }
            Ok(ServerResult::InputRequiredResult(input)) => Ok(Sent::InputRequired(input)),
            // A reply with no content (MCP 2026-07-28 allows an empty one).
            Ok(ServerResult::EmptyResult(_)) => Ok(Sent::Complete(CallToolResult::success(vec![]))),
            Ok(ServerResult::CreateTaskResult(_)) => Err(DownstreamError::new(
                Kind::Protocol,
                format!("{what} started a task, which graphs do not support yet"),
            )),
            Ok(_) => Err(DownstreamError::new(
                Kind::Protocol,
                format!("{what} answered with something that is not a tool result"),
            )),
            Err(ServiceError::McpError(e)) => Err(DownstreamError::new(
                Kind::Protocol,
                format!(
                    "{what} failed: {} (error {}){}",
                    e.message,
                    e.code.0,
                    note.map(|n| format!("; {n}")).unwrap_or_default()
                ),
            )),
            Err(e) => Err(match &connection.process {
                Some(process) if connection.is_closed() || process_gone(process).await => {
                    DownstreamError::new(
                        Kind::Crashed,
                        format!("{what} failed: {}", crash_report(process).await),
                    )
                }
                _ => {
                    let kind = match &e {
                        ServiceError::Cancelled { .. } => Kind::Cancelled,
                        ServiceError::TransportClosed => Kind::Crashed,
                        ServiceError::Timeout { .. } => Kind::TimedOut,
                        _ => Kind::Protocol,
                    };
                    DownstreamError::new(kind, format!("{what} failed: {e}"))
                }
            }),
        }
    }
}

/// What one `tools/call` request came back with.
enum Sent {
    Complete(CallToolResult),
    InputRequired(InputRequiredResult),
}

/// The caller's answers to an `input_required` result's requests, and the
/// state to send back with them.
async fn answer(
    input: InputRequiredResult,
    caller: Option<&Caller>,
    what: &str,
) -> Result<(InputResponses, Option<String>), DownstreamError> {
    let mut responses = InputResponses::new();
    for (key, request) in input.input_requests.unwrap_or_default() {
        let request = match request {
            InputRequest::Elicitation(r) => ServerRequest::ElicitRequest(r),
            InputRequest::CreateMessage(r) => ServerRequest::CreateMessageRequest(r),
            InputRequest::ListRoots(r) => ServerRequest::ListRootsRequest(r),
            other => {
                return Err(DownstreamError::new(
                    Kind::Protocol,
                    format!(
                        "{what} asked for input of a kind mcpgraph does not know: {}",
                        serde_json::to_string(&other).unwrap_or_default()
                    ),
                ));
            }
        };
        let asked = match caller {
            Some(caller) => caller.ask(request).await,
            None => Err(crate::questions::Unanswered::NotDeclared {
                capability: Declared::needed_by(&request),
                why: "a call made outside an MCP session cannot declare".to_owned(),
            }),
        };
        let answer = asked.map_err(|why| {
            DownstreamError::new(
                Kind::Protocol,
                format!("{what} asked the calling client a question, and {why}"),
            )
        })?;
        let answer = serde_json::to_value(answer).map_err(|e| {
            DownstreamError::new(
                Kind::Protocol,
                format!("{what}: an answer does not encode: {e}"),
            )
        })?;
        responses.insert(key, answer);
    }
    Ok((responses, input.request_state))
}

/// Sends `notifications/cancelled` for a request abandoned before its
/// answer came.
struct CancelOnDrop {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
    runtime: tokio::runtime::Handle,
}

impl CancelOnDrop {
    fn disarm(mut self) {
        self.id = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else {
            return;
        };
        let peer = self.peer.clone();
        self.runtime.spawn(async move {
            let _ = peer
                .notify_cancelled(CancelledNotificationParam::new(
                    Some(id),
                    Some("the graph call was abandoned".to_owned()),
                ))
                .await;
        });
    }
}
