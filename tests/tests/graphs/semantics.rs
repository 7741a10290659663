//! Node semantics of FORMAT.md, run through the runtime's engine (the same
//! path an MCP call takes after argument parsing), with the purpose-built
//! test server as the downstream peer.

use mcpgraph::{CallError, CancellationToken, Engine, Graph};
use mcpgraph::{ServerSpec, TransportSpec};
use serde_json::{Value, json};

mod semantics {
    // `args_walk` passes `"$.literal"` as a literal on purpose.
    mcpgraph::mcpgraph!(
        "graphs/semantics.yaml",
        allow(literal_looks_like_expression)
    );
}

mod limits {
    mcpgraph::mcpgraph!("graphs/limits.yaml");
}

fn test_server() -> Vec<ServerSpec> {
    mcpgraph_tests::test_server_spec(env!("CARGO_BIN_EXE_mcpgraph-test-server"), 5000, &[])
}

async fn engine<G: Graph>() -> Engine {
    Engine::start::<G>(test_server(), 2).expect("engine starts")
}

async fn call(engine: &Engine, tool: &str, args: Value) -> Result<Value, String> {
    let args = args.as_object().cloned();
    engine
        .call(tool, args, CancellationToken::new())
        .await
        .map_err(|e| e.to_string())
}

#[tokio::test(flavor = "multi_thread")]
async fn expression_yielding_nothing_leaves_no_output() {
    let e = engine::<semantics::Server>().await;
    assert_eq!(
        call(&e, "nothing", json!({})).await.unwrap(),
        json!({"seen": false, "prev": null, "count": 1})
    );
    assert_eq!(
        call(&e, "exit_after_nothing", json!({})).await.unwrap(),
        json!({})
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn exit_returns_falsy_values_as_they_are() {
    let e = engine::<semantics::Server>().await;
    for v in [json!(false), json!(0), json!(""), json!([1]), json!("s")] {
        assert_eq!(call(&e, "exit_value", json!({"v": v})).await.unwrap(), v);
    }
    assert_eq!(
        call(&e, "exit_value", json!({"v": null})).await.unwrap(),
        json!({})
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_args_are_walked_as_format_md_says() {
    let e = engine::<semantics::Server>().await;
    let out = call(&e, "args_walk", json!({"x": 5})).await.unwrap();
    assert_eq!(
        out,
        json!({
            "a": 5,
            "c": [null, 1, "$.literal"],
            "d": "$not.an.expr",
            "e": {"nested": 10},
            "f": {"x": 5}
        })
    );
    let err = call(&e, "args_not_object", json!({})).await.unwrap_err();
    assert!(
        err.contains("node `m`") && err.contains("not an object"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn downstream_results_are_converted() {
    let e = engine::<semantics::Server>().await;
    let cases = [
        ("structured", json!({"out": {"s": true}, "exists": true})),
        ("json_text", json!({"out": {"k": [1, 2]}, "exists": true})),
        ("text", json!({"out": "not { json", "exists": true})),
        (
            "image",
            json!({"out": {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}, "exists": true}),
        ),
    ];
    for (tool, expected) in cases {
        assert_eq!(
            call(&e, "convert", json!({"tool": tool})).await.unwrap(),
            expected,
            "{tool}"
        );
    }
    // No content: no output, so history holds null for it.
    assert_eq!(
        call(&e, "convert", json!({"tool": "empty"})).await.unwrap(),
        json!({"out": null, "exists": true})
    );
    let err = call(&e, "convert", json!({"tool": "fail"}))
        .await
        .unwrap_err();
    assert!(
        err.contains("node `fail`") && err.contains("boom from downstream"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn previous_node_right_after_a_switch_is_the_chosen_id() {
    let e = engine::<semantics::Server>().await;
    assert_eq!(
        call(&e, "after_switch", json!({"go": true})).await.unwrap(),
        json!({"prev": "yes", "prev2": {"go": true}, "sw": "yes"})
    );
    assert_eq!(
        call(&e, "after_switch", json!({"go": false}))
            .await
            .unwrap(),
        json!({"prev": "no", "far": null})
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn loops_read_earlier_runs() {
    let e = engine::<semantics::Server>().await;
    assert_eq!(
        call(&e, "history", json!({"n": 3})).await.unwrap(),
        json!({
            "runs": [0, 1, 2],
            "first": 0,
            "last": 2,
            "oob": null,
            "neg_oob": null,
            "count": 3,
            "switches": ["inc", "inc", "done"]
        })
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn switch_rules_follow_json_logic_and_javascript_truthiness() {
    let e = engine::<semantics::Server>().await;
    let cases = [
        (json!({"s": "5"}), "loose"),
        (json!({"arr": []}), "empty_array"),
        (json!({"obj": {"and": [false]}}), "object"),
        (json!({"items": [1, 2], "min": 1}), "all"),
        (json!({"items": [1, 2], "min": 0}), "default"),
        (json!({"a": 1}), "present"),
        (json!({"b": 1}), "default"),
    ];
    for (args, expected) in cases {
        assert_eq!(
            call(&e, "logic", args.clone()).await.unwrap(),
            json!(expected),
            "{args}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn errors_name_the_node_and_the_cause() {
    let e = engine::<semantics::Server>().await;
    let err = call(&e, "jsonata_error", json!({})).await.unwrap_err();
    assert!(
        err.contains("node `bad`") && err.contains("custom failure"),
        "{err}"
    );
    let err = call(&e, "typed_output", json!({"v": {"n": "x"}}))
        .await
        .unwrap_err();
    assert!(err.contains("outputSchema") && err.contains("/n"), "{err}");
    let err = call(&e, "typed_output", json!({"v": 3})).await.unwrap_err();
    assert!(err.contains("outputSchema"), "{err}");
    assert_eq!(
        call(&e, "typed_output", json!({"v": {"n": 1}}))
            .await
            .unwrap(),
        json!({"n": 1})
    );
    let unknown = e.call("no_such_tool", None, CancellationToken::new()).await;
    assert_eq!(unknown, Err(CallError::UnknownTool("no_such_tool".into())));
}

#[tokio::test(flavor = "multi_thread")]
async fn node_execution_limit_stops_a_runaway_loop() {
    let e = engine::<limits::Server>().await;
    let err = call(&e, "forever", json!({})).await.unwrap_err();
    assert!(
        err.contains("Execution limit exceeded: maximum node executions (20) reached"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn time_limit_cancels_a_downstream_call_in_flight() {
    let e = engine::<limits::Server>().await;
    let started = std::time::Instant::now();
    let err = call(&e, "slow", json!({})).await.unwrap_err();
    assert!(
        err.contains("node `wait`")
            && err.contains("Execution limit exceeded: maximum execution time (400 ms) reached"),
        "{err}"
    );
    // The downstream call sleeps 3 s; the limit must not wait for it.
    assert!(started.elapsed() < std::time::Duration::from_millis(2500));
}

#[tokio::test(flavor = "multi_thread")]
async fn expression_limits_bound_evaluation() {
    let e = engine::<limits::Server>().await;
    let err = call(&e, "deep", json!({})).await.unwrap_err();
    assert!(
        err.contains("node `recurse`") && err.contains("maxExpressionDepth"),
        "{err}"
    );
    let err = call(&e, "busy", json!({})).await.unwrap_err();
    assert!(
        err.contains("node `loop`") && err.contains("maxExpressionTimeMs"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_crashed_downstream_fails_the_call_and_the_next_call_reconnects() {
    let e = engine::<limits::Server>().await;
    let err = call(&e, "crash", json!({})).await.unwrap_err();
    assert!(
        err.contains("node `boom`") && err.contains("`test`"),
        "{err}"
    );
    let err = call(&e, "crash", json!({})).await.unwrap_err();
    assert!(
        err.contains("node `boom`"),
        "second call must reconnect and fail the same way: {err}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_downstream_command_is_a_clear_error() {
    let specs = vec![ServerSpec {
        name: "test".into(),
        transport: TransportSpec::Stdio {
            command: "/nonexistent/mcp-server".into(),
            args: vec![],
            cwd: None,
            env: vec![],
            inherit_env: vec![],
        },
        timeout_ms: None,
        ping_timeout_ms: None,
        auth: None,
    }];
    let e = Engine::start::<semantics::Server>(specs, 1).unwrap();
    let err = call(&e, "args_walk", json!({"x": 1})).await.unwrap_err();
    assert!(
        err.contains("node `m`") && err.contains("/nonexistent/mcp-server"),
        "{err}"
    );
}
