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
use rmcp::service::{InboundStreamOrigin, RequestContext, RoleClient};
use rmcp::{ClientHandler, ErrorData as McpError};

use crate::questions::{Caller, Declared};

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
    /// Registers the call sent as request `id` on behalf of `caller`.
    pub(super) fn register(self: &Arc<Self>, id: RequestId, caller: Caller) -> Registered {
        let problem = Arc::new(Mutex::new(None));
        if let Ok(mut by_id) = self.by_id.lock() {
            by_id.insert(
                id.clone(),
                Route {
                    caller,
                    problem: Arc::clone(&problem),
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
        let Some(route) = self
            .calls
            .route(context.extensions.get::<InboundStreamOrigin>())
        else {
            return Err(McpError::new(
                ErrorCode::INVALID_REQUEST,
                format!(
                    "mcpgraph cannot tell which call this {capability} request belongs to; \
                     send it on the stream of the tools/call it is for"
                ),
                None,
            ));
        };
        route.caller.ask(request).await.map_err(|why| {
            let note = format!("it asked the calling client a question, and {why}");
            if let Ok(mut problem) = route.problem.lock() {
                problem.get_or_insert(note);
            }
            McpError::new(
                ErrorCode::INVALID_REQUEST,
                format!("the client of this call cannot answer: {why}"),
                None,
            )
        })
    }
}

/// A result of the wrong kind from the caller.
fn unexpected(what: &str) -> McpError {
    McpError::internal_error(
        format!("the calling client answered a {what} request with another kind of result"),
        None,
    )
}

impl ClientHandler for Questions {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.capabilities = self.declared.capabilities();
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
