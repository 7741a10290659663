//! A case's `answers`: what the user answers the graph's `elicit` nodes,
//! by node id. Checked against the graph: each key is an `elicit` node, each
//! answer's `action` is accept, decline or cancel, and `content` (accept
//! only) fits the node's `requestedSchema`, each problem where it is
//! written. An answer whose node has no route for it is allowed: the call
//! then fails, and a case may expect that error.
//!
//! One answer is a mapping; a node reached more than once (a loop) takes a
//! list, one answer per time it asks, in order. Either way the runtime is
//! given a list.

use serde_json::{Map, Value as Json};

use crate::diag::Diagnostics;
use crate::diag::codes;
use crate::model::{GraphFile, NodeKind, Tool};
use crate::suggest::{list, suggest};
use crate::yaml::{Node, Value};

/// The keys of an answer.
const ANSWER_KEYS: &[&str] = &["action", "content"];
/// The actions of an answer.
const ACTIONS: &[&str] = &["accept", "decline", "cancel"];

/// Checks `answers` of a case calling `tool` (`None`: the case's tool is
/// unknown); the answers as the runtime reads them, or `None` if they have
/// errors (in `diags`).
pub(super) fn check(
    answers: &Node,
    tool: Option<&Tool>,
    graph: &GraphFile,
    diags: &mut Diagnostics,
) -> Option<Json> {
    let Value::Map(entries) = &answers.value else {
        diags
            .error(
                codes::WRONG_TYPE,
                answers.pos,
                format!("`answers` is a mapping, not {}", answers.value.kind()),
            )
            .help("answers by node id: `answers: { ask: { action: accept, content: { ... } } }`");
        return None;
    };
    let errors = diags.error_count();
    let mut out = Map::new();
    for (i, (key, value)) in entries.iter().enumerate() {
        let id = key.key_text();
        if let Some((first, _)) = entries[..i].iter().find(|(k, _)| k.key_text() == id) {
            diags
                .error(
                    codes::DUPLICATE_KEY,
                    key.pos,
                    format!("a second entry for `{id}` in `answers`"),
                )
                .note(format!("the first is at line {}", first.pos.line))
                .help("a node asked more than once takes a list of answers, in order");
            continue;
        }
        let Some((schema, line)) = elicit_node(&id, key, tool, graph, diags) else {
            continue;
        };
        let replies: Vec<&Node> = match &value.value {
            Value::Seq(items) if items.is_empty() => {
                diags
                    .error(
                        codes::EMPTY_ANSWERS,
                        value.pos,
                        format!("the list of answers for `{id}` is empty"),
                    )
                    .help("give one answer per time the node asks, or leave the node out");
                continue;
            }
            Value::Seq(items) => items.iter().collect(),
            _ => vec![value],
        };
        let checked: Vec<Json> = replies
            .into_iter()
            .filter_map(|reply| check_reply(reply, (&id, line), schema, diags))
            .collect();
        out.insert(id, checked.into());
    }
    (diags.error_count() == errors).then_some(Json::Object(out))
}

/// The `requestedSchema` of the `elicit` node `id` (`key` where it is
/// named) and its line in the graph file, looked for in `tool` and then
/// in the graph's other tools (a tool this one calls asks too); else an
/// error.
fn elicit_node<'g>(
    id: &str,
    key: &Node,
    tool: Option<&'g Tool>,
    graph: &'g GraphFile,
    diags: &mut Diagnostics,
) -> Option<(&'g Json, u32)> {
    let tools = || tool.into_iter().chain(graph.tools.iter());
    let found = tools().find_map(|t| t.nodes.iter().find(|n| n.id.value == id).map(|n| (t, n)));
    match found {
        Some((_, node)) => match &node.kind {
            NodeKind::Elicit { schema, .. } => Some((schema, node.id.pos.line)),
            other => {
                diags
                    .error(
                        codes::ANSWER_NOT_ELICIT, key.pos,
                        format!(
                            "node `{id}` is {} node, not an `elicit` node: only an `elicit` node asks the user",
                            kind_name(other)
                        ),
                    )
                    .note(format!("`{id}` is at line {} of the graph file", node.id.pos.line));
                None
            }
        },
        None => {
            let elicits: Vec<&str> = tools()
                .flat_map(|t| &t.nodes)
                .filter(|n| matches!(n.kind, NodeKind::Elicit { .. }))
                .map(|n| n.id.value.as_str())
                .fold(Vec::new(), |mut ids, id| {
                    if !ids.contains(&id) {
                        ids.push(id);
                    }
                    ids
                });
            let whose = tool.map_or("the graph".to_owned(), |t| {
                format!("tool `{}`", t.name.value)
            });
            let d = diags.error(
                codes::UNKNOWN_NODE,
                key.pos,
                format!("{whose} has no node `{id}` to answer"),
            );
            match (suggest(id, &elicits), elicits.is_empty()) {
                (Some(near), _) => d.help(format!("did you mean `{near}`?")),
                (None, true) => d.help("the graph has no `elicit` node: nothing asks the user"),
                (None, false) => d.help(format!("its `elicit` nodes are {}", list(&elicits))),
            };
            None
        }
    }
}

