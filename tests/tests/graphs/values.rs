//! Value budgets (`maxValueDepth`, `maxValueBytes`, `maxHistoryBytes`): an
//! output nested 200,000 deep, one too large, or a history that grows past
//! its budget fails that call with an error naming the node and the limit,
//! and the server keeps serving. Without the depth check, converting the
//! deep value to JSON would overflow the worker's stack and abort the
//! process. `$pad` and `$join` are checked before they allocate, since
//! their results may never be a node's output.

use mcpgraph::Engine;
use serde_json::json;

mod values {
    mcpgraph::mcpgraph!("graphs/values.yaml");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn values_over_budget_fail_the_call_only() {
    let engine = Engine::start::<values::Server>(Vec::new(), 1).expect("engine starts");
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

/// A result's text is what mcpGraph (jsonata-js 2.2.2) sends: numbers as
/// `JSON.stringify` spells them, keys in JavaScript's order, regexes with
/// JavaScript's meaning. From bench/:
/// node -e 'require("jsonata")(String.raw`<the expr of tool "spelling">`).evaluate({entry:{z:{"b":1e-7,"1":[1e21]}}}).then(r => console.log(JSON.stringify(r)))'
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn result_text_is_what_jsonata_js_gives() {
    let engine = Engine::start::<values::Server>(Vec::new(), 1).expect("engine starts");
    let args: serde_json::Value =
        serde_json::from_str(r#"{"z": {"b": 1e-7, "1": [1e21]}}"#).unwrap();
    let value = mcpgraph_tests::engine_call(&engine, "spelling", args)
        .await
        .unwrap();
    let result = mcpgraph_runtime::testing::success_result(value);
    let text = &result.content[0].as_text().unwrap().text;
    assert_eq!(
        text,
        r#"{"2":2,"10":1,"small":0.000001,"big":10000000000000000,"z":{"1":[1e+21],"b":1e-7},"digits":"4","nine":"0.3"}"#
    );
    let structured = result.structured_content.unwrap();
    assert_eq!(structured.as_object().unwrap().keys().next().unwrap(), "2");
    engine.shutdown().await;
}

/// jsonata-js never finishes this call (its regex engine backtracks
/// exponentially on `(a+)+$`); here the engine is linear in the input,
/// so the call returns at once instead of holding a worker.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_catastrophic_regex_costs_its_call_nothing() {
    let engine = Engine::start::<values::Server>(Vec::new(), 1).expect("engine starts");
    let started = std::time::Instant::now();
    let count = mcpgraph_tests::engine_call(&engine, "redos", json!({})).await;
    assert_eq!(count, Ok(json!(0)));
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    engine.shutdown().await;
}
