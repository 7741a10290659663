//! Sequential latency over stdio: one call at a time, p50 and p99 per
//! workload; the mean latencies size the throughput rounds. The loop
//! workloads also give the cost of one node over stdio: the p50 of
//! N=1000 less that of N=10, over the 1,980 nodes between them.

use std::time::{Duration, Instant};

use mcpgraph_bench::quantile;
use mcpgraph_bench::report::{Better, Cell, Row};
use mcpgraph_bench::rpc::StdioPeer;
use mcpgraph_bench::workloads::{Workload, check_reply};

use crate::{Config, HAND, OURS, PEER_NAMES, TS, log, order, start_all};

/// Nodes the `loop` tool runs for `n`: entry, 2n through step and check,
/// done, exit.
fn loop_nodes(n: f64) -> f64 {
    2.0 * n + 3.0
}

/// Calls `workload` on `peer` until `budget` is spent (at least `min`
/// calls, at most `max`); returns the latencies in µs. Every reply is checked.
pub(crate) fn sequential(
    peer: &mut StdioPeer,
    workload: &Workload,
    budget: Duration,
    min: usize,
    max: usize,
) -> Result<Vec<f64>, String> {
    let mut out = Vec::new();
    let end = Instant::now() + budget;
    while out.len() < max && (out.len() < min || Instant::now() < end) {
        let (reply, latency) = peer.call(workload.tool, &workload.args_json)?;
        check_reply(&reply, &workload.expected)?;
        out.push(latency.as_secs_f64() * 1e6);
    }
    Ok(out)
}

pub(crate) fn latency(
    config: &Config,
    workloads: &[Workload],
) -> Result<(Vec<Row>, Vec<Vec<f64>>), String> {
    let mut peers = start_all(config)?;
    let rounds = config.rounds();
    let budget = Duration::from_millis(if config.quick { 250 } else { 1000 });
    let mut rows = Vec::new();
    let mut means = Vec::new();
    let mut p50s = Vec::new();
    for workload in workloads {
        log(&format!("sequential latency: {}", workload.name));
        // Warm-up: JIT, lazy downstream start, allocator.
        for (i, peer) in peers.iter_mut().enumerate() {
            sequential(peer, workload, Duration::from_millis(200), 3, 200)
                .map_err(|e| format!("{} {}: {e}", PEER_NAMES[i], workload.name))?;
        }
        let mut samples = vec![Vec::new(); config.peers()];
        for round in 0..rounds {
            for i in order(round, config.peers()) {
                let s = sequential(&mut peers[i], workload, budget, 3, 5000)
                    .map_err(|e| format!("{} {}: {e}", PEER_NAMES[i], workload.name))?;
                samples[i].extend(s);
            }
        }
        let mut stats = Vec::new();
        for s in samples.iter_mut() {
            s.sort_by(f64::total_cmp);
            stats.push([
                quantile(s, 0.5),
                quantile(s, 0.99),
                s.iter().sum::<f64>() / s.len() as f64,
            ]);
        }
        means.push(stats.iter().map(|s| s[2]).collect());
        p50s.push((workload.name, stats.iter().map(|s| s[0]).collect()));
        let counts: Vec<String> = samples.iter().map(|s| s.len().to_string()).collect();
        for (k, name) in [(0, "p50"), (1, "p99")] {
            rows.push(Row {
                section: "latency (stdio, sequential)",
                workload: workload.name.to_owned(),
                figure: format!("{name} (n = {})", counts.join("/")),
                unit: "µs",
                better: Better::Lower,
                ours: Cell::Value(stats[OURS][k]),
                hand: Cell::Value(stats[HAND][k]),
                mcpgraph: Cell::Value(stats[TS][k]),
                other: None,
                baseline: config.base_cell(|i| Cell::Value(stats[i][k])),
            });
        }
    }
    rows.extend(per_node_row(config, &p50s));
    Ok((rows, means))
}

/// Cost of one node over stdio, from the loop workloads' p50s: none when
/// the run lacks either of them.
fn per_node_row(config: &Config, p50s: &[(&str, Vec<f64>)]) -> Option<Row> {
    let p50 = |name: &str| p50s.iter().find(|(w, _)| *w == name).map(|(_, v)| v);
    let (short, long) = (p50("loop N=10")?, p50("loop N=1000")?);
    let nodes = loop_nodes(1000.0) - loop_nodes(10.0);
    // µs per node, shown in ns.
    let cell = |i: usize| Cell::Value((long[i] - short[i]) / nodes * 1e3);
    Some(Row {
        section: "per node",
        workload: "loop: a transform and a switch per round".into(),
        figure: format!("over stdio: (p50 of N=1000 − p50 of N=10) ÷ {nodes} nodes"),
        unit: "ns",
        better: Better::Lower,
        ours: cell(OURS),
        hand: Cell::na(),
        mcpgraph: cell(TS),
        other: None,
        baseline: config.base_cell(cell),
    })
}
