//! Both protocol eras on one server: a client of MCP 2026-07-28 (no
//! `initialize`, no session; `server/discover`, then requests that each
//! carry their protocol version and capabilities in `_meta`, and over HTTP
//! the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers) is
//! served beside 2025-era clients with sessions, over streamable HTTP and
//! stdio, as the 2026-07-28 specification defines them. Raw requests: no
//! SDK in between.

use mcpgraph_tests::*;
use serde_json::{Value, json};

const MODERN: &str = "2026-07-28";

/// The `_meta` every 2026-07-28 request carries.
fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "mcpgraph-tests-modern", "version": "0.0.0" }
    })
}

fn request(id: u64, method: &str, mut params: Value) -> Value {
    params["_meta"] = meta();
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

fn sum_call(id: u64) -> Value {
    request(
        id,
        "tools/call",
        json!({ "name": "sum_to_n", "arguments": { "n": 4 } }),
    )
}

/// A `server/discover` result: the new version offered, tools (only tools)
/// advertised, the server named, and caching hints.
fn check_discover(result: &Value) {
    let versions = result["supportedVersions"]
        .as_array()
        .expect("supportedVersions");
    assert!(versions.contains(&json!(MODERN)), "{result}");
    assert!(versions.contains(&json!("2025-11-25")), "{result}");
    let caps = &result["capabilities"];
    assert!(caps.get("tools").is_some(), "{result}");
    for absent in ["prompts", "resources", "completions", "logging"] {
        assert!(caps.get(absent).is_none(), "{absent}: {result}");
    }
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        json!("loopExample"),
        "{result}"
    );
    assert_eq!(result["cacheScope"], json!("public"), "{result}");
    assert!(result["ttlMs"].as_u64().is_some_and(|t| t > 0), "{result}");
}

/// A `tools/list` result: the graph's tools, complete, with caching hints.
fn check_list(result: &Value) {
    assert_eq!(result["resultType"], json!("complete"), "{result}");
    assert_eq!(result["tools"][0]["name"], json!("sum_to_n"), "{result}");
    assert_eq!(result["cacheScope"], json!("public"), "{result}");
    assert!(result["ttlMs"].as_u64().is_some_and(|t| t > 0), "{result}");
}

fn check_sum(result: &Value) {
    assert_eq!(result["resultType"], json!("complete"), "{result}");
    assert_eq!(result["structuredContent"]["sum"], json!(10), "{result}");
}

/// One 2026-07-28 POST with the headers the version requires.
async fn post(addr: std::net::SocketAddr, body: &Value, name: Option<&str>) -> HttpResponse {
    let method = body["method"].as_str().unwrap().to_owned();
    let mut extra = vec![
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", method.as_str()),
    ];
    if let Some(name) = name {
        extra.push(("Mcp-Name", name));
    }
    post_mcp(addr, &extra, &body.to_string()).await
}

fn only_message(r: &HttpResponse) -> Value {
    let messages = r.messages();
    assert_eq!(messages.len(), 1, "{r:?}");
    messages.into_iter().next().unwrap()
}

/// Over streamable HTTP, on a server with sessions (the default) and on a
/// `--stateless` one: 2026-07-28 requests are served with no session, and
/// a 2025-era `initialize` on the same endpoint still opens one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_client_over_http_needs_no_session() {
    for extra in [&[][..], &["--stateless"][..]] {
        let server = HttpServer::start("loop_example", extra, &[]).await;
        let discover = post(server.addr, &request(1, "server/discover", json!({})), None).await;
        assert_eq!(discover.status, 200, "{extra:?}: {discover:?}");
        assert!(discover.header("mcp-session-id").is_none(), "{discover:?}");
        check_discover(&only_message(&discover)["result"]);

        let list = post(server.addr, &request(2, "tools/list", json!({})), None).await;
        assert_eq!(list.status, 200, "{list:?}");
        assert!(list.header("mcp-session-id").is_none(), "{list:?}");
        check_list(&only_message(&list)["result"]);

        let call = post(server.addr, &sum_call(3), Some("sum_to_n")).await;
        assert_eq!(call.status, 200, "{call:?}");
        assert!(call.header("mcp-session-id").is_none(), "{call:?}");
        check_sum(&only_message(&call)["result"]);

        // A header that says otherwise than the body: 400, -32020.
        let mismatch = post(server.addr, &sum_call(4), Some("other_tool")).await;
        assert_eq!(mismatch.status, 400, "{mismatch:?}");
        assert_eq!(
            only_message(&mismatch)["error"]["code"],
            json!(-32020),
            "{mismatch:?}"
        );

        // Methods the version dropped or a tools-only server does not
        // serve: 404, -32601.
        for method in ["ping", "prompts/list", "resources/list"] {
            let r = post(server.addr, &request(5, method, json!({})), None).await;
            assert_eq!(r.status, 404, "{method}: {r:?}");
            assert_eq!(
                only_message(&r)["error"]["code"],
                json!(-32601),
                "{method}: {r:?}"
            );
        }

        // The 2025 era on the same endpoint: initialize opens a session
        // unless the server is stateless.
        let init = post_init(server.addr, &[]).await;
        assert_eq!(init.status, 200, "{init:?}");
        assert_eq!(
            init.header("mcp-session-id").is_some(),
            extra.is_empty(),
            "{init:?}"
        );
        server.stop().await;
    }
}

/// Over stdio: `server/discover` and a call as the first lines, with no
/// `initialize`; then a 2025-era client (another process) handshakes as
/// before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_client_over_stdio_needs_no_initialize() {
    let mut s = RawServer::spawn("loop_example", &[]);
    let discover = s
        .request(1, "server/discover", Some(json!({ "_meta": meta() })))
        .await;
    check_discover(&discover["result"]);
    let list = s
        .request(2, "tools/list", Some(json!({ "_meta": meta() })))
        .await;
    check_list(&list["result"]);
    s.send(&sum_call(3)).await;
    check_sum(&s.response(&json!(3)).await["result"]);
    let ping = s.request(4, "ping", Some(json!({ "_meta": meta() }))).await;
    assert_eq!(ping["error"]["code"], json!(-32601), "{ping}");
    s.close_and_wait(std::time::Duration::from_secs(10)).await;

    let mut legacy = RawServer::spawn("loop_example", &[]);
    let init = legacy.initialize().await;
    assert!(init["capabilities"]["tools"].is_object(), "{init}");
    let list = legacy.request(1, "tools/list", None).await;
    assert_eq!(
        list["result"]["tools"][0]["name"],
        json!("sum_to_n"),
        "{list}"
    );
    let ping = legacy.request(2, "ping", None).await;
    assert_eq!(ping["result"], json!({}), "{ping}");
    legacy
        .close_and_wait(std::time::Duration::from_secs(10))
        .await;
}
