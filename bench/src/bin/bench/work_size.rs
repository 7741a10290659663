//! How cost grows with the work (full runs only): the memory of 1,000
//! idle HTTP sessions (ours and the hand-written floor, interleaved), the
//! peak memory of a `forEach` over 10,000 items four at a time against the
//! size of its output, the latency of a call while 1,000 others wait on a
//! slow downstream server, and 10 concurrent calls of a slow downstream
//! tool from a client that declares elicitation against one that does not
//! (over stdio such a client's calls get connections of their own, each
//! carrying one call at a time). The last three run the fan-out graph
//! (`bench-fanout`: its `wait`, `for_each_4` and `hop` tools, the
//! `bench-slow` and raw echo servers behind).

use std::time::{Duration, Instant};

use mcpgraph_bench::report::{Better, Cell, Row};
use mcpgraph_bench::rpc::{Launch, StdioPeer, rss_kib};
use mcpgraph_bench::{http, median, quantile};
use serde_json::Value;

use crate::throughput::HttpPeer;
use crate::{Config, HAND, OURS, PEER_NAMES, log};

const SECTION: &str = "how cost grows with the work";

pub(crate) fn work_size_rows(config: &Config) -> Result<Vec<Row>, String> {
    if config.quick {
        log("work size: skipped in a quick run");
        return Ok(Vec::new());
    }
    let mut rows = vec![sessions_row(config)?];
    let fanout = crate::fan_out::launches(config)?;
    let ours = fanout.get(OURS).ok_or("no bench-fanout launch")?.clone();
    rows.extend(for_each_rows(&ours)?);
    rows.extend(waiting_rows(&ours)?);
    rows.extend(declaring_rows(&ours)?);
    Ok(rows)
}

fn row(workload: &str, figure: &str, unit: &'static str, ours: f64, hand: Cell) -> Row {
    Row {
        section: SECTION,
        workload: workload.into(),
        figure: figure.into(),
        unit,
        better: Better::Lower,
        ours: Cell::Value(ours),
        hand,
        mcpgraph: Cell::Text("stdio only".into()),
        other: None,
        baseline: None,
    }
}

/// Sessions opened per start.
const SESSIONS: usize = 1_000;

/// RSS per idle session: each peer serving HTTP sessions, `SESSIONS`
/// opened (`initialize`, `notifications/initialized`, the connection then
/// closed), the growth of RSS over them; the median of three starts each,
/// interleaved.
fn sessions_row(config: &Config) -> Result<Row, String> {
    log(&format!("work size: {SESSIONS} idle HTTP sessions"));
    let mut per_session = [Vec::new(), Vec::new()];
    for start in 0..3 {
        for k in [start % 2, (start + 1) % 2] {
            let peer = [OURS, HAND][k];
            let launch = &config.launches[peer];
            // Ours caps sessions (1,024 by default); the floor does not.
            let extra: &[&str] = if peer == OURS {
                &["--max-sessions", "2000"]
            } else {
                &[]
            };
            let server = HttpPeer::start_sessions_with(launch, extra)
                .map_err(|e| format!("{}: {e}", PEER_NAMES[peer]))?;
            std::thread::sleep(Duration::from_millis(300));
            let (before, _) = rss_kib(server.pid()).ok_or("cannot read /proc/PID/status")?;
            for i in 0..SESSIONS {
                http::Connection::open_session(server.addr, "/mcp")
                    .map_err(|e| format!("{}, session {i}: {e}", PEER_NAMES[peer]))?;
            }
            std::thread::sleep(Duration::from_millis(500));
            let (after, _) = rss_kib(server.pid()).ok_or("cannot read /proc/PID/status")?;
            per_session[k].push(after.saturating_sub(before) as f64 / SESSIONS as f64);
        }
    }
    Ok(row(
        &format!("{SESSIONS} idle HTTP sessions"),
        "RSS per session (growth over the sessions ÷ their number), median of 3 starts",
        "KiB",
        median(&per_session[0]),
        Cell::Value(median(&per_session[1])),
    ))
}

