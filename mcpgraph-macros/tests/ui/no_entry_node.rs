mcpgraph::mcpgraph!("ui/no_entry_node.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
