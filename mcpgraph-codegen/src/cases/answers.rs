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
                answers.pos,
                format!("`answers` is a mapping, not {}", answers.value.kind()),
            )
            .help("answers by node id: `answers: { ask: { action: accept, content: { ... } } }`");
        return None;
    };
    let errors = diags.error_count();
    let mut out = Map::new();
    for (key, value) in entries {
        let id = key.key_text();
        let Some((schema, line)) = elicit_node(&id, key, tool, graph, diags) else {
            continue;
        };
        let replies: Vec<&Node> = match &value.value {
            Value::Seq(items) if items.is_empty() => {
                diags
                    .error(
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
/// named) and its line in the graph file, looked for in `tool` and then in the graph's other tools (a
/// tool this one calls asks too); else an error.
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
                        key.pos,
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
            let d = diags.error(key.pos, format!("{whose} has no node `{id}` to answer"));
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
                reply.pos,
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
            let d = diags.error(key.pos, format!("unknown key `{text}` in an answer"));
            match suggest(&text, ANSWER_KEYS) {
                Some(near) => d.help(format!("did you mean `{near}`?")),
                None => d.help(format!("an answer has {}", list(ANSWER_KEYS))),
            };
        }
    }
    let action = match get("action").map(|(_, v)| v) {
        None => {
            diags
                .error(reply.pos, format!("the answer to `{id}` has no `action`"))
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
            let d = diags.error(node.pos, format!("unknown action `{text}`"));
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
                .error(key.pos, format!("`content` with `action: {action}`"))
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
            node.pos,
            format!("`content` is a mapping, not {}", node.value.kind()),
        );
        return;
    }
    let Ok(validator) = jsonschema::validator_for(schema) else {
        return;
    };
    for error in validator.iter_errors(&content) {
        let path = error.instance_path().to_string();
        let at = if given {
            crate::lower::schema::locate(node, &path).pos
        } else {
            node.pos
        };
        let place = if path.is_empty() {
            String::new()
        } else {
            format!(" at `{path}`")
        };
        diags
            .error(
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
mod tests {
    use crate::diag::Diagnostics;
    use crate::test_support::{load, with_nodes};

    /// A tool `t` asking node `ask` for a timezone (required, one of two)
    /// and an optional integer; `note` is a transform.
    fn graph() -> crate::model::GraphFile {
        load(&with_nodes(
            "      - { id: entry, type: entry, next: ask }\n      - id: ask\n        type: elicit\n        message: Your timezone?\n        requestedSchema:\n          type: object\n          properties:\n            timezone: { type: string, enum: [Europe/Paris, UTC] }\n            days: { type: integer }\n          required: [timezone]\n        routes: { accept: note, cancel: exit }\n      - { id: note, type: transform, transform: { expr: '$.ask' }, next: exit }\n      - { id: exit, type: exit }\n",
        ))
    }

    /// The test file whose one case has `answers` (lines indented by six
    /// spaces, from line 5): its errors as `(line, column, message)`, or
    /// the embedded answers.
    fn check(answers: &str) -> Result<serde_json::Value, Vec<(u32, u32, String)>> {
        let text = format!(
            "cases:\n  - name: c\n    tool: t\n    answers:\n{answers}    expect: {{ output: 1 }}\n"
        );
        let mut diags = Diagnostics::new("g.test.yaml", &text);
        let checked = super::super::check(&text, "g.test.yaml", &graph(), &mut diags);
        diags.sort();
        match checked {
            Some(json) => {
                let json: serde_json::Value = serde_json::from_str(&json).unwrap();
                Ok(json["cases"][0]["answers"].clone())
            }
            None => Err(diags
                .items
                .iter()
                .map(|d| {
                    (
                        d.pos.line,
                        d.pos.column,
                        format!("{} | {:?}", d.message, d.help),
                    )
                })
                .collect()),
        }
    }

    #[test]
    fn answers_of_each_action_and_a_list_are_embedded_as_lists() {
        let one = check("      ask: { action: accept, content: { timezone: Europe/Paris } }\n");
        assert_eq!(
            one,
            Ok(
                serde_json::json!({ "ask": [{ "action": "accept", "content": { "timezone": "Europe/Paris" } }] })
            )
        );
        let many = check(
            "      ask:\n        - { action: decline }\n        - { action: cancel }\n        - { action: accept, content: { timezone: UTC, days: 3 } }\n",
        );
        assert_eq!(many.unwrap()["ask"].as_array().unwrap().len(), 3);
    }

    #[test]
    fn an_unknown_node_is_refused_with_the_nearest_elicit_node() {
        let errors = check("      aks: { action: cancel }\n").unwrap_err();
        assert_eq!(
            errors,
            [(
                5,
                7,
                "tool `t` has no node `aks` to answer | Some(\"did you mean `ask`?\")".to_owned()
            )]
        );
    }

    #[test]
    fn a_node_that_is_not_an_elicit_node_is_refused() {
        let errors = check("      note: { action: accept }\n").unwrap_err();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!((errors[0].0, errors[0].1), (5, 7));
        assert!(
            errors[0]
                .2
                .starts_with("node `note` is a `transform` node, not an `elicit` node"),
            "{errors:?}"
        );
    }

    #[test]
    fn an_unknown_action_or_key_is_refused_with_a_suggestion() {
        let errors = check("      ask: { action: acept, contnet: {} }\n").unwrap_err();
        assert_eq!(
            errors,
            [
                (
                    5,
                    22,
                    "unknown action `acept` | Some(\"did you mean `accept`?\")".to_owned()
                ),
                (
                    5,
                    29,
                    "unknown key `contnet` in an answer | Some(\"did you mean `content`?\")"
                        .to_owned()
                ),
            ]
        );
    }

    #[test]
    fn content_must_fit_the_form_and_come_with_accept_only() {
        let errors = check(
            "      ask:\n        - { action: accept, content: { timezone: Mars, days: two } }\n        - { action: accept }\n        - { action: decline, content: { timezone: UTC } }\n",
        )
        .unwrap_err();
        let at: Vec<(u32, u32)> = errors.iter().map(|e| (e.0, e.1)).collect();
        assert_eq!(at, [(6, 50), (6, 62), (7, 11), (8, 30)], "{errors:#?}");
        assert!(
            errors[0]
                .2
                .contains("`ask`'s requestedSchema at `/timezone`: \"Mars\" is not one of"),
            "{errors:#?}"
        );
        assert!(
            errors[1]
                .2
                .contains("at `/days`: \"two\" is not of type \"integer\""),
            "{errors:#?}"
        );
        assert!(
            errors[2].2.contains("\"timezone\" is a required property"),
            "{errors:#?}"
        );
        assert!(
            errors[3].2.starts_with("`content` with `action: decline`"),
            "{errors:#?}"
        );
    }

    /// An answer the node has no route for is allowed: the call fails, and
    /// the case may expect that.
    #[test]
    fn an_answer_without_a_route_is_allowed() {
        assert!(check("      ask: { action: decline }\n").is_ok());
    }

    #[test]
    fn answers_of_the_wrong_shape_are_refused() {
        let errors = check("      ask: []\n").unwrap_err();
        assert_eq!(
            errors[0].2,
            "the list of answers for `ask` is empty | Some(\"give one answer per time the node asks, or leave the node out\")"
        );
        let errors = check("      ask: accept\n").unwrap_err();
        assert!(
            errors[0]
                .2
                .starts_with("an answer is a mapping, not a string"),
            "{errors:?}"
        );
    }
}
