mcpgraph::mcpgraph!("ui/reference_unknown_history.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
