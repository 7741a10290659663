//! The JSON Logic of switch rules: json-logic-js 2.0.5 as mcpGraph runs
//! it, reimplemented over JavaScript-like values (`undefined`, `NaN`,
//! `±Infinity` included) so that every coercion, comparison and operator
//! gives json-logic-js's result (FORMAT.md, "Switch rules").
//!
//! mcpGraph evaluates each `{"var": S}` as JSONata against the context,
//! substitutes the value into the rule, and hands the rule and the context
//! to `jsonLogic.apply`. The generator lifts each `var` out into a slot
//! (`expr::Rule`); here a rule is compiled once, at start-up, into a tree
//! ([`Logic`]), and applied per call to the slot values and the context,
//! which it borrows: nothing is parsed or converted on the request path.
//!
//! This replaces datalogic-rs, which FORMAT.md's semantics could not be
//! configured into (it throws on `NaN`, compares arrays element-wise, has
//! no `undefined`, and its `missing` inside callbacks cannot be replaced);
//! the measurement is in the commit that made the switch.

mod coerce;
mod compile;
mod eval;
mod ops;
mod scope;
mod value;

use jsonata_core::value::JValue;

use compile::Node;
use eval::Env;
use value::{Val, js_truthy};

/// A compiled switch rule.
#[derive(Debug)]
pub(crate) struct Logic {
    root: Node,
    /// How many slots the rule reads.
    slots: usize,
}

impl Logic {
    /// Compiles a rule as the generator emits it (its `var`s lowered to
    /// slot reads). An operator json-logic-js 2.0 does not know is an
    /// error (the generator rejects them already).
    pub(crate) fn compile(rule: &serde_json::Value) -> Result<Self, String> {
        let root = compile::compile(rule);
        if let Some(name) = root.unknown() {
            return Err(format!("unknown JSON Logic operator `{name}`"));
        }
        let slots = root.slots();
        Ok(Self { root, slots })
    }

    /// Whether the rule holds: JavaScript's `Boolean` of its value, as
    /// mcpGraph decides. `slots` are the `var` values in slot order
    /// (`undefined` for one that read nothing); `context` is the data
    /// `missing` and `missing_some` read.
    pub(crate) fn decide(&self, slots: &[JValue], context: &JValue) -> Result<bool, String> {
        debug_assert!(slots.len() >= self.slots, "a slot value per `var`");
        self.with_value(slots, context, js_truthy)
    }

    /// The rule's value and decision, as [`evaluate_lowered`] reports them.
    pub(crate) fn outcome(
        &self,
        slots: &[JValue],
        context: &JValue,
    ) -> Result<RuleOutcome, String> {
        if slots.len() < self.slots {
            return Err(format!(
                "the rule reads {} slots, {} given",
                self.slots,
                slots.len()
            ));
        }
        self.with_value(slots, context, |value| RuleOutcome {
            value: value.to_json(),
            holds: js_truthy(value),
        })
    }

    fn with_value<R>(
        &self,
        slots: &[JValue],
        context: &JValue,
        then: impl FnOnce(&Val<'_>) -> R,
    ) -> Result<R, String> {
        let env = Env { slots };
        let value = eval::eval(&self.root, &env, &Val::data(context)).map_err(|e| e.to_string())?;
        Ok(then(&value))
    }
}

/// The outcome of a rule, as the reference reports it.
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq)]
pub struct RuleOutcome {
    /// `JSON.stringify` of the rule's value: `None` for `undefined`,
    /// `null` for `NaN` and `±Infinity`.
    pub value: Option<serde_json::Value>,
    /// `Boolean(value)`: whether a switch takes this condition.
    pub holds: bool,
}

/// Applies a rule exactly as a generated server's switch node does: `rule`
/// is the rule as the generator lowers it (each `{"var": S}` replaced by
/// `{"val": ["\u0000", "i"]}`, or `{"val": [[depth], "\u0000", "i"]}`
/// inside an iterating operator's callback: see
/// `mcpgraph_codegen::expand::rule::rewrite_rule`), `slots[i]` the value
/// JSONata gave `S` against the context (`JValue::Undefined` when it read
/// nothing), and `context` the node's context (what `missing` reads).
///
/// This is the entry point for a differential runner against mcpGraph:
/// lower with `rewrite_rule`, evaluate the `vars` with the runtime's
/// JSONata, call this. It compiles the rule on every call; a server
/// compiles once.
#[doc(hidden)]
pub fn evaluate_lowered(
    rule: &serde_json::Value,
    slots: &[JValue],
    context: &JValue,
) -> Result<RuleOutcome, String> {
    Logic::compile(rule)?.outcome(slots, context)
}

/// Applies a plain JSON Logic rule (its `var`s read `data` by path, as in
/// json-logic-js) with the operators switch rules run on; errors are
/// json-logic-js's throws. For the JSON Logic conformance suites. The value
/// is `JSON.stringify`'s (`undefined` as `null`).
#[doc(hidden)]
pub fn evaluate_logic(
    rule: &serde_json::Value,
    data: &serde_json::Value,
) -> Result<serde_json::Value, String> {
    let root = compile::compile(rule);
    let data = crate::value::from_json(data);
    let env = Env { slots: &[] };
    let value = eval::eval(&root, &env, &Val::data(&data)).map_err(|e| e.to_string())?;
    Ok(value.to_json().unwrap_or(serde_json::Value::Null))
}

#[cfg(test)]
mod tests;
