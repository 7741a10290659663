//! The server the official MCP conformance suite runs against
//! (`scripts/conformance.sh`): `graphs/conformance.yaml`, compiled.

// The client scenarios' servers that are not in the lock (their mocks
// change with the scenario, or need no listing) are not covered by it.
mcpgraph::mcpgraph!("graphs/conformance.yaml", allow(lock_coverage));
// One evaluation cannot allocate past maxValueBytes.
mcpgraph::allocator!();

fn main() -> std::process::ExitCode {
    Server::main()
}
