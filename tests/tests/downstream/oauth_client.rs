//! Downstream OAuth with the graph's own credentials (`auth: grant:
//! client_credentials`) against a real authorization server (oidc-provider,
//! tests/oidc/provider.mjs) and a server that takes its tokens only (a
//! compiled graph served with `--oauth-issuer`): tokens that expire every
//! few seconds are renewed without a failed call; a client secret, a
//! private-key JWT assertion and `client_secret_post` all get tokens; a
//! refused grant is a tool error naming the server, and no secret or token
//! reaches the logs.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use mcpgraph_tests::oidc::{Key, Protected, Provider, ProviderConfig};
use mcpgraph_tests::rmcp::model::CallToolResult;
use mcpgraph_tests::{TempDir, call_params, free_port, result_text, stdio_client};
use serde_json::json;

const SCOPE: &str = "mcp:tools";

/// A provider knowing `resource`, with tokens living `ttl` seconds.
async fn provider(resource: &str, ttl: u64, client_jwks: Option<PathBuf>) -> Provider {
    Provider::start(ProviderConfig {
        resources: vec![resource.to_owned()],
        ttl_secs: Some(ttl),
        scopes: vec![SCOPE.into()],
        client_jwks_file: client_jwks,
        ..ProviderConfig::default()
    })
    .await
}

/// The client graph (graphs/oauth_client.yaml) over stdio, calling
/// `protected` with client `id` and `secret` of `provider`, or with the
/// `--mcp` file `mcp` instead of its compiled-in entry.
pub(crate) fn client_command(
    provider: &Provider,
    url: &str,
    id: &str,
    secret: &str,
    mcp: Option<&std::path::Path>,
) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_oauth_client_fixture"));
    cmd.env("PROTECTED_URL", url)
        .env("PROTECTED_ISSUER", &provider.issuer)
        .env("PROTECTED_CLIENT_ID", id)
        .env("PROTECTED_CLIENT_SECRET", secret)
        .env(
            "XDG_DATA_HOME",
            std::env::temp_dir().join("mcpgraph-oauth-client-tests"),
        );
    if let Some(mcp) = mcp {
        cmd.arg("--mcp").arg(mcp);
    }
    cmd
}

