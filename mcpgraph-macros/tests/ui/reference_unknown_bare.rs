mcpgraph::mcpgraph!("ui/reference_unknown_bare.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
