//! The differences between two JSON values, as a person reads them: one
//! line per place that differs, with its path.

use serde_json::Value;

/// At most this many differences are listed; the rest are counted.
const MAX_LINES: usize = 20;

/// The lines that say how `actual` differs from `expected`, each
/// `  at $.path: expected X, got Y` (or a missing or extra key); empty
/// when they are equal.
pub(crate) fn diff(expected: &Value, actual: &Value) -> Vec<String> {
    let mut lines = Vec::new();
    walk("$", expected, actual, &mut lines);
    if lines.len() > MAX_LINES {
        let more = lines.len() - MAX_LINES;
        lines.truncate(MAX_LINES);
        lines.push(format!("  ... and {more} more"));
    }
    lines
}

fn walk(path: &str, expected: &Value, actual: &Value, lines: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (key, e_value) in e {
                let at = member(path, key);
                match a.get(key) {
                    Some(a_value) => walk(&at, e_value, a_value, lines),
                    None => lines.push(format!("  at {at}: expected {}, missing", show(e_value))),
                }
            }
            for (key, a_value) in a {
                if !e.contains_key(key) {
                    let at = member(path, key);
                    lines.push(format!("  at {at}: not expected, got {}", show(a_value)));
                }
            }
        }
        (Value::Array(e), Value::Array(a)) if e.len() == a.len() => {
            for (i, (e, a)) in e.iter().zip(a).enumerate() {
                walk(&format!("{path}[{i}]"), e, a, lines);
            }
        }
        (Value::Array(e), Value::Array(a)) => lines.push(format!(
            "  at {path}: expected {} items, got {}: expected {}, got {}",
            e.len(),
            a.len(),
            show(expected),
            show(actual)
        )),
        _ if same(expected, actual) => {}
        _ => lines.push(format!(
            "  at {path}: expected {}, got {}",
            show(expected),
            show(actual)
        )),
    }
}

/// Equal as JSON values (`1` and `1.0` are the same number).
pub(crate) fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|other| same(v, other)))
        }
        _ => a == b,
    }
}

/// Whether `actual` holds everything `expected` does: objects may have
/// more keys; arrays have the same length and match item by item.
pub(crate) fn contains(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => e
            .iter()
            .all(|(k, v)| a.get(k).is_some_and(|other| contains(v, other))),
        (Value::Array(e), Value::Array(a)) => {
            e.len() == a.len() && e.iter().zip(a).all(|(e, a)| contains(e, a))
        }
        _ => same(expected, actual),
    }
}

/// [`diff`] for a subset: keys `actual` has beyond `expected`'s are fine.
pub(crate) fn diff_subset(expected: &Value, actual: &Value) -> Vec<String> {
    let mut lines = diff(expected, actual);
    lines.retain(|line| !line.contains(": not expected, got "));
    lines
}

fn member(path: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !key.starts_with(|c: char| c.is_ascii_digit());
    if plain {
        format!("{path}.{key}")
    } else {
        format!("{path}[{}]", Value::String(key.to_owned()))
    }
}

/// A value in a line: its JSON, cut at 120 characters.
fn show(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(120) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lists_each_place_that_differs_with_its_path() {
        let lines = diff(
            &json!({"count": 7, "files": ["a", "b"], "gone": 1, "odd key": true}),
            &json!({"count": 8, "files": ["a", "c"], "new": null, "odd key": true}),
        );
        assert_eq!(
            lines,
            [
                "  at $.count: expected 7, got 8",
                "  at $.files[1]: expected \"b\", got \"c\"",
                "  at $.gone: expected 1, missing",
                "  at $.new: not expected, got null",
            ]
        );
        assert!(diff(&json!({"a": [1.0]}), &json!({"a": [1]})).is_empty());
    }

    #[test]
    fn a_subset_ignores_extra_keys_but_not_extra_items() {
        assert!(contains(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
        assert!(!contains(&json!({"a": [1]}), &json!({"a": [1, 2]})));
        assert!(diff_subset(&json!({"a": 1}), &json!({"a": 1, "b": 2})).is_empty());
        assert_eq!(
            diff_subset(&json!({"a": 2}), &json!({"a": 1, "b": 2})),
            ["  at $.a: expected 2, got 1"]
        );
    }
}
