//! Connections to the downstream MCP servers a graph calls.
//!
//! Each server is connected lazily, on the first call that needs it, and
//! that one connection is shared by every concurrent call. Settings are the
//! compiled-in ones unless `--mcp FILE` replaced them; `${VAR}` references
//! (command, args, cwd, env, url, headers) are expanded at connect time.
//! This module does not interpret results; `convert` does.
//!
//! Transports: stdio (`stdio.rs`: a child process whose stderr is forwarded
//! to ours and whose tail is kept), streamable HTTP (rmcp's client) and
//! legacy SSE (`sse.rs`), both over `http://` or `https://`
//! (`http_client.rs`). Failures stay with the call they hit:
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

use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientRequest, PingRequest,
};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::Value;
use tokio::sync::Mutex;

use crate::env_expand::expand;
use crate::error::StartupError;
use crate::meta::{ServerDef, TransportDef};

mod http_client;
mod sse;
pub(crate) mod stderr;
mod stdio;
mod streamable;
mod wire;

#[cfg_attr(not(feature = "otel"), allow(unused_imports))]
pub use http_client::install_crypto_provider;

/// Default for one downstream call (FORMAT.md: `timeoutMs`).
const DEFAULT_TIMEOUT_MS: u64 = 60_000;

/// Default for the ping that probes a suspect connection (FORMAT.md:
/// `pingTimeoutMs`).
const DEFAULT_PING_TIMEOUT_MS: u64 = 1_000;

/// Variables of ours that downstream servers do not inherit: secrets of
/// the graph server itself, such as the bearer token `--auth-token-env`
/// names. Every other variable is inherited, as the format says.
static WITHHELD: StdMutex<Vec<String>> = StdMutex::new(Vec::new());

/// Keeps the environment variable `var` from the downstream servers
/// started from now on (an explicit `env` entry still sets it).
pub fn withhold_from_children(var: &str) {
    let mut withheld = WITHHELD.lock().unwrap_or_else(|e| e.into_inner());
    if !withheld.iter().any(|v| v == var) {
        withheld.push(var.to_owned());
    }
}

/// A downstream server's settings, owned, as compiled in or overridden.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerSpec {
    /// Key under `mcpServers`.
    pub name: String,
    /// How to reach it.
    pub transport: TransportSpec,
    /// Per-call timeout.
    pub timeout_ms: Option<u64>,
    /// Deadline of the ping that probes a suspect connection.
    pub ping_timeout_ms: Option<u64>,
}

/// How to reach a downstream server.
#[derive(Clone, Debug, PartialEq)]
pub enum TransportSpec {
    /// Child process over stdio.
    Stdio {
        /// Program.
        command: String,
        /// Arguments.
        args: Vec<String>,
        /// Working directory.
        cwd: Option<String>,
        /// Added environment.
        env: Vec<(String, String)>,
    },
    /// Streamable HTTP.
    StreamableHttp {
        /// URL.
        url: String,
        /// Headers.
        headers: Vec<(String, String)>,
    },
    /// Legacy SSE.
    Sse {
        /// URL.
        url: String,
        /// Headers.
        headers: Vec<(String, String)>,
    },
}

impl From<&ServerDef> for ServerSpec {
    fn from(def: &ServerDef) -> Self {
        let pairs = |items: &[(&str, &str)]| {
            items
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect()
        };
        let transport = match def.transport {
            TransportDef::Stdio {
                command,
                args,
                cwd,
                env,
            } => TransportSpec::Stdio {
                command: command.to_owned(),
                args: args.iter().map(|a| (*a).to_owned()).collect(),
                cwd: cwd.map(str::to_owned),
                env: pairs(env),
            },
            TransportDef::StreamableHttp { url, headers } => TransportSpec::StreamableHttp {
                url: url.to_owned(),
                headers: pairs(headers),
            },
            TransportDef::Sse { url, headers } => TransportSpec::Sse {
                url: url.to_owned(),
                headers: pairs(headers),
            },
        };
        Self {
            name: def.name.to_owned(),
            transport,
            timeout_ms: def.timeout_ms,
            ping_timeout_ms: def.ping_timeout_ms,
        }
    }
}

