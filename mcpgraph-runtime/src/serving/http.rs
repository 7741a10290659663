//! Serving MCP over streamable HTTP (HTTP/1.1 only: every bound below
//! holds for it, and MCP clients need nothing else).
//!
//! rmcp's `StreamableHttpService` speaks the protocol (sessions, SSE,
//! `Host`/`Origin` validation); this module owns the socket side: binding,
//! `TCP_NODELAY` on every accepted connection, the `/mcp` path, optional
//! bearer-token auth, the front door's bounds (`front_door`: connections,
//! sessions, header and body deadlines), a `/health` probe, `/metrics`, and
//! a graceful shutdown that lets in-flight requests finish within a bound.

mod front_door;

pub(crate) use front_door::{
    DEFAULT_BODY_TIMEOUT_SECS, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_SESSIONS,
    DEFAULT_SESSION_IDLE_SECS,
};

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::serving::handler::Handler;

/// Time for responses produced during shutdown to reach their streams.
pub(crate) const FLUSH_GRACE: Duration = Duration::from_millis(150);

/// The path MCP is served on.
pub(crate) const MCP_PATH: &str = "/mcp";

/// A liveness/readiness probe for load balancers and orchestrators: `GET`
/// answers 200 while serving. Once shutdown has begun, new connections are
/// refused (the listener is closed) and a probe on a kept-alive connection
/// gets 503; both read as "not ready". It needs no token and no allowed
/// `Host` (probes come by IP), and tells nothing but that.
pub(crate) const HEALTH_PATH: &str = "/health";

/// Counters and gauges in the Prometheus text format, behind the same
/// token as `/mcp`.
pub(crate) const METRICS_PATH: &str = "/metrics";

