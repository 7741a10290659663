mcpgraph::mcpgraph!("ui/wrong_type_nodes.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
