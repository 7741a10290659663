mcpgraph::mcpgraph!("ui/test_file_bad_answers.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
