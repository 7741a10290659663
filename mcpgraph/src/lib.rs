//! Compile a YAML graph of MCP tool calls into a dedicated MCP server.
//!
//! You describe a server in a graph file: the MCP servers it calls and its
//! tools, each a graph of nodes (`entry`, `mcp` calls to other servers,
//! `transform` with JSONata, `switch` with JSON Logic, `exit`). The
//! [`mcpgraph!`] macro reads that file at compile time, checks it (a broken
//! graph is a build error at its line and column, every problem at once)
//! and generates Rust: one module per tool holding a typed state machine,
//! with every expression parsed before the first request, and a `Server`
//! type whose `main` is a complete command line. The file format is
//! mcpGraph's, documented in the repository's `docs/FORMAT.md`.
//!
//! # Quick start
//!
//! ```toml
//! [dependencies]
//! mcpgraph = "0.1"
//! ```
//!
//! `src/main.rs`, with the graph file beside `Cargo.toml` (the path is
//! resolved against the crate's directory):
//!
//! ```no_run
//! mcpgraph::mcpgraph!("doc/greeter.yaml");
//!
//! fn main() -> std::process::ExitCode {
//!     Server::main()
//! }
//! ```
//!
//! The binary serves MCP over stdio by default, and has sub-commands:
//!
//! ```text
//! server serve --http 8080            # streamable HTTP on 127.0.0.1:8080/mcp
//! server tools                        # list the tools
//! server call greet '{"name": "Ada"}' # one call: {"greeting":"Hello, Ada!"}
//! server --help
//! ```
//!
//! # Calling a graph from Rust
//!
//! The generated `Server` implements [`Graph`]; an [`Engine`] runs its
//! tools in-process, with the same argument and result validation as over
//! MCP. A failed call is a [`CallError`] whose [`ErrorKind`] says what went
//! wrong (an expression, a limit, a schema, a downstream server, ...):
//!
//! ```
//! mcpgraph::mcpgraph!("doc/greeter.yaml");
//!
//! use mcpgraph::{CancellationToken, Engine};
//! use serde_json::json;
//!
//! #[tokio::main]
//! async fn main() {
//!     let engine = Engine::start::<Server>(Vec::new(), 1).unwrap();
//!     let args = json!({ "name": "Ada" }).as_object().cloned();
//!     let result = engine.call("greet", args, CancellationToken::new()).await;
//!     assert_eq!(result.unwrap(), json!({ "greeting": "Hello, Ada!" }));
//!     engine.shutdown().await;
//! }
//! ```
//!
//! For each tool the macro also emits a module named after it (for `greet`:
//! `greet::Node`, an enum with one variant per node, and `greet::run`, its
//! state machine), so the generated code can be read with `mcpgraph expand`
//! (the `mcpgraph-cli` crate) or your editor's macro expansion.
//!
//! # Options of the macro
//!
//! - `mcpgraph!("graph.yaml", crate = ::my_name)`: the path of this crate
//!   when the dependency is renamed.
//! - `mcpgraph!("graph.yaml", allow(reference_before_run))`: drop the
//!   warnings of a lint (here: an expression that reads a node which cannot
//!   have run before it); `allow(warnings)` drops them all.
//! - `mcpgraph!("graph.yaml", deny(unknown_input_field))`: make a lint's
//!   warnings errors, so that they fail the build; `deny(warnings)` denies
//!   them all. A lint's own setting wins over `warnings`, and the last
//!   setting of a name wins: `deny(warnings), allow(unknown_function)`.
//! - `mcpgraph!("graph.yaml", require_lock)`: fail when the graph has no
//!   schema lock (`<graph>.lock.json`).
//!
//! The graph's warnings are rustc warnings at the path literal: a file
//! written for mcpGraph compiles, with warnings at most. A proc macro
//! cannot emit a warning of its own on stable Rust, so each is drawn as the
//! use of a deprecated constant named after its lint:
//!
//! ```text
//! warning: use of deprecated constant `tools::_::mcpgraph::unknown_input_field`: `entry.nothing`: the tool's arguments (its `inputSchema`) cannot have a field `nothing`
//!            --> graph.yaml:27:67
//!             |
//!          27 |           expr: '{ "message": $.entry.message, "nothing": $.entry.nothing }'
//!             |                                                                   ^
//!             = note: its fields: message
//!             = note: `unknown_input_field` is an mcpgraph lint: `allow(unknown_input_field)` in the macro call drops this warning, `deny(unknown_input_field)` makes it an error
//!   --> src/main.rs:4:25
//!    |
//!  4 |     mcpgraph::mcpgraph!("graph.yaml");
//!    |                         ^^^^^^^^^^^^
//! ```
//!
//! The macro pins that lint to `warn` for its own items (rustc adds "the
//! lint level is defined here", at the macro call), so a crate's
//! `#![allow(deprecated)]` does not hide the graph's warnings (`allow(...)`
//! in the macro call does); `-D warnings` or `#![deny(warnings)]` make them
//! errors, as they do every warning.
//!
//! A `build.rs` can run the same generator instead
//! (`mcpgraph_codegen::Builder`), writing formatted code to `OUT_DIR`; its
//! `.allow("lint")` and `.deny("lint")` do what the macro's options do, and
//! its warnings are `cargo::warning=` lines.
//!
//! # Memory of an evaluation
//!
//! `maxValueBytes` bounds every value a node gives, and, with
//! [`allocator!`] declared in the binary, what one evaluation allocates
//! while it runs: a value grown step by step inside one expression (a
//! string doubled in a `$reduce`) stops with a value-limit error at its
//! next step. A program has one global allocator, chosen by the binary, so
//! this is opt-in: without it, such an evaluation is stopped by
//! `maxExpressionTimeMs` only.
//!
//! ```no_run
//! mcpgraph::mcpgraph!("doc/greeter.yaml");
//! mcpgraph::allocator!();
//!
//! fn main() -> std::process::ExitCode {
//!     Server::main()
//! }
//! ```
//!
//! # Features
//!
//! With `default-features = false` a binary serves stdio and calls stdio
//! servers only, the smallest build; each feature adds a transport back.
//!
//! - `http-server` (default): `serve --http`, streamable HTTP with its
//!   sessions, `/metrics` and inbound token checks. Without it,
//!   `serve --http` exits with an error naming the feature.
//! - `http-client` (default): downstream `http` and `sse` servers, with
//!   their OAuth. Without it, a graph that declares one fails to build at
//!   that server's line, and one in a `--mcp` file fails start-up.
//! - `tls` (default; turns on `http-client`): HTTPS to downstream
//!   `http`/`sse` servers (rustls with ring, the system's certificate
//!   roots). Without it a binary calls `http://` servers only: a graph
//!   that writes an `https://` URL fails to build, and an `https://` URL
//!   given at run time fails its calls with that reason.
//! - `otel`: export tool-call and node spans over OTLP/HTTP
//!   (`--otlp-endpoint`, to `http://` or `https://` collectors).
//! - `mimalloc` (default): [`allocator!`]`()` counts over mimalloc (a C
//!   library, built with the crate) instead of the system allocator:
//!   1.2-1.5x the calls per second of a loaded server, about the same
//!   resident memory (transparent huge pages off), +0.2 MB of binary.
//! - `graph-tests` (default): the graph's own tests, `test` and
//!   [`graph_tests!`], and `serve --record-failures`. Without it, `test`
//!   and `serve --record-failures` exit with an error naming the feature;
//!   a crate can keep it for `cargo test` alone, as a dev-dependency's
//!   feature (`[dev-dependencies] mcpgraph = { ..., features =
//!   ["graph-tests"] }`).

