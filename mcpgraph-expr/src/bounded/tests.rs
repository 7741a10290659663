//! The rewrites give the built-ins' results below the budget, and fail
//! (or stop) before an oversized result is built.

use super::host::{Budget, distinct};
use super::*;
use jsonata_core::evaluator::{CancelToken, Context, Evaluator, EvaluatorError};
use jsonata_core::value::JValue;

const DATA: &str = r#"{"s": "ab", "w": 6, "xs": ["a", "b", "c"], "o": {"k": [1, {"z": 2}]}}"#;

fn data() -> JValue {
    JValue::from_json_str(DATA).unwrap()
}

fn eval_with(
    source: &str,
    max: Option<u64>,
    cancel: Option<CancelToken>,
) -> Result<JValue, EvaluatorError> {
    let mut ast = jsonata_core::parser::parse(source).unwrap();
    guard(&mut ast);
    let mut evaluator = Evaluator::with_options(Context::new(), Default::default());
    register(&mut evaluator, max, cancel);
    evaluator.evaluate(&ast, &data())
}

fn eval(source: &str, max: Option<u64>) -> Result<JValue, EvaluatorError> {
    eval_with(source, max, None)
}

/// What jsonata-core's own built-ins give (value or error text).
fn plain(source: &str) -> Result<JValue, String> {
    Evaluator::new()
        .evaluate(&jsonata_core::parser::parse(source).unwrap(), &data())
        .map_err(|e| e.to_string())
}

#[test]
fn deep_expressions_are_walked_without_recursion() {
    let source = format!("{}1{}", "[".repeat(20_000), "]".repeat(20_000));
    if let Ok(mut ast) = jsonata_core::parser::parse(&source) {
        guard(&mut ast);
    }
}

/// The block a checked call becomes is the one its text parses to.
#[test]
fn a_checked_call_is_the_block_its_text_parses_to() {
    let mut ast = jsonata_core::parser::parse(r#"$replace(s, "a", $string(o, true))"#).unwrap();
    guard(&mut ast);
    let want = jsonata_core::parser::parse(
        r#"($__mcpgraph_0 := s; $__mcpgraph_1 := "a";
            $__mcpgraph_2 := ($__mcpgraph_0 := o; $__mcpgraph_1 := true;
                $__mcpgraph_string_check($, $__mcpgraph_0, $__mcpgraph_1);
                $string($__mcpgraph_0, $__mcpgraph_1));
            $__mcpgraph_replace_check($, $__mcpgraph_0, $__mcpgraph_1, $__mcpgraph_2);
            $replace($__mcpgraph_0, $__mcpgraph_1, $__mcpgraph_2))"#,
    )
    .unwrap();
    assert_eq!(ast, want);
}

#[test]
fn guarded_calls_give_what_the_builtins_give() {
    for source in [
        r#"$pad(s, w, "-")"#,
        r#"s.$pad(-5)"#,
        r#"$pad(s, ?, "*")(4)"#,
        r#"$join(xs, ", ")"#,
        r#"$join(xs)"#,
        r#"$join("one")"#,
        r#"$map([xs], function($v) { $join($v, "+") })"#,
        r#"[xs].$join($, "/")"#,
        r#"{ "a": $pad($join(xs), 5) }"#,
        // $replace: strings, regexes, groups, limits, the context form,
        // functions, and the built-in's own errors.
        r#"$replace("banana", "an", "AN")"#,
        r#"$replace("banana", "an", "AN", 1)"#,
        r#"$replace("banana", "an", "AN", 0)"#,
        r#"$replace("banana", "an", "AN", 1.5)"#,
        r#"$replace("banana", "an", "$0$0")"#,
        r#"$replace("banana", /(a)(n)/, "[$2$1$0$$$3$12]")"#,
        r#"$replace("banana", /a/, "o", 2)"#,
        r#"$replace("banana", /(x)?a/, "<$1>")"#,
        r#"$replace("banana", /n/, function($m) { $uppercase($m.match) })"#,
        r#"s.$replace("a", "z")"#,
        r#"xs.$replace("b", "B")"#,
        r#"s.$replace("a", "z", 1)"#,
        r#"$replace(undefined, "a", "b")"#,
        r#"$replace(null, "a", "b")"#,
        r#"$replace("abc", "", "b")"#,
        r#"$replace("abc", "a", "b", -1)"#,
        r#"$replace("abc", /x*/, "b")"#,
        r#"$replace("abc", 1, "b")"#,
        r#"$replace("abc", "a")"#,
        r#"$replace(?, "a", "b")("banana")"#,
        // $string with prettify.
        r#"$string(o, true)"#,
        r#"$string(o, false)"#,
        r#"$string(xs, true)"#,
        r#"$string("x", true)"#,
        r#"$string(o, "yes")"#,
        r#"$string({"f": function() { 1 }, "a": [undefined, 1]}, true)"#,
        // $distinct: order, deep equality, sequences, scalars.
        r#"$distinct([1, 2, 1, "1", 0, -0, null, null, true, true])"#,
        r#"$distinct([{"a": 1, "b": 2}, {"b": 2, "a": 1}, {"a": 1}, [1, [2]], [1, [2]], [[2], 1]])"#,
        r#"$distinct(xs)"#,
        r#"$distinct(["a", "b", "a"].$uppercase($))"#,
        r#"$distinct(o.k)"#,
        r#"$distinct(5)"#,
        r#"$distinct([])"#,
        r#"$distinct(nothing)"#,
        r#"$distinct(null)"#,
        r#"$count($distinct([$uppercase, $uppercase]))"#,
    ] {
        let got = eval(source, Some(10_000)).map_err(|e| e.to_string());
        assert_eq!(got, plain(source), "{source}");
    }
}

