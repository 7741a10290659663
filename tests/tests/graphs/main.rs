//! What a graph means: node and switch semantics, history functions, value
//! budgets, mcpGraph's expected results, and the definitions the generator
//! and the runtime must agree on.
//!
//! One binary, one module per former test binary: `cargo test --test
//! graphs semantics::` runs one.

mod compat;
mod definitions;
mod history;
mod semantics;
mod switch_semantics;
mod values;
