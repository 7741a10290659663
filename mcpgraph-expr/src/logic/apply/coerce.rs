//! JavaScript's type coercions, as json-logic-js's operators meet them:
//! ToPrimitive, ToNumber, ToString, `parseFloat`, abstract (`==`) and
//! strict (`===`) equality and the abstract relational comparison (`<`).

use std::borrow::Cow;
use std::cmp::Ordering;

use jsonata_core::value::JValue;

use super::value::Val;

/// ToString: `undefined` and `null` by name, arrays joined with `,`
/// (their `null`/`undefined` items empty), objects `[object Object]`.
pub(super) fn to_string<'v>(value: &'v Val<'_>) -> Cow<'v, str> {
    match value {
        Val::Undefined => Cow::Borrowed("undefined"),
        Val::Null => Cow::Borrowed("null"),
        Val::Bool(b) => Cow::Borrowed(if *b { "true" } else { "false" }),
        Val::Num(n) => Cow::Owned(number_to_string(*n)),
        Val::Str(s) => Cow::Borrowed(s),
        Val::Shared(s) => Cow::Borrowed(s),
        Val::Text(s) => Cow::Borrowed(s),
        _ if value.items().is_some() => Cow::Owned(join(value)),
        _ => Cow::Borrowed("[object Object]"),
    }
}

/// `Array.prototype.join` of an array, nested arrays joined in turn: with
/// a stack rather than recursion, as arrays nest as deep as the data (or
/// `reduce`) makes them.
fn join(array: &Val<'_>) -> String {
    let mut out = String::new();
    // The arrays being joined, each with the index of its next item.
    let mut stack = vec![(array.clone(), 0)];
    while let Some((array, next)) = stack.last_mut() {
        let Some(item) = array.items().and_then(|items| items.get(*next)) else {
            stack.pop();
            continue;
        };
        if *next > 0 {
            out.push(',');
        }
        *next += 1;
        if item.items().is_some() {
            stack.push((item, 0));
        } else if !item.is_nullish() {
            out.push_str(&to_string(&item));
        }
    }
    out
}

/// ToPrimitive: arrays and objects become their string, others stay.
fn to_primitive<'v, 'a>(value: &'v Val<'a>) -> Cow<'v, Val<'a>> {
    if value.is_container() {
        Cow::Owned(Val::text(to_string(value)))
    } else {
        Cow::Borrowed(value)
    }
}

/// ToNumber.
pub(super) fn to_number(value: &Val<'_>) -> f64 {
    match value {
        Val::Undefined => f64::NAN,
        Val::Null => 0.0,
        Val::Bool(b) => f64::from(u8::from(*b)),
        Val::Num(n) => *n,
        Val::Str(s) => string_to_number(s),
        Val::Shared(s) => string_to_number(s),
        Val::Text(s) => string_to_number(s),
        _ => string_to_number(&to_string(value)),
    }
}

/// JavaScript's white space and line terminators, which ToNumber and
/// `parseFloat` skip.
fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// ToNumber of a string: `""` (after trimming) is 0, `0x`/`0o`/`0b`
/// integers, `Infinity`, decimal literals; anything else `NaN`.
pub(super) fn string_to_number(s: &str) -> f64 {
    let s = s.trim_matches(is_js_space);
    if s.is_empty() {
        return 0.0;
    }
    for (prefix, radix) in [
        ("0x", 16),
        ("0X", 16),
        ("0o", 8),
        ("0O", 8),
        ("0b", 2),
        ("0B", 2),
    ] {
        if let Some(digits) = s.strip_prefix(prefix) {
            return radix_integer(digits, radix);
        }
    }
    match decimal_prefix(s) {
        Some(len) if len == s.len() => parse_decimal(s),
        _ => f64::NAN,
    }
}

fn radix_integer(digits: &str, radix: u32) -> f64 {
    if digits.is_empty() {
        return f64::NAN;
    }
    digits
        .chars()
        .try_fold(0.0, |acc: f64, c| {
            c.to_digit(radix)
                .map(|d| acc * f64::from(radix) + f64::from(d))
        })
        .unwrap_or(f64::NAN)
}

/// The length of the longest prefix of `s` that is a StrDecimalLiteral
/// (sign, `Infinity` or digits with an optional fraction and exponent).
fn decimal_prefix(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    if s[i..].starts_with("Infinity") {
        return Some(i + "Infinity".len());
    }
    let digits = |mut j: usize| {
        while b.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        j
    };
    let int_end = digits(i);
    let mut end = int_end;
    if b.get(end) == Some(&b'.') {
        end = digits(end + 1);
    }
    // At least one digit, before or after the point.
    if end - i - usize::from(end > int_end) == 0 {
        return None;
    }
    i = end;
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(b.get(i + 1), Some(b'+' | b'-')));
        let exp_end = digits(i + 1 + sign);
        if exp_end > i + 1 + sign {
            i = exp_end;
        }
    }
    Some(i)
}

fn parse_decimal(s: &str) -> f64 {
    match s.trim_start_matches(['+', '-']) {
        "Infinity" if s.starts_with('-') => f64::NEG_INFINITY,
        "Infinity" => f64::INFINITY,
        _ => s.parse().unwrap_or(f64::NAN),
    }
}

