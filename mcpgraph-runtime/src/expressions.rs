//! Expressions and values: the JSONata expressions and switch rules a
//! compiled graph holds ([`expr`]), the conversions between jsonata-core's
//! values and JSON ([`value`]), JavaScript's text of a JSON value
//! ([`js_text`]) and the watchdog that holds an evaluation to its time
//! limit ([`watchdog`]). One call's evaluation of them is `exec`'s.

pub(crate) mod expr;
pub(crate) mod js_text;
pub(crate) mod value;
pub(crate) mod watchdog;
