//! A circuit breaker per downstream server: after [`THRESHOLD`]
//! consecutive availability failures (crashed, timed out, refused or
//! unreachable, HTTP 429/5xx) its calls fail at once, without connecting,
//! for [`COOL_DOWN`]; then one call goes through as a probe, and its
//! outcome closes the breaker or opens it for another cool-down. Opening
//! is logged and counted (`mcpgraph_downstream_circuit_open_total`).
//!
//! Failures that overlap count once: a failure counts only when its call
//! started after the last counted failure was seen. N calls that waited
//! on one connection attempt, or were all on one connection when its
//! process died, are one failure of the server, not N; a server that
//! fails call after call, each on a fresh start, trips the breaker. Any
//! answer (an `isError` result too) resets the count.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use mcpgraph_runtime::{Downstream, ErrorKind};

/// Consecutive (non-overlapping) availability failures that open the
/// breaker.
pub(crate) const THRESHOLD: u32 = 5;
/// How long an open breaker fails calls before it lets a probe through.
pub(crate) const COOL_DOWN: Duration = Duration::from_secs(30);

/// One server's breaker.
#[derive(Debug, Default)]
pub(crate) struct Breaker {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Counted failures since the last answer.
    failures: u32,
    /// When the last counted failure was seen.
    last_failure: Option<Instant>,
    /// While open: until when.
    open_until: Option<Instant>,
    /// A probe call is out (the breaker is half-open).
    probing: bool,
}

/// A call the breaker let through; [`Ticket::finish`] reports its outcome.
/// Dropped unfinished (the call was abandoned), a probe lets the next call
/// probe instead.
pub(crate) struct Ticket<'a> {
    breaker: &'a Breaker,
    started: Instant,
    probe: bool,
}

impl Breaker {
    /// Lets a call through, or says how long the breaker stays open.
    pub(crate) fn admit(&self) -> Result<Ticket<'_>, Duration> {
        let now = Instant::now();
        let mut state = self.lock();
        let probe = match state.open_until {
            None => false,
            Some(until) if now < until => return Err(until - now),
            Some(_) if state.probing => return Err(Duration::ZERO),
            Some(_) => {
                state.probing = true;
                true
            }
        };
        Ok(Ticket {
            breaker: self,
            started: now,
            probe,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The failures the breaker counts: the server's own. A caller's
/// cancellation (its call dropped unfinished, or ended as cancelled) and a
/// cap of this server (its parked calls' bound: kind `refused`, not
/// `downstream.refused`) say nothing of the server.
pub(crate) fn counts(kind: ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::Downstream(Downstream::Crashed | Downstream::TimedOut | Downstream::Refused)
    )
}

impl Ticket<'_> {
    /// Reports how the call ended: `None` for an answer, else its error's
    /// kind (kinds that say nothing of the server, such as a protocol
    /// error or a shutdown, leave the count as it is). Returns whether this
    /// opened the breaker.
    pub(crate) fn finish(mut self, server: &str, error: Option<ErrorKind>) -> bool {
        let mut state = self.breaker.lock();
        let probe = std::mem::replace(&mut self.probe, false);
        if probe {
            state.probing = false;
        }
        match error {
            None => {
                if state.open_until.is_some() {
                    tracing::warn!(
                        server,
                        "downstream server `{server}` answers again: its circuit breaker is closed"
                    );
                }
                *state = State::default();
                false
            }
            Some(kind) if counts(kind) => {
                let now = Instant::now();
                let overlapping = state.last_failure.is_some_and(|t| self.started < t);
                if !overlapping || probe {
                    state.failures += 1;
                    state.last_failure = Some(now);
                }
                let trip = probe || (state.open_until.is_none() && state.failures >= THRESHOLD);
                if trip {
                    state.open_until = Some(now + COOL_DOWN);
                    tracing::warn!(
                        server,
                        failures = state.failures,
                        "downstream server `{server}` failed {} times in a row: its circuit breaker is open, \
                         its calls fail at once for {} s (then one call probes it)",
                        state.failures,
                        COOL_DOWN.as_secs()
                    );
                    mcpgraph_runtime::host::circuit_open(server);
                }
                trip
            }
            Some(_) => false,
        }
    }
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        if self.probe {
            self.breaker.lock().probing = false;
        }
    }
}

