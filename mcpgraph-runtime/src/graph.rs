//! The interface between generated code and the runtime.
//!
//! The generator emits, per graph file, one type implementing [`Graph`]:
//! static metadata (server, tools, downstream servers, limits: the types
//! are `meta`'s) and a `run` function that drives one tool's state machine
//! over an [`Execution`]. [`GraphDef`] is the same with the type erased,
//! which is what the rest of the runtime serves.
//! Nothing here knows about MCP transports; `server` and `cli` own those.

use std::future::Future;
use std::pin::Pin;

use crate::error::{NodeError, StartupError};
use crate::exec::Execution;
use mcpgraph_format::Server;

use crate::meta::{Limits, ServerMeta, ToolMeta};
use crate::servers::Connect;

/// The future a tool's state machine returns. It is not `Send`: it holds
/// JSONata values, which use `Rc`, and runs on a single-threaded worker.
pub type RunFuture<'a> = Pin<Box<dyn Future<Output = Result<(), NodeError>> + 'a>>;

/// A compiled graph file. Implemented by generated code (the `Server`
/// type the macro emits); users name it only as a bound, as in
/// `Engine::start::<G: Graph>`. Its items are the generator's contract
/// with the runtime, hidden from the documentation and free to change.
pub trait Graph: Send + Sync + Sized + 'static {
    /// Every expression and rule of the file, built once at start-up from
    /// the trees the generator wrote out.
    #[doc(hidden)]
    type Compiled: Send + Sync + 'static;

    /// Server metadata.
    #[doc(hidden)]
    const SERVER: ServerMeta;
    /// Tools, in file order; `run`'s `tool` indexes this.
    #[doc(hidden)]
    const TOOLS: &'static [ToolMeta];
    /// Downstream servers, as the graph file declares them.
    #[doc(hidden)]
    fn servers() -> Vec<Server>;
    /// Execution limits.
    #[doc(hidden)]
    const LIMITS: Limits;
    /// Builds the downstream servers from their settings and the lock:
    /// the facade's constructor, so that the core links no transport.
    #[doc(hidden)]
    const CONNECT: Connect;
    /// The graph's schema lock (`<graph>.lock.json`), reduced to the tools
    /// it calls, when it was built with one: each server's tools are
    /// compared with it at run time.
    #[doc(hidden)]
    const LOCK: Option<&'static str> = None;
    /// The graph's test file (`<graph>.test.yaml`) as the generator
    /// checked it, in JSON, when there is one: what `test` runs.
    #[doc(hidden)]
    const TESTS: Option<&'static str> = None;
    /// Each tool's nodes and routes with their lines, in JSON: what `test`
    /// measures coverage against.
    #[doc(hidden)]
    const MAP: Option<&'static str> = None;

    /// Parses every expression and rule. The generator already checked them,
    /// so an error here means a mismatch between generator and runtime.
    #[doc(hidden)]
    fn compile() -> Result<Self::Compiled, StartupError>;

    /// Runs tool number `tool` to its exit node. The result is left in
    /// `exec` (see [`Execution::finish`]).
    #[doc(hidden)]
    fn run<'a>(compiled: &'a Self::Compiled, tool: usize, exec: &'a mut Execution)
    -> RunFuture<'a>;
}

/// A graph with its type erased: what [`Graph`] declares, as values, and a
/// function that compiles it into a [`CompiledGraph`].
///
/// Everything that serves a graph (the [`Engine`](crate::Engine), the MCP
/// `Handler`, the command line, the HTTP server) takes
/// one of these rather than a type parameter, so it is compiled once, in
/// this crate: a user's rebuild after a graph edit compiles the graph's
/// own code, not the runtime again. [`GraphDef::of`] builds it from a
/// generated [`Graph`].
#[derive(Clone, Copy, Debug)]
pub struct GraphDef {
    /// Server metadata ([`Graph::SERVER`]).
    pub server: ServerMeta,
    /// Tools, in file order ([`Graph::TOOLS`]).
    pub tools: &'static [ToolMeta],
    /// Downstream servers ([`Graph::servers`]).
    pub servers: fn() -> Vec<Server>,
    /// Execution limits ([`Graph::LIMITS`]).
    pub limits: Limits,
    /// The schema lock ([`Graph::LOCK`]).
    pub lock: Option<&'static str>,
    /// Builds the downstream servers ([`Graph::CONNECT`]).
    pub connect: Connect,
    /// The test file ([`Graph::TESTS`]).
    pub tests: Option<&'static str>,
    /// The nodes and routes of each tool ([`Graph::MAP`]).
    pub map: Option<&'static str>,
    /// Parses every expression and rule ([`Graph::compile`]).
    pub compile: fn() -> Result<Box<dyn CompiledGraph>, StartupError>,
}

impl GraphDef {
    /// The description of graph `G`. This, the compile function it points
    /// to and that function's [`CompiledGraph`] are all that is compiled
    /// per graph type.
    pub const fn of<G: Graph>() -> Self {
        Self {
            server: G::SERVER,
            tools: G::TOOLS,
            servers: G::servers,
            limits: G::LIMITS,
            lock: G::LOCK,
            connect: G::CONNECT,
            tests: G::TESTS,
            map: G::MAP,
            compile: compile_erased::<G>,
        }
    }
}

/// A graph's expressions and rules, compiled, behind a trait object: the
/// one dynamic call a tool call makes is to [`CompiledGraph::run`]; the
/// state machine it returns is the generated one.
pub trait CompiledGraph: Send + Sync {
    /// Runs tool number `tool` (an index into [`GraphDef::tools`]) to its
    /// exit node, as [`Graph::run`] does.
    fn run<'a>(&'a self, tool: usize, exec: &'a mut Execution) -> RunFuture<'a>;
}

/// `G`'s compiled form as a [`CompiledGraph`].
struct Erased<G: Graph>(G::Compiled);

impl<G: Graph> CompiledGraph for Erased<G> {
    fn run<'a>(&'a self, tool: usize, exec: &'a mut Execution) -> RunFuture<'a> {
        G::run(&self.0, tool, exec)
    }
}

/// [`Graph::compile`], its result erased.
fn compile_erased<G: Graph>() -> Result<Box<dyn CompiledGraph>, StartupError> {
    Ok(Box::new(Erased::<G>(G::compile()?)))
}
