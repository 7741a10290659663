//! `notifications/cancelled` sent by a real MCP client (rmcp's
//! `RequestHandle::cancel`), over stdio and over streamable HTTP, to the
//! `file_utils` example whose `filesystem` server is the purpose-built test
//! server: the call stuck in its downstream `list_directory` (`@hang`) is
//! stopped, the downstream server receives the cancellation for its own
//! call, and the next call is served through the same connection.

use std::time::{Duration, Instant};

use mcpgraph_tests::rmcp::model::{CallToolRequest, ClientRequest};
use mcpgraph_tests::rmcp::service::PeerRequestOptions;
use mcpgraph_tests::{
    Client, HttpServer, call_params, file_utils_over_stdio, test_server_override, timed,
};
use serde_json::json;

/// A `--mcp` file pointing `filesystem` at the test server, with a
/// `timeoutMs` far longer than the test, so only the cancel can end the call.
fn mcp_file(tag: &str) -> std::path::PathBuf {
    test_server_override(
        env!("CARGO_BIN_EXE_mcpgraph-test-server"),
        60000,
        &format!("cancel-{tag}"),
    )
}

/// Waits until `log()` contains `want` the `n`th time; fails after 10 s.
async fn wait_for(log: &dyn Fn() -> String, want: &str, n: usize) {
    let started = Instant::now();
    while log().matches(want).count() < n {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "no {n}x {want:?} on the server's stderr:\n{}",
            log()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Starts a call stuck downstream, cancels it once the test server has it,
/// and checks the cancellation travelled all the way down; then a correct
/// call through the same downstream connection.
async fn cancel_a_stuck_call(client: &Client, log: &dyn Fn() -> String) {
    let correct_call = || {
        timed(
            "count_files /data",
            client
                .peer()
                .call_tool(call_params("count_files", json!({"directory": "/data"}))),
        )
    };
    let expected = correct_call().await.expect("a tool result");
    assert_ne!(expected.is_error, Some(true), "{expected:?}");
    for round in 1..=2 {
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(call_params(
            "count_files",
            json!({"directory": "@hang"}),
        )));
        let handle = timed(
            "send count_files @hang",
            client
                .peer()
                .send_cancellable_request(request, PeerRequestOptions::no_options()),
        )
        .await
        .expect("request sent");
        wait_for(log, "test server: hang started", round).await;
        let started = Instant::now();
        timed("cancel", handle.cancel(Some("the test cancels".into())))
            .await
            .expect("notifications/cancelled sent");
        wait_for(log, "test server: hang cancelled", round).await;
        eprintln!(
            "round {round}: downstream call cancelled {:?} after the client's cancel",
            started.elapsed()
        );

        let ok = correct_call().await.expect("a tool result");
        assert_eq!(
            (ok.is_error, &ok.structured_content),
            (expected.is_error, &expected.structured_content),
            "a correct call after cancel {round}: {ok:?}"
        );
    }
    // One downstream process served all of it: the cancel did not kill it.
    assert!(
        !log().contains("exited") && !log().contains("restarting"),
        "the downstream server must not have been restarted:\n{}",
        log()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_cancel_over_stdio_stops_the_graph_and_its_downstream_call() {
    let (client, stderr_log) = file_utils_over_stdio(&mcp_file("stdio")).await;
    let log = move || String::from_utf8_lossy(&stderr_log.lock().unwrap()).into_owned();
    cancel_a_stuck_call(&client, &log).await;
    let _ = timed("close", client.cancel()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_cancel_over_http_stops_the_graph_and_its_downstream_call() {
    let file = mcp_file("http");
    let server = HttpServer::start_with_mcp("file_utils", &file, &[]).await;
    let client = server.rmcp_client(4).await;
    let log = || server.stderr();
    cancel_a_stuck_call(&client, &log).await;
    let _ = timed("close", client.cancel()).await;
    server.stop().await;
}
