mcpgraph::mcpgraph!("ui/yaml_two_documents.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
