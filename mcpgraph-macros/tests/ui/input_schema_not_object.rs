mcpgraph::mcpgraph!("ui/input_schema_not_object.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
