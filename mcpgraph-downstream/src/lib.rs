//! Connections to the downstream MCP servers a graph calls.
//!
//! **No semver promise:** this crate is an implementation detail of
//! [`mcpgraph`](https://docs.rs/mcpgraph) and changes with it; use it
//! through `mcpgraph`, whose `http-client` and `tls` features reach it.
//! The core (`mcpgraph-runtime`) calls it through its `Servers` seam:
//! generated code names [`connect`] (through the facade) as the graph's
//! `GraphDef::connect`.
//!
//! Each server is connected lazily, on the first call that needs it, and
//! that one connection is shared by every concurrent call. Settings are the
//! compiled-in ones unless `--mcp FILE` replaced them; `${VAR}` references
//! (command, args, cwd, env, url, headers) are expanded at connect time.
//! This crate does not interpret results; the core's `servers::convert` does.
//!
//! Transports: stdio (`stdio.rs`: a child process whose stderr is forwarded
//! to ours and whose tail is kept), streamable HTTP (rmcp's client) and
//! legacy SSE (`sse.rs`), both over `http://` or `https://`
//! (`http_client.rs`), the last three with the `http-client` feature. Failures stay with the call they hit:
//! - a server that exited is restarted on the next call; the call it failed
//!   reports the exit status and the tail of its stderr;
//! - the connect + handshake and each call are bounded by the server's
//!   `timeoutMs`; a call abandoned mid-flight (its timeout, the graph's time
//!   limit, a client's cancellation, shutdown) is cancelled downstream
//!   (`notifications/cancelled`) and marks the connection suspect: before it
//!   serves another call it must answer a ping within `pingTimeoutMs`, or
//!   new calls get a new connection (a new process, a new session) at once,
//!   while the old one is retired once the calls still running on it end;
//! - a reply larger than `wire::MAX_REPLY_BYTES` (16 MiB) or one that is not a
//!   valid JSON-RPC reply fails the request it answers; a stdout line that
//!   is not JSON at all is logged and ignored;
//! - calls that waited for a connection attempt that failed share its
//!   error instead of each trying (and waiting) again; a failed attempt's
//!   child process is stopped in the background.
//!
//! Here: the manager and its calls. `spec` holds the settings and the
//! `--mcp` override, `connection` one connection (health, probe, crash
//! report), `lifecycle` how the manager checks, replaces and retires
//! connections, `connect` connecting and the handshake, `listing` what a
//! server offers (for `mcpgraph lock` and `drift`, with bounded paging),
//! `drift` the comparison with the lock.

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex as StdMutex};

use mcpgraph_runtime::host::Declared;
use tokio::sync::Mutex;

/// `tracing::warn!` about the downstream server `$server`, its message
/// redacted ([`redact`](mcpgraph_runtime::host::redact)): text a server sent and settings expanded from `${VAR}`
/// reach the log as `${VAR}`, as the server's forwarded stderr does.
macro_rules! warn_redacted {
    ($server:expr, $($message:tt)+) => {
        ::tracing::warn!(
            server = $server,
            "{}",
            $crate::__redact(&format!($($message)+))
        )
    };
}
pub(crate) use warn_redacted;

mod answers;
mod asking;
mod breaker;
mod call;
mod child_env;
mod connect;
mod connection;
mod drift;
#[cfg(feature = "testing")]
#[doc(hidden)]
pub mod fuzzing;
#[cfg(feature = "http-client")]
mod http_client;
mod lifecycle;
pub mod listing;
mod monitor;
pub(crate) mod oauth;
mod parking;
#[cfg(test)]
mod pieces;
mod pool;
#[doc(hidden)]
pub mod reaper;
mod spec;
#[cfg(feature = "http-client")]
pub(crate) mod sse;
#[doc(hidden)]
pub mod stderr;
mod stdin_writer;
mod stdio;
#[cfg(feature = "http-client")]
mod streamable;
mod task_call;
#[cfg(feature = "http-client")]
mod unavailable;
mod waiting;
pub(crate) mod wire;

#[doc(hidden)]
pub mod features;
pub use features::{TLS, install_crypto_provider, is_https};
pub use mcpgraph_runtime::ServerAuth;
pub use mcpgraph_runtime::host::withhold_from_children;
pub use oauth::{AuthAction, AuthRunError, allow_interactive_login, run_auth};
pub use spec::{ServerSpec, TransportSpec, effective_specs, parse_override};

use connection::Connection;
pub use mcpgraph_runtime::host::DownstreamError;

