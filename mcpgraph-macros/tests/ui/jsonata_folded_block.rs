mcpgraph::mcpgraph!("ui/jsonata_folded_block.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
