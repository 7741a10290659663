//! The caps on calls in flight ([`CallCaps`]), for the whole server and for
//! one session, and the place an admitted call holds under them.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::ErrorData as McpError;

use super::metrics;

/// Caps on calls in flight: for the whole server and for one session
/// (`serve --max-in-flight`, `--max-in-flight-per-session`). A call over
/// either is refused at once with a JSON-RPC error; the others go on.
#[derive(Debug)]
pub struct CallCaps {
    per_server: usize,
    per_session: usize,
    running: AtomicUsize,
    /// Set by [`CallCaps::close`] at the first shutdown signal.
    closed: std::sync::atomic::AtomicBool,
}

/// Default of `--max-in-flight`.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 256;
/// Default of `--max-in-flight-per-session`.
pub const DEFAULT_MAX_IN_FLIGHT_PER_SESSION: usize = 64;

impl CallCaps {
    /// Caps of `per_server` and `per_session` calls.
    pub fn new(per_server: usize, per_session: usize) -> Self {
        Self {
            per_server: per_server.max(1),
            per_session: per_session.max(1),
            running: AtomicUsize::new(0),
            closed: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Refuses every call from now on (a drain: the calls running go on,
    /// no new one starts), with a JSON-RPC error that says to retry.
    pub fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
    }

    /// The calls running in the whole server.
    pub fn running(&self) -> usize {
        self.running.load(Ordering::SeqCst)
    }

    /// A place for one more call of the session counting its calls in
    /// `in_session`, or the cap that refuses it.
    pub(super) fn admit(
        self: &Arc<Self>,
        in_session: &Arc<AtomicUsize>,
    ) -> Result<Admitted, McpError> {
        let caps = self;
        if caps.closed.load(Ordering::SeqCst) {
            metrics::refused("draining");
            return Err(McpError::new(
                rmcp::model::ErrorCode(-32000),
                "server shutting down: no new calls are accepted; retry on a new connection",
                None,
            ));
        }
        let server = caps.running.fetch_add(1, Ordering::SeqCst) + 1;
        let session = in_session.fetch_add(1, Ordering::SeqCst) + 1;
        let admitted = Admitted(Arc::clone(caps), Arc::clone(in_session));
        let (cap, limit, flag) = if server > caps.per_server {
            ("in_flight", caps.per_server, "--max-in-flight")
        } else if session > caps.per_session {
            (
                "in_flight_per_session",
                caps.per_session,
                "--max-in-flight-per-session",
            )
        } else {
            return Ok(admitted);
        };
        metrics::refused(cap);
        Err(McpError::new(
            rmcp::model::ErrorCode(-32000),
            format!(
                "server busy: {limit} calls already in flight{} ({flag}); retry later",
                if cap == "in_flight" {
                    ""
                } else {
                    " in this session"
                }
            ),
            None,
        ))
    }
}

/// One admitted call: releases its places when dropped.
pub(super) struct Admitted(Arc<CallCaps>, Arc<AtomicUsize>);

impl Drop for Admitted {
    fn drop(&mut self) {
        self.0.running.fetch_sub(1, Ordering::SeqCst);
        self.1.fetch_sub(1, Ordering::SeqCst);
    }
}
