//! The fan-out rows: a tool asking four servers that each answer after
//! 50 ms, and a `forEach` over 100 items against a server that answers
//! after 20 ms, 8 calls at a time. Its own peers, from the fan-out graph
//! (`bench/graphs/fanout.yaml`, compiled as `bench-fanout`), so that the
//! graph of the other rows keeps its servers and figures: ours, the
//! hand-written `bench-handwritten-fanout` (`tokio::join!`,
//! `buffer_unordered(8)`) and mcpGraph (`fanout.mcpgraph.yaml`: four mcp
//! nodes in a row, and a switch loop, one call at a time), all calling the
//! same `bench-slow` servers. "Ours sequential" is the same graph's
//! `fan_out_sequential`: the same `parallel` node with `maxConcurrency: 1`.
//! Calls one at a time, every reply checked, the runs interleaved round by
//! round as elsewhere.

use std::path::PathBuf;
use std::time::Duration;

use mcpgraph_bench::quantile;
use mcpgraph_bench::report::{Better, Cell, Row};
use mcpgraph_bench::rpc::{Launch, StdioPeer};
use mcpgraph_bench::workloads::{self, FAN_OUT_MS, FOR_EACH_ITEMS, FOR_EACH_MS, Workload};

use crate::latency::sequential;
use crate::{BASE, Config, HAND, OURS, PEER_NAMES, TS, log, order};

const SECTION: &str = "fan-out (stdio, one call at a time)";

/// One series of samples: a workload on a peer.
struct Run<'a> {
    peer: usize,
    workload: &'a Workload,
    /// Calls at least, per round (mcpGraph's loop takes seconds a call).
    min: usize,
}

fn run(peer: usize, workload: &Workload, min: usize) -> Run<'_> {
    Run {
        peer,
        workload,
        min,
    }
}

/// The fan-out graph's peers, indexed as `Config::launches` (`OURS`,
/// `HAND`, `TS`, and `BASE` when the baseline's directory has a
/// `bench-fanout`).
pub(crate) fn launches(config: &Config) -> Result<Vec<Launch>, String> {
    // `args` even empty: mcpGraph requires it.
    let slow = serde_json::json!({"command": config.bin_dir.join("bench-slow"), "args": []});
    let mcp = serde_json::json!({"mcpServers": {
        "s1": slow, "s2": slow, "s3": slow, "s4": slow,
        "echo": {"command": config.bin_dir.join("bench-raw-echo"), "args": []},
    }});
    let mcp_json = config.work.join("fanout-mcp.json");
    std::fs::write(&mcp_json, mcp.to_string()).map_err(|e| e.to_string())?;
    let mcp_arg = mcp_json.to_string_lossy().into_owned();
    let ours = |dir: &PathBuf| Launch {
        program: dir.join("bench-fanout"),
        args: vec!["--mcp".into(), mcp_arg.clone(), "serve".into()],
    };
    let mut out = vec![
        ours(&config.bin_dir),
        Launch {
            program: config.bin_dir.join("bench-handwritten-fanout"),
            args: vec!["--mcp".into(), mcp_arg.clone()],
        },
        Launch {
            program: PathBuf::from("node"),
            args: vec![
                config
                    .root
                    .join("bench/node_modules/mcpgraph/dist/main.js")
                    .to_string_lossy()
                    .into_owned(),
                "-g".into(),
                config
                    .root
                    .join("bench/graphs/fanout.mcpgraph.yaml")
                    .to_string_lossy()
                    .into_owned(),
                "-m".into(),
                mcp_arg.clone(),
            ],
        },
    ];
    if let Some(b) = &config.baseline
        && b.bin_dir.join("bench-fanout").is_file()
    {
        out.push(ours(&b.bin_dir));
    }
    Ok(out)
}

