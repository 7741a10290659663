//! Switch semantics of FORMAT.md, table-driven, through the runtime's
//! engine: `var` as JSONata against the context (also inside iterating
//! operators), loose comparison as json-logic-js, JavaScript truthiness of
//! a rule's value, missing values, rule order, the default `next`, and
//! every operator of the allowed set. The graphs are in
//! `graphs/switch_semantics.yaml`; the chained tools report, per check,
//! whether its rule held.

use mcpgraph::{CancellationToken, Engine};
use serde_json::{Value, json};

mod graph {
    mcpgraph::mcpgraph!("graphs/switch_semantics.yaml");
}

type Server = graph::Server;

fn engine() -> Engine {
    Engine::start::<Server>(vec![], 1).expect("engine starts")
}

async fn call(engine: &Engine, tool: &str, args: Value) -> Value {
    engine
        .call(tool, args.as_object().cloned(), CancellationToken::new())
        .await
        .unwrap_or_else(|e| panic!("{tool} {args}: {e}"))
}

/// Runs `tool` for each `(args, expected)` row and reports every mismatch
/// at once.
async fn table(engine: &Engine, tool: &str, rows: &[(Value, Value)]) {
    let mut wrong = Vec::new();
    for (args, expected) in rows {
        let got = engine
            .call(tool, args.as_object().cloned(), CancellationToken::new())
            .await
            .unwrap_or_else(|e| json!(format!("error: {e}")));
        if &got != expected {
            wrong.push(format!("{tool} {args}: expected {expected}, got {got}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// For the chained tools: `expected` lists the checks that hold; all the
/// others must not.
fn holding(checks: &[&str], expected: &[&str]) -> Value {
    Value::Object(
        checks
            .iter()
            .map(|c| (c.to_string(), json!(expected.contains(c))))
            .collect(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rule_value_is_truthy_as_in_javascript() {
    let e = engine();
    let rows: Vec<(Value, Value)> = [
        (json!({"v": []}), "yes"),
        (json!({"v": {}}), "yes"),
        (json!({"v": [0]}), "yes"),
        (json!({"v": "0"}), "yes"),
        (json!({"v": "false"}), "yes"),
        (json!({"v": 1}), "yes"),
        (json!({"v": -1}), "yes"),
        (json!({"v": 0.5}), "yes"),
        (json!({"v": 0}), "no"),
        (json!({"v": 0.0}), "no"),
        (json!({"v": ""}), "no"),
        (json!({"v": false}), "no"),
        (json!({"v": null}), "no"),
        (json!({}), "no"),
    ]
    .into_iter()
    .map(|(args, route)| (args, json!(route)))
    .collect();
    table(&e, "truthy", &rows).await;

    // Values that operators compute: the rule's value is judged by
    // JavaScript truthiness, operators inside it by json-logic-js's
    // (where [] is false but {} true).
    let checks = [
        "empty_merge",
        "empty_cat",
        "zero",
        "empty_map",
        "nothing_missing",
        "not_empty_array",
        "double_not_empty_array",
        "double_not_empty_object",
        "if_on_empty_array",
        "if_to_empty_string",
        "and_stops_at_empty_array",
        "or_ends_at_zero",
        "half",
        "string_zero",
    ];
    let holds = [
        "empty_merge",
        "empty_map",
        "nothing_missing",
        "not_empty_array",
        "double_not_empty_object",
        "if_on_empty_array",
        "and_stops_at_empty_array",
        "half",
        "string_zero",
    ];
    table(
        &e,
        "rule_values",
        &[(json!({"empty_object": {}}), holding(&checks, &holds))],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn conditions_are_tried_in_order_then_the_default() {
    let e = engine();
    let rows: Vec<(Value, Value)> = [
        (json!({"n": 11}), "big"),
        (json!({"n": 7.5}), "medium"),
        (json!({"n": 6}), "medium"),
        (json!({"n": 5}), "small"),
        (json!({"n": 3}), "three"),
        (json!({"n": "3"}), "three"),
        (json!({"n": "20"}), "big"),
        (json!({"n": 0}), "small"),
        (json!({}), "small"),
    ]
    .into_iter()
    .map(|(args, route)| (args, json!(route)))
    .collect();
    table(&e, "order", &rows).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn missing_reads_the_context_by_path() {
    let e = engine();
    let rows: Vec<(Value, Value)> = [
        (json!({"a": 1, "b": 2}), "both"),
        (json!({"a": false, "b": 0}), "both"),
        (json!({"a": 1}), "one"),
        (json!({"b": 0}), "one"),
        (json!({"b": []}), "one"),
        (json!({}), "none"),
        // As json-logic-js: a null or "" value counts as missing.
        (json!({"a": null, "b": 1}), "one"),
        (json!({"a": "", "b": null}), "none"),
        (json!({"node": {"k": {"deep": 1}}}), "node_path"),
        (json!({"node": {"k": {"deep": ""}}}), "none"),
        (json!({"node": {"k": {}}}), "none"),
    ]
    .into_iter()
    .map(|(args, route)| (args, json!(route)))
    .collect();
    table(&e, "missing", &rows).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn var_is_jsonata_against_the_context() {
    let e = engine();
    let checks = [
        "previous",
        "entry_path",
        "dollar_path",
        "expression",
        "jsonata_boolean",
        "in_map",
        "in_filter",
        "in_all",
        "in_some",
        "in_none",
        "in_reduce",
        "object_as_data",
        "missing_is_null",
        "history_count",
    ];
    let rows = [
        (
            // Everything holds. `op` looks like a rule but is data: a
            // non-empty object, truthy (as an operator it would be false).
            json!({"value": 5, "items": [1, 2, 3], "op": {"==": [1, 2]}}),
            holding(&checks, &checks),
        ),
        (
            json!({"value": 4, "items": [1, 2, 3], "op": {}}),
            holding(
                &checks,
                &["object_as_data", "missing_is_null", "history_count"],
            ),
        ),
        (
            // Over no items: `all` and `some` are false, `none` true, `map`
            // and `filter` give [], `reduce` its initial value.
            json!({"value": 5, "items": []}),
            holding(
                &checks,
                &[
                    "previous",
                    "entry_path",
                    "dollar_path",
                    "expression",
                    "in_none",
                    "missing_is_null",
                    "history_count",
                ],
            ),
        ),
    ];
    table(&e, "var_forms", &rows).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn comparisons_are_loose_as_in_json_logic_js() {
    let e = engine();
    let checks = ["eq", "strict_eq", "ne", "strict_ne", "lt", "le", "gt", "ge"];
    // Expected values as JavaScript computes `a OP b` (json-logic-js 2.0),
    // e.g. `node -e 'console.log(null == 0, null <= 0, null >= 0)'` prints
    // `false true true` (the newer JSON Logic suite says `null == 0`).
    let js =
        |a: Value, b: Value, holds: &[&str]| (json!({"a": a, "b": b}), holding(&checks, holds));
    let equal_loosely = ["eq", "strict_ne", "le", "ge"];
    let rows = [
        js(json!(5), json!("5"), &equal_loosely),
        js(json!("3"), json!(3), &equal_loosely),
        js(json!(1), json!(true), &equal_loosely),
        js(json!(0), json!(false), &equal_loosely),
        js(json!(2.5), json!("2.5"), &equal_loosely),
        js(json!("1e1"), json!(10), &equal_loosely),
        js(json!(null), json!(0), &["ne", "strict_ne", "le", "ge"]),
        js(json!(5), json!(5), &["eq", "strict_eq", "le", "ge"]),
        js(json!(null), json!(null), &["eq", "strict_eq", "le", "ge"]),
        js(json!(null), json!(1), &["ne", "strict_ne", "lt", "le"]),
        js(json!("abc"), json!("abd"), &["ne", "strict_ne", "lt", "le"]),
        js(json!("10"), json!("9"), &["ne", "strict_ne", "lt", "le"]),
        js(json!("10"), json!(9), &["ne", "strict_ne", "gt", "ge"]),
        js(json!("21"), json!(3), &["ne", "strict_ne", "gt", "ge"]),
        js(json!("a"), json!("A"), &["ne", "strict_ne", "gt", "ge"]),
    ];
    table(&e, "compare", &rows).await;
    // A missing value is `undefined`, as in mcpGraph: `== null` only, and
    // no order (`let a; [null, 0, 1].map(b => [a == b, a === b, a != b,
    // a !== b, a < b, a <= b, a > b, a >= b])` in node).
    table(
        &e,
        "compare",
        &[
            (json!({"b": null}), holding(&checks, &["eq", "strict_ne"])),
            (json!({"b": 0}), holding(&checks, &["ne", "strict_ne"])),
            (json!({"b": 1}), holding(&checks, &["ne", "strict_ne"])),
        ],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn every_operator_of_the_set_works_in_a_rule() {
    let e = engine();
    let out = call(
        &e,
        "operators",
        json!({"x": 7, "y": 2, "s": "hello", "arr": [1, 2, 3]}),
    )
    .await;
    let failing: Vec<&String> = out
        .as_object()
        .expect("an object")
        .iter()
        .filter(|(_, holds)| **holds != json!(true))
        .map(|(check, _)| check)
        .collect();
    assert!(failing.is_empty(), "checks that did not hold: {failing:?}");
    assert_eq!(out.as_object().unwrap().len(), 36);
}

/// Rules where the runtime once differed from mcpGraph, each row checked
/// against mcpGraph 0.1.23 itself: its `evaluateJsonLogic` (JSONata per
/// `var`, json-logic-js 2.0.5), run in node 20 with
///
/// ```text
/// node --input-type=module -e '
///   import { evaluateJsonLogic } from "./bench/node_modules/mcpgraph/dist/expressions/json-logic.js";
///   console.log(await evaluateJsonLogic(RULE, {entry: ARGS}, [], 0))'
/// ```
///
/// (`true` is "yes", `false` is "no"). Items of the callback tables have
/// two keys: mcpGraph would run a one-key object of the data as a rule
/// (docs/MIGRATING.md).
#[tokio::test(flavor = "multi_thread")]
async fn rules_decide_as_mcpgraph_does() {
    let e = engine();
    let cases: &[(&str, &[(Value, &str)])] = &[
        // Was "Invalid arguments: NaN (in operator: ==)".
        (
            "ref_tags",
            &[
                (json!({"tags": ["a"]}), "yes"),
                (json!({"tags": ["a", "b"]}), "no"),
                (json!({"tags": []}), "no"),
                (json!({"tags": "a"}), "yes"),
            ],
        ),
        // Was "Thrown: NaN".
        (
            "ref_divide_by_zero",
            &[
                (json!({"a": 5}), "yes"),
                (json!({"a": -5}), "no"),
                (json!({"a": 0}), "no"),
                (json!({"a": "x"}), "no"),
            ],
        ),
        (
            "ref_missing_in_callback",
            &[
                (json!({"items": [{"name": "", "id": 1}]}), "yes"),
                (json!({"items": [{"name": null, "id": 1}]}), "yes"),
                (json!({"items": [{"name": "x", "id": 1}]}), "no"),
                (json!({"items": [{}]}), "yes"),
                (json!({"items": [{"name": 0, "id": 1}]}), "no"),
            ],
        ),
        (
            "ref_missing_some_in_callback",
            &[
                (json!({"items": [{"name": "", "id": 1}]}), "yes"),
                (json!({"items": [{"name": "", "id": ""}]}), "no"),
                (json!({"items": [{"id": null, "name": null}]}), "no"),
            ],
        ),
        (
            "ref_undefined_strict",
            &[(json!({}), "no"), (json!({"x": null}), "yes")],
        ),
        (
            "ref_undefined_loose",
            &[
                (json!({}), "yes"),
                (json!({"x": null}), "yes"),
                (json!({"x": 0}), "no"),
            ],
        ),
        (
            "ref_undefined_not",
            &[
                (json!({}), "yes"),
                (json!({"x": []}), "yes"),
                (json!({"x": [0]}), "yes"),
                (json!({"x": [1]}), "no"),
                (json!({"x": 1}), "no"),
            ],
        ),
        (
            "ref_undefined_cat",
            &[
                (json!({}), "yes"),
                (json!({"x": null}), "yes"),
                (json!({"x": [1, 2]}), "no"),
            ],
        ),
        (
            "ref_undefined_in",
            &[
                (json!({}), "yes"),
                (json!({"x": "fin"}), "yes"),
                (json!({"x": 1}), "no"),
            ],
        ),
        (
            "ref_undefined_minus",
            &[(json!({}), "yes"), (json!({"x": 1}), "no")],
        ),
    ];
    for (tool, rows) in cases {
        let rows: Vec<(Value, Value)> = rows
            .iter()
            .map(|(args, route)| (args.clone(), json!(route)))
            .collect();
        table(&e, tool, &rows).await;
    }
}
