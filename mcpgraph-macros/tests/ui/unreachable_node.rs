mcpgraph::mcpgraph!("ui/unreachable_node.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
