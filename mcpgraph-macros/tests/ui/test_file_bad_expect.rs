mcpgraph::mcpgraph!("ui/test_file_bad_expect.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
