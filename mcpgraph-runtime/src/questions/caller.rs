//! The client of one graph call, as its questions see it ([`Caller`]): what
//! it declared, the channel a question takes to it, and what it may spend.

use std::sync::Arc;

use rmcp::model::{ClientCapabilities, ClientResult, RequestId, ServerRequest};
use rmcp::service::{Peer, PeerRequestOptions, RoleServer};
use tokio::sync::mpsc::UnboundedSender;

use super::budget::{Budget, Stop};
use super::declared::Declared;
use super::owner::Owner;
use super::rounds::Rounds;
use super::slot::Slot;
use super::unanswered::Unanswered;
use super::wait_clock::WaitClock;
use crate::observe::ProgressEvent;

/// The client of one graph call, as far as questions go: what it declared
/// it answers, and the channel a question takes to reach it.
///
/// Built by the server for each `tools/call` it serves; a call made any
/// other way (`call` on the command line, an embedding program) has none,
/// and a downstream server's question then fails the call with an error
/// naming the capability.
#[derive(Clone, Debug)]
pub struct Caller {
    declared: Declared,
    channel: Channel,
    clock: Arc<WaitClock>,
    /// What the call may spend on questions.
    budget: Arc<Budget>,
    /// The node asking (see [`Caller::at`]).
    node: &'static str,
    /// The call of a `parallel` or `forEach` node asking: its branch name
    /// or item index (see [`Caller::in_part`]), and the try (from 1).
    part: Option<Arc<str>>,
    attempt: u32,
    /// The trace context of the caller's request.
    trace: Option<Arc<mcpgraph_telemetry::TraceContext>>,
    /// The access token the caller's request carried (inbound OAuth).
    token: Option<mcpgraph_secrets::CallerToken>,
    /// Where the asking node's progress goes, and the node's number.
    progress: Option<(UnboundedSender<ProgressEvent>, u64)>,
    /// Who the caller is, for its share of what is held for callers.
    owner: Option<Owner>,
}

/// How a question reaches the caller.
#[derive(Clone)]
enum Channel {
    /// A server-to-client request on the caller's session (MCP up to
    /// 2025-11-25), routed to the stream of the request it belongs to.
    Live {
        peer: Peer<RoleServer>,
        origin: RequestId,
    },
    /// An `input_required` result (MCP 2026-07-28): the call ends, and the
    /// client's retry carries the answers.
    Rounds(Arc<Rounds>),
    /// No way to ask: the caller is told what was needed instead.
    Closed { why: &'static str },
}

impl std::fmt::Debug for Channel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Live { origin, .. } => write!(f, "Live({origin:?})"),
            Self::Rounds(_) => f.write_str("Rounds"),
            Self::Closed { why } => write!(f, "Closed({why})"),
        }
    }
}

impl Caller {
    /// A caller on a session that can take server-to-client requests: the
    /// client of request `origin` on `peer`, which declared `capabilities`.
    pub(crate) fn live(
        capabilities: Option<&ClientCapabilities>,
        peer: Peer<RoleServer>,
        origin: RequestId,
    ) -> Self {
        Self {
            declared: capabilities.map(Declared::of).unwrap_or_default(),
            channel: Channel::Live { peer, origin },
            clock: Arc::default(),
            budget: Arc::default(),
            node: "",
            part: None,
            attempt: 1,
            trace: None,
            token: None,
            progress: None,
            owner: None,
        }
    }

    /// A caller of MCP 2026-07-28 that declared `capabilities`, in the
    /// round `rounds`.
    #[doc(hidden)]
    pub fn rounds(capabilities: Option<&ClientCapabilities>, rounds: Arc<Rounds>) -> Self {
        Self {
            declared: capabilities.map(Declared::of).unwrap_or_default(),
            channel: Channel::Rounds(rounds),
            clock: Arc::default(),
            budget: Arc::default(),
            node: "",
            part: None,
            attempt: 1,
            trace: None,
            token: None,
            progress: None,
            owner: None,
        }
    }

