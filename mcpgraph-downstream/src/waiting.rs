//! One `tools/call` request on a connection and the wait for its answer:
//! bounded by the server's `timeoutMs` (the time the caller takes to answer
//! the server's questions not counted), cancelled downstream when
//! abandoned, the connection probed after a call left unanswered.
//!
//! A question the server asks a caller of MCP 2026-07-28 while the call
//! runs (a server of the session era sends it as a request) cannot be
//! answered at once: the caller hears it as an `input_required` result and
//! answers in its retry. The call in flight is then parked (see
//! `parking`), and the retry, on this replica, takes it back.

use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientRequest, ContentBlock, ErrorCode, InputRequiredResult, RequestId, ServerResult,
};
use rmcp::service::{Peer, PeerRequestOptions, RoleClient, ServiceError};
use tokio::sync::mpsc;

use super::asking::{Parked, Registered};
use super::connection::{Connection, InFlight, crash_report, process_gone};
use super::{ClientManager, Downstream, DownstreamError};
use mcpgraph_runtime::Downstream as Kind;
use mcpgraph_runtime::host::TraceContext;
use mcpgraph_runtime::{Caller, host::Stop};

/// What one `tools/call` request came back with.
pub(super) enum Sent {
    Complete(CallToolResult),
    InputRequired(InputRequiredResult),
    /// The server asked a 2026-07-28 caller a question mid-call: the call
    /// waits, parked, for the answer.
    Asked(Box<Waiting>, Parked),
    /// The server found the request's `Mcp-*` headers wrong (-32020): its
    /// tools changed since they were listed (the error says how).
    HeaderMismatch(String),
    /// The server runs the call as a task, with this id (see `task_call`).
    Task(String),
}

/// A `tools/call` in flight, and what it holds while it waits.
pub(super) struct Waiting {
    response: Pin<Box<dyn Future<Output = Result<ServerResult, ServiceError>> + Send>>,
    /// The questions the server asks a 2026-07-28 caller.
    questions: Option<mpsc::Receiver<Parked>>,
    registered: Option<Registered>,
    abandon: CancelOnDrop,
    in_flight: InFlight,
    connection: Arc<Connection>,
    /// The connection's turn, over stdio or SSE (one asking call at a time).
    pub(super) turn: Option<tokio::sync::OwnedSemaphorePermit>,
    timeout: std::time::Duration,
    what: String,
}

impl ClientManager {
    /// Sends one `tools/call` request and waits for its answer.
    pub(super) async fn send(
        &self,
        connection: &Arc<Connection>,
        downstream: &Downstream,
        params: CallToolRequestParams,
        caller: Option<&Caller>,
        what: &str,
    ) -> Result<Sent, DownstreamError> {
        let peer = connection.service.peer();
        let mut call = CallToolRequest::new(params);
        // Carried in-process to the transport, never sent: the servers that
        // pass the caller's identity on exchange it (see `oauth`).
        if let Some(token) = caller.and_then(Caller::token) {
            call.extensions.insert(token.clone());
        }
        let request = ClientRequest::CallToolRequest(call);
        let mut options = PeerRequestOptions::no_options();
        options.meta = TraceContext::outgoing(caller.and_then(Caller::trace));
        let handle = peer
            .send_request_with_option(request, options)
            .await
            .map_err(|e| DownstreamError::new(Kind::Crashed, format!("{what} failed: {e}")))?;
        let (park, questions) = match caller.and_then(Caller::round) {
            Some(_) => {
                let (tx, rx) = mpsc::channel(1);
                (Some(tx), Some(rx))
            }
            None => (None, None),
        };
        let registered = caller.map(|c| {
            let token = handle.progress_token.clone();
            connection
                .calls
                .register(handle.id.clone(), c.clone(), park, token)
        });
        // Dropping the wait (the graph's time limit, a cancelled call,
        // shutdown) sends `notifications/cancelled` downstream, and the
        // in-flight guard marks the connection suspect.
        let waiting = Waiting {
            abandon: CancelOnDrop {
                peer: peer.clone(),
                id: Some(handle.id.clone()),
                runtime: self.runtime.clone(),
            },
            response: Box::pin(handle.await_response()),
            questions,
            registered,
            in_flight: InFlight {
                connection: Arc::clone(connection),
                answered: false,
                probe: (self.runtime.clone(), downstream.spec.ping_timeout()),
            },
            connection: Arc::clone(connection),
            turn: None,
            timeout: downstream.spec.timeout(),
            what: what.to_owned(),
        };
        wait(Box::new(waiting), caller).await
    }
}

