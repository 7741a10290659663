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
