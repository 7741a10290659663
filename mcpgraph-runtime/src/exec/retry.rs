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
use super::mcp::Attempt;
use crate::downstream::DownstreamError;
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

/// A try of a downstream call that failed, and where it ran.
pub(super) struct Failed<'a> {
    pub(super) error: &'a DownstreamError,
    /// Its number, from 1.
    pub(super) attempt: u32,
    pub(super) node: &'static str,
    pub(super) server: &'static str,
    pub(super) tool: &'static str,
    /// Whose time limit bounds the retries besides the graph's: `node`, or
    /// `call` (a fan-out call's own).
    pub(super) scope: &'static str,
}

/// The arguments of try `attempt` of `attempts`: a copy while another
/// try may follow, the arguments themselves for the last.
pub(super) fn arguments_for(
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

/// The message of a call of `tool` on `server` whose `scope`'s (`node`,
/// `call`) `timeoutMs` ran out during try `attempt`.
pub(super) fn timed_out(
    server: &str,
    tool: &str,
    scope: &str,
    resilience: &Resilience,
    attempt: u32,
) -> String {
    let ms = resilience.timeout_ms.unwrap_or_default();
    format!(
        "downstream server `{server}` tool `{tool}`: the {scope}'s timeoutMs ({ms} ms) ran out{}",
        tries(attempt, resilience)
    )
}

impl Failed<'_> {
    /// The message of the failure, the last try: the error's, how many
    /// tries were made, and `why_stopped`.
    pub(super) fn message(&self, resilience: &Resilience, why_stopped: &str) -> String {
        format!(
            "{}{}{why_stopped}",
            self.error.message,
            tries(self.attempt, resilience)
        )
    }

    /// How long to wait before the next try, as `resilience` says, with
    /// `limit` the time no try may start after; or why there is none (the
    /// end of the failure's message, empty when the tries or the kind of
    /// failure say it all).
    pub(super) fn next_wait(
        &self,
        resilience: &Resilience,
        limit: Instant,
    ) -> Result<Duration, String> {
        let attempts = resilience.retry.map_or(1, |r| r.attempts.max(1));
        let Some(retry) = resilience.retry.filter(|_| retryable(self.error.kind)) else {
            return Err(String::new());
        };
        if self.attempt >= attempts {
            return Err(String::new());
        }
        let wait = retry.delay(self.attempt, self.error.retry_after);
        if Instant::now() + wait >= limit {
            return Err(format!(
                "; no time left for another try within the {}'s or the graph's time limit",
                self.scope
            ));
        }
        tracing::info!(
            node = self.node,
            server = self.server,
            tool = self.tool,
            attempt = self.attempt,
            wait_ms = wait.as_millis() as u64,
            kind = self.error.kind.as_str(),
            "retrying a downstream call"
        );
        Ok(wait)
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
        mut arguments: serde_json::Map<String, Value>,
        caller: Option<&Caller>,
        resilience: &Resilience,
    ) -> Result<CallToolResult, NodeError> {
        let started = Instant::now();
        let mut node_deadline = resilience
            .timeout_ms
            .map(|ms| started + Duration::from_millis(ms));
        let attempts = resilience.retry.map_or(1, |r| r.attempts.max(1));
        let mut attempt = 1;
        loop {
            let this = arguments_for(&mut arguments, attempt, attempts);
            let error = match self
                .call_once(server, tool, this, caller, &mut node_deadline)
                .await
            {
                Attempt::Answered(result) => return Ok(result),
                Attempt::GraphTime => return Err(self.time_limit()),
                Attempt::NodeTimeout => {
                    return Err(self.error(
                        ErrorKind::Downstream(Downstream::TimedOut),
                        timed_out(server, tool, "node", resilience, attempt),
                    ));
                }
                Attempt::Failed(error) => error,
            };
            let limit = node_deadline.map_or(self.deadline, |node| node.min(self.deadline));
            let failed = Failed {
                error: &error,
                attempt,
                node: self.current,
                server,
                tool,
                scope: "node",
            };
            match failed.next_wait(resilience, limit) {
                // A cancelled call drops this future, and the wait with it.
                Ok(wait) => tokio::time::sleep(wait).await,
                Err(why) => {
                    let message = failed.message(resilience, &why);
                    return Err(self.error(error.kind, message));
                }
            }
            attempt += 1;
        }
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
pub(super) fn tries(attempt: u32, resilience: &Resilience) -> String {
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
