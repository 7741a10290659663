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
//! `tree` is the compiled rule; `apply` (the `eval` feature) applies it.

pub mod tree;

#[cfg(feature = "eval")]
mod apply;

#[cfg(feature = "eval")]
pub use apply::{Bounds, Logic, LogicError, RuleError};
#[cfg(feature = "testing")]
pub use apply::{OutcomeError, RuleOutcome, evaluate_logic, evaluate_lowered};
pub use tree::{Args, MAX_RULE_DEPTH, Node, Op, SLOT_KEY, compile, is_binary, nesting};
