mcpgraph::mcpgraph!("ui/wrong_type_next.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
