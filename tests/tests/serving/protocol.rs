//! MCP / JSON-RPC behaviour over stdio: unknown tools, unknown methods,
//! shutdown on stdin EOF, and a clean stdout (JSON-RPC lines only).

use std::time::Duration;

use mcpgraph_tests::rmcp::service::ServiceError;
use mcpgraph_tests::*;
use serde_json::json;

/// How soon a server must exit once its stdin is closed.
const EXIT_LIMIT: Duration = Duration::from_secs(5);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_tool_is_invalid_params_over_mcp() {
    for name in ["loop_example", "file_utils"] {
        let server = Server::start(name).await;
        match server.try_call("no_such_tool", json!({})).await {
            Err(ServiceError::McpError(e)) => {
                assert_eq!(e.code.0, -32602, "{name}: unknown tool error code: {e:?}")
            }
            Err(other) => {
                panic!("{name}: unknown tool: expected JSON-RPC error -32602, got {other}")
            }
            Ok(r) => panic!(
                "{name}: unknown tool: expected JSON-RPC error -32602, got a result {}",
                result_json(&r)
            ),
        }
        // The connection is still usable afterwards.
        let tools = server.list_tools().await;
        assert!(!tools.is_empty(), "{name}: tools/list after the error");
        server.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_tool_is_invalid_params_raw() {
    let mut s = RawServer::spawn("switch_example", &[]);
    s.initialize().await;
    let resp = s
        .request(
            1,
            "tools/call",
            Some(json!({ "name": "no_such_tool", "arguments": {} })),
        )
        .await;
    assert_eq!(resp["error"]["code"], json!(-32602), "{resp}");
    s.close_and_wait(EXIT_LIMIT).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exits_promptly_when_stdin_closes() {
    for name in EXAMPLES {
        // Before any message.
        let s = RawServer::spawn(name, &[]);
        let (_, took) = s.close_and_wait(EXIT_LIMIT).await;
        eprintln!("{name}: exited {took:?} after EOF (no handshake)");

        // After the handshake.
        let mut s = RawServer::spawn(name, &[]);
        s.initialize().await;
        let (_, took) = s.close_and_wait(EXIT_LIMIT).await;
        eprintln!("{name}: exited {took:?} after EOF (initialized)");
    }
}

/// With the downstream filesystem server running (after a call), the server
/// still exits promptly on EOF and the downstream's output never reaches
/// our stdout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_utils_exits_promptly_with_downstream_running() {
    let mut s = RawServer::spawn("file_utils", &[]);
    s.initialize().await;
    let resp = s
        .request(
            1,
            "tools/call",
            Some(json!({ "name": "count_files", "arguments": { "directory": counting_dir() } })),
        )
        .await;
    assert_eq!(
        resp["result"]["structuredContent"],
        json!({ "count": 7 }),
        "{resp}"
    );
    s.close_and_wait(EXIT_LIMIT).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_discover_before_initialize_gets_a_response() {
    for name in ["loop_example", "test_minimal"] {
        let mut s = RawServer::spawn(name, &[]);
        s.send_line(r#"{"jsonrpc":"2.0","id":1,"method":"server/discover"}"#)
            .await;
        let resp = s.response(&json!(1)).await;
        assert!(
            resp.get("result").is_some() || resp.get("error").is_some(),
            "{name}: server/discover: {resp}"
        );
        // The legacy handshake still works afterwards.
        let init = s.initialize().await;
        assert!(
            init.get("serverInfo").is_some(),
            "{name}: initialize after discover: {init}"
        );
        let resp = s.request(2, "tools/list", None).await;
        assert!(
            resp["result"]["tools"].is_array(),
            "{name}: tools/list: {resp}"
        );
        s.close_and_wait(EXIT_LIMIT).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_method_after_initialize_gets_a_response() {
    let mut s = RawServer::spawn("loop_example", &[]);
    s.initialize().await;
    let resp = s.request(7, "made/up_method", Some(json!({}))).await;
    assert!(
        resp.get("result").is_some() || resp.get("error").is_some(),
        "made/up_method: {resp}"
    );
    // Still alive and answering.
    let resp = s.request(8, "ping", None).await;
    assert!(resp.get("result").is_some(), "ping: {resp}");
    let resp = s
        .request(
            9,
            "tools/call",
            Some(json!({ "name": "sum_to_n", "arguments": { "n": 4 } })),
        )
        .await;
    assert_eq!(
        resp["result"]["structuredContent"],
        json!({ "sum": 10 }),
        "{resp}"
    );
    s.close_and_wait(EXIT_LIMIT).await;
}

/// Everything a session writes on stdout is JSON-RPC (checked line by line by
/// RawServer), including a failing call and a full drain after EOF.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdout_carries_only_jsonrpc() {
    for name in EXAMPLES {
        let mut s = RawServer::spawn(name, &[]);
        s.initialize().await;
        let resp = s.request(1, "tools/list", None).await;
        assert!(resp["result"]["tools"].is_array(), "{name}: {resp}");
        let resp = s
            .request(
                2,
                "tools/call",
                Some(json!({ "name": "no_such_tool", "arguments": {} })),
            )
            .await;
        assert!(resp.get("error").is_some(), "{name}: {resp}");
        s.close_and_wait(EXIT_LIMIT).await;
    }
    let mut s = RawServer::spawn("switch_example", &[]);
    s.initialize().await;
    let resp = s
        .request(
            1,
            "tools/call",
            Some(json!({ "name": "test_switch", "arguments": { "value": "11" } })),
        )
        .await;
    assert_eq!(resp["result"]["isError"], json!(true), "{resp}");
    s.close_and_wait(EXIT_LIMIT).await;
}

/// `<bin> serve` is the same stdio server as `<bin>`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_subcommand_is_the_stdio_server() {
    let server = Server::start_with("loop_example", &["serve"]).await;
    let r = server.call("sum_to_n", json!({ "n": 10 })).await;
    assert_eq!(
        r.structured_content,
        Some(json!({ "sum": 55 })),
        "{}",
        result_json(&r)
    );
    server.close().await;
}
