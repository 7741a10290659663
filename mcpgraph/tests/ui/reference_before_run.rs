mcpgraph::mcpgraph!("ui/reference_before_run.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
