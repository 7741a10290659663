//! A tool's MCP annotations: derived from the lock's annotations of the
//! downstream tools its `mcp` nodes call, then overridden by the graph's
//! `annotations:` (FORMAT.md, "Tools", has the rule).
//!
//! A downstream tool in the lock has its hints, MCP's defaults filling
//! the ones it leaves out (`readOnlyHint` false, `destructiveHint` true,
//! `idempotentHint` false, `openWorldHint` true): that is what its server
//! published. A call the lock does not know (no lock, a server or tool not
//! in it) is unknown, and a hint that an unknown call could change is not
//! derived: the client then applies MCP's default, the cautious value.
//! `idempotentHint` is derived only for a read-only tool: a sequence of
//! idempotent calls is not idempotent in general (a later call can read
//! what an earlier one wrote).

use serde_json::{Map, Value};

use crate::lock::Lock;
use crate::model::{NodeKind, Tool, ToolAnnotations};

/// One call's hints, MCP's defaults applied.
#[derive(Clone, Copy)]
struct Hints {
    read_only: bool,
    destructive: bool,
    open_world: bool,
}

/// The annotations derived for `tool` from `lock` (`None`: no lock).
pub(crate) fn derive(tool: &Tool, lock: Option<&Lock>) -> ToolAnnotations {
    let calls: Vec<Option<Hints>> = tool
        .nodes
        .iter()
        .filter_map(|n| match &n.kind {
            NodeKind::Mcp { server, tool, .. } => Some(
                lock.and_then(|l| l.servers.get(&server.value))
                    .and_then(|s| s.tools.get(&tool.value))
                    .map(|t| hints(t.annotations.as_ref())),
            ),
            _ => None,
        })
        .collect();
    let known: Vec<Hints> = calls.iter().flatten().copied().collect();
    let all_known = known.len() == calls.len();
    // `Some(true)` when any known call has it, `Some(false)` when every
    // call is known and none has it, `None` otherwise.
    let any = |has: fn(&Hints) -> bool| {
        if known.iter().any(has) {
            Some(true)
        } else {
            all_known.then_some(false)
        }
    };
    let read_only = if known.iter().any(|h| !h.read_only) {
        Some(false)
    } else {
        all_known.then_some(true)
    };
    ToolAnnotations {
        title: None,
        read_only,
        destructive: any(|h| h.destructive),
        idempotent: (read_only == Some(true)).then_some(true),
        open_world: any(|h| h.open_world),
    }
}

/// One locked tool's hints, from its `annotations` object.
fn hints(annotations: Option<&Value>) -> Hints {
    let hint = |key: &str, default: bool| {
        annotations
            .and_then(|a| a.get(key))
            .and_then(Value::as_bool)
            .unwrap_or(default)
    };
    let read_only = hint("readOnlyHint", false);
    Hints {
        read_only,
        // Meaningful only for a tool that writes.
        destructive: !read_only && hint("destructiveHint", true),
        open_world: hint("openWorldHint", true),
    }
}

