mcpgraph::mcpgraph!("ui/yaml_syntax.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
