//! The coercion table of json-logic-js 2.0.5, case by case. Every
//! expected value was produced by the reference:
//!
//! ```text
//! node -e 'const jl = require("./bench/node_modules/json-logic-js");
//!   console.log(JSON.stringify(jl.apply(RULE, {})))'
//! ```
//!
//! (`undefined` printed as `null`, as `evaluate_logic` reports it).

use super::coerce::{number_to_string, parse_float, string_to_number};
use super::testing::evaluate_logic;
use super::value::Val;

#[test]
fn operators_coerce_as_json_logic_js() {
    let table = [
        (r#"{"==": [" 12 ", 12]}"#, r#"true"#),
        (r#"{"==": ["", 0]}"#, r#"true"#),
        (r#"{"==": ["0x10", 16]}"#, r#"true"#),
        (r#"{"==": ["abc", "abc"]}"#, r#"true"#),
        (r#"{"+": ["0x10"]}"#, r#"0"#),
        (r#"{"-": ["0x10", 0]}"#, r#"16"#),
        (r#"{"-": ["1e3", 0]}"#, r#"1000"#),
        (r#"{"-": [" \n7\t", 0]}"#, r#"7"#),
        (r#"{"-": ["Infinity", 0]}"#, r#"null"#),
        (r#"{"-": ["-Infinity", 1]}"#, r#"null"#),
        (r#"{"-": ["infinity", 0]}"#, r#"null"#),
        (r#"{"-": ["1_000", 0]}"#, r#"null"#),
        (r#"{"-": [".5", 0]}"#, r#"0.5"#),
        (r#"{"-": ["5.", 0]}"#, r#"5"#),
        (r#"{"-": ["+.5e1", 0]}"#, r#"5"#),
        (r#"{"-": ["0b101", 0]}"#, r#"5"#),
        (r#"{"-": ["0o17", 0]}"#, r#"15"#),
        (r#"{"-": ["-0x10", 0]}"#, r#"null"#),
        (r#"{"-": [null, 1]}"#, r#"-1"#),
        (r#"{"-": [true, 0]}"#, r#"1"#),
        (r#"{"-": [[], 0]}"#, r#"0"#),
        (r#"{"-": [[7], 0]}"#, r#"7"#),
        (r#"{"-": [[1, 2], 0]}"#, r#"null"#),
        (r#"{"-": [[[" 3 "]], 0]}"#, r#"3"#),
        (
            r#"{"cat": [[1, [2, 3]], "|", [null], "|", 1e+21, "|", 1e-07, "|", 1e-06, "|", 1.23e-18, "|", 0, "|", 0.1, "|", true, null]}"#,
            r#""1,2,3||1e+21|1e-7|0.000001|1.23e-18|0|0.1|true""#,
        ),
        (
            r#"{"cat": [1.5e+300, "|", 2e-300, "|", 123456789012345680000, "|", 0.30000000000000004]}"#,
            r#""1.5e+300|2e-300|123456789012345680000|0.30000000000000004""#,
        ),
        (r#"{"==": [[1, 2], "1,2"]}"#, r#"true"#),
        (r#"{"==": [[], ""]}"#, r#"true"#),
        (r#"{"==": [[], 0]}"#, r#"true"#),
        (r#"{"==": [[0], false]}"#, r#"true"#),
        (r#"{"==": [[1], true]}"#, r#"true"#),
        (r#"{"==": [null, 0]}"#, r#"false"#),
        (r#"{"==": [null, false]}"#, r#"false"#),
        (r#"{"==": [null, null]}"#, r#"true"#),
        (r#"{"==": ["1", true]}"#, r#"true"#),
        (r#"{"==": ["true", true]}"#, r#"false"#),
        (r#"{"==": [[null], ""]}"#, r#"true"#),
        (r#"{"==": [[], []]}"#, r#"false"#),
        (r#"{"===": [1, 1]}"#, r#"true"#),
        (r#"{"===": ["a", "a"]}"#, r#"true"#),
        (r#"{"===": [null, null]}"#, r#"true"#),
        (r#"{"!==": [[], []]}"#, r#"true"#),
        (r#"{"<": ["10", "9"]}"#, r#"true"#),
        (r#"{"<": ["10", 9]}"#, r#"false"#),
        (r#"{"<": [[2], 10]}"#, r#"true"#),
        (r#"{"<": [[2], "10"]}"#, r#"false"#),
        (r#"{"<": [null, 1]}"#, r#"true"#),
        (r#"{"<": ["abc", 1]}"#, r#"false"#),
        (r#"{">=": ["abc", "abc"]}"#, r#"true"#),
        (r#"{">=": ["abc", 1]}"#, r#"false"#),
        (r#"{"<=": [null, 0]}"#, r#"true"#),
        (r#"{"<=": [[], false]}"#, r#"true"#),
        (r#"{">": ["b", "a"]}"#, r#"true"#),
        (r#"{">": ["B", "a"]}"#, r#"false"#),
        (r#"{"<": ["\uffff", "\ud83d\ude00"]}"#, r#"false"#),
        (r#"{"<": [1, 2, 3]}"#, r#"true"#),
        (r#"{"<": [1, 3, 2]}"#, r#"false"#),
        (r#"{"<=": [1, 1, 1]}"#, r#"true"#),
        (r#"{"<": [1, "2", "10"]}"#, r#"false"#),
        (r#"{"+": ["1", "2px", " 3"]}"#, r#"6"#),
        (r#"{"+": [[1], "abc"]}"#, r#"null"#),
        (r#"{"+": []}"#, r#"0"#),
        (r#"{"*": ["2", "3"]}"#, r#"6"#),
        (r#"{"*": ["x"]}"#, r#""x""#),
        (r#"{"*": [[2, 3], 2]}"#, r#"4"#),
        (r#"{"/": [1, 0]}"#, r#"null"#),
        (r#"{"/": [-1, 0]}"#, r#"null"#),
        (r#"{"/": [0, 0]}"#, r#"null"#),
        (r#"{"%": [-7, 4]}"#, r#"-3"#),
        (r#"{"%": [7, -4]}"#, r#"3"#),
        (r#"{"%": [5.5, 2]}"#, r#"1.5"#),
        (r#"{"%": [1, 0]}"#, r#"null"#),
        (r#"{"min": []}"#, r#"null"#),
        (r#"{"max": []}"#, r#"null"#),
        (r#"{"min": [1, "0", null]}"#, r#"0"#),
        (r#"{"max": [1, "x"]}"#, r#"null"#),
        (r#"{"max": [[3], "4"]}"#, r#"4"#),
        (r#"{"-": ["5"]}"#, r#"-5"#),
        (r#"{"-": [[]]}"#, r#"0"#),
        (r#"{">": [{"/": [1, 0]}, 1]}"#, r#"true"#),
        (r#"{"==": [{"/": [0, 0]}, {"/": [0, 0]}]}"#, r#"false"#),
        (r#"{"!": {"/": [0, 0]}}"#, r#"true"#),
        (
            r#"{"merge": [{"/": [1, 0]}, [1, null]]}"#,
            r#"[null,1,null]"#,
        ),
        (r#"{"substr": ["jsonlogic", -5]}"#, r#""logic""#),
        (r#"{"substr": ["jsonlogic", 1, -2]}"#, r#""sonlog""#),
        (r#"{"substr": ["jsonlogic", -5, -2]}"#, r#""log""#),
        (r#"{"substr": ["jsonlogic", 20]}"#, r#""""#),
        (r#"{"substr": [12345, 1, 2]}"#, r#""23""#),
        (r#"{"substr": [null, 1]}"#, r#""ull""#),
        (r#"{"substr": ["abc", "1", "-1"]}"#, r#""""#),
        (r#"{"substr": ["h\ud83d\ude00i", 1, 2]}"#, r#""😀""#),
        (r#"{"in": ["", ""]}"#, r#"false"#),
        (r#"{"in": ["b", "abc"]}"#, r#"true"#),
        (r#"{"in": [1, "a1"]}"#, r#"true"#),
        (r#"{"in": [null, [null]]}"#, r#"true"#),
        (r#"{"in": [[], [[]]]}"#, r#"false"#),
        (r#"{"in": ["1", [1]]}"#, r#"false"#),
        (r#"{"in": [1, 1]}"#, r#"false"#),
        (r#"{"cat": []}"#, r#""""#),
        (r#"{"cat": "x"}"#, r#""x""#),
        (r#"{"!": [[]]}"#, r#"true"#),
        (r#"{"!!": [[0]]}"#, r#"true"#),
        (r#"{"!!": ["0"]}"#, r#"true"#),
        (r#"{"!": [{}]}"#, r#"false"#),
        (r#"{"if": [[], 1, 2]}"#, r#"2"#),
        (r#"{"and": [1, [], 2]}"#, r#"[]"#),
        (r#"{"or": [[], 0, ""]}"#, r#""""#),
        (r#"{"or": []}"#, r#"null"#),
        (r#"{"and": []}"#, r#"null"#),
        (r#"{"?:": [0, 1]}"#, r#"null"#),
        (r#"{"merge": [1, [2, [3]], null]}"#, r#"[1,2,[3],null]"#),
        (r#"{"merge": []}"#, r#"[]"#),
        // An array an operator built is one object, the same wherever read.
        (
            r#"{"reduce": [[1], {"==": [{"var": "accumulator"}, {"var": "accumulator"}]}, {"merge": [1]}]}"#,
            r#"true"#,
        ),
        (
            r#"{"reduce": [[1], {"===": [{"var": "accumulator"}, {"var": "accumulator"}]}, {"map": [[1], 1]}]}"#,
            r#"true"#,
        ),
        (r#"{"==": [{"merge": [1]}, {"merge": [1]}]}"#, r#"false"#),
    ];
    let mut wrong = Vec::new();
    for (rule, want) in table {
        let rule: serde_json::Value = serde_json::from_str(rule).unwrap();
        let want: serde_json::Value = serde_json::from_str(want).unwrap();
        match evaluate_logic(&rule, &serde_json::json!({})) {
            Ok(got) if got == want => {}
            other => wrong.push(format!("{rule}: expected {want}, got {other:?}")),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// `Number(s)` and `parseFloat(s)` of node 20 (printed with `Object.is(x,
/// -0) ? "-0" : String(x)`).
#[test]
fn strings_become_numbers_as_in_javascript() {
    let table: &[(&str, &str, &str)] = &[
        ("", "0", "NaN"),
        (" 12 ", "12", "12"),
        ("0x10", "16", "0"),
        ("0X1f", "31", "0"),
        ("0b101", "5", "0"),
        ("0o17", "15", "0"),
        ("-0x10", "NaN", "-0"),
        ("1e3", "1000", "1000"),
        (".5", "0.5", "0.5"),
        ("5.", "5", "5"),
        ("+.5e1", "5", "5"),
        ("-Infinity", "-Infinity", "-Infinity"),
        ("Infinity", "Infinity", "Infinity"),
        ("infinity", "NaN", "NaN"),
        ("inf", "NaN", "NaN"),
        ("NaN", "NaN", "NaN"),
        ("1_000", "NaN", "1"),
        ("12px", "NaN", "12"),
        ("\u{a0}\u{feff}3\u{2028}", "3", "3"),
        ("1e", "NaN", "1"),
        ("--1", "NaN", "NaN"),
        ("0x", "NaN", "0"),
        (" ", "0", "NaN"),
    ];
    let show = |n: f64| {
        if n == 0.0 && n.is_sign_negative() {
            "-0".to_owned()
        } else {
            number_to_string(n)
        }
    };
    for (s, number, float) in table {
        assert_eq!(show(string_to_number(s)), *number, "Number({s:?})");
        assert_eq!(
            show(parse_float(&Val::text(*s))),
            *float,
            "parseFloat({s:?})"
        );
    }
}

/// `String(x)` of node 20.
#[test]
fn numbers_are_written_as_in_javascript() {
    let table: &[(f64, &str)] = &[
        (1e21, "1e+21"),
        (1e-7, "1e-7"),
        (123e-20, "1.23e-18"),
        (0.1, "0.1"),
        (1.5e300, "1.5e+300"),
        (2e-300, "2e-300"),
        (123456789012345680000.0, "123456789012345680000"),
        (0.1 + 0.2, "0.30000000000000004"),
        (-1.5, "-1.5"),
        (100.0, "100"),
        (1e20, "100000000000000000000"),
        (123.456, "123.456"),
        (-1e-7, "-1e-7"),
        (5e-324, "5e-324"),
        (f64::MAX, "1.7976931348623157e+308"),
        (-0.0, "0"),
        (f64::NAN, "NaN"),
        (f64::NEG_INFINITY, "-Infinity"),
    ];
    for (n, want) in table {
        assert_eq!(number_to_string(*n), *want, "String({n})");
    }
}

/// A tree the generator wrote that is not what the rule's JSON compiles to
/// stops a debug build's start-up, as a JSONata tree unlike its parse does.
#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "is not the compiled one")]
fn a_generated_rule_tree_unlike_the_compiled_one_is_caught() {
    use crate::logic::{Node, Op};
    let tree = Node::Binary(Op::Ge, Box::new([Node::Num(1.0), Node::Num(2.0)]));
    let _ = super::rule::Logic::from_tree(r#"{">": [1, 2]}"#, tree);
}

/// The generator's tree for a rule is taken as it is when it matches.
#[test]
fn a_generated_rule_tree_like_the_compiled_one_is_taken() {
    use crate::logic::{Node, Op};
    let tree = Node::Binary(Op::Gt, Box::new([Node::Num(1.0), Node::Num(2.0)]));
    let logic = super::rule::Logic::from_tree(r#"{">": [1, 2]}"#, tree).unwrap();
    assert_eq!(
        logic.decide(&[], &jsonata_core::value::JValue::Null),
        Ok(false)
    );
}

/// A rule's loops stop at its deadline, and what it builds counts against
/// its byte budget; within both it decides as without them.
#[test]
fn a_rule_stops_at_its_deadline_and_its_budget() {
    use super::env::{Bounds, LogicError};
    use super::rule::Logic;
    use std::time::{Duration, Instant};
    // `some` over the slot of `map` over the slot: n² steps.
    let rule = serde_json::json!({"some": [{"val": ["\u{0}", "0"]},
        {"in": [-1, {"map": [{"val": [[1], "\u{0}", "0"]}, {"var": ""}]}]}]});
    let logic = Logic::compile(&rule).unwrap();
    let small = [jsonata_core::value::JValue::from_json_str("[1, 2, 3]").unwrap()];
    let null = jsonata_core::value::JValue::Null;
    assert_eq!(logic.decide(&small, &null), Ok(false));
    let bounds = Bounds {
        deadline: Some(Instant::now() + Duration::from_secs(60)),
        max_bytes: 1000,
    };
    assert_eq!(logic.decide_within(&small, &null, bounds), Ok(false));
    let items: Vec<_> = (0..20_000).collect();
    let big = [
        jsonata_core::value::JValue::from_json_str(&serde_json::to_string(&items).unwrap())
            .unwrap(),
    ];
    let started = Instant::now();
    let timed = Bounds {
        deadline: Some(started + Duration::from_millis(50)),
        max_bytes: u64::MAX,
    };
    assert_eq!(
        logic.decide_within(&big, &null, timed),
        Err(LogicError::TimeLimit)
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let sized = Bounds {
        deadline: None,
        max_bytes: 1 << 20,
    };
    assert_eq!(
        logic.decide_within(&big, &null, sized),
        Err(LogicError::ValueLimit(1 << 20))
    );
    // `cat` doubling in `reduce`.
    let doubling = serde_json::json!({"reduce": [{"val": ["\u{0}", "0"]},
        {"cat": [{"var": "accumulator"}, {"var": "accumulator"}]}, "ab"]});
    let logic = Logic::compile(&doubling).unwrap();
    let sixty = [jsonata_core::value::JValue::from_json_str(
        &serde_json::to_string(&(0..60).collect::<Vec<_>>()).unwrap(),
    )
    .unwrap()];
    assert_eq!(
        logic.decide_within(&sixty, &null, sized),
        Err(LogicError::ValueLimit(1 << 20))
    );
}
