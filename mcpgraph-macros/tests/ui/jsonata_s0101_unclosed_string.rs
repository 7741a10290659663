mcpgraph::mcpgraph!("ui/jsonata_s0101_unclosed_string.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
