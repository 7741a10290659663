//! Conversions between JSON (`serde_json::Value`) and JSONata's `JValue`,
//! in JavaScript's key order: as `JSON.parse` builds an object coming in,
//! as `JSON.stringify` writes one going out (index keys first). The
//! runtime converts at the edges of a call with these, and the rule
//! evaluator's test entry points with it.

use jsonata_core::value::JValue;
use serde_json::{Map, Number, Value};

use crate::{in_js_order, sort_js_order};

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

    /// Objects nested `depth` deep (objects cost the conversions the most
    /// stack per level), built without recursion.
    fn nested(depth: u64) -> JValue {
        let mut value = JValue::Number(1.0);
        for _ in 0..depth {
            value = JValue::object([("k".to_owned(), value)].into_iter().collect());
        }
        value
    }

    /// A value at `MAX_VALUE_DEPTH_CEILING` goes through every recursive
    /// conversion of a call's edges on half of a worker thread's 2 MiB
    /// stack, in this (debug) build, where frames are largest: the ceiling
    /// keeps its margin as the conversions change.
    #[test]
    fn values_at_the_depth_ceiling_convert_on_half_a_worker_stack() {
        let converted = std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(|| {
                let value = nested(crate::MAX_VALUE_DEPTH_CEILING);
                let json = to_json(&value).expect("a value");
                let text = serde_json::to_string(&json.clone()).expect("serialises");
                let back = from_json(&json);
                drop(json);
                (text.len(), back == value)
            })
            .expect("a thread")
            .join()
            .expect("no overflow");
        // `{"k":` and `}` per level, around the `1`.
        assert_eq!(converted, (6 * 256 + 1, true));
    }

    #[test]
    fn undefined_is_no_value_and_drops_from_containers() {
        assert_eq!(to_json(&JValue::Undefined), None);
        let arr = JValue::array(vec![JValue::Number(1.0), JValue::Undefined]);
        assert_eq!(to_json(&arr), Some(json!([1])));
    }
}
