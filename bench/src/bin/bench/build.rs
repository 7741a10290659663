//! The build side: macro expansion of synthetic graphs against mcpGraph's
//! load, the incremental rebuilds (release and debug), and the binary sizes.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use mcpgraph_bench::report::{Better, Cell, Row};
use mcpgraph_bench::{buildside, median};
use serde_json::Value;

use crate::{Baseline, Config, log};

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
            other: None,
            baseline: None,
        });
    }

    if config.quick && !config.rebuild {
        log("build side: incremental rebuilds skipped (--quick without --rebuild)");
    } else {
        rows.extend(rebuild_rows(config)?);
    }
    rows.push(size_row(config)?);
    rows.extend(stdio_size_row(config));
    Ok(rows)
}

/// What one rebuild figure rebuilds: the file touched, the binary, where
/// cargo runs and into which target directory (`None`: the default).
struct Rebuild<'a> {
    dir: &'a Path,
    file: &'static str,
    package: &'static str,
    bin: &'static str,
    target_dir: Option<&'a Path>,
}

/// The package of `bench-graph` in the checkout at `dir`: its own since it
/// is built as a user's crate is, `mcpgraph-bench` in older checkouts.
fn graph_package(dir: &Path) -> &'static str {
    if dir.join("bench/graph/Cargo.toml").is_file() {
        "mcpgraph-bench-graph"
    } else {
        "mcpgraph-bench"
    }
}

/// Rebuilds after touching the source — the graph's YAML for ours (and the
/// baseline), handwritten.rs for the hand-written server — in release and
/// in debug, the peers in turn.
fn rebuild_rows(config: &Config) -> Result<Vec<Row>, String> {
    log("build side: incremental rebuilds after touching the source");
    let graph = ("bench/graphs/bench.yaml", "bench-graph");
    let hand = ("bench/src/bin/handwritten.rs", "bench-handwritten");
    let base_target = config
        .baseline
        .as_ref()
        .and_then(|b| b.bin_dir.parent().map(|t| (b, t)));
    let mut targets = vec![
        Rebuild {
            dir: &config.root,
            file: graph.0,
            package: graph_package(&config.root),
            bin: graph.1,
            target_dir: None,
        },
        Rebuild {
            dir: &config.root,
            file: hand.0,
            package: "mcpgraph-bench",
            bin: hand.1,
            target_dir: None,
        },
    ];
    if let Some((Baseline { src: Some(src), .. }, target)) = base_target {
        targets.push(Rebuild {
            dir: src,
            file: graph.0,
            package: graph_package(src),
            bin: graph.1,
            target_dir: Some(target),
        });
    }
    let mut rows = Vec::new();
    for (release, reps) in [(true, 1), (false, 3)] {
        rows.push(rebuild_row(config, &targets, release, reps)?);
    }
    Ok(rows)
}

/// `reps` rebuilds of each of `targets` in one profile, interleaved.
fn rebuild_row(
    config: &Config,
    targets: &[Rebuild],
    release: bool,
    reps: usize,
) -> Result<Row, String> {
    let mut rebuild = vec![Vec::new(); targets.len()];
    let mut blocked = false;
    for target in targets {
        cargo_build(target, release)?; // up to date first
    }
    for rep in 0..reps {
        for k in 0..targets.len() {
            let i = (rep + k) % targets.len();
            let target = &targets[i];
            let path = target.dir.join(target.file);
            let f = std::fs::File::options()
                .append(true)
                .open(&path)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            f.set_modified(std::time::SystemTime::now())
                .map_err(|e| format!("touch {}: {e}", path.display()))?;
            drop(f);
            let (secs, waited) = cargo_build(target, release)?;
            blocked |= waited;
            rebuild[i].push(secs);
        }
    }
    let profile = if release {
        "cargo build --release"
    } else {
        "cargo build (debug)"
    };
    let figure = match (blocked, reps) {
        (true, _) => format!("{profile} (waited for a lock: noisy)"),
        (false, 1) => profile.to_owned(),
        (false, _) => format!("{profile}, median of {reps}"),
    };
    Ok(Row {
        section: "build",
        workload: "incremental rebuild after touching the source (graph YAML / handwritten .rs)"
            .into(),
        figure,
        unit: "s",
        better: Better::Lower,
        ours: Cell::Value(median(&rebuild[0])),
        hand: Cell::Value(median(&rebuild[1])),
        mcpgraph: Cell::Text("none (interpreted)".into()),
        other: None,
        baseline: config.baseline.as_ref().map(|_| match rebuild.get(2) {
            Some(samples) => Cell::Value(median(samples)),
            None => Cell::Text("needs MCPGRAPH_BENCH_BASELINE_SRC".into()),
        }),
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
        other: None,
        baseline: config.base_cell(|_| match &config.baseline {
            Some(b) => std::fs::metadata(b.bin_dir.join("bench-graph"))
                .map_or_else(|_| Cell::na(), |m| Cell::Value(m.len() as f64 / 1e6)),
            None => Cell::na(),
        }),
    })
}

/// The size of `bench-graph` built with stdio only (`default-features =
/// false`: no HTTP serving or calling, no TLS, the system allocator), which
/// `scripts/bench.sh` builds into `bench-stdio/` beside the release
/// directory in full runs; none without it.
fn stdio_size_row(config: &Config) -> Option<Row> {
    let target = config.bin_dir.parent()?;
    let size = |path: &Path| std::fs::metadata(path).ok().map(|m| m.len() as f64 / 1e6);
    let ours = size(&target.join("bench-stdio/release/bench-graph"))?;
    Some(Row {
        section: "build",
        workload: "binary size, stdio only (`default-features = false`)".into(),
        figure: "release, not stripped; the floor as built".into(),
        unit: "MB",
        better: Better::Lower,
        ours: Cell::Value(ours),
        hand: size(&config.bin_dir.join("bench-handwritten")).map_or_else(Cell::na, Cell::Value),
        mcpgraph: Cell::na(),
        other: None,
        baseline: config.base_cell(|_| Cell::na()),
    })
}

/// Builds one binary of the bench crate; the wall time, and whether cargo
/// waited for a lock held by another build.
fn cargo_build(target: &Rebuild, release: bool) -> Result<(f64, bool), String> {
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    command.current_dir(target.dir).arg("build");
    if release {
        command.arg("--release");
    }
    command.args(["-p", target.package, "--bin", target.bin]);
    if let Some(dir) = target.target_dir {
        command.env("CARGO_TARGET_DIR", dir);
    }
    let started = Instant::now();
    let output = command.output().map_err(|e| format!("cargo: {e}"))?;
    let secs = started.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(format!(
            "cargo build --bin {} in {} failed:\n{stderr}",
            target.bin,
            target.dir.display()
        ));
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
