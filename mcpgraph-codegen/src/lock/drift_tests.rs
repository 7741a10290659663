use std::collections::BTreeMap;

use serde_json::json;

use super::*;

fn server(tools: &[(&str, Value)]) -> ServerLock {
    ServerLock {
        server_info: json!({"name": "s", "version": "1"}),
        protocol_version: "2025-06-18".into(),
        tools: tools
            .iter()
            .map(|(name, tool)| (name.to_string(), ToolLock::from_listed(tool)))
            .collect::<BTreeMap<_, _>>(),
    }
}

fn read_file() -> Value {
    json!({
        "description": "Reads a file",
        "inputSchema": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "head": {"type": "number"}},
            "required": ["path"],
            "additionalProperties": false,
        },
    })
}

fn call(node: &str, keys: Option<&[&str]>) -> Use {
    Use {
        graph_tool: "t".into(),
        node: node.into(),
        place: Place::Node,
        server: "s".into(),
        tool: "read".into(),
        arg_keys: keys.map(|k| k.iter().map(|s| s.to_string()).collect()),
    }
}

fn changes(new_tool: Value, uses: &[Use]) -> Vec<(String, bool, Vec<String>)> {
    let old = server(&[("read", read_file())]);
    let new = server(&[("read", new_tool)]);
    diff("s", &old, &new, uses)
        .into_iter()
        .map(|c| (c.what, c.matters, c.breaks))
        .collect()
}

#[test]
fn nothing_changed_is_no_change() {
    assert!(changes(read_file(), &[call("a", Some(&["path"]))]).is_empty());
}

#[test]
fn a_new_required_property_breaks_the_calls_that_do_not_pass_it() {
    let mut tool = read_file();
    tool["inputSchema"]["required"] = json!(["path", "head"]);
    let uses = [
        call("a", Some(&["path"])),
        call("b", Some(&["path", "head"])),
        call("c", None),
    ];
    assert_eq!(
        changes(tool, &uses),
        [("`head` is now required".into(), true, vec!["t/a".into()])]
    );
}

#[test]
fn a_removed_property_matters_when_the_schema_is_closed_and_a_call_passes_it() {
    let mut tool = read_file();
    tool["inputSchema"]["properties"]
        .as_object_mut()
        .unwrap()
        .remove("head");
    let passes = [call("a", Some(&["path", "head"]))];
    assert_eq!(
        changes(tool.clone(), &passes),
        [(
            "input property `head` removed".into(),
            true,
            vec!["t/a".into()]
        )]
    );
    let does_not = [call("a", Some(&["path"]))];
    assert_eq!(
        changes(tool, &does_not),
        [("input property `head` removed".into(), false, vec![])]
    );
}

#[test]
fn a_type_change_and_a_removed_tool_matter() {
    let mut tool = read_file();
    tool["inputSchema"]["properties"]["head"]["type"] = json!("string");
    assert_eq!(
        changes(tool, &[call("a", Some(&["path", "head"]))]),
        [(
            "type of input property `head`: \"number\" → \"string\"".into(),
            true,
            vec!["t/a".into()]
        )]
    );
    let old = server(&[("read", read_file())]);
    let new = server(&[("read_text", read_file())]);
    let got = diff("s", &old, &new, &[call("a", Some(&["path"]))]);
    assert_eq!(got[0].what, "removed");
    assert!(got[0].matters);
    assert_eq!(got[0].breaks, ["t/a"]);
    assert_eq!((got[1].what.as_str(), got[1].matters), ("added", false));
}

#[test]
fn descriptions_and_annotations_are_cosmetic() {
    let mut tool = read_file();
    tool["description"] = json!("Reads a file (in Europe/Paris)");
    tool["inputSchema"]["properties"]["path"]["description"] = json!("Where");
    tool["annotations"] = json!({"readOnlyHint": true});
    let got = changes(tool, &[call("a", Some(&["path"]))]);
    assert_eq!(
        got,
        [
            ("description changed".into(), false, vec![]),
            ("annotations changed".into(), false, vec![]),
        ]
    );
    let mut tool = read_file();
    tool["inputSchema"]["properties"]["path"]["description"] = json!("Where");
    assert_eq!(
        changes(tool, &[]),
        [(
            "schema changed (descriptions or other keywords)".into(),
            false,
            vec![]
        )]
    );
}

#[test]
fn changes_to_a_tool_no_node_calls_are_cosmetic() {
    let mut tool = read_file();
    tool["inputSchema"]["properties"]["head"]["type"] = json!("string");
    let other = Use {
        tool: "write".into(),
        ..call("a", Some(&["path"]))
    };
    assert_eq!(
        changes(tool, std::slice::from_ref(&other)),
        [(
            "type of input property `head`: \"number\" → \"string\" (no node calls it)".into(),
            false,
            vec![]
        )]
    );
    let old = server(&[("read", read_file()), ("write", read_file())]);
    let new = server(&[("write", read_file())]);
    let got = diff("s", &old, &new, &[other]);
    assert_eq!(
        (got[0].what.as_str(), got[0].matters),
        ("removed (no node calls it)", false)
    );
}

/// A tool only a `parallel` branch or a `forEach` call uses counts as
/// called: its removal matters and names the branch or the item call.
#[test]
fn branch_and_item_calls_count_as_uses() {
    let graph = r#"version: "1.0"
server: { name: "g", version: "1" }
mcpServers:
  s: { command: "s" }
tools:
  - name: "t"
    description: "d"
    inputSchema: { type: object }
    nodes:
      - { id: entry, type: entry, next: gather }
      - id: gather
        type: parallel
        branches:
          now: { server: s, tool: read, args: { path: "/" } }
        next: each
      - id: each
        type: forEach
        items: { expr: '["/"]' }
        call: { server: s, tool: write, args: { path: { expr: "$.item" } } }
        next: exit
      - { id: exit, type: exit }
"#;
    let file = crate::load_str(graph, "g.yaml").unwrap();
    let uses = uses(&file);
    let old = server(&[("read", read_file()), ("write", read_file())]);
    let new = server(&[]);
    let got: Vec<(Option<String>, String, bool, Vec<String>)> = diff("s", &old, &new, &uses)
        .into_iter()
        .map(|c| (c.tool, c.what, c.matters, c.breaks))
        .collect();
    assert_eq!(
        got,
        [
            (
                Some("read".into()),
                "removed".into(),
                true,
                vec!["t/gather (branch `now`)".into()]
            ),
            (
                Some("write".into()),
                "removed".into(),
                true,
                vec!["t/each (item call)".into()]
            ),
        ]
    );
}
