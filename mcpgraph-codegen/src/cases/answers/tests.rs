//! The checks of a case's `answers` against a small graph.

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
    let checked = crate::cases::check(&text, "g.test.yaml", &graph(), &mut diags);
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
                "unknown key `contnet` in an answer | Some(\"did you mean `content`?\")".to_owned()
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

#[test]
fn a_node_answered_twice_is_refused() {
    let errors =
        check("      ask: { action: cancel }\n      ask: { action: decline }\n").unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!((errors[0].0, errors[0].1), (6, 7));
    assert!(
        errors[0]
            .2
            .starts_with("a second entry for `ask` in `answers`"),
        "{errors:?}"
    );
}
