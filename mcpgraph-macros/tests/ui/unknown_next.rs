mcpgraph::mcpgraph!("ui/unknown_next.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
