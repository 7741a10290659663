//! The server the official MCP conformance suite runs against
//! (`scripts/conformance.sh`): `graphs/conformance.yaml`, compiled.

mcpgraph::mcpgraph!("graphs/conformance.yaml");
// One evaluation cannot allocate past maxValueBytes.
mcpgraph::allocator!();

fn main() -> std::process::ExitCode {
    Server::main()
}
