//! Switch rules (JSON Logic): compiled into trees ([`tree`], always), and
//! with the `eval` feature evaluated as json-logic-js 2.0.5 does, as
//! mcpGraph runs it (`Logic`).
//!
//! mcpGraph evaluates each `{"var": S}` as JSONata against the context,
//! substitutes the value into the rule, and hands the rule and the context
//! to `jsonLogic.apply`. The generator lifts each `var` out into a slot
//! (the runtime's `Rule`) and writes out the tree the rule compiles to
//! here; the runtime builds a `Logic` of it once, at start-up, and
//! applies it per call to the slot values and the context, which it
//! borrows: nothing is parsed or converted on the request path.
//!
//! The evaluator works over JavaScript-like values (`undefined`, `NaN`,
//! `±Infinity` included) so that every coercion, comparison and operator
//! gives json-logic-js's result (FORMAT.md, "Switch rules"). It replaced
//! datalogic-rs, which FORMAT.md's semantics could not be configured into
//! (it throws on `NaN`, compares arrays element-wise, has no `undefined`,
//! and its `missing` inside callbacks cannot be replaced); the measurement
//! is in the commit that made the switch.
//!
//! The files depend on each other one way, in this order: `tree` (the
//! compiled rule), `value` (JavaScript's values), `coerce` (its
//! coercions), `env` (what an operator reads and throws), `ops` and
//! `scope` (the operators), `eval` (the walk that applies them), `rule`
//! (`Logic`), `testing` (the entry points of tests and fuzzing).

pub mod tree;

#[cfg(feature = "eval")]
mod coerce;
#[cfg(feature = "eval")]
mod env;
#[cfg(feature = "eval")]
mod eval;
#[cfg(feature = "eval")]
mod ops;
#[cfg(feature = "eval")]
mod rule;
#[cfg(feature = "eval")]
mod scope;
#[cfg(feature = "testing")]
mod testing;
#[cfg(feature = "eval")]
mod value;

#[cfg(feature = "eval")]
pub use rule::{Bounds, Logic, LogicError};
#[cfg(feature = "testing")]
pub use testing::{RuleOutcome, evaluate_logic, evaluate_lowered};
pub use tree::{Args, MAX_RULE_DEPTH, Node, Op, SLOT_KEY, compile, is_binary, nesting};

#[cfg(all(test, feature = "testing"))]
mod deep_tests;
#[cfg(all(test, feature = "testing"))]
mod tests;
