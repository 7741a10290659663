//! Serving MCP over streamable HTTP.
//!
//! rmcp's `StreamableHttpService` speaks the protocol (sessions, SSE,
//! `Host`/`Origin` validation); this module owns the socket side: binding,
//! `TCP_NODELAY` on every accepted connection, the `/mcp` path, optional
//! bearer-token auth, a bound on the time to send request headers, a
//! `/health` probe, and a graceful shutdown that lets in-flight requests
//! finish within a bound.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::graph::Graph;
use crate::server::Handler;

/// Time for responses produced during shutdown to reach their streams.
pub(crate) const FLUSH_GRACE: Duration = Duration::from_millis(150);

/// The path MCP is served on.
pub const MCP_PATH: &str = "/mcp";

/// A liveness/readiness probe for load balancers and orchestrators: `GET`
/// answers 200 while serving. Once shutdown has begun, new connections are
/// refused (the listener is closed) and a probe on a kept-alive connection
/// gets 503; both read as "not ready". It needs no token and no allowed
/// `Host` (probes come by IP), and tells nothing but that.
pub const HEALTH_PATH: &str = "/health";

/// Settings of the HTTP server.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// Address to bind.
    pub addr: SocketAddr,
    /// `Host` values accepted besides the loopback names (DNS-rebinding
    /// protection).
    pub allowed_hosts: Vec<String>,
    /// `Origin` values accepted besides loopback origins.
    pub allowed_origins: Vec<String>,
    /// A bearer token every request must carry.
    pub auth_token: Option<String>,
    /// No sessions: every request stands alone, so any replica can answer
    /// any request behind a load balancer.
    pub stateless: bool,
    /// How long in-flight requests may run after a shutdown signal.
    pub drain: Duration,
    /// How long a client may take to send a request's headers; a slower
    /// one (or a slowloris) has its connection closed.
    pub header_read_timeout: Duration,
}

type Body = BoxBody<Bytes, Infallible>;

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed());
    *response.status_mut() = status;
    response
}

/// Serves `handler` over HTTP until `shutdown` is cancelled, then stops
/// accepting, lets running calls finish for at most `options.drain`
/// (stopping the rest with an error response), closes the sessions and
/// returns. Reports the bound address through `bound` (useful with port 0).
pub async fn serve_http<G: Graph>(
    handler: Handler<G>,
    options: HttpOptions,
    shutdown: CancellationToken,
    bound: impl FnOnce(SocketAddr),
) -> Result<(), String> {
    let listener = TcpListener::bind(options.addr)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", options.addr))?;
    let local = listener
        .local_addr()
        .map_err(|e| format!("cannot read the bound address: {e}"))?;
    bound(local);

    let mut hosts = vec![
        "localhost".to_owned(),
        "127.0.0.1".to_owned(),
        "::1".to_owned(),
    ];
    hosts.extend(options.allowed_hosts.iter().cloned());
    if !local.ip().is_loopback() && !local.ip().is_unspecified() {
        hosts.push(local.ip().to_string());
    }
    let mut origins = vec![
        "http://localhost:*".to_owned(),
        "http://127.0.0.1:*".to_owned(),
        "http://[::1]:*".to_owned(),
    ];
    origins.extend(options.allowed_origins.iter().cloned());
    let sessions = CancellationToken::new();
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
        .with_legacy_session_mode(!options.stateless)
        .with_json_response(options.stateless)
        .with_cancellation_token(sessions.clone());
    let engine = handler.engine().clone();
    let mcp = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let auth = options.auth_token.map(|t| format!("Bearer {t}"));
    let stopping = shutdown.clone();
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        let mut mcp = mcp.clone();
        let health = (request.uri().path() == HEALTH_PATH).then(|| match *request.method() {
            hyper::Method::GET | hyper::Method::HEAD if stopping.is_cancelled() => {
                plain(StatusCode::SERVICE_UNAVAILABLE, "shutting down\n")
            }
            hyper::Method::GET | hyper::Method::HEAD => plain(StatusCode::OK, "ok\n"),
            _ => plain(StatusCode::METHOD_NOT_ALLOWED, "GET or HEAD\n"),
        });
        let authorized = auth.as_ref().is_none_or(|expected| {
            request
                .headers()
                .get(hyper::header::AUTHORIZATION)
                .is_some_and(|got| constant_time_eq(got.as_bytes(), expected.as_bytes()))
        });
        let on_path = request.uri().path() == MCP_PATH;
        let is_delete = request.method() == hyper::Method::DELETE;
        async move {
            if let Some(response) = health {
                return Ok(response);
            }
            if !on_path {
                return Ok::<_, Infallible>(plain(
                    StatusCode::NOT_FOUND,
                    "not found: MCP is served on /mcp\n",
                ));
            }
            if !authorized {
                let mut response = plain(StatusCode::UNAUTHORIZED, "unauthorized\n");
                response.headers_mut().insert(
                    hyper::header::WWW_AUTHENTICATE,
                    hyper::header::HeaderValue::from_static("Bearer"),
                );
                return Ok(response);
            }
            let mut response = tower_call(&mut mcp, request).await?;
            // rmcp answers a session DELETE with 202; clients (the Python
            // SDK among them) expect 200 or 204 for a completed deletion.
            if is_delete && response.status() == StatusCode::ACCEPTED {
                *response.status_mut() = StatusCode::NO_CONTENT;
            }
            Ok(response)
        }
    });

    let graceful = GracefulShutdown::new();
    let mut builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
    // hyper enforces the header timeout only with a timer.
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(options.header_read_timeout);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok(pair) => pair,
                    Err(e) => {
                        tracing::warn!(error = %e, "accept failed");
                        continue;
                    }
                };
                // Without it, small JSON-RPC replies wait for Nagle's timer:
                // about 25 ms per call instead of 2.
                let _ = stream.set_nodelay(true);
                let connection = builder.serve_connection_with_upgrades(TokioIo::new(stream), service.clone());
                let connection = graceful.watch(connection.into_owned());
                tokio::spawn(async move {
                    if let Err(e) = connection.await {
                        tracing::debug!(%peer, error = %e, "connection ended with an error");
                    }
                });
            }
            () = shutdown.cancelled() => break,
        }
    }
    drop(listener);
    tracing::info!("shutting down: waiting for running calls");
    if !engine.drain(options.drain).await {
        tracing::warn!("calls still running after {:?} were stopped", options.drain);
    }
    // The last responses are on their way to their streams; then the
    // sessions' idle event streams (every client keeps one open) can go.
    tokio::time::sleep(FLUSH_GRACE).await;
    sessions.cancel();
    if tokio::time::timeout(Duration::from_secs(2), graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("some connections did not close in time");
    }
    Ok(())
}

async fn tower_call<S>(
    service: &mut S,
    request: Request<Incoming>,
) -> Result<Response<Body>, Infallible>
where
    S: tower_service::Service<Request<Incoming>, Response = Response<Body>, Error = Infallible>,
{
    std::future::poll_fn(|cx| service.poll_ready(cx)).await?;
    service.call(request).await
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
