mcpgraph::mcpgraph!("ui/expr_with_other_keys.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
