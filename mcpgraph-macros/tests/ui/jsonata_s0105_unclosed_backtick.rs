mcpgraph::mcpgraph!("ui/jsonata_s0105_unclosed_backtick.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
