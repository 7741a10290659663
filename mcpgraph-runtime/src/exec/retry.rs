//! A node's `retry`, `timeoutMs` and `onError` at run time (FORMAT.md,
//! "Retries, node time limits and error routes"): the downstream call
//! tried again after an availability failure, with exponential backoff and
//! jitter, within the node's own time limit and the graph's; and a failed
//! node's error recorded as its output when the graph routes it.
//!
//! Generated code gives each node its [`Resilience`] as a constant; the
//! route itself (`onError`) is a `match` in the generated state machine,
//! which calls [`Execution::caught`] on its error arm.

use std::hash::{BuildHasher as _, Hasher as _};
use std::time::{Duration, Instant};

use rmcp::model::CallToolResult;
use serde_json::Value;

use super::Execution;
use crate::servers::DownstreamError;
use crate::error::{Downstream, ErrorKind, Limit, NodeError};
use crate::expressions::value::from_json;
use crate::questions::Caller;

/// A node's `retry` and `timeoutMs`: the format's types (`mcpgraph-format`).
pub use mcpgraph_format::{Resilience, Retry};

/// The waits between a node's tries.
pub(crate) trait Backoff {
    /// The wait before try `attempt + 1`: the backoff of that retry with
    /// jitter (between half of it and all of it), or the server's
    /// `retry_after` when longer; at most `max_backoff_ms` either way.
    fn delay(&self, attempt: u32, retry_after: Option<Duration>) -> Duration;
}

impl Backoff for Retry {
    fn delay(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        let shift = attempt.saturating_sub(1).min(32);
        let full = self
            .backoff_ms
            .saturating_mul(1u64 << shift)
            .min(self.max_backoff_ms);
        let half = full / 2;
        let jittered = half + jitter(full - half);
        let wait = Duration::from_millis(jittered).max(retry_after.unwrap_or_default());
        wait.min(Duration::from_millis(self.max_backoff_ms))
    }
}

/// A number in `0..=max`, different at each call (no seeded generator is
/// needed to spread retries: the standard hasher's random keys are).
fn jitter(max: u64) -> u64 {
    if max == 0 {
        return 0;
    }
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(Instant::now().elapsed().as_nanos());
    hasher.finish() % (max + 1)
}

/// The failures a retry may cure: the server crashed or its connection
/// closed, it did not answer in time, it could not be reached or refused
/// the call (HTTP 429 and 5xx included). Never a tool's `isError` result,
/// a protocol error, or anything of the graph itself.
pub(crate) fn retryable(kind: ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::Downstream(Downstream::Crashed | Downstream::TimedOut | Downstream::Refused)
    )
}

/// The failures `onError` routes: those of the node itself (its call, its
/// arguments, its output's size). The graph's own limits on the whole call
/// (time, node executions, history), cancellation, shutdown and a call
/// waiting for its client's answers end the call as before.
pub(crate) fn routable(kind: ErrorKind) -> bool {
    match kind {
        ErrorKind::Downstream(_) | ErrorKind::Expression => true,
        ErrorKind::Limit(limit) => matches!(
            limit,
            Limit::ValueBytes | Limit::ValueDepth | Limit::ExpressionTime | Limit::ExpressionDepth
        ),
        _ => false,
    }
}

/// How one try of a downstream call ended.
pub(super) enum Attempt {
    /// The server answered (an `isError` result included).
    Answered(CallToolResult),
    /// The call failed; no other try may start at or after the instant
    /// (the earlier of the scope's time limit and the graph's).
    Failed(DownstreamError, Instant),
    /// The scope's own `timeoutMs` ran out first.
    TimedOut,
    /// The call ends with this error (the graph's time limit ran out).
    Ended(NodeError),
}

