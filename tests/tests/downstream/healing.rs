//! Connection healing: a call abandoned (by the graph's time limit) or
//! cancelled on a connection that then answers nothing leaves the
//! connection suspect; the next call pings it, gets no answer within
//! `pingTimeoutMs`, and runs on a new process or session; a replaced
//! connection still finishes the calls it had, and calls cancelled while
//! connecting leave one attempt. Over stdio (the purpose-built test server),
//! and over streamable HTTP and legacy SSE.

use std::time::{Duration, Instant};

use mcpgraph::{CallOptions, CancellationToken, Engine, Graph};
use mcpgraph::{ServerSpec, TransportSpec};
use mcpgraph_tests::{
    assert_echoes, engine_call, free_port, replace_server, test_server_over_http,
};
use serde_json::{Value, json};

mod downstream {
    mcpgraph::mcpgraph!("graphs/downstream.yaml");
}

mod sse_failures {
    mcpgraph::mcpgraph!("graphs/sse_failures.yaml");
}

mod heal {
    mcpgraph::mcpgraph!("graphs/heal.yaml");
}

/// The graph's time limit (3 s) abandons a call on a server whose whole
/// process is frozen, long before the server's own `timeoutMs` (60 s). The
/// connection is suspect: the next call pings it (1 s, `pingTimeoutMs`'s
/// default), gets no answer, and runs on a new process within the limit;
/// so does the call after it.
#[tokio::test(flavor = "multi_thread")]
async fn a_call_abandoned_by_the_graph_limit_heals_the_connection() {
    let e = engine::<heal::Server>(test_server(60_000, &[]));
    let started = Instant::now();
    let err = call(&e, "freeze", json!({})).await.unwrap_err();
    let hang = started.elapsed();
    assert!(err.contains("maximum execution time (3000 ms)"), "{err}");
    assert!(hang < Duration::from_secs(4), "{hang:?}");
    for round in ["first", "second"] {
        let started = Instant::now();
        let stats = call(&e, "stats", json!({})).await;
        let took = started.elapsed();
        eprintln!("{round} call after the frozen one: {took:?}");
        let stats = stats.unwrap_or_else(|e| panic!("{round} call after the freeze: {e}"));
        assert!(took < Duration::from_secs(3), "{round}: {took:?}");
        // A new process: its counters started again.
        let calls = if round == "first" { 1 } else { 2 };
        assert_eq!(stats["calls"], json!(calls), "{round}: {stats}");
    }
    // The probe starts when the call is abandoned: a call that comes once
    // it has failed goes to a new process without a ping of its own.
    call(&e, "freeze", json!({})).await.unwrap_err();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let started = Instant::now();
    let stats = call(&e, "stats", json!({})).await.expect("after the probe");
    let took = started.elapsed();
    eprintln!("a call after the background probe failed: {took:?}");
    assert_eq!(stats["calls"], json!(1), "a new process: {stats}");
    assert!(
        took < Duration::from_millis(900),
        "no second ping: {took:?}"
    );
    e.shutdown().await;
}

/// A server of MCP 2026-07-28 has no `ping` and answers it -32601: the
/// probe after an abandoned call takes that answer for a live connection,
/// which the next call uses (the same process: its counters go on).
#[tokio::test(flavor = "multi_thread")]
async fn a_server_without_ping_passes_the_probe() {
    let e = engine::<heal::Server>(test_server(60_000, &["--no-ping"]));
    let err = call(&e, "sleep", json!({"ms": 5000})).await.unwrap_err();
    assert!(err.contains("maximum execution time (3000 ms)"), "{err}");
    // The probe (1 s at most) is over.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let stats = call(&e, "stats", json!({})).await.expect("after the probe");
    assert_eq!(stats["calls"], json!(2), "the same process: {stats}");
    e.shutdown().await;
}

/// A burst of calls, each cancelled soon after it starts, while a
/// slow-starting server connects: one connection attempt (one child
/// process) in all, whose connection the next call uses; shutdown reaps it.
#[tokio::test(flavor = "multi_thread")]
async fn calls_cancelled_during_connect_leave_one_attempt() {
    let tag = format!("burst-{}", std::process::id());
    let e = engine::<downstream::Server>(test_server(
        10_000,
        &["--slow-start", "1500", "--describe", &tag],
    ));
    let mut calls = Vec::new();
    for i in 0..200 {
        let cancel = CancellationToken::new();
        let options = CallOptions {
            cancel: cancel.clone(),
            ..CallOptions::default()
        };
        let e = e.clone();
        calls.push(tokio::spawn(async move {
            e.call_with("echo", json!({"x": i}).as_object().cloned(), options)
                .await
                .result
        }));
        tokio::time::sleep(Duration::from_millis(2)).await;
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(3)).await;
            cancel.cancel();
        });
    }
    for call in calls {
        let result = call.await.expect("call task");
        assert!(result.is_err(), "every call was cancelled: {result:?}");
    }
    let children = mcpgraph_tests::processes_with_arg(&tag);
    assert_eq!(children.len(), 1, "one attempt: {children:?}");
    // The attempt completed on its own; the next call uses its connection.
    assert_echoes(&e, "a cancelled burst").await;
    let stats = call(&e, "stats", json!({})).await.unwrap();
    assert_eq!(stats["calls"], json!(2), "the same process: {stats}");
    e.shutdown().await;
    let left = mcpgraph_tests::wait_no_process_with_arg(&tag, Duration::from_secs(3)).await;
    assert!(left.is_empty(), "reaped at shutdown: {left:?}");
}