pub use mcpgraph_macros::{graph_tests, mcpgraph};
pub use mcpgraph_runtime::{
    CallError, CallOptions, CallOutcome, CancellationToken, CountingAllocator, Downstream, Engine,
    ErrorKind, Graph, Limit, NodeError, NodeRecord, NodeType, Observer, ProgressEvent, SchemaSide,
    ServerAuth, ServerSpec, StartupError, TransportSpec,
};

/// Declares [`CountingAllocator`] the program's global allocator, so that
/// one evaluation cannot allocate past `maxValueBytes` (see the crate's
/// "Memory of an evaluation"). Once per program, in the binary's
/// `main.rs`: `mcpgraph::allocator!()` counts over mimalloc (the
/// `mimalloc` feature, on by default) or else the system allocator;
/// `mcpgraph::allocator!(std::alloc::System)` over another, given as the
/// path of a unit struct that implements `GlobalAlloc`.
#[macro_export]
macro_rules! allocator {
    () => {
        $crate::allocator!($crate::__private::DefaultAllocator);
    };
    ($inner:path) => {
        #[global_allocator]
        static MCPGRAPH_GLOBAL_ALLOCATOR: $crate::CountingAllocator<$inner> =
            $crate::CountingAllocator::new($inner);
    };
}

mod cli;
mod features;

/// What generated code uses: the runtime's contract with the generator
/// (`mcpgraph_runtime::codegen`) and what this crate adds to it (the
/// command line, the checks of the features this build has), exactly the
/// names it emits. Not a public API: it changes without notice.
#[doc(hidden)]
pub mod __private {
    pub use crate::features::{DefaultAllocator, require_http_client, require_tls};
    pub use mcpgraph_downstream::connect as connect_servers;
    pub use mcpgraph_runtime::codegen::*;

    /// The generated binary's command line.
    pub mod cli {
        pub use crate::cli::{main, main_from};
    }

    /// What `graph_tests!` generates calls.
    #[cfg(feature = "graph-tests")]
    pub mod graph_tests {
        pub use mcpgraph_graph_tests::run_case;
    }
}
