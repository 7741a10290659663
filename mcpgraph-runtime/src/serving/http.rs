//! Serving MCP over streamable HTTP (HTTP/1.1 only: every bound below
//! holds for it, and MCP clients need nothing else).
//!
//! rmcp's `StreamableHttpService` speaks the protocol (sessions, SSE,
//! `Host`/`Origin` validation); this module owns the socket side: binding,
//! `TCP_NODELAY` on every accepted connection, the front door's bounds
//! (`front_door`: connections, header and body deadlines; `peers`: per
//! peer; `sessions`: the session cap; `connection`: send timeout and age),
//! the routes (`routes`: `/mcp`, bearer-token auth or OAuth (`oauth`),
//! `/health`, `/metrics`,
//! served on a listener of their own by `scrape` with `--metrics-addr`),
//! and a graceful shutdown that refuses new calls at once and lets those
//! in flight finish within a bound.

mod connection;
mod front_door;
mod oauth;
mod peers;
mod routes;
mod scrape;
mod sessions;

pub(crate) use connection::PeerAddress;
pub use front_door::{
    DEFAULT_BODY_TIMEOUT_SECS, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_CONNECTION_AGE_SECS,
    DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_REQUEST_RATE_PER_PEER, DEFAULT_MAX_SESSIONS,
    DEFAULT_SEND_TIMEOUT_SECS, DEFAULT_SESSION_IDLE_SECS, default_max_connections_per_peer,
};
pub use oauth::{Claims, DEFAULT_ALGORITHMS, DEFAULT_LEEWAY_SECS, OAuthOptions};
pub use peers::RateLimit;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioTimer;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::serving::handler::Handler;

pub(crate) use super::FLUSH_GRACE;

/// How long connections may take to close once the drain is over.
const CLOSE_GRACE: Duration = Duration::from_secs(2);

/// How long a completed request's events are kept for a client resuming
/// its stream (rmcp keeps them per request, 60 s by default): a bound on
/// what a session holds for requests that are over.
const COMPLETED_CACHE: Duration = Duration::from_secs(10);

/// The path MCP is served on.
pub const MCP_PATH: &str = "/mcp";

/// A liveness/readiness probe for load balancers and orchestrators: `GET`
/// answers 200 while serving. Once shutdown has begun, new connections are
/// refused (the listener is closed) and a probe on a kept-alive connection
/// gets 503; both read as "not ready". It needs no token and no allowed
/// `Host` (probes come by IP), and tells nothing but that.
pub(crate) const HEALTH_PATH: &str = "/health";

/// Counters and gauges in the Prometheus text format, behind the same
/// token and `Host`/`Origin` checks as `/mcp`, or on a listener of their
/// own (`--metrics-addr`).
pub(crate) const METRICS_PATH: &str = "/metrics";

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
    /// Inbound OAuth: an access token from this issuer every request must
    /// carry (instead of `auth_token`).
    pub oauth: Option<OAuthOptions>,
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
    /// The largest request body read; a larger one gets a 413.
    pub max_body_bytes: u64,
    /// Open connections at most; one more gets a 503 and is closed.
    pub max_connections: usize,
    /// Open connections from one peer at most; one more gets a 503.
    pub max_connections_per_peer: usize,
    /// Requests per second from one peer, if limited; one more gets a 429.
    pub request_rate: Option<RateLimit>,
    /// How long a write to a client may make no progress before the
    /// connection is dropped.
    pub send_timeout: Duration,
    /// Age after which a connection is closed after its current response.
    pub max_connection_age: Duration,
    /// Sessions at most; a new one beyond gets a 503.
    pub max_sessions: usize,
    /// A session idle this long is closed.
    pub session_idle: Duration,
    /// Serve `/metrics` on this address instead of the public one.
    pub metrics_addr: Option<SocketAddr>,
}

type Body = BoxBody<Bytes, Infallible>;

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed());
    *response.status_mut() = status;
    response
}

