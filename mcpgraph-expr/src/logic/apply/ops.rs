//! The operators that take their arguments evaluated: comparison,
//! arithmetic, strings, `merge`, `!`, `!!`, `in`, `log`. Each does what
//! its json-logic-js 2.0.5 function does in JavaScript.

use super::coerce::{less_than, loose_eq, parse_float, strict_eq, to_number, to_string};
use super::env::{Env, Operands};
use super::value::{Built, Val, js_truthy, logic_truthy};
use crate::logic::tree::{Op, is_binary};

/// The operators of any number of arguments.
pub(super) fn variadic<'a>(
    op: Op,
    argv: &impl Operands<'a>,
    env: &Env<'a>,
    data: &Val<'a>,
) -> Val<'a> {
    match op {
        Op::Add => fold(argv, env, data, |acc, v| acc + parse_float(v), Some(0.0)),
        Op::Mul => {
            if argv.len() == 1 {
                // `reduce` without an initial value on one item: the item.
                return argv.eval(0, env, data);
            }
            fold(argv, env, data, |acc, v| acc * parse_float(v), None)
        }
        Op::Min | Op::Max => {
            let none = if op == Op::Min {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            };
            fold(
                argv,
                env,
                data,
                |a, v| min_max(op, a, to_number(v)),
                Some(none),
            )
        }
        Op::Cat => {
            let mut out = String::new();
            for i in 0..argv.len() {
                let value = argv.eval(i, env, data);
                if !value.is_nullish() {
                    let text = to_string(&value);
                    if !env.spend(text.len() as u64) {
                        return Val::Undefined;
                    }
                    out.push_str(&text);
                }
            }
            Val::text(out)
        }
        Op::Merge => {
            let mut out = Vec::new();
            for i in 0..argv.len() {
                let value = argv.eval(i, env, data);
                let added = value.items().map_or(1, |items| items.len());
                if !env.spend(2 * added as u64) {
                    return Val::Undefined;
                }
                match value.items() {
                    Some(items) => out.extend(items.iter()),
                    None => out.push(value),
                }
            }
            Val::List(Built::new(out))
        }
        // The others are not applied here (see `eval::apply`).
        _ => Val::Undefined,
    }
}

/// The comparisons and `in` on two arguments (a third, where `<` and
/// `<=` take one, being `undefined`). Compiled rules apply these directly
/// (`Node::Binary`): the common switch conditions.
#[inline]
pub(super) fn binary(op: Op, a: &Val<'_>, b: &Val<'_>) -> bool {
    match op {
        Op::Eq => loose_eq(a, b),
        Op::Ne => !loose_eq(a, b),
        Op::StrictEq => strict_eq(a, b),
        Op::StrictNe => !strict_eq(a, b),
        Op::Gt => less_than(b, a) == Some(true),
        Op::Ge => less_than(a, b) == Some(false),
        Op::Lt => less_than(a, b) == Some(true),
        Op::Le => less_than(b, a) == Some(false),
        Op::In => contains(b, a),
        // Only the operators above are compiled to `Node::Binary`.
        _ => false,
    }
}

/// The operators of at most three arguments.
pub(super) fn fixed<'a>(op: Op, a: Val<'a>, b: Val<'a>, c: Val<'a>, env: &Env<'a>) -> Val<'a> {
    let lt = |x: &Val, y: &Val| less_than(x, y) == Some(true);
    let le = |x: &Val, y: &Val| less_than(y, x) == Some(false);
    match op {
        Op::Lt if !matches!(c, Val::Undefined) => Val::Bool(lt(&a, &b) && lt(&b, &c)),
        Op::Le if !matches!(c, Val::Undefined) => Val::Bool(le(&a, &b) && le(&b, &c)),
        _ if is_binary(op) => Val::Bool(binary(op, &a, &b)),
        Op::Not => Val::Bool(!logic_truthy(&a)),
        Op::NotNot => Val::Bool(logic_truthy(&a)),
        Op::Sub if matches!(b, Val::Undefined) => Val::Num(-to_number(&a)),
        Op::Sub => Val::Num(to_number(&a) - to_number(&b)),
        Op::Div => Val::Num(to_number(&a) / to_number(&b)),
        // Rust's `%` on f64 is JavaScript's: the sign of the dividend.
        Op::Mod => Val::Num(to_number(&a) % to_number(&b)),
        Op::Substr => substr(&a, &b, &c),
        // After a throw nothing more happens (json-logic-js stops there).
        Op::Log if env.thrown() => a,
        Op::Log => log(a),
        // The others are not applied here (see `eval::apply`).
        _ => Val::Undefined,
    }
}

