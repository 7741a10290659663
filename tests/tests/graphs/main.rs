//! What a graph means: node and switch semantics, history functions, value
//! budgets, mcpGraph's expected results, and the definitions the generator
//! and the runtime must agree on.
//!
//! One binary, one module per former test binary: `cargo test --test
//! graphs semantics::` runs one.

// history, semantics and values each hold a graph module named like the
// file, as they did when they were test binaries of their own.

mod compat;
mod defaults;
mod definitions;
mod error_kinds;
mod eval_bounds;
#[allow(clippy::module_inception)]
mod history;
#[allow(clippy::module_inception)]
mod semantics;
mod switch_semantics;
#[allow(clippy::module_inception)]
mod values;
