//! The server the official MCP conformance suite runs against
//! (`scripts/conformance.sh`): `graphs/conformance.yaml`, compiled.

mcpgraph::mcpgraph!("graphs/conformance.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