/// Waits for the answer of the call `waiting`, or for a question its
/// server asks a 2026-07-28 caller.
pub(super) async fn wait(
    mut waiting: Box<Waiting>,
    caller: Option<&Caller>,
) -> Result<Sent, DownstreamError> {
    enum Next {
        Answer(Result<ServerResult, ServiceError>),
        Question(Parked),
    }
    let outcome = {
        let response = &mut waiting.response;
        let questions = waiting.questions.as_mut();
        let work = async move {
            match questions {
                Some(questions) => tokio::select! {
                    answer = response => Next::Answer(answer),
                    Some(parked) = questions.recv() => Next::Question(parked),
                },
                None => Next::Answer(response.await),
            }
        };
        bounded(caller, waiting.timeout, &waiting.what, work).await?
    };
    let what = waiting.what.clone();
    let note = waiting.registered.as_ref().and_then(Registered::problem);
    let outcome = match outcome {
        None => {
            return Err(DownstreamError::new(
                Kind::TimedOut,
                format!(
                    "{what} did not answer within {} ms (the server's timeoutMs){}",
                    waiting.timeout.as_millis(),
                    note.map(|n| format!("; {n}")).unwrap_or_default()
                ),
            ));
        }
        Some(Next::Question(parked)) => return Ok(Sent::Asked(waiting, parked)),
        Some(Next::Answer(outcome)) => outcome,
    };
    let Waiting {
        abandon,
        in_flight,
        connection,
        ..
    } = *waiting;
    abandon.disarm();
    in_flight.answered(true);
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
        Ok(ServerResult::CreateTaskResult(created)) => Ok(Sent::Task(created.task.task_id)),
        Ok(_) => Err(DownstreamError::new(
            Kind::Protocol,
            format!("{what} answered with something that is not a tool result"),
        )),
        Err(ServiceError::McpError(e)) if e.code == ErrorCode::HEADER_MISMATCH => {
            Ok(Sent::HeaderMismatch(format!(
                "{what} refused the request's headers: {} (error {})",
                e.message, e.code.0
            )))
        }
        #[cfg(feature = "http-client")]
        Err(ServiceError::McpError(e))
            if let Some((status, retry_after)) = super::unavailable::read(&e) =>
        {
            let mut error = DownstreamError::new(
                Kind::Refused,
                format!("{what} failed: the server answered HTTP {status}"),
            );
            error.retry_after = retry_after;
            Err(error)
        }
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

/// `work`, a part of downstream call `what`, within `timeout` (on the
/// caller's clock, which leaves out the time it takes to answer); `None`
/// when the time ran out. A limit on the call's questions stops it (see
/// `Budget`).
pub(super) async fn bounded<T>(
    caller: Option<&Caller>,
    timeout: std::time::Duration,
    what: &str,
    work: impl Future<Output = T>,
) -> Result<Option<T>, DownstreamError> {
    match caller {
        Some(caller) => tokio::select! {
            outcome = caller.clock().timeout(timeout, work) => Ok(outcome),
            stop = caller.budget().stopped() => Err(stopped(what, stop)),
        },
        None => Ok(tokio::time::timeout(timeout, work).await.ok()),
    }
}

/// The error of a downstream call `what` that a limit on its call's
/// questions stopped.
pub(super) fn stopped(what: &str, stop: Stop) -> DownstreamError {
    DownstreamError::of(stop.kind, format!("{what}: {}", stop.why))
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