/// Serves `handler` over HTTP until `shutdown` is cancelled, then stops
/// accepting, refuses new calls, lets running calls finish for at most
/// `options.drain` (stopping the rest with an error response), closes the
/// sessions and connections and returns. Reports the bound addresses
/// (MCP's, and `/metrics`' own if any) through `bound` (useful with port
/// 0). Connections are accepted and served on the runtime this runs on;
/// the calls they make run on the engine's worker threads.
pub async fn serve_http(
    handler: Handler,
    options: HttpOptions,
    shutdown: CancellationToken,
    bound: impl FnOnce(SocketAddr, Option<SocketAddr>),
) -> Result<(), String> {
    let listener = TcpListener::bind(options.addr)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", options.addr))?;
    let local = listener
        .local_addr()
        .map_err(|e| format!("cannot read the bound address: {e}"))?;
    let metrics_listener = match options.metrics_addr {
        Some(addr) => Some(scrape::bind(addr).await?),
        None => None,
    };
    let metrics_local = metrics_listener.as_ref().and_then(|l| l.local_addr().ok());
    bound(local, metrics_local);

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
        // Ours is the only bound on a request body (`--max-body-bytes`,
        // routes.rs); rmcp's own (4 MiB by default) follows it.
        .with_max_request_body_bytes(usize::try_from(options.max_body_bytes).unwrap_or(usize::MAX))
        .with_cancellation_token(sessions.clone());
    let engine = handler.engine().clone();
    let oauth = match options.oauth {
        Some(oauth) => Some(oauth::Guard::new(
            oauth,
            engine
                .tools()
                .iter()
                .map(|t| (t.meta.name, t.meta.required_scopes)),
        )?),
        None => None,
    };
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(options.session_idle);
    manager.session_config.completed_cache_ttl = COMPLETED_CACHE;
    let manager = Arc::new(sessions::CappedSessions::new(manager, options.max_sessions));
    // Without sessions a client of the session era has no stream for a
    // server-to-client request: its calls cannot be asked questions.
    let session_handler = handler.clone().with_sessions(!options.stateless);
    let mcp = StreamableHttpService::new(
        move || Ok(session_handler.for_session()),
        Arc::clone(&manager),
        config,
    );
    let connections = Arc::new(tokio::sync::Semaphore::new(options.max_connections));
    let refuser = front_door::Refuser::default();
    let gauges = Arc::new(scrape::Gauges {
        sessions: manager,
        handler,
        connections: Arc::clone(&connections),
        max_connections: options.max_connections,
        refuser: refuser.clone(),
    });
    let closing = CancellationToken::new();
    if let Some(listener) = metrics_listener {
        tokio::spawn(scrape::serve(
            listener,
            Arc::clone(&gauges),
            closing.clone(),
        ));
    }
    let peers = Arc::new(peers::PeerTable::new(
        options.max_connections_per_peer,
        options.request_rate,
        options.max_connections,
    ));
    // HTTP/1.1 only: the deadlines and caps here are HTTP/1's, and MCP
    // clients need nothing else. hyper enforces the header timeout only
    // with a timer.
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(options.header_read_timeout);
    let served = Arc::new(connection::Served {
        builder,
        routes: Arc::new(routes::Routes {
            mcp,
            gauges,
            metrics_here: options.metrics_addr.is_none(),
            auth: options.auth_token,
            oauth,
            stateless: options.stateless,
            max_sessions: options.max_sessions,
            body_timeout: options.body_timeout,
            max_body_bytes: options.max_body_bytes,
            stopping: shutdown.clone(),
        }),
        send_timeout: options.send_timeout,
        max_age: options.max_connection_age,
        closing: closing.clone(),
    });

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
                    refuser.refuse(stream, front_door::Refusal::Connections);
                    continue;
                };
                let Some(place) = peers.connect(peer.ip()) else {
                    refuser.refuse(stream, front_door::Refusal::ConnectionsPerPeer);
                    continue;
                };
                // Without it, small JSON-RPC replies wait for Nagle's timer:
                // about 25 ms per call instead of 2.
                let _ = stream.set_nodelay(true);
                // Served here, on the serving runtime, where no call runs
                // (calls go to the worker threads): a long evaluation
                // never holds a connection, a probe or a ping.
                let served = Arc::clone(&served);
                tokio::spawn(async move {
                    let _permit = permit;
                    connection::serve(stream, peer, place, served).await;
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
    // sessions' idle event streams (every client keeps one open) can go,
    // and every connection closes after its current response.
    tokio::time::sleep(FLUSH_GRACE).await;
    sessions.cancel();
    closing.cancel();
    let all = u32::try_from(options.max_connections).unwrap_or(u32::MAX);
    if tokio::time::timeout(CLOSE_GRACE, connections.acquire_many(all))
        .await
        .is_err()
    {
        tracing::warn!("some connections did not close in time");
    }
    Ok(())
}

/// `service`'s response to `request`.
async fn tower_call<S, B>(service: &mut S, request: Request<B>) -> Response<Body>
where
    S: tower_service::Service<Request<B>, Response = Response<Body>, Error = Infallible>,
{
    let answer = async {
        std::future::poll_fn(|cx| service.poll_ready(cx)).await?;
        service.call(request).await
    };
    match answer.await {
        Ok(response) => response,
        Err(never) => match never {},
    }
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
