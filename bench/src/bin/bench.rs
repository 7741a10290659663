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

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcpgraph_bench::report::{Better, Cell, Row};
use mcpgraph_bench::rpc::{Launch, REPLY_TIMEOUT, StdioPeer, rss_kib};
use mcpgraph_bench::workloads::{Workload, check_reply};
use mcpgraph_bench::{buildside, http, median, micro, quantile, report, workloads};
use serde_json::Value;

const OURS: usize = 0;
const HAND: usize = 1;
const TS: usize = 2;
const PEER_NAMES: [&str; 3] = ["ours", "hand-written", "mcpGraph"];
const IN_FLIGHT: usize = 64;

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
    let machine = machine_description();
    log(&format!(
        "{} run; results go to {}",
        if quick { "quick" } else { "full" },
        config.out.display()
    ));

    let mut rows = Vec::new();
    rows.extend(startup(&config)?);
    let (latency_rows, mean_latency) = latency(&config, &workloads)?;
    rows.extend(latency_rows);
    rows.extend(throughput_stdio(&config, &workloads, &mean_latency)?);
    rows.extend(throughput_http(&config, &workloads, &mean_latency)?);
    rows.extend(memory(&config, &workloads)?);
    rows.extend(micro_rows(&config)?);
    rows.extend(build_rows(&config)?);

    let elapsed = started.elapsed();
    let table = report::table(&rows);
    println!("{table}");
    write_results(&config, &rows, &table, &machine, elapsed)?;
    log(&format!(
        "done in {:.0} s; wrote {}",
        elapsed.as_secs_f64(),
        config.out.display()
    ));
    Ok(())
}

/// Peer order for round `round`: rotated so each peer takes each slot.
fn order(round: usize) -> [usize; 3] {
    [round % 3, (round + 1) % 3, (round + 2) % 3]
}

// ---------------------------------------------------------------------------
// Process start → initialize answered
// ---------------------------------------------------------------------------

fn startup(config: &Config) -> Result<Vec<Row>, String> {
    log("start → initialize");
    let rounds = if config.quick { 3 } else { 10 };
    let mut samples: [Vec<f64>; 3] = Default::default();
    for round in 0..rounds {
        for peer in order(round) {
            let (p, elapsed) = StdioPeer::start(&config.launches[peer])?;
            samples[peer].push(elapsed.as_secs_f64() * 1e3);
            drop(p);
        }
    }
    Ok(vec![Row {
        section: "start",
        workload: "process start → initialize answered".into(),
        figure: format!("median of {rounds}"),
        unit: "ms",
        better: Better::Lower,
        ours: Cell::Value(median(&samples[OURS])),
        hand: Cell::Value(median(&samples[HAND])),
        mcpgraph: Cell::Value(median(&samples[TS])),
    }])
}

// ---------------------------------------------------------------------------
// Sequential latency
// ---------------------------------------------------------------------------

fn start_all(config: &Config) -> Result<Vec<StdioPeer>, String> {
    config
        .launches
        .iter()
        .map(|l| StdioPeer::start(l).map(|(p, _)| p))
        .collect()
}

/// Calls `workload` on `peer` until `budget` is spent (at least `min`
/// calls, at most `max`); returns the latencies in µs. Every reply is checked.
fn sequential(
    peer: &mut StdioPeer,
    workload: &Workload,
    budget: Duration,
    min: usize,
    max: usize,
) -> Result<Vec<f64>, String> {
    let mut out = Vec::new();
    let end = Instant::now() + budget;
    while out.len() < max && (out.len() < min || Instant::now() < end) {
        let (reply, latency) = peer.call(workload.tool, &workload.args_json)?;
        check_reply(&reply, &workload.expected)?;
        out.push(latency.as_secs_f64() * 1e6);
    }
    Ok(out)
}

