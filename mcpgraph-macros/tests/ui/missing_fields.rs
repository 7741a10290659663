mcpgraph::mcpgraph!("ui/missing_fields.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
