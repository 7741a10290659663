use super::*;

/// An expression the runtime evaluates itself, whose time grows with
/// the data, is held to `maxExpressionTimeMs` as jsonata-core's are.
#[test]
fn a_native_evaluation_past_its_time_limit_fails() {
    let limits = Limits {
        max_expression_time_ms: 1,
        ..Limits::DEFAULT
    };
    let mut evaluator = CallEvaluator::take(limits);
    // The text of half a million numbers: tens of milliseconds.
    let expr = Expr::parse("$.big & \"\"").unwrap();
    assert!(expr.native().is_some_and(|native| native.timed()));
    let big = vec![serde_json::json!(0.125); 500_000];
    let data = crate::json::from_json(&serde_json::json!({ "big": big }));
    let err = evaluator.eval(&expr, &data, Instant::now()).unwrap_err();
    assert!(err.message.contains("maxExpressionTimeMs"), "{err}");
    assert_eq!(err.kind, EvalErrorKind::ExpressionTime);
    // The evaluator goes on serving.
    let small = JValue::from_json_str(r#"{"big": [1, 2]}"#).unwrap();
    let text = evaluator.eval(&expr, &small, Instant::now()).unwrap();
    assert_eq!(text, JValue::string("[1,2]"));
}

/// Found by the `expr` fuzz target: jsonata-core's range size overflows
/// (a panic where overflow checks are on, as in debug builds).
#[test]
fn a_panic_in_the_evaluator_is_an_error() {
    let expr = Expr::parse(format!("[0..1{}]", "8".repeat(78))).unwrap();
    let err =
        evaluate_standalone(&expr, &JValue::Null, &Default::default(), None, None).unwrap_err();
    assert!(
        err.to_string().contains("D2014") || err.to_string().contains("internal error"),
        "{err}"
    );
}

/// Found by the `expr` fuzz target (a 20 s timeout): without a budget,
/// `$pad` to four billion four-byte characters allocates 16 GB.
#[test]
fn a_huge_pad_fails_at_once() {
    let expr = Expr::parse(r#"$length($pad("", 4e9, "💩"))"#).unwrap();
    let started = std::time::Instant::now();
    let err = evaluate_standalone(&expr, &JValue::Null, &Default::default(), Some(200), None)
        .unwrap_err();
    assert!(
        err.to_string().contains("Value limit exceeded: `$pad`"),
        "{err}"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(1));
}