/// Reads a `--mcp` file: `{"mcpServers": {name: {...}}}` in the usual
/// shape of MCP client configurations.
pub fn parse_override(text: &str) -> Result<Vec<ServerSpec>, StartupError> {
    let err = |m: String| StartupError(format!("--mcp file: {m}"));
    let doc: Value = serde_json::from_str(text).map_err(|e| err(e.to_string()))?;
    let servers = doc
        .get("mcpServers")
        .and_then(Value::as_object)
        .ok_or_else(|| err("expected an object with an `mcpServers` object".into()))?;
    servers
        .iter()
        .map(|(name, entry)| {
            spec_from_json(name, entry).map_err(|m| err(format!("server `{name}`: {m}")))
        })
        .collect()
}

fn spec_from_json(name: &str, entry: &Value) -> Result<ServerSpec, String> {
    let obj = entry.as_object().ok_or("expected an object")?;
    let string = |key: &str| -> Result<Option<String>, String> {
        match obj.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("`{key}` must be a string")),
        }
    };
    let map = |key: &str| -> Result<Vec<(String, String)>, String> {
        match obj.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Object(m)) => m
                .iter()
                .map(|(k, v)| match v {
                    Value::String(s) => Ok((k.clone(), s.clone())),
                    _ => Err(format!("`{key}.{k}` must be a string")),
                })
                .collect(),
            Some(_) => Err(format!("`{key}` must be an object of strings")),
        }
    };
    let positive = |key: &str| -> Result<Option<u64>, String> {
        match obj.get(key) {
            None => Ok(None),
            Some(v) => v
                .as_u64()
                .filter(|&n| n > 0)
                .map(Some)
                .ok_or_else(|| format!("`{key}` must be a positive integer")),
        }
    };
    let timeout_ms = positive("timeoutMs")?;
    let ping_timeout_ms = positive("pingTimeoutMs")?;
    let kind = string("type")?.unwrap_or_else(|| "stdio".to_owned());
    let transport = match kind.as_str() {
        "stdio" => TransportSpec::Stdio {
            command: string("command")?.ok_or("`command` is required for a stdio server")?,
            args: match obj.get("args") {
                None => Vec::new(),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|a| {
                        a.as_str()
                            .map(str::to_owned)
                            .ok_or("`args` must be strings")
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err("`args` must be an array of strings".into()),
            },
            cwd: string("cwd")?,
            env: map("env")?,
        },
        "streamableHttp" | "http" | "streamable-http" => TransportSpec::StreamableHttp {
            url: string("url")?.ok_or("`url` is required")?,
            headers: map("headers")?,
        },
        "sse" => TransportSpec::Sse {
            url: string("url")?.ok_or("`url` is required")?,
            headers: map("headers")?,
        },
        other => {
            return Err(format!(
                "unknown `type` `{other}` (expected stdio, sse, streamableHttp, http or streamable-http)"
            ));
        }
    };
    Ok(ServerSpec {
        name: name.to_owned(),
        transport,
        timeout_ms,
        ping_timeout_ms,
    })
}

/// How long a failed call waits for a crashed child's exit status and the
/// rest of its stderr before it reports the crash.
const CRASH_REPORT_WAIT: Duration = Duration::from_millis(1000);

/// One open connection to a downstream server.
struct Connection {
    service: RunningService<RoleClient, ()>,
    /// The child process of a stdio server.
    process: Option<Arc<stdio::Process>>,
    /// [`HEALTHY`], [`SUSPECT`] (a call on it was abandoned mid-flight: it
    /// is being probed, and the next call pings it unless the probe cleared
    /// it) or [`FAILED`] (the probe got no answer: replace it at once).
    health: AtomicU8,
}

const HEALTHY: u8 = 0;
const SUSPECT: u8 = 1;
const FAILED: u8 = 2;

/// A ping within `limit`; the reason when there is none.
async fn ping(connection: &Connection, limit: Duration) -> Result<(), String> {
    let ping = connection
        .service
        .peer()
        .send_request(ClientRequest::PingRequest(PingRequest {
            method: Default::default(),
            extensions: Default::default(),
        }));
    match tokio::time::timeout(limit, ping).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err(format!("no answer within {} ms", limit.as_millis())),
    }
}

impl Connection {
    fn is_closed(&self) -> bool {
        self.service.is_closed() || self.service.peer().is_transport_closed()
    }
}

/// One downstream server and its connection, if one is open.
struct Downstream {
    spec: ServerSpec,
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
}

/// What `Downstream::slot` guards.
#[derive(Default)]
struct Slot {
    connection: Option<Arc<Connection>>,
    /// The last attempt's error (`None` when it succeeded).
    last_failure: Option<String>,
}

