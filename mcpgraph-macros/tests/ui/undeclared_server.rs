mcpgraph::mcpgraph!("ui/undeclared_server.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
