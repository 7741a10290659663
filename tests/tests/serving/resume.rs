//! Stateless resume: the `requestState` a waiting call hands a client of
//! MCP 2026-07-28 opens on any replica of a `--stateless` deployment that
//! holds its key. Two replicas with the same key file behind nginx serve
//! the Python SDK client's rounds (both answer); raw requests check the
//! refusals: a tampered state, one sealed under a key this replica does
//! not hold, one for other arguments, one another graph sealed with the
//! same key, one sealed for another OAuth principal; and a token refreshed
//! between rounds resumes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use mcpgraph_tests::*;
use serde_json::{Value, json};

use super::questions::{everything_over_stdio, fixture};

/// 32 bytes in base64.
const KEY_A: &str = "AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA=";
const KEY_B: &str = "ZWZnaGlqa2xtbm9wcXJzdHV2d3h5ent8fX5/gIGCg4Q=";

fn key_file(tag: &str, text: &str) -> PathBuf {
    let path =
        std::env::temp_dir().join(format!("mcpgraph-resume-{}-{tag}.keys", std::process::id()));
    std::fs::write(&path, text).expect("write key file");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    }
    path
}

/// A `--stateless` replica of the questions fixture sealing with `keys`.
async fn replica(keys: &PathBuf, tag: &str) -> HttpServer {
    serve(&fixture(), keys, tag, "127.0.0.1:0", &[]).await
}

/// `program` (a fixture with the questions graph's servers) served
/// `--stateless` on `addr`, sealing with `keys`, with `flags`.
async fn serve(
    program: &Path,
    keys: &PathBuf,
    tag: &str,
    addr: &str,
    flags: &[&str],
) -> HttpServer {
    let mcp = everything_over_stdio(tag);
    let mut cmd = tokio::process::Command::new(program);
    cmd.arg("--mcp")
        .arg(&mcp)
        .args([
            "serve",
            "--http",
            addr,
            "--stateless",
            "--log-level",
            "info",
        ])
        .args(flags)
        .arg("--state-key-file")
        .arg(keys);
    HttpServer::spawn("questions_fixture", cmd, flags).await
}

/// A 2026-07-28 `tools/call` of `tool` (with `extra` params), raw; the
/// JSON-RPC reply.
async fn modern_call(addr: std::net::SocketAddr, tool: &str, extra: Value) -> Value {
    modern_exchange(addr, tool, extra)
        .await
        .into_iter()
        .find(|m| m.get("id") == Some(&json!(1)))
        .unwrap_or_else(|| panic!("no reply to the call"))
}

/// [`modern_call`]'s messages: the notifications before the reply too.
async fn modern_exchange(addr: std::net::SocketAddr, tool: &str, extra: Value) -> Vec<Value> {
    modern_exchange_with(addr, tool, extra, &[]).await
}

/// [`modern_call`] with `headers` more (an `Authorization`).
async fn modern_call_with(
    addr: std::net::SocketAddr,
    tool: &str,
    extra: Value,
    headers: &[(&str, &str)],
) -> Value {
    modern_exchange_with(addr, tool, extra, headers)
        .await
        .into_iter()
        .find(|m| m.get("id") == Some(&json!(1)))
        .unwrap_or_else(|| panic!("no reply to the call"))
}

