//! The benchmark driver: runs every measure against the three peers —
//! the generated server (`bench-graph`), the hand-written rmcp server
//! (`bench-handwritten`) and mcpGraph 0.1.23 (`node .../mcpgraph/dist/main.js`)
//! — interleaved round by round (A B C, B C A, …) so machine noise cancels,
//! prints the markdown table and writes it with a chart.
//!
//! ```text
//! bench [--quick] [--out DIR]
//! ```
//!
//! Run through `scripts/bench.sh`, which installs the pinned peers and
//! builds the release binaries first. It only measures: nothing here fails
//! on a slow figure.
//!
//! One module a measure, each returning its rows of the table: [`startup`],
//! [`latency`], [`throughput`] (stdio and HTTP), [`memory`], [`micro`], and
//! [`build`] (the build side); [`output`] writes the results.

mod build;
mod latency;
mod memory;
mod micro;
mod output;
mod startup;
mod throughput;

use std::path::{Path, PathBuf};
use std::time::Instant;

use mcpgraph_bench::report;
use mcpgraph_bench::rpc::{Launch, StdioPeer};
use mcpgraph_bench::workloads;

// The peers, in the order of `Config::launches` and of every sample array.
const OURS: usize = 0;
const HAND: usize = 1;
const TS: usize = 2;
const PEER_NAMES: [&str; 3] = ["ours", "hand-written", "mcpGraph"];
/// Calls in flight in the throughput measures.
const IN_FLIGHT: usize = 64;

/// What every measure reads: the mode, the places, how to start each peer.
struct Config {
    quick: bool,
    root: PathBuf,
    bin_dir: PathBuf,
    work: PathBuf,
    out: PathBuf,
    launches: [Launch; 3],
}

impl Config {
    /// Rounds of interleaving for the server measures.
    fn rounds(&self) -> usize {
        if self.quick { 2 } else { 5 }
    }
}

fn log(message: &str) {
    eprintln!("bench: {message}");
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let mut quick = false;
    let mut out: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => quick = true,
            "--out" => out = args.next().map(PathBuf::from),
            other => {
                return Err(format!(
                    "unknown argument `{other}` (use --quick, --out DIR)"
                ));
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("no workspace root")?
        .to_path_buf();
    let bin_dir = std::env::current_exe()
        .map_err(|e| e.to_string())?
        .parent()
        .ok_or("no binary directory")?
        .to_path_buf();
    let work = bin_dir.join("bench-work");
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    let out = out.unwrap_or_else(|| {
        if quick {
            bin_dir.join("bench-quick")
        } else {
            root.join("docs/bench")
        }
    });

    let fs_js =
        root.join("peers/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    let ts_main = root.join("bench/node_modules/mcpgraph/dist/main.js");
    for needed in [&fs_js, &ts_main] {
        if !needed.is_file() {
            return Err(format!(
                "missing {} (run scripts/bench.sh, which installs the pinned peers)",
                needed.display()
            ));
        }
    }
    let counting = root.join("examples/file_utils/counting");
    let files = std::fs::read_dir(&counting)
        .map_err(|e| format!("{}: {e}", counting.display()))?
        .count();
    let mcp_json = work.join("mcp.json");
    let mcp = serde_json::json!({"mcpServers": {"filesystem": {
        "command": "node",
        "args": [fs_js.to_string_lossy(), counting.to_string_lossy()],
    }}});
    std::fs::write(&mcp_json, mcp.to_string()).map_err(|e| e.to_string())?;
    let mcp_arg = mcp_json.to_string_lossy().into_owned();
    let launches = [
        Launch {
            program: bin_dir.join("bench-graph"),
            args: vec!["--mcp".into(), mcp_arg.clone(), "serve".into()],
        },
        Launch {
            program: bin_dir.join("bench-handwritten"),
            args: vec!["--mcp".into(), mcp_arg.clone()],
        },
        Launch {
            program: PathBuf::from("node"),
            args: vec![
                ts_main.to_string_lossy().into_owned(),
                "-g".into(),
                root.join("bench/graphs/bench.mcpgraph.yaml")
                    .to_string_lossy()
                    .into_owned(),
                "-m".into(),
                mcp_arg,
            ],
        },
    ];
    let config = Config {
        quick,
        root,
        bin_dir,
        work,
        out,
        launches,
    };
    let workloads = workloads::all(&counting.to_string_lossy(), files);
    let started = Instant::now();
    let machine = output::machine_description();
    log(&format!(
        "{} run; results go to {}",
        if quick { "quick" } else { "full" },
        config.out.display()
    ));

    let mut rows = Vec::new();
    rows.extend(startup::startup(&config)?);
    let (latency_rows, mean_latency) = latency::latency(&config, &workloads)?;
    rows.extend(latency_rows);
    rows.extend(throughput::throughput_stdio(
        &config,
        &workloads,
        &mean_latency,
    )?);
    rows.extend(throughput::throughput_http(
        &config,
        &workloads,
        &mean_latency,
    )?);
    rows.extend(memory::memory(&config, &workloads)?);
    rows.extend(micro::micro_rows(&config)?);
    rows.extend(build::build_rows(&config)?);

    let elapsed = started.elapsed();
    let table = report::table(&rows);
    println!("{table}");
    output::write_results(&config, &rows, &table, &machine, elapsed)?;
    log(&format!(
        "done in {:.0} s; wrote {}",
        elapsed.as_secs_f64(),
        config.out.display()
    ));
    Ok(())
}

/// Starts the three peers over stdio.
fn start_all(config: &Config) -> Result<Vec<StdioPeer>, String> {
    config
        .launches
        .iter()
        .map(|l| StdioPeer::start(l).map(|(p, _)| p))
        .collect()
}

/// Peer order for round `round`: rotated so each peer takes each slot.
fn order(round: usize) -> [usize; 3] {
    [round % 3, (round + 1) % 3, (round + 2) % 3]
}