/// Latencies in ms, sorted, of each run.
fn measure(
    config: &Config,
    peers: &mut [StdioPeer],
    runs: &[Run<'_>],
) -> Result<Vec<Vec<f64>>, String> {
    let budget = Duration::from_millis(if config.quick { 600 } else { 2000 });
    // Warm-up: the downstream servers start, JIT, allocator.
    for run in runs {
        log(&format!(
            "fan-out, warm-up: {} on {}",
            run.workload.name, PEER_NAMES[run.peer]
        ));
        sequential(&mut peers[run.peer], run.workload, Duration::ZERO, 2, 2)
            .map_err(|e| format!("{} {}: {e}", PEER_NAMES[run.peer], run.workload.name))?;
    }
    let mut samples = vec![Vec::new(); runs.len()];
    for round in 0..config.rounds() {
        for k in order(round, runs.len()) {
            let run = &runs[k];
            log(&format!(
                "fan-out, round {}: {} on {}",
                round + 1,
                run.workload.name,
                PEER_NAMES[run.peer]
            ));
            let s = sequential(&mut peers[run.peer], run.workload, budget, run.min, 1000)
                .map_err(|e| format!("{} {}: {e}", PEER_NAMES[run.peer], run.workload.name))?;
            samples[k].extend(s.into_iter().map(|us| us / 1e3));
        }
    }
    for s in &mut samples {
        s.sort_by(f64::total_cmp);
    }
    Ok(samples)
}

pub(crate) fn fan_out_rows(config: &Config) -> Result<Vec<Row>, String> {
    let launches = launches(config)?;
    let with_base = launches.len() > BASE;
    let mut peers = launches
        .iter()
        .enumerate()
        .map(|(i, l)| {
            StdioPeer::start(l)
                .map(|(p, _)| p)
                .map_err(|e| format!("fan-out, {}: {e}", PEER_NAMES[i]))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let [fan_out, sequential_fan_out, for_each] = workloads::fan_out();
    let ts_min = if config.quick { 1 } else { 2 };
    let mut runs = vec![
        run(OURS, &fan_out, 3),
        run(HAND, &fan_out, 3),
        run(TS, &fan_out, 3),
        run(OURS, &sequential_fan_out, 3),
        run(OURS, &for_each, 3),
        run(HAND, &for_each, 3),
        run(TS, &for_each, ts_min),
    ];
    if with_base {
        runs.push(run(BASE, &fan_out, 3));
        runs.push(run(BASE, &for_each, 3));
    }
    let samples = measure(config, &mut peers, &runs)?;
    // The index in `runs` of a workload's run on a peer.
    let find = |peer: usize, workload: &Workload| {
        runs.iter()
            .position(|r| r.peer == peer && r.workload.tool == workload.tool)
    };
    let figure = |run: Option<usize>, q: f64| match run {
        Some(k) => Cell::Value(quantile(&samples[k], q)),
        None => Cell::na(),
    };
    let count = |run: Option<usize>| run.map_or("–".to_owned(), |k| samples[k].len().to_string());
    let row = |workload: &str, figure_name: &str, w: &Workload, q: f64| {
        let base = find(BASE, w);
        let counts = [OURS, HAND, TS].map(|p| count(find(p, w))).join("/");
        Row {
            section: SECTION,
            workload: workload.to_owned(),
            figure: format!("{figure_name} (n = {counts})"),
            unit: "ms",
            better: Better::Lower,
            ours: figure(find(OURS, w), q),
            hand: figure(find(HAND, w), q),
            mcpgraph: figure(find(TS, w), q),
            other: None,
            baseline: config.baseline.as_ref().map(|_| figure(base, q)),
        }
    };
    let fan = format!(
        "4 servers × {FAN_OUT_MS} ms: a parallel node (hand-written: tokio::join!; mcpGraph: 4 mcp nodes in a row)"
    );
    let each = format!(
        "forEach over {FOR_EACH_ITEMS} items × {FOR_EACH_MS} ms, maxConcurrency 8 (hand-written: buffer_unordered(8); mcpGraph: a switch loop, one call at a time)"
    );
    let seq = format!(
        "4 servers × {FAN_OUT_MS} ms, ours one call at a time: the same parallel node with maxConcurrency: 1"
    );
    let (par_p50, seq_p50) = (
        quantile(&samples[find(OURS, &fan_out).unwrap_or_default()], 0.5),
        quantile(
            &samples[find(OURS, &sequential_fan_out).unwrap_or_default()],
            0.5,
        ),
    );
    Ok(vec![
        row(&fan, "p50", &fan_out, 0.5),
        row(&fan, "p99", &fan_out, 0.99),
        row(&seq, "p50", &sequential_fan_out, 0.5),
        Row {
            section: SECTION,
            workload: "ours: the parallel node vs the same node with maxConcurrency: 1".into(),
            figure: "speed-up: sequential p50 ÷ parallel p50".into(),
            unit: "×",
            better: Better::Higher,
            ours: Cell::Value(seq_p50 / par_p50),
            hand: Cell::na(),
            mcpgraph: Cell::na(),
            other: None,
            baseline: None,
        },
        row(&each, "p50", &for_each, 0.5),
        row(&each, "p99", &for_each, 0.99),
    ])
}
