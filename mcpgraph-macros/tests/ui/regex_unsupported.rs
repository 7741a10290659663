mcpgraph::mcpgraph!("ui/regex_unsupported.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
