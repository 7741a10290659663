//! The trust boundaries of downstream OAuth (issue 42, items 1 and 3),
//! against a real authorization server (oidc-provider) and purpose-built
//! hostile peers (`mcpgraph_tests::hostile_oauth`):
//!
//! - a server does not choose where tokens go: a `token_exchange` server
//!   whose metadata names a second authorization server, and a
//!   `client_credentials` server whose 401 challenge does, get a tool error
//!   naming the server and both issuers, and that second server receives
//!   nothing;
//! - a caller never silently becomes the graph: a `tools/call` with no
//!   caller's token to a `token_exchange` server is a tool error naming
//!   the server; calls of the graph's own tools from a `forEach` carry the
//!   caller's identity (exchanged as the caller) and are held to the called
//!   tool's `requiredScopes`.

use mcpgraph_tests::hostile_oauth::{Counter, HostileResource, Hostility};
use mcpgraph_tests::oidc::{Protected, Provider, ProviderConfig};
use mcpgraph_tests::{
    HttpResponse, HttpServer, TempDir, call_params, free_port, post_mcp, result_text, stdio_client,
};
use serde_json::json;

use super::oauth_client::{client_command, fixture};

const SCOPE: &str = "mcp:tools";

/// A provider knowing `resources`.
async fn provider(resources: &[&str]) -> Provider {
    Provider::start(ProviderConfig {
        resources: resources.iter().map(|r| (*r).to_owned()).collect(),
        scopes: vec![SCOPE.into()],
        ..ProviderConfig::default()
    })
    .await
}

/// The client graph (graphs/oauth_client.yaml) served over HTTP on
/// `front_port` with inbound OAuth from `provider`, its `protected` server
/// the `--mcp` entry `entry` (in `dir`).
async fn served_graph(
    dir: &TempDir,
    provider: &Provider,
    front_port: u16,
    entry: serde_json::Value,
) -> HttpServer {
    let mcp = dir.path().join("mcp.json");
    std::fs::write(
        &mcp,
        json!({"mcpServers": {"protected": entry}}).to_string(),
    )
    .unwrap();
    let front = format!("http://127.0.0.1:{front_port}/mcp");
    let flags = [
        "--stateless",
        "--oauth-issuer",
        &provider.issuer,
        "--oauth-resource",
        &front,
        "--oauth-scopes",
        SCOPE,
    ];
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_oauth_client_fixture"));
    cmd.arg("--mcp")
        .arg(&mcp)
        .args(["serve", "--http", &format!("127.0.0.1:{front_port}")])
        .args(flags)
        .env("EXCHANGER_SECRET", "exchanger-secret")
        .kill_on_drop(true);
    HttpServer::spawn("oauth_client_fixture", cmd, &flags).await
}

/// A `tools/call` of `tool` with `arguments`, as the caller of `token`.
async fn call_as(
    graph: &HttpServer,
    token: &str,
    tool: &str,
    arguments: serde_json::Value,
) -> HttpResponse {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}})
    .to_string();
    let bearer = format!("Bearer {token}");
    post_mcp(graph.addr, &[("Authorization", &bearer)], &body).await
}