/// `parseFloat(value)`: the longest decimal prefix of its string, after
/// leading white space (`"12px"` is 12, `"0x10"` is 0, `"abc"` NaN).
pub(super) fn parse_float(value: &Val<'_>) -> f64 {
    if let Val::Num(n) = value {
        // Through its string and back: the same number, but -0 is 0.
        return if *n == 0.0 { 0.0 } else { *n };
    }
    let text = to_string(value);
    let s = text.trim_start_matches(is_js_space);
    match decimal_prefix(s) {
        Some(len) => parse_decimal(&s[..len]),
        None => f64::NAN,
    }
}

/// Number::toString: the shortest digits that round-trip, written
/// plainly from 1e-7 up to 1e21 and in exponent form outside.
pub(super) fn number_to_string(n: f64) -> String {
    if n.is_nan() {
        return "NaN".into();
    }
    if n.is_infinite() {
        return if n > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if n == 0.0 {
        return "0".into();
    }
    let sign = if n < 0.0 { "-" } else { "" };
    let exp_form = format!("{:e}", n.abs());
    let (mantissa, exp) = exp_form.split_once('e').unwrap_or((&exp_form, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let k = digits.len() as i64;
    let point = exp.parse::<i64>().unwrap_or(0) + 1;
    let body = if k <= point && point <= 21 {
        format!("{digits}{}", "0".repeat((point - k) as usize))
    } else if 0 < point && point <= 21 {
        format!(
            "{}.{}",
            &digits[..point as usize],
            &digits[point as usize..]
        )
    } else if -6 < point && point <= 0 {
        format!("0.{}{digits}", "0".repeat((-point) as usize))
    } else {
        let e = point - 1;
        let sign = if e < 0 { '-' } else { '+' };
        let rest = if k > 1 {
            format!(".{}", &digits[1..])
        } else {
            String::new()
        };
        format!("{}{rest}e{sign}{}", &digits[..1], e.abs())
    };
    format!("{sign}{body}")
}

/// Whether two arrays or objects are the same object. json-logic-js
/// copies every array it evaluates, so an array is only ever identical to
/// itself when both sides read the same place of the data.
fn same_object(a: &Val<'_>, b: &Val<'_>) -> bool {
    match (a, b) {
        (Val::Data(JValue::Object(x)), Val::Data(JValue::Object(y))) => std::rc::Rc::ptr_eq(x, y),
        (Val::Data(x), Val::Data(y)) => std::ptr::eq(*x, *y),
        (Val::List(x), Val::List(y)) | (Val::Scope(x), Val::Scope(y)) => x.ptr_eq(y),
        _ => false,
    }
}

/// `a === b`.
pub(super) fn strict_eq(a: &Val<'_>, b: &Val<'_>) -> bool {
    match (a, b) {
        (Val::Undefined, Val::Undefined) | (Val::Null, Val::Null) => true,
        (Val::Bool(x), Val::Bool(y)) => x == y,
        (Val::Num(x), Val::Num(y)) => x == y,
        _ => match (a.as_str(), b.as_str()) {
            (Some(x), Some(y)) => x == y,
            (None, None) => same_object(a, b),
            _ => false,
        },
    }
}

/// `a == b`: JavaScript's abstract equality.
pub(super) fn loose_eq(a: &Val<'_>, b: &Val<'_>) -> bool {
    match (a, b) {
        // The common cases first.
        (Val::Num(x), Val::Num(y)) => x == y,
        _ if a.as_str().is_some() && b.as_str().is_some() => a.as_str() == b.as_str(),
        _ if a.is_nullish() || b.is_nullish() => a.is_nullish() && b.is_nullish(),
        _ if a.is_container() && b.is_container() => same_object(a, b),
        (Val::Num(x), _) if b.as_str().is_some() => *x == to_number(b),
        (_, Val::Num(y)) if a.as_str().is_some() => to_number(a) == *y,
        (Val::Bool(_), _) if !matches!(b, Val::Bool(_)) => loose_eq(&Val::Num(to_number(a)), b),
        (_, Val::Bool(_)) if !matches!(a, Val::Bool(_)) => loose_eq(a, &Val::Num(to_number(b))),
        _ if a.is_container() => loose_eq(&to_primitive(a), b),
        _ if b.is_container() => loose_eq(a, &to_primitive(b)),
        _ => strict_eq(a, b),
    }
}

/// The abstract relational comparison `a < b`: two strings compare by
/// UTF-16 code units, anything else as numbers; `None` when a side is
/// `NaN` (every comparison is then false).
pub(super) fn less_than(a: &Val<'_>, b: &Val<'_>) -> Option<bool> {
    if let (Val::Num(x), Val::Num(y)) = (a, b) {
        return (!x.is_nan() && !y.is_nan()).then_some(x < y);
    }
    let (pa, pb) = (to_primitive(a), to_primitive(b));
    if let (Some(x), Some(y)) = (pa.as_str(), pb.as_str()) {
        return Some(x.encode_utf16().cmp(y.encode_utf16()) == Ordering::Less);
    }
    let (x, y) = (to_number(&pa), to_number(&pb));
    (!x.is_nan() && !y.is_nan()).then_some(x < y)
}
