//! Each expected value is jsonata-js 2.2.2's, on the data of [`DATA`]:
//!
//! ```text
//! cd bench && node -e 'require("jsonata")(process.argv[1]).evaluate(JSON.parse(process.argv[2]))
//!   .then(r => console.log(JSON.stringify(r)), e => console.log(e.code))' EXPR DATA
//! ```

use jsonata_core::ast::AstNode;
use jsonata_core::evaluator::Evaluator;
use jsonata_core::value::JValue;

use super::*;
use crate::json::{from_json, to_json};

const DATA: &str = r#"{"x": 1, "items": [{"name": "b", "price": 1}, {"name": "1", "price": 2}]}"#;

/// `source` parsed and rewritten as the generator and the runtime do, and
/// the helpers it calls.
fn prepared(source: &str) -> (AstNode, Helpers) {
    let mut ast = jsonata_core::parser::parse(source).unwrap();
    let helpers = crate::prepare(&mut ast).unwrap();
    (ast, helpers)
}

/// The expression's value as JSON text (`undefined` for no value), or
/// its error's JSONata code, evaluated as the runtime's evaluators do it
/// (the `$pad`/`$join` checks and the helpers it needs registered).
fn eval(source: &str) -> String {
    let (ast, helpers) = prepared(source);
    let data = from_json(&serde_json::from_str(DATA).unwrap());
    let mut evaluator = Evaluator::new();
    crate::bounded::register(&mut evaluator, None, None);
    register(&mut evaluator, Helpers::default(), helpers);
    match evaluator.evaluate(&ast, &data) {
        Ok(value) => to_json(&value).map_or("undefined".to_owned(), |v| v.to_string()),
        Err(e) => e.code().unwrap_or("no code").to_owned(),
    }
}

fn check(cases: &[(&str, &str)]) {
    for (source, expected) in cases {
        assert_eq!(eval(source), *expected, "{source}");
    }
}

#[test]
fn non_finite_operands_fail_as_in_jsonata_js() {
    check(&[
        ("(x % 0) + 1", "T2001"),
        ("1 + (x % 0)", "T2002"),
        ("1 - x / 0", "D1001"),
        ("-(x % 0)", "D1002"),
        ("-(x / 0)", "D1001"),
        ("($n := x % 0; $n * 2)", "T2001"),
        ("$reduce([1, x % 0], function($a, $b) { $a + $b })", "T2002"),
        // Left alone: a non-finite result that no operator reads.
        ("x / 0", "null"),
        ("x / 2 + 1", "1.5"),
        ("$reduce([1,2], function($a, $b) { $a / $b })", "0.5"),
        ("$max(items.price) / 2", "1"),
    ]);
}

