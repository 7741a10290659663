//! Objects built in JavaScript's key order.
//!
//! jsonata-js builds objects as JavaScript does, so integer-like keys come
//! first, ascending, whatever order they were added in: `{"b": 1, "2": 2}`
//! lists `2` first, and so does `$keys` of it. jsonata-core keeps insertion
//! order. Data arrives in JavaScript's order (`value::from_json`) and leaves
//! in it (`js_text`), but an object built during the evaluation is seen by
//! `$keys`, `$each`, `$spread`, `$string` and `&` in jsonata-core's order.
//!
//! So the constructs that can add an integer-like key after another key
//! are wrapped in [`in_js_order`]: object constructors whose keys are
//! computed (or literal and integer-like), group-bys (`items{name: price}`)
//! and `$merge`. Objects whose keys are all literal names, the common
//! case, are left as they are.

use jsonata_core::ast::AstNode;
use jsonata_core::evaluator::EvaluatorError;
use jsonata_core::value::JValue;

use crate::js_text::{in_js_order as keys_in_js_order, is_index_key, sort_js_order};

/// The host function that reorders an object.
pub(super) const NAME: &str = "__mcpgraph_js_keys";

/// Whether `node` builds an object whose keys may be out of JavaScript's
/// order.
pub(super) fn needs_order(node: &AstNode) -> bool {
    match node {
        AstNode::Object(pairs) | AstNode::ObjectTransform { pattern: pairs, .. } => {
            pairs.iter().any(|(key, _)| match key {
                AstNode::String(name) => is_index_key(name).is_some(),
                _ => true,
            })
        }
        AstNode::Function {
            name,
            is_builtin: true,
            ..
        } => name == "merge",
        _ => false,
    }
}

/// Whether `node` is already a call of [`NAME`].
pub(super) fn is_wrapper(node: &AstNode) -> bool {
    matches!(node, AstNode::Function { name, .. } if name == NAME)
}

/// Its argument, an object's keys put in JavaScript's order; anything
/// else (an object already in order included) as it is.
pub(super) fn in_js_order(args: &[JValue]) -> Result<JValue, EvaluatorError> {
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
