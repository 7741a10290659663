//! The history functions (`$previousNode`, `$executionCount`,
//! `$nodeExecution`, `$nodeExecutions`) in straight runs, inside loops and
//! right after switches, and the conversion of `mcp` results (FORMAT.md),
//! run through the runtime's engine with the purpose-built test server as
//! the downstream peer. semantics.rs has the first cases of each; these
//! are the tables.

use mcpgraph::{CancellationToken, Engine};
use serde_json::{Value, json};

mod history {
    // The tables read the history of nodes that have not run (yet): the
    // runtime's answers there are part of what is tested.
    mcpgraph::mcpgraph!("graphs/history.yaml", allow(reference_before_run));
}

type Server = history::Server;

fn engine() -> Engine {
    let specs =
        mcpgraph_tests::test_server_spec(env!("CARGO_BIN_EXE_mcpgraph-test-server"), 5000, &[]);
    Engine::start::<Server>(specs, 1).expect("engine starts")
}

async fn call(engine: &Engine, tool: &str, args: Value) -> Result<Value, String> {
    engine
        .call(tool, args.as_object().cloned(), CancellationToken::new())
        .await
        .map_err(|e| e.to_string())
}

#[tokio::test(flavor = "multi_thread")]
async fn history_after_a_straight_run() {
    let e = engine();
    let out = call(&e, "straight", json!({"x": 1})).await.unwrap();
    let expected = json!({
        // c yielded nothing: null in history; then b, a, entry; past the
        // start, 0, negative and fractional n: null.
        "previous": [null, null, "two", {"v": 1}, {"x": 1}, null, null, null, null],
        // The running node (d) is not counted; exit has not run.
        "count": [1, 1, 1, 0, 0],
        "nth_a": [{"v": 1}, {"v": 1}, null, null, null],
        "nth_c": null,
        "nth_d": null,
        // A single run is still an array; no run is an empty one.
        "all_a": [{"v": 1}],
        "all_c": [null],
        "all_d": [],
        "type_all_a": "array",
        "type_all_d": "array",
        "context_c": false
    });
    assert_eq!(out, expected);
}

#[tokio::test(flavor = "multi_thread")]
async fn history_inside_a_loop() {
    let e = engine();
    let table = [
        (
            1,
            json!({
                "echo": {"prev": "echo", "runs": 1, "last_i": 0, "switches": ["echo"]},
                "is": [0],
                "prevs": [{"n": 1}],
                // The first run has no earlier run: those keys yield
                // nothing and drop out of its object.
                "oobs": null,
                "neg_oobs": null,
                "alls": [],
                "switches_seen": [],
                "echo_prev_back": "echo"
            }),
        ),
        (
            3,
            json!({
                "echo": {"prev": "echo", "runs": 3, "last_i": 2, "switches": ["body", "body", "echo"]},
                "is": [0, 1, 2],
                // The first run follows the entry, the others the switch,
                // whose output is the id it chose.
                "prevs": [{"n": 3}, "body", "body"],
                // On a re-run, $.body is the node's own previous output.
                "owns": [0, 1],
                "firsts": [0, 0],
                "lasts": [0, 1],
                "second_lasts": 0,
                "oobs": [null, null, null],
                "neg_oobs": [null, null, null],
                "alls": [0, 0, 1],
                "switches_seen": ["body", "body", "body"],
                "echo_prev_back": "echo"
            }),
        ),
    ];
    for (n, expected) in table {
        let out = call(&e, "loop", json!({"n": n})).await.unwrap();
        assert_eq!(out, expected, "n = {n}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn history_right_after_switches() {
    let e = engine();
    assert_eq!(
        call(&e, "after_switches", json!({"go": true}))
            .await
            .unwrap(),
        json!({
            "prev": "call",
            "prev2": "second",
            "prev3": {"go": true},
            "first": "second",
            "second": "call"
        })
    );
    assert_eq!(
        call(&e, "after_switches", json!({"go": false}))
            .await
            .unwrap(),
        json!({"prev": "fallback", "first": "fallback", "second": 0})
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn json_text_results_of_every_type() {
    let e = engine();
    let table = [
        (json!({"a": {"b": [1]}}), "object"),
        (json!([1, "two"]), "array"),
        (json!(42), "number"),
        (json!(-0.5), "number"),
        (json!("hi"), "string"),
        (json!(""), "string"),
        (json!(true), "boolean"),
        (json!(false), "boolean"),
        (json!(null), "null"),
    ];
    for (value, kind) in table {
        let out = call(&e, "json_text", json!({"value": value}))
            .await
            .unwrap();
        assert_eq!(
            out,
            json!({"out": value, "type": kind, "exists": true}),
            "{value}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn plain_text_results_are_parsed_when_json() {
    let e = engine();
    let table = [
        ("hello", json!("hello")),
        ("", json!("")),
        ("42", json!(42)),
        (" 7 ", json!(7)),
        ("[1, 2]", json!([1, 2])),
        ("true", json!(true)),
        ("null", json!(null)),
        ("\"quoted\"", json!("quoted")),
        ("{\"k\": 1}", json!({"k": 1})),
        ("{bad json", json!("{bad json")),
        ("1 2", json!("1 2")),
        ("NaN", json!("NaN")),
    ];
    for (text, value) in table {
        let out = call(&e, "plain_text", json!({"text": text})).await.unwrap();
        assert_eq!(out["out"], value, "{text:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn exit_right_after_an_mcp_node() {
    let e = engine();
    let table = [
        (json!({"tool": "empty"}), json!({})),
        (json!({"tool": "json", "value": null}), json!({})),
        (json!({"tool": "json", "value": false}), json!(false)),
        (json!({"tool": "json", "value": 0}), json!(0)),
        (json!({"tool": "json", "value": [1]}), json!([1])),
        (
            json!({"tool": "image"}),
            json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}),
        ),
    ];
    for (args, expected) in table {
        assert_eq!(
            call(&e, "mcp_then_exit", args.clone()).await.unwrap(),
            expected,
            "{args}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_outputs_in_the_context() {
    let e = engine();
    assert_eq!(
        call(&e, "outputs_in_context", json!({})).await.unwrap(),
        json!({
            "mime": "image/png",
            "kind": "image",
            "none_in_context": false,
            "none_history": [null],
            "deep": 2,
            "keys": ["entry", "img", "st", "check"]
        })
    );
    let err = call(&e, "outputs_in_context", json!({"fail": true}))
        .await
        .unwrap_err();
    assert!(
        err.contains("node `bad`")
            && err.contains("`test`/`fail`")
            && err.contains("failed with 3"),
        "{err}"
    );
}