/// All downstream servers of a graph.
pub struct ClientManager {
    servers: HashMap<String, Downstream>,
    /// Connections are driven by the multi-threaded runtime, not by the
    /// worker that happened to make the first call.
    runtime: tokio::runtime::Handle,
    /// Connections being closed in the background (after a crash or a
    /// failed ping); `shutdown` waits for them.
    retiring: StdMutex<Vec<tokio::task::JoinHandle<()>>>,
    /// Cancelled by `shutdown`: retiring connections close at once.
    closing: tokio_util::sync::CancellationToken,
}

impl ClientManager {
    /// A manager for `specs`; connects nothing yet.
    pub fn new(specs: Vec<ServerSpec>, runtime: tokio::runtime::Handle) -> Self {
        let servers = specs
            .into_iter()
            .map(|spec| {
                (
                    spec.name.clone(),
                    Downstream {
                        spec,
                        slot: Arc::default(),
                        attempts: Arc::default(),
                    },
                )
            })
            .collect();
        Self {
            servers,
            runtime,
            retiring: StdMutex::new(Vec::new()),
            closing: tokio_util::sync::CancellationToken::new(),
        }
    }

    /// Calls `tool` on `server`, connecting first if needed. The error
    /// names the server and tool.
    pub async fn call(
        &self,
        server: &str,
        tool: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Result<CallToolResult, String> {
        let Some(downstream) = self.servers.get(server) else {
            return Err(format!("no downstream server `{server}` is configured"));
        };
        let timeout = downstream.timeout();
        let connection = self.connection(downstream).await?;
        let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
        let what = format!("downstream server `{server}` tool `{tool}`");
        // Dropping this future (the graph's time limit, a cancelled call,
        // shutdown) sends `notifications/cancelled` downstream (rmcp's
        // call_tool_once), and the guard marks the connection suspect.
        let in_flight = InFlight {
            connection: Arc::clone(&connection),
            answered: false,
            probe: (self.runtime.clone(), downstream.ping_timeout()),
        };
        let outcome =
            tokio::time::timeout(timeout, connection.service.peer().call_tool_once(params)).await;
        in_flight.answered(outcome.is_ok());
        match outcome {
            Err(_) => Err(format!(
                "{what} did not answer within {} ms (the server's timeoutMs)",
                timeout.as_millis()
            )),
            Ok(Ok(CallToolResponse::Complete(result))) => Ok(result),
            Ok(Ok(_)) => Err(format!(
                "{what} asked for input or started a task, which graphs do not support"
            )),
            Ok(Err(ServiceError::McpError(e))) => {
                Err(format!("{what} failed: {} (error {})", e.message, e.code.0))
            }
            Ok(Err(e)) => Err(match &connection.process {
                Some(process) if connection.is_closed() || process_gone(process).await => {
                    format!("{what} failed: {}", crash_report(process).await)
                }
                _ => format!("{what} failed: {e}"),
            }),
        }
    }

    /// The open connection to `downstream`, after replacing one that
    /// closed (a crash) or that does not answer a ping after a call on it
    /// was abandoned.
    async fn connection(&self, downstream: &Downstream) -> Result<Arc<Connection>, String> {
        let server = downstream.spec.name.as_str();
        let attempts_before = downstream.attempts.load(Ordering::SeqCst);
        let mut slot = Arc::clone(&downstream.slot).lock_owned().await;
        if let Some(connection) = slot.connection.as_ref() {
            if connection.is_closed() {
                if let Some(process) = &connection.process {
                    tracing::warn!(
                        server,
                        "downstream server `{server}` {}; restarting it",
                        crash_report(process).await
                    );
                } else {
                    tracing::warn!(server, "the connection to `{server}` closed; reconnecting");
                }
                self.retire(slot.connection.take());
            } else if connection.health.load(Ordering::SeqCst) != HEALTHY {
                // Failed its background probe, or still suspect: a ping of
                // our own decides.
                let outcome = match connection.health.load(Ordering::SeqCst) {
                    FAILED => Err("the probe after it got no answer".to_owned()),
                    _ => ping(connection, downstream.ping_timeout()).await,
                };
                match outcome {
                    Ok(()) => connection.health.store(HEALTHY, Ordering::SeqCst),
                    Err(why) => {
                        tracing::warn!(
                            server,
                            "downstream server `{server}` left a call unanswered and then failed a ping ({why}); \
                             new calls use a new connection"
                        );
                        self.retire(slot.connection.take());
                    }
                }
            }
        }
        if let Some(connection) = slot.connection.as_ref() {
            return Ok(Arc::clone(connection));
        }
        if downstream.attempts.load(Ordering::SeqCst) != attempts_before {
            // The last attempt, made while this call waited for the slot,
            // failed (had it succeeded, the slot would hold its connection
            // or a retired one would have cleared the error).
            if let Some(error) = slot.last_failure.clone() {
                return Err(error);
            }
        }
        // The attempt runs as a task of its own, holding the slot: if this
        // call is cancelled meanwhile, the attempt still completes and its
        // connection waits in the slot for the next call.
        if self.closing.is_cancelled() {
            return Err(format!(
                "not connecting to `{server}`: the server is shutting down"
            ));
        }
        let spec = downstream.spec.clone();
        let attempts = Arc::clone(&downstream.attempts);
        let (result_tx, result) = tokio::sync::oneshot::channel();
        let attempt = self.runtime.spawn(async move {
            let server = spec.name.as_str();
            // Not raced with shutdown: dropping a handshake midway would
            // leave its child to a drop instead of a stop. Shutdown waits
            // for the attempt (bounded by `timeoutMs`) and then stops what
            // it connected.
            let (connected, failed_process) = match connect(&spec).await {
                Ok(connection) => (Ok(Arc::new(connection)), None),
                Err(ConnectError { message, process }) => (
                    Err(format!(
                        "cannot start downstream server `{server}`: {message}"
                    )),
                    process,
                ),
            };
            slot.last_failure = connected.as_ref().err().cloned();
            slot.connection = connected.as_ref().ok().cloned();
            attempts.fetch_add(1, Ordering::SeqCst);
            drop(slot);
            let _ = result_tx.send(connected);
            // A failed attempt's child is stopped after the callers heard.
            if let Some(process) = failed_process {
                process.stop().await;
            }
        });
        self.track_retiring(attempt);
        result
            .await
            .unwrap_or_else(|_| Err(format!("connecting to `{server}`: the attempt stopped")))
    }

    /// Closes `connection` in the background once the calls still running
    /// on it have ended (each is bounded by its own limits), so a server
    /// that is busy but healthy costs none of them; a stdio server's
    /// process group is then stopped.
    fn retire(&self, connection: Option<Arc<Connection>>) {
        let Some(connection) = connection else {
            return;
        };
        let closing = self.closing.clone();
        let task = self.runtime.spawn(async move {
            // Each running call holds a clone; this task holds the last.
            while Arc::strong_count(&connection) > 1
                && !connection.is_closed()
                && !closing.is_cancelled()
            {
                tokio::time::sleep(RETIRE_POLL).await;
            }
            connection.service.cancellation_token().cancel();
            if let Some(process) = &connection.process {
                process.stop().await;
            }
        });
        self.track_retiring(task);
    }

    /// Remembers `task` so that `shutdown` waits for it.
    fn track_retiring(&self, task: tokio::task::JoinHandle<()>) {
        if let Ok(mut retiring) = self.retiring.lock() {
            retiring.retain(|t| !t.is_finished());
            retiring.push(task);
        }
    }

    /// Closes every open connection, stopping child processes (stdin
    /// closed, then SIGTERM, then SIGKILL to their process groups), and
    /// waits for them.
    pub async fn shutdown(&self) {
        self.closing.cancel();
        let mut closing = Vec::new();
        for downstream in self.servers.values() {
            if let Some(connection) = downstream.slot.lock().await.connection.take() {
                connection.service.cancellation_token().cancel();
                if let Some(process) = &connection.process {
                    process.request_stop();
                }
                closing.push(connection);
            }
        }
        for connection in closing {
            if let Some(process) = &connection.process {
                process.stop().await;
            }
        }
        let retiring = match self.retiring.lock() {
            Ok(mut retiring) => std::mem::take(&mut *retiring),
            Err(_) => Vec::new(),
        };
        for task in retiring {
            let _ = task.await;
        }
    }
}

impl Downstream {
    fn timeout(&self) -> Duration {
        Duration::from_millis(self.spec.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS))
    }

