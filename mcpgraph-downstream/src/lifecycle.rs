//! The life of a server's connection as the manager sees it: checked
//! before each call (a crashed server is restarted, a suspect connection
//! must answer a ping), connected by one attempt at a time, and retired in
//! the background once the calls still running on it end.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use super::connect::{ConnectError, ConnectFailure, connect};
use super::connection::{Connection, FAILED, HEALTHY, PingError, crash_report, ping};
use super::{ClientManager, Downstream};

impl ClientManager {
    /// The open connection to `downstream`, after replacing one that
    /// closed (a crash) or that does not answer a ping after a call on it
    /// was abandoned.
    pub(super) async fn connection(
        &self,
        downstream: &Downstream,
    ) -> Result<Arc<Connection>, ConnectionError> {
        let server = downstream.spec.name.as_str();
        let attempts_before = downstream.attempts.load(Ordering::SeqCst);
        let mut slot = Arc::clone(&downstream.slot).lock_owned().await;
        if let Some(connection) = slot.connection.as_ref() {
            if connection.is_closed() {
                if let Some(process) = &connection.process {
                    warn_redacted!(
                        server,
                        "downstream server `{server}` {}; restarting it",
                        crash_report(process).await
                    );
                } else {
                    warn_redacted!(server, "the connection to `{server}` closed; reconnecting");
                }
                self.retire(slot.connection.take());
            } else if connection.health.load(Ordering::SeqCst) != HEALTHY {
                // Failed its background probe, or still suspect: a ping of
                // our own decides.
                let outcome = match connection.health.load(Ordering::SeqCst) {
                    FAILED => Err(PingError::ProbeUnanswered),
                    _ => ping(connection, downstream.spec.ping_timeout()).await,
                };
                match outcome {
                    Ok(()) => connection.health.store(HEALTHY, Ordering::SeqCst),
                    Err(why) => {
                        warn_redacted!(
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
            return Err(ConnectionError::ShuttingDown {
                server: server.to_owned(),
            });
        }
        let spec = downstream.spec.clone();
        let auth = downstream.auth.clone();
        let declared = downstream.declared;
        let attempts = Arc::clone(&downstream.attempts);
        let (closing, children) = (self.closing.clone(), Arc::clone(&self.children));
        let (result_tx, result) = tokio::sync::oneshot::channel();
        let attempt = self.runtime.spawn(async move {
            let server = spec.name.as_str();
            // Shutdown makes `connect` give up its handshake at once (and
            // return the child it started, stopped below), so the slot is
            // free for shutdown to empty.
            let (connected, failed_process) =
                match connect(&spec, &auth, declared, &closing, &children).await {
                    Ok(connection) => (Ok(Arc::new(connection)), None),
                    Err(ConnectError { failure, process }) => (
                        Err(ConnectionError::Failed {
                            server: server.to_owned(),
                            why: Arc::new(failure),
                        }),
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
        result.await.unwrap_or_else(|_| {
            Err(ConnectionError::Stopped {
                server: server.to_owned(),
            })
        })
    }

    /// Closes `connection` in the background once the calls still running
    /// on it have ended (each is bounded by its own limits), so a server
    /// that is busy but healthy costs none of them; a stdio server's
    /// process group is then stopped.
    fn retire(&self, connection: Option<Arc<Connection>>) {
        let Some(connection) = connection else {
            return;
        };
        mcpgraph_runtime::host::restart();
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
    pub(super) fn track_retiring(&self, task: tokio::task::JoinHandle<()>) {
        if let Ok(mut retiring) = self.retiring.lock() {
            retiring.retain(|t| !t.is_finished());
            retiring.push(task);
        }
    }
}

/// Why there is no connection to a server.
#[derive(Clone, Debug)]
pub(crate) enum ConnectionError {
    /// The attempt to connect to `server` failed; the calls that waited
    /// for it share its failure.
    Failed {
        server: String,
        why: Arc<ConnectFailure>,
    },
    /// Shutdown has begun: no new connection is made.
    ShuttingDown { server: String },
    /// The task of the attempt ended without a result.
    Stopped { server: String },
}

impl std::fmt::Display for ConnectionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Failed { server, why } => {
                write!(f, "cannot start downstream server `{server}`: {why}")
            }
            Self::ShuttingDown { server } => write!(
                f,
                "not connecting to `{server}`: the server is shutting down"
            ),
            Self::Stopped { server } => write!(f, "connecting to `{server}`: the attempt stopped"),
        }
    }
}

impl std::error::Error for ConnectionError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Failed { why, .. } => Some(&**why),
            Self::ShuttingDown { .. } | Self::Stopped { .. } => None,
        }
    }
}

/// How often a retiring connection checks whether its calls have ended.
const RETIRE_POLL: Duration = Duration::from_millis(20);
