mcpgraph::mcpgraph!("ui/duplicate_tool_names.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
