mcpgraph::mcpgraph!("switch_example.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
