mcpgraph::mcpgraph!("ui/jsonata_s0212_number.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
