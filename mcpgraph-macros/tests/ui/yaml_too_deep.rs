mcpgraph::mcpgraph!("ui/yaml_too_deep.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