    fn ping_timeout(&self) -> Duration {
        Duration::from_millis(self.spec.ping_timeout_ms.unwrap_or(DEFAULT_PING_TIMEOUT_MS))
    }
}

/// How often a retiring connection checks whether its calls have ended.
const RETIRE_POLL: Duration = Duration::from_millis(20);

/// One call on a connection. Dropped before its answer arrived (timed out,
/// or its future abandoned), it marks the connection suspect and probes it
/// in the background at once, so that the next call usually finds the
/// verdict ready.
struct InFlight {
    connection: Arc<Connection>,
    answered: bool,
    /// Where and within what the probe pings.
    probe: (tokio::runtime::Handle, Duration),
}

impl InFlight {
    /// The call is over: answered, or (`false`) timed out.
    fn answered(mut self, answered: bool) {
        self.answered = answered;
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if self.answered || self.connection.health.swap(SUSPECT, Ordering::SeqCst) != HEALTHY {
            return;
        }
        let connection = Arc::clone(&self.connection);
        let (runtime, limit) = self.probe.clone();
        runtime.spawn(async move {
            let verdict = match ping(&connection, limit).await {
                Ok(()) => HEALTHY,
                Err(_) => FAILED,
            };
            let _ = connection.health.compare_exchange(
                SUSPECT,
                verdict,
                Ordering::SeqCst,
                Ordering::SeqCst,
            );
        });
    }
}

