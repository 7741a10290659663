//! The benchmark graph (`bench/graphs/bench.yaml`) compiled into an MCP server.

mcpgraph::mcpgraph!("../graphs/bench.yaml");
// One evaluation cannot allocate past maxValueBytes.
mcpgraph::allocator!();

fn main() -> std::process::ExitCode {
    Server::main()
}