/// [`modern_exchange`] with `headers` more.
async fn modern_exchange_with(
    addr: std::net::SocketAddr,
    tool: &str,
    extra: Value,
    headers: &[(&str, &str)],
) -> Vec<Value> {
    let mut params = json!({
        "name": tool,
        "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "sampling": {}},
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"}
        }
    });
    for (k, v) in extra.as_object().cloned().unwrap_or_default() {
        params[k] = v;
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let mut all = vec![
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", tool),
    ];
    all.extend_from_slice(headers);
    let response = post_mcp(addr, &all, &body.to_string()).await;
    response.messages()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_state_opens_on_another_replica_with_the_key() {
    let keys = key_file("shared", &format!("k1={KEY_A}\n"));
    let a = replica(&keys, "ra").await;
    let b = replica(&keys, "rb").await;
    let other = replica(&key_file("other", &format!("k9={KEY_B}\n")), "rc").await;

    // Round 1 on A: the name is asked for.
    let first = modern_call(a.addr, "ask_twice", json!({})).await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    assert!(
        result["inputRequests"]["user_name"]["method"] == "elicitation/create",
        "{first}"
    );
    let state = result["requestState"]
        .as_str()
        .expect("a requestState")
        .to_owned();
    assert!(state.starts_with("mgs2.k1."), "{state}");
    let name = json!({"user_name": {"action": "accept", "content": {"name": "Grace"}}});

    // The refusals, each a JSON-RPC error naming the cause.
    let mut tampered = state.clone();
    let last = tampered.pop().expect("non-empty");
    tampered.push(if last == 'A' { 'B' } else { 'A' });
    for (what, addr, tool, extra, want) in [
        (
            "tampered",
            b.addr,
            "ask_twice",
            json!({"requestState": tampered, "inputResponses": name}),
            "requestState",
        ),
        (
            "other key",
            other.addr,
            "ask_twice",
            json!({"requestState": state, "inputResponses": name}),
            "k1",
        ),
        (
            "other arguments",
            b.addr,
            "ask_twice",
            json!({"requestState": state, "inputResponses": name, "arguments": {"x": 1}}),
            "requestState",
        ),
        (
            "other tool",
            b.addr,
            "echo",
            json!({"requestState": state, "inputResponses": name, "arguments": {"message": "m"}}),
            "requestState",
        ),
    ] {
        let reply = modern_call(addr, tool, extra).await;
        let message = reply["error"]["message"].as_str().unwrap_or_default();
        assert_eq!(reply["error"]["code"], -32602, "{what}: {reply}");
        assert!(message.contains(want), "{what}: {message}");
    }

    // Round 2 on B: the name answered; the model is asked.
    let second = modern_call(
        b.addr,
        "ask_twice",
        json!({"requestState": state, "inputResponses": name}),
    )
    .await;
    assert_eq!(second["result"]["resultType"], "input_required", "{second}");
    assert!(
        second["result"]["inputRequests"]["opinion"]["method"] == "sampling/createMessage",
        "{second}"
    );
    let state = second["result"]["requestState"]
        .as_str()
        .expect("a requestState")
        .to_owned();
    let opinion = json!({"opinion": {"role": "assistant", "model": "m", "content": {"type": "text", "text": "Sharp."}}});

    // Round 3 back on A: done.
    let third = modern_call(
        a.addr,
        "ask_twice",
        json!({"requestState": state, "inputResponses": opinion}),
    )
    .await;
    assert_eq!(
        third["result"]["structuredContent"],
        json!({"user": "Grace", "opinion": "Sharp.", "before": "before"}),
        "{third}"
    );
    a.stop().await;
    b.stop().await;
    other.stop().await;
}

/// The Python SDK's client through nginx's round robin: its rounds land on
/// both replicas, and the call completes.
#[tokio::test(flavor = "multi_thread")]
async fn the_rounds_of_one_call_cross_replicas_behind_nginx() {
    let keys = key_file("nginx", &format!("k1={KEY_A}\n"));
    let a = replica(&keys, "na").await;
    let b = replica(&keys, "nb").await;
    let upstreams = [a.addr, b.addr];
    let nginx = Nginx::start("resume", |_, port| {
        let servers: String = upstreams
            .iter()
            .map(|a| format!("        server {a} max_fails=0;\n"))
            .collect();
        format!(
            "    upstream replicas {{\n{servers}    }}\n    server {{\n        listen 127.0.0.1:{port};\n        location / {{\n            proxy_pass http://replicas;\n            proxy_http_version 1.1;\n            proxy_set_header Connection \"\";\n            proxy_set_header Host $http_host;\n            proxy_buffering off;\n        }}\n    }}\n"
        )
    })
    .await;
    let target = Target::Http {
        url: format!("http://127.0.0.1:{}/mcp", nginx.port()),
        headers: vec![],
    };
    let run = run_sdk_client_with(
        Sdk::Python,
        &target,
        &json!([{"name": "ask_twice", "arguments": {}}, {"name": "ask_twice", "arguments": {}}]),
        &["--modern", "--elicit", "accept", "--sample", "Brilliant."],
    )
    .await;
    assert_eq!(
        run.code,
        Some(0),
        "{run:?}\nA:\n{}\nB:\n{}",
        a.stderr(),
        b.stderr()
    );
    for call in run.calls() {
        let (text, is_error) = call_text(call);
        assert!(!is_error, "{text}");
        assert_eq!(
            call["result"]["structuredContent"]["opinion"], "Brilliant.",
            "{call}"
        );
    }
    // Six tools/call rounds went through nginx, to both replicas.
    let upstreams: BTreeSet<String> = nginx
        .access_log()
        .lines()
        .filter(|l| l.starts_with("POST /mcp 200"))
        .filter_map(|l| l.split(' ').nth(3).map(str::to_owned))
        .collect();
    assert_eq!(upstreams.len(), 2, "{}", nginx.access_log());
    drop(nginx);
    a.stop().await;
    b.stop().await;
}

/// A 2026-07-28 client that did not declare what a downstream server's
/// question needs gets error -32021 (HTTP 400) naming the capability, and
/// the next call is served.
#[tokio::test(flavor = "multi_thread")]
async fn an_undeclared_capability_is_error_32021() {
    let keys = key_file("missing", &format!("k1={KEY_A}\n"));
    let a = replica(&keys, "missing").await;
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"}
    });
    let reply = modern_call(a.addr, "ask_model_first", json!({"_meta": meta})).await;
    assert_eq!(reply["error"]["code"], -32021, "{reply}");
    assert_eq!(
        reply["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}}),
        "{reply}"
    );
    let message = reply["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("`modern`") && message.contains("sampling"),
        "{message}"
    );
    // With the capability declared, the same call asks instead.
    let reply = modern_call(a.addr, "ask_model_first", json!({})).await;
    assert_eq!(reply["result"]["resultType"], "input_required", "{reply}");
    a.stop().await;
}

