//! The native evaluation against jsonata-core, on chosen expressions and
//! on random ones over random data.

use std::cell::RefCell;
use std::rc::Rc;

use jsonata_core::evaluator::{Context, EvaluatorError};
use jsonata_core::value::JValue;

use super::same;
use crate::evaluator::standalone::evaluate_by_jsonata;
use crate::history::History;
use crate::parsed::Expr;

/// A history in which node `step` ran twice and `check` once.
fn history() -> Rc<RefCell<History>> {
    let history = Rc::new(RefCell::new(History::default()));
    for node in ["step", "check", "step"] {
        history.borrow_mut().push(node, JValue::Number(1.0));
    }
    history
}

/// What jsonata-core gives for `expr` on `data` under the least depth the
/// native evaluation assumes.
fn by_jsonata(
    expr: &Expr,
    data: &JValue,
    history: &Rc<RefCell<History>>,
) -> Result<JValue, EvaluatorError> {
    let depth = expr.native().map(|native| native.depth_needed());
    evaluate_by_jsonata(expr, data, Context::new(), None, depth, history)
}

/// Evaluates `source` both ways; `Some(true)` if the native evaluation
/// gave the value, `Some(false)` if it left it to jsonata-core, `None` if
/// the expression is not in the native shapes at all.
fn compare(source: &str, data: &JValue, history: &Rc<RefCell<History>>) -> Option<bool> {
    let expr = Expr::parse(source.to_owned()).unwrap_or_else(|e| panic!("{source}: {e}"));
    let native = expr.native()?;
    let Some(value) = native.eval(data, &history.borrow()) else {
        return Some(false);
    };
    match by_jsonata(&expr, data, history) {
        Ok(want) => assert!(
            same(&value, &want),
            "`{source}` on {data:?}: natively {value:?}, by jsonata-core {want:?}"
        ),
        Err(e) => panic!("`{source}` on {data:?}: natively {value:?}, jsonata-core fails: {e}"),
    }
    Some(true)
}

fn data(json: &str) -> JValue {
    JValue::from_json_str(json).unwrap()
}

