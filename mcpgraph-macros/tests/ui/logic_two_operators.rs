mcpgraph::mcpgraph!("ui/logic_two_operators.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