/// The caller's W3C trace context (`traceparent`, `tracestate` in `_meta`)
/// reaches the downstream servers the graph calls.
#[tokio::test(flavor = "multi_thread")]
async fn the_callers_trace_context_reaches_downstream_servers() {
    let keys = key_file("trace", &format!("k1={KEY_A}\n"));
    let a = replica(&keys, "trace").await;
    let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "traceparent": traceparent,
        "tracestate": "vendor=value"
    });
    let reply = modern_call(a.addr, "downstream_meta", json!({"_meta": meta})).await;
    let got = &reply["result"]["structuredContent"]["meta"];
    assert_eq!(got["traceparent"], traceparent, "{reply}");
    assert_eq!(got["tracestate"], "vendor=value", "{reply}");
    // A malformed one is not passed on.
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "traceparent": "not-a-trace"
    });
    let reply = modern_call(a.addr, "downstream_meta", json!({"_meta": meta})).await;
    assert_eq!(
        reply["result"]["structuredContent"]["meta"].get("traceparent"),
        None,
        "{reply}"
    );
    a.stop().await;
}

/// A downstream server's progress reaches the caller as a share of the node
/// that called it: between that node's number and the next, increasing.
#[tokio::test(flavor = "multi_thread")]
async fn downstream_progress_is_the_nodes_share() {
    let keys = key_file("progress", &format!("k1={KEY_A}\n"));
    let a = replica(&keys, "progress").await;
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "progressToken": "p-1"
    });
    let messages = modern_exchange(a.addr, "downstream_progress", json!({"_meta": meta})).await;
    let progress: Vec<(f64, String)> = messages
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| {
            assert_eq!(m["params"]["progressToken"], "p-1", "{m}");
            (
                m["params"]["progress"].as_f64().unwrap_or(-1.0),
                m["params"]["message"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            )
        })
        .collect();
    // entry (1), work (2), the server's steps within work (a step handled
    // after a later one is stale and dropped), exit (3).
    let values: Vec<f64> = progress.iter().map(|(p, _)| *p).collect();
    assert!(values.windows(2).all(|w| w[0] < w[1]), "{progress:?}");
    assert_eq!(values.first(), Some(&1.0), "{progress:?}");
    assert_eq!(values.last(), Some(&3.0), "{progress:?}");
    let steps: Vec<&(f64, String)> = progress
        .iter()
        .filter(|(_, m)| m.contains("step"))
        .collect();
    assert!(!steps.is_empty(), "{progress:?}");
    for (value, message) in steps {
        assert!((2.0..3.0).contains(value), "{progress:?}");
        assert!(message.starts_with("node `work`: step"), "{message}");
    }
    a.stop().await;
}

