//! This crate is internal to mcpgraph and carries no semver promise: use
//! it through the [`mcpgraph`](https://docs.rs/mcpgraph) crate.
//!
//! The `mcpgraph!` macro: a shim over `mcpgraph-codegen`, which holds all
//! of its logic. It converts tokens, and turns a panic of the generator
//! into a build error beside a skeleton of the server's items.

use proc_macro::TokenStream;

/// Compiles a graph file into an MCP server: `struct Server` (with
/// `Server::main()` running the server's command line) and one module per
/// tool. The path is relative to the crate's `Cargo.toml`. A broken graph
/// is a compile error at its file, line and column, every problem at once.
/// A warning of the graph (a lint, e.g. `unknown_input_field`) is a rustc
/// warning at the path literal, with the graph file's position and the
/// lint's name in its text (drawn as the use of a deprecated constant:
/// "warning: use of deprecated constant `...::mcpgraph::LINT`").
/// Options: `crate = ::renamed` for a renamed dependency; `allow(lint,
/// ...)` drops a lint's warnings and `deny(lint, ...)` makes them errors
/// (`warnings` names them all); `require_lock` fails without a schema
/// lock. See the `mcpgraph` crate's documentation.
///
/// ```ignore
/// mcpgraph::mcpgraph!("graph.yaml");
/// ```
#[proc_macro]
pub fn mcpgraph(input: TokenStream) -> TokenStream {
    let input = proc_macro2::TokenStream::from(input);
    let expand = || mcpgraph_codegen::expand_invocation(input.clone());
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(expand))
        .unwrap_or_else(|_| mcpgraph_codegen::expansion_after_panic(input.clone()))
        .into()
}

/// One `#[test]` per case of a graph's test file (`graph.test.yaml`
/// beside `graph.yaml`), each running the case against the compiled graph
/// with the downstream replies replayed from `graph.cassette.json` (no
/// server started): `cargo test` runs a graph's own tests with the rest.
/// Emits `#[cfg(test)] mod graph_tests` holding the graph compiled again
/// and the tests; takes the options of `mcpgraph!`. A case that fails
/// panics with what differs; a request the recording does not hold says
/// how to record it (`<server> test --update`).
///
/// ```ignore
/// mcpgraph::graph_tests!("graph.yaml");
/// ```
#[proc_macro]
pub fn graph_tests(input: TokenStream) -> TokenStream {
    let input = proc_macro2::TokenStream::from(input);
    let expand = || mcpgraph_codegen::expand_tests_invocation(input.clone());
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(expand))
        .unwrap_or_else(|_| mcpgraph_codegen::expansion_after_panic(input.clone()))
        .into()
}