#[test]
fn oversized_pad_and_join_fail_before_they_allocate() {
    let err = eval(r#"$pad("", 1e12, "x")"#, Some(1000)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Evaluation error: M0001: Value limit exceeded: `$pad` to 1000000000000 characters would be larger than maxValueBytes (1000 bytes)"
    );
    assert!(eval(r#"s.$pad(-2000)"#, Some(1000)).is_err());
    let err = eval(r#"$join([1..1000].$string(), $pad("", 999))"#, Some(1000)).unwrap_err();
    assert!(
        err.to_string().contains("`$join` would give 1000894 bytes"),
        "{err}"
    );
    assert!(eval(r#"$join(xs, $pad("", 999))"#, Some(1000)).is_err());
    assert!(eval(r#"$join(xs, $pad("", 10))"#, Some(1000)).is_ok());
}

/// A replacement's size is computed exactly: at the budget it passes, one
/// byte over it fails, for strings, regexes and substitutions alike.
#[test]
fn replace_is_sized_exactly() {
    // "banana" with each "an" made "ANAN": 6 + 2 × 2 = 10 bytes.
    for (source, size) in [
        (r#"$replace("banana", "an", "ANAN")"#, 10),
        (r#"$replace("banana", "an", "ANAN", 1)"#, 8),
        (r#"$replace("banana", /an/, "$0$0")"#, 10),
        (r#"$replace("banana", /(a)n/, "$1$1$1")"#, 8),
        (r#"$replace("banana", /a/, "$$")"#, 6),
        (r#"s.$replace("b", "bbbb")"#, 5),
    ] {
        let value = eval(source, Some(size)).unwrap();
        assert_eq!(
            value.as_str().map(str::len),
            Some(size as usize),
            "{source}"
        );
        let err = eval(source, Some(size - 1)).unwrap_err().to_string();
        assert!(
            err.contains(&format!(
                "Value limit exceeded: `$replace` would give {size} bytes"
            )),
            "{source}: {err}"
        );
    }
}

/// The issue's call: 200,000 replacements of 200,000 bytes each (40 GB)
/// fail at once.
#[test]
fn a_huge_replace_fails_at_once() {
    let source = r#"$length($replace($pad("", 200000, "a"), "a", $pad("", 200000, "b")))"#;
    let started = std::time::Instant::now();
    let err = eval(source, Some(64 << 20)).unwrap_err().to_string();
    assert!(
        err.contains("`$replace` would give 40000000000 bytes"),
        "{err}"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    let regex = r#"$replace($pad("", 200000, "a"), /a/, $pad("", 200000, "b"))"#;
    assert!(eval(regex, Some(64 << 20)).is_err());
}

#[test]
fn a_deeply_indented_string_is_refused() {
    // 50,000 numbers 100 levels down: 10 MB of indentation from 300 kB.
    let source = format!(
        "$string({}[1..50000]{}, true)",
        "[".repeat(100),
        "]".repeat(100)
    );
    let err = eval(&source, Some(1 << 20)).unwrap_err().to_string();
    assert!(err.contains("Value limit exceeded: `$string`"), "{err}");
    let text = eval(&source, Some(16 << 20)).unwrap();
    assert!(text.as_str().unwrap().len() > 10_000_000);
}

/// 200,000 distinct items: linear, where the built-in takes minutes; and
/// a cancelled evaluation stops inside the call.
#[test]
fn distinct_is_linear_and_stops_when_cancelled() {
    let source = r#"$count($distinct([1..200000].{"n": $, "s": $string($)}))"#;
    let started = std::time::Instant::now();
    let n = eval(source, None).unwrap();
    assert_eq!(n, JValue::from(200000i64));
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    let token = CancelToken::new();
    token.cancel();
    let err = distinct::distinct(
        &[JValue::array((0..10).map(JValue::from).collect())],
        &Budget {
            max_bytes: u64::MAX,
            cancel: Some(token),
        },
    )
    .unwrap_err();
    assert!(err.to_string().contains("U1003"), "{err}");
}