/// The text of the tool result in `r` (a JSON or SSE reply), and whether
/// it is an error.
fn tool_result(r: &HttpResponse) -> (bool, String) {
    let json = r
        .body
        .lines()
        .find_map(|l| {
            let l = l.strip_prefix("data:").unwrap_or(l).trim();
            serde_json::from_str::<serde_json::Value>(l)
                .ok()
                .filter(|v| v.get("result").is_some() || v.get("error").is_some())
        })
        .unwrap_or_else(|| panic!("no JSON-RPC reply in {r:?}"));
    let result = &json["result"];
    let text = result["content"]
        .as_array()
        .map(|c| {
            c.iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_else(|| json.to_string());
    (result["isError"] == true, text)
}

/// Item 1: the caller's token, meant for this graph, would go wherever the
/// downstream's metadata said. The server's metadata names the provider
/// for the handshake (the graph's own credentials), then a second
/// authorization server run by the test: the exchange for the caller is
/// refused before any request reaches it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_exchange_server_naming_another_authorization_server_gets_nothing_sent_there() {
    let dir = TempDir::new("oauth-pin-exchange");
    let (front_port, back_port) = (free_port(), free_port());
    let front = format!("http://127.0.0.1:{front_port}/mcp");
    let back = format!("http://127.0.0.1:{back_port}/mcp");
    let provider = provider(&[&front, &back]).await;
    let other = Counter::start().await;
    let hostile = HostileResource::start(
        back_port,
        Hostility {
            honest: provider.issuer.clone(),
            other: other.url.clone(),
            honest_fetches: 1,
            challenge_calls: false,
        },
    )
    .await;
    let entry = json!({"type": "http", "url": back,
        "auth": {"grant": "token_exchange", "issuer": provider.issuer, "clientId": "exchanger",
                 "clientSecret": "${EXCHANGER_SECRET}", "scopes": [SCOPE]}});
    let graph = served_graph(&dir, &provider, front_port, entry).await;

    let caller = provider.token("full", &front, SCOPE).await;
    let r = call_as(&graph, &caller, "relay", json!({"text": "mine"})).await;
    assert_eq!(r.status, 200, "{r:?}");
    let (is_error, text) = tool_result(&r);
    assert_eq!(
        other.count(),
        0,
        "the second authorization server was reached; the call said: {text}"
    );
    assert!(is_error, "a tool error: {text}");
    assert!(text.contains("`protected`"), "names the server: {text}");
    assert!(
        text.contains(&provider.issuer) && text.contains(&other.url),
        "names both issuers: {text}"
    );
    assert_eq!(
        hostile.calls.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "no call went through"
    );
    assert!(
        !provider.stderr().contains("exchanged sub=full"),
        "{}",
        provider.stderr()
    );
    assert!(!graph.stderr().contains(&caller), "{}", graph.stderr());
}

/// Item 1: a 401 whose `resource_metadata` names another authorization
/// server is no new destination for the graph's own credentials.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_challenge_naming_another_authorization_server_is_an_error_naming_both() {
    let dir = TempDir::new("oauth-pin-challenge");
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let provider = provider(&[&url]).await;
    let other = Counter::start().await;
    let _hostile = HostileResource::start(
        port,
        Hostility {
            honest: provider.issuer.clone(),
            other: other.url.clone(),
            honest_fetches: u64::MAX,
            challenge_calls: true,
        },
    )
    .await;
    let mcp = dir.path().join("mcp.json");
    let entry = json!({"mcpServers": {"protected": {"type": "http", "url": url,
        "auth": {"grant": "client_credentials", "issuer": provider.issuer,
                 "clientId": "${PROTECTED_CLIENT_ID}",
                 "clientSecret": "${PROTECTED_CLIENT_SECRET}", "scopes": [SCOPE]}}}});
    std::fs::write(&mcp, entry.to_string()).unwrap();
    let (client, stderr) = stdio_client(client_command(
        &provider,
        &url,
        "full",
        "full-secret",
        Some(&mcp),
    ))
    .await;
    let result = client
        .call_tool(call_params("relay", json!({ "text": "x" })))
        .await
        .expect("a tool error, not a protocol error");
    let text = result_text(&result);
    let _ = client.cancel().await;
    assert_eq!(
        other.count(),
        0,
        "the second authorization server was reached; the call said: {text}"
    );
    assert_eq!(result.is_error, Some(true), "{text}");
    assert!(text.contains("`protected`"), "names the server: {text}");
    assert!(
        text.contains(&provider.issuer) && text.contains(&other.url),
        "names both issuers: {text}"
    );
    let log = String::from_utf8_lossy(&stderr.lock().unwrap()).into_owned();
    assert!(!log.contains("full-secret"), "{log}");
}

