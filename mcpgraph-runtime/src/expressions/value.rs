//! Conversions between JSONata's `JValue` and `serde_json::Value`.
//!
//! The execution context stays in `JValue` form for the whole call, so these
//! conversions run only at the edges: tool arguments coming in, `mcp` node
//! arguments going out, downstream results coming back, the final result.

use indexmap::IndexMap;
use jsonata_core::value::JValue;
use serde_json::{Map, Number, Value};

use crate::expressions::js_text::{in_js_order, sort_js_order};

/// Up to this many keys, a field is found by comparing names in order,
/// which is quicker than hashing the name with the map's SipHash.
const SCAN_UP_TO: usize = 8;

/// The position of field `name` in `map` (see [`SCAN_UP_TO`]).
pub(crate) fn field_index(map: &IndexMap<String, JValue>, name: &str) -> Option<usize> {
    if map.len() <= SCAN_UP_TO {
        map.keys().position(|key| key == name)
    } else {
        map.get_index_of(name)
    }
}

/// Field `name` of `map` (see [`SCAN_UP_TO`]).
pub(crate) fn field<'a>(map: &'a IndexMap<String, JValue>, name: &str) -> Option<&'a JValue> {
    field_index(map, name).map(|i| &map[i])
}

/// Why a value is over its budget.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Oversize {
    /// It nests arrays and objects deeper than this.
    Depth(u64),
    /// Its JSON text is longer than this many bytes.
    Bytes(u64),
}

/// The length of `value`'s JSON text (approximately: numbers count 8), if
/// it nests no deeper than `max_depth` and is no longer than `max_bytes`.
/// Walks the value without recursion, and stops as soon as a bound is
/// passed, so a value built to be enormous (shared parts repeated by
/// reference) costs at most the budget to measure.
pub(crate) fn measure(value: &JValue, max_depth: u64, max_bytes: u64) -> Result<u64, Oversize> {
    let mut bytes: u64 = 0;
    // Containers still to walk. Scalars are counted where they are met, so
    // scalars and flat containers (most outputs) allocate nothing.
    let mut stack: Vec<(&JValue, u64)> = Vec::new();
    let mut next = Some((value, 0));
    while let Some((value, depth)) = next.take().or_else(|| stack.pop()) {
        match value {
            JValue::Array(items) => {
                if depth >= max_depth {
                    return Err(Oversize::Depth(max_depth));
                }
                bytes += 2 + items.len() as u64;
                for child in items.iter() {
                    match scalar_bytes(child) {
                        Some(b) => bytes += b,
                        None => stack.push((child, depth + 1)),
                    }
                }
            }
            JValue::Object(map) => {
                if depth >= max_depth {
                    return Err(Oversize::Depth(max_depth));
                }
                bytes += 2;
                for (key, child) in map.iter() {
                    bytes += key.len() as u64 + 4;
                    match scalar_bytes(child) {
                        Some(b) => bytes += b,
                        None => stack.push((child, depth + 1)),
                    }
                }
            }
            scalar => bytes += scalar_bytes(scalar).unwrap_or(0),
        }
        if bytes > max_bytes {
            return Err(Oversize::Bytes(max_bytes));
        }
    }
    Ok(bytes)
}

/// The JSON length of a value that is not a container (`None` for arrays
/// and objects).
fn scalar_bytes(value: &JValue) -> Option<u64> {
    match value {
        JValue::String(s) => Some(s.len() as u64 + 2),
        JValue::Number(_) => Some(8),
        JValue::Array(_) | JValue::Object(_) => None,
        _ => Some(4),
    }
}