/// Items of the `forEach`.
const ITEMS: usize = 10_000;

/// Peak RSS of one `forEach` over `ITEMS` items (four at a time, each a
/// call of `bench-slow` answering at once): the growth of the high-water
/// mark over the call, against the size of the call's output; the median
/// of three starts.
fn for_each_rows(ours: &Launch) -> Result<Vec<Row>, String> {
    log(&format!("work size: a forEach over {ITEMS} items"));
    let items: Vec<usize> = (0..ITEMS).collect();
    let args = serde_json::json!({ "items": items, "ms": 0 }).to_string();
    let warm = serde_json::json!({ "items": [1, 2, 3, 4], "ms": 0 }).to_string();
    let (mut growth, mut output) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        let (mut peer, _) = StdioPeer::start(ours)?;
        let (reply, _) = peer.call("for_each_4", &warm)?;
        check_ok(&reply, "for_each_4")?;
        let (_, before) = rss_kib(peer.pid()).ok_or("cannot read /proc/PID/status")?;
        let (reply, _) = peer.call("for_each_4", &args)?;
        check_ok(&reply, "for_each_4")?;
        // No outputSchema: the array of the calls' outputs as text.
        let text = reply["result"]["content"][0]["text"].as_str().unwrap_or("");
        let values = serde_json::from_str::<Value>(text)
            .ok()
            .and_then(|v| v.as_array().map(Vec::len))
            .unwrap_or(0);
        if values != ITEMS {
            return Err(format!("for_each_4: {values} values, not {ITEMS}"));
        }
        let (_, after) = rss_kib(peer.pid()).ok_or("cannot read /proc/PID/status")?;
        growth.push(after.saturating_sub(before) as f64 / 1024.0);
        output.push(reply["result"].to_string().len() as f64 / (1024.0 * 1024.0));
    }
    let workload = format!("`forEach` over {ITEMS} items, 4 at a time (stdio)");
    let (growth, output) = (median(&growth), median(&output));
    Ok(vec![
        row(
            &workload,
            "peak RSS growth over the call (high-water mark), median of 3 starts",
            "MiB",
            growth,
            Cell::na(),
        ),
        row(
            &workload,
            "the call's result, as JSON text",
            "MiB",
            output,
            Cell::na(),
        ),
        row(
            &workload,
            "peak RSS growth ÷ the result's size",
            "×",
            growth / output,
            Cell::na(),
        ),
    ])
}

/// Calls kept waiting.
const WAITING: usize = 1_000;

