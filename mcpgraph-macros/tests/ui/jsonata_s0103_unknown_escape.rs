mcpgraph::mcpgraph!("ui/jsonata_s0103_unknown_escape.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