fn latency(config: &Config, workloads: &[Workload]) -> Result<(Vec<Row>, Vec<[f64; 3]>), String> {
    let mut peers = start_all(config)?;
    let rounds = config.rounds();
    let budget = Duration::from_millis(if config.quick { 250 } else { 1000 });
    let mut rows = Vec::new();
    let mut means = Vec::new();
    for workload in workloads {
        log(&format!("sequential latency: {}", workload.name));
        // Warm-up: JIT, lazy downstream start, allocator.
        for (i, peer) in peers.iter_mut().enumerate() {
            sequential(peer, workload, Duration::from_millis(200), 3, 200)
                .map_err(|e| format!("{} {}: {e}", PEER_NAMES[i], workload.name))?;
        }
        let mut samples: [Vec<f64>; 3] = Default::default();
        for round in 0..rounds {
            for i in order(round) {
                let s = sequential(&mut peers[i], workload, budget, 3, 5000)
                    .map_err(|e| format!("{} {}: {e}", PEER_NAMES[i], workload.name))?;
                samples[i].extend(s);
            }
        }
        let mut stats = [[0.0; 3]; 3];
        for (i, s) in samples.iter_mut().enumerate() {
            s.sort_by(f64::total_cmp);
            stats[i] = [
                quantile(s, 0.5),
                quantile(s, 0.99),
                s.iter().sum::<f64>() / s.len() as f64,
            ];
        }
        means.push([stats[0][2], stats[1][2], stats[2][2]]);
        for (k, name) in [(0, "p50"), (1, "p99")] {
            rows.push(Row {
                section: "latency (stdio, sequential)",
                workload: workload.name.to_owned(),
                figure: format!(
                    "{name} (n = {}/{}/{})",
                    samples[0].len(),
                    samples[1].len(),
                    samples[2].len()
                ),
                unit: "µs",
                better: Better::Lower,
                ours: Cell::Value(stats[OURS][k]),
                hand: Cell::Value(stats[HAND][k]),
                mcpgraph: Cell::Value(stats[TS][k]),
            });
        }
    }
    Ok((rows, means))
}

// ---------------------------------------------------------------------------
// Throughput, 64 in flight
// ---------------------------------------------------------------------------

/// How many calls make one round of about `budget` for a peer whose
/// sequential mean latency is `mean_us`.
fn calls_for(budget: Duration, mean_us: f64, min: usize, max: usize) -> usize {
    let n = (budget.as_secs_f64() * 1e6 / mean_us.max(1.0)) as usize;
    n.clamp(min, max)
}

/// `n` calls with up to 64 in flight over stdio; calls per second, or what
/// went wrong.
fn pipelined(peer: &mut StdioPeer, workload: &Workload, n: usize) -> Result<f64, String> {
    let started = Instant::now();
    let (mut sent, mut done, mut wrong) = (0usize, 0usize, 0usize);
    let mut first_wrong = None;
    while done < n {
        while sent < n && sent - done < IN_FLIGHT {
            peer.send_call(workload.tool, &workload.args_json)?;
            sent += 1;
        }
        peer.flush()?;
        let reply = peer
            .recv(REPLY_TIMEOUT)
            .map_err(|e| format!("{e} after {done} of {n} replies"))?;
        if let Err(e) = check_reply(&reply.value, &workload.expected) {
            wrong += 1;
            first_wrong.get_or_insert(e);
        }
        done += 1;
    }
    let rate = n as f64 / started.elapsed().as_secs_f64();
    match first_wrong {
        None => Ok(rate),
        Some(e) => Err(format!("{wrong} of {n} replies wrong, e.g. {}", clip(&e))),
    }
}

fn clip(s: &str) -> String {
    let s = s.replace('|', "/").replace('\n', " ");
    if s.chars().count() > 90 {
        format!("{}…", s.chars().take(90).collect::<String>())
    } else {
        s
    }
}

