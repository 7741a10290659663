mcpgraph::mcpgraph!("loop_example.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
