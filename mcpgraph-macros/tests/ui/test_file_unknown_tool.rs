mcpgraph::mcpgraph!("ui/test_file_unknown_tool.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
