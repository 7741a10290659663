//! A compiled switch rule, as a server holds it: built once (from the
//! rule's JSON, or from the tree the generator wrote out) and applied per
//! call.

use jsonata_core::value::JValue;

use super::env::{Bounds, Env, LogicError};
use super::eval;
use super::value::Val;
use crate::logic::tree::{self, MAX_RULE_DEPTH, Node};

/// The error for a rule nested deeper than [`MAX_RULE_DEPTH`], if it is.
pub(super) fn check_rule_depth(rule: &serde_json::Value) -> Result<(), RuleError> {
    match tree::nesting(rule, MAX_RULE_DEPTH) {
        Some(_) => Ok(()),
        None => Err(RuleError::TooDeep),
    }
}

/// Why a switch rule does not compile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleError {
    /// Its text is not JSON (serde_json's reason).
    Json(String),
    /// It nests deeper than [`MAX_RULE_DEPTH`] levels.
    TooDeep,
    /// An operator json-logic-js 2.0 does not know.
    UnknownOperator(String),
}

impl std::fmt::Display for RuleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RuleError::Json(why) => f.write_str(why),
            RuleError::TooDeep => write!(
                f,
                "the JSON Logic rule nests deeper than {MAX_RULE_DEPTH} levels"
            ),
            RuleError::UnknownOperator(name) => {
                write!(f, "unknown JSON Logic operator `{name}`")
            }
        }
    }
}

impl std::error::Error for RuleError {}

/// A compiled switch rule.
#[derive(Debug)]
pub struct Logic {
    pub(super) root: Node,
    /// How many slots the rule reads.
    pub(super) slots: usize,
}

impl Logic {
    /// Compiles a rule as the generator emits it (its `var`s lowered to
    /// slot reads). An operator json-logic-js 2.0 does not know is an
    /// error (the generator rejects them already).
    pub fn compile(rule: &serde_json::Value) -> Result<Self, RuleError> {
        check_rule_depth(rule)?;
        let root = tree::compile(rule);
        if let Some(name) = root.unknown() {
            return Err(RuleError::UnknownOperator(name.to_owned()));
        }
        let slots = root.slots();
        Ok(Self { root, slots })
    }

    /// The tree the generator wrote out for `rule` (the same JSON text
    /// [`Logic::compile`] takes), so that start-up parses nothing. Debug
    /// builds compile `rule` too and check that the two trees are equal.
    pub fn from_tree(rule: &str, root: Node) -> Result<Self, RuleError> {
        if cfg!(debug_assertions) {
            let parsed = serde_json::from_str(rule).map(|json| Self::compile(&json));
            assert!(
                matches!(&parsed, Ok(Ok(logic)) if logic.root == root),
                "the generated tree of rule `{rule}` is not the compiled one:\n{root:?}\n{parsed:?}"
            );
        }
        if let Some(name) = root.unknown() {
            return Err(RuleError::UnknownOperator(name.to_owned()));
        }
        let slots = root.slots();
        Ok(Self { root, slots })
    }

    /// Whether the rule holds: JavaScript's `Boolean` of its value, as
    /// mcpGraph decides. `slots` are the `var` values in slot order
    /// (`undefined` for one that read nothing); `context` is the data
    /// `missing` and `missing_some` read.
    pub fn decide(&self, slots: &[JValue], context: &JValue) -> Result<bool, LogicError> {
        self.decide_within(slots, context, Bounds::NONE)
    }

    /// [`Logic::decide`], stopping at `bounds`: the rule's loops over data
    /// look at the clock every few hundred steps, and what it builds
    /// (strings, lists) is counted against a byte budget before it is
    /// built.
    pub fn decide_within(
        &self,
        slots: &[JValue],
        context: &JValue,
        bounds: Bounds,
    ) -> Result<bool, LogicError> {
        debug_assert!(slots.len() >= self.slots, "a slot value per `var`");
        let env = Env::new(slots, bounds);
        let holds = eval::truth(&self.root, &env, &Val::data(context));
        env.bounded_outcome(holds)
    }
}
