// `onError` is a route like `next`: it must name a node of the tool.
mcpgraph::mcpgraph!("ui/on_error_unknown_node.yaml");

fn main() -> std::process::ExitCode {
    Server::main()
}
