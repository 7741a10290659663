//! Every failure a call can end with has a kind (`ErrorKind`), named in
//! the error, serialised with it and counted by it: one tool of
//! `graphs/error_kinds.yaml` per kind, each called through the engine.

use std::time::Duration;

use mcpgraph::{CallError, CancellationToken, Downstream, Engine, ErrorKind, Limit, SchemaSide};
use serde_json::{Value, json};

mod graph {
    mcpgraph::mcpgraph!("graphs/error_kinds.yaml");
}

fn engine() -> Engine {
    let servers =
        mcpgraph_tests::test_server_spec(env!("CARGO_BIN_EXE_mcpgraph-test-server"), 500, &[]);
    Engine::start::<graph::Server>(servers, 2).expect("engine starts")
}

async fn fail(engine: &Engine, tool: &str, args: Value) -> CallError {
    let call = engine.call(tool, args.as_object().cloned(), CancellationToken::new());
    match tokio::time::timeout(Duration::from_secs(10), call).await {
        Ok(Ok(value)) => panic!("`{tool}` succeeded: {value}"),
        Ok(Err(e)) => e,
        Err(_) => panic!("`{tool}` did not return within 10 s"),
    }
}

/// `tool` fails with `kind` at node `node` (`None`: outside any node),
/// and the error serialises with its kind's name.
async fn expect(engine: &Engine, tool: &str, args: Value, kind: ErrorKind, node: Option<&str>) {
    let error = fail(engine, tool, args).await;
    assert_eq!(error.kind(), kind, "`{tool}`: {error}");
    let CallError::Failed(error) = error else {
        panic!("`{tool}`: not a node error: {error}");
    };
    assert_eq!(error.node(), node, "`{tool}`: {error}");
    let json = serde_json::to_value(&error).unwrap();
    assert_eq!(json["kind"], json!(kind.as_str()), "{json}");
    assert_eq!(json["message"], json!(error.message()), "{json}");
}

#[tokio::test(flavor = "multi_thread")]
async fn each_failure_has_its_kind() {
    let e = engine();
    let cases = [
        ("expression", json!({}), ErrorKind::Expression, Some("bad")),
        (
            "node_executions",
            json!({}),
            ErrorKind::Limit(Limit::NodeExecutions),
            Some("again"),
        ),
        (
            "expression_depth",
            json!({}),
            ErrorKind::Limit(Limit::ExpressionDepth),
            Some("recurse"),
        ),
        (
            "expression_time",
            json!({}),
            ErrorKind::Limit(Limit::ExpressionTime),
            Some("loop"),
        ),
        (
            "value_bytes",
            json!({}),
            ErrorKind::Limit(Limit::ValueBytes),
            Some("big"),
        ),
        (
            "schema",
            json!({}),
            ErrorKind::Schema(SchemaSide::Input),
            None,
        ),
        (
            "schema",
            json!({"v": {"n": "one"}}),
            ErrorKind::Schema(SchemaSide::Output),
            None,
        ),
        (
            "tool_error",
            json!({}),
            ErrorKind::Downstream(Downstream::ToolError),
            Some("m"),
        ),
        (
            "hang",
            json!({}),
            ErrorKind::Downstream(Downstream::TimedOut),
            Some("m"),
        ),
        (
            "crash",
            json!({}),
            ErrorKind::Downstream(Downstream::Crashed),
            Some("m"),
        ),
        (
            "refused",
            json!({}),
            ErrorKind::Downstream(Downstream::Refused),
            Some("m"),
        ),
    ];
    for (tool, args, kind, node) in cases {
        expect(&e, tool, args, kind, node).await;
    }
    let unknown = fail(&e, "no_such_tool", json!({})).await;
    assert_eq!(unknown.kind(), ErrorKind::UnknownTool);
    // The messages are unchanged: the tests that pin them still read them.
    let err = fail(&e, "tool_error", json!({})).await.to_string();
    assert!(err.contains("returned an error: it broke"), "{err}");
    e.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_slow_downstream_call_hits_the_execution_time_limit() {
    // Its own engine: the downstream timeout (6 s) is above the graph's
    // maxExecutionTimeMs (3 s), so the graph's limit decides.
    let servers =
        mcpgraph_tests::test_server_spec(env!("CARGO_BIN_EXE_mcpgraph-test-server"), 6000, &[]);
    let e = Engine::start::<graph::Server>(servers, 1).expect("engine starts");
    expect(
        &e,
        "execution_time",
        json!({}),
        ErrorKind::Limit(Limit::ExecutionTime),
        Some("wait"),
    )
    .await;
    e.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cancelled_call_is_cancelled() {
    let e = engine();
    let cancel = CancellationToken::new();
    let call = e.call("hang", None, cancel.clone());
    let canceller = async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        cancel.cancel();
    };
    let (result, ()) = tokio::join!(call, canceller);
    let error = result.expect_err("a cancelled call fails");
    assert_eq!(error.kind(), ErrorKind::Cancelled, "{error}");
    e.shutdown().await;
}
