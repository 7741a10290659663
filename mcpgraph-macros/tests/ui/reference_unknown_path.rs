mcpgraph::mcpgraph!("ui/reference_unknown_path.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
