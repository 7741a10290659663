mcpgraph::mcpgraph!("file_utils.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
