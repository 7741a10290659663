//! A switch node: each rule's `var` slots evaluated with JSONata, and the
//! rule applied to them (and to the context, which `missing` reads) by the
//! JSON Logic evaluator of `logic`.

use std::time::Duration;

use jsonata_core::value::JValue;
use mcpgraph_expr::logic::{Bounds, LogicError};

use super::Execution;
use crate::error::{ErrorKind, Limit, NodeError};
use mcpgraph_expr::memory;
use mcpgraph_expr::parsed::Switch;
use mcpgraph_expr::value::measure;

impl Execution {
    /// Runs a switch node's rules; `Some(i)` is the first condition whose
    /// rule holds (JavaScript truthiness of its value), `None` means the
    /// default `next`. The caller records the chosen target with
    /// [`Execution::switched`].
    pub fn switch(&mut self, switch: &Switch) -> Result<Option<usize>, NodeError> {
        let mut values = std::mem::take(&mut self.slot_values);
        let mut chosen = Ok(None);
        for (index, rule) in switch.conditions().iter().enumerate() {
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
            // A rule's time counts from the node's start, as its `var`s'
            // do (`maxExpressionTimeMs`); what it builds counts against
            // `maxValueBytes`.
            let bounds = Bounds {
                deadline: self
                    .node_started
                    .checked_add(Duration::from_millis(self.limits.max_expression_time_ms)),
                max_bytes: self.limits.max_value_bytes,
            };
            // The closure returns a byte, the error aside: a wider value
            // was copied out through memory, which stalled on every rule.
            let mut thrown = None;
            // The rule sizes what it builds itself; the allocator's count
            // (`mcpgraph_expr::memory`) is the backstop for what it does not.
            let metered = memory::arm(self.limits.max_value_bytes, None);
            let decided = mcpgraph_expr::evaluator::contained(|| {
                logic
                    .decide_within(&values, context, bounds)
                    .map_err(|e| thrown = Some(e))
                    .ok()
            });
            if metered.disarm() {
                let over = LogicError::ValueLimit(self.limits.max_value_bytes);
                chosen = Err(self.rule_error(index, over));
                break;
            }
            match decided {
                Ok(Some(true)) => {
                    chosen = Ok(Some(index));
                    break;
                }
                Ok(Some(false)) => {}
                Ok(None) | Err(_) => {
                    let e = thrown.unwrap_or_else(|| {
                        let panic = decided.err().map(|p| p.to_string());
                        LogicError::Thrown(panic.unwrap_or_default())
                    });
                    chosen = Err(self.rule_error(index, e));
                    break;
                }
            }
        }
        self.slot_values = values;
        chosen
    }
}

impl Execution {
    /// The node's error for rule `index` failing with `e`.
    fn rule_error(&self, index: usize, e: LogicError) -> NodeError {
        match e {
            LogicError::TimeLimit => self.error(
                ErrorKind::Limit(Limit::ExpressionTime),
                format!(
                    "JSON Logic rule {index} exceeded maxExpressionTimeMs ({} ms)",
                    self.limits.max_expression_time_ms
                ),
            ),
            LogicError::ValueLimit(max) => self.error(
                ErrorKind::Limit(Limit::ValueBytes),
                format!(
                    "Value limit exceeded: JSON Logic rule {index} would build more than maxValueBytes ({max} bytes)"
                ),
            ),
            LogicError::Thrown(e) => self.error(
                ErrorKind::Expression,
                format!("JSON Logic rule {index} failed: {e}"),
            ),
        }
    }
}
