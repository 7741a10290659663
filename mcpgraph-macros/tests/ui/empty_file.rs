mcpgraph::mcpgraph!("ui/empty_file.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
