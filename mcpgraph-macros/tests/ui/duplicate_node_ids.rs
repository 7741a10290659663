mcpgraph::mcpgraph!("ui/duplicate_node_ids.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