/// Item 3: with no caller's token (a call over stdio), a `token_exchange`
/// server is not called as the graph.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_exchange_without_a_callers_token_is_a_tool_error_naming_the_server() {
    let dir = TempDir::new("oauth-no-caller");
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let provider = provider(&[&url]).await;
    let _protected = Protected::start(fixture(), &provider, port, SCOPE).await;
    let mcp = dir.path().join("mcp.json");
    let entry = json!({"mcpServers": {"protected": {"type": "http", "url": url,
        "auth": {"grant": "token_exchange", "issuer": provider.issuer, "clientId": "exchanger",
                 "clientSecret": "${EXCHANGER_SECRET}", "scopes": [SCOPE]}}}});
    std::fs::write(&mcp, entry.to_string()).unwrap();
    let mut cmd = client_command(&provider, &url, "x", "x", Some(&mcp));
    cmd.env("EXCHANGER_SECRET", "exchanger-secret");
    let (client, _) = stdio_client(cmd).await;
    let result = client
        .call_tool(call_params("relay", json!({ "text": "as whom" })))
        .await
        .expect("a tool error, not a protocol error");
    let text = result_text(&result);
    let _ = client.cancel().await;
    assert_eq!(result.is_error, Some(true), "called as the graph: {text}");
    assert!(text.contains("`protected`"), "names the server: {text}");
    assert!(
        text.contains("no caller's access token"),
        "says why: {text}"
    );
}

/// Item 3: a `forEach` calling this graph's own `relay` passes the
/// caller's identity on, as a direct call of `relay` does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_of_the_graphs_own_tools_carry_the_callers_identity() {
    let dir = TempDir::new("oauth-nested-caller");
    let (front_port, back_port) = (free_port(), free_port());
    let front = format!("http://127.0.0.1:{front_port}/mcp");
    let back = format!("http://127.0.0.1:{back_port}/mcp");
    let provider = provider(&[&front, &back]).await;
    let _protected = Protected::start(fixture(), &provider, back_port, SCOPE).await;
    let entry = json!({"type": "http", "url": back,
        "auth": {"grant": "token_exchange", "issuer": provider.issuer, "clientId": "exchanger",
                 "clientSecret": "${EXCHANGER_SECRET}", "scopes": [SCOPE]}});
    let graph = served_graph(&dir, &provider, front_port, entry).await;
    let caller = provider.token("full", &front, SCOPE).await;
    let r = call_as(
        &graph,
        &caller,
        "relay_each",
        json!({"texts": ["first", "second"]}),
    )
    .await;
    assert_eq!(r.status, 200, "{r:?}");
    let (is_error, text) = tool_result(&r);
    assert!(!is_error, "{text}");
    assert!(text.contains("first") && text.contains("second"), "{text}");
    let log = provider.stderr();
    assert!(
        log.contains(&format!("exchanged sub=full for resource={back}")),
        "the nested calls did not go as the caller: {log}"
    );
}

/// Item 3: a `forEach` of a tool without `requiredScopes` calling one with
/// them (`write`, tools:write) is held to the called tool's scopes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_nested_call_of_a_tool_needs_its_required_scopes() {
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let provider = Provider::start(ProviderConfig {
        resources: vec![resource.clone()],
        scopes: vec![SCOPE.into(), "tools:write".into()],
        limited_scopes: vec![SCOPE.into()],
        ..ProviderConfig::default()
    })
    .await;
    let flags = [
        "--stateless",
        "--oauth-issuer",
        &provider.issuer,
        "--oauth-resource",
        &resource,
        "--oauth-scopes",
        SCOPE,
    ];
    let mut cmd = tokio::process::Command::new(fixture());
    cmd.args(["serve", "--http", &format!("127.0.0.1:{port}")])
        .args(flags)
        .kill_on_drop(true);
    let server = HttpServer::spawn("oauth_fixture", cmd, &flags).await;
    let texts = json!({"texts": ["a"]});

    let limited = provider.token("limited", &resource, SCOPE).await;
    let r = call_as(&server, &limited, "write_each", texts.clone()).await;
    assert_eq!(r.status, 200, "{r:?}");
    let (is_error, text) = tool_result(&r);
    assert!(is_error, "written without tools:write: {text}");
    assert!(
        text.contains("`write`") && text.contains("`tools:write`"),
        "names the tool and the scope: {text}"
    );

    let full = provider
        .token("full", &resource, &format!("{SCOPE} tools:write"))
        .await;
    let r = call_as(&server, &full, "write_each", texts).await;
    let (is_error, text) = tool_result(&r);
    assert!(!is_error, "{text}");
    assert!(text.contains("written"), "{text}");
}
