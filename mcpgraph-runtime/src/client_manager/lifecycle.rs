//! The life of a connection: checked before each call (a crashed server
//! is restarted, a suspect one must answer a ping), connected by one
//! attempt at a time, probed after a call on it was abandoned, and retired
//! in the background once the calls still running on it end.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use rmcp::model::{ClientRequest, PingRequest};
use rmcp::service::{RoleClient, RunningService};

use super::connect::{ConnectError, connect};
use super::{ClientManager, Downstream, stdio};

/// How long a failed call waits for a crashed child's exit status and the
/// rest of its stderr before it reports the crash.
const CRASH_REPORT_WAIT: Duration = Duration::from_millis(1000);

/// One open connection to a downstream server.
pub(super) struct Connection {
    pub(super) service: RunningService<RoleClient, ()>,
    /// The child process of a stdio server.
    pub(super) process: Option<Arc<stdio::Process>>,
    /// [`HEALTHY`], [`SUSPECT`] (a call on it was abandoned mid-flight: it
    /// is being probed, and the next call pings it unless the probe cleared
    /// it) or [`FAILED`] (the probe got no answer: replace it at once).
    pub(super) health: AtomicU8,
}

pub(super) const HEALTHY: u8 = 0;
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
    pub(super) fn is_closed(&self) -> bool {
        self.service.is_closed() || self.service.peer().is_transport_closed()
    }
}

impl ClientManager {
    /// The open connection to `downstream`, after replacing one that
    /// closed (a crash) or that does not answer a ping after a call on it
    /// was abandoned.
    pub(super) async fn connection(
        &self,
        downstream: &Downstream,
    ) -> Result<Arc<Connection>, String> {
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
                    _ => ping(connection, downstream.spec.ping_timeout()).await,
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
}

/// How often a retiring connection checks whether its calls have ended.
const RETIRE_POLL: Duration = Duration::from_millis(20);

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

/// "`cmd` exited with exit status: 3; its stderr ended with: ...".
pub(super) async fn crash_report(process: &stdio::Process) -> String {
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
