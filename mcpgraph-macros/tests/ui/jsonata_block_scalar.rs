mcpgraph::mcpgraph!("ui/jsonata_block_scalar.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