/// One answer to node `id` (at `line` of the graph file), whose form is
/// `schema`.
fn check_reply(
    reply: &Node,
    (id, line): (&str, u32),
    schema: &Json,
    diags: &mut Diagnostics,
) -> Option<Json> {
    let Value::Map(entries) = &reply.value else {
        diags
            .error(
                codes::WRONG_TYPE, reply.pos,
                format!("an answer is a mapping, not {}", reply.value.kind()),
            )
            .help("`{ action: accept, content: { ... } }`, `{ action: decline }` or `{ action: cancel }`");
        return None;
    };
    let errors = diags.error_count();
    let get = |name: &str| entries.iter().find(|(k, _)| k.key_text() == name);
    for (key, _) in entries {
        let text = key.key_text();
        if !ANSWER_KEYS.contains(&text.as_str()) {
            let d = diags.error(
                codes::UNKNOWN_KEY,
                key.pos,
                format!("unknown key `{text}` in an answer"),
            );
            match suggest(&text, ANSWER_KEYS) {
                Some(near) => d.help(format!("did you mean `{near}`?")),
                None => d.help(format!("an answer has {}", list(ANSWER_KEYS))),
            };
        }
    }
    let action = match get("action").map(|(_, v)| v) {
        None => {
            diags
                .error(
                    codes::MISSING_FIELD,
                    reply.pos,
                    format!("the answer to `{id}` has no `action`"),
                )
                .help(format!("`action` is {}", list(ACTIONS)));
            None
        }
        Some(Node {
            value: Value::String(action),
            ..
        }) if ACTIONS.contains(&action.as_str()) => Some(action.as_str()),
        Some(node) => {
            let text = match &node.value {
                Value::String(s) => s.clone(),
                _ => node.to_json().to_string(),
            };
            let d = diags.error(
                codes::ANSWER_ACTION,
                node.pos,
                format!("unknown action `{text}`"),
            );
            match suggest(&text, ACTIONS) {
                Some(near) => d.help(format!("did you mean `{near}`?")),
                None => d.help(format!("an answer's `action` is {}", list(ACTIONS))),
            };
            None
        }
    };
    let content = get("content");
    match (action, content) {
        (Some("accept"), content) => {
            let fields = content.map(|(_, v)| v);
            check_content(
                fields.unwrap_or(reply),
                fields.is_some(),
                (id, line),
                schema,
                diags,
            );
        }
        (Some(action), Some((key, _))) => {
            diags
                .error(
                    codes::ANSWER_ACTION,
                    key.pos,
                    format!("`content` with `action: {action}`"),
                )
                .help("only an accepted answer has `content`: the form's fields");
        }
        _ => {}
    }
    (diags.error_count() == errors).then(|| reply.to_json())
}

/// An accepted answer's `content` (`given`: written at `node`; else
/// `node` is the answer, and the content is `{}`) against the form.
fn check_content(
    node: &Node,
    given: bool,
    (id, line): (&str, u32),
    schema: &Json,
    diags: &mut Diagnostics,
) {
    let content = if given {
        node.to_json()
    } else {
        Json::Object(Map::new())
    };
    if given && !content.is_object() {
        diags.error(
            codes::WRONG_TYPE,
            node.pos,
            format!("`content` is a mapping, not {}", node.value.kind()),
        );
        return;
    }
    for (at, place, error) in super::schema_misses(schema, &content, node, given) {
        diags
            .error(
                codes::INVALID_ANSWER,
                at,
                format!("the answer does not fit `{id}`'s requestedSchema{place}: {error}"),
            )
            .note(format!("`{id}` is at line {line} of the graph file"));
    }
}

/// "a `transform`", as a node of `kind` is named in a message.
fn kind_name(kind: &NodeKind) -> &'static str {
    match kind {
        NodeKind::Entry { .. } => "an `entry`",
        NodeKind::Exit => "an `exit`",
        NodeKind::Transform { .. } => "a `transform`",
        NodeKind::Mcp { .. } => "an `mcp`",
        NodeKind::Switch { .. } => "a `switch`",
        NodeKind::Parallel { .. } => "a `parallel`",
        NodeKind::ForEach { .. } => "a `forEach`",
        NodeKind::Elicit { .. } => "an `elicit`",
    }
}

#[cfg(test)]
mod tests;
