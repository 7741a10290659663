//! A scrape's text: the counters (`serving::metrics`) and the gauges read
//! at the scrape, in the Prometheus text format (version 0.0.4).

use std::fmt::Write as _;

use mcpgraph_runtime::host::Counters;

/// The gauges, read by the caller at each scrape.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Gauges {
    /// Open MCP sessions.
    pub(super) sessions: usize,
    /// Tool calls running.
    pub(super) in_flight: usize,
    /// Open HTTP connections.
    pub(super) connections: usize,
    /// Connections over a cap being answered before they are closed.
    pub(super) refusing: usize,
}

/// The text of a scrape.
pub(super) fn render(counters: &Counters, gauges: Gauges) -> String {
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
    for ((tool, outcome), n) in &counters.calls {
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
    for (kind, n) in &counters.node_errors {
        let _ = writeln!(out, "mcpgraph_node_errors_total{{kind=\"{kind}\"}} {n}");
    }
    let _ = writeln!(
        out,
        "# HELP mcpgraph_refusals_total Requests refused by a cap."
    );
    let _ = writeln!(out, "# TYPE mcpgraph_refusals_total counter");
    for (cap, n) in &counters.refusals {
        let _ = writeln!(out, "mcpgraph_refusals_total{{cap=\"{cap}\"}} {n}");
    }
    let _ = writeln!(
        out,
        "# HELP mcpgraph_downstream_circuit_open_total Circuit breakers opened, by downstream server."
    );
    let _ = writeln!(out, "# TYPE mcpgraph_downstream_circuit_open_total counter");
    for (server, n) in &counters.circuit_open {
        let server = escape(server);
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
            counters.restarts as usize,
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
    use mcpgraph_runtime::{Downstream, ErrorKind};

    #[test]
    fn kinds_and_labels() {
        let counters = Counters {
            calls: vec![(("we\"ird", "ok"), 1), (("(unknown)", "unknown_tool"), 1)],
            node_errors: vec![
                (ErrorKind::Expression.as_str(), 2),
                (ErrorKind::Downstream(Downstream::TimedOut).as_str(), 1),
            ],
            refusals: vec![],
            circuit_open: vec![("fs".to_owned(), 1)],
            restarts: 0,
        };
        let text = render(
            &counters,
            Gauges {
                sessions: 2,
                in_flight: 1,
                connections: 3,
                refusing: 0,
            },
        );
        assert!(
            text.contains("mcpgraph_node_errors_total{kind=\"expression\"} 2"),
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
