mcpgraph::mcpgraph!("ui/jsonata_s0203_unexpected_end.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
