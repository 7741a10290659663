mcpgraph::mcpgraph!("test_minimal.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
