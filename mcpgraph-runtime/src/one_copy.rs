//! Large async bodies compiled once, not once per codegen unit.
//!
//! rustc treats every closure and async body as inlinable, so an optimised
//! build compiles a copy of it into each codegen unit that calls it: the
//! OAuth client's async bodies (and the parts of rmcp's they await) were
//! in the release binary up to nine times, about 1.2 MB of code. A future
//! boxed by [`one_copy`], which is never inlined, is referenced from that
//! one function's unit only; the price is one allocation per call.

use std::future::Future;
use std::pin::Pin;

/// A boxed future made by [`one_copy`].
#[doc(hidden)]
pub type OneCopy<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Boxes `future`, so that its body is compiled into one codegen unit.
#[inline(never)]
pub fn one_copy<'a, T>(future: impl Future<Output = T> + Send + 'a) -> OneCopy<'a, T> {
    Box::pin(future)
}