/// `log`: its argument, written to the log (stderr: stdout may be the MCP
/// channel).
#[cold]
fn log(value: Val<'_>) -> Val<'_> {
    tracing::info!(target: "mcpgraph::json_logic", "log: {}", to_string(&value));
    value
}

/// `Array.prototype.reduce` over the arguments as numbers; without an
/// initial value and without arguments JavaScript throws.
fn fold<'a>(
    argv: &impl Operands<'a>,
    env: &Env<'a>,
    data: &Val<'a>,
    step: impl Fn(f64, &Val<'a>) -> f64,
    initial: Option<f64>,
) -> Val<'a> {
    let mut acc = initial;
    for i in 0..argv.len() {
        let value = argv.eval(i, env, data);
        acc = Some(match acc {
            Some(acc) => step(acc, &value),
            None => parse_float(&value),
        });
    }
    match acc {
        Some(n) => Val::Num(n),
        None => env.throw("Reduce of empty array with no initial value"),
    }
}

/// `Math.min`/`Math.max` of two numbers: `NaN` wins, and -0 is below 0.
fn min_max(op: Op, a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        return f64::NAN;
    }
    let b_wins = if op == Op::Min {
        b < a || (b == a && b.is_sign_negative())
    } else {
        b > a || (b == a && b.is_sign_positive())
    };
    if b_wins { b } else { a }
}

/// `in`: `b.indexOf(a) !== -1` for a string (substring) or an array
/// (strict equality); false for anything else.
fn contains(haystack: &Val<'_>, needle: &Val<'_>) -> bool {
    if !js_truthy(haystack) {
        return false;
    }
    if let Some(s) = haystack.as_str() {
        return contains_str(s, &to_string(needle));
    }
    haystack
        .items()
        .is_some_and(|items| items.iter().any(|item| strict_eq(&item, needle)))
}

/// Whether `needle` occurs in `s`: on short strings (switch rules test
/// fields, names, codes) a direct scan, which costs less than setting up
/// `str::contains`'s two-way search.
fn contains_str(s: &str, needle: &str) -> bool {
    const SHORT: usize = 64;
    if s.len() > SHORT {
        return s.contains(needle);
    }
    let (s, needle) = (s.as_bytes(), needle.as_bytes());
    match needle.split_first() {
        None => true,
        Some((first, rest)) => s
            .iter()
            .enumerate()
            .take((s.len() + 1).saturating_sub(needle.len()))
            .any(|(i, b)| b == first && s[i + 1..].starts_with(rest)),
    }
}

/// `substr`: `String(source).substr(start, length)` on UTF-16 code units;
/// a negative length leaves that many units off the end.
fn substr<'a>(source: &Val<'a>, start: &Val<'a>, len: &Val<'a>) -> Val<'a> {
    let units: Vec<u16> = to_string(source).encode_utf16().collect();
    let size = units.len() as f64;
    let mut from = integer(to_number(start));
    if from < 0.0 {
        from = (size + from).max(0.0);
    }
    let from = from.min(size);
    let rest = size - from;
    let take = if less_than(len, &Val::Num(0.0)) == Some(true) {
        // `temp.length + end`: a number, or for a string (or an array)
        // the two concatenated.
        let total = match len {
            Val::Num(n) => rest + n,
            other => to_number(&Val::text(format!("{rest}{}", to_string(other)))),
        };
        integer(total).clamp(0.0, rest)
    } else if matches!(len, Val::Undefined) {
        rest
    } else {
        integer(to_number(len)).clamp(0.0, rest)
    };
    let (from, take) = (from as usize, take as usize);
    Val::text(String::from_utf16_lossy(&units[from..from + take]))
}

/// ToIntegerOrInfinity.
fn integer(n: f64) -> f64 {
    if n.is_nan() { 0.0 } else { n.trunc() }
}
