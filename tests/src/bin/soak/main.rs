//! The soak run (`scripts/soak.sh`): mixed calls to the file_utils example,
//! over stdio and over streamable HTTP at once, whose downstream server is
//! the purpose-built test server, with faults injected: crashes, hangs,
//! garbage and malformed replies, and client cancellations; beside them a
//! hostile client (`hostile`) sends the HTTP server what an attacker or a
//! broken client would. It reports the
//! servers' RSS after a warm-up and at the end, their open file
//! descriptors, the child processes they hold, and the outcomes by kind;
//! it fails (exit 1) when memory or descriptors grow or children pile up.
//!
//!   soak [--calls N] [--seconds S] [--concurrency C]

mod hostile;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use mcpgraph_tests::{Client, HttpServer, call_params, command_with_mcp, stdio_client};
use serde_json::json;
use tokio::sync::Mutex;

/// Where the calls go, in a cycle of 100: the directory `count_files`
/// lists (a test-server fault or an ordinary path), or a cancellation.
fn pick(n: u64) -> (&'static str, bool) {
    match n % 100 {
        0..=2 => ("@crash", false),
        3..=4 => ("@hang", false),
        5..=9 => ("@garbage", false),
        10..=14 => ("@malformed", false),
        15..=19 => ("@hang", true),
        _ => ("data", false),
    }
}

/// The outcome's kind: `ok`, or the first words of the error.
fn kind(outcome: &Result<rmcp::model::CallToolResult, rmcp::ServiceError>) -> String {
    match outcome {
        Ok(r) if r.is_error != Some(true) => "ok".to_owned(),
        Ok(r) => {
            let text = mcpgraph_tests::result_text(r);
            let known = [
                ("exited", "the downstream server crashed"),
                ("malformed reply", "a malformed reply"),
                ("did not answer within", "the downstream server's timeoutMs"),
                ("Execution limit exceeded", "the graph's time limit"),
            ];
            match known.iter().find(|(needle, _)| text.contains(needle)) {
                Some((_, what)) => format!("tool error: {what}"),
                None => format!("tool error: {}", text.chars().take(60).collect::<String>()),
            }
        }
        Err(e) => format!(
            "protocol error: {}",
            e.to_string().chars().take(40).collect::<String>()
        ),
    }
}

/// (RSS in KiB, open descriptors) of each probed server.
type Baseline = Vec<(u64, usize)>;

struct Probe {
    pid: u32,
}