fn echoed(result: &CallToolResult, text: &str) -> bool {
    result.is_error != Some(true) && result_text(result).contains(text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_expiring_every_three_seconds_fail_no_call_for_a_minute() {
    let port = free_port();
    let provider = provider(&format!("http://127.0.0.1:{port}/mcp"), 3, None).await;
    let protected = Protected::start(fixture(), &provider, port, SCOPE).await;
    let (client, stderr) = stdio_client(client_command(
        &provider,
        &protected.url,
        "full",
        "full-secret",
        None,
    ))
    .await;
    let deadline = Instant::now() + Duration::from_secs(60);
    let (mut calls, mut failed) = (0, Vec::new());
    while Instant::now() < deadline {
        let text = format!("call {calls}");
        let result = client
            .call_tool(call_params("relay", json!({ "text": text })))
            .await
            .expect("the call is answered");
        if !echoed(&result, &text) {
            failed.push(result_text(&result));
        }
        calls += 1;
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let _ = client.cancel().await;
    assert!(
        failed.is_empty(),
        "{} of {calls} calls failed: {failed:?}",
        failed.len()
    );
    assert!(calls >= 100, "only {calls} calls in a minute");
    let log = String::from_utf8_lossy(&stderr.lock().unwrap()).into_owned();
    assert!(
        !log.contains("full-secret"),
        "the client secret is in the log:\n{log}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secret_post_and_private_key_jwt_clients_get_tokens_too() {
    let dir = TempDir::new("oauth-client-kinds");
    let key = Key::generate("ES256");
    let jwks = dir.path().join("client-jwks.json");
    key.write_public_jwks(&jwks);
    let pem = dir.path().join("client-key.pem");
    std::fs::write(&pem, &key.pem).unwrap();
    let port = free_port();
    let provider = provider(&format!("http://127.0.0.1:{port}/mcp"), 300, Some(jwks)).await;
    let protected = Protected::start(fixture(), &provider, port, SCOPE).await;

    // client_secret_post: the provider allows that method only for `post`.
    let (client, _) = stdio_client(client_command(
        &provider,
        &protected.url,
        "post",
        "post-secret",
        None,
    ))
    .await;
    let result = client
        .call_tool(call_params("relay", json!({ "text": "by post" })))
        .await
        .unwrap();
    assert!(echoed(&result, "by post"), "{}", result_text(&result));
    let _ = client.cancel().await;

    // private_key_jwt, from a `--mcp` entry (the key in a file).
    let mcp = dir.path().join("mcp.json");
    let entry = json!({"mcpServers": {"protected": {"type": "http", "url": protected.url,
        "auth": {"grant": "client_credentials", "issuer": provider.issuer, "clientId": "pkjwt",
                 "privateKeyFile": pem, "scopes": [SCOPE]}}}});
    std::fs::write(&mcp, entry.to_string()).unwrap();
    let (client, stderr) = stdio_client(client_command(
        &provider,
        &protected.url,
        "x",
        "x",
        Some(&mcp),
    ))
    .await;
    let result = client
        .call_tool(call_params("relay", json!({ "text": "by key" })))
        .await
        .unwrap();
    assert!(echoed(&result, "by key"), "{}", result_text(&result));
    let _ = client.cancel().await;
    let log = String::from_utf8_lossy(&stderr.lock().unwrap()).into_owned();
    assert!(
        !log.contains("PRIVATE KEY"),
        "the key is in the log:\n{log}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_grant_is_a_tool_error_naming_the_server() {
    let port = free_port();
    let provider = provider(&format!("http://127.0.0.1:{port}/mcp"), 300, None).await;
    let protected = Protected::start(fixture(), &provider, port, SCOPE).await;
    let (client, stderr) = stdio_client(client_command(
        &provider,
        &protected.url,
        "full",
        "wrong-secret",
        None,
    ))
    .await;
    let result = client
        .call_tool(call_params("relay", json!({ "text": "x" })))
        .await
        .expect("a tool error, not a protocol error");
    let text = result_text(&result);
    assert_eq!(result.is_error, Some(true), "{text}");
    assert!(text.contains("`protected`"), "names the server: {text}");
    assert!(text.contains("invalid_client"), "says why: {text}");
    assert!(!text.contains("wrong-secret"), "{text}");
    // The server keeps serving: the next call fails the same way, at once.
    let again = client
        .call_tool(call_params("relay", json!({ "text": "y" })))
        .await
        .expect("answered");
    assert_eq!(again.is_error, Some(true));
    let _ = client.cancel().await;
    let log = String::from_utf8_lossy(&stderr.lock().unwrap()).into_owned();
    assert!(!log.contains("wrong-secret"), "{log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcpgraph_lock_lists_a_protected_server() {
    let dir = TempDir::new("oauth-lock");
    let port = free_port();
    let provider = provider(&format!("http://127.0.0.1:{port}/mcp"), 300, None).await;
    let protected = Protected::start(fixture(), &provider, port, SCOPE).await;
    let graph = dir.path().join("graph.yaml");
    std::fs::copy(
        mcpgraph_tests::repo_root().join("tests/graphs/oauth_client.yaml"),
        &graph,
    )
    .unwrap();
    let out = tokio::process::Command::new(mcpgraph_tests::bin_path("mcpgraph"))
        .args(["lock", "graph.yaml"])
        .current_dir(dir.path())
        .env("PROTECTED_URL", &protected.url)
        .env("PROTECTED_ISSUER", &provider.issuer)
        .env("PROTECTED_CLIENT_ID", "full")
        .env("PROTECTED_CLIENT_SECRET", "full-secret")
        .output()
        .await
        .expect("run mcpgraph lock");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("full-secret"), "{stderr}");
    let lock: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("graph.lock.json")).unwrap())
            .unwrap();
    let tools = &lock["servers"]["protected"]["tools"];
    assert!(
        tools.get("echo").is_some() && tools.get("write").is_some(),
        "{lock}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_sse_server_gets_the_token_on_its_stream_and_every_message() {
    let dir = TempDir::new("oauth-sse");
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/sse");
    let provider = provider(&url, 300, None).await;
    let sse = mcpgraph_tests::sse_server::SseServer::start_protected(port, &provider.issuer).await;
    let mcp = dir.path().join("mcp.json");
    let entry = json!({"mcpServers": {"protected": {"type": "sse", "url": url,
        "auth": {"grant": "client_credentials", "issuer": provider.issuer,
                 "clientId": "${PROTECTED_CLIENT_ID}",
                 "clientSecret": "${PROTECTED_CLIENT_SECRET}", "scopes": [SCOPE]}}}});
    std::fs::write(&mcp, entry.to_string()).unwrap();
    let (client, _) = stdio_client(client_command(
        &provider,
        &url,
        "full",
        "full-secret",
        Some(&mcp),
    ))
    .await;
    for n in 0..3 {
        let text = format!("over sse {n}");
        let result = client
            .call_tool(call_params("relay", json!({ "text": text })))
            .await
            .unwrap();
        assert!(echoed(&result, &text), "{}", result_text(&result));
    }
    let _ = client.cancel().await;
    // The first GET went without a token (its 401 named the metadata);
    // everything after carried one.
    let refused = sse.refused.load(std::sync::atomic::Ordering::SeqCst);
    assert!(refused <= 1, "{refused} requests went without a token");
}

/// A graph served over HTTP with inbound OAuth, whose `protected` server
/// gets each caller's own identity (`grant: token_exchange`): the caller's
/// token, meant for the graph, is exchanged at the provider for one meant
/// for `protected` (which refuses the caller's token as it is: another
/// audience). The graph's own client credentials serve what no caller
/// asked (the handshake).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_callers_identity_is_passed_on_by_token_exchange() {
    use mcpgraph_tests::{HttpServer, post_mcp};
    let dir = TempDir::new("oauth-exchange");
    let (front_port, back_port) = (free_port(), free_port());
    let front = format!("http://127.0.0.1:{front_port}/mcp");
    let back = format!("http://127.0.0.1:{back_port}/mcp");
    let provider = Provider::start(ProviderConfig {
        resources: vec![front.clone(), back.clone()],
        scopes: vec![SCOPE.into()],
        ..ProviderConfig::default()
    })
    .await;
    let _protected = Protected::start(fixture(), &provider, back_port, SCOPE).await;
    let mcp = dir.path().join("mcp.json");
    let entry = json!({"mcpServers": {"protected": {"type": "http", "url": back,
        "auth": {"grant": "token_exchange", "issuer": provider.issuer, "clientId": "exchanger",
                 "clientSecret": "${EXCHANGER_SECRET}", "scopes": [SCOPE]}}}});
    std::fs::write(&mcp, entry.to_string()).unwrap();
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
    let graph = HttpServer::spawn("oauth_client_fixture", cmd, &flags).await;

    let call = |token: String| {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "relay", "arguments": {"text": "as the caller"}}})
        .to_string();
        async move {
            let bearer = format!("Bearer {token}");
            post_mcp(graph.addr, &[("Authorization", &bearer)], &body).await
        }
    };
    // Client `full` calls the graph: its token names sub `full`.
    let caller = provider.token("full", &front, SCOPE).await;
    let r = call(caller.clone()).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert!(r.body.contains("as the caller"), "{}", r.body);
    assert!(!r.body.contains("\"isError\":true"), "{}", r.body);
    let log = provider.stderr();
    assert!(
        log.contains(&format!("exchanged sub=full for resource={back}")),
        "{log}"
    );
    // The same caller again: the exchanged token is kept, not got anew.
    let r = call(caller).await;
    assert!(r.body.contains("as the caller"), "{}", r.body);
    let exchanges = provider.stderr().matches("exchanged sub=full").count();
    assert_eq!(exchanges, 1, "{}", provider.stderr());
    assert!(
        !graph.stderr().contains("exchanger-secret"),
        "{}",
        graph.stderr()
    );
}

/// The protected server's program (graphs/oauth.yaml compiled).
pub(crate) fn fixture() -> &'static std::path::Path {
    std::path::Path::new(env!("CARGO_BIN_EXE_oauth_fixture"))
}
