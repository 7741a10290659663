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
/// Options: `crate = ::renamed` for a renamed dependency, and
/// `allow(reference_before_run)` to accept a read of a node that cannot
/// have run yet. See the `mcpgraph` crate's documentation.
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
