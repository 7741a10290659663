mcpgraph::mcpgraph!("ui/two_exit_nodes.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
