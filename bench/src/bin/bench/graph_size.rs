//! How cost grows with the graph (full runs only): generated graphs of 10,
//! 100 and 500 tools of 12 nodes each (transforms building JSONata
//! objects, switches with JSON Logic rules, two `mcp` nodes), each a crate
//! of its own on the facade as a user's crate is, built in one target
//! directory whose dependencies a small crate warmed first. Per size: the
//! first `cargo build` of the crate (release and debug), the macro's own
//! expansion time, the release binary, and the rebuild after editing one
//! tool; then how each grows from 10 tools to 500.

use std::path::Path;

use mcpgraph_bench::buildside::{self, NODES_PER_TOOL};
use mcpgraph_bench::report::{Better, Cell, Row};

use crate::first_build::cargo_build;
use crate::{Config, log};

/// The graph sizes, in tools.
const SIZES: [usize; 3] = [10, 100, 500];

/// One size's figures.
struct Figures {
    tools: usize,
    release: f64,
    debug: f64,
    expansion_ms: f64,
    binary_mb: f64,
    rebuild_release: f64,
    rebuild_debug: f64,
}

pub(crate) fn graph_size_rows(config: &Config) -> Result<Vec<Row>, String> {
    if config.quick {
        log("graph size: skipped in a quick run");
        return Ok(Vec::new());
    }
    let work = config.work.join("graph-size");
    let _ = std::fs::remove_dir_all(&work);
    let result = measure(config, &work);
    // The target directory holds a few GB that nothing else reads.
    let _ = std::fs::remove_dir_all(&work);
    result
}

fn measure(config: &Config, work: &Path) -> Result<Vec<Row>, String> {
    let target = work.join("target");
    let facade = config.root.join("mcpgraph");
    let lock = config.root.join("Cargo.lock");
    let crate_at = |tools: usize, edit: u32| -> Result<std::path::PathBuf, String> {
        let dir = work.join(format!("scale-{tools}"));
        buildside::write_tools_crate(&dir, &facade, tools, edit)?;
        // The workspace's versions, so every size builds the same code.
        if !dir.join("Cargo.lock").is_file() {
            std::fs::copy(&lock, dir.join("Cargo.lock")).map_err(|e| e.to_string())?;
        }
        Ok(dir)
    };
    log("graph size: warming the dependencies (a one-tool crate, release and debug)");
    let warm = crate_at(1, 0)?;
    for release in [true, false] {
        cargo_build(&warm, &target, release)?;
    }
    let mut figures = Vec::new();
    for tools in SIZES {
        log(&format!(
            "graph size: {tools} tools of {NODES_PER_TOOL} nodes"
        ));
        let dir = crate_at(tools, 0)?;
        let release = cargo_build(&dir, &target, true)?;
        let debug = cargo_build(&dir, &target, false)?;
        let runs = if tools >= 500 { 3 } else { 5 };
        let (expansion_ms, _) = buildside::expansion_ms(&dir.join("graph.yaml"), runs)?;
        let binary = target.join(format!("release/scale-{tools}"));
        let binary_mb = std::fs::metadata(&binary)
            .map_err(|e| format!("{}: {e}", binary.display()))?
            .len() as f64
            / 1e6;
        crate_at(tools, 1)?;
        let rebuild_release = cargo_build(&dir, &target, true)?;
        let rebuild_debug = cargo_build(&dir, &target, false)?;
        figures.push(Figures {
            tools,
            release,
            debug,
            expansion_ms,
            binary_mb,
            rebuild_release,
            rebuild_debug,
        });
    }
    Ok(rows(&figures))
}

fn rows(figures: &[Figures]) -> Vec<Row> {
    let row = |workload: String, figure: &str, unit: &'static str, value: f64| Row {
        section: "graph size",
        workload,
        figure: figure.into(),
        unit,
        better: Better::Lower,
        ours: Cell::Value(value),
        hand: Cell::na(),
        mcpgraph: Cell::Text("none (interpreted)".into()),
        other: None,
        baseline: None,
    };
    let mut rows = Vec::new();
    for f in figures {
        let workload = format!(
            "{} tools × {NODES_PER_TOOL} nodes ({} nodes)",
            f.tools,
            f.tools * NODES_PER_TOOL
        );
        let build = "first build of the crate, dependencies built";
        rows.push(row(
            workload.clone(),
            &format!("{build}, release"),
            "s",
            f.release,
        ));
        rows.push(row(
            workload.clone(),
            &format!("{build}, debug"),
            "s",
            f.debug,
        ));
        rows.push(row(
            workload.clone(),
            "the macro's expansion (parse, check, emit), median",
            "ms",
            f.expansion_ms,
        ));
        rows.push(row(workload.clone(), "release binary", "MB", f.binary_mb));
        rows.push(row(
            workload.clone(),
            "rebuild after editing one tool, release",
            "s",
            f.rebuild_release,
        ));
        rows.push(row(
            workload,
            "rebuild after editing one tool, debug",
            "s",
            f.rebuild_debug,
        ));
    }
    let (Some(small), Some(large)) = (figures.first(), figures.last()) else {
        return rows;
    };
    let times = large.tools as f64 / small.tools as f64;
    let growth = format!("from {} tools to {}", small.tools, large.tools);
    let ratio = |figure: &str, value: f64| row(growth.clone(), figure, "×", value);
    rows.push(ratio(
        &format!(
            "release build: {} tools ÷ ({times:.0} × {} tools); linear: ≤ 1.2",
            large.tools, small.tools
        ),
        large.release / (times * small.release),
    ));
    rows.push(ratio(
        &format!(
            "debug build: {} tools ÷ ({times:.0} × {} tools)",
            large.tools, small.tools
        ),
        large.debug / (times * small.debug),
    ));
    rows.push(ratio(
        &format!(
            "expansion: {} tools ÷ ({times:.0} × {} tools)",
            large.tools, small.tools
        ),
        large.expansion_ms / (times * small.expansion_ms),
    ));
    let added_nodes = ((large.tools - small.tools) * NODES_PER_TOOL) as f64;
    rows.push(row(
        growth.clone(),
        "release binary per added node",
        "KiB",
        (large.binary_mb - small.binary_mb) * 1e6 / 1024.0 / added_nodes,
    ));
    rows.push(ratio(
        &format!(
            "rebuild after editing one tool, release: {} tools ÷ {} tools; goal ≤ 3",
            large.tools, small.tools
        ),
        large.rebuild_release / small.rebuild_release,
    ));
    rows.push(ratio(
        &format!(
            "rebuild after editing one tool, debug: {} tools ÷ {} tools",
            large.tools, small.tools
        ),
        large.rebuild_debug / small.rebuild_debug,
    ));
    rows
}
