//! Value budgets (`maxValueDepth`, `maxValueBytes`, `maxHistoryBytes`): an
//! output nested 200,000 deep, one too large, or a history that grows past
//! its budget fails that call with an error naming the node and the limit,
//! and the server keeps serving. Without the depth check, converting the
//! deep value to JSON would overflow the worker's stack and abort the
//! process. `$pad` and `$join` are checked before they allocate, since
//! their results may never be a node's output.

use mcpgraph::runtime::Engine;
use serde_json::json;

mod values {
    mcpgraph::mcpgraph!("graphs/values.yaml");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn values_over_budget_fail_the_call_only() {
    let engine = Engine::<values::Server>::start(Vec::new(), 1).expect("engine starts");
    for (tool, want) in [
        (
            "deep",
            "node `nest`: Value limit exceeded: the output nests arrays and objects deeper than maxValueDepth (128)",
        ),
        (
            "big",
            "node `text`: Value limit exceeded: the output is larger than maxValueBytes (1000000 bytes)",
        ),
        // Without the guard these two allocate 8 and 10 GB inside one
        // built-in call, before any output is measured.
        (
            "pad",
            "node `pad`: Value limit exceeded: `$pad` to 4000000000 characters would be larger than maxValueBytes (1000000 bytes)",
        ),
        (
            "join",
            "node `join`: Value limit exceeded: `$join` would give 10000388895 bytes, more than maxValueBytes (1000000 bytes)",
        ),
        (
            "deep_var",
            "node `route`: Value limit exceeded: a `var` value nests arrays and objects deeper than maxValueDepth (128)",
        ),
        (
            "hoard",
            "node `chunk`: Value limit exceeded: the outputs of this call take more than maxHistoryBytes (2000000 bytes)",
        ),
    ] {
        let started = std::time::Instant::now();
        let err = mcpgraph_tests::engine_call(&engine, tool, json!({}))
            .await
            .unwrap_err();
        eprintln!("{tool}: {:?}: {err}", started.elapsed());
        assert_eq!(err, want);
        let ok = mcpgraph_tests::engine_call(&engine, "ok", json!({"after": tool})).await;
        assert_eq!(ok, Ok(json!({"after": tool})));
    }
    // Found by the `expr` fuzz target: the range's size overflows inside
    // jsonata-core (a panic where overflow checks are on, as in this debug
    // build). The call fails naming its node; the worker goes on.
    let err = mcpgraph_tests::engine_call(&engine, "range", json!({"n": 1e30}))
        .await
        .unwrap_err();
    assert!(err.starts_with("node `count`: "), "{err}");
    let ok = mcpgraph_tests::engine_call(&engine, "range", json!({"n": 9})).await;
    assert_eq!(ok, Ok(json!(10)));
    engine.shutdown().await;
}
