mcpgraph::mcpgraph!("ui/wrong_type_version.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
