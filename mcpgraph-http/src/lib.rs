//! Serving a generated server's MCP handler over streamable HTTP (HTTP/1.1
//! only: every bound below holds for it, and MCP clients need nothing
//! else).
//!
//! **No semver promise:** this crate is an implementation detail of
//! [`mcpgraph`](https://docs.rs/mcpgraph), whose `http-server` feature
//! brings it in; its command line flattens [`HttpArgs`] into `serve`'s
//! flags and calls [`HttpArgs::serve`].
//!
//! rmcp's `StreamableHttpService` speaks the protocol (sessions, SSE,
//! `Host`/`Origin` validation); this crate owns the socket side: binding,
//! `TCP_NODELAY` on every accepted connection, the front door's bounds
//! (`front_door`: connections, header and body deadlines; `peers`: per
//! peer; `sessions`: the session cap; `connection`: send timeout and age),
//! the routes (`routes`: `/mcp`, bearer-token auth or OAuth (`oauth`),
//! `/health`, `/metrics`,
//! served on a listener of their own by `scrape` with `--metrics-addr`),
//! and a graceful shutdown that refuses new calls at once and lets those
//! in flight finish within a bound.

mod args;
mod connection;
mod error;
mod front_door;
mod identity;
mod oauth;
mod peers;
mod prometheus;
mod routes;
mod scrape;
mod server;
mod sessions;

pub use args::HttpArgs;
pub(crate) use connection::PeerAddress;
pub use error::{HttpError, OAuthError};
pub(crate) use front_door::{
    DEFAULT_BODY_TIMEOUT_SECS, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_CONNECTION_AGE_SECS,
    DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_REQUEST_RATE_PER_PEER, DEFAULT_MAX_SESSIONS,
    DEFAULT_SEND_TIMEOUT_SECS, DEFAULT_SESSION_IDLE_SECS, default_max_connections_per_peer,
};
pub(crate) use oauth::{DEFAULT_ALGORITHMS, DEFAULT_LEEWAY_SECS, OAuthOptions};
pub(crate) use peers::RateLimit;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::{Response, StatusCode};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use mcpgraph_runtime::host::{FLUSH_GRACE, Handler};

/// The path MCP is served on.
pub(crate) const MCP_PATH: &str = "/mcp";

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
pub(crate) async fn serve_http<S: rmcp::ServerHandler + Send + 'static>(
    handler: Handler,
    session: fn(&Handler) -> S,
    mut options: HttpOptions,
    shutdown: CancellationToken,
    bound: impl FnOnce(SocketAddr, Option<SocketAddr>),
) -> Result<(), HttpError> {
    let (listener, local) = bind(options.addr, None).await?;
    let metrics = match options.metrics_addr {
        Some(addr) => Some(bind(addr, Some("--metrics-addr")).await?),
        None => None,
    };
    bound(local, metrics.as_ref().map(|(_, addr)| *addr));
    let engine = handler.engine().clone();
    let oauth = match options.oauth.take() {
        Some(oauth) => Some(oauth::Guard::new(
            oauth,
            engine
                .graph()
                .tools
                .iter()
                .map(|t| (t.name, t.required_scopes)),
        )?),
        None => None,
    };
    let drain = options.drain;
    let server = server::Server::new(handler, session, options, local, oauth, shutdown.clone());
    if let Some((listener, _)) = metrics {
        let (gauges, closing) = (Arc::clone(&server.gauges), server.closing.clone());
        tokio::spawn(scrape::serve(listener, gauges, closing));
    }
    server.accept(listener, &shutdown).await;
    server.close(&engine, drain).await;
    Ok(())
}

/// A listener on `addr` (given by `flag`, when not `--http`), and the
/// address it is bound to.
async fn bind(
    addr: SocketAddr,
    flag: Option<&'static str>,
) -> Result<(TcpListener, SocketAddr), HttpError> {
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|source| HttpError::Bind { addr, flag, source })?;
    let local = listener.local_addr().map_err(HttpError::LocalAddr)?;
    Ok((listener, local))
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
