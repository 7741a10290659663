mcpgraph::mcpgraph!("ui/mcp_without_server.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
