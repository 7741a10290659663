//! The calls an [`Engine`] is running: counted, so that a drain can wait
//! for them and a shutdown close what they used.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::Engine;

/// Counts running calls so shutdown can wait for them.
#[derive(Default)]
pub(super) struct InFlight {
    pub(super) count: AtomicUsize,
    pub(super) idle: tokio::sync::Notify,
}

/// Decrements the in-flight count when a call ends, however it ends.
pub(super) struct InFlightGuard(Arc<InFlight>);

impl InFlightGuard {
    pub(super) fn new(in_flight: &Arc<InFlight>) -> Self {
        in_flight.count.fetch_add(1, Ordering::SeqCst);
        Self(Arc::clone(in_flight))
    }
}

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        if self.0.count.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

impl Engine {
    /// Waits until no call is running, for at most `limit`; returns
    /// whether that happened in time. Calls still running then are stopped
    /// with an error (which their callers receive) and briefly waited for.
    pub async fn drain(&self, limit: std::time::Duration) -> bool {
        if self.wait_idle(limit).await {
            return true;
        }
        self.stop.cancel();
        self.wait_idle(std::time::Duration::from_secs(1)).await;
        false
    }

    async fn wait_idle(&self, limit: std::time::Duration) -> bool {
        let wait = async {
            loop {
                let idle = self.in_flight.idle.notified();
                tokio::pin!(idle);
                // Registered before the check, so a call ending in between
                // still wakes us.
                idle.as_mut().enable();
                if self.in_flight.count.load(Ordering::SeqCst) == 0 {
                    return;
                }
                idle.await;
            }
        };
        tokio::time::timeout(limit, wait).await.is_ok()
    }

    /// Closes downstream connections and stops their processes, within a
    /// few seconds (`servers::SHUTDOWN_LIMIT`) whatever they do.
    pub async fn shutdown(&self) {
        let deadline = std::time::Instant::now() + crate::servers::SHUTDOWN_LIMIT;
        self.shared.clients.shutdown(deadline, None).await;
    }

    /// [`shutdown`](Self::shutdown) once a one-shot call's result is out:
    /// downstream children get [`CALL_STDIN_GRACE`](crate::servers::CALL_STDIN_GRACE) after their
    /// stdin closes, then SIGTERM, and are killed within
    /// [`CALL_SHUTDOWN_LIMIT`](crate::servers::CALL_SHUTDOWN_LIMIT).
    #[doc(hidden)]
    pub async fn shutdown_soon(&self) {
        let now = std::time::Instant::now();
        self.shared
            .clients
            .shutdown(
                now + crate::servers::CALL_SHUTDOWN_LIMIT,
                Some(now + crate::servers::CALL_STDIN_GRACE),
            )
            .await;
    }
}
