mcpgraph::mcpgraph!("ui/json_schema_unknown_type.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
