mcpgraph::mcpgraph!("ui/expr_not_a_string.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
