//! How a server's new listing differs from its lock, and which of the
//! differences break the graph's calls.
//!
//! A change *matters* when a call that worked against the lock can fail
//! against the server now: a tool removed, a property added to `required`,
//! a property's type changed, a property the graph passes removed from a
//! closed schema. Everything else (descriptions, titles, annotations, new
//! tools, the server's version) is *cosmetic*: reported, failing only
//! under `--strict`. So is any change to a tool no node calls (in an `mcp`
//! node, a `parallel` branch or a `forEach` call), its removal included:
//! it cannot affect the graph.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{ServerLock, ToolLock};
use crate::model::{Arg, GraphFile, Place};

/// One call of a downstream tool (an `mcp` node's, a `parallel` branch's
/// or a `forEach` node's), as the drift check needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Use {
    /// The graph's tool holding the node.
    pub graph_tool: String,
    /// The node's id.
    pub node: String,
    /// Where the call stands in the node.
    pub place: Place,
    /// Its `server`.
    pub server: String,
    /// Its `tool`.
    pub tool: String,
    /// The keys of its `args` object; `None` when `args` is one `{expr}`
    /// (the keys are known only at run time).
    pub arg_keys: Option<Vec<String>>,
}

impl Use {
    /// How a report names the call: `t/list` for an `mcp` node,
    /// `t/gather (branch `now`)`, `t/each (item call)`.
    pub fn caller(&self) -> String {
        match self.place {
            Place::Node => format!("{}/{}", self.graph_tool, self.node),
            ref place => format!("{}/{} ({place})", self.graph_tool, self.node),
        }
    }
}

/// Every call of a downstream tool in `file`, wherever it stands.
pub fn uses(file: &GraphFile) -> Vec<Use> {
    let mut out = Vec::new();
    for graph_tool in &file.tools {
        for node in &graph_tool.nodes {
            for call in node.kind.every_call() {
                let Some(server) = call.server else {
                    continue;
                };
                out.push(Use {
                    graph_tool: graph_tool.name.value.clone(),
                    node: node.id.value.clone(),
                    place: call.place,
                    server: server.value.clone(),
                    tool: call.tool.value.clone(),
                    arg_keys: match call.args {
                        Arg::Object(fields) => {
                            Some(fields.iter().map(|(k, _)| k.value.clone()).collect())
                        }
                        Arg::Expr(_) => None,
                        Arg::Array(_) | Arg::Literal(_) => Some(Vec::new()),
                    },
                });
            }
        }
    }
    out
}

/// One difference between a lock and a new listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// The tool it is about; `None` for the server itself.
    pub tool: Option<String>,
    /// What changed, as a sentence.
    pub what: String,
    /// Whether it can make a call fail (see the module docs).
    pub matters: bool,
    /// The calls of the tool that this change breaks, as [`Use::caller`]
    /// names them.
    pub breaks: Vec<String>,
}

/// The changes from `old` to `new` for the server `server`, with the calls
/// of `uses` that each breaks.
pub fn diff(server: &str, old: &ServerLock, new: &ServerLock, uses: &[Use]) -> Vec<Change> {
    let mut changes = Vec::new();
    let mut server_change = |what: String| {
        changes.push(Change {
            tool: None,
            what,
            matters: false,
            breaks: Vec::new(),
        })
    };
    if old.server_info != new.server_info {
        server_change(format!(
            "serverInfo {} → {}",
            old.server_info, new.server_info
        ));
    }
    if old.protocol_version != new.protocol_version {
        server_change(format!(
            "protocol version {} → {}",
            old.protocol_version, new.protocol_version
        ));
    }
    let callers = |tool: &str| -> Vec<&Use> {
        uses.iter()
            .filter(|u| u.server == server && u.tool == tool)
            .collect()
    };
    for (name, old_tool) in &old.tools {
        let calls = callers(name);
        match new.tools.get(name) {
            None => changes.push(Change {
                tool: Some(name.clone()),
                what: "removed".into(),
                matters: true,
                breaks: node_names(&calls),
            }),
            Some(new_tool) => tool_diff(name, old_tool, new_tool, &calls, &mut changes),
        }
        if calls.is_empty() {
            uncalled(name, &mut changes);
        }
    }
    for name in new.tools.keys().filter(|n| !old.tools.contains_key(*n)) {
        changes.push(Change {
            tool: Some(name.clone()),
            what: "added".into(),
            matters: false,
            breaks: Vec::new(),
        });
    }
    changes
}

/// Makes the changes to `tool`, which no node calls, cosmetic, saying why
/// where they would have mattered.
fn uncalled(tool: &str, changes: &mut [Change]) {
    for change in changes
        .iter_mut()
        .filter(|c| c.matters && c.tool.as_deref() == Some(tool))
    {
        change.matters = false;
        change.what.push_str(" (no node calls it)");
    }
}

fn node_names(calls: &[&Use]) -> Vec<String> {
    calls.iter().map(|u| u.caller()).collect()
}

