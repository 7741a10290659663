mcpgraph::mcpgraph!("ui/logic_unknown_operator.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
