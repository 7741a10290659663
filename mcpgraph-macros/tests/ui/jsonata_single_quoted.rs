mcpgraph::mcpgraph!("ui/jsonata_single_quoted.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