/// The tries of one downstream call, as its [`Resilience`] says, and where
/// they run (for messages and logs). An `mcp` node's call and a fan-out
/// call make their tries with [`Tries::run`].
pub(super) struct Tries<'a> {
    pub(super) resilience: &'a Resilience,
    pub(super) node: &'static str,
    pub(super) server: &'static str,
    pub(super) tool: &'static str,
    /// Whose time limit bounds the retries besides the graph's: `node`, or
    /// `call` (a fan-out call's own).
    pub(super) scope: &'static str,
}

/// Why no try follows a failed one.
enum Stop {
    /// No try is left, or the failure is not [`retryable`]: the tries or
    /// the kind of failure say it all.
    Done,
    /// The wait would end past the scope's or the graph's time limit.
    NoTimeLeft,
}

impl Tries<'_> {
    /// Makes tries from try `first` on, try n being `once(its arguments,
    /// n)`, until one answers or ends the call, or no try may follow a
    /// failed one (not [`retryable`], no tries left, no time left): tried
    /// again after a backoff with jitter (`Retry-After` honoured).
    pub(super) async fn run(
        &self,
        mut arguments: serde_json::Map<String, Value>,
        first: u32,
        mut once: impl AsyncFnMut(serde_json::Map<String, Value>, u32) -> Attempt,
    ) -> Result<CallToolResult, NodeError> {
        let attempts = self.resilience.retry.map_or(1, |r| r.attempts.max(1));
        let mut attempt = first;
        loop {
            let this = arguments_for(&mut arguments, attempt, attempts);
            let (error, limit) = match once(this, attempt).await {
                Attempt::Answered(result) => return Ok(result),
                Attempt::Failed(error, limit) => (error, limit),
                Attempt::TimedOut => {
                    let kind = ErrorKind::Downstream(Downstream::TimedOut);
                    return Err(self.error(kind, self.timed_out(attempt)));
                }
                Attempt::Ended(error) => return Err(error),
            };
            match self.next_wait(&error, attempt, limit) {
                // A cancelled call drops this future, and the wait with it.
                Ok(wait) => tokio::time::sleep(wait).await,
                Err(stop) => {
                    let message = self.message(&error, attempt, stop);
                    return Err(self.error(error.kind, message));
                }
            }
            attempt += 1;
        }
    }

    /// How long to wait after try `attempt` failed with `error` before the
    /// next try, with `limit` the time no try may start after; or why there
    /// is no next try.
    fn next_wait(
        &self,
        error: &DownstreamError,
        attempt: u32,
        limit: Instant,
    ) -> Result<Duration, Stop> {
        let attempts = self.resilience.retry.map_or(1, |r| r.attempts.max(1));
        let Some(retry) = self.resilience.retry.filter(|_| retryable(error.kind)) else {
            return Err(Stop::Done);
        };
        if attempt >= attempts {
            return Err(Stop::Done);
        }
        let wait = retry.delay(attempt, error.retry_after);
        if Instant::now() + wait >= limit {
            return Err(Stop::NoTimeLeft);
        }
        tracing::info!(
            node = self.node,
            server = self.server,
            tool = self.tool,
            attempt,
            wait_ms = wait.as_millis() as u64,
            kind = error.kind.as_str(),
            "retrying a downstream call"
        );
        Ok(wait)
    }

    /// The message of `error`, the failure of the last try (`attempt`):
    /// the error's, how many tries were made, and why they stopped.
    fn message(&self, error: &DownstreamError, attempt: u32, stop: Stop) -> String {
        let why = match stop {
            Stop::Done => String::new(),
            Stop::NoTimeLeft => format!(
                "; no time left for another try within the {}'s or the graph's time limit",
                self.scope
            ),
        };
        format!("{}{}{why}", error.message, tries(attempt, self.resilience))
    }

    /// The message of the call whose scope's `timeoutMs` ran out during
    /// try `attempt`.
    fn timed_out(&self, attempt: u32) -> String {
        let ms = self.resilience.timeout_ms.unwrap_or_default();
        format!(
            "downstream server `{}` tool `{}`: the {}'s timeoutMs ({ms} ms) ran out{}",
            self.server,
            self.tool,
            self.scope,
            tries(attempt, self.resilience)
        )
    }

    fn error(&self, kind: ErrorKind, message: String) -> NodeError {
        let message = crate::secrets::redact(&message).into_owned();
        NodeError::new(kind, Some(self.node), message)
    }
}

