//! Memory of each server process: RSS idle, peak and after a run of calls.

use std::time::Duration;

use mcpgraph_bench::median;
use mcpgraph_bench::report::{Better, Cell, Row};
use mcpgraph_bench::rpc::{StdioPeer, rss_kib};
use mcpgraph_bench::workloads::{Workload, check_reply};

use crate::{Config, HAND, OURS, PEER_NAMES, TS, log, order};

pub(crate) fn memory(config: &Config, workloads: &[Workload]) -> Result<Vec<Row>, String> {
    let calls = if config.quick { 2_000 } else { 10_000 };
    // Where the kernel maps a binary (ASLR) moves which 64 KiB fault-around
    // windows its code falls in: one start varies by about ±0.2 MiB, so
    // each figure is the median of several starts, peers interleaved.
    let starts = if config.quick { 3 } else { 5 };
    let mix: Vec<&Workload> = workloads
        .iter()
        .filter(|w| w.name.starts_with("transform-only") || w.name.starts_with("wide fan"))
        .collect();
    log(&format!(
        "memory: idle, then {calls} calls; the median of {starts} starts"
    ));
    let mut samples = vec![[Vec::new(), Vec::new(), Vec::new()]; config.peers()];
    for start in 0..starts {
        for i in order(start, config.peers()) {
            let (mut peer, _) = StdioPeer::start(&config.launches[i])
                .map_err(|e| format!("memory, {}: {e}", PEER_NAMES[i]))?;
            std::thread::sleep(Duration::from_millis(300));
            let (rss, _) = rss_kib(peer.pid()).ok_or("cannot read /proc/PID/status")?;
            samples[i][0].push(rss as f64 / 1024.0);
            for k in 0..calls {
                let w = mix[k % mix.len()];
                let (reply, _) = peer
                    .call(w.tool, &w.args_json)
                    .map_err(|e| format!("memory, {} after {k} calls: {e}", PEER_NAMES[i]))?;
                check_reply(&reply, &w.expected).map_err(|e| format!("{}: {e}", PEER_NAMES[i]))?;
            }
            let (rss, hwm) = rss_kib(peer.pid()).ok_or("cannot read /proc/PID/status")?;
            samples[i][1].push(hwm as f64 / 1024.0);
            samples[i][2].push(rss as f64 / 1024.0);
        }
    }
    let figure = |k: usize| -> Vec<f64> { samples.iter().map(|s| median(&s[k])).collect() };
    let (idle, peak, after) = (figure(0), figure(1), figure(2));
    let row = |figure: String, v: Vec<f64>| Row {
        section: "memory",
        workload: "transform-only + wide fan, alternating".into(),
        figure,
        unit: "MiB",
        better: Better::Lower,
        ours: Cell::Value(v[OURS]),
        hand: Cell::Value(v[HAND]),
        mcpgraph: Cell::Value(v[TS]),
        other: None,
        baseline: config.base_cell(|i| Cell::Value(v[i])),
    };
    Ok(vec![
        row(
            format!("RSS idle (after initialize), median of {starts} starts"),
            idle,
        ),
        row(
            format!("RSS peak (VmHWM) over {calls} calls, median of {starts}"),
            peak,
        ),
        row(
            format!("RSS after {calls} calls, median of {starts}"),
            after,
        ),
    ])
}
