mcpgraph::mcpgraph!("ui/jsonata_s0212_index.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
