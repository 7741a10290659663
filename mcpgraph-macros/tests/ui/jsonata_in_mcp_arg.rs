mcpgraph::mcpgraph!("ui/jsonata_in_mcp_arg.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
