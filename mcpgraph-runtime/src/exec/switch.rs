//! A switch node: each rule's `var` slots evaluated with JSONata, and the
//! rule applied to them (and to the context, which `missing` reads) by the
//! JSON Logic evaluator of `logic`.

use jsonata_core::value::JValue;

use super::Execution;
use crate::error::{ErrorKind, NodeError};
use crate::expressions::expr::Switch;
use crate::expressions::value::measure;

impl Execution {
    /// Runs a switch node's rules; `Some(i)` is the first condition whose
    /// rule holds (JavaScript truthiness of its value), `None` means the
    /// default `next`. The caller records the chosen target with
    /// [`Execution::switched`].
    pub fn switch(&mut self, switch: &Switch) -> Result<Option<usize>, NodeError> {
        let mut values = std::mem::take(&mut self.slot_values);
        let mut chosen = Ok(None);
        for (index, rule) in switch.conditions.iter().enumerate() {
            values.clear();
            for var in &rule.vars {
                let value = match self.eval(var) {
                    Ok(value) => value,
                    Err(e) => {
                        self.slot_values = values;
                        return Err(e);
                    }
                };
                // Operators walk values recursively (`cat` of nested
                // arrays, `missing` paths): bounded first.
                let limits = &self.limits;
                if let Err(over) = measure(&value, limits.max_value_depth, limits.max_value_bytes) {
                    self.slot_values = values;
                    return Err(self.oversize("a `var` value", &over));
                }
                values.push(value);
            }
            // Only `missing` and `missing_some` read the context.
            let context = if rule.needs_context {
                &self.context
            } else {
                &JValue::Null
            };
            let logic = &rule.logic;
            // The closure returns a byte, the error aside: a wider value
            // was copied out through memory, which stalled on every rule.
            let mut thrown = None;
            let decided = super::evaluator::contained(|| {
                logic
                    .decide(&values, context)
                    .map_err(|e| thrown = Some(e))
                    .ok()
            });
            match decided {
                Ok(Some(true)) => {
                    chosen = Ok(Some(index));
                    break;
                }
                Ok(Some(false)) => {}
                Ok(None) | Err(_) => {
                    let e = thrown.or(decided.err()).unwrap_or_default();
                    chosen = Err(self.error(
                        ErrorKind::Expression,
                        format!("JSON Logic rule {index} failed: {e}"),
                    ));
                    break;
                }
            }
        }
        self.slot_values = values;
        chosen
    }
}
