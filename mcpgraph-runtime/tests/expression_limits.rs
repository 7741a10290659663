//! `maxExpressionDepth` and `maxExpressionTimeMs` reach the evaluator a
//! transform uses: hostile expressions are stopped with an error, quickly,
//! instead of hanging or overflowing the stack. (tests/tests/graphs/semantics.rs
//! checks the same through a generated server and its error messages.)

use std::time::{Duration, Instant};

use mcpgraph_runtime::Expr;
use mcpgraph_runtime::testing::evaluate_standalone;
use mcpgraph_runtime::testing::jsonata_core::value::JValue;
use serde_json::Map;

/// FORMAT.md's defaults.
const DEPTH: u64 = 500;
const TIME_MS: u64 = 1000;

fn eval_with(source: &str, time_ms: u64, depth: u64) -> (Result<JValue, String>, Duration) {
    let expr = Expr::parse(source.to_owned()).expect("parses");
    let start = Instant::now();
    let result = evaluate_standalone(
        &expr,
        &JValue::Undefined,
        &Map::new(),
        Some(time_ms),
        Some(depth),
    )
    .map_err(|e| e.to_string());
    (result, start.elapsed())
}

#[test]
fn deep_recursion_is_stopped_by_the_depth_limit() {
    for source in [
        // Non-tail recursion far past the limit.
        "($f := function($n) { $n = 0 ? 0 : 1 + $f($n - 1) }; $f(1000000))",
        // Unbounded mutual recursion.
        "($a := function($n) { 1 + $b($n) }; $b := function($n) { 1 + $a($n) }; $a(0))",
        // Recursion through a higher-order built-in.
        "($f := function($x) { $map([$x], function($v) { $f($v) + 1 }) }; $f(0))",
    ] {
        let (result, elapsed) = eval_with(source, TIME_MS, DEPTH);
        let err = result.expect_err(source);
        assert!(
            err.contains("D1011") || err.contains("U1001"),
            "{source}: {err}"
        );
        assert!(
            elapsed < Duration::from_millis(TIME_MS),
            "{source}: {elapsed:?}"
        );
    }
}

#[test]
fn endless_evaluation_is_stopped_by_the_time_limit() {
    for source in [
        // A tail call runs in constant depth: only the clock stops it.
        "($inf := function() { $inf() }; $inf())",
        "($l := function($i) { $i < 1e15 ? $l($i + 1) : $i }; $l(0))",
        // Heavy built-in work in a loop.
        "($l := function($i) { $l($i + $count([1..1000])) }; $l(0))",
    ] {
        let (result, elapsed) = eval_with(source, 200, DEPTH);
        let err = result.expect_err(source);
        assert!(err.contains("D1012"), "{source}: {err}");
        assert!(elapsed < Duration::from_secs(3), "{source}: {elapsed:?}");
    }
}

#[test]
fn depth_limit_allows_what_fits() {
    let (result, _) = eval_with(
        "($f := function($n) { $n = 0 ? 0 : 1 + $f($n - 1) }; $f(50))",
        TIME_MS,
        DEPTH,
    );
    assert_eq!(result, Ok(JValue::Number(50.0)));
}

#[test]
fn deeply_nested_source_does_not_overflow_the_parser() {
    // Start-up parses every expression of a graph; a pathological one must
    // give a result or an error, not abort the process.
    for depth in [1_000, 20_000] {
        let source = format!("{}1{}", "(".repeat(depth), ")".repeat(depth));
        if let Ok(expr) = Expr::parse(source) {
            let _ = evaluate_standalone(
                &expr,
                &JValue::Undefined,
                &Map::new(),
                Some(TIME_MS),
                Some(DEPTH),
            );
        }
        let source = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        if let Ok(expr) = Expr::parse(source) {
            let _ = evaluate_standalone(
                &expr,
                &JValue::Undefined,
                &Map::new(),
                Some(TIME_MS),
                Some(DEPTH),
            );
        }
    }
}

/// One long built-in (here `$string` of a big array) does not look at the
/// cancel token, so the evaluation returns a value after the watchdog
/// fired. Past its limit, it fails all the same.
#[test]
fn an_evaluation_past_its_limit_fails_even_when_it_returns_a_value() {
    let source = "$length($string([1..3000000]))";
    let (result, elapsed) = eval_with(source, 10, DEPTH);
    eprintln!("{source}: {elapsed:?}, {result:?}");
    assert!(
        elapsed >= Duration::from_millis(40),
        "the built-in must outlast the limit for this test to mean anything: {elapsed:?}"
    );
    let err = result.expect_err(source);
    assert!(err.contains("D1012"), "{source}: {err}");
    // Within the limit, the same expression gives its value.
    let (result, _) = eval_with(source, 60_000, DEPTH);
    assert!(
        matches!(result, Ok(JValue::Number(n)) if n > 1e6),
        "{result:?}"
    );
}
