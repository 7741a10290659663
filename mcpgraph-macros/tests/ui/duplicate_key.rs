mcpgraph::mcpgraph!("ui/duplicate_key.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
