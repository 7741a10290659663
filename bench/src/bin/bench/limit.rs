//! The physical limit: the transform-only call over stdio against
//! `bench-raw-echo` (serde_json and a pipe, no MCP SDK, no async runtime),
//! with ours and the hand-written server interleaved beside it, sequential
//! (p50, p99) and with 64 calls in flight. How far each server is from
//! what a pipe and a JSON parser cost.

use std::time::Duration;

use mcpgraph_bench::report::{Better, Cell, Row};
use mcpgraph_bench::rpc::{Launch, StdioPeer};
use mcpgraph_bench::workloads::Workload;
use mcpgraph_bench::{median, quantile};

use crate::latency::sequential;
use crate::throughput::pipelined;
use crate::{Config, HAND, IN_FLIGHT, OURS, log};

const SECTION: &str = "physical limit (stdio)";
const LIMIT: &str = "raw echo (no SDK)";

pub(crate) fn limit_rows(config: &Config, workloads: &[Workload]) -> Result<Vec<Row>, String> {
    let Some(workload) = workloads.iter().find(|w| w.name == "transform-only") else {
        return Ok(Vec::new());
    };
    log("physical limit: transform-only against the raw echo server");
    let launches = [
        config.launches[OURS].clone(),
        config.launches[HAND].clone(),
        Launch {
            program: config.bin_dir.join("bench-raw-echo"),
            args: Vec::new(),
        },
    ];
    let mut peers = launches
        .iter()
        .map(|l| StdioPeer::start(l).map(|(p, _)| p))
        .collect::<Result<Vec<_>, _>>()?;
    let rounds = config.rounds();
    let budget = Duration::from_millis(if config.quick { 250 } else { 1000 });
    let calls = if config.quick { 4_000 } else { 20_000 };
    let mut latencies = vec![Vec::new(); peers.len()];
    let mut rates = vec![Vec::new(); peers.len()];
    for peer in peers.iter_mut() {
        sequential(peer, workload, Duration::from_millis(200), 3, 200)?;
    }
    for round in 0..rounds {
        for k in 0..peers.len() {
            let i = (round + k) % peers.len();
            latencies[i].extend(sequential(&mut peers[i], workload, budget, 3, 5000)?);
            rates[i].push(pipelined(&mut peers[i], workload, calls)?);
        }
    }
    for l in latencies.iter_mut() {
        l.sort_by(f64::total_cmp);
    }
    let row = |figure: String, unit, better, value: &dyn Fn(usize) -> f64| Row {
        section: SECTION,
        workload: workload.name.to_owned(),
        figure,
        unit,
        better,
        ours: Cell::Value(value(0)),
        hand: Cell::Value(value(1)),
        mcpgraph: Cell::Text("not measured here".into()),
        other: Some((LIMIT, Cell::Value(value(2)))),
        baseline: config.base_cell(|_| Cell::na()),
    };
    let counts: Vec<String> = latencies.iter().map(|s| s.len().to_string()).collect();
    let counts = counts.join("/");
    Ok(vec![
        row(
            format!("sequential p50 (n = {counts})"),
            "µs",
            Better::Lower,
            &|i| quantile(&latencies[i], 0.5),
        ),
        row(
            format!("sequential p99 (n = {counts})"),
            "µs",
            Better::Lower,
            &|i| quantile(&latencies[i], 0.99),
        ),
        row(
            format!("{IN_FLIGHT} in flight, {calls} calls a round"),
            "calls/s",
            Better::Higher,
            &|i| median(&rates[i]),
        ),
    ])
}