/// The `annotations` object `tools/list` gives for `tool`: the derived
/// hints with the graph's overrides on top; `None` when it has none.
pub(crate) fn listed(tool: &Tool, lock: Option<&Lock>) -> Option<Value> {
    let derived = derive(tool, lock);
    let set = &tool.annotations;
    let mut map = Map::new();
    if let Some(title) = set.title.as_ref().or(derived.title.as_ref()) {
        map.insert("title".into(), Value::String(title.clone()));
    }
    let read_only = set.read_only.or(derived.read_only);
    // A `readOnlyHint` the graph sets against the derived one voids what
    // was derived from it; a read-only tool neither destroys nor repeats
    // an effect.
    let (mut destructive, mut idempotent) = match set.read_only {
        Some(ro) if Some(ro) != derived.read_only => (None, None),
        _ => (derived.destructive, derived.idempotent),
    };
    if read_only == Some(true) {
        (destructive, idempotent) = (Some(false), Some(true));
    }
    for (key, value) in [
        ("readOnlyHint", read_only),
        ("destructiveHint", set.destructive.or(destructive)),
        ("idempotentHint", set.idempotent.or(idempotent)),
        ("openWorldHint", set.open_world.or(derived.open_world)),
    ] {
        if let Some(value) = value {
            map.insert(key.into(), Value::Bool(value));
        }
    }
    (!map.is_empty()).then_some(Value::Object(map))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lock::{ServerLock, ToolLock};
    use serde_json::json;

    /// A lock of server `s` with tools `name: annotations` (`null`: none).
    fn lock(tools: Value) -> Lock {
        let mut lock = Lock::default();
        let mut server = ServerLock::default();
        for (name, annotations) in tools.as_object().unwrap() {
            let mut tool = json!({"name": name, "inputSchema": {"type": "object"}});
            if !annotations.is_null() {
                tool["annotations"] = annotations.clone();
            }
            server
                .tools
                .insert(name.clone(), ToolLock::from_listed(&tool));
        }
        lock.servers.insert("s".into(), server);
        lock
    }

    /// A tool calling `calls` (tool names on server `s`), then `extra`
    /// tool-level YAML.
    fn tool(calls: &[&str], extra: &str) -> Tool {
        let mut nodes = String::from("      - {id: entry, type: entry, next: n0}\n");
        for (i, call) in calls.iter().enumerate() {
            nodes.push_str(&format!(
                "      - {{id: n{i}, type: mcp, server: s, tool: {call}, next: n{}}}\n",
                i + 1
            ));
        }
        nodes.push_str(&format!(
            "      - {{id: n{}, type: transform, transform: {{expr: '1'}}, next: exit}}\n      - {{id: exit, type: exit}}\n",
            calls.len()
        ));
        let src = format!(
            "version: '1'\nserver: {{name: x, version: '1'}}\nmcpServers:\n  s: {{command: c}}\ntools:\n  - name: t\n    description: d\n    inputSchema: {{type: object}}\n{extra}    nodes:\n{nodes}"
        );
        let mut file = crate::load_str(&src, "g.yaml").unwrap_or_else(|d| panic!("{d}"));
        file.tools.remove(0)
    }

    const READ: &str = r#"{"readOnlyHint": true, "openWorldHint": false}"#;

    fn listed_for(calls: &[&str], extra: &str, lock_json: &str) -> Option<Value> {
        let lock = lock(serde_json::from_str(lock_json).unwrap());
        listed(&tool(calls, extra), Some(&lock))
    }

    #[test]
    fn every_call_read_only_makes_a_read_only_tool() {
        let locked = format!(r#"{{"a": {READ}, "b": {READ}}}"#);
        assert_eq!(
            listed_for(&["a", "b"], "", &locked),
            Some(json!({"readOnlyHint": true, "destructiveHint": false,
                        "idempotentHint": true, "openWorldHint": false}))
        );
    }

    #[test]
    fn one_writing_call_decides_and_missing_hints_take_mcp_defaults() {
        // `w` says nothing: MCP's defaults (writes, destructive, open world).
        let locked = format!(r#"{{"a": {READ}, "w": null}}"#);
        assert_eq!(
            listed_for(&["a", "w"], "", &locked),
            Some(json!({"readOnlyHint": false, "destructiveHint": true, "openWorldHint": true}))
        );
        let locked = format!(
            r#"{{"a": {READ}, "w": {{"destructiveHint": false, "openWorldHint": false}}}}"#
        );
        assert_eq!(
            listed_for(&["a", "w"], "", &locked),
            Some(json!({"readOnlyHint": false, "destructiveHint": false, "openWorldHint": false}))
        );
    }

    #[test]
    fn unknown_calls_leave_their_hints_out() {
        // `u` is not in the lock: only what `w` alone decides is derived.
        let locked = r#"{"w": {"destructiveHint": true, "openWorldHint": false}}"#;
        assert_eq!(
            listed_for(&["w", "u"], "", locked),
            Some(json!({"readOnlyHint": false, "destructiveHint": true}))
        );
        let locked = format!(r#"{{"a": {READ}}}"#);
        assert_eq!(listed_for(&["a", "u"], "", &locked), None);
        // No lock at all: nothing is known about any call.
        assert_eq!(listed(&tool(&["a"], ""), None), None);
    }

    #[test]
    fn a_tool_without_calls_is_read_only_and_closed() {
        assert_eq!(
            listed(&tool(&[], ""), None),
            Some(json!({"readOnlyHint": true, "destructiveHint": false,
                        "idempotentHint": true, "openWorldHint": false}))
        );
    }

    #[test]
    fn the_graph_overrides_each_hint() {
        let extra = "    annotations: {title: Writer, readOnlyHint: false, idempotentHint: true}\n";
        let locked = format!(r#"{{"a": {READ}}}"#);
        assert_eq!(
            listed_for(&["a"], extra, &locked),
            Some(json!({"title": "Writer", "readOnlyHint": false,
                        "idempotentHint": true, "openWorldHint": false}))
        );
        // Said read-only against a writing call: no longer destructive.
        let extra = "    annotations: {readOnlyHint: true}\n";
        assert_eq!(
            listed_for(&["w"], extra, r#"{"w": null}"#),
            Some(json!({"readOnlyHint": true, "destructiveHint": false,
                        "idempotentHint": true, "openWorldHint": true}))
        );
        let extra = "    annotations: {openWorldHint: false}\n";
        assert_eq!(
            listed(&tool(&["a"], extra), None),
            Some(json!({"openWorldHint": false}))
        );
    }
}
