//! The results written out: the machine description, `RESULTS.md` with
//! the table and notes, `chart.svg` and `results.json`.

use std::process::Command;
use std::time::Duration;

use mcpgraph_bench::report::{self, Cell, Row};
use serde_json::Value;

use crate::Config;

fn sh(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|| "?".into())
}

pub(crate) fn machine_description() -> Vec<(String, String)> {
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

pub(crate) fn write_results(
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
    if config.baseline.is_some() {
        md.push_str(
            "**baseline** = the same graph server built from an earlier commit \
             (`MCPGRAPH_BENCH_BASELINE`), interleaved with the others: before and after \
             from one run.\n\n",
        );
    }
    md.push_str("![ratios](chart.svg)\n\n");
    md.push_str(table);
    md.push_str(
        "\nNotes\n\n\
         - Latency: one raw JSON-RPC client over stdio (`bench/src/rpc.rs`), one call at a \
         time, time from writing the request to reading the reply line.\n\
         - Throughput: up to 64 requests written before waiting (stdio), or 64 keep-alive \
         connections (HTTP, `serve --http --stateless`, JSON responses).\n\
         - Memory: VmRSS / VmHWM of the server process from `/proc/PID/status` (not of \
         downstream servers it starts), each the median of 5 starts (3 with `--quick`), \
         peers interleaved.\n\
         - Expansion: `mcpgraph_codegen::generate_file` timed in the (release-built) \
         harness; inside `cargo build` the macro runs the same code unoptimised unless \
         `[profile.release.build-override] opt-level` is raised. mcpGraph's figure is \
         `new McpGraphApi(file)` (`bench/js/load.mjs`).\n\
         - Fan-out: peers of their own, so the rows above keep their graph: \
         `bench/graphs/fanout.yaml` compiled as `bench-fanout` (a `parallel` node with four \
         branches; a `forEach` at `maxConcurrency: 8`), `bench-handwritten-fanout` \
         (`tokio::join!`, `buffer_unordered(8)` with the values put back in item order) and \
         mcpGraph on `fanout.mcpgraph.yaml` (four mcp nodes in a row; a switch loop over \
         the history functions, one call at a time), all calling the same servers \
         (`bench-slow`: answers after the `ms` it is given, calls served concurrently). \
         \"Ours, one call at a time\" is the same `parallel` node with `maxConcurrency: 1`.\n\
         - Physical limit: `bench-raw-echo` (`bench/src/bin/raw_echo.rs`) answers the \
         transform-only call with serde_json and a pipe, no MCP SDK and no async runtime \
         (the replies to every request already read in one write); ours and the \
         hand-written server are measured beside it, interleaved, with the same client.\n\
         - mcp-proxy (full runs only): crates.io `mcp-proxy` 0.6.0, installed by \
         `scripts/bench.sh` under the target directory, serving streamable HTTP in \
         sessions (it has no stateless mode in its default build) with the raw echo \
         server and four `bench-slow` servers behind it; ours is `bench-fanout` in \
         sessions (`serve --http`) with the same servers: tool `hop` (`entry` → `mcp` → \
         `exit`) against `echo/echo`, and the `parallel` node `fan_out` against a \
         `[[composite_tools]]` entry over the four. The same raw HTTP/1.1 client, one \
         session per connection.\n\
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
                "other_peer": r.other.as_ref().map(|(peer, _)| *peer),
                "other": r.other.as_ref().map(|(_, c)| cell(c)),
                "ratio_vs_other": r.other.as_ref().and_then(|(_, c)| r.ratio(c)),
                "baseline": r.baseline.as_ref().map(cell),
                "ratio_vs_baseline": r.baseline.as_ref().and_then(|b| r.ratio(b)),
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
