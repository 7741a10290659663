//! The client manager's failure handling (issue 4, "Downstream servers"),
//! run through the runtime's engine with the purpose-built test server as
//! the downstream peer: a crash, a hang, a frozen process, garbage, a
//! malformed reply and a huge one each fail the call they hit, and the
//! graph server keeps serving correct calls afterwards.

use std::time::{Duration, Instant};

use mcpgraph::{Engine, Graph};
use mcpgraph::{ServerSpec, TransportSpec};
use serde_json::{Value, json};

mod downstream {
    mcpgraph::mcpgraph!("graphs/downstream.yaml");
}

mod limits {
    mcpgraph::mcpgraph!("graphs/downstream_limits.yaml");
}

/// Upper bound for one call in these tests: turns a hang into a failure.
const STEP: Duration = Duration::from_secs(10);

fn test_server(timeout_ms: u64, args: &[&str]) -> Vec<ServerSpec> {
    mcpgraph_tests::test_server_spec(env!("CARGO_BIN_EXE_mcpgraph-test-server"), timeout_ms, args)
}

fn engine<G: Graph>(specs: Vec<ServerSpec>) -> Engine {
    Engine::start::<G>(specs, 2).expect("engine starts")
}

async fn call(engine: &Engine, tool: &str, args: Value) -> Result<Value, String> {
    mcpgraph_tests::engine_call(engine, tool, args).await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_crash_reports_the_exit_status_not_the_stderr_and_the_next_call_restarts_the_server() {
    let e = engine::<downstream::Server>(test_server(5000, &[]));
    mcpgraph_tests::assert_echoes(&e, "start").await;
    let err = call(&e, "crash", json!({"lines": 3})).await.unwrap_err();
    eprintln!("{err}");
    for want in [
        "node `m`",
        "`test`",
        "mcpgraph-test-server",
        "exit status: 3",
        "what it wrote on stderr is in this server's log",
    ] {
        assert!(err.contains(want), "missing {want:?} in: {err}");
    }
    // The child's stderr goes to our log, never to the caller.
    for never in ["stderr line", "crashing on request"] {
        assert!(!err.contains(never), "{never:?} reached the caller: {err}");
    }
    assert_eq!(err.lines().count(), 1, "{err}");
    mcpgraph_tests::assert_echoes(&e, "a crash").await;
    let err = call(&e, "crash", json!({"lines": 300})).await.unwrap_err();
    eprintln!("{err}");
    assert!(
        err.contains("exit status: 3") && !err.contains("stderr line"),
        "{err}"
    );
    mcpgraph_tests::assert_echoes(&e, "a second crash").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hung_call_times_out_is_cancelled_downstream_and_the_server_is_kept() {
    let e = engine::<downstream::Server>(test_server(500, &[]));
    mcpgraph_tests::assert_echoes(&e, "start").await;
    let started = Instant::now();
    let err = call(&e, "hang", json!({})).await.unwrap_err();
    eprintln!("{err}");
    assert!(
        err.contains("node `m`") && err.contains("did not answer within 500 ms"),
        "{err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    // The server answers the ping, so it is kept: its counters go on.
    mcpgraph_tests::assert_echoes(&e, "a timeout").await;
    let stats = call(&e, "stats", json!({})).await.unwrap();
    assert_eq!(stats["calls"], json!(4), "same process: {stats}");
    wait_for_cancelled(&e, 1).await;
}

/// Waits until the test server counted `n` cancelled `hang` calls.
async fn wait_for_cancelled(e: &Engine, n: u64) {
    let mut stats = Value::Null;
    for _ in 0..20 {
        stats = call(e, "stats", json!({})).await.unwrap();
        if stats["cancelled"] == json!(n) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the downstream call was not cancelled: {stats}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_frozen_server_fails_the_ping_and_is_restarted() {
    let e = engine::<downstream::Server>(test_server(400, &[]));
    mcpgraph_tests::assert_echoes(&e, "start").await;
    let err = call(&e, "freeze", json!({})).await.unwrap_err();
    eprintln!("{err}");
    assert!(err.contains("did not answer within 400 ms"), "{err}");
    let started = Instant::now();
    mcpgraph_tests::assert_echoes(&e, "a freeze").await;
    eprintln!(
        "ping failed, restarted and answered in {:?}",
        started.elapsed()
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let stats = call(&e, "stats", json!({})).await.unwrap();
    assert_eq!(stats["calls"], json!(2), "a new process: {stats}");
}

#[tokio::test(flavor = "multi_thread")]
async fn garbage_on_stdout_is_ignored() {
    let e = engine::<downstream::Server>(test_server(500, &["--garbage-on-start"]));
    mcpgraph_tests::assert_echoes(&e, "garbage before the handshake").await;
    assert_eq!(
        call(&e, "garbage", json!({"answer": true})).await,
        Ok(json!({"ok": true}))
    );
    // Garbage instead of an answer: that call times out, nothing else.
    let err = call(&e, "garbage", json!({"answer": false}))
        .await
        .unwrap_err();
    eprintln!("{err}");
    assert!(err.contains("did not answer within 500 ms"), "{err}");
    mcpgraph_tests::assert_echoes(&e, "garbage instead of an answer").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_malformed_reply_fails_that_call_only() {
    let e = engine::<downstream::Server>(test_server(5000, &[]));
    mcpgraph_tests::assert_echoes(&e, "start").await;
    let started = Instant::now();
    let (slow, bad) = tokio::join!(
        call(&e, "sleep", json!({"ms": 300})),
        call(&e, "malformed", json!({}))
    );
    let err = bad.unwrap_err();
    assert!(
        err.contains("node `m`") && err.contains("malformed reply"),
        "{err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "failed at once, not by timeout"
    );
    assert_eq!(slow, Ok(json!({"slept": 300})), "the concurrent call");
    mcpgraph_tests::assert_echoes(&e, "a malformed reply").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_oversized_reply_fails_that_call_only() {
    let e = engine::<downstream::Server>(test_server(8000, &[]));
    let big = 4 << 20;
    assert_eq!(
        call(&e, "huge", json!({"bytes": big})).await,
        Ok(json!({"length": big})),
        "4 MiB is within the limit"
    );
    let started = Instant::now();
    let (slow, huge) = tokio::join!(
        call(&e, "sleep", json!({"ms": 200})),
        call(&e, "huge", json!({"bytes": 17 << 20}))
    );
    let err = huge.unwrap_err();
    eprintln!("{err} (after {:?})", started.elapsed());
    assert!(
        err.contains("node `m`") && err.contains("larger than the limit of 16777216 bytes"),
        "{err}"
    );
    assert!(started.elapsed() < Duration::from_secs(6), "not by timeout");
    assert_eq!(slow, Ok(json!({"slept": 200})), "the concurrent call");
    mcpgraph_tests::assert_echoes(&e, "an oversized reply").await;
    let stats = call(&e, "stats", json!({})).await.unwrap();
    assert_eq!(stats["calls"], json!(5), "no restart: {stats}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_dies_at_start_is_reported_with_its_exit_status() {
    let e = engine::<downstream::Server>(test_server(5000, &["--crash-on-start"]));
    let err = call(&e, "echo", json!({"x": 1})).await.unwrap_err();
    eprintln!("{err}");
    assert!(
        err.contains("cannot start downstream server `test`")
            && err.contains("exit status: 4")
            && err.contains("what it wrote on stderr is in this server's log"),
        "{err}"
    );
    assert!(
        !err.contains("refusing to start (--crash-on-start)"),
        "the child's stderr reached the caller: {err}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_never_completes_the_handshake_times_out() {
    let e = engine::<downstream::Server>(test_server(400, &["--silent"]));
    let started = Instant::now();
    let err = call(&e, "echo", json!({"x": 1})).await.unwrap_err();
    eprintln!("{err}");
    assert!(
        err.contains("did not complete the MCP handshake within 400 ms"),
        "{err}"
    );
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test(flavor = "multi_thread")]
async fn calls_queued_behind_a_failed_handshake_share_its_error() {
    // Six calls at once on a server that never answers its handshake: the
    // first one's attempt times out after 1 s, and the five that queued
    // behind it get that error instead of trying again one by one (6 s).
    let e = engine::<downstream::Server>(test_server(1000, &["--silent"]));
    let started = Instant::now();
    let calls = (0..6).map(|i| {
        let e = &e;
        async move {
            let r = call(e, "echo", json!({"x": i})).await;
            eprintln!("call {i} done at {:?}: {r:?}", started.elapsed());
            r
        }
    });
    let results = futures::future::join_all(calls).await;
    let elapsed = started.elapsed();
    for result in &results {
        let err = result.as_ref().unwrap_err();
        assert!(
            err.contains("did not complete the MCP handshake within 1000 ms"),
            "{err}"
        );
    }
    eprintln!("six queued calls failed after {elapsed:?}");
    assert!(elapsed < Duration::from_secs(3), "{elapsed:?}");
    // A later call tries again (and fails the same way, on its own).
    let started = Instant::now();
    let err = call(&e, "echo", json!({"x": 7})).await.unwrap_err();
    assert!(err.contains("handshake"), "{err}");
    assert!(started.elapsed() >= Duration::from_millis(900));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_time_limit_cancels_the_downstream_call() {
    let e = engine::<limits::Server>(test_server(5000, &[]));
    let started = Instant::now();
    let err = call(&e, "hang", json!({})).await.unwrap_err();
    eprintln!("{err}");
    assert!(
        err.contains("maximum execution time (300 ms) reached"),
        "{err}"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
    // The downstream server saw `notifications/cancelled` for it.
    wait_for_cancelled(&e, 1).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn shutdown_stops_the_child_processes() {
    let mut specs = test_server(5000, &[]);
    let tag = format!("shutdown-{}", std::process::id());
    if let TransportSpec::Stdio { env, .. } = &mut specs[0].transport {
        env.push(("MCPGRAPH_TEST_TAG".into(), tag.clone()));
    }
    let e = engine::<downstream::Server>(specs);
    mcpgraph_tests::assert_echoes(&e, "start").await;
    let pids = child_pids_of_self(&format!("MCPGRAPH_TEST_TAG={tag}"));
    assert_eq!(pids.len(), 1, "one shared connection: {pids:?}");
    tokio::time::timeout(STEP, e.shutdown())
        .await
        .expect("shutdown is bounded");
    for pid in pids {
        assert!(
            !std::path::Path::new(&format!("/proc/{pid}")).exists()
                || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                    .is_ok_and(|s| s.contains(") Z ")),
            "test server {pid} still running after shutdown"
        );
    }
}

/// Pids of this process's children whose environment contains `needle`.
fn child_pids_of_self(needle: &str) -> Vec<u32> {
    let me = std::process::id().to_string();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
            let ppid = stat
                .rsplit_once(") ")
                .and_then(|(_, rest)| rest.split(' ').nth(1));
            ppid == Some(me.as_str()) && String::from_utf8_lossy(&environ).contains(needle)
        })
        .collect()
}
