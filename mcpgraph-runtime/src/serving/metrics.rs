//! Counters for `/metrics`, in the Prometheus text format: calls by tool
//! and outcome, node errors by kind, downstream restarts, refusals by the
//! front door's caps, and the gauges (sessions, calls in flight,
//! connections) the HTTP server reads when it is scraped.
//!
//! Process-wide: one binary serves one graph. Counting is an atomic add or
//! a short lock on a small map, off the hot path's allocations.
//!
//! Every label is `&'static str`: a tool name from the graph, an outcome,
//! an error kind, a cap. Nothing a client sends becomes a label, so each
//! map has a size fixed by the graph, whatever the clients do.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::ErrorKind;

/// The tool label of every call naming a tool the graph does not have. Not
/// a possible tool name (those are `A-Z a-z 0-9 _ - .`), so it cannot be
/// mistaken for one.
pub(crate) const UNKNOWN_TOOL: &str = "(unknown)";

/// Calls by (tool, outcome): `ok`, `error` (a tool error: a node failed or
/// the arguments were invalid), `unknown_tool`, `refused` (a cap). The tool
/// is one of the graph's or [`UNKNOWN_TOOL`]: at most four entries per tool.
static CALLS: Mutex<BTreeMap<(&'static str, &'static str), u64>> = Mutex::new(BTreeMap::new());
/// Failed calls by their error's kind ([`ErrorKind`]: a fixed set, never
/// text from a request).
static NODE_ERRORS: Mutex<BTreeMap<ErrorKind, u64>> = Mutex::new(BTreeMap::new());
/// Refusals by cap.
static REFUSALS: Mutex<BTreeMap<&'static str, u64>> = Mutex::new(BTreeMap::new());
/// Downstream connections replaced after a crash, a close or a failed probe.
static RESTARTS: AtomicU64 = AtomicU64::new(0);
/// Circuit breakers opened, by downstream server (the graph's servers: a
/// fixed set).
static CIRCUIT_OPEN: Mutex<BTreeMap<String, u64>> = Mutex::new(BTreeMap::new());

fn bump<K: Ord>(map: &Mutex<BTreeMap<K, u64>>, key: K) {
    *map.lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(key)
        .or_default() += 1;
}

/// Counts one finished call of `tool`: a name from the graph, or
/// [`UNKNOWN_TOOL`], never the name a client sent.
pub(crate) fn call(tool: &'static str, outcome: &'static str) {
    bump(&CALLS, (tool, outcome));
}

/// Counts one failed call, by its error's kind.
pub(crate) fn node_error(kind: ErrorKind) {
    bump(&NODE_ERRORS, kind);
}

/// Counts one refusal by the cap `cap`.
pub(crate) fn refused(cap: &'static str) {
    bump(&REFUSALS, cap);
}

/// Counts one downstream reconnection.
pub(crate) fn restart() {
    RESTARTS.fetch_add(1, Ordering::Relaxed);
}

/// Counts one opening of `server`'s circuit breaker.
pub(crate) fn circuit_open(server: &str) {
    bump(&CIRCUIT_OPEN, server.to_owned());
}

/// The entries of `map`, copied out of its lock.
fn entries<K: Ord + Clone>(map: &Mutex<BTreeMap<K, u64>>) -> Vec<(K, u64)> {
    let map = map.lock().unwrap_or_else(|e| e.into_inner());
    map.iter().map(|(k, n)| (k.clone(), *n)).collect()
}

/// The gauges, read by the caller at each scrape.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Gauges {
    /// Open MCP sessions.
    pub sessions: usize,
    /// Tool calls running.
    pub in_flight: usize,
    /// Open HTTP connections.
    pub connections: usize,
    /// Connections over a cap being answered before they are closed.
    pub refusing: usize,
}

