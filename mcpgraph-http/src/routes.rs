//! What a request gets: `/health`, `/metrics` (unless it has a listener
//! of its own), `/mcp` through rmcp behind the token, the session cap and
//! the body deadline; first the peer's request rate, and during a drain a
//! refusal of anything new. Every response after the shutdown signal, or
//! on a connection past its age, says `Connection: close`.
//!
//! During a drain, a request that would start something (a new session,
//! an event stream, any request of a stateless server) gets a 503 with
//! `Retry-After`, which proxies and HTTP clients know to retry elsewhere;
//! a request on an open session goes on to the session, where a new
//! `tools/call` is refused with a JSON-RPC error (`CallCaps::close`) and
//! the rest (a cancellation, a ping) is answered: the session stays usable
//! for the results still to come.
//!
//! A session is for the principal that opened it (see `sessions`): another
//! presenting its id gets 404 before rmcp sees the request.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::future::BoxFuture;
use http_body_util::{BodyExt, Either, Full};
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::SessionManager;
use tokio_util::sync::CancellationToken;

use super::oauth::{CalledTool, Claims, Guard};
use super::peers::PeerConnection;
use super::scrape::Gauges;
use super::sessions::{Owner, Principal, watching};
use super::{Body, HEALTH_PATH, MCP_PATH, METRICS_PATH, front_door, plain};

/// The MCP service as the routes call it: rmcp's [`StreamableHttpService`]
/// behind a trait object, made where `serve` is instantiated (see
/// [`HttpArgs::serve`](crate::HttpArgs::serve)).
pub(super) type Mcp = Arc<dyn Endpoint>;

/// A request body as rmcp gets it: streamed within its bounds, or read
/// already (to find the tools it calls, or empty for a probe).
pub(super) type McpBody = Either<front_door::BoundedBody, Full<Bytes>>;

/// What the routes need of rmcp's service: one body type, so that rmcp's
/// request handling is compiled once.
pub(super) trait Endpoint: Send + Sync {
    /// rmcp's response to `request`.
    fn handle(&self, request: Request<McpBody>) -> BoxFuture<'static, Response<Body>>;
}

impl<S, M> Endpoint for StreamableHttpService<S, M>
where
    S: rmcp::ServerHandler + Send + 'static,
    M: SessionManager,
{
    fn handle(&self, request: Request<McpBody>) -> BoxFuture<'static, Response<Body>> {
        let service = self.clone();
        Box::pin(async move { service.handle(request).await })
    }
}

/// A connection as the routes see it.
#[derive(Debug)]
pub(super) struct Connection {
    pub(super) peer: PeerConnection,
    pub(super) opened: Instant,
    pub(super) max_age: Duration,
}

impl Connection {
    /// Whether the connection has passed `--max-connection-age-secs`.
    pub(super) fn too_old(&self) -> bool {
        self.opened.elapsed() >= self.max_age
    }
}

/// Everything a request may need.
pub(super) struct Routes {
    pub(super) mcp: Mcp,
    pub(super) gauges: Arc<Gauges>,
    /// `/metrics` is served here (not on a listener of its own).
    pub(super) metrics_here: bool,
    pub(super) auth: Option<String>,
    /// Inbound OAuth, instead of `auth`.
    pub(super) oauth: Option<Guard>,
    pub(super) stateless: bool,
    pub(super) max_sessions: usize,
    pub(super) body_timeout: Duration,
    pub(super) max_body_bytes: u64,
    /// Cancelled at the first shutdown signal.
    pub(super) stopping: CancellationToken,
}

