//! The example binaries driven by the official MCP SDK clients (Python `mcp`
//! and TypeScript `@modelcontextprotocol/sdk`, pinned in peers/) over
//! streamable HTTP (stateful and stateless) and over stdio: the handshake,
//! the tool list and every call of the shared expected results. The HTTP
//! front door is tested in `http_auth.rs` and `http_front_door.rs`.
//!
//! The clients are `tests/clients/{python_client.py,ts_client.mjs}`; install
//! their SDKs with `scripts/install-peers.sh`.

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
