mcpgraph::mcpgraph!("ui/jsonata_plain_multiline.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
