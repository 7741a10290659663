mcpgraph::mcpgraph!("ui/misplaced_field.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
