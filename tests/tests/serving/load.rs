//! 1,000 calls at concurrency 32, over streamable HTTP and over stdio, with
//! zero errors and every result equal to the one a sequential run gave for
//! the same call (same connection, each distinct call once, beforehand). The
//! calls are interleaved over three servers: `sum_to_n` (loop_example) with
//! n = 1..50, `test_switch` (switch_example) on every route including an
//! argument that fails validation (an `isError` result, which must match
//! too), and `test_tool` (test_minimal). The wall time is printed
//! (`--nocapture`).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcpgraph_tests::rmcp::service::{Peer, RoleClient};
use mcpgraph_tests::*;
use serde_json::{Value, json};
use tokio::task::JoinSet;

const CALLS: usize = 1000;
const CONCURRENCY: usize = 32;
/// Upper bound for the 1,000 concurrent calls (debug build, loaded 2-core CI).
const LOAD_LIMIT: Duration = Duration::from_secs(25);

/// One call: which server (an index into [`SERVERS`]), tool, arguments.
type Job = (usize, &'static str, Value);

/// The servers the calls go to.
const SERVERS: [&str; 3] = ["loop_example", "switch_example", "test_minimal"];

/// 1,000 calls, interleaved: 30 % `sum_to_n` (n cycling through 1..=50, the
/// expensive ones: up to 150 nodes each), 50 % `test_switch` (every route,
/// and a string that fails validation), 20 % `test_tool` (echoes its
/// arguments).
fn jobs() -> Vec<Job> {
    let switch_values = [
        json!(15),
        json!(10),
        json!(11),
        json!(1),
        json!(0),
        json!(-3),
        json!(2.5),
        json!("11"),
    ];
    (0..CALLS)
        .map(|i| {
            // j numbers the calls of each kind: 0, 1, 2, ...
            let (round, slot) = (i / 10, i % 10);
            match slot {
                0..=2 => {
                    let j = round * 3 + slot;
                    (0, "sum_to_n", json!({ "n": (j * 17) % 50 + 1 }))
                }
                3..=7 => {
                    let j = round * 5 + slot - 3;
                    let v = switch_values[j % switch_values.len()].clone();
                    (1, "test_switch", json!({ "value": v }))
                }
                _ => (
                    2,
                    "test_tool",
                    json!({ "k": (round * 2 + slot) % 10, "tag": "load" }),
                ),
            }
        })
        .collect()
}

/// The two load tests share 2 CI cores: run them one at a time so each
/// measures its own transport.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn key(job: &Job) -> String {
    format!("{}:{}:{}", job.0, job.1, job.2)
}

/// The sequential reference: each distinct call once, one at a time.
async fn sequential(peers: &[Peer<RoleClient>], jobs: &[Job]) -> HashMap<String, Value> {
    let start = Instant::now();
    let mut reference = HashMap::new();
    for job in jobs {
        let k = key(job);
        if reference.contains_key(&k) {
            continue;
        }
        let r = timed(
            &format!("sequential {k}"),
            peers[job.0].call_tool(call_params(job.1, job.2.clone())),
        )
        .await
        .unwrap_or_else(|e| panic!("sequential {k}: {e}"));
        reference.insert(k, result_json(&r));
    }
    eprintln!(
        "sequential reference: {} distinct calls in {:.2?}",
        reference.len(),
        start.elapsed()
    );
    // Spot-check the reference itself against known answers.
    assert_eq!(
        reference[&key(&(0, "sum_to_n", json!({ "n": 50 })))]["structuredContent"]["sum"].as_f64(),
        Some(1275.0)
    );
    assert_eq!(
        reference[&key(&(1, "test_switch", json!({ "value": 15 })))]["structuredContent"],
        json!({ "result": "high" })
    );
    assert_eq!(
        reference[&key(&(1, "test_switch", json!({ "value": "11" })))]["isError"],
        json!(true)
    );
    assert_eq!(
        reference[&key(&(2, "test_tool", json!({ "k": 3, "tag": "load" })))]["structuredContent"],
        json!({ "k": 3, "tag": "load" })
    );
    reference
}

/// Runs all jobs with `CONCURRENCY` workers; returns the wall time. Fails on
/// any protocol error or any result that differs from `reference`.
async fn concurrent(
    what: &str,
    peers: &[Peer<RoleClient>],
    jobs: Vec<Job>,
    reference: HashMap<String, Value>,
) -> Duration {
    let jobs = Arc::new(jobs);
    let reference = Arc::new(reference);
    let next = Arc::new(AtomicUsize::new(0));
    let peers: Vec<Peer<RoleClient>> = peers.to_vec();
    let start = Instant::now();
    let mut set = JoinSet::new();
    for _ in 0..CONCURRENCY {
        let (jobs, reference, next, peers) =
            (jobs.clone(), reference.clone(), next.clone(), peers.clone());
        set.spawn(async move {
            let mut failures = Vec::new();
            let mut done = 0usize;
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let k = key(job);
                match peers[job.0]
                    .call_tool(call_params(job.1, job.2.clone()))
                    .await
                {
                    Ok(r) => {
                        let got = result_json(&r);
                        if got != reference[&k] {
                            failures.push(format!(
                                "call #{i} {k}: got {got}, sequential run gave {}",
                                reference[&k]
                            ));
                        }
                    }
                    Err(e) => failures.push(format!("call #{i} {k}: protocol error {e}")),
                }
                done += 1;
            }
            (done, failures)
        });
    }
    let mut done = 0;
    let mut failures = Vec::new();
    let all = async {
        while let Some(joined) = set.join_next().await {
            let (d, f) = joined.expect("worker panicked");
            done += d;
            failures.extend(f);
        }
    };
    if tokio::time::timeout(LOAD_LIMIT, all).await.is_err() {
        panic!(
            "{what}: {CALLS} calls at concurrency {CONCURRENCY} not done within {LOAD_LIMIT:?} \
             ({} started)",
            next.load(Ordering::Relaxed).min(CALLS)
        );
    }
    let elapsed = start.elapsed();
    assert!(
        failures.is_empty(),
        "{what}: {} of {CALLS} calls failed; first ones:\n{}",
        failures.len(),
        failures[..failures.len().min(10)].join("\n")
    );
    assert_eq!(done, CALLS, "{what}: calls completed");
    eprintln!(
        "{what}: {CALLS} calls at concurrency {CONCURRENCY} in {:.2?} ({:.0} calls/s)",
        elapsed,
        CALLS as f64 / elapsed.as_secs_f64()
    );
    elapsed
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn thousand_calls_over_http() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let mut servers = Vec::new();
    for name in SERVERS {
        servers.push(HttpServer::start(name, &[], &[]).await);
    }
    let mut clients = Vec::new();
    for s in &servers {
        clients.push(s.rmcp_client(CONCURRENCY).await);
    }
    let peers: Vec<Peer<RoleClient>> = clients.iter().map(|c| c.peer().clone()).collect();
    let jobs = jobs();
    let reference = sequential(&peers, &jobs).await;
    concurrent("HTTP", &peers, jobs, reference).await;
    for c in clients {
        let _ = timed("close HTTP client", c.cancel()).await;
    }
    for s in servers {
        s.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn thousand_calls_over_stdio() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let mut servers = Vec::new();
    for name in SERVERS {
        servers.push(Server::start(name).await);
    }
    let peers: Vec<Peer<RoleClient>> = servers.iter().map(|s| s.client().peer().clone()).collect();
    let jobs = jobs();
    let reference = sequential(&peers, &jobs).await;
    concurrent("stdio", &peers, jobs, reference).await;
    for s in servers {
        s.close().await;
    }
}
