//! Sequential latency over stdio: one call at a time, p50 and p99 per
//! workload; the mean latencies size the throughput rounds.

use std::time::{Duration, Instant};

use mcpgraph_bench::quantile;
use mcpgraph_bench::report::{Better, Cell, Row};
use mcpgraph_bench::rpc::StdioPeer;
use mcpgraph_bench::workloads::{Workload, check_reply};

use crate::{Config, HAND, OURS, PEER_NAMES, TS, log, order, start_all};

/// Calls `workload` on `peer` until `budget` is spent (at least `min`
/// calls, at most `max`); returns the latencies in µs. Every reply is checked.
fn sequential(
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
) -> Result<(Vec<Row>, Vec<[f64; 3]>), String> {
    let mut peers = start_all(config)?;
    let rounds = config.rounds();
    let budget = Duration::from_millis(if config.quick { 250 } else { 1000 });
    let mut rows = Vec::new();
    let mut means = Vec::new();
    for workload in workloads {
        log(&format!("sequential latency: {}", workload.name));
        // Warm-up: JIT, lazy downstream start, allocator.
        for (i, peer) in peers.iter_mut().enumerate() {
            sequential(peer, workload, Duration::from_millis(200), 3, 200)
                .map_err(|e| format!("{} {}: {e}", PEER_NAMES[i], workload.name))?;
        }
        let mut samples: [Vec<f64>; 3] = Default::default();
        for round in 0..rounds {
            for i in order(round) {
                let s = sequential(&mut peers[i], workload, budget, 3, 5000)
                    .map_err(|e| format!("{} {}: {e}", PEER_NAMES[i], workload.name))?;
                samples[i].extend(s);
            }
        }
        let mut stats = [[0.0; 3]; 3];
        for (i, s) in samples.iter_mut().enumerate() {
            s.sort_by(f64::total_cmp);
            stats[i] = [
                quantile(s, 0.5),
                quantile(s, 0.99),
                s.iter().sum::<f64>() / s.len() as f64,
            ];
        }
        means.push([stats[0][2], stats[1][2], stats[2][2]]);
        for (k, name) in [(0, "p50"), (1, "p99")] {
            rows.push(Row {
                section: "latency (stdio, sequential)",
                workload: workload.name.to_owned(),
                figure: format!(
                    "{name} (n = {}/{}/{})",
                    samples[0].len(),
                    samples[1].len(),
                    samples[2].len()
                ),
                unit: "µs",
                better: Better::Lower,
                ours: Cell::Value(stats[OURS][k]),
                hand: Cell::Value(stats[HAND][k]),
                mcpgraph: Cell::Value(stats[TS][k]),
            });
        }
    }
    Ok((rows, means))
}
