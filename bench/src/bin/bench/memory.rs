//! Memory of each server process: RSS idle, peak and after a run of calls.

use std::time::Duration;

use mcpgraph_bench::report::{Better, Cell, Row};
use mcpgraph_bench::rpc::{StdioPeer, rss_kib};
use mcpgraph_bench::workloads::{Workload, check_reply};

use crate::{Config, HAND, OURS, PEER_NAMES, TS, log, order};

pub(crate) fn memory(config: &Config, workloads: &[Workload]) -> Result<Vec<Row>, String> {
    let calls = if config.quick { 2_000 } else { 10_000 };
    let mix: Vec<&Workload> = workloads
        .iter()
        .filter(|w| w.name.starts_with("transform-only") || w.name.starts_with("wide fan"))
        .collect();
    log(&format!("memory: idle, then {calls} calls"));
    let mut idle = vec![0.0; config.peers()];
    let mut peak = idle.clone();
    let mut after = idle.clone();
    for i in order(0, config.peers()) {
        let (mut peer, _) = StdioPeer::start(&config.launches[i])?;
        std::thread::sleep(Duration::from_millis(300));
        let (rss, _) = rss_kib(peer.pid()).ok_or("cannot read /proc/PID/status")?;
        idle[i] = rss as f64 / 1024.0;
        for k in 0..calls {
            let w = mix[k % mix.len()];
            let (reply, _) = peer.call(w.tool, &w.args_json)?;
            check_reply(&reply, &w.expected).map_err(|e| format!("{}: {e}", PEER_NAMES[i]))?;
        }
        let (rss, hwm) = rss_kib(peer.pid()).ok_or("cannot read /proc/PID/status")?;
        peak[i] = hwm as f64 / 1024.0;
        after[i] = rss as f64 / 1024.0;
    }
    let row = |figure: String, v: Vec<f64>| Row {
        section: "memory",
        workload: "transform-only + wide fan, alternating".into(),
        figure,
        unit: "MiB",
        better: Better::Lower,
        ours: Cell::Value(v[OURS]),
        hand: Cell::Value(v[HAND]),
        mcpgraph: Cell::Value(v[TS]),
        baseline: config.base_cell(|i| Cell::Value(v[i])),
    };
    Ok(vec![
        row("RSS idle (after initialize)".into(), idle),
        row(format!("RSS peak (VmHWM) over {calls} calls"), peak),
        row(format!("RSS after {calls} calls"), after),
    ])
}