/// The workloads measured for throughput (loop N=1000 is left out: it only
/// repeats what loop N=100 shows, at ten times the cost).
fn in_throughput(workload: &Workload) -> bool {
    workload.name == "transform-only"
        || workload.name == "loop N=100"
        || workload.name.starts_with("count_files")
        || workload.name.starts_with("wide fan")
}

fn throughput_stdio(
    config: &Config,
    workloads: &[Workload],
    means: &[[f64; 3]],
) -> Result<Vec<Row>, String> {
    let mut peers = start_all(config)?;
    let rounds = if config.quick { 1 } else { 3 };
    let budget = Duration::from_millis(if config.quick { 400 } else { 1500 });
    let mut rows = Vec::new();
    for (w, workload) in workloads.iter().enumerate() {
        if !in_throughput(workload) {
            continue;
        }
        log(&format!(
            "throughput, stdio, 64 in flight: {}",
            workload.name
        ));
        let mut rates: [Vec<f64>; 3] = Default::default();
        let mut failure: [Option<String>; 3] = Default::default();
        for round in 0..rounds {
            for i in order(round) {
                if failure[i].is_some() {
                    continue;
                }
                let n = calls_for(budget, means[w][i] / 8.0, 2 * IN_FLIGHT, 40_000);
                match pipelined(&mut peers[i], workload, n) {
                    Ok(rate) => rates[i].push(rate),
                    Err(e) => {
                        log(&format!("  {} failed: {e}", PEER_NAMES[i]));
                        failure[i] = Some(format!("fails: {}", clip(&e)));
                        // Whatever state it is in, start it afresh.
                        peers[i] = StdioPeer::start(&config.launches[i])?.0;
                    }
                }
            }
        }
        let cell = |i: usize| match &failure[i] {
            Some(f) => Cell::Text(f.clone()),
            None => Cell::Value(median(&rates[i])),
        };
        rows.push(Row {
            section: "throughput (stdio, 64 in flight)",
            workload: workload.name.to_owned(),
            figure: "calls/s".into(),
            unit: "calls/s",
            better: Better::Higher,
            ours: cell(OURS),
            hand: cell(HAND),
            mcpgraph: cell(TS),
        });
    }
    Ok(rows)
}

/// A peer serving stateless streamable HTTP on a free loopback port.
struct HttpPeer {
    child: Child,
    addr: SocketAddr,
}

impl HttpPeer {
    fn start(launch: &Launch) -> Result<Self, String> {
        let mut args = launch.args.clone();
        if !args.iter().any(|a| a == "serve") {
            args.push("serve".into());
        }
        args.extend(["--http".into(), "127.0.0.1:0".into(), "--stateless".into()]);
        let mut child = Command::new(&launch.program)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", launch.program.display()))?;
        let stderr = child.stderr.take().ok_or("no stderr")?;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut tx = Some(tx);
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Some(rest) = line.split("serving MCP on http://").nth(1)
                    && let Some(tx) = tx.take()
                {
                    let _ = tx.send(rest.trim_end_matches("/mcp").to_owned());
                }
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(30))
            .map_err(|_| format!("{} did not report its address", launch.program.display()))?;
        let addr = addr.parse().map_err(|e| format!("address `{addr}`: {e}"))?;
        Ok(Self { child, addr })
    }
}

impl Drop for HttpPeer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `n` calls spread over 64 connections, each sequential: 64 in flight.
fn http_run(addr: SocketAddr, workload: &Workload, n: usize) -> Result<f64, String> {
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let handles: Vec<_> = (0..IN_FLIGHT)
        .map(|_| {
            let next = Arc::clone(&next);
            let workload = workload.clone();
            std::thread::spawn(move || -> Result<(), String> {
                let mut connection = http::Connection::open(addr)?;
                while next.fetch_add(1, Ordering::Relaxed) < n {
                    let reply = connection.call(workload.tool, &workload.args_json)?;
                    check_reply(&reply, &workload.expected)?;
                }
                Ok(())
            })
        })
        .collect();
    for handle in handles {
        handle.join().map_err(|_| "client thread panicked")??;
    }
    Ok(n as f64 / started.elapsed().as_secs_f64())
}