fn tool_diff(name: &str, old: &ToolLock, new: &ToolLock, calls: &[&Use], out: &mut Vec<Change>) {
    let mut push = |what: String, matters: bool, breaks: Vec<String>| {
        out.push(Change {
            tool: Some(name.to_owned()),
            what,
            matters,
            breaks,
        })
    };
    let (old_in, new_in) = (&old.input_schema, &new.input_schema);
    for added in required(new_in).difference(&required(old_in)) {
        // A call breaks unless it already passes the property (or its keys
        // are known only at run time).
        let breaks = calls
            .iter()
            .filter(|u| u.arg_keys.as_ref().is_some_and(|k| !k.contains(added)))
            .copied()
            .collect::<Vec<_>>();
        push(
            format!("`{added}` is now required"),
            true,
            node_names(&breaks),
        );
    }
    for dropped in required(old_in).difference(&required(new_in)) {
        push(
            format!("`{dropped}` is no longer required"),
            false,
            Vec::new(),
        );
    }
    let closed = new_in.get("additionalProperties") == Some(&Value::Bool(false));
    for (property, old_schema) in properties(old_in) {
        let passes = |u: &&&Use| u.arg_keys.as_ref().is_some_and(|k| k.contains(property));
        match new_in.pointer(&format!("/properties/{}", pointer_escape(property))) {
            None => {
                let breaks: Vec<&Use> = calls.iter().filter(passes).copied().collect();
                let matters = closed && !breaks.is_empty();
                push(
                    format!("input property `{property}` removed"),
                    matters,
                    if matters {
                        node_names(&breaks)
                    } else {
                        Vec::new()
                    },
                );
            }
            Some(new_schema) if old_schema.get("type") != new_schema.get("type") => {
                let breaks: Vec<&Use> = calls.iter().filter(passes).copied().collect();
                push(
                    format!(
                        "type of input property `{property}`: {} → {}",
                        type_text(old_schema),
                        type_text(new_schema)
                    ),
                    true,
                    node_names(&breaks),
                );
            }
            Some(_) => {}
        }
    }
    for property in properties(new_in).map(|(p, _)| p) {
        if old_in
            .pointer(&format!("/properties/{}", pointer_escape(property)))
            .is_none()
        {
            push(
                format!("input property `{property}` added"),
                false,
                Vec::new(),
            );
        }
    }
    if closed && old_in.get("additionalProperties") != Some(&Value::Bool(false)) {
        let known: BTreeSet<&String> = properties(new_in).map(|(p, _)| p).collect();
        let breaks: Vec<&Use> = calls
            .iter()
            .filter(|u| {
                u.arg_keys
                    .as_ref()
                    .is_some_and(|k| k.iter().any(|k| !known.contains(k)))
            })
            .copied()
            .collect();
        push(
            "input schema closed (additionalProperties: false)".into(),
            !breaks.is_empty(),
            node_names(&breaks),
        );
    }
    output_diff(old, new, calls, &mut push);
    if old.description != new.description {
        push("description changed".into(), false, Vec::new());
    }
    if old.title != new.title {
        push("title changed".into(), false, Vec::new());
    }
    if old.annotations != new.annotations {
        push("annotations changed".into(), false, Vec::new());
    }
    if out.last().is_none_or(|c| c.tool.as_deref() != Some(name)) && old != new {
        out.push(Change {
            tool: Some(name.to_owned()),
            what: "schema changed (descriptions or other keywords)".into(),
            matters: false,
            breaks: Vec::new(),
        });
    }
}

/// Output schema drift: a property removed or retyped can break a path the
/// graph reads, so it matters for every caller.
fn output_diff(
    old: &ToolLock,
    new: &ToolLock,
    calls: &[&Use],
    push: &mut impl FnMut(String, bool, Vec<String>),
) {
    match (&old.output_schema, &new.output_schema) {
        (Some(_), None) => push("output schema removed".into(), false, Vec::new()),
        (None, Some(_)) => push("output schema added".into(), false, Vec::new()),
        (Some(old_out), Some(new_out)) => {
            for (property, old_schema) in properties(old_out) {
                let path = format!("/properties/{}", pointer_escape(property));
                match new_out.pointer(&path) {
                    None => push(
                        format!("output property `{property}` removed"),
                        true,
                        node_names(calls),
                    ),
                    Some(new_schema) if old_schema.get("type") != new_schema.get("type") => push(
                        format!(
                            "type of output property `{property}`: {} → {}",
                            type_text(old_schema),
                            type_text(new_schema)
                        ),
                        true,
                        node_names(calls),
                    ),
                    Some(_) => {}
                }
            }
        }
        (None, None) => {}
    }
}

fn required(schema: &Value) -> BTreeSet<String> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

fn properties(schema: &Value) -> impl Iterator<Item = (&String, &Value)> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
}

fn type_text(schema: &Value) -> String {
    schema
        .get("type")
        .map_or_else(|| "any".to_owned(), Value::to_string)
}

fn pointer_escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
#[path = "drift_tests.rs"]
mod tests;
