mcpgraph::mcpgraph!("ui/unknown_node_type.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