fn throughput_http(
    config: &Config,
    workloads: &[Workload],
    means: &[[f64; 3]],
) -> Result<Vec<Row>, String> {
    let peers = [
        HttpPeer::start(&config.launches[OURS])?,
        HttpPeer::start(&config.launches[HAND])?,
    ];
    let rounds = if config.quick { 1 } else { 3 };
    let budget = Duration::from_millis(if config.quick { 400 } else { 1500 });
    let mut rows = Vec::new();
    for (w, workload) in workloads.iter().enumerate() {
        if !in_throughput(workload) {
            continue;
        }
        log(&format!(
            "throughput, HTTP, 64 in flight: {}",
            workload.name
        ));
        // Warm-up (connections, lazy downstream start).
        for peer in &peers {
            http_run(peer.addr, workload, IN_FLIGHT)?;
        }
        let mut rates: [Vec<f64>; 2] = Default::default();
        for round in 0..rounds {
            for i in [round % 2, (round + 1) % 2] {
                // HTTP costs more per call than stdio: size from the mean
                // sequential latency with a smaller speed-up.
                let n = calls_for(budget, means[w][i] / 3.0, 2 * IN_FLIGHT, 20_000);
                let rate = http_run(peers[i].addr, workload, n)
                    .map_err(|e| format!("{} over HTTP: {e}", PEER_NAMES[i]))?;
                rates[i].push(rate);
            }
        }
        rows.push(Row {
            section: "throughput (HTTP stateless, 64 in flight)",
            workload: workload.name.to_owned(),
            figure: "calls/s".into(),
            unit: "calls/s",
            better: Better::Higher,
            ours: Cell::Value(median(&rates[OURS])),
            hand: Cell::Value(median(&rates[HAND])),
            mcpgraph: Cell::Text("stdio only".into()),
        });
    }
    Ok(rows)
}

// ---------------------------------------------------------------------------
// Memory
// ---------------------------------------------------------------------------

