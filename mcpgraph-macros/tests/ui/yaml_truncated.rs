mcpgraph::mcpgraph!("ui/yaml_truncated.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