/// p50 and p99 of `hop` (a call of the raw echo server) on a quiet server
/// and while `WAITING` calls of `wait` (one call of `bench-slow`, 60 s)
/// wait in the same server, all on one stdio connection.
fn waiting_rows(ours: &Launch) -> Result<Vec<Row>, String> {
    log(&format!(
        "work size: a call while {WAITING} others wait on a slow server"
    ));
    let mut launch = ours.clone();
    let cap = (2 * WAITING).to_string();
    launch.args.extend([
        "--max-in-flight".to_owned(),
        cap.clone(),
        "--max-in-flight-per-session".to_owned(),
        cap,
    ]);
    let (mut peer, _) = StdioPeer::start(&launch)?;
    let hop = r#"{"name":"n","n":1}"#;
    let sample = |peer: &mut StdioPeer| -> Result<Vec<f64>, String> {
        let mut micros = Vec::new();
        for _ in 0..2_000 {
            let (reply, took) = peer.call("hop", hop)?;
            check_ok(&reply, "hop")?;
            micros.push(took.as_secs_f64() * 1e6);
        }
        micros.sort_by(f64::total_cmp);
        Ok(micros)
    };
    for _ in 0..200 {
        peer.call("hop", hop)?;
    }
    let quiet = sample(&mut peer)?;
    for i in 0..WAITING {
        peer.send_call("wait", &format!(r#"{{"q":"w{i}","ms":60000}}"#))?;
    }
    peer.flush()?;
    // Every waiting call has reached the slow server: its calls are in
    // flight (a quick call made after them has come back).
    let started = Instant::now();
    peer.call("hop", hop)?;
    log(&format!(
        "work size: {WAITING} calls waiting ({:.0} ms to send them on)",
        started.elapsed().as_secs_f64() * 1e3
    ));
    let busy = sample(&mut peer)?;
    drop(peer);
    let workload =
        format!("`hop` (one echo call, stdio) while {WAITING} calls wait on a slow server");
    Ok(vec![
        other(
            row(
                &workload,
                "p50 while they wait",
                "µs",
                quantile(&busy, 0.5),
                Cell::na(),
            ),
            "quiet server",
            quantile(&quiet, 0.5),
        ),
        other(
            row(
                &workload,
                "p99 while they wait",
                "µs",
                quantile(&busy, 0.99),
                Cell::na(),
            ),
            "quiet server",
            quantile(&quiet, 0.99),
        ),
    ])
}

/// Concurrent calls of the declaring client.
const CONCURRENT: usize = 10;
/// How long each waits in the slow server.
const WAIT_MS: u64 = 200;

/// `CONCURRENT` calls of `wait` (200 ms in `bench-slow`) sent at once,
/// from a client that declares elicitation and from one that does not:
/// the time until the last reply, the median of five rounds each,
/// interleaved.
fn declaring_rows(ours: &Launch) -> Result<Vec<Row>, String> {
    log(&format!(
        "work size: {CONCURRENT} concurrent calls from a client that declares elicitation"
    ));
    let mut took = [Vec::new(), Vec::new()];
    for round in 0..5 {
        for k in [round % 2, (round + 1) % 2] {
            let capabilities = if k == 0 {
                r#"{"elicitation":{}}"#
            } else {
                "{}"
            };
            let (mut peer, _) = StdioPeer::start_declaring(ours, capabilities)?;
            // The slow server started, and for the declaring client one of
            // its own connections.
            let (reply, _) = peer.call("wait", r#"{"q":"warm","ms":0}"#)?;
            check_ok(&reply, "wait")?;
            let started = Instant::now();
            for i in 0..CONCURRENT {
                peer.send_call("wait", &format!(r#"{{"q":"c{i}","ms":{WAIT_MS}}}"#))?;
            }
            peer.flush()?;
            for _ in 0..CONCURRENT {
                let reply = peer.recv(Duration::from_secs(30))?;
                check_ok(&reply.value, "wait")?;
            }
            took[k].push(started.elapsed().as_secs_f64() * 1e3);
        }
    }
    let (declaring, plain) = (median(&took[0]), median(&took[1]));
    let workload =
        format!("{CONCURRENT} concurrent calls of a {WAIT_MS} ms downstream tool (stdio server)");
    Ok(vec![
        other(
            row(
                &workload,
                "until the last reply, client declaring elicitation",
                "ms",
                declaring,
                Cell::na(),
            ),
            "client not declaring",
            plain,
        ),
        row(
            &workload,
            "declaring ÷ not declaring; goal ≤ 1.5",
            "×",
            declaring / plain,
            Cell::na(),
        ),
    ])
}

/// `row` with a figure of another peer of its own, `name`'s.
fn other(mut row: Row, name: &'static str, value: f64) -> Row {
    row.other = Some((name, Cell::Value(value)));
    row
}

/// `reply` is a result without `isError`.
fn check_ok(reply: &Value, tool: &str) -> Result<(), String> {
    match reply.get("result") {
        Some(result) if result["isError"] != Value::Bool(true) => Ok(()),
        _ => Err(format!("{tool}: {reply}")),
    }
}
