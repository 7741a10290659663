//! The example binaries driven by the official MCP SDK clients (Python `mcp`
//! and TypeScript `@modelcontextprotocol/sdk`, pinned in peers/) over
//! streamable HTTP and over stdio, plus the HTTP front door: bearer auth,
//! Host/Origin validation (DNS rebinding), session DELETE, unknown paths,
//! ping and progress on a session, the health probe, slow headers.
//!
//! The clients are `tests/clients/{python_client.py,ts_client.mjs}`; install
//! their SDKs with `scripts/install-peers.sh`.

use std::time::Duration;

use mcpgraph_tests::*;
use serde_json::{Value, json};
use tokio::task::JoinSet;

/// What one call must give.
#[derive(Debug, Clone)]
enum Want {
    /// A successful result with exactly this `structuredContent`.
    Structured(Value),
    /// `isError: true` with a text containing this.
    ToolError(&'static str),
    /// A JSON-RPC error with this code.
    RpcError(i64),
}

/// The calls to make against `bin`: every case of the shared expected.json
/// for it, plus a bad-argument call (isError) and, for loop_example, an
/// unknown tool (JSON-RPC -32602).
fn cases(bin: &str) -> Vec<(Value, Want)> {
    let folder = example_dir(bin)
        .canonicalize()
        .expect("example folder exists");
    let mut out = Vec::new();
    for case in expected()["cases"].as_array().expect("cases[]") {
        if bin_for_file(case["file"].as_str().expect("case.file")) != bin {
            continue;
        }
        let call = json!({
            "name": case["tool"],
            "arguments": substitute_this_folder(&case["arguments"], &folder),
        });
        let want = if case.get("isError") == Some(&json!(true)) {
            Want::ToolError("/value")
        } else {
            Want::Structured(case["structuredContent"].clone())
        };
        out.push((call, want));
    }
    match bin {
        "loop_example" => {
            out.push((
                json!({ "name": "sum_to_n", "arguments": { "n": "ten" } }),
                Want::ToolError("/n"),
            ));
            out.push((
                json!({ "name": "no_such_tool", "arguments": {} }),
                Want::RpcError(-32602),
            ));
        }
        "file_utils" => out.push((
            json!({ "name": "count_files", "arguments": {} }),
            Want::ToolError("directory"),
        )),
        _ => {}
    }
    assert!(!out.is_empty(), "no cases for {bin}");
    out
}

/// Checks the initialize line against the graph's `server:` block and the
/// tool list against its `tools:`.
fn check_handshake(bin: &str, run: &SdkRun, what: &str) {
    let graph = load_yaml(&example_yaml(bin));
    let server = &graph["server"];
    let init = run.initialize();
    let info = &init["serverInfo"];
    assert_eq!(info["name"], server["name"], "{what}: serverInfo {init}");
    assert_eq!(
        info["version"], server["version"],
        "{what}: serverInfo {init}"
    );
    if let Some(title) = server.get("title") {
        assert_eq!(&info["title"], title, "{what}: serverInfo {init}");
    }
    if let Some(instructions) = server.get("instructions") {
        assert_eq!(&init["instructions"], instructions, "{what}: {init}");
    }
    assert!(
        init["capabilities"]["tools"].is_object(),
        "{what}: tools capability missing: {init}"
    );
    let mut want: Vec<String> = graph["tools"]
        .as_array()
        .expect("tools[]")
        .iter()
        .map(|t| t["name"].as_str().expect("tool name").to_string())
        .collect();
    let mut got = run.tools();
    want.sort();
    got.sort();
    assert_eq!(got, want, "{what}: tools/list");
}

fn check_calls(cases: &[(Value, Want)], run: &SdkRun, what: &str) {
    let calls = run.calls();
    assert_eq!(
        calls.len(),
        cases.len(),
        "{what}: one call line per call expected: {run:#?}"
    );
    for ((call, want), got) in cases.iter().zip(calls) {
        let ctx = format!("{what}: {call} -> {got}");
        assert_eq!(got["name"], call["name"], "{ctx}");
        match want {
            Want::Structured(sc) => {
                let r = &got["result"];
                assert_ne!(r["isError"], json!(true), "{ctx}");
                assert_num_eq(&r["structuredContent"], sc, &ctx);
                // The text content is the same JSON (the backwards-compatible form).
                let text = r["content"][0]["text"].as_str().unwrap_or_default();
                let parsed: Value = serde_json::from_str(text)
                    .unwrap_or_else(|e| panic!("{ctx}: text content is not JSON ({e})"));
                assert_num_eq(&parsed, sc, &ctx);
            }
            Want::ToolError(needle) => {
                let r = &got["result"];
                assert_eq!(r["isError"], json!(true), "{ctx}");
                let text = r["content"][0]["text"].as_str().unwrap_or_default();
                assert!(text.contains(needle), "{ctx}: message should name {needle}");
            }
            Want::RpcError(code) => {
                assert_eq!(got["error"]["code"], json!(code), "{ctx}");
            }
        }
    }
}

/// JSON equality with numbers compared as f64 (`55` == `55.0`).
fn assert_num_eq(got: &Value, want: &Value, ctx: &str) {
    fn norm(v: &Value) -> Value {
        match v {
            Value::Number(n) => json!(n.as_f64()),
            Value::Array(a) => Value::Array(a.iter().map(norm).collect()),
            Value::Object(m) => {
                Value::Object(m.iter().map(|(k, v)| (k.clone(), norm(v))).collect())
            }
            v => v.clone(),
        }
    }
    assert_eq!(norm(got), norm(want), "{ctx}: want {want}");
}

/// Runs `sdk` against every example, all at once: over HTTP (each example
/// served on its own port, with `serve_extra`) or over stdio.
async fn every_example(sdk: Sdk, http: bool, serve_extra: &'static [&'static str]) {
    let mut set = JoinSet::new();
    for bin in EXAMPLES {
        set.spawn(async move {
            let cases = cases(bin);
            let calls = Value::Array(cases.iter().map(|(c, _)| c.clone()).collect());
            let server = if http {
                Some(HttpServer::start(bin, serve_extra, &[]).await)
            } else {
                None
            };
            let target = match &server {
                Some(s) => Target::Http {
                    url: s.url(),
                    headers: vec![],
                },
                None => Target::Stdio(bin.to_string()),
            };
            let run = run_sdk_client(sdk, &target, &calls).await;
            let what = format!("{sdk:?} SDK -> {bin} over {target:?}");
            let want_code = if cases.iter().any(|(_, w)| matches!(w, Want::RpcError(_))) {
                2
            } else {
                0
            };
            assert_eq!(run.code, Some(want_code), "{what}: exit status: {run:#?}");
            check_handshake(bin, &run, &what);
            check_calls(&cases, &run, &what);
            if let Some(s) = server {
                s.stop().await;
            }
        });
    }
    while let Some(joined) = timed("SDK client runs", set.join_next()).await {
        if let Err(e) = joined {
            std::panic::resume_unwind(e.into_panic());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_over_http() {
    every_example(Sdk::Python, true, &[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_over_stdio() {
    every_example(Sdk::Python, false, &[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_over_http() {
    every_example(Sdk::TypeScript, true, &[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_over_stdio() {
    every_example(Sdk::TypeScript, false, &[]).await;
}

/// Both SDKs against a `--stateless` server (no session id at all).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_sdks_over_stateless_http() {
    let server = HttpServer::start("loop_example", &["--stateless"], &[]).await;
    let cases = cases("loop_example");
    let calls = Value::Array(cases.iter().map(|(c, _)| c.clone()).collect());
    let target = Target::Http {
        url: server.url(),
        headers: vec![],
    };
    for sdk in [Sdk::Python, Sdk::TypeScript] {
        let run = run_sdk_client(sdk, &target, &calls).await;
        let what = format!("{sdk:?} SDK -> loop_example --stateless");
        assert_eq!(run.code, Some(2), "{what}: exit status: {run:#?}");
        check_handshake("loop_example", &run, &what);
        check_calls(&cases, &run, &what);
    }
    let init = http_request(
        server.addr,
        "POST",
        "/mcp",
        &mcp_post_headers(&[]),
        Some(&initialize_body()),
    )
    .await;
    assert_eq!(init.status, 200, "{init:?}");
    assert_eq!(
        init.header("mcp-session-id"),
        None,
        "a stateless server hands out no session: {init:?}"
    );
    server.stop().await;
}

// ---------------------------------------------------------------------------
// Bearer auth
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Host / Origin validation, sessions, paths
// ---------------------------------------------------------------------------

async fn post_init(addr: std::net::SocketAddr, extra: &[(&str, &str)]) -> HttpResponse {
    http_request(
        addr,
        "POST",
        "/mcp",
        &mcp_post_headers(extra),
        Some(&initialize_body()),
    )
    .await
}

/// `initialize` + `notifications/initialized` over raw HTTP; the session id.
async fn open_session(addr: std::net::SocketAddr) -> String {
    let init = post_init(addr, &[]).await;
    assert_accepted(&init, "initialize");
    let sid = init
        .header("mcp-session-id")
        .unwrap_or_else(|| panic!("stateful initialize gives a session id: {init:?}"))
        .to_string();
    let r = http_request(
        addr,
        "POST",
        "/mcp",
        &mcp_post_headers(&[("Mcp-Session-Id", sid.as_str())]),
        Some(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
    )
    .await;
    assert_eq!(r.status, 202, "notifications/initialized: {r:?}");
    sid
}

fn assert_accepted(r: &HttpResponse, what: &str) {
    assert_eq!(r.status, 200, "{what}: should be accepted: {r:?}");
    assert!(
        r.messages()
            .iter()
            .any(|m| m["id"] == 1 && m["result"].is_object()),
        "{what}: no initialize result: {r:?}"
    );
}

fn assert_rejected(r: &HttpResponse, what: &str) {
    assert!(
        matches!(r.status, 403 | 421 | 400),
        "{what}: should be rejected with 403/421/400, got {r:?}"
    );
    assert!(
        r.header("mcp-session-id").is_none() && !r.body.contains("serverInfo"),
        "{what}: a rejected request must not be served: {r:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn host_and_origin_validation() {
    let server = HttpServer::start(
        "loop_example",
        &[
            "--allowed-host",
            "mcp.example.com",
            "--allowed-origin",
            "https://app.example.com",
        ],
        &[],
    )
    .await;
    let port = server.addr.port();
    let addr = server.addr;

    // Hosts.
    let local = format!("localhost:{port}");
    let v4 = format!("127.0.0.1:{port}");
    let v6 = format!("[::1]:{port}");
    for host in [&local[..], &v4, &v6, "localhost", "mcp.example.com"] {
        assert_accepted(
            &post_init(addr, &[("Host", host)]).await,
            &format!("Host: {host}"),
        );
    }
    let evil_port = format!("evil.example.com:{port}");
    let suffix = format!("localhost.evil.example.com:{port}");
    let prefix = format!("127.0.0.1.evil.example.com:{port}");
    for host in [
        "evil.example.com",
        &evil_port[..],
        &suffix,
        &prefix,
        "sub.mcp.example.com",
        "example.com",
    ] {
        assert_rejected(
            &post_init(addr, &[("Host", host)]).await,
            &format!("Host: {host}"),
        );
    }

    // Origins (with the default, allowed Host).
    let local_origin = format!("http://localhost:{port}");
    let v4_origin = format!("http://127.0.0.1:{port}");
    for origin in [&local_origin[..], &v4_origin, "https://app.example.com"] {
        assert_accepted(
            &post_init(addr, &[("Origin", origin)]).await,
            &format!("Origin: {origin}"),
        );
    }
    for origin in [
        "http://evil.example.com",
        "https://evil.example.com",
        "http://localhost.evil.example.com",
        "http://127.0.0.1.evil.example.com",
        "http://app.example.com",
        "https://app.example.com.evil.example.com",
        "null",
    ] {
        assert_rejected(
            &post_init(addr, &[("Origin", origin)]).await,
            &format!("Origin: {origin}"),
        );
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_lifecycle_and_paths() {
    let server = HttpServer::start("loop_example", &[], &[]).await;
    let addr = server.addr;

    let sid = open_session(addr).await;
    let with_sid = [("Mcp-Session-Id", sid.as_str())];

    let call = json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": { "name": "sum_to_n", "arguments": { "n": 10 } }
    })
    .to_string();
    let r = http_request(
        addr,
        "POST",
        "/mcp",
        &mcp_post_headers(&with_sid),
        Some(&call),
    )
    .await;
    assert_eq!(r.status, 200, "{r:?}");
    let result = r
        .messages()
        .into_iter()
        .find(|m| m["id"] == 2)
        .unwrap_or_else(|| panic!("no response to id 2: {r:?}"));
    assert_eq!(
        result["result"]["structuredContent"],
        json!({ "sum": 55 }),
        "{r:?}"
    );

    // DELETE ends the session; the id is then unknown (404, per the spec).
    let r = http_request(addr, "DELETE", "/mcp", &with_sid, None).await;
    assert!(matches!(r.status, 200 | 204), "session DELETE: {r:?}");
    let r = http_request(
        addr,
        "POST",
        "/mcp",
        &mcp_post_headers(&with_sid),
        Some(&call),
    )
    .await;
    assert_eq!(r.status, 404, "POST on a deleted session: {r:?}");
    assert!(
        !r.body.contains("\"sum\""),
        "a deleted session must not run calls: {r:?}"
    );

    // Only /mcp is served.
    for (method, path) in [
        ("GET", "/"),
        ("GET", "/other"),
        ("POST", "/other"),
        ("POST", "/mcp/extra"),
        ("POST", "/mcpx"),
    ] {
        let body = (method == "POST").then(initialize_body);
        let r = http_request(addr, method, path, &mcp_post_headers(&[]), body.as_deref()).await;
        assert_eq!(r.status, 404, "{method} {path}: {r:?}");
    }

    // The server still serves new sessions afterwards.
    assert_accepted(&post_init(addr, &[]).await, "initialize after all that");
    server.stop().await;
}

/// Over a streamable HTTP session, `ping` is answered and a call with a
/// `progressToken` streams one `notifications/progress` per node on its
/// POST's SSE stream, ahead of the result. (In `--stateless` mode the
/// answer is one JSON body: there is no stream to carry progress.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ping_and_progress_over_an_http_session() {
    let server = HttpServer::start("loop_example", &[], &[]).await;
    let addr = server.addr;
    let sid = open_session(addr).await;
    let with_sid = [("Mcp-Session-Id", sid.as_str())];
    let post = |body: Value| {
        let headers = mcp_post_headers(&with_sid);
        async move { http_request(addr, "POST", "/mcp", &headers, Some(&body.to_string())).await }
    };

    let r = post(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"})).await;
    let pong = r.messages().into_iter().find(|m| m["id"] == 2);
    assert_eq!(
        pong.map(|m| m["result"].clone()),
        Some(json!({})),
        "ping: {r:?}"
    );

    let r = post(json!({
        "jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {
            "name": "sum_to_n",
            "arguments": { "n": 3 },
            "_meta": { "progressToken": 77 }
        }
    }))
    .await;
    assert_eq!(r.status, 200, "{r:?}");
    let messages = r.messages();
    let last = messages
        .last()
        .unwrap_or_else(|| panic!("no messages: {r:?}"));
    assert_eq!(last["id"], 3, "the result comes last: {messages:?}");
    assert_eq!(last["result"]["structuredContent"], json!({"sum": 6}));
    let progress: Vec<&Value> = messages
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .collect();
    // entry, 3 × (increment, check), exit_sum, exit_sum_final
    assert_eq!(progress.len(), 9, "{messages:?}");
    assert!(progress.iter().all(|p| p["params"]["progressToken"] == 77));
    assert_eq!(progress[0]["params"]["message"], "node `entry_sum`");
    assert_eq!(progress[8]["params"]["message"], "node `exit_sum_final`");
    server.stop().await;
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

/// A client that never finishes its request headers (slowloris) has its
/// connection closed after `--header-timeout-secs`; others are served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_headers_are_cut_off() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = HttpServer::start("loop_example", &["--header-timeout-secs", "1"], &[]).await;
    let mut slow = tokio::net::TcpStream::connect(server.addr)
        .await
        .expect("connect");
    slow.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl")
        .await
        .expect("write part of the headers");
    let started = std::time::Instant::now();
    let mut rest = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), slow.read_to_end(&mut rest)).await;
    let waited = started.elapsed();
    eprintln!(
        "closed after {waited:?}: {:?}",
        String::from_utf8_lossy(&rest)
    );
    assert!(read.is_ok(), "still open after 10 s");
    assert!(waited >= Duration::from_millis(900), "{waited:?}");
    assert!(
        !String::from_utf8_lossy(&rest).contains("200 OK"),
        "{rest:?}"
    );
    // A prompt client on another connection is served all along.
    assert_accepted(&post_init(server.addr, &[]).await, "initialize");
    server.stop().await;
}

/// A request body over 4 MiB (rmcp's bound) is refused without being run;
/// the server goes on serving.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_request_bodies_are_refused() {
    let server = HttpServer::start("loop_example", &["--stateless"], &[]).await;
    let call = |id: u64, arguments: Value| {
        let body = json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": { "name": "sum_to_n", "arguments": arguments }
        })
        .to_string();
        async move {
            let headers = mcp_post_headers(&[]);
            http_request(server.addr, "POST", "/mcp", &headers, Some(&body)).await
        }
    };
    let r = call(1, json!({ "n": 3, "pad": "x".repeat(5 << 20) })).await;
    let head = &r.body[..r.body.len().min(200)];
    assert_eq!(r.status, 413, "{head:?}");
    assert!(!r.body.contains("\"sum\""), "{head:?}");
    let r = call(2, json!({ "n": 3 })).await;
    assert!(r.body.contains(r#""sum":6"#), "{r:?}");
    server.stop().await;
}
