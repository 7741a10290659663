mcpgraph::mcpgraph!("ui/no_such_graph.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
