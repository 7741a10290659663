//! A downstream server that runs calls as MCP tasks: our own graph server
//! (the conformance fixture, which makes every call of a client that
//! declares the tasks extension a task) over streamable HTTP. The calling
//! graph gets the task, polls it to its end and returns its result; a
//! call that runs out of its `timeoutMs` cancels the task downstream; a
//! question the task asks reaches the calling client (asked live, or as
//! the round's `input_required`) and its answer goes back to the task.

use std::time::{Duration, Instant};

use mcpgraph::Engine;
use mcpgraph::TransportSpec;
use mcpgraph_tests::{
    HttpServer, Sdk, call_text, engine_call, program_target, replace_server, run_sdk_client_with,
};
use serde_json::json;

mod graph {
    mcpgraph::mcpgraph!("graphs/downstream_tasks.yaml");
}

const FIXTURE: &str = env!("CARGO_BIN_EXE_conformance_fixture");
const TEST_SERVER: &str = env!("CARGO_BIN_EXE_mcpgraph-test-server");

/// The conformance fixture serving HTTP, logging each task it starts and
/// ends.
async fn remote_graph() -> HttpServer {
    let file = std::env::temp_dir().join(format!(
        "mcpgraph-downstream-tasks-{}.json",
        std::process::id()
    ));
    let servers = json!({ "mcpServers": { "test": { "command": TEST_SERVER } } });
    std::fs::write(&file, servers.to_string()).expect("write --mcp file");
    let mut cmd = tokio::process::Command::new(FIXTURE);
    cmd.arg("--mcp")
        .arg(&file)
        .args([
            "serve",
            "--http",
            "127.0.0.1:0",
            "--stateless",
            "--log-level",
            "info",
        ])
        .kill_on_drop(true);
    HttpServer::spawn("conformance_fixture", cmd, &[]).await
}

fn engine(remote: &HttpServer, timeout_ms: u64) -> Engine {
    let mut servers = replace_server(
        "remote",
        TransportSpec::StreamableHttp {
            url: remote.url(),
            headers: vec![],
        },
    );
    servers[0].timeout_ms = Some(timeout_ms);
    Engine::start::<graph::Server>(servers, 2).expect("the engine starts")
}

/// Waits up to 5 s for `text` in `server`'s log.
async fn logged(server: &HttpServer, text: &str) -> bool {
    let end = Instant::now() + Duration::from_secs(5);
    while Instant::now() < end {
        if server.stderr().contains(text) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

#[tokio::test(flavor = "multi_thread")]
async fn a_downstream_task_is_polled_to_its_end_or_cancelled() {
    let remote = remote_graph().await;

    // Polled to its end: the task's result is the node's output.
    let e = engine(&remote, 10_000);
    let got = engine_call(&e, "remote_slow", json!({ "seconds": 1 })).await;
    assert_eq!(got, Ok(json!("computed remotely in 1 s")));
    assert!(
        logged(&remote, "started a task for tool `slow_compute`").await,
        "the remote server ran no task: {}",
        remote.stderr()
    );

    // Out of time: the call fails naming the limit, and the task is
    // cancelled downstream.
    let e = engine(&remote, 700);
    let started = Instant::now();
    let got = engine_call(&e, "remote_slow", json!({ "seconds": 30 })).await;
    let error = got.expect_err("a task longer than timeoutMs");
    assert!(
        error.contains("did not end its task within 700 ms") && error.contains("cancelled"),
        "{error}"
    );
    assert!(started.elapsed() < Duration::from_secs(5), "{error}");
    assert!(
        logged(&remote, "was cancelled").await,
        "the remote task was not cancelled: {}",
        remote.stderr()
    );
}

/// The calling graph compiled as a server, its `remote` the conformance
/// fixture over HTTP.
fn calling_graph(remote: &HttpServer, tag: &str) -> Vec<String> {
    let file = std::env::temp_dir().join(format!(
        "mcpgraph-downstream-tasks-{tag}-{}.json",
        std::process::id()
    ));
    let servers = json!({ "mcpServers": { "remote": { "type": "http", "url": remote.url() } } });
    std::fs::write(&file, servers.to_string()).expect("write --mcp file");
    vec!["--mcp".to_owned(), file.to_string_lossy().into_owned()]
}

/// A client answers `decline` to the question the downstream task asks:
/// the question reaches it as the task wrote it, the answer reaches the
/// task (which takes its decline route), and the task's result is the
/// call's.
async fn a_question_inside_a_downstream_task_is_answered(modern: bool) {
    let remote = remote_graph().await;
    let fixture = std::path::Path::new(env!("CARGO_BIN_EXE_downstream_tasks_fixture"));
    let tag = if modern { "modern" } else { "session" };
    let (target, _server) = program_target(fixture, &calling_graph(&remote, tag), false).await;
    let calls = json!([{ "name": "remote_asks", "arguments": { "message": "Who are you?" } }]);
    let mut options = vec!["--elicit", "decline"];
    if modern {
        options.push("--modern");
    }
    let run = run_sdk_client_with(Sdk::Python, &target, &calls, &options).await;
    assert_eq!(run.code, Some(0), "{run:?}");
    let asked = run.asked();
    assert_eq!(asked.len(), 1, "{run:?}");
    assert_eq!(asked[0]["params"]["message"], "Who are you?", "{run:?}");
    let (text, is_error) = call_text(run.calls()[0]);
    assert!(!is_error, "{text}");
    let result: serde_json::Value = serde_json::from_str(&text).expect("a JSON result");
    assert_eq!(result, json!({ "action": "decline" }), "{run:?}");
    assert!(
        logged(&remote, "started a task for tool `test_elicitation`").await,
        "the remote server ran no task: {}",
        remote.stderr()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_question_inside_a_downstream_task_reaches_a_live_client() {
    a_question_inside_a_downstream_task_is_answered(false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_question_inside_a_downstream_task_becomes_the_rounds_input_required() {
    a_question_inside_a_downstream_task_is_answered(true).await;
}
