//! The run-time side of a graph's expressions (the `eval` feature), in
//! one place: the expressions and switch rules a compiled graph holds
//! (`parsed`), a call's evaluator (`evaluator`) with its history functions
//! (`history`), the common shapes evaluated without jsonata-core
//! (`native`), field lookup and the value budget (`value`), JavaScript's
//! text of a JSON value (`js_text`), JSON and JSONata values converted in
//! JavaScript's key order (`json`), the limits of one evaluation, its time
//! (`watchdog`) and its memory (`memory`, the counting allocator), and
//! their errors (`error`). The crate root re-exports them under their own
//! names.

pub mod error;
pub mod evaluator;
pub mod history;
pub mod js_text;
pub mod json;
pub mod memory;
pub(crate) mod native;
pub mod parsed;
pub mod value;
pub(crate) mod watchdog;
