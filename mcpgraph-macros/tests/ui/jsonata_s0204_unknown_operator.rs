mcpgraph::mcpgraph!("ui/jsonata_s0204_unknown_operator.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
