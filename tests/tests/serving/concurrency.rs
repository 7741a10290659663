//! Concurrent calls over one connection are independent (FORMAT.md:
//! "Concurrent calls of the same or different tools are independent").

use mcpgraph_tests::*;
use serde_json::{Value, json};
use tokio::task::JoinSet;

fn sum_to(n: u64) -> u64 {
    n * (n + 1) / 2
}

/// Both results are numbers equal to `want` (compared as f64 so `55` and
/// `55.0` both pass).
fn assert_num(got: &Value, want: u64, what: &str) {
    assert_eq!(got.as_f64(), Some(want as f64), "{what}: got {got}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_concurrent_calls_of_one_tool() {
    let server = Server::start("loop_example").await;
    let (big, small) = tokio::join!(
        server.call("sum_to_n", json!({ "n": 100 })),
        server.call("sum_to_n", json!({ "n": 3 })),
    );
    assert_eq!(
        big.structured_content,
        Some(json!({ "sum": 5050 })),
        "n=100: {}",
        result_json(&big)
    );
    assert_eq!(
        small.structured_content,
        Some(json!({ "sum": 6 })),
        "n=3: {}",
        result_json(&small)
    );
    server.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_concurrent_loop_calls() {
    let server = Server::start("loop_example").await;
    let mut set = JoinSet::new();
    for i in 0..50u64 {
        // A mix of long and short loops, so calls overlap and finish out of order.
        let n = (i * 37) % 200 + 1;
        let peer = server.client().peer().clone();
        set.spawn(async move {
            let r = timed(
                "sum_to_n",
                peer.call_tool(call_params("sum_to_n", json!({ "n": n }))),
            )
            .await;
            (n, r)
        });
    }
    let mut done = 0;
    while let Some(joined) = timed("join", set.join_next()).await {
        let (n, r) = joined.expect("task panicked");
        let r = r.unwrap_or_else(|e| panic!("sum_to_n n={n}: {e}"));
        assert_ne!(
            r.is_error,
            Some(true),
            "sum_to_n n={n}: {}",
            result_json(&r)
        );
        let sc = r.structured_content.clone().unwrap_or(Value::Null);
        assert_num(&sc["sum"], sum_to(n), &format!("sum_to_n n={n}"));
        done += 1;
    }
    assert_eq!(done, 50);
    server.close().await;
}

/// 50 calls mixing routes and a failing argument: each gets its own answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_concurrent_mixed_switch_calls() {
    let server = Server::start("switch_example").await;
    let inputs: [(Value, Option<&str>); 5] = [
        (json!(15), Some("high")),
        (json!(10), Some("low")),
        (json!(0), Some("zero_or_negative")),
        (json!("11"), None), // fails inputSchema
        (json!(-5), Some("zero_or_negative")),
    ];
    let mut set = JoinSet::new();
    for i in 0..50usize {
        let (value, want) = inputs[i % inputs.len()].clone();
        let peer = server.client().peer().clone();
        set.spawn(async move {
            let r = timed(
                "test_switch",
                peer.call_tool(call_params(
                    "test_switch",
                    json!({ "value": value.clone() }),
                )),
            )
            .await;
            (value, want, r)
        });
    }
    let mut done = 0;
    while let Some(joined) = timed("join", set.join_next()).await {
        let (value, want, r) = joined.expect("task panicked");
        let r = r.unwrap_or_else(|e| panic!("test_switch {value}: {e}"));
        match want {
            Some(w) => assert_eq!(
                r.structured_content,
                Some(json!({ "result": w })),
                "test_switch {value}: {}",
                result_json(&r)
            ),
            None => {
                assert_eq!(
                    r.is_error,
                    Some(true),
                    "test_switch {value}: {}",
                    result_json(&r)
                );
                assert!(
                    result_text(&r).contains("/value"),
                    "test_switch {value}: {}",
                    result_json(&r)
                );
            }
        }
        done += 1;
    }
    assert_eq!(done, 50);
    server.close().await;
}

/// Different tools of one server at once, each going through the downstream
/// filesystem server.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_mixed_file_utils_calls() {
    let server = Server::start("file_utils").await;
    let dir = counting_dir().to_string_lossy().into_owned();
    let mut set = JoinSet::new();
    for i in 0..20usize {
        let peer = server.client().peer().clone();
        let dir = dir.clone();
        set.spawn(async move {
            let (tool, want) = if i % 2 == 0 {
                ("count_files", json!({ "count": 7 }))
            } else {
                ("sum_file_sizes", json!({ "totalSize": 1387 }))
            };
            let r = timed(
                tool,
                peer.call_tool(call_params(tool, json!({ "directory": dir }))),
            )
            .await;
            (tool, want, r)
        });
    }
    while let Some(joined) = timed("join", set.join_next()).await {
        let (tool, want, r) = joined.expect("task panicked");
        let r = r.unwrap_or_else(|e| panic!("{tool}: {e}"));
        assert_eq!(
            r.structured_content,
            Some(want),
            "{tool}: {}",
            result_json(&r)
        );
    }
    server.close().await;
}
