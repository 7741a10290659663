//! `retry`, `timeoutMs` and `onError` on `mcp` nodes, against the
//! purpose-built test server's `flaky` tool (it fails its first N calls,
//! counted in a file, by crashing, hanging or returning `isError`) and its
//! `hang` tool.

use std::time::{Duration, Instant};

use mcpgraph::{Engine, Graph};
use mcpgraph_tests::{engine_call, test_server_spec};
use serde_json::{Value, json};

mod graph {
    mcpgraph::mcpgraph!("graphs/resilience.yaml");
}

fn engine<G: Graph>(timeout_ms: u64) -> Engine {
    let specs = test_server_spec(env!("CARGO_BIN_EXE_mcpgraph-test-server"), timeout_ms, &[]);
    Engine::start::<G>(specs, 2).expect("engine starts")
}

/// A counter file of its own for each test.
fn counter(name: &str) -> String {
    let path =
        std::env::temp_dir().join(format!("mcpgraph-resilience-{name}-{}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path.to_string_lossy().into_owned()
}

/// Two crashes, then an answer: three tries succeed on a new process each.
#[tokio::test(flavor = "multi_thread")]
async fn a_retry_outlasts_crashes() {
    let e = engine::<graph::Server>(10_000);
    let counter = counter("crash");
    let args = json!({"counter": counter, "failures": 2, "how": "crash"});
    let got = engine_call(&e, "flaky", args).await;
    assert_eq!(got, Ok(json!({"call": 3})));
    e.shutdown().await;
}

/// A server that does not answer within its `timeoutMs` is tried again.
#[tokio::test(flavor = "multi_thread")]
async fn a_retry_outlasts_a_timeout() {
    let e = engine::<graph::Server>(500);
    let counter = counter("hang");
    let args = json!({"counter": counter, "failures": 1, "how": "hang"});
    let got = engine_call(&e, "flaky", args).await;
    assert_eq!(got, Ok(json!({"call": 2})));
    e.shutdown().await;
}

/// Two tries against three failures: the node fails with the last error.
#[tokio::test(flavor = "multi_thread")]
async fn too_few_attempts_fail_with_the_last_error() {
    let e = engine::<graph::Server>(10_000);
    let counter = counter("few");
    let args = json!({"counter": counter, "failures": 3});
    let err = engine_call(&e, "flaky_twice", args).await.unwrap_err();
    assert!(err.starts_with("node `m`: "), "{err}");
    assert!(err.contains("exit"), "the crash report: {err}");
    assert!(err.contains("(after 2 tries)"), "{err}");
    assert_eq!(std::fs::read_to_string(&counter).unwrap(), "2");
    e.shutdown().await;
}

/// An `isError` result is not retried: the tool ran once.
#[tokio::test(flavor = "multi_thread")]
async fn a_tool_error_is_not_retried() {
    let e = engine::<graph::Server>(10_000);
    let counter = counter("tool-error");
    let args = json!({"counter": counter, "failures": 1, "how": "error"});
    let err = engine_call(&e, "flaky", args).await.unwrap_err();
    assert!(err.contains("call 1 fails"), "{err}");
    assert_eq!(std::fs::read_to_string(&counter).unwrap(), "1");
    let routed = engine_call(&e, "tool_error_with_fallback", json!({})).await;
    let routed = routed.expect("routed to the fallback");
    assert_eq!(routed["kind"], json!("downstream.tool_error"), "{routed}");
    e.shutdown().await;
}

/// A call that never answers: the node's `timeoutMs` (500 ms) fires long
/// before the server's (60 s), the call is cancelled downstream, and the
/// `onError` route gets `{kind, message}`.
#[tokio::test(flavor = "multi_thread")]
async fn a_node_timeout_takes_the_error_route() {
    let e = engine::<graph::Server>(60_000);
    let started = Instant::now();
    let got: Value = engine_call(&e, "hang_with_fallback", json!({}))
        .await
        .expect("routed to the fallback");
    let took = started.elapsed();
    assert_eq!(got["fallback"], json!(true), "{got}");
    assert_eq!(got["error"]["kind"], json!("downstream.timeout"), "{got}");
    let message = got["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("timeoutMs (500 ms)"), "{got}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    // The cancellation reaches the server.
    mcpgraph_tests::assert_cancelled_downstream(&e, 1).await;
    e.shutdown().await;
}

/// A server that crashes call after call: after 5 failures in a row its
/// circuit breaker opens, and its calls (of any tool) fail at once without
/// reaching it, saying so.
#[tokio::test(flavor = "multi_thread")]
async fn the_circuit_breaker_opens_after_five_failures_in_a_row() {
    let e = engine::<graph::Server>(10_000);
    let counter = counter("breaker");
    let args = json!({"counter": counter, "failures": 1000, "how": "crash"});
    let mut errors = Vec::new();
    // Three tries per call: the breaker opens during the second call.
    for _ in 0..2 {
        errors.push(engine_call(&e, "flaky", args.clone()).await.unwrap_err());
    }
    let reached = std::fs::read_to_string(&counter).unwrap();
    assert_eq!(reached, "5", "five crashes reached the server: {errors:?}");
    assert!(errors[1].contains("circuit breaker"), "{errors:?}");
    let started = Instant::now();
    let err = engine_call(&e, "stats", json!({})).await.unwrap_err();
    assert!(err.contains("circuit breaker"), "{err}");
    assert!(err.contains("`test`"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(2), "fails at once");
    let err = engine_call(&e, "flaky", args).await.unwrap_err();
    assert!(err.contains("circuit breaker"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&counter).unwrap(),
        "5",
        "not called"
    );
    e.shutdown().await;
}
