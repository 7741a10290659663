mcpgraph::mcpgraph!("ui/value_depth_ceiling.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
