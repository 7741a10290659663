mcpgraph::mcpgraph!("ui/test_file_bad_args.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
