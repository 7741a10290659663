//! `retry`, `timeoutMs` and `onError` on `parallel` and `forEach` nodes
//! and on their calls, against the purpose-built test server's `flaky`
//! tool (it fails its first N calls, counted in a file) and `hang` tool.

use std::time::{Duration, Instant};

use mcpgraph::Engine;
use mcpgraph_tests::{
    engine_call, free_port, test_server_http_with, test_server_over_http, test_server_spec,
};
use serde_json::{Value, json};

mod graph {
    mcpgraph::mcpgraph!("graphs/fanout_resilience.yaml");
}

fn engine(timeout_ms: u64) -> Engine {
    let specs = test_server_spec(env!("CARGO_BIN_EXE_mcpgraph-test-server"), timeout_ms, &[]);
    Engine::start::<graph::Server>(specs, 2).expect("engine starts")
}

/// A counter file of its own for each item of each test.
fn counters(name: &str, n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            let path = std::env::temp_dir()
                .join(format!("mcpgraph-fanres-{name}-{i}-{}", std::process::id()));
            let _ = std::fs::remove_file(&path);
            path.to_string_lossy().into_owned()
        })
        .collect()
}

/// Each item's call crashes the server twice, then answers: the call's
/// `retry` (3 tries) carries every item through.
#[tokio::test(flavor = "multi_thread")]
async fn each_item_is_retried_on_its_own() {
    let e = engine(10_000);
    let counters = counters("each", 3);
    let args = json!({"counters": counters, "failures": 2});
    let got = engine_call(&e, "each_flaky", args).await;
    assert_eq!(got, Ok(json!([{"call": 3}, {"call": 3}, {"call": 3}])));
    for counter in &counters {
        assert_eq!(std::fs::read_to_string(counter).unwrap(), "3");
    }
    e.shutdown().await;
}

/// The node's `retry` (2 tries) applies to each call: too few against
/// three crashes, the node fails with the last error and `onError` takes
/// it, `$.each.error` = {kind, message}.
#[tokio::test(flavor = "multi_thread")]
async fn too_few_attempts_take_the_error_route() {
    let e = engine(10_000);
    let counters = counters("routed", 2);
    let args = json!({"counters": counters, "failures": 3});
    let got: Value = engine_call(&e, "each_flaky_routed", args)
        .await
        .expect("routed to the fallback");
    assert_eq!(got["fallback"], json!(true), "{got}");
    assert_eq!(got["error"]["kind"], json!("downstream.crashed"), "{got}");
    let message = got["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("(after 2 tries)"), "{got}");
    // The first item failed the node: the second was never called.
    assert_eq!(std::fs::read_to_string(&counters[0]).unwrap(), "2");
    assert!(!std::path::Path::new(&counters[1]).exists());
    e.shutdown().await;
}

/// Two branches that never answer: the node's `timeoutMs` (500 ms) fires
/// long before the server's (60 s), both are cancelled downstream, and the
/// `onError` route gets kind `downstream.timeout`.
#[tokio::test(flavor = "multi_thread")]
async fn a_node_timeout_cancels_the_branches_and_takes_the_error_route() {
    let e = engine(60_000);
    let started = Instant::now();
    let got: Value = engine_call(&e, "hang_in_a_branch", json!({}))
        .await
        .expect("routed to the fallback");
    let took = started.elapsed();
    assert_eq!(got["fallback"], json!(true), "{got}");
    assert_eq!(got["error"]["kind"], json!("downstream.timeout"), "{got}");
    let message = got["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("timeoutMs (500 ms)"), "{got}");
    assert!(message.contains("1 of 3 calls done"), "{got}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    // The cancellations reach the server.
    mcpgraph_tests::assert_cancelled_downstream(&e, 2).await;
    e.shutdown().await;
}

/// A branch's own `timeoutMs` fails the node (no `onError`) with the
/// branch's limit in the message, well before the server's.
#[tokio::test(flavor = "multi_thread")]
async fn a_branch_timeout_fails_the_node() {
    let e = engine(60_000);
    let started = Instant::now();
    let err = engine_call(&e, "branch_timeout", json!({}))
        .await
        .unwrap_err();
    assert!(err.starts_with("node `p`: "), "{err}");
    assert!(err.contains("the call's timeoutMs (300 ms)"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(5));
    e.shutdown().await;
}

/// Over HTTP, the server answers both items' first calls 429 with
/// `Retry-After: 1`: each call waits that second (not its 10 ms backoff)
/// before its retry, and both succeed.
#[tokio::test(flavor = "multi_thread")]
async fn a_retry_after_of_an_http_429_is_honoured_per_call() {
    let port = free_port();
    let bin = env!("CARGO_BIN_EXE_mcpgraph-test-server");
    let _server = test_server_http_with(bin, port, &["--http-busy", "2:1"]).await;
    let e = Engine::start::<graph::Server>(test_server_over_http(port, 10_000), 2)
        .expect("engine starts");
    let started = Instant::now();
    let got = engine_call(&e, "each_echo_retried", json!({"items": [1, 2]})).await;
    let took = started.elapsed();
    assert_eq!(got, Ok(json!([{"x": 1}, {"x": 2}])));
    assert!(took >= Duration::from_millis(900), "waited {took:?}");
    assert!(took < Duration::from_secs(6), "{took:?}");
    e.shutdown().await;
}
