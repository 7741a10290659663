//! The JSON Logic compatibility suites (`testdata/jsonlogic`, all
//! suites in `index.json`), run through the evaluator of switch rules
//! (`evaluate_logic`).
//!
//! The reference is json-logic-js 2.0.5, the engine mcpGraph runs: every
//! case must give what it gives (`jsonlogic_reference.json`, recorded by
//! `scripts/jsonlogic_reference.js`): the same value, or an error where it
//! throws. The suites are newer than json-logic-js 2.0 and disagree with
//! it in places; every case that does not pass its suite must be listed,
//! with the reason, in `jsonlogic_known_failures.txt`; the test fails when
//! an unlisted case fails or a listed one passes.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use mcpgraph_runtime::testing::{OutcomeError, evaluate_logic};
use serde_json::Value;

use common::{check_against_known_failures, conformance_dir, json_equal};

/// The case's outcome against its suite, and against json-logic-js.
fn run(
    case: &serde_json::Map<String, Value>,
    reference: &Value,
) -> (Result<(), String>, Result<(), String>) {
    let Some(rule) = case.get("rule") else {
        return (
            Err("case has no rule".into()),
            Err("case has no rule".into()),
        );
    };
    let data = case.get("data").unwrap_or(&Value::Null);
    let outcome = evaluate_logic(rule, data);
    let as_reference = match (reference.get("result"), reference.get("error"), &outcome) {
        (Some(want), _, Ok(got)) if json_equal(got, want) => Ok(()),
        (None, Some(_), Err(_)) => Ok(()),
        (want, thrown, got) => Err(format!(
            "json-logic-js 2.0.5 gives {}, we give {got:?}",
            want.map_or_else(
                || format!("error {}", thrown.unwrap_or(&Value::Null)),
                Value::to_string
            )
        )),
    };
    (against_suite(case, outcome), as_reference)
}

fn against_suite(
    case: &serde_json::Map<String, Value>,
    outcome: Result<Value, OutcomeError>,
) -> Result<(), String> {
    match (case.get("result"), case.get("error"), outcome) {
        (Some(want), _, Ok(got)) if json_equal(&got, want) => Ok(()),
        (Some(want), _, Ok(got)) => Err(format!("expected {want}, got {got}")),
        (Some(want), _, Err(e)) => Err(format!("expected {want}, got error: {e}")),
        // The error must be the one expected (its `type`), not, say, the
        // rejection of an operator the runtime does not offer.
        (None, Some(want), Err(e)) => match want.get("type").and_then(Value::as_str) {
            Some(kind) if !e.to_string().contains(kind) => {
                Err(format!("expected error {want}, got error: {e}"))
            }
            _ => Ok(()),
        },
        (None, Some(want), Ok(got)) => Err(format!("expected error {want}, got {got}")),
        (None, None, _) => Err("case expects neither a result nor an error".into()),
    }
}

#[test]
fn jsonlogic_suites_through_the_switch_engine() {
    let root = conformance_dir().join("jsonlogic");
    let reference: BTreeMap<String, Value> = serde_json::from_str(
        &fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/jsonlogic_reference.json"),
        )
        .expect("the recorded json-logic-js outcomes read"),
    )
    .expect("jsonlogic_reference.json is an object");
    let mut unlike_reference = Vec::new();
    let index: Vec<String> = serde_json::from_str(
        &fs::read_to_string(root.join("index.json"))
            .expect("the JSON Logic suites are at testdata/jsonlogic"),
    )
    .expect("index.json is a list of suite files");

    // Case id `suite#n` (n counts the suite's cases from 1) -> outcome.
    let mut results: BTreeMap<String, Result<(), String>> = BTreeMap::new();
    for suite in &index {
        let text = fs::read_to_string(root.join(suite)).expect("suite reads");
        let items: Vec<Value> = serde_json::from_str(&text).expect("suite is a JSON array");
        let cases = items.iter().filter_map(Value::as_object);
        for (n, case) in cases.enumerate() {
            let description = case
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or("");
            let id = format!("{suite}#{:03}", n + 1);
            let recorded = reference.get(&id).unwrap_or(&Value::Null);
            let (outcome, as_reference) = run(case, recorded);
            if let Err(e) = as_reference {
                unlike_reference.push(format!(
                    "{id}: {}: {e}",
                    case.get("rule").unwrap_or(&Value::Null)
                ));
            }
            results.insert(id, outcome.map_err(|e| format!("{description}: {e}")));
        }
    }

    let passed = results.values().filter(|r| r.is_ok()).count();
    println!("JSON Logic conformance: {passed}/{} passed", results.len());
    assert_eq!(results.len(), 1138, "the suites hold 1138 cases");
    assert_eq!(
        reference.len(),
        results.len(),
        "a recorded outcome per case"
    );
    assert!(
        unlike_reference.is_empty(),
        "{} case(s) unlike json-logic-js 2.0.5:\n{}",
        unlike_reference.len(),
        unlike_reference.join("\n")
    );
    check_against_known_failures(
        &results,
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/jsonlogic_known_failures.txt"),
    );
}