/// One downstream server and its connection, if one is open: the one for
/// callers that declared nothing, or for callers that declared `declared`
/// (see `asking`).
struct Downstream {
    spec: ServerSpec,
    /// The OAuth tokens of its `auth`, shared by every `Downstream` of
    /// the server.
    auth: oauth::SharedAuthorizer,
    declared: Declared,
    /// For a connection that declares capabilities over stdio or SSE,
    /// where nothing ties a question to the call it belongs to: one call
    /// at a time.
    turns: Option<Arc<tokio::sync::Semaphore>>,
    /// The open connection. A connection attempt holds this lock from a
    /// task of its own, so that the attempt and its result survive the
    /// caller that started it being cancelled: there is at most one
    /// attempt at a time, and its connection is used (or stopped at
    /// shutdown), never lost.
    slot: Arc<Mutex<Slot>>,
    /// Connection attempts made so far. A caller that queued behind an
    /// attempt which failed gets its error at once instead of trying again:
    /// with N calls waiting on a server that hangs in its handshake, each
    /// waits one `timeoutMs`, not N.
    attempts: Arc<AtomicU64>,
    /// When a call last used it (or was last seen using it): a connection
    /// of callers that declared capabilities is closed once idle long
    /// enough (see `pool`).
    last_used: StdMutex<std::time::Instant>,
    /// Who took its turn last (the holder while the turn is taken), for
    /// each caller's share of a set's connections (see `pool`).
    holder: StdMutex<Option<mcpgraph_runtime::host::Owner>>,
}

impl Downstream {
    fn new(spec: ServerSpec, auth: oauth::SharedAuthorizer, declared: Declared) -> Self {
        let one_at_a_time =
            !declared.is_empty() && !matches!(spec.transport, TransportSpec::StreamableHttp { .. });
        Self {
            spec,
            auth,
            declared,
            turns: one_at_a_time.then(|| Arc::new(tokio::sync::Semaphore::new(1))),
            slot: Arc::default(),
            attempts: Arc::default(),
            last_used: StdMutex::new(std::time::Instant::now()),
            holder: StdMutex::new(None),
        }
    }
}

/// What `Downstream::slot` guards.
#[derive(Default)]
struct Slot {
    connection: Option<Arc<Connection>>,
    /// The last attempt's error (`None` when it succeeded).
    last_failure: Option<lifecycle::ConnectionError>,
}

/// The connections of callers that declared one set of capabilities to
/// one server (see `pool`).
type Pool = Vec<Arc<Downstream>>;

/// The pools of every server and set of capabilities.
type Declaring = StdMutex<HashMap<(String, Declared), Pool>>;

/// All downstream servers of a graph.
pub struct ClientManager {
    servers: HashMap<String, Arc<Downstream>>,
    /// Each server's circuit breaker (see `breaker`).
    breakers: HashMap<String, breaker::Breaker>,
    /// The connections of callers that declared capabilities, by server
    /// and capabilities, made on first use, closed when idle (see `pool`).
    declaring: Arc<Declaring>,
    /// Whether the task closing idle connections of `declaring` runs.
    sweeping: std::sync::OnceLock<()>,
    /// Connections are driven by the multi-threaded runtime, not by the
    /// worker that happened to make the first call.
    runtime: tokio::runtime::Handle,
    /// Connections being closed in the background (after a crash or a
    /// failed ping); `shutdown` waits for them.
    retiring: StdMutex<Vec<tokio::task::JoinHandle<()>>>,
    /// Cancelled by `shutdown`: retiring connections close at once, and
    /// connection attempts give up their handshake.
    closing: tokio_util::sync::CancellationToken,
    /// Every child process started and not yet reaped, for `shutdown`.
    children: Arc<stdio::Children>,
    /// The lock the graph was built against, if any (`Graph::LOCK`).
    lock: Option<drift::LockedTools>,
    /// Calls whose server asked a 2026-07-28 caller a question mid-call,
    /// waiting for the caller's retry.
    parking: parking::Parking,
    /// `--strict-lock`: calls to a tool that changed since the lock, or
    /// that could not be compared with it, fail.
    strict_lock: std::sync::atomic::AtomicBool,
}

impl ClientManager {
    /// A manager for `specs`; connects nothing yet.
    pub fn new(specs: Vec<ServerSpec>, runtime: tokio::runtime::Handle) -> Self {
        let breakers = specs
            .iter()
            .map(|spec| (spec.name.clone(), breaker::Breaker::default()))
            .collect();
        let servers = specs
            .into_iter()
            .map(|spec| {
                (
                    spec.name.clone(),
                    Arc::new(Downstream::new(
                        spec,
                        Default::default(),
                        Declared::default(),
                    )),
                )
            })
            .collect();
        Self {
            servers,
            breakers,
            declaring: Arc::default(),
            sweeping: std::sync::OnceLock::new(),
            runtime,
            retiring: StdMutex::new(Vec::new()),
            closing: tokio_util::sync::CancellationToken::new(),
            children: Arc::default(),
            lock: None,
            strict_lock: std::sync::atomic::AtomicBool::new(false),
            parking: parking::Parking::default(),
        }
    }

    /// Compares each server's tools with `lock` (the JSON `Graph::LOCK`
    /// holds) on the first call of each connection, and warns of drift.
    pub fn with_lock(mut self, lock: &str) -> Result<Self, mcpgraph_runtime::StartupError> {
        let lock = drift::LockedTools::parse(lock).map_err(|e| {
            mcpgraph_runtime::StartupError(format!("the embedded lock does not parse: {e}"))
        })?;
        self.lock = Some(lock);
        Ok(self)
    }

