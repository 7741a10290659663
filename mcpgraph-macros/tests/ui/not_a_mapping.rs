mcpgraph::mcpgraph!("ui/not_a_mapping.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