impl Routes {
    /// The response to `request` on `connection`.
    pub(super) async fn handle(
        &self,
        request: Request<Incoming>,
        connection: &Connection,
    ) -> Response<Body> {
        let mut response = match connection.peer.admit_request() {
            Ok(()) => self.route(request).await,
            Err(wait) => too_many_requests(wait),
        };
        if self.stopping.is_cancelled() || connection.too_old() {
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        response
    }

    async fn route(&self, request: Request<Incoming>) -> Response<Body> {
        let path = request.uri().path();
        if path == HEALTH_PATH {
            return match *request.method() {
                Method::GET | Method::HEAD if self.stopping.is_cancelled() => {
                    plain(StatusCode::SERVICE_UNAVAILABLE, "shutting down\n")
                }
                Method::GET | Method::HEAD => plain(StatusCode::OK, "ok\n"),
                _ => plain(StatusCode::METHOD_NOT_ALLOWED, "GET or HEAD\n"),
            };
        }
        if let Some(guard) = &self.oauth
            && guard.is_metadata_path(path)
        {
            if let Some(refused) = self.host_or_origin_refused(&request).await {
                return refused;
            }
            return match *request.method() {
                Method::GET | Method::HEAD => guard.metadata(),
                _ => plain(StatusCode::METHOD_NOT_ALLOWED, "GET or HEAD\n"),
            };
        }
        let scrape = path == METRICS_PATH && self.metrics_here;
        if path != MCP_PATH && !scrape {
            return plain(StatusCode::NOT_FOUND, "not found: MCP is served on /mcp\n");
        }
        if scrape && let Some(refused) = self.host_or_origin_refused(&request).await {
            return refused;
        }
        let claims = match self.authorize(&request).await {
            Ok(claims) => claims,
            Err(refused) => return refused,
        };
        if scrape {
            return self.gauges.response().await;
        }
        let in_session = !self.stateless && request.headers().contains_key("mcp-session-id");
        let new_session = !self.stateless && request.method() == Method::POST && !in_session;
        let owner: Owner = claims.as_ref().map(Principal::of);
        if in_session {
            let id = request.headers().get("mcp-session-id");
            let id = id.and_then(|v| v.to_str().ok()).unwrap_or_default();
            if !self.gauges.sessions.owned_by(id, &owner) {
                return plain(StatusCode::NOT_FOUND, "Not Found: Session not found\n");
            }
        }
        if self.stopping.is_cancelled() && !(in_session && request.method() != Method::GET) {
            mcpgraph_runtime::host::refused("draining");
            return retry_later("server shutting down: retry on another instance\n");
        }
        if new_session && self.gauges.sessions().await >= self.max_sessions {
            mcpgraph_runtime::host::refused("sessions");
            return too_many_sessions();
        }
        let declared = request
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
        if declared.is_some_and(|n| n > self.max_body_bytes) {
            return front_door::too_large();
        }
        let is_delete = request.method() == Method::DELETE;
        let cut = front_door::Cut::default();
        let (timeout, max_bytes) = (self.body_timeout, self.max_body_bytes);
        let request = request
            .map(|body| front_door::BoundedBody::new(body, timeout, max_bytes, Arc::clone(&cut)));
        let request = match (&self.oauth, claims) {
            (Some(guard), Some(claims)) => {
                let checked = if guard.checks_tools() && request.method() == Method::POST {
                    check_tools(guard, &claims, request, &cut, timeout, max_bytes).await
                } else {
                    Ok(request.map(Either::Left))
                };
                match checked {
                    Ok(mut request) => {
                        request.extensions_mut().insert(claims);
                        request
                    }
                    Err(refused) => return refused,
                }
            }
            _ => request.map(Either::Left),
        };
        let (mut response, refused) = watching(self.mcp.handle(request)).await;
        if refused {
            return too_many_sessions();
        }
        if new_session
            && let Some(id) = response.headers().get("mcp-session-id")
            && let Ok(id) = id.to_str()
        {
            self.gauges.sessions.bind(id, owner).await;
        }
        if let Some(cut) = front_door::cut_response(&cut, timeout, max_bytes) {
            return cut;
        }
        // rmcp answers a session DELETE with 202; clients (the Python
        // SDK among them) expect 200 or 204 for a completed deletion.
        if is_delete && response.status() == StatusCode::ACCEPTED {
            *response.status_mut() = StatusCode::NO_CONTENT;
        }
        response
    }

    /// Whether `request` may go on: it carries the static token, or a
    /// valid OAuth access token (whose claims are returned), or the
    /// server asks for neither; else the refusal.
    async fn authorize(
        &self,
        request: &Request<Incoming>,
    ) -> Result<Option<Claims>, Response<Body>> {
        if let Some(guard) = &self.oauth {
            return guard.authenticate(request.headers()).await.map(Some);
        }
        let authorized = self.auth.as_ref().is_none_or(|expected| {
            request
                .headers()
                .get(header::AUTHORIZATION)
                .is_some_and(|got| super::bearer_matches(got.as_bytes(), expected.as_bytes()))
        });
        if authorized {
            return Ok(None);
        }
        let mut response = plain(StatusCode::UNAUTHORIZED, "unauthorized\n");
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        Err(response)
    }

    /// rmcp's answer when `request`'s `Host` or `Origin` would be refused
    /// on `/mcp` (DNS rebinding): the same headers are put to rmcp in a
    /// request it answers without doing anything else (`OPTIONS`: 405 when
    /// the headers pass, 400 or 403 when not), so both paths share one set
    /// of rules, rmcp's.
    async fn host_or_origin_refused(&self, request: &Request<Incoming>) -> Option<Response<Body>> {
        let mut probe = Request::builder().method(Method::OPTIONS).uri(MCP_PATH);
        for name in [header::HOST, header::ORIGIN] {
            for value in request.headers().get_all(&name) {
                probe = probe.header(&name, value);
            }
        }
        let probe = probe.body(Either::Right(Full::new(Bytes::new()))).ok()?;
        let answer = self.mcp.handle(probe).await;
        matches!(
            answer.status(),
            StatusCode::BAD_REQUEST | StatusCode::FORBIDDEN
        )
        .then_some(answer)
    }
}

/// `request` if `claims` have the scopes of every tool it calls, as its
/// headers tell or else its body (read here, within the body's bounds, and
/// handed on whole); else the 403 (or the answer to a body cut off or not
/// JSON-RPC).
async fn check_tools(
    guard: &Guard,
    claims: &Claims,
    request: Request<front_door::BoundedBody>,
    cut: &front_door::Cut,
    timeout: Duration,
    max_bytes: u64,
) -> Result<Request<McpBody>, Response<Body>> {
    match Guard::called_tool(request.headers()) {
        CalledTool::Named(tool) => guard.check_tool(claims, &tool).map_err(|r| *r)?,
        CalledTool::None => {}
        CalledTool::InBody => {
            let (parts, body) = request.into_parts();
            let Ok(body) = body.collect().await.map(|c| c.to_bytes()) else {
                return Err(
                    front_door::cut_response(cut, timeout, max_bytes).unwrap_or_else(|| {
                        plain(StatusCode::BAD_REQUEST, "cannot read the request body\n")
                    }),
                );
            };
            let Some(tools) = Guard::called_in_body(&body) else {
                return Err(plain(
                    StatusCode::BAD_REQUEST,
                    "the request body is not a JSON-RPC message\n",
                ));
            };
            for tool in tools {
                guard.check_tool(claims, &tool).map_err(|r| *r)?;
            }
            return Ok(Request::from_parts(parts, Either::Right(Full::new(body))));
        }
    }
    Ok(request.map(Either::Left))
}

/// A 503 with `Retry-After: 1`.
fn retry_later(text: &'static str) -> Response<Body> {
    let mut response = plain(StatusCode::SERVICE_UNAVAILABLE, text);
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

fn too_many_sessions() -> Response<Body> {
    retry_later("server busy: too many sessions (--max-sessions); retry later\n")
}

/// A 429 telling when to come back (whole seconds, at least one).
fn too_many_requests(wait: Duration) -> Response<Body> {
    mcpgraph_runtime::host::refused("request_rate");
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    let mut response = Response::new(
        Full::new(Bytes::from_static(
            b"too many requests from one address (--max-request-rate-per-peer)\n",
        ))
        .boxed(),
    );
    *response.status_mut() = StatusCode::TOO_MANY_REQUESTS;
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(seconds.max(1)));
    response
}
