//! The real example binary `file_utils`, served over stdio and driven by an
//! MCP client, with its `filesystem` server replaced (`--mcp`) by the
//! purpose-built test server: each downstream failure is a tool error for
//! that call, and the next correct call succeeds. (Oversized replies are
//! tested through the engine in `downstream.rs`: producing 16 MiB in a
//! debug build can take longer than this test's 1 s `timeoutMs`.)

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcpgraph_tests::{
    Client, call_params, file_utils_over_stdio, result_json, result_text, test_server_override,
    timed,
};
use serde_json::json;

/// `file_utils --mcp FILE` with `filesystem` = the test server (timeoutMs
/// 1000), initialized; plus what it writes on stderr.
async fn start() -> (Client, Arc<Mutex<Vec<u8>>>) {
    let file = test_server_override(
        env!("CARGO_BIN_EXE_mcpgraph-test-server"),
        1000,
        "downstream-example",
    );
    file_utils_over_stdio(&file).await
}

#[tokio::test(flavor = "multi_thread")]
async fn the_example_keeps_serving_after_each_downstream_failure() {
    let (client, log) = start().await;
    let count = |directory: &'static str| {
        let client = &client;
        async move {
            timed(
                &format!("count_files {directory}"),
                client
                    .peer()
                    .call_tool(call_params("count_files", json!({"directory": directory}))),
            )
            .await
            .expect("a tool result, not a protocol error")
        }
    };
    let ok = count("/data").await;
    assert_ne!(ok.is_error, Some(true), "{}", result_json(&ok));
    let expected = ok.structured_content.clone();
    assert!(expected.is_some(), "{}", result_json(&ok));

    let started = Instant::now();
    for (path, want) in [
        ("@crash", "exited (exit status: 3)"),
        ("@hang", "did not answer within 1000 ms"),
        ("@malformed", "malformed reply"),
        ("@garbage", "did not answer within 1000 ms"),
    ] {
        let failed = count(path).await;
        let text = result_text(&failed);
        assert_eq!(
            failed.is_error,
            Some(true),
            "{path}: {}",
            result_json(&failed)
        );
        assert!(
            text.contains(want) && text.contains("list_directory"),
            "{path}: want {want:?} in {text}"
        );
        let again = count("/data").await;
        assert_eq!(
            again.structured_content,
            expected,
            "a correct call after {path}: {}",
            result_json(&again)
        );
    }
    assert!(
        started.elapsed() < Duration::from_secs(9),
        "{:?}",
        started.elapsed()
    );
    // The crash was reported on our stderr with the server's own words.
    let log = String::from_utf8_lossy(&log.lock().unwrap()).into_owned();
    assert!(log.contains("crashing on request"), "{log}");
    let _ = timed("close", client.cancel()).await;
}
