//! Conversions between JSONata's `JValue` and `serde_json::Value`.
//!
//! The execution context stays in `JValue` form for the whole call, so these
//! conversions run only at the edges: tool arguments coming in, `mcp` node
//! arguments going out, downstream results coming back, the final result.
//! The conversions are [`crate::json`]'s (the rule evaluator uses them
//! too); field lookup and the value budget are here.

use indexmap::IndexMap;
use jsonata_core::value::JValue;

/// Up to this many keys, a field is found by comparing names in order,
/// which is quicker than hashing the name with the map's SipHash.
const SCAN_UP_TO: usize = 8;

/// The position of field `name` in `map`: up to a few keys by comparing
/// names in order, past them by the map's hash.
pub fn field_index(map: &IndexMap<String, JValue>, name: &str) -> Option<usize> {
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
pub enum Oversize {
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
pub fn measure(value: &JValue, max_depth: u64, max_bytes: u64) -> Result<u64, Oversize> {
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

#[cfg(test)]
mod measure_tests {
    use super::*;
    use crate::json::from_json;

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
