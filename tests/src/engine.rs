//! A compiled graph driven in-process: calls through an `Engine`, and the
//! server lists that replace a graph's servers (by the purpose-built test
//! server, say).

use std::time::Duration;

use mcpgraph::{ServerSpec, TransportSpec};
use serde_json::Value;

/// One call through an engine, its result as JSON or its error as text;
/// a call that takes longer than 10 s fails the test instead of hanging it.
pub async fn engine_call(
    engine: &mcpgraph::Engine,
    tool: &str,
    args: Value,
) -> Result<Value, String> {
    const LIMIT: Duration = Duration::from_secs(10);
    let args = args.as_object().cloned();
    let call = engine.call(tool, args, mcpgraph::CancellationToken::new());
    match tokio::time::timeout(LIMIT, call).await {
        Ok(result) => result.map_err(|e| e.to_string()),
        Err(_) => panic!("`{tool}` did not return within {LIMIT:?}"),
    }
}

/// The server list that replaces the graph's `name` server by `transport`
/// (per-call `timeoutMs` 5000).
pub fn replace_server(name: &str, transport: TransportSpec) -> Vec<ServerSpec> {
    vec![ServerSpec {
        name: name.into(),
        transport,
        timeout_ms: Some(5000),
        ping_timeout_ms: None,
        auth: None,
    }]
}

/// `mcpServers.test` pointing at the test server binary `command` (pass
/// `env!("CARGO_BIN_EXE_mcpgraph-test-server")`, which only integration
/// tests can name) with `args` and a per-call `timeout_ms`.
pub fn test_server_spec(command: &str, timeout_ms: u64, args: &[&str]) -> Vec<ServerSpec> {
    let transport = TransportSpec::Stdio {
        command: command.into(),
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        cwd: None,
        env: vec![],
        inherit_env: vec![],
    };
    let mut servers = replace_server("test", transport);
    servers[0].timeout_ms = Some(timeout_ms);
    servers
}

/// The graph's `test` server replaced by the purpose-built test server over
/// streamable HTTP on `127.0.0.1:port/mcp` (see [`crate::test_server_http`]),
/// with a per-call `timeout_ms`.
pub fn test_server_over_http(port: u16, timeout_ms: u64) -> Vec<ServerSpec> {
    let transport = TransportSpec::StreamableHttp {
        url: format!("http://127.0.0.1:{port}/mcp"),
        headers: vec![],
    };
    let mut servers = replace_server("test", transport);
    servers[0].timeout_ms = Some(timeout_ms);
    servers
}

/// A correct call to the graph's `echo` tool (the test graphs' `{x}` echo)
/// still works `after` some failure.
pub async fn assert_echoes(engine: &mcpgraph::Engine, after: &str) {
    assert_eq!(
        engine_call(engine, "echo", serde_json::json!({"x": after})).await,
        Ok(serde_json::json!({"x": after})),
        "a correct call after {after}"
    );
}

/// Waits (up to 5 s) until the test server `engine` calls (its `stats`
/// tool) has seen `want` calls cancelled, and asserts it did.
pub async fn assert_cancelled_downstream(engine: &mcpgraph::Engine, want: u64) {
    let mut cancelled = serde_json::json!(0);
    for _ in 0..50 {
        let stats = engine_call(engine, "stats", serde_json::json!({}))
            .await
            .expect("stats");
        cancelled = stats["cancelled"].clone();
        if cancelled == serde_json::json!(want) {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(
        cancelled,
        serde_json::json!(want),
        "calls cancelled downstream"
    );
}
