//! Compile a YAML graph of MCP tool calls into a dedicated MCP server.
//!
//! ```ignore
//! mcpgraph::mcpgraph!("graph.yaml");
//!
//! fn main() -> std::process::ExitCode {
//!     Server::main()
//! }
//! ```
//!
//! The macro checks the graph file at compile time (a broken graph is a
//! build error at its line and column) and emits one module per tool with
//! a typed state machine, plus a `Server` type whose `main` runs the
//! server's command line: serve over stdio, list tools, run one call.

pub use mcpgraph_macros::mcpgraph;
pub use mcpgraph_runtime as runtime;

/// What generated code uses. Not a public API: it changes without notice.
#[doc(hidden)]
pub mod __private {
    pub use ::mcpgraph_runtime::*;
    pub use ::std;
}
