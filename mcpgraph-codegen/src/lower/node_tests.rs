//! The tests of `node`.

use super::NODE_TYPES;
use crate::suggest::suggest;
use crate::test_support::{ENTRY, a_node, load_errors, with_nodes};

#[test]
fn type_suggestions() {
    assert_eq!(suggest("tranform", NODE_TYPES), Some("transform"));
    assert_eq!(suggest("zzzzzz", NODE_TYPES), None);
}

#[test]
fn misplaced_node_fields() {
    let src = with_nodes(&format!(
        "{ENTRY}{}",
        "      - id: a\n        type: transform\n        transform: {expr: '1'}\n        server: fs\n        next: exit\n      - id: exit\n        type: exit\n        next: a\n"
    ));
    let d = load_errors(&src);
    let m: Vec<(&str, Option<&str>)> = d
        .items
        .iter()
        .map(|i| (i.message.as_str(), i.help.as_deref()))
        .collect();
    assert_eq!(
        m,
        [
            (
                "`server` is not a field of a `transform` node in node `a`",
                Some("`server` belongs to `mcp` nodes")
            ),
            (
                "an `exit` node has no `next` in node `exit`",
                Some("remove it: the call ends at the exit node")
            ),
        ]
    );
}

/// An `mcp` node without `server`: the servers it could name, and
/// where a tool of this graph is called from instead.
#[test]
fn mcp_node_without_server() {
    let src = a_node("        type: mcp\n        tool: other_tool\n        next: exit\n");
    let d = load_errors(&src);
    assert_eq!(d.items.len(), 1, "{d}");
    assert_eq!(
        d.items[0].message,
        "missing required field `server` in node `a`: an `mcp` node calls a tool of a downstream server"
    );
    assert_eq!(
        d.items[0].help.as_deref(),
        Some(
            "name one of the servers of `mcpServers`: fs; a tool of this graph is called without `server`, from a `parallel` branch or a `forEach` call (`branches: { other_tool: { tool: other_tool } }`, its output under `other_tool`)"
        )
    );
    let src = src.replace("mcpServers:\n  fs:\n    command: npx\n", "");
    let d = load_errors(&src);
    assert_eq!(
        d.items[0].help.as_deref(),
        Some(
            "the file declares no `mcpServers`; a tool of this graph is called without `server`, from a `parallel` branch or a `forEach` call (`branches: { other_tool: { tool: other_tool } }`, its output under `other_tool`)"
        )
    );
}

#[test]
fn node_type_errors() {
    let src = a_node("        type: \"tranform\"\n        next: exit\n");
    let d = load_errors(&src);
    assert_eq!(d.items.len(), 1, "{d}");
    assert_eq!(
        d.items[0].message,
        "unknown node type `tranform` (expected one of entry, exit, mcp, transform, switch, elicit, parallel, forEach)"
    );
    assert_eq!(
        d.items[0].help.as_deref(),
        Some("did you mean `transform`?")
    );
    assert_eq!((d.items[0].pos.line, d.items[0].pos.column), (17, 15));
    let rendered = d.to_string();
    assert!(rendered.contains("  --> g.yaml:17:15\n   |\n17 |         type: \"tranform\"\n   |               ^\n   = help: did you mean `transform`?"), "{rendered}");
}
