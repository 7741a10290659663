//! The fan-out benchmark graph (`bench/graphs/fanout.yaml`) compiled into
//! an MCP server.

mcpgraph::mcpgraph!("../graphs/fanout.yaml");
// One evaluation cannot allocate past maxValueBytes.
mcpgraph::allocator!();

fn main() -> std::process::ExitCode {
    Server::main()
}
