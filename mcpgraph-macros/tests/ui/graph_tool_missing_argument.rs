mcpgraph::mcpgraph!("ui/graph_tool_missing_argument.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
