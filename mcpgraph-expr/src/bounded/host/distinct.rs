//! `$distinct` in linear time: jsonata-core's built-in compares each item
//! with every distinct item before it (quadratic: 200,000 distinct items
//! take minutes in one step, which no time limit can stop).

use std::collections::HashMap;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hash, Hasher};

use jsonata_core::evaluator::EvaluatorError;
use jsonata_core::functions::array::values_equal;
use jsonata_core::value::JValue;

use super::Budget;

/// `$distinct`, as jsonata-core's built-in (signature `<x:x>`): the first
/// of each group of deeply equal items, in order; anything but an array
/// of two items or more as it is. Items are grouped by a hash that agrees
/// with `values_equal` (object keys in any order, `0` and `-0` alike), and
/// compared within their group only; the time limit is looked at as it
/// goes.
pub(in crate::bounded) fn distinct(
    args: &[JValue],
    budget: &Budget,
) -> Result<JValue, EvaluatorError> {
    let items = match args.first() {
        None | Some(JValue::Undefined) => return Ok(JValue::Undefined),
        Some(JValue::Array(items)) if items.len() > 1 => items,
        Some(other) => return Ok(other.clone()),
    };
    let state = RandomState::new();
    let mut kept: Vec<JValue> = Vec::new();
    // Hash -> indices in `kept`.
    let mut groups: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        if i.is_multiple_of(1024) {
            budget.check_time()?;
        }
        let Some(hash) = hash_of(item, &state) else {
            // Never equal to anything, itself included (`values_equal`).
            kept.push(item.clone());
            continue;
        };
        let group = groups.entry(hash).or_default();
        if !group.iter().any(|&j| values_equal(item, &kept[j])) {
            group.push(kept.len());
            kept.push(item.clone());
        }
    }
    let mut result = JValue::array(kept);
    // jsonata-js builds a sequence only when the input was one.
    if items.sequence {
        result.mark_sequence();
    }
    Ok(result)
}

/// A hash of `value` under which values equal by `values_equal` hash
/// alike; `None` for a value `values_equal` finds equal to nothing
/// (functions, regexes, `undefined`, or arrays and objects holding one).
/// Object members are hashed in key order, so the order they were built
/// in does not count. Walks without recursion.
fn hash_of(value: &JValue, state: &RandomState) -> Option<u64> {
    enum Step<'a> {
        Key(&'a str),
        Value(&'a JValue),
    }
    let mut hasher = state.build_hasher();
    let mut stack = vec![Step::Value(value)];
    while let Some(step) = stack.pop() {
        let value = match step {
            Step::Key(key) => {
                key.hash(&mut hasher);
                continue;
            }
            Step::Value(value) => value,
        };
        match value {
            JValue::Null => 0u8.hash(&mut hasher),
            JValue::Bool(b) => (1u8, b).hash(&mut hasher),
            // `0 == -0`; NaN equals nothing but hashes alike, which is
            // only a comparison more.
            JValue::Number(n) => (2u8, if *n == 0.0 { 0 } else { n.to_bits() }).hash(&mut hasher),
            JValue::String(s) => (3u8, &**s).hash(&mut hasher),
            JValue::Array(items) => {
                (4u8, items.len()).hash(&mut hasher);
                stack.extend(items.iter().rev().map(Step::Value));
            }
            JValue::Object(map) => {
                (5u8, map.len()).hash(&mut hasher);
                let mut members: Vec<_> = map.iter().collect();
                members.sort_unstable_by(|a, b| b.0.cmp(a.0));
                for (key, member) in members {
                    stack.extend([Step::Value(member), Step::Key(key)]);
                }
            }
            _ => return None,
        }
    }
    Some(hasher.finish())
}
