mcpgraph::mcpgraph!("ui/unknown_server_type.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