fn memory(config: &Config, workloads: &[Workload]) -> Result<Vec<Row>, String> {
    let calls = if config.quick { 2_000 } else { 10_000 };
    let mix: Vec<&Workload> = workloads
        .iter()
        .filter(|w| w.name.starts_with("transform-only") || w.name.starts_with("wide fan"))
        .collect();
    log(&format!("memory: idle, then {calls} calls"));
    let mut idle = [0.0; 3];
    let mut peak = [0.0; 3];
    let mut after = [0.0; 3];
    for i in order(0) {
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
    let row = |figure: String, v: [f64; 3]| Row {
        section: "memory",
        workload: "transform-only + wide fan, alternating".into(),
        figure,
        unit: "MiB",
        better: Better::Lower,
        ours: Cell::Value(v[OURS]),
        hand: Cell::Value(v[HAND]),
        mcpgraph: Cell::Value(v[TS]),
    };
    Ok(vec![
        row("RSS idle (after initialize)".into(), idle),
        row(format!("RSS peak (VmHWM) over {calls} calls"), peak),
        row(format!("RSS after {calls} calls"), after),
    ])
}

// ---------------------------------------------------------------------------
// Micro-benchmarks
// ---------------------------------------------------------------------------

fn micro_rows(config: &Config) -> Result<Vec<Row>, String> {
    let cases = config.root.join("bench/js/cases.json");
    let graph = config.root.join("bench/graphs/bench.yaml");
    let script = config.root.join("bench/js/micro.mjs");
    let rounds = if config.quick { 1 } else { 3 };
    let mut ours: Vec<Value> = Vec::new();
    let mut js: Vec<Value> = Vec::new();
    for round in 0..rounds {
        log(&format!("micro-benchmarks, round {}", round + 1));
        let mut run_js = || -> Result<(), String> {
            let mut cmd = Command::new("node");
            cmd.arg(&script).arg(&cases).stderr(Stdio::null());
            if config.quick {
                cmd.arg("--quick");
            }
            let output = cmd.output().map_err(|e| format!("node: {e}"))?;
            if !output.status.success() {
                return Err(format!("{} failed", script.display()));
            }
            js.push(serde_json::from_slice(&output.stdout).map_err(|e| e.to_string())?);
            Ok(())
        };
        if round % 2 == 0 {
            ours.push(micro::run(&cases, &graph, config.quick)?);
            run_js()?;
        } else {
            run_js()?;
            ours.push(micro::run(&cases, &graph, config.quick)?);
        }
    }
    let pick = |runs: &[Value], group: &str, name: &str| {
        let v: Vec<f64> = runs
            .iter()
            .filter_map(|r| r[group][name].as_f64())
            .collect();
        if v.is_empty() {
            Cell::na()
        } else {
            Cell::Value(median(&v))
        }
    };
    let mut rows = Vec::new();
    let names: Vec<String> = ours[0]["jsonata"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    // Keep the file's order.
    let cases_json: Value =
        serde_json::from_str(&std::fs::read_to_string(&cases).map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
    let ordered: Vec<String> = cases_json["expressions"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|c| c["name"].as_str().map(str::to_owned))
                .filter(|n| names.contains(n))
                .collect()
        })
        .unwrap_or_default();
    for name in &ordered {
        rows.push(Row {
            section: "micro: JSONata",
            workload: name.clone(),
            figure: "per evaluation, vs jsonata-js 2.2.2 compiled once".into(),
            unit: "ns",
            better: Better::Lower,
            ours: pick(&ours, "jsonata", name),
            hand: Cell::na(),
            mcpgraph: pick(&js, "jsonata", name),
        });
        rows.push(Row {
            section: "micro: JSONata",
            workload: name.clone(),
            figure: "per evaluation, vs mcpGraph's evaluateJsonata".into(),
            unit: "ns",
            better: Better::Lower,
            ours: pick(&ours, "jsonata", name),
            hand: Cell::na(),
            mcpgraph: pick(&js, "mcpgraph_path", name),
        });
    }
    let switch = "wide fan switch (20 conditions)";
    rows.push(Row {
        section: "micro: switch",
        workload: switch.into(),
        figure: "per decision (19 false, 20th true)".into(),
        unit: "ns",
        better: Better::Lower,
        ours: pick(&ours, "switch", switch),
        hand: Cell::na(),
        mcpgraph: pick(&js, "switch", switch),
    });
    Ok(rows)
}

// ---------------------------------------------------------------------------
// Build side
// ---------------------------------------------------------------------------

fn build_rows(config: &Config) -> Result<Vec<Row>, String> {
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

// ---------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------

fn sh(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|| "?".into())
}

fn machine_description() -> Vec<(String, String)> {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map_or("?".to_owned(), |s| s.trim().to_owned());
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let mem = meminfo
        .lines()
        .find(|l| l.starts_with("MemTotal"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or("?".to_owned(), |kb| {
            format!("{:.1} GiB", kb / 1024.0 / 1024.0)
        });
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    vec![
        ("date (UTC)".into(), sh("date", &["-u", "+%Y-%m-%d %H:%M"])),
        ("CPU".into(), format!("{cpu}, {cores} cores available")),
        ("memory".into(), mem),
        ("OS".into(), sh("uname", &["-srm"])),
        (
            "load average at start".into(),
            std::fs::read_to_string("/proc/loadavg")
                .unwrap_or_default()
                .split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" "),
        ),
        ("rustc".into(), sh("rustc", &["-V"])),
        ("node".into(), sh("node", &["-v"])),
    ]
}

fn write_results(
    config: &Config,
    rows: &[Row],
    table: &str,
    machine: &[(String, String)],
    elapsed: Duration,
) -> Result<(), String> {
    std::fs::create_dir_all(&config.out).map_err(|e| e.to_string())?;
    let mode = if config.quick {
        "quick (`--quick`)"
    } else {
        "full"
    };
    let mut md = String::new();
    md.push_str("# Benchmark results\n\n");
    md.push_str(
        "Written by `scripts/bench.sh` (the harness in `bench/`); do not edit by hand.\n\n",
    );
    md.push_str("| | |\n|---|---|\n");
    for (k, v) in machine {
        md.push_str(&format!("| {k} | {v} |\n"));
    }
    md.push_str(&format!(
        "| run | {mode}, {:.0} s |\n\n",
        elapsed.as_secs_f64()
    ));
    md.push_str(
        "Peers: **ours** = `bench/graphs/bench.yaml` compiled by `mcpgraph!` (release); \
         **hand-written** = the same tools written directly with rmcp \
         (`bench/src/bin/handwritten.rs`, release); **mcpGraph** = the TypeScript \
         interpreter, npm `mcpgraph` 0.1.23 on node, running \
         `bench/graphs/bench.mcpgraph.yaml` (same graph, its dialect). Every reply of \
         every peer is checked against the expected value. Ratios are from this run, \
         peers interleaved round by round; **×** = how many times better ours is \
         (peer ÷ ours for costs, ours ÷ peer for throughput; below 1× the peer is \
         better, bold from 10×).\n\n",
    );
    md.push_str("![ratios](chart.svg)\n\n");
    md.push_str(table);
    md.push_str(
        "\nNotes\n\n\
         - Latency: one raw JSON-RPC client over stdio (`bench/src/rpc.rs`), one call at a \
         time, time from writing the request to reading the reply line.\n\
         - Throughput: up to 64 requests written before waiting (stdio), or 64 keep-alive \
         connections (HTTP, `serve --http --stateless`, JSON responses).\n\
         - Memory: VmRSS / VmHWM of the server process from `/proc/PID/status` (not of \
         downstream servers it starts).\n\
         - Expansion: `mcpgraph_codegen::generate_file` timed in the (release-built) \
         harness; inside `cargo build` the macro runs the same code unoptimised unless \
         `[profile.release.build-override] opt-level` is raised. mcpGraph's figure is \
         `new McpGraphApi(file)` (`bench/js/load.mjs`).\n\
         - mcpGraph logs at debug level on stderr, always (sent to /dev/null here); that \
         cost is part of its figures, as shipped.\n\
         - The machine is shared with other builds: figures are noisy; the ratios, \
         measured interleaved, are the stable part.\n",
    );
    let write = |name: &str, text: &str| {
        let path = config.out.join(name);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    write("RESULTS.md", &md)?;
    write(
        "chart.svg",
        &report::svg(rows, "mcpgraph benchmarks: generated server vs peers"),
    )?;
    let json: Vec<Value> = rows
        .iter()
        .map(|r| {
            let cell = |c: &Cell| match c {
                Cell::Value(v) => Value::from(*v),
                Cell::Text(t) => Value::from(t.clone()),
            };
            serde_json::json!({
                "section": r.section, "workload": r.workload, "figure": r.figure,
                "unit": r.unit, "ours": cell(&r.ours), "hand_written": cell(&r.hand),
                "mcpgraph": cell(&r.mcpgraph),
                "ratio_vs_hand_written": r.ratio(&r.hand),
                "ratio_vs_mcpgraph": r.ratio(&r.mcpgraph),
            })
        })
        .collect();
    write(
        "results.json",
        &serde_json::to_string_pretty(&serde_json::json!({
            "machine": machine.iter().map(|(k, v)| (k.clone(), Value::from(v.clone()))).collect::<serde_json::Map<_, _>>(),
            "mode": if config.quick { "quick" } else { "full" },
            "rows": json,
        }))
        .map_err(|e| e.to_string())?,
    )?;
    Ok(())
}
