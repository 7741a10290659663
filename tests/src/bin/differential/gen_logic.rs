//! Random JSON Logic rules of the json-logic-js 2.0 operator set, nested,
//! over [`rng::data`](super::rng::data)'s fields, with `var`s as mcpGraph
//! writes them: JSONata paths on the context.

use serde_json::{Value, json};

use super::rng::{self, Rng};

/// `var` paths: present fields, nested and indexed ones, absent ones, and
/// the names json-logic-js gives a `reduce` callback (which mcpGraph
/// evaluates on the root, like any `var`).
const VARS: &[&str] = &[
    "n",
    "price",
    "qty",
    "s",
    "name",
    "flag",
    "nums",
    "tags",
    "items",
    "nested",
    "nested.x",
    "nested.y",
    "nested.z",
    "items[0].price",
    "items.price",
    "items.name",
    "nums[0]",
    "absent",
    "nested.absent",
    "$count(nums)",
    "accumulator",
    "current",
    "x",
    "y",
    "z",
];

/// Keys `missing`/`missing_some` look up (json-logic-js paths).
const KEYS: &[&str] = &[
    "n",
    "s",
    "name",
    "flag",
    "nested.x",
    "nested.absent",
    "absent",
    "y",
    "items.0",
];

/// Array-valued `var`s, for the iterating operators and `merge`/`in`.
const ARRAYS: &[&str] = &[
    "nums",
    "tags",
    "items",
    "nested.z",
    "items.price",
    "absent",
    "s",
];

/// A random rule, at most `depth` operators deep.
pub fn rule(rng: &mut Rng, depth: u32) -> Value {
    if depth == 0 || rng.chance(0.25) {
        return leaf(rng);
    }
    let d = depth - 1;
    match rng.below(22) {
        0 => json!({"var": rng.pick(VARS)}),
        1 => missing(rng),
        2 => {
            let n = 1 + 2 * rng.below(3);
            json!({"if": args(rng, d, n)})
        }
        3 => json!({"?:": args(rng, d, 3)}),
        4 | 5 => {
            let op = rng.pick(&["==", "===", "!=", "!==", ">", ">=", "<", "<="]);
            json!({ op: args(rng, d, 2) })
        }
        6 => {
            // Between, 3 arguments.
            let op = rng.pick(&["<", "<="]);
            json!({ op: args(rng, d, 3) })
        }
        7 => {
            let op = rng.pick(&["!", "!!"]);
            if rng.chance(0.5) {
                json!({ op: rule(rng, d) })
            } else {
                json!({ op: [rule(rng, d)] })
            }
        }
        8 => {
            let op = rng.pick(&["or", "and"]);
            let n = 1 + rng.below(3);
            json!({ op: args(rng, d, n) })
        }
        9 => {
            let op = rng.pick(&["max", "min"]);
            let n = rng.below(4);
            json!({ op: args(rng, d, n) })
        }
        10 | 11 => {
            let op = rng.pick(&["+", "-", "*", "/", "%"]);
            let n = match op {
                "+" | "*" => 1 + rng.below(3),
                "-" => 1 + rng.below(2),
                _ => 2,
            };
            json!({ op: args(rng, d, n) })
        }
        12..=14 => iterating(rng, d),
        15 => json!({"merge": (0..rng.below(4)).map(|_| merge_arg(rng, d)).collect::<Vec<_>>()}),
        16 => {
            let haystack = if rng.chance(0.5) {
                array(rng)
            } else {
                rule(rng, d)
            };
            json!({"in": [rule(rng, d), haystack]})
        }
        17 => {
            let n = 1 + rng.below(3);
            json!({"cat": args(rng, d, n)})
        }
        18 => {
            let mut a = vec![rule(rng, d), small_int(rng)];
            if rng.chance(0.5) {
                a.push(small_int(rng));
            }
            json!({ "substr": a })
        }
        19 => json!({"log": [rule(rng, d)]}),
        _ => leaf(rng),
    }
}

fn args(rng: &mut Rng, depth: u32, n: usize) -> Vec<Value> {
    (0..n).map(|_| rule(rng, depth)).collect()
}

/// A literal (any JSON but an object, which would read as an operator) or a
/// `var`.
fn leaf(rng: &mut Rng) -> Value {
    match rng.below(10) {
        0..=4 => json!({"var": rng.pick(VARS)}),
        5 => Value::Array((0..rng.below(3)).map(|_| rng::scalar(rng)).collect()),
        _ => rng::scalar(rng),
    }
}

fn small_int(rng: &mut Rng) -> Value {
    json!(rng.below(7) as i64 - 3)
}

/// An array: a literal one or a `var` that usually holds one.
fn array(rng: &mut Rng) -> Value {
    if rng.chance(0.6) {
        json!({"var": rng.pick(ARRAYS)})
    } else {
        Value::Array((0..rng.below(4)).map(|_| rng::scalar(rng)).collect())
    }
}

fn merge_arg(rng: &mut Rng, depth: u32) -> Value {
    if rng.chance(0.6) {
        array(rng)
    } else {
        rule(rng, depth)
    }
}

fn missing(rng: &mut Rng) -> Value {
    let keys: Vec<&str> = (0..1 + rng.below(3)).map(|_| rng.pick(KEYS)).collect();
    match rng.below(3) {
        0 => json!({"missing": keys}),
        1 => json!({"missing": keys[0]}),
        _ => json!({"missing_some": [rng.below(3), keys]}),
    }
}

/// `map`, `filter`, `reduce`, `all`, `none`, `some`: an array and a
/// callback. mcpGraph substitutes every `var` before json-logic-js runs,
/// so a callback cannot read the current item; it is a rule on the root.
fn iterating(rng: &mut Rng, depth: u32) -> Value {
    let op = rng.pick(&["map", "filter", "reduce", "all", "none", "some"]);
    let callback = rule(rng, depth.min(2));
    if op == "reduce" {
        json!({ op: [array(rng), callback, rng::scalar(rng)] })
    } else {
        json!({ op: [array(rng), callback] })
    }
}
