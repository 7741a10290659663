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
use rmcp::model::{CallToolRequestParams, CallToolResult, InputRequests, InputResponses};
use serde_json::Value;

use super::connection::Connection;
use super::waiting::Sent;
use super::{ClientManager, Downstream, DownstreamError};
use mcpgraph_runtime::{Caller, host::Declared};
use mcpgraph_runtime::{Downstream as Kind, ErrorKind};

use super::answers::{answer, answer_to, input_request, pass_on};
use super::task_call::TASK;

/// How a sealed state names a parked call (see `parking`).
const PARKED: &str = "mcpgraph-parked:";

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
        Box::pin(async move {
            let ticket = match self
                .breakers
                .get(server)
                .map(super::breaker::Breaker::admit)
            {
                Some(Err(left)) => return Err(super::breaker::open(server, tool, left)),
                Some(Ok(ticket)) => Some(ticket),
                None => None,
            };
            let result = self.call_unboxed(server, tool, arguments, caller).await;
            if let Some(ticket) = ticket {
                ticket.finish(server, result.as_ref().err().map(|e| e.kind));
            }
            result
        })
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
            return Err(DownstreamError::unconfigured(server));
        };
        let what = format!("downstream server `{server}` tool `{tool}`");
        // The retry of a 2026-07-28 client: the answers to what this
        // server asked in the last round, and its state, go back to it.
        // Only this call's own: a call of a fan-out node takes the answers
        // to its own question, never those of a call beside it.
        let resumed = caller.and_then(|c| c.round()?.resume_call(&c.slot(), c.attempt()));
        if let Some((responses, Some(state))) = &resumed
            && let Some(id) = state.strip_prefix(PARKED)
        {
            let sent = self.unpark(id, responses, caller, &what).await?;
            return self.finish(sent, caller, &what);
        }
        let declared = caller.map(Caller::declared).unwrap_or_default();
        // Callers that declared capabilities get connections of their own
        // (see `pool`); over stdio and SSE one call at a time on each.
        let (downstream, mut turn) = if declared.is_empty() {
            (Arc::clone(base), None)
        } else {
            self.asking_in_round(base, declared, caller, &what).await?
        };
        // The idle time of a connection of callers that declared
        // capabilities counts from the end of its last call.
        let _using = super::pool::Using(&downstream);
        let connection = self.connection(&downstream).await.map_err(|e| {
            let kind = if self.closing.is_cancelled() {
                ErrorKind::Shutdown
            } else {
                ErrorKind::Downstream(Kind::Refused)
            };
            DownstreamError::of(kind, e.to_string())
        })?;
        self.check_lock(server, tool, &connection, &downstream)
            .await?;
        // The retry of a 2026-07-28 client whose answers go to this
        // server's task.
        if let Some((responses, Some(state))) = &resumed
            && let Some(id) = state.strip_prefix(TASK)
        {
            let answers = Some(responses.clone());
            return self
                .follow_task(
                    &connection,
                    &downstream,
                    id.to_owned(),
                    answers,
                    caller,
                    &what,
                )
                .await;
        }
        let mut params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
        if let Some((responses, state)) = resumed {
            params.input_responses = Some(responses);
            params.request_state = state;
        }
        let mut relisted = false;
        for _ in 0..MAX_ROUNDS {
            let sent = self
                .send(&connection, &downstream, params.clone(), caller, &what)
                .await?;
            match sent {
                // Its tools changed (an `x-mcp-header` argument): list them
                // again, which rmcp's client learns the headers from, and
                // send the request once more.
                Sent::HeaderMismatch(why) if !relisted => {
                    relisted = true;
                    let peer = connection.service.peer();
                    super::listing::all_tools(peer, downstream.spec.timeout())
                        .await
                        .map_err(|e| {
                            DownstreamError::new(
                                Kind::Protocol,
                                format!("{why}; listing its tools again failed: {e}"),
                            )
                        })?;
                }
                Sent::HeaderMismatch(why) => {
                    return Err(DownstreamError::new(Kind::Protocol, why));
                }
                Sent::InputRequired(input) => {
                    if let Some(caller) = caller
                        && let Some(round) = caller.round()
                    {
                        let requests = input.input_requests.unwrap_or_default();
                        return Err(pass_on(requests, input.request_state, caller, round, &what));
                    }
                    let requests = input.input_requests.unwrap_or_default();
                    params.input_responses = Some(answer(requests, caller, &what).await?);
                    params.request_state = input.request_state;
                }
                Sent::Asked(mut waiting, parked) => {
                    // The parked call keeps the connection's turn.
                    waiting.turn = turn.take();
                    return self.finish(Sent::Asked(waiting, parked), caller, &what);
                }
                Sent::Task(id) => {
                    return self
                        .follow_task(&connection, &downstream, id, None, caller, &what)
                        .await;
                }
                complete => return self.finish(complete, caller, &what),
            }
        }
        Err(DownstreamError::new(
            Kind::Protocol,
            format!("{what} asked for input more than {MAX_ROUNDS} times in one call"),
        ))
    }

    /// The result of a call that has not asked for input (again), or, for
    /// a question its server asked a 2026-07-28 caller mid-call, the call
    /// parked and the question passed on as this round's.
    fn finish(
        &self,
        sent: Sent,
        caller: Option<&Caller>,
        what: &str,
    ) -> Result<CallToolResult, DownstreamError> {
        match sent {
            Sent::Complete(result) => Ok(result),
            Sent::HeaderMismatch(why) => Err(DownstreamError::new(Kind::Protocol, why)),
            Sent::Task(_) => Err(DownstreamError::new(
                Kind::Protocol,
                format!("{what} started a task after it asked in its session"),
            )),
            Sent::InputRequired(_) => Err(DownstreamError::new(
                Kind::Protocol,
                format!(
                    "{what} asked for input the MCP 2026-07-28 way while it also asked in its session"
                ),
            )),
            Sent::Asked(waiting, parked) => {
                let (Some(caller), Some(round)) = (caller, caller.and_then(Caller::round)) else {
                    return Err(DownstreamError::new(
                        Kind::Protocol,
                        format!("{what} asked a question nobody can answer"),
                    ));
                };
                let key = Declared::needed_by(&parked.request).to_owned();
                let Some(request) = input_request(parked.request.clone()) else {
                    return Err(DownstreamError::new(
                        Kind::Protocol,
                        format!("{what} asked for input of a kind mcpgraph does not know"),
                    ));
                };
                let ttl = caller.budget().answer_wait();
                let parked =
                    self.parking
                        .park(&self.runtime, (waiting, parked), caller.owner(), ttl);
                let id = parked.map_err(|full| parking_full(what, &full))?;
                let mut requests = InputRequests::new();
                requests.insert(key, request);
                let state = Some(format!("{PARKED}{id}"));
                round.ask_call(caller.slot(), caller.attempt(), requests, state);
                Err(DownstreamError::of(
                    ErrorKind::InputRequired,
                    format!("{what} waits for the calling client's answer"),
                ))
            }
        }
    }

    /// Takes back the call parked as `id` (from a sealed state), answers
    /// its question with the caller's answer in `responses`, and waits on.
    async fn unpark(
        &self,
        id: &str,
        responses: &InputResponses,
        caller: Option<&Caller>,
        what: &str,
    ) -> Result<Sent, DownstreamError> {
        let parked = id.parse().ok().and_then(|id| self.parking.take(id));
        let Some((waiting, parked)) = parked else {
            return Err(DownstreamError::new(
                Kind::Protocol,
                format!(
                    "{what} asked a question in its session, and that call is no longer waiting on this replica \
                     (its time to answer ran out, or the retry reached another replica: a session-era server's \
                     question can only be answered on the replica it asked); call the tool again"
                ),
            ));
        };
        match answer_to(&parked.request, responses) {
            Ok(answer) => {
                let _ = parked.answer.send(Ok(answer));
            }
            Err(why) => {
                let _ = parked.answer.send(Err(rmcp::ErrorData::invalid_params(
                    format!("the calling client's answer was not usable: {why}"),
                    None,
                )));
            }
        }
        super::waiting::wait(waiting, caller).await
    }

    /// [`ClientManager::asking`] for a call in a round of a 2026-07-28
    /// caller: a call of a fan-out node may wait for a turn that a call
    /// beside it holds, parked until the caller's retry; once a call of the
    /// round has asked, the round is stopping, and this call waits for the
    /// next round instead (an `input_required` of its own, with nothing
    /// asked: it starts afresh then).
    async fn asking_in_round(
        &self,
        base: &Arc<Downstream>,
        declared: Declared,
        caller: Option<&Caller>,
        what: &str,
    ) -> Result<(Arc<Downstream>, Option<tokio::sync::OwnedSemaphorePermit>), DownstreamError> {
        let asking = self.asking(base, declared, caller.and_then(Caller::owner));
        let Some(round) = caller.and_then(Caller::round) else {
            return asking.await;
        };
        tokio::select! {
            biased;
            got = asking => got,
            () = round.stopping() => Err(DownstreamError::of(
                ErrorKind::InputRequired,
                format!(
                    "{what} waits for the next round: its connections are busy, and the round \
                     stops for the calling client's answers"
                ),
            )),
        }
    }

    /// Drops the calls parked for the questions of `states` (their node
    /// failed: nobody will answer them), which cancels them downstream.
    pub(crate) fn forget_parked(&self, states: &[Option<String>]) {
        let parked = states
            .iter()
            .filter_map(|s| s.as_deref()?.strip_prefix(PARKED)?.parse().ok())
            .filter_map(|id| self.parking.take(id));
        drop(parked.collect::<Vec<_>>());
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
            .changed(
                server,
                connection.service.peer(),
                locked,
                downstream.spec.timeout(),
                strict,
            )
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
}

/// The error of a call whose server asked a question mid-call while the
/// parking is full: a cap of this server (kind `refused`), not a failure
/// of the downstream server, which its circuit breaker would count.
pub(super) fn parking_full(what: &str, full: &dyn std::fmt::Display) -> DownstreamError {
    DownstreamError::of(
        ErrorKind::Refused,
        format!("{what} asked a question mid-call, and {full}; retry later"),
    )
}
