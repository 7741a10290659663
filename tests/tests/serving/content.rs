//! Downstream content blocks returned as they came (issue 28, item 5), and
//! the tools' annotations and icons (item 7): the conformance suite's
//! fixture (`graphs/conformance.yaml` compiled), served over stdio, its
//! servers the pinned server-everything and the purpose-built test server. Each block the graph returns is
//! compared with what server-everything sends for the same call, spoken to
//! directly: every field (annotations, `_meta`, `mimeType`, the data) must
//! be the same.

use std::path::{Path, PathBuf};

use mcpgraph_tests::rmcp::ServiceExt;
use mcpgraph_tests::rmcp::transport::TokioChildProcess;
use mcpgraph_tests::*;
use serde_json::{Value, json};

const FIXTURE: &str = env!("CARGO_BIN_EXE_conformance_fixture");
const TEST_SERVER: &str = env!("CARGO_BIN_EXE_mcpgraph-test-server");

fn everything_js() -> PathBuf {
    repo_root().join("peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
}

fn node() -> PathBuf {
    which("node").expect("`node` on PATH (server-everything)")
}

/// The `--mcp` file pointing the graph at server-everything and the test
/// server by absolute paths.
fn mcp_file(tag: &str) -> PathBuf {
    let config = json!({"mcpServers": {
        "everything": {"command": node(), "args": [everything_js(), "stdio"], "timeoutMs": 30000},
        "test": {"command": TEST_SERVER},
    }});
    let file = std::env::temp_dir().join(format!(
        "mcpgraph-content-{tag}-{}.json",
        std::process::id()
    ));
    std::fs::write(&file, config.to_string()).expect("write --mcp file");
    file
}

async fn graph(tag: &str) -> RawServer {
    let file = mcp_file(tag);
    let mut server = RawServer::spawn_program(
        "conformance_fixture",
        Path::new(FIXTURE),
        &["--mcp", file.to_str().unwrap()],
    );
    server.initialize().await;
    server
}

async fn everything() -> RawServer {
    let js = everything_js();
    let mut server = RawServer::spawn_program(
        "server-everything",
        &node(),
        &[js.to_str().unwrap(), "stdio"],
    );
    server.initialize().await;
    server
}

/// `tools/call` over raw JSON-RPC: the result object, exactly as received.
async fn call(server: &mut RawServer, id: i64, tool: &str, args: Value) -> Value {
    let reply = server
        .request(
            id,
            "tools/call",
            Some(json!({"name": tool, "arguments": args})),
        )
        .await;
    let result = reply
        .get("result")
        .unwrap_or_else(|| panic!("{tool}: {reply}"))
        .clone();
    assert_ne!(result["isError"], json!(true), "{tool}: {result}");
    result
}

/// `a` and `b` with the same keys, strings and structure, numbers equal as
/// numbers: rmcp reads an annotation's `priority` as a float, so an
/// integral `1` comes back as `1.0` (the same JSON number).
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}

