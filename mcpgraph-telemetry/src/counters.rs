//! The counters `/metrics` shows: calls by tool and outcome, failed calls
//! by error kind, downstream restarts, circuit breakers opened, refusals by
//! the front door's caps. The HTTP server reads them ([`counters`]) with
//! its gauges when it is scraped, and writes them in the Prometheus text
//! format.
//!
//! Process-wide: one binary serves one graph. Counting is an atomic add or
//! a short lock on a small map, off the hot path's allocations.
//!
//! Every label is `&'static str` (a tool name from the graph, an outcome,
//! an error kind, a cap) or a server the graph declares. Nothing a client
//! sends becomes a label, so each map has a size fixed by the graph,
//! whatever the clients do: the caller of [`call`] maps a name the graph
//! does not have to one label.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Calls by (tool, outcome): `ok`, `error` (a tool error: a node failed or
/// the arguments were invalid), `unknown_tool`, `refused` (a cap). The tool
/// is one of the graph's or one label for any other.
static CALLS: Mutex<BTreeMap<(&'static str, &'static str), u64>> = Mutex::new(BTreeMap::new());
/// Failed calls by their error's kind (a fixed set, never text from a
/// request).
static NODE_ERRORS: Mutex<BTreeMap<&'static str, u64>> = Mutex::new(BTreeMap::new());
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

/// Counts one finished call of `tool`: a name from the graph, or one label
/// for any other, never the name a client sent.
pub fn call(tool: &'static str, outcome: &'static str) {
    bump(&CALLS, (tool, outcome));
}

/// Counts one failed call, by its error's kind.
pub fn node_error(kind: &'static str) {
    bump(&NODE_ERRORS, kind);
}

/// Counts one refusal by the cap `cap`.
pub fn refused(cap: &'static str) {
    bump(&REFUSALS, cap);
}

/// Counts one downstream reconnection.
pub fn restart() {
    RESTARTS.fetch_add(1, Ordering::Relaxed);
}

/// Counts one opening of `server`'s circuit breaker.
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
pub struct Counters {
    /// Calls by (tool, outcome).
    pub calls: Vec<((&'static str, &'static str), u64)>,
    /// Failed calls by their error's kind.
    pub node_errors: Vec<(&'static str, u64)>,
    /// Refusals by cap.
    pub refusals: Vec<(&'static str, u64)>,
    /// Circuit breakers opened, by downstream server.
    pub circuit_open: Vec<(String, u64)>,
    /// Downstream connections replaced.
    pub restarts: u64,
}

/// The counters now.
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
        node_error("expression");
        node_error("downstream.timed_out");
        call("we\"ird", "ok");
        call("(unknown)", "unknown_tool");
        circuit_open("fs");
        refused("test_cap");
        let now = counters();
        assert!(now.node_errors.contains(&("expression", 1)), "{now:?}");
        assert!(
            now.node_errors.contains(&("downstream.timed_out", 1)),
            "{now:?}"
        );
        assert!(now.calls.contains(&(("we\"ird", "ok"), 1)), "{now:?}");
        assert!(
            now.calls.contains(&(("(unknown)", "unknown_tool"), 1)),
            "{now:?}"
        );
        assert!(now.circuit_open.contains(&("fs".to_owned(), 1)), "{now:?}");
        assert!(now.refusals.contains(&("test_cap", 1)), "{now:?}");
    }
}
