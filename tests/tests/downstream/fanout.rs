//! `parallel` and `forEach` nodes (issue 30) against real servers: the
//! purpose-built test server (timing, first-failure cancellation, a
//! `forEach` over 10,000 items held to the limits), server-filesystem
//! (a `forEach` over a directory's files) and server-everything (parallel
//! branches beside a call of the graph's own tool).

use std::time::{Duration, Instant};

use mcpgraph::{Engine, ServerSpec, TransportSpec};
use mcpgraph_tests::{
    Everything, TempDir, engine_call, filesystem_server_js, free_port, replace_server,
};
use serde_json::{Value, json};

mod graph {
    mcpgraph::mcpgraph!("graphs/fanout.yaml");
}

type Server = graph::Server;

fn test_server() -> Vec<ServerSpec> {
    mcpgraph_tests::test_server_spec(env!("CARGO_BIN_EXE_mcpgraph-test-server"), 10_000, &[])
}

fn engine(specs: Vec<ServerSpec>) -> Engine {
    Engine::start::<Server>(specs, 2).expect("engine starts")
}

async fn call(engine: &Engine, tool: &str, args: Value) -> Result<Value, String> {
    engine_call(engine, tool, args).await
}

#[tokio::test(flavor = "multi_thread")]
async fn parallel_branches_run_at_once_and_are_keyed_by_name() {
    let e = engine(test_server());
    // Starts the test server, so the timed call below measures the calls.
    call(&e, "sleeps", json!({"ms": 1})).await.unwrap();
    let ms = 500;
    let started = Instant::now();
    let out = call(&e, "sleeps", json!({"ms": ms})).await.unwrap();
    let took = started.elapsed();
    assert_eq!(
        out,
        json!({"a": {"slept": ms}, "b": {"slept": ms}, "c": {"slept": ms}})
    );
    let keys: Vec<&String> = out.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["a", "b", "c"], "branches in file order");
    // One after another they take 1500 ms.
    assert!(took < Duration::from_millis(1200), "{took:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_first_failure_fails_the_node_and_cancels_the_other_branches_downstream() {
    let e = engine(test_server());
    let started = Instant::now();
    let err = call(&e, "first_failure", json!({})).await.unwrap_err();
    eprintln!("{err}");
    assert!(
        err.contains("node `p`") && err.contains("this branch fails"),
        "{err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    // Both hanging branches were cancelled downstream.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let stats = call(&e, "stats", json!({})).await.unwrap();
        if stats["cancelled"] == json!(2) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "not cancelled downstream: {stats}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn for_each_keeps_item_order_with_item_and_index() {
    let e = engine(test_server());
    let out = call(&e, "many", json!({"n": 20})).await.unwrap();
    let want: Vec<Value> = (1..=20).map(|x| json!({"x": x, "i": x - 1})).collect();
    assert_eq!(out, Value::from(want));
    let out = call(&e, "many_local", json!({"n": 5})).await.unwrap();
    assert_eq!(
        out,
        json!([{"v": 2}, {"v": 4}, {"v": 6}, {"v": 8}, {"v": 10}])
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_for_each_over_10000_items_fails_cleanly_at_the_limits() {
    let e = engine(test_server());
    // maxNodeExecutions (1000): each item's call counts as one.
    let started = Instant::now();
    let err = call(&e, "many", json!({"n": 10_000})).await.unwrap_err();
    eprintln!("{err}");
    assert!(
        err.contains("node `each`") && err.contains("maximum node executions (1000)"),
        "{err}"
    );
    // The called tool's nodes count too: 3 per `double` call, plus the
    // caller's own.
    let err = call(&e, "many_local", json!({"n": 10_000}))
        .await
        .unwrap_err();
    assert!(err.contains("maximum node executions (1000)"), "{err}");
    let out = call(&e, "many_local", json!({"n": 240})).await.unwrap();
    assert_eq!(out.as_array().map(Vec::len), Some(240));
    let err = call(&e, "many_local", json!({"n": 260})).await.unwrap_err();
    assert!(err.contains("maximum node executions (1000)"), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    // The server keeps serving.
    assert_eq!(
        call(&e, "many", json!({"n": 2})).await,
        Ok(json!([{"x": 1, "i": 0}, {"x": 2, "i": 1}]))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_for_each_whose_outputs_outgrow_max_value_bytes_fails_cleanly() {
    let e = engine(test_server());
    // 150 outputs of 1000 bytes fit in maxValueBytes (200000); 10,000 do not.
    let out = call(&e, "bigs", json!({"n": 150})).await.unwrap();
    assert_eq!(out.as_array().map(Vec::len), Some(150));
    let err = call(&e, "bigs", json!({"n": 10_000})).await.unwrap_err();
    eprintln!("{err}");
    assert!(
        err.contains("node `each`") && err.contains("maxValueBytes (200000 bytes)"),
        "{err}"
    );
    assert_eq!(
        call(&e, "many", json!({"n": 1})).await,
        Ok(json!([{"x": 1, "i": 0}]))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn calls_of_the_graphs_own_tools_nest_at_most_max_call_depth() {
    let e = engine(test_server());
    let err = call(&e, "countdown", json!({"n": 10})).await.unwrap_err();
    eprintln!("{err}");
    assert!(
        err.contains("maxCallDepth (4)") && err.contains("node `again`"),
        "{err}"
    );
    assert_eq!(
        call(&e, "countdown", json!({"n": 3})).await,
        Ok(json!({"down": {"down": {"down": {"bottom": true}}}}))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn for_each_reads_every_file_of_a_directory_with_server_filesystem() {
    let dir = TempDir::new("fanout-fs");
    let root = dir.path().to_path_buf();
    for i in 0..6 {
        std::fs::write(root.join(format!("f{i}.txt")), format!("text {i}")).unwrap();
    }
    std::fs::create_dir(root.join("sub")).unwrap();
    let fs = replace_server(
        "fs",
        TransportSpec::Stdio {
            command: "node".into(),
            args: vec![
                filesystem_server_js().display().to_string(),
                root.display().to_string(),
            ],
            cwd: None,
            env: vec![],
            inherit_env: vec![],
        },
    );
    let e = engine(fs);
    let out = call(
        &e,
        "read_all",
        json!({"directory": root.display().to_string()}),
    )
    .await
    .unwrap();
    let mut texts: Vec<String> = out["texts"]
        .as_array()
        .unwrap_or_else(|| panic!("{out}"))
        .iter()
        .map(|t| t.as_str().unwrap().to_owned())
        .collect();
    texts.sort();
    let want: Vec<String> = (0..6).map(|i| format!("text {i}")).collect();
    assert_eq!(texts, want);
    e.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn parallel_branches_on_server_everything_beside_a_graph_tool() {
    let port = free_port();
    let server = Everything::start("streamableHttp", port).await;
    let e = engine(replace_server(
        "everything",
        TransportSpec::StreamableHttp {
            url: format!("http://127.0.0.1:{port}/mcp"),
            headers: vec![],
        },
    ));
    let out = call(&e, "everything", json!({})).await.unwrap();
    assert_eq!(
        out,
        json!({"echo": "Echo: hi", "sum": "The sum of 2 and 3 is 5.", "local": {"v": 42}})
    );
    e.shutdown().await;
    server.stop().await;
}