    /// With `strict`, a call to a tool that changed since the lock fails
    /// instead of reaching the server, and so does a call to a server whose
    /// tools cannot be listed to compare them (the next call lists again).
    pub fn set_strict_lock(&self, strict: bool) {
        self.strict_lock
            .store(strict, std::sync::atomic::Ordering::SeqCst);
    }

    /// Closes every connection and stops every child process by
    /// `deadline`, never waiting past it: connection attempts in progress
    /// are abandoned, children (all at once) get their stdin closed, then
    /// SIGTERM, and what is left of them is killed (SIGKILL to their
    /// process groups) half a second before the deadline and reaped.
    pub async fn shutdown(&self, deadline: std::time::Instant) {
        self.shutdown_paced(deadline, None).await;
    }

    /// [`shutdown`](Self::shutdown), the children still running at
    /// `term_at` sent SIGTERM then instead of after the grace their closed
    /// stdin gets (`call`: the result is out, the user waits for the exit).
    pub(crate) async fn shutdown_paced(
        &self,
        deadline: std::time::Instant,
        term_at: Option<std::time::Instant>,
    ) {
        let deadline = tokio::time::Instant::from_std(deadline);
        self.closing.cancel();
        self.parking.clear();
        let declaring: Vec<_> = match self.declaring.lock() {
            Ok(declaring) => declaring.values().flatten().cloned().collect(),
            Err(_) => Vec::new(),
        };
        for downstream in self.servers.values().chain(&declaring) {
            // An attempt in progress lets go of the slot at once now; a
            // call's check holds it for a ping at most.
            let Ok(mut slot) = tokio::time::timeout_at(deadline, downstream.slot.lock()).await
            else {
                continue;
            };
            if let Some(connection) = slot.connection.take() {
                // Its transport closes the child's stdin and stops it.
                connection.service.cancellation_token().cancel();
            }
        }
        let children = self.children.live();
        for child in &children {
            child.request_stop();
        }
        let all_exited = || futures::future::join_all(children.iter().map(|c| c.exited()));
        let kill_at = deadline
            .checked_sub(KILL_MARGIN)
            .unwrap_or(deadline)
            .max(tokio::time::Instant::now());
        if let Some(term_at) = term_at.map(tokio::time::Instant::from_std)
            && tokio::time::timeout_at(term_at.min(kill_at), all_exited())
                .await
                .is_err()
        {
            for child in &children {
                child.terminate();
            }
        }
        if tokio::time::timeout_at(kill_at, all_exited())
            .await
            .is_err()
        {
            for child in &children {
                child.kill();
            }
            let _ = tokio::time::timeout_at(deadline, all_exited()).await;
        }
        let retiring = match self.retiring.lock() {
            Ok(mut retiring) => std::mem::take(&mut *retiring),
            Err(_) => Vec::new(),
        };
        let _ = tokio::time::timeout_at(deadline, futures::future::join_all(retiring)).await;
    }
}

/// How long before shutdown's deadline the children still running are
/// killed, so that they are reaped by the deadline.
const KILL_MARGIN: std::time::Duration = std::time::Duration::from_millis(500);

impl std::fmt::Debug for ClientManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientManager")
            .field("servers", &self.servers.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// The [`Servers`](mcpgraph_runtime::Servers) of a graph: a [`ClientManager`]
/// for `specs`, comparing each server's tools with `lock` (the JSON
/// `Graph::LOCK` holds) when given. Must be called inside a tokio runtime,
/// which then drives the connections.
pub fn connect(
    specs: Vec<ServerSpec>,
    lock: Option<&'static str>,
) -> Result<Arc<dyn mcpgraph_runtime::Servers>, mcpgraph_runtime::StartupError> {
    let mut clients = ClientManager::new(specs, tokio::runtime::Handle::current());
    if let Some(lock) = lock {
        clients = clients.with_lock(lock)?;
    }
    Ok(Arc::new(clients))
}

impl mcpgraph_runtime::Servers for ClientManager {
    fn call<'a>(
        &'a self,
        server: &'a str,
        tool: &'a str,
        arguments: serde_json::Map<String, serde_json::Value>,
        caller: Option<&'a mcpgraph_runtime::Caller>,
    ) -> futures::future::BoxFuture<'a, Result<rmcp::model::CallToolResult, DownstreamError>> {
        ClientManager::call(self, server, tool, arguments, caller)
    }

    fn forget_parked(&self, states: &[Option<String>]) {
        ClientManager::forget_parked(self, states);
    }

    fn shutdown(
        &self,
        deadline: std::time::Instant,
        term_at: Option<std::time::Instant>,
    ) -> futures::future::BoxFuture<'_, ()> {
        Box::pin(self.shutdown_paced(deadline, term_at))
    }

    fn set_strict_lock(&self, strict: bool) {
        ClientManager::set_strict_lock(self, strict);
    }
}

#[doc(hidden)]
pub use mcpgraph_runtime::host::redact as __redact;