    /// The same caller, asked in `rounds` (a task's round: the server
    /// drives the rounds, not the client).
    pub(crate) fn in_rounds(mut self, rounds: Arc<Rounds>) -> Self {
        self.channel = Channel::Rounds(rounds);
        self
    }

    /// The same caller, whose request came with trace context `trace`.
    pub(crate) fn with_trace(mut self, trace: Option<mcpgraph_telemetry::TraceContext>) -> Self {
        self.trace = trace.map(Arc::new);
        self
    }

    /// The same caller, whose request carried the access token `token`.
    pub fn with_token(mut self, token: Option<mcpgraph_secrets::CallerToken>) -> Self {
        self.token = token;
        self
    }

    /// The same caller, known as `owner`.
    pub fn with_owner(mut self, owner: Owner) -> Self {
        self.owner = Some(owner);
        self
    }

    /// Who the caller is (`None`: a call made outside the server).
    #[doc(hidden)]
    pub fn owner(&self) -> Option<&Owner> {
        self.owner.as_ref()
    }

    /// The access token the caller's request carried, if inbound OAuth
    /// accepted one.
    #[doc(hidden)]
    pub fn token(&self) -> Option<&mcpgraph_secrets::CallerToken> {
        self.token.as_ref()
    }

    /// The trace context of the caller's request.
    #[doc(hidden)]
    pub fn trace(&self) -> Option<&mcpgraph_telemetry::TraceContext> {
        self.trace.as_deref()
    }

    /// The same caller, asked on behalf of node `node` (the call's node
    /// execution number `progress.1`, whose progress goes to `progress.0`).
    pub(crate) fn at(
        &self,
        node: &'static str,
        progress: Option<(UnboundedSender<ProgressEvent>, u64)>,
    ) -> Self {
        Self {
            node,
            progress,
            ..self.clone()
        }
    }

    /// The same caller, asked on behalf of the call `part` (a branch name,
    /// an item index) of its fan-out node: its questions, answers and
    /// results are that call's alone (see [`Slot`]).
    pub(crate) fn in_part(mut self, part: String) -> Self {
        self.part = Some(part.into());
        self
    }

    /// The same caller, asked on behalf of try `attempt` of its call.
    pub(crate) fn on_attempt(&self, attempt: u32) -> Self {
        Self {
            attempt,
            ..self.clone()
        }
    }

    /// The call asking, as a round keys it.
    #[doc(hidden)]
    pub fn slot(&self) -> Slot {
        Slot {
            node: self.node.to_owned(),
            part: self.part.as_deref().map(str::to_owned),
        }
    }

    /// The try of the call asking (from 1).
    #[doc(hidden)]
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// Reports a downstream server's progress within the asking node:
    /// mapped between the node's number and the next (`progress / total`
    /// of the way; without a total, ever closer to the next).
    #[doc(hidden)]
    pub fn report(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        let Some((sink, number)) = &self.progress else {
            return;
        };
        if !progress.is_finite() || progress < 0.0 {
            return;
        }
        let share = match total {
            Some(total) if total.is_finite() && total > 0.0 => progress / total,
            _ => progress / (progress + 1.0),
        };
        let _ = sink.send(ProgressEvent {
            progress: *number as f64 + share.clamp(0.0, 0.999),
            node: self.node,
            message,
        });
    }

    /// The round, for a caller of MCP 2026-07-28.
    #[doc(hidden)]
    pub fn round(&self) -> Option<&Rounds> {
        match &self.channel {
            Channel::Rounds(rounds) => Some(rounds),
            _ => None,
        }
    }

    /// A caller that cannot be asked anything (`why`, for the error).
    pub(crate) fn closed(why: &'static str) -> Self {
        Self {
            declared: Declared::default(),
            channel: Channel::Closed { why },
            clock: Arc::default(),
            budget: Arc::default(),
            node: "",
            part: None,
            attempt: 1,
            trace: None,
            token: None,
            progress: None,
            owner: None,
        }
    }