/// Whether the child has exited (waiting briefly: a failed call is often
/// seen before the exit).
async fn process_gone(process: &stdio::Process) -> bool {
    process.exit_status(CRASH_REPORT_WAIT).await.is_some()
}

/// "`cmd` exited with exit status: 3; its stderr ended with: ...".
async fn crash_report(process: &stdio::Process) -> String {
    let status = match process.exit_status(CRASH_REPORT_WAIT).await {
        Some(status) => format!("exited ({status})"),
        None => "closed its stdout".to_owned(),
    };
    let tail = process.stderr_tail();
    let tail = tail.lines().rev().take(10).collect::<Vec<_>>();
    let tail = tail.into_iter().rev().collect::<Vec<_>>().join("\n");
    if tail.is_empty() {
        format!("`{}` {status}; its stderr was empty", process.program)
    } else {
        format!(
            "`{}` {status}; its stderr ended with:\n{tail}",
            process.program
        )
    }
}

/// Why a connection attempt failed, with the child process it started (if
/// any) still to be stopped: the caller stops it in the background, so the
/// failing call does not also wait out the child's shutdown grace.
struct ConnectError {
    message: String,
    process: Option<Arc<stdio::Process>>,
}

impl From<String> for ConnectError {
    fn from(message: String) -> Self {
        Self {
            message,
            process: None,
        }
    }
}

/// Connects to `spec`'s server and completes the MCP handshake within the
/// server's `timeoutMs`.
async fn connect(spec: &ServerSpec) -> Result<Connection, ConnectError> {
    let timeout = Duration::from_millis(spec.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS));
    let handshake_timeout = || {
        format!(
            "did not complete the MCP handshake within {} ms (the server's timeoutMs)",
            timeout.as_millis()
        )
    };
    let (service, process) = match &spec.transport {
        TransportSpec::Stdio {
            command,
            args,
            cwd,
            env,
        } => {
            let program = expand(command)?;
            let mut cmd = tokio::process::Command::new(&program);
            for arg in args {
                cmd.arg(expand(arg)?);
            }
            if let Some(cwd) = cwd {
                cmd.current_dir(expand(cwd)?);
            }
            for var in WITHHELD.lock().unwrap_or_else(|e| e.into_inner()).iter() {
                cmd.env_remove(var);
            }
            for (key, value) in env {
                cmd.env(key, expand(value)?);
            }
            let (transport, process) = stdio::spawn(&spec.name, program.clone(), cmd)?;
            match tokio::time::timeout(timeout, ().serve(transport)).await {
                Ok(Ok(service)) => (service, Some(process)),
                Ok(Err(e)) => {
                    let message = if process_gone(&process).await {
                        crash_report(&process).await
                    } else {
                        format!("`{program}` did not complete the MCP handshake: {e}")
                    };
                    return Err(ConnectError {
                        message,
                        process: Some(process),
                    });
                }
                Err(_) => {
                    return Err(ConnectError {
                        message: format!("`{program}` {}", handshake_timeout()),
                        process: Some(process),
                    });
                }
            }
        }
        TransportSpec::StreamableHttp { url, headers } => {
            let url = expand(url)?;
            let mut custom = HashMap::new();
            for (name, value) in header_map(headers)? {
                if let Some(name) = name {
                    custom.insert(name, value);
                }
            }
            let config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                .custom_headers(custom)
                .max_sse_event_size(wire::MAX_REPLY_BYTES)
                .reinit_on_expired_session(true);
            let transport = StreamableHttpClientTransport::with_client(
                streamable::GuardedClient::new(http_client::http_client()?, &spec.name),
                config,
            );
            match tokio::time::timeout(timeout, ().serve(transport)).await {
                Ok(Ok(service)) => (service, None),
                Ok(Err(e)) => return Err(format!("{url}: {}", initialize_error(&e)).into()),
                Err(_) => return Err(format!("{url} {}", handshake_timeout()).into()),
            }
        }
        TransportSpec::Sse { url, headers } => {
            let url = expand(url)?;
            let headers = header_map(headers)?;
            let connected = tokio::time::timeout(timeout, async {
                let transport = sse::connect(&spec.name, &url, headers).await?;
                ().serve(transport).await.map_err(|e| format!("{url}: {e}"))
            })
            .await;
            match connected {
                Ok(Ok(service)) => (service, None),
                Ok(Err(e)) => return Err(e.into()),
                Err(_) => return Err(format!("{url} {}", handshake_timeout()).into()),
            }
        }
    };
    Ok(Connection {
        service,
        process,
        health: AtomicU8::new(HEALTHY),
    })
}

