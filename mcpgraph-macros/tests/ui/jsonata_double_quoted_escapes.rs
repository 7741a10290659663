mcpgraph::mcpgraph!("ui/jsonata_double_quoted_escapes.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
