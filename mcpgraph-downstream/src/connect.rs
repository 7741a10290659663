//! Connecting to a downstream server: starting its process or opening its
//! HTTP session, with `${VAR}` expanded, and completing the MCP handshake
//! within its `timeoutMs`. The HTTP transports' side is `connect/http.rs`
//! (the `http-client` feature).

mod failure;
#[cfg(feature = "http-client")]
mod http;

pub(crate) use failure::{ConnectFailure, HandshakeCut};

use std::sync::Arc;
use std::sync::atomic::AtomicU8;

use rmcp::model::ProtocolVersion;
use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
use tokio_util::sync::CancellationToken;

use super::asking::{Calls, Questions};
use super::connection::{Connection, HEALTHY, crash_report, process_gone};
use super::spec::{ServerSpec, TransportSpec};
use super::stdio;
use mcpgraph_runtime::host::Declared;
use mcpgraph_secrets::expand_env;

/// Why a connection attempt failed, with the child process it started (if
/// any) still to be stopped: the caller stops it in the background, so the
/// failing call does not also wait out the child's shutdown grace.
pub(super) struct ConnectError {
    pub(super) failure: ConnectFailure,
    pub(super) process: Option<Arc<stdio::Process>>,
}

impl<E> From<E> for ConnectError
where
    ConnectFailure: From<E>,
{
    fn from(e: E) -> Self {
        Self {
            failure: e.into(),
            process: None,
        }
    }
}

/// Connects to `spec`'s server and completes the MCP handshake within the
/// server's `timeoutMs`; gives up at once when `closing` is cancelled
/// (shutdown), returning the child it started for the caller to stop.
pub(super) async fn connect(
    spec: &ServerSpec,
    auth: &super::oauth::SharedAuthorizer,
    declared: Declared,
    closing: &CancellationToken,
    children: &stdio::Children,
) -> Result<Connection, ConnectError> {
    let timeout = spec.timeout();
    // Without `http-client` no server has tokens to share.
    let _ = auth;
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
            let program = expand_env(command)?;
            let mut cmd = tokio::process::Command::new(&program);
            for arg in args {
                cmd.arg(expand_env(arg)?);
            }
            if let Some(cwd) = cwd {
                cmd.current_dir(expand_env(cwd)?);
            }
            // Not our whole environment: the allow-list, `inheritEnv`, `env`.
            cmd.env_clear();
            cmd.envs(super::child_env::inherited(&spec.name, inherit_env));
            for (key, value) in env {
                cmd.env(key, expand_env(value)?);
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
                Ok(Err(error)) => {
                    let failure = if process_gone(&process).await {
                        ConnectFailure::Crashed(crash_report(&process).await)
                    } else {
                        let error = Box::new(error);
                        ConnectFailure::Handshake { program, error }
                    };
                    return Err(ConnectError {
                        failure,
                        process: Some(process),
                    });
                }
                Err(why) => {
                    return Err(ConnectError {
                        failure: ConnectFailure::Cut { program, why },
                        process: Some(process),
                    });
                }
            }
        }
        #[cfg(feature = "http-client")]
        TransportSpec::StreamableHttp { url, headers } | TransportSpec::Sse { url, headers } => {
            let sse = matches!(spec.transport, TransportSpec::Sse { .. });
            let dial = http::Dial::new(spec, auth, url, headers, timeout, closing).await?;
            (dial.connect(sse, handler).await?, None)
        }
        #[cfg(not(feature = "http-client"))]
        TransportSpec::StreamableHttp { .. } => {
            let why = crate::features::missing_http_client("http");
            return Err(ConnectFailure::Http(why.into()).into());
        }
        #[cfg(not(feature = "http-client"))]
        TransportSpec::Sse { .. } => {
            let why = crate::features::missing_http_client("sse");
            return Err(ConnectFailure::Http(why.into()).into());
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

/// How a stdio or streamable HTTP connection opens: `server/discover`
/// first, which a server of MCP 2026-07-28 answers (every request then
/// carries its version and capabilities, with no session); a server that
/// does not know it (or does not answer within 10 s) gets `initialize`, in
/// the newest version before 2026-07-28 (legacy SSE always does).
pub(super) fn era() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::LATEST],
        legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
    }
}

/// `handshake` within `limit` (the server's `timeoutMs`) and until
/// shutdown begins; why not, otherwise.
pub(super) async fn within<T>(
    limit: std::time::Duration,
    closing: &CancellationToken,
    handshake: impl Future<Output = T>,
) -> Result<T, HandshakeCut> {
    tokio::select! {
        done = tokio::time::timeout(limit, handshake) => {
            done.map_err(|_| HandshakeCut::TimedOut(limit))
        }
        () = closing.cancelled() => Err(HandshakeCut::ShuttingDown),
    }
}