/// Why the handshake with an HTTP server failed, down to the root cause
/// ("invalid peer certificate: UnknownIssuer", "Connection refused"),
/// without rmcp's internal type names.
fn initialize_error(error: &rmcp::service::ClientInitializeError) -> String {
    match error {
        rmcp::service::ClientInitializeError::TransportError { error, context } => {
            format!("{} ({context})", http_client::error_chain(&*error.error))
        }
        other => http_client::error_chain(other),
    }
}

/// The `headers` of an HTTP server, `${VAR}` expanded.
fn header_map(headers: &[(String, String)]) -> Result<HeaderMap, String> {
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        let value = expand(value)?;
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|e| format!("invalid header name `{name}`: {e}"))?;
        let value = HeaderValue::from_str(&value)
            .map_err(|e| format!("invalid value for header `{name}`: {e}"))?;
        map.append(name, value);
    }
    Ok(map)
}

impl std::fmt::Debug for ClientManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientManager")
            .field("servers", &self.servers.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// Builds the server list from the compiled-in definitions and an optional
/// override: each override entry replaces the server of the same name or
/// adds one.
pub fn effective_specs(defs: &[ServerDef], overrides: Vec<ServerSpec>) -> Vec<ServerSpec> {
    let mut specs: Vec<ServerSpec> = defs.iter().map(ServerSpec::from).collect();
    for spec in overrides {
        match specs.iter_mut().find(|s| s.name == spec.name) {
            Some(existing) => *existing = spec,
            None => specs.push(spec),
        }
    }
    specs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn override_replaces_and_adds() {
        let defs = [ServerDef {
            name: "fs",
            transport: TransportDef::Stdio {
                command: "npx",
                args: &["-y", "x"],
                cwd: None,
                env: &[],
            },
            timeout_ms: None,
            ping_timeout_ms: None,
        }];
        let over = parse_override(
            r#"{"mcpServers": {"fs": {"command": "node", "args": ["a.js"], "timeoutMs": 5, "pingTimeoutMs": 7},
                "web": {"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": {"A": "b"}}}}"#,
        )
        .unwrap();
        let specs = effective_specs(&defs, over);
        assert_eq!(specs.len(), 2);
        assert_eq!(
            specs[0].transport,
            TransportSpec::Stdio {
                command: "node".into(),
                args: vec!["a.js".into()],
                cwd: None,
                env: vec![]
            }
        );
        assert_eq!(specs[0].timeout_ms, Some(5));
        assert_eq!(specs[0].ping_timeout_ms, Some(7));
        assert!(matches!(
            specs[1].transport,
            TransportSpec::StreamableHttp { .. }
        ));
    }

    #[test]
    fn override_errors_name_the_server() {
        let err = parse_override(r#"{"mcpServers": {"x": {"type": "ftp"}}}"#).unwrap_err();
        assert!(
            err.0.contains("server `x`") && err.0.contains("ftp"),
            "{err}"
        );
        assert!(parse_override("[]").is_err());
    }
}
