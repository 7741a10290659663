//! The tests of `error`.

use super::*;

#[test]
fn names_are_unique_and_read_back() {
    let mut seen = std::collections::BTreeSet::new();
    for kind in ErrorKind::all() {
        assert!(seen.insert(kind.as_str()), "{} twice", kind.as_str());
        assert_eq!(ErrorKind::from_name(kind.as_str()), Some(kind));
    }
    assert_eq!(ErrorKind::from_name("downstream"), None);
}

#[test]
fn serialises_with_kind_node_and_message() {
    let error = NodeError::new(
        ErrorKind::Downstream(Downstream::TimedOut),
        Some("fetch"),
        "no answer",
    );
    assert_eq!(
        serde_json::to_value(&error).unwrap(),
        serde_json::json!({"kind": "downstream.timeout", "node": "fetch", "message": "no answer"})
    );
    assert_eq!(error.to_string(), "node `fetch`: no answer");
}

#[test]
fn unknown_tool_names_are_cut_past_the_longest_tool_name() {
    let longest = "t".repeat(MAX_TOOL_NAME_SHOWN);
    assert_eq!(
        CallError::UnknownTool(longest.clone()).to_string(),
        format!("unknown tool `{longest}`")
    );
    // 127 ASCII bytes then a 2-byte character: cut before it.
    let name = format!("{}é{}", "x".repeat(127), "y".repeat(65_000));
    assert_eq!(
        CallError::UnknownTool(name).to_string(),
        format!("unknown tool `{}…` (65129 bytes)", "x".repeat(127))
    );
}