/// Converts a JSON value into a JSONata value.
pub fn from_json(value: &Value) -> JValue {
    match value {
        Value::Null => JValue::Null,
        Value::Bool(b) => JValue::Bool(*b),
        Value::Number(n) => JValue::Number(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => JValue::from(s.as_str()),
        Value::Array(items) => JValue::array(items.iter().map(from_json).collect()),
        Value::Object(map) => {
            let mut entries: Vec<(String, JValue)> =
                map.iter().map(|(k, v)| (k.clone(), from_json(v))).collect();
            // As `JSON.parse` builds it: jsonata-js sees index keys first.
            if !in_js_order(map.keys().map(String::as_str)) {
                sort_js_order(&mut entries);
            }
            JValue::object(entries.into_iter().collect())
        }
    }
}

/// Converts a JSONata value into JSON. `None` stands for JSONata's
/// `undefined` (no value); functions and regexes, which JSON cannot hold,
/// become `null` as `JSON.stringify` would make them inside arrays.
pub fn to_json(value: &JValue) -> Option<Value> {
    Some(match value {
        JValue::Undefined => return None,
        JValue::Null => Value::Null,
        JValue::Bool(b) => Value::Bool(*b),
        JValue::Number(n) => number(*n),
        JValue::String(s) => Value::String(s.to_string()),
        JValue::Array(items) => Value::Array(
            items
                .iter()
                .filter_map(|item| match item {
                    JValue::Undefined => None,
                    other => Some(to_json(other).unwrap_or(Value::Null)),
                })
                .collect(),
        ),
        JValue::Object(map) => {
            let mut entries: Vec<(String, Value)> = map
                .iter()
                // `JSON.stringify` leaves out function members (a regex
                // match's `next`).
                .filter(|(_, v)| !v.is_function())
                .filter_map(|(k, v)| Some((k.clone(), to_json(v)?)))
                .collect();
            // jsonata-core keeps insertion order; jsonata-js's objects are
            // JavaScript's, index keys first.
            if !in_js_order(entries.iter().map(|(k, _)| k.as_str())) {
                sort_js_order(&mut entries);
            }
            Value::Object(entries.into_iter().collect::<Map<_, _>>())
        }
        _ => Value::Null,
    })
}

/// JSONata numbers are `f64`; integral ones are written without a fraction,
/// as JavaScript writes them (`7`, not `7.0`).
#[cfg(test)]
mod measure_tests {
    use super::*;

    fn nested(depth: usize) -> JValue {
        let mut value = JValue::Number(1.0);
        for _ in 0..depth {
            value = JValue::array(vec![value]);
        }
        value
    }

    #[test]
    fn measures_without_recursing() {
        let value = from_json(&serde_json::json!({"a": [1, "xy"], "b": null}));
        let bytes = measure(&value, 10, 1000).unwrap();
        assert!((20..40).contains(&bytes), "{bytes}");
        assert_eq!(measure(&value, 1, 1000), Err(Oversize::Depth(1)));
        assert_eq!(measure(&value, 10, 10), Err(Oversize::Bytes(10)));
        // Far deeper than any stack would take recursively.
        let deep = nested(1_000_000);
        assert_eq!(measure(&deep, 128, u64::MAX), Err(Oversize::Depth(128)));
        assert!(measure(&nested(128), 128, u64::MAX).is_ok());
    }
}

fn number(n: f64) -> Value {
    const MAX_SAFE: f64 = 9_007_199_254_740_992.0;
    if !n.is_finite() {
        Value::Null
    } else if n.fract() == 0.0 && n.abs() <= MAX_SAFE {
        Value::Number(Number::from(n as i64))
    } else {
        Number::from_f64(n).map_or(Value::Null, Value::Number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trips_and_writes_integers_plainly() {
        let v = json!({"a": [1, 2.5, "x", null, true], "b": {"c": 7}});
        assert_eq!(to_json(&from_json(&v)), Some(v));
        assert_eq!(to_json(&JValue::Number(7.0)), Some(json!(7)));
        assert_eq!(to_json(&JValue::Number(f64::NAN)), Some(Value::Null));
    }

    /// node -e 'console.log(JSON.stringify(JSON.parse(`{"b":1,"7":2,"a":{"z":0,"3":1}}`)))'
    /// gives {"7":2,"b":1,"a":{"3":1,"z":0}}
    #[test]
    fn objects_enter_and_leave_in_javascript_key_order() {
        let v: Value = serde_json::from_str(r#"{"b":1,"7":2,"a":{"z":0,"3":1}}"#).unwrap();
        let j = from_json(&v);
        let JValue::Object(map) = &j else { panic!() };
        assert_eq!(map.keys().collect::<Vec<_>>(), ["7", "b", "a"]);
        let built = JValue::object(
            [("z", 0.0), ("10", 1.0), ("2", 2.0)]
                .into_iter()
                .map(|(k, n)| (k.to_owned(), JValue::Number(n)))
                .collect(),
        );
        assert_eq!(
            to_json(&built).unwrap().to_string(),
            r#"{"2":2,"10":1,"z":0}"#
        );
    }

    #[test]
    fn undefined_is_no_value_and_drops_from_containers() {
        assert_eq!(to_json(&JValue::Undefined), None);
        let arr = JValue::array(vec![JValue::Number(1.0), JValue::Undefined]);
        assert_eq!(to_json(&arr), Some(json!([1])));
    }
}