/// A call parked on a session-era stdio server (its question unanswered)
/// does not hold up the next call of a client with the same capabilities:
/// that one gets a connection of its own, asks, and completes.
#[tokio::test(flavor = "multi_thread")]
async fn a_parked_call_does_not_hold_up_the_next() {
    let keys = key_file("parked", &format!("k1={KEY_A}\n"));
    let a = replica(&keys, "parked").await;
    let first = modern_call(a.addr, "ask_user", json!({})).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    // The first is never answered; the second is asked at once...
    let second = tokio::time::timeout(
        std::time::Duration::from_secs(20),
        modern_call(a.addr, "ask_user", json!({})),
    )
    .await
    .expect("the second call is not held up by the first");
    let result = &second["result"];
    assert_eq!(result["resultType"], "input_required", "{second}");
    assert_eq!(
        result["inputRequests"]["elicitation"]["method"], "elicitation/create",
        "{second}"
    );
    // ...and completes with its answer.
    let state = result["requestState"].as_str().expect("a state").to_owned();
    let answer = json!({"elicitation": {"action": "accept", "content": {"name": "Ada"}}});
    let done = modern_call(
        a.addr,
        "ask_user",
        json!({"requestState": state, "inputResponses": answer}),
    )
    .await;
    let text = done["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("User provided"), "{done}");
    a.stop().await;
}

/// The JSON-RPC error message of a refused round, checked to be -32602.
fn refusal(reply: &Value, what: &str) -> String {
    assert_eq!(reply["error"]["code"], -32602, "{what}: {reply}");
    reply["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Two graphs holding the same state key, each with a tool `ask_twice`
/// taking the same arguments: a state one seals is refused by the other
/// as another graph's, and still resumes in its own.
#[tokio::test(flavor = "multi_thread")]
async fn a_state_opens_only_in_the_graph_that_sealed_it() {
    let keys = key_file("twins", &format!("k1={KEY_A}\n"));
    let questions = replica(&keys, "twin-a").await;
    let twin = serve(
        Path::new(env!("CARGO_BIN_EXE_questions_twin_fixture")),
        &keys,
        "twin-b",
        "127.0.0.1:0",
        &[],
    )
    .await;
    let name = json!({"user_name": {"action": "accept", "content": {"name": "Grace"}}});
    for (sealer, opener) in [(&questions, &twin), (&twin, &questions)] {
        let first = modern_call(sealer.addr, "ask_twice", json!({})).await;
        let state = first["result"]["requestState"]
            .as_str()
            .unwrap_or_else(|| panic!("a requestState: {first}"))
            .to_owned();
        let resumed = json!({"requestState": state, "inputResponses": name});
        let reply = modern_call(opener.addr, "ask_twice", resumed.clone()).await;
        let message = refusal(&reply, "another graph's state");
        assert!(message.contains("issued by another graph"), "{message}");
        let reply = modern_call(sealer.addr, "ask_twice", resumed).await;
        assert_eq!(reply["result"]["resultType"], "input_required", "{reply}");
    }
    questions.stop().await;
    twin.stop().await;
}

/// Under inbound OAuth a state is bound to the token's principal (issuer
/// and subject), not to the token: a new token of the same client from
/// the authorization server resumes the call; another client's token is
/// refused as another caller's.
#[tokio::test(flavor = "multi_thread")]
async fn a_refreshed_token_resumes_and_another_principal_is_refused() {
    use mcpgraph_tests::oidc::{Provider, ProviderConfig};
    let keys = key_file("oauth", &format!("k1={KEY_A}\n"));
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let provider = Provider::start(ProviderConfig {
        resources: vec![resource.clone()],
        limited_scopes: vec!["mcp:tools".into()],
        ..ProviderConfig::default()
    })
    .await;
    let issuer = provider.issuer.clone();
    let server = serve(
        &fixture(),
        &keys,
        "oauth",
        &format!("127.0.0.1:{port}"),
        &["--oauth-issuer", &issuer, "--oauth-resource", &resource],
    )
    .await;
    let bearer = |token: String| format!("Bearer {token}");
    let first_token = bearer(provider.token("full", &resource, "mcp:tools").await);
    let refreshed = bearer(provider.token("full", &resource, "mcp:tools").await);
    let other = bearer(provider.token("limited", &resource, "mcp:tools").await);
    assert_ne!(first_token, refreshed);

    let first = modern_call_with(
        server.addr,
        "ask_twice",
        json!({}),
        &[("Authorization", &first_token)],
    )
    .await;
    let state = first["result"]["requestState"]
        .as_str()
        .unwrap_or_else(|| panic!("a requestState: {first}"))
        .to_owned();
    let name = json!({"user_name": {"action": "accept", "content": {"name": "Grace"}}});
    let resumed = json!({"requestState": state, "inputResponses": name});

    let reply = modern_call_with(
        server.addr,
        "ask_twice",
        resumed.clone(),
        &[("Authorization", &other)],
    )
    .await;
    let message = refusal(&reply, "another client's token");
    assert!(message.contains("issued to another caller"), "{message}");

    let second = modern_call_with(
        server.addr,
        "ask_twice",
        resumed,
        &[("Authorization", &refreshed)],
    )
    .await;
    assert_eq!(
        second["result"]["resultType"], "input_required",
        "the refreshed token resumes: {second}"
    );
    assert!(
        second["result"]["inputRequests"]["opinion"]["method"] == "sampling/createMessage",
        "{second}"
    );
    server.stop().await;
}