/// Every operator FORMAT.md allows in a switch rule (json-logic-js 2.0's
/// set) is known to the engine, with json-logic-js's result.
#[test]
fn the_operator_set_of_format_md_evaluates_as_json_logic_js() {
    use serde_json::json;
    let data = json!({"x": 7, "s": "hello", "e": "", "a": [1, 2, 3], "o": {"k": null}});
    let cases = [
        (json!({"==": [1, "1"]}), json!(true)),
        (json!({"===": [1, "1"]}), json!(false)),
        (json!({"!=": [1, "1"]}), json!(false)),
        (json!({"!==": [1, "1"]}), json!(true)),
        (json!({">": [2, 1]}), json!(true)),
        (json!({">=": [1, 1]}), json!(true)),
        (json!({"<": [1, 2, 3]}), json!(true)),
        (json!({"<=": [1, 1, 0]}), json!(false)),
        (json!({"!": [[]]}), json!(true)),
        (json!({"!": [{}]}), json!(false)),
        (json!({"!!": [{}]}), json!(true)),
        (json!({"!!": ["0"]}), json!(true)),
        (json!({"or": [0, "", "x"]}), json!("x")),
        (json!({"and": [1, [], 2]}), json!([])),
        (json!({"?:": [{}, "yes", "no"]}), json!("yes")),
        (json!({"if": [[], "a", 0, "b", "c"]}), json!("c")),
        (json!({"in": ["ell", {"var": "s"}]}), json!(true)),
        (json!({"in": [2, {"var": "a"}]}), json!(true)),
        (json!({"cat": ["a", 1, null]}), json!("a1")),
        (json!({"substr": [{"var": "s"}, -3, 2]}), json!("ll")),
        (json!({"+": ["1", 2]}), json!(3)),
        (json!({"-": [{"var": "x"}]}), json!(-7)),
        (json!({"*": [2, "3"]}), json!(6)),
        (json!({"/": [7, 2]}), json!(3.5)),
        (json!({"%": [7, 4]}), json!(3)),
        (json!({"max": [1, 9, 3]}), json!(9)),
        (json!({"min": [4, -1]}), json!(-1)),
        (json!({"merge": [[1], 2, [[3]]]}), json!([1, 2, [3]])),
        (json!({"var": "o.k"}), json!(null)),
        (json!({"var": ["missing", "dflt"]}), json!("dflt")),
        (json!({"missing": ["x", "s", "nope"]}), json!(["nope"])),
        // json-logic-js counts a key whose value is null or "" as missing
        // (datalogic-rs's built-in counts both as present; the runtime
        // compiles `missing` to its own operator).
        (json!({"missing": ["o.k", "e"]}), json!(["o.k", "e"])),
        (json!({"missing": "e"}), json!(["e"])),
        (json!({"missing": [["x", "nope"], "e"]}), json!(["nope"])),
        (
            json!({"missing": ["a.1", "a.9", "a.length", "s.0", "s.99"]}),
            json!(["a.9", "s.99"]),
        ),
        (json!({"missing_some": [1, ["x", "nope"]]}), json!([])),
        (
            json!({"missing_some": [2, ["x", "nope", "e"]]}),
            json!(["nope", "e"]),
        ),
        (
            json!({"missing_some": [1, ["e", "o.k"]]}),
            json!(["e", "o.k"]),
        ),
        (
            json!({"if": [{"missing": "nope"}, "ask", "ok"]}),
            json!("ask"),
        ),
        (
            json!({"all": [{"var": "a"}, {">": [{"var": ""}, 0]}]}),
            json!(true),
        ),
        (
            json!({"some": [{"var": "a"}, {">": [{"var": ""}, 2]}]}),
            json!(true),
        ),
        (
            json!({"none": [{"var": "a"}, {">": [{"var": ""}, 2]}]}),
            json!(false),
        ),
        (
            json!({"map": [{"var": "a"}, {"*": [{"var": ""}, 2]}]}),
            json!([2, 4, 6]),
        ),
        (
            json!({"filter": [{"var": "a"}, {"%": [{"var": ""}, 2]}]}),
            json!([1, 3]),
        ),
        (
            json!({"reduce": [{"var": "a"}, {"+": [{"var": "current"}, {"var": "accumulator"}]}, 10]}),
            json!(16),
        ),
        (json!({"log": "traced"}), json!("traced")),
    ];
    let mut wrong = Vec::new();
    for (rule, want) in cases {
        match evaluate_logic(&rule, &data) {
            Ok(got) if json_equal(&got, &want) => {}
            other => wrong.push(format!("{rule}: expected {want}, got {other:?}")),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
