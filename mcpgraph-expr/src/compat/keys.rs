//! Objects built in JavaScript's key order.
//!
//! jsonata-js builds objects as JavaScript does, so integer-like keys come
//! first, ascending, whatever order they were added in: `{"b": 1, "2": 2}`
//! lists `2` first, and so does `$keys` of it. jsonata-core keeps insertion
//! order. The runtime takes data in JavaScript's order and writes it out
//! in it, but an object built during the evaluation is seen by
//! `$keys`, `$each`, `$spread`, `$string` and `&` in jsonata-core's order.
//!
//! So the constructs that can add an integer-like key after another key
//! are wrapped in [`KEYS`], a host function (here too, with the `eval`
//! feature): object constructors whose keys are computed (or literal and
//! integer-like), group-bys (`items{name: price}`) and `$merge`. Objects
//! whose keys are all literal names, the common case, are left as they
//! are.

use jsonata_core::ast::AstNode;

use crate::is_index_key;

/// `$__mcpgraph_js_keys(value)`: an object's keys put in JavaScript's
/// order.
pub const KEYS: &str = "__mcpgraph_js_keys";

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

/// Whether `node` is already a call of [`KEYS`].
pub(super) fn is_wrapper(node: &AstNode) -> bool {
    matches!(node, AstNode::Function { name, .. } if name == KEYS)
}