#[test]
fn nan_is_false_and_infinity_fails_where_truth_is_tested() {
    check(&[
        ("$not(x % 0)", "true"),
        ("$boolean(x % 0)", "false"),
        (r#"(x % 0) ? "yes" : "no""#, r#""no""#),
        (r#"(x / 0) ? "yes" : "no""#, "D1001"),
        ("(x % 0) and true", "false"),
        (r#"(x % 0) ?: "other""#, r#""other""#),
        ("[1, 2, 3].($ % 0 ? 1 : 2)", "[2,2,2]"),
    ]);
}

#[test]
fn max_min_and_sort_see_nan_as_jsonata_js_does() {
    check(&[
        ("$max([1, x % 0])", "null"),
        ("$string($max([1, x % 0]))", "D3001"),
        ("$min([3, x / 2])", "0.5"),
        ("$sort([1, x % 0])", "D3070"),
        ("$sort([1, x / 0])", "D1001"),
        ("$sort([2, x / 2])", "[0.5,2]"),
        ("$sort([x % 0])", "[null]"),
        ("$sort([x % 0, x % 0])", "D3070"),
    ]);
}

#[test]
fn built_objects_list_integer_like_keys_first() {
    check(&[
        (r#"$keys({"b": 1, "10": 2, "2": 3})"#, r#"["2","10","b"]"#),
        ("$keys(items{name: price})", r#"["1","b"]"#),
        (
            r#"$string($merge([{"k": 1}, {"0": 2}]))"#,
            r#""{\"0\":2,\"k\":1}""#,
        ),
        (
            "$each(items{name: price}, function($v, $k) { $k })",
            r#"["1","b"]"#,
        ),
        (
            r#"items.$keys({"k": 1, name: price})"#,
            r#"["k","b","1","k"]"#,
        ),
        (
            r#"$string(items.{"k": 0, name: price})"#,
            r#""[{\"k\":0,\"b\":1},{\"1\":2,\"k\":0}]""#,
        ),
    ]);
}

#[test]
fn reduce_of_an_empty_array_without_a_start_gives_no_value() {
    check(&[
        ("$reduce([], function($a, $b) { $a + $b })", "undefined"),
        (
            "$reduce(nothing, function($a, $b) { $a + $b })",
            "undefined",
        ),
        ("$reduce([5], function($a, $b) { $a + $b })", "5"),
        ("$reduce([], function($a, $b) { $a + $b }, 7)", "7"),
        ("$reduce([1, 2, 3], function($a, $b) { $a + $b })", "6"),
        ("$reduce([], function($a) { $a })", "D3050"),
    ]);
}

#[test]
fn exists_of_the_context_is_true() {
    check(&[("$exists($)", "true"), ("$count(items[$exists($)])", "2")]);
}

/// The common expressions need no helper and keep the parser's tree, so
/// they cost what they cost before.
#[test]
fn expressions_that_need_no_helper_are_left_as_parsed() {
    for source in [
        "a + b * c - d",
        r#"{"name": x, "total": $sum(items.price)}"#,
        "items[price > 2].name",
        r#"$reduce(xs, function($a, $b) { $a + $b }, 0)"#,
        r#"flag ? $string(n) : "none""#,
        // Divisions whose operands read JSON data, or by a non-zero
        // literal: no NaN or Infinity can reach an operator.
        "$.entry.a * 2 + $.entry.b / 4 - 1",
        "$.entry.a % 2 + $sum($.entry.items) * -$count(xs)",
        r#"{"f81": $.entry.a % (1 + 1), "f91": { "k": 1, "v": $.entry.a - 1 }}"#,
        "items.(price / qty)",
        "$sum(items.(price * qty)) / 2 > $$.limit ? -($max(items.price) / 3) : 0",
        r#"{"k": 1, "v": a / b}"#,
    ] {
        let parsed = jsonata_core::parser::parse(source).unwrap();
        let mut ast = parsed.clone();
        assert_eq!(rewrite(&mut ast), Helpers::default(), "{source}");
        assert_eq!(ast, parsed, "{source}");
    }
}

#[test]
fn helpers_are_registered_once_and_without_clashes() {
    let (ast, helpers) = prepared(r#"$merge([{"k": -(x % 2 / x)}, {"0": $max(items.price)}])"#);
    assert!(helpers.covers(Helpers::FINITE) && helpers.covers(Helpers::KEYS));
    let mut evaluator = Evaluator::new();
    let all = Helpers::FINITE
        .union(Helpers::KEYS)
        .union(Helpers::NONEMPTY);
    let registered = register(&mut evaluator, Helpers::default(), all);
    assert_eq!(registered, all);
    // A second time registers nothing (and so cannot fail).
    assert_eq!(register(&mut evaluator, registered, helpers), all);
    let data = from_json(&serde_json::from_str(DATA).unwrap());
    let value = evaluator.evaluate(&ast, &data).unwrap();
    assert_eq!(to_json(&value).unwrap().to_string(), r#"{"0":2,"k":-1}"#);
    assert!(
        matches!(value, JValue::Object(map) if map.keys().next().map(String::as_str) == Some("0"))
    );
}

#[test]
fn deep_expressions_are_rewritten_without_recursion() {
    let source = format!("{}x % 2{}", "(".repeat(5_000), ")".repeat(5_000));
    if let Ok(mut ast) = jsonata_core::parser::parse(&format!("1 + {source}")) {
        rewrite(&mut ast);
    }
}

/// The benchmark's expressions (bench/js/cases.json) keep their cost: no
/// helper, the parser's tree.
#[test]
fn the_benchmark_expressions_are_left_as_parsed() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../bench/js/cases.json");
    let cases: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for case in cases["expressions"].as_array().unwrap() {
        let source = case["expr"].as_str().unwrap();
        let parsed = jsonata_core::parser::parse(source).unwrap();
        let mut ast = parsed.clone();
        assert_eq!(rewrite(&mut ast), Helpers::default(), "{source}");
        assert_eq!(ast, parsed, "{source}");
    }
}