/// The text of a scrape.
pub(crate) fn render(gauges: Gauges) -> String {
    let Gauges {
        sessions,
        in_flight,
        connections,
        refusing,
    } = gauges;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# HELP mcpgraph_calls_total Tool calls by tool and outcome."
    );
    let _ = writeln!(out, "# TYPE mcpgraph_calls_total counter");
    for ((tool, outcome), n) in entries(&CALLS) {
        let tool = escape(tool);
        let _ = writeln!(
            out,
            "mcpgraph_calls_total{{tool=\"{tool}\",outcome=\"{outcome}\"}} {n}"
        );
    }
    let _ = writeln!(
        out,
        "# HELP mcpgraph_node_errors_total Failed calls by error kind."
    );
    let _ = writeln!(out, "# TYPE mcpgraph_node_errors_total counter");
    for (kind, n) in entries(&NODE_ERRORS) {
        let _ = writeln!(out, "mcpgraph_node_errors_total{{kind=\"{kind}\"}} {n}");
    }
    let _ = writeln!(
        out,
        "# HELP mcpgraph_refusals_total Requests refused by a cap."
    );
    let _ = writeln!(out, "# TYPE mcpgraph_refusals_total counter");
    for (cap, n) in entries(&REFUSALS) {
        let _ = writeln!(out, "mcpgraph_refusals_total{{cap=\"{cap}\"}} {n}");
    }
    let _ = writeln!(
        out,
        "# HELP mcpgraph_downstream_circuit_open_total Circuit breakers opened, by downstream server."
    );
    let _ = writeln!(out, "# TYPE mcpgraph_downstream_circuit_open_total counter");
    for (server, n) in entries(&CIRCUIT_OPEN) {
        let server = escape(&server);
        let _ = writeln!(
            out,
            "mcpgraph_downstream_circuit_open_total{{server=\"{server}\"}} {n}"
        );
    }
    for (name, help, kind, value) in [
        (
            "mcpgraph_downstream_restarts_total",
            "Downstream connections replaced (crash, close, failed probe).",
            "counter",
            RESTARTS.load(Ordering::Relaxed) as usize,
        ),
        ("mcpgraph_sessions", "Open MCP sessions.", "gauge", sessions),
        (
            "mcpgraph_calls_in_flight",
            "Tool calls running.",
            "gauge",
            in_flight,
        ),
        (
            "mcpgraph_connections",
            "Open HTTP connections.",
            "gauge",
            connections,
        ),
        (
            "mcpgraph_connections_refusing",
            "Connections over a cap being answered before they are closed (bounded).",
            "gauge",
            refusing,
        ),
    ] {
        let _ = writeln!(
            out,
            "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}"
        );
    }
    out
}

/// A label value: backslash, quote and newline escaped.
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_labels() {
        node_error(ErrorKind::Expression);
        node_error(ErrorKind::Downstream(crate::error::Downstream::TimedOut));
        call("we\"ird", "ok");
        call(UNKNOWN_TOOL, "unknown_tool");
        circuit_open("fs");
        let text = render(Gauges {
            sessions: 2,
            in_flight: 1,
            connections: 3,
            refusing: 0,
        });
        assert!(
            text.contains("mcpgraph_node_errors_total{kind=\"expression\"}"),
            "{text}"
        );
        assert!(
            text.contains("mcpgraph_node_errors_total{kind=\"downstream.timeout\"} 1"),
            "{text}"
        );
        assert!(
            text.contains("mcpgraph_calls_total{tool=\"we\\\"ird\",outcome=\"ok\"} 1"),
            "{text}"
        );
        assert!(
            text.contains("mcpgraph_calls_total{tool=\"(unknown)\",outcome=\"unknown_tool\"} 1"),
            "{text}"
        );
        assert!(text.contains("mcpgraph_sessions 2\n"), "{text}");
        assert!(
            text.contains("mcpgraph_downstream_circuit_open_total{server=\"fs\"} 1"),
            "{text}"
        );
    }
}
