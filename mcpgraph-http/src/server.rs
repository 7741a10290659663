//! The server once bound: what every connection is served with (rmcp's
//! MCP service behind the routes, the sessions, the gauges, the peers'
//! table), the accept loop with its caps, and the close at the end of a
//! drain.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::TokioTimer;
use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use super::identity::HttpIdentity;
use super::oauth::Guard;
use super::routes::{Mcp, Routes};
use super::scrape::Gauges;
use super::sessions::CappedSessions;
use super::{FLUSH_GRACE, HttpOptions, connection, front_door, peers};
use mcpgraph_runtime::Engine;
use mcpgraph_runtime::host::Handler;

/// How long connections may take to close once the drain is over.
const CLOSE_GRACE: Duration = Duration::from_secs(2);

/// How long a completed request's events are kept for a client resuming
/// its stream (rmcp keeps them per request, 60 s by default): a bound on
/// what a session holds for requests that are over.
const COMPLETED_CACHE: Duration = Duration::from_secs(10);

/// A bound server, between its listener and its connections.
pub(super) struct Server {
    served: Arc<connection::Served>,
    pub(super) gauges: Arc<Gauges>,
    connections: Arc<Semaphore>,
    max_connections: usize,
    refuser: front_door::Refuser,
    peers: Arc<peers::PeerTable>,
    /// Cancelled to end the sessions' event streams.
    sessions: CancellationToken,
    /// Cancelled once the drain is over: every connection closes after
    /// its current response, and so does the metrics listener.
    pub(super) closing: CancellationToken,
}

impl Server {
    /// The server of `handler` on `local`, its sessions served by what
    /// `session` makes of it, with `options`; `shutdown` is cancelled at
    /// the first shutdown signal.
    pub(super) fn new<S: ServerHandler + Send + 'static>(
        handler: Handler,
        session: fn(&Handler) -> S,
        options: HttpOptions,
        local: SocketAddr,
        oauth: Option<Guard>,
        shutdown: CancellationToken,
    ) -> Server {
        let sessions = CancellationToken::new();
        let (mcp, manager) = mcp_service(&handler, session, &options, local, sessions.clone());
        let connections = Arc::new(Semaphore::new(options.max_connections));
        let refuser = front_door::Refuser::default();
        let gauges = Arc::new(Gauges {
            sessions: manager,
            handler,
            connections: Arc::clone(&connections),
            max_connections: options.max_connections,
            refuser: refuser.clone(),
        });
        let closing = CancellationToken::new();
        let served = Arc::new(connection::Served {
            builder: http1_builder(options.header_read_timeout),
            routes: Arc::new(Routes {
                mcp,
                gauges: Arc::clone(&gauges),
                metrics_here: options.metrics_addr.is_none(),
                auth: options.auth_token,
                oauth,
                stateless: options.stateless,
                max_sessions: options.max_sessions,
                body_timeout: options.body_timeout,
                max_body_bytes: options.max_body_bytes,
                stopping: shutdown,
            }),
            send_timeout: options.send_timeout,
            max_age: options.max_connection_age,
            closing: closing.clone(),
        });
        Server {
            served,
            gauges,
            connections,
            max_connections: options.max_connections,
            refuser,
            peers: Arc::new(peers::PeerTable::new(
                options.max_connections_per_peer,
                options.request_rate,
                options.max_connections,
            )),
            sessions,
            closing,
        }
    }

    /// Accepts connections on `listener` until `shutdown` is cancelled.
    pub(super) async fn accept(&self, listener: TcpListener, shutdown: &CancellationToken) {
        let mut backoff = front_door::AcceptBackoff::default();
        loop {
            tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, peer)) => {
                        backoff.succeeded();
                        self.admit(stream, peer);
                    }
                    Err(e) => backoff.failed(&e).await,
                },
                () = shutdown.cancelled() => return,
            }
        }
    }

    /// Serves the connection `stream` from `peer`, or refuses it over a
    /// cap.
    fn admit(&self, stream: TcpStream, peer: SocketAddr) {
        let Ok(permit) = Arc::clone(&self.connections).try_acquire_owned() else {
            self.refuser
                .refuse(stream, front_door::Refusal::Connections);
            return;
        };
        let Some(place) = self.peers.connect(peer.ip()) else {
            self.refuser
                .refuse(stream, front_door::Refusal::ConnectionsPerPeer);
            return;
        };
        // Without it, small JSON-RPC replies wait for Nagle's timer:
        // about 25 ms per call instead of 2.
        let _ = stream.set_nodelay(true);
        // Served here, on the serving runtime, where no call runs (calls
        // go to the worker threads): a long evaluation never holds a
        // connection, a probe or a ping.
        let served = Arc::clone(&self.served);
        tokio::spawn(async move {
            let _permit = permit;
            connection::serve(stream, peer, place, served).await;
        });
    }

    /// Lets `engine`'s running calls finish for at most `drain`
    /// (stopping the rest), then closes the sessions and connections.
    pub(super) async fn close(self, engine: &Engine, drain: Duration) {
        tracing::info!("shutting down: waiting for running calls");
        if !engine.drain(drain).await {
            tracing::warn!("calls still running after {drain:?} were stopped");
        }
        // The last responses are on their way to their streams; then the
        // sessions' idle event streams (every client keeps one open) can
        // go, and every connection closes after its current response.
        tokio::time::sleep(FLUSH_GRACE).await;
        self.sessions.cancel();
        self.closing.cancel();
        let all = u32::try_from(self.max_connections).unwrap_or(u32::MAX);
        if tokio::time::timeout(CLOSE_GRACE, self.connections.acquire_many(all))
            .await
            .is_err()
        {
            tracing::warn!("some connections did not close in time");
        }
    }
}

