mcpgraph::mcpgraph!("ui/unknown_key_top.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
