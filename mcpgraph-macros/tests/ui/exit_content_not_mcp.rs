mcpgraph::mcpgraph!("ui/exit_content_not_mcp.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
