//! Regex literals with JavaScript's meaning, evaluated: the rewrite is
//! [`crate::regex`]'s, these tests run its results through the
//! evaluator against jsonata-js's values.

use crate::evaluator::evaluate_standalone;
use crate::parsed::Expr;
use jsonata_core::value::JValue;

fn eval(source: &str) -> String {
    let expr = Expr::parse(source.to_owned()).unwrap();
    let value =
        evaluate_standalone(&expr, &JValue::Null, &Default::default(), Some(5_000), None).unwrap();
    crate::js_text::to_js_string(&crate::json::to_json(&value).unwrap())
}

/// Each expected value is jsonata-js 2.2.2's:
/// node -e 'const j=require("jsonata");(async()=>{for(const e of process.argv.slice(1)) console.log(JSON.stringify(await j(e).evaluate({})))})()' EXPR...
/// (from bench/, with the expressions below).
#[test]
fn regex_functions_match_as_jsonata_js() {
    for (source, want) in [
        (r#"$match("x٣4 a1", /\d+/).match"#, r#"["4","1"]"#),
        (r#"$replace("éa_1b", /\w/, "-")"#, r#""é----""#),
        (r#"$split("a b\u00a0c", /\s/)"#, r#"["a","b","c"]"#),
        (r#"$contains("ſ", /s/i)"#, "false"),
        (r#"$match("ab\r\ncd", /.+/).match"#, r#"["ab","cd"]"#),
        (
            r#""éfoo" ~> /\bfoo\b/"#,
            r#"{"match":"foo","start":1,"end":4,"groups":[]}"#,
        ),
        (r#"$replace("\u212akK", /k/i, "x")"#, "\"\u{212a}xx\""),
    ] {
        assert_eq!(eval(source), want, "{source}");
    }
}

/// jsonata-js never returns from this one (its engine backtracks
/// exponentially); Rust's engine is linear in the input, so the call
/// costs milliseconds, far inside any expression time limit.
#[test]
fn a_catastrophic_pattern_on_a_long_input_returns_at_once() {
    let started = std::time::Instant::now();
    let source = r#"$count($match($pad("", 30000, "a") & "!", /(a+)+$/))"#;
    assert_eq!(eval(source), "0");
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
}

#[test]
fn a_literal_javascript_reads_otherwise_does_not_start() {
    let err = Expr::parse(r#"$match(s, /(a)\1/)"#).unwrap_err();
    assert!(err.to_string().contains("backreferences"), "{err}");
}
