mcpgraph::mcpgraph!("ui/limits_not_positive.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
