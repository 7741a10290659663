mcpgraph::mcpgraph!("ui/five_errors.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
