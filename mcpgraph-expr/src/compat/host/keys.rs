//! The host function of `compat::keys`'s rewrite.

use jsonata_core::evaluator::EvaluatorError;
use jsonata_core::value::JValue;

use crate::{in_js_order as keys_in_js_order, sort_js_order};

/// Its argument, an object's keys put in JavaScript's order; anything
/// else (an object already in order included) as it is.
pub(in crate::compat) fn in_js_order(args: &[JValue]) -> Result<JValue, EvaluatorError> {
    let value = match args.first() {
        Some(value) => value,
        None => return Ok(JValue::Undefined),
    };
    let JValue::Object(map) = value else {
        return Ok(value.clone());
    };
    if keys_in_js_order(map.keys().map(String::as_str)) {
        return Ok(value.clone());
    }
    let mut entries: Vec<(String, JValue)> =
        map.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    sort_js_order(&mut entries);
    Ok(JValue::object(entries.into_iter().collect()))
}
