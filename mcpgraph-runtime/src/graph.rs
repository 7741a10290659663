//! The interface between generated code and the runtime.
//!
//! The generator emits, per graph file, one type implementing [`Graph`]:
//! static metadata (server, tools, downstream servers, limits) and a `run`
//! function that drives one tool's state machine over an [`Execution`].
//! Nothing here knows about MCP transports; `server` and `cli` own those.

use std::future::Future;
use std::pin::Pin;

use crate::error::{NodeError, StartupError};
use crate::exec::Execution;

/// `server:` metadata of a graph file.
#[derive(Clone, Copy, Debug)]
pub struct ServerMeta {
    /// `server.name`.
    pub name: &'static str,
    /// `server.version`.
    pub version: &'static str,
    /// `server.title`, already defaulted to the name by the generator.
    pub title: &'static str,
    /// `server.instructions`.
    pub instructions: Option<&'static str>,
}

/// One tool's metadata. Schemas are JSON text, checked by the generator.
#[derive(Clone, Copy, Debug)]
pub struct ToolMeta {
    /// Tool name.
    pub name: &'static str,
    /// Tool description.
    pub description: &'static str,
    /// `inputSchema` as JSON text.
    pub input_schema: &'static str,
    /// `outputSchema` as JSON text.
    pub output_schema: Option<&'static str>,
}

/// `executionLimits:` of a graph file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Nodes one call may execute.
    pub max_node_executions: u64,
    /// Wall-clock budget of one call.
    pub max_execution_time_ms: u64,
    /// JSONata evaluation depth.
    pub max_expression_depth: u64,
    /// Wall-clock budget of one JSONata evaluation.
    pub max_expression_time_ms: u64,
    /// Size of one node's output, as JSON text.
    pub max_value_bytes: u64,
    /// Size of all the outputs one call keeps (its history), as JSON text.
    pub max_history_bytes: u64,
    /// Nesting of arrays and objects in one node's output.
    pub max_value_depth: u64,
}

/// A downstream server as compiled in. Strings are verbatim: `${VAR}` is
/// expanded when the server is first started.
#[derive(Clone, Copy, Debug)]
pub struct ServerDef {
    /// Key under `mcpServers`.
    pub name: &'static str,
    /// How to reach it.
    pub transport: TransportDef,
    /// Per-call timeout in milliseconds.
    pub timeout_ms: Option<u64>,
    /// `pingTimeoutMs`: deadline of the ping that probes a connection
    /// after a call on it was abandoned.
    pub ping_timeout_ms: Option<u64>,
}

/// Transport of a compiled-in downstream server.
#[derive(Clone, Copy, Debug)]
pub enum TransportDef {
    /// A child process speaking MCP over stdio.
    Stdio {
        /// Program.
        command: &'static str,
        /// Arguments.
        args: &'static [&'static str],
        /// Working directory.
        cwd: Option<&'static str>,
        /// Added environment variables.
        env: &'static [(&'static str, &'static str)],
    },
    /// Streamable HTTP.
    StreamableHttp {
        /// Endpoint URL.
        url: &'static str,
        /// Extra request headers.
        headers: &'static [(&'static str, &'static str)],
    },
    /// Legacy HTTP+SSE.
    Sse {
        /// Endpoint URL.
        url: &'static str,
        /// Extra request headers.
        headers: &'static [(&'static str, &'static str)],
    },
}

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

    /// Parses every expression and rule. The generator already checked them,
    /// so an error here means a mismatch between generator and runtime.
    fn compile() -> Result<Self::Compiled, StartupError>;

    /// Runs tool number `tool` to its exit node. The result is left in
    /// `exec` (see [`Execution::finish`]).
    fn run<'a>(compiled: &'a Self::Compiled, tool: usize, exec: &'a mut Execution)
    -> RunFuture<'a>;
}
