//! Bearer auth on the HTTP front door (`--auth-token-env`): requests
//! without the token are refused, both SDK clients get in with it, an unset
//! variable refuses to start; `/health` needs no token.
//!
//! The SDK clients are `tests/clients/{python_client.py,ts_client.mjs}`;
//! install their SDKs with `scripts/install-peers.sh`.

use mcpgraph_tests::*;
use serde_json::json;

const TOKEN_VAR: &str = "MCPGRAPH_TEST_AUTH_TOKEN";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bearer_auth() {
    let token = format!("tok-{}-secret", std::process::id());
    let server = HttpServer::start(
        "loop_example",
        &["--auth-token-env", TOKEN_VAR],
        &[(TOKEN_VAR, &token)],
    )
    .await;
    let good = format!("Bearer {token}");
    let body = initialize_body();

    // Raw requests: missing, wrong, wrong scheme → 401; right → 200.
    for (label, auth) in [
        ("no Authorization", None),
        ("wrong token", Some("Bearer not-the-token")),
        ("token prefix", Some(&good[..good.len() - 1])),
        ("wrong scheme", Some(&format!("Basic {token}")[..])),
    ] {
        let extra: Vec<(&str, &str)> = auth.map(|a| ("Authorization", a)).into_iter().collect();
        let r = http_request(
            server.addr,
            "POST",
            "/mcp",
            &mcp_post_headers(&extra),
            Some(&body),
        )
        .await;
        assert_eq!(r.status, 401, "{label}: {r:?}");
        assert!(
            r.header("mcp-session-id").is_none(),
            "{label}: no session without auth: {r:?}"
        );
        assert!(
            !r.body.contains("loopExample"),
            "{label}: 401 must not carry the initialize result: {r:?}"
        );
    }
    let r = http_request(
        server.addr,
        "POST",
        "/mcp",
        &mcp_post_headers(&[("Authorization", &good)]),
        Some(&body),
    )
    .await;
    assert_eq!(r.status, 200, "right token: {r:?}");
    let msgs = r.messages();
    assert_eq!(
        msgs.iter()
            .find(|m| m["id"] == 1)
            .map(|m| &m["result"]["serverInfo"]["name"]),
        Some(&json!("loopExample")),
        "{r:?}"
    );
    // The token is not visible in the process's command line.
    let cmdline = std::fs::read(format!("/proc/{}/cmdline", server.pid())).unwrap_or_default();
    assert!(
        !String::from_utf8_lossy(&cmdline).contains(&token),
        "token leaked into the command line"
    );

    // SDK clients: without the token they fail; with it they work.
    let calls = json!([{ "name": "sum_to_n", "arguments": { "n": 10 } }]);
    for sdk in [Sdk::Python, Sdk::TypeScript] {
        let anon = Target::Http {
            url: server.url(),
            headers: vec![],
        };
        let run = run_sdk_client(sdk, &anon, &calls).await;
        assert_eq!(
            run.code,
            Some(1),
            "{sdk:?} without token must fail: {run:#?}"
        );
        assert!(run.calls().is_empty(), "{sdk:?} without token: {run:#?}");
        assert!(
            run.lines.iter().any(|l| l["event"] == "fatal"),
            "{sdk:?} without token: {run:#?}"
        );

        let authed = Target::Http {
            url: server.url(),
            headers: vec![format!("Authorization: {good}")],
        };
        let run = run_sdk_client(sdk, &authed, &calls).await;
        assert_eq!(run.code, Some(0), "{sdk:?} with token: {run:#?}");
        assert_eq!(
            run.calls()[0]["result"]["structuredContent"],
            json!({ "sum": 55 }),
            "{sdk:?} with token: {run:#?}"
        );
    }
    server.stop().await;
}

/// `--auth-token-env` naming an unset variable must not start an open server.
#[tokio::test]
async fn auth_token_env_unset_refuses_to_start() {
    let var = "MCPGRAPH_TEST_SURELY_UNSET_TOKEN_VAR";
    let mut cmd = command("loop_example");
    cmd.args(["serve", "--http", "127.0.0.1:0", "--auth-token-env", var])
        .env_remove(var)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let out = tokio::time::timeout(std::time::Duration::from_secs(15), cmd.output())
        .await
        .expect("with the token variable unset the server must exit, not serve")
        .expect("run loop_example");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{out:?}");
    assert!(stderr.contains(var), "error should name {var}: {stderr}");
    assert!(
        !stderr.contains("serving MCP on"),
        "must not serve without its token: {stderr}"
    );
}

/// `/health` answers probes without a token and whatever their `Host`
/// (load balancers probe by IP), while `/mcp` still demands both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_probe_needs_no_token() {
    let server = HttpServer::start(
        "loop_example",
        &["--auth-token-env", "MCPGRAPH_TEST_TOKEN"],
        &[("MCPGRAPH_TEST_TOKEN", "s3cret")],
    )
    .await;
    let addr = server.addr;
    let by_ip = [("Host", "10.1.2.3:8080")];
    for method in ["GET", "HEAD"] {
        let r = http_request(addr, method, "/health", &by_ip, None).await;
        assert_eq!(r.status, 200, "{method} /health: {r:?}");
    }
    let r = http_request(addr, "GET", "/health", &by_ip, None).await;
    assert_eq!(r.body, "ok\n");
    let r = http_request(addr, "POST", "/health", &by_ip, Some("{}")).await;
    assert_eq!(r.status, 405, "{r:?}");
    let r = post_init(addr, &[]).await;
    assert_eq!(r.status, 401, "/mcp without the token: {r:?}");
    server.stop().await;
}
