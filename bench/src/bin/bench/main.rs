//! The benchmark driver: runs every measure against the three peers —
//! the generated server (`bench-graph`), the hand-written rmcp server
//! (`bench-handwritten`) and mcpGraph 0.1.23 (`node .../mcpgraph/dist/main.js`)
//! — interleaved round by round (A B C, B C A, …) so machine noise cancels,
//! prints the markdown table and writes it with a chart.
//!
//! ```text
//! bench [--quick] [--rebuild] [--out DIR] [--only MEASURE,...]
//! ```
//!
//! `--only` runs the measures named (the module names below: `latency`,
//! `limit`, `proxy`, …; the throughput rows also run the latency they are
//! sized from) and writes under the release directory's `bench-only/`.
//!
//! A fourth peer, the **baseline**, joins when `MCPGRAPH_BENCH_BASELINE`
//! names a `bench-graph` binary built from an earlier commit (release, in a
//! target directory of its own): it is interleaved like the others, so one
//! run prints before and after on the same machine. Its in-process loop
//! figure comes from `examples/engine_loop` beside it, when built; its
//! rebuild figures from `MCPGRAPH_BENCH_BASELINE_SRC`, that commit's source
//! tree (built into the binary's target directory), when set.
//!
//! Run through `scripts/bench.sh`, which installs the pinned peers and
//! builds the release binaries first. It only measures: nothing here fails
//! on a slow figure.
//!
//! One module a measure, each returning its rows of the table: [`startup`],
//! [`latency`], [`throughput`] (stdio and HTTP), [`limit`] (the physical
//! limit: a raw echo server with no SDK beside ours and the hand-written), [`tasks`] (a call as an
//! MCP task, memory and Redis stores), [`memory`], [`fan_out`]
//! (its own peers: `parallel` and `forEach` over slow servers), [`proxy`]
//! (mcp-proxy as a peer, full runs only), [`micro`],
//! [`build`] (the build side), [`first_build`] (the starter crate's first
//! build, full runs only), [`graph_size`] and [`work_size`] (how cost
//! grows with the graph and with the work, full runs only); [`output`]
//! writes the results.

mod build;
mod fan_out;
mod first_build;
mod graph_size;
mod latency;
mod limit;
mod memory;
mod micro;
mod output;
mod per_node;
mod proxy;
mod startup;
mod tasks;
mod throughput;
mod work_size;

use std::path::{Path, PathBuf};
use std::time::Instant;

use mcpgraph_bench::report::{self, Cell};
use mcpgraph_bench::rpc::{Launch, StdioPeer};
use mcpgraph_bench::workloads;

// The peers, in the order of `Config::launches` and of every sample array.
const OURS: usize = 0;
const HAND: usize = 1;
const TS: usize = 2;
const BASE: usize = 3;
const PEER_NAMES: [&str; 4] = ["ours", "hand-written", "mcpGraph", "baseline"];
/// Calls in flight in the throughput measures.
const IN_FLIGHT: usize = 64;

/// What every measure reads: the mode, the places, how to start each peer.
struct Config {
    quick: bool,
    /// Time the rebuilds even in a quick run.
    rebuild: bool,
    root: PathBuf,
    bin_dir: PathBuf,
    work: PathBuf,
    out: PathBuf,
    /// Indexed by `OURS`, `HAND`, `TS` and, with a baseline, `BASE`.
    launches: Vec<Launch>,
    baseline: Option<Baseline>,
}

/// The graph server built from an earlier commit.
struct Baseline {
    /// The directory of its `bench-graph` (a cargo `target/release`).
    bin_dir: PathBuf,
    /// That commit's source tree, for the rebuild figures.
    src: Option<PathBuf>,
}

impl Config {
    /// Rounds of interleaving for the server measures.
    fn rounds(&self) -> usize {
        if self.quick { 2 } else { 5 }
    }

    /// How many peers take part: three, or four with a baseline.
    fn peers(&self) -> usize {
        self.launches.len()
    }

    /// The baseline's cell of a row, `figure(BASE)`, when there is one.
    fn base_cell(&self, figure: impl Fn(usize) -> Cell) -> Option<Cell> {
        self.baseline.as_ref().map(|_| figure(BASE))
    }
}

