mcpgraph::mcpgraph!("ui/invalid_tool_name.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
