mcpgraph::mcpgraph!("ui/tool_icon_bad.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
