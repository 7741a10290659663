//! The JSON Logic of switch rules: json-logic-js 2.0.5 as mcpGraph runs
//! it, reimplemented over JavaScript-like values (`undefined`, `NaN`,
//! `±Infinity` included) so that every coercion, comparison and operator
//! gives json-logic-js's result (FORMAT.md, "Switch rules").
//!
//! mcpGraph evaluates each `{"var": S}` as JSONata against the context,
//! substitutes the value into the rule, and hands the rule and the context
//! to `jsonLogic.apply`. The generator lifts each `var` out into a slot
//! (`expr::Rule`) and writes out the tree ([`Logic`]) the rule compiles to
//! here; it is built once, at start-up, and applied per call to the slot
//! values and the context, which it borrows: nothing is parsed or
//! converted on the request path.
//!
//! This replaces datalogic-rs, which FORMAT.md's semantics could not be
//! configured into (it throws on `NaN`, compares arrays element-wise, has
//! no `undefined`, and its `missing` inside callbacks cannot be replaced);
//! the measurement is in the commit that made the switch.

mod coerce;
mod eval;
mod ops;
mod scope;
mod value;

use jsonata_core::value::JValue;

use eval::Env;
use mcpgraph_expr::logic as compile;
pub use mcpgraph_expr::logic::{Args, Node, Op};
use value::{Val, js_truthy};

/// How deeply a rule's arrays and objects may nest: graphs are refused
/// deeper than this already (`mcpgraph-codegen`'s `yaml::MAX_DEPTH`, the
/// same number: keep them equal), and compilation and evaluation recurse
/// on the rule, so a rule from elsewhere is refused too rather than
/// risking the stack.
pub(crate) const MAX_RULE_DEPTH: usize = 64;

/// How deeply the data of [`evaluate_logic`] and [`evaluate_lowered`] (and
/// the values they write) may nest: the format's default
/// `maxValueDepth`, which a server applies to every `var` value. Servers
/// bound their values themselves; evaluation never recurses on data.
const MAX_DATA_DEPTH: u64 = crate::meta::Limits::DEFAULT.max_value_depth;

/// The error for a rule nested deeper than [`MAX_RULE_DEPTH`], if it is.
fn check_rule_depth(rule: &serde_json::Value) -> Result<(), String> {
    match compile::nesting(rule, MAX_RULE_DEPTH) {
        Some(_) => Ok(()),
        None => Err(format!(
            "the JSON Logic rule nests deeper than {MAX_RULE_DEPTH} levels"
        )),
    }
}

/// The error for data nested deeper than [`MAX_DATA_DEPTH`], if it is.
fn check_data_depth(what: &str, value: &JValue) -> Result<(), String> {
    crate::expressions::value::measure(value, MAX_DATA_DEPTH, u64::MAX)
        .map(|_| ())
        .map_err(|_| format!("{what} nests deeper than {MAX_DATA_DEPTH} levels"))
}

/// `JSON.stringify` of a rule's value, bounded (see [`Val::to_json`]).
fn value_json(value: &Val<'_>) -> Result<Option<serde_json::Value>, String> {
    value.to_json(MAX_DATA_DEPTH as usize)
}

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
        check_rule_depth(rule)?;
        let root = compile::compile(rule);
        if let Some(name) = root.unknown() {
            return Err(format!("unknown JSON Logic operator `{name}`"));
        }
        let slots = root.slots();
        Ok(Self { root, slots })
    }

    /// The tree the generator wrote out for `rule` (the same JSON text
    /// [`Logic::compile`] takes), so that start-up parses nothing. Debug
    /// builds compile `rule` too and check that the two trees are equal.
    pub(crate) fn from_tree(rule: &str, root: Node) -> Result<Self, String> {
        if cfg!(debug_assertions) {
            let parsed = serde_json::from_str(rule).map(|json| Self::compile(&json));
            assert!(
                matches!(&parsed, Ok(Ok(logic)) if logic.root == root),
                "the generated tree of rule `{rule}` is not the compiled one:\n{root:?}\n{parsed:?}"
            );
        }
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
        let env = Env::new(slots);
        let holds = eval::truth(&self.root, &env, &Val::data(context));
        env.outcome(holds)
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
        let value = self.with_value(slots, context, value_json)??;
        // As the switch decides (without building the value).
        let holds = self.decide(slots, context)?;
        Ok(RuleOutcome { value, holds })
    }

    fn with_value<R>(
        &self,
        slots: &[JValue],
        context: &JValue,
        then: impl FnOnce(&Val<'_>) -> R,
    ) -> Result<R, String> {
        let env = Env::new(slots);
        let value = eval::eval(&self.root, &env, &Val::data(context));
        let outcome = then(&value);
        env.outcome(outcome)
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
    let logic = Logic::compile(rule)?;
    for slot in slots {
        check_data_depth("a slot value", slot)?;
    }
    check_data_depth("the context", context)?;
    logic.outcome(slots, context)
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
    check_rule_depth(rule)?;
    if compile::nesting(data, MAX_DATA_DEPTH as usize).is_none() {
        return Err(format!(
            "the data nests deeper than {MAX_DATA_DEPTH} levels"
        ));
    }
    let root = compile::compile(rule);
    let data = crate::expressions::value::from_json(data);
    let env = Env::new(&[]);
    let value = eval::eval(&root, &env, &Val::data(&data));
    if cfg!(debug_assertions) && !env.thrown() {
        // Switches ask `eval::truth`, which skips building values: the
        // suites run through here, so they check it against the value.
        let again = Env::new(&[]);
        let holds = eval::truth(&root, &again, &Val::data(&data));
        assert_eq!(holds, js_truthy(&value), "truth of {rule}");
    }
    let json = env.outcome(value_json(&value))?;
    Ok(json?.unwrap_or(serde_json::Value::Null))
}

#[cfg(test)]
mod deep_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod timing;
