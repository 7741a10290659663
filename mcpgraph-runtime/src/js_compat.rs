//! jsonata-js's behaviour where jsonata-core's differs: the host
//! functions a tree rewritten by `mcpgraph_expr::compat` calls (its docs
//! say what each rewrite restores), registered on an evaluator by
//! [`register`] for the groups an expression needs.

pub(crate) mod finite;
mod keys;

use jsonata_core::evaluator::{Evaluator, EvaluatorError};
use jsonata_core::value::JValue;
use mcpgraph_expr::Helpers;
use mcpgraph_expr::names::{self, EXTREME, NONEMPTY, OPERAND, SORTABLE, TRUTH};

/// Registers on `evaluator` the helpers of `needed` not yet in
/// `registered`, and returns the set now registered.
pub(crate) fn register(evaluator: &mut Evaluator, registered: Helpers, needed: Helpers) -> Helpers {
    if registered.covers(needed) {
        return registered;
    }
    type Host = fn(&[JValue]) -> Result<JValue, EvaluatorError>;
    const GROUPS: [(Helpers, &[(&str, Host)]); 3] = [
        (
            Helpers::FINITE,
            &[
                (OPERAND, finite::operand),
                (TRUTH, finite::truth),
                (EXTREME, finite::extreme),
                (SORTABLE, finite::sortable),
            ],
        ),
        (Helpers::KEYS, &[(names::KEYS, keys::in_js_order)]),
        (Helpers::NONEMPTY, &[(NONEMPTY, nonempty)]),
    ];
    for (group, functions) in GROUPS {
        if !needed.covers(group) || registered.covers(group) {
            continue;
        }
        for &(name, function) in functions {
            if let Err(e) = evaluator.register_fn(name, function) {
                // Only a clash with a JSONata built-in can fail; the tests
                // of this module catch it.
                tracing::error!("cannot register ${name}: {e}");
            }
        }
    }
    registered.union(needed)
}

/// Its argument, but no value for an empty array.
fn nonempty(args: &[JValue]) -> Result<JValue, EvaluatorError> {
    Ok(match args.first() {
        Some(JValue::Array(items)) if items.is_empty() => JValue::Undefined,
        Some(value) => value.clone(),
        None => JValue::Undefined,
    })
}

#[cfg(test)]
mod tests;
