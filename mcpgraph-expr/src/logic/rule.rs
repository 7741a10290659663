//! A compiled switch rule, as a server holds it: built once (from the
//! rule's JSON, or from the tree the generator wrote out) and applied per
//! call.

use std::time::Instant;

use jsonata_core::value::JValue;

use super::env::Env;
use super::eval;
use super::tree::{self, MAX_RULE_DEPTH, Node};
use super::value::Val;

/// The error for a rule nested deeper than [`MAX_RULE_DEPTH`], if it is.
pub(super) fn check_rule_depth(rule: &serde_json::Value) -> Result<(), String> {
    match tree::nesting(rule, MAX_RULE_DEPTH) {
        Some(_) => Ok(()),
        None => Err(format!(
            "the JSON Logic rule nests deeper than {MAX_RULE_DEPTH} levels"
        )),
    }
}

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
    pub fn compile(rule: &serde_json::Value) -> Result<Self, String> {
        check_rule_depth(rule)?;
        let root = tree::compile(rule);
        if let Some(name) = root.unknown() {
            return Err(format!("unknown JSON Logic operator `{name}`"));
        }
        let slots = root.slots();
        Ok(Self { root, slots })
    }

    /// The tree the generator wrote out for `rule` (the same JSON text
    /// [`Logic::compile`] takes), so that start-up parses nothing. Debug
    /// builds compile `rule` too and check that the two trees are equal.
    pub fn from_tree(rule: &str, root: Node) -> Result<Self, String> {
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
    pub fn decide(&self, slots: &[JValue], context: &JValue) -> Result<bool, String> {
        self.decide_within(slots, context, Bounds::NONE)
            .map_err(|e| e.to_string())
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

/// The limits of one application of a rule.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    /// When the rule must have finished (`None`: never).
    pub deadline: Option<Instant>,
    /// How many bytes of strings and lists (two bytes an item) the rule
    /// may build in all.
    pub max_bytes: u64,
}

impl Bounds {
    /// No limits.
    pub const NONE: Bounds = Bounds {
        deadline: None,
        max_bytes: u64::MAX,
    };
}

/// Why a rule has no value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LogicError {
    /// What json-logic-js would have thrown.
    Thrown(String),
    /// The rule ran past its deadline ([`Bounds::deadline`]).
    TimeLimit,
    /// The rule would have built more than this many bytes
    /// ([`Bounds::max_bytes`]).
    ValueLimit(u64),
}

impl std::fmt::Display for LogicError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LogicError::Thrown(message) => f.write_str(message),
            LogicError::TimeLimit => f.write_str("the rule ran past its time limit"),
            LogicError::ValueLimit(max) => {
                write!(f, "the rule would build more than {max} bytes")
            }
        }
    }
}