/// The baseline peer from `MCPGRAPH_BENCH_BASELINE`, if set.
fn baseline_from_env() -> Result<Option<Baseline>, String> {
    let Some(program) = std::env::var_os("MCPGRAPH_BENCH_BASELINE") else {
        return Ok(None);
    };
    let program = PathBuf::from(program);
    if !program.is_file() {
        return Err(format!(
            "MCPGRAPH_BENCH_BASELINE: no file {}",
            program.display()
        ));
    }
    let bin_dir = program
        .parent()
        .ok_or("MCPGRAPH_BENCH_BASELINE: no directory")?
        .to_path_buf();
    let src = std::env::var_os("MCPGRAPH_BENCH_BASELINE_SRC").map(PathBuf::from);
    Ok(Some(Baseline { bin_dir, src }))
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
    let mut rebuild = false;
    let mut out: Option<PathBuf> = None;
    let mut only: Option<Vec<String>> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => quick = true,
            "--rebuild" => rebuild = true,
            "--out" => out = args.next().map(PathBuf::from),
            "--only" => {
                let list = args.next().ok_or("--only needs a list of measures")?;
                only = Some(list.split(',').map(str::to_owned).collect());
            }
            other => {
                return Err(format!(
                    "unknown argument `{other}` (use --quick, --rebuild, --out DIR, --only LIST)"
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
        if only.is_some() {
            bin_dir.join("bench-only")
        } else if quick {
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
    let ours = Launch {
        program: bin_dir.join("bench-graph"),
        args: vec!["--mcp".into(), mcp_arg.clone(), "serve".into()],
    };
    let baseline = baseline_from_env()?;
    let mut launches = vec![
        ours.clone(),
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
    if let Some(b) = &baseline {
        launches.push(Launch {
            program: b.bin_dir.join("bench-graph"),
            ..ours
        });
    }
    let config = Config {
        quick,
        rebuild,
        root,
        bin_dir,
        work,
        out,
        launches,
        baseline,
    };
    let workloads = workloads::all(&counting.to_string_lossy(), files);
    let started = Instant::now();
    let machine = output::machine_description();
    log(&format!(
        "{} run{}; results go to {}",
        if quick { "quick" } else { "full" },
        match &config.baseline {
            Some(b) => format!(" with a baseline from {}", b.bin_dir.display()),
            None => String::new(),
        },
        config.out.display()
    ));

    let runs = |measure: &str| only.as_ref().is_none_or(|o| o.iter().any(|m| m == measure));
    let mut rows = Vec::new();
    if runs("startup") {
        rows.extend(startup::startup(&config)?);
    }
    let throughput = runs("throughput") || runs("throughput_stdio") || runs("throughput_http");
    let mut mean_latency = Vec::new();
    if runs("latency") || throughput {
        let (latency_rows, means) = latency::latency(&config, &workloads)?;
        rows.extend(latency_rows);
        mean_latency = means;
    }
    if runs("throughput") || runs("throughput_stdio") {
        rows.extend(throughput::throughput_stdio(
            &config,
            &workloads,
            &mean_latency,
        )?);
    }
    if runs("limit") {
        rows.extend(limit::limit_rows(&config, &workloads)?);
    }
    if runs("throughput") || runs("throughput_http") {
        rows.extend(throughput::throughput_http(
            &config,
            &workloads,
            &mean_latency,
        )?);
    }
    if runs("tasks") {
        rows.extend(tasks::task_rows(&config, &workloads)?);
    }
    if runs("memory") {
        rows.extend(memory::memory(&config, &workloads)?);
    }
    if runs("fan_out") {
        rows.extend(fan_out::fan_out_rows(&config)?);
    }
    if runs("proxy") {
        rows.extend(proxy::proxy_rows(&config)?);
    }
    if runs("per_node") {
        rows.extend(per_node::in_process(&config)?);
    }
    if runs("micro") {
        rows.extend(micro::micro_rows(&config)?);
    }
    if runs("build") {
        rows.extend(build::build_rows(&config)?);
    }
    if runs("first_build") {
        rows.extend(first_build::first_build_rows(&config)?);
    }
    if runs("graph_size") {
        rows.extend(graph_size::graph_size_rows(&config)?);
    }
    if runs("work_size") {
        rows.extend(work_size::work_size_rows(&config)?);
    }

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

/// Starts every peer over stdio.
fn start_all(config: &Config) -> Result<Vec<StdioPeer>, String> {
    config
        .launches
        .iter()
        .map(|l| StdioPeer::start(l).map(|(p, _)| p))
        .collect()
}

/// Order of `peers` peers for round `round`: rotated so each peer takes
/// each slot.
fn order(round: usize, peers: usize) -> Vec<usize> {
    (0..peers).map(|k| (round + k) % peers).collect()
}