    /// What the caller can be asked: the capabilities a downstream server
    /// is told of on this call's behalf.
    #[doc(hidden)]
    pub fn declared(&self) -> Declared {
        match self.channel {
            Channel::Live { .. } | Channel::Rounds(_) => self.declared,
            Channel::Closed { .. } => Declared::default(),
        }
    }

    /// The clock of time spent waiting for this caller's answers.
    #[doc(hidden)]
    pub fn clock(&self) -> &Arc<WaitClock> {
        &self.clock
    }

    /// What the call may spend on questions.
    #[doc(hidden)]
    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// Counts `n` questions a downstream server asks on this call (every
    /// question, answered or not); past `maxQuestions` the call is
    /// stopped, and this says why. A 2026-07-28 caller's count lives in
    /// its rounds, so that it carries over from one round to the next.
    #[doc(hidden)]
    pub fn count_questions(&self, n: usize) -> Result<(), Stop> {
        let n = u64::try_from(n).unwrap_or(u64::MAX);
        let total = match &self.channel {
            Channel::Rounds(rounds) => rounds.count_questions(n),
            _ => self.budget.count(n),
        };
        self.budget.check(total)
    }

    /// Whether the caller may be asked `request`; why not, otherwise.
    #[doc(hidden)]
    pub fn may_ask(&self, request: &ServerRequest) -> Result<(), Unanswered> {
        let capability = Declared::needed_by(request);
        if let Channel::Closed { why } = &self.channel {
            return Err(Unanswered::NotDeclared {
                capability,
                why: (*why).to_owned(),
            });
        }
        if !self.declared.allows(request) {
            if let Channel::Rounds(round) = &self.channel {
                round.lacks(capability);
            }
            return Err(Unanswered::NotDeclared {
                capability,
                why: "it did not declare".to_owned(),
            });
        }
        Ok(())
    }

    /// Asks the caller `request` and waits for the answer (at most
    /// `maxAnswerWaitMs`, past which the call is stopped; the call's
    /// cancellation ends the wait sooner). The time waited is counted on
    /// [`Caller::clock`].
    #[doc(hidden)]
    pub async fn ask(&self, mut request: ServerRequest) -> Result<ClientResult, Unanswered> {
        self.may_ask(&request)?;
        let (peer, origin) = match &self.channel {
            Channel::Live { peer, origin } => (peer, origin),
            _ => {
                return Err(Unanswered::NotDeclared {
                    capability: Declared::needed_by(&request),
                    why: "speaks MCP 2026-07-28, and a question a session-era downstream server asks \
                          while it runs cannot be relayed as an input_required result yet"
                        .to_owned(),
                });
            }
        };
        // The graph runs on a worker, outside rmcp's request task, so the
        // association rmcp would make (SEP-2260) is made here: on
        // streamable HTTP the question goes out on the stream of the
        // caller's request.
        use rmcp::model::GetExtensions;
        request
            .extensions_mut()
            .insert(rmcp::service::OriginatingRequestId(origin.clone()));
        let capability = Declared::needed_by(&request);
        let _waiting = self.clock.start();
        let handle = peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
            .map_err(|e| Unanswered::Failed(e.to_string()))?;
        // At most maxAnswerWaitMs: past it the call is stopped (and rmcp's
        // handle, dropped, sends the client `notifications/cancelled`).
        let wait = self.budget.answer_wait();
        match tokio::time::timeout(wait, handle.await_response()).await {
            Err(_) => Err(Unanswered::Stopped(
                self.budget.answer_timed_out(capability),
            )),
            Ok(answer) => answer.map_err(|e| match e {
                rmcp::service::ServiceError::McpError(e) => {
                    Unanswered::Failed(format!("{} (error {})", e.message, e.code.0))
                }
                other => Unanswered::Failed(other.to_string()),
            }),
        }
    }
}
