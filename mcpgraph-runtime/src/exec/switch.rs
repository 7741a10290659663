//! A switch node: each rule's `var` slots evaluated, its data built in the
//! call's arena, and the rule applied with the JSON Logic engine.

use super::Execution;
use crate::error::NodeError;
use crate::expr::{SLOT_KEY, Switch};
use crate::logic::logic_engine;
use crate::value::{measure, to_data};

impl Execution {
    /// Runs a switch node's rules; `Some(i)` is the first condition whose
    /// rule is truthy, `None` means the default `next`. The caller records
    /// the chosen target with [`Execution::switched`].
    pub fn switch(&mut self, switch: &Switch) -> Result<Option<usize>, NodeError> {
        use datalogic_rs::DataValue;
        use datalogic_rs::bumpalo::collections::Vec as BumpVec;
        let engine = logic_engine();
        let mut values = std::mem::take(&mut self.slot_values);
        for (index, rule) in switch.conditions.iter().enumerate() {
            values.clear();
            for var in &rule.vars {
                let value = self.eval(var)?;
                // Checked before the conversion into the rule's data, which
                // recurses.
                let limits = &self.limits;
                if let Err(over) = measure(&value, limits.max_value_depth, limits.max_value_bytes) {
                    return Err(self.oversize("a `var` value", &over));
                }
                values.push(value);
            }
            // The rule's data, built straight into the arena: its slots
            // (`{SLOT_KEY: {"0": .., "1": ..}}`), and, only for rules that
            // read the data by path (`missing`), the context's fields.
            self.arena.reset();
            let arena = &self.arena;
            let mut slots = BumpVec::with_capacity_in(values.len(), arena);
            for (slot, value) in values.iter().enumerate() {
                if let Some(value) = to_data(value, arena) {
                    slots.push((slot_name(slot, arena), value));
                }
            }
            let slots = DataValue::Object(slots.into_bump_slice());
            let context = match rule.needs_context.then(|| to_data(&self.context, arena)) {
                Some(Some(DataValue::Object(fields))) => fields,
                _ => &[],
            };
            let mut fields = BumpVec::with_capacity_in(context.len() + 1, arena);
            fields.extend(context.iter().filter(|(k, _)| *k != SLOT_KEY).cloned());
            fields.push((SLOT_KEY, slots));
            let data = DataValue::Object(fields.into_bump_slice());
            let value = super::evaluator::contained(|| engine.evaluate(&rule.logic, data, arena))
                .map_err(|e| self.error(format!("JSON Logic rule {index} failed: {e}")))?
                .map_err(|e| self.error(format!("JSON Logic rule {index} failed: {e}")));
            let truthy = value.map(js_truthy);
            match truthy {
                Ok(true) => {
                    self.slot_values = values;
                    return Ok(Some(index));
                }
                Ok(false) => {}
                Err(e) => return Err(e),
            }
        }
        self.slot_values = values;
        Ok(None)
    }
}

/// The key of slot `i` in a rule's data (`"0"`, `"1"`, ...).
fn slot_name(i: usize, arena: &datalogic_rs::bumpalo::Bump) -> &str {
    const NAMES: [&str; 16] = [
        "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15",
    ];
    match NAMES.get(i) {
        Some(name) => name,
        None => arena.alloc_str(&i.to_string()),
    }
}

/// JavaScript truthiness, which FORMAT.md prescribes for a rule's value:
/// everything but `false`, `0`, `""`, `null` and `NaN` is true, so `[]` and
/// `{}` are (JSON Logic's own `truthy` says otherwise for `[]`).
fn js_truthy(value: &datalogic_rs::DataValue<'_>) -> bool {
    if value.is_null() {
        false
    } else if let Some(b) = value.as_bool() {
        b
    } else if let Some(n) = value.as_f64() {
        n != 0.0 && !n.is_nan()
    } else if let Some(s) = value.as_str() {
        !s.is_empty()
    } else {
        true
    }
}
