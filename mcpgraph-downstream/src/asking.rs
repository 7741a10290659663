//! What a downstream server asks while it runs a tool, taken to the client
//! of the graph call that made the downstream call.
//!
//! Each connection has a [`Questions`] handler: it declares to the server
//! the capabilities of the callers it serves (connections are kept per set
//! of capabilities, see [`Declared`]), and sends each question the server
//! asks (`elicitation/create`, `sampling/createMessage`, `roots/list`) to
//! the caller of the request it belongs to. Over streamable HTTP that
//! request is known exactly (the stream the question came on); over stdio
//! and SSE nothing on the wire says, so those connections carry one asking
//! call at a time (see `ClientManager::call`) and the question goes to it.
//! A question nobody can answer is refused to the server and noted, so the
//! call's error can say what the server needed.

// Sampling and roots are deprecated by SEP-2577, and still in the protocol
// that downstream servers speak: their questions are forwarded.
#![allow(deprecated)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    ClientConfig, ClientResult, CreateMessageRequest, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequest, ElicitRequestParams, ElicitResult, ErrorCode,
    Implementation, ListRootsRequest, ListRootsResult, RequestId, ServerRequest,
};
use rmcp::model::{ProgressNotificationParam, ProgressToken, TASKS_EXTENSION_ID};
use rmcp::service::{InboundStreamOrigin, NotificationContext, RequestContext, RoleClient};
use rmcp::{ClientHandler, ErrorData as McpError};
use tokio::sync::{mpsc, oneshot};

use mcpgraph_runtime::{Caller, host::Declared};

/// The handler of one downstream connection.
pub(super) struct Questions {
    declared: Declared,
    calls: Arc<Calls>,
}

/// The calls in flight on one connection whose callers can be asked.
#[derive(Default)]
pub(super) struct Calls {
    by_id: Mutex<HashMap<RequestId, Route>>,
}

/// One call in flight: its caller, and what went wrong asking it.
#[derive(Clone)]
struct Route {
    caller: Caller,
    problem: Arc<Mutex<Option<String>>>,
    /// For a caller of MCP 2026-07-28: where a question goes to wait for
    /// the caller's retry (see `waiting`).
    park: Option<mpsc::Sender<Parked>>,
    /// The progress token of the call's request.
    token: ProgressToken,
}

/// A question a server asked, waiting for the answer of a 2026-07-28
/// caller's retry.
pub(super) struct Parked {
    pub(super) request: ServerRequest,
    pub(super) answer: oneshot::Sender<Result<ClientResult, McpError>>,
}

/// A call registered on a connection; unregistered when dropped. Holds
/// the note of a question that could not be answered.
pub(super) struct Registered {
    calls: Arc<Calls>,
    id: RequestId,
    problem: Arc<Mutex<Option<String>>>,
}

impl Registered {
    /// Why a question the server asked on this call got no answer, if one
    /// did not.
    pub(super) fn problem(&self) -> Option<String> {
        self.problem.lock().ok().and_then(|p| p.clone())
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        if let Ok(mut by_id) = self.calls.by_id.lock() {
            by_id.remove(&self.id);
        }
    }
}

impl Calls {
    /// Registers the call sent as request `id` on behalf of `caller`;
    /// questions for a 2026-07-28 caller go to `park`.
    pub(super) fn register(
        self: &Arc<Self>,
        id: RequestId,
        caller: Caller,
        park: Option<mpsc::Sender<Parked>>,
        token: ProgressToken,
    ) -> Registered {
        let problem = Arc::new(Mutex::new(None));
        if let Ok(mut by_id) = self.by_id.lock() {
            by_id.insert(
                id.clone(),
                Route {
                    caller,
                    problem: Arc::clone(&problem),
                    park,
                    token,
                },
            );
        }
        Registered {
            calls: Arc::clone(self),
            id,
            problem,
        }
    }

    /// The call a question belongs to: the one whose response stream it
    /// came on, else the only call in flight.
    fn route(&self, origin: Option<&InboundStreamOrigin>) -> Option<Route> {
        let by_id = self.by_id.lock().ok()?;
        match origin {
            Some(InboundStreamOrigin::OutboundRequest(id)) => by_id.get(id).cloned(),
            _ if by_id.len() == 1 => by_id.values().next().cloned(),
            _ => None,
        }
    }
}

impl Questions {
    /// A handler declaring `declared`, for calls registered in `calls`.
    pub(super) fn new(declared: Declared, calls: Arc<Calls>) -> Self {
        Self { declared, calls }
    }

