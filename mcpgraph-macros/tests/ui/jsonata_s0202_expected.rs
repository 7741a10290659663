mcpgraph::mcpgraph!("ui/jsonata_s0202_expected.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
