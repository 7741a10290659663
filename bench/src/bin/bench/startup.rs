//! Process start → initialize answered, for each peer over stdio.

use mcpgraph_bench::median;
use mcpgraph_bench::report::{Better, Cell, Row};
use mcpgraph_bench::rpc::StdioPeer;

use crate::{Config, HAND, OURS, TS, log, order};

pub(crate) fn startup(config: &Config) -> Result<Vec<Row>, String> {
    log("start → initialize");
    let rounds = if config.quick { 3 } else { 10 };
    let mut samples = vec![Vec::new(); config.peers()];
    for round in 0..rounds {
        for peer in order(round, config.peers()) {
            let (p, elapsed) = StdioPeer::start(&config.launches[peer])?;
            samples[peer].push(elapsed.as_secs_f64() * 1e3);
            drop(p);
        }
    }
    Ok(vec![Row {
        section: "start",
        workload: "process start → initialize answered".into(),
        figure: format!("median of {rounds}"),
        unit: "ms",
        better: Better::Lower,
        ours: Cell::Value(median(&samples[OURS])),
        hand: Cell::Value(median(&samples[HAND])),
        mcpgraph: Cell::Value(median(&samples[TS])),
        other: None,
        baseline: config.base_cell(|i| Cell::Value(median(&samples[i]))),
    }])
}