    /// Sends `request` to the caller of the call it belongs to.
    async fn forward(
        &self,
        request: ServerRequest,
        context: &RequestContext<RoleClient>,
    ) -> Result<ClientResult, McpError> {
        let capability = Declared::needed_by(&request);
        // The call registers right after sending its request, so a quick
        // server's question can come first: it waits for the call a while.
        let origin = context.extensions.get::<InboundStreamOrigin>();
        let mut route = self.calls.route(origin);
        for _ in 0..ROUTE_WAIT_STEPS {
            if route.is_some() {
                break;
            }
            tokio::time::sleep(ROUTE_WAIT_STEP).await;
            route = self.calls.route(origin);
        }
        let Some(route) = route else {
            return Err(McpError::new(
                ErrorCode::INVALID_REQUEST,
                format!(
                    "mcpgraph cannot tell which call this {capability} request belongs to; \
                     send it on the stream of the tools/call it is for"
                ),
                None,
            ));
        };
        // Every question counts against the call's maxQuestions, answered
        // or not; past it the call is stopped and the server refused.
        if let Err(stop) = route.caller.count_questions(1) {
            return Err(self.refuse(&route, mcpgraph_runtime::host::Unanswered::Stopped(stop)));
        }
        if let Some(park) = &route.park {
            route
                .caller
                .may_ask(&request)
                .map_err(|why| self.refuse(&route, why))?;
            let (answer, answered) = oneshot::channel();
            let parked = Parked { request, answer };
            if park.send(parked).await.is_err() {
                return Err(McpError::new(
                    ErrorCode::INVALID_REQUEST,
                    "the call this question belongs to has ended",
                    None,
                ));
            }
            return answered.await.unwrap_or_else(|_| {
                Err(McpError::new(
                    ErrorCode::INVALID_REQUEST,
                    "the calling client did not answer in time",
                    None,
                ))
            });
        }
        route
            .caller
            .ask(request)
            .await
            .map_err(|why| self.refuse(&route, why))
    }

    /// Notes why a question got no answer (for the call's error) and
    /// refuses it to the server.
    fn refuse(&self, route: &Route, why: mcpgraph_runtime::host::Unanswered) -> McpError {
        let note = format!("it asked the calling client a question, and {why}");
        if let Ok(mut problem) = route.problem.lock() {
            problem.get_or_insert(note);
        }
        McpError::new(
            ErrorCode::INVALID_REQUEST,
            format!("the client of this call cannot answer: {why}"),
            None,
        )
    }
}

/// How long a question waits for the call it belongs to to register:
/// steps of this...
const ROUTE_WAIT_STEP: std::time::Duration = std::time::Duration::from_millis(10);
/// ...this many times (one second in all).
const ROUTE_WAIT_STEPS: usize = 100;

/// A result of the wrong kind from the caller.
fn unexpected(what: &str) -> McpError {
    McpError::internal_error(
        format!("the calling client answered a {what} request with another kind of result"),
        None,
    )
}

impl ClientHandler for Questions {
    /// A server's progress on a call goes to the call's node, as a share
    /// of it (see `Caller::report`).
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let route = self.calls.by_id.lock().ok().and_then(|by_id| {
            by_id
                .values()
                .find(|r| r.token == params.progress_token)
                .cloned()
        });
        if let Some(route) = route {
            route
                .caller
                .report(params.progress, params.total, params.message);
        }
    }

    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.capabilities = self.declared.capabilities();
        // Every server may run a call as a task (see `task_call`).
        info.capabilities
            .extensions
            .get_or_insert_with(Default::default)
            .insert(TASKS_EXTENSION_ID.to_owned(), Default::default());
        info.client_info = Implementation::new("mcpgraph", env!("CARGO_PKG_VERSION"));
        info
    }

    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        let request = ServerRequest::ElicitRequest(ElicitRequest::new(params));
        match self.forward(request, &context).await? {
            ClientResult::ElicitResult(result) => Ok(result),
            _ => Err(unexpected("elicitation")),
        }
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, McpError> {
        let request = ServerRequest::CreateMessageRequest(CreateMessageRequest::new(params));
        match self.forward(request, &context).await? {
            ClientResult::CreateMessageResult(result) => Ok(*result),
            _ => Err(unexpected("sampling")),
        }
    }

    async fn list_roots(
        &self,
        context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, McpError> {
        let request = ServerRequest::ListRootsRequest(ListRootsRequest::default());
        match self.forward(request, &context).await? {
            ClientResult::ListRootsResult(result) => Ok(result),
            _ => Err(unexpected("roots")),
        }
    }
}