/// Settings of the HTTP server.
#[derive(Clone, Debug)]
pub(crate) struct HttpOptions {
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
    /// How long a client may take to send a request's body.
    pub body_timeout: Duration,
    /// Open connections at most; one more gets a 503 and is closed.
    pub max_connections: usize,
    /// Sessions at most; a new one beyond gets a 503.
    pub max_sessions: usize,
    /// A session idle this long is closed.
    pub session_idle: Duration,
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
/// Connections are accepted and served on the runtime this runs on; the
/// calls they make run on the engine's worker threads.
pub(crate) async fn serve_http(
    handler: Handler,
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
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(options.session_idle);
    let manager = Arc::new(manager);
    let caps = handler.clone();
    let mcp = StreamableHttpService::new(
        move || Ok(handler.for_session()),
        Arc::clone(&manager),
        config,
    );
    let connections = Arc::new(tokio::sync::Semaphore::new(options.max_connections));
    let open_connections = {
        let connections = Arc::clone(&connections);
        let max = options.max_connections;
        move || max - connections.available_permits()
    };
    let (max_sessions, body_timeout, stateless) = (
        options.max_sessions,
        options.body_timeout,
        options.stateless,
    );
    let auth = options.auth_token;
    let stopping = shutdown.clone();
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        let mut mcp = mcp.clone();
        let manager = Arc::clone(&manager);
        let scrape = request.uri().path() == METRICS_PATH;
        // The gauges' sources, taken only for a scrape.
        let gauges = scrape.then(|| (caps.clone(), open_connections.clone()));
        let new_session = !stateless
            && request.method() == hyper::Method::POST
            && !request.headers().contains_key("mcp-session-id");
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
                .is_some_and(|got| bearer_matches(got.as_bytes(), expected.as_bytes()))
        });
        let on_path = request.uri().path() == MCP_PATH;
        let is_delete = request.method() == hyper::Method::DELETE;
        let expired = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let request = request
            .map(|body| front_door::TimedBody::new(body, body_timeout, Arc::clone(&expired)));
        async move {
            if let Some(response) = health {
                return Ok(response);
            }
            if let Some((caps, open_connections)) = gauges.filter(|_| authorized) {
                let sessions = manager.sessions.read().await.len();
                let text = crate::serving::metrics::render(
                    sessions,
                    caps.caps().running(),
                    open_connections(),
                );
                let mut response = Response::new(Full::new(Bytes::from(text)).boxed());
                response.headers_mut().insert(
                    hyper::header::CONTENT_TYPE,
                    hyper::header::HeaderValue::from_static("text/plain; version=0.0.4"),
                );
                return Ok(response);
            }
            if !on_path && !scrape {
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
            if new_session && manager.sessions.read().await.len() >= max_sessions {
                crate::serving::metrics::refused("sessions");
                let mut response = plain(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "server busy: too many sessions (--max-sessions); retry later\n",
                );
                response.headers_mut().insert(
                    hyper::header::RETRY_AFTER,
                    hyper::header::HeaderValue::from_static("1"),
                );
                return Ok(response);
            }
            let mut response = tower_call(&mut mcp, request).await?;
            if expired.load(std::sync::atomic::Ordering::SeqCst) {
                return Ok(front_door::body_timeout_response(body_timeout));
            }
            // rmcp answers a session DELETE with 202; clients (the Python
            // SDK among them) expect 200 or 204 for a completed deletion.
            if is_delete && response.status() == StatusCode::ACCEPTED {
                *response.status_mut() = StatusCode::NO_CONTENT;
            }
            Ok(response)
        }
    });

    let graceful = GracefulShutdown::new();
    // HTTP/1.1 only: the deadlines and caps here are HTTP/1's, and MCP
    // clients need nothing else. hyper enforces the header timeout only
    // with a timer.
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(options.header_read_timeout);
    let mut backoff = front_door::AcceptBackoff::default();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok(pair) => pair,
                    Err(e) => {
                        backoff.failed(&e).await;
                        continue;
                    }
                };
                backoff.succeeded();
                let Ok(permit) = Arc::clone(&connections).try_acquire_owned() else {
                    front_door::refuse_connection(stream);
                    continue;
                };
                // Without it, small JSON-RPC replies wait for Nagle's timer:
                // about 25 ms per call instead of 2.
                let _ = stream.set_nodelay(true);
                // Served here, on the serving runtime, where no call runs
                // (calls go to the worker threads): a long evaluation
                // never holds a connection, a probe or a ping.
                let (builder, service, watcher) = (builder.clone(), service.clone(), graceful.watcher());
                tokio::spawn(async move {
                    let _permit = permit;
                    let connection = builder.serve_connection(TokioIo::new(stream), service);
                    if let Err(e) = watcher.watch(connection).await {
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

async fn tower_call<S, B>(
    service: &mut S,
    request: Request<B>,
) -> Result<Response<Body>, Infallible>
where
    S: tower_service::Service<Request<B>, Response = Response<Body>, Error = Infallible>,
{
    std::future::poll_fn(|cx| service.poll_ready(cx)).await?;
    service.call(request).await
}

/// Whether the `Authorization` value `header` carries the bearer token
/// `token`: the scheme `Bearer` in any case (RFC 9110 §11.1: schemes are
/// case-insensitive), one or more spaces (RFC 6750 §2.1's `1*SP`), then
/// exactly `token`, compared in constant time.
fn bearer_matches(header: &[u8], token: &[u8]) -> bool {
    const SCHEME: &[u8] = b"Bearer";
    let Some((scheme, rest)) = header.split_at_checked(SCHEME.len()) else {
        return false;
    };
    let spaces = rest.iter().take_while(|&&b| b == b' ').count();
    scheme.eq_ignore_ascii_case(SCHEME) && spaces > 0 && constant_time_eq(&rest[spaces..], token)
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::bearer_matches;

    #[test]
    fn bearer_scheme_is_case_insensitive_and_the_token_is_not() {
        for header in [
            "Bearer s3cret",
            "bearer s3cret",
            "BEARER s3cret",
            "Bearer   s3cret",
        ] {
            assert!(bearer_matches(header.as_bytes(), b"s3cret"), "{header:?}");
        }
        for header in [
            "Bearer S3CRET",
            "Bearer s3cre",
            "Bearer s3crett",
            "Basic s3cret",
            "Bearers3cret",
            "Bearer\ts3cret",
            "Bearer ",
            "Bearer",
            "s3cret",
            "",
        ] {
            assert!(!bearer_matches(header.as_bytes(), b"s3cret"), "{header:?}");
        }
    }
}
