//! Counters for `/metrics`: calls by tool and outcome, node errors by
//! kind, downstream restarts, refusals by the front door's caps. The HTTP
//! server reads them ([`counters`]) with its gauges (sessions, calls in
//! flight, connections) when it is scraped, and writes them in the
//! Prometheus text format.
//!
//! Process-wide: one binary serves one graph. Counting is an atomic add or
//! a short lock on a small map, off the hot path's allocations.
//!
//! Every label is `&'static str`: a tool name from the graph, an outcome,
//! an error kind, a cap. Nothing a client sends becomes a label, so each
//! map has a size fixed by the graph, whatever the clients do.

use std::collections::BTreeMap;
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
#[doc(hidden)]
pub fn refused(cap: &'static str) {
    bump(&REFUSALS, cap);
}

/// Counts one downstream reconnection.
#[doc(hidden)]
pub fn restart() {
    RESTARTS.fetch_add(1, Ordering::Relaxed);
}

/// Counts one opening of `server`'s circuit breaker.
#[doc(hidden)]
pub fn circuit_open(server: &str) {
    bump(&CIRCUIT_OPEN, server.to_owned());
}

/// The entries of `map`, copied out of its lock.
fn entries<K: Ord + Clone>(map: &Mutex<BTreeMap<K, u64>>) -> Vec<(K, u64)> {
    let map = map.lock().unwrap_or_else(|e| e.into_inner());
    map.iter().map(|(k, n)| (k.clone(), *n)).collect()
}

/// The counters' values at one moment, each map's entries in key order:
/// what a scrape shows (`mcpgraph-http` writes them in the Prometheus text
/// format).
#[derive(Clone, Debug, Default)]
#[doc(hidden)]
pub struct Counters {
    /// Calls by (tool, outcome).
    pub calls: Vec<((&'static str, &'static str), u64)>,
    /// Failed calls by their error's kind.
    pub node_errors: Vec<(ErrorKind, u64)>,
    /// Refusals by cap.
    pub refusals: Vec<(&'static str, u64)>,
    /// Circuit breakers opened, by downstream server.
    pub circuit_open: Vec<(String, u64)>,
    /// Downstream connections replaced.
    pub restarts: u64,
}

/// The counters now.
#[doc(hidden)]
pub fn counters() -> Counters {
    Counters {
        calls: entries(&CALLS),
        node_errors: entries(&NODE_ERRORS),
        refusals: entries(&REFUSALS),
        circuit_open: entries(&CIRCUIT_OPEN),
        restarts: RESTARTS.load(Ordering::Relaxed),
    }
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
        refused("test_cap");
        let now = counters();
        assert!(
            now.node_errors
                .iter()
                .any(|(k, _)| *k == ErrorKind::Expression),
            "{now:?}"
        );
        assert!(
            now.node_errors
                .contains(&(ErrorKind::Downstream(crate::error::Downstream::TimedOut), 1)),
            "{now:?}"
        );
        assert!(now.calls.contains(&(("we\"ird", "ok"), 1)), "{now:?}");
        assert!(
            now.calls.contains(&((UNKNOWN_TOOL, "unknown_tool"), 1)),
            "{now:?}"
        );
        assert!(now.circuit_open.contains(&("fs".to_owned(), 1)), "{now:?}");
        assert!(now.refusals.contains(&("test_cap", 1)), "{now:?}");
    }
}
