mcpgraph::mcpgraph!("ui/not_utf8.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