/// The error of a call that the open circuit breaker of `server` stops
/// (for `left` more).
pub(super) fn open(server: &str, tool: &str, left: std::time::Duration) -> super::DownstreamError {
    let mut error = super::DownstreamError::new(
        mcpgraph_runtime::Downstream::Refused,
        format!(
            "downstream server `{server}` tool `{tool}` not called: the server failed {} times in a row, \
             and its circuit breaker fails its calls at once for {} s more (then one call probes it)",
            THRESHOLD,
            left.as_secs().max(1)
        ),
    );
    error.retry_after = Some(left);
    error
}

#[cfg(test)]
mod tests {
    use super::*;

    const CRASHED: Option<ErrorKind> = Some(ErrorKind::Downstream(Downstream::Crashed));

    #[test]
    fn opens_after_the_threshold_and_probes_after_the_cool_down() {
        let breaker = Breaker::default();
        for _ in 0..THRESHOLD - 1 {
            assert!(!breaker.admit().unwrap().finish("s", CRASHED));
        }
        // An answer resets the count.
        breaker.admit().unwrap().finish("s", None);
        for _ in 0..THRESHOLD - 1 {
            assert!(!breaker.admit().unwrap().finish("s", CRASHED));
        }
        // A tool error or a protocol error is not an availability failure.
        let tool_error = Some(ErrorKind::Downstream(Downstream::ToolError));
        assert!(!breaker.admit().unwrap().finish("s", tool_error));
        assert!(breaker.admit().unwrap().finish("s", CRASHED));
        let left = breaker.admit().err().expect("open");
        assert!(left > COOL_DOWN - Duration::from_secs(5), "{left:?}");
        // The cool-down is over: one probe, the others still fail.
        breaker.lock().open_until = Some(Instant::now());
        let probe = breaker.admit().expect("a probe");
        assert!(breaker.admit().is_err());
        // An abandoned probe lets the next call probe.
        drop(probe);
        let probe = breaker.admit().expect("another probe");
        assert!(probe.finish("s", CRASHED), "a failed probe opens it again");
        breaker.lock().open_until = Some(Instant::now());
        breaker.admit().expect("a probe").finish("s", None);
        assert!(breaker.admit().is_ok());
    }

    #[test]
    fn our_own_refusals_and_the_callers_cancellations_are_not_the_servers_failures() {
        let breaker = Breaker::default();
        // The parking of this server is full: a cap of ours, not a failure
        // of the downstream server.
        let full =
            crate::call::parking_full("downstream server `s` tool `t`", &"its parking is full");
        for _ in 0..THRESHOLD * 2 {
            assert!(!breaker.admit().unwrap().finish("s", Some(full.kind)));
        }
        // The caller cancels: its call is dropped unfinished, or ends with a
        // cancellation's kind.
        for _ in 0..THRESHOLD * 2 {
            drop(breaker.admit().unwrap());
            for cancelled in [
                ErrorKind::Cancelled,
                ErrorKind::Downstream(Downstream::Cancelled),
            ] {
                assert!(!breaker.admit().unwrap().finish("s", Some(cancelled)));
            }
        }
        assert_eq!(breaker.lock().failures, 0);
        assert!(breaker.admit().is_ok(), "the breaker stays closed");
    }

    #[test]
    fn overlapping_failures_count_once() {
        let breaker = Breaker::default();
        let tickets: Vec<_> = (0..20).map(|_| breaker.admit().unwrap()).collect();
        for ticket in tickets {
            assert!(!ticket.finish("s", CRASHED));
        }
        assert_eq!(breaker.lock().failures, 1);
    }
}
