mcpgraph::mcpgraph!("ui/exit_unreachable.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
