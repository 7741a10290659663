mcpgraph::mcpgraph!("ui/unknown_key_tool.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
