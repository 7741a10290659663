//! Compiled switch rules applied as json-logic-js 2.0.5 does (the `eval`
//! feature).
//!
//! The files depend on each other one way, in this order: `value`
//! (JavaScript's values), `coerce` (its coercions), `env` (what an
//! operator reads and throws, and the limits it runs within), `ops` and
//! `scope` (the operators), `eval` (the walk that applies them), `rule`
//! (`Logic`), `testing` (the entry points of tests and fuzzing).

mod coerce;
mod env;
mod eval;
mod ops;
mod rule;
mod scope;
#[cfg(feature = "testing")]
mod testing;
mod value;

pub use env::{Bounds, LogicError};
pub use rule::{Logic, RuleError};
#[cfg(feature = "testing")]
pub use testing::{OutcomeError, RuleOutcome, evaluate_logic, evaluate_lowered};

#[cfg(all(test, feature = "testing"))]
mod deep_tests;
#[cfg(all(test, feature = "testing"))]
mod tests;