/// The benchmark's transforms, and the shapes they stand for, are taken
/// natively and agree with jsonata-core.
#[test]
fn common_transforms_are_native_and_agree() {
    let context = data(
        r#"{"entry": {"a": 7, "s": "héllo wörld", "items": [1, 2.5, 3, 4, 5, 6], "name": "x", "n": 3},
            "step": {"i": 5, "sum": 15}}"#,
    );
    let history = history();
    let taken = [
        r#"{ "greeting": "hello " & $.entry.name, "n": $.entry.n, "twice": $.entry.n * 2, "tags": ["a", "b"] }"#,
        r#"$executionCount("step") = 0 ? { "i": 1, "sum": 1 } : { "i": $.step.i + 1, "sum": $.step.sum + $.step.i + 1 }"#,
        r#"{ "sum": $.step.sum, "n": $.entry.n }"#,
        r#"{ "f21": $uppercase($.entry.s) & "-1", "f31": $sum($.entry.items) + 1, "f41": $count($.entry.items) > 1 }"#,
        r#"{ "f51": $.entry.s & $string(1), "f61": $.entry.items[0], "f65": $.entry.items[-1] }"#,
        r#"{ "f71": $substring($.entry.s, 0, 3), "f81": $.entry.a % (1 + 1), "f91": { "k": 1, "v": $.entry.a - 1 } }"#,
        r#"[$.entry.items, [1, 2], $.missing, "x"]"#,
        r#"$.entry.a > 3 and $not($.entry.missing) or $boolean($.entry.s)"#,
        r#"-$.entry.a & $lowercase($.entry.name) & $trim("  x ") & $length($.entry.s)"#,
        r#"$exists($.entry.nope) ? "yes" : $string($.entry.items[9])"#,
        r#"$.entry.n != 3 or $.entry.s <= "z""#,
        r#"{ "count": $count($split($.entry.s, "l")), "none": $split($.nope, ",") }"#,
        r#"{ "route": "hit", "fields": $count($keys($.step)), "one": $keys({"a": 1}), "keys": $keys($.entry) }"#,
    ];
    for source in taken {
        assert_eq!(compare(source, &context, &history), Some(true), "{source}");
    }
    // Left to jsonata-core: errors, arrays on a path, grouping, bindings.
    for (source, native) in [
        (r#"$.entry.s + 1"#, Some(false)),
        (r#"$.entry.items.x + 1"#, Some(false)),
        (r#"$sum($.entry.s)"#, Some(false)),
        (r#"$.entry.items[$ > 2]"#, None),
        (r#"($x := 1; $x + 1)"#, None),
        (r#"{ "a": 1, "a": 2 }"#, None),
        (r#"$count()"#, None),
        (r#"$.entry.a / 0 + 1"#, Some(false)),
        (r#"$.entry.a / 0 > 1 ? 1 : 2"#, Some(true)),
        (r#"$.entry.a % 0 ? 1 : 2"#, Some(true)),
    ] {
        assert_eq!(compare(source, &context, &history), native, "{source}");
    }
}

/// A tree deeper than the native evaluation recurses is left whole to
/// jsonata-core, whatever its shape; one within the bound is taken.
#[test]
fn a_deep_expression_is_left_to_jsonata_core() {
    let context = data(r#"{"a": 1}"#);
    let history = history();
    for (levels, native) in [(20, Some(true)), (150, None)] {
        let sums = format!("{}$.a{}", "(".repeat(levels), " + 1)".repeat(levels));
        let parens = format!("{}$.a + 1{}", "(".repeat(levels), ")".repeat(levels));
        for source in [sums, parens] {
            assert_eq!(
                compare(&source, &context, &history),
                native,
                "{levels} levels"
            );
        }
    }
}

/// A random expression in (and around) the native shapes, `budget` deep.
fn expression(rng: &mut fastrand::Rng, budget: usize, out: &mut String) {
    const LEAVES: &[&str] = &[
        "0",
        "1",
        "2",
        "-3",
        "2.5",
        "1e300",
        "0.1",
        "\"\"",
        "\"a\"",
        "\"héllo\"",
        "\"10\"",
        "\"l\"",
        "\"\\n\"",
        "true",
        "false",
        "null",
        "$",
        "$.n",
        "n",
        "$.s",
        "$.b",
        "$.z",
        "$.arr",
        "$.obj",
        "$.obj.x",
        "obj.x.y",
        "$.obj.arr",
        "$.missing",
        "$.missing.x",
        "$.arr[0]",
        "$.arr[-1]",
        "$.arr[7]",
        "$.obj.arr[1]",
        "$.n[0]",
        "$.s[1]",
        "$.e",
        "$.nested[0]",
        "$.obj.x[0]",
    ];
    const BINARY: &[&str] = &[
        "+", "-", "*", "/", "%", "=", "!=", "<", "<=", ">", ">=", "&", "and", "or",
    ];
    const CALLS: &[(&str, usize)] = &[
        ("count", 1),
        ("sum", 1),
        ("string", 1),
        ("uppercase", 1),
        ("lowercase", 1),
        ("trim", 1),
        ("length", 1),
        ("substring", 2),
        ("substring", 3),
        ("split", 2),
        ("keys", 1),
        ("exists", 1),
        ("boolean", 1),
        ("not", 1),
    ];
    let choice = if budget == 0 { 0 } else { rng.usize(..9) };
    match choice {
        0..=2 => out.push_str(LEAVES[rng.usize(..LEAVES.len())]),
        3 | 4 => {
            out.push('(');
            if rng.usize(..3) == 0 {
                out.push('(');
                expression(rng, budget - 1, out);
                out.push(')');
            } else {
                expression(rng, budget - 1, out);
            }
            out.push_str(&format!(" {} ", BINARY[rng.usize(..BINARY.len())]));
            expression(rng, budget - 1, out);
            out.push(')');
        }
        5 => {
            let (name, arity) = CALLS[rng.usize(..CALLS.len())];
            list(rng, budget, out, (&format!("${name}("), ")"), arity, false);
        }
        6 => {
            let count = rng.usize(..4);
            list(rng, budget, out, ("{", "}"), count, true);
        }
        7 => {
            let count = rng.usize(..4);
            list(rng, budget, out, ("[", "]"), count, false);
        }
        _ => {
            out.push('(');
            if rng.usize(..4) == 0 {
                out.push('-');
            }
            expression(rng, budget - 1, out);
            out.push_str(" ? ");
            expression(rng, budget - 1, out);
            if rng.usize(..2) == 0 {
                out.push_str(" : ");
                expression(rng, budget - 1, out);
            }
            out.push(')');
        }
    }
}

/// `count` random expressions between `brackets`, with a random key each
/// if `keyed`.
fn list(
    rng: &mut fastrand::Rng,
    budget: usize,
    out: &mut String,
    brackets: (&str, &str),
    count: usize,
    keyed: bool,
) {
    out.push_str(brackets.0);
    for i in 0..count {
        if i > 0 {
            out.push_str(", ");
        }
        if keyed {
            out.push_str(&format!("\"k{}\": ", rng.usize(..5)));
        }
        expression(rng, budget - 1, out);
    }
    out.push_str(brackets.1);
}

/// Random data for [`expression`]'s paths.
fn random_data(rng: &mut fastrand::Rng) -> JValue {
    const NUMBERS: &[&str] = &["0", "1", "-2", "2.5", "1e308", "0.30000000000000004", "12"];
    const STRINGS: &[&str] = &[
        "\"\"",
        "\"abc\"",
        "\"Straße ǅ\"",
        "\"  pad  \"",
        "\"😀x\"",
        "\"a\\nb\\n\"",
        "\"l,l\"",
    ];
    const ARRAYS: &[&str] = &[
        "[]",
        "[1, 2, 3]",
        "[2.5]",
        "[1, \"a\"]",
        "[[1], 2]",
        "[{\"x\": 1}]",
        "[true]",
    ];
    const OBJECTS: &[&str] = &[
        "{}",
        "{\"x\": 1}",
        "{\"x\": {\"y\": \"z\"}, \"arr\": [4, 5]}",
        "{\"x\": [1, 2]}",
        "{\"x\": null}",
    ];
    let mut pick = |list: &[&str]| list[rng.usize(..list.len())].to_owned();
    let json = format!(
        r#"{{"n": {}, "s": {}, "b": {}, "z": null, "arr": {}, "obj": {}, "e": {{}}, "nested": {}}}"#,
        pick(NUMBERS),
        pick(STRINGS),
        pick(&["true", "false"]),
        pick(ARRAYS),
        pick(OBJECTS),
        pick(ARRAYS),
    );
    data(&json)
}

/// Thousands of random expressions over random data: wherever the native
/// evaluation gives a value it is jsonata-core's, under the depth bound.
#[test]
fn random_expressions_agree_with_jsonata_core() {
    let mut rng = fastrand::Rng::with_seed(0x006a_736f_6e61_7461);
    let history = history();
    let (mut native, mut declined, mut other) = (0, 0, 0);
    for _ in 0..40_000 {
        let mut source = String::new();
        let budget = 1 + rng.usize(..4);
        expression(&mut rng, budget, &mut source);
        let data = random_data(&mut rng);
        match compare(&source, &data, &history) {
            Some(true) => native += 1,
            Some(false) => declined += 1,
            None => other += 1,
        }
    }
    eprintln!("native {native}, declined {declined}, not native {other}");
    // Enough of each for the comparison to mean something.
    assert!(
        native > 2000,
        "native {native}, declined {declined}, not native {other}"
    );
    assert!(
        declined > 200,
        "native {native}, declined {declined}, not native {other}"
    );
}
