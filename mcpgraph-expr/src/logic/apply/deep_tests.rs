//! Rules and data of any depth: refused or walked without recursion, never
//! a stack overflow (compilation and evaluation recurse on the rule, which
//! is bounded; nothing recurses on the data or on what `reduce` builds).

use jsonata_core::value::JValue;
use serde_json::{Value as Json, json};

use super::rule::{Logic, RuleError};
use super::testing::{OutcomeError, evaluate_logic, evaluate_lowered};
use crate::logic::{MAX_RULE_DEPTH, SLOT_KEY};

const DEEP: usize = 100_000;

/// `serde_json` drops values recursively: a deep one is taken apart here.
fn dismantle(value: Json) {
    let mut stack = vec![value];
    while let Some(mut value) = stack.pop() {
        match &mut value {
            Json::Array(items) => stack.append(items),
            Json::Object(map) => stack.extend(std::mem::take(map).into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

/// `{"!": [{"!": [... true ...]}]}`, `levels` operations deep (twice as
/// many levels of nesting).
fn nots(levels: usize) -> Json {
    // Built by hand: `json!` would copy `inner` (recursively).
    (0..levels).fold(json!(true), |inner, _| {
        Json::Object(
            [("!".to_owned(), Json::Array(vec![inner]))]
                .into_iter()
                .collect(),
        )
    })
}

fn nested_json(depth: usize) -> Json {
    (0..depth).fold(json!(1), |inner, _| Json::Array(vec![inner]))
}

fn nested_jvalue(depth: usize) -> JValue {
    (0..depth).fold(JValue::Number(1.0), |inner, _| JValue::array(vec![inner]))
}

fn slot(i: usize) -> Json {
    json!({"val": [SLOT_KEY, i.to_string()]})
}

#[test]
fn a_rule_deeper_than_the_limit_is_refused() {
    let deep = nots(DEEP);
    let err = evaluate_logic(&deep, &json!({})).unwrap_err();
    assert_eq!(err, OutcomeError::Rule(RuleError::TooDeep));
    assert!(err.to_string().contains("nests deeper than 64"), "{err}");
    assert!(Logic::compile(&deep).is_err());
    dismantle(deep);
    // At the limit, it runs: 32 `!` of `true`.
    let at_limit = nots(MAX_RULE_DEPTH / 2);
    assert_eq!(evaluate_logic(&at_limit, &json!({})), Ok(json!(true)));
    assert!(evaluate_logic(&nots(MAX_RULE_DEPTH / 2 + 1), &json!({})).is_err());
}

#[test]
fn deep_data_is_refused_or_walked_without_recursion() {
    let deep = nested_json(DEEP);
    let err = evaluate_logic(&json!({"var": ""}), &deep)
        .unwrap_err()
        .to_string();
    assert!(err.contains("data nests deeper"), "{err}");
    dismantle(deep);

    // A server bounds its values itself; the evaluator walks what it gets
    // without recursion: ToPrimitive (`==`, `<`), ToString (`cat`), `in`,
    // `merge`, `missing`.
    let slots = [nested_jvalue(DEEP)];
    let holds = |rule: Json| {
        Logic::compile(&rule)
            .unwrap()
            .decide(&slots, &slots[0])
            .unwrap()
    };
    assert!(holds(json!({"==": [slot(0), "1"]})));
    assert!(holds(json!({"<": [slot(0), 2]})));
    assert!(holds(json!({"==": [{"cat": [slot(0), "x"]}, "1x"]})));
    assert!(!holds(json!({"in": [1, slot(0)]})));
    assert!(holds(json!({"merge": [slot(0), slot(0)]})));
    // Nothing missing: `missing` gives `[]`, which `!` takes as false.
    assert!(holds(json!({"!": {"missing": ["0.0.0"]}})));
    // The differential entry point refuses it, as `evaluate_logic` does.
    let err = evaluate_lowered(&slot(0), &slots, &JValue::Null)
        .unwrap_err()
        .to_string();
    assert!(err.contains("nests deeper"), "{err}");
}

#[test]
fn values_reduce_nests_deeply_are_dropped_and_joined_without_recursion() {
    let data = json!({"items": vec![0; DEEP]});
    // Each step wraps the accumulator in an array: nested DEEP levels.
    let wrap = json!({"reduce": [{"var": "items"}, [{"var": "accumulator"}], null]});
    let err = evaluate_logic(&wrap, &data).unwrap_err();
    assert!(matches!(err, OutcomeError::Value(_)), "{err}");
    let err = err.to_string();
    assert!(err.contains("nests too deeply"), "{err}");
    let joined = json!({"cat": [wrap, "|"]});
    assert_eq!(evaluate_logic(&joined, &data), Ok(json!("|")));
    // Each step returns its scope, which holds the previous one.
    let scopes = json!({"reduce": [{"var": "items"}, {"var": ""}, 0]});
    assert!(evaluate_logic(&scopes, &data).is_err());
    let truthy = json!({"!!": [scopes]});
    assert_eq!(evaluate_logic(&truthy, &data), Ok(json!(true)));
}
