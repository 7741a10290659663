//! tools/list: every tool of the YAML, with its description and its full
//! inputSchema / outputSchema (FORMAT.md: "Schemas are JSON Schema and are
//! passed to clients whole").

use std::collections::BTreeMap;

use mcpgraph_tests::*;
use serde_json::{Value, json};

fn yaml_tools(name: &str) -> BTreeMap<String, Value> {
    let doc = load_yaml(&example_yaml(name));
    doc["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{name}.yaml has no tools[]"))
        .iter()
        .map(|t| {
            (
                t["name"].as_str().expect("tool name").to_string(),
                t.clone(),
            )
        })
        .collect()
}

async fn check(name: &str) {
    let want = yaml_tools(name);
    let server = Server::start(name).await;
    let tools = server.list_tools().await;
    let got: BTreeMap<String, Value> = tools
        .iter()
        .map(|t| {
            (
                t.name.to_string(),
                serde_json::to_value(t).expect("tool serializes"),
            )
        })
        .collect();
    assert_eq!(
        got.len(),
        tools.len(),
        "{name}: duplicate tool names in tools/list"
    );
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "{name}: tool names"
    );
    for (tool, w) in &want {
        let g = &got[tool];
        assert_eq!(
            g["description"], w["description"],
            "{name}/{tool}: description"
        );
        assert_eq!(
            g["inputSchema"], w["inputSchema"],
            "{name}/{tool}: inputSchema"
        );
        let want_out = w.get("outputSchema").cloned().unwrap_or(Value::Null);
        assert_eq!(
            g.get("outputSchema").cloned().unwrap_or(Value::Null),
            want_out,
            "{name}/{tool}: outputSchema"
        );
    }
    server.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_file_utils() {
    check("file_utils").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_loop_example() {
    check("loop_example").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_switch_example() {
    check("switch_example").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_test_minimal() {
    check("test_minimal").await;
}

/// The same check against literal JSON, independent of the YAML parser.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_literal_switch_and_minimal() {
    let server = Server::start("switch_example").await;
    let tools = server.list_tools().await;
    assert_eq!(tools.len(), 1);
    let t = serde_json::to_value(&tools[0]).unwrap();
    assert_eq!(t["name"], "test_switch");
    assert_eq!(
        t["description"],
        "Test switch node with conditional routing"
    );
    assert_eq!(
        t["inputSchema"],
        json!({
            "type": "object",
            "properties": {
                "value": { "type": "number", "description": "A numeric value to route based on" }
            },
            "required": ["value"]
        })
    );
    assert_eq!(
        t["outputSchema"],
        json!({
            "type": "object",
            "properties": {
                "result": { "type": "string", "description": "The routing result" }
            }
        })
    );
    server.close().await;

    let server = Server::start("test_minimal").await;
    let tools = server.list_tools().await;
    assert_eq!(tools.len(), 1);
    let t = serde_json::to_value(&tools[0]).unwrap();
    assert_eq!(t["name"], "test_tool");
    assert_eq!(t["description"], "Test tool");
    assert_eq!(t["inputSchema"], json!({ "type": "object" }));
    assert_eq!(t["outputSchema"], json!({ "type": "object" }));
    server.close().await;
}
