mcpgraph::mcpgraph!("ui/unknown_switch_target.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
