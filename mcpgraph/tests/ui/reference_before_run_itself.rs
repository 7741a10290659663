mcpgraph::mcpgraph!("ui/reference_before_run_itself.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
