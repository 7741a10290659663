//! What running a call as an MCP task costs (issue 45): the transform-only
//! tool called by a client of MCP 2026-07-28 over stateless HTTP, one call
//! at a time, plainly and as a task (created, then `tasks/get` at once and
//! again until it is completed: the client's poll interval left out), with
//! the task store in memory and in Redis. The figures are ours alone: the
//! other peers have no tasks.
//!
//! The Redis store needs `bench-graph` built with `task-store-redis`, which
//! `scripts/bench.sh` builds into `target/bench-redis/` in full runs
//! (`MCPGRAPH_BENCH_REDIS_GRAPH` names it); a real `redis-server` is
//! started for it (Debian's package, installed by the peers' setup).

use std::path::PathBuf;
use std::time::Instant;

use mcpgraph_bench::http::Connection;
use mcpgraph_bench::report::{Better, Cell, Row};
use mcpgraph_bench::rpc::Launch;
use mcpgraph_bench::workloads::{Workload, check_reply};
use mcpgraph_bench::{median, quantile};
use serde_json::{Value, json};

use crate::throughput::HttpPeer;
use crate::{Config, OURS, log};

const SECTION: &str = "tasks (HTTP stateless, one call at a time)";

/// How a call is made: plainly, or as a task.
#[derive(Clone, Copy)]
enum Mode {
    Plain,
    Task,
}

/// One call of `workload` in `mode`, checked: its time in µs, and the
/// `tasks/get` requests it took.
fn one_call(
    connection: &mut Connection,
    workload: &Workload,
    mode: Mode,
) -> Result<(f64, usize), String> {
    let params = json!({ "name": workload.tool, "arguments": workload.args });
    let started = Instant::now();
    let reply = connection.request_2026(
        "tools/call",
        params,
        workload.tool,
        matches!(mode, Mode::Task),
    )?;
    let (reply, polls) = match mode {
        Mode::Plain => (reply, 0),
        Mode::Task => finished(connection, &reply)?,
    };
    let micros = started.elapsed().as_secs_f64() * 1e6;
    check_reply(&reply, &workload.expected)?;
    Ok((micros, polls))
}

/// Polls the task `created` names until it is completed: its result as a
/// JSON-RPC reply, and the polls it took.
fn finished(connection: &mut Connection, created: &Value) -> Result<(Value, usize), String> {
    let id = created["result"]["taskId"]
        .as_str()
        .ok_or_else(|| format!("no task: {created}"))?
        .to_owned();
    for polls in 1..=100_000 {
        let reply = connection.request_2026("tasks/get", json!({ "taskId": id }), &id, true)?;
        let task = &reply["result"];
        match task["status"].as_str() {
            Some("working") => continue,
            Some("completed") => return Ok((json!({ "result": task["result"] }), polls)),
            _ => return Err(format!("task {id}: {reply}")),
        }
    }
    Err(format!("task {id} never completed"))
}

/// The stores measured: the memory store with `bench-graph`, and Redis
/// with a `bench-graph` built with it, when there is one.
fn stores(config: &Config) -> Vec<(&'static str, Launch, Vec<String>)> {
    let memory = (
        "memory store",
        config.launches[OURS].clone(),
        vec!["--task-store".to_owned(), "memory".to_owned()],
    );
    let mut stores = vec![memory];
    let redis_graph = std::env::var_os("MCPGRAPH_BENCH_REDIS_GRAPH").map(PathBuf::from);
    if let Some(program) = redis_graph.filter(|p| p.is_file()) {
        stores.push((
            "Redis store",
            Launch {
                program,
                ..config.launches[OURS].clone()
            },
            Vec::new(),
        ));
    }
    stores
}

pub(crate) fn task_rows(config: &Config, workloads: &[Workload]) -> Result<Vec<Row>, String> {
    let workload = workloads
        .iter()
        .find(|w| w.name == "transform-only")
        .ok_or("no transform-only workload")?;
    let redis = mcpgraph_tests::RedisServer::start();
    let mut peers = Vec::new();
    for (name, launch, mut extra) in stores(config) {
        if extra.is_empty() {
            let Some(redis) = &redis else {
                log("tasks: no redis-server, the Redis row is left out");
                continue;
            };
            extra = vec!["--task-store".to_owned(), redis.url(0)];
        }
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        peers.push((name, HttpPeer::start_with(&launch, &extra)?));
    }
    let calls = if config.quick { 300 } else { 2_000 };
    let rounds = config.rounds();
    // Per store: plain calls and tasks, interleaved in rounds.
    let mut rows = Vec::new();
    for (name, peer) in &peers {
        log(&format!("tasks: {name}, {} calls each way", calls * rounds));
        let mut connection = Connection::open(peer.addr)?;
        for mode in [Mode::Plain, Mode::Task] {
            one_call(&mut connection, workload, mode)?; // warm-up
        }
        let (mut plain, mut task, mut polls) = (Vec::new(), Vec::new(), 0usize);
        for round in 0..rounds {
            let modes = match round % 2 {
                0 => [Mode::Plain, Mode::Task],
                _ => [Mode::Task, Mode::Plain],
            };
            for mode in modes {
                for _ in 0..calls {
                    let (micros, n) = one_call(&mut connection, workload, mode)
                        .map_err(|e| format!("tasks, {name}: {e}"))?;
                    match mode {
                        Mode::Plain => plain.push(micros),
                        Mode::Task => {
                            task.push(micros);
                            polls += n;
                        }
                    }
                }
            }
        }
        plain.sort_by(f64::total_cmp);
        task.sort_by(f64::total_cmp);
        let row = |figure: String, unit, value| Row {
            section: SECTION,
            workload: workload.name.to_owned(),
            figure,
            unit,
            better: Better::Lower,
            ours: Cell::Value(value),
            hand: Cell::Text("no tasks".into()),
            mcpgraph: Cell::Text("no tasks".into()),
            other: None,
            baseline: config.base_cell(|_| Cell::na()),
        };
        let (plain_p50, task_p50) = (median(&plain), median(&task));
        rows.push(row(format!("plain call p50 ({name})"), "µs", plain_p50));
        rows.push(row(format!("as a task p50 ({name})"), "µs", task_p50));
        rows.push(row(
            format!("as a task p99 ({name})"),
            "µs",
            quantile(&task, 0.99),
        ));
        rows.push(row(
            format!("overhead per task, p50 ({name})"),
            "µs",
            task_p50 - plain_p50,
        ));
        rows.push(row(
            format!("tasks/get per task, mean ({name})"),
            "",
            polls as f64 / task.len().max(1) as f64,
        ));
    }
    Ok(rows)
}
