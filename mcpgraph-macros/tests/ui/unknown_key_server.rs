mcpgraph::mcpgraph!("ui/unknown_key_server.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