/// The arguments of try `attempt` of `attempts`: a copy while another
/// try may follow, the arguments themselves for the last.
fn arguments_for(
    arguments: &mut serde_json::Map<String, Value>,
    attempt: u32,
    attempts: u32,
) -> serde_json::Map<String, Value> {
    if attempt < attempts {
        arguments.clone()
    } else {
        std::mem::take(arguments)
    }
}

impl Execution {
    /// Calls `tool` on `server` as `resilience` says: tried again after a
    /// [`retryable`] failure while tries and time are left, the whole
    /// within the node's `timeoutMs`.
    pub(super) async fn call_with(
        &mut self,
        server: &'static str,
        tool: &'static str,
        arguments: serde_json::Map<String, Value>,
        caller: Option<&Caller>,
        resilience: &Resilience,
    ) -> Result<CallToolResult, NodeError> {
        let mut node_deadline = resilience
            .timeout_ms
            .map(|ms| Instant::now() + Duration::from_millis(ms));
        let tries = Tries {
            resilience,
            node: self.current,
            server,
            tool,
            scope: "node",
        };
        tries
            .run(arguments, 1, async |this, _| {
                self.call_once(server, tool, this, caller, &mut node_deadline)
                    .await
            })
            .await
    }

    /// Takes the route of `onError` for `error`, a failure of the current
    /// node: its output becomes `{"error": {"kind": ..., "message": ...}}`
    /// (the kind spelled as [`ErrorKind::as_str`]). A failure that is not
    /// `routable` is given back, and ends the call.
    pub fn caught(&mut self, error: NodeError) -> Result<(), NodeError> {
        if !routable(error.kind()) {
            return Err(error);
        }
        tracing::info!(
            node = self.current,
            kind = error.kind().as_str(),
            "a node failed; taking its onError route"
        );
        let output = serde_json::json!({
            "error": {"kind": error.kind().as_str(), "message": error.message()}
        });
        self.record(from_json(&output))
    }
}

/// " (after 3 tries)" after a node or call with `retry` tried more than once.
fn tries(attempt: u32, resilience: &Resilience) -> String {
    match resilience.retry {
        Some(_) if attempt > 1 => format!(" (after {attempt} tries)"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_grow_stay_under_the_cap_and_honour_retry_after() {
        let retry = Retry {
            attempts: 5,
            backoff_ms: 100,
            max_backoff_ms: 300,
        };
        for _ in 0..50 {
            let first = retry.delay(1, None).as_millis();
            assert!((50..=100).contains(&first), "{first}");
            let second = retry.delay(2, None).as_millis();
            assert!((100..=200).contains(&second), "{second}");
            let capped = retry.delay(9, None).as_millis();
            assert!((150..=300).contains(&capped), "{capped}");
        }
        let asked = retry.delay(1, Some(Duration::from_millis(250)));
        assert_eq!(asked, Duration::from_millis(250));
        let too_long = retry.delay(1, Some(Duration::from_secs(30)));
        assert_eq!(too_long, Duration::from_millis(300));
        assert!(retry.delay(u32::MAX, None) <= Duration::from_millis(300));
    }

    #[test]
    fn only_availability_failures_are_retried() {
        for kind in ErrorKind::all() {
            let expected = matches!(
                kind.as_str(),
                "downstream.crashed" | "downstream.timeout" | "downstream.refused"
            );
            assert_eq!(retryable(kind), expected, "{kind}");
        }
        assert!(routable(ErrorKind::Downstream(Downstream::ToolError)));
        assert!(!routable(ErrorKind::Limit(Limit::ExecutionTime)));
        assert!(!routable(ErrorKind::InputRequired));
        assert!(!routable(ErrorKind::Cancelled));
    }
}
