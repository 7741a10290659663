mcpgraph::mcpgraph!("ui/unknown_key_node.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