/// A connection that fails its ping is replaced for new calls, but closed
/// only once the calls still running on it end: a server that was only
/// busy (here frozen for 2.5 s) still answers the call it had (a `sleep`
/// started before the freeze), while a new call runs on a new process.
#[tokio::test(flavor = "multi_thread")]
async fn a_replaced_connection_finishes_the_calls_it_had() {
    let e = engine::<heal::Server>(test_server(60_000, &[]));
    call(&e, "stats", json!({})).await.expect("connected");
    let running = tokio::spawn({
        let e = e.clone();
        async move { call(&e, "sleep", json!({"ms": 300})).await }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let cancel = CancellationToken::new();
    let frozen = tokio::spawn({
        let (e, cancel) = (e.clone(), cancel.clone());
        async move {
            let options = CallOptions {
                cancel,
                ..CallOptions::default()
            };
            e.call_with(
                "freeze_for",
                json!({"ms": 2500}).as_object().cloned(),
                options,
            )
            .await
            .result
        }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    cancel.cancel();
    assert!(frozen.await.unwrap().is_err(), "the freeze was cancelled");
    // The abandoned call made the connection suspect: the ping fails (the
    // process is frozen) and this call gets a new process.
    let stats = call(&e, "stats", json!({}))
        .await
        .expect("a new connection");
    assert_eq!(stats["calls"], json!(1), "a new process: {stats}");
    // The old connection was kept for the call still running on it.
    let slept = running.await.unwrap();
    assert_eq!(slept, Ok(json!({"slept": 300})));
    e.shutdown().await;
}

fn test_server(timeout_ms: u64, args: &[&str]) -> Vec<ServerSpec> {
    mcpgraph_tests::test_server_spec(env!("CARGO_BIN_EXE_mcpgraph-test-server"), timeout_ms, args)
}

fn engine<G: Graph>(specs: Vec<ServerSpec>) -> Engine {
    Engine::start::<G>(specs, 2).expect("engine starts")
}

async fn call(engine: &Engine, tool: &str, args: Value) -> Result<Value, String> {
    engine_call(engine, tool, args).await
}

async fn test_server_http(port: u16) -> tokio::process::Child {
    mcpgraph_tests::test_server_http(env!("CARGO_BIN_EXE_mcpgraph-test-server"), port).await
}

/// Over streamable HTTP, a call abandoned by the graph's time limit (3 s)
/// on a session that then answers nothing (pings included) heals: the next
/// call pings, gets no answer within `pingTimeoutMs` (1 s), and runs on a
/// new session within the limit; so does the call after it.
#[tokio::test(flavor = "multi_thread")]
async fn an_abandoned_http_call_heals_on_a_new_session() {
    let port = free_port();
    let mut server = test_server_http(port).await;
    let specs = test_server_over_http(port, 60_000);
    let e = Engine::start::<heal::Server>(specs, 1).unwrap();
    engine_call(&e, "stats", json!({}))
        .await
        .expect("connected");
    let started = Instant::now();
    let err = engine_call(&e, "wedge", json!({})).await.unwrap_err();
    assert!(err.contains("maximum execution time (3000 ms)"), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    for round in ["first", "second"] {
        let started = Instant::now();
        let stats = engine_call(&e, "stats", json!({})).await;
        let took = started.elapsed();
        eprintln!("{round} call after the wedged session: {took:?}");
        stats.unwrap_or_else(|e| panic!("{round} call after the wedge: {e}"));
        assert!(took < Duration::from_secs(3), "{round}: {took:?}");
    }
    e.shutdown().await;
    let _ = server.kill().await;
}

/// Over legacy SSE, a call the client cancels on a session that then
/// answers nothing (pings included) heals: the next call pings, gets no
/// answer within `pingTimeoutMs` (1 s), and runs on a new session.
#[tokio::test(flavor = "multi_thread")]
async fn a_cancelled_sse_call_heals_on_a_new_session() {
    let server = mcpgraph_tests::sse_server::SseServer::start().await;
    let mut specs = replace_server(
        "remote",
        TransportSpec::Sse {
            url: server.url(),
            headers: vec![],
        },
    );
    specs[0].timeout_ms = Some(60_000);
    let e = Engine::start::<sse_failures::Server>(specs, 1).unwrap();
    assert_eq!(
        engine_call(&e, "echo", json!({"x": 0})).await,
        Ok(json!({"x": 0}))
    );
    let cancel = CancellationToken::new();
    let options = CallOptions {
        cancel: cancel.clone(),
        ..CallOptions::default()
    };
    let wedged = tokio::spawn({
        let e = e.clone();
        async move { e.call_with("wedge", None, options).await.result }
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    cancel.cancel();
    assert!(wedged.await.unwrap().is_err(), "the wedge was cancelled");
    for round in ["first", "second"] {
        let started = Instant::now();
        let echoed = engine_call(&e, "echo", json!({"x": round})).await;
        let took = started.elapsed();
        eprintln!("{round} call after the wedged session: {took:?}");
        assert_eq!(echoed, Ok(json!({"x": round})), "{round}");
        assert!(took < Duration::from_secs(3), "{round}: {took:?}");
    }
    assert_eq!(
        server.streams.load(std::sync::atomic::Ordering::SeqCst),
        2,
        "a new session"
    );
    e.shutdown().await;
}
