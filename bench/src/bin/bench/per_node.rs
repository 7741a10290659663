//! Cost of one node in process, without any transport: the `engine_loop`
//! example (the `loop` tool through the engine, N = 1000) of ours and of
//! the baseline, run in turn.

use std::path::Path;
use std::process::Command;

use mcpgraph_bench::median;
use mcpgraph_bench::report::{Better, Cell, Row};

use crate::{Config, log};

/// Loop size and calls per run of the example.
const N: &str = "1000";

pub(crate) fn in_process(config: &Config) -> Result<Vec<Row>, String> {
    let ours = config.bin_dir.join("examples/engine_loop");
    if !ours.is_file() {
        log("per node in process: skipped (examples/engine_loop not built)");
        return Ok(Vec::new());
    }
    let base = config
        .baseline
        .as_ref()
        .map(|b| b.bin_dir.join("examples/engine_loop"))
        .filter(|p| p.is_file());
    log("per node in process: engine_loop");
    let (runs, calls) = if config.quick { (3, "100") } else { (7, "300") };
    let mut samples: [Vec<f64>; 2] = Default::default();
    for run in 0..runs {
        let programs = [Some(&ours), base.as_ref()];
        for i in [run % 2, (run + 1) % 2] {
            if let Some(program) = programs[i] {
                samples[i].push(ns_per_node(program, calls)?);
            }
        }
    }
    let base_cell = match (&config.baseline, &base) {
        (None, _) => None,
        (Some(_), None) => Some(Cell::Text("engine_loop not built".into())),
        (Some(_), Some(_)) => Some(Cell::Value(median(&samples[1]))),
    };
    Ok(vec![Row {
        section: "per node",
        workload: "loop: a transform and a switch per round".into(),
        figure: format!("in process (engine_loop, N = {N}, median of {runs} runs)"),
        unit: "ns",
        better: Better::Lower,
        ours: Cell::Value(median(&samples[0])),
        hand: Cell::na(),
        mcpgraph: Cell::na(),
        other: None,
        baseline: base_cell,
    }])
}

/// One run of `program`: the ns per node it prints.
fn ns_per_node(program: &Path, calls: &str) -> Result<f64, String> {
    let output = Command::new(program)
        .args([N, calls])
        .output()
        .map_err(|e| format!("{}: {e}", program.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!(
            "{} failed: {}",
            program.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    // "loop n=1000: 2.1ms per call, 1050 ns per node (2003 nodes)"
    stdout
        .split(", ")
        .nth(1)
        .and_then(|s| s.split(" ns per node").next())
        .and_then(|s| s.trim().parse().ok())
        .ok_or_else(|| format!("{}: unexpected output `{stdout}`", program.display()))
}
