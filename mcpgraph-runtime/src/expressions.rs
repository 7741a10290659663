//! Expressions and their evaluation, in one place: the JSONata
//! expressions and switch rules a compiled graph holds ([`expr`]), a
//! call's evaluator ([`evaluator`]) with its history functions
//! ([`history`]), the common shapes evaluated without jsonata-core
//! ([`native`]), the conversions between jsonata-core's values and JSON
//! ([`value`]), JavaScript's text of a JSON value ([`js_text`]), and the
//! limits of one evaluation: its time ([`watchdog`]) and its memory
//! ([`memory`], the counting allocator). Nothing here knows of a call's
//! nodes or downstream servers: `exec` runs the nodes and asks this module
//! to evaluate.

pub(crate) mod evaluator;
pub(crate) mod expr;
pub(crate) mod history;
pub(crate) mod js_text;
pub(crate) mod memory;
pub(crate) mod native;
pub(crate) mod value;
pub(crate) mod watchdog;
