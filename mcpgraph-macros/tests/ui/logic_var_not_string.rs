mcpgraph::mcpgraph!("ui/logic_var_not_string.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
