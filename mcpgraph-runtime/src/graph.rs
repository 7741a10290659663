//! The interface between generated code and the runtime.
//!
//! The generator emits, per graph file, one type implementing [`Graph`]:
//! static metadata (server, tools, downstream servers, limits: the types
//! are `meta`'s) and a `run` function that drives one tool's state machine
//! over an [`Execution`].
//! Nothing here knows about MCP transports; `server` and `cli` own those.

use std::future::Future;
use std::pin::Pin;

use crate::error::{NodeError, StartupError};
use crate::exec::Execution;
use crate::meta::{Limits, ServerDef, ServerMeta, ToolMeta};

/// The future a tool's state machine returns. It is not `Send`: it holds
/// JSONata values, which use `Rc`, and runs on a single-threaded worker.
pub type RunFuture<'a> = Pin<Box<dyn Future<Output = Result<(), NodeError>> + 'a>>;

/// A compiled graph file. Implemented by generated code.
pub trait Graph: Send + Sync + Sized + 'static {
    /// Every expression and rule of the file, parsed once at start-up.
    type Compiled: Send + Sync + 'static;

    /// Server metadata.
    const SERVER: ServerMeta;
    /// Tools, in file order; `run`'s `tool` indexes this.
    const TOOLS: &'static [ToolMeta];
    /// Downstream servers.
    const SERVERS: &'static [ServerDef];
    /// Execution limits.
    const LIMITS: Limits;
    /// The graph's schema lock (`<graph>.lock.json`), reduced to the tools
    /// it calls, when it was built with one: each server's tools are
    /// compared with it at run time.
    const LOCK: Option<&'static str> = None;

    /// Parses every expression and rule. The generator already checked them,
    /// so an error here means a mismatch between generator and runtime.
    fn compile() -> Result<Self::Compiled, StartupError>;

    /// Runs tool number `tool` to its exit node. The result is left in
    /// `exec` (see [`Execution::finish`]).
    fn run<'a>(compiled: &'a Self::Compiled, tool: usize, exec: &'a mut Execution)
    -> RunFuture<'a>;
}
