//! The build side: macro expansion of synthetic graphs against mcpGraph's
//! load, the incremental release rebuild, and the binary sizes.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use mcpgraph_bench::report::{Better, Cell, Row};
use mcpgraph_bench::{buildside, median};
use serde_json::Value;

use crate::{Config, log};

pub(crate) fn build_rows(config: &Config) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    log("build side: expansion of synthetic graphs");
    let sizes = [10usize, 100, 1000];
    let mut ts_files = Vec::new();
    let mut ours = Vec::new();
    for &n in &sizes {
        let (rs, ts) = buildside::write_synthetic(&config.work, n)?;
        let runs = match (config.quick, n) {
            (true, 1000) => 2,
            (true, _) => 5,
            (false, 1000) => 5,
            (false, 100) => 15,
            (false, _) => 40,
        };
        ours.push(buildside::expansion_ms(&rs, runs)?);
        ts_files.push(ts);
    }
    let output = Command::new("node")
        .arg(config.root.join("bench/js/load.mjs"))
        .arg(if config.quick { "3" } else { "9" })
        .args(&ts_files)
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("node: {e}"))?;
    let loads: Value =
        serde_json::from_slice(&output.stdout).map_err(|e| format!("load.mjs: {e}"))?;
    for (k, &n) in sizes.iter().enumerate() {
        let (ms, size) = ours[k];
        rows.push(Row {
            section: "build",
            workload: format!(
                "synthetic graph, {n} nodes ({} KB of generated Rust)",
                size / 1000
            ),
            figure: "expansion (ours, once per build) vs load + validate (mcpGraph, every start)"
                .into(),
            unit: "ms",
            better: Better::Lower,
            ours: Cell::Value(ms),
            hand: Cell::na(),
            mcpgraph: loads[ts_files[k].to_string_lossy().as_ref()]
                .as_f64()
                .map_or_else(Cell::na, Cell::Value),
        });
    }

    if config.quick {
        log("build side: incremental rebuild skipped (--quick)");
    } else {
        rows.push(rebuild_row(config)?);
    }
    rows.push(size_row(config)?);
    Ok(rows)
}

/// Release rebuild of the graph server after touching its YAML, and of the
/// hand-written server after touching its source.
fn rebuild_row(config: &Config) -> Result<Row, String> {
    log("build side: incremental rebuild after touching the source");
    let targets = [
        ("bench/graphs/bench.yaml", "bench-graph"),
        ("bench/src/bin/handwritten.rs", "bench-handwritten"),
    ];
    // One sample each: a release rebuild is long, and the machine is shared.
    let reps = 1;
    let mut rebuild: [Vec<f64>; 2] = Default::default();
    let mut blocked = false;
    for (_, bin) in targets {
        cargo_build(config, bin)?; // up to date first
    }
    for rep in 0..reps {
        for i in [rep % 2, (rep + 1) % 2] {
            let (file, bin) = targets[i];
            let path = config.root.join(file);
            let f = std::fs::File::options()
                .append(true)
                .open(&path)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            f.set_modified(std::time::SystemTime::now())
                .map_err(|e| format!("touch {}: {e}", path.display()))?;
            drop(f);
            let (secs, waited) = cargo_build(config, bin)?;
            blocked |= waited;
            rebuild[i].push(secs);
        }
    }
    Ok(Row {
        section: "build",
        workload: "incremental rebuild after touching the source (graph YAML / handwritten .rs)"
            .into(),
        figure: if blocked {
            "cargo build --release (waited for a lock: noisy)".into()
        } else {
            "cargo build --release".into()
        },
        unit: "s",
        better: Better::Lower,
        ours: Cell::Value(median(&rebuild[0])),
        hand: Cell::Value(median(&rebuild[1])),
        mcpgraph: Cell::Text("none (interpreted)".into()),
    })
}

/// Sizes of the release binaries (and of mcpGraph's install).
fn size_row(config: &Config) -> Result<Row, String> {
    let size = |name: &str| {
        std::fs::metadata(config.bin_dir.join(name))
            .map(|m| m.len() as f64 / 1e6)
            .map_err(|e| format!("{name}: {e}"))
    };
    let node_modules = dir_size(&config.root.join("bench/node_modules")) as f64 / 1e6;
    Ok(Row {
        section: "build",
        workload: "binary size (mcpGraph: its node_modules, without node itself)".into(),
        figure: "release, not stripped".into(),
        unit: "MB",
        better: Better::Lower,
        ours: Cell::Value(size("bench-graph")?),
        hand: Cell::Value(size("bench-handwritten")?),
        mcpgraph: Cell::Value(node_modules),
    })
}

/// Builds one binary of this crate in release; the wall time, and whether
/// cargo waited for a lock held by another build.
fn cargo_build(config: &Config, bin: &str) -> Result<(f64, bool), String> {
    let started = Instant::now();
    let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(&config.root)
        .args(["build", "--release", "-p", "mcpgraph-bench", "--bin", bin])
        .output()
        .map_err(|e| format!("cargo: {e}"))?;
    let secs = started.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(format!("cargo build --bin {bin} failed:\n{stderr}"));
    }
    Ok((secs, stderr.contains("Blocking waiting")))
}

fn dir_size(path: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(path) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_size(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map_or(0, |m| m.len()),
            _ => 0,
        })
        .sum()
}
