//! The first build a newcomer waits through (full runs only): `mcpgraph
//! new` makes the starter crate against this checkout, which then builds
//! in a fresh target directory, in debug and in release; a second starter
//! crate then builds in the first one's target directory, as two crates
//! made by `mcpgraph new` share one. The registry is downloaded already
//! (the harness itself was built from it), so the figures are compile
//! time only.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use mcpgraph_bench::report::{Better, Cell, Row};

use crate::{Config, log};

/// The rows: first debug build, first release build, the second crate's
/// first build, and the packages in the starter's lock file.
pub(crate) fn first_build_rows(config: &Config) -> Result<Vec<Row>, String> {
    if config.quick {
        log("first build: skipped in a quick run");
        return Ok(Vec::new());
    }
    let mcpgraph = config.bin_dir.join("mcpgraph");
    if !mcpgraph.is_file() {
        return Err(format!(
            "missing {} (scripts/bench.sh builds it in a full run)",
            mcpgraph.display()
        ));
    }
    let work = config.work.join("first-build");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    let result = measure(config, &mcpgraph, &work);
    // Two fresh target directories: about 3 GB that nothing else reads.
    let _ = std::fs::remove_dir_all(&work);
    result
}

fn measure(config: &Config, mcpgraph: &Path, work: &Path) -> Result<Vec<Row>, String> {
    let crate_dir = new_crate(config, mcpgraph, work, "starter")?;
    log("first build: the starter crate in a fresh target directory, debug");
    let debug_target = work.join("target-debug");
    let debug = cargo_build(&crate_dir, &debug_target, false)?;
    let packages = lock_packages(&crate_dir)?;
    log("first build: the starter crate in a fresh target directory, release");
    let release = cargo_build(&crate_dir, &work.join("target-release"), true)?;
    let second_dir = new_crate(config, mcpgraph, work, "second")?;
    log("first build: a second starter crate in the first one's target directory");
    let second = cargo_build(&second_dir, &debug_target, false)?;

    let workload = "first build of the `mcpgraph new` starter crate (fresh target directory, registry downloaded)";
    let row = |figure: &str, unit: &'static str, value: f64, ts: &str| Row {
        section: "build",
        workload: workload.into(),
        figure: figure.into(),
        unit,
        better: Better::Lower,
        ours: Cell::Value(value),
        hand: Cell::na(),
        mcpgraph: Cell::Text(ts.into()),
        other: None,
        baseline: config
            .baseline
            .as_ref()
            .map(|_| Cell::Text("not measured".into())),
    };
    Ok(vec![
        row("cargo build (debug)", "s", debug, "none (npx, no build)"),
        row(
            "cargo build --release",
            "s",
            release,
            "none (npx, no build)",
        ),
        row(
            "a second crate's first build, in the target directory `mcpgraph new` shares (debug)",
            "s",
            second,
            "none (npx, no build)",
        ),
        row(
            "packages in the starter's Cargo.lock",
            "",
            packages as f64,
            "n/a",
        ),
    ])
}

/// `mcpgraph new WORK/NAME` against this checkout, building in a target
/// directory the harness gives (`--own-target`).
fn new_crate(
    config: &Config,
    mcpgraph: &Path,
    work: &Path,
    name: &str,
) -> Result<std::path::PathBuf, String> {
    let dir = work.join(name);
    let output = Command::new(mcpgraph)
        .arg("new")
        .arg(&dir)
        .arg("--mcpgraph-path")
        .arg(&config.root)
        .arg("--own-target")
        .output()
        .map_err(|e| format!("{}: {e}", mcpgraph.display()))?;
    if !output.status.success() {
        return Err(format!(
            "mcpgraph new failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(dir)
}

/// Seconds of one `cargo build` of the crate at `dir` into `target`, as a
/// user runs it (the graph-size rows' builds too).
pub(crate) fn cargo_build(dir: &Path, target: &Path, release: bool) -> Result<f64, String> {
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    command
        .current_dir(dir)
        .arg("build")
        .env("CARGO_TARGET_DIR", target)
        // The harness's own build settings are not a user's (whose debug
        // builds are incremental).
        .env_remove("CARGO_INCREMENTAL")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS");
    if release {
        command.arg("--release");
    }
    let started = Instant::now();
    let output = command.output().map_err(|e| format!("cargo: {e}"))?;
    let secs = started.elapsed().as_secs_f64();
    if !output.status.success() {
        return Err(format!(
            "cargo build in {} failed:\n{}",
            dir.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(secs)
}

/// The packages in the crate's `Cargo.lock` after its build (cargo drops
/// the entries of the checkout's lock that the crate does not use).
fn lock_packages(dir: &Path) -> Result<usize, String> {
    let path = dir.join("Cargo.lock");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(text.lines().filter(|l| *l == "[[package]]").count())
}
