//! Connecting to a downstream server: starting its process or opening its
//! HTTP session, with `${VAR}` expanded, and completing the MCP handshake
//! within its `timeoutMs`.

use std::collections::HashMap;
use std::sync::atomic::AtomicU8;
use std::sync::{Arc, Mutex as StdMutex};

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

use super::connection::{Connection, HEALTHY, crash_report, process_gone};
use super::spec::{ServerSpec, TransportSpec};
use super::{http_client, sse, stdio, streamable, wire};
use crate::downstream::env_expand::expand;

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
/// server's `timeoutMs`.
pub(super) async fn connect(spec: &ServerSpec) -> Result<Connection, ConnectError> {
    let timeout = spec.timeout();
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
            http_client::check_scheme(&url)?;
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
            http_client::check_scheme(&url)?;
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
        drift: Default::default(),
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
