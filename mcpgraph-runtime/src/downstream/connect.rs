//! Connecting to a downstream server: starting its process or opening its
//! HTTP session, with `${VAR}` expanded, and completing the MCP handshake
//! within its `timeoutMs`.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicU8;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use rmcp::ServiceExt;
use rmcp::model::ProtocolVersion;
use rmcp::service::{ClientInitializeError, ClientLifecycleMode, ClientServiceExt};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use tokio_util::sync::CancellationToken;

use super::asking::{Calls, Questions};
use super::connection::{Connection, HEALTHY, crash_report, process_gone};
use super::spec::{ServerSpec, TransportSpec};
use super::{http_client, sse, stdio, streamable, wire};
use crate::downstream::env_expand::expand;
use crate::questions::Declared;

/// Why a connection attempt failed, with the child process it started (if
/// any) still to be stopped: the caller stops it in the background, so the
/// failing call does not also wait out the child's shutdown grace.
pub(super) struct ConnectError {
    pub(super) message: String,
    pub(super) process: Option<Arc<stdio::Process>>,
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
/// server's `timeoutMs`; gives up at once when `closing` is cancelled
/// (shutdown), returning the child it started for the caller to stop.
pub(super) async fn connect(
    spec: &ServerSpec,
    declared: Declared,
    closing: &CancellationToken,
    children: &stdio::Children,
) -> Result<Connection, ConnectError> {
    let timeout = spec.timeout();
    let calls = Arc::new(Calls::default());
    let handler = || Questions::new(declared, Arc::clone(&calls));
    let (service, process) = match &spec.transport {
        TransportSpec::Stdio {
            command,
            args,
            cwd,
            env,
            inherit_env,
        } => {
            let program = expand(command)?;
            let mut cmd = tokio::process::Command::new(&program);
            for arg in args {
                cmd.arg(expand(arg)?);
            }
            if let Some(cwd) = cwd {
                cmd.current_dir(expand(cwd)?);
            }
            // Not our whole environment: the allow-list, `inheritEnv`, `env`.
            cmd.env_clear();
            cmd.envs(super::child_env::inherited(&spec.name, inherit_env));
            for (key, value) in env {
                cmd.env(key, expand(value)?);
            }
            let (transport, process) =
                stdio::spawn(&spec.name, program.clone(), cmd, timeout, children)?;
            match within(
                timeout,
                closing,
                handler().serve_with_lifecycle(transport, era()),
            )
            .await
            {
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
                Err(why) => {
                    return Err(ConnectError {
                        message: format!("`{program}` {why}"),
                        process: Some(process),
                    });
                }
            }
        }
        TransportSpec::StreamableHttp { url, headers } => {
            let url = expand(url)?;
            http_client::check_scheme(&url)?;
            let auth = authorizer(spec, &url).await?;
            let mut custom = HashMap::new();
            for (name, value) in header_map(headers)? {
                if let Some(name) = name {
                    custom.insert(name, value);
                }
            }
            let open = |lifecycle| {
                let config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                    .custom_headers(custom.clone())
                    .max_sse_event_size(wire::MAX_REPLY_BYTES)
                    .max_json_response_size(wire::MAX_REPLY_BYTES)
                    .reinit_on_expired_session(true);
                let client = http_client::http_client()?;
                let transport = StreamableHttpClientTransport::with_client(
                    streamable::GuardedClient::new(client, &spec.name, auth.clone()),
                    config,
                );
                Ok::<_, String>(handler().serve_with_lifecycle(transport, lifecycle))
            };
            let handshake = async {
                match open(era())?.await {
                    // A server that answers `server/discover` with something
                    // else than a discovery result (an empty one, say) is
                    // not of 2026-07-28: it gets `initialize`.
                    Err(ClientInitializeError::ExpectedInitResult(_)) => {
                        Ok::<_, String>(open(ClientLifecycleMode::Initialize)?.await)
                    }
                    other => Ok(other),
                }
            };
            match within(timeout, closing, handshake).await {
                Ok(Ok(Ok(service))) => {
                    learn_header_params(&service, &spec.name, timeout).await;
                    (service, None)
                }
                Ok(Ok(Err(e))) => return Err(format!("{url}: {}", initialize_error(&e)).into()),
                Ok(Err(e)) => return Err(e.into()),
                Err(why) => return Err(format!("{url} {why}").into()),
            }
        }
        TransportSpec::Sse { url, headers } => {
            let url = expand(url)?;
            http_client::check_scheme(&url)?;
            let headers = header_map(headers)?;
            let auth = authorizer(spec, &url).await?;
            let connected = within(timeout, closing, async {
                let transport = sse::connect(&spec.name, &url, headers, auth).await?;
                handler()
                    .serve(transport)
                    .await
                    .map_err(|e| format!("{url}: {e}"))
            })
            .await;
            match connected {
                Ok(Ok(service)) => (service, None),
                Ok(Err(e)) => return Err(e.into()),
                Err(why) => return Err(format!("{url} {why}").into()),
            }
        }
    };
    Ok(Connection {
        service,
        calls,
        process,
        health: AtomicU8::new(HEALTHY),
        drift: Default::default(),
    })
}

/// The OAuth tokens of `spec`'s server at `url`, if it has `auth`.
async fn authorizer(
    spec: &ServerSpec,
    url: &str,
) -> Result<Option<Arc<super::oauth::Authorizer>>, String> {
    match &spec.auth {
        None => Ok(None),
        Some(auth) => auth.authorizer(&spec.name, url).await.map(Some),
    }
}

/// How a stdio or streamable HTTP connection opens: `server/discover`
/// first, which a server of MCP 2026-07-28 answers (every request then
/// carries its version and capabilities, with no session); a server that
/// does not know it (or does not answer within 10 s) gets `initialize`, in
/// the newest version before 2026-07-28 (legacy SSE always does).
fn era() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::LATEST],
        legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
    }
}

/// A streamable HTTP server of MCP 2026-07-28 wants the arguments its tools
/// mark `x-mcp-header` repeated as `Mcp-Param-*` headers; rmcp's client
/// adds them for the tools it has seen listed on the connection, so the
/// tools are listed once now (within `limit`; a failure is logged, and the
/// calls go without those headers).
async fn learn_header_params(
    service: &rmcp::service::RunningService<rmcp::service::RoleClient, Questions>,
    server: &str,
    limit: std::time::Duration,
) {
    let modern = service
        .peer()
        .peer_info()
        .is_some_and(|info| info.protocol_version >= ProtocolVersion::STANDARD_HEADERS);
    if !modern {
        return;
    }
    if let Err(e) = super::listing::all_tools(service.peer(), limit).await {
        crate::secrets::warn_redacted!(
            server,
            "could not list the tools of `{server}` ({e}); calls to it go without Mcp-Param-* headers"
        );
    }
}

/// `handshake` within `limit` (the server's `timeoutMs`) and until
/// shutdown begins; why not, otherwise.
async fn within<T>(
    limit: std::time::Duration,
    closing: &CancellationToken,
    handshake: impl Future<Output = T>,
) -> Result<T, String> {
    tokio::select! {
        done = tokio::time::timeout(limit, handshake) => done.map_err(|_| {
            format!(
                "did not complete the MCP handshake within {} ms (the server's timeoutMs)",
                limit.as_millis()
            )
        }),
        () = closing.cancelled() => {
            Err("was abandoned in its MCP handshake: the server is shutting down".to_owned())
        }
    }
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