fn of_types(result: &Value, types: &[&str]) -> Vec<Value> {
    result["content"]
        .as_array()
        .expect("content")
        .iter()
        .filter(|b| types.contains(&b["type"].as_str().unwrap_or_default()))
        .cloned()
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn downstream_blocks_arrive_as_server_everything_sent_them() {
    let mut graph = graph("blocks").await;
    let mut direct = everything().await;

    // An image alone, instead of the JSON text.
    let sent = call(&mut direct, 1, "get-tiny-image", json!({})).await;
    let got = call(&mut graph, 1, "test_image_content", json!({})).await;
    assert_eq!(got["content"], json!(of_types(&sent, &["image"])), "{got}");
    assert!(got.get("structuredContent").is_none(), "{got}");
    assert!(sent["content"][1]["data"].as_str().unwrap().len() > 1000);

    // Every block, text ones with their annotations included.
    let args = json!({"messageType": "error", "includeImage": true});
    let sent = call(&mut direct, 2, "get-annotated-message", args.clone()).await;
    let got = call(
        &mut graph,
        2,
        "annotated_message",
        json!({"messageType": "error"}),
    )
    .await;
    assert!(
        same_json(&got["content"], &sent["content"]),
        "{got}\n{sent}"
    );
    assert_eq!(got["content"][1]["data"], sent["content"][1]["data"]);
    assert_eq!(
        got["content"][0]["annotations"]["audience"],
        json!(["user", "assistant"])
    );

    // Beside the JSON text: the text block of the value first, then every
    // block server-everything sent.
    let sent = call(&mut direct, 3, "get-resource-links", json!({"count": 4})).await;
    let got = call(&mut graph, 3, "resource_links", json!({"count": 4})).await;
    let blocks = got["content"].as_array().unwrap();
    assert_eq!(
        blocks[0],
        json!({"type": "text", "text": serde_json::to_string(&sent["content"][0]["text"]).unwrap()})
    );
    assert_eq!(json!(blocks[1..]), sent["content"], "{got}");
    assert_eq!(of_types(&got, &["resource_link"]).len(), 4);

    // An embedded resource: its text carries the time it was made (to the
    // second), so the graph's block must equal the one sent just before or
    // just after it.
    let mut matched = false;
    for round in 0..3 {
        let id = 10 + 3 * round;
        let args = json!({"resourceType": "Text", "resourceId": 1});
        let before = call(&mut direct, id, "get-resource-reference", args.clone()).await;
        let got = call(&mut graph, id, "test_embedded_resource", json!({})).await;
        let after = call(&mut direct, id + 1, "get-resource-reference", args).await;
        assert_eq!(of_types(&got, &["resource"]).len(), 1, "{got}");
        assert_eq!(got["content"].as_array().unwrap().len(), 1, "{got}");
        if [before, after]
            .iter()
            .any(|sent| got["content"] == json!(of_types(sent, &["resource"])))
        {
            matched = true;
            break;
        }
    }
    assert!(
        matched,
        "the embedded resource differs from what server-everything sent"
    );

    // Mixed: the JSON text, the image, the resource.
    let got = call(&mut graph, 30, "test_multiple_content_types", json!({})).await;
    let types: Vec<&str> = got["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["text", "image", "resource"], "{got}");
    assert_eq!(
        got["content"][0]["text"],
        json!("\"Multiple content types test:\"")
    );
    graph.close_and_wait(TIMEOUT).await;
    direct.close_and_wait(TIMEOUT).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_audio_block_arrives_as_the_test_server_sent_it() {
    let mut graph = graph("audio").await;
    let mut direct = RawServer::spawn_program("mcpgraph-test-server", Path::new(TEST_SERVER), &[]);
    direct.initialize().await;
    let sent = call(&mut direct, 1, "audio", json!({})).await;
    let got = call(&mut graph, 1, "test_audio_content", json!({})).await;
    let audio = of_types(&sent, &["audio"]);
    assert_eq!(got["content"], json!(audio), "{got}");
    assert_eq!(audio[0]["mimeType"], "audio/wav");
    assert_eq!(audio[0]["_meta"], json!({"example.com/duration-ms": 1}));
    assert_eq!(audio[0]["annotations"]["priority"], json!(0.25));
    graph.close_and_wait(TIMEOUT).await;
    direct.close_and_wait(TIMEOUT).await;
}

/// tools/list through rmcp's client: annotations derived from the lock
/// (every call server-everything's read-only tools), the graph's overrides
/// and its icons.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_shows_derived_annotations_overrides_and_icons() {
    let file = mcp_file("list");
    let mut cmd = tokio::process::Command::new(FIXTURE);
    cmd.arg("--mcp").arg(&file);
    let transport = TokioChildProcess::new(cmd).expect("spawn the fixture");
    let client = timed("initialize", ().serve(transport))
        .await
        .expect("initialize");
    let tools = timed("tools/list", client.peer().list_all_tools())
        .await
        .expect("tools/list");
    let by_name = |name: &str| -> Value {
        let tool = tools.iter().find(|t| t.name == name).expect(name);
        serde_json::to_value(tool).unwrap()
    };
    let read_only = json!({"readOnlyHint": true, "destructiveHint": false,
                           "idempotentHint": true, "openWorldHint": false});
    assert_eq!(by_name("test_image_content")["annotations"], read_only);
    assert_eq!(
        by_name("test_multiple_content_types")["annotations"],
        read_only
    );
    assert_eq!(
        by_name("test_image_content")["icons"],
        json!([{"src": "data:image/png;base64,iVBORw0KGgo=", "mimeType": "image/png",
                "sizes": ["16x16"], "theme": "light"}])
    );
    // The test server's `audio` declares no hints (MCP's defaults: writes,
    // open world); the graph says read-only and closed.
    assert_eq!(
        by_name("test_audio_content")["annotations"],
        json!({"title": "A short tone", "readOnlyHint": true, "destructiveHint": false,
               "idempotentHint": true, "openWorldHint": false})
    );
    assert!(by_name("test_audio_content").get("icons").is_none());
    client.cancel().await.expect("close");
}
