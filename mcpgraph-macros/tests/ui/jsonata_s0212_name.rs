mcpgraph::mcpgraph!("ui/jsonata_s0212_name.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
