//! One open connection to a downstream server: its health, the probe that
//! follows a call abandoned on it, and what its crashed process is
//! reported as.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use rmcp::model::{ClientRequest, PingRequest};
use rmcp::service::{RoleClient, RunningService, ServiceError};

use super::asking::{Calls, Questions};
use super::stdio;

/// How long a failed call waits for a crashed child's exit status and the
/// rest of its stderr before it reports the crash.
const CRASH_REPORT_WAIT: Duration = Duration::from_millis(1000);

/// One open connection to a downstream server.
pub(super) struct Connection {
    pub(super) service: RunningService<RoleClient, Questions>,
    /// The calls in flight whose callers the server may ask questions.
    pub(super) calls: Arc<Calls>,
    /// The child process of a stdio server.
    pub(super) process: Option<Arc<stdio::Process>>,
    /// [`HEALTHY`], [`SUSPECT`] (a call on it was abandoned mid-flight: it
    /// is being probed, and the next call pings it unless the probe cleared
    /// it) or [`FAILED`] (the probe got no answer: replace it at once).
    pub(super) health: AtomicU8,
    /// The locked tools its server changed (see `drift`), compared on the
    /// first call that needs it.
    pub(super) drift: super::drift::DriftCheck,
}

pub(super) const HEALTHY: u8 = 0;
pub(super) const SUSPECT: u8 = 1;
pub(super) const FAILED: u8 = 2;

/// A ping within `limit`; the reason when there is none. Any JSON-RPC
/// answer counts, an error included: a server of MCP 2026-07-28 has no
/// `ping` and answers it -32601 (method not found), which still shows it
/// reads and answers requests.
pub(super) async fn ping(connection: &Connection, limit: Duration) -> Result<(), PingError> {
    let ping = connection
        .service
        .peer()
        .send_request(ClientRequest::PingRequest(PingRequest {
            method: Default::default(),
            extensions: Default::default(),
        }));
    match tokio::time::timeout(limit, ping).await {
        Ok(Ok(_) | Err(ServiceError::McpError(_))) => Ok(()),
        Ok(Err(e)) => Err(PingError::Failed(e)),
        Err(_) => Err(PingError::Unanswered(limit)),
    }
}

/// Why a connection failed its ping.
#[derive(Debug)]
pub(super) enum PingError {
    /// The request could not be sent, or its connection closed.
    Failed(ServiceError),
    /// No answer within the limit.
    Unanswered(Duration),
    /// The background probe after an abandoned call got no answer.
    ProbeUnanswered,
}

impl std::fmt::Display for PingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Failed(e) => e.fmt(f),
            Self::Unanswered(limit) => write!(f, "no answer within {} ms", limit.as_millis()),
            Self::ProbeUnanswered => f.write_str("the probe after it got no answer"),
        }
    }
}

impl Connection {
    /// Whether the connection is gone: closed, or its child retired
    /// (killed; its stdout may not have ended yet).
    pub(super) fn is_closed(&self) -> bool {
        self.service.is_closed()
            || self.service.peer().is_transport_closed()
            || self.process.as_ref().is_some_and(|p| p.retired().is_some())
    }
}

/// One call on a connection. Dropped before its answer arrived (timed out,
/// or its future abandoned), it marks the connection suspect and probes it
/// in the background at once, so that the next call usually finds the
/// verdict ready.
pub(super) struct InFlight {
    pub(super) connection: Arc<Connection>,
    pub(super) answered: bool,
    /// Where and within what the probe pings.
    pub(super) probe: (tokio::runtime::Handle, Duration),
}

impl InFlight {
    /// The call is over: answered, or (`false`) timed out.
    pub(super) fn answered(mut self, answered: bool) {
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
pub(super) async fn process_gone(process: &stdio::Process) -> bool {
    process.exit_status(CRASH_REPORT_WAIT).await.is_some()
}

/// "`cmd` exited (exit status: 3); what it wrote on stderr is in this
/// server's log" (or "its stderr was empty"), or why it was retired.
pub(super) async fn crash_report(process: &stdio::Process) -> String {
    if let Some(why) = process.retired() {
        return format!("`{}` {why}", process.program);
    }
    let status = match process.exit_status(CRASH_REPORT_WAIT).await {
        Some(status) => format!("exited ({status})"),
        None => "closed its stdout".to_owned(),
    };
    // What it wrote on stderr is in this server's log (forwarded, redacted),
    // never in the error: a caller is not to read a child's stderr, which
    // may quote its environment, paths or data of other calls.
    if !process.wrote_stderr() {
        format!("`{}` {status}; its stderr was empty", process.program)
    } else {
        format!(
            "`{}` {status}; what it wrote on stderr is in this server's log",
            process.program
        )
    }
}