impl Probe {
    fn rss_kib(&self) -> u64 {
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", self.pid)).unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    }

    fn fds(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.pid)).map_or(0, |d| d.count())
    }

    fn children(&self) -> usize {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return 0;
        };
        entries
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .filter(|pid| {
                std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                    // The parent pid is the 4th field, after the `(comm)`.
                    stat.rsplit_once(") ")
                        .and_then(|(_, rest)| rest.split(' ').nth(1)?.parse::<u32>().ok())
                        == Some(self.pid)
                })
            })
            .count()
    }

    fn line(&self) -> String {
        format!(
            "RSS {} KiB, {} fds, {} children",
            self.rss_kib(),
            self.fds(),
            self.children()
        )
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 4)]
async fn main() -> std::process::ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut calls, mut seconds, mut concurrency) = (100_000u64, u64::MAX, 16usize);
    while let Some(flag) = args.next() {
        let value = args.next().and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
        match flag.as_str() {
            "--calls" => calls = value,
            "--seconds" => seconds = value,
            "--concurrency" => concurrency = value as usize,
            _ => {
                eprintln!("soak: unknown flag {flag}");
                return std::process::ExitCode::from(2);
            }
        }
    }
    // scripts/soak.sh builds this program with the ones it drives.
    mcpgraph_tests::find_programs_beside_this_executable();
    let server = mcpgraph_tests::bin_path("mcpgraph-test-server");
    let mcp = mcpgraph_tests::test_server_override(&server.to_string_lossy(), 300, "soak");
    // Sessions the hostile client abandons expire after 5 s of quiet.
    let http = HttpServer::start_with_mcp("file_utils", &mcp, &["--session-idle-secs", "5"]).await;
    let mut stdio_cmd = command_with_mcp("file_utils", &mcp);
    stdio_cmd.arg("serve");
    let (stdio, _stdio_stderr) = stdio_client(stdio_cmd).await;
    let stdio_pid = mcpgraph_tests::processes_with_arg(&mcp.to_string_lossy())
        .into_iter()
        .map(|(pid, _)| pid)
        .find(|pid| *pid != http.pid())
        .expect("the stdio server's pid");
    let probes = [
        ("http", Probe { pid: http.pid() }),
        ("stdio", Probe { pid: stdio_pid }),
    ];
    let clients: Vec<Arc<Client>> = vec![Arc::new(http.rmcp_client(64).await), Arc::new(stdio)];

    let outcomes = Arc::new(Mutex::new(BTreeMap::<String, u64>::new()));
    let next = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + Duration::from_secs(seconds.min(1 << 30));
    let run = |limit: u64| {
        let workers = (0..concurrency).map(|w| {
            let (client, next, outcomes) = (
                Arc::clone(&clients[w % 2]),
                Arc::clone(&next),
                Arc::clone(&outcomes),
            );
            tokio::spawn(async move {
                loop {
                    let n = next.fetch_add(1, Ordering::SeqCst);
                    if n >= limit || Instant::now() > deadline {
                        return;
                    }
                    let (directory, cancel) = pick(n);
                    let call = client
                        .peer()
                        .call_tool(call_params("count_files", json!({"directory": directory})));
                    let what = if cancel {
                        // Dropped after 20 ms: rmcp sends notifications/cancelled.
                        match tokio::time::timeout(Duration::from_millis(20), call).await {
                            Ok(outcome) => kind(&outcome),
                            Err(_) => "cancelled".to_owned(),
                        }
                    } else {
                        kind(&call.await)
                    };
                    *outcomes.lock().await.entry(what).or_default() += 1;
                }
            })
        });
        let workers: Vec<_> = workers.collect();
        async move {
            for worker in workers {
                let _ = worker.await;
            }
        }
    };

    // The hostile client runs from the warm-up to the end, so that what it
    // costs at steady state is in the baseline and growth is not.
    let stop = Arc::new(AtomicBool::new(false));
    let hostile_outcomes = hostile::Outcomes::default();
    let session = mcpgraph_tests::open_session(http.addr).await;
    let hostile = tokio::spawn(hostile::run(
        http.addr,
        session,
        Arc::clone(&stop),
        Arc::clone(&hostile_outcomes),
    ));
    let warm_up = 2_000.min(calls);
    run(warm_up).await;
    let start: Baseline = probes.iter().map(|(_, p)| (p.rss_kib(), p.fds())).collect();
    for (name, probe) in &probes {
        println!("soak: {name} after {warm_up} calls: {}", probe.line());
    }
    let began = Instant::now();
    // Memory and descriptors along the way: a twelfth of a timed run apart
    // (at least 10 s), else every minute; growth shows as a trend here.
    let every = if seconds == u64::MAX {
        Duration::from_secs(60)
    } else {
        Duration::from_secs((seconds / 12).max(10))
    };
    // The first sample, the baseline of a run of ten minutes or more: by
    // then the allocator's arenas of every thread have settled, which two
    // thousand calls do not show.
    let settled: Arc<std::sync::Mutex<Option<Baseline>>> = Arc::default();
    let sampler = {
        let pids: Vec<(&'static str, u32)> = probes.iter().map(|(n, p)| (*n, p.pid)).collect();
        let stop = Arc::clone(&stop);
        let next = Arc::clone(&next);
        let settled = Arc::clone(&settled);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval_at((Instant::now() + every).into(), every);
            loop {
                tick.tick().await;
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let mut first = settled.lock().unwrap();
                if first.is_none() {
                    *first = Some(
                        pids.iter()
                            .map(|(_, pid)| {
                                let probe = Probe { pid: *pid };
                                (probe.rss_kib(), probe.fds())
                            })
                            .collect(),
                    );
                }
                drop(first);
                for (name, pid) in &pids {
                    println!(
                        "soak: {name} at {:>5} s, {} calls: {}",
                        began.elapsed().as_secs(),
                        next.load(Ordering::Relaxed),
                        Probe { pid: *pid }.line()
                    );
                }
            }
        })
    };
    run(calls).await;
    stop.store(true, Ordering::Relaxed);
    sampler.abort();
    let _ = hostile.await;
    let done = next.load(Ordering::SeqCst).min(calls);
    println!(
        "soak: {done} calls in {:.1} s at concurrency {concurrency}",
        began.elapsed().as_secs_f64()
    );
    for (what, n) in outcomes.lock().await.iter() {
        println!("soak:   {n:>7}  {what}");
    }
    let hostile_outcomes = hostile_outcomes.lock().unwrap().clone();
    for (what, n) in &hostile_outcomes {
        println!("soak:   {n:>7}  {what}");
    }
    // Let retired connections and crashed children be reaped.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let mut failed = false;
    let long = began.elapsed() >= Duration::from_secs(600);
    let start = match settled.lock().unwrap().clone() {
        Some(first) if long => {
            println!(
                "soak: growth measured from the first sample ({} s in)",
                every.as_secs()
            );
            first
        }
        _ => start,
    };
    for ((name, probe), (rss, fds)) in probes.iter().zip(start) {
        println!("soak: {name} at the end: {}", probe.line());
        let (rss_now, fds_now, children) = (probe.rss_kib(), probe.fds(), probe.children());
        // Flat: allocator noise (5 MiB and 25%) aside.
        if rss_now > rss + rss / 4 + 5 * 1024 {
            println!("soak: FAIL: {name}'s RSS grew from {rss} to {rss_now} KiB");
            failed = true;
        }
        if fds_now > fds + 16 {
            println!("soak: FAIL: {name}'s open fds grew from {fds} to {fds_now}");
            failed = true;
        }
        if children > 2 {
            println!("soak: FAIL: {name} holds {children} child processes");
            failed = true;
        }
    }
    // A hostile request the server never answered, or one it served as if
    // it were good, means a bound is missing.
    for (what, n) in &hostile_outcomes {
        if what.ends_with("no answer") || what.contains("200 OK") && !what.contains("tool name") {
            println!("soak: FAIL: {n} × {what}");
            failed = true;
        }
    }
    if outcomes.lock().await.get("ok").copied().unwrap_or(0) == 0 {
        println!("soak: FAIL: no call succeeded");
        failed = true;
    }
    http.stop().await;
    if failed {
        std::process::ExitCode::FAILURE
    } else {
        std::process::ExitCode::SUCCESS
    }
}
