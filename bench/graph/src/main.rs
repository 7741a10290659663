//! The benchmark graph (`bench/graphs/bench.yaml`) compiled into an MCP server.

mcpgraph::mcpgraph!("../graphs/bench.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