/// rmcp's MCP service on `local`, each session served by what `session`
/// makes of `handler`; the sessions capped and ended by `sessions`.
fn mcp_service<S: ServerHandler + Send + 'static>(
    handler: &Handler,
    session: fn(&Handler) -> S,
    options: &HttpOptions,
    local: SocketAddr,
    sessions: CancellationToken,
) -> (Mcp, Arc<CappedSessions>) {
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(allowed_hosts(options, local))
        .with_allowed_origins(allowed_origins(options))
        .with_legacy_session_mode(!options.stateless)
        .with_json_response(options.stateless)
        // Ours is the only bound on a request body (`--max-body-bytes`,
        // routes.rs); rmcp's own (4 MiB by default) follows it.
        .with_max_request_body_bytes(usize::try_from(options.max_body_bytes).unwrap_or(usize::MAX))
        .with_cancellation_token(sessions);
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(options.session_idle);
    manager.session_config.completed_cache_ttl = COMPLETED_CACHE;
    let manager = Arc::new(CappedSessions::new(manager, options.max_sessions));
    // Without sessions a client of the session era has no stream for a
    // server-to-client request: its calls cannot be asked questions.
    let session_handler = handler
        .clone()
        .with_sessions(!options.stateless)
        .with_identity(Arc::new(HttpIdentity));
    let mcp = StreamableHttpService::new(
        move || Ok(session(&session_handler)),
        Arc::clone(&manager),
        config,
    );
    (Arc::new(mcp), manager)
}

/// The `Host` values accepted: the loopback names, `--allowed-host`, and
/// the bound address when it is a particular one beyond loopback.
fn allowed_hosts(options: &HttpOptions, local: SocketAddr) -> Vec<String> {
    let mut hosts = vec![
        "localhost".to_owned(),
        "127.0.0.1".to_owned(),
        "::1".to_owned(),
    ];
    hosts.extend(options.allowed_hosts.iter().cloned());
    if !local.ip().is_loopback() && !local.ip().is_unspecified() {
        hosts.push(local.ip().to_string());
    }
    hosts
}

/// The `Origin` values accepted: loopback origins and `--allowed-origin`.
fn allowed_origins(options: &HttpOptions) -> Vec<String> {
    let mut origins = vec![
        "http://localhost:*".to_owned(),
        "http://127.0.0.1:*".to_owned(),
        "http://[::1]:*".to_owned(),
    ];
    origins.extend(options.allowed_origins.iter().cloned());
    origins
}

/// HTTP/1.1 only: the deadlines and caps here are HTTP/1's, and MCP
/// clients need nothing else. hyper enforces the header timeout only with
/// a timer.
fn http1_builder(header_read_timeout: Duration) -> hyper::server::conn::http1::Builder {
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout);
    builder
}
