//! The host functions compat's rewrites call (the `eval` feature): every
//! evaluator of the runtime registers those its expressions need.

use jsonata_core::evaluator::{Evaluator, EvaluatorError};
use jsonata_core::value::JValue;

use super::{Helpers, KEYS, NONEMPTY};

mod finite;
mod keys;

/// Registers on `evaluator` the helpers of `needed` not yet in
/// `registered`, and returns the set now registered.
pub fn register(evaluator: &mut Evaluator, registered: Helpers, needed: Helpers) -> Helpers {
    if registered.covers(needed) {
        return registered;
    }
    type Host = fn(&[JValue]) -> Result<JValue, EvaluatorError>;
    const GROUPS: [(Helpers, &[(&str, Host)]); 3] = [
        (
            Helpers::FINITE,
            &[
                (super::finite::OPERAND, finite::operand),
                (super::finite::TRUTH, finite::truth),
                (super::finite::EXTREME, finite::extreme),
                (super::finite::SORTABLE, finite::sortable),
            ],
        ),
        (Helpers::KEYS, &[(KEYS, keys::in_js_order)]),
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

/// [`NONEMPTY`]: its argument, but no value for an empty array.
fn nonempty(args: &[JValue]) -> Result<JValue, EvaluatorError> {
    Ok(match args.first() {
        Some(JValue::Array(items)) if items.is_empty() => JValue::Undefined,
        Some(value) => value.clone(),
        None => JValue::Undefined,
    })
}
